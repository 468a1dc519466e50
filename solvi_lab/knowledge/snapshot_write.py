"""Writing a fold snapshot (knowledge/fold_snapshot.py has the format): the file, then the record naming it.

Its one job: write a live store's fold as `<journal>.fold` (the rows of knowledge/snapshot_rows.py, digest line
last, through a temporary file: knowledge/snapshot_files.py), append the ``fold-snapshot`` record that names its
digest and vouch for it; and decide when `close()` writes one (`close_store`) and when an open freezes the collector
(`freeze_after_load`). It takes the store (its journal, lock and flags) and reads its fold; it may not change the
fold or read a snapshot.
"""

from __future__ import annotations

import gc
import hashlib
import os
import warnings
from pathlib import Path
from typing import Any

from ..errors import BadInput, JournalWriteFailed, SolviLabError
from ..validation import write_lock
from . import digests
from .fold_snapshot import FORMAT, MARKER_KIND, VERSION, FoldSnapshotIgnored, _dumps, rules_stamp, snapshot_path
from .snapshot_files import make_temp, write_failed
from .snapshot_rows import _lines

_WRITE_CHUNK = 1 << 20  # bytes gathered before one write and one hash update


def write_snapshot(st: Any) -> Path:
    """Write `st`'s folded state at its journal's head beside the journal file, then record its digest in the
    journal (a ``fold-snapshot`` record). Returns the file's path. `KnowledgeStore.write_snapshot()` calls this;
    `close()` does too, by default, for a journal of at least `KnowledgeStore.SNAPSHOT_MIN_RECORDS` records.
    """
    j = st.journal
    if st._read_only or j is None or j.path is None:
        raise BadInput("write_snapshot() needs a live store on a journal file (KnowledgeStore.open(path)).")
    if j.closed or j.mode != "a":
        raise BadInput("write_snapshot() needs the journal open for appending (it records the snapshot's digest).")
    with write_lock(st):  # no other writer between the state written and the record that names it
        return _write_snapshot(st, j)


def _write_snapshot(st: Any, j: Any) -> Path:
    if st._diverged:
        raise BadInput(
            f"this store {st._diverged}; a fold snapshot is written only from a state never seen to differ. "
            "Open the journal again (it is folded from scratch) and write the snapshot from that store."
        )
    st._catch_up()
    fold = st._fold
    fold._flush_digests()  # a write (under the lock): the digests the rows carry are settled
    build_all = getattr(fold._items, "build_all", None)
    if build_all is not None:
        build_all()  # the rows are written from built items anyway; recomputed() then hashes them once
    fingerprint, _, kept = digests.recomputed(fold)  # from the items, questions and flags, not the kept digests
    if kept or fingerprint != digests.fingerprint(fold):
        st._diverged = "holds digests that differ from its items (" + (kept or "fingerprint") + ")"
        raise BadInput(
            f"this store {st._diverged}; no fold snapshot is written from it. Open the journal again (it is folded "
            "from scratch) and write the snapshot from that store."
        )
    path, marker = _write_file(fold, j, fingerprint)
    rec = j.append(MARKER_KIND, marker)
    j.vouch(rec.position)  # this writer wrote it: its head checkpoint names it (what the next open requires)
    try:
        j.checkpoint()  # the vouch on disk now: a writer killed after this point still opens from the snapshot
    except JournalWriteFailed:
        pass  # the records are safe; the vouch is written with the next checkpoint, or at close
    st._catch_up()  # the record only moves the store's position
    st._snapshot_at = marker["position"]
    return path


def _write_file(st: Any, j: Any, fingerprint: str) -> tuple[Path, dict]:
    """Write the file of the fold `st`'s state at `j`'s head; return its path and the payload of the record naming it."""
    n = j.position
    if n == 0:
        raise BadInput("the journal is empty: there is nothing to snapshot yet.")
    if st.position != n:
        raise BadInput(f"the store folded {st.position} of the journal's {n} records; cannot snapshot it.")
    first = j[0].hash
    last = j.last_hash
    stamp = rules_stamp()
    path = snapshot_path(j.path)
    counts = {"items": len(st._items), "keys": len(st._keys), "flags": len(st._flags.flags)}
    try:
        nbytes, prefix_sha = _journal_bytes(j)
    except OSError as e:
        raise write_failed(path, e) from e
    header = {
        "position": n,
        "last_hash": last,
        "first_hash": first,
        "rules": stamp,
        "counts": counts,
        "journal_bytes": nbytes,
        "journal_sha256": prefix_sha,
    }
    h = hashlib.sha256()
    try:
        fd, tmp = make_temp(path)
    except OSError as e:  # a read-only directory, no inode left
        raise write_failed(path, e) from e
    try:
        meta: list[int] = []
        with os.fdopen(fd, "wb") as f:
            chunk, size = [], 0
            for line in _lines(header, st, meta):
                chunk.append(line)
                size += len(line)
                if size >= _WRITE_CHUNK:
                    data = b"".join(chunk)
                    h.update(data)
                    f.write(data)
                    chunk, size = [], 0
            data = b"".join(chunk)
            h.update(data)
            f.write(data)
            digest = h.hexdigest()
            top = {"digest": digest, "format": FORMAT, "version": VERSION, "meta_at": meta[0]}
            f.write(_dumps(top) + b"\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)  # nothing of a failed snapshot is left (a kill leaves it: next open)
        if isinstance(e, OSError) and not isinstance(e, SolviLabError):  # a full disk, the file size limit, EIO
            raise write_failed(path, e) from e
        raise
    return path, {"position": n, "last_hash": last, "digest": digest, "rules": stamp, "fingerprint": fingerprint}


def _journal_bytes(j: Any) -> tuple[int | None, str | None]:
    """(length, SHA-256) of a JSONL journal's bytes up to its head — what the next open checks as one block instead
    of parsing those records (Journal(skip_prefix=...)); (None, None) for another backend (its load is the full
    one)."""
    end = getattr(j._backend, "end", None)
    if type(end) is not int or end <= 0:
        return None, None
    h, left = hashlib.sha256(), end
    with open(j.path, "rb") as f:
        while left:
            chunk = f.read(min(1 << 24, left))
            if not chunk:
                raise BadInput(f"{j.path}: the journal file is shorter than its records; cannot snapshot it.")
            h.update(chunk)
            left -= len(chunk)
    return end, h.hexdigest()


def close_store(st: Any, snapshot: bool | None) -> None:
    """What `KnowledgeStore.close(snapshot)` does before closing the journal. True: write a snapshot (raising if it
    cannot). False: none. None (the default): write one when the store was opened with snapshot=True (the default),
    the journal is open for appending and holds at least `SNAPSHOT_MIN_RECORDS` records, and the store has no usable
    snapshot or the one it has is at least that many records behind the head — a shorter tail folds quickly, and
    rewriting the whole state for it at every close would cost more than it saves. A snapshot that cannot be
    written then only warns (FoldSnapshotIgnored): the journal is closed anyway."""
    if snapshot:
        write_snapshot(st)
        return
    j = st.journal
    if snapshot is not None or not st._snapshot_on_close or st._read_only or j is None or j.path is None:
        return
    if st._diverged:
        return  # verify() said so already; a snapshot is written only from a state never seen to differ
    if j.closed or j.mode != "a" or j.position < st.SNAPSHOT_MIN_RECORDS:
        return
    if st._snapshot_at is not None and j.position - st._snapshot_at < st.SNAPSHOT_MIN_RECORDS:
        return
    try:
        write_snapshot(st)
    except Exception as e:  # noqa: BLE001 - a snapshot is an optimisation: closing must still close
        warnings.warn(f"{j.path}: no fold snapshot written on close ({type(e).__name__}: {e}).", FoldSnapshotIgnored, 3)


def freeze_after_load(st: Any) -> None:
    """After a large journal's load: move every object alive now to the collector's permanent generation
    (gc.freeze), so that the first collection after the open — the first read, usually — and the interpreter's exit
    do not walk the new store (measured at 10^5: 0.5 s and 1.5-4.7 s before). Frozen objects are still freed by
    reference counting; the store holds no reference cycle (the journal's on_load is a SnapshotLoader, which lets go
    of the store after the load). The price: reference cycles alive at that moment (the caller's garbage included)
    are collected only after gc.unfreeze(). `KnowledgeStore.FREEZE_MIN_RECORDS = None` turns this off."""
    if st.FREEZE_MIN_RECORDS is not None and st._fold._folded >= st.FREEZE_MIN_RECORDS:
        gc.freeze()


def withdraw_vouch(journal: Any) -> None:
    """The journal's head checkpoint no longer vouches for a fold snapshot (a store seen by verify() to differ from
    its journal's replay): the next open folds from scratch."""
    if journal.path is not None and not journal.closed and journal.mode == "a":
        journal.vouch(None)
