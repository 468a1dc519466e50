"""A refusal names the argument and what it accepts, quotes at most a short prefix, and describes an argument whose
repr raises by its type (issue 25, 6)."""

import pytest

from solvi_lab.errors import BadInput, SolviLabError
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.risk import RiskBudget
from solvi_lab.validation import accepts, public_calls, safe_repr, value_problem, writing_call
from solvi_lab.worldmap import WorldMap


class ReprRaises:
    def __repr__(self):
        raise RuntimeError("no repr")

    __str__ = __repr__


def deep(n):
    v = "x"
    for _ in range(n):
        v = [v]
    return v


def test_a_deep_value_in_a_read_call_names_the_argument():
    m = WorldMap()
    with pytest.raises(BadInput) as e:
        m.claims(deep(1000))
    msg = str(e.value)
    assert msg.startswith("WorldMap.claims(): state must be a str, int, finite float or tuple of those or None, got ")
    assert "nothing was written" in msg and len(msg) < 400


def test_a_huge_int_in_a_constructor_names_the_argument():
    with pytest.raises(BadInput, match=r"^RiskBudget\(\): max_risk_per_episode must be a number, got an int of about"):
        RiskBudget(max_risk_per_episode=10**5000)


def test_an_argument_whose_repr_raises_is_described_by_its_type():
    ks = KnowledgeStore()
    with pytest.raises(BadInput) as e:
        ks.status(ReprRaises())
    assert "ReprRaises" in str(e.value) and "iid" in str(e.value)
    assert safe_repr(ReprRaises()) == "<a ReprRaises whose repr fails>"


def test_a_refusal_quotes_at_most_an_80_character_prefix():
    ks = KnowledgeStore()
    long = "y" * 200_000
    for call in (lambda: ks.status(long), lambda: ks.retract(long, by="ann", why="x"), lambda: ks.snapshot(r=[long])):
        with pytest.raises(SolviLabError) as e:
            call()
        msg = str(e.value)
        assert "y" * 81 not in msg and len(msg) < 1000, msg[:200]


def test_writing_call_names_the_argument_instead_of_a_generic_message():
    class Owner:
        journal = None

        @writing_call
        def put(self, name: str, n: int = 1):
            return {name: n}

    with pytest.raises(BadInput) as e:
        Owner().put(["a"])
    assert str(e.value).startswith("Owner.put(): name must be a string, got ['a'] (TypeError: unhashable type")
    assert "an argument has a wrong type or value" not in str(e.value)


def test_good_values_pass_and_a_callers_own_exception_is_not_hidden():
    """Negative cases: a good call is untouched, and an exception from the caller's own callback (not about an
    argument's value) propagates as it is."""

    @public_calls
    class Owner:
        journal = None

        def run(self, f):
            return f()

    assert Owner().run(lambda: 3) == 3

    def boom():
        raise ZeroDivisionError("the caller's bug")

    with pytest.raises(ZeroDivisionError, match="the caller's bug"):
        Owner().run(boom)


def test_value_problem_and_accepts():
    assert value_problem(deep(600)) == "a value nested more than 500 deep"
    assert value_problem(["a", {"k": ReprRaises()}]) == "a ReprRaises whose repr fails"
    assert value_problem({"a": [1, 2.5, "x"]}) is None
    assert accepts("dict[str, Any] | None") == "a dict or None"
    assert accepts("Callable[[Any], Any]") == "a callable"
