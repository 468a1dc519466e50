"""The action-model experiment: record the explorer's calls on training and held-out worlds, train, grade, ablate.

The explorer is :class:`.explorer.Explorer`: the carried + agenda planner of :mod:`.agent` with a quarter of its
actions random, sheltering from dusk in pockets it mines, probing placements on every material, and (training
worlds only) stepping into lava once at the end of its budget or when its health is critical. Its own model learns as it goes over the worlds;
the models graded here are then trained afresh, per vocabulary variant, on the recorded training calls only, and
asked about every held-out call before its label is looked at.

>>> calls = record([5], steps=40, seed=0)
>>> {"call", "state", "accepted"} <= set(calls[0])
True
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import polars as pl

from ...actions import ConservativeActionModel
from .env import CrafterWorld
from .explorer import EPSILON, Explorer
from .vocabulary import vocabulary

__all__ = ["EPSILON", "record", "train", "evaluate", "tree_reached", "explorer_summary", "TREE"]

#: The tech tree, deepest last (achievements that need tools or placed things).
TREE = (
    "collect_wood",
    "place_table",
    "make_wood_pickaxe",
    "make_wood_sword",
    "collect_stone",
    "place_stone",
    "collect_coal",
    "place_furnace",
    "make_stone_pickaxe",
    "make_stone_sword",
    "collect_iron",
    "make_iron_pickaxe",
    "make_iron_sword",
    "collect_diamond",
)


def record(
    seeds: list[int],
    steps: int,
    seed: int,
    worlds: dict[int, CrafterWorld] | None = None,
    lava_probe: bool = False,
) -> list[dict[str, Any]]:
    """Run the explorer over the worlds of these seeds (one episode each, at most ``steps`` steps or until death)
    and return every call: world, step, call, state before, accepted, effect, and the achievements at the end.
    ``lava_probe``: the explorer's step into lava at the end of its budget or at critical health (training worlds
    only)."""
    model = ConservativeActionModel(vocabulary(), journal=False)
    sources: dict[str, set[str]] = {}
    seen: set[tuple[str, str]] = set()
    want: dict[str, dict[str, int]] = {}
    out: list[dict[str, Any]] = []
    for s in seeds:
        w = worlds[s].copy() if worlds and s in worlds else CrafterWorld(s, length=steps)
        agent = Explorer(
            budget=steps,
            lava_probe=lava_probe,
            model=model,
            rng=random.Random(f"{seed}-{s}-explore"),
            sources=sources,
            seen=seen,
            want=want,
        )
        n = 0
        while not w.done and n < steps:
            st = w.step(agent.act(w.state))
            agent.learn(st)
            n += 1
            if st.call is not None:
                out.append(
                    {
                        "world": s,
                        "step": n,
                        "call": st.call,
                        "state": st.before,
                        "accepted": bool(st.accepted),
                        "effect": st.effect,
                    }
                )
        end = {"end_steps": n, "end_died": w.state.inventory["health"] <= 0}
        if out:
            out[-1]["end_achievements"] = dict(w.state.achievements)
            out[-1].update(end)
        else:  # pragma: no cover - an explorer that made no call at all
            out.append(
                {
                    "world": s,
                    "step": 0,
                    "call": "noop",
                    "state": w.state,
                    "accepted": False,
                    "effect": {},
                    "end_achievements": dict(w.state.achievements),
                    **end,
                }
            )
    return out


def train(calls: list[dict[str, Any]], ablation: str = "full", memory: str = "both") -> ConservativeActionModel:
    """A fresh model of one vocabulary variant, fed the recorded calls in order; ``memory``: what exact-vector
    memory may answer in an unexplained region (:class:`~solvi_lab.actions.ConservativeActionModel`)."""
    model = ConservativeActionModel(vocabulary(ablation), journal=False, memory=memory)  # type: ignore[arg-type]
    for c in calls:
        if c["call"] != "noop":
            model.observe(c["state"], c["call"], {}, accepted=c["accepted"], effect=c["effect"] or None)
    return model


def evaluate(model: ConservativeActionModel, calls: list[dict[str, Any]]) -> pl.DataFrame:
    """Per held-out action: calls, refused, predicted refuse / accept / unknown, refusals caught, false refusals
    (predicted refuse, accepted), false accepts (predicted accept, refused)."""
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for c in calls:
        if c["call"] == "noop":
            continue
        p = model.predict(c["state"], c["call"], {})
        r = rows[c["call"]]
        r["calls"] += 1
        r["refused"] += not c["accepted"]
        r[p.verdict] += 1
        r["caught"] += p.verdict == "refuse" and not c["accepted"]
        r["false_refusals"] += p.verdict == "refuse" and c["accepted"]
        r["false_accepts"] += p.verdict == "accept" and not c["accepted"]
    keys = ("calls", "refused", "refuse", "accept", "unknown", "caught", "false_refusals", "false_accepts")
    return pl.DataFrame(
        [{"action": a, **{k: int(rows[a][k]) for k in keys}} for a in sorted(rows)],
        schema={"action": pl.String, **{k: pl.Int64 for k in keys}},
    ).rename({"refuse": "pred_refuse", "accept": "pred_accept", "unknown": "abstained"})


def totals(per_action: pl.DataFrame) -> dict[str, float]:
    """Refusal precision and recall, false accepts, abstentions over all actions."""
    s = {k: int(per_action[k].sum()) for k in per_action.columns if k != "action"}
    return {
        "calls": s["calls"],
        "refused": s["refused"],
        "precision": s["caught"] / s["pred_refuse"] if s["pred_refuse"] else 1.0,
        "recall": s["caught"] / s["refused"] if s["refused"] else 1.0,
        "false_accepts": s["false_accepts"],
        "false_refusals": s["false_refusals"],
        "abstained": s["abstained"],
        "abstention_share": s["abstained"] / s["calls"] if s["calls"] else 0.0,
    }


def tree_reached(calls: list[dict[str, Any]]) -> dict[str, int]:
    """In how many of the recorded worlds each tech-tree achievement was unlocked."""
    ends = [c["end_achievements"] for c in calls if "end_achievements" in c]
    return {a: sum(1 for e in ends if e.get(a, 0) > 0) for a in TREE}


def explorer_summary(calls: list[dict[str, Any]]) -> dict[str, float]:
    """What the explorer did over its worlds: mean steps per world, deaths, moves accepted onto lava (the
    lava probe), and on how many materials it saw stone and a table placed."""
    ends = [c for c in calls if "end_steps" in c]
    lava = sum(
        1
        for c in calls
        if c["accepted"] and c["call"].startswith("move_") and c["state"].neighbours[c["call"][5:]][0] == "lava"
    )
    placed = {
        call: {c["state"].faced[0] for c in calls if c["accepted"] and c["call"] == call}
        for call in ("place_stone", "place_table")
    }
    return {
        "explorer_mean_steps": sum(c["end_steps"] for c in ends) / len(ends) if ends else 0.0,
        "explorer_deaths": sum(1 for c in ends if c["end_died"]),
        "explorer_lava_entries": lava,
        "explorer_stone_placed_on": len(placed["place_stone"]),
        "explorer_table_placed_on": len(placed["place_table"]),
    }
