"""A fold snapshot write the file system refuses (issue 40, 4): the project's error, the journal intact, the lock
released, no temporary file left; temporary files a killed writer left go at the next open."""

import errno
import os
import warnings

import pytest

from solvi_lab.errors import JournalWriteFailed
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore, snapshot_write
from solvi_lab.knowledge import fold_snapshot as fs
from solvi_lab.knowledge.fold_snapshot import FoldSnapshotIgnored
from solvi_lab.knowledge.snapshot_files import stale_temps


def _store(path, n=30):
    ks = KnowledgeStore.open(path)
    for i in range(n):
        ks.add("fact", {"s": f"c{i % 5}", "r": "tier", "o": f"v{i % 3}"}, source="person")
    return ks


class _FullDisk:
    """A file object whose writes fail with ENOSPC after `room` bytes."""

    def __init__(self, f, room):
        self.f, self.room = f, room

    def write(self, data):
        if len(data) > self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= len(data)
        return self.f.write(data)

    def __getattr__(self, name):
        return getattr(self.f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.f.__exit__(*exc)


class _OsWithAFullDisk:
    """The os module as fold_snapshot sees it, its fdopen giving files on a disk with 100 bytes of room."""

    def __getattr__(self, name):
        return getattr(os, name)

    @staticmethod
    def fdopen(fd, mode, *a, **k):
        return _FullDisk(os.fdopen(fd, mode, *a, **k), 100)


@pytest.fixture
def full_disk(monkeypatch):
    monkeypatch.setattr(snapshot_write, "os", _OsWithAFullDisk())  # only the snapshot writer's own files
    monkeypatch.setattr(snapshot_write, "_WRITE_CHUNK", 64)  # several writes, the second past the room left


@pytest.mark.parametrize("backend", ["jsonl", "sqlite"])
def test_a_full_disk_gives_the_projects_error_and_leaves_the_journal_and_no_file(tmp_path, backend, full_disk):
    path = tmp_path / f"ks.{backend}"
    ks = _store(path)
    want, n = ks.fingerprint(), ks.journal.position
    with pytest.raises(JournalWriteFailed) as e:
        ks.write_snapshot()
    assert "could not write the fold snapshot (No space left on device); the journal is intact" in str(e.value)
    assert isinstance(e.value.cause, OSError) and e.value.cause.errno == errno.ENOSPC
    assert stale_temps(fs.snapshot_path(path)) == [] and not fs.snapshot_path(path).exists()
    assert ks.journal.position == n and ks.fingerprint() == want  # nothing recorded, the store goes on
    ks.add("fact", {"s": "after", "r": "tier", "o": 1}, source="person")
    ks.close(snapshot=False)
    with KnowledgeStore.open(path) as again:
        assert again.fingerprint() == KnowledgeStore.from_journal(again.journal).fingerprint()
        assert again.journal.position == n + 1


@pytest.mark.parametrize("backend", ["jsonl", "sqlite"])
def test_close_with_a_snapshot_that_cannot_be_written_still_releases_the_lock(tmp_path, backend, full_disk):
    path = tmp_path / f"ks.{backend}"
    ks = _store(path)
    want = ks.fingerprint()
    with pytest.raises(JournalWriteFailed):
        ks.close(snapshot=True)
    assert ks.journal.closed
    with Journal(path) as j:  # the writer lock is free: this process takes it again
        assert j.position == 30
    assert stale_temps(fs.snapshot_path(path)) == []
    with KnowledgeStore.open(path) as again:
        assert again.fingerprint() == want and not again.opened_from_snapshot


def test_close_by_default_warns_and_closes(tmp_path, full_disk, monkeypatch):
    path = tmp_path / "ks.jsonl"
    ks = _store(path)
    monkeypatch.setattr(KnowledgeStore, "SNAPSHOT_MIN_RECORDS", 10)  # a long journal: close() writes a snapshot
    with pytest.warns(FoldSnapshotIgnored, match="no fold snapshot written on close .JournalWriteFailed"):
        ks.close()
    assert ks.journal.closed and stale_temps(fs.snapshot_path(path)) == []


def test_the_writers_next_open_removes_a_killed_writers_temporary_files(tmp_path):
    path = tmp_path / "ks.jsonl"
    _store(path).close(snapshot=True)
    fold = fs.snapshot_path(path)
    stale = [tmp_path / "ks.jsonl.fold.tmp-ab12cd_3", tmp_path / "ks.jsonl.foldab12cd_3.tmp"]  # now and before
    keep = [tmp_path / "other.jsonl.fold.tmp-ab12cd_3", tmp_path / "ks.jsonl.fold.tmp-notours", fold]
    for p in stale + keep[:2]:
        p.write_bytes(b"half a snapshot")
    assert stale_temps(fold) == sorted(stale)
    with Journal.read(path) as j:  # a reader writes nothing, removes nothing
        KnowledgeStore.from_journal(j)
    assert all(p.exists() for p in stale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with KnowledgeStore.open(path) as ks:
            assert ks.opened_from_snapshot
    assert not any(p.exists() for p in stale) and all(p.exists() for p in keep)
    for p in stale:
        p.write_bytes(b"half a snapshot")
    KnowledgeStore(path).close(snapshot=False)  # the specification's spelling opens for writing too
    assert not any(p.exists() for p in stale)
