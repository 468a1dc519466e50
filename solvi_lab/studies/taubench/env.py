"""The τ-bench retail environment: tools applied to a copy-on-write database.

``RetailEnv.step(name, kwargs)`` behaves as upstream's ``Env.step`` for a tool call: the tool's
text, or ``"Error: <exception>"`` when the call raises, or ``"Unknown action <name>"`` for a
name that is not a tool. ``refused`` is True exactly when the name is unknown or the text
starts with ``"Error:"`` (spec §1). ``changed`` lists the records whose content changed.

Copy-on-write, so that the ~60,000 steps and copies of a probe study stay cheap:

* each environment owns its three top-level tables (``orders``, ``users``, ``products``: dicts
  from id to record), but the *records* in them may be shared with other environments;
* a record is never mutated in place after a step returns: a writing tool gets a fresh copy
  of each record it writes (``writable``) and installs it in this environment's table only;
* so :meth:`RetailEnv.copy` copies three dicts (about 1,550 pointers, microseconds), and a
  step costs the records it reads or writes, not the size of the database.

The one rule for callers: **do not mutate records obtained from** ``state`` or ``changed``
(they may be shared with copies). To change a record by hand, use :meth:`RetailEnv.edit`,
which gives this environment a private copy to mutate.

>>> env = RetailEnv({"users": {}, "orders": {}, "products": {}})
>>> env.step("get_order_details", {"order_id": "#W0"})
StepResult(observation='Error: order not found', refused=True, changed={'orders': {}, 'users': {}, 'products': {}})
>>> env.step("fly", {}).observation
'Unknown action fly'
"""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from solvi_lab.errors import BadInput, UnknownId
from solvi_lab.studies.taubench.data import RetailData
from solvi_lab.studies.taubench.tools import (
    TERMINATE_TOOLS,
    TOOL_NAMES,
    TOOLS_BY_NAME,
    data_collision_message,
    plain_copy,
)

__all__ = ["TABLES", "RetailEnv", "StepResult", "record_hash", "state_hash"]

TABLES: tuple[str, ...] = ("orders", "users", "products")


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one tool call did.

    ``observation``: the exact text upstream's environment returns.
    ``refused``: unknown tool, or the observation starts with ``"Error:"``.
    ``changed``: ``{"orders": {id: record}, "users": {...}, "products": {...}}`` for each record
    whose content (as upstream's data hash sees it: key order ignored, ``1`` vs ``1.0``
    distinguished) differs after the call; the record is the live one (read-only) or None if
    it was removed (no tool removes records).
    """

    observation: str
    refused: bool
    changed: dict[str, dict[str, Any]]


def _same(a: Any, b: Any) -> bool:
    """Equal as upstream's data hash sees it: dict key order ignored, but types must match (1 ≠ 1.0)."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        if len(a) != len(b):
            return False
        for key, value in a.items():
            if key not in b or not _same(value, b[key]):
                return False
        return True
    if kind is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def record_hash(record: Any) -> str:
    """SHA-256 of a record's canonical JSON (sorted keys, compact; ``1`` and ``1.0`` differ).

    >>> record_hash({"b": 1, "a": 2}) == record_hash({"a": 2, "b": 1})
    True
    >>> record_hash({"a": 1}) == record_hash({"a": 1.0})
    False
    """
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _line(table: str, key: Any, digest: str) -> str:
    return f"{table}\t{json.dumps(key, default=repr)}\t{digest}"


def state_hash(state: Mapping[str, Mapping[str, Any]]) -> str:
    """Stable hash of a whole database ``{"orders": ..., "users": ..., "products": ...}``.

    Independent of dict order everywhere; sensitive to every value and type. Defined as the
    SHA-256 of the sorted lines ``table<TAB>json(key)<TAB>record_hash(record)``, so it can be
    computed record by record (see :meth:`RetailEnv.data_hash`).

    >>> state_hash({"orders": {"#W1": {"a": 1}}, "users": {}, "products": {}})[:12]
    '1210157013b3'
    """
    lines = sorted(_line(table, key, record_hash(rec)) for table in TABLES for key, rec in state[table].items())
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


class _Lineage:
    """Shared by an environment and all its copies: the initial records and their hash lines."""

    __slots__ = ("base", "lines")

    def __init__(self, tables: dict[str, dict[str, Any]]):
        self.base = {table: dict(records) for table, records in tables.items()}
        self.lines: dict[str, dict[Any, str]] | None = None  # computed on the first data_hash()

    def base_lines(self) -> dict[str, dict[Any, str]]:
        if self.lines is None:
            self.lines = {
                table: {key: _line(table, key, record_hash(rec)) for key, rec in records.items()}
                for table, records in self.base.items()
            }
        return self.lines


class _Database:
    """The tables one environment sees, plus the records written during the current step."""

    __slots__ = ("orders", "users", "products", "tables", "touched")

    def __init__(self, orders: dict[str, Any], users: dict[str, Any], products: dict[str, Any]):
        self.orders, self.users, self.products = orders, users, products
        self.tables = {"orders": orders, "users": users, "products": products}
        # (table, key) -> the record as it was before this step's first write to it.
        self.touched: dict[tuple[str, Any], Any] = {}

    def writable(self, table: str, key: Any) -> dict[str, Any]:
        """This environment's private copy of a record, installed on first write in a step."""
        records = self.tables[table]
        if (table, key) in self.touched:
            return records[key]
        old = records[key]  # KeyError(key) here reads exactly like upstream's failed lookup
        new = plain_copy(old)
        records[key] = new
        self.touched[(table, key)] = old
        return new


def _deep_copy_tables(source: Any) -> dict[str, dict[str, Any]]:
    if isinstance(source, RetailData):
        tables = {"orders": source.orders, "users": source.users, "products": source.products}
    elif isinstance(source, Mapping) and all(t in source for t in TABLES):
        tables = {t: source[t] for t in TABLES}
    else:
        raise BadInput(
            f"RetailEnv needs a RetailData (from load_retail()) or a mapping with keys {list(TABLES)}, "
            f"got {type(source).__name__}."
        )
    for table, records in tables.items():
        if not isinstance(records, dict):
            raise BadInput(
                f"RetailEnv: table {table!r} must be a dict from id to record, got {type(records).__name__}."
            )
    try:  # pickle is the fastest full copy of ~2 MB of JSON-like data
        return pickle.loads(pickle.dumps(tables, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:
        return {t: plain_copy(records) for t, records in tables.items()}


class RetailEnv:
    """The retail database plus its 16 tools; see the module docstring for the sharing rules.

    >>> env = RetailEnv({"users": {}, "orders": {}, "products": {}})
    >>> len(env.tool_names), env.tool_names[0]
    (16, 'calculate')
    """

    terminate_tools: frozenset[str] = TERMINATE_TOOLS

    def __init__(self, data: RetailData | Mapping[str, Any]):
        tables = _deep_copy_tables(data)
        self._db = _Database(tables["orders"], tables["users"], tables["products"])
        self._lineage = _Lineage(tables)

    # ----------------------------------------------------------------- views

    @property
    def state(self) -> dict[str, dict[str, Any]]:
        """The live tables ``{"users", "orders", "products"}``. O(1).

        The tables are this environment's own (adding or removing records is fine); the records
        in them may be shared with copies: read them, but change them only with :meth:`edit`.
        """
        db = self._db
        return {"users": db.users, "orders": db.orders, "products": db.products}

    @property
    def tool_names(self) -> list[str]:
        """The 16 tool names, in upstream's order."""
        return list(TOOL_NAMES)

    # ----------------------------------------------------------------- actions

    def step(self, name: str, kwargs: Mapping[str, Any] | None = None) -> StepResult:
        """Call tool ``name`` with keyword arguments ``kwargs``, as upstream's ``Env.step`` does.

        Cost: the records the tool reads and writes (plus a scan of users for the two lookups
        by email or name). Raises BadInput only for calls upstream could not even express
        (a non-string name, non-dict kwargs, non-string keys, or ``respond``, which goes to the
        user simulator and is no tool).

        >>> env = RetailEnv({"users": {}, "orders": {}, "products": {}})
        >>> env.step("calculate", {"expression": "1/3"}).observation
        '0.33'
        >>> env.step("get_user_details", {"user_id": ["a"]}).observation
        "Error: unhashable type: 'list'"
        """
        if type(name) is not str:
            raise BadInput(f"step: the tool name must be a str, got {type(name).__name__} {name!r}.")
        if kwargs is None:
            kwargs = {}
        elif not isinstance(kwargs, Mapping):
            raise BadInput(
                f"step({name!r}): kwargs must be a dict of argument name to value, got {type(kwargs).__name__}."
            )
        for key in kwargs:
            if type(key) is not str:
                raise BadInput(f"step({name!r}): argument names must be strings, got {key!r}.")
        tool = TOOLS_BY_NAME.get(name)
        if tool is None:
            if name == "respond":
                raise BadInput(
                    "step('respond'): 'respond' sends text to the user simulator, it is not a tool; "
                    "RetailEnv models only the data and the 16 tools."
                )
            return StepResult(f"Unknown action {name}", True, {"orders": {}, "users": {}, "products": {}})
        db = self._db
        if "data" in kwargs:
            # Upstream passes the database as data=..., so this key collides before the call.
            observation = "Error: " + data_collision_message(tool)
        else:
            try:
                observation = tool.invoke(db, **kwargs)
            except Exception as e:  # upstream catches every Exception and reports it as text
                observation = f"Error: {e}"
            if type(observation) is not str:  # only possible for hand-built non-string user ids
                observation = str(observation)
        changed: dict[str, dict[str, Any]] = {"orders": {}, "users": {}, "products": {}}
        if db.touched:
            tables = db.tables
            for (table, key), old in db.touched.items():
                new = tables[table].get(key)
                if not _same(old, new):
                    changed[table][key] = new
            db.touched = {}
        return StepResult(observation, observation.startswith("Error:"), changed)

    def copy(self) -> RetailEnv:
        """An independent environment with the current state. O(number of records), no record copied.

        >>> a = RetailEnv({"users": {"u": {"address": {}}}, "orders": {}, "products": {}})
        >>> b = a.copy(); _ = b.step("modify_user_address", dict(user_id="u", address1="x", address2="",
        ...     city="c", state="s", country="US", zip="1"))
        >>> a.state["users"]["u"]["address"], b.state["users"]["u"]["address"]["address1"]
        ({}, 'x')
        """
        db = self._db
        new = RetailEnv.__new__(RetailEnv)
        new._db = _Database(db.orders.copy(), db.users.copy(), db.products.copy())
        new._lineage = self._lineage
        return new

    def edit(self, table: str, key: Any) -> dict[str, Any]:
        """A private, mutable copy of one record, installed in this environment only.

        For building hand-made states in tests. Call it again after :meth:`copy` before further
        edits (the copy shares the edited record again).

        >>> env = RetailEnv({"users": {}, "orders": {"#W1": {"status": "pending"}}, "products": {}})
        >>> env.edit("orders", "#W1")["status"] = "delivered"
        >>> env.state["orders"]["#W1"]["status"]
        'delivered'
        """
        if table not in TABLES:
            raise BadInput(f"edit: table must be one of {list(TABLES)}, got {table!r}.")
        records = self._db.tables[table]
        if key not in records:
            raise UnknownId(f"edit: no record {key!r} in {table}; list the ids with env.state[{table!r}].keys().")
        records[key] = plain_copy(records[key])
        return records[key]

    # ----------------------------------------------------------------- hashing

    def data_hash(self) -> str:
        """:func:`state_hash` of the current state, reusing the hashes of records never written.

        About 1 ms for the full retail data after the first call (which hashes every record once
        per lineage, ~50 ms). Records changed by hand through ``state`` (instead of :meth:`edit`)
        would make the cached hashes stale.
        """
        base_lines = self._lineage.base_lines()
        base = self._lineage.base
        lines: list[str] = []
        for table in TABLES:
            current, original, cached = self._db.tables[table], base[table], base_lines[table]
            for key, rec in current.items():
                if original.get(key) is rec:
                    lines.append(cached[key])
                else:
                    lines.append(_line(table, key, record_hash(rec)))
        lines.sort()
        return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
