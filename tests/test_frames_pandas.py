"""pandas and pyarrow are real dependencies: every polars frame a user reads converts with .to_pandas(); the
journal's on_load callback sees every record on every file backend (SQLite included)."""

import pandas as pd
import pytest

from solvi_lab.actions import ConservativeActionModel, Vocabulary
from solvi_lab.explore import store_frame
from solvi_lab.journal import Journal
from solvi_lab.knowledge.store import KnowledgeStore


def test_store_frame_to_pandas():
    ks = KnowledgeStore()
    ks.add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="spec", by="handbook")
    df = store_frame(ks).to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert len(df) == 1
    assert list(df.columns) == store_frame(ks).columns


def test_journal_frame_to_pandas():
    j = Journal()
    j.append("note", {"op": "hello"})
    j.append("note", {"n": 2})
    df = j.frame().to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert df["position"].tolist() == [0, 1]
    assert df["kind"].tolist() == ["note", "note"]
    assert df["op"].tolist()[0] == "hello"


def test_action_model_frame_to_pandas():
    m = ConservativeActionModel(Vocabulary({"s": lambda st, a: a["s"]}))
    m.observe({}, "go", {"s": "ok"}, accepted=True)
    m.observe({}, "go", {"s": "no"}, accepted=False)
    df = m.frame().to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert df["action"].tolist() == m.frame()["action"].to_list()
    assert set(df["kind"]) == {"allowed", "signature"}


@pytest.mark.parametrize("name", ["j.jsonl", "j.sqlite"])
def test_on_load_sees_every_record_on_each_file_backend(tmp_path, name):
    p = tmp_path / name
    with Journal(p) as j:
        j.append("note", {"n": 1})
        j.append("note", {"n": 2})
    seen = []
    with Journal(p, on_load=seen.append) as j:
        assert len(j) == 2
    assert [r.payload for r in seen] == [{"n": 1}, {"n": 2}]
    assert [r.position for r in seen] == [0, 1]
    assert not hasattr(j, "loaded_with_callback")
