"""A template added with telecom, applied to every τ-bench domain: the values of the records a record contains.

``<arg>:<table>.<field>`` — for an id argument ``<x>_id`` naming a record of table ``<x>s`` that holds a list of ids
of another table's records (a retail user's ``orders``, an airline user's ``reservations``, a telecom customer's
``bill_ids``), the sorted set of one categorical field of those records (their statuses, cabins, ...). Which
fields contain ids of which table, and which fields are categorical (at most :data:`MAX_CATEGORIES` distinct scalar
values, not one per record), is read from the data; nothing names a tool or a domain.

:func:`with_contained_values` adds these conditions to a vocabulary built by a domain's own templates;
:func:`ablation` trains the model with and without them on a domain's probes (retail, airline) and scores both
on held-out probes.

>>> state = {"users": {"u": {"orders": ["#1", "#2"]}}, "orders": {"#1": {"status": "a"}, "#2": {"status": "b"},
...          "#3": {"status": "a"}}}
>>> c = contained_conditions([{"name": "t", "parameters": {"properties": {"user_id": {}}}}], state)
>>> sorted(c["t"]), c["t"]["user_id:orders.status"](state, {"user_id": "u"})
(['user_id:orders.status'], ('a', 'b'))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...actions import Vocabulary
from .scoring import score

__all__ = ["MAX_CATEGORIES", "ablation", "contained_conditions", "containments", "with_contained_values"]

MAX_CATEGORIES = 12


def _tables(state: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {
        name: t
        for name, t in state.items()
        if isinstance(t, Mapping) and t and all(isinstance(r, Mapping) for r in t.values())
    }


def containments(state: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """table → {field: contained table}: list fields whose elements are all keys of another table (from the data)."""
    tables = _tables(state)
    out: dict[str, dict[str, str]] = {}
    for name, records in tables.items():
        for rec in list(records.values())[:50]:
            for field, value in rec.items():
                if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
                    continue
                for other, other_records in tables.items():
                    if other != name and all(v in other_records for v in value):
                        out.setdefault(name, {})[field] = other
    return out


def _categorical(records: Mapping[str, Any]) -> list[str]:
    values: dict[str, set] = {}
    for rec in records.values():
        for field, value in rec.items():
            if value is None or isinstance(value, (str, bool, int, float)):
                values.setdefault(field, set()).add(repr(value))
    n = len(records)
    return sorted(f for f, vs in values.items() if len(vs) <= MAX_CATEGORIES and not (n > 1 and len(vs) == n))


def _values(arg: str, table: str, field: str, other: str, sub: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    def values(s: Any, a: Mapping[str, Any]) -> tuple[Any, ...]:
        ids = s[table][a[arg]][field]  # KeyError / TypeError: unreadable
        return tuple(sorted({s[other][i].get(sub) for i in ids}, key=repr))

    return values


def contained_conditions(
    tools: Sequence[Mapping[str, Any]], state: Mapping[str, Any]
) -> dict[str, dict[str, Callable[[Any, Mapping[str, Any]], Any]]]:
    """tool → {condition: predicate} of this template, for every ``<x>_id`` argument whose table ``<x>s`` contains."""
    contains = containments(state)
    tables = _tables(state)
    out: dict[str, dict[str, Any]] = {}
    for tool in tools:
        fn = tool.get("function", tool)
        props = (fn.get("parameters") or {}).get("properties") or {}
        own: dict[str, Any] = {}
        for arg in sorted(props):
            if not arg.endswith("_id"):
                continue
            table = arg[: -len("_id")] + "s"
            for field, other in sorted(contains.get(table, {}).items()):
                for sub in _categorical(tables[other]):
                    own[f"{arg}:{other}.{sub}"] = _values(arg, table, field, other, sub)
        out[fn["name"]] = own
    return out


def with_contained_values(
    vocab: Vocabulary, tools: Sequence[Mapping[str, Any]], state: Mapping[str, Any]
) -> Vocabulary:
    """The vocabulary plus this template's conditions (each tool's own list extended)."""
    extra = contained_conditions(tools, state)
    predicates = dict(vocab._predicates)  # noqa: SLF001 - the same predicates, re-assembled
    only: dict[str, list[str]] = {}
    for tool, conds in extra.items():
        predicates.update(conds)
        only[tool] = sorted(set(vocab.conditions(tool)) | set(conds))
    return Vocabulary(predicates, hard=vocab.hard, only=only)


def ablation(
    train: Sequence[Any],
    held_out: Sequence[Any],
    vocab: Vocabulary,
    tools: Sequence[Mapping[str, Any]],
    state: Mapping[str, Any],
    fit: Callable[[Sequence[Any], Vocabulary], Any],
) -> list[dict[str, Any]]:
    """Score the model trained without and with this template on the held-out transitions (``fit(train, vocab)``)."""
    rows = []
    for label, v in (
        ("without contained values", vocab),
        ("with contained values", with_contained_values(vocab, tools, state)),
    ):
        model = fit(train, v)
        verdicts = [model.predict(t.state, t.tool, t.args).verdict for t in held_out]
        rows.append(
            {"vocabulary": label, "conditions": len(v.names), **score(zip((t.accepted for t in held_out), verdicts))}
        )
    return rows
