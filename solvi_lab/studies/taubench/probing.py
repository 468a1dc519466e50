"""The probe protocol every τ-bench domain shares: walk a task's gold trajectory and, at each step, run the gold
call and a seeded sample of variations on copies of the state.

A domain supplies only its variations (``candidates(state, k, tool, args)`` → ``(origin, tool, args)``) and what
an accepted call did (``effect(result, args)``). Candidates are de-duplicated (the gold call itself included); a
seeded sample keeps about ``budget`` transitions per task, spread evenly over the gold steps, the gold call always
first. A call that makes upstream's step itself raise (:class:`~.domain.StepCrashed`) is not an observation of
the environment and is left out.

>>> from solvi_lab.studies.taubench.domain import Domain, TableEnv
>>> class E(TableEnv):
...     domain = Domain("e", ("t",), {}, frozenset(), frozenset(), "x")
>>> task = {"index": 0, "actions": [{"name": "a", "kwargs": {}}]}
>>> out = gold_step_probes(E({"t": {}}), task, random.Random(0), 10, lambda s, k, t, a: iter([("other", "b", {})]),
...                        lambda r, a: None)
>>> [(p.origin, p.tool, p.accepted) for p in out]
[('gold', 'a', False), ('other', 'b', False)]
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import BadParameter
from .domain import StepCrashed, TableEnv

__all__ = [
    "Transition",
    "gold_step_probes",
    "payment_swaps",
    "schema_probes",
    "schema_variations",
    "tool_properties",
    "tool_required",
    "with_changes",
    "UNDECLARED_NAME",
]

#: The argument name the schema exploration adds to a call: declared by no tool of any domain.
UNDECLARED_NAME = "unexpected_argument"


@dataclass(frozen=True)
class Transition:
    """One probe: the state before (read-only tables), the call, and what the environment did.

    effect: what an accepted write did, as the domain describes it (retail: ``{"order_status": <new status>}`` of
    the touched order), or None (refused, or nothing changed).
    origin: which variation produced it ("gold", "swap order_id", "enum reason", ...), for reading results.
    """

    task: int
    step: int
    state: Mapping[str, Any]
    tool: str
    args: dict[str, Any]
    accepted: bool
    effect: dict[str, Any] | None
    origin: str


def _seed_for(seed: int, split: str, index: int) -> int:
    digest = hashlib.sha256(f"{seed}/{split}/{index}".encode()).hexdigest()
    return int(digest[:16], 16)


def with_changes(args: Mapping[str, Any], **changes: Any) -> dict[str, Any]:
    """A private deep copy of a call's arguments with ``changes`` applied (probes never share lists).

    >>> a = {"ids": [1]}; b = with_changes(a, n=2); b["ids"].append(3); a, b
    ({'ids': [1]}, {'ids': [1, 3], 'n': 2})
    """
    out = json.loads(json.dumps(args))
    out.update(changes)
    return out


def tool_properties(tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Tool name → the JSON-schema properties of its parameters, from a domain's ``tools.json`` schemas.

    >>> tool_properties([{"function": {"name": "t", "parameters": {"properties": {"x": {"type": "string"}}}}}])
    {'t': {'x': {'type': 'string'}}}
    """
    return {
        t.get("function", t)["name"]: t.get("function", t).get("parameters", {}).get("properties", {}) for t in tools
    }


def tool_required(tools: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Tool name → the names its schema marks required.

    >>> tool_required([{"function": {"name": "t", "parameters": {"required": ["x"]}}}, {"name": "u"}])
    {'t': ['x'], 'u': []}
    """
    return {
        t.get("function", t)["name"]: list(t.get("function", t).get("parameters", {}).get("required", []) or [])
        for t in tools
    }


def _other_type(value: Any) -> Any:
    """The value as another JSON type would carry it (a string ↔ a number, a list or object → its text)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return 1
    if isinstance(value, (int, float)):
        return str(value)
    if value is None:
        return ""
    return json.dumps(value)


def schema_variations(
    tool: str, args: Mapping[str, Any], props: Mapping[str, Any], required: Sequence[str]
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """The calls the tool's schema says are malformed, around one call (issue 43): an undeclared argument added,
    each required argument dropped, each argument's value passed as another JSON type and as null. Derived from
    the schema alone (names, required, the value's own type), the same for every tool of every domain.

    >>> [o for o, _, _ in schema_variations("t", {"a": "x"}, {"a": {"type": "string"}}, ["a"])]
    ['schema undeclared arg', 'schema missing a', 'schema type a', 'schema null a']
    """
    if UNDECLARED_NAME not in props:
        yield "schema undeclared arg", tool, with_changes(args, **{UNDECLARED_NAME: next(iter(args.values()), "")})
    for arg in required:
        if arg in args:
            yield f"schema missing {arg}", tool, {k: json.loads(json.dumps(v)) for k, v in args.items() if k != arg}
    for arg in sorted(args):
        if arg in props:
            yield f"schema type {arg}", tool, with_changes(args, **{arg: _other_type(args[arg])})
            if args[arg] is not None:
                yield f"schema null {arg}", tool, with_changes(args, **{arg: None})


def schema_probes(
    base: TableEnv,
    task: Mapping[str, Any],
    props: Mapping[str, Mapping[str, Any]],
    required: Mapping[str, Sequence[str]],
    effect: Callable[[Any, Mapping[str, Any]], dict[str, Any] | None],
    probes: Sequence[Transition] = (),
) -> list[Transition]:
    """Training exploration of the schema (issue 43): along a task's gold trajectory, at the state before the
    *first* gold call of each tool, the :func:`schema_variations` of that call, each run on a copy of the state;
    then, at the same step, those of the first *accepted* call of every other tool among the task's own training
    ``probes`` (the gold-step generator's calls at that state, e.g. the lookups of a conversation).

    The gold-step generator never varies what the schema declares, so training never saw an undeclared, missing
    or mistyped argument and the schema family's conditions never split accepted from refused calls: every such
    call was "unknown". A tool no training gold trajectory calls (retail's training tasks call only its six write
    tools) was never explored either, so its malformed calls stayed "unknown": ``probes`` gives every tool the
    training probes call its exploration. Run on training states only, added to the training set (never to a
    scored probe set).
    """
    env = base.copy()
    out: list[Transition] = []
    done: set[str] = set()
    gold = list(task.get("actions", []))
    gold_tools = {c["name"] for c in gold}
    others: dict[int, list[Transition]] = {}  # step -> the first accepted probe of each tool the gold never calls
    for p in probes:
        if p.accepted and p.tool not in gold_tools and p.step < len(gold):
            gold_tools.add(p.tool)  # once per task, at the first step a probe reached it
            others.setdefault(p.step, []).append(p)

    def explore(k: int, before: TableEnv, tool: str, args: Mapping[str, Any]) -> None:
        for origin, t, kw in schema_variations(tool, args, props.get(tool, {}), required.get(tool, [])):
            try:
                result = before.copy().step(t, kw)
            except StepCrashed:
                continue
            out.append(
                Transition(int(task["index"]), k, before.state, t, kw, not result.refused, effect(result, kw), origin)
            )

    for k, call in enumerate(gold):
        tool, args = call["name"], dict(call["kwargs"])
        before = env.copy()
        if tool not in done:
            done.add(tool)
            explore(k, before, tool, args)
        for p in others.get(k, []):
            explore(k, before, p.tool, p.args)
        env.step(tool, args)
    return out


def payment_swaps(
    tool: str,
    args: Mapping[str, Any],
    arg: str,
    own: Mapping[str, Mapping[str, Any]],
    other: Mapping[str, Mapping[str, Any]],
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """The payment argument ``arg`` swapped for each of the user's own methods, then for another user's methods
    (one per kind of source). ``own`` / ``other``: payment id → method record.

    >>> [o for o, _, _ in payment_swaps("t", {"p": "a"}, "p", {"a": {"source": "card"}},
    ...                                  {"b": {"source": "card"}, "c": {"source": "card"}})]
    ['swap payment own card', 'swap payment other card']
    """
    for pid, pm in sorted(own.items()):
        yield f"swap payment own {pm.get('source')}", tool, with_changes(args, **{arg: pid})
    seen: set[Any] = set()
    for pid, pm in sorted(other.items()):
        if pm.get("source") not in seen:
            seen.add(pm.get("source"))
            yield f"swap payment other {pm.get('source')}", tool, with_changes(args, **{arg: pid})


Candidates = Callable[[Mapping[str, Any], int, str, dict[str, Any]], Iterator[tuple[str, str, dict[str, Any]]]]


def gold_step_probes(
    base: TableEnv,
    task: Mapping[str, Any],
    rng: random.Random,
    budget: int,
    candidates: Candidates,
    effect: Callable[[Any, Mapping[str, Any]], dict[str, Any] | None],
) -> list[Transition]:
    """The probes of one task (see the module docstring); [] for a task without gold actions."""
    if budget < 1:
        raise BadParameter(f"budget must be a positive number of transitions per task, got {budget!r}.")
    env = base.copy()
    gold = list(task.get("actions", []))
    if not gold:
        return []
    per_step = max(1, budget // len(gold))
    out: list[Transition] = []
    for k, call in enumerate(gold):
        tool, args = call["name"], dict(call["kwargs"])
        before = env.copy()  # the state after the first k gold calls, frozen (records are never mutated)
        state = before.state
        seen = {(tool, json.dumps(args, sort_keys=True))}
        cands: list[tuple[str, str, dict[str, Any]]] = []
        for origin, t, kw in candidates(state, k, tool, args):
            key = (t, json.dumps(kw, sort_keys=True))
            if key not in seen:
                seen.add(key)
                cands.append((origin, t, kw))
        keep = cands if len(cands) <= per_step - 1 else rng.sample(cands, per_step - 1)
        for origin, t, kw in [("gold", tool, args), *keep]:
            try:
                result = before.copy().step(t, kw)
            except StepCrashed:
                continue
            out.append(Transition(int(task["index"]), k, state, t, kw, not result.refused, effect(result, kw), origin))
        env.step(tool, args)  # move on along the gold trajectory
    return out
