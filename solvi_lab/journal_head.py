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

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "j.jsonl"; _ = p.write_bytes(b"")
>>> write_checkpoint(p, checkpoint_text(0, "0" * 64))
>>> [where for where, _ in read_checkpoints(p)] in ([XATTR, str(head_file(p))], [str(head_file(p))])
True
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from .atomicfile import atomic_write_text
from .jsontext import dumps_canonical

XATTR = "user.solvi_lab.head"
# Errors that mean "this file system keeps no user attributes here": not a failure, the .head file is enough.
_NO_XATTR = {errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}


def head_file(path: str | os.PathLike) -> Path:
    """The `.head` file of the journal at `path`: beside the file the path resolves to (symlinks followed)."""
    return Path(os.path.realpath(path) + ".head")


def checkpoint_text(count: int, last_hash: str, vouch: tuple[int, str] | None = None) -> str:
    """The checkpoint's content: what every place holds (one function, so a new field goes in once). `vouch`: the
    (position, hash) of a record the writer vouches for (`Journal.vouch`), left out when there is none."""
    d: dict = {"count": count, "hash": last_hash}
    if vouch is not None:
        d["vouch"] = [vouch[0], vouch[1]]
    return dumps_canonical(d) + "\n"


def write_checkpoint(path: str | os.PathLike, text: str, fd: int | None = None) -> None:
    """Write the checkpoint `text` to both places; OSError naming what failed when a place could not be written
    (the attribute is tried first and a failure of one does not stop the other). `fd`: an open descriptor of the
    journal (the writer's), so the attribute goes to the very file it holds."""
    problems: list[str] = []
    try:
        os.setxattr(path if fd is None else fd, XATTR, text.encode("utf-8"))
    except OSError as e:
        if e.errno not in _NO_XATTR:
            problems.append(f"extended attribute {XATTR}: {e.strerror or e}")
    target = head_file(path)
    try:
        atomic_write_text(target, text)
    except OSError as e:
        problems.append(f"{target}: {e.strerror or e}")
    if problems:
        raise OSError(errno.EIO, "; ".join(problems))


def read_checkpoints(path: str | os.PathLike) -> list[tuple[str, str]]:
    """(where, text) of each place that holds a checkpoint of the journal at `path` (none: an empty list).
    OSError/UnicodeDecodeError when a place exists but cannot be read."""
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
    return found


def remove_checkpoints(path: str | os.PathLike) -> None:
    """Delete the checkpoint from both places (what someone who cuts a journal on purpose and wants no
    checkpoint to notice would do; the fault harness and tests use it)."""
    try:
        os.removexattr(path, XATTR)
    except OSError as e:
        if e.errno != errno.ENODATA and e.errno not in _NO_XATTR:
            raise
    head_file(path).unlink(missing_ok=True)


__all__ = ["XATTR", "checkpoint_text", "head_file", "read_checkpoints", "remove_checkpoints", "write_checkpoint"]
