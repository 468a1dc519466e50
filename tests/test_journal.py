"""One conformance suite that every journal backend must pass."""

import dataclasses
import json
import multiprocessing

import pytest

from solvi_lab.errors import BadInput, CorruptJournal, JournalLocked
from solvi_lab.journal import GENESIS, Journal, Record, canonical


@pytest.fixture(params=["memory", "jsonl", "sqlite"])
def make(request, tmp_path):
    backend = request.param

    def _make(name="j", **kw):
        if backend == "memory":
            return Journal(**kw)
        ext = ".jsonl" if backend == "jsonl" else ".sqlite"
        return Journal(tmp_path / (name + ext), **kw)

    _make.backend = backend
    return _make


def test_append_chains_and_verifies(make):
    j = make()
    a = j.append("k", {"x": 1})
    b = j.append("k", [1, "é"])
    assert (a.position, b.position) == (0, 1)
    assert a.prev == GENESIS and b.prev == a.hash
    assert len(a.hash) == 64
    assert [r.payload for r in j] == [{"x": 1}, [1, "é"]]
    assert j.verify().ok and j.verify().records == 2
    assert j[1].hash == b.hash and j[-1].hash == b.hash


def test_payload_cannot_overwrite_header(make):
    j = make()
    r = j.append("k", {"position": 99, "kind": "evil", "prev": "x", "hash": "y"})
    assert (r.position, r.kind) == (0, "k")
    assert r.payload["position"] == 99


def test_bad_input(make):
    j = make()
    with pytest.raises(BadInput, match="not JSON"):
        j.append("k", {"x": object()})
    with pytest.raises(BadInput, match="not JSON"):
        j.append("k", {"x": float("nan")})
    with pytest.raises(BadInput, match="non-empty string"):
        j.append("", {})
    with pytest.raises(BadInput, match="past the end"):
        j[5]
    assert len(j) == 0  # nothing half-written


def test_records_filter(make):
    j = make()
    for i in range(5):
        j.append("a" if i % 2 else "b", {"i": i})
    assert [r.payload["i"] for r in j.records(1, 4)] == [1, 2, 3]
    assert [r.payload["i"] for r in j.records(kind="a")] == [1, 3]


def test_reload_keeps_chain(make):
    if make.backend == "memory":
        pytest.skip("memory journals do not persist")
    j = make()
    for i in range(3):
        j.append("k", {"i": i})
    head = j.head()
    j.close()
    j2 = make()
    assert len(j2) == 3 and j2.head() == head
    j2.append("k", {"i": 3})
    assert j2.verify().ok


def test_a_record_the_load_builds_equals_the_written_one_and_stays_frozen(tmp_path):
    """The JSONL load builds each Record from its slots' setters (journal._RECORD_SETTERS), not its __init__: the
    same record, field for field, and as frozen as any other."""
    path = tmp_path / "r.jsonl"
    written = []
    with Journal(path) as j:
        written.append(j.append("k", {"i": 0}))
        written.append(j.append("other", {"s": "x", "n": [1, 2]}))
    seen = []
    with Journal(path, on_load=seen.append):
        pass
    assert [r.as_dict() for r in seen] == [r.as_dict() for r in written]
    assert seen == [Record(r.position, r.kind, r.payload, r.prev, r.hash, r.t) for r in written]
    with pytest.raises(dataclasses.FrozenInstanceError):
        seen[0].position = 7


def test_second_writer_refused(make):
    if make.backend == "memory":
        pytest.skip("a memory journal has one writer by construction")
    j = make()
    with pytest.raises(JournalLocked, match="open for writing elsewhere"):
        make()
    j.close()
    make().close()  # released: a new writer may open it


def _write_lines(path, lines):
    path.write_text("".join(line + "\n" for line in lines))


@pytest.fixture
def jsonl(tmp_path):
    path = tmp_path / "x.jsonl"
    j = Journal(path)
    for i in range(4):
        j.append("k", {"i": i})
    j.close()
    return path


def test_torn_last_line_detected_not_truncated(jsonl):
    data = jsonl.read_bytes()
    jsonl.write_bytes(data + b'{"hash":"abc","kind":"k","pay')
    with pytest.raises(CorruptJournal, match=r"last record \(position 4\) is torn.*Journal.repair"):
        Journal(jsonl)
    assert jsonl.read_bytes().endswith(b'"pay')  # nothing silently dropped
    assert Journal.repair(jsonl) == 4
    assert (jsonl.parent / "x.jsonl.torn").read_bytes() == b'{"hash":"abc","kind":"k","pay'
    assert len(Journal(jsonl)) == 4


@pytest.mark.parametrize(
    "tamper, message",
    [
        ("edit", "record 2 was edited"),
        ("reorder", "expected position 1, found 2"),
        ("delete", "expected position 1, found 2"),
        ("insert", "expected position 2, found 1"),
    ],
)
def test_tampering_detected_with_position(jsonl, tamper, message):
    lines = jsonl.read_text().splitlines()
    if tamper == "edit":
        d = json.loads(lines[2])
        d["payload"]["i"] = 42
        lines[2] = canonical(d)
    elif tamper == "reorder":
        lines[1], lines[2] = lines[2], lines[1]
    elif tamper == "delete":
        del lines[1]
    elif tamper == "insert":
        lines.insert(2, lines[1])
    _write_lines(jsonl, lines)
    with pytest.raises(CorruptJournal, match=message):
        Journal(jsonl)


def test_relinked_edit_detected(jsonl):
    # An edit that also recomputes the record's own hash still breaks the next record's link.
    from solvi_lab.journal import _hash_text, _header_text

    lines = jsonl.read_text().splitlines()
    d = json.loads(lines[1])
    d["payload"]["i"] = 7
    d["hash"] = _hash_text(_header_text(1, "k", canonical(d["payload"]), d["prev"], d["t"]))
    lines[1] = canonical(d)
    _write_lines(jsonl, lines)
    with pytest.raises(CorruptJournal, match="record 2 does not link to record 1"):
        Journal(jsonl)


def test_sqlite_edit_detected(tmp_path):
    import sqlite3

    path = tmp_path / "x.sqlite"
    j = Journal(path)
    for i in range(3):
        j.append("k", {"i": i})
    j.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE records SET payload = ? WHERE position = 1", ('{"i":9}',))
    db.commit()
    db.close()
    with pytest.raises(CorruptJournal, match="record 1 was edited"):
        Journal(path)


def _child_append(path, q):
    try:
        Journal(path)
        q.put("opened")
    except JournalLocked as e:
        q.put("locked: " + str(e)[:40])


def test_lock_across_processes(tmp_path):
    path = tmp_path / "p.jsonl"
    j = Journal(path)
    q = multiprocessing.get_context("fork").Queue()
    p = multiprocessing.get_context("fork").Process(target=_child_append, args=(path, q))
    p.start()
    p.join(10)
    assert q.get(timeout=5).startswith("locked")
    j.close()


def test_frame(make):
    j = make()
    j.append("note", {"op": "add", "x": 1})
    j.append("other", {"name": "n"})
    f = j.frame()
    assert f.columns == ["position", "kind", "op", "t", "payload"]
    assert f["op"].to_list() == ["add", None]
