"""An airline vocabulary built the way retail's is: templates over the tools' argument schemas and the records the
arguments name, never a condition written for one tool.

Which templates carry over from retail (:mod:`solvi_lab.studies.taubench.vocabulary`) and how
(:data:`TEMPLATE_ORIGIN`):

unchanged (retail's own functions, imported)
    ``<arg>:type``, ``<arg>:enum``, ``<arg>:len``, ``<arg>:has_<class>`` (free text), ``<a>~<b>:samelen`` (two list
    arguments), and the conjunctions ``<c1>&<c2>`` of two conditions on one argument.
same template, airline data model (:data:`DATA_MODEL` declared here instead of retail's)
    ``<arg>:exists``, ``<arg>:<field>`` (declared categorical fields: reservation cabin, flight type, insurance,
    status; user membership; payment-method kind), ``<arg>:<field>#n`` (sizes, bucketed 0 / 1 / 2+),
    ``<a>~<b>:owner`` (the payment method is the reservation owner's), ``<args>:match:flight`` (a flight with these
    origin and destination exists), ``<p>:covers(<amount>)`` and ``sign(<amount>)`` (money).
new for airline
    flight segments (a list of ``{flight_number, date}``): ``flights:status`` (the set of statuses of the segments
    the reservation does not already hold — ``no flight`` / ``no date`` when absent), ``flights:seats`` (each such
    segment has seats in the cabin for every traveller), ``flights:held`` (none / some / all already held),
    ``<arg>:when`` (dates relative to the fixed now 2024-05-15: past / today / future / not a date);
    ``<arg>~<record>:cmp`` (an argument against the same-named field of the record the call names: equal, or for
    numbers and lists less / same / more); ``<arg>:sign`` (numbers); payment lists: ``payment_methods:owned``,
    ``:kinds``, ``:each_covers``, ``:repeats``, ``:adds_up`` (the entries sum to the price the call defines).

Amounts (money family) come from prices in the data plus the two fees the policy states (50 per non-free bag,
30 per traveller for insurance, :data:`FEES`): a booking's price, a flight change's fare difference, a bag fee.

>>> v = build_vocabulary(TOOLS_EXAMPLE)
>>> r = v.read(STATE_EXAMPLE, "cancel_reservation", {"reservation_id": "R1"})
>>> r["reservation_id:exists"], r["reservation_id:cabin"], r["reservation_id:when"]
(True, 'economy', ('future',))
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from ....actions import Pair, Vocabulary
from ....errors import BadInput
from ..reading_templates import list_conditions, parsed_by_tool, parser_of, shape_conditions, walk_as_tool
from ..schema_templates import schema_conditions
from ..vocabulary import CHAR_CLASSES, _as_list, _bucket, _t_chars, _t_enum, _t_len, _t_samelen, _t_type
from .tools import TOOLS_BY_NAME

__all__ = ["DATA_MODEL", "FEES", "NOW_DATE", "TEMPLATE_ORIGIN", "build_vocabulary", "template_of"]

NOW_DATE = "2024-05-15"
#: Fees stated by the airline policy (policy.md): per non-free bag, per traveller for travel insurance.
FEES = {"bag": 50, "insurance": 30}

# Where each entity lives, its declared categorical and sized fields, who owns it, which field is a balance.
DATA_MODEL: dict[str, dict[str, Any]] = {
    "reservation": {
        "table": "reservations",
        "owner": "user_id",
        "categorical": ("cabin", "flight_type", "insurance", "status"),
        "sized": ("flights", "passengers", "payment_history"),
    },
    "user": {"table": "users", "categorical": ("membership",), "sized": ("payment_methods", "reservations")},
    # a payment method is looked up among the methods of the call's user: the reservation's owner, else user_id
    "payment": {"inside": ("users", "payment_methods"), "categorical": ("source",), "balance": "amount"},
}

#: template → how it relates to retail's vocabulary.
TEMPLATE_ORIGIN: dict[str, str] = {
    "type": "unchanged",
    "enum": "unchanged",
    "len": "unchanged",
    "has": "unchanged",
    "samelen": "unchanged",
    "conj": "unchanged",
    "schema": "unchanged",  # schema_templates.py: one module for every domain
    "shape": "unchanged",  # reading_templates.py (issue 43), likewise
    "iterates": "unchanged",
    "exists": "same template, airline data model",
    "field": "same template, airline data model",
    "size": "same template, airline data model",
    "owner": "same template, airline data model",
    "match": "same template, airline data model",
    "covers": "same template, airline data model",
    "sign(amount)": "same template, airline data model",
    "segments": "new",
    "when": "new",
    "cmp": "new",
    "sign": "new",
    "entries": "new",
    "adds_up": "new",
}


def entity_of_arg(name: str) -> str | None:
    """The entity an argument names: ``reservation_id`` → ``reservation``, ``payment_id`` → ``payment``.

    >>> entity_of_arg("payment_id"), entity_of_arg("user_id"), entity_of_arg("cabin")
    ('payment', 'user', None)
    """
    if name.endswith("_id") and name[:-3] in DATA_MODEL:
        return name[:-3]
    return None


# ---------------------------------------------------------------------------------------------------------------
# reading records (KeyError / TypeError read as UNREADABLE)
# ---------------------------------------------------------------------------------------------------------------


def _caller(s: Mapping[str, Any], a: Mapping[str, Any]) -> Any:
    """The user a call acts for: the owner of its reservation, else its user_id."""
    if "reservation_id" in a:
        return s["reservations"][a["reservation_id"]]["user_id"]
    return a["user_id"]


def _lookup(s: Mapping[str, Any], kind: str, a: Mapping[str, Any], arg: str) -> dict[str, Any]:
    spec = DATA_MODEL[kind]
    if "table" in spec:
        return s[spec["table"]][a[arg]]
    table, field = spec["inside"]
    return s[table][_caller(s, a)][field][a[arg]]


def _exists(kind: str, arg: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    def exists(s: Any, a: Mapping[str, Any]) -> bool:
        try:
            _lookup(s, kind, a, arg)
        except (KeyError, TypeError):
            return False
        return True

    return exists


def _field(kind: str, arg: str, field: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    return lambda s, a: _lookup(s, kind, a, arg).get(field)


def _size(kind: str, arg: str, field: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    return lambda s, a: _bucket(len(_lookup(s, kind, a, arg)[field]))


def _owner(kind: str, arg: str, other: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    """The entity named by ``arg`` belongs to the user that ``other`` names (or owns)."""
    table, field = DATA_MODEL[kind]["inside"]

    def owned(s: Any, a: Mapping[str, Any]) -> bool:
        return a[arg] in s[table][_caller(s, {other: a[other]})][field]

    return owned


def _when(day: Any) -> str:
    if type(day) is not str or len(day) != 10 or day[4] != "-" or day[7] != "-":
        return "not a date"
    return "past" if day < NOW_DATE else "today" if day == NOW_DATE else "future"


def _t_when(arg: str, many: bool = False) -> Callable[[Any, Mapping[str, Any]], Any]:
    def when(s: Any, a: Mapping[str, Any]) -> Any:
        value = a[arg]
        if many or isinstance(value, list):  # flight segments, walked as the tool's loop walks them (issue 43)
            return tuple(sorted({_when(seg["date"]) for seg in walk_as_tool(value)}))
        return _when(value)

    return when


def _record_when(kind: str, arg: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    return lambda s, a: tuple(sorted({_when(f["date"]) for f in _lookup(s, kind, a, arg)["flights"]}))


def _t_sign(arg: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    def sign(s: Any, a: Mapping[str, Any]) -> int:
        x = a[arg]
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise TypeError("not a number")
        return (x > 0) - (x < 0)

    return sign


def _t_cmp(arg: str, kind: str, rec_arg: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    """The argument against the record's field of the same name: equal, or (numbers, lists) -1 / 0 / 1."""

    def cmp(s: Any, a: Mapping[str, Any]) -> Any:
        mine, theirs = a[arg], _lookup(s, kind, a, rec_arg)[arg]
        if isinstance(theirs, list) and isinstance(mine, (list, str, Mapping)):  # lengths as a loop counts them
            mine, theirs = len(walk_as_tool(mine)), len(theirs)
        if isinstance(mine, (int, float)) and isinstance(theirs, (int, float)) and not isinstance(mine, bool):
            return (mine > theirs) - (mine < theirs)
        return mine == theirs

    return cmp


def _t_match(fields: tuple[str, ...]) -> Callable[[Any, Mapping[str, Any]], Any]:
    def match(s: Any, a: Mapping[str, Any]) -> bool:
        wanted = [(f, a[f]) for f in fields]
        return any(all(rec.get(f) == v for f, v in wanted) for rec in s["flights"].values())

    return match


# flight segments -------------------------------------------------------------------------------------------------


def _travellers(s: Any, a: Mapping[str, Any]) -> int:
    """Who flies: the call's passengers list, else the reservation's passengers."""
    if "passengers" in a and "reservation_id" not in a:
        return len(a["passengers"])
    return len(s["reservations"][a["reservation_id"]]["passengers"])


def _held(s: Any, a: Mapping[str, Any], seg: Mapping[str, Any]) -> bool:
    """The call's reservation already holds this segment, in the call's cabin (so it keeps its price)."""
    if "reservation_id" not in a:
        return False
    res = s["reservations"].get(a["reservation_id"]) if isinstance(a["reservation_id"], str) else None
    if res is None or a.get("cabin") != res["cabin"]:
        return False
    return any(f["flight_number"] == seg["flight_number"] and f["date"] == seg["date"] for f in res["flights"])


def _day(s: Any, seg: Mapping[str, Any]) -> dict[str, Any] | str:
    flight = s["flights"].get(seg["flight_number"])
    if flight is None:
        return "no flight"
    day = flight["dates"].get(seg["date"])
    return "no date" if day is None else day


def _new_segments(s: Any, a: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    segs = walk_as_tool(a["flights"])  # as the tool's loop walks them: "" and {} walk nothing (issue 43)
    return [seg for seg in segs if not _held(s, a, seg)]


def _seg_status(s: Any, a: Mapping[str, Any]) -> tuple[str, ...]:
    out = set()
    for seg in _new_segments(s, a):
        day = _day(s, seg)
        out.add(day if isinstance(day, str) else day["status"])
    return tuple(sorted(out))


def _seg_seats(s: Any, a: Mapping[str, Any]) -> bool:
    n = _travellers(s, a)
    ok = True
    for seg in _new_segments(s, a):
        day = _day(s, seg)
        if isinstance(day, dict) and day["status"] == "available":
            ok = ok and day["available_seats"][a["cabin"]] >= n
    return ok


def _seg_held(s: Any, a: Mapping[str, Any]) -> str:
    segs = a["flights"]
    if not isinstance(segs, list) or not segs:
        return "empty"
    held = sum(_held(s, a, seg) for seg in segs)
    return "none" if held == 0 else "all" if held == len(segs) else "some"


# money -------------------------------------------------------------------------------------------------------


def _fare(s: Any, a: Mapping[str, Any], seg: Mapping[str, Any]) -> Any:
    if _held(s, a, seg):
        res = s["reservations"][a["reservation_id"]]
        return next(
            f["price"]
            for f in res["flights"]
            if f["flight_number"] == seg["flight_number"] and f["date"] == seg["date"]
        )
    day = _day(s, seg)
    if isinstance(day, str):
        raise KeyError(day)
    return day["prices"][a["cabin"]]


def _a_fare_change(s: Any, a: Mapping[str, Any]) -> Any:
    """New fares minus the reservation's current fares, times its travellers."""
    n = _travellers(s, a)
    new = sum(_fare(s, a, seg) for seg in a["flights"])
    old = sum(f["price"] for f in s["reservations"][a["reservation_id"]]["flights"])
    return (new - old) * n


def _a_booking(s: Any, a: Mapping[str, Any]) -> Any:
    """A booking's price: fares × travellers, insurance per traveller, non-free bags."""
    n = _travellers(s, a)
    total = sum(_fare(s, a, seg) for seg in a["flights"]) * n
    if a["insurance"] == "yes":
        total += FEES["insurance"] * n
    return total + FEES["bag"] * a["nonfree_baggages"]


def _a_bag_fee(s: Any, a: Mapping[str, Any]) -> Any:
    return FEES["bag"] * max(0, a["nonfree_baggages"] - s["reservations"][a["reservation_id"]]["nonfree_baggages"])


def _t_covers(arg: str, amount: Callable[[Any, Mapping[str, Any]], Any]) -> Callable[[Any, Mapping[str, Any]], Any]:
    field = DATA_MODEL["payment"]["balance"]
    return lambda s, a: _lookup(s, "payment", a, arg)[field] >= amount(s, a)  # a credit card: unreadable


def _t_amount_sign(amount: Callable[[Any, Mapping[str, Any]], Any]) -> Callable[[Any, Mapping[str, Any]], Any]:
    def sign(s: Any, a: Mapping[str, Any]) -> int:
        x = amount(s, a)
        return (x > 0) - (x < 0)

    return sign


# payment lists -----------------------------------------------------------------------------------------------


def _entries(a: Mapping[str, Any], arg: str) -> list[tuple[Any, Any]]:
    return [(e["payment_id"], e["amount"]) for e in walk_as_tool(a[arg])]  # as the tool's loop walks it


def _methods(s: Any, a: Mapping[str, Any]) -> dict[str, Any]:
    return s["users"][_caller(s, a)]["payment_methods"]


def _e_owned(arg: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    return lambda s, a: all(pid in _methods(s, a) for pid, _ in _entries(a, arg))


def _e_kinds(arg: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    def kinds(s: Any, a: Mapping[str, Any]) -> tuple[str, ...]:
        methods = _methods(s, a)
        return tuple(sorted({methods[pid]["source"] if pid in methods else "unknown" for pid, _ in _entries(a, arg)}))

    return kinds


def _e_covers(arg: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    field = DATA_MODEL["payment"]["balance"]

    def covers(s: Any, a: Mapping[str, Any]) -> bool:
        methods = _methods(s, a)
        return all(
            field not in methods[pid] or methods[pid][field] >= x for pid, x in _entries(a, arg) if pid in methods
        )

    return covers


def _e_repeats(arg: str) -> Callable[[Any, Mapping[str, Any]], Any]:
    def repeats(s: Any, a: Mapping[str, Any]) -> bool:
        ids = [pid for pid, _ in _entries(a, arg)]
        return len(set(ids)) != len(ids)

    return repeats


def _e_adds_up(arg: str, amount: Callable[[Any, Mapping[str, Any]], Any]) -> Callable[[Any, Mapping[str, Any]], Any]:
    def adds_up(s: Any, a: Mapping[str, Any]) -> int:
        paid = sum(x for _, x in _entries(a, arg))
        due = amount(s, a)
        return (paid > due) - (paid < due)

    return adds_up


# ---------------------------------------------------------------------------------------------------------------
# the vocabulary
# ---------------------------------------------------------------------------------------------------------------

_TEMPLATES: dict[str, str] = {}  # condition name → template, filled by build_vocabulary


def template_of(condition: str) -> str:
    """The template a condition came from (a key of :data:`TEMPLATE_ORIGIN`); names are recorded as vocabularies are
    built, and a name always comes from the same template."""
    return _TEMPLATES[condition]


def build_vocabulary(
    tools: list[Mapping[str, Any]],
    pairs: bool = True,
    money: bool = True,
    schema_family: bool = True,
    shapes: bool = True,
    lists: bool = True,
) -> Vocabulary:
    """The airline vocabulary for the tools' schemas (``tools.json``); ``pairs``/``money`` switch those families.

    Conditions come from the arguments a schema declares: id arguments name entities of :data:`DATA_MODEL`,
    ``flights`` lists of segments, ``payment_methods`` lists of payment entries, numbers, enums, dates, text.
    schema_family: the schema family (:mod:`..schema_templates`, template "schema"); on by default, as retail's
    (docs/readme/actions.md, "Defaults"); ``False`` is its ablation.
    shapes, lists: the issue-43 families of :mod:`..reading_templates` (templates "shape" and "iterates"): the shape
    of a free-text argument the tool parses (its schema gives an example or a format: the expression, the date),
    and a list argument as a loop walks it; each ``False`` is its ablation. (The money amounts here are already
    the environment's arithmetic, unrounded: fares times travellers, the policy's fees.)
    """
    if not isinstance(tools, list) or not tools:
        raise BadInput("build_vocabulary: tools must be a non-empty list of tool schemas (tools.json).")
    predicates: dict[str, Any] = {}
    only: dict[str, list[str]] = {}
    walk = walk_as_tool if lists else _as_list  # list arguments as the tool's loop reads them (lists family)
    for tool in tools:
        fn = tool.get("function", tool)
        name = fn.get("name")
        if not isinstance(name, str):
            raise BadInput(f"build_vocabulary: a tool schema has no name: {str(tool)[:80]}")
        props: dict[str, Any] = (fn.get("parameters") or {}).get("properties") or {}
        own: dict[str, Any] = {}
        per_arg: dict[str, list[str]] = {}

        def add(cond: str, template: str, pred: Any, *args: str, _own: dict = own, _per: dict = per_arg) -> None:
            _own[cond] = pred
            _TEMPLATES[cond] = template
            for arg in args:
                _per.setdefault(arg, []).append(cond)

        entities = {arg: entity_of_arg(arg) for arg in props}
        records = [arg for arg, kind in entities.items() if kind is not None and "table" in DATA_MODEL[kind]]
        for arg, schema in sorted(props.items()):
            add(f"{arg}:type", "type", _t_type(arg, schema, walk_as_tool if lists else None), arg)
            if "enum" in schema:
                add(f"{arg}:enum", "enum", _t_enum(arg, tuple(schema["enum"])), arg)
            kind = entities[arg]
            if kind is not None:
                add(f"{arg}:exists", "exists", _exists(kind, arg), arg)
                for field in DATA_MODEL[kind]["categorical"]:
                    add(f"{arg}:{field}", "field", _field(kind, arg, field), arg)
                for field in DATA_MODEL[kind].get("sized", ()):
                    add(f"{arg}:{field}#n", "size", _size(kind, arg, field), arg)
                if kind == "reservation":
                    add(f"{arg}:when", "when", _record_when(kind, arg), arg)
                continue
            kind_of_items = (schema.get("items") or {}).get("type")
            if schema.get("type") == "array":
                add(f"{arg}:len", "len", _t_len(arg, walk), arg)
                if arg == "flights" and kind_of_items == "object":
                    add(f"{arg}:status", "segments", _seg_status, arg)
                    add(f"{arg}:when", "when", _t_when(arg, many=True), arg)
                    if "cabin" in props:
                        add(f"{arg}:seats", "segments", _seg_seats, arg)
                    if "reservation_id" in props:
                        add(f"{arg}:held", "segments", _seg_held, arg)
                if arg == "payment_methods" and kind_of_items == "object":
                    add(f"{arg}:owned", "entries", _e_owned(arg), arg)
                    add(f"{arg}:kinds", "entries", _e_kinds(arg), arg)
                    add(f"{arg}:repeats", "entries", _e_repeats(arg), arg)
                    if money:
                        add(f"{arg}:each_covers", "covers", _e_covers(arg), arg)
            elif schema.get("type") in ("integer", "number"):
                add(f"{arg}:sign", "sign", _t_sign(arg), arg)
            elif schema.get("type") == "string" and "enum" not in schema:
                if arg == "date":
                    add(f"{arg}:when", "when", _t_when(arg), arg)
                elif arg not in ("origin", "destination") and not (
                    shapes and parsed_by_tool(schema) and parser_of(TOOLS_BY_NAME.get(name), arg) is not None
                ):  # a text the tool's own parser reads (shapes family) is read by the parser, not by its characters
                    for label, major in CHAR_CLASSES.items():
                        add(f"{arg}:has_{label}", "has", _t_chars(arg, major), arg)
        places = tuple(arg for arg in ("origin", "destination") if arg in props)
        if places:
            add(f"{'+'.join(places)}:match:flight", "match", _t_match(places), *places)
        if pairs:
            untyped_lists = sorted(a for a, s in props.items() if s.get("type") == "array")
            for a_arg, b_arg in itertools.combinations(untyped_lists, 2):
                add(f"{a_arg}~{b_arg}:samelen", "samelen", _t_samelen(a_arg, b_arg, walk), a_arg, b_arg)
            for arg, kind in sorted(entities.items()):
                if kind is not None and "inside" in DATA_MODEL[kind]:
                    for other in records:
                        add(f"{arg}~{other}:owner", "owner", _owner(kind, arg, other), arg, other)
            for rec_arg in records:
                kind = entities[rec_arg]
                for arg in sorted(props):
                    if (
                        arg != rec_arg
                        and entities[arg] is None
                        and kind == "reservation"
                        and arg in _RESERVATION_FIELDS
                    ):
                        add(f"{arg}~{rec_arg}:cmp", "cmp", _t_cmp(arg, kind, rec_arg), arg, rec_arg)
            for _arg, conds in sorted(per_arg.items()):
                usable = sorted(c for c in set(conds) if not c.endswith(":type"))
                for c1, c2 in itertools.combinations(usable, 2):
                    own[f"{c1}&{c2}"] = Pair(c1, c2)
                    _TEMPLATES[f"{c1}&{c2}"] = "conj"
        if money:
            amounts: dict[str, Any] = {}
            if "flights" in props and "reservation_id" in props and "cabin" in props:
                amounts["fare_change"] = _a_fare_change
            if "flights" in props and "payment_methods" in props and "insurance" in props:
                amounts["booking_price"] = _a_booking
            if "nonfree_baggages" in props and "reservation_id" in props:
                amounts["bag_fee"] = _a_bag_fee
            for label, amount in sorted(amounts.items()):
                add(f"sign({label})", "sign(amount)", _t_amount_sign(amount))
                for arg, kind in sorted(entities.items()):
                    if kind is not None and "balance" in DATA_MODEL[kind]:
                        add(f"{arg}:covers({label})", "covers", _t_covers(arg, amount), arg)
                if "payment_methods" in props:
                    add(f"payment_methods:adds_up({label})", "adds_up", _e_adds_up("payment_methods", amount))
        if shapes:
            for arg, schema in sorted(props.items()):
                if (
                    entities[arg] is None
                    and schema.get("type") == "string"
                    and "enum" not in schema
                    and arg not in ("origin", "destination")  # airports: the match template reads them
                    and parsed_by_tool(schema)
                ):
                    for cond, pred in shape_conditions(arg, parser_of(TOOLS_BY_NAME.get(name), arg)).items():
                        add(cond, "shape", pred, arg)
        if lists:
            for arg, schema in sorted(props.items()):
                if schema.get("type") == "array":
                    for cond, pred in list_conditions(arg).items():
                        add(cond, "iterates", pred, arg)
        if schema_family:
            required = (fn.get("parameters") or {}).get("required") or []
            for cond, pred in schema_conditions(name, props, required).items():
                add(cond, "schema", pred)
        predicates.update(own)
        only[name] = sorted(own)
    return Vocabulary(predicates, hard=set(), only=only)


# the reservation fields a same-named argument can be compared with
_RESERVATION_FIELDS = (
    "cabin",
    "flight_type",
    "insurance",
    "total_baggages",
    "nonfree_baggages",
    "passengers",
    "flights",
)


# ---------------------------------------------------------------------------------------------------------------
# tiny examples for the docstrings
# ---------------------------------------------------------------------------------------------------------------

TOOLS_EXAMPLE = [{"name": "cancel_reservation", "parameters": {"properties": {"reservation_id": {"type": "string"}}}}]
STATE_EXAMPLE = {
    "reservations": {
        "R1": {
            "user_id": "u",
            "cabin": "economy",
            "flight_type": "one_way",
            "insurance": "no",
            "flights": [{"flight_number": "HAT001", "date": "2024-05-20", "price": 100}],
            "passengers": [{}],
            "payment_history": [],
        }
    },
    "users": {"u": {"membership": "gold", "payment_methods": {}, "reservations": ["R1"]}},
    "flights": {},
}
