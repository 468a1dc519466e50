"""Blocks rendered from a stored file (solvi_lab/sweep/stored_files.py): a benchmark's table or a stored sweep's,
written between `<!-- stored: PATH#WHICH -->` and `<!-- /stored -->` by `solvi-lab store-sweeps --blocks-only`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solvi_lab.errors import BadInput
from solvi_lab.sweep import stored, stored_files

BENCH_MD = """Measured 2026-11-30 18:27 on x86_64, 2 cores — `benchmarks/x.py --sizes 10`

| items | measure | ours |
|---:|---|---:|
| 10 | build (s) | 0.5 |

Second:

| impl | median (ms) |
|---|---:|
| a | 0.199 |
"""


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    (tmp_path / "docs" / "readme").mkdir(parents=True)
    (tmp_path / "docs" / "sweeps").mkdir()
    (tmp_path / "docs" / "sweeps" / "index.json").write_text("{}")
    (tmp_path / "results" / "benchmarks").mkdir(parents=True)
    (tmp_path / "results" / "benchmarks" / "x.md").write_text(BENCH_MD)
    rows = [{"n": 10000, "build_s": 0.25, "ok": True}, {"n": 100000, "build_s": 3.5, "ok": False}]
    data = {"date": "2026-12-01", "machine": "x86_64", "command": "x.py", "rows": rows}
    (tmp_path / "results" / "benchmarks" / "x.json").write_text(json.dumps(data))
    return tmp_path


def page_with(repo: Path, source: str, inside: str = "") -> Path:
    page = repo / "docs" / "readme" / "p.md"
    page.write_text(f"# P\n\nwords\n\n<!-- stored: {source} -->\n{inside}<!-- /stored -->\n\nafter\n")
    return page


def test_a_markdown_table_by_number_with_its_measured_line(repo: Path) -> None:
    page = page_with(repo, "results/benchmarks/x.md#2", "| typed | 1 |\n")
    assert stored.regenerate(repo / "docs", check=True) == [page]
    assert stored.regenerate(repo / "docs") == [page]
    assert page.read_text() == (
        "# P\n\nwords\n\n<!-- stored: results/benchmarks/x.md#2 -->\n\n"
        "| impl | median (ms) |\n|---|---:|\n| a | 0.199 |\n\n"
        "From [results/benchmarks/x.md](../../results/benchmarks/x.md) (Measured 2026-11-30 18:27 on x86_64, 2 cores — "
        "`benchmarks/x.py --sizes 10`). Generated from that file by `solvi-lab store-sweeps --blocks-only`; do not "
        "edit.\n\n<!-- /stored -->\n\nafter\n"
    )
    assert stored.regenerate(repo / "docs") == []  # idempotent


def test_a_markdown_table_by_its_first_header_cell_and_every_table(repo: Path) -> None:
    one = stored_files.render(repo, "results/benchmarks/x.md#items", repo / "docs" / "p.md")
    assert one.startswith("| items | measure | ours |\n|---:|---|---:|\n| 10 | build (s) | 0.5 |\n\nFrom ")
    both = stored_files.render(repo, "results/benchmarks/x.md", repo / "docs" / "p.md")
    assert "| items |" in both and "| impl |" in both


def test_rows_picked_by_name_and_a_stale_sweep_says_so(repo: Path) -> None:
    out = stored_files.render(repo, "results/benchmarks/x.md#impl:a", repo / "docs" / "p.md")
    assert out.startswith("| impl | median (ms) |\n|---|---:|\n| a | 0.199 |\n\nFrom ")
    stale = repo / "docs" / "sweeps" / "s.md"
    stale.write_text(
        "**Stale.** Swept before the rows changed.\n\nRan on commit `abc1234`, finished 2026-12-02.\n\n"
        "| figure | mean |\n|---|---|\n| f | 1 |\n| g | 2 |\n"
    )
    out = stored_files.render(repo, "docs/sweeps/s.md#figure:g", repo / "docs" / "readme" / "p.md")
    assert out == (
        "| figure | mean |\n|---|---|\n| g | 2 |\n\nFrom [docs/sweeps/s.md](../sweeps/s.md) (**stale**: its first "
        "line says why; Ran on commit `abc1234`, finished 2026-12-02). Generated from that file by `solvi-lab "
        "store-sweeps --blocks-only`; do not edit.\n"
    )


def test_json_rows_by_column(repo: Path) -> None:
    out = stored_files.render(repo, "results/benchmarks/x.json#rows:n,build_s,ok", repo / "docs" / "p.md")
    assert out == (
        "| n | build_s | ok |\n|---:|---:|---|\n| 10,000 | 0.25 | yes |\n| 100,000 | 3.5 | no |\n\n"
        "From [results/benchmarks/x.json](../results/benchmarks/x.json) (date: 2026-12-01; machine: x86_64; command: "
        "x.py). Generated from that file by `solvi-lab store-sweeps --blocks-only`; do not edit.\n"
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("results/benchmarks/nope.md", "results/benchmarks/nope.md, which does not exist"),
        ("results/benchmarks/x.md#3", "it has 2 tables; give a number from 1 to 2"),
        ("results/benchmarks/x.md#figure", "no table begins with that header cell; it has: impl, items"),
        ("results/benchmarks/x.json#rows:n,speed", "no row has speed"),
        ("results/benchmarks/x.md#impl:a;zz", "the table has no row 'zz'"),
        ("results/benchmarks/x.md#:a", "name one table"),
        ("results/benchmarks/x.json#table", "a JSON file's block is #rows"),
    ],
)
def test_a_bad_source_is_refused_naming_what_to_fix(repo: Path, source: str, message: str) -> None:
    page_with(repo, source)
    with pytest.raises(BadInput, match=message.replace("(", r"\(").replace(")", r"\)")):
        stored.regenerate(repo / "docs")


def test_unbalanced_markers_are_refused(repo: Path) -> None:
    page = repo / "docs" / "readme" / "p.md"
    page.write_text("<!-- stored: results/benchmarks/x.md -->\nno end\n")
    with pytest.raises(BadInput, match="has no <!-- /stored --> after it"):
        stored.regenerate(repo / "docs")
    page.write_text("text\n<!-- /stored -->\n")
    with pytest.raises(BadInput, match="without a <!-- stored: PATH --> before it"):
        stored.regenerate(repo / "docs")
