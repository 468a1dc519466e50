"""The one place the native Parquet readers (polars, pyarrow) read a journal export.

`import_journal` calls `read_native` in its own process only for a file whose digest matches the one
`export_journal` wrote; any other file is first read by this same file run as a script in a child process
(`python parquet_native.py FILE`), which imports nothing of solvi_lab — so a reader that aborts the process
(SIGABRT on a failed allocation) or panics ends the child, and the import is refused with the reason.

>>> import polars as pl, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "f.parquet"; pl.DataFrame({"position": [0]}).write_parquet(p)
>>> read_native(p)[:2]
(['position'], [(0,)])
"""

from __future__ import annotations

import os
import sys

COLUMNS = ("position", "kind", "payload", "prev", "hash", "t")


def read_native(path: str | os.PathLike) -> tuple[list[str], list[tuple], dict[bytes, bytes]]:
    """(column names, the journal columns' rows in order, the file's key-value metadata)."""
    import polars as pl
    import pyarrow.parquet as pq

    frame = pl.read_parquet(path)
    rows = list(frame.select(*[c for c in COLUMNS if c in frame.columns]).iter_rows())
    meta = pq.read_schema(path).metadata or {}
    return frame.columns, rows, dict(meta)


if __name__ == "__main__":  # the child of import_journal's probe: exit 0 when the file reads, else say why
    try:
        read_native(sys.argv[1])
    except BaseException as e:  # noqa: BLE001 - a panic is a BaseException, and the parent needs its text
        sys.stderr.write(f"\n{type(e).__name__}: {str(e)[:300]}")
        sys.exit(3)
