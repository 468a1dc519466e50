"""The read indexes of a store opened from a fold snapshot, built the first time one is used.

Its one job: stand in for the fold's three read indexes (dependents, successors, by subject: dicts of id lists) until
something uses one, then build all three from the snapshot's columns at once and put the built dicts in the fold's
own fields, so every later use is a plain dict's (issue 42: an open that reads one item and the fingerprint needs
none of them, and building them touched every item). A reference taken before the build (a shadow's overlay) keeps
working: it hands every call to the built dict.

Why not ``__getattr__`` on the fold: a class with ``__getattr__`` loses CPython's fast attribute path for every
attribute of every instance, which slowed every fold step (measured: a 10^4 rebuild ~10% slower).

>>> class St:
...     pass
>>> st = St()
>>> st._dependents, st._successors, st._by_subject = pending_indexes(st, lambda: ({"k1": ["k2"]}, {}, {"'s'": ["k1"]}))
>>> held = st._successors
>>> len(st._by_subject), type(st._by_subject).__name__, type(st._dependents).__name__
(1, 'dict', 'dict')
>>> held.setdefault("k1", []).append("k3"); st._successors
{'k1': ['k3']}
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

FIELDS = ("_dependents", "_successors", "_by_subject")  # the fold's fields, in the order `build()` returns them


class _Build:
    __slots__ = ("st", "build", "built")

    def __init__(self, st: Any, build: Callable[[], tuple[dict, dict, dict]]):
        self.st, self.build, self.built = st, build, None


class PendingIndex(MutableMapping):
    """One of the three indexes, not built yet (module docstring); every call is the built dict's."""

    __slots__ = ("_b", "_i")

    def __init__(self, b: _Build, i: int):
        self._b, self._i = b, i

    def _dict(self) -> dict:
        b = self._b
        if b.built is None:
            b.built = b.build()
            st, b.st, b.build = b.st, None, None
            for name, d, pending in zip(FIELDS, b.built, _pending_of(st)):
                if pending is not None and pending._b is b:  # still this build's (a reset may have replaced it)
                    setattr(st, name, d)
        return b.built[self._i]

    def __getitem__(self, k: Any) -> Any:
        return self._dict()[k]

    def __setitem__(self, k: Any, v: Any) -> None:
        self._dict()[k] = v

    def __delitem__(self, k: Any) -> None:
        del self._dict()[k]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._dict())

    def __len__(self) -> int:
        return len(self._dict())

    def __contains__(self, k: object) -> bool:
        return k in self._dict()

    def get(self, k: Any, default: Any = None) -> Any:
        return self._dict().get(k, default)

    def setdefault(self, k: Any, default: Any = None) -> Any:
        return self._dict().setdefault(k, default)

    def pop(self, *args: Any) -> Any:
        return self._dict().pop(*args)

    def keys(self):  # type: ignore[override]
        return self._dict().keys()

    def values(self):  # type: ignore[override]
        return self._dict().values()

    def items(self):  # type: ignore[override]
        return self._dict().items()

    def copy(self) -> dict:
        return dict(self._dict())

    def __eq__(self, other: object) -> bool:
        return self._dict() == (other._dict() if isinstance(other, PendingIndex) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._dict())


def _pending_of(st: Any) -> list[PendingIndex | None]:
    out = []
    for name in FIELDS:
        v = getattr(st, name, None)
        out.append(v if type(v) is PendingIndex else None)
    return out


def pending_indexes(st: Any, build: Callable[[], tuple[dict, dict, dict]]) -> tuple[PendingIndex, ...]:
    """The three indexes of fold `st` as PendingIndex objects over one `build()` (which returns them, in FIELDS
    order); the first use of any of them builds all three and sets them as `st`'s fields."""
    b = _Build(st, build)
    return tuple(PendingIndex(b, i) for i in range(len(FIELDS)))


__all__ = ["FIELDS", "PendingIndex", "pending_indexes"]
