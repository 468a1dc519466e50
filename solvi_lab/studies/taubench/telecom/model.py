"""The telecom data model: the records of the agent's CRM and of the user's phone, as plain Python objects.

Each record class declares its fields in upstream's model order (``FIELDS``: name, kind, default). Records are
mutable attribute objects, like upstream's pydantic models without assignment validation: a tool that stores a
wrongly typed value stores it as is, and a later read trips over it with Python's own error (``'int' object has no
attribute 'value'``), which is what the environment reports. Enumerations are ``str`` enums, so they compare equal
to their strings and serialise as them.

:func:`load_record` builds a record from the TOML data, coercing values the way upstream's validation does for the
shipped files (ints to floats, ISO strings to dates and datetimes, strings to enums) and refusing unknown keys.
:func:`to_json_str` is upstream's rendering of a tool's return value as the observation text.

>>> line = load_record(Line, {"line_id": "L1", "phone_number": "555", "plan_id": "P1", "data_used_gb": 3})
>>> line.data_used_gb, line.status
(3.0, <LineStatus.PENDING_ACTIVATION: 'Pending Activation'>)
>>> to_json_str({"used": line.data_used_gb, "line": line})[:40]
'{"used": "3.0", "line": {"line_id": "L1"'
"""

from __future__ import annotations

import datetime
import json
from enum import Enum
from typing import Any, ClassVar

from ....errors import BadInput

__all__ = [
    "APNNames",
    "APNSettings",
    "Address",
    "AppPermissions",
    "AppStatus",
    "Bill",
    "BillStatus",
    "Customer",
    "Device",
    "Line",
    "LineItem",
    "LineStatus",
    "MockPhoneAttributes",
    "NetworkModePreference",
    "NetworkStatus",
    "NetworkTechnology",
    "PaymentMethod",
    "PaymentRequest",
    "PerformanceLevel",
    "Plan",
    "Record",
    "SignalStrength",
    "SimStatus",
    "TelecomDB",
    "TelecomUserDB",
    "UserSurroundings",
    "VpnDetails",
    "clone",
    "dump",
    "load_record",
    "to_json_str",
]

_REQUIRED = object()  # marks a field without a default


# --- enumerations (values exactly as upstream's) --------------------------------------------------------------


class LineStatus(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    ACTIVE = "Active"
    SUSPENDED = "Suspended"
    PENDING_ACTIVATION = "Pending Activation"
    CLOSED = "Closed"


class BillStatus(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    DRAFT = "Draft"
    ISSUED = "Issued"
    AWAITING_PAYMENT = "Awaiting Payment"
    PAID = "Paid"
    OVERDUE = "Overdue"
    DISPUTED = "Disputed"


class DeviceType(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    PHONE = "phone"
    ROUTER = "router"
    TABLET = "tablet"
    WATCH = "watch"
    OTHER = "other"


class AccountStatus(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    ACTIVE = "Active"
    SUSPENDED = "Suspended"
    PENDING_VERIFICATION = "Pending Verification"
    CLOSED = "Closed"


class PaymentMethodType(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    CREDIT_CARD = "Credit Card"
    DEBIT_CARD = "Debit Card"
    PAYPAL = "PayPal"


class SimStatus(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    ACTIVE = "active"
    MISSING = "missing"
    LOCKED_PIN = "locked_pin"
    LOCKED_PUK = "locked_puk"


class NetworkTechnology(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    NONE = "none"
    TWO_G = "2G"
    THREE_G = "3G"
    FOUR_G = "4G"
    FIVE_G = "5G"


class NetworkModePreference(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    FOUR_G_5G_PREFERRED = "4g_5g_preferred"
    FOUR_G_ONLY = "4g_only"
    THREE_G_ONLY = "3g_only"
    TWO_G_ONLY = "2g_only"


class SignalStrength(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    NONE = "none"
    POOR = "poor"
    FAIR = "fair"
    GOOD = "good"
    EXCELLENT = "excellent"


class PerformanceLevel(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    UNKNOWN = "unknown"
    POOR = "poor"
    FAIR = "fair"
    GOOD = "good"
    EXCELLENT = "excellent"


class NetworkStatus(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    CONNECTED = "connected"
    SEARCHING = "searching"
    NO_SERVICE = "no_service"
    EMERGENCY_ONLY = "emergency_only"


class APNNames(str, Enum):  # noqa: UP042 - upstream's (str, Enum): str() and f-strings must match
    INTERNET = "internet"
    BROKEN = "broken"


# --- records ---------------------------------------------------------------------------------------------------


class Record:
    """A record with declared fields; ``FIELDS`` is ``((name, kind, default), ...)`` in upstream's model order.

    kind: ``str``, ``float``, ``int``, ``bool``, ``date``, ``datetime``, an Enum class, a Record class,
    ``("list", Record)`` or ``("dict", Record)``; ``("opt", kind)`` allows None. A callable default is a factory.
    """

    FIELDS: ClassVar[tuple[tuple[str, Any, Any], ...]] = ()

    def __init__(self, **values: Any) -> None:
        for name, _kind, default in self.FIELDS:
            if name in values:
                value = values[name]
            elif default is _REQUIRED:
                raise BadInput(f"{type(self).__name__}: field {name!r} is required.")
            else:
                value = default() if callable(default) else default
            setattr(self, name, value)

    def dump(self) -> dict[str, Any]:
        """The field dict in model order, nested records dumped (upstream's ``model_dump``: enums kept)."""
        return {name: dump(getattr(self, name)) for name, _kind, _default in self.FIELDS}

    def __eq__(self, other: object) -> bool:
        # Field by field (dict equality recurses into nested records at C speed); 1 == 1.0, as in Python.
        return type(other) is type(self) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name, _kind, _default in self.FIELDS)
        return f"{type(self).__name__}({inner})"


def clone(value: Any) -> Any:
    """A deep copy of records, lists and dicts; scalars, enums and dates (immutable) are shared. Faster than pickle.

    >>> p = AppPermissions(); q = clone(p); q.sms = True; p.sms
    False
    """
    kind = type(value)
    if kind is list:
        return [clone(v) for v in value]
    if kind is dict:
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, Record):
        new = object.__new__(kind)
        new.__dict__ = {k: clone(v) for k, v in value.__dict__.items()}
        return new
    return value


def dump(value: Any) -> Any:
    """``model_dump`` of any value: records become dicts, containers are copied, everything else is kept."""
    if isinstance(value, Record):
        return value.dump()
    if isinstance(value, list):
        return [dump(v) for v in value]
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    return value


def _opt(kind: Any) -> tuple[str, Any]:
    return ("opt", kind)


class Plan(Record):
    FIELDS = (
        ("plan_id", str, _REQUIRED),
        ("name", str, _REQUIRED),
        ("data_limit_gb", float, _REQUIRED),
        ("price_per_month", float, _REQUIRED),
        ("data_refueling_price_per_gb", float, _REQUIRED),
    )


class Device(Record):
    FIELDS = (
        ("device_id", str, _REQUIRED),
        ("device_type", DeviceType, _REQUIRED),
        ("model", str, _REQUIRED),
        ("imei", _opt(str), None),
        ("is_esim_capable", bool, _REQUIRED),
        ("activated", bool, False),
        ("activation_date", _opt(datetime.datetime), None),
        ("last_esim_transfer_date", _opt(datetime.datetime), None),
    )


class Line(Record):
    FIELDS = (
        ("line_id", str, _REQUIRED),
        ("phone_number", str, _REQUIRED),
        ("status", LineStatus, LineStatus.PENDING_ACTIVATION),
        ("plan_id", str, _REQUIRED),
        ("device_id", _opt(str), None),
        ("data_used_gb", float, 0.0),
        ("data_refueling_gb", float, 0.0),
        ("roaming_enabled", bool, False),
        ("contract_end_date", _opt(datetime.date), None),
        ("last_plan_change_date", _opt(datetime.date), None),
        ("last_sim_replacement_date", _opt(datetime.date), None),
        ("suspension_start_date", _opt(datetime.date), None),
    )


class LineItem(Record):
    FIELDS = (
        ("description", str, _REQUIRED),
        ("amount", float, _REQUIRED),
        ("date", datetime.date, _REQUIRED),
        ("item_type", str, _REQUIRED),
    )


class Bill(Record):
    FIELDS = (
        ("bill_id", str, _REQUIRED),
        ("customer_id", str, _REQUIRED),
        ("period_start", datetime.date, _REQUIRED),
        ("period_end", datetime.date, _REQUIRED),
        ("issue_date", datetime.date, _REQUIRED),
        ("total_due", float, _REQUIRED),
        ("due_date", datetime.date, _REQUIRED),
        ("line_items", ("list", LineItem), list),
        ("status", BillStatus, BillStatus.DRAFT),
    )


class Address(Record):
    FIELDS = (
        ("street", str, _REQUIRED),
        ("city", str, _REQUIRED),
        ("state", str, _REQUIRED),
        ("zip_code", str, _REQUIRED),
    )


class PaymentMethod(Record):
    FIELDS = (
        ("method_type", PaymentMethodType, _REQUIRED),
        ("account_number_last_4", str, _REQUIRED),
        ("expiration_date", str, _REQUIRED),
    )


class Customer(Record):
    FIELDS = (
        ("customer_id", str, _REQUIRED),
        ("full_name", str, _REQUIRED),
        ("date_of_birth", str, _REQUIRED),
        ("email", str, _REQUIRED),
        ("phone_number", str, _REQUIRED),
        ("address", Address, _REQUIRED),
        ("account_status", AccountStatus, AccountStatus.PENDING_VERIFICATION),
        ("payment_methods", ("list", PaymentMethod), list),
        ("line_ids", ("list", str), list),
        ("bill_ids", ("list", str), list),
        # Upstream's default is a date, not a datetime; every shipped customer sets it.
        ("created_at", datetime.datetime, datetime.date(2025, 1, 1)),
        ("last_extension_date", _opt(datetime.date), None),
        ("goodwill_credit_used_this_year", float, 0.0),
    )


class TelecomDB(Record):
    """The agent's CRM (``db.toml``): five lists, scanned in file order by the tools."""

    FIELDS = (
        ("plans", ("list", Plan), list),
        ("customers", ("list", Customer), list),
        ("lines", ("list", Line), list),
        ("bills", ("list", Bill), list),
        ("devices", ("list", Device), list),
    )


class APNSettings(Record):
    FIELDS = (
        ("apn_name", APNNames, APNNames.INTERNET),
        ("reset_at_reboot", bool, False),
        ("mms_apn", _opt(str), "mms"),
        ("mmsc_url", _opt(str), "http://mms.carrier.com/mms/wapenc"),
        ("mms_proxy", _opt(str), None),
        ("mms_port", _opt(int), None),
    )


class VpnDetails(Record):
    FIELDS = (
        ("server_address", _opt(str), None),
        ("protocol", _opt(str), None),
        ("server_performance", PerformanceLevel, PerformanceLevel.UNKNOWN),
    )


class AppPermissions(Record):
    FIELDS = (("sms", bool, False), ("storage", bool, False), ("phone", bool, False), ("network", bool, False))


class AppStatus(Record):
    FIELDS = (("app_name", str, _REQUIRED), ("permissions", AppPermissions, AppPermissions))


def _default_apps() -> dict[str, AppStatus]:
    return {
        "messaging": AppStatus(app_name="messaging", permissions=AppPermissions(sms=True, storage=True, phone=True)),
        "browser": AppStatus(app_name="browser", permissions=AppPermissions(network=True, storage=True)),
    }


class MockPhoneAttributes(Record):
    """The user's phone (``user_db.toml`` ``[device]``)."""

    FIELDS = (
        ("sim_card_status", SimStatus, SimStatus.ACTIVE),
        ("sim_card_missing", bool, False),
        ("airplane_mode", bool, False),
        ("network_signal_strength", SignalStrength, SignalStrength.GOOD),
        ("network_technology_connected", NetworkTechnology, NetworkTechnology.FIVE_G),
        ("network_connection_status", NetworkStatus, NetworkStatus.CONNECTED),
        ("battery_level", int, 80),
        ("data_enabled", bool, True),
        ("roaming_enabled", bool, False),
        ("network_mode_preference", NetworkModePreference, NetworkModePreference.FOUR_G_5G_PREFERRED),
        ("active_apn_settings", APNSettings, APNSettings),
        ("wifi_enabled", bool, False),
        ("wifi_connected", bool, False),
        ("wifi_ssid", _opt(str), None),
        ("wifi_signal_strength", SignalStrength, SignalStrength.NONE),
        ("wifi_calling_enabled", bool, False),
        ("wifi_calling_mms_over_wifi", bool, False),
        ("data_saver_mode", bool, False),
        ("vpn_enabled_setting", bool, False),
        ("vpn_connected", bool, False),
        ("vpn_details", _opt(VpnDetails), None),
        ("app_statuses", ("dict", AppStatus), _default_apps),
    )


class PaymentRequest(Record):
    FIELDS = (("bill_id", str, _REQUIRED), ("amount_due", float, _REQUIRED), ("paid", bool, False))


def _default_signal() -> dict[NetworkTechnology, SignalStrength]:
    return {
        NetworkTechnology.TWO_G: SignalStrength.POOR,
        NetworkTechnology.THREE_G: SignalStrength.FAIR,
        NetworkTechnology.FOUR_G: SignalStrength.GOOD,
        NetworkTechnology.FIVE_G: SignalStrength.EXCELLENT,
    }


class UserSurroundings(Record):
    """Where the user is, and the facts sync copies from the CRM (``roaming_allowed``, ``line_active``, ...)."""

    FIELDS = (
        ("name", _opt(str), None),
        ("phone_number", _opt(str), None),
        ("is_abroad", bool, False),
        ("roaming_allowed", bool, False),
        ("signal_strength", ("signal", None), _default_signal),
        ("mobile_data_usage_exceeded", bool, False),
        ("line_active", bool, True),
        ("payment_request", _opt(PaymentRequest), None),
    )


class TelecomUserDB(Record):
    """The user's side (``user_db.toml``): the phone and its surroundings."""

    FIELDS = (
        ("device", MockPhoneAttributes, MockPhoneAttributes),
        ("surroundings", UserSurroundings, UserSurroundings),
    )


# --- loading ---------------------------------------------------------------------------------------------------


def _coerce(kind: Any, value: Any, where: str) -> Any:
    if isinstance(kind, tuple):
        tag, inner = kind
        if tag == "opt":
            return None if value is None else _coerce(inner, value, where)
        if tag == "list":
            if not isinstance(value, list):
                raise BadInput(f"{where}: expected a list, got {type(value).__name__}.")
            return [_coerce(inner, v, f"{where}[{i}]") for i, v in enumerate(value)]
        if tag == "dict":
            if not isinstance(value, dict):
                raise BadInput(f"{where}: expected a table, got {type(value).__name__}.")
            return {k: _coerce(inner, v, f"{where}.{k}") for k, v in value.items()}
        if tag == "signal":
            return {NetworkTechnology(k): SignalStrength(v) for k, v in value.items()}
    try:
        if isinstance(kind, type) and issubclass(kind, Record):
            if isinstance(value, kind):
                return value
            if not isinstance(value, dict):
                raise BadInput(f"{where}: expected a table for {kind.__name__}, got {type(value).__name__}.")
            return load_record(kind, value, where)
        if isinstance(kind, type) and issubclass(kind, Enum):
            return kind(value)
        if kind is float and type(value) in (int, float):
            return float(value)
        if kind is datetime.datetime and isinstance(value, str):
            return datetime.datetime.fromisoformat(value)
        if kind is datetime.date and isinstance(value, str):
            return datetime.date.fromisoformat(value)
        if kind is datetime.datetime and isinstance(value, datetime.datetime):
            return value
        if kind is datetime.date and type(value) is datetime.date:
            return value
        if kind in (str, bool, int) and type(value) is kind:
            return value
    except ValueError as e:
        raise BadInput(f"{where}: {e}; fix the value in the data file.") from None
    raise BadInput(f"{where}: expected {getattr(kind, '__name__', kind)}, got {type(value).__name__} {value!r}.")


def load_record(cls: type[Record], values: dict[str, Any], where: str | None = None) -> Any:
    """Build a ``cls`` from plain TOML/JSON values, coercing as upstream's validation does; BadInput if malformed.

    >>> load_record(Plan, {"plan_id": "P", "name": "n", "data_limit_gb": 1, "price_per_month": 2,
    ...                    "data_refueling_price_per_gb": 3, "colour": "red"})
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: Plan: unknown field(s) ['colour']; upstream's model forbids extra keys.
    """
    where = where or cls.__name__
    known = {name for name, _kind, _default in cls.FIELDS}
    extra = [k for k in values if k not in known]
    if extra:
        raise BadInput(f"{where}: unknown field(s) {extra}; upstream's model forbids extra keys.")
    coerced = {}
    for name, kind, default in cls.FIELDS:
        if name in values:
            coerced[name] = _coerce(kind, values[name], f"{where}.{name}")
        elif default is _REQUIRED:
            raise BadInput(f"{where}: field {name!r} is missing; the data file is not upstream's telecom data.")
    return cls(**coerced)


# --- observations ------------------------------------------------------------------------------------------------


def _process(value: Any) -> Any:
    # Upstream's Environment.to_json_str conversion pass: records dump (numbers stay numbers), but numbers and
    # booleans directly inside a plain dict or list become strings, and plain dates use isoformat.
    if isinstance(value, Record):
        return value.dump()
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, (int, float, bool)):
        return str(value)
    if isinstance(value, list):
        return [_process(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_process(v) for v in value)
    if isinstance(value, dict):
        return {k: _process(v) for k, v in value.items()}
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    raise ValueError(f"Unsupported type: {type(value)}")


def to_json_str(value: Any) -> str:
    """The observation text of a tool's return value, as upstream renders it.

    >>> to_json_str("Transfer successful")
    'Transfer successful'
    >>> to_json_str({"n": 1.5, "when": datetime.date(2025, 2, 28)})
    '{"n": "1.5", "when": "2025-02-28"}'
    >>> to_json_str(Device(device_id="D1", device_type=DeviceType.PHONE, model="X", is_esim_capable=True,
    ...     activation_date=datetime.datetime(2025, 1, 20, 14, 30)))[-74:]
    '"activation_date": "2025-01-20 14:30:00", "last_esim_transfer_date": null}'
    """
    if isinstance(value, str):
        return value
    return json.dumps(_process(value), default=str)
