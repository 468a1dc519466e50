"""The sums a read needs, without changing the fold: pending item digests counted on the side, settled by a write.

Its one job: answer (item sum, present count) for `fingerprint()`, `len()` and the reads built on them while the
fold still has item digests pending — counted on the side (`digests.settled`), the fold untouched — and keep that
answer for the next read of the same state; and tell the next write to settle the digests in the fold, under the
journal's lock (`after_write`). A store that is read pays each changed digest once, after the write that changed it;
a store only written pays nothing until it is read (a build, a bulk load). A `ReadSums` sits beside the fold in the
store (`ks._read_sums`); its functions take the fold, never the store. It may not decide a status or hash anything
but through knowledge/digests.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import digests

if TYPE_CHECKING:
    from .fold import Fold


class ReadSums:
    """What reads asked of the fold's sums: whether a read came since the last write (`asked`: the next write
    settles the digests) and the last answer computed on the side, with the state it is for (`kept`)."""

    __slots__ = ("asked", "kept")

    def __init__(self) -> None:
        self.asked = False
        self.kept: tuple[tuple[int, int, int], tuple[int, int]] | None = None

    def sums(self, fold: Fold) -> tuple[int, int]:
        """(item sum, present count) of `fold` with its pending item digests counted on the side: no field of the
        fold changes. The next write is asked to settle them (`after_write`)."""
        self.asked = True
        touched = fold._touched
        if not touched:
            return fold._items_sum, fold._present
        at = (fold.position, id(touched), len(touched))  # the state the kept answer is for
        kept = self.kept
        if kept is None or kept[0] != at:
            kept = self.kept = (at, digests.settled(fold))
        return kept[1]

    def after_write(self, fold: Fold) -> None:
        """After a write folded its record (under the journal's lock): if a read came since the last write, hash
        what is pending now, once."""
        self.asked = False
        if fold._touched:
            fold._flush_digests()
