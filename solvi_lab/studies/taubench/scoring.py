"""Scores of an action model on a probe set, per family, with false accepts as a figure of their own (issue 33).

A *false accept* is a call the environment refused that the model predicted "accept": the one error the
protection promises never to make. Its rate is over the refused calls (false accepts / refused); precision and
recall are over answered calls, as everywhere in the τ-bench studies.

>>> score([(False, "refuse"), (False, "accept"), (True, "unknown"), (True, "accept")])["false_accept_rate"]
0.5
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import polars as pl

from ...actions import ConservativeActionModel
from ..result import Comparison
from .probing import Transition

__all__ = [
    "score",
    "verdicts",
    "family_table",
    "unseen_both_ways",
    "probe_set_rows",
    "unseen_rows",
    "abstention_cause",
    "abstention_causes",
    "UNSEEN_WAYS",
]

UNSEEN_WAYS = ("refuse", "unknown")
_FLOATS = ("precision", "recall", "abstention_pct", "false_accept_rate")


def score(rows: Iterable[tuple[bool, str]]) -> dict[str, Any]:
    """Precision, recall (answered), abstention, false accepts (count, rate over refused), false refusals."""
    rows = list(rows)
    n = len(rows)
    tp = sum(1 for a, v in rows if v == "refuse" and not a)
    fp = sum(1 for a, v in rows if v == "refuse" and a)
    fn = sum(1 for a, v in rows if v == "accept" and not a)
    refused = sum(1 for a, _ in rows if not a)
    unknown = sum(1 for _, v in rows if v == "unknown")
    return {
        "probes": n,
        "refused": refused,
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / (tp + fn) if tp + fn else None,
        "abstentions": unknown,
        "abstention_pct": round(100.0 * unknown / n, 4) if n else None,
        "false_accepts": fn,
        "false_accept_rate": round(fn / refused, 6) if refused else None,
        "false_refusals": fp,
    }


def verdicts(model: ConservativeActionModel, transitions: Sequence[Transition]) -> list[tuple[bool, str]]:
    """(accepted, verdict) of every transition, under the model's current ``unseen`` setting."""
    return [(t.accepted, model.predict(t.state, t.tool, t.args).verdict) for t in transitions]


def family_table(
    rows: Sequence[tuple[bool, str]], transitions: Sequence[Transition], family: Callable[[str], str]
) -> pl.DataFrame:
    """One row for all probes, then one per family (sorted), each with :func:`score`'s columns.

    >>> t = [Transition(0, 0, {}, "a", {}, False, None, "gold"), Transition(0, 0, {}, "a", {}, True, None, "x y")]
    >>> family_table([(False, "accept"), (True, "accept")], t, lambda o: o.split()[0])["family"].to_list()
    ['all', 'gold', 'x']
    """
    groups: dict[str, list[tuple[bool, str]]] = {}
    for row, t in zip(rows, transitions):
        groups.setdefault(family(t.origin), []).append(row)
    out = [{"family": "all", **score(rows)}] + [{"family": f, **score(groups[f])} for f in sorted(groups)]
    return pl.DataFrame(out, schema_overrides={k: pl.Float64 for k in _FLOATS})


def abstention_cause(detail: dict[str, Any]) -> str:
    """Why a prediction is "unknown", from its ``detail``, in words that name no tool: the schema condition that was
    never seen (an undeclared or missing argument, a JSON type), else the template of the first violated condition
    (the name after its last ``:``), else the exact-vector memory or an unseen value behind a signature.

    >>> abstention_cause({"violated": ["cancel:undeclared_args", "reason:enum"]})
    'undeclared or missing argument'
    >>> abstention_cause({"violated": ["zip:jtype"]}), abstention_cause({"violated": ["a~b:cited&c:exists"]})
    ('JSON type', 'cited')
    >>> abstention_cause({"violated": [], "exact_memory": True})
    'vector never seen exactly'
    """
    violated = list(detail.get("violated") or [])
    if detail.get("unseen_values"):
        return "signature on a value never observed"
    if any(v.endswith((":undeclared_args", ":missing_args")) for v in violated):
        return "undeclared or missing argument"
    if any(v.endswith(":jtype") for v in violated):
        return "JSON type"
    if violated:
        return violated[0].split("&")[0].rsplit(":", 1)[-1].split("(")[0]
    return "vector never seen exactly" if detail.get("exact_memory") else "other"


def abstention_causes(model: ConservativeActionModel, transitions: Sequence[Transition]) -> dict[str, int]:
    """How many "unknown" answers each :func:`abstention_cause` gave, most frequent first (ties by name)."""
    counts: dict[str, int] = {}
    for t in transitions:
        p = model.predict(t.state, t.tool, t.args)
        if p.verdict == "unknown":
            cause = abstention_cause(p.detail)
            counts[cause] = counts.get(cause, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def unseen_both_ways(model: ConservativeActionModel, transitions: Sequence[Transition]) -> dict[str, dict[str, Any]]:
    """:func:`score` with ``unseen="refuse"`` and ``"unknown"`` on the same trained model (a prediction-time
    option: nothing is retrained); the model's own setting is restored."""
    keep = model.unseen
    out = {}
    try:
        for way in UNSEEN_WAYS:
            model.unseen = way
            out[way] = score(verdicts(model, transitions))
    finally:
        model.unseen = keep
    return out


def _f(v: float | None) -> str:
    return "—" if v is None else f"{v:.4f}"


def probe_set_rows(
    name: str, key: str, s: dict[str, Any], *, kind: str, note: str = "", caveats: tuple[str, ...] = ()
) -> list[Comparison]:
    """The rows of one probe set: precision / recall / abstention (a figure) and false accepts as a claim of their
    own ("a refused call is never predicted 'accept'", ``kind`` "claim" where the specification makes it about this
    set, "finding" where we do, "figure" where another checked row already counts the same quantity).

    >>> [r.key for r in probe_set_rows("blind", "blind", score([(False, "accept")]), kind="finding")]
    ['blind_scores', 'blind_no_false_accept']
    """
    rate = s["false_accept_rate"]
    return [
        Comparison(
            f"{name}: precision / recall (answered) / abstention %",
            f"{_f(s['precision'])} / {_f(s['recall'])} / {s['abstention_pct'] or 0:.2f}%",
            None,
            f"{s['probes']:,} probes, {s['refused']:,} refused, {s['false_refusals']} false refusals, "
            f"{s['abstentions']:,} abstentions" + (f"; {note}" if note else ""),
            key=f"{key}_scores",
        ),
        Comparison(
            f"{name}: refused calls predicted 'accept' (false accepts, count and rate of refused)",
            f"{s['false_accepts']} ({100 * (rate or 0):.2f}%)",
            None,
            "the protection's promise: a refused call is never predicted 'accept'",
            # kind "figure": the set's false accepts are another row's quantity (retail's refusal_recall), shown only
            holds=None if kind == "figure" else s["false_accepts"] == 0,
            kind=kind,
            key=f"{key}_no_false_accept",
            threshold="" if kind == "figure" else "no refused call predicted 'accept'",
            caveats=caveats,
        ),
    ]


def unseen_rows(name: str, key: str, ways: dict[str, dict[str, Any]]) -> list[Comparison]:
    """One figure row: the ``unseen`` option both ways on one probe set (precision, abstention, false accepts)."""
    r, u = ways["refuse"], ways["unknown"]

    def show(s: dict[str, Any]) -> str:
        return f"{_f(s['precision'])} / {s['abstention_pct'] or 0:.2f}% / {s['false_accepts']}"

    return [
        Comparison(
            f"unseen='refuse' vs 'unknown' on {name}: precision / abstention % / false accepts",
            f"{show(r)}  vs  {show(u)}",
            None,
            f"false refusals {r['false_refusals']} vs {u['false_refusals']}; the default is chosen by precision, "
            "then abstention (docs/readme/blind_probes.md)",
            key=f"{key}_unseen_both_ways",
        )
    ]
