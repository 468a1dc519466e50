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
