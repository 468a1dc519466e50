"""Transfer: the action model asked about calls another policy makes, on held-out worlds.

The explorer (:mod:`.explorer`) makes the calls the model is trained on; scored on the explorer's own held-out
worlds, the model meets the states that policy produces. :class:`Wanderer` is a different policy, written apart
from the explorer and from the planner: a search over the seen map mixed with random actions — it walks to a cell
of a kind it has seen (a tree, stone, water, a cow, a table ...), then makes a call there (``do`` mostly, or any
place/make), and a third of its actions are uniformly random. It never plans for an item, never shelters, holds
duplicates of tools and stands next to whatever it meets: the states the explorer avoids.

:func:`transfer` reports, on the wanderer's calls in held-out worlds, for a model: abstention, false accepts, the
share of the calls Crafter accepted that the model predicted "accept", and (:func:`boundary`) the calls made at
exactly each rule's amount (``inv:x`` equal to the rule's ``n``) with how many of them the model accepted.

>>> import random
>>> from .env import CrafterWorld
>>> w = CrafterWorld(seed=2); p = Wanderer(random.Random(0))
>>> p.act(w.state) in ACTIONS
True
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import polars as pl

from ...actions import ConservativeActionModel
from .env import ACTIONS, NONE, CrafterWorld, SymState
from .navigation import Navigator
from .requirements import rules

__all__ = ["Wanderer", "RANDOM_SHARE", "record", "transfer", "boundary"]

RANDOM_SHARE = 1 / 3  # share of uniformly random actions
KEEP = 30  # steps it walks towards one kind of target before it picks another
CALLS = tuple(a for a in ACTIONS if a.startswith(("place_", "make_")))
OPEN = ("grass", "sand", "path")


class Wanderer:
    """A search over the seen map mixed with random actions (see the module docstring)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.nav = Navigator()
        self._target: tuple[str, int] | None = None  # (kind, step chosen)
        self._step = 0

    def act(self, state: SymState) -> str:
        """The next action (``noop`` while asleep: the environment would override any other)."""
        self._step += 1
        self.nav.see(state)
        rng = self.rng
        if state.sleeping:
            return "noop"
        if rng.random() < RANDOM_SHARE:
            return self.nav.safe(state, rng.choice(ACTIONS[1:]), rng)
        material, creature = state.faced
        if material not in OPEN or creature != NONE:
            return "do" if rng.random() < 0.6 else rng.choice(CALLS)
        if rng.random() < 0.1:
            return rng.choice(CALLS + ("do",))  # on open ground: a placement (or a sapling) now and then
        kind = self._pick()
        if kind is not None:
            cells = self.nav.creatures_of([kind]) or self.nav.cells_of([kind])
            step = self.nav.face(state, cells)
            if step:
                return step
            self._target = None
        return self.nav.frontier(state, rng)

    def _pick(self) -> str | None:
        if self._target is None or self._step - self._target[1] > KEEP:
            kinds = sorted({m for m in self.nav.cells.values() if m not in OPEN} | set(self.nav.creatures.values()))
            kinds = [k for k in kinds if k not in ("lava", "arrow", "outside")]
            self._target = (self.rng.choice(kinds), self._step) if kinds else None
        return None if self._target is None else self._target[0]


def record(worlds: list[CrafterWorld], steps: int, seed: int) -> list[dict[str, Any]]:
    """The wanderer's calls over copies of the worlds (one episode each, at most ``steps`` steps or until death):
    world, call, state before, accepted, effect."""
    out: list[dict[str, Any]] = []
    for base in worlds:
        w = base.copy()
        policy = Wanderer(random.Random(f"{seed}-{w.seed}-wander"))
        n = 0
        while not w.done and n < steps:
            st = w.step(policy.act(w.state))
            n += 1
            if st.call is not None:
                out.append(
                    {
                        "world": w.seed,
                        "call": st.call,
                        "state": st.before,
                        "accepted": bool(st.accepted),
                        "effect": st.effect,
                    }
                )
    return out


def transfer(model: ConservativeActionModel, calls: list[dict[str, Any]]) -> dict[str, float]:
    """The model on another policy's calls: calls, abstentions and their share, false accepts, refusal precision,
    and the share of the calls Crafter accepted that the model predicted "accept"."""
    n = abstained = false_accepts = caught = pred_refuse = accepted = accepted_pred = 0
    for c in calls:
        p = model.predict(c["state"], c["call"], {})
        n += 1
        abstained += p.verdict == "unknown"
        false_accepts += p.verdict == "accept" and not c["accepted"]
        pred_refuse += p.verdict == "refuse"
        caught += p.verdict == "refuse" and not c["accepted"]
        accepted += c["accepted"]
        accepted_pred += c["accepted"] and p.verdict == "accept"
    return {
        "calls": n,
        "abstained": abstained,
        "abstention_share": abstained / n if n else 0.0,
        "false_accepts": false_accepts,
        "precision": caught / pred_refuse if pred_refuse else 1.0,
        "pred_refuse": pred_refuse,
        "caught": caught,
        "env_accepted": accepted,
        "accepted_predicted_accept": accepted_pred,
        "accept_share": accepted_pred / accepted if accepted else 0.0,
    }


def boundary(model: ConservativeActionModel, calls: list[dict[str, Any]]) -> pl.DataFrame:
    """Per threshold rule of data.yaml (``inv:x>=n``): the calls of its action made with exactly n of x, how many
    Crafter accepted, how many of those the model predicted "accept", and false accepts among them."""
    thresholds = [r for r in rules() if r.kind == "threshold"]
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for c in calls:
        for r in thresholds:
            if r.action != c["call"]:
                continue
            item, k = r.rule[len("inv:") :].split(">=")
            if c["state"].inventory[item] != int(k):
                continue
            verdict = model.predict(c["state"], c["call"], {}).verdict
            row = counts[(r.action, r.rule)]
            row["calls"] += 1
            row["accepted"] += c["accepted"]
            row["predicted_accept"] += c["accepted"] and verdict == "accept"
            row["false_accepts"] += (not c["accepted"]) and verdict == "accept"
    keys = ("calls", "accepted", "predicted_accept", "false_accepts")
    return pl.DataFrame(
        [
            {"action": r.action, "rule": r.rule, **{k: int(counts[(r.action, r.rule)][k]) for k in keys}}
            for r in thresholds
        ],
        schema={"action": pl.String, "rule": pl.String, **{k: pl.Int64 for k in keys}},
    )
