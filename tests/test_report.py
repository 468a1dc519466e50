"""The report builder on a hand-made results folder (no notebook execution)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solvi_lab import machine, report

COMPARISON = (
    "measure,ours,published,difference,holds,note\n"
    "mean depth,4.2,4.0,+0.2,—,<b>escaped</b> | pipe\n"
    "Protect beats Greedy,yes,claimed,—,NO,ordering does not hold\n"
)


@pytest.fixture
def results(tmp_path: Path) -> Path:
    (tmp_path / "machine.json").write_text(json.dumps(machine.describe()))
    ok = tmp_path / "risk_dungeon"
    ok.mkdir()
    (ok / "run.json").write_text(
        json.dumps(
            {
                "study": "risk_dungeon",
                "status": "ok",
                "quick": False,
                "seconds": 12.5,
                "executed": str(ok / "risk_dungeon.ipynb"),
                "defaults": {"seed": 7, "n_worlds": None, "quick": "os.environ.get(...)", "results_dir": "results"},
                "parameters": {"n_worlds": 200, "quick": False, "results_dir": str(tmp_path)},
            }
        )
    )
    (ok / "risk_dungeon.ipynb").write_text("{}")
    (ok / "comparison.csv").write_text(COMPARISON, encoding="utf-8")
    (ok / "depth by policy.png").write_bytes(b"\x89PNG\r\n")
    (ok / "per_world.csv").write_text("a\n1\n")
    (ok / "metrics.json").write_text(json.dumps({"mean_depth": 4.2}))
    failed = tmp_path / "retraction"
    failed.mkdir()
    (failed / "run.json").write_text(
        json.dumps(
            {
                "study": "retraction",
                "status": "failed",
                "quick": True,
                "seconds": 1.0,
                "message": "ValueError: boom (in code cell [3])",
                "parameters": {"seed": 1},
            }
        )
    )
    nodata = tmp_path / "taubench_action_model"
    nodata.mkdir()
    (nodata / "run.json").write_text(
        json.dumps({"study": "taubench_action_model", "status": "no_data", "message": "Set SOLVI_LAB_TAUBENCH=..."})
    )
    other = tmp_path / "zz_unregistered"
    other.mkdir()
    (other / "run.json").write_text(json.dumps({"study": "zz_unregistered", "status": "ok", "parameters": {}}))
    return tmp_path


def test_sections_in_registry_order_with_effective_parameters(results: Path) -> None:
    sections = report.collect(results)
    assert [s.name for s in sections] == ["retraction", "taubench_action_model", "risk_dungeon", "zz_unregistered"]
    dungeon = sections[2]
    assert dungeon.parameters == {"seed": 7, "n_worlds": 200, "quick": False}
    assert dungeon.seed == 7
    assert dungeon.figures == ["risk_dungeon/depth by policy.png"]
    assert dungeon.tables == ["risk_dungeon/per_world.csv"]


def test_markdown(results: Path) -> None:
    md_path, _ = report.build_report(results)
    md = md_path.read_text()
    assert "| measure | ours | published | difference | holds | note |" in md
    assert "| mean depth | 4.2 | 4.0 | +0.2 | — | <b>escaped</b> \\| pipe |" in md
    assert "![depth by policy](risk_dungeon/depth%20by%20policy.png)" in md
    assert "ValueError: boom" in md and "FAILED" in md
    assert "Set SOLVI_LAB_TAUBENCH=..." in md and "skipped — data missing" in md
    assert "| seed | 7 |" in md
    for key in ("CPU", "cores", "memory", "OS", "date (UTC)", "numpy", "networkx", "solvi_lab"):
        assert key in md


def test_html(results: Path) -> None:
    _, html_path = report.build_report(results)
    html = html_path.read_text()
    assert '<img src="risk_dungeon/depth%20by%20policy.png"' in html
    assert "&lt;b&gt;escaped&lt;/b&gt;" in html and "<b>escaped</b>" not in html
    assert '<td class="no" data-label="holds">NO</td>' in html
    assert '<a href="risk_dungeon/risk_dungeon.ipynb">executed notebook</a>' in html
    assert 'class="badge failed"' in html and 'class="badge no_data"' in html
    assert str(results) not in html.split("<h2>Machine")[1]  # links are relative, the folder can move


def test_only_named_studies(results: Path) -> None:
    md_path, _ = report.build_report(results, studies=["risk_dungeon"])
    md = md_path.read_text()
    assert "risk_dungeon" in md and "retraction" not in md


def test_missing_machine_and_empty_folder(tmp_path: Path) -> None:
    md_path, html_path = report.build_report(tmp_path)
    assert "no studies" in md_path.read_text()
    assert "unknown" in html_path.read_text()


def test_three_parts_counted_apart(tmp_path: Path) -> None:
    """A comparison with a part column: the report says how many claims, findings and mechanism checks hold."""
    study = tmp_path / "risk_dungeon"
    study.mkdir()
    (study / "run.json").write_text(json.dumps({"study": "risk_dungeon", "status": "ok", "parameters": {}}))
    (study / "comparison.csv").write_text(
        "part,key,measure,ours,published,difference,holds,threshold,note\n"
        "figure,,mean depth,4.2,4.0,+0.2,—,,\n"
        "claim (specification),depth_order,depth order,yes,yes,—,yes,none < Protect,\n"
        "claim (specification),far_fewer,far fewer deaths,0.3,0.08,—,NO,≤ 0.166,\n"
        "mechanism (by construction),replay,gate replay,True,—,—,yes,replay == live,\n",
        encoding="utf-8",
    )
    md_path, html_path = report.build_report(tmp_path)
    line = "claims of the specification: 1 of 2 hold (failing: far_fewer) · mechanism checks: 1 of 1 hold"
    assert f"**{line}**" in md_path.read_text()
    assert line in html_path.read_text()
    assert "our findings" not in md_path.read_text()  # no finding rows: no count


def test_seed_zero_section_says_how_to_get_intervals_and_links_the_stored_sweep(results: Path) -> None:
    md, html_path = report.build_report(results)
    text = md.read_text()
    # risk_dungeon ran at seed 7 with no sweep beside it: the note and the stored 20-seed sweep with date and commit
    assert "One seed (7): no intervals here. `solvi-lab reproduce --seeds 20`" in text
    stored = report.stored_sweep("risk_dungeon")  # written by `solvi-lab store-sweeps` from the sweep's own rows
    assert "Stored: [seeds 0-19 at full size](" in text and f"{stored['date']}, commit {stored['commit']}" in text
    link = text.split("Stored: [seeds 0-19 at full size](", 1)[1].split(")", 1)[0]
    # a copy inside the results folder, linked relatively: the link survives moving results/
    assert link == "stored-sweeps/risk_dungeon_full.md"
    source = report.registry.REPO_ROOT / "docs/sweeps/risk_dungeon_full.md"
    assert (results / link).read_text(encoding="utf-8") == source.read_text(encoding="utf-8")
    assert "One seed" not in text.split("## retraction", 1)[1].split("## ", 1)[0]  # failed: no note
    # with a sweep beside the table, the note goes
    sweep = results / "sweeps" / "risk_dungeon"
    sweep.mkdir(parents=True)
    (sweep / "SUMMARY.md").write_text("### Sweep of risk_dungeon\n\n| figure | mean |\n|---|---|\n| depth | 4.5 |\n")
    md, html_path = report.build_report(results)
    assert "One seed (7)" not in md.read_text()
    assert "<table><thead><tr><th>figure</th><th>mean</th></tr></thead>" in html_path.read_text()  # not a <pre>


def test_machine_rows_show_the_measured_load(results: Path) -> None:
    described = json.loads((results / "machine.json").read_text())
    described["load"], described["load_end"] = [2.5, 1.0, 0.25], [3.0, 1.5, 0.5]
    rows = dict(report._machine_rows(described))
    assert rows["load average, 1 / 5 / 15 min, at the start (measured)"] == "2.50 / 1.00 / 0.25"
    assert rows["load average, 1 / 5 / 15 min, at the end (measured)"] == "3.00 / 1.50 / 0.50"
    assert dict(report._machine_rows({}))["load average, 1 / 5 / 15 min, at the start (measured)"] == "not measured"


def test_html_drops_empty_columns_and_marks_long_text(tmp_path: Path) -> None:
    study = tmp_path / "example"
    study.mkdir()
    (study / "run.json").write_text(json.dumps({"study": "example", "status": "ok", "parameters": {"seed": 0}}))
    (study / "comparison.csv").write_text(
        "part,key,measure,ours,published,difference,holds,threshold,note\n"
        'figure,,estimate,"1,066","6,057","−4,991",—,,' + "a long note that wraps " * 5 + "\n",
        encoding="utf-8",
    )
    html = report.build_report(tmp_path)[1].read_text()
    table = html.split('<table class="wide">', 1)[1].split("</table>", 1)[0]
    assert "<th>key</th>" not in table and "<th>threshold</th>" not in table and "<th>holds</th>" not in table
    assert '<td class="num" data-label="ours">1,066</td>' in table
    assert '<td class="long" data-label="note">a long note' in table


def test_values_by_kind_and_differences_from_what_is_shown() -> None:
    from solvi_lab.studies.result import Comparison, comparison_table

    t = comparison_table(
        [
            Comparison("median component", 3505.5, 6057),
            Comparison("training transitions", 27639, 41626),
            Comparison("median retraction (s, incl. fingerprint)", 0.0001788, 0.19),
            Comparison("Spearman ρ", 0.6412, 0.88),
        ]
    )
    assert t["ours"].to_list() == ["3,506", "27,639", "179 µs", "0.641"]
    assert t["published"].to_list() == ["6,057", "41,626", "190 ms", "0.88"]
    assert t["difference"].to_list() == ["−2,551", "−13,987", "−190 ms", "−0.239"]


def test_caveats_printed_beside_the_tally(tmp_path: Path) -> None:
    """A study's caveats.json (StudyResult.caveats) is printed right under its tally, in Markdown and HTML; a study
    that saved none gets no caveat block."""
    for name, caveats in (
        ("risk_dungeon", ["'none' survives 0 of 120 games: the '< none' halves are forced"]),
        ("retraction", None),
    ):
        study = tmp_path / name
        study.mkdir()
        (study / "run.json").write_text(json.dumps({"study": name, "status": "ok", "parameters": {}}))
        (study / "comparison.csv").write_text(
            "part,key,measure,ours,published,difference,holds,threshold,note\nclaim (specification),a,a,1,1,—,yes,t,\n",
            encoding="utf-8",
        )
        if caveats is not None:
            (study / "caveats.json").write_text(json.dumps(caveats))
    md_path, html_path = report.build_report(tmp_path)
    md = md_path.read_text()
    dungeon = md[md.index("## risk_dungeon") :]
    tally = dungeon.index("**claims of the specification: 1 of 1 hold**")
    caveat = dungeon.index("- 'none' survives 0 of 120 games: the '< none' halves are forced")
    assert tally < dungeon.index("**Caveats**") < caveat < dungeon.index("| part |")
    assert md.count("**Caveats**") == 1  # retraction saved none
    page = html_path.read_text()
    assert "<li>&#x27;none&#x27; survives 0 of 120 games" in page and page.count('<ul class="caveats">') == 1


def test_a_rerun_clears_the_earlier_caveats(tmp_path: Path) -> None:
    """caveats.json is a file a run writes, so a rerun removes an earlier run's before the notebook saves its own."""
    from solvi_lab.reproduce import clear_stale

    (tmp_path / "caveats.json").write_text('["from an earlier run"]')
    (tmp_path / "notes.txt").write_text("kept")
    clear_stale(tmp_path)
    assert not (tmp_path / "caveats.json").exists() and (tmp_path / "notes.txt").exists()


def test_a_moved_results_folder_still_links_its_executed_notebooks(results: Path, tmp_path_factory) -> None:
    import shutil

    moved = tmp_path_factory.mktemp("elsewhere") / "results"
    shutil.copytree(results, moved)
    shutil.rmtree(results)  # run.json's absolute "executed" now points at nothing
    _, html_path = report.build_report(moved)
    html = html_path.read_text(encoding="utf-8")
    assert '<a href="risk_dungeon/risk_dungeon.ipynb">executed notebook</a>' in html
    assert '<a href="stored-sweeps/' in html and (moved / "stored-sweeps").is_dir()  # no link out of results/
    assert 'href="../' not in html
    assert str(results) not in html


def test_a_time_rows_label_does_not_say_seconds_beside_microseconds(results: Path) -> None:
    csv_path = results / "risk_dungeon" / "comparison.csv"
    csv_path.write_text(
        "measure,ours,published,difference,holds,note\n"
        "median retraction (s),179 µs,190 ms,-190 ms,—,\n"
        "\"rebuild (s, incl. fingerprint)\",1.20 s,2.00 s,-0.80 s,—,\n",
        encoding="utf-8",
    )
    md, html_path = report.build_report(results)
    for text in (md.read_text(encoding="utf-8"), html_path.read_text(encoding="utf-8")):
        assert "median retraction (s)" not in text and "rebuild (s," not in text
        assert "rebuild (incl. fingerprint)" in text and "179 µs" in text
    assert '<td data-label="measure">median retraction</td>' in html_path.read_text(encoding="utf-8")
