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


class JournalWriteFailed(SolviLabError, OSError):
    """The operating system or SQLite refused to write a journal (disk full, file too large, read-only directory,
    I/O error). The record the call tried to write is not in the journal: the file and the live state are as they
    were before the call. `path` is the journal, `cause` the underlying error (also `__cause__`).
    """

    def __init__(self, message: str, *, path: object = None, cause: BaseException | None = None):
        super().__init__(message)
        self.path = path
        self.cause = cause

    def __str__(self) -> str:  # OSError formats its args its own way; we want the message
        return str(self.args[0]) if self.args else "journal write failed"


class JournalCheckpointWarning(UserWarning):
    """A journal's head checkpoint could not be written although its records are safely in the file (a read-only
    directory, say). Nothing was lost; a cut made before the next checkpoint that succeeds is not caught by it."""


class HeadIndexWarning(UserWarning):
    """The journal head index (solvi_lab.journal_head_index) cannot be written in its state folder: every journal
    still keeps its head checkpoint beside the file and in its extended attribute; only a hard link in another
    folder without extended attributes goes unchecked. Set SOLVI_LAB_STATE_DIR to a writable folder."""


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
