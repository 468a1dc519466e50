"""Find and load the τ-bench airline data (users, flights, reservations, tasks, tool schemas, policy, GPT-4o runs).

The data is never part of this repository. It is looked for, in this order: the ``path`` argument; the
environment variable ``SOLVI_LAB_TAUBENCH_AIRLINE``; a folder ``shared/data/taubench-airline`` beside any
ancestor of the current directory or of this package (the shared research machine's layout).

>>> from solvi_lab.studies.taubench.airline.data import load_airline  # doctest: +SKIP
>>> data = load_airline()                                               # doctest: +SKIP
>>> len(data.reservations), len(data.tasks)                             # doctest: +SKIP
(2000, 50)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..domain import find_dir_with_files, read_json

__all__ = ["ENV_VAR", "AirlineData", "find_airline_dir", "find_data_dir", "load_airline", "load_trajectories"]

ENV_VAR = "SOLVI_LAB_TAUBENCH_AIRLINE"
_SHARED = Path("shared") / "data" / "taubench-airline"
_FILES = ("users.json", "flights.json", "reservations.json", "tasks_test.json", "tools.json")
TRAJECTORIES = Path("trajectories") / "gpt-4o-airline.json"

_HOW_TO_GET = (
    f"To fix: set the environment variable {ENV_VAR} to a directory holding users.json, flights.json, "
    "reservations.json, tasks_test.json and tools.json (plus policy.md and trajectories/gpt-4o-airline.json for "
    "the study; the export kept in shared/data/taubench-airline, made from "
    "https://github.com/sierra-research/tau-bench tau_bench/envs/airline and historical_trajectories/), "
    "or pass path=... explicitly."
)


@dataclass(frozen=True)
class AirlineData:
    """The airline domain as loaded: plain dicts and lists exactly as in the JSON files (treat as read-only)."""

    users: dict[str, Any]
    flights: dict[str, Any]
    reservations: dict[str, Any]
    tasks: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    policy: str
    source_dir: Path


def find_airline_dir(path: str | Path | None = None) -> Path:
    """The folder holding the airline data, or DataMissing saying how to get it.

    >>> find_airline_dir("/nonexistent")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    solvi_lab.errors.DataMissing: path=/nonexistent does not exist. To fix: ...
    """
    return find_dir_with_files(path, ENV_VAR, _SHARED, _FILES, _HOW_TO_GET, "airline")


def _read_json(path: Path, expect: type) -> Any:
    return read_json(path, expect, _HOW_TO_GET, "the τ-bench export")


def load_airline(path: str | Path | None = None) -> AirlineData:
    """Load users, flights, reservations, the 50 test tasks, the 14 tool schemas and the policy (fresh objects)."""
    directory = find_airline_dir(path)
    policy = directory / "policy.md"
    return AirlineData(
        users=_read_json(directory / "users.json", dict),
        flights=_read_json(directory / "flights.json", dict),
        reservations=_read_json(directory / "reservations.json", dict),
        tasks=_read_json(directory / "tasks_test.json", list),
        tools=_read_json(directory / "tools.json", list),
        policy=policy.read_text(encoding="utf-8") if policy.is_file() else "",
        source_dir=directory,
    )


def load_trajectories(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The 200 recorded GPT-4o runs (``trajectories/gpt-4o-airline.json``), or DataMissing saying how to get them."""
    return _read_json(find_airline_dir(path) / TRAJECTORIES, list)


find_data_dir = find_airline_dir  # the name the study registry looks for
