"""Registers solvi_lab's pytest plugin (metric pins) when the installed metadata does not (an install made before
the plugin existed, or this checkout on PYTHONPATH in another checkout's environment); a fresh
`pip install -e ".[dev]"` registers it through its `pytest11` entry point and this does nothing."""

from importlib.metadata import entry_points

if not any(ep.value == "solvi_lab.pytest_plugin" for ep in entry_points(group="pytest11")):
    pytest_plugins = ["solvi_lab.pytest_plugin"]
