"""The default's figures on held-out worlds under a policy that is not the explorer, and the requirements table with
each rule's per-call figures at its boundary (issue 43, items 3 and 4).

For each held-out seed (:data:`SEEDS`, worlds ``1000·seed + 100..103`` as the study, never used to design anything)
every candidate of :mod:`.defaults` (a training and a ``memory``) is trained on the training worlds and asked about:

- the wanderer's calls in the held-out worlds (:class:`.evaluation.Wanderer`, a search over the seen map mixed with
  random actions, its code apart from the explorer's): abstention, false accepts, refusal precision, and the share
  of the calls Crafter accepted that the model predicted "accept" (:func:`.evaluation.transfer`);
- the explorer's held-out calls (its own policy, for comparison);
- each threshold rule's calls at exactly its amount, for both policies (:func:`.evaluation.boundary`).

The requirements table (:func:`requirements_rows`) puts beside each rule's status (the default's, at every seed) those
boundary figures, and adds a row wherever the installed Crafter refused a call whose ``data.yaml`` rule held
(:func:`.probe.edge_probes`, probed at every seed). ``python -m solvi_lab.studies.crafter.heldout`` measures and
stores :data:`RESULT_FILE` and renders both blocks into ``docs/readme/crafter.md`` (``--render``: the blocks only;
``--seed N --part FILE``: one seed into FILE, joined later with ``--join FILE ...``, so seeds run in two processes).

>>> pooled([{"calls": 2, "false_accepts": 0}, {"calls": 3, "false_accepts": 1}], ("calls", "false_accepts"))
{'calls': 5, 'false_accepts': 1}
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from crafter import constants

from .. import default_rule
from . import defaults

__all__ = ["SEEDS", "RESULT_FILE", "seed_figures", "pooled", "requirements_rows", "render_transfer", "render_table"]

SEEDS: tuple[int, ...] = (0, 1, 2, 3)
ROOT = Path(__file__).resolve().parents[3]
RESULT_FILE = ROOT / "results" / "crafter" / "heldout.json"
DOC_FILE = defaults.DOC_FILE
TB, TE = "<!-- crafter-heldout: results/crafter/heldout.json#transfer -->", "<!-- /crafter-heldout -->"
RB, RE = "<!-- crafter-requirements: results/crafter/heldout.json#requirements -->", "<!-- /crafter-requirements -->"
TRANSFER_KEYS = ("calls", "abstained", "false_accepts", "pred_refuse", "caught", "env_accepted",
                 "accepted_predicted_accept")  # fmt: skip
BOUNDARY_KEYS = ("calls", "accepted", "predicted_accept", "false_accepts")


def pooled(rows: Iterable[Mapping[str, Any]], keys: Sequence[str]) -> dict[str, int]:
    """The sum of each key over rows (counts pooled before any share is taken)."""
    out = {k: 0 for k in keys}
    for r in rows:
        for k in keys:
            out[k] += int(r[k])
    return out


def seed_figures(seed: int, train_worlds: int = 16, test_worlds: int = 4, steps: int = 1500) -> dict[str, Any]:
    """One held-out seed at the study's full size: every candidate's transfer, held-out and boundary figures and
    graded requirement rows, and the edge probes of the installed package."""
    from . import evaluation, learning, probe, requirements
    from .env import measure_reset

    train_seeds = [1000 * seed + i for i in range(train_worlds)]
    test_seeds = [1000 * seed + 100 + i for i in range(test_worlds)]
    _, generated = measure_reset(train_seeds + test_seeds)
    by = {w.seed: w for w in generated}
    train = learning.record(train_seeds, steps, seed, by, lava_probe=True)
    test = [c for c in learning.record(test_seeds, steps, seed, by) if c["call"] != "noop"]
    wander_train = evaluation.record([by[s] for s in train_seeds], steps, seed)
    wander_test = evaluation.record([by[s] for s in test_seeds], steps, seed)
    data = {"explorer": train, "explorer_wanderer": train + wander_train}
    out: dict[str, Any] = {"seed": seed, "candidates": {}}
    for name, (training, memory) in defaults.CANDIDATES.items():
        model = learning.train(data[training], memory=memory)
        out["candidates"][name] = {
            "wanderer": evaluation.transfer(model, wander_test),
            "explorer": evaluation.transfer(model, test),
            "boundary_wanderer": evaluation.boundary(model, wander_test).to_dicts(),
            "boundary_explorer": evaluation.boundary(model, test).to_dicts(),
            "graded": [
                {k: getattr(r, k) for k in ("action", "rule", "kind", "text", "status", "learned")}
                for r in requirements.grade(model.snapshot())
                if r.kind != "chance"
            ],
        }
    out["probe_differences"] = probe.differences(probe.edge_probes(seed))
    return out


def default_name() -> str:
    """The candidate the study trains on (:data:`.defaults.TRAINING` with :data:`.defaults.MEMORY`)."""
    return next(n for n, tm in defaults.CANDIDATES.items() if tm == (defaults.TRAINING, defaults.MEMORY))


def _share(num: int, den: int) -> float | None:
    return num / den if den else None


def summary(counts: Mapping[str, int]) -> dict[str, Any]:
    """Shares from a transfer's pooled counts: abstention, refusal precision, accepted calls predicted accept."""
    return {
        **counts,
        "abstention_share": _share(counts["abstained"], counts["calls"]),
        "precision": _share(counts["caught"], counts["pred_refuse"]),
        "accept_share": _share(counts["accepted_predicted_accept"], counts["env_accepted"]),
    }


def requirements_rows(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The requirements table: one row per graded rule (the default's status at each seed; for thresholds the
    calls at exactly the amount pooled over seeds, per policy), then one row per place where the installed package
    refused a call its data.yaml rule allows (with the seeds whose probe found it)."""
    seeds = result["seeds"]
    name = result["default"]
    rows = []
    for i, g in enumerate(seeds[0]["candidates"][name]["graded"]):
        statuses = [s["candidates"][name]["graded"][i]["status"] for s in seeds]
        row: dict[str, Any] = {
            "action": g["action"],
            "requirement": g["text"],
            "condition": g["rule"],
            "statuses": statuses,
        }
        for policy in ("wanderer", "explorer"):
            at = [
                b
                for s in seeds
                for b in s["candidates"][name][f"boundary_{policy}"]
                if (b["action"], b["rule"]) == (g["action"], g["rule"])
            ]
            row[policy] = pooled(at, BOUNDARY_KEYS) if at else None
        rows.append(row)
    differs: dict[tuple[str, str], dict[str, Any]] = {}
    for s in seeds:
        for d in s["probe_differences"]:
            key = (d["action"], d["where"])
            differs.setdefault(key, {"action": d["action"], "where": d["where"], "rule": d["rule"], "seeds": []})
            differs[key]["seeds"].append(s["seed"])
    for d in differs.values():
        rows.append(
            {
                "action": d["action"],
                "requirement": f"{d['rule']}; player at the {d['where']}",
                "condition": ", ".join(f"near:{m}@1" for m in constants.make[d["action"][len("make_") :]]["nearby"]),
                "statuses": ["installed differs"],
                "probe_seeds": d["seeds"],
                "wanderer": None,
                "explorer": None,
            }
        )
    return rows


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.1f}%"


def render_transfer(result: Mapping[str, Any]) -> str:
    """The transfer block: per candidate, each seed and all seeds pooled, on the wanderer's held-out calls
    (abstained, false accepts, refusal precision, accepted calls predicted accept) and the explorer's."""
    lines = [
        "| model | seed | wanderer's held-out calls | abstained | false accepts | refusal precision | accepted calls "
        "predicted accept | explorer's held-out: calls / abstained / false accepts |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for name in defaults.CANDIDATES:
        mark = " **(default)**" if name == result["default"] else ""
        per = [(str(s["seed"]), s["candidates"][name]) for s in result["seeds"]]
        both = {p: summary(pooled((c[p] for _, c in per), TRANSFER_KEYS)) for p in ("wanderer", "explorer")}
        for seed, c in [*per, ("all", both)]:
            w, e = summary(pooled([c["wanderer"]], TRANSFER_KEYS)), summary(pooled([c["explorer"]], TRANSFER_KEYS))
            prec = "—" if w["precision"] is None else f"{w['precision']:.4f}"
            label = f"{defaults.meaning(name)}{mark}" if seed == "all" else name
            bold = "**" if seed == "all" else ""
            lines.append(
                f"| {label} | {bold}{seed}{bold} | {w['calls']:,} | {_pct(w['abstention_share'])} | "
                f"{w['false_accepts']} | {prec} | {_pct(w['accept_share'])} | {e['calls']:,} / "
                f"{_pct(e['abstention_share'])} / {e['false_accepts']} |"
            )
    return (
        f"{TB}\n\n"
        + "\n".join(lines)
        + f"\n\nHeld-out seeds {list(s['seed'] for s in result['seeds'])}: training worlds `1000·seed + 0..15`, "
        "held-out worlds `+100..103` (as the study), 1,500 steps per episode; the wanderer's calls are the probe set "
        f"of a policy that is not the explorer. Measured {result['measured']} on commit `{result['commit']}`. "
        "Generated from the result file by `python -m solvi_lab.studies.crafter.heldout`; do not edit by hand."
        f"\n\n{TE}"
    )


def _at(b: Mapping[str, int] | None) -> str:
    if b is None:
        return "—"
    return f"{b['calls']:,} / {b['accepted']:,} / {b['predicted_accept']:,} / {b['false_accepts']}"


def _status(statuses: Sequence[str]) -> str:
    first = statuses[0]
    if all(s == first for s in statuses):
        return first
    return ", ".join(f"{s} ({statuses.count(s)})" for s in dict.fromkeys(statuses))


def render_table(result: Mapping[str, Any]) -> str:
    """The requirements block: every rule with the default's status and its calls at exactly the rule's amount
    (calls / Crafter accepted / predicted "accept" of those / false accepts), then the installed-differs rows."""
    n = len(result["seeds"])
    lines = [
        f"| action | requirement | condition | status (the default, {n} seeds) | at the amount, wanderer: calls / "
        "accepted / predicted accept / false accepts | at the amount, explorer: the same |",
        "|---|---|---|---|---:|---:|",
    ]
    for r in result["requirements"]:
        status = _status(r["statuses"])
        if "probe_seeds" in r:
            status = f"installed differs (probed at seeds {', '.join(map(str, r['probe_seeds']))})"
        lines.append(
            f"| {r['action']} | {r['requirement']} | `{r['condition']}` | {status} | {_at(r['wanderer'])} | "
            f"{_at(r['explorer'])} |"
        )
    return (
        f"{RB}\n\n"
        + "\n".join(lines)
        + '\n\n"At the amount": held-out calls of the action made with exactly the rule\'s amount of the item '
        '(thresholds only; "—" for other rules), pooled over the held-out seeds. "installed differs": the '
        "installed package refused the call with every item at the amount and the nearby materials adjacent "
        "(`probe.py`). Generated from `results/crafter/heldout.json` by `python -m solvi_lab.studies.crafter.heldout`;"
        f" do not edit by hand.\n\n{RE}"
    )


def write_blocks(doc: Path, result: Mapping[str, Any]) -> str:
    """``doc``'s text with both blocks replaced."""
    text = default_rule.replace_block(doc.read_text(encoding="utf-8"), TB, TE, render_transfer(result), str(doc))
    return default_rule.replace_block(text, RB, RE, render_table(result), str(doc))


def result_of(per_seed: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The stored result from :func:`seed_figures`' answers (seeds in order)."""
    seeds = sorted(per_seed, key=lambda s: s["seed"])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    out: dict[str, Any] = {
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "commit": commit.stdout.strip() or "unknown",
        "default": default_name(),
        "seeds": list(seeds),
    }
    out["requirements"] = requirements_rows(out)
    return out


def main(argv: Sequence[str] = ()) -> int:
    """Measure every seed, store, render (see the module docstring for ``--render``, ``--seed``, ``--join``)."""
    argv = list(argv)
    if "--seed" in argv:
        seed, part = int(argv[argv.index("--seed") + 1]), Path(argv[argv.index("--part") + 1])
        part.write_text(json.dumps(seed_figures(seed), sort_keys=True), encoding="utf-8")
        return 0
    if "--join" in argv:
        parts = argv[argv.index("--join") + 1 :]
        result = result_of([json.loads(Path(p).read_text(encoding="utf-8")) for p in parts])
    elif "--render" not in argv:
        result = result_of([seed_figures(s) for s in SEEDS])
    if "--render" not in argv:
        RESULT_FILE.parent.mkdir(parents=True, exist_ok=True)
        RESULT_FILE.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    result = json.loads(RESULT_FILE.read_text(encoding="utf-8"))
    DOC_FILE.write_text(write_blocks(DOC_FILE, result), encoding="utf-8")
    print(render_transfer(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
