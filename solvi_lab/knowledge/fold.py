"""The fold: the specification's rules for the knowledge store, as a fold over journal records.

Its one job: given "knowledge" records in journal order, decide every item's status — how an add contends on its
key (ranks, outcomes, hypotheses, expiry), disputes and their person questions, premises, new versions and
rollbacks, settling, confirmations, flags and the decision clock. `Fold` holds the whole fold state as the fields
listed in `Fold.FIELDS` (docs/ARCHITECTURE.md, "The store's layout"), and nothing else.

It may not touch a journal, validate input or raise an input error, or offer a public API: records reach it already
checked (the store validates once and the journal's kinds registry checks payload shapes), and the store
(knowledge/store.py) is the public face. The checkpointed re-fold and propagation (knowledge/refold.py) and the
digests and fingerprint (knowledge/digests.py) are functions over this state, bound here as methods.

>>> from solvi_lab.journal import Record
>>> f = Fold()
>>> key = '[null,"c17","tier"]'
>>> f._fold([Record(0, "knowledge", {"op": "add", "kind": "fact", "body": {"s": "c17", "r": "tier", "o": "vip"},
...                                  "source": "person", "key": key}, "", "")])
>>> f._items["k0"].state, f.position
('active', 1)
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from ..journal import Record
from . import digests, refold
from .digests import MASK, _h
from .fold_state import FoldState
from .gates import source_refusal
from .items import BEHAVIOUR_KINDS, LIVE, RANK, Item, ItemStatus, item_id, stronger_rule, value_key
from .keys import _SIDE, _Key
from .staleness import Flag

RECORD_KIND = "knowledge"
# a premise's statuses that let an item rest on it (_premise_state: anything else is missing, refuted or retracted)
_SOUND = frozenset({"active", "hypothesis", "disputed"})


class Fold(FoldState):
    """The fold state of a knowledge store and the rules that move it (see the module docstring).

    `Fold()` is the state before any record (the fields of FoldState, knowledge/fold_state.py); `_fold(records)`
    folds records in journal order. The store (KnowledgeStore) holds one (`ks._fold`) and puts a journal,
    validation and the public API around it."""

    KINDS: tuple[str, ...] = (RECORD_KIND,)

    def _fold(self, records: Iterable[Record]) -> None:
        """Fold records in journal order: those of KINDS through _apply, the others only move the position
        (other writers' records share the chain; the fold ignores them)."""
        kinds = self.KINDS
        for r in records:
            if r.kind in kinds:
                self._apply(r)
                self._folded += 1
            else:
                self.position = r.position + 1

    def _load(self, record: Record) -> None:
        """Journal(on_load=...) while a file loads: the same fold as _fold, one record at a time (inlined: it runs
        once per record of the file). An add, most records of a journal, goes straight to `_fold_new_item`: what
        `_apply` does for it, without its frame and its dispatch on the op."""
        if record.kind == RECORD_KIND:
            pos, p = record.position, record.payload
            self.position = pos + 1
            if p.get("op") == "add":
                self._fold_new_item(pos, p)
                self._folded += 1
                return
        if record.kind in self.KINDS:
            self._apply(record)
            self._folded += 1
        else:
            self.position = record.position + 1

    def _apply(self, record: Record) -> None:
        """Fold one record of KINDS: the one path for live writes, loads and rebuilds. A record of another of
        KINDS than "knowledge" goes to `_fold_other` (the store reads decision records there and hands the fold
        what they say: `_decision_info`)."""
        pos, p = record.position, record.payload
        self.position = pos + 1
        if record.kind != RECORD_KIND:
            self._fold_other(record)
            return
        op = p.get("op")
        if op == "add":
            self._fold_new_item(pos, p)
        elif op == "use":
            # Not a key event: a use changes no status, and an item is present or not from its own add on, so the
            # count is kept as records arrive and a re-fold never replays it (item() reports it while present).
            it = self._items.get(p.get("id"))
            if it is not None:
                it.uses += 1
                it.wrong_uses += 1 if p.get("wrong") else 0
                if it.present:
                    self._touch(it)
        elif op in ("resolve", "promote", "rollback", "confirm"):
            ks = self._keys.get(p["key"])
            if ks is None:
                return
            ev = (pos, op, p)
            ks.events.append(ev)
            self._apply_event(ks, ev)
            self._settle_digests(ks)
            if len(ks.events) % self.CHECKPOINT_EVERY == 0:
                self._add_checkpoint(ks)
        elif op == "retract":
            self._retracted[p["id"]] = {"position": pos, "by": p.get("by"), "why": p.get("why")}
            if p["id"] not in self._skip:
                self._skip.add(p["id"])
                it = self._items.get(p["id"])
                if it is not None:
                    self._propagate([(it.key, it.pos)])
        elif op == "flag":
            f = Flag(
                p["id"],
                pos,
                p.get("why", ""),
                p.get("by"),
                p.get("scope"),
                tuple(p.get("ids") or ()),
                p.get("target_key"),
            )
            self._flags.add(f)
            self._flags_sum = (self._flags_sum + _h(f.observable())) & MASK
        elif op == "end_flag":
            f = self._flags.flags.get(p["flag"])
            if f is not None and f.pending:
                self._flags_sum = (self._flags_sum - _h(f.observable())) & MASK
                f.ended_at, f.ended_by, f.ended_why = pos, p.get("by"), p.get("why")
                self._flags_sum = (self._flags_sum + _h(f.observable())) & MASK
        elif op == "tick":
            self.ticks += int(p["k"])

    def _fold_other(self, record: Record) -> None:
        """A record of KINDS other than "knowledge" (none in a bare Fold; the store's decisions): nothing to fold."""

    def _fold_new_item(self, pos: int, p: dict[str, Any]) -> None:
        it = Item(pos, p, sys.intern(p["key"]), self.ticks)
        if it.scope is not None:  # identical scopes share one dict (they are never mutated): memory at 10^6
            it.scope = self._scopes.setdefault(repr(it.scope), it.scope)
        refusal = source_refusal(it.kind, it.body, it.source, it.of, self._decision_info)
        if refusal is not None:
            it.refusal = refusal
        elif it.source == "verified":
            it.guarantee = self._decision_info[it.of][1]
        self._items[it.id] = it
        key = it.key
        ks = self._keys.get(key)
        fresh = ks is None
        if fresh:
            ks = self._keys[key] = _Key(key)
        ks.item_ids.append(it.id)
        if self._indexed:
            for pid in it.derived_from:
                self._dependents.setdefault(pid, []).append(it.id)
            if it.supersedes:
                self._successors.setdefault(it.supersedes, []).append(it.id)
            if it.subject is not None:
                self._by_subject.setdefault(it.subject, []).append(it.id)
        ks.events.append(pos)
        if not (fresh and self._admit_alone(ks, it, pos)):  # else admitted alone, without the contention steps
            self._apply_add(ks, it, pos)  # _apply_event's path for an add, without the dispatch
            self._settle_digests(ks)
        if len(ks.events) % self.CHECKPOINT_EVERY == 0:
            self._add_checkpoint(ks)

    def _admit_alone(self, ks: _Key, it: Item, pos: int) -> bool:
        """Fold the add of `it`, the first item of key `ks`, when it is plainly admitted: no refusal, no gate
        verdict, not skipped, no version it supersedes, every premise sound and on another key. Then nothing
        contends (the key has no other item) and no question opens, so what `_apply_add` would do comes down to its
        status, history and the key's live set and side count (its digest is settled as after any add) (issue 42: most adds of a
        stream open a key of their own; this spares them the contention steps). False, with nothing changed, for
        any other add: the caller folds it through `_apply_add`, which says why it is not admitted."""
        if it.refusal or it.verdicts or it.supersedes or it.id in self._skip:
            return False
        if it.derived_from:
            items, skip, key = self._items, self._skip, ks.key
            for pid in it.derived_from:
                prem = items.get(pid)
                # In a forward fold every entry of a premise's history is before `pos`, so its status now is its
                # status at `pos` (what _premise_state reads); anything not plainly sound goes the long way.
                if prem is None or prem.pos >= pos or pid in skip or prem.state not in _SOUND or prem.key == key:
                    return False
        if it.hypothesis_req:
            state, why = "hypothesis", "written as a hypothesis"
        else:
            state, why = "active", "admitted"
            if it.kind == "fact":
                ks.sides[it.value] = 1
        it.state, it.hist, it.why = state, (pos, state), why
        ks.live[it.id] = it
        self._touched.add(it)
        self._settle_digests(ks)
        return True

    def _set(self, ks: _Key, it: Item, state: str, pos: int, why: str = "") -> None:
        old = it.state
        if state != old:  # the status and its history (the fold's most frequent step)
            it.state = state
            h = it.hist  # a tuple: untracked by the cyclic collector once seen (a list per item would be scanned)
            it.hist = h[:-1] + (state,) if h and h[-2] == pos else h + (pos, state)
            if state in LIVE:
                if old not in LIVE:
                    ks.live[it.id] = it
            elif old in LIVE:
                ks.live.pop(it.id, None)
            if it.kind == "fact":
                side = state in _SIDE
                if side != (old in _SIDE):
                    sides = ks.sides
                    if side:
                        sides[it.value] = sides.get(it.value, 0) + 1
                    elif sides[it.value] == 1:
                        del sides[it.value]
                    else:
                        sides[it.value] -= 1
                ks.disputed += (state == "disputed") - (old == "disputed")
        if why:
            it.why = why
        self._touched.add(it)

    def _touch(self, it: Item) -> None:
        self._touched.add(it)

    def _refute(self, ks: _Key, it: Item, by: str, pos: int, why: str) -> None:
        it.before_refute = it.state
        self._set(ks, it, "refuted", pos, why)
        it.refuted_by = by
        it.invalidated_at = pos
        it.refutations += 1

    def _apply_event(self, ks: _Key, ev: Any) -> None:
        if type(ev) is int:  # an add, stored as its position
            self._apply_add(ks, self._items[item_id(ev)], ev)
            return
        pos, op, data = ev
        p = data
        it = self._items.get(p.get("id")) if p.get("id") else None
        clock = p.get("clock", 0)
        if op == "resolve":
            q = ks.open_q
            if q is None:
                return  # the dispute it answered does not exist in this history (a side was retracted)
            value = value_key(p["value"])
            for c in list(ks.live.values()):
                if c.state == "hypothesis":
                    continue
                if c.value == value:
                    self._set(ks, c, "active", pos, f"resolved by {p.get('by')}")
                else:
                    self._refute(ks, c, q["id"], pos, f"resolution of {q['id']} by {p.get('by')}")
            q.update(closed_at=pos, closed_by=p.get("by"), resolution=p["value"], how="resolved")
            ks.open_q = None
            ks.q_settled = min(ks.q_settled, len(ks.questions) - 1)
        elif op == "promote":
            if it is None or it.state != "hypothesis":
                return
            it.promoted = {"by": p.get("by"), "why": p.get("why"), "position": pos}
            self._set(ks, it, "active", pos, f"promoted by {p.get('by')}: {p.get('why')}")
            if it.kind == "fact":
                self._contend(ks, it, pos, clock)
            self._settle(ks, pos)
        elif op == "confirm":
            if it is None or it.state not in LIVE:
                return
            it.confirmed_pos, it.confirmed_clock = pos, clock
            it.confirmations += 1
            it.clock_rule = stronger_rule(it.clock_rule, p.get("rule"))
            self._touch(it)
            # A confirmation activates a hypothesis written as one; a behaviour item a gate held waits for
            # promote() (spec, "Write gates": it stays a hypothesis, and its promotion is journaled with who and why).
            held = it.kind in BEHAVIOUR_KINDS and any(not v.get("admit") for v in it.verdicts)
            if it.state == "hypothesis" and not held and p.get("source") in ("outcome", "person"):
                self._set(ks, it, "active", pos, f"confirmed by {p.get('by')}")
                if it.kind == "fact":
                    self._contend(ks, it, pos, clock)
                self._settle(ks, pos)
        elif op == "rollback":
            if it is None or it.state not in LIVE or not it.supersedes:
                return
            prev = self._items.get(it.supersedes)
            if prev is None or prev.state != "refuted" or prev.refuted_by != it.id:
                return
            self._refute(ks, it, "rollback", pos, f"rolled back by {p.get('by')}: {p.get('why')}")
            restored = prev.before_refute if prev.before_refute in LIVE else "active"
            if restored == "disputed":
                restored = "active"
            prev.refuted_by = None
            prev.invalidated_at = None
            self._set(ks, prev, restored, pos, f"restored by rollback of {it.id}")
            flags = p.get("flags") or []
            # A stale version is never restored as a fact: under a pending flag it comes back as a hint.
            prev.restored_under = {"flags": flags, "position": pos} if flags else None
            if prev.kind == "fact":
                self._contend(ks, prev, pos, clock)
            self._settle(ks, pos)

    def _premise_state(self, pid: str, pos: int) -> tuple[str, str]:
        """(problem, why) of one premise as of journal position `pos`; problem '' when the premise is sound."""
        p = self._items.get(pid)
        if p is None or p.pos >= pos:
            # an id no add() returned may be any string: the reason (journaled, shown) quotes its first 80 characters
            return "missing", f"premise {pid if len(pid) <= 80 else pid[:77] + '...'} is missing"
        if pid in self._skip:
            return "retracted", f"rests on {pid}, which was retracted"
        st = p.state_at(pos)
        if st == "retracted":
            return "retracted", f"rests on {pid}, which was retracted"
        if st is None or st == ItemStatus.REFUSED:
            return "missing", f"premise {pid} is not in the store"
        if st == "refuted":
            return "refuted", f"premise {pid} was refuted"
        return "", ""

    def _dead_at_add(self, it: Item, pos: int) -> tuple[str, str] | None:
        """(status, why) when item `it` is refused or retracted at its own add (it never enters the key's live
        set, so it moves nothing else on the key); None when it is admitted."""
        if it.refusal:
            return "refused", it.refusal
        if it.id in self._skip:
            info = self._retracted.get(it.id)
            return "retracted", f"retracted by {info['by']}: {info['why']}" if info else "skipped in this rebuild"
        for pid in it.derived_from:
            problem, why = self._premise_state(pid, pos)
            if problem == "retracted":
                return "retracted", why
            if problem:
                return "refused", why
            prem = self._items[pid]
            if it.kind == "fact" and prem.key == it.key and prem.value != it.value:
                return "refused", f"would refute its own premise {pid}"
        if it.verdicts and it.kind not in BEHAVIOUR_KINDS:
            for v in it.verdicts:
                if not v.get("admit"):
                    return "refused", f"gate {v.get('gate')}: {v.get('reason')}"
        return None

    def _apply_add(self, ks: _Key, it: Item, pos: int) -> None:
        dead = self._dead_at_add(it, pos)
        if dead is not None:
            self._set(ks, it, dead[0], pos, dead[1])
            return
        held = [v for v in it.verdicts if not v.get("admit")] if it.verdicts else ()
        if held:
            self._set(ks, it, "hypothesis", pos, f"held by gate {held[0].get('gate')}: {held[0].get('reason')}")
        elif it.hypothesis_req:
            self._set(ks, it, "hypothesis", pos, "written as a hypothesis")
        else:
            self._set(ks, it, "active", pos, "admitted")
        if it.supersedes:
            old = self._items.get(it.supersedes)
            if old is not None:
                it.version = old.version + 1
                if old.state in LIVE:
                    self._refute(ks, old, it.id, pos, f"superseded by {it.id}")
        if it.kind == "fact":
            self._contend(ks, it, pos, it.clock)
            self._settle(ks, pos)

    def _contend(self, ks: _Key, n: Item, pos: int, clock: int) -> None:
        """Apply the rank rules between newcomer n and the live contenders of its key: first, does n lose outright
        (then it changes nothing else); if not, each contender holding n's value is confirmed by it, and each
        holding another value is refuted or left disputed. One pass over the live set decides both, in its order,
        and the steps are taken after it in that order (issue 42: a busy key's disputed contenders were read twice
        per add, and an equal-rank one — the most common on such a key — needs no step at all). Item.expired and
        stronger_rule are inlined: this loop runs over every live contender of a busy key on every add."""
        n_hyp = n.state == "hypothesis"
        n_value, n_source = n.value, n.source
        n_rank = RANK[n_source]
        may_lose = n_source != "outcome" or n_hyp
        sup = n.supersedes
        steps: list[tuple[Item, str | None]] = []  # (contender, why it is refuted; None: it is confirmed)
        for c in ks.live.values():  # nothing changes the live set during this pass: the steps come after it
            if c is n:
                continue
            if c.value == n_value:
                steps.append((c, None))
                continue
            rule = c.clock_rule
            expired = rule is not None and clock - c.confirmed_clock >= rule
            c_hyp = c.state == "hypothesis"
            c_rank = RANK[c.source]  # read once: both questions below need it
            if may_lose and not c_hyp and not expired and c.id != sup:
                if c_rank > n_rank or (n_hyp and c_rank == n_rank):
                    self._refute(ks, n, c.id, pos, f"contradicts {c.id} ({c.source} outranks {n_source})")
                    return
            if expired:
                steps.append((c, f"expired, then contradicted by {n.id}"))
            elif n_hyp:
                continue  # a hypothesis never refutes or disputes; it is shown as a hint beside the fact
            elif n_source == "outcome":
                steps.append((c, f"contradicted by observation {n.id}"))
            elif c_hyp:
                if n_rank >= c_rank:
                    steps.append((c, f"contradicted by {n.id} ({n_source})"))
            elif n_rank > c_rank:
                steps.append((c, f"contradicted by {n.id} ({n_source} outranks {c.source})"))
            # equal rank: a dispute, settled by _settle
        if not steps:
            return
        touched = self._touched
        confirms = not n_hyp and n_source in ("outcome", "person")
        n_rule = n.clock_rule
        for c, why in steps:
            if why is not None:
                self._refute(ks, c, n.id, pos, why)
                continue
            c.confirmations += 1
            touched.add(c)
            if confirms:
                c.confirmed_pos, c.confirmed_clock = pos, clock
                rule = c.clock_rule
                c.clock_rule = None if rule is None or n_rule is None else max(rule, n_rule)
                if n_source == "outcome" and c.state == "hypothesis":
                    self._set(ks, c, "active", pos, f"confirmed by observation {n.id}")

    def _settle(self, ks: _Key, pos: int) -> None:
        """Mark disputes: live, non-hypothesis contenders holding more than one value are all disputed."""
        sides = ks.sides  # counts kept by _set: no scan of the live set unless a status must move
        if len(sides) > 1:
            if ks.disputed < sum(sides.values()):  # a side not marked yet (statuses only move within LIVE here)
                for c in ks.live.values():
                    if c.state == "active" and c.kind == "fact":
                        self._set(ks, c, "disputed", pos, "disputed: same-rank sources disagree")
            if ks.open_q is None:
                q = {
                    "id": f"q{pos}",
                    "key": ks.key,
                    "opened_at": pos,
                    "closed_at": None,
                    "closed_by": None,
                    "resolution": None,
                    "how": None,
                }
                if not ks.questions:
                    ks.questions = []
                ks.questions.append(q)
                ks.open_q = q
        else:
            if ks.disputed:
                for c in ks.live.values():
                    if c.state == "disputed" and c.kind == "fact":
                        self._set(ks, c, "active", pos, "dispute settled")
            if ks.open_q is not None:
                ks.open_q.update(closed_at=pos, closed_by=None, how="settled by a stronger source")
                ks.open_q = None
                ks.q_settled = min(ks.q_settled, len(ks.questions) - 1)

    # The re-fold (knowledge/refold.py) and the digests (knowledge/digests.py): functions over this state.
    _add_checkpoint = refold.add_checkpoint
    _checkpoint = refold.checkpoint
    _refold = refold.refold
    _refold_dead_item = refold.refold_dead_item
    _late_readers = refold.late_readers
    _join_old_run = refold.join_old_run
    _propagate = refold.propagate
    _flush_digests = digests.flush_digests
    _settle_digests = digests.settle_digests
    _settle_questions = digests.settle_questions
    _release = digests.release
