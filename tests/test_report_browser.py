"""report.html of a quick run, in a real headless browser (Debian's chromium): it fits a 1,400-px window, every
image loads, every link resolves. The checker itself is first shown to catch each of those faults.

Without chromium these tests are skipped with one line saying how to get it, so README's test command passes on a
machine without a browser; with `CI` set (`.ci/run` exports `CI=1` and installs chromium) a missing browser fails."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from solvi_lab import browsercheck, report, reproduce
from solvi_lab.errors import SolviLabError


def chromium_or_skip() -> str:
    """The chromium binary; without one, a skip that says how to get it — or, in CI (`CI` set), a failure."""
    found = browsercheck.find_chromium()
    if found is not None:
        return found
    why = f"no chromium on PATH for the browser check of report.html; install it: `{browsercheck.INSTALL}`"
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"{why} (CI is set: .ci/run installs it, so a missing browser is a failure there)")
    pytest.skip(why)


@pytest.fixture(scope="module")
def chromium() -> str:
    return chromium_or_skip()


def _no_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOLVI_LAB_CHROMIUM", raising=False)
    monkeypatch.setattr(browsercheck.shutil, "which", lambda name: None)


def test_without_chromium_the_browser_tests_are_skipped_with_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_browser(monkeypatch)
    for unset in (None, "", "0", "false"):
        if unset is None:
            monkeypatch.delenv("CI", raising=False)
        else:
            monkeypatch.setenv("CI", unset)
        with pytest.raises(pytest.skip.Exception) as skipped:
            chromium_or_skip()
        assert str(skipped.value) == (
            "no chromium on PATH for the browser check of report.html; "
            "install it: `apt-get update && apt-get install -y chromium`"
        )
        assert "\n" not in str(skipped.value)


def test_without_chromium_in_ci_the_browser_tests_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_browser(monkeypatch)
    for ci in ("1", "true"):
        monkeypatch.setenv("CI", ci)
        with pytest.raises(pytest.fail.Exception, match=r"install it: `apt-get update && apt-get install -y chromium`"):
            chromium_or_skip()


def test_with_chromium_on_path_it_is_used_whatever_ci_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOLVI_LAB_CHROMIUM", raising=False)
    monkeypatch.setattr(browsercheck.shutil, "which", lambda name: "/opt/x/chromium" if name == "chromium" else None)
    for ci in ("1", None):
        if ci is None:
            monkeypatch.delenv("CI", raising=False)
        else:
            monkeypatch.setenv("CI", ci)
        assert chromium_or_skip() == "/opt/x/chromium"


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


def test_a_phone_width_narrower_than_chromiums_window_is_measured_at_that_width(chromium: str, tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        "<html><body style='margin:0'><div id='box' style='width:450px'>x</div><p>short</p></body></html>",
        encoding="utf-8",
    )
    phone = browsercheck.check_page(tmp_path / "page.html", width=390)
    assert (phone.width, phone.scroll_width) == (390, 450)
    assert phone.problems()[0] == "the page scrolls sideways: 450 px wide in a 390-px window"
    assert any(p.startswith("overflows the window: div#box") for p in phone.problems())
    assert browsercheck.check_page(tmp_path / "page.html", width=1400).problems() == []


@pytest.mark.parametrize("width", [390, 1400])
def test_quick_report_fits_a_phone_and_a_desktop_every_image_loads_every_link_resolves(
    chromium: str, quick_report: Path, width: int
) -> None:
    found = browsercheck.check_page(quick_report, width=width)
    assert found.width == width and found.problems() == []
    assert found.links > 10  # the summary's anchors, executed notebooks, stored sweeps: really checked
    assert found.images_smallest_px >= 300  # figures at a readable size, not thumbnails
    html = quick_report.read_text(encoding="utf-8")
    for run_json in sorted(quick_report.parent.glob("*/run.json")):  # every study's time, from its run
        run = json.loads(run_json.read_text(encoding="utf-8"))
        if run["status"] == "ok":
            assert f'<td class="num" data-label="time (s)">{run["seconds"]:g}</td>' in html
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


def test_ci_run_exports_ci_before_readmes_test_command() -> None:
    """.ci/run sets CI as its own line before the test command (which stays README's, word for word)."""
    lines = [ln.strip() for ln in (Path(__file__).parents[1] / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    test_line = next(i for i, ln in enumerate(lines) if ln.startswith("MPLBACKEND") and "pytest" in ln)
    assert "export CI=1" in lines[:test_line]
    assert "CI=" not in lines[test_line].replace("SOLVI_LAB_QUICK=1", "")
