"""The Crafter agents: one planner over the navigation adapter, with or without each knowledge piece.

Every agent has the same goals — the 22 achievements, each done when its counter (which Crafter reports) is
above 0 — and the same survival needs (drink, food and energy low → drink, eat, sleep). An *option* is a call that
serves a goal: ``do_tree`` for ``collect_wood``, ``place_table`` for ``place_table``, ``do_cow`` for food ...
(:data:`GOAL_CALLS`). What differs between agents is where they learn what an option needs:

- ``knowledge="none"``: nothing beyond the call's own name (``do_tree`` faces a tree): it goes there and tries;
- the **agenda** (``agenda=True``): an :class:`~solvi_lab.agenda.Agenda` whose goals are the achievements (code
  done-checks) and whose gates are the rules as Crafter's paper documents them (:data:`DOCUMENTED`: which items and
  which nearby tools, without amounts — the documentation does not give them): a call a gate blocks is not made,
  and the gate's rule is what the planner works towards;
- the **action model** (``model=``): a :class:`~solvi_lab.actions.ConservativeActionModel` fed every labelled call.
  Before a call it predicts: "accept" → the call is made (System 1); "refuse" or "unknown" with violated
  conditions → each violated condition is a need (make ``inv:wood>=2`` true: gather wood; ``near:table@1``: go to a
  table or place one; ``faced:material``: face an allowed material); "refuse" with nothing actionable → the option
  is dropped (Protect: refuse → avoid, unknown → try).
- the **failure memory** (``failures=``): a :class:`~solvi_lab.failures.FailureMemory` whose hard check blocks a
  call that failed in the same situation (the call and its faced cell) within its window.

Needs are turned into moves by :class:`.navigation.Navigator`; which call gives an item is learned from accepted
calls' effects (with the agenda, also from the documentation's "collect wood from trees").

>>> from .env import CrafterWorld
>>> import random
>>> w = CrafterWorld(seed=2); agent = Agent(agenda=True, rng=random.Random(0))
>>> actions = [agent.act(w.state) for _ in range(1)]
>>> actions[0] in ACTIONS
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crafter import constants

from ...actions import ConservativeActionModel
from ...agenda import Agenda
from ...checks import apply_checks
from ...failures import FailureMemory
from .env import ACTIONS, NONE, Step, SymState, call_name
from .navigation import Navigator

__all__ = ["Agent", "DOCUMENTED", "GOAL_CALLS", "ACHIEVEMENTS", "documented_agenda"]

ACHIEVEMENTS: tuple[str, ...] = tuple(constants.achievements)

#: The call that serves each achievement (its name says it: collect_X → do on X, place_X, make_X ...).
GOAL_CALLS: dict[str, str] = {
    "collect_wood": "do_tree",
    "collect_stone": "do_stone",
    "collect_coal": "do_coal",
    "collect_iron": "do_iron",
    "collect_diamond": "do_diamond",
    "collect_drink": "do_water",
    "collect_sapling": "do_grass",
    "eat_cow": "do_cow",
    "eat_plant": "do_plant-ripe",
    "defeat_zombie": "do_zombie",
    "defeat_skeleton": "do_skeleton",
    "wake_up": "sleep",
    **{a: a for a in ACHIEVEMENTS if a.startswith(("place_", "make_"))},
}

#: The rules as Crafter's documentation writes them (the paper's list of achievements and their requirements):
#: items and nearby tools, no amounts. Written in the vocabulary's names. Typed in here on purpose — these are
#: the gates a person would write from the documentation; the requirements table is computed from data.yaml.
DOCUMENTED: dict[str, tuple[str, ...]] = {
    "do_stone": ("inv:wood_pickaxe>=1",),
    "do_coal": ("inv:wood_pickaxe>=1",),
    "do_iron": ("inv:stone_pickaxe>=1",),
    "do_diamond": ("inv:iron_pickaxe>=1",),
    "place_stone": ("inv:stone>=1",),
    "place_table": ("inv:wood>=1",),
    "place_furnace": ("inv:stone>=1", "near:table@1"),
    "place_plant": ("inv:sapling>=1",),
    "make_wood_pickaxe": ("inv:wood>=1", "near:table@1"),
    "make_wood_sword": ("inv:wood>=1", "near:table@1"),
    "make_stone_pickaxe": ("inv:wood>=1", "inv:stone>=1", "near:table@1"),
    "make_stone_sword": ("inv:wood>=1", "inv:stone>=1", "near:table@1"),
    "make_iron_pickaxe": ("inv:wood>=1", "inv:coal>=1", "inv:iron>=1", "near:table@1", "near:furnace@1"),
    "make_iron_sword": ("inv:wood>=1", "inv:coal>=1", "inv:iron>=1", "near:table@1", "near:furnace@1"),
}
#: Where the documentation says each item comes from ("collect wood" from trees ...).
DOCUMENTED_SOURCES: dict[str, str] = {
    "wood": "do_tree",
    "stone": "do_stone",
    "coal": "do_coal",
    "iron": "do_iron",
    "diamond": "do_diamond",
    "sapling": "do_grass",
    "drink": "do_water",
    "food": "do_cow",
}
ACCEPTED = "<accepted>"  # the key of `sources` that holds every call ever accepted
PLACEABLE = {"table": "place_table", "furnace": "place_furnace", "stone": "place_stone"}
CREATURES = {"cow", "zombie", "skeleton", "plant", "plant-ripe", "arrow"}
FOCUS = 40  # steps the planner keeps working towards the option it chose before choosing afresh
PAUSE = 10  # steps an option rests after it was refused (the others, gathering included, get a turn)
GATHER = (
    ("wood", "do_tree"),
    ("stone", "do_stone"),
    ("coal", "do_coal"),
    ("iron", "do_iron"),
    ("diamond", "do_diamond"),
)
NIGHT = 0.35  # daylight below which zombies spawn in numbers
STAND_ON = ("grass", "sand", "path")  # what a place_* call faces when nothing says otherwise


def _holds(state: SymState, cond: str) -> bool:
    """A documented condition (``inv:x>=k`` or ``near:m@r``) on a state."""
    if cond.startswith("inv:"):
        item, k = cond[4:].split(">=")
        return state.inventory[item] >= int(k)
    material, r = cond[5:].split("@")
    return material in state.around[int(r)]


def _gate_check(conds: tuple[str, ...]) -> Callable[[SymState], bool]:
    def check(state: SymState) -> bool:
        return all(_holds(state, c) for c in conds)

    return check


def _done(achievement: str) -> Callable[[SymState], bool]:
    def done(state: SymState) -> bool:
        return state.achievements.get(achievement, 0) > 0

    return done


def documented_agenda() -> Agenda:
    """An in-memory agenda: the 22 achievements as goals, the documented rules as gates (one per call)."""
    ag = Agenda(None)
    for a in ACHIEVEMENTS:
        ag.goal(a, done=_done(a))
    for call, conds in DOCUMENTED.items():
        ag.gate(f"needs_{call}", check=_gate_check(conds), blocks=[call])
    return ag


@dataclass
class Counters:
    """What an agent did: calls, refused calls, repeated failures, System 1 calls, steps."""

    steps: int = 0
    calls: int = 0
    refused: int = 0
    repeated: int = 0  # a call refused in the same situation within the last 10 steps
    system1: int = 0
    checked_out: int = 0  # calls the failure memory's hard check turned the planner away from
    first: dict[str, int] = field(default_factory=dict)  # achievement -> step first unlocked


class Agent:
    """The planner (see the module docstring). ``epsilon``: share of uniformly random actions (the explorer)."""

    def __init__(
        self,
        *,
        model: ConservativeActionModel | None = None,
        agenda: bool = False,
        failures: FailureMemory | None = None,
        rng: random.Random | None = None,
        epsilon: float = 0.0,
        sources: dict[str, set[str]] | None = None,
        pause: int = PAUSE,
    ) -> None:
        self.model = model
        self.pause = pause  # 0: a proposer that does not learn (it retries a refused option at once)
        self.agenda = documented_agenda() if agenda else None
        self.failures = failures
        self.checks = [failures.install([], plan="plan", then={"plan": None})] if failures is not None else []
        self.rng = rng or random.Random(0)
        self.epsilon = epsilon
        self.nav = Navigator()
        # item -> calls seen to give it (learned from effects), and ACCEPTED -> every call ever accepted: carried
        # with the model when the model is carried
        self.sources: dict[str, set[str]] = sources if sources is not None else {}
        if self.agenda is not None:
            for item, call in DOCUMENTED_SOURCES.items():
                self.sources.setdefault(item, set()).add(call)
        self.count = Counters()
        self._recent: dict[tuple[str, str, str], int] = {}
        self._snapshot: dict[str, Any] | None = None
        self._snap_at = -1
        self._last_s1 = False
        self._blocked_options: dict[str, int] = {}
        self._focus: tuple[str, int] | None = None
        self.night = NIGHT  # daylight below which it shelters (the explorer shelters earlier)
        self.dig = False  # whether shelter may mine a pocket into stone (the explorer does)
        self.rest_needs = 2  # drink and food above which it shelters for the night (else it goes to eat and drink)
        self.flee_below = 5  # health at or below which it moves away from skeletons and arrows (they hit for 2)

    # -- learning ---------------------------------------------------------------------------------------------
    def learn(self, step: Step) -> None:
        """Fold one step: the model, the sources of items, the failure memory, the counters."""
        c = self.count
        c.steps += 1
        for a in step.unlocked:
            c.first.setdefault(a, c.steps)
        if self.failures is not None:
            self.failures.step()
        if step.call is None:
            return
        c.calls += 1
        c.system1 += self._last_s1
        if self.model is not None:
            self.model.observe(step.before, step.call, {}, accepted=bool(step.accepted), effect=step.effect)
        situation = (step.call, *step.before.faced)
        if step.accepted:
            for item, delta in step.effect.items():
                if delta > 0:
                    self.sources.setdefault(item, set()).add(step.call)
            if step.call.startswith("do_") and step.after.inventory["drink"] > step.before.inventory["drink"]:
                self.sources.setdefault("drink", set()).add(step.call)
            if step.call.startswith("do_") and step.after.inventory["food"] > step.before.inventory["food"]:
                self.sources.setdefault("food", set()).add(step.call)
            self.sources.setdefault(ACCEPTED, set()).add(step.call)
            self._recent.pop(situation, None)
            if self.failures is not None:
                self.failures.succeeded(list(situation))
        else:
            c.refused += 1
            if c.steps - self._recent.get(situation, -(10**9)) <= 10:
                c.repeated += 1
            self._recent[situation] = c.steps
            self._blocked_options[step.call] = c.steps
            if self.failures is not None:
                self.failures.failed(list(situation), why="refused")

    # -- knowledge --------------------------------------------------------------------------------------------
    def _allowed(self, call: str) -> dict[str, list[Any]]:
        if self.model is None:
            return {}
        n = self.count.calls
        if self._snapshot is None or n - self._snap_at >= 200:
            self._snapshot = self.model.snapshot()
            self._snap_at = n
        return self._snapshot.get(call, {}).get("allowed", {})

    def _needs(self, state: SymState, call: str) -> tuple[list[tuple[str, set[Any]]] | None, bool]:
        """The unmet needs of an option ([] = none known), or None when it must not be made now; and whether the
        model predicts "accept" (System 1)."""
        needs: list[tuple[str, set[Any]]] = []
        target = call[3:] if call.startswith("do_") else None
        if target is not None:
            part = "faced:creature" if target in CREATURES else "faced:material"
            if (state.faced[1] if part == "faced:creature" else state.faced[0]) != target:
                needs.append((part, {target}))
        if self.agenda is not None:
            for cond in DOCUMENTED.get(call, ()):
                if not _holds(state, cond):
                    needs.append((cond, {True}))
        if self.model is not None and self._ever_accepted(call):
            # before a call was ever accepted a refusal explains nothing (every value is unseen): only its exact
            # situation is avoided (the refused-option pause below, the failure memory); so the model is asked
            # only about calls it saw accepted
            p = self.model.predict(state, call, {})
            if p.verdict == "accept":
                return ([] if not needs else needs), not needs
            if p.verdict == "refuse":  # Protect: what it refuses, the agent works towards or avoids
                # the way out is a matching refusal signature (a minimal explanation) whose every condition the
                # agent can make hold; the other violated conditions never mattered in a refused call
                allowed = self._allowed(call)
                ways = []
                for sig in p.detail.get("signatures", []):
                    wanted = [(c, set(allowed.get(c, []))) for c in sig]
                    if all(self._actionable(c, v) for c, v in wanted):
                        ways.append(wanted)
                if not ways:
                    return None, False
                needs.extend((c, v) for c, v in min(ways, key=len) if all(c != n for n, _ in needs))
            # "unknown": try it (the conditions never accepted may be harmless)
        if call.startswith("place_") and not any(c == "faced:material" for c, _ in needs):
            if state.faced[0] not in STAND_ON or state.faced[1] != NONE:
                needs.append(("faced:material", set(STAND_ON)))
        return needs, False

    def _ever_accepted(self, call: str) -> bool:
        return call in self.sources.get(ACCEPTED, ())

    @staticmethod
    def _actionable(cond: str, values: set[Any]) -> bool:
        if cond.startswith("inv:"):
            return True in values and not cond.startswith(("inv:health", "inv:energy"))
        return cond.startswith(("near:", "faced:")) and bool(values)

    # -- acting -----------------------------------------------------------------------------------------------
    def _resolve(self, state: SymState, call: str, depth: int = 0) -> tuple[str, bool] | None:
        """The action that brings the option closer (or makes it), and whether it is a System 1 call."""
        if depth > 4:
            return None
        needs, s1 = self._needs(state, call)
        if needs is None:
            return None
        for cond, values in needs:
            step = self._meet(state, cond, values, depth)
            if step is None:
                return None
            if step:
                return step, False
        if self.agenda is not None and not self.agenda.allows(state, call)[0]:
            return None
        if self.pause and self.count.steps - self._blocked_options.get(call, -(10**9)) <= self.pause:
            return None  # just refused here: give the other options (gathering included) a turn
        action = "do" if call.startswith("do_") else call
        return action, s1

    def _meet(self, state: SymState, cond: str, values: set[Any], depth: int) -> str | None:
        """A step towards making a condition hold ("" = it already holds), None when the agent cannot."""
        nav = self.nav
        if cond.startswith("inv:"):
            if True not in values or cond.startswith(("inv:health", "inv:energy")):
                return None
            item = cond[4:].split(">=")[0]
            for source in sorted(self.sources.get(item, ())):
                got = self._resolve(state, source, depth + 1)
                if got is not None:
                    return got[0]
            return None
        if cond.startswith("near:"):
            if True not in values:
                return None
            material = cond[5:].split("@")[0]
            if material in state.around[1]:
                return ""
            cells = nav.cells_of([material])
            step = nav.face(state, cells) if cells else None
            if step:
                return step
            if material in PLACEABLE:
                got = self._resolve(state, PLACEABLE[material], depth + 1)
                return None if got is None else got[0]
            return None
        if cond == "faced:material":
            if state.faced[0] in values and state.faced[1] == NONE:
                return ""
            if not values:
                return None
            if values & set(STAND_ON):
                return nav.safe_random(state, self.rng)
            cells = nav.cells_of(values)
            return nav.face(state, cells) if cells else nav.frontier(state, self.rng)
        if cond == "faced:creature":
            if state.faced[1] in values:
                return ""
            if values == {NONE}:
                return nav.safe_random(state, self.rng)
            cells = nav.creatures_of(values)
            return nav.face(state, cells) if cells else nav.frontier(state, self.rng)
        return None

    def options(self, state: SymState) -> list[str]:
        """The calls that serve open goals now: survival first, then the achievements in Crafter's order."""
        inv = state.inventory
        urgent = []
        if inv["drink"] <= 4 or (inv["drink"] < 9 and state.faced[0] == "water"):
            urgent.append("do_water")  # drink to the full once at the water
        if inv["food"] <= 5 or (inv["food"] < 9 and state.faced[1] == "cow"):
            urgent.append("do_cow")
        if inv["energy"] < 1:
            urgent.append("sleep")  # exhausted: sleep wherever (else the agent sleeps only sheltered, see act)
        return urgent + self._plain(state)

    def _plain(self, state: SymState) -> list[str]:
        """The goals' options in Crafter's order, then gathering (more of every item a collect_* call gives:
        what a refused goal may be waiting for)."""
        if self.agenda is not None:
            self.agenda.update(state)
            open_goals = [a for a in ACHIEVEMENTS if not self.agenda.goals()[a]["done"]]
        else:
            open_goals = [a for a in ACHIEVEMENTS if state.achievements.get(a, 0) == 0]
        rest = [GOAL_CALLS[a] for a in sorted(open_goals, key=_tech_order) if a != "wake_up"]  # sleep: see act
        gather = [c for item, c in GATHER if state.inventory[item] < 9 and c not in rest]
        since = self.count.steps
        paused = [
            i for i, c in enumerate(rest) if self.pause and since - self._blocked_options.get(c, -(10**9)) <= self.pause
        ]
        if paused:  # a goal was just refused: gather first (it may be waiting for more of something)
            return rest[: paused[0] + 1] + gather + rest[paused[0] + 1 :]
        return rest + gather

    def _wants_rest(self, state: SymState) -> bool:
        """Whether to shelter now for another reason than the night or tiredness (none here; see the survivor)."""
        return False

    def random_action(self, state: SymState) -> str:
        """The epsilon share's action: uniformly random, moves into lava excepted."""
        return self.nav.safe(state, self.rng.choice(ACTIONS[1:]), self.rng)

    def act(self, state: SymState) -> str:
        """The next action (never a call while asleep: the environment would override it)."""
        self.nav.see(state)
        self._last_s1 = False
        if state.sleeping:
            return "noop"
        if any(k == "zombie" for p, k in state.creatures.items() if _adjacent(p, state.pos)):
            got = self._resolve(state, "do_zombie")  # a zombie next to the player: face it and fight
            if got is not None:
                return got[0]
        inv = state.inventory
        shooters = [p for p, k in state.creatures.items() if k in ("skeleton", "arrow")]
        if shooters and inv["health"] <= self.flee_below:
            flee = self.nav.away(state, shooters)  # arrows hit for 2: out of a skeleton's range when hurt
            if flee:
                return flee
        # zombies hit a sleeper for 7: sleep sheltered
        rest = state.daylight < self.night or inv["energy"] <= 3 or self._wants_rest(state)
        if rest and inv["drink"] > self.rest_needs and inv["food"] > self.rest_needs:
            # block with stone only when a pickaxe can open the pocket again in the morning
            block = "place_stone" if inv["stone"] >= 1 and inv["wood_pickaxe"] >= 1 else None
            way = self.nav.shelter(
                state, block, dig=self.dig and inv["wood_pickaxe"] >= 1
            )  # the night: a sealed pocket, else a dead end
            if way == "":
                return "sleep" if inv["energy"] < 9 else "noop"
            if way is None:
                way = self.nav.refuge(state)
                if way == "":
                    return "sleep" if inv["energy"] <= 1 else "noop"
            if way:
                return way
        elif self.nav.sealed(state) and inv["wood_pickaxe"] >= 1:
            got = self._resolve(state, "do_stone")  # rested: mine the way out of the pocket
            if got is not None:
                return got[0]
        if self.epsilon and self.rng.random() < self.epsilon:
            return self.random_action(state)
        options = self.options(state)
        urgent = options[: len(options) - len(self._plain(state))]
        if self._focus is not None and self._focus[0] not in urgent and self.count.steps - self._focus[1] < FOCUS:
            options = urgent + [self._focus[0]] + [o for o in options if o != self._focus[0] and o not in urgent]
        for call in options:
            got = self._resolve(state, call)
            if got is None:
                continue
            action, s1 = got
            made = call_name(action, state)
            if self.checks and made is not None and not made.startswith("move_"):
                # the situation of the call this action makes (a nested source's do_tree, not the option's name);
                # moves are the navigator's (a blocked move turns the player) and are not checked
                situation = [made, *state.faced]
                offered = [situation, ["explore"]]
                answer, _ = apply_checks(self.failures.given(options=offered), {"plan": situation}, self.checks)
                if answer.get("plan") is None:
                    self.count.checked_out += 1
                    continue
            if self._focus is None or self._focus[0] != call:
                self._focus = (call, self.count.steps)
            if action in ("do", call):
                self._focus = None  # the option's own call: whatever it does, choose afresh next step
            self._last_s1 = s1 and action in ("do", call)
            return action
        return self.nav.frontier(state, self.rng)


def _adjacent(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


_ORDER = {
    a: i
    for i, a in enumerate(
        [
            "collect_wood",
            "place_table",
            "make_wood_pickaxe",
            "make_wood_sword",
            "collect_stone",
            "make_stone_pickaxe",
            "make_stone_sword",
            "collect_drink",
            "eat_cow",
            "place_stone",
            "collect_coal",
            "place_furnace",
            "collect_iron",
            "make_iron_pickaxe",
            "make_iron_sword",
            "collect_diamond",
            "collect_sapling",
            "place_plant",
            "defeat_zombie",
            "defeat_skeleton",
            "eat_plant",
            "wake_up",
        ]
    )
}


def _tech_order(achievement: str) -> int:
    return _ORDER.get(achievement, len(_ORDER))
