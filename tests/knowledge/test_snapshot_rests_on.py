"""A snapshot's `rests_on` names its premises, transitively, and redecide reads exactly that list (issue 26, 1)."""

from solvi_lab.knowledge import KnowledgeStore


def fact(s, o, r="tier"):
    return {"s": s, "r": r, "o": o}


def test_rests_on_lists_the_premises_of_facts_and_hints_transitively():
    """Spec: "A decision is given ks.snapshot(...) as a fact: the active items that match (facts), the hints
    (hypotheses, expired or stale items, with why), the ids they rest on, the store's fingerprint and its journal
    position" — and "a wrong item can be taken back with everything that rests on it": "rests on" is the premise
    relation, so the ids a snapshot rests on are its items and their premises, transitively."""
    ks = KnowledgeStore()
    country = ks.add("fact", fact("c17", "se", r="country"), source="outcome")
    rate = ks.add("fact", fact("se", "25%", r="vat_rate"), source="spec", derived_from=[country])
    vat = ks.add("fact", fact("c18", "25%", r="vat"), source="spec", derived_from=[rate])
    guess = ks.add("fact", fact("c18", "b2b", r="segment"), source="person", hypothesis=True, derived_from=[country])
    unrelated = ks.add("fact", fact("c99", "x"), source="person")
    snap = ks.snapshot(about="c18")
    assert [f["id"] for f in snap["facts"]] == [vat]
    assert [h["id"] for h in snap["hints"]] == [guess]
    # the items given first (facts, then hints), then every premise once, in journal order
    assert snap["rests_on"] == [vat, guess, country, rate]
    assert unrelated not in snap["rests_on"]


def test_rests_on_of_items_without_premises_is_the_items_alone():
    """Negative case of: "the ids they rest on" — an item derived from nothing adds no other id, and a snapshot
    that gives nothing rests on nothing."""
    ks = KnowledgeStore()
    a = ks.add("fact", fact("c1", "vip"), source="person")
    ks.add("fact", fact("c2", "regular"), source="person", derived_from=[a])  # rests on a, but is not given
    assert ks.snapshot(about="c1")["rests_on"] == [a]
    assert ks.snapshot(about="nobody")["rests_on"] == []


def test_redecide_finds_a_decision_through_a_premise_in_its_rests_on():
    """Spec: "ks.redecide(store, retracted, decide) finds the stored decisions whose snapshot rested on retracted
    items" — the decision is found because the retracted premise is in its snapshot's `rests_on`, and the split and
    the journal's "redecide" record are as before."""
    ks = KnowledgeStore()
    country = ks.add("fact", fact("c17", "se", r="country"), source="outcome")
    vat = ks.add("fact", fact("c17", "25%", r="vat"), source="spec", derived_from=[country])

    def decide(given):
        return [f["o"] for f in given["knowledge"]["facts"] if f["r"] == "vat"] or ["unknown"]

    snap = ks.snapshot(about="c17", r="vat")
    assert snap["rests_on"] == [vat, country]
    d = ks.decisions.ask("vat", decide, {"knowledge": snap}, answered_by="system1")
    ks.retract(country, by="ann", why="wrong customer")
    changes, just = ks.redecide(ks.decisions, {country}, decide)
    assert [c["decision"] for c in changes] == [d.id] and just == []
    assert changes[0]["old_answer"] == ["25%"] and changes[0]["new_answer"] == ["unknown"]
    assert changes[0]["old_rests_on"] == sorted([vat, country])
    assert changes[0]["new_given"]["knowledge"]["rests_on"] == []
    last = list(ks.journal.records(kind="redecide"))
    assert [r.payload for r in last] == [{"retracted": [country], "answer_changes": [d.id], "justification_only": []}]


def test_redecide_uses_exactly_the_rests_on_list():
    """Negative case of: "finds the stored decisions whose snapshot rested on retracted items" — a decision whose
    `rests_on` does not hold the retracted id is not touched, even when the retracted item shares its subject;
    and a snapshot whose `rests_on` was edited to drop the premise is no longer found (redecide reads the list)."""
    ks = KnowledgeStore()
    country = ks.add("fact", fact("c17", "se", r="country"), source="outcome")
    vat = ks.add("fact", fact("c17", "25%", r="vat"), source="spec", derived_from=[country])
    other = ks.add("fact", fact("c17", "gold", r="tier"), source="person")

    def decide(given):
        return sorted(f["o"] for f in given["knowledge"]["facts"])

    by_tier = ks.decisions.ask("tier", decide, {"knowledge": ks.snapshot(about="c17", r="tier")}, answered_by="system1")
    edited = ks.snapshot(about="c17", r="vat")
    edited = {**edited, "rests_on": [vat]}  # an old-style record: only its own ids
    ks.decisions.ask("vat", decide, {"knowledge": edited}, answered_by="system1")
    assert ks.snapshot(about="c17", r="tier")["rests_on"] == [other]
    ks.retract(country, by="ann", why="wrong customer")
    assert ks.redecide(ks.decisions, {country}, decide) == ([], [])
    assert by_tier.given["knowledge"]["rests_on"] == [other]
