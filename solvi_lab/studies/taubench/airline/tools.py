"""The 14 τ-bench airline tools, re-implemented from the behaviour spec (``taubench-airline-tools.md``).

As for retail (:mod:`solvi_lab.studies.taubench.tools`): each tool is a class with a static
``invoke(data, **arguments) -> str`` whose class and parameter names are upstream's, so that Python's own
``TypeError`` for a wrongly shaped call reads as upstream's; arguments are never type-checked, and each step
uses the same kind of operation as upstream, so a wrong type fails with the same exception at the same point.
``data`` is the copy-on-write database of :class:`~solvi_lab.studies.taubench.domain.TableEnv`: tables
``flights``, ``reservations``, ``users`` are read freely, and a record is changed only through
``data.writable(table, key)`` (or created with ``data.create``).

Differences from upstream that no observation or data hash can see: the ``passengers`` and
``payment_methods`` values a booking stores are copies of the caller's lists (upstream stores the caller's
objects, which later cancels would then mutate).

>>> Calculate.invoke(None, "2 + 2")
'4.0'
>>> ListAllAirports.invoke(None)[:31]
'{"SFO": "San Francisco", "JFK":'
"""

from __future__ import annotations

import json
from copy import deepcopy
from typing import Any, ClassVar

from ..domain import plain_copy
from ..tools import Calculate as _RetailCalculate

__all__ = ["ALL_TOOLS", "NOW", "TOOLS_BY_NAME", "TOOL_NAMES", "TERMINATE_TOOLS", "WRITING_TOOLS"]

#: The fixed "current time" of the airline policy; bookings are stamped with it.
NOW = "2024-05-15T15:00:00"
_CERTIFICATE_IDS = ("certificate_3221322", "certificate_3221323", "certificate_3221324")
_BOOKING_IDS = ("HATHAT", "HATHAU", "HATHAV")


def _dump(record: Any) -> str:
    # Upstream returns json.dumps(record) with all defaults; observations must match byte for byte.
    return json.dumps(record)


class AirlineTool:
    """Base of the tool classes; ``name`` is the function name the agent calls."""

    name: ClassVar[str]
    writes: ClassVar[bool] = False

    @staticmethod
    def invoke(data: Any, **arguments: Any) -> str:  # pragma: no cover - overridden
        raise NotImplementedError


def _price_flight(data: Any, flight: dict[str, Any], cabin: Any, travellers: int) -> str | None:
    """Booking's and rebooking's four checks on one new flight; on success add price, origin, destination.

    Returns upstream's error text, or None. ``flight`` is the caller's (already copied) dict.
    """
    flight_number = flight["flight_number"]
    if flight_number not in data.flights:
        return f"Error: flight {flight_number} not found"
    record = data.flights[flight_number]
    if flight["date"] not in record["dates"]:
        return f"Error: flight {flight_number} not found on date {flight['date']}"
    day = record["dates"][flight["date"]]
    if day["status"] != "available":
        return f"Error: flight {flight_number} not available on date {flight['date']}"
    if day["available_seats"][cabin] < travellers:
        return f"Error: not enough seats on flight {flight_number}"
    flight["price"] = day["prices"][cabin]
    flight["origin"] = record["origin"]
    flight["destination"] = record["destination"]
    return None


class BookReservation(AirlineTool):
    name = "book_reservation"
    writes = True

    @staticmethod
    def invoke(
        data: Any,
        user_id: str,
        origin: str,
        destination: str,
        flight_type: str,
        cabin: str,
        flights: list[dict[str, Any]],
        passengers: list[dict[str, Any]],
        payment_methods: list[dict[str, Any]],
        total_baggages: int,
        nonfree_baggages: int,
        insurance: str,
    ) -> str:
        if user_id not in data.users:
            return "Error: user not found"
        # Three ids and no fourth check: a fourth booking overwrites the third (spec §2).
        reservation_id = _BOOKING_IDS[0]
        if reservation_id in data.reservations:
            reservation_id = _BOOKING_IDS[1]
            if reservation_id in data.reservations:
                reservation_id = _BOOKING_IDS[2]
        record = {
            "reservation_id": reservation_id,
            "user_id": user_id,
            "origin": origin,
            "destination": destination,
            "flight_type": flight_type,
            "cabin": cabin,
            "flights": deepcopy(flights),
            "passengers": plain_copy(passengers),
            "payment_history": plain_copy(payment_methods),
            "created_at": NOW,
            "total_baggages": total_baggages,
            "nonfree_baggages": nonfree_baggages,
            "insurance": insurance,
        }
        total = 0
        for flight in record["flights"]:
            error = _price_flight(data, flight, cabin, len(passengers))
            if error is not None:
                return error
            total += flight["price"] * len(passengers)
        if insurance == "yes":
            total += 30 * len(passengers)
        total += 50 * nonfree_baggages
        methods = data.users[user_id]["payment_methods"]
        for entry in payment_methods:  # each entry is checked alone, not per method
            pid, amount = entry["payment_id"], entry["amount"]
            if pid not in methods:
                return f"Error: payment method {pid} not found"
            if methods[pid]["source"] in ("gift_card", "certificate") and methods[pid]["amount"] < amount:
                return f"Error: not enough balance in payment method {pid}"
        paid = sum(entry["amount"] for entry in payment_methods)
        if paid != total:
            return f"Error: payment amount does not add up, total price is {total}, but paid {paid}"
        user = data.writable("users", user_id)
        for entry in payment_methods:
            pid = entry["payment_id"]
            # a certificate listed twice was deleted by its first entry: KeyError, the debits so far stay
            source = user["payment_methods"][pid]["source"]
            if source == "gift_card":
                user["payment_methods"][pid]["amount"] -= entry["amount"]
            elif source == "certificate":
                del user["payment_methods"][pid]
        data.create("reservations", reservation_id, record)
        user["reservations"].append(reservation_id)
        return _dump(record)


class Calculate(AirlineTool):
    """Identical logic to retail's calculator (the same checks, rounding and error texts)."""

    name = "calculate"
    parses: ClassVar[dict[str, Any]] = _RetailCalculate.parses

    @staticmethod
    def invoke(data: Any, expression: str) -> str:
        return _RetailCalculate.invoke(data, expression)


class CancelReservation(AirlineTool):
    name = "cancel_reservation"
    writes = True

    @staticmethod
    def invoke(data: Any, reservation_id: str) -> str:
        if reservation_id not in data.reservations:
            return "Error: reservation not found"
        reservation = data.writable("reservations", reservation_id)
        # refunds are recorded, never paid: no balance moves, no status check, a second cancel repeats them
        refunds = [{"payment_id": p["payment_id"], "amount": -p["amount"]} for p in reservation["payment_history"]]
        reservation["payment_history"].extend(refunds)
        reservation["status"] = "cancelled"
        return _dump(reservation)


class GetReservationDetails(AirlineTool):
    name = "get_reservation_details"

    @staticmethod
    def invoke(data: Any, reservation_id: str) -> str:
        if reservation_id in data.reservations:
            return _dump(data.reservations[reservation_id])
        return "Error: user not found"  # sic: upstream's text for a missing reservation


class GetUserDetails(AirlineTool):
    name = "get_user_details"

    @staticmethod
    def invoke(data: Any, user_id: str) -> str:
        if user_id in data.users:
            return _dump(data.users[user_id])
        return "Error: user not found"


AIRPORTS: dict[str, str] = {
    "SFO": "San Francisco",
    "JFK": "New York",
    "LAX": "Los Angeles",
    "ORD": "Chicago",
    "DFW": "Dallas",
    "DEN": "Denver",
    "SEA": "Seattle",
    "ATL": "Atlanta",
    "MIA": "Miami",
    "BOS": "Boston",
    "PHX": "Phoenix",
    "IAH": "Houston",
    "LAS": "Las Vegas",
    "MCO": "Orlando",
    "EWR": "Newark",
    "CLT": "Charlotte",
    "MSP": "Minneapolis",
    "DTW": "Detroit",
    "PHL": "Philadelphia",
    "LGA": "LaGuardia",
}


class ListAllAirports(AirlineTool):
    name = "list_all_airports"

    @staticmethod
    def invoke(data: Any) -> str:
        return json.dumps(AIRPORTS)


def _leg(flight: dict[str, Any], day: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in flight.items() if k != "dates"}
    out.update(day)
    return out


class SearchDirectFlight(AirlineTool):
    name = "search_direct_flight"

    @staticmethod
    def invoke(data: Any, origin: str, destination: str, date: str) -> str:
        found = []
        for flight in data.flights.values():
            if flight["origin"] == origin and flight["destination"] == destination:
                if date in flight["dates"] and flight["dates"][date]["status"] == "available":
                    found.append(_leg(flight, flight["dates"][date]))
        return json.dumps(found)


class SearchOnestopFlight(AirlineTool):
    name = "search_onestop_flight"

    @staticmethod
    def invoke(data: Any, origin: str, destination: str, date: str) -> str:
        found = []
        flights = data.flights
        for first in flights.values():
            if first["origin"] != origin:
                continue
            for second in flights.values():
                if second["destination"] != destination or first["destination"] != second["origin"]:
                    continue
                # computed before any other check, as upstream: month fixed to 05, day not zero-padded
                date2 = f"2024-05-{int(date[-2:]) + 1}" if "+1" in first["scheduled_arrival_time_est"] else date
                if first["scheduled_arrival_time_est"] > second["scheduled_departure_time_est"]:
                    continue  # compared as strings
                if date in first["dates"] and date2 in second["dates"]:
                    if (
                        first["dates"][date]["status"] == "available"
                        and second["dates"][date2]["status"] == "available"
                    ):
                        leg1 = _leg(first, first["dates"][date])
                        leg1["date"] = date
                        leg2 = _leg(second, second["dates"][date])  # sic: the first day's fields
                        leg2["date"] = date2
                        found.append([leg1, leg2])
        return json.dumps(found)


class SendCertificate(AirlineTool):
    name = "send_certificate"
    writes = True

    @staticmethod
    def invoke(data: Any, user_id: str, amount: int) -> str | None:
        if user_id not in data.users:
            return "Error: user not found"
        for pid in _CERTIFICATE_IDS:
            if pid not in data.users[user_id]["payment_methods"]:
                user = data.writable("users", user_id)
                user["payment_methods"][pid] = {"source": "certificate", "amount": amount, "id": pid}
                return f"Certificate {pid} added to user {user_id} with amount {amount}."
        return None  # all three held: upstream's step itself raises (see TableEnv.step)


class Think(AirlineTool):
    name = "think"

    @staticmethod
    def invoke(data: Any, thought: str) -> str:
        return ""


class TransferToHumanAgents(AirlineTool):
    name = "transfer_to_human_agents"

    @staticmethod
    def invoke(data: Any, summary: str) -> str:
        return "Transfer successful"


def _payment_check(data: Any, owner: Any, payment_id: Any, price: Any) -> str | None:
    methods = data.users[owner]["payment_methods"]
    if payment_id not in methods:
        return "Error: payment method not found"
    method = methods[payment_id]
    if method["source"] == "certificate":
        return "Error: certificate cannot be used to update reservation"
    if method["source"] == "gift_card" and method["amount"] < price:
        return "Error: gift card balance is not enough"
    return None


def _charge(data: Any, reservation: dict[str, Any], payment_id: Any, price: Any) -> None:
    owner = reservation["user_id"]
    if data.users[owner]["payment_methods"][payment_id]["source"] == "gift_card":
        data.writable("users", owner)["payment_methods"][payment_id]["amount"] -= price


class UpdateReservationBaggages(AirlineTool):
    name = "update_reservation_baggages"
    writes = True

    @staticmethod
    def invoke(data: Any, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str) -> str:
        if reservation_id not in data.reservations:
            return "Error: reservation not found"
        current = data.reservations[reservation_id]
        price = 50 * max(0, nonfree_baggages - current["nonfree_baggages"])
        error = _payment_check(data, current["user_id"], payment_id, price)
        if error is not None:
            return error
        reservation = data.writable("reservations", reservation_id)
        reservation["total_baggages"] = total_baggages
        reservation["nonfree_baggages"] = nonfree_baggages
        _charge(data, reservation, payment_id, price)
        if price != 0:
            reservation["payment_history"].append({"payment_id": payment_id, "amount": price})
        return _dump(reservation)


class UpdateReservationFlights(AirlineTool):
    name = "update_reservation_flights"
    writes = True

    @staticmethod
    def invoke(data: Any, reservation_id: str, cabin: str, flights: list[dict[str, Any]], payment_id: str) -> str:
        if reservation_id not in data.reservations:
            return "Error: reservation not found"
        current = data.reservations[reservation_id]
        travellers = len(current["passengers"])
        total = 0
        new_flights = deepcopy(flights)
        for flight in new_flights:
            # a flight already held, in the reservation's own cabin, keeps its price with no availability check
            kept = [
                f
                for f in current["flights"]
                if f["flight_number"] == flight["flight_number"]
                and f["date"] == flight["date"]
                and cabin == current["cabin"]
            ]
            if kept:
                total += kept[0]["price"] * travellers
                flight["price"] = kept[0]["price"]
                flight["origin"] = kept[0]["origin"]
                flight["destination"] = kept[0]["destination"]
                continue
            error = _price_flight(data, flight, cabin, travellers)
            if error is not None:
                return error
            total += flight["price"] * travellers
        total -= sum(f["price"] for f in current["flights"]) * travellers
        error = _payment_check(data, current["user_id"], payment_id, total)
        if error is not None:
            return error
        reservation = data.writable("reservations", reservation_id)
        _charge(data, reservation, payment_id, total)  # a refund (negative) credits a gift card
        reservation["flights"] = new_flights  # the cabin field is never updated (spec §2)
        if total != 0:
            reservation["payment_history"].append({"payment_id": payment_id, "amount": total})
        return _dump(reservation)


class UpdateReservationPassengers(AirlineTool):
    name = "update_reservation_passengers"
    writes = True

    @staticmethod
    def invoke(data: Any, reservation_id: str, passengers: list[dict[str, Any]]) -> str:
        if reservation_id not in data.reservations:
            return "Error: reservation not found"
        if len(passengers) != len(data.reservations[reservation_id]["passengers"]):
            return "Error: number of passengers does not match"
        reservation = data.writable("reservations", reservation_id)
        reservation["passengers"] = plain_copy(passengers)
        return _dump(reservation)


ALL_TOOLS: tuple[type[AirlineTool], ...] = (
    BookReservation,
    Calculate,
    CancelReservation,
    GetReservationDetails,
    GetUserDetails,
    ListAllAirports,
    SearchDirectFlight,
    SearchOnestopFlight,
    SendCertificate,
    Think,
    TransferToHumanAgents,
    UpdateReservationBaggages,
    UpdateReservationFlights,
    UpdateReservationPassengers,
)
TOOLS_BY_NAME: dict[str, type[AirlineTool]] = {tool.name: tool for tool in ALL_TOOLS}
TOOL_NAMES: tuple[str, ...] = tuple(TOOLS_BY_NAME)
WRITING_TOOLS: frozenset[str] = frozenset(tool.name for tool in ALL_TOOLS if tool.writes)
TERMINATE_TOOLS: frozenset[str] = frozenset({"transfer_to_human_agents"})
