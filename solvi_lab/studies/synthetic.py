"""A synthetic operation stream for the knowledge store: the retraction study's store and the benchmarks' load.

The stream is plain data (a list of tuples), generated once per (n_items, seed) and applied to any store that has
the specification's API — ours, or the `solvi` package in the benchmarks — so both see the same operations.

What it holds, as the specification's retraction benchmark describes: facts from every source, derivations up to
depth 5, same-rank disagreements (disputes) and person resolutions of some of them, hypotheses promoted later,
the clock moving (so "verified" facts expire) and drift flags raised and ended on scopes.

>>> ops = operation_stream(200, seed=1)
>>> sum(1 for op in ops if op[0] == "add")
200
>>> from solvi_lab.knowledge import KnowledgeStore
>>> ks = KnowledgeStore()
>>> ids = apply_stream(ks, ops)
>>> len(ids)
200
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import BadParameter, WriteRefused
from ..validation import need_int

SOURCES = ("outcome", "person", "spec", "verified")
SOURCE_WEIGHTS = (0.10, 0.40, 0.30, 0.20)
MAX_DEPTH = 5


def operation_stream(n_items: int, seed: int = 0, **kw: Any) -> list[tuple]:
    """The operations that build a synthetic store of `n_items` written items, as a list (see iter_operations)."""
    return list(iter_operations(n_items, seed, **kw))


def iter_operations(
    n_items: int,
    seed: int = 0,
    *,
    subjects_per_item: float = 0.1,
    derive_share: float = 0.5,
    scopes: int = 10,
    tries: int = 4,
    source_weights: tuple[float, float, float, float] = SOURCE_WEIGHTS,
) -> Iterator[tuple]:
    """The operations that build a synthetic store of `n_items` written items, generated lazily (a stream of
    10^6 items does not have to sit in memory beside the store it builds).

    Ops: ("decision", answer) · ("add", s, r, o, source, scope, premises (indices of earlier adds), hypothesis)
    · ("resolve", add index of one side) · ("promote", add index) · ("tick", k) · ("flag", scope) · ("end_flag", n).
    """
    need_int("n_items", n_items, min=1, error=BadParameter, hint="a positive int of items to add")
    need_int("seed", seed, error=BadParameter, hint="e.g. seed=0")
    rng = random.Random(seed)
    n_subjects = max(1, int(n_items * subjects_per_item))
    scope_dicts = [{"domain": f"d{k}"} for k in range(scopes)]
    depth: list[int] = []
    hyps: list[int] = []
    flags = 0
    for i in range(n_items):
        s = f"s{rng.randrange(n_subjects)}"
        r = rng.choice(("tier", "region", "owner"))
        o = rng.choice(("a", "b", "c")) if rng.random() < 0.5 else "a"
        source = rng.choices(SOURCES, source_weights)[0]
        scope = scope_dicts[rng.randrange(scopes)]
        premises = sample_premises(rng, i, depth, tries) if i and rng.random() < derive_share else []
        depth.append(1 + max((depth[j] for j in premises), default=-1) if premises else 0)
        hyp = source != "outcome" and rng.random() < 0.05
        if source == "verified":
            yield ("decision", o)
        yield ("add", s, r, o, source, scope, premises, hyp)
        if hyp:
            hyps.append(i)
        if i % 50 == 49:
            yield ("resolve", i)
        if hyps and i % 37 == 36:
            yield ("promote", hyps.pop(rng.randrange(len(hyps))))
        if i % 100 == 99:
            yield ("tick", 50)
        if i % 1000 == 500:
            yield ("flag", {"domain": f"d{rng.randrange(scopes)}"})
            flags += 1
        if i % 1000 == 900 and flags:
            yield ("end_flag", rng.randrange(flags))


def sample_premises(rng: random.Random, i: int, depth: list[int], tries: int) -> list[int]:
    """One or two premises for add number ``i``, from anywhere earlier (a well-connected store, as in the
    specification's benchmark), never deeper than MAX_DEPTH: ``tries`` draws per wanted premise to find shallow
    enough ones (so it may return fewer). ``depth``: the derivation depth of each earlier add.

    >>> sample_premises(random.Random(0), 3, [0, 0, MAX_DEPTH], 4)
    [1]
    """
    want = rng.choice((1, 1, 2))
    premises: list[int] = []
    for _ in range(tries * want):
        j = rng.randrange(i)
        if depth[j] < MAX_DEPTH and j not in premises:
            premises.append(j)
            if len(premises) == want:
                break
    return premises


def add_fact(ks: Any, ids: list[str | None], op: tuple, **extra: Any) -> None:
    """Apply one ``add`` op (its first eight fields) to a solvi_lab KnowledgeStore; append the new item's id to
    ``ids``, or None where the store refuses the write. ``extra``: further keyword arguments of ``ks.add``.

    >>> from solvi_lab.knowledge import KnowledgeStore
    >>> ids = []; add_fact(KnowledgeStore(), ids, ("add", "s", "r", "o", "spec", {}, [], False))
    >>> len(ids), ids[0] is not None
    (1, True)
    """
    _, s, r, o, source, scope, premises, hyp = op[:8]
    derived = [ids[j] for j in premises if ids[j] is not None]
    try:
        ids.append(
            ks.add(
                "fact",
                {"s": s, "r": r, "o": o},
                source=source,
                scope=scope,
                derived_from=derived,
                hypothesis=hyp,
                **extra,
            )
        )
    except WriteRefused:
        ids.append(None)


def _record(ks: Any, iid: str) -> Any:
    """An item's record through the store's read-only view (an older store, e.g. a benchmark's --baseline
    checkout from before the view existed, keeps its fold state public)."""
    return ks.view().record(iid) if hasattr(ks, "view") else ks.items[iid]


def _flag_pending(ks: Any, flag: str) -> bool:
    return ks.view().flag_pending(flag) if hasattr(ks, "view") else ks.flags.flags[flag].pending


def apply_shared_op(ks: Any, op: tuple, ids: list[str | None], flag_ids: list[str]) -> bool:
    """Apply a ``resolve``, ``promote``, ``tick``, ``flag`` or ``end_flag`` op (the kinds every stream shares) to a
    solvi_lab KnowledgeStore; False for any other kind (left to the caller). Raised flags are appended to
    ``flag_ids``, which ``end_flag`` indexes.

    >>> from solvi_lab.knowledge import KnowledgeStore
    >>> apply_shared_op(KnowledgeStore(), ("tick", 1), [], []), apply_shared_op(None, ("use", 0), [], [])
    (True, False)
    """
    kind = op[0]
    if kind == "resolve":
        iid = ids[op[1]]
        if iid is not None and ks.status(iid) == "disputed":
            it = _record(ks, iid)
            ks.resolve(it.key, it.body["o"], by="synthetic-person")
    elif kind == "promote":
        iid = ids[op[1]]
        if iid is not None and ks.status(iid) == "hypothesis":
            ks.promote(iid, by="synthetic-lead", why="measured")
    elif kind == "tick":
        ks.tick(op[1])
    elif kind == "flag":
        flag_ids.append(ks.flag(op[1], why="synthetic drift"))
    elif kind == "end_flag":
        f = flag_ids[op[1]]
        if _flag_pending(ks, f):
            ks.end_flag(f, by="synthetic-person", why="re-confirmed")
    else:
        return False
    return True


def apply_stream(ks: Any, ops: Iterable[tuple], progress: Any = None) -> list[str | None]:
    """Apply a stream to a solvi_lab KnowledgeStore; return the item id of each add (None where refused)."""
    ids: list[str | None] = []
    flag_ids: list[str] = []
    last_decision = None
    for op in ops:
        kind = op[0]
        if kind == "decision":
            last_decision = ks.decisions.record("synthetic", {}, op[1], answered_by="system2", guarantee="synthetic").id
        elif kind == "add":
            add_fact(ks, ids, op, of=last_decision if op[4] == "verified" else None)
            if progress is not None:
                progress.update(1)
        else:
            apply_shared_op(ks, op, ids, flag_ids)
    return ids
