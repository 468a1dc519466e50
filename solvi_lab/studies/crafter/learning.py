"""The action-model experiment: record the explorer's calls on training and held-out worlds, train, grade, ablate.

The explorer is the carried + agenda planner of :mod:`.agent` with a quarter of its actions uniformly random
(moves into lava excepted): the planner reaches the deep tech tree, the random share makes it try calls where they
fail. Its own model learns as it goes over the training worlds; the models graded here are then trained afresh, per
vocabulary variant, on the recorded training calls only, and asked about every held-out call before its label is
looked at.

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
from .agent import Agent
from .env import CrafterWorld
from .vocabulary import vocabulary

__all__ = ["EPSILON", "record", "train", "evaluate", "tree_reached", "TREE"]

EPSILON = 0.25  # the explorer's share of uniformly random actions
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
    seeds: list[int], steps: int, seed: int, worlds: dict[int, CrafterWorld] | None = None
) -> list[dict[str, Any]]:
    """Run the explorer over the worlds of these seeds (one episode each, at most ``steps`` steps or until death)
    and return every call: world, step, call, state before, accepted, effect, and the achievements at the end."""
    model = ConservativeActionModel(vocabulary(), journal=False)
    sources: dict[str, set[str]] = {}
    out: list[dict[str, Any]] = []
    for s in seeds:
        w = worlds[s].copy() if worlds and s in worlds else CrafterWorld(s, length=steps)
        agent = Agent(
            model=model, agenda=True, rng=random.Random(f"{seed}-{s}-explore"), epsilon=EPSILON, sources=sources
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
        if out:
            out[-1]["end_achievements"] = dict(w.state.achievements)
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
                }
            )
    return out


def train(calls: list[dict[str, Any]], ablation: str = "full") -> ConservativeActionModel:
    """A fresh model of one vocabulary variant, fed the recorded calls in order."""
    model = ConservativeActionModel(vocabulary(ablation), journal=False)
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
