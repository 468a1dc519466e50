"""The explorer's requirement rows on design seeds (benchmarks/explorer_requirements.py): it refuses the reported
sweep's seeds, summarises a run's rows, and compares two stored runs seed by seed."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def bench(load_benchmark):
    return load_benchmark("explorer_requirements")


def _seed(seed: int, exact: int, not_exact: list[list[str]]) -> dict:
    return {
        "seed": seed,
        "rows": 47,
        "exact": exact,
        "passes": exact >= 0.9 * 47,
        "not_exact": not_exact,
        "iron_tools_made": [],
    }


def test_seeds_are_design_seeds_only(bench):
    assert bench._seed_list("20-22") == [20, 21, 22]
    assert bench._seed_list("25,31") == [25, 31]
    with pytest.raises(SystemExit, match=r"seeds \[18, 19\] are the reported sweep's: design on 20 and up"):
        bench._seed_list("18-21")
    with pytest.raises(SystemExit, match=r"seeds \[0\]"):
        bench._seed_list("0")
    with pytest.raises(SystemExit, match=r"--seeds 'abc': give a range such as 20-39 or a list such as 20,21"):
        bench._seed_list("abc")
    with pytest.raises(SystemExit, match=r"--seeds '30-25' names no seed: give the smaller seed first"):
        bench._seed_list("30-25")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--set", "ONE_COAL=maybe"], "'ONE_COAL=maybe': the value must be JSON, e.g. ONE_COAL=true or ONE_COAL=6"),
        (["--set", "ONE_COAL"], "'ONE_COAL': give NAME=VALUE with NAME a constant of the explorer module"),
        (["--set", "FOO=1"], "'FOO=1': give NAME=VALUE with NAME a constant of the explorer module"),
        (["--workers", "0"], "--workers must be at least 1 (Dask worker processes)"),
    ],
)
def test_bad_arguments_are_refused_before_any_seed_runs(bench, monkeypatch, tmp_path, argv, message):
    monkeypatch.setattr(bench, "OUT", tmp_path)
    monkeypatch.setattr("sys.argv", ["explorer_requirements.py", "--seeds", "20", *argv])
    with pytest.raises(SystemExit) as e:
        bench.main()
    assert str(e.value) == message
    assert list(tmp_path.iterdir()) == []  # nothing stored


def test_a_run_is_summarised_by_its_passing_seeds_and_its_rows_not_exact(bench):
    lava = ["move_left", "left:material", "over-conservative"]
    diamond = ["do_diamond", "inv:iron_pickaxe>=1", "no data"]
    text = bench.summary({"seeds": "20-21", "set": []}, [_seed(20, 43, [lava, diamond]), _seed(21, 42, [diamond])])
    assert text.startswith(
        "Seeds 20-21, explorer settings default: 1/2 seeds with at least 90% of all graded rows exact; "
        "mean exact rows 42.50 of 47."
    )
    assert "| do_diamond `inv:iron_pickaxe>=1` | no data | 2 |" in text
    assert "| move_left `left:material` | over-conservative | 1 |" in text
    assert "| 20 | 43 | yes | [] |" in text and "| 21 | 42 | no | [] |" in text


def test_two_stored_runs_are_compared_seed_by_seed(bench, tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "OUT", tmp_path)
    for tag, rows in (("a", [(20, 40), (21, 45), (22, 43)]), ("b", [(20, 44), (21, 45), (22, 41), (23, 47)])):
        seeds = [_seed(s, e, []) for s, e in rows]
        (tmp_path / f"{tag}.json").write_text(json.dumps({"meta": {}, "seeds": seeds}))
    text = bench.compare("a", "b", "a_vs_b")
    assert (
        "Seeds 20-22 (3): 1 gained exact rows, 1 lost, 1 unchanged; mean exact rows 42.67 -> 43.33; "
        "seeds passing 2 -> 2." in text
    )
    assert "| 20 | 40 | 44 |" in text and "| 23 |" not in text  # only the seeds both runs have
    assert (tmp_path / "a_vs_b.md").read_text() == text
    (tmp_path / "c.json").write_text(json.dumps({"meta": {}, "seeds": [_seed(30, 40, [])]}))
    with pytest.raises(SystemExit, match="a and c share no seed"):
        bench.compare("a", "c", "none")
    with pytest.raises(SystemExit, match=r"no stored run \['nope'\] in .*: run it first with --tag"):
        bench.compare("nope", "a", "none")
