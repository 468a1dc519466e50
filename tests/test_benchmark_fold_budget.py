"""benchmarks/fold_budget.py: the phases of a fresh fold against its floor (issue 42), on a tiny journal: every
phase measured in each fresh process, the minimum and the rules derived exactly from them, bad input refused."""

from __future__ import annotations

import json

import pytest


def test_summarise_takes_the_median_and_derives_the_minimum_and_the_rules(load_benchmark):
    runs = [
        {"floor": 1.0, "journal_load": 1.0, "items": 0.5, "digests": 0.5, "rebuild": 3.0},
        {"floor": 2.0, "journal_load": 2.0, "items": 1.0, "digests": 1.0, "rebuild": 8.0},
        {"floor": 4.0, "journal_load": 3.0, "items": 1.5, "digests": 1.5, "rebuild": 9.0},
    ]
    s = load_benchmark("fold_budget").summarise(runs)
    assert (s["floor_s"], s["journal_load_s"], s["items_s"], s["digests_s"], s["rebuild_s"]) == (
        2.0,
        2.0,
        1.0,
        1.0,
        8.0,
    )
    assert s["model_minimum_s"] == 4.0 and s["rules_s"] == 4.0
    assert s["model_minimum_over_floor"] == 2.0 and s["rebuild_over_floor"] == 4.0
    assert s["goal_met"] is False and s["runs"] == runs
    fast = load_benchmark("fold_budget").summarise(
        [{"floor": 1.0, "journal_load": 1.0, "items": 0.5, "digests": 0.5, "rebuild": 3.0}]
    )
    assert fast["goal_met"] is True  # exactly at the goal's ratio counts as met


def test_a_tiny_run_measures_every_phase_on_both_streams(load_benchmark, tmp_path):
    load_benchmark("fold_budget").main(["--sizes", "200", "--repeats", "1", "--out", str(tmp_path), "--name", "t"])
    got = json.loads((tmp_path / "t.json").read_text())
    assert got["meta"]["n"] == 200 and got["meta"]["repeats"] == 1
    assert [r["profile"] for r in got["rows"]] == ["default", "derived-keys"]
    for r in got["rows"]:
        (run,) = r["runs"]
        assert sorted(run) == sorted(("floor", "journal_load", "items", "digests", "rebuild"))
        assert all(v > 0 for v in run.values())
        assert r["model_minimum_s"] == run["journal_load"] + run["items"] + run["digests"]
        assert r["rules_s"] == run["rebuild"] - r["model_minimum_s"]
    md = (tmp_path / "t.md").read_text()
    assert md.startswith("# A full fold's time against its floor, at 200 items")
    assert sum(line.startswith("|") for line in md.splitlines()) == 10  # header, separator, floor, 6 phases, goal


def test_a_baseline_checkout_is_measured_alternately_on_the_same_journals(load_benchmark, tmp_path):
    fb = load_benchmark("fold_budget")
    root = fb.ROOT  # this very checkout as its own baseline: both columns run the same code
    fb.main(["--sizes", "150", "--repeats", "1", "--out", str(tmp_path), "--name", "t", "--baseline", str(root)])
    got = json.loads((tmp_path / "t.json").read_text())
    from store_scale import commit_of  # importable: loading the benchmark put its folder on the path

    commit = commit_of(str(root))
    assert got["meta"]["this"] == got["meta"]["baseline"] == commit
    assert [(r["profile"], r["checkout"]) for r in got["rows"]] == [
        ("default", commit),
        ("default", commit),
        ("derived-keys", commit),
        ("derived-keys", commit),
    ]
    assert all(len(r["runs"]) == 1 for r in got["rows"])
    md = (tmp_path / "t.md").read_text()
    assert f"| `default` stream, `{commit}` | `default` stream, `{commit}` |" in md
    assert f"--baseline <checkout of {commit}>" in md and "and checkout, alternating" in md


def test_a_baseline_that_is_not_a_checkout_is_refused(load_benchmark, tmp_path):
    with pytest.raises(SystemExit) as e:
        load_benchmark("fold_budget").main(["--baseline", str(tmp_path), "--out", str(tmp_path / "out")])
    assert str(e.value) == (
        f"--baseline {tmp_path}: no benchmarks/fold_budget.py there; give the root of another checkout (for example "
        "one made with `git worktree add ../solvi_lab-old <commit>`)"
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--sizes", "0"], "--sizes and --repeats must be at least 1 (items per journal, fresh processes per stream)"),
        (
            ["--repeats", "0"],
            "--sizes and --repeats must be at least 1 (items per journal, fresh processes per stream)",
        ),
        (["--profile", "nope"], "unknown stream(s) ['nope']; the streams are: default, hot-keys, derived-keys"),
    ],
)
def test_bad_input_is_refused_with_what_to_give(load_benchmark, tmp_path, argv, says):
    with pytest.raises(SystemExit) as e:
        load_benchmark("fold_budget").main([*argv, "--out", str(tmp_path)])
    assert str(e.value) == says
    assert list(tmp_path.iterdir()) == []
