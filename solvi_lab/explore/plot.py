"""Pictures of what an agent knows: one figure per question, labelled, colours that mean the same everywhere.

>>> import matplotlib
>>> matplotlib.use("agg")
>>> from solvi_lab.knowledge import KnowledgeStore
>>> from solvi_lab.explore.graph import graph
>>> ks = KnowledgeStore()
>>> a = ks.add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="person")
>>> b = ks.add("fact", {"s": "c1", "r": "discount", "o": 20}, source="spec", derived_from=[a])
>>> ax = derivations(graph(ks, around=a))
>>> ax.get_title()
'Derivations: 2 items, 1 premise edge, 0 competition edges'
"""

from __future__ import annotations

from typing import Any

import networkx as nx
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..errors import BadInput

__all__ = ["STATUS_COLOURS", "derivations", "layered_layout"]

# One colour per status, the same in every solvi_lab figure (colour-blind safe: Okabe-Ito, plus greys).
STATUS_COLOURS: dict[str, str] = {
    "active": "#009E73",  # bluish green
    "hypothesis": "#56B4E9",  # sky blue
    "disputed": "#E69F00",  # orange
    "refuted": "#D55E00",  # vermillion
    "expired": "#999999",  # grey
    "retracted": "#444444",  # dark grey
}
_OTHER = "#CC79A7"  # a status this module does not know yet (reddish purple)


def layered_layout(g: nx.DiGraph) -> dict[Any, tuple[float, float]]:
    """Positions that read left to right: an item's column is the length of its longest premise chain, its row
    its order of writing within the column. Deterministic (no random seed), so a re-run draws the same picture.

    >>> g = nx.DiGraph()
    >>> g.add_edge("k0", "k1", kind="premise")
    >>> layered_layout(g)
    {'k0': (0.0, 0.0), 'k1': (1.0, 0.0)}
    """
    premise = nx.DiGraph()
    premise.add_nodes_from(g.nodes)
    premise.add_edges_from((u, v) for u, v, k in g.edges(data="kind") if k == "premise")
    if not nx.is_directed_acyclic_graph(premise):
        # Premises always precede their dependents in a journal; a cycle means a hand-made graph.
        raise BadInput("the premise edges of this graph form a cycle; derivations() draws graphs from graph(ks, ...).")
    column: dict[Any, int] = {}
    for n in nx.topological_sort(premise):
        column[n] = max((column[p] + 1 for p in premise.predecessors(n)), default=0)
    order = {n: i for i, n in enumerate(sorted(g.nodes, key=lambda n: (g.nodes[n].get("learned_at", 0), str(n))))}
    rows: dict[int, list[Any]] = {}
    for n in sorted(g.nodes, key=order.__getitem__):
        rows.setdefault(column[n], []).append(n)
    return {n: (float(c), float(-r)) for c, members in rows.items() for r, n in enumerate(members)}


def derivations(g: nx.DiGraph, ax: Axes | None = None, *, title: str | None = None) -> Axes:
    """Draw a graph from `solvi_lab.explore.graph.graph`: nodes coloured by status (with a legend), premise
    edges as solid arrows (premise → dependent), competition on a key as dashed arcs, every node labelled.

    ax: where to draw; None makes a new figure sized to the graph. Returns the Axes (its figure is `ax.figure`).

    >>> import matplotlib
    >>> matplotlib.use("agg")
    >>> ax = derivations(nx.DiGraph())
    >>> ax.get_title()
    'Derivations: empty graph'
    """
    if not isinstance(g, nx.DiGraph):
        raise BadInput(f"derivations() draws a networkx DiGraph from graph(ks, around=...), got {type(g).__name__}.")
    pos = layered_layout(g)
    if ax is None:
        # pyplot, so that Jupyter shows the figure; studies pass an ax of their own Figure instead.
        import matplotlib.pyplot as plt

        cols = 1 + max((x for x, _ in pos.values()), default=0)
        rows = 1 + max((-y for _, y in pos.values()), default=0)
        _, ax = plt.subplots(figsize=(min(4 + 2.6 * cols, 18), min(2.5 + 0.9 * rows, 14)))
    ax.set_axis_off()
    n_prem = sum(1 for *_, k in g.edges(data="kind") if k == "premise")
    n_comp = sum(1 for *_, k in g.edges(data="kind") if k == "competes")
    if g.number_of_nodes() == 0:
        ax.set_title(title or "Derivations: empty graph")
        return ax
    statuses = [g.nodes[n].get("status") for n in g.nodes]
    colours = [STATUS_COLOURS.get(s, _OTHER) for s in statuses]
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colours, node_size=900, edgecolors="black", linewidths=0.8)
    premise = [(u, v) for u, v, k in g.edges(data="kind") if k == "premise"]
    competes = [(u, v) for u, v, k in g.edges(data="kind") if k == "competes"]
    if premise:
        nx.draw_networkx_edges(
            g, pos, edgelist=premise, ax=ax, arrows=True, arrowstyle="-|>", arrowsize=14, width=1.4, node_size=900
        )
    if competes:
        # Arcs, so that a dashed edge between two items of one column does not run through the items between them.
        nx.draw_networkx_edges(
            g,
            pos,
            edgelist=competes,
            ax=ax,
            arrows=True,
            arrowstyle="-",
            style="dashed",
            width=1.2,
            edge_color="#555555",
            connectionstyle="arc3,rad=0.35",
            node_size=900,
        )
    labels = {n: g.nodes[n].get("label", str(n)) for n in g.nodes}
    for n, (x, y) in pos.items():
        # Under the node rather than on it (two lines do not fit inside) or beside it (where the arrows run).
        ax.annotate(
            labels[n],
            (x, y),
            xytext=(0, -20),
            textcoords="offset points",
            ha="center",
            va="top",
            fontsize=8,
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8},
        )
    xs = [x for x, _ in pos.values()]
    ys = [y for _, y in pos.values()]
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.set_ylim(min(ys) - 0.8, max(ys) + 0.4)
    present = [s for s in STATUS_COLOURS if s in statuses] + sorted(
        {s for s in statuses if s not in STATUS_COLOURS}, key=str
    )
    handles: list[Any] = [
        Patch(facecolor=STATUS_COLOURS.get(s, _OTHER), edgecolor="black", label=str(s)) for s in present
    ]
    handles += [
        Line2D([], [], color="black", lw=1.4, label="premise → dependent"),
        Line2D([], [], color="#555555", lw=1.2, ls="--", label="competes (same key)"),
    ]
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=8,
        title="status / edge",
        title_fontsize=8,
        frameon=False,
    )
    ax.set_title(
        title
        or f"Derivations: {g.number_of_nodes()} items, {n_prem} premise edge{'s' * (n_prem != 1)}, "
        f"{n_comp} competition edge{'s' * (n_comp != 1)}"
    )
    return ax
