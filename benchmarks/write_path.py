"""The write path alone: adds per second of one stream into an in-memory store, for one or two checkouts.

The stream is generated first (not timed), then applied to `KnowledgeStore()` (an in-memory journal: no disk, so
what is timed is validation, the key, the gates, the journal record and the fold). Each checkout runs in its own
process with its code first on PYTHONPATH, the runs alternating (A, B, A, B, ...) so a load change on a shared
machine hits both; the best of the repeats is reported (the least disturbed run), in wall-clock and in process CPU time (less moved
by other processes), with every run kept in the JSON.

    python benchmarks/write_path.py --sizes 10000 100000                       # this checkout
    python benchmarks/write_path.py --sizes 10000 100000 --baseline ../solvi_lab-f83fd2f # A/B against another checkout

Profiles as in store_scale.py: `default` (the retraction study's stream) and `hot-keys` (benchmarks/hot_keys.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling stream modules, when imported from elsewhere
from streams import KEYED, PROFILES  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WEIGHTS = (0.125, 0.5, 0.375, 0.0)  # store_scale.py's shares: no "verified" items


def run_one(profile: str, n: int, seed: int) -> dict:
    """In this process: build the stream, then time applying it to an in-memory store."""
    sys.path.insert(0, str(HERE))
    from solvi_lab.knowledge import KnowledgeStore

    if profile in KEYED:
        from hot_keys import apply_hot_stream
        from streams import keyed_operations

        ops = list(keyed_operations(profile, n, seed))
    else:
        from solvi_lab.studies.synthetic import apply_stream, iter_operations

        ops = list(iter_operations(n, seed, source_weights=WEIGHTS))
    ks = KnowledgeStore()
    t, c = time.perf_counter(), time.process_time()
    if profile in KEYED:
        apply_hot_stream(ks, ops)
    else:
        apply_stream(ks, ops)
    seconds, cpu = time.perf_counter() - t, time.process_time() - c
    adds = sum(1 for op in ops if op[0] == "add")
    return {
        "profile": profile,
        "n": n,
        "adds": adds,
        "ops": len(ops),
        "seconds": seconds,
        "cpu_seconds": cpu,
        "adds_per_s": adds / seconds,
        "adds_per_cpu_s": adds / cpu,
        "fingerprint": ks.fingerprint(),
    }


def child(code: Path, profile: str, n: int, seed: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(code)}
    out = subprocess.run(
        [sys.executable, __file__, "--child", profile, str(n), str(seed)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", nargs="+", default=["default"], choices=PROFILES)
    ap.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000])
    ap.add_argument("--baseline", help="another checkout's root, run side by side (its code first on PYTHONPATH)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(ROOT / "results" / "benchmarks" / "write_path.json"))
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(run_one(a.child[0], int(a.child[1]), int(a.child[2]))))
        return 0
    codes = {"this": ROOT} | ({"baseline": Path(a.baseline).resolve()} if a.baseline else {})
    rows = []
    for profile in a.profile:
        for n in a.sizes:
            runs: dict[str, list[dict]] = {name: [] for name in codes}
            for _ in range(a.repeats):
                for name, code in codes.items():
                    runs[name].append(child(code, profile, n, a.seed))
            best = {name: max(r["adds_per_s"] for r in rs) for name, rs in runs.items()}
            cpu = {name: max(r["adds_per_cpu_s"] for r in rs) for name, rs in runs.items()}
            fps = {r["fingerprint"] for rs in runs.values() for r in rs}
            row = {
                "profile": profile,
                "n": n,
                "adds": runs["this"][0]["adds"],
                "best_adds_per_s": best,
                "best_adds_per_cpu_s": cpu,
                "same_fingerprint": len(fps) == 1,
                "runs": runs,
            }
            rows.append(row)
            line = f"{profile:8} n={n:>7,}  this {best['this']:>9,.0f} adds/s ({cpu['this']:,.0f} per CPU s)"
            if "baseline" in best:
                line += (
                    f"   baseline {best['baseline']:>9,.0f} adds/s ({cpu['baseline']:,.0f} per CPU s)"
                    f"   this/baseline {best['this'] / best['baseline']:.3f} (CPU {cpu['this'] / cpu['baseline']:.3f})"
                )
            print(line + ("" if row["same_fingerprint"] else "   FINGERPRINTS DIFFER"), flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps({"argv": sys.argv[1:], "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
