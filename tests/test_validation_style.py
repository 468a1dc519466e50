"""One validation style (issue 14): a bool is never a count, and every seed is checked.

The drift the issue names: the retraction study's operation stream accepted True for a count and never checked its
seed. Studies check their parameters through `PARAMS.check`; helpers below them through `validation.need_int`.
"""

import pytest

from solvi_lab.errors import BadInput, BadParameter
from solvi_lab.studies import crafting, dungeon, explore, retraction
from solvi_lab.studies.synthetic import iter_operations, operation_stream
from solvi_lab.validation import need_int


@pytest.mark.parametrize("value", [True, False])
def test_need_int_never_takes_a_bool(value):
    with pytest.raises(BadInput, match=f"n must be an int, got {value}"):
        need_int("n", value)


def test_need_int_raises_the_class_asked_for_with_the_hint():
    with pytest.raises(BadParameter, match=r"^k must be an int ≥ 1, got 0; e\.g\. k=3\.$"):
        need_int("k", 0, min=1, error=BadParameter, hint="e.g. k=3")
    assert need_int("k", 3, min=1) == 3


def test_retraction_stream_refuses_true_for_a_count():
    with pytest.raises(BadParameter, match="n_items must be an int ≥ 1, got True"):
        operation_stream(True)
    with pytest.raises(BadParameter, match="n_items"):
        list(iter_operations(True, 0))


@pytest.mark.parametrize("seed", [True, "0", 1.5, None])
def test_retraction_stream_checks_its_seed(seed):
    with pytest.raises(BadParameter, match="seed must be an int"):
        operation_stream(10, seed=seed)


@pytest.mark.parametrize("kwargs", [{"n_items": True}, {"n_retractions": True}, {"seed": True}, {"seed": "0"}])
def test_retraction_run_refuses_bools_and_bad_seeds(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(BadParameter, match=f"parameter {name} got"):
        retraction.run(**{"n_items": 100, "n_retractions": 5, **kwargs}, progress=False)


@pytest.mark.parametrize(
    ("run", "kwargs"),
    [
        (crafting.run, {"streams": True, "progress": False}),
        (crafting.run, {"seed": False, "progress": False}),
        (dungeon.run, {"games": True, "progress": False}),
        (dungeon.run, {"seed": True, "progress": False}),
        (explore.run, {"n_items": True}),
        (explore.run, {"seed": True}),
        (explore.build_store, {"n_items": True}),
    ],
)
def test_studies_refuse_a_bool_through_their_params(run, kwargs):
    name = next(k for k in kwargs if k != "progress")
    with pytest.raises(BadParameter, match=f"parameter {name} got"):
        run(**kwargs)
