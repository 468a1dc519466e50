"""A fold snapshot is a cache, never an authority (issue 40, part 2): a forger who can append to a closed journal
appends one ``fold-snapshot`` record naming a forged ``.fold`` file — an item changed before the head checkpoint or
after it, a status changed, the item's digest and the snapshot's sums recomputed so that every kept digest agrees —
and the next open refuses it with one warning (the journal's head checkpoint does not vouch for the record) and
serves the journal's replay. A forger who also rewrites the head checkpoint gets the snapshot used, and the first
verify() says the store differs from the replay. An honest snapshot stays used across opens."""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from test_fold_snapshot import build, reference, snapshot

from solvi_lab import journal_head
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.knowledge import fold_snapshot as fs
from solvi_lab.knowledge.fold_snapshot import FoldSnapshotIgnored


def _heads(path: Path) -> object:
    """What the journal's head checkpoints hold now (JSONL: attribute and .head file; SQLite: the head rows)."""
    if path.suffix == ".sqlite":
        with sqlite3.connect(path) as db:
            return db.execute("SELECT id, count, hash FROM head ORDER BY id").fetchall()
    return journal_head.read_checkpoints(path)


def _restore_heads(path: Path, saved: object) -> None:
    """Put the head checkpoints back as they were: the forger appended without this library's writer."""
    if path.suffix == ".sqlite":
        db = sqlite3.connect(path)
        with db:
            db.execute("DELETE FROM head")
            db.executemany("INSERT INTO head VALUES (?, ?, ?)", saved)
        db.close()
        return
    journal_head.remove_checkpoints(path)
    for where, text in saved:
        if where == journal_head.XATTR:
            import os

            os.setxattr(path, journal_head.XATTR, text.encode())
        else:
            Path(where).write_text(text)


def forge(path: Path, change: Callable[[KnowledgeStore], str], *, recompute: bool, keep_heads: bool = True) -> str:
    """Write a forged .fold of the journal's replay with `change` applied (it returns the item it changed), and
    append one fold-snapshot record naming it. `recompute`: the changed item's digest and the snapshot's sums are
    recomputed (every kept digest agrees with the forged rows). `keep_heads`: the head checkpoints are left as they
    were before the append (a forger writing to the file alone); False: the library's writer wrote them (a forger
    who rewrites the checkpoint too)."""
    saved = _heads(path)
    with KnowledgeStore.open(path, snapshot=False) as ks:
        ks.fingerprint()
        iid = change(ks)
        it = ks._items[iid]
        if recompute:
            ks._touch(it)
        fp = ks.fingerprint()  # what the forger names: its rows' fingerprint as the kept sums give it
        _, marker = fs._write_file(ks, ks.journal, fp)
        ks.close(snapshot=False)
    with Journal(path) as j:
        rec = j.append(fs.MARKER_KIND, marker)
        if not keep_heads:
            j.vouch(rec.position)
    if keep_heads:
        _restore_heads(path, saved)
    return iid


def _letter(ks: KnowledgeStore) -> str:
    """One letter of an active fact's object value changed."""
    it = next(i for i in ks._items.values() if i.state == "active" and isinstance(i.body.get("o"), str))
    o = it.body["o"]
    it.body = {**it.body, "o": ("X" if o[:1] != "X" else "Y") + o[1:]}
    return it.id


def _status(ks: KnowledgeStore) -> str:
    it = next(i for i in ks._items.values() if i.state == "active")
    it.state = "refuted"
    return it.id


def _opened(path: Path) -> tuple[KnowledgeStore, list[str]]:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ks = KnowledgeStore.open(path)
    return ks, [str(x.message) for x in w if issubclass(x.category, FoldSnapshotIgnored)]


def _after_checkpoint(path: Path) -> None:
    """Records written after the journal's last head checkpoint (a writer killed before its close): a few adds
    appended, the checkpoints put back as they were."""
    saved = _heads(path)
    with KnowledgeStore.open(path, snapshot=False) as ks:
        for i in range(4):
            ks.add("fact", {"s": f"late{i}", "r": "tier", "o": f"late{i}"}, source="person")
        ks.close(snapshot=False)
    _restore_heads(path, saved)


def _late_letter(ks: KnowledgeStore) -> str:
    it = ks._items[
        max((i for i in ks._items.values() if i.body.get("s", "").startswith("late")), key=lambda i: i.pos).id
    ]
    it.body = {**it.body, "o": "forged"}
    return it.id


VARIANTS = {
    "letter before the checkpoint": (_letter, False, False),
    "letter before the checkpoint, digest recomputed": (_letter, True, False),
    "status changed": (_status, False, False),
    "status changed, digest recomputed": (_status, True, False),
    "letter after the checkpoint": (_late_letter, False, True),
    "letter after the checkpoint, digest recomputed": (_late_letter, True, True),
}


@pytest.mark.parametrize("suffix", [".jsonl", ".sqlite"])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_an_appended_forged_snapshot_is_refused_at_open(tmp_path: Path, variant: str, suffix: str) -> None:
    change, recompute, late = VARIANTS[variant]
    path = tmp_path / f"ks{suffix}"
    build(path, n=120)
    snapshot(path)  # an honest snapshot first: the forger replaces it
    if late:
        _after_checkpoint(path)
    iid = forge(path, change, recompute=recompute)
    want = reference(path)
    ks, warned = _opened(path)
    try:
        assert not ks.opened_from_snapshot
        assert len(warned) == 1 and "does not vouch for its record" in warned[0], warned
        assert ks.item(iid) == want["items"][iid] and ks.fingerprint() == want["fingerprint"]
        assert ks.verify()
    finally:
        ks.close(snapshot=False)
    # The open that refused it wrote its checkpoint over the forged record; the next open still refuses it.
    again, warned = _opened(path)
    try:
        assert not again.opened_from_snapshot and len(warned) == 1
        assert again.item(iid) == want["items"][iid]
    finally:
        again.close(snapshot=False)


@pytest.mark.parametrize("recompute", [False, True])
def test_a_forger_who_rewrites_the_checkpoint_is_caught_by_the_first_verify(tmp_path: Path, recompute: bool) -> None:
    path = tmp_path / "ks.jsonl"
    build(path, n=120)
    snapshot(path)
    iid = forge(path, _letter, recompute=recompute, keep_heads=False)
    want = reference(path)
    ks, warned = _opened(path)
    try:
        assert ks.opened_from_snapshot and warned == []
        assert ks.item(iid) != want["items"][iid]  # served forged: the open trusted its checkpoint
        v = ks.verify()
        assert not v and v.chain_ok and "differs from the replay" in v.problem
        assert ks.journal.vouched is None  # the vouch is withdrawn: the next open folds from scratch
    finally:
        ks.close()
    again, warned = _opened(path)
    try:
        assert not again.opened_from_snapshot and len(warned) == 1 and "does not vouch" in warned[0]
        assert again.item(iid) == want["items"][iid] and again.verify()
    finally:
        again.close(snapshot=False)


def test_a_forged_fingerprint_in_the_record_is_named_by_the_replay(tmp_path: Path) -> None:
    path = tmp_path / "ks.jsonl"
    build(path, n=120)
    iid = forge(path, _letter, recompute=True)  # no honest snapshot before: nothing else to warn about
    fs.snapshot_path(path).unlink()
    ks, warned = _opened(path)
    try:
        assert not ks.opened_from_snapshot and len(warned) == 1
        assert "name a fingerprint its replay does not give" in warned[0]
        assert ks.item(iid)["body"]["o"][0] not in "XY" or ks.verify()
    finally:
        ks.close(snapshot=False)


def test_an_honest_snapshot_stays_vouched_for_across_opens(tmp_path: Path) -> None:
    path = tmp_path / "ks.jsonl"
    build(path, n=120)
    snapshot(path)
    for round_ in range(3):
        ks, warned = _opened(path)
        try:
            assert ks.opened_from_snapshot and warned == [], round_
            ks.add("fact", {"s": f"r{round_}", "r": "tier", "o": "gold"}, source="person")
            assert ks.journal.vouched == ks._snapshot_at
        finally:
            ks.close(snapshot=False)
    with Journal(path, mode="r") as j:
        assert j.vouched is not None and j[j.vouched].kind == fs.MARKER_KIND


def test_vouch_refuses_a_position_outside_the_journal(tmp_path: Path) -> None:
    from solvi_lab.errors import BadInput

    with Journal(tmp_path / "j.jsonl") as j:
        j.append("note", {"n": 1})
        with pytest.raises(BadInput, match="name a record"):
            j.vouch(1)
        j.vouch(0)
        assert j.vouched == 0
    with Journal(tmp_path / "j.jsonl", mode="r") as r:
        assert r.vouched == 0
        with pytest.raises(BadInput, match="open for appending"):
            r.vouch(None)
