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
    """

    measure: str
    ours: Any
    published: Any
    note: str = ""
    holds: bool | None = None


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
