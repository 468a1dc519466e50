"""What `solvi-lab reproduce` shows while notebooks run: which studies are running, their cells, and the time left.

The time left is estimated from measured times, never from the rate at which studies finish (one study can take
a hundred times another): a study's duration in the last run at the same size (`<out>/<study>/run.json`), else,
once a cell has finished, its own elapsed time scaled by the cells left. With several notebooks at once the
estimate places the queued studies on the first worker free, as the scheduler does.

A notebook running in a Dask worker reports its cells through a small JSON file (`CellFile`, written by the
papermill engine in reproduce.py), which the main process reads between waits.

>>> estimate_left({"retraction": (60.0, 10, 50)}, ["explore"], {"retraction": 160.0, "explore": 11.0}, jobs=2)
(100.0, 'last run')
>>> status_line({"retraction": (60.0, 10, 50), "explore": (5.0, 3, 30)}, (100.0, "last run"))
'running retraction 10/50 cells, explore 3/30 cells · about 1 min 40 s left (last run)'
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from .atomicfile import atomic_write_text

#: A running study: (seconds since it started, cells done, cells in all).
Running = tuple[float, int, int]


class CellFile:
    """A stand-in for papermill's per-cell tqdm bar that writes `{"done", "total", "started"}` to a file.

    >>> import tempfile, pathlib
    >>> f = CellFile(pathlib.Path(tempfile.mkdtemp()) / "x.json", total=4)
    >>> f.update(1); f.update(1)
    >>> read_cells(f.path)[1:]
    (2, 4)
    """

    def __init__(self, path: Path | str, total: int):
        self.path, self.total, self.n = Path(path), int(total), 0
        self.started = time.time()
        self._write()

    def _write(self) -> None:
        payload = {"done": self.n, "total": self.total, "started": self.started}
        atomic_write_text(self.path, json.dumps(payload) + "\n")

    def update(self, k: int = 1) -> None:
        self.n += k
        self._write()

    def refresh(self) -> None:
        self._write()

    def set_description(self, *_: Any, **__: Any) -> None:
        pass  # papermill names the cell it runs; the report line names the study instead

    def close(self) -> None:
        pass


def read_cells(path: Path | str, now: float | None = None) -> Running | None:
    """(seconds since the study started, cells done, cells in all) from a CellFile, or None before it exists."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # not started yet (or caught between write and rename: read again at the next tick)
    return (max(0.0, (now or time.time()) - float(data["started"])), int(data["done"]), int(data["total"]))


def previous_seconds(out: Path | str, names: list[str], *, quick: bool) -> dict[str, float]:
    """Each study's duration in the last run into `out` at the same size (status ok), read before it is cleared."""
    found: dict[str, float] = {}
    for name in names:
        try:
            run = json.loads((Path(out) / name / "run.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if run.get("status") == "ok" and bool(run.get("quick")) == quick and run.get("seconds"):
            found[name] = float(run["seconds"])
    return found


def _one_left(name: str, state: Running, previous: dict[str, float]) -> tuple[float | None, str]:
    elapsed, done, total = state
    if name in previous and previous[name] > elapsed:
        return previous[name] - elapsed, "last run"
    if done > 0 and total > 0:  # no measurement (or it ran over): scale what this run has shown so far
        return elapsed * (total - done) / done, "cells so far"
    return None, ""


def estimate_left(
    running: dict[str, Running], queued: list[str], previous: dict[str, float], *, jobs: int
) -> tuple[float | None, str]:
    """Seconds until every study is done, and what the estimate rests on; (None, "") when nothing measured says.

    >>> estimate_left({"a": (5.0, 0, 10)}, [], {}, jobs=1)
    (None, '')
    >>> estimate_left({"a": (5.0, 1, 10)}, ["b"], {"b": 20.0}, jobs=1)
    (65.0, 'last run, cells so far')
    """
    bases: list[str] = []
    free: list[float] = []
    for name, state in running.items():
        left, basis = _one_left(name, state, previous)
        if left is None:
            return None, ""
        free.append(left)
        bases.append(basis)
    free += [0.0] * max(0, jobs - len(free))
    for name in queued:
        if name not in previous:
            return None, ""
        free.sort()
        free[0] += previous[name]
        bases.append("last run")
    order = [b for b in ("last run", "cells so far") if b in bases]
    return (max(free) if free else 0.0), ", ".join(order)


def fmt_seconds(seconds: float) -> str:
    """A duration as a person reads it.

    >>> fmt_seconds(7.2), fmt_seconds(100), fmt_seconds(3725)
    ('7 s', '1 min 40 s', '1 h 2 min')
    """
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


def status_line(running: dict[str, Running], left: tuple[float | None, str]) -> str:
    """The bar's text: the studies running now with their cells, and the time left with what it rests on."""
    parts = [f"{name} {done}/{total} cells" for name, (_, done, total) in running.items()]
    text = f"running {', '.join(parts)}" if parts else "starting"
    seconds, basis = left
    if seconds is not None:
        text += f" · about {fmt_seconds(seconds)} left ({basis})"
    return text
