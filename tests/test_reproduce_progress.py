"""reproduce's progress tells the truth: the studies running, their cells, and a time left from measured times."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from solvi_lab import progress, reproduce
from solvi_lab.studies import registry


def test_estimate_uses_the_last_runs_times_and_places_queued_studies_on_the_first_free_worker() -> None:
    previous = {"retraction": 160.0, "taubench": 30.0, "crafting": 17.0, "explore": 11.0}
    running = {"retraction": (100.0, 40, 52), "taubench": (25.0, 10, 20)}
    # worker 1 free in 60 s, worker 2 in 5 s: crafting then explore both go to worker 2 (5 + 17 + 11 = 33 s)
    assert progress.estimate_left(running, ["crafting", "explore"], previous, jobs=2) == (60.0, "last run")
    # one at a time: everything adds up (60 s left of retraction, then 30 + 17)
    one = {"retraction": (100.0, 40, 52)}
    assert progress.estimate_left(one, ["taubench", "crafting"], previous, jobs=1) == (107.0, "last run")


def test_without_a_measurement_the_estimate_waits_for_a_cell_then_scales_it() -> None:
    assert progress.estimate_left({"x": (3.0, 0, 10)}, [], {}, jobs=1) == (None, "")
    assert progress.estimate_left({"x": (3.0, 1, 10)}, [], {}, jobs=1) == (27.0, "cells so far")
    # a study that ran over its last time falls back on its own cells, never a negative time
    assert progress.estimate_left({"x": (50.0, 5, 10)}, [], {"x": 40.0}, jobs=1) == (50.0, "cells so far")
    # a queued study never measured: no honest estimate
    assert progress.estimate_left({"x": (3.0, 1, 10)}, ["y"], {}, jobs=2) == (None, "")


def test_status_line_names_every_running_study_with_its_cells() -> None:
    line = progress.status_line({"retraction": (9.0, 7, 52), "explore": (2.0, 3, 30)}, (200.0, "last run"))
    assert line == "running retraction 7/52 cells, explore 3/30 cells · about 3 min 20 s left (last run)"
    assert progress.status_line({}, (None, "")) == "starting"


def test_previous_seconds_reads_only_ok_runs_of_the_same_size(tmp_path: Path) -> None:
    for name, status, quick, seconds in [("a", "ok", True, 4.5), ("b", "failed", True, 9.0), ("c", "ok", False, 80)]:
        (tmp_path / name).mkdir()
        run = {"status": status, "quick": quick, "seconds": seconds}
        (tmp_path / name / "run.json").write_text(json.dumps(run))
    assert progress.previous_seconds(tmp_path, ["a", "b", "c", "missing"], quick=True) == {"a": 4.5}
    assert progress.previous_seconds(tmp_path, ["a", "b", "c"], quick=False) == {"c": 80.0}


def test_a_notebook_writes_its_cells_to_the_progress_file(tmp_path: Path) -> None:
    info = registry.get("example")
    cells = tmp_path / ".progress" / "example.json"
    run = reproduce.run_notebook(info.notebook_path, tmp_path, study="example", quick=True, progress=cells)
    assert run.status == "ok", run.message
    elapsed, done, total = progress.read_cells(cells)
    assert done == total and total > 3 and elapsed >= 0
    assert progress.read_cells(tmp_path / "nothing.json") is None


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_one_live_line_names_the_running_studies_cells_and_time_left() -> None:
    screen = _Terminal()
    shown = progress.JobProgress(["retraction", "explore"], jobs=1, previous={"explore": 11.0}, stream=screen)
    assert shown.live
    shown.running({"retraction": (30.0, 10, 50)})
    shown.finished("retraction", "retraction: ok in 40.0 s")
    shown.running({"explore": (1.0, 2, 30)})
    shown.finished("explore", "explore: FAILED — ValueError: x", ok=False)
    shown.close()
    text = screen.getvalue()
    assert (
        "reproduce: 0/2 studies" in text
        and "running retraction 10/50 cells · about 2 min 11 s left (last run, cells so far)" in text
    )
    assert "running explore 2/30 cells · about 10 s left (last run)" in text
    assert "reproduce: 1/2 studies [00:00], next explore · about 11 s left (last run)" in text  # between the two
    assert "explore: FAILED — ValueError: x\n" in text  # a failure is said at once, above the line
    assert "retraction: ok in 40.0 s" not in text  # successes are summed up after the job, not interleaved
    assert "started" not in text and "\r" in text  # redrawn in place: no plain lines
    assert text.rstrip("\n").rsplit("\r", 1)[-1] == "reproduce: 2/2 studies [00:00]"  # the last draw: all done


def test_in_a_log_one_plain_line_per_study_started_and_finished_and_no_redraws() -> None:
    log = io.StringIO()
    shown = progress.JobProgress(["a", "b", "c"], jobs=2, previous={"c": 20.0}, stream=log)
    assert not shown.live
    for _ in range(5):  # redraw ticks while the same studies run say nothing new
        shown.running({"a": (3.0, 2, 10), "b": (1.0, 0, 4)})
    shown.finished("b", "b: ok in 2.0 s")
    shown.running({"a": (9.0, 5, 10)})
    shown.finished("c", "c: skipped, data missing")  # never seen running: still said to start
    shown.finished("a", "a: ok in 18.0 s")
    shown.close()
    assert log.getvalue().splitlines() == [
        "[0/3] started a (10 cells)",
        "[0/3] started b (4 cells)",
        "[1/3] b: ok in 2.0 s · about 20 s left (last run, cells so far)",
        "[1/3] started c",
        "[2/3] c: skipped, data missing · about 9 s left (cells so far)",
        "[3/3] a: ok in 18.0 s",
    ]
    assert "\r" not in log.getvalue()


def test_reproduce_in_one_process_redraws_the_line_at_each_cell(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(progress, "is_terminal", lambda stream: True)
    runs = reproduce.reproduce(tmp_path, quick=True, only=["example"], jobs=1)
    assert [r.status for r in runs] == ["ok"]
    err = capsys.readouterr().err
    total = len(json.loads(Path(runs[0].executed).read_text(encoding="utf-8"))["cells"])  # with papermill's own
    drawn = [(int(d), int(t)) for d, t in re.findall(r"running example (\d+)/(\d+) cells", err)]
    assert drawn == [(k, total) for k in range(total + 1)]  # every cell, as it finished
    assert "Unable to parse" not in err and "unknown parameter" not in err


def test_reproduce_with_a_relative_out_finds_the_cells_and_leaves_nothing_in_notebooks(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """Two notebooks at once, in Dask workers (papermill runs them in notebooks/), `--out results` relative,
    output captured (not a terminal): a started line with its cells (read from the worker's cell file), a
    finished line per study, no redraw, and no .progress left anywhere."""
    monkeypatch.chdir(tmp_path)
    notebooks = registry.REPO_ROOT / "notebooks"
    before = sorted(p.name for p in notebooks.iterdir())
    runs = reproduce.reproduce("results", quick=True, only=["example", "learner_evidence"], jobs=2)
    assert [r.status for r in runs] == ["ok", "ok"]
    lines = capsys.readouterr().err.splitlines()
    for name in ("example", "learner_evidence"):
        executed = Path(next(r.executed for r in runs if r.study == name))
        total = len(json.loads(executed.read_text(encoding="utf-8"))["cells"])
        assert sum(ln.endswith(f"] started {name} ({total} cells)") for ln in lines) == 1, lines
        assert sum(f"] {name}: ok in " in ln for ln in lines) == 1, lines
    assert not any("\r" in ln or "studies [" in ln for ln in lines)
    assert (tmp_path / "results" / "example" / "run.json").is_file()
    assert all(Path(r.executed).is_absolute() and Path(r.executed).is_file() for r in runs)
    assert not (tmp_path / "results" / ".progress").exists()
    assert sorted(p.name for p in notebooks.iterdir()) == before  # no notebooks/results left behind
