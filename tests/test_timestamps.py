"""Clock names (issue 14): `timestamps=` is the wall-clock source (default None: deterministic), `ticks` the
store's decision counter; `clock=` is the older name of `timestamps=` and still works with a DeprecationWarning."""

import pytest

from solvi_lab.errors import BadInput
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore


def test_the_default_writes_no_time_stamps_so_the_same_calls_give_the_same_head():
    a, b = Journal(), Journal()
    for j in (a, b):
        j.append("note", {"n": 1})
    assert a[0].t is None and a.head() == b.head()


def test_timestamps_stamps_each_record_and_clock_is_its_deprecated_name():
    assert Journal(timestamps=lambda: 5.25).append("note", {}).t == 5.25
    with pytest.warns(DeprecationWarning, match=r"Journal\(clock=...\) is now Journal\(timestamps=...\)"):
        j = Journal(clock=lambda: 7.0)
    assert j.append("note", {}).t == 7.0
    with pytest.raises(BadInput, match="timestamps must be a callable"):
        Journal(timestamps=3)


def test_the_store_counts_decisions_in_ticks():
    with pytest.warns(DeprecationWarning, match="is now timestamps="):
        old = KnowledgeStore(clock=None)
    ks = KnowledgeStore()
    ks.tick(3)
    assert (ks.ticks, ks.view().ticks, old.ticks) == (3, 3, 0)
    assert ks.journal[0].payload == {"op": "tick", "k": 3}
    with pytest.raises(BadInput, match=r"unexpected keyword arguments \['clok'\]"):  # the project's error, naming it
        KnowledgeStore(clok=None)
