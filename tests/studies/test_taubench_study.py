"""τ-bench action-model study: probes, the generic vocabulary and a small end-to-end run (the full study is not a test)."""

from __future__ import annotations

import json
import re

import pytest

from solvi_lab.errors import BadParameter, DataMissing
from solvi_lab.studies.taubench import study
from solvi_lab.studies.taubench.data import find_data_dir, load_retail
from solvi_lab.studies.taubench.env import RetailEnv
from solvi_lab.studies.taubench.probes import split_probes, task_probes
from solvi_lab.studies.taubench.tools import WRITING_TOOLS
from solvi_lab.studies.taubench.vocabulary import build_vocabulary, entity_of_arg


@pytest.fixture(scope="module")
def data():
    try:
        find_data_dir()
    except DataMissing as e:
        pytest.skip(str(e))
    return load_retail()


@pytest.fixture(scope="module")
def base(data):
    return RetailEnv(data)


def test_probes_are_deterministic_per_seed_and_start_with_the_gold_call(data, base):
    task = data.tasks["train"][3]
    a = task_probes(base, task, seed=0)
    b = task_probes(base, task, seed=0)
    c = task_probes(base, task, seed=1)
    key = lambda ps: [(p.step, p.tool, json.dumps(p.args, sort_keys=True), p.accepted) for p in ps]  # noqa: E731
    assert key(a) == key(b)
    assert key(a) != key(c)
    assert a[0].origin == "gold" and a[0].tool == task["actions"][0]["name"]
    assert 50 <= len(a) <= 110  # about 100 per task


def test_probes_cover_refusals_and_acceptances_and_record_effects(data, base):
    probes = split_probes(data, "train", 10, base=base)
    assert {p.accepted for p in probes} == {True, False}
    origins = {p.origin.split(" ")[0] for p in probes}
    assert {"gold", "swap", "list", "enum", "other", "read"} <= origins
    for p in probes:
        if not p.accepted:
            assert p.effect is None
        elif p.tool in {"cancel_pending_order"}:
            assert p.effect == {"order_status": "cancelled"}
    # the state before is frozen: re-running a probe on it gives the same answer
    p = next(q for q in probes if q.tool == "cancel_pending_order" and q.accepted)
    env = RetailEnv.__new__(RetailEnv)
    assert p.state["orders"][p.args["order_id"]]["status"] == "pending"
    del env


def test_vocabulary_is_generic_over_the_schema(data, base):
    v = build_vocabulary(data.tools, base.state)
    tool_names = [t["function"]["name"] for t in data.tools]
    # the schema family's two per-tool conditions are named by their tool (a vocabulary holds one predicate per
    # name; the template is the same for every tool): the only names a tool appears in, and only its own
    per_tool = {f"{t}:{k}" for t in tool_names for k in ("undeclared_args", "missing_args")}
    for name in v.names:
        assert name in per_tool or not any(t in name for t in tool_names), f"a condition names a tool: {name}"
    for t in tool_names:
        assert {c for c in v.conditions(t) if c in per_tool} == {f"{t}:undeclared_args", f"{t}:missing_args"}
    # every condition of a tool is built from that tool's arguments only
    for t in data.tools:
        fn = t["function"]
        props = set(fn["parameters"].get("properties", {}))
        for cond in v.conditions(fn["name"]):
            used = set(re.findall(r"[a-z_0-9]+", cond.split(":")[0])) & {
                a for tt in data.tools for a in tt["function"]["parameters"].get("properties", {})
            }
            assert used <= props, (fn["name"], cond)
    assert entity_of_arg("new_item_ids") == ("item", True)


def test_ablations_remove_their_families(data, base):
    full = set(build_vocabulary(data.tools, base.state).names)
    no_pairs = set(build_vocabulary(data.tools, base.state, pairs=False).names)
    no_money = set(build_vocabulary(data.tools, base.state, money=False).names)
    assert not any("~" in n or "&" in n for n in no_pairs)
    assert not any("covers(" in n or "sign(" in n for n in no_money)
    assert no_pairs < full and no_money < full


def test_vocabulary_reads_the_checks_the_environment_makes(data, base):
    v = build_vocabulary(data.tools, base.state)
    s = base.state
    oid, order = next((k, o) for k, o in s["orders"].items() if o["status"] == "delivered")
    own_pm = order["payment_history"][0]["payment_method_id"]
    args = {"order_id": oid, "item_ids": [order["items"][0]["item_id"]] * 5, "payment_method_id": own_pm}
    got = v.read(s, "return_delivered_order_items", args)
    assert got["order_id:status"] == "delivered"
    assert got["item_ids~order_id:contains"] is False  # a multiset: five of one item
    assert got["order_id~payment_method_id:owner"] is True
    assert got["payment_method_id~order_id:cited"] is True


def test_small_run_is_exact_and_replays(data):
    r = study.run(train_tasks=12, test_tasks=5, ablations=False, held_out_split="dev")  # tests never read test tasks
    m = r.metrics
    assert m["replay_all"] and m["journal_replay_equal"]
    assert m["answered"] + m["abstentions"] == m["test_transitions"]
    assert r.name == "taubench_action_model"
    assert set(r.tables) >= {"abstention_by_tool", "ablations", "model"}
    assert "abstention_by_tool" in r.figures
    frame = r.comparison_frame()
    assert "refusal precision (answered held-out)" in frame["measure"].to_list()


def test_bad_parameters_and_missing_data_are_clear(tmp_path, data):
    with pytest.raises(BadParameter, match="train_tasks"):
        study.run(train_tasks=0, test_tasks=1)
    with pytest.raises(BadParameter, match="test_tasks"):
        study.run(train_tasks=1, test_tasks=999)
    with pytest.raises(DataMissing, match="To fix"):
        study.run(train_tasks=1, test_tasks=1, data_dir=str(tmp_path / "nowhere"))


def test_quick_params_are_small_and_blind():
    sizes = ("train_tasks", "test_tasks", "held_out_split")
    assert {k: study.QUICK_PARAMS[k] for k in sizes} == {"train_tasks": 40, "test_tasks": 20, "held_out_split": "dev"}
    assert {k: study.FULL_PARAMS[k] for k in sizes} == {"train_tasks": 400, "test_tasks": 115, "held_out_split": "test"}
    assert WRITING_TOOLS  # the study splits abstentions by write tools


def test_held_out_slices_separate_what_training_already_showed(data):
    r = study.run(train_tasks=12, test_tasks=20, ablations=True, held_out_split="dev")  # the dev split: never test
    t = r.tables["held_out_slices"]
    rows = {row["slice"]: row for row in t.iter_rows(named=True)}
    n = r.metrics["test_transitions"]
    assert rows["all held-out"]["transitions"] == n
    # the "tasks 0–19 / ≥ 20" split marks which *test* tasks were read in development: none of dev was
    assert "tasks 0–19" not in rows and "tasks ≥ 20" not in rows
    # complementary slices add up to the whole
    assert rows["missing id or malformed input"]["transitions"] + rows["well-formed input"]["transitions"] == n
    assert sum(row["transitions"] for name, row in rows.items() if name.startswith("family: ")) == n
    # a never-seen condition vector is also a never-seen call; gold calls are one family
    assert (
        rows["condition vector never seen in training"]["transitions"]
        <= rows["(tool, arguments) never seen in training"]["transitions"]
    )
    assert rows["gold calls only"]["transitions"] == rows["family: gold"]["transitions"]
    m = r.metrics
    assert m["held_out_users_in_training"] <= m["held_out_users"]
    assert m["user_disjoint_transitions"] == rows["user-disjoint (user in no training task)"]["transitions"]
    # every error falls in the unseen slice: a seen condition vector always gets its training verdict
    unseen = rows["condition vector never seen in training"]
    assert unseen["false_refusals"] == m["false_refusals"] and unseen["false_accepts"] == m["false_accepts"]
    assert m["seen_vector_share"] == round(1 - unseen["transitions"] / n, 4)
    keys = {c.key: c.kind for c in r.comparison if c.holds is not None}
    published_claims = ("refusal_precision", "refusal_recall", "abstention_rare", "no_pairs_precision")
    published_claims += ("no_money_false_refusal", "neither_false_refusal", "ablation_abstention_order")
    assert keys == {
        **dict.fromkeys(published_claims, "claim"),
        "training_replayed": "mechanism",
        "blind_no_false_accept": "finding",
        "reading_no_false_accept": "finding",  # issue 43: probes of what a tool reads
    }
    # the held-out set's false accepts are refusal_recall's quantity on the same set: shown, counted once (issue 44)
    row = next(c for c in r.comparison if c.key == "held_out_no_false_accept")
    assert row.kind == "figure" and row.holds is None and not row.threshold
    assert "counted once, by refusal_recall" in next(c.note for c in r.comparison if c.key == "held_out_scores")
    # every claim of the specification carries the sentence it tests, with the published figure in it
    claims = [c for c in r.comparison if c.kind == "claim"]
    assert all(c.sentence for c in claims)
    assert "abstains on 30 (0.26%)" in next(c.sentence for c in claims if c.key == "abstention_rare")
    assert study.ABSTENTION_MAX_PCT == 0.364  # 42.83 of 11,763: the published count's exact 95% upper end
    # the slices are rows of the claims' table, not claims of their own; the caveats say what was seen
    assert not {"novel_vector_exact", "user_disjoint_exact", "ablations_abstain_more"} & set(keys)
    assert any("dev split" in c for c in r.caveats) and any("seen" in c for c in r.caveats)


def test_probe_family_and_broken_input():
    assert study.probe_family("swap payment other gift card covers") == "swap payment"
    assert study.probe_family("other tool modify_user_address") == "other tool"
    assert study.probe_family("enum reason invalid") == "enum"
    assert study.broken_input("swap order_id no #") and study.broken_input("read user by name wrong zip")
    assert not study.broken_input("swap order_id own pending") and not study.broken_input("read user by email")


def test_dev_split_is_the_development_split(data):
    r = study.run(train_tasks=12, test_tasks=3, ablations=False, held_out_split="dev")
    assert r.metrics["held_out_split"] == "dev" and r.params["held_out_split"] == "dev"
    with pytest.raises(BadParameter, match="held_out_split"):
        study.run(train_tasks=1, test_tasks=1, held_out_split="validation")
    with pytest.raises(BadParameter, match="test_tasks"):
        study.run(train_tasks=1, test_tasks=21, held_out_split="dev")  # dev has 20 tasks
