"""`solvi-lab diff` on hand-made results folders and sweeps: the numbers, the regressions, the exit status."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from solvi_lab import cli, study_diff
from solvi_lab.errors import BadInput

HEADER = "part,key,measure,ours,published,difference,holds,threshold,note\n"


def _results(folder: Path, study: str, metrics: dict, holds: dict[str, str]) -> Path:
    (folder / study).mkdir(parents=True)
    (folder / study / "metrics.json").write_text(json.dumps(metrics))
    rows = "".join(f"claim (specification),{k},{k},1,2,—,{v},,\n" for k, v in holds.items())
    (folder / study / "comparison.csv").write_text(HEADER + rows)
    return folder


def test_results_rows_differences_and_a_regressed_claim(tmp_path: Path) -> None:
    a = _results(tmp_path / "a", "example", {"n": 10, "rate": 0.5, "tag": "x"}, {"k1": "yes", "k2": "yes"})
    b = _results(tmp_path / "b", "example", {"n": 12, "rate": 0.25, "new": 1}, {"k1": "NO", "k2": "yes"})
    _results(tmp_path / "a", "explore", {"m": 1}, {})
    d = study_diff.diff(a, b)
    assert d.kind == "results" and d.only_in_a == ["explore"] and d.only_in_b == []
    rows = {r.name: r for r in d.studies[0].rows}
    assert (rows["n"].a, rows["n"].b, rows["n"].difference) == (10, 12, 2)
    assert rows["rate"].difference == -0.25 and rows["tag"].b is None and rows["new"].a is None
    assert rows["k1"].regressed and not rows["k2"].regressed and rows["k1"].kind == "claim"
    assert d.regressions == ["example: k1"]
    md = study_diff.markdown(d)
    assert "**1 checked row(s) held in A and fail(s) in B:** example: k1" in md
    assert "| claim | **k1 — held in A, fails in B** | yes | NO | — |" in md
    assert "| metric | rate | 0.5 | 0.25 | -0.25 |" in md and "Studies only in A: explore." in md
    assert "| metric | k2 |" not in study_diff.markdown(d, changed_only=True)


def test_cli_exit_status_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _results(tmp_path / "a", "example", {"n": 1}, {"k": "yes"})
    b = _results(tmp_path / "b", "example", {"n": 1}, {"k": "NO"})
    assert cli.main(["diff", str(a), str(b), "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["regressions"] == ["example: k"]
    assert captured.err == "error: 1 regressed: example: k\n"
    assert cli.main(["diff", str(b), str(a)]) == 0  # failing in A and holding in B is no regression
    assert "No checked row that held in A fails in B." in capsys.readouterr().out


def _sweep(folder: Path, study: str, rows: list[dict]) -> Path:
    (folder / study).mkdir(parents=True)
    base = {"params": '{"n": 1}', "sd": 0.0, "published": None, "inside": None, "part": None}
    pl.DataFrame([{**base, **r} for r in rows]).write_parquet(folder / study / "summary.parquet")
    return folder


def test_sweeps_intervals_overlap_and_a_claim_that_fell_beyond_noise(tmp_path: Path) -> None:
    claim = {"kind": "claim", "name": "c", "n": 20}
    a = _sweep(
        tmp_path / "a",
        "example",
        [
            {**claim, "mean": 0.95, "lo": 0.76, "hi": 0.99},
            {"kind": "metric", "name": "m", "n": 20, "mean": 1.0, "lo": 0.9, "hi": 1.1},
        ],
    )
    b = _sweep(
        tmp_path / "b",
        "example",
        [
            {**claim, "mean": 0.30, "lo": 0.15, "hi": 0.52},
            {"kind": "metric", "name": "m", "n": 20, "mean": 1.05, "lo": 0.95, "hi": 1.2},
        ],
    )
    d = study_diff.diff(a, b)
    rows = {r.name: r for r in d.studies[0].rows}
    assert rows["c"].overlap is False and rows["c"].regressed and rows["c"].difference == pytest.approx(-0.65)
    assert rows["m"].overlap is True and not rows["m"].regressed
    md = study_diff.markdown(d)
    assert "| claim | **c — regressed in B** | 0.95 | [0.76, 0.99] | 0.3 | [0.15, 0.52] | -0.65 | NO |" in md
    # one study's sweep folder itself works too
    assert study_diff.diff(a / "example", b / "example").regressions == ["example: c"]


def test_mismatched_or_empty_folders_are_refused(tmp_path: Path) -> None:
    a = _results(tmp_path / "a", "example", {"n": 1}, {})
    s = _sweep(tmp_path / "s", "example", [{"kind": "metric", "name": "m", "n": 2, "mean": 1.0, "lo": 1.0, "hi": 1.0}])
    with pytest.raises(BadInput, match="holds results and .* holds sweeps; compare two results folders or two sweeps"):
        study_diff.diff(a, s)
    (tmp_path / "empty").mkdir()
    with pytest.raises(BadInput, match="holds neither study results"):
        study_diff.diff(a, tmp_path / "empty")
    with pytest.raises(BadInput, match="is not a folder"):
        study_diff.diff(a, tmp_path / "nowhere")
