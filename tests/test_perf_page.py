"""The performance page's table (docs/readme/performance.md) is rendered from stored benchmark outputs (issue 42):
the page must equal what `benchmarks/perf_page.py` renders from `results/benchmarks/issue42/`, and the renderer
shows each stream's own figure with its floor, ratio, load and goal mark, or says a stream was not measured."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import perf_page  # noqa: E402


def test_the_page_holds_what_the_stored_outputs_render() -> None:
    """The performance page always holds the block; README too once it has the markers."""
    want = perf_page.render()
    for page in perf_page.PAGES:
        text = page.read_text(encoding="utf-8")
        block = perf_page._BLOCK.search(text)
        if page.name == "README.md" and block is None:
            continue
        assert block is not None, f"{page.name} lost its perf-table markers"
        assert block.group(0) == want, f"{page.name} is stale: run python benchmarks/perf_page.py"


def test_each_stream_shows_its_own_figure_floor_ratio_and_load(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(perf_page, "ROOT", tmp_path)
    results = tmp_path / "r"
    results.mkdir()
    row = {
        "impl": "solvi_lab",
        "n": 1_000_000,
        "build_s": 100.0,
        "write_floor_s": 20.0,
        "retract_p99_s": 0.012,
        "retractions": 200,
        "append_p99_floor_s": 0.0001,
        "peak_rss_mb": 2048.0,
        "journal_mb": 400.0,
        "rebuild_jsonl_s": 30.0,
        "floor_s": 10.0,
        "load_start": 1.2,
        "load_end": 1.6,
    }
    (results / "store_scale_1e6_derived_keys.json").write_text(json.dumps({"date": "2026-12-04 19:00", "rows": [row]}))
    opens = [
        {
            "code": "solvi_lab",
            "profile": "derived-keys",
            "snapshot": s,
            "n": 1_000_000,
            "open_item_fingerprint_s": v,
            "floor_s": f,
            "load": 1.4,
        }
        for s, v, f in ((True, 4.0, 0.5), (False, 41.0, 20.5))
    ]
    (results / "open_wait_1e6.json").write_text(json.dumps(opens))
    lines = perf_page.render(results).splitlines()
    assert lines[0] == perf_page.BEGIN and lines[-1] == perf_page.END
    cells = {ln.split(" | ")[0][2:]: ln.split(" | ")[2:] for ln in lines if ln.startswith("| ") and "goal" not in ln}
    got = {k.split(" (floor")[0]: v for k, v in cells.items()}
    assert got["open with a fold snapshot → first item → fingerprint"] == [
        "not measured",
        "**4.00 s** ✓ (floor 0.50 s, 8.0×; load 1.4) |",
    ]
    assert (
        got["open without a snapshot → first item → fingerprint"][1]
        == "**41.00 s** ✗ (floor 20.50 s, 2.0×; load 1.4) |"
    )
    assert got["build: every write resolved and journaled"][1] == "**100.00 s** ✓ (floor 20.00 s, 5.0×; load 1.2–1.6) |"
    assert got["retraction + fingerprint, p99"][1] == "**12.00 ms over 200** ✗ (floor 0.10 ms, 120.0×; load 1.2–1.6) |"
    assert got["peak memory"][1] == "**2.00 GiB** ✓ (floor 400 MB, 5.1×; load 1.2–1.6) |"
    assert (
        got["10⁶ full rebuild from the journal, up to the fingerprint"][1]
        == "**30.00 s** (floor 10.00 s, 3.0×; load 1.2–1.6) |"
    )
    assert "items: 1,000,000" in lines[-3]


def test_the_newest_dated_output_of_each_stream_is_the_one_rendered(tmp_path) -> None:
    """Dated outputs (`--name store_scale_1e6_<date>`, store_scale.py appending the stream) win over the plain name,
    the latest date first; one stream's file never stands for another's."""
    for name in (
        "store_scale_1e6.json",
        "store_scale_1e6_derived_keys.json",
        "store_scale_1e6_2026-12-04_derived_keys.json",
        "store_scale_1e6_2026-12-05_derived_keys.json",
        "store_scale_1e6_2026-12-05.json",
        "open_wait_1e6.json",
        "open_wait_1e6_default.json",
    ):
        (tmp_path / name).write_text("{}")
    assert perf_page._newest(tmp_path, "store_scale_1e6").name == "store_scale_1e6_2026-12-05.json"
    got = perf_page._newest(tmp_path, "store_scale_1e6", "_derived_keys").name
    assert got == "store_scale_1e6_2026-12-05_derived_keys.json"
    assert perf_page._newest(tmp_path, "open_wait_1e6").name == "open_wait_1e6.json"  # not another file's stem
    assert perf_page._newest(tmp_path, "store_scale_1e5") is None
