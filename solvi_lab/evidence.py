"""Typed learning evidence, and a learner model that is a projection of it.

Evidence is the atom: what a learner actually did with a concept (was shown it, recognised it, recalled it with
or without hints, applied it, transferred it), with a categorical result, an evaluator and that evaluator's
confidence. Each piece is appended to a journal as a record of kind ``"evidence"`` and never edited. Everything
else — mastery, its label, when to review, whether a misconception still blocks teaching — is recomputed from
the journal, starting from the default state, every time it is read. A cache makes reads cheap (it folds only
the records appended since the last read), but its meaning is "replay the whole journal from the default".

The model is a journal owner (``solvi_lab.owner``): every call is written, then folded by the one ``_apply``
that a rebuild (``LearnerModel.from_journal(journal)``) uses too.

>>> m = LearnerModel()                       # deterministic: every write passes at=
>>> e = m.record("fractions", "free_recall", "correct", at=0)
>>> round(m.concept_state("fractions", at=0)["mastery"], 4)          # 0.35 × 0.75 × (1 − 0)
0.2625
>>> _ = m.assert_state("fractions", 0.95, by="ana", source="learner", why="I know this", at=1)
>>> s = m.concept_state("fractions", at=1)
>>> round(s["mastery"], 4), s["assertion"]["mastery"], s["shown"]   # the assertion sits beside, it is no prior
(0.2625, 0.95, 'derived')
>>> LearnerModel.from_journal(m.journal).state() == m.state()
True

What the model guarantees, and why (each point closes a flaw of the design it learned from; see
docs/readme/evidence.md):

- **weights** — ``weight = kind × hint factor × evaluator confidence × spacing factor``; exposure weighs exactly 0,
  so being shown something moves nothing.
- **the score cannot invert the result** — an optional numeric score is clamped into the band its categorical
  result allows (:func:`observed_value`).
- **assertions are not priors** — "I know this" or a teacher's override is journaled as an assertion, kept beside
  the derived mastery with its own source and rank; :meth:`LearnerModel.concept_state` says which one it shows and why.
- **ids are resolved** — an evidence id cited anywhere is resolved against the journal first
  (:meth:`LearnerModel.cite`, :class:`~solvi_lab.errors.UnknownId` otherwise). Provenance (free text),
  confidence (only journaled evidence counts) and deduplication (``dedupe_key``) are three separate fields.
- **the misconception vocabulary is closed** — ``active``, ``repairing``, ``stale``, ``resolved``; every read path
  looks a status up in :data:`MISCONCEPTION_POLICY`, which handles each explicitly; any other string is refused.
- **rebuild is a reconstruction** — :meth:`LearnerModel.from_journal` replays the whole journal from the default.
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from .errors import BadInput, UnknownId
from .journal import Journal, Record, canonical, register_kind
from .owner import JournalOwner
from .validation import ANY, Opt, op_shapes, public_calls, shape, writing_call

__all__ = [
    "EVIDENCE_KIND",
    "LEARNER_KIND",
    "KIND_WEIGHTS",
    "RETRIEVAL_KINDS",
    "RESULTS",
    "RESULT_BANDS",
    "HINT_FACTORS",
    "LEARNING_RATE",
    "MISCONCEPTION_STATUSES",
    "MisconceptionStatus",
    "MISCONCEPTION_POLICY",
    "PERSON_SETTABLE_STATUSES",
    "SOURCE_RANK",
    "LABELS",
    "StatusPolicy",
    "LearnerModel",
    "hint_factor",
    "spacing_factor",
    "evidence_weight",
    "confidence_ceiling",
    "observed_value",
    "status_policy",
]

# -- record kinds -------------------------------------------------------------------------------------------------
EVIDENCE_KIND = "evidence"  # one piece of evidence; never edited
LEARNER_KIND = (
    "learner"  # a person's or the model's action: op = open_misconception | assert_state | misconception_status
)
_NUM = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)  # noqa: E731
_NAME = (str, None)
register_kind(
    EVIDENCE_KIND,
    shape(
        "an evidence record",
        {
            "concept": str,
            "kind": str,
            "result": str,
            "score": (None, _NUM),
            "hints": int,
            "evaluator": str,
            "evaluator_confidence": _NUM,
            "at": _NUM,
            "misconception_id": _NAME,
            "dedupe_key": _NAME,
            "provenance": Opt(list),
        },
    ),
)
register_kind(
    LEARNER_KIND,
    op_shapes(
        LEARNER_KIND,
        {
            "open_misconception": {"concept": str, "misconception_id": str, "description": str, "by": ANY, "at": _NUM},
            "misconception_status": {"misconception_id": str, "status": str, "by": ANY, "why": ANY, "at": _NUM},
            "assert_state": {
                "concept": str,
                "mastery": _NUM,
                "source": str,
                "by": ANY,
                "why": ANY,
                "at": _NUM,
                "cites": [str],
                "provenance": Opt(list),
            },
        },
    ),
)

# -- weights ------------------------------------------------------------------------------------------------------
#: How strongly each kind of interaction confirms (or refutes) knowing a concept. Exposure is exactly 0: being shown
#: something is not evidence of knowing it. A learner's self report is evidence, but barely (0.1).
KIND_WEIGHTS: dict[str, float] = {
    "exposure": 0.0,
    "recognition": 0.25,
    "guided_recall": 0.45,
    "free_recall": 0.75,
    "application": 0.85,
    "transfer": 1.0,
    "self_report": 0.1,
}
#: Kinds in which the learner produced the answer. Only these can repair a misconception: recognising the right
#: option among several, or saying "I get it now", does not show the wrong idea has been replaced.
RETRIEVAL_KINDS: frozenset[str] = frozenset({"guided_recall", "free_recall", "application", "transfer"})
#: Hint factor by number of hints given: 0, 1, 2, and 3 or more.
HINT_FACTORS: tuple[float, ...] = (1.0, 0.7, 0.4, 0.1)

SPACED_AFTER_S = 7 * 86400.0  # a success at least a week after the last evidence on the concept...
SPACED_FACTOR = 1.25  # ...counts more: it was retrieved from long-term memory
MASSED_WITHIN_S = 300.0  # a success within five minutes of the last...
MASSED_FACTOR = 0.75  # ...counts less: it may still be in working memory

#: Categorical results and the band of observed values each allows (see observed_value).
RESULTS: tuple[str, ...] = ("correct", "partial", "incorrect")
RESULT_BANDS: dict[str, tuple[float, float]] = {"correct": (0.7, 1.0), "partial": (0.3, 0.7), "incorrect": (0.0, 0.3)}
_RESULT_DEFAULT: dict[str, float] = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}

#: mastery += LEARNING_RATE × weight × (observed − mastery). The largest step (transfer, spaced) is 0.4375 of the
#: gap, so mastery never overshoots and always stays in [0, 1].
LEARNING_RATE = 0.35

# -- labels and review --------------------------------------------------------------------------------------------
LABELS: tuple[str, ...] = ("misconception", "review_due", "unknown", "learning", "fragile", "stable")
#: Context-pack priority: what teaching must attend to first comes first.
_LABEL_PRIORITY = {label: i for i, label in enumerate(LABELS)}
LEARNING_BELOW = 0.4  # mastery below this is "learning"
STABLE_FROM = 0.8  # mastery at least this, with...
STABLE_DAYS = 7.0  # ...a stability of a week or more and...
# ...at least one successful application or transfer, is "stable"; anything else with evidence is "fragile".
_SUCCESS_TRANSFER_KINDS = frozenset({"application", "transfer"})

# -- misconceptions -----------------------------------------------------------------------------------------------
REPAIR_MAX_HINTS = 1
REPAIR_MIN_CONFIDENCE = 0.7
REPAIR_MIN_WEIGHT = 0.25
#: Qualifying linked successes needed to resolve a misconception: the first moves it to repairing, the rest
#: (RESOLVE_AFTER − 1 further ones) to resolved. A later linked failure reinstates it as active at any stage.
RESOLVE_AFTER = 3
STALE_AFTER_S = 30 * 86400.0  # an active or repairing misconception without linked evidence for 30 days is stale


class MisconceptionStatus(StrEnum):
    """The status of a learner's misconception — not a knowledge item's status: "active" here means the
    misconception is believed held (blocking), "stale" that no linked evidence came for `STALE_AFTER_S`.
    Str-valued, so records keep plain strings.

    >>> MisconceptionStatus.STALE == "stale", MISCONCEPTION_STATUSES[-1]
    (True, 'resolved')
    """

    ACTIVE = "active"
    REPAIRING = "repairing"
    STALE = "stale"
    RESOLVED = "resolved"


MISCONCEPTION_STATUSES: tuple[str, ...] = tuple(s.value for s in MisconceptionStatus)
#: The only statuses a person may set by hand. Repairing and resolved are reached only by linked evidence — a
#: person (or a model acting as one) must not be able to clear a blocker by declaring it cleared.
PERSON_SETTABLE_STATUSES: tuple[str, ...] = (MisconceptionStatus.ACTIVE.value, MisconceptionStatus.STALE.value)

SOURCE_RANK: dict[str, int] = {"learner": 1, "teacher": 2}


@dataclass(frozen=True)
class StatusPolicy:
    """What one misconception status means to every read path.

    blocking: forces the concept's label to "misconception" and blocks building on the concept.
    in_context_pack: listed in the context pack's misconceptions (never cut by the pack's size limit).
    teaching: what the teacher should do, shown in the pack and in `misconceptions()`.
    """

    blocking: bool
    in_context_pack: bool
    teaching: str


#: The one table every read path consults. Repairing still blocks: the repair is under way, not done.
#: Stale still blocks: it was never shown to be resolved, only not checked for a long time.
MISCONCEPTION_POLICY: dict[str, StatusPolicy] = {
    "active": StatusPolicy(True, True, "blocking: address it before building on the concept"),
    "repairing": StatusPolicy(
        True, True, "repairing: still blocking; check again with a linked retrieval question, no more than 1 hint"
    ),
    "stale": StatusPolicy(True, True, "needs a re-check: no linked evidence for a long time; still blocking"),
    "resolved": StatusPolicy(False, False, "resolved by linked evidence; listed for the record, not blocking"),
}


def status_policy(status: str) -> StatusPolicy:
    """The policy of a misconception status; BadInput for any string outside the vocabulary.

    >>> status_policy("repairing").blocking
    True
    >>> status_policy("on_hold")
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: misconception status 'on_hold' is not one of active, repairing, stale, resolved; use one of those.
    """
    try:
        return MISCONCEPTION_POLICY[status]
    except (KeyError, TypeError):
        raise BadInput(
            f"misconception status {status!r} is not one of {', '.join(MISCONCEPTION_STATUSES)}; use one of those."
        ) from None


# -- pure functions of one piece of evidence ----------------------------------------------------------------------
def hint_factor(hints: int) -> float:
    """How much a hint-aided answer counts: 1.0 with no hint, 0.7, 0.4, and 0.1 from three hints on.

    >>> [hint_factor(h) for h in range(5)]
    [1.0, 0.7, 0.4, 0.1, 0.1]
    """
    _check_hints(hints)
    return HINT_FACTORS[min(hints, len(HINT_FACTORS) - 1)]


def spacing_factor(result: str, gap_s: float | None) -> float:
    """1.25 for a success a week or more after the last evidence, 0.75 for one within five minutes, else 1.

    Only successes are scaled: a failure is informative whenever it happens. `gap_s` is None for the first
    evidence on a concept (nothing to be spaced from).

    >>> spacing_factor("correct", 8 * 86400), spacing_factor("correct", 60), spacing_factor("incorrect", 60)
    (1.25, 0.75, 1.0)
    """
    if result != "correct" or gap_s is None:
        return 1.0
    if gap_s >= SPACED_AFTER_S:
        return SPACED_FACTOR
    if gap_s < MASSED_WITHIN_S:
        return MASSED_FACTOR
    return 1.0


def confidence_ceiling(retrievals: int) -> float:
    """The most confidence the estimate may claim, by the number of journaled retrieval-kind evidence records.

    0.35 with none, 0.6 with one or two, 0.9 from three. Only evidence in the journal counts: nothing a caller
    cites, appends to a list or asserts can raise it.

    >>> [confidence_ceiling(n) for n in (0, 1, 2, 3)]
    [0.35, 0.6, 0.6, 0.9]
    """
    if retrievals == 0:
        return 0.35
    return 0.6 if retrievals < 3 else 0.9


def evidence_weight(kind: str, hints: int, evaluator_confidence: float, spacing: float = 1.0) -> float:
    """Weight of one piece of evidence: kind × hint factor × evaluator confidence × spacing factor.

    >>> evidence_weight("free_recall", 1, 0.8)
    0.42
    >>> evidence_weight("exposure", 0, 1.0, 1.25)
    0.0
    """
    _check_kind(kind)
    _check_confidence(evaluator_confidence)
    return round(KIND_WEIGHTS[kind] * hint_factor(hints) * float(evaluator_confidence) * spacing, 12)


def observed_value(result: str, score: float | None = None) -> tuple[float, bool]:
    """The observed value a piece of evidence pulls mastery toward, and whether its score had to be clamped.

    A model grading an answer can emit contradictory fields — result="incorrect" with score=1.0. The categorical
    result is the judgement; the score only refines it *within* the result's band. So the score is clamped into
    the band (correct 0.7–1, partial 0.3–0.7, incorrect 0–0.3), and malformed evidence can never invert the
    learning signal: an "incorrect" can never pull mastery up past 0.3, a "correct" never down below 0.7.

    >>> observed_value("incorrect", 1.0)
    (0.3, True)
    >>> observed_value("correct")
    (1.0, False)
    """
    _check_result(result)
    if score is None:
        return _RESULT_DEFAULT[result], False
    _check_score(score)
    low, high = RESULT_BANDS[result]
    value = min(max(float(score), low), high)
    return value, value != float(score)


# -- validation (one function per field, shared by the write path and the replay) ----------------------------------
def _check_kind(kind: Any) -> None:
    if kind not in KIND_WEIGHTS:
        raise BadInput(f"evidence kind {kind!r} is not one of {', '.join(KIND_WEIGHTS)}; name what the learner did.")


def _check_result(result: Any) -> None:
    if result not in RESULTS:
        raise BadInput(
            f"result {result!r} is not one of {', '.join(RESULTS)}; grade the answer categorically "
            "and pass a numeric score separately if you have one."
        )


def _check_hints(hints: Any) -> None:
    if isinstance(hints, bool) or not isinstance(hints, int) or hints < 0:
        raise BadInput(f"hints must be the number of hints given (an int ≥ 0), got {hints!r}.")


def _check_unit(name: str, value: Any) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 <= value <= 1
    ):
        raise BadInput(f"{name} must be a number between 0 and 1, got {value!r}.")
    return float(value)


def _check_confidence(value: Any) -> float:
    return _check_unit("evaluator_confidence", value)


def _check_score(value: Any) -> float:
    return _check_unit("score", value)


def _check_text(name: str, value: Any, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if not isinstance(value, str) or not value.strip():
        raise BadInput(f"{name} must be a non-empty string, got {value!r}.")


def _check_provenance(provenance: Any) -> list[str]:
    if (
        isinstance(provenance, str)
        or not isinstance(provenance, (list, tuple))
        or not all(isinstance(p, str) for p in provenance)
    ):
        raise BadInput(
            f"provenance must be a list of strings (ids or notes), got {provenance!r}; it is free-form "
            "and is never resolved — to make evidence count, cite its id with cites=."
        )
    return list(provenance)


def _seconds(at: Any) -> float:
    """A time as seconds: a datetime (naive ones are read as UTC) or a finite number."""
    if isinstance(at, datetime):
        return (at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp()
    if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at):
        raise BadInput(f"at must be a datetime or a finite number of seconds, got {at!r}.")
    return float(at)


def _evidence_id(position: int) -> str:
    return f"e{position}"


def _assertion_id(position: int) -> str:
    return f"a{position}"


# -- the fold's state ---------------------------------------------------------------------------------------------
@dataclass
class _Concept:
    """Everything the projection keeps per concept; `position` is the last journal position folded into it."""

    concept: str
    mastery: float = 0.0
    evidence: int = 0  # non-exposure evidence records
    exposures: int = 0
    retrievals: int = 0  # retrieval-kind evidence records
    successes: int = 0
    lapses: int = 0  # failures after at least one success
    transfers: int = 0  # successful application or transfer
    weight_total: float = 0.0
    stability_days: float = 0.0
    last_at: float | None = None  # time of the last non-exposure evidence
    last_any_at: float | None = None  # time of the last evidence of any kind (keeps time monotone per concept)
    last_evidence_position: int = -1  # position of the last non-exposure evidence
    position: int = -1


@dataclass
class _Misconception:
    id: str
    concept: str
    description: str
    opened_by: str
    opened_at: float
    opened_position: int
    status: str = "active"  # the recorded status; "stale" may also be derived at read time (see _effective)
    repair_successes: int = 0
    last_checked_at: float = 0.0
    history: list[dict[str, Any]] = field(default_factory=list)


_UNSET: Any = object()  # marks the deprecated `clock=` as not given


@public_calls
class LearnerModel(JournalOwner):
    """A learner model projected from typed evidence in a journal (a journal owner: see ``solvi_lab.owner``).

    `journal` is the :class:`~solvi_lab.journal.Journal` it writes to (None: a new in-memory journal); to share a
    knowledge store's journal pass ``store=ks`` instead. A journal that already holds evidence is folded first: the
    model continues it, and several models on one journal each catch up on the others' records before every call.
    `timestamps` is the wall-clock source for a call made without `at=` (a callable returning seconds, e.g.
    ``time.time``). The default None is deterministic: every write must pass `at=`, and a read without `at=` is as
    of the latest time the journal holds. (`clock=` is the older name of `timestamps`.)

    >>> m = LearnerModel()
    >>> m.open_misconception("sign", "m1", "thinks −(−a) is −a", by="tutor", at=0)
    'm1'
    >>> m.concept_state("sign", at=0)["label"], [x["status"] for x in m.misconceptions("sign", at=0)]
    ('misconception', ['active'])
    """

    KINDS = (EVIDENCE_KIND, LEARNER_KIND)

    def __init__(
        self,
        journal: Journal | None = None,
        *,
        timestamps: Callable[[], float] | None = None,
        store: Any = None,
        clock: Any = _UNSET,
    ):
        self._configure(timestamps, clock)
        if store is not None:
            if journal is not None:
                raise BadInput("pass journal= or store=, not both: the model writes to one journal.")
            journal = getattr(store, "journal", None)
            if not isinstance(journal, Journal):
                raise BadInput(
                    f"store= must have a .journal (a KnowledgeStore), got {type(store).__name__}; pass "
                    "journal=Journal(...) instead."
                )
        elif journal is not None and not isinstance(journal, Journal):
            raise BadInput(
                f"LearnerModel needs a Journal (journal=), a store (store=) or None, got {type(journal).__name__}; "
                "to open a journal file use LearnerModel.open(path)."
            )
        self._attach(journal)
        self._sync()

    def _configure(self, timestamps: Any, clock: Any = _UNSET) -> None:
        if clock is not _UNSET:  # the older name of `timestamps`
            warnings.warn(
                "LearnerModel(clock=...) is now LearnerModel(timestamps=...)", DeprecationWarning, stacklevel=3
            )
            timestamps = clock
        if timestamps is not None and not callable(timestamps):
            raise BadInput(
                f"timestamps must be a callable returning seconds (e.g. time.time) or None, got {timestamps!r}."
            )
        self._timestamps = timestamps
        self._seen = 0  # journal positions < _seen are folded into the cache
        self._ordinal: dict[int, int] = {}  # journal position of each of the model's records -> its ordinal
        self._concepts: dict[str, _Concept] = {}
        self._misconceptions: dict[str, _Misconception] = {}
        self._assertions: dict[str, list[dict[str, Any]]] = {}
        self._evidence: dict[str, dict[str, Any]] = {}
        self._dedupe: dict[str, str] = {}

    # -- the journal-owner protocol (solvi_lab.owner) ---------------------------------------------------------
    @classmethod
    def _empty(
        cls, *, timestamps: Callable[[], float] | None = None, store: Any = None, clock: Any = _UNSET
    ) -> LearnerModel:
        model = cls.__new__(cls)
        model._configure(timestamps, clock)
        return model

    @classmethod
    def from_journal(cls, journal: Journal, upto: int | None = None, **options: Any) -> LearnerModel:
        """Reconstruct the model from the DEFAULT state over the journal (before position `upto` only, when given:
        a read-only view of the past). Nothing is carried over; `options` are the constructor's (`timestamps`).

        It equals the live model by construction — the live model's cache is the same fold, only incremental —
        and `state()` (or `fingerprint()`) is how to check it.

        >>> m = LearnerModel(); _ = m.record("x", "transfer", "correct", at=0)
        >>> LearnerModel.from_journal(m.journal).snapshot() == m.snapshot()
        True
        """
        options.pop("store", None)  # the journal is given
        return super().from_journal(journal, upto, **options)

    def _apply(self, record: Record) -> None:
        """Fold one of the model's records: the live calls (through `_write`) and every rebuild come through here."""
        self._ordinal[record.position] = self._folded
        if record.kind == EVIDENCE_KIND:
            self._fold_evidence(record.position, record.payload)
        else:
            self._fold_learner(record.position, record.payload)
        self._seen = max(self._seen, record.position + 1)

    # -- the fold -------------------------------------------------------------------------------------------------
    def _sync(self) -> None:
        """Fold the records appended since the last read (by this model or any other writer on the journal)."""
        end = self.journal.position if self._upto is None else self._upto
        if self._seen < end:
            self._fold(self.journal.records(self._seen, end))
            self._seen = end

    def _concept(self, name: str) -> _Concept:
        c = self._concepts.get(name)
        if c is None:
            c = self._concepts[name] = _Concept(name)
        return c

    def _fold_evidence(self, position: int, p: Any) -> None:
        try:
            self._validate_evidence(p)
            self._validate_context(p)
        except (BadInput, UnknownId) as e:
            raise BadInput(
                f"journal record {position} (kind 'evidence') cannot be replayed: {e} The record was not "
                "written by LearnerModel.record; remove it from a copy of the journal."
            ) from None
        c = self._concept(p["concept"])
        at = p["at"]
        kind, result = p["kind"], p["result"]
        gap = None if c.last_at is None else at - c.last_at
        spacing = spacing_factor(result, gap) if kind != "exposure" else 1.0
        weight = evidence_weight(kind, p["hints"], p["evaluator_confidence"], spacing)
        observed, clamped = observed_value(result, p["score"])
        before = c.mastery
        if kind == "exposure":
            c.exposures += 1
        else:
            c.mastery = before + LEARNING_RATE * weight * (observed - before)
            c.evidence += 1
            c.weight_total += weight
            c.retrievals += kind in RETRIEVAL_KINDS
            if result == "correct":
                c.successes += 1
                c.transfers += kind in _SUCCESS_TRANSFER_KINDS
                # Each success lengthens the interval in proportion to how strongly it confirmed the concept.
                c.stability_days = max(1.0, c.stability_days * (1.0 + weight))
            elif result == "incorrect" and c.successes:
                c.lapses += 1
                c.stability_days = max(1.0, c.stability_days / 2.0)
            c.last_at = at
            c.last_evidence_position = position
        c.last_any_at = at
        c.position = position
        eid = _evidence_id(position)
        view = {
            **p,
            "id": eid,
            "position": position,
            "weight": weight,
            "spacing_factor": spacing,
            "hint_factor": hint_factor(p["hints"]),
            "observed": observed,
            "score_clamped": clamped,
            "mastery_before": before,
            "mastery_after": c.mastery,
        }
        self._evidence[eid] = view
        if p["dedupe_key"] is not None:
            self._dedupe[p["dedupe_key"]] = eid
        if p["misconception_id"] is not None:
            self._fold_linked(self._misconceptions[p["misconception_id"]], view)

    def _fold_linked(self, mc: _Misconception, ev: dict[str, Any]) -> None:
        """Apply evidence explicitly linked to a misconception. Unlinked evidence never touches one."""
        if ev["kind"] == "exposure":
            return  # being shown the right idea again is not a check of the wrong one
        before = self._effective(mc, ev["at"])
        mc.last_checked_at = max(mc.last_checked_at, ev["at"])
        reasons = _repair_refusals(ev)
        if ev["result"] == "incorrect":
            after, cause, mc.repair_successes = "active", "linked failure reinstates it", 0
        elif ev["result"] == "correct" and not reasons:
            # A stale one restarts its repair count: after a long silence one success proves little.
            mc.repair_successes = 1 if before in ("active", "stale") else mc.repair_successes + 1
            if before == "resolved":
                after, cause = "resolved", "qualifying linked success (already resolved)"
            elif mc.repair_successes >= RESOLVE_AFTER:
                after, cause = "resolved", f"{mc.repair_successes} qualifying linked successes"
            else:
                after, cause = "repairing", f"qualifying linked success {mc.repair_successes}/{RESOLVE_AFTER}"
        else:
            after = before
            cause = (
                "partial result: no change"
                if ev["result"] == "partial"
                else "linked success does not qualify (" + "; ".join(reasons) + "): no change"
            )
        mc.status = after
        mc.history.append(
            {"position": ev["position"], "evidence": ev["id"], "from": before, "to": after, "cause": cause}
        )

    def _fold_learner(self, position: int, p: Any) -> None:
        op = p.get("op") if isinstance(p, dict) else None
        try:
            if op == "open_misconception":
                self._validate_open(p)
                self._misconceptions[p["misconception_id"]] = _Misconception(
                    p["misconception_id"],
                    p["concept"],
                    p["description"],
                    p["by"],
                    p["at"],
                    position,
                    last_checked_at=p["at"],
                    history=[
                        {
                            "position": position,
                            "evidence": None,
                            "from": None,
                            "to": "active",
                            "cause": f"opened by {p['by']}",
                        }
                    ],
                )
                self._concept(p["concept"]).position = position
            elif op == "assert_state":
                self._validate_assertion(p)
                self._assertions.setdefault(p["concept"], []).append(
                    {**p, "id": _assertion_id(position), "position": position, "rank": SOURCE_RANK[p["source"]]}
                )
                self._concept(p["concept"]).position = position
            elif op == "misconception_status":
                self._validate_status_action(p)
                mc = self._misconceptions[p["misconception_id"]]
                before = self._effective(mc, p["at"])
                mc.status = p["status"]
                mc.repair_successes = 0
                mc.last_checked_at = max(mc.last_checked_at, p["at"])
                mc.history.append(
                    {
                        "position": position,
                        "evidence": None,
                        "from": before,
                        "to": p["status"],
                        "cause": f"set by {p['by']}: {p['why']}",
                    }
                )
                self._concept(mc.concept).position = position
            else:
                raise BadInput(f"unknown op {op!r}.")
        except (BadInput, UnknownId) as e:
            raise BadInput(
                f"journal record {position} (kind 'learner') cannot be replayed: {e} The record was not "
                "written by LearnerModel; remove it from a copy of the journal."
            ) from None

    def _effective(self, mc: _Misconception, at: float) -> str:
        """The status as of time `at`: the recorded one, except that an unsettled one goes stale without checks."""
        status_policy(mc.status)  # refuses anything outside the vocabulary, on every read
        if mc.status in ("active", "repairing") and at - mc.last_checked_at >= STALE_AFTER_S:
            return "stale"
        return mc.status

    # -- validation against the journal --------------------------------------------------------------------------
    @staticmethod
    def _validate_evidence(p: Any) -> None:
        if not isinstance(p, dict):
            raise BadInput("an evidence payload must be a dict.")
        _check_text("concept", p.get("concept"))
        _check_kind(p.get("kind"))
        _check_result(p.get("result"))
        if p.get("score") is not None:
            _check_score(p["score"])
        _check_hints(p.get("hints"))
        _check_text("evaluator", p.get("evaluator"))
        _check_confidence(p.get("evaluator_confidence"))
        _seconds(p.get("at"))
        _check_text("misconception_id", p.get("misconception_id"), optional=True)
        _check_text("dedupe_key", p.get("dedupe_key"), optional=True)
        _check_provenance(p.get("provenance"))

    def _validate_context(self, p: dict[str, Any]) -> None:
        c = self._concepts.get(p["concept"])
        if c is not None and c.last_any_at is not None and p["at"] < c.last_any_at:
            raise BadInput(
                f"evidence on {p['concept']!r} at {p['at']} is earlier than the last evidence on it "
                f"({c.last_any_at}); record evidence in the order it happened."
            )
        mid = p["misconception_id"]
        if mid is not None:
            mc = self._misconceptions.get(mid)
            if mc is None:
                raise UnknownId(
                    f"misconception {mid!r} has not been opened; open it first with "
                    f"open_misconception({p['concept']!r}, {mid!r}, description, by=...)."
                )
            if mc.concept != p["concept"]:
                raise BadInput(
                    f"misconception {mid!r} belongs to concept {mc.concept!r}, not {p['concept']!r}; "
                    "link evidence only to a misconception of its own concept."
                )
        key = p["dedupe_key"]
        if key is not None and key in self._dedupe:
            raise BadInput(f"dedupe_key {key!r} is already used by evidence {self._dedupe[key]}.")

    def _validate_open(self, p: dict[str, Any]) -> None:
        for name in ("concept", "misconception_id", "description", "by"):
            _check_text(name, p.get(name))
        _seconds(p.get("at"))
        if p["misconception_id"] in self._misconceptions:
            raise BadInput(
                f"misconception {p['misconception_id']!r} is already open (on concept "
                f"{self._misconceptions[p['misconception_id']].concept!r}); choose a new id."
            )

    def _validate_assertion(self, p: dict[str, Any]) -> None:
        _check_text("concept", p.get("concept"))
        _check_unit("mastery", p.get("mastery"))
        _check_text("by", p.get("by"))
        _check_text("why", p.get("why"))
        if p.get("source") not in SOURCE_RANK:
            raise BadInput(f"source {p.get('source')!r} is not one of {', '.join(SOURCE_RANK)}; say who asserts.")
        _seconds(p.get("at"))
        _check_provenance(p.get("provenance"))
        cites = p.get("cites")
        if not isinstance(cites, list):
            raise BadInput("cites must be a list of evidence ids.")
        for eid in self._resolve(cites):
            if self._evidence[eid]["concept"] != p["concept"]:
                raise BadInput(
                    f"evidence {eid} is about {self._evidence[eid]['concept']!r}, not {p['concept']!r}; "
                    "cite evidence on the asserted concept."
                )

    def _validate_status_action(self, p: dict[str, Any]) -> None:
        status = p.get("status")
        status_policy(status)  # unknown strings: BadInput, never stored
        if status not in PERSON_SETTABLE_STATUSES:
            raise BadInput(
                f"a person cannot set a misconception to {status!r}: only linked evidence moves it to "
                "repairing or resolved. Record the check with record(..., misconception_id=...); a person "
                f"may set {' or '.join(PERSON_SETTABLE_STATUSES)} (reopen it, or ask for a re-check)."
            )
        _check_text("by", p.get("by"))
        _check_text("why", p.get("why"))
        _seconds(p.get("at"))
        if p.get("misconception_id") not in self._misconceptions:
            raise UnknownId(
                f"misconception {p.get('misconception_id')!r} has not been opened; known: "
                f"{', '.join(self._misconceptions) or 'none'}."
            )

    def _resolve(self, ids: Iterable[Any]) -> list[str]:
        """Each id resolved to a journaled evidence record, in order; UnknownId naming the first that is not."""
        out = []
        for eid in ids:
            if eid not in self._evidence:
                what = "an evidence id"
                if isinstance(eid, str) and eid[:1] == "e" and eid[1:].isdigit() and int(eid[1:]) < len(self.journal):
                    what = f"position {eid[1:]} holds a {self.journal[int(eid[1:])].kind!r} record, not evidence"
                elif isinstance(eid, str) and eid[:1] == "e" and eid[1:].isdigit():
                    what = f"the journal has only {len(self.journal)} records"
                raise UnknownId(
                    f"evidence id {eid!r} does not resolve against the journal ({what}); cite only ids "
                    "that record() returned. Free-form references belong in provenance=, which gates "
                    "nothing."
                )
            out.append(eid)
        return out

    # -- writing --------------------------------------------------------------------------------------------------
    def _now(self, at: Any) -> float:
        if at is None:
            if self._timestamps is None:
                raise BadInput(
                    "this model has no clock; pass at= (a datetime or seconds), or build it with "
                    "LearnerModel(timestamps=time.time) to stamp calls without at= with the wall-clock time."
                )
            return _seconds(self._timestamps())
        return _seconds(at)

    @writing_call
    def record(
        self,
        concept: str,
        kind: str,
        result: str,
        *,
        score: float | None = None,
        hints: int = 0,
        evaluator: str = "unspecified",
        evaluator_confidence: float = 1.0,
        at: Any = None,
        misconception_id: str | None = None,
        dedupe_key: str | None = None,
        provenance: Sequence[str] = (),
    ) -> str:
        """Append one piece of evidence and return its id ("e<journal position>").

        `dedupe_key` makes a retry idempotent: if journaled evidence already carries the key, nothing is appended
        and that evidence's id is returned (BadInput if the retry differs in what was observed). It is checked
        against the journal only — no other field can suppress a record.

        >>> m = LearnerModel()
        >>> m.record("x", "guided_recall", "correct", hints=1, at=0, dedupe_key="q1")
        'e0'
        >>> m.record("x", "guided_recall", "correct", hints=1, at=5, dedupe_key="q1")   # a retry
        'e0'
        """
        self._sync()
        p = {
            "concept": concept,
            "kind": kind,
            "result": result,
            "score": score,
            "hints": hints,
            "evaluator": evaluator,
            "evaluator_confidence": evaluator_confidence,
            "at": self._now(at),
            "misconception_id": misconception_id,
            "dedupe_key": dedupe_key,
            "provenance": _check_provenance(list(provenance) if isinstance(provenance, tuple) else provenance),
        }
        self._validate_evidence(p)
        if dedupe_key is not None and dedupe_key in self._dedupe:
            old = self._evidence[self._dedupe[dedupe_key]]
            same = (
                "concept",
                "kind",
                "result",
                "score",
                "hints",
                "evaluator",
                "evaluator_confidence",
                "misconception_id",
            )
            if any(old[k] != p[k] for k in same):
                raise BadInput(
                    f"dedupe_key {dedupe_key!r} already names evidence {old['id']} with different content "
                    f"({', '.join(k for k in same if old[k] != p[k])} differ); use a new key for new "
                    "evidence."
                )
            return old["id"]
        self._validate_context(p)
        rec = self._write(EVIDENCE_KIND, p)
        return _evidence_id(rec.position)

    @writing_call
    def open_misconception(
        self, concept: str, misconception_id: str, description: str, *, by: str, at: Any = None
    ) -> str:
        """Open a misconception with an explicit id (status active) and return the id.

        >>> m = LearnerModel()
        >>> m.open_misconception("x", "m1", "adds denominators", by="tutor", at=0)
        'm1'
        """
        self._sync()
        p = {
            "op": "open_misconception",
            "concept": concept,
            "misconception_id": misconception_id,
            "description": description,
            "by": by,
            "at": self._now(at),
        }
        self._validate_open(p)
        self._write(LEARNER_KIND, p)
        return misconception_id

    @writing_call
    def set_misconception_status(self, misconception_id: str, status: str, *, by: str, why: str, at: Any = None) -> str:
        """A person's explicit, journaled status change: "active" (reopen) or "stale" (ask for a re-check).

        Any other status is refused with BadInput and nothing is stored: an unknown string would otherwise be a
        status no read path understands, and "repairing"/"resolved" are reached only by linked evidence.
        Returns the status now in effect.

        >>> m = LearnerModel(); _ = m.open_misconception("x", "m1", "d", by="t", at=0)
        >>> m.set_misconception_status("m1", "stale", by="teacher", why="not checked this term", at=1)
        'stale'
        """
        self._sync()
        p = {
            "op": "misconception_status",
            "misconception_id": misconception_id,
            "status": status,
            "by": by,
            "why": why,
            "at": self._now(at),
        }
        self._validate_status_action(p)
        self._write(LEARNER_KIND, p)
        return self._effective(self._misconceptions[misconception_id], p["at"])

    @writing_call
    def assert_state(
        self,
        concept: str,
        mastery: float,
        *,
        by: str,
        source: str = "learner",
        why: str,
        at: Any = None,
        cites: Sequence[str] = (),
        provenance: Sequence[str] = (),
    ) -> str:
        """Journal a person's assertion of a concept's mastery and return its id ("a<journal position>").

        It is stored beside the derived mastery, never in place of it and never as the prior evidence is replayed
        over. `cites` are evidence ids the assertion rests on: each is resolved first (UnknownId otherwise) and
        must be about the same concept. `provenance` is free text and is never resolved.

        >>> m = LearnerModel()
        >>> m.assert_state("x", 0.9, by="ana", why="I know this", at=0, cites=["e5"])
        Traceback (most recent call last):
        ...
        solvi_lab.errors.UnknownId: evidence id 'e5' does not resolve against the journal (the journal has only 0 records); cite only ids that record() returned. Free-form references belong in provenance=, which gates nothing.
        """
        self._sync()
        if isinstance(cites, str):
            raise BadInput(f"cites must be a list of evidence ids, got the string {cites!r}; wrap it in a list.")
        p = {
            "op": "assert_state",
            "concept": concept,
            "mastery": mastery,
            "source": source,
            "by": by,
            "why": why,
            "at": self._now(at),
            "cites": list(cites),
            "provenance": _check_provenance(list(provenance) if isinstance(provenance, tuple) else provenance),
        }
        self._validate_assertion(p)
        rec = self._write(LEARNER_KIND, p)
        return _assertion_id(rec.position)

    # -- reading --------------------------------------------------------------------------------------------------
    def cite(self, evidence_ids: Iterable[str]) -> tuple[str, ...]:
        """The confidence-eligible ids among `evidence_ids`: journaled evidence with a weight above 0.

        Every id must resolve against the journal first — an unknown id raises UnknownId and nothing is
        counted. Known evidence of weight 0 (an exposure) is dropped: it cannot confirm anything.

        >>> m = LearnerModel()
        >>> a = m.record("x", "exposure", "correct", at=0); b = m.record("x", "recognition", "correct", at=600)
        >>> m.cite([a, b])
        ('e1',)
        """
        self._sync()
        if isinstance(evidence_ids, str):
            raise BadInput(f"cite takes a list of evidence ids, got the string {evidence_ids!r}; wrap it in a list.")
        ids = self._resolve(list(evidence_ids))
        return tuple(dict.fromkeys(e for e in ids if self._evidence[e]["weight"] > 0))

    def evidence(self, evidence_id: str) -> dict[str, Any]:
        """One journaled piece of evidence with what the projection computed for it (weight, observed, …)."""
        self._sync()
        return dict(self._evidence[self._resolve([evidence_id])[0]])

    def trajectory(self, concept: str) -> list[dict[str, Any]]:
        """The concept's evidence in journal order, each with mastery before and after it."""
        self._sync()
        return [dict(v) for v in self._evidence.values() if v["concept"] == concept]

    def concepts(self) -> list[str]:
        """Every concept the journal mentions (evidence, assertion or misconception), sorted."""
        self._sync()
        return sorted(self._concepts)

    def _read_at(self, at: Any) -> float:
        if at is None and self._timestamps is None:
            # Without a wall-clock source, "now" is the latest time the journal has seen.
            times = [c.last_any_at for c in self._concepts.values() if c.last_any_at is not None]
            times += [m.last_checked_at for m in self._misconceptions.values()]
            times += [a["at"] for lst in self._assertions.values() for a in lst]
            return max(times, default=0.0)
        return self._now(at)

    def _misconception_view(self, mc: _Misconception, at: float) -> dict[str, Any]:
        status = self._effective(mc, at)
        policy = status_policy(status)
        # Every status of the vocabulary is handled here by name; there is no catch-all branch to fall into.
        match status:
            case "active":
                teaching = policy.teaching
            case "repairing":
                teaching = f"{policy.teaching} ({mc.repair_successes}/{RESOLVE_AFTER} qualifying linked successes)"
            case "stale":
                days = (at - mc.last_checked_at) / 86400.0
                teaching = (
                    f"{policy.teaching} (a person asked for a re-check)"
                    if mc.status == "stale"
                    else f"{policy.teaching} (last linked evidence {days:.0f} days ago)"
                )
            case "resolved":
                teaching = f"{policy.teaching} ({mc.repair_successes} qualifying linked successes)"
            case _:  # pragma: no cover - status_policy has refused it already
                raise BadInput(f"misconception status {status!r} has no read path.")
        return {
            "id": mc.id,
            "concept": mc.concept,
            "description": mc.description,
            "status": status,
            "recorded_status": mc.status,
            "blocking": policy.blocking,
            "in_context_pack": policy.in_context_pack,
            "teaching": teaching,
            "repair_successes": mc.repair_successes,
            "resolve_after": RESOLVE_AFTER,
            "opened_by": mc.opened_by,
            "opened_at": mc.opened_at,
            "last_checked_at": mc.last_checked_at,
            "history": [dict(h) for h in mc.history],
        }

    def misconceptions(
        self, concept: str | None = None, at: Any = None, status: str | None = None
    ) -> list[dict[str, Any]]:
        """Every misconception (of one concept, and/or one status as of `at`), each with its status in effect.

        Resolved and stale ones are listed too; `blocking` and `teaching` say what each status means.
        A `status` filter outside the vocabulary is refused rather than silently matching nothing.
        """
        self._sync()
        if status is not None:
            status_policy(status)
        t = self._read_at(at)
        views = [
            self._misconception_view(mc, t)
            for mc in self._misconceptions.values()
            if concept is None or mc.concept == concept
        ]
        return [v for v in views if status is None or v["status"] == status]

    def _shown(self, c: _Concept, assertions: list[dict[str, Any]]) -> tuple[str, str]:
        """Which value the read path shows — the derived mastery or an assertion — and why."""
        n = c.evidence
        if not assertions:
            return "derived", f"no assertion; the mastery derived from {n} evidence record(s)"
        top = max(assertions, key=lambda a: (a["rank"], a["position"]))
        who = f"the {top['source']}'s assertion {top['id']}"
        if c.last_evidence_position > top["position"]:
            return "derived", f"evidence recorded after {who} outranks it; the assertion is kept beside"
        if top["source"] == "teacher":
            return "assertion", (
                f"{who} (rank {top['rank']}) is an override with no evidence recorded since; the "
                f"derived mastery ({c.mastery:.3f}) is kept beside it"
            )
        if n == 0:
            return "assertion", f"no evidence yet; showing {who}, unverified"
        return "derived", f"{who} does not outrank {n} evidence record(s); the assertion is kept beside"

    def concept_state(self, concept: str, at: Any = None) -> dict[str, Any]:
        """The concept's state as of time `at` (review timing and staleness depend on it).

        `mastery`, `label`, `confidence` and the counts are derived from the journal's evidence alone, replayed
        from the default state. `assertion` is the highest-ranked, latest assertion (or None), beside it.
        `shown` is "derived" or "assertion", `shown_mastery` its value and `why` the reason: a teacher's
        override is shown until evidence is recorded after it; a learner's assertion only while there is no
        evidence at all.
        """
        self._sync()
        _check_text("concept", concept)
        t = self._read_at(at)
        c = self._concepts.get(concept) or _Concept(concept)
        mcs = [self._misconception_view(mc, t) for mc in self._misconceptions.values() if mc.concept == concept]
        blocking = [m["id"] for m in mcs if m["blocking"]]
        next_review = None if c.stability_days == 0 or c.last_at is None else c.last_at + c.stability_days * 86400.0
        due = next_review is not None and t >= next_review
        if blocking:
            label = "misconception"
        elif c.evidence == 0:
            label = "unknown"
        elif c.mastery < LEARNING_BELOW:
            label = "learning"
        elif due:
            label = "review_due"
        elif c.mastery >= STABLE_FROM and c.stability_days >= STABLE_DAYS and c.transfers >= 1:
            label = "stable"
        else:
            label = "fragile"
        ceiling = confidence_ceiling(c.retrievals)
        confidence = min(ceiling, 1.0 - math.exp(-c.weight_total))
        assertions = self._assertions.get(concept, [])
        shown, why = self._shown(c, assertions)
        top = max(assertions, key=lambda a: (a["rank"], a["position"])) if assertions else None
        assertion = (
            None
            if top is None
            else {
                k: top[k]
                for k in ("id", "mastery", "source", "rank", "by", "why", "at", "cites", "provenance", "position")
            }
        )
        return {
            "concept": concept,
            "mastery": c.mastery,
            "label": label,
            "confidence": confidence,
            "confidence_ceiling": ceiling,
            "stability_days": c.stability_days,
            "next_review_at": next_review,
            "review_due": due,
            "evidence_count": c.evidence,
            "exposures": c.exposures,
            "retrievals": c.retrievals,
            "successes": c.successes,
            "lapses": c.lapses,
            "transfers": c.transfers,
            "blocking_misconceptions": blocking,
            "assertion": assertion,
            "shown": shown,
            "shown_mastery": c.mastery if shown == "derived" else assertion["mastery"],
            "why": why,
            "position": c.position,
        }

    def context_pack(self, n: int = 5, at: Any = None) -> dict[str, Any]:
        """What a tutor's prompt needs: the `n` concepts that most need attention, and every misconception whose
        status enters the pack (active, repairing, stale — never cut by `n`), with rendered lines.

        >>> m = LearnerModel(); _ = m.open_misconception("x", "m1", "adds denominators", by="t", at=0)
        >>> m.context_pack(at=0)["lines"][0]
        'misconception m1 on x [active]: adds denominators — blocking: address it before building on the concept'
        """
        self._sync()
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise BadInput(f"n must be a non-negative int, got {n!r}.")
        t = self._read_at(at)
        states = [self.concept_state(c, t) for c in self._concepts]
        states.sort(key=lambda s: (_LABEL_PRIORITY[s["label"]], s["mastery"], s["concept"]))
        pack_mcs = [m for m in self.misconceptions(at=t) if status_policy(m["status"]).in_context_pack]
        lines = [
            f"misconception {m['id']} on {m['concept']} [{m['status']}]: {m['description']} — {m['teaching']}"
            for m in pack_mcs
        ]
        for s in states[:n]:
            line = f"{s['concept']}: {s['label']}, mastery {s['mastery']:.2f}"
            if s["shown"] == "assertion":
                line += f" (showing asserted {s['shown_mastery']:.2f}: {s['why']})"
            lines.append(line)
        return {"concepts": states[:n], "misconceptions": pack_mcs, "lines": lines}

    # -- identity -------------------------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The whole projection as plain JSON (time-independent): what `fingerprint()` hashes."""
        self._sync()
        return {
            "position": self._seen,
            "concepts": {k: asdict(v) for k, v in sorted(self._concepts.items())},
            "misconceptions": {k: asdict(v) for k, v in sorted(self._misconceptions.items())},
            "assertions": {k: list(v) for k, v in sorted(self._assertions.items())},
            "evidence": dict(self._evidence),
            "dedupe": dict(sorted(self._dedupe.items())),
        }

    def fingerprint(self) -> str:
        """SHA-256 of the canonical snapshot: equal for the live model and `LearnerModel.from_journal(journal)`."""
        return hashlib.sha256(canonical(self.snapshot()).encode("utf-8")).hexdigest()

    def state(self) -> dict[str, Any]:
        """Everything that decides the model's behaviour, as plain JSON (what the conformance check compares).

        The snapshot, with every journal position (and every id built from one) given as the ordinal of the
        model's own record instead — the first evidence or learner record is 0 — so the state does not depend on
        the records of other owners in a shared journal. It holds no wall-clock time beyond the `at` of each record.

        >>> j = Journal(); _ = j.append("note", {"n": 1})   # another owner's record
        >>> m = LearnerModel(j); e = m.record("x", "recognition", "correct", at=0)
        >>> e, list(m.state()["evidence"])
        ('e1', ['e0'])
        """
        self._sync()
        o = self._ordinal

        def pos(p: int) -> int:
            return p if p < 0 else o[p]

        def ref(i: str | None) -> str | None:
            return i if i is None else f"{i[0]}{o[int(i[1:])]}"

        concepts = {
            k: {**asdict(c), "position": pos(c.position), "last_evidence_position": pos(c.last_evidence_position)}
            for k, c in sorted(self._concepts.items())
        }
        misconceptions = {
            k: {
                **asdict(mc),
                "opened_position": pos(mc.opened_position),
                "history": [{**h, "position": pos(h["position"]), "evidence": ref(h["evidence"])} for h in mc.history],
            }
            for k, mc in sorted(self._misconceptions.items())
        }
        assertions = {
            k: [
                {**a, "id": ref(a["id"]), "position": pos(a["position"]), "cites": [ref(e) for e in a["cites"]]}
                for a in v
            ]
            for k, v in sorted(self._assertions.items())
        }
        evidence = {ref(k): {**v, "id": ref(k), "position": pos(v["position"])} for k, v in self._evidence.items()}
        return {
            "records": self._folded,
            "concepts": concepts,
            "misconceptions": misconceptions,
            "assertions": assertions,
            "evidence": evidence,
            "dedupe": {k: ref(v) for k, v in sorted(self._dedupe.items())},
        }


def _repair_refusals(ev: dict[str, Any]) -> list[str]:
    """Why a linked success does not qualify to move a misconception toward resolved (empty list: it does)."""
    reasons = []
    if ev["kind"] not in RETRIEVAL_KINDS:
        reasons.append(f"kind {ev['kind']} is not a retrieval")
    if ev["hints"] > REPAIR_MAX_HINTS:
        reasons.append(f"{ev['hints']} hints > {REPAIR_MAX_HINTS}")
    if ev["evaluator_confidence"] < REPAIR_MIN_CONFIDENCE:
        reasons.append(f"evaluator confidence {ev['evaluator_confidence']} < {REPAIR_MIN_CONFIDENCE}")
    if ev["weight"] < REPAIR_MIN_WEIGHT:
        reasons.append(f"weight {ev['weight']:.3g} < {REPAIR_MIN_WEIGHT}")
    return reasons
