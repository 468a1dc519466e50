"""One protocol for everything that keeps its state in a journal.

A *journal owner* (the knowledge store, the decision log, the action model, the risk policies, LearnedGate, failure
memory, the learner model, the agenda, the world map) follows one shape:

- it declares the record kinds it folds: ``KINDS`` (their payload shapes are registered with
  ``journal.register_kind``, so ``Journal.append`` refuses a payload of the wrong shape);
- every change is written first and then folded by the one method ``_apply(record)``: live calls go through
  ``_write(kind, payload)`` (append, then ``_apply``), and a rebuild folds the same records through the same
  ``_apply`` — so the live state and the rebuilt state cannot drift apart;
- it ignores records it does not own (``_owns(record)``: another kind, or another owner's name in a shared journal);
- it is built one way: ``Thing(..., journal=j)`` writes to ``j`` (a new in-memory journal by default),
  ``Thing.open(path, ...)`` opens a journal file and continues the owner found in it (or starts one),
  ``Thing.from_journal(journal, upto=None, ...)`` rebuilds it from the journal's records (those before position
  ``upto`` only: a read-only view of the past);
- ``state()`` returns everything that decides its behaviour as plain data: two owners with equal states behave
  the same. The conformance check (``solvi_lab.conformance``) compares these states.

Threads: writes are serialised per journal. Every public writing method (``validation.writing_call``, or
``@serialised`` here) and ``_write`` hold the journal's reentrant lock (``journal.lock``) for all their steps —
the checks, the records, the fold — so threads calling one owner, or owners sharing one journal, take turns and
the live state stays the journal's replay. Reads are serialised the same way: every public read of an owner
(methods, properties, ``len``/``in``/iteration/``repr``; ``validation.public_calls``) holds the same lock, because a
read may settle lazy state — pending digests, records other writers appended, a cache — and must not do so while a
write in another thread is folding (issue 40). A thread that makes several reads holds ``with owner.journal.lock:``
around them to see one state. While the main thread is the only one that has asked for an owner's lock, its reads
skip it (no other thread can be writing; ``solvi_lab.lone_reads``): the first other thread that asks turns that
off for good.

A new owner subclasses ``JournalOwner``, sets ``KINDS``, implements ``_empty`` (the state before any record,
built from the same options as the constructor, writing nothing), ``_apply`` and ``state``, and passes
``check_journal_owner``. See docs/ARCHITECTURE.md ("Adding a journal owner").

>>> from solvi_lab.journal import register_kind
>>> from solvi_lab.validation import shape
>>> register_kind("tally", shape("a tally record", {"n": int}))
>>> class Tally(JournalOwner):
...     KINDS = ("tally",)
...     def __init__(self, *, journal=None):
...         self._attach(journal); self.total = 0
...     @classmethod
...     def _empty(cls): return cls.__new__(cls)._reset()
...     def _reset(self): self.total = 0; return self
...     def add(self, n): self._write("tally", {"n": n})
...     def _apply(self, record): self.total += record.payload["n"]
...     def state(self): return {"total": self.total}
>>> t = Tally(); t.add(2); t.add(3)
>>> Tally.from_journal(t.journal).state() == t.state() == {"total": 5}
True
>>> Tally.from_journal(t.journal, upto=1).state()
{'total': 2}
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from .errors import BadInput
from .journal import Journal, Record
from .lone_reads import other_thread
from .validation import write_lock

__all__ = ["JournalOwner", "serialised"]


def serialised(method: Callable) -> Callable:
    """Decorate a public method that writes in several steps and is not a ``writing_call`` (which holds the lock
    itself): it holds the lock of the journal its owner writes to for the whole call (see the module docstring).

    >>> class Counter(JournalOwner):
    ...     @serialised
    ...     def bump(self): return "bumped"
    >>> c = Counter(); c._attach(None) is c.journal and c.bump()
    'bumped'
    """

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        with write_lock(self):
            return method(self, *args, **kwargs)

    return call


class JournalOwner:
    """The protocol every journal owner follows (see the module docstring), plus close() and `with`.

    Closing writes the journal's head checkpoint and releases the file and its writer lock.
    """

    KINDS: ClassVar[tuple[str, ...]] = ()
    journal: Journal | None
    _upto: int | None = None  # set on a view of the past (from_journal with upto): it writes nothing

    # -- construction -------------------------------------------------------------------------------------
    def _attach(self, journal: Journal | None) -> Journal:
        """Use `journal`, or a new in-memory journal (deterministic: no wall-clock time stamps)."""
        if journal is None:
            journal = Journal()
        elif not isinstance(journal, Journal):
            raise BadInput(
                f"{type(self).__name__}: journal= must be a solvi_lab.journal.Journal, got "
                f"{type(journal).__name__}; pass Journal() or Journal(path), or use {type(self).__name__}.open(path)."
            )
        self.journal = journal
        return journal

    @classmethod
    def _empty(cls, **options: Any) -> JournalOwner:
        """The owner before any record, from the constructor's options, writing nothing. Owners override this."""
        raise NotImplementedError(f"{cls.__name__} does not implement _empty(); see solvi_lab.owner.")

    @classmethod
    def from_journal(cls, journal: Journal, upto: int | None = None, **options: Any) -> Any:
        """Rebuild from the journal's records (before position `upto` only, when given: a read-only view of the
        past). The result keeps writing to `journal` when `upto` is None. `options` are the constructor's (those
        not recorded in the journal, such as callables)."""
        upto = _check_upto(journal, upto)
        owner = cls._empty(**options)
        owner.journal = journal
        owner._upto = upto
        owner._fold(journal.records(0, upto))
        return owner

    @classmethod
    def open(cls, path: str | os.PathLike, *, journal_options: dict[str, Any] | None = None, **options: Any) -> Any:
        """Open the journal file at `path` (created when absent) and continue the owner it holds, or start one.

        `journal_options` go to `Journal(path, ...)` (durability, backend, timestamps, ...); `options` to the
        owner. Close it (or use `with`) to release the file.
        """
        journal = Journal(path, **(journal_options or {}))
        try:
            owner = cls._empty(**options)
            owner.journal = journal
            owner._fold(journal.records())
            if not owner._folded:  # nothing of this owner's in the file yet: start it there
                owner = cls(**options, journal=journal)
        except BaseException:
            journal.close()
            raise
        return owner

    # -- the fold -----------------------------------------------------------------------------------------
    _folded = 0  # records this owner has folded

    def _owns(self, record: Record) -> bool:
        """Whether `record` is this owner's. Owners sharing a kind (a name in the payload) narrow this."""
        return record.kind in self.KINDS

    def _fold(self, records: Iterator[Record]) -> None:
        for r in records:
            if self._owns(r):
                self._apply(r)
                self._folded += 1

    def _apply(self, record: Record) -> None:
        """Fold one of this owner's records into its state: the one path for live calls and rebuilds."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply(); see solvi_lab.owner.")

    def _write(self, kind: str, payload: Any) -> Record:
        """Append a record, then fold it: the live path. A payload the journal refuses changes nothing."""
        if self._upto is not None:
            raise BadInput(
                f"this {type(self).__name__} was rebuilt up to journal position {self._upto} (a view of the past) "
                "and writes nothing; rebuild it without upto= to go on writing."
            )
        if self.journal is None:
            raise BadInput(f"this {type(self).__name__} has no journal to write to.")
        other_thread()  # a thread other than the main one turns the main thread's lone reads off first
        with self.journal.lock:  # the record and its fold together (a failed append raises before _apply)
            rec = self.journal.append(kind, payload)
            self._apply(rec)
            self._folded += 1
        return rec

    def state(self) -> Any:
        """Everything that decides this owner's behaviour, as plain data (what the conformance check compares)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement state(); see solvi_lab.owner.")

    # -- closing ------------------------------------------------------------------------------------------
    def close(self) -> None:
        j = getattr(self, "journal", None)
        if j is None:  # an owner that writes through a store
            j = getattr(getattr(self, "store", None), "journal", None)
        if j is not None:
            j.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def refuse_second_owner(journal: Journal, kind: str, field: str, name: str, what: str, cls: str) -> None:
    """Raise BadInput when `journal` already holds an owner `name` (owners told apart by `field`): a new one would
    fold records it never wrote. `what` names the owner in prose, `cls` its class."""
    if any(r.payload.get(field) == name for r in journal.records(kind=kind)):
        raise BadInput(
            f"this journal already holds a {what} named {name!r}; continue it with {cls}.from_journal(journal, "
            f"name={name!r}) (or {cls}.open(path, name={name!r})), or choose another name."
        )


def missing_owner(journal: Journal, kind: str, field: str, name: str, what: str, label: str = "found") -> BadInput:
    """The error for from_journal when the journal holds no owner of that name (owners told apart by `field`)."""
    names = sorted({r.payload.get(field) for r in journal.records(kind=kind)})
    return BadInput(f"no {what} named {name!r} in this journal ({label}: {names or 'none'}); pass one of those names.")


def _check_upto(journal: Any, upto: Any) -> int | None:
    if not isinstance(journal, Journal):
        raise BadInput(
            f"from_journal takes a solvi_lab.journal.Journal, got {type(journal).__name__}; open a file with "
            "Journal(path) or use Thing.open(path)."
        )
    if upto is None:
        return None
    if not isinstance(upto, int) or isinstance(upto, bool) or not 0 <= upto <= journal.position:
        raise BadInput(f"upto={upto!r} is not a journal position 0..{journal.position}.")
    return upto
