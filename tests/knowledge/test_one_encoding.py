"""One encoding per write (issue 27, point 2): ks.add encodes the caller's body once, and the record it appends is
exactly the record `Journal.append` would have made of the same payload (text, hash chain, value)."""

from __future__ import annotations

import pytest

from solvi_lab.errors import BadInput, WriteRefused
from solvi_lab.journal import Journal, canonical
from solvi_lab.knowledge import KnowledgeStore, Verdict, WriteGate


class CountingDict(dict):
    """A body that counts how often it is encoded: the C encoder asks a dict subclass for its items()."""

    encoded = 0

    def items(self):  # type: ignore[override]
        CountingDict.encoded += 1
        return super().items()


class Measuring(WriteGate):
    """A gate that builds the shadow (the store as it would be with the candidate) and holds what it sees."""

    name = "measuring"

    def __init__(self) -> None:
        self.seen: list = []

    def admit(self, store, item, shadow):
        sh = shadow.store()
        self.seen.append((item.body, sh.fingerprint() != store.fingerprint()))
        return Verdict(item.kind != "rule", "rules wait for a person", {"n": len(sh)})


def test_the_body_is_encoded_once_per_add_even_with_a_gate_that_builds_the_shadow() -> None:
    gate = Measuring()
    ks = KnowledgeStore(gates=[gate])
    CountingDict.encoded = 0
    iid = ks.add("fact", CountingDict(s="c1", r="tier", o=("vip", 1)), source="person")
    assert CountingDict.encoded == 1
    assert ks.item(iid)["body"] == {"s": "c1", "r": "tier", "o": ["vip", 1]}
    # the gate was shown the canonical form (a list, not the caller's tuple) and its shadow held the item
    assert gate.seen == [({"s": "c1", "r": "tier", "o": ["vip", 1]}, True)]


def _ops(ks: KnowledgeStore) -> None:
    a = ks.add("fact", {"s": "c1", "r": "tier", "o": ("vip", 1.5)}, source="person", by={"who": "ann"})
    ks.add("fact", {"s": "c1", "r": "tier", "o": 'é \u2028 "q"'}, source="spec", scope={"map": "A", "b": [1]})
    b = ks.add(
        "fact",
        {"s": 7, "r": "owner", "o": None},
        source="outcome",
        derived_from=[a],
        evidence=[{"x": -0.0}],
        valid=(None, "2027-01-01"),
        reconfirm_after=3,
    )
    ks.add("fact", {"s": "c2", "r": "tier", "o": 1}, source="person", hypothesis=True, reconfirm_after=None)
    with pytest.raises(WriteRefused):
        ks.add("fact", {"s": "c3", "r": "tier", "o": 2}, source="person", derived_from=["k99"])
    with pytest.raises(WriteRefused):
        ks.add("fact", {"s": "c3", "r": "tier", "o": 2}, source="model")
    r1 = ks.add("rule", {"name": "greet", "when": ["a"]}, source="spec")
    ks.add("rule", {"name": "greet", "when": ["b"]}, source="spec", supersedes=r1)
    ks.add("episode", [1, 2, 3], source="outcome")
    ks.retract(b, by="t", why="test")


@pytest.mark.parametrize("gates", [(), (Measuring(),)])
def test_each_add_record_is_what_journal_append_makes_of_its_payload(gates) -> None:
    ks = KnowledgeStore(gates=list(gates))
    _ops(ks)
    again = Journal()
    for r in ks.journal:
        rec = again.append(r.kind, r.payload)
        assert rec.hash == r.hash and rec.payload == r.payload, r.position
        assert list(r.payload) == sorted(r.payload)  # the value's keys in canonical order, as a reload gives them
        assert canonical(r.payload) == canonical(rec.payload)
    assert again.head() == ks.journal.head()
    assert KnowledgeStore.from_journal(ks.journal).fingerprint() == ks.fingerprint()
    if gates:
        assert any(r.payload.get("verdicts") for r in ks.journal)


def test_a_body_that_is_not_json_is_refused_by_name_and_nothing_is_written() -> None:
    ks = KnowledgeStore()
    for body, bad in (({"s": "c", "r": "t", "o": {1, 2}}, "body"), ({"s": "c", "r": "t", "o": float("nan")}, "body")):
        with pytest.raises(BadInput, match=f"^{bad} must be a JSON value"):
            ks.add("fact", body, source="person")
    with pytest.raises(BadInput, match="^by must be a JSON value"):
        ks.add("fact", {"s": "c", "r": "t", "o": 1}, source="person", by=object())
    with pytest.raises(BadInput, match="valid must be"):
        ks.add("fact", {"s": "c", "r": "t", "o": 1}, source="person", valid=[1, 2, 3])
    with pytest.raises(BadInput, match="^reconfirm_after must be a JSON value"):
        ks.add("fact", {"s": "c", "r": "t", "o": 1}, source="person", reconfirm_after=10**5000)
    assert ks.journal.position == 0


def test_a_gate_whose_verdict_is_not_json_writes_nothing() -> None:
    class Odd(WriteGate):
        name = "odd"

        def admit(self, store, item, shadow):
            return Verdict(True, "ok", {"set": {1}})

    ks = KnowledgeStore(gates=[Odd()])
    with pytest.raises(BadInput, match="^the gates' verdicts must be a JSON value"):
        ks.add("fact", {"s": "c", "r": "t", "o": 1}, source="person")
    assert ks.journal.position == 0
