"""The retraction study's from-scratch exactness checks split across Dask workers give the serial answers."""

from __future__ import annotations

from distributed import Client, LocalCluster

from solvi_lab.studies import retraction


def _untimed(metrics: dict) -> dict:
    """Metrics that do not rest on timings (the claims in TIMING_KEYS compare measured times)."""
    timing = {f"{kind}_{k}" for k in retraction.TIMING_KEYS for kind in ("claim", "finding")}
    return {
        k: v
        for k, v in metrics.items()
        if not k.endswith("_s") and "spearman" not in k and "time" not in k and k not in timing
    }


def test_exactness_checks_on_a_client_match_the_serial_run() -> None:
    serial = retraction.run(n_items=600, n_retractions=30, seed=5, progress=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, Client(cluster) as client:
        split = retraction.run(n_items=600, n_retractions=30, seed=5, progress=False, client=client)
        # a wrong fingerprint is reported as not exact: the check really compares
        pos, fp = 10, "0" * 64
        item = next(iter(retraction.KnowledgeStore.from_journal(_journal()).view().ids()))
        assert retraction.exactness_on_client(client, _journal(), [(pos, item, fp)]) == [False]
    assert _untimed(split.metrics) == _untimed(serial.metrics)
    assert split.metrics["exact"] == 30
    untimed_claims = {k: v for k, v in split.claims().items() if k not in retraction.TIMING_KEYS}
    assert untimed_claims == {k: v for k, v in serial.claims().items() if k not in retraction.TIMING_KEYS}


def _journal():
    ks = retraction.KnowledgeStore()
    retraction.apply_stream(ks, retraction.operation_stream(50, 0))
    return ks.journal
