"""Shared reads (shared_reads.py): every vocabulary of a study gets exactly the vector it reads alone."""

from __future__ import annotations

import pytest

from solvi_lab.errors import DataMissing
from solvi_lab.studies.taubench.conversation import tasks_with_lookups
from solvi_lab.studies.taubench.data import find_data_dir, load_retail
from solvi_lab.studies.taubench.env import RETAIL, RetailEnv
from solvi_lab.studies.taubench.probes import split_probes
from solvi_lab.studies.taubench.shared_reads import SharedReads
from solvi_lab.studies.taubench.vocabulary import build_vocabulary


@pytest.fixture(scope="module")
def retail():
    try:
        data = load_retail(find_data_dir(None))
    except DataMissing as e:
        pytest.skip(str(e))
    return data, RetailEnv(data)


def test_each_vocabulary_reads_what_it_reads_alone(retail) -> None:
    data, base = retail
    probes = split_probes(data, "dev", 4, base=base)
    kws = ({}, {"pairs": False}, {"money": False}, {"lists": False}, {"exact_money": False}, {"schema_family": False})
    alone = [build_vocabulary(data.tools, base.state, **kw) for kw in kws]
    want = [[v.vector(t.state, t.tool, t.args) for t in probes] for v in alone]
    shared = [build_vocabulary(data.tools, base.state, **kw) for kw in kws]
    reads = SharedReads(shared[0])
    for v in shared[1:]:
        reads.share(v)
    for _ in range(2):  # the second pass is served from the memo
        assert [[v.vector(t.state, t.tool, t.args) for t in probes] for v in shared] == want
    assert reads.reads == len(probes) and reads.hits >= len(probes)
    # the lists ablation builds `type` another way: those conditions are its own reads, not the main one's
    assert shared[3].predicate_digest("item_ids:type") != shared[0].predicate_digest("item_ids:type")
    assert shared[1].predicate_digest("order_id:exists") == shared[0].predicate_digest("order_id:exists")
    reads.close()
    assert "vector" not in shared[0].__dict__ and reads.reads == len(probes)


def test_lookups_are_inserted_before_their_step_and_never_a_write(retail) -> None:
    data, base = retail
    tasks = data.tasks["dev"][:3]
    probes = split_probes(data, "dev", 3, base=base)
    talk = tasks_with_lookups(tasks, probes, RETAIL.writing)
    for task, t in zip(tasks, talk):
        writes = [a for a in t["actions"] if a["name"] in RETAIL.writing]
        assert writes == task["actions"]  # the gold calls, in order, unchanged
        extra = [a["name"] for a in t["actions"] if a["name"] not in RETAIL.writing]
        assert len(extra) == len(set(extra)) > 0  # each lookup once
        assert t["actions"][-1] == task["actions"][-1]
