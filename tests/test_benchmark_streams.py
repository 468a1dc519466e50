"""The benchmark streams (benchmarks/streams.py): every benchmark offers the same three profiles, and the
derived-keys stream has the shape it is meant to have — derived items on keys of their own, about a third of the
items live at the end — unlike the hot-key stream, where competition settles nearly everything."""

from __future__ import annotations

import collections
import sys
from pathlib import Path

import pytest

from solvi_lab.knowledge import KnowledgeStore

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def streams():
    sys.path.insert(0, str(BENCH))
    try:
        import hot_keys
        import streams

        yield streams, hot_keys
    finally:
        sys.path.remove(str(BENCH))


def _statuses(streams, hot_keys, profile: str, n: int) -> tuple[collections.Counter, list[str]]:
    ks = KnowledgeStore()
    ids, keys = hot_keys.apply_hot_stream(ks, streams.keyed_operations(profile, n, 0))
    return collections.Counter(ks.status(i) if i is not None else "refused" for i in ids), keys


def test_every_benchmark_offers_the_same_profiles(streams):
    for name in ("store_scale.py", "open_wait.py", "ab_cpu.py", "write_path.py"):
        assert "choices=PROFILES" in (BENCH / name).read_text(), name
    assert streams[0].PROFILES == ("default", "hot-keys", "derived-keys")


def test_the_derived_keys_stream_keeps_a_third_of_its_items_live(streams):
    c, keys = _statuses(*streams, "derived-keys", 3000)
    live = c["active"] + c["hypothesis"] + c["disputed"]
    assert sum(c.values()) == len(keys) == 3000
    assert 0.25 <= live / 3000 <= 0.45
    assert len(set(keys)) > 900  # derived items on keys of their own: many keys
    assert c["disputed"] > 0 and c["refuted"] > 0


def test_the_hot_key_stream_has_few_keys_and_few_live_items(streams):
    c, keys = _statuses(*streams, "hot-keys", 3000)
    live = c["active"] + c["hypothesis"] + c["disputed"]
    assert live / 3000 < 0.10
    assert len(set(keys)) < 50


def test_a_default_profile_is_not_a_keyed_stream(streams):
    with pytest.raises(ValueError, match="not a keyed stream"):
        streams[0].keyed_operations("default", 10, 0)
