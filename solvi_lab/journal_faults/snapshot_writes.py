"""Faults while the fold snapshot is written (issue 40, 4): a full disk, and a kill mid-write.

A full disk is stood in for by the file size limit (`RLIMIT_FSIZE`, `SIGXFSZ` ignored), in a child process, as in
writes.py. The promise: `write_snapshot()` and `close(snapshot=True)` raise `JournalWriteFailed` (the project's
error), the journal is intact (it reopens equal to its replay), `close()` released the file and its lock (the same
process opens it again), and no temporary snapshot file is left. A SIGKILL during the write may leave the
temporary file; the writer's next open removes it.
"""

from __future__ import annotations

import json
import random
import signal
import time
from pathlib import Path

from .crash import _child
from .files import Row

__all__ = ["full_disk_snapshot", "kill_during_snapshot", "snapshot_write_rows"]


def _build(path: Path, n: int, seed: int = 0) -> None:
    """A closed store journal of `n` adds on a few keys (disputes among them), no snapshot."""
    from ..knowledge import KnowledgeStore

    rng = random.Random(seed)
    with KnowledgeStore.open(path, snapshot=False) as ks:
        for i in range(n):
            body = {"s": f"c{rng.randrange(n // 4 + 1)}", "r": "tier", "o": f"v{rng.randrange(3)}"}
            try:
                ks.add("fact", body, source=rng.choice(["person", "outcome"]), by=f"w{i}")
            except Exception:  # noqa: BLE001 - a journaled refusal
                pass


_FULL = r"""
import json, os, resource, signal, sys, warnings
from pathlib import Path
from solvi_lab.errors import JournalWriteFailed
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.knowledge.snapshot_files import stale_temps
path, trials = Path(sys.argv[1]), int(sys.argv[2])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing the process
warnings.simplefilter("ignore")  # a head checkpoint that cannot be written under the limit warns
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
fold = Path(str(path) + ".fold")

def say(*x):
    print(json.dumps(x), flush=True)

def replay(p):
    with KnowledgeStore.open(p, snapshot=False) as again:
        return again.fingerprint()

want = replay(path)
ks = KnowledgeStore.open(path)
size = os.path.getsize(ks.write_snapshot())  # the snapshot's size: the limits below cut it
ks.close(snapshot=False)
want = replay(path)
for t in range(trials):
    k = size * t // trials
    kind = "close" if t % 2 else "write"
    ks = KnowledgeStore.open(path)
    before = fold.read_bytes()
    resource.setrlimit(resource.RLIMIT_FSIZE, (k, hard))
    try:
        ks.write_snapshot() if kind == "write" else ks.close(snapshot=True)
        outcome, detail = "ok", ""
    except JournalWriteFailed as e:
        outcome, detail = "failed", str(e)[:200]
    except BaseException as e:
        outcome, detail = type(e).__name__, repr(e)[:200]
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    released = ks.journal.closed if kind == "close" else True
    if kind == "write":
        ks.close(snapshot=False)
    temps = len(stale_temps(fold))
    try:
        same = replay(path) == want  # opening again: the lock was released, the journal is whole
        reopened = True
    except BaseException as e:
        same, reopened, detail = False, False, detail + f" | reopen: {type(e).__name__}: {e}"[:200]
    say(kind, k, outcome, released and reopened, temps, same, fold.read_bytes() == before, detail)
say("done", size)
"""


def full_disk_snapshot(directory: Path, backend: str, trials: int = 24, records: int = 400) -> Row:
    """`trials` limits spread over the snapshot's size; half call write_snapshot(), half close(snapshot=True).
    detected = JournalWriteFailed with the journal intact, the lock released, no temporary file left and the
    previous snapshot file untouched; silent = an error-free call that left something wrong, or a promise broken
    after the error; other = any other exception."""
    path = directory / f"snapfull.{backend}"
    _build(path, records)
    row = Row("fold snapshot write on a full disk (RLIMIT_FSIZE), write_snapshot / close(snapshot=True)", backend)
    p = _child(_FULL, str(path), str(trials))
    out, err = p.communicate()
    size = 0
    for line in out.splitlines():
        what = json.loads(line)
        if what[0] == "done":
            size = what[1]
            continue
        kind, k, outcome, released, temps, same, kept, detail = what
        where = f"{kind} at a limit of {k} bytes"
        if outcome == "failed":
            ok = released and temps == 0 and same and kept
            row.count(
                "detected" if ok else "silent",
                f"{where}: lock released {released}, {temps} temporary "
                f"files, replay equal {same}, previous snapshot kept {kept}; {detail}",
            )
        elif outcome == "ok":
            row.count("silent", f"{where}: no error although the snapshot cannot fit")
        else:
            row.count(outcome, f"{where}: {detail}")
    if p.returncode != 0 or not size:
        row.count("child failed", err[-400:])
    row.note = (
        f"limits at {trials} points of the {size:,}-byte snapshot, half write_snapshot(), half close(snapshot=True): "
        "JournalWriteFailed, the journal reopens equal to its replay, the lock released, no temporary file left, "
        "the previous snapshot file unchanged"
    )
    return row


_LOOP = r"""
import os, sys, time
from solvi_lab.knowledge import KnowledgeStore
real = os.fsync
def slow(fd):  # the window in which the temporary file exists, widened so that kills land in it
    time.sleep(0.02)
    real(fd)
os.fsync = slow
ks = KnowledgeStore.open(sys.argv[1])
print("open", flush=True)
while True:
    ks.write_snapshot()
"""


def kill_during_snapshot(directory: Path, backend: str, kills: int = 10, records: int = 400, seed: int = 0) -> Row:
    """SIGKILL a child that writes fold snapshots in a loop, at random moments; then open the store. detected = a
    kill that left a temporary file, which the open removed; unchanged = a kill that left none; silent = a
    temporary file that outlived the next open, or a store that does not equal its journal's replay."""
    from ..knowledge import KnowledgeStore
    from ..knowledge.snapshot_files import stale_temps

    rng = random.Random(seed)
    path = directory / f"snapkill.{backend}"
    _build(path, records)
    fold = Path(str(path) + ".fold")
    row = Row("SIGKILL while writing a fold snapshot: temporary files after the next open", backend)
    left_total = 0
    for _ in range(kills):
        p = _child(_LOOP, str(path))
        if not p.stdout.readline().startswith("open"):
            p.kill()
            row.count("child failed", p.stderr.read()[-300:])
            p.wait()
            continue
        time.sleep(rng.uniform(0.0, 0.3))
        p.send_signal(signal.SIGKILL)
        p.wait()
        left = len(stale_temps(fold))
        left_total += left
        try:
            with KnowledgeStore.open(path) as ks:
                after = len(stale_temps(fold))
                same = ks.fingerprint() == KnowledgeStore.from_journal(ks.journal).fingerprint()
        except Exception as e:  # noqa: BLE001 - counted
            row.count(type(e).__name__, f"open after the kill: {e}"[:300])
            continue
        if after or not same:
            row.count("silent", f"{after} temporary files after the open; store = replay {same}")
        else:
            row.count("detected" if left else "unchanged")
    row.note = f"{left_total} temporary files left by {kills} kills, 0 after each next open"
    return row


def snapshot_write_rows(directory_factory, quick: bool) -> list[Row]:
    """Both rows for both backends (CI size with `quick`)."""
    rows = []
    for backend in ("jsonl", "sqlite"):
        with directory_factory() as d:
            rows.append(full_disk_snapshot(Path(d), backend, trials=8 if quick else 48))
        with directory_factory() as d:
            rows.append(kill_during_snapshot(Path(d), backend, kills=4 if quick else 24))
    return rows
