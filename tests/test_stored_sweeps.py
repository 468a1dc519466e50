"""`solvi-lab store-sweeps` (solvi_lab/sweep/stored.py): storing a sweep, generating the docs' pass-rate blocks,
and the repository's docs in sync with docs/sweeps/ — a pass rate typed by hand or left stale fails here.

The unit tests build a tiny sweep folder by hand (sweep.parquet through the real summary code, SUMMARY.md), so
they run no study.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from solvi_lab import cli
from solvi_lab.errors import BadInput
from solvi_lab.studies import registry
from solvi_lab.sweep import declared, stored, summary

COMMIT = "abcdef012345"
FINISHED = ["2026-12-01T10:00:00+00:00", "2026-12-01T10:00:05+00:00", "2026-12-02T00:00:01+00:00"]


def make_sweep(
    folder: Path,
    *,
    study: str = "toy",
    commits: list[Any] | None = None,
    quick: bool = False,
    seeds: tuple[int, ...] = (0, 1, 2),
    summary_md: bool = True,
) -> Path:
    """A sweep folder as `solvi-lab sweep` leaves it: sweep.parquet (rows) and SUMMARY.md (from those rows)."""
    n = len(seeds)
    commits = commits if commits is not None else [COMMIT] * n
    frame = pl.DataFrame(
        {
            "study": [study] * n,
            "point": [f"p{s}" for s in seeds],
            "seed": list(seeds),
            "quick": [quick] * n,
            "params": ["{}"] * n,
            "c.holds_always": [True] * n,
            "c.holds_once": [True] + [False] * (n - 1),
            "c.a_mechanism": [True] * n,
            "parts": [json.dumps({"holds_always": "claim", "holds_once": "finding", "a_mechanism": "mechanism"})] * n,
            "published": ["{}"] * n,
            "commit": commits,
            "error": [None] * n,
            "finished": FINISHED[:n],
        },
        schema_overrides={"commit": pl.String, "error": pl.String},
    )
    folder.mkdir(parents=True, exist_ok=True)
    frame.write_parquet(folder / "sweep.parquet")
    if summary_md:
        md = summary.markdown(frame, summary.summarize(frame), study=study)
        (folder / "SUMMARY.md").write_text(md, encoding="utf-8")
    return folder


PAGE = """# A page

Text above.

<!-- sweep-pass-rates: toy full -->
an old, hand-typed table
<!-- /sweep-pass-rates -->

Text below.
"""

BLOCK = """<!-- sweep-pass-rates: toy full -->

| part | checked row | passes | 95% interval |
|---|---|---:|---|
| claim | `holds_always` | 3/3 | [0.44, 1.00] |
| finding | `holds_once` | 1/3 | [0.06, 0.79] |
| mechanism | `a_mechanism` | 3/3 | [0.44, 1.00] |

Seeds 0-2 at full size: 3 points, 0 raised; `solvi-lab sweep` at commit `abcdef012345`, last point finished 2026-12-02. Every metric and figure: [toy_full.md](../sweeps/toy_full.md). Generated from that file by `solvi-lab store-sweeps`; do not edit by hand.

<!-- /sweep-pass-rates -->
"""


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """(results, docs): one full-size sweep of "toy" in results/toy, a page with its block in docs/readme."""
    results, docs = tmp_path / "results" / "sweeps", tmp_path / "docs"
    make_sweep(results / "toy")
    (docs / "readme").mkdir(parents=True)
    (docs / "readme" / "page.md").write_text(PAGE, encoding="utf-8")
    return results, docs


def test_entry_is_read_from_the_sweeps_own_rows(tree: tuple[Path, Path]) -> None:
    results, _ = tree
    assert stored.entry(results / "toy", machine="m") == {
        "commit": COMMIT,
        "date": "2026-12-02",  # the last finished point's day (UTC), not the first's
        "file": "toy_full.md",
        "machine": "m",
        "points": 3,
        "raised": 0,
        "seeds": "0-2",
        "size": "full",
        "study": "toy",
    }
    assert stored.seeds_text([9, 0, 1, 2, 5, 10]) == "0-2,5,9-10"
    assert re.fullmatch(r".+, \d+ cores, (\d+ GiB|memory unknown), Python \d+\.\d+\.\d+", stored.machine_text())


def test_store_copies_the_summary_writes_the_index_and_the_block(tree: tuple[Path, Path]) -> None:
    results, docs = tree
    index_before = {"other:quick": {"commit": "c", "file": "other_quick.md", "study": "other", "size": "quick"}}
    (docs / "sweeps").mkdir()
    (docs / "sweeps" / "index.json").write_text(json.dumps(index_before))
    written = stored.store(stored.find(results, ["toy:full"]), docs)
    assert written == [docs / "sweeps" / "toy_full.md", docs / "sweeps" / "index.json"]
    assert (docs / "sweeps" / "toy_full.md").read_text() == (results / "toy" / "SUMMARY.md").read_text()
    index = json.loads((docs / "sweeps" / "index.json").read_text())
    assert list(index) == ["other:quick", "toy:full"]  # the other entries kept, keys sorted
    assert index["toy:full"] == {**stored.entry(results / "toy"), "machine": stored.machine_text()}
    page = docs / "readme" / "page.md"
    assert stored.regenerate(docs, check=True) == [page]
    assert page.read_text() == PAGE  # --check writes nothing
    assert stored.regenerate(docs) == [page]
    assert page.read_text() == PAGE.replace(
        "<!-- sweep-pass-rates: toy full -->\nan old, hand-typed table\n<!-- /sweep-pass-rates -->\n", BLOCK
    )
    assert stored.regenerate(docs) == []  # idempotent
    # the block needs docs/sweeps/ only: with the results gone it regenerates the same
    for f in (results / "toy").iterdir():
        f.unlink()
    assert stored.regenerated(page, docs) == page.read_text()


@pytest.mark.parametrize(
    ("commits", "message"),
    [
        (
            [COMMIT, COMMIT, COMMIT + "+dirty"],
            f"ran on {COMMIT}, {COMMIT}+dirty ({COMMIT}+dirty: not one clean commit)",
        ),
        ([COMMIT, "0123456789ab", COMMIT], f"ran on 0123456789ab, {COMMIT};"),
        (["unknown"] * 3, "ran on unknown (unknown: not one clean commit)"),
        ([None] * 3, "ran on not recorded (not recorded: not one clean commit)"),
    ],
)
def test_a_dirty_unknown_or_mixed_sweep_is_refused(tmp_path: Path, commits: list[Any], message: str) -> None:
    folder = make_sweep(tmp_path / "toy", commits=commits)
    with pytest.raises(BadInput, match=re.escape(message) + r".*--allow-mixed"):
        stored.entry(folder)
    assert stored.entry(folder, allow_mixed=True)["commit"] == ", ".join(
        sorted({c if c is not None else "not recorded" for c in commits})
    )


def test_store_writes_nothing_when_one_sweep_is_refused(tmp_path: Path) -> None:
    results, docs = tmp_path / "r", tmp_path / "docs"
    make_sweep(results / "toy")
    make_sweep(results / "dirty", study="dirty", commits=[COMMIT + "+dirty"] * 3)
    docs.mkdir()
    with pytest.raises(BadInput, match="dirty/sweep.parquet ran on"):
        stored.store(stored.find(results), docs)
    assert list(docs.iterdir()) == []


def test_a_summary_older_than_its_rows_is_refused(tmp_path: Path) -> None:
    folder = make_sweep(tmp_path / "toy")
    text = (folder / "SUMMARY.md").read_text()
    (folder / "SUMMARY.md").write_text(text.replace(COMMIT, "0123456789ab"))
    with pytest.raises(BadInput, match=r"SUMMARY.md does not name the commit\(s\) of its sweep.parquet"):
        stored.store([stored.describe(folder)], tmp_path / "docs")
    (folder / "SUMMARY.md").unlink()
    with pytest.raises(BadInput, match="holds no SUMMARY.md"):
        stored.store([stored.describe(folder)], tmp_path / "docs")


def test_find_names_what_is_missing_or_ambiguous(tmp_path: Path) -> None:
    results = tmp_path / "r"
    make_sweep(results / "full" / "toy")
    with pytest.raises(BadInput, match=r"no quick-size sweep of toy under .*; found: toy:full \("):
        stored.find(results, ["toy:quick"])
    with pytest.raises(BadInput, match="write STUDY:SIZE with SIZE one of full, quick"):
        stored.find(results, ["toy:medium"])
    with pytest.raises(BadInput, match="holds no sweep.parquet"):
        stored.find(results, [str(tmp_path / "nowhere")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(BadInput, match="no sweep.parquet under"):
        stored.find(tmp_path / "empty")
    with pytest.raises(BadInput, match="is not a folder"):
        stored.find(tmp_path / "nothing_here")
    make_sweep(results / "again" / "toy")
    with pytest.raises(BadInput, match="two sweeps of toy:full: .*; name the folder to store"):
        stored.find(results)
    assert [f.key for f in stored.find(results, [str(results / "again" / "toy")])] == ["toy:full"]
    make_sweep(results / "q" / "toy", quick=True)
    with pytest.raises(BadInput, match="two sweeps of toy:full"):
        stored.find(results, ["toy:full"])
    assert stored.find(results, ["toy:quick"]) == [stored.Found(results / "q" / "toy", "toy", "quick")]


@pytest.mark.parametrize(
    ("page", "message"),
    [
        (
            "a\n<!-- sweep-pass-rates: toy full -->\nold\n",
            r"page.md:2: the sweep-pass-rates block of toy full has no "
            r"<!-- /sweep-pass-rates --> after it",
        ),
        ("a\n<!-- /sweep-pass-rates -->\n", r"page.md:2: <!-- /sweep-pass-rates --> without a"),
        (
            "<!-- sweep-pass-rates: toy full -->\n<!-- sweep-pass-rates: toy full -->\n<!-- /sweep-pass-rates -->\n",
            r"page.md:2: a sweep-pass-rates block begins inside the one begun at line 1",
        ),
        ("<!-- sweep-pass-rates: toy big -->\n<!-- /sweep-pass-rates -->\n", r"page.md:1: .* one of full, quick"),
        (
            "<!-- sweep-pass-rates: nope full -->\n<!-- /sweep-pass-rates -->\n",
            r"names nope:full, which docs/sweeps/index.json does not have; .*store-sweeps nope:full",
        ),
    ],
)
def test_broken_markers_are_refused_naming_page_and_line(tree: tuple[Path, Path], page: str, message: str) -> None:
    results, docs = tree
    stored.store(stored.find(results), docs)
    (docs / "readme" / "page.md").write_text(page)
    with pytest.raises(BadInput, match=message):
        stored.regenerate(docs)


def test_a_marker_quoted_in_text_is_not_a_block(tree: tuple[Path, Path]) -> None:
    _, docs = tree
    text = "Write `<!-- sweep-pass-rates: STUDY SIZE -->` then `<!-- /sweep-pass-rates -->`.\n"
    (docs / "readme" / "page.md").write_text(text)
    assert stored.regenerate(docs) == []


def test_the_command_stores_checks_and_fails_in_one_line(
    tree: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    results, docs = tree
    assert cli.main(["store-sweeps", "--docs", str(docs), "--check"]) == cli.EXIT_USAGE  # toy:full not stored yet
    assert "which docs/sweeps/index.json does not have" in capsys.readouterr().err
    assert cli.main(["store-sweeps", "--results", str(results), "--docs", str(docs), "toy:full"]) == cli.EXIT_OK
    out = capsys.readouterr().out
    assert f"stored: {docs / 'sweeps' / 'toy_full.md'}" in out and f"regenerated: {docs / 'readme' / 'page.md'}" in out
    assert cli.main(["store-sweeps", "--docs", str(docs), "--check"]) == cli.EXIT_OK
    page = docs / "readme" / "page.md"
    page.write_text(page.read_text().replace("| 1/3 |", "| 2/3 |"))  # a pass rate edited by hand
    assert cli.main(["store-sweeps", "--docs", str(docs), "--check"]) == cli.EXIT_FAILED
    assert f"out of date: {page}" in capsys.readouterr().out
    make_sweep(results / "toy", commits=[COMMIT, COMMIT, "0123456789ab"])
    assert cli.main(["store-sweeps", "--results", str(results), "--docs", str(docs)]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "--allow-mixed" in err
    assert cli.main(["store-sweeps", "--docs", str(docs), "--check", "toy:full"]) == cli.EXIT_USAGE


# --- the repository's docs -------------------------------------------------------------------------------------

DOCS = registry.REPO_ROOT / "docs"
SWEEPS = DOCS / "sweeps"
# Stored sweeps whose checked rows are not the study's current ones, until the sweep is run again and stored
# (`solvi-lab sweep ...`, then `solvi-lab store-sweeps`). Must be exactly the set that fails below: storing a fresh
# sweep makes the test fail until its entry is removed here.
# held_out_no_false_accept folded into refusal_recall (issue 44; abstention_rare and the two ablation false-refusal rows
# have the specification's thresholds since), and issue 43 added the checked row `reading_no_false_accept` (probes of
# what a tool reads) to both τ-bench studies: their stored 20-seed sweeps predate both.
STALE: set[str] = set()
QUICK_RUN = ("example", "explore")  # no claim record, and a quick seed-0 run takes well under a second


def test_every_generated_block_is_what_the_stored_sweeps_give() -> None:
    stale = [str(p.relative_to(registry.REPO_ROOT)) for p in stored.regenerate(DOCS, check=True)]
    assert stale == [], f"out of date: {stale}; run `solvi-lab store-sweeps --blocks-only` (never edit a block)"


def test_every_page_with_pass_rates_has_blocks() -> None:
    with_blocks = {p.name for p in stored.pages(DOCS) if stored.blocks(p.read_text(encoding="utf-8"), where=str(p))}
    want = {"sweeps.md", "studies.md", "actions.md", "risk.md", "worldmap_crafting.md", "evidence.md"}
    assert want | {"taubench_airline.md", "explore.md"} <= with_blocks


def _provenance_commit(text: str) -> str:
    m = re.search(r"^Ran on commit (.+?), finished ", text, flags=re.M)
    if m:
        return ", ".join(re.findall(r"`([^`]+)`", m.group(1)))
    # "Ran on commit: not recorded", or no line at all (a SUMMARY.md older than the line)
    assert not re.search(r"^Ran on commit [^:]", text, flags=re.M)
    return "not recorded"


def test_every_stored_sweep_has_the_index_entry_of_its_commit() -> None:
    index = stored.read_index(DOCS)
    by_file = {e["file"]: (key, e) for key, e in index.items()}
    files = sorted(p.name for p in SWEEPS.glob("*.md"))
    assert files == sorted(by_file), "every docs/sweeps file has exactly one index entry, and every entry a file"
    for name in files:
        key, e = by_file[name]
        text = (SWEEPS / name).read_text(encoding="utf-8")
        assert e["commit"] == _provenance_commit(text), f"{key}: the index names {e['commit']}, {name} another"
        assert key == f"{e['study']}:{e['size']}" and name == f"{e['study']}_{e['size']}.md"
        assert f"### Sweep of {e['study']}: {e['points']} points" in text and f"{e['raised']} raised" in text
        assert f"Size: {e['size']}." in text


def _current_keys(study: str) -> set[str] | None:
    """The study's checked rows at its quick size: the claim record of tests/studies/test_claims.py plus its
    timing rows (which that record leaves out), a quick seed-0 run for the cheap studies without a record, or None
    (a study with neither, e.g. crafter: only "every row shown is a key of its code" is checked)."""
    record = registry.REPO_ROOT / "data" / "expected" / "claims" / f"{study}.json"
    module = importlib.import_module(registry.STUDIES[study].module)
    if record.exists() and "0" in json.loads(record.read_text()):  # crafter's record holds its rows' declarations only
        return set(json.loads(record.read_text())["0"]) | set(getattr(module, "TIMING_KEYS", ()))
    if study in QUICK_RUN:
        return set(module.run(**{**module.QUICK_PARAMS, "seed": 0}).claims())
    return None


def _gone(study: str, size: str, names: list[str], current: set[str] | None) -> list[str]:
    """The names that are not checked rows of the study now. At full size a run may check rows the quick one cannot
    (retail's unread test tasks): such a row must at least be a key literal of the study's code."""
    in_code = _source(study)
    if current is None:
        return [n for n in names if f'"{n}"' not in in_code]
    return [n for n in names if n not in current and (size == "quick" or f'"{n}"' not in in_code)]


def _source(study: str) -> str:
    module = importlib.import_module(registry.STUDIES[study].module)
    return "".join(p.read_text(encoding="utf-8") for p in sorted(Path(module.__file__).parent.glob("*.py")))


def test_every_stored_sweep_has_the_studys_current_rows() -> None:
    problems: dict[str, str] = {}
    for key, e in sorted(stored.read_index(DOCS).items()):
        rows = [r["name"] for r in stored.checked_rows((SWEEPS / e["file"]).read_text(encoding="utf-8"))]
        current = _current_keys(e["study"])
        missing = sorted(current - set(rows)) if current is not None else []
        extra = _gone(e["study"], e["size"], rows, current)
        if missing or extra:
            problems[key] = f"missing {missing}, gone {extra}"
    assert set(problems) == STALE, f"stored sweeps with other rows than the code's: {problems}; STALE lists {STALE}"


def _key_table_above(lines: list[str], begin: int) -> list[str]:
    """The backticked names in the `key` column of the table that ends just above line `begin` (1-based), if any."""
    i = begin - 2
    while i >= 0 and not lines[i].strip():
        i -= 1
    end = i
    while i >= 0 and lines[i].startswith("|"):
        i -= 1
    table = lines[i + 1 : end + 1]
    if len(table) < 3:
        return []
    header = [c.strip() for c in table[0].strip().strip("|").split("|")]
    if "key" not in header:
        return []
    col = header.index("key")
    cells = [r.strip().strip("|").split("|") for r in table[2:]]
    return [k for c in cells if len(c) > col for k in re.findall(r"`([^`]+)`", c[col])]


def test_the_table_above_a_block_names_the_studys_current_rows() -> None:
    """A hand-written table of thresholds just above a block must name rows the study still checks."""
    problems = []
    for page in stored.pages(DOCS):
        lines = page.read_text(encoding="utf-8").splitlines()
        for b in stored.blocks("\n".join(lines), where=str(page)):
            gone = _gone(b.study, "full", _key_table_above(lines, b.begin), _current_keys(b.study))
            if gone:
                problems.append(f"{page.relative_to(registry.REPO_ROOT)}:{b.begin} ({b.study}): {gone}")
    assert problems == [], "\n".join(problems)


def test_a_stored_file_marked_stale_by_hand_says_so_in_its_blocks(tree: tuple[Path, Path]) -> None:
    results, docs = tree
    stored.store(stored.find(results), docs)
    path = docs / "sweeps" / "toy_full.md"
    path.write_text("**Stale.** Ran before the rows changed.\n\n" + path.read_text())
    block = stored.render_block(docs, "toy", "full", docs / "readme" / "page.md")
    assert (
        "\n\n**Stale**: these are not the study's current rows (the first line of toy_full.md says why). Seeds 0-2"
        in block
    )


# --- the studies table (solvi_lab/sweep/headlines.py) -----------------------------------------------------------


def test_the_readme_holds_the_studies_table_generated_from_the_stored_sweeps() -> None:
    from solvi_lab.sweep import headlines

    readme = registry.REPO_ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    assert text.count(headlines.BEGIN) == 1 and text.count(headlines.END) == 1
    assert headlines.regenerated(text, DOCS, readme) == text
    table = [ln for ln in text.splitlines() if ln.startswith("| ") and "](docs/sweeps/" in ln]
    assert len(table) == len(headlines.ROWS)
    # a value typed over by hand is what the check catches
    edited = text.replace(
        "| risk dungeon (our toy) | mean deepest level: none / Protect / RiskBudget | ", "| x | y | 9 / "
    )
    assert edited != text and headlines.regenerated(edited, DOCS, readme) != edited


def test_the_studies_table_reads_each_value_by_name_with_its_published_figure_and_caveats(tmp_path: Path) -> None:
    from solvi_lab.sweep import headlines

    e = stored.read_index(DOCS)["risk_dungeon:full"]
    text = (SWEEPS / e["file"]).read_text(encoding="utf-8")
    assert headlines.stored_value(text, "mean deepest level, Protect") == ("4.789", "5.67")  # figure: mean, published
    assert headlines.stored_value(text, "games_per_arm") == ("600", None)  # a metric has no published figure
    with pytest.raises(BadInput, match=r"has no figure or metric named 'nope'; fix the row"):
        headlines.stored_value(text, "nope", where="x.md")
    table = headlines.render_table(DOCS, registry.REPO_ROOT / "README.md")
    line = next(ln for ln in table.splitlines() if ln.startswith("| risk dungeon"))
    assert "| 4.789 / " not in line and "| 1.792 / 4.789 / 5.923 | 3.47 / 5.67 / 6.65 |" in line
    assert f"[full, seeds 0-19, `{e['commit'][:7]}`](docs/sweeps/risk_dungeon_full.md)" in line
    for row in headlines.ROWS:  # every row's caveats are under the table, beside its name
        for c in row.caveats:
            assert c in table
    page = tmp_path / "p.md"
    page.write_text(f"{headlines.BEGIN}\n{headlines.BEGIN}\n{headlines.END}\n")
    with pytest.raises(BadInput, match="the studies-table markers must come in pairs"):
        headlines.regenerated(page.read_text(), DOCS, page)


ONE_RESULT = "one result, not one per seed"
#: A probe set's scores (solvi_lab.studies.taubench.scoring.score), as the stored sweeps name them after the set.
SCORES = ("probes", "refused", "precision", "recall", "abstentions", "abstention_pct", "false_accepts")


def _probe_sets_same_on_every_seed(text: str) -> dict[str, bool]:
    """Each probe set of a stored sweep (metric rows `<set>_probes`, `<set>_abstentions`, …) → whether every one of
    its scores has spread 0 over the seeds (a float's rounding noise counts as 0)."""
    metrics = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"[a-z0-9_]+", cells[0]) and re.fullmatch(r"[0-9.e+-]+", cells[2]):
            metrics.setdefault(cells[0], float(cells[2]))
    sets = {name[: -len("_abstentions")] for name in metrics if name.endswith("_abstentions")}
    return {
        s: all(metrics.get(f"{s}_{score}", 0.0) < 1e-9 for score in SCORES) for s in sets if f"{s}_probes" in metrics
    }


def test_a_probe_set_row_whose_seeds_cannot_differ_says_it_is_one_result() -> None:
    """Issue 44: a pass rate counted over seeds that all gave the same count is one result, and the row says so
    (as a caveat, so it travels wherever the row is rendered); a row whose seeds differ does not carry it."""
    index = json.loads((registry.REPO_ROOT / "docs" / "sweeps" / "index.json").read_text(encoding="utf-8"))
    checked = {}
    for entry in index.values():
        if entry["size"] != "full":
            continue
        same = _probe_sets_same_on_every_seed((registry.REPO_ROOT / "docs" / "sweeps" / entry["file"]).read_text())
        for key, row in declared.declared_rows(registry.REPO_ROOT, entry["study"]).items():
            if not key.endswith("_no_false_accept"):
                continue
            name = key[: -len("_no_false_accept")]
            found = [same[s] for s in (name, f"{name}_set") if s in same]
            if found:
                checked[(entry["study"], key)] = found[0]
                assert any(ONE_RESULT in c for c in row["caveats"]) == found[0], (entry["study"], key, found[0])
    # the cases this test exists for, both ways: retail's frozen probe sets, and airline's blind set (seeds differ)
    assert checked[("taubench_action_model", "blind_no_false_accept")] is True
    assert checked[("taubench_action_model", "reading_no_false_accept")] is True
    assert checked[("taubench_airline", "blind_no_false_accept")] is False


def test_every_finding_on_the_agents_calls_carries_designed_in_view_wherever_it_is_rendered() -> None:
    """Issue 44: the airline rows on GPT-4o's calls were designed with those calls in view; the caveat is declared
    on each such row (kept equal to the code by tests/studies/test_claims.py), so every pass-rate block that renders
    the row lists it, and README's headline keeps it; the mechanism rows on those calls (replay equality) do not."""
    from solvi_lab.studies.taubench.airline.study import AGENT_CAVEAT

    rows = declared.declared_rows(registry.REPO_ROOT, "taubench_airline")
    agent = {k: r for k, r in rows.items() if k.startswith("agent_")}
    with_caveat = {k for k, r in agent.items() if AGENT_CAVEAT in r["caveats"]}
    assert with_caveat == {k for k, r in agent.items() if r["kind"] == "finding"}
    assert with_caveat == {"agent_recall", "agent_precision", "agent_no_false_accept"}
    for page in stored.pages(registry.REPO_ROOT / "docs"):
        text = page.read_text(encoding="utf-8")
        for block in re.findall(
            r"<!-- sweep-pass-rates: taubench_airline \w+ -->.*?<!-- /sweep-pass-rates -->", text, re.S
        ):
            caveat_lines = [line for line in block.splitlines() if line.startswith("- ") and AGENT_CAVEAT in line]
            for key in with_caveat:  # a caveat shared by several rows is listed once, naming them all
                shown = any(f"`{key}`" in line for line in caveat_lines)
                assert shown or f"`{key}`" not in block, (page.name, key)
            assert caveat_lines, page.name
    readme = (registry.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "designed with the agent's calls in view" in readme


def test_every_caveat_attached_to_a_row_a_headline_shows_is_under_the_readme_table(monkeypatch) -> None:
    """Issue 44: a caveat is data on its row, so README's notes carry, for each headline line, the caveats of the
    declared rows named in its `values` or `checked`, each once, with no hand copy repeating one."""
    from solvi_lab.sweep import headlines

    readme = (registry.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    notes = {
        ln.split(": ", 1)[0][2:]: ln.split(": ", 1)[1]
        for ln in readme.split(headlines.BEGIN)[1].split(headlines.END)[0].splitlines()
        if ln.startswith("- ")
    }
    shown = 0
    for row in headlines.ROWS:
        rows = declared.declared_rows(registry.REPO_ROOT, row.study)
        for name in (*row.values, *row.checked):
            for c in rows.get(name, {}).get("caveats", []):
                assert c in notes[row.label], (row.study, name, c)
                assert notes[row.label].count(c) == 1, (row.study, c)
                shown += 1
        from_data = headlines.row_caveats(dataclasses.replace(row, caveats=()), rows)
        assert not set(row.caveats) & set(from_data), row.study  # a hand copy of a row's caveat is removed
    assert shown >= 4  # airline (recall, precision), risk dungeon, crafter (two): the cases this exists for
    assert (
        "designed with the agent's calls in view: the probe generator was adjusted"
        in notes["τ-bench airline, GPT-4o's recorded calls (ours)"]
    )
    # a fake headline line over a value that carries a caveat renders it; a line over none renders its own words only
    fake = headlines.Row("s", "fake", "h", ("v", "w"), checked=("c",), caveats=("own words",))
    fake_rows = {"v": {"caveats": ["on v"]}, "w": {"caveats": []}, "c": {"caveats": ["on c", "on v"]}}
    assert headlines.row_caveats(fake, fake_rows) == ("on v", "on c", "own words")
    assert headlines.row_caveats(fake, {"c": {"caveats": []}}) == ("own words",)
    # a checked row that is not declared (renamed, say) is refused rather than dropping its caveats
    with pytest.raises(BadInput, match=r"checked rows \['c'\] are not in data/expected/claims/s.json"):
        headlines.row_caveats(fake, {"v": {"caveats": ["on v"]}})
    # and render_table puts a value's caveat under the table, beside the line's label
    monkeypatch.setattr(
        headlines,
        "ROWS",
        (
            headlines.Row(
                "crafter",
                "fake crafter",
                "h",
                ("requirements_exact_share",),
                published="—",
                checked=("requirements_90_exact",),
            ),
        ),
    )
    table = headlines.render_table(DOCS, registry.REPO_ROOT / "README.md")
    want = declared.declared_rows(registry.REPO_ROOT, "crafter")["requirements_90_exact"]["caveats"][0]
    assert f"- fake crafter: {want}." in table
