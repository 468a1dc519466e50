"""Restart & Run All, twice (issue 45): every built-in study's notebook, run on its quick parameters a second time
into the same results folder — with the files of the first run still there — runs again and records the same
pinned metrics. A notebook that appends to a journal it left behind, or refuses because a file exists, fails here.
The first run is the pin test's (``first_quick_run``: one run per study serves both tests)."""

from __future__ import annotations

import pytest

from solvi_lab import pins
from solvi_lab.pytest_plugin import PinChecker
from solvi_lab.studies import registry


@pytest.mark.parametrize("study", registry.builtins())
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
