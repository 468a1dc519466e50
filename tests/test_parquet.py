"""Journal ⇄ Parquet: exact round trip (same hashes, same store fingerprint); tampering refused, naming the position."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from solvi_lab.errors import BadInput, CorruptJournal
from solvi_lab.explore.parquet import PARQUET_SCHEMA, export_journal, import_journal, journal_from_records, record_hash
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore


def rich_store(timestamps=None) -> KnowledgeStore:
    ks = KnowledgeStore(journal=Journal(timestamps=timestamps))
    ks.add("fact", {"s": "acme", "r": "tier", "o": "regular"}, source="spec")
    crm = ks.add("fact", {"s": "acme", "r": "tier", "o": "vip"}, source="person", by="crm")
    d = ks.add(
        "fact",
        {"s": ["room", 3], "r": "size", "o": [1.5, None, {"é": True}]},
        source="person",
        derived_from=[crm],
        scope={"map": "A"},
        valid=(0, 9.25),
    )
    ks.add("fact", {"s": "acme", "r": "region", "o": "north"}, source="person", by="ann")
    ks.add("fact", {"s": "acme", "r": "region", "o": "south"}, source="person", by="bob")
    ks.decisions.record("ship?", {"facts": [d]}, "yes", answered_by="rule")
    ks.journal.append("note", ["not", "a", "dict"])
    ks.tick(2)
    ks.flag(ids=[d], why="drift")
    ks.retract(crm, by="ann", why="wrong customer")
    return ks


def test_round_trip_replays_to_the_same_fingerprint(tmp_path: Path) -> None:
    ks = rich_store()
    path = export_journal(ks.journal, tmp_path / "j.parquet")
    records = import_journal(path)
    assert [(r.position, r.kind, r.payload, r.prev, r.hash, r.t) for r in records] == [
        (r.position, r.kind, r.payload, r.prev, r.hash, r.t) for r in ks.journal
    ]
    assert KnowledgeStore.from_records(records).fingerprint() == ks.fingerprint()


def test_time_stamped_journal_round_trips(tmp_path: Path) -> None:
    ticks = iter(range(1_000))
    ks = rich_store(timestamps=lambda: 1_700_000_000.123456 + next(ticks) / 7)
    records = import_journal(export_journal(ks, tmp_path / "j.parquet"))  # a store is accepted too
    assert [r.hash for r in records] == [r.hash for r in ks.journal]
    assert [r.t for r in records] == [r.t for r in ks.journal]
    j = journal_from_records(records)
    assert j.head() == ks.journal.head() and len(j) == len(ks.journal)
    later = j.append("note", {"after": "import"})
    assert later.t is not None and bool(j.verify())


def test_file_columns_agree_with_journal_frame(tmp_path: Path) -> None:
    ks = rich_store()
    f = pl.read_parquet(export_journal(ks.journal, tmp_path / "j.parquet"))
    assert f.columns == list(PARQUET_SCHEMA)
    assert f.select("position", "kind", "op", "t", "payload").equals(ks.journal.frame())
    assert f["hash"].to_list() == [r.hash for r in ks.journal]


def test_journal_from_records_continues_the_chain(tmp_path: Path) -> None:
    ks = rich_store()
    records = import_journal(export_journal(ks.journal, tmp_path / "j.parquet"))
    j = journal_from_records(records, tmp_path / "copy.jsonl")
    assert j.head() == ks.journal.head()
    copy = KnowledgeStore(journal=j)
    assert copy.fingerprint() == ks.fingerprint()
    copy.add("fact", {"s": "new", "r": "x", "o": 1}, source="spec")
    assert bool(copy.verify()) and j[-1].t is None  # an unstamped journal stays unstamped
    j.close()
    with pytest.raises(BadInput, match="copy.jsonl exists; journal_from_records"):
        journal_from_records(records, tmp_path / "copy.jsonl")


def test_journal_from_records_refuses_what_is_not_one_chain() -> None:
    stamped = list(rich_store(timestamps=lambda: 5.0).journal)
    plain = list(rich_store().journal)
    with pytest.raises(BadInput, match="mix time-stamped and unstamped"):
        journal_from_records(plain[:2] + stamped[2:])
    with pytest.raises(CorruptJournal, match=r"record 1 \(given with position 2\): re-appending it gives hash"):
        journal_from_records([plain[0], plain[2]])


def test_empty_journal(tmp_path: Path) -> None:
    assert import_journal(export_journal(Journal(), tmp_path / "e.parquet")) == []


def _tamper(tmp_path: Path, change) -> Path:
    ks = rich_store()
    path = export_journal(ks.journal, tmp_path / "j.parquet")
    bad = tmp_path / "bad.parquet"
    change(pl.read_parquet(path)).write_parquet(bad)
    return bad


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda f: f.with_columns(
                pl.when(pl.col("position") == 3)
                .then(pl.lit('{"op":"add"}'))
                .otherwise(pl.col("payload"))
                .alias("payload")
            ),
            "record 3 was edited after it was written (its hash does not match its content). The records before "
            "position 3 are intact",
        ),
        (lambda f: f.filter(pl.col("position") != 4), "expected position 4, found 5: a record was inserted, deleted"),
        (lambda f: f.slice(0, 2).vstack(f.slice(3, 1)).vstack(f.slice(2, 1)), "expected position 2, found 3"),
        (
            lambda f: f.with_columns(
                pl.when(pl.col("position") == 6).then(pl.lit("0" * 64)).otherwise(pl.col("prev")).alias("prev")
            ),
            "record 6 does not link to record 5",
        ),
        (
            lambda f: f.with_columns(
                pl.when(pl.col("position") == 2).then(pl.lit("{not json")).otherwise(pl.col("payload")).alias("payload")
            ),
            "record 2's payload is not JSON",
        ),
        (
            lambda f: f.with_columns(
                pl.when(pl.col("position") == 1).then(pl.lit(None, pl.Float64)).otherwise(pl.lit(1.0)).alias("t")
            ),
            "record 0 was edited",
        ),
        (lambda f: f.drop("hash"), "is not a journal export: it lacks column(s) ['hash']"),
    ],
)
def test_tampering_is_refused_naming_the_position(tmp_path: Path, change, message: str) -> None:
    bad = _tamper(tmp_path, change)
    with pytest.raises(CorruptJournal) as e:
        import_journal(bad)
    assert message in str(e.value)


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="no file at .*nope.parquet; pass the path export_journal"):
        import_journal(tmp_path / "nope.parquet")
    junk = tmp_path / "junk.parquet"
    junk.write_text("not parquet")
    with pytest.raises(CorruptJournal, match="is not a readable Parquet file"):
        import_journal(junk)


def test_export_refuses_what_is_not_a_journal(tmp_path: Path) -> None:
    ks = rich_store()
    with pytest.raises(BadInput, match="a rebuilt store has no journal"):
        export_journal(ks.at(3), tmp_path / "v.parquet")
    with pytest.raises(BadInput, match="is a directory"):
        export_journal(ks.journal, tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing half-written left behind


def test_export_replaces_atomically(tmp_path: Path) -> None:
    ks = rich_store()
    path = tmp_path / "j.parquet"
    export_journal(ks.journal, path)
    ks.add("fact", {"s": "z", "r": "z", "o": 1}, source="spec")
    export_journal(ks.journal, path)
    assert len(import_journal(path)) == len(ks.journal)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["j.parquet", "j.parquet.sha256"]


def test_record_hash_is_the_journal_hash() -> None:
    j = Journal(timestamps=lambda: 3.5)
    r = j.append("k", {"a": [1, 2]})
    assert record_hash(0, "k", {"a": [1, 2]}, r.prev, 3.5) == r.hash
