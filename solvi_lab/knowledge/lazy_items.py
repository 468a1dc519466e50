"""The item table of a store opened from a fold snapshot: each item built the first time something reads it.

Its one job: stand in for the fold's ``_items`` (a dict id -> Item) while the snapshot's items are still rows of
the file, so that an open costs what the keys, flags and read indexes cost, not a million objects (issue 28: at
10^6 items, building every `Item` and its field values was half of an open from a snapshot). A read of one item
costs one row's parse. It is a dict: an item once built is an ordinary entry, found at C speed (``d[i]`` only
reaches ``__missing__`` for an item not built yet); ``get``, ``in`` and ``len`` also count the rows not built yet.
Whatever needs every item — iteration, ``values()``, a new snapshot, ``report()``, a query without a subject —
builds the rest once, in journal order, and from then on the table is the fold's own dict in the fold's order
(the snapshot's items by position, then those added since the open), with the file's bytes let go.

What decodes a row is the snapshot format's (`fold_snapshot._item_decoder`): this module only finds rows.

>>> from collections import namedtuple
>>> Item = namedtuple("Item", "id pos")  # what the decoder builds has the id the table is keyed by
>>> src = RowSource(b'[1]\\n[5]\\n', [0, 4, 8], [1, 5], lambda v: Item(f"k{v[0]}", v[0]))
>>> items = LazyItems(src)
>>> len(items), "k5" in items, "k2" in items, items.get("k05")
(2, True, False, None)
>>> items["k5"], dict.__len__(items)
(Item(id='k5', pos=5), 1)
>>> list(items)  # everything built, in journal order
['k1', 'k5']
"""

from __future__ import annotations

import gc
import json
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import Any

from .items import item_id
from .whole_read_dict import WholeReadDict

_MISSING = object()


class RowSource:
    """A snapshot's item rows: the file's bytes, where each row starts (in journal order, the row's end is the next
    row's start less its newline; the last ends at `offsets`' end sentinel), the items' journal positions (sorted:
    an item's id is ``k<position>``) and the function that turns a parsed row into an Item (anything with that
    ``id``: the table keys each item by its own id string)."""

    __slots__ = ("view", "offsets", "positions", "decode", "left", "loads", "freeze_min")

    def __init__(
        self,
        data: bytes,
        offsets: list[int],
        positions: list[int],
        decode: Callable[[list], Any],
        loads: Callable[[Any], Any] | None = None,
        freeze_min: int | None = None,
    ):
        if len(offsets) != len(positions) + 1:
            raise ValueError(f"{len(positions)} item positions but {len(offsets) - 1} rows")
        self.view = memoryview(data)
        self.offsets, self.positions, self.decode = offsets, positions, decode
        self.loads = loads or (lambda b: json.loads(bytes(b)))  # the snapshot passes orjson's (reads a memoryview)
        self.left = len(positions)  # rows not built yet
        # Building the rest at once is a bulk load like the fold's: with at least this many rows it freezes the heap
        # after (gc.freeze, as fold_snapshot.freeze_after_load does after an open), so that the next collection and
        # the exit do not walk the new items; None: never.
        self.freeze_min = freeze_min

    def row_of(self, iid: str) -> int | None:
        """The row of item `iid`, or None when the snapshot holds no such item."""
        if iid[:1] != "k" or not iid[1:].isdigit():
            return None
        pos = int(iid[1:])
        if item_id(pos) != iid:  # "k007" is not "k7"
            return None
        r = bisect_left(self.positions, pos)
        return r if r < len(self.positions) and self.positions[r] == pos else None

    def build(self, row: int) -> Any:
        off = self.offsets
        it = self.decode(self.loads(self.view[off[row] : off[row + 1] - 1]))
        self.left -= 1
        return it


class LazyItems(WholeReadDict):
    """The fold's item table with the snapshot's rows not built yet (module docstring)."""

    __slots__ = ("_src", "names")

    def __init__(self, src: RowSource):
        super().__init__()
        self._src: RowSource | None = src if src.left else None
        # (position, {name's value key: ids}): the snapshot's name index of its rows, set by the snapshot's load
        # (snapshot_rows._load_rows), so that a query by name need not build every row to read its kind
        self.names: tuple[int, dict[str, list[str]]] | None = None

    # -- one item ------------------------------------------------------------------------------------------------
    def _build(self, iid: Any) -> Any:
        src = self._src
        if src is None or type(iid) is not str:
            return None
        row = src.row_of(iid)
        if row is None:
            return None  # a row already built is an entry of the dict: it never reaches here
        it = src.build(row)
        dict.__setitem__(self, it.id, it)  # the item's own id string: one string per item, not two
        if not src.left:
            self._finish()
        return it

    def __missing__(self, iid: Any) -> Any:
        it = self._build(iid)
        if it is None:
            raise KeyError(iid)
        return it

    def get(self, iid: Any, default: Any = None) -> Any:
        it = dict.get(self, iid, _MISSING)
        if it is not _MISSING:
            return it
        it = self._build(iid)
        return default if it is None else it

    def __contains__(self, iid: object) -> bool:
        if dict.__contains__(self, iid):
            return True
        src = self._src
        return src is not None and type(iid) is str and src.row_of(iid) is not None

    def __len__(self) -> int:
        src = self._src
        return dict.__len__(self) + (src.left if src is not None else 0)

    def served(self) -> Iterator[Any]:
        """Every item as a read would serve it, without building the table: the items built already, then each row
        not built yet decoded on its own and let go (what verify() hashes: a check that changes no state and does not
        hold a second copy of the items). Rows are decoded as `_build` would decode them, so what is yielded for a
        row is what a read of that item gets."""
        src = self._src
        yield from dict.values(self)
        if src is None:
            return
        built = {it.pos for it in dict.values(self)}
        view, loads, decode, off = src.view, src.loads, src.decode, src.offsets
        start = off[0]
        for end, pos in zip(off[1:], src.positions):
            if pos not in built:
                yield decode(loads(view[start : end - 1]))
            start = end

    # -- every item: built once, in journal order ----------------------------------------------------------------
    def build_all(self) -> None:
        """Build every row not built yet; the table is then in the fold's order (by position)."""
        if self._src is not None:
            self._finish()

    def _finish(self) -> None:
        src, self._src = self._src, None
        many = src.left
        # The collector paused while the rows are built: a million new items would otherwise set off collections
        # that walk the growing heap again and again (measured at 10^6: 13.5 s for this with it on).
        was = gc.isenabled()
        gc.disable()
        try:
            built = {k: v for k, v in dict.items(self)}  # dict's own items(): ours would build
            dict.clear(self)
            put = dict.__setitem__
            # Rows built already, by position (an int: no id string made per row to look them up); items added
            # since the open have later positions than every row and stay in `built`, for the end.
            last, by_pos = src.positions[-1], {}
            for iid in [i for i, it in built.items() if it.pos <= last]:
                it = built.pop(iid)
                by_pos[it.pos] = it
            # One local loop over consecutive rows (no method call per row: a tenth of a bulk build at 10^6).
            view, loads, decode, off, get = src.view, src.loads, src.decode, src.offsets, by_pos.get
            start = off[0]
            for end, pos in zip(off[1:], src.positions):
                it = get(pos)
                if it is None:
                    it = decode(loads(view[start : end - 1]))
                put(self, it.id, it)
                start = end
            src.left = 0
            for iid, it in built.items():  # added after the open: later positions, in the order they came
                put(self, iid, it)
        finally:
            if was:
                gc.enable()
        src.view.release()
        if src.freeze_min is not None and many >= src.freeze_min:
            gc.freeze()

    def __delitem__(self, key: Any) -> None:
        self.build_all()
        dict.__delitem__(self, key)

    def clear(self) -> None:
        self._src = None
        dict.clear(self)


__all__ = ["LazyItems", "RowSource"]
