"""τ²-bench telecom: the conservative action model on a dual-control domain, one model per side (no LLM).

Protocol:

1. *Gold replay*: every task of the chosen task set initialised and its gold actions applied as steps of both
   sides: all accepted, every task's environment assertions met (reward 1.0).
2. *Probes* (:mod:`.probes`) around the gold steps of the ``train`` split train two models: the agent's calls
   (13 CRM tools, plus the user's tool names it may call by mistake) and the user's calls (30 phone tools). Each
   model is evaluated on the probes of the ``test`` split (held out), on the probes of tasks of the full set outside
   ``train`` and ``test`` (``outside`` tasks, a seeded sample), and on the frozen blind generator's probes of the
   ``test`` tasks. Tables: precision, recall, false accepts, false refusals and abstentions per side and per tool.
3. *Dual control*: the agent model trained four times with the same templates and a different *state scope*:
   arguments only, its own database (the CRM), the other side's database only (the phone), both. Each agent
   refusal on the held-out probes is attributed to the smallest scope whose model predicts it; and we count the
   refusals caused by a state only the user can change (a bill awaiting payment: only the user's payment clears it).
4. *Soft refusals and partial writes*: accepted calls that changed nothing, and refused calls that changed
   something, per side and tool, from the probes' recorded effects.
5. *The template telecom added* (contained values) ablated on telecom's agent model and on retail and airline
   (:mod:`..contained_values`).

``run(**QUICK_PARAMS)`` is the CI size; ``tests/studies/test_tau2_telecom_study.py`` runs it.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.figure import Figure

from ....actions import ConservativeActionModel
from ....errors import DataMissing
from ...params import Param, ParamSpec
from ...result import Comparison, StudyResult
from ..blind_probes import BLIND_SEED, blind_probes
from ..scoring import score
from .crm import AGENT_TOOLS
from .data import find_telecom_dir, load_telecom
from .env import TelecomEnv, replay_task, task_reward
from .phone import USER_TOOLS, reset_shared_vpn_default
from .probes import SideEnv, TelecomTransition, blind_task, side_of, tasks_probes
from .vocabulary import SCOPES, build_vocabulary, declaration_lines

__all__ = ["FULL_PARAMS", "PARAMS", "QUICK_PARAMS", "run", "side_table", "tool_table"]

TITLE = "τ²-bench telecom: the action model per side on a dual-control domain (no LLM)"
DESCRIPTION = (
    "Both telecom toolkits and databases re-implemented (the gold replays of the run's replay set meet their "
    "assertions); probes around the gold steps of the train split train one model for the agent's calls and one for "
    "the user's; held out on the test split, on full-set tasks outside train and on the frozen blind probes; what "
    "dual control does to the agent model (state scopes). Needs the τ²-bench telecom data."
)
NEEDS_DATA = True

PARAMS = ParamSpec(
    "tau2_telecom",
    Param(
        "budget",
        int,
        full=60,
        quick=40,
        meaning="probe transitions per task, about (gold calls kept)",
        low=2,
        high=10_000,
    ),
    Param("train_tasks", int, full=74, quick=20, meaning="tasks of the train split probed (first n)", low=1, high=74),
    Param("test_tasks", int, full=40, quick=10, meaning="tasks of the test split probed (first n)", low=1, high=40),
    Param(
        "outside_tasks",
        int,
        full=40,
        quick=10,
        meaning="tasks of the full set outside train and test probed (a seeded sample)",
        low=0,
        high=2171,
    ),
    Param(
        "blind_budget",
        int,
        full=30,
        quick=20,
        meaning="blind probe transitions per test task, about",
        low=1,
        high=10_000,
    ),
    Param(
        "replay",
        str,
        full="full",
        quick="base",
        meaning="task set whose gold replay is checked ('full': all 2,285; 'base': 114)",
        choices=("full", "base", "small"),
    ),
    Param(
        "data_dir",
        str,
        full=None,
        quick=None,
        meaning="τ²-bench telecom data folder (null: SOLVI_LAB_TAU2_TELECOM or shared/data)",
        optional=True,
    ),
)
QUICK_PARAMS: dict[str, Any] = PARAMS.defaults(quick=True)
FULL_PARAMS: dict[str, Any] = PARAMS.defaults(quick=False)

find_data_dir = find_telecom_dir
_SIDES = {"assistant": "agent", "user": "user"}
_NUMERIC = ("precision", "recall", "abstention_pct", "false_accept_rate")


def _train(transitions: Sequence[TelecomTransition], vocab: Any) -> ConservativeActionModel:
    model = ConservativeActionModel(vocab, journal=False, unseen="refuse")
    for t in transitions:
        model.observe(t.state, t.tool, t.args, t.accepted, None)
    return model


def _verdicts(model: ConservativeActionModel, transitions: Sequence[TelecomTransition]) -> list[str]:
    return [model.predict(t.state, t.tool, t.args).verdict for t in transitions]


def side_table(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """One row per (side, probe set): :func:`..scoring.score` of its verdicts."""
    return pl.DataFrame(rows, schema_overrides={k: pl.Float64 for k in _NUMERIC})


def tool_table(
    transitions: Sequence[TelecomTransition], verdicts: Sequence[str], probe_set: str
) -> list[dict[str, Any]]:
    """Per side and tool: probes, refused, precision, recall, false accepts, false refusals, abstentions."""
    groups: dict[tuple[str, str], list[tuple[bool, str]]] = {}
    for t, v in zip(transitions, verdicts):
        groups.setdefault((t.side, t.tool), []).append((t.accepted, v))
    return [
        {"probe set": probe_set, "side": _SIDES[side], "tool": tool, **score(rows)}
        for (side, tool), rows in sorted(groups.items())
    ]


def _sides(transitions: Sequence[TelecomTransition]) -> dict[str, list[TelecomTransition]]:
    out: dict[str, list[TelecomTransition]] = {"assistant": [], "user": []}
    for t in transitions:
        out[t.side].append(t)
    return out


def _figure(table: pl.DataFrame) -> Figure:
    fig = Figure(figsize=(7.5, 3.2))
    ax = fig.subplots()
    rows = table.filter(pl.col("probe set") == "held-out test").to_dicts()
    labels = [f"{r['side']}\n{r['scope'] if 'scope' in r else ''}".strip() for r in rows]
    answered = [100 - (r["abstention_pct"] or 0) for r in rows]
    recall = [100 * (r["recall"] or 0) for r in rows]
    x = range(len(rows))
    ax.bar([i - 0.2 for i in x], answered, 0.4, label="answered %")
    ax.bar([i + 0.2 for i in x], recall, 0.4, label="refusal recall %")
    ax.set_xticks(list(x), labels, fontsize=8)
    ax.set_ylim(0, 105)
    ax.legend(fontsize=8)
    ax.set_title("Agent model by state scope (held-out test probes)", fontsize=9)
    fig.tight_layout()
    return fig


def run(
    budget: int = FULL_PARAMS["budget"],
    train_tasks: int = FULL_PARAMS["train_tasks"],
    test_tasks: int = FULL_PARAMS["test_tasks"],
    outside_tasks: int = FULL_PARAMS["outside_tasks"],
    blind_budget: int = FULL_PARAMS["blind_budget"],
    replay: str = FULL_PARAMS["replay"],
    data_dir: str | None = None,
    seed: int = 0,
) -> StudyResult:
    """Run the telecom study (see the module docstring)."""
    params = PARAMS.check(
        budget=budget,
        train_tasks=train_tasks,
        test_tasks=test_tasks,
        outside_tasks=outside_tasks,
        blind_budget=blind_budget,
        replay=replay,
        data_dir=data_dir,
        seed=seed,
    )
    timings: dict[str, float] = {}
    reset_shared_vpn_default()  # as in a fresh process (upstream's VPN default is process-wide)
    data = load_telecom(data_dir)
    base = TelecomEnv.from_data(data, seed=seed)

    # 1. gold replay
    t0 = time.perf_counter()
    replay_set = data.split(replay)
    gold_calls = gold_refused = passing = 0
    for task in replay_set:
        final, steps = replay_task(base, task)
        gold_calls += len(steps)
        gold_refused += sum(s.refused for s in steps)
        actions = task["evaluation_criteria"]["actions"]
        passing += task_reward(task, final, [(a["requestor"], a["name"]) for a in actions]) == 1.0
    timings["replay_s"] = time.perf_counter() - t0

    # 2. probes
    t0 = time.perf_counter()
    train_set = data.split("train")[:train_tasks]
    test_set = data.split("test")[:test_tasks]
    seen = set(data.splits["train"]) | set(data.splits["test"])
    outside_pool = [t for t in data.tasks if t["id"] not in seen]
    outside_set = random.Random(seed).sample(outside_pool, outside_tasks) if outside_tasks else []
    train = tasks_probes(base, train_set, budget, split="train", seed=seed)
    sets = {
        "held-out test": tasks_probes(base, test_set, budget, split="test", seed=seed),
        "outside train (full set)": tasks_probes(base, outside_set, budget, split="outside", seed=seed),
    }
    starts = {}
    blind_tasks = []
    for i, task in enumerate(test_set):
        start = base.copy()
        start.initialise(task)
        starts[i] = SideEnv(start)
        blind_tasks.append(blind_task(task, i))
    tools = data.tools["assistant"] + data.tools["user"]
    blind_raw = blind_probes(
        lambda task: starts[int(task["index"])], tools, blind_tasks, lambda r, a: None, split="test",
        seed=BLIND_SEED, budget=blind_budget,
    )  # fmt: skip
    sets["blind (test tasks)"] = [
        TelecomTransition(t.task, t.step, t.state, side_of(t.tool), t.tool, t.args, t.accepted, None, t.origin)
        for t in blind_raw
    ]
    timings["probes_s"] = time.perf_counter() - t0

    # 3. one model per side (state scope: both databases), evaluated on every probe set
    t0 = time.perf_counter()
    state0 = sets["held-out test"][0].state if sets["held-out test"] else train[0].state
    vocab = {
        "assistant": build_vocabulary(data.tools["assistant"], state0, other_tools=USER_TOOLS),
        "user": build_vocabulary(data.tools["user"], state0, other_tools=AGENT_TOOLS),
    }
    by_side = _sides(train)
    models = {side: _train(by_side[side], vocab[side]) for side in vocab}
    side_rows: list[dict[str, Any]] = []
    tool_rows: list[dict[str, Any]] = []
    verdict_cache: dict[tuple[str, str], list[str]] = {}
    for name, transitions in sets.items():
        for side, ts in _sides(transitions).items():
            vs = _verdicts(models[side], ts)
            verdict_cache[(name, side)] = vs
            side_rows.append({"probe set": name, "side": _SIDES[side], **score(zip((t.accepted for t in ts), vs))})
            tool_rows += tool_table(ts, vs, name)
    timings["models_s"] = time.perf_counter() - t0

    # 4. dual control: the agent model under each state scope, on the held-out agent probes
    t0 = time.perf_counter()
    held_agent = _sides(sets["held-out test"])["assistant"]
    scope_rows: list[dict[str, Any]] = []
    predicted_by: dict[str, list[bool]] = {}
    for scope_name, scope in SCOPES.items():
        if scope_name == "both":  # the main agent model reads both databases: reuse it and its verdicts
            v, vs = vocab["assistant"], verdict_cache[("held-out test", "assistant")]
        else:
            v = build_vocabulary(data.tools["assistant"], state0, scope=scope, other_tools=USER_TOOLS)
            vs = _verdicts(_train(by_side["assistant"], v), held_agent)
        predicted_by[scope_name] = [verdict == "refuse" and not t.accepted for t, verdict in zip(held_agent, vs)]
        scope_rows.append(
            {"probe set": "held-out test", "side": "agent", "scope": scope_name, "conditions": len(v.names),
             **score(zip((t.accepted for t in held_agent), vs))}
        )  # fmt: skip
    refused_idx = [i for i, t in enumerate(held_agent) if not t.accepted]
    attribution: Counter[str] = Counter()
    for i in refused_idx:
        if predicted_by["none"][i]:
            attribution["call shape / unknown name (no state)"] += 1
        elif predicted_by["crm"][i]:
            attribution["own side (CRM) state"] += 1
        elif predicted_by["both"][i] or predicted_by["phone"][i]:
            attribution["needs the user's side (phone) state"] += 1
        else:
            attribution["not predicted by any scope"] += 1
    user_only_state = sum(
        1 for t in held_agent if not t.accepted and t.text.startswith("Error: A bill is already awaiting")
    )
    all_agent = [t for ts in sets.values() for t in _sides(ts)["assistant"]] + by_side["assistant"]
    user_only_all = sum(
        1 for t in all_agent if not t.accepted and t.text.startswith("Error: A bill is already awaiting")
    )
    timings["dual_control_s"] = time.perf_counter() - t0

    # 4b. the template new with telecom (contained values), ablated here and on retail and airline
    t0 = time.perf_counter()
    # The shipped default is without it (the rule: same precision and false accepts, more abstentions with it).
    v_with = build_vocabulary(data.tools["assistant"], state0, contained=True, other_tools=USER_TOOLS)
    ablation_rows = [
        {"domain": "telecom, agent", "vocabulary": "without contained values", "conditions": len(vocab["assistant"].names),
         **score(zip((t.accepted for t in held_agent), verdict_cache[("held-out test", "assistant")]))},
        {"domain": "telecom, agent", "vocabulary": "with contained values", "conditions": len(v_with.names),
         **score(zip((t.accepted for t in held_agent), _verdicts(_train(by_side["assistant"], v_with), held_agent)))},
    ]  # fmt: skip
    ablation_rows += other_domain_ablation(seed)
    timings["contained_ablation_s"] = time.perf_counter() - t0

    # 5. soft refusals and partial writes, from the recorded effects of every probe
    effect_rows = []
    everything = train + [t for name, ts in sets.items() if name != "blind (test tasks)" for t in ts]
    groups: dict[tuple[str, str], Counter[str]] = {}
    for t in everything:
        c = groups.setdefault((_SIDES[t.side], t.tool), Counter())
        c["probes"] += 1
        c["accepted, changed"] += t.accepted and t.changed
        c["accepted, no change"] += t.accepted and not t.changed
        c["refused, no change"] += not t.accepted and not t.changed
        c["refused, changed (partial write)"] += not t.accepted and t.changed
    for (side, tool), c in sorted(groups.items()):
        effect_rows.append({"side": side, "tool": tool, **{k: c[k] for k in (
            "probes", "accepted, changed", "accepted, no change", "refused, no change", "refused, changed (partial write)")}})  # fmt: skip
    effects = pl.DataFrame(effect_rows)
    # why the user's calls were refused: the call's shape (unknown name, missing / unexpected / clashing argument)
    # or a value (a wrong type tripping the tool, or a bad value a partial write stored earlier)
    shape_markers = ("not found.", "required positional argument", "unexpected keyword", "multiple values")
    user_refused = [t for t in everything if t.side == "user" and not t.accepted]
    user_refused_shape = sum(1 for t in user_refused if any(m in t.text for m in shape_markers))

    sides = side_table(side_rows)
    scopes = side_table(scope_rows)
    attribution_table = pl.DataFrame(
        {"agent refusals (held-out test)": list(attribution), "count": list(attribution.values())}
    )
    metrics: dict[str, Any] = {
        "seed": seed,
        "replay_set": replay,
        "gold_tasks": len(replay_set),
        "gold_tasks_passing": passing,
        "gold_calls": gold_calls,
        "gold_calls_refused": gold_refused,
        "train_probes": len(train),
        "data_model_lines": declaration_lines(),
        "agent_conditions": len(vocab["assistant"].names),
        "user_conditions": len(vocab["user"].names),
        "agent_vocabulary_fingerprint": vocab["assistant"].fingerprint,
        "user_vocabulary_fingerprint": vocab["user"].fingerprint,
        "conditions_naming_a_tool": sum(
            1
            for v in vocab.values()
            for c in v.names
            for tool in AGENT_TOOLS + USER_TOOLS
            if c.startswith(f"{tool}:") and not c.endswith(("undeclared_args", "missing_args"))
        ),  # fmt: skip
        "agent_refusals_held_out": len(refused_idx),
        "agent_refusals_user_only_state_held_out": user_only_state,
        "agent_refusals_user_only_state_all": user_only_all,
        "agent_refused_probes_all": sum(not t.accepted for t in all_agent),
        "user_refused_probes": len(user_refused),
        "user_refused_call_shape": user_refused_shape,
        "user_refused_value": len(user_refused) - user_refused_shape,
        "soft_refusals": int(effects["accepted, no change"].sum()) if len(effects) else 0,
        "partial_writes": int(effects["refused, changed (partial write)"].sum()) if len(effects) else 0,
        **{f"timing_{k}": round(v, 2) for k, v in timings.items()},
    }
    for r in side_rows:
        key = {"held-out test": "held_out", "outside train (full set)": "outside", "blind (test tasks)": "blind"}[
            r["probe set"]
        ]
        for k in (
            "probes",
            "refused",
            "precision",
            "recall",
            "abstentions",
            "abstention_pct",
            "false_accepts",
            "false_refusals",
        ):
            metrics[f"{r['side']}_{key}_{k}"] = r[k]
    for r in scope_rows:
        for k in ("precision", "recall", "abstention_pct", "false_accepts"):
            metrics[f"scope_{r['scope']}_{k}"] = r[k]
    for r in ablation_rows:
        tag = r["domain"].split(",")[0].split(" ")[0] + ("_with" if r["vocabulary"].startswith("with ") else "_without")
        for k in ("false_accepts", "abstentions", "precision"):
            metrics[f"contained_{tag}_{k}"] = r[k]
    for label, n in attribution.items():
        metrics["attribution_" + label.split(" (")[0].replace(" ", "_").replace("/", "").replace("'", "")] = n

    comparison = _comparison(metrics)
    return StudyResult(
        name="tau2_telecom",
        params=params,
        metrics=metrics,
        tables={
            "sides": sides,
            "tools": side_table(tool_rows),
            "dual_control_scopes": scopes,
            "dual_control_attribution": attribution_table,
            "effects": effects,
            "beside_retail_airline": beside_other_domains(metrics),
            "contained_values_ablation": side_table(ablation_rows),
        },
        comparison=comparison,
        figures={"scopes": _figure(scopes)},
        caveats=[
            "All numbers are ours: no published system reports an environment-acceptance model on telecom.",
            "Probes are variations around gold trajectories (the agent's and the user's calls), not a real agent's "
            "conversation; the blind probes are the frozen generator's on the test tasks.",
            "The user's tools refuse only on call shapes or after a partial write; an accepted call that changes "
            'nothing ("already enabled", "You do not have a payment request.") counts as accepted, shown apart '
            "in the effects table.",
            "The process-wide VPN default of upstream's user toolkit is modelled: after any VPN task, connect_vpn "
            "connects a poor VPN in every later environment of the process.",
        ],
    )


_EXPECTED = Path(__file__).resolve().parents[4] / "data" / "expected"
# The same measures in the other two domains' pinned quick runs (data/expected/*.json): metric names per probe set.
_OTHER_DOMAINS = {
    "retail (τ-bench)": ("taubench_action_model", {
        "held-out": ("test_transitions", "test_refused", "false_accepts", None, "abstentions"),
        "blind": ("blind_probes", "blind_refused", "blind_false_accepts", "blind_false_refusals", "blind_abstentions"),
    }),
    "airline (τ-bench)": ("taubench_airline", {
        "held-out": (("even_test_transitions", "odd_test_transitions"), ("even_test_refused", "odd_test_refused"),
                     ("even_false_accepts", "odd_false_accepts"), ("even_false_refusals", "odd_false_refusals"),
                     ("even_abstentions", "odd_abstentions")),
        "blind": ("blind_set_probes", "blind_set_refused", "blind_set_false_accepts", "blind_set_false_refusals",
                  "blind_set_abstentions"),
    }),
}  # fmt: skip


def beside_other_domains(metrics: dict[str, Any], expected_dir: Path = _EXPECTED) -> pl.DataFrame:
    """Telecom's held-out and blind rows (this run) beside retail's and airline's (their pinned quick runs)."""
    columns = ("probes", "refused", "false_accepts", "false_refusals", "abstentions")
    rows: list[dict[str, Any]] = []
    for side in ("agent", "user"):
        for label, key in (("held-out", "held_out"), ("blind", "blind")):
            rows.append({"domain": f"telecom (τ²-bench), {side}", "run": "this run", "probe set": label,
                         **{c: metrics.get(f"{side}_{key}_{c}") for c in columns}})  # fmt: skip
    for domain, (study, sets) in _OTHER_DOMAINS.items():
        path = expected_dir / f"{study}.json"
        if not path.is_file():
            continue
        pins = json.loads(path.read_text(encoding="utf-8"))["metrics"]

        def value(names: Any, pins: dict[str, Any] = pins) -> Any:
            if names is None:
                return None
            names = (names,) if isinstance(names, str) else names
            found = [pins[n].get("exact", pins[n].get("approx")) for n in names if n in pins]
            return sum(found) if len(found) == len(names) else None

        for label, names in sets.items():
            rows.append({"domain": domain, "run": "pinned quick run", "probe set": label,
                         **{c: value(n) for c, n in zip(columns, names)}})  # fmt: skip
    return pl.DataFrame(rows, schema_overrides={c: pl.Int64 for c in columns})


def other_domain_ablation(seed: int) -> list[dict[str, Any]]:
    """The contained-values template ablated on retail (10 train tasks, 5 dev tasks) and airline (10 even tasks
    trained, 6 odd tasks held out), each with its own vocabulary and probes; a domain whose data is absent is left
    out."""
    from ...taubench.airline.data import load_airline
    from ...taubench.airline.env import AirlineEnv
    from ...taubench.airline.probes import tasks_probes as airline_probes
    from ...taubench.airline.vocabulary import build_vocabulary as airline_vocabulary
    from ..contained_values import ablation
    from ..data import load_retail
    from ..env import RetailEnv
    from ..probes import split_probes
    from ..study import train as fit
    from ..vocabulary import build_vocabulary as retail_vocabulary

    rows: list[dict[str, Any]] = []
    try:
        retail = load_retail()
    except DataMissing:
        retail = None
    if retail is not None:
        base = RetailEnv(retail)
        train = split_probes(retail, "train", 10, seed=seed, budget=60, base=base)
        held = split_probes(retail, "dev", 5, seed=seed, budget=60, base=base)
        vocab = retail_vocabulary(retail.tools, base.state, schema_family=True)
        rows += [{"domain": "retail", **r} for r in ablation(train, held, vocab, retail.tools, base.state, fit)]
    try:
        airline = load_airline()
    except DataMissing:
        airline = None
    if airline is not None:
        base = AirlineEnv(airline)
        indices = [int(t["index"]) for t in airline.tasks]
        train = airline_probes(airline, [i for i in indices if i % 2 == 0][:10], seed=seed, budget=40, base=base)
        held = airline_probes(airline, [i for i in indices if i % 2 == 1][:6], seed=seed, budget=40, base=base)
        vocab = airline_vocabulary(airline.tools, schema_family=True)
        rows += [{"domain": "airline", **r} for r in ablation(train, held, vocab, airline.tools, base.state, fit)]
    return rows


def _fmt(v: Any) -> str:
    return "—" if v is None else f"{v:.3f}"


def _comparison(m: dict[str, Any]) -> list[Comparison]:
    rows = [
        Comparison(
            "gold replays meeting their environment assertions",
            f"{m['gold_tasks_passing']} / {m['gold_tasks']}",
            None,
            "every task's initialisation then its gold actions, both sides, synced after each call",
            holds=m["gold_tasks_passing"] == m["gold_tasks"] and m["gold_calls_refused"] == 0,
            kind="mechanism",
            key="telecom_gold_replay",
            threshold="all tasks reward 1.0, no gold call refused",
        ),
    ]
    for side in ("agent", "user"):
        fa, prec = m.get(f"{side}_held_out_false_accepts"), m.get(f"{side}_held_out_precision")
        rows.append(
            Comparison(
                f"{side} model on held-out test probes: false accepts, refusal precision",
                f"{fa}, {_fmt(prec)}",
                None,
                f"recall {_fmt(m.get(f'{side}_held_out_recall'))}, abstentions {m.get(f'{side}_held_out_abstention_pct')}%",
                holds=fa == 0 and (prec is None or prec == 1.0),
                kind="finding",
                key=f"telecom_{side}_held_out_sound",
                threshold="0 false accepts and precision 1.000 on held-out probes",
            )
        )
    blind_fa = [m.get(f"{side}_blind_false_accepts") for side in ("agent", "user")]
    rows.append(
        Comparison(
            "blind probes (frozen generator, test tasks): false accepts, agent and user",
            f"{blind_fa[0]}, {blind_fa[1]}",
            None,
            f"precision {_fmt(m.get('agent_blind_precision'))} and {_fmt(m.get('user_blind_precision'))}; "
            f"abstentions {m.get('agent_blind_abstention_pct')}% and {m.get('user_blind_abstention_pct')}%",
            holds=blind_fa == [0, 0],
            kind="finding",
            key="telecom_blind_no_false_accept",
            threshold="0 false accepts on the blind probes, both sides",
        )
    )
    rows.append(
        Comparison(
            "agent refusals needing the user's side (held-out test)",
            f"{m.get('attribution_needs_the_users_side', 0)} of {m['agent_refusals_held_out']}",
            None,
            f"own side (CRM) explains {m.get('attribution_own_side', 0)}, call shape alone "
            f"{m.get('attribution_call_shape__unknown_name', 0)}; reading only the phone: "
            f"{m.get('scope_phone_false_accepts')} false accepts, {m.get('scope_phone_abstention_pct')}% abstentions "
            f"(the CRM: {m.get('scope_crm_false_accepts')}, {m.get('scope_crm_abstention_pct')}%); refusals whose cause only the user can clear "
            f"(a bill awaiting payment): {m['agent_refusals_user_only_state_all']} of {m['agent_refused_probes_all']} "
            "agent refusals in all probe sets",
            holds=None,
            kind="finding",
            key="telecom_dual_control",
        )
    )
    return rows
