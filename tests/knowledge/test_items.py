"""Item's fold state: what a checkpoint keeps is exactly what a re-fold puts back, field by field."""

from solvi_lab.knowledge.items import FOLD_FIELDS, Item


def _item() -> Item:
    return Item(3, {"kind": "fact", "body": {"s": "c1", "r": "tier", "o": "gold"}, "source": "person"}, "key", 0)


def test_set_fold_state_puts_back_every_field_in_fold_fields_order():
    it = _item()
    values = tuple(f"v{i}" for i in range(len(FOLD_FIELDS)))
    it.set_fold_state(values)
    assert {name: getattr(it, name) for name in FOLD_FIELDS} == dict(zip(FOLD_FIELDS, values))
    assert it.fold_state() == values


def test_fold_state_round_trip_and_wrong_length_refused():
    it = _item()
    before = it.fold_state()
    assert before[:2] == (None, "") and before[FOLD_FIELDS.index("confirmed_pos")] == 3
    other = _item()
    other.set_fold_state(before)
    assert other.fold_state() == before
    try:
        other.set_fold_state(before[:-1])
    except ValueError as e:
        assert "not enough values" in str(e)
    else:
        raise AssertionError("a short fold state was accepted")


def test_new_item_fields_as_the_fold_expects():
    it = Item(7, {"kind": "fact", "body": {"s": 1, "r": "r", "o": [1, 2]}, "source": "verified"}, "k", 5)
    assert (it.id, it.value, it.subject, it.clock_rule, it.confirmed_clock) == ("k7", "[1, 2]", "1", 2000, 5)
    rule = Item(8, {"kind": "rule", "body": {"name": "x"}, "source": "spec", "reconfirm_after": 9}, "k", 0)
    assert (rule.value, rule.subject, rule.clock_rule, rule.derived_from, rule.hist) == (None, None, 9, (), ())
    odd = Item(9, {"kind": "fact", "body": "not a dict", "source": "person"}, "k", 0)
    assert (odd.value, odd.subject, odd.body) == (None, None, "not a dict")
