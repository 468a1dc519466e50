"""Retraction tail latency and the cyclic garbage collector: which slow retractions are the store's work, which are a
collector pass that happened to start inside them.

Opens an existing journal (e.g. one `benchmarks/open_wait.py --cache DIR` built), retracts `--n` random live items
one at a time (each timed with the fingerprint read after it, as `store_scale.py` times them), and records, through
`gc.callbacks`, every collector pass that ran inside a timed retraction (its generation, its duration, the objects
in that generation when it started). Reports the median, p99 and max over all retractions, the same over the
retractions during which no pass ran, and the slowest rows with their passes.

    python benchmarks/retraction_gc.py --journal DIR/solvi_lab-hot-keys-1000000/journal.jsonl --n 400

The journal is copied first (retractions append to it), into a temporary directory removed afterwards.
Results: results/benchmarks/<name>.md (date, machine and load in the header) and .json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import platform
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _pct(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(len(xs) * q))]


def measure(journal: Path, n: int, seed: int) -> dict:
    """Retract `n` random live items of a copy of `journal`; every timing with the collector passes inside it."""
    sys.path.insert(0, str(ROOT))
    from solvi_lab.knowledge import KnowledgeStore

    tmp = Path(tempfile.mkdtemp(prefix="retraction-gc-"))
    try:
        path = tmp / "journal.jsonl"
        shutil.copyfile(journal, path)
        t = time.perf_counter()
        ks = KnowledgeStore.open(path, snapshot=False)
        ks.fingerprint()  # the deferred item digests: paid once here, not by the first timed retraction
        open_s = time.perf_counter() - t
        passes: list[list] = []

        def on_gc(phase: str, info: dict) -> None:
            if phase == "start":
                passes.append([time.perf_counter(), info["generation"], len(gc.get_objects(info["generation"]))])
            else:
                passes[-1][0] = time.perf_counter() - passes[-1][0]

        items = len(ks._fold._items)
        gc.collect()  # the open's garbage, before the first timing (as store_scale.py does)
        live = [i for i in ks._fold._items if ks.status(i) in ("active", "hypothesis", "disputed")]
        random.Random(seed).shuffle(live)
        rows = []
        gc.callbacks.append(on_gc)
        try:
            for x in live[:n]:
                before = len(passes)
                t = time.perf_counter()
                ks.retract(x, by="bench", why="benchmark retraction")
                ks.fingerprint()
                took = time.perf_counter() - t
                inside = [(g, round(d * 1e3, 3), objs) for d, g, objs in passes[before:]]
                rows.append({"s": took, "events": len(ks._fold._keys[ks._fold._items[x].key].events), "passes": inside})
        finally:
            gc.callbacks.remove(on_gc)
        ks.close(snapshot=False)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    every = sorted(r["s"] for r in rows)
    clean = sorted(r["s"] for r in rows if not r["passes"])
    return {
        "items": items,
        "live": len(live),
        "open_s": open_s,
        "retractions": len(rows),
        "with_a_pass": len(rows) - len(clean),
        "median_ms": _pct(every, 0.5) * 1e3,
        "p99_ms": _pct(every, 0.99) * 1e3,
        "max_ms": every[-1] * 1e3,
        "no_pass_median_ms": _pct(clean, 0.5) * 1e3,
        "no_pass_p99_ms": _pct(clean, 0.99) * 1e3,
        "no_pass_max_ms": clean[-1] * 1e3,
        "slowest": sorted(rows, key=lambda r: r["s"])[-8:],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--journal", type=Path, required=True, help="a KnowledgeStore JSONL journal (copied, not changed)")
    ap.add_argument("--n", type=int, default=400, help="retractions timed")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "benchmarks")
    ap.add_argument("--name", default="retraction_gc")
    a = ap.parse_args(argv)
    if not a.journal.is_file():
        ap.error(f"{a.journal}: no such journal; build one with benchmarks/open_wait.py --cache DIR")
    started = dt.datetime.now(dt.UTC)
    r = measure(a.journal, a.n, a.seed)
    load = os.getloadavg()[0]
    head = (
        f"Retraction tail latency and collector passes — {started:%Y-%m-%d %H:%M} UTC, {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, load {load:.1f}; journal of "
        f"{r['items']:,} items, {r['live']:,} of them live (opened in {r['open_s']:.1f} s); command: python benchmarks/retraction_gc.py "
        f"--journal <journal> --n {a.n} --seed {a.seed}"
    )
    lines = [
        head,
        "",
        "| retractions | count | median (ms) | p99 (ms) | max (ms) |",
        "|---|---:|---:|---:|---:|",
        f"| all | {r['retractions']} | {r['median_ms']:.3f} | {r['p99_ms']:.3f} | {r['max_ms']:.3f} |",
        f"| no collector pass inside | {r['retractions'] - r['with_a_pass']} | {r['no_pass_median_ms']:.3f} | "
        f"{r['no_pass_p99_ms']:.3f} | {r['no_pass_max_ms']:.3f} |",
        "",
        "Slowest retractions (time, events on the key, collector passes inside: generation, ms, objects in it):",
        "",
        "| ms | events on the key | passes |",
        "|---:|---:|---|",
    ]
    lines += [f"| {s['s'] * 1e3:.3f} | {s['events']} | {s['passes'] or '—'} |" for s in reversed(r["slowest"])]
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / f"{a.name}.md").write_text("\n".join(lines) + "\n")
    (a.out / f"{a.name}.json").write_text(json.dumps({"header": head, **r}, indent=1) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
