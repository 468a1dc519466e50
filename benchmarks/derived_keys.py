"""A second benchmark stream with another shape: derived items on keys of their own, long dispute chains, many flags.

Written from the specification's description of what a store holds (facts from sources of different ranks, items
derived from premises, disputes between sources, staleness flags), not tuned against the project's code: the
hot-key stream (benchmarks/hot_keys.py) keeps its derived items on the hot keys, so competition settles most of
them and few stay live. Here:

- **derived items sit on keys of their own** (subject ``d<i>``): nothing competes with them, so they stay live
  until a premise goes — at the end about a third of all items are live, and a snapshot open has that many to serve;
- **long dispute chains**: a few contested keys take persons' claims with changing objects and are resolved
  rarely (one resolve per 200 adds), so a dispute collects dozens of items before a person settles it;
- **many flags**: a key flag every 50 adds, a scope flag every 300, most of them ended later.

It yields the hot-key stream's operations (see ``iter_hot_key_operations``), so ``apply_hot_stream`` applies it.

>>> ops = list(iter_derived_key_operations(400, seed=1))
>>> sum(1 for op in ops if op[0] == "add")
400
>>> from solvi_lab.knowledge import KnowledgeStore
>>> from hot_keys import apply_hot_stream
>>> ks = KnowledgeStore()
>>> ids, keys = apply_hot_stream(ks, ops)
>>> len(ids) == len(keys) == 400
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator

SOURCES = ("outcome", "person", "spec")
SCOPES = ({"domain": "d0"}, {"domain": "d1"}, {"domain": "d2"})
DERIVED_SHARE = 0.30  # of adds: a derived item on a key of its own
CONTESTED_SHARE = 0.15  # of adds: a person's claim on one of the few contested keys
CONTESTED_KEYS = 12
OBJECTS = ("a", "b", "c", "d")


def iter_derived_key_operations(n_items: int, seed: int = 0) -> Iterator[tuple]:
    """Ops as ``hot_keys.iter_hot_key_operations`` gives them: ("add", s, r, o, source, scope, premises, hypothesis,
    supersedes-index or None), ("resolve", i), ("promote", i), ("rollback", i), ("use", i), ("tick", k),
    ("flag", scope), ("flag_key", i), ("end_flag", n); i is the index of an earlier add."""
    rng = random.Random(seed)
    n_base_subjects = max(4, n_items // 400)  # plain facts: ~400 adds per subject over its 3 relations and 3 scopes
    last_on_key: dict[tuple, int] = {}
    base: list[int] = []  # adds that can be premises: plain facts and earlier derived items
    updates: list[int] = []
    hyps: list[int] = []
    contested: list[int] = []
    flags = 0
    for i in range(n_items):
        u = rng.random()
        sup = None
        premises: list[int] = []
        if u < DERIVED_SHARE and base:
            # A derived item: one to three premises, recent ones more often (chains grow deep), its own key.
            k = min(len(base), rng.choice((1, 1, 2, 3)))
            premises = sorted({base[-1 - min(len(base) - 1, int(rng.expovariate(1 / 50)))] for _ in range(k)})
            s, r, o = f"d{i}", "implies", rng.choice(OBJECTS)
            source = rng.choice(("spec", "person"))
            scope = SCOPES[rng.randrange(len(SCOPES))]
        elif u < DERIVED_SHARE + CONTESTED_SHARE:
            c = rng.randrange(CONTESTED_KEYS)
            s, r, o = f"c{c}", "status", rng.choice(OBJECTS)  # persons disagree: a dispute that grows
            source, scope = "person", SCOPES[c % len(SCOPES)]
        else:
            s, r = f"s{rng.randrange(n_base_subjects)}", rng.choice(("tier", "owner", "region"))
            o = rng.choice(OBJECTS) if rng.random() < 0.5 else "a"
            source = rng.choices(SOURCES, (0.2, 0.4, 0.4))[0]
            scope = SCOPES[rng.randrange(len(SCOPES))]
            key = (s, r, scope["domain"])
            if key in last_on_key and rng.random() < 0.15:
                sup = last_on_key[key]
            last_on_key[key] = i
        hyp = source != "outcome" and sup is None and not premises and rng.random() < 0.05
        yield ("add", s, r, o, source, scope, premises, hyp, sup)
        base.append(i)
        if s.startswith("c"):
            contested.append(i)
        if sup is not None:
            updates.append(i)
        if hyp:
            hyps.append(i)
        if contested and i % 200 == 199:
            yield ("resolve", contested[-1])
        if i % 7 == 3:
            yield ("use", rng.randrange(i + 1))
        if updates and i % 60 == 59:
            yield ("rollback", updates.pop(rng.randrange(len(updates))))
        if hyps and i % 41 == 40:
            yield ("promote", hyps.pop(rng.randrange(len(hyps))))
        if i % 100 == 99:
            yield ("tick", 50)
        if i % 50 == 25:
            yield ("flag_key", rng.randrange(i + 1))
            flags += 1
        if i % 300 == 150:
            yield ("flag", SCOPES[rng.randrange(len(SCOPES))])
            flags += 1
        if flags and i % 60 == 55:
            yield ("end_flag", rng.randrange(flags))
