"""The Crafter score as Crafter defines it, its interval over worlds, and the per-achievement chart.

Crafter's score (Hafner 2021, section 3): the success rate s_i of each of the 22 achievements — the percentage of
**all** episodes of an agent in which it was unlocked at least once (pooled: one rate per achievement over every
episode) — then S = exp(mean_i ln(1 + s_i)) − 1, the geometric mean with a 1% offset (:func:`crafter_score`).

A mean of scores each taken over a few episodes is a different number: a geometric mean over 8 episodes sits below
the pooled one (a rate of 1 in 8 episodes counts the same as 0 in another group of 8). The study reported such a
mean until 2026-12-04; it is kept as :func:`chunked_score`, labelled, never as the score.

The interval (:func:`world_interval`) resamples **worlds** with replacement (every episode of a drawn world comes
along), because the worlds are the sampled units: episodes in one world share its map.

>>> crafter_score([{a: 0 for a in ACHIEVEMENTS}])
0.0
>>> round(crafter_score([{"collect_wood": 1}, {"place_table": 2}]), 4)
0.4297
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from crafter import constants
from matplotlib.figure import Figure

from ...errors import BadInput

__all__ = ["ACHIEVEMENTS", "success_rates", "crafter_score", "chunked_score", "world_interval", "achievement_chart"]

ACHIEVEMENTS: tuple[str, ...] = tuple(constants.achievements)  # the 22, in the installed package's order


def _check(episodes: Sequence[Mapping[str, int]]) -> None:
    if not episodes:
        raise BadInput("a Crafter score needs at least one episode; pass each episode's achievement counters.")
    unknown = sorted({k for e in episodes for k in e} - set(ACHIEVEMENTS))
    if unknown:
        raise BadInput(
            f"unknown achievement(s) {unknown}; an episode is a dict of Crafter's achievements "
            f"(crafter.constants.achievements) to their counters."
        )


def success_rates(episodes: Sequence[Mapping[str, int]]) -> dict[str, float]:
    """Each achievement's success rate in percent: the share of the episodes whose counter is above 0.

    >>> success_rates([{"collect_wood": 3}, {}])["collect_wood"], success_rates([{}])["eat_cow"]
    (50.0, 0.0)
    """
    _check(episodes)
    n = len(episodes)
    return {a: 100.0 * sum(1 for e in episodes if e.get(a, 0) > 0) / n for a in ACHIEVEMENTS}


def crafter_score(episodes: Sequence[Mapping[str, int]]) -> float:
    """The Crafter score of episodes pooled (see the module docstring), in percent (0–100)."""
    rates = success_rates(episodes)
    return math.exp(sum(math.log(1.0 + s) for s in rates.values()) / len(rates)) - 1.0


def chunked_score(episodes: Sequence[Mapping[str, int]], size: int = 8) -> float:
    """The study's figure until 2026-12-04, kept only as a labelled second figure: the mean of the scores of
    consecutive groups of ``size`` episodes (a trailing shorter group is dropped; at least one full group is needed).

    >>> chunked_score([{"collect_wood": 1}, {"place_table": 1}], size=1) < crafter_score(
    ...     [{"collect_wood": 1}, {"place_table": 1}])
    True
    """
    _check(episodes)
    if size < 1 or len(episodes) < size:
        raise BadInput(f"chunked_score needs size ≥ 1 and at least {size} episodes (got {len(episodes)}).")
    groups = [episodes[i : i + size] for i in range(0, len(episodes) - size + 1, size)]
    return sum(crafter_score(g) for g in groups) / len(groups)


def world_interval(
    episodes: Sequence[Mapping[str, int]], worlds: Sequence[int], seed: int, n: int = 1000
) -> tuple[float, float]:
    """A 95% bootstrap interval of the pooled score, resampling worlds (each with all its episodes).

    ``worlds[i]`` is the world of ``episodes[i]``. With one world the interval is the score itself.

    >>> lo, hi = world_interval([{"collect_wood": 1}, {}], [7, 7], seed=0)
    >>> lo == hi == crafter_score([{"collect_wood": 1}, {}])
    True
    """
    _check(episodes)
    if len(worlds) != len(episodes):
        raise BadInput(f"world_interval: {len(episodes)} episodes but {len(worlds)} world ids; give one per episode.")
    by_world: dict[int, list[Mapping[str, int]]] = {}
    for w, e in zip(worlds, episodes, strict=True):
        by_world.setdefault(w, []).append(e)
    groups = list(by_world.values())
    if len(groups) == 1:
        s = crafter_score(episodes)
        return s, s
    rng = np.random.default_rng(seed)
    scores = sorted(
        crafter_score([e for i in rng.integers(0, len(groups), len(groups)) for e in groups[i]]) for _ in range(n)
    )
    return scores[int(0.025 * n)], scores[int(0.975 * n) - 1]


def achievement_chart(rates: Mapping[str, Mapping[str, float]], title: str = "") -> Figure:
    """The chart of Crafter's paper: each achievement's success rate (log scale, percent), the arms' bars side by
    side. ``rates``: arm label → :func:`success_rates`. A rate of 0 draws no bar (log scale); its label says 0."""
    if not rates:
        raise BadInput("achievement_chart needs at least one arm's success rates.")
    fig = Figure(figsize=(12, 4.2))
    ax = fig.subplots()
    k = len(rates)
    width = 0.8 / k
    x = np.arange(len(ACHIEVEMENTS))
    for j, (label, r) in enumerate(rates.items()):
        missing = [a for a in ACHIEVEMENTS if a not in r]
        if missing:
            raise BadInput(f"arm {label!r} has no rate for {missing}; pass success_rates(...) of its episodes.")
        values = [r[a] for a in ACHIEVEMENTS]
        ax.bar(x - 0.4 + width * (j + 0.5), [v if v > 0 else np.nan for v in values], width, label=label)
    ax.set_yscale("log")
    ax.set_ylim(0.01, 100)
    ax.set_ylabel("success rate (%)")
    ax.set_xticks(x)
    ax.set_xticklabels([a.replace("_", " ") for a in ACHIEVEMENTS], rotation=60, ha="right", fontsize=8)
    ax.legend(fontsize=8, ncol=min(k, 5), loc="lower left", bbox_to_anchor=(0.0, 1.0), frameon=False)  # above the bars
    if title:
        ax.set_title(title, fontsize=10, pad=8 + 14 * ((k + 4) // 5))
    fig.tight_layout()
    return fig
