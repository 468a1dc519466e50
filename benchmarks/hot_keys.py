"""The hot-key operation stream: few subjects and relations, so competition keys carry hundreds of events.

The default benchmark stream (solvi_lab.studies.synthetic) spreads items over n/10 subjects, so a key holds a
handful of events. This stream models a store that keeps learning about the same few things: each key's share of
the writes is drawn log-uniformly (keys of ~5 to ~2,000 events at every size, so retraction cost can be read
against key history), and on those keys come disputes and person resolutions, new versions (supersedes) and their
rollbacks, uses, key and scope drift flags, promotions of hypotheses, and derivations up to depth 5.

>>> ops = list(iter_hot_key_operations(300, seed=1))
>>> sum(1 for op in ops if op[0] == "add")
300
>>> from solvi_lab.knowledge import KnowledgeStore
>>> ks = KnowledgeStore()
>>> ids, keys = apply_hot_stream(ks, ops)
>>> len(ids) == len(keys) == 300
True
"""

from __future__ import annotations

import bisect
import itertools
import json
import random
from collections.abc import Iterable, Iterator
from typing import Any

from solvi_lab.studies.synthetic import sample_premises

SOURCES = ("outcome", "person", "spec")
SOURCE_WEIGHTS = (0.125, 0.5, 0.375)  # the default benchmark's shares (no "verified": the peer has no decisions)
RELATIONS = ("tier", "owner")
SCOPES = ({"domain": "d0"}, {"domain": "d1"})
MEAN_KEY_EVENTS = 330  # mean of a log-uniform share between 5 and 2,000 adds per key


def iter_hot_key_operations(n_items: int, seed: int = 0) -> Iterator[tuple]:
    """Ops: ("add", s, r, o, source, scope, premises, hypothesis, supersedes-index or None) · ("resolve", i)
    · ("promote", i) · ("rollback", i) · ("use", i) · ("tick", k) · ("flag", scope) · ("flag_key", i)
    · ("end_flag", n); i is the index of an earlier add."""
    rng = random.Random(seed)
    n_keys = max(4, round(n_items / MEAN_KEY_EVENTS))
    n_subjects = max(1, n_keys // (len(RELATIONS) * len(SCOPES)))
    keys = [(s, r, c) for s in range(n_subjects) for r in range(len(RELATIONS)) for c in range(len(SCOPES))]
    cum = list(itertools.accumulate(10 ** rng.uniform(0.7, 3.3) for _ in keys))
    depth: list[int] = []
    last_on_key: dict[int, int] = {}  # key index -> last add on it (what a new version supersedes)
    updates: list[int] = []  # adds that superseded something: rollback candidates
    hyps: list[int] = []
    flags = 0
    for i in range(n_items):
        k = bisect.bisect_left(cum, rng.random() * cum[-1])
        s, r, c = keys[k]
        o = rng.choice(("a", "b", "c")) if rng.random() < 0.4 else "a"  # mostly agreeing: live sets grow
        source = rng.choices(SOURCES, SOURCE_WEIGHTS)[0]
        premises = sample_premises(rng, i, depth, 4) if i and rng.random() < 0.5 else []
        depth.append(1 + max((depth[j] for j in premises), default=-1) if premises else 0)
        sup = last_on_key.get(k) if rng.random() < 0.1 else None
        if sup is not None:
            premises = []  # a new version rests on what its predecessor rested on, not on a fresh premise
            depth[-1] = 0
        hyp = source != "outcome" and sup is None and rng.random() < 0.05
        yield ("add", f"s{s}", RELATIONS[r], o, source, SCOPES[c], premises, hyp, sup)
        last_on_key[k] = i
        if sup is not None:
            updates.append(i)
        if hyp:
            hyps.append(i)
        if i % 10 == 9:
            yield ("resolve", i)
        if i % 5 == 4:
            yield ("use", rng.randrange(i + 1))
        if updates and i % 40 == 39:
            yield ("rollback", updates.pop(rng.randrange(len(updates))))
        if hyps and i % 37 == 36:
            yield ("promote", hyps.pop(rng.randrange(len(hyps))))
        if i % 100 == 99:
            yield ("tick", 50)
        if i % 500 == 250:
            yield ("flag_key", i)
            flags += 1
        if i % 1000 == 500:
            yield ("flag", SCOPES[rng.randrange(len(SCOPES))])
            flags += 1
        if i % 500 == 450 and flags:
            yield ("end_flag", rng.randrange(flags))


def apply_hot_stream(ks: Any, ops: Iterable[tuple], progress: Any = None) -> tuple[list[str | None], list[str]]:
    """Apply a hot-key stream to a solvi_lab KnowledgeStore; return (item id of each add or None where refused,
    the competition key of each add)."""
    from solvi_lab.knowledge.staleness import fact_key
    from solvi_lab.studies.synthetic import add_fact, apply_shared_op

    ids: list[str | None] = []
    keys: list[str] = []
    flag_ids: list[str] = []
    live = ("active", "hypothesis", "disputed")
    for op in ops:
        kind = op[0]
        if kind == "add":
            _, s, r, _o, _source, scope, _premises, _hyp, sup = op
            keys.append(fact_key(scope, s, r))
            add_fact(ks, ids, op, supersedes=ids[sup] if sup is not None else None)
            if progress is not None:
                progress.update(1)
            continue
        if apply_shared_op(ks, op, ids, flag_ids):
            continue
        iid = ids[op[1]] if kind in ("rollback", "use", "flag_key") else None
        # The fold state is private since issue 14; a --baseline checkout may be older and keep it public.
        items = vars(ks).get("_fold", ks)._items if hasattr(vars(ks).get("_fold", ks), "_items") else ks.items
        if kind == "rollback":
            it = items.get(iid) if iid is not None else None
            if it is not None and it.state in live and it.supersedes:
                prev = items[it.supersedes]
                if prev.state == "refuted" and prev.refuted_by == iid:
                    ks.rollback(iid, by="synthetic-person", why="bad update")
        elif kind == "use":
            if iid is not None and iid in ks:
                ks.use(iid, wrong=op[1] % 3 == 0)
        elif kind == "flag_key":
            scope, s, r = json.loads(keys[op[1]])
            flag_ids.append(ks.flag(key=(scope, s, r), why="synthetic drift on one key"))
    return ids, keys
