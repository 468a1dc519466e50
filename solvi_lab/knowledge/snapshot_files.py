"""The fold snapshot's files as a writer leaves them (issue 40, 4): its temporary file, and a failed write.

Its one job: the file-system side of writing `<journal>.fold` — where the temporary file is made and how it is
named, removing the ones a killed writer left, and turning an OSError of the write into the project's error. The
snapshot's format, rows and loading are knowledge/fold_snapshot.py's.

A snapshot is written to `<journal>.fold.tmp-XXXXXXXX` beside the journal and renamed over `<journal>.fold` once
whole and synced. Only the holder of the journal's writer lock writes snapshots, so when a writer opens a journal,
every temporary file of its snapshot is a dead writer's (killed mid-write): `remove_stale_temps` deletes them —
the next open, never later.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from ..errors import JournalWriteFailed

__all__ = ["TEMP_MARK", "clean_on_open", "make_temp", "remove_stale_temps", "stale_temps", "write_failed"]

TEMP_MARK = ".tmp-"  # <journal>.fold.tmp-XXXXXXXX (tempfile's 8 random characters)
# The name before issue 40: <journal>.foldXXXXXXXX.tmp — still cleaned up.
_OLD = re.compile(r"[a-z0-9_]{8}\.tmp")
_NEW = re.compile(r"[a-z0-9_]{8}")


def make_temp(snapshot: Path) -> tuple[int, str]:
    """A new temporary file for `snapshot` in its directory: (descriptor, path)."""
    return tempfile.mkstemp(dir=snapshot.parent, prefix=snapshot.name + TEMP_MARK, suffix="")


def stale_temps(snapshot: Path) -> list[Path]:
    """The temporary files of `snapshot` in its directory (this naming and the one before it)."""
    name, out = snapshot.name, []
    try:
        entries = os.listdir(snapshot.parent)
    except OSError:
        return []
    for e in entries:
        if not e.startswith(name):
            continue
        rest = e[len(name) :]
        if (rest.startswith(TEMP_MARK) and _NEW.fullmatch(rest[len(TEMP_MARK) :])) or _OLD.fullmatch(rest):
            out.append(snapshot.parent / e)
    return sorted(out)


def remove_stale_temps(snapshot: Path) -> int:
    """Delete the temporary files a killed writer left (call it holding the writer lock); how many were. A file
    that cannot be removed (a read-only directory) is left: it is never read, only its space is lost."""
    n = 0
    for p in stale_temps(snapshot):
        try:
            p.unlink()
            n += 1
        except OSError:
            pass
    return n


def clean_on_open(journal: object) -> int:
    """`remove_stale_temps` for a journal file a store just opened for writing (it holds the writer lock); 0 for a
    read-only or in-memory journal, which writes nothing."""
    path = getattr(journal, "path", None)
    if path is None or getattr(journal, "mode", None) != "a":
        return 0
    return remove_stale_temps(Path(str(path) + ".fold"))


def write_failed(snapshot: Path, e: OSError) -> JournalWriteFailed:
    """The project's error for a snapshot the file system refused (a full disk, the file size limit, a read-only
    directory): the journal is intact and nothing of the snapshot is left."""
    cause = e.strerror or f"{type(e).__name__}: {e}"
    return JournalWriteFailed(
        f"{snapshot}: could not write the fold snapshot ({cause}); the journal is intact and the store opens from "
        "it (folding every record). Free some space and write it again with write_snapshot(), or close with "
        "snapshot=False.",
        path=snapshot,
        cause=e,
    )
