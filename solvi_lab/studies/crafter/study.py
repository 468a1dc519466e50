"""Real Crafter: the action model, the agenda and the failure memory on an environment nobody here wrote.

Three experiments on Crafter 1.8.3 (Hafner 2021), read through the symbolic adapter (:mod:`.env`: no pixels):

1. **The action model** (:mod:`.learning`): the explorer's calls on ``train_worlds`` worlds — alone or with the wanderer's
   calls in the same worlds, with the memory :mod:`.defaults` chose — train a conservative
   action model over a vocabulary of generic templates (:mod:`.vocabulary`); its answers on ``test_worlds`` held-out
   worlds (other seeds) are scored — refusal precision and recall, false accepts, abstentions, per action — and
   what it learned is graded against every conditional rule of the installed ``data.yaml`` and the code's move and
   sleep rules (:mod:`.requirements`); three vocabulary ablations are trained on the same calls.
2. **The crafting protocol** (:mod:`.protocol`): six arms over ``protocol_worlds`` worlds, with the Crafter score
   beside the published scoreboard. Our agents read the symbolic state, not pixels: the fair comparison is with the
   random agent and the planner without the knowledge pieces, both measured here.
3. **A changed world** (:mod:`.changed`): a world map carried from one world into another is dropped at the first
   contradicted arrival.

World seeds: training ``1000·seed + 0..``, held out ``1000·seed + 100..``, protocol ``1000·seed + 200..``; each world
is generated once (about a second, see ``reset_s``) and copied for every use (``copy_s``); episodes end at death
or at the step limit of their experiment (Crafter's own length, 10,000, is left as it is).

>>> r = run(train_worlds=1, test_worlds=1, explore_steps=60, protocol_worlds=2, protocol_steps=40, seed=0,
...         progress=False)
>>> r.metrics["requirements_rows"], r.metrics["journals_verified"]
(48, True)
"""

from __future__ import annotations

import ast
import time
from pathlib import Path
from typing import Any

import polars as pl
from tqdm import tqdm

from ..params import Param, ParamSpec
from ..result import Comparison, StudyResult
from . import defaults, evaluation, learning, probe, protocol, requirements
from .changed import carry_map
from .env import measure_reset
from .vocabulary import ABLATIONS

__all__ = ["PARAMS", "QUICK_PARAMS", "FULL_PARAMS", "run", "navigation_lines", "code_lines"]

#: What `solvi-lab list` and the report say about this study (registered in pyproject.toml, solvi_lab.studies).
TITLE = "Real Crafter: the action model, the agenda and the failure memory (symbolic state, no pixels)"
DESCRIPTION = (
    "Crafter 1.8.3: an action model learned from accepted and refused calls, graded against every rule of "
    "its data.yaml and scored on held-out worlds; six arms with the Crafter score beside the published "
    "scoreboard; a carried world map dropped in a changed world."
)

PARAMS = ParamSpec(
    "crafter",
    # full size: 16 training worlds (6 until 2026-12-03), chosen on training worlds of seeds 0-3 only, see
    # docs/readme/crafter.md "The training budget"
    Param(
        "train_worlds", int, full=16, quick=2, meaning="worlds the explorer trains the action model on", low=1, high=200
    ),
    Param(
        "test_worlds",
        int,
        full=4,
        quick=1,
        meaning="held-out worlds (other seeds) the model is scored on",
        low=1,
        high=200,
    ),
    Param(
        "explore_steps",
        int,
        full=1500,
        quick=300,
        meaning="explorer steps per world (fewer when it dies)",
        low=20,
        high=10_000,
    ),
    Param(
        "protocol_worlds",
        int,
        full=8,
        quick=2,
        meaning="worlds every protocol arm plays (one episode each)",
        low=2,
        high=200,
    ),
    Param(
        "protocol_steps",
        int,
        full=1000,
        quick=250,
        meaning="steps per protocol episode (fewer when it dies)",
        low=20,
        high=10_000,
    ),
)
QUICK_PARAMS: dict[str, int] = PARAMS.defaults(quick=True)
FULL_PARAMS: dict[str, int] = PARAMS.defaults(quick=False)


def code_lines(source: str) -> int:
    """Lines of Python code: no blank, comment or docstring lines (docstrings found by ``ast``, so a closing quote
    after text on its line is handled).

    >>> code_lines("def f():\\n    '''Doc,\\n    more.'''\\n\\n    # why\\n    return 1\\n")
    2
    """
    docs: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                docs.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    lines = source.splitlines()
    return sum(1 for i, s in enumerate(lines, start=1) if i not in docs and s.strip() and not s.strip().startswith("#"))


def navigation_lines() -> dict[str, int]:
    """Lines of the navigation adapter (solvi_lab/studies/crafter/navigation.py): all, and code only
    (:func:`code_lines`)."""
    source = (Path(__file__).parent / "navigation.py").read_text()
    return {"all": len(source.splitlines()), "code": code_lines(source)}


def _seeds(seed: int, base: int, n: int) -> list[int]:
    return [1000 * seed + base + i for i in range(n)]


def run(
    train_worlds: int = FULL_PARAMS["train_worlds"],
    test_worlds: int = FULL_PARAMS["test_worlds"],
    explore_steps: int = FULL_PARAMS["explore_steps"],
    protocol_worlds: int = FULL_PARAMS["protocol_worlds"],
    protocol_steps: int = FULL_PARAMS["protocol_steps"],
    seed: int = 0,
    progress: bool = True,
) -> StudyResult:
    """Run the three experiments and compare (see the module docstring)."""
    params = PARAMS.check(
        train_worlds=train_worlds,
        test_worlds=test_worlds,
        explore_steps=explore_steps,
        protocol_worlds=protocol_worlds,
        protocol_steps=protocol_steps,
        seed=seed,
    )
    bar = tqdm(total=5, desc="crafter", disable=not progress)
    t0 = time.perf_counter()
    train_seeds, test_seeds = _seeds(seed, 0, train_worlds), _seeds(seed, 100, test_worlds)
    protocol_seeds = _seeds(seed, 200, protocol_worlds)
    cost, generated = measure_reset(train_seeds + test_seeds + protocol_seeds)
    by_seed = {w.seed: w for w in generated}
    train_calls = learning.record(train_seeds, explore_steps, seed, by_seed, lava_probe=True)
    test_calls = learning.record(test_seeds, explore_steps, seed, by_seed)
    # the wanderer (another policy) in the training worlds, whose calls the other training adds (conditions that
    # do not matter seen to vary: duplicate tools, other neighbours, night; the choice is .defaults'), and in the
    # held-out worlds, where it is the transfer's probe set
    wander_train = evaluation.record([by_seed[s] for s in train_seeds], explore_steps, seed)
    wander_test = evaluation.record([by_seed[s] for s in test_seeds], explore_steps, seed)
    trainings = {"explorer": train_calls, "explorer_wanderer": train_calls + wander_train}
    bar.update()

    # 1. the action model (trained on the default training), its requirements table, the ablations
    graded_by: dict[str, list[requirements.Rule]] = {}
    scored_by: dict[str, dict[str, float]] = {}
    per_action_full = None
    for ablation in ABLATIONS:
        model = learning.train(trainings[defaults.TRAINING], ablation, memory=defaults.MEMORY)
        graded_by[ablation] = requirements.grade(model.snapshot())
        per_action = learning.evaluate(model, test_calls)
        scored_by[ablation] = learning.totals(per_action)
        if ablation == "full":
            per_action_full = per_action
            full_model = model
    bar.update()
    graded = graded_by["full"]
    reached = learning.tree_reached(train_calls)

    # 2. the protocol
    worlds = [by_seed[s] for s in protocol_seeds]
    episodes = protocol.play_arms(worlds, protocol_steps, seed)
    summary = protocol.summarise(episodes, seed)
    bar.update()

    # 4. transfer: each training's model on the calls of another policy (the wanderer) in the held-out worlds
    models = {
        name: full_model if name == defaults.TRAINING else learning.train(c, memory=defaults.MEMORY)
        for name, c in trainings.items()
    }
    transfer_by = {name: evaluation.transfer(m, wander_test) for name, m in models.items()}
    boundary = evaluation.boundary(full_model, test_calls + wander_test)
    boundary_by = {name: evaluation.boundary(m, wander_test) for name, m in models.items()}
    probes = probe.edge_probes(seed)

    # 3. the changed world: world i's map carried into world i+1
    changed = [carry_map(worlds[i], worlds[i + 1], protocol_steps // 2, seed) for i in range(protocol_worlds - 1)]
    bar.update()

    metrics: dict[str, Any] = dict(params)
    metrics.update({k: float(v) for k, v in cost.items()})
    nav = navigation_lines()
    metrics["navigation_lines"] = nav["all"]
    metrics["navigation_code_lines"] = nav["code"]
    metrics["train_calls"] = sum(1 for c in train_calls if c["call"] != "noop")
    metrics["test_calls"] = sum(1 for c in test_calls if c["call"] != "noop")

    def count(rows: list[requirements.Rule], status: str) -> int:
        return sum(1 for r in rows if r.status == status)

    for ablation, rows in graded_by.items():
        prefix = "requirements" if ablation == "full" else f"ablation_{ablation}"
        graded_rows = [r for r in rows if r.kind != "chance"]
        metrics[f"{prefix}_rows"] = len(rows)
        for status in requirements.STATUSES:
            metrics[f"{prefix}_{status.replace(' ', '_').replace('-', '_')}"] = count(graded_rows, status)
        with_data = [r for r in graded_rows if r.status != "no data"]
        metrics[f"{prefix}_exact_share"] = count(graded_rows, "exact") / len(with_data) if with_data else 0.0
        # the stricter reading of "every conditional rule": a row without data is not recovered either
        metrics[f"{prefix}_exact_share_all"] = count(graded_rows, "exact") / len(graded_rows) if graded_rows else 0.0
        s = scored_by[ablation]
        hp = "heldout" if ablation == "full" else f"ablation_{ablation}"
        for k in ("precision", "recall", "false_accepts", "false_refusals", "abstained", "abstention_share"):
            metrics[f"{hp}_{k}"] = s[k]
        if ablation == "full":
            metrics["heldout_refused"] = s["refused"]
    metrics["requirements_chance_rows"] = sum(1 for r in graded if r.kind == "chance")
    metrics["tree_size"] = len(learning.TREE)
    metrics["tree_reached"] = sum(1 for a in learning.TREE if reached[a] > 0)
    deepest = [a for a in learning.TREE if reached[a] > 0]
    metrics["tree_deepest"] = deepest[-1] if deepest else "none"
    metrics["explorer_stone_pickaxe_worlds"] = reached["make_stone_pickaxe"]
    metrics.update(learning.explorer_summary(train_calls))

    for row in summary.iter_rows(named=True):
        a = row["arm"]
        for k in (
            "achievements",
            "steps_survived",
            "deaths",
            "failed_per_100",
            "repeated_per_100",
            "repeated_calls_per_100",
            "checked_out",
            "s1_share",
            "score",
            "score_lo",
            "score_hi",
            "score_chunked8",
            "wood_pickaxe_episodes",
            "stone_pickaxe_episodes",
        ):
            metrics[f"{a}_{k}"] = row[k]
        metrics[f"{a}_steps_to_wood_pickaxe"] = row["steps_to_wood_pickaxe"]
        metrics[f"{a}_steps_to_stone_pickaxe"] = row["steps_to_stone_pickaxe"]
    metrics["length_cap_hits"] = int(episodes.filter(~pl.col("died")).height)

    for name, t in transfer_by.items():
        for k in ("calls", "abstention_share", "false_accepts", "precision", "accept_share"):
            metrics[f"transfer_{name}_{k}"] = t[k]
    metrics["boundary_calls"] = int(boundary["calls"].sum())
    metrics["boundary_accepted"] = int(boundary["accepted"].sum())
    metrics["boundary_predicted_accept"] = int(boundary["predicted_accept"].sum())
    metrics["boundary_false_accepts"] = int(boundary["false_accepts"].sum())
    metrics["installed_differs_rows"] = len(probe.differences(probes))
    metrics["changed_streams"] = len(changed)
    dropped = [c for c in changed if c["dropped_after"] is not None]
    metrics["changed_streams_dropped"] = len(dropped)
    metrics["changed_mean_steps_to_drop"] = sum(c["dropped_after"] for c in dropped) / len(dropped) if dropped else None
    metrics["changed_mean_claims_dropped"] = sum(c["dropped"] for c in dropped) / len(dropped) if dropped else 0.0
    metrics["journals_verified"] = all(c["verified"] for c in changed)
    metrics["seconds"] = time.perf_counter() - t0
    bar.update()
    bar.close()

    tables = {
        "protocol": summary,
        "requirements": _requirements_table(graded, boundary, probes),
        "transfer": pl.DataFrame(
            [
                {
                    "model trained on": k.replace("_", " + "),
                    "default": k == defaults.TRAINING,
                    "probe set": f"the wanderer's calls in the {test_worlds} held-out worlds",
                    **v,
                }
                for k, v in transfer_by.items()
            ]
        ),
        "boundary": boundary.join(
            boundary_by["explorer"].select(
                "action",
                "rule",
                pl.col("calls").alias("wanderer_calls"),
                pl.col("accepted").alias("wanderer_accepted"),
                pl.col("predicted_accept").alias("wanderer_predicted_accept_explorer"),
            ),
            on=["action", "rule"],
        ).join(
            boundary_by["explorer_wanderer"].select(
                "action", "rule", pl.col("predicted_accept").alias("wanderer_predicted_accept_explorer_wanderer")
            ),
            on=["action", "rule"],
        ),
        "probes": pl.DataFrame(probes),
        "heldout_per_action": per_action_full,
        "ablations": pl.DataFrame(
            [
                {
                    "vocabulary": a,
                    "meaning": ABLATIONS[a],
                    "exact": metrics[f"{'requirements' if a == 'full' else 'ablation_' + a}_exact"],
                    "missed": metrics[f"{'requirements' if a == 'full' else 'ablation_' + a}_missed"],
                    **{k: scored_by[a][k] for k in ("precision", "recall", "false_accepts", "abstention_share")},
                }
                for a in ABLATIONS
            ]
        ),
        "tree": pl.DataFrame(
            {"achievement": list(learning.TREE), "training_worlds": [reached[a] for a in learning.TREE]}
        ),
        "changed_world": pl.DataFrame(changed),
        "episodes": episodes,
    }
    return StudyResult("crafter", params, metrics, tables, _comparison(metrics))


def _requirements_table(
    graded: list[requirements.Rule], boundary: pl.DataFrame, probes: list[dict[str, Any]]
) -> pl.DataFrame:
    """The requirements table with each threshold row's calls at exactly its amount (held-out calls of the explorer
    and the wanderer: how many, how many Crafter accepted, how many of those the model predicted "accept"), and a
    row for every probe where the installed Crafter refused a call whose data.yaml rule held."""
    base = requirements.table(graded).with_columns(pl.Series("rule_key", [r.rule for r in graded]))
    at = boundary.select(
        pl.col("action"),
        pl.col("rule").alias("rule_key"),
        pl.col("calls").alias("at_amount_calls"),
        pl.col("accepted").alias("at_amount_accepted"),
        pl.col("predicted_accept").alias("at_amount_predicted_accept"),
    )
    table = base.join(at, on=["action", "rule_key"], how="left").drop("rule_key")
    differs = [
        {
            "action": r["action"],
            "source": "installed code (probe)",
            "requirement": f"{r['rule']}; player at {r['where']} {r['position']}",
            "condition": "near:" + ",".join(m for m in ("table", "furnace") if m in r["rule"]),
            "status": "installed differs",
            "learned": "refused: world.nearby slices the map from x−1 (or y−1), empty at the first column/row",
        }
        for r in probe.differences(probes)
    ]
    return pl.concat([table, pl.DataFrame(differs, schema=requirements.table(graded).schema)], how="diagonal")


def _comparison(m: dict[str, Any]) -> list[Comparison]:
    rows: list[Comparison] = []
    d = defaults.TRAINING  # the default training and the other one
    o = next(t for t in defaults.TRAININGS if t != d)
    note = "ours read the symbolic state (no pixels); compare with the random agent and the planner we measured"
    for arm in protocol.ARMS:
        pub = protocol.PUBLISHED_SCORES["random"] if arm == "random" else None
        rows.append(
            Comparison(
                f"Crafter score, {protocol.ARM_LABELS[arm]} (95% interval {m[f'{arm}_score_lo']:.1f}–"
                f"{m[f'{arm}_score_hi']:.1f})",
                m[f"{arm}_score"],
                pub,
                note if arm != "random" else "the same uniformly random policy, measured by us on our worlds",
                key=f"score_{arm}",
            )
        )
    for name, value in protocol.PUBLISHED_SCORES.items():
        if name != "random":
            rows.append(Comparison(f"Crafter score, {name} (published, pixels)", None, value, key=f"published_{name}"))
    rows += [
        Comparison(
            "requirements missed (a false accept possible)",
            m["requirements_missed"],
            None,
            "every conditional rule of data.yaml and the code's move/sleep/place rules",
            holds=m["requirements_missed"] == 0,
            kind="finding",
            key="requirements_none_missed",
            threshold="0 missed (our own target: the specification states no Crafter figure)",
        ),
        Comparison(
            "requirements recovered exactly (of the rules with data)",
            m["requirements_exact_share"],
            None,
            f"{m['requirements_exact']} exact, {m['requirements_over_conservative']} over-conservative, "
            f"{m['requirements_no_data']} without data; of all graded rows {m['requirements_exact_share_all']:.1%} "
            "exact",
            holds=m["requirements_exact_share"] >= 0.9,
            kind="finding",
            key="requirements_90_exact",
            threshold="≥ 90% exact (our own target: the specification states no Crafter figure)",
            caveats=(
                "the training budget (training worlds) was chosen as the smallest at which this target holds, on "
                "training worlds of four of the reported seeds: not fixed before looking",
            ),
        ),
        Comparison(
            "requirements recovered exactly (of all graded rows)",
            m["requirements_exact_share_all"],
            None,
            f"{m['requirements_exact']} of {m['requirements_rows'] - m['requirements_chance_rows']} graded rows exact; "
            f"{m['requirements_no_data']} without data (never accepted in training), "
            f"{m['requirements_over_conservative']} over-conservative",
            holds=m["requirements_exact_share_all"] >= 0.9,
            kind="finding",
            key="requirements_90_exact_all",
            threshold="≥ 90% of all graded rows exact (our own target: issue 46, item 3)",
        ),
        Comparison(
            "false accepts on held-out worlds",
            m["heldout_false_accepts"],
            None,
            f"abstentions {m['heldout_abstained']} ({m['heldout_abstention_share']:.1%} of calls); refusal precision "
            f"{m['heldout_precision']:.3f}, recall {m['heldout_recall']:.3f}",
            holds=m["heldout_false_accepts"] == 0,
            kind="finding",
            key="heldout_no_false_accepts",
            threshold="0 false accepts (our own target)",
            caveats=(
                "symbolic state, not pixels: the model reads Crafter's own state, so its numbers sit beside pixel-based "
                "results only as a different task",
            ),
        ),
        Comparison(
            "transfer: false accepts on another policy's calls in held-out worlds (the wanderer)",
            m[f"transfer_{d}_false_accepts"],
            None,  # our own target (in the threshold): the specification states no Crafter figure
            f"the model trained on {defaults.TRAININGS[d]} (the default, docs/sweeps/crafter_defaults.json); "
            f"trained on {defaults.TRAININGS[o]}: {m[f'transfer_{o}_false_accepts']} (of {m[f'transfer_{o}_calls']} "
            "calls)",
            holds=m[f"transfer_{d}_false_accepts"] == 0 and m[f"transfer_{o}_false_accepts"] == 0,
            kind="finding",
            key="transfer_no_false_accepts",
            threshold="0 false accepts, both trainings (our own target: issue 43)",
        ),
        Comparison(
            "transfer: abstention on the wanderer's held-out calls",
            m[f"transfer_{d}_abstention_share"],
            None,  # our own target (in the threshold)
            f"calls Crafter accepted that the model accepts: {m[f'transfer_{d}_accept_share']:.1%}; trained on "
            f"{defaults.TRAININGS[o]}: {m[f'transfer_{o}_abstention_share']:.1%} abstained, "
            f"{m[f'transfer_{o}_accept_share']:.1%} of accepted calls accepted",
            holds=m[f"transfer_{d}_abstention_share"] <= 0.2 and m[f"transfer_{d}_accept_share"] >= 0.75,
            kind="finding",
            key="transfer_abstention_20",
            threshold="≤ 20% abstained and ≥ 75% of accepted calls predicted accept (our own target: issue 43)",
        ),
        Comparison(
            "the explorer makes a stone pickaxe (deep tech tree)",
            m["explorer_stone_pickaxe_worlds"],
            None,
            f"tech tree reached: {m['tree_reached']} of {m['tree_size']} (deepest {m['tree_deepest']})",
            holds=m["explorer_stone_pickaxe_worlds"] > 0,
            kind="finding",
            key="explorer_reaches_stone_pickaxe",
            threshold="≥ 1 training world (our own target)",
        ),
        Comparison(
            "planner scores above random",
            m["planner_score"],
            None,
            f"the same planner without the knowledge pieces vs uniformly random actions ({m['random_score']:.2f})",
            holds=m["planner_score"] > m["random_score"],
            kind="finding",
            key="planner_beats_random",
            threshold="planner score > random score",
        ),
        Comparison(
            "carried model + agenda scores above the planner without pieces",
            m["carried_agenda_score"],
            None,
            f"the knowledge pieces together vs none of them (planner {m['planner_score']:.2f})",
            holds=m["carried_agenda_score"] > m["planner_score"],
            kind="finding",
            key="pieces_beat_planner",
            threshold="carried_agenda score > planner score",
        ),
        Comparison(
            "carried + agenda fails less than the agenda alone (failed calls per 100 steps)",
            m["carried_agenda_failed_per_100"],
            None,
            f"the documented gates have no amounts; the carried model learns them (agenda alone "
            f"{m['agenda_failed_per_100']:.2f})",
            holds=m["carried_agenda_failed_per_100"] < m["agenda_failed_per_100"],
            kind="finding",
            key="carried_fixes_documented_gates",
            threshold="carried_agenda < agenda",
        ),
        Comparison(
            "failure memory: repeated failed calls per 100 steps vs the proposer that does not learn",
            m["failure_memory_repeated_calls_per_100"],
            None,
            f"the same call (moves excepted) failing in the same situation within 10 steps (proposer "
            f"{m['proposer_repeated_calls_per_100']:.2f}; the check turned the planner away "
            f"{m['failure_memory_checked_out']} times; with moves: {m['failure_memory_repeated_per_100']:.2f} vs "
            f"{m['proposer_repeated_per_100']:.2f})",
            holds=m["failure_memory_repeated_calls_per_100"] < m["proposer_repeated_calls_per_100"],
            kind="finding",
            key="failure_memory_fewer_repeats",
            threshold="failure_memory < proposer",
        ),
        Comparison(
            "a carried world map is dropped at the first contradicted arrival",
            f"{m['changed_streams_dropped']} of {m['changed_streams']}",
            None,
            f"after {m['changed_mean_steps_to_drop']} steps in the new world on average"
            if m["changed_mean_steps_to_drop"] is not None
            else "no stream met a contradiction",
            holds=m["journals_verified"],
            kind="mechanism",
            key="changed_world_drop",
            threshold="dropped at the first contradiction; journals verify",
        ),
    ]
    return rows
