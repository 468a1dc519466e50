"""StudyResult: what every study's run(...) returns, and the table beside the published one."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import polars as pl


@dataclass
class Comparison:
    """One published figure beside ours.

    measure: what is measured ("mean deepest level, Protect").
    ours / published: the two values (numbers or short strings; None when not published).
    note: why they differ, or what the published figure claims that we check (an ordering, a trend).
    holds: for a claim checked rather than a number matched, whether it holds in our run (None if not a claim).
    kind: which part of the table the row belongs to: "figure" (a number beside the published one), "mechanism"
        (holds by construction: listed and tested, never counted as a finding), "claim" (a claim of the
        specification, with its threshold) or "finding" (our own empirical finding).
    key: a short stable identifier of the row (``"protect_far_fewer_deaths"``); sweeps and pass rates use it.
    threshold: for a claim or finding, the test it must pass, in words ("Protect's targeted deaths < 1/2 of none's").
    sentence: for a claim of the specification, the specification's own sentence it tests, quoted (a row of our own
        — Crafter, airline, blind probes — is a "finding", never a "claim", and has no sentence).
    caveats: what a reader must know about this row's number, one sentence each; they travel with the row wherever
        it is rendered (study page, README, REPORT, report.html).
    """

    measure: str
    ours: Any
    published: Any
    note: str = ""
    holds: bool | None = None
    kind: str = "figure"
    key: str = ""
    threshold: str = ""
    sentence: str = ""
    caveats: tuple[str, ...] = ()


PARTS = ("figure", "claim", "finding", "mechanism")  # the order the table shows them in
PART_LABELS = {
    "figure": "figure",
    "claim": "claim (specification)",
    "finding": "finding (ours)",
    "mechanism": "mechanism (by construction)",
}


_TIME = re.compile(r"\((?:s|seconds)\b|\bs\)|\bseconds\b|\btime \(s")
_TIME_UNITS = ((1e-3, "µs", 1e6), (1.0, "ms", 1e3), (120.0, "s", 1.0), (float("inf"), "min", 1 / 60))


def is_time(measure: str) -> bool:
    """Whether a row's values are seconds (its measure says `(s` / `(s, …)` / `seconds`).

    >>> is_time("median retraction (s, incl. fingerprint)"), is_time("full rebuild (s)"), is_time("ρ component")
    (True, True, False)
    """
    return bool(_TIME.search(measure))


def _sig(x: float, digits: int) -> float:
    return float(f"{x:.{digits}g}")


def shown(value: Any, measure: str = "") -> tuple[str, float | None]:
    """A value as the report shows it, by kind, and the number that text stands for (None for text).

    Counts: integers with thousands separators. Times (the measure says seconds): three significant digits in the
    unit that suits them. Other numbers: whole when ≥ 1,000, four significant digits from 1 up, three decimals
    below 1 (scientific under 0.001).

    >>> shown(13987), shown(3505.5), shown(0.0001788, "median retraction (s)"), shown(0.19, "rebuild (s)")
    (('13,987', 13987), ('3,506', 3506.0), ('179 µs', 0.000179), ('190 ms', 0.19))
    >>> shown(0.6057), shown(5.8125), shown(True), shown(None), shown("1,000 of 1,000")
    (('0.606', 0.606), ('5.812', 5.812), ('True', None), ('—', None), ('1,000 of 1,000', None))
    """
    if value is None:
        return "—", None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value), None
    if isinstance(value, int):
        return f"{value:,}", value
    if not math.isfinite(value):
        return str(value), None
    if measure and is_time(measure):
        a = abs(value)
        for limit, unit, scale in _TIME_UNITS:
            if a < limit:
                x = _sig(value * scale, 3)
                text = f"{x:,.0f}" if abs(x) >= 1000 else f"{x:g}"
                return f"{text} {unit}", _sig(x / scale, 6)
    a = abs(value)
    if value.is_integer() or a >= 1000:
        x = float(round(value))
        return f"{int(x):,}", x
    if a >= 1:
        x = _sig(value, 4)
        return f"{x:g}", x
    if a >= 0.001 or a == 0:
        x = round(value, 3)
        return f"{x:g}", x
    x = _sig(value, 3)
    return f"{x:.2e}", x


def difference(ours: Any, published: Any, measure: str = "") -> str:
    """Ours − published, computed from the two values as shown (so the three cells agree), in the same style.

    >>> difference(3505.5, 6057), difference(27639, 41626), difference(0.0001788, 0.19, "median retraction (s)")
    ('−2,551', '−13,987', '−190 ms')
    >>> difference(5.81, 6.65), difference("yes", 1), difference(1, 1)
    ('−0.84', '—', '0')
    """
    a, b = shown(ours, measure)[1], shown(published, measure)[1]
    if a is None or b is None:
        return "—"
    d = a - b
    if isinstance(a, int) and isinstance(b, int):
        text = f"{abs(d):,}"
    elif measure and is_time(measure):
        text = shown(abs(d), measure)[0]
    else:
        places = max(_decimals(shown(ours, measure)[0]), _decimals(shown(published, measure)[0]))
        text = f"{abs(d):,.{places}f}"
    if d == 0:
        return "0"
    return ("+" if d > 0 else "−") + text


def _decimals(text: str) -> int:
    number = text.split(" ")[0]
    return len(number.split(".", 1)[1]) if "." in number and "e" not in number else 0


def comparison_table(rows: list[Comparison]) -> pl.DataFrame:
    """Build the table shown beside the published one, grouped by part (figures, claims of the specification, our
    findings, mechanism checks; the study's order kept within a part): part, key, measure, ours, published,
    difference, holds, threshold, note.

    >>> t = comparison_table([
    ...     Comparison("nothing past a gate", True, None, holds=True, kind="mechanism", key="gates"),
    ...     Comparison("exact retractions", 100, 100, "all checked"),
    ... ])
    >>> t.columns
    ['part', 'key', 'measure', 'ours', 'published', 'difference', 'holds', 'threshold', 'note']
    >>> t["part"].to_list()
    ['figure', 'mechanism (by construction)']
    """

    order = {p: i for i, p in enumerate(PARTS)}
    rows = sorted(rows, key=lambda r: order.get(r.kind, len(PARTS)))  # stable: the study's order within a part
    return pl.DataFrame(
        {
            "part": [PART_LABELS.get(r.kind, r.kind) for r in rows],
            "key": [r.key for r in rows],
            "measure": [r.measure for r in rows],
            "ours": [shown(r.ours, r.measure)[0] for r in rows],
            "published": [shown(r.published, r.measure)[0] for r in rows],
            "difference": [difference(r.ours, r.published, r.measure) for r in rows],
            "holds": [("—" if r.holds is None else ("yes" if r.holds else "NO")) for r in rows],
            "threshold": [r.threshold for r in rows],
            "note": [r.note for r in rows],
        },
        schema={
            c: pl.String
            for c in ("part", "key", "measure", "ours", "published", "difference", "holds", "threshold", "note")
        },
    )


def part_summary(rows: list[dict[str, str]] | list[Comparison]) -> str:
    """One line counting the checked rows of each part: what a reader of the report sees first.

    Accepts Comparison rows or the rows of a saved comparison table (dicts with "part" and "holds").

    >>> part_summary([Comparison("a", 1, 2, holds=True, kind="claim", key="a"),
    ...               Comparison("b", 1, 2, holds=False, kind="claim", key="b"),
    ...               Comparison("c", 1, 1, holds=True, kind="mechanism", key="c")])
    'claims of the specification: 1 of 2 hold (failing: b) · mechanism checks: 1 of 1 hold'
    """
    names = {"claim": "claims of the specification", "finding": "our findings", "mechanism": "mechanism checks"}
    out = []
    for part in ("claim", "finding", "mechanism"):
        checked = []
        for r in rows:
            if isinstance(r, Comparison):
                if r.kind == part and r.holds is not None:
                    checked.append((r.key or r.measure, bool(r.holds)))
            elif r.get("part", "").split(" ")[0] == part and r.get("holds") in ("yes", "NO"):
                checked.append((r.get("key") or r.get("measure", ""), r["holds"] == "yes"))
        if checked:
            failing = [k for k, ok in checked if not ok]
            held = len(checked) - len(failing)
            out.append(
                f"{names[part]}: {held} of {len(checked)} hold"
                + (f" (failing: {', '.join(failing)})" if failing else "")
            )
    return " · ".join(out)


@dataclass
class StudyResult:
    """What a study returns.

    name: the study's short name ("retraction", "taubench_action_model", "risk_dungeon", ...).
    params: the parameters it ran with (seed included).
    metrics: flat dict of JSON-serialisable scalars (numbers, strings, bools) — what tests compare.
    tables: named polars tables (the main result table first).
    comparison: our figures beside the published ones.
    figures: named matplotlib figures.
    reference: what the comparison's "published" column holds, named in the table ("published" unless a study
        compares against something else, e.g. "naive reference").
    caveats: what a reader must know beside the tallies, one sentence each (seen vs unseen inputs, forced rows, a
        tuned baseline, what CI does not check). The notebook saves them (`Recorder.save_caveats`) and the report
        prints them beside the study's table. Every comparison row's own caveats are added, named by the row's key:

    >>> StudyResult("x", {}, {}, comparison=[Comparison("a", 1, 2, key="a", caveats=("seed-free",))]).caveats
    ['a: seed-free']
    """

    name: str
    params: dict[str, Any]
    metrics: dict[str, Any]
    tables: dict[str, pl.DataFrame] = field(default_factory=dict)
    comparison: list[Comparison] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    reference: str = "published"
    caveats: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # A row's caveats travel with it: they join the study's caveats (named by the row's key), which the notebook
        # saves and the report prints in both formats, so no rendering of the study can show the row without them.
        for c in self.comparison:
            for text in c.caveats:
                line = f"{c.key or c.measure}: {text}"
                if line not in self.caveats:
                    self.caveats.append(line)

    def comparison_frame(self) -> pl.DataFrame:
        """The comparison table, its reference column named after `reference`.

        >>> StudyResult("x", {}, {}, reference="naive reference").comparison_frame().columns[4]
        'naive reference'
        """
        frame = comparison_table(self.comparison)
        return frame if self.reference == "published" else frame.rename({"published": self.reference})

    def declarations(self, skip: tuple[str, ...] | set[str] = ()) -> dict[str, dict[str, Any]]:
        """What each checked row declares, by key: its part ("kind"), threshold, the specification's sentence and its
        caveats — the record (`data/expected/claims/<study>.json`, "rows") the docs' pass-rate blocks render.

        >>> StudyResult("x", {}, {}, comparison=[Comparison("a", 1, 2, holds=True, kind="claim", key="a",
        ...     threshold="t", sentence="s")]).declarations()
        {'a': {'kind': 'claim', 'threshold': 't', 'sentence': 's', 'caveats': []}}
        """
        return {
            (c.key or c.measure): {
                "kind": c.kind,
                "threshold": c.threshold,
                "sentence": c.sentence,
                "caveats": list(c.caveats),
            }
            for c in self.comparison
            if c.holds is not None and (c.key or c.measure) not in skip
        }

    def claims(self) -> dict[str, bool]:
        """Every checked row (``holds`` not None) by its key (its measure when it has no key): what sweeps count.

        >>> r = StudyResult("x", {}, {}, comparison=[Comparison("a < b", 1, 2, holds=True, kind="claim", key="a_lt_b")])
        >>> r.claims()
        {'a_lt_b': True}
        """
        return {(c.key or c.measure): bool(c.holds) for c in self.comparison if c.holds is not None}
