"""The navigation adapter: a map of the cells seen so far and the moves that reach or face a target.

This is the only Crafter-specific movement code the agents have (its line count is reported by the study).
It knows the grid, the four moves, that a move into a blocked cell only turns the player (so facing a tree, a
table or a cow is "move towards it"), and that the player can walk on what it has walked on: cells whose material
was seen under the player or entered by a move. It never walks into lava.

>>> from .env import CrafterWorld
>>> w = CrafterWorld(seed=1); nav = Navigator(); nav.see(w.state)
>>> nav.known("grass") > 0
True
"""

from __future__ import annotations

import inspect
import re
from collections import deque
from collections.abc import Callable, Iterable
from itertools import combinations

from crafter import constants, objects

from ...validation import need_int
from .env import DIRECTIONS, SymState

__all__ = ["Navigator", "MOVES", "in_line_of_fire"]

MOVES = {d: f"move_{d}" for d in DIRECTIONS}
WALKABLE = frozenset({"grass", "sand", "path"})  # what the player has walked on; lava is never entered


#: said after a bad ``limit``: what it bounds
LIMIT_HINT = "the most cells a search may visit, e.g. 4000"
#: said after a bad ``fire_cost``
FIRE_HINT = "the rank added to a pocket in an arrow's line over water (0: not looked at), e.g. 1000"


class Navigator:
    """Remembers every cell seen (material, creature) and plans moves over walkable known cells (BFS)."""

    def __init__(self, walkable: Iterable[str] = WALKABLE) -> None:
        self.cells: dict[tuple[int, int], str] = {}
        self.creatures: dict[tuple[int, int], str] = {}
        self.walkable = frozenset(walkable)
        self._goal: tuple[int, int] | None = None  # the frontier cell being walked to

    def see(self, state: SymState) -> None:
        """Fold the local view into the map (creatures are only where they were last seen in view)."""
        self.cells.update(state.view)
        for pos in state.view:
            self.creatures.pop(pos, None)
        self.creatures.update(state.creatures)

    def known(self, material: str) -> int:
        """How many seen cells hold this material."""
        return sum(1 for m in self.cells.values() if m == material)

    def _free(self, pos: tuple[int, int]) -> bool:
        return self.cells.get(pos) in self.walkable and pos not in self.creatures

    def face(self, state: SymState, targets: Iterable[tuple[int, int]], limit: int = 4000) -> str | None:
        """The move towards standing next to one of the target cells and facing it; None when none is reachable.

        When already next to a target and facing it, returns "" (nothing to do).
        """
        need_int("limit", limit, min=1, hint=LIMIT_HINT)
        goal = set(targets)
        if not goal:
            return None
        start = state.pos
        fx, fy = start[0] + state.facing[0], start[1] + state.facing[1]
        if (fx, fy) in goal:
            return ""
        for d, (dx, dy) in DIRECTIONS.items():  # adjacent: turn towards it (a blocked move only turns)
            nxt = (start[0] + dx, start[1] + dy)
            if nxt in goal and not self._free(nxt) and self.cells.get(nxt) != "lava":  # lava is entered, not faced
                return MOVES[d]
        first: dict[tuple[int, int], str | None] = {start: None}
        queue = deque([start])
        while queue and len(first) < limit:
            here = queue.popleft()
            for d, (dx, dy) in DIRECTIONS.items():
                nxt = (here[0] + dx, here[1] + dy)
                if nxt in goal and here != start:
                    return first[here]
                if nxt in first or not self._free(nxt):
                    continue
                first[nxt] = MOVES[d] if first[here] is None else first[here]
                queue.append(nxt)
        return None

    def cells_of(self, materials: Iterable[str]) -> list[tuple[int, int]]:
        """Every seen cell holding one of the materials."""
        wanted = set(materials)
        return [p for p, m in self.cells.items() if m in wanted]

    def creatures_of(self, kinds: Iterable[str]) -> list[tuple[int, int]]:
        """Where creatures of these kinds were last seen."""
        wanted = set(kinds)
        return [p for p, k in self.creatures.items() if k in wanted]

    def frontier(self, state: SymState, rng) -> str:
        """A move towards the nearest walkable cell next to an unseen one (a random safe move when there is none)."""
        if self._goal is not None and self._goal != state.pos:
            step = self._walk_to(state, [self._goal])
            if step:
                return step
        unseen = [
            p
            for p, m in self.cells.items()
            if m in self.walkable
            and any((p[0] + dx, p[1] + dy) not in self.cells for dx, dy in DIRECTIONS.values())
            and p != state.pos
        ]
        rng.shuffle(unseen)  # which of the nearest frontier cells: by chance, then kept until reached
        step, self._goal = self._walk_to(state, unseen, remember=True)
        return step if step else self.safe_random(state, rng)

    def prospect(self, state: SymState, limit: int = 4000) -> str | None:
        """A step into the rock towards the unseen (a pickaxe in hand): over known walkable cells and known stone,
        mined on the way, to the nearest stone cell beside a cell never seen. Ores lie inside mountains, where a
        walk over walkable cells never looks. None when no such cell is reachable.

        >>> from .env import CrafterWorld
        >>> w = CrafterWorld(seed=1); nav = Navigator(); nav.see(w.state)
        >>> nav.prospect(w.state) in (None, "do", *MOVES.values())
        True
        """
        need_int("limit", limit, min=1, hint=LIMIT_HINT)
        start = state.pos
        first: dict[tuple[int, int], str] = {}
        queue = deque([start])
        while queue and len(first) < limit:
            here = queue.popleft()
            for d, (dx, dy) in DIRECTIONS.items():
                nxt = (here[0] + dx, here[1] + dy)
                if nxt == start or nxt in first:
                    continue
                stone = self.cells.get(nxt) == "stone" and nxt not in self.creatures
                if not (stone or self._free(nxt)):
                    continue
                first[nxt] = first.get(here, d)
                if stone and any((nxt[0] + ex, nxt[1] + ey) not in self.cells for ex, ey in DIRECTIONS.values()):
                    return self._first_step(state, first[nxt])
                queue.append(nxt)
        return None

    def _walk_to(self, state: SymState, cells: list[tuple[int, int]], limit: int = 4000, remember: bool = False):
        goal = set(cells)
        start = state.pos
        first: dict[tuple[int, int], str | None] = {start: None}
        queue = deque([start])
        while queue and len(first) < limit:
            here = queue.popleft()
            if here in goal and here != start:
                return (first[here], here) if remember else first[here]
            for d, (dx, dy) in DIRECTIONS.items():
                nxt = (here[0] + dx, here[1] + dy)
                if nxt in first or not self._free(nxt):
                    continue
                first[nxt] = MOVES[d] if first[here] is None else first[here]
                queue.append(nxt)
        return (None, None) if remember else None

    def _free_around(self, p: tuple[int, int]) -> list[tuple[int, int]]:
        return [(p[0] + dx, p[1] + dy) for dx, dy in DIRECTIONS.values() if self._free((p[0] + dx, p[1] + dy))]

    def _open_around(self, p: tuple[int, int]) -> list[tuple[int, int]]:
        cells = [(p[0] + dx, p[1] + dy) for dx, dy in DIRECTIONS.values()]  # a plant is a wall: it never moves
        return [
            q for q in cells if self.cells.get(q) in self.walkable and not self.creatures.get(q, "").startswith("plant")
        ]

    def sealed(self, state: SymState) -> bool:
        """The player's walkable region is at most two cells (nothing can walk in). By material only: a creature
        standing in the way is not a wall (a cow moves on, a zombie at the entrance is not shut out)."""
        free = self._open_around(state.pos)
        return not free or (len(free) == 1 and self._open_around(free[0]) == [state.pos])

    def shelter(self, state: SymState, block: str | None, limit: int = 800, dig: bool = False) -> str | None:
        """A step towards a sealed pocket of two cells: a dead end P, its opening C, and the entrance X on the line
        P→C, which the player blocks (``block``: "place_stone" or "place_table") standing on C facing X after
        stepping back from P. "" when sealed, None when no such pocket is known (or nothing to block with).
        ``dig`` (a pickaxe in hand): when no pocket is known, a stone cell walled on its three other sides (by
        known cells that are neither walkable nor lava) is mined to make one ("do" when facing it)."""
        need_int("limit", limit, min=1, hint=LIMIT_HINT)
        if self.sealed(state):
            return ""
        pos, (fx, fy) = state.pos, state.facing
        ahead = (pos[0] + fx, pos[1] + fy)
        behind = (pos[0] - fx, pos[1] - fy)
        # on C, having come from P: block X when it is the only other way in
        if block and self._free(ahead) and set(self._free_around(pos)) <= {ahead, behind}:
            if self._free(behind) and self._free_around(behind) == [pos]:
                return block
        pockets = []
        for p in self.cells:
            if not self._free(p) and p != pos:
                continue
            around = self._free_around(p)
            if len(around) != 1 and not (p == pos and len(around) <= 1):
                continue
            c = around[0] if around else None
            if c is None:
                continue
            x = (2 * c[0] - p[0], 2 * c[1] - p[1])
            if set(self._free_around(c)) - {p, x} or (self._free(x) and not block):
                continue
            pockets.append(p)
        if not pockets and dig:
            return self._dig(state)
        if not pockets:
            return None
        if pos in pockets:  # at P: step back onto C (the move faces X)
            c = self._free_around(pos)[0]
            return MOVES[next(d for d, (dx, dy) in DIRECTIONS.items() if (pos[0] + dx, pos[1] + dy) == c)]
        step = self._walk_to(state, pockets)
        return step or None

    def _dig(self, state: SymState) -> str | None:
        def walled(p: tuple[int, int], c: tuple[int, int]) -> bool:
            around = [(p[0] + dx, p[1] + dy) for dx, dy in DIRECTIONS.values()]
            return all(q == c or self.cells.get(q) not in self.walkable | {None, "lava"} for q in around)

        stones = []
        for p, m in self.cells.items():
            if m != "stone" or p in self.creatures:
                continue
            free = self._free_around(p)
            if len(free) == 1 and walled(p, free[0]):
                stones.append(p)
        step = self.face(state, stones) if stones else None
        return "do" if step == "" else step

    def approach(
        self,
        state: SymState,
        material: str,
        enter: bool = False,
        dirs: Iterable[str] = DIRECTIONS,
        dig: bool = False,
        stand: Callable[[tuple[int, int]], bool] | None = None,
    ):
        """A step towards facing a cell of ``material`` having walked towards it (how a walkable or lava cell is
        faced: a move onto it would enter it), or with ``enter`` towards stepping onto it with one of the moves
        ``dirs``. "" when facing one (``enter``: never), None when none is reachable over known walkable cells.
        ``dig`` (a pickaxe in hand): known stone cells count as a way too, mined ("do") when the path reaches one.
        ``stand``: where the player may stand when it faces the cell (beside a table, say); anywhere when None."""
        dirs = [d for d in DIRECTIONS if d in set(dirs)]

        def hit(p: tuple[int, int], d: str) -> bool:
            return self.cells.get((p[0] + DIRECTIONS[d][0], p[1] + DIRECTIONS[d][1])) == material

        def ok(p: tuple[int, int]) -> bool:
            return stand is None or stand(p)

        def way(p: tuple[int, int]) -> bool:
            return self._free(p) or (dig and self.cells.get(p) == "stone" and p not in self.creatures)

        here = state.pos
        facing = next((d for d, v in DIRECTIONS.items() if v == state.facing), None)
        if not enter and facing in dirs and hit(here, facing) and ok(here):
            return ""
        if enter and any(hit(here, d) for d in dirs):
            return MOVES[next(d for d in dirs if hit(here, d))]
        first: dict[tuple[int, int], str] = {}  # cell -> the first direction of the path to it
        queue = deque([here])
        while queue and len(first) < 4000:
            p = queue.popleft()
            for d, (dx, dy) in DIRECTIONS.items():
                nxt = (p[0] + dx, p[1] + dy)
                if nxt in first or nxt == here or not way(nxt):
                    continue
                first[nxt] = first.get(p, d)
                if (hit(nxt, d) and d in dirs and ok(nxt)) if not enter else any(hit(nxt, e) for e in dirs):
                    return self._first_step(state, first[nxt])
                queue.append(nxt)
        return None

    def _first_step(self, state: SymState, d: str) -> str:
        """The move in direction d, or "do" when that cell is a stone the player faces (mined to open the way)."""
        ahead = (state.pos[0] + DIRECTIONS[d][0], state.pos[1] + DIRECTIONS[d][1])
        if self.cells.get(ahead) == "stone" and state.facing == DIRECTIONS[d]:
            return "do"
        return MOVES[d]

    def refuge(self, state: SymState, limit: int = 600) -> str | None:
        """A move towards the nearest known walkable cell with at most one walkable neighbour (a dead end, where
        one creature at a time can reach the player); "" when the player stands in one, None when none is known."""
        need_int("limit", limit, min=1, hint=LIMIT_HINT)

        def closed(p: tuple[int, int]) -> bool:
            free = sum(self.cells.get((p[0] + dx, p[1] + dy)) in self.walkable for dx, dy in DIRECTIONS.values())
            return free <= 1

        if closed(state.pos):
            return ""
        start = state.pos
        first: dict[tuple[int, int], str | None] = {start: None}
        queue = deque([start])
        while queue and len(first) < limit:
            here = queue.popleft()
            if here != start and closed(here):
                return first[here]
            for d, (dx, dy) in DIRECTIONS.items():
                nxt = (here[0] + dx, here[1] + dy)
                if nxt in first or not self._free(nxt):
                    continue
                first[nxt] = MOVES[d] if first[here] is None else first[here]
                queue.append(nxt)
        return None

    def away(self, state: SymState, danger: list[tuple[int, int]]) -> str | None:
        """The free move that most increases the distance to the nearest danger cell (None: no move helps)."""

        def dist(p: tuple[int, int]) -> int:
            return min(abs(p[0] - d[0]) + abs(p[1] - d[1]) for d in danger)

        here = dist(state.pos)
        best = None
        for d, (dx, dy) in DIRECTIONS.items():
            nxt = (state.pos[0] + dx, state.pos[1] + dy)
            if self._free(nxt) and dist(nxt) > here and (best is None or dist(nxt) > best[0]):
                best = (dist(nxt), MOVES[d])
        return None if best is None else best[1]

    def safe(self, state: SymState, action: str, rng) -> str:
        """The action, unless it is a move into lava (then a safe random move instead)."""
        d = action[len("move_") :] if action.startswith("move_") else None
        if d is not None and state.neighbours[d][0] == "lava":
            return self.safe_random(state, rng)
        return action

    def safe_random(self, state: SymState, rng) -> str:
        """A random move that does not enter lava (a blocked one just turns the player)."""
        options = [MOVES[d] for d, (m, _) in state.neighbours.items() if m != "lava"]
        return rng.choice(options or list(MOVES.values()))


PLANTS = 2  # at most this many saplings planted as walls of one pocket (each needs its own walls)
WALLS_OK = frozenset({"water", "stone", "tree", "coal", "iron", "diamond", "table", "furnace"})  # no creature walks
# what an arrow flies over and where a skeleton may stand, read from the game: water keeps zombies out, not arrows
ARROW_PASSES = frozenset(objects.Arrow.walkable)
SKELETON_STANDS = frozenset(constants.walkable)
FIRE_COST = 1000  # a pocket or site in an arrow's line over water ranks after any other (see pocket_plan)


def skeleton_reach(source: str | None = None) -> int:
    r"""The farthest (Manhattan) distance from which a Crafter skeleton shoots, read from the game's own code (a
    literal of ``objects.Skeleton.update``, not a data field; ``source``: that code, the installed package's unless
    given).

    >>> skeleton_reach("if dist <= 7 and self.random.uniform() < 0.5:\n      self._shoot(self.toward(self.player))")
    7
    """
    text = inspect.getsource(objects.Skeleton.update) if source is None else source
    found = re.search(r"if dist <= (\d+) and [^\n]*:\s*\n\s*self\._shoot\(", text)
    if found is None:
        raise RuntimeError(
            "crafter's Skeleton.update no longer reads `if dist <= N and ...: self._shoot(...)`, so the skeleton's "
            "shooting distance cannot be read from it; install the pinned version (pip install crafter==1.8.3)."
        )
    return int(found.group(1))


ARROW_REACH = skeleton_reach()  # cells from which the agent counts a skeleton as able to shoot it


def in_line_of_fire(nav: Navigator, cell: tuple[int, int], reach: int = ARROW_REACH) -> bool:
    """Whether an arrow could reach ``cell`` over water: a neighbour of it is water (or lava) and, further along the
    same line within ``reach`` cells, is a cell a skeleton may stand on, or one never seen, with only cells an arrow
    flies over in between. Such a cell is no safe pocket: seen on design worlds, a skeleton on the far shore of a
    narrow pond shot settled players asleep in their sealed homesteads.

    >>> nav = Navigator()
    >>> nav.cells.update({(0, y): m for y, m in enumerate(["grass", "water", "water", "sand", "stone"])})
    >>> in_line_of_fire(nav, (0, 0))  # the sand two cells across the water
    True
    >>> nav.cells[(0, 3)] = "stone"; in_line_of_fire(nav, (0, 0))  # a stone shuts the line
    False
    """
    need_int("reach", reach, min=1, hint="cells an arrow is feared from, e.g. 5")
    for dx, dy in DIRECTIONS.values():
        if nav.cells.get((cell[0] + dx, cell[1] + dy)) not in ARROW_PASSES - SKELETON_STANDS:
            continue  # no water (or lava) next to it on this side: a wall, or ground a creature is seen on
        for k in range(2, reach + 1):
            m = nav.cells.get((cell[0] + k * dx, cell[1] + k * dy))
            if m is None or m in SKELETON_STANDS:
                return True
            if m not in ARROW_PASSES:
                break
    return False


def pocket_plan(
    nav: Navigator,
    state: SymState,
    stones: int,
    mine: bool = False,
    radius: int = 5,
    tries: int = 6,
    limit: int = 30000,
    prefer: Iterable[tuple[int, int]] = (),
    tables: int = 0,
    sapling: int = 0,
    plants: int = PLANTS,
    beside: frozenset[tuple[int, int]] = frozenset(),
    fewest: int = 0,
    guarded: bool = False,
    fire_cost: int = 0,
) -> list[tuple[str, tuple[int, int], tuple[int, int]]] | None:
    """A plan that walls the player into a pocket of two adjacent cells with placed stones, anywhere: the steps
    ``(action, position, facing)`` it is taken from, or None when no pocket of at most ``stones`` stones is found.

    A cell is faced without entering it only when it is blocked or the player walked in from the opposite side, so
    one cell can never be closed from inside (the last open side is the one walked in by); two can: the last stone
    is placed from the second cell, facing away from the first. ``mine`` (a pickaxe in hand): a pocket cell may be a
    stone, mined first (which gives a stone back): a pocket dug into rock needs few stones. Candidate pairs near the
    player are ranked by the stones and steps they need; the plan for a pair is a breadth-first search over
    (position, facing, stones placed, cells mined). Creatures are walls while planning (the plan is redone when one
    moves in the way). Cells next to lava are never used. A plant is a wall (it never moves); a pocket next to a
    cell of ``prefer`` (the agent's own plants: they grow only near the player) is ranked first. ``tables``: how
    many tables it can place as walls once the stones are spent (a table is as good a wall). ``sapling`` (how
    many in hand): grass cells next to the pocket (up to that many, at most ``plants``) may be among its walls, planted
    ("place_plant") and walled in on their other sides too: plants no creature can reach, which grow while the player
    sleeps beside them; the pockets with the most plants rank first. ``beside``: when given, only pockets next to
    one of these cells (water, for a homestead: the player drinks from inside); ``fewest``: no plan with fewer
    plants; ``guarded``: each sapling is planted only once its outer sides are walled (a cow or zombie next to a
    plant kills it; the search is larger); ``fire_cost``: added to the rank of a pocket with a cell in an arrow's
    line over water (:func:`in_line_of_fire`; ``FIRE_COST``: tried after every other one with as many plants; 0:
    not looked at)."""
    need_int("fire_cost", fire_cost, min=0, hint=FIRE_HINT)
    need_int("limit", limit, min=1, hint=LIMIT_HINT)
    need_int("plants", plants, min=0, hint="the most saplings planted as walls, e.g. 2")
    need_int("fewest", fewest, min=0, hint="the fewest plants a plan may have (0: any), e.g. 3")
    pos = state.pos
    liked = set(prefer)

    def open_(p: tuple[int, int]) -> bool:
        return p == pos or nav._free(p)

    def minable(p: tuple[int, int]) -> bool:
        return mine and nav.cells.get(p) == "stone" and p not in nav.creatures

    pairs = []
    for x in range(pos[0] - radius, pos[0] + radius + 1):
        for y in range(pos[1] - radius, pos[1] + radius + 1):
            p = (x, y)
            if not (open_(p) or minable(p)):
                continue
            for q in ((x + 1, y), (x, y + 1)):
                if not (open_(q) or minable(q)):
                    continue
                if beside and not any(
                    (c[0] + dx, c[1] + dy) in beside for c in (p, q) for dx, dy in DIRECTIONS.values()
                ):
                    continue
                before = len(pairs)
                spots = _plant_spots(nav, pos, p, q) if sapling else []
                for k in range(min(sapling, plants, len(spots)) + 1):
                    for g in combinations(spots, k):
                        _rank(nav, pos, p, q, g, liked, open_, stones, tables, pairs)
                if fire_cost and len(pairs) > before and (in_line_of_fire(nav, p) or in_line_of_fire(nav, q)):
                    pairs[before:] = [(fire_cost + t[0], *t[1:]) for t in pairs[before:]]
    pairs.sort(key=lambda t: (t[0], t[1], t[2], t[4]))
    for k in sorted({len(t[4]) for t in pairs if len(t[4]) >= fewest}, reverse=True):  # fewer when none with more
        for _, p, q, walls, g in [t for t in pairs if len(t[4]) == k][:tries]:
            plan = _plan_pocket(nav, state, (p, q), sorted(walls), stones, limit, tables, plants=g, guarded=guarded)
            if plan is not None:
                return plan
    return None


def homestead_sites(
    nav: Navigator, state: SymState, walls: int, plants: int, limit: int = 4000, fire_cost: int = 0
) -> list[tuple[int, tuple[int, int], tuple[int, int]]]:
    """Known sites for a homestead, cheapest first: ``(cost, p, q)`` for a pocket of two free cells (p next to water)
    with ``plants`` grass cells next to it that can be planted and walled in with at most ``walls`` stones or
    tables. Cost: the walls to place plus the steps to walk to p (a breadth-first walk of at most ``limit`` cells
    from the player; unreachable sites are left out). ``fire_cost``: added to the cost of a site with a cell in an
    arrow's line over water (:func:`in_line_of_fire`; ``FIRE_COST``: after every other site; 0: not looked at).

    >>> from .env import SymState
    >>> nav = Navigator()
    >>> nav.cells.update({(x, y): "water" if y >= 3 else "grass" for x in range(8) for y in range(6)})
    >>> at = SymState({}, (4, 0), (0, 1), ("grass", "none"), {}, {}, {}, {}, False, 1.0, {})
    >>> homestead_sites(nav, at, walls=12, plants=3)[0]  # on the shore, right below the player
    (8, (4, 2), (3, 2))
    >>> homestead_sites(nav, at, walls=2, plants=3)  # too few walls for three plants anywhere
    []
    """
    need_int("walls", walls, min=0, hint="the stones and tables in hand, e.g. 9")
    need_int("plants", plants, min=1, hint="the plants a homestead needs, e.g. 3")
    need_int("limit", limit, min=1, hint=LIMIT_HINT)
    need_int("fire_cost", fire_cost, min=0, hint=FIRE_HINT)
    dist = {state.pos: 0}
    queue = deque([state.pos])
    while queue and len(dist) < limit:
        here = queue.popleft()
        for dx, dy in DIRECTIONS.values():
            nxt = (here[0] + dx, here[1] + dy)
            if nxt not in dist and nav._free(nxt):
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    sites = []
    for p in dist:
        if not any(nav.cells.get((p[0] + dx, p[1] + dy)) == "water" for dx, dy in DIRECTIONS.values()):
            continue
        fire_p = bool(fire_cost) and in_line_of_fire(nav, p)
        for dx, dy in DIRECTIONS.values():
            q = (p[0] + dx, p[1] + dy)
            if q not in dist:
                continue
            ranked: list = []
            for g in combinations(_plant_spots(nav, state.pos, p, q), plants):
                _rank(nav, p, p, q, g, set(), lambda c: c in dist, walls, 0, ranked)
            if ranked:
                need = min(len(t[3]) - plants for t in ranked)
                fire = fire_p or (bool(fire_cost) and in_line_of_fire(nav, q))
                sites.append((need + dist[p] + fire_cost * fire, p, q))
    sites.sort()
    return sites


def _plant_spots(nav: Navigator, pos: tuple[int, int], p: tuple[int, int], q: tuple[int, int]) -> list:
    """Grass cells next to the pocket (p, q) a sapling can be planted on (no creature on them, not the player's)."""
    spots = []
    for c in (p, q):
        for dx, dy in DIRECTIONS.values():
            g = (c[0] + dx, c[1] + dy)
            if g not in (p, q, pos) and nav.cells.get(g) == "grass" and g not in nav.creatures and g not in spots:
                spots.append(g)
    return spots


def _rank(nav: Navigator, pos, p, q, g, liked: set, open_: Callable, stones: int, tables: int, pairs: list) -> None:
    """Append (rank, p, q, walls, g) when the pocket (p, q), with plants on the cells g, can be walled in."""
    walls, ok = set(), True
    inside = (p, q, *g)
    for c in inside:
        for dx, dy in DIRECTIONS.values():
            n = (c[0] + dx, c[1] + dy)
            if n in inside:
                continue
            m = nav.cells.get(n)
            if m in nav.walkable and nav.creatures.get(n, "").startswith("plant"):
                continue  # a plant is a wall
            if m in nav.walkable:
                if n in nav.creatures and n != pos:
                    ok = False  # a creature stands there: no stone can go there now
                walls.add(n)
            elif m not in WALLS_OK:
                ok = False  # unseen, lava, or the world's edge
    dug = sum(1 for c in (p, q) if not open_(c))
    if ok and len(walls) <= stones + dug + tables:
        far = min(abs(c[0] - pos[0]) + abs(c[1] - pos[1]) for c in (p, q))
        near = any(abs(c[0] - h[0]) + abs(c[1] - h[1]) == 1 for c in (p, q) for h in liked)
        rank = len(walls) + far + 2 * dug - 8 * near - 100 * len(g)
        pairs.append((rank, p, q, walls | set(g), g))


def _plan_pocket(nav, state, pocket, walls, stones, limit, tables=0, plants=(), guarded=False):
    """Breadth-first search over (position, facing, walls placed, pocket cells mined); see :func:`pocket_plan`.
    ``plants``: the walls planted with saplings (they cost no stone)."""
    index = {w: i for i, w in enumerate(walls)}
    sown = sum(1 << index[g] for g in plants)
    # guarded: a sapling goes in only once its other walls stand (a creature next to it kills it)
    guard = (
        {
            index[g]: sum(
                1 << index[n]
                for dx, dy in DIRECTIONS.values()
                if (n := (g[0] + dx, g[1] + dy)) in index and not sown >> index[n] & 1
            )
            for g in plants
        }
        if guarded
        else {index[g]: 0 for g in plants}
    )
    rock = [c for c in pocket if c != state.pos and not nav._free(c)]  # pocket cells to mine
    rock_i = {c: i for i, c in enumerate(rock)}
    full, all_mined = (1 << len(walls)) - 1, (1 << len(rock)) - 1
    cs = [c for c in (*pocket, state.pos, *plants)]
    lo_x, hi_x = min(c[0] for c in cs) - 2, max(c[0] for c in cs) + 2
    lo_y, hi_y = min(c[1] for c in cs) - 2, max(c[1] for c in cs) + 2
    start = (state.pos, state.facing, 0, 0)
    parent: dict = {start: None}
    queue = deque([start])
    while queue and len(parent) < limit:
        s = queue.popleft()
        here, facing, placed, mined = s
        if placed == full and mined == all_mined and here in pocket:
            steps = []
            while parent[s] is not None:
                prev, action = parent[s]
                steps.append((action, prev[0], prev[1]))
                s = prev
            return steps[::-1]
        ahead = (here[0] + facing[0], here[1] + facing[1])
        i, r = index.get(ahead), rock_i.get(ahead)
        have = stones + bin(mined).count("1") - bin(placed & ~sown).count("1")  # below 0: tables placed
        nxt = None
        if i is not None and sown >> i & 1 and not placed >> i & 1 and placed & guard[i] == guard[i]:
            nxt, action = (here, facing, placed | 1 << i, mined), "place_plant"
        elif i is not None and not sown >> i & 1 and not placed >> i & 1 and have + tables > 0:
            nxt, action = (here, facing, placed | 1 << i, mined), "place_stone" if have > 0 else "place_table"
        elif r is not None and not mined >> r & 1:
            nxt, action = (here, facing, placed, mined | 1 << r), "do"
        if nxt is not None and nxt not in parent:
            parent[nxt] = (s, action)
            queue.append(nxt)
        for d, v in DIRECTIONS.items():
            t = (here[0] + v[0], here[1] + v[1])
            j, r = index.get(t), rock_i.get(t)
            if r is not None:
                free = bool(mined >> r & 1)
            else:
                free = (t == state.pos or nav._free(t)) and not (j is not None and placed >> j & 1)
            if free and not (lo_x <= t[0] <= hi_x and lo_y <= t[1] <= hi_y):
                continue
            nxt = (t, v, placed, mined) if free else (here, v, placed, mined)
            if nxt not in parent:
                parent[nxt] = (s, MOVES[d])
                queue.append(nxt)
    return None
