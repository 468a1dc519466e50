"""Reads are pure (issue 41, item 2): no public read of a knowledge store changes a field of the fold it holds.

Digests are settled on the write path (under the journal's lock: the write after a read, a snapshot's write, a
gate's shadow inside add()), and a read that needs a pending digest counts it on the side (digests.settled), so the
fold's fields — every one of
`Fold.FIELDS`, compared by value — are the same before and after each public read: the store's methods, its
properties, `len`/`in`, its view's calls, a snapshot, verify() and the explore functions that read it. A store
opened from a fold snapshot (items built on first read, knowledge/lazy_items.py) is read the same way: building a
row changes no value a read can see.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from solvi_lab.explore import store_frame
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.knowledge.fold import Fold
from solvi_lab.knowledge.items import Item
from solvi_lab.knowledge.keys import _Key
from solvi_lab.knowledge.snapshot_rows import PendingCheckpoints
from solvi_lab.knowledge.staleness import Flag, FlagIndex


def _plain(v: Any) -> Any:
    """A value of the fold as plain, comparable data (items and keys by their slots, flags by their fields)."""
    if isinstance(v, Item):
        return ("item", tuple(_plain(getattr(v, s)) for s in Item.__slots__))
    if isinstance(v, _Key):
        return ("key", tuple(_plain(getattr(v, s)) for s in _Key.__slots__))
    if isinstance(v, Flag):
        return ("flag", _plain(dataclasses.asdict(v)))
    if isinstance(v, FlagIndex):
        return ("flags", _plain(vars(v)))
    if isinstance(v, PendingCheckpoints):
        return ("pending checkpoints", v.text)
    if isinstance(v, Mapping):  # a dict, or a snapshot's index not built yet (lazy_indexes.PendingIndex): by value
        served = getattr(v, "served", None)  # a fold snapshot's item table: every item as a read serves it
        pairs = ((it.id, it) for it in served()) if served is not None else v.items()
        return ("dict", sorted((repr(k), _plain(x)) for k, x in pairs))
    if isinstance(v, (set, frozenset)):
        return ("set", sorted(repr(_plain(x)) for x in v))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [_plain(x) for x in v])
    return v


def fields(ks: KnowledgeStore) -> dict[str, Any]:
    """Every field of the store's fold, by value."""
    return {name: _plain(getattr(ks._fold, name)) for name in Fold.FIELDS}


def _busy(ks: KnowledgeStore) -> dict[str, str]:
    """Disputes, a resolution, premises, a flag, a rollback, a retraction, a held rule, uses and the clock."""
    a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person", scope={"shop": "A"})
    b = ks.add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="person", scope={"shop": "A"})
    ks.add("fact", {"s": "c2", "r": "tier", "o": "gold"}, source="person")
    ks.add("fact", {"s": "c2", "r": "tier", "o": "silver"}, source="person")  # an open dispute
    ks.resolve(ks.disputes()[0]["question"], "vip", by="ann")
    c = ks.add("fact", {"s": "c1", "r": "discount", "o": 20}, source="spec", derived_from=[b])
    v1 = ks.add("fact", {"s": "c3", "r": "plan", "o": "basic"}, source="person")
    v2 = ks.add("fact", {"s": "c3", "r": "plan", "o": "pro"}, source="person", supersedes=v1)
    d = ks.add("fact", {"s": "c3", "r": "price", "o": 9}, source="spec", derived_from=[v2])
    ks.rollback(v2, by="ann", why="wrong plan")
    ks.flag(scope={"shop": "A"}, why="drift")
    ks.add("rule", {"name": "greet"}, source="spec", hypothesis=True)
    ks.use(c)
    ks.use(c, wrong=True)
    ks.tick(2)
    e = ks.add("fact", {"s": "c4", "r": "tier", "o": "gold"}, source="outcome", valid=(0, 10))
    ks.retract(a, by="ann", why="wrong customer")
    return {"a": a, "b": b, "c": c, "v1": v1, "v2": v2, "d": d, "e": e}


READS: dict[str, Callable[[KnowledgeStore, dict[str, str]], Any]] = {
    "fingerprint": lambda ks, ids: ks.fingerprint(),
    "len": lambda ks, ids: len(ks),
    "in": lambda ks, ids: (ids["c"] in ks, "nope" in ks),
    "report": lambda ks, ids: ks.report(),
    "state": lambda ks, ids: ks.state(),
    "verify": lambda ks, ids: bool(ks.verify()),
    "status": lambda ks, ids: [ks.status(i) for i in ids.values()],
    "item": lambda ks, ids: [ks.item(i) for i in ids.values()],
    "query": lambda ks, ids: (ks.query(), ks.query(s="c1"), ks.query(kind="fact", status="active"), ks.query(o=20)),
    "snapshot": lambda ks, ids: (ks.snapshot(), ks.snapshot(about="c3"), ks.snapshot(about="greet", valid_at=5)),
    "disputes": lambda ks, ids: ks.disputes(),
    "questions": lambda ks, ids: ks.questions(),
    "stale": lambda ks, ids: [ks.stale(i) for i in ids.values()],
    "usable": lambda ks, ids: [ks.usable(i, valid_at=3) for i in ids.values()],
    "rolled_back_under": lambda ks, ids: [ks.rolled_back_under(i) for i in ids.values()],
    "properties": lambda ks, ids: (ks.position, ks.ticks, ks.last_propagation, ks.read_only),
    "view": lambda ks, ids: _view_reads(ks, ids),
    "rebuild and at": lambda ks, ids: (ks.rebuild(skip={ids["b"]}).fingerprint(), ks.at(3).fingerprint()),
    "explore.store_frame": lambda ks, ids: store_frame(ks).height,
}


def _view_reads(ks: KnowledgeStore, ids: dict[str, str]) -> Any:
    v = ks.view()
    out = [list(v.ids()), len(v), list(v.records()), list(v.keys()), v.flags(), v.pending_flags(), v.ticks]
    for i in ids.values():
        it = v.record(i)
        out += [it, v.status(i), v.present(i), v.premises_of(i), v.dependents_of(i), v.competitors_of(i)]
        out += [v.on_key(it.key), v.retraction(i)]
    out += [v.flag_pending(f) for f in v.flags()]
    out += [it.id for it in v.fold_items()]
    return out


@pytest.fixture(params=["in memory", "opened from a fold snapshot"])
def store(request, tmp_path: Path):
    if request.param == "in memory":
        ks = KnowledgeStore()
        yield ks, _busy(ks)
        return
    path = tmp_path / "ks.jsonl"
    with KnowledgeStore.open(path) as ks:
        ids = _busy(ks)
        ks.write_snapshot()
    with KnowledgeStore.open(path) as ks:
        assert ks.opened_from_snapshot
        yield ks, ids


@pytest.mark.parametrize("read", sorted(READS))
def test_a_public_read_leaves_every_field_of_the_fold_as_it_was(store, read):
    ks, ids = store
    before = fields(ks)
    first = READS[read](ks, ids)
    assert fields(ks) == before
    assert READS[read](ks, ids) == first  # and reading again gives the same answer


def test_writes_alone_leave_digests_pending_and_the_write_after_a_read_settles_them():
    ks = KnowledgeStore()
    ids = _busy(ks)
    fold = ks._fold
    assert fold._touched != set()  # only written so far: nothing hashed yet (a build pays no digest)
    fp = ks.fingerprint()  # counted on the side
    assert fold._touched != set()
    ks.confirm(ids["c"], by="ann")  # the write after a read settles what is pending
    assert fold._touched == set()
    assert fp != ks.fingerprint() == KnowledgeStore.from_journal(ks.journal).fingerprint()
    ks.confirm(ids["c"], by="bob")  # read since: settled again
    assert fold._touched == set()
    ks.confirm(ids["c"], by="cem")  # no read since: pending
    assert fold._touched != set()
    assert ks.fingerprint() == KnowledgeStore.from_journal(ks.journal).fingerprint()


def test_a_pending_digest_is_counted_on_the_side_by_a_read():
    # A fold with a digest pending: the fingerprint and len count it, and change nothing.
    ks = KnowledgeStore()
    ids = _busy(ks)
    reference = ks.fingerprint()
    fold = ks._fold
    fold._flush_digests()  # (as the next write would)
    it = fold._items[ids["c"]]
    it.uses += 1  # as a "use" record would, without its settling
    fold._touch(it)
    before = fields(ks)
    moved = ks.fingerprint()
    assert moved != reference and len(ks) == len(ks)
    assert fields(ks) == before
    fold._flush_digests()  # what the write path does: now the kept sums say the same
    assert ks.fingerprint() == moved


def test_the_comparison_sees_a_read_that_settles_digests():
    # The negative case: what the reads did before issue 41 (flush the pending digests) changes the fold's fields.
    ks = KnowledgeStore()
    ids = _busy(ks)
    ks._fold._flush_digests()
    it = ks._fold._items[ids["c"]]
    it.uses += 1
    ks._fold._touch(it)
    before = fields(ks)
    ks._fold._flush_digests()
    after = fields(ks)
    assert after != before
    changed = {name for name in Fold.FIELDS if after[name] != before[name]}
    assert changed == {"_items", "_keys", "_items_sum", "_touched"}  # the item (also live on its key) and the sums
