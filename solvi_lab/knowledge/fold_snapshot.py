"""Fold snapshots: the knowledge store's folded state at a journal position, kept beside the journal file.

The journal stays the truth. A snapshot only lets `KnowledgeStore.open(path)` skip folding the records it covers;
the journal is still read and its chain checked as always, and the records after the snapshot are folded as today.

**The file** (`<journal>.fold`, JSON lines, never pickle: reading it runs no code):

- line 1, the header: the position it covers (records ``0 .. position-1``), the hash of the record at
  ``position-1`` and of the journal's first record, the fold rules' version stamp (`rules_stamp`), counts;
- then the store's scalars (``"s"``), its distinct scopes (``"c"``), one row per item field and per key field
  (``"i"``, ``"k"``: a column, one value per item or key, in journal order) and one row per flag (``"f"``);
- the last line: ``{"digest": <SHA-256 of every byte before it>, "format": "solvi-lab fold snapshot", "version": 1}``.

**Where its digest is recorded.** `write_snapshot` writes the file, then appends one ``fold-snapshot`` record to
the journal naming the position, the hash of the record before it, the file's digest and the rules stamp. That
record is in the hash chain, so the head checkpoint, ``expect_head`` and ``verify()`` cover it like any record: a
snapshot edited by hand and given a new digest no longer matches the digest the journal recorded, and is refused.
The store ignores the record's kind (like any other owner's record, it only moves the store's position).

**When it is used** (checked as the journal is read): the file's digest is right, its format and rules stamp are
this code's, the journal's first record and its record at ``position-1`` are the ones the header names, and the
record at ``position`` is the ``fold-snapshot`` record carrying the same digest. Then the rows are loaded at that
record and the journal's later records are folded as usual (a journal that grew after the snapshot folds only its
tail). Anything else — no file, a damaged or forged file, another journal's, another rules version's, one the
journal does not record, one beyond the journal's end — is ignored with one warning (`FoldSnapshotIgnored`)
saying why, and the store is folded from the journal from scratch, exactly as without snapshots. A journal that
never had a snapshot says so only in the ``solvi_lab.fold_snapshot`` log (level INFO).

**The code**, one module per job (each under ~400 lines): this module is the format — its constants, the rules
stamp, the encoding and the sidecar's path; knowledge/snapshot_rows.py turns a fold into rows and rows back into a
fold; knowledge/snapshot_write.py writes a snapshot (and decides when close() does); knowledge/snapshot_load.py
checks a snapshot against the journal as it is read and loads it.

>>> import pathlib, tempfile
>>> from solvi_lab.knowledge import KnowledgeStore
>>> path = pathlib.Path(tempfile.mkdtemp()) / "ks.jsonl"
>>> with KnowledgeStore.open(path) as ks:
...     a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
...     snap = ks.write_snapshot()
>>> snap.name
'ks.jsonl.fold'
>>> with KnowledgeStore.open(path) as again:
...     again.opened_from_snapshot, again.status(a)
(True, 'active')
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..codehash import code_fingerprint
from ..journal import register_kind
from ..jsontext import bytes_decoder
from ..validation import Opt, shape

__all__ = [
    "FORMAT",
    "MARKER_KIND",
    "VERSION",
    "FoldSnapshotIgnored",
    "rules_stamp",
    "snapshot_path",
]

FORMAT = "solvi-lab fold snapshot"
VERSION = 5  # 2: items and keys column by column; 3: the journal bytes' digest, checkpoints as JSON texts;
# 4: a checkpoint's fold states as one flat list; 5: one row per item, built on first read (lazy_items.py)
MARKER_KIND = "fold-snapshot"  # the journal record that names a snapshot's digest (in the hash chain)
SUFFIX = ".fold"
log = logging.getLogger("solvi_lab.fold_snapshot")

register_kind(
    MARKER_KIND,
    shape(
        "a fold-snapshot record",
        {"position": int, "last_hash": str, "digest": str, "rules": str, "fingerprint": Opt(str)},
    ),
)


class FoldSnapshotIgnored(UserWarning):
    """A fold snapshot was not used (the message says why); the store was folded from its journal instead."""


def snapshot_path(journal_path: str | os.PathLike) -> Path:
    """The sidecar file of a journal: ``<journal>.fold``.

    >>> snapshot_path("/data/run.jsonl").name
    'run.jsonl.fold'
    """
    return Path(str(journal_path) + SUFFIX)


# -- the rules stamp --------------------------------------------------------------------------------------------
_FOLD_MODULES = (  # the fold's rules, state and digests (knowledge/fold.py's family), and this file's format
    "solvi_lab.knowledge.fold",
    "solvi_lab.knowledge.fold_state",
    "solvi_lab.knowledge.refold",
    "solvi_lab.knowledge.digests",
    "solvi_lab.knowledge.keys",
    "solvi_lab.knowledge.records",
    "solvi_lab.knowledge.from_scratch",
    "solvi_lab.knowledge.store",
    "solvi_lab.knowledge.items",
    "solvi_lab.knowledge.staleness",
    "solvi_lab.knowledge.gates",
    "solvi_lab.decisions",
    "solvi_lab.knowledge.fold_snapshot",
    "solvi_lab.knowledge.snapshot_rows",
    "solvi_lab.knowledge.snapshot_write",
    "solvi_lab.knowledge.snapshot_load",
    "solvi_lab.knowledge.lazy_items",
)
_stamp: str | None = None


def _functions_of(mod: Any) -> Iterator[tuple[str, Any]]:
    for name, obj in sorted(vars(mod).items()):
        if getattr(obj, "__module__", None) != mod.__name__:
            continue  # imported from elsewhere: its own module is in the list, or it is not fold code
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj):
            for attr, member in sorted(vars(obj).items()):
                fn = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                if inspect.isfunction(fn):
                    yield f"{name}.{attr}", fn
            yield f"{name}.__slots__", repr(getattr(obj, "__slots__", None))


def rules_stamp() -> str:
    """The version stamp of the fold rules: SHA-256 over the code fingerprint (solvi_lab.codehash) of every function
    and method of the modules the fold runs (fold, refold, digests, keys, records, from_scratch, store, items,
    staleness, gates, decisions, this module), the slots of their classes and the file format's version. A snapshot written by other fold code is not used.

    >>> len(rules_stamp()), rules_stamp() == rules_stamp()
    (64, True)
    """
    global _stamp
    if _stamp is None:
        import importlib

        h = hashlib.sha256(f"{FORMAT} {VERSION}".encode())
        for modname in _FOLD_MODULES:
            for name, fn in _functions_of(importlib.import_module(modname)):
                h.update(f"{modname}.{name}=".encode())
                h.update((fn if isinstance(fn, str) else code_fingerprint(fn)).encode())
        _stamp = h.hexdigest()
    return _stamp


# -- encoding -----------------------------------------------------------------------------------------------------
def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_LOADS = bytes_decoder(json.JSONDecoder(parse_constant=_refuse_constant))
try:
    import orjson

    def _dumps(obj: Any) -> bytes:
        return orjson.dumps(obj)

    _ROWS_LOADS = orjson.loads  # a snapshot's rows, once their digest is the journal's (see _parsed_lines)
except ImportError:  # pragma: no cover - orjson is a dependency; stdlib gives the same values
    _ENC = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    def _dumps(obj: Any) -> bytes:
        return _ENC.encode(obj).encode("utf-8")

    _ROWS_LOADS = _LOADS


def _hex(n: int) -> str:
    return f"{n:x}"  # 256-bit sums as hex: JSON parsers other than Python's stop at 64-bit integers


def _parsed_lines(data: bytes, start: int = 0, end: int | None = None) -> Iterator[Any]:
    """Each line of `data` parsed, one line's copy at a time (a list of every line would double the memory).

    orjson directly, without the journal decoder's guard (a run of 19 digits sends a line to the stdlib parser,
    and every line of 256-bit sums in hex has one: 3x slower): the rows are parsed only once their digest is the
    one the journal recorded, so they are this module's own output — orjson.dumps, which writes no int beyond 64
    bits and floats that read back exactly — and orjson reads them as the stdlib would."""
    loads, find = _ROWS_LOADS, data.find
    view = memoryview(data)  # lines parsed in place: no copy of a line (orjson reads a memoryview)
    end = len(data) if end is None else end
    while start < end:
        stop = find(b"\n", start, end)
        if stop < 0:
            stop = end
        if stop > start:
            yield loads(view[start:stop])
        start = stop + 1
