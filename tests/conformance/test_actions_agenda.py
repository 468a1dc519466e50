"""The action model and the agenda pass the shared conformance check (solvi_lab.conformance).

Both sit on a knowledge store: the model's commit() and every agenda declaration, goal state and override are
store items, whose ids are journal positions ("k<position>"). The check's run with other kinds' records
interleaved therefore names other ids than the quiet run; each case gives `portable_state` (its state with the
item ids taken out) for that one comparison, and the ids are compared exactly by every other check.
"""

from __future__ import annotations

import random

import pytest

from solvi_lab.actions import ConservativeActionModel, Pair, Vocabulary
from solvi_lab.agenda import Agenda
from solvi_lab.conformance import OwnerCase, check_journal_owner
from solvi_lab.errors import BadInput, UnknownId
from solvi_lab.journal import Journal


# -- the action model -----------------------------------------------------------------------------------------
def _status(s, a):
    return s["orders"][a["order"]]["status"]


def _count(s, a):
    return len(a["items"])


VOCAB = Vocabulary({"status": _status, "n": _count, "both": Pair("status", "n")})
STATE = {"orders": {"#1": {"status": "pending"}, "#2": {"status": "delivered"}, "#3": {"status": "cancelled"}}}
ORDERS = ["#1", "#2", "#3", "#9"]  # #9 is not in the state: its status is unreadable


def _model_step(m: ConservativeActionModel, rng: random.Random) -> None:
    r = rng.random()
    action = rng.choice(["cancel", "modify", "return"])
    args = {"order": rng.choice(ORDERS), "items": ["a"] * rng.randrange(3)}
    if r < 0.7:
        accepted = rng.random() < 0.5
        effect = rng.choice([None, {}, {"status": "cancelled"}, {"status": "x", "n": [1, 2]}]) if accepted else None
        m.observe(STATE, action, args, accepted=accepted, effect=effect)
    elif r < 0.85:
        m.commit()
    elif r < 0.9:
        m.observe(STATE, action, args, accepted="yes")  # refused: accepted must be a bool
    elif r < 0.95:
        m.observe(STATE, action, args, accepted=True, effect={"when": float("nan")})  # refused: not JSON
    else:
        m.observe(STATE, "", args, accepted=True)  # refused: an action is a non-empty name


def _model_portable(m: ConservativeActionModel):
    st = m.state()
    return {**st, "items": sorted(st["items"])}  # which actions were committed, not the ids (positions)


MODEL = OwnerCase(
    "action model",
    ConservativeActionModel,
    make=lambda j: ConservativeActionModel(VOCAB, journal=j),
    step=_model_step,
    options={"vocab": VOCAB},
    portable_state=_model_portable,
)


# -- the agenda -----------------------------------------------------------------------------------------------
def _authed(s):
    return s.get("user") is not None


def _paid(s):
    return s.get("paid", False)


def _shipped(s):
    return s.get("status") == "shipped"


def _never(s):
    return False


def _audited(s):
    if s.get("broken"):
        return None  # a check that forgot to return on this state: update() refuses it
    return s.get("audit", False)


CHECKS = [_authed, _paid, _shipped, _never, _audited]
STATES = [{}, {"user": 1}, {"user": 1, "paid": True}, {"user": 2, "paid": True, "status": "shipped"}]


def _agenda_step(ag: Agenda, rng: random.Random) -> None:
    r = rng.random()
    if r < 0.2:
        name = rng.choice(["login", "pay", "ship", "audit"])
        requires = rng.choice([[], ["login"], ["pay"]])
        done = _audited if name == "audit" else rng.choice(CHECKS)
        ag.goal(name, done=done, requires=requires)  # may be refused: undeclared or a cycle
    elif r < 0.3:
        ag.gate(
            rng.choice(["auth_first", "pay_first"]), rng.choice(CHECKS), blocks=rng.choice([["pay*"], ["ship", "mod*"]])
        )
    elif r < 0.6:
        ag.update(rng.choice(STATES))
    elif r < 0.7:
        try:
            ag.override(rng.choice(["auth_first", "pay_first"]), by=rng.choice(["ann", "lead"]), why="checked by phone")
        except UnknownId:
            pass  # no such gate yet: refused before anything is written
    elif r < 0.8:
        try:
            ag.clear_override(rng.choice(["auth_first", "pay_first"]), by="ann", why="call ended")  # may be refused
        except UnknownId:
            pass
    elif r < 0.85:
        ag.gate("g", _authed, blocks=[])  # refused: a gate that blocks nothing
    elif r < 0.9:
        ag.update({"broken": True, "audit": True})  # refused when a goal checks with _audited: it returned None
    else:
        ag.override("auth_first", by="", why="no one")  # refused (or UnknownId below) before anything is written


def _agenda_step_safe(ag: Agenda, rng: random.Random) -> None:
    try:
        _agenda_step(ag, rng)
    except UnknownId:
        pass


def _agenda_portable(ag: Agenda):
    st = ag.state()
    return {
        **st,
        "goals": [[n, req, fp, done] for n, req, fp, _item, done, _state_item in st["goals"]],
        "gates": [
            [n, blocks, fp, None if o is None else {**o, "item": None}]
            for n, blocks, fp, _item, o, _last in st["gates"]
        ],
    }


AGENDA = OwnerCase(
    "agenda",
    Agenda,
    make=lambda j: Agenda(journal=j, scope={"agenda": "shop"}, checks=CHECKS),
    step=_agenda_step_safe,
    options={"scope": {"agenda": "shop"}, "checks": CHECKS},
    portable_state=_agenda_portable,
)


@pytest.mark.parametrize("case", [MODEL, AGENDA], ids=lambda c: c.name)
def test_the_action_model_and_the_agenda_conform(case, tmp_path):
    check_journal_owner(case, seeds=(0, 1, 2), steps=40, tmp=tmp_path)


# -- what the check does not draw ------------------------------------------------------------------------------
def test_views_of_the_past_write_nothing():
    j = Journal()
    m = ConservativeActionModel(VOCAB, journal=j)
    m.observe(STATE, "cancel", {"order": "#1", "items": []}, accepted=True)
    past = ConservativeActionModel.from_journal(j, upto=0, vocab=VOCAB)
    assert past.actions == () and past.store is None
    with pytest.raises(BadInput, match="rebuilt up to journal position 0"):
        past.observe(STATE, "cancel", {"order": "#1", "items": []}, accepted=True)
    ag = Agenda(journal=j, checks=CHECKS)
    ag.goal("login", done=_authed)
    then = Agenda.from_journal(j, upto=j.position - 1, checks=CHECKS)
    assert then.goals() == {} and len(ag.goals()) == 1
    with pytest.raises(BadInput, match="rebuilt up to journal position"):
        then.goal("login", done=_authed)


def test_open_continues_both_owners_in_a_file(tmp_path):
    with ConservativeActionModel.open(tmp_path / "m.jsonl", vocab=VOCAB) as m:
        m.observe(STATE, "cancel", {"order": "#1", "items": []}, accepted=True)
        first = m.commit()
    with ConservativeActionModel.open(tmp_path / "m.jsonl", vocab=VOCAB) as again:
        assert again.actions == ("cancel",) and again.state()["items"] == first
    with Agenda.open(tmp_path / "a.sqlite", checks=CHECKS) as ag:
        ag.goal("login", done=_authed)
        assert ag.open({}) == ["login"]  # on an agenda, open(state) lists the open goals
        ag.update({"user": 1})
    with Agenda.open(tmp_path / "a.sqlite") as again:  # no checks given: the state is there, the check is not
        assert again.done() == ["login"]
        with pytest.raises(BadInput, match="rebuilt from the journal without its check"):
            again.update({})
        again.goal("login", done=_authed)  # declared again, unchanged: nothing written, the check attached
        assert again.update({"user": 1}) == {}


def test_a_rebuild_with_another_vocabulary_is_refused():
    j = Journal()
    ConservativeActionModel(VOCAB, journal=j).observe(STATE, "cancel", {"order": "#1", "items": []}, accepted=True)
    other = Vocabulary({"status": _status})
    with pytest.raises(BadInput, match="none under vocabulary"):
        ConservativeActionModel.from_journal(j, vocab=other)
    with pytest.raises(BadInput, match="journal= and store= name different journals"):
        ConservativeActionModel(VOCAB, journal=Journal(), store=ConservativeActionModel(VOCAB, journal=j).store)


def test_a_model_without_a_journal_learns_the_same_and_keeps_nothing():
    kept, unkept = ConservativeActionModel(VOCAB), ConservativeActionModel(VOCAB, journal=False)
    rng = random.Random(5)
    for _ in range(60):
        args = {"order": rng.choice(ORDERS), "items": ["a"] * rng.randrange(3)}
        accepted = rng.random() < 0.5
        effect = rng.choice([None, {}, {"status": "x"}]) if accepted else None
        action = rng.choice(["cancel", "modify"])
        for m in (kept, unkept):
            m.observe(STATE, action, args, accepted, effect)
    assert unkept.journal is None and kept.journal.position == 60
    assert unkept.state() == kept.state()
    with pytest.raises(BadInput, match="commit\\(\\) needs a store"):
        unkept.commit()
    with pytest.raises(BadInput, match="journal=False keeps no journal"):
        ConservativeActionModel(VOCAB, journal=False, store=ConservativeActionModel(VOCAB, journal=Journal()).store)
