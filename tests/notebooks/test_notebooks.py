"""Every built-in study's notebook, executed on its quick parameters, records its pinned metrics.

The pins live in `data/expected/<study>.json` (format: solvi_lab/pins.py) and are checked by solvi_lab's own pytest
plugin (`solvi_pins`, solvi_lab/pytest_plugin.py) — the same one a researcher's package uses. `quick_params` must
agree with the study's declared quick defaults (it may add keys, e.g. the seed): pins are only meaningful for the
parameters they were taken on, so changing the declaration forces re-pinning (`pytest --solvi-update-pins`).

Every registered study has landed, so a missing notebook or pin file is a failure naming the file
(`SOLVI_LAB_STRICT_NOTEBOOKS=0` turns it back into a skip while a new study is being written). A study whose
external data is missing is always skipped, with the instruction to get it.
"""

from __future__ import annotations

import json
import os
from typing import Any

import nbformat
import pytest

from solvi_lab import pins
from solvi_lab.pins import check_metric
from solvi_lab.pytest_plugin import PinChecker
from solvi_lab.studies import registry

STRICT_ENV = "SOLVI_LAB_STRICT_NOTEBOOKS"
BUILTIN = registry.builtins()


def not_written_yet(reason: str) -> None:
    """Fail (or skip, under SOLVI_LAB_STRICT_NOTEBOOKS=0) because a file a study owes is missing."""
    if os.environ.get(STRICT_ENV, "1") != "0":
        pytest.fail(f"{reason} ({STRICT_ENV}=1 makes this a failure)")
    pytest.skip(reason)


@pytest.mark.parametrize("study", BUILTIN)
def test_quick_run_records_expected_metrics(study: str, first_quick_run, solvi_pins) -> None:
    info = registry.STUDIES[study]
    if not info.notebook_path.exists():
        not_written_yet(f"{info.notebook} does not exist yet")
    if not info.expected_path.exists() and not solvi_pins.updating:
        not_written_yet(
            f"data/expected/{study}.json does not exist yet; run `solvi-lab run {study} --quick` and write the "
            f"expected metrics from results/{study}/metrics.json (format: solvi_lab/pins.py)"
        )
    first_quick_run(study)  # the pins are checked; the run is kept for the restart-twice test


# Restart & Run All, twice (issue 45): every built-in study's notebook, run on its quick parameters a second time
# into the same results folder — with the files of the first run still there — runs again and records the same
# pinned metrics. A notebook that appends to a journal it left behind, or refuses because a file exists, fails here.
# The first run is the pin test's (`first_quick_run`: one run per study serves both tests). Kept in this module so
# that `pytest -n 2 --dist loadscope` (README's test command) runs both on one worker: each notebook runs once.
@pytest.mark.parametrize("study", BUILTIN)
def test_a_second_run_in_the_same_folder_records_the_same_metrics(
    study: str, first_quick_run, request: pytest.FixtureRequest
) -> None:
    info = registry.STUDIES[study]
    out, first = first_quick_run(study)  # also skips a study whose data is absent, with how to get it
    second = PinChecker(request.config, out).check(study)  # same out folder: the first run's files are still there
    # the pins that name a value (exact or approximate); bounds (min/max) are timings and correlations with time
    fixed = [
        k for k, pin in pins.load(info.expected_path, info.name).metrics.items() if "exact" in pin or "approx" in pin
    ]
    assert fixed, f"{info.expected_path} pins no value"
    assert {k: second.get(k) for k in fixed} == {k: first.get(k) for k in fixed}


def test_every_notebook_is_registered() -> None:
    notebooks = sorted(p.stem for p in (registry.REPO_ROOT / "notebooks").glob("*.ipynb"))
    unregistered = [n for n in notebooks if n not in registry.STUDIES and n not in registry.TOOL_NOTEBOOKS]
    assert not unregistered, f"notebooks not in solvi_lab/studies/registry.py STUDIES: {unregistered}; register them."


@pytest.mark.parametrize("study", BUILTIN)
def test_notebook_follows_conventions(study: str) -> None:
    """Parameters cell first and tagged; quick follows SOLVI_LAB_QUICK (so nbval runs small); kernel python3; no big outputs."""
    info = registry.STUDIES[study]
    if not info.notebook_path.exists():
        not_written_yet(f"{info.notebook} does not exist yet")
    nb = nbformat.read(info.notebook_path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, f"{info.notebook} has no code cells"
    first = code[0]
    assert "parameters" in first.metadata.get("tags", []), (
        f"{info.notebook}: the first code cell must be tagged 'parameters'"
    )
    lines = {
        ln.split("=", 1)[0].strip(): ln
        for ln in first.source.splitlines()
        if "=" in ln and not ln.lstrip().startswith("#")
    }
    for name in ("quick", "seed", "results_dir"):
        assert name in lines, f"{info.notebook}: the parameters cell must define {name}"
    assert lines["quick"].strip() == "quick = None", (
        f"{info.notebook}: write `quick = None` (a literal papermill can read) and resolve it in the next cell with "
        "`quick = quick_from_env() if quick is None else quick`, so nbval in CI runs the quick size "
        "(see docs/ARCHITECTURE.md, 'Notebook parameters cell')"
    )
    assert "quick = quick_from_env() if quick is None else quick" in code[1].source
    kernel = nb.metadata.get("kernelspec", {}).get("name", "python3")
    assert kernel == "python3", f"{info.notebook}: kernelspec name is {kernel!r}; it must be 'python3'"
    for i, cell in enumerate(code):
        images = [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
        size = len(json.dumps(cell.get("outputs", [])))
        assert not images and size < 20_000, (
            f"{info.notebook}: code cell {i} is committed with outputs ({size} bytes); clear them with "
            f"`jupyter nbconvert --clear-output --inplace {info.notebook}`"
        )


@pytest.mark.parametrize(
    ("spec", "metrics", "ok"),
    [
        ({"exact": 3}, {"m": 3}, True),
        ({"exact": 3}, {"m": 4}, False),
        ({"exact": True}, {"m": 1}, False),
        ({"exact": 2}, {"m": 2.0}, True),
        ({"approx": 1.0, "rel": 0.1}, {"m": 1.05}, True),
        ({"approx": 1.0, "abs": 0.01}, {"m": 1.05}, False),
        ({"min": 0, "max": 1}, {"m": 0.5}, True),
        ({"min": 0}, {"m": -1}, False),
        ({"max": 1}, {"m": "x"}, False),
        ({"equals_metric": "n"}, {"m": 5, "n": 5}, True),
        ({"equals_metric": "n"}, {"m": 5}, False),
        ({"exact": 1}, {}, False),
        ({"approx": 1, "min": 0}, {"m": 1}, False),
        ({"bogus": 1}, {"m": 1}, False),
    ],
)
def test_check_metric(spec: dict[str, Any], metrics: dict[str, Any], ok: bool) -> None:
    assert (check_metric("m", spec, metrics) is None) is ok
