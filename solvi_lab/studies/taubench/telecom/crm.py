"""The agent's 13 telecom tools on the CRM, plus the CRM-side initialisation and assertion functions.

Re-implemented from the behaviour document (``tau2-telecom-tools.md`` §2, §5). The class and method names and
the parameter names are upstream's, so that Python's own ``TypeError`` for a wrongly shaped call
(``TelecomTools.suspend_line() missing 1 required positional argument: 'reason'``) reads as upstream's. Arguments
are never type-checked: each tool uses the same kind of operation on them as upstream (``in`` on a list, ``<=``
against 0, ``.lower()``, slicing), so a wrong type fails with the same exception at the same point, or passes.
Refusals are exceptions; the environment turns them into ``"Error: <message>"``.

>>> from solvi_lab.studies.taubench.telecom.model import TelecomDB
>>> tools = TelecomTools(TelecomDB())
>>> tools.transfer_to_human_agents(summary=5)
'Transfer successful'
>>> tools.get_details_by_id("X1")
Traceback (most recent call last):
...
ValueError: Unknown ID format or type: X1
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable
from typing import Any

from .model import Bill, BillStatus, Customer, Line, LineItem, LineStatus, Plan, TelecomDB

__all__ = ["AGENT_FUNCTIONS", "AGENT_TOOLS", "AGENT_WRITING_TOOLS", "TODAY", "TelecomTools"]

#: The tools' fixed "today" (upstream's ``get_today``).
TODAY = datetime.date(2025, 2, 25)

#: The 13 agent tools, in upstream's order (``tools.json["assistant"]``).
AGENT_TOOLS: tuple[str, ...] = (
    "get_customer_by_phone",
    "get_customer_by_id",
    "get_customer_by_name",
    "get_details_by_id",
    "suspend_line",
    "resume_line",
    "get_bills_for_customer",
    "send_payment_request",
    "get_data_usage",
    "enable_roaming",
    "disable_roaming",
    "transfer_to_human_agents",
    "refuel_data",
)
#: The tools upstream marks WRITE (replayed by its evaluator); ``transfer_to_human_agents`` is GENERIC.
AGENT_WRITING_TOOLS = frozenset(
    {"suspend_line", "resume_line", "send_payment_request", "enable_roaming", "disable_roaming", "refuel_data"}
)
#: Non-tool methods that initialisation actions and environment assertions may name on this side.
AGENT_FUNCTIONS: tuple[str, ...] = (
    "set_data_usage",
    "suspend_line_for_overdue_bill",
    "get_available_plan_ids",
    "assert_data_refueling_amount",
    "assert_line_status",
    "assert_overdue_bill_exists",
    "assert_no_overdue_bill",
)


class TelecomTools:
    """The CRM toolkit. ``db`` is the live :class:`TelecomDB`; the tools change it in place.

    ``new_bill_id``: how a refuel names a Draft bill it has to create (upstream: ``"B"`` + 8 random hex digits);
    the environment passes a seeded one for reproducible studies.
    """

    def __init__(self, db: TelecomDB, new_bill_id: Callable[[], str] | None = None) -> None:
        self.db = db
        self._new_bill_id = new_bill_id or (lambda: f"B{uuid.uuid4().hex[:8]}")

    # --- lookups (helpers, not tools) ---------------------------------------------------------------------

    def _get_line_by_phone(self, phone_number: Any) -> Line:
        for line in self.db.lines:
            if line.phone_number == phone_number:
                return line
        raise ValueError(f"Line with phone number {phone_number} not found")

    def _get_line_by_id(self, line_id: Any) -> Line:
        for line in self.db.lines:
            if line.line_id == line_id:
                return line
        raise ValueError(f"Line with ID {line_id} not found")

    def _get_plan_by_id(self, plan_id: Any) -> Plan:
        for plan in self.db.plans:
            if plan.plan_id == plan_id:
                return plan
        raise ValueError(f"Plan with ID {plan_id} not found")

    def _get_device_by_id(self, device_id: Any) -> Any:
        for device in self.db.devices:
            if device.device_id == device_id:
                return device
        raise ValueError(f"Device with ID {device_id} not found")

    def _get_bill_by_id(self, bill_id: Any) -> Bill:
        for bill in self.db.bills:
            if bill.bill_id == bill_id:
                return bill
        raise ValueError(f"Bill with ID {bill_id} not found")

    def _get_target_line(self, customer_id: Any, line_id: Any) -> Line:
        customer = self.get_customer_by_id(customer_id)
        if line_id not in customer.line_ids:
            raise ValueError(f"Line {line_id} not found for customer {customer_id}")
        return self._get_line_by_id(line_id)

    def _get_bills_awaiting_payment(self, customer: Customer) -> list[Bill]:
        bills = [self._get_bill_by_id(bill_id) for bill_id in customer.bill_ids]
        return [bill for bill in bills if bill.status == BillStatus.AWAITING_PAYMENT]

    def _set_bill_to_paid(self, bill_id: Any) -> None:
        self._get_bill_by_id(bill_id).status = BillStatus.PAID

    # --- read tools -----------------------------------------------------------------------------------------

    def get_customer_by_phone(self, phone_number: str) -> Customer:
        # A customer matches on its own contact number or on the number of any of its lines, in file order.
        for customer in self.db.customers:
            if customer.phone_number == phone_number:
                return customer
            for line_id in customer.line_ids:
                if self._get_line_by_id(line_id).phone_number == phone_number:
                    return customer
        raise ValueError(f"Customer with phone number {phone_number} not found")

    def get_customer_by_id(self, customer_id: str) -> Customer:
        for customer in self.db.customers:
            if customer.customer_id == customer_id:
                return customer
        raise ValueError(f"Customer with ID {customer_id} not found")

    def get_customer_by_name(self, full_name: str, dob: str) -> list[Customer]:
        return [c for c in self.db.customers if c.full_name.lower() == full_name.lower() and c.date_of_birth == dob]

    def get_details_by_id(self, id: str) -> Any:  # noqa: A002 - upstream's parameter name
        # The first character picks the table (upper case only).
        if id.startswith("L"):
            return self._get_line_by_id(id)
        if id.startswith("D"):
            return self._get_device_by_id(id)
        if id.startswith("B"):
            return self._get_bill_by_id(id)
        if id.startswith("C"):
            return self.get_customer_by_id(id)
        if id.startswith("P"):
            return self._get_plan_by_id(id)
        raise ValueError(f"Unknown ID format or type: {id}")

    def get_bills_for_customer(self, customer_id: str, limit: int = 12) -> list[Bill]:
        customer = self.get_customer_by_id(customer_id)
        bills = [self._get_bill_by_id(bill_id) for bill_id in customer.bill_ids]
        return sorted(bills, key=lambda bill: bill.issue_date, reverse=True)[:limit]

    def get_data_usage(self, customer_id: str, line_id: str) -> dict[str, Any]:
        line = self._get_target_line(customer_id, line_id)
        plan = self._get_plan_by_id(line.plan_id)
        return {
            "line_id": line_id,
            "data_used_gb": line.data_used_gb,
            "data_limit_gb": plan.data_limit_gb,
            "data_refueling_gb": line.data_refueling_gb,
            "cycle_end_date": datetime.date(2025, 2, 28),  # the last day of TODAY's month
        }

    # --- write tools -----------------------------------------------------------------------------------------

    def suspend_line(self, customer_id: str, line_id: str, reason: str) -> dict[str, Any]:
        line = self._get_target_line(customer_id, line_id)
        if line.status != LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend")
        line.status = LineStatus.SUSPENDED
        line.suspension_start_date = TODAY
        return {"message": "Line suspended successfully. $5/month holding fee will apply.", "line": line}

    def resume_line(self, customer_id: str, line_id: str) -> dict[str, Any]:
        # No bill and no contract check: the policy's conditions are not enforced by the tool.
        line = self._get_target_line(customer_id, line_id)
        if line.status not in (LineStatus.SUSPENDED, LineStatus.PENDING_ACTIVATION):
            raise ValueError("Line must be suspended to resume")
        line.status = LineStatus.ACTIVE
        line.suspension_start_date = None
        return {"message": "Line resumed successfully", "line": line}

    def send_payment_request(self, customer_id: str, bill_id: str) -> str:
        customer = self.get_customer_by_id(customer_id)
        # The awaiting-payment check comes before the bill id is looked at.
        if self._get_bills_awaiting_payment(customer):
            raise ValueError("A bill is already awaiting payment for this customer")
        if bill_id not in customer.bill_ids:
            raise ValueError(f"Bill {bill_id} not found for customer {customer_id}")
        bill = self._get_bill_by_id(bill_id)
        bill.status = BillStatus.AWAITING_PAYMENT  # whatever it was, Paid and Draft included
        return f"Payment request sent to the customer for bill {bill.bill_id}"

    def enable_roaming(self, customer_id: str, line_id: str) -> str:
        line = self._get_target_line(customer_id, line_id)
        if line.roaming_enabled:
            return "Roaming was already enabled"
        line.roaming_enabled = True
        return "Roaming enabled successfully"

    def disable_roaming(self, customer_id: str, line_id: str) -> str:
        line = self._get_target_line(customer_id, line_id)
        if not line.roaming_enabled:
            return "Roaming was already disabled"
        line.roaming_enabled = False
        return "Roaming disabled successfully"

    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    def refuel_data(self, customer_id: str, line_id: str, gb_amount: float) -> dict[str, Any]:
        line = self._get_target_line(customer_id, line_id)
        # No maximum and no line-status check (the policy's 2 GB limit is not enforced).
        if gb_amount <= 0:
            raise ValueError("Refuel amount must be positive")
        plan = self._get_plan_by_id(line.plan_id)
        price = plan.data_refueling_price_per_gb
        charge = gb_amount * price
        line.data_refueling_gb += gb_amount  # before the bill is looked at (upstream's order)
        self._charge(customer_id, charge, f"Data refueling: {gb_amount} GB at ${price}/GB")
        return {
            "message": f"Successfully added {gb_amount} GB of data for line {line_id} for ${charge:.2f}",
            "new_data_refueling_gb": line.data_refueling_gb,
            "charge": charge,
        }

    def _charge(self, customer_id: Any, amount: float, description: str) -> None:
        """A one-time charge on the customer's first Draft bill, minting a Draft bill for next month if none."""
        customer = self.get_customer_by_id(customer_id)
        draft = None
        for bill_id in customer.bill_ids:
            bill = self._get_bill_by_id(bill_id)
            if bill.status == BillStatus.DRAFT:
                draft = bill
                break
        if draft is None:
            bill_id = self._new_bill_id()
            first = datetime.date(2025, 3, 1)  # the first day of the month after TODAY
            draft = Bill(
                bill_id=bill_id,
                customer_id=customer_id,
                period_start=first,
                period_end=datetime.date(2025, 3, 31),
                issue_date=first,
                total_due=0.0,
                due_date=first + datetime.timedelta(days=14),
                status=BillStatus.DRAFT,
            )
            self.db.bills.append(draft)
            customer.bill_ids.append(bill_id)
        draft.line_items.append(
            LineItem(description=description, amount=amount, date=TODAY, item_type="Credit" if amount < 0 else "Charge")
        )
        draft.total_due += amount

    # --- initialisation and assertion functions (not tools) ---------------------------------------------------

    def get_available_plan_ids(self) -> list[str]:
        return [plan.plan_id for plan in self.db.plans]

    def set_data_usage(self, customer_id: str, line_id: str, data_used_gb: float) -> str:
        line = self._get_target_line(customer_id, line_id)
        line.data_used_gb = data_used_gb
        return f"Data usage set to {data_used_gb} GB for line {line_id}"

    def suspend_line_for_overdue_bill(
        self, customer_id: str, line_id: str, new_bill_id: str, contract_ended: bool
    ) -> str:
        line = self._get_line_by_id(line_id)  # not the target-line check: any line
        if line.status != LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend for unpaid bill")
        amount = self._get_plan_by_id(line.plan_id).price_per_month
        if amount <= 0:
            raise ValueError("Amount must be positive for overdue bill")
        customer = self.get_customer_by_id(customer_id)
        if any(self._get_bill_by_id(b).status == BillStatus.OVERDUE for b in customer.bill_ids):
            raise ValueError("Customer already has an overdue bill")
        first, last = datetime.date(2025, 1, 1), datetime.date(2025, 1, 31)  # the month before TODAY
        bill = Bill(
            bill_id=new_bill_id,
            customer_id=customer_id,
            period_start=first,
            period_end=last,
            issue_date=first,
            total_due=0.0,
            due_date=first + datetime.timedelta(days=14),
            status=BillStatus.OVERDUE,
        )
        bill.line_items.append(
            LineItem(description=f"Charge for line {line.line_id}", amount=amount, date=TODAY, item_type="Charge")
        )
        bill.total_due += amount
        self.db.bills.append(bill)
        customer.bill_ids.append(new_bill_id)
        line.status = LineStatus.SUSPENDED
        line.suspension_start_date = TODAY
        if contract_ended:
            line.contract_end_date = last
        return f"Line {line_id} suspended for unpaid bill {new_bill_id}. Contract ended: {contract_ended}"

    def assert_data_refueling_amount(self, customer_id: str, line_id: str, expected_amount: float) -> bool:
        return abs(self._get_target_line(customer_id, line_id).data_refueling_gb - expected_amount) < 1e-6

    def assert_line_status(self, customer_id: str, line_id: str, expected_status: str) -> bool:
        return self._get_target_line(customer_id, line_id).status == expected_status

    def assert_overdue_bill_exists(self, customer_id: str, overdue_bill_id: str) -> bool:
        customer = self.get_customer_by_id(customer_id)
        if overdue_bill_id not in customer.bill_ids:
            raise ValueError(f"Overdue bill {overdue_bill_id} not found")
        if self._get_bill_by_id(overdue_bill_id).status != BillStatus.OVERDUE:
            raise ValueError(f"Overdue bill {overdue_bill_id} is not overdue")
        return True

    def assert_no_overdue_bill(self, overdue_bill_id: str) -> bool:
        try:
            return self._get_bill_by_id(overdue_bill_id).status == BillStatus.PAID
        except ValueError:
            return True
