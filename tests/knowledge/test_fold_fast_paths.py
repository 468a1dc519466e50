"""The full fold's shortcut gives exactly the fold's state (issue 42): the first item of a key admitted without the
contention steps (`Fold._admit_alone`).

Checked against the fold without it: the same journal folded with `_admit_alone` refusing every add (so every add
takes `_apply_add`), compared field by field — every item's slots (its history included), every key's live set,
side counts, questions and events, the three read indexes, the sums and the fingerprint. Contention decided in one
pass over a key's live set (`Fold._contend`) is checked by the whole suite's rules tests and the stateful oracle
(test_store_stateful.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from solvi_lab.errors import WriteRefused
from solvi_lab.journal import Record
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.knowledge.fold import Fold
from solvi_lab.knowledge.items import Item
from solvi_lab.knowledge.keys import _Key

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _state(f: Fold) -> dict[str, Any]:
    """The fold's state as plain comparable values."""
    return {
        "items": [tuple(repr(getattr(it, s)) for s in Item.__slots__) for it in f._items.values()],
        "keys": [
            (k, list(ks.live), dict(ks.sides), ks.disputed, repr(ks.questions), repr(ks.events), ks.item_ids)
            for k, ks in f._keys.items()
        ],
        "indexes": (dict(f._dependents), dict(f._successors), dict(f._by_subject)),
        "open": list(f._open_set),
        "question_keys": list(f._question_keys),
        "sums": (f._items_sum, f._keys_sum, f._flags_sum, f._present),
    }


def _folded(path: str) -> tuple[dict[str, Any], str]:
    """The journal at `path` opened (a full fold), its state with every pending digest settled, and its fingerprint."""
    ks = KnowledgeStore(path)
    fp = ks.fingerprint()
    ks._fold._flush_digests()
    state = _state(ks._fold)
    ks.journal.close()
    return state, fp


def _long_way(path: str, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], str]:
    """The journal folded with no first-item shortcut: every add through `_apply_add`."""
    with monkeypatch.context() as m:
        m.setattr(Fold, "_admit_alone", lambda self, ks, it, pos: False)
        return _folded(path)


def _adder(ks: KnowledgeStore):
    """ks.add, returning the id of a refused write too (its refusal is journaled: that is what the fold reads)."""

    def add(*args: Any, **kw: Any) -> str:
        try:
            return ks.add(*args, **kw)
        except WriteRefused as e:
            return e.item_id

    return add


def _busy(ks: KnowledgeStore) -> None:
    """Every add the shortcut must leave alone, and some it takes: premises refuted, retracted, missing and on the
    same key, versions, hypotheses, a refused source, a held rule, disputes, a resolution, a rollback, retractions."""
    add = _adder(ks)
    a = add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person", scope={"shop": "A"})
    b = add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="person", scope={"shop": "A"})
    add("fact", {"s": "c2", "r": "tier", "o": "gold"}, source="person")
    add("fact", {"s": "c2", "r": "tier", "o": "silver"}, source="person")
    ks.resolve(ks.disputes()[0]["question"], "vip", by="ann")
    c = add("fact", {"s": "c1", "r": "discount", "o": 20}, source="spec", derived_from=[b])
    add("fact", {"s": "c1", "r": "limit", "o": 5}, source="spec", derived_from=[a])  # a refuted premise
    add("fact", {"s": "c1", "r": "discount", "o": 30}, source="spec", derived_from=[c])  # its own premise's key
    v1 = add("fact", {"s": "c3", "r": "plan", "o": "basic"}, source="person")
    v2 = add("fact", {"s": "c3", "r": "plan", "o": "pro"}, source="person", supersedes=v1)
    add("fact", {"s": "c3", "r": "price", "o": 9}, source="spec", derived_from=[v2])
    ks.rollback(v2, by="ann", why="wrong plan")
    add("fact", {"s": "c5", "r": "tier", "o": "gold"}, source="person", hypothesis=True)
    add("rule", {"name": "greet"}, source="spec", hypothesis=True)
    add("skill", {"name": "wave"}, source="person")
    add("fact", {"s": "c6", "r": "tier", "o": "gold"}, source="verified", of="d-none")  # refused: no decision
    e = add("fact", {"s": "c7", "r": "tier", "o": "gold"}, source="outcome")
    add("fact", {"s": "c7", "r": "since", "o": 2020}, source="person", derived_from=[e])
    ks.retract(e, by="ann", why="wrong customer")
    add("fact", {"s": "c8", "r": "since", "o": 2021}, source="person", derived_from=[e])  # a retracted premise
    ks.tick(3)
    add("fact", {"s": "c9", "r": "tier", "o": "gold"}, source="spec", derived_from=[c, b])


def test_the_shortcuts_give_the_long_ways_state_on_a_busy_journal(tmp_path, monkeypatch):
    path = str(tmp_path / "busy.jsonl")
    ks = KnowledgeStore(path)
    _busy(ks)
    ks.journal.close()
    long_state, long_fp = _long_way(path, monkeypatch)
    short_state, short_fp = _folded(path)
    assert short_fp == long_fp
    assert short_state == long_state
    statuses = [row[Item.__slots__.index("state")] for row in short_state["items"]]
    # the journal holds what the shortcut must leave alone: refusals, retractions, refutations, hypotheses
    assert {"'refused'", "'retracted'", "'refuted'", "'hypothesis'", "'active'"} <= set(statuses)


@pytest.mark.parametrize("profile", ["default", "derived-keys", "hot-keys"])
def test_the_shortcuts_give_the_long_ways_state_on_each_benchmark_stream(tmp_path, monkeypatch, profile):
    sys.path.insert(0, str(BENCH))
    try:
        from store_scale import build

        path = str(tmp_path / f"{profile}.jsonl")
        ks, _, _ = build("solvi_lab", profile, 3_000, 5, path)
        ks.journal.close()
    finally:
        sys.path.remove(str(BENCH))
    long_state, long_fp = _long_way(path, monkeypatch)
    short_state, short_fp = _folded(path)
    assert short_fp == long_fp
    assert short_state == long_state


def _add(f: Fold, pos: int, key: str, o: Any = "gold", **extra: Any) -> None:
    payload = {"op": "add", "kind": "fact", "body": {"s": key, "r": "tier", "o": o}, "source": "person", "key": key}
    f._fold([Record(pos, "knowledge", {**payload, **extra}, "", "")])


def test_the_first_item_of_a_key_is_admitted_alone_with_the_long_ways_status_and_history():
    f = Fold()
    _add(f, 0, "a")
    _add(f, 1, "b", hypothesis=True)
    a, b = f._items["k0"], f._items["k1"]
    assert (a.state, a.hist, a.why) == ("active", (0, "active"), "admitted")
    assert (b.state, b.hist, b.why) == ("hypothesis", (1, "hypothesis"), "written as a hypothesis")
    assert list(f._keys["a"].live) == ["k0"] and f._keys["a"].sides == {"'gold'": 1}
    assert list(f._keys["b"].live) == ["k1"] and f._keys["b"].sides == {}  # a hypothesis takes no side


@pytest.mark.parametrize(
    "extra, why",
    [
        ({"derived_from": ["k9"]}, "premise k9 is missing"),
        ({"derived_from": ["k1"]}, "premise k1 was refuted"),
        ({"source": "nobody"}, "source 'nobody' is not one of"),
        ({"verdicts": [{"gate": "g", "admit": False, "reason": "no"}]}, "gate g: no"),
    ],
)
def test_an_add_the_shortcut_refuses_goes_the_long_way_and_says_why(extra, why):
    f = Fold()
    _add(f, 0, "a", o="gold", source="outcome")
    _add(f, 1, "a", o="vip")  # refuted by the outcome on its key
    assert f._items["k1"].state == "refuted"
    calls = []
    admit = Fold._admit_alone

    def spy(self: Fold, ks: _Key, it: Item, pos: int) -> bool:
        calls.append(admit(self, ks, it, pos))
        return calls[-1]

    f._admit_alone = spy.__get__(f)
    _add(f, 2, "fresh", **extra)
    it = f._items["k2"]
    assert calls == [False]
    assert it.state == "refused" and it.why.startswith(why)
    assert f._keys["fresh"].live == {} and f._keys["fresh"].sides == {}
