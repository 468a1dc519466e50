"""The sweep loop: submit every point not yet done to a Dask client, write each row as it finishes.

The client is a LocalCluster of worker processes (default: one per usable core, one thread each) or an existing
cluster (`scheduler="tcp://host:port"`, started with `dask scheduler` / `dask worker`): the same code path.
`workers=0` runs the points in this process, one after the other (the reference the tests compare Dask with).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
from tqdm import tqdm

from ..atomicfile import atomic_write_text
from ..errors import BadInput
from ..progress import is_terminal
from . import store, summary
from .grid import Point
from .point import run_point


@dataclass
class SweepOutcome:
    """What a sweep did: where it wrote, how many points ran now, were skipped (done before), raised."""

    out: Path
    total: int
    ran: int
    skipped: int
    raised: int
    frame: pl.DataFrame = field(repr=False)
    summary: pl.DataFrame = field(repr=False)
    files: list[Path] = field(default_factory=list)


def usable_cores() -> int:
    """Cores this process may use (affinity-aware where the OS says)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def check_scheduler(address: str, timeout: float = 5.0) -> None:
    """Raise BadInput at once if nothing listens at a `tcp://HOST:PORT` scheduler address.

    Run before any progress bar is drawn, so the error is the only line (distributed's own connect waits its full
    timeout and its error would land on a half-drawn bar).

    >>> check_scheduler("tcp://127.0.0.1:1", timeout=1)
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: cannot reach the Dask scheduler at tcp://127.0.0.1:1 (connection refused); start one with `dask scheduler` and workers with `dask worker ADDRESS` (docs/readme/sweeps.md).
    """
    import socket
    from urllib.parse import urlsplit

    fix = "start one with `dask scheduler` and workers with `dask worker ADDRESS` (docs/readme/sweeps.md)."
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if parts.scheme not in ("tcp", "tls") or not host or not port:
        raise BadInput(f"cannot reach the Dask scheduler at {address}: not an address like tcp://HOST:8786; {fix}")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except ConnectionRefusedError:
        raise BadInput(f"cannot reach the Dask scheduler at {address} (connection refused); {fix}") from None
    except TimeoutError:
        raise BadInput(f"cannot reach the Dask scheduler at {address} (no answer in {timeout:g} s); {fix}") from None
    except OSError as e:  # an unknown host name, no route
        raise BadInput(f"cannot reach the Dask scheduler at {address} ({e.strerror or e}); {fix}") from None


@contextmanager
def client_for(*, workers: int | None, scheduler: str | None) -> Iterator[Any]:
    """A Dask client: connected to `scheduler`, or to a new LocalCluster of `workers` processes (closed after)."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, ValueError) as e:  # unreachable, or not an address (ValueError names what is wrong)
            raise BadInput(
                f"cannot reach the Dask scheduler at {scheduler} ({e}); start one with `dask scheduler` and workers "
                "with `dask worker ADDRESS` (docs/readme/sweeps.md)."
            ) from None
        with client:
            yield client
        return
    os.environ.setdefault("MPLBACKEND", "agg")  # worker processes inherit it
    n = workers or usable_cores()
    with (
        LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        yield client


def _completed(points: list[Point], *, workers: int | None, scheduler: str | None) -> Iterator[dict[str, Any]]:
    if workers == 0 and scheduler is None:
        for p in points:
            yield run_point(p)
        return
    from distributed import as_completed

    with client_for(workers=workers, scheduler=scheduler) as client:
        futures = [client.submit(run_point, p, key=f"solvi-point-{p.id}", pure=False) for p in points]
        by_key = {f.key: p for f, p in zip(futures, points)}
        for future in as_completed(futures):
            try:
                yield future.result()
            except Exception as err:  # the task itself failed (e.g. its workers kept dying): record, go on
                p = by_key[future.key]
                yield {
                    "study": p.study,
                    "point": p.id,
                    "seed": p.seed,
                    "quick": p.quick,
                    "params": json.dumps(p.kwargs, sort_keys=True),
                    **{f"p.{k}": v for k, v in p.params},
                    "error": f"{type(err).__name__}: {err}".splitlines()[0][:500],
                    "worker": "",
                    "wall_s": None,
                }


def sweep(
    points: list[Point],
    out: Path | str,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    progress: bool = True,
) -> SweepOutcome:
    """Run every point not yet done into `out` (one Parquet file per point), then write the summary.

    Without `resume`, a folder that already holds points is refused (so nothing is counted twice); with it, the
    points that finished without error are skipped and the others run.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise BadInput(f"--out {out} is an existing file; give a folder.")
    done = store.done_ids(out)
    existing = list(store.points_dir(out).glob("*.parquet")) if out.is_dir() else []
    if existing and not resume:
        raise BadInput(
            f"{out} already holds {len(existing)} points of a sweep; pass --resume to finish it, or a new --out."
        )
    todo = [p for p in points if p.id not in done]
    raised = 0
    if scheduler is not None and todo:
        check_scheduler(scheduler)  # before the bar: an unreachable scheduler is one clear line, nothing else
    name = points[0].study if points else out.name
    # a bar on a terminal only: in a CI log or a file its redraws would be a line each (the summary line says it all)
    shown = progress and is_terminal(sys.stderr)
    bar = tqdm(
        total=len(points), initial=len(points) - len(todo), unit="point", desc=f"sweep {name}", disable=not shown
    )
    for row in _completed(todo, workers=workers, scheduler=scheduler):
        store.write_point(out, row)
        raised += row.get("error") is not None
        bar.update(1)
    bar.close()
    return finish(out, total=len(points), ran=len(todo), raised=raised)


def finish(out: Path, *, total: int, ran: int, raised: int) -> SweepOutcome:
    """Combine the points into sweep.parquet and write summary.parquet, SUMMARY.md and the figures."""
    frame = store.read_points(out)
    files = [store.combine(out)] if not frame.is_empty() else []
    table = summary.summarize(frame)
    if not table.is_empty():
        table.write_parquet(out / "summary.parquet")
        files.append(out / "summary.parquet")
    study = frame["study"][0] if not frame.is_empty() else out.name
    atomic_write_text(out / "SUMMARY.md", summary.markdown(frame, table, study=study))
    files.append(out / "SUMMARY.md")
    files += summary.figures(frame, out)
    return SweepOutcome(out, total, ran, total - ran, raised, frame, table, files)
