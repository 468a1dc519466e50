"""Every registered study's notebook, executed on its quick parameters, records the expected metrics.

Expected metrics live in `data/expected/<study>.json`:

    {"study": "example",
     "quick_params": {"n_samples": 2000, "seed": 0},
     "metrics": {"inside": {"exact": 1611},
                 "pi_estimate": {"approx": 3.14159, "abs": 0.15},      # also "rel"; pytest.approx band
                 "std_error": {"min": 0.02, "max": 0.05},              # either bound may be left out
                 "points_checked": {"equals_metric": "n_samples"}}}

`quick_params` must agree with the study's QUICK_PARAMS (it may add keys, e.g. the seed): expected values are
only meaningful for the parameters they were taken on, so changing QUICK_PARAMS forces updating this file.

Every registered study has landed, so a missing notebook or expected file is a failure naming the file
(`SOLVI_LAB_STRICT_NOTEBOOKS=0` turns it back into a skip while a new study is being written). A study whose
external data is missing is always skipped, with the instruction to get it.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import nbformat
import pytest

from solvi_lab.studies import registry

STRICT_ENV = "SOLVI_LAB_STRICT_NOTEBOOKS"
SPEC_KEYS = ({"exact"}, {"approx", "rel", "abs"}, {"min", "max"}, {"equals_metric"})


def not_written_yet(reason: str) -> None:
    """Fail (or skip, under SOLVI_LAB_STRICT_NOTEBOOKS=0) because a file a study owes is missing."""
    if os.environ.get(STRICT_ENV, "1") != "0":
        pytest.fail(f"{reason} ({STRICT_ENV}=1 makes this a failure)")
    pytest.skip(reason)


def check_metric(name: str, spec: dict[str, Any], metrics: dict[str, Any]) -> str | None:
    """None if the recorded metric meets its spec, else one line saying how it does not."""
    if not isinstance(spec, dict) or not any(set(spec) <= keys and spec for keys in SPEC_KEYS):
        return f"{name}: spec {spec!r} is not one of exact / approx(+rel/abs) / min+max / equals_metric"
    if name not in metrics:
        return f"{name}: not recorded (recorded: {', '.join(sorted(metrics))})"
    got = metrics[name]
    if "exact" in spec:
        # True == 1 in Python; a bool metric must match a bool, a number a number.
        ok = got == spec["exact"] and isinstance(got, bool) == isinstance(spec["exact"], bool)
        return None if ok else f"{name}: expected exactly {spec['exact']!r}, got {got!r}"
    if "approx" in spec:
        band = pytest.approx(spec["approx"], rel=spec.get("rel"), abs=spec.get("abs"))
        return None if got == band else f"{name}: expected {band}, got {got!r}"
    if "min" in spec or "max" in spec:
        lo, hi = spec.get("min", -math.inf), spec.get("max", math.inf)
        ok = isinstance(got, (int, float)) and not isinstance(got, bool) and lo <= got <= hi
        return None if ok else f"{name}: expected within [{lo}, {hi}], got {got!r}"
    other = spec["equals_metric"]
    if other not in metrics:
        return f"{name}: should equal metric {other!r}, which was not recorded"
    return None if got == metrics[other] else f"{name}: {got!r} != {other} = {metrics[other]!r}"


def load_expected(info: registry.StudyInfo) -> dict[str, Any]:
    expected = json.loads(info.expected_path.read_text(encoding="utf-8"))
    rel = info.expected_path.relative_to(registry.REPO_ROOT)
    assert expected.get("study") == info.name, f'{rel}: "study" must be {info.name!r}'
    assert isinstance(expected.get("quick_params"), dict), f'{rel}: "quick_params" must be a dict'
    assert isinstance(expected.get("metrics"), dict) and expected["metrics"], (
        f'{rel}: "metrics" must be a non-empty dict'
    )
    return expected


@pytest.mark.parametrize("study", list(registry.STUDIES))
def test_quick_run_records_expected_metrics(study: str, run_quick) -> None:
    info = registry.STUDIES[study]
    if not info.notebook_path.exists():
        not_written_yet(f"{info.notebook} does not exist yet")
    if not info.expected_path.exists():
        not_written_yet(
            f"data/expected/{study}.json does not exist yet; run `solvi-lab run {study} --quick` and write the "
            f"expected metrics from results/{study}/metrics.json (format: tests/notebooks/test_notebooks.py)"
        )
    instruction = registry.missing_data(info)
    if instruction is not None:
        pytest.skip(instruction)

    expected = load_expected(info)
    quick = registry.study_params(info, quick=True)
    disagree = {
        k: (v, expected["quick_params"].get(k, "<missing>"))
        for k, v in quick.items()
        if expected["quick_params"].get(k, object()) != v
    }
    assert not disagree, (
        f"{info.module}.QUICK_PARAMS and data/expected/{study}.json quick_params disagree on "
        f"{disagree} (QUICK_PARAMS value, expected-file value); rerun quick and update the expected file."
    )

    metrics = run_quick(info, {**quick, **expected["quick_params"]})
    problems = [p for name, spec in expected["metrics"].items() if (p := check_metric(name, spec, metrics))]
    assert not problems, f"{study}: {len(problems)} metric(s) off:\n  " + "\n  ".join(problems)


def test_every_notebook_is_registered() -> None:
    notebooks = sorted(p.stem for p in (registry.REPO_ROOT / "notebooks").glob("*.ipynb"))
    unregistered = [n for n in notebooks if n not in registry.STUDIES and n not in registry.TOOL_NOTEBOOKS]
    assert not unregistered, f"notebooks not in solvi_lab/studies/registry.py STUDIES: {unregistered}; register them."


@pytest.mark.parametrize("study", list(registry.STUDIES))
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
