"""Read each probe's conditions once for a study's several vocabularies (the main one and its ablations).

A τ-bench study trains eight models on the same probes (the main vocabulary, the schema family the other way, six
ablations) and scores each on several probe sets, some several times (``unseen`` both ways, per family, per
slice). Reading a condition vector is what costs (a lookup scans a table, a money condition walks an order), and
most conditions are the same predicate in every vocabulary. :class:`SharedReads` keeps the main vocabulary's vector
of each probe it has read (the probe is the ``(state, args)`` objects themselves: a study's probes are frozen), and
gives another vocabulary each condition whose predicate has the same :meth:`~solvi_lab.actions.Vocabulary.predicate_digest`
from that vector; a condition it builds another way (e.g. the lists ablation's ``type``) it reads itself. Values,
models and results are exactly those of unshared reads; only the time changes.

Use it only on probes nobody mutates (a call's ``args`` dict or state changed in place after a read would give
the old vector back).

>>> from solvi_lab.actions import Vocabulary
>>> calls = []
>>> def costly(s, a):
...     calls.append(1)
...     return a["x"] > 0
>>> main = Vocabulary({"x": costly, "y": lambda s, a: a["x"]})
>>> other = Vocabulary({"x": costly, "z": lambda s, a: -a["x"]})
>>> reads = SharedReads(main)
>>> reads.share(other)
>>> state, args = {}, {"x": 2}
>>> main.vector(state, "t", args), other.vector(state, "t", args), main.vector(state, "t", args), len(calls)
((True, 2), (True, -2), (True, 2), 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...actions import Vocabulary

__all__ = ["SharedReads"]


class SharedReads:
    """The main vocabulary's vectors, memoised per probe, shared with the vocabularies given to :meth:`share`.

    Installs a ``vector`` on each vocabulary object (the models call ``vocab.vector``); :meth:`close` removes
    them and drops the memo.
    """

    def __init__(self, main: Vocabulary):
        self.main = main
        self._memo: dict[tuple[int, int, str], tuple[Any, Any, tuple[Any, ...]]] = {}
        self._shared: list[Vocabulary] = []
        self.hits = 0
        self.reads = 0
        main.vector = self._main_vector  # type: ignore[method-assign]

    def _main_vector(self, state: Any, action: str, args: Mapping[str, Any]) -> tuple[Any, ...]:
        key = (id(state), id(args), action)
        hit = self._memo.get(key)
        if hit is not None and hit[0] is state and hit[1] is args:  # the same objects, not a reused id
            self.hits += 1
            return hit[2]
        self.reads += 1
        vec = Vocabulary.vector(self.main, state, action, args)
        self._memo[key] = (state, args, vec)
        return vec

    def share(self, vocab: Vocabulary) -> None:
        """Let ``vocab`` take from the main vector every condition whose predicate is the main one's."""
        digests: dict[str, str] = {}

        def digest(v: Vocabulary, name: str) -> str:
            key = f"{id(v)}\x00{name}"
            if key not in digests:
                digests[key] = v.predicate_digest(name)
            return digests[key]

        plans: dict[str, tuple[tuple[str, int | None], ...]] = {}

        def plan(action: str) -> tuple[tuple[str, int | None], ...]:
            if action not in plans:
                where = {c: i for i, c in enumerate(self.main.conditions(action))}
                plans[action] = tuple(
                    (c, where[c] if c in where and digest(vocab, c) == digest(self.main, c) else None)
                    for c in vocab.conditions(action)
                )
            return plans[action]

        def vector(state: Any, action: str, args: Mapping[str, Any]) -> tuple[Any, ...]:
            base = self._main_vector(state, action, args)
            memo: dict[str, Any] = {}
            return tuple(base[i] if i is not None else vocab.read_one(c, state, args, memo) for c, i in plan(action))

        vocab.vector = vector  # type: ignore[method-assign]
        self._shared.append(vocab)

    def close(self) -> None:
        """Give every vocabulary its own ``vector`` back and drop the memo."""
        for v in [self.main, *self._shared]:
            v.__dict__.pop("vector", None)
        self._shared.clear()
        self._memo.clear()
