"""The store's read-only view, the gates' shadow built from add()'s payload, and verify() that only reports."""

from __future__ import annotations

import dataclasses

import pytest

from solvi_lab.errors import UnknownId
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.knowledge.gates import Verdict, WriteGate


def test_view_records_speak_the_specification_and_are_frozen() -> None:
    ks = KnowledgeStore()
    a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person", by="ana", valid=[1, 5])
    b = ks.add("fact", {"s": "c1", "r": "tier", "o": "silver"}, source="spec")
    c = ks.add("fact", {"s": "c1", "r": "segment", "o": "vip"}, source="spec", derived_from=[a])
    v = ks.view()
    rec = v.record(a)
    assert (rec.who, rec.learned_at, rec.valid, rec.status, rec.present) == ("ana", 0, (1, 5), "active", True)
    assert not hasattr(rec, "by") and not hasattr(rec, "state")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.status = "retracted"  # type: ignore[misc]
    assert v.dependents_of(a) == (c,) and v.premises_of(c) == (a,) and v.premises_of(a) == ()
    assert v.competitors_of(a) == (b,) and v.competitors_of(b) == (a,) and v.competitors_of(c) == ()
    assert list(v.ids()) == [a, b, c] and len(v) == 3 and v.on_key(rec.key) == (a, b)
    assert [v.status(i) for i in (a, b, c)] == [ks.status(i) for i in (a, b, c)]
    ks.retract(a, by="ann", why="wrong customer")
    assert v.status(a) == v.status(c) == "retracted" and not v.present(c)  # the view follows the store
    assert v.retraction(a)["by"] == "ann" and v.retraction(c) is None
    with pytest.raises(UnknownId):
        v.record("k99")


def test_view_flags() -> None:
    ks = KnowledgeStore()
    ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
    f = ks.flag({"map": "A"}, why="drift")
    v = ks.view()
    assert v.flags() == (f,) and v.pending_flags() == (f,) and v.flag_pending(f)
    ks.end_flag(f, by="ann", why="checked")
    assert v.pending_flags() == () and not v.flag_pending(f)
    with pytest.raises(UnknownId):
        v.flag_pending("nope")


class _Peek(WriteGate):
    name = "peek"

    def __init__(self) -> None:
        self.seen: list[dict] = []

    def admit(self, store, item, shadow) -> Verdict:
        sh = shadow.store()
        last = list(sh.view().ids())[-1]
        self.seen.append(sh.item(last))
        return Verdict(True, "looked")


def test_shadow_folds_the_payload_add_writes() -> None:
    gate = _Peek()
    ks = KnowledgeStore(gates=[gate])
    r1 = ks.add("rule", {"name": "r"}, source="spec")
    r2 = ks.add(
        "rule",
        {"name": "r"},
        source="spec",
        supersedes=r1,
        hypothesis=True,
        valid=[0, 9],
        reconfirm_after=3,
        evidence={"run": 1},
    )
    shadowed = gate.seen[-1]
    real = ks.item(r2)
    for field in ("kind", "body", "source", "status", "valid", "evidence", "supersedes", "version", "clock"):
        assert shadowed[field] == real[field], field
    assert shadowed["status"] == "hypothesis" and shadowed["clock"]["reconfirm_after"] == 3


def test_verify_reports_without_replacing_the_live_state() -> None:
    ks = KnowledgeStore()
    a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
    assert ks.verify()
    ks._fold._items[a].state = "refuted"  # damage the live fold state behind the journal's back
    ks._fold._touch(ks._fold._items[a])
    report = ks.verify()
    assert not report and "live store is unchanged" in report.problem
    assert ks.status(a) == "refuted"  # verify() reported; it did not swap in the replay
