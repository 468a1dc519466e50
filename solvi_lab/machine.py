"""Where and when a reproduction ran: machine, date and package versions, for the report.

A result without the machine it ran on cannot be compared with someone else's run, so `solvi-lab reproduce`
captures this once, writes it to `<out>/machine.json`, and the report prints it.

>>> info = describe()
>>> sorted(info)
['cores', 'cpu', 'date', 'load', 'memory', 'os', 'packages']
>>> "numpy" in info["packages"] and "python" in info["packages"]
True
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

# The packages whose versions change a study's numbers or its execution; the report lists them in this order.
PACKAGES: tuple[str, ...] = ("numpy", "polars", "matplotlib", "networkx", "papermill", "solvi_lab")


def package_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """Installed version of each package (and of Python), or "not installed".

    >>> package_versions(("no-such-package-xyz",))["no-such-package-xyz"]
    'not installed'
    """
    versions = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = _module_version(name)
    return versions


def _module_version(name: str) -> str:
    # solvi_lab run from a checkout without `pip install -e` has no distribution metadata, but has __version__.
    module = sys.modules.get(name)
    if module is None and name == "solvi_lab":
        import solvi_lab as module
    version = getattr(module, "__version__", None)
    return f"{version} (not pip-installed)" if version else "not installed"


def cpu_model() -> str:
    """The CPU's marketing name, from /proc/cpuinfo (Linux) or sysctl (macOS); platform.processor() otherwise."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    if sys.platform == "darwin":
        try:
            out = subprocess.run(
                ["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=5, check=True
            )
            return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or platform.machine() or "unknown"


def memory_bytes() -> int | None:
    """Physical memory in bytes, or None where the platform does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # macOS lacks SC_PHYS_PAGES; Windows lacks sysconf
        pass
    if sys.platform == "darwin":
        try:
            out = subprocess.run(["sysctl", "-n", "hw.memsize"], capture_output=True, text=True, timeout=5, check=True)
            return int(out.stdout.strip())
        except (OSError, subprocess.SubprocessError, ValueError):
            pass
    return None


def usable_cores() -> int:
    """Cores this process may run on (the affinity mask, which containers and CI runners restrict)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def load_average() -> list[float] | None:
    """The 1-, 5- and 15-minute load averages now (None where the OS has none): measured, never assumed."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def describe() -> dict[str, Any]:
    """Machine, date and package versions as one JSON-ready dict."""
    mem = memory_bytes()
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "cores": {"usable": usable_cores(), "total": os.cpu_count()},
        "memory": f"{mem / 2**30:.1f} GiB" if mem else "unknown",
        "cpu": cpu_model(),
        "load": load_average(),
        "os": platform.platform(),
        "packages": package_versions(),
    }
