"""The item table of a store opened from a fold snapshot (knowledge/lazy_items.py): items are built the first time
something reads them, and whatever a reader does before, between or after those builds shows exactly the
journal's fold — the same records, the same fingerprint, the same order once everything is built."""

import gc
import random
from collections import namedtuple

import pytest
from test_fold_snapshot import build, observed, reference, snapshot

from solvi_lab.errors import UnknownId
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.knowledge.keys import _Key, _SnapshotKey
from solvi_lab.knowledge.keys import live_ids as keys_live_ids
from solvi_lab.knowledge.lazy_items import LazyItems, RowSource

Row = namedtuple("Row", "id pos")


# -- the table alone ----------------------------------------------------------------------------------------------
def table(positions=(1, 5, 9), freeze_min=None) -> tuple[LazyItems, list]:
    """A table over rows ``[pos]`` whose decoder records every row it builds."""
    data = b"".join(f"[{p}]\n".encode() for p in positions)
    offsets = [0]
    for p in positions:
        offsets.append(offsets[-1] + len(f"[{p}]\n"))
    built: list = []

    def decode(v: list) -> Row:
        built.append(v[0])
        return Row(f"k{v[0]}", v[0])

    return LazyItems(RowSource(data, offsets, list(positions), decode, freeze_min=freeze_min)), built


def test_len_and_membership_count_rows_not_built_without_building_them():
    items, built = table()
    assert len(items) == 3 and dict.__len__(items) == 0
    assert ("k5" in items, "k2" in items, "k05" in items, "x5" in items, 5 in items, "k" in items) == (
        True, False, False, False, False, False,
    )  # fmt: skip
    assert built == []


def test_a_read_builds_that_row_once():
    items, built = table()
    assert items["k5"] == Row("k5", 5) and items["k5"] is items["k5"]
    assert items.get("k9") == Row("k9", 9) and items.get("k9", "d") == Row("k9", 9)
    assert built == [5, 9] and dict.__len__(items) == 2 and len(items) == 3


def test_an_unknown_id_is_a_key_error_and_get_gives_the_default():
    items, built = table()
    for bad in ("k2", "k007", "k-1", "kk", "", None, 5):
        with pytest.raises(KeyError):
            items[bad]
        assert items.get(bad, "none") == "none"
    assert built == []


def test_iteration_builds_the_rest_in_journal_order_then_later_adds():
    items, built = table()
    items["k9"]
    items["k20"] = Row("k20", 20)  # added after the open: after every snapshot row
    assert list(items) == ["k1", "k5", "k9", "k20"]
    assert built == [9, 1, 5]  # each row built exactly once
    assert list(items.values()) == [Row("k1", 1), Row("k5", 5), Row("k9", 9), Row("k20", 20)]
    assert len(items) == 4 and items._src is None


def test_building_the_last_row_by_reads_finishes_the_table_in_journal_order():
    items, built = table()
    for k in ("k9", "k1", "k5"):
        items[k]
    assert items._src is None and list(dict.keys(items)) == ["k1", "k5", "k9"]


def test_whole_table_operations_see_every_row():
    items, _ = table()
    assert items == {"k1": Row("k1", 1), "k5": Row("k5", 5), "k9": Row("k9", 9)}
    other, _ = table()
    assert other.copy() == dict(items) and other.copy() is not other
    again, _ = table()
    assert again.pop("k5") == Row("k5", 5) and list(again) == ["k1", "k9"]
    fresh, _ = table()
    assert fresh.setdefault("k5", "x") == Row("k5", 5) and fresh.setdefault("k2", "x") == "x"
    cleared, _ = table()
    cleared.clear()
    assert len(cleared) == 0 and "k5" not in cleared


@pytest.mark.parametrize("freeze_min, frozen", [(None, False), (4, False), (3, True)])
def test_building_the_rest_pauses_the_collector_and_freezes_from_the_threshold(freeze_min, frozen):
    """A bulk build (3 rows here) runs with the collector paused, leaves it as it was, and freezes the heap after
    when it built at least `freeze_min` rows, as an open does (fold_snapshot.freeze_after_load)."""
    seen = []
    gc.unfreeze()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            items, _ = table(freeze_min=freeze_min)
            items._src.decode = lambda v, d=items._src.decode: (seen.append(gc.isenabled()), d(v))[1]
            list(items)
            assert gc.isenabled() is enabled and (gc.get_freeze_count() > 0) is frozen
            gc.unfreeze()
        assert seen == [False] * 6
    finally:
        gc.enable()
        gc.unfreeze()


def test_a_row_source_needs_one_offset_per_row_and_an_end():
    with pytest.raises(ValueError, match="2 item positions but 1 rows"):
        RowSource(b"[1]\n[2]\n", [0, 4], [1, 2], lambda v: v)


# -- a store opened from a snapshot -------------------------------------------------------------------------------
def built_ids(ks: KnowledgeStore) -> set[str]:
    return set(dict.keys(ks._fold._items))


def live_ids(ks: KnowledgeStore) -> set[str]:
    """The ids of every key's live contenders, read without building them (keys.live_ids)."""
    return {i for k in ks._fold._keys.values() for i in keys_live_ids(k)}


@pytest.mark.parametrize("profile", ["default", "hot-keys"])
def test_an_open_builds_no_item_however_many_are_live(tmp_path, profile):
    """Issue 42: an open's cost does not grow with the live items. The default stream keeps most items live, the
    hot-key one a few; either way the open builds none, and reading one key's contenders builds that key's only."""
    path = tmp_path / "ks.jsonl"
    build(path, profile)
    snapshot(path)
    with KnowledgeStore.open(path) as ks:
        live = live_ids(ks)
        assert ks.opened_from_snapshot and built_ids(ks) == set() and ks._fold._items._src is not None
        assert (2 * len(live) >= len(ks._fold._items)) is (profile == "default")
        with Journal(path, mode="r") as j:
            full = KnowledgeStore.from_journal(j)
        assert ks.fingerprint() == full.fingerprint() and built_ids(ks) == set()
        k = max(ks._fold._keys.values(), key=lambda k: len(keys_live_ids(k)))
        assert type(k) is _SnapshotKey and keys_live_ids(k)
        got = k.live  # the first read of a key's live set builds exactly its contenders, once
        assert type(k) is _Key and k.live is got and built_ids(ks) == set(got) == set(keys_live_ids(k))
        assert {i: it.state for i, it in got.items()} == {i: it.state for i, it in full._fold._keys[k.key].live.items()}
        assert len(ks._fold._items) == len(full._fold._items) and ks.fingerprint() == full.fingerprint()
        ks.close(snapshot=False)


@pytest.fixture(params=["default", "hot-keys"])
def journal(tmp_path, request):
    path = tmp_path / "ks.jsonl"
    ids = build(path, request.param)
    snapshot(path)
    return path, ids


def test_an_open_builds_no_item_and_the_fingerprint_needs_none(tmp_path):
    """On the hot-key stream (few live items: the lazy path; the default stream builds every row at open)."""
    path = tmp_path / "ks.jsonl"
    ids = build(path, "hot-keys")
    snapshot(path)
    want = reference(path)
    with KnowledgeStore.open(path) as ks:
        assert ks.opened_from_snapshot and type(ks._fold._items) is LazyItems
        live = live_ids(ks)
        assert built_ids(ks) == set() and len(live) < len(ids) and len(ks._fold._items) == len(want["items"])
        assert ks.fingerprint() == want["fingerprint"] and built_ids(ks) == set()
        x = next(i for i in reversed(ids) if i not in live)
        assert ks.item(x) == want["items"][x]
        assert x in built_ids(ks) and len(built_ids(ks)) <= 8  # the item and the few a record names
        ks.close(snapshot=False)


def test_an_unknown_id_on_a_lazy_store_is_refused_as_on_a_full_one(journal):
    path, _ = journal
    with KnowledgeStore.open(path) as ks:
        for bad in ("k999999", "k07", "nope"):
            with pytest.raises(UnknownId):
                ks.item(bad)
        assert built_ids(ks) == set()
        ks.close(snapshot=False)


def test_writes_before_anything_is_built_give_the_journals_fold(journal):
    """Retractions, a rollback and adds on the unbuilt table, then every read: equal to from_journal's fold."""
    path, ids = journal
    with KnowledgeStore.open(path) as ks:
        rng = random.Random(3)
        for x in rng.sample(ids, 10):
            if ks.status(x) != "retracted":
                ks.retract(x, by="t", why="lazy")
        a = ks.add("fact", {"s": "n", "r": "tier", "o": "1"}, source="person")
        b = ks.add("fact", {"s": "n", "r": "tier", "o": "2"}, source="person", supersedes=a)
        ks.rollback(b, by="t", why="lazy")
        if ks._fold._items._src is not None:  # (hot-keys: the writes above were made with rows still unbuilt)
            assert dict.__len__(ks._fold._items) < len(ks._fold._items)
        fp = ks.fingerprint()
        seen = observed(ks)
        with Journal(path, mode="r") as j:
            full = KnowledgeStore.from_journal(j)
        assert seen == observed(full) and fp == full.fingerprint()
        assert list(ks._fold._items) == list(full._fold._items)  # the fold's order: journal positions
        assert bool(ks.verify())
        ks.close(snapshot=False)


def test_a_subject_query_on_a_lazy_store_builds_only_that_subject(journal):
    path, _ = journal
    want = reference(path)
    with KnowledgeStore.open(path) as ks:
        subject = next(iter(ks._fold._by_subject))
        n = len(ks._fold._by_subject[subject])
        before = built_ids(ks)
        got = ks.snapshot(about=subject)
        assert len(built_ids(ks) - before) <= 2 * n + 8  # its items and their premises, not the store
        ks.close(snapshot=False)
    with Journal(path, mode="r") as j:
        assert got == KnowledgeStore.from_journal(j).snapshot(about=subject)
    assert want["fingerprint"] == got["fingerprint"]


def test_a_snapshot_written_from_a_lazy_store_opens_to_the_same_fold(journal):
    path, _ = journal
    with KnowledgeStore.open(path) as ks:
        ks.add("fact", {"s": "m", "r": "tier", "o": "3"}, source="person")
        ks.write_snapshot()
        ks.close(snapshot=False)
    with KnowledgeStore.open(path) as again:
        assert again.opened_from_snapshot and built_ids(again) == set()
        assert observed(again) == reference(path)
        again.close(snapshot=False)


def test_a_read_only_open_uses_the_snapshot_and_builds_only_what_it_reads(tmp_path):
    path = tmp_path / "ks.jsonl"
    ids = build(path, "hot-keys")
    snapshot(path)
    want = reference(path)
    ks = KnowledgeStore.open(path, journal_options={"mode": "r"})
    try:
        assert ks.opened_from_snapshot and built_ids(ks) == set() and len(live_ids(ks)) < len(ids)
        x = next(i for i in ids if i not in live_ids(ks))
        assert ks.item(x) == want["items"][x] and ks.fingerprint() == want["fingerprint"]
        assert observed(ks) == want
    finally:
        ks.close()


def test_items_built_after_the_snapshot_file_is_replaced_are_still_the_journals(tmp_path):
    """The rows are the bytes read at open (not a map of the file): a snapshot file deleted, cut or rewritten by
    another process afterwards changes nothing this store builds."""
    from solvi_lab.knowledge.fold_snapshot import snapshot_path

    path = tmp_path / "ks.jsonl"
    ids = build(path, "hot-keys")
    snapshot(path)
    want = reference(path)
    with KnowledgeStore.open(path) as ks:
        assert ks.opened_from_snapshot and built_ids(ks) == set()
        snapshot_path(path).write_bytes(b"cut")
        x = next(i for i in ids if i not in live_ids(ks))
        assert ks.item(x) == want["items"][x]
        snapshot_path(path).unlink()
        assert observed(ks) == want
        ks.close(snapshot=False)
