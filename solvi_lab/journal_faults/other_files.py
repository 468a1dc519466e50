"""Damage the two files that are not journals — a Parquet export and a WorldMap map file — and count what loading does.

Parquet rows: one changed byte per trial (a random offset, a random other value), with the export's `.sha256`
beside it and without it. Every trial runs in a worker process: a reader that aborts the interpreter (SIGABRT) or
leaves through a BaseException ends the worker, the trial is counted as "process ended" (an other exception —
a bug of the protection), and a new worker goes on with the next trial. Map rows: one changed byte per trial, a
cut at every byte, and the last k records deleted (the JSON still whole), loaded in this process (pure Python).

Outcomes as in `files.py`: detected (CorruptJournal), unchanged (it loaded and the records are exactly the
original's: a byte no reader uses), silent (it loaded and something differs), or the name of any other exception.

    python -m solvi_lab.journal_faults.other_files   # the CI-sized rows, printed
    SOLVI_LAB_PARQUET_TRIALS=5000 python benchmarks/faults.py   # the full table with 5,000 Parquet trials per row
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

from ..errors import CorruptJournal
from ..journal import Journal, canonical
from .files import Row

__all__ = ["map_byte_changes", "map_cuts", "map_deleted_tail", "parquet_byte_changes"]


def _journal(n: int, seed: int) -> Journal:
    rng = random.Random(seed)
    stamps = iter(range(1_700_000_000, 1_800_000_000, 7))
    j = Journal(timestamps=lambda: next(stamps) + 0.25)
    for i in range(n):
        j.append(
            rng.choice(["note", "obs", "k"]),
            {"i": i, "text": rng.choice(["é", "日本", "plain"]) * rng.randint(1, 4), "x": [i, i / 3, None]},
        )
    return j


def _flip(data: bytes, rng: random.Random) -> tuple[bytes, int]:
    at = rng.randrange(len(data))
    new = rng.choice([b for b in range(256) if b != data[at]])
    return data[:at] + bytes([new]) + data[at + 1 :], at


# -- Parquet ------------------------------------------------------------------------------------------------------


def parquet_byte_changes(d: Path, trials: int, *, digest: bool = True, seed: int = 0, records: int = 40) -> Row:
    """`trials` copies of one export, each with one byte changed, imported by `import_journal` in worker processes."""
    from ..explore.parquet import digest_path, export_journal

    src = export_journal(_journal(records, seed), d / "clean.parquet")
    clean = src.read_bytes()
    rng = random.Random(seed)
    jobs = []
    for i in range(trials):
        damaged, at = _flip(clean, rng)
        p = d / f"t{i}.parquet"
        p.write_bytes(damaged)
        if digest:
            shutil.copyfile(digest_path(src), digest_path(p))
        jobs.append({"path": str(p), "offset": at})
    original = [r.hash for r in _journal(records, seed)]
    manifest = d / "manifest.json"
    manifest.write_text(json.dumps({"jobs": jobs, "original": original}))
    row = Row(f"Parquet one-byte change ({'with' if digest else 'without'} its .sha256)", "parquet")
    root = str(Path(__file__).resolve().parents[2])  # the worker imports this copy of solvi_lab, not another
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    start = 0
    while start < len(jobs):
        done = subprocess.run(
            [sys.executable, "-m", "solvi_lab.journal_faults.other_files", "worker", str(manifest), str(start)],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=False,
        )
        finished = start
        for line in done.stdout.splitlines():
            if not line.startswith("{"):
                continue
            out = json.loads(line)
            row.count(out["outcome"], out["detail"])
            finished = out["trial"] + 1
        if finished < len(jobs) and done.returncode != 0:  # the worker ended inside trial `finished`
            how = f"signal {-done.returncode}" if done.returncode < 0 else f"exit {done.returncode}"
            row.count(f"process ended ({how})", f"trial {finished} (byte {jobs[finished]['offset']}): {how}")
            finished += 1
        start = finished
    row.note = f"{records} records, {len(clean):,} bytes; each trial in a worker process"
    return row


def _worker(manifest: Path, start: int) -> None:
    from ..explore.parquet import import_journal

    spec = json.loads(manifest.read_text())
    for i, job in enumerate(spec["jobs"][start:], start):
        try:
            got = [r.hash for r in import_journal(job["path"])]
            outcome, detail = ("unchanged", "") if got == spec["original"] else ("silent", f"{len(got)} records")
        except CorruptJournal as e:
            outcome, detail = "detected", str(e)[:300]
        except BaseException as e:  # noqa: BLE001 - a panic is what this row exists to count
            outcome, detail = type(e).__name__, f"byte {job['offset']}: {type(e).__name__}: {str(e)[:200]}"
        print(json.dumps({"trial": i, "outcome": outcome, "detail": detail}), flush=True)


# -- the WorldMap map file ------------------------------------------------------------------------------------


def _saved_map(d: Path, n: int, seed: int) -> tuple[Path, dict]:
    from ..worldmap import WorldMap

    rng = random.Random(seed)
    path = d / "clean.json"
    m = WorldMap(path, scope="faults")
    places = ["/", "/billing", "é日本", ("room", 3), 7, "/reports"]
    for _ in range(n):
        a, b = rng.sample(places, 2)
        getattr(m, rng.choice(["see", "arrive", "human"]))(a, rng.choice(["go", "look", "Refunds"]), b)
    m.save()
    return path, _loaded(path)


def _loaded(path: Path) -> dict:
    from ..worldmap import WorldMap

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = WorldMap(path)
    return {"state": canonical(m.state()), "head": m.journal.head().hash}


def _classify_map(path: Path, original: dict) -> tuple[str, str]:
    try:
        got = _loaded(path)
    except CorruptJournal as e:
        return "detected", str(e)
    except Exception as e:  # what this row exists to find
        return type(e).__name__, f"{type(e).__name__}: {str(e)[:200]}"
    return ("unchanged", "") if got == original else ("silent", "loaded with other claims or another head")


def map_byte_changes(d: Path, trials: int, *, seed: int = 0, entries: int = 30) -> Row:
    """One changed byte per trial. A byte of the readable edges copy (which load ignores) or of JSON whitespace
    that keeps the text JSON loads the same map: unchanged."""
    src, original = _saved_map(d, entries, seed)
    clean, rng = src.read_bytes(), random.Random(seed)
    row, p = Row("map file one-byte change", "worldmap"), d / "t.json"
    for _ in range(trials):
        damaged, at = _flip(clean, rng)
        p.write_bytes(damaged)
        outcome, detail = _classify_map(p, original)
        row.count(outcome, f"byte {at}: {detail}")
    row.note = f"{entries} entries, {len(clean):,} bytes"
    return row


def map_cuts(d: Path, *, full: bool = False, seed: int = 0, entries: int = 30) -> Row:
    """The file cut at a byte offset: every offset (full) or every 29th (quick); the last one keeps the whole text."""
    src, original = _saved_map(d, entries, seed)
    clean = src.read_bytes()
    row, p = Row("map file cut at a byte", "worldmap"), d / "t.json"
    for at in range(0, len(clean), 1 if full else 29):
        p.write_bytes(clean[:at])
        outcome, detail = _classify_map(p, original)
        row.count(outcome, f"cut at byte {at}: {detail}")
    row.note = f"{'every' if full else 'every 29th'} offset of {len(clean):,} bytes"
    return row


def map_deleted_tail(d: Path, *, seed: int = 0, entries: int = 30) -> Row:
    """The last k records deleted from the file's JSON (k = 1..entries), the text still valid JSON."""
    src, original = _saved_map(d, entries, seed)
    doc = json.loads(src.read_text(encoding="utf-8"))
    row, p = Row("map file last k records deleted", "worldmap"), d / "t.json"
    for k in range(1, len(doc["records"]) + 1):
        cut = {**doc, "records": doc["records"][:-k]}
        p.write_text(json.dumps(cut, ensure_ascii=False), encoding="utf-8")
        outcome, detail = _classify_map(p, original)
        row.count(outcome, f"k={k}: {detail}")
    row.note = "the JSON stays whole; the head at the end disagrees"
    return row


def rows(d: Path, quick: bool = True) -> list[Row]:
    """Every row of this module, CI-sized (quick) or full."""
    out = []
    # each damaged export costs a child process (~1 s on a loaded machine): SOLVI_LAB_PARQUET_TRIALS sizes the rows
    trials = int(os.environ.get("SOLVI_LAB_PARQUET_TRIALS", "12" if quick else "200"))
    for digest in (True, False):
        sub = d / f"parquet-{digest}"
        sub.mkdir()
        out.append(parquet_byte_changes(sub, trials, digest=digest, seed=1 if digest else 2))
    for make in (
        lambda s: map_byte_changes(s, 60 if quick else 2000),
        lambda s: map_cuts(s, full=not quick),
        lambda s: map_deleted_tail(s),
    ):
        sub = d / f"map-{len(out)}"
        sub.mkdir()
        out.append(make(sub))
    return out


if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        _worker(Path(sys.argv[2]), int(sys.argv[3]))
    else:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            for r in rows(Path(tmp)):
                print(r.fault, r.tried, r.detected, r.unchanged, r.silent, dict(r.other), r.examples[:2])
