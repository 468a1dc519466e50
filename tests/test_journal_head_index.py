"""The head index (issue 40's last gap): a hard link in *another* folder, without extended attributes (a file system
that keeps none — simulated by making every attribute call fail with ENOTSUP — or a copy that dropped them), finds
its file's head checkpoint by (device, inode) in the state folder, so a cut is refused through it (to zero records
too); an entry left by a deleted file whose inode number a new journal reuses is ignored, or removed by the open
that creates the new journal, never refused (but for one documented false alarm: an empty file made by hand); a
repair, a move and `Journal.forget_head` through any name leave a journal that opens through its own path; and a
state folder that cannot be written is one warning, never an error. Every test keeps the index in its tmp_path."""

from __future__ import annotations

import errno
import json
import os
import sys
import warnings
from pathlib import Path

import pytest

from solvi_lab import journal_head, journal_head_index
from solvi_lab.errors import CorruptJournal, HeadIndexWarning
from solvi_lab.journal import Journal


@pytest.fixture(params=["generation", "no generation"])
def state(request, tmp_path, monkeypatch) -> Path:
    """No extended attributes anywhere, and the index in this test's own folder; every test runs with the inode
    generation as the file system tells it, and without one (as on tmpfs or FAT: the first-record and still-named
    rules alone)."""

    def unsupported(*a, **k):
        raise OSError(errno.ENOTSUP, "Operation not supported")

    for name in ("setxattr", "getxattr", "removexattr"):
        monkeypatch.setattr(journal_head.os, name, unsupported)
    if request.param == "no generation":
        monkeypatch.setattr(journal_head_index, "generation", lambda file: None)
    folder = tmp_path / "state"
    monkeypatch.setenv(journal_head_index.ENV, str(folder))
    return folder


def _generation_known(path: Path) -> bool:
    return journal_head_index.generation(path) is not None


@pytest.fixture
def linked(tmp_path, state) -> tuple[Path, Path, list[str]]:
    """A 6-record journal `one/a.jsonl` and a hard link to it in another folder, `two/b.jsonl`."""
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    a, b = one / "a.jsonl", two / "b.jsonl"
    hashes = _fill(a, 6)
    os.link(a, b)
    return a, b, hashes


def _fill(path: Path, n: int, start: int = 0) -> list[str]:
    with Journal(path) as j:
        for i in range(start, start + n):
            j.append("k", {"i": i})
        return [r.hash for r in j]


def _cut(path: Path, keep: int) -> None:
    """Remove whole records from the end, in place (every name of the file sees the cut)."""
    lines = path.read_bytes().split(b"\n")[:-1]
    with open(path, "r+b") as f:
        f.truncate(sum(len(x) + 1 for x in lines[:keep]))


def test_a_cut_through_a_hard_link_in_another_folder_is_refused(linked, state):
    a, b, _ = linked
    assert not journal_head.head_file(b).exists()  # nothing beside the other folder's name
    _cut(b, 3)
    for name in (b, a):
        with pytest.raises(CorruptJournal, match="records 3..5 were lost"):
            Journal(name)
    with pytest.raises(CorruptJournal, match=r"head index .*journal-heads"):
        Journal(b, mode="r")  # the index is what the other folder's name finds
    entry = journal_head_index.entry_path(journal_head.identity(a))
    assert entry.parent == state / "journal-heads" and json.loads(entry.read_text())["count"] == 6


def test_a_cut_to_zero_records_through_another_folder(linked, state):
    """Nothing left to compare a first record with: the generation says the entry is this file's, and without it an
    entry that names a first record, still named by a name it was written through, is (a new journal never meets
    it: the open that created the file removed it). forget_head is the named way to accept the empty file."""
    a, b, _ = linked
    _cut(b, 0)
    for mode in ("r", "a"):
        with pytest.raises(CorruptJournal, match=r"is empty .*head index .*records 0..5 were lost") as e:
            Journal(b, mode=mode)
        shown = str(b) if len(str(b)) <= 80 else str(b)[:77] + "..."  # a long argument is quoted by its prefix
        assert f"Journal.forget_head('{shown}') accepts it" in str(e.value)
    with pytest.raises(CorruptJournal, match="records 0..5 were lost"):
        Journal(a)
    Journal.forget_head(b)  # through the other folder's name: every place, the index entry too
    assert not journal_head_index.entry_path(journal_head.identity(b)).exists()
    for name in (b, a):
        with Journal(name) as j:
            assert len(j) == 0


def test_a_journal_cut_to_zero_and_repaired_opens_through_every_name(linked, state):
    a, b, _ = linked
    _cut(b, 0)
    assert Journal.repair(b) == 0
    for name in (a, b):
        with Journal(name, mode="r") as j:
            assert len(j) == 0


def _reuse_inode_at(path: Path, make) -> Path | None:
    """Write a 4-record journal at `path`, delete it by hand (its .head too; its index entry stays) and make a new
    file at the same name with `make(path)`, until the new file gets the deleted one's inode number: the deleted
    journal's index entry (as it was found before `make`) when the file system reused the number within 20 tries
    (ext4 does at once, unless another process takes the number first); else None."""
    for _ in range(20):
        for p in (path, journal_head.head_file(path)):
            p.unlink(missing_ok=True)
        _fill(path, 4)
        ino = path.stat().st_ino
        entry = journal_head_index.entry_path(journal_head.identity(path))
        assert json.loads(entry.read_text())["count"] == 4
        path.unlink()
        journal_head.head_file(path).unlink()
        made = make(path)
        if path.stat().st_ino == ino:
            return entry
        if made is not None:
            made.close()
    return None


def test_an_open_that_creates_the_file_removes_its_index_entry(tmp_path, state, monkeypatch):
    """Deterministic: the creating open removes the entry under the new file's identity; an open of an existing
    file does not touch it."""
    removed: list[tuple[int, int]] = []
    real = journal_head_index.remove_entry
    monkeypatch.setattr(journal_head_index, "remove_entry", lambda file: (removed.append(tuple(file)), real(file)))
    p = tmp_path / "j.jsonl"
    with Journal(p) as j:
        assert removed == [journal_head.identity(p)]
        j.append("k", {"i": 1})
    removed.clear()
    with Journal(p) as j:
        assert len(j) == 1
    assert removed == []


def test_a_fresh_journal_on_a_reused_inode_at_the_same_name_opens_while_empty(tmp_path, state):
    """The deleted journal's entry is still "named" here (its name is this file now): the creating open removed it,
    so a reader beside the still-empty writer (what a crash before the first checkpoint leaves) and every reopen
    see a new journal."""
    a = tmp_path / "a.jsonl"
    holder: list[Journal] = []
    stale = _reuse_inode_at(a, lambda p: holder.append(Journal(p)) or holder[-1])
    if stale is None:
        pytest.skip("the file system did not reuse the inode number")
    writer = holder[-1]
    assert journal_head_index.entry_path(journal_head.identity(a)) == stale and not stale.exists()
    with Journal(a, mode="r") as r:
        assert len(r) == 0
    writer.close()
    with Journal(a) as j:
        assert len(j) == 0
        j.append("k", {"i": 9})
    with Journal(a, mode="r") as r:
        assert len(r) == 1


def test_an_empty_file_made_by_hand_at_a_deleted_journals_name_on_its_inode(tmp_path, state):
    """The one false alarm left (documented): where the generation is unknown, an empty file made by hand at a
    deleted journal's name on its reused inode number looks exactly like that journal cut to zero records, and is
    refused; Journal.forget_head accepts it. Where the generation is known it opens."""
    a = tmp_path / "a.jsonl"
    if _reuse_inode_at(a, lambda p: p.touch()) is None:
        pytest.skip("the file system did not reuse the inode number")
    if _generation_known(a):
        with Journal(a, mode="r") as r:
            assert len(r) == 0
        return
    with pytest.raises(CorruptJournal, match=r"is empty .*records 0..3 were lost .*Journal.forget_head"):
        Journal(a, mode="r")
    Journal.forget_head(a)
    with Journal(a) as j:
        assert len(j) == 0


def test_a_journal_rewritten_in_place_through_another_folder(linked, tmp_path, state):
    """Another journal written over the file (not through Journal.forget_head): the same file's generation."""
    a, b, _ = linked
    other = tmp_path / "other.jsonl"
    _fill(other, 2, start=70)
    with open(b, "r+b") as f:  # in place: the same inode
        f.truncate(0)
        f.write(other.read_bytes())
    if _generation_known(a):
        with pytest.raises(CorruptJournal, match="head index"):
            Journal(b, mode="r")
    else:  # documented: another first record looks like a new file to the index (a's own .head catches it)
        with Journal(b, mode="r") as j:
            assert len(j) == 2
    with pytest.raises(CorruptJournal):
        Journal(a)


def test_without_the_index_the_other_folders_name_sees_no_checkpoint(linked, state, monkeypatch):
    """The gap the index closes: the same cut, with the index folder empty, opens through the other folder."""
    a, b, hashes = linked
    _cut(b, 3)
    monkeypatch.setenv(journal_head_index.ENV, str(state.parent / "another-state"))
    with Journal(b, mode="r") as j:
        assert [r.hash for r in j] == hashes[:3]
    with pytest.raises(CorruptJournal):
        Journal(a)  # its own .head still catches it


def test_a_new_journal_that_reuses_an_inode_number_is_never_refused(tmp_path, state):
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    _fill(old, 5)
    stale = journal_head_index.entry_path(journal_head.identity(old)).read_text()
    new.touch()  # a new file; give it the old file's entry, as if it had the deleted file's inode number
    me = journal_head.identity(new)
    d = json.loads(stale)
    d["file"] = list(me)
    journal_head_index.entry_path(me).write_text(json.dumps(d))
    with Journal(new) as j:  # empty: no first record, so the entry cannot be this journal's
        assert len(j) == 0
        j.append("k", {"i": 90})
        j.append("k", {"i": 91})
    assert json.loads(journal_head_index.entry_path(me).read_text())["count"] == 2  # its own entry now
    journal_head_index.entry_path(me).write_text(json.dumps(d))  # the stale entry again, over a 2-record journal
    with Journal(new) as j:  # another first record: ignored, not refused
        assert len(j) == 2
    with Journal(new, mode="r") as j:
        assert j.verify()


def test_a_deleted_folders_journal_is_not_held_against_one_that_starts_the_same(tmp_path, state):
    """Journals without time stamps that start with the same record have the same first record hash: a new one on
    a deleted journal's inode number (planted here: the entry it would find) is not held to that journal's entry."""
    gone, here = tmp_path / "gone", tmp_path / "here"
    gone.mkdir()
    here.mkdir()
    old = gone / "j.jsonl"
    _fill(old, 4)
    stale = json.loads(journal_head_index.entry_path(journal_head.identity(old)).read_text())
    for p in gone.iterdir():
        p.unlink()
    gone.rmdir()
    new = here / "j.jsonl"
    hashes = _fill(new, 2)  # the same first two records as the deleted journal
    assert stale["first"] == hashes[0] and stale["count"] == 4
    stale["file"] = list(journal_head.identity(new))
    stale["heads"] = [str(gone / "j.jsonl.head")]
    journal_head_index.entry_path(journal_head.identity(new)).write_text(json.dumps(stale))
    journal_head.head_file(new).unlink()  # only the index could say anything
    with Journal(new, mode="r") as j:
        assert [r.hash for r in j] == hashes


def test_repair_through_either_folder_opens_through_every_name(linked):
    a, b, hashes = linked
    _cut(b, 4)
    assert Journal.repair(b) == 4  # through the other folder's name
    for name in (a, b):
        with Journal(name) as j:
            assert [r.hash for r in j] == hashes[:4]
    with Journal(b) as j:
        j.append("k", {"i": 100})
    _cut(a, 2)
    with pytest.raises(CorruptJournal, match="records 2..4 were lost"):
        Journal(b)
    assert Journal.repair(a) == 2  # through the first folder's name
    for name in (b, a):
        with Journal(name) as j:
            assert [r.hash for r in j] == hashes[:2]


def test_a_move_to_another_folder_opens_and_a_later_cut_is_refused(linked, tmp_path):
    a, b, hashes = linked
    b.unlink()
    moved = tmp_path / "two" / "moved.jsonl"
    os.rename(a, moved)  # to another folder: a's .head stays behind, out of the sibling search
    with Journal(moved) as j:
        assert [r.hash for r in j] == hashes
    _cut(moved, 5)
    if _generation_known(moved):
        with pytest.raises(CorruptJournal, match=r"head index .*records 5..5 were lost"):
            Journal(moved)
        Journal.repair(moved)
    else:  # documented: no name the entry was written through is this file any more, until it is written again
        with Journal(moved) as j:
            assert len(j) == 5
            j.append("k", {"i": 5})  # written through its new name: the entry lists it now
        _cut(moved, 5)
        with pytest.raises(CorruptJournal, match=r"records 5..5 were lost"):
            Journal(moved)
        Journal.repair(moved)
    new = _fill(a, 2, start=50)  # a new journal at the old name opens
    with Journal(a) as j:
        assert [r.hash for r in j] == new
    with Journal(moved) as j:
        assert [r.hash for r in j] == hashes[:5]


def test_forget_head_through_either_name_then_the_replacement_opens(linked, tmp_path):
    a, b, _ = linked
    other = tmp_path / "other.jsonl"
    _fill(other, 2, start=70)
    a.write_bytes(other.read_bytes())  # replaced in place: the same file, another journal
    b_entry = journal_head_index.entry_path(journal_head.identity(b))
    assert b_entry.exists()
    Journal.forget_head(b)  # through the other folder's name
    assert not b_entry.exists()
    for name in (a, b):
        with Journal(name) as j:
            assert len(j) == 2
    with Journal(b) as j:
        j.append("k", {"i": 3})
    _cut(b, 1)
    with pytest.raises(CorruptJournal):
        Journal(a)  # the replacement's own checkpoint, through the index
    Journal.forget_head(a)
    with Journal(b) as j:
        assert len(j) == 1


def test_an_unwritable_state_folder_is_one_warning_never_an_error(tmp_path, monkeypatch, state):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(journal_head_index.ENV, str(blocker))
    monkeypatch.setattr(journal_head_index, "_warned", set())
    p = tmp_path / "j.jsonl"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(3):
            with Journal(p) as j:
                j.append("k", {"i": n})
                j.checkpoint()
        Journal.forget_head(p)
        Journal.repair(p)
    got = [str(x.message) for x in w if issubclass(x.category, HeadIndexWarning)]
    assert len(got) == 1 and "SOLVI_LAB_STATE_DIR" in got[0] and "\n" not in got[0]
    assert [x for x in w if not issubclass(x.category, HeadIndexWarning)] == []
    with Journal(p) as j:
        assert len(j) == 3
    _cut(p, 1)
    with pytest.raises(CorruptJournal):
        Journal(p)  # today's behaviour: its .head beside it


def test_a_damaged_or_foreign_entry_is_ignored(linked):
    a, b, _ = linked
    entry = journal_head_index.entry_path(journal_head.identity(a))
    for text in ("{not json", '{"count": 99, "hash": "x"}', "[1, 2]", "\ud800".encode("utf-8", "surrogatepass")):
        if isinstance(text, bytes):
            entry.write_bytes(text)
        else:
            entry.write_text(text)
        with Journal(b, mode="r") as j:
            assert len(j) == 6


def test_the_state_folder_is_the_variable_else_inside_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(journal_head_index.ENV, str(tmp_path))
    assert journal_head_index.state_dir() == tmp_path
    monkeypatch.delenv(journal_head_index.ENV)
    assert journal_head_index.state_dir() == Path(sys.prefix) / "var" / "solvi-lab"


def test_the_suite_keeps_its_index_out_of_home_and_the_environment():
    """conftest.py points every test process at a temporary state folder (the index is never the user's)."""
    folder = Path(os.environ[journal_head_index.ENV]).resolve()
    assert folder.is_dir() and folder.name.startswith("solvi_lab_state_")
    assert Path.home().resolve() not in folder.parents and Path(sys.prefix).resolve() not in folder.parents
