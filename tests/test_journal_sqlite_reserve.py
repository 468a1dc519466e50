"""A SQLite writer allocates its WAL index's first 128 KiB at open (issue 40): a full disk is then an error at
open or at an append, never SIGBUS through the memory-mapped -shm (measured on a 1 KiB-block ext4 by
solvi_lab/journal_faults/small_blocks.py, which needs root; here the calls themselves)."""

import errno
import os

import pytest

from solvi_lab import journal as jmod
from solvi_lab.errors import JournalWriteFailed
from solvi_lab.journal import Journal


def test_a_writer_reserves_the_wal_index(tmp_path, monkeypatch):
    calls = []
    real = os.posix_fallocate

    def record(fd, offset, length):
        calls.append((os.readlink(f"/proc/self/fd/{fd}"), offset, length))
        return real(fd, offset, length)

    monkeypatch.setattr(jmod.os, "posix_fallocate", record)
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("note", {"n": 1})
    assert calls == [(str(path) + "-shm", 0, 4 * 32768)]
    with Journal.read(path) as r:  # a reader reserves nothing (it writes nothing)
        assert len(r) == 1
    assert len(calls) == 1


def test_a_disk_too_full_for_the_reserve_refuses_the_open_and_releases_the_file(tmp_path, monkeypatch):
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("note", {"n": 1})

    def full(fd, offset, length):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(jmod.os, "posix_fallocate", full)
    with pytest.raises(JournalWriteFailed, match="SQLite could not open it for writing .OSError: .Errno 28. No space"):
        Journal(path)
    monkeypatch.undo()
    with Journal(path) as again:  # the failed open released its lock and connection
        assert len(again) == 1


def test_a_file_system_without_fallocate_keeps_sqlites_own_way(tmp_path, monkeypatch):
    def unsupported(fd, offset, length):
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")

    monkeypatch.setattr(jmod.os, "posix_fallocate", unsupported)
    with Journal(tmp_path / "j.sqlite") as j:
        j.append("note", {"n": 1})
        assert len(j) == 1
