"""The survivor: the planner of :mod:`.agent` with every piece on, goals ordered so cheap ones are not starved,
survival as goals, and a walled garden for the plant.

It is :class:`.agent.Agent` (the agenda's goals with their code done-checks and documented gates, the action model
carried across worlds, the failure memory's hard check, the world map of :class:`.navigation.Navigator`) with:

- **cheap goals first** (:data:`ORDER`): ``collect_sapling`` and ``place_plant`` come right after the wood tools,
  the furnace before the coal (it needs stones and a table only), the diamond last; a skeleton close by is fought
  while ``defeat_skeleton`` is open (``HUNT_WITHIN``); and three opportunistic goals a person writes in a minute, taken whenever the situation offers
  them: facing grass without a sapling, try for one; facing a ripe plant, eat it; holding a sapling facing grass
  in a walled spot, plant it (anywhere once ``PLANT_ANYWHERE`` steps passed without such a spot);
- **survival as goals**: the explorer's night (it shelters from dusk, daylight < 0.5, and digs a sealed pocket into
  stone with its pickaxe when it knows none; it shelters whenever food and drink are above 0, not 2), drink and
  food before they run low and to the full when the light is dim (``EVENING``: before the night and after it), sleep when tired — sleeping sheltered is
  what unlocks ``wake_up``; shelter and rest when hurt (health ≤ ``HEAL_BELOW`` until ``HEALED``); fight a zombie
  next to it, flee skeletons' arrows when hurt (health ≤ 6);
- **the garden**: a sapling is planted on grass whose three other neighbours are walls (a tree, stone, water, a
  table ...: cells no cow or zombie walks on), then the player steps back twice, turns, and closes the cell it
  planted from with a stone. A plant dies when a cow, zombie or skeleton stands next to it and only grows while the
  player is within 18 cells (Crafter's update distance), so it is walled in and visited: once seen ripe (or
  ``RIPE_AFTER`` steps after planting) the agent mines the stone, eats it, and walls it in again.

Added on 2026-12-04 (issue 46): the **pocket** — at dusk (``WALL_IN``) it walls itself into a two-cell pocket of
placed stones (tables when stones run out), dug into rock when it has a pickaxe, wherever it stands
(:func:`.navigation.pocket_plan`), beside its garden when one is near (``HOME_RANGE``: the plant grows while it
sleeps; a ripe plant next to the pocket is eaten from inside), sleeps there, leaves when the morning is light
(``WALL_OUT``) and no zombie lurks, and walls the pocket shut behind it when a plant is next to it; in the afternoon
it gathers stones (or wood) for the night (``NIGHT_STONES``); and **fill up** — a call refused although its
documented gates held (the documentation gives no amounts: the furnace takes more than one stone) waits until those
items are full (``FULL``) before it is tried again.

Added on 2026-12-05 (issue 46, third pass, developed on training worlds ``0..23`` only): a zombie within ``LURK``
cells keeps a sealed pocket shut while food and drink last; a pocket beside water is preferred when no garden is
near, and the player drinks from inside it; saplings and gardens wait while food or drink run low; a cow wanted at
food ≤ ``SEARCH_BELOW`` with none known is searched for on the grass seen longest ago (:meth:`Survivor._stale`);
tables wall a pocket only beside a stone (a pocket of tables and water has no way out); a plant open on two sides is
no pocket wall (``SAFE_WALLS``: a zombie kills it and walks in); a faced stone, coal, iron or diamond the documented
gates allow is mined (``GRAB``); a skeleton within ``HUNT_WITHIN`` is fought while ``defeat_skeleton`` is open, armed
and unhurt. The last two count as cheap goals (``cheap_first``).

Added on 2026-12-07 (issue 46, eighth pass, developed on training worlds ``0..31`` only): that search counts a
walkable cell next to one never seen as stale as grass gets (``SEARCH_FRONTIER``; ``STALE_CAP`` raised), since
Crafter keeps a cow in every grassy chunk and a chunk never seen was never emptied by this player.

Added on 2026-12-05 (issue 46, fifth pass, training worlds ``0..31`` only: ``0..15`` to find, ``16..31`` to
check): a sapling in hand at dusk is planted as one of the night pocket's walls, with its other sides walled too
(``PLANT_IN_POCKET``, :func:`.navigation.pocket_plan`): no creature reaches it, it grows while the player sleeps beside it, and it is
eaten from inside when ripe; sealed beside its own plants, it stays in while water next to the pocket (or drink) and
food (or a plant nearly ripe) last (``STAY``, :meth:`Survivor._stay`); it leaves the pocket in the morning at
daylight ``WALL_OUT`` = 0.9 (was 0.75).

Added on 2026-12-06 (issue 46, sixth pass, training worlds ``0..31`` to find, ``32..63`` to check, several random
streams each: ``benchmarks/crafter_deaths.py --stream``): **a plant seen ripe is food** — with food below ``LOW`` it
goes to eat it before any cow, even hurt or in the dark (``RIPE_IS_FOOD``; a starving agent used to pass by its
own ripe plant looking for cows, since gardens waited while it was hungry or hurt); and a plant walled in on every
side (a pocket's plant after the pocket was shut) is reached by mining a stone next to it (``MINE_IN``).

Added on 2026-12-07 (issue 46, seventh pass, design worlds ``0..31`` of seed 0): **the homestead** — a plant
gives 4 food every 300 steps, so three plants feed a player that sleeps whenever it can, and water next to the
pocket gives drink. Holding ``SETTLE_PLANTS`` saplings, fed, in the afternoon it walks to the cheapest known site
(:func:`.navigation.homestead_sites`: a pocket of two cells beside water with room for three plants and at most the
walls it carries; tables count, a homestead needs no way out), walls itself in with the three saplings among the
walls (each planted only once its outer sides are walled: :func:`.navigation.pocket_plan` with ``fewest``), and
settles there: it eats a ripe plant once food is at most ``EAT_AT`` (a plant's 4 would be lost above it), drinks,
sleeps, and leaves only starving with no plant ripe soon (``STARVING``). Saplings beyond the first are kept for it,
stones (or wood) are gathered for it in the afternoon (``HOME_STONES``; all day once the saplings are in hand
with ``HOME_ALL_DAY``, off: more sites found, no more settled). **Measured, not adopted**: on design
worlds ``0..31`` (two random streams, ``benchmarks/crafter_deaths.py --set HOMESTEAD=true``) a few episodes live
to 10,000 steps, but most die before they can settle (the building and the saplings cost time and exposure), and
the pooled score falls; ``HOMESTEAD`` is off (``homestead=True`` turns it on), see the CHANGELOG.
Since 2026-12-07 it is also the score's ``survivor-homestead`` arm (:data:`.protocol.HOMESTEAD_ARM`: two plants,
walls gathered all day, from the first evening, three ways to plan): on design worlds over a third of the
episodes settle and live to the end, but it scores far below this default (docs/readme/crafter.md).

Added on 2026-12-08 (issue 46, ninth pass, design worlds ``0..63`` of seed 0, two random streams): three settings
of the homestead, all off. ``SAPLING_RETRY``: unsettled in the homestead's time, it tries the same grass again for
its saplings (Crafter gives one for a tenth of the tries on grass, and the grass stays), where it used to try each
cell once. ``NIGHT_HOME``: at night the homestead is planned whatever the food (by day it still waits for
``SETTLE_FOOD``). ``TRIPS``: settled, on a morning it is fed, it leaves through the stone wall in line with its pocket
(:meth:`Survivor._go_out`: the only wall it can close again from inside, facing it by stepping back from the other
cell), fills the pocket cell behind it with a stone, plays the day's goals and comes back in the same way when the
falling daylight is below ``TRIP_BACK`` (:meth:`Survivor._go_home`); a trip that unlocked nothing new is the last.
**Measured, not adopted** (the CHANGELOG and docs/readme/crafter.md give the stored runs).

Added on 2026-12-08 (issue 46, tenth pass, design worlds ``0..63`` of seed 0, two random streams): the early
homestead's settings are keywords (``home_after``, ``sapling_retry``, ``night_home``, ``home_range``, ``starving``)
and, from the first night on, the score's ``survivor-settler`` arm (:data:`.protocol.SETTLER_ARM`). Three settings,
all off: ``ARROW_COST`` ranks a pocket or homestead in an arrow's line over water after the others (Crafter's arrows
fly over water: a sealed player beside a pond was shot from its far shore; :func:`.navigation.in_line_of_fire`);
``CRAFT_FIRST`` puts the goals' make calls whose items are in hand before the afternoon's gathering when a table is
within ``CRAFT_NEAR`` cells (``CRAFT_FURNACE``: the furnace too). **Measured, not adopted** (docs/readme/crafter.md,
"Arrows over water"). And the afternoon's gathering never asks for wood or stone past a full hand.

Each piece can be switched off (``carried``/``agenda``/``failures``/``world_map``/``survival``/``cheap_first``/
``pocket``/``fill_up``): the ablations of the score benchmark (``benchmarks/crafter_score.py``).

>>> import random
>>> from .env import ACTIONS, CrafterWorld
>>> w = CrafterWorld(seed=2); s = Survivor(rng=random.Random(0))
>>> s.act(w.state) in ACTIONS
True
"""

from __future__ import annotations

import random
from collections import deque
from typing import Any

from ...actions import ConservativeActionModel
from ...errors import BadInput
from ...failures import FailureMemory
from ...validation import need_bool, need_int
from .agent import DOCUMENTED, DOCUMENTED_SOURCES, GATHER, GOAL_CALLS, Agent, _holds
from .env import DIRECTIONS, NONE, Step, SymState
from .navigation import MOVES, homestead_sites, pocket_plan
from .vocabulary import vocabulary

__all__ = ["Survivor", "ORDER", "PIECES"]

#: The goals' order: cheap achievements right after the wood tools, the expensive ones last.
ORDER: tuple[str, ...] = (
    "collect_wood",
    "place_table",
    "make_wood_pickaxe",
    "make_wood_sword",
    "collect_sapling",
    "place_plant",
    "collect_drink",
    "eat_cow",
    "collect_stone",
    "place_stone",
    "make_stone_pickaxe",
    "make_stone_sword",
    "place_furnace",
    "collect_coal",
    "defeat_zombie",
    "eat_plant",
    "collect_iron",
    "make_iron_pickaxe",
    "make_iron_sword",
    "defeat_skeleton",
    "collect_diamond",
    "wake_up",
)
#: The pieces an ablation can remove (each a keyword of :class:`Survivor`).
PIECES = ("carried", "agenda", "failures", "world_map", "survival", "cheap_first", "pocket", "fill_up")
DUSK = 0.5  # daylight below which it shelters (the explorer's)
PLANT_ANYWHERE = 400  # steps holding a sapling without a walled spot, after which it plants anywhere
RIPE_AFTER = 350  # steps after planting when it goes to look (a plant ripens after 300 updates near the player)
EVENING = 0.8  # daylight below which it eats and drinks to the full (before the night, and after it)
FULL_DRINK, FULL_FOOD = 8, 7  # ... to these
LOW = 6  # otherwise it drinks and eats below this
HEAL_BELOW = 4  # health at or below which it shelters to heal
HEALED = 7  # ... until this health
FED = 3  # ... while food and drink are above this
AFTERNOON = 0.9  # falling daylight below which it fills up on food and drink for the night
SAPLINGS = 1  # saplings it gathers to hold (planted in the day's walled spots or as the night pocket's walls)
GARDENS = 3  # living plants it keeps before it stops trying for saplings
OPEN = frozenset({"grass", "sand", "path"})  # where cows and zombies walk
NIGHT_STONES = 7  # stones it keeps for the night's pocket (a pocket of two cells in the open needs six)
# daylight below which it walls itself in (evening), above which it leaves (morning: later since the fifth pass, when
# the night's zombies have thinned out: Crafter's balancing spawns fewer of them as daylight rises)
WALL_IN, WALL_OUT = 0.6, 0.9
HOME_RANGE = 30  # cells within which it goes back to a garden for the night
HOME_REACH = 0  # ... to its free neighbours (0), or to any free cell this close (measured on design worlds, not kept)
COW_NEAR = 5  # a cow this close is eaten whenever food is not nearly full (cows are few and slow to come back)
FULL = 9  # what "full" means for an item (Crafter's inventory cap, read from the game by the agent's counters)
FLEE_WITHIN = 3  # cells within which a skeleton or an arrow is fled from (when hurt)
LURK = 5  # cells within which a zombie keeps a sealed pocket shut
LURK_FED = 0  # ... while food and drink are above this (5 measured on design worlds: no longer lives)
HUNT_WITHIN, HUNT_HEALTH = 4, 6  # a skeleton this close is fought when health is at least this
STALE_CAP = (
    1000  # staleness (steps) beyond which grass counts as no staler (see Survivor._stale; 300 until the eighth pass)
)
SEARCH_BELOW = 3  # food at or below which a cow is searched for on stale grass (else the nearest unseen cell)
SEARCH_FRONTIER = True  # ... where a walkable cell next to an unseen one counts as grass unseen for STALE_CAP
GRAB = True  # mine a faced stone, coal, iron or diamond when the gates allow (see Survivor._grab)
MINED = ("stone", "coal", "iron", "diamond")
SAFE_WALLS = True  # a plant open on two sides is no pocket wall (see _wall_in)
PLANT_IN_POCKET = True  # a sapling in hand is planted as a wall of the night's pocket (see navigation.pocket_plan)
STAY = True  # sealed beside its own plants, it stays in while they and the water feed it (see Survivor._stay)
STAY_BELOW = 3  # ... leaving when food (no plant nearly ripe) or drink (no water next to it) falls to this
REPLAN = 10  # steps it waits before it looks again for a pocket it could not find
RIPE_IS_FOOD = True  # a garden's plant seen ripe is visited when food is below LOW, calm or not (see act)
MINE_IN = True  # a plant no free cell faces is reached by mining a stone next to it (see _visit)
HOME_PLANTS = 2  # at most this many saplings planted as walls of one night's pocket (see navigation.pocket_plan)
HOMESTEAD = False  # the homestead (see the module docstring): measured on design worlds, not adopted
HOME_AFTER = 0  # steps before which it neither gathers for a homestead nor settles
SETTLE_PLANTS = 3  # sealed beside water and this many of its plants, it settles there for good (0: never)
HOME_TRIES, HOME_LIMIT, HOME_RETRY = 8, 200_000, 50  # sites tried for a homestead, states its plan may visit,
# steps before a failed search is tried again (the search is costly: about once an evening)
#: how the homestead's plan is searched for, in turn until one is found: (radius around the player, pairs tried,
#: each sapling planted only once its outer walls stand); the score's homestead arm adds wider and unguarded searches
HOME_PLANS: tuple[tuple[int, int, bool], ...] = ((3, HOME_TRIES, True),)
HOME_STONES = 10  # stones (or two wood, a table, each) it gathers for the homestead, and starts with
HOME_ALL_DAY = False  # ... all day once its saplings are in hand (else only in the afternoon, as for the night)
STARVING, SOON, RETURN_AFTER = 4, 60, 100  # settled, food 0 and health at or below STARVING with no plant ripe
# within SOON steps: it goes out for a cow, and settles again no sooner than RETURN_AFTER steps later
HOME_AFTERNOON = True  # walk to a site and build in the afternoon (else only when the night's pocket is made)
SETTLE_FOOD = 7  # food at or above which it starts building the homestead (the plants ripen 300 steps later)
EAT_AT = 5  # settled, a ripe plant is eaten at food at or below this (a plant gives 4; food above 9 is lost)
SAPLING_RETRY = False  # homestead time, not settled: grass is tried again and again for its saplings (Crafter: a
# tenth of the tries give one, and the grass stays; else one try per cell, as for the first sapling)
NIGHT_HOME = False  # at night, unfed, the pocket is the homestead's when its saplings are in hand and water is
# near (else the homestead waits until food is at least SETTLE_FOOD)
TRIPS = 0  # settled, it goes out on up to this many day trips, mornings it is fed, back before the evening; a trip
# that unlocked nothing new is the last (each trip risks the life the homestead keeps, see the module docstring)
TRIP_FED = 6  # ... when food, drink and health are at least this (and no zombie lurks)
TRIP_BACK = 0.85  # ... heading home once the falling daylight is below this
CRAFT_FIRST = False  # a goal's make call with its items in hand and a table near goes before the gathering
CRAFT_NEAR = 12  # ... the table within this many cells
CRAFT_FURNACE = False  # ... the furnace too (measured on design worlds: the stones it takes cost nights)
ARROW_COST = 0  # added to the rank (walls and steps) of a pocket or homestead in an arrow's line over water (0: not
# looked at; navigation.in_line_of_fire; navigation.FIRE_COST: chosen last)


class Survivor(Agent):
    """The planner with every piece on (see the module docstring). ``carried``: a model and sources shared across
    worlds, as ``(model, sources)``; a fresh pair when None. ``homestead``, ``settle_plants``, ``home_all_day``,
    ``home_plans``, ``home_after``, ``sapling_retry``, ``night_home``, ``home_range``, ``starving``: the homestead and
    its settings (the module's ``HOMESTEAD``, ``SETTLE_PLANTS``, ``HOME_ALL_DAY``, ``HOME_PLANS``, ``HOME_AFTER``,
    ``SAPLING_RETRY``, ``NIGHT_HOME``, ``HOME_RANGE``, ``STARVING`` unless given; the score's homestead arm gives
    them, :data:`.protocol.HOMESTEAD_ARM`)."""

    def __init__(
        self,
        *,
        carried: tuple[ConservativeActionModel, dict[str, set[str]]] | None = None,
        use_model: bool = True,
        agenda: bool = True,
        failures: bool = True,
        world_map: bool = True,
        survival: bool = True,
        cheap_first: bool = True,
        pocket: bool = True,
        fill_up: bool = True,
        homestead: bool | None = None,
        settle_plants: int | None = None,
        home_all_day: bool | None = None,
        home_plans: tuple[tuple[int, int, bool], ...] | None = None,
        home_after: int | None = None,
        sapling_retry: bool | None = None,
        night_home: bool | None = None,
        home_range: int | None = None,
        starving: int | None = None,
        rng: random.Random | None = None,
    ) -> None:
        model, sources = carried if carried is not None else (ConservativeActionModel(vocabulary(), journal=False), {})
        super().__init__(
            model=model if use_model else None,
            agenda=agenda,
            failures=FailureMemory(window=10) if failures else None,
            rng=rng,
            sources=sources if use_model else None,
        )
        self.world_map = world_map
        self.survival = survival
        self.cheap_first = cheap_first
        self.pocket = pocket  # wall itself in with placed stones (else the explorer's shelter only)
        self.fill_up = fill_up  # a call refused though its documented gates held waits for full items
        # settle for good beside water and its plants (measured, not adopted: off unless asked for, see HOMESTEAD)
        self.homestead = (HOMESTEAD if homestead is None else homestead) and survival and pocket
        # the homestead's settings (module constants unless given: the score's homestead arm gives them)
        self.settle_plants = SETTLE_PLANTS if settle_plants is None else settle_plants
        need_int("settle_plants", self.settle_plants, min=0, hint="the plants it settles beside, e.g. 2 (0: never)")
        self.home_all_day = HOME_ALL_DAY if home_all_day is None else home_all_day
        plans = HOME_PLANS if home_plans is None else home_plans
        # a way given as a list (JSON has no tuples: ``crafter_deaths.py --set HOME_PLANS=...``) is the same triple
        self.home_plans = tuple(tuple(w) if isinstance(w, list) else w for w in plans)
        for way in self.home_plans:
            if not (isinstance(way, tuple) and len(way) == 3 and isinstance(way[2], bool)):
                raise BadInput(
                    f"home_plans must hold (radius, tries, guarded) triples, got {way!r}; e.g. ((3, 8, True), (6, 30, True))"
                )
            need_int("a home_plans radius", way[0], min=1, hint="cells around the player, e.g. 3")
            need_int("a home_plans tries", way[1], min=1, hint="pocket pairs tried, e.g. 8")
        self.home_after = HOME_AFTER if home_after is None else home_after
        need_int("home_after", self.home_after, min=0, hint="steps before it settles, e.g. 100 (the first dusk)")
        self.sapling_retry = need_bool("sapling_retry", SAPLING_RETRY if sapling_retry is None else sapling_retry)
        self.night_home = need_bool("night_home", NIGHT_HOME if night_home is None else night_home)
        self.home_range = HOME_RANGE if home_range is None else home_range
        need_int("home_range", self.home_range, min=0, hint="cells within which it goes back to a garden, e.g. 10")
        self.starving = STARVING if starving is None else starving
        need_int("starving", self.starving, min=0, hint="health at which a settled player goes out for a cow, e.g. 4")
        if survival:
            self.night, self.dig, self.flee_below = DUSK, True, 6
            self.rest_needs = 0  # shelter for the night whenever food and drink are above 0 (asleep they drain slower)
        else:
            self.night = 0.0  # no shelter at night (it still rests when exhausted: the planner's own rule)
        self.gardens: dict[tuple[int, int], dict[str, Any]] = {}  # plant cell -> {"door": cell, "at": step}
        self._macro: list[tuple[str, tuple[int, int] | None]] = []  # (action, the cell it must start from)
        self._holding_since: int | None = None
        self._healing = False
        self._tried: set[tuple[int, int]] = set()  # grass cells tried for a sapling
        self._pocket: list[tuple[str, tuple[int, int], tuple[int, int]]] = []  # the walling-in plan under way
        self._no_pocket_at = -(10**9)
        self._light = 1.0  # the last step's daylight: falling means the evening comes
        self._more: dict[str, list[str]] = {}  # call refused though its documented gates held -> items to fill up
        self._now = 0  # views folded into the map so far (the map's clock)
        self._seen_at: dict[tuple[int, int], int] = {}  # cell -> the clock when it was last in view
        self._search: tuple[int, int] | None = None  # the stale grass cell being walked to (see _stale)
        self.settled_at: int | None = None  # the step it settled in its homestead (see _stay)
        self._home_tried_at = -(10**9)  # the step a homestead was last searched for
        self._homing = False  # a homestead's plan is under way
        self._walked: dict[tuple[int, int], int] = {}  # cell -> steps taken from it to the site (see _to_site)
        self._site: tuple[int, int] | None = None  # the homestead site walked to
        self._left_at = -(10**9)  # the step it last left its homestead (see _settled)
        self.first_settled_at: int | None = None  # the step it first settled (day trips leave and come back)
        self._trip = False  # out on a day trip from its homestead (see TRIPS)
        self._door: tuple[tuple[int, int], tuple[int, int], tuple[int, int]] | None = None  # ... the way it left
        self._trips = 0  # day trips taken (TRIPS once one unlocked nothing new)
        self._home_pair: tuple[tuple[int, int], tuple[int, int]] | None = None  # the homestead's two cells
        self._trip_unlocked = 0  # achievements unlocked when the last trip began

    # -- the order of goals -----------------------------------------------------------------------------------
    def _plain(self, state: SymState) -> list[str]:
        if not self.cheap_first:
            return super()._plain(state)
        if self.agenda is not None:
            self.agenda.update(state)
            goals = self.agenda.goals()
            open_goals = [a for a in ORDER if not goals[a]["done"]]
        else:
            open_goals = [a for a in ORDER if state.achievements.get(a, 0) == 0]
        rest = [GOAL_CALLS[a] for a in open_goals if a not in ("wake_up", "eat_plant", "place_plant")]
        rest = self._filled(rest, state)
        gather = [c for item, c in GATHER if state.inventory[item] < 9 and c not in rest]
        since = self.count.steps
        paused = [
            i for i, c in enumerate(rest) if self.pause and since - self._blocked_options.get(c, -(10**9)) <= self.pause
        ]
        if paused:  # a goal was just refused: gather first (it may be waiting for more of something)
            return rest[: paused[0] + 1] + gather + rest[paused[0] + 1 :]
        return rest + gather

    def learn(self, step: Step) -> None:
        """The planner's learning, and: a call refused although its documented gates held wants more of their items
        than the documentation says (it gives no amounts): it waits until they are full (``FULL``)."""
        super().learn(step)
        call = step.call
        if call is None or call not in DOCUMENTED or not self.fill_up:
            return
        if step.accepted:
            self._more.pop(call, None)
        elif all(_holds(step.before, c) for c in DOCUMENTED[call]):
            self._more[call] = [c[4:].split(">=")[0] for c in DOCUMENTED[call] if c.startswith("inv:")]

    def _filled(self, calls: list[str], state: SymState) -> list[str]:
        """Each call waiting for more of its items (see :meth:`learn`) replaced by gathering them."""
        out: list[str] = []
        for c in calls:
            short = [i for i in self._more.get(c, ()) if state.inventory[i] < FULL and i in DOCUMENTED_SOURCES]
            out += [DOCUMENTED_SOURCES[i] for i in short if DOCUMENTED_SOURCES[i] not in out] if short else [c]
        return out

    def options(self, state: SymState) -> list[str]:
        """Survival first: drink and food before they run low, and to the full in the evening (the night is spent
        sealed in, and a hungry or thirsty agent cannot stay in: its shelter needs both above 2); then the goals."""
        if not self.survival:
            return self._plain(state)  # no survival goals: nothing urgent
        plain = self._plain(state)
        urgent = self._urgent(state)
        craft = self._crafts(state, plain) if CRAFT_FIRST and self.cheap_first else []
        if craft:  # before the day's gathering, after food, drink and sleep
            needs = [c for c in urgent if c not in ("do_stone", "do_tree")]
            urgent = needs + craft + [c for c in urgent if c not in needs]
        return urgent + [c for c in plain if c not in craft]

    def _crafts(self, state: SymState, calls: list[str]) -> list[str]:
        """The goals' make calls (and ``place_furnace`` with ``CRAFT_FURNACE``) whose items are in hand, with a table
        known within ``CRAFT_NEAR`` cells (``CRAFT_FIRST``): a walk to the table and one step each, before the
        afternoon's gathering, which otherwise fills the days until the homestead (seen on design worlds: the stone
        tools never made by a player settled from its first night)."""
        inv = state.inventory
        if min(inv["food"], inv["drink"]) <= FED or _zombie_near(state) or state.daylight < DUSK:
            return []
        px, py = state.pos
        if not any(abs(t[0] - px) + abs(t[1] - py) <= CRAFT_NEAR for t in self.nav.cells_of(["table"])):
            return []
        out = []
        for c in calls:
            if not c.startswith("make_") and not (c == "place_furnace" and CRAFT_FURNACE):
                continue  # the furnace takes stones (more than one) that the night's pocket needs
            # (a call waiting to fill up is not among the calls: _filled put its gathering in its place)
            if all(_holds(state, g) for g in DOCUMENTED.get(c, ()) if g.startswith("inv:")):
                out.append(c)
        return out

    def _urgent(self, state: SymState) -> list[str]:
        """Survival's calls (see :meth:`options`)."""
        inv = state.inventory
        dim = state.daylight < EVENING or (state.daylight < AFTERNOON and state.daylight < self._light)
        drink, food = (FULL_DRINK, FULL_FOOD) if dim else (LOW, LOW)
        urgent = []
        if inv["drink"] < drink or (inv["drink"] < 9 and state.faced[0] == "water"):
            urgent.append("do_water")
        cow_near = any(
            k == "cow" and abs(p[0] - state.pos[0]) + abs(p[1] - state.pos[1]) <= COW_NEAR
            for p, k in state.creatures.items()
        )
        if inv["food"] < food or (inv["food"] < 9 and state.faced[1] == "cow") or (inv["food"] <= 6 and cow_near):
            urgent.append("do_cow")
        if inv["energy"] < 1:
            urgent.append("sleep")
        ready = self._homestead_ready(state)
        stones = HOME_STONES if ready else NIGHT_STONES
        gather = state.daylight < self._light or (ready and self.home_all_day)
        if inv["stone"] + inv["wood"] // 2 < stones and gather:
            # the afternoon: stones (else wood for tables) for the night's pocket, or for the homestead
            # never past the cap: a full hand gathers nothing, and an urgent call that gains nothing would starve
            # the goals behind it
            if inv["wood_pickaxe"] >= 1 and self.nav.cells_of(["stone"]) and inv["stone"] < FULL:
                urgent.append("do_stone")
            if inv["wood"] < FULL:
                urgent.append("do_tree")
        return urgent

    def _meet(self, state: SymState, cond: str, values: set[Any], depth: int) -> str | None:
        """The planner's, but food searched for: a cow wanted and none known → the grass seen longest ago or the edge
        of the map (:meth:`_stale`; cows come back on grass out of sight) rather than the nearest unseen cell, which
        once the map is explored is a random walk."""
        if (
            self.survival
            and state.inventory["food"] <= SEARCH_BELOW
            and cond == "faced:creature"
            and "cow" in values
            and state.faced[1] not in values
            and not self.nav.creatures_of(values)
        ):
            step = self._stale(state, "grass")
            if step:
                return step
        return super()._meet(state, cond, values, depth)

    def _stale(self, state: SymState, material: str, limit: int = 4000, cap: int | None = None) -> str | None:
        """A move towards the reachable cell of this material not seen for longest (staleness capped at ``cap``,
        less twice its distance): where a cow may have come since (cows come back on grass out of sight). With
        ``SEARCH_FRONTIER`` a walkable cell next to one never seen counts as stale as grass gets: a grassy chunk of
        Crafter keeps a cow, and one never seen was never emptied by this player (on design worlds the cows nearest
        a starving player were mostly on cells it had never seen). The cell is kept until it comes into view; None
        when no such cell is reachable."""
        nav = self.nav
        cap = STALE_CAP if cap is None else cap
        if self._search is not None and self._seen_at.get(self._search, 0) < self._now:
            step = nav._walk_to(state, [self._search])
            if step:
                return step
        best, best_score = None, None
        dist = {state.pos: 0}
        queue = deque([state.pos])
        while queue and len(dist) < limit:
            here = queue.popleft()
            if SEARCH_FRONTIER and any((here[0] + dx, here[1] + dy) not in nav.cells for dx, dy in DIRECTIONS.values()):
                score = cap - 2 * dist[here]  # next to the unseen: as stale as grass gets
                if best_score is None or score > best_score:
                    best, best_score = here, score
            elif nav.cells.get(here) == material:
                score = min(cap, self._now - self._seen_at.get(here, 0)) - 2 * dist[here]
                if best_score is None or score > best_score:
                    best, best_score = here, score
            for dx, dy in DIRECTIONS.values():
                nxt = (here[0] + dx, here[1] + dy)
                if nxt not in dist and nav._free(nxt):
                    dist[nxt] = dist[here] + 1
                    queue.append(nxt)
        if best is None or best == state.pos:
            return None
        self._search = best
        return nav._walk_to(state, [best])

    # -- the garden -------------------------------------------------------------------------------------------
    def _walled(self, cell: tuple[int, int], door: tuple[int, int]) -> bool:
        """Every neighbour of the cell but the door is a known cell no creature walks on."""
        for dx, dy in DIRECTIONS.values():
            q = (cell[0] + dx, cell[1] + dy)
            if q == door:
                continue
            m = self.nav.cells.get(q)
            if m is None or m in OPEN or m == "lava" or q in self.nav.creatures:
                return False
        return True

    def _behind(self, state: SymState, k: int) -> tuple[int, int]:
        return (state.pos[0] - k * state.facing[0], state.pos[1] - k * state.facing[1])

    def _garden(self, state: SymState) -> str | None:
        """Plant, eat, or close a garden when the situation offers it; None otherwise."""
        inv = state.inventory
        faced = (state.pos[0] + state.facing[0], state.pos[1] + state.facing[1])
        if state.faced[1] == "plant-ripe":
            self._after_eating(state, faced)
            return "do"
        if inv["sapling"] >= 1:
            if self._holding_since is None:
                self._holding_since = self.count.steps
        else:
            self._holding_since = None
        keep = self._homestead_time() and state.achievements.get("place_plant", 0) > 0
        keep = keep and inv["sapling"] <= HOME_PLANTS
        if state.faced == ("grass", NONE) and inv["sapling"] >= 1 and not keep:  # (else kept for the homestead)
            back1, back2 = self._behind(state, 1), self._behind(state, 2)
            closable = inv["stone"] >= 1 and all(self.nav._free(p) for p in (back1, back2))
            if closable and self._walled(faced, state.pos):
                self.gardens[faced] = {"door": state.pos, "at": self.count.steps}
                self._close(state)
                return "place_plant"
            waited = self.count.steps - (self._holding_since or self.count.steps)
            first = state.achievements.get("place_plant", 0) == 0
            if first or waited >= PLANT_ANYWHERE:
                self.gardens[faced] = {"door": None, "at": self.count.steps}
                return "place_plant"
        living = sum(1 for c in self.gardens if self.nav.creatures.get(c, "plant").startswith("plant"))
        wanted = state.achievements.get("collect_sapling", 0) == 0 or living < GARDENS
        hold = SAPLINGS
        if self._homestead_time() and self.settled_at is None and not self._trip:  # the homestead's walls
            wanted, hold = True, max(SAPLINGS, self.settle_plants)
        retry = self.sapling_retry and hold > SAPLINGS
        if state.faced == ("grass", NONE) and inv["sapling"] < hold and wanted and (retry or faced not in self._tried):
            self._tried.add(faced)  # one try per cell (unless retrying: a tenth of the tries give a sapling)
            return "do"
        return None

    def _close(self, state: SymState) -> None:
        """After planting from the door: step back twice, turn, wall the door with a stone."""
        d = next(k for k, v in DIRECTIONS.items() if v == state.facing)
        back = next(k for k, v in DIRECTIONS.items() if v == (-state.facing[0], -state.facing[1]))
        door, b1, b2 = state.pos, self._behind(state, 1), self._behind(state, 2)
        self._macro = [(MOVES[back], door), (MOVES[back], b1), (MOVES[d], b2), ("place_stone", b1)]

    def _after_eating(self, state: SymState, plant: tuple[int, int]) -> None:
        g = self.gardens.get(plant)
        if g is None:
            return
        g["at"] = self.count.steps
        if g["door"] == state.pos and state.inventory["stone"] >= 1:
            b1, b2 = self._behind(state, 1), self._behind(state, 2)
            if all(self.nav._free(p) for p in (b1, b2)):
                self._close(state)

    def _visit(self, state: SymState, ripe_only: bool = False) -> str | None:
        """A step towards eating a garden's plant: seen ripe, or due (see RIPE_AFTER; not when ``ripe_only``)."""
        for cell, g in self.gardens.items():
            kind = self.nav.creatures.get(cell)
            if kind is None and cell in self.nav.cells and self.nav.cells.get(cell) != "grass":
                continue
            due = kind == "plant-ripe" or (
                not ripe_only and kind == "plant" and self.count.steps - g["at"] >= RIPE_AFTER
            )
            if not due:
                continue
            door = g["door"]
            if door is not None and self.nav.cells.get(door) == "stone":
                if state.inventory["wood_pickaxe"] < 1:
                    continue
                step = self.nav.face(state, [door])
                if step == "":
                    return "do"  # open the garden (the stone comes back into the inventory)
                if step:
                    return step
                continue
            step = self.nav.face(state, [cell])
            if step == "":
                if kind == "plant-ripe":
                    return "do"
                g["at"] = self.count.steps - RIPE_AFTER + 50  # not ripe yet: look again later
                continue
            if step:
                return step
            if MINE_IN and state.inventory["wood_pickaxe"] >= 1:
                # walled in on every side (a pocket's plant, its pocket shut): mine a stone next to it, step in
                stones = [
                    (cell[0] + dx, cell[1] + dy)
                    for dx, dy in DIRECTIONS.values()
                    if self.nav.cells.get((cell[0] + dx, cell[1] + dy)) == "stone"
                ]
                step = self.nav.face(state, stones)
                if step == "":
                    return "do"
                if step:
                    return step
        return None

    def _wants_rest(self, state: SymState) -> bool:
        """Hurt (health ≤ ``HEAL_BELOW``): shelter and rest until health is back to ``HEALED`` (health regrows while
        food, drink and energy are above 0, twice as fast asleep)."""
        if not self.survival:
            return False
        hp = state.inventory["health"]
        inv = state.inventory
        if hp <= HEAL_BELOW and min(inv["food"], inv["drink"]) > FED:
            self._healing = True
        elif hp >= HEALED or min(inv["food"], inv["drink"]) <= FED:
            self._healing = False  # healed, or hungry or thirsty: healing stops while either is at 0
        return self._healing

    # -- acting -----------------------------------------------------------------------------------------------
    def act(self, state: SymState) -> str:
        """The macro under way, then the garden's chances (in daylight, unhurt), else the planner."""
        if not self.world_map:  # the ablation: the map holds only what is in view now
            self.nav.cells.clear()
            self.nav.creatures.clear()
        self.nav.see(state)
        self._now += 1
        for pos in state.view:
            self._seen_at[pos] = self._now
        if state.sleeping:
            return "noop"
        if self.settled_at is not None:
            got = self._settled(state)
            if got:
                self._light = state.daylight
                return got
        try:
            walled = self._wall_in(state)
        finally:
            self._light = state.daylight
        if walled:
            return walled
        if not self._macro:
            leave = self._leave(state)
            if leave:
                return leave
        if self._macro:
            action, start = self._macro.pop(0)
            if state.pos == start:
                return action
            self._macro = []  # something moved us (a creature in the way): give up the closing
        hunt = self._hunt(state) or self._grab(state)
        if hunt:
            return hunt
        if self.survival:  # flee arrows only when they are close and no need is pressing (else it dithers and starves)
            inv = state.inventory
            close = any(
                k in ("skeleton", "arrow") and abs(p[0] - state.pos[0]) + abs(p[1] - state.pos[1]) <= FLEE_WITHIN
                for p, k in state.creatures.items()
            )
            self.flee_below = 6 if close and min(inv["food"], inv["drink"]) > 2 else 0
        calm = state.daylight >= DUSK and state.inventory["health"] >= 4 and not _zombie_near(state)
        needy = min(state.inventory["food"], state.inventory["drink"]) <= 3
        if RIPE_IS_FOOD and self.cheap_first and state.inventory["food"] < LOW and not _zombie_near(state, 1):
            # a plant seen ripe is food: hungry, hurt or in the dark, it goes to eat it before any cow
            got = self._visit(state, ripe_only=True)
            if got:
                return got
        # saplings and gardens wait while food or drink run low (a ripe plant in front is food: eaten)
        if calm and self.cheap_first and (not needy or state.faced[1] == "plant-ripe"):
            got = self._garden(state)
            if got:
                return got
            inv = state.inventory
            thirsty = inv["drink"] <= 4 or inv["food"] <= 3  # the planner's urgent needs come first
            if not thirsty and (inv["food"] < 9 or not state.achievements.get("eat_plant")):
                got = self._visit(state)
                if got:
                    return got
        return super().act(state)

    def _grab(self, state: SymState) -> str | None:
        """Facing stone, coal, iron or a diamond the documented gates allow mining, with fewer than ``FULL``: mine it
        (one step; stones are the night's walls and the furnace's price). Never while sealed in or in the dark (a
        pocket's wall), nor a cell next to a garden's plant (its wall)."""
        if not (GRAB and self.cheap_first) or state.daylight < DUSK or self.nav.sealed(state):
            return None
        material = state.faced[0]
        call = f"do_{material}"
        if material not in MINED or state.inventory[material] >= FULL or state.faced[1] != NONE:
            return None
        if not all(_holds(state, c) for c in DOCUMENTED.get(call, ())):
            return None
        cell = (state.pos[0] + state.facing[0], state.pos[1] + state.facing[1])
        if any(abs(cell[0] - g[0]) + abs(cell[1] - g[1]) == 1 for g in self.gardens):
            return None
        return "do"

    def _hunt(self, state: SymState) -> str | None:
        """``defeat_skeleton`` taken when the situation offers it: a skeleton within ``HUNT_WITHIN`` cells, a sword
        in hand and health at least ``HUNT_HEALTH`` (a skeleton has 3 health, a stone sword hits for 3); once
        defeated, skeletons are fled from as before."""
        inv = state.inventory
        if not self.cheap_first or state.achievements.get("defeat_skeleton", 0) > 0 or inv["health"] < HUNT_HEALTH:
            return None
        if inv["wood_sword"] + inv["stone_sword"] + inv["iron_sword"] < 1:
            return None
        px, py = state.pos
        if not any(
            k == "skeleton" and abs(p[0] - px) + abs(p[1] - py) <= HUNT_WITHIN for p, k in state.creatures.items()
        ):
            return None
        got = self._resolve(state, "do_skeleton")
        return got[0] if got is not None else None

    def _wall_in(self, state: SymState) -> str | None:
        """The night (or tiredness, or hurt): sleep in a sealed pocket, walling one in with stones where it stands
        when none is sealed (:func:`.navigation.pocket_plan`); None when it is not time, or no pocket can be made
        (the planner's shelter, a dug pocket or a dead end, takes over)."""
        inv = state.inventory
        if not (self.survival and self.pocket) or inv["drink"] <= self.rest_needs or inv["food"] <= self.rest_needs:
            return None
        falling = state.daylight < self._light
        dark = state.daylight < (WALL_IN if falling else WALL_OUT if min(inv["food"], inv["drink"]) > 2 else DUSK)
        # a zombie lurking near a sealed pocket keeps it shut while food and drink last (health does not drain
        # while both are above 0; daylight thins the zombies out): opening it to one is how most nights ended
        lurking = _zombie_near(state, LURK) and min(inv["food"], inv["drink"]) > LURK_FED
        sealed = self.nav.sealed(state)
        staying = sealed and self._stay(state)
        # the afternoon, saplings in hand: build the homestead in daylight (a plant set while zombies roam dies)
        building = (
            HOME_AFTERNOON
            and self._homestead_ready(state)
            and falling
            and state.daylight < AFTERNOON
            and inv["food"] >= SETTLE_FOOD
            and self.count.steps - self._home_tried_at >= HOME_RETRY
            and bool(self.nav.cells_of(["water"]))
        )
        night = dark or inv["energy"] <= 3 or self._wants_rest(state) or (lurking and sealed) or staying
        back = self._trip and falling and state.daylight < TRIP_BACK
        if back and not sealed and not self._pocket:
            step = self._go_home(state)  # a day trip's way home: into the homestead's own cell, walled behind it
            if step:
                return step
        night = night or back
        if not (night or building or self._homing):
            self._pocket = []
            return None
        if not sealed and any(
            k == "zombie" and abs(p[0] - state.pos[0]) + abs(p[1] - state.pos[1]) == 1
            for p, k in state.creatures.items()
        ):
            return None  # a zombie next to the player: the planner fights it first
        if sealed:
            self._pocket, self._homing = [], False
            ripe = self._ripe_next(state)
            if ripe is not None:
                return ripe  # a garden's plant next to the pocket is ripe: eat it
            if inv["drink"] < 9 and inv["energy"] >= 9 or inv["drink"] <= 4:
                water = self._water_next(state)
                if water is not None:
                    return water  # water is a wall: drink from inside the pocket
            return "sleep" if inv["energy"] < 9 else "noop"
        if building and not self._pocket:
            step = self._to_site(state)
            if step:
                return step
        home = None if building else self._home(state)
        if home is not None and falling and not self._pocket:
            return home
        if self._pocket and self._pocket[0][1:] == (state.pos, state.facing):
            return self._pocket_step(state)
        self._pocket = []
        self._homing = False
        if self.count.steps - self._no_pocket_at < REPLAN:
            return None
        # a plant open on two sides is no wall: a zombie next to it kills it and walks into the pocket (seen on
        # the training worlds); marked as a creature while planning, no pocket is built against it
        exposed = {c: k for c, k in self.nav.creatures.items() if k.startswith("plant") and self._exposed(c)}
        exposed = exposed if SAFE_WALLS else {}
        self.nav.creatures.update({c: "exposed-" + k for c, k in exposed.items()})
        try:
            plan = self._plan(state, night)
        finally:
            self.nav.creatures.update(exposed)
        if not plan:
            self._no_pocket_at = self.count.steps
            return None
        self._pocket = plan
        return self._pocket_step(state)

    def _way_out(self) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]] | None:
        """The homestead's door for a day trip: ``(a, b, w)`` with ``a``, ``b`` its two cells and ``w`` the stone wall
        in line with them beyond ``a``, with a free cell beyond it (to step out and back). A player faces a cell it
        could walk into only by walking in from the opposite side, so only a wall in line with the pocket can be
        walled again from inside (coming back from ``b`` to ``a`` faces ``w``); None when the homestead has none."""
        nav = self.nav
        if self._home_pair is None:
            return None
        for a, b in (self._home_pair, self._home_pair[::-1]):
            out = (a[0] - b[0], a[1] - b[1])
            w = (a[0] + out[0], a[1] + out[1])
            beyond = (w[0] + out[0], w[1] + out[1])
            if nav.cells.get(w) == "stone" and w not in nav.creatures and nav._free(beyond):
                return a, b, w
        return None

    def _go_out(self, state: SymState) -> str | None:
        """A step of leaving the homestead on a day trip through its door (see :meth:`_way_out`): face the door
        (from ``b`` back to ``a``), mine it, step out twice, come back a step facing the pocket and fill ``a`` with a
        stone (its plants stay walled in while it is away); None when there is no door or no pickaxe to mine it.

        >>> s = Survivor(homestead=True)
        >>> s.nav.cells.update({(x, 0): "stone" for x in range(6)} | {(2, 0): "grass", (3, 0): "grass", (0, 0): "grass"})
        >>> s._home_pair = ((2, 0), (3, 0))
        >>> from .env import SymState
        >>> at = SymState({"wood_pickaxe": 1}, (2, 0), (-1, 0), ("stone", "none"), {}, {}, {}, {}, False, 0.95, {})
        >>> s._go_out(at), s._door  # facing the wall (1, 0) in line with the pocket: mine it, then out
        ('do', ((2, 0), (3, 0), (1, 0)))
        """
        door = self._way_out()
        if door is None or state.inventory["wood_pickaxe"] < 1:
            return None  # no door, or nothing to mine it with (it could not get back in either)
        a, b, w = door
        out = (w[0] - a[0], w[1] - a[1])
        if state.pos == b:
            return _move_to(b, a)
        if state.pos != a:
            return None
        if state.facing != out:
            return _move_to(a, b) if self.nav._free(b) else None
        self._macro = _out_and_fill(a, out)
        self._door = door
        return "do"

    def _go_home(self, state: SymState) -> str | None:
        """A step of a day trip's way home, back in through the door it left by (:meth:`_go_out`): mine the stone
        in ``a``, step in to ``b`` and back to ``a`` (which faces the door ``w``), and wall ``w`` again. None when no
        step leads there (a pocket is made where it stands, as on any night)."""
        if self._door is None:
            return None
        nav, pos = self.nav, state.pos
        a, b, w = self._door
        inward, outward = (b[0] - a[0], b[1] - a[1]), (a[0] - b[0], a[1] - b[1])
        if pos == b:
            return _move_to(b, a) if nav._free(a) else None
        if pos == a:
            if state.facing == outward:  # back from b: facing the door
                if not nav._free(w):
                    return None  # walled: sealed, the homestead takes over
                return "place_stone" if state.inventory["stone"] >= 1 else None
            return _move_to(a, b) if nav._free(b) else None
        if pos == w:
            if nav.cells.get(a) == "stone":  # filled behind it when it left: mined open
                return "do" if state.facing == inward else _toward(inward)
            return _move_to(w, a) if nav._free(a) else None
        if nav._free(w):
            return nav._walk_to(state, [w]) or None
        step = nav.face(state, [w])
        return "do" if step == "" else step or None

    def _pocket_step(self, state: SymState) -> str:
        """The plan's next action; a sapling planted as one of the pocket's walls is a garden (walled in)."""
        action = self._pocket.pop(0)[0]
        if action == "place_plant":
            faced = (state.pos[0] + state.facing[0], state.pos[1] + state.facing[1])
            self.gardens[faced] = {"door": None, "at": self.count.steps}
        return action

    def _exposed(self, cell: tuple[int, int]) -> bool:
        return sum(self.nav.cells.get((cell[0] + dx, cell[1] + dy)) in OPEN for dx, dy in DIRECTIONS.values()) >= 2

    def _settled(self, state: SymState) -> str | None:
        """Life in the homestead: eat a ripe plant once food is at or below ``EAT_AT``, drink, sleep whenever it can
        (asleep, food and drink last twice as long); a fed morning, a day trip (``TRIPS``, :meth:`_go_out`); None
        (and no longer settled) once it is not sealed."""
        if not self.nav.sealed(state):
            self.settled_at = None
            return None
        inv = state.inventory
        cells = [state.pos, *self.nav._open_around(state.pos)]
        if inv["food"] == 0 and inv["health"] <= self.starving and not self._ripening(cells, SOON):
            self.settled_at, self._left_at = None, self.count.steps  # starving, no plant ripe soon: out for a cow
            return None
        rising = state.daylight >= WALL_OUT and state.daylight > self._light
        fed = min(inv["food"], inv["drink"], inv["health"]) >= TRIP_FED and inv["energy"] >= TRIP_FED
        if self._trips < TRIPS and rising and fed and not _zombie_near(state, LURK):
            # the morning, fed: out for the day's goals (its plants stay walled in, and grow while it is near)
            if self._home_pair is None or state.pos not in self._home_pair:
                opens = self.nav._open_around(state.pos)
                self._home_pair = (state.pos, opens[0]) if len(opens) == 1 else None
            step = self._go_out(state) if self._home_pair is not None else None
            if step == "do":
                self.settled_at, self._left_at, self._trip = None, self.count.steps, True
                self._trips += 1
                self._trip_unlocked = _unlocked(state)
            if step:
                return step
        wants = []
        if inv["food"] <= EAT_AT:
            wants.append(lambda c: self.nav.creatures.get(c) == "plant-ripe")
        if inv["drink"] < FULL:
            wants.append(lambda c: self.nav.cells.get(c) == "water")
        for want in wants:
            for cell in cells:
                for d, (dx, dy) in DIRECTIONS.items():
                    target = (cell[0] + dx, cell[1] + dy)
                    if not want(target):
                        continue
                    if cell != state.pos:
                        return _move_to(state.pos, cell)  # the pocket's other cell is beside it
                    if state.facing != (dx, dy):
                        return MOVES[d]  # a move towards a wall only turns
                    garden = self.gardens.get(target)
                    if garden is not None and self.nav.creatures.get(target) == "plant-ripe":
                        garden["at"] = self.count.steps  # eaten now: due again RIPE_AFTER steps from here
                    return "do"
        return "sleep" if inv["energy"] < FULL else "noop"

    def _ripening(self, cells: list[tuple[int, int]], within: int) -> bool:
        """A garden's plant next to these cells is ripe, or due within ``within`` steps (by ``RIPE_AFTER``, the
        agent's estimate)."""
        for c in cells:
            for dx, dy in DIRECTIONS.values():
                g = (c[0] + dx, c[1] + dy)
                kind = self.nav.creatures.get(g, "")
                if kind == "plant-ripe" or (
                    kind == "plant"
                    and g in self.gardens
                    and self.count.steps - self.gardens[g]["at"] >= RIPE_AFTER - within
                ):
                    return True
        return False

    def _homestead_time(self) -> bool:
        """The homestead is on, and ``HOME_AFTER`` steps have passed (the days before are for the achievements)."""
        return self.homestead and bool(self.settle_plants) and self.count.steps >= self.home_after

    def _homestead_ready(self, state: SymState) -> bool:
        """Saplings enough in hand for a homestead's walls, not settled yet."""
        return self._homestead_time() and self.settled_at is None and state.inventory["sapling"] >= self.settle_plants

    def _to_site(self, state: SymState) -> str | None:
        """A step towards the cheapest known homestead site (:func:`.navigation.homestead_sites`: a pocket beside
        water with room for its plants); None once there, or when no site is known or the way is blocked."""
        inv = state.inventory
        if self._site is None:
            walls = inv["stone"] + inv["wood"] // 2  # a homestead needs no way out: tables may wall it anywhere
            sites = homestead_sites(self.nav, state, walls, self.settle_plants, fire_cost=ARROW_COST)
            if not sites:
                self._home_tried_at = self.count.steps
                return None
            self._site = sites[0][1]
        if abs(self._site[0] - state.pos[0]) + abs(self._site[1] - state.pos[1]) <= 1:
            return None
        if self._walked.get(state.pos, 0) >= 3:  # a creature in the way: the plan decides from here
            return None
        self._walked[state.pos] = self._walked.get(state.pos, 0) + 1
        return self.nav._walk_to(state, [self._site]) or None

    def _plan(self, state: SymState, night: bool = True) -> list[tuple[str, tuple[int, int], tuple[int, int]]] | None:
        """The homestead's plan when saplings are in hand and water is near (see ``SETTLE_PLANTS``), else the night's
        pocket (None when no night, tiredness or hurt calls for one: the homestead was the only reason)."""
        inv = state.inventory
        tables = inv["wood"] // 2 if inv["stone"] >= 1 and inv["wood_pickaxe"] >= 1 else 0
        water = frozenset(self._water_near(state))
        fed = inv["food"] >= SETTLE_FOOD or (self.night_home and night)
        if self._homestead_ready(state) and fed and water and self.count.steps - self._home_tried_at >= HOME_RETRY:
            self._home_tried_at = self.count.steps  # a costly search: once an evening
            plan = None
            for radius, tries, guarded in self.home_plans:  # the first of the ways to plan that finds one
                plan = pocket_plan(
                    self.nav,
                    state,
                    inv["stone"],
                    mine=inv["wood_pickaxe"] >= 1,
                    tables=inv["wood"] // 2,
                    sapling=inv["sapling"],
                    plants=self.settle_plants,
                    beside=water,
                    fewest=self.settle_plants,
                    guarded=guarded,
                    radius=radius,
                    tries=tries,
                    limit=HOME_LIMIT,
                    fire_cost=ARROW_COST,
                )
                if plan is not None:
                    break
            self._site, self._walked = None, {}
            if plan is not None:
                self._homing = True
                return plan
        if not night:
            return None
        return pocket_plan(
            self.nav,
            state,
            inv["stone"],
            mine=inv["wood_pickaxe"] >= 1,
            prefer=self._plants() or water,
            # tables only beside a stone: a pocket walled by tables, trees and water alone has no way out (a table
            # cannot be mined) and starved the player inside
            tables=tables,
            sapling=inv["sapling"] if PLANT_IN_POCKET else 0,
            plants=HOME_PLANTS,
            fire_cost=ARROW_COST,
        )

    def _plants(self) -> list[tuple[int, int]]:
        """The gardens whose plant is still there, as last seen."""
        return [c for c in self.gardens if self.nav.creatures.get(c, "").startswith("plant")]

    def _home(self, state: SymState) -> str | None:
        """The evening: a step towards the nearest living garden (within ``HOME_RANGE``), so that the night's pocket
        is dug next to it and the plant grows while the player sleeps (a plant grows only near the player)."""
        near = [g for g in self._plants() if abs(g[0] - state.pos[0]) + abs(g[1] - state.pos[1]) <= self.home_range]
        if not near or min(abs(g[0] - state.pos[0]) + abs(g[1] - state.pos[1]) for g in near) <= 2:
            return None
        r = HOME_REACH  # > 0: any free cell that close (a plant walled in a pocket has no free neighbour to reach)
        square = [(dx, dy) for dx in range(-r, r + 1) for dy in range(-r, r + 1)] if r else DIRECTIONS.values()
        around = [(g[0] + dx, g[1] + dy) for g in near for dx, dy in square]
        step = self.nav._walk_to(state, [c for c in around if self.nav._free(c)])
        return step or None

    def _water_near(self, state: SymState, radius: int = 6) -> list[tuple[int, int]]:
        """Known water within ``radius``: a pocket beside it is ranked first when no garden is near (water is a
        wall, and the player drinks from inside)."""
        px, py = state.pos
        return [c for c in self.nav.cells_of(["water"]) if abs(c[0] - px) <= radius and abs(c[1] - py) <= radius]

    def _water_next(self, state: SymState) -> str | None:
        for d, (m, _kind) in state.neighbours.items():
            if m == "water":
                return "do" if DIRECTIONS[d] == state.facing else MOVES[d]  # a move towards water only turns
        return None

    def _ripe_next(self, state: SymState) -> str | None:
        for d, (_m, kind) in state.neighbours.items():
            if kind == "plant-ripe":
                if DIRECTIONS[d] != state.facing:
                    return MOVES[d]  # a move towards a plant only turns
                g = self.gardens.get((state.pos[0] + DIRECTIONS[d][0], state.pos[1] + DIRECTIONS[d][1]))
                if g is not None:
                    g["at"] = self.count.steps
                return "do"
        if not STAY:
            return None
        for other in self.nav._open_around(state.pos):  # the pocket's other cell: a step there when it is next to one
            if any(
                self.nav.creatures.get((other[0] + dx, other[1] + dy)) == "plant-ripe" for dx, dy in DIRECTIONS.values()
            ):
                return MOVES[
                    next(d for d, v in DIRECTIONS.items() if v == (other[0] - state.pos[0], other[1] - state.pos[1]))
                ]
        return None

    def _stay(self, state: SymState) -> bool:
        """Sealed beside its own plants: stay in (sleeping, eating them, drinking from inside) while water is next to
        the pocket or drink lasts, and food lasts or a plant is nearly ripe (``STAY``); on a day trip only once
        the daylight falls below ``TRIP_BACK`` (back home, it settles again)."""
        if not STAY or (self._trip and state.daylight >= TRIP_BACK):
            return False
        inv = state.inventory
        cells = [state.pos, *self.nav._open_around(state.pos)]
        near = {(c[0] + dx, c[1] + dy) for c in cells for dx, dy in DIRECTIONS.values()}
        mine = [g for g in near if g in self.gardens and self.nav.creatures.get(g, "").startswith("plant")]
        if not mine:
            return False
        water = any(self.nav.cells.get(c) == "water" for c in near)
        recent = self.count.steps - self._left_at < RETURN_AFTER and not self._trip
        settles = self._homestead_time() and water and len(mine) >= self.settle_plants and not recent
        if self.settled_at is not None or settles:
            if self.settled_at is None:
                self.settled_at = self.count.steps
                if self._trip and _unlocked(state) == self._trip_unlocked:
                    self._trips = TRIPS  # the trip unlocked nothing new: no more trips
                self._trip = False
                if self.first_settled_at is None:
                    self.first_settled_at = self.settled_at
            return True  # the homestead: its plants feed it, the water is next to it, no creature reaches it
        if not water and inv["drink"] <= STAY_BELOW:
            return False
        soon = any(
            self.nav.creatures.get(g) == "plant-ripe" or self.count.steps - self.gardens[g]["at"] >= RIPE_AFTER - 100
            for g in mine
        )
        return inv["food"] > STAY_BELOW or soon

    def _leave(self, state: SymState) -> str | None:
        """The morning, sealed next to a garden: mine out, step on, come back facing the pocket and wall it (the
        plant stays walled in while the player is away)."""
        if not (self.nav.sealed(state) and self._plants_next(state)):
            return None
        f = state.facing
        wall = (state.pos[0] + f[0], state.pos[1] + f[1])
        beyond = (wall[0] + f[0], wall[1] + f[1])
        if self.nav.cells.get(wall) != "stone" or not self.nav._free(beyond) or state.inventory["wood_pickaxe"] < 1:
            return None
        self._macro = _out_and_fill(state.pos, f)
        return "do"

    def _plants_next(self, state: SymState) -> bool:
        cells = {state.pos} | {
            (state.pos[0] + dx, state.pos[1] + dy)
            for dx, dy in DIRECTIONS.values()
            if self.nav.cells.get((state.pos[0] + dx, state.pos[1] + dy)) in OPEN
        }
        return any(
            self.nav.creatures.get((c[0] + dx, c[1] + dy), "").startswith("plant")
            for c in cells
            for dx, dy in DIRECTIONS.values()
        )


def _move_to(here: tuple[int, int], there: tuple[int, int]) -> str:
    """The move from a cell to the one beside it."""
    return _toward((there[0] - here[0], there[1] - here[1]))


def _out_and_fill(pos: tuple[int, int], out: tuple[int, int]) -> list[tuple[str, tuple[int, int]]]:
    """The macro after mining the wall ahead (``out`` from ``pos``): through it, a step on, back a step (which faces
    the pocket: a move faces a free cell only by entering it) and a stone placed in the pocket cell ``pos`` — each
    action with the cell it must start from."""
    wall = (pos[0] + out[0], pos[1] + out[1])
    beyond = (wall[0] + out[0], wall[1] + out[1])
    return [(_toward(out), pos), (_toward(out), wall), (_toward((-out[0], -out[1])), beyond), ("place_stone", wall)]


def _unlocked(state: SymState) -> int:
    """How many achievements are unlocked (a day trip that adds none is the last)."""
    return sum(1 for v in state.achievements.values() if v > 0)


def _toward(direction: tuple[int, int]) -> str:
    """The move in this direction (towards a cell it cannot enter, it only turns the player to face it)."""
    return MOVES[next(d for d, v in DIRECTIONS.items() if v == direction)]


def _zombie_near(state: SymState, within: int = 3) -> bool:
    px, py = state.pos
    return any(k == "zombie" and abs(p[0] - px) + abs(p[1] - py) <= within for p, k in state.creatures.items())
