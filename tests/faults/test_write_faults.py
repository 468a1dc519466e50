"""The write-failure rows of benchmarks/faults.py (solvi_lab/journal_faults/writes.py) in CI size."""

import pytest

from solvi_lab.journal_faults import writes

BACKENDS = ["jsonl", "sqlite"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_disk_full_row(tmp_path, backend):
    # JSONL every byte of a record; SQLite every 61st byte of the frames a record and its checkpoint add
    row = writes.disk_full(tmp_path, backend, step=1 if backend == "jsonl" else 61)
    assert not row.other and row.silent == 0 and row.lost == 0, row.examples
    assert row.tried == row.detected + row.unchanged and row.detected > 0
    if backend == "jsonl":  # a limit short of the record by k bytes, for every k: refused; exactly enough: written
        assert row.unchanged == 1 and row.detected == row.tried - 1
    else:  # short of the record's frame: refused; enough for it but not its checkpoint: written, checkpoint warned
        assert "0 checkpoints failed" not in row.note, row.note


@pytest.mark.parametrize("backend", BACKENDS)
def test_read_only_directory_row(tmp_path, backend):
    row = writes.read_only_directory(tmp_path, backend, appends=6)
    assert row.tried == 8, row.note  # chattr +i (root) or chmod 555 (another user); the note says which
    assert not row.other and row.silent == 0 and row.lost == 0, row.examples
    # refused with JournalWriteFailed: a new journal, Journal.repair; SQLite also a writer opened without side files
    assert row.detected == (2 if backend == "jsonl" else 3), row.examples
    if backend == "jsonl":
        assert "0 checkpoint warnings" not in row.note


@pytest.mark.parametrize("backend", BACKENDS)
def test_cut_through_links_row(tmp_path, backend):
    row = writes.cut_through_links(tmp_path, backend, 6)
    assert row.tried == 12 and row.detected == 12, row.examples


def test_missing_sqlite_head_row(tmp_path):
    row = writes.missing_sqlite_head(tmp_path)
    assert row.tried == 6 and row.detected == 6, row.examples


def test_store_threads_row(tmp_path):
    row = writes.store_threads(tmp_path, 3, calls=80)
    assert row.tried == 3 and row.unchanged == 3, row.examples


@pytest.mark.parametrize("backend", BACKENDS)
def test_large_record_kill_row(tmp_path, backend):
    row = writes.large_record_kill(tmp_path, backend, 3)
    assert row.tried == 3 and not row.other and row.silent == 0 and row.lost == 0, row.examples
