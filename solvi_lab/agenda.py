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
from .journal import Journal, Record
from .knowledge.items import BEHAVIOUR_KINDS, item_id
from .knowledge.store import RECORD_KIND, KnowledgeStore
from .owner import JournalOwner, _check_upto
from .validation import public_calls, writing_call

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
    done: Check | None  # None: rebuilt from the journal without its check
    requires: list[str]
    fingerprint: str
    item: str | None = None  # the store's rule item id
    state: bool | None = None  # the last observed done value (None: never checked)
    state_item: str | None = None


@dataclass
class _Gate:
    name: str
    check: Check | None
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


def _refused_when_written(p: dict[str, Any]) -> bool:
    """Whether the store refused this "add" when it was written (its add() raised WriteRefused): the source and
    consistency checks put their refusal in the payload ("refused"); a gate's held verdict refuses a fact and
    leaves a rule a hypothesis (knowledge/store.py, _apply_add). Read from the record alone, so a rebuild up to any
    position passes over exactly the writes the live agenda saw refused."""
    if "refused" in p:
        return True
    return p.get("kind") not in BEHAVIOUR_KINDS and any(not v.get("admit") for v in p.get("verdicts", ()))


def _catalogue(checks: Any) -> dict[str, Check]:
    """The checks an agenda may attach to its goals and gates, by code fingerprint (a mapping gives its values)."""
    if isinstance(checks, dict):
        checks = checks.values()
    if isinstance(checks, (str, bytes)) or not isinstance(checks, Iterable):
        raise BadInput(f"checks must be a list of the goals' and gates' check callables, got {checks!r}.")
    return {code_fingerprint(fn): fn for fn in checks}


class _ClassOrInstance:
    """A method that is one function on the class and another on an instance (see Agenda.open)."""

    def __init__(self, on_class: Any, on_instance: Callable[..., Any]):
        # Held by name and looked up on the class at each access: public_calls wraps the class's methods after
        # this is made (the net and the journal lock), and `open` must reach the wrapped ones.
        self.on_class, self.on_instance = on_class.__func__.__name__, on_instance.__name__
        self.__doc__ = on_instance.__doc__

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return getattr(owner, self.on_class)
        return getattr(obj, self.on_instance)


@public_calls
class Agenda(JournalOwner):
    """Goals with their done checks and order, and gates over actions and goals.

    `store` is a KnowledgeStore (everything journaled there, as items of the store) or None; `journal=` builds a
    store on that journal instead; with neither the agenda lives in memory and journals nothing (item ids are
    None). `scope` is the scope of the items written; `source`/`by` say where the goals and gates came from
    (default: a written specification). `checks`: callables the agenda may attach, by code fingerprint, to the
    goals and gates it finds in the journal (the journal holds the fingerprint of a check, never its code).

    The agenda is a journal owner (solvi_lab/owner.py): its state is the fold, through one `_apply`, of its own
    "knowledge" records — the "rule" items of its goals and gates and the "fact" items of goal states and gate
    overrides in its scope. Built on a journal that already holds them, it continues that agenda (a new session
    declares its goals again: an unchanged declaration writes nothing and keeps the observed done state).
    Records other writers append to a shared journal are folded before each of its writes.

    >>> from solvi_lab.journal import Journal
    >>> j = Journal(); ag = Agenda(journal=j); ag.goal("a", done=lambda s: s.get("a", False)); ag.update({"a": 1})
    {'a': True}
    >>> again = Agenda.from_journal(j)
    >>> again.done(), again.goals()["a"]["item"] == ag.goals()["a"]["item"]
    (['a'], True)
    """

    KINDS = (RECORD_KIND,)

    def __init__(
        self,
        store: Any = None,
        *,
        scope: dict[str, Any] | None = None,
        source: str = "spec",
        by: str | None = None,
        checks: Any = (),
        journal: Journal | None = None,
    ):
        self._configure(scope, source, by, checks)
        if store is not None:
            if not all(hasattr(store, a) for a in ("add", "query", "journal")):
                raise BadInput(
                    f"store must be a solvi_lab.knowledge.KnowledgeStore or None, got {type(store).__name__}."
                )
            if store.journal is None:
                raise BadInput("this store is a rebuilt, read-only view (no journal); pass the live store.")
            if journal is not None and journal is not store.journal:
                raise BadInput("journal= and store= name different journals; pass one of them (the store's journal).")
            self.journal = store.journal
        elif journal is not None:
            store = KnowledgeStore.from_journal(self._attach(journal))
        else:
            self.journal = None  # in memory: nothing journaled (the specification's Agenda(None))
        self.store = store
        self._catch_up()  # a journal that already holds this agenda: continue it

    def _configure(self, scope: Any, source: str, by: Any, checks: Any) -> None:
        if scope is not None and not isinstance(scope, dict):
            raise BadInput(f"scope must be a JSON dict (e.g. {{'agenda': 'returns'}}) or None, got {scope!r}.")
        self.scope = scope
        self.source = source
        self.by = by
        self._checks = _catalogue(checks)
        self._goals: dict[str, _Goal] = {}
        self._gates: dict[str, _Gate] = {}
        self.store: Any = None
        self._seen = 0  # journal records looked at by the fold

    # -- the journal-owner protocol (solvi_lab.owner) -------------------------------------------------------
    @classmethod
    def _empty(
        cls, *, scope: dict[str, Any] | None = None, source: str = "spec", by: str | None = None, checks: Any = ()
    ) -> Agenda:
        ag = cls.__new__(cls)
        ag._configure(scope, source, by, checks)
        return ag

    @classmethod
    def from_journal(cls, journal: Journal, upto: int | None = None, *, store: Any = None, **options: Any) -> Agenda:
        """Rebuild the agenda of `scope` from its records (`options`: scope, source, by, checks — the callables
        to attach by fingerprint). Without `upto` it writes on (through `store`, a store on this journal, or a
        store built on it); with `upto` it is the agenda as it was before that position (read-only, no store)."""
        upto = _check_upto(journal, upto)
        if upto is None:
            if store is not None and getattr(store, "journal", None) is not journal:
                raise BadInput("store= must be a store on this very journal (store.journal is journal), or None.")
            return cls(store, journal=None if store is not None else journal, **options)
        ag = cls._empty(**options)
        ag.journal, ag._upto = journal, upto
        ag._fold(journal.records(0, upto))
        ag._seen = upto
        return ag

    @classmethod
    def open_file(cls, path: Any, *, journal_options: dict[str, Any] | None = None, **options: Any) -> Agenda:
        """`Agenda.open(path, ...)`: open the journal file at `path` (created when absent) with a store on it, and continue the agenda it
        holds (or start one). Close it (or use `with`) to release the file."""
        journal = Journal(path, **(journal_options or {}))
        try:
            return cls(journal=journal, **options)
        except BaseException:
            journal.close()
            raise

    def _owns(self, record: Any) -> bool:
        p = record.payload
        if record.kind != RECORD_KIND or p.get("op") != "add" or p.get("scope") != self.scope:
            return False
        body = p.get("body")
        if not isinstance(body, dict):
            return False
        if p.get("kind") == "rule":
            mine = body.get("agenda") in ("goal", "gate")
        elif p.get("kind") == "fact":
            s = body.get("s")
            mine = (
                isinstance(s, list)
                and len(s) == 2
                and (s[0], body.get("r")) in (("goal", "done"), ("gate", "overridden"))
            )
        else:
            mine = False
        return mine and not _refused_when_written(p)

    def _apply(self, record: Any) -> None:
        """Fold one of the agenda's records: declarations, goal states and overrides (live and on load alike)."""
        p = record.payload
        iid = None if record.position is None else item_id(record.position)
        body = p["body"]
        if p["kind"] == "rule":
            name, fp = body["name"], body["check"]
            if body["agenda"] == "goal":
                self._goals[name] = _Goal(name, self._checks.get(fp), list(body["requires"]), fp, item=iid)
            else:
                old = self._gates.get(name)
                gt = self._gates[name] = _Gate(name, self._checks.get(fp), list(body["blocks"]), fp, item=iid)
                if old is not None:  # an override is a person's word about this gate: it outlives a new version
                    gt.override, gt.last_override_item = old.override, old.last_override_item
            return
        what, name = body["s"]
        if what == "goal":
            g = self._goals.get(name)
            if g is not None and p.get("derived_from") == [g.item]:  # a state of this version of the goal
                g.state, g.state_item = bool(body["o"]), iid
            return
        gt = self._gates.get(name)
        if gt is None:
            return
        why = p["evidence"].get("why") if isinstance(p.get("evidence"), dict) else None
        gt.override = {"by": p.get("by"), "why": why, "item": iid} if body["o"] else None
        gt.last_override_item = iid

    def _catch_up(self) -> None:
        """Fold the agenda's records appended to the journal since it last looked (by itself or other writers)."""
        if self.journal is not None and self._upto is None and self.journal.position > self._seen:
            start, self._seen = self._seen, self.journal.position
            self._fold(self.journal.records(start, self._seen))

    def _write_item(self, kind: str, body: dict[str, Any], *, source: Any, **fields: Any) -> None:
        """The live path: write the item through the store (which decides whether to admit it), then fold the
        record written. Without a store the same payload is folded without being journaled."""
        if self._upto is not None:
            raise BadInput(
                f"this agenda was rebuilt up to journal position {self._upto} (a view of the past) and writes "
                "nothing; rebuild it without upto= to go on writing."
            )
        if self.store is None:
            payload = {"op": "add", "kind": kind, "body": body, "source": source, "scope": self.scope, **fields}
            self._apply(Record(None, RECORD_KIND, payload, "", ""))  # type: ignore[arg-type]
            return
        self._catch_up()
        try:
            self.store.add(kind, body, source=source, scope=self.scope, **fields)
        finally:  # a refused write is journaled too; the fold passes over it
            self._catch_up()

    def state(self) -> dict[str, Any]:
        """Everything that decides the agenda's behaviour, as plain JSON (the checks by their fingerprints)."""
        return {
            "scope": self.scope,
            "source": self.source,
            "by": self.by,
            "goals": [[n, g.requires, g.fingerprint, g.item, g.state, g.state_item] for n, g in self._goals.items()],
            "gates": [
                [n, g.blocks, g.fingerprint, g.item, g.override, g.last_override_item] for n, g in self._gates.items()
            ],
        }

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
        self._catch_up()
        for r in requires:
            if r not in self._goals:
                raise BadInput(f"goal {name!r} requires {r!r}, which is not declared; declare {r!r} first.")
            if r == name or self._depends_on(r, name):
                raise BadInput(f"goal {name!r} requiring {r!r} makes a cycle; a goal cannot wait for itself.")
        fp = code_fingerprint(done)
        self._checks[fp] = done
        old = self._goals.get(name)
        if old is not None and (old.requires, old.fingerprint) == (requires, fp):
            old.done = done  # the same goal: keep its item and its observed state
            return
        body = {"agenda": "goal", "name": name, "requires": requires, "check": fp}
        self._write_item("rule", body, source=self.source, by=self.by, supersedes=old.item if old else None)

    @writing_call
    def gate(self, name: str, check: Check, blocks: Iterable[str]) -> None:
        """Declare a gate: while `check(state)` is False it blocks the actions and goals matching `blocks`."""
        name = _name("gate", name)
        if not callable(check):
            raise BadInput(f"gate {name!r}: check must be a callable check(state) -> bool, got {type(check).__name__}.")
        blocks = _names(f"gate {name!r}: blocks", blocks)
        if not blocks:
            raise BadInput(f"gate {name!r} blocks nothing; give glob patterns of actions or goals, e.g. ['modify_*'].")
        self._catch_up()
        fp = code_fingerprint(check)
        self._checks[fp] = check
        old = self._gates.get(name)
        if old is not None and (old.blocks, old.fingerprint) == (blocks, fp):
            old.check = check
            return
        body = {"agenda": "gate", "name": name, "blocks": blocks, "check": fp}
        self._write_item("rule", body, source=self.source, by=self.by, supersedes=old.item if old else None)

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

    def _done_check(self, g: _Goal) -> Check:
        if g.done is None:
            raise BadInput(
                f"goal {g.name!r} was rebuilt from the journal without its check (fingerprint {g.fingerprint[:12]}); "
                "pass the callable in checks=[...] or declare the goal again with goal(name, done, requires)."
            )
        return g.done

    def _gate_check(self, gt: _Gate) -> Check:
        if gt.check is None:
            raise BadInput(
                f"gate {gt.name!r} was rebuilt from the journal without its check (fingerprint "
                f"{gt.fingerprint[:12]}); pass the callable in checks=[...] or declare the gate again with gate(...)."
            )
        return gt.check

    # -- running -------------------------------------------------------------------------------------------
    @writing_call
    def update(self, state: State) -> dict[str, bool]:
        """Run every goal's done check on the state; record each change. Returns {goal: done} of the changes."""
        self._catch_up()
        # every check runs before anything is written: a check that fails leaves the journal as it was
        now = {
            g.name: _verdict(f"goal {g.name!r}'s done check", self._done_check(g)(state)) for g in self._goals.values()
        }
        changes: dict[str, bool] = {}
        for name, done in now.items():
            g = self._goals[name]
            if done != g.state:
                self._write_item(
                    "fact", {"s": ["goal", name], "r": "done", "o": done}, source="outcome", derived_from=[g.item]
                )
                changes[name] = done
        return changes

    def done(self) -> list[str]:
        """The goals whose done check said True at the last update, in declaration order."""
        return [g.name for g in self._goals.values() if g.state]

    def _gate_closed(self, gate: _Gate, state: State) -> bool:
        return gate.override is None and not _verdict(f"gate {gate.name!r}'s check", self._gate_check(gate)(state))

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

    def open_goals(self, state: State) -> list[str]:
        """`ag.open(state)`: goals not done, whose required goals are done and that no closed gate blocks (call update first)."""
        blocked = self.blocked(state)
        return [g.name for g in self._goals.values() if not g.state and g.name not in blocked]

    # The specification names ag.open(state) (the open goals) and the journal-owner protocol Agenda.open(path):
    # called on the class, open is open_file; on an agenda, open_goals.
    open = _ClassOrInstance(open_file, open_goals)  # type: ignore[assignment]

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
            "open": self.open_goals(state),
            "blocked": self.blocked(state),
            "gates_closed": [gt.name for gt in self._gates.values() if self._gate_closed(gt, state)],
            "position": self.store.journal.position if self.store is not None else self._upto,
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
            elif not _verdict(f"gate {gt.name!r}'s check", self._gate_check(gt)(state)):
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

    def _person_fact(self, gt: _Gate, on: bool, by: str, why: str) -> None:
        # supersedes= the previous override fact: a person's newer word, not a dispute between two people
        self._write_item(
            "fact",
            {"s": ["gate", gt.name], "r": "overridden", "o": on},
            source="person",
            by=by,
            evidence={"why": why},
            supersedes=gt.last_override_item,
        )

    @writing_call
    def override(self, gate: str, by: str, why: str) -> None:
        """A person lets actions past the gate, with a recorded reason, until `clear_override`."""
        self._catch_up()
        gt = self._gate(gate)
        by, why = _name("override's by (who)", by), _name("override's why (the reason)", why)
        self._person_fact(gt, True, by, why)

    @writing_call
    def clear_override(self, gate: str, by: str, why: str) -> None:
        """End a person's override: the gate's check decides again."""
        self._catch_up()
        gt = self._gate(gate)
        by, why = _name("clear_override's by (who)", by), _name("clear_override's why (the reason)", why)
        if gt.override is None:
            raise BadInput(f"gate {gate!r} is not overridden; there is nothing to clear.")
        self._person_fact(gt, False, by, why)

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
                    if not _verdict(f"gate {gt.name!r}'s check", self._gate_check(gt)(state)):
                        blocked.append([i, action])
            report[gt.name] = {
                "covered": covered,
                "would_block": len(blocked),
                "blocked": blocked,
                "ready": len(blocked) <= max_blocked,
            }
        return report

    # -- reading -------------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        """One line: its scope, goals (how many done) and gates (how many overridden)."""
        done = sum(1 for g in self._goals.values() if g.state)
        overridden = sum(1 for g in self._gates.values() if g.override)
        return (
            f"<Agenda scope={self.scope!r} · {len(self._goals)} goals ({done} done) · "
            f"{len(self._gates)} gates ({overridden} overridden)>"
        )

    def _repr_html_(self) -> str:
        """A small card for Jupyter: each goal (requires, done at the last update) and gate (blocks, override)."""
        from .display import card

        state = {True: "done", False: "not done", None: "unchecked"}
        rows: list[tuple[str, Any]] = [
            (
                f"goal {n}",
                state.get(g.state, str(g.state)) + (f" · requires {', '.join(g.requires)}" if g.requires else ""),
            )
            for n, g in self._goals.items()
        ]
        rows += [
            (
                f"gate {n}",
                f"blocks {', '.join(g.blocks)}"
                + (f" · overridden by {g.override.get('by')}: {g.override.get('why')}" if g.override else ""),
            )
            for n, g in self._gates.items()
        ]
        return card(f"Agenda {self.scope!r}: {len(self._goals)} goals, {len(self._gates)} gates", rows)

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
