"""The retail environment: every tool's checks and writes, copy-on-write, hashing, gold replay.

Tool behaviour is tested on a small hand-built world (always runs). The gold-replay counts and
the final-data hashes need the real data and skip with a message when it is not installed.
The expected hashes in ``data/expected/taubench_gold_final_hashes.json`` were produced once by
running the upstream τ-bench tools locally (see docs/readme/taubench_env.md); these tests do
not need upstream code.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from solvi_lab.errors import BadInput, DataMissing, UnknownId
from solvi_lab.studies.taubench.data import load_retail
from solvi_lab.studies.taubench.env import RetailEnv, StepResult, state_hash

EXPECTED_HASHES = Path(__file__).resolve().parents[2] / "data" / "expected" / "taubench_gold_final_hashes.json"


def address(zip_code: str) -> dict[str, str]:
    # The shipped data's key order: country before state.
    return {"address1": "1 Main St", "address2": "", "city": "Austin", "country": "USA", "state": "TX", "zip": zip_code}


def item(product: str, item_id: str, price: float, name: str = "Mug") -> dict[str, Any]:
    return {"name": name, "product_id": product, "item_id": item_id, "price": price, "options": {"color": item_id}}


def world() -> dict[str, Any]:
    """Two users, two products, orders in each status."""
    users = {
        "ann_1": {
            "name": {"first_name": "Ann", "last_name": "Lee"},
            "address": address("10001"),
            "email": "Ann.Lee@example.com",
            "payment_methods": {
                "gift_card_1": {"source": "gift_card", "balance": 49, "id": "gift_card_1"},
                "credit_card_1": {"source": "credit_card", "brand": "visa", "last_four": "1", "id": "credit_card_1"},
                "paypal_1": {"source": "paypal", "id": "paypal_1"},
            },
            "orders": ["#W1", "#W2", "#W3", "#W5"],
        },
        "bob_2": {
            "name": {"first_name": "Bob", "last_name": "Ray"},
            "address": address("20002"),
            "email": "bob@example.com",
            "payment_methods": {"gift_card_2": {"source": "gift_card", "balance": 10, "id": "gift_card_2"}},
            "orders": ["#W4"],
        },
    }
    products = {
        "p1": {
            "name": "Mug",
            "product_id": "p1",
            "variants": {
                "i1": {"item_id": "i1", "options": {"color": "red"}, "available": True, "price": 10.0},
                "i2": {"item_id": "i2", "options": {"color": "blue"}, "available": True, "price": 13.66},
                "i3": {"item_id": "i3", "options": {"color": "gold"}, "available": False, "price": 20.0},
                "i4": {"item_id": "i4", "options": {"color": "pink"}, "available": True, "price": 99.0},
            },
        },
        "p2": {
            "name": "Lamp",
            "product_id": "p2",
            "variants": {
                "j1": {"item_id": "j1", "options": {"size": "s"}, "available": True, "price": 30.5},
                "j2": {"item_id": "j2", "options": {"size": "l"}, "available": True, "price": 30.5},
            },
        },
    }

    def order(oid: str, user: str, status: str, items: list, paid: float, method: str) -> dict[str, Any]:
        return {
            "order_id": oid,
            "user_id": user,
            "address": address("10001"),
            "items": items,
            "fulfillments": [],
            "status": status,
            "payment_history": [{"transaction_type": "payment", "amount": paid, "payment_method_id": method}],
        }

    orders = {
        "#W1": order(
            "#W1", "ann_1", "pending", [item("p1", "i1", 10.0), item("p2", "j1", 30.5, "Lamp")], 40.5, "gift_card_1"
        ),
        "#W2": order(
            "#W2", "ann_1", "pending", [item("p1", "i1", 10.0), item("p1", "i1", 10.0)], 20.0, "credit_card_1"
        ),
        "#W3": order(
            "#W3", "ann_1", "delivered", [item("p1", "i1", 10.0), item("p2", "j1", 30.5, "Lamp")], 40.5, "paypal_1"
        ),
        "#W4": order("#W4", "bob_2", "processed", [item("p2", "j1", 30.5, "Lamp")], 30.5, "gift_card_2"),
        "#W5": order("#W5", "ann_1", "cancelled", [item("p1", "i1", 10.0)], 10.0, "credit_card_1"),
    }
    return {"users": users, "orders": orders, "products": products}


@pytest.fixture
def env() -> RetailEnv:
    return RetailEnv(world())


def obs(env: RetailEnv, name: str, **kwargs: Any) -> str:
    return env.step(name, kwargs).observation


def refused_without_change(env: RetailEnv, name: str, **kwargs: Any) -> str:
    """Run a call that must be refused, check it changed nothing, return its text."""
    before = state_hash(env.state)
    result = env.step(name, kwargs)
    assert result.refused and result.observation.startswith("Error: ")
    assert result.changed == {"orders": {}, "users": {}, "products": {}}
    assert state_hash(env.state) == before
    return result.observation


ADDR = {"address1": "9 Elm", "address2": "Apt 2", "city": "Reno", "state": "NV", "country": "USA", "zip": "89501"}


# ------------------------------------------------------------------ Env.step semantics


def test_unknown_tool_has_no_error_prefix_but_is_refused(env: RetailEnv) -> None:
    result = env.step("fly_to_moon", {"x": 1})
    assert result == StepResult("Unknown action fly_to_moon", True, {"orders": {}, "users": {}, "products": {}})


def test_calls_upstream_could_not_express_raise_bad_input(env: RetailEnv) -> None:
    with pytest.raises(BadInput, match="user simulator"):
        env.step("respond", {"content": "hi"})
    with pytest.raises(BadInput, match="kwargs must be a dict"):
        env.step("think", ["x"])  # type: ignore[arg-type]
    with pytest.raises(BadInput, match="must be a str"):
        env.step(3, {})  # type: ignore[arg-type]
    with pytest.raises(BadInput, match="argument names must be strings"):
        env.step("think", {1: "x"})


def test_wrong_call_shapes_read_like_upstream_exceptions(env: RetailEnv) -> None:
    assert refused_without_change(env, "cancel_pending_order", order_id="#W1") == (
        "Error: CancelPendingOrder.invoke() missing 1 required positional argument: 'reason'"
    )
    assert refused_without_change(env, "get_order_details", order_id="#W1", user_id="ann_1") == (
        "Error: GetOrderDetails.invoke() got an unexpected keyword argument 'user_id'"
    )
    assert refused_without_change(env, "get_order_details", order_id="#W1", data={}) == (
        "Error: tau_bench.envs.retail.tools.get_order_details.GetOrderDetails.invoke() "
        "got multiple values for keyword argument 'data'"
    )
    assert refused_without_change(env, "list_all_product_types", x=1) == (
        "Error: ListAllProductTypes.invoke() got an unexpected keyword argument 'x'"
    )
    assert refused_without_change(env, "modify_pending_order_items", order_id="#W1", payment_method_id="x") == (
        "Error: ModifyPendingOrderItems.invoke() missing 2 required positional arguments: 'item_ids' and 'new_item_ids'"
    )


def test_think_and_transfer_succeed(env: RetailEnv) -> None:
    assert env.step("think", {"thought": "hmm"}) == StepResult("", False, {"orders": {}, "users": {}, "products": {}})
    assert obs(env, "transfer_to_human_agents", summary="help") == "Transfer successful"
    assert "transfer_to_human_agents" in env.terminate_tools


def test_tool_names_in_upstream_order(env: RetailEnv) -> None:
    assert env.tool_names == [
        "calculate",
        "cancel_pending_order",
        "exchange_delivered_order_items",
        "find_user_id_by_email",
        "find_user_id_by_name_zip",
        "get_order_details",
        "get_product_details",
        "get_user_details",
        "list_all_product_types",
        "modify_pending_order_address",
        "modify_pending_order_items",
        "modify_pending_order_payment",
        "modify_user_address",
        "return_delivered_order_items",
        "think",
        "transfer_to_human_agents",
    ]


# ------------------------------------------------------------------ calculate


@pytest.mark.parametrize(
    ("expression", "text"),
    [
        ("2 + 2", "4.0"),
        ("1/3", "0.33"),
        ("10.0**20", "1e+20"),
        ("7//2 + 2**3", "11.0"),
        ("1/0", "Error: division by zero"),
        ("", "Error: invalid syntax (<string>, line 0)"),
        ("10**400", "Error: int too large to convert to float"),
        ("()", "Error: float() argument must be a string or a real number, not 'tuple'"),
        ("2^3", "Error: invalid characters in expression"),
        ("abs(1)", "Error: invalid characters in expression"),
    ],
)
def test_calculate(env: RetailEnv, expression: str, text: str) -> None:
    assert obs(env, "calculate", expression=expression) == text


def test_calculate_odd_inputs(env: RetailEnv) -> None:
    assert obs(env, "calculate", expression="01+1").startswith("Error: leading zeros in decimal integer literals")
    assert obs(env, "calculate", expression=5) == "Error: 'int' object is not iterable"
    assert obs(env, "calculate", expression=["1"]).startswith("Error: eval() arg 1 must be a string")


def test_calculate_huge_power_returns_instead_of_hanging(env: RetailEnv) -> None:
    start = time.perf_counter()
    assert obs(env, "calculate", expression="9**9**9") == "Error: int too large to convert to float"
    assert obs(env, "calculate", expression="2**-99999999") == "0.0"  # negative powers are cheap floats
    assert time.perf_counter() - start < 1.0


# ------------------------------------------------------------------ lookups


def test_find_user_id_by_email(env: RetailEnv) -> None:
    assert obs(env, "find_user_id_by_email", email="ann.lee@EXAMPLE.com") == "ann_1"
    assert refused_without_change(env, "find_user_id_by_email", email=" ann.lee@example.com") == "Error: user not found"
    assert obs(env, "find_user_id_by_email", email=None) == "Error: 'NoneType' object has no attribute 'lower'"


def test_find_user_id_by_name_zip(env: RetailEnv) -> None:
    assert obs(env, "find_user_id_by_name_zip", first_name="BOB", last_name="ray", zip="20002") == "bob_2"
    assert obs(env, "find_user_id_by_name_zip", first_name="Bob", last_name="Ray", zip=20002) == "Error: user not found"
    assert obs(env, "find_user_id_by_name_zip", first_name=1, last_name="Ray", zip="1") == (
        "Error: 'int' object has no attribute 'lower'"
    )
    # a bad last name only raises once some first name matched
    assert obs(env, "find_user_id_by_name_zip", first_name="Zed", last_name=1, zip="1") == "Error: user not found"
    assert obs(env, "find_user_id_by_name_zip", first_name="Bob", last_name=1, zip="1") == (
        "Error: 'int' object has no attribute 'lower'"
    )


def test_get_details(env: RetailEnv) -> None:
    assert json.loads(obs(env, "get_order_details", order_id="#W1"))["status"] == "pending"
    assert obs(env, "get_order_details", order_id="#W1") == json.dumps(world()["orders"]["#W1"])
    assert refused_without_change(env, "get_order_details", order_id="W1") == "Error: order not found"
    assert refused_without_change(env, "get_order_details", order_id=None) == "Error: order not found"
    assert refused_without_change(env, "get_order_details", order_id=["#W1"]) == "Error: unhashable type: 'list'"
    assert refused_without_change(env, "get_product_details", product_id="i1") == "Error: product not found"
    assert refused_without_change(env, "get_user_details", user_id="nobody") == "Error: user not found"
    assert json.loads(obs(env, "get_user_details", user_id="bob_2"))["email"] == "bob@example.com"


def test_list_all_product_types_sorted_by_name(env: RetailEnv) -> None:
    assert obs(env, "list_all_product_types") == '{"Lamp": "p2", "Mug": "p1"}'


# ------------------------------------------------------------------ cancel


def test_cancel_checks_in_order(env: RetailEnv) -> None:
    assert refused_without_change(env, "cancel_pending_order", order_id="#W0", reason="x") == "Error: order not found"
    # the status is checked before the reason
    assert refused_without_change(env, "cancel_pending_order", order_id="#W4", reason="x") == (
        "Error: non-pending order cannot be cancelled"
    )
    assert refused_without_change(env, "cancel_pending_order", order_id="#W1", reason="No longer needed") == (
        "Error: invalid reason"
    )
    assert refused_without_change(env, "cancel_pending_order", order_id="#W1", reason=["x"]) == "Error: invalid reason"


def test_cancel_refunds_gift_card_at_once(env: RetailEnv) -> None:
    result = env.step("cancel_pending_order", {"order_id": "#W1", "reason": "ordered by mistake"})
    assert not result.refused
    order = env.state["orders"]["#W1"]
    assert result.observation == json.dumps(order)
    assert list(order)[-1] == "cancel_reason" and order["status"] == "cancelled"
    assert order["payment_history"][-1] == {
        "transaction_type": "refund",
        "amount": 40.5,
        "payment_method_id": "gift_card_1",
    }
    assert env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["balance"] == 89.5
    assert set(result.changed["orders"]) == {"#W1"} and set(result.changed["users"]) == {"ann_1"}
    assert refused_without_change(env, "cancel_pending_order", order_id="#W1", reason="ordered by mistake") == (
        "Error: non-pending order cannot be cancelled"
    )


def test_cancel_other_methods_get_no_balance_change(env: RetailEnv) -> None:
    result = env.step("cancel_pending_order", {"order_id": "#W2", "reason": "no longer needed"})
    assert set(result.changed["orders"]) == {"#W2"} and result.changed["users"] == {}


def test_cancel_partial_write_on_missing_gift_card_like_upstream(env: RetailEnv) -> None:
    # Spec §4.15: a hand-built history whose second gift card is not the owner's: upstream
    # credits the first card, then raises KeyError; the order stays pending.
    env.edit("orders", "#W1")["payment_history"].append(
        {"transaction_type": "payment", "amount": 1, "payment_method_id": "gift_card_ghost"}
    )
    result = env.step("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"})
    assert result.observation == "Error: 'gift_card_ghost'" and result.refused
    assert env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["balance"] == 89.5
    assert env.state["orders"]["#W1"]["status"] == "pending"
    assert set(result.changed["users"]) == {"ann_1"} and result.changed["orders"] == {}


def test_key_error_text_for_missing_owner(env: RetailEnv) -> None:
    env.edit("orders", "#W2")["user_id"] = "ghost_9"
    assert refused_without_change(env, "modify_pending_order_payment", order_id="#W2", payment_method_id="x") == (
        "Error: 'ghost_9'"
    )


# ------------------------------------------------------------------ exchange


def test_exchange_checks_in_order(env: RetailEnv) -> None:
    call = {"order_id": "#W3", "item_ids": ["i1"], "new_item_ids": ["i2"], "payment_method_id": "paypal_1"}
    x = "exchange_delivered_order_items"
    assert refused_without_change(env, x, **{**call, "order_id": "#W9"}) == "Error: order not found"
    assert refused_without_change(env, x, **{**call, "order_id": "#W1"}) == (
        "Error: non-delivered order cannot be exchanged"
    )
    assert refused_without_change(env, x, **{**call, "item_ids": ["i1", "i1"], "new_item_ids": []}) == (
        "Error: i1 not found"  # more copies than the order holds; reported before the length
    )
    assert refused_without_change(env, x, **{**call, "item_ids": "i1"}) == "Error: i not found"  # a str is iterated
    assert refused_without_change(env, x, **{**call, "new_item_ids": []}) == (
        "Error: the number of items to be exchanged should match"
    )
    for bad in ("j2", "i3", "zzz"):  # other product, unavailable, no such id: one message
        assert refused_without_change(env, x, **{**call, "new_item_ids": [bad]}) == (
            f"Error: new item {bad} not found or available"
        )
    assert refused_without_change(env, x, **{**call, "payment_method_id": "gift_card_2"}) == (
        "Error: payment method not found"  # another user's method
    )
    assert refused_without_change(env, x, **{**call, "new_item_ids": ["i4"], "payment_method_id": "gift_card_1"}) == (
        "Error: insufficient gift card balance to pay for the price difference"
    )


def test_exchange_records_without_moving_money(env: RetailEnv) -> None:
    call = {
        "order_id": "#W3",
        "item_ids": ["j1", "i1"],
        "new_item_ids": ["j2", "i2"],
        "payment_method_id": "gift_card_1",
    }
    result = env.step("exchange_delivered_order_items", call)
    order = env.state["orders"]["#W3"]
    assert not result.refused and result.observation == json.dumps(order)
    assert order["status"] == "exchange requested"
    assert list(order)[-4:] == [
        "exchange_items",
        "exchange_new_items",
        "exchange_payment_method_id",
        "exchange_price_difference",
    ]
    assert order["exchange_items"] == ["i1", "j1"] and order["exchange_new_items"] == ["i2", "j2"]  # sorted apart
    assert order["exchange_price_difference"] == round(0 + (30.5 - 30.5) + (13.66 - 10.0), 2)
    assert order["items"] == world()["orders"]["#W3"]["items"] and len(order["payment_history"]) == 1
    assert result.changed["users"] == {} and set(result.changed["orders"]) == {"#W3"}
    assert refused_without_change(
        env, "return_delivered_order_items", order_id="#W3", item_ids=[], payment_method_id="paypal_1"
    ) == ("Error: non-delivered order cannot be returned")


def test_exchange_empty_lists_accepted_with_int_zero(env: RetailEnv) -> None:
    call = {"order_id": "#W3", "item_ids": [], "new_item_ids": [], "payment_method_id": "credit_card_1"}
    assert not env.step("exchange_delivered_order_items", call).refused
    assert env.state["orders"]["#W3"]["exchange_price_difference"] == 0
    assert type(env.state["orders"]["#W3"]["exchange_price_difference"]) is int


# ------------------------------------------------------------------ modify items


def test_modify_items_checks_in_order(env: RetailEnv) -> None:
    call = {"order_id": "#W1", "item_ids": ["i1"], "new_item_ids": ["i2"], "payment_method_id": "gift_card_1"}
    m = "modify_pending_order_items"
    assert (
        refused_without_change(env, m, **{**call, "order_id": "#W3"}) == "Error: non-pending order cannot be modified"
    )
    assert refused_without_change(env, m, **{**call, "item_ids": ["j2"]}) == "Error: j2 not found"
    assert refused_without_change(env, m, **{**call, "new_item_ids": ["i2", "i2"]}) == (
        "Error: the number of items to be exchanged should match"
    )
    assert (
        refused_without_change(env, m, **{**call, "new_item_ids": ["j1"]})
        == "Error: new item j1 not found or available"
    )
    assert (
        refused_without_change(env, m, **{**call, "payment_method_id": "paypal_9"}) == "Error: payment method not found"
    )
    assert refused_without_change(env, m, **{**call, "new_item_ids": ["i4"]}) == (
        "Error: insufficient gift card balance to pay for the new item"
    )
    assert refused_without_change(env, m, **{**call, "item_ids": 5}) == "Error: 'int' object is not iterable"


def test_modify_items_charges_at_once_with_float_noise(env: RetailEnv) -> None:
    call = {"order_id": "#W1", "item_ids": ["i1"], "new_item_ids": ["i2"], "payment_method_id": "gift_card_1"}
    result = env.step("modify_pending_order_items", call)
    order = env.state["orders"]["#W1"]
    difference = 0 + (13.66 - 10.0)  # unrounded, as upstream
    assert order["payment_history"][-1] == {
        "transaction_type": "payment",
        "amount": abs(difference),
        "payment_method_id": "gift_card_1",
    }
    assert env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["balance"] == round(49 - difference, 2)
    assert order["items"][0] == {
        "name": "Mug",
        "product_id": "p1",
        "item_id": "i2",
        "price": 13.66,
        "options": {"color": "blue"},
    }
    assert order["status"] == "pending (item modified)"
    assert set(result.changed["orders"]) == {"#W1"} and set(result.changed["users"]) == {"ann_1"}
    # the order is now locked for every pending-only tool
    assert refused_without_change(env, "cancel_pending_order", order_id="#W1", reason="no longer needed") == (
        "Error: non-pending order cannot be cancelled"
    )
    assert refused_without_change(env, "modify_pending_order_address", order_id="#W1", **ADDR) == (
        "Error: non-pending order cannot be modified"
    )


def test_modify_items_duplicates_and_empty(env: RetailEnv) -> None:
    call = {
        "order_id": "#W2",
        "item_ids": ["i1", "i1"],
        "new_item_ids": ["i2", "i1"],
        "payment_method_id": "credit_card_1",
    }
    assert not env.step("modify_pending_order_items", call).refused
    assert [it["item_id"] for it in env.state["orders"]["#W2"]["items"]] == ["i2", "i1"]
    fresh = RetailEnv(world())
    empty = {"order_id": "#W1", "item_ids": [], "new_item_ids": [], "payment_method_id": "gift_card_1"}
    result = fresh.step("modify_pending_order_items", empty)
    assert fresh.state["orders"]["#W1"]["payment_history"][-1] == {
        "transaction_type": "refund",
        "amount": 0,
        "payment_method_id": "gift_card_1",
    }
    assert fresh.state["orders"]["#W1"]["status"] == "pending (item modified)"
    # balance 49 - 0 stays the int 49: the user record did not change
    assert type(fresh.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["balance"]) is int
    assert result.changed["users"] == {}


def test_int_to_float_balance_counts_as_a_change(env: RetailEnv) -> None:
    # a same-price swap gives difference 0.0: 49 - 0.0 = 49.0, equal by value, not by type
    env.edit("orders", "#W1")["items"].append(item("p2", "j1", 30.5, "Lamp"))
    call = {"order_id": "#W1", "item_ids": ["j1"], "new_item_ids": ["j2"], "payment_method_id": "gift_card_1"}
    before = env.data_hash()
    result = env.step("modify_pending_order_items", call)
    balance = env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["balance"]
    assert balance == 49 and type(balance) is float
    assert set(result.changed["users"]) == {"ann_1"}
    assert env.data_hash() != before


# ------------------------------------------------------------------ modify payment


def test_modify_payment(env: RetailEnv) -> None:
    p = "modify_pending_order_payment"
    assert refused_without_change(env, p, order_id="#W4", payment_method_id="gift_card_2") == (
        "Error: non-pending order cannot be modified"
    )
    assert (
        refused_without_change(env, p, order_id="#W1", payment_method_id="gift_card_2")
        == "Error: payment method not found"
    )
    assert refused_without_change(env, p, order_id="#W1", payment_method_id="gift_card_1") == (
        "Error: the new payment method should be different from the current one"
    )
    result = env.step(p, {"order_id": "#W1", "payment_method_id": "paypal_1"})
    assert not result.refused
    history = env.state["orders"]["#W1"]["payment_history"]
    assert history[1:] == [
        {"transaction_type": "payment", "amount": 40.5, "payment_method_id": "paypal_1"},
        {"transaction_type": "refund", "amount": 40.5, "payment_method_id": "gift_card_1"},
    ]
    assert env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["balance"] == 89.5  # old gift card refunded
    assert env.state["orders"]["#W1"]["status"] == "pending"
    assert refused_without_change(env, p, order_id="#W1", payment_method_id="credit_card_1") == (
        "Error: there should be exactly one payment for a pending order"
    )
    # still pending, so a cancel works and refunds every history entry (three refunds)
    env.step("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"})
    assert len(env.state["orders"]["#W1"]["payment_history"]) == 6
    assert env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["balance"] == round(89.5 + 40.5 + 40.5, 2)


def test_modify_payment_gift_card_balance(env: RetailEnv) -> None:
    env.edit("users", "ann_1")["payment_methods"]["gift_card_1"]["balance"] = 19.99
    assert refused_without_change(
        env, "modify_pending_order_payment", order_id="#W2", payment_method_id="gift_card_1"
    ) == ("Error: insufficient gift card balance to pay for the order")
    env.edit("users", "ann_1")["payment_methods"]["gift_card_1"]["balance"] = 25
    assert not env.step("modify_pending_order_payment", {"order_id": "#W2", "payment_method_id": "gift_card_1"}).refused
    assert env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["balance"] == 5.0


# ------------------------------------------------------------------ return


def test_return_checks_payment_before_items(env: RetailEnv) -> None:
    r = "return_delivered_order_items"
    assert refused_without_change(env, r, order_id="#W1", item_ids=["i1"], payment_method_id="paypal_1") == (
        "Error: non-delivered order cannot be returned"
    )
    assert refused_without_change(env, r, order_id="#W3", item_ids=["zz"], payment_method_id="gift_card_2") == (
        "Error: payment method not found"
    )
    assert refused_without_change(env, r, order_id="#W3", item_ids=["zz"], payment_method_id="credit_card_1") == (
        "Error: payment method should be either the original payment method or a gift card"
    )
    assert refused_without_change(env, r, order_id="#W3", item_ids=["zz"], payment_method_id="paypal_1") == (
        "Error: some item not found"
    )
    result = env.step(r, {"order_id": "#W3", "item_ids": ["j1", "i1"], "payment_method_id": "gift_card_1"})
    order = env.state["orders"]["#W3"]
    assert order["status"] == "return requested" and order["return_items"] == ["i1", "j1"]
    assert list(order)[-2:] == ["return_items", "return_payment_method_id"]
    assert result.changed["users"] == {} and order["payment_history"] == world()["orders"]["#W3"]["payment_history"]
    assert (
        refused_without_change(
            env,
            "exchange_delivered_order_items",
            order_id="#W3",
            item_ids=[],
            new_item_ids=[],
            payment_method_id="paypal_1",
        )
        == "Error: non-delivered order cannot be exchanged"
    )


# ------------------------------------------------------------------ addresses


def test_address_rewrite_reorders_keys_without_changing_content(env: RetailEnv) -> None:
    same = {
        k: world()["orders"]["#W2"]["address"][k] for k in ("address1", "address2", "city", "state", "country", "zip")
    }
    result = env.step("modify_pending_order_address", {"order_id": "#W2", **same})
    assert list(env.state["orders"]["#W2"]["address"]) == ["address1", "address2", "city", "state", "country", "zip"]
    assert result.changed["orders"] == {}  # content unchanged as the data hash sees it
    assert result.observation != json.dumps(world()["orders"]["#W2"])  # but the text differs
    assert refused_without_change(env, "modify_pending_order_address", order_id="#W3", **ADDR) == (
        "Error: non-pending order cannot be modified"
    )


def test_modify_user_address_moves_the_zip_lookup(env: RetailEnv) -> None:
    assert refused_without_change(env, "modify_user_address", user_id="nobody", **ADDR) == "Error: user not found"
    result = env.step("modify_user_address", {"user_id": "bob_2", **ADDR, "zip": 89501})
    assert env.state["users"]["bob_2"]["address"]["zip"] == 89501 and set(result.changed["users"]) == {"bob_2"}
    assert (
        obs(env, "find_user_id_by_name_zip", first_name="Bob", last_name="Ray", zip="20002") == "Error: user not found"
    )
    assert obs(env, "find_user_id_by_name_zip", first_name="Bob", last_name="Ray", zip=89501) == "bob_2"


# ------------------------------------------------------------------ copies, edits, hashes


def test_copies_are_independent_both_ways(env: RetailEnv) -> None:
    child = env.copy()
    child.step("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"})
    assert env.state["orders"]["#W1"]["status"] == "pending"
    assert env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["balance"] == 49
    env.step("return_delivered_order_items", {"order_id": "#W3", "item_ids": [], "payment_method_id": "paypal_1"})
    assert child.state["orders"]["#W3"]["status"] == "delivered"
    grandchild = child.copy()
    grandchild.step("modify_pending_order_payment", {"order_id": "#W2", "payment_method_id": "gift_card_1"})
    assert child.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["balance"] == 89.5
    assert grandchild.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["balance"] == 69.5
    assert state_hash(env.state) == env.data_hash() and state_hash(grandchild.state) == grandchild.data_hash()


def test_env_does_not_alias_its_input_or_arguments() -> None:
    source = world()
    env = RetailEnv(source)
    zip_value = ["8", "9"]
    env.step("modify_user_address", {"user_id": "bob_2", **ADDR, "zip": zip_value})
    zip_value.append("0")
    assert env.state["users"]["bob_2"]["address"]["zip"] == ["8", "9"]
    assert source["users"]["bob_2"]["address"] == address("20002")


def test_edit(env: RetailEnv) -> None:
    child = env.copy()
    child.edit("orders", "#W4")["status"] = "pending"
    assert env.state["orders"]["#W4"]["status"] == "processed"
    with pytest.raises(UnknownId, match="no record"):
        env.edit("orders", "#W404")
    with pytest.raises(BadInput, match="table must be one of"):
        env.edit("carts", "x")


def test_state_hash_ignores_order_but_not_types() -> None:
    a = {"orders": {"x": {"a": 1, "b": [1, 2]}}, "users": {}, "products": {}}
    b = {"products": {}, "users": {}, "orders": {"x": {"b": [1, 2], "a": 1}}}
    assert state_hash(a) == state_hash(b)
    assert state_hash(a) != state_hash({"orders": {"x": {"a": 1.0, "b": [1, 2]}}, "users": {}, "products": {}})
    assert state_hash(a) != state_hash({"orders": {"x": {"a": 1, "b": [2, 1]}}, "users": {}, "products": {}})


def test_bad_environment_input() -> None:
    with pytest.raises(BadInput, match="RetailData"):
        RetailEnv({"orders": {}})
    with pytest.raises(BadInput, match="must be a dict"):
        RetailEnv({"orders": [], "users": {}, "products": {}})


# ------------------------------------------------------------------ gold replay on the real data


@pytest.fixture(scope="module")
def retail():
    try:
        return load_retail()
    except DataMissing as e:
        pytest.skip(f"τ-bench retail data not installed, skipping ({e})")


@pytest.fixture(scope="module")
def gold_replay(retail) -> dict[str, Any]:
    """Replay every task's gold actions on fresh data; per split: accepted, refused, final hashes.

    How the counts are made (they match the data README: 748/20 train, 558/24 test, 25/0 dev):
    every gold call is counted once, in task order, each task starting from fresh data, and
    nothing is left out: the 4 ``transfer_to_human_agents`` calls of the test split are counted
    (accepted: "Transfer successful"), and ``calculate`` calls count like any other tool (there
    are no ``think`` or ``respond`` gold calls). Upstream's reward skips the terminate tool when
    it replays, but that tool is read-only, so the final data is the same either way.
    """
    base = RetailEnv(retail)
    out: dict[str, Any] = {}
    for split, tasks in retail.tasks.items():
        accepted = refused = 0
        hashes = []
        for task in tasks:
            env = base.copy()
            for action in task["actions"]:
                if env.step(action["name"], action["kwargs"]).refused:
                    refused += 1
                else:
                    accepted += 1
            hashes.append(env.data_hash())
        out[split] = {"accepted": accepted, "refused": refused, "hashes": hashes}
    return out


def test_gold_replay_counts(gold_replay: dict[str, Any]) -> None:
    counts = {split: (v["accepted"], v["refused"]) for split, v in gold_replay.items()}
    assert counts == {"train": (748, 20), "test": (558, 24), "dev": (25, 0)}


def test_gold_final_data_equals_upstream(gold_replay: dict[str, Any]) -> None:
    expected = json.loads(EXPECTED_HASHES.read_text())["splits"]
    for split in ("train", "test", "dev"):
        got = gold_replay[split]["hashes"]
        assert len(got) == len(expected[split])
        wrong = [i for i, (a, b) in enumerate(zip(got, expected[split])) if a != b]
        assert wrong == [], f"{split}: final data differs from upstream for task indices {wrong[:20]}"


def test_data_hash_matches_full_hash_on_real_data(retail) -> None:
    env = RetailEnv(retail)
    assert env.data_hash() == state_hash({"orders": retail.orders, "users": retail.users, "products": retail.products})
    action = retail.tasks["train"][0]["actions"][0]
    child = env.copy()
    child.step(action["name"], action["kwargs"])
    assert child.data_hash() == state_hash(child.state) != env.data_hash()


def test_refused_gold_calls_leave_data_unchanged(retail) -> None:
    base = RetailEnv(retail)
    seen = 0
    for task in retail.tasks["train"][:200]:
        env = base.copy()
        for action in task["actions"]:
            before = env.data_hash()
            result = env.step(action["name"], action["kwargs"])
            if result.refused:
                seen += 1
                assert env.data_hash() == before
                assert result.changed == {"orders": {}, "users": {}, "products": {}}
    assert seen > 0
