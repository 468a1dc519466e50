"""The airline environment: every check and error text of the tools document, on a hand-built world (always
runs); gold replay, upstream's final-data hashes and the GPT-4o trajectory replay on the real data (skipped, with
how to get it, when the data is absent).

The hashes in ``data/expected/taubench_airline_gold_final_hashes.json`` were produced once by running the
upstream τ-bench airline tools locally (see docs/readme/taubench_airline.md); these tests need no upstream code.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from solvi_lab.errors import BadInput, DataMissing, UnknownId
from solvi_lab.studies.taubench.airline.data import ENV_VAR, find_airline_dir, load_airline, load_trajectories
from solvi_lab.studies.taubench.airline.env import AirlineEnv
from solvi_lab.studies.taubench.airline.tools import NOW, TOOL_NAMES, WRITING_TOOLS
from solvi_lab.studies.taubench.airline.trajectories import parse_runs, replay_runs
from solvi_lab.studies.taubench.domain import StepCrashed, replay_gold, state_hash

EXPECTED_HASHES = Path(__file__).resolve().parents[2] / "data" / "expected" / "taubench_airline_gold_final_hashes.json"

SEATS = {"basic_economy": 5, "economy": 2, "business": 1}
PRICES = {"basic_economy": 100, "economy": 200, "business": 500}


def day(seats: dict[str, int] | None = None, prices: dict[str, int] | None = None) -> dict[str, Any]:
    return {"status": "available", "available_seats": dict(seats or SEATS), "prices": dict(prices or PRICES)}


def flight(number: str, origin: str, dest: str, dep: str, arr: str, dates: dict[str, Any]) -> dict[str, Any]:
    return {
        "flight_number": number,
        "origin": origin,
        "destination": dest,
        "scheduled_departure_time_est": dep,
        "scheduled_arrival_time_est": arr,
        "dates": dates,
    }


def world() -> dict[str, Any]:
    """Four flights, two users (one holding all three certificate ids), one reservation of two passengers."""
    flights = {
        "HAT001": flight(
            "HAT001",
            "JFK",
            "SFO",
            "08:00:00",
            "11:00:00",
            {"2024-05-20": day(), "2024-05-10": {"status": "landed"}, "2024-05-21": {"status": "cancelled"}},
        ),
        "HAT002": flight("HAT002", "SFO", "LAX", "12:00:00", "13:00:00", {"2024-05-20": day()}),
        "HAT003": flight("HAT003", "JFK", "SFO", "22:00:00", "01:00:00+1", {"2024-05-20": day()}),
        "HAT004": flight(
            "HAT004",
            "SFO",
            "LAX",
            "02:00:00",
            "03:00:00",
            {"2024-05-20": day(prices={"basic_economy": 1, "economy": 2, "business": 3}), "2024-05-21": day()},
        ),
    }
    pax = [
        {"first_name": "Ann", "last_name": "Lee", "dob": "1990-01-01"},
        {"first_name": "Bo", "last_name": "Lee", "dob": "1991-01-01"},
    ]
    users = {
        "ann_1": {
            "name": {"first_name": "Ann", "last_name": "Lee"},
            "payment_methods": {
                "credit_card_1": {"source": "credit_card", "brand": "visa", "last_four": "1111", "id": "credit_card_1"},
                "gift_card_1": {"source": "gift_card", "amount": 300, "id": "gift_card_1"},
                "certificate_1": {"source": "certificate", "amount": 100, "id": "certificate_1"},
            },
            "membership": "gold",
            "reservations": ["ABC123"],
        },
        "bob_2": {
            "name": {"first_name": "Bob", "last_name": "Ray"},
            "payment_methods": {
                "credit_card_2": {"source": "credit_card", "id": "credit_card_2"},
                **{
                    f"certificate_{i}": {"source": "certificate", "amount": 50, "id": f"certificate_{i}"}
                    for i in (3221322, 3221323, 3221324)
                },
            },
            "membership": "regular",
            "reservations": [],
        },
    }
    reservations = {
        "ABC123": {
            "reservation_id": "ABC123",
            "user_id": "ann_1",
            "origin": "JFK",
            "destination": "SFO",
            "flight_type": "one_way",
            "cabin": "economy",
            "flights": [
                {"origin": "JFK", "destination": "SFO", "flight_number": "HAT001", "date": "2024-05-20", "price": 200}
            ],
            "passengers": pax,
            "payment_history": [{"payment_id": "credit_card_1", "amount": 400}],
            "created_at": "2024-05-01T10:00:00",
            "total_baggages": 1,
            "nonfree_baggages": 1,
            "insurance": "no",
        }
    }
    return {"flights": flights, "reservations": reservations, "users": users}


@pytest.fixture()
def env() -> AirlineEnv:
    return AirlineEnv(world())


def booking(**changes: Any) -> dict[str, Any]:
    kwargs = {
        "user_id": "ann_1",
        "origin": "JFK",
        "destination": "SFO",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT001", "date": "2024-05-20"}],
        "passengers": [{"first_name": "Ann", "last_name": "Lee", "dob": "1990-01-01"}],
        "payment_methods": [{"payment_id": "credit_card_1", "amount": 200}],
        "total_baggages": 0,
        "nonfree_baggages": 0,
        "insurance": "no",
    }
    kwargs.update(changes)
    return kwargs


def refused_without_change(env: AirlineEnv, tool: str, **kwargs: Any) -> str:
    before = env.data_hash()
    result = env.step(tool, kwargs)
    assert result.refused, result.observation
    assert env.data_hash() == before
    assert all(not records for records in result.changed.values())
    return result.observation


# ------------------------------------------------------------------ the step contract


def test_fourteen_tools_in_upstream_order(env: AirlineEnv) -> None:
    assert env.tool_names == [
        "book_reservation",
        "calculate",
        "cancel_reservation",
        "get_reservation_details",
        "get_user_details",
        "list_all_airports",
        "search_direct_flight",
        "search_onestop_flight",
        "send_certificate",
        "think",
        "transfer_to_human_agents",
        "update_reservation_baggages",
        "update_reservation_flights",
        "update_reservation_passengers",
    ]
    assert list(TOOL_NAMES) == env.tool_names
    assert WRITING_TOOLS == {
        "book_reservation",
        "cancel_reservation",
        "send_certificate",
        "update_reservation_baggages",
        "update_reservation_flights",
        "update_reservation_passengers",
    }
    assert env.terminate_tools == {"transfer_to_human_agents"}


def test_unknown_tool_and_call_shapes(env: AirlineEnv) -> None:
    assert refused_without_change(env, "fly") == "Unknown action fly"
    assert refused_without_change(env, "cancel_reservation") == (
        "Error: CancelReservation.invoke() missing 1 required positional argument: 'reservation_id'"
    )
    assert refused_without_change(env, "cancel_reservation", reservation_id="ABC123", note="x") == (
        "Error: CancelReservation.invoke() got an unexpected keyword argument 'note'"
    )
    assert refused_without_change(env, "cancel_reservation", reservation_id="ABC123", data={}) == (
        "Error: tau_bench.envs.airline.tools.cancel_reservation.CancelReservation.invoke() "
        "got multiple values for keyword argument 'data'"
    )
    assert refused_without_change(
        env, "book_reservation", **{k: v for k, v in booking().items() if k != "insurance"}
    ) == ("Error: BookReservation.invoke() missing 1 required positional argument: 'insurance'")
    with pytest.raises(BadInput, match="user simulator"):
        env.step("respond", {"content": "hi"})
    with pytest.raises(BadInput, match="kwargs must be a dict"):
        env.step("think", ["x"])  # type: ignore[arg-type]
    with pytest.raises(BadInput, match="must be a str"):
        env.step(3, {})  # type: ignore[arg-type]
    with pytest.raises(BadInput, match="argument names must be strings"):
        env.step("think", {1: "x"})  # type: ignore[dict-item]
    with pytest.raises(BadInput, match="AirlineEnv needs"):
        AirlineEnv({"users": {}})


# ------------------------------------------------------------------ reads


def test_lookups(env: AirlineEnv) -> None:
    r = env.step("get_reservation_details", {"reservation_id": "ABC123"})
    assert not r.refused and json.loads(r.observation)["user_id"] == "ann_1"
    assert r.observation == json.dumps(world()["reservations"]["ABC123"])
    # the reservation lookup says "user" (sic)
    assert refused_without_change(env, "get_reservation_details", reservation_id="NOPE00") == "Error: user not found"
    assert refused_without_change(env, "get_reservation_details", reservation_id=None) == "Error: user not found"
    assert (
        refused_without_change(env, "get_reservation_details", reservation_id=["x"]) == "Error: unhashable type: 'list'"
    )
    assert env.step("get_user_details", {"user_id": "ann_1"}).observation == json.dumps(world()["users"]["ann_1"])
    assert refused_without_change(env, "get_user_details", user_id="nobody") == "Error: user not found"
    assert refused_without_change(env, "get_user_details", user_id=7) == "Error: user not found"


def test_list_all_airports_is_constant(env: AirlineEnv) -> None:
    airports = json.loads(env.step("list_all_airports", {}).observation)
    assert len(airports) == 20
    assert list(airports)[:3] == ["SFO", "JFK", "LAX"] and list(airports)[-1] == "LGA"
    assert airports["LGA"] == "LaGuardia" and airports["IAH"] == "Houston"


def test_search_direct_flight(env: AirlineEnv) -> None:
    found = json.loads(
        env.step("search_direct_flight", {"origin": "JFK", "destination": "SFO", "date": "2024-05-20"}).observation
    )
    assert [f["flight_number"] for f in found] == ["HAT001", "HAT003"]
    assert list(found[0]) == [
        "flight_number",
        "origin",
        "destination",
        "scheduled_departure_time_est",
        "scheduled_arrival_time_est",
        "status",
        "available_seats",
        "prices",
    ]
    for origin, date in (
        ("jfk", "2024-05-20"),
        ("JFK", "2024-05-10"),
        ("JFK", "2024-05-21"),
        ("JFK", "20240520"),
        ("JFK", 20),
    ):
        r = env.step("search_direct_flight", {"origin": origin, "destination": "SFO", "date": date})
        assert (r.observation, r.refused) == ("[]", False)
    assert env.step("search_direct_flight", {"origin": "JFK", "destination": "SFO", "date": ["x"]}).observation == (
        "Error: unhashable type: 'list'"
    )


def test_search_onestop_flight(env: AirlineEnv) -> None:
    pairs = json.loads(
        env.step("search_onestop_flight", {"origin": "JFK", "destination": "LAX", "date": "2024-05-20"}).observation
    )
    legs = [(a["flight_number"], a["date"], b["flight_number"], b["date"]) for a, b in pairs]
    # HAT001 (arr 11:00) connects to HAT002 (dep 12:00) but not to HAT004 (dep 02:00); overnight HAT003 to HAT004
    # next day, whose shown fields are the first day's (prices 1/2/3), not the 21st's.
    assert legs == [("HAT001", "2024-05-20", "HAT002", "2024-05-20"), ("HAT003", "2024-05-20", "HAT004", "2024-05-21")]
    assert pairs[1][1]["prices"] == {"basic_economy": 1, "economy": 2, "business": 3}
    # the day is not zero-padded: from the 8th the overnight leg looks for "2024-05-9"
    e2 = env.copy()
    e2.edit("flights", "HAT003")["dates"]["2024-05-08"] = day()
    e2.edit("flights", "HAT004")["dates"]["2024-05-09"] = day()
    assert (
        json.loads(
            e2.step("search_onestop_flight", {"origin": "JFK", "destination": "LAX", "date": "2024-05-08"}).observation
        )
        == []
    )
    # the next day is computed first: a date not ending in a number raises as soon as an overnight pair exists
    assert env.step(
        "search_onestop_flight", {"origin": "JFK", "destination": "LAX", "date": "2024-05-xx"}
    ).observation == ("Error: invalid literal for int() with base 10: 'xx'")
    assert (
        env.step("search_onestop_flight", {"origin": "SFO", "destination": "JFK", "date": "2024-05-xx"}).observation
        == "[]"
    )


def test_think_transfer_calculate(env: AirlineEnv) -> None:
    assert env.step("think", {"thought": "hmm"}).observation == ""
    assert env.step("transfer_to_human_agents", {"summary": "s"}).observation == "Transfer successful"
    assert env.step("calculate", {"expression": "(200 + 300) / 3"}).observation == "166.67"
    assert refused_without_change(env, "calculate", expression="2 ** x") == "Error: invalid characters in expression"
    assert refused_without_change(env, "calculate", expression="1/0") == "Error: division by zero"
    assert refused_without_change(env, "calculate", expression="") == "Error: invalid syntax (<string>, line 0)"
    assert refused_without_change(env, "calculate", expression=5) == "Error: 'int' object is not iterable"
    assert refused_without_change(env, "calculate", expression=None) == "Error: 'NoneType' object is not iterable"


# ------------------------------------------------------------------ book_reservation


def test_book_checks_in_order(env: AirlineEnv) -> None:
    assert refused_without_change(env, "book_reservation", **booking(user_id="nobody")) == "Error: user not found"
    one = [{"flight_number": "HAT001", "date": "2024-05-20"}]
    cases = [
        ({"flights": [{"flight_number": "HAT999", "date": "2024-05-20"}]}, "Error: flight HAT999 not found"),
        (
            {"flights": [{"flight_number": "HAT001", "date": "2024-05-25"}]},
            "Error: flight HAT001 not found on date 2024-05-25",
        ),
        (
            {"flights": [{"flight_number": "HAT001", "date": "2024-05-10"}]},
            "Error: flight HAT001 not available on date 2024-05-10",
        ),
        (
            {"flights": [{"flight_number": "HAT001", "date": "2024-05-21"}]},
            "Error: flight HAT001 not available on date 2024-05-21",
        ),
        ({"cabin": "business", "passengers": [{}, {}]}, "Error: not enough seats on flight HAT001"),
        ({"cabin": "first"}, "Error: 'first'"),
        (
            {"payment_methods": [{"payment_id": "gift_card_9", "amount": 200}]},
            "Error: payment method gift_card_9 not found",
        ),
        (
            {
                "payment_methods": [
                    {"payment_id": "certificate_1", "amount": 150},
                    {"payment_id": "credit_card_1", "amount": 50},
                ]
            },
            "Error: not enough balance in payment method certificate_1",
        ),
        (
            {"payment_methods": [{"payment_id": "gift_card_1", "amount": 301}]},
            "Error: not enough balance in payment method gift_card_1",
        ),
        (
            {"payment_methods": [{"payment_id": "credit_card_1", "amount": 199}]},
            "Error: payment amount does not add up, total price is 200, but paid 199",
        ),
        (
            {"payment_methods": [{"payment_id": "credit_card_1", "amount": 200.0}], "insurance": "yes"},
            "Error: payment amount does not add up, total price is 230, but paid 200.0",
        ),
        ({"payment_methods": []}, "Error: payment amount does not add up, total price is 200, but paid 0"),
        ({"nonfree_baggages": 2}, "Error: payment amount does not add up, total price is 300, but paid 200"),
    ]
    for change, text in cases:
        assert refused_without_change(env, "book_reservation", **booking(**change)) == text, change
    # types are never validated: a wrong one fails at the first operation that touches it, with Python's text
    assert (
        refused_without_change(
            env, "book_reservation", **booking(payment_methods=[{"payment_id": "gift_card_1", "amount": "200"}])
        )
        == "Error: '<' not supported between instances of 'int' and 'str'"
    )
    assert (
        refused_without_change(
            env,
            "book_reservation",
            **booking(payment_methods=[{"payment_id": "credit_card_1", "amount": 0.1}] * 2, flights=[]),
        )
        == "Error: payment amount does not add up, total price is 0, but paid 0.2"
    )
    assert one  # the flights of the default booking are valid


def test_book_writes(env: AirlineEnv) -> None:
    r = env.step(
        "book_reservation",
        booking(
            insurance="yes",
            nonfree_baggages=1,
            passengers=[{"first_name": "A"}, {"first_name": "B"}],
            payment_methods=[
                {"payment_id": "gift_card_1", "amount": 250},
                {"payment_id": "certificate_1", "amount": 100},
                {"payment_id": "credit_card_1", "amount": 160},
            ],
        ),
    )
    # 2 × 200 + 2 × 30 insurance + 50 baggage = 510
    assert not r.refused, r.observation
    record = json.loads(r.observation)
    assert list(record) == [
        "reservation_id",
        "user_id",
        "origin",
        "destination",
        "flight_type",
        "cabin",
        "flights",
        "passengers",
        "payment_history",
        "created_at",
        "total_baggages",
        "nonfree_baggages",
        "insurance",
    ]
    assert record["reservation_id"] == "HATHAT" and record["created_at"] == NOW == "2024-05-15T15:00:00"
    assert record["flights"] == [
        {"flight_number": "HAT001", "date": "2024-05-20", "price": 200, "origin": "JFK", "destination": "SFO"}
    ]
    user = env.state["users"]["ann_1"]
    assert user["payment_methods"]["gift_card_1"]["amount"] == 50
    assert "certificate_1" not in user["payment_methods"]  # a certificate is consumed whole
    assert user["reservations"] == ["ABC123", "HATHAT"]
    assert set(r.changed["users"]) == {"ann_1"} and set(r.changed["reservations"]) == {"HATHAT"}
    assert r.changed["flights"] == {}  # seats are never decremented
    assert env.state["flights"]["HAT001"]["dates"]["2024-05-20"]["available_seats"] == SEATS


def test_book_ids_and_fourth_booking_overwrites(env: AirlineEnv) -> None:
    ids = [json.loads(env.step("book_reservation", booking()).observation)["reservation_id"] for _ in range(3)]
    assert ids == ["HATHAT", "HATHAU", "HATHAV"]
    r = env.step(
        "book_reservation",
        booking(cabin="basic_economy", payment_methods=[{"payment_id": "credit_card_1", "amount": 100}]),
    )
    assert json.loads(r.observation)["reservation_id"] == "HATHAV"
    assert env.state["reservations"]["HATHAV"]["cabin"] == "basic_economy"
    assert env.state["users"]["ann_1"]["reservations"] == ["ABC123", "HATHAT", "HATHAU", "HATHAV", "HATHAV"]


def test_book_unchecked_things(env: AirlineEnv) -> None:
    # no passengers, no flights, nothing to pay: accepted; flights need not connect to origin/destination
    r = env.step("book_reservation", booking(passengers=[], flights=[], payment_methods=[], origin="XXX"))
    assert not r.refused and json.loads(r.observation)["origin"] == "XXX"
    # the same gift card twice, each entry within the balance, passes (entries are checked alone)
    r = env.step(
        "book_reservation",
        booking(passengers=[{}, {}], payment_methods=[{"payment_id": "gift_card_1", "amount": 200}] * 2),
    )
    assert not r.refused and env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["amount"] == -100


def test_book_duplicate_certificate_is_a_partial_write(env: AirlineEnv) -> None:
    r = env.step(
        "book_reservation",
        booking(
            passengers=[{}, {}, {}],  # 600 = 100 gift card + 2 × 100 certificate + 300 card
            cabin="basic_economy",
            flights=[
                {"flight_number": "HAT001", "date": "2024-05-20"},
                {"flight_number": "HAT002", "date": "2024-05-20"},
            ],
            payment_methods=[
                {"payment_id": "gift_card_1", "amount": 100},
                {"payment_id": "certificate_1", "amount": 100},
                {"payment_id": "certificate_1", "amount": 100},
                {"payment_id": "credit_card_1", "amount": 300},
            ],
        ),
    )
    assert r.observation == "Error: 'certificate_1'" and r.refused
    user = env.state["users"]["ann_1"]
    assert "certificate_1" not in user["payment_methods"] and user["payment_methods"]["gift_card_1"]["amount"] == 200
    assert "HATHAT" not in env.state["reservations"] and user["reservations"] == ["ABC123"]
    assert set(r.changed["users"]) == {"ann_1"}


# ------------------------------------------------------------------ cancel_reservation


def test_cancel(env: AirlineEnv) -> None:
    assert refused_without_change(env, "cancel_reservation", reservation_id="NOPE00") == "Error: reservation not found"
    r = env.step("cancel_reservation", {"reservation_id": "ABC123"})
    rec = json.loads(r.observation)
    assert rec["status"] == "cancelled" and list(rec)[-1] == "status"
    assert rec["payment_history"] == [
        {"payment_id": "credit_card_1", "amount": 400},
        {"payment_id": "credit_card_1", "amount": -400},
    ]
    # no status check: a second cancel negates every entry again (2 → 4); no money moves
    rec = json.loads(env.step("cancel_reservation", {"reservation_id": "ABC123"}).observation)
    assert [p["amount"] for p in rec["payment_history"]] == [400, -400, -400, 400]
    assert env.state["users"] == world()["users"]


# ------------------------------------------------------------------ send_certificate


def test_send_certificate(env: AirlineEnv) -> None:
    assert refused_without_change(env, "send_certificate", user_id="nobody", amount=50) == "Error: user not found"
    assert env.step("send_certificate", {"user_id": "ann_1", "amount": 50.5}).observation == (
        "Certificate certificate_3221322 added to user ann_1 with amount 50.5."
    )
    assert env.step("send_certificate", {"user_id": "ann_1", "amount": -20}).observation == (
        "Certificate certificate_3221323 added to user ann_1 with amount -20."
    )
    methods = env.state["users"]["ann_1"]["payment_methods"]
    assert list(methods)[-1] == "certificate_3221323"
    assert methods["certificate_3221322"] == {"source": "certificate", "amount": 50.5, "id": "certificate_3221322"}
    before = env.data_hash()
    with pytest.raises(StepCrashed, match="returned no text"):
        env.step("send_certificate", {"user_id": "bob_2", "amount": 100})
    assert env.data_hash() == before


# ------------------------------------------------------------------ update_reservation_baggages


def bags(**changes: Any) -> dict[str, Any]:
    kwargs = {"reservation_id": "ABC123", "total_baggages": 3, "nonfree_baggages": 2, "payment_id": "credit_card_1"}
    kwargs.update(changes)
    return kwargs


def test_baggages_checks(env: AirlineEnv) -> None:
    tool = "update_reservation_baggages"
    assert refused_without_change(env, tool, **bags(reservation_id="NOPE00")) == "Error: reservation not found"
    assert refused_without_change(env, tool, **bags(nonfree_baggages="2")) == (
        "Error: unsupported operand type(s) for -: 'str' and 'int'"
    )
    assert refused_without_change(env, tool, **bags(payment_id="credit_card_2")) == "Error: payment method not found"
    # a certificate is refused even when nothing is charged
    assert refused_without_change(env, tool, **bags(nonfree_baggages=1, payment_id="certificate_1")) == (
        "Error: certificate cannot be used to update reservation"
    )
    assert refused_without_change(env, tool, **bags(nonfree_baggages=8, payment_id="gift_card_1")) == (
        "Error: gift card balance is not enough"
    )


def test_baggages_writes(env: AirlineEnv) -> None:
    tool = "update_reservation_baggages"
    r = env.step(tool, bags(nonfree_baggages=7, payment_id="gift_card_1"))  # 6 more × 50 = 300 = the balance
    assert not r.refused
    assert env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["amount"] == 0
    assert env.state["reservations"]["ABC123"]["payment_history"][-1] == {"payment_id": "gift_card_1", "amount": 300}
    # a decrease is accepted, no refund and no history entry
    r = env.step(tool, bags(total_baggages=0, nonfree_baggages=-1))
    res = env.state["reservations"]["ABC123"]
    assert not r.refused and res["nonfree_baggages"] == -1 and len(res["payment_history"]) == 2
    # a cancelled reservation can still be changed
    env.step("cancel_reservation", {"reservation_id": "ABC123"})
    assert not env.step(tool, bags(nonfree_baggages=0)).refused


# ------------------------------------------------------------------ update_reservation_flights


def change(**changes: Any) -> dict[str, Any]:
    kwargs = {
        "reservation_id": "ABC123",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT001", "date": "2024-05-20"}],
        "payment_id": "credit_card_1",
    }
    kwargs.update(changes)
    return kwargs


def test_flights_checks(env: AirlineEnv) -> None:
    tool = "update_reservation_flights"
    assert refused_without_change(env, tool, **change(reservation_id="NOPE00")) == "Error: reservation not found"
    cases = [
        ({"flights": [{"flight_number": "HAT999", "date": "2024-05-20"}]}, "Error: flight HAT999 not found"),
        (
            {"flights": [{"flight_number": "HAT002", "date": "2024-05-22"}]},
            "Error: flight HAT002 not found on date 2024-05-22",
        ),
        (
            {"flights": [{"flight_number": "HAT001", "date": "2024-05-21"}]},
            "Error: flight HAT001 not available on date 2024-05-21",
        ),
        ({"cabin": "business"}, "Error: not enough seats on flight HAT001"),  # 2 passengers, 1 business seat
        ({"cabin": "first"}, "Error: 'first'"),
        ({"payment_id": "gift_card_9"}, "Error: payment method not found"),
        ({"payment_id": "certificate_1"}, "Error: certificate cannot be used to update reservation"),
        (
            {
                "flights": [
                    {"flight_number": "HAT001", "date": "2024-05-20"},
                    {"flight_number": "HAT002", "date": "2024-05-20"},
                ],
                "payment_id": "gift_card_1",
            },
            "Error: gift card balance is not enough",  # 2 × 200 more than 300
        ),
    ]
    for kw, text in cases:
        assert refused_without_change(env, tool, **change(**kw)) == text, kw


def test_flights_writes(env: AirlineEnv) -> None:
    tool = "update_reservation_flights"
    # unchanged itinerary: accepted, no charge, but the flight dict is rewritten in the tool's key order
    r = env.step(tool, change())
    assert not r.refused and list(env.state["reservations"]["ABC123"]["flights"][0]) == [
        "flight_number",
        "date",
        "price",
        "origin",
        "destination",
    ]
    assert len(env.state["reservations"]["ABC123"]["payment_history"]) == 1
    # a held flight keeps its price without an availability check, even a landed one
    e2 = env.copy()
    e2.edit("flights", "HAT001")["dates"]["2024-05-20"] = {"status": "landed"}
    assert not e2.step(tool, change()).refused
    # cabin change to basic economy: a refund of 2 × 100 credits the gift card; the cabin field stays
    r = env.step(tool, change(cabin="basic_economy", payment_id="gift_card_1"))
    res = env.state["reservations"]["ABC123"]
    assert not r.refused and res["cabin"] == "economy" and res["flights"][0]["price"] == 100
    assert env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["amount"] == 500
    assert res["payment_history"][-1] == {"payment_id": "gift_card_1", "amount": -200}
    # repeating it re-checks availability and charges the difference again (the cabin was never updated)
    env.step(tool, change(cabin="basic_economy", payment_id="gift_card_1"))
    assert env.state["users"]["ann_1"]["payment_methods"]["gift_card_1"]["amount"] == 500
    # an empty list refunds everything
    r = env.step(tool, change(flights=[]))
    assert env.state["reservations"]["ABC123"]["flights"] == [] and env.state["reservations"]["ABC123"][
        "payment_history"
    ][-1] == {
        "payment_id": "credit_card_1",
        "amount": -200,
    }


# ------------------------------------------------------------------ update_reservation_passengers


def test_passengers(env: AirlineEnv) -> None:
    tool = "update_reservation_passengers"
    assert refused_without_change(env, tool, reservation_id="NOPE00", passengers=[]) == "Error: reservation not found"
    assert refused_without_change(env, tool, reservation_id="ABC123", passengers=[{}]) == (
        "Error: number of passengers does not match"
    )
    assert (
        refused_without_change(env, tool, reservation_id="ABC123", passengers=5)
        == "Error: object of type 'int' has no len()"
    )
    assert not env.step(tool, {"reservation_id": "ABC123", "passengers": "ab"}).refused  # any value of the right len()
    assert env.state["reservations"]["ABC123"]["passengers"] == "ab"


# ------------------------------------------------------------------ copies


def test_copy_is_independent(env: AirlineEnv) -> None:
    child = env.copy()
    child.step("cancel_reservation", {"reservation_id": "ABC123"})
    assert "status" not in env.state["reservations"]["ABC123"]
    assert child.state["reservations"]["ABC123"]["status"] == "cancelled"
    assert state_hash(child.state) == child.data_hash() and state_hash(env.state) == env.data_hash()
    with pytest.raises(UnknownId, match="no record"):
        env.edit("reservations", "NOPE00")


# ------------------------------------------------------------------ data location


def test_data_missing_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "none"))
    with pytest.raises(
        DataMissing, match="does not exist. To fix: set the environment variable SOLVI_LAB_TAUBENCH_AIRLINE"
    ):
        find_airline_dir()
    (tmp_path / "users.json").write_text("{}")
    with pytest.raises(DataMissing, match=r"missing: flights.json, reservations.json, tasks_test.json, tools.json"):
        find_airline_dir(tmp_path)


# ------------------------------------------------------------------ the real data


@pytest.fixture(scope="module")
def airline():
    try:
        return load_airline()
    except DataMissing as e:
        pytest.skip(f"τ-bench airline data not installed: {e}")


def test_gold_replay_and_upstream_final_data(airline) -> None:
    expected = json.loads(EXPECTED_HASHES.read_text())["tasks"]
    base = AirlineEnv(airline)
    accepted = refused = 0
    hashes = []
    for task in airline.tasks:
        env, results = replay_gold(base, task)
        accepted += sum(not r.refused for r in results)
        refused += sum(r.refused for r in results)
        hashes.append(env.data_hash())
    assert (accepted, refused, len(airline.tasks)) == (158, 0, 50)
    assert hashes == expected


def test_trajectory_replay_equals_the_recording(airline) -> None:
    runs = parse_runs(load_trajectories(airline.source_dir))
    replayed = list(replay_runs(AirlineEnv(airline), runs))
    assert (len(runs), len(replayed)) == (200, 1164)
    assert Counter(r.cause for r in replayed) == {"": 1044, "address province→state": 120}
    assert {r.call.tool for r in replayed if r.cause} == {"get_user_details"}
    recorded_refused = [r.call.recorded.startswith("Error") for r in replayed]
    assert [r.refused for r in replayed] == recorded_refused
    assert sum(recorded_refused) == 73 and sum(r.write for r in replayed) == 250
    assert Counter(r.call.tool for r in replayed if r.refused) == {
        "update_reservation_flights": 42,
        "book_reservation": 30,
        "update_reservation_baggages": 1,
    }


def test_trajectory_parsing_pairs_each_call_with_the_next_message() -> None:
    call = {
        "function": {"name": "get_user_details", "arguments": '{"user_id": "ann_1"}'},
        "id": "c1",
        "type": "function",
    }
    raw = [
        {
            "task_id": 3,
            "trial": 1,
            "reward": 0.0,
            "traj": [
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "name": "get_user_details", "content": "Error: user not found"},
                {"role": "assistant", "content": None, "tool_calls": [call]},  # the same id again: paired by position
                {"role": "tool", "tool_call_id": "c1", "name": "get_user_details", "content": "x"},
            ],
        }
    ]
    (run,) = parse_runs(raw)
    assert (run.task, run.trial, len(run.calls)) == (3, 1, 2)
    assert [c.recorded for c in run.calls] == ["Error: user not found", "x"]
    replayed = list(replay_runs(AirlineEnv(world()), [run]))
    assert [r.cause for r in replayed] == ["other", "other"]  # ann_1 exists here: our text is her record
    assert replayed[0].refused is False and replayed[0].write is False
    broken = [dict(raw[0], traj=raw[0]["traj"][:1])]
    with pytest.raises(BadInput, match="not followed by its tool response"):
        parse_runs(broken)
    bad_args = [
        dict(
            raw[0],
            traj=[
                {"role": "assistant", "tool_calls": [dict(call, function={"name": "think", "arguments": "[1]"})]},
                raw[0]["traj"][1],
            ],
        )
    ]
    with pytest.raises(BadInput, match="not a JSON object"):
        parse_runs(bad_args)
