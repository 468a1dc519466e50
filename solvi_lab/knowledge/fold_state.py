"""The fold's state: every field a knowledge store's fold holds, and nothing else (no rule).

Its one job: name the fold state (`FoldState.FIELDS`) and set it to what it is before any record. The rules that move
it are knowledge/fold.py (`Fold`, a FoldState), with the re-fold (knowledge/refold.py) and the digests
(knowledge/digests.py) written as functions over a FoldState — so those two read this module, never fold.py, and
fold.py binds them as its methods (no import runs back up: docs/ARCHITECTURE.md, "The knowledge store's layout").

>>> st = FoldState()
>>> sorted(vars(st)) == sorted(FoldState.FIELDS)
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .items import Item
from .keys import _Key
from .lazy_indexes import pending_indexes
from .staleness import FlagIndex


class FoldState:
    """The fold's fields (FIELDS) and their values before any record. The rules calling back (`_apply_event`,
    `_set`, `_dead_at_add`, ...) are Fold's methods (knowledge/fold.py)."""

    CHECKPOINT_EVERY = 16  # events per key between checkpoints of its fold state (docs/ARCHITECTURE.md)
    _indexed = True  # keep the read indexes (False only in verify()'s lean fold, which nobody reads)
    _folded = 0  # records folded (the journal-owner protocol's count)

    # The whole fold state: what `_reset_state` sets, and all a snapshot of the fold would have to hold.
    FIELDS = (
        "_items",  # item id -> Item (every add, refused ones too), in journal order
        "_keys",  # competition key -> _Key (events, live contenders, questions, checkpoints, side counts)
        "_dependents",  # premise id -> ids of the items derived from it (the propagation's edges)
        "_successors",  # item id -> ids of the items written with supersedes= it
        "_by_subject",  # repr of a fact's subject -> its item ids (query(s=), snapshot(about=))
        "_flags",  # FlagIndex: every flag, pending or ended
        "_decision_info",  # decision id -> (answered_by, guarantee, answer): what a "verified" item may name
        "_retracted",  # retracted root id -> {position, by, why}
        "_scopes",  # repr of a scope -> the one shared dict of that scope (memory)
        "_present",  # items in the store (admitted, not retracted), as of the last digest flush
        "_open_set",  # keys with an open dispute (an ordered set)
        "_question_keys",  # keys that ever had a question
        "ticks",  # the decision clock (what reconfirm_after counts)
        "position",  # the journal position after the last record folded
        "_items_sum",  # multiset sum of item digests
        "_keys_sum",  # multiset sum of question digests
        "_flags_sum",  # multiset sum of flag digests
        "_skip",  # ids folded as never written (retracted, or skip= of a rebuild)
        "_touched",  # items whose digest is stale: hashed once when the fingerprint is read
        "last_propagation",  # what the last retraction re-folded: keys, items, events
    )

    def __init__(self) -> None:
        self._reset_state()

    def defer_indexes(self, build: Callable[[], tuple[dict, dict, dict]]) -> None:
        """Leave the read indexes (dependents, successors, by subject) unbuilt until one is first used: `build()`
        returns them, in that order (a store opened from a fold snapshot: most opens read one item and the
        fingerprint, which need none of them). Each is a `PendingIndex` until then (knowledge/lazy_indexes.py).

        >>> st = FoldState()
        >>> st.defer_indexes(lambda: ({"k1": ["k2"]}, {}, {}))
        >>> type(st._dependents).__name__, st._dependents.get("k1"), type(st._dependents).__name__
        ('PendingIndex', ['k2'], 'dict')
        """
        self._dependents, self._successors, self._by_subject = pending_indexes(self, build)

    def _reset_state(self) -> None:
        """Every field of FIELDS as it is before any record (the fold state, and nothing else)."""
        self._items: dict[str, Item] = {}
        self._keys: dict[str, _Key] = {}
        self._dependents: dict[str, list[str]] = {}
        self._successors: dict[str, list[str]] = {}  # item id -> the items written with supersedes= it
        self._by_subject: dict[str, list[str]] = {}
        self._flags = FlagIndex()
        self._decision_info: dict[str, tuple] = {}
        self._retracted: dict[str, dict[str, Any]] = {}  # root id -> {position, by, why}
        self._scopes: dict[str, dict[str, Any]] = {}
        self._present = 0  # items in the store (admitted, not retracted)
        self._open_set: dict[str, None] = {}  # keys with an open dispute (an ordered set)
        self._question_keys: dict[str, None] = {}  # keys that ever had a question
        self.ticks = 0
        self.position = 0
        self._items_sum = 0
        self._keys_sum = 0
        self._flags_sum = 0
        self._skip: set[str] = set()
        self._touched: set[Item] = set()  # items whose digest is stale: hashed once when the fingerprint is read
        self.last_propagation: dict[str, int] = {"keys": 0, "items": 0, "events": 0}
