"""Damage journal files the ways disks, crashes, copies and people do, and classify what opening them does.

Each fault class makes damaged copies of a clean journal (JSONL or SQLite) and opens each copy as a writer would.
An outcome is one of: detected (CorruptJournal; with or without a position named), other exception (any other
type: a bug), silently accepted (it opened and the records differ from the original's, or are fewer), or
unchanged (it opened and the records are exactly the original's: a byte SQLite never reads, JSON whitespace).
"""

from __future__ import annotations

import random
import re
import shutil
import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CorruptJournal
from ..journal import GENESIS, Head, Journal, _hash_text, _header_text, canonical
from ..journal_head import remove_checkpoints

_POSITION = re.compile(r"position \d+|record \d+|records \d+\.\.\d+|byte offset \d+")


@dataclass
class Row:
    """One line of the fault table."""

    fault: str
    backend: str
    tried: int = 0
    detected: int = 0
    with_position: int = 0
    other: Counter = field(default_factory=Counter)
    silent: int = 0
    unchanged: int = 0
    lost: int | None = None  # acknowledged records lost (rows that acknowledge records)
    note: str = ""
    examples: list[str] = field(default_factory=list)

    def count(self, outcome: str, detail: str = "") -> None:
        self.tried += 1
        if outcome == "detected":
            self.detected += 1
            if _POSITION.search(detail):
                self.with_position += 1
        elif outcome == "silent":
            self.silent += 1
            if len(self.examples) < 3:
                self.examples.append(detail)
        elif outcome == "unchanged":
            self.unchanged += 1
        else:
            self.other[outcome] += 1
            if len(self.examples) < 3:
                self.examples.append(detail)


def build(path: Path, n: int = 24, seed: int = 0) -> Head:
    """A clean journal of n varied records (time-stamped, unicode, nested), closed (checkpoint written)."""
    rng = random.Random(seed)
    stamps = iter(range(1_700_000_000, 1_800_000_000, 7))
    with Journal(path, timestamps=lambda: next(stamps) + 0.25) as j:
        for i in range(n):
            j.append(
                rng.choice(["note", "obs", "k"]),
                {
                    "i": i,
                    "text": rng.choice(["é", "日本", "plain", "a\\nb"]) * rng.randint(1, 4),
                    "x": [i, i / 3, None],
                },
            )
        return j.head()


def contents(path: Path) -> list[tuple[str, str, str]]:
    with Journal(path, mode="r") as j:
        return [(r.kind, canonical(r.payload), r.hash) for r in j]


def classify(path: Path, original: list, kept: Head | None = None, exact: bool = False) -> tuple[str, str]:
    """Open a damaged copy as a writer (and, with a kept head, verify against it); return (outcome, detail)."""
    try:
        with Journal(path) as j:
            got = [(r.kind, canonical(r.payload), r.hash) for r in j]
            if kept is not None:
                report = j.verify(head=kept, exact=exact)
                if not report:
                    return "detected", f"position {report.position}: {report.problem}"
    except CorruptJournal as e:
        return "detected", str(e)
    except Exception as e:  # the fault class this harness exists to find
        return type(e).__name__, f"{type(e).__name__}: {e}"[:300]
    if got == original:
        return "unchanged", ""
    return "silent", f"opened with {len(got)} records (original {len(original)})"


# -- copies ---------------------------------------------------------------------------------------------------


def _copy(src: Path, dst: Path) -> None:
    for p in dst.parent.glob(dst.name + "*"):
        p.unlink()
    shutil.copyfile(src, dst)
    head = Path(str(src) + ".head")
    if head.exists():
        shutil.copyfile(head, str(dst) + ".head")


def _rows(path: Path) -> list[tuple]:
    db = sqlite3.connect(path)
    rows = db.execute("SELECT position, kind, payload, prev, hash, t FROM records ORDER BY position").fetchall()
    db.close()
    return rows


def _put_rows(path: Path, rows: list[tuple], renumber: bool = True) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM records")
        for i, r in enumerate(rows):
            db.execute("INSERT INTO records VALUES (?,?,?,?,?,?)", ((i if renumber else r[0]),) + tuple(r[1:]))
    db.close()


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def _put_lines(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(x + b"\n" for x in lines))


def _forge_line(position: int, kind: str, payload: Any, prev: str) -> tuple[bytes, str]:
    h = _hash_text(_header_text(position, kind, canonical(payload), prev, None))
    d = {"hash": h, "kind": kind, "payload": payload, "position": position, "prev": prev, "t": None}
    return canonical(d).encode(), h


def _rewrite_from(lines_or_rows: list, start: int, sqlite: bool) -> list:
    """Records from `start` on replaced by forged ones whose chain is recomputed."""
    out = list(lines_or_rows[:start])
    prev = GENESIS if start == 0 else (out[-1][4] if sqlite else _json_hash(out[-1]))
    for pos in range(start, len(lines_or_rows)):
        payload = {"forged": pos}
        line, h = _forge_line(pos, "note", payload, prev)
        out.append((pos, "note", canonical(payload), prev, h, None) if sqlite else line)
        prev = h
    return out


def _json_hash(line: bytes) -> str:
    import json

    return json.loads(line)["hash"]


# -- the fault classes ------------------------------------------------------------------------------------------


def _trials(clean: Path, work: Path, backend: str, fault: str, full: bool, rng: random.Random) -> Iterator[tuple]:
    """Yield (description, kept head, exact) after writing each damaged copy of `clean` to `work`."""
    sqlite = backend == "sqlite"
    n = len(contents(clean))
    if fault == "cut inside the last record":
        data = clean.read_bytes()
        if sqlite:
            # the file's last page holds the newest rows: cut at every byte offset of it
            lo, hi = max(0, len(data) - 4096), len(data)
        else:
            lo, hi = data.rstrip(b"\n").rfind(b"\n") + 1, len(data)
        offsets = range(lo + 1, hi) if full else sorted(rng.sample(range(lo + 1, hi), min(40, hi - lo - 1)))
        for off in offsets:
            _copy(clean, work)
            with open(work, "r+b") as f:
                f.truncate(off)
            yield f"cut at byte {off}", None, False
    elif fault.startswith("cut at a record boundary"):
        for keep in range(n):
            _copy(clean, work)
            if sqlite:
                _put_rows(work, _rows(work)[:keep])
            else:
                _put_lines(work, _lines(work)[:keep])
            kept = None
            if "no checkpoint" in fault:
                _drop_checkpoint(work, sqlite)
                kept = Head(n, _last_hash(clean)) if ("kept head" in fault and "no kept head" not in fault) else None
            yield f"cut to {keep} records", kept, False
    elif fault == "random single-byte change":
        data = clean.read_bytes()
        for _ in range(2000 if full else 150):
            off = rng.randrange(len(data))
            new = rng.choice([b for b in range(256) if b != data[off]])
            _copy(clean, work)
            with open(work, "r+b") as f:
                f.seek(off)
                f.write(bytes([new]))
            yield f"byte {off} -> {new}", None, False
    elif fault in ("deleted record", "swapped records", "duplicated record"):
        for k in range(n - (1 if fault == "swapped records" else 0)):
            _copy(clean, work)
            items = _rows(work) if sqlite else _lines(work)
            if fault == "deleted record":
                del items[k]
            elif fault == "swapped records":
                items[k], items[k + 1] = items[k + 1], items[k]
            else:
                items.insert(k + 1, items[k])
            _put_rows(work, items) if sqlite else _put_lines(work, items)
            yield f"{fault} at {k}", None, False
    elif fault == "forged tail (chain recomputed)":
        for k in range(n):
            _copy(clean, work)
            items = _rewrite_from(_rows(work) if sqlite else _lines(work), k, sqlite)
            _put_rows(work, items, renumber=False) if sqlite else _put_lines(work, items)
            yield f"rewritten from {k}", None, False
    elif fault.startswith("forged record appended"):
        for extra in range(1, (6 if full else 3)):
            _copy(clean, work)
            items = _rows(work) if sqlite else _lines(work)
            prev = items[-1][4] if sqlite else _json_hash(items[-1])
            for i in range(extra):
                line, h = _forge_line(n + i, "note", {"forged": i}, prev)
                items.append((n + i, "note", canonical({"forged": i}), prev, h, None) if sqlite else line)
                prev = h
            _put_rows(work, items, renumber=False) if sqlite else _put_lines(work, items)
            kept = Head(n, _last_hash(clean)) if ("kept head" in fault and "no kept head" not in fault) else None
            yield f"{extra} forged records appended", kept, kept is not None
    else:
        raise ValueError(f"unknown fault class {fault!r}")


def _last_hash(path: Path) -> str:
    return contents(path)[-1][2]


def _drop_checkpoint(path: Path, sqlite: bool) -> None:
    """The journal as if it had never been checkpointed: SQLite's head row back at an empty journal's (a missing
    row is itself reported), JSONL's checkpoint gone from both its places."""
    if sqlite:
        db = sqlite3.connect(path)
        with db:
            db.execute("UPDATE head SET count = 0, hash = ?", (GENESIS,))
        db.close()
    else:
        remove_checkpoints(path)


FILE_FAULTS: list[tuple[str, str]] = [
    ("cut inside the last record", ""),
    ("cut at a record boundary (checkpoint)", ""),
    ("cut at a record boundary (no checkpoint, kept head)", ""),
    ("cut at a record boundary (no checkpoint, no kept head)", "undetectable by design: see README"),
    ("random single-byte change", ""),
    ("deleted record", ""),
    ("swapped records", ""),
    ("duplicated record", ""),
    ("forged tail (chain recomputed)", ""),
    ("forged record appended (kept head)", ""),
    ("forged record appended (no kept head)", "undetectable by design: see README"),
]


def run_file_fault(fault: str, backend: str, directory: Path, *, full: bool = False, seed: int = 0) -> Row:
    """Run one fault class on one backend; return its table row."""
    ext = ".sqlite" if backend == "sqlite" else ".jsonl"
    clean, work = directory / ("clean" + ext), directory / ("work" + ext)
    for p in directory.glob("clean*"):
        p.unlink()
    build(clean)
    original = contents(clean)
    row = Row(fault, backend, note=dict(FILE_FAULTS).get(fault, ""))
    rng = random.Random(seed)
    for what, kept, exact in _trials(clean, work, backend, fault, full, rng):
        outcome, detail = classify(work, original, kept, exact)
        row.count(outcome, f"{what}: {detail}")
    return row


__all__ = ["FILE_FAULTS", "Row", "build", "classify", "contents", "run_file_fault"]
