"""How the action model's defaults are chosen: the schema family, ``unseen`` and the schema exploration, on data no
design decision read (issue 43).

The rule is the project's: **the promise first** (no refused call predicted "accept"), **then precision** of the
answered refusals, **then abstention**. Eight settings (schema family off / on × ``unseen`` "refuse" / "unknown" ×
schema exploration off / on) are scored on retail. The models train on the first ``train_tasks`` training tasks
exactly as the study trains them (with exploration: plus :func:`~.probing.schema_probes` of those same tasks).

Which data votes: the schema family and ``unseen`` were designed on the dev split; the schema exploration was designed
from the abstentions on the dev split and on training tasks 400–459 (blind probes there). So the vote is taken on
training tasks **460–499** (:data:`VOTE_TASKS`), which no design decision read and no model trains on: the gold-step
probes, the frozen blind generator (:mod:`.blind_probes`, ``BLIND_SEED``) and the what-a-tool-reads probes there,
pooled. The dev split's three probe sets are shown beside them (they do not vote). The test split is never read here.

Airline has no split outside its 50 tasks (all of them were read in development), so its figures (each fold's
probes scored by the other fold's model, gold-step and blind; not the GPT-4o calls, which are the reported test)
are a check of the retail decision, not a second vote.

``decide`` writes nothing; ``main`` (``python -m solvi_lab.studies.taubench.defaults``) writes the result file
``docs/sweeps/taubench_defaults.json`` that ``docs/readme/actions.md`` renders its table from
(:func:`render_table`).

>>> choose([{"setting": "a", "false_accepts": 1, "precision": 1.0, "abstention_pct": 1.0},
...         {"setting": "b", "false_accepts": 0, "precision": 0.99, "abstention_pct": 9.0},
...         {"setting": "c", "false_accepts": 0, "precision": 0.99, "abstention_pct": 5.0}])["setting"]
'c'
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...errors import BadInput
from .. import default_rule
from .scoring import abstention_causes, score, verdicts

__all__ = [
    "SETTINGS",
    "VOTE_TASKS",
    "choose",
    "decide",
    "render_table",
    "render_block",
    "write_block",
    "RESULT_FILE",
]

#: (label, schema family on, unseen, schema exploration on) — the eight settings compared.
SETTINGS: tuple[tuple[str, bool, str, bool], ...] = tuple(
    (f"schema {'on' if s else 'off'}, unseen='{u}', explore {'on' if e else 'off'}", s, u, e)
    for e in (False, True)
    for u in ("refuse", "unknown")
    for s in (False, True)
)
#: The retail training tasks (indices into the train split) whose probes vote: read by no design decision.
VOTE_TASKS = range(460, 500)
RESULT_FILE = Path(__file__).resolve().parents[3] / "docs" / "sweeps" / "taubench_defaults.json"
DOC_FILE = Path(__file__).resolve().parents[3] / "docs" / "readme" / "actions.md"
BEGIN, END = "<!-- taubench-defaults: docs/sweeps/taubench_defaults.json -->", "<!-- /taubench-defaults -->"


def choose(rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The row the rule picks: fewest false accepts, then highest precision, then lowest abstention."""
    return default_rule.choose(rows, "abstention_pct", "setting")


def _verdicts(models: Mapping[tuple[bool, bool], Any], sets: Mapping[str, Sequence[Any]]) -> dict[str, dict[str, list]]:
    """(accepted, verdict) of every probe, per setting and probe set (``unseen`` is a prediction-time option);
    models: (schema family, exploration) → trained model."""
    out: dict[str, dict[str, list]] = {}
    for label, schema, way, explore in SETTINGS:
        model = models[(schema, explore)]
        keep = model.unseen
        model.unseen = way
        try:
            out[label] = {name: verdicts(model, ps) for name, ps in sets.items()}
        finally:
            model.unseen = keep
    return out


def _rows(by_setting: Mapping[str, Mapping[str, list]], voting: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """One row per setting: the voting probe sets pooled (what the rule reads; all when None) and each set apart."""
    rows = []
    for label, schema, way, explore in SETTINGS:
        per_set = by_setting[label]
        pooled = [v for name in per_set if voting is None or name in voting for v in per_set[name]]
        rows.append(
            {
                "setting": label,
                "schema_family": schema,
                "unseen": way,
                "explore_schema": explore,
                **score(pooled),
                "sets": {name: score(v) for name, v in per_set.items()},
            }
        )
    return rows


def decide_retail(data_dir: str | None = None, train_tasks: int = 400, seed: int = 0) -> dict[str, Any]:
    """The eight settings on retail: voted on training tasks 460–499, dev shown; the training is the study's."""
    from .blind_probes import BLIND_SEED, blind_probes
    from .conversation import tasks_with_lookups
    from .data import find_data_dir, load_retail
    from .env import RETAIL, RetailEnv
    from .probes import DEFAULT_BUDGET, _effect, explore_split, split_probes, task_probes
    from .probing import tool_properties
    from .reading_probes import reading_probes
    from .study import train
    from .vocabulary import build_vocabulary

    data = load_retail(find_data_dir(data_dir))
    if train_tasks > VOTE_TASKS.start:
        raise BadInput(f"train_tasks={train_tasks} would train on the voting tasks {VOTE_TASKS.start}–; pass ≤ 460.")
    base = RetailEnv(data)
    train_set = split_probes(data, "train", train_tasks, seed=seed, budget=DEFAULT_BUDGET, base=base)
    explore = explore_split(data, train_tasks, base=base, probes=train_set)
    vote_tasks = [data.tasks["train"][i] for i in VOTE_TASKS]
    schemas = tool_properties(data.tools)
    dev_tasks = data.tasks["dev"]
    vote_gold = [t for task in vote_tasks for t in task_probes(base, task, seed, "train", DEFAULT_BUDGET, schemas)]
    dev_gold = split_probes(data, "dev", len(dev_tasks), seed=seed, budget=DEFAULT_BUDGET, base=base)
    # the tasks with the lookups of a conversation (conversation.py): the blind generator varies those too
    vote_talk = tasks_with_lookups(vote_tasks, vote_gold, RETAIL.writing)
    dev_talk = tasks_with_lookups(dev_tasks, dev_gold, RETAIL.writing)
    sets = {
        "unread gold-step": vote_gold,
        "unread blind": blind_probes(base, data.tools, vote_tasks, _effect, split="train", seed=BLIND_SEED),
        "unread blind, lookups": blind_probes(base, data.tools, vote_talk, _effect, split="train", seed=BLIND_SEED),
        "unread reading": reading_probes(base, data.tools, vote_tasks, _effect),
        "dev gold-step": dev_gold,
        "dev blind": blind_probes(base, data.tools, dev_tasks, _effect, split="dev", seed=BLIND_SEED),
        "dev blind, lookups": blind_probes(base, data.tools, dev_talk, _effect, split="dev", seed=BLIND_SEED),
        "dev reading": reading_probes(base, data.tools, dev_tasks, _effect),
    }
    models = {
        (s, e): train(train_set + (explore if e else []), build_vocabulary(data.tools, base.state, schema_family=s))
        for s in (False, True)
        for e in (False, True)
    }
    voting = ("unread gold-step", "unread blind", "unread blind, lookups", "unread reading")
    rows = _rows(_verdicts(models, sets), voting)
    # why the shipped vocabulary abstains on blind probes, without and with the exploration (issue 43)
    causes = {
        f"explore {'on' if e else 'off'}": {
            name: abstention_causes(models[(True, e)], sets[name])
            for name in ("dev blind", "unread blind", "dev blind, lookups", "unread blind, lookups")
        }
        for e in (False, True)
    }
    return {
        "domain": "retail",
        "fingerprints": {str(k).lower(): models[(k, True)].vocab.fingerprint[:12] for k in (False, True)},
        "data": f"train tasks 0–{train_tasks - 1} train (+ their schema exploration where on); training tasks "
        f"{VOTE_TASKS.start}–{VOTE_TASKS.stop - 1} vote (never read in design); dev split ({len(dev_tasks)} tasks) "
        "shown, not voting",
        "voting": list(voting),
        "train_tasks": train_tasks,
        "explore_transitions": len(explore),
        "seed": seed,
        "rows": rows,
        "abstention_causes": causes,
        "chosen": choose(rows)["setting"],
    }


def check_airline(data_dir: str | None = None, seed: int = 0, blind_budget: int = 60) -> dict[str, Any]:
    """The four settings on airline's folds (each fold's probes scored by the other fold's model)."""
    from .airline.data import find_airline_dir, load_airline
    from .airline.env import AirlineEnv
    from .airline.probes import DEFAULT_BUDGET, effect_of, tasks_explore, tasks_probes
    from .airline.study import FOLDS, _other, fold_of
    from .airline.vocabulary import build_vocabulary
    from .blind_probes import BLIND_SEED, blind_probes
    from .reading_probes import reading_probes
    from .study import train

    data = load_airline(find_airline_dir(data_dir))
    base = AirlineEnv(data)
    indices = [int(t["index"]) for t in data.tasks]
    probes = {
        f: tasks_probes(data, [i for i in indices if fold_of(i) == f], seed=seed, budget=DEFAULT_BUDGET, base=base)
        for f in FOLDS
    }
    blind = {
        f: blind_probes(
            base,
            data.tools,
            [t for t in data.tasks if fold_of(int(t["index"])) == f],
            effect_of,
            split="test",
            seed=BLIND_SEED,
            budget=blind_budget,
        )
        for f in FOLDS
    }
    reading = {
        f: reading_probes(base, data.tools, [t for t in data.tasks if fold_of(int(t["index"])) == f], effect_of)
        for f in FOLDS
    }
    explore = {
        f: tasks_explore(data, [i for i in indices if fold_of(i) == f], base=base, probes=probes[f]) for f in FOLDS
    }
    names = ("gold-step", "blind", "reading")
    pooled: dict[str, dict[str, list]] = {label: {n: [] for n in names} for label, _, _, _ in SETTINGS}
    for f in FOLDS:  # models trained on the other fold score this fold's probes
        models = {
            (s, e): train(
                probes[_other(f)] + (explore[_other(f)] if e else []), build_vocabulary(data.tools, schema_family=s)
            )
            for s in (False, True)
            for e in (False, True)
        }
        fold_sets = {"gold-step": probes[f], "blind": blind[f], "reading": reading[f]}
        for label, per_set in _verdicts(models, fold_sets).items():
            for name, v in per_set.items():
                pooled[label][name] += v
    rows = _rows(pooled)
    return {
        "domain": "airline",
        "fingerprints": {str(k).lower(): models[(k, True)].vocab.fingerprint[:12] for k in (False, True)},
        "data": "two folds by task parity, each scored by the other fold's model (all 50 tasks were read in design)",
        "seed": seed,
        "rows": rows,
        "chosen": choose(rows)["setting"],
    }


def decide(data_dir: str | None = None, airline_dir: str | None = None, train_tasks: int = 400) -> dict[str, Any]:
    """Retail's decision on its dev split and airline's check, as one JSON-able result."""
    retail = decide_retail(data_dir, train_tasks=train_tasks)
    airline = check_airline(airline_dir)
    return {
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "rule": "fewest false accepts, then highest refusal precision, then lowest abstention (the voting probe sets "
        "pooled)",
        "decided_on": "retail",
        "chosen": retail["chosen"],
        "domains": [retail, airline],
    }


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f}%"


def _prec(v: float | None) -> str:
    return "—" if v is None else f"{v:.4f}"


def render_table(result: Mapping[str, Any]) -> str:
    """The decision table (markdown) of a stored result: one row per domain, setting and probe set."""
    lines = [
        "| domain | setting | probe set | probes | refused | precision | abstained | false accepts | false refusals |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for dom in result["domains"]:
        for row in dom["rows"]:
            mark = " **(chosen)**" if row["setting"] == dom["chosen"] else ""
            pooled = "pooled (voting)" if dom.get("voting") else "pooled"
            for name, s in [*row["sets"].items(), (pooled, row)]:
                lines.append(
                    f"| {dom['domain']} | {row['setting']}{mark if name == pooled else ''} | {name} | "
                    f"{s['probes']:,} | {s['refused']:,} | {_prec(s['precision'])} | {_pct(s['abstention_pct'])} | "
                    f"{s['false_accepts']} | {s['false_refusals']} |"
                )
    return "\n".join(lines)


def render_causes(result: Mapping[str, Any]) -> str:
    """Why retail's shipped vocabulary (schema family on, ``unseen="refuse"``) abstained on blind probes, by cause,
    without and with the exploration ("" when the result has no such record)."""
    causes = result["domains"][0].get("abstention_causes")
    if not causes:
        return ""
    cols = [(way, name) for way in causes for name in causes[way]]
    first = causes[cols[0][0]][cols[0][1]]
    names = sorted({c for way, name in cols for c in causes[way][name]}, key=lambda c: (-first.get(c, 0), c))
    lines = [
        "| abstained because (retail, schema on, unseen='refuse') | " + " | ".join(f"{n}, {w}" for w, n in cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    for c in names:
        lines.append(f"| {c} | " + " | ".join(str(causes[w][n].get(c, 0)) for w, n in cols) + " |")
    lines.append("| **all** | " + " | ".join(str(sum(causes[w][n].values())) for w, n in cols) + " |")
    return "\n".join(lines) + "\n\n"


def render_block(result: Mapping[str, Any]) -> str:
    """The block of ``docs/readme/actions.md`` between its markers: the table and where it came from."""
    fps = ", ".join(f"{d['domain']} {d['fingerprints']['true']}" for d in result["domains"])
    return (
        f"{BEGIN}\n\n{render_causes(result)}{render_table(result)}\n\nRule: {result['rule']}; decided on {result['decided_on']}'s rows, "
        f"chosen **{result['chosen']}**. Measured {result['measured']} (vocabularies with the schema family: {fps}). "
        "Generated from the result file by `python -m solvi_lab.studies.taubench.defaults`; do not edit by hand."
        f"\n\n{END}"
    )


def write_block(doc: Path, result: Mapping[str, Any]) -> str:
    """``doc``'s text with its block replaced by :func:`render_block` (the markers must be there)."""
    return default_rule.replace_block(doc.read_text(encoding="utf-8"), BEGIN, END, render_block(result), str(doc))


def main(argv: Sequence[str] = ()) -> int:
    """Decide, store the result file (``RESULT_FILE``) and render its block into ``docs/readme/actions.md``;
    ``--render`` only re-renders the block from the stored file."""
    if "--full" in argv:  # the reported full runs (both studies, FULL_PARAMS)
        if "--render" not in argv:
            FULL_FILE.write_text(json.dumps(full_runs(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        full = json.loads(FULL_FILE.read_text(encoding="utf-8"))
        DOC_FILE.write_text(write_full_block(DOC_FILE, full), encoding="utf-8")
        print(render_full(full))
        return 0
    if "--render" not in argv:
        result = decide()
        RESULT_FILE.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    result = json.loads(RESULT_FILE.read_text(encoding="utf-8"))
    DOC_FILE.write_text(write_block(DOC_FILE, result), encoding="utf-8")
    print(render_table(result))
    return 0


# ---------------------------------------------------------------------------------------------------------------
# the reported full runs with the shipped defaults (issue 43, item 5): stored, then rendered into actions.md
# ---------------------------------------------------------------------------------------------------------------

FULL_FILE = RESULT_FILE.with_name("taubench_full_defaults.json")
FULL_BEGIN, FULL_END = "<!-- taubench-full: docs/sweeps/taubench_full_defaults.json -->", "<!-- /taubench-full -->"
#: (study, probe-set label, metric prefix) of the rows the block shows.
FULL_ROWS: tuple[tuple[str, str, str], ...] = (
    ("retail", "gold-step held-out (test, 115 tasks)", "held_out_set"),
    ("retail", "blind (test, 115 tasks)", "blind_set"),
    ("retail", "what a tool reads (test, 115 tasks)", "reading_set"),
    ("airline", "gold-step, other fold's model", "held_out_set"),
    ("airline", "blind, other fold's model", "blind_set"),
    ("airline", "what a tool reads, other fold's model", "reading_set"),
    ("airline", "GPT-4o's 1,164 calls, other fold's model", "agent_set"),
)


def _retail_sets(m: Mapping[str, Any]) -> dict[str, Any]:
    """The retail metrics under the airline study's names (``<set>_set_<k>``)."""
    out = {f"held_out_set_{k}": m[f"held_out_unseen_{m['unseen']}_{k}"] for k in ("precision", "false_accepts")}
    out.update(
        {
            "held_out_set_probes": m["test_transitions"],
            "held_out_set_refused": m["test_refused"],
            "held_out_set_abstention_pct": m["abstention_pct"],
            "held_out_set_false_refusals": m["false_refusals"],
            "held_out_set_recall": m["refusal_recall"],
        }
    )
    for name in ("blind", "reading"):
        for k in ("probes", "refused", "precision", "recall", "abstention_pct", "false_accepts", "false_refusals"):
            out[f"{name}_set_{k}"] = m[f"{name}_{k}"]
    return out


def full_runs() -> dict[str, Any]:
    """Both studies at their full parameters with the shipped defaults: the figures the block shows."""
    from .airline.study import FULL_PARAMS as AIRLINE_FULL
    from .airline.study import run as run_airline
    from .study import FULL_PARAMS as RETAIL_FULL
    from .study import run as run_retail

    rr = run_retail(**RETAIL_FULL)
    r = rr.metrics
    a = run_airline(**AIRLINE_FULL).metrics
    keep = ("refusal_precision", "refusal_recall", "abstentions", "abstention_pct", "test_transitions")
    keep += ("answered_refusals", "train_transitions", "replay_correct", "vocabulary_fingerprint", "unseen")
    keep += ("train_refused", "test_refused", "write_transitions", "write_abstentions", "write_abstention_pct")
    keep += ("journal_replay_equal", "effects_exact", "effects_predicted", "effects_none", "abstain_by_tool")
    keep += ("train_gold_step_transitions", "train_schema_transitions")
    retail = {k: r[k] for k in keep if k in r} | _retail_sets({**r, "unseen": RETAIL_FULL["unseen"]})
    retail |= {k: v for k, v in r.items() if k.startswith(("no_", "neither_"))}
    airline = {k: v for k, v in a.items() if "_set_" in k or k.startswith(("agent_", "vocabulary_fingerprint"))}
    retail["abstain_by_tool"] = {row["tool"]: row["abstentions"] for row in rr.tables["abstention_by_tool"].to_dicts()}
    slices = rr.tables["held_out_slices"].to_dicts()  # the held-out set sliced (what is really held out)
    blind_families = rr.tables["blind_families"].to_dicts() if "blind_families" in rr.tables else []
    return {
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "retail": retail,
        "airline": airline,
        "retail_slices": slices,
        "retail_blind_families": blind_families,
    }


def render_full(result: Mapping[str, Any]) -> str:
    """The block: one row per probe set, from the stored full runs."""
    lines = [
        "| study | probe set | probes | refused | precision | recall | abstained | false accepts | false refusals |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for study, label, prefix in FULL_ROWS:
        m = result[study]
        if f"{prefix}_probes" not in m:
            continue
        lines.append(
            f"| {study} | {label} | {m[f'{prefix}_probes']:,} | {m[f'{prefix}_refused']:,} | "
            f"{_prec(m[f'{prefix}_precision'])} | {_prec(m[f'{prefix}_recall'])} | "
            f"{_pct(m[f'{prefix}_abstention_pct'])} | {m[f'{prefix}_false_accepts']} | {m[f'{prefix}_false_refusals']} |"
        )
    r = result["retail"]
    abl = [
        f"{label} {r[f'{label}_abstention_pct']:.2f}% / {r.get(f'{label}_reading_false_accepts', '—')} / "
        f"{r.get(f'{label}_blind_false_accepts', '—')}"
        for label in ("no_exact_money", "no_shapes", "no_lists")
        if f"{label}_abstention_pct" in r
    ]
    return (
        f"{FULL_BEGIN}\n\n" + "\n".join(lines) + f"\n\nRetail headline (the specification's figures): precision "
        f"{r['refusal_precision']:.3f}, recall {r['refusal_recall']:.3f}, {r['abstentions']} abstentions "
        f"({r['abstention_pct']:.2f}%) of {r['test_transitions']:,} held-out transitions; training replayed "
        f"{r['replay_correct']:,} of {r['train_transitions']:,}. The new families ablated (held-out abstention / "
        f"false accepts on what-a-tool-reads / on blind): {'; '.join(abl)}. Measured {result['measured']} "
        "(`python -m solvi_lab.studies.taubench.defaults --full`); do not edit by hand.\n\n" + FULL_END
    )


SLICES_BEGIN = "<!-- taubench-slices: docs/sweeps/taubench_full_defaults.json -->"
SLICES_END = "<!-- /taubench-slices -->"


def _cell(col: str, v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.2f}%" if col.endswith("_pct") else f"{v:.4f}"
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)


def render_table_rows(rows: Sequence[Mapping[str, Any]]) -> str:
    """A markdown table of stored rows (every column, in the stored order); "" when there are none.

    >>> print(render_table_rows([{"slice": "all", "transitions": 1200, "precision": 1.0}]))
    | slice | transitions | precision |
    |---|---:|---:|
    | all | 1,200 | 1.0000 |
    """
    if not rows:
        return ""
    cols = list(rows[0])
    align = ["---" if isinstance(rows[0][c], str) else "---:" for c in cols]
    out = ["| " + " | ".join(c.replace("_", " ") for c in cols) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(_cell(c, r[c]) for c in cols) + " |" for r in rows]
    return "\n".join(out)


PUBLISHED_BEGIN = "<!-- taubench-published: docs/sweeps/taubench_full_defaults.json -->"
PUBLISHED_END = "<!-- /taubench-published -->"


def render_published(result: Mapping[str, Any]) -> str:
    """The retail full run beside the specification's published figures (``study.PUBLISHED``), row by row."""
    from .study import PUBLISHED as P

    r = result["retail"]

    def of(a: str, b: str, m: Mapping[str, Any]) -> str:
        return f"{m[a]:,} ({m[b]:,})" if a in m and b in m else "—"

    def abl(label: str, m: Mapping[str, Any]) -> str:
        got = [m.get(f"{label}_{k}") for k in ("abstention_pct", "false_refusals", "precision")]
        return ", ".join("—" if v is None else (f"{v:.1f}%" if i == 0 else _cell("", v)) for i, v in enumerate(got))

    rows = [
        (
            "training transitions (refused)",
            of("train_transitions", "train_refused", r),
            of("train_transitions", "train_refused", P),
        ),
        (
            "held-out transitions (refused)",
            of("test_transitions", "test_refused", r),
            of("test_transitions", "test_refused", P),
        ),
        ("answered held-out refusals", f"{r['answered_refusals']:,}", f"{P['answered_refusals']:,}"),
        (
            "refusal precision / recall (answered)",
            f"{r['refusal_precision']:.3f} / {r['refusal_recall']:.3f}",
            f"{P['refusal_precision']:.3f} / {P['refusal_recall']:.3f}",
        ),
        (
            "abstentions",
            f"{r['abstentions']} = {r['abstention_pct']:.2f}%",
            f"{P['abstentions']} = {P['abstention_pct']:.2f}%",
        ),
        (
            "abstentions, write tools only",
            f"{r['write_abstentions']} of {r['write_transitions']:,} = {r['write_abstention_pct']:.2f}%"
            if "write_abstentions" in r
            else "—",
            "—",
        ),
        (
            "training transitions replayed correctly",
            f"{r['replay_correct']:,} of {r['train_transitions']:,}",
            f"{P['replay_correct']:,} of {P['train_transitions']:,}",
        ),
        ("journal replay == live model", {True: "yes", False: "NO"}.get(r.get("journal_replay_equal"), "—"), "—"),
        ("no pairs: abstention, false refusals, precision", abl("no_pairs", r), abl("no_pairs", P)),
        ("no money: abstention, false refusals, precision", abl("no_money", r), abl("no_money", P)),
        ("neither: abstention, false refusals, precision", abl("neither", r), abl("neither", P)),
        (
            "effects: exact new order status",
            of("effects_exact", "effects_predicted", r).replace(" (", " of ").rstrip(")"),
            of("effects_exact", "effects_predicted", P).replace(" (", " of ").rstrip(")"),
        ),
        (
            "accepted calls with no effect prediction",
            f"{r['effects_none']:,}" if "effects_none" in r else "—",
            f"{P['effects_none']:,}",
        ),
    ]
    lines = ["| measure | ours (full, seed 0) | published |", "|---|---:|---:|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    by_tool = r.get("abstain_by_tool") or {}
    tools = ", ".join(f"{t} {n}" for t, n in sorted(by_tool.items(), key=lambda kv: (-kv[1], kv[0])) if n)
    return (
        f"{PUBLISHED_BEGIN}\n\n"
        + "\n".join(lines)
        + "\n\n"
        + (f"Abstentions by tool: {tools}; all others 0. " if tools else "")
        + f"Retail full run with the shipped defaults, measured {result['measured']} "
        "(`python -m solvi_lab.studies.taubench.defaults --full`); the published column is the specification's "
        "(`study.PUBLISHED`). Do not edit by hand.\n\n" + PUBLISHED_END
    )


def render_slices(result: Mapping[str, Any]) -> str:
    """The block of the retail full run's held-out slices and blind families (stored tables, rendered whole)."""
    parts = [SLICES_BEGIN, ""]
    if result.get("retail_slices"):
        parts += ["Held-out transitions (test split) by slice:", "", render_table_rows(result["retail_slices"]), ""]
    if result.get("retail_blind_families"):
        parts += ["Blind probes (test split) by family:", "", render_table_rows(result["retail_blind_families"]), ""]
    parts += [
        f"Retail full run, seed 0, shipped defaults, measured {result['measured']} "
        "(`python -m solvi_lab.studies.taubench.defaults --full`); do not edit by hand.",
        "",
        SLICES_END,
    ]
    return "\n".join(parts)


def write_full_block(doc: Path, result: Mapping[str, Any]) -> str:
    """``doc``'s text with its full-run block replaced by :func:`render_full` (and its slices block, when the page
    has its markers, by :func:`render_slices`)."""
    text = doc.read_text(encoding="utf-8")
    text = default_rule.replace_block(text, FULL_BEGIN, FULL_END, render_full(result), str(doc))
    if SLICES_BEGIN in text:
        text = default_rule.replace_block(text, SLICES_BEGIN, SLICES_END, render_slices(result), str(doc))
    if PUBLISHED_BEGIN in text and "train_refused" in result["retail"]:
        text = default_rule.replace_block(text, PUBLISHED_BEGIN, PUBLISHED_END, render_published(result), str(doc))
    return text


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
