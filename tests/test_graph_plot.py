"""graph.graph (premise and competition edges around an item) and plot.derivations (its picture)."""

from __future__ import annotations

import matplotlib

matplotlib.use("agg")

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402

from solvi_lab.errors import BadInput, UnknownId, WriteRefused  # noqa: E402
from solvi_lab.explore.graph import graph, node_label  # noqa: E402
from solvi_lab.explore.plot import STATUS_COLOURS, derivations, layered_layout  # noqa: E402
from solvi_lab.journal import Journal  # noqa: E402
from solvi_lab.knowledge import KnowledgeStore  # noqa: E402


def story() -> KnowledgeStore:
    ks = KnowledgeStore(journal=Journal())
    ks.add("fact", {"s": "acme", "r": "tier", "o": "regular"}, source="spec", by="handbook")  # k0
    ks.add("fact", {"s": "acme", "r": "tier", "o": "vip"}, source="person", by="crm")  # k1 refutes k0
    ks.add("fact", {"s": "acme", "r": "discount", "o": 20}, source="spec", derived_from=["k1"])  # k2
    ks.add("rule", {"name": "free_shipping"}, source="spec", derived_from=["k2"])  # k3
    ks.add("fact", {"s": "acme", "r": "region", "o": "north"}, source="person", by="ann")  # k4
    ks.add("fact", {"s": "acme", "r": "region", "o": "south"}, source="person", by="bob")  # k5
    ks.add("fact", {"s": "other", "r": "tier", "o": "gold"}, source="spec")  # k6: unrelated
    return ks


def test_edges_and_nodes_around_an_item() -> None:
    ks = story()
    g = graph(ks, around="k1", depth=2)
    assert list(g.nodes) == ["k0", "k1", "k2", "k3"]
    assert sorted(g.edges(data="kind")) == [("k0", "k1", "competes"), ("k1", "k2", "premise"), ("k2", "k3", "premise")]
    assert g.nodes["k0"] == {
        "status": "refuted",
        "kind": "fact",
        "source": "spec",
        "learned_at": 0,
        "label": "k0\nacme tier=regular",
    }
    assert g.nodes["k3"]["label"] == "k3\nrule free_shipping"


def test_depth_limits_the_walk() -> None:
    ks = story()
    assert list(graph(ks, around="k1", depth=0).nodes) == ["k1"]
    assert list(graph(ks, around="k1", depth=1).nodes) == ["k0", "k1", "k2"]
    assert list(graph(ks, around="k3", depth=1).nodes) == ["k2", "k3"]
    assert list(graph(ks, around="k4", depth=5).nodes) == ["k4", "k5"]
    assert list(graph(ks, around="k4").edges(data="kind")) == [("k4", "k5", "competes")]


def test_statuses_follow_a_retraction() -> None:
    ks = story()
    ks.retract("k1", by="ann", why="wrong customer")
    g = graph(ks, around="k1", depth=2)
    assert {n: s for n, s in g.nodes(data="status")} == {
        "k0": "active",
        "k1": "retracted",
        "k2": "retracted",
        "k3": "retracted",
    }


def test_whole_store_and_premise_edge_wins_over_competition() -> None:
    ks = story()
    # A dependent on its premise's own key (same value: it confirms the premise) — one edge, the premise one.
    ks.add("fact", {"s": "acme", "r": "region", "o": "north"}, source="person", derived_from=["k4"])  # k7
    g = graph(ks)
    assert g.number_of_nodes() == 8
    assert g.edges["k4", "k7"]["kind"] == "premise"
    assert g.edges["k5", "k7"]["kind"] == "competes"
    assert sorted((u, v) for u, v, k in g.edges(data="kind") if k == "premise") == [
        ("k1", "k2"),
        ("k2", "k3"),
        ("k4", "k7"),
    ]


def test_refused_items_never_appear() -> None:
    ks = story()
    with pytest.raises(WriteRefused):
        ks.add("fact", {"s": "acme", "r": "tier", "o": "gold"}, source="model")  # k7, refused, on k0's key
    assert "k7" not in graph(ks, around="k0")
    with pytest.raises(UnknownId, match="k7 was refused when written"):
        graph(ks, around="k7")


def test_a_big_key_is_linear_to_walk_and_complete_in_competition() -> None:
    ks = KnowledgeStore(journal=Journal())
    for i in range(60):
        ks.add("fact", {"s": "x", "r": "v", "o": i}, source="outcome")
    g = graph(ks, around="k0", depth=1)
    assert g.number_of_nodes() == 60 and g.number_of_edges() == 60 * 59 // 2
    with pytest.raises(BadInput, match="more than 10 nodes; pass a smaller depth"):
        graph(ks, around="k0", depth=1, max_nodes=10)
    assert graph(ks, around="k0", depth=1, max_nodes=None).number_of_nodes() == 60


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"around": "k99"}, UnknownId, "no item 'k99' in this store (7 written)"),
        ({"around": 3}, BadInput, "around=3: pass an item id such as 'k3'"),
        ({"around": "k1", "depth": -1}, BadInput, "depth=-1: pass an int ≥ 0"),
        ({"around": "k1", "depth": 1.5}, BadInput, "depth=1.5: pass an int ≥ 0"),
        ({"around": "k1", "depth": True}, BadInput, "depth=True"),
        ({"around": "k1", "max_nodes": 0}, BadInput, "max_nodes=0: pass a positive int"),
    ],
)
def test_bad_input_is_refused_clearly(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error) as e:
        graph(story(), **kwargs)
    assert message in str(e.value)


def test_node_label_is_short() -> None:
    ks = KnowledgeStore()
    iid = ks.add("fact", {"s": ["room", 3], "r": "description", "o": "a long text " * 5}, source="spec")
    label = node_label(ks.view().record(iid))
    assert label.startswith('k0\n["room",3] description=a') and label.endswith("…")
    assert len(label.split("\n")[1]) == 28


# ---------------------------------------------------------------------------------------------------- plot


def test_derivations_draws_a_labelled_legended_picture() -> None:
    ks = story()
    ks.retract("k1", by="ann", why="wrong customer")
    g = graph(ks, around="k1")
    ax = derivations(g)
    try:
        assert isinstance(ax, Axes)
        assert ax.get_title() == "Derivations: 4 items, 2 premise edges, 1 competition edge"
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend == ["active", "retracted", "premise → dependent", "competes (same key)"]
        texts = {t.get_text() for t in ax.texts}
        assert {"k0\nacme tier=regular", "k1\nacme tier=vip", "k2\nacme discount=20"} <= texts
        arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
        assert len(arrows) == 3
        dashed = [p for p in arrows if p.get_linestyle() not in ("-", "solid")]
        assert len(dashed) == 1  # the competition edge; the two premise edges are solid
        colours = ax.collections[0].get_facecolors()
        expected = [matplotlib.colors.to_rgba(STATUS_COLOURS[s]) for _, s in g.nodes(data="status")]
        assert [tuple(c) for c in colours] == [tuple(c) for c in expected]
    finally:
        plt.close(ax.figure)


def test_derivations_draws_on_a_given_axes() -> None:
    fig, ax = plt.subplots()
    try:
        assert derivations(graph(story(), around="k4"), ax=ax, title="Region dispute") is ax
        assert ax.get_title() == "Region dispute"
    finally:
        plt.close(fig)


def test_derivations_of_an_empty_graph_and_bad_input() -> None:
    ax = derivations(nx.DiGraph())
    plt.close(ax.figure)
    assert ax.get_title() == "Derivations: empty graph"
    with pytest.raises(BadInput, match="draws a networkx DiGraph"):
        derivations(nx.Graph())
    cyclic = nx.DiGraph()
    cyclic.add_edge("a", "b", kind="premise")
    cyclic.add_edge("b", "a", kind="premise")
    with pytest.raises(BadInput, match="form a cycle"):
        derivations(cyclic)


def test_layered_layout_puts_dependents_right_of_premises() -> None:
    pos = layered_layout(graph(story()))
    assert pos["k1"][0] < pos["k2"][0] < pos["k3"][0]
    assert pos["k0"][0] == pos["k1"][0] == 0.0
    assert pos == layered_layout(graph(story()))  # deterministic
