"""Find and load the τ-bench retail data (users, orders, products, tasks, tool schemas, policy).

The data is never part of this repository. It is looked for, in this order:

1. the ``path`` argument;
2. the environment variable ``SOLVI_LAB_TAUBENCH``;
3. a folder ``shared/data/taubench-retail`` next to any ancestor of the current directory or
   of this package (the layout of the shared research machine: ``<root>/main`` is the repo,
   ``<root>/shared/data/taubench-retail`` the data).

A folder is accepted in two layouts: the plain export (``users.json``, ``orders.json``,
``products.json``, ``tasks_{train,test,dev}.json``, ``tools.json``, optional ``policy.md``),
or an upstream tau-bench checkout (root or its ``tau_bench/envs/retail``), whose Python task
files and tool schemas are parsed, never executed (see :mod:`.upstream_tasks`).

>>> from solvi_lab.studies.taubench.data import load_retail  # doctest: +SKIP
>>> data = load_retail()                                       # doctest: +SKIP
>>> len(data.orders), len(data.tasks["test"])                  # doctest: +SKIP
(1000, 115)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solvi_lab.studies.taubench import upstream_tasks
from solvi_lab.studies.taubench.domain import find_domain_dir, read_json, search_roots

__all__ = ["ENV_VAR", "RetailData", "find_data_dir", "load_retail"]

ENV_VAR = "SOLVI_LAB_TAUBENCH"
_SHARED = Path("shared") / "data" / "taubench-retail"
_EXPORT_FILES = (
    "users.json",
    "orders.json",
    "products.json",
    "tasks_train.json",
    "tasks_test.json",
    "tasks_dev.json",
    "tools.json",
)

_HOW_TO_GET = (
    f"To fix: set the environment variable {ENV_VAR} to a directory holding users.json, orders.json, "
    "products.json, tasks_train.json, tasks_test.json, tasks_dev.json and tools.json (the export kept in "
    "shared/data/taubench-retail), or to the root of an upstream tau-bench checkout "
    "(git clone https://github.com/sierra-research/tau-bench); or pass path=... explicitly."
)


@dataclass(frozen=True)
class RetailData:
    """The retail domain as loaded from disk. Plain dicts and lists, exactly as in the JSON files.

    ``tasks`` maps ``"train"``, ``"test"``, ``"dev"`` to lists of task dicts; ``tools`` is the
    list of 16 tool schemas in upstream order. The containers are mutable Python objects: treat
    them as read-only (:class:`~solvi_lab.studies.taubench.env.RetailEnv` takes its own copy).
    """

    users: dict[str, Any]
    orders: dict[str, Any]
    products: dict[str, Any]
    tasks: dict[str, list[dict[str, Any]]]
    tools: list[dict[str, Any]]
    policy: str
    source_dir: Path
    layout: str = field(default="export")  # "export" or "upstream"


def _layout(directory: Path) -> str | None:
    if all((directory / name).is_file() for name in _EXPORT_FILES):
        return "export"
    if upstream_tasks.retail_dir_of(directory) is not None:
        return "upstream"
    return None


def _missing_files(directory: Path) -> list[str]:
    return [name for name in _EXPORT_FILES if not (directory / name).is_file()]


# A module-level name, so that tests can point the upward search elsewhere.
_search_roots = search_roots


def find_data_dir(path: str | Path | None = None) -> Path:
    """Return the folder holding the retail data, or raise DataMissing saying how to get it.

    An explicit ``path`` (or ``SOLVI_LAB_TAUBENCH``) that does not hold the data is an error,
    not a reason to fall back silently to another copy.

    >>> find_data_dir("/nonexistent")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    solvi_lab.errors.DataMissing: path=/nonexistent does not exist. To fix: ...
    """
    return find_domain_dir(
        path,
        ENV_VAR,
        _SHARED,
        lambda d: _layout(d) is not None,
        _HOW_TO_GET,
        lambda d: (
            f"holds neither the exported layout (missing: {', '.join(_missing_files(d))}) "
            "nor an upstream tau-bench checkout"
        ),
        "retail",
        roots=_search_roots(),
    )


def _read_json(path: Path, expect: type) -> Any:
    return read_json(path, expect, _HOW_TO_GET, "the τ-bench export or checkout")


def load_retail(path: str | Path | None = None) -> RetailData:
    """Load users, orders, products, tasks of all splits, tool schemas and policy.

    Each call reads the files afresh (about 0.1 s) and returns new objects.

    >>> data = load_retail()                      # doctest: +SKIP
    >>> [t["function"]["name"] for t in data.tools][:2]  # doctest: +SKIP
    ['calculate', 'cancel_pending_order']
    """
    directory = find_data_dir(path)
    layout = _layout(directory)
    if layout == "export":
        data_dir = directory
        tasks = {s: _read_json(directory / f"tasks_{s}.json", list) for s in upstream_tasks.SPLITS}
        tools = _read_json(directory / "tools.json", list)
        policy_file = directory / "policy.md"
    else:
        retail = upstream_tasks.retail_dir_of(directory)
        assert retail is not None  # _layout said so
        data_dir = retail / "data"
        tasks = upstream_tasks.load_upstream_tasks(retail)
        tools = upstream_tasks.parse_tool_schemas(retail)
        policy_file = retail / "wiki.md"
    return RetailData(
        users=_read_json(data_dir / "users.json", dict),
        orders=_read_json(data_dir / "orders.json", dict),
        products=_read_json(data_dir / "products.json", dict),
        tasks=tasks,
        tools=tools,
        policy=policy_file.read_text(encoding="utf-8") if policy_file.is_file() else "",
        source_dir=directory,
        layout=str(layout),
    )
