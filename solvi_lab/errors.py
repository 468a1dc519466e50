"""The one error hierarchy of solvi_lab.

Every message says what was wrong and what to do about it, so a researcher reading a
traceback in a notebook does not have to open the source to recover.
"""

from __future__ import annotations


class SolviLabError(Exception):
    """Base class of every error solvi_lab raises on purpose."""


class BadInput(SolviLabError, ValueError):
    """A public call got an argument of the wrong type, shape or value."""


class UnknownId(SolviLabError, KeyError):
    """An id (item, flag, decision, question, record) that the store does not hold."""

    def __str__(self) -> str:  # KeyError quotes its message; we want it readable
        return str(self.args[0]) if self.args else "unknown id"


class CorruptJournal(SolviLabError):
    """A journal failed its hash chain, was torn mid-record, or was edited."""


class JournalLocked(SolviLabError):
    """A second writer tried to open a journal that another writer holds."""


class WriteRefused(SolviLabError):
    """A write gate refused an item; the refusal itself is journaled."""

    def __init__(self, message: str, *, item_id: str | None = None, reason: str = "", position: int | None = None):
        super().__init__(message)
        self.item_id = item_id
        self.reason = reason
        self.position = position


class BadParameter(BadInput):
    """A study or notebook parameter out of its allowed range."""


class DataMissing(SolviLabError, FileNotFoundError):
    """Data a study needs is not where solvi_lab looked; the message says how to get it."""
