"""Every kind of generated block a page of the docs may hold, in one list (issue 44: one source for every number).

A generated block is the lines between a begin and an end marker that a renderer writes from a stored source; a
figure shown there is never typed. The kinds differ only in their source:

- `sweep-pass-rates`: a stored sweep's checked rows (`sweep/stored.py`);
- `studies-table`: README's table of studies, from the stored sweeps (`sweep/headlines.py`);
- `stored`: a table of one committed output file — a benchmark's result, a stored sweep (`sweep/stored_files.py`);
- `fault-table`: a fault table `benchmarks/faults.py` stored (`journal_faults/page.py`);
- `perf-table`: the performance table, from `results/benchmarks/issue42/` (`benchmarks/perf_page.py`);
- `taubench-defaults`, `taubench-full`, `taubench-slices`, `taubench-published`, `crafter-defaults`,
  `crafter-heldout`, `crafter-requirements`: tables of the defaults' decisions,
  rendered by their studies' own commands from `docs/sweeps/*.json` and held to them by their tests (named in
  `checked_by`).

`render(text, docs, page)` rebuilds every kind this module renders from its source, in one pass, and
`sweep.stored.regenerated` adds the pass rates (which live with the stored sweeps: that module imports this one);
`solvi-lab store-sweeps --blocks-only` writes them all (`STORE_SWEEPS` names them) and `tests/test_prose_numbers.py`
fails on any difference. `PATTERN` matches every block of every kind, which is what the prose-number test leaves out
of a page's prose.

>>> [k.name for k in KINDS if k.render is None][:3]
['sweep-pass-rates', 'taubench-defaults', 'taubench-full']
>>> len([k for k in KINDS if k.render is None])
8
>>> STORE_SWEEPS
('sweep-pass-rates', 'studies-table', 'stored', 'fault-table', 'perf-table')
>>> bool(PATTERN.search("a\\n<!-- stored: x.md -->\\n| 1 |\\n<!-- /stored -->\\nb"))
True
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

__all__ = ["KINDS", "PATTERN", "STORE_SWEEPS", "Kind", "render"]

Renderer = Callable[[str, Path, Path], str]  # (page text, the docs folder, page) -> page text, blocks rebuilt


@dataclass(frozen=True)
class Kind:
    """One kind of block: its name, the regular expression of a whole block (markers included), and how it is
    rebuilt (None: elsewhere — the pass rates by `sweep.stored`, the defaults' tables by their studies' commands —
    `checked_by` the test that holds it to its source)."""

    name: str
    block: str
    render: Renderer | None = None
    checked_by: str = "tests/test_prose_numbers.py"


def _studies_table(text: str, docs: Path, page: Path) -> str:
    from .headlines import regenerated

    return regenerated(text, docs, page)


def _stored_files(text: str, docs: Path, page: Path) -> str:
    from .stored_files import regenerated

    return regenerated(text, docs.parent, page)  # paths are relative to the repository, the folder of docs/


def _fault_tables(text: str, docs: Path, page: Path) -> str:
    from ..journal_faults.page import regenerated

    return regenerated(text, docs.parent)


def _perf_page(root: Path) -> ModuleType | None:
    """`benchmarks/perf_page.py` of the repository at `root` (a script beside the package, not part of it), or None
    when that repository has none."""
    path = Path(root) / "benchmarks" / "perf_page.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("solvi_lab_perf_page", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _perf_table(text: str, docs: Path, page: Path) -> str:
    if "<!-- perf-table -->" not in text:
        return text
    root = Path(docs).resolve().parent  # the script names its results relative to its own repository
    perf = _perf_page(root)
    if perf is None:
        return text
    block = perf.render(root / "results" / "benchmarks" / "issue42")
    return perf._BLOCK.sub(lambda _: block, text)


KINDS: tuple[Kind, ...] = (
    Kind("sweep-pass-rates", r"<!--\s*sweep-pass-rates:.*?<!--\s*/sweep-pass-rates\s*-->"),
    Kind(
        "studies-table",
        re.escape("<!-- studies-table -->") + r".*?" + re.escape("<!-- /studies-table -->"),
        _studies_table,
    ),
    Kind("stored", r"<!-- stored:.*?<!-- /stored -->", _stored_files),
    Kind("fault-table", r"<!-- fault-table:.*?<!-- /fault-table -->", _fault_tables, "tests/faults/test_fault_page.py"),
    Kind("perf-table", r"<!-- perf-table -->.*?<!-- /perf-table -->", _perf_table, "tests/test_perf_page.py"),
    Kind(
        "taubench-defaults",
        r"<!-- taubench-defaults:.*?<!-- /taubench-defaults -->",
        checked_by="tests/studies/test_taubench_defaults.py",
    ),
    Kind(
        "taubench-full",
        r"<!-- taubench-full:.*?<!-- /taubench-full -->",
        checked_by="tests/studies/test_taubench_defaults.py",
    ),
    Kind(
        "taubench-slices",
        r"<!-- taubench-slices:.*?<!-- /taubench-slices -->",
        checked_by="tests/studies/test_taubench_defaults.py",
    ),
    Kind(
        "taubench-published",
        r"<!-- taubench-published:.*?<!-- /taubench-published -->",
        checked_by="tests/studies/test_taubench_defaults.py",
    ),
    Kind(
        "crafter-defaults",
        r"<!-- crafter-defaults:.*?<!-- /crafter-defaults -->",
        checked_by="tests/studies/test_crafter_defaults.py",
    ),
    Kind(
        "crafter-heldout",
        r"<!-- crafter-heldout:.*?<!-- /crafter-heldout -->",
        checked_by="tests/studies/test_crafter_defaults.py",
    ),
    Kind(
        "crafter-requirements",
        r"<!-- crafter-requirements:.*?<!-- /crafter-requirements -->",
        checked_by="tests/studies/test_crafter_heldout.py",
    ),
)

PATTERN = re.compile("|".join(k.block for k in KINDS), flags=re.S)
STORE_SWEEPS = ("sweep-pass-rates", *(k.name for k in KINDS if k.render is not None))


def render(text: str, docs: Path, page: Path) -> str:
    """`text` (the page `page` of the repository whose documentation folder is `docs`) with every block of every kind
    this module renders rebuilt from its source; the text itself when it holds none."""
    for kind in KINDS:
        if kind.render is not None:
            text = kind.render(text, Path(docs), Path(page))
    return text
