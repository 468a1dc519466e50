"""Moved to solvi_lab.explore.plot (issue 14); this name stays for the notebooks and docs that import it."""

from .explore.plot import STATUS_COLOURS, derivations, layered_layout  # noqa: F401

__all__ = ["STATUS_COLOURS", "derivations", "layered_layout"]
