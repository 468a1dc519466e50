"""The conformance check every journal owner passes (in the spirit of river's `check_estimator`).

`check_journal_owner(case)` drives an owner with random public calls and checks the protocol of
`solvi_lab.owner.JournalOwner`:

1. **live == rebuilt**: after the run, `from_journal(journal)` has the live owner's state, and
   `from_journal(journal, upto=p)` has the state the live owner had when the journal held `p` records;
2. **a refused call changes nothing**: a call that raises `BadInput` leaves the state and the journal as they were;
3. **other records are ignored**: records of another kind, interleaved with the owner's, change neither the live
   owner nor its rebuild (the run with them ends in the state of the run without them);
4. **same seed, same state**: two runs with one seed end in the same state and the same journal head;
5. **reload from each backend**: on a JSONL and an SQLite file, the owner is closed halfway, reopened with
   `Thing.open(path)`, driven on, and ends in the state and the head of the uninterrupted run in memory.

A case says how to build and drive the owner (`OwnerCase`); the tests run it for every owner in solvi_lab
(tests/test_conformance.py). `problems(case)` lists what failed; `check_journal_owner` raises `ConformanceError`.

>>> from solvi_lab.failures import FailureMemory
>>> case = OwnerCase(
...     "failure memory",
...     FailureMemory,
...     make=lambda j: FailureMemory(window=3, journal=j),
...     step=lambda fm, rng: fm.failed(rng.choice("abc"), why="no") if rng.random() < 0.6 else fm.step(),
... )
>>> check_journal_owner(case, seeds=(0, 1), steps=30)
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import BadInput, SolviLabError
from .journal import Journal, register_kind
from .owner import JournalOwner
from .validation import ANY, need_int, shape

__all__ = ["OwnerCase", "ConformanceError", "check_journal_owner", "problems", "NOISE_KIND"]

NOISE_KIND = "conformance.noise"  # a kind no owner folds: what check 3 interleaves
register_kind(NOISE_KIND, shape("a conformance noise record", {"n": int, "text": ANY}))


class ConformanceError(SolviLabError, AssertionError):
    """A journal owner broke the protocol; the message lists every failed check."""


@dataclass
class OwnerCase:
    """How to build and drive one journal owner.

    - `make(journal)`: a new owner writing to `journal`;
    - `step(owner, rng)`: one random public call, drawn from `rng` only (it may raise BadInput on purpose);
    - `options`: what `from_journal` and `open` need beside the journal (callables, a name: what is not recorded);
    - `state(owner)`: the owner's comparable state (default `owner.state()`);
    - `portable_state(owner)`: the state compared between runs on *different* journals (check 3, with and without
      other kinds' records): an owner whose state names journal positions — store item ids are "k<position>" —
      gives it without them (default: `state`). Every other check compares `state`, positions included.
    """

    name: str
    cls: type[JournalOwner]
    make: Callable[[Journal], Any]
    step: Callable[[Any, random.Random], Any]
    options: dict[str, Any] = field(default_factory=dict)
    state: Callable[[Any], Any] = field(default=lambda owner: owner.state())
    portable_state: Callable[[Any], Any] | None = None

    def __post_init__(self) -> None:
        if not (isinstance(self.cls, type) and issubclass(self.cls, JournalOwner)):
            raise BadInput(
                f"OwnerCase {self.name!r}: cls must be a JournalOwner subclass (solvi_lab.owner), got {self.cls!r}."
            )
        for what in ("make", "step", "state"):
            if not callable(getattr(self, what)):
                raise BadInput(f"OwnerCase {self.name!r}: {what} must be a callable, see the OwnerCase docstring.")
        if not isinstance(self.options, dict):
            raise BadInput(f"OwnerCase {self.name!r}: options must be a dict of from_journal/open keywords.")


def _run(case: OwnerCase, journal: Journal, seed: int, steps: int, noise: bool, start: int = 0, owner: Any = None):
    """Drive the owner for steps [start, steps); return (owner, {journal position: state}, problems)."""
    rng = random.Random(seed)
    noise_rng = random.Random(seed + 10_000)
    for _ in range(start):  # the same draws as an uninterrupted run
        _draw(rng, noise_rng)
    owner = case.make(journal) if owner is None else owner
    seen = {journal.position: case.state(owner)}
    found: list[str] = []
    for i in range(start, steps):
        step_seed, noisy = _draw(rng, noise_rng)
        if noise and noisy:
            journal.append(NOISE_KIND, {"n": i, "text": f"not {case.name}'s record"})
        before, pos = case.state(owner), journal.position
        try:
            case.step(owner, random.Random(step_seed))
        except BadInput:
            if case.state(owner) != before or journal.position != pos:
                found.append(f"step {i} (seed {seed}): a call refused with BadInput changed the state or the journal")
        seen[journal.position] = case.state(owner)
    return owner, seen, found


def _draw(rng: random.Random, noise_rng: random.Random) -> tuple[int, bool]:
    return rng.randrange(2**32), noise_rng.random() < 0.3


def problems(case: OwnerCase, *, seeds: tuple[int, ...] = (0, 1, 2), steps: int = 40, tmp: Path | None = None):
    """Every failed check for this case, as sentences (empty when the owner conforms)."""
    if not isinstance(case, OwnerCase):
        raise BadInput(f"problems() takes an OwnerCase, got {type(case).__name__}; build one with OwnerCase(...).")
    if isinstance(seeds, (str, bytes)) or not seeds or not all(type(x) is int for x in seeds):
        raise BadInput(f"seeds must be a non-empty tuple of ints, e.g. (0, 1, 2); got {seeds!r}.")
    need_int("steps", steps, min=2, hint="random calls per run, e.g. 40")
    found: list[str] = []
    cls, opts = case.cls, case.options
    for seed in seeds:
        journal = Journal()
        owner, seen, bad = _run(case, journal, seed, steps, noise=True)
        found += bad
        live = case.state(owner)
        # 1. live == rebuilt, at the end and at the positions the run went through
        if case.state(cls.from_journal(journal, **opts)) != live:
            found.append(f"seed {seed}: from_journal(journal) differs from the live owner")
        for p in sorted(seen)[:: max(1, len(seen) // 8)]:
            if case.state(cls.from_journal(journal, upto=p, **opts)) != seen[p]:
                found.append(f"seed {seed}: from_journal(journal, upto={p}) differs from the live state at {p}")
                break
        # 3. other kinds' records are ignored
        quiet, _, _ = _run(case, Journal(), seed, steps, noise=False)
        portable = case.portable_state or case.state
        if portable(quiet) != portable(owner):
            found.append(f"seed {seed}: records of another kind changed the owner (noisy run ≠ quiet run)")
        # 4. same seed, same state, same head
        again_journal = Journal()
        again, _, _ = _run(case, again_journal, seed, steps, noise=True)
        if case.state(again) != live or again_journal.head() != journal.head():
            found.append(f"seed {seed}: the same seed gave another state or another journal head")
        # 5. reload from each backend, halfway
        with tempfile.TemporaryDirectory(dir=tmp) as d:
            for ext in (".jsonl", ".sqlite"):
                path = Path(d) / f"owner-{seed}{ext}"
                first, _, _ = _run(case, Journal(path), seed, steps // 2, noise=True)
                first.close()
                try:
                    reopened = cls.open(path, **opts)
                except SolviLabError as e:
                    found.append(f"seed {seed}: {cls.__name__}.open({ext} file) failed: {e}")
                    continue
                try:
                    if case.state(reopened) != case.state(first):
                        found.append(f"seed {seed}: reopened from {ext}, the owner differs from before closing")
                    end, _, _ = _run(case, reopened.journal, seed, steps, noise=True, start=steps // 2, owner=reopened)
                    if case.state(end) != live or reopened.journal.head() != journal.head():
                        found.append(f"seed {seed}: closed and reopened from {ext}, the run ends elsewhere")
                finally:
                    reopened.close()
    return found


def check_journal_owner(
    case: OwnerCase, *, seeds: tuple[int, ...] = (0, 1, 2), steps: int = 40, tmp: Path | None = None
) -> None:
    """Raise ConformanceError listing every check the owner fails (see the module docstring)."""
    found = problems(case, seeds=seeds, steps=steps, tmp=tmp)
    if found:
        raise ConformanceError(f"{case.name} breaks the journal-owner protocol:\n- " + "\n- ".join(found))
