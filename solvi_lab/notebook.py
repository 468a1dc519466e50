"""What a study notebook calls to record its metrics and figures where tests and the report read them.

A notebook starts a recorder for its study, then records:

>>> import tempfile, json, pathlib
>>> out = tempfile.mkdtemp()
>>> rec = start("example", out=out)
>>> rec.record("exact", 100)
>>> json.loads((pathlib.Path(out) / "example" / "metrics.json").read_text())
{'exact': 100}

The file is rewritten atomically on every record (write to a temporary file, then rename), so a crash
never leaves a half-written metrics.json that a test would read. Each recorder starts empty: its first save
replaces whatever metrics.json an earlier run left (never merged into it), so a rerun holds exactly this run's
metrics. There is no module-level "current" recorder: the notebook keeps the one `start` returns and passes it on.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from .atomicfile import atomic_write_text
from .errors import BadInput


def _jsonable(value: Any) -> Any:
    """Plain JSON types only: numpy scalars become Python numbers, NaN is refused (it would not round-trip)."""
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, (list, dict, str)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        raise BadInput(f"metric value {value!r} is not finite; record None or a finite number instead.")
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise BadInput(
        f"metric value of type {type(value).__name__} cannot be recorded as JSON; record a number, string, list or dict."
    )


class Recorder:
    """Collects one study's metrics into `<out>/<study>/metrics.json` and its figures as PNG beside it.

    A fresh recorder holds no metrics; its first save overwrites an existing metrics.json (an earlier run's).
    """

    def __init__(self, study: str, out: str | os.PathLike = "results"):
        if not isinstance(study, str) or not study or "/" in study:
            raise BadInput(f"study name {study!r} must be a non-empty string without '/'; e.g. 'risk_dungeon'.")
        self.study = study
        self.dir = Path(out) / study
        self.metrics: dict[str, Any] = {}

    def record(self, name: str, value: Any) -> None:
        """Record one metric (overwrites a metric of the same name) and save the file."""
        if not isinstance(name, str) or not name:
            raise BadInput(f"metric name {name!r} must be a non-empty string.")
        self.metrics[name] = _jsonable(value)
        self.save()

    def record_all(self, metrics: dict[str, Any]) -> None:
        """Record every metric of a dict (a StudyResult's metrics, say)."""
        converted = {str(k): _jsonable(v) for k, v in metrics.items()}  # all or nothing: a bad value changes nothing
        self.metrics.update(converted)
        self.save()

    def save(self) -> None:
        atomic_write_text(self.dir / "metrics.json", json.dumps(self.metrics, indent=2, sort_keys=True) + "\n")

    def save_figure(self, name: str, fig: Any) -> Path:
        """Save a matplotlib figure as `<out>/<study>/<name>.png` and return its path."""
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / f"{name}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        return path

    def save_table(self, name: str, frame: Any) -> Path:
        """Save a polars table as CSV beside the metrics (the report reads it)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / f"{name}.csv"
        frame.write_csv(path)
        return path

    def save_caveats(self, caveats: list[str]) -> Path:
        """Save a study's caveats (`StudyResult.caveats`) as `<out>/<study>/caveats.json`; the report prints them
        beside the study's tallies.

        >>> import tempfile
        >>> Recorder("x", tempfile.mkdtemp()).save_caveats(["97% of held-out vectors were seen"]).name
        'caveats.json'
        """
        if not isinstance(caveats, (list, tuple)) or not all(isinstance(c, str) and c for c in caveats):
            raise BadInput(f"caveats must be a list of non-empty strings (StudyResult.caveats), got {caveats!r}.")
        path = self.dir / "caveats.json"
        atomic_write_text(path, json.dumps(list(caveats), indent=2) + "\n")
        return path


def start(study: str, out: str | os.PathLike = "results") -> Recorder:
    """A new recorder for `study` under `out` (the notebook convention: `rec = start(...)`, then `rec.record`)."""
    return Recorder(study, out)
