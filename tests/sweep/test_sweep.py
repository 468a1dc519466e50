"""Sweeps: the grid, the statistics, resume without double counting, errors recorded, and Dask giving the same
rows as the serial loop (LocalCluster here; an external scheduler in test_cluster.py)."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from solvi_lab import cli
from solvi_lab.errors import BadInput, BadParameter
from solvi_lab.studies import registry
from solvi_lab.sweep import (
    bootstrap_interval,
    parse_grid,
    parse_seeds,
    points,
    store,
    summarize,
    sweep,
    wilson_interval,
)

# what differs between two runs of the same point: where and when it ran
RUN_COLUMNS = {"wall_s", "worker", "finished"}


def deterministic(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.select([c for c in frame.columns if c not in RUN_COLUMNS]).sort(["params", "seed"])


def test_seeds_and_grid() -> None:
    assert parse_seeds("0-4,10") == [0, 1, 2, 3, 4, 10]
    for bad in ("-5", "3-1", "a", "1,1", "0-99999999", "", "9" * 5000):
        with pytest.raises(BadParameter, match="--seeds"):
            parse_seeds(bad)
    spec = registry.spec("risk_dungeon")
    assert parse_grid(["streams=1,2", "games=3"], spec) == {"streams": [1, 2], "games": [3]}
    for bad, needle in [
        (["streams"], "NAME=V1,V2"),
        (["streams=1", "streams=2"], "twice"),
        (["streams=1,1"], "a value twice"),
        (["seed=1"], "--seeds"),
        (["nope=1"], "has no parameter 'nope'"),
        (["streams=0"], "parameter streams got '0'"),
        (["games=NaN"], "parameter games got 'NaN'"),
    ]:
        with pytest.raises(BadParameter, match=needle):
            parse_grid(bad, spec)
    ps = points("risk_dungeon", quick=True, grid={"streams": [1, 2]}, seeds=[0, 1])
    assert [(p.kwargs, p.seed) for p in ps] == [
        ({"streams": 1, "games": 30}, 0),
        ({"streams": 1, "games": 30}, 1),
        ({"streams": 2, "games": 30}, 0),
        ({"streams": 2, "games": 30}, 1),
    ]
    assert len({p.id for p in ps}) == 4
    assert ps[0].id == points("risk_dungeon", quick=True, grid={"streams": [1]}, seeds=[0])[0].id


def test_intervals() -> None:
    assert wilson_interval(20, 20) == (0.839, 1.0)
    assert wilson_interval(0, 10) == (0.0, 0.278)
    assert wilson_interval(5, 10) == (0.237, 0.763)
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    assert bootstrap_interval([2.0, 2.0, 2.0]) == (2.0, 2.0)
    assert bootstrap_interval([1.0, 5.0, 3.0, 9.0]) == bootstrap_interval([1.0, 5.0, 3.0, 9.0])  # seeded
    lo, hi = bootstrap_interval(list(range(100)))
    assert lo < 49.5 < hi and 40 < lo and hi < 60


def test_serial_sweep_rows_summary_and_figure(tmp_path: Path) -> None:
    ps = points("example", quick=True, grid={"n_samples": [300, 900]}, seeds=[0, 1, 2])
    outcome = sweep(ps, tmp_path / "example", workers=0, progress=False)
    assert (outcome.total, outcome.ran, outcome.skipped, outcome.raised) == (6, 6, 0, 0)
    frame = pl.read_parquet(tmp_path / "example" / "sweep.parquet")
    assert frame.height == 6 and frame["error"].null_count() == 6
    assert frame.filter(pl.col("seed") == 1)["p.n_samples"].to_list() == [300, 900]
    assert (frame["m.n_samples"] == frame["p.n_samples"]).all()  # the value reached run()
    assert {"c.estimate within 3 standard errors of π", "f.estimate of π", "version", "worker", "commit"} <= set(
        frame.columns
    )
    assert frame["commit"].n_unique() == 1  # what the stored sweep says it ran on
    table = summarize(frame)
    claim = table.filter((pl.col("kind") == "claim") & (pl.col("params") == '{"n_samples": 900}')).row(0, named=True)
    assert claim["n"] == 3 and claim["mean"] == 1.0 and (claim["lo"], claim["hi"]) == wilson_interval(3, 3)
    assert claim["part"] == "finding"  # the row's part of the study's table travels with the sweep
    fig = table.filter((pl.col("kind") == "figure") & (pl.col("params") == '{"n_samples": 900}')).row(0, named=True)
    assert fig["published"] == pytest.approx(math.pi) and fig["inside"] == (fig["lo"] <= math.pi <= fig["hi"])
    assert (tmp_path / "example" / "sweep_n_samples.png").stat().st_size > 1000
    md = (tmp_path / "example" / "SUMMARY.md").read_text()
    assert "6 points (3 seeds), 0 raised" in md and "| estimate within 3 standard errors of π | finding | 3/3 |" in md


def test_resume_runs_only_what_is_missing_and_counts_nothing_twice(tmp_path: Path) -> None:
    out = tmp_path / "example"
    ps = points("example", quick=True, grid={}, seeds=list(range(6)))
    sweep(ps[:2], out, workers=0, progress=False)  # as if killed after two points
    with pytest.raises(BadInput, match="--resume"):
        sweep(ps, out, workers=0, progress=False)
    outcome = sweep(ps, out, workers=0, resume=True, progress=False)
    assert (outcome.ran, outcome.skipped) == (4, 2)
    frame = pl.read_parquet(out / "sweep.parquet")
    assert sorted(frame["seed"].to_list()) == list(range(6))
    reference = sweep(ps, tmp_path / "reference", workers=0, progress=False).frame
    assert deterministic(frame).equals(deterministic(reference))
    # a torn temporary file left by a kill is not a point
    (store.points_dir(out) / "x.parquet.tmp").write_bytes(b"PAR")
    assert sweep(ps, out, workers=0, resume=True, progress=False).ran == 0


def test_a_point_that_raises_is_recorded_and_the_rest_go_on(tmp_path: Path) -> None:
    # n_retractions ≤ n_items/2 is the study's own check: 6 > 10/2 raises inside run()
    ps = points("retraction", quick=True, grid={"n_items": [10], "n_retractions": [6, 2]}, seeds=[0])
    outcome = sweep(ps, tmp_path / "r", workers=0, progress=False)
    assert outcome.raised == 1
    frame = outcome.frame.sort("p.n_retractions")
    assert frame["error"][0] is None and frame["error"][1].startswith("BadParameter: n_retractions must be")
    # a raised point is run again on resume (it is not counted as done), and replaces its row
    again = sweep(ps, tmp_path / "r", workers=0, resume=True, progress=False)
    assert (again.ran, again.raised, again.frame.height) == (1, 1, 2)


def test_local_cluster_gives_the_serial_rows(tmp_path: Path) -> None:
    ps = points("example", quick=True, grid={"n_samples": [400, 800]}, seeds=[0, 1, 2])
    serial = sweep(ps, tmp_path / "serial", workers=0, progress=False).frame
    dask = sweep(ps, tmp_path / "dask", workers=2, progress=False).frame
    assert deterministic(dask).equals(deterministic(serial))
    assert set(dask["worker"].to_list()) != {"local"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["sweep", "nope"], "unknown study 'nope'"),
        (["sweep", "example", "--seeds", "-5"], "--seeds '-5'"),
        (["sweep", "example", "--seeds", "5-2"], "--seeds '5-2': the range 5-2 runs backwards (5 > 2); write 2-5."),
        (["sweep", "example", "-p", "n_samples=1,NaN"], "parameter n_samples got 'NaN'"),
        (["sweep", "example", "-p", "n_items=5"], "has no parameter 'n_items'"),
        (["sweep", "example", "--workers", "-1"], "--workers -1"),
        (["sweep", "example", "--out", "README.md"], "--out README.md is an existing file"),
    ],
)
def test_sweep_user_errors_exit_2(argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(registry.REPO_ROOT)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err


def test_a_bad_scheduler_address_is_one_line(tmp_path: Path, capsys) -> None:
    argv = ["sweep", "example", "--seeds", "0", "--scheduler", "no port", "--out", str(tmp_path), "--no-progress"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot reach the Dask scheduler at no port") and err.count("\n") == 1
    with pytest.raises(SystemExit) as exit_info:  # --workers and --scheduler exclude each other (argparse: usage)
        cli.main(["sweep", "example", "--workers", "1", "--scheduler", "tcp://127.0.0.1:8786"])
    assert exit_info.value.code == 2


def test_an_unreachable_scheduler_is_one_line_before_any_bar(tmp_path: Path, capsys) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        argv = ["sweep", "example", "--seeds", "0-3", "--scheduler", f"tcp://127.0.0.1:{port}", "--out", str(tmp_path)]
        assert cli.main(argv) == 2  # progress on: still no bar drawn before the error
    err = capsys.readouterr().err
    assert err == (
        f"error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port} (connection refused); start one with "
        "`dask scheduler` and workers with `dask worker ADDRESS` (docs/readme/sweeps.md).\n"
    )
    assert not (tmp_path / "example").exists()


def test_sweep_cli_then_resume(tmp_path: Path, capsys) -> None:
    argv = ["sweep", "example", "--seeds", "0-2", "--quick", "--workers", "0", "--out", str(tmp_path), "--no-progress"]
    assert cli.main(argv) == 0
    assert "example: 3 points (3 run now, 0 done before), 0 raised" in capsys.readouterr().out
    assert cli.main(argv) == 2
    assert "--resume" in capsys.readouterr().err
    assert cli.main([*argv, "--resume"]) == 0
    assert "(0 run now, 3 done before)" in capsys.readouterr().out


def test_reproduce_with_seeds_puts_the_sweep_beside_the_seed_0_table(tmp_path: Path, capsys) -> None:
    argv = ["reproduce", "--quick", "--only", "example", "--seeds", "3", "--workers", "0", "--out", str(tmp_path)]
    assert cli.main([*argv, "--no-progress"]) == 0, capsys.readouterr().err
    assert pl.read_parquet(tmp_path / "sweeps" / "example" / "sweep.parquet")["seed"].to_list() == [0, 1, 2]
    md = (tmp_path / "REPORT.md").read_text()
    seed0 = md.index("### Ours beside the published figures")
    over = md.index("### Over seeds (sweep)")
    assert seed0 < over and "| estimate within 3 standard errors of π | finding | 3/3 |" in md[over:]
    assert "Over seeds (sweep)" in (tmp_path / "report.html").read_text()
    assert cli.main([*argv, "--no-progress"]) == 0  # a second reproduce resumes the finished sweep
    assert cli.main(["reproduce", "--seeds", "-1"]) == 2


def test_a_study_compared_with_a_reference_has_no_published_figure_to_be_inside_of(tmp_path: Path) -> None:
    """learner_evidence compares solvi_lab with a naive reference model, not with published figures."""
    ps = points("learner_evidence", quick=True, grid={}, seeds=[0])
    sweep(ps, tmp_path / "le", workers=0, progress=False)
    table = summarize(pl.read_parquet(tmp_path / "le" / "sweep.parquet"))
    figures = table.filter(pl.col("kind") == "figure")
    assert figures.height > 0
    assert figures["published"].null_count() == figures.height and figures["inside"].null_count() == figures.height
    claims = table.filter(pl.col("kind") == "claim")
    assert set(claims["part"]) == {"mechanism"}  # one mechanism row per flaw of the review


def test_a_sweep_where_every_point_raises_says_each_distinct_error_once(tmp_path: Path, capsys) -> None:
    argv = ["sweep", "retraction", "--seeds", "0-1", "--quick", "--workers", "0", "--no-progress"]
    argv += ["-p", "n_items=10", "-p", "n_retractions=6,8", "--out", str(tmp_path)]
    assert cli.main(argv) == 1  # no polars traceback: the summary of what ran, then one line per error
    shown = capsys.readouterr()
    assert shown.out == f"retraction: 4 points (4 run now, 0 done before), 4 raised → {tmp_path / 'retraction' / 'SUMMARY.md'}\n"
    assert shown.err.splitlines() == [
        f"error: retraction: 2 of 4 points raised BadParameter: n_retractions must be an int in 1..n_items/2 (5), got {n}. (seeds 0, 1)"
        for n in (6, 8)
    ]
    summary = (tmp_path / "retraction" / "SUMMARY.md").read_text(encoding="utf-8")
    assert "### Sweep of retraction: 4 points (2 seeds), 4 raised" in summary
    assert "No point finished without an error: nothing to summarise (the errors are below)." in summary


def test_a_sweep_into_a_log_draws_no_bar(tmp_path: Path, capsys) -> None:
    """Progress on, stderr not a terminal (a CI log, a file): no redraws, only the summary line on stdout."""
    argv = ["sweep", "example", "--seeds", "0-1", "--quick", "--workers", "0", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    shown = capsys.readouterr()
    assert shown.err == "" and shown.out.startswith("example: 2 points (2 run now, 0 done before), 0 raised")
