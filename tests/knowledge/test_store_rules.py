"""The rules of the knowledge store, one test each (specification: "The knowledge store")."""

import pytest

from solvi_lab.errors import BadInput, UnknownId, WriteRefused
from solvi_lab.knowledge import KnowledgeStore


def fact(s, o, r="tier"):
    return {"s": s, "r": r, "o": o}


@pytest.fixture
def ks():
    return KnowledgeStore()


def test_item_record_has_the_specification_fields(ks):
    i = ks.add("fact", fact("c17", "vip"), source="person", by="crm", valid=(2020, 2030), evidence=["ticket 1"])
    rec = ks.item(i)
    assert {
        "kind",
        "body",
        "scope",
        "source",
        "who",
        "evidence",
        "derived_from",
        "counts",
        "status",
        "version",
        "supersedes",
        "valid",
        "learned_at",
        "invalidated_at",
    } <= set(rec)
    assert rec["counts"] == {"confirmations": 0, "refutations": 0, "uses": 0, "wrong_uses": 0, "guarantee": None}
    assert (rec["status"], rec["who"], rec["valid"], rec["learned_at"], rec["invalidated_at"]) == (
        "active",
        "crm",
        {"since": 2020, "until": 2030},
        0,
        None,
    )


def test_unknown_source_refused_and_journaled(ks):
    with pytest.raises(WriteRefused, match="source 'model'.*never become knowledge"):
        ks.add("fact", fact("c", "v"), source="model")
    with pytest.raises(WriteRefused, match="kind 'belief'"):
        ks.add("belief", fact("c", "v"), source="person")
    recs = list(ks.journal)
    assert ["refused" in r.payload for r in recs] == [True, True]
    with pytest.raises(UnknownId, match="refused when written"):
        ks.item("k0")
    assert len(ks) == 0


def test_malformed_fact_body_refused(ks):
    with pytest.raises(WriteRefused, match="'s': subject"):
        ks.add("fact", {"s": "c"}, source="person")


def test_outcome_refutes_what_it_contradicts(ks):
    a = ks.add("fact", fact("c17", "vip"), source="person")
    b = ks.add("fact", fact("c17", "regular"), source="outcome")
    assert ks.item(a)["status"] == "refuted" and ks.item(a)["refuted_by"] == b
    assert ks.item(a)["invalidated_at"] == 1
    c = ks.add("fact", fact("c17", "gold"), source="outcome")  # the world changed again
    assert ks.status(b) == "refuted" and ks.status(c) == "active"


@pytest.mark.parametrize("first, second", [("person", "spec"), ("spec", "person"), ("spec", "verified")])
def test_rank_decides_in_either_order(first, second):
    ks = KnowledgeStore()
    d = ks.decisions.record("q", {}, "b" if second == "verified" else "a", answered_by="system2", guarantee="g")
    kw1 = {"of": d.id} if first == "verified" else {}
    kw2 = {"of": d.id} if second == "verified" else {}
    a = ks.add("fact", fact("c", "a"), source=first, **kw1)
    if second == "verified":
        b = ks.add("fact", fact("c", "b"), source=second, **kw2)
    else:
        b = ks.add("fact", fact("c", "b"), source=second)
    rank = {"outcome": 4, "person": 3, "spec": 2, "verified": 1}
    winner, loser = (a, b) if rank[first] > rank[second] else (b, a)
    assert ks.status(winner) == "active" and ks.status(loser) == "refuted"
    assert ks.disputes() == []


def test_lower_ranked_newcomer_is_refuted_not_disputed(ks):
    o = ks.add("fact", fact("c", "a"), source="outcome")
    p = ks.add("fact", fact("c", "b"), source="person")
    assert ks.status(o) == "active" and ks.status(p) == "refuted" and ks.item(p)["refuted_by"] == o
    assert ks.questions() == []


def test_supersedes_refutes_the_named_version(ks):
    a = ks.add("fact", fact("c", "a"), source="spec")
    b = ks.add("fact", fact("c", "b"), source="spec", supersedes=a)
    assert ks.status(a) == "refuted" and ks.status(b) == "active" and ks.item(b)["version"] == 2
    with pytest.raises(BadInput, match="same kind"):
        ks.add("fact", fact("other", "b"), source="spec", supersedes=b)
    with pytest.raises(UnknownId, match="supersedes='k99'"):
        ks.add("fact", fact("c", "b"), source="spec", supersedes="k99")


def test_same_rank_disagreement_is_a_dispute_with_one_question(ks):
    a = ks.add("fact", fact("c", "a"), source="person")
    b = ks.add("fact", fact("c", "b"), source="person")
    c = ks.add("fact", fact("c", "c"), source="person")  # joins the same dispute event
    assert {ks.status(x) for x in (a, b, c)} == {"disputed"}
    [d] = ks.disputes()
    assert d["question"] == "q1" and sorted(s["value"] for s in d["sides"]) == ["a", "b", "c"]
    snap = ks.snapshot("c")
    assert snap["facts"] == [] and {h["id"] for h in snap["hints"]} == {a, b, c}
    ks.resolve(d["key"], "b", by="ann")
    assert (ks.status(a), ks.status(b), ks.status(c)) == ("refuted", "active", "refuted")
    assert ks.disputes() == []
    # disputed again after the resolution: asked again
    e = ks.add("fact", fact("c", "e"), source="person")
    assert ks.status(e) == "disputed" and [q["id"] for q in ks.questions()] == ["q1", "q4"]


def test_resolve_errors(ks):
    a = ks.add("fact", fact("c", "a"), source="person")
    with pytest.raises(BadInput, match="no open dispute"):
        ks.resolve(ks.item(a)["id"] and (None, "c", "tier"), "a", by="p")
    ks.add("fact", fact("c", "b"), source="person")
    with pytest.raises(BadInput, match="no side of the dispute"):
        ks.resolve((None, "c", "tier"), "zzz", by="p")
    with pytest.raises(BadInput, match="not a key"):
        ks.resolve((None, "nobody", "tier"), "a", by="p")


def test_outcome_ends_a_dispute(ks):
    a = ks.add("fact", fact("c", "a"), source="person")
    b = ks.add("fact", fact("c", "b"), source="person")
    o = ks.add("fact", fact("c", "a"), source="outcome")
    assert (ks.status(a), ks.status(b), ks.status(o)) == ("active", "refuted", "active")
    assert ks.item(a)["counts"]["confirmations"] == 1
    assert ks.questions()[0]["closed_at"] == 2 and ks.disputes() == []


def test_verified_needs_a_guaranteed_system2_decision_that_matches(ks):
    good = ks.decisions.record("tier", {}, "vip", answered_by="system2", guarantee="<=5% wrong")
    s1 = ks.decisions.record("tier", {}, "vip", answered_by="system1", guarantee="x")
    with pytest.raises(WriteRefused, match="needs of="):
        ks.add("fact", fact("c", "vip"), source="verified")
    with pytest.raises(WriteRefused, match="not answered by System 2 alone"):
        ks.add("fact", fact("c", "vip"), source="verified", of=s1.id)
    with pytest.raises(WriteRefused, match="does not match"):
        ks.add("fact", fact("c", "gold"), source="verified", of=good.id)
    v = ks.add("fact", fact("c", "vip"), source="verified", of=good.id)
    assert ks.item(v)["counts"]["guarantee"] == "<=5% wrong"


def test_retraction_is_exact_and_takes_derivations(ks):
    a = ks.add("fact", fact("c", "a"), source="person")
    b = ks.add("fact", fact("d", "x"), source="person", derived_from=[a])
    c = ks.add("fact", fact("e", "y"), source="spec", derived_from=[b])
    o = ks.add("fact", fact("c", "z"), source="spec")  # refuted by a (person outranks spec)
    assert ks.status(o) == "refuted"
    ks.retract(a, by="ann", why="wrong customer")
    assert [ks.status(x) for x in (a, b, c)] == ["retracted"] * 3
    assert ks.status(o) == "active"  # what a refuted comes back
    assert ks.item(c)["retracted"] == {"root": a, "position": 4, "by": "ann", "why": "wrong customer"}
    assert ks.fingerprint() == KnowledgeStore.from_journal(ks.journal, skip={a}).fingerprint()
    assert len(list(ks.journal)) == 5  # nothing deleted
    assert ks.verify()
    with pytest.raises(BadInput, match="already retracted"):
        ks.retract(b, by="x", why="y")
    with pytest.raises(BadInput, match="needs why"):
        ks.retract(o, by="x", why="")


def test_premise_refuted_or_missing_is_refused(ks):
    a = ks.add("fact", fact("c", "a"), source="spec")
    ks.add("fact", fact("c", "b"), source="outcome")
    with pytest.raises(WriteRefused, match=f"premise {a} was refuted"):
        ks.add("fact", fact("x", 1), source="person", derived_from=[a])
    with pytest.raises(WriteRefused, match="premise k77 is missing"):
        ks.add("fact", fact("x", 1), source="person", derived_from=["k77"])
    b = ks.add("fact", fact("y", "b"), source="person")
    with pytest.raises(WriteRefused, match="would refute its own premise"):
        ks.add("fact", fact("y", "c"), source="person", derived_from=[b])


def test_fingerprint_moves_with_state_and_is_256_bits(ks):
    f0 = ks.fingerprint()
    a = ks.add("fact", fact("c", "a"), source="person")
    f1 = ks.fingerprint()
    ks.use(a, wrong=True)
    f2 = ks.fingerprint()
    assert len({f0, f1, f2}) == 3 and len(f2) == 64
    assert ks.item(a)["counts"]["uses"] == 1 and ks.item(a)["counts"]["wrong_uses"] == 1


def test_snapshot_any_json_subject(ks):
    for subject in ["c17", 17, ["room", 3]]:
        i = ks.add("fact", {"s": subject, "r": "at", "o": "x"}, source="person")
        snap = ks.snapshot(about=subject)
        assert [f["id"] for f in snap["facts"]] == [i] and snap["rests_on"] == [i]
        assert snap["position"] == ks.position and snap["fingerprint"] == ks.fingerprint()
    assert ks.snapshot(about="nobody")["facts"] == []
    assert [f["id"] for f in ks.snapshot()["facts"]] == [
        f["id"] for s in ("c17", 17, ["room", 3]) for f in ks.snapshot(about=s)["facts"]
    ]  # no about: the whole store


def test_persistent_store_reloads_identically(tmp_path):
    path = tmp_path / "k.jsonl"
    ks = KnowledgeStore(path)
    a = ks.add("fact", fact("c", "a"), source="person")
    ks.add("fact", fact("c", "b"), source="person")
    ks.retract(a, by="p", why="w")
    fp = ks.fingerprint()
    ks.journal.close()
    again = KnowledgeStore(path)
    assert again.fingerprint() == fp and again.status(a) == "retracted"


def test_bad_ids_and_types(ks):
    with pytest.raises(BadInput, match="an item id is a string"):
        ks.item(3)
    with pytest.raises(UnknownId, match="no item 'k5'"):
        ks.item("k5")
    with pytest.raises(BadInput, match="derived_from must be item ids"):
        ks.add("fact", fact("c", "a"), source="person", derived_from=[1])
    with pytest.raises(BadInput, match="scope must be a dict"):
        ks.add("fact", fact("c", "a"), source="person", scope="x")
    with pytest.raises(BadInput, match="valid must be"):
        ks.add("fact", fact("c", "a"), source="person", valid=5)


def test_redecide_splits_answer_changes_from_justification(ks):
    vip = ks.add("fact", fact("c17", "vip"), source="person")
    ks.add("fact", fact("c17", "regular"), source="spec")  # refuted by the person's fact
    ks.add("fact", fact("c9", "vip"), source="person")
    other = ks.add("fact", fact("c9", "vip", r="region"), source="person", derived_from=[])

    def decide(given):
        tiers = [f["o"] for f in given["knowledge"]["facts"] if f["r"] == "tier"]
        return "priority" if "vip" in tiers else "normal"

    d1 = ks.decisions.ask("route", decide, {"knowledge": ks.snapshot(about="c17")}, answered_by="system1")
    ks.retract(vip, by="ann", why="wrong customer")
    changes, just = ks.redecide(ks.decisions, {vip}, decide)
    assert [c["decision"] for c in changes] == [d1.id]
    assert changes[0]["old_answer"] == "priority" and changes[0]["new_answer"] == "normal"
    assert just == []
    assert other in ks
