"""The telecom vocabularies, built by the shared templates from a declaration of the telecom data model.

No template names a telecom tool: each tool's conditions come from its *arguments* (its JSON schema in
``tools.json``) and from :data:`DATA_MODEL`, which says which table holds which entity, what an entity contains,
which fields are amounts, and which single records (the phone's ``device`` and ``surroundings``) a side holds.

Templates, and where they come from:

unchanged from retail (:mod:`..vocabulary`, imported)
    ``<arg>:type``, ``<arg>:enum``, ``<arg>:len``, ``<arg>:has_<class>`` (free text: ``summary``, ``reason``,
    ``full_name``), and the conjunctions ``<c1>&<c2>`` of two conditions on one argument (retail's ``Pair``);
unchanged from airline (:mod:`..airline.vocabulary`)
    ``<arg>:sign`` (a number argument: −1 / 0 / 1);
the schema family (:mod:`..schema_templates`, on)
    ``<tool>:undeclared_args``, ``<tool>:missing_args``, ``<arg>:jtype``;
retail's entity templates over this data model
    ``<arg>:exists`` (an id or name argument names an entity of its table), ``<arg>:<field>`` (each categorical
    field of that entity, found in the data: scalar fields with at most :data:`MAX_CATEGORIES` distinct values
    that are not identifiers), ``<arg>:<field>#n`` (sizes), ``<a>~<b>:contains`` (b's entity contains a's id);
generic, new with telecom (they apply unchanged to any data model that declares containment or single records)
    ``<arg>:<kind>s.<field>`` (the set of values of a categorical field over the entities the argument's record
    contains: a customer's bill statuses), ``<record>.<field>`` (a categorical field of a side's single record:
    the phone's SIM status, a payment request's presence; which side's records a vocabulary reads is its
    *state scope*, the dual-control ablation).

>>> v = build_vocabulary(TOOLS_EXAMPLE, STATE_EXAMPLE, scope=("crm",), contained=True)  # contained: off by default
>>> r = v.read(STATE_EXAMPLE, "enable_roaming", {"customer_id": "C1", "line_id": "L2"})
>>> r["line_id:exists"], r["line_id~customer_id:contains"], r["customer_id:bills.status"]
(True, False, ('Paid',))
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ....actions import Pair, Vocabulary
from ....errors import BadInput
from ..airline.vocabulary import _t_sign
from ..schema_templates import schema_conditions
from ..vocabulary import CHAR_CLASSES, _bucket, _t_chars, _t_enum, _t_len, _t_type

__all__ = ["DATA_MODEL", "MAX_CATEGORIES", "SCOPES", "build_vocabulary", "declaration_lines", "entity_of_arg"]

MAX_CATEGORIES = 12

# The telecom data model, declared once (the study reports how many lines this takes).
DATA_MODEL: dict[str, dict[str, Any]] = {
    "customer": {"side": "crm", "table": "customers", "contains": {"line": "line_ids", "bill": "bill_ids"}},
    "line": {"side": "crm", "table": "lines", "amounts": ("data_used_gb", "data_refueling_gb")},
    "bill": {"side": "crm", "table": "bills", "owner": "customer_id", "amounts": ("total_due",)},
    "plan": {"side": "crm", "table": "plans", "amounts": ("data_limit_gb", "data_refueling_price_per_gb")},
    "app": {"side": "phone", "inside": ("device", "app_statuses")},
    "device": {"side": "phone", "record": "device"},
    "surroundings": {"side": "phone", "record": "surroundings"},
}

#: The state scopes of the dual-control ablation: which side's database a vocabulary may read.
SCOPES: dict[str, tuple[str, ...]] = {"none": (), "crm": ("crm",), "phone": ("phone",), "both": ("crm", "phone")}


def declaration_lines() -> int:
    """How many lines of source declare the telecom data model (:data:`DATA_MODEL`)."""
    import inspect

    source = inspect.getsource(__import__(__name__, fromlist=["x"]))
    start = source.index("DATA_MODEL: dict")
    return source[start : source.index("\n}\n", start) + 3].count("\n")  # from "DATA_MODEL" to the closing brace


def entity_of_arg(name: str) -> str | None:
    """The entity type an argument names by the naming rule ``<kind>_id`` / ``<kind>_name``.

    >>> entity_of_arg("line_id"), entity_of_arg("app_name"), entity_of_arg("gb_amount")
    ('line', 'app', None)
    """
    for suffix in ("_id", "_name"):
        if name.endswith(suffix) and name[: -len(suffix)] in DATA_MODEL:
            kind = name[: -len(suffix)]
            if "table" in DATA_MODEL[kind] or "inside" in DATA_MODEL[kind]:
                return kind
    return None


def _records(state: Mapping[str, Any], kind: str) -> dict[Any, Any]:
    spec = DATA_MODEL[kind]
    if "table" in spec:
        return state[spec["table"]]
    if "inside" in spec:
        holder, field = spec["inside"]
        return state[holder][field]
    return {spec["record"]: state[spec["record"]]}


def _lookup(state: Mapping[str, Any], kind: str, ident: Any) -> dict[str, Any]:
    return _records(state, kind)[ident]  # KeyError / TypeError: unreadable


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, bool, int, float)) and not isinstance(value, dict)


def describe(state: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per entity type: categorical fields (at most MAX_CATEGORIES values, not an identifier) and sized fields;
    for single records, their categorical fields one level deep (``active_apn_settings.apn_name``)."""
    out: dict[str, dict[str, Any]] = {}
    for kind, spec in DATA_MODEL.items():
        records = list(_records(state, kind).values())
        values: dict[str, set] = {}
        sizes: dict[str, set] = {}
        for rec in records:
            for field, value in rec.items():
                if isinstance(value, dict) and "record" in spec:
                    for sub, leaf in value.items():
                        if _scalar(leaf):
                            values.setdefault(f"{field}.{sub}", set()).add(repr(leaf))
                    values.setdefault(field, set()).add("present")
                elif isinstance(value, (list, dict)):
                    sizes.setdefault(field, set()).add(_bucket(len(value)))
                elif _scalar(value) and field not in spec.get("amounts", ()):
                    values.setdefault(field, set()).add(repr(value))
        many = len(records) > 1
        # an identifier (a value per record) says nothing a condition can generalise over
        categorical = sorted(
            f for f, vs in values.items() if len(vs) <= MAX_CATEGORIES and not (many and len(vs) == len(records))
        )
        out[kind] = {"categorical": categorical, "sized": sorted(f for f, bs in sizes.items() if len(bs) > 1)}
    return out


def _path(rec: Any, field: str) -> Any:
    for step in field.split("."):
        rec = rec[step] if isinstance(rec, dict) else getattr(rec, step)
    if isinstance(rec, dict):
        return "present"
    return rec


def _t_exists(arg: str, kind: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    def exists(s: Any, a: Mapping[str, Any]) -> bool:
        try:
            _lookup(s, kind, a[arg])
        except (KeyError, TypeError):
            return False
        return True

    return exists


def _t_field(arg: str, kind: str, field: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    return lambda s, a: _lookup(s, kind, a[arg])[field]


def _t_size(arg: str, kind: str, field: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    return lambda s, a: _bucket(len(_lookup(s, kind, a[arg])[field]))


def _t_contains(a_arg: str, b_arg: str, b_kind: str, field: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    return lambda s, a: a[a_arg] in _lookup(s, b_kind, a[b_arg])[field]


def _t_contained_values(arg: str, kind: str, field: str, sub_kind: str, sub_field: str) -> Callable[..., Any]:
    def values(s: Any, a: Mapping[str, Any]) -> tuple[Any, ...]:
        ids = _lookup(s, kind, a[arg])[field]
        return tuple(sorted({_lookup(s, sub_kind, i).get(sub_field) for i in ids}, key=repr))

    return values


def _t_record(kind: str, field: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    record = DATA_MODEL[kind]["record"]
    return lambda s, a: _path(s[record], field)


def build_vocabulary(
    tools: Sequence[Mapping[str, Any]],
    state: Mapping[str, Any],
    *,
    scope: tuple[str, ...] = ("crm", "phone"),
    pairs: bool = True,
    schema_family: bool = True,
    contained: bool = False,
    other_tools: Sequence[str] = (),
) -> Vocabulary:
    """The vocabulary of one side's tools over the state view (:func:`.probes.state_view`).

    scope: the databases whose records the conditions may read (``("crm",)``, ``("phone",)``, both, or none:
        arguments and schema only). contained: the contained-values template (``<arg>:<kind>s.<field>``); off by
        default: ablated on all three domains it gave the same precision and false accepts with more abstentions, so
        the project's rule (precision first, then abstention) leaves it out; ``True`` is its ablation. other_tools: names the side does not hold (the other side's tools, probed as unknown names):
        they get no condition.
    """
    if not tools:
        raise BadInput("build_vocabulary: tools must be a non-empty list of tool schemas (tools.json).")
    for side in scope:
        if side not in ("crm", "phone"):
            raise BadInput(f"build_vocabulary: scope holds {side!r}; use 'crm' and/or 'phone'.")
    info = describe(state)
    predicates: dict[str, Any] = {}
    only: dict[str, list[str]] = {}
    records = [k for k, spec in DATA_MODEL.items() if "record" in spec and spec["side"] in scope]
    for tool in tools:
        fn = tool.get("function", tool)
        name = fn["name"]
        params = fn.get("parameters", {}) or {}
        props: dict[str, Any] = params.get("properties", {}) or {}
        own: dict[str, Any] = {}
        per_arg: dict[str, list[str]] = {}

        def add(cond: str, pred: Any, *args: str, _own: dict = own, _per: dict = per_arg) -> None:
            _own[cond] = pred
            for arg in args:
                _per.setdefault(arg, []).append(cond)

        typed = {arg: entity_of_arg(arg) for arg in props}
        for arg, schema in sorted(props.items()):
            add(f"{arg}:type", _t_type(arg, schema), arg)
            if "enum" in schema:
                add(f"{arg}:enum", _t_enum(arg, tuple(schema["enum"])), arg)
            if schema.get("type") == "array":
                add(f"{arg}:len", _t_len(arg), arg)
            if schema.get("type") in ("number", "integer"):
                add(f"{arg}:sign", _t_sign(arg), arg)
            kind = typed[arg]
            if kind is None:
                if schema.get("type") == "string" and "enum" not in schema:
                    for label, major in CHAR_CLASSES.items():
                        add(f"{arg}:has_{label}", _t_chars(arg, major), arg)
                continue
            if DATA_MODEL[kind]["side"] not in scope:
                continue
            add(f"{arg}:exists", _t_exists(arg, kind), arg)
            for field in info[kind]["categorical"]:
                add(f"{arg}:{field}", _t_field(arg, kind, field), arg)
            for field in info[kind]["sized"]:
                add(f"{arg}:{field}#n", _t_size(arg, kind, field), arg)
            for sub_kind, field in (DATA_MODEL[kind].get("contains", {}) if contained else {}).items():
                for sub_field in info[sub_kind]["categorical"]:
                    add(
                        f"{arg}:{sub_kind}s.{sub_field}",
                        _t_contained_values(arg, kind, field, sub_kind, sub_field),
                        arg,
                    )
        for a_arg, b_arg in itertools.permutations(sorted(props), 2):
            ka, kb = typed[a_arg], typed[b_arg]
            if ka and kb and DATA_MODEL[kb]["side"] in scope and ka in DATA_MODEL[kb].get("contains", {}):
                field = DATA_MODEL[kb]["contains"][ka]
                add(f"{a_arg}~{b_arg}:contains", _t_contains(a_arg, b_arg, kb, field), a_arg, b_arg)
        for kind in records:
            for field in info[kind]["categorical"]:
                own[f"{DATA_MODEL[kind]['record']}.{field}"] = _t_record(kind, field)
        if pairs:
            for _arg, conds in sorted(per_arg.items()):
                usable = sorted(c for c in set(conds) if not c.endswith(":type") and ":has_" not in c)
                for c1, c2 in itertools.combinations(usable, 2):
                    own[f"{c1}&{c2}"] = Pair(c1, c2)
        if schema_family:
            own.update(schema_conditions(name, props, params.get("required", []) or []))
        predicates.update(own)
        only[name] = sorted(own)
    for name in other_tools:
        only.setdefault(name, [])
    return Vocabulary(predicates, hard=set(), only=only)


TOOLS_EXAMPLE = [
    {
        "name": "enable_roaming",
        "parameters": {
            "properties": {"customer_id": {"type": "string"}, "line_id": {"type": "string"}},
            "required": ["customer_id", "line_id"],
        },
    }
]
STATE_EXAMPLE = {
    "customers": {"C1": {"customer_id": "C1", "line_ids": ["L1"], "bill_ids": ["B1"]}},
    "lines": {"L1": {"line_id": "L1", "status": "Active"}, "L2": {"line_id": "L2", "status": "Suspended"}},
    "bills": {"B1": {"bill_id": "B1", "status": "Paid"}},
    "plans": {},
    "device": {"app_statuses": {}},
    "surroundings": {"line_active": True},
}
