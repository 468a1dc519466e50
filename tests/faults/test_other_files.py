"""The fault-table rows of the files that are not journals (benchmarks/faults.py, CI size): a damaged Parquet export
is a CorruptJournal in every trial and never ends the process; a damaged or cut map file is a CorruptJournal."""

from solvi_lab.journal_faults.other_files import map_byte_changes, map_cuts, map_deleted_tail, parquet_byte_changes


def test_parquet_one_byte_changes_with_the_digest_are_all_detected(tmp_path):
    row = parquet_byte_changes(tmp_path, 6, digest=True, seed=1)
    assert row.tried == 6 and not row.other, row.examples  # no bare exception, no ended process
    assert row.detected == 6 and row.silent == 0 and row.unchanged == 0


def test_parquet_one_byte_changes_without_the_digest_never_end_the_process(tmp_path):
    """Without the .sha256, a byte no reader uses cannot be noticed (unchanged), and anything else is refused."""
    row = parquet_byte_changes(tmp_path, 6, digest=False, seed=2)
    assert row.tried == 6 and not row.other and row.silent == 0, row.examples
    assert row.detected + row.unchanged == 6 and row.detected > 0


def test_map_file_byte_changes_are_corrupt_journal_or_change_nothing(tmp_path):
    row = map_byte_changes(tmp_path, 40)
    assert row.tried == 40 and not row.other and row.silent == 0, row.examples
    assert row.detected + row.unchanged == 40 and row.detected > 0


def test_map_file_cuts_and_deleted_tails_are_all_detected(tmp_path):
    (tmp_path / "a").mkdir()
    cut = map_cuts(tmp_path / "a")
    assert cut.tried > 100 and cut.detected == cut.tried and not cut.other, cut.examples
    (tmp_path / "b").mkdir()
    tail = map_deleted_tail(tmp_path / "b")
    assert tail.tried == 30 and tail.detected == 30 and not tail.other, tail.examples
