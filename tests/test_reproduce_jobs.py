"""reproduce(jobs=): several notebooks at once, each in a Dask worker process, reported in the studies' order."""

from __future__ import annotations

import json
from pathlib import Path

from solvi_lab import reproduce
from solvi_lab.studies import registry


def test_two_notebooks_at_once_give_what_one_after_the_other_gives(tmp_path: Path) -> None:
    only = ["learner_evidence", "example"]  # registry order: example comes after learner_evidence
    at_once = reproduce.reproduce(tmp_path / "a", quick=True, only=only, progress=False, jobs=2)
    serial = reproduce.reproduce(tmp_path / "b", quick=True, only=only, progress=False, jobs=1)
    assert [r.study for r in at_once] == [r.study for r in serial] == [i.name for i in registry.select(only)]
    assert [r.status for r in at_once] == ["ok", "ok"]
    for study in only:
        a = json.loads((tmp_path / "a" / study / "metrics.json").read_text())
        b = json.loads((tmp_path / "b" / study / "metrics.json").read_text())
        timing = {k for k in a if k.endswith(("_s", "_seconds", "seconds"))}
        assert {k: v for k, v in a.items() if k not in timing} == {k: v for k, v in b.items() if k not in timing}
    assert (tmp_path / "a" / "REPORT.md").exists()


def test_the_longest_notebooks_start_first() -> None:
    order = [i.name for i in reproduce.start_order(registry.select(None))]
    assert order[:5] == ["retraction", "crafter", "taubench_action_model", "toy_crafting", "explore"]
    assert sorted(order) == sorted(i.name for i in registry.select(None))


def test_jobs_must_be_a_positive_count(tmp_path: Path) -> None:
    import pytest

    from solvi_lab.errors import BadInput

    for bad in (0, True, "2"):
        with pytest.raises(BadInput, match="jobs"):
            reproduce.reproduce(tmp_path, quick=True, only=["example"], progress=False, jobs=bad)
    assert not (tmp_path / "example").exists()  # refused before anything ran
