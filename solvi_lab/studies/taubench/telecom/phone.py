"""The user's 30 telecom tools on the phone, plus the phone-side initialisation and assertion functions.

Re-implemented from the behaviour document (``tau2-telecom-tools.md`` §3, §5). As on the agent side, the class,
method and parameter names are upstream's, so Python's ``TypeError`` for a wrong call shape reads as upstream's,
and values are used with the same operations as upstream, so a wrongly typed value fails (or is stored) at the same
point. Two writes store a bad value before they fail (``set_network_mode_preference`` with a non-string,
``set_apn_settings`` with a non-object); the value stays in the phone and later reads trip over it, exactly as
upstream's do.

The validation of an APN *object* (``set_apn_settings({...})``) is upstream's pydantic model; here
:func:`validate_apn` applies the same field rules and writes pydantic's error text for the cases a JSON argument
can produce (unknown keys, a wrong enum value, wrong scalar types).

>>> from solvi_lab.studies.taubench.telecom.model import TelecomUserDB
>>> phone = TelecomUserTools(TelecomUserDB())
>>> phone.toggle_data()
'Mobile Data is now OFF.\\nStatus Bar: 📶⁴ Excellent | 5G | 📵 Data Disabled | 🔋 80%'
>>> phone.check_installed_apps()
'The following apps are installed on the phone: messaging, browser'
"""

from __future__ import annotations

from typing import Any

from .model import (
    APNNames,
    APNSettings,
    MockPhoneAttributes,
    NetworkModePreference,
    NetworkStatus,
    NetworkTechnology,
    PerformanceLevel,
    SignalStrength,
    SimStatus,
    TelecomUserDB,
    UserSurroundings,
    VpnDetails,
)

__all__ = [
    "PYDANTIC_VERSION",
    "USER_FUNCTIONS",
    "USER_TOOLS",
    "USER_WRITING_TOOLS",
    "TelecomUserTools",
    "reset_shared_vpn_default",
    "validate_apn",
]

#: The 30 user tools, in upstream's order (``tools.json["user"]``).
USER_TOOLS: tuple[str, ...] = (
    "check_status_bar",
    "check_network_status",
    "check_network_mode_preference",
    "set_network_mode_preference",
    "run_speed_test",
    "toggle_airplane_mode",
    "check_sim_status",
    "reseat_sim_card",
    "toggle_data",
    "toggle_roaming",
    "check_data_restriction_status",
    "toggle_data_saver_mode",
    "check_apn_settings",
    "set_apn_settings",
    "reset_apn_settings",
    "check_wifi_status",
    "toggle_wifi",
    "check_wifi_calling_status",
    "toggle_wifi_calling",
    "check_vpn_status",
    "connect_vpn",
    "disconnect_vpn",
    "check_installed_apps",
    "check_app_status",
    "check_app_permissions",
    "grant_app_permission",
    "can_send_mms",
    "reboot_device",
    "check_payment_request",
    "make_payment",
)
USER_WRITING_TOOLS = frozenset(
    {
        "set_network_mode_preference",
        "toggle_airplane_mode",
        "reseat_sim_card",
        "toggle_data",
        "toggle_roaming",
        "toggle_data_saver_mode",
        "set_apn_settings",
        "reset_apn_settings",
        "toggle_wifi",
        "toggle_wifi_calling",
        "connect_vpn",
        "disconnect_vpn",
        "grant_app_permission",
        "reboot_device",
        "make_payment",
    }
)
#: Non-tool methods that initialisation actions and environment assertions may name on this side.
USER_FUNCTIONS: tuple[str, ...] = (
    "set_user_info",
    "set_user_location",
    "turn_airplane_mode_on",
    "turn_airplane_mode_off",
    "unseat_sim_card",
    "lock_sim_card",
    "turn_data_on",
    "turn_data_off",
    "turn_roaming_on",
    "turn_roaming_off",
    "turn_data_saver_mode_on",
    "turn_data_saver_mode_off",
    "break_apn_settings",
    "break_apn_mms_setting",
    "set_wifi_calling",
    "break_vpn",
    "remove_app_permission",
    "simulate_network_search",
    "assert_airplane_mode_status",
    "assert_service_status",
    "assert_mobile_data_status",
    "assert_mobile_roaming_status",
    "assert_mobile_data_saver_mode_status",
    "assert_internet_speed",
    "assert_internet_not_excellent",
    "assert_can_send_mms",
    "assert_mobile_data_usage_exceeded",
)

#: The pydantic version whose error texts :func:`validate_apn` writes (the one the tools document was checked on).
PYDANTIC_VERSION = "2.14"

# Upstream's connect_vpn installs one details object shared by every phone in the process, and break_vpn (the
# initialisation of the VPN tasks) sets that object's performance to poor: after any VPN task, every later
# connect_vpn in the process connects a poor VPN. Modelled as this process-wide performance (see the docs page).
_SHARED_VPN = {"performance": PerformanceLevel.EXCELLENT}


def reset_shared_vpn_default() -> None:
    """Restore the process-wide VPN default to a fresh process's (``excellent``)."""
    _SHARED_VPN["performance"] = PerformanceLevel.EXCELLENT


_SIGNAL_ICONS = {
    SignalStrength.NONE: "📵 No Signal",
    SignalStrength.POOR: "📶¹ Poor",
    SignalStrength.FAIR: "📶² Fair",
    SignalStrength.GOOD: "📶³ Good",
    SignalStrength.EXCELLENT: "📶⁴ Excellent",
}
_SPEED_RANGE = {
    NetworkTechnology.TWO_G: (0.1, 0.4),
    NetworkTechnology.THREE_G: (1.0, 5.0),
    NetworkTechnology.FOUR_G: (10.0, 100.0),
    NetworkTechnology.FIVE_G: (50.0, 500.0),
    NetworkTechnology.NONE: (0.0, 0.0),
}
_SIGNAL_FACTOR = {
    SignalStrength.POOR: 0.2,
    SignalStrength.FAIR: 0.5,
    SignalStrength.GOOD: 0.8,
    SignalStrength.EXCELLENT: 1.0,
    SignalStrength.NONE: 0.0,
}
_SPEED_ADVICE = {
    "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
    "Poor": "Connection is slow. Web browsing may be sluggish, streaming difficult.",
    "Fair": "Connection is okay for web browsing and some standard definition streaming.",
    "Good": "Connection is good for most activities, including HD streaming.",
    "Excellent": "Connection is very fast.",
}
_SEARCH_TECH = {
    NetworkModePreference.FOUR_G_ONLY: NetworkTechnology.FOUR_G,
    NetworkModePreference.THREE_G_ONLY: NetworkTechnology.THREE_G,
    NetworkModePreference.TWO_G_ONLY: NetworkTechnology.TWO_G,
}


# --- APN object validation (pydantic's rules and texts) ---------------------------------------------------------

_I64 = float(2**63)  # pydantic turns a float into an integer only within i64
_BOOL_WORDS = {"0": False, "off": False, "f": False, "false": False, "n": False, "no": False,
               "1": True, "on": True, "t": True, "true": True, "y": True, "yes": True}  # fmt: skip


def _check_field(kind: Any, value: Any) -> tuple[Any, tuple[str, str] | None]:
    """(validated value, None) or (None, (message, error type)) for one APN field, pydantic's lax mode."""
    if isinstance(kind, tuple):  # Optional[...]
        if value is None:
            return None, None
        kind = kind[1]
    if kind is APNNames:
        if isinstance(value, str) and value in ("internet", "broken"):
            return APNNames(value), None
        return None, ("Input should be 'internet' or 'broken'", "enum")
    if kind is bool:
        if type(value) is bool:
            return value, None
        if type(value) in (int, float):
            if value in (0, 1):
                return bool(value), None
            if type(value) is float and not value.is_integer():
                return None, ("Input should be a valid boolean", "bool_type")
            return None, ("Input should be a valid boolean, unable to interpret input", "bool_parsing")
        if isinstance(value, str):
            word = _BOOL_WORDS.get(value.lower())  # case-insensitive, but no trimming
            if word is None:
                return None, ("Input should be a valid boolean, unable to interpret input", "bool_parsing")
            return word, None
        return None, ("Input should be a valid boolean", "bool_type")
    if kind is str:
        if isinstance(value, str):
            return value, None
        return None, ("Input should be a valid string", "string_type")
    # int
    if type(value) is int:
        return value, None
    if type(value) is bool:
        return int(value), None
    if type(value) is float:
        if value != value or abs(value) == float("inf"):
            return None, ("Input should be a finite number", "finite_number")
        if not value.is_integer():
            return None, ("Input should be a valid integer, got a number with a fractional part", "int_from_float")
        if not -_I64 <= value <= _I64:
            return None, ("Unable to parse input string as an integer, exceeded maximum size", "int_parsing_size")
        return int(value), None
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text), None
        except ValueError:
            pass
        # a decimal string with a zero fractional part ("80.0") is an integer too
        head, dot, tail = text.partition(".")
        if dot and tail and set(tail) == {"0"}:
            try:
                return int(head), None
            except ValueError:
                pass
        return None, ("Input should be a valid integer, unable to parse string as an integer", "int_parsing")
    return None, ("Input should be a valid integer", "int_type")


def _short_repr(value: Any) -> str:
    """pydantic's shortened input repr: over 50 characters, the first 25 and the last 24 around ``...``."""
    text = repr(value)
    return text if len(text) <= 50 else f"{text[:25]}...{text[-24:]}"


def validate_apn(values: dict[str, Any]) -> APNSettings:
    """An :class:`APNSettings` from a dict, or ValueError with pydantic's text (fields first, then extra keys).

    >>> validate_apn({"mms_port": "80"}).mms_port
    80
    >>> print(validate_apn({"apn_name": "foo"}))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: 1 validation error for APNSettings
    apn_name
      Input should be 'internet' or 'broken' [type=enum, input_value='foo', input_type=str]
        For further information visit https://errors.pydantic.dev/2.14/v/enum
    """
    errors: list[tuple[str, str, str, Any]] = []
    good: dict[str, Any] = {}
    for name, kind, _default in APNSettings.FIELDS:
        if name in values:
            value, error = _check_field(kind, values[name])
            if error is None:
                good[name] = value
            else:
                errors.append((name, error[0], error[1], values[name]))
    known = {name for name, _kind, _default in APNSettings.FIELDS}
    errors += [(k, "Extra inputs are not permitted", "extra_forbidden", v) for k, v in values.items() if k not in known]
    if errors:
        head = f"{len(errors)} validation error{'s' if len(errors) > 1 else ''} for APNSettings"
        body = [
            f"{loc}\n  {msg} [type={kind}, input_value={_short_repr(value)}, input_type={type(value).__name__}]\n"
            f"    For further information visit https://errors.pydantic.dev/{PYDANTIC_VERSION}/v/{kind}"
            for loc, msg, kind, value in errors
        ]
        raise ValueError("\n".join([head, *body]))
    return APNSettings(**good)


class TelecomUserTools:
    """The phone toolkit. ``db`` is the live :class:`TelecomUserDB`; the tools change it in place."""

    def __init__(self, db: TelecomUserDB) -> None:
        self.db = db

    @property
    def device(self) -> MockPhoneAttributes:
        return self.db.device

    @property
    def surroundings(self) -> UserSurroundings:
        return self.db.surroundings

    # --- machinery ------------------------------------------------------------------------------------------

    def _status_bar(self) -> str:
        d = self.device
        parts = []
        if d.airplane_mode:
            parts.append("✈️ Airplane Mode")
        else:
            parts.append(_SIGNAL_ICONS.get(d.network_signal_strength, "📵 No Signal"))
            if d.network_technology_connected != NetworkTechnology.NONE:
                parts.append(d.network_technology_connected.value)
            if d.data_enabled and d.network_technology_connected != NetworkTechnology.NONE:
                parts.append("📱 Data Enabled")
                if d.data_saver_mode:
                    parts.append("🔽 Data Saver")
            else:
                parts.append("📵 Data Disabled")
        if d.wifi_enabled and d.wifi_connected:
            parts.append(f"📡 Connected to {d.wifi_ssid}" if d.wifi_ssid else "📡 Enabled")
        if d.vpn_connected:
            parts.append("🔒 VPN Connected")
        parts.append(f"🔋 {d.battery_level}%")
        return " | ".join(parts)

    def _with_bar(self, text: str) -> str:
        return f"{text}\nStatus Bar: {self._status_bar()}"

    def _sim_status(self) -> SimStatus:
        return SimStatus.MISSING if self.device.sim_card_missing else self.device.sim_card_status

    def simulate_network_search(self) -> None:
        """Re-derive the cellular connection from SIM, preference, airplane mode, APN and line status."""
        d, signal = self.device, self.surroundings.signal_strength
        if self._sim_status() == SimStatus.ACTIVE:
            d.network_connection_status = NetworkStatus.CONNECTED
            pref = d.network_mode_preference
            if pref == NetworkModePreference.FOUR_G_5G_PREFERRED:
                five = signal.get(NetworkTechnology.FIVE_G, SignalStrength.NONE)
                if five == SignalStrength.NONE:
                    d.network_technology_connected = NetworkTechnology.FOUR_G
                    d.network_signal_strength = signal.get(NetworkTechnology.FOUR_G, SignalStrength.NONE)
                else:
                    d.network_technology_connected = NetworkTechnology.FIVE_G
                    d.network_signal_strength = five
            else:
                # An unknown (badly stored) preference falls back to 4G; a dict or list key is unhashable here
                # in our lookup, so compare the way upstream's if-chain does.
                tech = NetworkTechnology.FOUR_G
                for mode, mode_tech in _SEARCH_TECH.items():
                    if pref == mode:
                        tech = mode_tech
                        break
                d.network_technology_connected = tech
                d.network_signal_strength = signal.get(tech, SignalStrength.NONE)
        else:
            self._no_service()
        if d.airplane_mode:
            self._no_service()
        if d.active_apn_settings.apn_name == APNNames.BROKEN:
            self._no_service()
        if not self.surroundings.line_active:
            self._no_service()

    def _no_service(self) -> None:
        d = self.device
        d.network_connection_status = NetworkStatus.NO_SERVICE
        d.network_technology_connected = NetworkTechnology.NONE
        d.network_signal_strength = SignalStrength.NONE

    def _mobile_data_working(self) -> bool:
        d, s = self.device, self.surroundings
        if d.airplane_mode or d.network_signal_strength == SignalStrength.NONE:
            return False
        if d.network_connection_status == NetworkStatus.NO_SERVICE:
            return False
        if s.is_abroad and (not d.roaming_enabled or not s.roaming_allowed):
            return False
        if not d.data_enabled:
            return False
        return not s.mobile_data_usage_exceeded

    def _speed_test(self) -> tuple[float | None, str]:
        if not self._mobile_data_working():
            return None, "No Connection"
        d = self.device
        factor = 1.0
        if d.vpn_connected and d.vpn_details and d.vpn_details.server_performance == PerformanceLevel.POOR:
            factor = 0.1
        if d.data_saver_mode:
            factor *= 0.2
        low, high = _SPEED_RANGE.get(d.network_technology_connected, (0.0, 0.0))
        speed = round((low + high) / 2.0 * _SIGNAL_FACTOR.get(d.network_signal_strength, 0.0) * factor, 2)
        if speed < 1:
            return speed, "Very Poor"
        if speed < 5:
            return speed, "Poor"
        if speed < 25:
            return speed, "Fair"
        if speed < 100:
            return speed, "Good"
        return speed, "Excellent"

    def _can_send_mms(self) -> bool:
        d = self.device
        if not self._mobile_data_working():
            return False
        if d.network_technology_connected == NetworkTechnology.TWO_G:
            return False
        if d.wifi_calling_enabled and d.wifi_calling_mms_over_wifi:
            return False
        if d.active_apn_settings.mmsc_url is None:
            return False
        app = d.app_statuses.get("messaging")
        if app is None:
            return False
        return app.permissions.storage and app.permissions.sms

    def _toggle_airplane(self) -> bool:
        d = self.device
        was_on = d.airplane_mode
        d.airplane_mode = not was_on
        if was_on:
            d.network_connection_status = NetworkStatus.SEARCHING
            if d.wifi_enabled:
                self._drop_wifi()
        else:
            self._drop_wifi()
            if d.vpn_connected:
                self._disconnect_vpn()
        self.simulate_network_search()
        return d.airplane_mode

    def _drop_wifi(self) -> None:
        d = self.device
        d.wifi_connected = False
        d.wifi_ssid = None
        d.wifi_signal_strength = SignalStrength.NONE

    def _toggle_data(self) -> bool:
        self.device.data_enabled = not self.device.data_enabled
        self.simulate_network_search()
        return self.device.data_enabled

    def _toggle_roaming(self) -> bool:
        self.device.roaming_enabled = not self.device.roaming_enabled
        self.simulate_network_search()
        return self.device.roaming_enabled

    def _toggle_data_saver(self) -> bool:
        self.device.data_saver_mode = not self.device.data_saver_mode
        return self.device.data_saver_mode

    def _disconnect_vpn(self) -> bool:
        if not self.device.vpn_connected:
            return False
        self.device.vpn_connected = False
        self.device.vpn_details = None
        return True

    def _connect_vpn(self) -> bool:
        if self.device.vpn_connected:
            return False
        self.device.vpn_connected = True
        self.device.vpn_details = VpnDetails(
            server_address="192.168.1.1", protocol="OpenVPN", server_performance=_SHARED_VPN["performance"]
        )
        return True

    @staticmethod
    def _granted(permissions: Any) -> list[str]:
        return [name.replace("_", " ").lower() for name, on in permissions.dump().items() if on]

    # --- tools: status and network ---------------------------------------------------------------------------

    def check_status_bar(self) -> str:
        return f"Status Bar: {self._status_bar()}"

    def check_network_status(self) -> str:
        d = self.device
        lines = [
            f"Airplane Mode: {'ON' if d.airplane_mode else 'OFF'}",
            f"SIM Card Status: {self._sim_status().value}",
            f"Cellular Connection: {d.network_connection_status.value}",
            f"Cellular Signal: {d.network_signal_strength.value}",
            f"Cellular Network Type: {d.network_technology_connected.value}",
            f"Mobile Data Enabled: {'Yes' if d.data_enabled else 'No'}",
            f"Data Roaming Enabled: {'Yes' if d.roaming_enabled else 'No'}",
            f"Wi-Fi Radio: {'ON' if d.wifi_enabled else 'OFF'}",
            f"Wi-Fi Connected: {'Yes' if d.wifi_connected else 'No'}",
        ]
        if d.wifi_connected:
            lines.append(f"Connected Wi-Fi Network: {d.wifi_ssid}")
        return "\n".join(lines)

    def check_network_mode_preference(self) -> str:
        return f"Network Mode Preference: {self.device.network_mode_preference.value}"

    def set_network_mode_preference(self, mode: str) -> str:
        # A string is parsed first (an invalid one is a soft refusal); any other value is stored and searched with
        # as is, and only then does reading its .value fail: the partial write of the tools document (§1.2).
        valid: Any
        try:
            if isinstance(mode, str):
                mode = NetworkModePreference(mode)
            self.device.network_mode_preference = mode
            self.simulate_network_search()
            valid = mode
        except ValueError:
            valid = None
        if valid is None:
            options = ", ".join(m.value for m in NetworkModePreference)
            return self._with_bar(
                f"Failed to set network mode: '{mode}' is not a valid option. Please use one of: {options}"
            )
        return self._with_bar(f"Preferred Network Mode set to: {valid.value}")

    def run_speed_test(self) -> str:
        speed, label = self._speed_test()
        if speed is None:
            return f"Speed test failed: {label or 'Could not determine speed'}."
        return f"Speed Test Result: {speed:.2f} Mbps ({label}). {_SPEED_ADVICE.get(label, '')}"

    def toggle_airplane_mode(self) -> str:
        return self._with_bar(f"Airplane Mode is now {'ON' if self._toggle_airplane() else 'OFF'}.")

    # --- tools: SIM, data, roaming ---------------------------------------------------------------------------

    def check_sim_status(self) -> str:
        texts = {
            SimStatus.ACTIVE: "Your SIM card is active and working.",
            SimStatus.MISSING: "No SIM card detected in the phone.",
            SimStatus.LOCKED_PIN: "The SIM card is locked with a PIN code.",
            SimStatus.LOCKED_PUK: "The SIM card is locked with a PUK code.",
        }
        status = self._sim_status()
        return texts.get(status, f"Unknown SIM status: {status.value}")

    def reseat_sim_card(self) -> str:
        # A PIN/PUK lock stays: no tool unlocks the SIM.
        self.device.sim_card_missing = False
        self.simulate_network_search()
        return self._with_bar("SIM card re-seated successfully.")

    def toggle_data(self) -> str:
        return self._with_bar(f"Mobile Data is now {'ON' if self._toggle_data() else 'OFF'}.")

    def toggle_roaming(self) -> str:
        return self._with_bar(f"Data Roaming is now {'ON' if self._toggle_roaming() else 'OFF'}.")

    def check_data_restriction_status(self) -> str:
        return (
            "Data Saver mode is ON (limits data usage)." if self.device.data_saver_mode else "Data Saver mode is OFF."
        )

    def toggle_data_saver_mode(self) -> str:
        return self._with_bar(f"Data Saver Mode is now {'ON' if self._toggle_data_saver() else 'OFF'}.")

    # --- tools: APN ----------------------------------------------------------------------------------------

    def check_apn_settings(self) -> str:
        settings = self.device.active_apn_settings
        if not isinstance(settings, APNSettings):  # upstream deep-copies the model first, which fails here
            raise AttributeError(f"'{type(settings).__name__}' object has no attribute 'model_copy'")
        name = settings.apn_name.value or "Not Set"
        url = settings.mmsc_url or "Not Set"
        return (
            f"Current APN Name: {name}\nMMSC URL (for picture messages): {url}\n"
            "(These are technical settings, usually best left unchanged.)"
        )

    def set_apn_settings(self, apn_settings: dict[str, Any]) -> str:
        if isinstance(apn_settings, dict):
            apn_settings = validate_apn(apn_settings)
        # A non-object is stored before its name is read: the partial write of §1.2.
        self.device.active_apn_settings = apn_settings
        text = f"APN settings set to: {apn_settings.apn_name.value}"
        self.simulate_network_search()
        return self._with_bar(text)

    def reset_apn_settings(self) -> str:
        # Only schedules the reset; reboot_device applies it.
        self.device.active_apn_settings.reset_at_reboot = True
        self.simulate_network_search()
        return self._with_bar("APN settings will reset at reboot.")

    # --- tools: Wi-Fi, Wi-Fi calling, VPN ---------------------------------------------------------------------

    def check_wifi_status(self) -> str:
        d = self.device
        if not d.wifi_enabled:
            return "Wi-Fi is turned OFF."
        if d.wifi_connected:
            return f"Wi-Fi is ON and connected to '{d.wifi_ssid}'. Signal strength: {d.wifi_signal_strength.value}."
        return "Wi-Fi is ON but not connected to any network."

    def toggle_wifi(self) -> str:
        d = self.device
        if d.airplane_mode:
            return self._with_bar("Cannot change Wi-Fi settings while Airplane Mode is ON.")
        d.wifi_enabled = not d.wifi_enabled
        if not d.wifi_enabled:
            self._drop_wifi()
        return self._with_bar(f"Wi-Fi is now {'ON' if d.wifi_enabled else 'OFF'}.")

    def check_wifi_calling_status(self) -> str:
        return f"Wi-Fi Calling is currently turned {'ON' if self.device.wifi_calling_enabled else 'OFF'}."

    def toggle_wifi_calling(self) -> str:
        self.device.wifi_calling_enabled = not self.device.wifi_calling_enabled
        return self._with_bar(f"Wi-Fi Calling is now {'ON' if self.device.wifi_calling_enabled else 'OFF'}.")

    def check_vpn_status(self) -> str:
        d = self.device
        if d.vpn_connected:
            details = d.vpn_details.dump() if d.vpn_details else None
            if details:
                return f"VPN is ON and connected. Details: {details}"  # a dict repr, enum repr inside
            return "VPN is ON and connected (no specific details available)."
        if d.vpn_enabled_setting:
            return "VPN is turned ON in settings, but currently not connected."
        return "VPN is turned OFF."

    def connect_vpn(self) -> str:
        if not self._connect_vpn():
            return "VPN already connected."
        return self._with_bar("VPN connected successfully.")

    def disconnect_vpn(self) -> str:
        done = self._disconnect_vpn()
        return self._with_bar("VPN disconnected successfully." if done else "No active VPN connection to disconnect.")

    # --- tools: apps and MMS ----------------------------------------------------------------------------------

    def check_installed_apps(self) -> str:
        return f"The following apps are installed on the phone: {', '.join(self.device.app_statuses)}"

    def check_app_status(self, app_name: str) -> str:
        app = self.device.app_statuses.get(app_name)
        if not app:
            return f"App '{app_name}' not found on this phone."
        granted = self._granted(app.permissions)
        lines = [f"Status for App: {app_name}"]
        if granted:
            lines.append(" - Permissions Granted:")
            lines += [f"   - {p}" for p in granted]
        else:
            lines.append(" - Permissions: None granted.")
        return "\n".join(lines)

    def check_app_permissions(self, app_name: str) -> str:
        app = self.device.app_statuses.get(app_name)
        if not app:
            return f"App '{app_name}' not found on this phone."
        granted = self._granted(app.permissions)
        if not granted:
            return f"App '{app_name}' currently has no permissions granted."
        return f"App '{app_name}' has permission for: {', '.join(granted)}."

    def grant_app_permission(self, app_name: str, permission: str) -> str:
        # Its own failures are texts starting "Error. " (a full stop): accepted calls, not refusals.
        app = self.device.app_statuses.get(app_name)
        permission = permission.lower()
        if not app:
            return self._with_bar(f"Error. App '{app_name}' not found. Cannot grant permission.")
        available = list(app.permissions.dump())
        if permission not in available:
            return self._with_bar(
                f"Error. Permission '{permission}' not tracked for app '{app_name}', available permissions: {available}"
            )
        setattr(app.permissions, permission, True)
        return self._with_bar(f"Success. Permission '{permission}' granted to app '{app_name}'.")

    def can_send_mms(self) -> str:
        if self._can_send_mms():
            return "Your messaging app can send MMS messages."
        return "Your messaging app cannot send MMS messages."

    # --- tools: device and payment -----------------------------------------------------------------------------

    def reboot_device(self) -> str:
        d = self.device
        lines = []
        if d.active_apn_settings.reset_at_reboot:
            lines.append("Resetting APN settings...")
            d.active_apn_settings = APNSettings()
        lines.append("Restarting network services...")
        d.network_connection_status = NetworkStatus.SEARCHING
        self.simulate_network_search()
        return self._with_bar("\n".join(lines))

    def check_payment_request(self) -> str:
        request = self.surroundings.payment_request
        if request is None:
            return "No payment request has been made."
        return f"You have a payment request for bill {request.bill_id} of {request.amount_due} USD."

    def make_payment(self) -> str:
        # Only marks the request paid; the sync right after sets the CRM bill Paid and clears the request.
        request = self.surroundings.payment_request
        if request is None:
            return "You do not have a payment request."
        request.paid = True
        return f"Payment of {request.amount_due} USD has been made for bill {request.bill_id}."

    # --- initialisation functions (not tools) -----------------------------------------------------------------

    def set_user_info(self, name: str, phone_number: str) -> None:
        self.surroundings.name = name
        self.surroundings.phone_number = phone_number

    def set_user_location(self, abroad: bool) -> None:
        self.surroundings.is_abroad = abroad

    def turn_airplane_mode_on(self) -> str:
        if not self._toggle_airplane():
            self._toggle_airplane()
        return "Airplane Mode is now ON."

    def turn_airplane_mode_off(self) -> str:
        if self._toggle_airplane():
            self._toggle_airplane()
        return "Airplane Mode is now OFF."

    def unseat_sim_card(self) -> str:
        self.device.sim_card_missing = True
        self.simulate_network_search()
        return "SIM card un-seated successfully."

    def lock_sim_card(self, mode: str) -> str:
        if mode == "pin":
            self.device.sim_card_status = SimStatus.LOCKED_PIN
        elif mode == "puk":
            self.device.sim_card_status = SimStatus.LOCKED_PUK
        self.simulate_network_search()
        return f"SIM card locked successfully in {mode} mode."

    def turn_data_on(self) -> str:
        self.device.data_enabled = True  # no search, unlike toggle_data
        return "Data connection restored."

    def turn_data_off(self) -> str:
        if self._toggle_data():
            self._toggle_data()
        return "Data connection broken."

    def turn_roaming_on(self) -> str:
        if not self._toggle_roaming():
            self._toggle_roaming()
        return "Data Roaming is now ON."

    def turn_roaming_off(self) -> str:
        if self._toggle_roaming():
            self._toggle_roaming()
        return "Data Roaming is now OFF."

    def turn_data_saver_mode_on(self) -> str:
        if not self._toggle_data_saver():
            self._toggle_data_saver()
        return "Data Saver Mode is now ON."

    def turn_data_saver_mode_off(self) -> str:
        if self._toggle_data_saver():
            self._toggle_data_saver()
        return "Data Saver Mode is now OFF."

    def break_apn_settings(self) -> str:
        self.device.active_apn_settings.apn_name = APNNames.BROKEN
        self.simulate_network_search()
        return "APN settings broken. Please call reset_apn_settings() to fix."

    def break_apn_mms_setting(self) -> str:
        self.device.active_apn_settings.mmsc_url = None
        return "APN MMS setting broken. Please call reset_apn_settings() to fix."

    def set_wifi_calling(self, enabled: bool, mms_over_wifi: bool | None = None) -> str:
        if self.device.wifi_calling_enabled != enabled:
            self.device.wifi_calling_enabled = not self.device.wifi_calling_enabled
        text = f"Wi-Fi Calling is now {'ON' if enabled else 'OFF'}."
        if mms_over_wifi is not None:
            self.device.wifi_calling_mms_over_wifi = mms_over_wifi
            text += f"\nMMS over Wi-Fi is now {'ON' if mms_over_wifi else 'OFF'}."
        return text

    def break_vpn(self) -> str:
        self._connect_vpn()
        self.device.vpn_details.server_performance = PerformanceLevel.POOR
        _SHARED_VPN["performance"] = PerformanceLevel.POOR  # upstream mutates the process-wide default object
        return "VPN connection broken."

    def remove_app_permission(self, app_name: str, permission: str) -> tuple[bool, str]:
        app = self.device.app_statuses.get(app_name)
        permission = permission.lower()
        if not app:
            return False, f"App '{app_name}' not found. Cannot remove permission."
        if permission not in app.permissions.dump():
            return False, f"Permission '{permission}' not tracked for app '{app_name}'."
        setattr(app.permissions, permission, False)
        return True, f"Permission '{permission}' removed from app '{app_name}'."

    # --- assertions ---------------------------------------------------------------------------------------

    def assert_airplane_mode_status(self, expected_status: bool) -> bool:
        return self.device.airplane_mode == expected_status

    def assert_service_status(self, expected_status: str) -> bool:
        return self.device.network_connection_status == NetworkStatus(expected_status)

    def assert_mobile_data_status(self, expected_status: bool) -> bool:
        return self._mobile_data_working() == expected_status

    def assert_mobile_roaming_status(self, expected_status: bool) -> bool:
        return self.device.roaming_enabled == expected_status

    def assert_mobile_data_saver_mode_status(self, expected_status: bool) -> bool:
        return self.device.data_saver_mode == expected_status

    def assert_internet_speed(self, expected_speed: float, expected_desc: str | None = None) -> bool:
        speed, label = self._speed_test()
        speed = speed or 0.0
        if expected_desc is None:
            return speed >= expected_speed
        return speed >= expected_speed and label.lower() == expected_desc.lower()

    def assert_internet_not_excellent(self) -> bool:
        return self._speed_test()[1].lower() != "excellent"

    def assert_can_send_mms(self, expected_status: bool) -> bool:
        return self._can_send_mms() == expected_status

    def assert_mobile_data_usage_exceeded(self, expected_status: bool) -> bool:
        return self.surroundings.mobile_data_usage_exceeded == expected_status
