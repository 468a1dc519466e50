"""The performance table of docs/readme/performance.md (and README.md, when it holds the markers), rendered from
stored benchmark outputs: nothing in it is typed.

Sources, in `results/benchmarks/issue42/` (`--results` for another folder): `open_wait_1e6.json`
(benchmarks/open_wait.py at 10^6, both streams, with its floors) and `store_scale_1e6.json` /
`store_scale_1e6_derived_keys.json` (benchmarks/store_scale.py at 10^6, one file per stream), and when present the
same at 10^5 (`store_scale_1e5*.json`) for the rebuild-over-floor goal. Each figure is shown with the floor it was
measured against in the same run (benchmarks/floors.py), the ratio, and the machine's load at that run.

    python benchmarks/perf_page.py            # rewrite the block(s) from the stored outputs
    python benchmarks/perf_page.py --check    # exit 1 when a page's block differs from what the outputs give
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results" / "benchmarks" / "issue42"
PAGES = (ROOT / "docs" / "readme" / "performance.md", ROOT / "README.md")
BEGIN, END = "<!-- perf-table -->", "<!-- /perf-table -->"
STREAMS = ("default", "derived-keys")
_BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), flags=re.S)


def _seconds(s: float) -> str:
    return f"{s * 1000:.2f} ms" if s < 0.1 else f"{s:.2f} s"


def _cell(
    value: str, floor: str | None, ratio: float | None, load: str | None, ok: bool | None, cpu: float | None = None
) -> str:
    mark = "" if ok is None else (" ✓" if ok else " ✗")
    parts = [f"**{value}**{mark}"]
    if cpu is not None:  # the figure's own CPU time: on a loaded machine the wall clock also counts others' work
        parts.append(f"CPU {_seconds(cpu)}")
    if floor is not None:
        parts.append(f"floor {floor}, {ratio:.1f}×" if ratio is not None else f"floor {floor}")
    if load is not None:
        parts.append(f"load {load}")
    return parts[0] + (f" ({'; '.join(parts[1:])})" if len(parts) > 1 else "")


def _load_range(r: dict) -> str:
    a, b = r.get("load_start"), r.get("load_end")
    if a is None or b is None:
        return "—"
    lo, hi = sorted((a, b))
    return f"{lo:.1f}" if round(lo, 1) == round(hi, 1) else f"{lo:.1f}–{hi:.1f}"


def _newest(results: Path, stem: str, suffix: str = "") -> Path | None:
    """`<stem><suffix>.json`, or the newest dated `<stem>_<date><suffix>.json` beside it (the date as YYYY-MM-DD, maybe
    with a letter or two after it; a dated one before the plain one). `suffix`: a stream's, as store_scale.py
    appends it to its `--name`."""
    dated = re.compile(re.escape(stem) + r"_\d{4}-\d{2}-\d{2}[a-z0-9]*" + re.escape(suffix) + r"\.json")
    found = [p for p in results.glob(f"{stem}*.json") if p.name == f"{stem}{suffix}.json" or dated.fullmatch(p.name)]
    return max(found, key=lambda p: (p.name != f"{stem}{suffix}.json", p.name)) if found else None


def _suffix(stream: str) -> str:
    """What store_scale.py appends to its `--name` for `stream`."""
    return "" if stream == "default" else f"_{stream.replace('-', '_')}"


def _store_rows(results: Path, tag: str) -> dict[str, dict]:
    """stream -> its solvi_lab row of store_scale_<tag>[_<stream>][_<date>].json (absent streams left out)."""
    out = {}
    for stream in STREAMS:
        f = _newest(results, f"store_scale_{tag}", _suffix(stream))
        if f is not None:
            rows = [r for r in json.loads(f.read_text())["rows"] if r.get("impl") == "solvi_lab" and "error" not in r]
            if rows:
                out[stream] = rows[0]
    return out


def _open_rows(results: Path) -> dict[tuple[str, bool], dict]:
    f = _newest(results, "open_wait_1e6")
    if f is None:
        return {}
    rows = json.loads(f.read_text())
    return {(r["profile"], r["snapshot"]): r for r in rows if r.get("code") == "solvi_lab" and "error" not in r}


def render(results: Path = RESULTS) -> str:
    """The block (markers included) from the stored outputs in `results`."""
    big, mid, opens = _store_rows(results, "1e6"), _store_rows(results, "1e5"), _open_rows(results)
    lines = [
        BEGIN,
        "",
        "| figure (10⁶ items unless named) | goal | " + " | ".join(f"`{s}` stream" for s in STREAMS) + " |",
        "|---|---|" + "---|" * len(STREAMS),
    ]

    def row(label: str, goal: str, cells: dict[str, str]) -> None:
        lines.append(f"| {label} | {goal} | " + " | ".join(cells.get(s, "not measured") for s in STREAMS) + " |")

    def open_cells(snap: bool, limit: float) -> dict[str, str]:
        out = {}
        for s in STREAMS:
            r = opens.get((s, snap))
            if r is not None:
                v = r["open_item_fingerprint_s"]
                out[s] = _cell(
                    _seconds(v),
                    _seconds(r["floor_s"]),
                    v / r["floor_s"],
                    f"{r['load']:.1f}",
                    v < limit,
                    r.get("open_item_fingerprint_cpu_s"),
                )
        return out

    row(
        "open with a fold snapshot → first item → fingerprint (floor: read + SHA-256 of the journal's and the snapshot's bytes)",
        "< 5 s",
        open_cells(True, 5),
    )
    row(
        "open without a snapshot → first item → fingerprint (floor: stdlib parse + SHA-256 of every line)",
        "< 40 s",
        open_cells(False, 40),
    )
    row(
        "build: every write resolved and journaled (floor: serialise, SHA-256 and write each record)",
        "< 120 s",
        {
            s: _cell(
                _seconds(r["build_s"]),
                _seconds(r["write_floor_s"]),
                r["build_s"] / r["write_floor_s"],
                _load_range(r),
                r["build_s"] < 120,
                r.get("build_cpu_s"),
            )
            for s, r in big.items()
            if r.get("write_floor_s")
        },
    )
    row(
        "retraction + fingerprint, p99 (floor: p99 of one record's serialise + SHA-256 + write)",
        "< 10 ms",
        {
            s: _cell(
                _seconds(r["retract_p99_s"]) + f" over {r['retractions']}",
                _seconds(r["append_p99_floor_s"]),
                r["retract_p99_s"] / r["append_p99_floor_s"],
                _load_range(r),
                r["retract_p99_s"] < 0.010,
                r.get("retract_p99_cpu_s"),
            )
            for s, r in big.items()
            if r.get("append_p99_floor_s")
        },
    )
    row(
        "peak memory (floor: the journal's size on disk)",
        "< 3 GiB",
        {
            s: _cell(
                f"{r['peak_rss_mb'] / 1024:.2f} GiB",
                f"{r['journal_mb']:.0f} MB",
                r["peak_rss_mb"] / r["journal_mb"],
                _load_range(r),
                r["peak_rss_mb"] < 3 * 1024,
            )
            for s, r in big.items()
        },
    )
    for tag, rows in (("10⁶", big), ("10⁵", mid)):
        if rows:
            row(
                f"{tag} full rebuild from the journal, up to the fingerprint (floor: stdlib parse + SHA-256 of every line)",
                "≤ 3× floor at 10⁵" if tag == "10⁵" else "—",
                {
                    s: _cell(
                        _seconds(r["rebuild_jsonl_s"]),
                        _seconds(r["floor_s"]),
                        r["rebuild_jsonl_s"] / r["floor_s"],
                        _load_range(r),
                        r["rebuild_jsonl_s"] / r["floor_s"] <= 3 if tag == "10⁵" else None,
                        r.get("rebuild_jsonl_cpu_s"),
                    )
                    for s, r in rows.items()
                },
            )
    used = [
        f
        for tag in ("1e6", "1e5")
        for stream in STREAMS
        if (f := _newest(results, f"store_scale_{tag}", _suffix(stream)))
    ]
    dates = sorted({json.loads(f.read_text())["date"] for f in used})
    ow = _newest(results, "open_wait_1e6")
    sizes = sorted({r["n"] for r in [*big.values(), *opens.values()]})
    lines += [
        "",
        f"Measured {', '.join(dates) or '—'} (store_scale; open_wait: `{ow.name if ow else '—'}`) from "
        f"`{results.relative_to(ROOT)}`, "
        f"items: {', '.join(f'{n:,}' for n in sizes) or '—'}; ✓/✗: the goal met or not; "
        "load: the machine's 1-minute load average during that run.",
        "",
        END,
    ]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default=str(RESULTS))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    block = render(Path(a.results).resolve())
    stale = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        if BEGIN not in text:
            continue
        new = _BLOCK.sub(lambda _: block, text)
        if new != text:
            stale.append(page)
            if not a.check:
                page.write_text(new, encoding="utf-8")
    for page in stale:
        print(f"{'stale' if a.check else 'rewrote'}: {page.relative_to(ROOT)}")
    return 1 if a.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
