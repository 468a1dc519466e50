"""Generic templates the tools' JSON schema already implies, for every τ-bench domain (issue 33).

A tool's schema declares its argument names, which are required, each argument's JSON type and, for lists, that
they are lists. The conditions, per tool:

``<tool>:undeclared_args``
    the call passes an argument the schema does not declare (upstream's ``invoke`` then raises);
``<tool>:missing_args``
    a required argument is absent (both named by the tool: the declared names are the tool's own, and a
    vocabulary holds one predicate per name);
``<arg>:jtype``
    the JSON type of the value as passed — ``string``, ``integer``, ``number``, ``boolean``, ``array``, ``object``,
    ``null`` — or ``absent`` (readable where the other templates of that argument are not);
``<arg>:empty``
    for a list argument: the list is empty (``False`` for anything that is not a list).

>>> c = schema_conditions("t", {"order_id": {"type": "string"}, "ids": {"type": "array"}}, ["order_id"])
>>> sorted(c)
['ids:empty', 'ids:jtype', 'order_id:jtype', 't:missing_args', 't:undeclared_args']
>>> a = {"order_id": 5, "ids": [], "x": 1}
>>> [c[k](None, a) for k in sorted(c)]
[True, 'array', 'integer', False, True]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["schema_conditions", "json_type"]

Predicate = Callable[[Any, Mapping[str, Any]], Any]


def json_type(value: Any) -> str:
    """The JSON type name of a Python value as a tool call carries it.

    >>> [json_type(v) for v in ("a", 1, 1.5, True, [], {}, None)]
    ['string', 'integer', 'number', 'boolean', 'array', 'object', 'null']
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _undeclared(declared: frozenset[str]) -> Predicate:
    return lambda s, a: any(k not in declared for k in a)


def _missing(required: tuple[str, ...]) -> Predicate:
    return lambda s, a: any(r not in a for r in required)


def _jtype(arg: str) -> Predicate:
    return lambda s, a: json_type(a[arg]) if arg in a else "absent"


def _empty(arg: str) -> Predicate:
    return lambda s, a: isinstance(a.get(arg), list) and not a[arg]


def schema_conditions(
    tool: str, props: Mapping[str, Mapping[str, Any]], required: Sequence[str]
) -> dict[str, Predicate]:
    """The schema family's conditions of one tool (see the module docstring)."""
    out: dict[str, Predicate] = {
        f"{tool}:undeclared_args": _undeclared(frozenset(props)),
        f"{tool}:missing_args": _missing(tuple(required)),
    }
    for arg, spec in sorted(props.items()):
        out[f"{arg}:jtype"] = _jtype(arg)
        if spec.get("type") == "array":
            out[f"{arg}:empty"] = _empty(arg)
    return out
