"""What the journal's promises cost, measured in one run: durability (appends/s with flush and with fsync, JSONL
and SQLite) and, against an older checkout, the build and the reload of a 10^5-item store journal.

    python benchmarks/journal_costs.py                                 # durability only
    python benchmarks/journal_costs.py --base /tmp/old --n 100000      # + build/load before/after (ratios)

`--base` is a directory holding an older `solvi_lab/` package (e.g. `git archive <commit> solvi_lab | tar -x -C
/tmp/old`). Each timing runs in its own process; before and after alternate, `--repeat` times, medians reported.
Timings on a shared machine are noisy: read the ratios, which are measured side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_DURABILITY = r"""
import json, sys, tempfile, time, pathlib
from solvi_lab.journal import Journal
backend, durability, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
path = pathlib.Path(tempfile.mkdtemp()) / ("d." + backend)
j = Journal(path, timestamps=time.time, durability=durability)
payload = {"op": "obs", "s": "c17", "r": "tier", "o": "vip", "n": 0}
t = time.perf_counter()
for i in range(n):
    payload["n"] = i
    j.append("note", payload)
dt = time.perf_counter() - t
j.close()
print(json.dumps({"per_s": n / dt}))
"""

_BUILD = r"""
import json, sys, time
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.studies.synthetic import apply_stream, iter_operations
path, n = sys.argv[1], int(sys.argv[2])
ks = KnowledgeStore(path)
t = time.perf_counter()
apply_stream(ks, iter_operations(n, 0, source_weights=(0.125, 0.5, 0.375, 0.0)))
dt = time.perf_counter() - t
fp = ks.fingerprint()
ks.journal.close()
print(json.dumps({"s": dt, "fp": fp}))
"""

_LOAD = r"""
import json, sys, time
from solvi_lab.knowledge import KnowledgeStore
t = time.perf_counter()
ks = KnowledgeStore(sys.argv[1])
dt = time.perf_counter() - t
print(json.dumps({"s": dt, "fp": ks.fingerprint(), "records": ks.journal.position}))
"""


def _run(code: str, pythonpath: str, *args: str) -> dict:
    env = dict(os.environ, PYTHONPATH=pythonpath)
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def durability(n_flush: int, n_fsync: int) -> list[str]:
    lines = ["| backend | durability | appends/s | ratio to flush |", "|---|---|---:|---:|"]
    for backend in ("jsonl", "sqlite"):
        flush = _run(_DURABILITY, str(ROOT), backend, "flush", str(n_flush))["per_s"]
        fsync = _run(_DURABILITY, str(ROOT), backend, "fsync", str(n_fsync))["per_s"]
        lines.append(f"| {backend} | flush (default) | {flush:,.0f} | 1.00 |")
        lines.append(f"| {backend} | fsync | {fsync:,.0f} | {fsync / flush:.3f} |")
    return lines


def before_after(base: str, n: int, repeat: int) -> list[str]:
    tmp = Path(tempfile.mkdtemp(prefix="journal-costs-"))
    builds: dict[str, list[float]] = {"before": [], "after": []}
    loads: dict[str, list[float]] = {"before": [], "after": []}
    fps = set()
    for i in range(repeat):
        for who, pp in (("before", base), ("after", str(ROOT))):
            path = str(tmp / f"{who}{i}.jsonl")
            b = _run(_BUILD, pp, path, str(n))
            builds[who].append(b["s"])
            fps.add(b["fp"])
    # every load reads the same file (written by the new code: the format did not change)
    path = str(tmp / f"after{repeat - 1}.jsonl")
    for _ in range(repeat):
        for who, pp in (("before", base), ("after", str(ROOT))):
            r = _run(_LOAD, pp, path)
            loads[who].append(r["s"])
            fps.add(r["fp"])
    mb, ma = statistics.median(builds["before"]), statistics.median(builds["after"])
    lb, la = statistics.median(loads["before"]), statistics.median(loads["after"])
    return [
        f"| {n:,}-operation store journal | before (s) | after (s) | after / before |",
        "|---|---:|---:|---:|",
        f"| build (every write validated and journaled) | {mb:.2f} | {ma:.2f} | {ma / mb:.2f} |",
        f"| load (chain checked, store folded) | {lb:.2f} | {la:.2f} | {la / lb:.2f} |",
        f"\nsame fingerprint before and after: {len(fps) == 1}; medians of {repeat} runs each, alternating",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", help="a directory holding an older solvi_lab/ to compare build and load with")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--flush-appends", type=int, default=20_000)
    ap.add_argument("--fsync-appends", type=int, default=1_000)
    args = ap.parse_args()
    load = os.getloadavg()[0]
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    text = [
        f"Journal costs — {stamp}, {os.cpu_count()} cores, load {load:.1f}{' (under load)' if load > 1 else ''}",
        "",
    ]
    text += durability(args.flush_appends, args.fsync_appends)
    if args.base:
        text += [""] + before_after(args.base, args.n, args.repeat)
    out = "\n".join(text)
    print(out)
    dest = ROOT / "results" / "benchmarks"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "journal_costs.md").write_text(out + "\n")


if __name__ == "__main__":
    main()
