"""An append-only, hash-chained journal of JSON records, with three backends behind one interface.

A record is `position`, `kind`, `payload` (any JSON), `t` (a time stamp), `prev` (the previous record's hash)
and `hash` = SHA-256 over the canonical JSON of the other five (sorted keys, no whitespace, UTF-8). The payload
is nested under its own key, so no payload can overwrite a header field.

The journal knows nothing about knowledge: the store, the decision log, the action model and the world map
each write records of their own kind into one chain, so what a decision was given and what it answered
replay together.

>>> j = Journal()                       # in memory
>>> r = j.append("note", {"text": "hello"})
>>> r.position, r.kind, len(j)
(0, 'note', 1)
>>> bool(j.verify())
True

Backends: memory (`Journal()`), JSONL file (`Journal("run.jsonl")`, the default for a path) and SQLite
(`Journal("run.sqlite")`, or `backend="sqlite"`). Loading a file re-checks every hash, every header field and each
kind's registered payload shape; whatever is wrong (bytes that are not UTF-8 or JSON, an edited, reordered, inserted
or deleted record, a damaged SQLite file, a torn last line when opened for writing) raises `CorruptJournal` naming
the file and position, and a failed open releases its lock, handles and connection (a read-only open leaves a torn
last line out and reports its size in `torn_tail`: it may be a write in progress beside it). Nothing is ever
silently truncated: `Journal.repair(path)` moves a bad tail aside explicitly (JSONL and SQLite, under the lock).
A reader that already holds the fold of the first records (the knowledge store's fold snapshot) may pass
`skip_prefix=Prefix(...)`: a JSONL load then checks those records' bytes as one block against the length and
SHA-256 it names, and parses only the rest (any difference: the full load; see `_JsonlBackend._skip_block`).

A write the environment refuses (disk full, file size limit, read-only directory, I/O error) raises
`JournalWriteFailed` and leaves the journal as it was: a JSONL record is one `pwrite` at the end of the last whole
record, undone by a truncate when it fails; a SQLite record is one transaction. The writer goes on once the cause is
gone. A head checkpoint that cannot be written after its records are safe is a `JournalCheckpointWarning` and
`checkpoint_failure`, never a failed append.

`head()` is `(count, last_hash)`; a checkpoint of it kept with the file (JSONL: an extended attribute on the file and
`<real path>.head`, see `journal_head`; SQLite: a `head` table whose row is written with the tables) makes a journal
that lost whole records refuse to open through any of its names, and a head the user kept catches the rest
(`verify(head=...)`, `Journal(path, expect_head=...)`). `durability="flush"` (default) or `"fsync"`. The writer
lock is an flock on the file itself, so a second writer through any alias (symlink, hard link) is refused with
`JournalLocked`; `Journal.open(path, mode="r")` never locks and never writes. `journal.lock` (reentrant) is held by
each append and by every journal owner's public write, so threads take turns. See docs/readme/journal.md.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from . import journal_head, journal_head_index
from .errors import BadInput, CorruptJournal, JournalCheckpointWarning, JournalLocked, JournalWriteFailed, SolviLabError
from .jsontext import DIGITS_TO_ZERO, LONG_RUN, bytes_decoder, decoder, dumps_canonical, exact_orjson
from .validation import _compact, safe_repr

_UNSET: Any = object()  # marks an argument not given

GENESIS = "0" * 64
HEADER_FIELDS = frozenset(("position", "kind", "payload", "prev", "hash", "t"))
DURABILITY = ("flush", "fsync")
_HEX = frozenset("0123456789abcdef")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


# NaN/Infinity are refused as JSON (the writer never produces them); one decoder, built once (the load hot path).
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_DECODE = decoder(_DECODER)


_DECODE_BYTES = bytes_decoder(_DECODER)  # the same, from a line's bytes (orjson where it is exactly stdlib)
_FAST_BYTES = exact_orjson(_DECODER)  # _DECODE_BYTES' fast parser (None: none), for the load loop to inline its rule


def _loads(data: bytes | str) -> Any:
    """Parse one record's JSON text strictly: UTF-8, no NaN/Infinity, ints within Python's digit limit."""
    return _DECODE_BYTES(data) if isinstance(data, bytes) else _DECODE(data)


# -- the kinds registry: each owner module declares the payload shape of the record kinds it writes ---------------
_KIND_CHECKS: dict[str, Callable[[Any], None]] = {}


def register_kind(kind: str, check: Callable[[Any], None]) -> None:
    """Declare the payload shape of a record kind: `check(payload)` raises BadInput when a payload is not one
    its owner can fold. `Journal.append` runs it before writing, and loading runs it on every record of that kind,
    so a foreign payload is refused at write time and named (with its position) at load.

    >>> def check_note(p):
    ...     if not isinstance(p, dict) or not isinstance(p.get("text"), str):
    ...         raise BadInput("a note payload is {'text': str}")
    >>> register_kind("doc-note", check_note)
    >>> j = Journal(); _ = j.append("doc-note", {"text": "hi"})
    >>> j.append("doc-note", [1])
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: a 'doc-note' record's payload is refused: a note payload is {'text': str}
    """
    if not isinstance(kind, str) or not kind:
        raise BadInput(f"a record kind is a non-empty string, got {kind!r}.")
    if not callable(check):
        raise BadInput(f"register_kind({kind!r}, check): check must be callable, got {check!r}.")
    _KIND_CHECKS[kind] = check


def check_payload(kind: str, payload: Any) -> None:
    """Run the registered shape check of `kind` (nothing for an unregistered kind); BadInput when refused."""
    check = _KIND_CHECKS.get(kind)
    if check is None:
        return
    try:
        check(payload)
    except SolviLabError as e:
        raise BadInput(f"a {kind!r} record's payload is refused: {e}") from None
    except Exception as e:  # a check that trips over a foreign payload still refuses it
        raise BadInput(f"a {kind!r} record's payload is refused: {type(e).__name__}: {e}") from None


class Head(NamedTuple):
    """How long a journal is and what its last record is: `(count, last_hash)`.

    Keep its text form (`str(head)`, e.g. in a paper's appendix) and check a journal against it later with
    `journal.verify(head=text)` or `KnowledgeStore(path, expect_head=text)`: a journal that is shorter, or whose
    record at that count differs, is refused.

    >>> h = Head(3, "ab" * 32)
    >>> str(h)[:12]
    'journal:3:ab'
    >>> Head.parse(str(h)) == h
    True
    """

    count: int
    hash: str

    def __str__(self) -> str:
        return f"journal:{self.count}:{self.hash}"

    @property
    def text(self) -> str:
        return str(self)

    @classmethod
    def parse(cls, value: Any) -> Head:
        """A Head from its text form, a (count, hash) pair or a Head; BadInput otherwise."""
        if isinstance(value, str):
            parts = value.strip().split(":")
            if len(parts) == 3 and parts[0] == "journal" and parts[1].isdigit():
                value = (int(parts[1]), parts[2])
        if (
            isinstance(value, (tuple, list))
            and len(value) == 2
            and isinstance(value[0], int)
            and not isinstance(value[0], bool)
            and value[0] >= 0
            and isinstance(value[1], str)
            and len(value[1]) == 64
            and set(value[1]) <= _HEX
        ):
            return cls(value[0], value[1])
        raise BadInput(
            f"{safe_repr(value)} is not a journal head; pass the text journal.head() printed "
            "('journal:<count>:<64 hex>') or a (count, hash) pair."
        )


def canonical(obj: Any) -> str:
    """Canonical JSON text: sorted keys, no whitespace, UTF-8 characters kept, NaN refused.

    >>> canonical({"b": 1, "a": [1.5, "é"]})
    '{"a":[1.5,"é"],"b":1}'
    """
    return dumps_canonical(obj)


def json_value(what: str, value: Any) -> tuple[str, Any]:
    """Canonical JSON text of a value and the value as JSON gives it back (tuples become lists); BadInput when
    the value is not JSON. The one way modules turn caller-given keys (plans, contexts) into stable keys.

    >>> json_value("a plan", ("go", 1))
    ('["go",1]', ['go', 1])
    """
    try:
        text = canonical(value)
    except (TypeError, ValueError) as e:
        raise BadInput(
            f"{what} must be a JSON value (str, number, bool, None, list/tuple, dict with string keys); "
            f"{value!r} is not ({e})."
        ) from None
    return text, json.loads(text)


def _hash_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _header_text(position: int, kind: str, payload_text: str, prev: str, t: float | int | None) -> str:
    # Built by hand in canonical key order so the payload is serialised once per append (the hot path).
    k = _KIND_TEXT.get(kind)
    if k is None:
        k = _KIND_TEXT[kind] = json.dumps(kind, ensure_ascii=False)
    return (
        '{"kind":'
        + k
        + ',"payload":'
        + payload_text
        + ',"position":'
        + str(position)
        + ',"prev":"'
        + prev
        + '","t":'
        + ("null" if t is None else json.dumps(t))
        + "}"
    )


_KIND_TEXT: dict[str, str] = {}


def record_hash(position: int, kind: str, payload: Any, prev: str, t: float | None) -> str:
    """The hash a record with these fields has in any backend (the one rule every reader checks against)."""
    return _hash_text(_header_text(position, kind, canonical(payload), prev, t))


@dataclass(frozen=True, slots=True)
class Record:
    """One journal record. `hash` covers everything else."""

    position: int
    kind: str
    payload: Any
    prev: str
    hash: str
    t: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "kind": self.kind,
            "payload": self.payload,
            "prev": self.prev,
            "hash": self.hash,
            "t": self.t,
        }


# The load loop builds each Record from its slots' own setters: the dataclass's __init__ goes through six
# object.__setattr__ calls (it is frozen), half of a Record's cost on the load's hot path (issue 42: ~0.4 µs a line).
# The Record is the same — frozen for everyone else, equal to one built by Record(...) (tests/test_journal.py).
_RECORD_NEW = Record.__new__
_RECORD_SETTERS = tuple(Record.__dict__[f].__set__ for f in ("position", "kind", "payload", "prev", "hash", "t"))


class Prefix(NamedTuple):
    """The first `count` records of a journal as a reader already holds their fold (a fold snapshot): the hash of
    the journal's first record and of its record ``count-1``, and (JSONL) the length and SHA-256 of their bytes.
    `Journal(path, skip_prefix=...)` checks those bytes as one block (JSONL), neither parsing nor visiting the
    records, when the journal bears all of it out; otherwise it runs the full load."""

    count: int
    first_hash: str
    last_hash: str
    nbytes: int | None = None  # JSONL: the byte length of those records' lines
    sha256: str | None = None  # JSONL: the SHA-256 of those bytes


class _NotThatPrefix(Exception):
    """The journal's first records are not the Prefix named (or a line is not as the backend writes it)."""


def _line_starts(f: Any, nbytes: int) -> tuple[list[int], str]:
    """Where each line of the first `nbytes` bytes of `f` starts (from the file's start), the end too, and the
    SHA-256 of those bytes: one read in 16 MiB chunks."""
    f.seek(0)
    h, done, starts = hashlib.sha256(), 0, [0]
    add = starts.append
    while done < nbytes:
        chunk = f.read(min(1 << 24, nbytes - done))
        if not chunk:
            break
        h.update(chunk)
        find, i = chunk.find, chunk.find(b"\n")
        while i >= 0:  # bytes.find: ~50 ns a line
            add(done + i + 1)
            i = find(b"\n", i + 1)
        done += len(chunk)
    return starts, h.hexdigest()


class _Offsets(list):
    """The byte offset of each record of a JSONL journal (a list). The records of a prefix checked as one block of
    bytes (`_JsonlBackend._skip_block`) have their offsets found only when one of them is first asked for: an open
    from a fold snapshot then costs the block's SHA-256 and newline count, not a Python step per line (issue 42: a
    second at 10^6 records). Records appended or loaded after the block are ordinary entries after it."""

    __slots__ = ("block",)

    def __init__(self) -> None:
        super().__init__()
        self.block: tuple[Path, int, int, str] | None = None  # (path, bytes, records, their SHA-256) not yet found

    def defer(self, path: Path, nbytes: int, count: int, sha256: str) -> None:
        """The first `count` records are the block of `nbytes` bytes with that SHA-256 (checked by the caller)."""
        self.block = (path, nbytes, count, sha256)

    def _fill(self) -> None:
        path, nbytes, count, sha = self.block
        with open(path, "rb") as f:
            starts, got = _line_starts(f, nbytes)
        if got != sha or len(starts) != count + 1 or starts[-1] != nbytes:
            raise CorruptJournal(
                f"{path}: the journal's first {count} records changed on disk after it was opened (their bytes "
                "are not the ones checked at the open). Close it and open it again: the open checks them."
            )
        starts.pop()
        self.block = None
        list.__setitem__(self, slice(0, 0), starts)  # before the records appended since the open

    def __len__(self) -> int:
        b = self.block
        return list.__len__(self) + (b[2] if b is not None else 0)

    def __getitem__(self, i: Any) -> Any:
        b = self.block
        if b is not None:
            if type(i) is int and (i >= b[2] or -list.__len__(self) <= i < 0):
                return list.__getitem__(self, i if i < 0 else i - b[2])  # a record after the block
            if i == 0 and b[2]:
                return 0  # the first record starts the file: the head index asks for it at every open
            self._fill()
        return list.__getitem__(self, i)

    def __iter__(self) -> Iterator[int]:
        if self.block is not None:
            self._fill()
        return list.__iter__(self)

    def __setitem__(self, i: Any, v: Any) -> None:
        if self.block is not None:
            self._fill()
        list.__setitem__(self, i, v)

    def clear(self) -> None:
        self.block = None
        list.clear(self)


@dataclass
class VerifyReport:
    """What `verify()` found. Truthy when the chain is whole."""

    ok: bool
    records: int
    problem: str = ""
    position: int | None = None

    def __bool__(self) -> bool:
        return self.ok


def _bad_fields(rec: Any) -> str:
    """What is wrong with a record's header fields ('' when they have the shape a writer gives them)."""
    if not isinstance(rec, dict):
        return f"it is a JSON {type(rec).__name__}, not an object"
    if rec.keys() != HEADER_FIELDS:
        missing = sorted(HEADER_FIELDS - rec.keys())
        extra = sorted(rec.keys() - HEADER_FIELDS)
        return (
            "its header fields differ from a record's"
            + (f"; missing {missing}" if missing else "")
            + (f"; unknown {extra}" if extra else "")
        )
    position, kind, prev, h, t = rec["position"], rec["kind"], rec["prev"], rec["hash"], rec["t"]
    if type(position) is not int:
        return f"its position is {position!r}, not an int"
    if type(kind) is not str or not kind:
        return f"its kind is {kind!r}, not a non-empty string"
    for name, v in (("prev", prev), ("hash", h)):
        if type(v) is not str or len(v) != 64 or not set(v) <= _HEX:
            return f"its {name} is {v!r}, not 64 hex digits"
    if t is not None and (type(t) not in (int, float) or t != t or t in (float("inf"), float("-inf"))):
        return f"its time stamp t is {t!r}, not a finite number or null"
    return ""


def _check(rec: Any, expected_position: int, prev: str, where: str) -> Record:
    """Check one loaded record against the chain; raise CorruptJournal naming the position."""
    bad = _bad_fields(rec)
    if bad:
        raise CorruptJournal(
            f"{where}: record at position {expected_position} is not a journal record ({bad}); the file was "
            "edited by hand or by another program. Restore it from a backup, or keep the records before "
            f"position {expected_position} with Journal.repair(path, keep={expected_position})."
        )
    position, kind, payload, rprev, rhash, t = (
        rec["position"],
        rec["kind"],
        rec["payload"],
        rec["prev"],
        rec["hash"],
        rec["t"],
    )
    if position != expected_position:
        raise CorruptJournal(
            f"{where}: expected position {expected_position}, found {position}: a record was "
            "inserted, deleted or reordered. Restore the file from a backup; the records before "
            f"position {expected_position} are intact (Journal.repair(path, keep={expected_position}))."
        )
    if rprev != prev:
        raise CorruptJournal(
            f"{where}: record {position} does not link to record {position - 1} (prev hash differs): "
            "a record before it was edited, deleted or reordered. Restore from a backup; "
            f"Journal.repair(path, keep={position}) keeps the records before it."
        )
    try:
        text = _header_text(position, kind, canonical(payload), rprev, t)
        ok = _hash_text(text) == rhash
    except (ValueError, TypeError, RecursionError, UnicodeError):
        ok = False
    if not ok:
        raise CorruptJournal(
            f"{where}: record {position} was edited after it was written (its hash does not match "
            f"its content). Restore from a backup; Journal.repair(path, keep={position}) keeps the "
            "records before it."
        )
    return Record(position, kind, payload, rprev, rhash, t)


def _owner_refuses(where: str, position: int, kind: str, e: BaseException) -> CorruptJournal:
    return CorruptJournal(
        f"{where}: record {position} (kind {kind!r}) holds a payload its owner cannot read "
        f"({type(e).__name__}: {e}); it was written by another program or an older bug. Restore the file from a "
        f"backup, or keep the records before it with Journal.repair(path, keep={position})."
    )


class _MemoryBackend:
    writable = True

    def __init__(self) -> None:
        self.records: list[Record] = []

    def load(self, visit: Callable[[Record], None] | None) -> tuple[int, str]:
        return 0, GENESIS

    def write(self, rec: Record, line: str) -> None:
        self.records.append(rec)

    def iter(self, start: int, stop: int | None) -> Iterator[Record]:
        yield from self.records[start:stop]

    def get(self, position: int) -> Record:
        return self.records[position]

    def read_checkpoint(self) -> Head | None:
        return None

    def write_checkpoint(self, head: Head, vouch: tuple[int, str] | None = None, first: str | None = None) -> None:
        pass

    def close(self) -> None:
        pass


# errno values that mean "the environment refuses" rather than "this path is wrong".
_ENVIRONMENT_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG}


class _FileLock:
    """An exclusive advisory lock (flock) on the journal file itself: one writer per journal, across processes
    and within one. Being on the file's inode, it refuses a second writer that reaches the same journal through
    a symlink, a hard link or another spelling of the path."""

    def __init__(self, path: Path):
        self.path = path
        self.fd: int | None = None
        self.created = False

    def acquire(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
                self.created = True
            except FileExistsError:
                fd = os.open(self.path, os.O_RDWR)
        except OSError as e:
            if e.errno in _ENVIRONMENT_ERRNOS:  # the path is fine; the file system refuses (permissions, space)
                raise JournalWriteFailed(
                    f"cannot open journal {self.path} for writing ({e.strerror}): the directory or file is "
                    "read-only or the disk is full. Make it writable (or free space) and open it again, or open it "
                    f"read-only with Journal.open('{self.path}', mode='r').",
                    path=self.path,
                    cause=e,
                ) from e
            raise BadInput(
                f"cannot open journal {self.path} for writing ({e.strerror}); pass a writable file path, or open "
                f"it read-only with Journal.open('{self.path}', mode='r')."
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise JournalLocked(
                f"journal {self.path} is open for writing elsewhere (this process or another holds its "
                "writer lock, possibly through a symlink or hard link). Close the other writer first, or "
                f"open it read-only with Journal.open('{self.path}', mode='r')."
            ) from None
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def _visit_all(visit: Callable[[Record], None] | None, r: Record, where: str) -> None:
    if visit is None:
        return
    try:
        visit(r)
    except CorruptJournal:
        raise
    except Exception as e:  # a fold that trips over a payload: name the record, never a bare exception
        raise _owner_refuses(where, r.position, r.kind, e) from None


def _whole_lines(f: Any, size: int) -> Iterator[bytes]:
    """The lines (without their newline) of the first `size` bytes of `f`, which end with a newline."""
    left = size
    for line in f:
        left -= len(line)
        if left < 0:
            return  # appended after `size` was taken
        yield line[:-1]
        if left == 0:
            return


def _write_checkpoint(
    path: Path,
    head: Head,
    fd: int | None = None,
    vouch: tuple[int, str] | None = None,
    first: str | None = None,
    siblings: bool = False,
) -> None:
    """Write the head checkpoint of the JSONL journal at `path` (every place it is kept: solvi_lab.journal_head),
    naming the file (device, inode) and the journal's first record. The one writer of a JSONL checkpoint — appends,
    close() and Journal.repair (`siblings`: also every other .head naming the file) all come here."""
    file = journal_head.identity(path if fd is None else fd)
    text = journal_head.checkpoint_text(head.count, head.hash, vouch, first, file)
    journal_head.write_checkpoint(path, text, fd, siblings)


def _meta_of(d: Any) -> dict[str, Any]:
    """What a checkpoint says besides its head: the record it vouches for, the journal's first record hash, and
    the file it was written for (None each where it says nothing: an older checkpoint)."""
    d = d if type(d) is dict else {}
    f, first = d.get("file"), d.get("first")
    return {
        "vouch": _vouch_of(d),
        "first": first if isinstance(first, str) else None,
        "file": (f[0], f[1]) if type(f) is list and len(f) == 2 else None,
        "same_file": d.get(journal_head_index.SAME_FILE) is True,  # a head index entry of this very inode use
    }


def _vouch_of(d: Any) -> tuple[int, str] | None:
    """The (position, hash) a checkpoint vouches for (Journal.vouch), None when it names none or not in that shape."""
    v = d.get("vouch") if type(d) is dict else None
    if type(v) is list and len(v) == 2 and type(v[0]) is int and v[0] >= 0 and type(v[1]) is str:
        return v[0], v[1]
    return None


def _parse_checkpoint(path: Path, where: str, text: str) -> Head:
    try:
        d = _loads(text)
        return Head.parse((d["count"], d["hash"]))
    except (ValueError, KeyError, TypeError, RecursionError):
        raise CorruptJournal(
            f"{path}: the journal's head checkpoint ({where}) is damaged; if the journal itself is trusted, "
            f"Journal.repair('{path}') writes a new one."
        ) from None


def _write_failed(path: Path, what: str, e: BaseException, after: str) -> JournalWriteFailed:
    cause = e.strerror if isinstance(e, OSError) and e.strerror else f"{type(e).__name__}: {e}"
    return JournalWriteFailed(f"{path}: could not write {what} ({cause}); {after}", path=path, cause=e)


def _pwrite_all(fd: int, data: bytes, offset: int) -> None:
    """Write `data` at `offset`: one pwrite call (a short count only when the kernel stops early, then the rest)."""
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, offset)
        if n <= 0:
            raise OSError(28, "the file system accepted no more bytes")
        view, offset = view[n:], offset + n


class _JsonlBackend:
    """One record per line, written by one `pwrite` of its bytes at the end of the last whole record (no buffer in
    between) and flushed to the OS (or fsynced) before append returns. A write that fails (disk full, file size
    limit, I/O error) is undone by truncating the file back to the end of the last whole record, so its bytes never
    reach the file later; if even that fails the writer refuses further writes until reopened. A crash (SIGKILL,
    power cut) during the write leaves at most a torn last line, which the next load detects (it never passes the
    hash check) and refuses to drop silently. The head checkpoint follows the file (solvi_lab.journal_head)."""

    def __init__(self, path: Path, durability: str, writable: bool):
        self.path = Path(path)
        self.durability = durability
        self.writable = writable
        self.lock = _FileLock(self.path) if writable else None
        self.fd: int | None = None  # the writer's descriptor (the lock's: the very inode it locked)
        self.end = 0  # byte length of the whole records: where the next one is written
        self.broken = ""  # why this writer refuses to write (a failed write that could not be undone)
        self.offsets = _Offsets()  # byte offset of each record: O(1) random access without keeping payloads

    def load(self, visit: Callable[[Record], None] | None, skip: Prefix | None = None) -> tuple[int, str]:
        if self.lock:
            self.lock.acquire()
            if self.lock.created:
                # A file this open created (O_EXCL) is new: any head index entry under its (device, inode) is a
                # deleted file's whose inode number it reuses. Removed now, so a later open of this journal — even
                # an empty one, left by a crash before its first checkpoint — is never held to that entry.
                journal_head_index.remove_entry(journal_head.identity(self.lock.fd))
        elif not _is_file(self.path):
            raise BadInput(f"no journal at {self.path}; a read-only open needs an existing file.")
        # The checkpoints first: a writer writes records before their checkpoint, so read in this order a reader
        # beside a running writer never sees a checkpoint newer than the records it read.
        self.checkpoints_seen = self.read_checkpoints()
        self.skipped = 0
        if skip is not None and skip.count > 0:
            try:
                return self._load_lines(visit, skip)
            except _NotThatPrefix:  # the prefix is not the one named, or a line is not as written: the full load
                self.offsets.clear()
        return self._load_lines(visit, None)

    def _load_lines(self, visit: Callable[[Record], None] | None, skip: Prefix | None) -> tuple[int, str]:
        n, prev = 0, GENESIS
        where = str(self.path)
        self.torn_tail = 0
        with open(self.path, "rb") as f:
            # The file as it is now; a writer beside a read-only reader may append while it reads.
            size = os.fstat(f.fileno()).st_size
            offset = 0
            if skip is not None:  # the first records, as one block of bytes (then the rest as always)
                self._skip_block(f, skip, size)
                n, prev, offset = skip.count, skip.last_hash, skip.nbytes
            f.seek(max(size - 1, 0))
            if size == offset or f.read(1) == b"\n":
                f.seek(offset)
                lines = _whole_lines(f, size - offset)  # streamed: the file's bytes are never all in memory at once
            else:
                f.seek(offset)
                data = f.read(size - offset)
                if not self.writable:
                    # Read-only: the last line may be a write in progress beside us (or a crash's torn tail, which
                    # only a writer may repair); it is not a record yet, so it is left out and its size reported.
                    keep_len = data.rfind(b"\n") + 1
                    self.torn_tail = len(data) - keep_len
                    data = data[:keep_len]
                if data and not data.endswith(b"\n"):
                    last = data.rsplit(b"\n", 1)
                    keep = n + data.count(b"\n")
                    raise CorruptJournal(
                        f"{self.path}: the last record (position {keep}) is torn: a write was "
                        f"interrupted. The {keep} records before it are whole. To go on, call "
                        f"Journal.repair('{self.path}') — it moves the torn tail ({len(last[-1])} bytes) "
                        "to a .torn file beside the journal and keeps the whole records."
                    )
                lines = data.split(b"\n")[:-1] if data else []
            # The hot loop (one pass per line, inlined): parse (_loads' rule), check the line as this
            # backend writes it (_fast_check's rule), fold it. Anything unusual goes to the full paths, which raise the
            # errors that name the record: _parse_line (bad UTF-8 / JSON), _check (any other layout), the visit's.
            offsets = self.offsets
            loads, sha256, record_new = _DECODE_BYTES, hashlib.sha256, _RECORD_NEW
            set_pos, set_kind, set_payload, set_prev, set_hash, set_t = _RECORD_SETTERS
            fast, digits, run = _FAST_BYTES, DIGITS_TO_ZERO, LONG_RUN
            for line in lines:
                try:
                    # _DECODE_BYTES' rule without its call per line (jsontext.exact_orjson): orjson unless a run of
                    # 19 digits may be an int it would turn into a float; what it refuses, _parse_line decides
                    rec = fast(line) if fast is not None and run not in line.translate(digits) else loads(line)
                except Exception:
                    rec = self._parse_line(line, n, offset)
                r = None
                if type(rec) is dict and len(rec) == 6 and line[73:75] == b'",' and line.startswith(b'{"hash":"'):
                    h, kind, t = rec.get("hash"), rec.get("kind"), rec.get("t")
                    if (
                        rec.get("position") == n
                        and rec.get("prev") == prev
                        and type(kind) is str
                        and "payload" in rec
                        and (t is None or type(t) is float or type(t) is int)
                        and line[9:73].decode() == h
                        and sha256(b"{" + line[75:]).hexdigest() == h
                    ):
                        r = record_new(Record)  # Record(n, kind, payload, prev, h, t), field by field
                        set_pos(r, n)
                        set_kind(r, kind)
                        set_payload(r, rec["payload"])
                        set_prev(r, prev)
                        set_hash(r, h)
                        set_t(r, t)
                if r is None:
                    r = _check(rec, n, prev, where)
                if visit is not None:  # _visit_all, inlined: no extra call per record on the load's hot path
                    try:
                        visit(r)
                    except CorruptJournal:
                        raise
                    except Exception as e:  # a fold that trips over a payload: name the record, never a bare exception
                        raise _owner_refuses(where, r.position, r.kind, e) from None
                offsets.append(offset)
                offset += len(line) + 1
                prev = r.hash
                n += 1
        if self.writable:
            self.fd = self.lock.fd
            self.end = offset
        return n, prev

    def _skip_block(self, f: Any, skip: Prefix, size: int) -> None:
        """Check the first `skip.count` records as one block of bytes: the file's first `skip.nbytes` bytes must
        have the SHA-256 `skip.sha256` and hold exactly `skip.count` lines, the first and the last with the hashes
        `skip` names. Their offsets are found only when first needed (_Offsets); nothing is parsed or visited (the reader holds their fold). Any
        difference raises _NotThatPrefix (the caller then runs the full load, which names any damage as always).

        Why a block and not each line's hash: hashing and slicing each line in Python costs ~6 µs a line (7 s at
        10^6 records), the block's SHA-256 and newline count ~1-2 ns a byte. The block's digest is as trustworthy as
        the chain: it is in the fold snapshot's header, covered by the snapshot's digest, which the journal's record
        ``count`` (parsed and chain-checked like every record after the block) carries; so a byte changed in the
        block is caught unless the whole chain after it, that record included, is rewritten too — which the chain
        alone does not catch either (the head checkpoint and a kept head do, as they do here)."""
        count, nbytes = skip.count, skip.nbytes
        if nbytes is None or skip.sha256 is None or not 0 < nbytes <= size:
            raise _NotThatPrefix
        # The byte floor: one SHA-256 and one newline count over the block (C loops); where each line starts is
        # found only if a record inside it is ever read by position (_Offsets).
        h, done, lines, tail = hashlib.sha256(), 0, 0, b""
        while done < nbytes:
            chunk = f.read(min(1 << 24, nbytes - done))
            if not chunk:
                raise _NotThatPrefix
            h.update(chunk)
            lines += chunk.count(b"\n")
            tail = (tail + chunk)[-(1 << 20) :] if len(chunk) < 1 << 20 else chunk[-(1 << 20) :]
            done += len(chunk)
            if lines > count:
                raise _NotThatPrefix
        if h.hexdigest() != skip.sha256:
            raise _NotThatPrefix
        if lines != count or not tail.endswith(b"\n"):  # count whole lines, the last ending the block
            raise _NotThatPrefix
        cut = tail.rfind(b"\n", 0, len(tail) - 1)  # the newline before the block's last line (a line < 1 MiB)
        if cut < 0 and len(tail) < nbytes:
            raise _NotThatPrefix  # a last line longer than the tail kept: not one this backend writes at this size
        f.seek(0)
        first = f.read(75)
        last = tail[cut + 1 : cut + 76]
        for line, want in ((first, skip.first_hash), (last, skip.last_hash)):
            if not (line.startswith(b'{"hash":"') and line[9:73] == want.encode()):
                raise _NotThatPrefix
        self.offsets.defer(self.path, nbytes, count, skip.sha256)
        self.skipped = count

    def recheck(self, stop: int) -> None:
        """Parse and check records 0..stop-1 as the full load does (CorruptJournal naming the first bad one): for
        a prefix the load skipped by its bytes alone, when the reader that asked for it cannot use it after all."""
        where, prev, offset = str(self.path), GENESIS, 0
        with open(self.path, "rb") as f:
            for n in range(stop):
                line = f.readline()[:-1]
                rec = self._parse_line(line, n, offset)  # (its own count: the block's offsets may not be found yet)
                offset += len(line) + 1
                r = self._fast_check(line, rec, n, prev) or _check(rec, n, prev, where)
                check = _KIND_CHECKS.get(r.kind)
                if check is not None:
                    try:
                        check(r.payload)
                    except Exception as e:
                        raise _owner_refuses(where, n, r.kind, e) from None
                prev = r.hash

    def _parse_line(self, line: bytes, n: int, offset: int) -> Any:
        """Parse one line with the stdlib reference decoder; CorruptJournal naming the record when it is not JSON."""
        try:
            return _loads(line)
        except (ValueError, RecursionError) as e:  # bad UTF-8, bad JSON, NaN/Infinity, a too-long int
            what = "is not UTF-8" if isinstance(e, UnicodeDecodeError) else f"is not valid JSON ({e})"
            raise CorruptJournal(
                f"{self.path}: record at position {n} (byte offset {offset}) {what}; the file was "
                f"edited or damaged. Restore it from a backup, or Journal.repair('{self.path}', keep={n}) "
                "keeps the records before it."
            ) from None

    @staticmethod
    def _fast_check(line: bytes, rec: Any, n: int, prev: str) -> Record | None:
        """Check a line as this backend writes it: the hash covers the exact bytes after the hash field, so
        no re-serialisation is needed. None when the line has another layout (then the full check runs)."""
        if not (line.startswith(b'{"hash":"') and line[73:75] == b'",') or type(rec) is not dict or len(rec) != 6:
            return None
        h = rec.get("hash")
        kind, t = rec.get("kind"), rec.get("t")
        if (
            rec.get("position") != n
            or rec.get("prev") != prev
            or type(kind) is not str
            or "payload" not in rec
            or (t is not None and type(t) is not float and type(t) is not int)
            or line[9:73].decode() != h
        ):
            return None
        if hashlib.sha256(b"{" + line[75:]).hexdigest() != h:
            return None
        return Record(n, kind, rec["payload"], prev, h, t)

    def write(self, rec: Record, line: str) -> None:
        if self.broken:
            raise JournalWriteFailed(self.broken, path=self.path)
        data = (line + "\n").encode("utf-8")
        start = self.end
        try:
            _pwrite_all(self.fd, data, start)
            if self.durability == "fsync":
                os.fsync(self.fd)
        except BaseException as e:  # an interrupt mid-write is undone the same way, then goes on up
            self._undo(start, rec.position, e)
            if not isinstance(e, OSError):
                raise
            raise _write_failed(
                self.path,
                f"record {rec.position}",
                e,
                f"nothing of it was kept: the journal is as it was before this call ({rec.position} records). "
                "Free disk space (or raise the file size limit, make the file writable) and call again: this "
                "writer goes on from there.",
            ) from e
        self.offsets.append(start)
        self.end = start + len(data)

    def _undo(self, start: int, position: int, e: BaseException) -> None:
        """Cut the file back to `start` (the end of the last whole record); a writer that cannot is broken."""
        try:
            os.ftruncate(self.fd, start)
        except OSError as e2:
            self.broken = (
                f"{self.path}: writing record {position} failed ({e}) and the partial write could not be undone "
                f"({e2.strerror or e2}); this writer writes nothing more. Close it and reopen the journal: if the "
                f"open reports a torn last record, Journal.repair('{self.path}') moves it aside (that record was "
                "never acknowledged)."
            )
            raise JournalWriteFailed(self.broken, path=self.path, cause=e) from e

    def _parse(self, line: bytes) -> Record:
        """A record line this backend wrote or checked at load. One that no longer parses was changed in the file
        after that (or written by append_encoded from a text that was not canonical(value), against its
        promise): CorruptJournal, never a bare JSON error."""
        try:
            d = _loads(line)
            return Record(d["position"], d["kind"], d["payload"], d["prev"], d["hash"], d.get("t"))
        except (ValueError, KeyError, TypeError, RecursionError):
            raise CorruptJournal(
                f"{self.path}: a record line changed in the file after it was written or checked "
                f"({safe_repr(line[:60])}…); reopen the journal to check it, or Journal.repair('{self.path}')."
            ) from None

    def iter(self, start: int, stop: int | None) -> Iterator[Record]:
        if start >= len(self.offsets):
            return
        stop = len(self.offsets) if stop is None else min(stop, len(self.offsets))
        with open(self.path, "rb") as f:
            f.seek(self.offsets[start])
            pos = start
            for line in f:
                if pos >= stop:
                    break
                if not line.endswith(b"\n"):
                    break  # a write in progress from this very process: not yet a record
                yield self._parse(line)
                pos += 1

    def get(self, position: int) -> Record:
        with open(self.path, "rb") as f:
            f.seek(self.offsets[position])
            return self._parse(f.readline())

    def raw_lines(self) -> Iterator[tuple[bytes, Any]]:
        """(line bytes, parsed JSON) of every whole line, for verification against the exact bytes."""
        with open(self.path, "rb") as f:
            for line in f:
                if not line.endswith(b"\n"):
                    break
                line = line[:-1]
                yield line, _loads(line)

    def read_checkpoints(self) -> list[tuple[str, Head]]:
        """(where, head) of every checkpoint of this file (its extended attribute, its .head file)."""
        try:
            found = journal_head.read_checkpoints(self.path)
        except (OSError, ValueError) as e:
            raise CorruptJournal(
                f"{self.path}: the journal's head checkpoint cannot be read ({e}); if the journal itself is "
                f"trusted, Journal.repair('{self.path}') writes a new one."
            ) from None
        heads = [(where, _parse_checkpoint(self.path, where, text)) for where, text in found]
        self.checkpoint_meta = [_meta_of(_loads(text)) for _, text in found]  # parsed above: each is JSON
        return heads

    def identity(self) -> tuple[int, int] | None:
        """(device, inode) of the journal file: the writer's own descriptor, or the file at its path."""
        try:
            return journal_head.identity(self.fd if self.fd is not None else self.path)
        except OSError:
            return None

    def read_checkpoint(self) -> Head | None:
        """The checkpoint that counts the most records (None when there is none)."""
        found = self.read_checkpoints()
        return max((h for _, h in found), key=lambda h: h.count, default=None)

    def write_checkpoint(self, head: Head, vouch: tuple[int, str] | None = None, first: str | None = None) -> None:
        # The records the checkpoint counts must be on disk before the checkpoint is.
        try:
            os.fsync(self.fd)
            _write_checkpoint(self.path, head, self.fd, vouch, first)
        except OSError as e:
            raise _write_failed(self.path, "its head checkpoint", e, "the records themselves are in the file.") from e

    def close(self) -> None:
        self.fd = None  # the lock's descriptor: released (and closed) with it
        if self.lock:
            self.lock.release()


_SQLITE_MIN = 512  # a SQLite database file is at least one page; anything shorter is not one
# The WAL index (-shm) a writer allocates on disk at open: 4 regions of 32 KiB, the index of 16,384 WAL frames (the
# WAL is reset at each automatic checkpoint, every ~1,000 pages, unless readers hold it). See _reserve_shm.
_SHM_RESERVE = 4 * 32768


def _sqlite_text(data: bytes) -> str:
    # A TEXT cell whose bytes were damaged is read, not raised on, so the record's check names its position.
    return data.decode("utf-8", "surrogateescape")


# SQLite result codes that say the environment refused (permissions, read-only directory, full disk, I/O, a lock
# held elsewhere), not that the database is damaged: those are JournalWriteFailed, never "restore from a backup".
_SQLITE_ENVIRONMENT = {3, 5, 6, 7, 8, 10, 13, 14, 15, 23}  # PERM BUSY LOCKED NOMEM READONLY IOERR FULL CANTOPEN …


def _sqlite_environment(e: BaseException) -> bool:
    code = getattr(e, "sqlite_errorcode", None)
    return isinstance(e, sqlite3.OperationalError) and code is not None and code & 0xFF in _SQLITE_ENVIRONMENT


class _SqliteBackend:
    """Records in a `records` table, one transaction per record; the head checkpoint in a `head` table, whose row is
    written with the tables (so a missing row or table is damage, reported, never a journal without a checkpoint).
    `durability` maps to PRAGMA synchronous (flush: NORMAL, fsync: FULL). A record whose transaction fails (disk
    full, file size limit, read-only directory) is rolled back by SQLite and reported as JournalWriteFailed; the
    writer goes on once the cause is gone."""

    def __init__(self, path: Path, durability: str, writable: bool):
        self.path = Path(path)
        self.durability = durability
        self.writable = writable
        self.lock = _FileLock(self.path) if writable else None
        self.db: sqlite3.Connection | None = None

    def _unavailable(self, e: BaseException) -> JournalWriteFailed:
        doing = "open it for writing" if self.writable else "open it"
        return JournalWriteFailed(
            f"{self.path}: SQLite could not {doing} ({type(e).__name__}: {e}); the file itself is not damaged. "
            "SQLite writes side files (-wal, -shm) beside the journal: make the directory writable (and free some "
            "space), then open it again.",
            path=self.path,
            cause=e,
        )

    def _damaged(self, e: BaseException) -> CorruptJournal | JournalWriteFailed:
        if _sqlite_environment(e):
            return self._unavailable(e)
        return CorruptJournal(
            f"{self.path}: the SQLite journal is damaged or is not a journal ({type(e).__name__}: {e}). Restore it "
            f"from a backup, or keep its readable records with Journal.repair('{self.path}')."
        )

    def load(self, visit: Callable[[Record], None] | None) -> tuple[int, str]:
        if self.lock:
            self.lock.acquire()
            fresh = self.lock.created
        elif not _is_file(self.path):
            raise BadInput(f"no journal at {self.path}; a read-only open needs an existing file.")
        else:
            fresh = False
        size = self.path.stat().st_size
        if not fresh and size < _SQLITE_MIN:
            raise CorruptJournal(
                f"{self.path}: {size} bytes is not a SQLite journal (a database is at least {_SQLITE_MIN} "
                "bytes; an interrupted creation or another program's file). Delete it to start a new journal, "
                "or restore it from a backup."
            )
        try:
            if self.writable:
                self.db = sqlite3.connect(self.path, check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=" + ("FULL" if self.durability == "fsync" else "NORMAL"))
            else:
                self.db = self._connect_read_only()
            self.db.text_factory = _sqlite_text
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if "records" not in tables:
                if not fresh and size > 0 and (tables or self._schema_version() > 0 or not self.writable):
                    raise CorruptJournal(
                        f"{self.path}: the database has no records table (it was dropped, or this is another "
                        "program's database). Restore the journal from a backup."
                    )
                if self.writable:
                    # The records table and the head row together: from its first moment, a journal has a head.
                    with self.db:
                        self.db.execute(
                            "CREATE TABLE records (position INTEGER PRIMARY KEY, kind TEXT NOT NULL, "
                            "payload TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL, t REAL)"
                        )
                        self.db.execute(
                            "CREATE TABLE IF NOT EXISTS head (id INTEGER PRIMARY KEY, count INTEGER, hash TEXT)"
                        )
                        self.db.execute("INSERT OR REPLACE INTO head VALUES (0, 0, ?)", (GENESIS,))
                    tables |= {"records", "head"}
            n, prev = 0, GENESIS
            where = str(self.path)
            if not self.writable:
                self.db.execute("BEGIN")  # one read snapshot: the checkpoint and the records agree
            self.checkpoints_seen = self.read_checkpoints()
            rows = (
                self.db.execute("SELECT position, kind, payload, prev, hash, t FROM records ORDER BY position")
                if "records" in tables
                else ()
            )
            for position, kind, payload, rprev, rhash, t in rows:
                try:
                    p = _loads(payload)
                except (ValueError, TypeError, AttributeError, RecursionError) as e:
                    raise CorruptJournal(
                        f"{where}: record {n}'s payload is not JSON text ({type(e).__name__}); the database was "
                        f"edited. Restore it from a backup, or Journal.repair('{self.path}', keep={n})."
                    ) from None
                rec = {"position": position, "kind": kind, "payload": p, "prev": rprev, "hash": rhash, "t": t}
                r = _check(rec, n, prev, where)
                _visit_all(visit, r, where)
                prev = r.hash
                n += 1
            if not self.writable:
                self.db.execute("COMMIT")
            else:
                self._reserve_shm()  # the WAL index exists now (the load read through it)
            return n, prev
        except (sqlite3.Error, UnicodeDecodeError) as e:  # a TEXT cell whose bytes are not UTF-8 any more
            raise self._damaged(e) from None

    def _reserve_shm(self) -> None:
        """Allocate the WAL index's first `_SHM_RESERVE` bytes on disk now, so that a full disk later is an error
        and never a signal. SQLite memory-maps the -shm file and, growing it, writes one byte per memory page to
        allocate it; on a file system whose blocks are smaller than a page (ext4 with 1 KiB blocks) the rest of the
        page stays a hole, and when SQLite writes there through the mapping on a full disk the kernel kills the
        process with SIGBUS (issue 40; reproduced on a 1 KiB-block ext4). A disk too full for the reserve refuses
        the writer's open with JournalWriteFailed instead. File systems without fallocate keep SQLite's own way."""
        shm = str(self.path) + "-shm"
        try:
            fd = os.open(shm, os.O_RDWR)
        except OSError:
            return  # no index yet (SQLite makes it at the first read) or not ours to write: SQLite reports that
        try:
            os.posix_fallocate(fd, 0, _SHM_RESERVE)
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                raise self._unavailable(e) from None
            # EOPNOTSUPP, EINVAL: a file system that cannot reserve space; SQLite's own allocation stands
        finally:
            os.close(fd)

    def _connect_read_only(self) -> sqlite3.Connection:
        db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        try:
            db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            return db
        except sqlite3.OperationalError as e:
            # A WAL database in a directory SQLite cannot write: it cannot make its -shm file. With neither side
            # file present the last writer closed cleanly (a live or crashed writer leaves both), so the file alone
            # holds every record and can be read as immutable.
            side = [Path(str(self.path) + x) for x in ("-wal", "-shm")]
            if not _sqlite_environment(e) or any(p.exists() and p.stat().st_size for p in side):
                db.close()
                raise
            db.close()
            return sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True, check_same_thread=False)

    def _schema_version(self) -> int:
        return self.db.execute("PRAGMA schema_version").fetchone()[0]

    def write(self, rec: Record, line: str) -> None:
        # One transaction per record: a crash never leaves half a record behind, and a failed one is rolled back.
        try:
            with self.db:
                self.db.execute(
                    "INSERT INTO records VALUES (?,?,?,?,?,?)",
                    (rec.position, rec.kind, canonical(rec.payload), rec.prev, rec.hash, rec.t),
                )
        except sqlite3.Error as e:
            try:
                kept = self.db.execute("SELECT 1 FROM records WHERE position = ?", (rec.position,)).fetchone()
            except sqlite3.Error:
                kept = None  # cannot even read: it was not written by this connection's view either
            if kept is not None and self.get(rec.position).hash == rec.hash:
                return  # the commit went through although SQLite reported an error: it persisted, say so
            raise _write_failed(
                self.path,
                f"record {rec.position}",
                e,
                f"SQLite rolled it back: the journal is as it was before this call ({rec.position} records). "
                "Free disk space (or raise the file size limit, make the directory writable) and call again: "
                "this writer goes on from there.",
            ) from e

    def _row(self, row: tuple) -> Record:
        return Record(row[0], row[1], _loads(row[2]), row[3], row[4], row[5])

    def iter(self, start: int, stop: int | None) -> Iterator[Record]:
        q = "SELECT position, kind, payload, prev, hash, t FROM records WHERE position >= ?"
        args: list[Any] = [start]
        if stop is not None:
            q += " AND position < ?"
            args.append(stop)
        try:
            rows = self.db.execute(q + " ORDER BY position", args).fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as e:
            raise self._damaged(e) from None
        for row in rows:
            yield self._row(row)

    def get(self, position: int) -> Record:
        try:
            row = self.db.execute(
                "SELECT position, kind, payload, prev, hash, t FROM records WHERE position = ?", (position,)
            ).fetchone()
        except (sqlite3.Error, UnicodeDecodeError) as e:
            raise self._damaged(e) from None
        if row is None:
            raise CorruptJournal(f"{self.path}: record {position} is gone from the database; it was edited.")
        return self._row(row)

    def read_checkpoints(self) -> list[tuple[str, Head]]:
        """[("head table", head)]; CorruptJournal when the head table or its row is missing or damaged (every
        journal gets its head row with its tables, so neither is ever legitimately absent)."""
        fix = (
            "the database was edited, and a cut made with it would go unnoticed. Restore the journal from a "
            f"backup, or, if no record is missing, Journal.repair('{self.path}') writes a new head for it."
        )
        try:
            row = self.db.execute("SELECT count, hash FROM head WHERE id = 0").fetchone()
        except sqlite3.OperationalError as e:
            if _sqlite_environment(e):
                raise self._unavailable(e) from None
            raise CorruptJournal(f"{self.path}: the head checkpoint table is gone ({e}); {fix}") from None
        except sqlite3.Error as e:
            raise self._damaged(e) from None
        if row is None:
            raise CorruptJournal(f"{self.path}: the head checkpoint row is gone; {fix}")
        try:
            # Row 1, when present, is the record the writer vouches for (Journal.vouch): (position, hash).
            v = self.db.execute("SELECT count, hash FROM head WHERE id = 1").fetchone()
        except sqlite3.Error as e:
            raise self._damaged(e) from None
        self.checkpoint_meta = [_meta_of({"vouch": list(v)} if v is not None else {})]
        try:
            return [("head table", Head.parse(tuple(row)))]
        except BadInput:
            raise CorruptJournal(
                f"{self.path}: the head checkpoint row is damaged ({row!r}); the database was edited. Restore it "
                "from a backup."
            ) from None

    def read_checkpoint(self) -> Head | None:
        return self.read_checkpoints()[0][1]

    def write_checkpoint(self, head: Head, vouch: tuple[int, str] | None = None, first: str | None = None) -> None:
        try:
            with self.db:
                self.db.execute("INSERT OR REPLACE INTO head VALUES (0, ?, ?)", (head.count, head.hash))
                if vouch is None:
                    self.db.execute("DELETE FROM head WHERE id = 1")
                else:
                    self.db.execute("INSERT OR REPLACE INTO head VALUES (1, ?, ?)", vouch)
        except sqlite3.Error as e:
            raise _write_failed(self.path, "its head checkpoint", e, "the records themselves are in the file.") from e

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        if self.lock:
            self.lock.release()


def _backend_name(path: Any, backend: str | None) -> str:
    if backend is None:
        return (
            "memory" if path is None else ("sqlite" if str(path).endswith((".sqlite", ".sqlite3", ".db")) else "jsonl")
        )
    return backend


def _file_path(path: Any, call: str) -> Path:
    """`path` as a Path when it names a file path (a str or os.PathLike giving a non-empty str without NUL);
    BadInput naming `call` otherwise. Checked before anything is opened, so a bad path is one clear line."""
    if not isinstance(path, (str, os.PathLike)):
        raise BadInput(
            f"{call}: a journal path is a str or os.PathLike (pathlib.Path), got {_kind(path)}; pass the file's "
            "path, e.g. 'run.jsonl' or 'run.sqlite'."
        )
    try:
        text = os.fspath(path)
    except Exception:  # noqa: BLE001 - a hostile __fspath__: described by its type
        raise BadInput(f"{call}: the path's __fspath__ failed ({_kind(path)}); pass a str or pathlib.Path.") from None
    if not isinstance(text, str):
        raise BadInput(f"{call}: a journal path must give a str, got {_kind(text)}; decode it with os.fsdecode.")
    if not text or "\x00" in text:
        raise BadInput(
            f"{call}: a journal path must be non-empty and hold no NUL character, got {safe_repr(text)}."
        )
    return Path(text)


def _is_file(path: Path) -> bool:
    """Whether `path` is a file; BadInput (not a bare OSError) when the system refuses the name itself (too long)."""
    try:
        return path.is_file()
    except OSError as e:
        raise BadInput(
            f"{safe_repr(str(path))} is not a usable journal path ({e.strerror or type(e).__name__}); pass a "
            "shorter path."
        ) from None


def _kind(value: Any) -> str:
    """A value named by its type only (for arguments whose repr, __eq__ or __hash__ may raise)."""
    try:
        return type(value).__name__
    except Exception:  # pragma: no cover
        return "a value"


def _check_name(what: str, value: Any, allowed: tuple[str, ...], none: bool = False) -> None:
    """BadInput unless `value` is one of the strings `allowed` (or None when `none`): checked by type first, so a
    value whose __eq__ raises is refused by its type, never compared."""
    if (value is None and none) or (isinstance(value, str) and value in allowed):
        return
    raise BadInput(f"{what}={safe_repr(value)}: choose one of {', '.join(repr(a) for a in allowed)}.")


def _short_messages(method: Callable) -> Callable:
    """A Journal entry point whose refusals quote at most an 80-character prefix of a long argument (a 5,000-
    character path, say) and stay under ~1,000 characters (validation._compact)."""
    import functools

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except SolviLabError as e:
            _compact(e, args[1:] if args and isinstance(args[0], Journal) else args, kwargs)
            raise

    return call


def _backend_for(path: str | os.PathLike | None, backend: str | None, durability: str, writable: bool):
    backend = _backend_name(path, backend)
    if backend == "memory":
        if path is not None:
            raise BadInput("backend='memory' takes no path; pass path=None or choose backend='jsonl' or 'sqlite'.")
        return _MemoryBackend()
    if path is None:
        raise BadInput(f"backend={backend!r} needs a file path; pass Journal('run.jsonl') or Journal() for memory.")
    if not isinstance(path, (str, os.PathLike)):
        raise BadInput(f"a journal path is a str or os.PathLike, got {type(path).__name__}.")
    # Resolved once, at open (absolute; symlinks are followed where the file is opened, as before): a later
    # os.chdir never sends a read or a write to another folder's file of the same name.
    path = Path(os.path.abspath(path))
    if backend == "jsonl":
        return _JsonlBackend(path, durability, writable)
    if backend == "sqlite":
        return _SqliteBackend(path, durability, writable)
    raise BadInput(f"unknown journal backend {backend!r}; use 'memory', 'jsonl' or 'sqlite'.")


class Journal:
    """An append-only, hash-chained sequence of records.

    Journal() keeps records in memory; Journal("x.jsonl") or Journal("x.sqlite") persists them (loaded and
    verified when the file exists). `timestamps` gives each record's wall-clock time stamp (a callable returning
    seconds, e.g. time.time); the default None writes none, so the same calls give the same journal, byte for byte.

    mode="a" (the default) opens for appending and takes the writer lock; mode="r" opens read-only: no lock, no
    write of any kind (`Journal.open(path, mode="r")`). durability="flush" (default: each record reaches the
    operating system before append returns; survives the process being killed) or "fsync" (each record reaches
    the disk; survives a power cut; slower — README lists both rates). The head checkpoint is written on close(),
    every `checkpoint_every` appends and at the first append `checkpoint_seconds` after the last one.

    >>> j = Journal()
    >>> _ = j.append("a", {"n": 1}); _ = j.append("b", [1, 2])
    >>> [r.kind for r in j]
    ['a', 'b']
    >>> j[1].prev == j[0].hash
    True
    >>> j.head().count
    2
    """

    _vouch: tuple[int, str] | None = None  # the record the head checkpoint vouches for (vouch())
    expected_head: Head | None = None  # the head passed as expect_head= (an owner may ask what it covers)
    _cp_stale = False  # the checkpoint on disk says something else than this writer would (written at close)

    @_short_messages
    def __init__(
        self,
        path: str | os.PathLike | None = None,
        *,
        backend: str | None = None,
        timestamps: Callable[[], float] | None = None,
        clock: Any = _UNSET,
        mode: str = "a",
        durability: str = "flush",
        durable: bool | None = None,
        lock: bool = True,
        checkpoint_every: int = 1000,
        checkpoint_seconds: float = 5.0,
        expect_head: Any = None,
        on_load: Callable[[Record], None] | None = None,
        load_checks: bool = True,
        skip_prefix: Prefix | None = None,
    ):
        if not isinstance(mode, str) or mode not in ("a", "r"):
            raise BadInput(
                f"mode={safe_repr(mode)}: open a journal with mode='a' (append, the default) or mode='r' (read-only)."
            )
        if path is not None:
            path = _file_path(path, "Journal()")
        _check_name("backend", backend, ("memory", "jsonl", "sqlite"), none=True)
        if on_load is not None and not callable(on_load):
            raise BadInput(f"on_load must be a callable taking each Record, or None; got {_kind(on_load)}.")
        if skip_prefix is not None:
            try:
                skip_prefix = Prefix(*skip_prefix)
            except Exception:  # noqa: BLE001 - a bare TypeError from a value that is not a Prefix
                raise BadInput(f"skip_prefix must be a journal.Prefix or None, got {_kind(skip_prefix)}.") from None
        if clock is not _UNSET:  # the older name of `timestamps`
            warnings.warn("Journal(clock=...) is now Journal(timestamps=...)", DeprecationWarning, stacklevel=2)
            timestamps = clock
        if timestamps is not None and not callable(timestamps):
            raise BadInput(
                f"timestamps must be a callable returning seconds (e.g. time.time) or None, got "
                f"{safe_repr(timestamps)}."
            )
        if durable is not None:  # the older spelling
            durability = "fsync" if durable else "flush"
        if not isinstance(durability, str) or durability not in DURABILITY:
            raise BadInput(f"durability={safe_repr(durability)}: choose 'flush' (default) or 'fsync'.")
        if not isinstance(checkpoint_every, int) or isinstance(checkpoint_every, bool) or checkpoint_every < 1:
            raise BadInput(f"checkpoint_every must be a positive int (appends), got {safe_repr(checkpoint_every)}.")
        if (
            not isinstance(checkpoint_seconds, (int, float))
            or isinstance(checkpoint_seconds, bool)
            or not 0 <= checkpoint_seconds < float("inf")
        ):
            raise BadInput(f"checkpoint_seconds must be a finite number ≥ 0, got {safe_repr(checkpoint_seconds)}.")
        if lock is not True:
            raise BadInput(
                f"Journal(lock={safe_repr(lock)}): a writer always takes the writer lock (two unlocked writers would "
                "interleave and fork the chain); to read beside a writer without the lock, open it read-only with "
                "Journal(path, mode='r')."
            )
        expect = None if expect_head is None else Head.parse(expect_head)
        self.path = None if path is None else Path(path)
        self.mode = mode
        self.durability = durability
        self.checkpoint_every = checkpoint_every
        self.checkpoint_seconds = float(checkpoint_seconds)
        self._closed = True  # until the load succeeded: a failed open has nothing to close
        self._backend = _backend_for(path, backend, durability, mode == "a")
        self.path = getattr(self._backend, "path", None)  # absolute: what every later read and write uses
        self._writable = mode == "a"
        self._timestamps = timestamps
        self._on_load = on_load
        # on_load sees every record as it is verified (every file backend), so a reader folds a journal in one pass.
        # load_checks=False: the owner folding every record in on_load reads (and is wrapped for) what it folds, so
        # the registered shape checks need not run twice on the load hot path (the knowledge store does this).
        self._load_checks = load_checks
        checks = bool(_KIND_CHECKS and load_checks)
        # Without shape checks the visit is on_load itself: no call in between on the load's hot path (issue 42).
        visit = self._visit if checks else on_load
        # skip_prefix: a reader holding the fold of the journal's first records (knowledge/fold_snapshot.py) has
        # the JSONL load check their bytes as one block against the digest it names — no JSON parse, no visit —
        # (_JsonlBackend._skip_block); `skipped` says how many were (0: the full load ran). The other backends
        # always run the full load.
        try:
            if skip_prefix is not None and isinstance(self._backend, _JsonlBackend):
                self._n, self._last = self._backend.load(visit, Prefix(*skip_prefix))
            else:
                self._n, self._last = self._backend.load(visit)
            self._check_checkpoint()
            if expect is not None:
                self.check_head(expect)
        except BaseException:
            # Release what the open took (lock, file handle, SQLite connection): the repaired file reopens.
            self._backend.close()
            raise
        self._vouch = self._vouch_read()
        self.expected_head = expect  # the head the opener kept (expect_head), checked above; None when none
        self._closed = False
        self._cp_count = self._n
        lock = getattr(self._backend, "lock", None)
        if lock is not None and lock.created and isinstance(self._backend, _JsonlBackend):
            self._cp_stale = True  # a new file: its own checkpoint at close, over any other file's left at this name
        self._cp_failed_at = -1  # the count at which a checkpoint last failed (tried again checkpoint_every later)
        self._cp_time = time.monotonic()
        self.checkpoint_failure = ""  # why the last checkpoint could not be written ('' when it was)
        # One reentrant lock per journal: an append is one whole record, and every journal owner's public write
        # holds it for all its steps (solvi_lab.owner), so threads sharing owners on one journal take turns.
        self.lock = threading.RLock()

    def _visit(self, r: Record) -> None:
        check = _KIND_CHECKS.get(r.kind) if self._load_checks else None
        if check is not None:
            check(r.payload)
        if self._on_load is not None:
            self._on_load(r)

    @classmethod
    def open(cls, path: str | os.PathLike, mode: str = "a", **kw: Any) -> Journal:
        """Open a journal file: mode="a" to append (takes the writer lock), mode="r" read-only (no lock, no write).

        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "j.jsonl"
        >>> with Journal.open(p) as w:
        ...     _ = w.append("note", {"n": 1})
        ...     with Journal.open(p, mode="r") as r:
        ...         len(r)
        1
        """
        return cls(path, mode=mode, **kw)

    # -- the head ----------------------------------------------------------------------------------------
    def _vouch_read(self) -> tuple[int, str] | None:
        """The record the head checkpoints vouch for as this journal holds it: every place that holds a checkpoint
        names the same (position, hash), and this journal's record at that position has that hash; else None."""
        seen = [m["vouch"] for _, m in self._applying(getattr(self._backend, "checkpoints_seen", ()))]
        if not seen or any(v != seen[0] for v in seen) or seen[0] is None:
            return None
        pos, h = seen[0]
        if pos >= self._n or self._backend.get(pos).hash != h:
            return None
        return pos, h

    @property
    def vouched(self) -> int | None:
        """The position of the record this journal's writer vouches for (`vouch`), as its head checkpoint names
        it; None when none does. What a vouch means is the owner's (the knowledge store vouches for the fold
        snapshot record it wrote itself: knowledge/fold_snapshot.py)."""
        return None if self._vouch is None else self._vouch[0]

    def vouch(self, position: int | None) -> None:
        """Name the record at `position` in the head checkpoint from now on (None: name none): a record this
        writer appended or checked itself. A record someone appended to the file without this library's writer
        (after the last checkpoint) is never vouched for by the checkpoints, so an owner can tell the two apart.
        Written with the next checkpoint (and at close)."""
        if self._closed or not self._writable:
            raise BadInput("vouch() needs a journal open for appending.")
        if position is not None and (type(position) is not int or not 0 <= position < self._n):
            raise BadInput(
                f"vouch(position={safe_repr(position)}): name a record of this journal (0 ≤ position < {self._n})."
            )
        with self.lock:
            new = None if position is None else (position, self._backend.get(position).hash)
            if new != self._vouch:
                self._vouch = new
                self._cp_stale = True  # the checkpoint on disk no longer says this: written at the next one, or close

    def head(self) -> Head:
        """(count, last_hash): how many records the journal holds and the hash of the last one. Print it, keep
        it, and check the journal against it later with verify(head=...) or open(..., expect_head=...)."""
        return Head(self._n, self._last)

    @property
    def skipped(self) -> int:
        """How many first records the load checked as one block of bytes for `skip_prefix` (0: none)."""
        return getattr(self._backend, "skipped", 0)

    def recheck_skipped(self) -> None:
        """Parse and check the records the load skipped (`skipped`) as the full load does, raising CorruptJournal
        at the first bad one: for a reader that asked to skip them and cannot use its fold of them after all."""
        if self.skipped:
            self._backend.recheck(self.skipped)
            self._backend.skipped = 0

    @property
    def torn_tail(self) -> int:
        """Bytes after the last whole record that a read-only open left out (JSONL): a line a writer beside it was
        still writing, or a crash's torn record (which only a writer's open refuses and Journal.repair moves aside).
        0 for a writer, which refuses a torn file instead."""
        return getattr(self._backend, "torn_tail", 0)

    @property
    def last_hash(self) -> str:
        """The hash of the last record (GENESIS for an empty journal)."""
        return self._last

    def check_head(self, head: Any) -> None:
        """Raise CorruptJournal when this journal is shorter than `head` or its record at that count differs."""
        h = Head.parse(head)
        where = str(self.path or "journal")
        if self._n < h.count:
            raise CorruptJournal(
                f"{where}: holds {self._n} records but the head you kept says {h.count}: records "
                f"{self._n}..{h.count - 1} were cut off. Restore the file from a backup."
            )
        got = GENESIS if h.count == 0 else self._backend.get(h.count - 1).hash
        if got != h.hash:
            raise CorruptJournal(
                f"{where}: record {h.count - 1} is not the one the head you kept names (hash {got[:12]}… ≠ "
                f"{h.hash[:12]}…): the journal was rewritten at or before that position. Restore it from a backup."
            )

    def _applying(self, found: Any) -> list[tuple[tuple[str, Head], dict[str, Any]]]:
        """The checkpoints among `found` (the backend's last read, with its `checkpoint_meta`) that are this
        journal's. Every one is, except a `.head` found by name that names another file when this open created the
        file: nothing was at this name, so it was left by a journal moved away (or deleted), and a new journal
        starts here. (A file that was there is checked against every checkpoint found by its name, whatever file
        they name: an older copy moved over a journal, or a journal rewritten into a new file, is refused.) A head
        index entry (solvi_lab.journal_head_index) is this journal's only for the same use of the inode (generation)
        or, where that is unknown, when it names this journal's first record."""
        found = list(found)
        meta = list(getattr(self._backend, "checkpoint_meta", ()))
        meta += [_meta_of({})] * (len(found) - len(meta))
        pairs = list(zip(found, meta))
        if any(journal_head_index.is_entry(where) for (where, _), _ in pairs):
            # A head index entry (keyed by device and inode) counts for the same use of the inode (its generation,
            # where the file system tells it: read_entry) or else for the journal whose first record it names: a
            # new file on a reused inode number is not held to a deleted file's entry — ignored, never refused.
            # An empty file has no first record to compare: an entry that names one (records existed) and that
            # read_entry kept (a name it was written through is still this file) is this file's — a cut to zero
            # records through any name. A new journal on a reused inode never meets it: the open that created the
            # file removed the entry (load). The one false alarm left: an empty file made by hand (`touch`) at a
            # deleted journal's name on its reused inode number, where the generation is unknown — refused with
            # Journal.forget_head named as the way to accept it (_checkpoint_problem).
            first = self._backend.get(0).hash if self._n else None
            pairs = [
                (item, m)
                for item, m in pairs
                if not journal_head_index.is_entry(item[0])
                or m["same_file"]
                or (m["first"] is not None and m["first"] == first)
                or (first is None and m["first"] is not None)
            ]
        lock = getattr(self._backend, "lock", None)
        if lock is None or not lock.created:
            return pairs
        me = self._backend.identity() if hasattr(self._backend, "identity") else None
        return [
            (item, m)
            for item, m in pairs
            if (m["file"] is None or m["file"] == me) and not journal_head_index.is_entry(item[0])  # a new file
        ]

    def _check_checkpoint(self) -> None:
        for (where, cp), _ in self._applying(getattr(self._backend, "checkpoints_seen", ())):
            problem = self._checkpoint_problem(where, cp)
            if problem:
                raise CorruptJournal(problem)

    def _checkpoint_problem(self, where: str, cp: Head) -> str:
        """What is wrong with this journal against a checkpoint of it ('' when it agrees)."""
        path = str(self.path)
        if self._n == 0 < cp.count and journal_head_index.is_entry(where):
            return (
                f"{path}: is empty but its head checkpoint says {cp.count} records were written ({where}): records "
                f"0..{cp.count - 1} were lost (the journal was cut to zero records). Restore it from a backup; if this "
                "empty file is a new journal on purpose (made by hand where a deleted journal's file was), "
                f"Journal.forget_head('{path}') accepts it."
            )
        if self._n < cp.count:
            return (
                f"{path}: holds {self._n} records but its head checkpoint says {cp.count} were written ({where}): "
                f"records {self._n}..{cp.count - 1} were lost (the file was cut or replaced by an older copy). "
                f"Restore it from a backup; if the shorter journal is what you want, Journal.repair('{path}') "
                "accepts it (it writes a new checkpoint)."
            )
        got = GENESIS if cp.count == 0 else self._backend.get(cp.count - 1).hash
        if got != cp.hash:
            return (
                f"{path}: record {cp.count - 1} differs from the one its head checkpoint names ({where}): the "
                "journal was rewritten (or replaced by another journal). Restore it from a backup; if this journal "
                f"is the one you want, Journal.repair('{path}') accepts it."
            )
        return ""

    def checkpoint(self) -> Head:
        """Write the head checkpoint now (it is also written on close and every N appends / T seconds).
        JournalWriteFailed when it cannot be written (the records themselves are safe)."""
        if self._closed or not self._writable:
            raise BadInput("checkpoint() needs a journal open for appending.")
        with self.lock:
            h = self.head()
            self._backend.write_checkpoint(h, self._vouch, self._backend.get(0).hash if self._n else None)
            self._cp_count, self._cp_time = self._n, time.monotonic()
            self._cp_stale = False
            self.checkpoint_failure = ""
            return h

    def _checkpoint_due(self) -> bool:
        since = self._n - max(self._cp_count, self._cp_failed_at)
        return since >= self.checkpoint_every or bool(
            self.checkpoint_seconds and time.monotonic() - self._cp_time >= self.checkpoint_seconds
        )

    def _try_checkpoint(self) -> None:
        """Write the head checkpoint after records that are already safe: a failure is a warning and a recorded
        state (`checkpoint_failure`), never a failed append or close; it is tried again at the next due time."""
        try:
            self.checkpoint()
        except JournalWriteFailed as e:
            self.checkpoint_failure = str(e)
            self._cp_failed_at, self._cp_time = self._n, time.monotonic()
            warnings.warn(
                JournalCheckpointWarning(
                    f"{e} Nothing was lost; the checkpoint is tried again at the next one due (and on close)."
                ),
                stacklevel=4,
            )

    # -- writing -----------------------------------------------------------------------------------------
    def _check_can_append(self, kind: Any) -> None:
        """What both appends check first: the journal is open for writing and the kind is a non-empty string."""
        if self._closed:
            raise BadInput("this journal is closed; open it again with Journal(path) to append.")
        if not self._writable:
            raise BadInput("this journal is open read-only (mode='r'); open it with mode='a' to append.")
        if not isinstance(kind, str) or not kind:
            raise BadInput(f"record kind must be a non-empty string, got {safe_repr(kind)}.")

    def append(self, kind: str, payload: Any) -> Record:
        """Append one record and return it. The payload must be JSON (dict, list, str, number, bool, None) of the
        shape its kind's owner declared (register_kind); anything else raises BadInput and writes nothing."""
        self._check_can_append(kind)
        try:
            ptext = canonical(payload)
            kind.encode("utf-8")
            ptext.encode("utf-8")
            # Round-trip the payload so the record holds exactly what a reload gives (tuples become lists).
            value = _DECODE(ptext)
        except (TypeError, ValueError, RecursionError) as e:
            raise BadInput(
                f"payload of a {kind!r} record is not JSON that reads back ({type(e).__name__}: {e}); pass dicts "
                "with string keys, lists, valid-UTF-8 strings, finite numbers, booleans and None, nested less "
                "than ~900 deep."
            ) from None
        check_payload(kind, value)
        with self.lock:
            return self._append(kind, ptext, value)

    def append_encoded(self, kind: str, ptext: str, value: Any) -> Record:
        """Append one record whose payload the caller already turned into its canonical form: `ptext` is
        `canonical(value)` and `value` what JSON gives back for it (the caller's promise; the store's add path
        builds both from values it checked once, so the payload is not encoded and decoded a second time). The
        kind, the text's UTF-8 and the registered payload shape are checked as `append` checks them.

        >>> j = Journal()
        >>> j.append_encoded("note", '{"a":[1]}', {"a": [1]}).payload == j.append("note", {"a": (1,)}).payload
        True
        """
        self._check_can_append(kind)
        if type(ptext) is not str:
            raise BadInput(
                f"append_encoded: the payload text is canonical(value), a str; got {_kind(ptext)}. Use "
                "append(kind, payload) to have the journal encode it."
            )
        try:
            kind.encode("utf-8")
            ptext.encode("utf-8")
        except UnicodeEncodeError as e:
            raise BadInput(
                f"payload of a {kind!r} record is not JSON that reads back ({type(e).__name__}: {e}); pass "
                "valid-UTF-8 strings (no lone surrogates)."
            ) from None
        check_payload(kind, value)
        with self.lock:
            return self._append(kind, ptext, value)

    def _append(self, kind: str, ptext: str, value: Any) -> Record:
        t = None if self._timestamps is None else round(float(self._timestamps()), 6)
        if t is not None and not abs(t) < float("inf"):
            raise BadInput(f"the journal's timestamps source returned {t!r}; a time stamp is a finite number.")
        position = self._n
        htext = _header_text(position, kind, ptext, self._last, t)
        h = _hash_text(htext)
        rec = Record(position, kind, value, self._last, h, t)
        line = '{"hash":"' + h + '",' + htext[1:]
        self._backend.write(rec, line)  # JournalWriteFailed: nothing written, nothing below changes
        self._n += 1
        self._last = h
        if self._checkpoint_due():
            self._try_checkpoint()
        return rec

    # -- reading -----------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n

    @property
    def position(self) -> int:
        """The position the next record will get (= the number of records)."""
        return self._n

    def __iter__(self) -> Iterator[Record]:
        return self._backend.iter(0, self._n)

    def records(self, start: int = 0, stop: int | None = None, kind: str | None = None) -> Iterator[Record]:
        """Records from position `start` up to (not including) `stop`, optionally of one kind only. The arguments
        are checked when it is called (not at the first record)."""
        if not isinstance(start, int) or isinstance(start, bool) or start < 0:
            raise BadInput(f"start must be a non-negative position, got {safe_repr(start)}.")
        if stop is not None and (not isinstance(stop, int) or isinstance(stop, bool)):
            raise BadInput(f"stop must be a position (an int) or None, got {safe_repr(stop)}.")
        if kind is not None and not isinstance(kind, str):
            raise BadInput(f"kind must be a record kind (a string) or None, got {safe_repr(kind)}.")
        return self._records(start, stop, kind)

    def _records(self, start: int, stop: int | None, kind: str | None) -> Iterator[Record]:
        for r in self._backend.iter(start, self._n if stop is None else min(stop, self._n)):
            if kind is None or r.kind == kind:
                yield r

    def __getitem__(self, position: int) -> Record:
        if not isinstance(position, int) or isinstance(position, bool):
            raise BadInput(f"a journal position is an int, got {type(position).__name__}.")
        if position < 0:
            position += self._n
        if not 0 <= position < self._n:
            raise BadInput(
                f"position {position} is past the end of the journal ({self._n} records, positions 0..{self._n - 1})."
            )
        return self._backend.get(position)

    def verify(
        self, head: Any = None, *, exact: bool = False, visit: Callable[[Record], None] | None = None
    ) -> VerifyReport:
        """Walk the whole chain again and report the first problem, if any (O(records), constant memory). With
        `head` (a kept `head()`), also report a journal shorter than it or differing at its count; with
        exact=True also one longer than it (records appended after the head was kept: a forged tail, say).
        `visit(record)` is called on each record that passed its check, in order (a reader that needs one pass
        over the whole journal gets it from the walk instead of parsing every line again)."""
        expect = None if head is None else Head.parse(head)
        prev, n = GENESIS, 0
        fast = getattr(self._backend, "raw_lines", None)
        at_head = None
        try:
            for item in fast() if fast else self._backend.iter(0, None):
                if n >= self._n and not self._writable:
                    break  # a read-only view checks what it loaded; a writer beside it may have appended more
                if fast:
                    line, rec = item
                    r = _JsonlBackend._fast_check(line, rec, n, prev) or _check(rec, n, prev, str(self.path))
                else:
                    r = _check(item.as_dict(), n, prev, str(self.path or "journal"))
                if visit is not None:
                    visit(r)
                prev = r.hash
                n += 1
                if expect is not None and n == expect.count:
                    at_head = r.hash
        except (CorruptJournal, ValueError, RecursionError) as e:
            msg = str(e) if isinstance(e, CorruptJournal) else f"record {n} is not valid JSON ({e})"
            return VerifyReport(False, n, msg, n)
        if n != self._n or prev != self._last:
            return VerifyReport(False, n, f"the journal holds {n} records but {self._n} were written", n)
        problem = self._checkpoints_problem()
        if problem:
            return VerifyReport(False, n, problem, None)
        if expect is not None:
            if n < expect.count:
                return VerifyReport(False, n, f"holds {n} records; the kept head says {expect.count}", n)
            if (GENESIS if expect.count == 0 else at_head) != expect.hash:
                return VerifyReport(
                    False, n, f"record {expect.count - 1} differs from the kept head's", max(expect.count - 1, 0)
                )
            if exact and n != expect.count:
                return VerifyReport(
                    False,
                    n,
                    f"holds {n} records; the kept head ends at {expect.count} (records were appended)",
                    expect.count,
                )
        return VerifyReport(True, n)

    def _checkpoints_problem(self) -> str:
        """The file's head checkpoints read again now, checked against the records ('' when they agree; a missing
        SQLite head is a problem). A read-only view skips a checkpoint newer than what it loaded (a writer beside
        it went on)."""
        read = getattr(self._backend, "read_checkpoints", None)
        if read is None or self._closed:
            return ""
        try:
            found = read()
        except (CorruptJournal, JournalWriteFailed) as e:
            return str(e)
        for (where, cp), _ in self._applying(found):
            if cp.count <= self._n or self._writable:
                problem = self._checkpoint_problem(where, cp)
                if problem:
                    return problem
        return ""

    def frame(self):
        """One row per record: position, kind, op (payload's 'op' when it has one), t, and the payload as JSON.

        A polars frame; ``frame().to_pandas()`` gives the same rows as a pandas DataFrame (pandas and pyarrow are
        dependencies for this)."""
        import polars as pl

        rows = {"position": [], "kind": [], "op": [], "t": [], "payload": []}
        for r in self:
            rows["position"].append(r.position)
            rows["kind"].append(r.kind)
            rows["op"].append(r.payload.get("op") if isinstance(r.payload, dict) else None)
            rows["t"].append(r.t)
            rows["payload"].append(canonical(r.payload))
        return pl.DataFrame(
            rows, schema={"position": pl.Int64, "kind": pl.Utf8, "op": pl.Utf8, "t": pl.Float64, "payload": pl.Utf8}
        )

    # -- life cycle --------------------------------------------------------------------------------------
    def close(self) -> None:
        """Write the head checkpoint (writers) and release the file, its connection and its writer lock."""
        if not self._closed:
            try:
                if self._writable and (self._n != self._cp_count or self._cp_stale):
                    self._try_checkpoint()
            finally:
                self._backend.close()
                self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort at interpreter exit
        try:
            self.close()
        except Exception:
            pass

    @staticmethod
    @_short_messages
    def read(path: str | os.PathLike, backend: str | None = None) -> Journal:
        """Open a journal read-only: no writer lock, no write (for analysis beside a running writer)."""
        return Journal(_file_path(path, "Journal.read()"), backend=backend, mode="r")

    @staticmethod
    @_short_messages
    def forget_head(path: str | os.PathLike) -> None:
        """Forget the head checkpoint of the JSONL journal at `path` — its extended attribute, its `.head`, any
        other `.head` beside it naming the same file and its head index entry — so that the next open takes the
        file as it is. The documented
        way to replace a journal on purpose (call it, then put the new journal in place; or the other way round):
        deleting the `.head` by hand leaves the attribute, which follows the file. Takes the writer lock (refused
        while a writer is open). A SQLite journal keeps its head inside the file: a replacement brings its own."""
        # The same path checks as every entry point (a NUL, a hostile __fspath__, a name the system refuses: the
        # project's error, never a bare ValueError / OSError).
        path = Path(os.path.abspath(_file_path(path, "Journal.forget_head()")))
        if _backend_name(path, None) != "jsonl":
            raise BadInput(
                f"{path}: Journal.forget_head is for JSONL journals; a SQLite journal keeps its head inside the "
                "file (a replacement brings its own; Journal.repair accepts a shorter one)."
            )
        try:
            exists = path.exists()
        except OSError as e:  # the system refuses the name itself (too long): the path is bad, not the disk
            raise BadInput(
                f"{safe_repr(str(path))} is not a usable journal path ({e.strerror or type(e).__name__}); pass a "
                "shorter path."
            ) from None
        if not exists:
            try:
                journal_head.head_file(path).unlink(missing_ok=True)
            except OSError as e:
                raise _write_failed(path, "while forgetting its head checkpoint", e, "nothing else was changed.") from e
            return
        lock = _FileLock(path)
        lock.acquire()
        try:
            journal_head.remove_checkpoints(path, siblings=True)
        except OSError as e:
            raise _write_failed(path, "while forgetting its head checkpoint", e, "nothing else was changed.") from e
        finally:
            lock.release()

    @staticmethod
    @_short_messages
    def repair(path: str | os.PathLike, keep: int | None = None, backend: str | None = None) -> int:
        """Keep the whole, valid records of a journal and move the rest aside; return the number kept.

        Explicit by design: loading never drops anything on its own. `keep` limits the kept records to the first
        `keep` (to cut at a known-bad position). JSONL: the rest goes to `<path>.torn`; SQLite: the removed rows
        go to `<path>.torn.jsonl` as JSON lines. Takes the writer lock (refused while a writer is open) and writes
        a new head checkpoint for what it kept.
        """
        if keep is not None and (not isinstance(keep, int) or isinstance(keep, bool) or keep < 0):
            raise BadInput(f"keep must be a record count ≥ 0 or None, got {safe_repr(keep)}.")
        path = _file_path(path, "Journal.repair()")
        _check_name("backend", backend, ("jsonl", "sqlite", "memory"), none=True)
        if not _is_file(path):
            raise BadInput(f"no journal at {path}; Journal.repair needs an existing journal file.")
        name = _backend_name(path, backend)
        if name not in ("jsonl", "sqlite"):
            raise BadInput(f"Journal.repair works on 'jsonl' and 'sqlite' files, not backend={name!r}.")
        lock = _FileLock(path)
        lock.acquire()
        try:
            return _repair_sqlite(path, keep) if name == "sqlite" else _repair_jsonl(path, keep)
        except OSError as e:
            if isinstance(e, SolviLabError):
                raise
            raise _write_failed(
                path,
                "while repairing it",
                e,
                "make the directory writable (and free some space) and run Journal.repair again: it is safe to "
                "repeat (the tail is moved aside before the journal is cut).",
            ) from e
        finally:
            lock.release()


def _repair_jsonl(path: Path, keep: int | None) -> int:
    data = path.read_bytes()
    lines = data.split(b"\n")
    good, prev, n = [], GENESIS, 0
    for line in lines[:-1]:
        if keep is not None and n >= keep:
            break
        try:
            r = _check(_loads(line), n, prev, str(path))
            check_payload(r.kind, r.payload)
        except (CorruptJournal, BadInput, ValueError, RecursionError):
            break
        good.append(line)
        prev, n = r.hash, n + 1
    kept = b"".join(x + b"\n" for x in good)
    torn = data[len(kept) :]
    if torn:
        with open(str(path) + ".torn", "ab") as f:
            f.write(torn)
    # Rewrite in place (same inode, so the writer lock held on it stays meaningful) after saving the tail.
    with open(path, "r+b") as f:
        f.truncate(len(kept))
        f.flush()
        os.fsync(f.fileno())
    # Every checkpoint that names this file — its attribute, this name's .head and any other name's beside it (a
    # repair through a hard link) — says what was kept: the journal opens through each of its names.
    first = _check(_loads(good[0]), 0, GENESIS, str(path)).hash if good else None
    _write_checkpoint(path, Head(n, prev), first=first, siblings=True)
    return n


def _repair_sqlite(path: Path, keep: int | None) -> int:
    if path.stat().st_size < _SQLITE_MIN:
        raise CorruptJournal(
            f"{path}: {path.stat().st_size} bytes is not a SQLite journal; there is nothing to repair. Delete it "
            "to start a new journal, or restore it from a backup."
        )
    try:
        db = sqlite3.connect(path)
        db.text_factory = _sqlite_text
    except sqlite3.Error as e:
        raise CorruptJournal(f"{path}: SQLite cannot open it ({e}); restore it from a backup.") from None
    try:
        try:
            rows = db.execute("SELECT position, kind, payload, prev, hash, t FROM records ORDER BY position")
            prev, n, torn = GENESIS, 0, []
            for row in rows:
                ok = keep is None or n < keep
                if ok:
                    try:
                        rec = dict(zip(("position", "kind", "payload", "prev", "hash", "t"), row))
                        rec["payload"] = _loads(rec["payload"])
                        r = _check(rec, n, prev, str(path))
                        check_payload(r.kind, r.payload)
                    except (CorruptJournal, BadInput, ValueError, TypeError, AttributeError, RecursionError):
                        ok = False
                if ok:
                    prev, n = r.hash, n + 1
                else:
                    keep = n  # everything from the first bad record on goes aside
                    torn.append(json.dumps([str(x) if isinstance(x, bytes) else x for x in row], ensure_ascii=False))
            if torn:
                with open(str(path) + ".torn.jsonl", "a", encoding="utf-8", errors="surrogatepass") as f:
                    f.write("".join(x + "\n" for x in torn))
            with db:
                db.execute("DELETE FROM records WHERE position >= ? OR position < 0", (n,))
                db.execute("CREATE TABLE IF NOT EXISTS head (id INTEGER PRIMARY KEY, count INTEGER, hash TEXT)")
                db.execute("INSERT OR REPLACE INTO head VALUES (0, ?, ?)", (n, prev))
                db.execute("DELETE FROM head WHERE id = 1")  # a repair vouches for no record (Journal.vouch)
            return n
        except sqlite3.Error as e:
            if _sqlite_environment(e):
                raise _write_failed(
                    path,
                    "while repairing it",
                    e,
                    "the file is not damaged by this; make the directory writable "
                    "(and free some space) and run Journal.repair again.",
                ) from e
            raise CorruptJournal(
                f"{path}: SQLite cannot read its records ({type(e).__name__}: {e}); the database itself is damaged "
                "beyond what Journal.repair keeps. Restore it from a backup."
            ) from None
    finally:
        db.close()
