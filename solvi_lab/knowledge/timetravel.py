"""Moved to solvi_lab.explore.timetravel (issue 14); this name stays for the notebooks and docs that import it."""

from ..explore.timetravel import DIFF_SCHEMA, diff, status_at  # noqa: F401
