"""The Crafter explorer (probes, lava, digging a shelter) and the failure-memory arms of the protocol."""

from __future__ import annotations

import random

from solvi_lab.studies.crafter import learning, protocol
from solvi_lab.studies.crafter.env import CrafterWorld, read_state
from solvi_lab.studies.crafter.explorer import CRITICAL, Explorer
from solvi_lab.studies.crafter.navigation import Navigator


def _flat(seed: int = 3, radius: int = 5) -> CrafterWorld:
    """A world whose cells around the player are all grass and free of creatures."""
    w = CrafterWorld(seed)
    world, (px, py) = w.env._world, w.env._player.pos
    for x in range(px - radius, px + radius + 1):
        for y in range(py - radius, py + radius + 1):
            obj = world[(x, y)][1]
            if obj is not None and obj is not w.env._player:
                world.remove(obj)
            world[(x, y)] = "grass"
    w.state = read_state(w.env)
    return w


def test_lava_is_faced_by_walking_towards_it_and_entered_only_when_asked() -> None:
    w = _flat()
    px, py = w.env._player.pos
    w.env._world[(px - 2, py)] = "lava"
    w.env._player.facing = (0, 1)
    w.state = read_state(w.env)
    nav = Navigator()
    nav.see(w.state)
    assert nav.approach(w.state, "lava") == "move_left"  # onto the grass cell before it, facing the lava
    w.step("move_left")
    assert w.state.pos == (px - 1, py) and w.state.faced[0] == "lava" and not w.done
    nav.see(w.state)
    assert nav.approach(w.state, "lava") == ""
    # moving up onto it: from the cell below it, reached round it (never through it)
    assert nav.approach(w.state, "lava", enter=True, dirs=["up"]) == "move_down"
    assert nav.approach(w.state, "lava", enter=True) == "move_left"
    step = w.step("move_left")
    assert step.call == "move_left" and step.accepted and w.state.inventory["health"] <= 0  # Crafter accepts it
    assert nav.approach(w.state, "water") is None  # nothing known


def test_shelter_digs_a_pocket_into_walled_stone() -> None:
    w = _flat()
    px, py = w.env._player.pos
    for cell in ((px + 1, py), (px + 2, py), (px + 1, py - 1), (px + 1, py + 1)):
        w.env._world[cell] = "stone"
    w.env._player.facing = (1, 0)
    w.state = read_state(w.env)
    nav = Navigator()
    nav.see(w.state)
    assert nav.shelter(w.state, None) is None  # no pocket known, and no digging
    assert nav.shelter(w.state, None, dig=True) == "do"  # facing (px+1, py): walled on its three other sides
    w.env._player.facing = (0, 1)
    w.state = read_state(w.env)
    assert nav.shelter(w.state, None, dig=True) == "move_right"  # turn towards it (a blocked move turns)


def test_explorer_random_share_never_sleeps_in_the_open_nor_makes_a_held_tool() -> None:
    w = _flat()
    w.env._player.inventory["wood_pickaxe"] = 1
    w.env._player.inventory["energy"] = 5
    s = read_state(w.env)
    e = Explorer(budget=100, rng=random.Random(0))
    got = {e.random_action(s) for _ in range(300)}
    assert "sleep" not in got and "make_wood_pickaxe" not in got
    assert {"make_stone_pickaxe", "place_stone", "do"} <= got  # refusals are data: the others stay
    w.env._player.inventory["energy"] = 9
    assert "sleep" in {e.random_action(read_state(w.env)) for _ in range(300)}  # refused at full energy


def test_explorer_probes_placements_on_materials_it_has_not_seen_accepted() -> None:
    w = _flat()
    px, py = w.env._player.pos
    w.env._world[(px + 1, py)] = "water"
    w.env._player.facing = (1, 0)
    w.env._player.inventory["stone"] = 3
    s = w.state = read_state(w.env)
    e = Explorer(budget=100, rng=random.Random(0))
    assert e._placement_probe(s) == "place_stone"  # (act would drink first: do_water was never accepted)
    e.learn(w.step("place_stone"))
    assert ("place_stone", "water") in e.seen and w.state.faced[0] == "stone"
    e2 = Explorer(budget=100, rng=random.Random(0), seen={("place_stone", "water")})
    w.env._world[(px + 1, py)] = "water"
    assert e2._placement_probe(read_state(w.env)) != "place_stone"  # seen accepted there: no probe


def test_failure_memory_arm_is_paired_with_the_proposer_and_blocks_repeats() -> None:
    worlds = [CrafterWorld(201)]
    e = protocol.play_arms(worlds, 150, 0, arms=("planner", "proposer", "failure_memory"))
    rows = {r["arm"]: r for r in e.iter_rows(named=True)}
    assert rows["planner"]["checked_out"] == rows["proposer"]["checked_out"] == 0
    assert rows["failure_memory"]["checked_out"] > 0
    assert rows["failure_memory"]["repeated_calls"] == 0 < rows["proposer"]["repeated_calls"]
    assert rows["planner"]["repeated_calls"] == 0  # its own pause rests a refused option 10 steps


def test_explorer_summary_counts_lava_entries_and_placement_materials() -> None:
    w = _flat()
    px, py = w.env._player.pos
    w.env._world[(px - 1, py)] = "lava"
    w.env._world[(px + 1, py)] = "water"
    w.env._player.facing = (1, 0)
    s = read_state(w.env)
    calls = [
        {"call": "place_stone", "state": s, "accepted": True},
        {"call": "place_stone", "state": s, "accepted": True},  # the same material again
        {"call": "place_table", "state": s, "accepted": False},  # refused: not counted
        {"call": "move_right", "state": s, "accepted": False},
        {"call": "move_left", "state": s, "accepted": True, "end_steps": 90, "end_died": True},
    ]
    calls.append({"call": "noop", "state": s, "accepted": False, "end_steps": 30, "end_died": False})
    assert learning.explorer_summary(calls) == {
        "explorer_mean_steps": 60.0,
        "explorer_deaths": 1,
        "explorer_lava_entries": 1,
        "explorer_stone_placed_on": 1,
        "explorer_table_placed_on": 0,
    }


def test_a_refused_placement_probe_is_not_retried_at_once() -> None:
    w = _flat()
    px, py = w.env._player.pos
    w.env._world[(px + 1, py)] = "water"  # a table cannot go on water: refused
    w.env._player.facing = (1, 0)
    w.env._player.inventory["wood"] = 5
    s = w.state = read_state(w.env)
    e = Explorer(budget=100, rng=random.Random(0))
    assert e._placement_probe(s) == "place_table"
    step = w.step("place_table")
    e.learn(step)
    assert step.accepted is False and ("place_table", "water") not in e.seen
    assert e._placement_probe(w.state) != "place_table"  # once is the data


def test_lava_probe_runs_at_critical_health_in_training_worlds_only() -> None:
    w = _flat()
    marker = "probe"  # stands in for the probe's step, so the test sees only whether it ran
    for lava_probe, health, budget, ran in (
        (True, CRITICAL, 1000, True),
        (True, CRITICAL + 1, 1000, False),
        (False, CRITICAL, 1000, False),
    ):
        w.env._player.inventory["health"] = health
        e = Explorer(budget=budget, rng=random.Random(0), lava_probe=lava_probe)
        e._lava = lambda state: marker  # type: ignore[method-assign]
        assert (e.act(read_state(w.env)) == marker) is ran, (lava_probe, health)
    e = Explorer(budget=30, rng=random.Random(0), lava_probe=True)  # within LAVA_MARGIN of the end: at any health
    e._lava = lambda state: marker  # type: ignore[method-assign]
    w.env._player.inventory["health"] = 9
    assert e.act(read_state(w.env)) == marker


def test_lava_probe_stops_once_every_move_onto_lava_was_seen() -> None:
    w = _flat()
    w.env._player.inventory["health"] = CRITICAL
    marker = "probe"
    seen = {(f"move_{d}", "lava") for d in ("left", "right", "up")}
    e = Explorer(budget=1000, rng=random.Random(0), lava_probe=True, seen=set(seen))
    e._lava = lambda state: marker  # type: ignore[method-assign]
    assert e.act(read_state(w.env)) == marker  # moving down onto lava never seen: the probe still runs
    e = Explorer(budget=1000, rng=random.Random(0), lava_probe=True, seen=seen | {("move_down", "lava")})
    e._lava = lambda state: marker  # type: ignore[method-assign]
    assert e.act(read_state(w.env)) != marker  # all four seen: a hurt explorer plays on instead of dying


def test_a_furnace_probe_with_no_table_by_the_material_places_a_table_there_first() -> None:
    w = _flat()
    px, py = w.env._player.pos
    for x in range(px - 5, px):  # a beach on the left: the table goes on its edge, the furnace faces it further on
        for y in range(py - 5, py + 6):
            w.env._world[(x, y)] = "sand"
    w.env._player.facing = (-1, 0)
    w.env._player.inventory.update({"wood": 5, "stone": 6})
    s = w.state = read_state(w.env)
    e = Explorer(budget=1000, rng=random.Random(0))
    e.spent.update({"place_table": 2, "place_furnace": 4})  # both were seen accepted before (on grass)
    e.lowest.update({"place_table": 2, "place_furnace": 4})
    e.seen.update({("place_table", "sand"), ("place_stone", "sand")})
    e._probe = ("place_furnace", "sand", 0)
    e.nav.see(s)
    assert e._placement_probe(s) == "place_table"  # no table within reach of the sand: one goes there first
    e.learn(w.step("place_table"))
    assert w.env._world[(px - 1, py)][0] == "table"
    for _ in range(12):  # then the furnace, standing within 1 of that table, facing the other sand cell
        e._probe = ("place_furnace", "sand", e.count.steps)
        action = e._placement_probe(w.state)
        assert action is not None
        step = w.step(action)
        e.learn(step)
        if action == "place_furnace":
            break
    assert action == "place_furnace" and step.accepted and ("place_furnace", "sand") in e.seen


def test_lava_probe_places_a_stone_on_lava_once_then_steps_onto_it() -> None:
    w = _flat()
    px, py = w.env._player.pos
    for x in (px - 1, px - 2):
        w.env._world[(x, py)] = "lava"  # two cells: the stone fills one, the other stays
    w.env._player.facing = (-1, 0)
    w.env._player.inventory["stone"] = 1
    s = w.state = read_state(w.env)
    e = Explorer(budget=1000, rng=random.Random(0), lava_probe=True)
    assert e._lava(s) == "place_stone"
    e.learn(w.step("place_stone"))
    assert ("place_stone", "lava") in e.seen and w.env._world[(px - 1, py)][0] == "stone"
    w.env._world[(px - 1, py)] = "lava"
    w.env._player.inventory["stone"] = 1
    s = w.state = read_state(w.env)
    assert e._lava(s) == "move_left"  # the stone was seen accepted on lava: now the step onto it
    step = w.step("move_left")
    e.learn(step)
    assert step.accepted and w.state.inventory["health"] <= 0 and ("move_left", "lava") in e.seen
    lone = _flat()  # a single lava cell is not filled: the move probe needs it
    qx, qy = lone.env._player.pos
    lone.env._world[(qx - 1, qy)] = "lava"
    lone.env._player.facing = (-1, 0)
    lone.env._player.inventory["stone"] = 1
    assert Explorer(budget=1000, rng=random.Random(0), lava_probe=True)._lava(read_state(lone.env)) == "move_left"


def test_a_creature_in_the_way_does_not_seal_a_pocket() -> None:
    w = _flat()
    s = w.state
    px, py = s.pos
    nav = Navigator()
    nav.see(s)
    for cell in ((px - 1, py), (px, py - 1), (px, py + 1)):
        nav.cells[cell] = "stone"
    assert not nav.sealed(s)  # open to the right
    nav.creatures[(px + 1, py)] = "zombie"
    assert not nav.sealed(s)  # a zombie in the opening is no wall (it used to count as one: the player slept)
    nav.cells[(px + 2, py)] = "stone"
    nav.cells[(px + 1, py - 1)] = nav.cells[(px + 1, py + 1)] = "tree"
    assert nav.sealed(s)  # two cells, walled: sealed whatever stands in them
    nav.cells[(px + 1, py + 1)] = "grass"
    assert not nav.sealed(s)


def test_approach_mines_through_known_stone_and_stands_where_asked() -> None:
    w = _flat()
    px, py = w.env._player.pos
    for y in range(py - 5, py + 6):  # a stone wall two cells to the left, lava behind it
        w.env._world[(px - 2, y)] = "stone"
        w.env._world[(px - 3, y)] = "lava"
    w.env._player.facing = (0, 1)
    w.state = read_state(w.env)
    nav = Navigator()
    nav.see(w.state)
    assert nav.approach(w.state, "lava") is None  # no walk reaches it
    assert nav.approach(w.state, "lava", dig=True) == "move_left"  # towards the wall
    w.step("move_left")
    nav.see(w.state)
    assert w.state.faced[0] == "stone" and nav.approach(w.state, "lava", dig=True) == "do"  # mine it open
    w.env._world[(px + 2, py)] = "table"
    w.env._world[(px + 1, py + 2)] = "sand"
    w.state = read_state(w.env)
    nav.see(w.state)
    beside = {(px + 1 + dx, py + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)}  # within 1 of the table
    for _ in range(20):  # walk until it faces the sand from a cell beside the table
        step = nav.approach(w.state, "sand", stand=lambda p: p in beside)
        assert step is not None
        if step == "":
            break
        w.step(step)
        nav.see(w.state)
    assert step == "" and w.state.faced[0] == "sand" and w.state.pos in beside


def test_amount_search_asks_for_one_more_after_a_refusal_with_the_gate_open() -> None:
    w = _flat()
    px, py = w.env._player.pos
    w.env._world[(px + 1, py)] = "table"  # the documented gate of place_furnace: stone and a table nearby
    w.env._player.facing = (0, 1)
    w.env._player.inventory["stone"] = 1
    w.state = read_state(w.env)
    e = Explorer(budget=100, rng=random.Random(0))
    step = w.step("place_furnace")  # refused: the installed furnace needs more than 1 stone
    e.learn(step)
    assert not step.accepted and e.want["place_furnace"] == {"stone": 2}
    needs, _ = e._needs(w.state, "place_furnace")
    assert needs is not None and needs[0] == ("inv:stone>=2", {True})  # gathered before trying again
    w.env._player.inventory["stone"] = 9
    w.state = read_state(w.env)
    step = w.step("place_furnace")
    e.learn(step)
    assert step.accepted and "place_furnace" not in e.want
    spent = e.spent["place_furnace"]
    # accepted at 9 stones only: whether what it spent suffices is open, so the next probe keeps just that
    assert 1 <= spent < 9 and e._stock()["place_furnace"] == ("stone", spent)
    w.env._player.inventory["stone"] = spent + 1
    w.env._player.facing = (0, -1)  # grass again (the first furnace stands below)
    w.state = read_state(w.env)
    e.learn(w.step("place_furnace"))  # accepted at spent + 1: one more than it spends
    assert e.lowest["place_furnace"] == spent + 1 and e._stock()["place_furnace"] == ("stone", spent)  # still open


def test_a_documented_call_never_accepted_is_made_as_soon_as_its_gate_holds() -> None:
    w = _flat()
    w.env._player.facing = (0, 1)  # facing grass
    w.env._player.inventory["sapling"] = 1
    w.state = read_state(w.env)
    e = Explorer(budget=100, rng=random.Random(0))
    assert e._first_call(w.state) == "place_plant"  # the documented gate: a sapling (and grass faced)
    step = w.step("place_plant")
    e.learn(step)
    assert step.accepted and e._first_call(w.state) is None  # seen accepted: the planner's order decides again


def test_a_documented_source_never_accepted_is_tried_when_faced() -> None:
    w = _flat()
    w.env._player.facing = (0, 1)  # facing grass, no sapling yet: the documentation says saplings come from grass
    w.state = read_state(w.env)
    assert Explorer(budget=100, rng=random.Random(0))._first_call(w.state) == "do"


def test_the_amount_search_goes_on_in_the_next_world() -> None:
    w = _flat()
    px, py = w.env._player.pos
    w.env._world[(px + 1, py)] = "table"
    w.env._player.facing = (0, 1)
    w.env._player.inventory["stone"] = 2
    w.state = read_state(w.env)
    want: dict[str, dict[str, int]] = {}
    Explorer(budget=100, rng=random.Random(0), want=want).learn(w.step("place_furnace"))  # refused with 2 stones
    later = Explorer(budget=100, rng=random.Random(1), want=want)  # the next world's explorer, a fresh start
    assert later.want["place_furnace"] == {"stone": 3}  # asks for 3, not again for what the last world refused


def test_prospect_mines_towards_the_unseen_through_known_stone() -> None:
    w = _flat()
    px, py = w.env._player.pos
    w.env._player.facing = (0, 1)
    w.state = read_state(w.env)
    nav = Navigator()
    nav.see(w.state)
    assert nav.prospect(w.state) is None  # open ground only: no stone beside the unseen
    nav.cells[(px - 1, py)] = "stone"
    assert nav.prospect(w.state) is None  # stone, but every cell around it was seen
    del nav.cells[(px - 2, py)]
    assert nav.prospect(w.state) == "move_left"  # turn to face it (a move onto stone is refused)
    w.env._player.facing = (-1, 0)
    w.state = read_state(w.env)
    assert nav.prospect(w.state) == "do"  # facing it: mine
    nav.creatures[(px - 1, py)] = "zombie"
    assert nav.prospect(w.state) is None  # a creature stands there: no way through


def test_a_search_limit_that_is_not_a_positive_int_is_refused_with_what_it_bounds() -> None:
    import pytest

    from solvi_lab.errors import BadInput
    from solvi_lab.studies.crafter.navigation import pocket_plan

    w = _flat()
    nav = Navigator()
    nav.see(w.state)
    searches = [
        lambda limit: nav.prospect(w.state, limit=limit),
        lambda limit: nav.face(w.state, [(0, 0)], limit=limit),
        lambda limit: nav.shelter(w.state, "place_stone", limit=limit),
        lambda limit: nav.refuge(w.state, limit=limit),
        lambda limit: pocket_plan(nav, w.state, stones=4, limit=limit),
    ]
    for search in searches:
        for bad, said in [(0, "got 0"), (-5, "got -5"), (2.5, "got 2.5"), (True, "got True"), ("40", "got '40'")]:
            with pytest.raises(BadInput, match="^limit must be an int ≥ 1, " + said + r"; the most cells a search"):
                search(bad)
    assert nav.prospect(w.state, limit=1) is None  # the smallest limit is taken: one cell visited, nothing found


def test_iron_quest_puts_the_iron_chain_first_and_lowers_the_random_share() -> None:
    from solvi_lab.studies.crafter.explorer import EPSILON, IRON_CHAIN, QUEST_EPSILON

    w = _flat()
    e = Explorer(budget=1000, rng=random.Random(0))
    plain = e._plain(w.state)
    assert not e._quest(w.state) and plain[: len(IRON_CHAIN)] != list(IRON_CHAIN)
    e.act(w.state)
    assert e.epsilon == EPSILON
    w.env._player.inventory.update({"wood_pickaxe": 1, "stone_pickaxe": 1})
    w.state = read_state(w.env)
    e = Explorer(budget=1000, rng=random.Random(0))
    first = e._plain(w.state)[:5]
    assert e._quest(w.state) and set(first) <= set(IRON_CHAIN)
    e.act(w.state)
    assert e.epsilon == QUEST_EPSILON
    e._ever_accepted = lambda call: call in ("make_iron_pickaxe", "make_iron_sword")  # type: ignore[method-assign]
    assert not e._quest(w.state)  # both iron tools seen made: the planner's order again
    e.act(w.state)
    assert e.epsilon == EPSILON


def test_a_diamond_seen_with_an_iron_pickaxe_in_hand_goes_first(monkeypatch) -> None:
    from solvi_lab.studies.crafter import explorer
    from solvi_lab.studies.crafter.explorer import IRON_CHAIN

    w = _flat()
    px, py = w.env._player.pos
    w.env._player.inventory.update({"wood_pickaxe": 1, "stone_pickaxe": 1, "iron_pickaxe": 1})
    w.state = read_state(w.env)
    e = Explorer(budget=1000, rng=random.Random(0))
    e.nav.see(w.state)
    assert e._plain(w.state)[0] != "do_diamond"  # none seen: the quest's order (the diamond is never prospected for)
    assert e._plain(w.state)[0] in IRON_CHAIN
    e.nav.cells[(px + 6, py)] = "diamond"
    assert e._plain(w.state)[0] == "do_diamond"
    assert e._plain(w.state).count("do_diamond") == 1
    monkeypatch.setattr(explorer, "DIAMOND_SEEN_FIRST", False)
    assert e._plain(w.state)[0] != "do_diamond"
    monkeypatch.setattr(explorer, "DIAMOND_SEEN_FIRST", True)
    e._ever_accepted = lambda call: call == "do_diamond"  # type: ignore[method-assign]
    assert e._plain(w.state)[0] != "do_diamond"  # a diamond was mined once: its rows have their data
    w.env._player.inventory["iron_pickaxe"] = 0
    w.state = read_state(w.env)
    e = Explorer(budget=1000, rng=random.Random(0))
    e.nav.see(w.state)
    e.nav.cells[(px + 6, py)] = "diamond"
    assert e._plain(w.state)[0] != "do_diamond"  # no iron pickaxe: not yet


def test_the_lava_probe_waits_at_critical_health_while_the_iron_quest_is_on() -> None:
    w = _flat()
    w.env._player.inventory.update({"health": CRITICAL, "wood_pickaxe": 1, "stone_pickaxe": 1})
    e = Explorer(budget=1000, rng=random.Random(0), lava_probe=True)
    e._lava = lambda state: "probe"  # type: ignore[method-assign]
    assert e.act(read_state(w.env)) != "probe"
    e = Explorer(budget=30, rng=random.Random(0), lava_probe=True)  # the end of the budget: it runs all the same
    e._lava = lambda state: "probe"  # type: ignore[method-assign]
    assert e.act(read_state(w.env)) == "probe"


def test_a_table_known_only_far_away_is_placed_anew(monkeypatch) -> None:
    from solvi_lab.studies.crafter import explorer

    w = _flat()
    px, py = w.env._player.pos
    w.env._player.facing = (0, 1)  # facing grass
    w.env._player.inventory["wood"] = 9
    w.state = read_state(w.env)
    e = Explorer(budget=1000, rng=random.Random(0))
    e.nav.see(w.state)
    for x in range(px + 1, px + explorer.FAR + 3):  # known open ground up to it: the walk there is possible
        e.nav.cells[(x, py)] = "grass"
    e.nav.cells[(px + explorer.FAR + 3, py)] = "table"
    assert e._meet(w.state, "near:table", {True}, 0) == "place_table"
    monkeypatch.setattr(explorer, "REACH", False)
    assert e._meet(w.state, "near:table", {True}, 0) == "move_right"  # the planner's way: walk to the one known
    monkeypatch.setattr(explorer, "REACH", True)
    e.nav.cells[(px + explorer.FAR + 3, py)] = "grass"
    e.nav.cells[(px + 3, py)] = "table"
    assert e._meet(w.state, "near:table", {True}, 0) == "move_right"  # near enough: walk to it


def test_one_coal_mines_no_second_coal_in_the_iron_quest_so_each_iron_tool_is_made_with_exactly_one(
    monkeypatch,
) -> None:
    from solvi_lab.studies.crafter import explorer
    from solvi_lab.studies.crafter.agent import Agent

    w = _flat()
    px, py = w.env._player.pos
    fx, fy = w.env._player.facing
    w.env._world[(px + fx, py + fy)] = "coal"
    w.env._player.inventory.update({"wood_pickaxe": 1, "stone_pickaxe": 1, "coal": 1})
    w.state = read_state(w.env)
    assert w.state.faced == ("coal", "none")
    monkeypatch.setattr(Agent, "act", lambda self, state: "do")  # the planner would mine the coal it faces
    assert explorer.ONE_COAL is False  # measured, not adopted (docs/readme/crafter.md): switched on here
    monkeypatch.setattr(explorer, "ONE_COAL", True)
    e = Explorer(budget=1000, rng=random.Random(0))
    e._ever_accepted = lambda call: call == "do_coal"  # type: ignore[method-assign]
    assert e._quest(w.state)
    assert e.act(w.state) not in ("do", "noop")  # one coal in hand, the quest on: a safe step, no second coal
    w.env._player.inventory["coal"] = 0
    w.state = read_state(w.env)
    assert e.act(w.state) == "do"  # none in hand: the one coal the next iron tool spends is mined
    w.env._player.inventory["coal"] = 1
    w.state = read_state(w.env)
    monkeypatch.setattr(explorer, "ONE_COAL", False)
    assert e.act(w.state) == "do"  # the rule off: mined as before
    monkeypatch.setattr(explorer, "ONE_COAL", True)
    e._ever_accepted = lambda call: call in ("do_coal", "make_iron_pickaxe", "make_iron_sword")  # type: ignore[method-assign]
    assert not e._quest(w.state) and e.act(w.state) == "do"  # both iron tools seen made: coal is mined again
