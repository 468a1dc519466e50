"""reproduce's progress tells the truth: the studies running, their cells, and a time left from measured times."""

from __future__ import annotations

import json
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


def test_reproduce_with_two_notebooks_at_once_shows_them_running(tmp_path: Path, capsys) -> None:
    runs = reproduce.reproduce(tmp_path, quick=True, only=["example", "learner_evidence"], jobs=2)
    assert [r.status for r in runs] == ["ok", "ok"]
    err = capsys.readouterr().err
    assert "reproduce (2 at once): 0/2 studies" in err
    assert "running " in err and " cells" in err
    assert "Kernel is running over TCP" not in err and "Unable to parse" not in err and "unknown parameter" not in err
    assert not (tmp_path / ".progress").exists()
