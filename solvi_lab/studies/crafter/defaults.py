"""How the Crafter action model's default training is chosen, on worlds no design decision read (issue 43, item 3).

A candidate is a training (:data:`TRAININGS`: what the model trains on in the training worlds) with a ``memory``
(:data:`MEMORIES`: what exact-vector memory may answer where the vocabulary cannot explain a refusal):

- ``explorer``: the explorer's calls alone (the study's model until 2026-12-04);
- ``explorer_wanderer``: those plus one episode of the wanderer (:class:`.evaluation.Wanderer`) per training world:
  the conditions that do not matter (duplicate tools, night, other neighbours) are seen to vary;
- memory ``both`` (the core's default) or ``refuse``: a condition vector seen only accepted in an action whose
  refusals the vocabulary cannot all explain gets "unknown", not "accept" (``do_grass`` gives a sapling with
  probability 0.1: the vector it accepted can be refused next time); or ``neither``, the symmetric case: every call
  of such an action is "unknown" (the same chance accepts a vector it refused, and the refused calls a signature
  rests on may have been refused by chance: on training worlds of reported seeds, worlds ``+0..7`` training and
  ``+8..15`` scored, every false refusal of ``do_grass`` came from such a signature).

The rule is the project's (as for τ-bench, :mod:`solvi_lab.studies.taubench.defaults`): **fewest false accepts,
then highest refusal precision, then lowest abstention**, pooled over the probe sets; on a tie in all three the more
conservative candidate (the memory that answers least, listed first: ``neither``, ``refuse``, ``both``). The probe
sets are the
calls of both policies (the wanderer and the explorer without its lava probe) in **dev worlds** —
``1000·seed + 300..`` — of the **decision seeds** :data:`SEEDS` (20–23): neither the worlds nor the seeds of the
reported sweep (0–19, worlds ``+0..`` train, ``+100..`` held out, ``+200..`` protocol) and never looked at while
the wanderer or the explorer was written. The training worlds are the study's (``1000·seed + 0..15``).

``decide`` writes nothing; ``main`` (``python -m solvi_lab.studies.crafter.defaults``) stores
``docs/sweeps/crafter_defaults.json`` and renders its block into ``docs/readme/crafter.md`` (``--render``: only
the block; the default's held-out figures are :mod:`.heldout`'s). The study trains its model on :data:`TRAINING`
with :data:`MEMORY`, which a test checks against the stored choice.

>>> choose([{"candidate": "a", "false_accepts": 1, "precision": 1.0, "abstention_share": 0.01},
...         {"candidate": "b", "false_accepts": 0, "precision": 0.99, "abstention_share": 0.2},
...         {"candidate": "c", "false_accepts": 0, "precision": 0.99, "abstention_share": 0.1}])["candidate"]
'c'
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import default_rule

__all__ = [
    "TRAININGS",
    "TRAINING",
    "MEMORIES",
    "MEMORY",
    "CANDIDATES",
    "SEEDS",
    "DEV_BASE",
    "choose",
    "decide",
    "result_of",
    "render_table",
    "render_block",
]

#: training name -> what it means (the candidates compared)
TRAININGS: dict[str, str] = {
    "explorer": "the explorer's training-world calls",
    "explorer_wanderer": "the explorer's and the wanderer's training-world calls",
}
#: memory -> what it means (ConservativeActionModel's ``memory``); the conservative one first: it wins a tie
MEMORIES: dict[str, str] = {
    "neither": "no verdict at all on an action whose refusals are unexplained",
    "refuse": "memory accepts nothing where refusals are unexplained",
    "both": "memory accepts a vector seen only accepted",
}
#: candidate name -> (training, memory)
CANDIDATES: dict[str, tuple[str, str]] = {
    (t if m == "both" else f"{t}, memory={m}"): (t, m) for t in TRAININGS for m in MEMORIES
}
#: The study's default: the stored decision's choice (tests/studies/test_crafter_defaults.py checks it).
TRAINING = "explorer_wanderer"
MEMORY = "neither"
SEEDS: tuple[int, ...] = (20, 21, 22, 23)  # decision seeds: not among the reported sweep's 0-19
DEV_BASE = 300  # dev worlds 1000·seed + 300..: no experiment of the study uses them
ROOT = Path(__file__).resolve().parents[3]
RESULT_FILE = ROOT / "docs" / "sweeps" / "crafter_defaults.json"
DOC_FILE = ROOT / "docs" / "readme" / "crafter.md"
BEGIN, END = "<!-- crafter-defaults: docs/sweeps/crafter_defaults.json -->", "<!-- /crafter-defaults -->"
COUNTS = ("calls", "abstained", "false_accepts", "pred_refuse", "caught", "env_accepted", "accepted_predicted_accept")


def choose(rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The row the rule picks: fewest false accepts, then highest refusal precision, then lowest abstention (on a
    tie, the first row: :data:`CANDIDATES` lists the conservative memory first)."""
    return default_rule.choose(rows, "abstention_share", "candidate")


def meaning(candidate: str) -> str:
    """A candidate in words: its training, and its memory."""
    t, m = CANDIDATES[candidate]
    return f"{TRAININGS[t]}; {MEMORIES[m]}"


def summary(counts: Mapping[str, int]) -> dict[str, Any]:
    """Shares from pooled counts: abstention, refusal precision (None without a predicted refusal), and the
    share of the calls Crafter accepted that the model predicted "accept"."""
    out: dict[str, Any] = {k: int(counts.get(k, 0)) for k in COUNTS}
    out["abstention_share"] = out["abstained"] / out["calls"] if out["calls"] else 0.0
    out["precision"] = out["caught"] / out["pred_refuse"] if out["pred_refuse"] else None
    out["accept_share"] = out["accepted_predicted_accept"] / out["env_accepted"] if out["env_accepted"] else 0.0
    return out


def _add(into: dict[str, int], t: Mapping[str, Any]) -> None:
    for k in COUNTS:
        into[k] = into.get(k, 0) + int(t[k])


def decision_calls(
    seed: int, train_worlds: int = 16, dev_worlds: int = 4, steps: int = 1500
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[dict[str, Any]]]]:
    """One decision seed's calls: (training name -> the training worlds' calls it trains on, probe set -> the dev
    worlds' calls it is scored on), as the rule reads them."""
    from . import evaluation, learning
    from .env import measure_reset

    train_seeds = [1000 * seed + i for i in range(train_worlds)]
    dev_seeds = [1000 * seed + DEV_BASE + i for i in range(dev_worlds)]
    _, generated = measure_reset(train_seeds + dev_seeds)
    by_seed = {w.seed: w for w in generated}
    explorer = learning.record(train_seeds, steps, seed, by_seed, lava_probe=True)
    wanderer = evaluation.record([by_seed[s] for s in train_seeds], steps, seed)
    sets = {
        "dev wanderer": evaluation.record([by_seed[s] for s in dev_seeds], steps, seed),
        "dev explorer": [c for c in learning.record(dev_seeds, steps, seed, by_seed) if c["call"] != "noop"],
    }
    return {"explorer": explorer, "explorer_wanderer": explorer + wanderer}, sets


def score_seed(seed: int, train_worlds: int = 16, dev_worlds: int = 4, steps: int = 1500) -> dict[str, Any]:
    """One decision seed: every candidate scored on the dev worlds' calls of both policies (counts per set)."""
    from . import evaluation, learning, requirements

    data, sets = decision_calls(seed, train_worlds, dev_worlds, steps)
    out: dict[str, Any] = {"seed": seed, "sets": {}, "exact_rows": {}}
    for name, (training, memory) in CANDIDATES.items():
        model = learning.train(data[training], memory=memory)
        out["sets"][name] = {label: evaluation.transfer(model, calls) for label, calls in sets.items()}
        graded = [r for r in requirements.grade(model.snapshot()) if r.kind != "chance"]
        out["exact_rows"][name] = sum(r.status == "exact" for r in graded)  # the requirements table, beside
    out["graded_rows"] = len(graded)
    return out


def pool(per_seed: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per candidate: every set and seed pooled (what the rule reads), each set pooled over seeds, and
    each seed's pooled figures."""
    rows = []
    for name in CANDIDATES:
        pooled: dict[str, int] = {}
        by_set: dict[str, dict[str, int]] = {}
        by_seed: dict[str, dict[str, Any]] = {}
        for s in per_seed:
            seed_counts: dict[str, int] = {}
            for label, t in s["sets"][name].items():
                _add(pooled, t)
                _add(by_set.setdefault(label, {}), t)
                _add(seed_counts, t)
            by_seed[str(s["seed"])] = {**summary(seed_counts), "exact_rows": s["exact_rows"][name]}
        rows.append(
            {
                "candidate": name,
                "training": CANDIDATES[name][0],
                "memory": CANDIDATES[name][1],
                "meaning": meaning(name),
                **summary(pooled),
                "sets": {label: summary(c) for label, c in by_set.items()},
                "seeds": by_seed,
            }
        )
    return rows


def decide(seeds: Sequence[int] = SEEDS, train_worlds: int = 16, dev_worlds: int = 4) -> dict[str, Any]:
    """Score every candidate on every decision seed and choose by the rule (a JSON-able result)."""
    return result_of([score_seed(s, train_worlds, dev_worlds) for s in seeds], train_worlds, dev_worlds)


def result_of(per_seed: Sequence[Mapping[str, Any]], train_worlds: int = 16, dev_worlds: int = 4) -> dict[str, Any]:
    """The stored result from :func:`score_seed`'s answers (computed apart, one process per seed, then joined)."""
    seeds = [s["seed"] for s in per_seed]
    rows = pool(per_seed)
    return {
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "rule": "fewest false accepts, then highest refusal precision, then lowest abstention (pooled); on a tie the "
        "conservative memory",
        "data": (
            f"seeds {list(seeds)}: training worlds 1000·seed + 0..{train_worlds - 1} (full-size explorer, 1,500 "
            f"steps); scored on dev worlds 1000·seed + {DEV_BASE}..{DEV_BASE + dev_worlds - 1}, the calls of the "
            "wanderer and of the explorer (no lava probe)"
        ),
        "rows": rows,
        "chosen": choose(rows)["candidate"],
    }


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.1f}%"


def render_table(result: Mapping[str, Any]) -> str:
    """The decision table (markdown): one row per training and probe set, then pooled."""
    lines = [
        "| model trained on | probe set | calls | abstained | false accepts | refusal precision | "
        "accepted calls predicted accept |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in result["rows"]:
        mark = " **(chosen)**" if row["candidate"] == result["chosen"] else ""
        for name, s in [*sorted(row["sets"].items()), ("pooled", row)]:  # as stored (sorted keys)
            prec = "—" if s["precision"] is None else f"{s['precision']:.4f}"
            lines.append(
                f"| {row['meaning']}{mark if name == 'pooled' else ''} | {name} | {s['calls']:,} | "
                f"{_pct(s['abstention_share'])} | {s['false_accepts']} | {prec} | {_pct(s['accept_share'])} |"
            )
    return "\n".join(lines)


def render_block(result: Mapping[str, Any]) -> str:
    """The block of ``docs/readme/crafter.md`` between its markers: the table, the per-seed figures, the source."""
    seeds = "; ".join(
        f"{row['meaning']}: "
        + ", ".join(
            f"seed {k} {_pct(v['abstention_share'])} / {v['false_accepts']} FA / {_pct(v['accept_share'])}"
            for k, v in row["seeds"].items()
        )
        for row in result["rows"]
    )
    return (
        f"{BEGIN}\n\n{render_table(result)}\n\nPer seed (abstained / false accepts / accepted calls predicted "
        f"accept, both sets): {seeds}.\n\nData: {result['data']}. Rule: {result['rule']}; chosen "
        f"**{result['chosen']}**. Measured {result['measured']}. Generated from the result file by "
        f"`python -m solvi_lab.studies.crafter.defaults`; do not edit by hand.\n\n{END}"
    )


def write_block(doc: Path, result: Mapping[str, Any]) -> str:
    """``doc``'s text with its block replaced by :func:`render_block` (the markers must be there)."""
    return default_rule.replace_block(doc.read_text(encoding="utf-8"), BEGIN, END, render_block(result), str(doc))


def main(argv: Sequence[str] = ()) -> int:
    """Decide, store :data:`RESULT_FILE` and render its block into ``docs/readme/crafter.md``; ``--render`` only
    re-renders the block from the stored file; ``--seed N --part FILE`` scores one decision seed into FILE and
    ``--join FILE ...`` stores the result of those parts (so seeds run in separate processes). The default's held-out
    figures and the requirements table are :mod:`.heldout`'s (``python -m solvi_lab.studies.crafter.heldout``), which
    imports this module, never the reverse."""
    argv = list(argv)
    if "--heldout" in argv:
        sys.exit("the held-out figures moved: run `python -m solvi_lab.studies.crafter.heldout`")
    if "--seed" in argv:
        seed, part = int(argv[argv.index("--seed") + 1]), Path(argv[argv.index("--part") + 1])
        part.write_text(json.dumps(score_seed(seed), sort_keys=True), encoding="utf-8")
        return 0
    if "--join" in argv:
        parts = [json.loads(Path(p).read_text(encoding="utf-8")) for p in argv[argv.index("--join") + 1 :]]
        result = result_of(sorted(parts, key=lambda s: s["seed"]))
        RESULT_FILE.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    elif "--render" not in argv:
        RESULT_FILE.write_text(json.dumps(decide(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    result = json.loads(RESULT_FILE.read_text(encoding="utf-8"))
    DOC_FILE.write_text(write_block(DOC_FILE, result), encoding="utf-8")
    print(render_table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
