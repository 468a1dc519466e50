"""The head index: every JSONL journal's head checkpoint also kept in a state folder, keyed by the file's identity.

A `.head` lives beside a name; a hard link in *another* folder has none beside it, and without extended attributes
(a file system that keeps none, or a copy that dropped them) such a name would see no checkpoint and open a cut
journal silently. The index closes that gap: each checkpoint write also writes `<state>/journal-heads/<dev>-<ino>.head`
(the same text, atomically), so every name of the file — in any folder — finds the file's latest checkpoint by its
(device, inode), like the extended attribute but outside the file system that holds the journal.

- **Where**: `$SOLVI_LAB_STATE_DIR` when set, else inside the Python environment (`<sys.prefix>/var/solvi-lab`,
  where the kernel already keeps IPython's and matplotlib's state): the toolkit writes nothing under `~`. Every
  process of one environment shares it; a user who opens the same journals from several environments points
  `SOLVI_LAB_STATE_DIR` at one folder for all of them.
- **Stale entries are ignored, never refused**: an inode number is reused after a file is deleted. Where the file
  system numbers each use of an inode (its *generation*, `FS_IOC_GETVERSION`: ext4, btrfs, XFS, …), the entry
  keeps it: an entry of another generation is another file's and is ignored; one of this generation is this very
  file's and counts like its attribute (a cut to zero records, or a journal rewritten in place, is refused; a
  replacement on purpose goes through `Journal.forget_head`). Where the generation is unknown (tmpfs, FAT, some
  network file systems), an entry counts only when it names this journal's first record hash (`first`) *and* a
  name it was written through (the journal beside a `.head` it lists) is still this file: a deleted journal's names
  went with it, so a new file on its inode number — even one whose records start the same, as journals without time
  stamps do — is not held to its entry. An empty file has no first record: an entry naming one (records existed)
  that is still named counts, so a cut to zero records is refused (`Journal._applying`). A file an open created is
  new: that open removes any entry under its identity (a deleted file's), so the new journal is never held to it.
  The cost there: a journal rewritten in place looks new to the index, and so does a journal moved to another
  folder until it is written through its new name (its `.head` beside the original name still catches each); and
  an empty file made by hand at a deleted journal's name on its reused inode number is refused (documented: the
  one false alarm; `Journal.forget_head` accepts it).
- **Never an error**: a state folder that cannot be written (or read) degrades to what the `.head` and the attribute
  give, with one `HeadIndexWarning` per folder per process. A damaged or unreadable entry is ignored.
- `Journal.repair` rewrites the entry with the rest of the checkpoint; `Journal.forget_head` removes it.

>>> entry_path((2049, 77)).name
'2049-77.head'
>>> is_entry(TAG + "/state/journal-heads/2049-77.head"), is_entry("/data/j.jsonl.head")
(True, False)
"""

from __future__ import annotations

import json
import os
import struct
import sys
import warnings
from pathlib import Path

from .atomicfile import atomic_write_text
from .errors import HeadIndexWarning

ENV = "SOLVI_LAB_STATE_DIR"
FOLDER = "journal-heads"
#: How a checkpoint found in the index is named in a message (`where`): "head index /…/journal-heads/2049-77.head".
TAG = "head index "

_warned: set[str] = set()  # the folders already warned about in this process (one line each, not one per write)


def state_dir() -> Path:
    """The state folder: `$SOLVI_LAB_STATE_DIR`, else `<sys.prefix>/var/solvi-lab` (inside the environment)."""
    chosen = os.environ.get(ENV)
    return Path(chosen) if chosen else Path(sys.prefix) / "var" / "solvi-lab"


def entry_path(file: tuple[int, int]) -> Path:
    """The index entry of the file with identity `file` (device, inode)."""
    return state_dir() / FOLDER / f"{int(file[0])}-{int(file[1])}.head"


# _IOR('v', 1, long): the inode's generation, changed each time the file system reuses an inode number.
_GETVERSION = (2 << 30) | (struct.calcsize("l") << 16) | (ord("v") << 8) | 1
#: The key a read entry carries when its generation is this file's (`read_entry`): it is this very file's entry.
SAME_FILE = "same_generation"


def generation(file: str | os.PathLike | int) -> int | None:
    """The inode generation of the file at `file` (a path or an open descriptor); None where the file system (or the
    platform) does not tell it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not a POSIX system
        return None
    fd = file if isinstance(file, int) else None
    try:
        if fd is None:
            fd = os.open(file, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            out = fcntl.ioctl(fd, _GETVERSION, bytes(struct.calcsize("l")))
        finally:
            if not isinstance(file, int):
                os.close(fd)
    except (OSError, ValueError, OverflowError):
        return None
    return struct.unpack("l", out)[0]


def is_entry(where: str) -> bool:
    """True when `where` (a checkpoint's place, as `read_entry` names it) is the head index."""
    return where.startswith(TAG)


def _warn(folder: Path, what: str, e: OSError) -> None:
    key = str(folder)
    if key in _warned:
        return
    _warned.add(key)
    warnings.warn(
        f"the journal head index {folder} cannot be {what} ({e.strerror or e}): journals keep their head checkpoint "
        f"beside the file and in its extended attribute as before, but a hard link in another folder on a file "
        f"system without extended attributes is not checked; set {ENV} to a writable folder.",
        HeadIndexWarning,
        stacklevel=4,
    )


def _entry(target: Path, file: tuple[int, int]) -> dict | None:
    """The entry at `target` as a dict when it is a checkpoint of `file` naming a first record; else None."""
    try:
        d = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None  # none, unreadable or damaged: ignored, never refused
    if type(d) is not dict or type(d.get("count")) is not int or type(d.get("hash")) is not str:
        return None
    f = d.get("file")
    if type(f) is not list or len(f) != 2 or (f[0], f[1]) != tuple(file):
        return None
    if type(d.get("first")) is not str and type(d.get("gen")) is not int:
        return None
    return d


def write_entry(file: tuple[int, int], text: str, heads: list[str] = (), gen: int | None = None) -> None:
    """Keep checkpoint `text` as the entry of `file`, with the `.head` files it was written to (`heads`) added to
    those the entry already lists that still exist (so a repair or `forget_head` through one name reaches the
    `.head` of a name in another folder). Never raises: a folder that cannot be written is one warning, and then
    the old entry (if any) is removed rather than left to say something older. A checkpoint that names no first
    record (an empty journal) counts only by its generation `gen` (see `read_entry`); with neither, the entry is
    removed instead."""
    target = entry_path(file)
    try:
        d = json.loads(text)
    except (ValueError, RecursionError):
        d = None
    if type(d) is not dict or (type(d.get("first")) is not str and gen is None):
        remove_entry(file)
        return
    listed = set(heads) | {h for h in listed_heads(file) if os.path.exists(h)}
    d["heads"] = sorted(listed)
    if gen is not None:
        d["gen"] = gen
    try:
        atomic_write_text(target, json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
    except OSError as e:
        _warn(target.parent, "written", e)
        try:
            target.unlink(missing_ok=True)
        except OSError:
            pass  # neither written nor removable: the warning says where


def listed_heads(file: tuple[int, int]) -> list[str]:
    """The `.head` files the entry of `file` lists (written for one of its names); [] when it has no entry."""
    d = _entry(entry_path(file), file)
    h = d.get("heads") if d else None
    return [x for x in h if type(x) is str] if type(h) is list else []


def _still_named(d: dict, file: tuple[int, int]) -> bool:
    """True when a name the entry was written through (the journal beside a listed `.head`) is this file now: the
    entry was written for this very file, not for a deleted one whose inode number it reuses (that one's names are
    gone with it, or name other files)."""
    heads = d.get("heads")
    for h in heads if type(heads) is list else ():
        if type(h) is str and h.endswith(".head"):
            try:
                st = os.stat(h[: -len(".head")])
            except (OSError, ValueError):
                continue
            if (st.st_dev, st.st_ino) == tuple(file):
                return True
    return False


def read_entry(file: tuple[int, int], gen: int | None = None) -> tuple[str, str] | None:
    """(where, text) of the entry of `file` whose generation is `gen` (the file's now), or None: no entry, an
    unreadable one, one that is not a checkpoint of this file (damaged, or another shape), or one of another
    generation (a deleted file's whose inode number was reused) — all ignored, never refused. When both generations
    are known and equal, the text carries `SAME_FILE: true`: the reader need not compare first records."""
    target = entry_path(file)
    d = _entry(target, file)
    if d is None:
        return None
    kept = d.get("gen")
    if type(kept) is int and gen is not None:
        if kept != gen:
            return None
        d[SAME_FILE] = True
    elif type(d.get("first")) is not str or not _still_named(d, file):
        return None  # no generation to compare: it counts only while a name it was written through is this file
    return TAG + str(target), json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def remove_entry(file: tuple[int, int]) -> None:
    """Remove the entry of `file` (nothing there: nothing to do). Never raises: a failure is one warning."""
    target = entry_path(file)
    try:
        target.unlink(missing_ok=True)
    except OSError as e:
        _warn(target.parent, "changed", e)


__all__ = [
    "ENV",
    "FOLDER",
    "TAG",
    "entry_path",
    "is_entry",
    "listed_heads",
    "read_entry",
    "remove_entry",
    "state_dir",
    "write_entry",
]
