"""Every journal owner in solvi_lab passes the shared conformance check (solvi_lab.conformance).

Each case drives its owner through random public calls — including calls the owner must refuse — and the check
compares the live owner with its rebuilds: from the journal, up to earlier positions, beside other kinds' records,
with the same seed again, and after closing and reopening a JSONL and an SQLite file.
"""

from __future__ import annotations

import random

import pytest

from solvi_lab.conformance import ConformanceError, OwnerCase, check_journal_owner, problems
from solvi_lab.errors import BadInput
from solvi_lab.failures import FailureMemory
from solvi_lab.journal import Journal

PLANS = ["a", "b", "c", "d", 1, "1", ["e", 2]]


def _failure_step(fm: FailureMemory, rng: random.Random) -> None:
    r = rng.random()
    if r < 0.45:
        fm.failed(rng.choice(PLANS), why=rng.choice(["no", "shut", ""]))
    elif r < 0.6:
        fm.succeeded(rng.choice(PLANS))
    elif r < 0.9:
        fm.step()
    elif r < 0.95:
        fm.end_episode()  # refused: this memory counts steps
    else:
        fm.failed("x", why=3)  # refused: why must be a string


CASES = [
    OwnerCase(
        "failure memory",
        FailureMemory,
        make=lambda j: FailureMemory(window=3, max_blocked=3, min_open=1, journal=j, name="fm"),
        step=_failure_step,
        options={"name": "fm"},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_every_journal_owner_conforms(case, tmp_path):
    check_journal_owner(case, seeds=(0, 1, 2), steps=40, tmp=tmp_path)


def test_the_check_catches_an_owner_whose_live_path_differs_from_its_fold(tmp_path):
    class Leaky(FailureMemory):
        def failed(self, plan, why=""):
            super().failed(plan, why)
            self.t += 1  # live only: never written, so a rebuild cannot see it

    case = OwnerCase(
        "leaky",
        Leaky,
        make=lambda j: Leaky(window=3, journal=j),
        step=lambda fm, rng: fm.failed(rng.choice("ab"), why="no") if rng.random() < 0.5 else fm.step(),
    )
    found = problems(case, seeds=(0,), steps=20, tmp=tmp_path)
    assert "seed 0: from_journal(journal) differs from the live owner" in found
    with pytest.raises(ConformanceError, match="leaky breaks the journal-owner protocol"):
        check_journal_owner(case, seeds=(0,), steps=20, tmp=tmp_path)


def test_the_check_catches_a_refused_call_that_wrote(tmp_path):
    class Sloppy(FailureMemory):
        def step(self):
            super().step()
            raise BadInput("refused after writing")

    case = OwnerCase("sloppy", Sloppy, make=lambda j: Sloppy(journal=j), step=lambda fm, rng: fm.step())
    found = problems(case, seeds=(0,), steps=3, tmp=tmp_path)
    assert found[0] == "step 0 (seed 0): a call refused with BadInput changed the state or the journal"


def test_from_journal_upto_is_a_read_only_view_of_the_past():
    j = Journal()
    fm = FailureMemory(window=5, journal=j)
    fm.failed("a", why="no")
    past = FailureMemory.from_journal(j, upto=1)
    assert past.blocked() == [] and fm.blocked() == ["a"]
    with pytest.raises(BadInput, match="rebuilt up to journal position 1"):
        past.failed("b", why="no")
    with pytest.raises(BadInput, match=r"upto=9 is not a journal position 0\.\.2"):
        FailureMemory.from_journal(j, upto=9)


def test_open_starts_then_continues_the_owner_in_a_file(tmp_path):
    path = tmp_path / "fm.sqlite"
    with FailureMemory.open(path, window=4, name="m") as fm:
        fm.failed("a", why="no")
    with FailureMemory.open(path, name="m") as again:
        assert again.window == 4 and again.blocked() == ["a"]


def test_bad_cases_and_arguments_say_what_to_pass():
    with pytest.raises(BadInput, match="cls must be a JournalOwner subclass"):
        OwnerCase("x", dict, make=lambda j: None, step=lambda o, r: None)
    with pytest.raises(BadInput, match="step must be a callable"):
        OwnerCase("x", FailureMemory, make=lambda j: None, step=None)
    with pytest.raises(BadInput, match="seeds must be a non-empty tuple of ints"):
        problems(CASES[0], seeds=())
    with pytest.raises(BadInput, match="steps"):
        problems(CASES[0], steps=True)
    with pytest.raises(BadInput, match="takes an OwnerCase"):
        problems("failure memory")
