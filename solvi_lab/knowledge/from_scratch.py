"""Folding from scratch: the definition a retraction must meet, and verify()'s second fold.

Its one job: fold a journal's records from nothing with every retracted item treated as never written (the retract
records read first, so nothing re-folds: `fold_definition`, what `from_journal`, `from_records`, `rebuild` and `at`
run), and verify a live store against such a fold that lets go of what no later record reads (`lean_fold`,
knowledge/release.py). Functions over a store (`self`), bound as its methods in knowledge/store.py. It may not
change a live store (a rebuild is a new store; verify only reports) or write a journal.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import BadInput
from ..journal import Record, canonical
from . import digests
from .fold import RECORD_KIND
from .items import Item, item_id
from .release import ReleasePlan

if TYPE_CHECKING:
    from .store import KnowledgeStore

NO_CHECKPOINTS = 1 << 62  # CHECKPOINT_EVERY of a fold nothing re-folds (a replay, verify's fold): never reached


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
    self: KnowledgeStore,
    records: Iterable[Record],
    skip: set[str],
    at: Callable[[KnowledgeStore, int], None] | None = None,
    at_positions: Iterable[int] = (),
) -> None:
    """Fold from scratch with every retracted item (and every id in `skip`) treated as never written: the
    retract records are read first, so no retraction re-folds anything (the definition, and the cheap way)."""
    records = records if isinstance(records, list) else list(records)
    for r in records:
        if r.kind == RECORD_KIND and r.payload.get("op") == "retract":
            p = r.payload
            skip.add(p["id"])
            # known before the item's add is folded, so its why names who retracted it, as the live store's
            self._retracted[p["id"]] = {"position": r.position, "by": p.get("by"), "why": p.get("why")}
    self._skip = skip
    if self._read_only:
        # Read-only, with every retraction in it skipped from the start: nothing ever re-folds this store, so
        # the per-key checkpoints a re-fold starts from would only cost time and memory.
        self.CHECKPOINT_EVERY = NO_CHECKPOINTS
    if at is None:
        self._fold(records)
        return
    wanted = sorted(set(at_positions))
    wi = 0
    for r in records:
        while wi < len(wanted) and wanted[wi] <= r.position:
            at(self, wanted[wi])
            wi += 1
        self._fold((r,))
    while wi < len(wanted):
        at(self, wanted[wi])
        wi += 1


@_gc_paused
def lean_fold(cls: type[KnowledgeStore], records: Iterable[Any], retracted: Iterable[str], plan: ReleasePlan) -> str:
    """The fingerprint of the from-scratch fold of `records` with every retracted item skipped (`lean_store`)."""
    return lean_store(cls, records, retracted, plan).fingerprint()


@_gc_paused
def lean_store(
    cls: type[KnowledgeStore], records: Iterable[Any], retracted: Iterable[str], plan: ReleasePlan
) -> KnowledgeStore:
    """The from-scratch fold of `records` with every retracted item skipped, folded by the store's own fold but
    dropping each item and key after the last record that reads it (`plan`, from a pre-scan of the same records):
    its sums, count, clock, retractions and decisions are the replay's, its item table is not kept. No retraction
    re-folds anything here, so no checkpoints are kept."""
    st = cls._empty()
    st._read_only = "verify()'s lean fold"
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


@_gc_paused
def verify(store: KnowledgeStore, head: Any, lean: Callable[..., KnowledgeStore]) -> Verification:
    """ks.verify(head): the chain walk (noting a ReleasePlan), then `lean(records, retracted, plan)` — the store
    class's lean fold of the journal alone — compared with what the live store serves, recomputed from its items,
    questions and flags (digests.recomputed), never from the digests and sums it keeps: whatever path built the
    live state (a fold, a fold snapshot, lazy items), a served value the replay does not give is found. The
    retractions skipped are the journal's own (the plan's), not the live store's."""
    if store.journal is None or store._read_only:
        raise BadInput("verify() needs the store's journal; call it on the live store.")
    store._catch_up()
    plan = ReleasePlan()  # what the second fold may let go of, and when: noted during the chain walk
    chain = store.journal.verify(head=head, visit=plan.see)  # with a kept head: also refuse a cut or rewritten tail
    if not chain:
        return Verification(False, False, False, chain.records, chain.problem)
    replay = lean(store.journal.records(0, chain.records), (), plan)
    want = replay.fingerprint()
    served, present, kept = digests.recomputed(store)
    differs = []
    if served != want or present != replay._present:
        differs.append("its items, questions, flags or clock (recomputed from what it serves)")
    if kept:
        differs.append(f"its kept digests ({kept}) and what it serves")
    if store.fingerprint() != want:
        differs.append("its fingerprint")
    if store.position != replay.position:
        differs.append(f"its position ({store.position}, the replay's {replay.position})")
    if canonical(store._retracted) != canonical(replay._retracted):
        differs.append("its retractions")
    if canonical(store._decision_info) != canonical(replay._decision_info):
        differs.append("its decisions")
    if differs:
        problem = (
            f"the live store differs from the replay of its journal ({'; '.join(differs)}); the live store is "
            "unchanged, and no fold snapshot is written from it"
        )
        return Verification(False, True, False, chain.records, problem)
    return Verification(True, True, True, chain.records, "")
