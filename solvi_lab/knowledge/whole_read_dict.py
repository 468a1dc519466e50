"""A dict whose entries are built on first read, and every read of the whole table builds the rest first.

`LazyItems` (items from a snapshot's rows) and `LazyKeys` (competition keys from a snapshot's columns) differ only in
how one entry is built and how `build_all()` finishes; what a whole-table read does — iterate, compare, copy, pickle,
update — is the same, so it lives here once. A subclass gives `build_all()` (and `__missing__`/`get`/`__contains__`/
`__len__` for single reads).

>>> class Squares(WholeReadDict):
...     def build_all(self):
...         for k in range(3):
...             dict.setdefault(self, k, k * k)
>>> list(Squares().items())
[(0, 0), (1, 1), (2, 4)]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_MISSING = object()


class WholeReadDict(dict):
    """A dict that calls `build_all()` before any read or change that sees the whole table (module docstring)."""

    __slots__ = ()

    def build_all(self) -> None:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Any]:
        self.build_all()
        return dict.__iter__(self)

    def __reversed__(self) -> Iterator[Any]:
        self.build_all()
        return dict.__reversed__(self)

    def keys(self):  # type: ignore[override]
        self.build_all()
        return dict.keys(self)

    def values(self):  # type: ignore[override]
        self.build_all()
        return dict.values(self)

    def items(self):  # type: ignore[override]
        self.build_all()
        return dict.items(self)

    def copy(self) -> dict:  # type: ignore[override]
        self.build_all()
        return dict(dict.items(self))

    def __eq__(self, other: object) -> bool:
        self.build_all()
        if isinstance(other, WholeReadDict):
            other.build_all()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self.build_all()
        return dict.__repr__(self)

    def __reduce__(self) -> tuple:
        return (dict, (self.copy(),))

    def pop(self, *args: Any) -> Any:  # type: ignore[override]
        self.build_all()
        return dict.pop(self, *args)

    def popitem(self) -> tuple:
        self.build_all()
        return dict.popitem(self)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        found = self.get(key, _MISSING)
        if found is not _MISSING:
            return found
        dict.__setitem__(self, key, default)
        return default

    def update(self, *args: Any, **kw: Any) -> None:  # type: ignore[override]
        self.build_all()  # an update may replace built entries: the order must be the fold's first
        dict.update(self, *args, **kw)

    def __or__(self, other: Any) -> dict:  # type: ignore[override]
        return self.copy() | other

    def __ior__(self, other: Any) -> WholeReadDict:  # type: ignore[override,misc]
        self.update(other)
        return self


__all__ = ["WholeReadDict"]
