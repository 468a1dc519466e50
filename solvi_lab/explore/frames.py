"""The knowledge store as a polars table: one row per item, for filtering and grouping in a notebook.

`store_frame(ks)` reads the store's fold state directly (the `Item` slots), column by column, so that a store
of a million items becomes a table in seconds, not minutes; `ks.item(id)` builds a nested dict per call and is
used only for the few rows that need its retraction bookkeeping.

>>> from solvi_lab.knowledge import KnowledgeStore
>>> ks = KnowledgeStore()
>>> crm = ks.add("fact", {"s": "c17", "r": "tier", "o": "vip"}, source="person", by="crm")
>>> obs = ks.add("fact", {"s": "c17", "r": "tier", "o": "regular"}, source="outcome")
>>> store_frame(ks).select("id", "o", "source", "status", "rank").rows()
[('k0', 'vip', 'person', 'refuted', 3), ('k1', 'regular', 'outcome', 'active', 4)]

See Also: `solvi_lab.explore.timetravel.diff` (what changed between two positions),
`solvi_lab.explore.graph.graph` (premises and competition as a networkx graph).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from ..journal import canonical
from ..knowledge.items import LIVE, RANK
from ..knowledge.view import item_status

if TYPE_CHECKING:
    from ..knowledge.store import KnowledgeStore

__all__ = ["FRAME_SCHEMA", "store_frame", "json_text"]

# The fixed part of the schema: the two validity columns are typed from the data (see store_frame).
FRAME_SCHEMA: dict[str, Any] = {
    "id": pl.Utf8,
    "kind": pl.Utf8,
    "s": pl.Utf8,
    "r": pl.Utf8,
    "o": pl.Utf8,
    "scope": pl.Utf8,
    "source": pl.Utf8,
    "by": pl.Utf8,
    "status": pl.Utf8,
    "rank": pl.Int64,
    "confirmations": pl.Int64,
    "refutations": pl.Int64,
    "learned_at": pl.Int64,
    "invalidated_at": pl.Int64,
    "valid_since": None,
    "valid_until": None,
    "n_premises": pl.Int64,
    "stale": pl.Boolean,
}


def json_text(value: Any) -> str | None:
    """A cell for a JSON value: strings as they are, None as null, anything else as canonical JSON text.

    Strings stay plain so that `pl.col("o") == "vip"` works; a number or a list is written as JSON so that one
    column holds every value without losing which type it had.

    >>> json_text("vip"), json_text(3), json_text(["room", 3]), json_text(None)
    ('vip', '3', '["room",3]', None)
    """
    if value is None or isinstance(value, str):
        return value
    return canonical(value)


def _validity_column(values: list[Any]) -> pl.Series:
    """Type a validity bound column from its data: Int64 or Float64 when every bound given is a number, else text.

    Numbers stay numbers so that `pl.col("valid_since") <= t` compares numerically; ISO date strings compare
    correctly as text; a store that mixes both gets JSON text (a mixed column cannot be ordered meaningfully).
    """
    given = [v for v in values if v is not None]
    if not given or all(isinstance(v, int) and not isinstance(v, bool) for v in given):
        return pl.Series(values, dtype=pl.Int64)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in given):
        return pl.Series([None if v is None else float(v) for v in values], dtype=pl.Float64)
    return pl.Series([json_text(v) for v in values], dtype=pl.Utf8)


def store_frame(ks: KnowledgeStore) -> pl.DataFrame:
    """One row per item in the store, present or retracted (refused writes are not in the store and are left out).

    Columns (in this order):

    - id, kind, source, by — as written (`by` as JSON text when it is not a string);
    - s, r, o — a fact's subject, relation and object (strings as they are, other JSON values as JSON text;
      null for items that are not facts);
    - scope — the scope dict as canonical JSON text, or null;
    - status — `ks.status(id)`: active, hypothesis, disputed, refuted, expired or retracted;
    - rank — of the source: outcome 4, person 3, spec 2, verified 1;
    - confirmations, refutations — the fold's counts;
    - learned_at — the journal position of the item's write; invalidated_at — where it was refuted, or for a
      retracted item where the retraction that took it was written (as `ks.item(id)["invalidated_at"]`);
    - valid_since, valid_until — the validity bounds (Int64/Float64 when every bound is a number, else text);
    - n_premises — how many items it was derived from;
    - stale — `ks.stale(id)`: a pending flag covers it.

    Cost: O(items), about 5 µs of CPU per item (5–6 s per 10⁶; docs/readme/explore.md has the measurements), plus
    `ks.item` for retracted rows only and `ks.stale` for live rows only when a flag is pending.

    >>> from solvi_lab.knowledge import KnowledgeStore
    >>> ks = KnowledgeStore()
    >>> a = ks.add("fact", {"s": ["room", 3], "r": "size", "o": 12}, source="spec", scope={"map": "A"})
    >>> store_frame(ks).select("s", "o", "scope", "rank").row(0)
    ('["room",3]', '12', '{"map":"A"}', 2)
    """
    # One pass to pick the rows; then one list comprehension per column over the picked items, with no Python
    # function call per cell where it can be avoided: at 10⁶ rows every call costs about 0.1 s.
    view = ks.view()
    items = [it for it in view.fold_items() if it.state != "refused" and it.state is not None]
    clock = ks.ticks
    live = LIVE
    states = [it.state for it in items]
    bodies = [it.body if it.kind == "fact" and it.body.__class__ is dict else None for it in items]
    subjects = [None if b is None else b.get("s") for b in bodies]
    objects = [None if b is None else b.get("o") for b in bodies]
    s_col = [v if v is None or v.__class__ is str else canonical(v) for v in subjects]
    o_col = [v if v is None or v.__class__ is str else canonical(v) for v in objects]
    relations = [None if b is None else b.get("r") for b in bodies]
    r_col = [v if v is None or v.__class__ is str else canonical(v) for v in relations]
    # Scopes repeat across many items; serialise each distinct one once.
    scope_cache: dict[str, str] = {}
    scope_col = [None if it.scope is None else _scope_text(it.scope, scope_cache) for it in items]
    by_col = [b if b is None or b.__class__ is str else canonical(b) for b in (it.by for it in items)]
    # The store's own status function, without its id lookup (pinned equal to ks.status by tests/test_frames.py).
    status_col = [item_status(it, clock) for it in items]

    invalidated = [it.invalidated_at for it in items]
    for i, st in enumerate(states):
        if st == "retracted":
            # The retraction position lives in the store's retraction bookkeeping (the root may be a premise
            # several steps up); ks.item is its one definition, and retracted rows are few.
            invalidated[i] = ks.item(items[i].id)["invalidated_at"]

    # Staleness needs the flag index; when no flag is pending (the common case) nothing is stale.
    if view.pending_flags():
        stale = [st in live and ks.stale(it.id) for st, it in zip(states, items)]
    else:
        stale = [False] * len(items)

    valid = [it.valid for it in items]
    columns: dict[str, Any] = {
        "id": [it.id for it in items],
        "kind": [it.kind for it in items],
        "s": s_col,
        "r": r_col,
        "o": o_col,
        "scope": scope_col,
        "source": [it.source for it in items],
        "by": by_col,
        "status": status_col,
        "rank": None,  # from source, vectorised below
        "confirmations": [it.confirmations for it in items],
        "refutations": [it.refutations for it in items],
        "learned_at": [it.pos for it in items],
        "invalidated_at": invalidated,
        "valid_since": _validity_column([v[0] if v else None for v in valid]),
        "valid_until": _validity_column([v[1] if v else None for v in valid]),
        "n_premises": [len(it.derived_from) for it in items],
        "stale": stale,
    }
    columns["rank"] = pl.Series(columns["source"], dtype=pl.Utf8).replace_strict(
        RANK, default=None, return_dtype=pl.Int64
    )
    return pl.DataFrame(
        [
            col.alias(name) if isinstance(col, pl.Series) else pl.Series(name, col, dtype=FRAME_SCHEMA[name])
            for name, col in columns.items()
        ]
    )


def _scope_text(scope: Any, cache: dict[str, str]) -> str:
    """Canonical JSON of a scope, memoised on its repr.

    repr is five times cheaper than canonical JSON and tells apart exactly what JSON tells apart (1, 1.0 and True
    have different reprs; JSON keys are strings); dicts written in another key order just get their own entry.
    """
    key = repr(scope)
    text = cache.get(key)
    if text is None:
        text = cache[key] = canonical(scope)
    return text
