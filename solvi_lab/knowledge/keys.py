"""One competition key's fold state (`_Key`) and the status sets the fold's rules test.

Its one job: the per-key record a fold keeps (events, items, live contenders, questions and their digests,
checkpoints, side counts). Plain data and one recount; it may not read the journal, validate anything, or know
the store. Used by knowledge/fold.py (the rules), knowledge/refold.py and knowledge/digests.py.
"""

from __future__ import annotations

from typing import Any

from .items import Item, ItemStatus

_SIDE = frozenset({ItemStatus.ACTIVE.value, ItemStatus.DISPUTED.value})  # live and not a hypothesis: takes a side
_DEAD = frozenset({ItemStatus.REFUSED.value, ItemStatus.RETRACTED.value})  # statuses no fold step moves an item out of


def _event_pos(ev: Any) -> int:
    """The journal position of a key event (an add is stored as its position, other events as (pos, op, p))."""
    return ev if type(ev) is int else ev[0]


class _Key:
    """One competition key: its events in journal order, its items, its live contenders, its questions (each with
    its own digest, so a question is hashed when it opens or closes, never the whole list again) and checkpoints
    of its fold state every CHECKPOINT_EVERY events (so a re-fold starts near the change, not at the key's start).
    """

    __slots__ = (
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

    def __init__(self, key: str):
        self.key = key
        self.events: list[Any] = []  # an add is its journal position (an int); other events (pos, op, payload)
        self.item_ids: list[str] = []
        self.live: dict[str, Item] = {}
        self.questions: Any = ()  # a list once a dispute opens here; most keys never have one
        self.open_q: dict[str, Any] | None = None
        self.contribution = 0  # the sum of q_digests: this key's share of the fingerprint's question sum
        self.q_digests: Any = ()  # digest of each question, parallel to `questions`
        self.q_settled = 0  # q_digests[:q_settled] are up to date (closing a question moves it back)
        self.checkpoints: list[tuple] | None = None  # see refold.checkpoint (read through refold.checkpoints_of)
        # Kept by _set as statuses move (so _settle never scans the live set to learn whether a dispute exists):
        # value -> how many live non-hypothesis facts hold it, and how many of those are disputed.
        self.sides: dict[str, int] = {}
        self.disputed = 0

    def recount(self) -> None:
        """Count `sides` and `disputed` again from `live` (after a re-fold puts back a checkpoint's live set)."""
        sides: dict[str, int] = {}
        disputed = 0
        for c in self.live.values():
            if c.kind == "fact" and c.state in _SIDE:
                sides[c.value] = sides.get(c.value, 0) + 1
                disputed += c.state == "disputed"
        self.sides, self.disputed = sides, disputed


class PendingLive:
    """A key's live contenders as a fold snapshot names them (their ids), with the item table that builds them."""

    __slots__ = ("ids", "items")

    def __init__(self, ids: list[str], items: Any):
        self.ids, self.items = ids, items


_LIVE_SLOT = _Key.live  # the slot's own descriptor (a _SnapshotKey's property reads and writes through it)


class _SnapshotKey(_Key):
    """A key as a fold snapshot's open puts it back: its live contenders stay ids (a `PendingLive`) until something
    reads `live`, so an open costs what the keys cost, not one Item per live item (issue 42: at 10^6 a third of the
    items are live on the derived-keys stream, all but 7% on the default one). The first read of `live` builds them
    and turns the key into a plain `_Key` (same slots, so `__class__` can change): every later access is the slot's.
    Building is a cache fill under the reader's lock (every public read holds the journal's), never a state change:
    the items built are the ones the snapshot's digests were computed from."""

    __slots__ = ()

    @property
    def live(self) -> dict[str, Item]:  # type: ignore[override]
        v = _LIVE_SLOT.__get__(self, _Key)
        if type(v) is PendingLive:
            items = v.items
            v = {i: items[i] for i in v.ids}
            _LIVE_SLOT.__set__(self, v)
        self.__class__ = _Key
        return v

    @live.setter
    def live(self, v: dict[str, Item]) -> None:
        _LIVE_SLOT.__set__(self, v)
        self.__class__ = _Key


def defer_live(ks: _Key, ids: list[str], items: Any) -> None:
    """Leave key `ks`'s live contenders as the ids `ids` of the item table `items`, built when `live` is first read."""
    _LIVE_SLOT.__set__(ks, PendingLive(ids, items))
    ks.__class__ = _SnapshotKey


def live_ids(ks: _Key) -> list[str]:
    """The ids of a key's live contenders, without building them when they are still a snapshot's ids."""
    v = _LIVE_SLOT.__get__(ks, _Key)
    return list(v.ids) if type(v) is PendingLive else list(v)
