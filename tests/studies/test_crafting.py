"""The toy-crafting study: deterministic, its three parts (claims, finding, mechanisms) and its pieces."""

from __future__ import annotations

import random

import pytest

from solvi_lab.errors import BadParameter
from solvi_lab.studies import crafting


@pytest.fixture(scope="module")
def quick():
    return crafting.run(**crafting.QUICK_PARAMS, seed=0, progress=False)


def test_same_seed_same_metrics(quick):
    again = crafting.run(**crafting.QUICK_PARAMS, seed=0, progress=False)
    assert again.metrics == quick.metrics
    assert quick.name == "toy_crafting" and quick.params["seed"] == 0


def test_three_parts_each_row_once_with_a_threshold(quick):
    checked = [c for c in quick.comparison if c.holds is not None]
    by_kind = {k: [c.key for c in checked if c.kind == k] for k in ("claim", "finding", "mechanism")}
    assert by_kind == {
        "claim": list(crafting.CLAIMS),
        "finding": list(crafting.FINDINGS),
        "mechanism": list(crafting.MECHANISMS),
    }
    assert len(checked) == len(set(quick.claims())) and all(c.threshold for c in checked)
    m = quick.metrics
    assert m["claims_checked"] == len(crafting.CLAIMS)
    assert m["claims_holding"] == sum(m[f"claim_{k}"] for k in crafting.CLAIMS)
    # mechanisms hold by construction: one failing is a bug, not a finding
    assert all(m[f"mechanism_{k}"] for k in crafting.MECHANISMS)


def test_the_explorer_does_not_retry_the_call_that_failed():
    """Before any acceptance a refusal explains nothing, but the very call that failed in this world is not retried."""
    agent = crafting._Agent(crafting.ConservativeActionModel(crafting._vocabulary(False)), None, random.Random(0))
    world = crafting.make_world(random.Random(1))
    env = crafting._Env(world)
    s = env.state()
    assert not agent._refused(s, "make_pickaxe")
    agent.model.observe(s, "make_pickaxe", {}, accepted=False)
    agent._observed += 1
    agent.failed_here.add(agent._condition_key(s, "make_pickaxe"))
    assert agent._refused(s, "make_pickaxe")
    assert not agent._refused(dict(s, wood=1), "make_pickaxe")  # another situation: worth a try
    agent.new_world()
    assert not agent._refused(s, "make_pickaxe")  # nothing carried to the next world


def test_claims_read_from_the_metrics(quick):
    m = quick.metrics
    assert m["carried_achievements"] > m["nothing_achievements"]
    assert m["carried_steps_to_stone"] < m["nothing_steps_to_stone"]
    assert m["carried_failed_per_100"] < m["nothing_failed_per_100"]
    assert m["nothing_agenda_past_gate"] == 0 and m["carried_agenda_past_gate"] == 0
    assert m["nothing_agenda_failed_per_100"] == 0 and m["carried_agenda_failed_per_100"] == 0
    assert m["carried_place_steps_to_stone"] > m["carried_steps_to_stone"]
    assert m["fm_with_repeats_per_100"] * crafting.LARGE_FACTOR <= m["fm_without_repeats_per_100"]
    assert m["changed_streams_dropped"] == crafting.QUICK_PARAMS["streams"]
    assert m["changed_s1_wrong_after_drop"] == 0 and m["changed_contradictions_in_a"] == 0
    assert m["changed_view_equals_map"] is True and m["journals_verified"] is True


def test_metrics_are_flat_json_scalars(quick):
    assert all(v is None or isinstance(v, (bool, int, float, str)) for v in quick.metrics.values())
    assert set(quick.figures) == {"achievements", "steps_to_stone"}
    assert quick.tables["arms"]["arm"].to_list() == list(crafting.ARMS)


def test_a_world_is_what_the_docstring_says():
    w = crafting.make_world(random.Random(3))
    assert len(set(w.names)) == 8 and sorted(w.kinds.values()) == sorted(crafting.KINDS)
    assert all(len(doors) == 3 and set(doors) == set(crafting.DOORS) for doors in w.doors.values())
    # doors are two-way: every door's destination has a door back
    assert all(p in w.doors[q].values() for p, doors in w.doors.items() for q in doors.values())
    b = crafting.rewire(w, random.Random(4))
    assert b.names == w.names and b.kinds == w.kinds and b.doors != w.doors


def test_the_environment_enforces_its_checks():
    w = crafting.make_world(random.Random(0))
    env = crafting._Env(w)
    env.place = next(p for p in w.names if w.kinds[p] == "meadow")
    assert not env.operate("collect_wood") and not env.operate("place_table")
    env.place = next(p for p in w.names if w.kinds[p] == "forest")
    assert env.operate("collect_wood") and env.inv["wood"] == 1 and env.achieved == {"collect_wood"}


@pytest.mark.parametrize("params", [{"streams": 0}, {"worlds": 2}, {"steps": 5.0}, {"episodes": True}, {"seed": "0"}])
def test_bad_parameters_are_refused(params):
    with pytest.raises(BadParameter):
        crafting.run(**params, progress=False)
