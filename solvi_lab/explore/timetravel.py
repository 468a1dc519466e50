"""Time travel: what changed in the store between two journal positions, and why.

The store is a deterministic fold over its journal, so "the store at position p" is
`KnowledgeStore.from_journal(ks.journal, upto=p)` (`ks.at(p)`): the fold of the records before p, with every item
retracted before p treated as never written. `diff(ks, a, b)` folds twice and compares the status of every item.

>>> from solvi_lab.knowledge import KnowledgeStore
>>> ks = KnowledgeStore()
>>> crm = ks.add("fact", {"s": "c17", "r": "tier", "o": "vip"}, source="person", by="crm")
>>> obs = ks.add("fact", {"s": "c17", "r": "tier", "o": "regular"}, source="outcome")
>>> before = ks.journal.position
>>> ks.retract(obs, by="ann", why="wrong customer")
>>> d = diff(ks, before, ks.journal.position)
>>> d.select("id", "from_status", "to_status", "why").rows()
[('k0', 'refuted', 'active', 'admitted'), ('k1', 'active', 'retracted', 'retracted by ann: wrong customer')]
>>> d["why_before"][0]
'contradicted by observation k1'

(At b the store is rebuilt without k1, so k0 is simply admitted: nothing ever contradicted it.)

See Also: `KnowledgeStore.at(position)` (the whole store at one position), `frames.store_frame` (one table).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from ..errors import BadInput
from ..journal import canonical

if TYPE_CHECKING:
    from ..knowledge.store import KnowledgeStore

__all__ = ["DIFF_SCHEMA", "diff", "status_at"]

DIFF_SCHEMA: dict[str, Any] = {
    "id": pl.Utf8,
    "kind": pl.Utf8,
    "s": pl.Utf8,
    "r": pl.Utf8,
    "o": pl.Utf8,
    "source": pl.Utf8,
    "learned_at": pl.Int64,
    "from_status": pl.Utf8,
    "to_status": pl.Utf8,
    "why": pl.Utf8,
    "why_before": pl.Utf8,
}

# Statuses that mean "not in the store": an item not yet folded at a position (None), or refused when written.
_ABSENT = (None, "refused")


def _check_position(ks: KnowledgeStore, name: str, p: Any) -> int:
    if ks.journal is None or ks.read_only:
        raise BadInput(
            "diff() needs the store's journal, and this store is a rebuilt read-only view; call it on "
            "the live store (the one you wrote to, or KnowledgeStore.open(path) / KnowledgeStore(journal=...))."
        )
    end = ks.journal.position
    if isinstance(p, bool) or not isinstance(p, int):
        raise BadInput(
            f"{name}={p!r} is not a journal position; pass an int 0..{end} (ks.journal.position is the end, i.e. now)."
        )
    if p < 0 or p > end:
        raise BadInput(
            f"{name}={p} is past the end of the journal: positions run 0..{end} ({end} records; {end} "
            "means now). Pass a position from ks.journal.frame() or ks.journal.position."
        )
    return p


def status_at(view: KnowledgeStore, iid: str) -> str | None:
    """The status of an item in a (rebuilt) store, or None when it is not in that store (not yet written, refused).

    >>> from solvi_lab.knowledge import KnowledgeStore
    >>> ks = KnowledgeStore()
    >>> a = ks.add("fact", {"s": 1, "r": "x", "o": 2}, source="spec")
    >>> status_at(ks.at(0), a), status_at(ks.at(1), a)
    (None, 'active')
    """
    v = view.view()
    if iid not in v:
        return None
    st = v.status(iid)
    return None if st in _ABSENT else st


def diff(ks: KnowledgeStore, a: int, b: int | None = None) -> pl.DataFrame:
    """The items whose status differs between the store at position `a` and at position `b` (b=None: now).

    Both are `KnowledgeStore.from_journal(ks.journal, upto=...)` (`ks.at(...)`): the store just before the record
    at that position. One row per changed item, in the order the items were written, with columns id, kind, s, r, o (as in `store_frame`), source, learned_at,
    from_status (None: not in the store at a — written later, or refused), to_status (None: not in the store
    at b), why (the item's why at b: for a retracted item who retracted it and why, or which retracted premise
    it rests on) and why_before (its why at a). None where the item is not in that store.

    Raises BadInput for a position that is not an int, is negative or past the end of the journal, or a > b.
    Cost: two replays of the journal up to b — O(records before b).

    >>> from solvi_lab.knowledge import KnowledgeStore
    >>> ks = KnowledgeStore()
    >>> a = ks.add("fact", {"s": 1, "r": "x", "o": 2}, source="spec")
    >>> diff(ks, 0, 1).select("id", "from_status", "to_status").rows()
    [('k0', None, 'active')]
    >>> diff(ks, 2, 1)
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: a=2 is past the end of the journal: positions run 0..1 (1 records; 1 means now). Pass a position from ks.journal.frame() or ks.journal.position.
    """
    a = _check_position(ks, "a", a)
    b = ks.journal.position if b is None else _check_position(ks, "b", b)
    if a > b:
        raise BadInput(f"diff(a={a}, b={b}): a is after b; pass the earlier position first (diff(ks, {b}, {a})).")
    rows: dict[str, list[Any]] = {k: [] for k in DIFF_SCHEMA}
    if a == b:
        return pl.DataFrame(rows, schema=DIFF_SCHEMA)
    then, now = type(ks).from_journal(ks.journal, upto=a), type(ks).from_journal(ks.journal, upto=b)
    # Items are keyed by write position, so `now` holds every item `then` holds; its dict order is write order.
    now_view = now.view()
    for iid in now_view.ids():
        before, after = status_at(then, iid), status_at(now, iid)
        if before == after:
            continue
        it = now_view.record(iid)
        body = it.body if it.kind == "fact" and isinstance(it.body, dict) else None
        for k, v in (
            ("id", iid),
            ("kind", it.kind),
            ("s", _cell(body, "s")),
            ("r", _cell(body, "r")),
            ("o", _cell(body, "o")),
            ("source", it.source),
            ("learned_at", it.learned_at),
            ("from_status", before),
            ("to_status", after),
            ("why", _why(now, iid, after)),
            ("why_before", _why(then, iid, before)),
        ):
            rows[k].append(v)
    return pl.DataFrame(rows, schema=DIFF_SCHEMA)


def _why(view: KnowledgeStore, iid: str, status: str | None) -> str | None:
    """The item's why in a rebuilt store; None when it is not in that store."""
    if status is None:
        return None
    v = view.view()
    info = v.retraction(iid) if status == "retracted" else None
    if info is not None:
        # A replay folds an item retracted later in the same history as "skipped" before it reaches the retraction
        # record; name the retraction as the live store does.
        return f"retracted by {info['by']}: {info['why']}"
    return v.record(iid).why


def _cell(body: dict[str, Any] | None, field: str) -> str | None:
    if body is None:
        return None
    v = body.get(field)
    return v if v is None or isinstance(v, str) else canonical(v)
