"""The per-key counts _settle reads (value -> live non-hypothesis facts holding it, and how many are disputed) are
kept by every status move, through disputes, resolutions, promotions, rollbacks, retractions and their re-folds:
after every step they equal a count from scratch, and the store still equals the replay of its journal."""

from __future__ import annotations

import random

import pytest

from solvi_lab.errors import BadInput, UnknownId, WriteRefused
from solvi_lab.knowledge import KnowledgeStore

SOURCES = ("outcome", "person", "spec")


def _recount(ks_key) -> tuple[dict, int]:
    sides: dict = {}
    disputed = 0
    for c in ks_key.live.values():
        if c.kind == "fact" and c.state in ("active", "disputed"):
            sides[c.value] = sides.get(c.value, 0) + 1
            disputed += c.state == "disputed"
    return sides, disputed


def _check(ks: KnowledgeStore) -> None:
    for key in ks._fold._keys.values():
        assert (key.sides, key.disputed) == _recount(key), key.key


@pytest.mark.parametrize("seed", range(6))
def test_side_counts_follow_every_status_move(seed):
    rng = random.Random(seed)
    ks = KnowledgeStore()
    ks._fold.CHECKPOINT_EVERY = 4  # re-folds start from checkpoints and join the old run often
    ids: list[str] = []
    seen = {"disputed": 0, "resolved": 0, "refolds": 0}
    for _ in range(260):
        roll = rng.random()
        try:
            if roll < 0.62 or not ids:
                s, r = rng.choice(("c1", "c2")), rng.choice(("tier", "city"))
                sup = None
                if ids and rng.random() < 0.1:
                    cand = rng.choice(ids)
                    if ks.item(cand)["body"].get("s") == s and ks.item(cand)["body"].get("r") == r:
                        sup = cand
                premises = [rng.choice(ids)] if ids and rng.random() < 0.2 else []
                ids.append(
                    ks.add(
                        "fact",
                        {"s": s, "r": r, "o": rng.choice("aab")},
                        source=rng.choices(SOURCES, (1, 10, 10))[0],  # observations rare: disputes live on
                        hypothesis=rng.random() < 0.15,
                        supersedes=sup,
                        derived_from=[] if sup else premises,
                    )
                )
            elif roll < 0.72:
                open_disputes = ks.disputes()
                if open_disputes:
                    ks.resolve(open_disputes[0]["question"], rng.choice("ab"), by="judge")
                    seen["resolved"] += 1
            elif roll < 0.8:
                ks.promote(rng.choice(ids), by="p", why="checked")
            elif roll < 0.86:
                ks.rollback(rng.choice(ids), by="p", why="bad version")
            else:
                ks.retract(rng.choice(ids), by="p", why="wrong")
                seen["refolds"] += ks.last_propagation["keys"]
        except (WriteRefused, BadInput, UnknownId, TypeError):
            pass  # a refused call changes nothing; the counts are checked all the same
        _check(ks)
        seen["disputed"] += any(k.disputed for k in ks._fold._keys.values())
    assert ks.fingerprint() == KnowledgeStore.from_journal(ks.journal).fingerprint()
    # the stream does what the test is about: disputes open and are resolved, retractions re-fold keys
    assert seen["disputed"] > 20 and seen["resolved"] > 3 and seen["refolds"] > 10, seen
