"""The conservative action model: exact behaviour, negative cases, journal replay and speed."""

from __future__ import annotations

import copy
import itertools
import os
import pickle
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvi_lab.actions import (
    COMMIT_KIND,
    OBSERVATION_KIND,
    UNREADABLE,
    ConservativeActionModel,
    Prediction,
    Vocabulary,
)
from solvi_lab.errors import BadInput
from solvi_lab.knowledge import KnowledgeStore

REPO = Path(__file__).resolve().parents[1]


def _store():
    """The real knowledge store, in memory (the model codes against its add(...) and journal)."""
    return KnowledgeStore()


# a tiny retail world ------------------------------------------------------------------------------------------

STATE = {
    "orders": {
        "#1": {"status": "pending", "user": "u1", "items": ["a", "b"]},
        "#2": {"status": "delivered", "user": "u1", "items": ["a"]},
        "#3": {"status": "cancelled", "user": "u2", "items": ["c"]},
        "#4": {"status": "processed", "user": "u2", "items": ["c", "c"]},
        "#5": {"status": "pending", "user": "u2", "items": ["c"]},
    },
    "users": {"u1": {"methods": ["card_1"]}, "u2": {"methods": ["gift_2"]}},
}


def _status(s, a):
    return s["orders"][a["order_id"]]["status"]


def _own(s, a):
    return a["payment_id"] in s["users"][s["orders"][a["order_id"]]["user"]]["methods"]


def vocab(hard=()):
    return Vocabulary({"status": _status, "own_method": _own}, hard=set(hard))


def call(order, pay="card_1"):
    return {"order_id": order, "payment_id": pay}


# Vocabulary ---------------------------------------------------------------------------------------------------


def test_unreadable_for_every_lookup_error_and_never_an_exception():
    v = Vocabulary(
        {
            "key": lambda s, a: s["missing"],
            "index": lambda s, a: s["list"][9],
            "type": lambda s, a: s["list"] + 1,
            "attr": lambda s, a: s.nope,
            "value": lambda s, a: int("x"),
            "ok": lambda s, a: s["list"],
        }
    )
    got = v.read({"list": [1, [2, 3]]}, "act", {})
    assert got == {
        "attr": UNREADABLE,
        "index": UNREADABLE,
        "key": UNREADABLE,
        "ok": (1, (2, 3)),
        "type": UNREADABLE,
        "value": UNREADABLE,
    }
    hash(tuple(got.values()))  # every value hashable


def test_values_are_normalised_hashable_and_the_sentinel_survives_copies():
    v = Vocabulary(
        {"d": lambda s, a: {"b": [1], "a": {2}}, "nan": lambda s, a: float("nan"), "tok": lambda s, a: "<unreadable>"}
    )
    got = v.read({}, "x", {})
    assert got["d"] == (("a", (2,)), ("b", (1,)))
    assert got["nan"] is UNREADABLE and got["tok"] is UNREADABLE
    assert copy.deepcopy(UNREADABLE) is UNREADABLE and pickle.loads(pickle.dumps(UNREADABLE)) is UNREADABLE


def test_a_bug_in_a_predicate_is_not_swallowed():
    v = Vocabulary({"bug": lambda s, a: undefined_name})  # noqa: F821
    with pytest.raises(NameError):
        v.read({}, "x", {})


def test_a_predicate_returning_an_object_is_a_clear_error():
    v = Vocabulary({"obj": lambda s, a: object()})
    with pytest.raises(BadInput, match="predicate 'obj' returned a value of type object"):
        v.read({}, "x", {})


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"predicates": [1]}, "must be a mapping"),
        ({"predicates": {"a": 3}}, "not a callable"),
        ({"predicates": {"": _status}}, "non-empty string"),
        ({"predicates": {"a": _status}, "hard": {"b"}}, "not predicates of this vocabulary"),
        ({"predicates": {"a": _status}, "hard": "a"}, "wrap it"),
        ({"predicates": {"a": _status}, "only": {"act": ["z"]}}, "not predicates"),
        ({"predicates": {"a": _status}, "only": {"act": "a"}}, "list of predicate names"),
    ],
)
def test_vocabulary_bad_input(kwargs, message):
    with pytest.raises(BadInput, match=message):
        Vocabulary(**kwargs)


def test_only_restricts_conditions_per_action():
    v = Vocabulary({"status": _status, "own_method": _own}, only={"cancel": ["status"]})
    assert v.conditions("cancel") == ("status",)
    assert v.conditions("pay") == ("own_method", "status")  # absent from `only`: every predicate
    assert v.read(STATE, "cancel", call("#1")) == {"status": "pending"}


def _closure(arg):
    return lambda s, a: s[a[arg]]


def test_fingerprint_covers_code_closures_nested_code_helpers_hard_and_only():
    base = Vocabulary({"p": _closure("order_id")})
    assert base.fingerprint == Vocabulary({"p": _closure("order_id")}).fingerprint  # same code, same captures
    assert base.fingerprint != Vocabulary({"p": _closure("user_id")}).fingerprint  # closure cell differs
    assert base.fingerprint != Vocabulary({"q": _closure("order_id")}).fingerprint  # name differs
    assert (
        Vocabulary({"p": lambda s, a: [x for x in a if x > 1]}).fingerprint
        != Vocabulary({"p": lambda s, a: [x for x in a if x > 2]}).fingerprint
    )  # nested comprehension code
    assert (
        Vocabulary({"p": _status, "q": _own}).fingerprint
        != Vocabulary({"p": _status, "q": _own}, hard={"q"}).fingerprint
    )
    assert Vocabulary({"p": _status}).fingerprint != Vocabulary({"p": _status}, only={"a": ["p"]}).fingerprint

    def helper_user(s, a):
        return _status(s, a)

    def other(s, a):
        return _own(s, a)

    # same wrapper code, different module-level helper called through the closure: differs
    assert Vocabulary({"p": helper_user}).fingerprint != Vocabulary({"p": other}).fingerprint


def test_fingerprint_is_stable_across_processes_with_hash_randomisation():
    code = (
        "from solvi_lab.actions import Vocabulary\n"
        "print(Vocabulary({'p': lambda s, a: a['x'] in {'pending', 'processed', 'delivered'}}).fingerprint)"
    )
    outs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outs.add(
            subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=REPO
            ).stdout
        )
    assert len(outs) == 1


# the model: allowed values, signatures, verdicts --------------------------------------------------------------


def test_first_example_of_the_specification():
    m = ConservativeActionModel(vocab())
    m.observe(STATE, "cancel", call("#1"), accepted=True)
    m.observe(STATE, "cancel", call("#2"), accepted=False)
    p = m.predict(STATE, "cancel", call("#3"))
    assert isinstance(p, Prediction)
    assert (p.verdict, p.support, p.hard) == ("refuse", 1, False)
    assert "status='cancelled'" in p.reason and "{status}" in p.reason
    assert m.predict(STATE, "cancel", call("#5", "gift_2")).verdict == "accept"  # pending, own method


def test_unreadable_is_never_allowed_until_an_accepted_call_shows_it():
    m = ConservativeActionModel(vocab())
    m.observe(STATE, "pay", call("#1"), accepted=True)
    # missing order: both conditions unreadable, never accepted → not "accept"
    assert m.predict(STATE, "pay", call("#99")).verdict == "unknown"
    m.observe(STATE, "pay", call("#98"), accepted=False)
    p = m.predict(STATE, "pay", call("#99"))
    assert p.verdict == "refuse" and "unreadable" in p.reason
    # an accepted call shows the unreadable value: now it is allowed (in a model without that refusal)
    m2 = ConservativeActionModel(vocab())
    m2.observe(STATE, "pay", call("#1"), accepted=True)
    m2.observe(STATE, "pay", call("#97"), accepted=True)
    assert m2.predict(STATE, "pay", call("#99")).verdict == "accept"
    # and here, the same vector accepted and refused: the refusal is unexplained, exact memory says unknown
    m.observe(STATE, "pay", call("#97"), accepted=True)
    assert m.predict(STATE, "pay", call("#99")).verdict == "unknown"


def test_signatures_are_minimal():
    m = ConservativeActionModel(vocab())
    m.observe(STATE, "pay", call("#1"), accepted=True)  # pending, own
    m.observe(STATE, "pay", call("#2", "gift_2"), accepted=False)  # violated {status, own}
    assert m.snapshot()["pay"]["signatures"] == [{"conditions": ["own_method", "status"], "support": 1, "hard": False}]
    # a pair refused only for one condition: the pair signature is no longer minimal
    m.observe(STATE, "pay", call("#5", "card_1"), accepted=False)  # pending, not own → violated {own}
    sigs = m.snapshot()["pay"]["signatures"]
    assert sigs == [{"conditions": ["own_method"], "support": 2, "hard": False}]
    # delivered with own method violates only status: no signature within {status} → unknown, not refuse
    p = m.predict(STATE, "pay", call("#2", "card_1"))
    assert p.verdict == "unknown" and "status='delivered'" in p.reason


def test_signatures_are_recomputed_as_allowed_sets_grow():
    m = ConservativeActionModel(vocab())
    m.observe(STATE, "pay", call("#1"), accepted=True)  # allowed: status pending, own True
    m.observe(STATE, "pay", call("#2", "gift_2"), accepted=False)  # delivered, not own: violated {own, status}
    assert m.predict(STATE, "pay", call("#3", "card_1")).verdict == "refuse"  # cancelled, not own ⊇ {own, status}
    # now delivered is accepted (with an own method): the refused call is explained by own_method alone
    m.observe(STATE, "pay", call("#2", "card_1"), accepted=True)
    assert m.snapshot()["pay"]["signatures"] == [{"conditions": ["own_method"], "support": 1, "hard": False}]
    assert m.predict(STATE, "pay", call("#5", "card_1")).verdict == "refuse"  # pending, not own
    assert m.predict(STATE, "pay", call("#2", "card_1")).verdict == "accept"


def test_refuse_versus_unknown():
    m = ConservativeActionModel(vocab())
    m.observe(STATE, "cancel", call("#1"), accepted=True)
    m.observe(STATE, "cancel", call("#2"), accepted=False)  # status delivered, own True → signature {status}
    assert m.predict(STATE, "cancel", call("#4", "gift_2")).verdict == "refuse"  # ⊇ {status}
    p = m.predict(STATE, "cancel", call("#5", "card_1"))  # pending, not own: {own} violated, no signature within
    assert p.verdict == "unknown" and p.support == 0 and "no refusal signature" in p.reason


def test_hard_when_any_matching_signature_has_a_hard_condition():
    m = ConservativeActionModel(vocab(hard={"own_method"}))
    m.observe(STATE, "pay", call("#1"), accepted=True)
    m.observe(STATE, "pay", call("#2"), accepted=False)  # {status}
    m.observe(STATE, "pay", call("#5", "card_1"), accepted=False)  # {own_method} (hard)
    only_status = m.predict(STATE, "pay", call("#3", "gift_2"))  # cancelled, own → {status}
    assert only_status.verdict == "refuse" and not only_status.hard
    both = m.predict(STATE, "pay", call("#2", "gift_2"))  # delivered, not own: both signatures match
    assert both.verdict == "refuse" and both.hard and "2 signatures match" in both.reason
    assert m.frame().filter(pl.col("kind") == "signature").select("conditions", "hard").sort("conditions").rows() == [
        ("own_method", True),
        ("status", False),
    ]


def test_risk_and_support_are_laplace_from_the_cases_behind_the_verdict():
    m = ConservativeActionModel(vocab())
    for _ in range(3):
        m.observe(STATE, "cancel", call("#1"), accepted=True)
    m.observe(STATE, "cancel", call("#5", "gift_2"), accepted=True)
    p = m.predict(STATE, "cancel", call("#1"))
    assert p.verdict == "accept" and p.support == 4 and p.risk == pytest.approx(1 / 6)
    for _ in range(2):
        m.observe(STATE, "cancel", call("#2"), accepted=False)
    r = m.predict(STATE, "cancel", call("#3"))
    assert r.support == 2 and r.risk == pytest.approx(3 / 4)


# the unexplained region: exact-vector memory ------------------------------------------------------------------


def test_exact_vector_memory_when_the_vocabulary_cannot_explain_a_refusal():
    v = Vocabulary({"status": _status})
    m = ConservativeActionModel(v)
    m.observe(STATE, "ret", call("#2"), accepted=True)  # delivered accepted
    m.observe(STATE, "ret", call("#1"), accepted=False)  # pending refused → signature {status}
    assert m.predict(STATE, "ret", call("#5")).verdict == "refuse"
    m.observe(STATE, "ret", call("#1"), accepted=True)  # pending accepted too: a pending refusal is unexplained
    m.observe(STATE, "ret", call("#4"), accepted=True)  # processed accepted
    snap = m.snapshot()["ret"]
    assert snap["signatures"] == [] and snap["support"]["unexplained"] == 1
    # vectors whose every value is allowed: exact memory only
    seen_both = m.predict(STATE, "ret", call("#5"))  # pending: accepted once and refused once
    assert seen_both.verdict == "unknown" and "accepted 1 and refused 1" in seen_both.reason
    only_accepted = m.predict(STATE, "ret", call("#4"))  # processed: only accepted
    assert only_accepted.verdict == "accept" and only_accepted.detail["exact_memory"]
    # a vector never seen exactly in the unexplained region: unknown, not accept
    m.observe(STATE, "ret", call("#3"), accepted=True)  # cancelled → allowed
    m2 = ConservativeActionModel(v)
    for order, ok in [("#2", True), ("#4", True), ("#1", False), ("#1", True)]:
        m2.observe(STATE, "ret", call(order), accepted=ok)
    assert m2.predict(STATE, "ret", call("#2")).verdict == "accept"
    m2.observe(STATE, "ret", call("#1"), accepted=False)
    m3 = ConservativeActionModel(Vocabulary({"status": _status, "own_method": _own}))
    m3.observe(STATE, "ret", call("#2"), accepted=True)  # delivered, own
    m3.observe(STATE, "ret", call("#1", "gift_2"), accepted=True)  # pending, not own
    m3.observe(STATE, "ret", call("#2", "gift_2"), accepted=False)  # delivered, not own: all values allowed
    assert m3.predict(STATE, "ret", call("#1")).verdict == "unknown"  # pending, own: every value allowed, never seen
    assert m3.predict(STATE, "ret", call("#2", "gift_2")).verdict == "refuse"  # seen only refused exactly
    assert m3.predict(STATE, "ret", call("#1", "gift_2")).verdict == "accept"  # seen only accepted exactly


def test_violated_vectors_are_still_judged_by_signatures_in_an_unexplained_action():
    m = ConservativeActionModel(vocab())
    m.observe(STATE, "ret", call("#2"), accepted=True)  # delivered, own
    m.observe(STATE, "ret", call("#2"), accepted=False)  # same vector refused: unexplained
    m.observe(STATE, "ret", call("#1"), accepted=False)  # pending: {status}
    assert m.predict(STATE, "ret", call("#3")).verdict == "refuse"


def test_an_action_with_no_conditions():
    v = Vocabulary({"status": _status}, only={"list": []})
    m = ConservativeActionModel(v)
    m.observe(STATE, "list", {}, accepted=True)
    p = m.predict(STATE, "list", {})
    assert p.verdict == "accept" and p.support == 1
    m.observe(STATE, "list", {}, accepted=False)
    assert m.predict(STATE, "list", {}).verdict == "unknown"  # seen accepted and refused


# effects ------------------------------------------------------------------------------------------------------


def test_effects_by_vector_then_by_action():
    m = ConservativeActionModel(vocab())
    m.observe(STATE, "cancel", call("#1"), accepted=True, effect={"status": "cancelled"})  # (own, pending)
    m.observe(STATE, "cancel", call("#4", "gift_2"), accepted=True, effect={"status": "cancelled"})  # (own, processed)
    p = m.predict(STATE, "cancel", call("#4", "gift_2"))  # this vector was seen accepted
    assert p.effects == {"status": "cancelled"} and p.detail["effect_basis"] == "vector"
    # an unseen vector falls back to every accepted call of the action
    p2 = m.predict(STATE, "cancel", call("#3", "gift_2"))
    assert p2.effects == {"status": "cancelled"} and p2.detail["effect_basis"] == "action"
    # a vector seen with two different effects: no prediction
    m.observe(STATE, "cancel", call("#1"), accepted=True, effect={"status": "pending"})
    p3 = m.predict(STATE, "cancel", call("#1"))
    assert p3.effects is None and p3.detail["effect_predicted"] is False
    assert m.predict(STATE, "cancel", call("#4", "gift_2")).effects == {"status": "cancelled"}  # its own vector agrees
    assert m.predict(STATE, "cancel", call("#3", "gift_2")).detail["effect_predicted"] is False  # action-wide: mixed


def test_effects_of_refused_calls_are_ignored():
    m = ConservativeActionModel(vocab())
    m.observe(STATE, "cancel", call("#1"), accepted=True, effect={"status": "cancelled"})
    m.observe(STATE, "cancel", call("#1"), accepted=False, effect={"status": "weird"})
    assert m.predict(STATE, "cancel", call("#1")).effects == {"status": "cancelled"}


# bad input and unknown actions --------------------------------------------------------------------------------


def test_unknown_action_is_unknown_with_a_reason():
    m = ConservativeActionModel(vocab())
    p = m.predict(STATE, "fly", call("#1"))
    assert p.verdict == "unknown" and p.support == 0 and "never observed" in p.reason


@pytest.mark.parametrize(
    "method, args, message",
    [
        ("observe", (STATE, 3, {}, True), "action must be a non-empty string"),
        ("observe", (STATE, "a", [1], True), "args must be a dict"),
        ("observe", (STATE, "a", {}, "yes"), "accepted must be True or False"),
        ("observe", (STATE, "a", {}, True, "cancelled"), "effect must be a dict"),
        ("observe", (STATE, "a", {}, True, {"x": object()}), "not plain JSON"),
        ("predict", (STATE, None, {}), "action must be a non-empty string"),
        ("predict", (STATE, "a", "order_id=#1"), "args must be a dict"),
    ],
)
def test_bad_input_is_a_clear_error(method, args, message):
    m = ConservativeActionModel(vocab())
    with pytest.raises(BadInput, match=message):
        getattr(m, method)(*args)


def test_bad_constructor_arguments():
    with pytest.raises(BadInput, match="vocab must be a Vocabulary"):
        ConservativeActionModel({"status": _status})
    with pytest.raises(BadInput, match="pass a KnowledgeStore or None"):
        ConservativeActionModel(vocab(), store=object())
    with pytest.raises(BadInput, match="commit\\(\\) needs a store"):
        ConservativeActionModel(vocab()).commit()


# journal, commit, replay --------------------------------------------------------------------------------------


def _drive(m, calls):
    for order, pay, ok in calls:
        eff = {"status": "x" + order} if ok else None
        m.observe(STATE, "pay", call(order, pay), accepted=ok, effect=eff)


CALLS = [
    ("#1", "card_1", True),
    ("#2", "gift_2", False),
    ("#5", "card_1", False),
    ("#99", "card_1", False),
    ("#2", "card_1", True),
    ("#4", "gift_2", True),
]


def test_observations_are_journaled_compactly_and_replay_equals_live():
    store = _store()
    live = ConservativeActionModel(vocab(hard={"own_method"}), store=store)
    _drive(live, CALLS)
    recs = [r for r in store.journal if r.kind == OBSERVATION_KIND]
    assert len(recs) == len(CALLS)
    assert recs[3].payload == {
        "action": "pay",
        "vector": {"own_method": "<unreadable>", "status": "<unreadable>"},
        "accepted": False,
        "effect": None,
        "vocab": live.vocab.fingerprint,
    }
    again = ConservativeActionModel.from_journal(store.journal, vocab=vocab(hard={"own_method"}))
    assert again.snapshot() == live.snapshot()
    for order, pay in itertools.product(STATE["orders"].keys() | {"#77"}, ["card_1", "gift_2", "nope"]):
        assert again.predict(STATE, "pay", call(order, pay)) == live.predict(STATE, "pay", call(order, pay))


def test_commit_writes_one_item_per_action_and_supersedes():
    store = _store()
    m = ConservativeActionModel(vocab(), store=store)
    _drive(m, CALLS[:3])
    m.observe(STATE, "cancel", call("#1"), accepted=True)
    first = m.commit()
    assert sorted(first) == ["cancel", "pay"]
    body = store.item(first["pay"])["body"]
    assert body["name"] == "pay" and body["vocab"] == m.vocab.fingerprint
    assert body["allowed"] == {"own_method": [True], "status": ["pending"]}
    assert body["signatures"] == [{"conditions": ["own_method"], "support": 2, "hard": False}]
    assert body["support"] == {"accepted": 1, "refused": 2, "unexplained": 0}
    assert m.commit() == {}  # nothing changed: nothing rewritten
    _drive(m, CALLS[3:])
    second = m.commit()
    assert list(second) == ["pay"] and store.item(second["pay"])["supersedes"] == first["pay"]
    # a replayed model knows which item its next commit supersedes
    again = ConservativeActionModel.from_journal(store.journal, vocab=vocab(), store=store)
    again.observe(STATE, "cancel", call("#2"), accepted=False)
    third = again.commit()
    assert store.item(third["cancel"])["supersedes"] == first["cancel"]
    assert any(r.kind == COMMIT_KIND for r in store.journal)


def test_replay_with_another_vocabulary_is_refused():
    store = _store()
    _drive(ConservativeActionModel(vocab(), store=store), CALLS)
    with pytest.raises(BadInput, match="none under vocabulary"):
        ConservativeActionModel.from_journal(store.journal, vocab=vocab(hard={"status"}))


# frame --------------------------------------------------------------------------------------------------------


def test_frame_lists_allowed_values_and_signatures():
    m = ConservativeActionModel(vocab())
    _drive(m, CALLS)
    f = m.frame()
    assert f.columns == ["action", "kind", "conditions", "values", "support", "hard"]
    allowed = dict(f.filter(pl.col("kind") == "allowed").select("conditions", "values").rows())
    assert allowed == {"own_method": "True", "status": "'delivered', 'pending', 'processed'"}
    sigs = f.filter(pl.col("kind") == "signature").select("conditions", "support").rows()
    assert sigs == [("own_method", 3)]  # #2/gift, #5/card and #99 (both unreadable) all violate own_method


# against a brute-force reference ------------------------------------------------------------------------------


def _position(i):
    return lambda s, a: a["v"][i]


def _reference(observations, conds):
    """The specification, computed from scratch: allowed sets, violated sets, minimal signatures."""
    allowed = [{v[i] for v, ok in observations if ok} for i in range(conds)]
    viol = [frozenset(i for i in range(conds) if v[i] not in allowed[i]) for v, ok in observations if not ok]
    sets = {s for s in viol if s}
    minimal = {s for s in sets if not any(o < s for o in sets)}
    return allowed, minimal, frozenset() in viol


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.tuples(*[st.sampled_from("abc")] * 3), st.booleans()), max_size=25),
    st.tuples(*[st.sampled_from("abcd")] * 3),
)
def test_incremental_model_matches_the_reference(observations, query):
    v = Vocabulary({f"c{i}": _position(i) for i in range(3)})
    m = ConservativeActionModel(v)
    for vec, ok in observations:
        m.observe({}, "act", {"v": vec}, accepted=ok)
    if not observations:
        return
    allowed, minimal, unexplained = _reference(observations, 3)
    snap = m.snapshot()["act"]
    assert [set(snap["allowed"][f"c{i}"]) for i in range(3)] == allowed
    assert {frozenset(int(c[1]) for c in s["conditions"]) for s in snap["signatures"]} == minimal
    # the verdict the rules give
    qv = frozenset(i for i in range(3) if query[i] not in allowed[i])
    if qv:
        want = "refuse" if any(s <= qv for s in minimal) else "unknown"
    elif not unexplained:
        want = "accept"
    else:
        seen_ok = any(vec == query and ok for vec, ok in observations)
        seen_no = any(vec == query and not ok for vec, ok in observations)
        want = "accept" if seen_ok and not seen_no else "refuse" if seen_no and not seen_ok else "unknown"
    assert m.predict({}, "act", {"v": query}).verdict == want


# speed --------------------------------------------------------------------------------------------------------


def test_tens_of_thousands_of_observations_give_the_reference_verdicts():
    """At the size the docs quote (20,000 observations, 6,000 predictions, 20 conditions) every verdict is the
    reference's. Exact behaviour only: the timing is benchmarks/action_model_scale.py's (no timed assertion here)."""
    import random

    rng = random.Random(0)
    v = Vocabulary({f"c{i}": _position(i) for i in range(20)})
    m = ConservativeActionModel(v)
    seen: dict[str, list] = {}
    for _ in range(20_000):
        vec = tuple(rng.randrange(3) for _ in range(20))
        ok = vec[0] != 2 and vec[1] != 2
        action = f"a{rng.randrange(5)}"
        seen.setdefault(action, []).append((vec, ok))
        m.observe({}, action, {"v": list(vec)}, accepted=ok)
    references = {a: _reference(obs, 20) for a, obs in seen.items()}
    for allowed, minimal, unexplained in references.values():
        # the rule the environment applied is what the model learned: c0 = 2 or c1 = 2 is refused, nothing else
        assert minimal == {frozenset({0}), frozenset({1})} and not unexplained
        assert allowed[:2] == [{0, 1}, {0, 1}] and allowed[2:] == [{0, 1, 2}] * 18
    counts = {"accept": 0, "refuse": 0, "unknown": 0}
    for _ in range(6_000):
        action, query = f"a{rng.randrange(5)}", [rng.randrange(4) for _ in range(20)]
        allowed, minimal, _ = references[action]
        violated = frozenset(i for i in range(20) if query[i] not in allowed[i])
        want = "accept" if not violated else "refuse" if any(s <= violated for s in minimal) else "unknown"
        got = m.predict({}, action, {"v": query}).verdict
        assert got == want, (action, query)
        counts[got] += 1
    assert counts == {"accept": 9, "refuse": 4497, "unknown": 1494}  # all three verdicts exercised


def test_unreadable_is_unknown_unless_refusals_were_seen_unreadable():
    """Spec: a condition that cannot be read is never allowed until an accepted call shows it, so the model says
    "unknown" there — unless refused calls were themselves seen with it unreadable (then that is learned)."""
    from solvi_lab.actions import ConservativeActionModel, Vocabulary

    vocab = Vocabulary({"status": lambda s, a: s["orders"][a["id"]]["status"]})
    state = {"orders": {"a": {"status": "pending"}, "b": {"status": "delivered"}}}
    m = ConservativeActionModel(vocab)
    m.observe(state, "cancel", {"id": "a"}, accepted=True)
    m.observe(state, "cancel", {"id": "b"}, accepted=False)
    assert m.predict(state, "cancel", {"id": "b"}).verdict == "refuse"
    p = m.predict(state, "cancel", {"id": "zz"})
    assert p.verdict == "unknown" and "status=unreadable" in p.reason
    m.observe(state, "cancel", {"id": "yy"}, accepted=False)  # a refusal seen with the status unreadable
    assert m.predict(state, "cancel", {"id": "zz"}).verdict == "refuse"


def test_unseen_option_says_unknown_where_a_signature_rests_on_a_value_never_observed():
    vocab = Vocabulary({"len": lambda s, a: len(a["items"]), "kind": lambda s, a: a["kind"]})
    verdicts = {}
    for way in ("refuse", "unknown"):
        m = ConservativeActionModel(vocab, unseen=way)
        m.observe({}, "ret", {"items": [1], "kind": "a"}, accepted=True)
        m.observe({}, "ret", {"items": [1, 2], "kind": "a"}, accepted=False)  # signature {len}, len=2 seen refused
        m.observe({}, "ret", {"items": [1], "kind": "b"}, accepted=False)  # signature {kind}, kind=b seen refused
        calls = [
            {"items": [1, 2], "kind": "a"},  # seen refused value: refuse either way
            {"items": [1, 2, 3], "kind": "a"},  # len=3 never observed: only the generalised signature explains it
            {"items": [1, 2, 3], "kind": "b"},  # len=3 unseen, but {kind} with kind=b (seen) explains the refusal
            {"items": [3], "kind": "a"},  # every value accepted before
        ]
        verdicts[way] = [m.predict({}, "ret", c).verdict for c in calls]
        if way == "unknown":
            p = m.predict({}, "ret", calls[1])
            assert p.detail["unseen_values"] is True and "len=3 never observed in training" in p.reason
            assert m.predict({}, "ret", calls[2]).detail["signatures"] == [["kind"]]
    assert verdicts["refuse"] == ["refuse", "refuse", "refuse", "accept"]
    assert verdicts["unknown"] == ["refuse", "unknown", "refuse", "accept"]


def test_unseen_option_keeps_records_and_state_of_default_models():
    vocab = Vocabulary({"n": lambda s, a: a["n"]})
    a, b = ConservativeActionModel(vocab), ConservativeActionModel(vocab, unseen="unknown")
    for m in (a, b):
        m.observe({}, "go", {"n": 1}, accepted=True)
        m.observe({}, "go", {"n": 2}, accepted=False)
    assert [r.payload for r in a.journal.records()] == [r.payload for r in b.journal.records()]
    assert "unseen" not in a.state() and b.state()["unseen"] == "unknown"
    assert {k: v for k, v in b.state().items() if k != "unseen"} == a.state()
    with pytest.raises(BadInput, match=r"unseen must be one of \['refuse', 'unknown'\], got 'maybe'"):
        ConservativeActionModel(vocab, unseen="maybe")


def test_memory_refuse_never_accepts_from_memory_in_an_unexplained_region():
    # do_grass in Crafter: a sapling with probability 0.1, so a vector accepted before can be refused next time
    vocab = Vocabulary({"cell": lambda s, a: a["cell"], "light": lambda s, a: a["light"]})
    calls = [
        ({"cell": "grass", "light": 1}, True),
        ({"cell": "grass", "light": 0}, True),
        ({"cell": "grass", "light": 0}, True),
        ({"cell": "grass", "light": 1}, False),  # every value accepted before: the region is unexplained
        ({"cell": "sand", "light": 1}, False),  # signature {cell}
    ]
    asked = [{"cell": "grass", "light": 0}, {"cell": "grass", "light": 1}, {"cell": "sand", "light": 0}]
    models = {way: ConservativeActionModel(vocab, memory=way) for way in ("both", "refuse")}
    for m in models.values():
        for args, ok in calls:
            m.observe({}, "do", args, accepted=ok)
    verdicts = {way: [m.predict({}, "do", a).verdict for a in asked] for way, m in models.items()}
    # seen only accepted: accept from memory, or unknown; seen both: unknown; a signature still refuses
    assert verdicts == {"both": ["accept", "unknown", "refuse"], "refuse": ["unknown", "unknown", "refuse"]}
    p = models["refuse"].predict({}, "do", asked[0])
    assert p.detail["exact_memory"] and "accepted 2 time(s), and memory='refuse'" in p.reason
    # a prediction-time choice: the same records; the state names the option only when it is on
    both, refuse = models["both"], models["refuse"]
    assert [r.payload for r in both.journal.records()] == [r.payload for r in refuse.journal.records()]
    assert "memory" not in both.state() and refuse.state()["memory"] == "refuse"
    assert {k: v for k, v in refuse.state().items() if k != "memory"} == both.state()
    with pytest.raises(BadInput, match=r"memory must be one of \['both', 'refuse', 'neither'\], got 'accept'"):
        ConservativeActionModel(vocab, memory="accept")


def test_memory_neither_gives_no_verdict_on_an_action_with_an_unexplained_refusal():
    # the symmetric case of memory="refuse": a chance that refuses a vector it accepted also accepts vectors it
    # refused, and the refused calls a signature rests on may have been refused by that chance, not by their values
    vocab = Vocabulary({"cell": lambda s, a: a["cell"], "light": lambda s, a: a["light"]})
    calls = [
        ("do", {"cell": "grass", "light": 1}, True),
        ("do", {"cell": "grass", "light": 0}, True),
        ("do", {"cell": "sand", "light": 1}, False),  # signature {cell}
        ("do", {"cell": "grass", "light": 2}, False),  # signature {light}: explained so far
        ("go", {"cell": "grass", "light": 1}, True),  # another action, every refusal explained
        ("go", {"cell": "sand", "light": 1}, False),
    ]
    asked = [
        ("do", {"cell": "grass", "light": 0}),
        ("do", {"cell": "sand", "light": 0}),
        ("do", {"cell": "grass", "light": 2}),
        ("go", {"cell": "grass", "light": 1}),
        ("go", {"cell": "sand", "light": 0}),
    ]
    models = {way: ConservativeActionModel(vocab, memory=way) for way in ("both", "refuse", "neither")}
    for m in models.values():
        for action, args, ok in calls:
            m.observe({}, action, args, accepted=ok)
    before = {way: [m.predict({}, a, k).verdict for a, k in asked] for way, m in models.items()}
    # no refusal of "do" is unexplained yet: the three memories agree
    assert before == {way: ["accept", "refuse", "refuse", "accept", "refuse"] for way in models}
    for m in models.values():
        m.observe({}, "do", {"cell": "grass", "light": 1}, accepted=False)  # every value accepted: unexplained
    after = {way: [m.predict({}, a, k).verdict for a, k in asked] for way, m in models.items()}
    assert after == {
        "both": ["accept", "refuse", "refuse", "accept", "refuse"],
        "refuse": ["unknown", "refuse", "refuse", "accept", "refuse"],
        # "do" gets no verdict at all; "go", whose every refusal is explained, is judged as before
        "neither": ["unknown", "unknown", "unknown", "accept", "refuse"],
    }
    p = models["neither"].predict({}, "do", {"cell": "sand", "light": 0})
    assert p.detail["unexplained_action"] and p.detail["violated"] == ["cell"]
    assert "1 refused call(s) of 'do' had only accepted values" in p.reason and "memory='neither'" in p.reason
    assert models["neither"].state()["memory"] == "neither"
    assert {k: v for k, v in models["neither"].state().items() if k != "memory"} == models["both"].state()


def test_min_support_turns_an_accept_on_too_few_accepted_calls_into_unknown():
    # Crafter's do_grass at small training: the sapling came on the one call made, so "accept" rests on one call
    vocab = Vocabulary({"cell": lambda s, a: a["cell"]})
    models = {k: ConservativeActionModel(vocab, min_support=k) for k in (1, 2)}
    for m in models.values():
        m.observe({}, "collect", {"cell": "grass"}, accepted=True)
        m.observe({}, "place", {"cell": "grass"}, accepted=True)
        m.observe({}, "place", {"cell": "grass"}, accepted=True)
        m.observe({}, "place", {"cell": "water"}, accepted=False)
    asked = [("collect", {"cell": "grass"}), ("place", {"cell": "grass"}), ("place", {"cell": "water"})]
    verdicts = {k: [m.predict({}, a, x).verdict for a, x in asked] for k, m in models.items()}
    # only the accept on one call moves; an accept on two calls and a refusal are untouched
    assert verdicts == {1: ["accept", "accept", "refuse"], 2: ["unknown", "accept", "refuse"]}
    p = models[2].predict({}, "collect", {"cell": "grass"})
    assert p.support == 0 and p.detail["below_min_support"] == 1
    assert p.reason.endswith("; an accept needs at least 2 accepted calls (min_support)")
    assert p.risk == models[1].predict({}, "collect", {"cell": "grass"}).risk  # the same risk, no verdict
    # a prediction-time choice: the same records; the state names the option only when it is set
    assert [r.payload for r in models[1].journal.records()] == [r.payload for r in models[2].journal.records()]
    assert "min_support" not in models[1].state() and models[2].state()["min_support"] == 2
    assert {k: v for k, v in models[2].state().items() if k != "min_support"} == models[1].state()
    for bad in (0, -1, 1.5, "2", True):
        with pytest.raises(BadInput, match=r"min_support must be a whole number of calls, 1 or more"):
            ConservativeActionModel(vocab, min_support=bad)
