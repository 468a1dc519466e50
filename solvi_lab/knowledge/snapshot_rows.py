"""A fold snapshot's rows (knowledge/fold_snapshot.py has the format): the fold's state as rows, and back.

Its one job: write a fold's items (one row each, its slots in Item.__slots__ order), its scalars, scopes, read-index
columns, keys (column by column) and flags as the file's lines (`_lines`), and put such rows into an empty fold
(`_load_rows`: every field but the items, which stay rows of the file in a LazyItems table, built when first read).
It may not check a snapshot against a journal (knowledge/snapshot_load.py) or write a file
(knowledge/snapshot_write.py): it turns state into rows and rows into state.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from functools import partial
from operator import attrgetter
from typing import Any

from ..errors import BadInput
from .fold_snapshot import _ROWS_LOADS, _dumps, _hex, _parsed_lines
from .items import Item, item_id
from .keys import _Key, defer_live, live_ids
from .lazy_keys import LazyKeys
from .staleness import Flag


def _filler(cls: type) -> Any:
    """A function `fill(obj, values)` that sets every slot of `cls` from `values`, in `cls.__slots__` order, with one
    unpacking assignment — compiled from the class's own slots, so the row's columns are the class's one field list
    (a setattr call per slot costs a third of a snapshot's load)."""
    targets = ", ".join(f"o.{name}" for name in cls.__slots__)
    namespace: dict[str, Any] = {}
    exec(f"def fill(o, v):\n    ({targets},) = v\n", namespace)  # the slots are the class's identifiers
    return namespace["fill"]


_SLOTS: tuple[str, ...] = Item.__slots__  # an item row's columns: the Item's own fields (knowledge/items.py)
_fill_item = _filler(Item)
_fill_key = _filler(_Key)


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
KEY_FIELDS: tuple[str, ...] = tuple(_Key.__slots__)  # a "k" row per slot of a competition key (knowledge/keys.py)
FLAG_FIELDS = tuple(f.name for f in dataclasses.fields(Flag))  # an "f" row: a flag's fields, in order


# -- the state, as rows -------------------------------------------------------------------------------------------
_ROW_AT = {name: i for i, name in enumerate(_SLOTS)}
_SCOPE, _KEY, _CONTRIBUTION = _ROW_AT["scope"], _ROW_AT["key"], _ROW_AT["contribution"]
_DERIVED, _VERDICTS, _HIST = _ROW_AT["derived_from"], _ROW_AT["verdicts"], _ROW_AT["hist"]


def _lines(header: dict, st: Any, meta: list) -> Iterator[bytes]:
    """The snapshot's lines, newline included: the header, one row per item (its slots in Item.__slots__ order,
    the scope, key and contribution encoded), then the rest (`_meta_rows`), which starts with the ``"o"`` row: its
    own byte offset and where every item row starts. `meta` receives that offset (the digest line names it)."""
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
    # snapshot(about=)'s name index (knowledge/snapshot.py `_named`): rules, skills and actions by their name's
    # value key, so a query by name after an open builds that name's items, not every row to read its kind
    yield ["x", "name", [[r, n] for r, it in enumerate(items) if (n := _name_key(it)) is not None]]
    cols = _key_columns(keys)
    for name in KEY_FIELDS:
        yield ["k", name, cols[name]]
    for f in st._flags.flags.values():
        yield ["f", *(list(f.ids) if name == "ids" else getattr(f, name) for name in FLAG_FIELDS)]


# -- a competition key's slots as columns, and back (the one place that knows how each slot is encoded) -----------
def _key_columns(keys: list) -> dict[str, list]:
    """Every slot of the keys (KEY_FIELDS) as one column each: the slot's values, one per key, as JSON."""
    open_q = []
    for ks in keys:
        oq = None
        if ks.open_q is not None:
            oq = next((i for i, q in enumerate(ks.questions) if q is ks.open_q), None)
            if oq is None:
                raise BadInput(f"key {ks.key!r}: its open question is not one of its questions; cannot snapshot it.")
        open_q.append(oq)
    plain = [name for name in KEY_FIELDS if name != "live"]  # `live` read as ids: an open left it unbuilt
    cols = {name: [getattr(ks, name) for ks in keys] for name in plain}  # the plain slots as they are
    cols["live"] = [live_ids(ks) for ks in keys]  # ids only: a key an open left unread is not built to be written
    cols["questions"] = [ks.questions if type(ks.questions) is list else None for ks in keys]
    cols["open_q"] = open_q
    cols["contribution"] = [_hex(ks.contribution) for ks in keys]
    cols["q_digests"] = [[_hex(d) for d in ks.q_digests] if type(ks.q_digests) is list else None for ks in keys]
    cols["checkpoints"] = [_checkpoints_text(ks.checkpoints) for ks in keys]
    return cols


def _key_maker(cols: dict[str, list], items: Any) -> Any:
    """The function `make(row)` that builds the key `_key_columns` wrote as row `row` (the inverse of
    `_key_columns`, one key at a time: a LazyKeys table calls it when the key is first read); `items` is the fold's
    item table (a key's live items stay ids until its `live` is first read: keys._SnapshotKey)."""
    n = len(cols["key"])
    if any(len(cols[name]) != n for name in KEY_FIELDS):
        raise ValueError("its key columns are not all of one length")
    # What a key's build would refuse, refused now (a bad snapshot is then not used; a read never meets it).
    for key, cps in zip(cols["key"], cols["checkpoints"]):
        if cps is not None and type(cps) is not str:
            raise ValueError(f"key {key!r}: its checkpoints are not a JSON text")
    columns = [cols[name] for name in KEY_FIELDS]
    at = {name: i for i, name in enumerate(KEY_FIELDS)}
    i_events, i_questions, i_open = at["events"], at["questions"], at["open_q"]
    i_contribution, i_digests, i_checkpoints, i_key = at["contribution"], at["q_digests"], at["checkpoints"], at["key"]
    live = cols["live"]
    new, fill = _Key.__new__, _fill_key

    def make(row: int) -> Any:
        v = [c[row] for c in columns]
        v[i_events] = [e if type(e) is int else tuple(e) for e in v[i_events]]
        qs, oq = v[i_questions], v[i_open]
        v[i_questions] = qs if qs is not None else ()
        v[i_open] = qs[oq] if oq is not None else None
        v[i_contribution] = int(v[i_contribution], 16)
        qd = v[i_digests]
        v[i_digests] = [int(d, 16) for d in qd] if qd is not None else ()
        v[i_checkpoints] = _pending_checkpoints(v[i_key], v[i_checkpoints], items)
        ks = new(_Key)
        fill(ks, v)
        defer_live(ks, live[row], items)  # built when `live` is first read: an open builds no item (issue 42)
        return ks

    return make


def _pending_checkpoints(key: str, cps: Any, items: Any) -> Any:
    if cps is None:
        return None
    if type(cps) is not str:
        raise ValueError(f"key {key!r}: its checkpoints are not a JSON text")
    return PendingCheckpoints(cps, items)


X_FIELDS = ("pos", "derived_from", "supersedes", "subject", "name")


def _name_key(it: Any) -> str | None:
    """The value key of a rule's, skill's or action's name (what snapshot(about=) looks it up by); None otherwise."""
    from .items import BEHAVIOUR_KINDS, value_key

    if it.kind in BEHAVIOUR_KINDS and isinstance(it.body, dict) and "name" in it.body:
        return value_key(it.body["name"])
    return None


def _item_decoder(scopes: list, key_names: list) -> Any:
    """The function that turns a parsed item row back into the Item the fold had (the inverse of `_lines`)."""
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
    from .lazy_items import LazyItems, RowSource

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
            if len(row) != len(FLAG_FIELDS) + 1:
                raise ValueError(f"a flag row of {len(row) - 1} values, not {len(FLAG_FIELDS)}")
            f = dict(zip(FLAG_FIELDS, row[1:]))
            f["ids"] = tuple(f["ids"])
            st._flags.add(Flag(**f))
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
    by_name: dict[str, list[str]] = {}
    for r, name in xcols["name"]:
        by_name.setdefault(name, []).append(item_id(positions[r]))
    items.names = (st.position, by_name)
    if st._indexed:
        # The read indexes are built from their columns when one is first read (FoldState.__getattr__): most opens
        # read one item and the fingerprint, which need none of them (issue 42: a fifth of an open at 10^5).
        st.defer_indexes(partial(_read_indexes, positions, subjects, xcols["derived_from"], xcols["supersedes"]))
    # Keys: built when first read (lazy_keys.LazyKeys), each key's live items ids until its `live` is first read
    # (keys._SnapshotKey): an open builds neither keys nor items, however many there are (issue 42).
    st._keys = LazyKeys(key_names, _key_maker(kcols, items))


def _read_indexes(
    positions: list[int], subjects: list, derived_from: list, supersedes: list
) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]:
    """(dependents, successors, by subject) of a snapshot's items, from its columns, in the fold's order."""
    dependents: dict[str, list[str]] = {}
    successors: dict[str, list[str]] = {}
    by_subject: dict[str, list[str]] = {}
    for r, derived in derived_from:
        iid = item_id(positions[r])
        for pid in derived:
            dependents.setdefault(pid, []).append(iid)
    for r, sup in supersedes:
        successors.setdefault(sup, []).append(item_id(positions[r]))
    for pos, subject in zip(positions, subjects):
        if subject is not None:
            by_subject.setdefault(subject, []).append(item_id(pos))
    return dependents, successors, by_subject


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
