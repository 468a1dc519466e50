"""The 16 τ-bench retail tools, re-implemented from the behaviour spec (``taubench-retail-tools.md``).

Each tool is a class with a static ``invoke(data, **arguments) -> str``. The class and parameter
names are upstream's on purpose: when a call has the wrong shape, Python's own ``TypeError``
text (``CancelPendingOrder.invoke() missing 1 required positional argument: 'reason'``) then
reads exactly as upstream's. For the same reason the tools use the same *kinds* of operations
as upstream at each step (``list.count`` on the caller's value, ``in`` on a string, ``.lower()``
on the caller's value, ...): arguments are never type-checked, so a wrong type must fail with
the same exception, at the same point, as upstream.

``data`` is the environment's copy-on-write database (see :mod:`.env`): ``data.orders``,
``data.users``, ``data.products`` are read freely; a record is changed only through
``data.writable(table, key)``, which installs a private copy first. Records handed out by the
tables are shared between environment copies and must never be mutated in place.

Checks all run before the first write (except the hand-built states of spec §4.15, where a
``KeyError`` after a gift-card credit leaves the credit in place, exactly as upstream).

>>> Calculate.invoke(None, "2 + 2")
'4.0'
>>> Think.invoke(None, "hmm")
''
"""

from __future__ import annotations

import ast
import json
import operator
import warnings
from typing import Any, ClassVar, Protocol

from .domain import plain_copy

__all__ = [
    "ALL_TOOLS",
    "TOOLS_BY_NAME",
    "TOOL_NAMES",
    "TERMINATE_TOOLS",
    "WRITING_TOOLS",
    "Database",
    "RetailTool",
    "InvalidCharacters",
    "evaluate_expression",
]


class Database(Protocol):
    """What a tool sees: three tables and a way to get a writable record."""

    orders: dict[str, Any]
    users: dict[str, Any]
    products: dict[str, Any]

    def writable(self, table: str, key: Any) -> dict[str, Any]: ...


def _details(table: Any, key: str, what: str) -> str:
    """A get_*_details tool: the record as upstream dumps it, or upstream's not-found error."""
    if key in table:
        return _dump(table[key])
    return f"Error: {what} not found"


def _dump(record: Any) -> str:
    # Upstream returns json.dumps(record) with all defaults; observations must match byte for byte.
    return json.dumps(record)


class RetailTool:
    """Base of the tool classes; ``name`` is the function name the agent calls."""

    name: ClassVar[str]
    writes: ClassVar[bool] = False
    #: argument → the function the tool parses it with (free text it evaluates); read by the shapes templates
    parses: ClassVar[dict[str, Any]] = {}

    @staticmethod
    def invoke(data: Database, **arguments: Any) -> str:  # pragma: no cover - overridden
        raise NotImplementedError


# --------------------------------------------------------------------------- calculate

_CALC_CHARS = "0123456789+-*/(). "
# Upstream evaluates with no time limit, so ``9**9**9`` would hang it for hours. Before eval, an
# expression containing ``**`` is walked once with the same Python operators; an integer power
# whose result would exceed this many bits is refused with the text upstream would eventually
# print for a too-large integer. (Only such powers can make eval run long: the expression is
# made of digits and + - * / ( ) . and spaces, so nothing else grows without bound.)
_MAX_POW_BITS = 1 << 24


class _PowTooBig(Exception):
    pass


_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}


def _guarded_value(node: ast.AST) -> Any:
    """Evaluate an arithmetic AST with Python's operators, raising _PowTooBig before a huge power."""
    if isinstance(node, ast.Expression):
        return _guarded_value(node.body)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_guarded_value(node.operand))
    if isinstance(node, ast.BinOp):
        left, right = _guarded_value(node.left), _guarded_value(node.right)
        if (
            isinstance(node.op, ast.Pow)
            and type(left) is int
            and type(right) is int
            and right > 0
            and abs(left) > 1
            and left.bit_length() * right > _MAX_POW_BITS
        ):
            raise _PowTooBig
        return _BINARY[type(node.op)](left, right)
    raise TypeError("not arithmetic")  # anything else: let eval produce upstream's own answer


def _pow_too_big(expression: str) -> bool:
    try:
        _guarded_value(ast.parse(expression, mode="eval"))
    except _PowTooBig:
        return True
    except Exception:
        return False  # eval below reports the same problem exactly as upstream
    return False


class InvalidCharacters(ValueError):
    """An expression with a character the calculator does not allow (its message is upstream's error text)."""


def evaluate_expression(expression: str) -> float:
    """What ``calculate`` computes from its expression, before rounding: the value as a float, or the exception whose
    text the tool returns after ``"Error: "`` (:class:`InvalidCharacters`, ``OverflowError`` for a power too large
    to compute, or whatever ``eval`` and ``float`` raise: SyntaxError, ZeroDivisionError, TypeError, OverflowError).

    Public so that a template can read the argument exactly as the tool parses it (issue 43).

    >>> evaluate_expression("(1 + 2) * 4")
    12.0
    >>> for text in ("1,000 + 2", "1 / 0", "2 ** 99999999"):
    ...     try:
    ...         evaluate_expression(text)
    ...     except Exception as e:
    ...         print(type(e).__name__, e)
    InvalidCharacters invalid characters in expression
    ZeroDivisionError division by zero
    OverflowError int too large to convert to float
    """
    # `ch in <str>` (not a set) so that a list of non-strings fails as upstream does.
    if not all(ch in _CALC_CHARS for ch in expression):
        raise InvalidCharacters("invalid characters in expression")
    if "**" in expression and _pow_too_big(expression):
        raise OverflowError("int too large to convert to float")
    # Silence compile-time SyntaxWarnings ("'float' object is not callable" for "3.5(2)"):
    # they only go to stderr and would flood a probe run; the returned text is unchanged.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        value = eval(expression, {"__builtins__": None}, {})  # noqa: S307 - only digits and operators pass
    return float(value)


class Calculate(RetailTool):
    name = "calculate"
    #: argument → the function that parses it as this tool does (read by the shapes templates)
    parses: ClassVar[dict[str, Any]] = {"expression": evaluate_expression}

    @staticmethod
    def invoke(data: Database, expression: str) -> str:
        # the character check outside the try, as upstream: a value that is not text fails here and raises
        if not all(ch in _CALC_CHARS for ch in expression):
            return "Error: invalid characters in expression"
        try:
            return str(round(evaluate_expression(expression), 2))
        except Exception as e:
            return f"Error: {e}"


# --------------------------------------------------------------------------- shared checks


def _missing_item(item_ids: Any, order: dict[str, Any]) -> Any:
    """First requested id that occurs more often in the request than in the order, else a sentinel."""
    present = [item["item_id"] for item in order["items"]]
    for item_id in item_ids:
        if item_ids.count(item_id) > present.count(item_id):
            return item_id
    return _NONE


_NONE = object()


def _price_difference(products: dict[str, Any], order: dict[str, Any], item_ids: Any, new_item_ids: Any) -> Any:
    """Sum of new − old price over the pairs (unrounded, starting at int 0), or an error text."""
    difference: Any = 0
    for item_id, new_item_id in zip(item_ids, new_item_ids):
        item = [it for it in order["items"] if it["item_id"] == item_id][0]
        variants = products[item["product_id"]]["variants"]
        if not (new_item_id in variants and variants[new_item_id]["available"]):
            return f"Error: new item {new_item_id} not found or available"
        old_price = item["price"]
        difference += variants[new_item_id]["price"] - old_price
    return difference


def _address(address1: Any, address2: Any, city: Any, state: Any, country: Any, zip: Any) -> dict[str, Any]:
    # Upstream's key order (state before country); values stored unvalidated. Copied so that a
    # record never aliases a caller's list or dict.
    return {
        "address1": plain_copy(address1),
        "address2": plain_copy(address2),
        "city": plain_copy(city),
        "state": plain_copy(state),
        "country": plain_copy(country),
        "zip": plain_copy(zip),
    }


# --------------------------------------------------------------------------- writing tools


class CancelPendingOrder(RetailTool):
    name = "cancel_pending_order"
    writes = True

    @staticmethod
    def invoke(data: Database, order_id: str, reason: str) -> str:
        if order_id not in data.orders:
            return "Error: order not found"
        order = data.orders[order_id]
        if order["status"] != "pending":
            return "Error: non-pending order cannot be cancelled"
        # A tuple, not a set: an unhashable reason is simply "invalid", as upstream.
        if reason not in ("no longer needed", "ordered by mistake"):
            return "Error: invalid reason"
        refunds = []
        for payment in order["payment_history"]:
            method_id = payment["payment_method_id"]
            refunds.append({"transaction_type": "refund", "amount": payment["amount"], "payment_method_id": method_id})
            if "gift_card" in method_id:  # gift cards are refunded at once; recognised by id, not source
                method = data.writable("users", order["user_id"])["payment_methods"][method_id]
                method["balance"] += payment["amount"]
                method["balance"] = round(method["balance"], 2)
        order = data.writable("orders", order_id)
        order["status"] = "cancelled"
        order["cancel_reason"] = reason
        order["payment_history"].extend(refunds)
        return _dump(order)


class ExchangeDeliveredOrderItems(RetailTool):
    name = "exchange_delivered_order_items"
    writes = True

    @staticmethod
    def invoke(
        data: Database, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> str:
        if order_id not in data.orders:
            return "Error: order not found"
        order = data.orders[order_id]
        if order["status"] != "delivered":
            return "Error: non-delivered order cannot be exchanged"
        missing = _missing_item(item_ids, order)
        if missing is not _NONE:
            return f"Error: {missing} not found"
        if len(item_ids) != len(new_item_ids):
            return "Error: the number of items to be exchanged should match"
        difference = _price_difference(data.products, order, item_ids, new_item_ids)
        if type(difference) is str:
            return difference
        difference = round(difference, 2)  # exchange rounds; modify-items does not
        methods = data.users[order["user_id"]]["payment_methods"]
        if payment_method_id not in methods:
            return "Error: payment method not found"
        method = methods[payment_method_id]
        if method["source"] == "gift_card" and method["balance"] < difference:
            return "Error: insufficient gift card balance to pay for the price difference"
        order = data.writable("orders", order_id)
        order["status"] = "exchange requested"
        order["exchange_items"] = sorted(item_ids)  # sorted separately: the pairing is lost, as upstream
        order["exchange_new_items"] = sorted(new_item_ids)
        order["exchange_payment_method_id"] = payment_method_id
        order["exchange_price_difference"] = difference
        return _dump(order)


class ModifyPendingOrderAddress(RetailTool):
    name = "modify_pending_order_address"
    writes = True

    @staticmethod
    def invoke(
        data: Database, order_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
    ) -> str:
        if order_id not in data.orders:
            return "Error: order not found"
        if data.orders[order_id]["status"] != "pending":
            return "Error: non-pending order cannot be modified"
        order = data.writable("orders", order_id)
        order["address"] = _address(address1, address2, city, state, country, zip)
        return _dump(order)


class ModifyPendingOrderItems(RetailTool):
    name = "modify_pending_order_items"
    writes = True

    @staticmethod
    def invoke(
        data: Database, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> str:
        if order_id not in data.orders:
            return "Error: order not found"
        order = data.orders[order_id]
        if order["status"] != "pending":
            return "Error: non-pending order cannot be modified"
        missing = _missing_item(item_ids, order)
        if missing is not _NONE:
            return f"Error: {missing} not found"
        if len(item_ids) != len(new_item_ids):
            return "Error: the number of items to be exchanged should match"
        difference = _price_difference(data.products, order, item_ids, new_item_ids)
        if type(difference) is str:
            return difference
        methods = data.users[order["user_id"]]["payment_methods"]
        if payment_method_id not in methods:
            return "Error: payment method not found"
        method = methods[payment_method_id]
        if method["source"] == "gift_card" and method["balance"] < difference:
            return "Error: insufficient gift card balance to pay for the new item"
        order = data.writable("orders", order_id)
        # Unrounded amount (float noise such as 3.6599999999999824 is part of the data hash).
        order["payment_history"].append(
            {
                "transaction_type": "payment" if difference > 0 else "refund",
                "amount": abs(difference),
                "payment_method_id": payment_method_id,
            }
        )
        if method["source"] == "gift_card":
            method = data.writable("users", order["user_id"])["payment_methods"][payment_method_id]
            method["balance"] -= difference
            method["balance"] = round(method["balance"], 2)
        products = data.products
        for item_id, new_item_id in zip(item_ids, new_item_ids):
            # The first item *currently* carrying the old id (earlier pairs may have renamed items).
            item = [it for it in order["items"] if it["item_id"] == item_id][0]
            variant = products[item["product_id"]]["variants"][new_item_id]
            item["item_id"] = new_item_id
            item["price"] = variant["price"]
            item["options"] = plain_copy(variant["options"])  # own copy: records never alias each other
        order["status"] = "pending (item modified)"
        return _dump(order)


class ModifyPendingOrderPayment(RetailTool):
    name = "modify_pending_order_payment"
    writes = True

    @staticmethod
    def invoke(data: Database, order_id: str, payment_method_id: str) -> str:
        if order_id not in data.orders:
            return "Error: order not found"
        order = data.orders[order_id]
        if order["status"] != "pending":
            return "Error: non-pending order cannot be modified"
        methods = data.users[order["user_id"]]["payment_methods"]
        if payment_method_id not in methods:
            return "Error: payment method not found"
        history = order["payment_history"]
        if len(history) > 1 or history[0]["transaction_type"] != "payment":
            return "Error: there should be exactly one payment for a pending order"
        old_method_id = history[0]["payment_method_id"]
        if old_method_id == payment_method_id:
            return "Error: the new payment method should be different from the current one"
        amount = history[0]["amount"]
        if methods[payment_method_id]["source"] == "gift_card" and methods[payment_method_id]["balance"] < amount:
            return "Error: insufficient gift card balance to pay for the order"
        order = data.writable("orders", order_id)
        order["payment_history"].extend(
            [
                {"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id},
                {"transaction_type": "refund", "amount": amount, "payment_method_id": old_method_id},
            ]
        )
        if methods[payment_method_id]["source"] == "gift_card":
            new_method = data.writable("users", order["user_id"])["payment_methods"][payment_method_id]
            new_method["balance"] -= amount
            new_method["balance"] = round(new_method["balance"], 2)
        if "gift_card" in old_method_id:  # the old method is recognised by its id, not its source
            old_method = data.writable("users", order["user_id"])["payment_methods"][old_method_id]
            old_method["balance"] += amount
            old_method["balance"] = round(old_method["balance"], 2)
        return _dump(order)


class ModifyUserAddress(RetailTool):
    name = "modify_user_address"
    writes = True

    @staticmethod
    def invoke(
        data: Database, user_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
    ) -> str:
        if user_id not in data.users:
            return "Error: user not found"
        user = data.writable("users", user_id)
        user["address"] = _address(address1, address2, city, state, country, zip)
        return _dump(user)


class ReturnDeliveredOrderItems(RetailTool):
    name = "return_delivered_order_items"
    writes = True

    @staticmethod
    def invoke(data: Database, order_id: str, item_ids: list[str], payment_method_id: str) -> str:
        if order_id not in data.orders:
            return "Error: order not found"
        order = data.orders[order_id]
        if order["status"] != "delivered":
            return "Error: non-delivered order cannot be returned"
        # Payment is checked before the items here (the reverse of exchange/modify).
        if payment_method_id not in data.users[order["user_id"]]["payment_methods"]:
            return "Error: payment method not found"
        if (
            "gift_card" not in payment_method_id
            and payment_method_id != order["payment_history"][0]["payment_method_id"]
        ):
            return "Error: payment method should be either the original payment method or a gift card"
        if _missing_item(item_ids, order) is not _NONE:
            return "Error: some item not found"
        order = data.writable("orders", order_id)
        order["status"] = "return requested"
        order["return_items"] = sorted(item_ids)
        order["return_payment_method_id"] = payment_method_id
        return _dump(order)


# --------------------------------------------------------------------------- read-only tools


class FindUserIdByEmail(RetailTool):
    name = "find_user_id_by_email"

    @staticmethod
    def invoke(data: Database, email: str) -> str:
        wanted: Any = _NONE
        for user_id, profile in data.users.items():
            own = profile["email"].lower()  # evaluated first, as upstream
            if wanted is _NONE:
                wanted = email.lower()  # hoisted: the same value upstream recomputes per user
            if own == wanted:
                return user_id
        return "Error: user not found"


class FindUserIdByNameZip(RetailTool):
    name = "find_user_id_by_name_zip"

    @staticmethod
    def invoke(data: Database, first_name: str, last_name: str, zip: str) -> str:
        # Same evaluation order as upstream's `a and b and c` per user (a bad last_name only
        # raises once some first name matched); the caller's .lower() values are computed once,
        # at the point upstream computes them first.
        first: Any = _NONE
        last: Any = _NONE
        for user_id, profile in data.users.items():
            name = profile["name"]
            own_first = name["first_name"].lower()
            if first is _NONE:
                first = first_name.lower()
            if own_first != first:
                continue
            own_last = name["last_name"].lower()
            if last is _NONE:
                last = last_name.lower()
            if own_last == last and profile["address"]["zip"] == zip:
                return user_id
        return "Error: user not found"


class GetOrderDetails(RetailTool):
    name = "get_order_details"

    @staticmethod
    def invoke(data: Database, order_id: str) -> str:
        return _details(data.orders, order_id, "order")


class GetProductDetails(RetailTool):
    name = "get_product_details"

    @staticmethod
    def invoke(data: Database, product_id: str) -> str:
        return _details(data.products, product_id, "product")


class GetUserDetails(RetailTool):
    name = "get_user_details"

    @staticmethod
    def invoke(data: Database, user_id: str) -> str:
        return _details(data.users, user_id, "user")


class ListAllProductTypes(RetailTool):
    name = "list_all_product_types"

    @staticmethod
    def invoke(data: Database) -> str:
        by_name = {product["name"]: product["product_id"] for product in data.products.values()}
        return _dump(dict(sorted(by_name.items())))


class Think(RetailTool):
    name = "think"

    @staticmethod
    def invoke(data: Database, thought: str) -> str:
        return ""


class TransferToHumanAgents(RetailTool):
    name = "transfer_to_human_agents"

    @staticmethod
    def invoke(data: Database, summary: str) -> str:
        return "Transfer successful"


# Upstream's ALL_TOOLS order.
ALL_TOOLS: tuple[type[RetailTool], ...] = (
    Calculate,
    CancelPendingOrder,
    ExchangeDeliveredOrderItems,
    FindUserIdByEmail,
    FindUserIdByNameZip,
    GetOrderDetails,
    GetProductDetails,
    GetUserDetails,
    ListAllProductTypes,
    ModifyPendingOrderAddress,
    ModifyPendingOrderItems,
    ModifyPendingOrderPayment,
    ModifyUserAddress,
    ReturnDeliveredOrderItems,
    Think,
    TransferToHumanAgents,
)
TOOLS_BY_NAME: dict[str, type[RetailTool]] = {tool.name: tool for tool in ALL_TOOLS}
TOOL_NAMES: tuple[str, ...] = tuple(TOOLS_BY_NAME)
WRITING_TOOLS: frozenset[str] = frozenset(tool.name for tool in ALL_TOOLS if tool.writes)
TERMINATE_TOOLS: frozenset[str] = frozenset({"transfer_to_human_agents"})


def data_collision_message(tool: type[RetailTool]) -> str:
    """Upstream's text for a call that passes an argument named ``data``.

    Upstream calls ``invoke(data=env.data, **kwargs)``, so a ``data`` key collides; Python names
    the function by its module path, which is upstream's package path, not ours.

    >>> data_collision_message(GetOrderDetails)
    "tau_bench.envs.retail.tools.get_order_details.GetOrderDetails.invoke() got multiple values for keyword argument 'data'"
    """
    return (
        f"tau_bench.envs.retail.tools.{tool.name}.{tool.__name__}.invoke() "
        "got multiple values for keyword argument 'data'"
    )
