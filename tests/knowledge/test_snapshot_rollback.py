"""Snapshots and the rollback rule, against the specification's text (issue 17, points 1, 2 and 8)."""

import pytest

from solvi_lab.errors import BadInput
from solvi_lab.knowledge import KnowledgeStore, Verdict, WriteGate


class HoldRules(WriteGate):
    name = "review"

    def admit(self, store, item, shadow):
        if item.kind in ("rule", "skill", "action"):
            return Verdict(False, "needs a person's review", {"cases": 0})
        return Verdict(True, "ok")


def fact(s, o, r="tier"):
    return {"s": s, "r": r, "o": o}


# -- (1) hints include hypotheses of every kind ------------------------------------------------------------------
def test_snapshot_hints_hold_every_kind_of_hypothesis_with_its_gate_and_verdict():
    """Spec: "A decision is given ks.snapshot(...) as a fact: the active items that match (facts), the hints
    (hypotheses, expired or stale items, with why), the ids they rest on, the store's fingerprint and its journal
    position" and "a rule, a skill or an action ... one a later gate holds stays a hypothesis"."""
    ks = KnowledgeStore(gates=[HoldRules()])
    vip = ks.add("fact", fact("c17", "vip"), source="person")
    rule = ks.add("rule", {"name": "c17", "then": "escalate"}, source="spec")
    skill = ks.add("skill", {"name": "c17", "steps": ["greet"]}, source="person")
    action = ks.add("action", {"name": "refund"}, source="outcome")
    guess = ks.add("fact", fact("c17", "gold", r="segment"), source="person", hypothesis=True)
    ks.add("episode", {"name": "c17", "events": []}, source="outcome")  # a record: never given to a decision
    snap = ks.snapshot(about="c17")
    assert [f["id"] for f in snap["facts"]] == [vip]
    assert snap["facts"][0] == {
        "id": vip,
        "kind": "fact",
        "s": "c17",
        "r": "tier",
        "o": "vip",
        "source": "person",
        "scope": None,
    }
    hints = {h["id"]: h for h in snap["hints"]}
    assert list(hints) == [rule, skill, guess]  # in journal order; the action is named "refund", not "c17"
    verdict = {"gate": "review", "admit": False, "reason": "needs a person's review", "measured": {"cases": 0}}
    assert hints[rule] == {
        "id": rule,
        "kind": "rule",
        "name": "c17",
        "body": {"name": "c17", "then": "escalate"},
        "source": "spec",
        "scope": None,
        "status": "hypothesis",
        "why": "hypothesis: held by gate review: needs a person's review",
        "verdicts": [verdict],
    }
    assert hints[skill]["kind"] == "skill" and hints[skill]["why"].startswith("hypothesis: held by gate review")
    assert hints[guess]["why"] == "hypothesis: written as a hypothesis" and "verdicts" not in hints[guess]
    assert snap["rests_on"] == [vip, rule, skill, guess]
    assert [h["id"] for h in ks.snapshot(about="refund")["hints"]] == [action]
    assert ks.snapshot(about="c17", r="tier")["hints"] == []  # r= is a fact's relation: rules have none
    ks.promote(rule, by="ann", why="reviewed")  # promoted: in force, used by its consumer, no longer a hint
    assert [h["id"] for h in ks.snapshot(about="c17")["hints"]] == [skill, guess]
    ks.retract(skill, by="ann", why="wrong skill")
    assert [h["id"] for h in ks.snapshot(about="c17")["hints"]] == [guess]


# -- (2) no about: the whole store; a list is one subject -------------------------------------------------------
def test_snapshot_without_about_covers_the_whole_store():
    """Spec: "res = system.ask({"ticket": text, "knowledge": ks.snapshot(about="c17")})" — and without about=,
    the whole store's facts and hints (the call a small notebook makes first)."""
    ks = KnowledgeStore(gates=[HoldRules()])
    a = ks.add("fact", fact("c17", "vip"), source="person")
    b = ks.add("fact", fact(["room", 3], "lit", r="light"), source="outcome", scope={"map": "A"})
    c = ks.add("fact", fact("c18", "x"), source="person")
    d = ks.add("fact", fact("c18", "y"), source="person")  # a dispute: both sides are hints
    rule = ks.add("rule", {"name": "greet"}, source="spec")
    snap = ks.snapshot()
    assert [f["id"] for f in snap["facts"]] == [a, b]
    assert [h["id"] for h in snap["hints"]] == [c, d, rule]
    assert [h["why"] for h in snap["hints"]][:2] == ["disputed: q3", "disputed: q3"]
    assert "about" not in snap and snap["query"] == {"scope": None, "r": None, "valid_at": None}
    assert snap["fingerprint"] == ks.fingerprint() and snap["position"] == ks.position
    assert [f["id"] for f in ks.snapshot(scope={"map": "A"})["facts"]] == [b]
    assert [f["id"] for f in ks.snapshot(r="light")["facts"]] == [b] and ks.snapshot(r="light")["hints"] == []
    # about= a list is one JSON subject (a tuple is the same JSON), never a set of subjects
    assert [f["id"] for f in ks.snapshot(about=["room", 3])["facts"]] == [b]
    assert [f["id"] for f in ks.snapshot(about=("room", 3))["facts"]] == [b]
    assert ks.snapshot(about=["c17", "c18"])["facts"] == [] and ks.snapshot(about=["c17", "c18"])["hints"] == []
    assert ks.snapshot(about="c17")["query"]["about"] == "c17"
    for bad in ({"scope": "A"}, {"r": 3}):
        with pytest.raises(BadInput):
            ks.snapshot(**bad)
    with pytest.raises(BadInput, match="not JSON"):
        ks.snapshot(about={1, 2})


def test_redecide_rebuilds_a_whole_store_snapshot():
    """Spec: "ks.redecide(store, retracted, decide) finds the stored decisions whose snapshot rested on retracted
    items, re-builds each snapshot as it would have been without them"."""
    ks = KnowledgeStore()
    vip = ks.add("fact", fact("c17", "vip"), source="person")
    ks.add("fact", fact("c18", "regular"), source="person")

    def decide(g):
        return sorted(f["o"] for f in g["knowledge"]["facts"])

    d = ks.decisions.ask("tiers", decide, {"knowledge": ks.snapshot()}, answered_by="system1")
    ks.retract(vip, by="ann", why="wrong customer")
    changes, same = ks.redecide(ks.decisions, {vip}, decide)
    assert [c["decision"] for c in changes] == [d.id] and same == []
    assert changes[0]["old_answer"] == ["regular", "vip"] and changes[0]["new_answer"] == ["regular"]


# -- (8) the rollback rule -----------------------------------------------------------------------------------------
def test_what_rests_on_a_rolled_back_version_is_a_hint_until_confirmed():
    """Spec: "ks.rollback(update, by="supervision", why="coverage loss") # the previous version comes back — only
    as a hint" and "a wrong item can be taken back with everything that rests on it". Rule: what rests on the
    rolled-back version (directly or through other items) is a hint, not a fact, until a newer observation or a
    person confirms it; the previous version comes back (as a hint under a flag)."""
    ks = KnowledgeStore()
    v1 = ks.add("fact", fact("c17", "regular"), source="spec")
    v2 = ks.add("fact", fact("c17", "vip"), source="spec", supersedes=v1)
    lounge = ks.add("fact", fact("c17", "yes", r="lounge"), source="spec", derived_from=[v2])
    bag = ks.add("fact", fact("c17", "free", r="bag"), source="spec", derived_from=[lounge])
    other = ks.add("fact", fact("c18", "vip"), source="spec")
    assert [f["id"] for f in ks.snapshot(about="c17")["facts"]] == [v2, lounge, bag]
    assert ks.rollback(v2, by="supervision", why="coverage loss") == v1
    assert (ks.status(v2), ks.status(v1), ks.status(lounge), ks.status(bag)) == (
        "refuted",
        "active",
        "active",
        "active",
    )
    snap = ks.snapshot(about="c17")
    assert [f["id"] for f in snap["facts"]] == [v1]  # no flag: the previous version is a fact again
    hints = {h["id"]: h for h in snap["hints"]}
    assert list(hints) == [lounge, bag]
    assert hints[lounge]["rolled_back"] == [v2] and hints[bag]["rolled_back"] == [v2]  # through lounge too
    assert hints[lounge]["why"] == (
        f"rests on a rolled-back version, not re-confirmed since: {v2} rolled back by supervision: coverage loss"
    )
    assert not ks.usable(lounge) and not ks.usable(bag) and ks.usable(other) and ks.usable(v1)
    assert ks.rolled_back_under(bag) == [v2] and ks.item(bag)["rolled_back_under"] == [v2]
    assert ks.rolled_back_under(other) == [] and not ks.stale(lounge)  # not a flag: staleness is the flags'
    # a person confirms lounge: it is a fact again, and bag (resting on lounge) follows it
    ks.confirm(lounge, by="ann")
    assert ks.usable(lounge) and ks.usable(bag) and ks.rolled_back_under(bag) == []
    assert [f["id"] for f in ks.snapshot(about="c17")["facts"]] == [v1, lounge, bag]
    # exact: the store equals its replay, and a retraction equals rebuild(skip=)
    assert ks.fingerprint() == KnowledgeStore.from_journal(ks.journal).fingerprint()
    again = KnowledgeStore.from_journal(ks.journal)
    assert again.snapshot(about="c17")["hints"] == ks.snapshot(about="c17")["hints"]
    ks.retract(v1, by="ann", why="wrong source")
    rebuilt = KnowledgeStore.from_journal(ks.journal, skip={v1})
    assert rebuilt.fingerprint() == ks.fingerprint()
    assert rebuilt.snapshot(about="c17") == ks.snapshot(about="c17")
    assert ks.verify()


def test_an_observation_that_refutes_a_premise_is_not_a_rollback():
    """Spec: "an observation refutes whatever it contradicts (the world changed)" — what was derived while the
    premise held stands; only a rollback (the update was wrong) makes what rests on it a hint."""
    ks = KnowledgeStore()
    v1 = ks.add("fact", fact("c17", "vip"), source="person")
    lounge = ks.add("fact", fact("c17", "yes", r="lounge"), source="person", derived_from=[v1])
    ks.add("fact", fact("c17", "regular"), source="outcome")
    assert ks.status(v1) == "refuted" and ks.usable(lounge) and ks.rolled_back_under(lounge) == []


def test_rollback_of_a_rule_under_a_flag_and_what_rests_on_it():
    """Spec: "a rollback while a flag covers the rolled-back version (or its scope) restores the previous version
    only as a hint — a stale version is never restored as a fact"."""
    ks = KnowledgeStore()
    r1 = ks.add("rule", {"name": "threshold", "value": 0.7}, source="spec")
    r2 = ks.add("rule", {"name": "threshold", "value": 0.9}, source="spec", supersedes=r1)
    derived = ks.add("fact", fact("t", "high", r="band"), source="spec", derived_from=[r2])
    f = ks.reconfirm(r2, why="coverage loss")
    ks.rollback(r2, by="supervision", why="coverage loss")
    snap = ks.snapshot(about="threshold")
    assert [(h["id"], h["why"].split(":")[0]) for h in snap["hints"]] == [(r1, "stale")]
    assert [h["id"] for h in ks.snapshot(about="t")["hints"]] == [derived] and not ks.usable(derived)
    ks.end_flag(f, by="ann", why="re-checked")
    assert ks.snapshot(about="threshold")["hints"] == [] and ks.usable(r1)
    assert not ks.usable(derived)  # ending the flag does not confirm what rested on the rolled-back version
    ks.add("fact", fact("t", "high", r="band"), source="outcome")  # an equal observation confirms it
    assert ks.usable(derived)
