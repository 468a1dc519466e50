"""What `solvi-lab reproduce` shows while notebooks run: which studies are running, their cells, and the time left.

The time left is estimated from measured times, never from the rate at which studies finish (one study can take
a hundred times another): a study's duration in the last run at the same size (`<out>/<study>/run.json`), else,
once a cell has finished, its own elapsed time scaled by the cells left. With several notebooks at once the
estimate places the queued studies on the first worker free, as the scheduler does.

A notebook running in a Dask worker reports its cells through a small JSON file (`CellFile`, written by the
papermill engine in reproduce.py), which the main process reads between waits; a notebook run in this process
reports each cell to a `CellCounter`, which redraws the line at once.

`JobProgress` draws it. On a terminal: one live line, redrawn, naming the running studies, their cells and the time
left. Anywhere else (a CI log, a file): one line per study started and per study finished, never a redraw.

>>> estimate_left({"retraction": (60.0, 10, 50)}, ["explore"], {"retraction": 160.0, "explore": 11.0}, jobs=2)
(100.0, 'last run')
>>> status_line({"retraction": (60.0, 10, 50), "explore": (5.0, 3, 30)}, (100.0, "last run"))
'running retraction 10/50 cells, explore 3/30 cells · about 1 min 40 s left (last run)'
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm  # plain tqdm: tqdm.auto needs ipywidgets and renders as text in static output

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


class CellCounter:
    """A stand-in for papermill's per-cell bar in this process: each cell calls `on_cell(done, total)` at once."""

    def __init__(self, total: int, on_cell: Callable[[int, int], None]):
        self.total, self.n, self.on_cell = int(total), 0, on_cell
        self.on_cell(0, self.total)

    def update(self, k: int = 1) -> None:
        self.n += k
        self.on_cell(self.n, self.total)

    def refresh(self) -> None:
        pass

    def set_description(self, *_: Any, **__: Any) -> None:
        pass

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


#: The live line: studies done and elapsed time, then the status line (tqdm's own "remaining" would extrapolate
#: from studies finished, and one study can take a hundred times another).
_BAR = "{desc}: {n_fmt}/{total_fmt} studies [{elapsed}]{postfix}"


def is_terminal(stream: Any) -> bool:
    """True when `stream` is a terminal (a live line can be redrawn there); False for a file, a pipe, a CI log."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class JobProgress:
    """What `reproduce` shows while its notebooks run, on `stream` (default stderr).

    live=None decides by the stream: a terminal gets one line redrawn in place (the studies running, their cells,
    the time left); anything else gets one plain line per study started and finished, and no redraws.

    >>> import io
    >>> out = io.StringIO()
    >>> p = JobProgress(["a", "b"], jobs=1, previous={"b": 30.0}, stream=out)
    >>> p.running({"a": (2.0, 1, 4)})
    >>> p.finished("a", "a: ok in 8.0 s")
    >>> p.close()
    >>> print(out.getvalue(), end="")
    [0/2] started a (4 cells)
    [1/2] a: ok in 8.0 s · about 30 s left (last run)
    """

    def __init__(
        self,
        names: list[str],
        *,
        jobs: int,
        previous: dict[str, float] | None = None,
        stream: TextIO | None = None,
        live: bool | None = None,
        title: str = "reproduce",
    ):
        self.stream = stream if stream is not None else sys.stderr
        self.live = is_terminal(self.stream) if live is None else live
        self.order, self.jobs, self.previous = list(names), jobs, dict(previous or {})
        self.started: list[str] = []
        self.done: list[str] = []
        self._now: dict[str, Running] = {}
        self._bar = tqdm(
            total=len(self.order), desc=title, bar_format=_BAR, file=self.stream, disable=not self.live, leave=True
        )

    def _left(self, running: dict[str, Running]) -> tuple[float | None, str]:
        queued = [n for n in self.order if n not in self.done and n not in running]
        return estimate_left(running, queued, self.previous, jobs=self.jobs)

    def _say(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def running(self, running: dict[str, Running]) -> None:
        """The studies running now with their cells: names the new ones (plain) or redraws the line (live)."""
        self._now = dict(running)
        for name, (_, _, cells) in running.items():
            if name not in self.started:
                self.started.append(name)
                if not self.live:
                    self._say(f"[{len(self.done)}/{len(self.order)}] started {name} ({cells} cells)")
        if self.live:
            self._bar.set_postfix_str(status_line(running, self._left(running)))

    def cells_of(self, name: str) -> Callable[[int], CellCounter]:
        """A per-cell sink for a notebook run in this process (the papermill engine builds it with the cell count)."""
        t0 = time.time()

        def on_cell(done: int, total: int) -> None:
            self.running({name: (time.time() - t0, done, total)})

        return lambda total: CellCounter(total, on_cell)

    def finished(self, name: str, outcome: str, *, ok: bool = True) -> None:
        """One study done: `outcome` is its one-line result (always printed plain; live only when not ok)."""
        if name not in self.started:
            self.started.append(name)
            if not self.live:
                self._say(f"[{len(self.done)}/{len(self.order)}] started {name}")
        self.done.append(name)
        self._now.pop(name, None)
        if self.live:
            # the line names only what still runs (the last one finished: nothing)
            left = ""
            if len(self.done) < len(self.order):
                left = status_line(self._now, self._left(self._now))
                queued = [n for n in self.order if n not in self.done and n not in self._now]
                if not self._now and queued:  # between two studies: name the next one, not "starting"
                    left = left.replace("starting", f"next {queued[0]}", 1)
            self._bar.set_postfix_str(left, refresh=False)
            self._bar.update(1)
            self._bar.refresh()  # drawn now, whatever tqdm's own redraw interval says
            if not ok:
                self._bar.write(outcome, file=self.stream)
            return
        seconds, basis = self._left(self._now) if len(self.done) < len(self.order) else (None, "")
        tail = f" · about {fmt_seconds(seconds)} left ({basis})" if seconds is not None else ""
        self._say(f"[{len(self.done)}/{len(self.order)}] {outcome}{tail}")

    def close(self) -> None:
        self._bar.close()
