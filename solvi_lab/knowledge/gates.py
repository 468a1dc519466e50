"""Write gates: what decides whether an item enters the store, and whether a behaviour-changing item is promoted.

SourceGate (the source check) always runs first and ConsistencyGate always runs; gates a user passes are added
after them, never instead of them. A gate's verdict on a rule, a skill or an action is journaled with the item;
an item a gate holds stays a hypothesis until `promote`. This module may not write the journal or change the store:
a gate only answers (a Verdict); the store journals the answer and the fold applies it.

>>> class NoRulesOnFridays(WriteGate):
...     name = "no_fridays"
...     def admit(self, store, item, shadow):
...         return Verdict(False, "it is Friday")
>>> from solvi_lab.knowledge import KnowledgeStore
>>> ks = KnowledgeStore(gates=[NoRulesOnFridays()])
>>> rid = ks.add("rule", {"name": "greet"}, source="spec")
>>> ks.item(rid)["status"]
'hypothesis'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..journal import canonical
from .items import KINDS, RANK, SOURCES


@dataclass(frozen=True)
class Verdict:
    """A gate's answer: admit or hold, why, and what it measured (JSON)."""

    admit: bool
    reason: str = ""
    measured: dict[str, Any] = field(default_factory=dict)

    def as_dict(self, gate: str) -> dict[str, Any]:
        return {"gate": gate, "admit": bool(self.admit), "reason": self.reason, "measured": self.measured}


@dataclass(frozen=True)
class Candidate:
    """What a gate is shown: the item as it would be written (not yet in the store)."""

    kind: str
    body: Any
    source: str
    by: Any
    scope: Any
    derived_from: tuple[str, ...]
    supersedes: str | None
    of: str | None


class WriteGate:
    """Subclass and implement admit(store, item, shadow) -> Verdict. `shadow` builds, on demand, a copy of the
    store in which the candidate is already promoted (for gates that measure behaviour)."""

    name = "gate"

    def admit(self, store: Any, item: Candidate, shadow: Any) -> Verdict:  # pragma: no cover - interface
        raise NotImplementedError


class SourceGate(WriteGate):
    """Only knowledge from outside the system enters: a kind and a source of the specification; a "verified"
    item names a decision System 2 answered alone under a guarantee, whose answer matches the fact."""

    name = "source"

    def admit(self, store: Any, item: Candidate, shadow: Any = None) -> Verdict:
        return source_check(item.kind, item.body, item.source, item.of, store._fold._decision_info)


class ConsistencyGate(WriteGate):
    """Refuses an item whose premises are missing, retracted or refuted, or that would refute its own premise."""

    name = "consistency"

    def admit(self, store: Any, item: Candidate, shadow: Any = None) -> Verdict:
        return store._premise_verdict(item.kind, item.body, item.scope, item.derived_from, store.journal.position)


def source_check(kind: Any, body: Any, source: Any, of: Any, decisions: dict[str, tuple]) -> Verdict:
    """The source rules as a Verdict (the gate's answer)."""
    why = source_refusal(kind, body, source, of, decisions)
    return Verdict(True, "source ok") if why is None else Verdict(False, why)


def source_refusal(kind: Any, body: Any, source: Any, of: Any, decisions: dict[str, tuple]) -> str | None:
    """Why the source rules refuse an item, or None when they admit it (the fold's hot path: no Verdict)."""
    if kind not in KINDS:
        return f"kind {kind!r} is not one of {KINDS}"
    if source not in SOURCES:
        return f"source {source!r} is not one of {tuple(RANK)}: the system's own answers never become knowledge"
    if kind == "fact":
        if not isinstance(body, dict) or "s" not in body or "r" not in body or "o" not in body:
            return "a fact's body is {'s': subject, 'r': relation, 'o': value}"
        if not isinstance(body["r"], str):
            return f"a fact's relation 'r' is a string, got {body['r']!r}"
    if source == "verified":
        if of is None:
            return "a 'verified' item needs of=<a recorded decision id>"
        info = decisions.get(of)
        if info is None:
            return f"of={of!r} names no recorded decision"
        answered_by, guarantee, answer = info
        if answered_by != "system2" or guarantee is None:
            return (
                f"decision {of} was not answered by System 2 alone under a guarantee "
                f"(answered_by={answered_by!r}, guarantee={guarantee!r})"
            )
        if kind == "fact":
            matches = canonical(answer) == canonical(body["o"]) or (
                isinstance(answer, dict)
                and {"s", "r", "o"} <= set(answer)
                and canonical([answer["s"], answer["r"], answer["o"]]) == canonical([body["s"], body["r"], body["o"]])
            )
            if not matches:
                return f"decision {of} answered {answer!r}, which does not match the fact"
    return None
