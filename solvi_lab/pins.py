"""Metric pins: what a study's notebook must record at its quick parameters, and how close is close enough.

A pin file (`data/expected/<study>.json` for a built-in study, `<study>.pins.json` beside a plug-in's module):

    {"study": "example",
     "quick_params": {"n_samples": 2000, "seed": 0},
     "metrics": {"inside": {"exact": 1611},
                 "pi_estimate": {"approx": 3.14159, "abs": 0.15},      # also "rel"; both: the larger tolerance
                 "std_error": {"min": 0.02, "max": 0.05},              # a band; either bound may be left out
                 "points_checked": {"equals_metric": "n_samples"}}}

`quick_params` are the parameters the pins were taken on; they must agree with the study's declared quick
defaults (so changing those forces re-pinning). The pytest plugin (solvi_lab/pytest_plugin.py) runs the notebook
with papermill at those parameters and calls `compare`; `rewrite` is what `--solvi-update-pins` writes.

>>> check_metric("inside", {"exact": 1611}, {"inside": 1612})
'inside = 1612, pinned exactly 1611'
>>> check_metric("pi", {"approx": 3.14159, "abs": 0.15}, {"pi": 3.3})
'pi = 3.3, pinned 3.14159 ± 0.15 (abs) (off by +0.158)'
>>> check_metric("se", {"min": 0.02, "max": 0.05}, {"se": 0.03}) is None
True
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import BadInput

#: The kinds of pin; a pin's keys are a non-empty subset of exactly one of them.
SPEC_KEYS = ({"exact"}, {"approx", "rel", "abs"}, {"min", "max"}, {"equals_metric"})

#: pytest.approx's defaults, so a pin means the same here as in a test written with approx.
DEFAULT_REL, DEFAULT_ABS = 1e-6, 1e-12

#: The relative tolerance a float gets when it is pinned from a run (`pins_for`, `--solvi-update-pins`).
PIN_REL = 1e-9

#: Metric names that are timings: they vary by machine, so they are never pinned from a run nor reported unpinned.
TIMING_SUFFIXES = ("_seconds", "_ms", "_s")


def is_timing(name: str) -> bool:
    """Whether a metric is a timing by its name.

    >>> is_timing("train_seconds"), is_timing("wall_s"), is_timing("streams")
    (True, True, False)
    """
    return name.endswith(TIMING_SUFFIXES)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_valid_pin(spec: Any) -> bool:
    """Whether `spec` is one of exact / approx(+rel/abs) / min+max / equals_metric."""
    if not isinstance(spec, dict) or not spec:
        return False
    if not any(set(spec) <= keys for keys in SPEC_KEYS):
        return False
    return "approx" in spec if set(spec) <= SPEC_KEYS[1] else True


def tolerance(spec: dict[str, Any]) -> float:
    """The absolute tolerance of an approx pin, as pytest.approx computes it (abs alone: abs; else the larger)."""
    rel, abs_ = spec.get("rel"), spec.get("abs")
    if rel is None and abs_ is not None:
        return float(abs_)
    rel_tol = (DEFAULT_REL if rel is None else float(rel)) * abs(float(spec["approx"]))
    return max(rel_tol, DEFAULT_ABS if abs_ is None else float(abs_))


def describe(spec: dict[str, Any]) -> str:
    """The pin and its tolerance in words.

    >>> describe({"approx": 1.0, "rel": 1e-9}), describe({"min": 0}), describe({"equals_metric": "n"})
    ('1.0 ± rel 1e-09', 'in [0, inf]', 'equal to metric n')
    """
    if "exact" in spec:
        return f"exactly {spec['exact']!r}"
    if "approx" in spec:
        parts = []
        if spec.get("abs") is not None:
            parts.append(f"{spec['abs']} (abs)")
        if spec.get("rel") is not None:
            parts.append(f"rel {spec['rel']}")
        return f"{spec['approx']!r} ± " + (" or ".join(parts) if parts else f"rel {DEFAULT_REL} (default)")
    if "min" in spec or "max" in spec:
        return f"in [{spec.get('min', -math.inf)}, {spec.get('max', math.inf)}]"
    return f"equal to metric {spec['equals_metric']}"


def check_metric(name: str, spec: Any, metrics: dict[str, Any]) -> str | None:
    """None if the recorded metric meets its pin, else one line: the metric, its value, the pin and its tolerance."""
    if not is_valid_pin(spec):
        return f"{name}: pin {spec!r} is not one of exact / approx(+rel/abs) / min+max / equals_metric"
    if name not in metrics:
        return f"{name}: pinned ({describe(spec)}) but not recorded"
    got = metrics[name]
    off = f"{name} = {got!r}, pinned {describe(spec)}"
    if "exact" in spec:
        # True == 1 in Python; a bool metric must match a bool, a number a number.
        ok = got == spec["exact"] and isinstance(got, bool) == isinstance(spec["exact"], bool)
        return None if ok else off
    if "approx" in spec:
        want = spec["approx"]
        if not (_number(got) and _number(want)):
            return None if got == want else off
        ok = got == want or (math.isfinite(got) and abs(got - want) <= tolerance(spec))
        return None if ok else off + f" (off by {got - want:+.3g})"
    if "min" in spec or "max" in spec:
        lo, hi = spec.get("min", -math.inf), spec.get("max", math.inf)
        return None if _number(got) and lo <= got <= hi else off
    other = spec["equals_metric"]
    if other not in metrics:
        return f"{name}: pinned equal to metric {other!r}, which was not recorded"
    return None if got == metrics[other] else f"{name} = {got!r}, pinned equal to metric {other} = {metrics[other]!r}"


@dataclass
class PinFile:
    """A loaded pin file: the study, the parameters the pins were taken on, the pins, and where it is."""

    study: str
    quick_params: dict[str, Any]
    metrics: dict[str, dict[str, Any]]
    path: Path

    def save(self) -> None:
        from .atomicfile import atomic_write_text

        data = {"study": self.study, "quick_params": self.quick_params, "metrics": self.metrics}
        atomic_write_text(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def load(path: Path | str, study: str) -> PinFile:
    """Read and check a pin file; BadInput naming the file and what is wrong with it."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(f"no pin file {path}; pin the study with `pytest --solvi-update-pins`.") from None
    except (OSError, json.JSONDecodeError) as e:
        raise BadInput(f"pin file {path} cannot be read as JSON: {e}") from None
    if not isinstance(data, dict) or data.get("study") != study:
        raise BadInput(f'{path}: "study" must be {study!r}.')
    if not isinstance(data.get("quick_params"), dict):
        raise BadInput(f'{path}: "quick_params" must be a dict (the parameters the pins were taken on).')
    if not isinstance(data.get("metrics"), dict) or not data["metrics"]:
        raise BadInput(f'{path}: "metrics" must be a non-empty dict of pins.')
    return PinFile(study, data["quick_params"], data["metrics"], path)


@dataclass
class PinReport:
    """The outcome of comparing one run's metrics with its pins.

    failures: one line per pin that does not hold (or has no metric). unpinned: metrics recorded with no pin
    (timings left out: they are never pinned).
    """

    notebook: str
    pins_path: str
    failures: list[str] = field(default_factory=list)
    unpinned: list[str] = field(default_factory=list)
    checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures

    def message(self) -> str:
        """Every failing pin on its own line, with the notebook and the pin file named."""
        head = f"{len(self.failures)} of {self.checked} pins off ({self.notebook}, pins {self.pins_path}):"
        where = Path(self.notebook).name  # on every line too, so a line read alone still says which notebook
        lines = [head, *(f"  {line} — {where}" for line in self.failures)]
        if self.unpinned:
            lines.append(f"  recorded but not pinned: {', '.join(self.unpinned)}")
        return "\n".join(lines)


def compare(pins: PinFile, metrics: dict[str, Any], *, notebook: str) -> PinReport:
    """Check every pin against the recorded metrics; list the metrics no pin covers.

    >>> p = PinFile("s", {}, {"a": {"exact": 1}, "b": {"min": 0}}, Path("s.pins.json"))
    >>> r = compare(p, {"a": 2, "c": 3}, notebook="s.ipynb")
    >>> r.failures, r.unpinned
    (['a = 2, pinned exactly 1', 'b: pinned (in [0, inf]) but not recorded'], ['c'])
    """
    report = PinReport(notebook, str(pins.path), checked=len(pins.metrics))
    report.failures = [line for name, spec in pins.metrics.items() if (line := check_metric(name, spec, metrics))]
    report.unpinned = sorted(n for n in set(metrics) - set(pins.metrics) if not is_timing(n))
    return report


def pin_for(value: Any) -> dict[str, Any] | None:
    """The pin a recorded value gets when pinned from a run: exact, or approx with rel 1e-9 for a float.

    >>> pin_for(3), pin_for(0.5), pin_for([1, 2])
    ({'exact': 3}, {'approx': 0.5, 'rel': 1e-09}, {'exact': [1, 2]})
    """
    if isinstance(value, float):
        return {"approx": value, "rel": PIN_REL}
    if value is None:
        return None
    return {"exact": value}


def rewrite(pins: PinFile, metrics: dict[str, Any], quick_params: dict[str, Any]) -> list[str]:
    """Move the pins to this run's metrics (in place) and return one line per change; nothing changes silently.

    exact and approx pins take the new value (an approx pin keeps its tolerance); a band or an equals_metric pin
    is a statement, not a recording: it is kept, and said so when it fails. A pin with no metric is removed; a
    metric with no pin is pinned with `pin_for` (timings, `is_timing`, never are).

    >>> p = PinFile("s", {}, {"a": {"exact": 1}, "b": {"min": 5}, "gone": {"exact": 0}}, Path("s.pins.json"))
    >>> rewrite(p, {"a": 2, "b": 3, "new": 1.5}, {})
    ['a: exactly 1 → exactly 2', 'b: band kept (b = 3, pinned in [5, inf]); edit it by hand if the change is meant', 'gone: removed (no longer recorded)', 'new: pinned 1.5 ± rel 1e-09']
    >>> p.metrics["a"], sorted(p.metrics)
    ({'exact': 2}, ['a', 'b', 'new'])
    """
    changes: list[str] = []
    new: dict[str, dict[str, Any]] = {}
    for name, spec in pins.metrics.items():
        if name not in metrics:
            changes.append(f"{name}: removed (no longer recorded)")
            continue
        value = metrics[name]
        if is_valid_pin(spec) and ("exact" in spec or "approx" in spec):
            moved = {**spec, "approx": value} if "approx" in spec and _number(value) else (pin_for(value) or spec)
            if "approx" in spec and not _number(value):
                moved = {"exact": value}
            if moved != spec:
                changes.append(f"{name}: {describe(spec)} → {describe(moved)}")
            new[name] = moved
        else:
            failing = check_metric(name, spec, metrics)
            if failing:
                changes.append(f"{name}: band kept ({failing}); edit it by hand if the change is meant")
            new[name] = spec
    for name in sorted(n for n in set(metrics) - set(pins.metrics) if not is_timing(n)):
        pin = pin_for(metrics[name])
        if pin is not None:
            new[name] = pin
            changes.append(f"{name}: pinned {describe(pin)}")
    if quick_params != pins.quick_params:
        changes.append(f"quick_params: {pins.quick_params} → {quick_params}")
    pins.metrics, pins.quick_params = new, quick_params
    return changes
