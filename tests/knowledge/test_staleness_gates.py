"""Staleness (flags, clock, rollback) and write gates (specification: "Staleness" and "Write gates")."""

import pytest

from solvi_lab.errors import BadInput, UnknownId, WriteRefused
from solvi_lab.experimental.learning import ShadowGate
from solvi_lab.knowledge import ConsistencyGate, KnowledgeStore, SourceGate, Verdict, WriteGate


def fact(s, o, r="intent"):
    return {"s": s, "r": r, "o": o}


@pytest.fixture
def ks():
    return KnowledgeStore()


def test_flag_turns_older_items_into_hints_until_confirmed(ks):
    old = ks.add("fact", fact("t1", "refund"), source="person", scope={"question": "intent"})
    f = ks.flag(scope={"question": "intent"}, why="open-set gate: new kinds of input")
    new = ks.add("fact", fact("t2", "refund"), source="person", scope={"question": "intent"})
    assert ks.stale(old) and not ks.stale(new)
    assert ks.item(old)["status"] == "active"  # staleness is read from the flags, not the status
    assert not ks.usable(old) and ks.usable(new)
    assert ks.snapshot("t1")["facts"] == [] and ks.snapshot("t1")["hints"][0]["why"].startswith("stale")
    ks.add("fact", fact("t1", "refund"), source="outcome", scope={"question": "intent"})  # a newer observation
    assert not ks.stale(old)
    ks.end_flag(f, by="ann", why="re-confirmed on 30 new labels")
    with pytest.raises(BadInput, match="already ended"):
        ks.end_flag(f, by="ann", why="again")


def test_flag_ends_and_the_hint_is_a_fact_again(ks):
    a = ks.add("fact", fact("t1", "x"), source="person")
    f = ks.reconfirm(a)
    assert ks.stale(a)
    ks.end_flag(f, by="ann", why="checked")
    assert not ks.stale(a) and ks.usable(a)
    assert [x["id"] for x in ks.snapshot("t1")["facts"]] == [a]


def test_person_confirmation_clears_staleness(ks):
    a = ks.add("fact", fact("t1", "x"), source="spec")
    ks.flag(key=(None, "t1", "intent"), why="drift")
    assert ks.stale(a)
    ks.confirm(a, by="ann")
    assert not ks.stale(a)


def test_flag_target_must_be_well_formed(ks):
    with pytest.raises(BadInput, match="exactly one of"):
        ks.flag(why="x")
    with pytest.raises(BadInput, match="non-empty dict"):
        ks.flag(scope={}, why="x")
    with pytest.raises(BadInput, match="needs why"):
        ks.flag(scope={"a": 1}, why="")
    with pytest.raises(UnknownId):
        ks.flag(ids=["k9"], why="x")
    with pytest.raises(UnknownId, match="no flag"):
        ks.end_flag("f99", by="a", why="b")


def test_rollback_under_a_flag_restores_only_a_hint(ks):
    v1 = ks.add("rule", {"name": "threshold", "value": 0.7}, source="spec")
    v2 = ks.add("rule", {"name": "threshold", "value": 0.9}, source="spec", supersedes=v1)
    f = ks.reconfirm(v2, why="coverage loss")
    back = ks.rollback(v2, by="supervision", why="coverage loss")
    assert back == v1 and ks.status(v2) == "refuted" and ks.status(v1) == "active"
    assert ks.stale(v1) and not ks.usable(v1)  # a stale version is never restored as a fact
    ks.end_flag(f, by="ann", why="ok")
    assert not ks.stale(v1) and ks.usable(v1)


def test_rollback_without_a_flag_restores_a_fact(ks):
    v1 = ks.add("fact", fact("t", "a"), source="spec")
    v2 = ks.add("fact", fact("t", "b"), source="spec", supersedes=v1)
    ks.rollback(v2, by="p", why="bad update")
    assert ks.usable(v1) and ks.status(v2) == "refuted"
    with pytest.raises(BadInput, match="supersedes nothing"):
        ks.rollback(v1, by="p", why="x")


def test_verified_fact_expires_after_its_clock(ks):
    d = ks.decisions.record("q", {}, "x", answered_by="system2", guarantee="g")
    v = ks.add("fact", fact("t", "x"), source="verified", of=d.id)
    p = ks.add("fact", fact("u", "x"), source="person")
    ks.tick(1999)
    assert ks.status(v) == "active"
    ks.tick(1)
    assert ks.status(v) == "expired" and ks.status(p) == "active"  # person facts have no clock
    assert ks.snapshot("t")["hints"][0]["why"].startswith("expired")
    with pytest.raises(BadInput, match="k ≥ 1"):
        ks.tick(0)


def test_stronger_source_frees_a_fact_from_the_clock(ks):
    d = ks.decisions.record("q", {}, "x", answered_by="system2", guarantee="g")
    v = ks.add("fact", fact("t", "x"), source="verified", of=d.id)
    ks.tick(100)
    ks.add("fact", fact("t", "x"), source="person")  # re-asserted by a stronger source
    ks.tick(5000)
    assert ks.status(v) == "active" and ks.item(v)["clock"]["reconfirm_after"] is None


def test_reconfirm_after_override_per_item(ks):
    a = ks.add("fact", fact("t", "x"), source="person", reconfirm_after=10)
    ks.tick(10)
    assert ks.status(a) == "expired"
    with pytest.raises(BadInput, match="positive number"):
        ks.add("fact", fact("t", "x"), source="person", reconfirm_after=0)


class Hold(WriteGate):
    name = "hold"

    def admit(self, store, item, shadow):
        return Verdict(False, "not yet measured", {"n": 0})


def test_held_rule_is_a_hypothesis_with_verdicts_in_the_journal():
    ks = KnowledgeStore(gates=[Hold()])
    r = ks.add("rule", {"name": "greet"}, source="spec")
    assert ks.status(r) == "hypothesis"
    rec = ks.journal[0].payload
    assert rec["verdicts"] == [{"gate": "hold", "admit": False, "reason": "not yet measured", "measured": {"n": 0}}]
    ks.promote(r, by="lead", why="measured offline")
    assert ks.status(r) == "active" and ks.item(r)["promoted"]["by"] == "lead"
    with pytest.raises(BadInput, match="not a hypothesis"):
        ks.promote(r, by="lead", why="again")
    # a fact a custom gate refuses is not present at all
    with pytest.raises(WriteRefused, match="gate hold"):
        ks.add("fact", fact("t", "x"), source="person")


def test_custom_gates_never_replace_source_and_consistency():
    ks = KnowledgeStore(gates=[Hold(), SourceGate(), ConsistencyGate()])
    assert [type(g).__name__ for g in ks.gates] == ["Hold"]
    with pytest.raises(WriteRefused, match="premise k3 is missing"):
        ks.add("rule", {"name": "x"}, source="spec", derived_from=["k3"])
    with pytest.raises(WriteRefused, match="source 'model'"):
        ks.add("rule", {"name": "x"}, source="model")


def test_shadow_gate_measures_and_journals():
    count = lambda st: sum(1 for r in st.view().records() if r.kind == "rule" and r.status == "active")  # noqa: E731
    ks = KnowledgeStore(gates=[ShadowGate(count)])
    r = ks.add("rule", {"name": "r"}, source="spec")
    assert ks.status(r) == "active"
    assert ks.journal[0].payload["verdicts"][0]["measured"] == {"baseline": 0.0, "candidate": 1.0}
    worse = KnowledgeStore(gates=[ShadowGate(lambda st: -count(st))])
    assert worse.status(worse.add("rule", {"name": "r"}, source="spec")) == "hypothesis"


def test_retraction_exact_with_flags_and_expiry(ks):
    d = ks.decisions.record("q", {}, "x", answered_by="system2", guarantee="g")
    v = ks.add("fact", fact("t", "x"), source="verified", of=d.id)
    a = ks.add("fact", fact("t", "y"), source="person")
    ks.flag(key=(None, "t", "intent"), why="drift")
    ks.tick(2500)
    ks.retract(a, by="p", why="typo")
    assert ks.fingerprint() == KnowledgeStore.from_journal(ks.journal, skip={a}).fingerprint()
    assert ks.status(v) == "expired" and ks.verify()
