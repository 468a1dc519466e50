"""The head follows the file, and only the file (issue 40, part 3): a journal resolves its path once at open, so a
later os.chdir never reads or writes another folder's journal of the same name; its head checkpoint names the file
(device, inode) and the journal's first record, so a cut made through a hard link is refused by `.head` alone (no
extended attributes: a copy that dropped them, or a file system without them — simulated here by making every
attribute call fail with ENOTSUP), a copy that carries its `.head` is still checked, while a repair through any name,
a move, and a replacement after `Journal.forget_head` leave a journal that opens through its own path."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from solvi_lab import journal_head
from solvi_lab.errors import BadInput, CorruptJournal, JournalLocked
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore


@pytest.fixture(params=["xattr", "no xattr"])
def xattrs(request, monkeypatch) -> str:
    """Every test runs with extended attributes, and without them (each call fails as on a file system that keeps
    none: then the .head files are the only checkpoint)."""
    if request.param == "no xattr":

        def unsupported(*a, **k):
            raise OSError(errno.ENOTSUP, "Operation not supported")

        for name in ("setxattr", "getxattr", "removexattr"):
            monkeypatch.setattr(journal_head.os, name, unsupported)
    return request.param


def _fill(path: Path, n: int, start: int = 0) -> list[str]:
    with Journal(path) as j:
        for i in range(start, start + n):
            j.append("k", {"i": i})
        return [r.hash for r in j]


def _cut(path: Path, keep: int) -> None:
    """Remove whole records from the end, in place (the same file: every name of it sees the cut)."""
    lines = path.read_bytes().split(b"\n")[:-1]
    with open(path, "r+b") as f:
        f.truncate(sum(len(x) + 1 for x in lines[:keep]))


def test_chdir_after_open_never_touches_another_folders_journal(tmp_path, monkeypatch, xattrs):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    with KnowledgeStore.open(two / "ks.jsonl") as other:
        other.add("fact", {"s": "b", "r": "tier", "o": "other"}, source="person")
    before = {p.name: p.read_bytes() for p in two.iterdir()}
    monkeypatch.chdir(one)
    ks = KnowledgeStore.open("ks.jsonl")
    a = ks.add("fact", {"s": "a", "r": "tier", "o": "gold"}, source="person")
    monkeypatch.chdir(two)
    b = ks.add("fact", {"s": "a2", "r": "tier", "o": "silver"}, source="person")
    ks.journal.checkpoint()
    assert ks.item(a)["body"]["o"] == "gold" and [r.position for r in ks.journal] == [0, 1]
    assert ks.verify()
    assert str(ks.journal.path) == str(one / "ks.jsonl")
    ks.write_snapshot()
    ks.close()
    assert {p.name: p.read_bytes() for p in two.iterdir()} == before  # not a byte of the other folder changed
    with KnowledgeStore.open(one / "ks.jsonl") as again:
        assert again.status(a) == again.status(b) == "active" and again.opened_from_snapshot


def test_a_cut_through_a_hard_link_is_refused_through_every_name(tmp_path, xattrs):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _fill(a, 6)
    os.link(a, b)
    _cut(b, 3)
    for name in (b, a):
        with pytest.raises(CorruptJournal, match="records 3..5 were lost"):
            Journal(name)
    with pytest.raises(CorruptJournal):
        Journal(b, mode="r")


def test_a_hard_link_made_after_the_cut_is_refused_too(tmp_path, xattrs):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _fill(a, 6)
    _cut(a, 2)
    os.link(a, b)
    with pytest.raises(CorruptJournal, match="records 2..5 were lost"):
        Journal(b)


def test_a_copy_that_carries_its_head_is_checked_and_one_without_opens(tmp_path, xattrs):
    a, c, d = tmp_path / "a.jsonl", tmp_path / "c.jsonl", tmp_path / "d.jsonl"
    _fill(a, 5)
    shutil.copyfile(a, c)  # a plain copy: no extended attribute, another inode
    shutil.copyfile(journal_head.head_file(a), journal_head.head_file(c))
    _cut(c, 2)
    with pytest.raises(CorruptJournal, match="records 2..4 were lost"):
        Journal(c)  # its .head names another file, but this journal's first record: it is this journal's
    shutil.copyfile(a, d)  # no .head: no checkpoint (as documented), and a's .head is a's own (a is still there)
    _cut(d, 2)
    with Journal(d) as j:
        assert len(j) == 2


def test_repair_through_a_hard_link_opens_through_its_own_path(tmp_path, xattrs):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    hashes = _fill(a, 6)
    os.link(a, b)
    _cut(b, 4)
    with pytest.raises(CorruptJournal):
        Journal(a)
    assert Journal.repair(b) == 4
    for name in (a, b):
        with Journal(name) as j:
            assert [r.hash for r in j] == hashes[:4]
    for name in (a, b, a):
        with Journal(name) as j:
            j.append("k", {"i": len(j)})
    with Journal(b) as j:
        assert len(j) == 7


def test_a_new_journal_at_a_moved_journals_old_name_opens(tmp_path, xattrs):
    a, c = tmp_path / "a.jsonl", tmp_path / "c.jsonl"
    hashes = _fill(a, 5)
    os.rename(a, c)
    with Journal(c) as j:  # the moved journal, through its new name: its checkpoint (a's .head names its file)
        assert [r.hash for r in j] == hashes
    _cut(c, 3)
    with pytest.raises(CorruptJournal, match="records 3..4 were lost"):
        Journal(c)  # a cut after the move is still caught: a.jsonl.head names this file
    Journal.repair(c)
    new = _fill(a, 2, start=50)  # a new journal at the old name: the old .head is another file's, not checked
    assert len(new) == 2 and a.stat().st_size > 0
    with Journal(a) as j:
        assert [r.hash for r in j] == new
    with Journal(c) as j:
        assert [r.hash for r in j] == hashes[:3]


def test_replacement_through_forget_head(tmp_path, xattrs):
    a, other = tmp_path / "a.jsonl", tmp_path / "other.jsonl"
    _fill(a, 5)
    _fill(other, 2, start=70)
    a.write_bytes(other.read_bytes())  # replaced in place: the same file, another journal
    with pytest.raises(CorruptJournal):
        Journal(a)  # a checkpoint that names this very file says 5 records were written
    Journal.forget_head(a)  # the documented call
    with Journal(a) as j:
        assert len(j) == 2
        j.append("k", {"i": 1})
    with Journal(a) as j:
        assert len(j) == 3  # its new checkpoint is its own
    _cut(a, 1)
    with pytest.raises(CorruptJournal):
        Journal(a)


def test_forget_head_refuses_while_a_writer_is_open_and_bad_paths(tmp_path):
    a = tmp_path / "a.jsonl"
    with Journal(a) as j:
        j.append("k", {"i": 0})
        with pytest.raises(JournalLocked):
            Journal.forget_head(a)
    with pytest.raises(BadInput, match="JSONL journals"):
        Journal.forget_head(tmp_path / "a.sqlite")
    with pytest.raises(BadInput, match="journal path"):
        Journal.forget_head(5)  # type: ignore[arg-type]
    Journal.forget_head(tmp_path / "gone.jsonl")  # nothing there: nothing to forget
    assert not (tmp_path / "gone.jsonl").exists()
