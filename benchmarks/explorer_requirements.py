"""The requirements table the explorer's training calls give, seed by seed, on design seeds (never the reported 0-19).

    nice -n 5 python benchmarks/explorer_requirements.py --seeds 20-39 --tag one_coal_20_39
    nice -n 5 python benchmarks/explorer_requirements.py --seeds 20-39 --set ONE_COAL=false --tag base_20_39
    python benchmarks/explorer_requirements.py --compare base_20_39 one_coal_20_39 --tag one_coal_vs_base_20_39

For each seed it runs what the Crafter study runs before grading (:mod:`solvi_lab.studies.crafter.study`): the
explorer over the seed's 16 training worlds (``1000·seed + 0..15``, 1,500 steps each, with the lava probe), the
wanderer over the same worlds, the model trained on the study's default training and memory, and
:func:`.requirements.grade` — then records each graded row that is not exact, the count of exact rows, and whether
the seed reaches 90% of all graded rows (issue 46, item 3). ``--set NAME=VALUE`` overrides a constant of
:mod:`solvi_lab.studies.crafter.explorer` for the run (a variant measured on design seeds; the default is untouched).
Seeds run on a Dask LocalCluster (``--workers``, one process each). Output:
``results/benchmarks/explorer_requirements/<tag>.json`` and ``.md``; ``--compare A B`` writes the two stored runs
side by side, seed by seed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "results" / "benchmarks" / "explorer_requirements"
REPORTED = range(0, 20)  # the reported sweep's seeds: never measured here
SHARE = 0.9  # issue 46, item 3: the share of all graded rows recovered exactly


def seed_rows(seed: int, settings: list[str]) -> dict[str, Any]:
    """One seed's graded requirement rows (see the module docstring), with the explorer's constants `settings`."""
    from solvi_lab.studies.crafter import defaults, evaluation, explorer, learning, requirements
    from solvi_lab.studies.crafter.env import measure_reset
    from solvi_lab.studies.crafter.study import FULL_PARAMS, _seeds

    for kv in settings:
        name, value = kv.split("=", 1)
        setattr(explorer, name, type(getattr(explorer, name))(json.loads(value)))
    train = _seeds(seed, 0, FULL_PARAMS["train_worlds"])
    steps = FULL_PARAMS["explore_steps"]
    _cost, generated = measure_reset(train)
    by_seed = {w.seed: w for w in generated}
    calls = learning.record(train, steps, seed, by_seed, lava_probe=True)
    wander = evaluation.record([by_seed[s] for s in train], steps, seed)
    training = {"explorer": calls, "explorer_wanderer": calls + wander}[defaults.TRAINING]
    model = learning.train(training, "full", memory=defaults.MEMORY)
    graded = [r for r in requirements.grade(model.snapshot()) if r.kind != "chance"]
    exact = sum(r.status == "exact" for r in graded)
    return {
        "seed": seed,
        "rows": len(graded),
        "exact": exact,
        "passes": exact >= SHARE * len(graded),
        "not_exact": [[r.action, r.rule, r.status] for r in graded if r.status != "exact"],
        "iron_tools_made": [
            [c["call"], c["state"].inventory["coal"]]
            for c in calls
            if c["accepted"] and c["call"] in ("make_iron_pickaxe", "make_iron_sword")
        ],
    }


def _seed_list(text: str) -> list[int]:
    try:
        if "-" in text:
            a, b = text.split("-", 1)
            seeds = list(range(int(a), int(b) + 1))
        else:
            seeds = [int(s) for s in text.split(",")]
    except ValueError:
        raise SystemExit(f"--seeds {text!r}: give a range such as 20-39 or a list such as 20,21") from None
    if not seeds:
        raise SystemExit(f"--seeds {text!r} names no seed: give the smaller seed first, e.g. 20-39")
    if any(s in REPORTED for s in seeds):
        raise SystemExit(f"seeds {sorted(set(seeds) & set(REPORTED))} are the reported sweep's: design on 20 and up")
    return seeds


def summary(meta: dict[str, Any], seeds: list[dict[str, Any]]) -> str:
    """The run's table: seeds passing, mean exact rows, the rows most often not exact."""
    n = len(seeds)
    rows = Counter(tuple(r) for s in seeds for r in s["not_exact"])
    lines = [
        f"Seeds {meta['seeds']}, explorer settings {meta['set'] or 'default'}: {sum(s['passes'] for s in seeds)}/{n} "
        f"seeds with at least {SHARE:.0%} of all graded rows exact; mean exact rows "
        f"{sum(s['exact'] for s in seeds) / n:.2f} of {seeds[0]['rows']}.",
        "",
        "| row not exact | status | seeds |",
        "|---|---|---|",
        *(f"| {a} `{rule}` | {status} | {k} |" for (a, rule, status), k in rows.most_common()),
        "",
        "| seed | exact | passes | iron tools made (call, coal in hand) |",
        "|---|---|---|---|",
        *(f"| {s['seed']} | {s['exact']} | {'yes' if s['passes'] else 'no'} | {s['iron_tools_made']} |" for s in seeds),
    ]
    return "\n".join(lines) + "\n"


def compare(a: str, b: str, tag: str) -> str:
    """Two stored runs seed by seed: exact rows in each, and how many seeds gained or lost."""
    missing = [t for t in (a, b) if not (OUT / f"{t}.json").exists()]
    if missing:
        raise SystemExit(f"no stored run {missing} in {OUT}: run it first with --tag, or name one stored there")
    ra, rb = (json.loads((OUT / f"{t}.json").read_text()) for t in (a, b))
    sa, sb = ({s["seed"]: s for s in r["seeds"]} for r in (ra, rb))
    common = sorted(set(sa) & set(sb))
    if not common:
        raise SystemExit(f"{a} and {b} share no seed")
    diffs = [sb[s]["exact"] - sa[s]["exact"] for s in common]
    lines = [
        f"# {b} against {a} ({tag})",
        "",
        f"Seeds {common[0]}-{common[-1]} ({len(common)}): {sum(d > 0 for d in diffs)} gained exact rows, "
        f"{sum(d < 0 for d in diffs)} lost, {sum(d == 0 for d in diffs)} unchanged; mean exact rows "
        f"{sum(sa[s]['exact'] for s in common) / len(common):.2f} -> {sum(sb[s]['exact'] for s in common) / len(common):.2f}; "
        f"seeds passing {sum(sa[s]['passes'] for s in common)} -> {sum(sb[s]['passes'] for s in common)}.",
        "",
        f"| seed | {a} | {b} |",
        "|---|---|---|",
        *(f"| {s} | {sa[s]['exact']} | {sb[s]['exact']} |" for s in common),
    ]
    text = "\n".join(lines) + "\n"
    (OUT / f"{tag}.md").write_text(text)
    return text


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="20-39", help="design seeds: a range 20-39 or a list 20,21 (never 0-19)")
    p.add_argument("--set", action="append", default=[], help="NAME=VALUE: an explorer constant for this run")
    p.add_argument("--workers", type=int, default=2, help="Dask LocalCluster worker processes")
    p.add_argument("--tag", default="run")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"), help="write <tag>.md: stored runs A and B seed by seed")
    a = p.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if a.compare:
        print(compare(*a.compare, a.tag))
        return
    from solvi_lab.studies.crafter import explorer

    for kv in a.set:
        name, _, value = kv.partition("=")
        if not value or not name.isupper() or not hasattr(explorer, name):
            raise SystemExit(f"{kv!r}: give NAME=VALUE with NAME a constant of the explorer module")
        try:
            json.loads(value)
        except ValueError:
            raise SystemExit(f"{kv!r}: the value must be JSON, e.g. {name}=true or {name}=6") from None
    if a.workers < 1:
        raise SystemExit("--workers must be at least 1 (Dask worker processes)")
    seeds = _seed_list(a.seeds)
    from dask.distributed import Client, LocalCluster, as_completed
    from tqdm import tqdm

    with LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True) as cluster, Client(cluster) as client:
        futures = [client.submit(seed_rows, s, a.set, pure=False) for s in seeds]
        done = [f.result() for f in tqdm(as_completed(futures), total=len(futures), desc="seeds")]
    done.sort(key=lambda s: s["seed"])
    meta = {"seeds": a.seeds, "set": a.set, "finished": datetime.now(UTC).isoformat(timespec="seconds")}
    (OUT / f"{a.tag}.json").write_text(json.dumps({"meta": meta, "seeds": done}, indent=1) + "\n")
    text = summary(meta, done)
    (OUT / f"{a.tag}.md").write_text(f"# The explorer's requirements rows on design seeds ({a.tag})\n\n{text}")
    print(text)


if __name__ == "__main__":
    main()
