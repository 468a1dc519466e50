"""A changed world: a world map of moves carried from one Crafter world into another.

Per stream the agenda planner plays world A (its seed) for ``steps`` steps, writing every move into a
:class:`~solvi_lab.worldmap.WorldMap` (state = the player's cell, action = the move, destination = the cell it
reached: a blocked move "leads" to the same cell). Then it plays world B (another seed) with the same map. The first
arrival in B that contradicts a carried claim (a move that led elsewhere in A) drops the map: every confirmed claim
becomes a hypothesis, to be checked again. Measured: whether and after how many steps in B the map was dropped,
how many claims were dropped, how many carried claims B confirmed before that, and the journal's chain.

>>> r = carry_map(CrafterWorld(3), CrafterWorld(4), steps=60, seed=0)
>>> r["verified"], isinstance(r["dropped_after"], (int, type(None)))
(True, True)
"""

from __future__ import annotations

import random
from typing import Any

from ...worldmap import WorldMap
from .agent import Agent
from .env import CrafterWorld

__all__ = ["carry_map"]


def _walk(world: CrafterWorld, agent: Agent, wmap: WorldMap, steps: int, drop: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"moves": 0, "confirmed_carried": 0, "dropped_after": None, "dropped": 0}
    n = 0
    while not world.done and n < steps:
        st = world.step(agent.act(world.state))
        agent.learn(st)
        n += 1
        if st.call is None or not st.call.startswith("move_"):
            continue
        out["moves"] += 1
        arrival = wmap.arrive(tuple(st.before.pos), st.call, tuple(st.after.pos))
        if arrival.was == "confirmed":
            out["confirmed_carried"] += out["dropped_after"] is None
        if drop and arrival.contradicted and out["dropped_after"] is None:
            out["dropped"] = wmap.drop(f"a carried move claim was contradicted in world {world.seed} at step {n}")
            out["dropped_after"] = n
    out["steps"] = n
    return out


def carry_map(a: CrafterWorld, b: CrafterWorld, steps: int, seed: int) -> dict[str, Any]:
    """Play world A, then world B with A's map carried (copies of both worlds are played)."""
    wmap = WorldMap()
    rng = random.Random(f"{seed}-changed-{a.seed}-{b.seed}")
    in_a = _walk(a.copy(), Agent(agenda=True, rng=rng), wmap, steps, drop=False)
    claims_a = wmap.counts()["confirmed"]
    in_b = _walk(b.copy(), Agent(agenda=True, rng=rng), wmap, steps, drop=True)
    return {
        "world_a": a.seed,
        "world_b": b.seed,
        "steps_in_a": in_a["steps"],
        "claims_from_a": claims_a,
        "steps_in_b": in_b["steps"],
        "dropped_after": in_b["dropped_after"],
        "dropped": in_b["dropped"],
        "confirmed_carried_before_drop": in_b["confirmed_carried"],
        "verified": bool(wmap.verify()),
    }
