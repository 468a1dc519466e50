"""The conservative action model: what an environment accepts, learned from what it did.

A :class:`Vocabulary` turns ``(state, action, args)`` into a *condition vector*: one value per named
predicate. A :class:`ConservativeActionModel` learns, per action, which values each condition took in
accepted calls (the *allowed* values) and which sets of conditions explain the refused calls (the minimal
*refusal signatures*). It predicts "accept" only when every condition holds an allowed value, "refuse" only when
the conditions holding a never-accepted value contain a signature, and "unknown" otherwise, so that a person or a
slower proposer decides what the model cannot.

>>> vocab = Vocabulary({"status": lambda s, a: s["orders"][a["order_id"]]["status"]})
>>> model = ConservativeActionModel(vocab)
>>> state = {"orders": {"#1": {"status": "pending"}, "#2": {"status": "delivered"}, "#3": {"status": "cancelled"}}}
>>> model.observe(state, "cancel", {"order_id": "#1"}, accepted=True, effect={"status": "cancelled"})
>>> model.observe(state, "cancel", {"order_id": "#2"}, accepted=False)
>>> model.predict(state, "cancel", {"order_id": "#3"}).explain()
"refuse (risk 0.67, support 1): status='cancelled' was never accepted (refusal signature {status}, 1 refused call)"
>>> model.predict(state, "cancel", {"order_id": "#9"}).verdict  # an order not looked up: never seen refused so
'unknown'

Exactness rules that the tests pin down:

- a predicate that cannot be read on a state yields :data:`UNREADABLE` (never an exception); it is a value
  like any other, so it is allowed only after an accepted call showed it;
- signatures are recomputed as allowed sets grow: a refused call's *violated* set is always taken against the
  allowed sets of now, not of the moment it was observed;
- the *unexplained region* of an action: as soon as one refused call of the action has no violated condition
  (its whole vector is allowed), the vocabulary cannot tell that call from accepted ones, so for every vector
  whose conditions are all allowed the model answers from exact-vector memory only: a vector seen only accepted
  → "accept", seen only refused → "refuse", seen both or never → "unknown". Vectors with a violated condition
  are still judged by the signatures. With ``memory="refuse"`` a vector seen only accepted there is "unknown" too
  (an environment with chance, or a condition the vocabulary does not read, can refuse the very vector it accepted).
  With ``memory="neither"`` every call of such an action is "unknown": the same chance or unread condition can
  accept a vector it refused, and can have refused the calls a signature rests on, whatever values they held.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from .codehash import digest_callable
from .errors import BadInput
from .journal import Journal, Record, register_kind
from .knowledge.store import KnowledgeStore
from .owner import JournalOwner
from .prediction import Prediction
from .validation import public_calls, shape, writing_call

__all__ = [
    "UNREADABLE",
    "Pair",
    "UNREADABLE_TOKEN",
    "OBSERVATION_KIND",
    "COMMIT_KIND",
    "ITEM_KIND",
    "Vocabulary",
    "ConservativeActionModel",
    "Prediction",
]

#: How UNREADABLE is written in JSON (journal records, action items). A predicate returning this very string
#: reads as UNREADABLE, so the encoding round-trips.
UNREADABLE_TOKEN = "<unreadable>"
#: Journal record kind of one observation.
OBSERVATION_KIND = "action_observation"
#: Journal record kind written by commit(): which item id holds each action's model (what its next commit supersedes).
COMMIT_KIND = "action_commit"
#: Store item kind of one action's model.
ITEM_KIND = "action"
register_kind(
    OBSERVATION_KIND,
    shape(
        "an action observation",
        {"action": str, "vector": dict, "accepted": bool, "effect": (dict, None), "vocab": str},
    ),
)
register_kind(COMMIT_KIND, shape("an action commit", {"vocab": str, "items": dict}))

# Errors that mean "this predicate cannot be read on this state" (a missing entity, a wrong type), as opposed
# to a bug in the predicate (NameError, RecursionError ...), which must surface.
_READ_ERRORS = (LookupError, TypeError, AttributeError, ValueError, ArithmeticError)


class _Unreadable:
    """The value of a predicate that cannot be read on a state. A singleton that survives copy and pickle."""

    _instance: _Unreadable | None = None

    def __new__(cls) -> _Unreadable:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNREADABLE"

    def __reduce__(self) -> str:
        return "UNREADABLE"  # pickle/deepcopy resolve the module global: identity is kept


UNREADABLE = _Unreadable()


# ---------------------------------------------------------------------------------------------------------------
# values: normalisation, JSON encoding, stable ordering
# ---------------------------------------------------------------------------------------------------------------


def _normalise(value: Any, name: str = "?") -> Any:
    """A predicate's value as a hashable, JSON-encodable value (lists → tuples, dicts → sorted pair tuples)."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, str):
        return UNREADABLE if value == UNREADABLE_TOKEN else value
    if isinstance(value, float):
        # NaN != NaN would break set membership, and JSON cannot carry NaN or infinities.
        return value if math.isfinite(value) else UNREADABLE
    if value is UNREADABLE:
        return value
    if isinstance(value, (list, tuple)):
        return tuple(_normalise(v, name) for v in value)
    if isinstance(value, Mapping):
        return tuple(sorted(((str(k), _normalise(v, name)) for k, v in value.items()), key=lambda kv: kv[0]))
    if isinstance(value, (set, frozenset)):
        return tuple(sorted((_normalise(v, name) for v in value), key=_sort_key))
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        return _normalise(item(), name)
    raise BadInput(
        f"predicate {name!r} returned a value of type {type(value).__name__}; a predicate must return "
        "str, int, float, bool or None, or a list/tuple/set/dict of them — convert the value in the predicate."
    )


def _encode(value: Any) -> Any:
    """A normalised value as plain JSON (UNREADABLE → '<unreadable>', tuples → lists)."""
    if value is UNREADABLE:
        return UNREADABLE_TOKEN
    if type(value) is tuple:  # normalised values are exact tuples (see _normalise)
        return [_encode(v) for v in value]
    return value


def _decode(value: Any) -> Any:
    """The inverse of _encode (lists → tuples, '<unreadable>' → UNREADABLE). JSON gives exact types, hence
    `type(...) is list` (the fold decodes every value of every observation: this is its hot path)."""
    if type(value) is list:
        return tuple([_decode(v) for v in value])
    return UNREADABLE if value == UNREADABLE_TOKEN else value


def _sort_key(value: Any) -> str:
    """A total order over mixed values (for deterministic output only)."""
    return json.dumps(_encode(value), sort_keys=True)


def _show(value: Any) -> str:
    return "unreadable" if value is UNREADABLE else repr(value)


# ---------------------------------------------------------------------------------------------------------------
# fingerprints of predicates
# ---------------------------------------------------------------------------------------------------------------


# the rule lives in solvi_lab/codehash.py (shared with the agenda)


# ---------------------------------------------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """A derived condition: the pair of values of two other predicates of the vocabulary.

    Its value is ``(value of first, value of second)``, each read once per call (a vector reads every predicate at
    most once), so a vocabulary of many pairs costs little more than its base predicates. Either side may be
    UNREADABLE without hiding the other.

    >>> v = Vocabulary({"a": lambda s, x: x["a"], "b": lambda s, x: x["b"], "a&b": Pair("a", "b")})
    >>> v.read({}, "act", {"a": 1})["a&b"]
    (1, UNREADABLE)
    """

    first: str
    second: str


class Vocabulary:
    """Named predicates over ``(state, args)``: the conditions an action model can see.

    predicates: name → ``f(state, args)``. A predicate that raises a lookup/type/value error (a missing entity, a
        wrong type) reads as :data:`UNREADABLE`; lists, sets and dicts are normalised to tuples (hashable).
    hard: names whose violation is a hard rule (instant harm, a policy rule): never traded by a risk policy.
    only: action → the predicate names that apply to it; ``None`` (default) applies every predicate to every
        action, and an action absent from the mapping also gets every predicate.

    The fingerprint (SHA-256 over each predicate's name and code — bytecode, constants, names, defaults, closure
    cells and the module-level functions it calls, recursively — plus the hard set and ``only``) is stored with
    every journaled observation and every action item.

    >>> v = Vocabulary({"status": lambda s, a: s[a["id"]], "n": lambda s, a: len(a["items"])}, hard={"status"})
    >>> v.read({"#1": "pending"}, "cancel", {"id": "#2", "items": [1, 2]})
    {'n': 2, 'status': UNREADABLE}
    >>> len(v.fingerprint)
    64
    """

    def __init__(
        self,
        predicates: Mapping[str, Callable[[Any, Mapping[str, Any]], Any]],
        hard: Iterable[str] = (),
        only: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        if not isinstance(predicates, Mapping):
            raise BadInput(
                f"Vocabulary predicates must be a mapping name -> f(state, args), got {type(predicates).__name__}."
            )
        for name, fn in predicates.items():
            if not isinstance(name, str) or not name:
                raise BadInput(f"predicate name {name!r} must be a non-empty string.")
            if isinstance(fn, Pair):
                for side in (fn.first, fn.second):
                    if side not in predicates or isinstance(predicates[side], Pair):
                        raise BadInput(
                            f"predicate {name!r} = Pair({fn.first!r}, {fn.second!r}): {side!r} must name a plain "
                            "predicate of this vocabulary (not missing, not another Pair)."
                        )
            elif not callable(fn):
                raise BadInput(f"predicate {name!r} is a {type(fn).__name__}, not a callable f(state, args).")
        # sorted: the condition order (and so every vector) does not depend on dict insertion order
        self._predicates: dict[str, Callable[[Any, Mapping[str, Any]], Any]] = dict(sorted(predicates.items()))
        if isinstance(hard, str):
            raise BadInput(f"hard must be a set of predicate names, got the string {hard!r}; wrap it: {{{hard!r}}}.")
        self.hard: frozenset[str] = frozenset(hard)
        unknown = sorted(self.hard - self._predicates.keys())
        if unknown:
            raise BadInput(f"hard names {unknown} are not predicates of this vocabulary; name existing predicates.")
        self._only: dict[str, tuple[str, ...]] | None = None
        if only is not None:
            if not isinstance(only, Mapping):
                raise BadInput(f"only must be a mapping action -> predicate names or None, got {type(only).__name__}.")
            self._only = {}
            for action, names in only.items():
                if isinstance(names, str):
                    raise BadInput(f"only[{action!r}] is the string {names!r}; pass a list of predicate names.")
                names = tuple(sorted(set(names)))
                missing = [n for n in names if n not in self._predicates]
                if missing:
                    raise BadInput(f"only[{action!r}] names {missing}, which are not predicates of this vocabulary.")
                self._only[str(action)] = names
        self._all = tuple(self._predicates)
        self.fingerprint: str = self._fingerprint()

    @property
    def names(self) -> tuple[str, ...]:
        """Every predicate name, sorted."""
        return self._all

    def conditions(self, action: str) -> tuple[str, ...]:
        """The predicate names that apply to an action, sorted (the order of its condition vectors)."""
        if self._only is None:
            return self._all
        return self._only.get(action, self._all)

    def read_one(self, name: str, state: Any, args: Mapping[str, Any], _memo: dict[str, Any] | None = None) -> Any:
        """One predicate's value on (state, args); UNREADABLE when it cannot be read."""
        if _memo is not None and name in _memo:
            return _memo[name]
        fn = self._predicates[name]
        if isinstance(fn, Pair):
            memo = {} if _memo is None else _memo
            value = (self.read_one(fn.first, state, args, memo), self.read_one(fn.second, state, args, memo))
        else:
            try:
                raw = fn(state, args)
            except _READ_ERRORS:
                value = UNREADABLE
            else:
                value = _normalise(
                    raw, name
                )  # outside the try: a bad return type is the predicate's bug, not unreadable
        if _memo is not None:
            _memo[name] = value
        return value

    def vector(self, state: Any, action: str, args: Mapping[str, Any]) -> tuple[Any, ...]:
        """The condition vector of a call: values in the order of ``conditions(action)``.

        Each predicate is read at most once per call (pairs reuse their sides' values).
        """
        memo: dict[str, Any] = {}
        return tuple(self.read_one(n, state, args, memo) for n in self.conditions(action))

    def read(self, state: Any, action: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """The condition vector of a call as a dict name → value."""
        return dict(zip(self.conditions(action), self.vector(state, action, args)))

    def predicate_digest(self, name: str) -> str:
        """What one predicate computes, as a SHA-256 (its code as the fingerprint reads it; a :class:`Pair` by the
        digests of its two sides): two vocabularies whose predicate ``name`` has the same digest read the same value
        there on every call, so a reader may share it between them.

        >>> a = Vocabulary({"x": lambda s, q: q["x"]}); b = Vocabulary({"x": lambda s, q: q["x"], "y": lambda s, q: 1})
        >>> a.predicate_digest("x") == b.predicate_digest("x"), a.predicate_digest("x") == b.predicate_digest("y")
        (True, False)
        """
        fn = self._predicates[name]
        h = hashlib.sha256()
        if isinstance(fn, Pair):
            h.update(f"pair\x00{self.predicate_digest(fn.first)}\x00{self.predicate_digest(fn.second)}".encode())
        else:
            digest_callable(fn, h, set())
        return h.hexdigest()

    def _fingerprint(self) -> str:
        h = hashlib.sha256()
        for name, fn in self._predicates.items():
            h.update(b"\x00predicate\x00" + name.encode())
            if isinstance(fn, Pair):
                h.update(f"\x00pair\x00{fn.first}\x00{fn.second}".encode())
            else:
                digest_callable(fn, h, set())
        h.update(b"\x00hard\x00" + json.dumps(sorted(self.hard)).encode())
        # only changes which conditions a vector holds, so observations under another `only` are not comparable
        h.update(b"\x00only\x00" + json.dumps(self._only, sort_keys=True).encode())
        return h.hexdigest()

    def __repr__(self) -> str:
        return f"Vocabulary({len(self._predicates)} predicates, hard={sorted(self.hard)}, fingerprint={self.fingerprint[:12]})"


# ---------------------------------------------------------------------------------------------------------------
# one action's model
# ---------------------------------------------------------------------------------------------------------------

_MIXED = object()  # effect marker: accepted calls disagreed


@dataclass
class _Signature:
    conds: frozenset[int]
    support: int
    hard: bool


@dataclass
class _ActionModel:
    """Everything learned about one action. Vectors are tuples in the order of ``conds``."""

    conds: tuple[str, ...]
    hard_idx: frozenset[int]
    allowed: list[dict[Any, int]] = field(default_factory=list)  # per condition: value -> accepted calls
    accepted: Counter = field(default_factory=Counter)  # vector -> accepted calls
    refused: Counter = field(default_factory=Counter)  # vector -> refused calls
    violated: dict[tuple, frozenset[int]] = field(default_factory=dict)  # refused vector -> violated conditions now
    violated_counts: Counter = field(default_factory=Counter)  # violated set -> refused calls
    # (condition, value) -> refused vectors holding that never-accepted value: what to update when it gets allowed
    waiting: dict[tuple[int, Any], set[tuple]] = field(default_factory=dict)
    effect_by_vector: dict[tuple, Any] = field(default_factory=dict)  # vector -> effect key | _MIXED
    effect_all: Any = None  # effect key | _MIXED | None (no accepted call yet)
    effect_values: dict[str, Any] = field(default_factory=dict)  # effect key -> the effect dict
    n_accepted: int = 0
    n_refused: int = 0
    _signatures: list[_Signature] | None = None
    _by_cond: dict[int, list[_Signature]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.allowed:
            self.allowed = [{} for _ in self.conds]

    def learn(self, vector: tuple, accepted: bool, effect_key: str | None) -> None:
        if accepted:
            self.accepted[vector] += 1
            self.n_accepted += 1
            newly = []
            for i, value in enumerate(vector):
                seen = self.allowed[i]
                if value in seen:
                    seen[value] += 1
                else:
                    seen[value] = 1
                    newly.append((i, value))
            # incremental: only the refused vectors holding a newly allowed value lose that condition
            for i, value in newly:
                for rv in self.waiting.pop((i, value), ()):
                    old = self.violated[rv]
                    new = old - {i}
                    n = self.refused[rv]
                    self._move(old, new, n)
                    self.violated[rv] = new
            old_effect = self.effect_by_vector.get(vector)
            if vector not in self.effect_by_vector:
                self.effect_by_vector[vector] = effect_key
            elif old_effect is not _MIXED and old_effect != effect_key:
                self.effect_by_vector[vector] = _MIXED
            if self.n_accepted == 1:
                self.effect_all = effect_key
            elif self.effect_all is not _MIXED and self.effect_all != effect_key:
                self.effect_all = _MIXED
        else:
            self.refused[vector] += 1
            self.n_refused += 1
            if vector in self.violated:
                self.violated_counts[self.violated[vector]] += 1
            else:
                viol = frozenset(i for i, value in enumerate(vector) if value not in self.allowed[i])
                self.violated[vector] = viol
                self.violated_counts[viol] += 1
                for i in viol:
                    self.waiting.setdefault((i, vector[i]), set()).add(vector)
        self._signatures = None  # supports or the minimal sets changed: recompute lazily

    def _move(self, old: frozenset[int], new: frozenset[int], n: int) -> None:
        self.violated_counts[old] -= n
        if self.violated_counts[old] == 0:
            del self.violated_counts[old]
        self.violated_counts[new] += n

    def signatures(self) -> list[_Signature]:
        """Minimal violated sets of the refused calls, with the refused calls each explains. Cached."""
        if self._signatures is None:
            sets = sorted((s for s in self.violated_counts if s), key=lambda s: (len(s), sorted(s)))
            minimal: list[frozenset[int]] = []
            for s in sets:
                if not any(m <= s for m in minimal):
                    minimal.append(s)
            sigs = []
            for m in minimal:
                support = sum(n for s, n in self.violated_counts.items() if m <= s)
                sigs.append(_Signature(m, support, bool(m & self.hard_idx)))
            self._signatures = sigs
            self._by_cond = {}
            for sig in sigs:  # index by condition: a prediction looks only at signatures sharing a violated condition
                for i in sig.conds:
                    self._by_cond.setdefault(i, []).append(sig)
        return self._signatures

    def unexplained(self) -> int:
        """Refused calls with no violated condition: the vocabulary cannot tell them from accepted ones."""
        return self.violated_counts.get(frozenset(), 0)

    def matching(self, viol: frozenset[int]) -> list[_Signature]:
        self.signatures()
        out: list[_Signature] = []
        seen: set[int] = set()
        for i in viol:
            for sig in self._by_cond.get(i, ()):
                if id(sig) not in seen and sig.conds <= viol:
                    seen.add(id(sig))
                    out.append(sig)
        return out


def _effect_key(effect: Any) -> str:
    """The key of an observed effect: its canonical JSON text ("{}" for None: an accepted call observed without an
    effect changed nothing). The one function for the live path (checking the caller's effect) and the fold."""
    if effect is None:
        return "{}"
    if not isinstance(effect, Mapping):
        raise BadInput(
            f"observe: effect must be a dict of what changed (e.g. {{'status': 'cancelled'}}) or None, "
            f"got {type(effect).__name__}."
        )
    try:
        return json.dumps(effect, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as e:
        raise BadInput(
            f"observe: effect {effect!r} is not plain JSON ({e}); use str/int/float/bool/None, lists and dicts."
        ) from e


def _store_on(journal: Journal) -> KnowledgeStore:
    """A knowledge store on `journal`: the store the model's commit() writes its "action" items to."""
    return KnowledgeStore.from_journal(journal)


UNSEEN_CHOICES = ("refuse", "unknown")


def _check_unseen(unseen: Any) -> str:
    if unseen not in UNSEEN_CHOICES:
        raise BadInput(f"unseen must be one of {list(UNSEEN_CHOICES)}, got {unseen!r}.")
    return unseen


MEMORY_CHOICES = ("both", "refuse", "neither")


def _check_memory(memory: Any) -> str:
    if memory not in MEMORY_CHOICES:
        raise BadInput(f"memory must be one of {list(MEMORY_CHOICES)}, got {memory!r}.")
    return memory


def _check_min_support(min_support: Any) -> int:
    if type(min_support) is not int or min_support < 1:
        raise BadInput(f"min_support must be a whole number of calls, 1 or more (1: no minimum), got {min_support!r}.")
    return min_support


def _laplace_fail(failures: int, total: int) -> float:
    """Laplace-smoothed failure probability: (failures + 1) / (total + 2)."""
    return (failures + 1) / (total + 2)


# ---------------------------------------------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------------------------------------------


@public_calls
class ConservativeActionModel(JournalOwner):
    """Learns what an environment accepts, per action, and says "unknown" where it has not learned it.

    vocab: the :class:`Vocabulary` whose conditions the model sees.
    unseen: what a call gets when every refusal signature it matches rests on a condition value that training never
        observed at all (neither accepted nor refused): ``"refuse"`` (the signature generalises to it, the default)
        or ``"unknown"`` (a signature whose values were all observed must explain the refusal, else "unknown").
        A prediction-time choice: observations, journal records and fingerprints are the same either way.
    memory: what exact-vector memory may answer in an action's unexplained region (refused calls whose every value
        was accepted): ``"both"`` (the default: a vector seen only accepted → "accept", only refused → "refuse") or
        ``"refuse"`` (a vector seen only accepted → "unknown": the vocabulary cannot tell that action's refusals from
        its acceptances, so an acceptance seen once need not repeat — chance, or a condition it does not read) or
        ``"neither"`` (the symmetric case: once an action has an unexplained refusal, every call of it is
        "unknown" — the reason the vocabulary does not read can accept a vector it refused, and a refusal
        signature may rest on calls refused for that reason, not for the values they held).
        A prediction-time choice like ``unseen``.
    min_support: the fewest accepted calls an "accept" may rest on (its ``support``: the weakest condition value's
        accepted calls, or the exact vector's); below it the answer is "unknown". ``1`` (the default) sets no
        minimum. For small trainings: an action whose acceptance is chance can be seen accepted once and never
        refused (benchmarks/issue43_min_support.py measures 1 and 2 on Crafter). A prediction-time choice like
        ``unseen``.
    journal / store: where it keeps its knowledge (the journal-owner protocol, solvi_lab/owner.py). Every
        observation is journaled as a compact ``"action_observation"`` record (the condition vector, not the state)
        and folded by the one method ``_apply`` — live and when the model is rebuilt with
        :meth:`from_journal` or :meth:`open`. ``store=`` shares a KnowledgeStore (its journal is the model's);
        ``journal=`` builds a store on that journal; with neither the journal is a new in-memory one and there is
        no store. ``journal=False`` keeps no journal at all (the same records are folded, then dropped): for a
        model nobody rebuilds, whose journal would cost more than the model (a journaled observation holds its
        whole condition vector). :meth:`commit` (which needs a store) writes one ``"action"`` item per action.
        Records of another vocabulary in the same journal are not this model's: it ignores them.

    Costs: ``observe`` is O(conditions) plus the refused vectors a newly allowed value releases; ``predict`` is
    O(conditions + signatures sharing a violated condition); signatures are recomputed lazily after a change in
    O(distinct violated sets × signatures).

    >>> vocab = Vocabulary({"len": lambda s, a: len(a["items"])})
    >>> m = ConservativeActionModel(vocab)
    >>> m.observe({}, "ret", {"items": [1]}, accepted=True)
    >>> m.predict({}, "ret", {"items": [2]}).verdict, m.predict({}, "ret", {"items": []}).verdict
    ('accept', 'unknown')
    >>> ConservativeActionModel.from_journal(m.journal, vocab=vocab).state() == m.state()
    True
    >>> m.observe({}, "ret", {"items": [1, 2]}, accepted=False)   # len=2 refused: signature {len}
    >>> m.predict({}, "ret", {"items": [1, 2, 3]}).verdict        # len=3 never observed: the signature generalises
    'refuse'
    >>> ConservativeActionModel.from_journal(m.journal, vocab=vocab).state() == m.state()
    True
    """

    KINDS = (OBSERVATION_KIND, COMMIT_KIND)

    def __init__(
        self,
        vocab: Vocabulary,
        journal: Journal | Literal[False] | None = None,
        store: Any = None,
        unseen: Literal["refuse", "unknown"] = "refuse",
        memory: Literal["both", "refuse", "neither"] = "both",
        min_support: int = 1,
    ) -> None:
        self._configure(vocab)
        self.unseen = _check_unseen(unseen)
        self.memory = _check_memory(memory)
        self.min_support = _check_min_support(min_support)
        if journal is False:  # no journal at all: the records are folded as written, and kept nowhere
            if store is not None:
                raise BadInput("journal=False keeps no journal, so it takes no store; pass one of them.")
            self.journal = None
            return
        if store is not None:
            if not (hasattr(store, "add") and hasattr(store, "journal")):
                raise BadInput(
                    f"store of type {type(store).__name__} has no add(...) and journal; pass a KnowledgeStore or None."
                )
            if store.journal is None:
                raise BadInput(
                    "this store is a rebuilt, read-only view (it has no journal); pass the live store, or journal=."
                )
            if journal is not None and journal is not store.journal:
                raise BadInput("journal= and store= name different journals; pass one of them (the store's journal).")
            journal = store.journal
        elif journal is not None:
            self._attach(journal)
            store = _store_on(journal)
        self._attach(journal)
        self.store = store
        # a journal that already holds this vocabulary's records: continue the model they describe
        self._fold(self.journal.records())

    def _configure(self, vocab: Any) -> None:
        if not isinstance(vocab, Vocabulary):
            raise BadInput(
                f"vocab must be a Vocabulary, got {type(vocab).__name__}; build one with Vocabulary({{...}})."
            )
        self.vocab = vocab
        self.store: Any = None
        self._models: dict[str, _ActionModel] = {}
        self._item_ids: dict[str, str] = {}  # action -> id of its latest committed item (what the next supersedes)
        self._dirty: set[str] = set()  # actions changed since their last commit
        self.other_vocab_records = 0  # observations of another vocabulary a rebuild passed over
        self.unseen: str = "refuse"  # what a signature resting on a never-observed value gives (see predict)
        self.memory: str = "both"  # what exact-vector memory may answer in an unexplained region (see predict)
        self.min_support: int = 1  # the fewest accepted calls an "accept" may rest on (see predict)

    # -- the journal-owner protocol (solvi_lab.owner) ---------------------------------------------------------------

    @classmethod
    def _empty(cls, vocab: Vocabulary, store: Any = None) -> ConservativeActionModel:
        model = cls.__new__(cls)
        model._configure(vocab)
        return model

    @classmethod
    def from_journal(
        cls, journal: Journal, upto: int | None = None, *, vocab: Vocabulary, store: Any = None
    ) -> ConservativeActionModel:
        """Rebuild the model from the observations journaled under ``vocab``'s fingerprint.

        With ``upto``: the model as it was before journal position ``upto`` (a read-only view, without a store).
        Without: it writes on to ``journal``, through ``store`` when given (a store on that journal), else through
        a store built on it. Observations of another vocabulary are passed over (counted in
        ``other_vocab_records``); a journal holding observations but none under this vocabulary is a mistake and
        raises BadInput.

        >>> vocab = Vocabulary({"n": lambda s, a: a["n"]})
        >>> m = ConservativeActionModel(vocab, journal=Journal())
        >>> m.observe({}, "go", {"n": 1}, accepted=True); m.observe({}, "go", {"n": 2}, accepted=False)
        >>> ConservativeActionModel.from_journal(m.journal, upto=1, vocab=vocab).predict({}, "go", {"n": 2}).verdict
        'unknown'
        """
        if store is not None and (getattr(store, "journal", None) is not journal):
            raise BadInput("store= must be a store on this very journal (store.journal is journal), or None.")
        model = super().from_journal(journal, upto, vocab=vocab)
        model._check_vocabulary(journal, upto)
        if upto is None:
            model.store = store if store is not None else _store_on(journal)
        return model

    @classmethod
    def open(
        cls, path: Any, *, vocab: Vocabulary, journal_options: dict[str, Any] | None = None
    ) -> ConservativeActionModel:
        """Open the journal file at ``path`` (created when absent) and continue the model of ``vocab`` it holds, or
        start one there, with a store on that journal. Close it (or use ``with``) to release the file."""
        journal = Journal(path, **(journal_options or {}))
        try:
            model = cls(vocab, journal=journal)
            model._check_vocabulary(journal, None)
        except BaseException:
            journal.close()
            raise
        return model

    def _check_vocabulary(self, journal: Journal, upto: int | None) -> None:
        fp = self.vocab.fingerprint
        other = sum(1 for r in journal.records(0, upto, kind=OBSERVATION_KIND) if r.payload.get("vocab") != fp)
        self.other_vocab_records = other
        if other and not any(m.n_accepted + m.n_refused for m in self._models.values()):
            raise BadInput(
                f"the journal holds {other} action observations, none under vocabulary {fp[:12]}; rebuild with "
                "the vocabulary that observed them."
            )

    def _owns(self, record: Any) -> bool:
        return record.kind in self.KINDS and record.payload.get("vocab") == self.vocab.fingerprint

    def _apply(self, record: Any) -> None:
        """Fold one of this model's records: the live calls go through here too, so live == rebuilt."""
        p = record.payload
        if record.kind == COMMIT_KIND:
            for action, item_id in p["items"].items():
                self._item_ids[action] = item_id
                self._dirty.discard(action)
            return
        action = p["action"]
        conds = self.vocab.conditions(action)
        vec_in = p["vector"]
        try:
            if len(vec_in) != len(conds):
                raise KeyError(action)
            vector = tuple([_decode(vec_in[c]) for c in conds])
        except KeyError:
            raise BadInput(
                f"journal record {record.position} of {action!r} holds conditions {sorted(vec_in)}, but the "
                f"vocabulary gives {list(conds)}; the journal was written by another vocabulary."
            ) from None
        accepted = p["accepted"]
        effect_key = _effect_key(p["effect"])
        model = self._models.get(action)
        if model is None:
            hard_idx = frozenset(i for i, c in enumerate(conds) if c in self.vocab.hard)
            model = self._models[action] = _ActionModel(conds, hard_idx)
        if accepted and effect_key not in model.effect_values:
            model.effect_values[effect_key] = json.loads(effect_key)
        model.learn(vector, accepted, effect_key if accepted else None)
        self._dirty.add(action)

    def _record(self, kind: str, payload: dict[str, Any]) -> None:
        """The live path: `_write` (append, then `_apply` the record); with journal=False, `_apply` the same
        payload without keeping it (it is already plain JSON, as the journal would give it back)."""
        if self.journal is None and self._upto is None:
            self._apply(Record(-1, kind, payload, "", ""))
        else:
            self._write(kind, payload)

    def _writable(self, what: str) -> None:
        if self._upto is not None:
            raise BadInput(
                f"this model was rebuilt up to journal position {self._upto} (a view of the past); {what} writes "
                "nothing here — rebuild it without upto= to go on writing."
            )

    # -- learning -------------------------------------------------------------------------------------------------

    @writing_call
    def observe(
        self,
        state: Any,
        action: str,
        args: Mapping[str, Any],
        accepted: bool,
        effect: Mapping[str, Any] | None = None,
    ) -> None:
        """Record what the environment did with one call.

        effect: what the accepted call changed, as a JSON dict (``{"status": "cancelled"}``); None (the default)
            and ``{}`` both say it changed nothing. A prediction's ``effects`` is None only when no effect is
            predicted.
        """
        self._check_call(action, args, "observe")
        if not isinstance(accepted, bool):
            raise BadInput(f"observe: accepted must be True or False, got {accepted!r}; pass what the environment did.")
        self._writable("observe()")
        effect_key = _effect_key(effect)  # refuses an effect that is not a JSON dict, before anything is written
        vector = self.vocab.vector(state, action, args)
        conds = self.vocab.conditions(action)
        # written first, then folded by _apply from the record: a record the journal refuses is not learned either
        self._record(
            OBSERVATION_KIND,
            {
                "action": action,
                "vector": {c: _encode(v) for c, v in zip(conds, vector)},
                "accepted": accepted,
                "effect": None if effect is None else json.loads(effect_key),
                "vocab": self.vocab.fingerprint,
            },
        )

    @staticmethod
    def _check_call(action: Any, args: Any, where: str) -> None:
        if not isinstance(action, str) or not action:
            raise BadInput(f"{where}: action must be a non-empty string (the tool name), got {action!r}.")
        if not isinstance(args, Mapping):
            raise BadInput(f"{where}: args must be a dict of the call's arguments, got {type(args).__name__}.")

    # -- predicting -----------------------------------------------------------------------------------------------

    def predict(self, state: Any, action: str, args: Mapping[str, Any]) -> Prediction:
        """Predict whether the environment accepts a call, with risk, support, reason and effects.

        >>> m = ConservativeActionModel(Vocabulary({"ok": lambda s, a: a["x"] > 0}))
        >>> m.predict({}, "act", {"x": 1}).reason
        "action 'act' was never observed: nothing is known about it"
        """
        self._check_call(action, args, "predict")
        model = self._models.get(action)
        if model is None:
            return Prediction(
                "unknown",
                risk=0.5,
                support=0,
                reason=f"action {action!r} was never observed: nothing is known about it",
            )
        pred = self._predict_vector(action, model, self.vocab.vector(state, action, args))
        if pred.verdict == "accept" and pred.support < self.min_support:
            return Prediction(
                "unknown",
                risk=pred.risk,
                support=0,
                effects=pred.effects,
                detail={**pred.detail, "below_min_support": pred.support},
                reason=f"{pred.reason}; an accept needs at least {self.min_support} accepted calls (min_support)",
            )
        return pred

    def _predict_vector(self, action: str, model: _ActionModel, vector: tuple) -> Prediction:
        conds = model.conds
        viol = frozenset(i for i, value in enumerate(vector) if value not in model.allowed[i])
        effects, effect_detail = self._effects(model, vector)
        detail: dict[str, Any] = {"violated": sorted(conds[i] for i in viol), **effect_detail}
        n_total = model.n_accepted + model.n_refused
        unexplained = model.unexplained()
        if unexplained and self.memory == "neither":
            detail["unexplained_action"] = True
            return Prediction(
                "unknown",
                risk=_laplace_fail(model.n_refused, n_total),
                support=0,
                effects=effects,
                detail=detail,
                reason=f"{unexplained} refused call(s) of {action!r} had only accepted values: the vocabulary does "
                "not read why it is refused (chance, or an unread condition), and memory='neither'",
            )
        if viol:
            # An unreadable condition (an entity not looked up) is never allowed, but it is evidence of refusal
            # only where refused calls were seen unreadable there too; otherwise the call is "unknown".
            viol_match = frozenset(i for i in viol if vector[i] is not UNREADABLE or (i, UNREADABLE) in model.waiting)
            matching = model.matching(viol_match) if viol_match else []
            values = ", ".join(f"{conds[i]}={_show(vector[i])}" for i in sorted(viol))
            if matching and self.unseen == "unknown":
                # a signature explains this refusal only if every value it rests on was observed in training (in a
                # refused call: violated values were never accepted); a value nobody observed gives "unknown"
                seen = [s for s in matching if all((i, vector[i]) in model.waiting for i in s.conds)]
                if not seen:
                    novel = ", ".join(
                        f"{conds[i]}={_show(vector[i])}"
                        for i in sorted({i for s in matching for i in s.conds})
                        if (i, vector[i]) not in model.waiting
                    )
                    detail["signatures"] = [sorted(conds[i] for i in s.conds) for s in matching]
                    detail["unseen_values"] = True
                    return Prediction(
                        "unknown",
                        risk=_laplace_fail(model.n_refused, n_total),
                        support=0,
                        reason=f"{novel} never observed in training (neither accepted nor refused): "
                        f"{len(matching)} signature(s) match only through values never seen",
                        effects=effects,
                        detail=detail,
                    )
                matching = seen
            if matching:
                best = max(matching, key=lambda s: (s.support, -len(s.conds)))
                names = ", ".join(conds[i] for i in sorted(best.conds))
                shown = ", ".join(f"{conds[i]}={_show(vector[i])}" for i in sorted(best.conds))
                verb = "was" if len(best.conds) == 1 else "were"
                calls = "call" if best.support == 1 else "calls"
                reason = (
                    f"{shown} {verb} never accepted (refusal signature {{{names}}}, {best.support} refused {calls})"
                )
                if len(matching) > 1:
                    reason += f"; {len(matching)} signatures match"
                detail["signatures"] = [sorted(conds[i] for i in s.conds) for s in matching]
                return Prediction(
                    "refuse",
                    risk=1.0 - _laplace_fail(0, best.support),
                    support=best.support,
                    reason=reason,
                    hard=any(s.hard for s in matching),  # one hard explanation is enough to make it hard
                    effects=effects,
                    detail=detail,
                )
            return Prediction(
                "unknown",
                risk=_laplace_fail(model.n_refused, n_total),
                support=0,
                reason=f"{values} never accepted, but no refusal signature lies within them",
                effects=effects,
                detail=detail,
            )
        if unexplained:
            a, r = model.accepted.get(vector, 0), model.refused.get(vector, 0)
            detail["exact_memory"] = True
            region = f"{unexplained} refused call(s) of {action!r} had only accepted values"
            if a and not r and self.memory == "both":
                return Prediction(
                    "accept",
                    risk=_laplace_fail(0, a),
                    support=a,
                    effects=effects,
                    detail=detail,
                    reason=f"this exact condition vector was accepted {a} time(s) and never refused ({region})",
                )
            if r and not a:
                return Prediction(
                    "refuse",
                    risk=1.0 - _laplace_fail(0, r),
                    support=r,
                    effects=effects,
                    detail=detail,
                    reason=f"this exact condition vector was refused {r} time(s) and never accepted ({region})",
                )
            why = (
                (f"accepted {a} and refused {r} time(s)" if r else f"accepted {a} time(s), and memory='refuse'")
                if a
                else "never seen exactly"
            )
            return Prediction(
                "unknown",
                risk=_laplace_fail(r, a + r) if a else _laplace_fail(model.n_refused, n_total),
                support=0,
                effects=effects,
                detail=detail,
                reason=f"every value was accepted before, but {region}; this exact vector was {why}",
            )
        if conds:
            weakest = min(range(len(conds)), key=lambda i: (model.allowed[i][vector[i]], i))
            support = model.allowed[weakest][vector[weakest]]
            reason = (
                f"every condition held a value seen in accepted calls "
                f"(weakest: {conds[weakest]}={_show(vector[weakest])} in {support} accepted)"
            )
        else:
            support = model.n_accepted
            reason = f"the action has no conditions and was accepted {support} time(s)"
        return Prediction(
            "accept", risk=_laplace_fail(0, support), support=support, reason=reason, effects=effects, detail=detail
        )

    def _effects(self, model: _ActionModel, vector: tuple) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """Predicted effect (if accepted): the one every accepted call with this vector (else: of the action) had.

        None when no effect is predicted (no accepted call, or accepted calls disagreed); ``{}`` when the prediction
        is that nothing changes (every such call was observed with ``effect=None`` or ``{}``)."""
        if vector in model.effect_by_vector:
            key, basis = model.effect_by_vector[vector], "vector"
        elif model.n_accepted:
            key, basis = model.effect_all, "action"
        else:
            return None, {"effect_predicted": False, "effect_basis": None}
        if key is _MIXED:
            return None, {"effect_predicted": False, "effect_basis": basis}
        return dict(model.effect_values[key]), {"effect_predicted": True, "effect_basis": basis}

    def predict_many(self, calls: Iterable[tuple[Any, str, Mapping[str, Any]]]) -> list[Prediction]:
        """predict() over (state, action, args) triples."""
        return [self.predict(s, a, k) for s, a, k in calls]

    # -- journal and store ----------------------------------------------------------------------------------------

    @writing_call
    def commit(self) -> dict[str, str]:
        """Write each changed action's model as an "action" item (superseding its previous version).

        Returns action → new item id. Actions unchanged since their last commit are not rewritten. The items go
        into the store; a ``"action_commit"`` record then says which item each action's next commit supersedes.
        """
        self._writable("commit()")
        if self.store is None:
            raise BadInput(
                "commit() needs a store; build the model with ConservativeActionModel(vocab, store=...) or "
                "ConservativeActionModel(vocab, journal=...)."
            )
        written: dict[str, str] = {}
        for action in sorted(self._dirty):
            written[action] = self.store.add(
                ITEM_KIND,
                self._body(action),
                source="outcome",
                by="action_model",
                supersedes=self._item_ids.get(action),
            )
        if written:
            self._record(COMMIT_KIND, {"vocab": self.vocab.fingerprint, "items": written})
        return written

    def _body(self, action: str) -> dict[str, Any]:
        m = self._models[action]
        return {
            "name": action,
            "vocab": self.vocab.fingerprint,
            "conditions": list(m.conds),
            "allowed": {c: [_encode(v) for v in sorted(m.allowed[i], key=_sort_key)] for i, c in enumerate(m.conds)},
            "signatures": [
                {"conditions": sorted(m.conds[i] for i in s.conds), "support": s.support, "hard": s.hard}
                for s in sorted(m.signatures(), key=lambda s: sorted(m.conds[i] for i in s.conds))
            ],
            "support": {"accepted": m.n_accepted, "refused": m.n_refused, "unexplained": m.unexplained()},
        }

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Every action's model as JSON (the bodies commit() writes)."""
        return {a: self._body(a) for a in sorted(self._models)}

    def state(self) -> dict[str, Any]:
        """Everything that decides the model's behaviour, as plain JSON: per action the snapshot's body plus the
        counts behind it (allowed values with their counts, accepted and refused vectors, predicted effects), the
        committed item of each action and the actions changed since their last commit."""

        def vectors(counter: Counter) -> list[list[Any]]:
            return sorted(([_encode(v), n] for v, n in counter.items()), key=_sort_key)

        def effect(key: Any) -> Any:
            return "<mixed>" if key is _MIXED else key

        actions = {}
        for a in sorted(self._models):
            m = self._models[a]
            actions[a] = {
                **self._body(a),
                "allowed_counts": [sorted(([_encode(v), n] for v, n in d.items()), key=_sort_key) for d in m.allowed],
                "accepted": vectors(m.accepted),
                "refused": vectors(m.refused),
                "effect_by_vector": sorted(
                    ([_encode(v), effect(k)] for v, k in m.effect_by_vector.items()), key=_sort_key
                ),
                "effect_all": effect(m.effect_all),
            }
        out = {
            "vocab": self.vocab.fingerprint,
            "actions": actions,
            "items": dict(sorted(self._item_ids.items())),
            "dirty": sorted(self._dirty),
        }
        if self.unseen != "refuse":  # only when the option is on: states of default models stay as they were
            out["unseen"] = self.unseen
        if self.memory != "both":
            out["memory"] = self.memory
        if self.min_support != 1:
            out["min_support"] = self.min_support
        return out

    @property
    def actions(self) -> tuple[str, ...]:
        """The actions observed so far, sorted."""
        return tuple(sorted(self._models))

    # -- reading --------------------------------------------------------------------------------------------------

    def frame(self) -> pl.DataFrame:
        """Per action: each condition's allowed values, then each refusal signature with its support.

        Columns: action, kind ("allowed" | "signature"), conditions, values, support, hard. A polars frame;
        ``frame().to_pandas()`` gives a pandas DataFrame.

        >>> m = ConservativeActionModel(Vocabulary({"s": lambda st, a: a["s"]}))
        >>> m.observe({}, "go", {"s": "ok"}, accepted=True); m.observe({}, "go", {"s": "no"}, accepted=False)
        >>> m.frame().select("kind", "conditions", "values", "support").rows()
        [('allowed', 's', "'ok'", 1), ('signature', 's', '', 1)]
        """
        rows: dict[str, list[Any]] = {k: [] for k in ("action", "kind", "conditions", "values", "support", "hard")}

        def add(action: str, kind: str, conditions: str, values: str, support: int, hard: bool) -> None:
            for k, v in zip(rows, (action, kind, conditions, values, support, hard)):
                rows[k].append(v)

        for action in sorted(self._models):
            m = self._models[action]
            for i, c in enumerate(m.conds):
                vals = sorted(m.allowed[i], key=_sort_key)
                add(
                    action, "allowed", c, ", ".join(_show(v) for v in vals), sum(m.allowed[i].values()), i in m.hard_idx
                )
            for s in sorted(m.signatures(), key=lambda s: (-s.support, sorted(s.conds))):
                add(action, "signature", "+".join(m.conds[i] for i in sorted(s.conds)), "", s.support, s.hard)
        schema = {
            "action": pl.Utf8,
            "kind": pl.Utf8,
            "conditions": pl.Utf8,
            "values": pl.Utf8,
            "support": pl.Int64,
            "hard": pl.Boolean,
        }
        return pl.DataFrame(rows, schema=schema)

    def __repr__(self) -> str:
        return f"ConservativeActionModel({len(self._models)} actions, vocab={self.vocab.fingerprint[:12]})"
