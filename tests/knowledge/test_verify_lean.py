"""verify()'s second fold lets go of items and keys once no later record reads them, and reaches the same fingerprint
as the full replay: on a store with derivations, new versions, rollbacks, disputes, resolutions, uses, flags and
retractions — and it still reports a live store that differs from its journal."""

from __future__ import annotations

import random

from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore, from_scratch
from solvi_lab.knowledge.fold import Fold
from solvi_lab.knowledge.release import ReleasePlan
from solvi_lab.knowledge.store import StoreFold


def _busy_store(seed: int) -> KnowledgeStore:
    rng = random.Random(seed)
    ks = KnowledgeStore()
    ids: list[str] = []
    for i in range(400):
        s, r = f"s{rng.randrange(12)}", rng.choice(["tier", "city"])
        roll = rng.random()
        try:
            if roll < 0.15 and ids:
                prev = rng.choice(ids)
                if ks.status(prev) == "active":
                    body = ks.item(prev)["body"]
                    ids.append(ks.add("fact", {**body, "o": f"v{i}"}, source="person", supersedes=prev))
                    if rng.random() < 0.3:
                        ks.rollback(ids[-1], by="t", why="undo")
                    continue
            premises = [p for p in rng.sample(ids, min(2, len(ids))) if ks.status(p) == "active"] if ids else []
            source = rng.choice(["person", "person", "spec", "outcome"])
            ids.append(
                ks.add("fact", {"s": s, "r": r, "o": f"v{rng.randrange(3)}"}, source=source, derived_from=premises)
            )
        except Exception:  # noqa: BLE001 - a refused write is part of the stream
            continue
        if rng.random() < 0.2:
            for d in ks.disputes()[:1]:
                side = d["sides"][0]
                ks.resolve(d["key"], side["value"], by="ann")
        if rng.random() < 0.2 and ids:
            x = rng.choice(ids)
            if x in ks and ks.status(x) in ("active", "hypothesis", "disputed"):
                ks.use(x, wrong=rng.random() < 0.3)
        if rng.random() < 0.05:
            ks.flag(key=(None, s, r), why="drift")
        if rng.random() < 0.08 and ids:
            x = rng.choice(ids)
            if x in ks and ks.status(x) != "retracted":
                ks.retract(x, by="t", why="wrong")
    return ks


def _lean(ks: KnowledgeStore) -> tuple[str, int]:
    plan = ReleasePlan()
    assert ks.journal.verify(visit=plan.see)
    held: list[int] = []
    original = Fold._release

    def counting(self: Fold, it) -> None:  # type: ignore[no-untyped-def]
        original(self, it)
        held.append(len(self._items))

    Fold._release = counting  # type: ignore[method-assign]
    try:
        fp = from_scratch.lean_fold(StoreFold, ks.journal.records(), ks._fold._retracted, plan)
    finally:
        Fold._release = original  # type: ignore[method-assign]
    return fp, len(held)


def test_lean_fold_equals_full_replay_and_lets_go() -> None:
    for seed in range(4):
        ks = _busy_store(seed)
        full = KnowledgeStore.from_records(list(ks.journal)).fingerprint()
        lean, released = _lean(ks)
        assert lean == full == ks.fingerprint(), seed
        written = sum(1 for r in ks.journal.records() if r.kind == "knowledge" and r.payload["op"] == "add")
        assert 0 < released <= written  # items were let go of during the fold
        assert ks.verify()


def test_verify_still_reports_a_live_store_that_differs() -> None:
    ks = _busy_store(5)
    it = next(i for i in ks._fold._items.values() if i.present)
    it.confirmations += 1  # a fold state the journal does not give
    ks._fold._touched.add(it)
    v = ks.verify()
    assert not v and v.chain_ok and not v.replay_matches
    assert "differs from the replay" in v.problem


def test_plan_keeps_a_premise_until_its_last_reader() -> None:
    j = Journal()
    ks = KnowledgeStore(journal=j)
    a = ks.add("fact", {"s": "a", "r": "r", "o": 1}, source="person")
    for i in range(3):
        ks.add("fact", {"s": f"x{i}", "r": "r", "o": 1}, source="person")
    b = ks.add("fact", {"s": "b", "r": "r", "o": 1}, source="person", derived_from=[a])
    ks.use(a)
    plan = ReleasePlan()
    for r in j.records():
        plan.see(r)
    pos_b, pos_use = int(b[1:]), j.position - 1
    assert plan.release_position(a, ks._fold._items[a].key, 0) == pos_use > pos_b
    assert plan.release_position(b, ks._fold._items[b].key, pos_b) == pos_b
    assert ks.verify()


def test_verify_reads_the_journal_once_below_the_bound_and_twice_above_it(monkeypatch, tmp_path) -> None:
    # Below KEEP_PARSED_MAX the replay folds the records the chain walk parsed; above it, it parses the journal
    # again. Both answer the same, on a whole journal and on a live store that differs from it, on both backends.
    src = _busy_store(6)
    path = tmp_path / "j.jsonl"
    with Journal(path) as j:
        for r in src.journal.records():
            j.append(r.kind, r.payload)
    parsed: list[int] = []
    original = Journal.records

    def counting(self, start=0, stop=None, kind=None):  # type: ignore[no-untyped-def]
        parsed.append(start)
        return original(self, start, stop, kind)

    monkeypatch.setattr(Journal, "records", counting)
    for bound, second_parses in ((from_scratch.KEEP_PARSED_MAX, 0), (0, 1)):
        monkeypatch.setattr(from_scratch, "KEEP_PARSED_MAX", bound)
        for ks in (_busy_store(6), KnowledgeStore(path)):
            assert ks.fingerprint() == src.fingerprint()
            parsed.clear()
            v = ks.verify()
            assert v and v.records == len(src.journal) and parsed.count(0) == second_parses, (bound, ks.journal)
            it = next(i for i in ks._fold._items.values() if i.present)
            it.confirmations += 1  # a fold state the journal does not give
            ks._fold._touched.add(it)
            bad = ks.verify()
            assert not bad and bad.chain_ok and not bad.replay_matches and "differs from the replay" in bad.problem
            ks.journal.close()
