"""The retraction study: is every retraction exact, and what does it cost?

The specification's benchmark (benchmarks/knowledge/retraction.py in solvi) builds a synthetic store of 10,000
items — facts, derivations up to depth 5, disputes, resolutions, promotions, clock expiry, drift flags — and
retracts 1,000 random items, checking each against the store rebuilt from its journal as if the item had never
been written. It reports the connected component each retraction touched (premise edges and shared keys), the
time per retraction, the Spearman correlation between the two, and the time of a full rebuild.

Here the store comes from `synthetic.operation_stream` (the benchmarks apply the same stream). Each retraction
is checked against `rebuild(skip={x})` computed *before* it is made — a from-scratch fold of the journal — and
timed including a fingerprint read. Besides the component (the specification's cost measure), we record what
the retraction actually re-folded (keys and items): our retraction follows premise edges only where a status
changed, so its cost tracks that, not the component.

>>> r = run(n_items=300, n_retractions=10, seed=1, progress=False)
>>> r.metrics["exact"], r.metrics["retractions"], r.metrics["verify_ok"]
(10, 10, True)
"""

from __future__ import annotations

import gc
import os
import random
import statistics
import time
from typing import Any

import networkx as nx
import numpy as np
from tqdm import tqdm

from ..errors import BadParameter
from ..knowledge import KnowledgeStore
from .params import Param, ParamSpec
from .result import Comparison, StudyResult
from .synthetic import apply_stream, operation_stream

#: What `solvi-lab list` and the report say about this study (registered in pyproject.toml, solvi_lab.studies).
TITLE = "Retraction: exact, and as cheap as what it changes"  # sizes: the run's parameters
DESCRIPTION = (
    "Random retractions in a synthetic store (facts, derivations up to depth 5, disputes, resolutions, "
    "promotions, clock expiry, drift flags), each checked against rebuild(skip={x}) and timed."
)

PARAMS = ParamSpec(
    "retraction",
    Param("n_items", int, full=10_000, quick=2_000, meaning="items added to the synthetic store", low=10, high=10**7),
    Param(
        "n_retractions",
        int,
        full=1_000,
        quick=100,
        meaning="random retractions, each checked and timed (≤ n_items/2)",
        low=1,
        high=5 * 10**6,
    ),
)
# seed kept in the old dicts for the code and expected files that read it
QUICK_PARAMS: dict[str, Any] = {**PARAMS.defaults(quick=True), "seed": 0}
FULL_PARAMS: dict[str, Any] = {**PARAMS.defaults(quick=False), "seed": 0}

PUBLISHED = {
    "exact": "1,000 of 1,000",
    "median_component": 6057,
    "median_component_share": 0.6057,
    "median_retraction_s": 0.19,
    "full_rebuild_s": 0.79,
    "spearman": 0.88,
}
# "A retraction's cost grows with the connected component it touches ... (Spearman ρ between component size and
# time 0.88)": the claim is stated with its evidence, so it is read at the specification's own figure — ρ ≥ 0.88 —
# never at a weaker threshold a run of ours happens to pass (an earlier ρ ≥ 0.5 did, at 0.508 at full size). Our
# store re-folds only the keys a retraction changes, by design, so this published claim is expected to fail here.
COST_FOLLOWS_MIN_RHO = PUBLISHED["spearman"]
# Checked rows whose verdict rests on timings: a loaded machine can move them run to run at the same seed (ρ of the
# component vs time ranged 0.22–0.58 in three quick seed-0 runs), so regression tests report them but never pin them.
TIMING_KEYS = ("cost_grows_with_component", "cost_follows_refolded")


def component_sizes(ks: KnowledgeStore) -> dict[str, int]:
    """Size of the connected component of every present item, over premise edges and shared keys."""
    g = nx.Graph()
    view = ks.view()
    for iid in view.ids():
        if not view.present(iid):
            continue
        g.add_node(iid)
        for pid in view.premises_of(iid):
            if view.present(pid):
                g.add_edge(iid, pid)
    for key in view.keys():
        live = [i for i in view.on_key(key) if view.present(i)]
        for a, b in zip(live, live[1:]):
            g.add_edge(a, b)
    sizes: dict[str, int] = {}
    for comp in nx.connected_components(g):
        n = len(comp)
        for i in comp:
            sizes[i] = n
    return sizes


class LiveComponents:
    """The connected component of a present item *now*, kept up to date as items leave the store.

    The graph is bipartite: item nodes joined to their premises and to a node per competition key, so an item that
    leaves (retracted, or gone with what it rested on) takes its edges with it and the key still joins the others —
    what `component_sizes` would compute from scratch on the store as it is at that moment.

    >>> ks = KnowledgeStore()
    >>> a = ks.add("fact", {"s": "x", "r": "r", "o": 1}, source="person")
    >>> b = ks.add("fact", {"s": "y", "r": "r", "o": 1}, source="person", derived_from=[a])
    >>> c = ks.add("fact", {"s": "y", "r": "r", "o": 1}, source="spec")
    >>> live = LiveComponents(ks)
    >>> live.size(c)
    3
    >>> ks.retract(a, by="me", why="test")  # b rests on a: both leave
    >>> live.forget_absent(), live.size(c)
    (2, 1)
    """

    def __init__(self, ks: KnowledgeStore):
        self.ks = ks
        self.rebuilds = 0  # times an item came back and the graph was built again
        self._build()

    def _build(self) -> None:
        ks = self.ks
        self.graph = nx.Graph()
        view = ks.view()
        for iid in view.ids():
            if not view.present(iid):
                continue
            self.graph.add_node(iid)
            for pid in view.premises_of(iid):
                if view.present(pid):
                    self.graph.add_edge(iid, pid)
        for n, key in enumerate(view.keys()):
            live = [i for i in view.on_key(key) if view.present(i)]
            if len(live) > 1:
                self.graph.add_edges_from((("key", n), i) for i in live)
        self.items = {i for i in self.graph if not isinstance(i, tuple)}

    def size(self, item: str) -> int:
        """Items (not key nodes) in the component of `item` as the store is now."""
        return sum(1 for v in nx.node_connected_component(self.graph, item) if not isinstance(v, tuple))

    def forget_absent(self) -> int:
        """Bring the graph to the store as it is now; returns how many items left it.

        Items leave with a retraction; one can also come back (an item refused because of x is admitted when x is
        retracted, as if x had never been written): then its edges are unknown here and the graph is built again.
        """
        view = self.ks.view()
        gone = [i for i in self.items if not view.present(i)]
        self.graph.remove_nodes_from(gone)
        self.items.difference_update(gone)
        if len(self.items) != len(self.ks):  # something present is not in the graph: it came back
            self._build()
            self.rebuilds += 1
        return len(gone)


def spearman(x: list[float], y: list[float]) -> float:
    """Spearman's rank correlation (average ranks for ties); NaN-free: 0.0 when either side is constant."""
    if len(x) < 2:
        return 0.0

    def ranks(v: list[float]) -> np.ndarray:
        a = np.asarray(v, dtype=float)
        order = a.argsort(kind="mergesort")
        r = np.empty(len(a))
        r[order] = np.arange(len(a), dtype=float)
        for val in np.unique(a):  # average ties
            m = a == val
            if m.sum() > 1:
                r[m] = r[m].mean()
        return r

    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


def exactness_on_client(client: Any, journal: Any, checks: list[tuple[int, str, str]]) -> list[bool]:
    """The from-scratch exactness checks on a Dask client: for each (journal position just before the retraction,
    retracted item, fingerprint just after it), whether the journal replayed up to that position without the item
    has that fingerprint. Independent of each other, so they split across workers; the journal is sent once."""
    checks_on = _ChecksOnClient(client, journal, len(checks))
    for check in checks:
        checks_on.add(check)
    return checks_on.results()


def _exact_chunk(records: list[Any], checks: list[tuple[int, str, str]], later: list[Any] = ()) -> list[bool]:
    records = records + list(later) if later else records
    # The collector paused for the whole chunk, not only during each fold: every check's store is freed by reference
    # counting (it holds no cycles: measured 0 unreachable objects after a chunk), so between folds the collector
    # would only rescan live objects (measured: 8-12% per check).
    was = gc.isenabled()
    gc.disable()
    try:
        return [KnowledgeStore.from_records(records, upto=pos, skip={x}).fingerprint() == fp for pos, x, fp in checks]
    finally:
        if was:
            gc.enable()


class _ChecksOnClient:
    """Exactness checks sent to a Dask client while the retractions go on: the build's records are scattered once,
    and each chunk of checks goes out with the records written since (the retractions), so the workers fold while
    this process keeps retracting. Each check is still a from-scratch fold of the journal up to its position."""

    def __init__(self, client: Any, journal: Any, total: int):
        self.client, self.journal = client, journal
        workers = max(1, len(client.scheduler_info()["workers"]))
        self.size = max(1, -(-total // (4 * workers)))  # a few chunks per worker: balanced, little overhead
        self.start = journal.position
        # The records, not the Journal: a journal holds its file lock and handles, which never leave this process.
        [self.base] = client.scatter([list(journal)], broadcast=True)
        self.pending: list[tuple[int, str, str]] = []
        self.futures: list[Any] = []

    def add(self, check: tuple[int, str, str]) -> None:
        self.pending.append(check)
        if len(self.pending) == self.size:
            self._send()

    def _send(self) -> None:
        later = list(self.journal.records(self.start))
        self.futures.append(self.client.submit(_exact_chunk, self.base, self.pending, later, pure=False))
        self.pending = []

    def results(self) -> list[bool]:
        if self.pending:
            self._send()
        return [ok for part in self.client.gather(self.futures) for ok in part]


def _load_note() -> str:
    """The load this machine had when the timings were taken (measured; timing rows move with it)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    try:
        load = f"load average {os.getloadavg()[0]:.1f} (1 min)"
    except (OSError, AttributeError):
        load = "load average unknown"
    return f"timing; {load} on {cores} usable cores when measured"


def run(
    n_items: int = 10000, n_retractions: int = 1000, seed: int = 0, progress: bool = True, client: Any = None
) -> StudyResult:
    """Build the synthetic store, make `n_retractions` random retractions, check and time each.

    client: a `distributed.Client`; when given, the from-scratch exactness checks (rebuild without the retracted
    item) run on its workers, sent in chunks while the retractions go on, instead of one by one before each (same
    results).
    """
    PARAMS.check(n_items=n_items, n_retractions=n_retractions, seed=seed)
    if not isinstance(n_items, int) or n_items < 10:
        raise BadParameter(f"n_items must be an int ≥ 10, got {n_items!r}.")
    if not isinstance(n_retractions, int) or not 1 <= n_retractions <= n_items // 2:
        raise BadParameter(f"n_retractions must be an int in 1..n_items/2 ({n_items // 2}), got {n_retractions!r}.")
    import matplotlib.pyplot as plt

    ops = operation_stream(n_items, seed)
    ks = KnowledgeStore()
    t0 = time.perf_counter()
    apply_stream(ks, ops)
    build_s = time.perf_counter() - t0
    present_before = len(ks)
    sizes = component_sizes(ks)  # before any retraction: the candidates, and the old (static) measure
    live = LiveComponents(ks)

    rng = random.Random(seed + 1)
    candidates = sorted(sizes)
    rng.shuffle(candidates)
    rows: list[dict[str, Any]] = []
    checks = None if client is None else _ChecksOnClient(client, ks.journal, n_retractions)
    bar = tqdm(total=n_retractions, desc="retractions", disable=not progress)
    for x in candidates:
        if len(rows) == n_retractions:
            break
        if x not in ks:
            continue  # already gone with something it rested on
        position = ks.journal.position
        expected = KnowledgeStore.from_journal(ks.journal, skip={x}).fingerprint() if client is None else None
        live.forget_absent()  # what earlier retractions took away
        component_now = live.size(x)  # the component at the time of this retraction
        t = time.perf_counter()
        ks.retract(x, by="study", why="random retraction")
        fp = ks.fingerprint()
        dt = time.perf_counter() - t
        rows.append(
            {
                "item": x,
                "component": component_now,
                "component_before_all": sizes[x],
                "seconds": dt,
                "exact": fp == expected if client is None else None,
                "keys_refolded": ks.last_propagation["keys"],
                "items_refolded": ks.last_propagation["items"],
            }
        )
        if checks is not None:
            checks.add((position, x, fp))
        bar.update(1)
    bar.close()
    if checks is not None:
        oks = checks.results()
        for r, ok in zip(rows, oks, strict=True):
            r["exact"] = ok

    t = time.perf_counter()
    rebuilt = KnowledgeStore.from_journal(ks.journal)
    rebuild_s = time.perf_counter() - t
    verify = ks.verify()
    n = len(rows)
    secs = [r["seconds"] for r in rows]
    comps = [r["component"] for r in rows]
    comps_before = [r["component_before_all"] for r in rows]
    touched = [r["items_refolded"] for r in rows]
    exact = sum(r["exact"] for r in rows)
    med_comp = statistics.median(comps)
    largest = max(comps)
    metrics = {
        "n_items": n_items,
        "present_before": present_before,
        "present_after": len(ks),
        "retractions": n,
        "exact": exact,
        "exact_share": exact / n,
        "verify_ok": bool(verify) and rebuilt.fingerprint() == ks.fingerprint(),
        "median_component": med_comp,
        "median_component_share": med_comp / present_before,
        "max_component": largest,
        "median_component_before_all": statistics.median(comps_before),
        "median_component_share_before_all": statistics.median(comps_before) / present_before,
        "distinct_component_sizes": len(set(comps)),
        "distinct_component_sizes_before_all": len(set(comps_before)),
        "retractions_in_largest_component": sum(c == largest for c in comps),
        "items_back_after_a_retraction": live.rebuilds,  # retractions after which a refused item came back
        "median_items_refolded": statistics.median(touched),
        "max_items_refolded": max(touched),
        "distinct_items_refolded": len(set(touched)),
        # deterministic: both measures of cost ranked against each other, no clock involved
        "spearman_component_refolded": spearman(comps, touched),
        "median_retraction_s": statistics.median(secs),
        "p99_retraction_s": float(np.percentile(secs, 99)),
        "full_rebuild_s": rebuild_s,
        "build_s": build_s,
        "spearman_component_time": spearman(comps, secs),
        "spearman_component_before_all_time": spearman(comps_before, secs),
        "spearman_refolded_time": spearman(touched, secs),
        "journal_records": len(ks.journal),
        "questions": len(ks.questions()),
    }
    rho_c, rho_r = metrics["spearman_component_time"], metrics["spearman_refolded_time"]
    claims = {
        "exact_retractions": exact == n,
        "verify_at_end": metrics["verify_ok"],
        "cost_grows_with_component": rho_c >= COST_FOLLOWS_MIN_RHO,
    }
    metrics.update({f"claim_{k}": bool(v) for k, v in claims.items()})
    metrics["finding_cost_follows_refolded"] = bool(rho_r > rho_c)
    cmp = [
        Comparison(
            "median component touched (items), at the time of the retraction",
            med_comp,
            PUBLISHED["median_component"],
            "premise edges and shared keys, as specified, on the store as it is when the retraction is made (earlier "
            f"retractions removed); computed once before them all: {metrics['median_component_before_all']}",
        ),
        Comparison(
            "median component share of the store",
            round(metrics["median_component_share"], 4),
            PUBLISHED["median_component_share"],
            "at the time of each retraction (earlier retractions removed) / items present before the retractions: "
            "what a retraction in this sequence actually touches",
        ),
        Comparison(
            "median component share of the store, static (computed once, before all retractions)",
            round(metrics["median_component_share_before_all"], 4),
            PUBLISHED["median_component_share"],
            "the definition that matches the published figure: the specification's 6,057 of 10,000 names no time, "
            "and only a component measured on the whole store, before any retraction, can be that large a share; "
            "the row above is the other definition, shown so neither is chosen silently",
        ),
        Comparison(
            "distinct component sizes among the retractions (ties)",
            metrics["distinct_component_sizes"],
            None,
            f"{metrics['retractions_in_largest_component']} of {n} retractions in the largest component; "
            f"computed once before them all: {metrics['distinct_component_sizes_before_all']} distinct sizes",
        ),
        Comparison(
            "median retraction (s, incl. fingerprint)",
            metrics["median_retraction_s"],
            PUBLISHED["median_retraction_s"],
            "we re-fold only the keys a retraction changes, not its whole component",
        ),
        Comparison("p99 retraction (s, incl. fingerprint)", metrics["p99_retraction_s"], None, _load_note()),
        Comparison(
            "full rebuild (s)",
            rebuild_s,
            PUBLISHED["full_rebuild_s"],
            "from the in-memory journal; the benchmarks also time a JSONL journal",
        ),
        Comparison(
            "Spearman ρ component (once, before all) vs time",
            round(metrics["spearman_component_before_all_time"], 3),
            None,
            "the earlier, static measure, for reference",
        ),
        Comparison(
            "Spearman ρ component at the time vs items re-folded",
            round(metrics["spearman_component_refolded"], 3),
            None,
            "no clock involved: how far the two cost measures agree",
        ),
        Comparison(
            "exact retractions",
            f"{exact:,} of {n:,}",
            PUBLISHED["exact"],
            "each checked against rebuild(skip={x}) computed before the retraction",
            holds=claims["exact_retractions"],
            kind="claim",
            key="exact_retractions",
            threshold="every retraction's fingerprint == that of rebuild(skip={x}) computed before it",
            sentence="1,000 of 1,000 random retractions exact",
        ),
        Comparison(
            "verify() at the end",
            metrics["verify_ok"],
            True,
            "chain whole and live == replay",
            holds=claims["verify_at_end"],
            kind="claim",
            key="verify_at_end",
            threshold="verify() true and the full rebuild's fingerprint == the live one",
            sentence="and verify() true at the end",
        ),
        Comparison(
            "a retraction's cost grows with its component: Spearman ρ, component at the time vs time",
            round(rho_c, 3),
            PUBLISHED["spearman"],
            "average ranks for ties. Does not hold for this store, by design: a retraction re-folds only the keys it "
            "changes, so its cost follows what is re-folded (next row), not the component",
            holds=claims["cost_grows_with_component"],
            kind="claim",
            key="cost_grows_with_component",
            threshold=f"ρ ≥ {COST_FOLLOWS_MIN_RHO} (the published figure the claim is stated with)",
            sentence="A retraction's cost grows with the connected component it touches (premise edges and shared "
            "keys) … (Spearman ρ between component size and time 0.88)",
        ),
        Comparison(
            "time follows what was re-folded more than the component: Spearman ρ, items re-folded vs time",
            round(rho_r, 3),
            None,
            f"against ρ {rho_c:.3f} for the component at the time; average ranks for ties",
            holds=metrics["finding_cost_follows_refolded"],
            kind="finding",
            key="cost_follows_refolded",
            threshold="ρ(items re-folded, time) > ρ(component at the time, time)",
        ),
    ]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    axes[0].loglog(comps, secs, ".", alpha=0.5)
    axes[0].set_xlabel("connected component of the retracted item, at the time (items, log)")
    axes[0].set_ylabel("retraction time incl. fingerprint (s, log)")
    axes[0].set_title(f"time vs component (ρ = {metrics['spearman_component_time']:.2f})")
    axes[1].loglog([max(1, v) for v in touched], secs, ".", alpha=0.5, color="tab:orange")
    axes[1].set_xlabel("items on the keys re-folded (log)")
    axes[1].set_ylabel("retraction time incl. fingerprint (s, log)")
    axes[1].set_title(f"time vs what was re-folded (ρ = {metrics['spearman_refolded_time']:.2f})")
    fig.suptitle(f"{n} retractions in a synthetic store of {n_items:,} items")
    fig.tight_layout()
    import polars as pl

    return StudyResult(
        "retraction",
        {"n_items": n_items, "n_retractions": n_retractions, "seed": seed},
        metrics,
        tables={"retractions": pl.DataFrame(rows)},
        comparison=cmp,
        figures={"time_vs_component": fig},
        caveats=[
            "cost_grows_with_component is the specification's claim at its own figure (ρ ≥ 0.88); this store's cost "
            "follows what a retraction re-folds by design, so the claim is shown failing, with that reason.",
            "The two cost rows rest on timings (TIMING_KEYS): reported, never pinned, not checked in CI "
            "(tests/studies/test_claims.py checks exact_retractions and verify_at_end only, at 2,000 items × 100 "
            "retractions, seeds 0–2).",
            f"Size {n_items:,} items, {n} retractions (published: 10,000 and 1,000); the component at the time of each "
            "retraction is our reading of 'the component it touches'.",
        ],
    )
