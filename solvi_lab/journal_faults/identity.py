"""The head follows the file to every name (issue 40's last gap): hard links in *another* folder, without xattrs.

A `.head` sits beside one name; a hard link in another folder has none beside it. Without extended attributes (a
file system that keeps none — simulated by making every attribute call fail with ENOTSUP, as the tests do — or the
attribute dropped from the file) only the head index (solvi_lab/journal_head_index.py) tells that name what the
file held. Rows, JSONL only (SQLite keeps its head inside the file):

- a journal cut in place at every record boundary, opened through a hard link in another folder by a writer and by
  a reader: refused each time ("detected"); and the same with the index folder empty, as before the index existed
  (silently accepted: the gap, measured);
- a new journal on a deleted journal's inode number (the file system really reuses it: counted) or, where it did
  not, the deleted journal's entry planted on the new file's number: the new journal must open ("unchanged") — a
  refusal is a false alarm (counted as an other exception, a bug);
- a new file at a deleted journal's very name on its inode number (`same_name_reuse`: the deleted journal's entry
  still "named" there): made by `Journal()` and still empty, it must open ("unchanged": the creating open removed
  the entry); made by hand (`touch`), it opens where the generation is known and is refused where it is not — the
  documented false alarm of an empty file (a cut to zero records leaves the same), which `Journal.forget_head`
  accepts;
- repaired (through either folder's name), moved to another folder (and a new journal at the old name), replaced in
  place after `Journal.forget_head` (through either name): each must open through its own path with exactly the
  records it should hold ("unchanged"); a refusal is a false alarm, other records are "silently accepted".

Every row keeps its index in its own folder (`SOLVI_LAB_STATE_DIR`), never the user's.

    python -m solvi_lab.journal_faults.identity        # the CI-sized rows, printed
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from .. import journal_head, journal_head_index
from ..errors import CorruptJournal
from ..journal import Journal
from .files import Row, build

__all__ = ["false_alarm_rows", "identity_rows", "inode_reuse", "other_folder_cuts", "same_name_reuse"]

_XATTR_CALLS = ("setxattr", "getxattr", "removexattr")


@contextlib.contextmanager
def no_xattrs() -> Iterator[None]:
    """Every extended attribute call fails with ENOTSUP, as on a file system that keeps none."""

    def unsupported(*a: object, **k: object) -> None:
        raise OSError(errno.ENOTSUP, "Operation not supported")

    saved = {name: getattr(os, name) for name in _XATTR_CALLS}
    for name in _XATTR_CALLS:
        setattr(os, name, unsupported)
    try:
        yield
    finally:
        for name, f in saved.items():
            setattr(os, name, f)


@contextlib.contextmanager
def no_generation(on: bool = True) -> Iterator[None]:
    """The inode generation unknown (as on tmpfs or FAT): the index's first-record and still-named rules alone."""
    saved = journal_head_index.generation
    if on:
        journal_head_index.generation = lambda file: None  # type: ignore[assignment]
    try:
        yield
    finally:
        journal_head_index.generation = saved  # type: ignore[assignment]


@contextlib.contextmanager
def state_folder(folder: Path) -> Iterator[Path]:
    """The head index kept in `folder` for the duration (the user's is never touched)."""
    before = os.environ.get(journal_head_index.ENV)
    os.environ[journal_head_index.ENV] = str(folder)
    try:
        yield folder
    finally:
        if before is None:
            os.environ.pop(journal_head_index.ENV, None)
        else:
            os.environ[journal_head_index.ENV] = before


def _hashes(path: Path, mode: str = "a") -> list[str]:
    with Journal(path, mode=mode) as j:
        return [r.hash for r in j]


def _cut(path: Path, keep: int) -> None:
    """Whole records removed from the end, in place (the same file: every name of it sees the cut)."""
    lines = path.read_bytes().split(b"\n")[:-1]
    with open(path, "r+b") as f:
        f.truncate(sum(len(x) + 1 for x in lines[:keep]))


def _open(path: Path, want: list[str], mode: str = "a") -> tuple[str, str]:
    """Open `path`; 'unchanged' when it holds exactly `want`, 'silent' when other records, 'detected' when refused."""
    try:
        got = _hashes(path, mode)
    except CorruptJournal as e:
        return "detected", str(e)
    except Exception as e:  # the fault class this harness exists to find
        return type(e).__name__, f"{type(e).__name__}: {e}"[:300]
    return ("unchanged", "") if got == want else ("silent", f"opened with {len(got)} records (want {len(want)})")


def _fresh(directory: Path) -> tuple[Path, Path, Path]:
    """Empty folders `one/`, `two/` and the state folder under `directory`."""
    for name in ("one", "two", "state"):
        shutil.rmtree(directory / name, ignore_errors=True)
        (directory / name).mkdir(parents=True)
    return directory / "one", directory / "two", directory / "state"


# -- a cut seen through a hard link in another folder ------------------------------------------------------------


def other_folder_cuts(directory: Path, n: int = 24, *, index: bool = True, generation: bool = True) -> Row:
    """A journal of `n` records cut at every record boundary, opened through a hard link in another folder by a
    writer and a reader, with no extended attribute (ENOTSUP at every call; and, on a file system that keeps them,
    the attribute removed from the file). `index=False`: the index folder emptied before each open (as before it).
    `generation=False`: the inode generation unknown (tmpfs, FAT)."""
    what = "with the head index" if index else "head index folder empty (as before the index)"
    if index:
        what += ", inode generation " + ("as the file system tells it" if generation else "unknown")
    row = Row(f"cut journal opened via a hard link in another folder, no xattrs ({what})", "jsonl")
    kinds = {"ENOTSUP": 0, "attribute removed": 0}
    known = 0
    for variant in kinds:
        for keep in range(n):
            one, two, state = _fresh(directory)
            with (
                state_folder(state),
                no_generation(not generation),
                no_xattrs() if variant == "ENOTSUP" else contextlib.nullcontext(),
            ):
                a, b = one / "a.jsonl", two / "b.jsonl"
                build(a, n, seed=keep)
                if variant == "attribute removed":
                    with contextlib.suppress(OSError):  # a file system without them: nothing to remove
                        os.removexattr(a, journal_head.XATTR)
                os.link(a, b)
                want = _hashes(a, "r")
                known += journal_head_index.generation(a) is not None
                _cut(b, keep)
                if not index:
                    shutil.rmtree(state)
                for mode in ("a", "r"):
                    outcome, detail = _open(b, want, mode)
                    row.count(outcome, detail)
                    kinds[variant] += 1
    row.note = (
        f"{n} records cut to 0..{n - 1}, opened by a writer and a reader through the other folder's name: "
        + ", ".join(f"{k} {v}" for k, v in kinds.items())
        + f"; inode generation known in {known} of {2 * n} journals"
    )
    return row


# -- a new journal on a reused inode number ----------------------------------------------------------------------


def inode_reuse(directory: Path, trials: int = 24, tries: int = 50, *, generation: bool = True) -> Row:
    """Each trial: a journal of a few records is deleted (with its .head), then new files are made until one gets
    its inode number (up to `tries`); a new journal there (written by `Journal`, or another journal's file copied
    in) must open, append and reopen. Where no file reused the number, the deleted journal's entry is planted on the
    new journal's number (what reuse would leave). A refusal is a false alarm (an other exception). The journals
    have no time stamps, so the new one's first record is the deleted one's (the first-record rule alone would refuse
    the copies, whose second record differs). `generation=False`: the inode generation unknown."""
    what = "as the file system tells it" if generation else "unknown"
    row = Row(f"new journal on a deleted journal's inode number (stale head index entry, generation {what})", "jsonl")
    reused = planted = 0
    for t in range(trials):
        one, _, state = _fresh(directory)
        with state_folder(state), no_generation(not generation):
            old = one / "old.jsonl"
            with Journal(old) as j:
                build_like(j, 3 + t % 5)
            ino = old.stat().st_ino
            stale = journal_head_index.entry_path(journal_head.identity(old)).read_text(encoding="utf-8")
            other = directory / "other.jsonl"
            other.unlink(missing_ok=True)
            journal_head.head_file(other).unlink(missing_ok=True)
            if t % 2:  # another journal, copied in below: its first record is the deleted one's, then it differs
                with Journal(other) as j:
                    build_like(j)
                    j.append("k", {"other": t})
            old.unlink()
            journal_head.head_file(old).unlink()
            new = None
            for i in range(tries):
                p = one / f"new{i}.jsonl"
                if t % 2:
                    shutil.copyfile(other, p)
                else:
                    with Journal(p) as j:  # a new journal whose first record is the deleted one's
                        build_like(j)
                if p.stat().st_ino == ino:
                    new = p
                    break
            if new is None:  # the file system did not reuse it: what it would leave, planted
                d = json.loads(stale)
                d["file"] = list(journal_head.identity(p))
                journal_head_index.entry_path(journal_head.identity(p)).write_text(json.dumps(d), encoding="utf-8")
                new = p
                planted += 1
            else:
                reused += 1
            try:
                with Journal(new) as j:
                    j.append("k", {"trial": t, "after": True})
                    want = [r.hash for r in j]
                outcome, detail = _open(new, want)
            except CorruptJournal as e:
                outcome, detail = "false refusal (CorruptJournal)", str(e)[:300]
            if outcome == "detected":
                outcome = "false refusal (CorruptJournal)"
            row.count(outcome, detail)
    row.note = (
        f"{row.unchanged} of {row.tried} opened, appended and reopened; the inode number really reused in "
        f"{reused}, planted in {planted}; half new journals made by Journal(), half another journal's file copied in"
    )
    return row


def _on_reused_inode(old: Path, n: int, make, tries: int) -> tuple[Path | None, object]:
    """Write a journal of `n` records at `old`, delete it by hand (its `.head` too: its head index entry stays) and
    make a new file at the same name (`make(path)` returns what it opened, or None), until the new file gets the
    deleted journal's inode number (up to `tries`: another process may take the freed number first; each miss is
    closed and deleted). (None, None) when the file system never reused it."""
    for _ in range(tries):
        for p in (old, journal_head.head_file(old)):
            p.unlink(missing_ok=True)
        with Journal(old) as j:
            build_like(j, n)
        ino = old.stat().st_ino
        old.unlink()
        journal_head.head_file(old).unlink(missing_ok=True)
        opened = make(old)
        if old.stat().st_ino == ino:
            return old, opened
        if opened is not None:
            opened.close()
    return None, None


def same_name_reuse(directory: Path, trials: int = 24, tries: int = 50, *, generation: bool = True) -> list[Row]:
    """A journal of a few records deleted by hand (its `.head` too; its head index entry stays), then a new file at
    the same name on the same inode number — the one case where the deleted journal's entry is still "named" (a
    name it was written through is this file). Two rows:

    - made by `Journal()` and still empty: a reader beside the open writer (the state a crash before the first
      checkpoint leaves), the writer closed and reopened, then one record appended and reopened — each open must
      hold exactly its records ("unchanged"): the open that created the file removed the stale entry;
    - made by hand (`touch`) and empty: where the inode generation is known it opens ("unchanged"); where it is not,
      it is refused ("detected": the documented false alarm — an empty file there is what a cut to zero records
      leaves), and `Journal.forget_head` then accepts it (the note counts it).

    A trial whose inode number the file system did not reuse is not counted (the note says how many were)."""
    what = "as the file system tells it" if generation else "unknown"
    made = Row(
        f"new empty journal made by Journal() at a deleted journal's name on its inode number (generation {what})",
        "jsonl",
    )
    touched = Row(
        f"empty file made by hand (touch) at a deleted journal's name on its inode number (generation {what}"
        + ("" if generation else "; a refusal here is the documented false alarm")
        + ")",
        "jsonl",
    )
    missed = {"made": 0, "touched": 0}
    accepted = refusals = 0
    for t in range(trials):
        one, _, state = _fresh(directory)
        with state_folder(state), no_generation(not generation):
            a = one / "a.jsonl"
            new, writer = _on_reused_inode(a, 2 + t % 5, Journal, tries)
            if new is None:
                missed["made"] += 1
            else:
                outcome, detail = _open(new, [], "r")  # beside the open, still empty writer
                writer.close()
                outcome2, detail2 = _open(new, [])
                with Journal(new) as j:
                    j.append("k", {"trial": t})
                    want = [r.hash for r in j]
                outcome3, detail3 = _open(new, want)
                for o, d in ((outcome, detail), (outcome2, detail2), (outcome3, detail3)):
                    made.count("false refusal (CorruptJournal)" if o == "detected" else o, d)
            new, _ = _on_reused_inode(a, 2 + t % 5, lambda p: p.touch(), tries)
            if new is None:
                missed["touched"] += 1
                continue
            refused = 0
            for mode in ("r", "a"):
                outcome, detail = _open(new, [], mode)
                refused += outcome == "detected"
                if outcome == "detected" and generation:
                    outcome = "false refusal (CorruptJournal)"  # the generation tells a new file: no excuse
                touched.count(outcome, detail)
            if refused:
                Journal.forget_head(new)
                accepted += _open(new, [])[0] == "unchanged"
                refusals += 1
    made.note = (
        f"{made.unchanged} of {made.tried} opens held exactly their records (a reader beside the new writer, the "
        f"writer reopened, then after one append); the inode number reused in {trials - missed['made']} of {trials}"
    )
    touched.note = (
        f"opened {touched.unchanged} of {touched.tried}, refused {touched.detected} (a writer and a reader each); "
        + (f"Journal.forget_head then accepted {accepted} of {refusals} refused files; " if refusals else "")
        + f"the inode number reused in {trials - missed['touched']} of {trials}"
    )
    return [made, touched]


def build_like(j: Journal, n: int = 1) -> None:
    """`n` records without time stamps, the same in every journal (so their first record hashes are equal)."""
    for i in range(n):
        j.append("k", {"i": i})


# -- repaired, moved and replaced journals open through their own path -------------------------------------------


def false_alarm_rows(directory: Path, n: int = 24, *, xattrs: bool = False, generation: bool = True) -> list[Row]:
    """For a journal `one/a.jsonl` with a hard link `two/b.jsonl`: repaired through either name after a cut at
    every record boundary, moved to another folder (and a new journal at the old name), replaced in place after
    `Journal.forget_head` through either name. Every name opens with exactly the records it should hold."""
    what = ("with xattrs" if xattrs else "no xattrs") + ("" if generation else ", inode generation unknown")
    rows = {
        k: Row(f"{k}, opened through its own path and the other folder's ({what})", "jsonl")
        for k in ("repaired through either name", "moved to another folder", "replaced after Journal.forget_head")
    }

    def count(kind: str, path: Path, want: list[str]) -> None:
        outcome, detail = _open(path, want)
        if outcome == "detected":
            outcome = "false refusal (CorruptJournal)"
        rows[kind].count(outcome, f"{path.name}: {detail}")

    for keep in range(n):
        for through in ("link", "own"):
            one, two, state = _fresh(directory)
            with (
                state_folder(state),
                no_generation(not generation),
                contextlib.nullcontext() if xattrs else no_xattrs(),
            ):
                a, b = one / "a.jsonl", two / "b.jsonl"
                build(a, n, seed=keep)
                os.link(a, b)
                full = _hashes(a)
                # repaired: a cut through one name, Journal.repair through `through`
                _cut(b, keep)
                Journal.repair(b if through == "link" else a)
                for p in (a, b):
                    count("repaired through either name", p, full[:keep])
                # replaced in place by another journal, after forget_head through `through`
                other = directory / "other.jsonl"
                other.unlink(missing_ok=True)
                journal_head.head_file(other).unlink(missing_ok=True)
                build(other, 1 + keep % 4, seed=500 + keep)
                Journal.forget_head(b if through == "link" else a)
                a.write_bytes(other.read_bytes())
                replacement = _hashes(other, "r")
                for p in (a, b):
                    count("replaced after Journal.forget_head", p, replacement)
                # moved to another folder; a new journal at the old name
                b.unlink()
                moved = two / ("moved.jsonl" if through == "link" else "a.jsonl")
                os.rename(a, moved)
                count("moved to another folder", moved, replacement)
                with Journal(a) as j:
                    j.append("k", {"new": keep})
                    fresh = [r.hash for r in j]
                count("moved to another folder", a, fresh)
    for r in rows.values():
        r.note = (
            f"{r.unchanged} of {r.tried} opens held exactly the records they should "
            f"({n} cuts/replacements × through the link or the own name)"
        )
    return list(rows.values())


def identity_rows(directory_factory, quick: bool) -> list[Row]:
    """Every row of this module (`directory_factory`: tempfile.TemporaryDirectory, or a test's)."""
    n, trials = (6, 4) if quick else (24, 24)
    rows: list[Row] = []
    for make in (
        lambda d: [other_folder_cuts(d, n)],
        lambda d: [other_folder_cuts(d, n, generation=False)],
        lambda d: [other_folder_cuts(d, n, index=False)],
        lambda d: [inode_reuse(d, trials)],
        lambda d: [inode_reuse(d, trials, generation=False)],
        lambda d: same_name_reuse(d, trials),
        lambda d: same_name_reuse(d, trials, generation=False),
        lambda d: false_alarm_rows(d, n),
        lambda d: false_alarm_rows(d, n, generation=False),
        lambda d: false_alarm_rows(d, n, xattrs=True),
    ):
        with directory_factory() as d:
            rows += make(Path(d))
    return rows


if __name__ == "__main__":  # pragma: no cover - the CI-sized rows, printed
    import tempfile

    for r in identity_rows(tempfile.TemporaryDirectory, "--full" not in sys.argv):
        print(r.fault, r.tried, r.detected, r.with_position, dict(r.other), r.silent, r.unchanged, r.note, sep=" | ")
        for e in r.examples[:2]:
            print("   ", e)
