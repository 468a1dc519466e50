"""The head-index rows of benchmarks/faults.py (solvi_lab/journal_faults/identity.py) in CI size: a cut journal
opened through a hard link in another folder without xattrs is refused every time (with the inode generation as the
file system tells it and without it, the cut to zero records too), and was opened silently every time before the
index; a new journal on a deleted journal's inode number (at another name, or at its very name), and repaired, moved
and replaced journals, open through their own path with exactly their records, every time; an empty file made by
hand at a deleted journal's name on its inode number is refused only where the generation is unknown (documented)."""

import tempfile

import pytest

from solvi_lab import journal_head_index
from solvi_lab.journal_faults import identity

N = 6


def _generation_known(tmp_path) -> bool:
    probe = tmp_path / "probe"
    probe.write_text("")
    return journal_head_index.generation(probe) is not None


@pytest.mark.parametrize("generation", [True, False])
def test_cut_through_a_hard_link_in_another_folder(tmp_path, generation):
    """Every cut, the one to zero records too, by a writer and a reader, with the generation and without it."""
    row = identity.other_folder_cuts(tmp_path, N, generation=generation)
    assert row.tried == row.detected == row.with_position == 4 * N, row.examples
    assert row.silent == 0 and not row.other, row.examples


@pytest.mark.parametrize("generation", [True, False])
def test_a_new_file_at_a_deleted_journals_name_on_its_inode(tmp_path, generation):
    made, touched = identity.same_name_reuse(tmp_path, 4, generation=generation)
    reused = int(made.note.rsplit("reused in ", 1)[1].split(" of ")[0])
    assert made.tried == made.unchanged == 3 * reused and not made.other and made.silent == 0, made.examples
    reused = int(touched.note.rsplit("reused in ", 1)[1].split(" of ")[0])
    assert touched.tried == 2 * reused and not touched.other and touched.silent == 0, touched.examples
    if generation and _generation_known(tmp_path):
        assert touched.unchanged == touched.tried and touched.detected == 0
    elif not generation:  # the documented false alarm, each accepted by Journal.forget_head
        assert touched.detected == touched.tried and touched.unchanged == 0
        assert f"accepted {reused} of {reused} refused" in touched.note or reused == 0


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
    assert os.environ[journal_head_index.ENV] == before and len(rows) == 18
    assert sorted(journal_head_index.state_dir().glob("journal-heads/*")) == entries
