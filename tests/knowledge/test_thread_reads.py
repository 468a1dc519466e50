"""Reads beside writes in other threads, for every journal owner (issue 40, 1): no bare exception, live = replay.

Each owner's mix (solvi_lab/journal_faults/reads.py) runs 2 threads mixing its public writes and reads and 2 threads
that only read, with a 1 µs switch interval. Before the reads took the journal's lock, the store's len() and
fingerprint() flushed pending digests while a write folded (live ≠ replay), a second learner model folding on read
raised `RuntimeError: dictionary changed size during iteration`, and so did the agenda's reads.
"""

import threading

import pytest

from solvi_lab.journal_faults.reads import MIXES, STORE, Shared, run_mix, store_snapshot_after_mix

CASES = [(m, b) for m in MIXES for b in m.backends]


@pytest.mark.parametrize(("mix", "backend"), CASES, ids=[f"{m.name.split(' (')[0]}-{b}" for m, b in CASES])
def test_threads_mixing_reads_and_writes_end_equal_to_the_replay(tmp_path, mix, backend):
    for run in range(3):
        d = tmp_path / str(run)
        d.mkdir()
        errors, same, obj = run_mix(mix, d, backend, calls=80, seed=run)
        try:
            assert errors == []
            assert same, f"run {run}: the live {mix.name} differs from its journal's replay"
        finally:
            mix.close(obj)


@pytest.mark.parametrize("backend", ["jsonl", "sqlite"])
def test_a_snapshot_written_after_the_mix_reopens_equal_to_the_replay(tmp_path, backend):
    errors, same, ks = run_mix(STORE, tmp_path, backend, calls=80, seed=7)
    assert errors == [] and same
    used, equal = store_snapshot_after_mix(ks)
    assert used and equal


class _CountingLock:
    """The journal's reentrant lock, counting how often it is taken."""

    def __init__(self, lock):
        self.lock, self.taken = lock, 0

    def __enter__(self):
        self.lock.acquire()
        self.taken += 1

    def __exit__(self, *exc):
        self.lock.release()

    def acquire(self, *a, **k):
        self.taken += 1
        return self.lock.acquire(*a, **k)

    def release(self):
        self.lock.release()


def _journal(obj):
    return obj.journal if getattr(obj, "journal", None) is not None else obj.store.journal


@pytest.mark.parametrize("mix", MIXES, ids=[m.name.split(" (")[0] for m in MIXES])
def test_every_public_read_takes_the_journals_lock(tmp_path, mix):
    import random

    class Always(random.Random):  # every read a mix does only now and then (verify) is done here
        def random(self):
            return 0.0

    obj = mix.make(tmp_path, "jsonl")
    rnd, sh = Always(0), Shared()
    for op in mix.writes * 2:  # something to read
        try:
            op(obj, rnd, sh)
        except Exception:  # noqa: BLE001 - a refusal of a write that does not apply yet
            pass
    j = _journal(obj)
    counting = j.lock = _CountingLock(j.lock)
    untaken = []
    for i, op in enumerate(mix.reads):
        if i in mix.unjournaled:
            continue  # an Episode's or a LongMemory's read: no journal (in the thread mix all the same)
        before = counting.taken
        try:
            op(obj, rnd, sh)
        except Exception:  # noqa: BLE001 - a refused read still had to take the lock first
            pass
        if counting.taken == before:
            untaken.append(i)
    mix.close(obj)
    assert untaken == []


def test_a_read_waits_for_a_write_in_progress(tmp_path):
    # A writer holding the lock (as every write does for all its steps) keeps a reader out until it is done.
    from solvi_lab.knowledge import KnowledgeStore

    ks = KnowledgeStore.open(tmp_path / "s.jsonl")
    ks.add("fact", {"s": "a", "r": "r", "o": 1}, source="person")
    got = []
    with ks.journal.lock:
        t = threading.Thread(target=lambda: got.append(len(ks)))
        t.start()
        t.join(0.2)
        assert got == []  # still waiting (a join that returns early would have let it through)
        ks.add("fact", {"s": "b", "r": "r", "o": 1}, source="person")
    t.join()
    assert got == [2]
    ks.close(snapshot=False)
