"""The head-index rows of benchmarks/faults.py (solvi_lab/journal_faults/identity.py) in CI size: a cut journal
opened through a hard link in another folder without xattrs is refused every time (with the inode generation as the
file system tells it; without it, all but the cut to zero records), and was opened silently every time before the
index; a new journal on a deleted journal's inode number, and repaired, moved and replaced journals, open through
their own path with exactly their records, every time."""

import tempfile

import pytest

from solvi_lab import journal_head_index
from solvi_lab.journal_faults import identity

N = 6


def _generation_known(tmp_path) -> bool:
    probe = tmp_path / "probe"
    probe.write_text("")
    return journal_head_index.generation(probe) is not None


def test_cut_through_a_hard_link_in_another_folder(tmp_path):
    row = identity.other_folder_cuts(tmp_path, N)
    assert row.tried == 4 * N and not row.other, row.examples
    if _generation_known(tmp_path):
        assert row.detected == row.with_position == 4 * N and row.silent == 0, row.examples
    else:  # the generation-unknown row below
        assert row.detected == 4 * (N - 1) and row.silent == 4


def test_cut_through_a_hard_link_in_another_folder_without_the_generation(tmp_path):
    row = identity.other_folder_cuts(tmp_path, N, generation=False)
    # every cut but the one to zero records (nothing to compare a first record with), by a writer and a reader
    assert row.tried == 4 * N and row.detected == row.with_position == 4 * (N - 1) and row.silent == 4
    assert not row.other and all("opened with 0 records" in e for e in row.examples), row.examples


def test_the_same_cuts_before_the_index_opened_silently(tmp_path):
    row = identity.other_folder_cuts(tmp_path, N, index=False)
    assert row.tried == row.silent == 4 * N and row.detected == 0 and not row.other


@pytest.mark.parametrize("generation", [True, False])
def test_a_new_journal_on_a_reused_inode_number_opens(tmp_path, generation):
    row = identity.inode_reuse(tmp_path, 4, generation=generation)
    assert row.tried == row.unchanged == 4 and not row.other and row.silent == 0, row.examples


@pytest.mark.parametrize(("xattrs", "generation"), [(False, True), (False, False), (True, True)])
def test_repaired_moved_and_replaced_journals_open_through_their_own_path(tmp_path, xattrs, generation):
    rows = identity.false_alarm_rows(tmp_path, N, xattrs=xattrs, generation=generation)
    assert [r.fault.split(",")[0] for r in rows] == [
        "repaired through either name",
        "moved to another folder",
        "replaced after Journal.forget_head",
    ]
    for r in rows:
        assert r.tried == r.unchanged == 4 * N and not r.other and r.silent == 0 and r.detected == 0, r.examples


def test_identity_rows_keep_the_index_out_of_the_suites_folder():
    """Each row points SOLVI_LAB_STATE_DIR at its own folder and puts the variable back."""
    import os

    before = os.environ[journal_head_index.ENV]
    entries = sorted(journal_head_index.state_dir().glob("journal-heads/*"))
    rows = identity.identity_rows(tempfile.TemporaryDirectory, quick=True)
    assert os.environ[journal_head_index.ENV] == before and len(rows) == 14
    assert sorted(journal_head_index.state_dir().glob("journal-heads/*")) == entries
