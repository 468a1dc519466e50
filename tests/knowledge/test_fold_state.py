"""The fold state is an explicit, enumerable set of fields (issue 27): `Fold.FIELDS` is exactly what the fold sets,
a store holds the fold as a value (`ks._fold`) and nothing else of it, and the fold runs on its own — records in, state out, no journal."""

from __future__ import annotations

from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.knowledge.digests import fingerprint
from solvi_lab.knowledge.fold import Fold


def _busy() -> KnowledgeStore:
    ks = KnowledgeStore()
    a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
    b = ks.add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="person")  # a dispute
    ks.resolve(ks.disputes()[0]["question"], "vip", by="ann")
    c = ks.add("fact", {"s": "c1", "r": "discount", "o": 20}, source="spec", derived_from=[b])
    ks.flag(ids=[c], why="drift")
    ks.tick(3)
    ks.retract(b, by="ann", why="wrong")
    ks.add("rule", {"name": "greet"}, source="spec", hypothesis=True)
    assert ks.status(a) == "active"
    return ks


def test_fold_fields_are_exactly_what_the_fold_sets() -> None:
    assert len(set(Fold.FIELDS)) == len(Fold.FIELDS)
    assert set(vars(Fold())) == set(Fold.FIELDS)


def test_a_store_holds_its_fold_and_only_its_own_wiring_besides() -> None:
    # Issue 41: the fold is a value the store holds (ks._fold), not a base class; the store keeps none of its fields.
    ks = _busy()
    ks.snapshot(about="c1")  # builds snapshot's name index beside the fold, in the store
    assert isinstance(ks._fold, Fold) and not isinstance(ks, Fold)
    assert set(vars(ks._fold)) == set(Fold.FIELDS) | {"_folded"}  # the fields, and the count of records folded
    assert set(vars(ks)) == {"_fold", "journal", "gates", "decisions", "_names_index", "_read_sums"}
    assert not set(vars(ks)) & set(Fold.FIELDS)


def test_the_fold_alone_folds_the_records_to_the_store_s_state() -> None:
    ks = _busy()
    f = Fold()
    f._fold(ks.journal.records())
    assert fingerprint(f) == ks.fingerprint()
    assert {i: it.fold_state() for i, it in f._items.items()} == {i: it.fold_state() for i, it in ks._fold._items.items()}
    assert (f.position, f.ticks, f._retracted) == (ks.position, ks.ticks, ks._fold._retracted)
