"""knowledge/exit_release.py: at exit a large store's bulk state is left to the OS; what reaches disk is unchanged."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

import solvi_lab
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore, exit_release

ROOT = Path(solvi_lab.__file__).resolve().parent.parent

# A program that writes, never closes and exits. Its first atexit hook (registered before the store's, so it runs
# after it) reports what the release did; a gate holds a buffered file it never flushes (its finaliser must).
CHILD = r"""
import atexit, itertools, sys
from solvi_lab.knowledge import KnowledgeStore, exit_release
from solvi_lab.knowledge.gates import Verdict, WriteGate

path, limit, log, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
atexit.register(lambda: print("retained", exit_release.retained_containers(), file=sys.stderr, flush=True))
KnowledgeStore.EXIT_RELEASE_MIN_RECORDS = None if limit == "off" else int(limit)


class Logging(WriteGate):
    name = "logging"

    def __init__(self, f):
        self.f = f

    def admit(self, store, item, shadow):
        self.f.write(f"admit {item.kind}\n")
        return Verdict(True)


ticks = itertools.count()
ks = KnowledgeStore.open(
    path, journal_options={"timestamps": ticks.__next__}, gates=[Logging(open(log, "w", buffering=1 << 20))]
)
for i in range(n):
    print(ks.add("fact", {"s": f"c{i}", "r": "tier", "o": f"v{i}"}, source="person"), flush=True)
    if i % 10 == 0:
        print(ks.add("rule", {"name": f"r{i}"}, source="spec"), flush=True)
"""


def run_child(tmp: Path, name: str, limit: str, suffix: str, n: int = 40) -> tuple[list[str], str, Path]:
    """Run CHILD writing `<name><suffix>`; (the ids it acknowledged, its stderr, the journal's path)."""
    path = tmp / f"{name}{suffix}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), limit, str(tmp / f"{name}.log"), str(n)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split(), out.stderr, path


def files(tmp: Path, name: str) -> dict[str, bytes]:
    """Every file the child left, by name without its prefix (journal, head checkpoint, sidecars, the gate's log)."""
    return {p.name[len(name) :]: p.read_bytes() for p in sorted(tmp.iterdir()) if p.name.startswith(name + ".")}


@pytest.mark.parametrize("suffix", [".jsonl", ".sqlite"])
def test_an_unclosed_store_leaves_exactly_the_files_it_left_without_the_release(tmp_path, suffix):
    ids_on, err_on, path_on = run_child(tmp_path, "on", "1", suffix)
    ids_off, err_off, _ = run_child(tmp_path, "off", "off", suffix)
    assert "retained 0" not in err_on and "retained" in err_on  # the release ran and kept the store's containers
    assert "retained 0" in err_off  # switched off: nothing kept
    assert ids_on == ids_off and len(ids_on) == 44  # 40 facts and 4 rules, each acknowledged
    on, off = files(tmp_path, "on"), files(tmp_path, "off")
    assert on.keys() == off.keys() and on == off  # byte for byte: the journal, its head (if any), the gate's log
    expected = [line for i in range(40) for line in ["admit fact"] + (["admit rule"] if i % 10 == 0 else [])]
    assert on[".log"].decode().splitlines() == expected  # the gate's buffer, flushed at exit by its finaliser
    j = Journal(path_on, mode="r")
    try:
        assert len(j) == 44  # one record per acknowledged add, nothing half-written
    finally:
        j.close()
    with KnowledgeStore.open(path_on, journal_options={"mode": "r"}, snapshot=False) as ks:
        assert ks.verify().ok
        assert [ks.item(i)["status"] for i in ids_on] == ["active"] * 44


def test_a_store_below_the_threshold_is_not_touched(tmp_path):
    _, err, _ = run_child(tmp_path, "small", "1000", ".jsonl")
    assert "retained 0" in err


def test_the_release_keeps_the_bulk_state_of_a_live_store_only(tmp_path, monkeypatch):
    monkeypatch.setattr(KnowledgeStore, "EXIT_RELEASE_MIN_RECORDS", 3)
    big, small = tmp_path / "big.jsonl", tmp_path / "small.jsonl"
    with KnowledgeStore.open(big) as ks:
        for i in range(5):
            ks.add("fact", {"s": f"c{i}", "r": "tier", "o": "gold"}, source="person")
    with KnowledgeStore.open(small) as ks:
        ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
    dropped = KnowledgeStore.open(big, snapshot=False)
    ref = weakref.ref(dropped)
    dropped.close()
    del dropped
    gc.collect()  # (and any store another test dropped)
    assert ref() is None  # watching a store does not keep it alive
    live = KnowledgeStore.open(big, snapshot=False)
    below = KnowledgeStore.open(small, snapshot=False)
    try:
        items = live._fold._items
        before, kept = sys.getrefcount(items), exit_release.retained_containers()
        assert exit_release.release_at_exit() >= 1
        assert live not in exit_release._watched and below in exit_release._watched  # released; not touched
        assert sys.getrefcount(items) == before + 1  # one reference more, never dropped
        assert exit_release.retained_containers() > kept
        assert not live.journal.closed and not below.journal.closed  # nothing closed, nothing written
        assert exit_release.release_at_exit() == 0  # released once
        assert live.fingerprint() == KnowledgeStore.from_journal(live.journal).fingerprint()  # the store is intact
    finally:
        live.close(snapshot=False)
        below.close(snapshot=False)


def test_the_release_never_keeps_the_callers_objects_or_the_journal(tmp_path, monkeypatch):
    monkeypatch.setattr(KnowledgeStore, "EXIT_RELEASE_MIN_RECORDS", 1)
    ks = KnowledgeStore.open(tmp_path / "ks.jsonl", snapshot=False)
    try:
        ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
        kept = exit_release._bulk(ks)
        assert kept and all(type(c) in (dict, list, set) for c in kept)
        ids = {id(c) for c in kept}
        assert id(ks.gates) not in ids and ks._fold._items in kept
        assert not any(c is ks.journal or ks.journal in (c.values() if isinstance(c, dict) else c) for c in kept)
    finally:
        ks.close(snapshot=False)


def test_switched_off_a_store_is_not_watched(tmp_path, monkeypatch):
    monkeypatch.setattr(KnowledgeStore, "EXIT_RELEASE_MIN_RECORDS", None)
    with KnowledgeStore.open(tmp_path / "ks.jsonl") as ks:
        assert ks not in exit_release._watched
    monkeypatch.setattr(KnowledgeStore, "EXIT_RELEASE_MIN_RECORDS", 10)
    with KnowledgeStore.open(tmp_path / "ks.jsonl") as ks:
        assert ks in exit_release._watched
    with KnowledgeStore() as mem:  # an in-memory store is not opened from a file: never watched
        assert mem not in exit_release._watched
