"""What a forger who can append to a closed journal can make a knowledge store serve through a forged fold snapshot
(issue 40, part 2; the trials: solvi_lab/journal_faults/forged_snapshots.py).

    python benchmarks/snapshot_forgery.py                # 10 trials per row
    python benchmarks/snapshot_forgery.py --trials 2     # a quick look

Results: results/benchmarks/snapshot_forgery.json and snapshot_forgery.md (date, machine and load in the header);
docs/readme/journal.md shows the table.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import platform
import time
from pathlib import Path

from solvi_lab.journal_faults.forged_snapshots import ForgeryRow, run

ROOT = Path(__file__).resolve().parent.parent


def table(rows: list[ForgeryRow]) -> str:
    head = (
        "| forger | item changed | kept digest | backend | tried | refused at open | served = replay | "
        "verify() False | served forged, verify() True | next open refused | other exception |\n"
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|\n"
    )
    body = ""
    for r in rows:
        other = ", ".join(f"{k} {v}" for k, v in r.other.items()) or "0"
        body += (
            f"| {r.forger} | {r.variant} | {'recomputed' if r.recompute else 'as it was'} | {r.backend} | {r.tried} "
            f"| {r.refused_at_open} | {r.served_replay} | {r.verify_false} | {r.served_forged_verify_true} "
            f"| {r.next_open_refused} | {other} |\n"
        )
    return head + body


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=10, help="trials per row")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(ROOT / "results" / "benchmarks"))
    args = ap.parse_args()
    t0 = time.time()
    rows = run(args.trials, args.seed)
    load = os.getloadavg()[0]
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load {load:.1f}"
    total = sum(r.tried for r in rows)
    text = f"Forged fold snapshots — {stamp}, {machine}, {total} trials, {time.time() - t0:.0f} s\n\n" + table(rows)
    print(text)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "snapshot_forgery.md").write_text(text)
    (out / "snapshot_forgery.json").write_text(
        json.dumps(
            {
                "date": stamp,
                "machine": machine,
                "trials_per_row": args.trials,
                "rows": [dataclasses.asdict(r) for r in rows],
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
