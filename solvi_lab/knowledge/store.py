"""The knowledge store: a deterministic fold over a hash-chained journal.

Every write is a journal record; the store's state is the fold of its journal, so the same journal always gives
the same state and the same fingerprint. `KnowledgeStore.from_journal(journal, skip={x})` (the specification's
`ks.rebuild(skip={x})`) folds the journal as if x had never been written — the definition a retraction must
meet — and `retract(x)` reaches the same state by re-folding only the competition keys that x (and what rests on
x) touch, following premise edges only where a status actually changed.

This module is the facade (its reads in store_reads.py, its history — rebuilds, time travel, verify — in
store_history.py, both mixins of the one class), and its one job is the public face: hand a call's arguments to the module that checks
them, write the record, hand it to the fold it holds (`ks._fold`, a `StoreFold`), answer reads from it. The rules,
checks, opening and reads are functions over the fold in modules that never import this one (docs/ARCHITECTURE.md,
"The knowledge store's layout"). It may not decide a status nor import explore/.

>>> ks = KnowledgeStore()
>>> vip = ks.add("fact", {"s": "c17", "r": "tier", "o": "vip"}, source="person", by="crm")
>>> obs = ks.add("fact", {"s": "c17", "r": "tier", "o": "regular"}, source="outcome")
>>> ks.item(vip)["status"], ks.item(obs)["status"]
('refuted', 'active')
>>> ks.retract(obs, by="ann", why="wrong customer")
>>> ks.item(vip)["status"]
'active'
>>> ks.fingerprint() == ks.rebuild(skip={obs}).fingerprint()
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import validation
from ..decisions import DECISION_KIND, DecisionLog, read_decision
from ..errors import BadInput, WriteRefused
from ..journal import Journal, Record
from ..owner import JournalOwner, serialised
from ..validation import need_bool, writing_call
from . import admission, exit_release, opening, reads, write_records
from .admission import DEFAULT, add_record
from .fold import Fold
from .from_scratch import _gc_paused
from .gates import ConsistencyGate, SourceGate, WriteGate
from .items import Item, item_id
from .read_sums import ReadSums
from .records import RECORD_KIND
from .snapshot_write import close_store, freeze_after_load, write_snapshot
from .store_history import StoreHistory
from .store_reads import StoreReads


class StoreFold(Fold):
    """The store's fold: the knowledge rules (Fold) and the decision records a "verified" item may name."""

    KINDS = (RECORD_KIND, DECISION_KIND)  # decisions are folded too: a "verified" item names one (of=)

    def _fold_other(self, record: Record) -> None:
        """A decision record: read by decisions.read_decision, kept as `_decision_info`."""
        d = read_decision(record)
        self._decision_info[d.id] = (d.answered_by, d.guarantee, d.answer)


@validation.public_calls
class KnowledgeStore(StoreReads, StoreHistory, JournalOwner):
    """What a system learned, and from whom. See the module docstring and README for the rules.

    A journal owner (solvi_lab.owner): every write is a "knowledge" record folded by `_apply`, live and on load.
    The store is the facade around the fold it holds (`_fold`: knowledge/fold.py, whose fields are the fold state):
    it validates a call once, writes the record, hands it to the fold, settles the fold's digests, and answers
    reads from the fold without changing it.

    - `KnowledgeStore(journal=None, *, gates=())`: a store writing to `journal` (a new in-memory one by default;
      a shared one — with a DecisionLog, say — is folded first). `gates`: WriteGates run after the source and
      consistency checks.
    - `KnowledgeStore.open(path, journal_options=None, gates=())` — or `KnowledgeStore(path, timestamps=None,
      expect_head=None)`, the specification's spelling — opens a JSONL or SQLite journal file (created when absent)
      and continues the store in it; `journal_options` (timestamps, expect_head, durability, ...) go to the Journal.
    - `KnowledgeStore.from_journal(journal, upto=None, skip=())` rebuilds it (a read-only view of the past with
      `upto`, or of the store without the items in `skip`); `from_records(records, ...)` does the same from a list
      of records (a Parquet import). `ks.rebuild(...)` (the specification's name) and `ks.at(p)` delegate to it.
    """

    KINDS = StoreFold.KINDS
    _read_only = ""  # why this store writes nothing (a rebuilt view); empty for a live store
    SNAPSHOT_MIN_RECORDS = 10_000  # close() writes a fold snapshot of a journal (and a tail) at least this long
    FREEZE_MIN_RECORDS = 10_000  # an open that folded at least this many records freezes the collector's heap
    EXIT_RELEASE_MIN_RECORDS = 10_000  # at exit, a file store this large: journal closed, memory left to the OS
    opened_from_snapshot = False  # True when open() loaded a fold snapshot and folded only the records after it
    _snapshot_at: int | None = None  # position of the snapshot this store loaded or wrote (None: none usable)
    _snapshot_on_close = False  # set by open(): close() writes a snapshot (see SNAPSHOT_MIN_RECORDS)
    _diverged = ""  # why this store's state was seen to differ from its journal's replay ('' never): no snapshot then

    @_gc_paused
    def __init__(
        self,
        path: Any = None,
        *,
        journal: Journal | None = None,
        gates: Iterable[WriteGate] = (),
        timestamps: Callable[[], float] | None = None,
        expect_head: Any = None,
        **older: Any,
    ):
        self._configure(gates)
        journal, snapshot_at = opening.constructor_journal(
            self._fold, path, journal, timestamps, expect_head, older, self.FREEZE_MIN_RECORDS
        )
        self._opened(journal, snapshot_at, on_file=path is not None, snapshot_on_close=True)

    def _opened(self, journal: Journal, snapshot_at: int | None, *, on_file: bool, snapshot_on_close: bool) -> None:
        """Wire a loaded journal in: fold what it holds beyond the load (a shared or SQLite journal, or a snapshot the
        journal refused), settle the digests once (a load is a write path), and for a file the collector's freeze
        and the fast exit (knowledge/snapshot_write.py, knowledge/exit_release.py)."""
        if snapshot_at is not None:  # else the class defaults (None, False): no snapshot wiring
            self._snapshot_at = snapshot_at
            self.opened_from_snapshot = True
        try:
            self._attach(journal)
            self._catch_up()
            self._fold._flush_digests()
            self._log_decisions(journal)
        except BaseException:
            if on_file:
                journal.close()
            raise
        if on_file:
            self._snapshot_on_close = snapshot_on_close
            freeze_after_load(self)
            exit_release.track(self)  # a fast exit (None turns it off)

    def _configure(self, gates: Iterable[WriteGate]) -> None:
        self.gates: list[WriteGate] = [g for g in gates if not isinstance(g, (SourceGate, ConsistencyGate))]
        for g in self.gates:
            if not hasattr(g, "admit"):
                raise BadInput(f"gate {g!r} has no admit(store, item, shadow) method; subclass WriteGate.")
        self._fold = StoreFold()
        self._read_sums = ReadSums()  # the sums reads ask for, beside the fold (knowledge/read_sums.py)
        self._names_index: dict[str, Any] = {}  # snapshot(about=)'s name index (knowledge/snapshot.py), beside the fold
        self.journal = None
        self.decisions = None

    # ------------------------------------------------------------------------------------------ the fold's clock
    def _log_decisions(self, journal: Journal) -> None:
        """The store's decision log on `journal` (the one place the knowledge layer builds a DecisionLog)."""
        self.decisions = DecisionLog(journal)

    @property
    def position(self) -> int:
        """The journal position after the last record folded."""
        return self._fold.position

    @property
    def ticks(self) -> int:
        """The decision clock (what reconfirm_after counts; `tick()` moves it)."""
        return self._fold.ticks

    @property
    def last_propagation(self) -> dict[str, int]:
        """What the last retraction re-folded: keys, items and events (the cost model's measure)."""
        return dict(self._fold.last_propagation)

    @classmethod
    def _empty(cls, *, gates: Iterable[WriteGate] = ()) -> KnowledgeStore:
        """The store before any record (no journal yet, nothing written)."""
        st = cls.__new__(cls)
        st._configure(gates)
        return st

    # ------------------------------------------------------------------------------------------ writing
    def _catch_up(self) -> None:
        """Fold records other writers (the decision log, the action model, ...) appended to the shared journal."""
        j = self.journal
        if not self._read_only and j is not None and j.position > self._fold.position:
            opening.catch_up(self._fold, j)  # a rebuilt view stays where it was rebuilt

    def _apply(self, record: Record) -> None:
        """The journal-owner protocol's fold of one record: the fold's."""
        self._fold._apply(record)

    @serialised
    def _write(self, kind: str, payload: Any) -> Record:
        """The live path (solvi_lab.owner): fold what others appended, append the record, fold it (and settle the
        fold's pending digests when a read asked: knowledge/read_sums.py) — all under the journal's lock."""
        return self._append(kind, payload)

    def _append(self, kind: str, payload: Any, text: str | None = None) -> Record:
        """`_write`'s steps, called with the journal's lock held (a writing call's); `text`: the record already in
        canonical form (canonical(payload); `payload` what JSON gives back for it: add()'s, encoded once)."""
        if self._read_only:
            raise BadInput(f"this store is {self._read_only} and writes nothing; write to the live store instead.")
        self._catch_up()
        j = self.journal
        if j is None:
            raise BadInput(f"this {type(self).__name__} has no journal to write to.")
        rec = j.append(kind, payload) if text is None else j.append_encoded(kind, text, payload)
        fold = self._fold
        fold._apply(rec)
        fold._folded += 1
        if self._read_sums.asked:  # the store is being read: hash what changed now, once
            self._read_sums.after_write(fold)
        return rec

    def _write_knowledge(self, payload: dict[str, Any]) -> int:
        return self._append(RECORD_KIND, payload).position  # its callers are writing calls: the lock is held

    def _premise_verdict(self, *args: Any, **kw: Any) -> Any:
        """The consistency check of a candidate's premises (ConsistencyGate): admission.premise_verdict on the fold."""
        return admission.premise_verdict(self._fold, *args, **kw)

    def _shell(self, fold: Fold) -> KnowledgeStore:
        """A read-only store around `fold` (a gate's shadow: the store as it would be with the candidate)."""
        sh = type(self)._empty(gates=self.gates)
        sh._fold = fold
        sh._read_only = "a gate's shadow (the store as it would be with the candidate)"
        return sh

    @writing_call
    def add(
        self,
        kind: str,
        body: Any,
        *,
        source: str,
        by: Any = None,
        scope: dict[str, Any] | None = None,
        derived_from: Iterable[str] = (),
        evidence: Any = None,
        supersedes: str | None = None,
        valid: tuple[Any, Any] | None = None,
        of: str | None = None,
        reconfirm_after: Any = DEFAULT,
        hypothesis: bool = False,
    ) -> str:
        """Write an item; return its id ("k<journal position>"). Raises WriteRefused (journaled) when refused.

        >>> ks = KnowledgeStore()
        >>> ks.add("fact", {"s": "c17", "r": "tier", "o": "vip"}, source="person")
        'k0'
        >>> ks.add("fact", {"s": "c17", "r": "tier", "o": "gold"}, source="model")
        Traceback (most recent call last):
        ...
        solvi_lab.errors.WriteRefused: refused k1: source 'model' is not one of ('outcome', 'person', 'spec', 'verified'): the system's own answers never become knowledge
        """
        self._catch_up()  # what other writers appended first: the checks and the gates read the fold as it is
        j = self.journal
        text, payload = add_record(
            self._fold,
            kind,
            body,
            source=source,
            by=by,
            scope=scope,
            derived_from=derived_from,
            evidence=evidence,
            supersedes=supersedes,
            valid=valid,
            of=of,
            reconfirm_after=reconfirm_after,
            hypothesis=hypothesis,
            position=j.position if j is not None else self._fold.position,
            gates=self.gates,
            gate_store=self,
            shell=self._shell,
        )
        pos = self._append(RECORD_KIND, payload, text).position
        it = self._fold._items[item_id(pos)]
        if it.state in ("refused", "retracted"):
            raise WriteRefused(f"refused {it.id}: {it.why}", item_id=it.id, reason=it.why, position=pos)
        return it.id

    def _get(self, iid: Any) -> Item:
        return reads.get(self._fold, iid)

    @writing_call
    def retract(self, iid: str, *, by: Any, why: str) -> None:
        """Take an item back with everything derived from it. Exact: the store then has the fingerprint of
        rebuild(skip={iid}). Nothing is deleted from the journal. Cost: the keys the retraction changes."""
        self._write_knowledge(write_records.retract(self._fold, iid, by, why))

    @writing_call
    def promote(self, iid: str, *, by: Any, why: str) -> None:
        """Promote a hypothesis (a held rule, skill or action; a fact written as a hypothesis); who and why recorded."""
        self._write_knowledge(write_records.promote(self._fold, iid, by, why))

    @writing_call
    def use(self, iid: str, *, wrong: bool = False) -> None:
        """Count a use of an item by a decision, and whether that use turned out wrong."""
        self._write_knowledge(write_records.key_op(self._fold, "use", iid, wrong=bool(wrong)))

    @writing_call
    def confirm(self, iid: str, *, by: Any, source: str = "person") -> None:
        """A person (or an observation) confirms an item as it stands: it is no longer stale under older flags."""
        self._write_knowledge(write_records.confirm(self._fold, iid, by, source))

    @writing_call
    def rollback(self, update: str, *, by: Any, why: str) -> str:
        """Undo a new version: the one it superseded comes back — only as a hint while a flag covers the update."""
        record, restored = write_records.rollback(self._fold, update, by, why)
        self._write_knowledge(record)
        return restored

    # ------------------------------------------------------------------------------------------ disputes
    def disputes(self) -> list[dict[str, Any]]:
        """The open disputes: one person question each, with the sides and their items."""
        return reads.disputes(self._fold)

    def questions(self) -> list[dict[str, Any]]:
        """Every person question ever opened (one per dispute event), open or closed."""
        return reads.questions(self._fold)

    @writing_call
    def resolve(self, key: Any, value: Any, *, by: Any, why: str = "") -> None:
        """A person's answer to an open dispute: the side holding `value` stays, the others are refuted."""
        self._write_knowledge(write_records.resolve(self._fold, key, value, by, why))

    # ------------------------------------------------------------------------------------------ staleness
    @writing_call
    def flag(
        self, scope: dict[str, Any] | None = None, *, ids: Any = None, key: Any = None, why: str, by: Any = None
    ) -> str:
        """Raise a drift flag: the items it covers that were learned before it become hints until re-confirmed
        by a newer observation or a person, or until the flag ends. Returns the flag id."""
        j = self.journal
        record = write_records.flag(self._fold, j.position if j is not None else self._fold.position, scope, ids, key, why, by)
        self._write_knowledge(record)
        return record["id"]

    @writing_call
    def reconfirm(self, iid: str, *, why: str = "reconfirm requested", by: Any = None) -> str:
        """Flag one item: it is a hint until an observation or a person confirms it again."""
        return self.flag(ids=[iid], why=why, by=by)

    @writing_call
    def end_flag(self, flag: str, *, by: Any, why: str) -> None:
        """End a pending flag: the items it covered are no longer stale under it."""
        self._write_knowledge(write_records.end_flag(self._fold, flag, by, why))

    @writing_call
    def tick(self, k: int = 1) -> None:
        """Move the store's clock by k decisions (what reconfirm_after counts)."""
        self._write_knowledge(write_records.tick(k))

    # ------------------------------------------------------------------------------------ owner protocol
    @classmethod
    @_gc_paused
    def open(
        cls,
        path: Any,
        *,
        journal_options: dict[str, Any] | None = None,
        snapshot: bool = True,
        fresh: bool = False,
        **options: Any,
    ) -> KnowledgeStore:
        """Open the store kept in the journal file at `path` (created when absent) and continue it; the file is
        folded in one pass as it loads — from its fold snapshot on, when it has one the journal bears out
        (knowledge/fold_snapshot.py). `journal_options` go to Journal (timestamps, expect_head, durability,
        backend, ...); `options` (gates) to the store. `snapshot=False` neither reads nor (on close) writes a fold
        snapshot. Close it (or use `with`) to release the file.

        An existing journal is continued: every write appends to it. `fresh=True` starts it again instead — the
        journal and the files kept beside it (head checkpoint, fold snapshot, SQLite's side files) are deleted
        first — so a notebook's Restart & Run All writes the same journal each time instead of appending its
        writes again.

        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "ks.sqlite"
        >>> with KnowledgeStore.open(path) as ks:
        ...     a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
        >>> with KnowledgeStore.open(path) as again:
        ...     again.status(a)
        'active'
        >>> with KnowledgeStore.open(path, fresh=True) as anew:
        ...     len(anew), anew.position
        (0, 0)
        """
        need_bool("fresh", fresh)
        if fresh:
            opening.start_fresh(path)
        st = cls._empty(**options)
        journal, snapshot_at = opening.open_journal(
            st._fold, path, use_snapshot=snapshot, freeze_min=st.FREEZE_MIN_RECORDS, **(journal_options or {})
        )
        st._opened(journal, snapshot_at, on_file=True, snapshot_on_close=snapshot)
        return st

    def write_snapshot(self) -> Any:
        """Write the folded state at the journal's head as a fold snapshot beside the journal file
        (`<journal>.fold`) and record its digest in the journal; returns the file's path. The next open folds only
        the records after it (knowledge/fold_snapshot.py). `close()` writes one by default for a long journal.

        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "ks.jsonl"
        >>> with KnowledgeStore.open(path) as ks:
        ...     _ = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
        ...     ks.write_snapshot().name
        'ks.jsonl.fold'
        """
        return write_snapshot(self)

    def close(self, snapshot: bool | None = None) -> None:
        """Close the journal (writing its head checkpoint) and release the file. `snapshot`: True writes a fold
        snapshot first, False never, None (the default) when the journal is long and its snapshot missing or far
        behind (knowledge/fold_snapshot.py, close_store)."""
        try:
            close_store(self, snapshot)
        finally:  # a snapshot that could not be written (a full disk) still closes the journal and its lock
            super().close()

    @property
    def read_only(self) -> bool:
        """True for a rebuilt view (from_journal with upto= or skip=, from_records, a gate's shadow): it writes
        nothing, and its journal (when it has one) is the live store's, which holds more than the view."""
        return bool(self._read_only)

    def state(self) -> dict[str, Any]:
        """What decides this store's behaviour, as plain data: the fingerprint (every item, question and flag, and
        the decision count), the journal position folded, the retractions (who and why are not in the
        fingerprint: a retracted item is absent from it) and the decisions a "verified" item may name. A live store
        first folds what other writers appended.

        >>> ks = KnowledgeStore(); _ = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
        >>> KnowledgeStore.from_journal(ks.journal).state() == ks.state()
        True
        >>> sorted(ks.state())
        ['decisions', 'fingerprint', 'position', 'retracted', 'ticks']
        """
        self._catch_up()
        return reads.state(self._fold, self.fingerprint())

    # ------------------------------------------------------------------------------------------ re-deciding
    def redecide(
        self, decisions: Any, retracted: Iterable[str], decide: Callable[[Any], Any]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Find the stored decisions whose snapshot rested on retracted items (a retracted id in the snapshot's
        `rests_on`, which holds the premises too), rebuild each snapshot as it would have been without them,
        re-run the decision on the old and the new snapshot, and split the list into
        (the answer changes — for a reviewer, only the justification changes — recorded in the journal)."""
        from .redecide import redecide as _redecide

        return _redecide(self, decisions, retracted, decide)
