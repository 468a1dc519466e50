"""A τ-bench retail vocabulary built from generic templates over the tools' JSON schemas and the data model.

Nothing here names a tool. Each tool's conditions come from its *arguments* (as its JSON schema declares them)
and from a small description of the data model (:data:`DATA_MODEL`: which tables hold which entity types, who
owns what, what contains what, which field is a balance or a price). The templates, by family:

base (always on)
    ``<arg>:exists`` (the entity an id argument names exists; for a list: every element does),
    ``<arg>:<field>`` (each categorical field of that entity — found in the data: scalar fields with at most
    :data:`MAX_CATEGORIES` distinct values — for a list the sorted set of values), ``<arg>:<field>#n`` (the size,
    bucketed 0 / 1 / 2+, of each list or dict field of the entity), ``<arg>:len`` (a list argument's length,
    bucketed), ``<arg>:enum`` (membership in the schema's enum), ``<arg>:type`` (the schema's JSON type holds),
    ``<args>:match`` (string arguments that name fields of an entity type, e.g. ``email``, ``zip``: does one
    record of that type carry all these values, compared case-insensitively), ``<arg>:has_<class>`` (free text:
    whether it holds letters, digits, punctuation, symbols, spaces, other characters; with the shapes family on,
    not for a text the tool declares it parses: the parser's own reading replaces them).
pairs (``pairs=True``)
    relations of two arguments: ``<a>~<b>:contains`` (b's entity contains a's ids, as a multiset), ``:owner``
    (same owning user), ``:cited`` (a's id occurs in b's record), ``:parent`` (position by position, same
    parent entity: item → product), ``:samelen`` (two list arguments of equal length); and conjunctions
    ``<c1>&<c2>``: the pair of values of two base/relation conditions on one argument.
money (``money=True``)
    for an argument with a balance (a gift card): ``<p>:covers(<amount>)`` (balance ≥ amount) for each amount
    the call defines — the price difference of two item lists (new − old, old prices from the order when it
    holds them), an order's total, an item list's sum; and ``sign(<amount>)`` (−1 / 0 / 1). With ``exact_money``
    (the default) the amounts are the environment's own arithmetic, unrounded — the price difference by the tools'
    own function (``tools._price_difference``), the order's amount as its payment records hold it (``paid``) —
    and ``covers(cents(<amount>))`` compares the amount rounded to cents as well (a tool may round first); without
    it, the amounts rounded to cents (issue 43: a balance a cent on either side of a price difference).
shapes (``shapes=True``), lists (``lists=True``)
    what a tool reads in a free-text argument it parses and in a list argument (:mod:`.reading_templates`).

>>> v = build_vocabulary(TOOLS_EXAMPLE, STATE_EXAMPLE)
>>> v.read(STATE_EXAMPLE, "cancel", {"order_id": "#W1", "reason": "oops"})["reason:enum"]
False
>>> [c for c in v.conditions("cancel") if "&" not in c]  # in this tiny example user_id has few values: categorical
['cancel:missing_args', 'cancel:undeclared_args', 'order_id:exists', 'order_id:jtype', 'order_id:status', 'order_id:type', 'order_id:user_id', 'reason:enum', 'reason:jtype', 'reason:type', 'sign(paid(order_id))', 'sign(total(order_id))']
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from ...actions import Pair, Vocabulary
from ...errors import BadInput
from .reading_templates import list_conditions, parsed_by_tool, parser_of, shape_conditions, walk_as_tool
from .schema_templates import schema_conditions
from .tools import TOOLS_BY_NAME, _price_difference

__all__ = ["DATA_MODEL", "MAX_CATEGORIES", "build_vocabulary", "entity_of_arg", "describe_entities"]

#: A scalar field is categorical when the data shows at most this many distinct values for it.
MAX_CATEGORIES = 12

# The data model, declared once: where each entity type lives and how entities relate. Argument names map
# to entity types by a naming rule (entity_of_arg), never by tool.
DATA_MODEL: dict[str, dict[str, Any]] = {
    "order": {"table": "orders", "owner": "user_id", "contains": {"item": ("items", "item_id")}},
    "user": {"table": "users", "contains": {"payment_method": ("payment_methods", None), "order": ("orders", None)}},
    "product": {"table": "products", "contains": {"item": ("variants", None)}},
    # stored inside another table: items are a product's variants, payment methods a user's
    "item": {"inside": ("products", "variants"), "parent": "product", "price": "price"},
    "payment_method": {"inside": ("users", "payment_methods"), "balance": "balance"},
}


def entity_of_arg(name: str) -> tuple[str, bool] | None:
    """The entity type an argument names, and whether it is a list: ``new_item_ids`` → ``("item", True)``.

    >>> entity_of_arg("payment_method_id"), entity_of_arg("new_item_ids"), entity_of_arg("reason")
    (('payment_method', False), ('item', True), None)
    """
    base = name[4:] if name.startswith("new_") else name
    for suffix, many in (("_ids", True), ("_id", False)):
        if base.endswith(suffix) and base[: -len(suffix)] in DATA_MODEL:
            return base[: -len(suffix)], many
    return None


# ---------------------------------------------------------------------------------------------------------------
# reading entities on a state (module-level helpers: the vocabulary fingerprint hashes them too)
# ---------------------------------------------------------------------------------------------------------------

_INDEX_CACHE: dict[tuple[int, str], tuple[Any, dict[str, str]]] = {}


def _index(state: Mapping[str, Any], kind: str) -> dict[str, str]:
    """id of a nested entity → id of the record holding it (item → product, payment method → user).

    Cached per table object (the cache keeps the table alive, so an id is never reused): states of one
    probe run share their tables' identity until a copy, and the holder of a nested entity never changes.
    """
    table_name, field = DATA_MODEL[kind]["inside"]
    table = state[table_name]
    key = (id(table), kind)
    hit = _INDEX_CACHE.get(key)
    if hit is not None and hit[0] is table and len(hit[1]) >= 0:
        return hit[1]
    index = {child: holder for holder, rec in table.items() for child in rec[field]}
    if len(_INDEX_CACHE) > 256:  # bounded: a long run copies many tables
        _INDEX_CACHE.clear()
    _INDEX_CACHE[key] = (table, index)
    return index


def _lookup(state: Mapping[str, Any], kind: str, ident: Any) -> dict[str, Any]:
    """The record of an entity; raises KeyError/TypeError when it does not exist (read as UNREADABLE)."""
    spec = DATA_MODEL[kind]
    if "table" in spec:
        return state[spec["table"]][ident]
    table_name, field = spec["inside"]
    holder = _index(state, kind)[ident]
    return state[table_name][holder][field][ident]


def _exists(state: Mapping[str, Any], kind: str, ident: Any) -> bool:
    try:
        _lookup(state, kind, ident)
    except (KeyError, TypeError):
        return False
    return True


def _owner(state: Mapping[str, Any], kind: str, ident: Any) -> Any:
    spec = DATA_MODEL[kind]
    if kind == "user":
        _lookup(state, kind, ident)
        return ident
    if "owner" in spec:
        return _lookup(state, kind, ident)[spec["owner"]]
    if spec.get("inside", (None,))[0] == "users":
        return _index(state, kind)[ident]
    raise KeyError(kind)  # no owner: unreadable


def _parent(state: Mapping[str, Any], kind: str, ident: Any) -> Any:
    return _index(state, kind)[ident]


def _contained(state: Mapping[str, Any], holder_kind: str, holder: Any, kind: str) -> list[Any]:
    """The ids of `kind` that a holder entity contains (a multiset, as a list)."""
    field, sub = DATA_MODEL[holder_kind]["contains"][kind]
    value = _lookup(state, holder_kind, holder)[field]
    if sub is None:
        return list(value)
    return [element[sub] for element in value]


def _bucket(n: int) -> Any:
    return n if n < 2 else "2+"


def _as_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError("not a list")
    return value


def _price(state: Mapping[str, Any], ident: Any, order: Mapping[str, Any] | None) -> float:
    """An item's price: as the order recorded it when the order holds it, else the catalogue's."""
    if order is not None:
        for line in order["items"]:
            if line["item_id"] == ident:
                return line["price"]
    return _lookup(state, "item", ident)[DATA_MODEL["item"]["price"]]


def _occurs(needle: Any, record: Any) -> bool:
    """Whether a value occurs as a leaf anywhere in a JSON record (iterative: this is a hot path)."""
    stack = [record]
    while stack:
        x = stack.pop()
        kind = type(x)
        if kind is dict:
            stack.extend(x.values())
        elif kind is list:
            stack.extend(x)
        elif x == needle:
            return True
    return False


def _fold(value: Any) -> Any:
    return value.casefold() if type(value) is str else value


# ---------------------------------------------------------------------------------------------------------------
# the data model as the data shows it
# ---------------------------------------------------------------------------------------------------------------


def _records(state: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    spec = DATA_MODEL[kind]
    if "table" in spec:
        return list(state[spec["table"]].values())
    table_name, field = spec["inside"]
    return [child for rec in state[table_name].values() for child in rec[field].values()]


def describe_entities(state: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per entity type: its categorical fields, its list/dict fields, and the paths of its string leaves.

    >>> describe_entities(STATE_EXAMPLE)["order"]["categorical"]  # one order: even user_id looks categorical
    ['status', 'user_id']
    """
    out: dict[str, dict[str, Any]] = {}
    for kind in DATA_MODEL:
        records = _records(state, kind)
        values: dict[str, set] = {}
        sizes: dict[str, set] = {}
        leaves: dict[str, tuple[str, ...]] = {}
        for rec in records:
            for field, value in rec.items():
                if isinstance(value, (list, dict)):
                    sizes.setdefault(field, set()).add(_bucket(len(value)))
                    if isinstance(value, dict):
                        for sub, leaf in value.items():
                            if isinstance(leaf, str):
                                leaves.setdefault(sub, (field, sub))
                elif isinstance(value, (str, bool)):
                    values.setdefault(field, set()).add(value)
                    leaves.setdefault(field, (field,))
        categorical = sorted(f for f, vs in values.items() if len(vs) <= MAX_CATEGORIES)
        # a size that never varies in the data (an address always has six lines) says nothing
        sized = sorted(f for f, bs in sizes.items() if len(bs) > 1)
        out[kind] = {"categorical": categorical, "sized": sized, "leaves": leaves}
    return out


# ---------------------------------------------------------------------------------------------------------------
# templates: each returns {name: predicate}
# ---------------------------------------------------------------------------------------------------------------

Predicate = Callable[[Any, Mapping[str, Any]], Any] | Pair


def _t_exists(arg: str, kind: str, many: bool, walk: Callable[[Any], list[Any]] = _as_list) -> Predicate:
    if many:
        return lambda s, a: all(_exists(s, kind, i) for i in walk(a[arg]))
    return lambda s, a: _exists(s, kind, a[arg])


def _t_field(arg: str, kind: str, many: bool, field: str, walk: Callable[[Any], list[Any]] = _as_list) -> Predicate:
    if many:
        return lambda s, a: tuple(sorted({_lookup(s, kind, i).get(field) for i in walk(a[arg])}, key=repr))
    return lambda s, a: _lookup(s, kind, a[arg])[field]


def _t_size(arg: str, kind: str, field: str) -> Predicate:
    return lambda s, a: _bucket(len(_lookup(s, kind, a[arg])[field]))


def _t_len(arg: str, walk: Callable[[Any], list[Any]] = _as_list) -> Predicate:
    return lambda s, a: _bucket(len(walk(a[arg])))


def _t_enum(arg: str, values: tuple[Any, ...]) -> Predicate:
    return lambda s, a: a[arg] in values


_JSON_TYPES = {"string": str, "array": list, "integer": int, "number": (int, float), "boolean": bool, "object": dict}


def _t_type(arg: str, schema: Mapping[str, Any], walk: Callable[[Any], list[Any]] | None = None) -> Predicate:
    kind = _JSON_TYPES.get(schema.get("type"), object)
    item_kind = _JSON_TYPES.get(schema.get("items", {}).get("type"), object)
    if schema.get("type") == "array" and walk is not None:  # as the tool's loop reads it (lists family)
        return lambda s, a: _walks_to(walk, a[arg], item_kind)
    if schema.get("type") == "array":
        return lambda s, a: isinstance(a[arg], list) and all(isinstance(x, item_kind) for x in a[arg])
    return lambda s, a: isinstance(a[arg], kind) and not isinstance(a[arg], bool)


def _walks_to(walk: Callable[[Any], list[Any]], value: Any, item_kind: Any) -> bool:
    """Whether a loop over the value walks elements of the schema's item type."""
    try:
        return all(isinstance(x, item_kind) for x in walk(value))
    except TypeError:
        return False


#: Character classes of free text (Unicode major categories): letters, digits, punctuation, symbols, spaces, other.
CHAR_CLASSES = {"letters": "L", "digits": "N", "punct": "P", "symbols": "S", "spaces": "Z", "other": "C"}


def _t_chars(arg: str, major: str) -> Predicate:
    import unicodedata

    return lambda s, a: any(unicodedata.category(ch)[0] == major for ch in a[arg])


def _t_match(kind: str, fields: tuple[tuple[str, tuple[str, ...]], ...]) -> Predicate:
    def match(s: Any, a: Mapping[str, Any]) -> bool:
        wanted = [(path, _fold(a[arg])) for arg, path in fields]
        first_path, first_value = wanted[0]
        for rec in _records(s, kind):
            # the first field filters almost every record: compare the rest only on a hit
            if _fold(_leaf(rec, first_path)) == first_value and all(_fold(_leaf(rec, p)) == v for p, v in wanted[1:]):
                return True
        return False

    return match


def _leaf(rec: Any, path: tuple[str, ...]) -> Any:
    try:  # a hot path (a scan of every record): no isinstance against an ABC
        for step in path:
            rec = rec[step]
    except (KeyError, TypeError, IndexError):
        return None
    return rec


def _t_contains(
    a_arg: str, a_kind: str, a_many: bool, b_arg: str, b_kind: str, walk: Callable[[Any], list[Any]] = _as_list
) -> Predicate:
    def contains(s: Any, a: Mapping[str, Any]) -> bool:
        held = _contained(s, b_kind, a[b_arg], a_kind)
        wanted = walk(a[a_arg]) if a_many else [a[a_arg]]
        return all(wanted.count(w) <= held.count(w) for w in wanted)  # a multiset: duplicates must be held twice

    return contains


def _t_owner(a_arg: str, a_kind: str, b_arg: str, b_kind: str) -> Predicate:
    return lambda s, a: _owner(s, a_kind, a[a_arg]) == _owner(s, b_kind, a[b_arg])


def _t_cited(a_arg: str, b_arg: str, b_kind: str) -> Predicate:
    return lambda s, a: _occurs(a[a_arg], _lookup(s, b_kind, a[b_arg]))


def _t_parent(a_arg: str, b_arg: str, kind: str, walk: Callable[[Any], list[Any]] = _as_list) -> Predicate:
    def same(s: Any, a: Mapping[str, Any]) -> bool:
        pairs = zip(walk(a[a_arg]), walk(a[b_arg]))
        return all(_parent(s, kind, x) == _parent(s, kind, y) for x, y in pairs)

    return same


def _t_samelen(a_arg: str, b_arg: str, walk: Callable[[Any], list[Any]] = _as_list) -> Predicate:
    return lambda s, a: len(walk(a[a_arg])) == len(walk(a[b_arg]))


# amounts a call defines (money family)


def _a_diff_env(
    old_arg: str, new_arg: str, order_arg: str, walk: Callable[[Any], list[Any]] = _as_list
) -> Callable[[Any, Mapping[str, Any]], float]:
    """The price difference as the environment computes it (its own function: pairwise, unrounded)."""

    def diff(s: Any, a: Mapping[str, Any]) -> float:
        order = _lookup(s, "order", a[order_arg])
        value = _price_difference(s["products"], order, walk(a[old_arg]), walk(a[new_arg]))
        if isinstance(value, str):  # the environment's error text: no amount to compare
            raise KeyError(value)
        return value

    return diff


def _a_paid(order_arg: str) -> Callable[[Any, Mapping[str, Any]], float]:
    """The amount an order's payment records hold (payments minus refunds, unrounded, in their order)."""

    def paid(s: Any, a: Mapping[str, Any]) -> float:
        total: Any = 0
        for entry in _lookup(s, "order", a[order_arg])["payment_history"]:
            total += entry["amount"] if entry["transaction_type"] == "payment" else -entry["amount"]
        return total

    return paid


def _a_cents(amount: Callable[[Any, Mapping[str, Any]], float]) -> Callable[[Any, Mapping[str, Any]], float]:
    return lambda s, a: round(amount(s, a), 2)


def _a_diff(old_arg: str, new_arg: str, order_arg: str | None) -> Callable[[Any, Mapping[str, Any]], float]:
    def diff(s: Any, a: Mapping[str, Any]) -> float:
        order = _lookup(s, "order", a[order_arg]) if order_arg else None
        old = sum(_price(s, i, order) for i in _as_list(a[old_arg]))
        new = sum(_price(s, i, None) for i in _as_list(a[new_arg]))
        return round(new - old, 2)

    return diff


def _a_total(order_arg: str) -> Callable[[Any, Mapping[str, Any]], float]:
    return lambda s, a: round(sum(line["price"] for line in _lookup(s, "order", a[order_arg])["items"]), 2)


def _a_sum(
    arg: str, order_arg: str | None, walk: Callable[[Any], list[Any]] = _as_list, cents: bool = True
) -> Callable[[Any, Mapping[str, Any]], float]:
    def total(s: Any, a: Mapping[str, Any]) -> float:
        order = _lookup(s, "order", a[order_arg]) if order_arg else None
        value = sum(_price(s, i, order) for i in walk(a[arg]))
        return round(value, 2) if cents else value

    return total


def _t_covers(pay_arg: str, kind: str, amount: Callable[[Any, Mapping[str, Any]], float]) -> Predicate:
    field = DATA_MODEL[kind]["balance"]
    return lambda s, a: _lookup(s, kind, a[pay_arg])[field] >= amount(s, a)  # no balance field: unreadable


def _t_sign(amount: Callable[[Any, Mapping[str, Any]], float]) -> Predicate:
    def sign(s: Any, a: Mapping[str, Any]) -> int:
        x = amount(s, a)
        return (x > 0) - (x < 0)

    return sign


# ---------------------------------------------------------------------------------------------------------------
# the vocabulary
# ---------------------------------------------------------------------------------------------------------------


def build_vocabulary(
    tools: list[Mapping[str, Any]],
    state: Mapping[str, Any],
    pairs: bool = True,
    money: bool = True,
    schema_family: bool = True,
    exact_money: bool = True,
    shapes: bool = True,
    lists: bool = True,
) -> Vocabulary:
    """Build the vocabulary for the tools' schemas over a data model described from `state`.

    tools: function-calling schemas (``{"function": {"name", "parameters": {"properties", ...}}}`` or the inner
        ``{"name", "parameters"}``), as in ``tools.json``.
    state: ``{"users", "orders", "products"}``: read once to find each entity type's categorical and sized
        fields (the data model as the data shows it); the predicates themselves read the state they are given.
    pairs, money: switch the pair and money template families (for ablations).
    schema_family: the schema family (:mod:`.schema_templates`: undeclared / missing arguments, JSON types, empty
        lists); on by default, as the project's rule chose on data no design read (docs/readme/actions.md,
        "Defaults"); ``False`` is its ablation.
    exact_money, shapes, lists: the issue-43 families (module docstring); each ``False`` is its ablation.
    """
    if not isinstance(tools, list) or not tools:
        raise BadInput("build_vocabulary: tools must be a non-empty list of tool schemas (tools.json).")
    entities = describe_entities(state)
    walk = walk_as_tool if lists else _as_list  # how list arguments are read: as the tool's loop, or lists only
    predicates: dict[str, Predicate] = {}
    only: dict[str, list[str]] = {}
    for tool in tools:
        fn = tool.get("function", tool)
        name = fn.get("name")
        params = fn.get("parameters", {}) or {}
        props: dict[str, Any] = params.get("properties", {}) or {}
        if not isinstance(name, str):
            raise BadInput(f"build_vocabulary: a tool schema has no name: {str(tool)[:80]}")
        own: dict[str, Predicate] = {}
        per_arg: dict[str, list[str]] = {}  # argument -> names of its base and relation conditions (for conj)

        def add(cond: str, pred: Predicate, *args: str, _own: dict = own, _per: dict = per_arg) -> None:
            _own[cond] = pred
            for arg in args:
                _per.setdefault(arg, []).append(cond)

        typed = {arg: entity_of_arg(arg) for arg in props}
        for arg, schema in sorted(props.items()):
            add(f"{arg}:type", _t_type(arg, schema, walk if lists else None), arg)
            if "enum" in schema:
                add(f"{arg}:enum", _t_enum(arg, tuple(schema["enum"])), arg)
            if schema.get("type") == "array":
                add(f"{arg}:len", _t_len(arg, walk), arg)
            ent = typed[arg]
            if ent is None:
                continue
            kind, many = ent
            add(f"{arg}:exists", _t_exists(arg, kind, many, walk), arg)
            for field in entities[kind]["categorical"]:
                add(f"{arg}:{field}", _t_field(arg, kind, many, field, walk), arg)
            if not many:
                for field in entities[kind]["sized"]:
                    add(f"{arg}:{field}#n", _t_size(arg, kind, field), arg)
        # string arguments that name fields of an entity type: one lookup condition per type
        matched: set[str] = set()
        for kind, info in entities.items():
            fields = tuple(
                (arg, info["leaves"][arg])
                for arg, schema in sorted(props.items())
                if typed[arg] is None and schema.get("type") == "string" and arg in info["leaves"]
            )
            if fields:
                matched.update(a for a, _ in fields)
                add(f"{'+'.join(a for a, _ in fields)}:match:{kind}", _t_match(kind, fields), *(a for a, _ in fields))
        # free text (no entity, no enum, no field it names): which classes of characters it holds
        for arg, schema in sorted(props.items()):
            if typed[arg] is None and schema.get("type") == "string" and "enum" not in schema and arg not in matched:
                if shapes and parsed_by_tool(schema) and parser_of(TOOLS_BY_NAME.get(name), arg) is not None:
                    continue  # the tool's own parser reads it (shapes family): the character classes are its proxy
                for label, major in CHAR_CLASSES.items():
                    add(f"{arg}:has_{label}", _t_chars(arg, major), arg)
        if pairs:
            for a_arg, b_arg in itertools.permutations(sorted(props), 2):
                ta, tb = typed[a_arg], typed[b_arg]
                if ta is None or tb is None:
                    if (
                        ta is None
                        and tb is None
                        and a_arg < b_arg
                        and props[a_arg].get("type") == props[b_arg].get("type") == "array"
                    ):
                        add(f"{a_arg}~{b_arg}:samelen", _t_samelen(a_arg, b_arg, walk), a_arg, b_arg)
                    continue
                (ka, ma), (kb, mb) = ta, tb
                if not mb and ka in DATA_MODEL[kb].get("contains", {}):
                    add(f"{a_arg}~{b_arg}:contains", _t_contains(a_arg, ka, ma, b_arg, kb, walk), a_arg, b_arg)
                if not ma and not mb and a_arg < b_arg and ka != kb:
                    add(f"{a_arg}~{b_arg}:owner", _t_owner(a_arg, ka, b_arg, kb), a_arg, b_arg)
                if not ma and not mb and ka != kb and "table" in DATA_MODEL[kb]:
                    add(f"{a_arg}~{b_arg}:cited", _t_cited(a_arg, b_arg, kb), a_arg, b_arg)
                if ma and mb and ka == kb and a_arg < b_arg:
                    if "parent" in DATA_MODEL[ka]:
                        add(f"{a_arg}~{b_arg}:parent", _t_parent(a_arg, b_arg, ka, walk), a_arg, b_arg)
                    add(f"{a_arg}~{b_arg}:samelen", _t_samelen(a_arg, b_arg, walk), a_arg, b_arg)
            # conjunctions: the pair of values of two conditions on one argument
            for _arg, conds in sorted(per_arg.items()):
                usable = sorted(c for c in set(conds) if not c.endswith(":type"))
                for c1, c2 in itertools.combinations(usable, 2):
                    own[f"{c1}&{c2}"] = Pair(c1, c2)
        if money:
            orders = [arg for arg, t in typed.items() if t == ("order", False)]
            order_arg = orders[0] if len(orders) == 1 else None
            item_lists = sorted(arg for arg, t in typed.items() if t == ("item", True))
            amounts: dict[str, Callable[[Any, Mapping[str, Any]], float]] = {}
            for old, new in itertools.permutations(item_lists, 2):
                if new.startswith("new_") and not old.startswith("new_"):
                    if exact_money and order_arg is not None:
                        amounts[f"{new}-{old}"] = _a_diff_env(old, new, order_arg, walk)
                        amounts[f"cents({new}-{old})"] = _a_cents(amounts[f"{new}-{old}"])
                    else:
                        amounts[f"{new}-{old}"] = _a_diff(old, new, order_arg)
            for arg in item_lists:
                amounts[f"sum({arg})"] = _a_sum(arg, order_arg, walk, cents=not exact_money)
            for arg in orders:
                amounts[f"total({arg})"] = _a_total(arg)
                if exact_money:
                    amounts[f"paid({arg})"] = _a_paid(arg)
            for label, amount in sorted(amounts.items()):
                own[f"sign({label})"] = _t_sign(amount)
                for arg, t in sorted(typed.items()):
                    if t is not None and not t[1] and "balance" in DATA_MODEL[t[0]]:
                        own[f"{arg}:covers({label})"] = _t_covers(arg, t[0], amount)
        if shapes:  # free text the tool parses (its schema gives an example or a format)
            for arg, schema in sorted(props.items()):
                if (
                    typed[arg] is None
                    and schema.get("type") == "string"
                    and "enum" not in schema
                    and arg not in matched
                    and parsed_by_tool(schema)
                ):
                    own.update(shape_conditions(arg, parser_of(TOOLS_BY_NAME.get(name), arg)))
        if lists:
            for arg, schema in sorted(props.items()):
                if schema.get("type") == "array":
                    own.update(list_conditions(arg))
        if schema_family:
            own.update(schema_conditions(name, props, params.get("required", []) or []))
        predicates.update(own)
        only[name] = sorted(own)
    return Vocabulary(predicates, hard=set(), only=only)


# ---------------------------------------------------------------------------------------------------------------
# tiny examples for the docstrings
# ---------------------------------------------------------------------------------------------------------------

TOOLS_EXAMPLE = [
    {
        "name": "cancel",
        "parameters": {
            "properties": {"order_id": {"type": "string"}, "reason": {"type": "string", "enum": ["no longer needed"]}}
        },
    }
]
STATE_EXAMPLE = {
    "orders": {"#W1": {"user_id": "u", "status": "pending", "items": [], "payment_history": []}},
    "users": {"u": {"email": "u@x", "payment_methods": {}, "orders": ["#W1"]}},
    "products": {},
}
