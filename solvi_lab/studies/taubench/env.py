"""The τ-bench retail environment: tools applied to a copy-on-write database.

``RetailEnv.step(name, kwargs)`` behaves as upstream's ``Env.step`` for a tool call: the tool's
text, or ``"Error: <exception>"`` when the call raises, or ``"Unknown action <name>"`` for a
name that is not a tool. ``refused`` is True exactly when the name is unknown or the text
starts with ``"Error:"`` (spec §1). ``changed`` lists the records whose content changed.

The step contract, copy-on-write tables and hashing are shared by every domain
(:class:`~solvi_lab.studies.taubench.domain.TableEnv`); this module only declares retail's tables and tools.
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

from collections.abc import Mapping
from typing import Any

from solvi_lab.errors import BadInput
from solvi_lab.studies.taubench.data import RetailData
from solvi_lab.studies.taubench.domain import (
    Domain,
    StepResult,
    TableEnv,
    record_hash,
    state_hash,
)
from solvi_lab.studies.taubench.tools import TERMINATE_TOOLS, TOOLS_BY_NAME, WRITING_TOOLS

__all__ = ["RETAIL", "TABLES", "RetailEnv", "StepResult", "record_hash", "state_hash"]

TABLES: tuple[str, ...] = ("orders", "users", "products")

#: The retail domain as a plug-in of the shared environment.
RETAIL = Domain(
    name="retail",
    tables=TABLES,
    tools=TOOLS_BY_NAME,
    writing=WRITING_TOOLS,
    terminate=TERMINATE_TOOLS,
    upstream_module="tau_bench.envs.retail.tools",
)


class RetailEnv(TableEnv):
    """The retail database plus its 16 tools; see the module docstring for the sharing rules.

    >>> env = RetailEnv({"users": {}, "orders": {}, "products": {}})
    >>> len(env.tool_names), env.tool_names[0]
    (16, 'calculate')
    >>> env.step("calculate", {"expression": "1/3"}).observation
    '0.33'
    >>> env.step("get_user_details", {"user_id": ["a"]}).observation
    "Error: unhashable type: 'list'"
    >>> a = RetailEnv({"users": {"u": {"address": {}}}, "orders": {}, "products": {}})
    >>> b = a.copy(); _ = b.step("modify_user_address", dict(user_id="u", address1="x", address2="",
    ...     city="c", state="s", country="US", zip="1"))
    >>> a.state["users"]["u"]["address"], b.state["users"]["u"]["address"]["address1"]
    ({}, 'x')
    >>> env = RetailEnv({"users": {}, "orders": {"#W1": {"status": "pending"}}, "products": {}})
    >>> env.edit("orders", "#W1")["status"] = "delivered"
    >>> env.state["orders"]["#W1"]["status"]
    'delivered'
    """

    domain = RETAIL

    def __init__(self, data: RetailData | Mapping[str, Any]):
        if not isinstance(data, RetailData) and not (isinstance(data, Mapping) and all(t in data for t in TABLES)):
            raise BadInput(
                f"RetailEnv needs a RetailData (from load_retail()) or a mapping with keys {list(TABLES)}, "
                f"got {type(data).__name__}."
            )
        super().__init__(data)

    @property
    def state(self) -> dict[str, dict[str, Any]]:
        """The live tables ``{"users", "orders", "products"}``. O(1); read the records, change them with edit()."""
        tables = self._db.tables
        return {"users": tables["users"], "orders": tables["orders"], "products": tables["products"]}
