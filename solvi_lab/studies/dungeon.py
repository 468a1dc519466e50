"""Risk dungeon: protection by default against justified risk, on a toy dungeon with hand-set hazards.

The toy (ours; the specification's benchmarks/knowledge/risk_dungeon.py is not available, so only its claims are
checked, never its numbers):

- **Dungeon.** Levels 0 (the entrance) to `MAX_DEPTH` = 10. From each level three doors ("left", "middle",
  "right") lead one level down. A **stream** is one dungeon — its layout fixed by (seed, stream) — played `games`
  times in a row by one agent whose knowledge accumulates from game to game.
- **Hero.** Each game a hero of level c ∈ {1, 2, 3} (drawn uniformly) enters at level 0. c is the context the
  depth gate learns in.
- **Actions.** At level d the hero either descends to d + 1 through one of the three doors, or leaves the dungeon
  (the game ends, alive). The game also ends on a death or at the bottom (level 10).
- **Score.** The deepest level reached, counted even when the hero dies there (a death costs the rest of the game).
- **Hazards**, set once from this story:
    1. *pits* — at every level one of the three doors (per stream) hides a pit: taking it kills, always. Knowledge
       targets them: the door memory refuses a door that killed (a *hard* refusal: instant harm).
    2. *guardians* — arriving at level d, a hero of level c meets a guardian that kills with probability
       0.15 × (d − (2c + 1)) when d > 2c + 1 (capped at 0.9): a level-1 hero is safe down to 3, level 2 to 5,
       level 3 to 7. Knowledge targets them: the depth gate learns a bound on the level per hero level.
    3. *wandering monsters* — every arrival at a level kills with probability 0.03, whatever the level or hero.
       No knowledge targets them (nothing about the level predicts them), but the hero cannot tell a guardian's
       kill from a wanderer's, so the depth gate learns from both: this is what makes a gate tighten itself.
  A **targeted death** is a death in a pit or by a guardian.
- **Knowledge**: a door memory and a `LearnedGate("depth")` fed `arrived(c, d, failed=...)` on every arrival. A pit
  death is attributed to the door, not to the level (the hero sees the pit). The door memory is a **simplification**,
  not the specification's conservative action model: it is our own counting per (level, door) —
  `solvi_lab.actions.ConservativeActionModel` generalises a never-accepted value to a refusal, so it would refuse
  every unexplored door once one pit was found. The README's table says so.
- **Decisions.** Before each descent the policy decides "descend" on the gate's prediction for level d + 1 with
  gain 0.3 (the specification's example); "avoid" = leave the dungeon. Then it decides each door on the door
  memory's prediction: a door it takes (System 1: the known safe door with most support) wins; otherwise System 2,
  the explorer, picks uniformly among the doors sent to it. "ask_s2" on "descend" means System 2 decides, and the
  explorer always descends.
- **The "none" arm is the same agent without knowledge**: the same Protect policy, the same explorer and the same door
  choice, with its door memory and gate forgotten before every game (nothing carried from game to game). With no
  knowledge every prediction is "unknown", so Protect sends every choice to System 2, which descends through a door
  drawn among the three: in our toy a blind explorer survives a level with probability ≤ 2/3, hence its mean depth
  (≈ 1.8 against the published 3.47, whose toy we do not have).
- **Arms.** "none" (the same agent as "protect", knowledge forgotten before every game); "protect" (`Protect`, gate expiry 10, floor c + 1 — the spec's example);
  "risk_budget" (`RiskBudget(1.0, 1.0, 3)`, same gate); "gate_no_expiry" (`Protect`, a gate that never expires and
  has no floor).
- **Common random numbers.** In a stream, game g has the same hero and the same hazard draws at each level for
  every arm, so arms differ by their decisions only.

A *risky action taken* is an executed action whose prediction was a refusal (taken by the policy, or by System 2
after an "ask_s2"). Deaths are totals over all games; depths are means over games.

>>> r = run(streams=2, games=6, seed=0, progress=False)
>>> r.metrics["games_per_arm"], r.metrics["gate_replay_matches_live"]
(12, True)
>>> r.metrics["none_risky_per_game"]
0.0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure
from tqdm import tqdm

from ..journal import Journal
from ..prediction import Prediction
from ..risk import LearnedGate, Protect, RiskBudget
from .params import Param, ParamSpec
from .result import Comparison, StudyResult

# Quick keeps the stream length of the full run: the trend claims compare the first and last thirds of a stream,
# and 12-game streams are too short for them (their first third is spent finding the pits). Fewer streams only.
#: What `solvi-lab list` and the report say about this study (registered in pyproject.toml, solvi_lab.studies).
TITLE = "Risk dungeon: Protect, RiskBudget and a learned gate"  # sizes: the run's parameters (quick or full)
DESCRIPTION = (
    "A toy dungeon with hand-set hazards: how deep each policy gets, the deaths the knowledge targets, "
    "and the trends over a stream as learned refusals accumulate."
)

PARAMS = ParamSpec(
    "risk_dungeon",
    Param(
        "streams",
        int,
        full=20,
        quick=4,
        meaning="independent dungeons (streams), each with its own hazards",
        low=1,
        high=10_000,
    ),
    Param(
        "games", int, full=30, quick=30, meaning="games per stream and arm (thirds are compared)", low=3, high=10_000
    ),
)
QUICK_PARAMS: dict[str, int] = PARAMS.defaults(quick=True)
FULL_PARAMS: dict[str, int] = PARAMS.defaults(quick=False)

MAX_DEPTH = 10
DOORS = ("left", "middle", "right")
HERO_LEVELS = (1, 2, 3)
GUARDIAN_STEP = 0.15  # kill probability per level past the hero's safe depth 2c + 1
GUARDIAN_CAP = 0.9
WANDERER = 0.03  # kill probability of a wandering monster per arrival
GAIN = 0.3  # expected gain of one level, the specification's example
GATE_EXPIRY = 10
# "Far fewer targeted deaths": the published ratio is 40/482 ≈ 1/12. Our toy is not theirs, so we accept a ratio up
# to twice the published one (≤ 1/6), and no more: fewer than half would not be "far fewer" by the published figures.
FAR_FEWER_MAX_RATIO = 2 * 40 / 482
ARMS = ("none", "protect", "risk_budget", "gate_no_expiry")
ARM_LABELS = {
    "none": "no knowledge",
    "protect": "Protect",
    "risk_budget": "RiskBudget",
    "gate_no_expiry": "gate: no expiry, no floor (Protect)",
}

# The specification's figures (20 streams × 30 games, its own toy dungeon).
PUBLISHED = {
    "none_mean_depth": 3.47,
    "none_targeted_deaths": 482,
    "protect_mean_depth": 5.67,
    "protect_targeted_deaths": 40,
    "risk_budget_mean_depth": 6.65,
    "risk_budget_targeted_deaths": 196,
    "risk_budget_risky_per_game": 5.8,
    "protect_first_third": 6.74,
    "protect_last_third": 5.02,
    "gate_no_expiry_first_third": 6.70,
    "gate_no_expiry_last_third": 2.99,
    "risk_budget_first_third": 6.29,
    "risk_budget_last_third": 6.94,
}


def guardian_risk(depth: int, hero: int) -> float:
    """Probability that the guardian of `depth` kills a hero of level `hero` on arrival.

    >>> guardian_risk(3, 1), guardian_risk(4, 1), round(guardian_risk(10, 3), 2)
    (0.0, 0.15, 0.45)
    """
    return min(GUARDIAN_CAP, GUARDIAN_STEP * max(0, depth - (2 * hero + 1)))


def hero_floor(hero: int) -> int:
    """The gate's floor: it never refuses at or below level hero + 1 (the specification's example)."""
    return hero + 1


class DoorMemory:
    """What the agent learned about doors: a door that dropped it into a pit is refused, hard; a door it came
    through is accepted; an untried door is unknown.

    >>> m = DoorMemory()
    >>> m.fell(2, "left"); m.passed(2, "middle")
    >>> [m.predict(2, d).verdict for d in DOORS], m.predict(2, "left").hard
    (['refuse', 'accept', 'unknown'], True)
    """

    def __init__(self) -> None:
        self._passed: dict[tuple[int, str], int] = {}
        self._fell: dict[tuple[int, str], int] = {}

    def passed(self, depth: int, door: str) -> None:
        self._passed[(depth, door)] = self._passed.get((depth, door), 0) + 1

    def fell(self, depth: int, door: str) -> None:
        self._fell[(depth, door)] = self._fell.get((depth, door), 0) + 1

    def predict(self, depth: int, door: str) -> Prediction:
        passed, fell = self._passed.get((depth, door), 0), self._fell.get((depth, door), 0)
        if fell:
            return Prediction(
                "refuse",
                risk=fell / (fell + passed),
                support=fell + passed,
                hard=True,
                reason=f"the {door} door to level {depth} dropped the hero into a pit ({fell} time(s))",
            )
        if passed:
            return Prediction(
                "accept",
                risk=0.0,
                support=passed,
                reason=f"the {door} door to level {depth} was passed safely {passed} time(s)",
            )
        return Prediction("unknown", reason=f"the {door} door to level {depth} was never tried")


@dataclass
class _Game:
    """The world's draws for one game, shared by every arm (common random numbers)."""

    hero: int
    guardian_u: np.ndarray  # one uniform per level: the guardian kills if below guardian_risk
    wanderer_u: np.ndarray  # one uniform per level: a wanderer kills if below WANDERER
    explore_u: np.ndarray  # one uniform per level: System 2's choice among the doors sent to it


@dataclass
class _Outcome:
    deepest: int
    death: str | None  # "pit" | "guardian" | "wanderer" | None
    risky: int = 0  # executed actions whose prediction refused them
    risky_by_policy: int = 0  # of which the policy itself chose "take"
    hard_offered: int = 0  # door predictions that were hard refusals (a pit seen behind that door)
    hard_taken: int = 0  # of which the policy chose "take" (the specification: RiskBudget never does)


@dataclass
class _Agent:
    arm: str
    policy: Any = None
    gate: LearnedGate | None = None
    doors: DoorMemory | None = None
    journal: Journal | None = None
    gate_config: dict[str, Any] = field(default_factory=dict)


def _make_agent(arm: str) -> _Agent:
    """A fresh agent of `arm`; "none" is built as "protect" and has its knowledge forgotten before every game."""
    journal = Journal()  # deterministic: no time stamps; policy and gate write into one chain
    if arm == "gate_no_expiry":
        config: dict[str, Any] = {"expiry": None, "floor": None}
    else:
        config = {"expiry": GATE_EXPIRY, "floor": hero_floor}
    policy = RiskBudget(1.0, 1.0, 3, journal=journal) if arm == "risk_budget" else Protect(journal=journal)
    # "none" runs exactly the code of "protect"; run() replaces it by a fresh one before each game.
    gate = LearnedGate("depth", journal=journal, **config)
    return _Agent(arm, policy, gate, DoorMemory(), journal, config)


def _play(agent: _Agent, pits: np.ndarray, game: _Game) -> _Outcome:
    """One game of one agent: descend until it leaves, dies or reaches the bottom; learn from what happened."""
    depth, hero = 0, game.hero
    out = _Outcome(0, None)
    if agent.policy is not None:
        agent.policy.new_episode()
    while depth < MAX_DEPTH:
        target = depth + 1
        pred = agent.gate.predict(hero, target)
        d = agent.policy.decide("descend", pred, gain=GAIN)
        if d.choice == "avoid":
            break  # leave the dungeon alive
        if pred.verdict == "refuse":  # taken by the policy, or by System 2 (the explorer always descends)
            out.risky += 1
            out.risky_by_policy += d.choice == "take"
        take, s2 = [], []
        for i, name in enumerate(DOORS):
            p = agent.doors.predict(target, name)
            c = agent.policy.decide(f"door {name} to level {target}", p, gain=GAIN).choice
            if p.verdict == "refuse" and p.hard:
                out.hard_offered += 1
                out.hard_taken += c == "take"
            if c == "take":
                take.append((p.support, -i))
            elif c == "ask_s2":
                s2.append(i)
        if take:
            door = -max(take)[1]  # System 1: the door passed most often (ties: the first)
        elif s2:
            door = s2[int(game.explore_u[target] * len(s2))]  # System 2 explores
        else:
            break  # every door refused: leave
        if door == pits[target]:
            out.death = "pit"
            agent.doors.fell(target, DOORS[door])
            break
        agent.doors.passed(target, DOORS[door])
        depth = target
        out.deepest = depth
        if game.guardian_u[depth] < guardian_risk(depth, hero):
            out.death = "guardian"
        elif game.wanderer_u[depth] < WANDERER:
            out.death = "wanderer"
        agent.gate.arrived(hero, depth, failed=out.death is not None)
        if out.death:
            break
    agent.gate.end_episode()
    return out


def _replay_matches(agent: _Agent) -> bool:
    """The gate rebuilt from its journal has the live gate's state and predicts exactly what it predicts."""
    again = LearnedGate.from_journal(agent.journal, name="depth", **agent.gate_config)
    return again.state() == agent.gate.state() and all(
        again.predict(h, lv) == agent.gate.predict(h, lv) for h in HERO_LEVELS for lv in range(MAX_DEPTH + 1)
    )


def run(
    streams: int = FULL_PARAMS["streams"], games: int = FULL_PARAMS["games"], seed: int = 0, progress: bool = True
) -> StudyResult:
    """Play `streams` dungeons `games` times each with every arm; compare depths, deaths and trends.

    games must be ≥ 3 (the first and last thirds are compared). `progress` shows a tqdm bar over the streams.
    Deterministic: the same (streams, games, seed) always gives the same metrics.
    """
    PARAMS.check(streams=streams, games=games, seed=seed)
    depth = {a: np.zeros((streams, games), dtype=np.int64) for a in ARMS}
    deaths = {a: {"pit": 0, "guardian": 0, "wanderer": 0} for a in ARMS}
    risky = dict.fromkeys(ARMS, 0)
    risky_by_policy = dict.fromkeys(ARMS, 0)
    hard_offered = dict.fromkeys(ARMS, 0)
    hard_taken = dict.fromkeys(ARMS, 0)
    survived = dict.fromkeys(ARMS, 0)
    replay_ok = True
    for s in tqdm(range(streams), desc="risk_dungeon streams", disable=not progress):
        # One generator per stream, from (seed, stream): a stream's world does not depend on how many others run.
        rng = np.random.default_rng([seed, s])
        pits = np.concatenate([[-1], rng.integers(0, len(DOORS), size=MAX_DEPTH)])  # index = level; level 0 has none
        world = [
            _Game(
                int(rng.integers(1, len(HERO_LEVELS) + 1)),
                rng.random(MAX_DEPTH + 1),
                rng.random(MAX_DEPTH + 1),
                rng.random(MAX_DEPTH + 1),
            )
            for _ in range(games)
        ]
        for arm in ARMS:
            agent = _make_agent(arm)
            for g, game in enumerate(world):
                if arm == "none":
                    agent = _make_agent(arm)  # no knowledge: everything learned in the last game is forgotten
                out = _play(agent, pits, game)
                depth[arm][s, g] = out.deepest
                if out.death:
                    deaths[arm][out.death] += 1
                risky[arm] += out.risky
                risky_by_policy[arm] += out.risky_by_policy
                hard_offered[arm] += out.hard_offered
                hard_taken[arm] += out.hard_taken
                survived[arm] += out.death is None
            replay_ok = replay_ok and _replay_matches(agent)

    third = games // 3
    n = streams * games
    metrics: dict[str, Any] = {"streams": streams, "games": games, "seed": seed, "games_per_arm": n}
    rows = []
    for a in ARMS:
        m = {
            "mean_depth": float(depth[a].mean()),
            "targeted_deaths": deaths[a]["pit"] + deaths[a]["guardian"],
            "pit_deaths": deaths[a]["pit"],
            "guardian_deaths": deaths[a]["guardian"],
            "wanderer_deaths": deaths[a]["wanderer"],
            "risky_per_game": risky[a] / n,
            "risky_by_policy_per_game": risky_by_policy[a] / n,
            "first_third": float(depth[a][:, :third].mean()),
            # the middle third: the trend without the warm-up games (the first third is spent finding the pits)
            "middle_third": float(depth[a][:, third : games - third].mean()),
            "last_third": float(depth[a][:, games - third :].mean()),
            "survived_games": survived[a],
            "hard_refusals_offered": hard_offered[a],
            "hard_refusals_taken": hard_taken[a],
        }
        metrics.update({f"{a}_{k}": v for k, v in m.items()})
        rows.append({"arm": ARM_LABELS[a], **m})
    metrics["gate_replay_matches_live"] = bool(replay_ok)

    def mean(a: str) -> float:
        return metrics[f"{a}_mean_depth"]

    def dead(a: str) -> int:
        return metrics[f"{a}_targeted_deaths"]

    def decline(a: str) -> float:
        return metrics[f"{a}_first_third"] - metrics[f"{a}_last_third"]

    ratio = dead("protect") / dead("none") if dead("none") else float("inf")
    metrics["protect_to_none_death_ratio"] = ratio

    def decline_after_warmup(a: str) -> float:
        return metrics[f"{a}_middle_third"] - metrics[f"{a}_last_third"]

    # Each claim of the specification once. "none" dies in (nearly) every game — with no knowledge every prediction
    # is "unknown", System 2's explorer always descends, and a blind explorer meets a pit with probability 1/3 per
    # level — so the "… < none" / "none < …" halves of the published orderings are forced: shown, not counted.
    # The Protect < RiskBudget halves are near-forced too (RiskBudget is Protect plus the refused descents it takes:
    # deeper, and more of the targeted deaths): mechanism checks, not counted as claims.
    near_forced = {
        "mechanism_depth_risk_budget_above_protect": mean("protect") < mean("risk_budget"),
        "mechanism_deaths_risk_budget_above_protect": dead("protect") < dead("risk_budget"),
    }
    metrics.update({k: bool(v) for k, v in near_forced.items()})
    claims = {
        "claim_protect_far_fewer_deaths": ratio <= FAR_FEWER_MAX_RATIO,
        "claim_protect_declines": decline("protect") > 0,
        # It must actually decline (first third above the last) and by more than Protect: two rising arms don't count.
        "claim_no_expiry_gate_declines_more": 0 < decline("gate_no_expiry")
        and decline("protect") < decline("gate_no_expiry"),
        "claim_risk_budget_no_decline": metrics["risk_budget_last_third"] >= metrics["risk_budget_first_third"],
    }
    metrics.update({k: bool(v) for k, v in claims.items()})
    # The trends without the warm-up games (our findings): the middle third against the last.
    metrics["finding_protect_declines_after_warmup"] = bool(decline_after_warmup("protect") > 0)
    metrics["finding_risk_budget_no_decline_after_warmup"] = bool(decline_after_warmup("risk_budget") <= 0)
    metrics["forced_none_below"] = bool(
        mean("none") < mean("protect") < mean("risk_budget") and dead("risk_budget") < dead("none")
    )
    # Mechanisms: hold by construction (Protect never executes a refused action; the gate is its journal;
    # RiskBudget.decide never takes a hard prediction).
    never_risky = all(metrics[f"{a}_risky_per_game"] == 0.0 for a in ("none", "protect", "gate_no_expiry"))
    metrics["mechanism_protect_takes_no_refused_action"] = bool(never_risky)
    never_hard = metrics["risk_budget_hard_refusals_taken"] == 0
    metrics["mechanism_risk_budget_never_takes_hard"] = bool(never_hard)
    metrics["claims_holding"] = sum(claims.values())
    metrics["claims_checked"] = len(claims)

    table = pl.DataFrame(rows)
    by_game = pl.DataFrame({"game": list(range(games)), **{a: depth[a].mean(axis=0).tolist() for a in ARMS}})

    def thirds(a: str) -> str:
        return f"{metrics[f'{a}_first_third']:.2f} → {metrics[f'{a}_last_third']:.2f}"

    size = f"{streams} streams × {games} games, seed {seed}"
    pub = "published: 20 streams × 30 games on the specification's own toy"
    comparison = [
        Comparison(
            "mean deepest level, no knowledge",
            mean("none"),
            PUBLISHED["none_mean_depth"],
            f"{size}; the same agent as Protect with its knowledge forgotten before every game",
        ),
        Comparison("mean deepest level, Protect", mean("protect"), PUBLISHED["protect_mean_depth"], size),
        Comparison("mean deepest level, RiskBudget", mean("risk_budget"), PUBLISHED["risk_budget_mean_depth"], size),
        Comparison("mean deepest level, gate without expiry or floor", mean("gate_no_expiry"), None, size),
        Comparison(
            "targeted deaths, no knowledge",
            dead("none"),
            PUBLISHED["none_targeted_deaths"],
            f"pits + guardians over {n} games; {pub}",
        ),
        Comparison(
            "targeted deaths, Protect",
            dead("protect"),
            PUBLISHED["protect_targeted_deaths"],
            f"pits + guardians over {n} games; {pub}",
        ),
        Comparison(
            "targeted deaths, RiskBudget",
            dead("risk_budget"),
            PUBLISHED["risk_budget_targeted_deaths"],
            f"pits + guardians over {n} games; {pub}",
        ),
        Comparison(
            "risky actions taken per game, RiskBudget",
            metrics["risk_budget_risky_per_game"],
            PUBLISHED["risk_budget_risky_per_game"],
            "ours counts descents past the gate's refusal (taken by the policy or by System 2)",
        ),
        Comparison(
            "what knows the doors",
            "door memory (a simplification)",
            "the conservative action model",
            "our own count per (level, door): a door that dropped the hero into a pit is refused; the action model "
            "would refuse every untried door once one pit was found",
        ),
        Comparison(
            "games the no-knowledge agent survives",
            metrics["none_survived_games"],
            None,
            f"of {n}: with no knowledge every prediction is 'unknown' and System 2's explorer always descends; leaving "
            "needs a refusal, and a refusal needs knowledge. An agent told when to leave would carry knowledge of the "
            "hazards, so 'none' stays the knowledge-free agent and the comparisons against it are forced",
        ),
        Comparison(
            "depth: none < Protect < RiskBudget — the 'none <' half",
            f"{mean('none'):.2f} < {mean('protect'):.2f}",
            "3.47 < 5.67",
            "forced (none dies in nearly every game): shown, not counted; the half that can fail is the next row",
        ),
        Comparison(
            "depth: Protect < RiskBudget (the published none < Protect < RiskBudget, its half that can fail)",
            f"{mean('protect'):.2f} < {mean('risk_budget'):.2f}",
            "5.67 < 6.65",
            "RiskBudget takes the refused descents its gain justifies",
            holds=near_forced["mechanism_depth_risk_budget_above_protect"],
            kind="mechanism",
            key="depth_risk_budget_above_protect",
            threshold="mean deepest level: Protect < RiskBudget (strictly)",
            sentence="the mean deepest level was 3.47 without knowledge (482 deaths from the hazards the knowledge targets), 5.67 with "
            "Protect (40 such deaths) and 6.65 with RiskBudget (196 such deaths; 5.8 risky actions taken per game)",
            caveats=(
                "near-forced, so a mechanism check: RiskBudget is Protect plus the refused descents its gain "
                "justifies, and a descent taken goes deeper",
            ),
        ),
        Comparison(
            "Protect: far fewer targeted deaths than none",
            f"{dead('protect')} / {dead('none')} = {ratio:.3f}",
            f"40 / 482 = {40 / 482:.3f}",
            "the published ratio is about 1/12; we accept up to twice it. Not forced, but none's deaths are the most a "
            "dying agent can have, which favours the claim",
            holds=claims["claim_protect_far_fewer_deaths"],
            kind="claim",
            key="protect_far_fewer_deaths",
            threshold=f"Protect's targeted deaths ≤ {FAR_FEWER_MAX_RATIO:.3f} × none's (twice the published 40/482)",
            sentence="3.47 without knowledge (482 deaths from the hazards the knowledge targets), 5.67 with Protect (40 "
            "such deaths)",
            caveats=(
                "a tolerance of twice the published ratio: the published counts are of one run of their dungeon, and "
                "ours is a toy after its description, so only the order of magnitude of the ratio can transfer",
            ),
        ),
        Comparison(
            "targeted deaths: the '< none' half of Protect < RiskBudget < none",
            f"{dead('risk_budget')} < {dead('none')}",
            "196 < 482",
            "forced (none dies in nearly every game): shown, not counted",
        ),
        Comparison(
            "targeted deaths: Protect < RiskBudget (the published Protect < RiskBudget < none, its half that can fail)",
            f"{dead('protect')} < {dead('risk_budget')}",
            "40 < 196",
            "the risk RiskBudget takes costs deaths",
            holds=near_forced["mechanism_deaths_risk_budget_above_protect"],
            kind="mechanism",
            key="deaths_risk_budget_above_protect",
            threshold="targeted deaths: Protect < RiskBudget (strictly)",
            sentence="the mean deepest level was 3.47 without knowledge (482 deaths from the hazards the knowledge targets), 5.67 with "
            "Protect (40 such deaths) and 6.65 with RiskBudget (196 such deaths; 5.8 risky actions taken per game)",
            caveats=(
                "near-forced, so a mechanism check: Protect never takes a refused descent (a mechanism row) and "
                "RiskBudget takes some, each a chance of the targeted death",
            ),
        ),
        Comparison(
            "Protect declines from first to last third",
            thirds("protect"),
            "6.74 → 5.02",
            "trend claim, as published: the first third includes the warm-up games (finding the pits), which works "
            "against it; without them: the finding below",
            holds=claims["claim_protect_declines"],
            kind="claim",
            key="protect_declines",
            threshold="Protect's mean deepest level, first third − last third of the streams > 0 (warm-up included)",
            sentence="From the first to the last third of the streams Protect fell from 6.74 to 5.02 as learned "
            "refusals accumulated",
        ),
        Comparison(
            "never-expiring gate declines, and more than Protect (first − last third)",
            f"{decline('gate_no_expiry'):+.2f} vs {decline('protect'):+.2f}",
            "+3.71 vs +1.72",
            "trend claim, as published (warm-up games in the first third)",
            holds=claims["claim_no_expiry_gate_declines_more"],
            kind="claim",
            key="no_expiry_gate_declines_more",
            threshold="gate without expiry or floor: first − last third > 0 and > Protect's (warm-up included)",
            sentence="and with a gate that never expires and has no floor from 6.70 to 2.99 — the gate tightening "
            "itself",
        ),
        Comparison(
            "RiskBudget does not decline",
            thirds("risk_budget"),
            "6.29 → 6.94",
            "trend claim, as published: the warm-up games in the first third favour it; without them: the finding below",
            holds=claims["claim_risk_budget_no_decline"],
            kind="claim",
            key="risk_budget_no_decline",
            threshold="RiskBudget's last third ≥ its first third (warm-up included)",
            sentence="while RiskBudget went from 6.29 to 6.94",
        ),
        Comparison(
            "Protect declines without the warm-up games (middle → last third)",
            f"{metrics['protect_middle_third']:.2f} → {metrics['protect_last_third']:.2f}",
            None,
            "the first third is spent finding the pits; the middle third starts after it",
            holds=metrics["finding_protect_declines_after_warmup"],
            kind="finding",
            key="protect_declines_after_warmup",
            threshold="Protect's mean deepest level, middle third − last third > 0",
        ),
        Comparison(
            "RiskBudget does not decline without the warm-up games (middle → last third)",
            f"{metrics['risk_budget_middle_third']:.2f} → {metrics['risk_budget_last_third']:.2f}",
            None,
            "the first third is spent finding the pits; the middle third starts after it",
            holds=metrics["finding_risk_budget_no_decline_after_warmup"],
            kind="finding",
            key="risk_budget_no_decline_after_warmup",
            threshold="RiskBudget's last third ≥ its middle third",
        ),
        Comparison(
            "Protect (and the gate without expiry) never execute a refused descent",
            never_risky,
            None,
            "Protect turns a refusal into 'avoid' and the explorer is asked only on 'unknown'",
            holds=never_risky,
            kind="mechanism",
            key="protect_takes_no_refused_action",
            threshold="risky actions per game = 0 for none, Protect and the gate without expiry",
        ),
        Comparison(
            "RiskBudget never takes a hard prediction (a door that dropped the hero into a pit)",
            f"{metrics['risk_budget_hard_refusals_taken']} of {metrics['risk_budget_hard_refusals_offered']}",
            "never, in any mode",
            "the specification's claim; it holds by construction of RiskBudget.decide, so it is a mechanism check",
            holds=never_hard,
            kind="mechanism",
            key="risk_budget_never_takes_hard",
            threshold="hard refusals RiskBudget took = 0 (of those it was offered)",
        ),
        Comparison(
            "gate replayed from its journal == live gate",
            replay_ok,
            None,
            "every stream, every arm",
            holds=replay_ok,
            kind="mechanism",
            key="gate_replay_matches_live",
            threshold="the replayed gate predicts what the live one does at every (hero, level)",
        ),
    ]

    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
    x = np.arange(1, games + 1)
    for a, marker in zip(ARMS, "osD^"):
        ax.plot(x, depth[a].mean(axis=0), marker=marker, ms=3, lw=1.2, label=ARM_LABELS[a])
    ax.set_xlabel("game in the stream (1 = first game, knowledge accumulates after)")
    ax.set_ylabel(f"mean deepest level (levels, 0–{MAX_DEPTH})")
    ax.set_title(f"Risk dungeon: mean deepest level by game ({streams} streams)")
    ax.set_ylim(0, MAX_DEPTH)
    ax.legend(fontsize=8)
    fig.tight_layout()

    return StudyResult(
        name="risk_dungeon",
        params={"streams": streams, "games": games, "seed": seed},
        metrics=metrics,
        tables={"arms": table, "depth_by_game": by_game},
        comparison=comparison,
        figures={"depth_by_game": fig},
        caveats=[
            f"'none' survives {metrics['none_survived_games']} of {n} games: the '< none' halves of the published "
            "orderings are forced, shown and not counted; the claims keep the halves that can fail.",
            "The trend claims compare the first and last thirds as published; the first third includes the warm-up "
            "games (finding the pits), which favours 'RiskBudget does not decline' and works against 'Protect "
            "declines' — the findings 'after warm-up' compare the middle third instead.",
            "A toy with hand-set hazards and a door memory of our own (not the conservative action model): orderings "
            "and trends are compared, never values.",
            "CI (tests/studies/test_claims.py) checks every row at the quick size (4 streams × 30 games, seeds 0–2); "
            "the full-size verdicts come from the reported run and the stored sweep (docs/sweeps).",
        ],
    )
