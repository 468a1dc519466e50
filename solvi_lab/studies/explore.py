"""Exploratory analysis of a knowledge store: the tables, time travel and pictures a researcher reaches for.

The study builds a store with a journal — background facts from three sources that compete on shared keys, facts
and a rule derived from them, a dispute between two people, and one retraction that takes derived items with it
and restores the fact it had refuted — then looks at it the way the notebook does:

- the store as a polars table (`store_frame`), counted by status before and after the retraction;
- what the retraction changed (`timetravel.diff` across it), and why;
- the derivations around the retracted item (`graph.graph`, drawn by `plot.derivations`);
- a Parquet round trip of the journal (`parquet.export_journal` / `import_journal`) that replays to the same
  fingerprint.

Every number is exact (a deterministic fold of a seeded journal).

>>> r = run(n_items=60, seed=0)
>>> r.metrics["diff_changed"], r.metrics["parquet_roundtrip_equal"]
(4, True)
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from ..explore import diff, graph, store_frame
from ..explore.parquet import export_journal, import_journal
from ..explore.plot import STATUS_COLOURS, derivations
from ..journal import Journal
from ..knowledge import STATUSES, KnowledgeStore
from .params import Param, ParamSpec
from .result import Comparison, StudyResult

#: What `solvi-lab list` and the report say about this study (registered in pyproject.toml, solvi_lab.studies).
TITLE = "Exploration: stores and journals as DataFrames and pictures"
DESCRIPTION = (
    "A store as a polars frame, time travel across a retraction, the derivations around it, a Parquet "
    "round trip of the journal."
)

PARAMS = ParamSpec(
    "explore",
    Param("n_items", int, full=20_000, quick=200, meaning="background facts around the story", low=0, high=10**7),
)
QUICK_PARAMS: dict[str, int] = PARAMS.defaults(quick=True)
FULL_PARAMS: dict[str, int] = PARAMS.defaults(quick=False)

RELATIONS = ("tier", "region", "plan")
VALUES = {"tier": ("regular", "gold", "vip"), "region": ("north", "south"), "plan": ("basic", "pro")}
# Who says it, per source: the background's writers.
WRITERS = {"outcome": "orders", "person": "crm", "spec": "handbook"}
SOURCES = ("outcome", "person", "spec")


@dataclass(frozen=True)
class Story:
    """The ids and positions of the scripted part of the store (the same for every n_items and seed).

    spec_tier: the handbook says acme is a regular customer (refuted by crm_tier, restored by the retraction).
    crm_tier: the CRM says acme is vip — the item that gets retracted.
    discount, rule: derived from crm_tier (discount) and from discount (rule); retracted with it.
    north, south: two people disagree on acme's region — an open dispute.
    retract_at: the journal position of the retraction record (the store "before" is ks.at(retract_at)).
    """

    spec_tier: str
    crm_tier: str
    discount: str
    rule: str
    north: str
    south: str
    retract_at: int


def build_store(n_items: int, seed: int = 0) -> tuple[KnowledgeStore, Story]:
    """A store with `n_items` background facts (some derived), then the scripted story, then its retraction.

    The journal has no time stamps (timestamps=None), so the same (n_items, seed) gives the same journal, byte for byte.

    >>> ks, story = build_store(20, seed=1)
    >>> ks.status(story.crm_tier), ks.status(story.spec_tier), ks.status(story.north)
    ('retracted', 'active', 'disputed')
    """
    PARAMS.check(n_items=n_items, seed=seed)
    rng = np.random.default_rng(seed)
    ks = KnowledgeStore(journal=Journal())
    n_subjects = max(1, n_items // 4)  # about four facts per subject: enough collisions to refute and dispute
    observed: list[str] = []  # the facts said by a source; derived facts rest on these only
    for _ in range(n_items):
        r = RELATIONS[int(rng.integers(len(RELATIONS)))]
        source = SOURCES[int(rng.integers(len(SOURCES)))]
        body = {"s": f"c{int(rng.integers(n_subjects))}", "r": r, "o": VALUES[r][int(rng.integers(len(VALUES[r])))]}
        derive = observed and rng.random() < 0.1
        premise = observed[int(rng.integers(len(observed)))] if derive else None
        if premise is not None and ks.status(premise) == "active":
            # A derived fact about the premise's subject, on a key of its own ("segment"): its premise is active
            # and never on the same key, so the store admits it (a refusal here would be a bug, and raises).
            p = ks.view().record(premise).body
            body = {"s": p["s"], "r": "segment", "o": f"{p['r']}:{p['o']}"}
            ks.add("fact", body, source="spec", by="segmenter", derived_from=[premise])
            continue
        observed.append(ks.add("fact", body, source=source, by=WRITERS[source]))

    spec_tier = ks.add("fact", {"s": "acme", "r": "tier", "o": "regular"}, source="spec", by="handbook")
    crm_tier = ks.add("fact", {"s": "acme", "r": "tier", "o": "vip"}, source="person", by="crm")
    discount = ks.add(
        "fact", {"s": "acme", "r": "discount", "o": 20}, source="spec", by="pricing", derived_from=[crm_tier]
    )
    rule = ks.add(
        "rule",
        {"name": "free_shipping", "when": "discount >= 20"},
        source="spec",
        by="pricing",
        derived_from=[discount],
    )
    north = ks.add("fact", {"s": "acme", "r": "region", "o": "north"}, source="person", by="ann")
    south = ks.add("fact", {"s": "acme", "r": "region", "o": "south"}, source="person", by="bob")
    retract_at = ks.journal.position
    ks.retract(crm_tier, by="ann", why="the CRM record belongs to another customer")
    return ks, Story(spec_tier, crm_tier, discount, rule, north, south, retract_at)


def _status_counts(frame: pl.DataFrame) -> dict[str, int]:
    counts = dict(frame.group_by("status").len().iter_rows())
    return {s: int(counts.get(s, 0)) for s in STATUSES}


def run(n_items: int = FULL_PARAMS["n_items"], seed: int = 0) -> StudyResult:
    """Build the store, then measure what the exploration tools show about it (see the module docstring)."""
    PARAMS.check(n_items=n_items, seed=seed)
    ks, story = build_store(n_items, seed)
    before = store_frame(ks.at(story.retract_at))
    after = store_frame(ks)
    counts_before, counts_after = _status_counts(before), _status_counts(after)
    changes = diff(ks, story.retract_at, ks.journal.position)
    g = graph(ks, around=story.crm_tier, depth=2)
    kinds = [k for *_, k in g.edges(data="kind")]

    with tempfile.TemporaryDirectory() as tmp:
        path = export_journal(ks.journal, Path(tmp) / "explore.parquet")
        records = import_journal(path)
    replayed = KnowledgeStore.from_records(records)

    by_source = (
        after.filter(pl.col("status") != "retracted")
        .group_by("source")
        .agg(pl.len().alias("items"), (pl.col("status") == "active").sum().alias("active"))
        .sort("source")
    )
    status_table = pl.DataFrame(
        {
            "status": list(STATUSES),
            "before": [counts_before[s] for s in STATUSES],
            "after": [counts_after[s] for s in STATUSES],
        }
    ).with_columns((pl.col("after") - pl.col("before")).alias("change"))

    metrics: dict[str, Any] = {
        "n_items": n_items,
        "journal_records": len(ks.journal),
        "frame_rows": after.height,
        "frame_rows_before": before.height,
        "derived_items": int((after["n_premises"] > 0).sum()),
        **{f"before_{s}": counts_before[s] for s in STATUSES},
        **{f"after_{s}": counts_after[s] for s in STATUSES},
        "diff_changed": changes.height,
        "diff_retracted": int((changes["to_status"] == "retracted").sum()),
        "diff_restored": int(((changes["from_status"] == "refuted") & (changes["to_status"] == "active")).sum()),
        "graph_nodes": g.number_of_nodes(),
        "graph_edges": g.number_of_edges(),
        "graph_premise_edges": kinds.count("premise"),
        "graph_competes_edges": kinds.count("competes"),
        "open_disputes": len(ks.disputes()),
        "parquet_records": len(records),
        "parquet_roundtrip_equal": replayed.fingerprint() == ks.fingerprint(),
        "store_verifies": bool(ks.verify()),
    }

    fig_graph = Figure(figsize=(10, 4.5))
    derivations(g, ax=fig_graph.add_subplot(), title=f"Derivations around {story.crm_tier} after its retraction")
    fig_graph.tight_layout()
    fig_counts = _counts_figure(status_table)

    return StudyResult(
        name="explore",
        params={"n_items": n_items, "seed": seed},
        metrics=metrics,
        tables={"status_counts": status_table, "diff": changes, "by_source": by_source, "frame": after},
        comparison=[
            Comparison(
                "items changed by the retraction",
                changes.height,
                4,
                "the retracted fact, the fact and the rule derived from it, and the fact it had refuted",
            ),
            Comparison(
                "retraction equals a rebuild without it",
                metrics["store_verifies"],
                "expected",
                "ks.verify(): live store == replay of its journal",
                holds=metrics["store_verifies"],
                kind="mechanism",
                key="retraction_equals_rebuild",
                threshold="verify() true after the retraction",
            ),
            Comparison(
                "Parquet round trip replays to the same fingerprint",
                metrics["parquet_roundtrip_equal"],
                "expected",
                "export_journal → import_journal (hash chain checked) → replay",
                holds=metrics["parquet_roundtrip_equal"],
                kind="mechanism",
                key="parquet_roundtrip_equal",
                threshold="same fingerprint after the round trip",
            ),
        ],
        figures={"derivations": fig_graph, "status_counts": fig_counts},
    )


def _counts_figure(table: pl.DataFrame) -> Figure:
    fig = Figure(figsize=(7, 3.5))
    ax = fig.add_subplot()
    x = np.arange(table.height)
    colours = [STATUS_COLOURS[s] for s in table["status"]]
    bars = ax.bar(
        x - 0.2,
        table["before"].to_list(),
        width=0.4,
        color=colours,
        alpha=0.45,
        edgecolor="black",
        label="before the retraction",
    )
    ax.bar_label(bars, fontsize=7)
    bars = ax.bar(x + 0.2, table["after"].to_list(), width=0.4, color=colours, edgecolor="black", label="after")
    ax.bar_label(bars, fontsize=7)  # the change is a handful of items on top of many: print the counts
    ax.set_xticks(x, table["status"].to_list())
    ax.set_xlabel("status")
    ax.set_ylabel("items (count)")
    ax.margins(y=0.15)
    ax.set_title("Items by status, before and after the retraction")
    ax.legend()
    fig.tight_layout()
    return fig
