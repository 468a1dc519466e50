"""The project's own Jupyter kernel, `solvi-lab`: installed inside the environment, never in the user's home.

papermill (`solvi-lab run / reproduce`) and nbval (`--nbval-kernel-name solvi-lab`) run the notebooks on it, so
installing solvi_lab never overwrites a `python3` kernel someone already has in `~/.local/share/jupyter`.

- `ensure_kernel()` writes `<sys.prefix>/share/jupyter/kernels/solvi-lab/kernel.json` when it is missing or
  points at another Python (the venv is the only place written), and returns the kernel's name.
- `python -m solvi_lab.kernel install` does the same from a shell (what README's test command and `.ci/run` run).
- `python -m solvi_lab.kernel -f CONNECTION_FILE` is what the kernel spec starts: ipykernel's own kernel, with one
  warning dropped at its source (below), and IPython's profile and matplotlib's cache kept in the environment
  (`state_dirs`), so a notebook run writes nothing under `~`.

>>> kernel_spec("/venv/bin/python")["argv"]
['/venv/bin/python', '-m', 'solvi_lab.kernel', '-f', '{connection_file}']
"""

from __future__ import annotations

import ipaddress
import json
import logging
import sys
from pathlib import Path
from typing import Any

from .errors import SolviLabError

KERNEL_NAME = "solvi-lab"
DISPLAY_NAME = "solvi_lab"
INSTALL_COMMAND = "python -m solvi_lab.kernel install"
_TCP_WARNING = "Kernel is running over TCP without encryption"
_SHUTDOWN_INTERRUPT = "KeyboardInterrupt caught in kernel"


def kernel_spec(python: str | None = None) -> dict[str, Any]:
    """The kernel.json of our kernel for that Python (default: this one)."""
    return {
        "argv": [python or sys.executable, "-m", "solvi_lab.kernel", "-f", "{connection_file}"],
        "display_name": DISPLAY_NAME,
        "language": "python",
        "metadata": {"debugger": True},
    }


def kernel_dir(prefix: str | Path | None = None) -> Path:
    """Where the kernel spec lives: inside the environment (`--sys-prefix`), never under `~`."""
    return Path(prefix or sys.prefix) / "share" / "jupyter" / "kernels" / KERNEL_NAME


def ensure_kernel(prefix: str | Path | None = None) -> str:
    """Install our kernel into the environment if it is missing or points at another Python; return its name.

    >>> import tempfile, json
    >>> d = tempfile.mkdtemp()
    >>> ensure_kernel(d)
    'solvi-lab'
    >>> json.loads((kernel_dir(d) / "kernel.json").read_text())["argv"][1:3]
    ['-m', 'solvi_lab.kernel']
    """
    path = kernel_dir(prefix) / "kernel.json"
    want = kernel_spec()
    try:
        if json.loads(path.read_text(encoding="utf-8")) == want:
            return KERNEL_NAME
    except (OSError, ValueError):
        pass  # missing or unreadable: (re)written below
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(want, indent=1) + "\n", encoding="utf-8")
    except OSError as e:
        raise SolviLabError(
            f"cannot install the Jupyter kernel {KERNEL_NAME!r} into {path.parent} ({e.strerror}); "
            f"use a virtual environment you can write to (python3 -m venv .venv), then `{INSTALL_COMMAND}`."
        ) from None
    return KERNEL_NAME


class _LoopbackTcpWarning(logging.Filter):
    """Drops ipykernel's "running over TCP without encryption" warning when the kernel listens on loopback only.

    Why: jupyter_client starts local kernels on 127.0.0.1 with an HMAC-signed connection, so nobody but this
    machine's users can reach the sockets; the warning (one per notebook) is about other networks and tells a
    user of `solvi-lab reproduce` nothing they can act on. On any other address it is kept: there it is real.
    """

    def __init__(self, app: Any):
        super().__init__()
        self.app = app

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(_TCP_WARNING):
            return True
        return not _is_loopback(getattr(self.app, "ip", ""))


class _ShutdownInterrupt(logging.Filter):
    """Drops ipykernel's "KeyboardInterrupt caught in kernel" error line.

    Why: jupyter_client interrupts every kernel before it asks it to shut down (KernelManager.shutdown_kernel); when
    that SIGINT lands while the kernel is handling a message, ipykernel catches it, logs this line at ERROR level and
    goes on. Papermill shuts a kernel down after every notebook, so `solvi-lab reproduce` printed the line at
    random (seen once in a 9-notebook run) after notebooks that had all finished. A real interrupt is reported by
    the caller: the notebook cell's error, or `solvi-lab`'s own "interrupted; partial notebooks are in the results
    folder".
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_SHUTDOWN_INTERRUPT)


def _is_loopback(ip: str) -> bool:
    """Whether a kernel's listening address is this machine only.

    >>> _is_loopback("127.0.0.1"), _is_loopback("localhost"), _is_loopback("0.0.0.0"), _is_loopback("10.0.0.5")
    (True, True, False, False)
    """
    if ip == "localhost":
        return True
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False


def state_dirs(prefix: str | Path | None = None) -> dict[str, Path]:
    """Where the kernel keeps IPython's profile (history) and matplotlib's font cache: inside the environment.

    Left to themselves both write under `~` (`~/.ipython`, `~/.cache/matplotlib`); a variable the user set wins.

    >>> sorted(state_dirs("/venv"))
    ['IPYTHONDIR', 'MPLCONFIGDIR']
    """
    base = Path(prefix or sys.prefix) / "var" / "solvi-lab"
    return {"IPYTHONDIR": base / "ipython", "MPLCONFIGDIR": base / "matplotlib"}


def keep_state_in_environment() -> None:
    """Point IPython and matplotlib at `state_dirs()` unless the user chose; call before either is imported
    (they read the variables once). `solvi-lab` does it first thing, and so does the kernel."""
    import os

    for name, path in state_dirs().items():
        if name not in os.environ:
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError:
                continue  # an environment we cannot write to: their own defaults apply
            os.environ[name] = str(path)


def _start_kernel(argv: list[str]) -> None:
    keep_state_in_environment()
    from ipykernel.kernelapp import IPKernelApp

    app = IPKernelApp.instance()
    app.log.addFilter(_LoopbackTcpWarning(app))
    app.log.addFilter(_ShutdownInterrupt())
    app.initialize(argv)
    app.start()


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["install"]:
        prefix = args[2] if args[1:2] == ["--prefix"] else None
        name = ensure_kernel(prefix)
        print(f"kernel {name!r} installed in {kernel_dir(prefix)}")
        return
    _start_kernel(args)


if __name__ == "__main__":
    main()
