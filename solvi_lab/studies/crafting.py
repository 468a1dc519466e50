"""Toy crafting: the action model, the agenda, the failure memory and the world map working together.

The specification ("The toy world: memory, agenda and failure memory together") runs the protocol of a research
program's crafting-game runs on a toy world of its own. This is OUR toy world, designed once from that story and
not tuned to the published numbers; what we reproduce are the orderings and effects, each a claim computed from the
run (see :func:`run`).

The world
---------
8 places joined by doors: every place has exactly 3 doors (``door0``..``door2``, a random 3-regular connected
graph), and a door's label says nothing about where it leads. Each place is of a kind — 2 forests, 2 rocks, 4
meadows — and has a name drawn per world from 144 two-syllable names, so worlds differ in layout and in place names.
The agent sees where it is (name and kind), what it holds and whether a table or a furnace stands here; it learns
where a door leads only by taking it.

6 operators, each checked by the environment (a refused operator changes nothing and counts as a failed attempt):

=====================  ===========================================  ===========================
operator               the environment's check                      effect
=====================  ===========================================  ===========================
collect_wood           at a forest                                  wood + 1
place_table            at a meadow, wood ≥ 1                        wood − 1, a table here
make_pickaxe           a table here, wood ≥ 1                       wood − 1, a pickaxe
mine_stone             at a rock, holding a pickaxe                 stone + 1
place_furnace          a table here, stone ≥ 1                      stone − 1, a furnace here
make_stone_pickaxe     a furnace here, wood ≥ 1, stone ≥ 1          wood − 1, stone − 1, a stone pickaxe
=====================  ===========================================  ===========================

6 achievements, one per operator (its first success). A world lasts 150 steps (a step is one move or one
operator attempt) or until all 6 are done. Every agent knows the 6 goals and how much wood (3) and stone (2) the
recipes consume in all — not the checks, which it must learn or be told.

The agent
---------
"System 1" is the fast path that answers from what was learned: an operator of an open goal that the
:class:`~solvi_lab.actions.ConservativeActionModel` predicts "accept" here, or else the first door of a path over
CONFIRMED claims of this world's :class:`~solvi_lab.worldmap.WorldMap` to a known place where the model predicts
"accept" for such an operator. "System 2" is the slow proposer it falls back to: uniformly one of the open goals'
operators the model does not predict "refuse" (Protect: refuse → avoid, unknown → try; before an operator was ever
accepted in this model a refusal explains nothing, so only the very call — the vocabulary's values — that failed in
this world is avoided: every arm's explorer has that within-world memory, none carries it), or an exploration move
(``WorldMap.explore``: towards the nearest door nobody has taken; a random door when none is left). The model's
vocabulary: the place's kind, has wood, has stone, has a pickaxe, a table here, a furnace here.

Arms (10 streams × 20 worlds; a stream is one agent meeting 20 worlds in turn):

- ``nothing``: nothing carried — a new action model in every world, the same explorer (it can reach everything
  "carried" reaches by exploring: the comparison measures carrying, not a crippled explorer);
- ``carried``: the action model carried across the stream's worlds;
- ``nothing_agenda``: nothing carried, plus an :class:`~solvi_lab.agenda.Agenda` whose gates are the written rules
  (the checks above) and whose goals are ordered by the recipe tree; both systems only take what the gates allow,
  and the proposer only proposes operators of open goals (and the gathering they need);
- ``carried_agenda``: both;
- ``carried_place``: carried, with the place's name added to the vocabulary — a condition that held at every
  success by accident, which makes the model answer "unknown" in a new world (over-conservative, not wrong).

Measured over the last third of each stream (worlds 14..19 of 20): achievements (of 6), steps to the first stone
(150 when none), System 1 share of steps, failed attempts per 100 steps, and actions taken past a closed gate.

Two more experiments, on the same kind of worlds:

- failure memory: the proposer that does not learn (System 2 alone, no model) against the same proposer behind
  the :class:`~solvi_lab.failures.FailureMemory` hard check (window 10 steps, plan = the operator in this exact
  situation, at most 8 blocked, at least one offered operator open; a refused plan falls back to exploring).
  Measured: repeated failures (the same operator failing in the same situation within 10 steps) per 100 steps.
- a changed world: per stream, ``episodes`` episodes in world A, then ``episodes`` in world B (the same places,
  names and kinds, the doors rewired), with the action model and the world map (written into a knowledge store,
  scope ``{"map": "A"}``) carried throughout. The first arrival that contradicts a carried claim drops the map
  (``drop``: confirmed claims become hypotheses, and the store's facts stale under a flag). Measured: streams that
  dropped, claims dropped and refuted in B, and the wrong carried claims System 1 walked before and after the drop.

Every journal (world maps, the knowledge stores, the failure memories) is verified at the end: a metric.

>>> r = run(streams=1, worlds=3, steps=60, episodes=1, seed=0, progress=False)
>>> r.metrics["journals_verified"], r.metrics["carried_agenda_past_gate"]
(True, 0)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import polars as pl
from matplotlib.figure import Figure
from tqdm import tqdm

from ..actions import ConservativeActionModel, Vocabulary
from ..agenda import Agenda
from ..checks import HardCheck, apply_checks
from ..failures import FailureMemory
from ..journal import Journal
from ..knowledge import KnowledgeStore
from ..worldmap import WorldMap
from .params import Param, ParamSpec
from .result import Comparison, StudyResult

__all__ = ["run", "QUICK_PARAMS", "FULL_PARAMS", "ARMS", "OPERATORS", "PUBLISHED", "make_world", "rewire"]

#: What `solvi-lab list` and the report say about this study (registered in pyproject.toml, solvi_lab.studies).
TITLE = "Toy crafting: memory, agenda and failure memory together"  # sizes: the run's parameters
DESCRIPTION = (
    "8 places, 6 operators with the environment's own checks: what carrying the action model, the agenda "
    "and the failure memory buy; a changed world with the map carried."
)

PARAMS = ParamSpec(
    "toy_crafting",
    Param("streams", int, full=10, quick=3, meaning="independent agents", low=1, high=1_000),
    Param(
        "worlds",
        int,
        full=20,
        quick=6,
        meaning="worlds each stream meets in turn (the last third is measured)",
        low=3,
        high=1_000,
    ),
    Param("steps", int, full=150, quick=150, meaning="steps per world or episode", low=10, high=100_000),
    Param("episodes", int, full=5, quick=5, meaning="episodes in world A, then in world B", low=1, high=1_000),
)
QUICK_PARAMS: dict[str, int] = PARAMS.defaults(quick=True)
FULL_PARAMS: dict[str, int] = PARAMS.defaults(quick=False)

N_PLACES = 8
N_DOORS = 3
KINDS = ("forest", "forest", "rock", "rock", "meadow", "meadow", "meadow", "meadow")
DOORS = tuple(f"door{i}" for i in range(N_DOORS))
_SYLLABLES = ("ka", "lo", "mi", "ren", "su", "tal", "ve", "dor", "ni", "pa", "qui", "zo")

# operator -> the environment's check (the written rules: the agenda's gates are exactly these)
RULES: dict[str, dict[str, Callable[[dict[str, Any]], bool]]] = {
    "collect_wood": {"at_forest": lambda s: s["kind"] == "forest"},
    "place_table": {"at_meadow": lambda s: s["kind"] == "meadow", "has_wood": lambda s: s["wood"] >= 1},
    "make_pickaxe": {"table_here": lambda s: s["table_here"], "has_wood": lambda s: s["wood"] >= 1},
    "mine_stone": {"at_rock": lambda s: s["kind"] == "rock", "has_pickaxe": lambda s: s["pickaxe"]},
    "place_furnace": {"table_here": lambda s: s["table_here"], "has_stone": lambda s: s["stone"] >= 1},
    "make_stone_pickaxe": {
        "furnace_here": lambda s: s["furnace_here"],
        "has_wood": lambda s: s["wood"] >= 1,
        "has_stone": lambda s: s["stone"] >= 1,
    },
}
OPERATORS = tuple(RULES)  # also the recipe order: each achievement's operator
GOALS = {op: f"done_{op}" for op in OPERATORS}
# what each recipe consumes: the agent knows this (the task says what is needed), not the checks
COST = {
    "place_table": {"wood": 1},
    "make_pickaxe": {"wood": 1},
    "place_furnace": {"stone": 1},
    "make_stone_pickaxe": {"wood": 1, "stone": 1},
}
GATHER = {"wood": "collect_wood", "stone": "mine_stone"}

ARMS = ("nothing", "carried", "nothing_agenda", "carried_agenda", "carried_place")
ARM_LABELS = {
    "nothing": "nothing carried",
    "carried": "the action model carried across worlds",
    "nothing_agenda": "nothing carried, agenda (gates = the written rules)",
    "carried_agenda": "carried, agenda",
    "carried_place": "carried, the place's name in the vocabulary",
}
# The specification's table (their toy, not ours): achievements, steps to the first stone, System 1 share,
# failed attempts per 100 steps.
PUBLISHED = {
    "nothing": (5.40, 33.6, 0.33, 16.5),
    "carried": (6.00, 15.6, 0.59, 0.01),
    "nothing_agenda": (5.77, 15.6, 0.48, 0.0),
    "carried_agenda": (5.97, 15.6, 0.59, 0.0),
    "carried_place": (5.90, 24.1, 0.50, 8.4),
}
PUBLISHED_REPEATS = (29.3, 0.53)  # repeated failures per 100 steps: without / behind the failure memory
PUBLISHED_CHANGED = {
    "streams_dropped": "10 of 10",
    "dropped": 18.6,
    "refuted": 10.2,
    "s1_wrong_before": 1.0,
    "s1_wrong_after": 0,
}
# The specification's sentences the rows test, quoted: its table of the five arms, and the failure memory's figures.
TABLE_SENTENCE = (
    "| nothing carried | 5.40 | 33.6 | 33% | 16.5 | … "
    "| the action model carried across worlds | 6.00 | 15.6 | 59% | 0.01 |"
)
REPEATS_SENTENCE = (
    "repeated a failure in the same situation within 10 steps 29.3 times per 100 steps; behind the failure memory's "
    "hard check, 0.53 times"
)
LARGE_FACTOR = 10.0  # "cuts repeats by a large factor": fixed before running, not fitted to the outcome
EXPLORE = "explore"
# The claims of the specification (orderings of its table), each once; our finding; the mechanism checks, which hold
# by construction (listed and tested, never counted as findings). Keys of the comparison rows, in their order.
# Two published orderings are near-forced here and listed as mechanisms: the agenda's gates are the environment's own
# checks (so an agenda arm never makes a failing attempt the gate covers), and the place's name makes every condition
# vector of a new world unseen (so that arm answers "unknown" until it explores). Two more are mechanisms as well: System 1
# answers from the carried model, which nothing carried starts empty in every world (carried_more_system1); and the
# failure memory's hard check blocks exactly what the repeat metric counts (failure_memory_cuts_repeats, whose ≥ 10×
# is ours, the published 55× a figure beside it). "The nothing-carried explorer reaches
# the published 5.40" is no finding: the explorer was changed until it did (commit 87aba3b), so the row is a figure.
CLAIMS = (
    "carried_more_achievements",
    "carried_sooner_to_stone",
    "carried_fewer_failures",
)
FINDINGS: tuple[str, ...] = ()
MECHANISMS = (
    "carried_more_system1",
    "agenda_sooner_to_stone",
    "place_name_slower_to_stone",
    "failure_memory_cuts_repeats",
    "agenda_nothing_past_gate",
    "changed_world_dropped_every_stream",
    "changed_world_no_s1_wrong_after_drop",
    "journals_verified",
)


# ---------------------------------------------------------------------------------------------------------------
# worlds
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class World:
    """A layout: place names, each place's kind, where each door leads, and the start place."""

    names: tuple[str, ...]
    kinds: dict[str, str]
    doors: dict[str, dict[str, str]]
    start: str


def _doors(names: tuple[str, ...], rng: random.Random) -> dict[str, dict[str, str]]:
    """A random connected 3-regular graph on the places, each place's doors labelled in a random order."""
    while True:
        g = nx.random_regular_graph(N_DOORS, N_PLACES, seed=rng.randrange(2**31))
        if nx.is_connected(g):
            break
    doors = {}
    for i, name in enumerate(names):
        nbrs = sorted(g.neighbors(i))
        rng.shuffle(nbrs)
        doors[name] = {d: names[j] for d, j in zip(DOORS, nbrs)}
    return doors


def make_world(rng: random.Random) -> World:
    """A new world: new place names, kinds shuffled over the places, a new layout, a random start.

    >>> w = make_world(random.Random(1)); len(w.names), sorted(set(w.kinds.values()))
    (8, ['forest', 'meadow', 'rock'])
    """
    pool = [a + b for a in _SYLLABLES for b in _SYLLABLES if a != b]
    names = tuple(rng.sample(pool, N_PLACES))
    kinds = list(KINDS)
    rng.shuffle(kinds)
    return World(names, dict(zip(names, kinds)), _doors(names, rng), rng.choice(names))


def rewire(world: World, rng: random.Random) -> World:
    """The same places, names and kinds with the doors rewired: world B of the changed-world experiment."""
    return World(world.names, dict(world.kinds), _doors(world.names, rng), world.start)


class _Env:
    """One world being played: the agent's position, inventory, the tables and furnaces it placed."""

    def __init__(self, world: World):
        self.world = world
        self.place = world.start
        self.inv = {"wood": 0, "stone": 0, "pickaxe": False, "stone_pickaxe": False}
        self.tables: set[str] = set()
        self.furnaces: set[str] = set()
        self.achieved: set[str] = set()

    def state(self) -> dict[str, Any]:
        p = self.place
        return {
            "place": p,
            "kind": self.world.kinds[p],
            **self.inv,
            "table_here": p in self.tables,
            "furnace_here": p in self.furnaces,
            "achieved": frozenset(self.achieved),
        }

    def move(self, door: str) -> str:
        self.place = self.world.doors[self.place][door]
        return self.place

    def operate(self, op: str) -> bool:
        """Apply the environment's own check; on success the effect, and the achievement the first time."""
        s = self.state()
        if not all(check(s) for check in RULES[op].values()):
            return False
        inv = self.inv
        for k, n in COST.get(op, {}).items():
            inv[k] -= n
        if op == "collect_wood":
            inv["wood"] += 1
        elif op == "place_table":
            self.tables.add(self.place)
        elif op == "make_pickaxe":
            inv["pickaxe"] = True
        elif op == "mine_stone":
            inv["stone"] += 1
        elif op == "place_furnace":
            self.furnaces.add(self.place)
        elif op == "make_stone_pickaxe":
            inv["stone_pickaxe"] = True
        self.achieved.add(op)
        return True


# ---------------------------------------------------------------------------------------------------------------
# the agent's pieces
# ---------------------------------------------------------------------------------------------------------------


def _vocabulary(with_place: bool) -> Vocabulary:
    preds: dict[str, Callable[[Any, Any], Any]] = {
        "kind": lambda s, a: s["kind"],
        "has_wood": lambda s, a: s["wood"] >= 1,
        "has_stone": lambda s, a: s["stone"] >= 1,
        "has_pickaxe": lambda s, a: s["pickaxe"],
        "table_here": lambda s, a: s["table_here"],
        "furnace_here": lambda s, a: s["furnace_here"],
    }
    if with_place:
        preds["place"] = lambda s, a: s["place"]
    return Vocabulary(preds)


def _agenda() -> Agenda:
    """Goals in recipe order; one gate per written rule, blocking the operators it applies to."""
    ag = Agenda(None)
    prev: list[str] = []
    for op in OPERATORS:
        ag.goal(GOALS[op], done=_done(op), requires=prev)
        prev = [GOALS[op]]
    gates: dict[str, tuple[Callable[[dict[str, Any]], bool], list[str]]] = {}
    for op, checks in RULES.items():
        for name, check in checks.items():
            gates.setdefault(name, (check, []))[1].append(op)
    for name, (check, ops) in gates.items():
        ag.gate(name, check=check, blocks=ops)
    return ag


def _done(op: str) -> Callable[[dict[str, Any]], bool]:
    return lambda s: op in s["achieved"]


def _need(achieved: frozenset[str] | set[str]) -> dict[str, int]:
    """Wood and stone the recipes not yet done will consume."""
    need = {"wood": 0, "stone": 0}
    for op, cost in COST.items():
        if op not in achieved:
            for k, n in cost.items():
                need[k] += n
    return need


def _useful(s: dict[str, Any], open_goals: list[str] | None) -> list[str]:
    """Operators of open goals plus the gathering the remaining recipes need, most advanced first.

    Without an agenda every goal not done is open; with one, only those its order opens (open_goals).
    """
    achieved = s["achieved"]
    ops = {op for op in OPERATORS if op not in achieved and (open_goals is None or GOALS[op] in open_goals)}
    need = _need(achieved)
    for k, op in GATHER.items():
        if s[k] < need[k] and (open_goals is None or any(g in open_goals for g in _needs_from(k))):
            ops.add(op)
    return [op for op in reversed(OPERATORS) if op in ops]


def _needs_from(resource: str) -> list[str]:
    return [GOALS[op] for op, cost in COST.items() if resource in cost] + [GOALS[GATHER[resource]]]


@dataclass
class _Tally:
    steps: int = 0
    s1: int = 0
    failed: int = 0
    past_gate: int = 0
    first_stone: int | None = None
    repeats: int = 0
    s1_wrong_before: int = 0
    s1_wrong_after: int = 0
    s2_wrong_after: int = 0
    refuted: int = 0
    contradictions: int = 0
    dropped: int = 0
    achievements: int = 0


class _Agent:
    """System 1 (the model and the map) over System 2 (the proposer), with an optional agenda."""

    def __init__(
        self,
        model: ConservativeActionModel | None,
        agenda: Agenda | None,
        rng: random.Random,
        fm: FailureMemory | None = None,
    ):
        self.model = model
        self.agenda = agenda
        self.rng = rng
        self.fm = fm
        self.checks: list[HardCheck] = []
        if fm is not None:
            fm.install(self.checks, plan="plan", then={"plan": EXPLORE})
        self.map = WorldMap()
        self.kinds: dict[str, str] = {}
        self.dropped = False  # in the changed world: the carried map was dropped in this phase
        self.accepted_ops: set[str] = set()  # operators the current model saw accepted at least once
        self.with_place = model is not None and "place" in model.vocab.names
        self._observed = 0  # calls observed by the agent's model: the memo of verdicts is valid until it moves
        self._cache: dict[tuple, str] = {}
        self._cache_model: ConservativeActionModel | None = None
        self._cache_n = -1
        # (operator, what the vocabulary reads) that failed in this world: the explorer does not retry it until the
        # situation changes. Within-world bookkeeping of every arm's System 2, never carried to the next world.
        self.failed_here: set[tuple] = set()

    def new_world(self, wmap: WorldMap | None = None) -> None:
        self.map = wmap if wmap is not None else WorldMap()
        self.kinds = {}
        self.failed_here = set()

    def _condition_key(self, s: dict[str, Any], op: str) -> tuple:
        """What the model's vocabulary reads of (s, op): two calls with the same key are the same call to it."""
        return (
            op,
            s["place"] if self.with_place else None,
            s["kind"],
            s["wood"] >= 1,
            s["stone"] >= 1,
            s["pickaxe"],
            s["table_here"],
            s["furnace_here"],
        )

    def _allowed(self, s: dict[str, Any], op: str) -> bool:
        return self.agenda is None or self.agenda.allows(s, op)[0]

    def _verdict(self, s: dict[str, Any], op: str) -> str:
        """The model's verdict, memoised until the model next observes a call (the model is only read here).

        The key holds every state field the vocabulary reads, so a hit is exactly what predict would say; it
        matters because System 1 asks about every known place for every open operator on every step.
        """
        if self.model is not self._cache_model or self._cache_n != self._observed:
            self._cache, self._cache_model, self._cache_n = {}, self.model, self._observed
        key = self._condition_key(s, op)
        v = self._cache.get(key)
        if v is None:
            v = self._cache[key] = self.model.predict(s, op, {}).verdict
        return v

    def _accepts(self, s: dict[str, Any], op: str) -> bool:
        return self.model is not None and self._verdict(s, op) == "accept"

    def _refused(self, s: dict[str, Any], op: str) -> bool:
        """Protect: the proposer avoids what the model refuses — once the operator was ever accepted.

        Before any accepted call every condition's value is "never accepted", so one refusal becomes a signature
        that matches every call: a refusal that explains nothing. Trusting it would close the operator for good
        (the learned gate tightening itself); the proposer tries it instead, as it would an "unknown".
        """
        if self.model is None:
            return False
        if op not in self.accepted_ops:
            # no acceptance to explain a refusal yet: only the very call that failed in this world is avoided
            return self._condition_key(s, op) in self.failed_here
        return self._verdict(s, op) == "refuse"

    def decide(self, s: dict[str, Any], env: _Env) -> tuple[str, str, str]:
        """(kind "op" | "move", action, "system1" | "system2")."""
        open_goals = None
        if self.agenda is not None:
            self.agenda.update(s)
            open_goals = self.agenda.open(s)
        useful = _useful(s, open_goals)
        if self.model is not None:
            for op in useful:
                if self._accepts(s, op) and self._allowed(s, op):
                    return "op", op, "system1"
            here = s["place"]
            for op in useful:
                targets = []
                for p, kind in self.kinds.items():
                    if p == here:
                        continue
                    hyp = dict(s, place=p, kind=kind, table_here=p in env.tables, furnace_here=p in env.furnaces)
                    if self._accepts(hyp, op):
                        targets.append(p)
                if targets:
                    door = self.map.next(here, targets, confirmed_only=True)
                    if door is not None:
                        return "move", door, "system1"
        cands = [op for op in useful if self._allowed(s, op) and not self._refused(s, op)]
        choice = self.rng.choice(cands + [EXPLORE])
        if choice != EXPLORE and self.fm is not None:
            situation = _situation(s)
            given = self.fm.given(options=[[op, *situation] for op in cands])
            answer, _ = apply_checks(given, {"plan": [choice, *situation]}, self.checks)
            if answer["plan"] == EXPLORE:
                choice = EXPLORE
        if choice == EXPLORE:
            door = self.map.explore(s["place"])
            return "move", door if door is not None else self.rng.choice(DOORS), "system2"
        return "op", choice, "system2"

    def play(self, env: _Env, steps: int, tally: _Tally, watch: bool = False) -> None:
        """Play one world (or one episode) for at most `steps` steps, counting into `tally`.

        watch: the map is carried (the changed world): an arrival that contradicts a confirmed (or dropped) claim
        is counted, and the first one drops the map.
        """
        recent: dict[tuple, int] = {}  # (operator, situation) -> step of its last failure
        self._arrived(env)
        for t in range(1, steps + 1):
            s = env.state()
            kind, action, system = self.decide(s, env)
            tally.steps += 1
            tally.s1 += system == "system1"
            if kind == "op":
                if self.agenda is not None and not self.agenda.allows(s, action)[0]:
                    tally.past_gate += 1
                ok = env.operate(action)
                if self.model is not None:
                    self.model.observe(s, action, {}, accepted=ok)
                    self._observed += 1
                    if ok:
                        self.accepted_ops.add(action)
                    else:
                        self.failed_here.add(self._condition_key(s, action))
                key = (action, *_situation(s))
                if not ok:
                    tally.failed += 1
                    if key in recent and t - recent[key] <= 10:
                        tally.repeats += 1
                    recent[key] = t
                if self.fm is not None:
                    if ok:
                        self.fm.succeeded(list(key))  # evidence reopens the plan at once
                    else:
                        self.fm.failed(list(key), why="the environment refused it")
                if ok and action == "mine_stone" and tally.first_stone is None:
                    tally.first_stone = tally.steps
            else:
                here = env.place
                there = env.move(action)
                arrival = self.map.arrive(here, action, there)
                tally.refuted += len(arrival.refuted)
                if watch and arrival.contradicted:
                    tally.contradictions += 1
                    if system == "system1":
                        if self.dropped:
                            tally.s1_wrong_after += 1
                        else:
                            tally.s1_wrong_before += 1
                    elif self.dropped:
                        tally.s2_wrong_after += 1
                    if not self.dropped:
                        self.dropped = True
                        tally.dropped = self.map.drop("an arrival contradicted a claim carried from world A")
                self._arrived(env)
            if self.fm is not None:
                self.fm.step()
            if len(env.achieved) == len(OPERATORS):
                break  # nothing left to do in this world
        tally.achievements = len(env.achieved)

    def _arrived(self, env: _Env) -> None:
        """The agent is at a place: it sees the place's kind and the doors on offer (where they lead: not shown)."""
        place = env.place
        self.kinds[place] = env.world.kinds[place]
        for d in DOORS:
            if not self.map.claims(place, d):
                self.map.see(place, d)


def _situation(s: dict[str, Any]) -> list[Any]:
    return [s["place"], s["wood"], s["stone"], s["pickaxe"], s["stone_pickaxe"], s["table_here"], s["furnace_here"]]


# ---------------------------------------------------------------------------------------------------------------
# the protocol
# ---------------------------------------------------------------------------------------------------------------


def _rng(seed: int, *parts: Any) -> random.Random:
    # a string seed is hashed with SHA-512 by random.seed: independent streams, the same on every machine and run
    return random.Random("/".join(map(str, (seed, *parts))))


def _main_arms(worlds_list: list[World], steps: int, seed: int, stream: int, rows: list[dict[str, Any]]) -> bool:
    """The five arms on one stream of worlds; appends one row per (arm, world). Returns: every map verified."""
    verified = True
    for arm in ARMS:
        carried = arm.startswith("carried")
        vocab = _vocabulary(with_place=arm == "carried_place")
        # journal=False: the study never rebuilds these models, and a journal would hold every condition vector
        agent = _Agent(ConservativeActionModel(vocab, journal=False), None, _rng(seed, stream, arm, "agent"))
        for w, world in enumerate(worlds_list):
            if not carried:
                agent.model = ConservativeActionModel(vocab, journal=False)  # nothing carried: learn from scratch
                agent.accepted_ops = set()
            agent.agenda = _agenda() if arm.endswith("agenda") else None
            agent.new_world()
            tally = _Tally()
            agent.play(_Env(world), steps, tally)
            verified &= bool(agent.map.verify())
            rows.append(
                {
                    "arm": arm,
                    "stream": stream,
                    "world": w,
                    "steps": tally.steps,
                    "system1": tally.s1,
                    "failed": tally.failed,
                    "past_gate": tally.past_gate,
                    "achievements": tally.achievements,
                    "steps_to_stone": tally.first_stone if tally.first_stone is not None else steps,
                    "stone": tally.first_stone is not None,
                }
            )
    return verified


def _failure_memory(worlds_list: list[World], steps: int, seed: int, stream: int, rows: list[dict[str, Any]]) -> bool:
    """The proposer that does not learn, alone and behind the failure memory's hard check."""
    verified = True
    for variant in ("without", "with"):
        rng = _rng(seed, stream, "fm", variant)
        for w, world in enumerate(worlds_list):
            fm = None
            if variant == "with":
                fm = FailureMemory(window=10, unit="steps", max_blocked=8, min_open=1, journal=Journal())
            agent = _Agent(None, None, rng, fm=fm)
            tally = _Tally()
            agent.play(_Env(world), steps, tally)
            verified &= bool(agent.map.verify())
            if fm is not None:
                verified &= bool(fm.journal.verify()) and FailureMemory.from_journal(fm.journal) == fm
            rows.append(
                {
                    "variant": variant,
                    "stream": stream,
                    "world": w,
                    "steps": tally.steps,
                    "failed": tally.failed,
                    "repeats": tally.repeats,
                }
            )
    return verified


def _changed_world(steps: int, episodes: int, seed: int, stream: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """`episodes` episodes in world A, then `episodes` in B (rewired), the model and the map carried."""
    rng = _rng(seed, stream, "changed")
    a = make_world(rng)
    b = rewire(a, rng)
    ks = KnowledgeStore()
    wmap = WorldMap(knowledge=ks, scope="A")
    model = ConservativeActionModel(_vocabulary(with_place=False), journal=False)
    agent = _Agent(model, None, _rng(seed, stream, "changed", "agent"))
    agent.new_world(wmap)
    out = {"dropped": 0}
    for phase, world in (("A", a), ("B", b)):
        agent.dropped = False
        phase_tally = _Tally()
        for ep in range(episodes):
            start = rng.choice(world.names)
            env = _Env(World(world.names, world.kinds, world.doors, start))
            tally = _Tally()
            agent.play(env, steps, tally, watch=True)
            rows.append(
                {
                    "stream": stream,
                    "phase": phase,
                    "episode": ep,
                    "steps": tally.steps,
                    "system1": tally.s1,
                    "achievements": tally.achievements,
                    "refuted": tally.refuted,
                    "contradictions": tally.contradictions,
                    "s1_wrong_before": tally.s1_wrong_before,
                    "s1_wrong_after": tally.s1_wrong_after,
                    "s2_wrong_after": tally.s2_wrong_after,
                }
            )
            for f in ("refuted", "contradictions", "s1_wrong_before", "s1_wrong_after", "s2_wrong_after", "dropped"):
                setattr(phase_tally, f, getattr(phase_tally, f) + getattr(tally, f))
        out[phase] = phase_tally
        if phase == "B":
            out["dropped"] = phase_tally.dropped
            out["did_drop"] = agent.dropped
    out["verified"] = bool(wmap.verify()) and bool(ks.verify())
    out["view_equals_map"] = WorldMap.view(ks, "A").edges() == wmap.edges()
    out["store_items"] = len(ks)
    return out


def run(
    streams: int = FULL_PARAMS["streams"],
    worlds: int = FULL_PARAMS["worlds"],
    steps: int = FULL_PARAMS["steps"],
    episodes: int = FULL_PARAMS["episodes"],
    seed: int = 0,
    progress: bool = True,
) -> StudyResult:
    """Run the three experiments (the five arms, the failure memory, the changed world) and compare.

    streams: independent agents; worlds: worlds each stream meets in turn (the last third is measured);
    steps: steps per world or episode; episodes: episodes in world A and then in world B; progress: a tqdm bar.
    """
    PARAMS.check(streams=streams, worlds=worlds, steps=steps, episodes=episodes, seed=seed)
    arm_rows: list[dict[str, Any]] = []
    fm_rows: list[dict[str, Any]] = []
    cw_rows: list[dict[str, Any]] = []
    changed: list[dict[str, Any]] = []
    verified = True
    for stream in tqdm(range(streams), desc="toy_crafting streams", disable=not progress):
        world_rng = _rng(seed, stream, "worlds")
        worlds_list = [make_world(world_rng) for _ in range(worlds)]
        verified &= _main_arms(worlds_list, steps, seed, stream, arm_rows)
        verified &= _failure_memory(worlds_list, steps, seed, stream, fm_rows)
        cw = _changed_world(steps, episodes, seed, stream, cw_rows)
        verified &= cw["verified"]
        changed.append(cw)

    per_world = pl.DataFrame(arm_rows)
    last = worlds - max(1, worlds // 3)
    summary = _summary(per_world.filter(pl.col("world") >= last))
    fm = pl.DataFrame(fm_rows)
    metrics: dict[str, Any] = {
        "streams": streams,
        "worlds": worlds,
        "steps": steps,
        "episodes": episodes,
        "seed": seed,
        "measured_from_world": last,
    }
    for row in summary.iter_rows(named=True):
        a = row["arm"]
        metrics[f"{a}_achievements"] = row["achievements"]
        metrics[f"{a}_steps_to_stone"] = row["steps_to_stone"]
        metrics[f"{a}_s1_share"] = row["s1_share"]
        metrics[f"{a}_failed_per_100"] = row["failed_per_100"]
        metrics[f"{a}_no_stone_worlds"] = row["no_stone_worlds"]
    for a in ARMS:  # every world, not only the last third: a gate passed anywhere counts
        metrics[f"{a}_past_gate"] = int(per_world.filter(pl.col("arm") == a)["past_gate"].sum())
    for variant in ("without", "with"):
        v = fm.filter(pl.col("variant") == variant)
        metrics[f"fm_{variant}_repeats_per_100"] = 100.0 * v["repeats"].sum() / v["steps"].sum()
        metrics[f"fm_{variant}_failed_per_100"] = 100.0 * v["failed"].sum() / v["steps"].sum()
    rep_without, rep_with = metrics["fm_without_repeats_per_100"], metrics["fm_with_repeats_per_100"]
    metrics["fm_repeat_factor"] = rep_without / rep_with if rep_with > 0 else None
    n = len(changed)
    metrics["changed_streams_dropped"] = sum(1 for c in changed if c["did_drop"])
    metrics["changed_claims_dropped"] = sum(c["dropped"] for c in changed) / n
    metrics["changed_refuted_in_b"] = sum(c["B"].refuted for c in changed) / n
    metrics["changed_contradictions_in_a"] = sum(c["A"].contradictions for c in changed)
    metrics["changed_s1_wrong_before_drop"] = sum(c["B"].s1_wrong_before for c in changed) / n
    metrics["changed_s1_wrong_after_drop"] = sum(c["B"].s1_wrong_after for c in changed)
    metrics["changed_s2_checks_after_drop"] = sum(c["B"].s2_wrong_after for c in changed) / n
    metrics["changed_view_equals_map"] = all(c["view_equals_map"] for c in changed)
    cw = pl.DataFrame(cw_rows)
    for phase in ("A", "B"):
        p = cw.filter(pl.col("phase") == phase)
        metrics[f"changed_{phase}_achievements"] = float(p["achievements"].mean())
        metrics[f"changed_{phase}_s1_share"] = float(p["system1"].sum() / p["steps"].sum())
    metrics["journals_verified"] = bool(verified)
    comparison = _comparison(metrics, streams)
    # each checked row as a flat boolean metric too (claim_, finding_, mechanism_), so tests read it directly
    for row in comparison:
        if row.holds is not None:
            metrics[f"{row.kind}_{row.key}"] = bool(row.holds)
    metrics["claims_checked"] = len(CLAIMS)
    metrics["claims_holding"] = sum(bool(metrics[f"claim_{n}"]) for n in CLAIMS)

    return StudyResult(
        name="toy_crafting",
        params={"streams": streams, "worlds": worlds, "steps": steps, "episodes": episodes, "seed": seed},
        metrics=metrics,
        tables={"arms": summary, "per_world": per_world, "failure_memory": fm, "changed_world": cw},
        comparison=comparison,
        figures=_figures(per_world, steps),
        caveats=[
            "The nothing-carried explorer was tuned (commit 87aba3b) until it reached the published 5.40 "
            "achievements: that row is a figure, not a claim, and the baseline was not fixed before looking.",
            "agenda_sooner_to_stone and place_name_slower_to_stone are near-forced (the gates are the environment's "
            "own checks; the place's name makes every new-world vector unseen): mechanism checks, not claims.",
            "A toy world, not Crafter: orderings are compared, never values.",
            "CI (tests/studies/test_claims.py) checks every row at the quick size (seeds 0–2); the full-size verdicts "
            "come from the reported run and the stored sweep (docs/sweeps).",
        ],
    )


def _summary(rows: pl.DataFrame) -> pl.DataFrame:
    out = rows.group_by("arm").agg(
        pl.col("achievements").mean().alias("achievements"),
        pl.col("steps_to_stone").mean().alias("steps_to_stone"),
        (pl.col("system1").sum() / pl.col("steps").sum()).alias("s1_share"),
        (100.0 * pl.col("failed").sum() / pl.col("steps").sum()).alias("failed_per_100"),
        (~pl.col("stone")).sum().alias("no_stone_worlds"),
        pl.col("past_gate").sum().alias("past_gate"),
        pl.len().alias("worlds"),
    )
    order = {a: i for i, a in enumerate(ARMS)}
    return out.sort(pl.col("arm").replace_strict(order, return_dtype=pl.Int64))


def _comparison(m: dict[str, Any], streams: int) -> list[Comparison]:
    rows: list[Comparison] = []
    names = ("achievements", "steps_to_stone", "s1_share", "failed_per_100")
    shown = ("achievements (of 6)", "steps to the first stone", "System 1 share", "failed attempts per 100 steps")
    for a in ARMS:
        for i, (name, label) in enumerate(zip(names, shown)):
            rows.append(
                Comparison(
                    f"{ARM_LABELS[a]}: {label}",
                    round(m[f"{a}_{name}"], 3),
                    PUBLISHED[a][i],
                    "our toy, not theirs: compare orderings, not values",
                )
            )
    c, n = "carried", "nothing"

    def claim(key: str, measure: str, ours: Any, published: Any, note: str, holds: bool, threshold: str) -> Comparison:
        return Comparison(
            measure,
            ours,
            published,
            note,
            holds=bool(holds),
            kind="claim",
            key=key,
            threshold=threshold,
            sentence=TABLE_SENTENCE,
        )

    def mechanism(
        key: str,
        measure: str,
        ours: Any,
        published: Any,
        note: str,
        holds: bool,
        threshold: str,
        *,
        sentence: str = "",
        caveats: tuple[str, ...] = (),
    ) -> Comparison:
        return Comparison(
            measure,
            ours,
            published,
            note,
            holds=bool(holds),
            kind="mechanism",
            key=key,
            threshold=threshold,
            sentence=sentence,
            caveats=caveats,
        )

    rows += [
        Comparison(
            "repeated failures per 100 steps, proposer that does not learn",
            m["fm_without_repeats_per_100"],
            PUBLISHED_REPEATS[0],
            "same operator, same situation, within 10 steps",
        ),
        Comparison(
            "repeated failures per 100 steps, behind the failure memory",
            m["fm_with_repeats_per_100"],
            PUBLISHED_REPEATS[1],
            "window 10 steps, max_blocked 8, min_open 1",
        ),
        Comparison(
            "changed world: claims dropped (mean per stream)",
            round(m["changed_claims_dropped"], 2),
            PUBLISHED_CHANGED["dropped"],
        ),
        Comparison(
            "changed world: claims refuted in B (mean per stream)",
            round(m["changed_refuted_in_b"], 2),
            PUBLISHED_CHANGED["refuted"],
        ),
        Comparison(
            "changed world: wrong carried claims System 1 walked before the drop (per stream)",
            round(m["changed_s1_wrong_before_drop"], 2),
            PUBLISHED_CHANGED["s1_wrong_before"],
            "the move that found the change, when System 1 made it",
        ),
        claim(
            "carried_more_achievements",
            "carried beats nothing carried on achievements",
            m[f"{c}_achievements"],
            f"{PUBLISHED[c][0]} > {PUBLISHED[n][0]}",
            f"nothing carried: {m[f'{n}_achievements']:.3f}",
            m[f"{c}_achievements"] > m[f"{n}_achievements"],
            "mean achievements, last third: carried > nothing carried",
        ),
        claim(
            "carried_sooner_to_stone",
            "carried reaches the first stone sooner",
            m[f"{c}_steps_to_stone"],
            f"{PUBLISHED[c][1]} < {PUBLISHED[n][1]}",
            f"nothing carried: {m[f'{n}_steps_to_stone']:.3f}",
            m[f"{c}_steps_to_stone"] < m[f"{n}_steps_to_stone"],
            "mean steps to the first stone, last third: carried < nothing carried",
        ),
        claim(
            "carried_fewer_failures",
            "carried fails fewer attempts",
            m[f"{c}_failed_per_100"],
            f"{PUBLISHED[c][3]} < {PUBLISHED[n][3]}",
            f"nothing carried: {m[f'{n}_failed_per_100']:.3f}",
            m[f"{c}_failed_per_100"] < m[f"{n}_failed_per_100"],
            "failed attempts per 100 steps, last third: carried < nothing carried",
        ),
        mechanism(
            "carried_more_system1",
            "carried answers more steps from System 1",
            round(m[f"{c}_s1_share"], 3),
            f"{PUBLISHED[c][2]} > {PUBLISHED[n][2]}",
            f"nothing carried: {m[f'{n}_s1_share']:.3f}",
            m[f"{c}_s1_share"] > m[f"{n}_s1_share"],
            "System 1 share of steps, last third: carried > nothing carried",
            sentence=TABLE_SENTENCE,
            caveats=(
                "near-forced, so a mechanism check: System 1 answers from the carried model, and nothing carried "
                "starts every world with an empty one",
            ),
        ),
        mechanism(
            "agenda_sooner_to_stone",
            "the agenda brings nothing carried to the first stone sooner",
            m["nothing_agenda_steps_to_stone"],
            f"{PUBLISHED['nothing_agenda'][1]} < {PUBLISHED[n][1]}",
            f"near-forced: the gates are the environment's checks, so the agenda arm never tries what they refuse; "
            f"nothing carried: {m[f'{n}_steps_to_stone']:.3f}",
            m["nothing_agenda_steps_to_stone"] < m[f"{n}_steps_to_stone"],
            "mean steps to the first stone, last third: nothing carried + agenda < nothing carried",
        ),
        mechanism(
            "place_name_slower_to_stone",
            "the place's name makes carried slower to the first stone",
            m["carried_place_steps_to_stone"],
            f"{PUBLISHED['carried_place'][1]} > {PUBLISHED[c][1]}",
            f"near-forced: the place's name makes every condition vector of a new world unseen, so the model answers "
            f"'unknown' there; carried: {m[f'{c}_steps_to_stone']:.3f}",
            m["carried_place_steps_to_stone"] > m[f"{c}_steps_to_stone"],
            "mean steps to the first stone, last third: carried with the place's name > carried",
        ),
        mechanism(
            "failure_memory_cuts_repeats",
            f"the failure memory cuts repeats by ≥ {LARGE_FACTOR:g}× (mechanism; the published factor is a figure)",
            "∞" if m["fm_repeat_factor"] is None else round(m["fm_repeat_factor"], 2),
            round(PUBLISHED_REPEATS[0] / PUBLISHED_REPEATS[1], 1),
            "close to a mechanism: its hard check blocks exactly the (operator, situation, 10-step window) the "
            "repeat metric counts; the factor is what max_blocked / min_open leave open",
            m["fm_repeat_factor"] is None or m["fm_repeat_factor"] >= LARGE_FACTOR,
            f"repeats per 100 steps without / with ≥ {LARGE_FACTOR:g} (ours, fixed before running)",
            sentence=REPEATS_SENTENCE,
            caveats=(
                "a mechanism check, not the specification's claim: the hard check blocks exactly what the repeat "
                "metric counts, so the factor measures what max_blocked and min_open leave open; the published factor "
                "is shown beside it as a figure, not as the threshold",
            ),
        ),
        Comparison(
            "the nothing-carried explorer beside the published reference (tuned: not a claim)",
            round(m[f"{n}_achievements"], 3),
            PUBLISHED[n][0],
            "TUNED: the explorer was changed (commit 87aba3b: it no longer retries the call that failed in this world) "
            "until nothing carried reached the published 5.40, so this row is a figure, not a claim or finding",
        ),
        mechanism(
            "agenda_nothing_past_gate",
            "agenda arms take 0 actions past a gate",
            m["nothing_agenda_past_gate"] + m["carried_agenda_past_gate"],
            0,
            "by construction (the specification says so): the gates are the written rules",
            m["nothing_agenda_past_gate"] == 0 and m["carried_agenda_past_gate"] == 0,
            "actions past a closed gate, every world of both agenda arms = 0",
        ),
        mechanism(
            "changed_world_dropped_every_stream",
            "changed world: the first contradicted arrival dropped the map on every stream",
            f"{m['changed_streams_dropped']} of {streams}",
            PUBLISHED_CHANGED["streams_dropped"],
            "by construction: the first contradiction drops the carried map, and B is rewired",
            m["changed_streams_dropped"] == streams,
            "streams whose map was dropped in B = streams",
        ),
        mechanism(
            "changed_world_no_s1_wrong_after_drop",
            "changed world: System 1 walked no wrong claim after the drop",
            m["changed_s1_wrong_after_drop"],
            PUBLISHED_CHANGED["s1_wrong_after"],
            "by construction: System 1 walks confirmed claims only, and the drop demotes them all",
            m["changed_s1_wrong_after_drop"] == 0,
            "wrong carried claims System 1 walked after the drop = 0",
        ),
        mechanism(
            "journals_verified",
            "every journal verified",
            m["journals_verified"],
            True,
            "world maps, failure memories, knowledge stores",
            m["journals_verified"],
            "verify() is true for every journal written",
        ),
    ]
    return rows


def _figures(per_world: pl.DataFrame, steps: int) -> dict[str, Figure]:
    by_world = (
        per_world.group_by("arm", "world")
        .agg(pl.col("achievements").mean(), pl.col("steps_to_stone").mean())
        .sort("world")
    )
    figs = {}
    for col, ylabel, title in (
        ("achievements", "achievements (of 6, mean over streams)", "Achievements by world"),
        ("steps_to_stone", f"steps to the first stone (mean; {steps} = none)", "Steps to the first stone by world"),
    ):
        fig = Figure(figsize=(7, 4))
        ax = fig.add_subplot()
        for a in ARMS:
            d = by_world.filter(pl.col("arm") == a)
            ax.plot(d["world"].to_list(), d[col].to_list(), marker="o", ms=3, label=ARM_LABELS[a])
        ax.set_xlabel("world index in the stream (worlds met so far)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize=7)
        fig.tight_layout()
        figs[col] = fig
    return figs
