"""The risk dungeon study: deterministic per seed, its claims hold on the quick size, its pieces behave."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from solvi_lab.errors import BadParameter
from solvi_lab.studies import dungeon
from solvi_lab.studies.registry import REPO_ROOT

# Each claim of the specification once — the orderings without their forced "none" halves — then our findings (the
# trends without the warm-up games) and the mechanism checks.
CLAIMS = (
    "protect_far_fewer_deaths",
    "protect_declines",
    "no_expiry_gate_declines_more",
    "risk_budget_no_decline",
)
FINDINGS = ("protect_declines_after_warmup", "risk_budget_no_decline_after_warmup")
# The Protect < RiskBudget halves are near-forced (RiskBudget is Protect plus the refused descents it takes).
MECHANISMS = (
    "depth_risk_budget_above_protect",
    "deaths_risk_budget_above_protect",
    "protect_takes_no_refused_action",
    "risk_budget_never_takes_hard",
    "gate_replay_matches_live",
)


@pytest.fixture(scope="module")
def quick():
    return dungeon.run(**dungeon.QUICK_PARAMS, seed=0, progress=False)


def test_same_seed_same_metrics(quick):
    again = dungeon.run(**dungeon.QUICK_PARAMS, seed=0, progress=False)
    assert again.metrics == quick.metrics
    assert again.tables["depth_by_game"].equals(quick.tables["depth_by_game"])


def test_another_seed_another_dungeon(quick):
    other = dungeon.run(**dungeon.QUICK_PARAMS, seed=1, progress=False)
    assert other.metrics != quick.metrics


def test_every_claim_once_with_its_threshold(quick):
    kinds = {c.key: c.kind for c in quick.comparison if c.holds is not None}
    assert [k for k, v in kinds.items() if v == "claim"] == list(CLAIMS)
    assert [k for k, v in kinds.items() if v == "finding"] == list(FINDINGS)
    assert [k for k, v in kinds.items() if v == "mechanism"] == list(MECHANISMS)
    assert all(c.threshold for c in quick.comparison if c.holds is not None)
    assert set(quick.claims()) == set(CLAIMS) | set(FINDINGS) | set(MECHANISMS)
    m = quick.metrics
    assert m["claims_checked"] == len(CLAIMS)
    assert m["claims_holding"] == sum(quick.claims()[k] for k in CLAIMS)


def test_claims_restated_from_raw_numbers(quick):
    """Each claim's verdict agrees with the raw numbers, so a wrong claim formula cannot hide a wrong ordering."""
    m, c = quick.metrics, quick.claims()
    assert c["depth_risk_budget_above_protect"] == (m["protect_mean_depth"] < m["risk_budget_mean_depth"])
    assert c["deaths_risk_budget_above_protect"] == (m["protect_targeted_deaths"] < m["risk_budget_targeted_deaths"])
    assert c["protect_declines_after_warmup"] == (m["protect_middle_third"] > m["protect_last_third"])
    assert c["risk_budget_no_decline_after_warmup"] == (m["risk_budget_last_third"] >= m["risk_budget_middle_third"])
    ratio = m["protect_targeted_deaths"] / m["none_targeted_deaths"]
    assert c["protect_far_fewer_deaths"] == (ratio <= 2 * 40 / 482)
    assert c["protect_declines"] == (m["protect_first_third"] > m["protect_last_third"])
    assert c["risk_budget_no_decline"] == (m["risk_budget_last_third"] >= m["risk_budget_first_third"])
    assert c["gate_replay_matches_live"] is True and c["protect_takes_no_refused_action"] is True


def test_a_failing_claim_is_reported_not_dropped(quick):
    """At quick seed 0 Protect's ratio is 0.38 (> 1/6) and Protect rises: both rows are there, marked NO."""
    frame = quick.comparison_frame()
    rows = {k: h for k, h in zip(frame["key"], frame["holds"])}
    assert rows["protect_far_fewer_deaths"] == "NO" and rows["protect_declines"] == "NO"
    assert frame.filter(frame["key"] == "protect_declines")["part"].to_list() == ["claim (specification)"]


def test_metrics_are_flat_and_consistent(quick):
    m = quick.metrics
    assert all(isinstance(v, (bool, int, float, str)) for v in m.values())
    json.dumps(m, allow_nan=False)
    assert m["games_per_arm"] == 4 * 30
    for arm in dungeon.ARMS:
        assert m[f"{arm}_targeted_deaths"] == m[f"{arm}_pit_deaths"] + m[f"{arm}_guardian_deaths"]
        assert 0 <= m[f"{arm}_mean_depth"] <= dungeon.MAX_DEPTH
    # only RiskBudget trades refusals; Protect and the never-expiring gate never execute a refused descent
    assert m["protect_risky_per_game"] == m["gate_no_expiry_risky_per_game"] == m["none_risky_per_game"] == 0.0
    assert m["risk_budget_risky_per_game"] >= m["risk_budget_risky_by_policy_per_game"] > 0
    # no knowledge never learns where the pits are: it dies in them far more often than any knowing arm
    assert m["none_pit_deaths"] > 3 * max(m[f"{a}_pit_deaths"] for a in ("protect", "risk_budget", "gate_no_expiry"))


def test_result_shape(quick):
    assert quick.name == "risk_dungeon"
    assert quick.params == {"streams": 4, "games": 30, "seed": 0}
    frame = quick.comparison_frame()
    assert frame.height == len(quick.comparison)
    assert len([c for c in quick.comparison if c.holds is not None]) == len(CLAIMS) + len(FINDINGS) + len(MECHANISMS)
    fig = quick.figures["depth_by_game"]
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None
    assert len(ax.get_lines()) == len(dungeon.ARMS)


def test_expected_file_matches_quick_params(quick):
    expected = json.loads(Path(REPO_ROOT, "data/expected/risk_dungeon.json").read_text(encoding="utf-8"))
    assert expected["study"] == "risk_dungeon"
    assert {k: expected["quick_params"][k] for k in dungeon.QUICK_PARAMS} == dungeon.QUICK_PARAMS
    for name, spec in expected["metrics"].items():
        if "exact" in spec:
            assert quick.metrics[name] == spec["exact"], name


def test_guardian_and_floor_story():
    assert [dungeon.guardian_risk(d, 1) for d in (1, 2, 3)] == [0.0, 0.0, 0.0]
    assert dungeon.guardian_risk(5, 1) == pytest.approx(0.3)
    assert dungeon.guardian_risk(10, 1) == 0.9  # capped
    assert dungeon.guardian_risk(7, 3) == 0.0 and dungeon.guardian_risk(8, 3) == pytest.approx(0.15)
    assert dungeon.hero_floor(2) == 3


def test_door_memory():
    m = dungeon.DoorMemory()
    assert m.predict(1, "left").verdict == "unknown"
    m.passed(1, "left")
    m.passed(1, "left")
    m.fell(1, "right")
    assert (m.predict(1, "left").verdict, m.predict(1, "left").support) == ("accept", 2)
    p = m.predict(1, "right")
    assert (p.verdict, p.hard, p.risk) == ("refuse", True, 1.0)
    assert m.predict(2, "left").verdict == "unknown"  # levels do not share doors


def test_none_arm_is_protect_without_knowledge(quick):
    """The first game of a stream is played before anything is learned: "none" and Protect play it identically."""
    games = quick.tables["depth_by_game"]
    assert games["none"][0] == games["protect"][0]
    assert games["none"][1:].to_list() != games["protect"][1:].to_list()
    assert dungeon._make_agent("none").policy.__class__ is dungeon.Protect


def test_none_arm_is_the_explorer():
    """With no knowledge every prediction is unknown: the hero descends through the door System 2 draws."""
    agent = dungeon._make_agent("none")
    pits = np.array([-1] + [2] * dungeon.MAX_DEPTH)
    zeros = np.zeros(dungeon.MAX_DEPTH + 1)
    ones = np.ones(dungeon.MAX_DEPTH + 1)
    out = dungeon._play(agent, pits, dungeon._Game(3, ones, ones, zeros))  # door 0 everywhere, no monster
    assert (out.deepest, out.death) == (dungeon.MAX_DEPTH, None)
    # run() forgets before every game: a fresh agent draws door 2, the pit at level 1
    out = dungeon._play(dungeon._make_agent("none"), pits, dungeon._Game(3, ones, ones, ones * 0.99))
    assert (out.deepest, out.death) == (0, "pit")
    # kept (as Protect keeps it), the same agent would have walked the doors it passed
    out = dungeon._play(agent, pits, dungeon._Game(3, ones, ones, ones * 0.99))
    assert (out.deepest, out.death) == (dungeon.MAX_DEPTH, None)


def test_protect_leaves_at_the_learned_bound():
    agent = dungeon._make_agent("protect")
    pits = np.array([-1] + [2] * dungeon.MAX_DEPTH)
    safe = np.ones(dungeon.MAX_DEPTH + 1)
    kill_at_6 = safe.copy()
    kill_at_6[6] = 0.0  # the wanderer kills on arrival at level 6
    door0 = np.zeros(dungeon.MAX_DEPTH + 1)
    out = dungeon._play(agent, pits, dungeon._Game(3, safe, kill_at_6, door0))
    assert (out.deepest, out.death) == (6, "wanderer")
    out = dungeon._play(agent, pits, dungeon._Game(3, safe, safe, door0))
    assert (out.deepest, out.death, out.risky) == (5, None, 0)  # refused 6: left alive at 5


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"streams": 0}, "streams"),
        ({"games": 2}, "games"),
        ({"games": 3.0}, "games"),
        ({"seed": "0"}, "seed"),
        ({"streams": True}, "streams"),
    ],
)
def test_bad_parameters(kwargs, needle):
    with pytest.raises(BadParameter, match=needle):
        dungeon.run(**{"streams": 1, "games": 3, **kwargs}, progress=False)


def test_forced_halves_are_shown_not_counted(quick):
    """ "none" dies in every game at quick seed 0, so "none < Protect" and "RiskBudget < none" are forced: rows with no
    verdict, and the caveats say so."""
    m = quick.metrics
    assert m["none_survived_games"] == 0 and m["protect_survived_games"] > 0
    forced = [c for c in quick.comparison if "forced" in c.note and "half" in c.measure]
    assert len(forced) == 2 and all(c.holds is None for c in forced)
    assert any("forced" in c for c in quick.caveats) and any("warm-up" in c for c in quick.caveats)


def test_risk_budget_is_offered_hard_refusals_and_takes_none(quick):
    m = quick.metrics
    assert m["risk_budget_hard_refusals_offered"] > 0 and m["risk_budget_hard_refusals_taken"] == 0
    assert m["protect_hard_refusals_taken"] == 0 and m["none_hard_refusals_offered"] == 0  # none knows no pit
