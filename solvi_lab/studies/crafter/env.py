"""The Crafter adapter: symbolic states, image-free steps, and each call labelled accepted or refused by its effect.

Crafter (Hafner 2021, PyPI ``crafter==1.8.3``) renders a 64×64 image on every ``reset`` and ``step`` through
``Env._obs``. :class:`HeadlessEnv` overrides that one method to return ``None``: the world, its random generator and
every object update exactly as before (rendering reads the world, it never draws from ``world.random``), so the
states and rewards are those of the rendered environment — ``tests/studies/test_crafter_env.py`` steps both side by
side and compares them.

What the agent may see (:class:`SymState`) is what the picture shows, read as symbols: the inventory, the
materials and creatures of the 9×7 local view, the faced cell, the four neighbours, whether the player sleeps, the
daylight, and the achievement counters Crafter reports in ``info``.

A *call* is every action except ``noop``. ``do`` is named by its target — ``do_tree``, ``do_cow``, ``do_outside``
(facing the world's edge) — so each target is its own action (its own conditions, its own refusals). A call is
*accepted* when it had its effect (:func:`accepted`): a move changed the position, ``sleep`` put the player to sleep,
``place_*``/``make_*`` raised its achievement counter, ``do_*`` gained an item (health excepted: it regenerates by
itself), changed the faced cell's material, or hurt the faced creature.

>>> w = CrafterWorld(seed=1)
>>> s = w.state
>>> s.inventory["health"], s.sleeping, len(s.view)
(9, False, 63)
>>> step = w.step("noop")
>>> step.call is None, step.accepted is None
(True, True)
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any

import crafter
import numpy as np
from crafter import constants

from ...errors import BadInput

__all__ = [
    "ACTIONS",
    "DIRECTIONS",
    "HeadlessEnv",
    "CrafterWorld",
    "SymState",
    "Step",
    "accepted",
    "call_name",
    "measure_reset",
]

ACTIONS: tuple[str, ...] = tuple(constants.actions)
DIRECTIONS: dict[str, tuple[int, int]] = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
VIEW_HALF = (4, 3)  # the local view is 9 wide and 7 high (Crafter's 9×9 view less two rows of inventory)
RADII = (1, 2, 3)
OUTSIDE = "outside"  # the material of a cell beyond the world's edge
NONE = "none"  # no creature


class HeadlessEnv(crafter.Env):
    """``crafter.Env`` that never renders: ``reset`` and ``step`` return ``None`` as the observation.

    Two things keep its episodes those of the rendered environment, step for step:

    - rendering is not free of side effects in Crafter: at night (daylight < 0.5) ``LocalView._noise`` draws the
      picture's noise from ``world.random``, the generator the creatures and the world also use. ``_obs`` draws the
      same numbers (same count, same order) and throws them away, so the generator stays where rendering leaves it;
    - Crafter despawns "a random creature" by index into a *set* of objects, whose order is their memory addresses:
      the same seed can then give different episodes in two processes, or in two environments of one process.
      ``_balance_object`` is given the chunk's objects sorted by position: the pick stays uniform, and a seed now
      gives one episode everywhere (what pinned metrics and replays need).

    >>> env = HeadlessEnv(seed=3); env.reset() is None
    True
    """

    def _obs(self) -> None:  # the only method that draws; the rest is Crafter's own code
        if self._world.daylight < 0.5:  # what LocalView._light -> _noise would draw at night
            unit = self._size // self._view
            self._world.random.uniform(32, 127, tuple(self._local_view._grid * unit))
        return None

    def _balance_object(self, chunk: Any, objs: Any, *args: Any) -> None:
        crafter.Env._balance_object(self, chunk, sorted(objs, key=lambda o: (int(o.pos[0]), int(o.pos[1]))), *args)


def _kind(obj: Any) -> str:
    """A creature as the picture shows it: its texture name ('plant-ripe' differs from 'plant'), arrows undirected."""
    if obj is None:
        return NONE
    texture = obj.texture
    return "arrow" if texture.startswith("arrow") else texture


@dataclass(frozen=True)
class SymState:
    """One symbolic observation (what the picture shows, as symbols).

    inventory: item → count (health, food, drink, energy included).
    pos, facing: the player's cell and direction.
    faced: (material, creature kind) of the faced cell; material "outside" beyond the edge, creature "none".
    neighbours: direction → (material, creature) of the four adjacent cells.
    around: radius (1, 2, 3) → the materials within that Chebyshev radius of the player (the square of side 2r+1).
    view: (x, y) → material of every cell of the 9×7 local view; creatures: (x, y) → kind in that view.
    sleeping, daylight (0..1), achievements: counters as Crafter reports them.
    """

    inventory: dict[str, int]
    pos: tuple[int, int]
    facing: tuple[int, int]
    faced: tuple[str, str]
    neighbours: dict[str, tuple[str, str]]
    around: dict[int, frozenset[str]]
    view: dict[tuple[int, int], str] = field(repr=False)
    creatures: dict[tuple[int, int], str] = field(repr=False)
    sleeping: bool
    daylight: float
    achievements: dict[str, int] = field(repr=False)
    step: int = 0


def read_state(env: crafter.Env) -> SymState:
    """The symbolic state of a Crafter environment after ``reset`` or ``step``."""
    world, player = env._world, env._player
    mat_map, names, obj_map, objs = world._mat_map, world._mat_names, world._obj_map, world._objects
    w, h = world.area
    px, py = int(player.pos[0]), int(player.pos[1])

    def cell(x: int, y: int) -> tuple[str, str]:
        if not (0 <= x < w and 0 <= y < h):
            return OUTSIDE, NONE
        return names[int(mat_map[x, y])], _kind(objs[int(obj_map[x, y])])

    around = {}
    for r in RADII:
        block = mat_map[max(0, px - r) : px + r + 1, max(0, py - r) : py + r + 1]
        around[r] = frozenset(names[int(i)] for i in np.unique(block))
    hx, hy = VIEW_HALF
    view, creatures = {}, {}
    for x in range(px - hx, px + hx + 1):
        for y in range(py - hy, py + hy + 1):
            m, c = cell(x, y)
            view[(x, y)] = m
            if c != NONE and (x, y) != (px, py):  # the player is not a creature around itself
                creatures[(x, y)] = c
    fx, fy = int(player.facing[0]), int(player.facing[1])
    return SymState(
        inventory=dict(player.inventory),
        pos=(px, py),
        facing=(fx, fy),
        faced=cell(px + fx, py + fy),
        neighbours={d: cell(px + dx, py + dy) for d, (dx, dy) in DIRECTIONS.items()},
        around=around,
        view=view,
        creatures=creatures,
        sleeping=bool(player.sleeping),
        daylight=float(world.daylight),
        achievements=dict(player.achievements),
        step=int(env._step or 0),
    )


def call_name(action: str, state: SymState) -> str | None:
    """The call an action makes in a state: None for noop, ``do_<target>`` for do, else the action's own name.

    >>> s = SymState({}, (0, 0), (0, 1), ("tree", "none"), {}, {}, {}, {}, False, 1.0, {})
    >>> call_name("do", s), call_name("noop", s), call_name("move_left", s)
    ('do_tree', None, 'move_left')
    """
    if action not in ACTIONS:
        raise BadInput(f"unknown Crafter action {action!r}; the actions are: {', '.join(ACTIONS)}.")
    if action == "noop":
        return None
    if action == "do":
        material, creature = state.faced
        return f"do_{creature if creature != NONE else material}"
    return action


def accepted(call: str, before: SymState, after: SymState, hurt: bool) -> bool:
    """Whether a call had its effect (see the module docstring). ``hurt``: the faced creature lost health or vanished.

    >>> b = SymState({"wood": 0, "health": 9}, (5, 5), (0, 1), ("tree", "none"), {}, {}, {}, {}, False, 1.0, {})
    >>> a = SymState({"wood": 1, "health": 9}, (5, 5), (0, 1), ("grass", "none"), {}, {}, {}, {}, False, 1.0, {})
    >>> accepted("do_tree", b, a, hurt=False), accepted("move_up", b, a, hurt=False)
    (True, False)
    """
    if call.startswith("move_"):
        return after.pos != before.pos
    if call == "sleep":
        return after.sleeping
    if call.startswith(("place_", "make_")):
        return after.achievements.get(call, 0) > before.achievements.get(call, 0)
    if call.startswith("do_"):
        gained = any(after.inventory[k] > v for k, v in before.inventory.items() if k != "health")
        target = (before.pos[0] + before.facing[0], before.pos[1] + before.facing[1])
        changed = after.view.get(target, before.faced[0]) != before.faced[0]
        return gained or changed or hurt
    raise BadInput(f"{call!r} is not a Crafter call (move_*, sleep, place_*, make_*, do_<target>).")


@dataclass(frozen=True)
class Step:
    """One step: the call it made (None for noop), whether it was accepted (None for noop), its effect, the reward."""

    action: str
    call: str | None
    accepted: bool | None
    effect: dict[str, Any]
    reward: float
    done: bool
    before: SymState
    after: SymState

    @property
    def unlocked(self) -> list[str]:
        """Achievements this step unlocked for the first time."""
        return [k for k, v in self.after.achievements.items() if v > 0 and self.before.achievements.get(k, 0) == 0]


def _effect(before: SymState, after: SymState) -> dict[str, Any]:
    """What an accepted call changed, for the action model: the non-vital items gained or spent."""
    vital = ("health", "food", "drink", "energy")
    return {
        k: after.inventory[k] - v for k, v in before.inventory.items() if k not in vital and after.inventory[k] != v
    }


class CrafterWorld:
    """One Crafter world (``Env(seed=seed)`` reset once), stepped without images.

    ``length``: Crafter's episode length (10,000 by default, as in the paper). ``copy()`` gives an independent
    world in the same state without generating it again (world generation costs about a second; see
    :func:`measure_reset`).
    """

    def __init__(self, seed: int, length: int = 10_000, *, _env: HeadlessEnv | None = None) -> None:
        if _env is None:
            _env = HeadlessEnv(seed=int(seed), length=length)
            _env.reset()
        self.seed = int(seed)
        self.env = _env
        self.state = read_state(_env)
        self.done = False

    def copy(self) -> CrafterWorld:
        """An independent copy of this world in its current state (textures shared: they are read-only)."""
        env = self.env
        memo = {id(env._textures): env._textures}
        clone = copy.deepcopy(env, memo)
        out = CrafterWorld(self.seed, _env=clone)
        out.done = self.done
        return out

    def step(self, action: str) -> Step:
        """Take one action; label its call. Raises BadInput on an unknown action or after the episode ended."""
        if self.done:
            raise BadInput(
                "this Crafter episode is over (the player died or the length was reached); make a new world."
            )
        before = self.state
        call = call_name(action, before)
        target_obj = None
        health = 0
        if call is not None and call.startswith("do_"):
            tx, ty = before.pos[0] + before.facing[0], before.pos[1] + before.facing[1]
            target_obj = self.env._world[(tx, ty)][1]
            health = target_obj.health if target_obj is not None else 0
        _, reward, done, _info = self.env.step(ACTIONS.index(action))
        after = read_state(self.env)
        self.state = after
        self.done = bool(done)
        if call is None:
            return Step(action, None, None, {}, float(reward), self.done, before, after)
        hurt = target_obj is not None and (target_obj.removed or target_obj.health < health)
        ok = accepted(call, before, after, hurt)
        return Step(action, call, ok, _effect(before, after) if ok else {}, float(reward), self.done, before, after)


def measure_reset(seeds: list[int], steps: int = 200) -> tuple[dict[str, float], list[CrafterWorld]]:
    """Generate the worlds of these seeds and time it: seconds per world generation (``Env.reset``), per
    ``CrafterWorld.copy``, per headless step, and per rendered step (a headless step plus ``crafter.Env._obs``, the
    64×64 image the rendered environment draws on every step). Returns the timings and the worlds (unstepped).

    >>> r, worlds = measure_reset([0], steps=20); sorted(r), len(worlds)
    (['copy_s', 'reset_s', 'step_headless_s', 'step_rendered_s'], 1)
    """
    t0 = time.perf_counter()
    worlds = [CrafterWorld(s) for s in seeds]
    reset_s = (time.perf_counter() - t0) / len(seeds)
    probe = worlds[0]
    t0 = time.perf_counter()
    copies = [probe.copy() for _ in range(5)]
    copy_s = (time.perf_counter() - t0) / 5
    rng = np.random.default_rng(0)
    w = copies[0]
    done = 0
    t0 = time.perf_counter()
    for a in rng.integers(0, len(ACTIONS), steps):
        if w.done:
            break
        w.env.step(int(a))
        done += 1
    step_headless = (time.perf_counter() - t0) / max(1, done)
    w = copies[1]
    done = 0
    t0 = time.perf_counter()
    for a in rng.integers(0, len(ACTIONS), steps):
        if w.done:
            break
        w.env.step(int(a))
        crafter.Env._obs(w.env)  # what the rendered environment adds to every step
        done += 1
    step_rendered = (time.perf_counter() - t0) / max(1, done)
    timings = {"reset_s": reset_s, "copy_s": copy_s, "step_headless_s": step_headless, "step_rendered_s": step_rendered}
    return timings, worlds
