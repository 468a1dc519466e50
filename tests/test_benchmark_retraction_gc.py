"""benchmarks/retraction_gc.py on a small journal: every timed retraction is counted once, the journal given is
not changed, and the rows without a collector pass are a subset of all rows."""

from __future__ import annotations

from solvi_lab.knowledge import KnowledgeStore


def test_measure_counts_every_retraction_and_leaves_the_journal_alone(load_benchmark, tmp_path):
    path = tmp_path / "ks.jsonl"
    with KnowledgeStore.open(path) as ks:
        for i in range(60):
            ks.add("fact", {"s": f"c{i % 12}", "r": "tier", "o": f"v{i}"}, source="person")
    before = path.read_bytes()
    r = load_benchmark("retraction_gc").measure(path, 10, seed=3)
    assert path.read_bytes() == before
    assert r["items"] == 60 and r["retractions"] == 10
    assert 0 <= r["with_a_pass"] <= 10
    assert r["no_pass_max_ms"] <= r["max_ms"]
    assert len(r["slowest"]) == 8
    assert all(set(s) == {"s", "events", "passes"} for s in r["slowest"])


def test_a_missing_journal_is_refused_with_how_to_build_one(load_benchmark, tmp_path, capsys):
    import pytest

    with pytest.raises(SystemExit) as e:
        load_benchmark("retraction_gc").main(["--journal", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path)])
    assert e.value.code == 2
    assert "build one with benchmarks/open_wait.py --cache DIR" in capsys.readouterr().err
