"""The stored sweeps (`docs/sweeps/`) and every pass rate the docs show, from one command.

`solvi-lab store-sweeps [--results results/sweeps] [--docs docs] [STUDY:SIZE | FOLDER ...]`:

1. for each sweep folder (every `<results>/**/<study>/sweep.parquet`, or the ones named), copy its `SUMMARY.md`
   to `docs/sweeps/<study>_<size>.md` and write its `docs/sweeps/index.json` entry from the sweep's own rows
   (`store`): commit (refused when `+dirty`, `unknown`, missing or mixed, unless `allow_mixed`), seeds, size,
   points, raised, the date its last point finished, and the machine that stores it;
2. regenerate every generated block of the docs (`regenerate`): in `docs/**/*.md` and the README beside `docs/`,
   the lines between `<!-- sweep-pass-rates: STUDY SIZE -->` and `<!-- /sweep-pass-rates -->` become the checked
   rows' pass rates parsed from the stored file, and one provenance line from its index entry. Blocks are built
   from `docs/sweeps/` alone, so they regenerate without `results/`.

`tests/test_stored_sweeps.py` checks that every block equals what `regenerate` would write, so a pass rate typed by
hand, or left behind by a new sweep, fails CI.

>>> seeds_text([0, 1, 2, 3, 7, 9, 10])
'0-3,7,9-10'
>>> print(block_rows("| checked row | part | passes | rate | 95% interval |\\n|---|---|---|---|---|\\n"
...                  "| b | mechanism | 19/20 | 0.95 | [0.764, 0.991] |\\n| a | claim | 20/20 | 1 | [0.839, 1] |\\n"))
| part | checked row | passes | 95% interval |
|---|---|---:|---|
| claim | `a` | 20/20 | [0.84, 1.00] |
| mechanism | `b` | 19/20 | [0.76, 0.99] |
<BLANKLINE>
"""

from __future__ import annotations

import json
import os
import platform
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..atomicfile import atomic_write_text
from ..errors import BadInput
from .declared import declared_rows
from .index import INDEX, read_index

BEGIN = re.compile(r"^\s*<!--\s*sweep-pass-rates:\s*(\S+)\s+(\S+)\s*-->\s*$")  # a marker is a line of its own
END = "<!-- /sweep-pass-rates -->"
SIZES = ("full", "quick")
PART_ORDER = ("claim", "finding", "mechanism")  # the order a study's table lists its parts in


def seeds_text(seeds: list[int]) -> str:
    """Sorted seeds as ranges, the way `--seeds` takes them."""
    out: list[str] = []
    s = sorted(set(seeds))
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[j] + 1:
            j += 1
        out.append(str(s[i]) if i == j else f"{s[i]}-{s[j]}")
        i = j + 1
    return ",".join(out)


def machine_text() -> str:
    """The machine that stores a sweep, as the index has always named it ("x86_64, 2 cores, 24 GiB, Python 3.11.7").

    A sweep's rows name only the Dask worker's address, not its machine; the sweep is stored where it ran."""
    from ..machine import memory_bytes, usable_cores

    mem = memory_bytes()
    memory = f"{mem / 2**30:.0f} GiB" if mem else "memory unknown"
    return f"{platform.machine() or 'unknown'}, {usable_cores()} cores, {memory}, Python {platform.python_version()}"


@dataclass(frozen=True)
class Found:
    """A sweep folder and what its rows say it is."""

    folder: Path
    study: str
    size: str

    @property
    def key(self) -> str:
        return f"{self.study}:{self.size}"


def _size(frame: pl.DataFrame, where: Path) -> str:
    quick = set(frame["quick"].to_list()) if "quick" in frame.columns else set()
    if quick == {True}:
        return "quick"
    if quick == {False}:
        return "full"
    raise BadInput(f"{where}: its points mix quick and full sizes (or record none); store one size per folder.")


def _read(folder: Path) -> pl.DataFrame:
    path = folder / "sweep.parquet"
    if not path.exists():
        raise BadInput(f"{folder} holds no sweep.parquet; run `solvi-lab sweep STUDY --out ...` into it first.")
    frame = pl.read_parquet(path)
    if frame.is_empty():
        raise BadInput(f"{path} has no points.")
    studies = sorted(set(frame["study"].to_list()))
    if len(studies) != 1:
        raise BadInput(f"{path} holds points of {len(studies)} studies ({', '.join(studies)}); one study per sweep.")
    return frame


def describe(folder: Path) -> Found:
    """The study and size of the sweep in `folder` (from its rows)."""
    frame = _read(folder)
    return Found(Path(folder), str(frame["study"][0]), _size(frame, folder / "sweep.parquet"))


def find(results: Path, wanted: list[str] | None = None) -> list[Found]:
    """The sweeps to store: each folder named in `wanted`, each `STUDY:SIZE` in it found under `results`, or (no
    `wanted`) every sweep under `results`. Two folders of one study and size are refused (which one is meant?)."""
    results = Path(results)
    wanted = wanted or []
    named = [w for w in wanted if ":" not in w]
    specs = [w for w in wanted if ":" in w]
    found = [describe(Path(w)) for w in named]
    if specs or not wanted:
        if not results.is_dir():
            raise BadInput(f"--results {results} is not a folder; give the --out of `solvi-lab sweep`.")
        everything = [describe(p.parent) for p in sorted(results.glob("**/sweep.parquet"))]
        if not wanted:
            if not everything:
                raise BadInput(f"no sweep.parquet under {results}; run `solvi-lab sweep STUDY --out {results}` first.")
            found += everything
        for spec in specs:
            study, _, size = spec.partition(":")
            if size not in SIZES:
                raise BadInput(
                    f"{spec!r}: write STUDY:SIZE with SIZE one of {', '.join(SIZES)} (e.g. risk_dungeon:full)."
                )
            hits = [f for f in everything if f.study == study and f.size == size]
            if not hits:
                have = ", ".join(f"{f.key} ({f.folder})" for f in everything) or "none"
                raise BadInput(f"no {size}-size sweep of {study} under {results}; found: {have}.")
            found += hits
    seen: dict[str, Path] = {}
    for f in found:
        if f.key in seen and seen[f.key] != f.folder:
            raise BadInput(f"two sweeps of {f.key}: {seen[f.key]} and {f.folder}; name the folder to store.")
        seen[f.key] = f.folder
    return list({f.key: f for f in found}.values())


def entry(folder: Path, *, allow_mixed: bool = False, machine: str | None = None) -> dict[str, Any]:
    """The index entry of the sweep in `folder`, from its rows.

    Refuses (BadInput) a sweep whose points ran on a `+dirty` or `unknown` checkout, record no commit, or ran on
    more than one commit — a stored pass rate must name the code it measured — unless `allow_mixed` (the entry then
    lists every commit, comma-separated)."""
    frame = _read(Path(folder))
    where = Path(folder) / "sweep.parquet"
    size = _size(frame, where)
    commits = frame["commit"].to_list() if "commit" in frame.columns else [None] * frame.height
    distinct = sorted({c if c is not None else "not recorded" for c in commits})
    bad = [c for c in distinct if c.endswith("+dirty") or c in ("unknown", "not recorded")]
    if (bad or len(distinct) > 1) and not allow_mixed:
        why = f"ran on {', '.join(distinct)}" + (f" ({', '.join(bad)}: not one clean commit)" if bad else "")
        raise BadInput(
            f"{where} {why}; re-run it on one committed checkout (`solvi-lab sweep ... --out NEW`), or pass "
            "--allow-mixed to store it naming every commit."
        )
    finished = sorted(frame["finished"].drop_nulls().to_list()) if "finished" in frame.columns else []
    if not finished:
        raise BadInput(f"{where}: no point records when it finished; re-run the sweep with this solvi_lab.")
    errors = int(frame["error"].is_not_null().sum()) if "error" in frame.columns else 0
    study = str(frame["study"][0])
    return {
        "commit": ", ".join(distinct),
        "date": finished[-1][:10],
        "file": f"{study}_{size}.md",
        "machine": machine if machine is not None else machine_text(),
        "points": frame.height,
        "raised": errors,
        "seeds": seeds_text([int(s) for s in frame["seed"].to_list()]),
        "size": size,
        "study": study,
    }


def store(found: list[Found], docs: Path, *, allow_mixed: bool = False) -> list[Path]:
    """Copy each sweep's SUMMARY.md into `docs/sweeps/` and write its index entry; returns the files written.

    Every sweep is checked before anything is written, so a refused one leaves the docs as they were."""
    docs = Path(docs)
    staged: list[tuple[Found, dict[str, Any], str]] = []
    for f in found:
        e = entry(f.folder, allow_mixed=allow_mixed)
        summary_path = f.folder / "SUMMARY.md"
        if not summary_path.exists():
            raise BadInput(f"{f.folder} holds no SUMMARY.md; `solvi-lab sweep ... --resume` into it writes one.")
        text = summary_path.read_text(encoding="utf-8")
        commits = ", ".join(f"`{c}`" for c in e["commit"].split(", "))
        if f"Ran on commit {commits}," not in text:
            raise BadInput(
                f"{summary_path} does not name the commit(s) of its sweep.parquet ({e['commit']}); it is older than "
                "its rows: `solvi-lab sweep ... --resume` into the folder rewrites it."
            )
        staged.append((f, e, text))
    index = read_index(docs)
    written = []
    (docs / "sweeps").mkdir(parents=True, exist_ok=True)
    for f, e, text in staged:
        path = docs / "sweeps" / e["file"]
        atomic_write_text(path, text)
        index[f.key] = e
        written.append(path)
    if staged:
        atomic_write_text(docs / "sweeps" / INDEX, json.dumps(index, indent=1, sort_keys=True) + "\n")
        written.append(docs / "sweeps" / INDEX)
    return written


def checked_rows(text: str, *, where: str = "the stored sweep") -> list[dict[str, str]]:
    """The rows of the "checked row" table of a stored SUMMARY.md: name, part, passes, interval.

    A sweep of one parameter combination has one such table; a grid has one per combination, which a pass-rate
    block cannot show as one table (refused)."""
    tables: list[list[dict[str, str]]] = []
    current: list[dict[str, str]] | None = None
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells and cells[0] == "checked row":
            current = []
            tables.append(current)
            continue
        if current is None or cells is None:
            current = None
            continue
        if set(cells[0]) <= set("-:"):
            continue
        if len(cells) != 5:
            raise BadInput(f"{where}: a checked-row line has {len(cells)} cells, not 5: {line!r}")
        name, part, passes, _rate, interval = cells
        current.append({"name": name, "part": part, "passes": passes, "interval": interval})
    if len(tables) != 1:
        raise BadInput(
            f"{where} has {len(tables)} checked-row tables; a pass-rate block shows a sweep of one parameter "
            "combination (no -p grid)."
        )
    return tables[0]


def _interval(text: str) -> str:
    """ "[0.839, 1]" → "[0.84, 1.00]": two decimals, as the study pages print rates."""
    m = re.fullmatch(r"\[\s*([-\d.e+]+)\s*,\s*([-\d.e+]+)\s*\]", text)
    if not m:
        return text
    return f"[{float(m.group(1)):.2f}, {float(m.group(2)):.2f}]"


def block_rows(text: str, *, where: str = "the stored sweep", declared: dict[str, dict[str, Any]] | None = None) -> str:
    """The pass-rate table of a block: part, checked row, passes, 95% interval, threshold; claims, findings,
    mechanisms. With `declared` (see `declared.declared_rows`) each row's part and threshold are the code's, a part that
    differs from the swept one says so, and the specification's sentences and the rows' caveats follow the table."""
    declared = declared or {}
    rows = checked_rows(text, where=where)
    for r in rows:
        now = declared.get(r["name"], {}).get("kind")
        r["shown"] = r["part"] if now is None or now == r["part"] else f"{now} (swept as {r['part']})"
        r["rank"] = now or r["part"]
    rank = {p: i for i, p in enumerate(PART_ORDER)}
    rows = sorted(rows, key=lambda r: rank.get(r["rank"], len(PART_ORDER)))  # stable: the study's order within
    if not declared:
        lines = ["| part | checked row | passes | 95% interval |", "|---|---|---:|---|"]
        lines += [f"| {r['shown']} | `{r['name']}` | {r['passes']} | {_interval(r['interval'])} |" for r in rows]
        return "\n".join(lines) + "\n"
    lines = ["| part | checked row | passes | 95% interval | threshold |", "|---|---|---:|---|---|"]
    for r in rows:
        threshold = _md_cell(declared.get(r["name"], {}).get("threshold", "")) or "—"
        lines.append(f"| {r['shown']} | `{r['name']}` | {r['passes']} | {_interval(r['interval'])} | {threshold} |")
    names = [r["name"] for r in rows]
    by_sentence: dict[str, list[str]] = {}  # one sentence, the rows that test it (in the table's order)
    for n in names:
        if declared.get(n, {}).get("sentence"):
            by_sentence.setdefault(declared[n]["sentence"], []).append(n)
    if by_sentence:
        lines += ["", "The specification's sentences these rows test:", ""]
        lines += [f"- {', '.join(f'`{n}`' for n in ns)}: “{_md_cell(t)}”" for t, ns in by_sentence.items()]
    by_caveat: dict[str, list[str]] = {}  # one caveat, the rows it is attached to
    for n in names:
        for c in declared.get(n, {}).get("caveats", []):
            by_caveat.setdefault(c, []).append(n)
    if by_caveat:
        lines += ["", "Caveats of these rows:", ""]
        lines += [f"- {', '.join(f'`{n}`' for n in ns)}: {_md_cell(c)}" for c, ns in by_caveat.items()]
    return "\n".join(lines) + "\n"


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _header(text: str) -> str:
    """ "20 points, 0 raised" from the stored file's first heading ("" if it has none)."""
    m = re.search(r"^### Sweep of \S+: (\d+) points \(\d+ seeds\), (\d+) raised", text, flags=re.M)
    return f"{m.group(1)} points, {m.group(2)} raised" if m else ""


def render_block(docs: Path, study: str, size: str, page: Path) -> str:
    """The generated lines of the block `<!-- sweep-pass-rates: study size -->` on `page` (between the markers)."""
    docs = Path(docs)
    key = f"{study}:{size}"
    index = read_index(docs)
    if key not in index:
        raise BadInput(
            f"{page}: a sweep-pass-rates block names {key}, which docs/sweeps/{INDEX} does not have; store the sweep "
            f"first (`solvi-lab sweep {study} --seeds 0-19{' --quick' if size == 'quick' else ''}`, then "
            f"`solvi-lab store-sweeps {key}`)."
        )
    e = index[key]
    stored = docs / "sweeps" / e["file"]
    if not stored.exists():
        raise BadInput(f"{page}: {stored} (index entry {key}) does not exist; store the sweep again.")
    text = stored.read_text(encoding="utf-8")
    link = Path(os.path.relpath(stored.resolve(), page.resolve().parent)).as_posix()
    what = _header(text)
    commit = (
        "not recorded (a sweep older than the commit column)"
        if e["commit"] == "not recorded"
        else ", ".join(f"`{c}`" for c in str(e["commit"]).split(", "))
    )
    provenance = (
        f"Seeds {e['seeds']} at {e['size']} size{': ' + what if what else ''}; `solvi-lab sweep` at commit {commit}, "
        f"last point finished {e['date']}. Every metric and figure: [{e['file']}]({link}). Generated from that file "
        "by `solvi-lab store-sweeps`; do not edit by hand."
    )
    declared = declared_rows(docs.parent, study)
    table = block_rows(text, where=str(stored), declared=declared)
    if text.lstrip().startswith("**Stale.**"):  # a stored file marked by hand as older than the study's rows
        # said above the table too: its pass rates were counted at the thresholds of the commit the sweep ran on
        warning = (
            f"**Stale**: these pass rates are not the study's current rows or thresholds (the first line of "
            f"{e['file']} says why); they were counted at the commit named below.\n\n"
        )
        provenance = (
            f"**Stale**: these are not the study's current rows (the first line of {e['file']} says why). " + provenance
        )
        table = warning + table
    return table + "\n" + provenance + "\n"


@dataclass(frozen=True)
class Block:
    """One generated block of a page: its study and size, and the line numbers of its markers (1-based)."""

    study: str
    size: str
    begin: int
    end: int


def blocks(text: str, *, where: str) -> list[Block]:
    """The generated blocks of a page; a begin without its end (or an end without a begin) is refused."""
    found: list[Block] = []
    open_at: tuple[str, str, int] | None = None
    for i, line in enumerate(text.splitlines(), start=1):
        m = BEGIN.match(line)
        if m:
            if open_at is not None:
                raise BadInput(
                    f"{where}:{i}: a sweep-pass-rates block begins inside the one begun at line {open_at[2]}; "
                    f"close that one with {END}."
                )
            study, size = m.group(1), m.group(2)
            if size not in SIZES:
                raise BadInput(f"{where}:{i}: sweep-pass-rates {study} {size}: the size is one of {', '.join(SIZES)}.")
            open_at = (study, size, i)
        elif line.strip() == END:
            if open_at is None:
                raise BadInput(f"{where}:{i}: {END} without a <!-- sweep-pass-rates: STUDY SIZE --> before it.")
            found.append(Block(open_at[0], open_at[1], open_at[2], i))
            open_at = None
    if open_at is not None:
        raise BadInput(
            f"{where}:{open_at[2]}: the sweep-pass-rates block of {open_at[0]} {open_at[1]} has no {END} "
            "after it; add the end marker."
        )
    return found


def regenerated(page: Path, docs: Path) -> str:
    """The page's text with every generated block of every kind `blocks.KINDS` renders (pass rates, the studies
    table, the blocks of a stored file, the fault and performance tables) rebuilt from its source (the text itself
    if it has none)."""
    from .blocks import render

    return regenerated_pass_rates(render(page.read_text(encoding="utf-8"), Path(docs), page), Path(docs), page)


def regenerated_pass_rates(text: str, docs: Path, page: Path) -> str:
    """`text` with its pass-rate blocks rebuilt from the stored sweeps of `docs/sweeps/`."""
    found = blocks(text, where=str(page))
    if not found:
        return text
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    last = 0
    for b in found:
        out += lines[last : b.begin]  # up to and including the begin marker
        out.append("\n" + render_block(docs, b.study, b.size, page) + "\n")
        last = b.end - 1  # the end marker and what follows
    out += lines[last:]
    return "".join(out)


def pages(docs: Path) -> list[Path]:
    """The Markdown files that may hold blocks: every `docs/**/*.md` but the stored sweeps, and the README beside
    `docs/`."""
    docs = Path(docs)
    found = [p for p in sorted(docs.glob("**/*.md")) if (docs / "sweeps") not in p.parents]
    readme = docs.parent / "README.md"
    return found + ([readme] if readme.exists() else [])


def regenerate(docs: Path, *, check: bool = False) -> list[Path]:
    """Rebuild every generated block; returns the pages that changed (with `check`, that would change: nothing
    is written)."""
    changed = []
    for page in pages(docs):
        new = regenerated(page, docs)
        if new != page.read_text(encoding="utf-8"):
            changed.append(page)
            if not check:
                atomic_write_text(page, new)
    return changed
