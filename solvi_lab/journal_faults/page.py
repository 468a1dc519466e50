"""Fault tables on a documentation page, rendered from the files `benchmarks/faults.py` stores (never typed).

A block on a page is

    <!-- fault-table: results/benchmarks/faults_head_index.md -->
    …the stored file's text, as it is…
    <!-- /fault-table -->

`regenerated(text, root)` gives the page with every block's content replaced by its file (relative to the
repository `root`); `benchmarks/faults.py` rewrites `docs/readme/journal.md` after it stores a table, and
`tests/faults/test_fault_page.py` holds the page to its files.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp()); _ = (root / "t.md").write_text("| a | 1 |\\n")
>>> print(regenerated("x\\n<!-- fault-table: t.md -->\\nold\\n<!-- /fault-table -->\\ny\\n", root))
x
<!-- fault-table: t.md -->
| a | 1 |
<!-- /fault-table -->
y
<BLANKLINE>
"""

from __future__ import annotations

import re
from pathlib import Path

from ..atomicfile import atomic_write_text
from ..errors import BadInput

__all__ = ["BLOCK", "regenerate", "regenerated"]

BLOCK = re.compile(r"(<!-- fault-table: (?P<file>[^ ]+) -->\n)(?P<body>.*?)(<!-- /fault-table -->)", flags=re.S)


def regenerated(text: str, root: Path) -> str:
    """`text` with every fault-table block's content replaced by the stored file it names."""

    def fill(m: re.Match) -> str:
        source = Path(root) / m.group("file")
        if not source.is_file():
            raise BadInput(
                f"fault-table block names {m.group('file')}, which is not a file under {root}; run "
                "benchmarks/faults.py to store it, or fix the name in the marker."
            )
        body = source.read_text(encoding="utf-8")
        return m.group(1) + body + ("" if body.endswith("\n") else "\n") + m.group(4)

    return BLOCK.sub(fill, text)


def regenerate(page: Path, root: Path) -> bool:
    """Rewrite `page` with its blocks rendered; True when it changed."""
    old = page.read_text(encoding="utf-8")
    new = regenerated(old, root)
    if new != old:
        atomic_write_text(page, new)
    return new != old
