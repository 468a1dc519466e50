import pytest

from solvi_lab.decisions import DecisionLog
from solvi_lab.errors import BadInput, UnknownId
from solvi_lab.journal import Journal


def test_ask_records_and_reruns(tmp_path):
    path = tmp_path / "d.jsonl"
    log = DecisionLog(Journal(path))
    d = log.ask("tier", lambda g: g["n"] * 2, {"n": 3}, answered_by="system1")
    assert (d.id, d.answer, d.answered_by, d.guarantee) == ("d0", 6, "system1", None)
    assert log.rerun("d0", lambda g: g["n"] * 2).same
    assert not log.rerun("d0", lambda g: g["n"] * 3).same
    log.journal.close()
    again = DecisionLog(Journal(path))
    assert [x.id for x in again] == ["d0"] and again.get("d0").given == {"n": 3}


def test_alone_under_guarantee():
    log = DecisionLog()
    a = log.record("q", {}, 1, answered_by="system2", guarantee="<=5% wrong")
    b = log.record("q", {}, 1, answered_by="system2")
    c = log.record("q", {}, 1, answered_by="system1", guarantee="x")
    assert [a.alone_under_guarantee, b.alone_under_guarantee, c.alone_under_guarantee] == [True, False, False]


def test_bad_input():
    log = DecisionLog()
    with pytest.raises(BadInput, match="answered_by='me'"):
        log.ask("q", lambda g: 1, {}, answered_by="me")
    with pytest.raises(BadInput, match="callable"):
        log.ask("q", 3, {}, answered_by="rule")
    with pytest.raises(BadInput, match="not a decision id"):
        log.get("x1")
    with pytest.raises(UnknownId, match="no decision 'd9'"):
        log.get("d9")
