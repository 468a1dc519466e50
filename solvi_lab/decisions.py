"""The decision log: what a decision was given, what it answered, who answered, under which guarantee.

A decision is any callable `decide(given: dict) -> answer`. Its record lives in the same hash chain as the
knowledge records (kind "decision"), so a snapshot given to a decision and the decision itself replay together.

>>> from solvi_lab.journal import Journal
>>> log = DecisionLog(Journal())
>>> d = log.ask("tier", lambda g: g["hint"].upper(), {"hint": "vip"}, answered_by="rule")
>>> d.id, d.answer
('d0', 'VIP')
>>> log.replay(d.id, lambda g: g["hint"].upper()).same
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .errors import BadInput, UnknownId
from .journal import Journal, Record, canonical, register_kind
from .owner import JournalOwner
from .validation import ANY, Opt, shape, writing_call

ANSWERERS = ("system1", "system2", "person", "rule")

DECISION_KIND = "decision"

# What DecisionLog and the knowledge store read from a decision record (Journal.append refuses anything else).
register_kind(
    DECISION_KIND,
    shape(
        "a decision record",
        {"op": Opt(str), "name": str, "given": ANY, "answer": ANY, "answered_by": str, "guarantee": Opt(ANY)},
    ),
)


@dataclass(frozen=True)
class Decision:
    """One recorded decision. `id` is "d<journal position>"."""

    id: str
    name: str
    given: Any
    answer: Any
    answered_by: str
    guarantee: Any
    position: int

    @property
    def alone_under_guarantee(self) -> bool:
        """True when System 2 answered alone under a stated guarantee (what the "verified" source requires)."""
        return self.answered_by == "system2" and self.guarantee is not None


@dataclass(frozen=True)
class Replay:
    """The recorded answer beside the answer the decision gives now on the same recorded input."""

    id: str
    old: Any
    new: Any

    @property
    def same(self) -> bool:
        return canonical(self.old) == canonical(self.new)


def decision_id(position: int) -> str:
    return f"d{position}"


def parse_decision_id(did: str) -> int:
    if not isinstance(did, str) or not did.startswith("d") or not did[1:].isdigit():
        raise BadInput(f"{did!r} is not a decision id; decision ids look like 'd12' (as returned by ask()).")
    return int(did[1:])


class DecisionLog(JournalOwner):
    """Records decisions into a journal and replays them.

    The log indexes the decisions already in the journal when it is opened, so a reloaded log knows them.
    """

    def __init__(self, journal: Journal | None = None):
        self.journal = journal if journal is not None else Journal()
        self._decisions: dict[str, Decision] = {}
        self._scanned = 0  # journal positions below this are indexed; read lazily, so opening a log is free

    def _sync(self) -> None:
        if self._scanned < self.journal.position:
            for r in self.journal.records(self._scanned, kind=DECISION_KIND):
                self._index(r.position, r.payload)
            self._scanned = self.journal.position

    def _index(self, position: int, p: dict[str, Any]) -> Decision:
        d = Decision(
            decision_id(position), p["name"], p["given"], p["answer"], p["answered_by"], p.get("guarantee"), position
        )
        self._decisions[d.id] = d
        return d

    @writing_call
    def ask(
        self, name: str, decide: Callable[[Any], Any], given: Any, *, answered_by: str, guarantee: Any = None
    ) -> Decision:
        """Run `decide(given)`, record the given facts, the answer, who answered and the guarantee; return it."""
        if not isinstance(name, str) or not name:
            raise BadInput(f"a decision's name must be a non-empty string, got {name!r}.")
        if not callable(decide):
            raise BadInput(f"decide must be a callable taking the given facts, got {type(decide).__name__}.")
        if answered_by not in ANSWERERS:
            raise BadInput(f"answered_by={answered_by!r} is not one of {ANSWERERS}; say who answered.")
        answer = decide(given)
        payload = {
            "op": "ask",
            "name": name,
            "given": given,
            "answer": answer,
            "answered_by": answered_by,
            "guarantee": guarantee,
        }
        self._sync()
        rec = self.journal.append(DECISION_KIND, payload)
        self._scanned = rec.position + 1
        return self._index(rec.position, rec.payload)

    @writing_call
    def record(self, name: str, given: Any, answer: Any, *, answered_by: str, guarantee: Any = None) -> Decision:
        """Record a decision made elsewhere (an answer already given)."""
        return self.ask(name, lambda _g: answer, given, answered_by=answered_by, guarantee=guarantee)

    def get(self, did: str) -> Decision:
        parse_decision_id(did)
        self._sync()
        try:
            return self._decisions[did]
        except KeyError:
            raise UnknownId(
                f"no decision {did!r} in this log ({len(self._decisions)} decisions); use an id that ask() returned."
            ) from None

    def __contains__(self, did: object) -> bool:
        self._sync()
        return did in self._decisions

    def __iter__(self) -> Iterator[Decision]:
        self._sync()
        return iter(sorted(self._decisions.values(), key=lambda d: d.position))

    def __len__(self) -> int:
        self._sync()
        return len(self._decisions)

    def replay(self, did: str, decide: Callable[[Any], Any]) -> Replay:
        """Re-run a decision on its recorded input and return the old and the new answer."""
        d = self.get(did)
        return Replay(did, d.answer, decide(d.given))


def read_decision(record: Record) -> Decision:
    """The decision a journal record of kind "decision" holds — for readers of a shared journal (the knowledge
    store's source check) that need a decision without keeping a DecisionLog. Raises BadInput for another kind.

    >>> log = DecisionLog()
    >>> d = log.record("tier", {"hint": "vip"}, "VIP", answered_by="system2", guarantee=0.95)
    >>> read_decision(log.journal[0]) == d
    True
    """
    if not isinstance(record, Record) or record.kind != DECISION_KIND:
        raise BadInput(f"read_decision reads a journal record of kind {DECISION_KIND!r}, got {record!r}.")
    p = record.payload
    return Decision(
        decision_id(record.position),
        p["name"],
        p["given"],
        p["answer"],
        p["answered_by"],
        p.get("guarantee"),
        record.position,
    )
