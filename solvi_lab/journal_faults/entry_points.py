"""Bad input at every entry point of `Journal`, and hostile arguments to the owners' writes (issue 40, 5).

A *case* is one call with one bad value: a path that is not a path (an int, None, bytes, a NUL, an object whose
`__fspath__` raises, 5,000 characters), a head nested 5,000 deep or 300,000 characters long, a mode, backend or
durability whose `__eq__` raises, and — for `DecisionLog.record`, `FailureMemory(...)` and the store's writes —
arguments whose `__eq__`, `__hash__` or `__repr__` raise. The promise: each raises the project's error
(`SolviLabError`), its message is one line of at most 1,000 characters, and it quotes at most 80 characters of
any value (a long value's prefix; a hostile one by its type). `run_cases()` counts; tests/faults/ and
benchmarks/faults.py use it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SolviLabError

__all__ = ["CASES", "Outcome", "cases", "run_cases"]

LONG = 300_000  # characters of a long value


class EqRaises:
    """A hostile argument: comparing it raises."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("__eq__ refused")

    __hash__ = object.__hash__


class HashRaises:
    """A hostile argument: hashing it raises."""

    def __hash__(self) -> int:
        raise RuntimeError("__hash__ refused")


class ReprRaises:
    """A hostile argument: its repr raises."""

    def __repr__(self) -> str:
        raise RuntimeError("__repr__ refused")


class AllRaise:
    """Comparing, hashing, printing and asking for its path all raise."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("__eq__ refused")

    def __hash__(self) -> int:
        raise RuntimeError("__hash__ refused")

    def __repr__(self) -> str:
        raise RuntimeError("__repr__ refused")

    def __fspath__(self) -> str:
        raise RuntimeError("__fspath__ refused")


def deep(n: int) -> Any:
    v: Any = "x"
    for _ in range(n):
        v = [v]
    return v


HOSTILE = [EqRaises(), HashRaises(), ReprRaises(), AllRaise(), "z" * LONG, deep(5000)]


def cases(d: Path) -> list[tuple[str, Callable[[], Any]]]:
    """Every case, as (name, call), with files in the directory `d`."""
    from ..decisions import DecisionLog
    from ..failures import FailureMemory
    from ..journal import Journal
    from ..knowledge import KnowledgeStore

    out: list[tuple[str, Callable[[], Any]]] = []
    bad_paths = [5, None, b"x.jsonl", str(d / "a\x00b.jsonl"), "", AllRaise(), str(d / ("x" * 5000)), 2.5, ["p"]]
    for i, p in enumerate(bad_paths):
        if p is not None:
            out.append((f"Journal(path #{i})", lambda p=p: Journal(p)))
            out.append((f"Journal.open(path #{i})", lambda p=p: Journal.open(p)))
        out.append((f"Journal.read(path #{i})", lambda p=p: Journal.read(p)))
        out.append((f"Journal.repair(path #{i})", lambda p=p: Journal.repair(p)))
        out.append((f"Journal.forget_head(path #{i})", lambda p=p: Journal.forget_head(p)))
    for i, h in enumerate([*HOSTILE, [1, "y" * LONG], ("x", 1), -1]):
        out.append((f"Journal(expect_head #{i})", lambda h=h, i=i: Journal(d / f"e{i}.jsonl", expect_head=h)))
        out.append((f"journal.check_head(#{i})", lambda h=h: Journal().check_head(h)))
        out.append((f"journal.verify(head=#{i})", lambda h=h: Journal().verify(head=h)))
    for i, v in enumerate([*HOSTILE, 5, []]):
        out.append((f"Journal(mode #{i})", lambda v=v: Journal(d / "m.jsonl", mode=v)))
        out.append((f"Journal(backend #{i})", lambda v=v: Journal(d / "b.jsonl", backend=v)))
        out.append((f"Journal(durability #{i})", lambda v=v: Journal(d / "u.jsonl", durability=v)))
        out.append((f"Journal(timestamps #{i})", lambda v=v: Journal(timestamps=v)))
        out.append((f"Journal(checkpoint_seconds #{i})", lambda v=v: Journal(checkpoint_seconds=v)))
        out.append((f"Journal(checkpoint_every #{i})", lambda v=v: Journal(checkpoint_every=v)))
        out.append((f"Journal(on_load #{i})", lambda v=v: Journal(on_load=v)))
        out.append((f"Journal(skip_prefix #{i})", lambda v=v: Journal(d / "s.jsonl", skip_prefix=v)))
        out.append((f"Journal.repair(keep #{i})", lambda v=v: Journal.repair(d / "m.jsonl", keep=v)))
        out.append((f"journal.records(start #{i})", lambda v=v: Journal().records(v)))
        out.append((f"journal.records(stop #{i})", lambda v=v: Journal().records(0, v)))
        out.append((f"journal.records(kind #{i})", lambda v=v: Journal().records(0, None, v)))
        out.append((f"journal[#{i}]", lambda v=v: Journal()[v]))
        out.append((f"journal.append(kind #{i})", lambda v=v: Journal().append(v, {})))
        out.append((f"journal.append(payload #{i})", lambda v=v: Journal().append("note", {"v": v})))
        out.append((f"journal.vouch(#{i})", lambda v=v: _one_record().vouch(v)))
        if not isinstance(v, str):  # a str is the caller's promise (canonical(value)): not checked, by design
            out.append((f"journal.append_encoded(text #{i})", lambda v=v: Journal().append_encoded("note", v, {})))
    log = DecisionLog()
    ks = KnowledgeStore()
    first = ks.add("fact", {"s": "a", "r": "r", "o": 1}, source="person")
    for i, h in enumerate(HOSTILE):
        out += [
            (f"DecisionLog.record(name #{i})", lambda h=h: log.record(h, {}, 1, answered_by="system2")),
            (f"DecisionLog.record(given #{i})", lambda h=h: log.record("n", {"g": h}, 1, answered_by="system2")),
            (f"DecisionLog.record(answer #{i})", lambda h=h: log.record("n", {}, h, answered_by="system2")),
            (f"DecisionLog.record(answered_by #{i})", lambda h=h: log.record("n", {}, 1, answered_by=h)),
            (f"DecisionLog.get(#{i})", lambda h=h: log.get(h)),
            (f"FailureMemory(window #{i})", lambda h=h: FailureMemory(window=h)),
            (f"FailureMemory(unit #{i})", lambda h=h: FailureMemory(unit=h)),
            (f"FailureMemory(max_blocked #{i})", lambda h=h: FailureMemory(max_blocked=h)),
            (f"FailureMemory(name #{i})", lambda h=h: FailureMemory(name=h)),
            (f"FailureMemory.failed(#{i})", lambda h=h: FailureMemory().failed(h)),
            (f"ks.add(kind #{i})", lambda h=h: ks.add(h, {"s": "a", "r": "r", "o": 1}, source="person")),
            (f"ks.add(body #{i})", lambda h=h: ks.add("fact", h, source="person")),
            (f"ks.add(o #{i})", lambda h=h: ks.add("fact", {"s": "a", "r": "r", "o": h}, source="person")),
            (f"ks.add(source #{i})", lambda h=h: ks.add("fact", {"s": "a", "r": "r", "o": 1}, source=h)),
            (f"ks.add(by #{i})", lambda h=h: ks.add("fact", {"s": "a", "r": "r", "o": 1}, source="person", by=h)),
            (
                f"ks.add(derived_from #{i})",
                lambda h=h: ks.add("fact", {"s": "a", "r": "r", "o": 2}, source="person", derived_from=[h]),
            ),
            (f"ks.retract(#{i})", lambda h=h: ks.retract(h, by="a", why="b")),
            (f"ks.retract(by #{i})", lambda h=h: ks.retract(first, by=h, why="b")),
            (f"ks.resolve(value #{i})", lambda h=h: ks.resolve(first, h, by="a")),
            (f"ks.flag(#{i})", lambda h=h: ks.flag(h, why="x")),
            (f"ks.item(#{i})", lambda h=h: ks.item(h)),
        ]
    return out


def _one_record() -> Any:
    """A writable in-memory journal of one record (vouch names a record)."""
    from ..journal import Journal

    j = Journal()
    j.append("note", {})
    return j


@dataclass
class Outcome:
    """What the cases did: refused with the project's error; any other exception (bare); a refusal message over
    1,000 characters, over one line, or quoting more than 80 characters of a long value; accepted."""

    tried: int = 0
    refused: int = 0
    accepted: int = 0
    bare: dict[str, int] = field(default_factory=dict)
    long: int = 0
    multiline: int = 0
    quoted: int = 0
    examples: list[str] = field(default_factory=list)


def _quotes_too_much(msg: str) -> bool:
    return "z" * 81 in msg or "y" * 81 in msg or "x" * 200 in msg


def run_cases(directory: Path | None = None) -> Outcome:
    """Run every case (in `directory`, a new temporary one by default) and count."""
    out = Outcome()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(directory or tmp)
        (d / "m.jsonl").write_bytes(b"")  # a journal for Journal.repair(keep=...) to find
        for name, call in cases(d):
            out.tried += 1
            try:
                call()
            except SolviLabError as e:
                out.refused += 1
                msg = str(e)
                problems = []
                if len(msg) > 1000:
                    out.long += 1
                    problems.append(f"{len(msg)} chars")
                if "\n" in msg:
                    out.multiline += 1
                    problems.append("several lines")
                if _quotes_too_much(msg):
                    out.quoted += 1
                    problems.append("quotes > 80 chars of a value")
                if problems and len(out.examples) < 5:
                    out.examples.append(f"{name}: {', '.join(problems)}: {msg[:120]}")
            except Exception as e:  # noqa: BLE001 - what the row counts
                kind = type(e).__name__
                out.bare[kind] = out.bare.get(kind, 0) + 1
                if len(out.examples) < 5:
                    out.examples.append(f"{name}: {kind}: {str(e)[:120]}")
            else:
                out.accepted += 1
    return out


CASES = cases  # the table, by its one name
