"""The journal's fault table: damage, crash, race and fuzz every journal backend and owner, and count what happened.

For JSONL and SQLite: a cut at every byte offset of the last record (SQLite: of the file's last page) and at every
record boundary (with the head checkpoint; without it but with a kept head; with neither — undetectable by design);
2,000 random single-byte changes; deleted, swapped, duplicated and forged records; ≥100 SIGKILLs of a child
appending in a loop (it prints each acknowledged id); a second writer through the path, a symlink, a hard link
and another spelling (other processes and threads); two threads and two processes writing at once; a reader
opening during writes; a full disk (RLIMIT_FSIZE) at every byte of a record; a read-only directory (chattr +i);
a cut journal opened through a symlink or a hard link; SIGKILL while 1–4 MB records are written. For SQLite, its
head row or table deleted; for the knowledge store, four threads and a decision log writing at once.
The two files that are not journals: one-byte changes of a Parquet export (with and
without its .sha256; each trial in a worker process, so an abort is counted) and of a WorldMap map file, and the
map file cut at a byte or with its last records deleted. Then Hypothesis-style fuzzing of every public writing call of the store, decision log,
action model, risk policies, failure memory, learner model, agenda and world map.

Issue 40's rows: threads mixing every public read and write of each journal owner (live = replay afterwards; the
store also reopened from a snapshot written after the mix), a full disk (RLIMIT_FSIZE) and SIGKILL while the fold
snapshot is written, bad input at every `Journal` entry point, and the head index's rows (a cut journal opened
through a hard link in another folder without xattrs; a new journal on a reused inode number; repaired, moved and
replaced journals through their own path: solvi_lab/journal_faults/identity.py).

    python benchmarks/faults.py                     # the full table (a few minutes)
    python benchmarks/faults.py --quick             # the CI-sized table (tests/faults/ runs the same rows)
    python benchmarks/faults.py --only issue40      # issue 40's rows only (results/benchmarks/faults_issue40.md)
    python benchmarks/faults.py --only head_index   # the head index's rows (results/benchmarks/faults_head_index.md)
    python benchmarks/faults.py --only snapshot     # the fold snapshot rows (results/benchmarks/faults_snapshot.md)

After storing a table, the `<!-- fault-table: … -->` blocks of docs/readme/journal.md are rendered from the stored
files (solvi_lab/journal_faults/page.py); a --quick run stores `*_quick.md`, which no block names.

Columns: tried; detected (CorruptJournal — or, for a second writer, JournalLocked; for fuzzing, a refused call)
with how many named a position; other exception (any other type: a bug); silently accepted (opened, or a call
was accepted, and the records differ / the file no longer reloads); acknowledged records lost. "unchanged" trials
(a byte SQLite never reads, a race that ended well) are counted in tried only. Writes
results/benchmarks/faults.md and prints the table.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solvi_lab.journal_faults import crash  # noqa: E402
from solvi_lab.journal_faults.files import FILE_FAULTS, Row, run_file_fault  # noqa: E402
from solvi_lab.journal_faults.other_files import rows as other_file_rows  # noqa: E402
from solvi_lab.journal_faults.owners import OWNERS, Tally, random_calls, run_sequence  # noqa: E402
from solvi_lab.journal_faults.writes import write_fault_rows  # noqa: E402


def issue40_rows(quick: bool) -> list[Row]:
    """Issue 40: threads reading beside writers for every owner (the store on JSONL and SQLite, then a snapshot
    written after the mix and reopened), a full disk and a kill while the fold snapshot is written, and bad input at
    every Journal entry point (solvi_lab/journal_faults/reads.py, snapshot_writes.py, entry_points.py)."""
    from solvi_lab.journal_faults.entry_points import run_cases
    from solvi_lab.journal_faults.reads import thread_read_rows
    from solvi_lab.journal_faults.snapshot_writes import snapshot_write_rows

    # The head index's rows are stored on their own (--only head_index, faults_head_index.md: its own block on the
    # page); the whole table (run) has both.
    rows = thread_read_rows(tempfile.TemporaryDirectory, 3 if quick else 30, calls=80)
    for r in rows:
        _progress(r)
    rows += snapshot_write_rows(tempfile.TemporaryDirectory, quick)
    if not quick:  # a loop-mounted ext4 with 1 KiB blocks (root only; the row says when it could not run)
        from solvi_lab.journal_faults.small_blocks import sqlite_full_small_blocks

        rows += [sqlite_full_small_blocks(reserve=False), sqlite_full_small_blocks()]
    out = run_cases()
    row = Row("bad input at every Journal entry point (+ hostile __eq__/__hash__/__repr__ in owner writes)", "every call")
    row.tried, row.detected, row.other = out.tried, out.refused, out.bare
    row.note = (
        f"{out.accepted} accepted (a long string where one is allowed); refusals over 1,000 characters: {out.long}, "
        f"over one line: {out.multiline}, quoting more than 80 characters of a value: {out.quoted}"
    )
    row.examples = out.examples
    rows.append(row)
    for r in rows[len(rows) - 5 - (0 if quick else 2) :]:
        _progress(r)
    return rows


def head_index_rows(quick: bool) -> list[Row]:
    """Issue 40's last gap: the head index (solvi_lab/journal_head_index.py) — hard links in another folder without
    xattrs, reused inode numbers, repaired / moved / replaced journals (solvi_lab/journal_faults/identity.py). Each
    row keeps its index in a temporary folder of its own."""
    from solvi_lab.journal_faults.identity import identity_rows

    rows = identity_rows(tempfile.TemporaryDirectory, quick)
    for r in rows:
        _progress(r)
    return rows


def fuzz_row(owner, sequences: int, calls: int, seed: int) -> Row:
    rng = random.Random(seed)
    tally = Tally()
    for _ in range(sequences):
        with tempfile.TemporaryDirectory() as d:
            tally.add(run_sequence(owner, random_calls(owner, rng, calls), Path(d)))
    row = Row(f"fuzz {owner.name}", "jsonl")
    row.tried = tally.accepted + tally.refused + sum(tally.other.values())
    row.detected = tally.refused
    row.other = tally.other
    row.silent = sum(tally.broke_reload.values()) + tally.grew_on_refusal
    row.note = f"{tally.accepted} accepted, {tally.refused} refused"
    row.examples = tally.examples
    return row


def _snapshot_journal(path: Path, n: int, seed: int) -> None:
    """A journal of the study's synthetic stream (disputes, resolutions, flags, ticks, retractions), no snapshot."""
    from solvi_lab.knowledge import KnowledgeStore
    from solvi_lab.studies.synthetic import apply_stream, iter_operations

    with KnowledgeStore.open(path, snapshot=False) as ks:
        ids = [i for i in apply_stream(ks, iter_operations(n, seed)) if i is not None]
        for x in random.Random(seed).sample(ids, min(5, len(ids))):
            if ks.status(x) != "retracted":
                ks.retract(x, by="faults", why="a retraction in the snapshot")


def _open_outcome(path: Path, want: str, expect_used: bool) -> tuple[str, str]:
    """Open `path`; ("detected", why) when it behaved as it must — fell back with one warning (or, `expect_used`,
    used the snapshot without one) and showed the journal's fold —, ("silent", ...) when it showed another state or
    used a snapshot it had to refuse, ("other", type) on an exception."""
    import warnings

    from solvi_lab.knowledge import KnowledgeStore
    from solvi_lab.knowledge.fold_snapshot import FoldSnapshotIgnored

    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with KnowledgeStore.open(path) as ks:
                got, used = json_state(ks), ks.opened_from_snapshot
                ks.close(snapshot=False)
    except Exception as e:  # noqa: BLE001 - counted as "other exception"
        return "other", type(e).__name__
    warned = [str(x.message) for x in w if issubclass(x.category, FoldSnapshotIgnored)]
    if got != want:
        return "silent", f"state differs from the journal's fold (snapshot used: {used})"
    if used != expect_used or len(warned) != (0 if expect_used else 1):
        return "silent", f"snapshot used: {used}, warnings: {warned}"
    return "detected", warned[0] if warned else "used, tail folded"


def json_state(ks) -> str:
    """What the store shows, as one comparable text: state, fingerprint and report."""
    import json

    return json.dumps([ks.state(), ks.fingerprint(), ks.report()], sort_keys=True, default=str)


def snapshot_rows(quick: bool, seed: int = 0) -> list[Row]:
    """Fault rows for fold snapshots (knowledge/fold_snapshot.py), on both backends: a damaged file (random byte
    changes anywhere in it), a stale one (the journal grew after it: used, only the tail folded; or the journal
    replaced by an older copy that then grew otherwise: refused), a forged one (an edited row under a recomputed
    digest line: refused, the journal recorded another digest). "detected" counts opens that behaved as they
    must and showed exactly the journal's from-scratch fold; "silently accepted" any other state."""
    import hashlib
    import json
    import shutil

    from solvi_lab.journal import Journal
    from solvi_lab.knowledge import KnowledgeStore
    from solvi_lab.knowledge.fold_snapshot import FORMAT, VERSION, snapshot_path

    n, flips, grows, forgeries = (300, 30, 6, 10) if quick else (2000, 300, 40, 60)
    rng = random.Random(seed)
    rows: list[Row] = []

    def reference(path: Path) -> str:
        with Journal(path, mode="r") as j:
            return json_state(KnowledgeStore.from_journal(j))

    def write(path: Path) -> None:
        with KnowledgeStore.open(path, snapshot=False) as ks:
            ks.write_snapshot()

    def count(row: Row, outcome: tuple[str, str]) -> None:
        kind, detail = outcome
        if kind == "other":
            row.tried += 1
            row.other[detail] += 1
        else:
            row.count(kind, detail)

    for backend in ("jsonl", "sqlite"):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            path = d / f"ks.{backend}"
            _snapshot_journal(path, n, seed)
            older = d / "older"  # the journal before its snapshot record (for the stale row)
            older.mkdir()
            side = [s for s in (".head",) if Path(str(path) + s).exists()]
            for suffix in ("", *side):
                shutil.copyfile(str(path) + suffix, str(older / path.name) + suffix)
            write(path)
            want = reference(path)
            sp = snapshot_path(path)
            good = sp.read_bytes()
            row = Row("fold snapshot damaged (byte change)", backend, note="refused with one warning, full fold")
            for _ in range(flips):
                bad = bytearray(good)
                bad[rng.randrange(len(bad))] ^= rng.randrange(1, 256)
                sp.write_bytes(bytes(bad))
                count(row, _open_outcome(path, want, expect_used=False))
            rows.append(row)
            body = good[: good.rfind(b"\n", 0, len(good) - 1) + 1]
            lines = body.split(b"\n")
            row = Row("fold snapshot forged (edited, re-digested)", backend, note="refused with one warning, full fold")
            for _ in range(forgeries):
                i = rng.randrange(1, len(lines) - 1)  # a row (not the header, not the empty tail)
                line = bytearray(lines[i])
                j = rng.randrange(len(line))
                while chr(line[j]) not in "0123456789abcdefghijklmnopqrstuvwxyz":
                    j = rng.randrange(len(line))
                line[j] = ord("1") if line[j] != ord("1") else ord("2")  # still JSON in most cases, a new value
                forged = b"\n".join(lines[:i] + [bytes(line)] + lines[i + 1 :])
                digest = hashlib.sha256(forged).hexdigest()
                sp.write_bytes(
                    forged + json.dumps({"digest": digest, "format": FORMAT, "version": VERSION}).encode() + b"\n"
                )
                count(row, _open_outcome(path, want, expect_used=False))
            rows.append(row)
            sp.write_bytes(good)
            if backend == "jsonl":  # the block of journal bytes a snapshot open checks without parsing it
                rows.append(_edited_before_snapshot(path, flips // 3, rng))
            row = Row("fold snapshot stale (journal grew after)", backend, note="")
            used_ok = refused_ok = 0
            for k in range(grows):
                with KnowledgeStore.open(path, snapshot=False) as ks:  # the journal grows: the snapshot is behind
                    for m in range(rng.randrange(1, 20)):
                        ks.add(
                            "fact", {"s": f"g{k}", "r": "tier", "o": m % 3}, source=rng.choice(["person", "outcome"])
                        )
                outcome = _open_outcome(path, reference(path), expect_used=True)
                used_ok += outcome[0] == "detected"
                count(row, outcome)
            # The journal replaced by an older copy (before the snapshot's record), which then grew otherwise.
            for suffix in ("", *side):  # a new file, as restoring a backup makes one
                Path(str(path) + suffix).unlink()
                shutil.copyfile(str(older / path.name) + suffix, str(path) + suffix)
            for k in range(grows):
                with KnowledgeStore.open(path, snapshot=False) as ks:
                    ks.add("fact", {"s": f"h{k}", "r": "tier", "o": k}, source="person")
                outcome = _open_outcome(path, reference(path), expect_used=False)
                refused_ok += outcome[0] == "detected"
                count(row, outcome)
            row.note = (
                f"{used_ok} grew after it: used, only the tail folded; {refused_ok} an older copy of the journal that "
                "grew otherwise: refused with one warning, full fold"
            )
            rows.append(row)
    return rows


def _edited_before_snapshot(path: Path, tries: int, rng: random.Random) -> Row:
    """A byte changed in a journal record before a valid snapshot's position (the block a snapshot open checks by
    its digest instead of parsing it): the open must raise CorruptJournal naming the record, as without a
    snapshot; an open that succeeds is "silently accepted"."""
    from solvi_lab.errors import CorruptJournal
    from solvi_lab.knowledge import KnowledgeStore
    from solvi_lab.knowledge.snapshot_load import SnapshotLoader

    good = path.read_bytes()
    block = SnapshotLoader(KnowledgeStore._empty()._fold, path).prefix.nbytes
    row = Row(
        "journal edited before its snapshot (byte change)", "jsonl", note="CorruptJournal naming the record at open"
    )
    for _ in range(tries):
        bad = bytearray(good)
        at = rng.randrange(block)
        while bad[at] == 10:  # a newline: another fault (a record split or joined) — keep this row to edits
            at = rng.randrange(block)
        bad[at] ^= rng.choice([1, 2, 4, 8, 16, 32, 64])
        if bad[at] == 10:
            bad[at] ^= 3
        path.write_bytes(bytes(bad))
        try:
            with KnowledgeStore.open(path, journal_options={"mode": "r"}) as ks:
                ks.fingerprint()
            row.count("silent", f"byte {at} changed: opened")
        except CorruptJournal as e:
            row.count("detected", str(e))
        except Exception as e:  # noqa: BLE001 - counted as "other exception"
            row.tried += 1
            row.other[type(e).__name__] += 1
    path.write_bytes(good)
    return row


def run(quick: bool) -> list[Row]:
    rows: list[Row] = []
    for backend in ("jsonl", "sqlite"):
        for fault, _ in FILE_FAULTS:
            with tempfile.TemporaryDirectory() as d:
                rows.append(run_file_fault(fault, backend, Path(d), full=not quick))
            _progress(rows[-1])
        for make in (
            lambda d, backend=backend: crash.sigkill(d, backend, 6 if quick else 110),
            lambda d, backend=backend: crash.second_writer(d, backend),
            lambda d, backend=backend: crash.two_threads(d, backend),
            lambda d, backend=backend: crash.two_processes(d, backend, 10 if quick else 40),
            lambda d, backend=backend: crash.reader_during_writes(d, backend, 15 if quick else 60),
        ):
            with tempfile.TemporaryDirectory() as d:
                rows.append(make(Path(d)))
            _progress(rows[-1])
    rows += write_rows(quick)
    for i, owner in enumerate(OWNERS):
        rows.append(fuzz_row(owner, 8 if quick else 60, 15, seed=i))
        _progress(rows[-1])
    rows += parquet_and_map_rows(quick)
    rows += bad_input_rows()
    for row in snapshot_rows(quick):
        rows.append(row)
        _progress(row)
    rows += issue40_rows(quick)
    rows += head_index_rows(quick)
    return rows


def write_rows(quick: bool) -> list[Row]:
    """Failed writes and other doors (solvi_lab/journal_faults/writes.py): disk full at every byte of a record,
    a read-only directory, a cut journal through a symlink / hard link, a SQLite head deleted, threads sharing a
    store, SIGKILL during multi-megabyte records."""
    rows = write_fault_rows(tempfile.TemporaryDirectory, quick)
    for r in rows:
        _progress(r)
    return rows


def bad_input_rows() -> list[Row]:
    """Issue 25, 6: a deep, huge or hostile value in every slot of every public call of every owner (constructors,
    classmethods, read and writing calls). detected = refused with the project's error; other = bare exceptions;
    silently accepted = refused but the journal changed; the note counts refusals that were generic, over 1,000
    characters or quoting over 80 characters of the value (0 each when the promise holds)."""
    from solvi_lab.journal_faults.inputs import OWNER_SPECS, run_owner

    out = []
    for spec in OWNER_SPECS:
        o = run_owner(spec)
        row = Row(f"bad input {spec.name}", "every call")
        row.tried, row.detected, row.other, row.silent = o.calls, o.refused, o.bare, o.grew
        row.note = (
            f"{o.accepted} accepted; refusals: {o.generic} generic, {o.long} over 1,000 chars, {o.quoted} quoting "
            f">80 chars, {o.named} naming the parameter"
        )
        row.examples = o.examples
        out.append(row)
        _progress(row)
    return out


def parquet_and_map_rows(quick: bool) -> list[Row]:
    """The files that are not journals (issue 25, 5): damaged Parquet exports, each trial in a worker process so
    an abort is counted, not fatal; and damaged or cut WorldMap map files."""
    with tempfile.TemporaryDirectory() as d:
        out = other_file_rows(Path(d), quick=quick)
    for r in out:
        _progress(r)
    return out


def _progress(row: Row) -> None:
    print(f"  … {row.backend} {row.fault}: {row.tried} tried", file=sys.stderr, flush=True)


def table(rows: list[Row]) -> str:
    head = (
        "| fault class | backend | tried | detected (with position) | other exception | silently accepted "
        "| acknowledged records lost | note |\n|---|---|---:|---:|---:|---:|---:|---|\n"
    )
    body = ""
    for r in rows:
        other = sum(r.other.values())
        other_text = f"{other} ({', '.join(f'{k} {v}' for k, v in r.other.items())})" if other else "0"
        body += (
            f"| {r.fault} | {r.backend} | {r.tried} | {r.detected} ({r.with_position}) | {other_text} | {r.silent} "
            f"| {'—' if r.lost is None else r.lost} | {r.note} |\n"
        )
    return head + body


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the CI-sized run")
    ap.add_argument(
        "--only", choices=["issue40", "head_index", "snapshot"], help="run only these rows (to faults_<name>.md)"
    )
    args = ap.parse_args()
    # Every journal this harness makes is temporary: the head index entries it writes go to a temporary folder
    # too, never the user's state folder (a row that tests the index sets its own).
    state = tempfile.TemporaryDirectory(prefix="solvi_lab_state_")
    os.environ["SOLVI_LAB_STATE_DIR"] = state.name
    t0 = time.time()
    only = {"issue40": issue40_rows, "head_index": head_index_rows, "snapshot": snapshot_rows}
    rows = only[args.only](args.quick) if args.only else run(args.quick)
    load = os.getloadavg()[0]
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load {load:.1f}"
    text = (
        f"Fault table ({'quick' if args.quick else 'full'}) — {stamp}, {machine}"
        f"{' (under load)' if load > 1 else ''}, {time.time() - t0:.0f} s\n\n" + table(rows)
    )
    print(text)
    for r in rows:
        for e in r.examples[:2]:
            if r.silent or r.other:
                print(f"  {r.fault} / {r.backend}: {e}")
    out = ROOT / "results" / "benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    name = f"faults_{args.only}" if args.only else "faults"
    (out / (f"{name}_quick.md" if args.quick else f"{name}.md")).write_text(text)
    from solvi_lab.journal_faults.page import regenerate

    if regenerate(ROOT / "docs" / "readme" / "journal.md", ROOT):
        print("docs/readme/journal.md: its fault-table blocks rendered from the stored files")
    state.cleanup()


if __name__ == "__main__":
    main()
