"""The Crafter score by its own protocol: 10,000-step episodes (or until death) on held-out worlds, pooled.

    nice -n 19 python benchmarks/crafter_score.py --arms random,planner,agenda --worlds 48
    nice -n 19 python benchmarks/crafter_score.py --arms survivor --worlds 48
    python benchmarks/crafter_score.py --render            # the table and the chart from what is stored

Worlds: seeds ``1000·seed + 500 + i`` (:func:`solvi_lab.studies.crafter.protocol.score_seeds`), used by nothing
else. Each arm's episodes go to ``<out>/<arm>.jsonl`` as they finish (one line each; an arm's file is rewritten
when it is run again), so arms can run in separate processes. ``--render`` writes ``<out>.md`` (the table, the
per-achievement rates, the published scoreboard) and ``<out>.png`` (the chart) from the stored episodes; the
notebook renders the same files.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solvi_lab.studies.crafter import protocol, scoreboard  # noqa: E402
from solvi_lab.studies.crafter.env import CrafterWorld  # noqa: E402

OUT = ROOT / "results" / "benchmarks" / "crafter_score"


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"


def play(arms: list[str], worlds: int, steps: int, seed: int, out: Path, first: int = 0) -> None:
    out.mkdir(parents=True, exist_ok=True)
    seeds = protocol.score_seeds(seed, first + worlds)[first:]
    t0 = time.perf_counter()
    generated = [CrafterWorld(s, length=steps) for s in seeds]
    print(f"{len(seeds)} worlds generated in {time.perf_counter() - t0:.0f} s", flush=True)
    commit, stamp = _commit(), datetime.now(UTC).isoformat(timespec="seconds")
    for arm in arms:
        path = out / (f"{arm}.jsonl" if first == 0 else f"{arm}@{first}.jsonl")  # a split run: its own file
        path.write_text("")
        t0 = time.perf_counter()

        def store(row: dict, path: Path = path) -> None:
            row = {**row, "limit": steps, "commit": commit, "started": stamp}
            with path.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(
                f"{row['arm']} world {row['world']}: {row['steps']} steps, died {row['died']} ({row['cause']}), "
                f"{row['achievements']} achievements",
                flush=True,
            )

        protocol.play_arms(generated, steps, seed, arms=(arm,), on_episode=store)
        print(f"{arm}: {time.perf_counter() - t0:.0f} s", flush=True)


def render(out: Path, seed: int) -> None:
    episodes = scoreboard.load(out)
    summary = scoreboard.table(episodes, seed)
    rates = scoreboard.rates(episodes)
    # every stored arm in the stored order but the ablations (their rates are in the table): no list to keep up
    arms = [a for a in episodes["arm"].unique(maintain_order=True).to_list() if not a.startswith("survivor-no_")]
    fig = scoreboard.chart(episodes, arms or None)
    fig.savefig(out.with_suffix(".png"), dpi=110)
    commits = sorted(set(episodes["commit"].to_list()))
    lines = [
        "# The Crafter score by its own protocol",
        "",
        f"Rendered by `python benchmarks/crafter_score.py --render` from `{out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}/*.jsonl` "
        f"(episodes played on commit(s) {', '.join(commits)}; machine {platform.machine()}, Python "
        f"{platform.python_version()}). Success rates pooled over every episode of an arm, the geometric mean with "
        "the 1% offset; 95% interval: bootstrap over worlds. `mean_of_8_episode_scores` is the study's old figure "
        "(a second figure, not the score).",
        "",
        _md(summary.drop("input")),
        "",
        f"Input of our arms: {scoreboard.INPUT_OURS}.",
        "",
        "## Success rate of each achievement (%)",
        "",
        _md(rates),
        "",
        "## The published scoreboard",
        "",
        _md(scoreboard.published_table()),
        "",
        f"![per-achievement success rates]({out.with_suffix('.png').name})",
        "",
    ]
    out.with_suffix(".md").write_text("\n".join(lines))
    print(out.with_suffix(".md"))


def _md(frame) -> str:
    def cell(v) -> str:
        if v is None:
            return "—"
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 1 else f"{v:.1f}"
        return str(v)

    head = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = ["| " + " | ".join(cell(v) for v in r) + " |" for r in frame.iter_rows()]
    return "\n".join([head, rule, *rows])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--arms", default="random,planner,agenda,survivor")
    p.add_argument("--worlds", type=int, default=48)
    p.add_argument("--first", type=int, default=0, help="index of the first world (to split a run)")
    p.add_argument("--steps", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--render", action="store_true")
    a = p.parse_args()
    if a.render:
        render(a.out.resolve(), a.seed)
    else:
        play(a.arms.split(","), a.worlds, a.steps, a.seed, a.out.resolve(), a.first)


if __name__ == "__main__":
    main()
