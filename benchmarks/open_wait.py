"""What a researcher waits for: open a journal, read one item, read the fingerprint, leave the interpreter.

Each step is timed in a fresh process (so nothing is warm, and the interpreter's exit is its own), on a JSONL
journal built once per profile and size by benchmarks/store_scale.py's stream:

- `import`: interpreter start and `import solvi_lab.knowledge` (the floor every row pays);
- `open`: `KnowledgeStore.open(path)` (a writer open, as a notebook does it);
- `first item`: the first `ks.item(id)` after it (an item in the middle of the journal);
- `first fingerprint`: the first `ks.fingerprint()` after that;
- `then report()` (with `--whole`): a read that needs every item, after the fingerprint (after a snapshot open, the
  items not read yet are built here: knowledge/lazy_items.py);
- `exit`: from the last step's return to the process's end, as the parent sees it (wall clock).

Rows: without a fold snapshot, and with one (knowledge/fold_snapshot.py: written by an explicit
`ks.write_snapshot()` after the build; the row says n/a for code that has none), at each size and profile;
solvi 1.3.0's open of its own journal of the same stream beside them (`--peer-max`, 10^4 by default).
`--baseline DIR` runs another checkout's solvi_lab on the same journals too (the "before" of a change).

    python benchmarks/open_wait.py                                   # 10^4 and 10^5, both profiles, solvi at 10^4
    python benchmarks/open_wait.py --sizes 1000000 --profile hot-keys  # the 10^6 row (a few minutes)
    python benchmarks/open_wait.py --sizes 10000 --baseline /tmp/old-checkout
    python benchmarks/open_wait.py --cache /tmp/open-wait-journals      # keep the built journals for the next run
    python benchmarks/open_wait.py --sizes 1000000 --profile hot-keys --whole  # and a report() after the fingerprint

Results: results/benchmarks/open_wait.json and open_wait.md (date, machine and load in the header).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling stream modules, when imported from elsewhere
from store_scale import portable_command  # noqa: E402
from streams import PROFILES  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# The child that waits like a user: interpreter start is timed from the parent's launch.
WAIT_CHILD = r"""
import json, sys, time
impl, path, iid, whole = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
t_import0 = time.time()
if impl == "solvi":
    from solvi.core.knowledge import KnowledgeStore
else:
    from solvi_lab.knowledge import KnowledgeStore
c0, t0 = time.process_time(), time.time()
if impl == "solvi":
    ks = KnowledgeStore(path)
else:
    ks = KnowledgeStore.open(path)
t1 = time.time()
ks.item(iid)
t2 = time.time()
fp = ks.fingerprint()
t3, c3 = time.time(), time.process_time()
if whole:  # a read that needs every item (after a snapshot open: the items not built yet are built here)
    ks.report()
t4 = time.time()
print(json.dumps({"t_import0": t_import0, "t0": t0, "t1": t1, "t2": t2, "t3": t3, "t4": t4, "fp": fp, "cpu": c3 - c0}), flush=True)
"""

# Build one journal (in its own process, so the build's memory is gone before any timing).
BUILD_CHILD = r"""
import inspect, json, random, sys
sys.path.insert(0, sys.argv[5])
from store_scale import build
impl, profile, n, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
ks, ids, _ = build(impl, profile, n, 0, path)
fp = ks.fingerprint()
live = [x for x in ids if x is not None and ks.status(x) != "retracted"]
iid = live[len(live) // 2]
if impl == "solvi":
    pass
else:
    # (the signature, not co_varnames: close is wrapped, and a default close would write a snapshot)
    ks.close(snapshot=False) if "snapshot" in inspect.signature(ks.close).parameters else ks.close()
print(json.dumps({"iid": iid, "fp": fp}), flush=True)
"""

# Write a fold snapshot of an existing journal (explicitly), when the code has them.
SNAPSHOT_CHILD = r"""
import json, sys
from solvi_lab.knowledge import KnowledgeStore
ks = KnowledgeStore.open(sys.argv[1])
if not hasattr(ks, "write_snapshot"):
    ks.close(); print(json.dumps({"snapshot": False})); sys.exit(0)
ks.write_snapshot()
ks.close(snapshot=False)
print(json.dumps({"snapshot": True}), flush=True)
"""


def run_child(code: str, args: list[str], pythonpath: str, timeout: float) -> tuple[dict, float, float]:
    """Run `code` in a fresh interpreter (-P: the working directory is not on sys.path, so PYTHONPATH decides
    which solvi_lab runs); (its last JSON line, launch time, end time) on the wall clock."""
    env = {**os.environ, "PYTHONPATH": pythonpath, "PYTHONWARNINGS": "default"}
    t_launch = time.time()
    out = subprocess.run(
        [sys.executable, "-P", "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    t_end = time.time()
    if out.returncode != 0:
        raise RuntimeError(f"child failed ({out.returncode}): {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1]), t_launch, t_end


def wait_row(impl: str, path: str, iid: str, pythonpath: str, timeout: float, whole: bool = False) -> dict:
    """One user's wait, in its own process (with `whole`, then a `report()`, which reads every item)."""
    r, t_launch, t_end = run_child(WAIT_CHILD, [impl, path, iid, "1" if whole else "0"], pythonpath, timeout)
    return {
        "import_s": r["t0"] - t_launch,
        "open_s": r["t1"] - r["t0"],
        "first_item_s": r["t2"] - r["t1"],
        "first_fingerprint_s": r["t3"] - r["t2"],
        "whole_read_s": r["t4"] - r["t3"] if whole else None,
        "exit_s": t_end - r["t4"],
        "open_item_fingerprint_s": r["t3"] - r["t0"],
        # the same steps' CPU time in that process: on a shared machine the wall clock also counts others' work
        "open_item_fingerprint_cpu_s": r.get("cpu"),
        "fingerprint": r["fp"],
    }


def built(impl: str, profile: str, n: int, tmp: Path, code: str, timeout: float, cache: str | None):
    """The journal of the stream (built in a child; or copied from `cache`, where it is kept once built):
    (path, {"iid": an item in the middle, "fp": its fingerprint}, build seconds or None when cached)."""
    path = tmp / "journal.jsonl"
    kept = Path(cache) / f"{impl}-{profile}-{n}" if cache else None
    if kept is not None and (kept / "meta.json").is_file():
        for f in kept.iterdir():
            if f.name != "meta.json":
                shutil.copyfile(f, tmp / f.name)
        return str(path), json.loads((kept / "meta.json").read_text()), None
    t = time.perf_counter()
    b, _, _ = run_child(BUILD_CHILD, [impl, profile, str(n), str(path), str(HERE)], code, timeout)
    build_s = time.perf_counter() - t
    if kept is not None:
        kept.mkdir(parents=True, exist_ok=True)
        for f in tmp.iterdir():
            shutil.copyfile(f, kept / f.name)
        (kept / "meta.json").write_text(json.dumps(b))
    return str(path), b, build_s


def measure(
    impl: str,
    profile: str,
    n: int,
    code: dict[str, str],
    repeats: int,
    timeout: float,
    cache: str | None = None,
    whole: bool = False,
) -> list[dict]:
    """Build the journal once, then time each variant (label -> PYTHONPATH) without and with a snapshot."""
    tmp = Path(tempfile.mkdtemp(prefix=f"open-wait-{impl}-"))
    try:
        path, b, build_s = built(impl, profile, n, tmp, code["solvi_lab"], timeout, cache)
        size_mb = os.path.getsize(path) / 2**20
        rows = []
        base = {"impl": impl, "profile": profile, "n": n, "build_s": build_s, "journal_mb": size_mb}
        if impl == "solvi":
            for _ in range(repeats):
                w = wait_row(impl, path, b["iid"], code["solvi_lab"], timeout)
                rows.append({**base, "code": "solvi 1.3.0", "snapshot": False, **w, "same_fingerprint": None})
            return rows
        for label, pp in code.items():
            # Each variant on its own copy: a snapshot (and the journal record that names it) is the variant's own.
            for snap in (False, True):
                vpath = str(tmp / f"{label}-{int(snap)}.jsonl")
                shutil.copyfile(path, vpath)
                if os.path.exists(path + ".head"):
                    shutil.copyfile(path + ".head", vpath + ".head")
                if snap:
                    s, _, _ = run_child(SNAPSHOT_CHILD, [vpath], pp, timeout)
                    if not s["snapshot"]:
                        rows.append({**base, "code": label, "snapshot": "n/a"})
                        continue
                for _ in range(repeats):
                    w = wait_row(impl, vpath, b["iid"], pp, timeout, whole)
                    rows.append(
                        {**base, "code": label, "snapshot": snap, **w, "same_fingerprint": w["fingerprint"] == b["fp"]}
                    )
                    rows[-1].update(floors_of(vpath, snap))
        return rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fmt(v: object) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v * 1000:.0f} ms" if v < 1 else f"{v:.2f} s"
    return str(v)


TIMED = (
    "import_s",
    "open_s",
    "first_item_s",
    "first_fingerprint_s",
    "whole_read_s",
    "exit_s",
    "open_item_fingerprint_s",
    "open_item_fingerprint_cpu_s",
)


def medians(rows: list[dict]) -> list[dict]:
    """One row per variant, each time the median of its repeats (in the order the variants ran)."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r.get("code"), r["profile"], r["n"], r.get("snapshot")), []).append(r)
    out = []
    for rs in groups.values():
        m = dict(rs[0])
        if "open_s" in m:
            for k in TIMED:
                vals = sorted(r[k] for r in rs if r.get(k) is not None)
                m[k] = vals[len(vals) // 2] if vals else None
            m["same_fingerprint"] = (
                all(r["same_fingerprint"] is not False for r in rs) if rs[0]["same_fingerprint"] is not None else None
            )
            m["repeats"] = len(rs)
        out.append(m)
    return out


def table(rows: list[dict]) -> str:
    head = (
        "| implementation | profile | items | journal | snapshot | import | open | first item | first fingerprint "
        "| then report() | exit | open → fingerprint | its CPU time | same fingerprint |\n"
        "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n"
    )
    body = ""
    for r in rows:
        if r.get("snapshot") == "n/a":
            body += (
                f"| {r['code']} | {r['profile']} | {r['n']:,} | {r['journal_mb']:.1f} MB | n/a (no snapshots in this code) |"
                + " |" * 9
                + "\n"
            )
            continue
        body += (
            f"| {r['code']} | {r['profile']} | {r['n']:,} | {r['journal_mb']:.1f} MB | {'yes' if r['snapshot'] else 'no'} "
            f"| {fmt(r['import_s'])} | {fmt(r['open_s'])} | {fmt(r['first_item_s'])} | {fmt(r['first_fingerprint_s'])} "
            f"| {fmt(r.get('whole_read_s'))} | {fmt(r['exit_s'])} | {fmt(r['open_item_fingerprint_s'])} "
            f"| {fmt(r.get('open_item_fingerprint_cpu_s'))} | {fmt(r['same_fingerprint'])} |\n"
        )
    return head + body


def floors_of(path: str, snap: bool) -> dict:
    """The floors of one row, timed right after it on the same files (benchmarks/floors.py): with a snapshot, read
    and SHA-256 the journal's and the snapshot's bytes; without, parse and hash every journal line; and the load."""
    from floors import byte_floor, load, parse_hash_floor

    if snap:
        return {"floor": "bytes", "floor_s": byte_floor([path, path + ".fold"]), "load": load()}
    return {"floor": "parse+hash", "floor_s": parse_hash_floor(path), "load": load()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", nargs="+", default=["hot-keys", "default"], choices=PROFILES)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--peer-max", type=int, default=10_000, help="largest size solvi 1.3.0 is run at (0: never)")
    ap.add_argument("--baseline", default=None, help="a checkout of older solvi_lab code to run on the same journals")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--out", default=str(ROOT / "results" / "benchmarks"))
    ap.add_argument("--name", default="open_wait")
    ap.add_argument(
        "--whole",
        action="store_true",
        help="after the fingerprint, time a report() (it reads every item) before the exit",
    )
    ap.add_argument("--cache", default=None, help="a directory keeping the built journals for later runs")
    args = ap.parse_args()
    code = {"solvi_lab": str(ROOT)}
    if args.baseline:
        code["baseline"] = str(Path(args.baseline).resolve())
    rows: list[dict] = []
    t0 = time.time()
    for profile in args.profile:
        for n in args.sizes:
            rows += measure("solvi_lab", profile, n, code, args.repeats, args.timeout, args.cache, args.whole)
            print(table(medians(rows)[-4:]), file=sys.stderr, flush=True)
            if n <= args.peer_max:
                try:
                    rows += measure(
                        "solvi", profile, n, {"solvi_lab": str(ROOT)}, args.repeats, args.timeout, args.cache
                    )
                except (RuntimeError, ImportError) as e:
                    rows.append(
                        {"impl": "solvi", "code": "solvi 1.3.0", "profile": profile, "n": n, "error": str(e)[-300:]}
                    )
    load = os.getloadavg()[0]
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load {load:.1f}"
    ok = [r for r in rows if "error" not in r]
    text = (
        f"What a user waits for — {stamp}, {machine}{' (under load)' if load > 1 else ''}, "
        f"{time.time() - t0:.0f} s; command: python {portable_command(sys.argv, args.baseline, 'benchmarks/open_wait.py', ('--out', '--cache'))}\n\n"
        + (f"Median of {args.repeats} runs per row, each in a fresh process.\n\n" if args.repeats > 1 else "")
        + table(medians(ok))
        + "".join(f"\n{r['code']} {r['profile']} {r['n']:,}: {r['error']}" for r in rows if "error" in r)
    )
    print(text)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.name}.json").write_text(json.dumps(rows, indent=1))
    (out / f"{args.name}.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
