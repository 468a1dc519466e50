"""Where the consumers of the store follow the specification's text to the letter (issue 17, points 3–7 and 9).

Each test quotes the sentence of the specification it checks.
"""

import pytest

from solvi_lab.actions import ConservativeActionModel, Vocabulary
from solvi_lab.agenda import Agenda
from solvi_lab.episodes import Episode, EpisodeView, LongMemory
from solvi_lab.errors import BadInput
from solvi_lab.prediction import Prediction
from solvi_lab.risk import LearnedGate, Protect, RiskBudget


# -- (3) LongMemory and Episode keys -------------------------------------------------------------------------------
def test_long_memory_keeps_string_keys_as_they_are():
    """Spec: "LongMemory keeps outcomes across episodes — record(context, key, +1 / −1), decayed per episode — and
    scores(context) is given to the decision as a fact (a key that is not a string — a tuple, a dict — is kept as
    its JSON text, like an event's key)."""
    lm = LongMemory(decay=0.5)
    lm.record("router", "restart the router", +1)
    lm.record("router", ("call", "ISP"), -1)
    lm.record("router", {"wait": 5}, +1)
    assert lm.scores("router") == {"restart the router": 1.0, '["call","ISP"]': -1.0, '{"wait":5}': 1.0}
    assert '"restart the router"' not in lm.scores("router")  # never the quoted form
    lm.end_episode()
    assert lm.score("router", "restart the router") == 0.5 and lm.score("router", ["call", "ISP"]) == -0.5
    assert lm.scores(("no", "such")) == {} and lm.score("router", '"restart the router"') == 0.0
    assert LongMemory.from_dict(lm.to_dict()).scores("router") == lm.scores("router")
    with pytest.raises(BadInput, match="a key must be a JSON value"):
        lm.record("router", {1, 2}, +1)


def test_episode_keys_follow_the_same_rule():
    """Spec: "a key that is not a string — a tuple, a dict — is kept as its JSON text, like an event's key"."""
    ep = Episode("t")
    ep.note("act", "restart the router")
    ep.note("act", ("go", 3))
    ep.fact("door", "open")
    ep.fact(("room", 3), "lit")
    v = EpisodeView(ep.snapshot())
    assert v.keys() == ["restart the router", '["go",3]']
    assert v.counts() == {"restart the router": 1, '["go",3]': 1}
    assert v.facts == {"door": "open", '["room",3]': "lit"}
    assert ep.snapshot()["events"][0]["key"] == "restart the router"  # the snapshot keeps the JSON value itself


# -- (4) LearnedGate with nothing learned -------------------------------------------------------------------------
def test_a_gate_with_no_failure_in_its_window_refuses_nothing():
    """Spec: "A gate learned from failures is bounded: it reads the last expiry episodes only, never falls below
    floor, and is reopened by evidence (recorded arrivals with a low failure rate)." A fresh gate, or one whose
    failures all expired, accepts — so Protect takes instead of sending every decision to System 2."""
    g = LearnedGate("depth", expiry=2, floor=lambda hero: hero + 1)
    fresh = g.predict(1, 6)
    assert (fresh.verdict, fresh.risk, fresh.support, fresh.hard) == ("accept", 0.0, 0, False)
    assert fresh.detail == {"bound": None, "floor": 2}
    assert Protect().decide("descend", fresh).choice == "take"
    g.failed(1, 4)
    g.end_episode()
    assert [g.predict(1, lv).verdict for lv in (2, 3, 4, 6)] == ["accept", "accept", "refuse", "refuse"]
    assert Protect().decide("descend", g.predict(1, 4)).choice == "avoid"
    g.end_episode()
    assert g.predict(1, 4).verdict == "refuse"  # still in the window of the last 2 episodes
    g.end_episode()  # the failure expired: the gate reopens by expiry
    p = g.predict(1, 4)
    assert (p.verdict, p.support, g.bound(1), g.counts(1)) == ("accept", 0, None, {})
    assert "refuses nothing" in p.reason
    assert Protect().decide("descend", p).choice == "take"
    assert RiskBudget().decide("descend", p, gain=0.3).choice == "take"
    never = LearnedGate("depth", expiry=None)  # never expires: the failure keeps refusing
    never.failed(1, 4)
    for _ in range(50):
        never.end_episode()
    assert never.predict(1, 4).verdict == "refuse"
    assert [Prediction(v).verdict for v in ("unknown",)] == ["unknown"]  # the verdict still exists for models


# -- (5) the detectors read the events the caller names ----------------------------------------------------------
def _place_loop(n: int = 24) -> dict:
    ep = Episode("placer")
    for i in range(n):
        ep.note("place", ["table", "chair"][i % 2])
    return ep.snapshot()


def test_every_detector_reads_the_events_named_by_kind():
    """Spec: "EpisodeView gives the counts (since the last progress and in total), the facts board and the
    detectors repeated, ping_pong, stalled, revisits, and looping (stalled and one of the first two — single
    detectors fire on honest repetition)." Each detector reads the events named by kind= (default None: every
    event but progress and facts; issue 26)."""
    v = EpisodeView(_place_loop())
    # the default reads every kind of event: an agent looping through "place" events is a loop
    assert (v.repeated(), v.ping_pong(), v.stalled(), v.looping()) == (True, True, True, True)
    # kind="act" narrows to act events: there are none here
    assert (v.repeated(kind="act"), v.ping_pong(kind="act"), v.stalled(kind="act")) == (False, False, False)
    assert v.looping(kind="act") is False
    assert (v.repeated(kind="place"), v.ping_pong(kind="place"), v.stalled(kind="place")) == (True, True, True)
    assert v.looping(kind="place") is True
    assert v.looping(kind=["act", "place"]) is True and v.looping(kind=None) is True
    assert v.looping(kind="visit") is False
    # the single-detector case: repetition without being stalled is not a loop, whatever the kind
    short = EpisodeView(_place_loop(6))
    assert short.repeated(kind="place") and short.ping_pong(kind="place") and not short.looping(kind="place")
    # a mixed loop: act and place events together
    ep = Episode("mixed")
    for _ in range(12):
        ep.note("act", "look")
        ep.note("place", "table")
    mixed = EpisodeView(ep.snapshot())
    assert not mixed.stalled(kind="act") and mixed.stalled(kind=("act", "place"))
    assert mixed.looping(kind=("act", "place")) and mixed.looping() and not mixed.looping(kind="act")
    ep.fact("door", "open")
    ep.progress("table set")
    assert EpisodeView(ep.snapshot()).steps(kind=None) == 0  # None: every event but progress and facts
    for bad in (3, "", [], ["act", 3]):
        with pytest.raises(BadInput, match="kind"):
            v.looping(kind=bad)


# -- (6) Agenda.blocked lists goals waiting on requires= ---------------------------------------------------------
def test_blocked_lists_goals_waiting_on_requires_with_their_reason():
    """Spec: "ag.open(state), ag.blocked(state), ag.done()" and "a goal it blocks is not open": a goal waiting on
    its requires= is not pursuable either, so blocked(state) lists it with its reason."""
    ag = Agenda(None)
    ag.goal("authenticated", done=lambda s: s.get("user_id") is not None)
    ag.goal("exchanged", done=lambda s: s.get("status") == "exchange requested", requires=["authenticated"])
    ag.goal("refunded", done=lambda s: False, requires=["authenticated"])
    ag.gate("auth_first", lambda s: s.get("user_id") is not None, blocks=["exchange*"])
    ag.update({})
    assert ag.blocked({}) == {
        "exchanged": {"gates": ["auth_first"], "requires": ["authenticated"]},
        "refunded": {"gates": [], "requires": ["authenticated"]},
    }
    assert ag.open({}) == ["authenticated"]
    ag.override("auth_first", by="lead", why="verified by phone")
    assert ag.blocked({}) == {
        "exchanged": {"gates": [], "requires": ["authenticated"]},
        "refunded": {"gates": [], "requires": ["authenticated"]},
    }
    ag.clear_override("auth_first", by="lead", why="call ended")
    s = {"user_id": 7}
    ag.update(s)
    assert ag.blocked(s) == {} and ag.open(s) == ["exchanged", "refunded"]
    # every goal not done is either open or blocked, never both
    for state in ({}, s):
        ag.update(state)
        pending = [n for n in ag.goals() if n not in ag.done()]
        assert sorted(ag.open(state) + list(ag.blocked(state))) == sorted(pending)


def test_a_decision_given_the_agenda_replays():
    """Spec: "ag.update(state) # runs the done checks; every change is journaled" — and what a decision acts on
    (the open goals, the gates that fired) is given to it, so the decision replays from its trace alone."""
    from solvi_lab.knowledge import KnowledgeStore

    ks = KnowledgeStore()
    ag = Agenda(ks)
    ag.goal("authenticated", done=lambda s: s.get("user_id") is not None)
    ag.goal("exchanged", done=lambda s: s.get("status") == "exchange requested", requires=["authenticated"])
    ag.gate("auth_first", lambda s: s.get("user_id") is not None, blocks=["exchange*"])
    ag.update({})
    given = {"agenda": ag.given({})}
    assert given["agenda"] == {
        "done": [],
        "open": ["authenticated"],
        "blocked": {"exchanged": {"gates": ["auth_first"], "requires": ["authenticated"]}},
        "gates_closed": ["auth_first"],
        "position": ks.journal.position,
    }

    def decide(g):
        return g["agenda"]["open"][0] if g["agenda"]["open"] else "handoff"

    d = ks.decisions.ask("next goal", decide, given, answered_by="system1")
    ag.update({"user_id": 7})  # the agenda moves on; the recorded decision does not
    assert ag.given({"user_id": 7})["open"] == ["exchanged"]
    assert ks.decisions.rerun(d.id, decide).same
    assert ks.decisions.get(d.id).given["agenda"]["open"] == ["authenticated"]


# -- (7) predicted effects: None is "no prediction", {} is "nothing changes" -------------------------------------
def test_effects_none_means_no_prediction_and_empty_means_nothing_changes():
    """Spec: "effects are predicted when every accepted call with the same condition values (else of the action)
    had the same effect" — p.effects is None when no effect is predicted, {} when the predicted effect is empty."""
    vocab = Vocabulary({"status": lambda s, a: s["orders"][a["order_id"]]["status"]})
    m = ConservativeActionModel(vocab)
    state = {"orders": {"#1": {"status": "pending"}, "#2": {"status": "delivered"}, "#3": {"status": "pending"}}}
    assert m.predict(state, "get", {"order_id": "#1"}).effects is None  # never observed
    m.observe(state, "get", {"order_id": "#1"}, accepted=True)  # a read: changed nothing
    m.observe(state, "get", {"order_id": "#3"}, accepted=True, effect={})  # the same, said as {}
    p = m.predict(state, "get", {"order_id": "#1"})
    assert p.effects == {} and p.effects is not None and p.detail["effect_predicted"] is True
    m.observe(state, "cancel", {"order_id": "#2"}, accepted=False)
    assert m.predict(state, "cancel", {"order_id": "#2"}).effects is None  # never accepted: no prediction
    m.observe(state, "cancel", {"order_id": "#1"}, accepted=True, effect={"status": "cancelled"})
    assert m.predict(state, "cancel", {"order_id": "#3"}).effects == {"status": "cancelled"}
    m.observe(state, "cancel", {"order_id": "#3"}, accepted=True)  # same condition values, another effect
    q = m.predict(state, "cancel", {"order_id": "#1"})
    assert q.effects is None and q.detail["effect_predicted"] is False  # they disagree: no prediction
    assert Prediction("accept").effects is None


def test_effects_replay_from_the_journal():
    """Spec: "model.commit() # each action's model as an "action" item" — a replayed model predicts the same
    effects, None and {} alike."""
    from solvi_lab.knowledge import KnowledgeStore

    ks = KnowledgeStore()
    vocab = Vocabulary({"status": lambda s, a: s["orders"][a["order_id"]]["status"]})
    m = ConservativeActionModel(vocab, store=ks)
    state = {"orders": {"#1": {"status": "pending"}}}
    m.observe(state, "get", {"order_id": "#1"}, accepted=True)
    m.observe(state, "cancel", {"order_id": "#1"}, accepted=True, effect={"status": "cancelled"})
    m.observe(state, "cancel", {"order_id": "#1"}, accepted=True, effect={"status": "pending"})
    again = ConservativeActionModel.from_journal(ks.journal, vocab=vocab)
    for action in ("get", "cancel", "pay"):
        assert again.predict(state, action, {"order_id": "#1"}) == m.predict(state, action, {"order_id": "#1"})
    assert again.predict(state, "get", {"order_id": "#1"}).effects == {}
    assert again.predict(state, "cancel", {"order_id": "#1"}).effects is None


# -- (9) min_gain_ratio = 0 --------------------------------------------------------------------------------------
def test_min_gain_ratio_zero_takes_whenever_the_gain_is_not_negative():
    """Spec: "RiskBudget takes a refused action when its expected gain is at least min_gain_ratio × its risk and
    the risk fits the episode's budget" — no lower bound on min_gain_ratio but ≥ 0."""
    refused = Prediction("refuse", risk=0.4, support=5, reason="fell twice")
    rb = RiskBudget(max_risk_per_episode=1.0, min_gain_ratio=0, min_support=3)
    assert rb.min_gain_ratio == 0.0
    assert rb.decide("jump", refused, gain=0.0).choice == "take"
    assert rb.decide("jump", refused, gain=-0.01).choice == "avoid"  # a negative gain is never enough
    assert rb.decide("jump", refused, gain=5.0).choice == "take"  # 0.2 left
    assert rb.decide("jump", refused, gain=5.0).choice == "avoid"  # the budget still binds
    assert rb.decide("jump", Prediction("refuse", risk=0.1, support=5, hard=True), gain=9.0).choice == "avoid"
    assert rb.decide("jump", Prediction("refuse", risk=0.1, support=1), gain=9.0).choice == "ask_s2"
    strict = RiskBudget(min_gain_ratio=1.0)
    assert strict.decide("jump", refused, gain=0.39).choice == "avoid"
    assert strict.decide("jump", refused, gain=0.4).choice == "take"
    for bad in (-0.1, float("inf"), float("nan"), True, "1"):
        with pytest.raises(BadInput, match="min_gain_ratio"):
            RiskBudget(min_gain_ratio=bad)
