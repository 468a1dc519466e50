"""Objects show themselves in Jupyter: a short `__repr__` and a small `_repr_html_` for the store, an item's record,
a Prediction, a snapshot, the agenda, a world map and an episode — exact substrings, size bounds, and showing a
store changes nothing in it. `report()` counts one set of items; `KnowledgeStore.open(path, fresh=True)`."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from solvi_lab import display
from solvi_lab.agenda import Agenda
from solvi_lab.episodes import Episode
from solvi_lab.errors import BadInput, WriteRefused
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.prediction import Prediction
from solvi_lab.worldmap import WorldMap

MAX_HTML = 4_000  # characters: a card stays small whatever the object holds


def _text(card: str) -> str:
    """The card's visible text, cells separated by " | "."""
    return html.unescape(re.sub(r"\s*\|\s*(\|\s*)+", " | ", re.sub(r"<[^>]+>", " | ", card))).strip(" |")


def _store(tmp_path: Path, n: int = 30) -> tuple[KnowledgeStore, dict[str, str]]:
    ks = KnowledgeStore.open(tmp_path / "mine.jsonl")
    ids = {"vip": ks.add("fact", {"s": "c17", "r": "tier", "o": "vip"}, source="person", by="ana")}
    ids["gold"] = ks.add("fact", {"s": "c17", "r": "tier", "o": "gold"}, source="outcome")
    ids["rule"] = ks.add("rule", {"name": "refund", "when": "delivered"}, source="spec")
    for i in range(n):
        ks.add("fact", {"s": f"c{i}", "r": "seen", "o": i}, source="outcome")
    ids["gone"] = ks.add("fact", {"s": "x", "r": "y", "o": 1}, source="person")
    ks.retract(ids["gone"], by="ana", why="typed by mistake")
    return ks, ids


def test_the_store_shows_where_it_is_its_items_disputes_fingerprint_and_last_verify(tmp_path: Path) -> None:
    ks, _ = _store(tmp_path)
    with ks:
        r = ks.report()
        assert repr(ks) == (
            f"<KnowledgeStore {tmp_path / 'mine.jsonl'} · position {r['position']} · 34 items: active 32, "
            "refuted 1, retracted 1 · 0 open disputes>"
        )
        card = ks._repr_html_()
        text = _text(card)
        # a long temporary folder (pytest-xdist's worker folders, a long TMPDIR) is cut as every card value is
        assert f"journal | {display.short(str(tmp_path / 'mine.jsonl'))}" in text
        assert f"position | {r['position']}" in text
        assert "items | 34: active 32, refuted 1, retracted 1" in text
        assert "by kind | fact 33, rule 1" in text and "by source | outcome 31, person 2, spec 1" in text
        assert "open disputes | 0" in text and f"fingerprint | {r['fingerprint'][:16]}…" in text
        assert "last verify | not run on this object (ks.verify())" in text
        assert ks.verify()
        assert f"last verify | ok at position {ks.position}" in _text(ks._repr_html_())
        assert len(card) < MAX_HTML


def test_showing_a_store_changes_nothing(tmp_path: Path) -> None:
    ks, _ = _store(tmp_path)
    with ks:
        before = (ks.state(), len(ks.journal), (tmp_path / "mine.jsonl").read_bytes())
        for _ in range(2):
            repr(ks), ks._repr_html_(), str(ks)
        assert (ks.state(), len(ks.journal), (tmp_path / "mine.jsonl").read_bytes()) == before


def test_a_store_of_many_items_has_a_card_of_the_same_size(tmp_path: Path) -> None:
    small, _ = _store(tmp_path / "a", n=3)
    big, _ = _store(tmp_path / "b", n=2_000)
    with small, big:
        assert abs(len(big._repr_html_()) - len(small._repr_html_())) < 100
        # the repr names the journal's path whole; besides it, a short line whatever the number of items
        assert len(repr(big)) - len(str(big.journal.path)) < 120


def test_an_item_record_is_the_same_dict_and_a_small_card(tmp_path: Path) -> None:
    ks, ids = _store(tmp_path, n=1)
    with ks:
        record = ks.item(ids["vip"])
        assert isinstance(record, dict) and record == dict(record) and record["status"] == "refuted"
        text = _text(record._repr_html_())
        assert text.startswith(f"item {ids['vip']} · fact · refuted")
        assert "body | c17 tier vip" in text and "source | person (by ana)" in text
        assert f"why | contradicted by observation {ids['gold']}" in text
        assert "counts | 0 confirmations, 1 refutations, 0 uses (0 wrong)" in text
        gone = _text(ks.item(ids["gone"])._repr_html_())
        assert "retracted | at position" in gone and "by ana: typed by mistake" in gone
        assert len(record._repr_html_()) < MAX_HTML


def test_a_snapshot_is_the_same_dict_and_lists_a_few_facts_and_hints(tmp_path: Path) -> None:
    ks, ids = _store(tmp_path, n=20)
    with ks:
        snap = ks.snapshot()
        assert isinstance(snap, dict) and set(snap) == {
            "query",
            "facts",
            "hints",
            "rests_on",
            "fingerprint",
            "position",
        }
        text = _text(snap._repr_html_())
        assert text.startswith(f"snapshot at position {ks.position}")
        assert f"facts | {len(snap['facts'])} usable" in text
        assert f"hints | {len(snap['hints'])} (" in text and f"rests on | {len(snap['rests_on'])} items" in text
        shown = [ln for ln in text.split(" | ") if ln.startswith(("fact k", "hint k"))]
        assert len(shown) == display.MAX_LIST
        assert f"… {len(snap['facts']) + len(snap['hints']) - display.MAX_LIST} more" in text
        about = _text(ks.snapshot(about="c17")._repr_html_())
        assert (
            about.startswith(f"snapshot at position {ks.position} about c17")
            and f"fact {ids['gold']}: c17 tier gold" in about
        )


def test_report_counts_one_set_of_items(tmp_path: Path) -> None:
    ks, _ = _store(tmp_path, n=5)
    with ks:
        with pytest.raises(WriteRefused):  # journaled with its refusal: counted apart
            ks.add("fact", {"s": "c3", "r": "tier", "o": 2}, source="model")
        r = ks.report()
        assert r["refused_writes"] == 1 and r["by_status"].get("retracted") == 1
        assert r["items"] == sum(r["by_status"].values()) == sum(r["by_kind"].values()) == sum(r["by_source"].values())
        assert r["present"] == len(ks) == r["items"] - r["by_status"].get("retracted", 0)
        assert r["counted"] == "every item written and admitted, retracted ones included; refused writes apart"


def test_a_prediction_shows_verdict_risk_support_and_reason() -> None:
    p = Prediction("refuse", risk=0.75, support=4, reason="status was never 'delivered' when accepted", hard=True)
    text = _text(p._repr_html_())
    assert text == (
        "Prediction: refuse (hard) | verdict | refuse (hard) | risk | 0.75 | support | 4 cases | reason | "
        "status was never 'delivered' when accepted"
    )
    assert "effects | nothing changes" in _text(Prediction("accept", effects={})._repr_html_())


def test_the_agenda_shows_its_goals_and_gates() -> None:
    ag = Agenda(None)
    ag.goal("paid", done=lambda s: s.get("paid", False))
    ag.goal("shipped", done=lambda s: s.get("shipped", False), requires=["paid"])
    ag.gate("fraud", check=lambda s: not s.get("flagged", False), blocks=["shipped"])
    ag.update({"paid": True})
    assert repr(ag) == "<Agenda scope=None · 2 goals (1 done) · 1 gates (0 overridden)>"
    text = _text(ag._repr_html_())
    assert "goal paid | done" in text and "goal shipped | not done · requires paid" in text
    assert "gate fraud | blocks shipped" in text


def test_a_world_map_shows_its_claims_by_status() -> None:
    m = WorldMap()
    m.see("/", "Billing", "/billing")
    m.see("/", "Help")
    m.arrive("/", "Billing", "/billing")
    text = _text(m._repr_html_())
    assert text.startswith("WorldMap ")
    assert "claims | 2: confirmed 1, hypothesis 1" in text
    assert "confirmed: / —Billing→ /billing (seen) | hypothesis: / —Help→ ? (seen)" in text
    assert len(m._repr_html_()) < MAX_HTML


def test_an_episode_shows_its_events_and_facts() -> None:
    ep = Episode("ticket 4411")
    for k in range(8):
        ep.note("act", ["go", k])
    ep.fact("door", "open")
    assert repr(ep) == "<Episode 'ticket 4411' · 9 events: act 8, fact 1>"
    text = _text(ep._repr_html_())
    assert 'events | 9: act 8, fact 1 | facts | {"door": "open"}' in text
    assert "fact door = open" in text and "… 4 more" in text


def test_open_fresh_starts_the_journal_again_and_open_appends(tmp_path: Path) -> None:
    for name in ("mine.jsonl", "mine.sqlite"):
        path = tmp_path / name
        for _ in range(2):  # Restart & Run All, twice
            with KnowledgeStore.open(path, fresh=True) as ks:
                ks.add("fact", {"s": "a", "r": "b", "o": 1}, source="person")
                ks.write_snapshot()
            with KnowledgeStore.open(path) as again:
                assert len(again) == 1 and again.position == 2  # the add and the snapshot's record
        with KnowledgeStore.open(path) as appended:
            appended.add("fact", {"s": "a", "r": "c", "o": 2}, source="person")
        with KnowledgeStore.open(path) as ks:
            assert len(ks) == 2
    with pytest.raises(BadInput, match="is a directory, not a journal file"):
        KnowledgeStore.open(tmp_path, fresh=True)
