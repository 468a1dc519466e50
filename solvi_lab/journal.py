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
(`Journal("run.sqlite")`, or `backend="sqlite"`). Loading a file re-checks every hash; a torn last line
(an interrupted write) or an edited, reordered, inserted or deleted record raises `CorruptJournal` naming the
position. Nothing is ever silently truncated: `Journal.repair(path)` moves a torn tail aside explicitly.
A second writer on the same file is refused with `JournalLocked`.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import BadInput, CorruptJournal, JournalLocked

GENESIS = "0" * 64


def canonical(obj: Any) -> str:
    """Canonical JSON text: sorted keys, no whitespace, UTF-8 characters kept, NaN refused.

    >>> canonical({"b": 1, "a": [1.5, "é"]})
    '{"a":[1.5,"é"],"b":1}'
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


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


@dataclass
class VerifyReport:
    """What `verify()` found. Truthy when the chain is whole."""

    ok: bool
    records: int
    problem: str = ""
    position: int | None = None

    def __bool__(self) -> bool:
        return self.ok


def _check(rec: dict[str, Any], expected_position: int, prev: str, where: str) -> Record:
    """Check one loaded record against the chain; raise CorruptJournal naming the position."""
    try:
        position, kind, payload, rprev, rhash, t = (
            rec["position"],
            rec["kind"],
            rec["payload"],
            rec["prev"],
            rec["hash"],
            rec.get("t"),
        )
    except (KeyError, TypeError) as e:
        raise CorruptJournal(
            f"{where}: record at position {expected_position} lacks field {e}; the file was edited "
            "by hand or by another program. Restore it from a backup, or keep the records before "
            f"position {expected_position} with Journal.repair(path, keep={expected_position})."
        ) from None
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
    text = _header_text(position, kind, canonical(payload), rprev, t)
    if _hash_text(text) != rhash:
        raise CorruptJournal(
            f"{where}: record {position} was edited after it was written (its hash does not match "
            f"its content). Restore from a backup; Journal.repair(path, keep={position}) keeps the "
            "records before it."
        )
    return Record(position, kind, payload, rprev, rhash, t)


class _MemoryBackend:
    def __init__(self) -> None:
        self.records: list[Record] = []

    def load(self) -> tuple[int, str]:
        return 0, GENESIS

    def write(self, rec: Record, line: str) -> None:
        self.records.append(rec)

    def iter(self, start: int, stop: int | None) -> Iterator[Record]:
        yield from self.records[start:stop]

    def get(self, position: int) -> Record:
        return self.records[position]

    def close(self) -> None:
        pass


class _FileLock:
    """An exclusive advisory lock on `<path>.lock`: one writer per journal, across processes."""

    def __init__(self, path: Path):
        self.path = Path(str(path) + ".lock")
        self.fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise JournalLocked(
                f"journal {self.path.with_suffix('')} is open for writing elsewhere (lock "
                f"{self.path} is held). Close the other writer first, or open a read-only copy "
                "with Journal.read(path)."
            ) from None
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


class _JsonlBackend:
    """One record per line. A record is written as one whole line and flushed; a crash leaves at most a torn
    last line, which the next load detects (it never passes the hash check) and refuses to drop silently."""

    def __init__(self, path: Path, durable: bool, lock: bool):
        self.path = Path(path)
        self.on_record: Callable[[Record], None] | None = None
        self.durable = durable
        self.lock = _FileLock(self.path) if lock else None
        self.f = None
        self.offsets: list[int] = []  # byte offset of each record: O(1) random access without keeping payloads

    def load(self) -> tuple[int, str]:
        if self.lock:
            self.lock.acquire()
        n, prev = 0, GENESIS
        if self.path.exists():
            with open(self.path, "rb") as f:
                data = f.read()
            if data and not data.endswith(b"\n"):
                last = data.rsplit(b"\n", 1)
                keep = data.count(b"\n")
                self._release()
                raise CorruptJournal(
                    f"{self.path}: the last record (position {keep}) is torn: a write was "
                    f"interrupted. The {keep} records before it are whole. To go on, call "
                    f"Journal.repair('{self.path}') — it moves the torn tail ({len(last[-1])} bytes) "
                    "to a .torn file beside the journal and keeps the whole records."
                )
            offset = 0
            for line in data.split(b"\n")[:-1] if data else []:
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    self._release()
                    raise CorruptJournal(
                        f"{self.path}: record at position {n} is not valid JSON (byte offset "
                        f"{offset}); the file was edited. Restore it from a backup, or "
                        f"Journal.repair('{self.path}', keep={n}) keeps the records before it."
                    ) from None
                try:
                    r = self._fast_check(line, rec, n, prev) or _check(rec, n, prev, str(self.path))
                except CorruptJournal:
                    self._release()
                    raise
                if self.on_record is not None:
                    self.on_record(r)
                self.offsets.append(offset)
                offset += len(line) + 1
                prev = r.hash
                n += 1
        self.f = open(self.path, "ab")
        return n, prev

    def _release(self) -> None:
        if self.lock:
            self.lock.release()

    @staticmethod
    def _fast_check(line: bytes, rec: dict[str, Any], n: int, prev: str) -> Record | None:
        """Check a line as this backend writes it: the hash covers the exact bytes after the hash field, so
        no re-serialisation is needed. None when the line has another layout (then the full check runs)."""
        if not (line.startswith(b'{"hash":"') and line[73:75] == b'",') or not isinstance(rec, dict):
            return None
        h = rec.get("hash")
        if rec.get("position") != n or rec.get("prev") != prev or line[9:73].decode() != h:
            return None
        if hashlib.sha256(b"{" + line[75:]).hexdigest() != h:
            return None
        return Record(n, rec["kind"], rec["payload"], prev, h, rec.get("t"))

    def write(self, rec: Record, line: str) -> None:
        data = (line + "\n").encode("utf-8")
        self.offsets.append(self.f.tell())
        self.f.write(data)
        self.f.flush()
        if self.durable:
            os.fsync(self.f.fileno())

    def _parse(self, line: bytes) -> Record:
        d = json.loads(line)
        return Record(d["position"], d["kind"], d["payload"], d["prev"], d["hash"], d.get("t"))

    def iter(self, start: int, stop: int | None) -> Iterator[Record]:
        self.f.flush()
        if start >= len(self.offsets):
            return
        with open(self.path, "rb") as f:
            f.seek(self.offsets[start])
            pos = start
            for line in f:
                if stop is not None and pos >= stop:
                    break
                if not line.endswith(b"\n"):
                    break  # a write in progress from this very process: not yet a record
                yield self._parse(line)
                pos += 1

    def get(self, position: int) -> Record:
        self.f.flush()
        with open(self.path, "rb") as f:
            f.seek(self.offsets[position])
            return self._parse(f.readline())

    def raw_lines(self) -> Iterator[tuple[bytes, Any]]:
        """(line bytes, parsed JSON) of every whole line, for verification against the exact bytes."""
        self.f.flush()
        with open(self.path, "rb") as f:
            for line in f:
                if not line.endswith(b"\n"):
                    break
                line = line[:-1]
                yield line, json.loads(line)

    def close(self) -> None:
        if self.f:
            self.f.close()
            self.f = None
        self._release()


class _SqliteBackend:
    def __init__(self, path: Path, lock: bool):
        self.path = Path(path)
        self.lock = _FileLock(self.path) if lock else None
        self.db: sqlite3.Connection | None = None

    def load(self) -> tuple[int, str]:
        if self.lock:
            self.lock.acquire()
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS records (position INTEGER PRIMARY KEY, kind TEXT NOT NULL, "
            "payload TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL, t REAL)"
        )
        self.db.commit()
        n, prev = 0, GENESIS
        for position, kind, payload, rprev, rhash, t in self.db.execute(
            "SELECT position, kind, payload, prev, hash, t FROM records ORDER BY position"
        ):
            try:
                rec = {
                    "position": position,
                    "kind": kind,
                    "payload": json.loads(payload),
                    "prev": rprev,
                    "hash": rhash,
                    "t": t,
                }
                r = _check(rec, n, prev, str(self.path))
            except (CorruptJournal, json.JSONDecodeError) as e:
                self.close()
                raise CorruptJournal(
                    str(e)
                    if isinstance(e, CorruptJournal)
                    else f"{self.path}: record {n} has a payload that is not JSON; the database was edited."
                ) from None
            prev = r.hash
            n += 1
        return n, prev

    def write(self, rec: Record, line: str) -> None:
        # One transaction per record: a crash never leaves half a record behind.
        with self.db:
            self.db.execute(
                "INSERT INTO records VALUES (?,?,?,?,?,?)",
                (rec.position, rec.kind, canonical(rec.payload), rec.prev, rec.hash, rec.t),
            )

    def iter(self, start: int, stop: int | None) -> Iterator[Record]:
        q = "SELECT position, kind, payload, prev, hash, t FROM records WHERE position >= ?"
        args: list[Any] = [start]
        if stop is not None:
            q += " AND position < ?"
            args.append(stop)
        for position, kind, payload, prev, h, t in self.db.execute(q + " ORDER BY position", args).fetchall():
            yield Record(position, kind, json.loads(payload), prev, h, t)

    def get(self, position: int) -> Record:
        row = self.db.execute(
            "SELECT position, kind, payload, prev, hash, t FROM records WHERE position = ?", (position,)
        ).fetchone()
        return Record(row[0], row[1], json.loads(row[2]), row[3], row[4], row[5])

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        if self.lock:
            self.lock.release()


def _backend_for(path: str | os.PathLike | None, backend: str | None, durable: bool, lock: bool):
    if backend is None:
        backend = (
            "memory" if path is None else ("sqlite" if str(path).endswith((".sqlite", ".sqlite3", ".db")) else "jsonl")
        )
    if backend == "memory":
        if path is not None:
            raise BadInput("backend='memory' takes no path; pass path=None or choose backend='jsonl' or 'sqlite'.")
        return _MemoryBackend()
    if path is None:
        raise BadInput(f"backend={backend!r} needs a file path; pass Journal('run.jsonl') or Journal() for memory.")
    if backend == "jsonl":
        return _JsonlBackend(Path(path), durable, lock)
    if backend == "sqlite":
        return _SqliteBackend(Path(path), lock)
    raise BadInput(f"unknown journal backend {backend!r}; use 'memory', 'jsonl' or 'sqlite'.")


class Journal:
    """An append-only, hash-chained sequence of records.

    Journal() keeps records in memory; Journal("x.jsonl") or Journal("x.sqlite") persists them (loaded and
    verified when the file exists). `clock` gives each record's time stamp (a callable returning a number, or
    None for no time stamps — deterministic journals for tests and studies).

    >>> j = Journal(clock=None)
    >>> _ = j.append("a", {"n": 1}); _ = j.append("b", [1, 2])
    >>> [r.kind for r in j]
    ['a', 'b']
    >>> j[1].prev == j[0].hash
    True
    """

    def __init__(
        self,
        path: str | os.PathLike | None = None,
        *,
        backend: str | None = None,
        clock: Callable[[], float] | None = time.time,
        durable: bool = False,
        lock: bool = True,
        on_load: Callable[[Record], None] | None = None,
    ):
        self.path = None if path is None else Path(path)
        self._backend = _backend_for(path, backend, durable, lock)
        self._clock = clock
        # on_load sees every record as it is verified, so a reader folds a large journal in one pass.
        self.loaded_with_callback = on_load is not None and isinstance(self._backend, _JsonlBackend)
        if self.loaded_with_callback:
            self._backend.on_record = on_load
        self._n, self._last = self._backend.load()
        self._closed = False

    # -- writing -----------------------------------------------------------------------------------------
    def append(self, kind: str, payload: Any) -> Record:
        """Append one record and return it. The payload must be JSON (dict, list, str, number, bool, None)."""
        if self._closed:
            raise BadInput("this journal is closed; open it again with Journal(path) to append.")
        if not isinstance(kind, str) or not kind:
            raise BadInput(f"record kind must be a non-empty string, got {kind!r}.")
        try:
            ptext = canonical(payload)
        except (TypeError, ValueError) as e:
            raise BadInput(
                f"payload of a {kind!r} record is not JSON ({e}); pass dicts, lists, strings, finite "
                "numbers, booleans and None only."
            ) from None
        t = None if self._clock is None else round(float(self._clock()), 6)
        position = self._n
        htext = _header_text(position, kind, ptext, self._last, t)
        h = _hash_text(htext)
        # Round-trip the payload so the record holds exactly what a reload gives (tuples become lists).
        rec = Record(position, kind, json.loads(ptext), self._last, h, t)
        line = '{"hash":"' + h + '",' + htext[1:]
        self._backend.write(rec, line)
        self._n += 1
        self._last = h
        return rec

    # -- reading -----------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n

    @property
    def position(self) -> int:
        """The position the next record will get (= the number of records)."""
        return self._n

    @property
    def head(self) -> str:
        """The hash of the last record (GENESIS for an empty journal)."""
        return self._last

    def __iter__(self) -> Iterator[Record]:
        return self._backend.iter(0, None)

    def records(self, start: int = 0, stop: int | None = None, kind: str | None = None) -> Iterator[Record]:
        """Records from position `start` up to (not including) `stop`, optionally of one kind only."""
        if not isinstance(start, int) or start < 0:
            raise BadInput(f"start must be a non-negative position, got {start!r}.")
        for r in self._backend.iter(start, stop):
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

    def verify(self) -> VerifyReport:
        """Walk the whole chain again and report the first problem, if any (O(records), constant memory)."""
        prev, n = GENESIS, 0
        fast = getattr(self._backend, "raw_lines", None)
        for item in fast() if fast else self._backend.iter(0, None):
            try:
                if fast:
                    line, rec = item
                    r = _JsonlBackend._fast_check(line, rec, n, prev) or _check(rec, n, prev, str(self.path))
                else:
                    r = _check(item.as_dict(), n, prev, str(self.path or "journal"))
            except (CorruptJournal, json.JSONDecodeError) as e:
                return VerifyReport(False, n, str(e), n)
            prev = r.hash
            n += 1
        if n != self._n or prev != self._last:
            return VerifyReport(False, n, f"the journal holds {n} records but {self._n} were written", n)
        return VerifyReport(True, n)

    def frame(self):
        """One row per record: position, kind, op (payload's 'op' when it has one), t, and the payload as JSON."""
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
        """Release the file and its writer lock."""
        if not self._closed:
            self._backend.close()
            self._closed = True

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
    def read(path: str | os.PathLike, backend: str | None = None) -> Journal:
        """Open a journal without taking the writer lock (for analysis beside a running writer)."""
        return Journal(path, backend=backend, lock=False)

    @staticmethod
    def repair(path: str | os.PathLike, keep: int | None = None) -> int:
        """Keep the whole, valid records of a JSONL journal and move the rest to `<path>.torn`.

        Explicit by design: loading never drops anything on its own. `keep` limits the kept records to the
        first `keep` (to cut at a known-bad position). Returns the number of records kept.
        """
        path = Path(path)
        data = path.read_bytes()
        lines = data.split(b"\n")
        good, prev, n = [], GENESIS, 0
        for line in lines[:-1]:
            if keep is not None and n >= keep:
                break
            try:
                r = _check(json.loads(line), n, prev, str(path))
            except (CorruptJournal, json.JSONDecodeError):
                break
            good.append(line)
            prev, n = r.hash, n + 1
        kept = b"".join(x + b"\n" for x in good)
        torn = data[len(kept) :]
        if torn:
            with open(str(path) + ".torn", "ab") as f:
                f.write(torn)
        tmp = Path(str(path) + ".repair.tmp")
        tmp.write_bytes(kept)
        os.replace(tmp, path)
        return n
