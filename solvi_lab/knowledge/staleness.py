"""Drift flags and the index that says which pending flags cover an item.

Staleness is read from the flags, never from an item's status (a later write can set a status back): an item is
stale while a pending flag that covers it was raised after the last time an observation or a person confirmed it.
This module may not change a status or write the journal: flags are raised and ended by journal records the fold
folds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import BadInput
from ..journal import canonical
from ..jsontext import encode_str


def fact_key(scope: Any, s: Any, r: Any) -> str:
    """The competition key of a fact: facts compete per (scope, s, r): `canonical([scope, s, r])`.

    >>> print(fact_key({"map": "A"}, "c17", "tier"))
    [{"map":"A"},"c17","tier"]
    """
    if type(s) is str and type(r) is str:  # the usual case, built from its parts: the same text (see the tests)
        return "[" + canonical(scope) + "," + encode_str(s) + "," + encode_str(r) + "]"
    return canonical([scope, s, r])


@dataclass
class Flag:
    """A drift or open-set flag (or reconfirm(id) for one item). Pending until ended."""

    id: str
    pos: int
    why: str
    by: Any
    scope: dict[str, Any] | None = None
    ids: tuple[str, ...] = ()
    key: str | None = None
    ended_at: int | None = None
    ended_by: Any = None
    ended_why: str | None = None

    @property
    def pending(self) -> bool:
        return self.ended_at is None

    def observable(self) -> list[Any]:
        return [
            self.id,
            self.pos,
            self.why,
            self.by,
            self.scope,
            list(self.ids),
            self.key,
            self.ended_at,
            self.ended_by,
            self.ended_why,
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "position": self.pos,
            "why": self.why,
            "by": self.by,
            "scope": self.scope,
            "ids": list(self.ids),
            "key": self.key,
            "pending": self.pending,
            "ended_at": self.ended_at,
            "ended_by": self.ended_by,
            "ended_why": self.ended_why,
        }


def validate_flag_target(scope: Any, ids: Any, key: Any) -> tuple[dict | None, tuple[str, ...], str | None]:
    """Exactly one of scope / ids / key, non-empty and well-formed; returns the normalised target."""
    given = [x is not None for x in (scope, ids, key)]
    if sum(given) != 1:
        raise BadInput(
            "flag() takes exactly one of scope={...}, ids=[...] or key=(scope, s, r); a flag that covers "
            "nothing (or everything by accident) is refused."
        )
    if scope is not None:
        if not isinstance(scope, dict) or not scope:
            raise BadInput(f"flag scope must be a non-empty dict such as {{'question': 'intent'}}, got {scope!r}.")
        canonical(scope)
        return dict(scope), (), None
    if ids is not None:
        if isinstance(ids, str):
            ids = [ids]
        ids = tuple(ids)
        if not ids or not all(isinstance(i, str) for i in ids):
            raise BadInput(f"flag ids must be a non-empty list of item ids like ['k3'], got {ids!r}.")
        return None, ids, None
    if not isinstance(key, (tuple, list)) or len(key) != 3:
        raise BadInput(f"flag key must be (scope, s, r), got {key!r}.")
    return None, (), fact_key(*key)


class FlagIndex:
    """Pending and ended flags, indexed by item id, by fact key and by scope entry, so that finding the flags
    covering one item costs O(its scope size + the flags on those entries), never O(all flags)."""

    def __init__(self) -> None:
        self.flags: dict[str, Flag] = {}
        self.by_id: dict[str, list[Flag]] = {}
        self.by_key: dict[str, list[Flag]] = {}
        self.by_pair: dict[str, list[Flag]] = {}

    def add(self, f: Flag) -> None:
        self.flags[f.id] = f
        for i in f.ids:
            self.by_id.setdefault(i, []).append(f)
        if f.key is not None:
            self.by_key.setdefault(f.key, []).append(f)
        if f.scope:
            k, v = min(f.scope.items())  # one entry suffices to find it; the full subset is checked on read
            self.by_pair.setdefault(canonical([k, v]), []).append(f)

    def covering(self, item_id: str, key: str | None, scope: dict | None) -> list[Flag]:
        out = list(self.by_id.get(item_id, ()))
        if key is not None:
            out.extend(self.by_key.get(key, ()))
        if scope:
            for k, v in scope.items():
                for f in self.by_pair.get(canonical([k, v]), ()):
                    if all(k2 in scope and scope[k2] == v2 for k2, v2 in f.scope.items()):
                        out.append(f)
        return out

    def pending_covering(self, item_id: str, key: str | None, scope: dict | None) -> list[Flag]:
        return [f for f in self.covering(item_id, key, scope) if f.pending]
