"""The agenda: goals, gates, order.

A goal is done only when its code check says so, never because a model claims it. A gate is a hard check over the
state: `allows` refuses an action the gate blocks (by glob pattern, e.g. "modify_*") while its check is False, and
a goal whose name a gate blocks is not open. A person can override a gate with a recorded reason, and clear the
override again. `dry_run` replays recorded successful actions through the gates before you make them hard.

With a knowledge store, goals and gates are "rule" items (name, requires / blocks and a fingerprint of the check's
code; a changed re-declaration supersedes the old item), goal states are "fact" items
`{"s": ["goal", name], "r": "done", "o": True/False}` with source "outcome" (a code check observed them), and gate
overrides are "person" facts `{"s": ["gate", name], "r": "overridden", "o": True/False}`. Without a store
(`Agenda(None)`) the agenda lives in memory and journals nothing.

>>> ag = Agenda(None)
>>> ag.goal("authenticated", done=lambda s: s.get("user_id") is not None)
>>> ag.goal("exchanged", done=lambda s: s.get("status") == "exchange requested", requires=["authenticated"])
>>> ag.gate("auth_first", check=lambda s: s.get("user_id") is not None, blocks=["modify_*", "exchange*"])
>>> ag.update({})
{'authenticated': False, 'exchanged': False}
>>> ag.open({})
['authenticated']
>>> ag.allows({}, "modify_order")
(False, "gate 'auth_first' blocks 'modify_order' (pattern 'modify_*') until its check holds")
>>> ag.update({"user_id": 7})
{'authenticated': True}
>>> ag.open({"user_id": 7}), ag.done()
(['exchanged'], ['authenticated'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from . import codehash
from .errors import BadInput, UnknownId
from .journal import canonical
from .owner import JournalOwner
from .validation import writing_call

__all__ = ["Agenda", "code_fingerprint"]

State = Any
Check = Callable[[State], bool]


def code_fingerprint(fn: Callable[..., Any]) -> str:
    """The fingerprint of a check's code by the project's one rule (solvi_lab/codehash.py): SHA-256, 64 hex digits.

    >>> code_fingerprint(lambda s: s["x"] > 1) == code_fingerprint(lambda s: s["x"] > 1)
    True
    >>> code_fingerprint(lambda s: s["x"] > 1) == code_fingerprint(lambda s: s["x"] > 2)
    False
    """
    if not callable(fn):
        raise BadInput(f"a check must be a callable check(state) -> bool, got {type(fn).__name__}.")
    return codehash.code_fingerprint(fn)


@dataclass
class _Goal:
    name: str
    done: Check
    requires: list[str]
    fingerprint: str
    item: str | None = None  # the store's rule item id
    state: bool | None = None  # the last observed done value (None: never checked)
    state_item: str | None = None


@dataclass
class _Gate:
    name: str
    check: Check
    blocks: list[str]
    fingerprint: str
    item: str | None = None
    override: dict[str, Any] | None = None  # {"by", "why", "item"} while a person overrides it
    last_override_item: str | None = field(default=None)  # the newest override fact: the next one supersedes it


def _name(what: str, name: Any) -> str:
    if not isinstance(name, str) or not name:
        raise BadInput(f"a {what} needs a non-empty string name, got {name!r}.")
    return name


def _names(what: str, values: Any) -> list[str]:
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise BadInput(f"{what} must be a list of strings, got {values!r}; wrap a single name in a list.")
    out = list(values)
    for v in out:
        _name(what, v)
    return out


def _verdict(what: str, value: Any) -> bool:
    # A check that forgot to return gives None; treating that as False would silently block forever.
    if value is None:
        raise BadInput(f"{what} returned None; a check must return True or False.")
    return bool(value)


class Agenda(JournalOwner):
    """Goals with their done checks and order, and gates over actions and goals.

    `store` is a KnowledgeStore (everything journaled there) or None (in memory). `scope` is the scope of the
    items written; `source`/`by` say where the goals and gates came from (default: a written specification).
    """

    def __init__(
        self, store: Any = None, *, scope: dict[str, Any] | None = None, source: str = "spec", by: str | None = None
    ):
        if store is not None and not all(hasattr(store, a) for a in ("add", "query")):
            raise BadInput(f"store must be a solvi_lab.knowledge.KnowledgeStore or None, got {type(store).__name__}.")
        if scope is not None and not isinstance(scope, dict):
            raise BadInput(f"scope must be a JSON dict (e.g. {{'agenda': 'returns'}}) or None, got {scope!r}.")
        self.store = store
        self.scope = scope
        self.source = source
        self.by = by
        self._goals: dict[str, _Goal] = {}
        self._gates: dict[str, _Gate] = {}

    # -- declaring -----------------------------------------------------------------------------------------
    @writing_call
    def goal(self, name: str, done: Check, requires: Iterable[str] = ()) -> None:
        """Declare a goal; re-declaring it with other requires or other check code supersedes the old version.

        `requires` names goals declared before, which must be done before this one is open.
        """
        name = _name("goal", name)
        if not callable(done):
            raise BadInput(f"goal {name!r}: done must be a callable done(state) -> bool, got {type(done).__name__}.")
        requires = _names(f"goal {name!r}: requires", requires)
        for r in requires:
            if r not in self._goals:
                raise BadInput(f"goal {name!r} requires {r!r}, which is not declared; declare {r!r} first.")
            if r == name or self._depends_on(r, name):
                raise BadInput(f"goal {name!r} requiring {r!r} makes a cycle; a goal cannot wait for itself.")
        g = _Goal(name, done, requires, code_fingerprint(done))
        old = self._goals.get(name)
        if old is not None and (old.requires, old.fingerprint) == (g.requires, g.fingerprint):
            old.done = done  # the same goal: keep its item and its observed state
            return
        body = {"agenda": "goal", "name": name, "requires": requires, "check": g.fingerprint}
        g.item = self._write_rule(body, old.item if old else None)
        if old is None and g.item is not None:
            g.state, g.state_item = self._stored_state(name, g.item)
        self._goals[name] = g

    @writing_call
    def gate(self, name: str, check: Check, blocks: Iterable[str]) -> None:
        """Declare a gate: while `check(state)` is False it blocks the actions and goals matching `blocks`."""
        name = _name("gate", name)
        if not callable(check):
            raise BadInput(f"gate {name!r}: check must be a callable check(state) -> bool, got {type(check).__name__}.")
        blocks = _names(f"gate {name!r}: blocks", blocks)
        if not blocks:
            raise BadInput(f"gate {name!r} blocks nothing; give glob patterns of actions or goals, e.g. ['modify_*'].")
        g = _Gate(name, check, blocks, code_fingerprint(check))
        old = self._gates.get(name)
        if old is not None and (old.blocks, old.fingerprint) == (g.blocks, g.fingerprint):
            old.check = check
            return
        body = {"agenda": "gate", "name": name, "blocks": blocks, "check": g.fingerprint}
        g.item = self._write_rule(body, old.item if old else None)
        if old is not None:  # an override is a person's word about this gate: it outlives a new version
            g.override, g.last_override_item = old.override, old.last_override_item
        self._gates[name] = g

    def _depends_on(self, goal: str, target: str) -> bool:
        stack, seen = [goal], set()
        while stack:
            g = stack.pop()
            if g == target:
                return True
            if g not in seen:
                seen.add(g)
                stack.extend(self._goals[g].requires if g in self._goals else ())
        return False

    # -- the store -----------------------------------------------------------------------------------------
    def _write_rule(self, body: dict[str, Any], supersedes: str | None) -> str | None:
        """The rule item for this declaration: the stored one when unchanged, else a new (superseding) one."""
        if self.store is None:
            return None
        # query(scope=None) matches every scope: compare the scope exactly, a goal of another agenda is not ours
        for rec in self.store.query(kind="rule", scope=self.scope, status=("active", "hypothesis")):
            b = rec["body"]
            if (
                rec["scope"] == self.scope
                and isinstance(b, dict)
                and b.get("agenda") == body["agenda"]
                and b.get("name") == body["name"]
            ):
                if canonical(b) == canonical(body):
                    return rec["id"]  # declared again in a new session: the same item
                supersedes = supersedes or rec["id"]
        return self.store.add("rule", body, source=self.source, by=self.by, scope=self.scope, supersedes=supersedes)

    def _stored_state(self, name: str, item: str) -> tuple[bool | None, str | None]:
        for rec in self.store.query(kind="fact", s=["goal", name], r="done", scope=self.scope, status="active"):
            if rec["scope"] == self.scope and item in (rec.get("derived_from") or ()):
                return bool(rec["body"]["o"]), rec["id"]
        return None, None

    # -- running -------------------------------------------------------------------------------------------
    @writing_call
    def update(self, state: State) -> dict[str, bool]:
        """Run every goal's done check on the state; record each change. Returns {goal: done} of the changes."""
        changes: dict[str, bool] = {}
        for g in self._goals.values():
            now = _verdict(f"goal {g.name!r}'s done check", g.done(state))
            if now != g.state:
                if self.store is not None:
                    g.state_item = self.store.add(
                        "fact",
                        {"s": ["goal", g.name], "r": "done", "o": now},
                        source="outcome",
                        scope=self.scope,
                        derived_from=[g.item],
                    )
                g.state = now
                changes[g.name] = now
        return changes

    def done(self) -> list[str]:
        """The goals whose done check said True at the last update, in declaration order."""
        return [g.name for g in self._goals.values() if g.state]

    def _gate_closed(self, gate: _Gate, state: State) -> bool:
        return gate.override is None and not _verdict(f"gate {gate.name!r}'s check", gate.check(state))

    def blocked(self, state: State) -> dict[str, dict[str, list[str]]]:
        """Goals not done that cannot be pursued, with the reason: {goal: {"gates": [closed gates blocking it],
        "requires": [required goals not done]}} (call update first). Every goal not done is open or blocked."""
        closed = [gt for gt in self._gates.values() if self._gate_closed(gt, state)]
        out: dict[str, dict[str, list[str]]] = {}
        for g in self._goals.values():
            if not g.state:
                by = [gt.name for gt in closed if any(fnmatchcase(g.name, p) for p in gt.blocks)]
                waiting = [r for r in g.requires if not self._goals[r].state]
                if by or waiting:
                    out[g.name] = {"gates": by, "requires": waiting}
        return out

    def open(self, state: State) -> list[str]:
        """Goals not done, whose required goals are done and that no closed gate blocks (call update first)."""
        blocked = self.blocked(state)
        return [g.name for g in self._goals.values() if not g.state and g.name not in blocked]

    def given(self, state: State) -> dict[str, Any]:
        """What a decision acting on the agenda is given (plain JSON): done, open, blocked (with reasons), the gates
        closed on this state, and the store's journal position (None without a store).

        The agenda's outcome on a state — which goals are open, which gates fired — is a pure function of the state,
        the checks and the journaled done states and overrides; a decision that acts on it is given this fact, so
        its trace holds what the agenda said and the decision replays without the agenda (update() journals only
        changes of done, nothing more is needed).

        >>> ag = Agenda(None); ag.goal("a", done=lambda s: s.get("a", False)); ag.update({})
        {'a': False}
        >>> ag.given({})
        {'done': [], 'open': ['a'], 'blocked': {}, 'gates_closed': [], 'position': None}
        """
        return {
            "done": self.done(),
            "open": self.open(state),
            "blocked": self.blocked(state),
            "gates_closed": [gt.name for gt in self._gates.values() if self._gate_closed(gt, state)],
            "position": self.store.journal.position if self.store is not None else None,
        }

    def allows(self, state: State, action: str) -> tuple[bool, str]:
        """(False, why) when a gate blocks the action and its check is False on the state; else (True, why)."""
        if not isinstance(action, str):
            raise BadInput(f"an action is named by a string (gates match it by pattern), got {action!r}.")
        overridden = []
        for gt in self._gates.values():
            pattern = next((p for p in gt.blocks if fnmatchcase(action, p)), None)
            if pattern is None:
                continue
            if gt.override is not None:
                overridden.append(f"{gt.name!r} (overridden by {gt.override['by']}: {gt.override['why']})")
            elif not _verdict(f"gate {gt.name!r}'s check", gt.check(state)):
                return False, f"gate {gt.name!r} blocks {action!r} (pattern {pattern!r}) until its check holds"
        if overridden:
            return True, "allowed: gate " + ", ".join(overridden)
        return True, "allowed: no closed gate blocks it"

    # -- a person's word -----------------------------------------------------------------------------------
    def _gate(self, gate: str) -> _Gate:
        if gate not in self._gates:
            raise UnknownId(
                f"no gate {gate!r} in this agenda (gates: {sorted(self._gates) or 'none'}); declare it "
                "with gate(name, check, blocks) first."
            )
        return self._gates[gate]

    def _person_fact(self, gt: _Gate, on: bool, by: str, why: str) -> str | None:
        if self.store is None:
            return None
        # supersedes= the previous override fact: a person's newer word, not a dispute between two people
        iid = self.store.add(
            "fact",
            {"s": ["gate", gt.name], "r": "overridden", "o": on},
            source="person",
            by=by,
            scope=self.scope,
            evidence={"why": why},
            supersedes=gt.last_override_item,
        )
        gt.last_override_item = iid
        return iid

    @writing_call
    def override(self, gate: str, by: str, why: str) -> None:
        """A person lets actions past the gate, with a recorded reason, until `clear_override`."""
        gt = self._gate(gate)
        by, why = _name("override's by (who)", by), _name("override's why (the reason)", why)
        gt.override = {"by": by, "why": why, "item": self._person_fact(gt, True, by, why)}

    @writing_call
    def clear_override(self, gate: str, by: str, why: str) -> None:
        """End a person's override: the gate's check decides again."""
        gt = self._gate(gate)
        by, why = _name("clear_override's by (who)", by), _name("clear_override's why (the reason)", why)
        if gt.override is None:
            raise BadInput(f"gate {gate!r} is not overridden; there is nothing to clear.")
        self._person_fact(gt, False, by, why)
        gt.override = None

    def overrides(self) -> dict[str, dict[str, Any]]:
        """The gates a person overrides now: {gate: {"by", "why", "item"}}."""
        return {n: dict(g.override) for n, g in self._gates.items() if g.override is not None}

    # -- validating a gate ---------------------------------------------------------------------------------
    def dry_run(self, recorded_successes: Iterable[tuple[State, str]], max_blocked: int = 0) -> dict[str, Any]:
        """Replay recorded successful (state, action) pairs through every gate (as written, overrides ignored).

        Per gate: `covered` (successes whose action it matches), `would_block` (of those, how many its check
        refuses), `blocked` ([index, action] of each) and `ready` (would_block <= max_blocked).

        >>> ag = Agenda(None); ag.gate("g", check=lambda s: s["ok"], blocks=["pay*"])
        >>> ag.dry_run([({"ok": True}, "pay"), ({"ok": False}, "pay"), ({"ok": False}, "look")])
        {'g': {'covered': 2, 'would_block': 1, 'blocked': [[1, 'pay']], 'ready': False}}
        """
        if isinstance(max_blocked, bool) or not isinstance(max_blocked, int) or max_blocked < 0:
            raise BadInput(
                f"max_blocked must be an int >= 0 (how many recorded successes a ready gate may "
                f"block), got {max_blocked!r}."
            )
        pairs = list(recorded_successes)
        for i, pair in enumerate(pairs):
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and isinstance(pair[1], str)):
                raise BadInput(f"recorded success {i} is {pair!r}; each must be a (state, action name) pair.")
        report: dict[str, Any] = {}
        for gt in self._gates.values():
            covered, blocked = 0, []
            for i, (state, action) in enumerate(pairs):
                if any(fnmatchcase(action, p) for p in gt.blocks):
                    covered += 1
                    if not _verdict(f"gate {gt.name!r}'s check", gt.check(state)):
                        blocked.append([i, action])
            report[gt.name] = {
                "covered": covered,
                "would_block": len(blocked),
                "blocked": blocked,
                "ready": len(blocked) <= max_blocked,
            }
        return report

    # -- reading -------------------------------------------------------------------------------------------
    def goals(self) -> dict[str, dict[str, Any]]:
        """Every goal: requires, check fingerprint, store item and the last observed done value (None: unchecked)."""
        return {
            n: {"requires": list(g.requires), "check": g.fingerprint, "item": g.item, "done": g.state}
            for n, g in self._goals.items()
        }

    def gates(self) -> dict[str, dict[str, Any]]:
        """Every gate: blocks, check fingerprint, store item and its override (or None)."""
        return {
            n: {
                "blocks": list(g.blocks),
                "check": g.fingerprint,
                "item": g.item,
                "override": dict(g.override) if g.override else None,
            }
            for n, g in self._gates.items()
        }
