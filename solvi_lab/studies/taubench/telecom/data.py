"""Find and load the τ²-bench telecom data (both databases, 2,285 tasks, splits, tool schemas, policy).

The data is never part of this repository. It is looked for, in this order: the ``path`` argument; the environment
variable ``SOLVI_LAB_TAU2_TELECOM``; a folder ``shared/data/tau2-telecom`` beside any ancestor of the current
directory or of this package (the shared research machine's layout, as for retail and airline).

``load_telecom()`` gives both databases, the 2,285 tasks in file order, the five splits (small 20, train 74, test
40, base 114, full 2,285), the tool schemas of both sides and the policy.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ....errors import BadInput, DataMissing
from ..domain import find_dir_with_files, read_json
from .model import TelecomDB, TelecomUserDB, load_record

__all__ = ["ENV_VAR", "SPLITS", "TelecomData", "find_data_dir", "find_telecom_dir", "load_telecom"]

ENV_VAR = "SOLVI_LAB_TAU2_TELECOM"
_SHARED = Path("shared") / "data" / "tau2-telecom"
_FILES = ("db.toml", "user_db.toml", "tasks_full.json", "split_tasks.json", "tools.json")
#: The task splits of ``split_tasks.json``.
SPLITS = ("small", "train", "test", "base", "full")

_HOW_TO_GET = (
    f"To fix: set the environment variable {ENV_VAR} to a directory holding db.toml, user_db.toml, "
    "tasks_full.json, split_tasks.json and tools.json (the export kept in shared/data/tau2-telecom, made from "
    "https://github.com/sierra-research/tau2-bench data/tau2/domains/telecom), or pass path=... explicitly."
)


@dataclass(frozen=True)
class TelecomData:
    """The telecom domain as loaded. ``crm`` and ``phone`` are fresh records (an environment takes its own copy).

    tasks: the 2,285 task dicts in file order; splits: split name → task ids; tools: ``{"assistant": [...13],
    "user": [...30]}`` schemas; policy: the agent's policy followed by the tech-support manual, as upstream's
    system prompt joins them.
    """

    crm: TelecomDB
    phone: TelecomUserDB
    tasks: list[dict[str, Any]]
    splits: dict[str, list[str]]
    tools: dict[str, list[dict[str, Any]]]
    policy: str
    source_dir: Path

    def split(self, name: str) -> list[dict[str, Any]]:
        """The tasks of one split, in file order; UnknownId-like BadInput for a split that does not exist."""
        if name not in self.splits:
            raise BadInput(f"telecom has no split {name!r}; the splits are {sorted(self.splits)}.")
        wanted = set(self.splits[name])
        return [task for task in self.tasks if task["id"] in wanted]


def find_telecom_dir(path: str | Path | None = None) -> Path:
    """The folder holding the telecom data, or DataMissing saying how to get it.

    >>> find_telecom_dir("/nonexistent")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    solvi_lab.errors.DataMissing: path=/nonexistent does not exist. To fix: ...
    """
    return find_dir_with_files(path, ENV_VAR, _SHARED, _FILES, _HOW_TO_GET, "telecom")


find_data_dir = find_telecom_dir  # the name the study registry looks for


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataMissing(f"{path} is missing. {_HOW_TO_GET}") from None
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"{path} is not valid TOML ({e}); re-copy it from the τ²-bench export.") from None


def load_databases(path: str | Path | None = None) -> tuple[TelecomDB, TelecomUserDB]:
    """Only the two databases (fresh records), without the 14 MB of tasks."""
    directory = find_telecom_dir(path)
    crm = load_record(TelecomDB, _read_toml(directory / "db.toml"), "db.toml")
    phone = load_record(TelecomUserDB, _read_toml(directory / "user_db.toml"), "user_db.toml")
    return crm, phone


def load_telecom(path: str | Path | None = None) -> TelecomData:
    """Load both databases, all tasks, the splits, the tool schemas and the policy (fresh objects, ~0.3 s)."""
    directory = find_telecom_dir(path)
    crm, phone = load_databases(directory)
    policy = ""
    main, manual = directory / "main_policy.md", directory / "tech_support_manual.md"
    if main.is_file() and manual.is_file():
        policy = (
            f"<main_policy>\n{main.read_text(encoding='utf-8')}\n</main_policy>\n"
            f"<tech_support_policy>\n{manual.read_text(encoding='utf-8')}\n</tech_support_policy>"
        )
    return TelecomData(
        crm=crm,
        phone=phone,
        tasks=read_json(directory / "tasks_full.json", list, _HOW_TO_GET, "the τ²-bench export"),
        splits=read_json(directory / "split_tasks.json", dict, _HOW_TO_GET, "the τ²-bench export"),
        tools=read_json(directory / "tools.json", dict, _HOW_TO_GET, "the τ²-bench export"),
        policy=policy,
        source_dir=directory,
    )
