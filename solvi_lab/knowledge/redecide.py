"""redecide: what a retraction moves among the decisions already taken.

A decision's trace holds the snapshot it was given (its `rests_on` ids, its query and its journal position).
`rests_on` lists what the snapshot gave and, transitively, every premise of it, so a decision is affected exactly
when a retracted id is in that list. For each such decision the snapshot is
rebuilt as it would have been at that position without them, the decision is re-run on the old and on the new
snapshot, and the result goes to one of two lists: the answer changes (for a reviewer) or only the justification
changes (recorded in the journal as a "redecide" record).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..decisions import Decision, DecisionLog
from ..errors import BadInput
from ..journal import canonical


def _snapshots_in(given: Any) -> list[tuple[str | None, dict[str, Any]]]:
    """(field name, snapshot) for every knowledge snapshot in a decision's given facts."""
    if isinstance(given, dict) and {"rests_on", "fingerprint", "position", "query"} <= set(given):
        return [(None, given)]
    if isinstance(given, dict):
        return [
            (k, v)
            for k, v in given.items()
            if isinstance(v, dict) and {"rests_on", "fingerprint", "position", "query"} <= set(v)
        ]
    return []


def redecide(
    store: Any, decisions: DecisionLog | Iterable[Decision], retracted: Iterable[str], decide: Callable[[Any], Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    retracted = set(retracted)
    if not retracted:
        raise BadInput("redecide() needs the ids of the retracted items (a non-empty set).")
    for r in retracted:
        store._get(r)
    affected: list[tuple[Decision, list[tuple[str | None, dict]]]] = []
    for d in decisions:
        snaps = [(k, s) for k, s in _snapshots_in(d.given) if retracted & set(s["rests_on"])]
        if snaps:
            affected.append((d, snaps))
    if not affected:
        return [], []
    wanted: dict[int, list[tuple[Decision, str | None, dict]]] = {}
    for d, snaps in affected:
        for k, s in snaps:
            wanted.setdefault(s["position"], []).append((d, k, s))
    rebuilt: dict[tuple[str, str | None], dict] = {}

    def take(st: Any, pos: int) -> None:
        for d, k, s in wanted.get(pos, ()):
            q = s["query"]
            about = q["about"] if "about" in q else ...  # a snapshot of the whole store has no about
            rebuilt[(d.id, k)] = st.snapshot(about, scope=q.get("scope"), r=q.get("r"), valid_at=q.get("valid_at"))

    type(store).from_records(store.journal, skip=retracted, at=take, at_positions=wanted.keys())
    changes, justification = [], []
    for d, snaps in affected:
        new_given = dict(d.given) if isinstance(d.given, dict) else d.given
        for k, _s in snaps:
            if k is None:
                new_given = rebuilt[(d.id, None)]
            else:
                new_given[k] = rebuilt[(d.id, k)]
        old_answer, new_answer = decide(d.given), decide(new_given)
        entry = {
            "decision": d.id,
            "name": d.name,
            "old_answer": old_answer,
            "new_answer": new_answer,
            "recorded_answer": d.answer,
            "old_rests_on": sorted({i for _k, s in snaps for i in s["rests_on"]}),
            "new_given": new_given,
        }
        (justification if canonical(old_answer) == canonical(new_answer) else changes).append(entry)
    store.journal.append(
        "redecide",
        {
            "retracted": sorted(retracted),
            "answer_changes": [e["decision"] for e in changes],
            "justification_only": [e["decision"] for e in justification],
        },
    )
    return changes, justification
