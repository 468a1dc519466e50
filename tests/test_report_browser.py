"""report.html of a quick run, in a real headless browser (Debian's chromium): it fits a 1,400-px window, every
image loads, every link resolves. The checker itself is first shown to catch each of those faults."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from solvi_lab import browsercheck, report, reproduce
from solvi_lab.errors import SolviLabError


@pytest.fixture(scope="module")
def chromium() -> str:
    found = browsercheck.find_chromium()
    if found is None:  # CI installs it (.ci/run); a missing browser is a failure with the fix, never a skip
        pytest.fail(f"no chromium on PATH; install it: `{browsercheck.INSTALL}`")
    return found


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """$SOLVI_LAB_REPORT_DIR (a quick run already made), else every study's quick run, made here."""
    given = os.environ.get("SOLVI_LAB_REPORT_DIR")
    if given:
        return Path(given) / "report.html"
    out = tmp_path_factory.mktemp("quick_run")
    runs = reproduce.reproduce(out, quick=True, progress=False)
    assert [r.study for r in runs if r.failed] == []
    return out / "report.html"


def test_the_checker_catches_overflow_broken_images_and_dead_links(chromium: str, tmp_path: Path) -> None:
    (tmp_path / "there.png").write_bytes(_png(40, 20))
    (tmp_path / "page.html").write_text(
        "<!DOCTYPE html><html><body><h2 id='top'>t</h2>"
        "<table id='wide'><tr><td style='white-space:nowrap'>" + "a-long-cell " * 300 + "</td></tr></table>"
        "<img src='there.png'><img src='missing.png'>"
        "<a href='#top'>ok</a> <a href='#gone'>x</a> <a href='there.png'>ok</a> <a href='nowhere.md'>x</a>"
        "</body></html>",
        encoding="utf-8",
    )
    found = browsercheck.check_page(tmp_path / "page.html", width=1400)
    problems = found.problems()
    assert found.width == 1400 and found.scroll_width > 1400
    assert any(p.startswith("overflows the window: table#wide") for p in problems)
    assert found.broken_images == ["missing.png"]
    assert found.broken_links == ["page.html#gone (no element with that id)", "nowhere.md (no such file)"]
    assert found.links == 4
    assert not list(tmp_path.glob(".browsercheck-*"))  # the probe copy is removed


def test_a_page_that_fits_has_no_problems(chromium: str, tmp_path: Path) -> None:
    (tmp_path / "fig.png").write_bytes(_png(600, 300))
    (tmp_path / "page.html").write_text(
        "<html><body style='margin:0'><p id='a'>" + "words wrap " * 400 + "</p><img src='fig.png'>"
        "<a href='#a'>a</a></body></html>",
        encoding="utf-8",
    )
    assert browsercheck.check_page(tmp_path / "page.html").problems() == []


def test_a_missing_page_says_so(tmp_path: Path) -> None:
    with pytest.raises(SolviLabError, match="does not exist; build it first"):
        browsercheck.check_page(tmp_path / "report.html")


def test_quick_report_fits_1400_px_every_image_loads_every_link_resolves(chromium: str, quick_report: Path) -> None:
    found = browsercheck.check_page(quick_report, width=1400)
    assert found.problems() == []
    assert found.links > 10  # the summary's anchors, executed notebooks, stored sweeps: really checked
    assert found.images_smallest_px >= 300  # figures at a readable size, not thumbnails
    html = quick_report.read_text(encoding="utf-8")
    assert "solvi-lab reproduce --seeds 20" in html  # seed 0 only: how to get intervals
    stored = report.stored_sweep("risk_dungeon")  # the stored sweeps, with their date and commit
    assert stored is not None and f"commit {stored['commit']}" in html


def _png(width: int, height: int) -> bytes:
    """A valid grey PNG of that size (zlib + the PNG chunks; no image library needed)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
