"""Whatever is wrong with a journal file, opening it raises CorruptJournal naming the file and the position, and
releases everything the open took (the repaired file reopens in the same process)."""

import json
import re
import sqlite3

import pytest

from solvi_lab.decisions import DecisionLog
from solvi_lab.errors import BadInput, CorruptJournal, JournalLocked
from solvi_lab.journal import Head, Journal, _hash_text, _header_text, canonical
from solvi_lab.knowledge import KnowledgeStore


def _shown(path) -> str:
    """A path as a refusal quotes it: whole up to 80 characters, else its 77-character prefix and "..."
    (validation._compact), so the tests hold however long the temporary folder's name is (pytest-xdist's are long)."""
    text = str(path)
    return text if len(text) <= 80 else text[:77] + "..."



def _journal(path, n=4):
    with Journal(path) as j:
        for i in range(n):
            j.append("k", {"i": i})


def _lines(path):
    return path.read_bytes().split(b"\n")[:-1]


def _write(path, lines):
    path.write_bytes(b"".join(x + b"\n" for x in lines))


def _forge(position, kind, payload, prev, t=None, extra=None, drop_t=False):
    """A record with a correct hash (as a hostile editor who knows the rule would write it)."""
    h = _hash_text(_header_text(position, kind, canonical(payload), prev, t))
    d = {"hash": h, "kind": kind, "payload": payload, "position": position, "prev": prev, "t": t}
    if drop_t:
        del d["t"]
    d.update(extra or {})
    return json.dumps(d, separators=(",", ":")).encode()


def _reopens_after_repair(path, kept):
    assert Journal.repair(path) == kept
    with Journal(path) as j:
        assert len(j) == kept and j.verify()


@pytest.fixture
def jl(tmp_path):
    path = tmp_path / "x.jsonl"
    _journal(path)
    return path


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda b: b.replace(b'"i":2', b'"i":\xff'), r"position 2 \(byte offset \d+\) is not UTF-8"),
        (lambda b: b.replace(b'"i":2', b'"i":NaN'), r"position 2 .* is not valid JSON"),
        (lambda b: b.replace(b'"i":2', b'"i":Infinity'), r"position 2 .* is not valid JSON"),
        (lambda b: b.replace(b'"i":2', b'"i":-Infinity'), r"position 2 .* is not valid JSON"),
        (lambda b: b.replace(b'"i":2', b'"i":' + b"9" * 5000), r"position 2 .* is not valid JSON"),
        (lambda b: b.replace(b'"position":2', b'"position":"2"'), r"record at position 2 is not a journal record"),
        (lambda b: b.replace(b'"position":2', b'"position":2.0'), r"record at position 2 is not a journal record"),
        (lambda b: b.replace(b'"kind":"k","payload":{"i":2}', b'"kind":7,"payload":{"i":2}'), r"position 2"),
        (lambda b: b.replace(b'"t":null}\n{"hash"', b'"x":null}\n{"hash"', 1), r"position 0 .*missing \['t'\]"),
        (lambda b: b.replace(b',"t":null}\n', b"}\n", 1), r"position 0 .*missing \['t'\]"),
        (lambda b: b.replace(b'"t":null}\n', b'"t":null,"extra":1}\n', 1), r"position 0 .*unknown \['extra'\]"),
        (lambda b: b.replace(b'"t":null}\n', b'"t":"now"}\n', 1), r"position 0 .*time stamp"),
        (lambda b: b.replace(b"\n", b"\n[1,2]\n", 1), r"record at position 1 is not a journal record"),
        (lambda b: b"[" * 5000 + b"\n" + b, r"position 0 .*not valid JSON"),
    ],
)
def test_bad_bytes_are_one_error_naming_the_position(jl, edit, message):
    jl.write_bytes(edit(jl.read_bytes()))
    with pytest.raises(CorruptJournal, match=message) as e:
        Journal(jl)
    assert _shown(jl) in str(e.value) and "Journal.repair" in str(e.value)
    _reopens_after_repair(jl, int(e.value.args[0].split("position ")[1].split()[0].strip("(),")))


def test_null_t_key_renamed_with_hash_recomputed_is_refused(jl):
    lines = _lines(jl)
    d = json.loads(lines[3])
    lines[3] = _forge(3, "k", d["payload"], d["prev"], drop_t=True, extra={"z": None})
    _write(jl, lines)
    with pytest.raises(CorruptJournal, match="position 3 is not a journal record"):
        Journal(jl)


def test_payload_its_owner_cannot_fold_is_corrupt_journal(tmp_path):
    path = tmp_path / "ks.jsonl"
    with KnowledgeStore(path) as ks:
        ks.add("fact", {"s": "a", "r": "b", "o": 1}, source="person")
    lines = _lines(path)
    prev = json.loads(lines[-1])["hash"]
    lines.append(_forge(1, "knowledge", {"op": "tick", "k": "x"}, prev))
    _write(path, lines)
    with pytest.raises(CorruptJournal, match=r"record 1 \(kind 'knowledge'\) holds a payload its owner cannot"):
        KnowledgeStore(path)
    (tmp_path / "ks.jsonl.head").unlink()  # the forged record was never counted; repair keeps record 0
    assert Journal.repair(path) == 1
    with KnowledgeStore(path) as ks:
        assert len(ks) == 1 and ks.verify()


def test_failed_open_releases_the_lock(jl):
    jl.write_bytes(jl.read_bytes() + b'{"torn')
    for _ in range(2):
        with pytest.raises(CorruptJournal):
            Journal(jl)
    Journal.repair(jl)
    with Journal(jl) as j:
        assert len(j) == 4


def _sqlite(tmp_path, n=3):
    path = tmp_path / "x.sqlite"
    with Journal(path) as j:
        for i in range(n):
            j.append("k", {"i": i})
    return path


def _sql(path, *stmts):
    db = sqlite3.connect(path)
    for s in stmts:
        db.execute(*s) if isinstance(s, tuple) else db.execute(s)
    db.commit()
    db.close()


@pytest.mark.parametrize(
    "damage, message",
    [
        (("UPDATE records SET payload = ? WHERE position = 1", ("{bad",)), "record 1's payload is not JSON"),
        (("UPDATE records SET payload = ? WHERE position = 1", ('{"i":NaN}',)), "record 1's payload is not JSON"),
        (("UPDATE records SET payload = ? WHERE position = 1", (b"\xff\xfe",)), "record 1's payload is not JSON"),
        (("UPDATE records SET payload = 5 WHERE position = 1",), "record 1 was edited"),
        (("UPDATE records SET kind = 7 WHERE position = 1",), "record 1 was edited"),
        (("UPDATE records SET t = 'x' WHERE position = 1",), "position 1 is not a journal record"),
        (("UPDATE records SET hash = 'zz' WHERE position = 1",), "position 1 is not a journal record"),
        (("DROP TABLE records",), "no records table"),
        (("DELETE FROM records WHERE position = 2",), r"holds 2 records but its head checkpoint says 3"),
    ],
)
def test_damaged_sqlite_is_one_error(tmp_path, damage, message):
    path = _sqlite(tmp_path)
    _sql(path, damage)
    with pytest.raises(CorruptJournal, match=message):
        Journal(path)
    with pytest.raises(CorruptJournal):  # and again: the failed open released its lock and connection
        Journal(path)


@pytest.mark.parametrize("data", [b"", b"x", b"SQLite format 3\x00" + b"\x00" * 100, b"\x00" * 600])
def test_short_or_foreign_sqlite_files_are_refused(tmp_path, data):
    path = tmp_path / "x.sqlite"
    path.write_bytes(data)
    with pytest.raises(CorruptJournal, match=re.escape(_shown(path))):
        Journal(path)


def test_bytes_damage_inside_sqlite_is_one_error(tmp_path):
    path = _sqlite(tmp_path, 50)
    data = bytearray(path.read_bytes())
    for i in range(100, len(data), 7):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    for p in tmp_path.glob("x.sqlite-*"):
        p.unlink()
    with pytest.raises(CorruptJournal):
        Journal(path)


def test_repair_works_on_sqlite_and_takes_the_lock(tmp_path):
    path = _sqlite(tmp_path, 5)
    _sql(path, ("UPDATE records SET payload = ? WHERE position = 3", ('{"i":99}',)))
    with pytest.raises(CorruptJournal, match="record 3 was edited"):
        Journal(path)
    assert Journal.repair(path) == 3
    assert len((tmp_path / "x.sqlite.torn.jsonl").read_text().splitlines()) == 2
    with Journal(path) as j:
        assert len(j) == 3 and j.verify()
        with pytest.raises(JournalLocked):
            Journal.repair(path)


def test_owners_are_context_managers(tmp_path):
    with KnowledgeStore(tmp_path / "a.jsonl") as ks:
        ks.add("fact", {"s": "a", "r": "b", "o": 1}, source="person")
    assert ks.journal.closed
    with DecisionLog(Journal(tmp_path / "d.jsonl")) as log:
        log.record("n", {}, 1, answered_by="system2")
    assert log.journal.closed
    with Journal(tmp_path / "a.jsonl") as j:
        assert len(j) == 1


def test_no_other_exception_escapes_a_bad_path(tmp_path):
    with pytest.raises(BadInput, match="cannot open journal"):
        Journal(tmp_path)  # a directory
    with pytest.raises(BadInput, match="no journal at"):
        Journal(tmp_path / "missing.jsonl", mode="r")
    with pytest.raises(BadInput):
        Head.parse("journal:x:y")


def test_sqlite_text_that_is_not_utf8_names_the_record(tmp_path):
    path = _sqlite(tmp_path, 4)
    _sql(path, ("UPDATE records SET kind = CAST(x'9cff' AS TEXT) WHERE position = 2",))
    with pytest.raises(CorruptJournal, match="record 2 was edited"):
        Journal(path)
    assert Journal.repair(path) == 2


def test_registered_shape_is_checked_on_load(tmp_path):
    path = tmp_path / "k.jsonl"
    with Journal(path) as j:
        j.append("note", {})
    lines = _lines(path)
    prev = json.loads(lines[-1])["hash"]
    bad = {"op": "add", "kind": "fact", "body": {}, "source": ["person"], "key": "x"}
    lines.append(_forge(1, "knowledge", bad, prev))
    _write(path, lines)
    (tmp_path / "k.jsonl.head").unlink()
    import solvi_lab.knowledge  # noqa: F401  (registers the "knowledge" kind)

    with pytest.raises(CorruptJournal, match=r"record 1 \(kind 'knowledge'\).*field 'source'"):
        Journal(path)
