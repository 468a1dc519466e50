"""A journal as a Parquet file, for analysis tools that read Parquet, and back — with its hash chain checked.

`export_journal` writes one row per record: position, kind, op (the payload's "op" when it has one, for filtering),
t, payload (canonical JSON text), prev and hash, and keeps the journal's head (record count and last hash) in the
file's metadata. Beside the file it writes `<name>.sha256`, the SHA-256 of the whole file in `sha256sum` format.
`import_journal` reads it back and re-checks every record's hash and link and the head before returning a single
record, so an edited, reordered or truncated file (even one cut at a row boundary) is refused with CorruptJournal
naming the first bad position; `KnowledgeStore.from_records(records)` then rebuilds the same store.

A damaged file never reaches the native Parquet reader in this process: the file's digest is checked first (pure
Python). When it matches, the bytes are the ones `export_journal` wrote. When it does not — or there is no
`.sha256` beside the file (an export from before the digest, a file copied alone) — the file is read first in a
child process, so a reader that aborts (a failed allocation, SIGABRT) or panics (`pyo3_runtime.PanicException`, a
BaseException) ends the child, not the caller, and the failure is a CorruptJournal with its reason. A digest that
does not match is refused even when the records check out: the file is not the one that was exported.

>>> import tempfile, pathlib
>>> from solvi_lab.knowledge import KnowledgeStore
>>> ks = KnowledgeStore()
>>> _ = ks.add("fact", {"s": "c17", "r": "tier", "o": "vip"}, source="person")
>>> path = export_journal(ks.journal, pathlib.Path(tempfile.mkdtemp()) / "run.parquet")
>>> records = import_journal(path)
>>> KnowledgeStore.from_records(records).fingerprint() == ks.fingerprint()
True
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import polars as pl

from ..atomicfile import FILE_MODE
from ..errors import BadInput, CorruptJournal

# The record hash is the journal's own definition (journal.py); importing it keeps the two from drifting apart.
from ..journal import GENESIS, Head, Journal, Record, _loads, canonical, record_hash
from ..validation import need_path
from .parquet_native import read_native

__all__ = ["PARQUET_SCHEMA", "export_journal", "import_journal", "journal_from_records", "record_hash"]

HEAD_COUNT, HEAD_HASH = b"solvi_lab.journal.count", b"solvi_lab.journal.head"  # Parquet key-value metadata
DIGEST_SUFFIX = ".sha256"  # the sidecar export_journal writes: "<hex>  <name>\n", as sha256sum prints it
PROBE_TIMEOUT_S = 120.0  # a child reading a damaged file that hangs is stopped and the file refused
_PASS_THROUGH = (KeyboardInterrupt, SystemExit)  # the caller's own interrupts stay theirs

PARQUET_SCHEMA: dict[str, Any] = {
    "position": pl.Int64,
    "kind": pl.Utf8,
    "op": pl.Utf8,
    "t": pl.Float64,
    "payload": pl.Utf8,
    "prev": pl.Utf8,
    "hash": pl.Utf8,
}


def _records_of(journal: Any) -> Iterable[Record]:
    if isinstance(journal, Journal):
        return journal
    inner = getattr(journal, "journal", None)
    # a KnowledgeStore (or anything holding its journal); a rebuilt view of the past shares the live journal,
    # whose records are not the view's, so it is refused like a store folded from a list of records
    if isinstance(inner, Journal) and not getattr(journal, "read_only", False):
        return inner
    raise BadInput(
        f"export_journal() takes a Journal (or a store holding one as .journal), got "
        f"{type(journal).__name__}; a rebuilt store has no journal — export the live store's."
    )


def export_journal(journal: Journal, path: str | os.PathLike) -> Path:
    """Write every record of `journal` to a Parquet file at `path` (replaced atomically if it exists).

    Returns the path. Cost: one pass over the journal; payloads are written as canonical JSON text (the text the
    hash covers), so the file is as exact as the journal itself.

    >>> import tempfile, pathlib
    >>> j = Journal(); _ = j.append("note", {"n": 1})
    >>> p = export_journal(j, pathlib.Path(tempfile.mkdtemp()) / "j.parquet")
    >>> pl.read_parquet(p).select("position", "kind", "payload").row(0)
    (0, 'note', '{"n":1}')
    """
    records = _records_of(journal)
    path = need_path("path", path)
    if path.is_dir():
        raise BadInput(f"{path} is a directory; pass a file path such as {path / 'journal.parquet'}.")
    cols: dict[str, list[Any]] = {k: [] for k in PARQUET_SCHEMA}
    for r in records:
        cols["position"].append(r.position)
        cols["kind"].append(r.kind)
        op = r.payload.get("op") if isinstance(r.payload, dict) else None
        cols["op"].append(op if isinstance(op, str) else None)
        cols["t"].append(None if r.t is None else float(r.t))
        cols["payload"].append(canonical(r.payload))
        cols["prev"].append(r.prev)
        cols["hash"].append(r.hash)
    frame = pl.DataFrame(cols, schema=PARQUET_SCHEMA)
    head = Head(len(cols["hash"]), cols["hash"][-1] if cols["hash"] else GENESIS)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write beside the target, then rename: a reader never sees half a file, and a failed write leaves the old one.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    os.close(fd)
    try:
        import pyarrow.parquet as pq

        table = frame.to_arrow()
        meta = dict(table.schema.metadata or {})
        meta.update({HEAD_COUNT: str(head.count).encode(), HEAD_HASH: head.hash.encode()})
        pq.write_table(table.replace_schema_metadata(meta), tmp)
        digest = _file_digest(Path(tmp))
        os.chmod(tmp, FILE_MODE)  # as every other output (mkstemp's file is owner-only)
        os.replace(tmp, path)
        _write_digest(path, digest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def digest_path(path: str | os.PathLike) -> Path:
    """Where `export_journal` keeps the file's SHA-256: `<path>.sha256` (`sha256sum -c` reads it).

    >>> digest_path("runs/j.parquet").name
    'j.parquet.sha256'
    """
    path = Path(path)
    return path.with_name(path.name + DIGEST_SUFFIX)


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _write_digest(path: Path, digest: str) -> None:
    side = digest_path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=side.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(f"{digest}  {path.name}\n")
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, side)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _check_digest(path: Path) -> str | None:
    """None when the file's SHA-256 is the one its `.sha256` holds; else why not (no sidecar, unreadable, differs)."""
    side = digest_path(path)
    if not side.is_file():
        return f"there is no {side.name} beside it"
    try:
        text = side.read_bytes()[:200].decode("ascii")
        want = text.split()[0].lower()
    except (OSError, UnicodeDecodeError, IndexError):
        return f"{side.name} is not a SHA-256 digest"
    if len(want) != 64 or any(c not in "0123456789abcdef" for c in want):
        return f"{side.name} is not a SHA-256 digest"
    got = _file_digest(path)
    if got != want:
        return f"its SHA-256 {got[:12]}… differs from the {want[:12]}… in {side.name}"
    return None


def _probe(path: Path, script: str | None = None) -> str | None:
    """Read the file with the native reader in a child process: None when it reads, else how the child failed.
    (`script`: the child's program, parquet_native.py unless a test gives another.)"""
    script = script or str(Path(__file__).with_name("parquet_native.py"))
    try:
        done = subprocess.run(
            [sys.executable, script, str(path)],
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"the Parquet reader did not finish within {PROBE_TIMEOUT_S:.0f} s"
    if done.returncode == 0:
        return None
    if done.returncode < 0:
        import signal

        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return f"the Parquet reader aborted the process reading it ({name}{': ' + tail[0][:200] if tail[0] else ''})"
    err = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return err[-1][:300] if err else f"the Parquet reader exited with status {done.returncode}"


def _read_native(path: Path) -> tuple[list[str], list[tuple], Head | None]:
    """The rows and the head of an export, read by the native readers (polars, pyarrow)."""
    columns, rows, meta = read_native(path)
    try:
        head = Head.parse((int(meta[HEAD_COUNT]), meta[HEAD_HASH].decode()))
    except Exception:  # absent or unreadable: import_journal refuses the file once the rows are checked
        head = None
    return columns, rows, head


def import_journal(path: str | os.PathLike) -> list[Record]:
    """Read a Parquet file written by `export_journal` and return its records, after checking the whole chain.

    Raises BadInput when there is no file at `path`, and CorruptJournal — naming the first bad position and what
    is wrong there — when the file is not a journal export, a record was edited (its hash does not match its
    content), or records were inserted, deleted or reordered (a position or a prev link does not follow).

    The records replay into a store (`KnowledgeStore.from_records(records)`) or a writable journal
    (`journal_from_records(records)`).

    >>> import tempfile, pathlib
    >>> j = Journal(); _ = j.append("note", {"n": 1})
    >>> p = export_journal(j, pathlib.Path(tempfile.mkdtemp()) / "j.parquet")
    >>> [(r.position, r.kind, r.payload) for r in import_journal(p)]
    [(0, 'note', {'n': 1})]
    """
    path = need_path("path", path)
    if not path.is_file():
        raise BadInput(f"no file at {path}; pass the path export_journal() wrote (a .parquet file).")
    # 1. the digest, in pure Python, before any native reader sees the bytes
    digest_problem = _check_digest(path)
    if digest_problem is not None:
        # 2. not the bytes export wrote (or no digest): the native reader reads it in a child process first
        probe_problem = _probe(path)
        if probe_problem is not None:
            raise CorruptJournal(
                f"{path} is not a readable Parquet file ({probe_problem}; {digest_problem}); re-export it with "
                "export_journal(journal, path)."
            )
    try:
        columns, rows, head = _read_native(path)
    except _PASS_THROUGH:
        raise
    except BaseException as e:  # polars and pyarrow raise many types, pyo3's PanicException among them
        raise CorruptJournal(
            f"{path} is not a readable Parquet file ({type(e).__name__}: {str(e)[:200]}); re-export it with "
            "export_journal(journal, path)."
        ) from None
    try:
        out = _check_rows(path, columns, rows, head)
    except CorruptJournal as e:
        if digest_problem is None or not digest_path(path).is_file():
            raise
        raise CorruptJournal(f"{e} (The digest says so too: {digest_problem}.)") from None
    if digest_problem is not None and digest_path(path).is_file():
        raise CorruptJournal(
            f"{path} is not the file export_journal() wrote: {digest_problem}, although its records check out "
            "(the file or its digest was changed after export). Re-export it with export_journal(journal, path)."
        )
    return out


def _check_rows(path: Path, columns: list[str], rows: list[tuple], head: Head | None) -> list[Record]:
    """The records of an export's rows after checking every position, link, hash and the head."""
    missing = [c for c in ("position", "kind", "payload", "prev", "hash", "t") if c not in columns]
    if missing:
        raise CorruptJournal(
            f"{path} is not a journal export: it lacks column(s) {missing}; export_journal() "
            f"writes {list(PARQUET_SCHEMA)}."
        )
    where = str(path)
    out: list[Record] = []
    prev = GENESIS
    for n, (position, kind, payload_text, rprev, rhash, t) in enumerate(rows):
        if position != n:
            raise CorruptJournal(
                f"{where}: expected position {n}, found {position}: a record was inserted, deleted "
                f"or reordered. The records before position {n} are intact; re-export the "
                "journal from its source."
            )
        if not isinstance(kind, str) or not isinstance(payload_text, str):
            raise CorruptJournal(
                f"{where}: record {n} has no kind or no payload; the file was edited. Re-export "
                "the journal from its source."
            )
        if rprev != prev:
            raise CorruptJournal(
                f"{where}: record {n} does not link to record {n - 1} (its prev hash differs): a "
                "record before it was edited, deleted or reordered. The records before position "
                f"{n} are intact; re-export the journal from its source."
            )
        try:
            payload = _loads(payload_text)  # strict: NaN, Infinity and too-long ints are not JSON here either
        except (ValueError, RecursionError, TypeError):
            raise CorruptJournal(
                f"{where}: record {n}'s payload is not JSON; the file was edited. Re-export the "
                "journal from its source."
            ) from None
        if not isinstance(rprev, str) or not isinstance(rhash, str) or (t is not None and not isinstance(t, float)):
            raise CorruptJournal(
                f"{where}: record {n} has a prev, hash or t of the wrong type; the file was edited. Re-export "
                "the journal from its source."
            )
        if record_hash(n, kind, payload, rprev, t) != rhash:
            raise CorruptJournal(
                f"{where}: record {n} was edited after it was written (its hash does not match "
                f"its content). The records before position {n} are intact; re-export the journal "
                "from its source."
            )
        out.append(Record(n, kind, payload, rprev, rhash, t))
        prev = rhash
    if head is None:
        raise CorruptJournal(
            f"{path} carries no journal head (record count and last hash) in its metadata, so a cut at a row "
            "boundary could not be noticed; re-export it with export_journal(journal, path)."
        )
    if len(out) != head.count or prev != head.hash:
        raise CorruptJournal(
            f"{where}: holds {len(out)} records ending in {prev[:12]}…, but the export's head says {head.count} "
            f"ending in {head.hash[:12]}…: the file was cut or its tail rewritten. Re-export the journal from "
            "its source."
        )
    return out


def journal_from_records(
    records: Iterable[Record],
    path: str | os.PathLike | None = None,
    *,
    timestamps: Callable[[], float] | None = time.time,
) -> Journal:
    """A writable Journal (in memory, or a new file at `path`) holding exactly these records, with the same hashes.

    Each record is appended again with its own time stamp, so the new journal recomputes every hash; the result is
    compared with the records' hashes and CorruptJournal is raised if they differ (records that are not one
    unbroken chain). Later appends are stamped by `timestamps` — or, for a journal without stamps (written with
    no `timestamps`, as studies and tests do), stay unstamped. Refuses an existing file at `path` (it would be
    appended to), and records that mix stamped and unstamped ones (fold those with KnowledgeStore.from_records).

    >>> j = Journal(); _ = j.append("note", {"n": 1})
    >>> journal_from_records(list(j)).head() == j.head()
    True
    """
    if path is not None:
        path = need_path("path", path)
    try:
        records = list(records)
    except TypeError:
        raise BadInput(
            f"records must be an iterable of Records (import_journal() gives them), got {type(records).__name__}."
        ) from None
    if not all(isinstance(r, Record) for r in records):
        raise BadInput(
            "records must be Records (import_journal() or a Journal gives them); got another type among them."
        )
    if path is not None and Path(path).exists():
        raise BadInput(
            f"{path} exists; journal_from_records() writes a new journal. Pass a new path, or None for memory."
        )
    stamped = {r.t is not None for r in records}
    if len(stamped) > 1:
        raise BadInput(
            "these records mix time-stamped and unstamped ones, which one Journal timestamps source cannot "
            "reproduce; fold them with KnowledgeStore.from_records(records) instead."
        )
    pending = [r.t for r in records]
    pending.reverse()

    def stamps() -> float:
        # The records' own stamps while importing (the hash covers them), then the caller's timestamps source.
        if pending:
            return pending.pop()  # type: ignore[return-value]  # stamped records only reach here
        if timestamps is None:
            raise BadInput(
                "this journal was imported with timestamps=None and its records are time-stamped; pass "
                "timestamps=time.time to journal_from_records() to append to it."
            )
        return timestamps()

    j = Journal(path, timestamps=stamps if stamped == {True} else None)
    for i, r in enumerate(records):
        got = j.append(r.kind, r.payload)
        if got.hash != r.hash:
            j.close()
            raise CorruptJournal(
                f"record {i} (given with position {r.position}): re-appending it gives hash {got.hash[:12]}…, not its own "
                f"{r.hash[:12]}…; these records are not one unbroken chain (import_journal() "
                "checks the chain and names the first bad position)."
            )
    return j
