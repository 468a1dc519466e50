"""Scale and peers: one synthetic operation stream applied to solvi_lab and to solvi 1.3.0, in one run.

For each implementation and size (each in its own process, so peak memory is its own):
build (every write journaled to a JSONL file), full rebuild from that JSONL journal (open it again: the chain is
checked and the store re-folded), retraction median and p99 (each including a fingerprint read), verify(), and
peak resident memory. Ratios ours/theirs are reported for every figure where both ran.

    python benchmarks/store_scale.py                          # 10^4, 10^5, 10^6 ours; solvi at 10^4
    python benchmarks/store_scale.py --sizes 10000 --peer-max 10000 --retractions 200
    python benchmarks/store_scale.py --profile default hot-keys --sizes 10000 100000 --baseline /tmp/old-checkout

Profiles (benchmarks/streams.py): `default` (the retraction study's stream, n/10 subjects: short keys), `hot-keys`
(benchmarks/hot_keys.py: few subjects, keys of ~5 to ~2,000 events) and `derived-keys` (benchmarks/derived_keys.py:
derived items on keys of their own, a third of the items live at the end). Each run also measures the floor of any rebuild (read + parse + SHA-256
of every journal line; parsed by the standard library's json, and again by orjson when it is installed, the parser
the journal's load uses then), checks timed retractions exact against a from-scratch replay (after the timings, each against
the journal as it stood right after that retraction), and reports retraction time
against the number of events on the retracted item's key (a table by bucket and a PNG). `--baseline` runs another
checkout's solvi_lab (say, `git archive 57dcf55`) side by side, so old and new code are compared in one run.

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

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling stream modules, when imported from elsewhere
from streams import KEYED, PROFILES, keyed_operations  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# The benchmark stream has no "verified" items: solvi needs its own decision storage for them, and the peers must
# see the same operations. Shares of the other sources keep the ratios of the study's stream.
WEIGHTS = (0.125, 0.5, 0.375, 0.0)


def floor_seconds(path: str, parse: str = "json") -> float:
    """The floor of any rebuild: read the journal, parse every line as JSON and SHA-256 it (nothing folded).
    `parse`: "json" (the standard library's parser: the floor issue 19 defines) or "orjson" (the faster parser the
    journal itself uses when it is installed, so its own load is held to the lower floor too)."""
    import hashlib

    if parse == "orjson":
        import orjson

        loads = orjson.loads
    else:
        loads = json.loads
    t = time.perf_counter()
    with open(path, "rb") as f:
        data = f.read()
    for line in data.split(b"\n")[:-1]:
        loads(line)
        hashlib.sha256(line).digest()
    return time.perf_counter() - t


def orjson_floor(path: str) -> float | None:
    try:
        return floor_seconds(path, "orjson")
    except ImportError:
        return None


def build(impl: str, profile: str, n: int, seed: int, path: str):
    """Write the profile's stream through one implementation; returns (store, ids, key of each add or None)."""
    from tqdm import tqdm

    bar = tqdm(total=n, desc=f"{impl} {profile} build {n:,}", file=sys.stderr, mininterval=2)
    if profile in KEYED:
        from hot_keys import apply_hot_stream

        ops = keyed_operations(profile, n, seed)
    else:
        from solvi_lab.studies.synthetic import iter_operations

        ops = iter_operations(n, seed, source_weights=WEIGHTS)  # lazy: the stream is not held beside the store
    if impl == "solvi":
        from peers import apply_hot_stream_solvi, apply_stream_solvi, solvi_store

        ks = solvi_store(path)
        if profile in KEYED:
            ids, keys = apply_hot_stream_solvi(ks, ops, progress=bar)
        else:
            ids, keys = apply_stream_solvi(ks, ops, progress=bar), None
    else:
        from solvi_lab.knowledge import KnowledgeStore
        from solvi_lab.studies.synthetic import apply_stream

        ks = KnowledgeStore(path)
        if profile in KEYED:
            ids, keys = apply_hot_stream(ks, ops, progress=bar)
        else:
            ids, keys = apply_stream(ks, ops, progress=bar), None
    bar.close()
    return ks, ids, keys


def measure(impl: str, profile: str, n: int, retractions: int, seed: int, check: int) -> dict:
    """Run in a child process: build, reload, retract, verify; return the figures. `check`: how many timed
    retractions are checked exact against a from-scratch replay (all of them when check >= retractions)."""
    sys.path.insert(0, str(HERE))
    import gc

    from floors import load as load_now
    from floors import write_floor
    from tqdm import tqdm

    tmp = Path(tempfile.mkdtemp(prefix=f"bench-{impl}-"))
    path = str(tmp / "journal.jsonl")
    load_start = load_now()
    # CPU time beside each wall-clock figure: on a shared machine the wall clock also counts the others' work
    c, t = time.process_time(), time.perf_counter()
    ks, ids, add_keys = build(impl, profile, n, seed, path)
    build_s, build_cpu = time.perf_counter() - t, time.process_time() - c
    fp = ks.fingerprint()
    if impl == "solvi":
        from peers import solvi_store

        open_store = solvi_store
    else:
        from solvi_lab.knowledge import KnowledgeStore

        ks.journal.close()
        open_store = KnowledgeStore
    del ks  # the reload must not sit beside the store it replaces (peak memory is one store)
    gc.collect()
    floor = floor_seconds(path)
    floor_fast = orjson_floor(path)
    c, t = time.process_time(), time.perf_counter()
    ks = open_store(path)
    same = ks.fingerprint() == fp  # inside the timing: a rebuild is done when its fingerprint can be read
    rebuild, rebuild_cpu = time.perf_counter() - t, time.process_time() - c
    # events per key as the stream wrote them (both implementations see the same operations); for solvi_lab the
    # fold's own count of events on the key is recorded too
    rng = random.Random(seed + 7)
    live = [i for i, x in enumerate(ids) if x is not None]
    rng.shuffle(live)
    times, key_events, kept, cpu_times = [], [], [], []
    every = max(1, retractions // check) if check else 0
    # One full collection first: the reload ran with the collector paused, so otherwise the first timed retractions
    # would pay for scanning the whole new store once (a pause that belongs to the reload, not to a retraction).
    gc.collect()
    for j in tqdm(live, desc=f"{impl} retract", file=sys.stderr, total=retractions, mininterval=2):
        if len(times) == retractions:
            break
        x = ids[j]
        try:
            if ks.status(x) == "retracted":
                continue
            events = None
            if impl != "solvi":
                # The fold state is private since issue 14; a --baseline checkout may be older.
                fold = vars(ks).get("_fold", ks)  # held by the store since issue 41
                keys, items = (fold._keys, fold._items) if hasattr(fold, "_keys") else (ks.keys, ks.items)
                events = len(keys[items[x].key].events)
            c, t = time.process_time(), time.perf_counter()
            ks.retract(x, by="bench", why="benchmark retraction")
            fp_now = ks.fingerprint()
            times.append(time.perf_counter() - t)
            cpu_times.append(time.process_time() - c)
            key_events.append(events)
        except Exception:  # noqa: BLE001 - a peer refusing a retraction is skipped, not fatal
            continue
        if impl != "solvi" and every and len(times) % every == 0 and len(kept) < check:
            # checked after the timing (below), against the journal as it was right after this retraction: a
            # 10^4-record replay between two timed retractions would leave the next one to run on cold caches
            kept.append((ks.journal.position, fp_now))
    samples = sorted(zip(times, key_events))
    cpu_times.sort()
    times = [s[0] for s in samples]
    t = time.perf_counter()
    ok = bool(ks.verify())
    verify = time.perf_counter() - t
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the checks' replays
    exact = 0
    for upto, fp_then in tqdm(kept, desc=f"{impl} check exact", file=sys.stderr, mininterval=2):
        # every check a from-scratch fold of the journal up to just after that retraction (retracted items skipped
        # from the start: the definition a live retraction must meet)
        exact += KnowledgeStore.from_journal(ks.journal, upto=upto).fingerprint() == fp_then
        gc.collect()
    checked = len(kept)
    # The write floor last (after peak memory was read; it streams the journal): serialise, hash and append each
    # record again, and the p99 of one such append (the floor of a journaled retraction).
    wf = write_floor(path)
    return {
        "impl": impl,
        "profile": profile,
        "n": n,
        "build_s": build_s,
        "build_cpu_s": build_cpu,
        "floor_s": floor,
        "rebuild_jsonl_s": rebuild,
        "rebuild_jsonl_cpu_s": rebuild_cpu,
        "rebuild_over_floor": rebuild / floor,
        "floor_orjson_s": floor_fast,
        "rebuild_over_orjson_floor": rebuild / floor_fast if floor_fast else None,
        "reload_same_fingerprint": same,
        "retractions": len(times),
        "retract_median_s": times[len(times) // 2] if times else None,
        "retract_p99_s": times[min(len(times) - 1, int(len(times) * 0.99))] if times else None,
        "retract_max_s": times[-1] if times else None,
        "retract_p99_cpu_s": cpu_times[min(len(cpu_times) - 1, int(len(cpu_times) * 0.99))] if cpu_times else None,
        "retractions_checked_exact": f"{exact}/{checked}",
        "retraction_samples": [[s, e] for s, e in samples],
        "verify_s": verify,
        "verify_over_floor": verify / floor,
        "verify_over_orjson_floor": verify / floor_fast if floor_fast else None,
        "verify_ok": ok,
        "peak_rss_mb": peak_mb,
        "journal_mb": os.path.getsize(path) / 2**20,
        "load_start": load_start,
        "load_end": load_now(),
        "write_floor_s": wf["write_s"],
        "build_over_write_floor": build_s / wf["write_s"] if wf["write_s"] else None,
        "append_p99_floor_s": wf["append_p99_s"],
        "peak_over_journal": peak_mb / (os.path.getsize(path) / 2**20),
        "keys": len(vars(ks).get("_fold", ks)._keys if hasattr(vars(ks).get("_fold", ks), "_keys") else ks.keys)
        if impl != "solvi"
        else None,
    }


def child(impl: str, profile: str, n: int, retractions: int, seed: int, check: int, timeout: float, code: str) -> dict:
    """One measurement in its own process; `code` is the checkout whose solvi_lab is imported."""
    cmd = [sys.executable, __file__, "--child", impl, profile, str(n), str(retractions), str(seed), str(check)]
    env = {**os.environ, "PYTHONPATH": code}
    label = impl if code == str(ROOT) else f"{impl}@baseline"
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, timeout=timeout, check=True, env=env)
    except subprocess.TimeoutExpired:
        return {"impl": label, "profile": profile, "n": n, "error": f"did not finish in {timeout:.0f} s"}
    except subprocess.CalledProcessError as e:
        return {"impl": label, "profile": profile, "n": n, "error": f"exited {e.returncode}"}
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["impl"] = label
    return row


def fmt(v: object, unit: str = "") -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.4g}{unit}"
    return f"{v}{unit}"


MEASURES = [
    ("build_s", "build (s)"),
    ("floor_s", "floor: read + parse + SHA-256 every line (s)"),
    ("rebuild_jsonl_s", "rebuild from JSONL (s)"),
    ("rebuild_over_floor", "rebuild / floor"),
    ("floor_orjson_s", "floor with orjson parsing (s)"),
    ("rebuild_over_orjson_floor", "rebuild / orjson floor"),
    ("retract_median_s", "retraction median incl. fingerprint (s)"),
    ("retract_p99_s", "retraction p99 incl. fingerprint (s)"),
    ("retract_max_s", "retraction max incl. fingerprint (s)"),
    ("retractions_checked_exact", "timed retractions checked exact (= replay)"),
    ("verify_s", "verify (s)"),
    ("verify_over_floor", "verify / floor"),
    ("verify_over_orjson_floor", "verify / orjson floor"),
    ("peak_rss_mb", "peak memory (MiB)"),
]
BUCKETS = ((10, 1, 32), (100, 32, 316), (1000, 316, 3163))  # events on the key: ~10, ~100, ~1,000 (log-centred)


def commit_of(checkout: str | None) -> str:
    """The short commit of a checkout (the baseline's label), or "baseline" when git cannot say."""
    if not checkout:
        return "baseline"
    out = subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() or "baseline"


def portable_command(
    argv: list[str], baseline: str | None, script: str = "benchmarks/store_scale.py", drop: tuple[str, ...] = ("--out",)
) -> str:
    """The command line as recorded in the results: the script relative to the repository, the baseline checkout
    named by its commit and the options naming scratch folders (`drop`: the output, a cache) left out, so no path
    of this machine ends up in a committed file (every benchmark that records its command uses this).

    >>> portable_command(["/x/ab_cpu.py", "--sizes", "10", "--out", "/tmp/a.json"], None, "benchmarks/ab_cpu.py")
    'benchmarks/ab_cpu.py --sizes 10'
    """
    args, skip = [], False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if i == 0:
            args.append(script)
        elif arg == "--baseline":
            args += ["--baseline", f"<checkout of {commit_of(baseline)}>"]
            skip = True
        elif arg in drop:
            skip = True
        else:
            args.append(arg)
    return " ".join(args)


def table(rows: list[dict], baseline: str = "baseline") -> str:
    """solvi_lab beside the baseline checkout (when run) and solvi 1.3.0, with ratios other / solvi_lab."""
    by = {(r["impl"], r["n"]): r for r in rows}
    others = [i for i in ("solvi_lab@baseline", "solvi") if any(r["impl"] == i for r in rows)]
    labels = {"solvi_lab@baseline": f"baseline ({baseline})", "solvi": "solvi 1.3.0"}
    head = "| items | measure | solvi_lab |" + "".join(f" {labels[o]} | {labels[o]} / solvi_lab |" for o in others)
    lines = [head, "|---:|---|---:|" + "---:|---:|" * len(others)]
    for n in sorted({r["n"] for r in rows}):
        ours = by.get(("solvi_lab", n), {})
        for k, label in MEASURES:
            a = ours.get(k)
            cells = [fmt(a) if "error" not in ours else ours["error"]]
            for o in others:
                theirs = by.get((o, n))
                b = theirs.get(k) if theirs else None
                ratio = f"{b / a:.1f}×" if isinstance(a, float) and isinstance(b, float) and a > 0 else "—"
                if k.endswith("_floor") or k == "retractions_checked_exact":
                    ratio = "—"
                if not theirs:
                    cells += ["not run", "—"]
                elif "error" in theirs:
                    cells += [theirs["error"] if k == "build_s" else "—", "—"]
                else:
                    cells += [fmt(b), ratio]
            lines.append(f"| {n:,} | {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bucket_table(rows: list[dict]) -> str:
    """Retraction time against the number of events on the retracted item's key (solvi_lab rows)."""
    lines = [
        "| impl | items | events on the key | retractions | median (ms) | p99 (ms) |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for r in rows:
        if "error" in r or not r["impl"].startswith("solvi_lab"):
            continue
        for centre, lo, hi in BUCKETS:
            ts = sorted(s for s, e in r["retraction_samples"] if e is not None and lo <= e < hi)
            if not ts:
                lines.append(f"| {r['impl']} | {r['n']:,} | ~{centre:,} ({lo}–{hi - 1}) | 0 | — | — |")
                continue
            med, p99 = ts[len(ts) // 2], ts[min(len(ts) - 1, int(len(ts) * 0.99))]
            lines.append(
                f"| {r['impl']} | {r['n']:,} | ~{centre:,} ({lo}–{hi - 1}) | {len(ts)} | {med * 1e3:.3f} | {p99 * 1e3:.3f} |"
            )
    return "\n".join(lines)


def plot(rows: list[dict], path: Path, title: str) -> None:
    """Retraction time (ms) against events on the retracted item's key, one series per implementation and size."""
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for r in rows:
        if "error" in r or not r["impl"].startswith("solvi_lab"):
            continue
        pts = [(e, s * 1e3) for s, e in r["retraction_samples"] if e]
        if pts:
            ax.scatter(*zip(*pts), s=8, alpha=0.6, label=f"{r['impl']} at {r['n']:,}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("events on the retracted item's competition key")
    ax.set_ylabel("retraction incl. fingerprint (ms)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _, _, impl, profile, n, r, seed, check = sys.argv
        print(json.dumps(measure(impl, profile, int(n), int(r), int(seed), int(check))))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", nargs="+", default=["default"], choices=PROFILES)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--retractions", type=int, default=200)
    ap.add_argument(
        "--check",
        type=int,
        default=None,
        help="timed retractions checked exact against a replay (default: all up to 10^4, 10 to 10^5, 0 above)",
    )
    ap.add_argument("--peer-max", type=int, default=10_000, help="largest size the peer is run at")
    ap.add_argument("--baseline", default=None, help="a checkout of older solvi_lab code to run side by side")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--out", default=str(ROOT / "results" / "benchmarks"))
    ap.add_argument("--name", default="store_scale", help="file name stem of the results")
    a = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from peers import solvi_available

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    for profile in a.profile:
        rows = []
        for n in a.sizes:
            # every timed retraction checked exact at 10^4, 10 at 10^5, 2 at 10^6 (each check is a full replay, run
            # after the timings and after peak memory is read)
            check = a.check if a.check is not None else (a.retractions if n <= 10_000 else 10 if n <= 100_000 else 2)
            runs = [("solvi_lab", str(ROOT))]
            if a.baseline:
                runs.append(("solvi_lab", str(Path(a.baseline).resolve())))
            if n <= a.peer_max:
                if solvi_available():
                    runs.append(("solvi", str(ROOT)))
                else:
                    print(
                        "solvi is not installed: pip install -e '.[peers]' to measure it side by side", file=sys.stderr
                    )
            for impl, code in runs:
                own = code == str(ROOT)  # exactness is checked on this checkout's code (the baseline's is known)
                rows.append(child(impl, profile, n, a.retractions, a.seed, check if own else 0, a.timeout, code))
                print(json.dumps({k: v for k, v in rows[-1].items() if k != "retraction_samples"}), file=sys.stderr)
        stem = a.name if profile == "default" else f"{a.name}_{profile.replace('-', '_')}"
        meta = {
            "date": time.strftime("%Y-%m-%d %H:%M"),
            "machine": machine,
            "profile": profile,
            "command": portable_command(sys.argv, a.baseline),
            "baseline": commit_of(a.baseline) if a.baseline else None,
            "rows": rows,
        }
        (out / f"{stem}.json").write_text(json.dumps(meta, indent=1))
        plot(rows, out / f"{stem}_retraction_vs_key.png", f"retraction vs key history — {profile} profile")
        tab = table(rows, meta["baseline"] or "baseline")
        md = (
            f"Measured {meta['date']} on {machine} — profile `{profile}` — `{meta['command']}`\n\n{tab}\n\n"
            f"Retraction time by events on the retracted item's key ({stem}_retraction_vs_key.png):\n\n"
            f"{bucket_table(rows)}\n"
        )
        (out / f"{stem}.md").write_text(md)
        print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
