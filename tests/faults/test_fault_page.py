"""docs/readme/journal.md's fault-table blocks are its stored files, and the stored head-index run says what the page
says in words: through a hard link in another folder without xattrs every cut was refused (the cut to zero records
too, with the inode generation and without it), every one opened silently before the index, and no reused inode
number, repair, move or replacement was refused — but for the one documented false alarm (an empty file made by
hand at a deleted journal's name on its inode number, generation unknown), which Journal.forget_head accepted."""

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
    assert len(rows) == 18
    for fault, r in rows.items():
        assert r["other"] == "0", fault
        if fault.startswith("cut journal"):
            if "folder empty" in fault:
                assert r["silent"] == r["tried"] > 0 and r["detected"] == 0, fault
            else:  # with the generation and without it: the cut to zero records too
                assert r["detected"] == r["tried"] > 0 and r["silent"] == 0, fault
        elif fault.startswith("empty file made by hand") and "generation unknown" in fault:
            # the one documented false alarm: refused every time, and Journal.forget_head accepted each file
            assert r["detected"] == r["tried"] > 0 and r["silent"] == 0, fault
            m = re.search(r"Journal.forget_head then accepted (\d+) of (\d+) refused files", r["note"])
            assert m and m.group(1) == m.group(2) and 2 * int(m.group(1)) == r["tried"], (fault, r["note"])
        elif fault.startswith("empty file made by hand"):  # the generation tells a new file: it opens
            assert r["detected"] == r["silent"] == 0, fault
            assert r["note"].startswith(f"opened {r['tried']} of {r['tried']}, refused 0"), (fault, r["note"])
        else:  # a refusal here is a false alarm
            assert r["detected"] == r["silent"] == 0, fault
            assert re.match(rf"{r['tried']} of {r['tried']} (opened|opens)", r["note"]), (fault, r["note"])


def test_the_full_run_on_the_page_holds_issue40s_and_the_snapshots_rows():
    # One full run is rendered (benchmarks/faults.py stores results/benchmarks/faults.md); `--only issue40` and
    # `--only snapshot` store the same rows alone, so the page shows them once, inside the full run.
    text = PAGE.read_text(encoding="utf-8")
    named = [m.group("file") for m in BLOCK.finditer(text)]
    assert "results/benchmarks/faults.md" in named
    full = (ROOT / "results" / "benchmarks" / "faults.md").read_text(encoding="utf-8")
    for row in (
        "| threads reading beside writers: episodes",
        "| fold snapshot forged (edited, re-digested) | sqlite",
        "| fold snapshot write on a full disk",
        "| bad input at every Journal entry point",
    ):
        assert row in full, row
