"""Would a minimum support for "accept" serve Crafter's users? Measured on the defaults rule's own data (issue 43).

At quick size one reported seed has a held-out false accept on ``do_grass``: its vector was seen accepted once and
never refused, so the shipped model predicted "accept" on a support of one call. ``ConservativeActionModel(
min_support=k)`` ("accept" only on a support of at least k calls, else "unknown") turns every accept below k into an
abstention and changes nothing else, so its
effect can be read off the shipped model's predictions without a second model: this script trains the shipped
model (:data:`defaults.TRAINING`, :data:`defaults.MEMORY`) on the decision seeds' training worlds
(:data:`defaults.SEEDS`: not the reported seeds) at full and at quick size, predicts every call of both policies on
their dev worlds (``1000·seed + 300..``, as the defaults rule scores them), and reports, per k: abstention, false
accepts and the share of Crafter-accepted calls predicted "accept", pooled, with each false accept's action and
support.

    python benchmarks/issue43_min_support.py --seeds 20 21 --part /tmp/a.json     # one process per part
    python benchmarks/issue43_min_support.py --join /tmp/a.json /tmp/b.json       # stores results/benchmarks/...
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tqdm import tqdm

from solvi_lab.studies.crafter import defaults, learning
from solvi_lab.studies.crafter.study import FULL_PARAMS, QUICK_PARAMS

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "benchmarks" / "issue43_min_support"
KS = (1, 2, 3)
SIZES = {"full": FULL_PARAMS, "quick": QUICK_PARAMS}


def score(seed: int, size: str, dev_worlds: int = 4) -> dict[str, Any]:
    """One decision seed at one size: every dev call's verdict, with the support of each "accept"."""
    params = SIZES[size]
    data, sets = defaults.decision_calls(seed, params["train_worlds"], dev_worlds, params["explore_steps"])
    model = learning.train(data[defaults.TRAINING], memory=defaults.MEMORY)
    calls = sets["dev wanderer"] + sets["dev explorer"]
    rows = []
    for c in calls:
        p = model.predict(c["state"], c["call"], {})
        rows.append([c["call"], p.verdict, p.support if p.verdict == "accept" else 0, bool(c["accepted"])])
    return {"seed": seed, "size": size, "calls": rows}


def summarise(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Per size and k: what "accept only on a support of at least k" would give, pooled over the seeds."""
    out: dict[str, Any] = {}
    for size in SIZES:
        calls = [c for p in parts if p["size"] == size for c in p["calls"]]
        if not calls:
            continue
        env_accepted = sum(c[3] for c in calls)
        rows = []
        for k in KS:
            accepted_pred = sum(c[1] == "accept" and c[2] >= k and c[3] for c in calls)
            fa = [c for c in calls if c[1] == "accept" and c[2] >= k and not c[3]]
            abstained = sum(c[1] == "unknown" or (c[1] == "accept" and c[2] < k) for c in calls)
            rows.append(
                {
                    "min_support": k,
                    "calls": len(calls),
                    "abstention_share": abstained / len(calls),
                    "false_accepts": len(fa),
                    "false_accepts_by_action_support": sorted(Counter(f"{c[0]} (support {c[2]})" for c in fa).items()),
                    "accept_share": accepted_pred / env_accepted if env_accepted else 0.0,
                }
            )
        out[size] = {"seeds": sorted({p["seed"] for p in parts if p["size"] == size}), "rows": rows}
    return out


def render(result: dict[str, Any]) -> str:
    lines = [
        '# A minimum support for "accept", on the defaults rule\'s dev worlds',
        "",
        f"Measured {result['measured']} — shipped model: training `{result['training']}`, memory "
        f"`{result['memory']}`; decision seeds {result['seeds']} (not the reported seeds); dev worlds 1000·seed + "
        f"{defaults.DEV_BASE}.., the calls of the wanderer and of the explorer; command: "
        "`python benchmarks/issue43_min_support.py` (its docstring: one process per part, then --join).",
        "",
        "| size | accept only on a support of at least | calls | abstained | false accepts | accepted calls "
        "predicted accept | false accepts by action |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for size, block in result["sizes"].items():
        for r in block["rows"]:
            fa = ", ".join(f"{name} ×{n}" for name, n in r["false_accepts_by_action_support"]) or "—"
            lines.append(
                f"| {size} | {r['min_support']} | {r['calls']:,} | {100 * r['abstention_share']:.1f}% | "
                f"{r['false_accepts']} | {100 * r['accept_share']:.1f}% | {fa} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(defaults.SEEDS))
    ap.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    ap.add_argument("--part", help="write this process's seeds here (JSON) instead of storing the result")
    ap.add_argument("--join", nargs="+", help="parts to join into the stored result")
    a = ap.parse_args()
    if a.join:
        parts = [p for f in a.join for p in json.loads(Path(f).read_text(encoding="utf-8"))]
    else:
        jobs = [(s, z) for s in a.seeds for z in a.sizes]
        parts = [score(s, z) for s, z in tqdm(jobs, desc="seed × size")]
        if a.part:
            Path(a.part).write_text(json.dumps(parts), encoding="utf-8")
            return
    result = {
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "training": defaults.TRAINING,
        "memory": defaults.MEMORY,
        "seeds": sorted({p["seed"] for p in parts}),
        "sizes": summarise(parts),
    }
    OUT.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    OUT.with_suffix(".md").write_text(render(result), encoding="utf-8")
    print(render(result))


if __name__ == "__main__":
    main()
