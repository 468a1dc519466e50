"""The key table and read indexes of a store opened from a fold snapshot (knowledge/lazy_keys.py,
knowledge/lazy_indexes.py): an open builds neither; a read builds the key it names, or all three indexes at their
first use; whatever is read, before or after a write, the store shows exactly the journal's fold, and once
everything is built the keys are in the fold's order."""

from test_fold_snapshot import build, observed, reference, snapshot

from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore
from solvi_lab.knowledge.lazy_indexes import PendingIndex
from solvi_lab.knowledge.lazy_keys import LazyKeys


def _opened(path):
    ks = KnowledgeStore.open(path)
    assert ks.opened_from_snapshot
    return ks


def _key_order(path) -> list[str]:
    with Journal(path, mode="r") as j:
        return list(KnowledgeStore.from_journal(j)._fold._keys)


def test_an_open_builds_no_key_and_no_index(tmp_path):
    path = tmp_path / "j.jsonl"
    ids = build(path)
    snapshot(path)
    ks = _opened(path)
    fold = ks._fold
    assert type(fold._keys) is LazyKeys and dict.__len__(fold._keys) == 0
    assert len(fold._keys) == len(_key_order(path)) > 0
    assert all(type(getattr(fold, n)) is PendingIndex for n in ("_dependents", "_successors", "_by_subject"))
    ks.item(ids[len(ids) // 2])
    ks.fingerprint()
    assert dict.__len__(fold._keys) <= 1  # the item's own key at most
    assert all(type(getattr(fold, n)) is PendingIndex for n in ("_dependents", "_successors", "_by_subject"))
    ks.close(snapshot=False)


def test_a_key_read_builds_that_key_once_and_an_unknown_key_none(tmp_path):
    path = tmp_path / "j.jsonl"
    build(path)
    snapshot(path)
    name = _key_order(path)[3]
    ks = _opened(path)
    keys = ks._fold._keys
    assert name in keys and "no such key" not in keys and keys.get("no such key") is None
    assert dict.__len__(keys) == 0
    first = keys[name]
    assert first.key == name and keys.get(name) is first and dict.__len__(keys) == 1
    ks.close(snapshot=False)


def test_the_first_index_use_builds_all_three_as_the_folds_own_dicts(tmp_path):
    path = tmp_path / "j.jsonl"
    build(path)
    snapshot(path)
    with Journal(path, mode="r") as j:
        ref = KnowledgeStore.from_journal(j)._fold
        want = (ref._dependents, ref._successors, ref._by_subject)
    ks = _opened(path)
    fold = ks._fold
    held = fold._successors  # a reference taken before the build keeps working
    subject = next(iter(want[2]))
    assert fold._by_subject.get(subject) == want[2][subject]
    assert (fold._dependents, fold._successors, fold._by_subject) == want
    assert all(type(getattr(fold, n)) is dict for n in ("_dependents", "_successors", "_by_subject"))
    assert held == want[1] and len(held) == len(want[1])
    ks.close(snapshot=False)


def test_reads_and_writes_after_a_snapshot_open_show_the_journals_fold_with_keys_in_its_order(tmp_path):
    path = tmp_path / "j.jsonl"
    ids = build(path, "hot-keys", n=400)
    snapshot(path)
    ks = _opened(path)
    ks.retract(ids[5], by="t", why="test")  # a write through the keys and the dependents index
    ks.add("fact", {"s": "new subject", "r": "tier", "o": "gold"}, source="person")
    seen = observed(ks)
    ks.close(snapshot=False)
    assert seen == reference(path)
    assert list(_opened_keys(path)) == _key_order(path)


def _opened_keys(path):
    ks = _opened(path)
    try:
        return list(ks._fold._keys)  # builds every key: the snapshot's in its order, then the ones written since
    finally:
        ks.close(snapshot=False)
