"""Loading a fold snapshot (knowledge/fold_snapshot.py has the format): checked against the journal as it is read.

Its one job: as the journal loads (`SnapshotLoader.on_load`), fold every record — or, with a snapshot whose file,
rules stamp and journal hashes hold, skip the records it covers, load its rows (knowledge/snapshot_rows.py) at the
record that names its digest, and check the state's fingerprint against that record; `finish()` then requires the
journal's head checkpoint to vouch for the record, and says in one warning why a snapshot was not used (the fold is
then folded from the journal from scratch). It may not write anything.
"""

from __future__ import annotations

import hashlib
import warnings
from typing import Any

from ..journal import Prefix
from . import digests
from .fold_snapshot import _LOADS, FORMAT, MARKER_KIND, VERSION, FoldSnapshotIgnored, log, rules_stamp, snapshot_path
from .snapshot_rows import _load_rows


class SnapshotLoader:
    """The `on_load` of a journal opened by the store: folds every record, or — with a snapshot that holds —
    skips the records the snapshot covers, checks the journal against it as it is read, and loads it at its record.

    `finish()` after the load: a snapshot the journal did not bear out leaves the store empty at position 0 (the
    store's catch-up then folds the journal from scratch) after one warning saying why.
    """

    def __init__(self, fold: Any, journal_path: Any, use: bool = True, freeze_min: int | None = None):
        self.st = fold  # the store's fold (knowledge/fold.py): what the records and the snapshot's rows go into
        self.fold = fold._load
        self.freeze_min = freeze_min  # the store's FREEZE_MIN_RECORDS (the lazy item table's freeze threshold)
        self.snapshot_position: int | None = None  # the position of the snapshot used (None: none)
        self.path = snapshot_path(journal_path) if journal_path is not None and use else None  # None: not read
        self.header: dict | None = None
        self.body: tuple[bytes, int, int, int] | None = None  # the file's bytes; where its rows start, end, and its
        # meta rows start
        self.digest = ""
        self.problem = ""
        self.rejected = False  # a check during the load failed: the state is reset, the load folds nothing more
        self.accepted = False
        self.marker_seen: int | None = None
        self.marker_hash = ""  # the hash of the record that names the snapshot (what the head must vouch for)
        self.false_markers: list[int] = []  # fold-snapshot records whose fingerprint the replay does not give
        self.skip_to = 0  # records below this position are covered by the snapshot (0: none)
        self.prefix: Prefix | None = None  # the journal's Journal(skip_prefix=): the records the snapshot covers
        if self.path is not None:
            self._read_file()

    def _read_file(self) -> None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return  # noted in finish(): only a journal that records a snapshot warns about a missing file
        except OSError as e:
            self.problem = f"it cannot be read ({e})"
            return
        if not data.endswith(b"\n"):
            self.problem = "it is damaged (it does not end with its digest line)"
            return
        cut = data.rfind(b"\n", 0, len(data) - 1) + 1
        body, last = memoryview(data)[:cut], data[cut:-1]  # the body not copied (it is the file's size)
        try:
            top = _LOADS(last)
            ok = type(top) is dict and top.get("format") == FORMAT and isinstance(top.get("digest"), str)
        except (ValueError, RecursionError):
            ok = False
        if not ok:
            self.problem = "it is damaged (its last line is not a fold snapshot's digest line)"
            return
        if top.get("version") != VERSION:
            self.problem = f"it is format version {top.get('version')!r}, this code reads version {VERSION}"
            return
        if hashlib.sha256(body).hexdigest() != top["digest"]:
            self.problem = "it is damaged (its content does not match its own digest)"
            return
        meta_at = top.get("meta_at")
        if type(meta_at) is not int:
            self.problem = "it is damaged (its digest line does not say where its rows start)"
            return
        nl = data.find(b"\n")
        header_line = data[:nl]
        try:
            header = _LOADS(header_line)
            n, last, first, rules = header["position"], header["last_hash"], header["first_hash"], header["rules"]
        except (ValueError, KeyError, TypeError, RecursionError):
            self.problem = "it is damaged (its header cannot be read)"
            return
        if rules != rules_stamp():
            self.problem = "it was written by another version of the fold rules (its rules stamp differs)"
            return
        if not (type(n) is int and n > 0 and isinstance(last, str) and isinstance(first, str)):
            self.problem = "it is damaged (its header cannot be read)"
            return
        self.header, self.body, self.digest, self.skip_to = header, (data, nl + 1, cut, meta_at), top["digest"], n
        nbytes, sha = header.get("journal_bytes"), header.get("journal_sha256")
        if type(nbytes) is int and isinstance(sha, str):
            self.prefix = Prefix(n, first, last, nbytes, sha)

    def _reject(self, why: str) -> None:
        self.problem = why
        self.rejected = True
        self.header = self.body = None
        self.skip_to = 0
        self.st._reset_state()
        self.st._folded = 0

    def on_load(self, record: Any) -> None:
        pos = record.position
        if self.header is None:  # no snapshot pending: none, refused, or loaded already
            if record.kind == MARKER_KIND:
                self.marker_seen = pos
                if not self.rejected:
                    self._check_marker(record)
            if not self.rejected:
                self.fold(record)
            return
        h, n = self.header, self.skip_to
        if pos == 0 and record.hash != h["first_hash"]:
            # Nothing was skipped yet: this journal is folded in the same pass.
            self.problem = "it belongs to another journal (the journal's first record is not the one it names)"
            self.header = self.body = None
            self.skip_to = 0
            self.on_load(record)
            return
        if pos < n - 1:
            return  # covered by the snapshot; the journal's chain checks it as it is read
        if pos == n - 1:
            if record.hash != h["last_hash"]:
                self._reject(
                    f"it names record {pos} with hash {h['last_hash'][:12]}…, but the journal's record {pos} is "
                    f"{record.hash[:12]}… (another journal with the same start, or one rewritten since)"
                )
            return
        # pos == n: the record that must name this snapshot's digest
        if self._at_marker(record):
            try:
                _load_rows(self.st, *self.body, freeze_min=self.freeze_min)
            except Exception as e:  # noqa: BLE001 - a snapshot that cannot be loaded is not used, whatever the cause
                self._reject(f"its rows cannot be loaded ({type(e).__name__}: {e})")
            else:
                if self.st.position != n:
                    self._reject(f"its rows are of position {self.st.position}, its header says {n}")
                elif self._fingerprint() != record.payload.get("fingerprint"):
                    self._reject(
                        "its state's fingerprint is not the one the journal's record names for it (a snapshot "
                        "written by older code, or a forged one)"
                    )
                else:
                    self.accepted = True
                    self.snapshot_position = n
                    self.marker_hash = record.hash
        self.header = self.body = None
        self.on_load(record)

    def _check_marker(self, record: Any) -> None:
        """A fold-snapshot record met while folding: the fingerprint it names must be the fold's at its position
        (what the journal alone gives). One that differs was not written by this library from a sound state (an
        appended forgery, or a state that had diverged); it is noted, and said in the open's one warning."""
        named = record.payload.get("fingerprint") if type(record.payload) is dict else None
        if isinstance(named, str) and named != self._fingerprint():
            self.false_markers.append(record.position)

    def _fingerprint(self) -> str:
        """The fold's fingerprint here, its pending digests settled (the load is the fold's write path)."""
        self.st._flush_digests()
        return digests.fingerprint(self.st)

    def _at_marker(self, record: Any) -> bool:
        p = record.payload
        if record.kind != MARKER_KIND:
            self._reject(f"the journal does not record it (its record {record.position} is a {record.kind!r} record)")
            return False
        if p.get("digest") != self.digest or p.get("position") != record.position:
            self._reject(
                "its digest is not the one the journal recorded for it (the file was edited and given a new "
                "digest, or replaced by another snapshot of the same position)"
            )
            return False
        return True

    def finish(self, journal: Any) -> int | None:
        """After the journal's load: warn once when a snapshot was not used, and drop the reference to the fold
        (the journal keeps this loader as its on_load; the store must not be kept alive through it). Returns the
        position of the snapshot used (None: none; the store notes it).

        A snapshot the load bore out is used only when the journal's head checkpoint vouches for its record
        (`Journal.vouched`): the writer that wrote the snapshot vouched for its record, and a record appended to the
        file by anyone else — after the writer's last checkpoint — is vouched for by no checkpoint."""
        if self.accepted and journal.vouched != self.snapshot_position:
            self.accepted = False
            self._reject(
                f"the journal's head checkpoint does not vouch for its record at position {self.snapshot_position} "
                "(the record was appended after the journal's writer last wrote its checkpoint — by hand or by "
                "another program — or the checkpoint that vouched for it is gone)"
            )
        kept = getattr(journal, "expected_head", None)
        if self.accepted and kept is not None and self.snapshot_position >= kept.count:
            self.accepted = False  # a head the user kept is trusted over the file's checkpoint: it must cover it
            self._reject(
                f"its record at position {self.snapshot_position} is not covered by the head you kept (it ends at "
                f"{kept.count}): it was appended after you kept that head"
            )
        if self.header is not None:  # the journal ended before the snapshot's record
            n = self.skip_to
            self._reject(
                f"the journal does not record it (the journal ends at position {n})"
                if journal.position == n
                else f"it is of position {n}, but the journal holds only {journal.position} records (an older "
                "copy of the journal, or one that lost records)"
            )
            self.header = None
        if not self.accepted and journal.skipped:
            # The journal checked the records the snapshot covers by their chain alone; the store is folded from
            # them after all, so they are parsed and checked now as the full load would have (a failure is a failed
            # open: the journal is released, as after a failed load).
            try:
                journal.recheck_skipped()
            except BaseException:
                journal.close()
                raise
        false = ""
        if self.false_markers:
            where = ", ".join(map(str, self.false_markers[:5])) + (" …" if len(self.false_markers) > 5 else "")
            false = (
                f"; the journal's fold-snapshot record(s) at {where} name a fingerprint its replay does not give "
                "(appended by someone else, or written from a damaged state)"
            )
        if self.problem:
            warnings.warn(
                f"{self.path}: fold snapshot not used: {self.problem}{false}; the store is folded from the journal.",
                FoldSnapshotIgnored,
                stacklevel=4,
            )
        elif false:
            warnings.warn(f"{self.path}: {false[2:]}; no snapshot of it was used.", FoldSnapshotIgnored, stacklevel=4)
        elif not self.accepted and self.path is not None:
            if self.marker_seen is not None:
                warnings.warn(
                    f"{self.path}: fold snapshot not used: the journal records one at position {self.marker_seen}, "
                    "but the file is missing; the store is folded from the journal.",
                    FoldSnapshotIgnored,
                    stacklevel=4,
                )
            else:
                log.info("%s: no fold snapshot; the store is folded from the journal", self.path)
        self.st = self.fold = None
        return self.snapshot_position if self.accepted else None
        self.body = None
