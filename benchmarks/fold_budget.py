"""Where a full fold's time goes against its floor (issue 42: the 10^5 fresh fold ≤ 3× the stdlib parse+hash floor).

    nice -n 5 python benchmarks/fold_budget.py                                  # 10^5, both streams, 3 processes each
    nice -n 5 python benchmarks/fold_budget.py --sizes 10000 --repeats 2 --out /tmp/fb --name try
    nice -n 5 python benchmarks/fold_budget.py --baseline ../solvi_lab-old --name before_after   # two checkouts

For each stream (`benchmarks/streams.py`) it builds one journal (as `store_scale.py` does), then measures in fresh
processes (one per repeat: the goal is a fresh process's fold), each phase timed on its own, in CPU seconds:

- `floor`: read + stdlib `json.loads` + SHA-256 of every line (`store_scale.floor_seconds`, the goal's floor);
- `journal_load`: the journal alone as the store loads it (`Journal(path, load_checks=False)`: read, parse, check
  the hash chain; the kinds' payload-shape checks are off, as in the store, whose fold reads what it folds), no fold;
- `items`: one `Item` made from every add record's payload (write-time fields and the initial fold state), nothing
  else — the payloads parsed beforehand, outside the timing;
- `digests`: every item's digest as the fingerprint needs it, on the items the rebuild below folded (its states);
- `rebuild`: `KnowledgeStore(path)` and its fingerprint (what `store_scale.py` times as the fresh fold).

`model_minimum` = journal_load + items + digests: what a fold of this item model and these pinned digests pays before
any fold rule runs; `rules` = rebuild − model_minimum. Each is reported as a ratio to the floor of the same process,
the median over the processes. Output: `<out>/<name>.json` and `.md` (a table the docs render).

`--baseline DIR`: another checkout measured on the same journals in the same run, its fresh processes alternating
with this checkout's (this, baseline, this, ...) so that a change of load falls on both; each stream then has a
column per checkout, named by its commit. (On a shared machine the floor itself moves between runs, and the ratio
with it: a before/after is only read within one run.)
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

PHASES = ("floor", "journal_load", "items", "digests", "rebuild")
GOAL = 3.0  # the ratio for the 10^5 fresh fold


def measure(path: str) -> dict[str, float]:
    """One fresh process's phases (CPU seconds) on the journal at `path`; see the module docstring."""
    import gc

    import orjson
    from store_scale import floor_seconds

    from solvi_lab.journal import Journal
    from solvi_lab.knowledge import KnowledgeStore
    from solvi_lab.knowledge.items import Item

    out: dict[str, float] = {}
    c = time.process_time()
    floor_seconds(path)
    out["floor"] = time.process_time() - c
    gc.disable()  # as the fold itself runs (from_scratch pauses the collector): no phase pays for another's objects
    try:
        c = time.process_time()
        Journal(path, load_checks=False).close()  # as knowledge/opening.py opens it for the store
        out["journal_load"] = time.process_time() - c
        adds = []
        with open(path, "rb") as f:
            for line in f:
                r = orjson.loads(line)
                p = r["payload"]
                if r["kind"] == "knowledge" and p.get("op") == "add":
                    adds.append((r["position"], p, sys.intern(p["key"])))
        c = time.process_time()
        made = [Item(pos, p, key, 0) for pos, p, key in adds]
        out["items"] = time.process_time() - c
        del made, adds
        c = time.process_time()
        ks = KnowledgeStore(path)
        ks.fingerprint()
        out["rebuild"] = time.process_time() - c
        folded = list(ks._fold._items.values())
        c = time.process_time()
        sum(it.digest() for it in folded)
        out["digests"] = time.process_time() - c
        ks.journal.close()
    finally:
        gc.enable()
    return out


def _child(path: str, root: Path = ROOT) -> dict[str, float]:
    """`measure` in a fresh interpreter (the goal is a fresh process's fold), with the checkout at `root`'s code."""
    script = root / "benchmarks" / "fold_budget.py"
    got = subprocess.run([sys.executable, str(script), "--child", path], capture_output=True, text=True, cwd=str(root))
    if got.returncode != 0:
        raise SystemExit(f"the measuring process failed on {path} (exit {got.returncode}):\n{got.stderr[-2000:]}")
    return json.loads(got.stdout.strip().splitlines()[-1])


def summarise(runs: list[dict[str, float]]) -> dict[str, Any]:
    """Median of each phase over the runs, the model's minimum, the rules, and each as a ratio to the floor.

    >>> s = summarise([{"floor": 1.0, "journal_load": 1.2, "items": 0.7, "digests": 0.8, "rebuild": 4.2}])
    >>> round(s["model_minimum_s"], 2), round(s["rules_s"], 2), round(s["rebuild_over_floor"], 2), s["goal_met"]
    (2.7, 1.5, 4.2, False)
    """
    med = {k: statistics.median(r[k] for r in runs) for k in PHASES}
    minimum = med["journal_load"] + med["items"] + med["digests"]
    out: dict[str, Any] = {f"{k}_s": v for k, v in med.items()}
    out["model_minimum_s"] = minimum
    out["rules_s"] = med["rebuild"] - minimum
    for k in (*PHASES[1:], "model_minimum", "rules"):
        out[f"{k}_over_floor"] = out[f"{k}_s"] / med["floor"]
    out["goal_met"] = out["rebuild_over_floor"] <= GOAL
    out["runs"] = runs
    return out


def _md(meta: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    names = [
        ("journal_load", "journal load alone (read, parse, hash chain)"),
        ("items", "make one item per add (no fold rule)"),
        ("digests", "every item's digest (the fingerprint's)"),
        ("model_minimum", "the three above: the item model's minimum"),
        ("rules", "the fold's rules (rebuild − minimum)"),
        ("rebuild", "fresh full rebuild up to the fingerprint"),
    ]
    head = "| phase (CPU, median of the processes) | " + " | ".join(_column(r) for r in rows) + " |"
    lines = [
        f"# A full fold's time against its floor, at {meta['n']:,} items",
        "",
        f"Measured {meta['finished'][:16].replace('T', ' ')} UTC — {meta['repeats']} fresh "
        f"process{'es' if meta['repeats'] != 1 else ''} per stream"
        + (" and checkout, alternating" if meta.get("baseline") else "")
        + f", load {meta['load_start']:.1f}–{meta['load_end']:.1f}; command: `python benchmarks/fold_budget.py "
        f"--sizes {meta['n']} --repeats {meta['repeats']}"
        + (" --baseline <checkout of " + meta["baseline"] + ">" if meta.get("baseline") else "")
        + "`. Each cell: seconds, and the ratio to the floor (read + "
        "stdlib parse + SHA-256 of every line) measured in the same process. Goal: the rebuild ≤ "
        f"{GOAL:g}× the floor.",
        "",
        head,
        "|---|" + "---:|" * len(rows),
        "| floor: read + stdlib parse + SHA-256 | " + " | ".join(f"{r['floor_s']:.3f} s" for r in rows) + " |",
    ]
    for key, label in names:
        cells = [f"{r[f'{key}_s']:.3f} s ({r[f'{key}_over_floor']:.2f}×)" for r in rows]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append(
        "| goal met (rebuild ≤ 3× floor) | " + " | ".join("yes" if r["goal_met"] else "no" for r in rows) + " |"
    )
    return "\n".join(lines) + "\n"


def _column(row: dict[str, Any]) -> str:
    who = row.get("checkout")
    return f"`{row['profile']}` stream" + (f", `{who}`" if who else "")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, default=100_000, help="items in each stream's journal")
    p.add_argument("--profile", nargs="+", default=["default", "derived-keys"])
    p.add_argument("--repeats", type=int, default=3, help="fresh processes per stream")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=str(ROOT / "results" / "benchmarks" / "issue42"))
    p.add_argument("--name", default=None, help="output stem (default fold_budget_<n>_<date>)")
    p.add_argument("--baseline", help="another checkout's root, measured alternately on the same journals")
    p.add_argument("--child", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        print(json.dumps(measure(a.child)))
        return
    if a.sizes < 1 or a.repeats < 1:
        raise SystemExit("--sizes and --repeats must be at least 1 (items per journal, fresh processes per stream)")
    from floors import load as load_now
    from store_scale import build, commit_of
    from streams import PROFILES

    unknown = [s for s in a.profile if s not in PROFILES]
    if unknown:
        raise SystemExit(f"unknown stream(s) {unknown}; the streams are: {', '.join(PROFILES)}")
    base = Path(a.baseline).resolve() if a.baseline else None
    if base is not None and not (base / "benchmarks" / "fold_budget.py").is_file():
        raise SystemExit(
            f"--baseline {a.baseline}: no benchmarks/fold_budget.py there; give the root of another checkout "
            "(for example one made with `git worktree add ../solvi_lab-old <commit>`)"
        )
    checkouts = [(ROOT, commit_of(str(ROOT)) if base else None)] + ([(base, commit_of(str(base)))] if base else [])
    load_start = load_now()
    rows = []
    for profile in a.profile:
        tmp = Path(tempfile.mkdtemp(prefix="fold-budget-"))
        try:  # the built journal is scratch: gone whatever happens
            path = str(tmp / "journal.jsonl")
            ks, _, _ = build("solvi_lab", profile, a.sizes, a.seed, path)
            ks.journal.close()
            del ks
            runs: list[list[dict[str, float]]] = [[] for _ in checkouts]
            for _ in range(a.repeats):
                for i, (root, _) in enumerate(checkouts):
                    runs[i].append(_child(path, root))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for (_, who), got in zip(checkouts, runs):
            rows.append({"profile": profile, **({"checkout": who} if who else {}), **summarise(got)})
    meta = {
        "n": a.sizes,
        "repeats": a.repeats,
        "load_start": load_start,
        "load_end": load_now(),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        **({"this": checkouts[0][1], "baseline": checkouts[1][1]} if base else {}),
    }
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = a.name or f"fold_budget_{a.sizes}_{meta['finished'][:10]}"
    (out / f"{stem}.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    (out / f"{stem}.md").write_text(_md(meta, rows))
    print(out / f"{stem}.md")


if __name__ == "__main__":
    main()
