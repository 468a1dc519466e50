"""Build `<out>/REPORT.md` and `<out>/report.html` from a results folder written by `solvi-lab reproduce`.

The report is a pure function of the folder, so `solvi-lab report --out results/` rebuilds it at any time. It reads:

- `<out>/machine.json` — machine, date and package versions (`solvi_lab.machine.describe()`),
- `<out>/<study>/run.json` — status, parameters, duration, error (`solvi_lab.reproduce.StudyRun`),
- `<out>/<study>/comparison.csv` — ours beside published (`Recorder.save_table("comparison", ...)`),
- `<out>/<study>/*.png` — figures (`Recorder.save_figure`), `<out>/<study>/metrics.json` — recorded metrics,
- `<out>/<study>/caveats.json` — what must be read beside the tallies (`Recorder.save_caveats`, `caveats_block`).

Images are linked relatively (`<study>/<figure>.png`), so the folder can be moved or zipped whole.

>>> import tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> md, html_path = build_report(out)
>>> "no studies" in md.read_text()
True
"""

from __future__ import annotations

import csv
import html
import json
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .notebook import atomic_write_text
from .studies import registry
from .studies.result import is_time, part_summary, shown
from .sweep.summary import sweep_summary

STATUS_TEXT = {
    "ok": "ran",
    "failed": "FAILED",
    "no_data": "skipped — data missing",
    "no_notebook": "not yet available",
}


@dataclass
class Section:
    """Everything the report says about one study."""

    name: str
    title: str
    description: str
    run: dict[str, Any]
    parameters: dict[str, Any] = field(default_factory=dict)
    comparison: list[dict[str, str]] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)  # paths relative to the results folder
    tables: list[str] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # results files that could not be read (corrupt), with the fix

    @property
    def status(self) -> str:
        return str(self.run.get("status", "unknown"))

    @property
    def seconds(self) -> Any:
        return self.run.get("seconds", "—") if self.status in ("ok", "failed") else "—"

    @property
    def seed(self) -> Any:
        return self.parameters.get("seed", "—")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def read_object(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """A JSON object file: (the object, None), or (None, what is wrong: "missing", "unreadable (…)", "corrupt (…)").

    >>> import tempfile, pathlib
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "run.json"
    >>> _ = bad.write_text('{"status": "ok"')
    >>> read_object(bad)
    (None, "corrupt (not JSON: expecting ',' delimiter at line 1, column 16)")
    >>> read_object(bad.with_name("none.json"))
    (None, 'missing')
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, "missing"
    except (OSError, UnicodeDecodeError) as e:
        return None, f"unreadable ({getattr(e, 'strerror', None) or type(e).__name__})"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        return None, f"corrupt (not JSON: {e.msg[0].lower() + e.msg[1:]} at line {e.lineno}, column {e.colno})"
    if not isinstance(value, dict):
        return None, f"corrupt (a JSON {type(value).__name__} where an object is expected)"
    return value, None


def problems(sections: list[Section]) -> list[str]:
    """One line per results file the report could not read (a corrupt run.json or metrics.json), with the fix."""
    return [p for s in sections for p in s.problems]


def effective_parameters(run: dict[str, Any]) -> dict[str, Any]:
    """The notebook's defaults overlaid by what was injected, without the results folder (it is where, not what).

    >>> effective_parameters({"defaults": {"seed": 0, "n": None}, "parameters": {"n": 5, "results_dir": "/r"}})
    {'seed': 0, 'n': 5}
    """
    params = {**(run.get("defaults") or {}), **(run.get("parameters") or {})}
    params.pop("results_dir", None)
    return params


def collect(out: Path, studies: list[str] | None = None) -> list[Section]:
    """Read every study folder that has a run.json (or those named), registry order first, others after."""
    out = Path(out)
    found = sorted(p.parent.name for p in out.glob("*/run.json"))
    names = studies if studies is not None else found
    order = {name: i for i, name in enumerate(registry.STUDIES)}
    names = sorted(names, key=lambda n: (order.get(n, len(order)), n))
    sections = []
    for name in names:
        folder = out / name
        run, wrong = read_object(folder / "run.json")
        again = f"run the study again: solvi-lab run {name} --out {out}"
        found_problems = []
        if run is None:
            message = f"{folder / 'run.json'} is {wrong}; {again}"
            run = {"status": "unknown", "message": message}
            if wrong != "missing":  # a study named but never run is not a damaged file
                found_problems.append(message)
        metrics, wrong = read_object(folder / "metrics.json")
        if wrong is not None and wrong != "missing":
            found_problems.append(f"{folder / 'metrics.json'} is {wrong}; {again}")
            run = {**run, "message": "\n".join(filter(None, [str(run.get("message") or ""), found_problems[-1]]))}
        info = registry.STUDIES.get(name)
        comparison: list[dict[str, str]] = []
        if (folder / "comparison.csv").exists():
            with (folder / "comparison.csv").open(newline="", encoding="utf-8") as f:
                comparison = list(csv.DictReader(f))
        sections.append(
            Section(
                name=name,
                title=info.title if info else name,
                description=info.description if info else "",
                run=run,
                parameters=effective_parameters(run),
                comparison=comparison,
                figures=[f"{name}/{p.name}" for p in sorted(folder.glob("*.png"))],
                tables=[f"{name}/{p.name}" for p in sorted(folder.glob("*.csv")) if p.name != "comparison.csv"],
                metrics=metrics or {},
                problems=found_problems,
            )
        )
    return sections


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return str(value)


def metric_text(name: str, value: Any) -> str:
    """A recorded metric by kind: counts with separators, `*_s` metrics as times in their unit.

    >>> metric_text("median_retraction_s", 0.0001788), metric_text("training_transitions", 27639)
    ('179 µs', '27,639')
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return shown(value, f"{name} (s)" if name.endswith("_s") else "")[0]
    return _fmt(value)


def _executed_link(section: Section, out: Path) -> str | None:
    """The executed notebook, relative to the results folder: found beside run.json first (run.json records an
    absolute path, which a moved or copied results folder no longer has), else where run.json says."""
    executed = section.run.get("executed")
    if not executed:
        return None
    beside = out / section.name / Path(executed).name
    if beside.is_file():
        return beside.relative_to(out).as_posix()
    if Path(executed).exists():
        try:
            return Path(executed).resolve().relative_to(out.resolve()).as_posix()
        except ValueError:
            return str(executed)
    return None


def _load_text(load: Any) -> str:
    """The three load averages as a person reads them.

    >>> _load_text([1.25, 0.5, 0.1]), _load_text(None)
    ('1.25 / 0.50 / 0.10', 'not measured')
    """
    if not isinstance(load, list) or len(load) != 3:
        return "not measured"
    return " / ".join(f"{x:.2f}" for x in load)


def _machine_rows(machine: dict[str, Any]) -> list[tuple[str, str]]:
    cores = machine.get("cores", {})
    rows = [
        ("date (UTC)", str(machine.get("date", "unknown"))),
        ("CPU", str(machine.get("cpu", "unknown"))),
        ("cores", f"{cores.get('usable', '?')} usable of {cores.get('total', '?')}"),
        ("memory", str(machine.get("memory", "unknown"))),
        ("OS", str(machine.get("os", "unknown"))),
        ("load average, 1 / 5 / 15 min, at the start (measured)", _load_text(machine.get("load"))),
    ]
    if "load_end" in machine:
        rows.append(("load average, 1 / 5 / 15 min, at the end (measured)", _load_text(machine.get("load_end"))))
    return rows


def stored_sweep(study: str) -> dict[str, str] | None:
    """The 20-seed sweep of a study kept in `docs/sweeps/` (index.json: file, size, seeds, date, commit), if any.

    >>> stored_sweep("risk_dungeon")["file"], stored_sweep("no_such_study")
    ('risk_dungeon_full.md', None)
    """
    index = _read_json(registry.REPO_ROOT / "docs" / "sweeps" / "index.json") or {}
    found = [v for v in index.values() if v.get("study") == study]
    found.sort(key=lambda v: v.get("size") != "full")  # the full size first: it is the published one's
    return found[0] if found else None


def seeds_note(section: Section, out: Path) -> tuple[str, str | None, dict[str, str] | None]:
    """For a one-seed section: what to run for intervals, and the stored sweep (its path from `out`) if any.

    Returns ("", None, None) when the section already has a sweep beside it or did not run.
    """
    if section.status != "ok" or sweep_summary(out, section.name) is not None:
        return "", None, None
    text = (
        f"One seed ({section.seed}): no intervals here. `solvi-lab reproduce --seeds 20` runs 20 seeds of every "
        "study and shows each one's intervals beside this table."
    )
    stored = stored_sweep(section.name)
    if stored is None:
        return text, None, None
    path = registry.REPO_ROOT / "docs" / "sweeps" / stored["file"]
    # A copy inside the results folder, linked relatively: the link survives moving or copying results/ (a link
    # to ../docs/sweeps/ broke as soon as the folder moved). Rewritten on every build, so it is never stale.
    copy = Path(out) / STORED_SWEEPS / stored["file"]
    try:
        text_of = path.read_text(encoding="utf-8")
    except OSError:
        return text, None, stored
    if not copy.is_file() or copy.read_text(encoding="utf-8") != text_of:
        atomic_write_text(copy, text_of)
    return text, f"{STORED_SWEEPS}/{stored['file']}", stored


#: Where the report keeps its copies of the stored sweeps it links (`docs/sweeps/<file>`), inside the results folder.
STORED_SWEEPS = "stored-sweeps"


def section_caveats(section: Section) -> list[str]:
    """Hook: the caveats of a study's section (plain sentences), rendered under its comparison table in both
    formats. Empty here; a study's caveats are filled in by their own function."""
    return []


def caveats_block(out: Path, study: str, *, as_html: bool = False) -> str:
    """The study's caveats (`<out>/<study>/caveats.json`, from `StudyResult.caveats`) as a Markdown or HTML block
    shown beside its tallies; "" when the study saved none.

    >>> import tempfile, pathlib, json
    >>> out = pathlib.Path(tempfile.mkdtemp()); (out / "s").mkdir()
    >>> _ = (out / "s" / "caveats.json").write_text(json.dumps(["97% of held-out vectors were seen in training"]))
    >>> print(caveats_block(out, "s"))
    **Caveats** (read them beside the tallies):
    <BLANKLINE>
    - 97% of held-out vectors were seen in training
    <BLANKLINE>
    >>> caveats_block(out, "none") == ""
    True
    """
    caveats = _read_json(Path(out) / study / "caveats.json")
    if not isinstance(caveats, list) or not caveats:
        return ""
    if as_html:
        items = "".join(f"<li>{html.escape(str(c))}</li>" for c in caveats)
        return f'<p class="meta"><b>Caveats</b> (read them beside the tallies):</p><ul class="caveats">{items}</ul>'
    return "\n".join(["**Caveats** (read them beside the tallies):", "", *(f"- {_md_cell(c)}" for c in caveats), ""])


# ---------------------------------------------------------------------------------------------------- Markdown


def _md_cell(value: Any) -> str:
    return _fmt(value).replace("|", "\\|").replace("\n", " ")


def _md_table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in rows]
    return lines + [""]


def render_markdown(sections: list[Section], machine: dict[str, Any], out: Path) -> str:
    """The report as GitHub-flavoured Markdown."""
    lines = ["# solvi_lab — reproduction report", ""]
    if not sections:
        lines += ["There are no studies in this results folder yet; run `solvi-lab reproduce`.", ""]
    else:
        lines += ["## Summary", ""]
        lines += _md_table(
            ["study", "status", "mode", "seed", "time (s)"],
            [[s.name, STATUS_TEXT.get(s.status, s.status), _mode(s), s.seed, s.seconds] for s in sections],
        )
    lines += ["## Machine", ""]
    lines += _md_table(["machine", "value"], [list(r) for r in _machine_rows(machine)])
    lines += ["## Package versions", ""]
    packages = machine.get("packages", {})
    lines += _md_table(list(packages) or ["—"], [list(packages.values())] if packages else [])
    pending = [s for s in sections if s.status == "no_notebook"]
    if pending:
        lines += ["## Not yet available", ""]
        lines += [f"- **{s.name}** — {s.title}: {s.run.get('message', '')}" for s in pending] + [""]
    for s in sections:
        if s.status == "no_notebook":
            continue
        lines += [f"## {s.name} — {s.title}", ""]
        if s.description:
            lines += [s.description, ""]
        lines += [
            f"**Status:** {STATUS_TEXT.get(s.status, s.status)}"
            + (f" · mode: {_mode(s)} · seed: {s.seed}" if s.status in ("ok", "failed") else ""),
            "",
        ]
        if s.run.get("message"):
            lines += ["```text", str(s.run["message"]).strip(), "```", ""]
        link = _executed_link(s, out)
        if link:
            lines += [f"Executed notebook: [{link}]({quote(link)})", ""]
        if s.parameters:
            lines += ["### Parameters", ""]
            lines += _md_table(["parameter", "value"], [[k, v] for k, v in sorted(s.parameters.items())])
        if s.comparison:
            lines += ["### Ours beside the published figures", ""]
            summary = part_summary(s.comparison)  # claims, findings and mechanism checks counted apart
            lines += [f"**{summary}**", ""] if summary else []
            lines += [caveats_block(out, s.name)] if caveats_block(out, s.name) else []
            header, rows = drop_empty_columns(list(s.comparison[0]), comparison_rows(s.comparison))
            lines += _md_table(header, rows)
        elif s.status == "ok":
            lines += ['_The notebook saved no comparison table (`rec.save_table("comparison", ...)`)._', ""]
        lines += [f"- {c}" for c in section_caveats(s)] + ([""] if section_caveats(s) else [])
        note, rel, stored = seeds_note(s, out)
        if note:
            lines += [
                note
                + (
                    f" Stored: [seeds {stored['seeds']} at {stored['size']} size]({quote(rel)}), "
                    f"{stored['date']}, commit {stored['commit']} ({stored['machine']})."
                    if stored
                    else ""
                ),
                "",
            ]
        if (over_seeds := sweep_summary(out, s.name)) is not None:  # `reproduce --seeds K`: beside the seed-0 table
            lines += ["### Over seeds (sweep)", "", over_seeds.split("\n", 1)[1].strip(), ""]
        if s.figures:
            lines += ["### Figures", ""]
            lines += [f"![{Path(f).stem}]({quote(f)})" for f in s.figures] + [""]
        if s.tables:
            lines += ["Other tables: " + ", ".join(f"[{Path(t).name}]({quote(t)})" for t in s.tables), ""]
        if s.metrics:
            lines += ["<details><summary>Recorded metrics</summary>", ""]
            lines += _md_table(["metric", "value"], [[k, metric_text(k, v)] for k, v in sorted(s.metrics.items())])
            lines += ["</details>", ""]
    return "\n".join(lines).rstrip() + "\n"


def _mode(s: Section) -> str:
    if s.status not in ("ok", "failed"):
        return "—"
    return "quick" if s.run.get("quick") else "full"


# ---------------------------------------------------------------------------------------------------- HTML

_CSS = """
:root { --fg: #1d2433; --muted: #5b6577; --line: #d9dee7; --bg-alt: #f5f7fa; --ok: #1f7a3a; --bad: #b42318;
        --warn: #9a6700; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--fg); margin: 0; background: #fff; }
main { max-width: 1320px; margin: 0 auto; padding: 24px 32px 64px; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 20px; margin: 40px 0 8px; padding-top: 16px; border-top: 2px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 8px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
p.lead { color: var(--muted); margin: 0 0 16px; }
table { border-collapse: collapse; margin: 4px 0 12px; font-size: 14px; }
th, td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: var(--bg-alt); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.wide { width: 100%; table-layout: auto; }
table.wide th { white-space: nowrap; }
table.wide td { overflow-wrap: break-word; min-width: 3.5em; }
table.wide td.long { min-width: 12em; max-width: 36em; }
table.wide td.key { font-family: ui-monospace, monospace; font-size: 12px; overflow-wrap: anywhere; min-width: 8em; }
table.wide td.value { white-space: nowrap; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 8px 32px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 13px; font-weight: 600;
         color: #fff; white-space: nowrap; }
.badge.ok { background: var(--ok); } .badge.failed { background: var(--bad); }
.badge.no_data, .badge.no_notebook, .badge.unknown { background: var(--warn); }
.no { color: var(--bad); font-weight: 700; } .yes { color: var(--ok); font-weight: 600; }
pre.message { background: #fff5f5; border-left: 4px solid var(--bad); padding: 8px 12px; white-space: pre-wrap;
              word-break: break-word; font-size: 13px; margin: 8px 0; }
pre.message.no_data, pre.message.no_notebook { background: #fffbeb; border-color: var(--warn); }
figure { margin: 8px 0 16px; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
figcaption { color: var(--muted); font-size: 13px; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 520px), 1fr)); gap: 16px; }
.figures figure.wide { grid-column: 1 / -1; }
ul.caveats { color: var(--muted); font-size: 14px; }
details summary { cursor: pointer; color: var(--muted); margin: 8px 0; }
code { background: var(--bg-alt); padding: 0 4px; border-radius: 3px; font-size: 13px; }
.meta { color: var(--muted); font-size: 14px; }
ul.pending { color: var(--muted); padding-left: 20px; } ul.pending li { margin: 2px 0; }
/* A phone (390 px): every table becomes one card per row, each value under its column's name (data-label), so
   nothing runs off the screen and no value needs a sideways scroll. Checked at 390 px in tests/test_report_browser. */
@media (max-width: 640px) {
  main { padding: 12px 12px 48px; }
  table, thead, tbody, tr, th, td { display: block; }
  table, table.wide { width: 100%; margin: 4px 0 12px; }
  thead { display: none; }
  tr { border: 1px solid var(--line); border-radius: 4px; margin: 0 0 8px; padding: 4px 0; }
  td, td.num, table.wide td, table.wide td.long, table.wide td.key, table.wide td.value {
    border: none; min-width: 0; max-width: none; white-space: normal; overflow-wrap: anywhere; padding: 1px 8px;
    text-align: left; }
  td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; color: var(--muted); }
  .grid { grid-template-columns: 1fr; }
  pre, code { white-space: pre-wrap; overflow-wrap: anywhere; }
}
"""


def _e(value: Any) -> str:
    return html.escape(_fmt(value))


def _is_number(text: str) -> bool:
    try:
        float(text.replace("+", "", 1).replace("−", "-").replace(",", ""))
    except ValueError:
        return False
    return True


_QUANTITY = re.compile(r"^[+−-]?[\d,.]+(?:e[+-]?\d+)?(?: (?:µs|ms|s|min|%)| of [\d,.]+)?$")


def _is_quantity(text: str) -> bool:
    """Whether a cell is one number with its unit (kept on one line, right-aligned).

    >>> _is_quantity("174 µs"), _is_quantity("1,000 of 1,000"), _is_quantity("−190 ms"), _is_quantity("yes")
    (True, True, True, False)
    """
    return bool(_QUANTITY.match(text))


def _html_table(header: list[str], rows: list[list[Any]], css: str = "") -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = []
        for h, v in zip(header, row):
            text = _fmt(v)
            cls = ""
            if h == "holds" and text in ("yes", "NO"):
                cls = "yes" if text == "yes" else "no"
            elif _is_number(text):
                cls = "num"
            elif _is_quantity(text):  # "174 µs", "1,000 of 1,000": one value, kept on one line
                cls = "num value"
            elif h == "key":
                cls = "key"
            elif len(text) > 60:  # a note or threshold: wraps in a column of readable width
                cls = "long"
            label = f' data-label="{html.escape(h)}"'  # a phone's card layout names each value by its column
            cells.append(
                f'<td class="{cls}"{label}>{html.escape(text)}</td>' if cls else f"<td{label}>{html.escape(text)}</td>"
            )
        body.append("<tr>" + "".join(cells) + "</tr>")
    cls_attr = f' class="{css}"' if css else ""
    return f"<table{cls_attr}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def measure_label(measure: str) -> str:
    """A row's label as shown: a time row loses its "(s)", since its values carry their own unit (µs, ms, s, min) —
    a label saying seconds beside "179 µs" misleads.

    >>> measure_label("median retraction (s)"), measure_label("rebuild (s, incl. fingerprint)"), measure_label("depth")
    ('median retraction', 'rebuild (incl. fingerprint)', 'depth')
    """
    if not is_time(measure):
        return measure
    label = re.sub(r"\s*\((?:s|seconds)\)", "", measure)
    return re.sub(r"\((?:s|seconds), ", "(", label).strip()


def comparison_rows(comparison: list[dict[str, str]]) -> list[list[Any]]:
    """The comparison table's rows as shown: the measure column by `measure_label`."""
    return [[measure_label(v) if k == "measure" else v for k, v in r.items()] for r in comparison]


def drop_empty_columns(header: list[str], rows: list[list[Any]]) -> tuple[list[str], list[list[Any]]]:
    """Leave out the columns no row fills (empty or "—"): they only take width.

    >>> drop_empty_columns(["a", "b", "c"], [[1, "", "x"], [2, "—", ""]])
    (['a', 'c'], [[1, 'x'], [2, '']])
    """
    keep = [i for i, _ in enumerate(header) if any(str(r[i]).strip() not in ("", "—") for r in rows)]
    return [header[i] for i in keep], [[r[i] for i in keep] for r in rows]


def markdown_to_html(text: str) -> str:
    r"""Render the Markdown a sweep summary holds (paragraphs and pipe tables) as HTML, so it wraps and fits.

    >>> markdown_to_html("Size: quick.\n\n| a | b |\n|---|---|\n| 1 | x |\n")
    '<p class="meta">Size: quick.</p>\n<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td class="num" data-label="a">1</td><td data-label="b">x</td></tr></tbody></table>'
    """
    blocks: list[str] = []
    table: list[list[str]] = []

    def flush() -> None:
        if table:
            header, rows = table[0], [r for r in table[1:] if not all(set(c) <= set("-: ") for c in r)]
            blocks.append(_html_table(header, rows))
            table.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            table.append([c.strip() for c in line.strip().strip("|").split("|")])
            continue
        flush()
        if line.strip():
            inline = html.escape(line.strip().lstrip("#").strip())
            inline = re.sub(r"`([^`]*)`", r"<code>\1</code>", inline)
            inline = re.sub(r"\*([^*]+)\*", r"<i>\1</i>", inline)
            blocks.append(f'<p class="meta">{inline}</p>')
    flush()
    return "\n".join(blocks)


def png_width(path: Path) -> int | None:
    """A PNG's width in pixels from its header (no image library), or None if it is not a readable PNG."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return int(struct.unpack(">I", head[16:20])[0])


def render_html(sections: list[Section], machine: dict[str, Any], out: Path) -> str:
    """The report as one self-contained HTML page (CSS inline, figures linked relatively)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>solvi_lab — reproduction report</title>",
        f"<style>{_CSS}</style></head><body><main>",
        "<h1>solvi_lab — reproduction report</h1>",
        f'<p class="lead">Generated {_e(machine.get("date", "unknown"))} (UTC). Each study below shows our figures '
        "beside the published ones, with the difference and a note.</p>",
    ]
    if not sections:
        parts.append("<p>There are no studies in this results folder yet; run <code>solvi-lab reproduce</code>.</p>")
    else:
        rows = []
        for s in sections:
            badge = (
                f'<span class="badge {html.escape(s.status)}">{html.escape(STATUS_TEXT.get(s.status, s.status))}</span>'
            )
            rows.append(
                f'<tr><td data-label="study"><a href="#{html.escape(s.name)}">{html.escape(s.name)}</a></td>'
                f'<td data-label="status">{badge}</td><td data-label="mode">{_e(_mode(s))}</td>'
                f'<td class="num" data-label="seed">{_e(s.seed)}</td>'
                f'<td class="num" data-label="time (s)">{_e(s.seconds)}</td></tr>'
            )
        parts.append(
            "<h2>Summary</h2><table><thead><tr><th>study</th><th>status</th><th>mode</th><th>seed</th>"
            f"<th>time (s)</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )
    packages = machine.get("packages", {})
    parts.append('<h2>Machine and packages</h2><div class="grid"><div>')
    parts.append(_html_table(["machine", "value"], [list(r) for r in _machine_rows(machine)]))
    parts.append("</div><div>")
    parts.append(_html_table(["package", "version"], [[k, v] for k, v in packages.items()]))
    parts.append("</div></div>")

    pending = [s for s in sections if s.status == "no_notebook"]
    if pending:
        items = "".join(
            f'<li id="{html.escape(s.name)}"><b>{html.escape(s.name)}</b> — {html.escape(s.title)}: '
            f"{html.escape(str(s.run.get('message', '')))}</li>"
            for s in pending
        )
        parts.append(f'<h2>Not yet available</h2><ul class="pending">{items}</ul>')
    for s in sections:
        if s.status == "no_notebook":
            continue
        status_text = STATUS_TEXT.get(s.status, s.status)
        parts.append(f'<section id="{html.escape(s.name)}"><h2>{html.escape(s.name)} — {html.escape(s.title)}</h2>')
        if s.description:
            parts.append(f"<p>{html.escape(s.description)}</p>")
        meta = f'<span class="badge {html.escape(s.status)}">{html.escape(status_text)}</span>'
        if s.status in ("ok", "failed"):
            meta += f" &nbsp;mode: <b>{_e(_mode(s))}</b> · seed: <b>{_e(s.seed)}</b> · {_e(s.seconds)} s"
        link = _executed_link(s, out)
        if link:
            meta += f' · <a href="{html.escape(quote(link))}">executed notebook</a>'
        parts.append(f'<p class="meta">{meta}</p>')
        if s.run.get("message"):
            parts.append(
                f'<pre class="message {html.escape(s.status)}">{html.escape(str(s.run["message"]).strip())}</pre>'
            )
        if s.comparison:
            header, rows = drop_empty_columns(list(s.comparison[0]), comparison_rows(s.comparison))
            parts.append("<h3>Ours beside the published figures</h3>")
            if part_summary(s.comparison):
                parts.append(f'<p class="meta"><b>{html.escape(part_summary(s.comparison))}</b></p>')
            parts.append(caveats_block(out, s.name, as_html=True))
            parts.append(_html_table(header, rows, css="wide"))
        elif s.status == "ok":
            parts.append('<p class="meta">The notebook saved no comparison table.</p>')
        if caveats := section_caveats(s):
            parts.append('<ul class="caveats">' + "".join(f"<li>{html.escape(c)}</li>" for c in caveats) + "</ul>")
        note, rel, stored = seeds_note(s, out)
        if note:
            text = html.escape(note).replace(
                "`solvi-lab reproduce --seeds 20`", "<code>solvi-lab reproduce --seeds 20</code>"
            )
            if stored:
                text += (
                    f' Stored: <a href="{html.escape(quote(rel))}">seeds {html.escape(stored["seeds"])} at '
                    f"{html.escape(stored['size'])} size</a>, {html.escape(stored['date'])}, commit "
                    f"{html.escape(stored['commit'])} ({html.escape(stored['machine'])})."
                )
            parts.append(f'<p class="meta seeds">{text}</p>')
        if (over_seeds := sweep_summary(out, s.name)) is not None:
            parts.append("<h3>Over seeds (sweep)</h3>" + markdown_to_html(over_seeds.split("\n", 1)[1]))
        if s.figures:
            parts.append('<h3>Figures</h3><div class="figures">')
            for f in s.figures:
                width = png_width(out / f)
                wide = ' class="wide"' if width and width > 700 else ""
                parts.append(
                    f'<figure{wide}><img src="{html.escape(quote(f))}" alt="{html.escape(Path(f).stem)}"'
                    + (f' style="width: min(100%, {width}px)"' if width else "")
                    + f"><figcaption>{html.escape(Path(f).name)}</figcaption></figure>"
                )
            parts.append("</div>")
        if s.parameters:
            parts.append("<h3>Parameters</h3>")
            parts.append(_html_table(["parameter", "value"], [[k, v] for k, v in sorted(s.parameters.items())]))
        if s.tables:
            links = ", ".join(f'<a href="{html.escape(quote(t))}">{html.escape(Path(t).name)}</a>' for t in s.tables)
            parts.append(f'<p class="meta">Other tables: {links}</p>')
        if s.metrics:
            parts.append("<details><summary>Recorded metrics</summary>")
            parts.append(
                _html_table(["metric", "value"], [[k, metric_text(k, v)] for k, v in sorted(s.metrics.items())])
            )
            parts.append("</details>")
        parts.append("</section>")
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"


def build_report(out: Path | str, studies: list[str] | None = None) -> tuple[Path, Path]:
    """Write `<out>/REPORT.md` and `<out>/report.html` for the studies named (default: every study in the folder)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    machine = _read_json(out / "machine.json") or {}
    sections = collect(out, studies)
    md_path, html_path = out / "REPORT.md", out / "report.html"
    atomic_write_text(md_path, render_markdown(sections, machine, out))
    atomic_write_text(html_path, render_html(sections, machine, out))
    return md_path, html_path
