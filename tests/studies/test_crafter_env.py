"""The Crafter adapter: image-free steps equal rendered ones; every call is labelled by its effect."""

from __future__ import annotations

import crafter
import numpy as np
import pytest

from solvi_lab.errors import BadInput
from solvi_lab.studies.crafter.env import ACTIONS, CrafterWorld, HeadlessEnv, call_name, read_state


def _snapshot(env: crafter.Env) -> tuple:
    world, player = env._world, env._player
    objects = sorted((type(o).__name__, tuple(int(v) for v in o.pos), o.health) for o in world.objects)
    return (
        world._mat_map.tobytes(),
        tuple(objects),
        tuple(sorted(player.inventory.items())),
        player.sleeping,
        float(world.daylight),
        tuple(sorted(player.achievements.items())),
    )


class SortedRendered(crafter.Env):
    """The rendered environment with the same deterministic despawn order as HeadlessEnv (nothing else changed)."""

    _balance_object = HeadlessEnv._balance_object


@pytest.mark.parametrize("seed", [0, 7])
def test_headless_steps_equal_rendered_steps(seed: int) -> None:
    """Through dusk and night (step 160 on): rendering draws noise from the world's generator, which HeadlessEnv
    draws too, so states and rewards stay equal step for step."""
    rendered, headless = SortedRendered(seed=seed), HeadlessEnv(seed=seed)
    obs = rendered.reset()
    assert obs.shape == (64, 64, 3) and headless.reset() is None
    assert _snapshot(rendered) == _snapshot(headless)
    rng = np.random.default_rng(seed)
    nights = 0
    for a in rng.integers(0, len(ACTIONS), 400):
        o1, r1, d1, i1 = rendered.step(int(a))
        o2, r2, d2, i2 = headless.step(int(a))
        assert o2 is None and o1.shape == (64, 64, 3)
        assert (r1, d1) == (r2, d2)
        assert i1["inventory"] == i2["inventory"] and i1["achievements"] == i2["achievements"]
        assert np.array_equal(i1["semantic"], i2["semantic"])
        assert _snapshot(rendered) == _snapshot(headless)
        nights += rendered._world.daylight < 0.5
        if d1:
            break
    assert nights > 0 or d1  # the night was reached (or the random player died first)


def test_the_same_seed_gives_the_same_episode_in_two_environments() -> None:
    a, b = HeadlessEnv(seed=4), HeadlessEnv(seed=4)
    a.reset(), b.reset()
    rng = np.random.default_rng(1)
    for act in rng.integers(0, len(ACTIONS), 300):
        ra, rb = a.step(int(act))[1:3], b.step(int(act))[1:3]
        assert ra == rb and _snapshot(a) == _snapshot(b)
        if ra[1]:
            break


def _world(seed: int = 3) -> CrafterWorld:
    return CrafterWorld(seed)


def _set(w: CrafterWorld, facing: tuple[int, int] = (0, 1), ahead: str | None = None, **inventory: int) -> None:
    """Put the player in a chosen situation (test set-up only), then re-read its state."""
    p = w.env._player
    p.facing = facing
    if ahead is not None:
        target = (int(p.pos[0]) + facing[0], int(p.pos[1]) + facing[1])
        obj = w.env._world[target][1]
        if obj is not None:
            w.env._world.remove(obj)
        w.env._world[target] = ahead
    p.inventory.update(inventory)
    w.state = read_state(w.env)


def test_noop_is_not_a_call_and_do_is_named_by_its_target() -> None:
    w = _world()
    _set(w, ahead="tree")
    assert call_name("do", w.state) == "do_tree"
    step = w.step("noop")
    assert step.call is None and step.accepted is None and step.effect == {}
    with pytest.raises(BadInput, match="unknown Crafter action"):
        call_name("jump", w.state)


def test_labels_follow_the_effects() -> None:
    w = _world()
    _set(w, ahead="tree", wood=0)
    s = w.step("do")
    assert (s.call, s.accepted, s.effect) == ("do_tree", True, {"wood": 1})
    _set(w, ahead="stone", wood_pickaxe=0)
    s = w.step("do")
    assert (s.call, s.accepted) == ("do_stone", False)  # needs a wood pickaxe: nothing changed
    _set(w, ahead="grass", wood=1)
    assert w.step("place_table").accepted is False  # data.yaml: a table uses 2 wood
    _set(w, ahead="grass", wood=2)
    s = w.step("place_table")
    assert s.accepted is True and s.effect == {"wood": -2} and w.state.faced[0] == "table"
    assert w.step("make_wood_pickaxe").accepted is False  # the table took both wood: none left
    _set(w, wood=1)
    s = w.step("make_wood_pickaxe")  # the table is in front: within distance 1
    assert s.accepted is True and s.effect == {"wood": -1, "wood_pickaxe": 1}


def test_moves_and_sleep() -> None:
    w = _world()
    _set(w, facing=(1, 0), ahead="water")
    s = w.step("move_right")
    assert (s.call, s.accepted, s.after.pos) == ("move_right", False, s.before.pos)
    _set(w, facing=(1, 0), ahead="grass")
    s = w.step("move_right")
    assert s.accepted is True and s.after.pos == (s.before.pos[0] + 1, s.before.pos[1])
    _set(w, energy=9)
    assert w.step("sleep").accepted is False  # energy at its maximum
    _set(w, energy=5)
    s = w.step("sleep")
    assert s.accepted is True and s.after.sleeping


def test_copy_is_independent_and_an_ended_episode_refuses_steps() -> None:
    w = _world()
    c = w.copy()
    assert c.state == w.state
    for _ in range(5):
        c.step("move_left")
    assert w.state.step == 0 and c.state.step == 5
    w.env._player.health = 0
    assert w.step("noop").done
    with pytest.raises(BadInput, match="episode is over"):
        w.step("noop")


def test_state_reads_the_view_without_the_player() -> None:
    w = _world()
    s = w.state
    assert len(s.view) == 9 * 7 and s.pos in s.view
    assert s.pos not in s.creatures
    assert s.around[1] <= s.around[2] <= s.around[3]
    assert set(s.neighbours) == {"left", "right", "up", "down"}
