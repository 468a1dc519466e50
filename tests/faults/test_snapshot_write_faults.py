"""The fold snapshot write rows of benchmarks/faults.py in CI size (solvi_lab/journal_faults/snapshot_writes.py)."""

import pytest

from solvi_lab.journal_faults.snapshot_writes import full_disk_snapshot, kill_during_snapshot


@pytest.mark.parametrize("backend", ["jsonl", "sqlite"])
def test_a_full_disk_while_writing_a_snapshot_row(tmp_path, backend):
    row = full_disk_snapshot(tmp_path, backend, trials=4, records=200)
    assert row.tried == 4 and row.detected == 4, row.examples  # JournalWriteFailed, all promises kept
    assert row.silent == 0 and not row.other


@pytest.mark.parametrize("backend", ["jsonl", "sqlite"])
def test_a_kill_while_writing_a_snapshot_leaves_no_file_past_the_next_open(tmp_path, backend):
    row = kill_during_snapshot(tmp_path, backend, kills=3, records=200)
    assert row.tried == 3 and row.detected + row.unchanged == 3, row.examples
    assert row.silent == 0 and not row.other
