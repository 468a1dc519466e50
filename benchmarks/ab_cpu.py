"""A/B of two checkouts on store_scale.py's phases, in process CPU time, the runs interleaved.

On a shared machine wall-clock figures move with the neighbours' load (store_scale.py's own floor — read, parse and
hash the journal, no store code at all — moved 1.9x between two runs ten minutes apart); CPU time of the process
moves far less. Each run is a child process with one checkout first on PYTHONPATH: build the profile's stream into
a JSONL journal, reopen it (rebuild, up to the fingerprint), read sampled items (status() and item(), CPU per
call), retract sampled items (each timed with its fingerprint read), verify(). Runs alternate A, B, A, B so a load change hits both; the best of the repeats is
reported per phase, with every run in the JSON, and a Markdown report beside it (the same name, `.md`: a Measured
line with the date, machine, load and both commits, and a table per profile and size) that the docs render.

    python benchmarks/ab_cpu.py --baseline ../solvi_lab-f83fd2f --profile hot-keys default --sizes 100000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling stream modules, when imported from elsewhere
from store_scale import commit_of, portable_command  # noqa: E402
from streams import PROFILES  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PHASES = ("build", "rebuild", "read_status", "read_item", "retract_median", "retract_p99", "verify")
READS = 20_000  # status() calls timed (item(): a tenth of them), each phase reported per call


def run_one(profile: str, n: int, retractions: int, seed: int) -> dict:
    """In this process: the phases, each in CPU seconds (retractions: median and p99 of each retract+fingerprint)."""
    sys.path.insert(0, str(HERE))
    import gc

    from store_scale import build

    from solvi_lab.knowledge import KnowledgeStore

    path = str(Path(tempfile.mkdtemp(prefix="ab-cpu-")) / "journal.jsonl")
    cpu = time.process_time
    t = cpu()
    ks, ids, _ = build("solvi_lab", profile, n, seed, path)
    build_s = cpu() - t
    fp = ks.fingerprint()
    ks.journal.close()
    del ks
    gc.collect()
    t = cpu()
    ks = KnowledgeStore(path)
    same = ks.fingerprint() == fp
    rebuild_s = cpu() - t
    gc.collect()
    rng = random.Random(seed + 7)
    live = [x for x in ids if x is not None]
    rng.shuffle(live)
    sample = live[:READS]
    t = cpu()
    for x in sample:
        ks.status(x)
    read_status = (cpu() - t) / len(sample)
    t = cpu()
    for x in sample[: len(sample) // 10]:
        ks.item(x)
    read_item = (cpu() - t) / max(1, len(sample) // 10)
    times = []
    for x in live:
        if len(times) == retractions:
            break
        if ks.status(x) == "retracted":
            continue
        t = cpu()
        ks.retract(x, by="bench", why="benchmark retraction")
        ks.fingerprint()
        times.append(cpu() - t)
    times.sort()
    t = cpu()
    ok = bool(ks.verify())
    verify_s = cpu() - t
    os.remove(path)
    return {
        "profile": profile,
        "n": n,
        "build": build_s,
        "rebuild": rebuild_s,
        "read_status": read_status,
        "read_item": read_item,
        "retract_median": times[len(times) // 2],
        "retract_p99": times[min(len(times) - 1, int(len(times) * 0.99))],
        "verify": verify_s,
        "reload_same_fingerprint": same,
        "verify_ok": ok,
        "fingerprint": ks.fingerprint(),
    }


def child(code: Path, profile: str, n: int, retractions: int, seed: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(code)}
    out = subprocess.run(
        [sys.executable, __file__, "--child", profile, str(n), str(retractions), str(seed)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", help="the other checkout's root (its code first on PYTHONPATH)")
    ap.add_argument("--profile", nargs="+", default=["hot-keys", "default"], choices=PROFILES)
    ap.add_argument("--sizes", nargs="+", type=int, default=[100_000])
    ap.add_argument("--retractions", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(ROOT / "results" / "benchmarks" / "ab_cpu.json"))
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(run_one(a.child[0], int(a.child[1]), int(a.child[2]), int(a.child[3]))))
        return 0
    if not a.baseline:
        ap.error("--baseline is required: the checkout to compare with")
    codes = {"this": ROOT, "baseline": Path(a.baseline).resolve()}
    rows = []
    for profile in a.profile:
        for n in a.sizes:
            runs: dict[str, list[dict]] = {name: [] for name in codes}
            for _ in range(a.repeats):
                for name, code in codes.items():
                    runs[name].append(child(code, profile, n, a.retractions, a.seed))
            best = {name: {ph: min(r[ph] for r in rs) for ph in PHASES} for name, rs in runs.items()}
            med = {name: {ph: statistics.median(r[ph] for r in rs) for ph in PHASES} for name, rs in runs.items()}
            same = len({r["fingerprint"] for rs in runs.values() for r in rs}) == 1
            rows.append(
                {"profile": profile, "n": n, "best_cpu_s": best, "median_cpu_s": med, "same_fingerprint": same, "runs": runs}
            )
            print(f"{profile} n={n:,} (CPU, best and median of {a.repeats}; baseline/this > 1: this is faster)", flush=True)
            for ph in PHASES:
                unit, scale = ("s", 1) if ph in ("build", "rebuild", "verify") else ("µs", 1e6)  # per call: µs
                t, b, tm, bm = best["this"][ph], best["baseline"][ph], med["this"][ph], med["baseline"][ph]
                print(
                    f"  {ph:15} best: this {t * scale:9.3f} {unit:2} baseline {b * scale:9.3f}  ratio {b / t:6.3f}"
                    f"   median: this {tm * scale:9.3f} baseline {bm * scale:9.3f}  ratio {bm / tm:6.3f}",
                    flush=True,
                )
            print(f"  same final fingerprint in every run: {same}", flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    command = portable_command(sys.argv, a.baseline, "benchmarks/ab_cpu.py")
    meta = {
        "command": command,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load": round(os.getloadavg()[0], 1),
        "this": commit_of(str(ROOT)) + (" (uncommitted changes)" if _dirty(ROOT) else ""),
        "baseline": commit_of(a.baseline),
        "repeats": a.repeats,
    }
    Path(a.out).write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")
    Path(a.out).with_suffix(".md").write_text(report(meta, rows))
    return 0


def _dirty(root: Path) -> bool:
    out = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain", "--", "solvi_lab", "benchmarks"],
        capture_output=True,
        text=True,
    )
    return bool(out.stdout.strip())


def report(meta: dict, rows: list[dict]) -> str:
    """The Markdown report beside the JSON: the Measured line, then one table per profile and size (best and median
    CPU time of each phase on both checkouts, and baseline / this: above 1, this checkout is faster).

    >>> row = {"profile": "default", "n": 10, "same_fingerprint": True,
    ...        "best_cpu_s": {"this": dict.fromkeys(PHASES, 1.0), "baseline": dict.fromkeys(PHASES, 2.0)},
    ...        "median_cpu_s": {"this": dict.fromkeys(PHASES, 1.0), "baseline": dict.fromkeys(PHASES, 1.0)}}
    >>> meta = {"date": "d", "machine": "m", "load": 1.0, "this": "a", "baseline": "b", "repeats": 3, "command": "c"}
    >>> print(report(meta, [row]).splitlines()[4])
    | build (s) | 1.000 | 2.000 | 2.00 | 1.00 |
    """
    out = [
        f"Measured {meta['date']} on {meta['machine']}, load {meta['load']} — this checkout {meta['this']} against "
        f"{meta['baseline']}, process CPU time, runs interleaved, {meta['repeats']} of each — `{meta['command']}`",
    ]
    for r in rows:
        out.append("")
        out.append(
            f"| {r['profile']}, {r['n']:,} items | this (best) | baseline (best) | baseline / this (best) "
            "| baseline / this (median) |"
        )
        out.append("|---|---:|---:|---:|---:|")
        for ph in PHASES:
            per_call = ph not in ("build", "rebuild", "verify")
            unit, scale = ("µs", 1e6) if per_call else ("s", 1)
            b, m = r["best_cpu_s"], r["median_cpu_s"]
            out.append(
                f"| {ph.replace('_', ' ')} ({unit}) | {b['this'][ph] * scale:.3f} | {b['baseline'][ph] * scale:.3f} "
                f"| {b['baseline'][ph] / b['this'][ph]:.2f} | {m['baseline'][ph] / m['this'][ph]:.2f} |"
            )
        out.append("")
        out.append(f"same final fingerprint in every run: {r['same_fingerprint']}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
