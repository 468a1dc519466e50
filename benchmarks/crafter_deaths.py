"""How and when the survivor dies, on design worlds only (never the score's held-out seeds).

    nice -n 5 python benchmarks/crafter_deaths.py --worlds 8                 # training worlds 0..7 of seed 0
    nice -n 5 python benchmarks/crafter_deaths.py --worlds 32 --set LURK_FED=5 --tag lurk_fed5_w32
    nice -n 5 python benchmarks/crafter_deaths.py --worlds 32 --stream 1 --tag noise_s1_w32   # another random stream
    python benchmarks/crafter_deaths.py --spread noise_s0_w32 noise_s1_w32 --tag noise_w32       # runs side by side
    python benchmarks/crafter_deaths.py --by-step unlocks_s0_w32 unlocks_s1_w32 --tag unlocks_by_step_w32
    nice -n 5 python benchmarks/crafter_deaths.py --worlds 64 --set HOME_RANGE=10 --tag first_nights_hr10_s0_w64
    python benchmarks/crafter_deaths.py --variants first_nights_survivor_s0_w64 first_nights_hr10_s0_w64 --tag cmp

Plays the survivor (every piece; ``--arm survivor-no_<piece>`` for an ablation) on the study's training worlds
(seeds ``1000·seed + first + i``: :func:`solvi_lab.studies.crafter.protocol.score_seeds` starts at ``+500``, so
these never overlap it), with the same model carried across the worlds and the same random streams as the score's
protocol. Each step it records what the agent was doing (the branch of :meth:`Survivor.act` that chose the action:
``wall_in``, ``hunt``, ``garden``, a planner option ...), and writes per episode: the step of death and its cause
(:func:`protocol.death_cause`), the daylight then, what it was doing over its last steps, and every point of health
lost with what it was doing and what was next to it; and where the food went (``food``: what cows and ripe plants gave,
how many meals reached Crafter's cap, what was spent), the steps it sat sealed in, awake, with full energy
(``idle_sealed``: asleep, food lasts twice as long, but Crafter lets no one sleep at full energy), and its plants
(``plants``: placed, eaten, alive at the end; the rest a creature killed). ``--set NAME=VALUE`` overrides a constant of
:mod:`solvi_lab.studies.crafter.survivor` for the run (a variant measured on design worlds; the default is untouched). Output: ``results/benchmarks/crafter_deaths/<tag>.json`` and
``.md`` (the summary tables). ``--stream k`` plays the same agent on the same worlds with another random stream for
its own choices; ``--spread TAG...`` writes the stored runs side by side with the spread of each figure: how far
a result moves by chance alone, the yardstick for a variant's difference. Each episode also keeps the step at which
each achievement was first unlocked (``unlocked_at``); ``--by-step TAG...`` cuts the stored episodes at steps T and
gives the score of what was unlocked by then beside how many were alive: what settling for good at T could keep.
``--variants TAG...`` writes stored runs of different agents (arm, ``--set``, stream) on the same worlds side by
side, with the deaths before the first nights' ends (steps 300 and 600) and the episodes that settled.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from crafter import objects  # noqa: E402  (the plants left at the end: read from the game)

from solvi_lab.actions import ConservativeActionModel  # noqa: E402
from solvi_lab.studies.crafter import protocol, survivor  # noqa: E402
from solvi_lab.studies.crafter.agent import ACHIEVEMENTS  # noqa: E402
from solvi_lab.studies.crafter.env import CrafterWorld  # noqa: E402
from solvi_lab.studies.crafter.vocabulary import ITEMS, vocabulary  # noqa: E402

OUT = ROOT / "results" / "benchmarks" / "crafter_deaths"
FOOD_OF = {"eat_cow": "cows", "eat_plant": "plants"}  # the achievements that feed the player
BRANCHES = ("_wall_in", "_leave", "_hunt", "_grab", "_garden", "_visit")  # the survivor's own branches
TAIL = 20  # steps before death summarised


def _instrument(agent: survivor.Survivor) -> dict[str, Any]:
    """Wrap the agent's branches so that the last one that chose an action names what it was doing."""
    doing: dict[str, Any] = {"what": None}

    def wrap(name: str, label: str, depth_zero: bool = False) -> None:
        target = agent.nav if name in ("shelter", "refuge", "away", "frontier") else agent
        inner = getattr(target, name)

        def outer(*args: Any, **kw: Any) -> Any:
            got = inner(*args, **kw)
            if got is not None and (not depth_zero or kw.get("depth", args[2] if len(args) > 2 else 0) == 0):
                doing["what"] = f"option:{args[1]}" if label == "option" else label
            return got

        setattr(target, name, outer)

    for b in BRANCHES:
        wrap(b, b.strip("_"))
    wrap("_resolve", "option", depth_zero=True)
    wrap("shelter", "shelter")
    wrap("refuge", "refuge")
    wrap("away", "flee")
    wrap("frontier", "explore")
    return doing


NEED_MAX = 30  # the most walls asked of a homestead site when looking for the fewest a known site needs


@contextmanager
def _trace_homestead(agent: survivor.Survivor) -> Iterator[dict[str, list[dict[str, Any]]]]:
    """Record the homestead's site searches and plans (only a homestead run makes any): at each search the walls in
    hand, whether a site was found, and the fewest walls a known site would need (``homestead_sites`` asked again
    with other wall counts, up to ``NEED_MAX``; a pure function of the map, so the episode is unchanged); at each plan
    whether one was made. The survivor module's names are wrapped while the block runs and put back after it."""
    log: dict[str, list[dict[str, Any]]] = {"searches": [], "plans": []}
    sites, plan = survivor.homestead_sites, survivor.pocket_plan

    def traced_sites(nav: Any, state: Any, walls: int, plants: int, *args: Any, **kw: Any) -> Any:
        got = sites(nav, state, walls, plants, *args, **kw)
        tries = range(0, walls) if got else range(walls + 1, NEED_MAX + 1)  # the fewest walls: below or above
        need = next((w for w in tries if sites(nav, state, w, plants)), walls if got else None)
        log["searches"].append({"step": agent.count.steps, "walls": walls, "found": bool(got), "walls_needed": need})
        return got

    def traced_plan(*args: Any, **kw: Any) -> Any:
        got = plan(*args, **kw)
        if kw.get("guarded"):  # the homestead's plan (the night pocket's is not guarded)
            log["plans"].append({"step": agent.count.steps, "made": got is not None})
        return got

    survivor.homestead_sites, survivor.pocket_plan = traced_sites, traced_plan
    try:
        yield log
    finally:
        survivor.homestead_sites, survivor.pocket_plan = sites, plan


def _label(doing: dict[str, Any], state: Any, action: str) -> str:
    if state.sleeping:
        return "asleep"
    what = doing["what"] or "other"
    return "macro" if what == "other" and action != "noop" else what


def agent_rng(seed: int, arm: str, world: int, stream: int = 0) -> random.Random:
    """The agent's random stream for one world: the score's protocol's (``stream`` 0), or another one (``stream`` k >
    0: the same worlds and agent, other random choices — how far a result moves by chance alone, see ``--spread``)."""
    return random.Random(f"{seed}-{arm}-{world}" + (f"-stream{stream}" if stream else ""))


def play(seed: int, first: int, worlds: int, steps: int, arm: str, stream: int = 0) -> list[dict[str, Any]]:
    pieces = protocol.survivor_arm(arm)
    if pieces is None:
        raise SystemExit(f"{arm!r} is not a survivor arm")
    carried = (ConservativeActionModel(vocabulary(), journal=False), {})
    out = []
    for i in range(worlds):
        w = CrafterWorld(1000 * seed + first + i, length=steps)
        rng = agent_rng(seed, arm, first + i, stream)
        agent = survivor.Survivor(carried=carried, rng=rng, **pieces)
        doing = _instrument(agent)
        trace, hurts = [], []
        unlocked: dict[str, int] = {}  # achievement -> the step it was first unlocked
        budget = _FoodBudget(w.state)
        st = None
        t0 = time.perf_counter()
        with _trace_homestead(agent) as home:
            while not w.done and len(trace) < steps:
                s = w.state
                doing["what"] = None
                action = agent.act(s)
                what = _label(doing, s, action)
                st = w.step(action)
                agent.learn(st)
                a = st.after
                for ach, count in a.achievements.items():
                    if count > 0 and ach not in unlocked:
                        unlocked[ach] = len(trace) + 1
                near = sorted(
                    {k for p, k in a.creatures.items() if abs(p[0] - a.pos[0]) + abs(p[1] - a.pos[1]) <= 1}
                    - {"cow", "plant", "plant-ripe"}
                )
                sealed = agent.nav.sealed(s)
                budget.step(s, a, sealed)
                lost = s.inventory["health"] - a.inventory["health"]
                trace.append((what, round(s.daylight, 2), sealed))
                if lost > 0:
                    empty = [k for k in ("food", "drink", "energy") if a.inventory[k] == 0]
                    hurts.append(
                        {
                            "step": len(trace),
                            "lost": lost,
                            "doing": what,
                            "by": near[0] if near else (empty[0] if empty else "other"),
                            "daylight": round(s.daylight, 2),
                            "sealed": sealed,
                        }
                    )
        died = w.state.inventory["health"] <= 0
        tail = Counter(t[0] for t in trace[-TAIL:])
        inv = w.state.inventory
        row = {
            "world": first + i,
            "seed": w.seed,
            "steps": len(trace),
            "died": died,
            "cause": protocol.death_cause(st) if died and st is not None else None,
            "daylight_at_end": round(w.state.daylight, 2),
            "doing_last": dict(tail.most_common()),
            "inventory_at_end": {k: inv[k] for k in ("health", "food", "drink", "energy", "stone", "wood")},
            "achievements": sorted(a for a in ACHIEVEMENTS if w.state.achievements.get(a, 0) > 0),
            "unlocked_at": {a: unlocked[a] for a in ACHIEVEMENTS if a in unlocked},
            "night_steps": sum(1 for t in trace if t[1] < 0.5),
            "night_steps_sealed": sum(1 for t in trace if t[1] < 0.5 and t[2]),
            "settled_at": getattr(agent, "settled_at", None),  # the step it settled in a homestead, if it did
            # ... first (an agent on a day trip at the end is not settled then, see survivor.TRIPS)
            "first_settled_at": getattr(agent, "first_settled_at", None),
            "home_searches": home["searches"],  # the homestead's site searches and plans (see _trace_homestead)
            "home_plans": home["plans"],
            **budget.row(w),
            "doing": dict(Counter(t[0] for t in trace).most_common()),
            "hurts": hurts,
            "seconds": round(time.perf_counter() - t0, 1),
        }
        out.append(row)
        print(
            f"world {row['world']}: {row['steps']} steps, {row['cause']}, light {row['daylight_at_end']}, "
            f"last {row['doing_last']}, {len(row['achievements'])} ach, {row['seconds']} s",
            flush=True,
        )
    return out


class _FoodBudget:
    """Where one episode's food went, step by step: the food each kind of meal gave as Crafter counted it, the meals
    that reached the food cap (Crafter's maximum, read from the game: what a meal gives beyond it is lost), the food
    spent (start + gained − end), the steps sealed in awake at full energy, and the plants placed and eaten."""

    def __init__(self, start: Any) -> None:
        self.food0 = start.inventory["food"]
        self.meals = {k: 0 for k in FOOD_OF.values()}
        self.gained = {k: 0 for k in FOOD_OF.values()}
        self.capped = {k: 0 for k in FOOD_OF.values()}
        self.idle_sealed = 0
        self.placed = 0

    def step(self, before: Any, after: Any, sealed: bool) -> None:
        if sealed and not before.sleeping and before.inventory["energy"] >= ITEMS["energy"]:
            self.idle_sealed += 1
        self.placed += after.achievements.get("place_plant", 0) - before.achievements.get("place_plant", 0)
        for ach, kind in FOOD_OF.items():
            if after.achievements.get(ach, 0) > before.achievements.get(ach, 0):
                got = after.inventory["food"] - before.inventory["food"]
                self.meals[kind] += 1
                self.gained[kind] += got
                if (
                    after.inventory["food"] >= ITEMS["food"]
                ):  # the cap took the rest (how much: the meal's size, not retyped)
                    self.capped[kind] += 1

    def row(self, world: CrafterWorld) -> dict[str, Any]:
        end = world.state.inventory["food"]
        alive = sum(isinstance(o, objects.Plant) for o in world.env._world.objects)
        gained = sum(self.gained.values())
        return {
            "food": {
                "start": self.food0,
                **{f"{k}_eaten": self.meals[k] for k in self.meals},
                **{f"from_{k}": self.gained[k] for k in self.gained},
                **{f"{k}_eaten_at_the_cap": self.capped[k] for k in self.capped},
                "end": end,
                "spent": self.food0 + gained - end,
            },
            "idle_sealed": self.idle_sealed,
            "plants": {"placed": self.placed, "eaten": self.meals["plants"], "alive_at_end": alive},
        }


def headline(rows: list[dict[str, Any]]) -> tuple[int, float, float, float]:
    """Deaths, mean steps, the pooled score and the share (%) of episodes that unlocked ``eat_plant``."""
    from solvi_lab.studies.crafter.scoring import crafter_score

    eps = [{a: int(a in r["achievements"]) for a in ACHIEVEMENTS} for r in rows]
    return (
        sum(r["died"] for r in rows),
        sum(r["steps"] for r in rows) / len(rows),
        crafter_score(eps),
        100 * sum("eat_plant" in r["achievements"] for r in rows) / len(rows),
    )


def summary(rows: list[dict[str, Any]]) -> str:
    deaths, mean_steps, score, eat_plant = headline(rows)
    lost_by = Counter()
    lost_doing = Counter()
    for r in rows:
        for h in r["hurts"]:
            night = "night" if h["daylight"] < 0.5 else "day"
            lost_by[(h["by"], night)] += h["lost"]
            lost_doing[(h["doing"], h["by"])] += h["lost"]
    steps = sorted(r["steps"] for r in rows)
    causes = Counter(r["cause"] or "alive" for r in rows)
    lines = [
        "| episodes | deaths | mean_steps | median_steps | causes | score | eat_plant | wake_up |",
        "|---|---|---|---|---|---|---|---|",
        f"| {len(rows)} | {deaths} | {mean_steps:.0f} | {steps[len(steps) // 2]} | "
        f"{', '.join(f'{k} {v}' for k, v in causes.most_common())} | {score:.1f} | {eat_plant:.1f} | "
        f"{100 * sum('wake_up' in r['achievements'] for r in rows) / len(rows):.1f} |",
        "",
        "| world | steps | cause | daylight | doing (last steps) | food | drink | night steps sealed | settled at |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        inv = r["inventory_at_end"]
        lines.append(
            f"| {r['world']} | {r['steps']} | {r['cause']} | {r['daylight_at_end']} | "
            f"{', '.join(f'{k} {v}' for k, v in r['doing_last'].items())} | {inv['food']} | {inv['drink']} | "
            f"{r['night_steps_sealed']}/{r['night_steps']} | {r.get('settled_at') or '—'} |"
        )
    lines += _homestead_lines(rows)
    lines += _food_lines(rows)
    lines += ["", "Health lost, by what was next to the player (or the empty need) and the light:", ""]
    lines += [f"- {by} ({light}): {n}" for (by, light), n in lost_by.most_common()]
    lines += ["", "Health lost, by what the agent was doing:", ""]
    lines += [f"- {doing} / {by}: {n}" for (doing, by), n in lost_doing.most_common(15)]
    return "\n".join(lines) + "\n"


def _food_lines(rows: list[dict[str, Any]]) -> list[str]:
    """Where the food went over the run's episodes, as a table (none for runs stored before it was recorded)."""
    rows = [r for r in rows if "food" in r]
    if not rows:
        return []
    f = {k: sum(r["food"][k] for r in rows) for k in rows[0]["food"]}
    steps = sum(r["steps"] for r in rows)
    idle = sum(r["idle_sealed"] for r in rows)
    placed = sum(r["plants"]["placed"] for r in rows)
    alive = sum(r["plants"]["alive_at_end"] for r in rows)
    cells = [
        ("steps played", f"{steps:,}"),
        ("cows eaten", f["cows_eaten"]),
        ("food they gave", f["from_cows"]),
        ("cows eaten up to the food cap (the rest of the meal lost)", f["cows_eaten_at_the_cap"]),
        ("ripe plants eaten", f["plants_eaten"]),
        ("food they gave", f["from_plants"]),
        ("plants eaten up to the food cap", f["plants_eaten_at_the_cap"]),
        ("food spent (start + gained − end)", f["spent"]),
        (
            "steps sealed in, awake, at full energy (Crafter lets no one sleep then)",
            f"{idle:,} ({100 * idle / max(1, steps):.0f}%)",
        ),
        ("plants placed", placed),
        ("plants alive at the end", alive),
        ("plants killed by a creature beside them", placed - alive),
    ]
    return ["", f"Where the food went, over the {len(rows)} episodes:", "", "| food | all episodes |", "|---|---:|"] + [
        f"| {name} | {value} |" for name, value in cells
    ]


def _homestead_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The homestead's searches per episode that made any (none in a run without it): each search's step, the walls
    in hand and the fewest walls a known site needed, then the plans made and tried."""
    searched = [r for r in rows if r.get("home_searches")]
    if not searched:
        return []
    lines = [
        "",
        "The homestead's site searches: at each, the step, the walls in hand (stones and tables carried) → the fewest "
        f"walls a known site needed (— when none needed {NEED_MAX} or fewer); a site is found when the second is at "
        "most the first:",
        "",
        "| world | searches: step, walls in hand → walls needed | sites found | plans made / tried | settled at |",
        "|---|---|---|---|---|",
    ]
    for r in searched:
        s, p = r["home_searches"], r.get("home_plans", [])
        each = "; ".join(
            f"{x['step']}: {x['walls']} → {'—' if x['walls_needed'] is None else x['walls_needed']}" for x in s
        )
        lines.append(
            f"| {r['world']} | {each} | {sum(x['found'] for x in s)} | {sum(x['made'] for x in p)} / {len(p)} | "
            f"{r.get('settled_at') or '—'} |"
        )
    return lines


def spread_table(runs: list[tuple[str, dict[str, Any], list[dict[str, Any]]]]) -> str:
    """One row per stored run ``(tag, meta, episodes)`` — its random stream, deaths, mean steps, pooled score,
    ``eat_plant`` — and the spread (largest minus smallest) of each figure over the runs."""
    lines = [
        "| run | agent's random stream | episodes | deaths | mean_steps | score | eat_plant |",
        "|---|---|---|---|---|---|---|",
    ]
    figures = []
    for tag, meta, rows in runs:
        f = headline(rows)
        figures.append(f)
        lines.append(
            f"| {tag} | {meta.get('stream', 0)} | {len(rows)} | {f[0]} | {f[1]:.0f} | {f[2]:.1f} | {f[3]:.1f} |"
        )
    lo, hi = [min(c) for c in zip(*figures)], [max(c) for c in zip(*figures)]
    lines.append(
        f"| spread (largest − smallest) | | | {hi[0] - lo[0]} | {hi[1] - lo[1]:.0f} | {hi[2] - lo[2]:.1f} | "
        f"{hi[3] - lo[3]:.1f} |"
    )
    return "\n".join(lines) + "\n"


def _set_value(name: str, text: str, current: Any) -> Any:
    """``--set NAME=TEXT``: TEXT read as JSON and of the constant's own kind (an int is a float's; a list is a tuple's),
    else the run is refused with what to pass.

    >>> _set_value("TRIPS", "5", 0), _set_value("TRIP_BACK", "1", 0.85), _set_value("HOME_PLANS", "[[3,8,true]]", ())
    (5, 1.0, ([3, 8, True],))
    >>> _set_value("TRIPS", "true", 0)
    Traceback (most recent call last):
    SystemExit: --set TRIPS=true: an int is wanted (it is 0 now), e.g. --set TRIPS=0
    """
    example = f"--set {name}={json.dumps(current, separators=(',', ':'))}"
    try:
        value = json.loads(text)
    except ValueError:
        raise SystemExit(f"--set {name}={text}: not a JSON value (strings in double quotes); e.g. {example}") from None
    kind = type(current)
    fits = {bool: (bool,), int: (int,), float: (int, float), tuple: (list,)}.get(kind, (kind,))
    if not isinstance(value, fits) or (kind is not bool and isinstance(value, bool)):
        article = "an" if kind.__name__[0] in "aeiou" else "a"
        raise SystemExit(
            f"--set {name}={text}: {article} {kind.__name__} is wanted (it is {current!r} now), e.g. {example}"
        )
    return kind(value)


EARLY = (300, 600)  # --variants counts the deaths up to these steps: the first night ends near 270, the second 570


def variants_table(runs: list[tuple[str, dict[str, Any], list[dict[str, Any]]]]) -> str:
    """One row per stored run ``(tag, meta, episodes)``: the agent (arm and ``--set``), its random stream, deaths,
    deaths by each step of :data:`EARLY`, mean steps, pooled score, ``eat_plant``, the episodes settled at their
    end, those that ever settled (``first_settled_at``: an agent on a day trip at the end is not settled then;
    "—" for a run stored before it was recorded), and the deaths by arrows of those that had settled (shot in or out of
    their homestead: Crafter's arrows fly over water).

    >>> rows = [{"died": True, "steps": 250, "achievements": [], "settled_at": None, "first_settled_at": None},
    ...         {"died": False, "steps": 10000, "achievements": ["eat_plant"], "settled_at": None,
    ...          "first_settled_at": 140},
    ...         {"died": True, "steps": 900, "achievements": [], "settled_at": 150, "first_settled_at": 150,
    ...          "cause": "arrow"}]
    >>> print(variants_table([("t", {"arm": "survivor", "set": ["HOME_RANGE=10"]}, rows)]).splitlines()[2])
    | t | `survivor` HOME_RANGE=10 | 0 | 3 | 2 | 1 | 1 | 3717 | 0.2 | 33.3 | 1 | 2 | 1 |
    """
    cols = " | ".join(f"deaths by step {t}" for t in EARLY)
    lines = [
        f"| run | agent | agent's random stream | episodes | deaths | {cols} | mean_steps | score | eat_plant | settled | "
        "ever settled | arrow deaths, settled before |",
        "|---|---|---|---|---|" + "---|" * len(EARLY) + "---|---|---|---|---|---|",
    ]
    for tag, meta, rows in runs:
        deaths, mean_steps, score, eat_plant = headline(rows)
        early = " | ".join(str(sum(1 for r in rows if r["died"] and r["steps"] <= t)) for t in EARLY)
        agent = " ".join([f"`{meta['arm']}`", *meta["set"]])
        settled = sum(1 for r in rows if r.get("settled_at") is not None)
        recorded = all("first_settled_at" in r for r in rows)
        ever = sum(1 for r in rows if r["first_settled_at"] is not None) if recorded else "—"
        shot = (
            sum(1 for r in rows if r["died"] and r.get("cause") == "arrow" and r["first_settled_at"] is not None)
            if recorded
            else "—"
        )
        lines.append(
            f"| {tag} | {agent} | {meta.get('stream', 0)} | {len(rows)} | {deaths} | {early} | {mean_steps:.0f} | "
            f"{score:.1f} | {eat_plant:.1f} | {settled} | {ever} | {shot} |"
        )
    return "\n".join(lines) + "\n"


BY_STEP = (150, 300, 450, 600, 900, 1200, 2000, 5000)  # the steps --by-step cuts the episodes at


def by_step_table(rows: list[dict[str, Any]], cuts: tuple[int, ...] = BY_STEP) -> str:
    """What the episodes had unlocked by each step T (``unlocked_at``), pooled as the score is, beside how many
    were still alive after T: the score an agent would keep by settling for good at T, were all of them alive.

    >>> rows = [{"died": True, "steps": 200, "unlocked_at": {"collect_wood": 10, "eat_cow": 150}},
    ...         {"died": False, "steps": 10000, "unlocked_at": {"collect_wood": 20, "eat_plant": 700}}]
    >>> print(by_step_table(rows, (100, 1000)))
    | step T | alive after T | score of what was unlocked by T | eat_plant by T (%) |
    |---:|---:|---:|---:|
    | 100 | 2 of 2 | 0.2 | 0.0 |
    | 1,000 | 1 of 2 | 0.8 | 50.0 |
    <BLANKLINE>
    """
    from solvi_lab.studies.crafter.scoring import crafter_score

    lines = [
        "| step T | alive after T | score of what was unlocked by T | eat_plant by T (%) |",
        "|---:|---:|---:|---:|",
    ]
    for t in cuts:
        eps = [{a: int(r["unlocked_at"].get(a, t + 1) <= t) for a in ACHIEVEMENTS} for r in rows]
        alive = sum(1 for r in rows if not r["died"] or r["steps"] > t)
        plant = 100 * sum(e["eat_plant"] for e in eps) / len(rows)
        lines.append(f"| {t:,} | {alive} of {len(rows)} | {crafter_score(eps):.1f} | {plant:.1f} |")
    return "\n".join(lines) + "\n"


def _stored_runs(option: str, tags: list[str]) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """The stored runs TAGS as (tag, meta, episodes), or exit naming the missing ones and how to play them."""
    missing = [t for t in tags if not (OUT / f"{t}.json").exists()]
    if missing:
        raise SystemExit(
            f"{option}: no stored run {', '.join(missing)} in {OUT}; play it first "
            "(python benchmarks/crafter_deaths.py --worlds N --stream K --tag TAG)"
        )
    runs = []
    for t in tags:
        stored = json.loads((OUT / f"{t}.json").read_text())
        runs.append((t, stored["meta"], stored["episodes"]))
    return runs


def _by_step(tags: list[str], out_tag: str) -> None:
    runs = _stored_runs("--by-step", tags)
    rows = []
    for t, _, episodes in runs:
        if not episodes:
            raise SystemExit(f"--by-step: {t} holds no episode; play it again with --worlds 1 or more")
        if any("unlocked_at" not in r for r in episodes):
            raise SystemExit(f"--by-step: {t} was stored before runs kept when each achievement came; play it again")
        rows += episodes
    arms = sorted({m["arm"] for _, m, _ in runs})
    head = (
        f"# What the episodes had unlocked by each step ({out_tag})\n\n"
        f"Arm(s) {', '.join(f'`{x}`' for x in arms)}; runs {', '.join(f'`{t}`' for t in tags)} ({len(rows)} "
        "episodes on design worlds, pooled). Each row cuts every episode at step T: the score of the achievements "
        "unlocked by then, pooled over all the episodes as Crafter's score is, beside how many episodes were still "
        "alive after T. It bounds what settling for good at T could keep: the score of the row, were every "
        "episode alive then (those that died before T keep what they had).\n\n"
    )
    text = by_step_table(rows)
    (OUT / f"{out_tag}.md").write_text(head + text)
    print(text)


def _spread(tags: list[str], out_tag: str) -> None:
    runs = _stored_runs("--spread", tags)
    metas = [m for _, m, _ in runs]
    same = {(m["arm"], m["seed"], m["first"], m["worlds"], m["steps"], tuple(m["set"])) for m in metas}
    if len(same) != 1:
        raise SystemExit("--spread compares runs of one agent on the same worlds: these differ in arm, worlds or --set")
    m = metas[0]
    head = (
        f"# How far the survivor's figures move by chance alone ({out_tag})\n\n"
        f"The same agent (`{m['arm']}`{', ' + ', '.join(m['set']) if m['set'] else ''}) on the same design worlds "
        f"(seed {m['seed']}, worlds {m['first']}–{m['first'] + m['worlds'] - 1}, up to {m['steps']:,} steps), "
        "with different random streams for the agent's own choices (`--stream`); runs: "
        + ", ".join(f"`{t}`" for t in tags)
        + ". A difference between two variants smaller than the spread below is not evidence.\n\n"
    )
    text = spread_table(runs)
    (OUT / f"{out_tag}.md").write_text(head + text)
    print(text)


def _variants(tags: list[str], out_tag: str) -> None:
    runs = _stored_runs("--variants", tags)
    worlds = {(m["seed"], m["first"], m["worlds"], m["steps"]) for _, m, _ in runs}
    if len(worlds) != 1:
        raise SystemExit(
            "--variants compares agents on the same worlds: these runs differ in seed, first world, worlds or steps"
        )
    seed, first, n, steps = worlds.pop()
    head = (
        f"# Variants side by side ({out_tag})\n\n"
        f"Design worlds (seed {seed}, worlds {first}–{first + n - 1}, up to {steps:,} steps); runs: "
        + ", ".join(f"`{t}`" for t in tags)
        + ". Each agent is the arm with the survivor constants of its `--set`; compare a difference with how far "
        "the same agent moves on another random stream (its rows for streams 0 and 1).\n\n"
    )
    text = variants_table(runs)
    (OUT / f"{out_tag}.md").write_text(head + text)
    print(text)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--worlds", type=int, default=8)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--steps", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--arm", default="survivor")
    p.add_argument("--tag", default="baseline")
    p.add_argument("--render", action="store_true", help="rewrite <tag>.md from the stored <tag>.json")
    p.add_argument("--set", action="append", default=[], help="NAME=VALUE: a survivor constant for this run")
    p.add_argument("--stream", type=int, default=0, help="the agent's random stream (0: the score's protocol's)")
    p.add_argument("--spread", nargs="+", metavar="TAG", help="write <tag>.md: the stored runs TAG... side by side")
    p.add_argument(
        "--by-step", nargs="+", metavar="TAG", help="write <tag>.md: what the stored runs TAG... had unlocked by step T"
    )
    p.add_argument(
        "--variants", nargs="+", metavar="TAG", help="write <tag>.md: stored runs of different agents side by side"
    )
    a = p.parse_args()
    if a.stream < 0:
        raise SystemExit("--stream must be 0 (the score's protocol's random stream) or a positive number")
    if a.spread:
        _spread(a.spread, a.tag)
        return
    if a.by_step:
        _by_step(a.by_step, a.tag)
        return
    if a.variants:
        _variants(a.variants, a.tag)
        return
    for kv in a.set:
        name, value = kv.split("=", 1)
        if not name.isupper() or not hasattr(survivor, name):
            raise SystemExit(f"{name!r} is not a constant of the survivor module")
        setattr(survivor, name, _set_value(name, value, getattr(survivor, name)))
    if a.render:
        stored = json.loads((OUT / f"{a.tag}.json").read_text())
        _write(a.tag, stored["meta"], stored["episodes"])
        return
    if a.first + a.worlds > protocol.SCORE_BASE:
        raise SystemExit("these worlds would reach the score's held-out seeds")
    rows = play(a.seed, a.first, a.worlds, a.steps, a.arm, a.stream)
    OUT.mkdir(parents=True, exist_ok=True)
    meta = {"arm": a.arm, "seed": a.seed, "first": a.first, "worlds": a.worlds, "steps": a.steps, "set": a.set}
    if a.stream:
        meta["stream"] = a.stream
    meta["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    (OUT / f"{a.tag}.json").write_text(json.dumps({"meta": meta, "episodes": rows}, indent=1))
    _write(a.tag, meta, rows)


def _write(tag: str, meta: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    text = summary(rows)
    (OUT / f"{tag}.md").write_text(f"# Survivor deaths on design worlds ({tag})\n\n{json.dumps(meta)}\n\n{text}")
    print(text)


if __name__ == "__main__":
    main()
