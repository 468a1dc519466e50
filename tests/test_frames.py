"""store_frame: one row per item (present or retracted), columns that agree with ks.item / ks.status / ks.stale."""

from __future__ import annotations

import json

import polars as pl
import pytest

from solvi_lab.errors import WriteRefused
from solvi_lab.explore.frames import FRAME_SCHEMA, json_text, store_frame
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore

COLUMNS = [
    "id",
    "kind",
    "s",
    "r",
    "o",
    "scope",
    "source",
    "by",
    "status",
    "rank",
    "confirmations",
    "refutations",
    "learned_at",
    "invalidated_at",
    "valid_since",
    "valid_until",
    "n_premises",
    "stale",
]


def varied_store() -> tuple[KnowledgeStore, dict[str, str]]:
    """Every status, a refused write, non-string values, scopes, premises, validity, a pending flag."""
    ks = KnowledgeStore(journal=Journal())
    ids: dict[str, str] = {}
    ids["spec"] = ks.add("fact", {"s": "c1", "r": "tier", "o": "regular"}, source="spec", by="handbook")  # k0
    ids["crm"] = ks.add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="person", by="crm")  # k1 refutes k0
    ids["disc"] = ks.add(
        "fact", {"s": "c1", "r": "discount", "o": 20}, source="spec", by={"team": "pricing"}, derived_from=[ids["crm"]]
    )  # k2
    ids["ann"] = ks.add(
        "fact", {"s": ["room", 3], "r": "size", "o": [4, 5]}, source="person", by="ann", scope={"map": "A", "level": 2}
    )  # k3
    ids["bob"] = ks.add(
        "fact", {"s": ["room", 3], "r": "size", "o": 9.5}, source="person", by="bob", scope={"level": 2, "map": "A"}
    )  # k4: dispute with k3
    ids["hyp"] = ks.add("fact", {"s": "c2", "r": "tier", "o": "gold"}, source="spec", hypothesis=True)  # k5
    ids["exp"] = ks.add(
        "fact", {"s": "c3", "r": "plan", "o": None}, source="spec", reconfirm_after=1, valid=(3, 10)
    )  # k6
    ids["rule"] = ks.add("rule", {"name": "ship", "when": "tier == vip"}, source="spec", derived_from=[ids["disc"]])
    with pytest.raises(WriteRefused):
        ks.add("fact", {"s": "c9", "r": "x", "o": 1}, source="model")  # k8: refused, not in the store
    ids["refused"] = "k8"
    ks.tick(1)  # k9: k6 expires
    ids["flagged"] = ks.add("fact", {"s": "c4", "r": "plan", "o": "pro"}, source="outcome")  # k10
    ks.flag(ids=[ids["flagged"]], why="drift", by="monitor")  # k11
    ks.retract(ids["crm"], by="ann", why="wrong customer")  # k12: k1, k2, k7 retracted; k0 back
    return ks, ids


def test_columns_and_schema_are_exact() -> None:
    ks, _ = varied_store()
    f = store_frame(ks)
    assert f.columns == COLUMNS
    assert [str(t) for t in f.dtypes] == ["String"] * 9 + ["Int64"] * 5 + ["Int64", "Int64", "Int64", "Boolean"]
    assert list(FRAME_SCHEMA) == COLUMNS


def test_one_row_per_item_refused_left_out() -> None:
    ks, ids = varied_store()
    f = store_frame(ks)
    assert f["id"].to_list() == ["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k10"]
    assert ids["refused"] not in f["id"].to_list()
    assert ks.status(ids["refused"]) == "refused"


def test_every_status_matches_the_store() -> None:
    ks, _ = varied_store()
    f = store_frame(ks)
    assert dict(f.select("id", "status").iter_rows()) == {
        "k0": "active",
        "k1": "retracted",
        "k2": "retracted",
        "k3": "disputed",
        "k4": "disputed",
        "k5": "hypothesis",
        "k6": "expired",
        "k7": "retracted",
        "k10": "active",
    }
    for iid, status in f.select("id", "status").iter_rows():
        assert status == ks.status(iid)


def test_columns_agree_with_item_records() -> None:
    """The frame reads Item slots directly; ks.item(id) is the definition it must agree with."""
    ks, _ = varied_store()
    for row in store_frame(ks).iter_rows(named=True):
        rec = ks.item(row["id"])
        body = rec["body"] if rec["kind"] == "fact" else {}
        assert row["kind"] == rec["kind"]
        assert row["source"] == rec["source"]
        assert row["by"] == json_text(rec["who"])
        for col in ("s", "r", "o"):
            assert row[col] == json_text(body.get(col))
        assert row["scope"] == (
            None if rec["scope"] is None else json.dumps(rec["scope"], sort_keys=True, separators=(",", ":"))
        )
        assert row["confirmations"] == rec["counts"]["confirmations"]
        assert row["refutations"] == rec["counts"]["refutations"]
        assert row["learned_at"] == rec["learned_at"]
        assert row["invalidated_at"] == rec["invalidated_at"]
        assert (row["valid_since"], row["valid_until"]) == (rec["valid"]["since"], rec["valid"]["until"])
        assert row["n_premises"] == len(rec["derived_from"])
        assert row["stale"] == rec["stale"] == ks.stale(row["id"])


def test_json_text_cells_and_ranks() -> None:
    ks, ids = varied_store()
    f = store_frame(ks)
    row = dict(zip(f.columns, f.row(by_predicate=pl.col("id") == ids["ann"])))
    assert (row["s"], row["r"], row["o"]) == ('["room",3]', "size", "[4,5]")
    assert row["scope"] == '{"level":2,"map":"A"}'
    bob = f.filter(pl.col("id") == ids["bob"]).row(0, named=True)
    assert (bob["o"], bob["scope"]) == ("9.5", '{"level":2,"map":"A"}')  # other key order, same text
    disc = f.filter(pl.col("id") == ids["disc"]).row(0, named=True)
    assert (disc["o"], disc["by"]) == ("20", '{"team":"pricing"}')
    exp = f.filter(pl.col("id") == ids["exp"]).row(0, named=True)
    assert exp["o"] is None  # a JSON null object is a null cell
    rule = f.filter(pl.col("id") == ids["rule"]).row(0, named=True)
    assert (rule["s"], rule["r"], rule["o"], rule["n_premises"]) == (None, None, None, 1)
    assert dict(f.select("source", "rank").unique().iter_rows()) == {"outcome": 4, "person": 3, "spec": 2}


def test_invalidated_at_refuted_and_retracted() -> None:
    ks, ids = varied_store()
    f = store_frame(ks)
    inv = dict(f.select("id", "invalidated_at").iter_rows())
    # k0 was refuted at 1 and restored by the retraction (position 12): nothing invalidates it now.
    assert inv == {
        "k0": None,
        "k1": 12,
        "k2": 12,
        "k3": None,
        "k4": None,
        "k5": None,
        "k6": None,
        "k7": 12,
        "k10": None,
    }
    before = store_frame(ks.at(12))
    assert dict(before.select("id", "invalidated_at").iter_rows())["k0"] == 1


def test_stale_only_under_a_pending_flag() -> None:
    ks, ids = varied_store()
    f = store_frame(ks)
    assert f.filter(pl.col("stale"))["id"].to_list() == [ids["flagged"]]
    ks.end_flag("f11", by="monitor", why="false alarm")
    assert not store_frame(ks)["stale"].any()


def test_validity_columns_are_typed_from_the_data() -> None:
    ks = KnowledgeStore()
    ks.add("fact", {"s": 1, "r": "a", "o": 1}, source="spec", valid=("2024-01-01", None))
    f = store_frame(ks)
    assert (f.schema["valid_since"], f.schema["valid_until"]) == (pl.Utf8, pl.Int64)
    assert f["valid_since"].to_list() == ["2024-01-01"]
    ks.add("fact", {"s": 2, "r": "a", "o": 1}, source="spec", valid=(1.5, 2))
    ks.add("fact", {"s": 3, "r": "a", "o": 1}, source="spec", valid=(None, 3))
    f = store_frame(ks)
    assert f.schema["valid_until"] == pl.Int64 and f["valid_until"].to_list() == [None, 2, 3]
    assert f.schema["valid_since"] == pl.Utf8 and f["valid_since"].to_list() == ["2024-01-01", "1.5", None]
    only_numbers = KnowledgeStore()
    only_numbers.add("fact", {"s": 2, "r": "a", "o": 1}, source="spec", valid=(1.5, 2))
    assert store_frame(only_numbers).schema["valid_since"] == pl.Float64


def test_empty_store_has_the_schema() -> None:
    f = store_frame(KnowledgeStore())
    assert f.height == 0 and f.columns == COLUMNS


def test_a_rebuilt_view_and_a_replay_give_the_same_frame() -> None:
    ks, _ = varied_store()
    assert store_frame(KnowledgeStore.from_journal(ks.journal)).equals(store_frame(ks.rebuild()))


def test_polars_queries_a_researcher_writes() -> None:
    ks, _ = varied_store()
    f = store_frame(ks)
    by_source = dict(f.filter(pl.col("status") != "retracted").group_by("source").len().sort("source").iter_rows())
    assert by_source == {"outcome": 1, "person": 2, "spec": 3}
    assert f.filter(pl.col("status") == "disputed")["by"].to_list() == ["ann", "bob"]
