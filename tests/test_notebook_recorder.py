"""The notebook recorder (`solvi_lab.notebook`): atomic writes, refused values, numpy scalars, figures and tables."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from matplotlib.figure import Figure

from solvi_lab import notebook
from solvi_lab.errors import BadInput


def read(out: Path, study: str = "s") -> dict:
    return json.loads((out / study / "metrics.json").read_text())


def test_record_writes_metrics_json(tmp_path: Path) -> None:
    rec = notebook.start("s", out=tmp_path)
    rec.record("a", 1)
    rec.record_all({"b": "x", "c": [1, 2], "d": {"e": None}})
    assert read(tmp_path) == {"a": 1, "b": "x", "c": [1, 2], "d": {"e": None}}


def test_no_module_level_recorder(tmp_path: Path) -> None:
    # the recorder is the object start() returns; the module keeps none (no hidden "current" recorder)
    rec = notebook.start("s", out=tmp_path)
    rec.record("a", 2)
    assert read(tmp_path) == {"a": 2}
    assert not hasattr(notebook, "_current") and not hasattr(notebook, "record")
    assert notebook.start("s", out=tmp_path) is not rec


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (np.int64(3), 3),
        (np.float32(0.5), 0.5),
        (np.float64(1.25), 1.25),
        (np.bool_(True), True),
        ({"k": np.int32(4)}, {"k": 4}),
        ([np.float64(1.0), 2], [1.0, 2]),
    ],
)
def test_numpy_scalars_become_plain_json(tmp_path: Path, value: object, expected: object) -> None:
    notebook.Recorder("s", tmp_path).record("m", value)
    got = read(tmp_path)["m"]
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, np.float64("nan"), [1.0, math.nan], {"k": math.inf}])
def test_non_finite_is_refused_and_file_unchanged(tmp_path: Path, value: object) -> None:
    rec = notebook.Recorder("s", tmp_path)
    rec.record("ok", 1)
    with pytest.raises(BadInput, match="not finite"):
        rec.record("bad", value)
    assert read(tmp_path) == {"ok": 1}


@pytest.mark.parametrize("value", [object(), {1, 2}, b"bytes"])
def test_unsupported_types_are_refused(tmp_path: Path, value: object) -> None:
    with pytest.raises(BadInput, match="cannot be recorded"):
        notebook.Recorder("s", tmp_path).record("m", value)


@pytest.mark.parametrize("study", ["", "a/b", None])
def test_bad_study_names(tmp_path: Path, study: object) -> None:
    with pytest.raises(BadInput):
        notebook.Recorder(study, tmp_path)  # type: ignore[arg-type]


def test_bad_metric_name(tmp_path: Path) -> None:
    with pytest.raises(BadInput):
        notebook.Recorder("s", tmp_path).record("", 1)


def test_atomic_write_keeps_old_file_when_replace_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "metrics.json"
    target.write_text("old")

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        notebook.atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.json"]  # no temporary file left behind


def test_atomic_write_leaves_no_temporaries(tmp_path: Path) -> None:
    rec = notebook.Recorder("s", tmp_path)
    for i in range(5):
        rec.record(f"m{i}", i)
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["metrics.json"]


def test_each_run_overwrites_metrics_never_merges(tmp_path: Path) -> None:
    notebook.Recorder("s", tmp_path).record("a", 1)
    notebook.Recorder("s", tmp_path).record("b", 2)
    assert read(tmp_path) == {"b": 2}  # a second run holds only its own metrics
    (tmp_path / "s" / "metrics.json").write_text("{torn")
    notebook.Recorder("s", tmp_path).record("c", 3)
    assert read(tmp_path) == {"c": 3}


def test_save_figure_and_table(tmp_path: Path) -> None:
    rec = notebook.Recorder("s", tmp_path)
    fig = Figure()
    fig.add_subplot().plot([0, 1], [0, 1])
    png = rec.save_figure("line", fig)
    assert png == tmp_path / "s" / "line.png" and png.read_bytes().startswith(b"\x89PNG")
    csv = rec.save_table("comparison", pl.DataFrame({"measure": ["x"], "ours": ["1"]}))
    assert csv.read_text().splitlines() == ["measure,ours", "x,1"]


def test_caveats_saved_as_a_list_of_sentences(tmp_path) -> None:
    import json

    import pytest

    from solvi_lab.errors import BadInput
    from solvi_lab.notebook import Recorder

    rec = Recorder("s", tmp_path)
    path = rec.save_caveats(["97.1% of held-out vectors were seen in training"])
    assert json.loads(path.read_text()) == ["97.1% of held-out vectors were seen in training"]
    for bad in ("one string", [""], [3], None):
        with pytest.raises(BadInput, match="caveats must be a list"):
            rec.save_caveats(bad)
    assert json.loads(path.read_text()) == ["97.1% of held-out vectors were seen in training"]  # unchanged
