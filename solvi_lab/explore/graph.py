"""What an item rests on and what it competes with, as a networkx graph for analysis and pictures.

Two kinds of edge:

- ``kind="premise"``: premise → dependent, one per entry of the dependent's `derived_from`;
- ``kind="competes"``: between two items on the same competition key (for facts: same scope, subject and
  relation), directed from the earlier to the later write. Where a dependent sits on its premise's key, the
  premise edge is kept (a DiGraph holds one edge per ordered pair, and derivation is the stronger relation).

Nodes carry ``status`` (`ks.status`), ``kind``, ``source``, ``learned_at`` and a short ``label``. Refused writes are
not in the store and never appear.

networkx is for analysis and pictures, not the hot path: the graph is built from the store's indexes
(the store's view: `dependents_of`, `on_key`) for the neighbourhood asked for only.

>>> from solvi_lab.knowledge import KnowledgeStore
>>> ks = KnowledgeStore()
>>> a = ks.add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="person")
>>> b = ks.add("fact", {"s": "c1", "r": "discount", "o": 20}, source="spec", derived_from=[a])
>>> c = ks.add("fact", {"s": "c1", "r": "tier", "o": "regular"}, source="spec")
>>> g = graph(ks, around=b, depth=2)
>>> sorted(g.edges(data="kind"))
[('k0', 'k1', 'premise'), ('k0', 'k2', 'competes')]
>>> g.nodes["k2"]["status"]
'refuted'

See Also: `solvi_lab.explore.plot.derivations` (draw it), `frames.store_frame` (the same items as a table).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import networkx as nx

from ..errors import BadInput, UnknownId
from ..journal import canonical

if TYPE_CHECKING:
    from ..knowledge.store import KnowledgeStore
    from ..knowledge.view import ItemRecord, StoreView

__all__ = ["graph", "node_label", "DEFAULT_MAX_NODES"]

# A picture of more nodes than this is unreadable, and networkx layouts get slow; the guard says how to widen it.
DEFAULT_MAX_NODES = 2000


def _in_store(v: StoreView, iid: str) -> bool:
    return iid in v and v.status(iid) not in (None, "refused")


def node_label(it: ItemRecord, width: int = 28) -> str:
    """A short label: the id, then `s r=o` for a fact, `kind name` otherwise, cut at `width` characters.

    >>> from solvi_lab.knowledge import KnowledgeStore
    >>> ks = KnowledgeStore()
    >>> node_label(ks.view().record(ks.add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="person")))
    'k0\\nc1 tier=vip'
    """
    body = it.body if isinstance(it.body, dict) else {}
    if it.kind == "fact" and "s" in body:
        text = f"{_short(body.get('s'))} {body.get('r')}={_short(body.get('o'))}"
    else:
        name = body.get("name") if isinstance(body.get("name"), (str, int)) else None
        text = f"{it.kind} {name}" if name is not None else it.kind
    if len(text) > width:
        text = text[: width - 1] + "…"
    return f"{it.id}\n{text}"


def _short(v: Any) -> str:
    return v if isinstance(v, str) else canonical(v)


def _neighbours(v: StoreView, it: ItemRecord, keys_done: set[str]) -> Iterable[str]:
    """Every item one edge away: premises, dependents, and the other items on its key.

    A key's items are all adjacent to each other, so the first member reached (breadth first: at the smallest
    depth) lists them for all; later members skip the key, which keeps a key of k items O(k), not O(k²).
    """
    yield from it.derived_from
    yield from v.dependents_of(it.id)
    if it.key not in keys_done:
        keys_done.add(it.key)
        yield from v.on_key(it.key)


def graph(
    ks: KnowledgeStore, around: str | None = None, depth: int = 2, *, max_nodes: int | None = DEFAULT_MAX_NODES
) -> nx.DiGraph:
    """The premise and competition graph of the items within `depth` edges of `around` (either edge kind, in
    either direction), with every edge among them; `around=None` takes the whole store.

    Raises UnknownId when `around` is not an item of the store (or was refused when written), BadInput when depth
    is not an int ≥ 0, and BadInput when the neighbourhood has more than `max_nodes` nodes (pass a smaller depth,
    or max_nodes=None to lift the guard).

    Cost: O(nodes + edges of the neighbourhood) plus, per key reached, the items on that key; a key with k items
    gives k(k-1)/2 competition edges.

    >>> from solvi_lab.knowledge import KnowledgeStore
    >>> ks = KnowledgeStore()
    >>> a = ks.add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="person")
    >>> graph(ks, around=a, depth=0).number_of_nodes()
    1
    >>> graph(ks, around="k9")
    Traceback (most recent call last):
    ...
    solvi_lab.errors.UnknownId: no item 'k9' in this store (1 written); use an id add() returned or one from store_frame(ks)['id'].
    """
    v = ks.view()
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise BadInput(
            f"depth={depth!r}: pass an int ≥ 0 (0: the item alone, 1: its direct premises, dependents "
            "and competitors, 2: one step further ...)."
        )
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1):
        raise BadInput(f"max_nodes={max_nodes!r}: pass a positive int, or None for no limit.")
    if around is None:
        chosen = [iid for iid in v.ids() if _in_store(v, iid)]
        what = "the whole store"
    else:
        if not isinstance(around, str):
            raise BadInput(f"around={around!r}: pass an item id such as 'k3' (a string), or None for the whole store.")
        if around not in v:
            raise UnknownId(
                f"no item {around!r} in this store ({len(v)} written); use an id add() returned "
                "or one from store_frame(ks)['id']."
            )
        start = v.record(around)
        if not _in_store(v, around):
            raise UnknownId(
                f"{around} was refused when written ({start.why}); it is not in the store, so it has no "
                "derivations. Pick an item whose status is not 'refused'."
            )
        what = f"depth {depth} around {around}"
        chosen, seen, keys_done = [], {around}, set()
        todo: deque[tuple[str, int]] = deque([(around, 0)])
        # Breadth first, so that the guard trips on the first node too many, not after the whole walk.
        while todo:
            iid, d = todo.popleft()
            chosen.append(iid)
            if max_nodes is not None and len(chosen) > max_nodes:
                break
            if d == depth:
                continue
            for nid in _neighbours(v, v.record(iid), keys_done):
                if nid not in seen and _in_store(v, nid):
                    seen.add(nid)
                    todo.append((nid, d + 1))
    if max_nodes is not None and len(chosen) > max_nodes:
        raise BadInput(
            f"the graph of {what} has more than {max_nodes} nodes; pass a smaller depth, pick another "
            "item, or pass max_nodes=None (drawing that many nodes is unreadable)."
        )
    return _build(v, chosen)


def _build(v: StoreView, ids: list[str]) -> nx.DiGraph:
    g = nx.DiGraph()
    recs = {i: v.record(i) for i in ids}
    # Nodes in write order, so that layouts and edge lists are deterministic.
    order = sorted(ids, key=lambda i: recs[i].learned_at)
    inside = set(order)
    for iid in order:
        it = recs[iid]
        g.add_node(
            iid, status=it.status, kind=it.kind, source=it.source, learned_at=it.learned_at, label=node_label(it)
        )
    for iid in order:
        for pid in recs[iid].derived_from:
            if pid in inside:
                g.add_edge(pid, iid, kind="premise")
    by_key: dict[str, list[str]] = {}
    for iid in order:
        by_key.setdefault(recs[iid].key, []).append(iid)
    for members in by_key.values():
        for i, x in enumerate(members):
            for y in members[i + 1 :]:
                if not g.has_edge(x, y) and not g.has_edge(y, x):
                    g.add_edge(x, y, kind="competes")
    return g
