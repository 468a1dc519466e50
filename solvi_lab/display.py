"""How the toolkit's objects show themselves in Jupyter: a small HTML card (`_repr_html_`) and a one-line text.

Every card is a short table — a caption, at most `MAX_ROWS` rows, each value cut to `MAX_TEXT` characters — so a
store of a million items renders as small as one of three. The renderers read only what the objects already say
about themselves (their public reads); building a card changes nothing.

>>> html = card("item k3", [("kind", "fact"), ("body", {"s": "c1", "r": "tier", "o": "gold"})])
>>> html.startswith('<table class="solvi-card"') and "<th" in html and "c1" in html
True
>>> short("x" * 200)[-1], len(short("x" * 200))
('…', 80)
>>> counts_text({"active": 3, "retracted": 1, "hypothesis": 0})
'active 3, retracted 1'
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping
from typing import Any

MAX_TEXT = 80  # characters of one value
MAX_ROWS = 14  # rows of one card (the rest: "… n more")
MAX_LIST = 5  # entries listed under a card (facts, hints, claims, events)

_STYLE = "border-collapse:collapse;font-size:90%;margin:0.2em 0"
_CELL = "text-align:left;padding:0 6px"


def short(value: Any, limit: int = MAX_TEXT) -> str:
    """A value as compact text (JSON for containers), cut to `limit` characters with an ellipsis."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
        except (TypeError, ValueError):
            text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def counts_text(counts: Mapping[str, int], *, empty: str = "none") -> str:
    """`{"active": 3, "retracted": 1}` → "active 3, retracted 1": largest first, zeros left out."""
    shown = sorted(((k, v) for k, v in counts.items() if v), key=lambda kv: (-kv[1], str(kv[0])))
    return ", ".join(f"{k} {v:,}" for k, v in shown) or empty


def card(title: str, rows: Iterable[tuple[str, Any]], *, listed: Iterable[str] = (), more: int = 0) -> str:
    """A small HTML table: `title` as its caption, one row per (name, value), then `listed` lines (already text)
    and "… n more" when `more` were left out."""
    rows = list(rows)
    cut = len(rows) - MAX_ROWS
    rows = rows[:MAX_ROWS]
    body = "".join(
        f'<tr><th style="{_CELL}">{html.escape(str(k))}</th><td style="{_CELL}">{html.escape(short(v))}</td></tr>'
        for k, v in rows
    )
    if cut > 0:
        body += f'<tr><td colspan="2" style="{_CELL}">… {cut} more rows</td></tr>'
    lines = [html.escape(short(x, 2 * MAX_TEXT)) for x in listed]
    if more > 0:
        lines.append(f"… {more:,} more")
    body += "".join(f'<tr><td colspan="2" style="{_CELL}">{line}</td></tr>' for line in lines)
    caption = f'<caption style="text-align:left;font-weight:bold">{html.escape(short(title, 2 * MAX_TEXT))}</caption>'
    return f'<table class="solvi-card" style="{_STYLE}">{caption}{body}</table>'
