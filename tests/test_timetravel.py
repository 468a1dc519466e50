"""timetravel.diff: status changes between two journal positions, with why; clear errors for bad positions."""

from __future__ import annotations

import pytest

from solvi_lab.errors import BadInput, WriteRefused
from solvi_lab.explore.timetravel import DIFF_SCHEMA, diff, status_at
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore


def story() -> KnowledgeStore:
    ks = KnowledgeStore(journal=Journal())
    ks.add("fact", {"s": "acme", "r": "tier", "o": "regular"}, source="spec", by="handbook")  # 0
    ks.add("fact", {"s": "acme", "r": "tier", "o": "vip"}, source="person", by="crm")  # 1: refutes 0
    ks.add("fact", {"s": "acme", "r": "discount", "o": 20}, source="spec", derived_from=["k1"])  # 2
    ks.add("rule", {"name": "ship"}, source="spec", derived_from=["k2"])  # 3
    ks.add("fact", {"s": "acme", "r": "region", "o": "north"}, source="person", by="ann")  # 4
    ks.add("fact", {"s": "acme", "r": "region", "o": "south"}, source="person", by="bob")  # 5: dispute
    ks.retract("k1", by="ann", why="wrong customer")  # 6
    return ks


def test_across_a_retraction() -> None:
    ks = story()
    d = diff(ks, 6, 7)
    assert d.columns == list(DIFF_SCHEMA)
    assert d.select("id", "kind", "s", "r", "o", "from_status", "to_status", "why").rows() == [
        ("k0", "fact", "acme", "tier", "regular", "refuted", "active", "admitted"),
        ("k1", "fact", "acme", "tier", "vip", "active", "retracted", "retracted by ann: wrong customer"),
        ("k2", "fact", "acme", "discount", "20", "active", "retracted", "rests on k1, which was retracted"),
        ("k3", "rule", None, None, None, "active", "retracted", "rests on k2, which was retracted"),
    ]
    assert d["why_before"].to_list() == [
        "contradicted by k1 (person outranks spec)",
        "admitted",
        "admitted",
        "admitted",
    ]


def test_new_items_come_from_none() -> None:
    ks = story()
    d = diff(ks, 3, 6)
    assert d.select("id", "from_status", "to_status").rows() == [
        ("k3", None, "active"),
        ("k4", None, "disputed"),
        ("k5", None, "disputed"),
    ]
    assert d["why_before"].to_list() == [None, None, None]


def test_b_defaults_to_now_and_equal_positions_give_nothing() -> None:
    ks = story()
    assert diff(ks, 6).equals(diff(ks, 6, ks.journal.position))
    same = diff(ks, 4, 4)
    assert same.height == 0 and same.columns == list(DIFF_SCHEMA)
    assert diff(ks, 0, 0).height == 0


def test_matches_status_at_for_every_pair_of_positions() -> None:
    ks = story()
    end = ks.journal.position
    views = {p: ks.at(p) for p in range(end + 1)}
    for a in range(end + 1):
        for b in range(a, end + 1):
            expected = sorted(iid for iid in ks.view().ids() if status_at(views[a], iid) != status_at(views[b], iid))
            assert sorted(diff(ks, a, b)["id"].to_list()) == expected, (a, b)


def test_refused_writes_are_not_changes() -> None:
    ks = story()
    with pytest.raises(WriteRefused):  # the refusal is journaled at position 7, but k7 is never in the store
        ks.add("fact", {"s": "x", "r": "y", "o": 1}, source="model")
    assert "k7" not in diff(ks, 0)["id"].to_list()
    assert status_at(ks, "k7") is None


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (8, None, "a=8 is past the end of the journal: positions run 0..7"),
        (0, 8, "b=8 is past the end of the journal: positions run 0..7"),
        (-1, 3, "a=-1 is past the end of the journal"),
        (5, 2, "diff(a=5, b=2): a is after b; pass the earlier position first (diff(ks, 2, 5))."),
        ("3", 4, "a='3' is not a journal position; pass an int 0..7"),
        (True, 4, "a=True is not a journal position"),
        (0, 2.0, "b=2.0 is not a journal position"),
    ],
)
def test_bad_positions_are_refused_clearly(a: object, b: object, message: str) -> None:
    ks = story()
    with pytest.raises(BadInput) as e:
        diff(ks, a, b)  # type: ignore[arg-type]
    assert message in str(e.value)


def test_a_rebuilt_view_cannot_travel() -> None:
    view = story().at(3)
    with pytest.raises(BadInput, match="rebuilt read-only view; call it on the live store"):
        diff(view, 0, 1)
