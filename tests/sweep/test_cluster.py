"""A real Dask cluster on loopback: `dask scheduler` and two `dask worker` processes (the dask CLI next to this
interpreter). The sweep against its address gives the serial rows; a worker killed mid-sweep loses nothing and
counts nothing twice (Dask reschedules its task on the other worker)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from solvi_lab.studies import registry
from solvi_lab.sweep import points, store, sweep

DASK = Path(sys.executable).parent / "dask"
RUN_COLUMNS = {"wall_s", "worker", "finished"}  # where and when a point ran: the only columns that may differ


def deterministic(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.select([c for c in frame.columns if c not in RUN_COLUMNS]).sort(["params", "seed"])


def _wait_for(predicate, what: str, limit: float = 120.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + limit  # a bound on waiting for processes to start, not a timed assertion
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.2)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen]]]:
    if not DASK.exists():
        pytest.fail(f"{DASK} not found: install dask[distributed] in this environment (a core dependency)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(registry.REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
    env["MPLBACKEND"] = "agg"
    info = tmp_path / "scheduler.json"
    logs = tmp_path / "logs"
    logs.mkdir()
    procs = [
        subprocess.Popen(
            [
                str(DASK),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(info),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(logs / "scheduler.log", "w"),  # noqa: SIM115
        )
    ]
    try:
        _wait_for(info.exists, "the scheduler file")
        _wait_for(lambda: json.loads(info.read_text() or "{}").get("address"), "the scheduler address")
        address = json.loads(info.read_text())["address"]
        for i in range(2):
            procs.append(
                subprocess.Popen(
                    [
                        str(DASK),
                        "worker",
                        address,
                        "--nworkers",
                        "1",
                        "--nthreads",
                        "1",
                        "--no-dashboard",
                        "--name",
                        f"w{i}",
                        "--no-nanny",
                    ],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=open(logs / f"worker{i}.log", "w"),  # noqa: SIM115
                )
            )
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        yield address, procs
    finally:
        for p in reversed(procs):  # killed, not terminated: a graceful dask shutdown takes seconds per process
            if p.poll() is None:
                p.kill()
            p.wait()


def test_external_scheduler_gives_the_serial_rows(cluster, tmp_path: Path) -> None:
    address, _ = cluster
    ps = points("example", quick=True, grid={"n_samples": [400, 800]}, seeds=[0, 1, 2])
    serial = sweep(ps, tmp_path / "serial", workers=0, progress=False).frame
    remote = sweep(ps, tmp_path / "remote", scheduler=address, progress=False).frame
    assert deterministic(remote).equals(deterministic(serial))
    assert len(set(remote["worker"].to_list())) >= 1 and "local" not in remote["worker"].to_list()


def test_a_worker_killed_mid_sweep_loses_nothing(cluster, tmp_path: Path) -> None:
    address, procs = cluster
    # points slow enough (a few hundred ms each) that the kill lands while tasks are queued and running
    ps = points("example", quick=True, grid={"n_samples": [3_000_000]}, seeds=list(range(10)))
    out = tmp_path / "killed"
    result: dict[str, object] = {}
    thread = threading.Thread(target=lambda: result.update(outcome=sweep(ps, out, scheduler=address, progress=False)))
    thread.start()
    _wait_for(lambda: len(list(store.points_dir(out).glob("*.parquet"))) >= 2, "two finished points")
    procs[1].send_signal(signal.SIGKILL)
    thread.join(timeout=600)
    assert not thread.is_alive()
    outcome = result["outcome"]
    frame = pl.read_parquet(out / "sweep.parquet")
    assert outcome.raised == 0 and frame["error"].null_count() == 10
    assert sorted(frame["seed"].to_list()) == list(range(10))  # nothing lost, nothing twice
    serial = sweep(ps, tmp_path / "serial", workers=0, progress=False).frame
    assert deterministic(frame).equals(deterministic(serial))
    # and resuming the finished sweep runs nothing
    assert sweep(ps, out, scheduler=address, resume=True, progress=False).ran == 0
