"""τ-bench retail: a conservative action model learned from probes around gold trajectories (no LLM).

Protocol: probes (:mod:`.probes`) around the gold steps of the first ``train_tasks`` training tasks train a
:class:`~solvi_lab.actions.ConservativeActionModel` over a vocabulary from generic templates
(:mod:`.vocabulary`); the probes of the first ``test_tasks`` test tasks are held out. Measured: refusal precision
and recall over the held-out transitions the model answers, abstentions ("unknown"), replay of every training
transition, three vocabulary ablations (no pair features, no money comparisons, neither), effect exactness (the
touched order's new status) and abstentions by tool.

>>> r = run(**QUICK_PARAMS)   # doctest: +SKIP
>>> r.metrics["refusal_precision"]   # doctest: +SKIP
1.0
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import polars as pl
from matplotlib.figure import Figure

from ...actions import ConservativeActionModel
from ...errors import BadParameter
from ...knowledge import KnowledgeStore
from ..params import Param, ParamSpec
from ..result import Comparison, StudyResult
from .data import find_data_dir, load_retail
from .env import RetailEnv
from .probes import DEFAULT_BUDGET, Transition, split_probes
from .tools import WRITING_TOOLS
from .vocabulary import build_vocabulary

__all__ = ["run", "QUICK_PARAMS", "FULL_PARAMS", "PUBLISHED", "evaluate"]

PARAMS = ParamSpec(
    "taubench_action_model",
    Param(
        "train_tasks",
        int,
        full=400,
        quick=40,
        meaning="training tasks probed (the first n of the split)",
        low=1,
        high=500,
    ),
    Param(
        "test_tasks",
        int,
        full=115,
        quick=20,
        meaning="held-out test tasks probed (the first n of the split)",
        low=1,
        high=115,
    ),
    Param(
        "budget",
        int,
        full=DEFAULT_BUDGET,
        quick=DEFAULT_BUDGET,
        meaning="probe transitions per task",
        low=1,
        high=10_000,
    ),
    Param("pairs", bool, full=True, quick=True, meaning="pair-feature templates in the main vocabulary"),
    Param("money", bool, full=True, quick=True, meaning="money-comparison templates in the main vocabulary"),
    Param("ablations", bool, full=True, quick=True, meaning="also train the three vocabulary ablations"),
    Param(
        "data_dir",
        str,
        full=None,
        quick=None,
        meaning="τ-bench retail data folder (null: SOLVI_LAB_TAUBENCH or shared/data)",
        optional=True,
    ),
)
QUICK_PARAMS: dict[str, Any] = PARAMS.defaults(quick=True)
FULL_PARAMS: dict[str, Any] = PARAMS.defaults(quick=False)

#: The specification's figures (benchmarks/knowledge/taubench_action_model.py, as published).
PUBLISHED: dict[str, Any] = {
    "train_transitions": 41_626,
    "train_refused": 26_772,
    "test_transitions": 11_763,
    "test_refused": 7_626,
    "answered_refusals": 7_602,
    "refusal_precision": 1.000,
    "refusal_recall": 1.000,
    "abstentions": 30,
    "abstention_pct": 0.26,
    "replay_correct": 41_626,
    "no_pairs_abstention_pct": 2.6,
    "no_pairs_precision": 1.000,
    "no_money_abstention_pct": 10.7,
    "no_money_false_refusals": 1,
    "neither_abstention_pct": 12.9,
    "neither_false_refusals": 1,
    "effects_exact": 2_585,
    "effects_predicted": 2_587,
    "effects_none": 1_544,
}


def _check(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadParameter(f"{name} must be an integer in {low}..{high}, got {value!r}.")
    return value


def train(transitions: list[Transition], vocab: Any, store: Any = None) -> ConservativeActionModel:
    """A model that observed every transition, in order."""
    model = ConservativeActionModel(vocab, store=store)
    for t in transitions:
        model.observe(t.state, t.tool, t.args, t.accepted, t.effect)
    return model


def evaluate(model: ConservativeActionModel, transitions: list[Transition]) -> dict[str, Any]:
    """Refusal precision/recall over answered transitions, abstentions (total and by tool), effect exactness.

    >>> evaluate.__name__
    'evaluate'
    """
    n = len(transitions)
    tp = fp = fn = tn = 0
    abstain: Counter = Counter()
    by_tool: Counter = Counter()
    eff_exact = eff_pred = eff_none = 0
    false_refusals: list[str] = []
    for t in transitions:
        p = model.predict(t.state, t.tool, t.args)
        by_tool[t.tool] += 1
        if t.accepted:  # effects are judged on the calls the environment accepted
            if p.detail.get("effect_predicted"):
                eff_pred += 1
                eff_exact += p.effects == (t.effect or {})
            else:
                eff_none += 1
        if p.verdict == "unknown":
            abstain[t.tool] += 1
        elif p.verdict == "refuse":
            if t.accepted:
                fp += 1
                false_refusals.append(f"{t.tool} ({t.origin}): {p.reason[:200]}")
            else:
                tp += 1
        elif t.accepted:
            tn += 1
        else:
            fn += 1
    answered_refusals = tp + fn
    n_abstain = sum(abstain.values())
    n_write = sum(c for tool, c in by_tool.items() if tool in WRITING_TOOLS)
    write_abstain = sum(c for tool, c in abstain.items() if tool in WRITING_TOOLS)
    return {
        "transitions": n,
        "refused": sum(not t.accepted for t in transitions),
        "answered": n - n_abstain,
        "answered_refusals": answered_refusals,
        "true_refusals": tp,
        "false_refusals": fp,
        "false_accepts": fn,
        "refusal_precision": tp / (tp + fp) if tp + fp else 1.0,
        "refusal_recall": tp / answered_refusals if answered_refusals else 1.0,
        "abstentions": n_abstain,
        "abstention_pct": 100.0 * n_abstain / n if n else 0.0,
        "write_transitions": n_write,
        "write_abstentions": write_abstain,
        "write_abstention_pct": 100.0 * write_abstain / n_write if n_write else 0.0,
        "abstain_by_tool": dict(abstain),
        "calls_by_tool": dict(by_tool),
        "effects_exact": eff_exact,
        "effects_predicted": eff_pred,
        "effects_none": eff_none,
        "false_refusal_examples": false_refusals[:5],
    }


def _replay(model: ConservativeActionModel, transitions: list[Transition]) -> int:
    """How many training transitions the trained model predicts correctly (accept ↔ accepted, refuse ↔ refused)."""
    ok = 0
    for t in transitions:
        ok += model.predict(t.state, t.tool, t.args).verdict == ("accept" if t.accepted else "refuse")
    return ok


def _figure(table: pl.DataFrame, title: str) -> Figure:
    fig = Figure(figsize=(8, 4.2))
    ax = fig.add_subplot(1, 1, 1)
    rows = table.filter(pl.col("held_out") > 0)
    names = rows["tool"].to_list()
    counts = rows["abstentions"].to_list()
    bars = ax.barh(names, counts, color="#4a78a8")
    for bar, count, total in zip(bars, counts, rows["held_out"].to_list()):
        ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, f" {count} of {total}", va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("held-out transitions answered 'unknown' (count)")
    ax.set_ylabel("tool")
    ax.set_title(title)
    ax.set_xlim(0, max([*counts, 1]) * 1.35)
    fig.tight_layout()
    return fig


def run(
    train_tasks: int = FULL_PARAMS["train_tasks"],
    test_tasks: int = FULL_PARAMS["test_tasks"],
    seed: int = 0,
    pairs: bool = True,
    money: bool = True,
    data_dir: str | None = None,
    ablations: bool = True,
    budget: int = DEFAULT_BUDGET,
) -> StudyResult:
    """Train on probes of the first `train_tasks` training tasks, evaluate on probes of the first `test_tasks` test tasks.

    pairs, money: the template families of the main vocabulary. ablations: also train without pairs, without
    money, without both (each on the same probes). Raises DataMissing (with how to get it) when the data is absent.
    """
    PARAMS.check(
        train_tasks=train_tasks,
        test_tasks=test_tasks,
        seed=seed,
        pairs=pairs,
        money=money,
        data_dir=data_dir,
        ablations=ablations,
        budget=budget,
    )
    t_start = time.perf_counter()
    directory = find_data_dir(data_dir)  # DataMissing says how to get the data
    data = load_retail(directory)
    _check("train_tasks", train_tasks, 1, len(data.tasks["train"]))
    _check("test_tasks", test_tasks, 1, len(data.tasks["test"]))
    _check("seed", seed, -(2**63), 2**63 - 1)
    _check("budget", budget, 1, 10_000)
    base = RetailEnv(data)

    t0 = time.perf_counter()
    train_set = split_probes(data, "train", train_tasks, seed=seed, budget=budget, base=base)
    test_set = split_probes(data, "test", test_tasks, seed=seed, budget=budget, base=base)
    probe_s = time.perf_counter() - t0

    vocab = build_vocabulary(data.tools, base.state, pairs=pairs, money=money)
    t0 = time.perf_counter()
    store = KnowledgeStore()  # in memory: the observations are journaled, then replayed below
    model = train(train_set, vocab, store=store)
    train_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ev = evaluate(model, test_set)
    predict_s = time.perf_counter() - t0
    replay_ok = _replay(model, train_set)
    # the journal holds only condition vectors; the model rebuilt from it must be the live one
    again = ConservativeActionModel.replay(store, vocab)
    journal_equal = again.snapshot() == model.snapshot()

    metrics: dict[str, Any] = {
        "train_tasks": train_tasks,
        "test_tasks": test_tasks,
        "seed": seed,
        "train_transitions": len(train_set),
        "train_refused": sum(not t.accepted for t in train_set),
        "test_transitions": ev["transitions"],
        "test_refused": ev["refused"],
        "answered": ev["answered"],
        "answered_refusals": ev["answered_refusals"],
        "true_refusals": ev["true_refusals"],
        "false_refusals": ev["false_refusals"],
        "false_accepts": ev["false_accepts"],
        "refusal_precision": ev["refusal_precision"],
        "refusal_recall": ev["refusal_recall"],
        "abstentions": ev["abstentions"],
        "abstention_pct": round(ev["abstention_pct"], 4),
        "write_transitions": ev["write_transitions"],
        "write_abstentions": ev["write_abstentions"],
        "write_abstention_pct": round(ev["write_abstention_pct"], 4),
        "replay_correct": replay_ok,
        "replay_all": replay_ok == len(train_set),
        "journal_replay_equal": journal_equal,
        "effects_exact": ev["effects_exact"],
        "effects_predicted": ev["effects_predicted"],
        "effects_none": ev["effects_none"],
        "vocabulary_conditions": len(vocab.names),
        "vocabulary_fingerprint": vocab.fingerprint,
        "signatures": sum(len(b["signatures"]) for b in model.snapshot().values()),
        "unexplained_refusals": sum(b["support"]["unexplained"] for b in model.snapshot().values()),
    }
    ablation_rows = []
    if ablations:
        for label, p_on, m_on in (("no_pairs", False, money), ("no_money", pairs, False), ("neither", False, False)):
            v = build_vocabulary(data.tools, base.state, pairs=p_on, money=m_on)
            e = evaluate(train(train_set, v), test_set)
            metrics[f"{label}_abstentions"] = e["abstentions"]
            metrics[f"{label}_abstention_pct"] = round(e["abstention_pct"], 4)
            metrics[f"{label}_false_refusals"] = e["false_refusals"]
            metrics[f"{label}_precision"] = e["refusal_precision"]
            metrics[f"{label}_recall"] = e["refusal_recall"]
            ablation_rows.append((label, e))
    wall = time.perf_counter() - t_start
    metrics.update(
        {
            "probe_seconds": round(probe_s, 2),
            "train_seconds": round(train_s, 2),
            "predict_seconds": round(predict_s, 2),
            "wall_seconds": round(wall, 2),
        }
    )

    tools = sorted(ev["calls_by_tool"])
    by_tool = pl.DataFrame(
        {
            "tool": tools,
            "held_out": [ev["calls_by_tool"][t] for t in tools],
            "abstentions": [ev["abstain_by_tool"].get(t, 0) for t in tools],
        }
    ).with_columns((100.0 * pl.col("abstentions") / pl.col("held_out")).round(2).alias("abstention_pct"))
    ablation_table = pl.DataFrame(
        {
            "vocabulary": ["full", *[r[0] for r in ablation_rows]],
            "abstentions": [ev["abstentions"], *[r[1]["abstentions"] for r in ablation_rows]],
            "abstention_pct": [
                round(ev["abstention_pct"], 2),
                *[round(r[1]["abstention_pct"], 2) for r in ablation_rows],
            ],
            "false_refusals": [ev["false_refusals"], *[r[1]["false_refusals"] for r in ablation_rows]],
            "precision": [ev["refusal_precision"], *[r[1]["refusal_precision"] for r in ablation_rows]],
            "recall": [ev["refusal_recall"], *[r[1]["refusal_recall"] for r in ablation_rows]],
        }
    )
    model_table = model.frame()

    result = StudyResult(
        name="taubench_action_model",
        params={
            "train_tasks": train_tasks,
            "test_tasks": test_tasks,
            "seed": seed,
            "pairs": pairs,
            "money": money,
            "ablations": ablations,
            "budget": budget,
        },
        metrics=metrics,
        tables={"abstention_by_tool": by_tool, "ablations": ablation_table, "model": model_table},
        comparison=_comparison(metrics, ev, full=(train_tasks, test_tasks) == (400, 115), ablations=ablations),
        figures={
            "abstention_by_tool": _figure(by_tool, f"Abstentions by tool ({ev['transitions']:,} held-out transitions)")
        },
    )
    return result


def _comparison(m: dict[str, Any], ev: dict[str, Any], full: bool, ablations: bool) -> list[Comparison]:
    P = PUBLISHED
    size = "" if full else " (quick: fewer tasks than published)"
    gen = (
        "our probe generator is our own (same idea: gold steps and one-dimension variations, ~100 per task); "
        "counts differ by construction" + size
    )
    rows = [
        Comparison("training transitions", m["train_transitions"], P["train_transitions"], gen),
        Comparison("training transitions refused", m["train_refused"], P["train_refused"], gen),
        Comparison("held-out transitions", m["test_transitions"], P["test_transitions"], gen),
        Comparison("held-out transitions refused", m["test_refused"], P["test_refused"], gen),
        Comparison(
            "answered held-out refusals",
            m["answered_refusals"],
            P["answered_refusals"],
            "refusals the model did not abstain on",
        ),
        Comparison(
            "refusal precision (answered held-out)",
            m["refusal_precision"],
            P["refusal_precision"],
            f"{m['false_refusals']} false refusals",
            holds=m["refusal_precision"] == 1.0,
        ),
        Comparison(
            "refusal recall (answered held-out)",
            m["refusal_recall"],
            P["refusal_recall"],
            f"{m['false_accepts']} refused calls predicted 'accept'",
            holds=m["refusal_recall"] >= 0.999,
        ),
        Comparison("abstentions (held-out, count)", m["abstentions"], P["abstentions"], "'unknown' answers"),
        Comparison(
            "abstentions (% of held-out)",
            round(m["abstention_pct"], 2),
            P["abstention_pct"],
            "target ≤ 0.5%",
            holds=m["abstention_pct"] <= 0.5,
        ),
        Comparison(
            "abstentions (% of held-out write-tool calls)",
            round(m["write_abstention_pct"], 2),
            None,
            f"{m['write_abstentions']} of {m['write_transitions']}: without the read-only lookups in the denominator",
        ),
        Comparison(
            "training transitions replayed correctly",
            m["replay_correct"],
            P["replay_correct"],
            f"of {m['train_transitions']}: all={m['replay_all']}; journal replay == live model: {m['journal_replay_equal']}",
            holds=bool(m["replay_all"] and m["journal_replay_equal"]),
        ),
    ]
    if ablations:
        rows += [
            Comparison(
                "no pairs: abstention %",
                round(m["no_pairs_abstention_pct"], 2),
                P["no_pairs_abstention_pct"],
                f"precision {m['no_pairs_precision']:.4f} (published 1.000), {m['no_pairs_false_refusals']} false refusals",
            ),
            Comparison("no pairs: precision", m["no_pairs_precision"], P["no_pairs_precision"], ""),
            Comparison(
                "no money: abstention %",
                round(m["no_money_abstention_pct"], 2),
                P["no_money_abstention_pct"],
                f"precision {m['no_money_precision']:.4f}",
            ),
            Comparison("no money: false refusals", m["no_money_false_refusals"], P["no_money_false_refusals"], ""),
            Comparison(
                "neither: abstention %",
                round(m["neither_abstention_pct"], 2),
                P["neither_abstention_pct"],
                f"precision {m['neither_precision']:.4f}",
            ),
            Comparison("neither: false refusals", m["neither_false_refusals"], P["neither_false_refusals"], ""),
            Comparison(
                "claim: each ablation abstains more than the full vocabulary",
                None,
                None,
                "the published ordering full < no pairs < no money < neither is not asserted, only 'more than full'",
                holds=all(m[f"{k}_abstentions"] >= m["abstentions"] for k in ("no_pairs", "no_money", "neither")),
            ),
        ]
    rows += [
        Comparison(
            "effects: exact new order status",
            m["effects_exact"],
            P["effects_exact"],
            f"of {m['effects_predicted']} accepted held-out calls with an effect prediction (published of 2,587)",
        ),
        Comparison(
            "effects: accepted calls with an effect prediction", m["effects_predicted"], P["effects_predicted"], ""
        ),
        Comparison(
            "effects: accepted calls with no effect prediction",
            m["effects_none"],
            P["effects_none"],
            "condition values seen with different effects",
        ),
        Comparison("wall time, whole study (s)", m["wall_seconds"], None, "target < 180 s on 2 cores (full)"),
    ]
    return rows
