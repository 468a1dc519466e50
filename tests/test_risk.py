"""Risk policies and the learned gate: exact expectations, negative cases, replay == live."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvi_lab.errors import BadInput
from solvi_lab.journal import Journal
from solvi_lab.prediction import Prediction
from solvi_lab.risk import DECISION_KIND, GATE_KIND, LearnedGate, Protect, RiskBudget, RiskDecision

ACCEPT = Prediction("accept", risk=0.0, support=4, reason="arrived 4 times")
UNKNOWN = Prediction("unknown", reason="never tried")


def refuse(risk: float = 0.3, support: int = 5, hard: bool = False) -> Prediction:
    return Prediction("refuse", risk=risk, support=support, hard=hard, reason="died there")


# -- Protect -----------------------------------------------------------------------------------------------------


def test_protect_keeps_the_verdict():
    p = Protect()
    assert p.decide("descend", ACCEPT).choice == "take"
    assert p.decide("descend", UNKNOWN).choice == "ask_s2"
    assert p.decide("descend", refuse()).choice == "avoid"


def test_protect_never_trades_a_refusal_for_gain():
    d = Protect().decide("descend", refuse(risk=0.01, support=100), gain=1e9)
    assert d.choice == "avoid"
    assert d.budget_left is None and d.gain == 1e9 and d.risk == 0.01 and d.support == 100


def test_every_decision_carries_rationale_and_estimate():
    rb = RiskBudget()
    for p in (ACCEPT, UNKNOWN, refuse(), refuse(hard=True), refuse(support=1), refuse(risk=0.9), refuse(risk=0.2)):
        for policy in (Protect(), rb):
            d = policy.decide("descend", p, gain=0.3)
            assert isinstance(d, RiskDecision)
            assert d.choice in ("take", "avoid", "ask_s2")
            assert d.rationale and d.action == "descend" and d.verdict == p.verdict
            assert (d.risk, d.support, d.hard) == (p.risk, p.support, p.hard)


# -- RiskBudget --------------------------------------------------------------------------------------------------


def test_risk_budget_accept_and_unknown():
    rb = RiskBudget()
    d = rb.decide("descend", ACCEPT, gain=0.0)
    assert (d.choice, d.budget_left) == ("take", 1.0)
    assert rb.decide("descend", UNKNOWN, gain=5.0).choice == "ask_s2"
    assert rb.budget_left == 1.0  # neither is charged


def test_risk_budget_takes_justified_refusal_and_charges_it():
    rb = RiskBudget(max_risk_per_episode=1.0, min_gain_ratio=1.0, min_support=3)
    d = rb.decide("descend", refuse(risk=0.3), gain=0.3)  # gain == ratio × risk: enough
    assert d.choice == "take"
    assert d.budget_left == pytest.approx(0.7)
    assert "charged" in d.rationale


def test_risk_budget_gain_ratio():
    rb = RiskBudget(min_gain_ratio=2.0)
    d = rb.decide("descend", refuse(risk=0.3), gain=0.5)  # needs 0.6
    assert d.choice == "avoid" and "does not justify" in d.rationale
    assert rb.decide("descend", refuse(risk=0.3), gain=0.6).choice == "take"
    assert rb.decide("descend", refuse(risk=0.0), gain=0.0).choice == "take"  # 0 ≥ 2 × 0: the spec's rule
    assert rb.decide("descend", refuse(risk=0.3), gain=-0.1).choice == "avoid"


@pytest.mark.parametrize("gain", [0.0, 0.3, 1e6, 1e300])
@pytest.mark.parametrize("support", [0, 1, 3, 1000])
def test_hard_is_never_taken_in_any_mode(gain, support):
    for policy in (Protect(), RiskBudget(), RiskBudget(1e9, 1e-9, 0)):
        d = policy.decide("jump", refuse(risk=0.0, support=support, hard=True), gain=gain)
        assert d.choice == "avoid", (policy, d)
        assert d.hard


def test_hard_refusal_with_low_support_is_avoided_not_sent_to_s2():
    d = RiskBudget(min_support=3).decide("jump", refuse(support=1, hard=True), gain=10.0)
    assert d.choice == "avoid" and "hard" in d.rationale


def test_min_support_sends_thin_refusal_to_s2():
    rb = RiskBudget(min_support=3)
    d = rb.decide("descend", refuse(risk=0.1, support=2), gain=10.0)
    assert d.choice == "ask_s2" and "2 case(s)" in d.rationale
    assert rb.budget_left == 1.0  # not charged
    assert rb.decide("descend", refuse(risk=0.1, support=3), gain=10.0).choice == "take"


def test_budget_exhaustion_and_new_episode():
    rb = RiskBudget(max_risk_per_episode=1.0)
    choices = [rb.decide(f"a{i}", refuse(risk=0.3), gain=1.0).choice for i in range(4)]
    assert choices == ["take", "take", "take", "avoid"]
    assert rb.budget_left == pytest.approx(0.1)
    assert rb.decide("small", refuse(risk=0.1), gain=1.0).choice == "take"  # exactly what is left still fits
    assert rb.budget_left == pytest.approx(0.0)
    rb.new_episode()
    assert rb.budget_left == 1.0
    assert rb.decide("a0", refuse(risk=0.3), gain=1.0).choice == "take"


def test_zero_budget_takes_no_refusal():
    rb = RiskBudget(max_risk_per_episode=0)
    assert rb.decide("descend", refuse(risk=0.05), gain=10.0).choice == "avoid"
    assert rb.decide("descend", ACCEPT).choice == "take"


def test_charged_key_is_rechecked_every_time():
    rb = RiskBudget(max_risk_per_episode=1.0)
    assert rb.decide("descend", refuse(risk=0.4), gain=0.5).choice == "take"
    # the same key again: no free pass past any check
    assert rb.decide("descend", refuse(risk=0.4, hard=True), gain=0.5).choice == "avoid"
    assert rb.decide("descend", refuse(risk=0.4, support=1), gain=0.5).choice == "ask_s2"
    assert rb.decide("descend", refuse(risk=0.4), gain=0.1).choice == "avoid"
    assert rb.decide("descend", refuse(risk=0.4), gain=0.5).choice == "take"  # charged again: 0.2 left
    d = rb.decide("descend", refuse(risk=0.4), gain=0.5)
    assert d.choice == "avoid" and "already charged 0.80" in d.rationale
    assert rb.budget_left == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"max_risk_per_episode": -0.1}, "max_risk_per_episode"),
        ({"max_risk_per_episode": float("inf")}, "max_risk_per_episode"),
        ({"max_risk_per_episode": "1"}, "max_risk_per_episode"),
        ({"min_gain_ratio": -1.0}, "min_gain_ratio"),
        ({"min_support": 2.5}, "min_support"),
        ({"min_support": True}, "min_support"),
        ({"min_support": -1}, "min_support"),
        ({"journal": object()}, "journal"),
    ],
)
def test_risk_budget_bad_parameters(kwargs, needle):
    with pytest.raises(BadInput, match=needle):
        RiskBudget(**kwargs)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("", ACCEPT, 0.0), "action"),
        ((3, ACCEPT, 0.0), "action"),
        (("descend", "refuse", 0.0), "Prediction"),
        (("descend", ACCEPT, float("nan")), "gain"),
        (("descend", ACCEPT, "0.3"), "gain"),
        (("descend", ACCEPT, True), "gain"),
    ],
)
def test_decide_bad_input(args, needle):
    for policy in (Protect(), RiskBudget()):
        with pytest.raises(BadInput, match=needle):
            policy.decide(*args)


def test_decisions_are_journaled():
    j = Journal()
    rb = RiskBudget(journal=j)
    rb.decide("descend", refuse(risk=0.3), gain=0.3)
    rb.new_episode()
    Protect(journal=j).decide("descend", UNKNOWN)
    recs = list(j.records(kind=DECISION_KIND))
    assert [(r.payload["policy"], r.payload["choice"], r.payload["episode"]) for r in recs] == [
        ("risk_budget", "take", 0),
        ("protect", "ask_s2", 0),
    ]
    assert recs[0].payload["budget_left"] == pytest.approx(0.7) and recs[0].payload["rationale"]
    assert j.verify()


# -- LearnedGate -------------------------------------------------------------------------------------------------


def test_gate_fresh_accepts_then_bound():
    g = LearnedGate("depth", expiry=10)
    assert g.predict(1, 3).verdict == "accept"  # nothing learned: nothing refused
    for lv in (1, 2, 3):
        g.arrived(1, lv)
    g.arrived(1, 4, failed=True)
    g.end_episode()
    assert g.bound(1) == 4
    assert [g.predict(1, lv).verdict for lv in range(1, 7)] == ["accept"] * 3 + ["refuse"] * 3
    p = g.predict(1, 5)
    assert (p.risk, p.support, p.hard) == (1.0, 1, False)  # pooled from the bound: 1 failure in 1 arrival
    assert (g.predict(2, 4).verdict, g.predict(2, 4).support) == ("accept", 0)  # contexts do not share evidence


def test_failed_counts_as_a_failed_arrival():
    a, b = LearnedGate("x"), LearnedGate("x")
    a.failed(1, 4)
    b.arrived(1, 4, failed=True)
    assert a.counts(1) == b.counts(1) == {4: (1, 1)}
    assert a.predict(1, 4) == b.predict(1, 4)


def test_expiry_window():
    g = LearnedGate("depth", expiry=3)
    g.failed(1, 2)
    g.end_episode()
    for _ in range(2):
        g.arrived(1, 1)
        g.end_episode()
    assert g.predict(1, 2).verdict == "refuse"  # still in the last 3 ended episodes
    g.arrived(1, 1)
    g.end_episode()
    assert g.bound(1) is None and g.predict(1, 2).verdict == "accept"  # expired after 3 more episodes
    assert g.counts(1) == {1: (3, 0)}


def test_no_expiry_never_forgets():
    g = LearnedGate("depth", expiry=None)
    g.failed(1, 2)
    for _ in range(500):
        g.end_episode()
    assert g.predict(1, 2).verdict == "refuse"


def test_failure_in_progress_is_read_before_the_episode_ends():
    g = LearnedGate("depth", expiry=1)
    g.failed(1, 3)
    assert g.predict(1, 3).verdict == "refuse"


def test_floor_is_never_refused():
    g = LearnedGate("depth", expiry=10, floor=lambda hero: hero + 1)
    g.failed(1, 1)  # a failure below the floor still bounds the levels above it
    assert g.predict(1, 1).verdict == "accept" and g.predict(1, 2).verdict == "accept"
    assert g.predict(1, 3).verdict == "refuse"
    assert g.predict(5, 6).verdict == "accept"  # floor 6 for context 5, whatever is recorded
    g2 = LearnedGate("depth", floor=lambda hero: hero + 1)
    assert g2.predict(3, 4).verdict == "accept" and "floor" in g2.predict(3, 4).reason


def test_floor_must_return_an_int():
    g = LearnedGate("depth", floor=lambda c: "two")
    with pytest.raises(BadInput, match="floor"):
        g.predict(1, 3)


def test_reopened_by_evidence():
    g = LearnedGate("depth", expiry=None, reopen_support=5, reopen_rate=0.1)
    g.failed(1, 4)
    for _ in range(8):
        g.arrived(1, 4)
    assert g.predict(1, 4).verdict == "refuse"  # 1 in 9: above 10%
    g.arrived(1, 4)
    p = g.predict(1, 4)
    assert p.verdict == "accept" and "reopened" in p.reason  # 1 in 10
    assert (p.risk, p.support) == (0.1, 10)
    assert g.bound(1) is None and g.predict(1, 7).verdict == "accept"


def test_reopening_is_per_level():
    g = LearnedGate("depth", expiry=None)
    g.failed(1, 3)
    for _ in range(6):
        g.arrived(1, 5)
    assert g.bound(1) == 3
    assert [g.predict(1, lv).verdict for lv in (3, 4, 5, 6)] == ["refuse", "refuse", "accept", "refuse"]


def test_too_few_arrivals_do_not_reopen():
    g = LearnedGate("depth", expiry=None, reopen_support=5, reopen_rate=0.5)
    g.failed(1, 2)
    for _ in range(3):
        g.arrived(1, 2)
    assert g.predict(1, 2).verdict == "refuse"  # rate 0.25 is low, but 4 arrivals < 5


def test_gate_with_risk_budget_support_gate():
    g = LearnedGate("depth")
    g.failed(1, 4)
    p = g.predict(1, 4)
    assert RiskBudget(min_support=3).decide("descend", p, gain=5.0).choice == "ask_s2"


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"name": ""}, "name"),
        ({"name": "g", "expiry": 0}, "expiry"),
        ({"name": "g", "expiry": 2.5}, "expiry"),
        ({"name": "g", "expiry": True}, "expiry"),
        ({"name": "g", "floor": 3}, "floor"),
        ({"name": "g", "reopen_support": 0}, "reopen_support"),
        ({"name": "g", "reopen_rate": 1.0}, "reopen_rate"),
        ({"name": "g", "store": object()}, "store"),
        ({"name": "g", "journal": "x.jsonl"}, "journal"),
        ({"name": "g", "journal": Journal(), "store": object()}, "not both"),
    ],
)
def test_gate_bad_parameters(kwargs, needle):
    with pytest.raises(BadInput, match=needle):
        LearnedGate(**kwargs)


def test_gate_bad_observations():
    g = LearnedGate("g")
    with pytest.raises(BadInput, match="level"):
        g.failed(1, 2.0)
    with pytest.raises(BadInput, match="level"):
        g.arrived(1, True)
    with pytest.raises(BadInput, match="hashable"):
        g.arrived({"a": 1}, 2)
    with pytest.raises(BadInput, match="failed"):
        g.arrived(1, 2, failed=1)


class _Store:
    def __init__(self) -> None:
        self.journal = Journal()


def test_gate_journals_through_a_store_and_rebuilds():
    store = _Store()
    live = LearnedGate("depth", expiry=2, floor=lambda c: 1, store=store)
    other = LearnedGate("other", store=store)  # another gate in the same chain is not replayed into this one
    live.arrived(("map", 1), 1)
    live.failed(("map", 1), 3)
    other.failed(("map", 1), 1)
    live.end_episode()
    kinds = {r.kind for r in store.journal}
    assert kinds == {GATE_KIND}
    again = LearnedGate.from_journal(store.journal, name="depth", expiry=2, floor=lambda c: 1)
    for lv in range(6):
        assert again.predict(("map", 1), lv) == live.predict(("map", 1), lv)
    # the rebuild wrote nothing; under the journal-owner protocol it continues the same chain (it no longer has
    # no journal, as LearnedGate.replay's result had)
    assert again.journal is store.journal and len(store.journal) == 4


def test_foreign_ops_are_refused_at_write_time():
    j = Journal()
    with pytest.raises(BadInput, match="op 'explode' is not one of"):
        j.append(GATE_KIND, {"gate": "depth", "op": "explode"})
    assert len(j) == 0


_ops = st.lists(
    st.one_of(
        st.tuples(st.just("arrived"), st.integers(1, 3), st.integers(0, 6), st.booleans()),
        st.tuples(st.just("failed"), st.integers(1, 3), st.integers(0, 6), st.just(True)),
        st.tuples(st.just("end"), st.just(0), st.just(0), st.just(False)),
    ),
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(ops=_ops, expiry=st.one_of(st.none(), st.integers(1, 4)), with_floor=st.booleans())
def test_rebuilt_equals_live_and_window_equals_recount(ops, expiry, with_floor):
    floor = (lambda c: c) if with_floor else None
    j = Journal()
    live = LearnedGate("depth", expiry=expiry, floor=floor, journal=j)
    episodes: list[list[tuple[int, int, bool]]] = [[]]
    for op, c, lv, failed in ops:
        if op == "arrived":
            live.arrived(c, lv, failed=failed)
        elif op == "failed":
            live.failed(c, lv)
        else:
            live.end_episode()
            episodes.append([])
            continue
        episodes[-1].append((c, lv, failed))
    again = LearnedGate.from_journal(j, name="depth", expiry=expiry, floor=floor)
    # the incremental window equals a recount of the last `expiry` ended episodes plus the one in progress
    window = episodes if expiry is None else episodes[-(expiry + 1) :]
    for c in (1, 2, 3):
        recount: dict[int, list[int]] = {}
        for ep in window:
            for cc, lv, failed in ep:
                if cc == c:
                    cell = recount.setdefault(lv, [0, 0])
                    cell[0] += 1
                    cell[1] += failed
        assert live.counts(c) == {lv: tuple(v) for lv, v in sorted(recount.items())}
        for lv in range(8):
            assert again.predict(c, lv) == live.predict(c, lv)
