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
    assert m["scenarios_checked"] == m["scenarios_absent"] == 17
    assert m["flaws_checked"] == m["flaws_absent"] == 10  # each flaw of the review counted once
    assert all(c.holds for c in result.comparison)
    assert list(result.tables["side_by_side"]["holds"]) == [True] * 17
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


def test_the_further_flaws_of_the_review(result):
    """Flaws 6–10: each shown on the naive reference, measured, and absent from solvi_lab."""
    m = result.metrics
    assert (m["flaw6_outdated_or_contested_given_naive"], m["flaw6_outdated_or_contested_given_solvi"]) == (3, 0)
    assert m["flaw6_facts_given_solvi"] == 1 and m["flaw6_disputed_shown_as_hints_solvi"] == 2
    assert m["flaw7_rebuild_gap_naive"] < 0 and m["flaw7_rebuild_gap_solvi"] == 0.0
    assert m["flaw7_truncated_history_refused_solvi"] is True
    assert (m["flaw8_9_label_before_naive"], m["flaw8_9_label_after_write_naive"]) == ("learning", "stable")
    assert m["flaw8_9_transfers_counted_from_evidence_naive"] == 0 and m["flaw8_9_transfers_solvi"] == 0
    assert m["flaw8_9_derived_fields_writable_solvi"] == 0 and m["flaw8_9_label_stored_solvi"] is False
    assert m["flaw8_9_stored_label_disagrees_naive"] is True
    assert (m["flaw10_suppressed_naive"], m["flaw10_suppressed_solvi"]) == (1, 0)
    assert m["flaw10_other_namespace_accepted_solvi"] is False
    # the naive values that were literals are measured now
    assert m["flaw4_fabricated_accepted_naive"] is True and m["flaw2_naive_stale_reached"] is False
    assert m["flaw1_shown_before_naive"] == 0.95 and m["flaw1_assertion_moves_derived_naive"] > 0
    kinds = {c.key: c.kind for c in result.comparison}
    # one row per flaw; every one a mechanism check (the naive half by construction, ours a test of our design)
    assert kinds == {f"flaw{i}": "mechanism" for i in range(1, 11)}
    assert any("seed drives" in c for c in result.caveats)
    assert all(c.threshold for c in result.comparison)


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
    assert result.tables["side_by_side"].columns == ["key", "measure", "naive", "solvi_lab", "holds", "note"]
    frame = result.comparison_frame()
    assert frame.height == 10 and "naive reference" in frame.columns and "published" not in frame.columns
    traj = result.tables["trajectories"]
    ben0 = traj.filter((traj["learner"] == "ben") & (traj["step"] == 0)).row(0, named=True)
    assert (ben0["solvi_mastery"], ben0["solvi_shown"], ben0["naive_mastery"]) == (0.0, 0.95, 0.95)


def test_notebook_is_thin_and_saved_without_outputs():
    import nbformat

    nb = nbformat.read(Path(REPO_ROOT / "notebooks" / "learner_evidence.ipynb"), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].metadata.get("tags") == ["parameters"]
    # the parameters cell holds literals only (papermill parses each line); quick is resolved in the next cell
    assert "quick = None" in code[0].source and "quick_from_env" not in code[0].source
    assert "quick = quick_from_env() if quick is None else quick" in code[1].source
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    assert "assert" in code[-1].source
