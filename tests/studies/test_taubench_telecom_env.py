"""The τ²-bench telecom environment: the gold replay of all 2,285 tasks, sync, initialisation, reward, and each
tool's refusals and soft refusals as the tools document (``shared/docs/tau2-telecom-tools.md``) states them.

Everything runs on the shared data (``SOLVI_LAB_TAU2_TELECOM`` or ``shared/data/tau2-telecom``); the tests are
skipped, saying how to get it, when it is absent. The full replay takes about 10 s here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from solvi_lab.errors import BadInput, DataMissing
from solvi_lab.studies.taubench.telecom.crm import AGENT_TOOLS
from solvi_lab.studies.taubench.telecom.data import find_telecom_dir, load_telecom
from solvi_lab.studies.taubench.telecom.env import TelecomEnv, flatten, replay_task, task_reward
from solvi_lab.studies.taubench.telecom.model import TelecomDB, TelecomUserDB, to_json_str
from solvi_lab.studies.taubench.telecom.phone import USER_TOOLS, reset_shared_vpn_default, validate_apn

try:
    find_telecom_dir()
    HAVE_DATA = True
except DataMissing as e:  # pragma: no cover - the shared machine has the data
    HAVE_DATA, WHY = False, str(e)

needs_data = pytest.mark.skipif(not HAVE_DATA, reason="τ²-bench telecom data absent (set SOLVI_LAB_TAU2_TELECOM)")


@pytest.fixture(scope="module")
def data() -> Any:
    return load_telecom()


@pytest.fixture()
def env(data: Any) -> TelecomEnv:
    """The shipped databases with John Smith's phone number set (every task's first initialisation action)."""
    reset_shared_vpn_default()
    e = TelecomEnv.from_data(data, seed=0)
    e.run_function("user", "set_user_info", {"name": "John Smith", "phone_number": "555-123-2002"})
    return e


def call(env: TelecomEnv, requestor: str, name: str, **arguments: Any) -> tuple[str, bool]:
    r = env.step(requestor, name, arguments)
    return r.observation, r.refused


def agent(env: TelecomEnv, name: str, **arguments: Any) -> str:
    return env.step("assistant", name, arguments).observation


def user(env: TelecomEnv, name: str, **arguments: Any) -> str:
    return env.step("user", name, arguments).observation


# --- the gold replay -------------------------------------------------------------------------------------------


@needs_data
def test_every_task_gold_replay_is_accepted_and_meets_its_assertions(data: Any) -> None:
    base = TelecomEnv.from_data(data, seed=0)
    sides: Counter[str] = Counter()
    failed, refused = [], []
    for task in data.tasks:
        final, steps = replay_task(base, task)
        actions = task["evaluation_criteria"]["actions"]
        sides.update(a["requestor"] for a in actions)
        refused += [(task["id"], a["name"], s.observation) for a, s in zip(actions, steps) if s.refused]
        if task_reward(task, final, [(a["requestor"], a["name"]) for a in actions]) != 1.0:
            failed.append(task["id"])
    assert len(data.tasks) == 2285
    assert dict(sides) == {"user": 10927, "assistant": 2288}
    assert refused == []
    assert failed == []


@needs_data
def test_no_task_is_solved_by_its_initialisation_alone(data: Any) -> None:
    # The breaks are real: without the gold fix every task scores 0 (the 32 transfer tasks' assertions hold, but
    # their ACTION component asks for a transfer).
    base = TelecomEnv.from_data(data, seed=0)
    transfer_tasks_meeting_assertions = 0
    for task in data.tasks:
        run = base.copy()
        run.initialise(task)
        assert task_reward(task, run, []) == 0.0, task["id"]
        transfer_tasks_meeting_assertions += "ACTION" in task["evaluation_criteria"]["reward_basis"] and all(
            run.copy().check_assertions(task)
        )
    assert transfer_tasks_meeting_assertions == 32


@needs_data
def test_splits_and_transfer_action_check(data: Any) -> None:
    assert {k: len(v) for k, v in data.splits.items()} == {
        "small": 20,
        "train": 74,
        "test": 40,
        "full": 2285,
        "base": 114,
    }
    assert not set(data.splits["train"]) & set(data.splits["test"])
    task = next(t for t in data.split("test") if "ACTION" in t["evaluation_criteria"]["reward_basis"])
    final, _ = replay_task(TelecomEnv.from_data(data), task)
    # Any transfer call counts, even a refused one or the user's (upstream's ACTION check looks at names only).
    assert task_reward(task, final, [("user", "transfer_to_human_agents")]) == 1.0
    assert task_reward(task, final, [("assistant", "get_customer_by_id")]) == 0.0
    with pytest.raises(BadInput, match="no split 'dev'"):
        data.split("dev")


# --- dispatch ------------------------------------------------------------------------------------------------


@needs_data
def test_unknown_names_other_side_and_non_tool_functions_are_not_found(env: TelecomEnv) -> None:
    for requestor, name in [
        ("assistant", "toggle_data"),
        ("user", "get_customer_by_id"),
        ("assistant", "think"),
        ("assistant", "set_data_usage"),
        ("user", "break_vpn"),
        ("user", "get_status_bar"),  # the stale name in every task's user instructions
        ("user", "_toggle_data"),
    ]:
        r = env.step(requestor, name, {})
        assert (r.observation, r.refused, r.changed) == (
            f"Error: Tool '{name}' not found.",
            True,
            {"crm": {}, "phone": {}},
        )


@needs_data
def test_arguments_that_clash_with_the_dispatcher(env: TelecomEnv) -> None:
    base = "Environment.make_tool_call() got multiple values for"
    assert call(env, "assistant", "get_customer_by_id", customer_id="C1001", tool_name="x") == (
        f"Error: {base} argument 'tool_name'",
        True,
    )
    assert call(env, "user", "toggle_data", self=1) == (f"Error: {base} argument 'self'", True)
    # requestor wins over the others, whatever the key order, and before the unknown-name check
    r = env.step("user", "nope", {"self": 1, "requestor": "user"})
    assert (r.observation, r.refused) == (
        f"Error: tau2.environment.environment.{base} keyword argument 'requestor'",
        True,
    )
    assert call(env, "robot", "toggle_data") == ("Error: Invalid requestor: robot", True)
    with pytest.raises(BadInput, match="argument names must be strings"):
        env.step("user", "toggle_data", {1: 2})
    with pytest.raises(BadInput, match="tool name must be a str"):
        env.step("user", ["toggle_data"], {})


@needs_data
@pytest.mark.parametrize("requestor,name", [("assistant", n) for n in AGENT_TOOLS] + [("user", n) for n in USER_TOOLS])
def test_every_tool_refuses_an_extra_or_misspelt_argument_naming_the_first(
    env: TelecomEnv, requestor: str, name: str
) -> None:
    toolkit = "TelecomTools" if requestor == "assistant" else "TelecomUserTools"
    r = env.step(requestor, name, {"zz_first": 1, "zz_second": 2})
    assert r.observation == f"Error: {toolkit}.{name}() got an unexpected keyword argument 'zz_first'"
    assert r.refused and r.changed == {"crm": {}, "phone": {}}


MISSING = {
    ("assistant", "get_customer_by_phone"): "1 required positional argument: 'phone_number'",
    ("assistant", "get_customer_by_id"): "1 required positional argument: 'customer_id'",
    ("assistant", "get_customer_by_name"): "2 required positional arguments: 'full_name' and 'dob'",
    ("assistant", "get_details_by_id"): "1 required positional argument: 'id'",
    ("assistant", "suspend_line"): "3 required positional arguments: 'customer_id', 'line_id', and 'reason'",
    ("assistant", "resume_line"): "2 required positional arguments: 'customer_id' and 'line_id'",
    ("assistant", "get_bills_for_customer"): "1 required positional argument: 'customer_id'",
    ("assistant", "send_payment_request"): "2 required positional arguments: 'customer_id' and 'bill_id'",
    ("assistant", "get_data_usage"): "2 required positional arguments: 'customer_id' and 'line_id'",
    ("assistant", "enable_roaming"): "2 required positional arguments: 'customer_id' and 'line_id'",
    ("assistant", "disable_roaming"): "2 required positional arguments: 'customer_id' and 'line_id'",
    ("assistant", "transfer_to_human_agents"): "1 required positional argument: 'summary'",
    ("assistant", "refuel_data"): "3 required positional arguments: 'customer_id', 'line_id', and 'gb_amount'",
    ("user", "set_network_mode_preference"): "1 required positional argument: 'mode'",
    ("user", "set_apn_settings"): "1 required positional argument: 'apn_settings'",
    ("user", "check_app_status"): "1 required positional argument: 'app_name'",
    ("user", "check_app_permissions"): "1 required positional argument: 'app_name'",
    ("user", "grant_app_permission"): "2 required positional arguments: 'app_name' and 'permission'",
}


@needs_data
@pytest.mark.parametrize("requestor,name", sorted(MISSING))
def test_every_tool_with_arguments_refuses_missing_ones(env: TelecomEnv, requestor: str, name: str) -> None:
    toolkit = "TelecomTools" if requestor == "assistant" else "TelecomUserTools"
    assert call(env, requestor, name) == (f"Error: {toolkit}.{name}() missing {MISSING[(requestor, name)]}", True)


def test_five_user_tools_and_all_agent_tools_take_arguments() -> None:
    with_args = {n for side, n in MISSING if side == "user"}
    assert len(USER_TOOLS) == 30 and len(with_args) == 5 and with_args <= set(USER_TOOLS)
    assert len(AGENT_TOOLS) == 13 and {n for side, n in MISSING if side == "assistant"} == set(AGENT_TOOLS)


# --- agent tools ---------------------------------------------------------------------------------------------


@needs_data
def test_customer_lookups(env: TelecomEnv) -> None:
    assert '"customer_id": "C1002"' in agent(
        env, "get_customer_by_phone", phone_number="555-123-2005"
    )  # a line's number
    for bad in ["5551232002", "(555) 123-2002", "555-123-2002 ", 5551232002]:
        assert call(env, "assistant", "get_customer_by_phone", phone_number=bad) == (
            f"Error: Customer with phone number {bad} not found",
            True,
        )
    assert call(env, "assistant", "get_customer_by_id", customer_id="c1001") == (
        "Error: Customer with ID c1001 not found",
        True,
    )
    assert call(env, "assistant", "get_customer_by_id", customer_id=None) == (
        "Error: Customer with ID None not found",
        True,
    )
    text = agent(env, "get_customer_by_id", customer_id="C1001")
    assert text.startswith('{"customer_id": "C1001", "full_name": "John Smith", "date_of_birth": "1985-06-15"')
    assert '"created_at": "2025-01-15 10:30:00"' in text and '"goodwill_credit_used_this_year": 25.0}' in text
    assert agent(env, "get_customer_by_name", full_name="JOHN smith", dob="1985-06-15").startswith(
        '[{"customer_id": "C1001"'
    )
    assert call(env, "assistant", "get_customer_by_name", full_name="John Smith", dob=19850615) == ("[]", False)
    assert call(env, "assistant", "get_customer_by_name", full_name=5, dob="x") == (
        "Error: 'int' object has no attribute 'lower'",
        True,
    )


@needs_data
def test_get_details_by_id(env: TelecomEnv) -> None:
    assert agent(env, "get_details_by_id", id="P1002") == (
        '{"plan_id": "P1002", "name": "Premium Plan", "data_limit_gb": 15.0, "price_per_month": 65.0, '
        '"data_refueling_price_per_gb": 2.0}'
    )
    assert '"activation_date": "2025-01-20 14:30:00"' in agent(env, "get_details_by_id", id="D1001")
    for bad, text in [
        ("l1002", "Unknown ID format or type: l1002"),
        ("X1", "Unknown ID format or type: X1"),
        ("", "Unknown ID format or type: "),
        ("L", "Line with ID L not found"),
        ("B1234321", "Bill with ID B1234321 not found"),
        (5, "'int' object has no attribute 'startswith'"),
    ]:
        assert call(env, "assistant", "get_details_by_id", id=bad) == (f"Error: {text}", True)


@needs_data
def test_suspend_and_resume(env: TelecomEnv) -> None:
    for line, text in [
        ("L1004", "Line L1004 not found for customer C1001"),
        ("L9", "Line L9 not found for customer C1001"),
    ]:
        assert call(env, "assistant", "suspend_line", customer_id="C1001", line_id=line, reason="x") == (
            f"Error: {text}",
            True,
        )
    assert call(env, "assistant", "suspend_line", customer_id="C1001", line_id="L1003", reason="x") == (
        "Error: Line must be active to suspend",
        True,
    )
    r = env.step("assistant", "suspend_line", {"customer_id": "C1001", "line_id": "L1002", "reason": 5})
    assert not r.refused and r.observation.startswith(
        '{"message": "Line suspended successfully. $5/month holding fee will apply.", "line": {"line_id": "L1002"'
    )
    assert '"data_used_gb": 8.7' in r.observation  # a record inside a tool-built dict keeps its numbers
    assert r.changed == {
        "crm": {
            "lines.L1002.status": "Suspended",
            "lines.L1002.suspension_start_date": __import__("datetime").date(2025, 2, 25),
        },
        "phone": {"surroundings.line_active": False},
    }
    assert call(env, "assistant", "suspend_line", customer_id="C1001", line_id="L1002", reason="x")[1] is True
    # Dual control: the phone notices only at its next network search.
    assert user(env, "run_speed_test").startswith("Speed Test Result: 220.00 Mbps (Excellent).")
    assert call(env, "assistant", "resume_line", customer_id="C1001", line_id="L1001") == (
        "Error: Line must be suspended to resume",
        True,
    )
    assert agent(env, "resume_line", customer_id="C1001", line_id="L1002").startswith(
        '{"message": "Line resumed successfully"'
    )
    assert user(env, "check_status_bar") == "Status Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔋 80%"
    user(env, "toggle_airplane_mode")
    user(env, "toggle_airplane_mode")
    assert user(env, "check_status_bar") == "Status Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%"


@needs_data
def test_resume_checks_no_bill_and_no_contract(data: Any) -> None:
    e = TelecomEnv.from_data(data)
    e.run_function("user", "set_user_info", {"name": "John Smith", "phone_number": "555-123-2002"})
    e.run_function(
        "assistant",
        "suspend_line_for_overdue_bill",
        {"customer_id": "C1001", "line_id": "L1002", "new_bill_id": "B1234321", "contract_ended": True},
    )
    assert '"status": "Overdue"' in agent(e, "get_details_by_id", id="B1234321")
    assert not e.step("assistant", "resume_line", {"customer_id": "C1001", "line_id": "L1002"}).refused
    with pytest.raises(ValueError, match="Line must be active to suspend for unpaid bill"):
        e.run_function(
            "assistant",
            "suspend_line_for_overdue_bill",
            {"customer_id": "C1001", "line_id": "L1003", "new_bill_id": "B2", "contract_ended": False},
        )


@needs_data
def test_bills_and_payment_requests(env: TelecomEnv) -> None:
    assert call(env, "assistant", "get_bills_for_customer", customer_id="C1001", limit=0) == ("[]", False)
    assert call(env, "assistant", "get_bills_for_customer", customer_id="C1004") == ("[]", False)
    assert agent(env, "get_bills_for_customer", customer_id="C1001", limit=True).startswith('[{"bill_id": "B1003"')
    assert agent(env, "get_bills_for_customer", customer_id="C1001", limit=-1).count('"bill_id"') == 2
    assert agent(env, "get_bills_for_customer", customer_id="C1001", limit=None).count('"bill_id"') == 3
    assert call(env, "assistant", "get_bills_for_customer", customer_id="C1001", limit="2") == (
        "Error: slice indices must be integers or None or have an __index__ method",
        True,
    )
    assert call(env, "assistant", "send_payment_request", customer_id="C1001", bill_id="B1004") == (
        "Error: Bill B1004 not found for customer C1001",
        True,
    )
    assert user(env, "make_payment") == "You do not have a payment request."
    # A Paid bill is accepted; sync hands the phone its request.
    r = env.step("assistant", "send_payment_request", {"customer_id": "C1001", "bill_id": "B1001"})
    assert (r.observation, r.refused) == ("Payment request sent to the customer for bill B1001", False)
    assert r.changed["crm"] == {"bills.B1001.status": "Awaiting Payment"}
    assert r.changed["phone"] == {
        "surroundings.payment_request.bill_id": "B1001",
        "surroundings.payment_request.amount_due": 160.5,
        "surroundings.payment_request.paid": False,
    }
    # The awaiting check comes before the bill id.
    assert call(env, "assistant", "send_payment_request", customer_id="C1001", bill_id="nope") == (
        "Error: A bill is already awaiting payment for this customer",
        True,
    )
    assert user(env, "check_payment_request") == "You have a payment request for bill B1001 of 160.5 USD."
    r = env.step("user", "make_payment", {})
    assert r.observation == "Payment of 160.5 USD has been made for bill B1001."
    assert r.changed["crm"] == {"bills.B1001.status": "Paid"}
    assert user(env, "check_payment_request") == "No payment request has been made."
    assert user(env, "make_payment") == "You do not have a payment request."
    # A request to another customer never reaches John's phone.
    agent(env, "send_payment_request", customer_id="C1002", bill_id="B1005")
    assert user(env, "check_payment_request") == "No payment request has been made."


@needs_data
def test_roaming_and_data_usage(env: TelecomEnv) -> None:
    r = env.step("assistant", "enable_roaming", {"customer_id": "C1001", "line_id": "L1002"})
    assert (r.observation, r.refused, r.changed) == ("Roaming was already enabled", False, {"crm": {}, "phone": {}})
    r = env.step("assistant", "disable_roaming", {"customer_id": "C1001", "line_id": "L1002"})
    assert r.observation == "Roaming disabled successfully"
    assert r.changed == {
        "crm": {"lines.L1002.roaming_enabled": False},
        "phone": {"surroundings.roaming_allowed": False},
    }
    assert agent(env, "disable_roaming", customer_id="C1001", line_id="L1002") == "Roaming was already disabled"
    assert (
        agent(env, "enable_roaming", customer_id="C1001", line_id="L1003") == "Roaming enabled successfully"
    )  # suspended
    assert agent(env, "get_data_usage", customer_id="C1001", line_id="L1002") == (
        '{"line_id": "L1002", "data_used_gb": "8.7", "data_limit_gb": "15.0", "data_refueling_gb": "0.0", '
        '"cycle_end_date": "2025-02-28"}'
    )


@needs_data
def test_refuel(env: TelecomEnv) -> None:
    for amount, text in [
        (0, "Refuel amount must be positive"),
        (-0.0, "Refuel amount must be positive"),
        ("2", "'<=' not supported between instances of 'str' and 'int'"),
        (None, "'<=' not supported between instances of 'NoneType' and 'int'"),
    ]:
        r = env.step("assistant", "refuel_data", {"customer_id": "C1001", "line_id": "L1002", "gb_amount": amount})
        assert (r.observation, r.refused, r.changed) == (f"Error: {text}", True, {"crm": {}, "phone": {}})
    r = env.step("assistant", "refuel_data", {"customer_id": "C1001", "line_id": "L1002", "gb_amount": True})
    assert r.observation == (
        '{"message": "Successfully added True GB of data for line L1002 for $2.00", "new_data_refueling_gb": "1.0", '
        '"charge": "2.0"}'
    )
    assert r.changed["crm"]["lines.L1002.data_refueling_gb"] == 1.0
    assert r.changed["crm"]["bills.B1003.line_items.0.description"] == "Data refueling: True GB at $2.0/GB"
    assert r.changed["crm"]["bills.B1003.total_due"] == 2.0
    assert not env.step(
        "assistant", "refuel_data", {"customer_id": "C1001", "line_id": "L1003", "gb_amount": 100}
    ).refused
    # No Draft bill: a new one is minted (seeded id here), float noise kept in the charge.
    r = env.step("assistant", "refuel_data", {"customer_id": "C1002", "line_id": "L1004", "gb_amount": 3})
    assert '"charge": "0.30000000000000004"' in r.observation
    new_bills = {k.split(".")[1] for k in r.changed["crm"] if k.startswith("bills.")}
    assert len(new_bills) == 1 and next(iter(new_bills)).startswith("B") and len(next(iter(new_bills))) == 9


@needs_data
def test_transfer_accepts_any_summary(env: TelecomEnv) -> None:
    assert call(env, "assistant", "transfer_to_human_agents", summary=5) == ("Transfer successful", False)


# --- user tools ------------------------------------------------------------------------------------------------


@needs_data
def test_network_mode_soft_refusal_and_partial_writes(env: TelecomEnv) -> None:
    soft = "Failed to set network mode: '5G' is not a valid option. Please use one of: 4g_5g_preferred, 4g_only, 3g_only, 2g_only"
    r = env.step("user", "set_network_mode_preference", {"mode": "5G"})
    assert (r.observation.split("\n")[0], r.refused, r.changed) == (soft, False, {"crm": {}, "phone": {}})
    r = env.step("user", "set_network_mode_preference", {"mode": "3g_only"})
    assert (
        r.observation == "Preferred Network Mode set to: 3g_only\nStatus Bar: 📶² Fair | 3G | 📱 Data Enabled | 🔋 80%"
    )
    r = env.step("user", "set_network_mode_preference", {"mode": None})
    assert not r.refused and r.observation.startswith("Failed to set network mode: 'None' is not a valid option.")
    assert r.changed["phone"]["device.network_mode_preference"] is None  # stored although "failed"
    r = env.step("user", "set_network_mode_preference", {"mode": 5})
    assert (r.observation, r.refused) == ("Error: 'int' object has no attribute 'value'", True)
    assert r.changed["phone"]["device.network_mode_preference"] == 5  # refused, state changed
    assert call(env, "user", "check_network_mode_preference") == ("Error: 'int' object has no attribute 'value'", True)
    assert call(env, "user", "set_network_mode_preference", mode="4g_only")[1] is False  # repaired


@needs_data
def test_apn_settings(env: TelecomEnv) -> None:
    env.run_function("user", "break_apn_settings", {})
    assert user(env, "check_network_status").split("\n")[2] == "Cellular Connection: no_service"
    r = env.step("user", "reset_apn_settings", {})
    assert r.observation.startswith("APN settings will reset at reboot.") and not r.refused
    assert user(env, "check_apn_settings").startswith("Current APN Name: broken\nMMSC URL (for picture messages): http")
    assert user(env, "reboot_device").startswith(
        "Resetting APN settings...\nRestarting network services...\nStatus Bar: 📶⁴"
    )
    env.run_function("user", "break_apn_mms_setting", {})
    assert "MMSC URL (for picture messages): Not Set" in user(env, "check_apn_settings")
    assert user(env, "can_send_mms") == "Your messaging app cannot send MMS messages."
    assert user(env, "set_apn_settings", apn_settings={}).startswith("APN settings set to: internet\nStatus Bar:")
    assert user(env, "can_send_mms") == "Your messaging app can send MMS messages."
    assert not env.step("user", "set_apn_settings", {"apn_settings": {"mms_port": "80"}}).refused
    r = env.step("user", "set_apn_settings", {"apn_settings": {"apn_name": "foo"}})
    assert r.refused and r.changed == {"crm": {}, "phone": {}}
    assert r.observation.startswith(
        "Error: 1 validation error for APNSettings\napn_name\n  Input should be 'internet' or 'broken'"
    )
    r = env.step("user", "set_apn_settings", {"apn_settings": "internet"})
    assert (r.observation, r.refused) == ("Error: 'str' object has no attribute 'apn_name'", True)
    assert r.changed["phone"]["device.active_apn_settings"] == "internet"  # stored before the failure
    for tool, text in [
        ("check_apn_settings", "'str' object has no attribute 'model_copy'"),
        ("reset_apn_settings", "'str' object has no attribute 'reset_at_reboot'"),
        ("reboot_device", "'str' object has no attribute 'reset_at_reboot'"),
        ("toggle_data", "'str' object has no attribute 'apn_name'"),
    ]:
        assert call(env, "user", tool) == (f"Error: {text}", True)


def test_validate_apn_follows_pydantic_rules_and_texts() -> None:
    assert validate_apn({"reset_at_reboot": "yes", "mms_port": 80.0}).dump()["mms_port"] == 80
    with pytest.raises(ValueError) as e:
        validate_apn({"zz": 1, "reset_at_reboot": "maybe", "mms_apn": 5})
    lines = str(e.value).split("\n")
    assert lines[0] == "3 validation errors for APNSettings" and len(lines) == 10
    assert lines[1::3] == ["reset_at_reboot", "mms_apn", "zz"]  # fields in model order, then extra keys
    assert lines[2::3] == [
        "  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value='maybe', input_type=str]",
        "  Input should be a valid string [type=string_type, input_value=5, input_type=int]",
        "  Extra inputs are not permitted [type=extra_forbidden, input_value=1, input_type=int]",
    ]
    assert lines[3] == "    For further information visit https://errors.pydantic.dev/2.14/v/bool_parsing"


@needs_data
def test_apps_and_permissions(env: TelecomEnv) -> None:
    env.run_function("user", "remove_app_permission", {"app_name": "messaging", "permission": "storage"})
    assert user(env, "check_app_permissions", app_name="messaging") == "App 'messaging' has permission for: sms, phone."
    assert user(env, "check_app_status", app_name="browser") == (
        "Status for App: browser\n - Permissions Granted:\n   - storage\n   - network"
    )
    assert call(env, "user", "check_app_status", app_name="Messaging") == (
        "App 'Messaging' not found on this phone.",
        False,
    )
    assert call(env, "user", "check_app_status", app_name=["messaging"]) == ("Error: unhashable type: 'list'", True)
    r = env.step("user", "grant_app_permission", {"app_name": "messaging", "permission": "STORAGE"})
    assert r.observation.startswith("Success. Permission 'storage' granted to app 'messaging'.\nStatus Bar:")
    assert r.changed["phone"] == {"device.app_statuses.messaging.permissions.storage": True}
    r = env.step("user", "grant_app_permission", {"app_name": "camera", "permission": "sms"})
    assert (r.observation.split("\n")[0], r.refused) == (
        "Error. App 'camera' not found. Cannot grant permission.",
        False,
    )
    r = env.step("user", "grant_app_permission", {"app_name": "messaging", "permission": "camera"})
    assert r.observation.split("\n")[0] == (
        "Error. Permission 'camera' not tracked for app 'messaging', available permissions: "
        "['sms', 'storage', 'phone', 'network']"
    )
    assert not r.refused
    assert call(env, "user", "grant_app_permission", app_name="camera", permission=5) == (
        "Error: 'int' object has no attribute 'lower'",
        True,
    )


@needs_data
def test_radios_vpn_and_speed(env: TelecomEnv) -> None:
    assert user(env, "toggle_airplane_mode") == "Airplane Mode is now ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%"
    r = env.step("user", "toggle_wifi", {})
    assert (r.observation, r.refused, r.changed) == (
        "Cannot change Wi-Fi settings while Airplane Mode is ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%",
        False,
        {"crm": {}, "phone": {}},
    )
    user(env, "toggle_airplane_mode")
    assert user(env, "run_speed_test") == "Speed Test Result: 275.00 Mbps (Excellent). Connection is very fast."
    user(env, "toggle_data_saver_mode")
    assert user(env, "run_speed_test").startswith("Speed Test Result: 55.00 Mbps (Good).")
    assert (
        user(env, "connect_vpn")
        == "VPN connected successfully.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔽 Data Saver | 🔒 VPN Connected | 🔋 80%"
    )
    assert call(env, "user", "connect_vpn") == ("VPN already connected.", False)
    assert user(env, "check_vpn_status") == (
        "VPN is ON and connected. Details: {'server_address': '192.168.1.1', 'protocol': 'OpenVPN', "
        "'server_performance': <PerformanceLevel.EXCELLENT: 'excellent'>}"
    )
    assert user(env, "disconnect_vpn").startswith("VPN disconnected successfully.")
    assert user(env, "disconnect_vpn").startswith("No active VPN connection to disconnect.")
    env.run_function("user", "break_vpn", {})
    assert user(env, "run_speed_test").startswith("Speed Test Result: 5.50 Mbps (Fair).")
    user(env, "disconnect_vpn")
    user(env, "connect_vpn")  # the process-wide default is now poor (upstream's shared object)
    assert "<PerformanceLevel.POOR: 'poor'>" in user(env, "check_vpn_status")
    reset_shared_vpn_default()
    assert user(env, "toggle_wifi_calling").startswith("Wi-Fi Calling is now ON.")
    assert user(env, "check_wifi_calling_status") == "Wi-Fi Calling is currently turned ON."
    assert user(env, "toggle_wifi").startswith("Wi-Fi is now ON.")
    assert user(env, "check_wifi_status") == "Wi-Fi is ON but not connected to any network."


@needs_data
def test_usage_limit_roaming_abroad_and_sim(env: TelecomEnv) -> None:
    env.run_function("assistant", "set_data_usage", {"customer_id": "C1001", "line_id": "L1002", "data_used_gb": 16.0})
    assert user(env, "run_speed_test") == "Speed test failed: No Connection."
    assert user(env, "check_status_bar") == "Status Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔋 80%"  # says nothing
    agent(env, "refuel_data", customer_id="C1001", line_id="L1002", gb_amount=1.0)
    assert user(env, "run_speed_test") == "Speed test failed: No Connection."  # 16.0 >= 15 + 1
    agent(env, "refuel_data", customer_id="C1001", line_id="L1002", gb_amount=0.5)
    assert user(env, "run_speed_test").startswith("Speed Test Result: 220.00 Mbps")
    env.run_function("user", "set_user_location", {"abroad": True})
    assert user(env, "run_speed_test") == "Speed test failed: No Connection."
    user(env, "toggle_roaming")
    assert user(env, "run_speed_test").startswith("Speed Test Result: 275.00 Mbps")
    env.run_function("user", "lock_sim_card", {"mode": "pin"})
    assert (
        user(env, "reseat_sim_card")
        == "SIM card re-seated successfully.\nStatus Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%"
    )
    assert user(env, "check_sim_status") == "The SIM card is locked with a PIN code."


@needs_data
def test_a_phone_number_without_a_line_makes_every_call_refused_after_its_effect(data: Any) -> None:
    e = TelecomEnv.from_data(data)
    with pytest.raises(ValueError, match="Line with phone number 555-123-1002 not found"):
        e.run_function("user", "set_user_info", {"name": "Sarah", "phone_number": "555-123-1002"})
    r = e.step("user", "toggle_data", {})
    assert (r.observation, r.refused) == ("Error: Line with phone number 555-123-1002 not found", True)
    # toggle_data's network search also ran: the shipped "good" 5G signal became "excellent"
    assert r.changed["phone"] == {"device.data_enabled": False, "device.network_signal_strength": "excellent"}


def test_model_rendering_and_flatten_without_data() -> None:
    e = TelecomEnv(TelecomDB(), TelecomUserDB())
    assert e.step("user", "check_status_bar", {}).observation == "Status Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔋 80%"
    assert to_json_str([1, {"a": True}]) == '["1", {"a": "True"}]'
    assert flatten({"a": [], "b": [{"x": 1}]}) == {"a": [], "b.0.x": 1}
    copy = e.copy()
    copy.step("user", "toggle_data", {})
    assert e.phone.device.data_enabled is True and copy.phone.device.data_enabled is False
    assert e.data_hash() != copy.data_hash()
    with pytest.raises(BadInput, match="needs a TelecomDB and a TelecomUserDB"):
        TelecomEnv({}, {})  # type: ignore[arg-type]


@needs_data
def test_probe_is_a_step_on_a_copy(env: TelecomEnv) -> None:
    before = env.data_hash()
    probed = env.probe("assistant", "disable_roaming", {"customer_id": "C1001", "line_id": "L1002"})
    assert env.data_hash() == before
    stepped = env.copy().step("assistant", "disable_roaming", {"customer_id": "C1001", "line_id": "L1002"})
    assert (probed.observation, probed.refused, probed.changed) == (
        stepped.observation,
        stepped.refused,
        stepped.changed,
    )
    assert probed.changed["crm"] == {"lines.L1002.roaming_enabled": False}


@pytest.mark.parametrize(
    "values,outcome",
    [
        ({"mms_port": "80.0"}, 80),
        ({"mms_port": " 80 "}, 80),
        ({"mms_port": True}, 1),
        (
            {"mms_port": 1e20},
            "Unable to parse input string as an integer, exceeded maximum size [type=int_parsing_size",
        ),
        (
            {"mms_port": "80.5"},
            "Input should be a valid integer, unable to parse string as an integer [type=int_parsing",
        ),
        (
            {"reset_at_reboot": " true "},
            "Input should be a valid boolean, unable to interpret input [type=bool_parsing",
        ),
        ({"reset_at_reboot": 0.5}, "Input should be a valid boolean [type=bool_type"),
        ({"reset_at_reboot": 2.0}, "Input should be a valid boolean, unable to interpret input [type=bool_parsing"),
        ({"apn_name": "x" * 60}, f"input_value='{'x' * 24}...{'x' * 23}', input_type=str]"),
    ],
)
def test_validate_apn_edge_cases_as_pydantic(values: dict[str, Any], outcome: Any) -> None:
    # The outcomes were read from upstream's pydantic model (pydantic 2.14.4) on 2026-12-04.
    if isinstance(outcome, int):
        assert validate_apn(values).mms_port == outcome
    else:
        with pytest.raises(ValueError) as e:
            validate_apn(values)
        assert outcome in str(e.value)
