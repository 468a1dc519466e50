"""Restart & Run All, twice: explore.md's examples (run as README's doc test runs them, in one folder) give the same
outputs the second time — no `copy.jsonl exists`, no journal appended to again. Each block's last expression is
its output, as Jupyter shows it."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^([ \t]*)```python[ \t]*\n(.*?)^\1```[ \t]*$", flags=re.S | re.M)
NOT_RUN = re.compile(r"<!--\s*not-run:\s*(.*?)\s*-->\s*$")


def _blocks(page: Path) -> list[tuple[int, str]]:
    text = page.read_text(encoding="utf-8")
    found = []
    for m in FENCE.finditer(text):
        before = [ln for ln in text[: m.start()].splitlines() if ln.strip()][-1:] or [""]
        if not NOT_RUN.search(before[0]):
            found.append((text.count("\n", 0, m.start()) + 1, textwrap.dedent(m.group(2))))
    return found


def _output(value: Any) -> str:
    """What a notebook shows for a cell's last value (an HTML card where there is one; no memory addresses)."""
    shown = value._repr_html_() if hasattr(value, "_repr_html_") else repr(value)
    return re.sub(r" at 0x[0-9a-f]+", " at 0x…", str(shown))


def _run_all(page: Path) -> list[str]:
    """Every block in order, in a fresh namespace (a restarted kernel): the output of each block's last line."""
    ns: dict[str, Any] = {"__name__": "__doc_page__"}
    outputs = []
    for line, code in _blocks(page):
        tree = ast.parse(code)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, f"{page.name}:{line}", "exec"), ns)  # noqa: S102 - our own docs
        if last is not None:
            value = eval(compile(ast.Expression(last.value), f"{page.name}:{line}", "eval"), ns)  # noqa: S307
            outputs.append(f"{line}: {_output(value)}")
    return outputs


@pytest.mark.parametrize("page", ["docs/readme/explore.md"])
def test_documented_examples_give_the_same_outputs_run_twice(page: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    first = _run_all(ROOT / page)
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    second = _run_all(ROOT / page)
    assert len(first) >= 4  # the blocks that end in an expression
    assert second == first
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == files
    assert "mine.jsonl" in files and "run.parquet" in files
