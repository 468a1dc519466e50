"""The Crafter score as Crafter defines it: pooled success rates, the geometric mean with the 1% offset, intervals
over worlds, the old 8-episode mean kept apart, and the per-achievement chart. Hand-computable cases."""

from __future__ import annotations

import math

import polars as pl
import pytest

from solvi_lab.errors import BadInput
from solvi_lab.studies.crafter.scoring import (
    ACHIEVEMENTS,
    achievement_chart,
    chunked_score,
    crafter_score,
    success_rates,
    world_interval,
)

ALL = {a: 1 for a in ACHIEVEMENTS}


def test_there_are_22_achievements_from_the_installed_package() -> None:
    assert len(ACHIEVEMENTS) == 22
    assert "collect_sapling" in ACHIEVEMENTS and "eat_plant" in ACHIEVEMENTS


def test_success_rates_are_shares_of_episodes_with_the_counter_above_zero() -> None:
    rates = success_rates([{"collect_wood": 5, "eat_cow": 0}, {"collect_wood": 1}, {}, {"place_table": 1}])
    assert rates["collect_wood"] == 50.0
    assert rates["place_table"] == 25.0
    assert rates["eat_cow"] == 0.0  # a counter at 0 is not an unlock
    assert set(rates) == set(ACHIEVEMENTS)


def test_the_score_is_the_geometric_mean_with_the_one_percent_offset() -> None:
    assert crafter_score([ALL]) == pytest.approx(100.0)
    assert crafter_score([{}]) == 0.0
    assert crafter_score([ALL, {}]) == pytest.approx(50.0)  # every rate 50: exp(ln 51) - 1
    assert crafter_score([{"collect_wood": 1}]) == pytest.approx(101.0 ** (1 / 22) - 1)
    # two rates of 50%, twenty of 0%
    assert crafter_score([{"collect_wood": 1}, {"place_table": 2}]) == pytest.approx(51.0 ** (2 / 22) - 1)


def test_pooling_differs_from_the_mean_of_small_groups() -> None:
    eps = [{"collect_wood": 1}, {"place_table": 1}]
    pooled = crafter_score(eps)
    chunks = chunked_score(eps, size=1)
    assert pooled == pytest.approx(51.0 ** (1 / 11) - 1)  # 0.4297
    assert chunks == pytest.approx(101.0 ** (1 / 22) - 1)  # each group scores 0.2334
    assert chunks < pooled
    # a trailing shorter group is dropped: 3 episodes in groups of 2 -> one group
    assert chunked_score([ALL, {}, ALL], size=2) == pytest.approx(50.0)


def test_the_interval_resamples_worlds_not_episodes() -> None:
    eps = [ALL, {}]
    # both episodes in one world: every resample is that world, the interval is the score
    assert world_interval(eps, [3, 3], seed=0) == (pytest.approx(50.0), pytest.approx(50.0))
    # two worlds: resamples give 0, 50 or 100; the 95% interval spans them
    lo, hi = world_interval(eps, [3, 4], seed=0)
    assert (lo, hi) == (pytest.approx(0.0), pytest.approx(100.0))
    assert world_interval(eps, [3, 4], seed=0) == world_interval(eps, [3, 4], seed=0)  # seeded
    same = world_interval([ALL, ALL, ALL], [1, 2, 3], seed=5)
    assert same == (pytest.approx(100.0), pytest.approx(100.0))


def test_bad_input_says_what_is_wrong() -> None:
    with pytest.raises(BadInput, match="at least one episode"):
        crafter_score([])
    with pytest.raises(BadInput, match="unknown achievement"):
        crafter_score([{"collect_wod": 1}])
    with pytest.raises(BadInput, match="at least 8 episodes"):
        chunked_score([ALL] * 7, size=8)
    with pytest.raises(BadInput, match="world ids"):
        world_interval([ALL, ALL], [1], seed=0)
    with pytest.raises(BadInput, match="no rate"):
        achievement_chart({"x": {"collect_wood": 1.0}})


def test_the_chart_has_22_groups_and_one_series_per_arm_on_a_log_scale() -> None:
    fig = achievement_chart({"a": success_rates([ALL, {}]), "b": success_rates([{"collect_wood": 1}])})
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    assert len(ax.get_xticklabels()) == 22
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b"]
    heights = [p.get_height() for p in ax.patches]
    assert len(heights) == 44
    assert heights[:22] == [50.0] * 22
    wood = 22 + ACHIEVEMENTS.index("collect_wood")
    assert heights[wood] == 100.0
    assert all(math.isnan(h) for i, h in enumerate(heights[22:], start=22) if i != wood)  # 0% draws no bar


def test_the_scoreboard_reads_stored_episodes_and_renders_the_table(tmp_path) -> None:
    import json

    from solvi_lab.studies.crafter import scoreboard

    def row(arm: str, world: int, died: bool, cause: str | None, got: set[str]) -> dict:
        return {
            "arm": arm,
            "world": world,
            "seed": 500 + world,
            "steps": 10 if died else 10_000,
            "died": died,
            "cause": cause,
            "limit": 10_000,
            **{f"a:{a}": int(a in got) for a in ACHIEVEMENTS},
        }

    (tmp_path / "survivor.jsonl").write_text(
        "\n".join(
            json.dumps(row("survivor", i, i == 0, "zombie" if i == 0 else None, {"collect_wood"})) for i in range(2)
        )
    )
    (tmp_path / "random.jsonl").write_text(json.dumps(row("random", 0, True, "arrow", set())))
    assert scoreboard.stored(tmp_path) == tmp_path
    assert scoreboard.stored(tmp_path / "none") is None
    episodes = scoreboard.load(tmp_path)
    t = scoreboard.table(episodes)
    assert t["arm"].to_list() == ["random", "survivor"]  # the study's order, not the files'
    s = t.row(1, named=True)
    assert s["score"] == pytest.approx(101.0 ** (1 / 22) - 1)  # collect_wood in both episodes
    assert (s["deaths"], s["death_share"], s["mean_steps"], s["causes"]) == (1, 0.5, 5005.0, "zombie 1")
    assert s["mean_of_8_episode_scores"] is None  # fewer than 8 episodes
    assert scoreboard.rates(episodes).filter(pl.col("achievement") == "collect_wood").row(0) == (
        "collect_wood",
        0.0,
        100.0,
    )
    with pytest.raises(BadInput, match="no stored score runs"):
        scoreboard.load(tmp_path / "none")
