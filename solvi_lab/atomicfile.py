"""Write a file so that readers see the old content or the new one, never half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

#: The mode of every file the toolkit writes through a temporary file (mkstemp makes owner-only 0600 files; results,
#: maps, sweeps and exports are meant to be read by others, like a file `open()` makes under the usual umask).
FILE_MODE = 0o644


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write to a temporary file beside `path`, flush it to disk, then rename it over `path`.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a" / "x.txt"
    >>> atomic_write_text(p, "hello"); p.read_text()
    'hello'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, FILE_MODE)  # mkstemp makes owner-only files; results and maps are meant to be read by others
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
