"""Example study: a Monte Carlo estimate of π, small and deterministic, that proves the notebook pipeline.

It has every part a real study has — parameters with quick and full sizes, a seed, exact metrics, a statistical
metric, a claim checked rather than a number matched, a table and a figure — and runs in milliseconds, so
`notebooks/example.ipynb`, `tests/notebooks/` and `solvi-lab reproduce --only example` exercise the whole path
(papermill → metrics.json → expected-metrics check → report) without waiting on a real study.

>>> r = run(n_samples=1000, seed=0)
>>> r.metrics["points_checked"] == r.metrics["n_samples"] == 1000
True
>>> abs(r.metrics["pi_estimate"] - 3.14159) < 0.2
True
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from ..errors import BadParameter
from .params import Param, ParamSpec
from .result import Comparison, StudyResult

#: What `solvi-lab list` and the report say about this study (registered in pyproject.toml, solvi_lab.studies).
TITLE = "Example: Monte Carlo estimate of π (tests the pipeline)"
DESCRIPTION = "A tiny deterministic study that exercises the notebook → metrics → report pipeline end to end."

PARAMS = ParamSpec(
    "example",
    Param("n_samples", int, full=200_000, quick=2_000, meaning="points thrown at the unit square", low=1, high=10**8),
)
QUICK_PARAMS: dict[str, int] = PARAMS.defaults(quick=True)
FULL_PARAMS: dict[str, int] = PARAMS.defaults(quick=False)


def run(n_samples: int = FULL_PARAMS["n_samples"], seed: int = 0) -> StudyResult:
    """Throw `n_samples` uniform points at the unit square; 4 × the fraction inside the quarter circle estimates π.

    The published figure it is compared with is π itself; the claim checked is that the estimate lies within
    three standard errors of it.
    """
    PARAMS.check(n_samples=n_samples, seed=seed)
    if isinstance(n_samples, bool) or not isinstance(n_samples, int) or n_samples < 1:
        raise BadParameter(f"n_samples must be a positive integer, got {n_samples!r}; e.g. n_samples=2000.")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise BadParameter(f"seed must be an integer, got {seed!r}; e.g. seed=0.")

    # PCG64 streams are stable across platforms and numpy versions, so `inside` is an exact, testable number.
    rng = np.random.default_rng(seed)
    xy = rng.random((n_samples, 2))
    is_inside = (xy**2).sum(axis=1) <= 1.0
    inside = int(is_inside.sum())
    estimate = 4.0 * inside / n_samples
    p = inside / n_samples
    std_error = 4.0 * math.sqrt(p * (1.0 - p) / n_samples)
    within = abs(estimate - math.pi) <= 3.0 * std_error

    # Running estimate at log-spaced checkpoints: the table and the figure show it settling on π.
    checkpoints = np.unique(np.geomspace(10, n_samples, num=20).astype(int).clip(1, n_samples))
    running = 4.0 * np.cumsum(is_inside)[checkpoints - 1] / checkpoints
    table = pl.DataFrame({"samples": checkpoints.tolist(), "estimate": running.tolist()}).with_columns(
        (pl.col("estimate") - math.pi).alias("error")
    )

    fig = Figure(figsize=(6, 3.5))
    ax = fig.add_subplot()
    ax.plot(checkpoints, running, marker="o", ms=3, label="Monte Carlo estimate")
    ax.axhline(math.pi, color="black", lw=1, ls="--", label="π")
    ax.set_xscale("log")
    ax.set_xlabel("samples (count, log scale)")
    ax.set_ylabel("estimate of π (dimensionless)")
    ax.set_title("Running estimate of π")
    ax.legend()
    fig.tight_layout()

    return StudyResult(
        name="example",
        params={"n_samples": n_samples, "seed": seed},
        metrics={
            "n_samples": n_samples,
            "inside": inside,
            "outside": n_samples - inside,
            "points_checked": inside + (n_samples - inside),
            "pi_estimate": estimate,
            "std_error": std_error,
            "within_3_std_errors": bool(within),
        },
        tables={"running_estimate": table},
        comparison=[
            Comparison("estimate of π", estimate, math.pi, f"{n_samples} uniform samples, seed {seed}"),
            Comparison(
                "estimate within 3 standard errors of π",
                f"±{3 * std_error:.3g}",
                "expected",
                "holds in about 99.7% of seeds",
                holds=bool(within),
                kind="finding",
            ),
        ],
        figures={"running_estimate": fig},
    )
