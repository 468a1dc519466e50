"""The knowledge store's reads (the facade's read half; knowledge/store.py is the write half and the lifecycle).

Its one job: answer a public read of `KnowledgeStore` from the fold it holds (`self._fold`) through the modules that
read a fold (reads.py, digests.py, snapshot.py, view.py, cards.py), changing nothing. A mixin of `KnowledgeStore`:
every method here is wrapped like the store's own (`validation.public_calls`: the journal's lock, the project's
errors). It may not write a record nor import store.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..lone_reads import THREADS as _THREADS
from ..lone_reads import get_ident as _ident
from ..validation import locks_itself, read_twin, writing_call
from . import digests, reads
from .cards import ItemRecord, Snapshot, store_card, store_text
from .from_scratch import Verification
from .snapshot import snapshot as _snapshot
from .view import StoreView, item_status


def _twin(name: str) -> Callable[[Callable], Callable]:
    """The slow path of a hot read (validation.read_twin), named as the public call whose errors it reports."""

    def make(read: Callable) -> Callable:
        read.__name__ = read.__qualname__ = name
        return read_twin(read)

    return make


@_twin("status")
def _status(self: Any, iid: str) -> str:
    return reads.status(self._fold, iid)


@_twin("item")
def _item(self: Any, iid: str) -> dict[str, Any]:
    return ItemRecord(reads.item_record(self._fold, iid))


@_twin("__contains__")
def _contains(self: Any, iid: object) -> bool:
    it = self._fold._items.get(iid) if isinstance(iid, str) else None
    return it is not None and it.present


@_twin("__len__")
def _len(self: Any) -> int:
    return self._read_sums.sums(self._fold)[1]


class StoreReads:
    """The public reads of `KnowledgeStore` (status, item, query, snapshot, fingerprint, report, len, in, cards)."""

    def stale(self, iid: str) -> bool:
        """True while a pending flag covers the item (read from the flags, never from the status)."""
        return bool(reads.stale_flags(self._fold, self._get(iid)))

    def usable(self, iid: str, valid_at: Any = None) -> bool:
        """Active, not expired, not stale, not resting on a rolled-back version (unless confirmed since), and (when
        valid_at is given) valid in the world at that time."""
        return reads.usable(self._fold, iid, valid_at)

    def rolled_back_under(self, iid: str) -> list[str]:
        """The rolled-back versions this live item rests on (directly or through its premises) and was not
        confirmed since: while the list is not empty the item is a hint, not a fact (the rollback rule)."""
        return reads.rolled_back_under(self._fold, iid)

    # ------------------------------------------------------------------------------------------ reading
    # The hot reads (status, item, in, len) have no wrapper frame (validation.locks_itself). In the main thread,
    # while no other thread has asked for an owner's lock, they read without it after announcing themselves
    # (solvi_lab.lone_reads: its handshake, inlined — a read is called in loops); anything else, and anything
    # unusual (an unknown or bad id, no journal), goes to the twin above: the lock and the error net.
    @locks_itself
    def status(self, iid: str) -> str:
        """The item's status now: its fold state, or "expired" when its reconfirmation clock ran out."""
        th = _THREADS
        if not th.shared and _ident() == th.main:
            th.reading += 1
            try:
                if not th.shared:
                    fold = self._fold
                    it = fold._items.get(iid) if iid.__class__ is str else None
                    if it is not None:
                        return item_status(it, fold.ticks)
            except Exception:  # noqa: BLE001, S110 - the twin reads again and raises what is wrong
                pass
            finally:
                th.reading -= 1
        return _status(self, iid)

    def view(self) -> StoreView:
        """A read-only view of what the store holds: frozen item records and their relations (knowledge/view.py)."""
        return StoreView(self._fold, self)

    @locks_itself
    def item(self, iid: str) -> dict[str, Any]:
        """The full record of an item (see README: the specification's field names); a dict that renders as a
        small card in Jupyter (knowledge/cards.py)."""
        th = _THREADS
        if not th.shared and _ident() == th.main:
            th.reading += 1
            try:
                if not th.shared:
                    return ItemRecord(reads.item_record(self._fold, iid))
            except Exception:  # noqa: BLE001, S110 - the twin reads again and raises what is wrong
                pass
            finally:
                th.reading -= 1
        return _item(self, iid)

    @locks_itself
    def __contains__(self, iid: object) -> bool:
        th = _THREADS
        if not th.shared and _ident() == th.main:
            th.reading += 1
            try:
                if not th.shared:
                    it = self._fold._items.get(iid) if isinstance(iid, str) else None
                    return it is not None and it.present
            except Exception:  # noqa: BLE001, S110 - the twin reads again and raises what is wrong
                pass
            finally:
                th.reading -= 1
        return _contains(self, iid)

    @locks_itself
    def __len__(self) -> int:
        th = _THREADS
        if not th.shared and _ident() == th.main:
            th.reading += 1
            try:
                if not th.shared:
                    fold = self._fold
                    if not fold._touched:  # no digest pending: ReadSums.sums' first case, without its frame
                        self._read_sums.asked = True
                        return fold._present
                    return self._read_sums.sums(fold)[1]
            finally:
                th.reading -= 1
        return _len(self)

    @writing_call
    def query(
        self,
        kind: str | None = None,
        s: Any = ...,
        r: str | None = None,
        o: Any = ...,
        scope: dict[str, Any] | None = None,
        status: str | Iterable[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Items matching every given field. With s= it reads the subject index (cost: that subject's items);
        without it, it scans the store."""
        return reads.query(self._fold, kind, s, r, o, scope, status)

    @writing_call
    def snapshot(
        self, about: Any = ..., *, scope: dict[str, Any] | None = None, r: str | None = None, valid_at: Any = None
    ) -> dict[str, Any]:
        """What a decision is given: the usable facts that match, the hints (hypotheses of every kind — with the
        gate that holds them and its verdict —, disputed, expired or stale facts, items resting on a rolled-back
        version; each with why), the ids they rest on (`rests_on`: the facts' and hints' own ids, then every premise
        they were derived from, transitively — what `redecide` reads), the store's fingerprint and its journal
        position.

        Without `about` it covers the whole store; `about=` is one subject (a list is one JSON subject, not a set
        of subjects) and also matches rules, skills and actions by name. See solvi_lab.knowledge.snapshot.

        >>> from solvi_lab.knowledge import KnowledgeStore
        >>> ks = KnowledgeStore()
        >>> _ = ks.add("fact", {"s": "c17", "r": "tier", "o": "vip"}, source="person")
        >>> [f["o"] for f in ks.snapshot()["facts"]], ks.snapshot(about="nobody")["facts"]
        (['vip'], [])
        """
        self._catch_up()  # records other writers (the decision log) appended: the position is the journal's now
        fp = self.fingerprint()
        snap = _snapshot(
            self._fold, about, scope=scope, r=r, valid_at=valid_at, names=self._names_index, fingerprint=fp
        )
        return Snapshot(snap)  # a dict; a card in Jupyter

    def fingerprint(self) -> str:
        """A 256-bit digest of the whole observable state, maintained incrementally (O(items changed since the
        last write) to read, and reading it changes nothing; knowledge/digests.py)."""
        return digests.fingerprint(self._fold, self._read_sums.sums(self._fold)[0])

    def report(self) -> dict[str, Any]:
        """Counts by status, kind and source — each over the same items: every item written and admitted, retracted
        ones included (`present` counts those not retracted, `len(ks)`); refused writes apart —; open disputes;
        flags; the clock; position and fingerprint."""
        return reads.report(self._fold, self.fingerprint())

    def __repr__(self) -> str:
        """One line: where it lives, its position, its items by status, its open disputes."""
        return store_text(self)

    def _repr_html_(self) -> str:
        """A small card for Jupyter: path, position, items by status, kind and source, open disputes, fingerprint,
        the last verify() on this object (knowledge/cards.py)."""
        return store_card(self)

    #: (Verification, journal position) of the last verify() on this object; None before one (shown by the card).
    last_verification: tuple[Verification, int] | None = None
