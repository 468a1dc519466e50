"""Minimal examples of what the independent oracle (oracle.py, OracleMachine) found in the store."""

import pytest

from solvi_lab.errors import WriteRefused
from solvi_lab.knowledge import KnowledgeStore, Verdict, WriteGate


class NoFactsAboutT(WriteGate):
    name = "no_t"

    def admit(self, store, item, shadow):
        return Verdict(not (item.kind == "fact" and item.body["s"] == "t"), "no facts about t")


def test_a_gate_rules_on_an_item_the_premise_check_refused():
    """An item refused because its premise was refuted was never shown to the user's gates, so no verdict was
    journaled; once the refuter is retracted the re-fold let it in although the gate would refuse it (spec, "Write
    gates": a fact a gate admits is present; "A retraction is exact": as if the refuter had never been written —
    then the gate would have refused it). The gates now rule whenever the source check admits the item."""
    ks = KnowledgeStore(gates=[NoFactsAboutT()])
    p = ks.add("fact", {"s": "a", "r": "r", "o": "x"}, source="person")
    o = ks.add("fact", {"s": "a", "r": "r", "o": "y"}, source="outcome")  # refutes p
    with pytest.raises(WriteRefused, match="premise k0 was refuted") as refused:
        ks.add("fact", {"s": "t", "r": "r", "o": 1}, source="person", derived_from=[p])
    d = refused.value.item_id
    assert ks.journal[int(d[1:])].payload["verdicts"] == [
        {"gate": "no_t", "admit": False, "reason": "no facts about t", "measured": {}}
    ]
    ks.retract(o, by="ann", why="wrong customer")
    assert ks.status(p) == "active" and ks.status(d) == "refused"
    assert ks.fingerprint() == ks.rebuild().fingerprint()


class HoldOddRules(WriteGate):
    name = "odd"

    def admit(self, store, item, shadow):
        return Verdict(not (item.kind == "rule" and item.body.get("n", 0) % 2), "odd rules wait for a person")


def test_a_confirmation_does_not_promote_a_rule_a_gate_held():
    """confirm() re-confirms an item as it stands; a rule a gate held stays a hypothesis until promote() (spec,
    "Write gates"), which journals who promoted it. Before, a person's confirm() activated it with no promotion."""
    ks = KnowledgeStore(gates=[HoldOddRules()])
    held = ks.add("rule", {"name": "r", "n": 1}, source="person")
    asked = ks.add("rule", {"name": "h", "n": 2}, source="person", hypothesis=True)
    ks.confirm(held, by="ann")
    ks.confirm(asked, by="ann")
    assert (ks.status(held), ks.item(held)["promoted"]) == ("hypothesis", None)
    assert ks.status(asked) == "active"  # written as a hypothesis, no gate held it: a confirmation settles it
    ks.promote(held, by="ann", why="checked by hand")
    assert ks.status(held) == "active" and ks.item(held)["promoted"]["by"] == "ann"
    assert ks.fingerprint() == ks.rebuild().fingerprint()
