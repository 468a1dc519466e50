"""Numbers that cannot drift (issue 44): every figure a reader sees is rendered from a stored result.

1. Every rendered block of README.md and docs/ — every kind `solvi_lab/sweep/blocks.py` renders: the pass rates,
   the studies table, the tables of a stored file, the fault tables, the performance table — is rebuilt from its
   stored source by one call (`solvi-lab store-sweeps --blocks-only` writes it) and must equal the page.
2. A number in hand-written prose has no source. README.md and every page of docs/ (the stored sweeps aside: they
   are sources) hold none outside their rendered blocks, code and links (a small allow-list for versions, dates,
   issue numbers, seeds and commands). A figure is rendered from a stored result, a constant is named by its code
   (or shown in a Python block that asserts it, which `tests/test_readme.py` runs), and a figure of the past goes,
   verbatim and dated, to CHANGELOG's archive. A page that gains one fails, naming the numbers.
3. REPORT.md and report.html are generated whole by `solvi_lab/report.py` from a results folder: the same folder
   gives the same report, and a caveat attached to a comparison row is printed wherever that study's table is.

CHANGELOG.md is history: each entry is dated and its figures are as measured then, so it is not checked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from solvi_lab.sweep import blocks, headlines, stored

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"

# What is not prose: rendered blocks (every kind of `solvi_lab/sweep/blocks.py`, each rendered from its stored source
# and held to it: by this file's first test, or by the test its kind names), fenced and inline code, link targets,
# HTML comments.
_RENDERED = blocks.PATTERN
_CODE = re.compile(r"```.*?```|`[^`\n]*`", flags=re.S)
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
_COMMENT = re.compile(r"<!--.*?-->", flags=re.S)
# Numbers that are names, not figures: dates and times, versions, issue and commit references, seeds, powers of ten
# written with superscripts, the copyright year.
_ALLOWED = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?(?: UTC)?"  # dates, times
    r"|\b\d{1,2}:\d{2}(?::\d{2})? UTC"
    r"|(?:Python|python|solvi|Crafter|crafter|version|v)\s?[≥>=]*\s?\d+(?:\.\d+)+"  # versions
    r"|\b\d+\.\d+\.\d+\b"
    r"|\b[Ii]ssues? \d+(?:(?:, | and | & )\d+)*"
    r"|\b[0-9a-f]{7,12}\b(?=[^0-9a-f]|$)"  # commit hashes (checked below to hold a letter)
    r"|\bseeds? \d+(?:[–-]\d+)?"
    r"|\b10[⁰¹²³⁴⁵⁶⁷⁸⁹]+"
    r"|© \d{4}"
    r"|\bSHA-256\b|\bUTF-8\b|\bSystem [12]\b"  # names: the hash, the encoding, the specification's two systems
    r"|(?m:^[ \t]*\d{1,2}\.(?=[ \t]))"  # an ordered list's marker
)
_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*(?![\w])")


def prose(text: str) -> str:
    """The hand-written prose of a Markdown page: without rendered blocks, code, link targets and comments."""
    for pattern in (_RENDERED, _CODE, _LINK_TARGET, _COMMENT):
        text = pattern.sub(" ", text)
    return text


def unsourced(text: str) -> list[str]:
    """The numbers of a page's prose that are not names (see `_ALLOWED`), in order.

    >>> unsourced("On 2026-12-03 (issue 44, Python ≥ 3.11, seeds 0-2) it took 2 min 58 s: `x = 3`, 1,737 passed.")
    ['2', '58', '1,737']
    >>> unsourced("<!-- sweep-pass-rates: a full -->\\n| 20/20 |\\n<!-- /sweep-pass-rates -->\\ncommit f12bad3, 10⁶ items")
    []
    """
    cleaned = _ALLOWED.sub(lambda m: " " if _is_name(m.group(0)) else m.group(0), prose(text))
    return [m.group(0).rstrip(".,") for m in _NUMBER.finditer(cleaned)]


def _is_name(token: str) -> bool:
    """A hex-looking token is a commit only with a letter in it (a plain 1234567 is a number)."""
    if re.fullmatch(r"[0-9a-f]{7,12}", token):
        return bool(re.search(r"[a-f]", token))
    return True


def pages() -> list[Path]:
    """README and every docs page but the stored sweeps (sources themselves)."""
    return [README, *[p for p in sorted(DOCS.rglob("*.md")) if (DOCS / "sweeps") not in p.parents]]


def test_every_rendered_block_is_what_its_stored_source_gives() -> None:
    stale = [str(p.relative_to(ROOT)) for p in stored.regenerate(DOCS, check=True)]
    assert stale == [], f"rendered blocks out of date: {stale}; run `solvi-lab store-sweeps --blocks-only`"
    readme = README.read_text(encoding="utf-8")
    assert readme.count(headlines.BEGIN) == 1  # the studies table is README's one figure-bearing table


def test_every_generated_block_is_of_a_listed_kind() -> None:
    """A block whose end marker names no kind of `blocks.KINDS` would be counted as prose (its figures as typed) and
    rendered by nothing: every kind on the pages is listed, with its renderer or the test that holds it."""
    names = {k.name for k in blocks.KINDS}
    found = {m for p in pages() for m in re.findall(r"<!-- /([a-z0-9-]+) -->", p.read_text(encoding="utf-8"))}
    assert found - names == set()
    assert {"stored", "sweep-pass-rates", "studies-table", "fault-table", "perf-table"} <= found


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_holds_a_hand_typed_number(page: Path) -> None:
    found = unsourced(page.read_text(encoding="utf-8"))
    assert found == [], (
        f"{page.relative_to(ROOT)}: numbers in prose with no source: {found}; render each from a stored result "
        "(a `stored` block, a sweep block), name a constant by its code, or move a past figure to CHANGELOG's archive"
    )


def test_the_front_door_and_every_docs_page_are_checked() -> None:
    checked = {str(p.relative_to(ROOT)) for p in pages()}
    assert {"README.md", "docs/ARCHITECTURE.md", "docs/readme/crafter.md", "docs/readme/actions.md"} <= checked
    assert not any(p.startswith("docs/sweeps/") for p in checked)  # stored sweeps are sources, not prose


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("it took 2 min 58 s", ["2", "58"]),
        ("Spearman ρ 0.88, and 6,057 of 10,000.", ["0.88", "6,057", "10,000"]),
        ("on 2026-12-03 at 10:14 UTC, commit e3cfd01, issue 44", []),
        ("flaw10 and x86_64 and k2 are names", []),
        ("a SHA-256 of 3 UTF-8 lines", ["3"]),
        ("1. ask System 2\n  2. then 4.5 s", ["4.5"]),
        ("1234567 is not a commit", ["1234567"]),
        ("`code 42` and [link](a/b/3.md) and <!-- 7 -->", []),
    ],
)
def test_what_counts_as_a_number(text: str, found: list[str]) -> None:
    assert unsourced(text) == found


def test_a_report_is_generated_whole_from_its_results_folder(tmp_path: Path) -> None:
    """REPORT.md and report.html hold nothing typed by hand: the same results folder gives the same report, and a
    row's caveats (saved with the study's caveats) are printed beside its table in both formats."""
    from solvi_lab import machine, report
    from solvi_lab.studies.result import Comparison, StudyResult

    (tmp_path / "machine.json").write_text(json.dumps(machine.describe()))
    study = tmp_path / "risk_dungeon"
    study.mkdir()
    result = StudyResult(
        "risk_dungeon",
        {"seed": 0},
        {},
        comparison=[Comparison("a", 1, 2, holds=True, kind="mechanism", key="a", caveats=("near-forced",))],
    )
    (study / "run.json").write_text(json.dumps({"study": "risk_dungeon", "status": "ok", "parameters": {"seed": 0}}))
    result.comparison_frame().write_csv(study / "comparison.csv")
    (study / "caveats.json").write_text(json.dumps(result.caveats))
    md1, html1 = (p.read_text(encoding="utf-8") for p in report.build_report(tmp_path))
    md2, html2 = (p.read_text(encoding="utf-8") for p in report.build_report(tmp_path))
    strip = re.compile(r"(generated|date \(UTC\)|load)[^\n]*")  # the build's own clock
    assert strip.sub("", md1) == strip.sub("", md2) and strip.sub("", html1) == strip.sub("", html2)
    assert "a: near-forced" in md1 and "a: near-forced" in html1


def test_no_study_title_or_description_states_a_size() -> None:
    """A title or description is printed in every report, quick or full, so it may not state a size (issue 44: a
    quick REPORT said "20 streams × 30 games" and "115 test tasks held out"); the run's parameters give the sizes."""
    import importlib

    from solvi_lab.studies import registry

    size = re.compile(r"\d[\d,]* (?:items|streams|worlds|games|retractions|test tasks|training tasks|seeds)\b")
    stated = {}
    for name, info in registry.STUDIES.items():
        module = importlib.import_module(info.module)
        for field in ("TITLE", "DESCRIPTION"):
            found = size.findall(str(getattr(module, field, "")))
            if found:
                stated[f"{name}.{field}"] = found
    assert stated == {}
    assert size.findall("Retraction (10,000 items, 1,000 retractions)") == ["10,000 items", "1,000 retractions"]


def test_no_study_description_states_a_count_its_quick_size_changes() -> None:
    """Whatever its unit: a number in a title or description that a parameter's full default or meaning holds,
    where the quick default differs, is a full size printed in a quick report (telecom's "all 2,285 gold replays"
    when the quick run replays the base set)."""
    import importlib

    from solvi_lab.studies import registry

    number = re.compile(r"\d[\d,]*(?:\.\d+)?")
    stated = {}
    for name, info in registry.STUDIES.items():
        module = importlib.import_module(info.module)
        spec = getattr(module, "PARAMS", None)
        sized = set()
        for param in spec or ():
            if param.full != param.quick:
                sized |= set(number.findall(f"{param.full} {param.meaning}"))
        for field in ("TITLE", "DESCRIPTION"):
            found = sorted(set(number.findall(str(getattr(module, field, "")))) & sized)
            if found:
                stated[f"{name}.{field}"] = found
    assert stated == {}
    assert number.findall("full: all 2,285; base: 114") == ["2,285", "114"]
