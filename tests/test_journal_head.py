"""A cut or rewritten tail is detected (head, kept head, checkpoint, Parquet head); durability is a stated choice;
one writer, really (symlinks and hard links too); a read-only open never locks and never writes."""

import json
import os
import sqlite3

import pyarrow.parquet as pq
import pytest

from solvi_lab.errors import BadInput, CorruptJournal, JournalLocked
from solvi_lab.explore.parquet import export_journal, import_journal
from solvi_lab.journal import GENESIS, Head, Journal, _hash_text, _header_text, canonical
from solvi_lab.journal_head import remove_checkpoints
from solvi_lab.knowledge import KnowledgeStore


@pytest.fixture(params=["jsonl", "sqlite"])
def path(request, tmp_path):
    return tmp_path / ("j." + request.param)


def _fill(path, n, **kw):
    with Journal(path, **kw) as j:
        for i in range(n):
            j.append("k", {"i": i})
        return j.head()


def _cut(path, keep):
    """Remove whole records from the end, as a crash, a bad copy or a hand would."""
    if path.suffix == ".jsonl":
        lines = path.read_bytes().split(b"\n")[:-1]
        path.write_bytes(b"".join(x + b"\n" for x in lines[:keep]))
    else:
        db = sqlite3.connect(path)
        db.execute("DELETE FROM records WHERE position >= ?", (keep,))
        db.commit()
        db.close()


def _rewrite_tail(path, start):
    """Replace the records from `start` on with others whose chain is recomputed (a forger who knows the rule)."""
    with Journal(path) as j:
        prev = GENESIS if start == 0 else j[start - 1].hash
        n = len(j)
    rows = []
    for pos in range(start, n):
        payload = {"i": 100 + pos}
        h = _hash_text(_header_text(pos, "k", canonical(payload), prev, None))
        rows.append((pos, payload, prev, h))
        prev = h
    if path.suffix == ".jsonl":
        lines = path.read_bytes().split(b"\n")[:-1][:start]
        for pos, payload, p, h in rows:
            d = {"hash": h, "kind": "k", "payload": payload, "position": pos, "prev": p, "t": None}
            lines.append(canonical(d).encode())
        path.write_bytes(b"".join(x + b"\n" for x in lines))
    else:
        db = sqlite3.connect(path)
        for pos, payload, p, h in rows:
            db.execute("UPDATE records SET payload=?, prev=?, hash=? WHERE position=?", (canonical(payload), p, h, pos))
        db.commit()
        db.close()


def test_head_and_its_text_form(path):
    h = _fill(path, 3)
    with Journal(path, mode="r") as j:
        assert j.head() == h == (3, j[2].hash) and j.last_hash == h.hash
        assert Head.parse(str(h)) == h and str(h) == f"journal:3:{h.hash}"
        assert j.verify(head=str(h)) and j.verify(head=(2, j[1].hash))
    assert Journal().head() == (0, GENESIS)


def test_checkpoint_catches_whole_records_lost_since_it(path):
    _fill(path, 5)
    _cut(path, 3)
    with pytest.raises(
        CorruptJournal, match=r"holds 3 records but its head checkpoint says 5.*records 3\.\.4 were lost"
    ):
        Journal(path)
    with pytest.raises(CorruptJournal):  # released: the same error again, not JournalLocked
        Journal(path)
    assert Journal.repair(path) == 3  # accepting the shorter journal is explicit
    with Journal(path) as j:
        assert len(j) == 3


def test_checkpoint_catches_a_rewritten_tail(path):
    _fill(path, 5)
    _rewrite_tail(path, 3)
    with pytest.raises(CorruptJournal, match="record 4 differs from the one its head checkpoint names"):
        Journal(path)


def test_checkpoint_every_n_appends_without_close(path):
    j = Journal(path, checkpoint_every=2, checkpoint_seconds=0)
    for i in range(5):
        j.append("k", {"i": i})
    if path.suffix == ".jsonl":
        cp = json.loads((path.parent / (path.name + ".head")).read_text())
        assert (cp["count"], cp["hash"]) == (4, j[3].hash)
    else:
        db = sqlite3.connect(path)
        assert db.execute("SELECT count, hash FROM head").fetchone() == (4, j[3].hash)
        db.close()
    j.close()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3"])
def test_checkpoint_settings_are_checked(tmp_path, bad):
    with pytest.raises(BadInput, match="checkpoint_every"):
        Journal(tmp_path / "x.jsonl", checkpoint_every=bad)
    assert not (tmp_path / "x.jsonl").exists()


def test_kept_head_catches_what_a_checkpoint_cannot(path):
    # The checkpoint is removed with the cut (a restored old copy, a hostile edit): only a kept head notices.
    h = _fill(path, 5)
    _cut(path, 4)
    if path.suffix == ".jsonl":
        remove_checkpoints(path)  # both places: the .head file and the file's extended attribute
    else:  # a missing head row is itself reported; reset it to an empty journal's head instead
        db = sqlite3.connect(path)
        db.execute("UPDATE head SET count = 0, hash = ?", (GENESIS,))
        db.commit()
        db.close()
    with Journal(path, mode="r") as j:  # loads: nothing on disk says it was longer
        assert len(j) == 4
        report = j.verify(head=h)
        assert not report and "kept head says 5" in report.problem
    with pytest.raises(CorruptJournal, match="holds 4 records but the head you kept says 5"):
        KnowledgeStore(path, expect_head=str(h))
    with pytest.raises(CorruptJournal, match="holds 4 records but the head you kept says 5"):
        Journal(path, expect_head=h)


def test_kept_head_catches_a_rewritten_tail_and_store_verify(tmp_path):
    path = tmp_path / "ks.jsonl"
    with KnowledgeStore(path) as ks:
        ks.add("fact", {"s": "a", "r": "b", "o": 1}, source="person")
        h = ks.journal.head()
        ks.add("fact", {"s": "a", "r": "c", "o": 2}, source="person")
        assert ks.verify(head=h) and ks.verify(head=str(ks.journal.head()))
        assert not ks.verify(head=(1, "0" * 64))


def test_parquet_export_carries_its_head_and_a_cut_is_refused(tmp_path):
    j = Journal()
    for i in range(6):
        j.append("k", {"i": i})
    p = export_journal(j, tmp_path / "j.parquet")
    meta = pq.read_schema(p).metadata
    assert meta[b"solvi_lab.journal.count"] == b"6" and meta[b"solvi_lab.journal.head"] == j.head().hash.encode()
    assert len(import_journal(p)) == 6
    table = pq.read_table(p)
    pq.write_table(table.slice(0, 3), p)  # a truncated export keeps its metadata but loses rows
    with pytest.raises(CorruptJournal, match="holds 3 records .* the export's head says 6"):
        import_journal(p)


@pytest.mark.parametrize("durability", ["flush", "fsync"])
def test_durability_is_a_choice(path, durability):
    with Journal(path, durability=durability) as j:
        j.append("k", {})
        assert j.durability == durability
    with Journal(path) as j:
        assert len(j) == 1 and j.durability == "flush"  # the default
    with pytest.raises(BadInput, match="durability='disk'"):
        Journal(path, durability="disk")


def test_a_symlink_or_hard_link_cannot_open_a_second_writer(path):
    j = Journal(path)
    j.append("k", {})
    link = path.parent / ("sym" + path.suffix)
    link.symlink_to(path)
    hard = path.parent / ("hard" + path.suffix)
    os.link(path, hard)
    for alias in (link, hard, path.parent / "." / path.name):
        with pytest.raises(JournalLocked, match=r"mode='r'"):
            Journal(alias)
    with pytest.raises(JournalLocked):
        Journal.repair(path)
    j.close()
    Journal(hard).close()  # released


def test_read_only_open_never_locks_and_never_writes(path):
    _fill(path, 2)
    before = {p.name: p.read_bytes() for p in path.parent.iterdir()}
    w = Journal(path)
    w.append("k", {"i": 2})
    with Journal.open(path, mode="r") as r:  # beside the writer: no JournalLocked
        assert len(r) == 3 and r.verify()
        with pytest.raises(BadInput, match="read-only"):
            r.append("k", {})
    w.close()

    def files():  # SQLite's own WAL side files (-wal, -shm) aside: a reader of a WAL database may create them
        return {p.name: p.read_bytes() for p in path.parent.iterdir() if not p.name.endswith(("-wal", "-shm"))}

    snapshot = files()
    with Journal.read(path) as r:
        assert len(r) == 3 and list(r)[2].payload == {"i": 2}
        assert getattr(r._backend, "f", None) is None  # not opened for appending
    assert files() == snapshot and set(snapshot) <= {path.name, path.name + ".head"}
    assert before
    with pytest.raises(BadInput, match="mode='w'"):
        Journal(path, mode="w")
