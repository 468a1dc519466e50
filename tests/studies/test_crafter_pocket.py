"""The survivor's night pocket (issue 46): navigation.pocket_plan walls the player in anywhere, and the survivor's
fill-up rule (a call refused although its documented gates held waits for full items)."""

from __future__ import annotations

import random

from crafter_plans import play

from solvi_lab.studies.crafter.env import DIRECTIONS, SymState
from solvi_lab.studies.crafter.navigation import Navigator, pocket_plan
from solvi_lab.studies.crafter.survivor import Survivor


def _state(pos: tuple[int, int], facing: tuple[int, int] = (0, 1)) -> SymState:
    return SymState({}, pos, facing, ("grass", "none"), {}, {}, {}, {}, False, 0.3, {})


def _nav(cells: dict[tuple[int, int], str]) -> Navigator:
    nav = Navigator()
    nav.cells.update(cells)
    return nav


def _play(nav: Navigator, pos, facing, plan) -> tuple[tuple[int, int], tuple[int, int], dict[str, int]]:
    return play(nav, pos, facing, plan)[:3]


def test_a_pocket_is_walled_in_on_open_grass_with_six_stones_and_not_with_five() -> None:
    grass = {(x, y): "grass" for x in range(20) for y in range(20)}
    nav = _nav(grass)
    plan = pocket_plan(nav, _state((10, 10)), stones=6)
    assert plan is not None
    pos, facing, used = _play(nav, (10, 10), (0, 1), plan)
    assert nav.sealed(_state(pos, facing))
    # two cells in the open have six open sides
    assert used == {"place_stone": 6, "place_table": 0, "do": 0, "place_plant": 0}
    assert pocket_plan(_nav(grass), _state((10, 10)), stones=5) is None  # one stone short: no pocket


def test_a_sapling_in_hand_is_planted_as_a_pocket_wall_no_creature_can_reach() -> None:
    grass = {(x, y): "grass" for x in range(20) for y in range(20)}
    nav = _nav(grass)
    plan = pocket_plan(nav, _state((10, 10)), stones=7, sapling=True)
    assert plan is not None
    pos, facing, used = _play(nav, (10, 10), (0, 1), plan)
    assert nav.sealed(_state(pos, facing))
    assert used == {"place_stone": 7, "place_table": 0, "do": 0, "place_plant": 1}  # three cells in an L: 7 sides
    (plant,) = [c for c, k in nav.creatures.items() if k == "plant"]
    around = [(plant[0] + dx, plant[1] + dy) for dx, dy in DIRECTIONS.values()]
    pocket = {pos, *nav._open_around(pos)}
    assert all(nav.cells[c] == "stone" or c in pocket for c in around)  # walled in, but for the pocket
    assert any(c in pocket for c in around)  # the player reaches it from inside
    # one stone short for the plant's walls: the plain pocket, no plant (a plant open to the grass would be eaten)
    nav = _nav(dict(grass))
    plan = pocket_plan(nav, _state((10, 10)), stones=6, sapling=True)
    assert plan is not None and "place_plant" not in [a for a, _, _ in plan]
    # two saplings beside a rock face: two plants; in the open the search gives up on two and plants one
    nav = _nav({**grass, **{(x, 12): "stone" for x in range(20)}})
    plan = pocket_plan(nav, _state((10, 10)), stones=8, sapling=2)
    assert plan is not None
    pos, facing, used = _play(nav, (10, 10), (0, 1), plan)
    assert nav.sealed(_state(pos, facing)) and used["place_plant"] == 2
    plan = pocket_plan(_nav(dict(grass)), _state((10, 10)), stones=8, sapling=2)
    assert plan is not None and [a for a, _, _ in plan].count("place_plant") == 1
    # no sapling: no plant, whatever the stones
    assert "place_plant" not in [a for a, _, _ in pocket_plan(_nav(dict(grass)), _state((10, 10)), stones=9)]


def test_tables_stand_in_for_missing_stones() -> None:
    nav = _nav({(x, y): "grass" for x in range(20) for y in range(20)})
    plan = pocket_plan(nav, _state((10, 10)), stones=2, tables=4)
    assert plan is not None
    pos, facing, used = _play(nav, (10, 10), (0, 1), plan)
    assert nav.sealed(_state(pos, facing)) and used["place_stone"] == 2 and used["place_table"] == 4


def test_with_a_pickaxe_a_pocket_is_dug_into_rock_without_stones() -> None:
    cells = {(x, y): ("grass" if y < 10 else "stone") for x in range(20) for y in range(20)}
    nav = _nav(cells)
    assert pocket_plan(nav, _state((10, 9)), stones=0) is None  # no stones, no pickaxe: nothing to wall with
    plan = pocket_plan(nav, _state((10, 9)), stones=0, mine=True)
    assert plan is not None
    pos, facing, used = _play(nav, (10, 9), (0, 1), plan)
    assert nav.sealed(_state(pos, facing)) and used["do"] == 2  # two cells mined, a mined stone closes the door
    assert pos[1] >= 10  # inside the rock


def test_cells_next_to_lava_or_unseen_cells_are_never_a_pocket() -> None:
    cells = {(x, y): "grass" for x in range(9, 12) for y in range(9, 12)}  # all else unseen
    assert pocket_plan(_nav(cells), _state((10, 10)), stones=9) is None
    lava = {(x, y): ("lava" if (x + y) % 2 else "grass") for x in range(20) for y in range(20)}
    assert pocket_plan(_nav(lava), _state((10, 10)), stones=9) is None


def test_a_refused_call_whose_documented_gates_held_waits_for_full_items() -> None:
    from solvi_lab.studies.crafter.env import Step

    s = Survivor(rng=random.Random(0))
    inv = {"stone": 1, "wood": 0, "sapling": 0, "coal": 0, "iron": 0, "diamond": 0, "health": 9}
    before = SymState(
        inv, (5, 5), (0, 1), ("grass", "none"), {}, {1: frozenset({"table", "grass"})}, {}, {}, False, 1.0, {}
    )
    s.learn(Step("place_furnace", "place_furnace", False, {}, 0.0, False, before, before))
    assert s._more == {"place_furnace": ["stone"]}
    assert s._filled(["place_furnace", "do_coal"], before) == ["do_stone", "do_coal"]  # gather stone instead
    full = SymState(
        {**inv, "stone": 9}, (5, 5), (0, 1), ("grass", "none"), {}, {1: frozenset({"table"})}, {}, {}, False, 1.0, {}
    )
    assert s._filled(["place_furnace"], full) == ["place_furnace"]  # full: try again
    s.learn(Step("place_furnace", "place_furnace", True, {"stone": -4}, 0.0, False, full, full))
    assert s._more == {}
    off = Survivor(rng=random.Random(0), fill_up=False)
    off.learn(Step("place_furnace", "place_furnace", False, {}, 0.0, False, before, before))
    assert off._more == {}
    no_table = SymState(inv, (5, 5), (0, 1), ("grass", "none"), {}, {1: frozenset({"grass"})}, {}, {}, False, 1.0, {})
    s.learn(Step("place_furnace", "place_furnace", False, {}, 0.0, False, no_table, no_table))
    assert s._more == {}  # a documented gate failed: the refusal says nothing about amounts


def _farm(food: int, drink: int, water: bool, at: int) -> tuple[Survivor, SymState]:
    """A survivor sealed in a pocket (5, 5)-(5, 6) walled by stone, its own plant at (6, 6) planted at step ``at``
    (the clock at 1000), water at (4, 5) when ``water`` (else stone)."""
    s = Survivor(rng=random.Random(0))
    cells = {(x, y): "stone" for x in range(3, 8) for y in range(3, 9)}
    cells.update({(5, 5): "grass", (5, 6): "grass", (6, 6): "grass"})
    if water:
        cells[(4, 5)] = "water"
    s.nav.cells.update(cells)
    s.nav.creatures[(6, 6)] = "plant"
    s.gardens[(6, 6)] = {"door": None, "at": at}
    s.count.steps = 1000
    inv = {"food": food, "drink": drink, "health": 9, "energy": 9, "sapling": 0, "stone": 0, "wood": 0}
    return s, SymState(inv, (5, 5), (0, -1), ("stone", "none"), {}, {}, {}, {}, False, 1.0, {})


def _stays(**kw: int | bool) -> bool:
    s, st = _farm(**kw)
    return s._stay(st)


def test_sealed_beside_its_own_plant_it_stays_while_food_and_water_last() -> None:
    s, st = _farm(food=6, drink=2, water=True, at=990)
    assert s.nav.sealed(st) and s._stay(st)  # water next to the pocket: low drink is no reason to leave
    assert not _stays(food=6, drink=2, water=False, at=990)  # no water and drink low: out
    assert _stays(food=6, drink=4, water=False, at=990)  # no water, drink above 3: in
    assert not _stays(food=3, drink=9, water=True, at=990)  # hungry, the plant far from ripe: out
    assert _stays(food=3, drink=9, water=True, at=700)  # hungry, but the plant is nearly ripe: wait for it
    s, st = _farm(food=6, drink=9, water=True, at=990)
    del s.gardens[(6, 6)]
    assert not s._stay(st)  # a plant that is not its own (not walled in by it): no reason to stay


def test_a_ripe_plant_next_to_the_pockets_other_cell_is_reached_from_inside() -> None:
    s, st = _farm(food=5, drink=9, water=True, at=0)
    s.nav.creatures[(6, 6)] = "plant-ripe"
    assert s._ripe_next(st) == "move_down"  # to (5, 6), the cell beside the plant
