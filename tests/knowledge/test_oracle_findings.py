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
