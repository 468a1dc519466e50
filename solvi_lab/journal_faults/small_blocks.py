"""A SQLite journal on a full file system with 1 KiB blocks: an error, never SIGBUS (issue 40, 4).

SQLite's WAL index (`-shm`) is memory-mapped; on a file system whose blocks are smaller than a memory page, pages of
it can stay holes, and a write into one on a full disk kills the writer with SIGBUS. The backend allocates the
index's first 128 KiB at open (`_SqliteBackend._reserve_shm`). This row makes a 3 MiB ext4 with 1 KiB blocks on a
loop device (root only: the row says so when it cannot), and for every amount of free space left in a sweep opens a
closed journal and appends until the disk is full, in a child process. detected = the project's error
(JournalWriteFailed, at open or at an append); other = the child died by a signal (SIGBUS) or raised anything
else; lost = acknowledged records missing when the journal is reopened with the space freed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from ..journal import Journal
from .crash import _child
from .files import Row

__all__ = ["sqlite_full_small_blocks"]

_CHILD = r"""
import json, os, sys, warnings
from solvi_lab.journal import Journal
from solvi_lab.errors import JournalWriteFailed
warnings.simplefilter("ignore")
d, leave, reserve = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
if not reserve:  # the backend as it was before issue 40, for the comparison
    from solvi_lab import journal
    journal._SqliteBackend._reserve_shm = lambda self: None
p = os.path.join(d, "j.sqlite")
with Journal(p) as j:
    for i in range(5):
        j.append("note", {"i": i})
fp = os.path.join(d, "filler")
with open(fp, "wb", buffering=0) as f:
    try:
        while True:
            f.write(b"\0" * 1024)
    except OSError:
        pass
if leave:
    os.truncate(fp, max(0, os.path.getsize(fp) - leave))
try:
    j = Journal(p)
    for i in range(5, 10**6):
        j.append("note", {"i": i, "pad": "x" * 200})
        print(json.dumps(["ack", i]), flush=True)
except JournalWriteFailed as e:
    print(json.dumps(["failed", str(e)[:200]]), flush=True)
except BaseException as e:
    print(json.dumps(["other", type(e).__name__, str(e)[:200]]), flush=True)
"""


def _mount(image: Path, at: Path) -> str:
    """Make and mount a 3 MiB ext4 with 1 KiB blocks; '' or why it could not."""
    if os.geteuid() != 0 or not shutil.which("mkfs.ext4"):
        return "needs root and mkfs.ext4"
    with open(image, "wb") as f:
        f.truncate(3 << 20)
    for cmd in (["mkfs.ext4", "-q", "-F", "-b", "1024", str(image)], ["mount", "-o", "loop", str(image), str(at)]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            return f"{cmd[0]} failed: {r.stderr.strip()[:120]}"
    return ""


def sqlite_full_small_blocks(leaves: range = range(0, 200 * 1024 + 1, 8 * 1024), reserve: bool = True) -> Row:
    """The row; `reserve=False` runs the backend without the reserve (what it did before) for comparison."""
    row = Row(
        "SQLite writer on a full ext4 with 1 KiB blocks" + ("" if reserve else " (without the -shm reserve)"),
        "sqlite",
        lost=0,
    )
    with tempfile.TemporaryDirectory() as tmp:
        image, mnt = Path(tmp) / "fs.img", Path(tmp) / "mnt"
        mnt.mkdir()
        why = _mount(image, mnt)
        if why:
            row.note = f"not run: {why}"
            return row
        signals = 0
        try:
            for leave in leaves:
                for x in mnt.iterdir():
                    if x.is_file():
                        x.unlink()
                p = _child(_CHILD, str(mnt), str(leave), "1" if reserve else "0")
                out, err = p.communicate()
                acked = [json.loads(x)[1] for x in out.splitlines() if x.startswith('["ack"')]
                last = json.loads(out.splitlines()[-1]) if out.strip() else ["none"]
                if p.returncode < 0:
                    signals += 1
                    row.count(signal.Signals(-p.returncode).name, f"{leave} bytes free: killed by a signal")
                elif last[0] == "failed":
                    row.count("detected", last[1])
                else:
                    row.count(str(last[0]), f"{leave} bytes free: {last} {err[-200:]}")
                (mnt / "filler").unlink(missing_ok=True)
                with Journal(mnt / "j.sqlite") as j:
                    got = {r.payload["i"] for r in j}
                row.lost += len(set(acked) - got)
        finally:
            subprocess.run(["umount", str(mnt)], capture_output=True)
        row.note = (
            f"{len(leaves)} amounts of free space ({leaves.start // 1024}–{(leaves.stop - 1) // 1024} KiB, step "
            f"{leaves.step // 1024} KiB) when a closed journal is opened and appended to until full: {signals} "
            "killed by a signal"
        )
    return row
