"""Moved to solvi_lab.explore.frames (issue 14); this name stays for the notebooks and docs that import it."""

from ..explore.frames import FRAME_SCHEMA, json_text, store_frame  # noqa: F401
