"""Tests of solvi_lab.evidence: the weights, the clamp, spacing, the projection, assertions, resolved ids,
misconception transitions through every status, rebuild == live, and bad input."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvi_lab.errors import BadInput, SolviLabError, UnknownId
from solvi_lab.evidence import (
    KIND_WEIGHTS,
    LEARNING_RATE,
    MISCONCEPTION_POLICY,
    MISCONCEPTION_STATUSES,
    LearnerModel,
    confidence_ceiling,
    evidence_weight,
    hint_factor,
    observed_value,
    spacing_factor,
    status_policy,
)
from solvi_lab.journal import Journal

DAY = 86400.0
GOOD = {"kind": "free_recall", "result": "correct", "hints": 0, "evaluator_confidence": 0.9}  # weight 0.675


def model() -> LearnerModel:
    return LearnerModel()


# -- weights table ------------------------------------------------------------------------------------------------
def test_kind_weights_table_is_exact():
    assert KIND_WEIGHTS == {
        "exposure": 0.0,
        "recognition": 0.25,
        "guided_recall": 0.45,
        "free_recall": 0.75,
        "application": 0.85,
        "transfer": 1.0,
        "self_report": 0.1,
    }


@pytest.mark.parametrize("hints, factor", [(0, 1.0), (1, 0.7), (2, 0.4), (3, 0.1), (7, 0.1)])
def test_hint_factor_drops_to_a_tenth_at_three_hints(hints, factor):
    assert hint_factor(hints) == factor


@pytest.mark.parametrize("kind", list(KIND_WEIGHTS))
def test_weight_is_kind_times_hint_times_confidence_times_spacing(kind):
    assert evidence_weight(kind, 2, 0.5, 1.25) == pytest.approx(KIND_WEIGHTS[kind] * 0.4 * 0.5 * 1.25, abs=1e-12)


def test_recorded_evidence_carries_its_weight_and_factors():
    m = model()
    e = m.record("x", "application", "correct", hints=1, evaluator_confidence=0.8, at=0)
    v = m.evidence(e)
    assert (v["weight"], v["hint_factor"], v["spacing_factor"]) == (pytest.approx(0.85 * 0.7 * 0.8), 0.7, 1.0)
    assert v["mastery_after"] == pytest.approx(LEARNING_RATE * 0.85 * 0.7 * 0.8)


def test_exposure_moves_nothing():
    m = model()
    for i in range(5):
        m.record("x", "exposure", "correct", at=i)
    s = m.concept_state("x", at=10)
    assert (s["mastery"], s["label"], s["exposures"], s["evidence_count"], s["confidence"]) == (
        0.0,
        "unknown",
        5,
        0,
        0.0,
    )


# -- clamp ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "result, score, expected",
    [
        ("correct", None, (1.0, False)),
        ("correct", 0.0, (0.7, True)),
        ("correct", 0.9, (0.9, False)),
        ("partial", None, (0.5, False)),
        ("partial", 1.0, (0.7, True)),
        ("partial", 0.1, (0.3, True)),
        ("incorrect", None, (0.0, False)),
        ("incorrect", 1.0, (0.3, True)),
        ("incorrect", 0.2, (0.2, False)),
    ],
)
def test_score_is_clamped_into_its_results_band(result, score, expected):
    assert observed_value(result, score) == expected


def test_contradictory_score_cannot_invert_the_learning_signal():
    m = model()
    for d in range(3):
        m.record("x", "transfer", "correct", at=d * DAY)
    before = m.concept_state("x", at=3 * DAY)["mastery"]
    e = m.record("x", "transfer", "incorrect", score=1.0, at=3 * DAY)  # an "incorrect" that says 1.0
    after = m.concept_state("x", at=3 * DAY)["mastery"]
    assert m.evidence(e)["observed"] == 0.3 and m.evidence(e)["score_clamped"] is True
    assert after < before
    assert after == pytest.approx(before + LEARNING_RATE * 1.0 * (0.3 - before))
    m2 = model()
    e2 = m2.record("y", "free_recall", "correct", score=0.0, at=0)  # a "correct" that says 0
    assert m2.evidence(e2)["observed"] == 0.7 and m2.concept_state("y", at=0)["mastery"] > 0


# -- spacing --------------------------------------------------------------------------------------------------------
def test_spacing_factor_values():
    assert spacing_factor("correct", None) == 1.0
    assert spacing_factor("correct", 7 * DAY) == 1.25
    assert spacing_factor("correct", 299.0) == 0.75
    assert spacing_factor("correct", 300.0) == 1.0
    assert spacing_factor("incorrect", 60.0) == 1.0
    assert spacing_factor("incorrect", 30 * DAY) == 1.0
    assert spacing_factor("partial", 30 * DAY) == 1.0


def test_spacing_is_measured_from_the_last_non_exposure_evidence():
    m = model()
    m.record("x", "free_recall", "correct", at=0)
    m.record("x", "exposure", "correct", at=7 * DAY)  # being shown it again does not reset the gap
    spaced = m.record("x", "free_recall", "correct", at=7 * DAY + 10)
    massed = m.record("x", "free_recall", "correct", at=7 * DAY + 70)
    hour = m.record("x", "free_recall", "correct", at=7 * DAY + 3670)
    assert [m.evidence(e)["spacing_factor"] for e in (spaced, massed, hour)] == [1.25, 0.75, 1.0]
    assert m.evidence(spaced)["weight"] == pytest.approx(0.9375)
    assert m.evidence(massed)["weight"] == pytest.approx(0.5625)


# -- the projection -------------------------------------------------------------------------------------------------
def test_mastery_update_is_exact_and_labels_follow():
    m = model()
    m.record("x", "free_recall", "correct", at=0)
    s = m.concept_state("x", at=0)
    assert s["mastery"] == pytest.approx(0.2625) and s["label"] == "learning"
    m.record("x", "transfer", "correct", at=DAY)
    expected = 0.2625 + 0.35 * 1.0 * (1 - 0.2625)
    s = m.concept_state("x", at=DAY)
    assert s["mastery"] == pytest.approx(expected) and s["label"] == "fragile"
    assert s["stability_days"] == pytest.approx(2.0)  # 1 day after the first success, × (1 + 1.0)
    assert s["next_review_at"] == pytest.approx(3 * DAY)
    assert m.concept_state("x", at=3 * DAY)["label"] == "review_due"
    for d in (10, 25, 50):
        m.record("x", "transfer", "correct", at=d * DAY)
    s = m.concept_state("x", at=50 * DAY)
    assert s["label"] == "stable" and s["mastery"] >= 0.8 and s["stability_days"] >= 7
    m.record("x", "free_recall", "incorrect", at=51 * DAY)
    s = m.concept_state("x", at=51 * DAY)
    assert s["lapses"] == 1 and s["successes"] == 5


def test_confidence_ceiling_counts_journaled_retrievals_only():
    assert [confidence_ceiling(n) for n in (0, 1, 2, 3, 10)] == [0.35, 0.6, 0.6, 0.9, 0.9]
    m = model()
    m.record("x", "recognition", "correct", at=0)
    m.record("x", "self_report", "correct", at=1000)
    s = m.concept_state("x", at=1000)
    assert (s["retrievals"], s["confidence_ceiling"]) == (0, 0.35)
    assert s["confidence"] == pytest.approx(min(0.35, 1 - math.exp(-(0.25 + 0.1))))
    m.record("x", "guided_recall", "correct", at=2000)
    assert m.concept_state("x", at=2000)["confidence_ceiling"] == 0.6


def test_unknown_concept_reads_as_the_default_state():
    s = model().concept_state("never-seen", at=0)
    assert (s["mastery"], s["label"], s["assertion"], s["shown"], s["evidence_count"]) == (
        0.0,
        "unknown",
        None,
        "derived",
        0,
    )


def test_time_may_be_a_datetime_and_must_not_go_backwards():
    m = model()
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    m.record("x", "free_recall", "correct", at=t0)
    e = m.record("x", "free_recall", "correct", at=t0 + timedelta(days=8))
    assert m.evidence(e)["spacing_factor"] == 1.25
    with pytest.raises(BadInput, match="earlier than the last evidence"):
        m.record("x", "free_recall", "correct", at=t0)
    naive = datetime(2026, 2, 1)  # naive datetimes are read as UTC
    assert (
        m.evidence(m.record("x", "recognition", "correct", at=naive))["at"]
        == datetime(2026, 2, 1, tzinfo=UTC).timestamp()
    )


# -- assertions: the override path and what the projection does with it --------------------------------------------
def test_learner_assertion_is_no_prior_and_is_shown_only_without_evidence():
    m, bare = model(), model()
    a = m.assert_state("x", 0.95, by="learner:ben", source="learner", why="I know this", at=0)
    assert a == "a0"
    s = m.concept_state("x", at=0)
    assert (s["mastery"], s["shown"], s["shown_mastery"]) == (0.0, "assertion", 0.95)
    assert "no evidence yet" in s["why"]
    for d in (1, 2, 3):
        m.record("x", "free_recall", "incorrect", evaluator_confidence=0.9, at=d * DAY)
        bare.record("x", "free_recall", "incorrect", evaluator_confidence=0.9, at=d * DAY)
        s = m.concept_state("x", at=d * DAY)
        assert (s["shown"], s["shown_mastery"], s["mastery"]) == ("derived", 0.0, 0.0)
    assert s["mastery"] == bare.concept_state("x", at=3 * DAY)["mastery"]
    assert s["assertion"]["mastery"] == 0.95 and s["assertion"]["source"] == "learner"
    assert s["assertion"]["rank"] == 1 and s["assertion"]["by"] == "learner:ben"
    assert "outranks it" in s["why"]


def test_learner_assertion_after_evidence_is_not_shown():
    m = model()
    m.record("x", "free_recall", "incorrect", at=0)
    m.assert_state("x", 0.9, by="learner:ben", why="I know it now", at=1)
    s = m.concept_state("x", at=1)
    assert (s["shown"], s["shown_mastery"], s["assertion"]["mastery"]) == ("derived", 0.0, 0.9)
    assert "does not outrank 1 evidence" in s["why"]


def test_teacher_override_is_shown_until_evidence_after_it():
    m = model()
    m.record("x", "free_recall", "correct", at=0)
    m.assert_state("x", 0.3, by="learner:ben", why="unsure", at=1)
    m.assert_state("x", 0.9, by="teacher:lee", source="teacher", why="did it on the board", at=2)
    s = m.concept_state("x", at=2)
    assert (s["shown"], s["shown_mastery"], s["assertion"]["source"], s["assertion"]["rank"]) == (
        "assertion",
        0.9,
        "teacher",
        2,
    )
    assert s["mastery"] == pytest.approx(0.2625)
    m.record("x", "free_recall", "incorrect", at=3)
    s = m.concept_state("x", at=3)
    assert s["shown"] == "derived" and s["shown_mastery"] == s["mastery"] < 0.2625
    assert s["assertion"]["mastery"] == 0.9  # still beside it


def test_assertion_is_journaled_with_its_provenance():
    m = model()
    e = m.record("x", "free_recall", "correct", at=0)
    aid = m.assert_state(
        "x",
        0.8,
        by="teacher:lee",
        source="teacher",
        why="oral exam",
        at=1,
        cites=[e],
        provenance=["oral exam 3 March", "e999 in the old system"],
    )
    rec = m.journal[int(aid[1:])]
    assert rec.kind == "learner" and rec.payload["op"] == "assert_state"
    assert rec.payload["cites"] == [e] and rec.payload["provenance"] == ["oral exam 3 March", "e999 in the old system"]
    assert m.concept_state("x", at=1)["assertion"]["cites"] == [e]


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"mastery": 1.5}, BadInput),
        ({"source": "admin"}, BadInput),
        ({"by": ""}, BadInput),
        ({"why": None}, BadInput),
        ({"cites": "e0"}, BadInput),
        ({"cites": ["e42"]}, UnknownId),
        ({"provenance": "note"}, BadInput),
    ],
)
def test_bad_assertions_are_refused_and_not_journaled(kwargs, error):
    m = model()
    m.record("x", "recognition", "correct", at=0)
    args = {"mastery": 0.5, "by": "ana", "source": "learner", "why": "because", "at": 1} | kwargs
    mastery = args.pop("mastery")
    with pytest.raises(error):
        m.assert_state("x", mastery, **args)
    assert len(m.journal) == 1


def test_assertion_may_not_cite_evidence_on_another_concept():
    m = model()
    e = m.record("y", "free_recall", "correct", at=0)
    with pytest.raises(BadInput, match="about 'y', not 'x'"):
        m.assert_state("x", 0.9, by="ana", why="see", at=1, cites=[e])


# -- resolved ids: confidence gate and dedup are separate from provenance ------------------------------------------
def test_fabricated_evidence_id_is_refused_and_moves_nothing():
    m = model()
    m.record("x", "recognition", "correct", at=0)  # e0
    ceiling, confidence = m.concept_state("x", at=0)["confidence_ceiling"], m.concept_state("x", at=0)["confidence"]
    with pytest.raises(UnknownId, match="'e1' does not resolve against the journal .the journal has only 1 records"):
        m.cite(["e1"])
    with pytest.raises(UnknownId):
        m.assert_state("x", 0.95, by="ana", why="see e1", at=0, cites=["e1"])
    assert len(m.journal) == 1
    assert (m.concept_state("x", at=0)["confidence_ceiling"], m.concept_state("x", at=0)["confidence"]) == (
        ceiling,
        confidence,
    )
    # the real record that takes the guessed id is counted, not suppressed
    real = m.record("x", "free_recall", "incorrect", at=DAY)
    assert real == "e1"
    assert m.concept_state("x", at=DAY)["evidence_count"] == 2
    assert m.cite([real]) == ("e1",)


def test_cite_resolves_every_id_and_drops_weightless_evidence():
    m = model()
    e0 = m.record("x", "exposure", "correct", at=0)
    e1 = m.record("x", "recognition", "correct", at=1)
    m.open_misconception("x", "m1", "d", by="t", at=2)  # position 2 is not evidence
    assert m.cite([e0, e1, e1]) == ("e1",)
    with pytest.raises(UnknownId, match="position 2 holds a 'learner' record, not evidence"):
        m.cite([e1, "e2"])
    with pytest.raises(UnknownId):
        m.cite(["ev-1"])
    with pytest.raises(BadInput):
        m.cite("e1")


def test_provenance_is_free_form_and_gates_nothing():
    m = model()
    e = m.record("x", "recognition", "correct", at=0, provenance=["e77", "quiz 4, question 2"])
    assert m.evidence(e)["provenance"] == ["e77", "quiz 4, question 2"]
    assert m.concept_state("x", at=0)["confidence_ceiling"] == 0.35
    m.record("x", "recognition", "correct", at=600, provenance=[e])  # naming an id in provenance: no dedup
    assert m.concept_state("x", at=600)["evidence_count"] == 2


def test_dedupe_key_makes_a_retry_idempotent_and_nothing_else_dedups():
    m = model()
    e = m.record("x", "free_recall", "correct", at=0, dedupe_key="quiz4-q2")
    assert m.record("x", "free_recall", "correct", at=50, dedupe_key="quiz4-q2") == e
    assert len(m.journal) == 1 and m.concept_state("x", at=50)["evidence_count"] == 1
    with pytest.raises(BadInput, match="result differ"):
        m.record("x", "free_recall", "incorrect", at=60, dedupe_key="quiz4-q2")
    assert m.record("x", "free_recall", "correct", at=70, dedupe_key="quiz4-q3") == "e1"
    assert m.record("x", "free_recall", "correct", at=80) == "e2"  # no key, never deduplicated
    assert m.concept_state("x", at=80)["evidence_count"] == 3


# -- misconceptions: every status, every transition, every read path ----------------------------------------------
def opened(at: float = 0) -> LearnerModel:
    m = model()
    m.open_misconception("neg", "m1", "thinks -(-a) = -a", by="tutor", at=at)
    return m


def status(m: LearnerModel, at: float) -> str:
    return m.misconceptions("neg", at=at)[0]["status"]


def test_statuses_and_policy_cover_the_vocabulary():
    assert MISCONCEPTION_STATUSES == ("active", "repairing", "stale", "resolved")
    assert set(MISCONCEPTION_POLICY) == set(MISCONCEPTION_STATUSES)
    assert {s: status_policy(s).blocking for s in MISCONCEPTION_STATUSES} == {
        "active": True,
        "repairing": True,
        "stale": True,
        "resolved": False,
    }
    assert {s: status_policy(s).in_context_pack for s in MISCONCEPTION_STATUSES} == {
        "active": True,
        "repairing": True,
        "stale": True,
        "resolved": False,
    }


def test_active_to_repairing_to_resolved_and_failure_reinstates():
    m = opened()
    assert status(m, 0) == "active"
    m.record("neg", at=DAY, misconception_id="m1", **GOOD)
    assert status(m, DAY) == "repairing" and m.misconceptions("neg", at=DAY)[0]["repair_successes"] == 1
    m.record("neg", at=2 * DAY, misconception_id="m1", **GOOD)
    assert status(m, 2 * DAY) == "repairing"
    m.record("neg", "free_recall", "incorrect", at=3 * DAY, misconception_id="m1")
    assert status(m, 3 * DAY) == "active" and m.misconceptions("neg", at=3 * DAY)[0]["repair_successes"] == 0
    for d in (4, 5, 6):
        m.record("neg", at=d * DAY, misconception_id="m1", **GOOD)
    assert status(m, 6 * DAY) == "resolved"
    assert [h["to"] for h in m.misconceptions("neg", at=6 * DAY)[0]["history"]] == [
        "active",
        "repairing",
        "repairing",
        "active",
        "repairing",
        "repairing",
        "resolved",
    ]
    m.record("neg", "guided_recall", "incorrect", hints=3, at=7 * DAY, misconception_id="m1")
    assert status(m, 7 * DAY) == "active"  # a later linked failure reinstates even a resolved one


@pytest.mark.parametrize(
    "evidence, reason",
    [
        ({"kind": "recognition"}, "not a retrieval"),
        ({"kind": "self_report"}, "not a retrieval"),
        ({"hints": 2}, "2 hints > 1"),
        ({"evaluator_confidence": 0.6}, "evaluator confidence 0.6 < 0.7"),
        ({"kind": "guided_recall", "hints": 1, "evaluator_confidence": 0.7}, "weight 0.221 < 0.25"),
    ],
)
def test_non_qualifying_linked_success_changes_nothing(evidence, reason):
    m = opened()
    m.record("neg", at=DAY, misconception_id="m1", **(GOOD | evidence))
    mc = m.misconceptions("neg", at=DAY)[0]
    assert mc["status"] == "active" and reason in mc["history"][-1]["cause"]


def test_unlinked_success_and_linked_partial_change_nothing():
    m = opened()
    for d in (1, 2, 3):
        m.record("neg", at=d * DAY, **GOOD)  # correct on the concept, not linked
    m.record("neg", "free_recall", "partial", at=4 * DAY, misconception_id="m1")
    assert status(m, 4 * DAY) == "active"
    assert m.misconceptions("neg", at=4 * DAY)[0]["history"][-1]["cause"] == "partial result: no change"


def test_stale_by_time_and_by_a_person_and_the_way_back():
    m = opened()
    assert status(m, 29 * DAY) == "active" and status(m, 30 * DAY) == "stale"
    m.record("neg", at=31 * DAY, misconception_id="m1", **GOOD)  # a re-check: repair restarts at 1
    mc = m.misconceptions("neg", at=31 * DAY)[0]
    assert (mc["status"], mc["repair_successes"], mc["history"][-1]["from"]) == ("repairing", 1, "stale")
    assert status(m, 61 * DAY) == "stale"  # repairing also goes stale without checks
    m2 = opened()
    for d in (1, 2, 3):
        m2.record("neg", at=d * DAY, misconception_id="m1", **GOOD)
    assert status(m2, 400 * DAY) == "resolved"  # resolved never goes stale by time
    assert (
        m2.set_misconception_status("m1", "stale", by="teacher:lee", why="new term, check again", at=400 * DAY)
        == "stale"
    )
    mc = m2.misconceptions("neg", at=400 * DAY)[0]
    assert mc["recorded_status"] == "stale" and "a person asked for a re-check" in mc["teaching"]
    m2.record("neg", "free_recall", "incorrect", at=401 * DAY, misconception_id="m1")
    assert status(m2, 401 * DAY) == "active"
    assert m2.set_misconception_status("m1", "active", by="teacher:lee", why="saw it again", at=402 * DAY) == "active"


def reach(target: str) -> tuple[LearnerModel, float]:
    """A model whose misconception m1 is in `target` status at the returned time."""
    m = opened()
    if target == "active":
        return m, 0.0
    if target == "stale":
        return m, 40 * DAY
    m.record("neg", at=DAY, misconception_id="m1", **GOOD)
    if target == "repairing":
        return m, DAY
    for d in (2, 3):
        m.record("neg", at=d * DAY, misconception_id="m1", **GOOD)
    return m, 3 * DAY


@pytest.mark.parametrize("target", MISCONCEPTION_STATUSES)
def test_every_status_is_handled_by_every_read_path(target):
    m, t = reach(target)
    blocking = target != "resolved"
    mc = m.misconceptions(at=t)[0]
    assert mc["status"] == target and mc["blocking"] is blocking
    assert [x["id"] for x in m.misconceptions(at=t, status=target)] == ["m1"]  # listed under its own status
    s = m.concept_state("neg", at=t)
    assert (s["label"] == "misconception") is blocking
    assert s["blocking_misconceptions"] == (["m1"] if blocking else [])
    pack = m.context_pack(n=0, at=t)  # n=0: misconceptions are never cut by the concept limit
    assert [x["id"] for x in pack["misconceptions"]] == (["m1"] if blocking else [])
    assert any(f"[{target}]" in line for line in pack["lines"]) is blocking


def test_unknown_or_evidence_only_statuses_are_refused_and_not_stored():
    m = opened()
    for bad in ("on_hold", "Active", "", None, 3):
        with pytest.raises(BadInput, match="is not one of active, repairing, stale, resolved"):
            m.set_misconception_status("m1", bad, by="ana", why="x", at=1)
    for evidence_only in ("repairing", "resolved"):
        with pytest.raises(BadInput, match="only linked evidence moves it"):
            m.set_misconception_status("m1", evidence_only, by="teacher", why="x", at=1)
    assert len(m.journal) == 1 and status(m, 1) == "active"
    with pytest.raises(BadInput):
        m.misconceptions(status="on_hold")
    with pytest.raises(UnknownId):
        m.set_misconception_status("m9", "stale", by="teacher", why="x", at=1)


def test_misconception_links_are_resolved():
    m = opened()
    with pytest.raises(UnknownId, match="'m9' has not been opened"):
        m.record("neg", at=1, misconception_id="m9", **GOOD)
    with pytest.raises(BadInput, match="belongs to concept 'neg', not 'pos'"):
        m.record("pos", at=1, misconception_id="m1", **GOOD)
    with pytest.raises(BadInput, match="already open"):
        m.open_misconception("pos", "m1", "x", by="t", at=1)
    assert len(m.journal) == 1


def test_context_pack_orders_by_what_needs_attention():
    m = opened()
    m.record("a", "transfer", "correct", at=0)
    m.record("a", "transfer", "correct", at=DAY)  # mastery 0.5775, review after 2 days
    m.record("b", "exposure", "correct", at=0)
    for d in (0, 10, 25, 50):
        m.record("c", "transfer", "correct", at=d * DAY)
    pack = m.context_pack(n=3, at=50 * DAY)
    assert [s["concept"] for s in pack["concepts"]] == ["neg", "a", "b"]
    assert [s["label"] for s in pack["concepts"]] == ["misconception", "review_due", "unknown"]
    assert m.concept_state("c", at=50 * DAY)["label"] == "stable"
    with pytest.raises(BadInput):
        m.context_pack(n=-1)


# -- rebuild == live ------------------------------------------------------------------------------------------------
def mixed(m: LearnerModel) -> None:
    m.open_misconception("neg", "m1", "d", by="tutor", at=0)
    m.assert_state("neg", 0.95, by="teacher:lee", source="teacher", why="override", at=1)
    m.record("neg", at=DAY, misconception_id="m1", **GOOD)
    m.record("neg", "free_recall", "incorrect", score=1.0, at=2 * DAY, misconception_id="m1")
    m.record("pos", "exposure", "correct", at=2 * DAY, dedupe_key="k")
    m.set_misconception_status("m1", "stale", by="teacher:lee", why="check", at=3 * DAY)


def test_rebuild_equals_live_and_starts_from_default():
    m = model()
    mixed(m)
    r = LearnerModel.from_journal(m.journal)
    assert r.fingerprint() == m.fingerprint() and r.snapshot() == m.snapshot()
    assert r.concept_state("neg", at=3 * DAY) == m.concept_state("neg", at=3 * DAY)
    assert r.concept_state("neg", at=3 * DAY)["mastery"] < 0.95  # the override is not a prior, not even on rebuild


def test_rebuild_from_a_file_journal_and_from_a_store_like_object(tmp_path):
    path = tmp_path / "learner.jsonl"
    j = Journal(path)
    m = LearnerModel(j)
    mixed(m)
    fp = m.fingerprint()
    j.close()

    class StoreLike:
        journal = Journal(path)

    assert LearnerModel(store=StoreLike()).fingerprint() == fp
    StoreLike.journal.close()


def test_cache_catches_up_with_records_appended_by_another_writer():
    j = Journal()
    reader, writer = LearnerModel(j), LearnerModel(j)
    reader.concept_state("x", at=0)
    j.append("note", {"op": "add"})  # a record kind the model does not own is skipped
    writer.record("x", "transfer", "correct", at=1)
    assert reader.concept_state("x", at=1)["mastery"] == pytest.approx(0.35)
    assert reader.fingerprint() == writer.fingerprint() == LearnerModel.from_journal(j).fingerprint()


events = st.lists(
    st.tuples(
        st.sampled_from(["a", "b"]),
        st.sampled_from(list(KIND_WEIGHTS)),
        st.sampled_from(["correct", "partial", "incorrect"]),
        st.integers(0, 4),
        st.floats(0, 1),
        st.one_of(st.none(), st.floats(0, 1)),
        st.sampled_from([10.0, 600.0, 9 * DAY]),
        st.booleans(),
        st.sampled_from([None, "assert", "stale"]),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(events)
def test_live_equals_rebuild_after_every_step(steps):
    m = model()
    m.open_misconception("a", "m", "d", by="t", at=0)
    t = 0.0
    for concept, kind, result, hints, conf, score, gap, link, action in steps:
        t += gap
        m.record(
            concept,
            kind,
            result,
            hints=hints,
            evaluator_confidence=conf,
            score=score,
            at=t,
            misconception_id="m" if link and concept == "a" else None,
        )
        if action == "assert":
            m.assert_state(concept, 0.99, by="teacher", source="teacher", why="override", at=t)
        elif action == "stale":
            m.set_misconception_status("m", "stale", by="teacher", why="check", at=t)
        assert 0.0 <= m.concept_state(concept, at=t)["mastery"] <= 1.0
        assert LearnerModel.from_journal(m.journal).fingerprint() == m.fingerprint()


# -- bad input ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"kind": "lecture"}, "evidence kind 'lecture' is not one of"),
        ({"result": "good"}, "result 'good' is not one"),
        ({"score": 1.2}, "score must be a number between 0 and 1"),
        ({"score": float("nan")}, "score must be"),
        ({"hints": -1}, "hints must be"),
        ({"hints": True}, "hints must be"),
        ({"evaluator_confidence": 1.5}, "evaluator_confidence must be"),
        ({"evaluator": ""}, "evaluator must be"),
        ({"at": "yesterday"}, "at must be a datetime"),
        ({"at": float("inf")}, "at must be"),
        ({"concept": " "}, "concept must be"),
        ({"provenance": "e1"}, "provenance must be a list"),
        ({"dedupe_key": 3}, "dedupe_key must be"),
    ],
)
def test_bad_evidence_is_refused_with_a_clear_error(kwargs, match):
    m = model()
    args = {"concept": "x", "kind": "free_recall", "result": "correct", "at": 0} | kwargs
    with pytest.raises(BadInput, match=match):
        m.record(args.pop("concept"), args.pop("kind"), args.pop("result"), **args)
    assert len(m.journal) == 0


def test_construction_and_clock_errors():
    with pytest.raises(BadInput, match="needs a Journal"):
        LearnerModel("learner.jsonl")
    with pytest.raises(BadInput, match="no clock; pass at="):
        model().record("x", "recognition", "correct")
    m = LearnerModel(timestamps=lambda: 123.0)
    assert m.evidence(m.record("x", "recognition", "correct"))["at"] == 123.0
    assert issubclass(BadInput, SolviLabError) and issubclass(UnknownId, SolviLabError)


@pytest.mark.parametrize(
    "kind, payload, match",
    [
        (
            "learner",
            {
                "op": "misconception_status",
                "misconception_id": "m1",
                "status": "on_hold",
                "by": "x",
                "why": "y",
                "at": 0,
            },
            "record 0 .kind 'learner'. cannot be replayed.*on_hold",
        ),
    ],
)
def test_hand_written_records_are_refused_on_replay(kind, payload, match):
    j = Journal()
    j.append(kind, payload)
    with pytest.raises(BadInput, match=match):
        LearnerModel.from_journal(j)


@pytest.mark.parametrize(
    "kind, payload, match",
    [
        ("evidence", {"concept": "x", "kind": "lecture"}, r"an evidence record: field '\w+' is missing"),
        ("learner", {"op": "rename"}, "op 'rename' is not one of"),
    ],
)
def test_foreign_payloads_are_refused_at_write_time(kind, payload, match):
    j = Journal()
    with pytest.raises(BadInput, match=match):
        j.append(kind, payload)
    assert len(j) == 0
