"""An independent model of the knowledge store's rules, for the Hypothesis state machine (test_store_stateful.py).

Plain dicts and lists, written from the specification (`../shared/seeds/solvi-knowledge.txt`, "The knowledge store",
"Staleness: flags, expiry and rollback", "Write gates") and the README's "Items" / "Contradictions" / "Staleness"
bullets where the specification leaves a detail open. It imports nothing from `solvi_lab`: a rule written wrongly in
the store cannot be copied into the model.

The model keeps the calls made to the store as events in journal order and answers every question by folding them
from scratch. That *is* the specification's definition of retraction ("the store after retract(x) has the
fingerprint of the store rebuilt from its journal as if x had never been written"): a retracted item is skipped by
the fold, and so are, by construction, every effect it had on others. The rules it models:

1. **Sources and ranks** (spec: "Contradictions resolve by rank"): outcome > person > spec > verified. Facts compete
   per (scope, s, r) — here (s, r), no scope. A newcomer with another value than a live contender:
   an observation (outcome) refutes whatever it contradicts; a higher-ranked source refutes a lower one in either
   order (a lower-ranked newcomer is refuted itself and changes nothing else); equal rank is a dispute.
2. **Disputes** (spec: "Anything else is a dispute: every side is disputed ... one person question is opened per
   dispute event"): when live facts on one key hold more than one value, all of them are disputed and a question
   opens unless one is open; when one value is left the survivors are active again and the question closes.
   `resolve(key, value)` keeps the side holding `value` and refutes the rest; the question closes. A resolution
   whose question does not exist in a re-fold (a side was retracted) does nothing.
3. **Supersede** (spec: "a producer's new version (supersedes=) refutes the one it names"): a new version refutes the
   version it names when that one is live (whatever the ranks), then competes like any newcomer. Rules (kind "rule")
   compete only through supersede. `version` is the length of the supersedes chain.
4. **valid=** (spec: "when it held in the world (valid=(since, until), as you give it)"; README "Snapshots"): kept as
   given; it decides no contention. `usable(id, valid_at=t)` and `snapshot(valid_at=t)["facts"]` keep an item only
   when since <= t < until (None: open end).
5. **reconfirm_after and tick** (spec: "reconfirm_after (per kind and source, RECONFIRM_DEFAULTS; the store's clock
   moves with tick) expires items that weaker evidence keeps: a 'verified' fact after 2,000 decisions;
   observations, person labels and spec facts have no clock"; README: "a stronger source re-asserting it frees
   it"): an item's clock is (decision count when last confirmed, rule). A live item is *expired* once
   ticks - confirmed >= rule. An expired contender neither refutes nor disputes a newcomer; a newcomer with another
   value refutes it. A non-hypothesis outcome or person newcomer with the same value re-confirms a live contender:
   its clock restarts and its rule becomes the stronger of the two (no clock beats any clock, a longer clock a
   shorter one). `confirm(id)` by a person or an outcome does the same with the confirmer's rule, which is the
   default of a person or an outcome: no clock.
6. **Write gates** (spec: "Write gates"; README): the source check runs first (kind and source of the
   specification; a "verified" item names a decision answered by System 2 alone under a guarantee whose answer is
   the fact's value); then the user's gates, whose verdict is journaled with the item. A fact a gate holds is
   refused (never present); a rule a gate holds is a hypothesis until `promote`. A re-fold reads the journaled
   verdict: it never asks the gate again (the journal is the record of what was decided).
7. **Premises** (spec: "ConsistencyGate refuses an item whose premises are missing, retracted or refuted, or that
   would refute its own premise"; "ks.retract(vip, ...) # with everything derived from it"): a fact written with
   derived_from=[p] is retracted when p is retracted, refused when p is refused or refuted at that point of the
   fold or when it holds another value on p's key. The check belongs to the fold, so a premise that a retraction
   restores lets a once-refused item in — unless a user gate held it: the gates rule on every item the source
   check admits, so their verdict is in the journal for that re-fold (test_oracle_findings.py).
8. **Retraction** (spec: "A retraction is exact"): the fold skips every item retracted before the position it is
   folded to; `status()` of such an item is "retracted", and it is not present.

Statuses are those of the specification: active, hypothesis, disputed, refuted, expired, retracted, plus "refused"
for a write that never entered the store.

>>> m = Oracle()
>>> m.add(0, "fact", ("c17", "tier"), "vip", "person")
'k0'
>>> m.add(1, "fact", ("c17", "tier"), "regular", "outcome")
'k1'
>>> s = m.fold()
>>> s.status("k0"), s.status("k1")
('refuted', 'active')
>>> m.retract(2, "k1")
>>> m.fold().status("k0")
'active'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RANK = {"outcome": 4, "person": 3, "spec": 2, "verified": 1}
LIVE = ("active", "hypothesis", "disputed")
DEFAULT = "default"  # reconfirm_after not given: the default of (kind, source)


def default_rule(kind: str, source: str) -> int | None:
    """Decisions until an item of this kind and source must be re-confirmed; None: no clock (spec, "Staleness")."""
    return 2000 if (kind, source) == ("fact", "verified") else None


def stronger(a: int | None, b: int | None) -> int | None:
    """The rule of the stronger evidence: no clock beats any clock, a longer clock beats a shorter one."""
    return None if a is None or b is None else max(a, b)


@dataclass
class Write:
    """One add() as the machine made it: what it said, the gate verdict computed when it was written."""

    id: str
    pos: int
    kind: str
    key: tuple
    value: Any
    source: str
    supersedes: str | None = None
    derived_from: tuple[str, ...] = ()
    valid: tuple | None = None
    reconfirm_after: Any = DEFAULT
    admitted_by_source: bool = True
    gate_admits: bool = True  # True also when no gate ran (no gates, or the source check refused it first)


@dataclass
class State:
    """The fold's result at one journal position."""

    ticks: int
    writes: dict[str, Write]
    state: dict[str, str] = field(default_factory=dict)  # id -> fold state (never "expired": that is read)
    confirmed: dict[str, int] = field(default_factory=dict)  # id -> decision count of the last confirmation
    rule: dict[str, int | None] = field(default_factory=dict)  # id -> reconfirm rule now
    open_question: dict[tuple, bool] = field(default_factory=dict)  # key -> a question is open
    questions: int = 0

    def status(self, iid: str) -> str:
        st = self.state[iid]
        if st in LIVE and self.expired(iid):
            return "expired"
        return st

    def expired(self, iid: str, now: int | None = None) -> bool:
        rule = self.rule[iid]
        return rule is not None and (self.ticks if now is None else now) - self.confirmed[iid] >= rule

    def present(self, iid: str) -> bool:
        return self.state[iid] not in ("refused", "retracted")

    def usable(self, iid: str, valid_at: Any = None) -> bool:
        """Active and not expired (no flags or rollbacks are drawn), and valid at `valid_at` when it is given."""
        if self.status(iid) != "active":
            return False
        if valid_at is None or self.writes[iid].valid is None:
            return True
        since, until = self.writes[iid].valid
        return (since is None or since <= valid_at) and (until is None or valid_at < until)

    def live_on(self, key: tuple) -> list[str]:
        return [i for i, w in self.writes.items() if w.key == key and w.kind == "fact" and self.state.get(i) in LIVE]

    def open_disputes(self) -> set[frozenset[str]]:
        """The sides' items of each open dispute."""
        return {
            frozenset(i for i in self.live_on(k) if self.state[i] == "disputed")
            for k, is_open in self.open_question.items()
            if is_open
        }

    def version(self, iid: str) -> int:
        w = self.writes[iid]
        return 1 if w.supersedes is None else 1 + self.version(w.supersedes)

    def chain_present(self, iid: str) -> bool:
        w = self.writes[iid]
        return self.present(iid) and (w.supersedes is None or self.chain_present(w.supersedes))


class Oracle:
    """The calls made to a store, in journal order; `fold(upto)` is the store they give at a position."""

    def __init__(self) -> None:
        self.events: list[tuple] = []  # (pos, op, ...) in journal order
        self.writes: dict[str, Write] = {}

    def add(self, pos: int, kind: str, key: tuple, value: Any, source: str, **said: Any) -> str:
        w = Write(f"k{pos}", pos, kind, key, value, source, **said)
        self.writes[w.id] = w
        self.events.append((pos, "add", w.id))
        return w.id

    def retract(self, pos: int, iid: str) -> None:
        self.events.append((pos, "retract", iid))

    def tick(self, pos: int, k: int) -> None:
        self.events.append((pos, "tick", k))

    def confirm(self, pos: int, iid: str, source: str) -> None:
        self.events.append((pos, "confirm", iid, source))

    def promote(self, pos: int, iid: str) -> None:
        self.events.append((pos, "promote", iid))

    def resolve(self, pos: int, key: tuple, value: Any) -> None:
        self.events.append((pos, "resolve", key, value))

    def fold(self, upto: int | None = None) -> State:
        """The store before journal position `upto` (None: now), every item retracted before it never written."""
        events = [e for e in self.events if upto is None or e[0] < upto]
        retracted = {e[2] for e in events if e[1] == "retract"}
        s = State(ticks=0, writes={w.id: w for w in self.writes.values() if upto is None or w.pos < upto})
        for e in events:
            op = e[1]
            if op == "tick":
                s.ticks += e[2]
            elif op == "add":
                self._add(s, s.writes[e[2]], retracted)
            elif op == "confirm":
                self._confirm(s, e[2], e[3])
            elif op == "promote":
                if s.state[e[2]] == "hypothesis":
                    s.state[e[2]] = "active"
            elif op == "resolve":
                self._resolve(s, e[2], e[3])
        return s

    # ------------------------------------------------------------------------------------------ the rules
    def _add(self, s: State, n: Write, retracted: set[str]) -> None:
        s.confirmed[n.id] = s.ticks
        s.rule[n.id] = default_rule(n.kind, n.source) if n.reconfirm_after == DEFAULT else n.reconfirm_after
        if n.id in retracted:
            s.state[n.id] = "retracted"
            return
        if not n.admitted_by_source:
            s.state[n.id] = "refused"
            return
        for p in n.derived_from:
            if s.state[p] == "retracted":  # with everything derived from it
                s.state[n.id] = "retracted"
                return
            pw = s.writes[p]
            if s.state[p] in ("refused", "refuted") or (pw.kind == "fact" and pw.key == n.key and pw.value != n.value):
                s.state[n.id] = "refused"  # a premise not in the store, refuted, or refuted by this very item
                return
        if not n.gate_admits and n.kind != "rule":
            s.state[n.id] = "refused"  # a fact a gate holds is never present
            return
        s.state[n.id] = "active" if n.gate_admits else "hypothesis"  # a held rule waits for promote
        if n.supersedes is not None and s.state[n.supersedes] in LIVE:
            s.state[n.supersedes] = "refuted"
        if n.kind != "fact":
            return
        others = [c for c in s.live_on(n.key) if c != n.id]
        rival = [c for c in others if s.writes[c].value != n.value and not s.expired(c)]
        if n.source != "outcome" and any(RANK[s.writes[c].source] > RANK[n.source] for c in rival):
            s.state[n.id] = "refuted"  # outranked: it changes nothing else
        else:
            for c in others:
                cw = s.writes[c]
                if cw.value == n.value:
                    if n.source in ("outcome", "person"):  # re-asserted by a stronger source: the clock restarts
                        s.confirmed[c] = s.ticks
                        s.rule[c] = stronger(s.rule[c], s.rule[n.id])
                elif s.expired(c) or n.source == "outcome" or RANK[n.source] > RANK[cw.source]:
                    s.state[c] = "refuted"
        self._settle(s, n.key)

    def _settle(self, s: State, key: tuple) -> None:
        live = s.live_on(key)
        if len({s.writes[i].value for i in live}) > 1:
            for i in live:
                s.state[i] = "disputed"
            if not s.open_question.get(key):
                s.open_question[key] = True
                s.questions += 1
        else:
            for i in live:
                if s.state[i] == "disputed":
                    s.state[i] = "active"
            s.open_question[key] = False

    def _confirm(self, s: State, iid: str, source: str) -> None:
        if s.state[iid] not in LIVE:
            return
        s.confirmed[iid] = s.ticks
        s.rule[iid] = stronger(s.rule[iid], default_rule(s.writes[iid].kind, source))

    def _resolve(self, s: State, key: tuple, value: Any) -> None:
        if not s.open_question.get(key):
            return  # the dispute it answered is not there in this history
        for i in s.live_on(key):
            s.state[i] = "active" if s.writes[i].value == value else "refuted"
        s.open_question[key] = False
