"""`solvi-lab sweep`: a study's `run()` once per (parameters, seed) point, on Dask, one Parquet row per point.

- `grid`: the points (seeds × the values of each swept parameter), each with a stable id;
- `point`: running one point (in a Dask worker or in this process) into one flat row;
- `store`: each finished row written atomically as its own Parquet file, so a killed sweep resumes;
- `summary`: means, bootstrap intervals, claims' pass rates with Wilson intervals, figures per parameter;
- `runner`: the loop over a Dask client (a LocalCluster or an external scheduler) with a tqdm bar.

See docs/readme/sweeps.md.
"""

from .grid import Point, parse_grid, parse_seeds, points
from .runner import SweepOutcome, sweep
from .summary import bootstrap_interval, distinct_errors, summarize, wilson_interval

__all__ = [
    "Point",
    "SweepOutcome",
    "bootstrap_interval",
    "distinct_errors",
    "parse_grid",
    "parse_seeds",
    "points",
    "summarize",
    "sweep",
    "wilson_interval",
]
