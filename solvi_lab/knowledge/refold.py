"""The checkpointed re-fold and propagation: how a retraction re-folds only what it changes.

Its one job: checkpoint a key's fold state every CHECKPOINT_EVERY events, fold a key again from the checkpoint
before a change until its state meets the old run's, and propagate along premise edges in journal order until
nothing moves (cost model: docs/ARCHITECTURE.md, "Store: retraction cost model"). Functions over the fold's state (`self`,
knowledge/fold_state.py), bound as Fold's methods in knowledge/fold.py; the rules themselves are the fold's (`_apply_event`, `_set`, ...), never
copied here. It may not read the journal, validate input, or decide a status any other way than the rules do.

The cost model is in docs/ARCHITECTURE.md ("Store: retraction cost model"). In short: a key's items that are
neither live nor restorable by a rollback never change again, so a checkpoint keeps only the live ones (in
contention order), the refuted versions a live item's rollback could bring back, and the open question. A
re-fold starts at the last checkpoint before the change and stops at the first later checkpoint where that
state equals the old run's and no later event on the key reads an item whose state moved: from there on the
old run's events act identically, so everything after is the old run's.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterable
from itertools import chain
from typing import TYPE_CHECKING, Any

from .digests import MASK
from .items import FOLD_WIDTH, Item, _fold_fields, item_id
from .keys import _DEAD, _event_pos

if TYPE_CHECKING:
    from .fold_state import FoldState
    from .keys import _Key


def _opened_by(questions: list, last: int) -> int:
    """How many of a key's questions (in opening order) were opened at or before journal position `last`."""
    return bisect.bisect_right(questions, last, key=lambda q: q["opened_at"])


def _hist_upto(hist: tuple, last: int) -> tuple:
    """A flat [position, state, ...] status history cut after journal position `last`."""
    n = len(hist)
    while n and hist[n - 2] > last:
        n -= 2
    return hist[:n]


def checkpoints_of(ks: _Key) -> list[tuple] | None:
    """A key's checkpoints; a fold snapshot's are turned into tuples here, at their first use
    (fold_snapshot.PendingCheckpoints: an open from a snapshot does not parse them)."""
    cps = ks.checkpoints
    if cps is not None and type(cps) is not list:
        cps = ks.checkpoints = cps.load()
    return cps


def add_checkpoint(self: FoldState, ks: _Key) -> None:
    if checkpoints_of(ks) is None:
        ks.checkpoints = []
    ks.checkpoints.append(self._checkpoint(ks, _event_pos(ks.events[-1])))


def checkpoint(self: FoldState, ks: _Key, last: int) -> tuple:
    """(position of the last event folded, how many live items, every item that can still change — the live
    ones first, in contention order — their fold states one after another, FOLD_WIDTH values each, the open
    question as it is). The questions opened by
    then are found by their positions."""
    live = tuple(ks.live.values())
    dynamic = list(live)
    seen = set(ks.live)
    for z in live:  # a rollback of z brings back the version z superseded, and so on down the chain
        while z.supersedes:
            y = self._items.get(z.supersedes)
            if y is None or y.id in seen or y.state != "refuted" or y.refuted_by != z.id:
                break
            seen.add(y.id)
            dynamic.append(y)
            z = y
    # Items in one tuple and all their states in one flat tuple (FOLD_WIDTH values per item), not a tuple per
    # item: a re-fold rebuilds a busy key's checkpoints, and thousands of new small tuples per retraction set
    # off young-generation collector passes inside it (benchmarks/retraction_gc.py: the p99 outliers).
    return (
        last,
        len(live),
        tuple(dynamic),
        tuple(chain.from_iterable(map(_fold_fields, dynamic))),
        dict(ks.open_q) if ks.open_q is not None else None,
    )


def refold(self: FoldState, ks: _Key, from_pos: int = 0, needs: Iterable[int] = ()) -> tuple[list[Item], list[int]]:
    """Fold key `ks` again from journal position `from_pos` (everything before it is unchanged). Returns the
    items whose status history moved, and the later positions on this key that still need a re-fold: those
    of `needs` (items resting on a premise that changed) beyond the point where this re-fold met the old
    run, and the same-key items that read an item whose state moved."""
    quick = self._refold_dead_item(ks, from_pos, needs)
    if quick is not None:
        return quick
    every = self.CHECKPOINT_EVERY
    events = ks.events
    cps = checkpoints_of(ks)
    first = bisect.bisect_left(events, from_pos, key=_event_pos)
    c = first // every - 1  # checkpoint c holds the state after events[: (c + 1) * every]
    old_live, old_open, old_counts = ks.live, ks.open_q, (ks.sides, ks.disputed)
    old_q, old_qd = ks.questions or [], ks.q_digests or []
    saved: dict[Item, tuple[tuple, tuple]] = {}  # the old run's final state of every item folded again
    clean: set[Item] = set()  # of those, the ones whose digest was up to date before this re-fold
    if c >= 0:
        last, n_live, dynamic, states, open_q = cps[c]
        nq = _opened_by(old_q, last)
        w = FOLD_WIDTH
        for k, it in enumerate(dynamic):
            saved[it] = (it.fold_state(), it.hist)
            if it not in self._touched:
                clean.add(it)
            it.set_fold_state(states[k * w : (k + 1) * w])
            it.hist = _hist_upto(it.hist, last)
        ks.live = {it.id: it for it in dynamic[:n_live]}
        ks.recount()
        questions, digests = list(old_q[:nq]), list(old_qd[:nq])
        if open_q is not None:
            questions[-1] = dict(open_q)  # the question open then, as it was then (it closed later)
        ks.open_q = questions[-1] if open_q is not None else None
        ks.q_settled = nq - (open_q is not None)
        start = (c + 1) * every
    else:
        ks.live, questions, digests, ks.open_q, ks.q_settled, start = {}, [], [], None, 0, 0
        ks.sides, ks.disputed = {}, 0
    ks.questions, ks.q_digests = questions, digests
    total = sum(digests) & MASK  # the key's question share, kept equal to the sum of its digests
    self._keys_sum = (self._keys_sum - ks.contribution + total) & MASK
    ks.contribution = total
    stop = None
    for idx in range(start, len(events)):
        ev = events[idx]
        if type(ev) is int:
            it = self._items[item_id(ev)]
            saved[it] = (it.fold_state(), it.hist)
            if it not in self._touched:
                clean.add(it)
            it.reset()
        self._apply_event(ks, ev)
        if (idx + 1) % every == 0:
            old_cp, new_cp = cps[idx // every], self._checkpoint(ks, _event_pos(ev))
            cps[idx // every] = new_cp
            if new_cp[1:] == old_cp[1:]:
                stop = (idx + 1, new_cp, old_cp)
                break
    self.last_propagation["events"] += (stop[0] if stop else len(events)) - start
    later: list[int] = []
    if stop is not None:
        last = stop[1][0]
        later = sorted({p for p in needs if p > last} | self._late_readers(ks, saved, stop[1]))
        self._join_old_run(ks, saved, stop[1], stop[2], old_live, old_open, old_q, old_qd)
        ks.sides, ks.disputed = old_counts  # the old run's live set is back, and with it its counts
    for it, (st, _) in saved.items():  # hash again only the items whose fold state moved
        if it in clean and it.fold_state() == st:
            self._touched.discard(it)
        else:
            self._touched.add(it)
    self._settle_digests(ks)
    return [it for it, (st, hist) in saved.items() if it.state != st[0] or it.hist != hist], later


def refold_dead_item(self: FoldState, ks: _Key, pos: int, needs: Iterable[int]) -> tuple[list[Item], list[int]] | None:
    """The re-fold of an add that moved nothing else on its key in the old run and moves nothing in the new
    one: O(1) instead of replaying the key from a checkpoint. None when it does not apply.

    It applies when the item at `pos` is dead at its own add in both runs. In the old run: refused or
    retracted (statuses nothing leaves), or refuted at its add by losing outright to a live contender (the
    rank rules then change nothing else, and no rollback can bring it back: it was refuted by an earlier item,
    not by a new version of it) and superseding nothing (a new version refutes its predecessor as it enters).
    In the new run: refused or retracted at its add (`_dead_at_add`). Either way it never sits in the key's
    live set past its add, so every other item's fold, the key's questions and its checkpoints are unchanged;
    the item's own fold state is what a replay gives it, reset and then refused or retracted."""
    it = self._items.get(item_id(pos))
    if it is None or it.key != ks.key:
        return None  # not an add on this key (a resolve, a promotion, ...)
    hist = it.hist
    if len(hist) != 2:
        return None
    if hist[1] == "refuted":
        if it.supersedes is not None or it.invalidated_at != pos:
            return None
    elif hist[1] not in _DEAD:
        return None
    dead = self._dead_at_add(it, pos)
    if dead is None:
        return None
    self.last_propagation["events"] += 1
    it.reset()
    self._set(ks, it, dead[0], pos, dead[1])
    later = {p for p in needs if p > pos}
    if it.hist != hist:  # its status moved: items on this key resting on it read it again
        later.update(dep.pos for d in self._dependents.get(it.id, ()) if (dep := self._items[d]).key == ks.key)
        return [it], sorted(later)
    return [], sorted(later)


def late_readers(self: FoldState, ks: _Key, saved: dict[Item, tuple[tuple, tuple]], cp: tuple) -> set[int]:
    """Positions after checkpoint `cp` where an event on this key reads an item whose state moved: an item
    derived from it, or a new version of it when its version moved."""
    last, dynamic = cp[0], set(cp[2])
    out: set[int] = set()
    for it, (st, hist) in saved.items():
        if it in dynamic or (it.fold_state() == st and it.hist == hist):
            continue
        for d in self._dependents.get(it.id, ()):
            dep = self._items[d]
            if dep.key == ks.key and dep.pos > last:
                out.add(dep.pos)
        if it.version != st[10]:
            out.update(self._items[s].pos for s in self._successors.get(it.id, ()) if self._items[s].pos > last)
    return out


def join_old_run(
    self: FoldState,
    ks: _Key,
    saved: dict,
    new_cp: tuple,
    old_cp: tuple,
    old_live: dict,
    old_open: Any,
    old_q: list,
    old_qd: list,
) -> None:
    """The re-fold reached a checkpoint where its state equals the old run's: keep the old run from there on.
    Items that can still change take their old final state (their status history: the new one up to the
    checkpoint, the old one after it); live order, the open question and later questions are the old run's."""
    last = new_cp[0]
    for it in new_cp[2]:
        if it in saved:
            st, hist = saved[it]
            it.set_fold_state(st)
            it.hist = it.hist + tuple(h for k in range(0, len(hist), 2) if hist[k] > last for h in hist[k : k + 2])
    ks.live = old_live
    self._settle_questions(ks)  # digests of the questions the re-fold opened or closed
    keep = len(ks.questions) - (new_cp[4] is not None)
    since = _opened_by(old_q, last) - (old_cp[4] is not None)  # the old run's questions from the checkpoint on
    ks.questions = ks.questions[:keep] + old_q[since:]
    ks.q_digests = ks.q_digests[:keep] + old_qd[since:]
    ks.open_q = old_open
    ks.q_settled = len(ks.questions)
    total = sum(ks.q_digests) & MASK
    self._keys_sum = (self._keys_sum - ks.contribution + total) & MASK
    ks.contribution = total


def propagate(self: FoldState, keys: Iterable[tuple[str, int]]) -> None:
    """Re-fold the given keys from the given positions, then wherever an item rests on one whose status
    history moved, until nothing changes: a worklist in journal order, each key with the positions it must
    re-fold from (a re-fold that meets the old run early leaves the later ones queued)."""
    heap: list[tuple[int, str]] = []
    queued: dict[str, list[int]] = {}  # key -> positions on it that need a re-fold (the smallest is in heap)

    def need(k: str, positions: Iterable[int]) -> None:
        have = queued.setdefault(k, [])
        first = have[0] if have else None
        have.extend(positions)
        have.sort()
        if have and have[0] != first:
            heapq.heappush(heap, (have[0], k))

    touched = {"keys": 0, "items": 0, "events": 0}
    self.last_propagation = touched  # what the last retraction re-folded: the cost measure of the study
    for k, pos in keys:
        need(k, (pos,))
    while heap:
        pos, k = heapq.heappop(heap)
        positions = queued.get(k)
        if not positions or positions[0] != pos:
            continue  # superseded by an earlier start for the same key
        del queued[k]
        touched["keys"] += 1
        touched["items"] += len(self._keys[k].item_ids)
        changed, later = self._refold(self._keys[k], pos, positions)
        if later:
            need(k, later)
        for it in changed:
            for d in self._dependents.get(it.id, ()):
                dep = self._items[d]
                if dep.key != k:
                    need(dep.key, (dep.pos,))
