"""The same sweep (one study, N seeds) on a LocalCluster of 1 and of 2 worker processes, in one run.

Reports the speed-up (goal ≥ 1.7× on 2 cores) and the scheduler's overhead per point: the sweep's wall time on
one worker minus the time the points themselves took (their `wall_s`), over the number of points (goal < 50 ms).
Then the retraction study once with its from-scratch exactness checks in this process (as published), and split
across a client of 1 and of 2 workers (`retraction.run(client=...)`): run() wall time for each. Cluster start-up
is not counted (the cluster is started first, then the sweep connects to it by address, the
same path as `solvi-lab sweep --scheduler`). Writes results/benchmarks/sweep_scaling.json and .md.

    PYTHONPATH=. python benchmarks/sweep_scaling.py                       # risk_dungeon, 20 seeds, quick sizes
    PYTHONPATH=. python benchmarks/sweep_scaling.py --study example --seeds 8 -p n_samples=200000   # small check

Timings depend on the machine and its load: compare the ratios measured in one run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import tempfile
import time
from pathlib import Path

from solvi_lab.atomicfile import atomic_write_text
from solvi_lab.studies import registry
from solvi_lab.sweep import parse_grid, points, sweep
from solvi_lab.sweep.runner import usable_cores


def timed_sweep(ps: list, workers: int, out: Path) -> dict:
    from distributed import Client, LocalCluster

    os.environ.setdefault("MPLBACKEND", "agg")
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with Client(cluster) as client:  # warm the workers: import solvi_lab and the study once
            client.run(lambda: __import__("solvi_lab.sweep.point"))
        t0 = time.perf_counter()
        outcome = sweep(ps, out, scheduler=cluster.scheduler_address, progress=False)
        wall = time.perf_counter() - t0
    work = float(outcome.frame["wall_s"].sum())
    return {"workers": workers, "wall_s": wall, "points_s": work, "raised": outcome.raised}


def timed_retraction(n_items: int, n_retractions: int, workers: int) -> float:
    """Wall time of retraction.run(): exactness checks in this process (workers=0) or on a LocalCluster."""
    from distributed import Client, LocalCluster

    from solvi_lab.studies import retraction

    if workers == 0:
        t0 = time.perf_counter()
        retraction.run(n_items=n_items, n_retractions=n_retractions, progress=False)
        return time.perf_counter() - t0
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with Client(cluster) as client:
            client.run(lambda: __import__("solvi_lab.studies.retraction"))
            t0 = time.perf_counter()
            retraction.run(n_items=n_items, n_retractions=n_retractions, progress=False, client=client)
            return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", default="risk_dungeon")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("-p", "--parameter", action="append", default=[], metavar="NAME=V")
    parser.add_argument("--full", action="store_true", help="full sizes (default: quick)")
    parser.add_argument("--out", default="results/benchmarks", type=Path)
    parser.add_argument("--retraction", default="10000,1000", metavar="N_ITEMS,N_RETRACTIONS", help="or 'none'")
    args = parser.parse_args()

    grid = parse_grid(args.parameter, registry.spec(args.study))
    ps = points(args.study, quick=not args.full, grid=grid, seeds=list(range(args.seeds)))
    with tempfile.TemporaryDirectory() as tmp:
        one = timed_sweep(ps, 1, Path(tmp) / "one")
        two = timed_sweep(ps, 2, Path(tmp) / "two")
    result = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {usable_cores()} usable cores, {platform.system()}",
        "study": args.study,
        "points": len(ps),
        "size": "full" if args.full else "quick",
        "grid": grid,
        "one_worker": one,
        "two_workers": two,
        "speedup": one["wall_s"] / two["wall_s"],
        "overhead_ms_per_point": 1000 * (one["wall_s"] - one["points_s"]) / len(ps),
        "goals": {"speedup": "≥ 1.7", "overhead_ms_per_point": "< 50"},
        "retraction": None,
        "load": os.getloadavg(),
    }
    if args.retraction != "none":
        n_items, n_retractions = (int(v) for v in args.retraction.split(","))
        t = {w: timed_retraction(n_items, n_retractions, w) for w in (0, 1, 2)}
        result["retraction"] = {
            "n_items": n_items,
            "n_retractions": n_retractions,
            "in_process_s": t[0],
            "one_worker_s": t[1],
            "two_workers_s": t[2],
            "speedup_two_vs_one": t[1] / t[2],
            "speedup_two_vs_in_process": t[0] / t[2],
        }
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "sweep_scaling.json", json.dumps(result, indent=2) + "\n")
    md = (
        f"| study | points | size | 1 worker (s) | 2 workers (s) | speed-up | overhead per point (ms) | load avg |\n"
        f"|---|---|---|---|---|---|---|---|\n"
        f"| {args.study} | {len(ps)} | {result['size']} | {one['wall_s']:.2f} | {two['wall_s']:.2f} | "
        f"{result['speedup']:.2f}× | {result['overhead_ms_per_point']:.1f} | {result['load'][0]:.1f} |\n\n"
        f"{result['date']}, {result['machine']}.\n"
    )
    if result["retraction"]:
        r = result["retraction"]
        md += (
            f"\nRetraction study ({r['n_items']} items, {r['n_retractions']} retractions), run() wall time with the "
            f"exactness checks in process: {r['in_process_s']:.2f} s; on 1 worker: {r['one_worker_s']:.2f} s; on 2 "
            f"workers: {r['two_workers_s']:.2f} s (speed-up 2 vs 1: {r['speedup_two_vs_one']:.2f}×, 2 workers vs in "
            f"process: {r['speedup_two_vs_in_process']:.2f}×).\n"
        )
    atomic_write_text(args.out / "sweep_scaling.md", md)
    print(md)


if __name__ == "__main__":
    main()
