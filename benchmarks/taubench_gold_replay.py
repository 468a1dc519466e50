"""The τ-bench retail gold replay, stored: every task's gold actions replayed on fresh data, counted per split.

`docs/readme/taubench_env.md` renders its table from the file this writes (issue 44: a figure a reader sees comes
from a stored result), and `tests/studies/test_taubench_gold_stored.py` holds the file to what the environment gives
today. Each task starts from fresh data; every gold call is counted once, in task order (the test split's
`transfer_to_human_agents` calls included: they are accepted); "final data = upstream's" compares each task's final
data hash with `data/expected/taubench_gold_final_hashes.json` (upstream's, hashed once).

    python benchmarks/taubench_gold_replay.py          # → results/benchmarks/taubench_gold_replay.json

Needs the τ-bench retail data (`../shared/data/...`, see `load_retail`).

>>> row = split_row("dev", [[("a", False), ("transfer_to_human_agents", False)]], ["h"], ["h"])
>>> row["accepted"], row["refused"], row["tasks"], row["final_data_equal_upstream"], row["transfers_to_human_agents"]
(2, 0, 1, '1 / 1', 1)
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from store_scale import portable_command  # noqa: E402

EXPECTED_HASHES = ROOT / "data" / "expected" / "taubench_gold_final_hashes.json"
OUT = ROOT / "results" / "benchmarks" / "taubench_gold_replay.json"
SPLITS = ("train", "test", "dev")


def split_row(
    split: str, calls: list[list[tuple[str, bool]]], hashes: list[str], expected: list[str]
) -> dict[str, Any]:
    """One split's row: `calls` holds, per task, each gold call's (tool, refused) in order; `hashes` each task's
    final data hash, `expected` upstream's."""
    flat = [c for task in calls for c in task]
    equal = sum(a == b for a, b in zip(hashes, expected)) if len(hashes) == len(expected) else 0
    return {
        "split": split,
        "accepted": sum(not refused for _, refused in flat),
        "refused": sum(refused for _, refused in flat),
        "tasks": len(calls),
        "final_data_equal_upstream": f"{equal} / {len(expected)}",
        "transfers_to_human_agents": sum(name == "transfer_to_human_agents" for name, _ in flat),
    }


def replay() -> list[dict[str, Any]]:
    """Every split's row, replayed now."""
    from solvi_lab.studies.taubench.data import load_retail
    from solvi_lab.studies.taubench.env import RetailEnv

    retail = load_retail()
    expected = json.loads(EXPECTED_HASHES.read_text(encoding="utf-8"))["splits"]
    base = RetailEnv(retail)
    rows = []
    for split in SPLITS:
        calls, hashes = [], []
        for task in retail.tasks[split]:
            env = base.copy()
            calls.append([(a["name"], env.step(a["name"], a["kwargs"]).refused) for a in task["actions"]])
            hashes.append(env.data_hash())
        rows.append(split_row(split, calls, hashes, expected[split]))
    return rows


def _commit() -> str:
    out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(OUT), help="the JSON file to write")
    a = ap.parse_args(argv)
    rows = replay()
    record = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, Python {platform.python_version()}, commit {_commit()}",
        "command": "python " + portable_command(sys.argv, None, "benchmarks/taubench_gold_replay.py"),
        "rows": rows,
    }
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for r in rows:
        print(r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
