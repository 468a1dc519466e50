"""Fold snapshots (knowledge/fold_snapshot.py): a snapshot the journal bears out gives exactly the journal's fold,
and every other one — damaged, stale, forged, another journal's, another rules version's, missing — is ignored with
one warning saying why, the store then being the journal's fold from scratch. Retractions, rebuilds and verify()
after opening from a snapshot behave as after a full fold."""

import gc
import hashlib
import json
import logging
import random
import shutil
import sys
import warnings
import weakref
from pathlib import Path

import pytest

from solvi_lab.errors import BadInput, CorruptJournal, UnknownId
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.knowledge import fold_snapshot as fs
from solvi_lab.knowledge import snapshot_rows as rows
from solvi_lab.knowledge.fold import Fold
from solvi_lab.knowledge.fold_snapshot import FoldSnapshotIgnored, snapshot_path
from solvi_lab.knowledge.snapshot_load import SnapshotLoader
from solvi_lab.knowledge.store import StoreFold
from solvi_lab.studies.synthetic import apply_stream, iter_operations

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from hot_keys import apply_hot_stream, iter_hot_key_operations  # noqa: E402


def extras(ks: KnowledgeStore) -> None:
    """Operations the synthetic streams do not write: versions and a rollback, confirmations, uses, a retraction,
    a flag on ids, a verified fact resting on a decision, and a question left open."""
    a = ks.add("fact", {"s": "x", "r": "tier", "o": "gold"}, source="person")
    b = ks.add("fact", {"s": "x", "r": "tier", "o": "vip"}, source="person", supersedes=a)
    ks.rollback(b, by="ann", why="wrong")
    ks.confirm(a, by="bob")
    ks.use(a)
    ks.use(a, wrong=True)
    c = ks.add("fact", {"s": "y", "r": "tier", "o": "gold"}, source="spec", derived_from=[a])
    ks.retract(c, by="ann", why="typo")
    ks.flag(ids=[a], why="drift", by="monitor")
    d = ks.decisions.record("route", {"to": "b"}, 1.5, answered_by="system2", guarantee="checked")
    ks.add("fact", {"s": "z", "r": "tier", "o": 1.5}, source="verified", of=d.id, scope={"shop": "n"})
    ks.add("fact", {"s": "q", "r": "tier", "o": "a"}, source="person")
    ks.add("fact", {"s": "q", "r": "tier", "o": "b"}, source="person")  # an open dispute
    ks.tick(3)


def build(path: Path, profile: str = "default", n: int = 300, seed: int = 0) -> list[str]:
    """A journal at `path` (closed, no snapshot); the ids of its adds."""
    with KnowledgeStore.open(path, snapshot=False) as ks:
        if profile == "hot-keys":
            ids, _ = apply_hot_stream(ks, iter_hot_key_operations(n, seed))
        else:
            ids = apply_stream(ks, iter_operations(n, seed))
        extras(ks)
        return [i for i in ids if i is not None]


def snapshot(path: Path) -> None:
    with KnowledgeStore.open(path, snapshot=False) as ks:
        ks.write_snapshot()


def observed(ks: KnowledgeStore) -> dict:
    """Everything a reader sees: state, fingerprint, report, questions, disputes and every item's record."""
    items = {}
    for iid in ks._fold._items:
        try:
            items[iid] = ks.item(iid)
        except UnknownId as e:
            items[iid] = str(e)
    return {
        "state": ks.state(),
        "fingerprint": ks.fingerprint(),
        "report": ks.report(),
        "questions": ks.questions(),
        "disputes": ks.disputes(),
        "items": items,
        "len": len(ks),
    }


def reference(path: Path) -> dict:
    """The journal's fold from scratch (KnowledgeStore.from_journal on a read-only open of the file)."""
    with Journal(path, mode="r") as j:
        return observed(KnowledgeStore.from_journal(j))


def opened(path: Path, **kw) -> tuple[dict, bool, list[str]]:
    """Open `path` (writer open), returning what it shows, whether a snapshot was used, and the warnings."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with KnowledgeStore.open(path, **kw) as ks:
            seen, used = observed(ks), ks.opened_from_snapshot
            ks.close(snapshot=False)
    return seen, used, [str(x.message) for x in w if issubclass(x.category, FoldSnapshotIgnored)]


@pytest.fixture(params=["default", "hot-keys"])
def journal(tmp_path, request) -> Path:
    path = tmp_path / "ks.jsonl"
    build(path, request.param)
    return path


def test_an_accepted_snapshot_gives_the_journals_fold(journal):
    want = reference(journal)
    snapshot(journal)
    assert snapshot_path(journal).is_file()
    seen, used, warned = opened(journal)
    assert used is True and warned == []
    assert seen == reference(journal)
    assert seen["fingerprint"] == want["fingerprint"]  # the snapshot record moves only the position


def test_sqlite_journal_uses_its_snapshot(tmp_path):
    path = tmp_path / "ks.sqlite"
    build(path)
    snapshot(path)
    seen, used, warned = opened(path)
    assert used is True and warned == [] and seen == reference(path)


def test_a_journal_that_grew_after_the_snapshot_folds_only_the_tail(journal, monkeypatch):
    snapshot(journal)
    with KnowledgeStore.open(journal, snapshot=False) as ks:
        extras(ks)
        x = ks.add("fact", {"s": "tail", "r": "tier", "o": "gold"}, source="outcome")
        ks.retract(x, by="ann", why="tail retraction")
    folded = []
    original = StoreFold._load

    def spy(self, record):
        folded.append(record.position)
        return original(self, record)

    monkeypatch.setattr(StoreFold, "_load", spy)  # the fold's class: the store's fold is made inside open()
    seen, used, warned = opened(journal)
    marker = next(r.position for r in Journal(journal, mode="r") if r.kind == fs.MARKER_KIND)
    assert used is True and warned == []
    assert folded[0] == marker and folded == list(range(marker, len(folded) + marker))
    assert seen == reference(journal)


def ops_on(ks: KnowledgeStore, ids: list[str], rng: random.Random) -> list[str]:
    """Retractions, a resolve, a rollback and new adds; returns the fingerprint after each."""
    fps = []
    for x in rng.sample(ids, 12):
        if ks.status(x) != "retracted":
            ks.retract(x, by="t", why="test")
            fps.append(ks.fingerprint())
    for q in ks.questions():
        if q["closed_at"] is None:
            side = next(c for c in ks._fold._keys[q["key"]].live.values() if c.state == "disputed")
            ks.resolve(q["key"], side.body["o"], by="t")
            fps.append(ks.fingerprint())
            break
    a = ks.add("fact", {"s": "n", "r": "tier", "o": "1"}, source="person")
    b = ks.add("fact", {"s": "n", "r": "tier", "o": "2"}, source="person", supersedes=a)
    ks.rollback(b, by="t", why="test")
    fps.append(ks.fingerprint())
    return fps


def test_retractions_and_rebuilds_after_a_snapshot_open_behave_identically(journal, tmp_path):
    with Journal(journal, mode="r") as j:
        ids = list(KnowledgeStore.from_journal(j)._fold._items)
    snapshot(journal)
    other = tmp_path / "copy" / "ks.jsonl"
    other.parent.mkdir()
    shutil.copyfile(journal, other)
    shutil.copyfile(str(journal) + ".head", str(other) + ".head")
    fast = KnowledgeStore.open(journal)
    slow = KnowledgeStore.open(other, snapshot=False)
    try:
        assert fast.opened_from_snapshot and not slow.opened_from_snapshot
        present = [i for i in ids if slow._fold._items[i].present]
        assert ops_on(fast, present, random.Random(5)) == ops_on(slow, present, random.Random(5))
        assert observed(fast) == observed(slow) == observed(KnowledgeStore.from_journal(fast.journal))
        x = present[3]
        assert fast.rebuild(skip=[x]).fingerprint() == slow.rebuild(skip=[x]).fingerprint()
        assert fast.at(len(present)).fingerprint() == slow.at(len(present)).fingerprint()
        assert bool(fast.verify()) and bool(slow.verify())
    finally:
        fast.close(snapshot=False)
        slow.close(snapshot=False)


def test_verify_still_folds_from_scratch(journal):
    snapshot(journal)
    with KnowledgeStore.open(journal) as ks:
        assert ks.opened_from_snapshot and bool(ks.verify())
        it = next(it for it in ks._fold._items.values() if it.state == "active")
        it.why = "changed behind the fold's back"
        ks._fold._touch(it)
        v = ks.verify()
        assert not v and v.chain_ok and not v.replay_matches
        ks.close(snapshot=False)


def _rewrite(path: Path, body: bytes) -> None:
    """Write a snapshot file with `body` and a digest line that matches it (a forger's edit: the digest line's other
    fields as they were)."""
    digest = hashlib.sha256(body).hexdigest()
    old = path.read_bytes()
    top = json.loads(old[old.rfind(b"\n", 0, len(old) - 1) + 1 :])
    top.update({"digest": digest, "format": fs.FORMAT, "version": fs.VERSION})
    path.write_bytes(body + json.dumps(top).encode() + b"\n")


def _body(path: Path) -> bytes:
    data = path.read_bytes()
    return data[: data.rfind(b"\n", 0, len(data) - 1) + 1]


def test_damaged_snapshots_are_ignored(tmp_path):
    path = tmp_path / "ks.jsonl"
    build(path)
    snapshot(path)
    want = reference(path)
    sp = snapshot_path(path)
    good = sp.read_bytes()
    rng = random.Random(3)
    offsets = sorted(rng.sample(range(len(good)), 40)) + [len(good) - 1, len(good) - 20, 0]
    for off in offsets:
        bad = bytearray(good)
        bad[off] ^= rng.randrange(1, 256)
        sp.write_bytes(bytes(bad))
        seen, used, warned = opened(path)
        assert used is False, off
        assert len(warned) == 1 and "damaged" in warned[0], (off, warned)
        assert seen == want, off
    sp.write_bytes(good[: len(good) // 2])  # cut short
    seen, used, warned = opened(path)
    assert not used and len(warned) == 1 and "damaged" in warned[0] and seen == want


def test_a_forged_snapshot_is_refused(tmp_path):
    path = tmp_path / "ks.jsonl"
    build(path)
    snapshot(path)
    want = reference(path)
    sp = snapshot_path(path)
    body = _body(sp)
    assert b'"admitted"' in body
    _rewrite(sp, body.replace(b'"admitted"', b'"forged!!"', 1))  # one item's why, and a new digest
    seen, used, warned = opened(path)
    assert not used and len(warned) == 1
    assert "digest is not the one the journal recorded" in warned[0]
    assert seen == want
    _rewrite(sp, body)  # the original content under a rewritten digest line: the journal's digest again
    seen, used, warned = opened(path)
    assert used and warned == [] and seen == want


def test_a_stale_snapshot_of_an_older_position_is_used_only_where_the_journal_records_it(tmp_path):
    path = tmp_path / "ks.jsonl"
    build(path)
    before = tmp_path / "before"
    before.mkdir()
    for suffix in ("", ".head"):
        shutil.copyfile(str(path) + suffix, str(before / "ks.jsonl") + suffix)
    snapshot(path)
    # The journal replaced by its older copy (before the snapshot record), which then grew otherwise. A new file,
    # as restoring a backup makes one: the journal's head checkpoint kept on the old file would refuse it.
    for suffix in ("", ".head"):
        Path(str(path) + suffix).unlink()
        shutil.copyfile(str(before / "ks.jsonl") + suffix, str(path) + suffix)
    seen, used, warned = opened(path)
    assert not used and len(warned) == 1 and "ends at position" in warned[0] and seen == reference(path)
    with KnowledgeStore.open(path, snapshot=False) as ks:
        ks.add("fact", {"s": "other", "r": "tier", "o": "gold"}, source="person")
    seen, used, warned = opened(path)
    assert not used and len(warned) == 1 and "does not record it" in warned[0] and seen == reference(path)


def test_a_snapshot_beyond_the_journals_end_is_ignored(tmp_path):
    path = tmp_path / "ks.jsonl"
    build(path)
    short = tmp_path / "short.jsonl"
    with Journal(path, mode="r") as j, Journal(short) as out:
        for r in list(j)[:50]:
            out.append(r.kind, r.payload)
    snapshot(path)
    shutil.copyfile(snapshot_path(path), snapshot_path(short))
    seen, used, warned = opened(short)
    assert not used and len(warned) == 1 and "holds only 50 records" in warned[0] and seen == reference(short)


def test_another_journals_snapshot_is_ignored(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    build(a, seed=1)
    build(b, seed=2)
    snapshot(b)
    shutil.copyfile(snapshot_path(b), snapshot_path(a))
    seen, used, warned = opened(a)
    assert not used and len(warned) == 1 and "another journal" in warned[0] and seen == reference(a)


def test_a_snapshot_of_a_journal_with_the_same_start_is_ignored(tmp_path):
    a = tmp_path / "a.jsonl"
    build(a)
    b = tmp_path / "b" / "a.jsonl"
    b.parent.mkdir()
    for suffix in ("", ".head"):
        shutil.copyfile(str(a) + suffix, str(b) + suffix)
    for path, o in ((a, "left"), (b, "right")):
        with KnowledgeStore.open(path, snapshot=False) as ks:
            ks.add("fact", {"s": "fork", "r": "tier", "o": o}, source="person")
    snapshot(b)
    shutil.copyfile(snapshot_path(b), snapshot_path(a))
    seen, used, warned = opened(a)
    assert not used and len(warned) == 1 and "same start" in warned[0] and seen == reference(a)


def test_another_rules_versions_snapshot_is_ignored(tmp_path, monkeypatch):
    path = tmp_path / "ks.jsonl"
    build(path)
    monkeypatch.setattr(fs, "_stamp", "0" * 64)  # written by "other" fold code
    snapshot(path)
    monkeypatch.setattr(fs, "_stamp", None)
    seen, used, warned = opened(path)
    assert not used and len(warned) == 1 and "another version of the fold rules" in warned[0]
    assert seen == reference(path)


def test_rules_stamp_follows_the_fold_code(monkeypatch):
    from solvi_lab.knowledge import items

    before = fs.rules_stamp()
    monkeypatch.setattr(fs, "_stamp", None)
    monkeypatch.setattr(items.Item, "expired", lambda self, clock: False)
    assert fs.rules_stamp() != before
    monkeypatch.undo()
    fs._stamp = None
    assert fs.rules_stamp() == before


def test_a_missing_snapshot(tmp_path, caplog):
    path = tmp_path / "ks.jsonl"
    build(path)
    with caplog.at_level(logging.INFO, logger="solvi_lab.fold_snapshot"):
        seen, used, warned = opened(path)
    assert not used and warned == [] and seen == reference(path)  # never had one: a log line, no warning
    assert any("no fold snapshot" in r.getMessage() for r in caplog.records)
    snapshot(path)
    snapshot_path(path).unlink()
    seen, used, warned = opened(path)
    assert not used and len(warned) == 1 and "the file is missing" in warned[0] and seen == reference(path)
    seen, used, warned = opened(path, snapshot=False)
    assert not used and warned == []


def test_close_writes_a_snapshot_by_default_for_a_long_journal(tmp_path, monkeypatch):
    path = tmp_path / "ks.jsonl"
    build(path)
    n = len(Journal(path, mode="r"))
    monkeypatch.setattr(KnowledgeStore, "SNAPSHOT_MIN_RECORDS", n + 1)
    with KnowledgeStore.open(path):
        pass
    assert not snapshot_path(path).exists()  # shorter than SNAPSHOT_MIN_RECORDS
    monkeypatch.setattr(KnowledgeStore, "SNAPSHOT_MIN_RECORDS", n)
    with KnowledgeStore.open(path, snapshot=False):
        pass
    assert not snapshot_path(path).exists()  # turned off
    with KnowledgeStore.open(path):
        pass
    assert snapshot_path(path).exists() and len(Journal(path, mode="r")) == n + 1
    with KnowledgeStore.open(path) as ks:
        assert ks.opened_from_snapshot
    assert len(Journal(path, mode="r")) == n + 1  # nothing new since the last snapshot: none written
    with KnowledgeStore.open(path, journal_options={"mode": "r"}) as ks:
        assert ks.opened_from_snapshot  # a read-only open reads it, and writes nothing on close
    assert len(Journal(path, mode="r")) == n + 1
    with KnowledgeStore.open(path) as ks:  # a short tail behind the snapshot: kept, no new snapshot
        extras(ks)
    tail = len(Journal(path, mode="r")) - (n + 1)
    assert tail < n and not any(r.kind == fs.MARKER_KIND for r in Journal(path, mode="r").records(n + 1))
    monkeypatch.setattr(KnowledgeStore, "SNAPSHOT_MIN_RECORDS", tail)
    with KnowledgeStore.open(path) as ks:  # a tail of SNAPSHOT_MIN_RECORDS records: a new snapshot on close
        assert ks.opened_from_snapshot
    last = list(Journal(path, mode="r"))[-1]
    assert last.kind == fs.MARKER_KIND and last.payload["position"] == n + 1 + tail
    with pytest.warns(FoldSnapshotIgnored, match="the file is missing"):
        snapshot_path(path).unlink()
        with KnowledgeStore.open(path):  # a recorded snapshot whose file is gone: written again on close
            pass
    assert snapshot_path(path).is_file()


def test_write_snapshot_refuses_what_it_cannot_record(tmp_path):
    with pytest.raises(BadInput, match="journal file"):
        KnowledgeStore().write_snapshot()
    path = tmp_path / "ks.jsonl"
    with KnowledgeStore.open(path) as ks:
        with pytest.raises(BadInput, match="empty"):
            ks.write_snapshot()
    build(path)
    with KnowledgeStore.open(path, journal_options={"mode": "r"}) as ks:
        with pytest.raises(BadInput, match="open for appending"):
            ks.write_snapshot()
    with KnowledgeStore.open(path) as ks:
        with pytest.raises(BadInput, match="journal file"):
            ks.rebuild(upto=3).write_snapshot()


def test_the_spec_spelling_uses_the_snapshot_too(tmp_path):
    path = tmp_path / "ks.jsonl"
    build(path)
    snapshot(path)
    ks = KnowledgeStore(path)
    try:
        assert ks.opened_from_snapshot and observed(ks) == reference(path)
    finally:
        ks.close(snapshot=False)


def test_a_large_open_freezes_the_heap_and_the_store_is_still_freed(tmp_path, monkeypatch):
    path = tmp_path / "ks.jsonl"
    build(path)
    monkeypatch.setattr(KnowledgeStore, "FREEZE_MIN_RECORDS", 10)
    gc.unfreeze()
    try:
        ks = KnowledgeStore.open(path)
        assert gc.get_freeze_count() > 0
        ref = weakref.ref(ks)
        ks.close(snapshot=False)
        del ks
        assert ref() is None  # freed by reference counting: no cycle keeps a frozen store alive
    finally:
        gc.unfreeze()
    monkeypatch.setattr(KnowledgeStore, "FREEZE_MIN_RECORDS", None)
    with KnowledgeStore.open(path, snapshot=False):
        assert gc.get_freeze_count() == 0


def test_the_snapshot_covers_every_field_of_the_fold_state():
    import dataclasses

    from solvi_lab.knowledge.items import Item
    from solvi_lab.knowledge.keys import _Key
    from solvi_lab.knowledge.staleness import Flag

    fields = rows.SNAPSHOT_FIELDS + rows.REBUILT_FIELDS + rows.TRANSIENT_FIELDS
    assert len(set(fields)) == len(fields)
    assert set(fields) == set(Fold.FIELDS)  # the fold state as knowledge/fold.py declares it
    st = StoreFold()
    assert set(vars(st)) == set(fields)  # every field the fold state starts with, each in exactly one group
    assert tuple(_Key.__slots__) == rows.KEY_FIELDS
    assert tuple(f.name for f in dataclasses.fields(Flag)) == rows.FLAG_FIELDS
    assert Item.__slots__ == rows._SLOTS


# -- the journal before the snapshot, checked as one block of bytes (Journal(skip_prefix=...)) ---------------------
def _marker_position(path: Path) -> int:
    return next(r.position for r in Journal(path, mode="r") if r.kind == fs.MARKER_KIND)


def _prefix(path: Path):
    return SnapshotLoader(StoreFold(), path).prefix


def _edit_line(path: Path, position: int, rehash: bool) -> None:
    """Change one letter of record `position`'s payload in place (same length); `rehash`: give the line the hash
    of its new content too (a forger's edit, which the next record's prev then contradicts)."""
    lines = path.read_bytes().split(b"\n")
    line = bytearray(lines[position])
    at = bytes(line).index(b'"payload":') + 10
    at = next(i for i in range(at, len(line)) if chr(line[i]).isalpha() and line[i - 1 : i] != b"\\")
    line[at] = ord("Q") if line[at] != ord("Q") else ord("R")
    if rehash:
        line[9:73] = hashlib.sha256(b"{" + bytes(line[75:])).hexdigest().encode()
    lines[position] = bytes(line)
    path.write_bytes(b"\n".join(lines))


def test_a_snapshot_open_checks_the_records_before_it_as_one_block(journal):
    snapshot(journal)
    marker = _marker_position(journal)
    full = list(Journal(journal, mode="r"))
    for opts in ({}, {"mode": "r"}):
        with KnowledgeStore.open(journal, journal_options=opts) as ks:
            assert ks.opened_from_snapshot and ks.journal.skipped == marker
            assert list(ks.journal) == full and ks.journal[3] == full[3]  # the skipped records read back as written
            assert ks.journal.head() == Journal(journal, mode="r").head()
            ks.close(snapshot=False)
    with KnowledgeStore.open(journal, snapshot=False) as ks:
        assert ks.journal.skipped == 0 and not ks.opened_from_snapshot
    with KnowledgeStore.open(journal) as ks:  # a writer opened that way appends where the file ends
        ks.add("fact", {"s": "after", "r": "tier", "o": "gold"}, source="person")
        ks.close(snapshot=False)
    assert opened(journal)[0] == reference(journal)


def test_the_blocks_offsets_are_found_only_when_a_record_in_it_is_read(tmp_path):
    """Issue 42: the open checks the block at the byte floor (its SHA-256 and newline count); where each of its
    lines starts is found when a record inside it is first read by position, and checked against the same digest."""
    path = tmp_path / "ks.jsonl"
    build(path)
    snapshot(path)
    marker = _marker_position(path)
    full = list(Journal(path, mode="r"))
    starts = [0]
    for line in path.read_bytes().split(b"\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    with KnowledgeStore.open(path) as ks:
        offsets = ks.journal._backend.offsets
        assert ks.journal.skipped == marker and offsets.block is not None and len(offsets) == len(full)
        assert offsets[marker] == starts[marker] and offsets[-1] == starts[len(full) - 1]  # after the block: as is
        assert offsets.block is not None
        assert ks.journal[2] == full[2] and offsets.block is None and list(offsets) == starts[:-1]
        ks.close(snapshot=False)
    with KnowledgeStore.open(path, journal_options={"mode": "r"}) as ks:
        _edit_line(path, 3, rehash=False)  # the block changed on disk after the open checked it
        with pytest.raises(CorruptJournal, match=f"first {marker} records changed on disk after it was opened"):
            ks.journal[1]


@pytest.mark.parametrize("rehash", [False, True])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_an_edited_record_before_the_snapshot_is_caught_at_open(tmp_path, rehash, where):
    path = tmp_path / "ks.jsonl"
    build(path)
    snapshot(path)
    marker = _marker_position(path)
    position = {"first": 0, "middle": marker // 2, "last": marker - 1}[where]
    _edit_line(path, position, rehash)
    if rehash:  # the line matches its own hash; the next one does not link to it
        match = f"record {position + 1} does not link to record {position}"
    else:
        match = f"record {position} was edited after it was written"
    for opts in ({}, {"mode": "r"}):
        with pytest.raises(CorruptJournal, match=match):
            KnowledgeStore.open(path, journal_options=opts)


def test_skip_prefix_is_used_only_when_the_block_is_the_one_named(tmp_path):
    path = tmp_path / "ks.jsonl"
    build(path)
    snapshot(path)
    p = _prefix(path)
    assert p.count == _marker_position(path) and p.nbytes == len(
        b"".join(line + b"\n" for line in path.read_bytes().split(b"\n")[: p.count])
    )
    full = list(Journal(path, mode="r"))
    with Journal(path, mode="r", skip_prefix=p) as j:
        assert j.skipped == p.count and list(j) == full
    others = [
        p._replace(sha256="0" * 64),
        p._replace(count=p.count - 1),
        p._replace(count=p.count + 1),
        p._replace(nbytes=p.nbytes - 1),
        p._replace(nbytes=p.nbytes + 1),
        p._replace(nbytes=10**12),
        p._replace(first_hash="0" * 64),
        p._replace(last_hash="0" * 64),
        p._replace(nbytes=None, sha256=None),
    ]
    for other in others:
        with Journal(path, mode="r", skip_prefix=other) as j:
            assert j.skipped == 0 and list(j) == full, other  # the full load ran
    with Journal(path, skip_prefix=p) as j:  # a writer too
        assert j.skipped == p.count
        j.append("note", {"n": 1})
    assert len(Journal(path, mode="r")) == len(full) + 1
    sql = tmp_path / "ks.sqlite"
    build(sql)
    snapshot(sql)
    with KnowledgeStore.open(sql) as ks:  # SQLite: the full load (its rows are not lines of bytes)
        assert ks.opened_from_snapshot and ks.journal.skipped == 0
        ks.close(snapshot=False)


def test_a_snapshot_refused_after_its_block_was_skipped_rechecks_the_block(tmp_path, monkeypatch):
    path = tmp_path / "ks.jsonl"
    build(path)
    snapshot(path)
    want = reference(path)
    sp = snapshot_path(path)
    body = _body(sp)
    _rewrite(sp, body.replace(b'"admitted"', b'"forged!!"', 1))  # refused at the journal's snapshot record
    rechecked = []
    original = Journal.recheck_skipped

    def spy(self):
        rechecked.append(self.skipped)
        return original(self)

    monkeypatch.setattr(Journal, "recheck_skipped", spy)
    seen, used, warned = opened(path)
    assert not used and len(warned) == 1 and "digest is not the one" in warned[0] and seen == want
    assert rechecked == [_marker_position(path)]
    # The recheck itself: a record of the skipped block that is not what the chain says raises CorruptJournal.
    with Journal(path, mode="r", skip_prefix=_prefix(path)) as j:
        assert j.skipped
        _edit_line(path, 3, rehash=False)
        with pytest.raises(CorruptJournal, match="record 3 was edited"):
            j.recheck_skipped()


def test_an_older_format_versions_snapshot_is_ignored_with_its_reason(tmp_path):
    path = tmp_path / "ks.jsonl"
    build(path)
    snapshot(path)
    sp = snapshot_path(path)
    body = _body(sp)
    digest = hashlib.sha256(body).hexdigest()
    sp.write_bytes(body + json.dumps({"digest": digest, "format": fs.FORMAT, "version": 2}).encode() + b"\n")
    seen, used, warned = opened(path)
    assert not used and seen == reference(path)
    assert warned == [
        f"{sp}: fold snapshot not used: it is format version 2, this code reads version {fs.VERSION}; the store is "
        "folded from the journal."
    ]


def test_kept_heads_and_checkpoints_still_hold_on_a_snapshot_open(tmp_path):
    path = tmp_path / "ks.jsonl"
    build(path)
    snapshot(path)
    head = Journal(path, mode="r").head()
    with KnowledgeStore.open(path, journal_options={"expect_head": head}) as ks:
        assert ks.opened_from_snapshot and ks.journal.skipped
        ks.close(snapshot=False)
    with pytest.raises(CorruptJournal, match="cut off"):
        KnowledgeStore.open(path, journal_options={"expect_head": (head.count + 1, head.hash)})
    with pytest.raises(CorruptJournal, match="not the one the head you kept names"):
        KnowledgeStore.open(path, journal_options={"expect_head": (head.count - 1, head.hash)})
    with KnowledgeStore.open(path) as ks:  # records after the snapshot, then the file loses the last one
        ks.add("fact", {"s": "late", "r": "tier", "o": "gold"}, source="person")
        ks.close(snapshot=False)
    data = path.read_bytes()
    path.write_bytes(data[: data.rfind(b"\n", 0, len(data) - 1) + 1])
    with pytest.raises(CorruptJournal, match="head checkpoint says"):
        KnowledgeStore.open(path)


def _cps(ks: KnowledgeStore) -> dict:
    from solvi_lab.knowledge.refold import checkpoints_of

    return {
        k: [(c[0], c[1], [it.id for it in c[2]], c[3], c[4]) for c in checkpoints_of(key) or ()]
        for k, key in ks._fold._keys.items()
    }


def test_checkpoints_stay_unparsed_until_a_refold_needs_them(tmp_path, monkeypatch):
    monkeypatch.setattr(Fold, "CHECKPOINT_EVERY", 3)  # many checkpoints on this small stream's keys
    path = tmp_path / "ks.jsonl"
    ids = build(path, "hot-keys")
    snapshot(path)
    other = tmp_path / "copy" / "ks.jsonl"
    other.parent.mkdir()
    for suffix in ("", ".head"):
        shutil.copyfile(str(path) + suffix, str(other) + suffix)
    with KnowledgeStore.open(path) as ks:  # a snapshot written from pending checkpoints keeps their text
        kinds = {type(k.checkpoints) for k in ks._fold._keys.values()}
        assert kinds == {rows.PendingCheckpoints, type(None)}
        ks.add("fact", {"s": "n", "r": "tier", "o": "1"}, source="person")
        ks.write_snapshot()
        assert {type(k.checkpoints) for k in ks._fold._keys.values()} <= kinds
        ks.close(snapshot=False)
    fast = KnowledgeStore.open(path)
    slow = KnowledgeStore.open(other, snapshot=False)
    try:
        slow.add("fact", {"s": "n", "r": "tier", "o": "1"}, source="person")
        slow.write_snapshot()  # the same records as the other journal (positions are part of the state)
        assert fast.opened_from_snapshot and not slow.opened_from_snapshot
        present = [i for i in ids if i in slow._fold._items and slow._fold._items[i].present]
        assert ops_on(fast, present, random.Random(7)) == ops_on(slow, present, random.Random(7))
        assert any(type(k.checkpoints) is list for k in fast._fold._keys.values())  # the re-folds parsed theirs
        assert _cps(fast) == _cps(slow)
        assert observed(fast) == observed(slow) == observed(KnowledgeStore.from_journal(fast.journal))
    finally:
        fast.close(snapshot=False)
        slow.close(snapshot=False)


def test_a_failed_recheck_is_a_failed_open_that_releases_the_journal(tmp_path, monkeypatch):
    path = tmp_path / "ks.jsonl"
    build(path)
    snapshot(path)
    sp = snapshot_path(path)
    _rewrite(sp, _body(sp).replace(b'"admitted"', b'"forged!!"', 1))  # refused at its record: the block is rechecked

    def refuse(self):
        raise CorruptJournal("record 3 is not what the block said")

    monkeypatch.setattr(Journal, "recheck_skipped", refuse)
    for open_it in (KnowledgeStore.open, KnowledgeStore):
        with pytest.raises(CorruptJournal, match="record 3"):
            open_it(path)
        with Journal(path) as j:  # the writer lock was released
            assert len(j) > 0
