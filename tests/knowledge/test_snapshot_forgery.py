"""A fold snapshot is a cache, never an authority (issue 40, part 2): a forger who can append to a closed journal
appends one ``fold-snapshot`` record naming a forged ``.fold`` file — an item changed before the head checkpoint or
after it, a status changed, the item's digest and the snapshot's sums recomputed so that every kept digest agrees —
and the next open refuses it with one warning (the journal's head checkpoint does not vouch for the record) and
serves the journal's replay. A forger who also rewrites the head checkpoint gets the snapshot used, and the first
verify() says the store differs from the replay. An honest snapshot stays used across opens."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from snapshot_forgery import ForgeryRow, append_unchecked, forge, trial  # noqa: E402
from test_fold_snapshot import build, reference, snapshot

from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.knowledge import fold_snapshot as fs
from solvi_lab.knowledge.fold_snapshot import FoldSnapshotIgnored


def _letter(ks: KnowledgeStore) -> str:
    """One letter of an active fact's object value changed."""
    it = next(i for i in ks._fold._items.values() if i.state == "active" and isinstance(i.body.get("o"), str))
    o = it.body["o"]
    it.body = {**it.body, "o": ("X" if o[:1] != "X" else "Y") + o[1:]}
    return it.id


def _status(ks: KnowledgeStore) -> str:
    it = next(i for i in ks._fold._items.values() if i.state == "active")
    it.state = "refuted"
    return it.id


def _opened(path: Path) -> tuple[KnowledgeStore, list[str]]:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ks = KnowledgeStore.open(path)
    return ks, [str(x.message) for x in w if issubclass(x.category, FoldSnapshotIgnored)]


def _late_letter(ks: KnowledgeStore) -> str:
    it = ks._fold._items[
        max((i for i in ks._fold._items.values() if i.body.get("s", "").startswith("late")), key=lambda i: i.pos).id
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
        append_unchecked(path)
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


def test_the_trial_counts_each_outcome(tmp_path: Path) -> None:
    """The trials behind docs/readme/journal.md's forged-snapshot table, one per kind of forger."""
    plain = ForgeryRow("a letter, before the head checkpoint", "jsonl", "appends", True)
    trial(tmp_path, plain, seed=3)
    assert (plain.tried, plain.refused_at_open, plain.served_replay, plain.verify_false) == (1, 1, 1, 0)
    assert (plain.served_forged_verify_true, plain.next_open_refused, plain.other) == (0, 1, {})
    bold = ForgeryRow("a status", "sqlite", "appends and rewrites the checkpoint", False)
    trial(tmp_path, bold, seed=4)
    assert (bold.tried, bold.refused_at_open, bold.served_replay, bold.verify_false) == (1, 0, 0, 1)
    assert (bold.served_forged_verify_true, bold.next_open_refused, bold.other) == (0, 1, {})


def test_the_stored_run_says_what_the_journal_page_says() -> None:
    """docs/readme/journal.md states the outcome of the stored run in words; this holds it to the stored counts."""
    import json

    stored = Path(__file__).resolve().parents[2] / "results" / "benchmarks" / "snapshot_forgery.json"
    rows = json.loads(stored.read_text())["rows"]
    assert {(r["forger"], r["backend"], r["recompute"]) for r in rows} == {
        (f, b, c)
        for f in ("appends", "appends and rewrites the checkpoint")
        for b in ("jsonl", "sqlite")
        for c in (0, 1)
    }
    for r in rows:
        assert r["tried"] > 0 and r["served_forged_verify_true"] == 0 and r["other"] == {}, r
        assert r["next_open_refused"] == r["tried"], r
        if r["forger"] == "appends":
            assert r["refused_at_open"] == r["served_replay"] == r["tried"], r
        else:
            assert r["verify_false"] == r["tried"], r


def test_a_kept_head_refuses_a_snapshot_it_does_not_cover(tmp_path: Path) -> None:
    """The forger who rewrites the checkpoint too is refused at open when the user passes the head they kept."""
    path = tmp_path / "ks.jsonl"
    build(path, n=120)
    snapshot(path)
    with Journal(path, mode="r") as j:
        kept = str(j.head())  # kept after the honest snapshot: it covers that one
    with KnowledgeStore.open(path, journal_options={"expect_head": kept}) as ks:
        assert ks.opened_from_snapshot
        ks.close(snapshot=False)
    iid = forge(path, _letter, recompute=True, keep_heads=False)
    want = reference(path)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ks = KnowledgeStore.open(path, journal_options={"expect_head": kept})
    try:
        warned = [str(x.message) for x in w if issubclass(x.category, FoldSnapshotIgnored)]
        assert not ks.opened_from_snapshot and len(warned) == 1 and "not covered by the head you kept" in warned[0]
        assert ks.item(iid) == want["items"][iid] and ks.verify(head=kept)
    finally:
        ks.close(snapshot=False)
