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

import gc
import hashlib
import inspect
import json
import logging
import os
import sys
import warnings
from collections.abc import Iterator
from operator import attrgetter
from pathlib import Path
from typing import Any

from ..codehash import code_fingerprint
from ..errors import BadInput, SolviLabError
from ..journal import Prefix, register_kind
from ..jsontext import bytes_decoder
from ..validation import Opt, shape, write_lock
from . import digests
from .snapshot_files import make_temp, write_failed

__all__ = [
    "close_store",
    "freeze_after_load",
    "FORMAT",
    "MARKER_KIND",
    "FoldSnapshotIgnored",
    "SnapshotLoader",
    "rules_stamp",
    "snapshot_path",
    "write_snapshot",
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


def _fill_item(it: Any, v: list) -> None:
    """Set every slot of a new Item from a snapshot row, in Item.__slots__ order (one unpacking: a setattr call
    per slot costs a third of a snapshot's load; _SLOTS below must equal Item.__slots__, checked at import)."""
    (
        it.id,
        it.pos,
        it.kind,
        it.body,
        it.scope,
        it.source,
        it.by,
        it.evidence,
        it.derived_from,
        it.supersedes,
        it.valid,
        it.of,
        it.reconfirm_rule,
        it.hypothesis_req,
        it.verdicts,
        it.clock,
        it.key,
        it.value,
        it.subject,
        it.guarantee,
        it.refusal,
        it.state,
        it.why,
        it.refuted_by,
        it.invalidated_at,
        it.confirmations,
        it.refutations,
        it.uses,
        it.wrong_uses,
        it.confirmed_pos,
        it.confirmed_clock,
        it.clock_rule,
        it.restored_under,
        it.version,
        it.promoted,
        it.hist,
        it.before_refute,
        it.contribution,
    ) = v


_SLOTS = (
    "id",
    "pos",
    "kind",
    "body",
    "scope",
    "source",
    "by",
    "evidence",
    "derived_from",
    "supersedes",
    "valid",
    "of",
    "reconfirm_rule",
    "hypothesis_req",
    "verdicts",
    "clock",
    "key",
    "value",
    "subject",
    "guarantee",
    "refusal",
    "state",
    "why",
    "refuted_by",
    "invalidated_at",
    "confirmations",
    "refutations",
    "uses",
    "wrong_uses",
    "confirmed_pos",
    "confirmed_clock",
    "clock_rule",
    "restored_under",
    "version",
    "promoted",
    "hist",
    "before_refute",
    "contribution",
)


# What a snapshot holds of the store's fold state (every field `_reset_state` sets is in exactly one of these;
# tests/knowledge/test_fold_snapshot.py checks it, so a new field cannot be forgotten here).
SNAPSHOT_FIELDS = (
    "_items",
    "_keys",
    "_flags",
    "_decision_info",
    "_retracted",
    "_present",
    "_open_set",
    "_question_keys",
    "ticks",
    "position",
    "_items_sum",
    "_keys_sum",
    "_flags_sum",
    "_skip",
)
REBUILT_FIELDS = ("_dependents", "_successors", "_by_subject", "_scopes")  # rebuilt from the items as they load
TRANSIENT_FIELDS = ("_touched", "last_propagation")  # empty once the digests are flushed; a cost measure
KEY_FIELDS = (  # the slots of a competition key (store._Key), in the order of a "k" row
    "key",
    "events",
    "item_ids",
    "live",
    "questions",
    "open_q",
    "contribution",
    "q_digests",
    "q_settled",
    "checkpoints",
    "sides",
    "disputed",
)
FLAG_FIELDS = ("id", "pos", "why", "by", "scope", "ids", "key", "ended_at", "ended_by", "ended_why")


# -- the state, as rows -------------------------------------------------------------------------------------------
_ROW_AT = {name: i for i, name in enumerate(_SLOTS)}
_SCOPE, _KEY, _CONTRIBUTION = _ROW_AT["scope"], _ROW_AT["key"], _ROW_AT["contribution"]
_DERIVED, _VERDICTS, _HIST = _ROW_AT["derived_from"], _ROW_AT["verdicts"], _ROW_AT["hist"]
_WRITE_CHUNK = 1 << 20  # bytes gathered before one write and one hash update


def _lines(header: dict, st: Any, meta: list) -> Iterator[bytes]:
    """The snapshot's lines, newline included: the header, one row per item (its slots in Item.__slots__ order,
    the scope, key and contribution encoded), then the rest (`_meta_rows`), which starts with the ``"o"`` row: its
    own byte offset and where every item row starts. `meta` receives that offset (the digest line names it)."""
    from .items import Item

    if Item.__slots__ != _SLOTS:
        raise ValueError("Item's slots are not the ones this module writes")
    yield (line := _dumps(header) + b"\n")
    at = len(line)
    scopes = list(st._scopes.values())  # every item's scope is one of these shared dicts (store._fold_new_item)
    scope_index = {id(sc): i for i, sc in enumerate(scopes)}
    keys = list(st._keys.values())
    key_index = {ks.key: i for i, ks in enumerate(keys)}
    items = list(st._items.values())
    offsets, row_of = [], attrgetter(*_SLOTS)
    for it in items:
        v = list(row_of(it))
        sc = v[_SCOPE]
        v[_SCOPE] = None if sc is None else scope_index[id(sc)]
        v[_KEY] = key_index[v[_KEY]]  # an item's key as the index of its competition key (every item has one)
        v[_CONTRIBUTION] = _hex(v[_CONTRIBUTION])
        line = _dumps(v) + b"\n"
        offsets.append(at)
        at += len(line)
        yield line
    offsets.append(at)  # the end sentinel: where the last row's line ends
    meta.append(at)
    yield _dumps(["o", at, offsets]) + b"\n"
    for row in _meta_rows(st, scopes, items, keys):
        yield _dumps(row) + b"\n"


def _meta_rows(st: Any, scopes: list, items: list, keys: list) -> Iterator[list]:
    """Everything but the item rows: the store's scalars, its scopes, the item columns an open needs before any
    item is built (positions, and the read indexes' sources: derived_from and supersedes sparse, subjects), keys
    column by column (one row per field, a list with one value per key), one row per flag."""
    yield [
        "s",
        {
            "position": st.position,
            "ticks": st.ticks,
            "folded": st._folded,
            "items_sum": _hex(st._items_sum),
            "keys_sum": _hex(st._keys_sum),
            "flags_sum": _hex(st._flags_sum),
            "present": st._present,
            "retracted": st._retracted,
            "decisions": st._decision_info,
            "skip": sorted(st._skip),
            "open_set": list(st._open_set),
            "question_keys": list(st._question_keys),
        },
    ]
    yield ["c", scopes]
    yield ["x", "pos", [it.pos for it in items]]
    yield ["x", "derived_from", [[r, it.derived_from] for r, it in enumerate(items) if it.derived_from]]
    yield ["x", "supersedes", [[r, it.supersedes] for r, it in enumerate(items) if it.supersedes]]
    yield ["x", "subject", [it.subject for it in items]]
    open_q = []
    for ks in keys:
        oq = None
        if ks.open_q is not None:
            oq = next((i for i, q in enumerate(ks.questions) if q is ks.open_q), None)
            if oq is None:
                raise BadInput(f"key {ks.key!r}: its open question is not one of its questions; cannot snapshot it.")
        open_q.append(oq)
    cols = {
        "key": [ks.key for ks in keys],
        "events": [ks.events for ks in keys],
        "item_ids": [ks.item_ids for ks in keys],
        "live": [list(ks.live) for ks in keys],
        "questions": [ks.questions if type(ks.questions) is list else None for ks in keys],
        "open_q": open_q,
        "contribution": [_hex(ks.contribution) for ks in keys],
        "q_digests": [[_hex(d) for d in ks.q_digests] if type(ks.q_digests) is list else None for ks in keys],
        "q_settled": [ks.q_settled for ks in keys],
        "checkpoints": [_checkpoints_text(ks.checkpoints) for ks in keys],
        "sides": [ks.sides for ks in keys],
        "disputed": [ks.disputed for ks in keys],
    }
    for name in KEY_FIELDS:
        yield ["k", name, cols[name]]
    for f in st._flags.flags.values():
        yield ["f", f.id, f.pos, f.why, f.by, f.scope, list(f.ids), f.key, f.ended_at, f.ended_by, f.ended_why]


X_FIELDS = ("pos", "derived_from", "supersedes", "subject")


def _item_decoder(scopes: list, key_names: list) -> Any:
    """The function that turns a parsed item row back into the Item the fold had (the inverse of `_lines`)."""
    from .items import Item

    new, fill = Item.__new__, _fill_item

    def decode(v: list) -> Any:
        if len(v) != len(_SLOTS):
            raise ValueError(f"an item row of {len(v)} values, not {len(_SLOTS)}")
        sc = v[_SCOPE]
        v[_SCOPE] = None if sc is None else scopes[sc]
        v[_KEY] = key_names[v[_KEY]]
        v[_CONTRIBUTION] = int(v[_CONTRIBUTION], 16)
        v[_DERIVED] = tuple(v[_DERIVED])
        v[_VERDICTS] = v[_VERDICTS] or ()
        v[_HIST] = tuple(v[_HIST])
        it = new(Item)
        fill(it, v)
        return it

    return decode


def _load_rows(st: Any, data: bytes, start: int, cut: int, meta_at: int, freeze_min: int | None = None) -> None:
    """Put a snapshot into an empty fold `st` (the inverse of `_lines`): everything but the items, which stay rows of
    `data` in a LazyItems table and are built when first read. Rows are parsed only once their digest is the one
    the journal recorded (`_parsed_lines`), so a row's shape is this module's own."""
    from .items import Item, item_id
    from .keys import _Key
    from .lazy_items import LazyItems, RowSource
    from .staleness import Flag

    if Item.__slots__ != _SLOTS:
        raise ValueError("Item's slots are not the ones this module reads")
    if not start <= meta_at < cut:
        raise ValueError(f"its rows start at byte {meta_at}, outside the file's body")
    rows = _parsed_lines(data, meta_at, cut)
    top = next(rows, None)
    if not (type(top) is list and len(top) == 3 and top[0] == "o" and top[1] == meta_at):
        raise ValueError(f"byte {meta_at} is not the start of its item offsets row")
    offsets = top[2]
    if not (type(offsets) is list and offsets and offsets[0] == start and offsets[-1] == meta_at):
        raise ValueError("its item offsets do not span its item rows")
    xcols: dict[str, list] = {}
    kcols: dict[str, list] = {}
    scopes: list = []
    for row in rows:
        tag = row[0]
        if tag == "k":
            kcols[row[1]] = row[2]
        elif tag == "x":
            xcols[row[1]] = row[2]
        elif tag == "c":
            scopes = row[1]
        elif tag == "f":
            _, fid, pos, why, by, scope, ids, key, ended_at, ended_by, ended_why = row
            st._flags.add(Flag(fid, pos, why, by, scope, tuple(ids), key, ended_at, ended_by, ended_why))
        elif tag == "s":
            s = row[1]
            st.position, st.ticks, st._folded = s["position"], s["ticks"], s["folded"]
            st._items_sum = int(s["items_sum"], 16)
            st._keys_sum = int(s["keys_sum"], 16)
            st._flags_sum = int(s["flags_sum"], 16)
            st._present = s["present"]
            st._retracted = s["retracted"]
            st._decision_info = {k: tuple(v) for k, v in s["decisions"].items()}
            st._skip = set(s["skip"])
            st._open_set = dict.fromkeys(s["open_set"])
            st._question_keys = dict.fromkeys(s["question_keys"])
        else:
            raise ValueError(f"unknown row tag {tag!r}")
    if set(xcols) != set(X_FIELDS) or set(kcols) != set(KEY_FIELDS):
        raise ValueError("the item or key columns are not the ones this code reads")
    positions, subjects = xcols["pos"], xcols["subject"]
    if len(subjects) != len(positions) or any(a >= b for a, b in zip(positions, positions[1:])):
        raise ValueError("its item positions are not one increasing column with a subject each")
    intern = sys.intern
    st._scopes = {repr(sc): sc for sc in scopes}
    key_names = [intern(k) for k in kcols["key"]]  # one string per key, shared by its items (as in the fold)
    kcols["key"] = key_names
    # Items: rows built on first read (lazy_items.py); the read indexes now, in the fold's order (journal order).
    decode = _item_decoder(scopes, key_names)
    # The freeze threshold as a value, not the store: the table must not hold the store (no cycle; see
    # freeze_after_load).
    src = RowSource(data, offsets, positions, decode, _ROWS_LOADS, freeze_min=freeze_min)
    items = st._items = LazyItems(src)
    if st._indexed:
        dependents, successors, by_subject = st._dependents, st._successors, st._by_subject
        for r, derived in xcols["derived_from"]:
            iid = item_id(positions[r])
            for pid in derived:
                dependents.setdefault(pid, []).append(iid)
        for r, sup in xcols["supersedes"]:
            successors.setdefault(sup, []).append(item_id(positions[r]))
        for pos, subject in zip(positions, subjects):
            if subject is not None:
                by_subject.setdefault(subject, []).append(item_id(pos))
    # Keys. Each key's live items are built now (its competition holds them). When they are most of the items (a
    # store of few contradictions: 93% at 10^6 on the default profile), one pass over every row in row order is
    # cheaper than finding each live item's row by its id (a third less at 10^6).
    if 2 * sum(map(len, kcols["live"])) >= len(positions):
        items.build_all()
    for key, events, item_ids, live, qs, oq, contribution, qd, q_settled, cps, sides, disputed in zip(
        *[kcols[name] for name in KEY_FIELDS]
    ):
        ks = _Key(key)
        ks.events = [e if type(e) is int else tuple(e) for e in events]
        ks.item_ids = item_ids
        ks.live = {i: items[i] for i in live}
        ks.questions = qs if qs is not None else ()
        ks.open_q = qs[oq] if oq is not None else None
        ks.contribution = int(contribution, 16)
        ks.q_digests = [int(d, 16) for d in qd] if qd is not None else ()
        ks.q_settled = q_settled
        if cps is not None:
            if type(cps) is not str:
                raise ValueError(f"key {ks.key!r}: its checkpoints are not a JSON text")
            ks.checkpoints = PendingCheckpoints(cps, items)
        ks.sides, ks.disputed = sides, disputed
        st._keys[ks.key] = ks


class PendingCheckpoints:
    """A key's re-fold checkpoints as a snapshot holds them (the JSON text of their rows), turned into the fold's
    tuples only when a re-fold or a new checkpoint on that key first needs them (refold.checkpoints_of). They are a
    fifth of a snapshot's bytes and most keys are never re-folded after an open, so an open does not parse them:
    at 10^5 hot-key items that saves parsing 8.5 MB of nested lists and building 300,000 tuples. The text is the
    snapshot's own (its digest is the one the journal recorded), so the ids it names are the store's items."""

    __slots__ = ("text", "items")

    def __init__(self, text: str, items: dict[str, Any]):
        self.text = text
        self.items = items  # the store's item table (items are never dropped from a live store)

    def load(self) -> list[tuple]:
        """The checkpoints as refold.checkpoint makes them (position, live count, items, their flat states, question)."""
        items = self.items
        return [(c[0], c[1], tuple([items[i] for i in c[2]]), tuple(c[3]), c[4]) for c in _ROWS_LOADS(self.text)]


def _checkpoints_text(cps: Any) -> str | None:
    """A key's checkpoints as the JSON text a snapshot keeps (a pending one's own text, unparsed)."""
    if cps is None:
        return None
    if type(cps) is PendingCheckpoints:
        return cps.text
    return _dumps([[c[0], c[1], [it.id for it in c[2]], c[3], c[4]] for c in cps]).decode()


# -- writing ------------------------------------------------------------------------------------------------------
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
    st._catch_up()  # (which settles the fold's digests, as every write does)
    fold = st._fold
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


# -- reading ------------------------------------------------------------------------------------------------------
class SnapshotLoader:
    """The `on_load` of a journal opened by the store: folds every record, or — with a snapshot that holds —
    skips the records the snapshot covers, checks the journal against it as it is read, and loads it at its record.

    `finish()` after the load: a snapshot the journal did not bear out leaves the store empty at position 0 (the
    store's catch-up then folds the journal from scratch) after one warning saying why.
    """

    def __init__(self, fold: Any, journal_path: Any, use: bool = True, freeze_min: int | None = None):
        self.st = fold  # the store's fold (knowledge/fold.py): what the records and the snapshot's rows go into
        self.fold = fold._load
        self.freeze_min = freeze_min  # the store's FREEZE_MIN_RECORDS (the lazy item table's freeze threshold)
        self.snapshot_position: int | None = None  # the position of the snapshot used (None: none)
        self.path = snapshot_path(journal_path) if journal_path is not None and use else None  # None: not read
        self.header: dict | None = None
        self.body: tuple[bytes, int, int, int] | None = None  # the file's bytes; where its rows start, end, and its
        # meta rows start
        self.digest = ""
        self.problem = ""
        self.rejected = False  # a check during the load failed: the state is reset, the load folds nothing more
        self.accepted = False
        self.marker_seen: int | None = None
        self.marker_hash = ""  # the hash of the record that names the snapshot (what the head must vouch for)
        self.false_markers: list[int] = []  # fold-snapshot records whose fingerprint the replay does not give
        self.skip_to = 0  # records below this position are covered by the snapshot (0: none)
        self.prefix: Prefix | None = None  # the journal's Journal(skip_prefix=): the records the snapshot covers
        if self.path is not None:
            self._read_file()

    def _read_file(self) -> None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return  # noted in finish(): only a journal that records a snapshot warns about a missing file
        except OSError as e:
            self.problem = f"it cannot be read ({e})"
            return
        if not data.endswith(b"\n"):
            self.problem = "it is damaged (it does not end with its digest line)"
            return
        cut = data.rfind(b"\n", 0, len(data) - 1) + 1
        body, last = memoryview(data)[:cut], data[cut:-1]  # the body not copied (it is the file's size)
        try:
            top = _LOADS(last)
            ok = type(top) is dict and top.get("format") == FORMAT and isinstance(top.get("digest"), str)
        except (ValueError, RecursionError):
            ok = False
        if not ok:
            self.problem = "it is damaged (its last line is not a fold snapshot's digest line)"
            return
        if top.get("version") != VERSION:
            self.problem = f"it is format version {top.get('version')!r}, this code reads version {VERSION}"
            return
        if hashlib.sha256(body).hexdigest() != top["digest"]:
            self.problem = "it is damaged (its content does not match its own digest)"
            return
        meta_at = top.get("meta_at")
        if type(meta_at) is not int:
            self.problem = "it is damaged (its digest line does not say where its rows start)"
            return
        nl = data.find(b"\n")
        header_line = data[:nl]
        try:
            header = _LOADS(header_line)
            n, last, first, rules = header["position"], header["last_hash"], header["first_hash"], header["rules"]
        except (ValueError, KeyError, TypeError, RecursionError):
            self.problem = "it is damaged (its header cannot be read)"
            return
        if rules != rules_stamp():
            self.problem = "it was written by another version of the fold rules (its rules stamp differs)"
            return
        if not (type(n) is int and n > 0 and isinstance(last, str) and isinstance(first, str)):
            self.problem = "it is damaged (its header cannot be read)"
            return
        self.header, self.body, self.digest, self.skip_to = header, (data, nl + 1, cut, meta_at), top["digest"], n
        nbytes, sha = header.get("journal_bytes"), header.get("journal_sha256")
        if type(nbytes) is int and isinstance(sha, str):
            self.prefix = Prefix(n, first, last, nbytes, sha)

    def _reject(self, why: str) -> None:
        self.problem = why
        self.rejected = True
        self.header = self.body = None
        self.skip_to = 0
        self.st._reset_state()
        self.st._folded = 0

    def on_load(self, record: Any) -> None:
        pos = record.position
        if self.header is None:  # no snapshot pending: none, refused, or loaded already
            if record.kind == MARKER_KIND:
                self.marker_seen = pos
                if not self.rejected:
                    self._check_marker(record)
            if not self.rejected:
                self.fold(record)
            return
        h, n = self.header, self.skip_to
        if pos == 0 and record.hash != h["first_hash"]:
            # Nothing was skipped yet: this journal is folded in the same pass.
            self.problem = "it belongs to another journal (the journal's first record is not the one it names)"
            self.header = self.body = None
            self.skip_to = 0
            self.on_load(record)
            return
        if pos < n - 1:
            return  # covered by the snapshot; the journal's chain checks it as it is read
        if pos == n - 1:
            if record.hash != h["last_hash"]:
                self._reject(
                    f"it names record {pos} with hash {h['last_hash'][:12]}…, but the journal's record {pos} is "
                    f"{record.hash[:12]}… (another journal with the same start, or one rewritten since)"
                )
            return
        # pos == n: the record that must name this snapshot's digest
        if self._at_marker(record):
            try:
                _load_rows(self.st, *self.body, freeze_min=self.freeze_min)
            except Exception as e:  # noqa: BLE001 - a snapshot that cannot be loaded is not used, whatever the cause
                self._reject(f"its rows cannot be loaded ({type(e).__name__}: {e})")
            else:
                if self.st.position != n:
                    self._reject(f"its rows are of position {self.st.position}, its header says {n}")
                elif self._fingerprint() != record.payload.get("fingerprint"):
                    self._reject(
                        "its state's fingerprint is not the one the journal's record names for it (a snapshot "
                        "written by older code, or a forged one)"
                    )
                else:
                    self.accepted = True
                    self.snapshot_position = n
                    self.marker_hash = record.hash
        self.header = self.body = None
        self.on_load(record)

    def _check_marker(self, record: Any) -> None:
        """A fold-snapshot record met while folding: the fingerprint it names must be the fold's at its position
        (what the journal alone gives). One that differs was not written by this library from a sound state (an
        appended forgery, or a state that had diverged); it is noted, and said in the open's one warning."""
        named = record.payload.get("fingerprint") if type(record.payload) is dict else None
        if isinstance(named, str) and named != self._fingerprint():
            self.false_markers.append(record.position)

    def _fingerprint(self) -> str:
        """The fold's fingerprint here, its pending digests settled (the load is the fold's write path)."""
        self.st._flush_digests()
        return digests.fingerprint(self.st)

    def _at_marker(self, record: Any) -> bool:
        p = record.payload
        if record.kind != MARKER_KIND:
            self._reject(f"the journal does not record it (its record {record.position} is a {record.kind!r} record)")
            return False
        if p.get("digest") != self.digest or p.get("position") != record.position:
            self._reject(
                "its digest is not the one the journal recorded for it (the file was edited and given a new "
                "digest, or replaced by another snapshot of the same position)"
            )
            return False
        return True

    def finish(self, journal: Any) -> int | None:
        """After the journal's load: warn once when a snapshot was not used, and drop the reference to the fold
        (the journal keeps this loader as its on_load; the store must not be kept alive through it). Returns the
        position of the snapshot used (None: none; the store notes it).

        A snapshot the load bore out is used only when the journal's head checkpoint vouches for its record
        (`Journal.vouched`): the writer that wrote the snapshot vouched for its record, and a record appended to the
        file by anyone else — after the writer's last checkpoint — is vouched for by no checkpoint."""
        if self.accepted and journal.vouched != self.snapshot_position:
            self.accepted = False
            self._reject(
                f"the journal's head checkpoint does not vouch for its record at position {self.snapshot_position} "
                "(the record was appended after the journal's writer last wrote its checkpoint — by hand or by "
                "another program — or the checkpoint that vouched for it is gone)"
            )
        if self.header is not None:  # the journal ended before the snapshot's record
            n = self.skip_to
            self._reject(
                f"the journal does not record it (the journal ends at position {n})"
                if journal.position == n
                else f"it is of position {n}, but the journal holds only {journal.position} records (an older "
                "copy of the journal, or one that lost records)"
            )
            self.header = None
        if not self.accepted and journal.skipped:
            # The journal checked the records the snapshot covers by their chain alone; the store is folded from
            # them after all, so they are parsed and checked now as the full load would have (a failure is a failed
            # open: the journal is released, as after a failed load).
            try:
                journal.recheck_skipped()
            except BaseException:
                journal.close()
                raise
        false = ""
        if self.false_markers:
            where = ", ".join(map(str, self.false_markers[:5])) + (" …" if len(self.false_markers) > 5 else "")
            false = (
                f"; the journal's fold-snapshot record(s) at {where} name a fingerprint its replay does not give "
                "(appended by someone else, or written from a damaged state)"
            )
        if self.problem:
            warnings.warn(
                f"{self.path}: fold snapshot not used: {self.problem}{false}; the store is folded from the journal.",
                FoldSnapshotIgnored,
                stacklevel=4,
            )
        elif false:
            warnings.warn(f"{self.path}: {false[2:]}; no snapshot of it was used.", FoldSnapshotIgnored, stacklevel=4)
        elif not self.accepted and self.path is not None:
            if self.marker_seen is not None:
                warnings.warn(
                    f"{self.path}: fold snapshot not used: the journal records one at position {self.marker_seen}, "
                    "but the file is missing; the store is folded from the journal.",
                    FoldSnapshotIgnored,
                    stacklevel=4,
                )
            else:
                log.info("%s: no fold snapshot; the store is folded from the journal", self.path)
        self.st = self.fold = None
        return self.snapshot_position if self.accepted else None
        self.body = None
