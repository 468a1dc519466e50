"""The store's digests and fingerprint: three 256-bit multiset sums (items, questions, flags) kept incrementally.

Its one job: turn fold state into digests — an item's digest once per change (pending items are hashed when the
fingerprint is read), a question's when it opens or closes, a flag's when raised or ended — and the fingerprint
from the sums and the clock. Functions over a FoldState (`self`, knowledge/fold_state.py), bound as Fold's methods in knowledge/fold.py. It may not
change any status, read the journal or validate input: it only hashes what the rules decided.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..journal import canonical

if TYPE_CHECKING:
    from .fold_state import FoldState
    from .items import Item
    from .keys import _Key

MASK = (1 << 256) - 1


def _h(obj: Any) -> int:
    return int.from_bytes(hashlib.sha256(canonical(obj).encode()).digest(), "big")


# Items whose digest is pending (changed since the fingerprint was last read) before they are hashed anyway. An item
# on a busy key changes at many fold steps and is hashed once per flush, so a small bound re-hashes the live items
# of hot keys again and again in a long rebuild (65,536: 1.77 digests per item at 10^6 on the hot-key stream); a
# million references cost ~40 MB, and a rebuild of up to that many items hashes each item once.
_PENDING_MAX = 1 << 20


def flush_digests(self: FoldState) -> None:
    """Hash the items changed since the fingerprint was last read, once each (an item on a busy key changes
    at many fold steps: confirmed, disputed, resolved), and move the item sum and present count by the
    difference — so reading either never scans the store, and a rebuild hashes each item once."""
    delta = present = 0  # summed, then masked once (a rebuild flushes every item here at once)
    for it in _in_journal_order(self):
        new, old = it.digest(), it.contribution
        if new != old:
            delta += new - old
            present += (new != 0) - (old != 0)  # a digest is 0 exactly when absent
            it.contribution = new
    self._items_sum = (self._items_sum + delta) & MASK
    self._present += present
    self._touched = set()


def _in_journal_order(self: FoldState) -> Iterable[Item]:
    """The pending items, in journal order when they are most of the item table (a rebuild's flush: every item).
    Why: the set's order is the items' addresses hashed, so hashing them in it reads memory all over the heap; in
    the table's order the items are read about as they were made (issue 42: 0.39 s against 0.48 s for the digests
    of the 10^5 `default` rebuild). The sums do not depend on the order; the same items are hashed (any pending item
    the table does not hold sends the flush back to the set)."""
    touched, items = self._touched, self._items
    if type(items) is not dict or 2 * len(touched) <= len(items):
        return touched
    ordered = [it for it in items.values() if it in touched]
    return ordered if len(ordered) == len(touched) else touched


def settle_digests(self: FoldState, ks: _Key) -> None:
    """After a fold step on one key: its question digests and the dispute indexes (item digests are settled
    lazily, see _flush_digests)."""
    if len(self._touched) > _PENDING_MAX:  # bound the pending set (see _PENDING_MAX)
        self._flush_digests()
    if not ks.questions:  # most keys never see a dispute (an open question is always in `questions`)
        if ks.key in self._question_keys:
            self._open_set.pop(ks.key, None)
            self._question_keys.pop(ks.key, None)
        return
    if ks.q_settled < len(ks.questions):
        self._settle_questions(ks)
    if ks.open_q is not None:
        self._open_set[ks.key] = None
    else:
        self._open_set.pop(ks.key, None)
    if ks.questions:
        self._question_keys[ks.key] = None
    else:
        self._question_keys.pop(ks.key, None)


def settle_questions(self: FoldState, ks: _Key) -> None:
    """Digest the questions opened or closed since the last step; the key's share of the fingerprint moves by
    the difference. A question is hashed when it opens and when it closes, never again."""
    qs = ks.questions
    if type(ks.q_digests) is not list:
        ks.q_digests = []
    qd = ks.q_digests
    delta = 0
    for i in range(ks.q_settled, len(qs)):
        new = _h([ks.key, qs[i]])
        if i < len(qd):
            delta += new - qd[i]
            qd[i] = new
        else:
            delta += new
            qd.append(new)
    ks.q_settled = len(qs)
    if delta:
        ks.contribution = (ks.contribution + delta) & MASK
        self._keys_sum = (self._keys_sum + delta) & MASK


def release(self: FoldState, it: Item) -> None:
    """Add an item's final digest to the item sum and drop it: no later record reads it (verify's fold)."""
    self._touched.discard(it)
    new = it.digest()
    self._items_sum = (self._items_sum - it.contribution + new) & MASK
    self._present += (new != 0) - (it.contribution != 0)
    it.contribution = new
    del self._items[it.id]


def served_items(self: FoldState) -> Iterable[Item]:
    """Every item the store serves, as a read would serve it; rows of a fold snapshot not built yet are decoded
    without being kept (lazy_items.LazyItems.served), so hashing them changes nothing."""
    items = self._items
    served = getattr(items, "served", None)
    return served() if served is not None else items.values()


def settled(self: FoldState) -> tuple[int, int]:
    """(item sum, present count) with the pending item digests counted — computed on the side, so a read changes no
    field of the fold (the store settles them on its write path: `flush_digests`)."""
    items_sum, present = self._items_sum, self._present
    for it in self._touched:
        new, old = it.digest(), it.contribution
        if new != old:
            items_sum = (items_sum - old + new) & MASK
            present += (new != 0) - (old != 0)
    return items_sum, present


def present(self: FoldState) -> int:
    """The number of items in the store (admitted, not retracted), pending digests counted; the fold unchanged."""
    return settled(self)[1] if self._touched else self._present


def recomputed(self: FoldState) -> tuple[str, int, str]:
    """(fingerprint, present count, which part differs from the kept sums or '') recomputed from what the store
    serves — every item's fields hashed now, every question and flag hashed now — never from the digests and sums
    the fold keeps. What verify() compares with the replay: a state whose kept digests were carried over from
    elsewhere (a fold snapshot) but whose items say something else has another recomputed fingerprint. A read:
    the fold is unchanged."""
    return recomputed_and_kept(self)[:3]


def recomputed_and_kept(self: FoldState) -> tuple[str, int, str, int]:
    """`recomputed`, and the kept item sum with pending digests counted (what `settled` gives) as a fourth element:
    a pending item that is served is hashed once for both (verify() hashed each item three times before)."""
    touched = self._touched
    kept_items, kept_present = self._items_sum, self._present
    items_sum = present = seen = 0
    for it in served_items(self):
        d = it.digest()
        if d:
            items_sum += d
            present += 1
        if touched and it in touched:  # settled()'s step for this item, with the digest just computed
            seen += 1
            old = it.contribution
            if d != old:
                kept_items = (kept_items - old + d) & MASK
                kept_present += (d != 0) - (old != 0)
    if seen != len(touched):  # a pending item that is not served (retracted since): settled() counts every one
        kept_items, kept_present = settled(self)
    keys_sum = sum(_h([ks.key, q]) for ks in self._keys.values() for q in ks.questions)
    flags_sum = sum(_h(f.observable()) for f in self._flags.flags.values())
    items_sum, keys_sum, flags_sum = items_sum & MASK, keys_sum & MASK, flags_sum & MASK
    kept = [
        name
        for name, mine, theirs in (
            ("items", items_sum, kept_items),
            ("questions", keys_sum, self._keys_sum),
            ("flags", flags_sum, self._flags_sum),
            ("item count", present, kept_present),
        )
        if mine != theirs
    ]
    return _fingerprint_of(items_sum, keys_sum, flags_sum, self.ticks), present, ", ".join(kept), kept_items


def _fingerprint_of(items_sum: int, keys_sum: int, flags_sum: int, ticks: int) -> str:
    return hashlib.sha256(f"{items_sum:064x}|{keys_sum:064x}|{flags_sum:064x}|{ticks}".encode()).hexdigest()


def fingerprint(self: FoldState, items_sum: int | None = None) -> str:
    """A 256-bit digest of the whole observable state: SHA-256 over the three sums and the clock, pending item
    digests counted on the side (`settled`; `items_sum`: that sum when the caller has it): reading it changes no
    field of the fold."""
    if items_sum is None:
        items_sum = settled(self)[0] if self._touched else self._items_sum
    return _fingerprint_of(items_sum, self._keys_sum, self._flags_sum, self.ticks)
