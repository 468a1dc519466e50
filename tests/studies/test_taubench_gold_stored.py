"""The stored τ-bench retail gold replay (`results/benchmarks/taubench_gold_replay.json`, rendered on
docs/readme/taubench_env.md) is what the environment gives today: a change to the environment that moves a count
fails here until the file is re-stored with `python benchmarks/taubench_gold_replay.py`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from solvi_lab.errors import DataMissing

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import taubench_gold_replay as gold  # noqa: E402


def test_the_stored_gold_replay_is_what_the_environment_gives() -> None:
    try:
        rows = gold.replay()
    except DataMissing as e:
        pytest.skip(f"τ-bench retail data not installed ({e})")
    stored = json.loads(gold.OUT.read_text(encoding="utf-8"))
    assert stored["rows"] == rows
    assert [r["split"] for r in rows] == ["train", "test", "dev"]
    assert {r["split"]: (r["accepted"], r["refused"]) for r in rows} == {
        "train": (748, 20),
        "test": (558, 24),
        "dev": (25, 0),
    }


def test_a_split_row_counts_each_call_once() -> None:
    row = gold.split_row(
        "x", [[("a", True), ("b", False)], [("transfer_to_human_agents", False)]], ["h", "g"], ["h", "k"]
    )
    assert row == {
        "split": "x",
        "accepted": 2,
        "refused": 1,
        "tasks": 2,
        "final_data_equal_upstream": "1 / 2",
        "transfers_to_human_agents": 1,
    }
    # a task list of another length than upstream's is never called equal
    assert gold.split_row("x", [[("a", False)]], ["h"], ["h", "h"])["final_data_equal_upstream"] == "0 / 2"
