"""The key table of a store opened from a fold snapshot: each competition key built the first time something reads it.

Its one job: stand in for the fold's ``_keys`` (a dict key -> _Key) while the snapshot's keys are still columns of
the file, so that an open does not build one object per key (issue 42: on the `default` stream, with a key for
every few items, building every key was the largest part of an open from a snapshot; most are never read again). It is a dict: a key
once built is an ordinary entry, found at C speed (``d[k]`` reaches ``__missing__`` only for a key not built yet);
``get``, ``in`` and ``len`` also count the keys not built yet. Whatever needs every key — iteration, ``values()``,
a new snapshot, verify — builds the rest once, and from then on the table is an ordinary dict in the fold's order
(the snapshot's keys in its order, then the keys made since the open in the order they came).

What turns a row into a key is the snapshot format's (`snapshot_rows._key_maker`): this module only finds rows.

>>> made = []
>>> keys = LazyKeys(["a", "b"], lambda i: made.append(i) or f"key {i}")
>>> len(keys), "b" in keys, "c" in keys, keys.get("c"), made
(2, True, False, None, [])
>>> keys["b"], dict.__len__(keys), made
('key 1', 1, [1])
>>> keys["new"] = "made since"
>>> list(keys), made  # everything built, the snapshot's order first
(['a', 'b', 'new'], [1, 0])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .whole_read_dict import WholeReadDict

_MISSING = object()


class LazyKeys(WholeReadDict):
    """The fold's key table with the snapshot's keys not built yet (module docstring)."""

    __slots__ = ("_rows", "_names", "_make")

    def __init__(self, names: list[str], make: Callable[[int], Any]):
        super().__init__()
        # name -> its row, for the keys not built yet (None once every one is built)
        self._rows: dict[str, int] | None = dict(zip(names, range(len(names)))) if names else None
        self._names = names  # the snapshot's order (the fold's), for `_finish`
        self._make = make

    # -- one key -------------------------------------------------------------------------------------------------
    def _build(self, k: Any) -> Any:
        rows = self._rows
        if rows is None:
            return _MISSING
        try:
            row = rows.pop(k)
        except (KeyError, TypeError):  # not a key of the snapshot (or not hashable: no key at all)
            return _MISSING
        ks = self._make(row)
        dict.__setitem__(self, k, ks)
        if not rows:
            self._finish()
        return ks

    def __missing__(self, k: Any) -> Any:
        ks = self._build(k)
        if ks is _MISSING:
            raise KeyError(k)
        return ks

    def get(self, k: Any, default: Any = None) -> Any:
        ks = dict.get(self, k, _MISSING)
        if ks is _MISSING:
            ks = self._build(k)
        return default if ks is _MISSING else ks

    def __contains__(self, k: object) -> bool:
        if dict.__contains__(self, k):
            return True
        rows = self._rows
        try:
            return rows is not None and k in rows
        except TypeError:
            return False

    def __len__(self) -> int:
        rows = self._rows
        return dict.__len__(self) + (len(rows) if rows is not None else 0)

    def __setitem__(self, k: Any, v: Any) -> None:
        rows = self._rows
        if rows is not None:
            rows.pop(k, None)  # replaced: the snapshot's row is never built
        dict.__setitem__(self, k, v)

    def __delitem__(self, k: Any) -> None:
        rows = self._rows
        if rows is not None and k in rows:
            del rows[k]  # never built: its row is let go
            return
        dict.__delitem__(self, k)

    # -- every key: built once, in the fold's order --------------------------------------------------------------
    def build_all(self) -> None:
        """Build every key not built yet; the table is then an ordinary dict in the fold's order."""
        if self._rows is not None:
            self._finish()

    def _finish(self) -> None:
        rows, self._rows = self._rows, None
        built = {k: v for k, v in dict.items(self)}  # dict's own items(): ours would build
        dict.clear(self)
        put, make = dict.__setitem__, self._make
        for name in self._names:
            ks = built.pop(name, _MISSING)
            if ks is _MISSING:
                row = rows.pop(name, None)
                if row is None:
                    continue  # deleted since the open
                ks = make(row)
            put(self, name, ks)
        for k, ks in built.items():  # made since the open, in the order they came
            put(self, k, ks)
        self._names = []

    def clear(self) -> None:
        self._rows, self._names = None, []
        dict.clear(self)


__all__ = ["LazyKeys"]
