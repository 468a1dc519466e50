"""τ-bench airline study: the vocabulary on a hand-built world (always runs), probes, the agent tally, and the study
at quick size on the real data (skipped, with how to get it, when the data is absent)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_taubench_airline_env import bags, booking, change, world  # same folder: pytest puts it on sys.path

from solvi_lab.errors import BadInput, BadParameter, DataMissing
from solvi_lab.studies import registry
from solvi_lab.studies.taubench.airline import study
from solvi_lab.studies.taubench.airline.data import find_airline_dir, load_airline
from solvi_lab.studies.taubench.airline.env import AirlineEnv
from solvi_lab.studies.taubench.airline.probes import task_probes, tasks_probes
from solvi_lab.studies.taubench.airline.vocabulary import TEMPLATE_ORIGIN, build_vocabulary, template_of
from solvi_lab.studies.taubench.vocabulary import _t_type as retail_type


def tools_of(*names: str) -> list[dict[str, Any]]:
    """The airline schemas, as tools.json holds them, for the tools named (all of them if none)."""
    try:
        tools = load_airline().tools
    except DataMissing:
        pytest.skip("τ-bench airline data not installed (tools.json)")
    return [t for t in tools if not names or t["function"]["name"] in names]


# ------------------------------------------------------------------ vocabulary


def test_vocabulary_reads_the_records_a_call_names() -> None:
    v = build_vocabulary(tools_of())
    s = AirlineEnv(world()).state
    r = v.read(s, "update_reservation_flights", change())
    assert r["reservation_id:exists"] is True and r["reservation_id:cabin"] == "economy"
    assert r["reservation_id:when"] == ("future",) and r["reservation_id:passengers#n"] == "2+"
    assert r["flights:held"] == "all" and r["flights:status"] == () and r["sign(fare_change)"] == 0
    assert r["payment_id~reservation_id:owner"] is True and r["payment_id:source"] == "credit_card"
    r = v.read(s, "update_reservation_flights", change(cabin="business", payment_id="gift_card_1"))
    # business: not held any more, 1 seat for 2 travellers, fare 2 × (500 − 200) = 600 > the 300 on the card
    assert r["flights:held"] == "none" and r["flights:status"] == ("available",) and r["flights:seats"] is False
    assert r["sign(fare_change)"] == 1 and r["payment_id:covers(fare_change)"] is False
    r = v.read(s, "update_reservation_flights", change(flights=[{"flight_number": "HAT001", "date": "2024-05-10"}]))
    assert r["flights:status"] == ("landed",) and r["flights:when"] == ("past",)
    r = v.read(s, "update_reservation_flights", change(flights=[{"flight_number": "HAT999", "date": "2024-05-20"}]))
    assert r["flights:status"] == ("no flight",)
    r = v.read(s, "update_reservation_baggages", bags(nonfree_baggages=8, payment_id="gift_card_1"))
    assert r["nonfree_baggages~reservation_id:cmp"] == 1 and r["payment_id:covers(bag_fee)"] is False
    r = v.read(s, "update_reservation_baggages", bags(payment_id="credit_card_2"))
    assert r["payment_id~reservation_id:owner"] is False and r["payment_id:exists"] is False


def test_vocabulary_prices_a_booking() -> None:
    v = build_vocabulary(tools_of())
    s = AirlineEnv(world()).state
    r = v.read(s, "book_reservation", booking())
    assert r["payment_methods:adds_up(booking_price)"] == 0 and r["payment_methods:owned"] is True
    assert r["payment_methods:kinds"] == ("credit_card",) and r["user_id:membership"] == "gold"
    r = v.read(s, "book_reservation", booking(insurance="yes"))
    assert r["payment_methods:adds_up(booking_price)"] == -1  # 230 due, 200 paid
    r = v.read(s, "book_reservation", booking(payment_methods=[{"payment_id": "certificate_1", "amount": 200}]))
    assert r["payment_methods:each_covers"] is False and r["payment_methods:kinds"] == ("certificate",)
    r = v.read(s, "book_reservation", booking(payment_methods=[{"payment_id": "gift_card_1", "amount": 100}] * 2))
    assert r["payment_methods:repeats"] is True


def test_vocabulary_templates_and_their_origin() -> None:
    v = build_vocabulary(tools_of())
    templates = {template_of(c) for c in v.names}
    assert templates == set(TEMPLATE_ORIGIN)
    assert {t for t, o in TEMPLATE_ORIGIN.items() if o == "unchanged"} == {
        "type",
        "enum",
        "len",
        "has",
        "samelen",
        "conj",
        "schema",
        "shape",
        "iterates",
    }
    # "unchanged" means retail's own function: the type template is the very same code object
    assert build_vocabulary.__globals__["_t_type"] is retail_type
    no_money = build_vocabulary(tools_of(), money=False)
    assert not any(template_of(c) in {"covers", "sign(amount)", "adds_up"} for c in no_money.names)
    no_pairs = build_vocabulary(tools_of(), pairs=False)
    assert not any(template_of(c) in {"owner", "cmp", "samelen", "conj"} for c in no_pairs.names)
    with pytest.raises(BadInput, match="non-empty list of tool schemas"):
        build_vocabulary([])


# ------------------------------------------------------------------ probes and the agent tally


def test_agent_tally_counts_each_outcome() -> None:
    rows = [
        {"refused": True, "verdict": "refuse", "choice": "avoid"},
        {"refused": True, "verdict": "unknown", "choice": "ask_s2"},
        {"refused": True, "verdict": "accept", "choice": "take"},
        {"refused": False, "verdict": "refuse", "choice": "avoid"},
        {"refused": False, "verdict": "accept", "choice": "take"},
    ]
    t = study.agent_tally(rows)
    assert (t["refused"], t["predicted_refused"], t["unknown_refused"], t["predicted_accept_but_refused"]) == (
        3,
        1,
        1,
        1,
    )
    assert (t["recall"], t["answered_recall"], t["precision"]) == (1 / 3, 0.5, 0.5)
    assert (t["abstentions"], t["abstention_pct"]) == (1, 20.0)
    assert (t["protect_stopped_refused"], t["protect_s2_refused"], t["protect_passed_refused"]) == (1, 1, 1)
    assert (t["protect_stopped_accepted"], t["protect_s2_accepted"], t["protect_took_accepted"]) == (1, 0, 1)
    assert study.agent_tally([])["recall"] == 1.0


@pytest.fixture(scope="module")
def data():
    try:
        find_airline_dir()
    except DataMissing as e:
        pytest.skip(str(e))
    return load_airline()


def test_probes_are_deterministic_and_start_with_the_gold_call(data) -> None:
    base = AirlineEnv(data)
    task = data.tasks[2]
    key = lambda ps: [(p.step, p.tool, json.dumps(p.args, sort_keys=True), p.accepted) for p in ps]  # noqa: E731
    a, b, c = task_probes(base, task, seed=0), task_probes(base, task, seed=0), task_probes(base, task, seed=1)
    assert key(a) == key(b) and key(a) != key(c)
    assert a[0].origin == "gold" and a[0].accepted and a[0].tool == task["actions"][0]["name"]
    assert task_probes(base, data.tasks[12]) == []  # a task with no gold action
    with pytest.raises(BadParameter, match="no airline task with index 99"):
        tasks_probes(data, [99])
    with pytest.raises(BadParameter, match="budget must be a positive"):
        task_probes(base, task, budget=0)


def test_probes_cover_refusals_of_every_write_tool(data) -> None:
    probes = tasks_probes(data, range(0, 50, 5), budget=60)
    refused_tools = {p.tool for p in probes if not p.accepted}
    assert {"book_reservation", "update_reservation_flights", "update_reservation_baggages"} <= refused_tools
    for p in probes:
        assert (p.effect is None) or p.accepted
    cancels = [p for p in probes if p.tool == "cancel_reservation" and p.accepted]
    assert cancels and all(p.effect == {"tables": "reservations", "reservation_status": "cancelled"} for p in cancels)


# ------------------------------------------------------------------ the study


def test_registered_with_data_and_params() -> None:
    info = registry.get("taubench_airline")
    assert info.needs_data and info.module == "solvi_lab.studies.taubench.airline.study"
    new = {"blind": True, "schema_family": True, "unseen": "refuse", "explore_schema": True}  # issues 33, 43
    assert study.QUICK_PARAMS == {"budget": 40, "ablations": True, "data_dir": None, "blind_budget": 20, **new}
    assert study.FULL_PARAMS == {"budget": 100, "ablations": True, "data_dir": None, "blind_budget": 60, **new}
    with pytest.raises(BadParameter, match="parameter budget got 0; it accepts an integer in 1..10000"):
        study.run(budget=0)
    with pytest.raises(BadParameter, match="parameter ablations got 'yes'"):
        study.run(ablations="yes")


def test_quick_study_on_the_real_agent(data) -> None:
    r = study.run(**study.QUICK_PARAMS)
    m = r.metrics
    assert (m["gold_accepted"], m["gold_final_equal_upstream"]) == (158, 50)
    assert (m["agent_calls"], m["agent_writes"], m["agent_refused"]) == (1164, 250, 73)
    assert (m["agent_responses_equal"], m["agent_responses_province_state"], m["agent_responses_other_difference"]) == (
        1044,
        120,
        0,
    )
    assert m["agent_verdicts_equal"] == 1164
    # every refused call is caught or left to System 2; nothing accepted is stopped
    assert m["agent_refused_predicted"] + m["agent_refused_unknown"] + m["agent_refused_predicted_accept"] == 73
    assert m["protect_stopped_refused"] == m["agent_refused_predicted"]
    assert m["protect_stopped_accepted"] == m["agent_false_refusals"]
    assert m["protect_s2_accepted"] + m["protect_s2_refused"] == m["agent_abstentions"]
    assert m["even_agent_calls"] + m["odd_agent_calls"] == 1164
    assert m["even_agent_refused"] + m["odd_agent_refused"] == 73
    agent = r.tables["agent"]
    both = agent.filter((agent["calls of fold"] == "both") & (agent["kind"] == "all")).row(0, named=True)
    assert (both["calls"], both["refused"], both["predicted_refused"]) == (1164, 73, m["agent_refused_predicted"])
    writes = agent.filter((agent["calls of fold"] == "both") & (agent["kind"] == "write")).row(0, named=True)
    assert writes["refused"] == 73  # every refused call is a write
    assert r.tables["agent_refused_calls"].height == 73
    assert set(r.tables["response_differences"]["tool"].to_list()) == {"get_user_details"}
    assert r.claims()["gold_all_accepted"] and r.claims()["agent_responses"]
