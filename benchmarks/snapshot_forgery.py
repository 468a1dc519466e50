"""What a forger who can append to a closed journal can make a knowledge store serve through a forged fold snapshot
(issue 40, part 2).

A trial builds a journal with an honest snapshot, then writes a forged ``.fold`` — the journal's replay with one
item changed — and appends one ``fold-snapshot`` record naming it (digest, rules stamp and fingerprint all as the
library would write them for the forged rows). Variants: one letter of an item written before the head checkpoint
or after it (records a writer appended and never checkpointed), an item's status changed, each with the item's
kept digest left as it was or recomputed (with the snapshot's sums). Two forgers: one who writes to the journal
file alone (the head checkpoints as they were), and one who also rewrites the checkpoints (as this library's writer
would, vouching for the forged record). Each trial opens the store, reads the changed item, runs `verify()`, closes
and opens once more.

Outcomes per trial: refused at open (one warning, the store folded from its journal), the served item equal to the
replay's, `verify()` false; the failure counted is "served a value the replay does not give while verify() said
True" (must be 0). The forger works on the store's private state (it forges), so it lives here, not in the package.

    python benchmarks/snapshot_forgery.py                # 10 trials per row
    python benchmarks/snapshot_forgery.py --trials 2     # a quick look

Results: results/benchmarks/snapshot_forgery.json and snapshot_forgery.md (date, machine and load in the header);
docs/readme/journal.md shows the table. Tests: tests/knowledge/test_snapshot_forgery.py.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import platform
import random
import sqlite3
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solvi_lab import journal_head, journal_head_index
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore, snapshot_write
from solvi_lab.knowledge import fold_snapshot as fs
from solvi_lab.knowledge.fold_snapshot import FoldSnapshotIgnored
from solvi_lab.studies.synthetic import apply_stream, iter_operations

ROOT = Path(__file__).resolve().parent.parent


# -- the forger's tools -------------------------------------------------------------------------------------------
def heads(path: Path) -> Any:
    """What the journal's head checkpoints hold now (JSONL: attribute and .head file; SQLite: the head rows)."""
    if path.suffix == ".sqlite":
        db = sqlite3.connect(path)
        try:
            return db.execute("SELECT id, count, hash FROM head ORDER BY id").fetchall()
        finally:
            db.close()
    return journal_head.read_checkpoints(path)


def restore_heads(path: Path, saved: Any) -> None:
    """Put the head checkpoints back as `heads` read them (attribute, .head, head index entry): the forger wrote to
    the journal, not to them."""
    if path.suffix == ".sqlite":
        db = sqlite3.connect(path)
        try:
            with db:
                db.execute("DELETE FROM head")
                db.executemany("INSERT INTO head VALUES (?, ?, ?)", saved)
        finally:
            db.close()
        return
    journal_head.remove_checkpoints(path)
    for where, text in saved:
        if where == journal_head.XATTR:
            os.setxattr(path, journal_head.XATTR, text.encode())
        elif journal_head_index.is_entry(where):  # the head index entry (solvi_lab/journal_head_index.py)
            Path(where[len(journal_head_index.TAG) :]).write_text(text)
        else:
            Path(where).write_text(text)


def forge(path: Path, change: Callable[[KnowledgeStore], str], *, recompute: bool, keep_heads: bool = True) -> str:
    """Write a forged .fold of the journal's replay with `change` applied (it returns the id of the item it
    changed), and append one fold-snapshot record naming it. `recompute`: the item's digest and the snapshot's sums
    are recomputed (every kept digest agrees with the forged rows). `keep_heads`: the head checkpoints are put back
    as they were before the append; False: this library's writer wrote them, vouching for the forged record."""
    saved = heads(path)
    with KnowledgeStore.open(path, snapshot=False) as ks:
        ks._fold._flush_digests()  # every kept digest settled first (a read leaves them pending)
        iid = change(ks)
        if recompute:
            ks._fold._touch(ks._fold._items[iid])
            ks._fold._flush_digests()  # the item's digest and the sums moved (a read never settles them)
        fp = ks.fingerprint()  # what the forger names: its rows' fingerprint as their kept sums give it
        _, marker = snapshot_write._write_file(ks._fold, ks.journal, fp)
        ks.close(snapshot=False)
    with Journal(path) as j:
        rec = j.append(fs.MARKER_KIND, marker)
        if not keep_heads:
            j.vouch(rec.position)
    if keep_heads:
        restore_heads(path, saved)
    return iid


def append_unchecked(path: Path, n: int = 4) -> None:
    """Records written after the journal's last head checkpoint (a writer killed before its close): `n` adds
    appended, the checkpoints put back as they were."""
    saved = heads(path)
    with KnowledgeStore.open(path, snapshot=False) as ks:
        for i in range(n):
            ks.add("fact", {"s": f"late{i}", "r": "tier", "o": f"late{i}"}, source="person")
        ks.close(snapshot=False)
    restore_heads(path, saved)


def _pick(ks: KnowledgeStore, rng: random.Random, late: bool) -> Any:
    items = [
        it
        for it in ks._fold._items.values()
        if it.state == "active"
        and isinstance(it.body, dict)
        and isinstance(it.body.get("o"), str)
        and str(it.body.get("s", "")).startswith("late") == late
    ]
    return rng.choice(items)


def letter(rng: random.Random, late: bool = False) -> Callable[[KnowledgeStore], str]:
    """One letter of an active fact's object changed (one written after the checkpoint when `late`)."""

    def change(ks: KnowledgeStore) -> str:
        it = _pick(ks, rng, late)
        o = it.body["o"]
        k = rng.randrange(len(o)) if o else 0
        new = "X" if o[k : k + 1] != "X" else "Y"
        it.body = {**it.body, "o": o[:k] + new + o[k + 1 :]}
        return it.id

    return change


def status(rng: random.Random) -> Callable[[KnowledgeStore], str]:
    """An active item made refuted."""

    def change(ks: KnowledgeStore) -> str:
        it = _pick(ks, rng, False)
        it.state = "refuted"
        return it.id

    return change


# variant -> (change maker, late)
VARIANTS: dict[str, tuple[Callable[..., Callable[[KnowledgeStore], str]], bool]] = {
    "a letter, before the head checkpoint": (lambda rng: letter(rng), False),
    "a letter, after the head checkpoint": (lambda rng: letter(rng, late=True), True),
    "a status": (status, False),
}


# -- trials -------------------------------------------------------------------------------------------------------
@dataclass
class ForgeryRow:
    variant: str
    backend: str
    forger: str  # "appends" | "appends and rewrites the checkpoint"
    recompute: bool
    tried: int = 0
    refused_at_open: int = 0  # one warning, the store folded from its journal
    served_replay: int = 0  # the changed item served as the replay gives it (before any verify)
    verify_false: int = 0  # the first verify() said the store differs from its journal
    served_forged_verify_true: int = 0  # the failure: must be 0
    next_open_refused: int = 0  # the open after that one folded from the journal again
    other: dict[str, int] = field(default_factory=dict)


def _build(path: Path, seed: int, n: int) -> None:
    with KnowledgeStore.open(path, snapshot=False) as ks:
        apply_stream(ks, iter_operations(n, seed))
        ks.close(snapshot=False)
    with KnowledgeStore.open(path, snapshot=False) as ks:
        ks.write_snapshot()  # the honest snapshot the forger replaces


def _replay(path: Path, iid: str) -> tuple[Any, str]:
    with Journal(path, mode="r") as j:
        ks = KnowledgeStore.from_journal(j)
        return ks.item(iid), ks.fingerprint()


def trial(folder: Path, row: ForgeryRow, seed: int, n: int = 150) -> None:
    """One forgery of `row`'s kind on a fresh journal in `folder`; its outcome added to `row`."""
    rng = random.Random(seed)
    path = folder / f"ks{seed}.{row.backend}"
    _build(path, seed, n)
    make, late = VARIANTS[row.variant]
    if late:
        append_unchecked(path)
    iid = forge(path, make(rng), recompute=row.recompute, keep_heads=row.forger == "appends")
    want, want_fp = _replay(path, iid)
    row.tried += 1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ks = KnowledgeStore.open(path)
    try:
        warned = [x for x in w if issubclass(x.category, FoldSnapshotIgnored)]
        if not ks.opened_from_snapshot and len(warned) == 1:
            row.refused_at_open += 1
        same = ks.item(iid) == want and ks.fingerprint() == want_fp
        row.served_replay += same
        v = ks.verify()
        row.verify_false += not v
        row.served_forged_verify_true += (not same) and bool(v)
    except Exception as e:  # noqa: BLE001 - counted: any exception here is a bug of the protection
        row.other[type(e).__name__] = row.other.get(type(e).__name__, 0) + 1
    finally:
        ks.close(snapshot=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FoldSnapshotIgnored)
        with KnowledgeStore.open(path) as again:
            row.next_open_refused += not again.opened_from_snapshot
            again.close(snapshot=False)
    for p in path.parent.glob(path.name + "*"):
        p.unlink()


def run(trials: int = 10, seed: int = 0) -> list[ForgeryRow]:
    """Every variant x backend x forger x recompute, `trials` trials each (seeds seed, seed+1, ...)."""
    rows = [
        ForgeryRow(variant, backend, forger, recompute)
        for forger in ("appends", "appends and rewrites the checkpoint")
        for variant in VARIANTS
        for recompute in (False, True)
        for backend in ("jsonl", "sqlite")
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            for k in range(trials):
                trial(Path(tmp), row, seed + k)
    return rows


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
    # Its journals are temporary: so are the head index entries they write (never the environment's state folder).
    state = tempfile.TemporaryDirectory(prefix="solvi_lab_state_")
    os.environ[journal_head_index.ENV] = state.name
    t0 = time.time()
    rows = run(args.trials, args.seed)
    state.cleanup()
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
