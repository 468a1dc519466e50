"""Where the installed Crafter behaves differently from its ``data.yaml``: found by probing the package.

``data.yaml`` says a ``make`` needs its ``nearby`` materials; the code checks them with ``world.nearby(pos, 1)``,
a numpy slice ``[x - 1 : x + 2, y - 1 : y + 2]`` of the material map. On the map's first column or row the slice
starts at −1 and comes out empty, so nothing is "nearby" and the call is refused although the table stands next to
the player. :func:`edge_probes` does not assume this: it puts the player at each edge and in the interior of a
generated world, with every item the rule asks for and the nearby materials in the adjacent cells, makes each
call once, and reports whether Crafter accepted it. A row where the rule of ``data.yaml`` holds and the call was
refused is a place where the installed package differs from its ``data.yaml`` (:func:`differences`).

>>> rows = edge_probes(seed=0)
>>> sorted({r["where"] for r in rows})[:2]
['bottom edge', 'interior']
"""

from __future__ import annotations

from typing import Any

import numpy as np
from crafter import constants

from .env import ACTIONS, HeadlessEnv

__all__ = ["edge_probes", "differences", "PLACES"]

#: Where the player stands: name -> position as a function of the map's size (w, h).
PLACES = {
    "interior": lambda w, h: (w // 2, h // 2),
    "left edge (x = 0)": lambda w, h: (0, h // 2),
    "top edge (y = 0)": lambda w, h: (w // 2, 0),
    "right edge": lambda w, h: (w - 1, h // 2),
    "bottom edge": lambda w, h: (w // 2, h - 1),
}


def _neighbours(pos: tuple[int, int], w: int, h: int) -> list[tuple[int, int]]:
    x, y = pos
    cells = [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
    return [c for c in cells if 0 <= c[0] < w and 0 <= c[1] < h]


def _probe(env: HeadlessEnv, name: str, info: dict[str, Any], pos: tuple[int, int]) -> bool:
    world, player = env._world, env._player
    w, h = world.area
    cells = [pos, *_neighbours(pos, w, h)]
    for c in cells:  # clear the player's cell and its neighbours of creatures
        obj = world[c][1]
        if obj is not None and obj is not player:
            world.remove(obj)
    for c in cells:
        world[c] = "grass"
    if tuple(int(v) for v in player.pos) != pos:
        world.move(player, pos)
    for material, cell in zip(info["nearby"], cells[1:], strict=False):
        world[cell] = material  # each nearby material in an adjacent cell
    for item in player.inventory:
        if item not in ("health", "food", "drink", "energy"):
            player.inventory[item] = 0
    for item, n in info["uses"].items():
        player.inventory[item] = n  # exactly the rule's amount
    player.sleeping = False
    before = player.achievements[f"make_{name}"]
    env.step(ACTIONS.index(f"make_{name}"))
    return player.achievements[f"make_{name}"] > before


def edge_probes(seed: int = 0) -> list[dict[str, Any]]:
    """Every ``make`` call of data.yaml made once at each of :data:`PLACES` with its rule satisfied (its items at
    exactly the amount, its nearby materials adjacent): one row each with whether Crafter accepted it."""
    base = HeadlessEnv(seed=seed)
    base.reset()
    w, h = base._world.area
    rows = []
    for name, info in constants.make.items():
        for where, place in PLACES.items():
            env = _copy(base)
            pos = place(w, h)
            ok = _probe(env, name, info, pos)
            rows.append(
                {
                    "action": f"make_{name}",
                    "where": where,
                    "position": f"({pos[0]}, {pos[1]})",
                    "rule": f"uses {dict(info['uses'])}, nearby {list(info['nearby'])}",
                    "rule_holds": True,
                    "accepted": ok,
                }
            )
    return rows


def differences(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The probes where data.yaml's rule held and Crafter refused the call."""
    return [r for r in rows if r["rule_holds"] and not r["accepted"]]


def _copy(env: HeadlessEnv) -> HeadlessEnv:
    import copy

    memo = {id(env._textures): env._textures}
    clone = copy.deepcopy(env, memo)
    clone._world.random = np.random.RandomState(0)  # the probe's own stream: no creature update depends on the base
    return clone
