"""The knowledge store's history: the store folded from a journal or records, as of a position or without some
items (the specification's `rebuild(skip=)` and time travel), and `verify()`, the replay compared with the live store.

Its one job: build a store from records by the definition (from_scratch.py) and compare it with a live one. A mixin
of `KnowledgeStore` (wrapped like the store's own methods by `validation.public_calls`); it may not import store.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Self

from ..errors import BadInput
from ..journal import Journal, Record
from ..owner import _check_upto
from ..validation import need_str_list, writing_call
from . import from_scratch
from .from_scratch import Verification, _gc_paused
from .gates import WriteGate
from .snapshot_write import withdraw_vouch


class StoreHistory:
    """`from_journal`, `from_records`, `rebuild`, `at` and `verify` of `KnowledgeStore`."""

    @classmethod
    @_gc_paused
    def from_journal(
        cls, journal: Journal, upto: int | None = None, *, gates: Iterable[WriteGate] = (), skip: Iterable[str] = ()
    ) -> Self:
        """The store folded from `journal`'s records (those before position `upto` only, when given), every item
        retracted by then — and every id in `skip` — treated as never written: the definition a live
        retraction must meet. Without `upto` and `skip` the store writes on to `journal`; with either it is a
        read-only view.

        >>> from solvi_lab.knowledge import KnowledgeStore
        >>> ks = KnowledgeStore()
        >>> a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
        >>> b = ks.add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="outcome")
        >>> KnowledgeStore.from_journal(ks.journal).fingerprint() == ks.fingerprint()
        True
        >>> KnowledgeStore.from_journal(ks.journal, upto=1).status(a), KnowledgeStore.from_journal(ks.journal, skip=[b]).status(a)
        ('active', 'active')
        """
        upto = _check_upto(journal, upto)
        skip = set(need_str_list("skip", skip))
        st = cls._empty(gates=gates)
        st.journal = journal
        if upto is not None or skip:
            st._upto = upto
            st._read_only = (
                f"rebuilt up to journal position {upto} (a view of the past)"
                if upto is not None
                else "rebuilt without some items (skip=)"
            )
        from_scratch.fold_definition(st._fold, journal.records(0, upto), skip, bool(st._read_only))
        st._fold._flush_digests()  # a rebuild is a write path: its digests are settled once, here
        if not st._read_only:
            st._log_decisions(journal)
        return st

    @classmethod
    @_gc_paused
    def from_records(
        cls,
        records: Iterable[Record],
        upto: int | None = None,
        skip: Iterable[str] = (),
        *,
        at: Callable[[Any, int], None] | None = None,
        at_positions: Iterable[int] = (),
    ) -> Self:
        """A read-only store folded from a list of records (a Parquet import, a journal, a test's records): those
        before position `upto`, every item they retract and every id in `skip` treated as never written.
        `at(store, p)` is called just before the record at each position in `at_positions` is folded (the store
        as it was then: what redecide rebuilds snapshots from).

        >>> from solvi_lab.knowledge import KnowledgeStore
        >>> ks = KnowledgeStore(); _ = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
        >>> KnowledgeStore.from_records(list(ks.journal)).fingerprint() == ks.fingerprint()
        True
        """
        skip = set(need_str_list("skip", skip))
        if upto is not None and (not isinstance(upto, int) or isinstance(upto, bool) or upto < 0):
            raise BadInput(f"upto={upto!r} is not a journal position (an int ≥ 0).")
        st = cls._empty()
        st._read_only = "folded from a list of records (from_records)"
        recs = [r for r in records if upto is None or r.position < upto]
        took = None if at is None else (lambda p: at(st, p))
        from_scratch.fold_definition(st._fold, recs, skip, True, took, at_positions)
        st._fold._flush_digests()
        return st

    @writing_call
    def rebuild(self, upto: int | None = None, skip: Iterable[str] = ()) -> Self:
        """The specification's name for `KnowledgeStore.from_journal(ks.journal, upto, skip=skip)`: the store
        rebuilt from its journal up to (not including) position `upto`, as if the items in `skip` had never been
        written — a read-only view (with neither, a new store writing on to the same journal)."""
        if self.journal is None:
            raise BadInput("rebuild() needs the store's journal; this store was folded from a list of records.")
        skip = set(need_str_list("skip", skip))
        for s in skip:
            self._get(s)
        return type(self).from_journal(self.journal, upto=upto, skip=skip, gates=self.gates)

    def at(self, position: int) -> Self:
        """The store as it was just before journal position `position` (time travel; a read-only view):
        `KnowledgeStore.from_journal(ks.journal, upto=position)`."""
        if self.journal is None:
            raise BadInput("at() needs the store's journal; this store was folded from a list of records.")
        return type(self).from_journal(self.journal, upto=position)

    @_gc_paused
    def verify(self, head: Any = None) -> Verification:
        """The journal's chain is whole, and the live store equals the replay of its journal.

        The chain is checked first (streaming), then the journal is folded a second time beside the live store —
        every retracted item treated as never written, the definition retraction must meet — and compared with what
        the live store serves: its fingerprint recomputed from its items, questions and flags as they are now (never
        from the digests it keeps, which a fold snapshot carries over), its kept fingerprint, item count, position,
        retractions and decisions. verify() only reports: the live store is never replaced, but a store found to
        differ writes no fold snapshot from then on. The second fold is
        the same fold, except that it lets go of each item and key once no later record reads it (their digests
        are final then; see knowledge/release.py), so it holds the journal's working set, not a second store.
        """
        if self.journal is None or self._read_only:
            raise BadInput("verify() needs the store's journal; call it on the live store.")
        self._catch_up()
        v = from_scratch.verify(self._fold, self.journal, head, type(self._fold))
        if v.chain_ok and not v.replay_matches:
            # Seen to diverge: no snapshot is written from this state, nor vouched for (the next open folds anew).
            self._diverged = "was found by verify() to differ from the replay of its journal"
            withdraw_vouch(self.journal)
        self.last_verification = (v, self.position)  # what the store's card shows as its last verify
        return v
