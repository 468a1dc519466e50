"""Reads beside writes in other threads, for every journal owner (issue 40, 1): no bare exception, live = replay;
and the main thread's reads without the lock while it is the only one to use an owner (issue 41, lone_reads.py).

Each owner's mix (solvi_lab/journal_faults/reads.py) runs 2 threads mixing its public writes and reads and 2 threads
that only read, with a 1 µs switch interval. Before the reads took the journal's lock, the store's len() and
fingerprint() flushed pending digests while a write folded (live ≠ replay), a second learner model folding on read
raised `RuntimeError: dictionary changed size during iteration`, and so did the agenda's reads.
"""

import threading

import pytest

from solvi_lab.errors import UnknownId
from solvi_lab.journal_faults.reads import MIXES, STORE, Shared, run_mix, store_snapshot_after_mix
from solvi_lab.lone_reads import THREADS

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


@pytest.fixture
def alone():
    """The main thread as the only one that has asked for an owner's lock (solvi_lab.lone_reads); restored after."""
    saved = THREADS.shared
    THREADS.shared = False
    yield THREADS
    THREADS.shared = saved


@pytest.mark.parametrize("mix", MIXES, ids=[m.name.split(" (")[0] for m in MIXES])
def test_every_public_read_takes_the_journals_lock(tmp_path, mix, alone):
    # Once a thread other than the main one has used an owner, every read takes the lock: in that thread, and in the
    # main thread after it.
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

    def read_all(where):
        for i, op in enumerate(mix.reads):
            if i in mix.unjournaled:
                continue  # an Episode's or a LongMemory's read: no journal (in the thread mix all the same)
            before = counting.taken
            try:
                op(obj, rnd, sh)
            except Exception:  # noqa: BLE001 - a refused read still had to take the lock first
                pass
            if counting.taken == before:
                untaken.append((where, i))

    t = threading.Thread(target=read_all, args=("thread",))
    t.start()
    t.join()
    assert alone.shared
    read_all("main")
    mix.close(obj)
    assert untaken == []


def test_the_main_thread_alone_reads_without_the_lock_until_another_thread_asks_for_it(tmp_path, alone):
    from solvi_lab.knowledge import KnowledgeStore

    ks = KnowledgeStore.open(tmp_path / "s.jsonl")
    a = ks.add("fact", {"s": "a", "r": "r", "o": 1}, source="person")
    counting = ks.journal.lock = _CountingLock(ks.journal.lock)

    def reads():
        return ks.status(a), ks.item(a)["status"], a in ks, "k9" in ks, len(ks), ks.fingerprint(), ks.view().status(a)

    lone = reads()
    assert counting.taken == 0 and lone[:5] == ("active", "active", True, False, 1)
    with pytest.raises(UnknownId):  # an unknown id: the twin says so (the same error as with the lock)
        ks.status("k9")
    t = threading.Thread(target=lambda: ks.status(a))
    t.start()
    t.join()
    assert alone.shared and counting.taken == 1  # the other thread's read took it, and turned lone reads off
    assert reads() == lone and counting.taken == 1 + 8  # each read once, view() and the view's status both
    ks.close(snapshot=False)


def test_another_threads_first_write_waits_for_a_lone_read_in_flight(alone):
    # The handshake: a read the main thread has in flight without the lock (`reading`) holds the other thread back
    # until it is done; that thread has turned lone reads off first (`shared`), so the next read takes the lock.
    from solvi_lab.knowledge import KnowledgeStore

    ks = KnowledgeStore()
    done = []
    alone.reading += 1  # as if the main thread were inside a read without the lock
    t = threading.Thread(target=lambda: done.append(ks.add("fact", {"s": "a", "r": "r", "o": 1}, source="person")))
    try:
        t.start()
        t.join(0.2)
        assert alone.shared and done == [] and len(ks.journal) == 0  # waiting, nothing written
    finally:
        alone.reading -= 1
    t.join()
    assert done == ["k0"] and len(ks.journal) == 1 and alone.reading == 0


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


def test_a_read_inside_a_lone_read_goes_on_without_the_lock_while_another_thread_waits_holding_it(alone):
    # The other thread holds the lock (`with ks.journal.lock:`) when it first asks, so it waits for the main thread's
    # read in flight while holding it: a read nested in that read must not wait for the lock (it would never get it).
    from solvi_lab.knowledge import KnowledgeStore

    ks = KnowledgeStore()
    a = ks.add("fact", {"s": "a", "r": "r", "o": 1}, source="person")
    holding, done = threading.Event(), []

    def other():
        with ks.journal.lock:
            holding.set()
            done.append(ks.status(a))  # its first ask: waits for the main thread's read in flight

    alone.reading += 1  # the main thread inside a lone read
    try:
        t = threading.Thread(target=other)
        t.start()
        holding.wait()
        for _ in range(1000):  # until the other thread has turned lone reads off (it then waits for this read)
            if alone.shared:
                break
            threading.Event().wait(0.001)
        assert alone.shared and done == []
        assert ks.fingerprint() == ks.state()["fingerprint"] and ks.view().status(a) == "active"  # nested: no lock
    finally:
        alone.reading -= 1
    t.join(5)
    assert done == ["active"] and not t.is_alive()
