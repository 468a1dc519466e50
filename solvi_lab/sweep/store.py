"""Each finished point is its own Parquet file `<dir>/points/<point id>.parquet`, written atomically.

A killed sweep leaves only whole files; `--resume` reads which ids are done and runs the rest, and the id is the
file name, so no point can be counted twice. `combine` gathers them into `<dir>/sweep.parquet`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

from ..atomicfile import FILE_MODE


def points_dir(out: Path) -> Path:
    return Path(out) / "points"


def write_point(out: Path, row: dict[str, Any]) -> Path:
    """Write one row to `<out>/points/<row['point']>.parquet` (temporary file, fsync, rename)."""
    directory = points_dir(out)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{row['point']}.parquet"
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=path.name, suffix=".tmp")
    os.close(fd)
    try:
        pl.DataFrame([row], infer_schema_length=None).write_parquet(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, FILE_MODE)  # as every other output (mkstemp's file is owner-only)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_points(out: Path) -> pl.DataFrame:
    """Every finished point of the sweep in `out`, sorted by (params, seed); an empty frame if none."""
    files = sorted(points_dir(out).glob("*.parquet"))
    if not files:
        return pl.DataFrame()
    frame = pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed")
    return frame.sort(["params", "seed"])


def done_ids(out: Path) -> set[str]:
    """Ids of the points that finished without error (a point that raised is run again on resume)."""
    frame = read_points(out)
    if frame.is_empty():
        return set()
    return set(frame.filter(pl.col("error").is_null())["point"].to_list())


def combine(out: Path) -> Path:
    """Gather every point into `<out>/sweep.parquet` (atomically); returns its path."""
    frame = read_points(out)
    path = Path(out) / "sweep.parquet"
    fd, tmp = tempfile.mkstemp(dir=out, prefix=path.name, suffix=".tmp")
    os.close(fd)
    try:
        frame.write_parquet(tmp)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
