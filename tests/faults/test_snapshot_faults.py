"""The fault table's fold-snapshot rows (benchmarks/faults.py, snapshot_rows) at the CI size: every damaged, stale
or forged snapshot opens to exactly the journal's fold — refused with one warning, or (a journal that only grew
after it) used with only the tail folded — and none raises or shows another state; a journal edited before a valid
snapshot's position raises CorruptJournal naming the record."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from faults import snapshot_rows  # noqa: E402


def test_snapshot_fault_rows():
    rows = snapshot_rows(quick=True)
    assert [(r.fault, r.backend) for r in rows] == [
        (fault, backend)
        for backend in ("jsonl", "sqlite")
        for fault in (
            "fold snapshot damaged (byte change)",
            "fold snapshot forged (edited, re-digested)",
            *(["journal edited before its snapshot (byte change)"] if backend == "jsonl" else []),
            "fold snapshot stale (journal grew after)",
        )
    ]
    for r in rows:
        assert (r.tried, r.detected, r.silent, sum(r.other.values())) == (
            {"damaged": 30, "forged": 10, "before": 10}.get(r.fault.split()[2], 12),
            r.tried,
            0,
            0,
        ), r
    edited = next(r for r in rows if r.fault.startswith("journal edited"))
    assert edited.with_position == edited.tried  # every error names the record
    stale = [r for r in rows if "stale" in r.fault]
    assert all(r.note.startswith("6 grew after it: used") and "; 6 an older copy" in r.note for r in stale)
