"""The decision log, the risk policies (Protect, RiskBudget) and LearnedGate pass the shared conformance check.

Each case drives its owner through its whole public writing API — including calls it must refuse — and
`check_journal_owner` compares the live owner with its rebuilds (solvi_lab.conformance). The Chooser is not a
journal owner (it writes decision records through a DecisionLog and keeps no state of its own that a journal could
rebuild: docs/ARCHITECTURE.md), so the DecisionLog case drives one Chooser step too.
"""

from __future__ import annotations

import random

import pytest

from solvi_lab.conformance import OwnerCase, check_journal_owner
from solvi_lab.decisions import ANSWERERS, DecisionLog
from solvi_lab.episodes import Chooser
from solvi_lab.errors import BadInput
from solvi_lab.journal import Journal
from solvi_lab.prediction import Prediction
from solvi_lab.risk import LearnedGate, Protect, RiskBudget

GIVENS = [{"x": 1}, [1, 2], "g", None, {"options": ["a", "b"]}]
ANSWERS = [1, "a", {"o": 2}, None, [True]]


def _boom(given):
    return given["missing"]  # a KeyError inside the decision: refused as BadInput before anything is written


def _decision_step(log: DecisionLog, rng: random.Random) -> None:
    r = rng.random()
    if r < 0.35:
        log.record(
            rng.choice(["pick", "route"]),
            rng.choice(GIVENS),
            rng.choice(ANSWERS),
            answered_by=rng.choice(ANSWERERS),
            guarantee=rng.choice([None, "<=5% wrong"]),
        )
    elif r < 0.6:
        n = rng.randrange(3)
        log.ask("double", lambda g: g * 2, n, answered_by="rule")
    elif r < 0.7:
        # a Chooser step writes one decision record through the same log
        Chooser(lambda g: rng.choice(["retry", "handoff"]), journal=log).choose(
            "next", "t", {"retry": 1, "handoff": 2}, rule="handoff"
        )
    elif r < 0.75 and len(log):
        d = rng.choice(list(log))
        assert log.rerun(d.id, lambda g: d.answer).same  # running a decision again writes nothing
    elif r < 0.8:
        log.ask("q", lambda g: 1, {}, answered_by="me")  # refused: who answered?
    elif r < 0.85:
        log.ask("q", 3, {}, answered_by="rule")  # refused: decide is not callable
    elif r < 0.9:
        log.ask("q", _boom, {}, answered_by="rule")  # refused: the decision raised before anything was written
    elif r < 0.95:
        log.record("q", {"not": {1, 2}}, 1, answered_by="rule")  # refused: the given facts are not JSON
    else:
        log.record("", {}, 1, answered_by="rule")  # refused: a decision needs a name


def _prediction(rng: random.Random) -> Prediction:
    verdict = rng.choice(["accept", "refuse", "refuse", "unknown"])
    return Prediction(
        verdict,
        risk=rng.choice([0.0, 0.1, 0.25, 0.4]),
        support=rng.choice([0, 2, 5]),
        hard=verdict == "refuse" and rng.random() < 0.2,
        reason="drawn",
    )


def _policy_step(policy, rng: random.Random) -> None:
    r = rng.random()
    if r < 0.65:
        policy.decide(rng.choice(["descend", "jump", "door left"]), _prediction(rng), gain=rng.choice([0.0, 0.3, 1.0]))
    elif r < 0.8:
        policy.new_episode()
    elif r < 0.87:
        policy.decide("", _prediction(rng))  # refused: no action named
    elif r < 0.94:
        policy.decide("descend", "refuse")  # refused: not a Prediction
    else:
        policy.decide("descend", _prediction(rng), gain=float("nan"))  # refused: gain must be finite


def _floor(context):
    return context + 1 if isinstance(context, int) else 0


def _gate_step(gate: LearnedGate, rng: random.Random) -> None:
    r = rng.random()
    context = rng.choice([1, 2, ("map", 1)])
    if r < 0.3:
        gate.arrived(context, rng.randrange(6), failed=rng.random() < 0.3)
    elif r < 0.5:
        gate.failed(context, rng.randrange(6))
    elif r < 0.75:
        gate.end_episode()
    elif r < 0.8:
        gate.failed(context, 2.0)  # refused: a level is an int
    elif r < 0.85:
        gate.arrived({"a": 1}, 2)  # refused: a context must be hashable
    elif r < 0.9:
        gate.arrived(context, 2, failed=1)  # refused: failed is True or False
    elif r < 0.95:
        gate.failed(frozenset({1}), 2)  # refused: hashable but not JSON, so the journal refuses the record
    else:
        gate.predict(context, rng.randrange(6))  # a read: writes nothing


CASES = [
    OwnerCase(
        "decision log",
        DecisionLog,
        make=lambda j: DecisionLog(j),
        step=_decision_step,
        # A decision's id is "d<journal position>" by design (the store's of="d12" names it), so records of
        # another kind shift the ids; what must not change is every decision's content, in order.
        state=lambda log: [d[1:] for d in log.state()["decisions"]],
    ),
    OwnerCase(
        "Protect",
        Protect,
        make=lambda j: Protect(journal=j, name="careful"),
        step=_policy_step,
        options={"name": "careful"},
    ),
    OwnerCase(
        "RiskBudget",
        RiskBudget,
        make=lambda j: RiskBudget(0.5, 1.0, 2, journal=j, name="rb"),
        step=_policy_step,
        options={"name": "rb"},
    ),
    OwnerCase(
        "LearnedGate",
        LearnedGate,
        make=lambda j: LearnedGate("depth", expiry=3, floor=_floor, reopen_support=2, journal=j),
        step=_gate_step,
        options={"name": "depth", "expiry": 3, "floor": _floor, "reopen_support": 2},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_decisions_and_risk_owners_conform(case, tmp_path):
    check_journal_owner(case, seeds=(0, 1, 2), steps=40, tmp=tmp_path)


def test_owners_sharing_one_journal_rebuild_apart():
    """The dungeon's shape: a policy, a second policy and two gates in one chain, each rebuilt from its own records."""
    j = Journal()
    rb, careful = RiskBudget(0.5, journal=j), Protect(journal=j, name="careful")
    depth, other = LearnedGate("depth", expiry=2, journal=j), LearnedGate("other", journal=j)
    log = DecisionLog(j)
    rng = random.Random(7)
    for _ in range(60):
        for owner, step in ((rb, _policy_step), (careful, _policy_step), (depth, _gate_step), (other, _gate_step)):
            try:
                step(owner, rng)
            except BadInput:
                pass  # the refused calls are part of the draw
        log.record("note", {}, rng.randrange(3), answered_by="rule")
    assert RiskBudget.from_journal(j).state() == rb.state()
    assert Protect.from_journal(j, name="careful").state() == careful.state()
    assert LearnedGate.from_journal(j, name="depth", expiry=2).state() == depth.state()
    assert LearnedGate.from_journal(j, name="other").state() == other.state()
    assert DecisionLog.from_journal(j).state() == log.state() and len(log) == 60


def test_a_second_owner_of_one_name_is_refused_and_nothing_is_written():
    j = Journal()
    RiskBudget(journal=j)
    LearnedGate("depth", journal=j).end_episode()
    n = j.position
    with pytest.raises(BadInput, match=r"already holds a RiskBudget named 'risk_budget'; continue it"):
        RiskBudget(journal=j)
    with pytest.raises(BadInput, match=r"already holds a LearnedGate named 'depth'"):
        LearnedGate("depth", journal=j)
    assert j.position == n


def test_policies_rebuild_their_configuration_from_the_open_record(tmp_path):
    path = tmp_path / "policy.sqlite"
    with RiskBudget(0.5, 2.0, 4, journal=Journal(path)) as rb:
        rb.decide("jump", Prediction("refuse", risk=0.2, support=5), gain=1.0)
    with RiskBudget.open(path) as again:  # no configuration passed: the journal holds it
        assert (again.max_risk_per_episode, again.min_gain_ratio, again.min_support) == (0.5, 2.0, 4)
        assert again.budget_left == pytest.approx(0.3) and again.charged == {"jump": 0.2}
        again.new_episode()
        assert again.budget_left == 0.5 and again.episode == 1
    j = Journal()
    Protect(journal=j, name="p")
    with pytest.raises(BadInput, match=r"opens policy 'p' as 'protect', not as 'risk_budget'"):
        RiskBudget.from_journal(j, name="p")
    with pytest.raises(
        BadInput, match=r"no RiskBudget named 'risk_budget' in this journal \(policies found: \['p'\]\)"
    ):
        RiskBudget.from_journal(j)


def test_views_of_the_past_refuse_to_write():
    j = Journal()
    log = DecisionLog(j)
    log.record("a", {}, 1, answered_by="rule")
    past = DecisionLog.from_journal(j, upto=0)
    assert len(past) == 0 and len(DecisionLog.from_journal(j, upto=1)) == 1
    ran = []
    with pytest.raises(BadInput, match="rebuilt up to journal position 0"):
        past.ask("b", lambda g: ran.append(g), {}, answered_by="rule")
    assert ran == []  # refused before the decision ran
    gate = LearnedGate("g", journal=j)
    gate.failed(1, 2)
    with pytest.raises(BadInput, match="rebuilt up to journal position 1"):
        LearnedGate.from_journal(j, upto=1, name="g").end_episode()
    with pytest.raises(BadInput, match="needs name="):
        LearnedGate.from_journal(j)
