"""The learner_evidence study: the naive reference really has each flaw, solvi_lab has none, numbers as expected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solvi_lab.errors import BadParameter
from solvi_lab.studies import learner_evidence as le
from solvi_lab.studies.registry import REPO_ROOT, get, study_params

EXPECTED = json.loads((REPO_ROOT / "data" / "expected" / "learner_evidence.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def result():
    return le.run(seed=0)


def test_registered_with_small_params():
    assert get("learner_evidence").module == "solvi_lab.studies.learner_evidence"
    # no declared parameter besides the seed every study shares
    assert study_params("learner_evidence", quick=True) == study_params("learner_evidence", quick=False) == {}
    assert EXPECTED["study"] == "learner_evidence" and EXPECTED["quick_params"] == le.QUICK_PARAMS


def test_metrics_match_the_expected_file(result):
    assert set(result.metrics) == set(EXPECTED["metrics"])
    for name, spec in EXPECTED["metrics"].items():
        got = result.metrics[name]
        if "exact" in spec:
            assert got == spec["exact"] and isinstance(got, bool) == isinstance(spec["exact"], bool), name
        else:
            assert got == pytest.approx(spec["approx"], rel=spec["rel"]), name


def test_every_flaw_is_present_in_naive_and_absent_in_solvi_lab(result):
    m = result.metrics
    assert m["flaws_checked"] == m["flaws_absent"] == 12
    assert all(c.holds for c in result.comparison)
    assert list(result.tables["side_by_side"]["holds"]) == [True] * 12
    # exact numbers of the flaw table
    assert m["flaw1_shown_after_failures_naive"] == pytest.approx(0.95 * (1 - 0.35 * 0.75 * 0.9) ** 3)
    assert m["flaw1_shown_after_failures_solvi"] == 0.0
    assert (m["flaw1_failures_to_below_half_naive"], m["flaw1_failures_to_below_half_solvi"]) == (3, 1)
    assert (m["flaw2_blocks_naive"], m["flaw2_blocks_solvi"]) == (False, True)
    assert (m["flaw2_naive_status_after_5"], m["flaw2_solvi_successes_to_resolve"]) == ("repairing", 3)
    assert (m["flaw3_accepted_naive"], m["flaw3_accepted_solvi"], m["flaw3_blocks_naive"], m["flaw3_blocks_solvi"]) == (
        True,
        False,
        False,
        True,
    )
    assert (m["flaw4_ceiling_with_fabricated_naive"], m["flaw4_ceiling_with_fabricated_solvi"]) == (0.6, 0.35)
    assert (m["flaw4_suppressed_naive"], m["flaw4_suppressed_solvi"]) == (1, 0)
    assert m["flaw5_rebuilt_naive"] == 0.95 and m["flaw5_rebuild_gap_solvi"] == 0.0
    assert m["flaw5_rebuilt_solvi"] == pytest.approx(m["flaw5_from_default_naive"])  # same evidence, no patch
    assert (m["random_naive_equal"], m["random_solvi_equal"]) == (0, 50)


def test_naive_reference_reproduces_each_flaw_directly():
    p = le.NaiveLearnerProfile()
    p.open_misconception("x", "m")
    p.record("x", "free_recall", "correct", at=0, misconception_id="m")
    assert p.misconceptions["m"]["status"] == "repairing" and not p.blocks("m") and p.context_pack() == []
    p.patch_status("m", "anything at all")
    assert p.misconceptions["m"]["status"] == "anything at all" and not p.blocks("m")
    p.patch("y", evidence_ids_append=("ev-2",))
    assert p.confidence_ceiling("y") == 0.6
    p.record("y", "free_recall", "incorrect", at=1)
    assert p.skipped == ["ev-2"] and "y" not in p.mastery
    p.patch("x", mastery=0.95)
    assert p.rebuild().mastery["x"] == 0.95 != p.replay_from_default().mastery["x"]


def test_deterministic_and_seeded():
    a, b = le.run(seed=0), le.run(seed=0)
    assert a.metrics == b.metrics
    assert le.run(seed=1).metrics["random_solvi_equal"] == 50
    for bad in (None, 1.5, True, "0"):
        with pytest.raises(BadParameter):
            le.run(seed=bad)


def test_figure_and_tables(result):
    ax = result.figures["mastery"].axes[0]
    assert ax.get_xlabel() == "evidence recorded (count)" and ax.get_ylabel() == "mastery (0–1)"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(labels) == 4 and any("ana" in t for t in labels) and any("ben" in t for t in labels)
    assert result.tables["side_by_side"].columns == ["measure", "naive", "solvi_lab", "holds", "note"]
    assert result.comparison_frame().height == 12
    traj = result.tables["trajectories"]
    ben0 = traj.filter((traj["learner"] == "ben") & (traj["step"] == 0)).row(0, named=True)
    assert (ben0["solvi_mastery"], ben0["solvi_shown"], ben0["naive_mastery"]) == (0.0, 0.95, 0.95)


def test_notebook_is_thin_and_saved_without_outputs():
    import nbformat

    nb = nbformat.read(Path(REPO_ROOT / "notebooks" / "learner_evidence.ipynb"), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].metadata.get("tags") == ["parameters"]
    assert "quick = quick_from_env()" in code[0].source
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    assert "assert" in code[-1].source
