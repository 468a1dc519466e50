"""The survivor's death diagnostic (benchmarks/crafter_deaths.py): what each step was doing adds up to the steps
played, every point of health lost is accounted for, and it refuses the score's held-out seeds and unknown
constants."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def deaths():
    sys.path.insert(0, str(BENCH))
    try:
        import crafter_deaths

        yield crafter_deaths
    finally:
        sys.path.remove(str(BENCH))


def test_a_short_episode_is_accounted_for(deaths):
    (row,) = deaths.play(seed=0, first=0, worlds=1, steps=60, arm="survivor")
    assert (row["world"], row["seed"], row["steps"], row["died"], row["cause"]) == (0, 0, 60, False, None)
    assert sum(row["doing"].values()) == 60
    assert sum(row["doing_last"].values()) == deaths.TAIL
    assert "option:do_tree" in row["doing"]  # the first goal is wood
    assert all(h["lost"] > 0 and 1 <= h["step"] <= 60 for h in row["hurts"])
    assert "| 1 | 0 | 60 | 60 | alive 1 |" in deaths.summary([row])


def test_refuses_held_out_seeds_and_unknown_constants(deaths, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["crafter_deaths.py", "--first", "490", "--worlds", "20"])
    with pytest.raises(SystemExit, match="held-out"):
        deaths.main()
    monkeypatch.setattr(sys, "argv", ["crafter_deaths.py", "--worlds", "1", "--set", "NO_SUCH=1"])
    with pytest.raises(SystemExit, match="not a constant"):
        deaths.main()
    with pytest.raises(SystemExit, match="not a survivor arm"):
        deaths.play(seed=0, first=0, worlds=1, steps=5, arm="planner")
