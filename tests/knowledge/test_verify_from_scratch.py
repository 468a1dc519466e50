"""verify() is a from-scratch check (issue 40, part 2): the journal's replay compared with what the live store
serves, recomputed from its items, questions and flags — never from the digests the store keeps. A served field
changed behind the fold's back with its kept digest left as it was (what a forged fold snapshot carries) is found,
on a built item and on a snapshot row not built yet; a store found to differ writes no fold snapshot."""

from __future__ import annotations

import json
from collections import namedtuple
from pathlib import Path

import pytest
from test_fold_snapshot import build, snapshot

from solvi_lab.errors import BadInput
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.knowledge import fold_snapshot as fs
from solvi_lab.knowledge import snapshot_rows as rows
from solvi_lab.knowledge.digests import recomputed
from solvi_lab.knowledge.lazy_items import LazyItems, RowSource

Row = namedtuple("Row", "id pos")


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "ks.jsonl"
    build(path)
    return path


def test_recomputed_equals_kept_on_a_sound_store(journal: Path) -> None:
    with KnowledgeStore.open(journal, snapshot=False) as ks:
        fp, present, differs = recomputed(ks._fold)
        assert (fp, present, differs) == (ks.fingerprint(), len(ks), "")
        assert ks.verify()


def test_a_changed_item_with_its_kept_digest_is_found(journal: Path) -> None:
    with KnowledgeStore.open(journal, snapshot=False) as ks:
        assert ks.verify()
        ks._fold._flush_digests()  # every pending digest settled (as a write does): the change below is behind the
        before = ks.fingerprint()  # fold's back
        it = next(it for it in ks._fold._items.values() if it.state == "active")
        it.body = {**it.body, "o": "forged"}  # not touched: its kept digest, and the fingerprint, stay
        assert ks.fingerprint() == before
        v = ks.verify()
        assert not v and v.chain_ok and not v.replay_matches
        assert "recomputed from what it serves" in v.problem and "kept digests (items)" in v.problem
        with pytest.raises(BadInput, match="to differ from the replay"):
            ks.write_snapshot()
        ks.close(snapshot=False)


def test_a_changed_status_is_found(journal: Path) -> None:
    with KnowledgeStore.open(journal, snapshot=False) as ks:
        ks._fold._flush_digests()  # every pending digest settled (as a write does): the change below is behind the
        # fold's back
        it = next(it for it in ks._fold._items.values() if it.state == "active")
        it.state = "hypothesis"
        v = ks.verify()
        assert not v and "kept digests (items)" in v.problem
        ks.close(snapshot=False)


def test_a_row_not_built_yet_is_hashed_without_being_built(tmp_path: Path) -> None:
    journal = tmp_path / "hot.jsonl"
    build(journal, "hot-keys")  # few live items: the open leaves most rows unbuilt
    snapshot(journal)
    with KnowledgeStore.open(journal) as ks:
        assert ks.opened_from_snapshot
        items = ks._fold._items
        assert isinstance(items, LazyItems) and items._src is not None
        built = dict.__len__(items)
        assert ks.verify()
        assert dict.__len__(items) == built  # verify built nothing
        # A row edited in place (what a forged file holds): its item was never built, its kept digest never
        # recomputed. Its confirmations count moves by one (one digit: the row keeps its length and offsets).
        src = items._src
        at = rows._SLOTS.index("confirmations")
        for r, p in enumerate(src.positions):
            start, end = src.offsets[r], src.offsets[r + 1] - 1
            v = json.loads(bytes(src.view[start:end]))
            if not dict.__contains__(items, f"k{p}") and v[at] < 9 and v[rows._SLOTS.index("state")] == "refuted":
                break
        else:
            raise AssertionError("no unbuilt refuted row")
        v[at] += 1
        forged = fs._dumps(v)
        assert len(forged) == end - start
        data = bytearray(src.view.obj)
        data[start:end] = forged
        src.view = memoryview(bytes(data))
        v = ks.verify()
        assert not v and "recomputed from what it serves" in v.problem
        assert dict.__len__(items) == built
        ks.close(snapshot=False)


def test_forged_retractions_do_not_steer_the_replay(journal: Path) -> None:
    with KnowledgeStore.open(journal, snapshot=False) as ks:
        it = next(it for it in ks._fold._items.values() if it.state == "active")
        ks._fold._retracted[it.id] = {"position": 0, "by": "x", "why": "forged"}
        v = ks.verify()
        assert not v and "its retractions" in v.problem  # the replay skips the journal's retractions, not these
        ks.close(snapshot=False)


def test_served_yields_built_items_then_unbuilt_rows_without_keeping_them() -> None:
    data = b"[1]\n[5]\n[9]\n"
    items = LazyItems(RowSource(data, [0, 4, 8, 12], [1, 5, 9], lambda v: Row(f"k{v[0]}", v[0])))
    five = items["k5"]
    served = list(items.served())
    assert served[0] is five and [it.pos for it in served] == [5, 1, 9]
    assert dict.__len__(items) == 1 and len(items) == 3


def test_no_snapshot_is_written_from_a_state_whose_kept_digests_differ(journal: Path) -> None:
    with KnowledgeStore.open(journal, snapshot=False) as ks:
        ks._fold._flush_digests()  # every pending digest settled (as a write does; a read leaves them pending)
        it = next(it for it in ks._fold._items.values() if it.state == "active")
        it.why = "changed behind the fold's back"  # its kept digest is the old one
        with pytest.raises(BadInput, match=r"holds digests that differ from its items \(items\)"):
            ks.write_snapshot()
        assert not fs.snapshot_path(journal).exists()
        with pytest.raises(BadInput, match="holds digests that differ"):
            ks.write_snapshot()  # and not later either
        ks.close(snapshot=False)
