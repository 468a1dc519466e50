"""The decision log: what a decision was given, what it answered, who answered, under which guarantee.

A decision is any callable `decide(given: dict) -> answer`. Its record lives in the same hash chain as the
knowledge records (kind "decision"), so a snapshot given to a decision and the decision itself replay together.

>>> from solvi_lab.journal import Journal
>>> log = DecisionLog(Journal())
>>> d = log.ask("tier", lambda g: g["hint"].upper(), {"hint": "vip"}, answered_by="rule")
>>> d.id, d.answer
('d0', 'VIP')
>>> log.rerun(d.id, lambda g: g["hint"].upper()).same   # run the decision again on its recorded input
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .errors import BadInput, UnknownId
from .journal import Journal, Record, canonical, register_kind
from .owner import JournalOwner, _check_upto
from .validation import ANY, Opt, public_calls, safe_repr, shape, writing_call

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
class Rerun:
    """What `DecisionLog.rerun` found: the recorded answer beside the answer the decision gives now on the same
    recorded input."""

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


@public_calls
class DecisionLog(JournalOwner):
    """Records decisions into a journal and runs them again (`rerun`).

    A journal owner (solvi_lab.owner): `KINDS = ("decision",)`, one fold `_apply(record)` for the live path and
    for rebuilds, `DecisionLog(journal=None)` (None: a new in-memory journal), `DecisionLog.open(path)`,
    `DecisionLog.from_journal(journal, upto=None)` and `state()`.

    Several writers may share one journal's decisions (the store's `ks.decisions`, a Chooser's log, a second
    `DecisionLog(journal)`): a log folds the decision records it has not seen yet before it reads or writes, so
    every log on a journal knows every decision in it. That fold is lazy — opening a log reads nothing — and goes
    through the same `_apply` as the log's own writes.

    >>> from solvi_lab.journal import Journal
    >>> j = Journal(); log = DecisionLog(j)
    >>> d = log.record("route", {"to": "b"}, "north", answered_by="rule")
    >>> DecisionLog.from_journal(j).state() == log.state()
    True
    >>> DecisionLog.from_journal(j, upto=0).state()
    {'decisions': []}
    """

    KINDS = (DECISION_KIND,)

    def __init__(self, journal: Journal | None = None):
        self._reset()
        self._attach(journal)

    def _reset(self) -> DecisionLog:
        self._decisions: dict[str, Decision] = {}
        self._scanned = 0  # journal positions below this are folded; read lazily, so opening a log is free
        return self

    # -- the journal-owner protocol (solvi_lab.owner) -------------------------------------------------------
    @classmethod
    def _empty(cls) -> DecisionLog:
        log = cls.__new__(cls)
        log.journal = None
        return log._reset()

    @classmethod
    def from_journal(cls, journal: Journal, upto: int | None = None) -> DecisionLog:
        """The log of the decisions in `journal` (before position `upto` only: a read-only view of the past).

        Lazy like opening: the records are folded when the log is first read.
        """
        upto = _check_upto(journal, upto)
        log = cls._empty()
        log.journal = journal
        log._upto = upto
        return log

    @classmethod
    def open(cls, path: Any, *, journal_options: dict[str, Any] | None = None) -> DecisionLog:
        """The log of the journal file at `path` (created when absent); close it (or use `with`) to release it."""
        return cls(Journal(path, **(journal_options or {})))

    def _apply(self, record: Record) -> None:
        """Fold one decision record: the live writes and the rebuild both go through here."""
        d = read_decision(record)
        self._decisions[d.id] = d
        self._scanned = max(self._scanned, record.position + 1)

    def _sync(self) -> None:
        """Fold the decision records written since the last read (by this log or another writer)."""
        end = self.journal.position if self._upto is None else self._upto
        if self._scanned < end:
            self._fold(self.journal.records(self._scanned, end, kind=DECISION_KIND))
            self._scanned = end

    def state(self) -> dict[str, Any]:
        """Every decision as plain data, in journal order: [id, name, given, answer, answered_by, guarantee]."""
        return {"decisions": [[d.id, d.name, d.given, d.answer, d.answered_by, d.guarantee] for d in self]}

    # -- writing ---------------------------------------------------------------------------------------------
    @writing_call
    def ask(
        self, name: str, decide: Callable[[Any], Any], given: Any, *, answered_by: str, guarantee: Any = None
    ) -> Decision:
        """Run `decide(given)`, record the given facts, the answer, who answered and the guarantee; return it."""
        if self._upto is not None:  # refuse before running decide: a view of the past records nothing
            raise BadInput(
                f"this DecisionLog was rebuilt up to journal position {self._upto} (a view of the past) and "
                "records nothing; rebuild it without upto= to go on recording."
            )
        if not isinstance(name, str) or not name:
            raise BadInput(f"a decision's name must be a non-empty string, got {name!r}.")
        if not callable(decide):
            raise BadInput(f"decide must be a callable taking the given facts, got {type(decide).__name__}.")
        if not isinstance(answered_by, str) or answered_by not in ANSWERERS:  # by type first: no foreign __eq__
            raise BadInput(f"answered_by={safe_repr(answered_by)} is not one of {ANSWERERS}; say who answered.")
        answer = decide(given)
        payload = {
            "op": "ask",
            "name": name,
            "given": given,
            "answer": answer,
            "answered_by": answered_by,
            "guarantee": guarantee,
        }
        self._sync()  # fold other writers' decisions first: the new record is the next position
        rec = self._write(DECISION_KIND, payload)
        return self._decisions[decision_id(rec.position)]

    @writing_call
    def record(self, name: str, given: Any, answer: Any, *, answered_by: str, guarantee: Any = None) -> Decision:
        """Record a decision made elsewhere (an answer already given)."""
        return self.ask(name, lambda _g: answer, given, answered_by=answered_by, guarantee=guarantee)

    # -- reading ---------------------------------------------------------------------------------------------
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
        if not isinstance(did, str):  # a decision id is a string; anything else (unhashable, hostile) is not in it
            return False
        self._sync()
        return did in self._decisions

    def __iter__(self) -> Iterator[Decision]:
        self._sync()
        return iter(sorted(self._decisions.values(), key=lambda d: d.position))

    def __len__(self) -> int:
        self._sync()
        return len(self._decisions)

    def rerun(self, did: str, decide: Callable[[Any], Any]) -> Rerun:
        """Run decision `did` again: `decide` on its recorded input, beside the recorded answer (nothing is written).

        >>> log = DecisionLog(); d = log.record("tier", {"n": 2}, 4, answered_by="rule")
        >>> log.rerun(d.id, lambda g: g["n"] * 2).same, log.rerun(d.id, lambda g: g["n"] + 3).new
        (True, 5)
        """
        if not callable(decide):
            raise BadInput(f"decide must be a callable taking the given facts, got {type(decide).__name__}.")
        d = self.get(did)
        return Rerun(did, d.answer, decide(d.given))


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
