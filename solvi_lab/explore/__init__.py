"""Exploration: frames, time travel and derivation graphs of a knowledge store, read through its view
(`ks.view()`) and its journal only — nothing here imports the store's internals, and the knowledge package imports
nothing of this one. Drawing: explore.plot; Parquet:
explore.parquet (imported on their own: matplotlib and pyarrow load only when asked for).

>>> from solvi_lab.knowledge import KnowledgeStore
>>> ks = KnowledgeStore()
>>> a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
>>> store_frame(ks).height, graph(ks).number_of_nodes(), diff(ks, 0).height
(1, 1, 1)
"""

from .frames import FRAME_SCHEMA, json_text, store_frame
from .graph import graph, node_label
from .timetravel import DIFF_SCHEMA, diff, status_at

__all__ = ["DIFF_SCHEMA", "FRAME_SCHEMA", "diff", "graph", "json_text", "node_label", "status_at", "store_frame"]
