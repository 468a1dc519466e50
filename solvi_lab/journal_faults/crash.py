"""Crashes and concurrency: SIGKILL an appending process, two writers at once, a reader beside a writer.

Every child is a fresh Python process running `python -c <code>` with this package importable; it prints each
record id after `append` returned (the record is acknowledged) so the parent knows what must survive.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from ..errors import CorruptJournal, JournalLocked
from ..journal import Journal
from .files import Row

_ROOT = str(Path(__file__).resolve().parents[2])

_APPENDER = r"""
import sys, time
from solvi_lab.journal import Journal
path, backend, durability, start = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
pause = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
j = Journal(path, timestamps=time.time, durability=durability, checkpoint_every=7)
print("open", len(j), flush=True)
i = start
while True:
    j.append("tick", {"id": i, "pad": "x" * (i % 50)})
    print(i, flush=True)
    i += 1
    if pause:
        time.sleep(pause)
"""


def _child(code: str, *args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )


def _ids(path: Path) -> list[int]:
    with Journal(path, mode="r") as j:
        return [r.payload["id"] for r in j if r.kind == "tick"]


def sigkill(directory: Path, backend: str, kills: int, *, durability: str = "flush", seed: int = 0) -> Row:
    """Kill a child appending in a loop `kills` times at random moments; after each kill reopen (repairing a torn
    tail, as a user would) and check that every acknowledged id is in the journal."""
    rng = random.Random(seed)
    path = directory / ("killed." + backend)
    row = Row("SIGKILL while appending", backend, lost=0, note=f"durability={durability}")
    acknowledged: set[int] = set()
    next_id = 0
    for _ in range(kills):
        p = _child(_APPENDER, str(path), backend, durability, str(next_id))
        first = p.stdout.readline()
        if not first.startswith("open"):
            p.kill()
            err = p.stderr.read()
            p.wait()
            row.count("child failed to open", err[-300:])
            continue
        want = rng.randint(0, 40)
        for _ in range(want):
            line = p.stdout.readline()
            if line.strip().isdigit():
                acknowledged.add(int(line))
        time.sleep(rng.random() * 0.005)
        os.kill(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        acknowledged.update(int(x) for x in out.split() if x.isdigit())
        try:
            try:
                Journal(path).close()
                outcome, detail = "unchanged", ""
            except CorruptJournal as e:  # a torn last line: detected; the user repairs it
                outcome, detail = "detected", str(e)
                Journal.repair(path)
            got = set(_ids(path))
        except Exception as e:
            row.count(type(e).__name__, f"{type(e).__name__}: {e}"[:300])
            continue
        row.lost += len(acknowledged - got)
        row.count(outcome, detail)
        next_id = max(got | acknowledged, default=-1) + 1
    row.note += f"; {len(acknowledged)} acknowledged records"
    return row


_TRY_WRITE = r"""
import sys
from solvi_lab.journal import Journal
from solvi_lab.errors import JournalLocked
try:
    Journal(sys.argv[1]).close()
    print("opened")
except JournalLocked:
    print("locked")
"""


def second_writer(directory: Path, backend: str) -> Row:
    """A writer holds the journal; other processes and threads try to open it for writing through the path, a
    symlink, a hard link and another spelling. Each must be refused (detected = refused)."""
    path = directory / ("held." + backend)
    row = Row("second writer via path/symlink/hard link", backend)
    holder = Journal(path)
    holder.append("k", {})
    sym, hard = directory / ("sym." + backend), directory / ("hard." + backend)
    for p in (sym, hard):
        p.unlink(missing_ok=True)
    sym.symlink_to(path)
    os.link(path, hard)
    aliases = [path, sym, hard, directory / "." / path.name]
    try:
        for alias in aliases:  # another process
            out = _child(_TRY_WRITE, str(alias)).communicate()[0].strip()
            row.count("detected" if out == "locked" else "silent", f"process via {alias.name}: {out}")
        for alias in aliases:  # another thread of this process
            box: list[str] = []

            def attempt(a: Path = alias, box: list[str] = box) -> None:
                try:
                    Journal(a).close()
                    box.append("opened")
                except JournalLocked:
                    box.append("locked")
                except Exception as e:
                    box.append(type(e).__name__)

            t = threading.Thread(target=attempt)
            t.start()
            t.join()
            outcome = {"locked": "detected", "opened": "silent"}.get(box[0], box[0])
            row.count(outcome, f"thread via {alias.name}: {box[0]}")
    finally:
        holder.close()
    return row


def two_threads(directory: Path, backend: str, n: int = 300) -> Row:
    """Two threads append through one shared Journal at once; every acknowledged record must be there, chained."""
    path = directory / ("threads." + backend)
    row = Row("two threads appending through one Journal", backend, lost=0)
    j = Journal(path)
    acked: list[set[int]] = [set(), set()]
    errors: list[str] = []

    def work(k: int) -> None:
        try:
            for i in range(n):
                j.append("tick", {"id": k * n + i})
                acked[k].add(k * n + i)
        except Exception as e:
            errors.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    j.close()
    for e in errors:
        row.count(e.split(":")[0], e)
    try:
        with Journal(path, mode="r") as r:
            ok = bool(r.verify())
        got = set(_ids(path))
        row.lost = len((acked[0] | acked[1]) - got)
        row.count("unchanged" if ok and len(got) == 2 * n else "silent", f"{len(got)} records, verify {ok}")
    except Exception as e:
        row.count(type(e).__name__, str(e)[:300])
    return row


_LOCKSTEP = r"""
import sys, time
from solvi_lab.journal import Journal
from solvi_lab.errors import JournalLocked
path, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    while True:
        try:
            j = Journal(path)
            break
        except JournalLocked:
            time.sleep(0.001)
    j.append("tick", {"id": k * n + i})
    j.close()
    print(k * n + i, flush=True)
"""


def two_processes(directory: Path, backend: str, n: int = 40) -> Row:
    """Two processes write the same journal at once, each opening, appending and closing in a loop (the lock
    serialises them); every acknowledged record must be there and the chain whole."""
    path = directory / ("procs." + backend)
    row = Row("two processes writing at once", backend, lost=0)
    Journal(path).close()
    kids = [_child(_LOCKSTEP, str(path), str(k), str(n)) for k in (0, 1)]
    acked: set[int] = set()
    for p in kids:
        out, err = p.communicate()
        acked.update(int(x) for x in out.split() if x.isdigit())
        if p.returncode != 0:
            row.count("child failed", err[-300:])
    try:
        with Journal(path, mode="r") as r:
            ok = bool(r.verify())
        got = set(_ids(path))
        row.lost = len(acked - got)
        row.count("unchanged" if ok and got == acked else "silent", f"{len(got)} records of {len(acked)}")
    except Exception as e:
        row.count(type(e).__name__, str(e)[:300])
    return row


def reader_during_writes(directory: Path, backend: str, opens: int = 60) -> Row:
    """A child appends in a loop (checkpointing every 7 records) while this process opens the journal read-only
    again and again. Each open must load a whole, verified prefix: any exception is a false alarm (counted as
    other exception) and a shrinking journal as silently accepted."""
    path = directory / ("read." + backend)
    row = Row("reader opening during writes", backend)
    p = _child(_APPENDER, str(path), backend, "flush", "0", "0.002")
    p.stdout.readline()
    last = 0
    try:
        for _ in range(opens):
            p.stdout.readline()
            try:
                with Journal(path, mode="r") as r:
                    n = len(r)
                    ok = bool(r.verify()) if n else True
            except Exception as e:
                row.count(type(e).__name__, f"{type(e).__name__}: {e}"[:300])
                continue
            row.count("unchanged" if ok and n >= last else "silent", f"{n} records after {last}")
            last = max(last, n)
    finally:
        p.kill()
        p.communicate()
    return row


__all__ = ["reader_during_writes", "second_writer", "sigkill", "two_processes", "two_threads"]
