"""Protection by default, justified risk as an option: risk policies and a bounded gate learned from failures.

Every `Prediction` carries a verdict ("accept" | "refuse" | "unknown") and an estimate behind it (risk, support,
hard). A *policy* turns a prediction about an action into a `RiskDecision`: "take", "avoid" or "ask_s2" (hand the
decision to System 2, the slow proposer), always with the rationale in words.

- `Protect` keeps the verdict: refuse → avoid, unknown → ask_s2, accept → take. The default.
- `RiskBudget` takes a refused action when its expected gain is at least `min_gain_ratio` × its risk and the risk
  fits what is left of the episode's budget; it sends a refusal resting on fewer than `min_support` cases to
  System 2, and never takes a hard prediction (instant harm, a policy rule) — in any mode.
- `LearnedGate` learns a bound on a level (a depth, a size, a price) from failures. It is bounded three ways: it
  reads only the last `expiry` episodes, never refuses at or below `floor(context)`, and a level is reopened by
  evidence (enough recorded arrivals with a low failure rate there).

>>> from solvi_lab.prediction import Prediction
>>> refused = Prediction("refuse", risk=0.2, support=5, reason="died at depth 4 once in 5 arrivals")
>>> Protect().decide("descend", refused).choice
'avoid'
>>> policy = RiskBudget(max_risk_per_episode=1.0, min_gain_ratio=1.0, min_support=3)
>>> d = policy.decide("descend", refused, gain=0.3)
>>> d.choice, round(d.budget_left, 2)
('take', 0.8)
>>> gate = LearnedGate("depth", expiry=10)
>>> gate.arrived(1, 3); gate.failed(1, 4); gate.end_episode()
>>> gate.predict(1, 4).verdict, gate.predict(1, 3).verdict
('refuse', 'accept')
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import asdict, dataclass
from typing import Any

from .codehash import code_fingerprint
from .errors import BadInput
from .journal import Journal, register_kind
from .owner import JournalOwner, missing_owner, refuse_second_owner
from .prediction import Prediction
from .validation import ANY, Opt, need_int, op_shapes, public_calls, shape, writing_call

__all__ = [
    "RiskDecision",
    "Protect",
    "RiskBudget",
    "LearnedGate",
    "CHOICES",
    "DECISION_KIND",
    "POLICY_KIND",
    "GATE_KIND",
]

CHOICES = ("take", "avoid", "ask_s2")
DECISION_KIND = "risk_decision"  # journal record kind of a policy's decisions
POLICY_KIND = "risk_policy"  # journal record kind of a policy's opening and its episodes
GATE_KIND = "learned_gate"  # journal record kind of a gate's observations
_LEVEL = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
_NUMBER = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)  # noqa: E731
register_kind(
    DECISION_KIND,
    shape(
        "a risk decision record",
        {"policy": str, "episode": Opt(int), "choice": str, "verdict": str, "risk": _NUMBER, "action": str},
    ),
)
register_kind(
    POLICY_KIND,
    op_shapes(
        POLICY_KIND,
        {
            "open": {
                "policy": str,
                "rule": str,
                "max_risk_per_episode": Opt(_NUMBER),
                "min_gain_ratio": Opt(_NUMBER),
                "min_support": Opt(_LEVEL),
            },
            "new_episode": {"policy": str},
        },
    ),
)
register_kind(
    GATE_KIND,
    op_shapes(
        GATE_KIND,
        {
            "failed": {"gate": str, "context": ANY, "level": _LEVEL, "failed": bool},
            "arrived": {"gate": str, "context": ANY, "level": _LEVEL, "failed": bool},
            "end_episode": {"gate": str},
        },
    ),
)


@dataclass(frozen=True)
class RiskDecision:
    """What a policy decided about one action, and why.

    choice: "take" | "avoid" | "ask_s2".
    rationale: a sentence a person can read (always set).
    risk, support, hard, verdict: copied from the prediction the decision rests on.
    gain: the expected gain the caller stated.
    budget_left: what is left of the episode's risk budget after this decision (None for a policy without one).
    action: the action decided on.

    >>> d = Protect().decide("descend", Prediction("accept", support=2, reason="arrived twice"))
    >>> d.choice, d.rationale
    ('take', 'the prediction accepts descend (risk 0.00, support 2): arrived twice')
    """

    choice: str
    rationale: str
    risk: float
    support: int
    gain: float
    budget_left: float | None
    action: str
    verdict: str = ""
    hard: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The decision as plain JSON types (what is journaled)."""
        return asdict(self)


# -- validation ----------------------------------------------------------------------------------------------------


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _check_decide_args(action: Any, prediction: Any, gain: Any) -> float:
    if not isinstance(action, str) or not action:
        raise BadInput(f"action must be a non-empty string naming the action, got {action!r}; e.g. 'descend'.")
    if not isinstance(prediction, Prediction):
        raise BadInput(
            f"prediction must be a solvi_lab.prediction.Prediction, got {type(prediction).__name__}; "
            "build one with Prediction(verdict, risk=..., support=...) or take it from a model's predict()."
        )
    if not _is_number(gain) or not math.isfinite(gain):
        raise BadInput(f"gain must be a finite number (the expected gain of the action), got {gain!r}; e.g. gain=0.3.")
    return float(gain)


def _check_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name:
        raise BadInput(f"{what} needs a non-empty name (it tags its journal records), got {name!r}.")
    return name


def _journal_of(store: Any, journal: Any, what: str) -> Any:
    """`journal`, or `store.journal` for store= (a shorthand: the owner writes into the store's chain)."""
    if store is not None and journal is not None:
        raise BadInput(f"{what}: pass store= or journal=, not both: it journals into store.journal or journal.")
    if store is not None:
        if not hasattr(store, "journal"):
            raise BadInput(
                f"store= must have a .journal (a KnowledgeStore), got {type(store).__name__}; "
                "or pass journal=Journal()."
            )
        return store.journal
    return journal


class _Policy(JournalOwner):
    """What both policies share: the journal, the episode counter, the opening record and the decision records.

    Records (one chain with whatever else writes to the journal):

    - "risk_policy" {"policy": name, "op": "open", "rule": "protect" | "risk_budget", <configuration>}: written by
      the constructor, so `from_journal` rebuilds the policy with its configuration and no options but the name;
    - "risk_policy" {"policy": name, "op": "new_episode"}: the episode counter moves (RiskBudget refills);
    - "risk_decision" {"policy": name, "episode": n, <the RiskDecision's fields>}: one per decision. A RiskBudget
      decision that takes a refused action charges its risk to the episode's budget when it is folded.
    """

    KINDS = (POLICY_KIND, DECISION_KIND)
    RULE = "policy"  # what the "open" record calls the subclass

    def _start(self, journal: Journal | None, name: str, config: dict[str, Any]) -> None:
        journal = self._attach(journal)
        refuse_second_owner(journal, POLICY_KIND, "policy", name, type(self).__name__, type(self).__name__)
        self._write(POLICY_KIND, {"policy": name, "op": "open", "rule": self.RULE, **config})

    def _reset(self, name: str) -> None:
        self.name = _check_name(name, type(self).__name__)
        self.episode = 0
        self._opened = False

    @classmethod
    def from_journal(cls, journal: Journal, upto: int | None = None, **options: Any) -> Any:
        """Rebuild the policy `name` (default: the class's) from its records; it keeps writing to the journal.

        The configuration comes from the policy's "open" record, so `name=` is the only option needed.

        >>> from solvi_lab.journal import Journal
        >>> j = Journal(); rb = RiskBudget(0.5, journal=j)
        >>> rb.decide("jump", Prediction("refuse", risk=0.2, support=5), gain=1.0).choice
        'take'
        >>> again = RiskBudget.from_journal(j)
        >>> again.budget_left, again.state() == rb.state()
        (0.3, True)
        """
        policy = super().from_journal(journal, upto, **options)
        if not policy._opened and upto is None:
            raise missing_owner(journal, POLICY_KIND, "policy", policy.name, cls.__name__, "policies found")
        return policy

    def _owns(self, record: Any) -> bool:
        return record.kind in self.KINDS and record.payload.get("policy") == self.name

    def _apply(self, record: Any) -> None:
        """Fold one of this policy's records: the live calls go through here too, so live == rebuilt."""
        p = record.payload
        if record.kind == POLICY_KIND and p["op"] == "open":
            if p.get("rule") != self.RULE:
                raise BadInput(
                    f"journal record {record.position} opens policy {self.name!r} as {p.get('rule')!r}, not as "
                    f"{self.RULE!r}; rebuild it with the class that wrote it."
                )
            self._configure(p)
            self._opened = True
            return
        if not self._opened:
            raise BadInput(
                f"journal record {record.position} belongs to policy {self.name!r} but comes before its 'open' "
                "record; the journal was not written by this version of solvi_lab.risk."
            )
        if record.kind == POLICY_KIND:  # "new_episode" (the only other op the registered shape lets through)
            self.episode += 1
            self._new_episode()
        else:
            self._decided(p)

    def _configure(self, p: dict[str, Any]) -> None:
        """Take the configuration of the "open" record."""

    def _new_episode(self) -> None:
        """What else a new episode resets."""

    def _decided(self, p: dict[str, Any]) -> None:
        """What a decision record changes (nothing for Protect)."""

    def _config(self) -> dict[str, Any]:
        return {}

    def state(self) -> dict[str, Any]:
        """Everything that decides the policy's behaviour, as plain JSON."""
        return {"name": self.name, "rule": self.RULE, **self._config(), "episode": self.episode}

    @writing_call
    def new_episode(self) -> None:
        """Start a new episode (RiskBudget also refills its budget)."""
        self._write(POLICY_KIND, {"policy": self.name, "op": "new_episode"})

    def _take_accepted(self, action: str, p: Prediction, gain: float, left: float | None) -> RiskDecision:
        """Both policies take what the prediction accepts."""
        return self._decision(
            "take", f"the prediction accepts {action} ({_estimate(p)}): {p.reason}".rstrip(": "), action, p, gain, left
        )

    def _decision(self, choice: str, rationale: str, action: str, p: Prediction, gain: float, left: float | None):
        d = RiskDecision(choice, rationale, float(p.risk), int(p.support), gain, left, action, p.verdict, bool(p.hard))
        # One chain for the decision and what it rested on: the record replays without the live objects.
        self._write(DECISION_KIND, {"policy": self.name, "episode": self.episode, **d.as_dict()})
        return d


@public_calls
class Protect(_Policy):
    """The default policy: keep the verdict. refuse → "avoid", unknown → "ask_s2", accept → "take".

    >>> p = Protect()
    >>> [p.decide("go", Prediction(v)).choice for v in ("accept", "refuse", "unknown")]
    ['take', 'avoid', 'ask_s2']
    """

    RULE = "protect"

    def __init__(self, journal: Journal | None = None, *, name: str = "protect") -> None:
        self._reset(name)
        self._start(journal, name, {})

    @classmethod
    def _empty(cls, *, name: str = "protect") -> Protect:
        policy = cls.__new__(cls)
        policy._reset(name)
        return policy

    @writing_call
    def decide(self, action: str, prediction: Prediction, gain: float = 0.0) -> RiskDecision:
        """Decide on `action` from `prediction`; `gain` is recorded but never overrides a refusal."""
        gain = _check_decide_args(action, prediction, gain)
        p = prediction
        if p.verdict == "accept":
            return self._take_accepted(action, p, gain, None)
        if p.verdict == "refuse":
            hard = "a hard refusal" if p.hard else "a refusal"
            return self._decision(
                "avoid",
                f"Protect keeps {hard} of {action} ({_estimate(p)}): {p.reason}".rstrip(": "),
                action,
                p,
                gain,
                None,
            )
        return self._decision(
            "ask_s2", f"nothing recorded decides {action} ({_estimate(p)}); System 2 decides", action, p, gain, None
        )


def _estimate(p: Prediction) -> str:
    return f"risk {p.risk:.2f}, support {p.support}"


def _budget_config(max_risk_per_episode: Any, min_gain_ratio: Any, min_support: Any) -> dict[str, Any]:
    """RiskBudget's configuration, checked, as its "open" record holds it."""
    if not _is_number(max_risk_per_episode) or not math.isfinite(max_risk_per_episode) or max_risk_per_episode < 0:
        raise BadInput(
            f"max_risk_per_episode must be a finite number ≥ 0 (the total risk one episode may take), got "
            f"{max_risk_per_episode!r}; e.g. 1.0, or 0 to take no refused action at all."
        )
    if not _is_number(min_gain_ratio) or not math.isfinite(min_gain_ratio) or min_gain_ratio < 0:
        raise BadInput(
            f"min_gain_ratio must be a finite number ≥ 0 (gain needed per unit of risk), got {min_gain_ratio!r}; "
            "e.g. 1.0, or 0 to take whenever the gain is not negative. To never take a refused action use "
            "Protect() instead."
        )
    need_int("min_support", min_support, min=0, hint="recorded cases a refusal must rest on to be traded; e.g. 3")
    return {
        "max_risk_per_episode": float(max_risk_per_episode),
        "min_gain_ratio": float(min_gain_ratio),
        "min_support": min_support,
    }


@public_calls
class RiskBudget(_Policy):
    """Take a refused action when its gain justifies its risk and the episode's budget allows it.

    For a refused prediction, in this order (each decision re-checks all of them; an action taken earlier in the
    episode gets no free pass):

    1. hard (instant harm, a policy rule) → "avoid", whatever the gain;
    2. support < min_support → "ask_s2" (too few cases to trade on: System 2 decides);
    3. gain < min_gain_ratio × risk → "avoid" (the specification's rule and no other: `min_gain_ratio=0` takes
       whenever the gain is not negative, and a zero gain is enough for a zero risk);
    4. risk > what is left of the budget → "avoid";
    5. otherwise "take", and the risk is charged to the budget.

    accept → "take" (no charge), unknown → "ask_s2". `new_episode()` refills the budget.

    >>> rb = RiskBudget(max_risk_per_episode=0.5, min_gain_ratio=1.0, min_support=3)
    >>> risky = Prediction("refuse", risk=0.3, support=4, reason="fell twice")
    >>> [rb.decide("jump", risky, gain=0.4).choice for _ in range(2)]   # the second no longer fits the budget
    ['take', 'avoid']
    >>> rb.decide("jump", Prediction("refuse", risk=0.01, support=9, hard=True), gain=100.0).choice
    'avoid'
    """

    RULE = "risk_budget"

    def __init__(
        self,
        max_risk_per_episode: float = 1.0,
        min_gain_ratio: float = 1.0,
        min_support: int = 3,
        *,
        journal: Journal | None = None,
        name: str = "risk_budget",
    ) -> None:
        config = _budget_config(max_risk_per_episode, min_gain_ratio, min_support)
        self._reset(name)
        self._start(journal, name, config)  # the "open" record sets the configuration (see _configure)

    @classmethod
    def _empty(
        cls,
        max_risk_per_episode: float = 1.0,
        min_gain_ratio: float = 1.0,
        min_support: int = 3,
        *,
        name: str = "risk_budget",
    ) -> RiskBudget:
        policy = cls.__new__(cls)
        policy._reset(name)
        policy._configure(_budget_config(max_risk_per_episode, min_gain_ratio, min_support))
        return policy

    def _reset(self, name: str) -> None:
        super()._reset(name)
        self.spent = 0.0
        self.charged: dict[str, float] = {}  # action → risk charged this episode (for the rationale only)

    def _configure(self, p: dict[str, Any]) -> None:
        self.max_risk_per_episode = float(p["max_risk_per_episode"])
        self.min_gain_ratio = float(p["min_gain_ratio"])
        self.min_support = p["min_support"]

    def _config(self) -> dict[str, Any]:
        return {
            "max_risk_per_episode": self.max_risk_per_episode,
            "min_gain_ratio": self.min_gain_ratio,
            "min_support": self.min_support,
            "spent": self.spent,
            "charged": [[a, r] for a, r in self.charged.items()],
        }

    def _new_episode(self) -> None:
        self.spent = 0.0
        self.charged = {}

    def _decided(self, p: dict[str, Any]) -> None:
        # Only a refused action that was taken is charged (an accepted one is free; a hard refusal is never taken).
        if p["choice"] == "take" and p["verdict"] == "refuse":
            self.spent += p["risk"]
            self.charged[p["action"]] = self.charged.get(p["action"], 0.0) + p["risk"]

    @property
    def budget_left(self) -> float:
        """The risk this episode can still take."""
        return max(0.0, self.max_risk_per_episode - self.spent)

    @writing_call
    def new_episode(self) -> None:
        """Start a new episode: the budget is full again and nothing is charged."""
        super().new_episode()

    @writing_call
    def decide(self, action: str, prediction: Prediction, gain: float = 0.0) -> RiskDecision:
        """Decide on `action` from `prediction` given its expected `gain` (same units as risk)."""
        gain = _check_decide_args(action, prediction, gain)
        p = prediction
        left = self.budget_left
        if p.verdict == "accept":
            return self._take_accepted(action, p, gain, left)
        if p.verdict == "unknown":
            return self._decision(
                "ask_s2", f"nothing recorded decides {action} ({_estimate(p)}); System 2 decides", action, p, gain, left
            )
        # A refusal. The hard check comes first so that no gain, budget or support can ever buy a hard refusal.
        if p.hard:
            return self._decision(
                "avoid",
                f"hard refusal of {action} ({_estimate(p)}): never taken, whatever the "
                f"gain ({gain:g}): {p.reason}".rstrip(": "),
                action,
                p,
                gain,
                left,
            )
        if p.support < self.min_support:
            return self._decision(
                "ask_s2",
                f"the refusal of {action} rests on {p.support} case(s), fewer than "
                f"min_support={self.min_support}; System 2 decides",
                action,
                p,
                gain,
                left,
            )
        needed = self.min_gain_ratio * p.risk
        if gain < needed:
            return self._decision(
                "avoid",
                f"gain {gain:g} does not justify risk {p.risk:.2f} of {action} (needs "
                f"≥ {self.min_gain_ratio:g} × risk = {needed:.3g})",
                action,
                p,
                gain,
                left,
            )
        if p.risk > left:
            again = f" ({action} was already charged {self.charged[action]:.2f})" if action in self.charged else ""
            return self._decision(
                "avoid",
                f"risk {p.risk:.2f} of {action} does not fit the {left:.2f} left of this episode's budget{again}",
                action,
                p,
                gain,
                left,
            )
        # The charge itself is folded from the decision record (_decided); what is left after it, computed here
        # exactly as the fold will, goes into the record.
        after = max(0.0, self.max_risk_per_episode - (self.spent + float(p.risk)))
        return self._decision(
            "take",
            f"refused ({_estimate(p)}) but gain {gain:g} ≥ {self.min_gain_ratio:g} × risk "
            f"and the risk fits the budget: {p.risk:.2f} charged, {after:.2f} left",
            action,
            p,
            gain,
            after,
        )


# -- the learned gate ----------------------------------------------------------------------------------------------


def _freeze(context: Any) -> Hashable:
    """Contexts come back from a JSON journal as lists; a tuple is the hashable form of the same context."""
    if isinstance(context, list):
        return tuple(_freeze(c) for c in context)
    return context


def _thaw(context: Hashable) -> Any:
    """A context as plain JSON data (tuples as lists), for state()."""
    if isinstance(context, tuple):
        return [_thaw(c) for c in context]
    return context


def _check_context(context: Any) -> Hashable:
    context = _freeze(context)
    try:
        hash(context)
    except Exception:  # unhashable, or a __hash__ that raises: described by its type, never a bare error
        raise BadInput(
            f"context must be hashable (a str, number or tuple), got {type(context).__name__}; "
            "e.g. the hero's level, or a (map, mode) tuple."
        ) from None
    return context


def _check_level(level: Any) -> int:
    return need_int("level", level, hint="a depth, a size class; e.g. level=4")


@public_calls
class LearnedGate(JournalOwner):
    """A bound on a level learned from failures, per context, bounded by expiry, a floor and evidence.

    failed(context, level): a failure at `level` (counts as an arrival there that failed).
    arrived(context, level, failed=False): an arrival at `level`, and whether it failed there.
    end_episode(): close the episode; only the episode in progress and the last `expiry` ended episodes are read
        (expiry=None: nothing ever expires).
    predict(context, level) -> Prediction:
        - "accept" at or below `floor(context)` (never refused there), and wherever no unexplained failure lies at
          or above the bound;
        - "refuse" at `level` ≥ the bound, where the bound is the shallowest level with a failure in the window
          that evidence has not cleared. A level is cleared (reopened) when it has at least `reopen_support`
          arrivals in the window and at most `reopen_rate` of them failed; a cleared level is not refused;
        - never "unknown": a gate with no failure in its window (a fresh gate, or one whose failures have all
          expired) refuses nothing, so it accepts with support 0 — expiry reopens it, and Protect takes the level
          instead of sending every decision to System 2.
        The estimate: risk = failures / arrivals at the level (for a refusal, pooled from the bound to the level),
        support = those arrivals.

    A journal owner (solvi_lab.owner): every failed/arrived/end_episode is a "learned_gate" record naming the gate
    in `journal=` (None: a new in-memory journal; `store=` is a shorthand for `journal=store.journal`), folded by
    the one `_apply` used live and on rebuild. `LearnedGate.from_journal(journal, upto=None, name=..., **options)`
    and `LearnedGate.open(path, name=..., **options)` rebuild an equal gate. The journal records observations,
    not configuration: expiry, floor (a function, which no record can hold) and the reopen_* keywords are options,
    passed again to `from_journal`/`open` — the same records under another configuration give that
    configuration's gate. `state()` includes the configuration (the floor as its code fingerprint).
    Cost: O(1) per observation; predict is O(levels recorded in the context).

    >>> g = LearnedGate("depth", expiry=2, floor=lambda hero: hero + 1)
    >>> g.failed(context=1, level=2); g.end_episode()
    >>> g.predict(1, 2).verdict, g.predict(1, 3).verdict      # the floor 2 holds; 3 is past the bound
    ('accept', 'refuse')
    >>> g.end_episode(); g.end_episode()                       # two more episodes: the failure expired
    >>> g.predict(1, 3).verdict, g.predict(1, 3).support       # reopened by expiry: nothing is refused
    ('accept', 0)
    """

    KINDS = (GATE_KIND,)

    def __init__(
        self,
        name: str,
        expiry: int | None = 10,
        floor: Callable[[Any], int] | None = None,
        *,
        reopen_support: int = 5,
        reopen_rate: float = 0.1,
        store: Any = None,
        journal: Journal | None = None,
    ) -> None:
        self._configure(name, expiry, floor, reopen_support, reopen_rate)
        journal = self._attach(_journal_of(store, journal, "LearnedGate"))
        refuse_second_owner(journal, GATE_KIND, "gate", name, "LearnedGate", "LearnedGate")

    def _configure(self, name: Any, expiry: Any, floor: Any, reopen_support: Any, reopen_rate: Any) -> None:
        self.name = _check_name(name, "a LearnedGate")
        need_int("expiry", expiry, min=1, none=True, hint="episodes a failure is remembered, or None (never expires)")
        if floor is not None and not callable(floor):
            raise BadInput(
                f"floor must be a function context → level or None, got {type(floor).__name__}; "
                "e.g. floor=lambda hero: hero + 1."
            )
        need_int("reopen_support", reopen_support, min=1, hint="arrivals needed to reopen a level; e.g. 5")
        if not _is_number(reopen_rate) or not 0.0 <= reopen_rate < 1.0:
            raise BadInput(
                f"reopen_rate must be a number in [0, 1) (the failure rate low enough to reopen a level), "
                f"got {reopen_rate!r}; e.g. 0.1."
            )
        self.expiry = expiry
        self.floor = floor
        self._floor_code = None if floor is None else code_fingerprint(floor)
        self.reopen_support = reopen_support
        self.reopen_rate = float(reopen_rate)
        self.episodes = 0  # ended episodes
        # The window's counts, kept incrementally: context → level → [arrivals, failures].
        self._counts: dict[Hashable, dict[int, list[int]]] = {}
        self._current: list[tuple[Hashable, int, bool]] = []
        self._ended: deque[list[tuple[Hashable, int, bool]]] = deque()

    # -- the journal-owner protocol (solvi_lab.owner) -----------------------------------------------------------
    @classmethod
    def _empty(
        cls,
        name: str,
        expiry: int | None = 10,
        floor: Callable[[Any], int] | None = None,
        *,
        reopen_support: int = 5,
        reopen_rate: float = 0.1,
        store: Any = None,
        journal: Any = None,
    ) -> LearnedGate:
        gate = cls.__new__(cls)
        gate._configure(name, expiry, floor, reopen_support, reopen_rate)
        return gate

    @classmethod
    def from_journal(cls, journal: Journal, upto: int | None = None, **options: Any) -> LearnedGate:
        """Rebuild the gate `name=` from its "learned_gate" records; it keeps writing to the journal.

        Pass the live gate's expiry, floor and reopen_* keywords: the journal records observations, not
        configuration. A name with no record gives a gate that has observed nothing.

        >>> j = Journal()
        >>> live = LearnedGate("depth", expiry=3, journal=j)
        >>> live.arrived(2, 1); live.failed(2, 3); live.end_episode()
        >>> again = LearnedGate.from_journal(j, name="depth", expiry=3)
        >>> again.predict(2, 3) == live.predict(2, 3) and again.state() == live.state()
        True
        """
        if "name" not in options:
            raise BadInput("LearnedGate.from_journal needs name= (the gate's name in its records), e.g. name='depth'.")
        return super().from_journal(journal, upto, **options)

    @classmethod
    def open(cls, path: Any, *, journal_options: dict[str, Any] | None = None, **options: Any) -> LearnedGate:
        """Open the journal file at `path` and continue the gate `name=` in it (or start it there)."""
        if "name" not in options:
            raise BadInput("LearnedGate.open needs name= (the gate's name in its records), e.g. name='depth'.")
        return super().open(path, journal_options=journal_options, **options)

    def _owns(self, record: Any) -> bool:
        return record.kind == GATE_KIND and record.payload.get("gate") == self.name

    def _apply(self, record: Any) -> None:
        """Fold one observation or episode end: the live calls go through here too, so live == rebuilt."""
        p = record.payload
        op = p["op"]
        if op in ("failed", "arrived"):
            context, level, failed = _freeze(p["context"]), p["level"], bool(p["failed"])
            self._current.append((context, level, failed))
            self._add(context, level, failed, +1)
        elif op == "end_episode":
            self._ended.append(self._current)
            self._current = []
            self.episodes += 1
            if self.expiry is not None and len(self._ended) > self.expiry:
                for context, level, failed in self._ended.popleft():
                    self._add(context, level, failed, -1)
        else:  # the registered shape lets no other op through; a hand-made journal could still try
            raise BadInput(
                f"journal record {record.position} of gate {self.name!r} has unknown op {op!r}; it was not "
                "written by LearnedGate. Check that the journal is the one the gate wrote to."
            )

    def state(self) -> dict[str, Any]:
        """Everything that decides the gate's predictions, as plain data (contexts as JSON gives them back)."""
        return {
            "name": self.name,
            "expiry": self.expiry,
            "floor": self._floor_code,
            "reopen_support": self.reopen_support,
            "reopen_rate": self.reopen_rate,
            "episodes": self.episodes,
            "current": [[_thaw(c), lv, f] for c, lv, f in self._current],
            "ended": [[[_thaw(c), lv, f] for c, lv, f in ep] for ep in self._ended],
            "counts": [[_thaw(c), [[lv, a, f] for lv, (a, f) in by.items()]] for c, by in self._counts.items()],
        }

    # -- observations ----------------------------------------------------------------------------------------------
    @writing_call
    def failed(self, context: Any, level: int) -> None:
        """Record a failure at `level` in `context` (an arrival there that failed)."""
        self._observe(_check_context(context), _check_level(level), True, op="failed")

    @writing_call
    def arrived(self, context: Any, level: int, failed: bool = False) -> None:
        """Record an arrival at `level` in `context`, and whether it failed there."""
        if not isinstance(failed, bool):
            raise BadInput(f"failed must be True or False, got {failed!r}.")
        self._observe(_check_context(context), _check_level(level), failed, op="arrived")

    def _observe(self, context: Hashable, level: int, failed: bool, op: str) -> None:
        self._write(GATE_KIND, {"gate": self.name, "op": op, "context": context, "level": level, "failed": failed})

    def _add(self, context: Hashable, level: int, failed: bool, sign: int) -> None:
        by_level = self._counts.setdefault(context, {})
        c = by_level.setdefault(level, [0, 0])
        c[0] += sign
        c[1] += sign * int(failed)
        if c[0] == 0:  # forget empty cells so "nothing recorded" stays exact after expiry
            del by_level[level]
            if not by_level:
                del self._counts[context]

    @writing_call
    def end_episode(self) -> None:
        """Close the episode in progress; the oldest ended episode beyond `expiry` stops being read."""
        self._write(GATE_KIND, {"gate": self.name, "op": "end_episode"})

    # -- reading ---------------------------------------------------------------------------------------------------
    def _floor(self, context: Hashable) -> int | None:
        if self.floor is None:
            return None
        f = self.floor(context)
        if isinstance(f, bool) or not isinstance(f, int):
            raise BadInput(
                f"gate {self.name!r}: floor({context!r}) returned {f!r}, not an int level; make floor "
                "return the level at or below which the gate never refuses."
            )
        return f

    def _cleared(self, arrivals: int, failures: int) -> bool:
        return arrivals >= self.reopen_support and failures <= self.reopen_rate * arrivals

    def bound(self, context: Any) -> int | None:
        """The shallowest level with a failure in the window that evidence has not cleared (None: no bound).

        The floor is applied by `predict`, not here, so the bound shows what the failures alone would refuse.
        """
        by_level = self._counts.get(_check_context(context), {})
        failing = [lv for lv, (a, f) in by_level.items() if f > 0 and not self._cleared(a, f)]
        return min(failing) if failing else None

    def counts(self, context: Any) -> dict[int, tuple[int, int]]:
        """level → (arrivals, failures) in the window for `context` (a copy)."""
        return {lv: (a, f) for lv, (a, f) in sorted(self._counts.get(_check_context(context), {}).items())}

    def predict(self, context: Any, level: int) -> Prediction:
        """The gate's prediction for reaching `level` in `context`: a verdict with risk and support."""
        context, level = _check_context(context), _check_level(level)
        by_level = self._counts.get(context, {})
        window = "all episodes" if self.expiry is None else f"the last {self.expiry} episodes"
        a, f = by_level.get(level, (0, 0))
        here = f / a if a else 0.0
        floor = self._floor(context)
        if floor is not None and level <= floor:
            return Prediction(
                "accept",
                risk=here,
                support=a,
                detail={"floor": floor},
                reason=f"level {level} is at or below the floor {floor} of context {context!r}: never refused there",
            )
        if not by_level:  # a fresh gate, or every failure expired: a gate refuses only on a failure in its window
            return Prediction(
                "accept",
                risk=0.0,
                support=0,
                detail={"bound": None, "floor": floor},
                reason=f"no failure recorded for context {context!r} in {window}: the gate refuses nothing",
            )
        b = self.bound(context)
        if b is not None and level >= b and not self._cleared(a, f):
            arrivals = sum(c[0] for lv, c in by_level.items() if b <= lv <= level)
            failures = sum(c[1] for lv, c in by_level.items() if b <= lv <= level)
            fb = by_level[b]
            return Prediction(
                "refuse",
                risk=failures / arrivals if arrivals else 1.0,
                support=arrivals,
                detail={"bound": b, "floor": floor},
                reason=f"{fb[1]} failure(s) in {fb[0]} arrival(s) at level {b} in {window} of context "
                f"{context!r}: levels {b} and deeper are refused",
            )
        if f or (b is not None and level >= b):  # accepted although failures are recorded: evidence cleared it
            why = (
                f"level {level} reopened by evidence: {f} failure(s) in {a} arrivals in {window} "
                f"(at most {self.reopen_rate:g} of at least {self.reopen_support})"
            )
        else:
            why = f"no failure left uncleared at level {level} or shallower in {window} of context {context!r}"
        return Prediction("accept", risk=here, support=a, detail={"bound": b, "floor": floor}, reason=why)
