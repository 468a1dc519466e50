"""Folding from scratch: the definition a retraction must meet, and verify()'s second fold.

Its one job: fold a journal's records from nothing with every retracted item treated as never written (the retract
records read first, so nothing re-folds: `fold_definition`, what `from_journal`, `from_records`, `rebuild` and `at`
run), and verify a live store against such a fold that lets go of what no later record reads (`lean_fold`,
knowledge/release.py). Functions over a fold (knowledge/fold.py) — never the store: the store's facade hands them
its fold, or the fold class to build one. It may not change a live fold (a rebuild is a new fold; verify only
reports) or write a journal.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..journal import Record, canonical
from . import digests
from .fold import RECORD_KIND
from .items import Item, item_id
from .release import ReleasePlan

if TYPE_CHECKING:
    from .fold import Fold

NO_CHECKPOINTS = 1 << 62  # CHECKPOINT_EVERY of a fold nothing re-folds (a replay, verify's fold): never reached
# verify() keeps the records its chain walk parsed for the replay when the journal holds at most this many: parsing
# every line a second time was an eighth of verify() at 10^5 records (measured: 3.3-3.5 s with, 2.9-3.0 s without),
# and the kept records cost memory only while verify() runs (about 1.2 kB each: +120 MB at 10^5; each is let go of
# once folded). Above it the replay parses the journal again, in constant memory (at 10^6 the kept records would
# add over a gigabyte to a store's peak).
KEEP_PARSED_MAX = 200_000


def _gc_paused(fold: Callable) -> Callable:
    """Run a bulk fold with the cyclic garbage collector paused: a fold allocates an object graph that lives as long
    as the store, and the collector would scan it again and again while it grows, freeing nothing (measured: a
    rebuild ~15-20% faster). It runs again, as before, when the fold returns or raises."""

    @functools.wraps(fold)
    def paused(*args: Any, **kw: Any) -> Any:
        was = gc.isenabled()
        gc.disable()
        try:
            return fold(*args, **kw)
        finally:
            if was:
                gc.enable()

    return paused


@dataclass
class Verification:
    """What verify() found; truthy when the chain is whole and the live store equals the replay of its journal."""

    ok: bool
    chain_ok: bool
    replay_matches: bool
    records: int
    problem: str = ""

    def __bool__(self) -> bool:
        return self.ok


def fold_definition(
    fold: Fold,
    records: Iterable[Record],
    skip: set[str],
    read_only: bool,
    at: Callable[[int], None] | None = None,
    at_positions: Iterable[int] = (),
) -> None:
    """Fold from scratch with every retracted item (and every id in `skip`) treated as never written: the
    retract records are read first, so no retraction re-folds anything (the definition, and the cheap way).
    `read_only`: nothing will ever re-fold this fold (no checkpoints kept). `at(p)` is called just before the record
    at each position in `at_positions` is folded."""
    records = records if isinstance(records, list) else list(records)
    for r in records:
        if r.kind == RECORD_KIND and r.payload.get("op") == "retract":
            p = r.payload
            skip.add(p["id"])
            # known before the item's add is folded, so its why names who retracted it, as the live store's
            fold._retracted[p["id"]] = {"position": r.position, "by": p.get("by"), "why": p.get("why")}
    fold._skip = skip
    if read_only:
        # Read-only, with every retraction in it skipped from the start: nothing ever re-folds this store, so
        # the per-key checkpoints a re-fold starts from would only cost time and memory.
        fold.CHECKPOINT_EVERY = NO_CHECKPOINTS
    if at is None:
        fold._fold(records)
        return
    wanted = sorted(set(at_positions))
    wi = 0
    for r in records:
        while wi < len(wanted) and wanted[wi] <= r.position:
            at(wanted[wi])
            wi += 1
        fold._fold((r,))
    while wi < len(wanted):
        at(wanted[wi])
        wi += 1


@_gc_paused
def lean_fold(cls: type[Fold], records: Iterable[Any], retracted: Iterable[str], plan: ReleasePlan) -> str:
    """The fingerprint of the from-scratch fold of `records` with every retracted item skipped (`lean_store`)."""
    return digests.fingerprint(lean_store(cls, records, retracted, plan))


@_gc_paused
def lean_store(cls: type[Fold], records: Iterable[Any], retracted: Iterable[str], plan: ReleasePlan) -> Fold:
    """The from-scratch fold of `records` with every retracted item skipped, folded by the store's own fold but
    dropping each item and key after the last record that reads it (`plan`, from a pre-scan of the same records):
    its sums, count, clock, retractions and decisions are the replay's, its item table is not kept. No retraction
    re-folds anything here, so no checkpoints are kept. `cls`: the fold class (the store's, which also reads
    decision records)."""
    st = cls()
    st._skip = set(retracted) | plan.retracted
    st.CHECKPOINT_EVERY = NO_CHECKPOINTS  # a forward fold with nothing to re-fold needs no checkpoint
    st._indexed = False  # the read indexes (dependents, successors, subjects) serve re-folds and queries only
    later: dict[int, list[Item]] = {}  # position -> the items to let go of once it is folded
    items = st._items
    for r in records:
        pos = r.position
        st._fold((r,))
        if r.kind == RECORD_KIND and r.payload.get("op") == "add":
            it = items[item_id(pos)]
            at = plan.release_position(it.id, it.key, pos)
            if at > pos:
                later.setdefault(at, []).append(it)
            else:
                st._release(it)
        for it in later.pop(pos, ()):
            st._release(it)
        k = plan.key_ending_at(pos)
        if k is not None and k in st._keys:
            del st._keys[k]
            st._open_set.pop(k, None)
            st._question_keys.pop(k, None)
    st._flush_digests()
    return st


def _noting(see: Callable[[Record], None], kept: list[Record]) -> Callable[[Record], None]:
    """The chain walk's visit: the release plan sees each checked record, and `kept` keeps it for the replay."""
    keep = kept.append

    def visit(r: Record) -> None:
        see(r)
        keep(r)

    return visit


def _drained(kept: list[Record]) -> Iterator[Record]:
    """`kept`'s records in order, each dropped from the list as it is handed out (the replay's memory falls as it
    folds)."""
    kept.reverse()
    pop = kept.pop
    while kept:
        yield pop()


@_gc_paused
def verify(fold: Fold, journal: Any, head: Any, cls: type[Fold]) -> Verification:
    """ks.verify(head), once the store has folded what other writers appended: the chain walk of `journal` (noting
    a ReleasePlan), then the lean fold (`lean_store`, a new `cls`) of the journal alone compared with what `fold`
    serves, recomputed from its items, questions and flags (digests.recomputed), never from the digests and sums it
    keeps: whatever path built the live state (a fold, a fold snapshot, lazy items), a served value the replay does
    not give is found. The retractions skipped are the journal's own (the plan's), not the live store's. `fold` is
    only read (its pending digests are hashed on a copy)."""
    plan = ReleasePlan()  # what the second fold may let go of, and when: noted during the chain walk
    parsed: list[Record] | None = [] if len(journal) <= KEEP_PARSED_MAX else None
    visit = plan.see if parsed is None else _noting(plan.see, parsed)
    chain = journal.verify(head=head, visit=visit)  # with a kept head: also refuse a cut or rewritten tail
    if not chain:
        return Verification(False, False, False, chain.records, chain.problem)
    records = journal.records(0, chain.records) if parsed is None else _drained(parsed)
    replay = lean_store(cls, records, (), plan)
    want = digests.fingerprint(replay)
    served, present, kept, kept_items = digests.recomputed_and_kept(fold)
    differs = []
    if served != want or present != replay._present:
        differs.append("its items, questions, flags or clock (recomputed from what it serves)")
    if kept:
        differs.append(f"its kept digests ({kept}) and what it serves")
    if digests.fingerprint(fold, kept_items) != want:
        differs.append("its fingerprint")
    if fold.position != replay.position:
        differs.append(f"its position ({fold.position}, the replay's {replay.position})")
    if canonical(fold._retracted) != canonical(replay._retracted):
        differs.append("its retractions")
    if canonical(fold._decision_info) != canonical(replay._decision_info):
        differs.append("its decisions")
    if differs:
        problem = (
            f"the live store differs from the replay of its journal ({'; '.join(differs)}); the live store is "
            "unchanged, and no fold snapshot is written from it"
        )
        return Verification(False, True, False, chain.records, problem)
    return Verification(True, True, True, chain.records, "")
