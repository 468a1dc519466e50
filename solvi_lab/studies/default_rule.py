"""The project's rule for a default, shared by every study that decides one (τ-bench's settings, Crafter's training).

Its one job: pick the row the rule picks (**fewest false accepts, then highest refusal precision, then lowest
abstention**) and put a rendered decision table between its two markers in a page. Each study scores its own
candidates on data no design read; this module only orders them and writes the block.

>>> rows = [{"name": "a", "false_accepts": 1, "precision": 1.0, "abstain": 0.01},
...         {"name": "b", "false_accepts": 0, "precision": 0.99, "abstain": 0.2},
...         {"name": "c", "false_accepts": 0, "precision": None, "abstain": 0.1}]
>>> choose(rows, "abstain", "training")["name"]
'c'
>>> replace_block("x <!-- b -->old<!-- /b --> y", "<!-- b -->", "<!-- /b -->", "<!-- b -->new<!-- /b -->", "page.md")
'x <!-- b -->new<!-- /b --> y'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import BadInput


def choose(rows: Sequence[Mapping[str, Any]], abstention: str, what: str = "setting") -> Mapping[str, Any]:
    """The row the rule picks; `abstention` names the row's abstention field (a share or a percentage). A row
    without a predicted refusal (precision None) counts as precise: it answered no refusal wrongly."""
    if not rows:
        raise BadInput(f"choose needs at least one scored {what}; pass the rows decide() scored.")

    def key(row: Mapping[str, Any]) -> tuple[int, float, float]:
        precision = row["precision"] if row["precision"] is not None else 1.0
        return (row["false_accepts"], -precision, row[abstention] or 0.0)

    return min(rows, key=key)


def replace_block(text: str, begin: str, end: str, rendered: str, where: str) -> str:
    """`text` with the block from `begin` to `end` replaced by `rendered` (which carries the markers itself)."""
    if begin not in text or end not in text:
        raise BadInput(f"{where} has no block {begin} … {end}; add the two markers where the table goes.")
    head, rest = text.split(begin, 1)
    return head + rendered + rest.split(end, 1)[1]
