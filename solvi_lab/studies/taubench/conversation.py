"""Gold trajectories with the lookups of a conversation, for probe sets on the splits we may read (issue 43).

Retail's training and dev tasks list only their write calls (the six write tools); the test split's tasks also list
the lookups an agent makes (a user found by email, an order read, an expression calculated). The blind generator
(:mod:`.blind_probes`) varies the calls a task lists, so on the dev split it never varied a lookup, and what it
does to lookups was first seen on the test split. :func:`with_lookups` gives a dev (or unread training) task the
lookups a conversation makes, so that the frozen blind generator can vary them there: before each gold step, the
first accepted call of each read-only tool the task's gold never calls, taken from the task's own gold-step probes
at that step (:mod:`.probes`: the reads on the call's entities). Nothing names a tool; a tool that may change data
(``Domain.writing``) is never inserted, so the trajectory's states are the gold ones.

>>> from solvi_lab.studies.taubench.probing import Transition
>>> task = {"index": 3, "actions": [{"name": "w", "kwargs": {"id": "a"}}]}
>>> probes = [Transition(3, 0, {}, "read", {"id": "a"}, True, None, "read"),
...           Transition(3, 0, {}, "read", {"id": "b"}, True, None, "read other"),
...           Transition(3, 0, {}, "w2", {"id": "a"}, True, None, "other tool")]
>>> [c["name"] for c in with_lookups(task, probes, writing=frozenset({"w", "w2"}))["actions"]]
['read', 'w']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .probing import Transition

__all__ = ["with_lookups", "tasks_with_lookups"]


def with_lookups(task: Mapping[str, Any], probes: Sequence[Transition], writing: frozenset[str]) -> dict[str, Any]:
    """The task with, before each gold step k, the first accepted probe at step k of each read-only tool the gold
    never calls (once per tool per task); ``probes``: the task's gold-step probes (other tasks' are ignored)."""
    gold = list(task.get("actions", []))
    seen = {c["name"] for c in gold} | set(writing)
    before: dict[int, list[dict[str, Any]]] = {}
    index = int(task["index"])
    for p in probes:
        if p.task == index and p.accepted and p.tool not in seen and 0 <= p.step < len(gold):
            seen.add(p.tool)
            before.setdefault(p.step, []).append({"name": p.tool, "kwargs": dict(p.args)})
    actions = [c for k, call in enumerate(gold) for c in (*before.get(k, []), call)]
    return {**task, "actions": actions}


def tasks_with_lookups(
    tasks: Sequence[Mapping[str, Any]], probes: Sequence[Transition], writing: frozenset[str]
) -> list[dict[str, Any]]:
    """:func:`with_lookups` of every task (the probes grouped by task once)."""
    by_task: dict[int, list[Transition]] = {}
    for p in probes:
        by_task.setdefault(p.task, []).append(p)
    return [with_lookups(t, by_task.get(int(t["index"]), ()), writing) for t in tasks]
