"""The blind probe generator (issue 33): deterministic from its frozen seed, every family labelled by the environment."""

from __future__ import annotations

from collections import Counter

import pytest

from solvi_lab.errors import BadParameter
from solvi_lab.studies.taubench.blind_probes import BLIND_SEED, FAMILIES, blind_family, blind_probes, blind_task_probes
from solvi_lab.studies.taubench.data import find_data_dir, load_retail
from solvi_lab.studies.taubench.env import RetailEnv
from solvi_lab.studies.taubench.probes import _effect


@pytest.fixture(scope="module")
def retail():
    data = load_retail(find_data_dir(None))
    return data, RetailEnv(data)


def test_seed_is_frozen_and_families_named():
    assert BLIND_SEED == 3303
    assert blind_family("misspelt arg order_id") == "misspelt arg"
    assert blind_family("balance edge balance cent below") == "balance edge"
    assert set(FAMILIES) >= {"gold", "chain", "other tool", "wrong type"}


def test_deterministic_and_labelled_by_the_environment(retail):
    data, base = retail
    tasks = data.tasks["dev"][:5]
    a = blind_probes(base, data.tools, tasks, _effect, split="dev")
    b = blind_probes(base, data.tools, tasks, _effect, split="dev")
    assert [(p.task, p.step, p.tool, p.args, p.accepted, p.origin) for p in a] == [
        (p.task, p.step, p.tool, p.args, p.accepted, p.origin) for p in b
    ]
    for p in a:  # the label is what a fresh step on the recorded state does
        env = RetailEnv({k: dict(v) for k, v in p.state.items()})
        assert (not env.step(p.tool, p.args).refused) == p.accepted
    fams = Counter(blind_family(p.origin) for p in a)
    assert fams["gold"] == sum(len(t["actions"]) for t in tasks)
    assert all(p.accepted is False for p in a if blind_family(p.origin) in ("missing arg", "misspelt arg"))


def test_no_gold_no_probes_and_bad_budget(retail):
    data, base = retail
    assert blind_task_probes(base, data.tools, {"index": 0, "actions": []}, {}, _effect, split="dev") == []
    with pytest.raises(BadParameter, match="budget must be a positive"):
        blind_task_probes(base, data.tools, data.tasks["dev"][0], {}, _effect, split="dev", budget=0)


def test_scoring_counts_false_accepts_over_refused_calls():
    from solvi_lab.studies.taubench.scoring import score

    s = score([(False, "refuse"), (False, "accept"), (False, "unknown"), (True, "refuse"), (True, "accept")])
    assert (s["probes"], s["refused"], s["false_accepts"], s["false_refusals"], s["abstentions"]) == (5, 3, 1, 1, 1)
    assert (s["precision"], s["recall"], s["false_accept_rate"]) == (0.5, 0.5, round(1 / 3, 6))
    assert score([(True, "accept")])["false_accept_rate"] is None


def test_schema_family_reads_undeclared_missing_types_and_empty_lists(retail):
    from solvi_lab.studies.taubench.vocabulary import build_vocabulary

    data, base = retail
    plain = build_vocabulary(data.tools, base.state, schema_family=False)
    with_schema = build_vocabulary(data.tools, base.state, schema_family=True)
    # on by default (issue 43): the default vocabulary is the one with the family, and the ablation differs
    assert with_schema.fingerprint == build_vocabulary(data.tools, base.state).fingerprint != plain.fingerprint
    added = set(with_schema.conditions("return_delivered_order_items")) - set(
        plain.conditions("return_delivered_order_items")
    )
    assert added == {
        "return_delivered_order_items:undeclared_args",
        "return_delivered_order_items:missing_args",
        "item_ids:jtype",
        "item_ids:empty",
        "order_id:jtype",
        "payment_method_id:jtype",
    }
    read = with_schema.read(base.state, "return_delivered_order_items", {"order_id": 5, "item_ids": [], "x": 1})
    assert read["return_delivered_order_items:undeclared_args"] is True
    assert read["return_delivered_order_items:missing_args"] is True
    assert (read["order_id:jtype"], read["payment_method_id:jtype"], read["item_ids:empty"]) == (
        "integer",
        "absent",
        True,
    )


def test_small_retail_run_reports_blind_families_unseen_and_schema(retail):
    from solvi_lab.studies.taubench.study import run

    r = run(train_tasks=5, test_tasks=3, held_out_split="dev", ablations=False)
    fam = r.tables["blind_families"]
    assert fam["family"][0] == "all" and {"false_accepts", "false_accept_rate"} <= set(fam.columns)
    assert fam["probes"][0] == r.metrics["blind_probes"] == sum(fam["probes"][1:])
    both = r.tables["unseen_both_ways"]
    assert both["probe set"].to_list() == ["held_out", "held_out", "blind", "blind", "reading", "reading"]
    assert both["unseen"].to_list() == ["refuse", "unknown"] * 3
    keys = {c.key for c in r.comparison}
    assert {"held_out_no_false_accept", "blind_no_false_accept", "schema_blind_ablation"} <= keys
    # the main model has the schema family (issue 43); the ablation row is the same vocabulary without it
    schema = r.tables["schema_family"]
    assert schema["vocabulary"].to_list() == ["without schema family", "with schema family"] * 3
    # issue 43: the probes of what a tool reads, per family, false accepts apart
    reading = r.tables["reading_families"]
    assert reading["family"][0] == "all" and reading["probes"][0] == r.metrics["reading_probes"]
    assert set(reading["family"][1:]) <= {"expression", "list", "money"}
    assert "reading_no_false_accept" in keys
    main_blind = schema.filter((schema["probe set"] == "blind") & (schema["vocabulary"] == "with schema family"))
    assert main_blind["false_accepts"][0] == r.metrics["blind_false_accepts"]
    assert r.params["schema_family"] is True
