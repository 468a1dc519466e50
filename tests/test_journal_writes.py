"""A failed write leaves the journal, the writer and its owner as they were; a checkpoint that cannot be written
after a durable record is a warning; the head follows the file through links; a SQLite head cannot vanish
unnoticed; threads take turns; lock=False is refused. (The RLIMIT_FSIZE / chattr sweeps: tests/faults.)"""

import errno
import json
import os
import sqlite3
import threading

import pytest

from solvi_lab import journal_head_index
from solvi_lab.errors import BadInput, CorruptJournal, JournalCheckpointWarning, JournalWriteFailed, SolviLabError
from solvi_lab.journal import GENESIS, Journal
from solvi_lab.journal_head import XATTR, head_file, read_checkpoints
from solvi_lab.knowledge import KnowledgeStore


@pytest.fixture(params=["jsonl", "sqlite"])
def path(request, tmp_path):
    return tmp_path / f"j.{request.param}"


def _fill(path, n):
    with Journal(path) as j:
        for i in range(n):
            j.append("k", {"i": i})
        return j.head()


class _Full:
    """os.pwrite that writes `first` bytes of the next record, then reports the disk full (ENOSPC)."""

    def __init__(self, monkeypatch, first):
        self.first, self.real = first, os.pwrite
        monkeypatch.setattr(os, "pwrite", self)

    def __call__(self, fd, data, offset):
        if self.first:
            n, self.first = self.real(fd, bytes(data[: self.first]), offset), 0
            return n
        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("first", [0, 1, 40])
def test_failed_jsonl_write_leaves_file_and_writer_as_before(tmp_path, monkeypatch, first):
    p = tmp_path / "j.jsonl"
    _fill(p, 3)
    before = p.read_bytes()
    j = Journal(p)
    full = _Full(monkeypatch, first)
    with pytest.raises(JournalWriteFailed, match=r"could not write record 3 \(No space left on device\); nothing") as e:
        j.append("k", {"i": "lost"})
    assert isinstance(e.value, SolviLabError) and e.value.path == p and e.value.cause.errno == errno.ENOSPC
    assert p.read_bytes() == before and len(j) == 3 and j.verify()
    monkeypatch.setattr(os, "pwrite", full.real)  # space is back: the same writer goes on
    j.append("k", {"i": 3})
    j.close()
    with Journal(p) as again:
        assert [r.payload["i"] for r in again] == [0, 1, 2, 3] and again.verify()


def test_a_write_that_cannot_be_undone_breaks_the_writer_until_reopened(tmp_path, monkeypatch):
    p = tmp_path / "j.jsonl"
    _fill(p, 2)
    j = Journal(p)
    _Full(monkeypatch, 10)
    monkeypatch.setattr(os, "ftruncate", lambda fd, n: (_ for _ in ()).throw(OSError(errno.EIO, "I/O error")))
    with pytest.raises(JournalWriteFailed, match="could not be undone"):
        j.append("k", {"i": "x"})
    monkeypatch.undo()
    with pytest.raises(JournalWriteFailed, match="writes nothing more. Close it and reopen"):
        j.append("k", {"i": 2})
    assert len(j) == 2
    j.close()
    with pytest.raises(CorruptJournal, match="the last record .position 2. is torn"):
        Journal(p)
    assert Journal.repair(p) == 2  # the 10 torn bytes were never acknowledged


def test_failed_write_leaves_the_owner_as_before(tmp_path, monkeypatch):
    p = tmp_path / "ks.jsonl"
    ks = KnowledgeStore(p)
    ks.add("fact", {"s": "a", "r": "b", "o": 1}, source="person")
    state = ks.state()
    full = _Full(monkeypatch, 5)
    with pytest.raises(JournalWriteFailed):
        ks.add("fact", {"s": "a", "r": "c", "o": 2}, source="person")
    assert ks.state() == state and len(ks.journal) == 1
    monkeypatch.setattr(os, "pwrite", full.real)
    assert ks.add("fact", {"s": "a", "r": "c", "o": 2}, source="person") == "k1"
    assert ks.state() == KnowledgeStore.from_journal(ks.journal).state() and ks.verify()
    ks.close()


def test_checkpoint_that_cannot_be_written_warns_and_the_append_stands(tmp_path):
    p = tmp_path / "j.jsonl"
    j = Journal(p, checkpoint_every=2)
    head_file(p).mkdir()  # nothing can be renamed over a directory: the .head file cannot be written
    j.append("k", {"i": 0})
    with pytest.warns(JournalCheckpointWarning, match="could not write its head checkpoint.*Nothing was lost"):
        r = j.append("k", {"i": 1})
    assert r.position == 1 and len(j) == 2 and "head checkpoint" in j.checkpoint_failure
    with pytest.raises(JournalWriteFailed, match="head checkpoint"):  # asked for explicitly, it raises
        j.checkpoint()
    with pytest.warns(JournalCheckpointWarning):
        j.close()  # a close whose checkpoint fails still closes
    assert j.closed
    head_file(p).rmdir()
    with Journal(p) as again:  # the extended attribute and the head index entry were written: both count 2
        assert len(again) == 2 and again.verify()
        seen = again._backend.checkpoints_seen
        assert [h.count for _, h in seen] == [2, 2] and journal_head_index.is_entry(seen[1][0])


def test_jsonl_checkpoint_lives_on_the_file_and_beside_its_real_path(tmp_path):
    real = tmp_path / "data" / "j.jsonl"
    real.parent.mkdir()
    Journal(real).close()
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    with Journal(link) as j:
        j.append("k", {"i": 0})
        h = j.head()
    assert not (tmp_path / "link.jsonl.head").exists() and head_file(link) == tmp_path / "data" / "j.jsonl.head"
    texts = dict(read_checkpoints(real, index=False))  # the head index entry: tests/test_journal_head_index.py
    assert set(texts) == {XATTR, str(head_file(real))}
    cp = json.loads(texts[XATTR])  # the count and hash, and (issue 40) the file and first record it belongs to
    assert len({*texts.values()}) == 1 and (cp["count"], cp["hash"], cp["first"]) == (1, h.hash, h.hash)
    assert tuple(cp["file"]) == (real.stat().st_dev, real.stat().st_ino)


@pytest.mark.parametrize("how", ["symlink", "hard link"])
def test_cut_journal_is_refused_through_a_link(path, how):
    _fill(path, 5)
    alias = path.parent / ("alias" + path.suffix)
    alias.symlink_to(path) if how == "symlink" else os.link(path, alias)
    if path.suffix == ".jsonl":
        lines = path.read_bytes().split(b"\n")[:3]
        path.write_bytes(b"".join(x + b"\n" for x in lines))  # cut in place
    else:
        db = sqlite3.connect(path)
        with db:
            db.execute("DELETE FROM records WHERE position >= 3")
        db.close()
    with pytest.raises(CorruptJournal, match=r"holds 3 records but its head checkpoint says 5.*records 3\.\.4"):
        Journal(alias)
    with pytest.raises(CorruptJournal, match="holds 3 records"):
        Journal(alias, mode="r")


@pytest.mark.parametrize("how", ["DELETE FROM head", "DROP TABLE head"])
def test_missing_sqlite_head_is_reported_on_open_and_by_verify(tmp_path, how):
    p = tmp_path / "j.sqlite"
    _fill(p, 3)

    def damage():
        db = sqlite3.connect(p)
        with db:
            db.execute(how)
        db.close()

    damage()
    gone = "row is gone" if how.startswith("DELETE") else "table is gone"
    for mode in ("a", "r"):
        with pytest.raises(CorruptJournal, match=f"head checkpoint {gone}.*Journal.repair"):
            Journal(p, mode=mode)
    assert Journal.repair(p) == 3
    with Journal(p) as j:
        assert j.verify()
        damage()  # while open: verify() says so
        report = j.verify()
        assert not report and gone in report.problem
        db = sqlite3.connect(p)
        with db:
            db.execute("CREATE TABLE IF NOT EXISTS head (id INTEGER PRIMARY KEY, count INTEGER, hash TEXT)")
            db.execute("INSERT OR REPLACE INTO head VALUES (0, 0, ?)", (GENESIS,))
        db.close()
    with Journal(p) as j:
        assert len(j) == 3 and j.verify()


def test_new_sqlite_journal_has_its_head_row_from_the_start(tmp_path):
    p = tmp_path / "j.sqlite"
    j = Journal(p)  # not closed yet: no checkpoint written, but the head row is there
    db = sqlite3.connect(p)
    assert db.execute("SELECT count, hash FROM head").fetchall() == [(0, GENESIS)]
    db.close()
    j.close()


def test_lock_false_is_refused(tmp_path):
    with pytest.raises(BadInput, match=r"Journal\(lock=False\): a writer always takes the writer lock.*mode='r'"):
        Journal(tmp_path / "j.jsonl", lock=False)
    assert not (tmp_path / "j.jsonl").exists()


def test_read_only_open_of_a_torn_file_loads_the_whole_records_and_says_so(tmp_path):
    p = tmp_path / "j.jsonl"
    _fill(p, 3)
    p.write_bytes(p.read_bytes() + b'{"hash":"ab')
    with Journal(p, mode="r") as r:  # documented: a reader leaves the torn line out and reports its size
        assert len(r) == 3 and r.verify() and r.torn_tail == 11
    with pytest.raises(CorruptJournal, match="the last record .position 3. is torn"):
        Journal(p)  # a writer refuses it until Journal.repair


def test_threads_sharing_a_store_take_turns(tmp_path):
    import sys

    ks = KnowledgeStore(tmp_path / "ks.jsonl")
    errors = []

    def work(k):
        try:
            for i in range(60):
                ks.add("fact", {"s": f"c{i % 4}", "r": "tier", "o": f"v{(i + k) % 3}"}, source="person")
        except Exception as e:
            errors.append(repr(e))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        ts = [threading.Thread(target=work, args=(k,)) for k in range(6)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == [] and len(ks.journal) == 360
    assert ks.verify() and ks.state() == KnowledgeStore.from_journal(ks.journal).state()
    ks.close()


def test_the_write_lock_is_the_journals_and_reentrant(tmp_path):
    ks = KnowledgeStore()
    with ks.journal.lock:  # a reader holding it sees one state; a write from the same thread still goes through
        ks.add("fact", {"s": "a", "r": "b", "o": 1}, source="person")
    done = []
    with ks.journal.lock:
        t = threading.Thread(target=lambda: done.append(ks.tick()))
        t.start()
        t.join(0.2)
        assert done == []  # another thread's write waits for the lock
    t.join()
    assert done == [None] and len(ks.journal) == 2
