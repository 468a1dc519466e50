"""The survivor's third and sixth passes (issue 46): mining what it faces, fighting a close skeleton while
``defeat_skeleton`` is open, drinking from inside a pocket beside water, searching stale grass for cows, and no
pocket walled by a plant a zombie can reach; a ripe plant eaten when hungry, and reached by mining when walled in."""

from __future__ import annotations

import random
from collections import Counter

from crafter_plans import play

from solvi_lab.studies.crafter import survivor
from solvi_lab.studies.crafter.env import DIRECTIONS, SymState
from solvi_lab.studies.crafter.survivor import Survivor

ITEMS = ("health", "food", "drink", "energy", "sapling", "wood", "stone", "coal", "iron", "diamond")
TOOLS = ("wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword")


def _inv(**kw: int) -> Counter:
    base = {"health": 9, "food": 9, "drink": 9, "energy": 9}
    return Counter({**{k: 0 for k in (*ITEMS, *TOOLS)}, **base, **kw})


def _state(
    cells: dict[tuple[int, int], str],
    pos: tuple[int, int],
    facing: tuple[int, int],
    inv: Counter,
    creatures: dict[tuple[int, int], str] | None = None,
    daylight: float = 1.0,
    achievements: dict[str, int] | None = None,
) -> SymState:
    creatures = creatures or {}

    def at(d: tuple[int, int]) -> tuple[str, str]:
        q = (pos[0] + d[0], pos[1] + d[1])
        return cells.get(q, "grass"), creatures.get(q, "none")

    view = {
        (x, y): cells.get((x, y), "grass") for x in range(pos[0] - 4, pos[0] + 5) for y in range(pos[1] - 3, pos[1] + 4)
    }
    around = {r: frozenset(cells.get((pos[0] + dx, pos[1] + dy), "grass") for dx in range(-r, r + 1)
                           for dy in range(-r, r + 1)) for r in (1, 2, 3)}  # fmt: skip
    neighbours = {d: at(v) for d, v in DIRECTIONS.items()}
    return SymState(
        inv, pos, facing, at(facing), neighbours, around, view, creatures, False, daylight, achievements or {}
    )


def _fresh(**kw: bool) -> Survivor:
    return Survivor(rng=random.Random(0), **kw)


def _grab(st: SymState, **kw: bool) -> str | None:
    s = _fresh(**kw)
    s.nav.see(st)  # the map holds the view (else no cell is known walkable and the player counts as sealed in)
    return s._grab(st)


def test_a_faced_stone_is_mined_when_the_gates_allow_and_not_otherwise() -> None:
    cells = {(5, 6): "stone"}
    assert _fresh().act(_state(cells, (5, 5), (0, 1), _inv(wood_pickaxe=1))) == "do"
    assert _grab(_state(cells, (5, 5), (0, 1), _inv(wood_pickaxe=1))) == "do"
    assert _grab(_state(cells, (5, 5), (0, 1), _inv())) is None  # no pickaxe: the documented gate fails
    assert _grab(_state(cells, (5, 5), (0, 1), _inv(wood_pickaxe=1, stone=9))) is None  # full
    assert _grab(_state(cells, (5, 5), (0, 1), _inv(wood_pickaxe=1), daylight=0.3)) is None  # dark
    assert _grab(_state(cells, (5, 5), (0, 1), _inv(wood_pickaxe=1)), cheap_first=False) is None
    iron = {(5, 6): "iron"}
    assert _grab(_state(iron, (5, 5), (0, 1), _inv(wood_pickaxe=1))) is None  # iron needs a stone pickaxe
    assert _grab(_state(iron, (5, 5), (0, 1), _inv(stone_pickaxe=1))) == "do"
    g = _fresh()
    st = _state(cells, (5, 5), (0, 1), _inv(wood_pickaxe=1))
    g.nav.see(st)
    g.gardens[(6, 6)] = {"door": (6, 5), "at": 0}  # the faced stone walls a garden's plant
    assert g._grab(st) is None
    walled = {(5, 6): "stone", (4, 5): "stone", (6, 5): "stone", (5, 4): "stone"}
    assert _grab(_state(walled, (5, 5), (0, 1), _inv(wood_pickaxe=1))) is None  # sealed in: a pocket's wall


def test_a_close_skeleton_is_fought_only_with_a_sword_health_and_the_achievement_open() -> None:
    cells = {(x, 5): "path" for x in range(0, 12)}
    skel = {(7, 5): "skeleton"}
    armed = _inv(wood_sword=1)
    s = _fresh()
    s.nav.see(_state(cells, (5, 5), (1, 0), armed, skel))
    assert s._hunt(_state(cells, (5, 5), (1, 0), armed, skel)) == "move_right"  # towards it
    next_to = {(6, 5): "skeleton"}
    assert _fresh()._hunt(_state(cells, (5, 5), (1, 0), armed, next_to)) == "do"
    assert _fresh()._hunt(_state(cells, (5, 5), (1, 0), _inv(), next_to)) is None  # no sword
    assert _fresh()._hunt(_state(cells, (5, 5), (1, 0), _inv(wood_sword=1, health=5), next_to)) is None  # hurt
    done = {"defeat_skeleton": 1}
    assert _fresh()._hunt(_state(cells, (5, 5), (1, 0), armed, next_to, achievements=done)) is None
    far = {(5 + survivor.HUNT_WITHIN + 1, 5): "skeleton"}
    assert _fresh()._hunt(_state(cells, (5, 5), (1, 0), armed, far)) is None


def test_sealed_beside_water_it_drinks_from_inside_and_sleeps_when_tired() -> None:
    # a pocket of two cells (5,5),(5,4) walled by stone, water to the left of the player
    cells = {(x, y): "stone" for x in range(3, 8) for y in range(2, 8)}
    cells.update({(5, 5): "grass", (5, 4): "grass", (4, 5): "water"})
    s = _fresh()
    thirsty = _state(cells, (5, 5), (0, 1), _inv(drink=5, wood_pickaxe=1), daylight=0.1)
    s.nav.see(thirsty)
    assert s.nav.sealed(thirsty)
    assert s._wall_in(thirsty) == "move_left"  # water is a wall: the move only turns the player towards it
    facing = _state(cells, (5, 5), (-1, 0), _inv(drink=5, wood_pickaxe=1), daylight=0.1)
    assert s._wall_in(facing) == "do"
    tired = _state(cells, (5, 5), (0, 1), _inv(drink=6, energy=5, wood_pickaxe=1), daylight=0.1)
    assert s._wall_in(tired) == "sleep"  # not thirsty enough to stay awake for it


def _field(width: int = 30, height: int = 7) -> dict[tuple[int, int], str]:
    """Grass `width` × `height`, ringed by water: every cell of it and around it seen (no edge of the map)."""
    cells = {(x, y): "water" for x in range(-1, width + 1) for y in range(-1, height + 1)}
    cells.update({(x, y): "grass" for x in range(width) for y in range(height)})
    return cells


def test_a_cow_is_searched_for_on_the_grass_seen_longest_ago() -> None:
    cells = _field()
    s = _fresh()
    s._now = 1000
    s._seen_at.update({c: 1000 for c in cells})  # everything seen just now ...
    s._seen_at.update({(x, y): 0 for x in range(20, 30) for y in range(7)})  # ... but the right, long ago
    s.nav.cells.update(cells)
    hungry = _state(cells, (10, 3), (0, 1), _inv(food=2))
    assert s._meet(hungry, "faced:creature", {"cow"}, 0) == "move_right"
    assert s._search == (20, 3)  # the stalest grass less twice its distance: the nearest of the right part
    fed = _state(cells, (10, 3), (0, 1), _inv(food=survivor.SEARCH_BELOW + 1))
    t = _fresh()
    t.nav.cells.update(cells)
    t._now = 1000
    t._meet(fed, "faced:creature", {"cow"}, 0)
    assert t._search is None  # not hungry: the planner's own exploration


def test_a_hungry_survivor_searches_the_edge_of_its_map_before_grass_it_saw_lately(monkeypatch) -> None:
    # the same field, its far right end never seen: the cells next to it count as stale as grass gets
    cells = {c: m for c, m in _field().items() if c[0] < 27}
    s = _fresh()
    s._now = 1000
    seen = {c: 850 if c[0] < 10 else 900 for c in cells}  # the left part seen 150 steps ago, the rest 100
    s._seen_at.update(seen)
    s.nav.cells.update(cells)
    hungry = _state(cells, (10, 3), (0, 1), _inv(food=2))
    assert s._meet(hungry, "faced:creature", {"cow"}, 0) == "move_right"
    assert s._search == (26, 3)  # the nearest walkable cell next to the unseen
    # without the edge search (the seventh pass's agent) it goes to the grass seen longest ago, on the left
    monkeypatch.setattr(survivor, "SEARCH_FRONTIER", False)
    t = _fresh()
    t._now = 1000
    t._seen_at.update(seen)
    t.nav.cells.update(cells)
    assert t._meet(hungry, "faced:creature", {"cow"}, 0) == "move_left"
    assert t._search == (9, 3)
    # with it, on a map whose edge is all seen (the ring of water), the same: stale grass
    monkeypatch.setattr(survivor, "SEARCH_FRONTIER", True)
    u = _fresh()
    u._now = 1000
    u._seen_at.update({c: 850 if c[0] < 10 else 900 for c in _field()})
    u.nav.cells.update(_field())
    assert u._meet(hungry, "faced:creature", {"cow"}, 0) == "move_left"
    assert u._search == (9, 3)


def _play(nav, pos, facing, plan):
    return play(nav, pos, facing, plan)[:2]


def _pocket_after(s: Survivor, st: SymState) -> set[tuple[int, int]]:
    """Where the player ends up walled in when the survivor's evening plan is carried out on its map."""
    first = s._wall_in(st)
    assert first is not None
    plan = [(first, st.pos, st.facing), *s._pocket]
    pos, facing = _play(s.nav, st.pos, st.facing, plan)
    assert s.nav.sealed(_state(s.nav.cells, pos, facing, st.inventory))
    return {pos, *s.nav._open_around(pos)}


def test_no_pocket_is_walled_by_a_plant_a_zombie_can_reach(monkeypatch) -> None:
    grass = {(x, y): "grass" for x in range(20) for y in range(20)}
    plant = {(11, 10): "plant"}  # in the open: three sides open, a zombie next to it kills it

    def evening(safe: bool) -> set[tuple[int, int]]:
        monkeypatch.setattr(survivor, "SAFE_WALLS", safe)
        s = _fresh()
        st = _state(grass, (10, 10), (0, 1), _inv(stone=9, wood_pickaxe=1), plant, daylight=0.3)
        s.nav.cells.update(grass)
        s.nav.creatures.update(plant)
        s.gardens[(11, 10)] = {"door": None, "at": 0}
        assert s._exposed((11, 10))
        cells = _pocket_after(s, st)
        assert s.nav.creatures[(11, 10)] == "plant"  # the mark is only for planning
        return cells

    def touches(cells: set[tuple[int, int]]) -> bool:
        return any(abs(c[0] - 11) + abs(c[1] - 10) == 1 for c in cells)

    assert touches(evening(False))  # the old rule: a pocket beside the plant, the plant one of its walls
    assert not touches(evening(True))


def test_a_ripe_plant_is_eaten_when_hungry_even_hurt_in_the_dusk(monkeypatch) -> None:
    # sixth pass: a starving agent used to pass by its own ripe plant (gardens waited while it was hungry or hurt)
    def facing_a_ripe_plant() -> str:
        s = _fresh()
        s.gardens[(5, 6)] = {"door": None, "at": 0}
        st = _state({}, (5, 5), (0, 1), _inv(food=2, health=3), {(5, 6): "plant-ripe"}, daylight=0.3)
        s.nav.see(st)
        return s.act(st)

    assert facing_a_ripe_plant() == "do"
    monkeypatch.setattr(survivor, "RIPE_IS_FOOD", False)
    assert facing_a_ripe_plant() == "move_up"  # the old rule: not calm, so no garden; the planner walks on
    s = _fresh()
    s.gardens[(5, 8)] = {"door": None, "at": -(10**6)}  # long due, but not seen ripe
    st = _state({}, (5, 5), (1, 0), _inv(food=2, health=3), {(5, 8): "plant"}, daylight=0.3)
    s.nav.see(st)
    assert s._visit(st, ripe_only=True) is None and s._visit(st) == "move_down"


def test_a_plant_walled_on_every_side_is_reached_by_mining_a_stone_next_to_it(monkeypatch) -> None:
    cells = {(6, 5): "grass", (7, 5): "stone", (6, 4): "stone", (6, 6): "stone", (5, 5): "stone"}
    ripe = {(6, 5): "plant-ripe"}

    def visit(pos: tuple[int, int]) -> str | None:
        s = _fresh()
        s.gardens[(6, 5)] = {"door": None, "at": 0}
        st = _state(cells, pos, (1, 0), _inv(food=2, wood_pickaxe=1), ripe)
        s.nav.see(st)
        return s._visit(st, ripe_only=True)

    assert visit((3, 5)) == "move_right"  # to the cell that faces the stone (5, 5)
    assert visit((4, 5)) == "do"  # facing it: mine it
    monkeypatch.setattr(survivor, "MINE_IN", False)
    assert visit((3, 5)) is None and visit((4, 5)) is None
