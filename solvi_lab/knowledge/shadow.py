"""The gates' shadow: the store as it will be if the gates admit a candidate, built copy-on-write on demand.

Its one job: fold one candidate add payload into a copy-on-write overlay of a live store's fold, through the fold's
own `_apply`, so a gate that measures sees exactly the state the write would give; the store's facade wraps that
fold as a read-only store (`shell`), so the gate reads it with the store's API. It may not change the live fold
(every dict it writes to is an overlay), write a journal record or validate input.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

from ..journal import Record
from .fold import RECORD_KIND
from .items import Item
from .keys import _Key

if TYPE_CHECKING:
    from .fold import Fold


class _Overlay(MutableMapping):
    """A copy-on-write view of a dict: reads fall through to `base`, writes and deletions stay in the overlay, so
    the base dict (the live store's) never changes. Iteration keeps the base's order, then the new keys."""

    __slots__ = ("base", "top", "gone")

    def __init__(self, base: dict, top: dict | None = None):
        self.base, self.top, self.gone = base, top or {}, set()

    def __getitem__(self, k: Any) -> Any:
        if k in self.top:
            return self.top[k]
        if k in self.gone:
            raise KeyError(k)
        return self.base[k]

    def __setitem__(self, k: Any, v: Any) -> None:
        self.top[k] = v
        self.gone.discard(k)

    def __delitem__(self, k: Any) -> None:
        if k not in self:
            raise KeyError(k)
        self.top.pop(k, None)
        self.gone.add(k)

    def __contains__(self, k: object) -> bool:
        return k in self.top or (k not in self.gone and k in self.base)

    def __iter__(self) -> Iterator[Any]:
        for k in self.base:
            if k not in self.gone:
                yield k
        for k in self.top:
            if k not in self.base:
                yield k

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Shadow:
    """The store as it will be if the gates admit the candidate (for gates that measure), built on demand.

    The candidate is folded from the very payload add() is about to write (same key, hypothesis, valid,
    reconfirm_after, evidence), through the store's own `_apply`, into a copy-on-write shadow of the live store:
    an add changes only its own competition key (the items live on it, the version it supersedes, its questions)
    and appends to three indexes (dependents, successors, subject), so only those are copied; every other item,
    key, flag and decision is read from the live store, which the shadow never changes. Cost: O(events and live
    items on the candidate's key), not O(journal) (docs/ARCHITECTURE.md, "The gates' shadow")."""

    def __init__(self, fold: Fold, payload: dict[str, Any], shell: Callable[[Fold], Any] | None = None):
        self._fold, self._payload, self._shell, self._built = fold, payload, shell, None

    def store(self) -> Any:
        """The store as it would be with the candidate: `shell(fold)` of the shadow fold (the fold itself when no
        shell was given)."""
        if self._built is None:
            sh = shadow_fold(self._fold, self._payload)
            self._built = sh if self._shell is None else self._shell(sh)
        return self._built


def shadow_fold(live: Fold, payload: dict[str, Any]) -> Fold:
    """A new fold: `live` with the add `payload` folded into copy-on-write overlays of its dicts (`live`: its
    pending digests settled — this runs inside add(), a write —, nothing else changed)."""
    # The payload's values are already what the journal will give back (knowledge/admission.py decoded the caller's
    # values once: lists, not tuples), so the shadow folds them as they are; the fold never changes a payload.
    sh = type(live).__new__(type(live))
    # Scalars shared by value; every dict behind a copy-on-write overlay (the ones an add writes to are set up
    # below); other objects (flags, the skip set) are read, never written, by an add.
    sh.__dict__.update({k: _Overlay(v) if type(v) is dict else v for k, v in live.__dict__.items()})
    # The sums the shadow starts from must be settled: add() is a write (under the journal's lock), so the live
    # fold's pending digests are settled here, as the next write would; the shadow then hashes only what the
    # candidate changes, on its own copies.
    live._flush_digests()
    sh._items_sum, sh._present = live._items_sum, live._present
    sh._touched = set()
    sh.last_propagation = {"keys": 0, "items": 0, "events": 0}
    key = payload["key"]
    items: dict[str, Item] = {}
    ks = live._keys.get(key)
    if ks is not None:
        for it in ks.live.values():
            items[it.id] = it.copy()
        old = live._items.get(payload.get("supersedes"))
        if old is not None and old.id not in items:
            items[old.id] = old.copy()
        cp = _Key(key)
        for name in _Key.__slots__:  # every list and dict of the key copied (events, items, questions, checkpoints)
            v = getattr(ks, name)
            setattr(cp, name, list(v) if type(v) is list else dict(v) if type(v) is dict else v)
        cp.live = {i: items[i] for i in ks.live}
        if ks.open_q is not None:  # the open question is the last one; closing it changes it in place
            cp.questions[-1] = cp.open_q
        keys = _Overlay(live._keys, {key: cp})
    else:
        keys = _Overlay(live._keys)
    sh._items = _Overlay(live._items, items)
    sh._keys = keys
    sh._dependents = _Overlay(
        live._dependents, {p: list(live._dependents.get(p, ())) for p in payload.get("derived_from") or ()}
    )
    sup = payload.get("supersedes")
    sh._successors = _Overlay(live._successors, {sup: list(live._successors.get(sup, ()))} if sup else {})
    body = payload.get("body")
    subject = (
        sys.intern(repr(body["s"]))
        if payload.get("kind") == "fact" and isinstance(body, dict) and "s" in body
        else None
    )
    sh._by_subject = _Overlay(
        live._by_subject, {subject: list(live._by_subject.get(subject, ()))} if subject is not None else {}
    )
    sh._scopes = _Overlay(live._scopes)
    sh._open_set = _Overlay(live._open_set)
    sh._question_keys = _Overlay(live._question_keys)
    pos = live.position
    sh._apply(Record(pos, RECORD_KIND, payload, "", ""))
    return sh
