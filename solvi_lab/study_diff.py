"""`solvi-lab diff A B`: two runs side by side, per study and metric — for a reviewer, and for CI's exit status.

A and B are both results folders (`solvi-lab run/reproduce --out`: `<dir>/<study>/metrics.json` and
`comparison.csv`) or both sweeps (`solvi-lab sweep --out`: `<dir>/<study>/summary.parquet`, or one study's sweep
folder itself). For results: each metric's a, b and b − a, and each checked row of the comparison table (claims,
findings, mechanism checks) in A and in B. For sweeps: each metric's, figure's and claim pass rate's mean and
95% interval in A and in B, the difference of the means, and whether the intervals overlap.

A *regression* is called out, and makes the exit status 1: a row that held in A and fails in B (results); for
sweeps, a claim that held in every seed of A and in none of B, or whose pass rate fell with non-overlapping
intervals (a drop beyond seed noise).

>>> fmt(0.123456789), fmt(True), fmt(None), fmt([1, 2])
('0.1235', 'yes', '—', '[1, 2]')
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .errors import BadInput


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def fmt(v: Any) -> str:
    """A value for a table cell."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (list, dict)):
        return json.dumps(v, sort_keys=True)
    return str(v)


@dataclass
class Row:
    """One quantity of one study in A and in B (for sweeps: means, with 95% intervals)."""

    name: str
    a: Any
    b: Any
    difference: float | None = None
    kind: str = "metric"  # metric, figure, claim (sweeps); metric, claim, finding, mechanism (results)
    params: str = ""
    a_interval: tuple[float, float] | None = None
    b_interval: tuple[float, float] | None = None
    overlap: bool | None = None
    regressed: bool = False

    @property
    def changed(self) -> bool:
        return self.a != self.b


@dataclass
class StudyDiff:
    study: str
    rows: list[Row] = field(default_factory=list)
    note: str = ""


@dataclass
class Diff:
    kind: str  # "results" or "sweeps"
    a: str
    b: str
    studies: list[StudyDiff] = field(default_factory=list)
    only_in_a: list[str] = field(default_factory=list)
    only_in_b: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[str]:
        """`study: row` for every regression (a claim held in A and fails in B)."""
        return [f"{s.study}: {r.name}" for s in self.studies for r in s.rows if r.regressed]

    def to_json(self) -> str:
        data = asdict(self)
        data["regressions"] = self.regressions
        return json.dumps(data, indent=2, default=str) + "\n"


def kind_of(folder: Path) -> str:
    """ "sweeps" when the folder (or a study folder in it) holds summary.parquet, "results" when a study folder
    holds metrics.json or run.json; BadInput otherwise."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BadInput(f"{folder} is not a folder; give two results folders or two sweep folders.")
    if (folder / "summary.parquet").exists() or any(folder.glob("*/summary.parquet")):
        return "sweeps"
    if any(folder.glob("*/metrics.json")) or any(folder.glob("*/run.json")):
        return "results"
    raise BadInput(
        f"{folder} holds neither study results (<study>/metrics.json: `solvi-lab run/reproduce --out`) nor "
        "sweeps (<study>/summary.parquet: `solvi-lab sweep --out`)."
    )


def _claims(folder: Path) -> dict[str, tuple[str, bool]]:
    """key → (part, holds) of every checked row of a study's comparison.csv."""
    path = folder / "comparison.csv"
    if not path.exists():
        return {}
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {
        (r.get("key") or r.get("measure", "")): (r.get("part", "").split(" ")[0], r["holds"] == "yes")
        for r in rows
        if r.get("holds") in ("yes", "NO")
    }


def _metrics(folder: Path) -> dict[str, Any]:
    path = folder / "metrics.json"
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except json.JSONDecodeError as e:
        raise BadInput(f"{path} is not valid JSON ({e}); rerun that study.") from None


def diff_results(a: Path, b: Path) -> Diff:
    """Two results folders, study by study: metrics (a, b, b − a) and the checked rows of the comparison tables."""
    names_a = {p.parent.name for p in a.glob("*/metrics.json")}
    names_b = {p.parent.name for p in b.glob("*/metrics.json")}
    out = Diff("results", str(a), str(b), only_in_a=sorted(names_a - names_b), only_in_b=sorted(names_b - names_a))
    for study in _ordered(names_a & names_b):
        ma, mb = _metrics(a / study), _metrics(b / study)
        sd = StudyDiff(study)
        for name in [*ma, *(k for k in mb if k not in ma)]:
            va, vb = ma.get(name), mb.get(name)
            d = vb - va if _number(va) and _number(vb) else None
            sd.rows.append(Row(name, va, vb, d))
        ca, cb = _claims(a / study), _claims(b / study)
        for key in [*ca, *(k for k in cb if k not in ca)]:
            part = (ca.get(key) or cb[key])[0]
            ha = ca[key][1] if key in ca else None
            hb = cb[key][1] if key in cb else None
            sd.rows.append(Row(key, ha, hb, kind=part or "claim", regressed=ha is True and hb is False))
        out.studies.append(sd)
    return out


def _sweep_folders(folder: Path) -> dict[str, Path]:
    if (folder / "summary.parquet").exists():
        import polars as pl

        frame = pl.read_parquet(folder / "sweep.parquet") if (folder / "sweep.parquet").exists() else None
        name = str(frame["study"][0]) if frame is not None and frame.height else folder.name
        return {name: folder}
    return {p.parent.name: p.parent for p in folder.glob("*/summary.parquet")}


def diff_sweeps(a: Path, b: Path) -> Diff:
    """Two sweeps, study by study: means and 95% intervals of every metric, figure and claim pass rate."""
    import polars as pl

    fa, fb = _sweep_folders(a), _sweep_folders(b)
    out = Diff("sweeps", str(a), str(b), only_in_a=sorted(set(fa) - set(fb)), only_in_b=sorted(set(fb) - set(fa)))
    for study in _ordered(set(fa) & set(fb)):
        sa, sb = pl.read_parquet(fa[study] / "summary.parquet"), pl.read_parquet(fb[study] / "summary.parquet")
        pa, pb = sa["params"].unique(maintain_order=True).to_list(), sb["params"].unique(maintain_order=True).to_list()
        sd = StudyDiff(study)
        pairs = [(p, p) for p in pa if p in pb]
        if not pairs and len(pa) == len(pb) == 1:  # one combination each, at different parameters: compare them
            pairs = [(pa[0], pb[0])]
            sd.note = f"parameters differ: A {pa[0]}, B {pb[0]}"
        for params_a, params_b in pairs:
            ra = {(r["kind"], r["name"]): r for r in sa.filter(pl.col("params") == params_a).iter_rows(named=True)}
            rb = {(r["kind"], r["name"]): r for r in sb.filter(pl.col("params") == params_b).iter_rows(named=True)}
            for key in [*ra, *(k for k in rb if k not in ra)]:
                x, y = ra.get(key), rb.get(key)
                row = Row(key[1], x and x["mean"], y and y["mean"], kind=key[0], params=params_a)
                if x and y:
                    row.difference = y["mean"] - x["mean"]
                    row.a_interval, row.b_interval = (x["lo"], x["hi"]), (y["lo"], y["hi"])
                    row.overlap = bool(x["lo"] <= y["hi"] and y["lo"] <= x["hi"])
                    # held in every seed of A and in none of B, or a drop beyond seed noise
                    row.regressed = key[0] == "claim" and (
                        (x["mean"] == 1.0 and y["mean"] == 0.0) or (y["mean"] < x["mean"] and not row.overlap)
                    )
                sd.rows.append(row)
        out.studies.append(sd)
    return out


def _ordered(names: set[str]) -> list[str]:
    from .studies import registry

    order = {n: i for i, n in enumerate(registry.STUDIES)}
    return sorted(names, key=lambda n: (order.get(n, len(order)), n))


def diff(a: Path | str, b: Path | str) -> Diff:
    """Compare two results folders or two sweeps (BadInput when they are not the same kind)."""
    a, b = Path(a), Path(b)
    ka, kb = kind_of(a), kind_of(b)
    if ka != kb:
        raise BadInput(f"{a} holds {ka} and {b} holds {kb}; compare two results folders or two sweeps.")
    return diff_results(a, b) if ka == "results" else diff_sweeps(a, b)


def _interval(iv: tuple[float, float] | None) -> str:
    return "—" if iv is None else f"[{fmt(iv[0])}, {fmt(iv[1])}]"


def markdown(d: Diff, *, changed_only: bool = False) -> str:
    """The diff as Markdown: the regressions first, then one section per study."""
    lines = [f"## solvi-lab diff ({d.kind}): A = {d.a}, B = {d.b}", ""]
    if d.regressions:
        what = (
            "held in A and fail(s) in B"
            if d.kind == "results"
            else "held in every seed of A and in none of B, or pass(es) less often beyond seed noise"
        )
        lines += [f"**{len(d.regressions)} checked row(s) {what}:** " + ", ".join(d.regressions), ""]
    else:
        lines += ["No checked row that held in A fails in B.", ""]
    for label, names in (("only in A", d.only_in_a), ("only in B", d.only_in_b)):
        if names:
            lines += [f"Studies {label}: {', '.join(names)}.", ""]
    for sd in d.studies:
        rows = [r for r in sd.rows if r.changed or r.regressed] if changed_only else sd.rows
        lines += [f"### {sd.study}", ""]
        if sd.note:
            lines += [sd.note, ""]
        if not rows:
            lines += ["No differences.", ""]
            continue
        if d.kind == "results":
            lines += ["| kind | name | A | B | B − A |", "|---|---|---|---|---|"]
            for r in rows:
                name = f"**{r.name} — held in A, fails in B**" if r.regressed else r.name
                lines.append(f"| {r.kind} | {name} | {fmt(r.a)} | {fmt(r.b)} | {fmt(r.difference)} |")
        else:
            lines += [
                "| kind | name | A mean | A 95% | B mean | B 95% | B − A | intervals overlap |",
                "|---|---|---|---|---|---|---|---|",
            ]
            for r in rows:
                name = f"**{r.name} — regressed in B**" if r.regressed else r.name
                lines.append(
                    f"| {r.kind} | {name} | {fmt(r.a)} | {_interval(r.a_interval)} | {fmt(r.b)} | "
                    f"{_interval(r.b_interval)} | {fmt(r.difference)} | {fmt(r.overlap)} |"
                )
        lines.append("")
    return "\n".join(lines)
