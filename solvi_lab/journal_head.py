"""Where a JSONL journal's head checkpoint lives, and the one function that writes it.

The checkpoint (`{"count": n, "hash": last}` as canonical JSON) is kept in two places, so that it follows the
*file*, not the name the file was opened by:

- an extended attribute on the journal file itself (`user.solvi_lab.head`): it lives on the inode, so every name
  of the file — its path, a symlink, a hard link, another spelling — sees the same checkpoint, and a cut made in
  place (truncate, rewrite) keeps it;
- `<real path>.head`, beside the file the path resolves to (symlinks followed): portable — a copy can carry it,
  and it works on a file system without user extended attributes (then it is the only place).

A reader checks the journal against every place it finds; a writer writes both (the attribute first: where the
directory is read-only the attribute is still written). `Journal.repair` writes both for what it kept.

**The checkpoint names its file** (issue 40): besides the count and the last hash it holds the file's identity
(`"file"`: device and inode) and the journal's first record hash (`"first"`). So

- a `.head` found by name that names neither this file nor this journal's first record is another journal's (the
  file it was written for was moved away or replaced by a new journal): it is not this journal's checkpoint, and is
  not checked (a new journal at a moved journal's old name opens);
- a name that has no `.head` of its own (a hard link, or the new name after a move) finds the `.head` files beside
  it that name its file (`sibling_checkpoints`), so a cut made through a hard link is refused by `.head` alone on a
  file system without user attributes, or after a copy that dropped them;
- a hard link in *another* directory has no `.head` beside it: every checkpoint is also written to the head index
  (`solvi_lab.journal_head_index`: a state folder, one entry per file identity), which every name of the file finds
  by its (device, inode) — an entry counts only for the same use of the inode (its generation, where the file
  system tells it; else when it names this journal's first record): a new file on a reused inode number is not
  held to a deleted file's entry;
- `Journal.repair` through any name rewrites every checkpoint that names the file (the index entry too), and
  `Journal.forget_head(path)` removes them all: the documented way to replace a journal on purpose.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "j.jsonl"; _ = p.write_bytes(b"")
>>> write_checkpoint(p, checkpoint_text(0, "0" * 64))
>>> [where for where, _ in read_checkpoints(p)] in ([XATTR, str(head_file(p))], [str(head_file(p))])
True
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

from . import journal_head_index
from .atomicfile import atomic_write_text
from .jsontext import dumps_canonical

XATTR = "user.solvi_lab.head"
# Errors that mean "this file system keeps no user attributes here": not a failure, the .head file is enough.
_NO_XATTR = {errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}


SUFFIX = ".head"


def head_file(path: str | os.PathLike) -> Path:
    """The `.head` file of the journal at `path`: beside the file the path resolves to (symlinks followed)."""
    return Path(os.path.realpath(path) + SUFFIX)


def checkpoint_text(
    count: int,
    last_hash: str,
    vouch: tuple[int, str] | None = None,
    first: str | None = None,
    file: tuple[int, int] | None = None,
) -> str:
    """The checkpoint's content: what every place holds (one function, so a new field goes in once). `vouch`: the
    (position, hash) of a record the writer vouches for (`Journal.vouch`); `first`: the journal's first record hash
    (None for an empty journal); `file`: the journal file's (device, inode). Each is left out when None."""
    d: dict = {"count": count, "hash": last_hash}
    if vouch is not None:
        d["vouch"] = [vouch[0], vouch[1]]
    if first is not None:
        d["first"] = first
    if file is not None:
        d["file"] = [file[0], file[1]]
    return dumps_canonical(d) + "\n"


def identity(path: str | os.PathLike | int) -> tuple[int, int]:
    """(device, inode) of the file at `path` (or of an open descriptor): what every name of one file shares."""
    st = os.fstat(path) if isinstance(path, int) else os.stat(path)
    return st.st_dev, st.st_ino


def names_file(text: str, file: tuple[int, int]) -> bool:
    """True when checkpoint `text` names the file of identity `file` (False for an older checkpoint naming none)."""
    try:
        d = json.loads(text)
    except (ValueError, RecursionError):
        return False
    f = d.get("file") if type(d) is dict else None
    return type(f) is list and len(f) == 2 and (f[0], f[1]) == tuple(file)


def _naming(head: Path, me: tuple[int, int]) -> str | None:
    """The text of `.head` file `head` when it is a checkpoint of the file of identity `me`: it names that file and
    its own journal (the name it sits beside) is that file or gone (moved away). None otherwise, or unreadable."""
    stem = head.parent / head.name[: -len(SUFFIX)]
    try:
        if identity(stem) != me:
            return None  # the .head of another file that is still there
    except FileNotFoundError:
        pass  # its file is gone (moved): the .head may name this one
    except OSError:
        return None
    try:
        text = head.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text if names_file(text, me) else None


def sibling_checkpoints(path: str | os.PathLike) -> list[tuple[str, str]]:
    """(where, text) of each `<name>.head` beside the file `path` resolves to, other than its own, that names that
    file (a hard link's, or the one left at a moved file's old name). A `.head` whose journal is another live file
    (another inode under that name) is not read."""
    real = Path(os.path.realpath(path))
    try:
        me = identity(real)
        entries = list(os.scandir(real.parent))
    except OSError:
        return []
    own = real.name + SUFFIX
    found: list[tuple[str, str]] = []
    for e in entries:
        if not e.name.endswith(SUFFIX) or e.name == own:
            continue
        text = _naming(Path(e.path), me)
        if text is not None:
            found.append((e.path, text))
    return sorted(found)


def named_elsewhere(path: str | os.PathLike) -> list[str]:
    """The `.head` files in *other* folders that name the file at `path` (a hard link's there, or a moved file's
    old name), as its head index entry lists them (`journal_head_index.listed_heads`): what a repair or
    `forget_head` through this name must reach besides the siblings beside it."""
    real = Path(os.path.realpath(path))
    try:
        me = identity(real)
    except OSError:
        return []
    return sorted(
        h
        for h in journal_head_index.listed_heads(me)
        if Path(h).parent != real.parent and Path(h) != head_file(real) and _naming(Path(h), me) is not None
    )


def write_checkpoint(path: str | os.PathLike, text: str, fd: int | None = None, siblings: bool = False) -> None:
    """Write the checkpoint `text` to both places; OSError naming what failed when a place could not be written
    (the attribute is tried first and a failure of one does not stop the other). `fd`: an open descriptor of the
    journal (the writer's), so the attribute goes to the very file it holds. `siblings`: also rewrite every other
    `.head` that names this file (`sibling_checkpoints`: what a repair through one name does for the others). The
    head index entry is written last (never an error: `journal_head_index.write_entry` warns)."""
    problems: list[str] = []
    try:
        os.setxattr(path if fd is None else fd, XATTR, text.encode("utf-8"))
    except OSError as e:
        if e.errno not in _NO_XATTR:
            problems.append(f"extended attribute {XATTR}: {e.strerror or e}")
    targets = [head_file(path)]
    if siblings:
        targets += [Path(where) for where, _ in sibling_checkpoints(path)]
        targets += [Path(where) for where in named_elsewhere(path)]
    written: list[str] = []
    for target in targets:
        try:
            atomic_write_text(target, text)
            written.append(str(target))
        except OSError as e:
            problems.append(f"{target}: {e.strerror or e}")
    try:
        file = path if fd is None else fd
        journal_head_index.write_entry(identity(file), text, written, journal_head_index.generation(file))
    except OSError as e:  # the file itself cannot be stat'ed: its other places said so above, or will on open
        problems.append(f"head index: {e.strerror or e}")
    if problems:
        raise OSError(errno.EIO, "; ".join(problems))


def read_checkpoints(path: str | os.PathLike, siblings: bool = True, index: bool = True) -> list[tuple[str, str]]:
    """(where, text) of each place that holds a checkpoint of the journal at `path` (none: an empty list): its
    attribute, its `.head`, (`siblings`) every other `.head` beside it naming its file, and (`index`) its head index
    entry (`journal_head_index`; where = "head index <entry path>": the reader checks its first record before it
    counts). OSError/UnicodeDecodeError when the attribute or its own `.head` exists but cannot be read."""
    found: list[tuple[str, str]] = []
    try:
        found.append((XATTR, os.getxattr(path, XATTR).decode("utf-8")))
    except OSError as e:
        if e.errno != errno.ENODATA and e.errno not in _NO_XATTR:
            raise
    target = head_file(path)
    try:
        found.append((str(target), target.read_text(encoding="utf-8")))
    except FileNotFoundError:
        pass
    if siblings:
        found += sibling_checkpoints(path)
    if index:
        try:
            entry = journal_head_index.read_entry(identity(path), journal_head_index.generation(path))
        except OSError:
            entry = None  # no file to name: nothing in the index is its
        if entry is not None:
            found.append(entry)
    return found


def remove_checkpoints(path: str | os.PathLike, siblings: bool = False) -> None:
    """Delete the checkpoint from every place — its attribute, its `.head`, its head index entry (and, with
    `siblings`, every other `.head` naming this file): `Journal.forget_head` (the documented way to replace a journal
    on purpose); the fault harness and tests use it to cut a journal that no checkpoint should notice."""
    try:
        os.removexattr(path, XATTR)
    except OSError as e:
        if e.errno != errno.ENODATA and e.errno not in _NO_XATTR:
            raise
    if siblings:
        for where in [w for w, _ in sibling_checkpoints(path)] + named_elsewhere(path):
            Path(where).unlink(missing_ok=True)
    head_file(path).unlink(missing_ok=True)
    try:
        journal_head_index.remove_entry(identity(path))  # last: it lists the other folders' .head files
    except OSError:
        pass  # no file at `path`: no entry can be its


__all__ = [
    "XATTR",
    "checkpoint_text",
    "head_file",
    "identity",
    "named_elsewhere",
    "names_file",
    "read_checkpoints",
    "remove_checkpoints",
    "sibling_checkpoints",
    "write_checkpoint",
]
