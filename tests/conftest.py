"""Registers solvi_lab's pytest plugin (metric pins) when the installed metadata does not (an install made before
the plugin existed, or this checkout on PYTHONPATH in another checkout's environment); a fresh
`pip install -e ".[dev]"` registers it through its `pytest11` entry point and this does nothing. Also: the
`load_benchmark` fixture, for tests of the scripts in benchmarks/."""

import importlib.util
from importlib.metadata import entry_points
from pathlib import Path

import pytest

if not any(ep.value == "solvi_lab.pytest_plugin" for ep in entry_points(group="pytest11")):
    pytest_plugins = ["solvi_lab.pytest_plugin"]

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def load_benchmark():
    """A script of benchmarks/ as a module, by name (they are scripts, not a package)."""

    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    return load
