"""Reads without the journal's lock while the main thread is the only one that has used a journal owner.

Its one job: say when a public read may skip the lock, soundly and for about 80 ns instead of the lock's ~200. Every
public read of an owner holds its journal's lock (issue 40: a read may settle lazy state, and must never see a
write of another thread half done). In a program that never calls an owner from a second thread — a notebook, a
script, a benchmark — that lock guards against nothing, yet it was the largest cost of the hot reads
(`ks.status`, `ks.item`, `in`, `len`; issue 41). So:

- `THREADS.shared` turns True, for good, the first time a thread other than the main one asks for an owner's lock
  (`validation.write_lock`, and the reads' own lock look-ups call `other_thread()` first). From then on every read
  takes the lock, as before.
- A read in the main thread while `shared` is False skips it. It announces itself first (`THREADS.reading += 1`)
  and looks at `shared` after; the other thread sets `shared` first and waits while `reading` is not 0. Under the
  GIL one of the two sees the other (Dekker's handshake): either the read sees `shared` and takes the lock, or the
  other thread waits until the read is done before it takes the lock and writes.

A read called inside a lone read (a public read that calls another) goes on without the lock even once `shared` is
set: the other thread is waiting for the outer read anyway, and taking the lock there could wait for a thread that
holds it (`with ks.journal.lock:`) while it waits for the outer read. The store's hot reads leave that case to their
twins, which follow this rule.

Why not `threading.active_count() == 1`: it costs more than the lock (it takes a lock itself), and neither it nor
`_thread._count()` sees a thread started outside the threading module — one a C extension starts and enters Python
with (PyGILState_Ensure: a ctypes callback, a PyO3 or pybind11 worker pool). Here every thread but the main one is
caught where it asks for the lock, however it was started. A thread that took the lock and exited without releasing
it changes nothing here: the lock is not what a lone read looks at, and nobody can be writing.

Not covered, on purpose: a finalizer or a signal handler that writes to an owner in the middle of the main thread's
read (the reentrant lock never kept the thread's own code out either). On a build without the GIL the handshake is
not relied on: `shared` starts True. A fork's child starts with no read in flight; its thread is the main one.

>>> THREADS.reading
0
>>> lone_read_allowed() in (True, False)
True
"""

from __future__ import annotations

import os
import sys
import threading
import time
from _thread import get_ident

__all__ = ["THREADS", "get_ident", "lone_read_allowed", "other_thread"]


class _Threads:
    """`main`: the main thread's id; `shared`: a thread other than the main one has asked for an owner's lock (never
    reset); `reading`: reads the main thread has in flight without the lock."""

    __slots__ = ("main", "reading", "shared")

    def __init__(self) -> None:
        self.main = threading.main_thread().ident
        self.shared = not getattr(sys, "_is_gil_enabled", lambda: True)()  # no GIL: no handshake to rely on
        self.reading = 0


THREADS = _Threads()


def other_thread() -> None:
    """Called before a thread takes an owner's lock: if it is not the main thread, every read takes the lock from now
    on, and a read the main thread has in flight without it is let finish first."""
    th = THREADS
    if th.shared or get_ident() == th.main:
        return
    th.shared = True  # first, then look at `reading` (the read does the reverse)
    while th.reading:
        time.sleep(0)  # the main thread's read is running without the lock: let it finish (it waits on nothing)


def lone_read_allowed() -> bool:
    """Whether a read in this thread may skip the lock now (the main thread, no other thread seen). A hot read inlines
    this test and the handshake: see knowledge/store_reads.py."""
    th = THREADS
    return not th.shared and get_ident() == th.main


def _after_fork_in_child() -> None:
    # the child runs only the thread that forked: it is the main one now, and no read of the parent is in flight
    THREADS.main = get_ident()
    THREADS.reading = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
