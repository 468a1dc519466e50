"""The table of studies (README's front door, `docs/readme/studies.md`), rendered from the stored sweeps.

Between `<!-- studies-table -->` and `<!-- /studies-table -->` a page holds one generated table: one line per study
in `ROWS`, each value the mean over the stored sweep's seeds, read by name from its figure or metric table in
`docs/sweeps/<study>_<size>.md`, the published value from the same figure row (or the words of `published` when the
specification states no figure), and the sweep's size, seeds and commit from `docs/sweeps/index.json`. Under the table,
each line's caveats: the caveats attached as data to the checked rows it shows (`row_caveats`: the rows of
`data/expected/claims/<study>.json` named in `values` or `checked`, the record the pass-rate blocks render them from),
then the line's own words, each sentence once. The full-size
sweep is used when one is stored, else the quick one (the size column says which). Nothing in it is typed by hand:
`solvi-lab store-sweeps` regenerates it with the pass-rate blocks and `tests/test_stored_sweeps.py` fails when it
differs.

>>> stored_value("| figure | mean | sd | 95% interval | published | inside |\\n|---|---|---|---|---|---|\\n"
...              "| full rebuild (s) | 42.5 ms | 8.23 ms | [39.3 ms, 46.3 ms] | 790 ms | NO |\\n", "full rebuild (s)")
('42.5 ms', '790 ms')
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import BadInput
from ..studies.crafter.defaults import TRAINING as CRAFTER_TRAINING
from .declared import declared_rows
from .index import read_index

BEGIN = "<!-- studies-table -->"
END = "<!-- /studies-table -->"


@dataclass(frozen=True)
class Row:
    """One study's line: which stored values it shows and how.

    values: names in the stored file's figure or metric table, shown joined by `sep`; `unit` is appended to each.
    published: words for the published column when the specification states no figure for these values (else the
        figure rows' own published column is shown). pages: (text, path under docs/readme) links.
    checked: checked rows (keys of `data/expected/claims/<study>.json`) whose numbers this line shows under other
        names (a metric such as `agent_refused_predicted` is what the row `agent_recall` checks); their caveats travel
        with the line as those named in `values` do.
    caveats: what a reader must know about this line's numbers that no shown row carries as data (words only, one
        sentence each); rendered under the table beside the study's name, after the rows' own caveats.
    """

    study: str
    label: str
    headline: str
    values: tuple[str, ...]
    sep: str = " / "
    unit: str = ""
    published: str | None = None
    pages: tuple[tuple[str, str], ...] = ()
    checked: tuple[str, ...] = ()
    caveats: tuple[str, ...] = ()


ROWS: tuple[Row, ...] = (
    Row(
        "retraction",
        "retraction",
        "median retraction incl. fingerprint · full rebuild",
        ("median retraction (s, incl. fingerprint)", "full rebuild (s)"),
        sep=" · ",
        pages=(("studies.md", "studies.md#retraction"),),
        caveats=(
            "the published claim that the cost grows with the component does not hold for this store, by design: "
            "its cost follows what is re-folded (see the page)",
        ),
    ),
    Row(
        "taubench_action_model",
        "τ-bench retail action model (no LLM)",
        "refusal precision / recall / abstentions (%)",
        ("refusal_precision", "refusal_recall", "abstention_rare"),
        pages=(("actions.md", "actions.md"), ("studies.md", "studies.md#τ-bench-retail-action-model")),
        caveats=(
            "held out on the test split's tasks, and nearly all held-out vectors were seen in training",
            "with the defaults chosen in issue 43 (schema family, exact money, shapes of parsed text, lists read as the "
            "tool walks them, the schema exploration of every tool) the project's blind probes and the probes of what "
            "a tool reads get no false accept, the latter with many abstentions; those families were developed while "
            "looking at dev-split probes; the full run's figures per probe set are in "
            "[actions.md](docs/readme/actions.md) ([blind_probes.md](docs/readme/blind_probes.md))",
        ),
    ),
    Row(
        "taubench_airline",
        "τ-bench airline, GPT-4o's recorded calls (ours)",
        "calls refused · predicted refused · false refusals",
        ("agent_refused", "agent_refused_predicted", "agent_false_refusals"),
        published="— (no system reports this)",
        pages=(("taubench_airline.md", "taubench_airline.md"),),
        checked=("agent_recall", "agent_precision"),
    ),
    Row(
        "tau2_telecom",
        "τ²-bench telecom, one model per side (ours)",
        "held-out false accepts agent / user · precision agent / user",
        (
            "agent_held_out_false_accepts",
            "user_held_out_false_accepts",
            "agent_held_out_precision",
            "user_held_out_precision",
        ),
        published="— (no system reports this)",
        pages=(("tau2_telecom.md", "tau2_telecom.md"),),
        caveats=(
            "the environment is our re-implementation of τ²-bench's tools (compared with upstream's on random calls) and "
            "the probes vary gold steps, not an agent's calls; on some seeds a held-out call the environment accepts is "
            "predicted refused (the pass rates are on the sweep's page)",
        ),
    ),
    Row(
        "risk_dungeon",
        "risk dungeon (our toy)",
        "mean deepest level: none / Protect / RiskBudget",
        ("mean deepest level, no knowledge", "mean deepest level, Protect", "mean deepest level, RiskBudget"),
        pages=(("risk.md", "risk.md"), ("studies.md", "studies.md#risk-dungeon")),
        checked=("depth_risk_budget_above_protect",),
        caveats=("our own toy after the published description: its counts differ by construction",),
    ),
    Row(
        "toy_crafting",
        "toy crafting (our toy)",
        "steps to the first stone: nothing carried → carried",
        (
            "nothing carried: steps to the first stone",
            "the action model carried across worlds: steps to the first stone",
        ),
        sep=" → ",
        pages=(("worldmap_crafting.md", "worldmap_crafting.md"),),
        caveats=(
            "the nothing-carried explorer was tuned to the published achievements figure, so that row is a figure, "
            "not a claim",
        ),
    ),
    Row(
        "learner_evidence",
        "learner evidence (the review's flaws)",
        "flaws checked · absent from ours",
        ("flaws_checked", "flaws_absent"),
        sep=" · ",
        published="— (the review names the flaws)",
        pages=(("evidence.md", "evidence.md"),),
        caveats=("each flaw is shown on a naive reference written for the purpose: these rows are mechanisms",),
    ),
    Row(
        "crafter",
        "real Crafter 1.8.3, symbolic state (ours)",
        "share of the rules with data recovered exactly · held-out false accepts · abstained on another policy's calls",
        # the shipped training's transfer metric: the headline follows the stored default choice, never a typed name
        ("requirements_exact_share", "heldout_false_accepts", f"transfer_{CRAFTER_TRAINING}_abstention_share"),
        sep=" · ",
        published="— (no system reports this; our own target)",
        pages=(("crafter.md", "crafter.md"),),
        checked=("requirements_90_exact", "heldout_no_false_accepts", "transfer_abstention_20"),
        caveats=(
            "the other policy is the wanderer, whose calls in the training worlds the shipped model also trains on: "
            "its held-out worlds are new to the model, its policy is not",
        ),
    ),
    Row(
        "explore",
        "explore (frames, time travel, graphs)",
        "items changed by the retraction",
        ("items changed by the retraction",),
        pages=(("explore.md", "explore.md"),),
    ),
)


def _tables(text: str) -> dict[str, dict[str, list[str]]]:
    """Every row of the stored file's figure and metric tables by name: its cells after the name."""
    out: dict[str, dict[str, list[str]]] = {"figure": {}, "metric": {}}
    kind = None
    for line in text.splitlines():
        if not line.startswith("|"):
            kind = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] in ("figure", "metric") and len(cells) >= 4:
            kind = cells[0]
            continue
        if kind is None or set(cells[0]) <= set("-:"):
            continue
        out[kind].setdefault(cells[0], cells[1:])
    return out


def stored_value(text: str, name: str, *, where: str = "the stored sweep") -> tuple[str, str | None]:
    """(mean, published) of a figure row named `name`, else (mean, None) of a metric row; refused when neither."""
    tables = _tables(text)
    if name in tables["figure"]:
        cells = tables["figure"][name]
        return cells[0], cells[3]
    if name in tables["metric"]:
        return tables["metric"][name][0], None
    raise BadInput(f"{where} has no figure or metric named {name!r}; fix the row in solvi_lab/sweep/headlines.py.")


def row_caveats(row: Row, declared: dict[str, dict]) -> tuple[str, ...]:
    """The line's caveats: those attached to the declared rows named in `values` or `checked` (in that order), then
    its own `caveats`, each sentence once. `declared` is `declared.declared_rows` of the row's study; a name in
    `checked` it does not have is refused (a renamed row must not silently drop its caveats).

    >>> r = Row("s", "s", "h", ("a", "b"), checked=("c",), caveats=("own", "x"))
    >>> row_caveats(r, {"a": {"caveats": ["x"]}, "c": {"caveats": ["y", "x"]}})
    ('x', 'y', 'own')
    """
    missing = [n for n in row.checked if n not in declared]
    if missing:
        raise BadInput(
            f"{row.study}: checked rows {missing} are not in data/expected/claims/{row.study}.json; fix the row in "
            "solvi_lab/sweep/headlines.py."
        )
    out: list[str] = []
    for name in (*row.values, *row.checked):
        for c in declared.get(name, {}).get("caveats", []):
            if c not in out:
                out.append(c)
    return (*out, *(c for c in row.caveats if c not in out))


def _sweep(docs: Path, study: str) -> tuple[dict, str]:
    index = read_index(docs)
    for size in ("full", "quick"):
        e = index.get(f"{study}:{size}")
        if e is not None:
            return e, (Path(docs) / "sweeps" / e["file"]).read_text(encoding="utf-8")
    raise BadInput(
        f"no stored sweep of {study} in docs/sweeps/index.json; run `solvi-lab sweep {study} --seeds 0-19` and "
        f"`solvi-lab store-sweeps {study}:full`."
    )


def render_table(docs: Path, page: Path) -> str:
    """The generated lines between the table's markers on `page`."""
    lines = [
        "| study | headline (mean over the seeds) | ours | published | sweep: size, seeds, commit | page |",
        "|---|---|---:|---:|---|---|",
    ]
    docs = Path(docs)
    for row in ROWS:
        e, text = _sweep(docs, row.study)
        got = [stored_value(text, name, where=f"docs/sweeps/{e['file']}") for name in row.values]
        ours = row.sep.join(f"{mean}{row.unit}" for mean, _ in got)
        if row.published is not None:
            published = row.published
        else:
            missing = [n for n, (_, p) in zip(row.values, got, strict=True) if p is None or p == "—"]
            if missing:
                raise BadInput(f"{row.study}: {missing} carry no published figure; give the row `published` words.")
            published = row.sep.join(f"{p}{row.unit}" for _, p in got)
        stored = docs / "sweeps" / e["file"]
        sweep_link = Path(os.path.relpath(stored.resolve(), page.resolve().parent)).as_posix()
        readme = docs / "readme"
        links = " · ".join(
            f"[{t}]({Path(os.path.relpath((readme / p.split('#')[0]).resolve(), page.resolve().parent)).as_posix()}"
            f"{'#' + p.split('#', 1)[1] if '#' in p else ''})"
            for t, p in row.pages
        )
        stale = ", **stale**: its first line says why" if text.lstrip().startswith("**Stale.**") else ""
        provenance = f"[{e['size']}, seeds {e['seeds']}, `{str(e['commit'])[:7]}`]({sweep_link}){stale}"
        lines.append(f"| {row.label} | {row.headline} | {ours} | {published} | {provenance} | {links} |")
    notes = []
    for row in ROWS:
        if caveats := row_caveats(row, declared_rows(docs.parent, row.study)):
            notes.append(f"- {row.label}: " + "; ".join(caveats) + ".")
    if notes:
        lines += ["", "What each line's numbers do not say:", "", *notes]
    quick = [row.study for row in ROWS if _sweep(docs, row.study)[0]["size"] == "quick"]
    if quick:
        lines += ["", "Only a quick-size sweep is stored for " + "; ".join(_sizes(s) for s in quick) + "."]
    return "\n".join(lines) + "\n"


def _sizes(study: str) -> str:
    """ "retraction (n_items=2,000, n_retractions=100 where the full size is 10,000, 1,000)", from its ParamSpec."""
    import importlib

    from ..studies import registry

    spec = importlib.import_module(registry.STUDIES[study].module).PARAMS
    quick, full = spec.defaults(quick=True), spec.defaults(quick=False)
    moved = [k for k in quick if k != "seed" and quick[k] != full.get(k)]
    fmt = lambda v: f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)  # noqa: E731
    if not moved:
        return f"{study} (its quick and full sizes are the same)"
    q = ", ".join(f"{k}={fmt(quick[k])}" for k in moved)
    return f"{study} ({q}, where the full size is {', '.join(fmt(full[k]) for k in moved)})"


def regenerated(text: str, docs: Path, page: Path) -> str:
    """`text` with its studies table (if it has one) rebuilt from `docs/sweeps/`."""
    lines = text.splitlines(keepends=True)
    marks = [i for i, ln in enumerate(lines) if ln.strip() in (BEGIN, END)]
    if not marks:
        return text
    kinds = [lines[i].strip() for i in marks]
    if len(marks) % 2 or any(k != (BEGIN if j % 2 == 0 else END) for j, k in enumerate(kinds)):
        raise BadInput(f"{page}: the studies-table markers must come in pairs, {BEGIN} then {END}.")
    out: list[str] = []
    last = 0
    for b, e in zip(marks[0::2], marks[1::2], strict=True):
        out += lines[last : b + 1]
        out.append("\n" + render_table(docs, page) + "\n")
        last = e
    out += lines[last:]
    return "".join(out)
