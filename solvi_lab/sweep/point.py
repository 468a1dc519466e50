"""Run one point of a sweep into one flat row: parameters, every scalar metric, every claim, figures, timing.

Columns: `study`, `point`, `seed`, `quick`, `params` (JSON), `p.<name>` per parameter, `m.<metric>` per scalar
metric, `c.<claim key>` per checked row of `StudyResult.claims()`, `f.<row key>` for every comparison row whose
ours and published figures are numbers (with the published value in the JSON column `published`), `wall_s`,
`worker`, `version`, `commit` (the checkout's git commit, "+dirty" when its code differs from it; "unknown"
outside a git checkout), for a plug-in study `study_package`, `study_version`, `study_commit` (its own package's
version and its folder's git commit), `error` (None, or the exception in one line), `finished` (UTC).
"""

from __future__ import annotations

import datetime
import functools
import inspect
import json
import math
import subprocess
import time
from pathlib import Path
from typing import Any

from .grid import Point


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "local"


CODE_PATHS = ("solvi_lab", "pyproject.toml", "environment.yml")  # what decides a point's results


@functools.cache
def folder_commit(folder: str, paths: tuple[str, ...] = (".",)) -> str:
    """The git commit (12 hex digits) of the checkout holding `folder`, "+dirty" when `paths` (relative to `folder`)
    differ from it; "unknown" when `folder` is in no git checkout (or git is missing).

    >>> folder_commit("/")
    'unknown'
    """

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=folder, capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "--short=12", "HEAD")
        # only the code a point runs counts: a docs edit while a sweep runs does not change its results
        dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", *paths))
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def study_provenance(study: str) -> dict[str, str]:
    """A plug-in study's own package, version and commit (its module's folder), recorded beside solvi_lab's in
    every row of its sweeps; {} for a built-in study (solvi_lab's version and commit are its own)."""
    from importlib.metadata import PackageNotFoundError, version

    from ..studies import registry

    info = registry.get(study)
    if info.builtin:
        return {}
    try:
        package_version = version(info.package)
    except PackageNotFoundError:
        package_version = "unknown"
    module_file = getattr(registry.load_module(info), "__file__", None)
    commit = folder_commit(str(Path(module_file).resolve().parent)) if module_file else "unknown"
    return {"study_package": info.package, "study_version": package_version, "study_commit": commit}


@functools.cache
def code_commit() -> str:
    """The git commit of the checkout the studies run from (12 hex digits), "+dirty" when its code (`CODE_PATHS`)
    differs from it, "unknown" when it is not a git checkout: what a stored sweep says it ran on.

    >>> c = code_commit(); c == "unknown" or len(c.split("+")[0]) == 12
    True
    """
    from ..studies import registry

    return folder_commit(str(registry.repo_root()), CODE_PATHS)


def run_point(point: Point) -> dict[str, Any]:
    """Run the study at this point; never raises for an error of the study (it is recorded in `error`)."""
    import matplotlib

    matplotlib.use("agg")  # a worker has no display; figures are built and closed, never shown
    from .. import __version__
    from ..studies import registry

    row: dict[str, Any] = {
        "study": point.study,
        "point": point.id,
        "seed": point.seed,
        "quick": point.quick,
        "params": json.dumps(point.kwargs, sort_keys=True),
        **{f"p.{k}": v for k, v in point.params},
        "worker": _worker_name(),
        "version": __version__,
        "commit": code_commit(),
        "error": None,
    }
    t0 = time.perf_counter()
    try:
        row.update(study_provenance(point.study))  # a plug-in's own version and commit (a broken one: its error)
        run = registry.load_module(point.study).run
        kwargs = {**point.kwargs, "seed": point.seed}
        if "progress" in inspect.signature(run).parameters:
            kwargs["progress"] = False
        result = run(**kwargs)
        for k, v in result.metrics.items():
            if isinstance(v, bool) or _number(v) or isinstance(v, str):
                row[f"m.{k}"] = v
        for k, holds in result.claims().items():
            row[f"c.{k}"] = bool(holds)
        # which part of the table each checked row is (claim of the specification, finding, mechanism check)
        row["parts"] = json.dumps(
            {(c.key or c.measure): c.kind for c in result.comparison if c.holds is not None}, sort_keys=True
        )
        published = {}
        # Only a study compared with published figures has them; a study compared with something else (learner
        # evidence: a naive reference model) records its figures without a "published" value to be inside of.
        with_published = getattr(result, "reference", "published") == "published"
        for c in result.comparison:
            if _number(c.ours) and _number(c.published):
                key = c.key or c.measure
                row[f"f.{key}"] = float(c.ours)
                if with_published:
                    published[key] = float(c.published)
        row["published"] = json.dumps(published, sort_keys=True)
        _close(result.figures)
    except Exception as err:  # one failing point is recorded; the sweep goes on
        row["error"] = f"{type(err).__name__}: {err}".splitlines()[0][:500]
    row["wall_s"] = time.perf_counter() - t0
    row["finished"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    return row


def _close(figures: dict[str, Any]) -> None:
    import matplotlib.pyplot as plt

    for fig in figures.values():
        plt.close(fig)
