"""Failure memory: window expiry, max_blocked, min_open, the hard check and replay from the journal."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvi_lab.checks import apply_checks
from solvi_lab.decisions import DecisionLog
from solvi_lab.errors import BadInput
from solvi_lab.failures import FailureMemory
from solvi_lab.journal import Journal


def blocked_plans(fm, options=None):
    return [v["plan"] for v in fm.given(options=options)["recent_failures"].values()]


def test_failure_blocks_for_exactly_window_steps_then_expires():
    fm = FailureMemory(window=3)
    fm.failed("open door", why="stayed shut")
    for _ in range(2):
        fm.step()
        assert blocked_plans(fm) == ["open door"]
    fm.step()  # the third step: age 3 == window
    assert blocked_plans(fm) == []


def test_given_fact_has_plan_why_and_age():
    fm = FailureMemory(window=5)
    fm.failed("dig", why="too hard")
    fm.step()
    assert fm.given() == {"recent_failures": {'"dig"': {"plan": "dig", "why": "too hard", "age": 1}}}


def test_a_new_failure_restarts_the_window():
    fm = FailureMemory(window=2)
    fm.failed("a", why="1")
    fm.step()
    fm.failed("a", why="2")
    fm.step()
    assert fm.given()["recent_failures"]['"a"'] == {"plan": "a", "why": "2", "age": 1}
    fm.step()
    assert blocked_plans(fm) == []


def test_success_is_evidence_that_reopens_the_plan():
    fm = FailureMemory()
    fm.failed("a", why="no")
    fm.succeeded("a")
    assert blocked_plans(fm) == []
    fm.succeeded("never failed")  # harmless
    assert blocked_plans(fm) == []


def test_at_most_max_blocked_the_oldest_is_evicted():
    fm = FailureMemory(window=100, max_blocked=2)
    for p in ["a", "b", "c"]:
        fm.failed(p, why="no")
    assert blocked_plans(fm) == ["b", "c"]
    fm.failed("b", why="again")  # refreshed: now the newest
    fm.failed("d", why="no")
    assert blocked_plans(fm) == ["b", "d"]


def test_min_open_releases_the_oldest_failed_among_the_offered():
    fm = FailureMemory(window=100, min_open=1)
    for p in ["c", "a", "b"]:
        fm.failed(p, why="no")
    # all three offered and blocked: the oldest-failed offered one ("c") is released
    assert sorted(blocked_plans(fm, options=["a", "b", "c"])) == ["a", "b"]
    # an unblocked plan on offer already keeps one open: nothing is released
    assert sorted(blocked_plans(fm, options=["a", "b", "free"])) == ["a", "b"]
    # only the offered plans are in the fact
    assert blocked_plans(fm, options=["a"]) == []  # the only offer is released
    assert blocked_plans(fm, options=["a", "b"]) == ["b"]
    # the memory itself is unchanged by a view
    assert blocked_plans(fm) == ["c", "a", "b"]


def test_min_open_two_and_zero():
    fm = FailureMemory(window=100, min_open=2)
    for p in ["a", "b", "c"]:
        fm.failed(p, why="no")
    assert blocked_plans(fm, options=["a", "b", "c"]) == ["c"]
    assert blocked_plans(fm, options=["a"]) == []  # min_open is capped by what is on offer
    strict = FailureMemory(window=100, min_open=0)
    strict.failed("a", why="no")
    assert blocked_plans(strict, options=["a"]) == ["a"]


def test_options_may_be_a_dict_of_plans_to_actions():
    fm = FailureMemory(min_open=0)
    fm.failed("a", why="no")
    assert blocked_plans(fm, options={"a": "do a", "b": "do b"}) == ["a"]


def test_unit_episodes():
    fm = FailureMemory(window=1, unit="episodes")
    fm.failed("a", why="no")
    with pytest.raises(BadInput, match="end_episode"):
        fm.step()
    fm.end_episode()
    assert blocked_plans(fm) == []
    with pytest.raises(BadInput, match="step()"):
        FailureMemory().end_episode()


def test_plans_are_json_with_canonical_keys_no_collisions():
    fm = FailureMemory(window=10, min_open=0)
    fm.failed(1, why="int")
    assert blocked_plans(fm, options=["1"]) == []  # the string "1" is another plan
    assert blocked_plans(fm, options=[1]) == [1]
    fm.failed(("go", 3), why="tuple")
    assert blocked_plans(fm, options=[["go", 3]]) == [["go", 3]]  # a tuple is kept as its JSON list
    fm.failed({"b": 1, "a": 2}, why="dict")
    assert blocked_plans(fm, options=[{"a": 2, "b": 1}]) == [{"a": 2, "b": 1}]
    with pytest.raises(BadInput, match="JSON value"):
        fm.failed({1, 2}, why="a set")
    with pytest.raises(BadInput, match="JSON value"):
        fm.failed(float("nan"))


def test_install_refuses_a_recent_failure_and_names_the_fallback():
    fm = FailureMemory(min_open=0)
    checks: list = []
    check = fm.install(checks, plan="plan", then={"plan": "ask_person"})
    assert checks == [check] and check.name == "recent_failures"
    fm.failed("dig", why="too hard")
    given = {"situation": "cave", **fm.given(options=["dig", "walk"])}
    assert apply_checks(given, {"plan": "dig"}, checks) == ({"plan": "ask_person"}, "recent_failures")
    assert apply_checks(given, {"plan": "walk"}, checks) == ({"plan": "walk"}, None)


def test_the_check_is_a_pure_function_of_the_given_facts_so_the_decision_replays():
    fm = FailureMemory(min_open=0)
    checks: list = []
    fm.install(checks, plan=None, then="ask_person")
    fm.failed("dig", why="too hard")
    log = DecisionLog(Journal())

    def decide(given):
        return apply_checks(given, "dig", checks)[0]

    d = log.ask("act", decide, fm.given(options=["dig", "walk"]), answered_by="rule")
    assert d.answer == "ask_person"
    fm.succeeded("dig")  # the live memory changed; the recorded decision still replays
    assert log.rerun(d.id, decide).same


def test_the_check_is_loud_when_its_fact_or_field_is_missing():
    fm = FailureMemory()
    checks: list = []
    fm.install(checks)
    with pytest.raises(BadInput, match="not given the fact 'recent_failures'"):
        apply_checks({}, {"plan": "x"}, checks)
    with pytest.raises(BadInput, match="no field 'plan'"):
        apply_checks(fm.given(), {"action": "x"}, checks)
    with pytest.raises(BadInput, match="plan must name"):
        fm.install([], plan=3)


def test_bad_parameters():
    for kwargs, match in [
        ({"window": 0}, "window"),
        ({"unit": "days"}, "unit"),
        ({"max_blocked": 0}, "max_blocked"),
        ({"min_open": -1}, "min_open"),
        ({"window": 2.5}, "window"),
    ]:
        with pytest.raises(BadInput, match=match):
            FailureMemory(**kwargs)
    with pytest.raises(BadInput, match="why must be a string"):
        FailureMemory().failed("a", why=3)
    with pytest.raises(BadInput, match="options must be a list"):
        FailureMemory().given(options="a")


def test_replay_equals_live_and_continues_the_journal(tmp_path):
    j = Journal(tmp_path / "f.jsonl")
    fm = FailureMemory(window=3, max_blocked=2, journal=j)
    fm.failed("a", why="x")
    fm.step()
    fm.failed(["b", 1], why="y")
    fm.failed("c", why="z")
    fm.succeeded("c")
    fm.step()
    again = FailureMemory.from_journal(j)
    assert again == fm and again.state() == fm.state()
    again.step()  # the replayed memory goes on writing to the same journal
    again.failed("d", why="w")
    assert FailureMemory.from_journal(j) == again
    j.close()
    reloaded = Journal(tmp_path / "f.jsonl")
    assert FailureMemory.from_journal(reloaded).state() == again.state()


def test_two_memories_in_one_journal_and_replay_errors():
    j = Journal()
    a = FailureMemory(journal=j, name="a")
    b = FailureMemory(window=2, journal=j, name="b")
    a.failed("x", why="1")
    b.failed("y", why="2")
    assert FailureMemory.from_journal(j, name="a") == a and FailureMemory.from_journal(j, name="b") == b
    with pytest.raises(BadInput, match="already holds a failure memory named 'a'"):
        FailureMemory(journal=j, name="a")
    with pytest.raises(BadInput, match="no failure memory named 'c'"):
        FailureMemory.from_journal(j, name="c")
    with pytest.raises(BadInput, match="Journal"):
        FailureMemory.from_journal([])


ops = st.lists(
    st.one_of(
        st.tuples(st.just("failed"), st.sampled_from(["a", "b", "c", "d", 1, "1"])),
        st.tuples(st.just("succeeded"), st.sampled_from(["a", "b", 1])),
        st.tuples(st.just("step"), st.none()),
    ),
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(ops, st.integers(1, 5), st.integers(1, 4))
def test_replay_equals_live_for_any_history(history, window, max_blocked):
    j = Journal()
    fm = FailureMemory(window=window, max_blocked=max_blocked, journal=j)
    for op, plan in history:
        if op == "step":
            fm.step()
        elif op == "failed":
            fm.failed(plan, why="because")
        else:
            fm.succeeded(plan)
        assert len(fm.blocked()) <= max_blocked
        assert len(blocked_plans(fm, options=["a", "b", "c", "d", 1, "1"])) <= 5  # min_open=1 of 6 offered
    assert FailureMemory.from_journal(j) == fm
