"""The survivor's homestead (issue 46): a pocket beside water walled partly by its own plants, where it settles —
navigation.homestead_sites finds a site, pocket_plan walls it in (each sapling only once its other walls stand), and
the settled survivor eats, drinks and sleeps without leaving."""

from __future__ import annotations

import dataclasses
import random

import pytest
from crafter_plans import play

from solvi_lab.studies.crafter import survivor as survivor_module
from solvi_lab.studies.crafter.env import DIRECTIONS, SymState
from solvi_lab.studies.crafter.navigation import Navigator, homestead_sites, pocket_plan
from solvi_lab.studies.crafter.survivor import Survivor

LAKE_ROW = 12  # water on this row and below, grass above


def _lake() -> dict[tuple[int, int], str]:
    return {(x, y): ("water" if y >= LAKE_ROW else "grass") for x in range(20) for y in range(20)}


def _state(pos: tuple[int, int], facing: tuple[int, int] = (0, 1), **inv: int) -> SymState:
    inventory = {"health": 9, "food": 9, "drink": 9, "energy": 9, "sapling": 0, "stone": 0, "wood": 0}
    inventory.update(inv)
    return SymState(inventory, pos, facing, ("grass", "none"), {}, {}, {}, {}, False, 0.3, {})


def _nav(cells: dict[tuple[int, int], str]) -> Navigator:
    nav = Navigator()
    nav.cells.update(cells)
    return nav


def _play(nav: Navigator, pos, facing, plan) -> tuple[tuple[int, int], tuple[int, int], list[set]]:
    pos, facing, _used, opened = play(nav, pos, facing, plan)
    return pos, facing, opened


def _water(cells: dict[tuple[int, int], str]) -> frozenset[tuple[int, int]]:
    return frozenset(c for c, m in cells.items() if m == "water")


def test_a_homestead_is_walled_in_beside_water_with_three_plants_each_planted_after_its_walls() -> None:
    cells = _lake()
    nav = _nav(cells)
    kw = {"sapling": 3, "plants": 3, "beside": _water(cells), "fewest": 3, "radius": 3, "tries": 8, "limit": 200_000}
    kw["guarded"] = True
    plan = pocket_plan(nav, _state((10, 10)), stones=12, **kw)
    assert plan is not None
    pos, facing, opened = _play(nav, (10, 10), (0, 1), plan)
    assert nav.sealed(_state(pos, facing))
    pocket = {pos, *nav._open_around(pos)}
    assert len(pocket) == 2
    plants = {c for c, k in nav.creatures.items() if k == "plant"}
    # each sapling went in after its outer walls: only the pocket and cells planted next were open beside it
    assert len(opened) == 3 and all(o <= pocket | plants for o in opened)
    near = {(c[0] + dx, c[1] + dy) for c in pocket for dx, dy in DIRECTIONS.values()} - pocket
    assert sum(nav.creatures.get(c) == "plant" for c in near) == 3  # every plant is reached from inside
    assert any(nav.cells[c] == "water" for c in near)  # and the player drinks from inside


def test_a_homestead_plan_never_settles_for_fewer_plants_or_a_pocket_away_from_the_water() -> None:
    cells = _lake()
    kw = {"sapling": 3, "plants": 3, "radius": 3, "tries": 8, "limit": 200_000}
    assert pocket_plan(_nav(cells), _state((10, 10)), stones=5, beside=_water(cells), fewest=3, **kw) is None
    # without `fewest` the same stones give a pocket with fewer plants
    fewer = pocket_plan(_nav(cells), _state((10, 10)), stones=5, beside=_water(cells), **kw)
    assert fewer is not None and [a for a, _, _ in fewer].count("place_plant") < 3
    far = frozenset({(0, 19)})  # water out of reach of any pocket near the player
    assert pocket_plan(_nav(cells), _state((10, 10)), stones=12, beside=far, fewest=3, **kw) is None


def test_homestead_sites_are_free_pairs_on_the_shore_cheapest_first_and_never_behind_a_wall() -> None:
    cells = _lake()
    sites = homestead_sites(_nav(cells), _state((10, 5)), walls=12, plants=3)
    assert sites
    assert all(p[1] == LAKE_ROW - 1 for _cost, p, _q in sites)  # p is on the shore
    assert [c for c, _p, _q in sites] == sorted(c for c, _p, _q in sites)
    assert homestead_sites(_nav(cells), _state((10, 5)), walls=0, plants=3) == []  # no walls: no site
    walled = {**cells, **{(x, 8): "stone" for x in range(20)}}  # a rock band between the player and the lake
    assert homestead_sites(_nav(walled), _state((10, 5)), walls=12, plants=3) == []


@pytest.fixture
def settled(monkeypatch) -> Survivor:
    """A survivor settled in a pocket (10,10)-(11,10): water below (10,11), plants above (10,9) ripe and (11,9),
    and (12,10) to the right; the rest stone."""
    monkeypatch.setattr(survivor_module, "EAT_AT", 5)
    s = Survivor(rng=random.Random(0), homestead=True)
    cells = {(x, y): "stone" for x in range(7, 15) for y in range(6, 14)}
    cells.update({(10, 10): "grass", (11, 10): "grass", (10, 11): "water"})
    cells.update({(10, 9): "grass", (11, 9): "grass", (12, 10): "grass"})
    s.nav.cells.update(cells)
    s.nav.creatures.update({(10, 9): "plant-ripe", (11, 9): "plant", (12, 10): "plant"})
    for g in ((10, 9), (11, 9), (12, 10)):
        s.gardens[g] = {"door": None, "at": 0}
    s.settled_at = 0
    return s


def test_settled_it_eats_a_ripe_plant_only_when_food_has_room_for_it(settled: Survivor) -> None:
    assert settled._settled(_state((10, 10), (0, -1), food=5)) == "do"  # facing the ripe plant: eat
    assert settled._settled(_state((10, 10), (1, 0), food=5)) == "move_up"  # a move towards a plant only turns
    assert settled._settled(_state((10, 10), (0, -1), food=6, energy=8)) == "sleep"  # a plant's 4 would be lost
    assert settled._settled(_state((10, 10), (0, -1), food=6, energy=9)) == "noop"


def test_settled_eating_a_plant_restarts_its_ripening_so_a_starving_player_still_leaves(settled: Survivor) -> None:
    settled.count.steps = 700
    for g in settled.gardens.values():
        g["at"] = 400  # planted at 400: every plant is due by now (RIPE_AFTER)
    assert settled._settled(_state((10, 10), (0, -1), food=5)) == "do"  # eats the ripe plant above
    assert settled.gardens[(10, 9)]["at"] == 700  # eaten now: due again RIPE_AFTER steps from here
    assert settled.gardens[(11, 9)]["at"] == 400  # the others untouched
    settled.count.steps = 710
    settled.nav.creatures[(10, 9)] = "plant"  # eaten: a sapling again
    for g in ((11, 9), (12, 10)):
        settled.gardens[g]["at"] = 710  # not due for RIPE_AFTER steps
    assert settled._settled(_state((10, 10), (0, -1), food=0, health=survivor_module.STARVING)) is None  # leaves
    assert settled.settled_at is None and settled._left_at == 710


def test_settled_it_faces_water_without_touching_a_garden(settled: Survivor) -> None:
    settled.gardens[(10, 9)]["at"] = 123
    assert settled._settled(_state((10, 10), (0, 1), drink=8)) == "do"  # facing the water, not a plant
    assert settled.gardens[(10, 9)]["at"] == 123


def test_settled_it_drinks_from_inside_and_steps_to_the_pocket_cell_beside_what_it_wants(settled: Survivor) -> None:
    assert settled._settled(_state((10, 10), (0, 1), drink=8)) == "do"  # facing the water
    assert settled._settled(_state((11, 10), (0, 1), drink=8)) == "move_left"  # the water is beside the other cell
    assert settled._settled(_state((10, 10), (0, 1))) == "noop"  # full: nothing to do, nothing to sleep off


def test_settled_it_leaves_when_starving_with_no_plant_ripe_soon_and_not_before(settled: Survivor) -> None:
    settled.nav.creatures[(10, 9)] = "plant"  # nothing ripe
    settled.count.steps = 100  # planted at 0: ripe at 300, not within SOON
    assert settled._settled(_state((10, 10), food=0, health=survivor_module.STARVING + 1)) is not None
    assert settled.settled_at == 0  # hungry but not yet weak: stays
    assert settled._settled(_state((10, 10), food=0, health=survivor_module.STARVING)) is None
    assert settled.settled_at is None and settled._left_at == 100
    assert not settled._stay(_state((10, 10), food=0))  # no settling again right away
    settled.count.steps = 100 + survivor_module.RETURN_AFTER
    assert settled._stay(_state((10, 10), food=0)) and settled.settled_at == settled.count.steps  # later, it does


def test_the_homestead_is_off_by_default_and_needs_its_saplings_when_on(monkeypatch) -> None:
    assert not Survivor(rng=random.Random(0))._homestead_ready(_state((10, 10), sapling=9))  # measured, not adopted
    on = Survivor(rng=random.Random(0), homestead=True)
    assert on._homestead_ready(_state((10, 10), sapling=3))
    assert not on._homestead_ready(_state((10, 10), sapling=2))
    assert not Survivor(rng=random.Random(0), homestead=True, pocket=False)._homestead_ready(_state((0, 0), sapling=3))
    monkeypatch.setattr(survivor_module, "HOMESTEAD", True)  # what benchmarks/crafter_deaths.py --set turns on
    assert Survivor(rng=random.Random(0))._homestead_ready(_state((10, 10), sapling=3))
    monkeypatch.setattr(survivor_module, "HOME_AFTER", 600)  # the first days are for the achievements
    late = Survivor(rng=random.Random(0))
    late.count.steps = 599
    assert not late._homestead_ready(_state((10, 10), sapling=3))
    late.count.steps = 600
    assert late._homestead_ready(_state((10, 10), sapling=3))


@pytest.mark.parametrize("bad", [-1, 2.5, True, "3"])
def test_homestead_searches_refuse_a_count_that_is_not_an_int_with_a_message_saying_what_to_pass(bad) -> None:
    from solvi_lab.errors import BadInput

    nav, at = _nav(_lake()), _state((10, 10))
    with pytest.raises(BadInput, match=r"walls must be an int.*the stones and tables in hand, e\.g\. 9"):
        homestead_sites(nav, at, walls=bad, plants=3)
    with pytest.raises(BadInput, match=r"plants must be an int.*the plants a homestead needs, e\.g\. 3"):
        homestead_sites(nav, at, walls=9, plants=bad)
    with pytest.raises(BadInput, match=r"plants must be an int.*the most saplings planted as walls"):
        pocket_plan(nav, at, stones=9, plants=bad)
    with pytest.raises(BadInput, match=r"fewest must be an int.*the fewest plants a plan may have"):
        pocket_plan(nav, at, stones=9, fewest=bad)
    fire = r"fire_cost must be an int.*the rank added to a pocket in an arrow's line over water \(0: not looked at\)"
    with pytest.raises(BadInput, match=fire):
        pocket_plan(nav, at, stones=9, fire_cost=bad)
    with pytest.raises(BadInput, match=fire):
        homestead_sites(nav, at, walls=9, plants=3, fire_cost=bad)
    with pytest.raises(BadInput, match="plants must be an int ≥ 1, got 0"):
        homestead_sites(nav, at, walls=9, plants=0)  # a homestead of no plants feeds nobody


def test_home_all_day_gathers_the_homestead_walls_in_the_morning_too(monkeypatch) -> None:
    from solvi_lab.studies.crafter.vocabulary import ITEMS

    inventory = dict.fromkeys(ITEMS, 0)
    inventory.update({"health": 9, "food": 9, "drink": 9, "energy": 9, "sapling": 3, "wood_pickaxe": 1})
    morning = SymState(inventory, (10, 10), (0, 1), ("grass", "none"), {}, {}, {}, {}, False, 0.95, {})

    def survivor(**kw: bool) -> Survivor:
        s = Survivor(rng=random.Random(0), homestead=True, **kw)
        s.nav.cells.update({(x, y): "grass" for x in range(5, 16) for y in range(5, 16)})
        s.nav.cells[(12, 10)] = "stone"
        s._light = 0.9  # daylight rising: the morning
        return s

    s = survivor()
    assert s._homestead_ready(morning)
    plain = s.options(morning)
    assert plain[:2] == ["do_tree", "place_table"]  # off: the planner's goals; walls are gathered in the afternoon
    on = survivor(home_all_day=True)
    assert on.options(morning) == ["do_stone", "do_tree", *plain]  # on, saplings in hand: walls first, mornings too
    monkeypatch.setattr(survivor_module, "HOME_ALL_DAY", True)  # what benchmarks/crafter_deaths.py --set turns on
    assert survivor().options(morning) == ["do_stone", "do_tree", *plain]
    assert survivor(home_all_day=False).options(morning) == plain  # the keyword wins over the module's constant
    inventory["sapling"] = 2
    assert on.options(morning) == plain  # not ready for a homestead: the night's stones wait as before


def test_the_score_has_a_homestead_arm_settling_beside_two_plants_and_the_default_survivor_has_none() -> None:
    from solvi_lab.errors import BadInput
    from solvi_lab.studies.crafter import protocol

    kw = protocol.survivor_arm("survivor-homestead")
    assert kw == {
        "homestead": True,
        "settle_plants": 2,
        "home_all_day": True,
        "home_plans": ((3, 8, True), (6, 30, True), (3, 8, False)),
    }
    kw["settle_plants"] = 9  # a copy: the arm's settings cannot be changed through it
    assert protocol.HOMESTEAD_ARM["settle_plants"] == 2
    arm = Survivor(rng=random.Random(0), **protocol.survivor_arm("survivor-homestead"))
    assert (arm.homestead, arm.settle_plants, arm.home_all_day) == (True, 2, True) and len(arm.home_plans) == 3
    assert arm._homestead_ready(_state((10, 10), sapling=2)) and not arm._homestead_ready(_state((10, 10), sapling=1))
    plain = Survivor(rng=random.Random(0), **protocol.survivor_arm("survivor"))
    assert (plain.homestead, plain.settle_plants, plain.home_all_day) == (False, 3, False)
    assert not plain._homestead_ready(_state((10, 10), sapling=9))
    assert protocol.ARM_LABELS["survivor-homestead"].startswith("survivor settling")
    with pytest.raises(BadInput, match="unknown survivor piece 'homestead'"):
        protocol.survivor_arm("survivor-no_homestead")  # the homestead is an arm, not a piece to ablate


def test_the_settler_arm_is_the_homestead_arm_from_the_first_night_with_the_early_settle_settings() -> None:
    from solvi_lab.studies.crafter import protocol

    kw = protocol.survivor_arm("survivor-settler")
    assert kw == {
        **protocol.HOMESTEAD_ARM,
        "home_after": 100,
        "sapling_retry": True,
        "night_home": True,
        "home_range": 10,
        "starving": 0,
    }
    arm = Survivor(rng=random.Random(0), **kw)
    got = (arm.home_after, arm.sapling_retry, arm.night_home, arm.home_range, arm.starving)
    assert got == (100, True, True, 10, 0)
    plain = Survivor(rng=random.Random(0))  # the module's constants: the default survivor is unchanged
    got = (plain.home_after, plain.sapling_retry, plain.night_home, plain.home_range, plain.starving)
    assert got == (0, False, False, 30, 4)
    # the homestead's time starts at home_after: not before step 100, whatever the saplings
    assert not arm._homestead_ready(_state((10, 10), sapling=2))
    arm.count.steps = 100
    assert arm._homestead_ready(_state((10, 10), sapling=2))
    assert protocol.ARM_LABELS["survivor-settler"].startswith("survivor settling from its first night")


@pytest.mark.parametrize(
    ("name", "bad", "message"),
    [
        ("home_after", -1, r"home_after must be an int ≥ 0, got -1.*steps before it settles, e\.g\. 100"),
        ("home_range", 2.5, r"home_range must be an int.*cells within which it goes back to a garden, e\.g\. 10"),
        ("starving", "4", r"starving must be an int.*health at which a settled player goes out for a cow"),
        ("sapling_retry", 1, r"sapling_retry must be True or False, got 1"),
        ("night_home", "yes", r"night_home must be True or False, got 'yes'"),
    ],
)
def test_the_settler_settings_refuse_a_value_of_the_wrong_kind_with_a_message_saying_what_to_pass(
    name, bad, message
) -> None:
    from solvi_lab.errors import BadInput

    with pytest.raises(BadInput, match=message):
        Survivor(rng=random.Random(0), **{name: bad})


def test_the_homestead_plan_is_searched_for_each_way_in_turn_until_one_is_found(monkeypatch) -> None:
    calls: list[tuple[int, int, bool]] = []

    def fake_plan(nav, state, stones, **kw):  # the pocket planner, answering only the ways given below
        calls.append((kw["radius"], kw["tries"], kw["guarded"]))
        return [("noop", state.pos, state.facing)] if (kw["radius"], kw["guarded"]) in found else None

    monkeypatch.setattr(survivor_module, "pocket_plan", fake_plan)
    ways = ((3, 8, True), (6, 30, True), (3, 8, False))

    def plan(**kw) -> list | None:
        calls.clear()
        s = Survivor(rng=random.Random(0), homestead=True, settle_plants=2, **kw)
        s.nav.cells.update(_lake())
        return s._plan(_state((10, 11), sapling=2, stone=9, wood_pickaxe=1), night=False)

    found = {(3, False)}
    assert plan(home_plans=ways) is not None and calls == list(ways)  # the unguarded way, after the two others
    found = {(6, True)}
    assert plan(home_plans=ways) is not None and calls == list(ways[:2])  # no further than the first that finds
    found = set()
    assert plan(home_plans=ways) is None and calls == list(ways)
    found = {(3, False)}
    assert plan() is None and calls == [survivor_module.HOME_PLANS[0]] == [(3, survivor_module.HOME_TRIES, True)]


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"settle_plants": -1}, r"settle_plants must be an int ≥ 0.*e\.g\. 2"),
        ({"settle_plants": 2.5}, r"settle_plants must be an int"),
        ({"home_plans": ((3, 8),)}, r"home_plans must hold \(radius, tries, guarded\) triples, got \(3, 8\)"),
        ({"home_plans": ((3, 8, "yes"),)}, r"home_plans must hold .* triples"),
        ({"home_plans": ((0, 8, True),)}, r"a home_plans radius must be an int ≥ 1"),
        ({"home_plans": ((3, 0, True),)}, r"a home_plans tries must be an int ≥ 1"),
        ({"home_plans": [[3, 8]]}, r"home_plans must hold \(radius, tries, guarded\) triples, got \(3, 8\)"),
    ],
)
def test_the_homestead_settings_refuse_bad_values_with_a_message_saying_what_to_pass(kw, message) -> None:
    from solvi_lab.errors import BadInput

    with pytest.raises(BadInput, match=message):
        Survivor(rng=random.Random(0), **kw)


def test_home_plans_given_as_lists_are_the_same_triples() -> None:
    """JSON has no tuples: ``crafter_deaths.py --set HOME_PLANS=[[3,8,true]]`` hands lists, read as the triples."""
    ways = Survivor(rng=random.Random(0), home_plans=[[3, 8, True], (6, 30, False)]).home_plans
    assert ways == ((3, 8, True), (6, 30, False))


def _at(pos, facing, daylight: float, achievements: dict[str, int] | None = None, **inv: int) -> SymState:
    inv.setdefault("wood_pickaxe", 1)  # the door is a stone: mined to leave and to come back
    return dataclasses.replace(_state(pos, facing, **inv), daylight=daylight, achievements=achievements or {})


@pytest.fixture
def tripper(settled: Survivor, monkeypatch) -> Survivor:
    """The settled survivor with a door: the stone (9,10) in line with its pocket (10,10)-(11,10), grass beyond."""
    monkeypatch.setattr(survivor_module, "TRIPS", 1)
    settled.nav.cells[(8, 10)] = "grass"
    settled._light = 0.9  # the daylight rising: a morning
    return settled


def test_a_day_trip_leaves_fed_in_the_morning_through_the_wall_in_line_with_the_pocket(tripper: Survivor) -> None:
    assert tripper._settled(_at((10, 10), (0, 1), 0.95)) == "move_right"  # to b, so as to come back facing the door
    assert tripper._settled(_at((11, 10), (1, 0), 0.95)) == "move_left"
    assert tripper.settled_at == 0 and not tripper._trip  # still settled until the door is open
    assert tripper._settled(_at((10, 10), (-1, 0), 0.95)) == "do"  # facing the door: mine it
    assert tripper.settled_at is None and tripper._trip and tripper._trips == 1
    assert tripper._door == ((10, 10), (11, 10), (9, 10))
    # out twice, a step back facing the pocket, and its cell filled with a stone (the plants stay walled in)
    assert tripper._macro == [
        ("move_left", (10, 10)),
        ("move_left", (9, 10)),
        ("move_right", (8, 10)),
        ("place_stone", (9, 10)),
    ]


@pytest.mark.parametrize(
    "why, daylight, inv",
    [
        ("hungry", 0.95, {"food": survivor_module.TRIP_FED - 1}),
        ("hurt", 0.95, {"health": survivor_module.TRIP_FED - 1}),
        ("evening", 0.85, {}),  # the daylight falling below the morning's WALL_OUT
        ("no pickaxe", 0.95, {"wood_pickaxe": 0}),  # the door could not be mined, nor mined again to come back
    ],
)
def test_no_day_trip_when_hungry_hurt_without_a_pickaxe_or_not_in_the_morning(
    tripper: Survivor, why, daylight, inv
) -> None:
    assert tripper._settled(_at((10, 10), (0, 1), daylight, **inv)) != "move_right", why
    assert tripper.settled_at == 0 and not tripper._trip and tripper._trips == 0


def test_no_day_trip_without_trips_or_without_a_door(settled: Survivor, monkeypatch) -> None:
    settled._light = 0.9
    assert survivor_module.TRIPS == 0  # off by default: measured on design worlds, not adopted
    assert settled._settled(_at((10, 10), (0, 1), 0.95)) == "noop"
    monkeypatch.setattr(survivor_module, "TRIPS", 1)
    assert settled._way_out() is None or settled._home_pair is None
    assert settled._settled(_at((10, 10), (0, 1), 0.95)) == "noop"  # stone beyond the wall: no way out
    assert settled._home_pair == ((10, 10), (11, 10)) and settled._way_out() is None and settled.settled_at == 0


def test_back_from_a_day_trip_it_mines_its_way_in_and_walls_the_door_from_inside(tripper: Survivor) -> None:
    tripper._settled(_at((10, 10), (-1, 0), 0.95))  # leaves (see above); the macro mined the door, filled a
    tripper.nav.cells.update({(9, 10): "path", (10, 10): "stone"})
    tripper._light = 0.8  # the evening: falling daylight below TRIP_BACK
    home = [
        ((8, 10), (-1, 0), "move_right"),  # to the door
        ((9, 10), (0, 1), "move_right"),  # facing the stone it left in a: a move towards it only turns
        ((9, 10), (1, 0), "do"),  # mined open
    ]
    for pos, facing, want in home:
        assert tripper._go_home(_at(pos, facing, 0.7, stone=1)) == want
    tripper.nav.cells[(10, 10)] = "path"
    inside = [
        ((9, 10), (1, 0), "move_right"),  # into a
        ((10, 10), (1, 0), "move_right"),  # on to b
        ((11, 10), (1, 0), "move_left"),  # back to a: now facing the door
        ((10, 10), (-1, 0), "place_stone"),
    ]
    for pos, facing, want in inside:
        assert tripper._go_home(_at(pos, facing, 0.7, stone=1)) == want
    assert tripper._go_home(_at((10, 10), (-1, 0), 0.7, stone=0)) is None  # no stone to wall it with: a night pocket
    tripper.nav.cells[(9, 10)] = "stone"
    assert tripper._go_home(_at((10, 10), (-1, 0), 0.7)) is None  # sealed: the homestead takes over
    assert tripper._stay(_at((10, 10), (-1, 0), 0.7)) and tripper.settled_at is not None and not tripper._trip
    assert tripper.first_settled_at == tripper.settled_at
    assert tripper._trips == survivor_module.TRIPS  # a trip that unlocked nothing new is the last


def test_sapling_retry_tries_the_same_grass_again_for_the_homestead_and_only_then(monkeypatch) -> None:
    s = Survivor(rng=random.Random(0), homestead=True)
    s.nav.cells.update(_lake())
    done = {"collect_sapling": 1, "place_plant": 1}
    state = _at((10, 5), (0, 1), 1.0, done)
    assert s._garden(state) == "do"  # a sapling wanted for the homestead's walls
    assert s._garden(state) is None  # the same grass cell: tried once
    s.sapling_retry = True  # the keyword's setting (sapling_retry=True)
    assert s._garden(state) == "do"  # Crafter gives a sapling for a tenth of the tries, and the grass stays
    monkeypatch.setattr(survivor_module, "SAPLING_RETRY", True)  # what crafter_deaths.py --set does before it plays
    assert (
        Survivor(rng=random.Random(0)).sapling_retry
        and not Survivor(rng=random.Random(0), sapling_retry=False).sapling_retry
    )
    assert Survivor(rng=random.Random(0))._garden(state) is not None  # the first try of a cell is anyone's
    plain = Survivor(rng=random.Random(0))
    plain._tried.add((10, 6))
    assert plain._garden(state) is None  # no homestead: one try per cell, retry or not


def test_night_home_makes_an_unfed_nights_pocket_the_homestead_and_only_at_night(monkeypatch) -> None:
    def hungry_evening() -> tuple[Survivor, SymState]:
        s = Survivor(rng=random.Random(0), homestead=True, settle_plants=2)
        s.nav.cells.update(_lake())
        return s, _state((10, 10), food=survivor_module.SETTLE_FOOD - 1, sapling=2, stone=12, wood_pickaxe=0)

    s, at = hungry_evening()
    plan = s._plan(at, night=True)
    assert plan is not None and not s._homing  # unfed: a night's pocket, not the homestead
    monkeypatch.setattr(survivor_module, "NIGHT_HOME", True)
    s, at = hungry_evening()
    assert s._plan(at, night=False) is None  # by day it still waits to be fed
    s, at = hungry_evening()
    plan = s._plan(at, night=True)
    assert plan is not None and s._homing  # the homestead's plan: beside the water, both saplings among its walls
    assert [a for a, _, _ in plan].count("place_plant") == 2
    pos, facing, _opened = _play(s.nav, (10, 10), (0, 1), plan)
    pocket = {pos, *s.nav._open_around(pos)}
    near = {(c[0] + dx, c[1] + dy) for c in pocket for dx, dy in DIRECTIONS.values()} - pocket
    assert any(s.nav.cells[c] == "water" for c in near)


def _pond() -> dict[tuple[int, int], str]:
    """Grass with a pond two rows deep (rows 12 and 13), grass again beyond it: a skeleton's far shore."""
    return {(x, y): ("water" if y in (12, 13) else "grass") for x in range(20) for y in range(20)}


def test_a_cell_is_in_the_line_of_fire_only_across_water_to_ground_a_skeleton_may_stand_on() -> None:
    from solvi_lab.studies.crafter.navigation import in_line_of_fire

    nav = _nav(_pond())
    assert in_line_of_fire(nav, (5, 11))  # the far shore (row 14) is three cells away
    assert not in_line_of_fire(nav, (5, 10))  # no water next to it
    assert not in_line_of_fire(nav, (5, 11), reach=2)  # the far shore is beyond the reach
    nav.cells[(5, 14)] = "stone"
    assert not in_line_of_fire(nav, (5, 11))  # a stone on the far shore shuts the line
    lake = _nav(_lake())
    assert not in_line_of_fire(lake, (5, 11))  # eight rows of water: no skeleton stands within reach
    del lake.cells[(5, 15)]
    assert in_line_of_fire(lake, (5, 11))  # a cell never seen may hold one
    lava = _nav({(0, 0): "grass", (0, 1): "lava", (0, 2): "path"})
    assert in_line_of_fire(lava, (0, 0))  # an arrow flies over lava too
    from solvi_lab.errors import BadInput

    with pytest.raises(BadInput, match=r"reach must be an int ≥ 1, got 0.*cells an arrow is feared from, e\.g\. 5"):
        in_line_of_fire(nav, (5, 11), reach=0)


def _pond_and_lake() -> dict[tuple[int, int], str]:
    """The pond (two rows of water, grass beyond) left of x = 10, a lake (water down to the map's edge) from x = 10."""
    return {
        (x, y): ("water" if y in (12, 13) or (x >= 10 and y >= 12) else "grass") for x in range(20) for y in range(20)
    }


def test_a_shielded_homestead_takes_the_lake_over_the_nearer_pond_and_the_pond_only_when_nothing_else() -> None:
    from solvi_lab.studies.crafter.navigation import FIRE_COST, in_line_of_fire

    both = _pond_and_lake()
    open_sites = homestead_sites(_nav(both), _state((5, 5)), walls=12, plants=3)
    assert open_sites[0][1][0] < 10  # unshielded: the pond's shore, nearest
    sites = homestead_sites(_nav(both), _state((5, 5)), walls=12, plants=3, fire_cost=FIRE_COST)
    nav = _nav(both)
    assert sites[0][1][0] >= 10 and not in_line_of_fire(nav, sites[0][1]) and not in_line_of_fire(nav, sites[0][2])
    assert sorted(sites) == sorted(
        (c + FIRE_COST * (in_line_of_fire(nav, p) or in_line_of_fire(nav, q)), p, q) for c, p, q in open_sites
    )
    kw = {"sapling": 3, "plants": 3, "radius": 3, "tries": 8, "limit": 200_000, "fewest": 3, "guarded": True}
    plan = pocket_plan(nav, _state((8, 10)), stones=12, beside=_water(both), fire_cost=FIRE_COST, **kw)
    assert plan is not None
    pos, facing, _opened = _play(nav, (8, 10), (0, 1), plan)
    pocket = {pos, *nav._open_around(pos)}
    assert nav.sealed(_state(pos, facing)) and len(pocket) == 2
    assert not any(in_line_of_fire(nav, c) for c in pocket)  # on the lake's shore
    nav = _nav(both)
    plan = pocket_plan(nav, _state((8, 10)), stones=12, beside=_water(both), **kw)
    pos, _facing, _opened = _play(nav, (8, 10), (0, 1), plan)
    assert any(in_line_of_fire(nav, c) for c in {pos, *nav._open_around(pos)})  # unshielded: the pond, nearer
    # the pond alone: shielded or not, the same plan (a pocket in the line of fire beats none)
    pond = _pond()
    assert pocket_plan(_nav(pond), _state((10, 10)), stones=12, beside=_water(pond), fire_cost=FIRE_COST, **kw) == (
        pocket_plan(_nav(pond), _state((10, 10)), stones=12, beside=_water(pond), **kw)
    )


def test_shielding_changes_nothing_on_a_wide_lake() -> None:
    from solvi_lab.studies.crafter.navigation import FIRE_COST

    kw = {"sapling": 3, "plants": 3, "radius": 3, "tries": 8, "limit": 200_000, "fewest": 3, "guarded": True}
    lake = _lake()
    assert homestead_sites(_nav(lake), _state((10, 5)), walls=12, plants=3, fire_cost=FIRE_COST) == homestead_sites(
        _nav(lake), _state((10, 5)), walls=12, plants=3
    )
    plan = pocket_plan(_nav(lake), _state((10, 10)), stones=12, beside=_water(lake), fire_cost=FIRE_COST, **kw)
    assert plan == pocket_plan(_nav(lake), _state((10, 10)), stones=12, beside=_water(lake), **kw)
    assert plan is not None


def _afternoon(table: tuple[int, int] | None, **inv: int) -> tuple[Survivor, SymState]:
    """A survivor in the afternoon (daylight falling) with the wood tools, a stone placed, and ``inv`` in hand."""
    from solvi_lab.studies.crafter.vocabulary import ITEMS

    inventory = dict.fromkeys(ITEMS, 0)
    inventory.update({"health": 9, "food": 9, "drink": 9, "energy": 9, "wood_pickaxe": 1, "wood_sword": 1, **inv})
    done = ("collect_wood", "place_table", "make_wood_pickaxe", "make_wood_sword", "collect_sapling", "place_plant")
    done += ("collect_drink", "eat_cow", "collect_stone", "place_stone")
    state = SymState(
        inventory, (10, 10), (0, 1), ("grass", "none"), {}, {}, {}, {}, False, 0.85, dict.fromkeys(done, 1)
    )
    s = Survivor(rng=random.Random(0))
    s.nav.cells.update({(x, y): "grass" for x in range(0, 40) for y in range(0, 40)})
    s.nav.cells[(12, 14)] = "stone"
    if table is not None:
        s.nav.cells[table] = "table"
    s._light = 0.9  # daylight falling: the afternoon's gathering for the night
    return s, state


def test_craft_first_puts_the_stone_tools_before_the_afternoons_gathering_only_with_the_items_and_a_table_near(
    monkeypatch,
) -> None:
    s, state = _afternoon((14, 10), wood=3, stone=3)
    off = s.options(state)
    assert off[:4] == ["do_stone", "do_tree", "make_stone_pickaxe", "make_stone_sword"]  # the default: gather first
    monkeypatch.setattr(survivor_module, "CRAFT_FIRST", True)
    s, state = _afternoon((14, 10), wood=3, stone=3)
    on = s.options(state)
    assert on[:4] == ["make_stone_pickaxe", "make_stone_sword", "do_stone", "do_tree"]
    assert sorted(on) == sorted(off)  # the same calls, reordered
    assert "place_furnace" in on[4:]  # the furnace's stones are the night's: not first ...
    monkeypatch.setattr(survivor_module, "CRAFT_FURNACE", True)
    assert s.options(state)[:3] == ["make_stone_pickaxe", "make_stone_sword", "place_furnace"]  # ... unless asked
    # no table within CRAFT_NEAR, no stone in hand, or hungry: the gathering goes first as before
    for table, inv in (((10, 10 + survivor_module.CRAFT_NEAR + 1), {"wood": 3, "stone": 3}), ((14, 10), {"wood": 3})):
        s, state = _afternoon(table, **inv)
        assert s.options(state)[0] == "do_stone"
    s, state = _afternoon((14, 10), wood=3, stone=3, food=survivor_module.FED)
    assert s.options(state)[:3] == ["do_cow", "do_stone", "do_tree"]


def test_the_afternoons_gathering_stops_at_a_full_hand() -> None:
    s, state = _afternoon((14, 10), wood=9, stone=0)
    assert "do_tree" not in s.options(state)[:2]  # nine wood: gathering more gains nothing
    s, state = _afternoon((14, 10), wood=2, stone=0)
    assert s.options(state)[:2] == ["do_stone", "do_tree"]


def test_the_skeletons_reach_is_read_from_crafters_code_and_a_changed_code_is_refused_with_what_to_do() -> None:
    from solvi_lab.studies.crafter.navigation import ARROW_REACH, skeleton_reach

    assert ARROW_REACH == skeleton_reach() == 5  # crafter 1.8.3's Skeleton.update: `if dist <= 5 and ...`
    with pytest.raises(RuntimeError, match=r"cannot be read from it; install the pinned version"):
        skeleton_reach("if near(self.player):\n      self._shoot(self.toward(self.player))")
