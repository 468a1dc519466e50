"""τ-bench retail: a conservative action model learned from probes around gold trajectories (no LLM).

Protocol: probes (:mod:`.probes`) around the gold steps of the first ``train_tasks`` training tasks train a
:class:`~solvi_lab.actions.ConservativeActionModel` over a vocabulary from generic templates
(:mod:`.vocabulary`); the probes of the first ``test_tasks`` test tasks are held out. Measured: refusal precision
and recall over the held-out transitions the model answers, abstentions ("unknown"), replay of every training
transition, six vocabulary ablations (no pair features, no money comparisons, neither; and issue 43's no exact money,
no shapes, no lists, each also scored on the blind and what-a-tool-reads probes), effect exactness (the
touched order's new status) and abstentions by tool.

>>> r = run(**QUICK_PARAMS)   # doctest: +SKIP
>>> r.metrics["refusal_precision"]   # doctest: +SKIP
1.0
"""

from __future__ import annotations

import math
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
from .blind_probes import BLIND_SEED, blind_family, blind_probes
from .data import find_data_dir, load_retail
from .env import RetailEnv
from .probes import DEFAULT_BUDGET, Transition, _effect, explore_split, split_probes
from .reading_probes import reading_family, reading_probes
from .scoring import family_table, probe_set_rows, score, unseen_both_ways, unseen_rows, verdicts
from .shared_reads import SharedReads
from .tools import WRITING_TOOLS
from .vocabulary import build_vocabulary

__all__ = ["run", "QUICK_PARAMS", "FULL_PARAMS", "PUBLISHED", "evaluate"]

#: What `solvi-lab list` and the report say about this study (registered in pyproject.toml, solvi_lab.studies).
TITLE = "τ-bench retail: the conservative action model (no LLM)"
DESCRIPTION = (
    "Probes around the gold steps of the training tasks train the model; held-out tasks evaluate it (the test "
    "split at the full size, the dev split at the quick size; the run's parameters give the counts): refusal "
    "precision and recall, abstentions, replay, three vocabulary ablations, effects. Needs the τ-bench retail data."
)
NEEDS_DATA = True  # located by the sibling module `data` (find_data_dir), which says how to get it

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
        meaning="held-out tasks probed (the first n of held_out_split: test has 115, dev 20)",
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
    Param(
        "ablations",
        bool,
        full=True,
        quick=True,
        meaning="also train the vocabulary ablations (the published three and issue 43's three)",
    ),
    Param(
        "blind",
        bool,
        full=True,
        quick=True,
        meaning="also score the model on the blind probes (blind_probes.py, frozen seed) of the held-out tasks",
    ),
    Param(
        "schema_family",
        bool,
        full=True,
        quick=True,
        meaning="the schema family (schema_templates.py) in the main vocabulary; its ablation (the other way) is also "
        "trained and scored on every probe set",
    ),
    Param(
        "explore_schema",
        bool,
        full=True,
        quick=True,
        meaning="add the schema exploration (probing.schema_probes: undeclared, missing and mistyped arguments on "
        "training states) to the training probes",
    ),
    Param(
        "unseen",
        str,
        full="refuse",
        quick="refuse",
        meaning="ConservativeActionModel's unseen option for the reported model ('refuse' or 'unknown'); both are scored",
        choices=("refuse", "unknown"),
    ),
    # Blind where we can be: the quick path (CI, test_claims, `--quick`) evaluates on the dev split, which no design
    # decision read; the test split is read only by the reported full run.
    Param(
        "held_out_split",
        str,
        full="test",
        quick="dev",
        meaning="held-out split: 'test' (the published protocol, the reported full run) or 'dev' (develop here)",
        choices=("test", "dev"),
    ),
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


# The held-out slices recorded as flat metrics (every slice, probe families included, is in the "held_out_slices" table).
SLICE_METRICS = {
    "condition vector never seen in training": "novel_vector",
    "(tool, arguments) never seen in training": "novel_call",
    "gold calls only": "gold",
    "user-disjoint (user in no training task)": "user_disjoint",
    "tasks 0–19": "tasks_first20",  # the breakdown splits at 20: the first 20 test tasks were read in development
    "tasks ≥ 20": "tasks_rest",
    "missing id or malformed input": "broken_input",
    "well-formed input": "well_formed",
}
# "Nothing was tuned" is not true of everything: some templates and probe families were designed after reading the
# abstentions on the first 20 *test* tasks (docs/readme/actions.md). From now on development reads the dev split
# (held_out_split="dev"); the test tasks 20–114 were never read, and the table reports them apart.


def poisson_upper(k: int, confidence: float = 0.95) -> float:
    """The upper end of the exact (Garwood) two-sided interval of a Poisson mean, `k` events observed.

    >>> round(poisson_upper(30), 2), round(poisson_upper(0), 3)
    (42.83, 3.689)
    """
    tail = (1 - confidence) / 2

    def cdf(lam: float) -> float:  # P(X <= k) for X ~ Poisson(lam); exp(-lam) stays representable for any k here
        term = math.exp(-lam)
        total = term
        for i in range(1, k + 1):
            term *= lam / i
            total += term
        return total

    lo, hi = float(k), float(k) + 10 * (k + 1) ** 0.5 + 10
    for _ in range(200):  # bisection: cdf falls as lam grows
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) > tail else (lo, mid)
    return (lo + hi) / 2


# "the model abstains on 30 (0.26%)": the published rate is itself a count of 30 in 11,763 transitions, so the claim is
# checked at the published figure with the count's own sampling error and no more: our rate must not exceed the upper
# end of the published count's exact 95% Poisson interval (42.8 of 11,763: 0.364%). A rate above it is one the
# published run would show less than 2.5% of the time; anything below it the published figure cannot tell from 0.26%.
ABLATION_MIN_PRECISION = 0.9998  # "makes 1 false refusal (precision 0.9998)": the stated precision, at its 4 decimals
ABSTENTION_MAX_PCT = round(100 * poisson_upper(PUBLISHED["abstentions"]) / PUBLISHED["test_transitions"], 3)
# The specification's sentences the claim rows test, quoted.
SENTENCE_HEADLINE = (
    "refusal precision and recall over the answered held-out transitions are 1.000 and 1.000 (7,602 of 7,602 "
    "answered refusals, no false refusal)"
)
SENTENCE_ABSTAINS = "the model abstains on 30 (0.26%)"
SENTENCE_ABLATIONS = (
    "Without pair features it abstains on 2.6% (precision still 1.000); without money comparisons 10.7% and makes 1 "
    "false refusal (precision 0.9998); without both, 12.9% and again 1 false refusal"
)


def _check(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadParameter(f"{name} must be an integer in {low}..{high}, got {value!r}.")
    return value


def train(
    transitions: list[Transition], vocab: Any, store: Any = None, unseen: str = "refuse"
) -> ConservativeActionModel:
    """A model that observed every transition, in order: journaled in `store` when given, else kept without a
    journal (a journaled observation holds its whole condition vector: at full size, hundreds of MB per model).
    unseen: the model's prediction-time option (ConservativeActionModel)."""
    model = (
        ConservativeActionModel(vocab, store=store, unseen=unseen)
        if store is not None
        else ConservativeActionModel(vocab, journal=False, unseen=unseen)
    )
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


_ONE_WORD_FAMILIES = ("gold", "enum", "list", "calculate", "think", "transfer")
_BROKEN_INPUT = ("missing", "no #", "invalid", "bad", "upper", "wrong zip")


def probe_family(origin: str) -> str:
    """The probe family of a transition's origin: the variation's kind without its particular value.

    >>> [probe_family(o) for o in ("gold", "swap order_id own pending", "enum reason invalid", "other tool x same order")]
    ['gold', 'swap order_id', 'enum', 'other tool']
    >>> probe_family("read user by email missing"), probe_family("list item_ids shortened")
    ('read user', 'list')
    """
    words = origin.split()
    if not words or words[0] in _ONE_WORD_FAMILIES:
        return words[0] if words else ""
    return " ".join(words[:2])


def broken_input(origin: str) -> bool:
    """The probe looks up an id that does not exist, or passes malformed input (an easy refusal).

    >>> broken_input("swap order_id missing"), broken_input("read user by email upper"), broken_input("gold")
    (True, True, False)
    """
    return any(origin.endswith(tail) or f" {tail} " in f" {origin} " for tail in _BROKEN_INPUT)


def _score(rows: list[tuple[bool, str]]) -> dict[str, Any]:
    """Precision, recall and abstention over (accepted, verdict) pairs (the same definitions as `evaluate`)."""
    n = len(rows)
    tp = sum(1 for a, v in rows if v == "refuse" and not a)
    fp = sum(1 for a, v in rows if v == "refuse" and a)
    fn = sum(1 for a, v in rows if v == "accept" and not a)
    unknown = sum(1 for _, v in rows if v == "unknown")
    return {
        "transitions": n,
        "refused": sum(1 for a, _ in rows if not a),
        "answered_refusals": tp + fn,
        "false_refusals": fp,
        "false_accepts": fn,
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / (tp + fn) if tp + fn else None,
        "abstentions": unknown,
        "abstention_pct": round(100.0 * unknown / n, 4) if n else None,
    }


def breakdown(
    model: ConservativeActionModel,
    vocab: Any,
    train_set: list[Transition],
    held_out: list[Transition],
    users: dict[int, str],
    trained_users: set[str],
    split_at: int | None = 20,
) -> pl.DataFrame:
    """Precision, recall and abstention on slices of the held-out transitions that training did not already show.

    Slices: all; condition vector never seen in training (for the same tool); (tool, arguments) never seen in
    training; gold calls only; user-disjoint (tasks whose user is in no training task); tasks < `split_at` and
    ≥ `split_at` (the first 20 test tasks were read during development; None: no such split, for the dev split,
    which no design decision read); probes of missing ids or malformed input,
    and the others; each probe family. `users` maps a held-out task index to its user.
    """
    seen_vectors = {(t.tool, vocab.vector(t.state, t.tool, t.args)) for t in train_set}
    seen_calls = {(t.tool, repr(sorted(t.args.items()))) for t in train_set}
    slices: dict[str, list[tuple[bool, str]]] = {}
    for t in held_out:
        verdict = model.predict(t.state, t.tool, t.args).verdict
        row = (t.accepted, verdict)
        names = ["all held-out"]
        if (t.tool, vocab.vector(t.state, t.tool, t.args)) not in seen_vectors:
            names.append("condition vector never seen in training")
        if (t.tool, repr(sorted(t.args.items()))) not in seen_calls:
            names.append("(tool, arguments) never seen in training")
        if t.origin == "gold":
            names.append("gold calls only")
        if users.get(t.task) not in trained_users:
            names.append("user-disjoint (user in no training task)")
        if split_at is not None:
            names.append(f"tasks 0–{split_at - 1}" if t.task < split_at else f"tasks ≥ {split_at}")
        names.append("missing id or malformed input" if broken_input(t.origin) else "well-formed input")
        names.append(f"family: {probe_family(t.origin)}")
        for name in names:
            slices.setdefault(name, []).append(row)
    order = ["all held-out", *SLICE_METRICS]
    fixed = sorted((n for n in slices if not n.startswith("family: ")), key=order.index)
    families = sorted(n for n in slices if n.startswith("family: "))
    return pl.DataFrame(
        [{"slice": name, **_score(slices[name])} for name in fixed + families],
        schema_overrides={"precision": pl.Float64, "recall": pl.Float64, "abstention_pct": pl.Float64},
    )


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
    held_out_split: str = FULL_PARAMS["held_out_split"],
    blind: bool = True,
    unseen: str = "refuse",
    schema_family: bool = True,
    explore_schema: bool = True,
) -> StudyResult:
    """Train on probes of the first `train_tasks` training tasks, evaluate on probes of the first `test_tasks` test tasks.

    pairs, money: the template families of the main vocabulary. ablations: also train without pairs, without
    money, without both (each on the same probes). Raises DataMissing (with how to get it) when the data is absent.
    held_out_split: "test" (the published protocol) or "dev" (its 20 tasks: develop on these, never on test).
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
        held_out_split=held_out_split,
        blind=blind,
        unseen=unseen,
        schema_family=schema_family,
        explore_schema=explore_schema,
    )
    t_start = time.perf_counter()
    directory = find_data_dir(data_dir)  # DataMissing says how to get the data
    data = load_retail(directory)
    _check("train_tasks", train_tasks, 1, len(data.tasks["train"]))
    if held_out_split not in ("test", "dev"):
        raise BadParameter(
            f"held_out_split must be 'test' or 'dev', got {held_out_split!r}; develop on 'dev', report on 'test'."
        )
    _check("test_tasks", test_tasks, 1, len(data.tasks[held_out_split]))
    _check("seed", seed, -(2**63), 2**63 - 1)
    _check("budget", budget, 1, 10_000)
    base = RetailEnv(data)

    t0 = time.perf_counter()
    train_set = split_probes(data, "train", train_tasks, seed=seed, budget=budget, base=base)
    gold_step_n = len(train_set)
    if explore_schema:  # training states only: the scored probe sets never contain these (issue 43)
        train_set += explore_split(data, train_tasks, base=base, probes=train_set)
    test_set = split_probes(data, held_out_split, test_tasks, seed=seed, budget=budget, base=base)
    probe_s = time.perf_counter() - t0

    vocab = build_vocabulary(data.tools, base.state, pairs=pairs, money=money, schema_family=schema_family)
    # every model of the run reads the probes through the main vocabulary's memoised vectors: the same values, once
    reads = SharedReads(vocab)
    t0 = time.perf_counter()
    store = KnowledgeStore()  # in memory: the observations are journaled, then replayed below
    model = train(train_set, vocab, store=store, unseen=unseen)
    train_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ev = evaluate(model, test_set)
    predict_s = time.perf_counter() - t0
    replay_ok = _replay(model, train_set)
    # the journal holds only condition vectors; the model rebuilt from it must be the live one
    again = ConservativeActionModel.from_journal(store.journal, vocab=vocab, store=store)
    again.unseen = unseen
    journal_equal = again.snapshot() == model.snapshot()
    held_users = {int(t["index"]): t["user_id"] for t in data.tasks[held_out_split][:test_tasks]}
    trained_users = {t["user_id"] for t in data.tasks["train"][:train_tasks]}
    t0 = time.perf_counter()
    # the test split's first 20 tasks were read in development: split there on test only (dev was never read)
    split_at = 20 if held_out_split == "test" else None
    slices = breakdown(model, vocab, train_set, test_set, held_users, trained_users, split_at=split_at)
    breakdown_s = time.perf_counter() - t0

    metrics: dict[str, Any] = {
        "train_tasks": train_tasks,
        "test_tasks": test_tasks,
        "seed": seed,
        "held_out_split": held_out_split,
        "held_out_users": len(set(held_users.values())),
        "held_out_users_in_training": len(set(held_users.values()) & trained_users),
        "train_transitions": len(train_set),
        "train_gold_step_transitions": gold_step_n,
        "train_schema_transitions": len(train_set) - gold_step_n,
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
    for name, short in SLICE_METRICS.items():
        row = slices.filter(pl.col("slice") == name)
        if row.height:
            r = row.row(0, named=True)
            for k in ("transitions", "refused", "false_refusals", "false_accepts", "abstentions"):
                metrics[f"{short}_{k}"] = r[k]
            for k in ("precision", "recall", "abstention_pct"):
                if r[k] is not None:
                    metrics[f"{short}_{k}"] = r[k]
    # A seen condition vector always gets its training verdict, so every error falls in the unseen slice: the share of
    # held-out transitions whose vector training showed is what the headline precision and recall mostly re-read.
    novel = metrics.get("novel_vector_transitions", 0)
    metrics["seen_vector_share"] = round(1.0 - novel / ev["transitions"], 4) if ev["transitions"] else None
    # Blind probes (issue 33): the frozen generator on the same held-out tasks; per family, false accepts apart
    t0 = time.perf_counter()
    tables_blind: dict[str, pl.DataFrame] = {}
    held_tasks = data.tasks[held_out_split][:test_tasks]
    gold_scores = score(verdicts(model, test_set))
    tables_blind["gold_step_families"] = family_table(verdicts(model, test_set), test_set, probe_family)
    sets = {"held_out": test_set}
    if blind:
        blind_set = blind_probes(base, data.tools, held_tasks, _effect, split=held_out_split, seed=BLIND_SEED)
        rows_blind = verdicts(model, blind_set)
        tables_blind["blind_families"] = family_table(rows_blind, blind_set, blind_family)
        sets["blind"] = blind_set
        b = score(rows_blind)
        for k in (
            "probes",
            "refused",
            "precision",
            "recall",
            "abstentions",
            "abstention_pct",
            "false_accepts",
            "false_accept_rate",
            "false_refusals",
        ):
            metrics[f"blind_{k}"] = b[k]
    # what a tool reads (issue 43): parsed text, money at the environment's own edge, lists as iterated
    reading_set = reading_probes(base, data.tools, held_tasks, _effect)
    rows_reading = verdicts(model, reading_set)
    tables_blind["reading_families"] = family_table(rows_reading, reading_set, reading_family)
    sets["reading"] = reading_set
    r43 = score(rows_reading)
    for k, v in r43.items():
        metrics[f"reading_{k}"] = v
    metrics["false_accept_rate"] = gold_scores["false_accept_rate"]
    unseen_table = []
    for name, ps in sets.items():
        ways = unseen_both_ways(model, ps)
        for way, w in ways.items():
            unseen_table.append({"probe set": name, "unseen": way, **w})
            for k in ("precision", "abstentions", "false_accepts", "false_refusals"):
                metrics[f"{name}_unseen_{way}_{k}"] = w[k]
    tables_blind["unseen_both_ways"] = pl.DataFrame(
        unseen_table,
        schema_overrides={k: pl.Float64 for k in ("precision", "recall", "abstention_pct", "false_accept_rate")},
    )
    # the schema family (issue 33), ablated: the same vocabulary with and without it, on every probe set
    # the schema family (issues 33, 43), ablated: the main vocabulary against the same one the other way, on every
    # probe set; metrics schema_* are the "without" side's (the ablation), whichever way the main vocabulary is
    v_other = build_vocabulary(data.tools, base.state, pairs=pairs, money=money, schema_family=not schema_family)
    reads.share(v_other)
    m_other = train(train_set, v_other, unseen=unseen)
    m_with, m_without = (model, m_other) if schema_family else (m_other, model)
    metrics["other_schema_vocabulary_conditions"] = len(v_other.names)
    schema_rows = []
    for name, ps in sets.items():
        for label, mdl in (("without schema family", m_without), ("with schema family", m_with)):
            sc = score(verdicts(mdl, ps))
            schema_rows.append({"vocabulary": label, "probe set": name, **sc})
            if mdl is m_other:
                for k in ("precision", "recall", "abstention_pct", "false_accepts", "false_refusals"):
                    metrics[f"schema_ablated_{name}_{k}"] = sc[k]
    tables_blind["schema_family"] = pl.DataFrame(
        schema_rows,
        schema_overrides={k: pl.Float64 for k in ("precision", "recall", "abstention_pct", "false_accept_rate")},
    )
    blind_s = time.perf_counter() - t0
    ablation_rows = []
    # false accepts and abstention of each vocabulary on the probe sets beyond the gold-step one (issue 43)
    probe_cols: dict[str, dict[str, Any]] = {"full": {n: score(verdicts(model, ps)) for n, ps in sets.items()}}
    if ablations:
        for label, kw in (
            ("no_pairs", {"pairs": False}),
            ("no_money", {"money": False}),
            ("neither", {"pairs": False, "money": False}),
            ("no_exact_money", {"exact_money": False}),
            ("no_shapes", {"shapes": False}),
            ("no_lists", {"lists": False}),
        ):
            kw = {"pairs": pairs, "money": money, **kw}
            v = build_vocabulary(data.tools, base.state, schema_family=schema_family, **kw)
            reads.share(v)
            m_abl = train(train_set, v, unseen=unseen)
            e = evaluate(m_abl, test_set)
            metrics[f"{label}_abstentions"] = e["abstentions"]
            metrics[f"{label}_abstention_pct"] = round(e["abstention_pct"], 4)
            metrics[f"{label}_false_refusals"] = e["false_refusals"]
            metrics[f"{label}_precision"] = e["refusal_precision"]
            metrics[f"{label}_recall"] = e["refusal_recall"]
            probe_cols[label] = {n: score(verdicts(m_abl, ps)) for n, ps in sets.items() if n != "held_out"}
            for n, sc in probe_cols[label].items():
                metrics[f"{label}_{n}_false_accepts"] = sc["false_accepts"]
                metrics[f"{label}_{n}_abstention_pct"] = sc["abstention_pct"]
            ablation_rows.append((label, e))
    wall = time.perf_counter() - t_start
    metrics.update(
        {
            "probe_seconds": round(probe_s, 2),
            "train_seconds": round(train_s, 2),
            "predict_seconds": round(predict_s, 2),
            "breakdown_seconds": round(breakdown_s, 2),
            "blind_seconds": round(blind_s, 2),
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
            **{
                f"{n} {k}": [probe_cols[label][n][k] for label in ("full", *[r[0] for r in ablation_rows])]
                for n in sets
                if n != "held_out"
                for k in ("false_accepts", "abstention_pct", "false_refusals")
            },
        }
    )
    model_table = model.frame()
    reads.close()

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
            "held_out_split": held_out_split,
            "blind": blind,
            "unseen": unseen,
            "schema_family": schema_family,
            "explore_schema": explore_schema,
        },
        metrics=metrics,
        tables={
            "abstention_by_tool": by_tool,
            "held_out_slices": slices,
            "ablations": ablation_table,
            "model": model_table,
            **tables_blind,
        },
        comparison=_comparison(metrics, ev, full=(train_tasks, test_tasks) == (400, 115), ablations=ablations)
        + _blind_rows(metrics, gold_scores, blind)
        + _schema_rows(schema_rows, main=schema_family),
        caveats=caveats(metrics, ablations=ablations),
        figures={
            "abstention_by_tool": _figure(by_tool, f"Abstentions by tool ({ev['transitions']:,} held-out transitions)")
        },
    )
    return result


def _blind_rows(m: dict[str, Any], gold: dict[str, Any], blind: bool) -> list[Comparison]:
    """False accepts as a claim of their own on every probe set, the blind probes beside the gold-step ones, and the
    unseen option both ways (issue 33; per-family tables: gold_step_families, blind_families, unseen_both_ways)."""
    # The held-out set's false accepts are refusal_recall's quantity on the same set: shown, counted there once.
    rows = probe_set_rows(
        "gold-step held-out probes",
        "held_out",
        gold,
        kind="figure",
        note="the same set as the headline precision; its false accepts are counted once, by refusal_recall",
    )
    if blind:
        b = {k[len("blind_") :]: v for k, v in m.items() if k.startswith("blind_") and k != "blind_seconds"}
        rows += probe_set_rows(
            "blind probes (frozen generator, held-out tasks)",
            "blind",
            b,
            kind="finding",
            note="written from the tools' documents and schemas alone; per family in blind_families",
            caveats=(
                "one result, not one per seed, at the full size: the probes are frozen and training reads every "
                "training task, so every seed of the stored full-size sweep gave the same count",
            ),
        )
    if "reading_probes" in m:
        r43 = {k: m[f"reading_{k}"] for k in score([]).keys()}
        rows += probe_set_rows(
            "probes of what a tool reads (issue 43: parsed text, money at the edge, lists as iterated)",
            "reading",
            r43,
            kind="finding",
            note="generated on the held-out tasks, labelled by the environment; per family in reading_families",
            caveats=(
                "one result, not one per seed, at the full size: the probes are generated without a seed and "
                "training reads every training task, so every seed of the stored full-size sweep gave the same count",
            ),
        )
    for name in ("held_out", "blind"):
        if f"{name}_unseen_refuse_precision" in m:
            ways = {
                w: {
                    "precision": m[f"{name}_unseen_{w}_precision"],
                    "abstention_pct": None,
                    "false_accepts": m[f"{name}_unseen_{w}_false_accepts"],
                    "false_refusals": m[f"{name}_unseen_{w}_false_refusals"],
                    "abstentions": m[f"{name}_unseen_{w}_abstentions"],
                }
                for w in ("refuse", "unknown")
            }
            n = m["test_transitions"] if name == "held_out" else m["blind_probes"]
            for w in ways.values():
                w["abstention_pct"] = round(100.0 * w["abstentions"] / n, 4) if n else None
            rows += unseen_rows("gold-step held-out" if name == "held_out" else "blind probes", name, ways)
    return rows


def _schema_rows(rows: list[dict[str, Any]], main: bool = True) -> list[Comparison]:
    """The schema family ablated: one figure row per probe set (precision / abstention / false accepts, without vs
    with); the false-accept rows of the vocabulary with it are findings like the others."""
    out: list[Comparison] = []
    by = {(r["vocabulary"], r["probe set"]): r for r in rows}
    for name in dict.fromkeys(r["probe set"] for r in rows):
        a, b = by[("without schema family", name)], by[("with schema family", name)]

        def show(r: dict[str, Any]) -> str:
            return f"{_fmt(r['precision'])} / {r['abstention_pct'] or 0:.2f}% / {r['false_accepts']}"

        out.append(
            Comparison(
                f"schema family ablated on {name}: precision / abstention % / false accepts, without vs with",
                f"{show(a)}  vs  {show(b)}",
                None,
                f"false refusals {a['false_refusals']} vs {b['false_refusals']}; undeclared / missing arguments, "
                f"JSON types, empty lists (schema_templates.py); the main vocabulary is {'with' if main else 'without'} it",
                key=f"schema_{name}_ablation",
            )
        )
    return out


def _slice_rows(m: dict[str, Any]) -> list[Comparison]:
    """The held-out slices training did not already show: figures, and our findings (the claims' thresholds applied
    to the harder slices). Slices absent from this run (e.g. tasks ≥ 20 at quick size) give no row."""
    rows: list[Comparison] = []
    labels = {short: name for name, short in SLICE_METRICS.items()}
    for short, name in labels.items():
        if f"{short}_transitions" not in m:
            continue
        prec, rec = m.get(f"{short}_precision"), m.get(f"{short}_recall")
        rows.append(
            Comparison(
                f"held-out slice: {name} — precision / recall / abstention %",
                f"{_fmt(prec)} / {_fmt(rec)} / {m[f'{short}_abstention_pct']:.2f}%",
                None,
                f"{m[f'{short}_transitions']:,} transitions, {m[f'{short}_refused']:,} refused, "
                f"{m[f'{short}_false_refusals']} false refusals, {m[f'{short}_abstentions']} abstentions",
            )
        )
    # The slices are slices of the claims' own table, not claims of their own: a seen condition vector always gets its
    # training verdict, so every error of "all held-out" falls in the unseen slice (the two fail together).
    if "tasks_rest_transitions" in m:
        rows.append(
            Comparison(
                "abstention_rare on its blind part: test tasks never read in development (slice of abstention_rare)",
                round(m["tasks_rest_abstention_pct"], 2),
                None,
                f"tasks 0–19 (read while designing templates and probes): {m['tasks_first20_abstention_pct']:.2f}%",
                holds=m["tasks_rest_abstention_pct"] <= ABSTENTION_MAX_PCT,
                kind="finding",
                key="unread_tasks_abstention_rare",
                threshold=f"abstentions on test tasks 20–114 ≤ {ABSTENTION_MAX_PCT}% (the claim's threshold)",
            )
        )
    return rows


def _ablation_rows(m: dict[str, Any]) -> list[Comparison]:
    """The published ablation claims, one row each, as the specification states them.

    Published: "Without pair features it abstains on 2.6% (precision still 1.000); without money comparisons 10.7%
    and makes 1 false refusal (precision 0.9998); without both, 12.9% and again 1 false refusal". The percentages
    are figures (our probes are not theirs); the claims are read as: precision still 1.000 (no false refusal);
    "makes 1 false refusal (precision 0.9998)" as *at least one false refusal, and precision 0.9998 or above at
    four decimals* (the published count is of their probe set; on a set of another size the same rate is another
    count, so the count's floor of one and the stated precision are what transfers); and the order of the abstentions
    full < no pairs < no money < neither, strictly.
    """
    P = PUBLISHED
    rows = [
        Comparison("no pairs: abstention %", round(m["no_pairs_abstention_pct"], 2), P["no_pairs_abstention_pct"], ""),
        Comparison("no money: abstention %", round(m["no_money_abstention_pct"], 2), P["no_money_abstention_pct"], ""),
        Comparison("neither: abstention %", round(m["neither_abstention_pct"], 2), P["neither_abstention_pct"], ""),
        Comparison("no money: false refusals", m["no_money_false_refusals"], P["no_money_false_refusals"], ""),
        Comparison("neither: false refusals", m["neither_false_refusals"], P["neither_false_refusals"], ""),
        Comparison(
            "without pair features, precision still 1.000",
            m["no_pairs_precision"],
            P["no_pairs_precision"],
            f"{m['no_pairs_false_refusals']} false refusals",
            holds=m["no_pairs_false_refusals"] == 0,
            kind="claim",
            key="no_pairs_precision",
            threshold="no false refusal without the pair features (precision 1.000, as published)",
            sentence=SENTENCE_ABLATIONS,
        ),
    ]
    for label, what in (("no_money", "without money comparisons"), ("neither", "without both")):
        fr, prec = m[f"{label}_false_refusals"], m[f"{label}_precision"]
        rows.append(
            Comparison(
                f"{what}: makes a false refusal (published 1), precision 0.9998 or above",
                f"{fr} false refusals, precision {prec:.4f}",
                f"{P[f'{label}_false_refusals']} false refusal, precision 0.9998",
                "the published count is of their probe set; at another set's size the same rate is another count",
                holds=fr >= 1 and round(prec, 4) >= ABLATION_MIN_PRECISION,
                kind="claim",
                key=f"{label}_false_refusal",
                threshold=f"{what}: false refusals ≥ 1 and precision ≥ {ABLATION_MIN_PRECISION} at four decimals "
                "(as published)",
                sentence=SENTENCE_ABLATIONS,
            )
        )
    order = [m["abstentions"], m["no_pairs_abstentions"], m["no_money_abstentions"], m["neither_abstentions"]]
    rows.append(
        Comparison(
            "abstentions ordered full < no pairs < no money < neither",
            " < ".join(str(v) for v in order),
            "0.26% < 2.6% < 10.7% < 12.9%",
            "held-out abstentions (counts, one probe set for all four vocabularies)",
            holds=all(a < b for a, b in zip(order, order[1:])),
            kind="claim",
            key="ablation_abstention_order",
            threshold="abstentions strictly ordered full < no pairs < no money < neither, as published",
            sentence=SENTENCE_ABLATIONS,
        )
    )
    return rows


def caveats(m: dict[str, Any], *, ablations: bool) -> list[str]:
    """What the tallies do not say: seen vs unseen vectors, the split read, what CI does not check."""
    out = []
    if m.get("seen_vector_share") is not None:
        out.append(
            f"{100 * m['seen_vector_share']:.1f}% of the held-out transitions have a condition vector training showed; "
            "a seen vector always gets its training verdict, so precision and recall mostly re-read training — the "
            f"unseen slice ({m.get('novel_vector_transitions', 0):,} transitions) is where every error falls "
            "(held_out_slices table)."
        )
    if m["held_out_split"] == "dev":
        out.append(
            "Evaluated on the dev split (20 tasks no design decision read): the quick path and CI never read test tasks; "
            "the published protocol's test split is read only by the reported full run."
        )
    else:
        out.append(
            "Test split: templates and probe families were designed after reading abstentions on test tasks 0–19; "
            "tasks 20–114 were never read (the blind slice row)."
        )
    out.append(
        "The vocabulary was written by someone who had read the tools' code (as the specification says of its own): "
        "the result is what a conservative learner recovers given it."
    )
    out.append(
        "Effects: our one-dimension probes make exact effects nearly trivial; the count beside the published one is "
        "not a win."
    )
    if not ablations:
        out.append("Ablations not run here: their four claims have no verdict in this run.")
    out.append(
        "CI (tests/studies/test_claims.py) checks every row at the quick size on the dev split (seeds 0–2); the "
        "full-size verdicts, on the test split, come only from the reported full run."
    )
    return out


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:.4f}"


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
            f"{m['false_refusals']} false refusals; {100 * (m['seen_vector_share'] or 0):.1f}% of held-out transitions "
            "have a condition vector training showed (answered as trained); the unseen slice is in the slices below",
            holds=m["refusal_precision"] == 1.0,
            kind="claim",
            key="refusal_precision",
            threshold="precision of 'refuse' over answered held-out transitions == 1.000 (published 1.000)",
            sentence=SENTENCE_HEADLINE,
        ),
        Comparison(
            "refusal recall (answered held-out)",
            m["refusal_recall"],
            P["refusal_recall"],
            f"{m['false_accepts']} refused calls predicted 'accept' (the held-out set's false accepts: counted here "
            "once, not again as a row of their own)",
            holds=m["refusal_recall"] >= 0.9995,
            kind="claim",
            key="refusal_recall",
            threshold="recall of refusals over answered held-out transitions ≥ 0.9995 (published 1.000: 1.000 at 3 decimals)",
            sentence=SENTENCE_HEADLINE,
        ),
        Comparison("abstentions (held-out, count)", m["abstentions"], P["abstentions"], "'unknown' answers"),
        Comparison(
            "abstentions (% of held-out)",
            round(m["abstention_pct"], 2),
            P["abstention_pct"],
            "the published 0.26% with its own sampling error: the upper end of the exact 95% Poisson interval of "
            "its count of 30",
            holds=m["abstention_pct"] <= ABSTENTION_MAX_PCT,
            kind="claim",
            key="abstention_rare",
            threshold=f"abstentions ≤ {ABSTENTION_MAX_PCT}% of held-out transitions (the published 30 of 11,763 at "
            "the upper end of its exact 95% Poisson interval)",
            sentence=SENTENCE_ABSTAINS,
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
            kind="mechanism",
            key="training_replayed",
            threshold="every training transition predicted as observed, and the journal's replay == the live model",
        ),
    ]
    rows += _slice_rows(m)
    if ablations:
        rows += _ablation_rows(m)
    rows += [
        Comparison(
            "effects: exact new order status",
            m["effects_exact"],
            P["effects_exact"],
            f"of {m['effects_predicted']} accepted held-out calls with an effect prediction (published of 2,587); not "
            "a win over the published figure: our probes vary one dimension of a gold call, so most accepted calls "
            "repeat an effect training showed with the same condition values",
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
