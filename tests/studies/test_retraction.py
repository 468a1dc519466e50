"""The retraction study's pieces: the synthetic stream, the component measure, Spearman's ρ, and a small run."""

import pytest

from solvi_lab.errors import BadParameter
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.studies import retraction
from solvi_lab.studies.synthetic import apply_stream, iter_operations, operation_stream


def test_stream_is_deterministic_and_lazy_equals_list():
    a = operation_stream(500, seed=3)
    assert a == operation_stream(500, seed=3)
    assert a == list(iter_operations(500, seed=3))
    assert a != operation_stream(500, seed=4)
    kinds = {op[0] for op in a}
    assert {"add", "resolve", "promote", "tick", "decision"} <= kinds
    assert sum(op[0] == "add" for op in a) == 500
    with pytest.raises(BadParameter, match="positive int"):
        operation_stream(0)


def test_derivation_depth_never_exceeds_five():
    ops = [op for op in operation_stream(3000, seed=1) if op[0] == "add"]
    depth = []
    for op in ops:
        depth.append(1 + max((depth[j] for j in op[6]), default=-1) if op[6] else 0)
    assert max(depth) == 5


def test_component_sizes_follow_premises_and_keys():
    ks = KnowledgeStore()
    a = ks.add("fact", {"s": "x", "r": "r", "o": 1}, source="person")
    b = ks.add("fact", {"s": "y", "r": "r", "o": 1}, source="person", derived_from=[a])
    c = ks.add("fact", {"s": "y", "r": "r", "o": 1}, source="spec")  # same key as b
    d = ks.add("fact", {"s": "z", "r": "r", "o": 1}, source="person")  # alone
    assert retraction.component_sizes(ks) == {a: 3, b: 3, c: 3, d: 1}


def test_spearman():
    assert retraction.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert retraction.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert retraction.spearman([1, 1, 1], [1, 2, 3]) == 0.0
    assert retraction.spearman([1], [2]) == 0.0


def test_small_run_is_exact_and_deterministic_where_it_should_be():
    r1 = retraction.run(n_items=400, n_retractions=20, seed=2, progress=False)
    r2 = retraction.run(n_items=400, n_retractions=20, seed=2, progress=False)
    assert r1.metrics["exact"] == r1.metrics["retractions"] == 20 and r1.metrics["verify_ok"] is True
    timing = {
        "median_retraction_s",
        "p99_retraction_s",
        "full_rebuild_s",
        "build_s",
        "spearman_component_time",
        "spearman_component_before_all_time",
        "spearman_refolded_time",
        "claim_cost_grows_with_component",
        "finding_cost_follows_refolded",
    }
    assert {k: v for k, v in r1.metrics.items() if k not in timing} == {
        k: v for k, v in r2.metrics.items() if k not in timing
    }
    with pytest.raises(BadParameter, match="n_retractions"):
        retraction.run(n_items=100, n_retractions=80)


def test_apply_stream_gives_ids_for_every_add():
    ks = KnowledgeStore()
    ids = apply_stream(ks, operation_stream(300, seed=0))
    assert len(ids) == 300 and len(ks) == sum(1 for i in ids if i is not None and i in ks)


def test_spearman_average_ranks_for_ties():
    # x ranks (average for ties): 1, 2.5, 2.5, 4; y ranks: 1, 2, 3, 4 -> Pearson of the ranks = 0.9486832980505138
    assert retraction.spearman([1, 2, 2, 3], [10, 20, 30, 40]) == pytest.approx(0.9486832980505138, rel=1e-12)
    # all but one tied: the ranks are 1.5, 1.5, 3 against 1, 2, 3 -> 0.8660254037844387
    assert retraction.spearman([5, 5, 9], [1, 2, 3]) == pytest.approx(0.8660254037844387, rel=1e-12)


def test_live_components_equal_a_recount_after_every_retraction():
    """The component at the time of a retraction == component_sizes computed from scratch on the store as it is."""
    import random

    ks = KnowledgeStore()
    apply_stream(ks, operation_stream(400, seed=5))
    live = retraction.LiveComponents(ks)
    rng = random.Random(5)
    view = ks.view()
    order = sorted(i for i in view.ids() if view.present(i))
    rng.shuffle(order)
    checked = 0
    for x in order[:25]:
        if x not in ks:
            continue
        ks.retract(x, by="test", why="test")
        live.forget_absent()
        fresh = retraction.component_sizes(ks)
        assert {i: live.size(i) for i in fresh} == fresh
        checked += 1
    assert checked >= 10


def test_three_parts_and_timing_keys():
    r = retraction.run(n_items=400, n_retractions=20, seed=2, progress=False)
    kinds = {c.key: c.kind for c in r.comparison if c.holds is not None}
    assert kinds == {
        "exact_retractions": "claim",
        "verify_at_end": "claim",
        "cost_grows_with_component": "claim",
        "cost_follows_refolded": "finding",
    }
    assert set(retraction.TIMING_KEYS) <= set(kinds)
    assert all(c.threshold for c in r.comparison if c.holds is not None)
    m = r.metrics
    # the component at the time is never larger than the component before all retractions
    rows = r.tables["retractions"]
    assert (rows["component"] <= rows["component_before_all"]).all()
    assert m["claim_cost_grows_with_component"] == (m["spearman_component_time"] >= retraction.COST_FOLLOWS_MIN_RHO)
