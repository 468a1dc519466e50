"""Probes around the gold steps of τ-bench retail tasks: what the environment accepts near a real trajectory.

For each task and each gold step k, at the state after the first k gold calls, the probe generator makes the gold
call and systematic variations of it, runs each on a copy of the environment (copy-on-write: microseconds), and
records a :class:`Transition` (state before, tool, args, accepted, effect). The variations, one dimension at a time:

- every id argument swapped for other ids of the same type: the customer's own orders and other customers' orders
  in every status; payment methods of each kind, the customer's and another's, gift cards whose balance covers the
  call's amount and gift cards whose balance does not; items of the same order, of the same product (available
  and unavailable variants), of another product; a user, a product; and an id that does not exist;
- enum arguments over each of their values plus an invalid one;
- list arguments shortened, duplicated, emptied, and (item lists) extended to the whole order;
- the other write tools on the same order, and the read tools on the call's entities (the lookups of a
  conversation: order, user, product details, user search by e-mail and by name and zip, a calculation).

Candidates are de-duplicated, then a seeded sample keeps about ``budget`` transitions per task (the gold calls
always stay), spread evenly over the task's gold steps. Same seed, same probes.

>>> from solvi_lab.studies.taubench.data import load_retail   # doctest: +SKIP
>>> probes = task_probes(RetailEnv(load_retail()), load_retail().tasks["train"][0], seed=0)  # doctest: +SKIP
>>> probes[0].tool, probes[0].accepted   # the gold call comes first   # doctest: +SKIP
('return_delivered_order_items', True)
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ...errors import BadParameter
from .env import RetailEnv
from .probing import (
    Transition,
    _seed_for,
    gold_step_probes,
    payment_swaps,
    schema_probes,
    tool_properties,
    tool_required,
    with_changes,
)

__all__ = ["Transition", "task_probes", "split_probes", "explore_split", "DEFAULT_BUDGET"]

#: Transitions per task, about (the gold calls are always kept, so a long task may exceed it a little).
DEFAULT_BUDGET = 100

_WRITE_TOOLS = (
    "cancel_pending_order",
    "exchange_delivered_order_items",
    "modify_pending_order_address",
    "modify_pending_order_items",
    "modify_pending_order_payment",
    "return_delivered_order_items",
)
_NO_ORDER = "#W0000000"  # well formed, not in the data


# ---------------------------------------------------------------------------------------------------------------
# the world around a call
# ---------------------------------------------------------------------------------------------------------------


class _World:
    """Read-only lookups on one state: who owns what, which ids exist of each kind and status."""

    def __init__(self, state: Mapping[str, Any], rng: random.Random):
        self.s = state
        self.rng = rng

    def order(self, oid: Any) -> dict[str, Any] | None:
        return self.s["orders"].get(oid) if isinstance(oid, str) else None

    def owner_of(self, args: Mapping[str, Any], task_user: str) -> str:
        order = self.order(args.get("order_id"))
        if order is not None:
            return order["user_id"]
        uid = args.get("user_id")
        return uid if isinstance(uid, str) and uid in self.s["users"] else task_user

    def other_user(self, uid: str) -> str:
        users = sorted(self.s["users"])
        for _ in range(20):
            pick = self.rng.choice(users)
            if pick != uid:
                return pick
        return users[0] if users[0] != uid else users[1]

    def orders_by_status(self, uid: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for oid in self.s["users"].get(uid, {}).get("orders", []):
            o = self.order(oid)
            if o is not None:
                out.setdefault(o["status"], oid)
        return out

    def any_orders_by_status(self, avoid: str) -> dict[str, str]:
        """One order of another user per status (sampled, so each task sees different ones)."""
        out: dict[str, str] = {}
        ids = sorted(self.s["orders"])
        for oid in self.rng.sample(ids, min(60, len(ids))):
            o = self.s["orders"][oid]
            if o["user_id"] != avoid:
                out.setdefault(o["status"], oid)
        return out

    def methods(self, uid: str) -> dict[str, dict[str, Any]]:
        return self.s["users"].get(uid, {}).get("payment_methods", {})

    def product_of(self, item_id: Any) -> str | None:
        for pid, p in self.s["products"].items():
            if item_id in p["variants"]:
                return pid
        return None

    def variants(self, pid: str | None) -> dict[str, dict[str, Any]]:
        return self.s["products"].get(pid, {}).get("variants", {}) if pid else {}

    def price(self, item_id: Any, order: Mapping[str, Any] | None) -> float:
        if order is not None:
            for line in order["items"]:
                if line["item_id"] == item_id:
                    return line["price"]
        v = self.variants(self.product_of(item_id)).get(item_id)
        return v["price"] if v else 0.0

    def gift_cards(self) -> list[tuple[str, str, float]]:
        out = []
        for uid, u in self.s["users"].items():
            for pmid, pm in u["payment_methods"].items():
                if pm.get("source") == "gift_card":
                    out.append((uid, pmid, pm.get("balance", 0.0)))
        return out


def _amount(world: _World, tool: str, args: Mapping[str, Any]) -> float | None:
    """What a payment method must cover for this call: the price difference or the order's total."""
    order = world.order(args.get("order_id"))
    if isinstance(args.get("new_item_ids"), list) and isinstance(args.get("item_ids"), list):
        old = sum(world.price(i, order) for i in args["item_ids"])
        new = sum(world.price(i, None) for i in args["new_item_ids"])
        return round(new - old, 2)
    if tool == "modify_pending_order_payment" and order is not None:
        return round(sum(line["price"] for line in order["items"]), 2)
    return None


_ADDRESS = ("address1", "address2", "city", "state", "country", "zip")


def _write_calls(world: _World, oid: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Each write tool on one order, with arguments taken from the order (its items, its payment, its user)."""
    order = world.s["orders"][oid]
    rng = world.rng
    methods = world.methods(order["user_id"])
    first_pay = order["payment_history"][0]["payment_method_id"] if order["payment_history"] else None
    lines = [line["item_id"] for line in order["items"]]
    swaps = []
    for item in lines[:2]:
        vs = world.variants(world.product_of(item))
        avail = sorted(i for i, v in vs.items() if v["available"] and i != item)
        swaps.append(rng.choice(avail) if avail else item)
    pay = first_pay if first_pay in methods else (sorted(methods)[0] if methods else "gift_card_0000000")
    addr = world.s["users"].get(order["user_id"], {}).get("address", {})
    yield "cancel_pending_order", "cancel_pending_order", {"order_id": oid, "reason": "no longer needed"}
    yield (
        "modify_pending_order_address",
        "modify_pending_order_address",
        {"order_id": oid, **{k: addr.get(k, "") for k in _ADDRESS}},
    )
    yield (
        "modify_pending_order_items",
        "modify_pending_order_items",
        {"order_id": oid, "item_ids": lines[: len(swaps)], "new_item_ids": swaps, "payment_method_id": pay},
    )
    yield (
        "exchange_delivered_order_items",
        "exchange_delivered_order_items",
        {"order_id": oid, "item_ids": lines[: len(swaps)], "new_item_ids": swaps, "payment_method_id": pay},
    )
    yield (
        "return_delivered_order_items",
        "return_delivered_order_items",
        {"order_id": oid, "item_ids": lines[:1], "payment_method_id": pay},
    )
    for pmid in sorted(methods):
        yield (
            f"modify_pending_order_payment {methods[pmid].get('source')}",
            "modify_pending_order_payment",
            {"order_id": oid, "payment_method_id": pmid},
        )


# ---------------------------------------------------------------------------------------------------------------
# variations of one call
# ---------------------------------------------------------------------------------------------------------------


def _variations(
    world: _World, tool: str, args: dict[str, Any], task_user: str, schemas: Mapping[str, Any], first: bool = True
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(origin, tool, args) candidates around one call (`first`: the task's first gold step)."""
    rng = world.rng
    uid = world.owner_of(args, task_user)
    other = world.other_user(uid)
    order = world.order(args.get("order_id"))
    user = world.s["users"].get(uid)
    props = schemas.get(tool, {})

    # id arguments swapped for ids of the same type
    if "order_id" in args:
        for status, oid in sorted(world.orders_by_status(uid).items()):
            yield f"swap order_id own {status}", tool, with_changes(args, order_id=oid)
        for status, oid in sorted(world.any_orders_by_status(uid).items()):
            yield f"swap order_id other {status}", tool, with_changes(args, order_id=oid)
        yield "swap order_id missing", tool, with_changes(args, order_id=_NO_ORDER)
        yield "swap order_id no #", tool, with_changes(args, order_id=str(args["order_id"]).lstrip("#"))
    if "payment_method_id" in args:
        amount = _amount(world, tool, args)
        yield from payment_swaps(tool, args, "payment_method_id", world.methods(uid), world.methods(other))
        cards = world.gift_cards()
        if amount is not None and cards:
            covering = [c for c in cards if c[2] >= amount and c[0] != uid]
            short = [c for c in cards if c[2] < amount and c[0] != uid]
            for label, pool in (("covers", covering), ("short", short)):
                if pool:
                    yield (
                        f"swap payment other gift card {label}",
                        tool,
                        with_changes(args, payment_method_id=rng.choice(pool)[1]),
                    )
        yield "swap payment missing", tool, with_changes(args, payment_method_id="gift_card_0000000")
    if "user_id" in args:
        yield "swap user other", tool, with_changes(args, user_id=other)
        yield "swap user missing", tool, with_changes(args, user_id="nobody_0000")
    if "product_id" in args:
        pids = sorted(world.s["products"])
        yield "swap product other", tool, with_changes(args, product_id=rng.choice(pids))
        yield "swap product missing", tool, with_changes(args, product_id="0000000000")
        pv = world.variants(args["product_id"])
        if pv:
            yield "swap product item id", tool, with_changes(args, product_id=sorted(pv)[0])
    for arg in ("item_ids", "new_item_ids"):
        items = args.get(arg)
        if not isinstance(items, list):
            continue
        for pos, item in enumerate(items[:3]):
            pid = world.product_of(item)
            vs = world.variants(pid)
            avail = sorted(i for i, v in vs.items() if v["available"] and i != item)
            unavail = sorted(i for i, v in vs.items() if not v["available"] and i != item)
            other_pids = sorted(p for p in world.s["products"] if p != pid)
            other_item = sorted(world.variants(rng.choice(other_pids)))[0] if other_pids else None
            cands: list[tuple[str, Any]] = []
            if order is not None:
                in_order = sorted({line["item_id"] for line in order["items"]} - {item})
                if in_order:
                    cands.append(("same order", rng.choice(in_order)))
            if avail:
                cands += [("same product available", x) for x in rng.sample(avail, min(2, len(avail)))]
            if unavail:
                cands.append(("same product unavailable", rng.choice(unavail)))
            if other_item is not None:
                cands.append(("other product", other_item))
            cands.append(("itself", item))
            cands.append(("missing", "0000000000"))
            for label, new in cands:
                changed = list(items)
                changed[pos] = new
                yield f"swap {arg} {label}", tool, with_changes(args, **{arg: changed})
        yield f"list {arg} shortened", tool, with_changes(args, **{arg: items[:-1]})
        if items:
            yield f"list {arg} duplicated", tool, with_changes(args, **{arg: items + items[:1]})
        yield f"list {arg} emptied", tool, with_changes(args, **{arg: []})
        if arg == "item_ids" and order is not None:
            whole = [line["item_id"] for line in order["items"]]
            yield "list item_ids whole order", tool, with_changes(args, item_ids=whole)
    # enum arguments over their values plus an invalid one
    for arg, schema in sorted(props.items()):
        if "enum" in schema and arg in args:
            for value in schema["enum"]:
                yield f"enum {arg} {value}", tool, with_changes(args, **{arg: value})
            yield f"enum {arg} invalid", tool, with_changes(args, **{arg: "because"})
    # the other write tools on the same order, then on the customer's orders in each other status
    if order is not None:
        targets = [("same order", args["order_id"])]
        targets += [
            (f"own {st}", oid)
            for st, oid in sorted(world.orders_by_status(order["user_id"]).items())
            if oid != args["order_id"]
        ]
        for where, oid in targets:
            for key, other_tool, kw in _write_calls(world, oid):
                if other_tool != tool or where != "same order":
                    yield f"other tool {key} {where}", other_tool, kw
    if user is not None:
        addr = user["address"]
        yield (
            "other tool modify_user_address",
            "modify_user_address",
            {"user_id": uid, **{k: addr.get(k, "") for k in _ADDRESS}},
        )
        if order is not None:
            yield (
                "other tool modify_user_address to order's",
                "modify_user_address",
                {"user_id": uid, **{k: order["address"].get(k, "") for k in _ADDRESS}},
            )
    # read tools on the call's entities (the lookups of a conversation)
    if order is not None:
        yield "read order", "get_order_details", {"order_id": args["order_id"]}
    for status, oid in sorted(world.orders_by_status(uid).items()):
        yield f"read order own {status}", "get_order_details", {"order_id": oid}
    yield "read order missing", "get_order_details", {"order_id": _NO_ORDER}
    if user is not None:
        yield "read user", "get_user_details", {"user_id": uid}
        yield "read user by email", "find_user_id_by_email", {"email": user["email"]}
        yield "read user by email upper", "find_user_id_by_email", {"email": user["email"].upper()}
        yield "read user by email missing", "find_user_id_by_email", {"email": "nobody@example.com"}
        name, zip_code = user["name"], user["address"]["zip"]
        yield (
            "read user by name zip",
            "find_user_id_by_name_zip",
            {"first_name": name["first_name"], "last_name": name["last_name"], "zip": zip_code},
        )
        wrong_zip = world.s["users"][other]["address"]["zip"]
        yield (
            "read user by name wrong zip",
            "find_user_id_by_name_zip",
            {"first_name": name["first_name"], "last_name": name["last_name"], "zip": wrong_zip},
        )
    yield "read user missing", "get_user_details", {"user_id": "nobody_0000"}
    if order is not None and order["items"]:
        pid = order["items"][0]["product_id"]
        yield "read product", "get_product_details", {"product_id": pid}
        yield "read product item id", "get_product_details", {"product_id": order["items"][0]["item_id"]}
        prices = " + ".join(str(line["price"]) for line in order["items"])
        yield "calculate total", "calculate", {"expression": prices}
        yield "calculate bad", "calculate", {"expression": prices + " x"}
    if not first:  # the calls that do not depend on the state: once per task, not once per step
        return
    yield "read product types", "list_all_product_types", {}
    yield "think", "think", {"thought": f"The customer wants {tool.replace('_', ' ')}."}
    yield (
        "transfer",
        "transfer_to_human_agents",
        {"summary": f"Customer {uid} asks for {tool.replace('_', ' ')} and needs a person."},
    )


# ---------------------------------------------------------------------------------------------------------------
# probes of a task and a split
# ---------------------------------------------------------------------------------------------------------------


def _effect(result: Any, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """The touched order's new status (the order named in the call when several changed)."""
    if result.refused:
        return None
    orders = result.changed.get("orders", {})
    if not orders:
        return None
    oid = args.get("order_id") if args.get("order_id") in orders else sorted(orders)[0]
    record = orders[oid]
    return None if record is None else {"order_status": record.get("status")}


def task_probes(
    base: RetailEnv,
    task: Mapping[str, Any],
    seed: int = 0,
    split: str = "train",
    budget: int = DEFAULT_BUDGET,
    schemas: Mapping[str, Any] | None = None,
) -> list[Transition]:
    """The probes of one task: gold steps replayed on a copy of `base`, variations run on copies of each state."""
    rng = random.Random(_seed_for(seed, split, int(task["index"])))
    user, props = task.get("user_id"), schemas or {}

    def candidates(state: Any, k: int, tool: str, args: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
        return _variations(_World(state, rng), tool, args, user, props, first=k == 0)

    return gold_step_probes(base, task, rng, budget, candidates, _effect)


def split_probes(
    data: Any, split: str, n_tasks: int, seed: int = 0, budget: int = DEFAULT_BUDGET, base: RetailEnv | None = None
) -> list[Transition]:
    """Probes of the first `n_tasks` tasks of a split (tasks without gold calls give none)."""
    tasks = data.tasks[split]
    if not 0 <= n_tasks <= len(tasks):
        raise BadParameter(f"{split}: n_tasks={n_tasks} is outside 0..{len(tasks)} (the split has {len(tasks)} tasks).")
    base = base or RetailEnv(data)
    schemas = tool_properties(data.tools)
    out: list[Transition] = []
    for task in tasks[:n_tasks]:
        out.extend(task_probes(base, task, seed=seed, split=split, budget=budget, schemas=schemas))
    return out


def explore_split(
    data: Any,
    n_tasks: int,
    base: RetailEnv | None = None,
    split: str = "train",
    probes: Sequence[Transition] = (),
) -> list[Transition]:
    """The schema exploration (:func:`~.probing.schema_probes`) of the first `n_tasks` tasks of a training split;
    ``probes``: those tasks' gold-step probes (:func:`split_probes`), whose accepted calls of tools the gold never
    calls are explored too."""
    tasks = data.tasks[split]
    if not 0 <= n_tasks <= len(tasks):
        raise BadParameter(f"{split}: n_tasks={n_tasks} is outside 0..{len(tasks)} (the split has {len(tasks)} tasks).")
    base = base or RetailEnv(data)
    props, required = tool_properties(data.tools), tool_required(data.tools)
    by_task: dict[int, list[Transition]] = {}
    for p in probes:
        by_task.setdefault(p.task, []).append(p)
    return [
        t
        for task in tasks[:n_tasks]
        for t in schema_probes(base, task, props, required, _effect, by_task.get(int(task["index"]), ()))
    ]
