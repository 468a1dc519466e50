"""Failure memory: do not repeat what just failed.

A failure blocks its plan for `window` steps (or episodes), then expires. At most `max_blocked` plans are blocked at
once (the oldest failure is evicted), and given the plans on offer at least `min_open` of them stay open (the
oldest-failed offered plans are released) — a memory fed by its own failures cannot tighten without bound.

The blocked plans are given to a decision as the fact "recent_failures", and the hard check that `install` adds
reads only that fact, so the decision replays. With a journal, every call is a "failure" record and
`FailureMemory.from_journal(journal)` rebuilds the same memory.

>>> fm = FailureMemory(window=2)
>>> fm.failed("open the door", why="it stayed shut")
>>> sorted(p["plan"] for p in fm.given()["recent_failures"].values())
['open the door']
>>> fm.step(); fm.step()
>>> fm.given()["recent_failures"]
{}

Plans are any JSON value, keyed by their canonical JSON text: the plan 1 and the plan "1" are different plans,
while the tuple (1, 2) and the list [1, 2] are the same JSON and so the same plan.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .checks import HardCheck, install
from .errors import BadInput
from .journal import Journal, json_value, register_kind
from .owner import JournalOwner, missing_owner, refuse_second_owner
from .validation import ANY, Opt, need_int, op_shapes, public_calls, safe_repr, writing_call

__all__ = ["FailureMemory", "FAILURE_KIND", "FACT"]

FAILURE_KIND = "failure"  # the journal record kind of this module
FACT = "recent_failures"  # the name of the given fact
UNITS = ("steps", "episodes")
_INT = Opt(lambda v: isinstance(v, int) and not isinstance(v, bool))
register_kind(
    FAILURE_KIND,
    op_shapes(
        FAILURE_KIND,
        {
            "open": {"name": str, "window": _INT, "unit": Opt(str), "max_blocked": _INT, "min_open": _INT},
            "failed": {"name": str, "plan": ANY, "why": str},
            "succeeded": {"name": str, "plan": ANY},
            "tick": {"name": str},
        },
    ),
)


def plan_key(plan: Any) -> tuple[str, Any]:
    """The canonical JSON text of a plan and the plan as JSON gives it back (tuples become lists)."""
    return json_value("a plan", plan)


@public_calls
class FailureMemory(JournalOwner):
    """Plans that failed recently, each blocked for `window` units of time.

    >>> fm = FailureMemory(window=20, max_blocked=8, min_open=1)
    >>> fm.failed("a", why="no"); fm.failed("b", why="no")
    >>> list(fm.given(options=["a", "b"])["recent_failures"])   # one of the two offered must stay open
    ['"b"']
    """

    KINDS = (FAILURE_KIND,)

    def __init__(
        self,
        window: int = 20,
        unit: str = "steps",
        max_blocked: int = 8,
        min_open: int = 1,
        journal: Journal | None = None,
        *,
        name: str = "failures",
    ):
        self._configure(window, unit, max_blocked, min_open, name)
        journal = self._attach(journal)
        refuse_second_owner(journal, FAILURE_KIND, "name", name, "failure memory", "FailureMemory")
        self._write(
            FAILURE_KIND,
            {
                "name": name,
                "op": "open",
                "window": self.window,
                "unit": unit,
                "max_blocked": self.max_blocked,
                "min_open": self.min_open,
            },
        )

    def _configure(self, window: int, unit: str, max_blocked: int, min_open: int, name: str) -> None:
        self.window = need_int("window", window, min=1)
        if not isinstance(unit, str) or unit not in UNITS:  # by type first: a foreign __eq__ is never called
            raise BadInput(f"unit must be 'steps' or 'episodes', got {safe_repr(unit)}.")
        self.unit = unit
        self.max_blocked = need_int("max_blocked", max_blocked, min=1)
        self.min_open = need_int("min_open", min_open, min=0)
        if not isinstance(name, str) or not name:
            raise BadInput(f"name must be a non-empty string (it tells this memory's records apart), got {name!r}.")
        self.name = name
        self.t = 0  # units elapsed
        # canonical plan text -> {"plan", "why", "at"}; insertion order is failure order (refreshed on a new failure)
        self._blocked: dict[str, dict[str, Any]] = {}
        self._opened = False

    # -- the journal-owner protocol (solvi_lab.owner) -------------------------------------------------------
    @classmethod
    def _empty(cls, window: int = 20, unit: str = "steps", max_blocked: int = 8, min_open: int = 1, *, name="failures"):
        mem = cls.__new__(cls)
        mem._configure(window, unit, max_blocked, min_open, name)  # the journal's "open" record sets the rest
        return mem

    @classmethod
    def from_journal(cls, journal: Journal, upto: int | None = None, **options: Any) -> FailureMemory:
        """Rebuild the memory named `name` (default "failures") from its records; it keeps writing to the journal.

        >>> j = Journal(); fm = FailureMemory(window=3, journal=j); fm.failed("x", why="no"); fm.step()
        >>> FailureMemory.from_journal(j) == fm
        True
        """
        mem = super().from_journal(journal, upto, **options)
        if not mem._opened and upto is None:
            raise missing_owner(journal, FAILURE_KIND, "name", mem.name, "failure memory")
        return mem

    def _owns(self, record: Any) -> bool:
        return record.kind == FAILURE_KIND and record.payload.get("name") == self.name

    def _apply(self, record: Any) -> None:
        """Fold one record into the state: the live calls go through here too, so live == rebuilt."""
        p = record.payload
        op = p["op"]
        if op == "open":
            self._configure(p["window"], p["unit"], p["max_blocked"], p["min_open"], self.name)
            self._opened = True
            return
        if not self._opened:
            raise BadInput(
                f"journal record {record.position} belongs to failure memory {self.name!r} but comes before "
                "its 'open' record; the journal was not written by FailureMemory."
            )
        if op == "failed":
            key, plan = plan_key(p["plan"])
            self._blocked.pop(key, None)  # a new failure restarts the window and moves it to the newest
            self._blocked[key] = {"plan": plan, "why": p["why"], "at": self.t}
            while len(self._blocked) > self.max_blocked:
                del self._blocked[next(iter(self._blocked))]  # evict the oldest failure
        elif op == "succeeded":
            self._blocked.pop(plan_key(p["plan"])[0], None)
        elif op == "tick":
            self.t += 1
            for key in [k for k, b in self._blocked.items() if self.t - b["at"] >= self.window]:
                del self._blocked[key]
        else:
            raise BadInput(f"unknown failure-memory record op {op!r}; the journal was not written by FailureMemory.")

    def _record(self, payload: dict[str, Any]) -> None:
        self._write(FAILURE_KIND, {"name": self.name, **payload})

    # -- what happened -------------------------------------------------------------------------------------
    @writing_call
    def failed(self, plan: Any, why: str = "") -> None:
        """The plan failed: block it for `window` units (a repeated failure restarts its window)."""
        if not isinstance(why, str):
            raise BadInput(f"why must be a string saying what went wrong, got {type(why).__name__}.")
        self._record({"op": "failed", "plan": plan_key(plan)[1], "why": why})

    @writing_call
    def succeeded(self, plan: Any) -> None:
        """The plan worked: evidence reopens it at once."""
        self._record({"op": "succeeded", "plan": plan_key(plan)[1]})

    @writing_call
    def step(self) -> None:
        """One step passed (unit="steps"); failures older than `window` steps expire."""
        if self.unit != "steps":
            raise BadInput("this memory counts episodes (unit='episodes'); call end_episode(), not step().")
        self._record({"op": "tick"})

    @writing_call
    def end_episode(self) -> None:
        """One episode ended (unit="episodes"); failures older than `window` episodes expire."""
        if self.unit != "episodes":
            raise BadInput("this memory counts steps (unit='steps'); call step(), not end_episode().")
        self._record({"op": "tick"})

    # -- what a decision is given --------------------------------------------------------------------------
    def blocked(self) -> list[Any]:
        """The blocked plans, oldest failure first."""
        return [b["plan"] for b in self._blocked.values()]

    def given(self, options: Iterable[Any] | None = None) -> dict[str, dict[str, Any]]:
        """The fact a decision is given: `{"recent_failures": {plan text: {"plan", "why", "age"}}}`.

        Without `options`, every blocked plan. With the plans on offer, only the offered ones, and at least
        `min_open` offered plans stay open: the oldest-failed offered plans are released from the fact (the
        memory itself is unchanged). A dict of options offers its keys.
        """
        if options is None:
            keys = list(self._blocked)
        else:
            if isinstance(options, (str, bytes)) or not isinstance(options, Iterable):
                raise BadInput(
                    f"options must be a list (or other collection) of plans, got {options!r}; wrap a "
                    "single plan in a list."
                )
            offered = list(dict.fromkeys(plan_key(o)[0] for o in options))  # distinct, in offer order
            keys = [k for k in offered if k in self._blocked]
            need = min(self.min_open, len(offered)) - (len(offered) - len(keys))
            if need > 0:
                order = list(self._blocked)  # failure order, oldest first
                keys = sorted(keys, key=order.index)[need:]
        return {
            FACT: {
                k: {
                    "plan": self._blocked[k]["plan"],
                    "why": self._blocked[k]["why"],
                    "age": self.t - self._blocked[k]["at"],
                }
                for k in keys
            }
        }

    def install(self, checks_or_catalog: Any, plan: str | None = "plan", then: Any = None) -> HardCheck:
        """Install a hard check that refuses an answer whose plan is in the given fact "recent_failures".

        `plan` names the answer's field that holds the plan (None: the answer is the plan); `then` is the fallback
        (default `{plan: "ask_person"}`). The check reads only the given facts, so the decision replays.

        >>> fm = FailureMemory(); checks = []; fm.failed("dig", why="too hard")
        >>> from solvi_lab.checks import apply_checks
        >>> apply_checks(fm.given(options=["dig", "walk"]), {"plan": "dig"}, checks + [fm.install(checks)])
        ({'plan': 'ask_person'}, 'recent_failures')
        """
        if plan is not None and not isinstance(plan, str):
            raise BadInput(
                f"plan must name the answer's field that holds the plan (a string) or be None when the "
                f"answer is the plan itself, got {plan!r}."
            )
        fallback = then if then is not None else ({plan: "ask_person"} if plan is not None else "ask_person")
        return install(checks_or_catalog, HardCheck(FACT, _not_recently_failed(plan), then=fallback))

    # -- comparison ----------------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Everything that decides the memory's behaviour, as plain JSON."""
        return {
            "name": self.name,
            "window": self.window,
            "unit": self.unit,
            "max_blocked": self.max_blocked,
            "min_open": self.min_open,
            "t": self.t,
            "blocked": [[k, b["plan"], b["why"], b["at"]] for k, b in self._blocked.items()],
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FailureMemory) and self.state() == other.state()

    def __repr__(self) -> str:
        return f"FailureMemory(window={self.window}, unit={self.unit!r}, blocked={len(self._blocked)}, t={self.t})"


def _not_recently_failed(field: str | None):
    """The check function: a pure function of the given fact "recent_failures" and the answer."""

    def check(given: dict[str, Any], answer: Any) -> bool:
        if not isinstance(given, dict) or FACT not in given:
            raise BadInput(
                f"the decision was not given the fact {FACT!r}; pass **failure_memory.given(options=...) "
                "in its given facts, or do not install the check for this decision."
            )
        if field is None:
            chosen = answer
        elif isinstance(answer, dict) and field in answer:
            chosen = answer[field]
        else:
            raise BadInput(
                f"the answer {answer!r} has no field {field!r} holding the plan; install the check with "
                "plan=<the answer's plan field>, or plan=None when the answer is the plan."
            )
        return plan_key(chosen)[0] not in given[FACT]

    return check
