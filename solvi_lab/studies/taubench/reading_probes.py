"""Probes of what a tool reads (issue 43): parsed text, money at the environment's own edge, lists as iterated.

Issue 43's independent probes found calls that passed the action model because its vocabulary read them
differently from the tool: expressions that overflow, carry a thousands separator or an unbalanced bracket; a
balance a cent on either side of a price difference; list arguments given as ``""`` or a dict, and empty lists the
tool accepts as a no-op. This generator writes such calls, generically (it names no tool and no argument), around
the gold steps of held-out tasks; every call is labelled by the environment (``TableEnv.step``), never by us.

At the state before each gold call:

- ``list <kind>``: each list argument of the call given as ``""``, ``{}``, a dict keyed by its elements, ``[]``;
  every list argument ``[]`` (or ``""``) at once;
- ``expression <kind>``: for a string argument whose value a parser of the domain's tools reads as a finite number
  (the functions the tools declare they parse with, ``parses``: :func:`~.reading_templates.parser_of`), the
  variants of :data:`EXPRESSION_VARIANTS`; also, once per task, every tool whose schema example for a string
  argument such a parser reads as a finite number (``such as '2 + 2'``, ``such as '6086499569'``), on that example;
- ``money <offset>``: for a gold write whose payment id names a stored record with an amount (a gift card's
  balance), that amount set around the edge the environment draws — the smallest amount it accepts, found by
  bisection on copies of the environment to float precision — at the edge, one float below it, half a cent and a
  cent on either side, and the cent-rounded edge.

>>> [name for name, _ in EXPRESSION_VARIANTS][:4]
['thousands separator', 'unbalanced open', 'unbalanced close', 'int overflow']
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ...errors import BadParameter
from .blind_probes import _payment_ids, _with_amount
from .domain import StepCrashed, TableEnv
from .probing import Transition
from .reading_templates import parse_class

__all__ = ["reading_probes", "reading_family", "EXPRESSION_VARIANTS"]

Effect = Callable[[Any, Mapping[str, Any]], Any]

#: (kind, variant of an arithmetic text v): refused and accepted shapes alike; the environment labels each.
EXPRESSION_VARIANTS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("thousands separator", lambda v: "1,000 + " + v),
    ("unbalanced open", lambda v: "(" + v),
    ("unbalanced close", lambda v: v + ")"),
    ("int overflow", lambda v: "2 ** 10000 + " + v),
    ("int overflow product", lambda v: "(" + v + ") * 10 ** 400"),
    ("float overflow", lambda v: "10.0 ** 400 + " + v),
    ("zero division", lambda v: v + " / 0"),
    ("zero division computed", lambda v: v + " / (1 - 1)"),
    ("underscore literal", lambda v: "1_000 + " + v),
    ("exponent literal", lambda v: "1e3 + " + v),
    ("no spaces", lambda v: v.replace(" ", "")),
    ("padded", lambda v: "  " + v + " "),
    ("scaled", lambda v: "(" + v + ") * 3"),
    ("negated", lambda v: "-(" + v + ")"),
    ("floor division", lambda v: v + " // 2"),
    ("power", lambda v: "(" + v + ") ** 2"),
    ("call", lambda v: "3.5(" + v + ")"),
)
_EXAMPLE = re.compile(r"such as '([^']*)'")


def reading_family(origin: str) -> str:
    """A probe's family: its origin's first word (``list``, ``expression``, ``money``) or ``gold``.

    >>> reading_family("money cent below"), reading_family("gold")
    ('money', 'gold')
    """
    return origin.split(" ", 1)[0]


def _step(env: TableEnv, tool: str, args: dict[str, Any]) -> Any:
    try:
        return env.copy().step(tool, args)
    except StepCrashed:
        return None


def _schemas(tools: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for t in tools:
        fn = t.get("function", t)
        out[fn["name"]] = (fn.get("parameters") or {}).get("properties") or {}
    return out


def _list_variants(props: Mapping[str, Any], args: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    lists = [a for a, s in sorted(props.items()) if s.get("type") == "array" and a in args]
    for arg in lists:
        value = args[arg]
        keyed = {str(x): 1 for x in value} if isinstance(value, list) else {}
        for kind, v in (("empty string", ""), ("empty dict", {}), ("dict of elements", keyed), ("empty", [])):
            yield f"list {kind}", {**args, arg: v}
    if len(lists) > 1:
        yield "list all empty", {**args, **{a: [] for a in lists}}
        yield "list all empty strings", {**args, **{a: "" for a in lists}}


def _finite(parse: Any, value: Any) -> bool:
    return parse is not None and isinstance(value, str) and parse_class(parse, value) == "finite"


def _parsers(base: TableEnv) -> list[Any]:
    """Every function a tool of the domain declares it parses an argument with."""
    return [p for tool in base.domain.tools.values() for p in (getattr(tool, "parses", None) or {}).values()]


def _expression_variants(args: Mapping[str, Any], parsers: Sequence[Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for arg, value in sorted(args.items()):
        if any(_finite(parse, value) for parse in parsers):
            for kind, make in EXPRESSION_VARIANTS:
                yield f"expression {kind}", {**args, arg: make(value)}


def _holders(state: Mapping[str, Any], value: Any) -> Iterator[tuple[str, Any, str]]:
    """(table, key, dict field) of every stored record holding ``value`` as a key of one of its dict fields."""
    if not isinstance(value, str):
        return
    for table, rows in state.items():
        if isinstance(rows, Mapping):
            for key, rec in rows.items():
                if isinstance(rec, Mapping):
                    for field, sub in rec.items():
                        if isinstance(sub, Mapping) and isinstance(sub.get(value), Mapping):
                            yield table, key, field


def _money_calls(state: Mapping[str, Any], args: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str, tuple]]:
    """The call with each payment id of its holder that stores an amount (the call's own first): (args, id, where).
    The call's own id may store none (a credit card); its holder's gift cards do."""
    for pid in _payment_ids(args):
        for table, key, field in list(_holders(state, pid))[:1]:
            for other, rec in sorted(state[table][key][field].items(), key=lambda kv: (kv[0] != pid, kv[0])):
                nums = [n for n, v in rec.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
                if nums:
                    kw = {k: (other if v == pid else v) for k, v in args.items()}
                    yield kw, other, (table, key, field, nums[0])


def _money_states(before: TableEnv, tool: str, args: dict[str, Any]) -> Iterator[tuple[str, TableEnv, dict[str, Any]]]:
    """States whose stored amount behind the call's payment id sits around the environment's own edge."""
    for kw, pid, where in _money_calls(before.state, args):

        def at(amount: float, pid: str = pid, where: tuple = where) -> TableEnv:
            return _with_amount(before, pid, where, amount)

        def accepts(amount: float, kw: dict[str, Any] = kw) -> bool:
            result = _step(at(amount), tool, kw)
            return result is not None and not result.refused

        hi, lo = 10.0**6, 0.0
        if not accepts(hi) or accepts(lo):
            continue  # the amount does not decide this call
        for _ in range(200):  # to float precision: the smallest amount the environment accepts
            mid = (lo + hi) / 2
            if mid in (lo, hi):
                break
            lo, hi = (lo, mid) if accepts(mid) else (mid, hi)
        edge = hi
        for kind, amount in (
            ("at edge", edge),
            ("one float below", math.nextafter(edge, 0.0)),
            ("half cent below", edge - 0.005),
            ("cent below", edge - 0.01),
            ("half cent above", edge + 0.005),
            ("cent above", edge + 0.01),
            ("edge in cents", round(edge, 2)),
            ("edge in cents, cent below", round(edge, 2) - 0.01),
        ):
            yield f"money {kind}", at(amount), kw


def _examples(
    schemas: Mapping[str, Mapping[str, Any]], parsers: Sequence[Any]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Calls of tools with one string argument whose schema example a parser of the domain reads as a number."""
    for tool, props in sorted(schemas.items()):
        for arg, spec in sorted(props.items()):
            found = _EXAMPLE.search(str(spec.get("description") or ""))
            if (
                spec.get("type") == "string"
                and found
                and any(_finite(p, found.group(1)) for p in parsers)
                and len(props) == 1
            ):
                yield tool, {arg: found.group(1)}


def reading_task_probes(
    base: TableEnv, tools: Sequence[Mapping[str, Any]], task: Mapping[str, Any], effect: Effect
) -> list[Transition]:
    """The probes of one task along its gold trajectory ([] for a task without gold calls); deterministic."""
    gold = list(task.get("actions", []))
    if not gold:
        return []
    schemas = _schemas(tools)
    writing = base.domain.writing
    env = base.copy()
    index = int(task["index"])
    out: list[Transition] = []
    seen: set[tuple[int, str, str, str]] = set()

    def record(k: int, state_env: TableEnv, tool: str, args: dict[str, Any], origin: str) -> None:
        key = (k, origin, tool, json.dumps(args, sort_keys=True, default=str))
        if key in seen:
            return
        seen.add(key)
        result = _step(state_env, tool, args)
        if result is not None:
            out.append(
                Transition(index, k, state_env.state, tool, args, not result.refused, effect(result, args), origin)
            )

    parsers = _parsers(base)
    for tool, args in _examples(schemas, parsers):
        record(0, env, tool, args, "expression example")
        for origin, kw in _expression_variants(args, parsers):
            record(0, env, tool, kw, origin)
    for k, call in enumerate(gold):
        tool, args = call["name"], json.loads(json.dumps(call["kwargs"]))
        before = env.copy()
        for origin, kw in [*_list_variants(schemas.get(tool, {}), args), *_expression_variants(args, parsers)]:
            record(k, before, tool, kw, origin)
        if tool in writing:
            for origin, edited, kw in _money_states(before, tool, args):
                record(k, edited, tool, kw, origin)
        env.step(tool, args)
    return out


def reading_probes(
    base: TableEnv, tools: Sequence[Mapping[str, Any]], tasks: Sequence[Mapping[str, Any]], effect: Effect
) -> list[Transition]:
    """The probes of these tasks, in task order (see the module docstring)."""
    if not isinstance(tools, (list, tuple)) or not tools:
        raise BadParameter("reading_probes needs the tools' schemas (a non-empty list, as tools.json holds them).")
    out: list[Transition] = []
    for task in tasks:
        out.extend(reading_task_probes(base, tools, task, effect))
    return out
