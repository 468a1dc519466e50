"""A non-default value of every declared parameter, injected through papermill, reaches the study's run().

The notebook shows `params` (what it passes to run) in its first cell after the parameters; the test reads that
output from the executed notebook and, where the study records a metric of the same name, the metric too.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from solvi_lab import reproduce
from solvi_lab.studies import registry

# Non-default values (smaller than the quick sizes where that is cheaper): one injection run per study.
INJECTED: dict[str, dict[str, Any]] = {
    "retraction": {"n_items": 600, "n_retractions": 25, "seed": 2},
    "taubench_action_model": {
        "train_tasks": 12,
        "test_tasks": 6,
        "budget": 60,
        "pairs": True,
        "money": True,
        "ablations": True,
        "held_out_split": "dev",  # never the test tasks outside the reported full run
        "blind": True,
        "unseen": "unknown",
        "schema_family": False,
        "explore_schema": False,
        "seed": 1,
    },
    # the notebooks assert their claims, so these stay at sizes where the claims hold
    "risk_dungeon": {"streams": 5, "games": 30, "seed": 0},
    "toy_crafting": {"streams": 4, "worlds": 6, "steps": 150, "episodes": 5, "seed": 0},
    "taubench_airline": {
        "budget": 30,
        "ablations": False,
        "blind": True,
        "blind_budget": 10,
        "unseen": "unknown",
        "schema_family": False,
        "explore_schema": False,
        "seed": 3,
    },
    "tau2_telecom": {
        "budget": 20,
        "train_tasks": 5,
        "test_tasks": 3,
        "outside_tasks": 2,
        "blind_budget": 8,
        "replay": "small",
        "seed": 1,
    },
    "crafter": {
        "train_worlds": 1,
        "test_worlds": 1,
        "explore_steps": 60,
        "protocol_worlds": 2,
        "protocol_steps": 40,
        "seed": 1,
    },
    "learner_evidence": {"seed": 1},
    "explore": {"n_items": 37, "seed": 2},
    "example": {"n_samples": 777, "seed": 5},
}


def test_every_study_has_an_injection_case() -> None:
    assert set(INJECTED) == set(registry.builtins())  # a plug-in installed beside is its own package's to test
    for study, values in INJECTED.items():
        declared = set(registry.spec(study).names) - {"data_dir"}  # data_dir: where the data is, not a size
        assert declared <= set(values), f"{study}: inject every declared parameter"
        assert registry.spec(study).check(**values) == values


def _shown_params(executed: Path) -> dict[str, Any]:
    nb = json.loads(executed.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and "params = params_for(" in "".join(cell["source"]):
            for output in cell.get("outputs", []):
                text = output.get("data", {}).get("text/plain")
                if text:
                    return ast.literal_eval("".join(text))
    raise AssertionError(f"{executed}: the params_for cell shows no `params`")


@pytest.mark.parametrize("study", list(INJECTED))
def test_injected_value_reaches_the_study(study: str, python3_kernel: None, tmp_path: Path) -> None:
    info = registry.get(study)
    values = INJECTED[study]
    # as typed on the command line: a string as it is (`-p held_out_split dev`), anything else as JSON
    typed = [[k, v if isinstance(v, str) else json.dumps(v)] for k, v in values.items()]
    overrides = reproduce.parse_parameters(typed, [info])
    run = reproduce.run_notebook(
        info.notebook_path, tmp_path, study=study, quick=True, overrides=overrides, progress=False
    )
    if run.status == "no_data":
        pytest.skip(run.message)
    assert run.status == "ok", reproduce.describe_run(run)
    shown = _shown_params(Path(run.executed))
    assert {k: shown[k] for k in values} == values
    metrics = json.loads((tmp_path / study / "metrics.json").read_text(encoding="utf-8"))
    for name, value in values.items():
        if name in metrics:
            assert metrics[name] == value, name
