"""Shared by the Crafter pocket, homestead and survivor tests: carry a navigation plan out on a map by Crafter's
rules (pytest puts this folder on sys.path)."""

from __future__ import annotations

from solvi_lab.studies.crafter.env import DIRECTIONS
from solvi_lab.studies.crafter.navigation import Navigator


def play(nav: Navigator, pos, facing, plan) -> tuple[tuple[int, int], tuple[int, int], dict[str, int], list[set]]:
    """Carry the plan out (a move into a blocked cell only turns the player; a placement needs a free cell, a
    sapling grass). Returns where the player ends, facing where, how many of each placement and mined cell it
    used, and for each sapling planted its sides still free then (a creature next to a plant kills it)."""
    used = {"place_stone": 0, "place_table": 0, "do": 0, "place_plant": 0}
    opened: list[set] = []
    for action, at, face in plan:
        assert (at, face) == (pos, facing)  # each step says where it is taken from
        ahead = (pos[0] + facing[0], pos[1] + facing[1])
        if action.startswith("move_"):
            facing = DIRECTIONS[action[5:]]
            t = (pos[0] + facing[0], pos[1] + facing[1])
            if nav._free(t):  # walkable and no creature (a plant) on it
                pos = t
            continue
        used[action] += 1
        if action == "place_plant":
            assert nav.cells[ahead] == "grass" and nav._free(ahead)
            sides = [(ahead[0] + dx, ahead[1] + dy) for dx, dy in DIRECTIONS.values()]
            opened.append({c for c in sides if nav._free(c)})
            nav.creatures[ahead] = "plant"
        elif action in ("place_stone", "place_table"):
            assert nav._free(ahead)
            nav.cells[ahead] = action[6:]
        else:
            assert action == "do" and nav.cells[ahead] == "stone"
            nav.cells[ahead] = "path"
    return pos, facing, used, opened
