"""A read-only view of a KnowledgeStore's fold (`ks.view()`): frozen item records in the specification's vocabulary, and the relations
the analyses need. The store's fold state is private; everything outside the store reads it through here. It may
not change the store or write the journal.

    >>> from solvi_lab.knowledge import KnowledgeStore
    >>> ks = KnowledgeStore()
    >>> a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person", by="ana")
    >>> b = ks.add("fact", {"s": "c1", "r": "segment", "o": "vip"}, source="spec", derived_from=[a])
    >>> v = ks.view()
    >>> rec = v.record(a)
    >>> rec.status, rec.who, rec.learned_at, v.dependents_of(a), v.premises_of(b)
    ('active', 'ana', 0, ('k1',), ('k0',))
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UnknownId
from ..lone_reads import THREADS, get_ident
from ..validation import write_lock
from .items import LIVE, Item, ItemStatus

if TYPE_CHECKING:
    from .fold import Fold


def item_status(it: Item, clock: int) -> str:
    """The status of an item at decision count `clock`: its fold state, or "expired" for a live item whose
    reconfirmation clock ran out. The one definition used by the store, the view and the frames.

    >>> from solvi_lab.knowledge import KnowledgeStore
    >>> ks = KnowledgeStore()
    >>> i = ks.add("fact", {"s": "x", "r": "r", "o": 1}, source="person", reconfirm_after=2)
    >>> ks.tick(2)
    >>> ks.status(i)
    'expired'
    """
    st = it.state
    if st in LIVE and it.clock_rule is not None and it.expired(clock):
        return ItemStatus.EXPIRED.value
    return st


@dataclass(frozen=True, slots=True)
class ItemRecord:
    """One item as the specification names its fields (frozen: changing it changes nothing in the store)."""

    id: str
    kind: str
    body: Any
    scope: Any
    source: str
    who: Any
    evidence: Any
    derived_from: tuple[str, ...]
    of: Any
    supersedes: str | None
    valid: tuple[Any, Any]
    status: str
    why: str
    key: str
    learned_at: int
    invalidated_at: int | None
    version: int
    present: bool


def _locked(method: Any) -> Any:
    """A view's read holds the store's journal lock (the writes' lock): reading an item may build it from the fold
    snapshot's table (knowledge/lazy_items.py), and a writer in another thread must not change the store under it
    (issue 40). In the main thread, while no other thread has asked for an owner's lock, it reads without it
    (solvi_lab.lone_reads)."""
    import functools

    th, ident = THREADS, get_ident

    @functools.wraps(method)
    def call(self: StoreView, *args: Any, **kwargs: Any) -> Any:
        if ident() == th.main and (not th.shared or th.reading):
            th.reading += 1
            try:
                if not th.shared or th.reading > 1:  # inside a lone read already: the other thread waits for it
                    return method(self, *args, **kwargs)
            finally:
                th.reading -= 1
        with write_lock(self._owner):
            return method(self, *args, **kwargs)

    return call


class StoreView:
    """What a store holds, read-only. Cheap to make (it reads the store's state, it copies nothing); it follows the
    store as it changes. Item ids are the ones add() returned; refused writes are among `ids()` with status
    "refused" (they are in the journal) but not `present`.

    Threads: each call holds the store's journal lock; the iterators (`ids`, `keys`, `fold_items`, `records`) walk
    the ids (or items) as they were when called, so a writer in another thread never breaks them. Hold
    `with ks.journal.lock:` around several calls to read one state."""

    __slots__ = ("_ks", "_owner")

    def __init__(self, fold: Fold, owner: Any = None):
        # `fold`: the store's fold (read, never changed); `owner`: what holds the journal whose lock a read takes
        # (the store; None: no lock).
        self._ks, self._owner = fold, owner

    # ----------------------------------------------------------------------------------------------- items
    @property
    def ticks(self) -> int:
        """Decisions counted so far (what reconfirm_after is measured in; `tick()` moves it)."""
        return self._ks.ticks

    @property
    def position(self) -> int:
        """The journal position the store has folded up to."""
        return self._ks.position

    @_locked
    def ids(self) -> Iterator[str]:
        """Every item id written, in journal order (refused ones included)."""
        return iter(list(self._ks._items))

    @_locked
    def __contains__(self, iid: object) -> bool:
        return iid in self._ks._items

    @_locked
    def __len__(self) -> int:
        return len(self._ks._items)

    def _it(self, iid: str) -> Item:
        it = self._ks._items.get(iid)
        if it is None:
            raise UnknownId(f"no item {iid!r} in this store; use an id add() returned.")
        return it

    @_locked
    def present(self, iid: str) -> bool:
        """Admitted and not retracted: in the store, whatever its status."""
        it = self._ks._items.get(iid)
        return it is not None and it.present

    @_locked
    def status(self, iid: str) -> str:
        return item_status(self._it(iid), self._ks.ticks)

    @_locked
    def record(self, iid: str) -> ItemRecord:
        it = self._it(iid)
        valid = it.valid or (None, None)
        return ItemRecord(
            id=it.id,
            kind=it.kind,
            body=it.body,
            scope=it.scope,
            source=it.source,
            who=it.by,
            evidence=it.evidence,
            derived_from=tuple(it.derived_from),
            of=it.of,
            supersedes=it.supersedes,
            valid=(valid[0], valid[1]),
            status=item_status(it, self._ks.ticks),
            why=it.why,
            key=it.key,
            learned_at=it.pos,
            invalidated_at=it.invalidated_at,
            version=it.version,
            present=it.present,
        )

    __getitem__ = record

    @_locked
    def fold_items(self) -> Iterator[Item]:
        """The fold's own item objects, in journal order, for column-wise readers (explore.frames) that cannot
        afford a record per item at 10^6. Read their fields; never assign to them."""
        return iter(list(self._ks._items.values()))

    def records(self) -> Iterator[ItemRecord]:
        """Every item written, as records, in journal order."""
        return (self.record(i) for i in self.ids())

    # ------------------------------------------------------------------------------------------- relations
    @_locked
    def premises_of(self, iid: str) -> tuple[str, ...]:
        return tuple(self._it(iid).derived_from)

    @_locked
    def dependents_of(self, iid: str) -> tuple[str, ...]:
        """The items written with `iid` among their premises (derived_from)."""
        self._it(iid)
        return tuple(self._ks._dependents.get(iid, ()))

    @_locked
    def competitors_of(self, iid: str) -> tuple[str, ...]:
        """The other items written on the same competition key, in journal order."""
        it = self._it(iid)
        return tuple(i for i in self.on_key(it.key) if i != iid)

    @_locked
    def keys(self) -> Iterator[str]:
        """Every competition key, in the order first written."""
        return iter(list(self._ks._keys))

    @_locked
    def on_key(self, key: str) -> tuple[str, ...]:
        """The items written on a competition key, in journal order."""
        k = self._ks._keys.get(key)
        return () if k is None else tuple(k.item_ids)

    @_locked
    def retraction(self, root: str) -> dict[str, Any] | None:
        """{position, by, why} of the retraction of `root`, or None when it was not retracted itself."""
        info = self._ks._retracted.get(root)
        return None if info is None else dict(info)

    # ----------------------------------------------------------------------------------------------- flags
    @_locked
    def flags(self) -> tuple[str, ...]:
        """Every flag id, in the order raised."""
        return tuple(self._ks._flags.flags)

    @_locked
    def pending_flags(self) -> tuple[str, ...]:
        """The flags not ended yet."""
        return tuple(f.id for f in self._ks._flags.flags.values() if f.pending)

    @_locked
    def flag_pending(self, flag: str) -> bool:
        f = self._ks._flags.flags.get(flag)
        if f is None:
            raise UnknownId(f"no flag {flag!r} in this store; use an id flag() returned.")
        return f.pending
