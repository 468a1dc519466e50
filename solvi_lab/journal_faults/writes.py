"""Faults where a write fails or a journal is reached another way: a full disk at every byte of a record, a
read-only directory, a cut journal opened through a symlink or a hard link, a SQLite head deleted, threads sharing
one store, and SIGKILL while multi-megabyte records are written.

A full disk is stood in for by the file size limit (`RLIMIT_FSIZE`, with `SIGXFSZ` ignored): a write past the limit
fails with EFBIG exactly where one past the free space would fail with ENOSPC. It runs in a child process, so the
limit never touches the caller. A read-only directory is made with `chattr +i` (root, on a file system that has
the immutable flag) or, for a user other than root, `chmod 555`; the row's note says which (or that neither could).
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

from ..errors import BadInput, CorruptJournal, JournalWriteFailed, UnknownId, WriteRefused
from ..journal import GENESIS, Journal
from .crash import _child, _ids
from .files import Row, _lines, _put_lines, _put_rows, _rows, build

# -- a full disk at every byte ---------------------------------------------------------------------------------

_DISK_FULL = r"""
import json, os, resource, signal, sys, warnings
from solvi_lab.journal import Journal
from solvi_lab.errors import JournalWriteFailed
path, backend, every, step, pad = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing the process
warnings.simplefilter("ignore")  # a checkpoint that fails after a durable record: read from checkpoint_failure
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
wal = path + "-wal"

def size():  # where the next record's bytes go: the JSONL file's end, the SQLite WAL's end
    return os.path.getsize(path if backend == "jsonl" else wal)

def rows():
    if backend == "jsonl":
        with open(path, "rb") as f:
            return f.read()
    return j._backend.db.execute("SELECT count(*), max(position) FROM records").fetchone()

def say(*x):
    print(json.dumps(x), flush=True)

j = Journal(path, checkpoint_every=every, checkpoint_seconds=0)
if backend == "sqlite":  # the WAL never restarts from its start, so every byte offset swept is past the limit
    j._backend.db.execute("PRAGMA wal_autocheckpoint=0")
i = 0
def add():
    global i
    j.append("tick", {"id": f"{i:07d}", "pad": "é" * pad})
    i += 1
# 110 first: every swept record then has a 3-digit position (the same length), and the SQLite WAL is past its
# 32 KiB -shm, so the limit bites in the record's own frames.
for _ in range(110):
    add(); say("ack", i - 1)
before = size(); add(); say("ack", i - 1)
span = size() - before  # the bytes one record adds (SQLite: its frames and its head checkpoint's, every=1)
for k in range(0, span + 1, step):
    base, n, snap = size(), len(j), rows()
    resource.setrlimit(resource.RLIMIT_FSIZE, (base + k, hard))
    try:
        add()
        outcome = "ok"
    except JournalWriteFailed as e:
        outcome, i = "failed", i + 1
        detail = str(e)
    except BaseException as e:
        outcome, i = type(e).__name__, i + 1
        detail = repr(e)[:300]
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    changed = outcome != "ok" and (len(j) != n or rows() != snap)
    say(outcome, i - 1, k, changed, bool(j.checkpoint_failure), "" if outcome == "ok" else detail)
    add(); say("ack", i - 1)  # the space is back: the same writer goes on
    if (k // step) % 25 == 0 and not j.verify():  # every 25th try (a walk of the whole chain); the end reopens all
        say("verify-false", i - 1, k)
j.close()
say("done", span)
"""


def disk_full(directory: Path, backend: str, *, step: int = 1, every: int = 1, pad: int = 60) -> Row:
    """Limit the file size to every byte offset of one record (step=1; SQLite: of the WAL frames one record and its
    head checkpoint add, with a checkpoint after every record: every=1) and append; after each try lift the limit and append again with the same writer. Every failed append must raise
    JournalWriteFailed and leave the file and the writer as they were; every acknowledged record must be in the
    journal reopened at the end, and no record whose append raised may be."""
    path = directory / ("full." + backend)
    row = Row("disk full at every byte of a record (RLIMIT_FSIZE)", backend, lost=0)
    p = _child(_DISK_FULL, str(path), backend, str(every), str(step), str(pad))
    out, err = p.communicate()
    acked: set[int] = set()
    failed: set[int] = set()
    cp_failed = span = 0
    for line in out.splitlines():
        what = json.loads(line)
        if what[0] == "ack":
            acked.add(what[1])
        elif what[0] == "done":
            span = what[1]
        elif what[0] == "verify-false":
            row.count("silent", f"verify() false after the try at byte {what[2]}")
        else:
            outcome, rid, k, changed, cp, detail = what
            if outcome == "ok":
                acked.add(rid)
                cp_failed += cp
                row.count("unchanged")
            elif outcome == "failed":
                failed.add(rid)
                row.count(
                    "silent" if changed else "detected",
                    f"byte {k}: " + ("the failed append changed the journal" if changed else detail),
                )
            else:
                failed.add(rid)
                row.count(outcome, f"byte {k}: {detail}")
    if p.returncode != 0 or not span:
        row.count("child failed", err[-400:])
        return row
    try:
        with Journal(path) as j:
            ok = bool(j.verify())
            got = {int(r.payload["id"]) for r in j}
    except Exception as e:
        row.count(type(e).__name__, f"reopen: {type(e).__name__}: {e}"[:300])
        return row
    row.lost = len(acked - got)
    persisted = failed & got
    for rid in sorted(persisted)[:3]:
        row.examples.append(f"record {rid} persisted although its append raised")
    row.silent += len(persisted) + (not ok)
    row.note = (
        f"{span} bytes per record swept (step {step}); {len(failed)} appends refused, {len(acked)} acknowledged; "
        f"{cp_failed} checkpoints failed after a durable record (warned; the append succeeded)"
    )
    return row


# -- a read-only directory -------------------------------------------------------------------------------------


def _chattr(flag: str, directory: Path) -> bool:
    try:
        return subprocess.run(["chattr", flag, str(directory)], capture_output=True).returncode == 0
    except OSError:
        return False


def _read_only(directory: Path, on: bool) -> str:
    """Make `directory` read-only (on) or writable again; return how: "chattr +i" (root, a file system with the
    immutable flag), "chmod 555" (a user other than root, for whom permissions hold), or "" when neither can."""
    import os

    if _chattr("+i" if on else "-i", directory):
        return "chattr +i"
    if os.geteuid() != 0:
        directory.chmod(0o555 if on else 0o755)
        return "chmod 555"
    return ""


def read_only_directory(directory: Path, backend: str, appends: int = 20) -> Row:
    """A journal in a directory made read-only (`chattr +i`, or `chmod 555` for a user other than root). Closed first (no SQLite side files): a reader
    opens it; a writer opened in it appends (JSONL; its checkpoints warn) or is refused with JournalWriteFailed
    (SQLite cannot make its -wal/-shm files) — never CorruptJournal; a new journal there and Journal.repair are
    refused with JournalWriteFailed. Then a writer
    opened while the directory was writable goes on after it became read-only, and one opened after it (SQLite:
    beside the side files the first left). Made writable again, every acknowledged record must be there and no
    refused one. detected = a refusal with JournalWriteFailed; unchanged = the call worked."""
    ro = directory / "ro"
    ro.mkdir()
    path = ro / ("j." + backend)
    row = Row("read-only directory", backend, lost=0)
    with Journal(path) as j:
        for i in range(5):
            j.append("tick", {"id": i})
    acked, tried_ids = set(range(5)), set()
    nid, warned = 5, 0

    def attempt(what: str, fn) -> None:
        nonlocal warned
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                fn()
                row.count("unchanged", what)
            except JournalWriteFailed as e:
                row.count("detected", f"{what}: {e}")
            except Exception as e:  # CorruptJournal here would call an intact file damaged
                row.count(type(e).__name__, f"{what}: {type(e).__name__}: {e}"[:300])
        warned += len(w)

    def write_with(j: Journal) -> None:
        nonlocal nid
        for _ in range(appends):
            tried_ids.add(nid)
            j.append("tick", {"id": nid})
            acked.add(nid)
            nid += 1

    def new_writer() -> None:
        with Journal(path, checkpoint_every=3) as j:
            write_with(j)

    def reader() -> None:
        with Journal(path, mode="r") as j:
            if not j.verify() or len(j) < len(acked):
                raise AssertionError(f"read {len(j)} records, {len(acked)} acknowledged")

    def new_journal() -> None:
        Journal(ro / ("new." + backend)).close()

    how = _read_only(ro, True)
    if not how:
        row.note = "not run: neither chattr +i nor permissions make a directory read-only for root here"
        return row
    try:
        attempt("reader, journal closed", reader)
        attempt("writer opened in it, appending", new_writer)
        attempt("new journal in it", new_journal)
        attempt("Journal.repair in it", lambda: Journal.repair(path))
    finally:
        _read_only(ro, False)
    early = Journal(path, checkpoint_every=3)  # opened while the directory was writable
    _read_only(ro, True)
    try:
        attempt("writer opened before, appending", lambda: write_with(early))
        attempt("that writer closing", early.close)
        attempt("writer opened after it, appending", new_writer)
        attempt("reader after the writers", reader)
    finally:
        early.close()
        _read_only(ro, False)
    try:
        got = set(_ids_any(path))
        row.lost = len(acked - got)
        row.silent += len((tried_ids - acked) & got)
    except Exception as e:
        row.count(type(e).__name__, f"reopen: {e}"[:300])
    row.note = f"made read-only with {how}; {len(acked)} acknowledged; {warned} checkpoint warnings (records safe)"
    return row


def _ids_any(path: Path) -> list[int]:
    with Journal(path) as j:
        if not j.verify():
            raise CorruptJournal(f"{path}: verify() false")
        return [r.payload["id"] for r in j]


# -- a cut journal reached through a symlink or a hard link -----------------------------------------------------


def cut_through_links(directory: Path, backend: str, n: int = 24) -> Row:
    """A journal cut in place at every record boundary, opened through a symlink and through a hard link to it:
    the head checkpoint follows the file (JSONL: its extended attribute and the .head beside its real path;
    SQLite: the head table), so every open must raise CorruptJournal."""
    import os

    ext = "." + backend
    clean, work = directory / ("clean" + ext), directory / ("work" + ext)
    sym, hard = directory / ("sym" + ext), directory / ("hard" + ext)
    build(clean, n)
    row = Row("cut at a record boundary, opened via symlink / hard link", backend)
    for keep in range(n):
        for alias in (sym, hard):
            for p in directory.glob("work*"):
                p.unlink()
            for p in (sym, hard):
                p.unlink(missing_ok=True)
            shutil.copy2(clean, work)  # a copy as the writer left it: its extended attributes too
            if Path(str(clean) + ".head").exists():
                shutil.copyfile(str(clean) + ".head", str(work) + ".head")
            if backend == "sqlite":
                _put_rows(work, _rows(work)[:keep])
            else:
                _put_lines(work, _lines(work)[:keep])  # in place: same inode
            sym.symlink_to(work)
            os.link(work, hard)
            what = f"cut to {keep}, via {alias.name}"
            try:
                with Journal(alias) as j:
                    row.count("silent", f"{what}: opened with {len(j)} records")
            except CorruptJournal as e:
                row.count("detected", f"{what}: {e}")
            except Exception as e:
                row.count(type(e).__name__, f"{what}: {type(e).__name__}: {e}"[:300])
    return row


# -- a SQLite head deleted ---------------------------------------------------------------------------------------


def missing_sqlite_head(directory: Path) -> Row:
    """The SQLite head row deleted, or its table dropped: a writer's open, a reader's open and an open writer's
    verify() must each report it (a journal gets its head row with its tables, so it is never legitimately gone)."""
    row = Row("SQLite head row / table deleted", "sqlite")
    for how in ("DELETE FROM head", "DROP TABLE head"):
        path = directory / f"h{len(how)}.sqlite"
        build(path, 6)
        db = sqlite3.connect(path)
        with db:
            db.execute(how)
        db.close()
        for mode in ("a", "r"):
            try:
                Journal(path, mode=mode).close()
                row.count("silent", f"{how}: opened (mode={mode})")
            except CorruptJournal as e:
                row.count("detected", f"{how}, mode={mode}: {e}")
            except Exception as e:
                row.count(type(e).__name__, f"{how}, mode={mode}: {e}"[:300])
        Journal.repair(path)  # writes the head again
        with Journal(path) as j:
            db = sqlite3.connect(path)
            with db:
                db.execute(how)
            db.close()
            report = j.verify()
            row.count("silent" if report else "detected", f"{how} while open: verify() {report.problem}")
            db = sqlite3.connect(path)  # put it back so the close's checkpoint has a table to write to
            with db:
                db.execute("CREATE TABLE IF NOT EXISTS head (id INTEGER PRIMARY KEY, count INTEGER, hash TEXT)")
                db.execute("INSERT OR REPLACE INTO head VALUES (0, 0, ?)", (GENESIS,))
            db.close()
    return row


# -- threads sharing one store -----------------------------------------------------------------------------------


def _threads_run(path: Path, threads: int, calls: int, rng: random.Random) -> tuple[list[str], bool]:
    """One run of store_threads: (errors raised in the threads, live state == replay == reopened and verify())."""
    from ..decisions import DecisionLog
    from ..knowledge import KnowledgeStore

    ks = KnowledgeStore(path)
    log = DecisionLog(ks.journal)
    errors: list[str] = []

    def work(rnd: random.Random) -> None:
        mine: list[str] = []
        for i in range(calls):
            c = rnd.random()
            try:
                if c < 0.1 and mine:
                    ks.retract(mine.pop(rnd.randrange(len(mine))), by="t", why="thread test")
                elif c < 0.15:
                    ks.tick()
                else:
                    derived = mine[-1:] if c > 0.9 else ()
                    body = {"s": f"c{i % 5}", "r": "tier", "o": f"v{rnd.randrange(3)}"}
                    mine.append(ks.add("fact", body, source="person", derived_from=derived))
            except (WriteRefused, BadInput, UnknownId):
                pass  # a journaled refusal, or a retraction of an item already taken back with its premise
            except Exception as e:
                errors.append(f"{type(e).__name__}: {e}"[:300])
                return

    def decide() -> None:
        try:
            for i in range(calls):
                log.record("pick", {"i": i}, i % 3, answered_by="system2")
        except Exception as e:
            errors.append(f"{type(e).__name__}: {e}"[:300])

    ts = [threading.Thread(target=work, args=(random.Random(rng.random()),)) for _ in range(threads)]
    ts.append(threading.Thread(target=decide))
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    live, ok = ks.state(), bool(ks.verify())
    replay = KnowledgeStore.from_journal(ks.journal).state()
    ks.close()
    with KnowledgeStore(path) as again:
        reopened = again.state()
    return errors, ok and live == replay == reopened


def store_threads(directory: Path, runs: int, *, threads: int = 4, calls: int = 120, seed: int = 0) -> Row:
    """`threads` threads write to one KnowledgeStore at once (adds on shared keys, so disputes open and settle, plus
    retractions and ticks), one more writes decisions through a DecisionLog on the same journal, with a switch
    interval of 1 µs; after each run the live store must equal its journal's replay (and the reopened file) and
    verify(). unchanged = a run that ended so; silent = one that did not; other = an exception in a thread."""
    row = Row(f"{threads} threads writing one store (+1 decision log), switch interval 1 µs", "jsonl", lost=0)
    rng = random.Random(seed)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for r in range(runs):
            errors, same = _threads_run(directory / f"threads{r}.jsonl", threads, calls, rng)
            for e in errors:
                row.count(e.split(":")[0], e)
            if not errors:
                row.count("unchanged" if same else "silent", f"run {r}: live state differs from the replay")
    finally:
        sys.setswitchinterval(old)
    row.note = f"{row.unchanged} of {runs} runs: live state = journal replay = reopened file, verify() true"
    return row


# -- SIGKILL while writing large records -------------------------------------------------------------------------

_BIG_APPENDER = r"""
import random, sys
from solvi_lab.journal import Journal
path, start, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
j = Journal(path, checkpoint_every=3)
print("open", len(j), flush=True)
i = start
while True:
    j.append("tick", {"id": i, "pad": "x" * rng.randint(1 << 20, 4 << 20)})
    print(i, flush=True)
    i += 1
"""


def large_record_kill(directory: Path, backend: str, kills: int, seed: int = 0) -> Row:
    """SIGKILL a child appending 1–4 MB records at random moments. A kill inside a record's write may tear that one
    record (detected on open, moved aside by Journal.repair: it was never acknowledged); no acknowledged record may
    be lost. detected = kills that left a torn (or otherwise refused) last record."""
    rng = random.Random(seed)
    path = directory / ("big." + backend)
    row = Row("SIGKILL while appending 1–4 MB records", backend, lost=0)
    acked: set[int] = set()
    next_id = 0
    for k in range(kills):
        p = _child(_BIG_APPENDER, str(path), str(next_id), str(seed * 1000 + k))
        if not p.stdout.readline().startswith("open"):
            p.kill()
            row.count("child failed", p.communicate()[1][-300:])
            continue
        for _ in range(rng.randint(0, 2)):
            line = p.stdout.readline()
            if line.strip().isdigit():
                acked.add(int(line))
        time.sleep(rng.random() * 0.03)
        p.send_signal(signal.SIGKILL)
        out, _ = p.communicate()
        acked.update(int(x) for x in out.split() if x.isdigit())
        try:
            try:
                Journal(path).close()
                outcome, detail = "unchanged", ""
            except CorruptJournal as e:
                outcome, detail = "detected", str(e)
                Journal.repair(path)
            got = set(_ids(path))
        except Exception as e:
            row.count(type(e).__name__, f"{type(e).__name__}: {e}"[:300])
            continue
        row.lost += len(acked - got)
        row.count(outcome, detail)
        next_id = max(got | acked, default=-1) + 1
    for p in directory.glob("big*.torn*"):
        p.unlink()
    row.note = f"{len(acked)} acknowledged records; detected = a torn last record, repaired"
    return row


def write_fault_rows(directory_factory, quick: bool) -> list[Row]:
    """Every row of this module, in the table's order. `directory_factory()` gives a context manager yielding a
    fresh directory (tempfile.TemporaryDirectory in the benchmark)."""
    rows: list[Row] = []
    plan = []
    for backend in ("jsonl", "sqlite"):
        step = (7 if backend == "jsonl" else 97) if quick else 1
        plan += [
            lambda d, b=backend, s=step: disk_full(d, b, step=s),
            lambda d, b=backend: read_only_directory(d, b),
            lambda d, b=backend: cut_through_links(d, b, 8 if quick else 24),
            lambda d, b=backend: large_record_kill(d, b, 4 if quick else 15),
        ]
    plan += [missing_sqlite_head, lambda d: store_threads(d, 3 if quick else 50)]
    for make in plan:
        with directory_factory() as d:
            rows.append(make(Path(d)))
    return rows


__all__ = [
    "cut_through_links",
    "disk_full",
    "large_record_kill",
    "missing_sqlite_head",
    "read_only_directory",
    "store_threads",
    "write_fault_rows",
]
