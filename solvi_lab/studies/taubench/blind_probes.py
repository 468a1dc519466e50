"""A second probe generator for every τ-bench domain, written blind (issue 33).

Designed from the tools' documents (``shared/docs/taubench-*-tools.md``) and their JSON schemas (``tools.json``)
alone, without reading the study's vocabulary templates, its own probe generator or any model output. It knows
nothing about a domain but its tables and its tool schemas: every variation is derived from a call's arguments, the
schema's declared names, types and enums, the values other gold calls of the split used, and the keys of the tables.
Labels are what the environment does (faithful to upstream); the generator never decides a label.

What a real agent gets wrong, as families (the ``origin`` of a probe starts with its family):

* ``missing arg`` / ``extra arg`` / ``misspelt arg``: a declared argument dropped, an undeclared one added, a declared
  one renamed the way a typo or another convention would (plural, camelCase, no underscores, truncated);
* ``wrong type``: a value of another JSON type than the schema declares (string ↔ number, list ↔ string, null, bool);
* ``empty list`` / ``oversized list`` / ``list element``: ``[]``, the list repeated, an element dropped, doubled, or
  taken from another call;
* ``nested field``: inside a list of objects, a declared field dropped, mistyped or malformed, or an extra one added;
* ``enum``: every declared value, and near misses (case, spaces, an undeclared value);
* ``boundary amount``: numbers at 0, negative, ±0.01 and ±0.005 around the value, fractional where an integer is
  declared, huge; ``balance edge``: the state's stored amount behind a payment id set at the edge the environment
  itself draws (found by bisection on the environment, never typed in), a cent below it, at zero;
* ``malformed id``: an id without its leading symbol, case-changed, padded, truncated, lengthened, empty;
  ``malformed date``: another format, a day out of range; ``malformed expression``: syntax the documents name;
* ``other record``: an id swapped for another key of the same table (another user's record), or a value another
  task's gold call used for the same argument name;
* ``other tool``: every tool whose required arguments the task's calls can fill, on the same ids;
* ``chain``: after the gold write, the same write again and every other write on the same ids (the state after).

Frozen: :data:`BLIND_SEED` and this code were committed before any model was run on the probes; never tune them.

>>> BLIND_SEED
3303
>>> sorted(FAMILIES)[:3]
['balance edge', 'boundary amount', 'chain']
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ...errors import BadParameter
from .domain import StepCrashed, TableEnv
from .probing import Transition

__all__ = ["BLIND_SEED", "BLIND_BUDGET", "FAMILIES", "blind_family", "blind_probes", "blind_task_probes"]

#: The frozen seed of the blind generator (committed with its code, before any model saw a probe).
BLIND_SEED = 3303
#: Probe transitions per task, about (the gold calls and the chains always kept).
BLIND_BUDGET = 60

FAMILIES = (
    "gold",
    "missing arg",
    "extra arg",
    "misspelt arg",
    "wrong type",
    "empty list",
    "oversized list",
    "list element",
    "nested field",
    "enum",
    "boundary amount",
    "balance edge",
    "malformed id",
    "malformed date",
    "malformed expression",
    "other record",
    "other tool",
    "chain",
)

_EXTRA_NAMES = ("user_id", "confirm", "note", "data", "order_id", "reservation_id", "amount")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_EXPRESSIONS = ("1/0", "2^3", "(1+2", "", "1e3", "01+1", "abc", "10**400", "()", "1.005*100", "2 + 2", "-0.0")
Effect = Callable[[Any, Mapping[str, Any]], dict[str, Any] | None]


def blind_family(origin: str) -> str:
    """The family of a blind probe's origin (its first words that name a family).

    >>> blind_family("wrong type order_id int"), blind_family("gold"), blind_family("chain repeat")
    ('wrong type', 'gold', 'chain')
    """
    for fam in sorted(FAMILIES, key=len, reverse=True):
        if origin == fam or origin.startswith(fam + " "):
            return fam
    return origin.split(" ")[0] if origin else ""


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _with(args: Mapping[str, Any], **changes: Any) -> dict[str, Any]:
    out = _copy(dict(args))
    out.update(_copy(changes))
    return out


def _schema(tools: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for t in tools:
        f = t.get("function", t)
        p = f.get("parameters", {})
        out[f["name"]] = {"properties": p.get("properties", {}), "required": list(p.get("required", []))}
    return out


def _seed_for(seed: int, split: str, index: int) -> int:
    return int(hashlib.sha256(f"blind/{seed}/{split}/{index}".encode()).hexdigest()[:16], 16)


class _Context:
    """What a variation may draw on: the schemas, the split's gold values by argument name, the state's tables."""

    def __init__(self, schema: dict[str, dict[str, Any]], pool: dict[str, list[Any]], rng: random.Random):
        self.schema = schema
        self.pool = pool
        self.rng = rng

    def table_of(self, state: Mapping[str, Any], value: Any) -> str | None:
        if not isinstance(value, str):
            return None
        for name, table in state.items():
            if isinstance(table, Mapping) and value in table:
                return name
        return None


def _misspellings(name: str) -> list[str]:
    parts = name.split("_")
    camel = parts[0] + "".join(p.capitalize() for p in parts[1:])
    out = [name + "s", name[:-1], name.replace("_", ""), camel, name.upper()]
    if name.endswith("s"):
        out.append(name[:-1])
    return [n for n in dict.fromkeys(out) if n != name]


def _wrong_types(value: Any, declared: str | None) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = [("null", None)]
    if declared == "string" or isinstance(value, str):
        out += [("int", 12345), ("list", [value]), ("bool", True), ("object", {"value": value})]
        if isinstance(value, str) and value.isdigit():
            out.append(("int of digits", int(value)))
    elif declared == "array" or isinstance(value, list):
        first = value[0] if isinstance(value, list) and value else ""
        out += [("string", first if isinstance(first, str) else json.dumps(first)), ("object", {"0": first})]
        out.append(("json text", json.dumps(value)))
    elif declared in ("number", "integer") or isinstance(value, (int, float)):
        out += [("string", str(value)), ("bool", True), ("list", [value])]
    return out


def _malformed_ids(value: str) -> list[tuple[str, str]]:
    out = []
    if value and not value[0].isalnum():
        out.append(("no leading symbol", value[1:]))
    out += [
        ("upper", value.upper()),
        ("lower", value.lower()),
        ("padded", f" {value} "),
        ("truncated", value[:-1]),
        ("lengthened", value + "0"),
        ("empty", ""),
    ]
    return [(n, v) for n, v in out if v != value or n == "empty"]


def _malformed_dates(value: str) -> list[tuple[str, str]]:
    y, m, d = value.split("-")
    return [
        ("slashes", f"{y}/{m}/{d}"),
        ("us order", f"{m}/{d}/{y}"),
        ("no padding", f"{y}-{int(m)}-{int(d)}"),
        ("day 32", f"{y}-{m}-32"),
        ("next day", f"{y}-{m}-{int(d) + 1:02d}" if int(d) < 28 else f"{y}-{m}-01"),
        ("other month", f"{y}-{int(m) % 12 + 1:02d}-{d}"),
        ("other year", f"{int(y) + 1}-{m}-{d}"),
    ]


def _amounts(value: float, declared: str | None) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = [
        ("zero", 0),
        ("negative", -1),
        ("minus cent", round(value - 0.01, 2)),
        ("plus cent", round(value + 0.01, 2)),
        ("plus half cent", value + 0.005),
        ("times ten", value * 10),
        ("huge", 10**9),
        ("float form", float(value)),
    ]
    if declared == "integer":
        out.append(("fraction", value + 0.5))
    return out


def _value_variations(
    ctx: _Context, state: Mapping[str, Any], name: str, value: Any, spec: Mapping[str, Any]
) -> Iterator[tuple[str, Any]]:
    """Variations of one argument's value: (origin tail, new value)."""
    declared = spec.get("type")
    for label, v in _wrong_types(value, declared):
        yield f"wrong type {name} {label}", v
    if spec.get("enum"):
        for e in spec["enum"]:
            yield f"enum {name} {e}", e
        first = spec["enum"][0]
        yield f"enum {name} capitalised", first.capitalize() if first != first.capitalize() else first.upper()
        yield f"enum {name} trailing space", first + " "
        yield f"enum {name} undeclared", "other"
    if isinstance(value, str):
        if name == "expression" or declared == "string" and re.fullmatch(r"[0-9+\-*/(). ]+", value or "x"):
            for e in _EXPRESSIONS:
                yield "malformed expression", e
            yield "malformed expression appended operator", value + " +"
        if _DATE.match(value):
            for label, v in _malformed_dates(value):
                yield f"malformed date {name} {label}", v
        elif ctx.table_of(state, value) or any(c.isdigit() for c in value):
            for label, v in _malformed_ids(value):
                yield f"malformed id {name} {label}", v
        table = ctx.table_of(state, value)
        if table:
            keys = sorted(k for k in state[table] if k != value)
            for k in ctx.rng.sample(keys, min(3, len(keys))):
                yield f"other record {name} {table}", k
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        for label, v in _amounts(value, declared):
            yield f"boundary amount {name} {label}", v
    others = [v for v in ctx.pool.get(name, []) if v != value]
    for v in ctx.rng.sample(others, min(3, len(others))):
        yield f"other record {name} other task", v
    if isinstance(value, list):
        yield f"empty list {name}", []
        yield f"oversized list {name} doubled", value + value
        yield f"oversized list {name} times ten", value * 10 if value else [""] * 10
        if value:
            yield f"list element {name} dropped last", value[:-1]
            yield f"list element {name} first doubled", [value[0], *value]
            yield f"list element {name} reversed", value[::-1]
        items = spec.get("items", {})
        if items.get("type") == "object" and value and isinstance(value[0], Mapping):
            yield from _nested(ctx, state, name, value, items)
        pooled = [x for v in ctx.pool.get(name, []) if isinstance(v, list) for x in v if x not in value]
        if pooled:
            yield (
                f"list element {name} from another call",
                [*value[:-1], ctx.rng.choice(pooled)] if value else [ctx.rng.choice(pooled)],
            )


def _nested(
    ctx: _Context, state: Mapping[str, Any], name: str, value: list[Any], items: Mapping[str, Any]
) -> Iterator[tuple[str, Any]]:
    """Variations inside the first object of a list of objects (schema ``items.properties``)."""
    props = items.get("properties", {})
    first = dict(value[0])
    for field in props:
        if field in first:
            rest = {k: v for k, v in first.items() if k != field}
            yield f"nested field {name}.{field} missing", [rest, *value[1:]]
            for label, v in _value_variations(ctx, state, field, first[field], props[field]):
                if not label.startswith(("other record", "nested")):
                    yield f"nested field {name}.{field} {label}", [{**first, field: v}, *value[1:]]
    yield f"nested field {name} extra key", [{**first, "extra": "x"}, *value[1:]]


def _arg_variations(
    ctx: _Context, state: Mapping[str, Any], tool: str, args: dict[str, Any]
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    spec = ctx.schema.get(tool, {"properties": {}, "required": []})
    props = spec["properties"]
    for name in args:
        yield f"missing arg {name}", tool, {k: v for k, v in _copy(args).items() if k != name}
        for wrong in _misspellings(name):
            rest = {k: v for k, v in _copy(args).items() if k != name}
            yield f"misspelt arg {name}", tool, {**rest, wrong: _copy(args[name])}
    for extra in _EXTRA_NAMES:
        if extra not in props:
            yield f"extra arg {extra}", tool, _with(args, **{extra: "x"})
    for name, value in args.items():
        for label, v in _value_variations(ctx, state, name, value, props.get(name, {})):
            yield label, tool, _with(args, **{name: v})


def _other_tools(ctx: _Context, tool: str, filler: Mapping[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every other tool whose required arguments the task's calls fill, by argument name."""
    for other, spec in ctx.schema.items():
        if other == tool:
            continue
        req = spec["required"]
        if req and all(r in filler for r in req):
            yield f"other tool {other}", other, {r: _copy(filler[r]) for r in req}


def _payment_records(state: Mapping[str, Any], value: Any) -> list[tuple[str, str, str, str]]:
    """(table, key, dict field, numeric field) of every stored record holding ``value`` as a key of one of its
    dict-valued fields, with a numeric field in it (a payment method with a balance or an amount)."""
    out = []
    if not isinstance(value, str):
        return out
    for table, rows in state.items():
        if not isinstance(rows, Mapping):
            continue
        for key, rec in rows.items():
            if not isinstance(rec, Mapping):
                continue
            for field, sub in rec.items():
                if isinstance(sub, Mapping) and isinstance(sub.get(value), Mapping):
                    for num, v in sub[value].items():
                        if isinstance(v, (int, float)) and not isinstance(v, bool):
                            out.append((table, key, field, num))
    return out


def _payment_ids(args: Mapping[str, Any]) -> list[str]:
    out = []
    for v in args.values():
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, list):
            out += [x.get("payment_id") for x in v if isinstance(x, Mapping) and isinstance(x.get("payment_id"), str)]
    return out


def _with_amount(before: TableEnv, pid: str, where: tuple[str, Any, str, str], amount: float) -> TableEnv:
    """A copy of ``before`` whose stored payment ``pid`` (at ``where`` = table, key, dict field, numeric field) holds
    ``amount``."""
    table, key, field, num = where
    env = before.copy()
    rec = env.edit(table, key)
    rec[field] = dict(rec[field])
    rec[field][pid] = {**rec[field][pid], num: amount}
    return env


def _balance_edges(before: TableEnv, tool: str, args: dict[str, Any]) -> Iterator[tuple[str, TableEnv]]:
    """States whose stored amount behind a payment id of the call sits at the edge the environment draws: found by
    bisection on copies of the environment (the smallest amount it accepts), then at it, a cent below, at zero."""
    for pid in _payment_ids(args):
        for table, key, field, num in _payment_records(before.state, pid)[:1]:

            def at(
                amount: float, pid: str = pid, where: tuple[str, Any, str, str] = (table, key, field, num)
            ) -> TableEnv:
                return _with_amount(before, pid, where, amount)

            def accepts(amount: float) -> bool:
                try:
                    return not at(amount).copy().step(tool, args).refused
                except StepCrashed:
                    return False

            yield f"balance edge {num} zero", at(0)
            hi = 10.0**6
            if not accepts(hi) or accepts(0):
                continue  # the amount does not decide this call
            lo = 0.0
            for _ in range(40):
                mid = round((lo + hi) / 2, 2)
                if mid in (lo, hi):
                    break
                lo, hi = (lo, mid) if accepts(mid) else (mid, hi)
            yield f"balance edge {num} at edge", at(hi)
            yield f"balance edge {num} cent below", at(round(hi - 0.01, 2))
            yield f"balance edge {num} half cent below", at(hi - 0.005)


def _step(env: TableEnv, tool: str, args: dict[str, Any]) -> Any:
    try:
        return env.copy().step(tool, args)
    except StepCrashed:
        return None


def blind_task_probes(
    base: TableEnv,
    tools: Sequence[Mapping[str, Any]],
    task: Mapping[str, Any],
    pool: dict[str, list[Any]],
    effect: Effect,
    *,
    split: str,
    seed: int = BLIND_SEED,
    budget: int = BLIND_BUDGET,
) -> list[Transition]:
    """The blind probes of one task along its gold trajectory ([] for a task without gold calls).

    At each gold step: the gold call, a seeded sample of the variations above (about ``budget`` per task in all),
    the balance edges of the gold call, and — after a gold write — the chain of writes on the state it left.
    """
    if budget < 1:
        raise BadParameter(f"budget must be a positive number of transitions per task, got {budget!r}.")
    gold = list(task.get("actions", []))
    if not gold:
        return []
    rng = random.Random(_seed_for(seed, split, int(task["index"])))
    ctx = _Context(_schema(tools), pool, rng)
    writing = base.domain.writing
    env = base.copy()
    filler: dict[str, Any] = {"user_id": task.get("user_id")}
    for call in gold:
        filler.update({k: v for k, v in call["kwargs"].items() if k not in filler})
    per_step = max(2, budget // len(gold))
    out: list[Transition] = []
    index = int(task["index"])

    def record(k: int, state_env: TableEnv, tool: str, args: dict[str, Any], origin: str) -> None:
        result = _step(state_env, tool, args)
        if result is not None:
            out.append(
                Transition(index, k, state_env.state, tool, args, not result.refused, effect(result, args), origin)
            )

    for k, call in enumerate(gold):
        tool, args = call["name"], _copy(dict(call["kwargs"]))
        before = env.copy()
        state = before.state
        seen = {(tool, json.dumps(args, sort_keys=True))}
        cands = []
        for origin, t, kw in [*_arg_variations(ctx, state, tool, args), *_other_tools(ctx, tool, {**filler, **args})]:
            key = (t, json.dumps(kw, sort_keys=True))
            if key not in seen:
                seen.add(key)
                cands.append((origin, t, kw))
        keep = cands if len(cands) <= per_step else rng.sample(cands, per_step)
        record(k, before, tool, args, "gold")
        for origin, t, kw in keep:
            record(k, before, t, kw, origin)
        if tool in writing:
            for origin, edited in _balance_edges(before, tool, args):
                record(k, edited, tool, args, origin)
            after = before.copy()
            if not after.step(tool, args).refused:
                record(k, after, tool, args, "chain repeat")
                for _origin, t, kw in _other_tools(ctx, tool, {**filler, **args}):
                    if t in writing:
                        record(k, after, t, kw, f"chain then {t}")
        env.step(tool, args)
    return out


def blind_probes(
    base: TableEnv | Callable[[Mapping[str, Any]], TableEnv],
    tools: Sequence[Mapping[str, Any]],
    tasks: Sequence[Mapping[str, Any]],
    effect: Effect,
    *,
    split: str,
    seed: int = BLIND_SEED,
    budget: int = BLIND_BUDGET,
) -> list[Transition]:
    """The blind probes of these tasks; other-record values come from the same tasks' gold calls only.

    base: the environment every task starts from, or (for a domain whose tasks each start from their own
    initialisation, τ²-bench telecom) a function ``task -> environment`` giving each task's start. The variations
    and the seed are the frozen ones either way.

    >>> blind_probes.__name__
    'blind_probes'
    """
    pool: dict[str, list[Any]] = {}
    for task in tasks:
        for call in task.get("actions", []):
            for name, value in call["kwargs"].items():
                if value not in pool.setdefault(name, []):
                    pool[name].append(_copy(value))
    out: list[Transition] = []
    for task in tasks:
        start = base if hasattr(base, "copy") else base(task)  # type: ignore[operator]
        out.extend(blind_task_probes(start, tools, task, pool, effect, split=split, seed=seed, budget=budget))
    return out
