"""A sweep's summary: per parameter combination, each metric's mean, sd and 95% bootstrap interval; each claim's
pass rate with a Wilson interval; each published figure beside our interval (inside or not); a PNG per swept
parameter (metric against value, interval bars).

>>> wilson_interval(18, 20)
(0.699, 0.972)
>>> lo, hi = bootstrap_interval([1.0, 2.0, 3.0, 4.0]); 1.0 <= lo <= 2.5 <= hi <= 4.0
True
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

BOOTSTRAP_RESAMPLES = 2_000
Z95 = 1.959963984540054


def bootstrap_interval(values: Any, *, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean (numpy, seeded: the same values give the same interval)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return (math.nan, math.nan)
    if x.size == 1:
        return (float(x[0]), float(x[0]))
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(BOOTSTRAP_RESAMPLES, x.size))].mean(axis=1)
    tail = (1 - level) / 2
    lo, hi = np.quantile(means, [tail, 1 - tail])
    return (float(lo), float(hi))


def wilson_interval(passes: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a pass rate (rounded to 3 decimals); (nan, nan) when n is 0."""
    if n == 0:
        return (math.nan, math.nan)
    p = passes / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return (round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3))


def swept_names(frame: pl.DataFrame) -> list[str]:
    """The parameters that take more than one value in the sweep."""
    return [c[2:] for c in frame.columns if c.startswith("p.") and frame[c].n_unique() > 1]


def summarize(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per (parameter combination, quantity): kind ("metric" | "claim" | "figure"), name, n, mean, sd,
    lo, hi (95%: bootstrap for metrics and figures, Wilson for claims), published, inside (published in [lo, hi]),
    part (for a checked row: "claim" of the specification, "finding" or "mechanism"; None for an old sweep)."""
    rows: list[dict[str, Any]] = []
    if frame.is_empty():
        return pl.DataFrame()
    ok = frame.filter(pl.col("error").is_null())
    for (params,), group in ok.group_by(["params"], maintain_order=True):
        published: dict[str, float] = {}
        for text in group["published"].drop_nulls().to_list() if "published" in group.columns else []:
            published.update(json.loads(text))
        parts: dict[str, str] = {}
        for text in group["parts"].drop_nulls().to_list() if "parts" in group.columns else []:
            parts.update(json.loads(text))
        for col in group.columns:
            kind = {"m.": "metric", "c.": "claim", "f.": "figure"}.get(col[:2])
            values = group[col].drop_nulls()
            if kind is None or values.is_empty() or values.dtype == pl.String or col == "m.seed":
                continue  # a study that records its seed as a metric: the seed is what is swept, not a result
            name = col[2:]
            x = values.cast(pl.Float64).to_numpy()
            row: dict[str, Any] = {"params": params, "kind": kind, "name": name, "n": int(x.size)}
            row["mean"] = float(x.mean())
            row["sd"] = float(x.std(ddof=1)) if x.size > 1 else 0.0
            if kind == "claim":
                row["lo"], row["hi"] = wilson_interval(int(x.sum()), int(x.size))
            else:
                row["lo"], row["hi"] = bootstrap_interval(x)
            pub = published.get(name) if kind == "figure" else None
            row["published"] = pub
            row["inside"] = None if pub is None else bool(row["lo"] <= pub <= row["hi"])
            row["part"] = parts.get(name) if kind == "claim" else None
            rows.append(row)
    return pl.DataFrame(rows, schema_overrides={"published": pl.Float64, "inside": pl.Boolean, "part": pl.String})


def _fmt(v: Any, name: str = "") -> str:
    """A summary value by kind (solvi_lab.studies.result.shown): counts with separators, times in their unit."""
    from ..studies.result import shown

    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if isinstance(v, float):
        return shown(v, name)[0]
    return str(v)


def distinct_errors(frame: pl.DataFrame) -> list[tuple[str, list[int]]]:
    """Each distinct error of the sweep's points, with the seeds that raised it, most frequent first.

    >>> distinct_errors(pl.DataFrame({"seed": [0, 1, 2, 3], "error": ["E: a", None, "E: b", "E: a"]}))
    [('E: a', [0, 3]), ('E: b', [2])]
    """
    if frame.is_empty() or "error" not in frame.columns:
        return []
    seeds: dict[str, list[int]] = {}
    for row in frame.filter(pl.col("error").is_not_null()).sort("seed").iter_rows(named=True):
        seeds.setdefault(row["error"], []).append(int(row["seed"]))
    return sorted(seeds.items(), key=lambda kv: (-len(kv[1]), kv[1][0]))


def _study_provenance(frame: pl.DataFrame) -> str:
    """A plug-in study's own package version and commit, as recorded in its rows ("" for a built-in study)."""
    if "study_version" not in frame.columns:
        return ""
    versions = sorted({str(v) for v in frame["study_version"].drop_nulls().to_list()})
    commits = (
        sorted({str(c) for c in frame["study_commit"].drop_nulls().to_list()})
        if "study_commit" in frame.columns
        else []
    )
    if not versions and not commits:
        return ""
    package = frame["study_package"].drop_nulls()[0] if "study_package" in frame.columns else frame["study"][0]
    shown_commits = ", ".join(f"`{c}`" for c in commits) if commits else "`unknown`"
    return f"; the study: package {package} {', '.join(versions) or '?'}, commit {shown_commits}"


def provenance(frame: pl.DataFrame) -> str:
    """What the sweep ran on: the commit(s) recorded in its rows and when its points finished (UTC).

    >>> provenance(pl.DataFrame({"commit": ["abc", "abc"], "finished": ["2026-01-02T03:04:05+00:00"] * 2}))
    'Ran on commit `abc`, finished 2026-01-02T03:04:05+00:00.'
    >>> provenance(pl.DataFrame({"finished": ["2026-01-02T03:04:05+00:00"]}))
    'Ran on commit: not recorded (a sweep older than the commit column), finished 2026-01-02T03:04:05+00:00.'
    """
    commits = sorted(set(frame["commit"].drop_nulls().to_list())) if "commit" in frame.columns else []
    where = (
        "commit " + ", ".join(f"`{c}`" for c in commits)
        if commits
        else "commit: not recorded (a sweep older than the commit column)"
    )
    study = _study_provenance(frame)
    if study:  # a plug-in study: solvi_lab's version and commit, then the study package's own
        versions = (
            sorted({str(v) for v in frame["version"].drop_nulls().to_list()}) if "version" in frame.columns else []
        )
        where = f"solvi_lab {', '.join(versions) or '?'} at {where}{study}"
    done = sorted(frame["finished"].drop_nulls().to_list()) if "finished" in frame.columns else []
    when = "" if not done else f", finished {done[0]}" + (f" – {done[-1]}" if done[-1] != done[0] else "")
    return f"Ran on {where}{when}."


def markdown(frame: pl.DataFrame, summary: pl.DataFrame, *, study: str) -> str:
    """The summary as Markdown: points and errors, then per parameter combination claims, figures and metrics."""
    if frame.is_empty():
        return f"### Sweep of {study}\n\nNo points yet.\n"
    errors = frame.filter(pl.col("error").is_not_null())
    seeds = frame["seed"].n_unique()
    lines = [
        f"### Sweep of {study}: {frame.height} points ({seeds} seeds), {errors.height} raised",
        "",
        f"Size: {'quick' if frame['quick'].all() else 'full' if not frame['quick'].any() else 'mixed'}. "
        "Intervals are 95%: bootstrap of the mean (metrics, figures), Wilson (claims' pass rates).",
        "",
    ]
    quick = bool(frame["quick"].any())
    if quick:
        lines += [
            "The published figures are for the full size: at the quick size *inside* is not judged (unlike sizes).",
            "",
        ]
    lines += [provenance(frame), ""]
    if summary.is_empty():
        lines += ["No point finished without an error: nothing to summarise (the errors are below).", ""]
    for (params,), part in summary.group_by(["params"], maintain_order=True) if not summary.is_empty() else []:
        lines += [f"Parameters: `{params}`", ""]
        for kind, header in (
            ("claim", "| checked row | part | passes | rate | 95% interval |\n|---|---|---|---|---|"),
            ("figure", "| figure | mean | sd | 95% interval | published | inside |\n|---|---|---|---|---|---|"),
            ("metric", "| metric | mean | sd | 95% interval |\n|---|---|---|---|"),
        ):
            rows = part.filter(pl.col("kind") == kind)
            if rows.is_empty():
                continue
            lines.append(header)
            for r in rows.iter_rows(named=True):
                n = r["name"]
                interval = f"[{_fmt(r['lo'], n)}, {_fmt(r['hi'], n)}]"
                if kind == "claim":
                    lines.append(
                        f"| {r['name']} | {_fmt(r.get('part'))} | {round(r['mean'] * r['n'])}/{r['n']} "
                        f"| {_fmt(r['mean'])} | {interval} |"
                    )
                elif kind == "figure":
                    # the published figures are full-size ones: beside a quick-size interval, inside means nothing
                    inside = "n/a (quick size)" if quick and r["published"] is not None else _fmt(r["inside"])
                    lines.append(
                        f"| {n} | {_fmt(r['mean'], n)} | {_fmt(r['sd'], n)} | {interval} | "
                        f"{_fmt(r['published'], n)} | {inside} |"
                    )
                else:
                    unit = n + " (s)" if n.endswith("_s") else n  # metrics name seconds with a _s suffix
                    lines.append(f"| {n} | {_fmt(r['mean'], unit)} | {_fmt(r['sd'], unit)} | {interval} |")
            lines.append("")
    if errors.height:
        lines += ["| point | seed | error |", "|---|---|---|"]
        lines += [f"| {r['point']} | {r['seed']} | {r['error']} |" for r in errors.head(20).iter_rows(named=True)]
        lines.append("")
    return "\n".join(lines)


def figures(frame: pl.DataFrame, out: Path, *, max_panels: int = 6) -> list[Path]:
    """One PNG per swept parameter: the first figures (else metrics) against the parameter's value, 95% bars."""
    from matplotlib.figure import Figure

    written: list[Path] = []
    ok = frame.filter(pl.col("error").is_null()) if not frame.is_empty() else frame
    for name in swept_names(ok) if not ok.is_empty() else []:
        quantities = [c for c in ok.columns if c.startswith("f.")] or [
            c for c in ok.columns if c.startswith("m.") and ok[c].dtype.is_numeric()
        ]
        quantities = quantities[:max_panels]
        if not quantities:
            continue
        fig = Figure(figsize=(4 * min(3, len(quantities)), 3.2 * math.ceil(len(quantities) / 3)))
        for i, col in enumerate(quantities):
            ax = fig.add_subplot(math.ceil(len(quantities) / 3), min(3, len(quantities)), i + 1)
            xs, means, los, his = [], [], [], []
            for value, part in sorted(ok.group_by(f"p.{name}"), key=lambda kv: kv[0][0]):
                x = part[col].drop_nulls().cast(pl.Float64).to_numpy()
                if x.size == 0:
                    continue
                lo, hi = bootstrap_interval(x)
                xs.append(value[0])
                means.append(float(x.mean()))
                los.append(float(x.mean()) - lo)
                his.append(hi - float(x.mean()))
            ax.errorbar(xs, means, yerr=[los, his], marker="o", capsize=3)
            ax.set_xlabel(name)
            ax.set_title(col[2:], fontsize=9)
        fig.suptitle(f"mean over seeds, 95% bootstrap interval, against {name}", fontsize=10)
        fig.tight_layout()
        path = Path(out) / f"sweep_{name}.png"
        fig.savefig(path, dpi=90)
        written.append(path)
    return written


def sweep_summary(results: Path | str, study: str) -> str | None:
    """The SUMMARY.md of `<results>/sweeps/<study>/` (what `reproduce --seeds K` writes), or None if there is none."""
    path = Path(results) / "sweeps" / study / "SUMMARY.md"
    return path.read_text(encoding="utf-8") if path.exists() else None
