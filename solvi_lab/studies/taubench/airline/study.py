"""τ-bench airline: the conservative action model on a second domain, and against a real agent's calls (no LLM).

Protocol:

1. *Gold replay*: every task's gold actions on fresh data (all must be accepted; final data compared with
   upstream's hashes in ``data/expected/taubench_airline_gold_final_hashes.json``).
2. *Probe evaluation*, two folds: the 50 tasks split by index parity (fold ``even``: tasks 0, 2, …; ``odd``:
   1, 3, …). A model trained on the probes around the gold steps of one fold's tasks is evaluated on the other
   fold's probes: refusal precision and recall over the answered transitions, abstentions; three vocabulary
   ablations (no pair features, no money, neither).
3. *The real agent*: the 200 recorded GPT-4o runs replayed in order on our environment, each from fresh data;
   our responses compared with the recorded ones (every difference classified); before each call, the model
   trained on the *other* fold's tasks predicts it. Refused calls predicted refused (recall), predicted refusals
   that were accepted (precision), "unknown" (abstention), for writes and reads, per fold and together; and what
   :class:`~solvi_lab.risk.Protect` does with each prediction.
4. *Transfer*: which of retail's vocabulary templates carry over unchanged, which are retail's templates over the
   airline data model, which are new.

>>> r = run(**QUICK_PARAMS)   # doctest: +SKIP
>>> r.metrics["agent_refused"], r.metrics["agent_refused_predicted"]   # doctest: +SKIP
(73, 72)
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.figure import Figure

from ....actions import ConservativeActionModel
from ....knowledge import KnowledgeStore
from ....risk import Protect
from ...params import Param, ParamSpec
from ...result import Comparison, StudyResult
from ..blind_probes import BLIND_SEED, blind_family, blind_probes
from ..domain import replay_gold
from ..reading_probes import reading_family, reading_probes
from ..scoring import family_table, probe_set_rows, score, unseen_rows
from ..shared_reads import SharedReads
from ..study import _schema_rows, evaluate, probe_family, train
from .data import find_airline_dir, load_airline, load_trajectories
from .env import AirlineEnv
from .probes import DEFAULT_BUDGET, Transition, effect_of, tasks_explore, tasks_probes
from .tools import WRITING_TOOLS
from .trajectories import parse_runs, replay_runs
from .vocabulary import TEMPLATE_ORIGIN, build_vocabulary, template_of

__all__ = ["run", "PARAMS", "QUICK_PARAMS", "FULL_PARAMS", "FOLDS", "agent_tally"]

#: What `solvi-lab list` and the report say about this study (registered in pyproject.toml, solvi_lab.studies).
TITLE = "τ-bench airline: the action model on a second domain and on a real agent's 1,164 calls (no LLM)"
DESCRIPTION = (
    "Probes around the gold steps of half of the 50 airline tasks train the model, the other half is held "
    "out (two folds); then the 200 recorded GPT-4o runs are replayed on our environment and each call is "
    "predicted before it is made: recall and precision on the refused calls, abstentions, Protect. "
    "Needs the τ-bench airline data."
)
NEEDS_DATA = True  # located by the sibling module `data` (find_data_dir), which says how to get it

PARAMS = ParamSpec(
    "taubench_airline",
    Param(
        "budget",
        int,
        full=DEFAULT_BUDGET,
        quick=40,
        meaning="probe transitions per task, about (gold calls always kept)",
        low=1,
        high=10_000,
    ),
    Param("ablations", bool, full=True, quick=True, meaning="also train the three vocabulary ablations per fold"),
    Param(
        "blind",
        bool,
        full=True,
        quick=True,
        meaning="also score the models on the blind probes (blind_probes.py, frozen seed) of the other fold's tasks",
    ),
    Param(
        "blind_budget",
        int,
        full=60,
        quick=20,
        meaning="blind probe transitions per task, about (gold calls, balance edges and chains always kept)",
        low=1,
        high=10_000,
    ),
    Param(
        "schema_family",
        bool,
        full=True,
        quick=True,
        meaning="the schema family (schema_templates.py) in the main vocabulary; its ablation (the other way) is also "
        "trained per fold and scored everywhere",
    ),
    Param(
        "explore_schema",
        bool,
        full=True,
        quick=True,
        meaning="add the schema exploration (probing.schema_probes: undeclared, missing and mistyped arguments on "
        "the training fold's states) to each fold's training probes",
    ),
    Param(
        "unseen",
        str,
        full="refuse",
        quick="refuse",
        meaning="ConservativeActionModel's unseen option for the reported models ('refuse' or 'unknown'); both are scored",
        choices=("refuse", "unknown"),
    ),
    Param(
        "data_dir",
        str,
        full=None,
        quick=None,
        meaning="τ-bench airline data folder (null: SOLVI_LAB_TAUBENCH_AIRLINE or shared/data)",
        optional=True,
    ),
)
QUICK_PARAMS: dict[str, Any] = PARAMS.defaults(quick=True)
FULL_PARAMS: dict[str, Any] = PARAMS.defaults(quick=False)

#: The two folds: tasks by index parity.
FOLDS: tuple[str, ...] = ("even", "odd")
_EXPECTED_HASHES = Path(__file__).resolve().parents[4] / "data" / "expected" / "taubench_airline_gold_final_hashes.json"


def fold_of(task: int) -> str:
    """The fold a task belongs to.

    >>> fold_of(4), fold_of(7)
    ('even', 'odd')
    """
    return FOLDS[task % 2]


def _other(fold: str) -> str:
    return FOLDS[1 - FOLDS.index(fold)]


def agent_tally(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts over predicted agent calls (each row: ``refused``, ``verdict``, ``choice``).

    >>> t = agent_tally([{"refused": True, "verdict": "refuse", "choice": "avoid"},
    ...                  {"refused": False, "verdict": "unknown", "choice": "ask_s2"}])
    >>> t["recall"], t["precision"], t["abstentions"], t["protect_stopped_refused"], t["protect_s2_accepted"]
    (1.0, 1.0, 1, 1, 1)
    """
    n = len(rows)
    refused = [r for r in rows if r["refused"]]
    accepted = [r for r in rows if not r["refused"]]
    tp = sum(r["verdict"] == "refuse" for r in refused)
    fn = sum(r["verdict"] == "accept" for r in refused)
    unknown_refused = sum(r["verdict"] == "unknown" for r in refused)
    fp = sum(r["verdict"] == "refuse" for r in accepted)
    unknown_accepted = sum(r["verdict"] == "unknown" for r in accepted)
    abst = unknown_refused + unknown_accepted
    return {
        "calls": n,
        "refused": len(refused),
        "predicted_refused": tp,
        "predicted_accept_but_refused": fn,
        "unknown_refused": unknown_refused,
        "false_refusals": fp,
        "unknown_accepted": unknown_accepted,
        "recall": tp / len(refused) if refused else 1.0,
        "answered_recall": tp / (tp + fn) if tp + fn else 1.0,
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "abstentions": abst,
        "abstention_pct": 100.0 * abst / n if n else 0.0,
        "protect_stopped_refused": sum(r["choice"] == "avoid" for r in refused),
        "protect_s2_refused": sum(r["choice"] == "ask_s2" for r in refused),
        "protect_passed_refused": sum(r["choice"] == "take" for r in refused),
        "protect_s2_accepted": sum(r["choice"] == "ask_s2" for r in accepted),
        "protect_stopped_accepted": sum(r["choice"] == "avoid" for r in accepted),
        "protect_took_accepted": sum(r["choice"] == "take" for r in accepted),
    }


def _write_abstention_pct(ev: dict[str, Any]) -> float:
    """Abstentions among the held-out write-tool probes (retail's evaluate counts retail's write tools)."""
    n = sum(c for tool, c in ev["calls_by_tool"].items() if tool in WRITING_TOOLS)
    k = sum(c for tool, c in ev["abstain_by_tool"].items() if tool in WRITING_TOOLS)
    return 100.0 * k / n if n else 0.0


def _agent_table(rows: list[dict[str, Any]]) -> pl.DataFrame:
    out: dict[str, list[Any]] = {}
    for fold in (*FOLDS, "both"):
        for kind in ("write", "read", "all"):
            chosen = [
                r
                for r in rows
                if (fold == "both" or r["fold"] == fold) and (kind == "all" or r["write"] == (kind == "write"))
            ]
            t = agent_tally(chosen)
            out.setdefault("calls of fold", []).append(fold)
            out.setdefault("model trained on", []).append("other fold" if fold == "both" else _other(fold))
            out.setdefault("kind", []).append(kind)
            for key in (
                "calls",
                "refused",
                "predicted_refused",
                "unknown_refused",
                "predicted_accept_but_refused",
                "false_refusals",
                "unknown_accepted",
                "recall",
                "precision",
                "abstentions",
                "abstention_pct",
                "protect_stopped_refused",
                "protect_s2_accepted",
            ):
                value = t[key]
                out.setdefault(key, []).append(round(value, 4) if isinstance(value, float) else value)
    return pl.DataFrame(out)


def _figure(rows: list[dict[str, Any]]) -> Figure:
    tools = sorted({r["tool"] for r in rows}, key=lambda t: -sum(r["tool"] == t for r in rows))
    fig = Figure(figsize=(9, 4.6))
    ax = fig.add_subplot(1, 1, 1)
    parts = [
        ("refused, predicted refuse", lambda r: r["refused"] and r["verdict"] == "refuse", "#b2413a"),
        ("refused, other prediction", lambda r: r["refused"] and r["verdict"] != "refuse", "#e8a29c"),
        ("accepted, predicted accept", lambda r: not r["refused"] and r["verdict"] == "accept", "#4a78a8"),
        ("accepted, unknown", lambda r: not r["refused"] and r["verdict"] == "unknown", "#a9c1dc"),
        ("accepted, predicted refuse", lambda r: not r["refused"] and r["verdict"] == "refuse", "#222222"),
    ]
    left = [0] * len(tools)
    for label, test, colour in parts:
        counts = [sum(1 for r in rows if r["tool"] == t and test(r)) for t in tools]
        ax.barh(tools, counts, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, counts)]
    ax.invert_yaxis()
    ax.set_xlabel("GPT-4o tool calls (count), predicted before each call by the other fold's model")
    ax.set_ylabel("tool")
    ax.set_title(f"τ-bench airline: {len(rows):,} recorded agent calls")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def run(
    budget: int = FULL_PARAMS["budget"],
    seed: int = 0,
    ablations: bool = True,
    data_dir: str | None = None,
    blind: bool = True,
    blind_budget: int = 60,
    unseen: str = "refuse",
    schema_family: bool = True,
    explore_schema: bool = True,
) -> StudyResult:
    """The whole airline study (see the module docstring). Raises DataMissing (with how to get it) when absent.

    budget: probe transitions per task, about (gold calls always kept). ablations: also train the three
    ablated vocabularies per fold and report them on the probes and on the agent's calls.
    """
    PARAMS.check(
        budget=budget,
        seed=seed,
        ablations=ablations,
        data_dir=data_dir,
        blind=blind,
        blind_budget=blind_budget,
        unseen=unseen,
        schema_family=schema_family,
        explore_schema=explore_schema,
    )
    t_start = time.perf_counter()
    directory = find_airline_dir(data_dir)
    data = load_airline(directory)
    base = AirlineEnv(data)

    # 1. gold replay
    expected = json.loads(_EXPECTED_HASHES.read_text(encoding="utf-8"))["tasks"] if _EXPECTED_HASHES.is_file() else []
    gold_accepted = gold_refused = gold_equal = 0
    for task, want in zip(data.tasks, expected or [None] * len(data.tasks)):
        env, results = replay_gold(base, task)
        gold_accepted += sum(not r.refused for r in results)
        gold_refused += sum(r.refused for r in results)
        gold_equal += env.data_hash() == want

    # 2. probes, two folds
    t0 = time.perf_counter()
    indices = [int(t["index"]) for t in data.tasks]
    probes: dict[str, list[Transition]] = {
        fold: tasks_probes(data, [i for i in indices if fold_of(i) == fold], seed=seed, budget=budget, base=base)
        for fold in FOLDS
    }
    # what each fold's models train on: its probes, plus the schema exploration of its states (never scored)
    training = {
        fold: probes[fold]
        + (
            tasks_explore(data, [i for i in indices if fold_of(i) == fold], base=base, probes=probes[fold])
            if explore_schema
            else []
        )
        for fold in FOLDS
    }
    probe_s = time.perf_counter() - t0
    variants = {"full": (True, True)}
    if ablations:
        variants.update({"no_pairs": (False, True), "no_money": (True, False), "neither": (False, False)})
    vocabs = {
        label: build_vocabulary(data.tools, pairs=p, money=m, schema_family=schema_family)
        for label, (p, m) in variants.items()
    }
    # the schema family ablated (issues 33, 43): the full vocabulary the other way (scored on probes, blind, agent)
    vocabs["schema"] = build_vocabulary(data.tools, schema_family=not schema_family)
    vocab = vocabs["full"]
    # every model reads the probes through the full vocabulary's memoised vectors: the same values, read once
    shared = SharedReads(vocab)
    for v in vocabs.values():
        if v is not vocab:
            shared.share(v)
    t0 = time.perf_counter()
    models: dict[tuple[str, str], ConservativeActionModel] = {}
    journal_equal = True
    replay_ok = 0
    for fold in FOLDS:
        store = KnowledgeStore()
        models[("full", fold)] = train(training[fold], vocab, store=store, unseen=unseen)
        journal_equal &= (
            ConservativeActionModel.from_journal(store.journal, vocab=vocab, store=store).snapshot()
            == models[("full", fold)].snapshot()
        )
        replay_ok += sum(
            models[("full", fold)].predict(t.state, t.tool, t.args).verdict == ("accept" if t.accepted else "refuse")
            for t in training[fold]
        )
        for label in variants:
            if label != "full":
                models[(label, fold)] = train(training[fold], vocabs[label], unseen=unseen)
        models[("schema", fold)] = train(training[fold], vocabs["schema"], unseen=unseen)
    train_s = time.perf_counter() - t0
    evals = {
        (label, fold): evaluate(models[(label, _other(fold))], probes[fold]) for label in variants for fold in FOLDS
    }

    # 3. the real agent
    t0 = time.perf_counter()
    runs = parse_runs(load_trajectories(directory))
    protect = Protect()
    rows: dict[str, list[dict[str, Any]]] = {label: [] for label in variants}
    causes: Counter = Counter()
    differences: list[dict[str, Any]] = []
    refused_calls: list[dict[str, Any]] = []
    agent_ways: dict[str, list[tuple[bool, str]]] = {"refuse": [], "unknown": []}
    agent_schema: list[tuple[bool, str]] = []
    for rep in replay_runs(base, runs):
        call = rep.call
        if rep.cause:
            causes[rep.cause] += 1
            differences.append(
                {
                    "run": call.run,
                    "task": call.task,
                    "trial": call.trial,
                    "call": call.position,
                    "tool": call.tool,
                    "cause": rep.cause,
                }
            )
        fold = fold_of(call.task)
        recorded_refused = call.recorded.startswith("Error")
        full_model = models[("full", _other(fold))]
        for way in agent_ways:  # the unseen option both ways (a prediction-time option: the same model)
            full_model.unseen = way
            agent_ways[way].append((not recorded_refused, full_model.predict(rep.state, call.tool, call.args).verdict))
        full_model.unseen = unseen
        v = models[("schema", _other(fold))].predict(rep.state, call.tool, call.args).verdict
        agent_schema.append((not recorded_refused, v))
        for label in variants:
            p = models[(label, _other(fold))].predict(rep.state, call.tool, call.args)
            if label == "full" and recorded_refused:
                refused_calls.append(
                    {
                        "task": call.task,
                        "trial": call.trial,
                        "call": call.position,
                        "tool": call.tool,
                        "response": call.recorded[:90],
                        "verdict": p.verdict,
                        "reason": p.reason[:160],
                    }
                )
            rows[label].append(
                {
                    "fold": fold,
                    "tool": call.tool,
                    "write": rep.write,
                    "refused": recorded_refused,
                    "ours_refused": rep.refused,
                    "verdict": p.verdict,
                    "choice": protect.decide(call.tool, p).choice,
                }
            )
    agent_s = time.perf_counter() - t0
    main = rows["full"]
    total = agent_tally(main)
    writes = agent_tally([r for r in main if r["write"]])
    reads = agent_tally([r for r in main if not r["write"]])
    per_fold = {fold: agent_tally([r for r in main if r["fold"] == fold]) for fold in FOLDS}

    # 3b. blind probes (issue 33): each fold's tasks probed by the frozen generator, scored by the other fold's model
    t0 = time.perf_counter()
    sets: dict[str, list[tuple[Transition, str]]] = {"held_out": [(t, f) for f in FOLDS for t in probes[f]]}
    if blind:
        sets["blind"] = []
        for fold in FOLDS:
            tasks = [t for t in data.tasks if fold_of(int(t["index"])) == fold]
            fold_set = blind_probes(
                base, data.tools, tasks, effect_of, split="test", seed=BLIND_SEED, budget=blind_budget
            )
            sets["blind"] += [(t, fold) for t in fold_set]
    # what a tool reads (issue 43): each fold's tasks, scored by the other fold's model
    sets["reading"] = [
        (t, fold)
        for fold in FOLDS
        for t in reading_probes(
            base, data.tools, [t for t in data.tasks if fold_of(int(t["index"])) == fold], effect_of
        )
    ]
    blind_tables: dict[str, pl.DataFrame] = {}
    set_scores: dict[str, dict[str, dict[str, Any]]] = {}
    for name, pairs in sets.items():
        ways: dict[str, list[tuple[bool, str]]] = {"refuse": [], "unknown": []}
        for t, fold in pairs:
            m_other = models[("full", _other(fold))]
            for way in ways:
                m_other.unseen = way
                ways[way].append((t.accepted, m_other.predict(t.state, t.tool, t.args).verdict))
            m_other.unseen = unseen
        set_scores[name] = {w: score(r) for w, r in ways.items()}
        family, table = {
            "blind": (blind_family, "blind_families"),
            "reading": (reading_family, "reading_families"),
        }.get(name, (probe_family, "gold_step_families"))
        blind_tables[table] = family_table(ways[unseen], [t for t, _ in pairs], family)
    set_scores["agent"] = {w: score(r) for w, r in agent_ways.items()}
    schema_rows: list[dict[str, Any]] = []
    schema_metrics: dict[str, Any] = {}
    with_main = "with schema family" if schema_family else "without schema family"
    for name, pairs in [*sets.items(), ("agent", None)]:
        ablated = score(
            agent_schema
            if pairs is None
            else (
                (t.accepted, models[("schema", _other(f))].predict(t.state, t.tool, t.args).verdict) for t, f in pairs
            )
        )
        main_scores = set_scores[name][unseen]
        for label in ("without schema family", "with schema family"):  # the main model's side, then the ablation's
            sc = main_scores if label == with_main else ablated
            schema_rows.append({"vocabulary": label, "probe set": name, **sc})
    blind_tables["schema_family"] = pl.DataFrame(
        schema_rows,
        schema_overrides={k: pl.Float64 for k in ("precision", "recall", "abstention_pct", "false_accept_rate")},
    )
    for r in schema_rows:
        if r["vocabulary"] != with_main:  # the ablation's figures (metrics schema_ablated_*)
            for k in ("precision", "recall", "abstention_pct", "false_accepts", "false_refusals"):
                schema_metrics[f"schema_ablated_{r['probe set']}_{k}"] = r[k]
    blind_tables["unseen_both_ways"] = pl.DataFrame(
        [{"probe set": n, "unseen": w, **s} for n, ws in set_scores.items() for w, s in ws.items()],
        schema_overrides={k: pl.Float64 for k in ("precision", "recall", "abstention_pct", "false_accept_rate")},
    )
    blind_s = time.perf_counter() - t0

    # 4. transfer
    per_template: Counter = Counter(template_of(c) for c in vocab.names)
    transfer = pl.DataFrame(
        {
            "template": list(TEMPLATE_ORIGIN),
            "from retail": [TEMPLATE_ORIGIN[t] for t in TEMPLATE_ORIGIN],
            "airline conditions": [per_template.get(t, 0) for t in TEMPLATE_ORIGIN],
        }
    )
    by_origin = Counter()
    for t, n in per_template.items():
        by_origin[TEMPLATE_ORIGIN[t]] += n

    metrics: dict[str, Any] = {
        "budget": budget,
        "seed": seed,
        "tasks": len(data.tasks),
        "gold_actions": gold_accepted + gold_refused,
        "gold_accepted": gold_accepted,
        "gold_final_equal_upstream": gold_equal,
        "vocabulary_conditions": len(vocab.names),
        "vocabulary_fingerprint": vocab.fingerprint,
        "conditions_unchanged_from_retail": by_origin["unchanged"],
        "conditions_retail_template_airline_model": by_origin["same template, airline data model"],
        "conditions_new": by_origin["new"],
        "train_replay_correct": replay_ok,
        "train_replay_all": replay_ok == sum(len(t) for t in training.values()),
        "journal_replay_equal": journal_equal,
        "agent_runs": len(runs),
        "agent_calls": len(main),
        "agent_writes": sum(r["write"] for r in main),
        "agent_responses_equal": len(main) - sum(causes.values()),
        "agent_responses_province_state": causes.get("address province→state", 0),
        "agent_responses_other_difference": causes.get("other", 0),
        "agent_verdicts_equal": sum(r["refused"] == r["ours_refused"] for r in main),
        "agent_refused": total["refused"],
        "agent_refused_predicted": total["predicted_refused"],
        "agent_refused_unknown": total["unknown_refused"],
        "agent_refused_predicted_accept": total["predicted_accept_but_refused"],
        "agent_false_refusals": total["false_refusals"],
        "agent_recall": round(total["recall"], 4),
        "agent_precision": round(total["precision"], 4),
        "agent_abstentions": total["abstentions"],
        "agent_abstention_pct": round(total["abstention_pct"], 4),
        "agent_write_abstentions": writes["abstentions"],
        "agent_write_abstention_pct": round(writes["abstention_pct"], 4),
        "agent_read_abstentions": reads["abstentions"],
        "agent_read_false_refusals": reads["false_refusals"],
        "protect_stopped_refused": total["protect_stopped_refused"],
        "protect_s2_refused": total["protect_s2_refused"],
        "protect_passed_refused": total["protect_passed_refused"],
        "protect_s2_accepted": total["protect_s2_accepted"],
        "protect_stopped_accepted": total["protect_stopped_accepted"],
    }
    for fold in FOLDS:
        e = evals[("full", fold)]
        a = per_fold[fold]
        metrics.update(
            {
                f"{fold}_train_transitions": len(training[_other(fold)]),
                f"{fold}_train_schema_transitions": len(training[_other(fold)]) - len(probes[_other(fold)]),
                f"{fold}_test_transitions": e["transitions"],
                f"{fold}_test_refused": e["refused"],
                f"{fold}_answered_refusals": e["answered_refusals"],
                f"{fold}_false_refusals": e["false_refusals"],
                f"{fold}_false_accepts": e["false_accepts"],
                f"{fold}_refusal_precision": e["refusal_precision"],
                f"{fold}_refusal_recall": e["refusal_recall"],
                f"{fold}_abstentions": e["abstentions"],
                f"{fold}_abstention_pct": round(e["abstention_pct"], 4),
                f"{fold}_write_abstention_pct": round(_write_abstention_pct(e), 4),
                f"{fold}_agent_calls": a["calls"],
                f"{fold}_agent_refused": a["refused"],
                f"{fold}_agent_refused_predicted": a["predicted_refused"],
                f"{fold}_agent_false_refusals": a["false_refusals"],
                f"{fold}_agent_abstentions": a["abstentions"],
                f"{fold}_agent_recall": round(a["recall"], 4),
                f"{fold}_agent_precision": round(a["precision"], 4),
                f"{fold}_agent_abstention_pct": round(a["abstention_pct"], 4),
            }
        )
    ablation_rows: dict[str, list[Any]] = {}
    for label in variants:
        for fold in FOLDS:
            e = evals[(label, fold)]
            ablation_rows.setdefault("vocabulary", []).append(label)
            ablation_rows.setdefault("held-out fold", []).append(fold)
            ablation_rows.setdefault("probe abstention_pct", []).append(round(e["abstention_pct"], 2))
            ablation_rows.setdefault("probe false_refusals", []).append(e["false_refusals"])
            ablation_rows.setdefault("probe precision", []).append(round(e["refusal_precision"], 4))
            ablation_rows.setdefault("probe recall", []).append(round(e["refusal_recall"], 4))
        a = agent_tally(rows[label])
        if label != "full":
            metrics[f"{label}_probe_abstentions"] = sum(evals[(label, f)]["abstentions"] for f in FOLDS)
            metrics[f"{label}_probe_false_refusals"] = sum(evals[(label, f)]["false_refusals"] for f in FOLDS)
            metrics[f"{label}_agent_refused_predicted"] = a["predicted_refused"]
            metrics[f"{label}_agent_false_refusals"] = a["false_refusals"]
            metrics[f"{label}_agent_abstentions"] = a["abstentions"]
    ablation_table = pl.DataFrame(ablation_rows)
    agent_ablations = pl.DataFrame(
        {
            "vocabulary": list(variants),
            **{
                key: [agent_tally(rows[label])[key] for label in variants]
                for key in ("predicted_refused", "unknown_refused", "false_refusals", "abstentions")
            },
        }
    )
    wall = time.perf_counter() - t_start
    metrics.update(
        {
            "probe_seconds": round(probe_s, 2),
            "train_seconds": round(train_s, 2),
            "agent_seconds": round(agent_s, 2),
            "blind_seconds": round(blind_s, 2),
            "wall_seconds": round(wall, 2),
        }
    )
    diff_table = (
        pl.DataFrame(differences)
        if differences
        else pl.DataFrame(
            schema={
                "run": pl.Int64,
                "task": pl.Int64,
                "trial": pl.Int64,
                "call": pl.Int64,
                "tool": pl.Utf8,
                "cause": pl.Utf8,
            }
        )
    )
    for name, ws in set_scores.items():
        for way, w in ws.items():
            for k in ("precision", "abstentions", "false_accepts", "false_refusals"):
                metrics[f"{name}_unseen_{way}_{k}"] = w[k]
        for k, v in ws[unseen].items():
            metrics[f"{name}_set_{k}"] = v
    metrics.update(schema_metrics)
    shared.close()
    return StudyResult(
        name="taubench_airline",
        params={
            "budget": budget,
            "seed": seed,
            "ablations": ablations,
            "blind": blind,
            "blind_budget": blind_budget,
            "unseen": unseen,
            "schema_family": schema_family,
            "explore_schema": explore_schema,
        },
        metrics=metrics,
        tables={
            "agent": _agent_table(main),
            "ablations": ablation_table,
            "agent_ablations": agent_ablations,
            "transfer": transfer,
            "response_differences": diff_table,
            "agent_refused_calls": pl.DataFrame(refused_calls),
            **blind_tables,
        },
        comparison=_comparison(metrics)
        + _blind_rows(set_scores, unseen)
        + _schema_rows(schema_rows, main=schema_family),
        figures={"agent_calls": _figure(main)},
        caveats=[
            "No task was unread: every one of the 50 tasks was read while the vocabulary and the probes were designed, "
            "so the folds are not blind.",
            "The probe generator was adjusted after looking at the agent's calls: every figure on the agent is "
            "designed with the agent's calls in view, not a held-out result.",
            "CI (tests/studies/test_claims.py) checks its rows at the quick size (budget 40) only; the full-size "
            "figures come from the reported run.",
        ],
    )


#: Travels with every row on the agent's calls (issue 44: README's headline had dropped it once).
AGENT_CAVEAT = (
    "designed with the agent's calls in view: the probe generator was adjusted after looking at these calls, so this "
    "is not a held-out result"
)

_SET_NAMES = {
    "held_out": "gold-step probes, other fold's model",
    "blind": "blind probes (frozen generator), other fold's model",
    "reading": "probes of what a tool reads (issue 43), other fold's model",
    "agent": "GPT-4o's calls, other fold's model (designed with the agent's calls in view)",
}


def _blind_rows(set_scores: dict[str, dict[str, dict[str, Any]]], unseen: str) -> list[Comparison]:
    """False accepts as a claim of their own on every probe set and on the agent's calls, and the unseen option
    both ways (issue 33; per-family tables: gold_step_families, blind_families, unseen_both_ways)."""
    rows: list[Comparison] = []
    for name, ways in set_scores.items():
        caveats = (AGENT_CAVEAT,) if name == "agent" else ()
        rows += probe_set_rows(_SET_NAMES[name], name, ways[unseen], kind="finding", caveats=caveats)
    for name, ways in set_scores.items():
        rows += unseen_rows(_SET_NAMES[name], name, ways)
    return rows


def _comparison(m: dict[str, Any]) -> list[Comparison]:
    rows = [
        Comparison(
            "gold actions accepted",
            m["gold_accepted"],
            158,
            f"of {m['gold_actions']}; upstream accepts all",
            holds=m["gold_accepted"] == m["gold_actions"] == 158,
            kind="mechanism",
            key="gold_all_accepted",
            threshold="158 of 158",
        ),
        Comparison(
            "tasks whose final data equals upstream's",
            m["gold_final_equal_upstream"],
            50,
            "hashes from upstream's tools run locally (data/expected/taubench_airline_gold_final_hashes.json)",
            holds=m["gold_final_equal_upstream"] == 50,
            kind="mechanism",
            key="gold_final_data",
            threshold="50 of 50",
        ),
        Comparison(
            "agent responses reproduced exactly",
            m["agent_responses_equal"],
            None,
            f"of {m['agent_calls']}; {m['agent_responses_province_state']} differ only by the address key "
            f"province→state (renamed upstream after the runs were recorded), {m['agent_responses_other_difference']} otherwise",
            holds=m["agent_responses_other_difference"] == 0,
            kind="mechanism",
            key="agent_responses",
            threshold="every difference explained by a documented data edit",
        ),
        Comparison(
            "agent calls with our verdict = the recorded one",
            m["agent_verdicts_equal"],
            m["agent_calls"],
            "accepted/refused as recorded",
            holds=m["agent_verdicts_equal"] == m["agent_calls"],
            kind="mechanism",
            key="agent_verdicts",
            threshold="all calls",
        ),
        Comparison(
            f"refused agent calls predicted refused (recall of {m['agent_refused']}) (designed with the agent's calls "
            "in view)",
            m["agent_recall"],
            None,
            f"{m['agent_refused_predicted']} of {m['agent_refused']}; {m['agent_refused_unknown']} 'unknown', "
            f"{m['agent_refused_predicted_accept']} predicted accept; model trained on the other fold's tasks",
            holds=m["agent_recall"] >= 0.9,
            kind="finding",
            key="agent_recall",
            threshold="≥ 0.9 of the refused calls predicted refused before the call",
            caveats=(AGENT_CAVEAT,),
        ),
        Comparison(
            "predicted refusals that were right (precision) (designed with the agent's calls in view)",
            m["agent_precision"],
            None,
            f"{m['agent_false_refusals']} accepted calls predicted refused",
            holds=m["agent_precision"] == 1.0,
            kind="finding",
            key="agent_precision",
            threshold="no accepted call predicted refused",
            caveats=(AGENT_CAVEAT,),
        ),
        Comparison(
            "agent calls answered 'unknown' (%) (designed with the agent's calls in view)",
            round(m["agent_abstention_pct"], 2),
            None,
            f"{m['agent_abstentions']} of {m['agent_calls']}; writes {m['agent_write_abstentions']} "
            f"({m['agent_write_abstention_pct']:.1f}% of {m['agent_writes']}), reads {m['agent_read_abstentions']}; "
            "a figure: no threshold was fixed for it",
            key="agent_abstention",
        ),
        Comparison(
            "Protect: refused calls stopped / accepted calls sent to System 2 (designed with the agent's calls in view)",
            f"{m['protect_stopped_refused']} / {m['protect_s2_accepted']}",
            None,
            f"{m['protect_s2_refused']} refused calls sent to System 2, {m['protect_passed_refused']} passed; "
            f"{m['protect_stopped_accepted']} accepted calls stopped; a figure: no threshold was fixed for it",
            key="protect_agent",
        ),
    ]
    for fold in FOLDS:
        rows.append(
            Comparison(
                f"probes, held-out fold {fold}: precision / recall / abstention % (no task was unread in design)",
                f"{m[f'{fold}_refusal_precision']:.4f} / {m[f'{fold}_refusal_recall']:.4f} / {m[f'{fold}_abstention_pct']:.2f}",
                "1.000 / 1.000 / 0.26 (retail, published)",
                f"{m[f'{fold}_test_transitions']} held-out probes, {m[f'{fold}_false_refusals']} false refusals, "
                f"{m[f'{fold}_false_accepts']} false accepts",
                holds=m[f"{fold}_false_refusals"] == 0,
                kind="finding",
                key=f"probes_{fold}_precision",
                threshold="no false refusal on the held-out probes",
            )
        )
    rows += [
        Comparison(
            "training transitions replayed correctly (both folds)",
            m["train_replay_correct"],
            None,
            f"all={m['train_replay_all']}; journal replay == live model: {m['journal_replay_equal']}",
            holds=bool(m["train_replay_all"] and m["journal_replay_equal"]),
            kind="mechanism",
            key="train_replay",
            threshold="every training transition",
        ),
        Comparison(
            "vocabulary: conditions unchanged from retail / retail template on airline data / new",
            f"{m['conditions_unchanged_from_retail']} / {m['conditions_retail_template_airline_model']} / {m['conditions_new']}",
            None,
            f"{m['vocabulary_conditions']} conditions in all; a figure: a count, not a verdict",
            key="transfer",
        ),
        Comparison("wall time, whole study (s)", m["wall_seconds"], None, "target < 120 s at full size"),
    ]
    return rows
