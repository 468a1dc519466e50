"""Every public call of every owner — constructors, classmethods, read and writing calls — refuses a deep, huge or
hostile value with the project's error, naming the argument, quoting at most 80 characters of it, and writing
nothing (issue 25, 6). The harness finds the calls by introspection: a new public method is fuzzed too."""

import pytest

from solvi_lab.journal_faults.inputs import HOSTILE, OWNER_SPECS, _calls, run_owner


@pytest.mark.parametrize("spec", OWNER_SPECS, ids=[s.name for s in OWNER_SPECS])
def test_hostile_values_in_every_slot_of_every_public_call(spec):
    out = run_owner(spec)
    assert out.calls >= 10 * len(HOSTILE), out.calls  # the constructor and the public calls were reached
    assert not out.bare, out.examples  # 0 bare exceptions: read calls, writing calls and constructors
    assert out.generic == 0, out.examples  # no "an argument has a wrong type or value"
    assert out.long == 0 and out.quoted == 0, out.examples  # short messages, at most an 80-character quote
    assert out.grew == 0, out.examples  # nothing written on a refusal
    assert out.refused > out.accepted  # most hostile values are refused, not taken


def test_the_harness_reaches_constructors_classmethods_read_and_writing_calls():
    names = {n for spec in OWNER_SPECS for n, _get, _sig in _calls(spec)}
    assert {"constructor", "open", "from_journal"} <= names  # constructors and classmethods
    assert {"snapshot", "item", "query", "predict", "claims", "concept_state", "given"} <= names  # read calls
    assert {"add", "retract", "arrive", "observe", "record", "failed", "decide"} <= names  # writing calls
