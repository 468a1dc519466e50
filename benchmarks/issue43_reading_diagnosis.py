"""Why the action model abstains on the probes of what a tool reads (issue 43), on data we may read.

The held-out test split is not read here. Retail: the model trains as the defaults decision trains it (training tasks
0–399, gold-step probes plus the schema exploration); the reading probes are generated on the dev split and on
training tasks 400–459 (both read in design already; 460–499 stay unread for the defaults vote). Airline: each fold's
reading probes scored by the other fold's model (all 50 tasks were read in design).

Each abstained probe is grouped by its family (``list`` / ``expression`` / ``money``), by its variant (the origin),
and by why the model said "unknown": the templates of the violated conditions (an argument's name replaced by
``<arg>``, a tool's by ``<tool>``) with the values they held, or the exact-vector memory.

    python benchmarks/issue43_reading_diagnosis.py      # → results/benchmarks/issue43_reading_diagnosis.md

Needs the τ-bench retail and airline data (``../shared/data``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "results" / "benchmarks" / "issue43_reading_diagnosis.md"
RETAIL_TRAIN = 400
RETAIL_READ = range(400, 460)
BLIND_BUDGET = 60  # airline's blind budget in the study's full run  # training tasks read in design before (460–499 vote on the defaults)


def template(cond: str, args: Iterable[str], tool: str) -> str:
    """A condition's name with the call's argument names and the tool's name generalised.

    >>> template("expression:parse", ["expression"], "calculate")
    '<arg>:parse'
    >>> template("calculate:undeclared_args", [], "calculate")
    '<tool>:undeclared_args'
    """
    out = cond.replace(f"{tool}:", "<tool>:")
    for a in sorted(args, key=len, reverse=True):
        out = re.sub(rf"(?<![\w]){re.escape(a)}(?![\w])", "<arg>", out)
    return out


def _show(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def reason(model: Any, t: Any, declared: Sequence[str]) -> tuple[str, str] | None:
    """(cause, cause with values) of an "unknown" prediction, None when the model answered."""
    p = model.predict(t.state, t.tool, t.args)
    if p.verdict != "unknown":
        return None
    d = p.detail
    names = [*declared, *t.args]
    if d.get("exact_memory"):
        return "exact vector never seen / seen both ways", "exact vector"
    viol = list(d.get("violated") or [])
    if not viol:
        return "other", p.reason[:80]
    vec = model.vocab.read(t.state, t.tool, t.args)
    base = sorted({template(c, names, t.tool) for c in viol if "&" not in c})
    cause = ", ".join(base) if base else ", ".join(sorted({template(c, names, t.tool) for c in viol}))
    with_values = (
        ", ".join(f"{template(c, names, t.tool)}={_show(vec.get(c))}" for c in sorted(viol) if "&" not in c) or cause
    )
    return cause, with_values


def tabulate(rows: list[dict[str, Any]], key: str, title: str, limit: int = 40) -> str:
    counts = Counter(r[key] for r in rows)
    lines = [f"| {title} | abstained |", "|---|---:|"]
    for k, n in counts.most_common(limit):
        cell = k.replace("|", "\\|")
        lines.append(f"| {cell} | {n} |")
    if len(counts) > limit:
        lines.append(f"| ({len(counts) - limit} more) | {sum(n for _, n in counts.most_common()[limit:])} |")
    return "\n".join(lines)


def families(scored: list[tuple[Any, str]]) -> str:
    from solvi_lab.studies.taubench.reading_probes import reading_family

    fam: dict[str, Counter] = {}
    for t, v in scored:
        c = fam.setdefault(reading_family(t.origin), Counter())
        c["probes"] += 1
        c["refused"] += not t.accepted
        c[v] += 1
        c["false accepts"] += v == "accept" and not t.accepted
        c["false refusals"] += v == "refuse" and t.accepted
        c["unknown, accepted"] += v == "unknown" and t.accepted
    cols = ["probes", "refused", "unknown", "unknown, accepted", "false accepts", "false refusals"]
    lines = ["| family | " + " | ".join(cols) + " | abstained |", "|---|" + "---:|" * (len(cols) + 1)]
    total: Counter = Counter()
    for f in sorted(fam):
        total.update(fam[f])
        lines.append(
            f"| {f} | "
            + " | ".join(str(fam[f][c]) for c in cols)
            + f" | {100 * fam[f]['unknown'] / fam[f]['probes']:.2f}% |"
        )
    if total["probes"]:
        lines.append(
            "| **all** | "
            + " | ".join(str(total[c]) for c in cols)
            + f" | {100 * total['unknown'] / total['probes']:.2f}% |"
        )
    return "\n".join(lines)


def scores_table(sets: dict[str, list[tuple[bool, str]]]) -> str:
    """Every probe set's score (the reading set and the others the defaults must keep: gold-step and blind)."""
    from solvi_lab.studies.taubench.scoring import score

    lines = [
        "| probe set | probes | refused | precision | abstained | false accepts | false refusals |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, rows in sets.items():
        s = score(rows)
        prec = "—" if s["precision"] is None else f"{s['precision']:.4f}"
        lines.append(
            f"| {name} | {s['probes']} | {s['refused']} | {prec} | {s['abstention_pct'] or 0:.2f}% | "
            f"{s['false_accepts']} | {s['false_refusals']} |"
        )
    return "\n".join(lines)


def section(
    name: str, scored: list[tuple[Any, str, Any]], declared: dict[str, list[str]], others: dict[str, list] | None = None
) -> str:
    from solvi_lab.studies.taubench.reading_probes import reading_family

    rows = []
    for t, v, model in scored:
        if v != "unknown":
            continue
        cause, values = reason(model, t, declared.get(t.tool, []))
        rows.append(
            {
                "family": reading_family(t.origin),
                "variant": f"{t.origin} ({'accepted' if t.accepted else 'refused'})",
                "cause": f"{reading_family(t.origin)}: {cause}",
                "values": f"{reading_family(t.origin)}: {values}",
                "tool": f"{t.tool} / {t.origin.split(' ', 1)[0]}",
            }
        )
    sets = {"what a tool reads": [(t.accepted, v) for t, v, _ in scored], **(others or {})}
    parts = [
        f"## {name}",
        "",
        scores_table(sets),
        "",
        families([(t, v) for t, v, _ in scored]),
        "",
        tabulate(rows, "variant", "variant (label)"),
        "",
        tabulate(rows, "cause", "family: violated templates (why unknown)"),
        "",
        tabulate(rows, "values", "family: violated templates = the value read", limit=50),
        "",
        tabulate(rows, "tool", "tool / family"),
        "",
    ]
    return "\n".join(parts)


def retail(data_dir: str | None = None) -> str:
    from solvi_lab.studies.taubench.blind_probes import BLIND_SEED, blind_probes
    from solvi_lab.studies.taubench.data import find_data_dir, load_retail
    from solvi_lab.studies.taubench.env import RetailEnv
    from solvi_lab.studies.taubench.probes import DEFAULT_BUDGET, _effect, explore_split, split_probes, task_probes
    from solvi_lab.studies.taubench.probing import tool_properties
    from solvi_lab.studies.taubench.reading_probes import reading_probes
    from solvi_lab.studies.taubench.scoring import verdicts
    from solvi_lab.studies.taubench.study import train
    from solvi_lab.studies.taubench.vocabulary import build_vocabulary

    data = load_retail(find_data_dir(data_dir))
    base = RetailEnv(data)
    train_set = split_probes(data, "train", RETAIL_TRAIN, seed=0, budget=DEFAULT_BUDGET, base=base)
    train_set += explore_split(data, RETAIL_TRAIN, base=base, probes=train_set)
    model = train(train_set, build_vocabulary(data.tools, base.state))
    declared = {k: list(v) for k, v in tool_properties(data.tools).items()}
    schemas = tool_properties(data.tools)
    out = []
    for name, split, tasks in (
        ("retail, dev split (20 tasks)", "dev", data.tasks["dev"]),
        (
            f"retail, training tasks {RETAIL_READ.start}–{RETAIL_READ.stop - 1}",
            "train",
            [data.tasks["train"][i] for i in RETAIL_READ],
        ),
    ):
        ps = reading_probes(base, data.tools, tasks, _effect)
        gold = [t for task in tasks for t in task_probes(base, task, 0, split, DEFAULT_BUDGET, schemas)]
        others = {
            "gold-step": verdicts(model, gold),
            "blind": verdicts(model, blind_probes(base, data.tools, tasks, _effect, split=split, seed=BLIND_SEED)),
        }
        scored = [(t, model.predict(t.state, t.tool, t.args).verdict, model) for t in ps]
        out.append(section(name, scored, declared, others))
    return "\n".join(out)


def airline(data_dir: str | None = None) -> str:
    from solvi_lab.studies.taubench.airline.data import find_airline_dir, load_airline
    from solvi_lab.studies.taubench.airline.env import AirlineEnv
    from solvi_lab.studies.taubench.airline.probes import DEFAULT_BUDGET, effect_of, tasks_explore, tasks_probes
    from solvi_lab.studies.taubench.airline.study import FOLDS, _other, fold_of
    from solvi_lab.studies.taubench.airline.vocabulary import build_vocabulary
    from solvi_lab.studies.taubench.blind_probes import BLIND_SEED, blind_probes
    from solvi_lab.studies.taubench.probing import tool_properties
    from solvi_lab.studies.taubench.reading_probes import reading_probes
    from solvi_lab.studies.taubench.scoring import verdicts
    from solvi_lab.studies.taubench.study import train

    data = load_airline(find_airline_dir(data_dir))
    base = AirlineEnv(data)
    vocab = build_vocabulary(data.tools)
    models, gold = {}, {}
    for f in FOLDS:
        idx = [int(t["index"]) for t in data.tasks if fold_of(int(t["index"])) == f]
        gold[f] = tasks_probes(data, idx, seed=0, budget=DEFAULT_BUDGET, base=base)
        models[f] = train(gold[f] + tasks_explore(data, idx, base=base, probes=gold[f]), vocab)
    scored = []
    others: dict[str, list] = {"gold-step": [], "blind": []}
    for f in FOLDS:
        tasks = [t for t in data.tasks if fold_of(int(t["index"])) == f]
        m = models[_other(f)]
        scored += [
            (t, m.predict(t.state, t.tool, t.args).verdict, m)
            for t in reading_probes(base, data.tools, tasks, effect_of)
        ]
        others["gold-step"] += verdicts(m, gold[f])
        blind = blind_probes(base, data.tools, tasks, effect_of, split="test", seed=BLIND_SEED, budget=BLIND_BUDGET)
        others["blind"] += verdicts(m, blind)
    declared = {k: list(v) for k, v in tool_properties(data.tools).items()}
    return section("airline, both folds (each scored by the other fold's model)", scored, declared, others)


def main(argv: Sequence[str] = ()) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--only", choices=("retail", "airline"), default=None)
    ns = ap.parse_args(list(argv))
    t0 = time.perf_counter()
    parts = []
    if ns.only in (None, "retail"):
        parts.append(retail())
    if ns.only in (None, "airline"):
        parts.append(airline())
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    head = (
        "# Why the model abstains on what-a-tool-reads probes (issue 43), train/dev data only\n\n"
        f"Made by `python benchmarks/issue43_reading_diagnosis.py` on commit `{commit.strip()}`, "
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, in {time.perf_counter() - t0:.0f} s. The shipped "
        "defaults (schema family on, unseen='refuse', schema exploration on). The test split is not read.\n"
    )
    Path(ns.out).write_text(head + "\n" + "\n".join(parts), encoding="utf-8")
    print(ns.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
