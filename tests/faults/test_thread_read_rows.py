"""Issue 40's thread rows of benchmarks/faults.py in CI size: every owner's mix of reads and writes in 4 threads
(solvi_lab/journal_faults/reads.py; the fuller per-owner test is tests/knowledge/test_thread_reads.py)."""

import tempfile

from solvi_lab.journal_faults.reads import MIXES, thread_read_rows


def test_every_owner_row_ends_equal_to_the_replay():
    rows = thread_read_rows(tempfile.TemporaryDirectory, 1, calls=40)
    assert len(rows) == sum(len(m.backends) for m in MIXES) == 11
    for row in rows:
        assert (row.tried, row.unchanged, row.silent, dict(row.other)) == (1, 1, 0, {}), (row.fault, row.examples)
    store_rows = [r for r in rows if "knowledge store" in r.fault]
    assert [r.backend for r in store_rows] == ["jsonl", "sqlite"]
    assert all("1 reopened from a snapshot written after the mix = replay" in r.note for r in store_rows)
