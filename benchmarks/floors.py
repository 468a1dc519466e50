"""The floors the 10^6 figures are reported against (issue 42): what any implementation must at least do, timed on
the very files a benchmark just measured, in the same process and run.

- `parse_hash_floor`: read the journal, parse every line with the standard library's json and SHA-256 it (the floor
  of any rebuild or open without a snapshot: issue 19's definition, store_scale.floor_seconds);
- `byte_floor`: read and SHA-256 every byte of the given files (the floor of an open that trusts a snapshot only as
  far as the journal's bytes prove it: the journal and the snapshot file, no parsing);
- `write_floor`: write the journal's lines again, one record at a time — serialise the parsed record (sorted keys),
  SHA-256 it and `os.write` it to a new file (the floor of a build that journals every write); with the p99 of one
  such append (the floor of one journaled retraction);
- `load`: the machine's 1-minute load average (a figure without it cannot be read).

>>> import tempfile, os, json
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "j.jsonl")
>>> _ = open(p, "w").write(json.dumps({"a": 1}) + "\\n" + json.dumps({"b": [2]}) + "\\n")
>>> w = write_floor(p); sorted(w), w["records"]
(['append_p99_s', 'records', 'write_s'], 2)
>>> byte_floor([p]) >= 0 and parse_hash_floor(p) >= 0
True
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable


def parse_hash_floor(path: str) -> float:
    """Seconds to read the journal, json.loads every line and SHA-256 it."""
    t = time.perf_counter()
    with open(path, "rb") as f:
        data = f.read()
    loads, sha = json.loads, hashlib.sha256
    for line in data.split(b"\n")[:-1]:
        loads(line)
        sha(line).digest()
    return time.perf_counter() - t


def byte_floor(paths: Iterable[str]) -> float:
    """Seconds to read and SHA-256 every byte of `paths` (those that exist), in 16 MiB chunks."""
    t = time.perf_counter()
    for p in paths:
        if not os.path.exists(p):
            continue
        h = hashlib.sha256()
        with open(p, "rb") as f:
            while chunk := f.read(1 << 24):
                h.update(chunk)
    return time.perf_counter() - t


def write_floor(path: str) -> dict:
    """Write the journal's records again one at a time (serialise with sorted keys, SHA-256, os.write to a new file):
    {"write_s": the whole, "append_p99_s": the p99 of one record's append, "records": how many}."""
    loads, dumps, sha, clock = json.loads, json.dumps, hashlib.sha256, time.perf_counter
    times = []
    fd, out = tempfile.mkstemp(suffix=".jsonl")
    try:
        with open(path, "rb") as f:
            for line in f:  # streamed: parsing is not timed (a build has its records as objects already)
                rec = loads(line)
                t = clock()
                text = dumps(rec, sort_keys=True, separators=(",", ":")).encode()
                sha(text).hexdigest()
                os.write(fd, text + b"\n")
                times.append(clock() - t)
    finally:
        os.close(fd)
        os.unlink(out)
    total = sum(times)
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))] if times else 0.0
    return {"write_s": total, "append_p99_s": p99, "records": len(times)}


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]
