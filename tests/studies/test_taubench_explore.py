"""The schema exploration (issue 43): malformed calls on training states, labelled by the environment, training only."""

from __future__ import annotations

from collections import Counter

import pytest

from solvi_lab.errors import BadParameter, DataMissing
from solvi_lab.studies.taubench.data import find_data_dir, load_retail
from solvi_lab.studies.taubench.env import RetailEnv
from solvi_lab.studies.taubench.probes import explore_split, split_probes
from solvi_lab.studies.taubench.probing import UNDECLARED_NAME, schema_variations, tool_required
from solvi_lab.studies.taubench.study import train
from solvi_lab.studies.taubench.vocabulary import build_vocabulary


def test_variations_come_from_the_schema_alone() -> None:
    props = {"order_id": {"type": "string"}, "ids": {"type": "array"}, "n": {"type": "integer"}}
    out = list(schema_variations("t", {"order_id": "#1", "ids": ["a"], "n": 2}, props, ["order_id", "ids"]))
    assert [o for o, _, _ in out] == [
        "schema undeclared arg",
        "schema missing order_id",
        "schema missing ids",
        "schema type ids",
        "schema null ids",
        "schema type n",
        "schema null n",
        "schema type order_id",
        "schema null order_id",
    ]
    by = {o: a for o, _, a in out}
    assert by["schema undeclared arg"] == {"order_id": "#1", "ids": ["a"], "n": 2, UNDECLARED_NAME: "#1"}
    assert by["schema missing ids"] == {"order_id": "#1", "n": 2}
    assert (by["schema type ids"]["ids"], by["schema type n"]["n"], by["schema type order_id"]["order_id"]) == (
        '["a"]',
        "2",
        1,
    )
    assert by["schema null n"]["n"] is None
    # an argument the schema does not declare is never retyped; a tool that declares the extra name gets no extra
    assert [o for o, _, _ in schema_variations("t", {"x": 1}, {}, [])] == ["schema undeclared arg"]
    assert list(schema_variations("t", {}, {UNDECLARED_NAME: {}}, [])) == []
    assert tool_required([{"name": "t", "parameters": {"required": ["a"]}}]) == {"t": ["a"]}


@pytest.fixture(scope="module")
def retail():
    try:
        data = load_retail(find_data_dir(None))
    except DataMissing as e:
        pytest.skip(str(e))
    return data, RetailEnv(data)


def test_exploration_is_labelled_by_the_environment_and_teaches_the_refusal(retail) -> None:
    data, base = retail
    explore = explore_split(data, 12, base=base)
    assert explore == explore_split(data, 12, base=base)  # deterministic
    assert {t.origin.split()[0] for t in explore} == {"schema"} and {t.task for t in explore} <= set(range(12))
    kinds = Counter((t.origin.split()[1], t.accepted) for t in explore)
    # an undeclared or a missing argument is refused by every tool (upstream's invoke raises)
    assert kinds[("undeclared", True)] == kinds[("missing", True)] == 0 and kinds[("undeclared", False)] > 0
    assert kinds[("missing", False)] > 0 and kinds[("type", False)] > 0
    first = [t for t in explore if t.task == explore[0].task and t.step == 0]
    assert first
    for t in first:  # at a task's first step the state is the initial one: each label is the environment's verdict
        assert (not base.copy().step(t.tool, t.args).refused) is t.accepted, t.origin
    gold = split_probes(data, "train", 12, base=base)
    assert not any(t.origin.startswith("schema") for t in gold)  # the gold-step generator never varies the schema
    vocab = build_vocabulary(data.tools, base.state)
    without, with_ = train(gold, vocab), train(gold + explore, vocab)
    call = next(t for t in gold if t.origin == "gold" and t.step == 0 and t.tool == "cancel_pending_order")
    odd = {**call.args, "note": "please"}  # an undeclared name the exploration never used
    assert without.predict(call.state, call.tool, odd).verdict == "unknown"
    assert with_.predict(call.state, call.tool, odd).verdict == "refuse"
    assert base.copy().step(call.tool, odd).refused  # ... and the environment refuses it
    with pytest.raises(BadParameter, match="n_tasks"):
        explore_split(data, 10_000, base=base)


def test_exploration_reaches_the_tools_no_training_gold_calls(retail) -> None:
    """Retail's training tasks list only write calls: the lookups the gold-step probes make are explored too."""
    data, base = retail
    gold = split_probes(data, "train", 12, base=base)
    plain, wide = explore_split(data, 12, base=base), explore_split(data, 12, base=base, probes=gold)
    gold_tools = {a["name"] for t in data.tasks["train"][:12] for a in t["actions"]}
    assert {t.tool for t in plain} <= gold_tools  # before: only the gold trajectory's tools
    lookups = {t.tool for t in wide} - gold_tools
    assert {"get_order_details", "get_user_details", "find_user_id_by_email", "calculate"} <= lookups
    own = {int(t["index"]): {a["name"] for a in t["actions"]} for t in data.tasks["train"][:12]}
    assert [t for t in wide if t.tool in own[t.task]] == plain  # each task's gold tools: exploration unchanged
    assert wide == explore_split(data, 12, base=base, probes=gold)  # deterministic
    for t in wide:
        if t.tool in lookups:  # a lookup changes nothing: its state is the task's state at that step
            assert (not base.copy().step(t.tool, t.args).refused) is t.accepted or t.step > 0, t.origin
    read = next(t for t in gold if t.tool == "get_order_details" and t.accepted)
    odd = {**read.args, "note": "please"}  # an undeclared name the exploration never used
    vocab = build_vocabulary(data.tools, base.state)
    assert train(gold + plain, vocab).predict(read.state, read.tool, odd).verdict == "unknown"
    assert train(gold + wide, vocab).predict(read.state, read.tool, odd).verdict == "refuse"
    assert base.copy().step(read.tool, odd).refused
