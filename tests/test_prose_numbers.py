"""Numbers that cannot drift (issue 44): every figure a reader sees is rendered from a stored result.

1. Every rendered block of README.md and docs/ (the pass-rate blocks and the studies table of
   `solvi_lab/sweep/stored.py` and `headlines.py`) is rebuilt from its stored source and must equal the page.
2. A number in hand-written prose has no source. README.md, the front door, may hold none (outside its rendered
   blocks, code and links; a small allow-list for versions, dates, issue numbers, seeds and commands). The pages of
   docs/ hold archives typed at the time (each names its date); their count of unsourced numbers is recorded in
   `data/expected/prose_numbers.json` and may only go down: a page that gains one fails, naming it. After removing
   some, lower the record with `python tests/test_prose_numbers.py`.
3. REPORT.md and report.html are generated whole by `solvi_lab/report.py` from a results folder: the same folder
   gives the same report, and a caveat attached to a comparison row is printed wherever that study's table is.

CHANGELOG.md is history: each entry is dated and its figures are as measured then, so it is not checked.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from solvi_lab.sweep import headlines, stored

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
RECORD = ROOT / "data" / "expected" / "prose_numbers.json"

# What is not prose: rendered blocks, fenced and inline code, link targets, HTML comments, tables of stored files.
_RENDERED = re.compile(
    r"<!--\s*sweep-pass-rates:.*?<!--\s*/sweep-pass-rates\s*-->|"
    + re.escape(headlines.BEGIN)
    + r".*?"
    + re.escape(headlines.END)
    # the action model's defaults and full-run tables, rendered by solvi_lab/studies/taubench/defaults.py from
    # docs/sweeps/taubench_*defaults.json (tests/studies/test_taubench_defaults.py holds them to their files)
    + r"|<!-- taubench-defaults:.*?<!-- /taubench-defaults -->|<!-- taubench-full:.*?<!-- /taubench-full -->"
    # Crafter's default training, rendered by solvi_lab/studies/crafter/defaults.py from docs/sweeps/crafter_defaults.json
    # (tests/studies/test_crafter_defaults.py holds it to its file)
    + r"|<!-- crafter-defaults:.*?<!-- /crafter-defaults -->|<!-- crafter-heldout:.*?<!-- /crafter-heldout -->"
    # its held-out figures and requirements table, rendered by solvi_lab/studies/crafter/heldout.py from
    # results/crafter/heldout.json (tests/studies/test_crafter_heldout.py holds them to their file)
    + r"|<!-- crafter-requirements:.*?<!-- /crafter-requirements -->"
    # the journal page's fault tables, rendered by solvi_lab/journal_faults/page.py from results/benchmarks/faults_*.md
    # (tests/faults/test_fault_page.py holds them to their files)
    + r"|<!-- fault-table:.*?<!-- /fault-table -->"
    # a table of a stored file (a benchmark's output, a stored sweep), rendered by solvi_lab/sweep/stored_files.py
    + r"|<!-- stored:.*?<!-- /stored -->"
    # the performance table, rendered by benchmarks/perf_page.py from results/benchmarks/issue42/ (tests/test_perf_page.py)
    + r"|<!-- perf-table -->.*?<!-- /perf-table -->",
    flags=re.S,
)
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


def counts() -> dict[str, int]:
    return {str(p.relative_to(ROOT)): len(unsourced(p.read_text(encoding="utf-8"))) for p in pages()}


def test_every_rendered_block_is_what_its_stored_source_gives() -> None:
    stale = [str(p.relative_to(ROOT)) for p in stored.regenerate(DOCS, check=True)]
    assert stale == [], f"rendered blocks out of date: {stale}; run `solvi-lab store-sweeps --blocks-only`"
    readme = README.read_text(encoding="utf-8")
    assert readme.count(headlines.BEGIN) == 1  # the studies table is README's one figure-bearing table


def test_the_front_door_holds_no_hand_typed_number() -> None:
    found = unsourced(README.read_text(encoding="utf-8"))
    assert found == [], f"README.md: numbers in prose with no source: {found}; render them or drop them"


def test_hand_typed_numbers_in_the_docs_only_go_down() -> None:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    now = counts()
    grew = {p: (record.get(p, 0), n) for p, n in now.items() if n > record.get(p, 0)}
    assert grew == {}, (
        f"pages with more hand-typed numbers than recorded (recorded, now): {grew}; render each from a stored result "
        "(a sweep block, the studies table) instead of typing it"
    )
    fell = {p: (record.get(p, 0), n) for p, n in now.items() if n < record.get(p, 0)}
    assert fell == {}, f"fewer hand-typed numbers than recorded: {fell}; lower the record: python {__file__}"
    assert set(record) == set(now), "a page was added or removed: python tests/test_prose_numbers.py"


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


def _write_record() -> None:
    RECORD.write_text(json.dumps(counts(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"recorded {RECORD.relative_to(ROOT)}: {sum(counts().values())} hand-typed numbers on {len(counts())} pages")


if __name__ == "__main__":
    sys.exit(_write_record())
