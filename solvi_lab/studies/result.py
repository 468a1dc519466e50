"""StudyResult: what every study's run(...) returns, and the table beside the published one."""

from __future__ import annotations

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
    """

    measure: str
    ours: Any
    published: Any
    note: str = ""
    holds: bool | None = None
    kind: str = "figure"
    key: str = ""
    threshold: str = ""


def comparison_table(rows: list[Comparison]) -> pl.DataFrame:
    """Build the table shown beside the published one: measure, ours, published, difference, holds, note.

    >>> t = comparison_table([Comparison("exact retractions", 100, 100, "all checked")])
    >>> t.columns
    ['measure', 'ours', 'published', 'difference', 'holds', 'note']
    """

    def fmt(v: Any) -> str:
        if v is None:
            return "—"
        if isinstance(v, bool):
            return str(v)
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)

    def diff(a: Any, b: Any) -> str:
        if (
            isinstance(a, (int, float))
            and isinstance(b, (int, float))
            and not isinstance(a, bool)
            and not isinstance(b, bool)
        ):
            return f"{a - b:+.4g}"
        return "—"

    return pl.DataFrame(
        {
            "measure": [r.measure for r in rows],
            "ours": [fmt(r.ours) for r in rows],
            "published": [fmt(r.published) for r in rows],
            "difference": [diff(r.ours, r.published) for r in rows],
            "holds": [("—" if r.holds is None else ("yes" if r.holds else "NO")) for r in rows],
            "note": [r.note for r in rows],
        }
    )


@dataclass
class StudyResult:
    """What a study returns.

    name: the study's short name ("retraction", "taubench_action_model", "risk_dungeon", ...).
    params: the parameters it ran with (seed included).
    metrics: flat dict of JSON-serialisable scalars (numbers, strings, bools) — what tests compare.
    tables: named polars tables (the main result table first).
    comparison: our figures beside the published ones.
    figures: named matplotlib figures.
    """

    name: str
    params: dict[str, Any]
    metrics: dict[str, Any]
    tables: dict[str, pl.DataFrame] = field(default_factory=dict)
    comparison: list[Comparison] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    def comparison_frame(self) -> pl.DataFrame:
        return comparison_table(self.comparison)

    def claims(self) -> dict[str, bool]:
        """Every checked row (``holds`` not None) by its key (its measure when it has no key): what sweeps count.

        >>> r = StudyResult("x", {}, {}, comparison=[Comparison("a < b", 1, 2, holds=True, kind="claim", key="a_lt_b")])
        >>> r.claims()
        {'a_lt_b': True}
        """
        return {(c.key or c.measure): bool(c.holds) for c in self.comparison if c.holds is not None}
