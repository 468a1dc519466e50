"""Blocks rendered from a stored output file: a benchmark's result, a stored sweep (issue 44, "one source").

A page holds the lines

    <!-- stored: results/benchmarks/store_scale.md#2 -->
    <!-- /stored -->

and `solvi-lab store-sweeps --blocks-only` writes between them what the named file gives, so a figure shown in the
docs is never typed: `tests/test_prose_numbers.py` fails when a block differs from its file. The path is relative
to the repository (the folder holding `docs/`); after `#`:

- in a Markdown file (`*.md`: a benchmark's report, a stored sweep's SUMMARY): the number of one of its tables
  (1-based, in the file's order), or the first header cell of the table wanted (`#figure`, `#metric`); without `#`,
  every table of the file. After the table, `:ROW;ROW;...` keeps only the rows whose first cell is one of those, in
  that order (`#metric:agent_recall;agent_precision`): a long table shown by the few lines a page needs;
- in a JSON file (`*.json`): `rows:COLUMN,COLUMN,...`, the file's `rows` (a list of objects, or the file itself
  when it is a list) as a table of those columns; without `#`, every column of the first row.

Under the table, one provenance line: the file (linked) and the line of it that says when and where it was measured
(a benchmark's "Measured ..." line, a sweep's "Ran on commit ..." line, a JSON file's `date`/`machine`/`command`).

>>> print(md_tables("intro\\n\\n| a | b |\\n|---|---|\\n| 1 | 2 |\\n\\ntext\\n| c |\\n|---|\\n| 3 |\\n")[1])
| c |
|---|
| 3 |
<BLANKLINE>
>>> print(json_table([{"n": 10000, "s": 0.000123456, "ok": True}, {"n": 100000, "s": 1.5, "ok": False}], ["n", "s"]))
| n | s |
|---:|---:|
| 10,000 | 0.0001235 |
| 100,000 | 1.5 |
<BLANKLINE>
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ..errors import BadInput

BEGIN = re.compile(r"^\s*<!--\s*stored:\s*(\S+?)\s*-->\s*$")  # a marker is a line of its own
END = "<!-- /stored -->"
# the line of a stored Markdown file that says when, where and how it was measured
_PROVENANCE = re.compile(r"^(Measured |Ran on commit |Run on |Date:|date:)")


def md_tables(text: str) -> list[str]:
    """Every Markdown table of `text` (consecutive lines starting with `|`), in order, each ending in a newline."""
    tables: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append(line)
            continue
        if current:
            tables.append("\n".join(current) + "\n")
            current = []
    if current:
        tables.append("\n".join(current) + "\n")
    return tables


def _cell(value: Any) -> str:
    """A JSON value as a table cell: integers with thousands separators, floats to four significant digits."""
    if isinstance(value, bool) or value is None:
        return "—" if value is None else ("yes" if value else "no")
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.4g}"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False).replace("|", "\\|")
    return str(value).replace("|", "\\|").replace("\n", " ")


def json_table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    """`rows` as a Markdown table of `columns` (numbers right-aligned)."""
    numeric = [
        all(isinstance(r.get(c), (int, float)) and not isinstance(r.get(c), bool) for r in rows) for c in columns
    ]
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    lines += ["| " + " | ".join(_cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def pick_rows(table: str, names: list[str], where: str) -> str:
    """The header of `table` and its rows whose first cell is one of `names`, in that order (refused if one is absent).

    >>> print(pick_rows("| m | v |\\n|---|---|\\n| a | 1 |\\n| b | 2 |\\n", ["b", "a"], "x"), end="")
    | m | v |
    |---|---|
    | b | 2 |
    | a | 1 |
    """
    lines = table.splitlines()
    by_name = {ln.strip().strip("|").split("|")[0].strip(): ln for ln in lines[2:]}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise BadInput(f"{where}: the table has no row {', '.join(repr(n) for n in missing)}; check the names.")
    return "\n".join(lines[:2] + [by_name[n] for n in names]) + "\n"


def _said(text: str) -> str:
    """The line of a stored Markdown file that says when and where it was measured: its "Measured …" or "Ran on
    commit …" line, else the first line outside a table that holds a date ("Journal costs — 2026-11-30 18:08 UTC, …").

    >>> _said("# Title\\n\\n| a |\\n|---|\\n| 2026-01-01 |\\n\\nJournal costs — 2026-11-30 18:08 UTC, 2 cores\\n")
    'Journal costs — 2026-11-30 18:08 UTC, 2 cores'
    """
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("|")]
    return next((ln for ln in lines if _PROVENANCE.match(ln)), "") or next(
        (ln for ln in lines if re.search(r"\b\d{4}-\d{2}-\d{2}\b", ln)), ""
    )


def _md_block(text: str, selector: str, where: str) -> tuple[str, str]:
    selector, _, wanted = selector.partition(":")
    tables = md_tables(text)
    if not tables:
        raise BadInput(f"{where} holds no Markdown table; name a file with one.")
    if not selector:
        chosen = tables
    elif selector.isdigit():
        n = int(selector)
        if not 1 <= n <= len(tables):
            raise BadInput(f"{where}#{selector}: it has {len(tables)} tables; give a number from 1 to {len(tables)}.")
        chosen = [tables[n - 1]]
    else:
        chosen = [t for t in tables if t.split("|")[1].strip() == selector]
        if not chosen:
            firsts = ", ".join(sorted({t.split("|")[1].strip() for t in tables}))
            raise BadInput(f"{where}#{selector}: no table begins with that header cell; it has: {firsts}.")
    if wanted:
        if len(chosen) != 1:
            raise BadInput(
                f"{where}#{selector}:{wanted}: name one table (its number or first header cell) to pick rows."
            )
        chosen = [pick_rows(chosen[0], [n.strip() for n in wanted.split(";") if n.strip()], f"{where}#{selector}")]
    said = _said(text)
    if text.lstrip().startswith("**Stale.**"):  # a stored sweep marked older than the study's rows
        said = "**stale**: its first line says why; " + said
    return "\n".join(chosen), said


def _json_block(data: Any, selector: str, where: str) -> tuple[str, str]:
    rows = data if isinstance(data, list) else data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        raise BadInput(f"{where}: no list of rows (a list of objects, or one under 'rows') to render.")
    if selector and not selector.startswith("rows"):
        raise BadInput(f"{where}#{selector}: a JSON file's block is #rows or #rows:COLUMN,COLUMN,...")
    columns = [c for c in selector.partition(":")[2].split(",") if c] or list(rows[0])
    known = {k for r in rows for k in r}
    missing = [c for c in columns if c not in known]
    if missing:
        raise BadInput(f"{where}: no row has {', '.join(missing)}; its columns: {', '.join(sorted(known))}.")
    said = ""
    if isinstance(data, dict):
        said = "; ".join(f"{k}: {data[k]}" for k in ("date", "machine", "command") if data.get(k))
    return json_table(rows, columns), said


def render(root: Path, source: str, page: Path) -> str:
    """The generated lines of the block `<!-- stored: source -->` on `page` (between the markers)."""
    path_text, _, selector = source.partition("#")
    path = Path(root) / path_text
    if not path.is_file():
        raise BadInput(f"{page}: a stored block names {path_text}, which does not exist; name a committed file.")
    where = path_text
    if path.suffix == ".md":
        table, said = _md_block(path.read_text(encoding="utf-8"), selector, where)
    elif path.suffix == ".json":
        table, said = _json_block(json.loads(path.read_text(encoding="utf-8")), selector, where)
    else:
        raise BadInput(f"{page}: a stored block renders a .md or .json file, not {path_text}.")
    link = Path(os.path.relpath(path.resolve(), Path(page).resolve().parent)).as_posix()
    provenance = f"From [{path_text}]({link})" + (f" ({said.rstrip('.')})" if said else "")
    return f"{table}\n{provenance}. Generated from that file by `solvi-lab store-sweeps --blocks-only`; do not edit.\n"


def regenerated(text: str, root: Path, page: Path) -> str:
    """`text` with every stored block rebuilt from its file (the text itself if it has none)."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    open_at: tuple[str, int] | None = None
    for i, line in enumerate(lines, start=1):
        m = BEGIN.match(line)
        if m:
            if open_at is not None:
                raise BadInput(f"{page}:{i}: a stored block begins inside the one begun at line {open_at[1]}.")
            open_at = (m.group(1), i)
            out.append(line)
            continue
        if line.strip() == END:
            if open_at is None:
                raise BadInput(f"{page}:{i}: {END} without a <!-- stored: PATH --> before it.")
            out.append("\n" + render(root, open_at[0], page) + "\n")
            out.append(line)
            open_at = None
            continue
        if open_at is None:
            out.append(line)
    if open_at is not None:
        raise BadInput(f"{page}:{open_at[1]}: the stored block of {open_at[0]} has no {END} after it.")
    return "".join(out)
