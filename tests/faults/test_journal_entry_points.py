"""Bad input at every entry point of Journal, hostile arguments to the owners' writes (issue 40, 5): the project's
error, one line, at most 80 characters of any value (solvi_lab/journal_faults/entry_points.py)."""

import pytest

from solvi_lab.errors import BadInput, CorruptJournal
from solvi_lab.journal import Journal
from solvi_lab.journal_faults.entry_points import AllRaise, EqRaises, deep, run_cases


def test_every_case_is_refused_with_the_projects_error_in_one_short_line(tmp_path):
    out = run_cases(tmp_path)
    assert out.tried == 331
    assert out.bare == {}, out.examples
    assert (out.long, out.multiline, out.quoted) == (0, 0, 0), out.examples
    assert out.refused + out.accepted == out.tried and out.refused == 313


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda d: Journal(5), "Journal(): a journal path is a str or os.PathLike (pathlib.Path), got int"),
        (lambda d: Journal.read(5), "Journal.read(): a journal path is a str or os.PathLike (pathlib.Path), got int"),
        (
            lambda d: Journal.repair(None),
            "Journal.repair(): a journal path is a str or os.PathLike (pathlib.Path), got NoneType",
        ),
        (lambda d: Journal(str(d / "a\x00b")), "Journal(): a journal path must be non-empty and hold no NUL character"),
        (
            lambda d: Journal.repair(str(d / "a\x00b")),
            "Journal.repair(): a journal path must be non-empty and hold no NUL",
        ),
        (lambda d: Journal(AllRaise()), "Journal(): the path's __fspath__ failed (AllRaise)"),
        (lambda d: Journal(d / "j.jsonl", expect_head=deep(5000)), "<a list whose repr fails> is not a journal head"),
        (lambda d: Journal(d / "j.jsonl", mode=EqRaises()), "EqRaises object at 0x"),
        (lambda d: Journal(d / "j.jsonl", backend=AllRaise()), "backend=<a AllRaise whose repr fails>: choose one of"),
        (lambda d: Journal.read(str(d / ("x" * 5000))), "is not a usable journal path (File name too long)"),
        (
            lambda d: Journal.forget_head(str(d / "a\x00b.jsonl")),
            "Journal.forget_head(): a journal path must be non-empty and hold no NUL",
        ),
        (lambda d: Journal.forget_head(AllRaise()), "Journal.forget_head(): the path's __fspath__ failed (AllRaise)"),
        (lambda d: Journal.forget_head(str(d / ("x" * 5000))), "is not a usable journal path (File name too long)"),
        (lambda d: _one_record().vouch(AllRaise()), "vouch(position=<a AllRaise whose repr fails>): name a record"),
        (lambda d: _one_record().vouch("z" * 300_000), "vouch(position='zzz"),
        (lambda d: Journal().append_encoded("note", 5, {}), "append_encoded: the payload text is canonical(value)"),
    ],
)
def test_the_refusal_says_what_was_wrong(tmp_path, call, message):
    with pytest.raises(BadInput) as e:
        call(tmp_path)
    assert message in str(e.value)
    assert len(str(e.value)) < 300 and "\n" not in str(e.value)


def test_a_long_path_is_quoted_by_its_prefix(tmp_path):
    path = tmp_path / ("x" * 5000)
    with pytest.raises(BadInput) as e:
        Journal(path)
    text = str(e.value)
    prefix = str(path)[:77] + "..."  # its first 77 characters, however long the temporary folder's name is
    assert "(File name too long)" in text and text.count(prefix) == 2 and "x" * 81 not in text and len(text) < 400


def _one_record() -> Journal:
    j = Journal()
    j.append("note", {})
    return j


def test_a_record_line_changed_after_the_load_is_the_projects_error(tmp_path):
    """The writer's own reads (records(), [i]) parse lines it wrote or checked; one changed in the file since is
    CorruptJournal, never a bare JSON error."""
    import fcntl

    p = tmp_path / "j.jsonl"
    j = Journal(p)
    j.append("note", {"i": 1})
    with open(p, "r+b") as f:
        f.seek(5)
        f.write(b"\x00")
    with pytest.raises(CorruptJournal, match="a record line changed in the file after it was written or checked"):
        list(j)
    with pytest.raises(CorruptJournal):
        j[0]
    with pytest.raises(CorruptJournal):  # no checkpoint written over it (it names the first record)
        j.close()
    assert j.closed
    with open(p, "rb") as f:  # the writer lock was released all the same
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
