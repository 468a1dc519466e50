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

    python benchmarks/faults.py            # the full table (a few minutes)
    python benchmarks/faults.py --quick    # the CI-sized table (tests/faults/ runs the same rows)

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
    args = ap.parse_args()
    t0 = time.time()
    rows = run(args.quick)
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
    (out / ("faults_quick.md" if args.quick else "faults.md")).write_text(text)


if __name__ == "__main__":
    main()
