"""docs/readme/journal.md's fault-table blocks are its stored files, and the stored head-index run says what the page
says in words: through a hard link in another folder without xattrs every cut was refused (all but the cut to zero
records where the inode generation is unknown), every one opened silently before the index, and no reused inode
number, repair, move or replacement was refused."""

import re
from pathlib import Path

from solvi_lab.journal_faults.page import BLOCK, regenerated

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "readme" / "journal.md"
STORED = ROOT / "results" / "benchmarks" / "faults_head_index.md"


def _rows() -> dict[str, dict[str, str]]:
    rows = {}
    for line in STORED.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and cells[2].isdigit():
            fault, _, tried, detected, other, silent, _, note = cells
            rows[fault] = {
                "tried": int(tried),
                "detected": int(detected.split()[0]),
                "other": other,
                "silent": int(silent),
                "note": note,
            }
    return rows


def test_the_page_is_rendered_from_its_stored_files():
    text = PAGE.read_text(encoding="utf-8")
    named = [m.group("file") for m in BLOCK.finditer(text)]
    assert "results/benchmarks/faults_head_index.md" in named
    assert regenerated(text, ROOT) == text, "run: python benchmarks/faults.py --only head_index (or render the page)"


def test_the_stored_head_index_run_says_what_the_page_says():
    rows = _rows()
    assert len(rows) == 14
    for fault, r in rows.items():
        assert r["other"] == "0", fault
        if fault.startswith("cut journal"):
            if "folder empty" in fault:
                assert r["silent"] == r["tried"] > 0 and r["detected"] == 0, fault
            elif "generation unknown" in fault:  # the cut to zero records, by a writer and a reader, two ways
                assert r["silent"] == 4 and r["detected"] == r["tried"] - 4, fault
            else:
                assert r["detected"] == r["tried"] > 0 and r["silent"] == 0, fault
        else:  # a refusal here is a false alarm
            assert r["detected"] == r["silent"] == 0, fault
            assert re.match(rf"{r['tried']} of {r['tried']} (opened|opens)", r["note"]), (fault, r["note"])
