"""The telecom study on its quick parameters: both sides sound on every probe set, the vocabulary built from the
data-model declaration (no condition names a telecom tool), the dual-control tables, the blind generator extended.

Skipped, saying how to get the data, when the τ²-bench telecom export is absent.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from solvi_lab.errors import BadInput, DataMissing
from solvi_lab.studies.taubench.blind_probes import blind_probes
from solvi_lab.studies.taubench.telecom.crm import AGENT_TOOLS
from solvi_lab.studies.taubench.telecom.data import find_telecom_dir, load_telecom
from solvi_lab.studies.taubench.telecom.env import TelecomEnv
from solvi_lab.studies.taubench.telecom.phone import USER_TOOLS
from solvi_lab.studies.taubench.telecom.probes import SideEnv, blind_task, state_view, task_probes
from solvi_lab.studies.taubench.telecom.study import QUICK_PARAMS, run
from solvi_lab.studies.taubench.telecom.vocabulary import DATA_MODEL, build_vocabulary, declaration_lines

try:
    find_telecom_dir()
    HAVE_DATA = True
except DataMissing:  # pragma: no cover - the shared machine has the data
    HAVE_DATA = False

needs_data = pytest.mark.skipif(not HAVE_DATA, reason="τ²-bench telecom data absent (set SOLVI_LAB_TAU2_TELECOM)")


@pytest.fixture(scope="module")
def result() -> Any:
    return run(**QUICK_PARAMS)


@needs_data
def test_quick_run_both_sides_sound_everywhere(result: Any) -> None:
    m = result.metrics
    assert (m["gold_tasks"], m["gold_tasks_passing"], m["gold_calls"], m["gold_calls_refused"]) == (114, 114, 516, 0)
    for side in ("agent", "user"):
        for probe_set in ("held_out", "outside", "blind"):
            assert m[f"{side}_{probe_set}_false_accepts"] == 0, (side, probe_set)
            assert m[f"{side}_{probe_set}_precision"] == 1.0, (side, probe_set)
            assert m[f"{side}_{probe_set}_refused"] > 0, (side, probe_set)
    assert result.tables["sides"].height == 6
    assert set(result.tables["tools"]["side"]) == {"agent", "user"}
    assert result.claims() == {
        "telecom_gold_replay": True,
        "telecom_agent_held_out_sound": True,
        "telecom_user_held_out_sound": True,
        "telecom_blind_no_false_accept": True,
    }


@needs_data
def test_beside_retail_and_airline_reads_their_pins(result: Any) -> None:
    table = result.tables["beside_retail_airline"]
    assert table["domain"].to_list()[:4] == ["telecom (τ²-bench), agent"] * 2 + ["telecom (τ²-bench), user"] * 2
    assert set(table["domain"]) >= {"retail (τ-bench)", "airline (τ-bench)"}
    telecom = table.filter(pl.col("run") == "this run")
    assert telecom["false_accepts"].to_list() == [0, 0, 0, 0]
    assert telecom["probes"].to_list() == [
        result.metrics[f"{s}_{k}_probes"] for s in ("agent", "user") for k in ("held_out", "blind")
    ]


@needs_data
def test_the_new_template_is_ablated_on_all_three_domains(result: Any) -> None:
    table = result.tables["contained_values_ablation"]
    assert table["domain"].to_list() == ["telecom, agent"] * 2 + ["retail"] * 2 + ["airline"] * 2
    assert table["vocabulary"].to_list() == ["without contained values", "with contained values"] * 3
    for i in (0, 2, 4):  # the same probes with and without; the template only adds conditions
        without, with_ = table.row(i, named=True), table.row(i + 1, named=True)
        assert (without["probes"], without["refused"]) == (with_["probes"], with_["refused"])
        assert with_["conditions"] > without["conditions"]
    assert table["false_accepts"].to_list() == [0] * 6


@needs_data
def test_dual_control_tables(result: Any) -> None:
    scopes = result.tables["dual_control_scopes"]
    assert scopes["scope"].to_list() == ["none", "crm", "phone", "both"]
    # the same probes for every scope; more state read never loses a refusal the arguments alone predict
    assert len(set(scopes["probes"].to_list())) == 1 and len(set(scopes["refused"].to_list())) == 1
    attributed = result.tables["dual_control_attribution"]["count"].sum()
    assert attributed == result.metrics["agent_refusals_held_out"]
    none, crm = scopes.row(0, named=True), scopes.row(1, named=True)
    assert crm["abstentions"] < none["abstentions"]  # the agent's own database explains what its arguments cannot


@needs_data
def test_effects_table_reports_soft_refusals_and_partial_writes_apart(result: Any) -> None:
    effects = {(r["side"], r["tool"]): r for r in result.tables["effects"].to_dicts()}
    assert effects[("agent", "enable_roaming")]["accepted, no change"] > 0  # "Roaming was already enabled"
    assert sum(r["refused, changed (partial write)"] for (side, _), r in effects.items() if side == "agent") == 0
    partial_tools = {tool for (side, tool), r in effects.items() if r["refused, changed (partial write)"]}
    assert partial_tools <= {"set_network_mode_preference", "set_apn_settings"}
    assert result.metrics["partial_writes"] == sum(r["refused, changed (partial write)"] for r in effects.values())


@needs_data
def test_vocabulary_comes_from_the_declaration_and_names_no_tool() -> None:
    data = load_telecom()
    state = state_view(TelecomEnv.from_data(data))
    assert declaration_lines() == len(DATA_MODEL) + 2  # one line per entity, the opening and closing lines
    for side, tools in (("assistant", AGENT_TOOLS), ("user", USER_TOOLS)):
        v = build_vocabulary(data.tools[side], state)
        names = [c for c in v.names if not c.endswith((":undeclared_args", ":missing_args"))]  # the schema family's
        assert not [c for c in names for t in AGENT_TOOLS + USER_TOOLS if t in c], side
        assert set(v.conditions(tools[0])) <= set(v.names)
    v = build_vocabulary(data.tools["assistant"], state, scope=("crm",))
    r = v.read(state, "send_payment_request", {"customer_id": "C1001", "bill_id": "B1004"})
    assert r["bill_id:exists"] is True and r["bill_id~customer_id:contains"] is False
    assert "customer_id:bills.status" not in r  # the contained-values template is off by default (its ablation)
    v = build_vocabulary(data.tools["assistant"], state, scope=("crm",), contained=True)
    r = v.read(state, "send_payment_request", {"customer_id": "C1001", "bill_id": "B1004"})
    assert r["customer_id:bills.status"] == ("Draft", "Issued", "Paid")
    assert not [c for c in v.names if c.startswith(("device.", "surroundings."))]  # scope crm reads no phone record
    with pytest.raises(BadInput, match="scope holds 'sim'"):
        build_vocabulary(data.tools["assistant"], state, scope=("sim",))


@needs_data
def test_probes_and_the_blind_generator_on_telecom() -> None:
    data = load_telecom()
    base = TelecomEnv.from_data(data, seed=0)
    task = data.split("train")[0]
    probes = task_probes(base, task, 0, 30, split="train", seed=0)
    golds = [p for p in probes if p.origin == "gold"]
    assert len(golds) == len(task["evaluation_criteria"]["actions"]) and all(p.accepted for p in golds)
    assert all(not p.accepted for p in probes if p.origin == "other side")
    start = base.copy()
    start.initialise(task)
    blind = blind_probes(lambda t: SideEnv(start), data.tools["assistant"] + data.tools["user"], [blind_task(task, 0)],
                         lambda r, a: None, split="test", budget=20)  # fmt: skip
    assert [p.accepted for p in blind if p.origin == "gold"] == [True] * len(golds)
    assert {p.origin.split()[0] for p in blind} >= {"gold", "extra", "chain"}
