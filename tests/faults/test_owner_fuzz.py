"""Hypothesis fuzzing of every public writing call of the journal's owners: after every accepted call the journal
reloads (chain, registered payload shapes, the owner's own replay) and matches the live owner; after every refused
call it is byte-identical or grew by one journaled refusal; no call ends in a bare exception."""

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from solvi_lab.journal_faults.owners import OWNERS, hypothesis_calls, run_sequence


@pytest.mark.parametrize("owner", OWNERS, ids=[o.name for o in OWNERS])
def test_writing_calls_keep_the_journal_readable(owner):
    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(hypothesis_calls(owner, max_calls=8))
    def check(calls):
        with tempfile.TemporaryDirectory() as d:
            tally = run_sequence(owner, calls, Path(d))
        assert tally.faults == 0, tally.examples

    check()
