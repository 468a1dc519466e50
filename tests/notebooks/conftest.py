"""Fixtures for executing study notebooks in tests: kernel check, quick execution into a tmp folder, skip policy.

Notebooks run through the same code as `solvi-lab run` (`solvi_lab.reproduce.run_notebook`): kernel `python3`,
`MPLBACKEND=agg`, cwd = notebooks/, quick=True plus the study's quick parameters, results into tmp_path.

A study whose external data is missing is skipped with the instruction to get it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from solvi_lab import reproduce
from solvi_lab.errors import SolviLabError
from solvi_lab.studies import registry


@pytest.fixture(scope="session")
def python3_kernel() -> None:
    """Install our kernel inside the venv if missing; fail every notebook test with the fix if that cannot be done."""
    try:
        reproduce.check_kernel()
    except SolviLabError as e:
        pytest.fail(str(e))


@pytest.fixture
def run_quick(python3_kernel: None, tmp_path: Path) -> Callable[[registry.StudyInfo, dict[str, Any]], dict[str, Any]]:
    """Execute a study's notebook in quick mode into tmp_path and return its recorded metrics.

    Fails with the notebook's error and the path of the partial notebook if it does not run through.
    """

    def run(info: registry.StudyInfo, overrides: dict[str, Any]) -> dict[str, Any]:
        result = reproduce.run_notebook(
            info.notebook_path, tmp_path, study=info.name, quick=True, overrides=overrides, progress=False
        )
        if result.status == "no_data":
            pytest.skip(result.message)
        if result.status != "ok":
            pytest.fail(reproduce.describe_run(result))
        metrics_path = tmp_path / info.name / "metrics.json"
        if not metrics_path.exists():
            pytest.fail(
                f"{info.notebook} ran but recorded no metrics at {metrics_path}; it must call "
                f'rec = start("{info.name}", out=results_dir) and rec.record_all(result.metrics).'
            )
        return json.loads(metrics_path.read_text(encoding="utf-8"))

    return run


@pytest.fixture(scope="session")
def first_quick_run(
    python3_kernel: None, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], tuple[Path, dict[str, Any]]]:
    """A study's quick run checked against its pins, once per session: ``first_quick_run(study)`` -> (its results
    folder, the metrics it recorded). The pin test and the restart-twice test share it, so each study's notebook runs
    once for both (the second run of the restart test goes into the same folder); a run that failed or skipped is
    not kept, so the next test that asks runs it again and reports the same way."""
    from solvi_lab.pytest_plugin import PinChecker

    done: dict[str, tuple[Path, dict[str, Any]]] = {}

    def first(study: str) -> tuple[Path, dict[str, Any]]:
        if study not in done:
            out = tmp_path_factory.mktemp(f"quick-{study}")
            done[study] = (out, PinChecker(request.config, out).check(study))
        return done[study]

    return first
