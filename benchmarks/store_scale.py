"""Scale and peers: one synthetic operation stream applied to solvi_lab and to solvi 1.3.0, in one run.

For each implementation and size (each in its own process, so peak memory is its own):
build (every write journaled to a JSONL file), full rebuild from that JSONL journal (open it again: the chain is
checked and the store re-folded), retraction median and p99 (each including a fingerprint read), verify(), and
peak resident memory. Ratios ours/theirs are reported for every figure where both ran.

    python benchmarks/store_scale.py                          # 10^4, 10^5, 10^6 ours; solvi at 10^4
    python benchmarks/store_scale.py --sizes 10000 --peer-max 10000 --retractions 200

Results: results/benchmarks/store_scale.json and store_scale.md. solvi is an optional extra
(`pip install -e ".[peers]"`); without it the peer rows say so and the run goes on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# The benchmark stream has no "verified" items: solvi needs its own decision storage for them, and the peers must
# see the same operations. Shares of the other sources keep the ratios of the study's stream.
WEIGHTS = (0.125, 0.5, 0.375, 0.0)


def measure(impl: str, n: int, retractions: int, seed: int) -> dict:
    """Run in a child process: build, reload, retract, verify; return the figures."""
    sys.path.insert(0, str(HERE))
    import gc

    from tqdm import tqdm

    from solvi_lab.studies.synthetic import iter_operations

    ops = iter_operations(n, seed, source_weights=WEIGHTS)  # lazy: the stream is not held beside the store
    tmp = Path(tempfile.mkdtemp(prefix=f"bench-{impl}-"))
    path = str(tmp / "journal.jsonl")
    bar = tqdm(total=n, desc=f"{impl} build {n:,}", file=sys.stderr, mininterval=2)
    if impl == "solvi_lab":
        from solvi_lab.knowledge import KnowledgeStore
        from solvi_lab.studies.synthetic import apply_stream

        ks = KnowledgeStore(path)
        t = time.perf_counter()
        ids = apply_stream(ks, ops, progress=bar)
        build = time.perf_counter() - t
        fp = ks.fingerprint()
        ks.journal.close()
        del ks  # the reload must not sit beside the store it replaces (peak memory is one store)
        gc.collect()
        t = time.perf_counter()
        ks = KnowledgeStore(path)
        rebuild = time.perf_counter() - t
        same = ks.fingerprint() == fp
    else:
        from peers import apply_stream_solvi, solvi_store

        ks = solvi_store(path)
        t = time.perf_counter()
        ids = apply_stream_solvi(ks, ops, progress=bar)
        build = time.perf_counter() - t
        fp = ks.fingerprint()
        del ks
        gc.collect()
        t = time.perf_counter()
        ks = solvi_store(path)
        rebuild = time.perf_counter() - t
        same = ks.fingerprint() == fp
    bar.close()
    rng = random.Random(seed + 7)
    live = [i for i in ids if i is not None]
    rng.shuffle(live)
    times = []
    for x in tqdm(live, desc=f"{impl} retract", file=sys.stderr, total=retractions, mininterval=2):
        if len(times) == retractions:
            break
        try:
            if ks.status(x) == "retracted":
                continue
            t = time.perf_counter()
            ks.retract(x, by="bench", why="benchmark retraction")
            ks.fingerprint()
            times.append(time.perf_counter() - t)
        except Exception:  # noqa: BLE001 - a peer refusing a retraction is skipped, not fatal
            continue
    times.sort()
    t = time.perf_counter()
    ok = bool(ks.verify())
    verify = time.perf_counter() - t
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "impl": impl,
        "n": n,
        "build_s": build,
        "rebuild_jsonl_s": rebuild,
        "reload_same_fingerprint": same,
        "retractions": len(times),
        "retract_median_s": times[len(times) // 2] if times else None,
        "retract_p99_s": times[min(len(times) - 1, int(len(times) * 0.99))] if times else None,
        "verify_s": verify,
        "verify_ok": ok,
        "peak_rss_mb": peak_mb,
        "journal_mb": os.path.getsize(path) / 2**20,
    }


def child(impl: str, n: int, retractions: int, seed: int, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--child", impl, str(n), str(retractions), str(seed)]
    try:
        out = subprocess.run(cmd, capture_output=False, stdout=subprocess.PIPE, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return {"impl": impl, "n": n, "error": f"did not finish in {timeout:.0f} s"}
    except subprocess.CalledProcessError as e:
        return {"impl": impl, "n": n, "error": f"exited {e.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt(v: object, unit: str = "") -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.4g}{unit}"
    return f"{v}{unit}"


def table(rows: list[dict]) -> str:
    by = {(r["impl"], r["n"]): r for r in rows}
    sizes = sorted({r["n"] for r in rows})
    keys = [
        ("build_s", "build (s)"),
        ("rebuild_jsonl_s", "rebuild from JSONL (s)"),
        ("retract_median_s", "retraction median incl. fingerprint (s)"),
        ("retract_p99_s", "retraction p99 incl. fingerprint (s)"),
        ("verify_s", "verify (s)"),
        ("peak_rss_mb", "peak memory (MiB)"),
    ]
    lines = ["| items | measure | solvi_lab | solvi 1.3.0 | solvi / solvi_lab |", "|---:|---|---:|---:|---:|"]
    for n in sizes:
        ours, theirs = by.get(("solvi_lab", n), {}), by.get(("solvi", n), {})
        for k, label in keys:
            a, b = ours.get(k), theirs.get(k)
            ratio = f"{b / a:.1f}×" if isinstance(a, float) and isinstance(b, float) and a > 0 else "—"
            tb = (
                fmt(b)
                if theirs and "error" not in theirs
                else (theirs.get("error", "not run (--peer-max)") if k == "build_s" else "—")
            )
            lines.append(f"| {n:,} | {label} | {fmt(a) if 'error' not in ours else ours['error']} | {tb} | {ratio} |")
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _, _, impl, n, r, seed = sys.argv
        print(json.dumps(measure(impl, int(n), int(r), int(seed))))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--retractions", type=int, default=200)
    ap.add_argument("--peer-max", type=int, default=10_000, help="largest size the peer is run at")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--out", default=str(ROOT / "results" / "benchmarks"))
    a = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from peers import solvi_available

    rows = []
    for n in a.sizes:
        rows.append(child("solvi_lab", n, a.retractions, a.seed, a.timeout))
        print(json.dumps(rows[-1]), file=sys.stderr)
        if n <= a.peer_max:
            if solvi_available():
                rows.append(child("solvi", n, a.retractions, a.seed, a.timeout))
                print(json.dumps(rows[-1]), file=sys.stderr)
            else:
                print("solvi is not installed: pip install -e '.[peers]' to measure it side by side", file=sys.stderr)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "command": " ".join(sys.argv),
        "rows": rows,
    }
    (out / "store_scale.json").write_text(json.dumps(meta, indent=2))
    md = f"Measured {meta['date']} on {meta['machine']} — `{meta['command']}`\n\n{table(rows)}\n"
    (out / "store_scale.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
