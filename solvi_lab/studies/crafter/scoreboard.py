"""The long-episode score runs (``benchmarks/crafter_score.py``): stored episodes, their table, their chart.

Each arm's episodes are stored one JSON object a line in ``<folder>/<arm>.jsonl`` (the rows of
:func:`.protocol.play_arms`, plus the run's ``steps`` limit) as they are played, so a long run is read back (and
rendered in the notebook and the report) without replaying it. :func:`table` gives, per arm, the Crafter score
pooled over every episode with its 95% interval over worlds, the old 8-episode mean beside it (labelled), deaths
and their causes, and the cheap achievements' rates; :data:`PUBLISHED` is the scoreboard with each entry's input.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.figure import Figure

from ...errors import BadInput
from .protocol import ARM_LABELS, ARMS
from .scoring import ACHIEVEMENTS, achievement_chart, chunked_score, crafter_score, success_rates, world_interval

__all__ = ["PUBLISHED", "INPUT_OURS", "STORED", "stored", "load", "table", "rates", "chart", "published_table"]

#: Where ``benchmarks/crafter_score.py`` stores its runs (in the repository, committed with their commit ids).
STORED = Path(__file__).resolve().parents[3] / "results" / "benchmarks" / "crafter_score"

#: What our agents read (stated in the table itself).
INPUT_OURS = "symbolic local view (9×7 materials and creatures, inventory) + what it remembers; no pixels"
#: The published scoreboard: (agent, score, input, experience) — Hafner 2021 and the papers the issue lists.
PUBLISHED: tuple[tuple[str, float, str, str], ...] = (
    ("random (Hafner 2021)", 1.6, "none", "—"),
    ("PPO (Hafner 2021)", 4.6, "pixels", "1M steps"),
    ("DreamerV2 (Hafner 2021)", 10.0, "pixels", "1M steps"),
    ("DreamerV3 (Hafner 2023)", 14.5, "pixels", "1M steps"),
    ("best pixel agent, official scoreboard", 19.4, "pixels", "1M steps"),
    ("SPRING (GPT-4 with the Crafter paper)", 27.3, "text description of the view + the paper", "no training"),
    ("LLM-built causal model driving PPO", 33.6, "symbolic + LLM", "5M steps"),
    ("human experts (Hafner 2021)", 50.5, "pixels", "—"),
)


def stored(folder: str | Path | None = None) -> Path | None:
    """The folder of stored runs (``STORED`` unless given), or None when it holds none (the benchmark was not run
    in this checkout)."""
    path = Path(folder) if folder is not None else STORED
    return path if path.is_dir() and any(path.glob("*.jsonl")) else None


def load(folder: str | Path) -> pl.DataFrame:
    """Every stored episode of every arm in the folder (one row each; ``a:<achievement>`` columns 0/1)."""
    folder = Path(folder)
    files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    if not files:
        raise BadInput(f"no stored score runs in {folder}; run `python benchmarks/crafter_score.py --out {folder}`.")
    order = ["random", *ARMS[1:], *[a for a in ARM_LABELS if a not in ARMS]]  # the study's arms, then the survivor's
    files.sort(
        key=lambda f: (order.index(f.stem.split("@")[0]) if f.stem.split("@")[0] in order else len(order), f.stem)
    )
    rows: list[dict[str, Any]] = []
    for f in files:
        rows += [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
    return pl.DataFrame(rows, infer_schema_length=None)


def _eps(e: pl.DataFrame) -> list[dict[str, int]]:
    return [{a: r[f"a:{a}"] for a in ACHIEVEMENTS} for r in e.iter_rows(named=True)]


def table(episodes: pl.DataFrame, seed: int = 0) -> pl.DataFrame:
    """Per arm (in the stored order): episodes, step limit, score (pooled) with its 95% interval over worlds, the mean
    of 8-episode scores (the old figure), deaths and their share, mean steps, the causes of death, and the share of
    episodes unlocking collect_sapling, place_plant, eat_plant and wake_up."""
    out = []
    for arm in episodes["arm"].unique(maintain_order=True).to_list():
        e = episodes.filter(pl.col("arm") == arm)
        eps = _eps(e)
        lo, hi = world_interval(eps, e["seed"].to_list(), seed)
        causes = Counter(c for c in e["cause"].to_list() if c)
        rates = success_rates(eps)
        out.append(
            {
                "arm": arm,
                "label": ARM_LABELS.get(arm, arm),
                "input": "none" if arm == "random" else INPUT_OURS,
                "episodes": e.height,
                "step_limit": int(e["limit"].max()),
                "score": crafter_score(eps),
                "score_lo": lo,
                "score_hi": hi,
                "mean_of_8_episode_scores": chunked_score(eps, 8) if len(eps) >= 8 else None,
                "deaths": int(e["died"].sum()),
                "death_share": float(e["died"].mean()),
                "mean_steps": float(e["steps"].mean()),
                "causes": ", ".join(f"{k} {v}" for k, v in causes.most_common()),
                **{a: rates[a] for a in ("collect_sapling", "place_plant", "eat_plant", "wake_up")},
            }
        )
    return pl.DataFrame(out)


def rates(episodes: pl.DataFrame) -> pl.DataFrame:
    """Each achievement's success rate (percent) per arm: one row per achievement, one column per arm."""
    by_arm = {
        arm: success_rates(_eps(episodes.filter(pl.col("arm") == arm)))
        for arm in episodes["arm"].unique(maintain_order=True).to_list()
    }
    return pl.DataFrame(
        {"achievement": list(ACHIEVEMENTS), **{a: [r[x] for x in ACHIEVEMENTS] for a, r in by_arm.items()}}
    )


def chart(episodes: pl.DataFrame, arms: list[str] | None = None) -> Figure:
    """Crafter's per-achievement chart (log scale, 22 groups, the arms side by side)."""
    arms = arms or episodes["arm"].unique(maintain_order=True).to_list()
    by_arm = {
        f"{a} ({crafter_score(_eps(episodes.filter(pl.col('arm') == a))):.1f})": success_rates(
            _eps(episodes.filter(pl.col("arm") == a))
        )
        for a in arms
    }
    n = episodes.filter(pl.col("arm") == arms[0]).height
    limit = int(episodes["limit"].max())
    return achievement_chart(by_arm, title=f"success rates over {n} held-out worlds, episodes of up to {limit:,} steps")


def published_table() -> pl.DataFrame:
    """The published scoreboard with each agent's input and experience."""
    return pl.DataFrame(
        [{"agent": a, "score": s, "input": i, "experience": x} for a, s, i, x in PUBLISHED],
    )
