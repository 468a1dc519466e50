"""Moved to solvi_lab.explore.graph (issue 14); this name stays for the notebooks and docs that import it."""

from ..explore.graph import DEFAULT_MAX_NODES, graph, node_label  # noqa: F401
