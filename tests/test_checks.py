"""Hard checks: refuse an answer over the given facts, fall back to `then`."""

import pytest

from solvi_lab.checks import HardCheck, apply_checks, install
from solvi_lab.errors import BadInput


def small(given, answer):
    return answer <= given["limit"]


def test_passing_answer_stands():
    assert apply_checks({"limit": 5}, 3, [HardCheck("small", small, then=0)]) == (3, None)


def test_refused_answer_becomes_the_fallback_and_names_the_check():
    assert apply_checks({"limit": 5}, 9, [HardCheck("small", small, then=0)]) == (0, "small")


def test_first_refusing_check_wins_and_its_fallback_is_not_rechecked():
    checks = [
        HardCheck("never", lambda g, a: False, then="first"),
        HardCheck("also_never", lambda g, a: False, then="second"),
    ]
    assert apply_checks({}, "x", checks) == ("first", "never")


def test_no_checks_and_a_single_check():
    assert apply_checks({}, "x", []) == ("x", None)
    assert apply_checks({}, "x", HardCheck("no", lambda g, a: False, then="y")) == ("y", "no")


def test_dict_fallback_replaces_the_whole_answer():
    check = HardCheck("no_dig", lambda g, a: a["plan"] != "dig", then={"plan": "ask_person"})
    assert apply_checks({}, {"plan": "dig", "extra": 1}, [check]) == ({"plan": "ask_person"}, "no_dig")


def test_bad_checks_are_refused_with_clear_messages():
    with pytest.raises(BadInput, match="non-empty string name"):
        HardCheck("", small)
    with pytest.raises(BadInput, match="callable"):
        HardCheck("x", "not a function")
    with pytest.raises(BadInput, match="HardCheck objects"):
        apply_checks({}, 1, [small])
    with pytest.raises(BadInput, match="returned None"):
        apply_checks({}, 1, [HardCheck("forgot", lambda g, a: None)])


def test_install_into_a_list_or_a_catalog():
    checks: list = []
    c = install(checks, HardCheck("a", small))
    assert checks == [c]
    with pytest.raises(BadInput, match="already installed"):
        install(checks, HardCheck("a", small))

    class Catalog:
        def __init__(self):
            self.checks = []

    cat = Catalog()
    install(cat, HardCheck("b", small))
    assert [x.name for x in cat.checks] == ["b"]
    with pytest.raises(BadInput, match="cannot install"):
        install(object(), HardCheck("c", small))
