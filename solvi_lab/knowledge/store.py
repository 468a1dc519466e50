"""The knowledge store: a deterministic fold over a hash-chained journal.

Every write is a journal record; the store's state is the fold of its journal, so the same journal always gives
the same state and the same fingerprint. `KnowledgeStore.from_journal(journal, skip={x})` (the specification's
`ks.rebuild(skip={x})`) folds the journal as if x had never been written — the definition a retraction must
meet — and `retract(x)` reaches the same state by re-folding only the competition keys that x (and what rests on
x) touch, following premise edges only where a status actually changed.

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

import bisect
import functools
import gc
import hashlib
import heapq
import json
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

from ..decisions import DECISION_KIND, DecisionLog, read_decision
from ..errors import BadInput, UnknownId, WriteRefused
from ..journal import Journal, Record, _owner_refuses, canonical, register_kind
from ..owner import JournalOwner, _check_upto
from ..validation import ANY, Opt, need_bool, need_json, need_json_all, need_str, need_str_list, op_shapes, writing_call
from .fold_snapshot import SnapshotLoader, close_store, freeze_after_load, write_snapshot
from .gates import Candidate, ConsistencyGate, SourceGate, Verdict, WriteGate, source_check, source_refusal
from .items import BEHAVIOUR_KINDS, KINDS, LIVE, RANK, Item, ItemStatus, item_id, stronger_rule, value_key
from .release import ReleasePlan
from .snapshot import rolled_back_premises
from .snapshot import snapshot as _snapshot
from .staleness import Flag, FlagIndex, fact_key, validate_flag_target
from .view import StoreView, item_status

RECORD_KIND = "knowledge"
NO_CHECKPOINTS = 1 << 62  # CHECKPOINT_EVERY of a fold nothing re-folds (a replay, verify's fold): never reached
MASK = (1 << 256) - 1
_DEFAULT = "default"


# The payload shapes the fold reads: Journal.append refuses any other "knowledge" payload at write time.
_KEY_OP = {"id": str, "key": str, "clock": Opt(int), "by": Opt(ANY), "why": Opt(ANY)}
register_kind(
    RECORD_KIND,
    op_shapes(
        RECORD_KIND,
        {
            "add": {
                "kind": str,
                "body": ANY,
                "source": str,
                "key": str,
                "scope": Opt((dict, None)),
                "derived_from": Opt([str]),
                "supersedes": Opt((str, None)),
                "valid": Opt((None, lambda v: isinstance(v, list) and len(v) == 2)),
                "of": Opt((str, None)),
                "reconfirm_after": Opt((int, None)),
                "hypothesis": Opt(bool),
                "refused": Opt(str),
                "verdicts": Opt(list),
            },
            "retract": {"id": str},
            "resolve": {"key": str, "value": ANY, "question": Opt(str), "clock": Opt(int)},
            "promote": _KEY_OP,
            "use": {**_KEY_OP, "wrong": Opt(bool)},
            "confirm": {**_KEY_OP, "source": Opt(str), "rule": Opt(ANY)},
            "rollback": {**_KEY_OP, "flags": Opt([str])},
            "flag": {
                "id": str,
                "scope": Opt((dict, None)),
                "ids": Opt(([str], None)),
                "target_key": Opt((str, None)),
                "why": Opt(str),
            },
            "end_flag": {"flag": str, "why": Opt(ANY)},
            "tick": {"k": lambda k: isinstance(k, int) and not isinstance(k, bool) and k >= 1},
        },
    ),
)


def _h(obj: Any) -> int:
    return int.from_bytes(hashlib.sha256(canonical(obj).encode()).digest(), "big")


def _gc_paused(fold: Callable) -> Callable:
    """Run a bulk fold with the cyclic garbage collector paused: a fold allocates an object graph that lives as long
    as the store, and the collector would scan it again and again while it grows, freeing nothing (measured: a
    rebuild ~15-20% faster). It runs again, as before, when the fold returns or raises."""

    @functools.wraps(fold)
    def paused(*args: Any, **kw: Any) -> Any:
        was = gc.isenabled()
        gc.disable()
        try:
            return fold(*args, **kw)
        finally:
            if was:
                gc.enable()

    return paused


def _opened_by(questions: list, last: int) -> int:
    """How many of a key's questions (in opening order) were opened at or before journal position `last`."""
    return bisect.bisect_right(questions, last, key=lambda q: q["opened_at"])


def _hist_upto(hist: tuple, last: int) -> tuple:
    """A flat [position, state, ...] status history cut after journal position `last`."""
    n = len(hist)
    while n and hist[n - 2] > last:
        n -= 2
    return hist[:n]


# Items whose digest is pending (changed since the fingerprint was last read) before they are hashed anyway. An item
# on a busy key changes at many fold steps and is hashed once per flush, so a small bound re-hashes the live items
# of hot keys again and again in a long rebuild (65,536: 1.77 digests per item at 10^6 on the hot-key stream); a
# million references cost ~40 MB, and a rebuild of up to that many items hashes each item once.
_PENDING_MAX = 1 << 20
_SIDE = frozenset({ItemStatus.ACTIVE.value, ItemStatus.DISPUTED.value})  # live and not a hypothesis: takes a side
_DEAD = frozenset({ItemStatus.REFUSED.value, ItemStatus.RETRACTED.value})  # statuses no fold step moves an item out of


def _event_pos(ev: Any) -> int:
    return ev if type(ev) is int else ev[0]


class _Key:
    """One competition key: its events in journal order, its items, its live contenders, its questions (each with
    its own digest, so a question is hashed when it opens or closes, never the whole list again) and checkpoints
    of its fold state every CHECKPOINT_EVERY events (so a re-fold starts near the change, not at the key's start).
    """

    __slots__ = (
        "key",
        "events",
        "item_ids",
        "live",
        "questions",
        "open_q",
        "contribution",
        "q_digests",
        "q_settled",
        "checkpoints",
        "sides",
        "disputed",
    )

    def __init__(self, key: str):
        self.key = key
        self.events: list[Any] = []  # an add is its journal position (an int); other events (pos, op, payload)
        self.item_ids: list[str] = []
        self.live: dict[str, Item] = {}
        self.questions: Any = ()  # a list once a dispute opens here; most keys never have one
        self.open_q: dict[str, Any] | None = None
        self.contribution = 0  # the sum of q_digests: this key's share of the fingerprint's question sum
        self.q_digests: Any = ()  # digest of each question, parallel to `questions`
        self.q_settled = 0  # q_digests[:q_settled] are up to date (closing a question moves it back)
        self.checkpoints: list[tuple] | None = None  # see KnowledgeStore._checkpoint
        # Kept by _set as statuses move (so _settle never scans the live set to learn whether a dispute exists):
        # value -> how many live non-hypothesis facts hold it, and how many of those are disputed.
        self.sides: dict[str, int] = {}
        self.disputed = 0

    def recount(self) -> None:
        """Count `sides` and `disputed` again from `live` (after a re-fold puts back a checkpoint's live set)."""
        sides: dict[str, int] = {}
        disputed = 0
        for c in self.live.values():
            if c.kind == "fact" and c.state in _SIDE:
                sides[c.value] = sides.get(c.value, 0) + 1
                disputed += c.state == "disputed"
        self.sides, self.disputed = sides, disputed


@dataclass
class Verification:
    """What verify() found; truthy when the chain is whole and the live store equals the replay of its journal."""

    ok: bool
    chain_ok: bool
    replay_matches: bool
    records: int
    problem: str = ""

    def __bool__(self) -> bool:
        return self.ok


class KnowledgeStore(JournalOwner):
    """What a system learned, and from whom. See the module docstring and README for the rules.

    A journal owner (solvi_lab.owner): every write is a "knowledge" record folded by `_apply`, live and on load.

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

    KINDS = (RECORD_KIND, DECISION_KIND)  # decisions are folded too: a "verified" item names one (of=)
    CHECKPOINT_EVERY = 16  # events per key between checkpoints of its fold state (docs/ARCHITECTURE.md)
    _read_only = ""  # why this store writes nothing (a rebuilt view); empty for a live store
    SNAPSHOT_MIN_RECORDS = 10_000  # close() writes a fold snapshot of a journal (and a tail) at least this long
    FREEZE_MIN_RECORDS = 10_000  # an open that folded at least this many records freezes the collector's heap
    opened_from_snapshot = False  # True when open() loaded a fold snapshot and folded only the records after it
    _snapshot_at: int | None = None  # position of the snapshot this store loaded or wrote (None: none usable)
    _snapshot_on_close = False  # set by open(): close() writes a snapshot (see SNAPSHOT_MIN_RECORDS)
    _indexed = True  # keep the read indexes (False only in verify()'s lean fold, which nobody reads)

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
        if set(older) - {"clock"}:
            raise TypeError(f"KnowledgeStore() got unexpected keyword arguments {sorted(set(older) - {'clock'})}")
        if "clock" in older:  # the older name of `timestamps`
            warnings.warn("KnowledgeStore(clock=...) is now timestamps=...", DeprecationWarning, stacklevel=2)
            timestamps = older["clock"]
        if path is not None and journal is not None:
            raise BadInput("pass either a path or a journal to KnowledgeStore, not both.")
        self._configure(gates)
        if journal is None:
            # One pass over a file: every record is folded through _apply as the journal verifies it (or, with a
            # fold snapshot the journal bears out, only the records after it: knowledge/fold_snapshot.py).
            loader = SnapshotLoader(self, path)
            journal = Journal(
                path,
                timestamps=timestamps,
                expect_head=expect_head,
                on_load=loader.on_load,
                load_checks=False,  # the fold reads every record it folds; its errors become CorruptJournal
            )
            loader.finish(journal)
            self._snapshot_on_close = path is not None
        else:
            if timestamps is not None:
                raise BadInput("timestamps= belongs to the Journal; pass Journal(timestamps=...) as journal=.")
            if expect_head is not None and isinstance(journal, Journal):
                journal.check_head(expect_head)
        self._attach(journal)
        self._catch_up()  # a shared or SQLite journal (or a snapshot the journal refused): fold what it holds
        self.decisions = DecisionLog(self.journal)
        if path is not None:
            freeze_after_load(self)

    def _configure(self, gates: Iterable[WriteGate]) -> None:
        self.gates: list[WriteGate] = [g for g in gates if not isinstance(g, (SourceGate, ConsistencyGate))]
        for g in self.gates:
            if not hasattr(g, "admit"):
                raise BadInput(f"gate {g!r} has no admit(store, item, shadow) method; subclass WriteGate.")
        self._reset_state()
        self.journal = None
        self.decisions = None

    @classmethod
    def _empty(cls, *, gates: Iterable[WriteGate] = ()) -> KnowledgeStore:
        """The store before any record (no journal yet, nothing written)."""
        st = cls.__new__(cls)
        st._configure(gates)
        return st

    # ------------------------------------------------------------------------------------------ state
    def _reset_state(self) -> None:
        self._items: dict[str, Item] = {}
        self._keys: dict[str, _Key] = {}
        self._dependents: dict[str, list[str]] = {}
        self._successors: dict[str, list[str]] = {}  # item id -> the items written with supersedes= it
        self._by_subject: dict[str, list[str]] = {}
        self._flags = FlagIndex()
        self._decision_info: dict[str, tuple] = {}
        self._retracted: dict[str, dict[str, Any]] = {}  # root id -> {position, by, why}
        self._scopes: dict[str, dict[str, Any]] = {}
        self._present = 0  # items in the store (admitted, not retracted)
        self._open_set: dict[str, None] = {}  # keys with an open dispute (an ordered set)
        self._question_keys: dict[str, None] = {}  # keys that ever had a question
        self.ticks = 0
        self.position = 0
        self._items_sum = 0
        self._keys_sum = 0
        self._flags_sum = 0
        self._skip: set[str] = set()
        self._touched: set[Item] = set()  # items whose digest is stale: hashed once when the fingerprint is read
        self.last_propagation: dict[str, int] = {"keys": 0, "items": 0, "events": 0}

    # ------------------------------------------------------------------------------------------ the fold
    def _fold(self, records: Iterable[Record]) -> None:
        """Fold records in journal order: the store's own through _apply, the others only move its position
        (other writers' records share the chain; the store ignores them)."""
        kinds = self.KINDS
        for r in records:
            if r.kind in kinds:
                self._apply(r)
                self._folded += 1
            else:
                self.position = r.position + 1

    def _load(self, record: Record) -> None:
        """Journal(on_load=...) while a file loads: the same fold as _fold, one record at a time (inlined: it runs
        once per record of the file)."""
        if record.kind in self.KINDS:
            self._apply(record)
            self._folded += 1
        else:
            self.position = record.position + 1

    def _apply(self, record: Record) -> None:
        """Fold one of the store's records: the one path for live writes, loads and rebuilds."""
        pos, p = record.position, record.payload
        self.position = pos + 1
        if record.kind == DECISION_KIND:
            d = read_decision(record)
            self._decision_info[d.id] = (d.answered_by, d.guarantee, d.answer)
            return
        op = p.get("op")
        if op == "add":
            self._fold_new_item(pos, p)
        elif op == "use":
            # Not a key event: a use changes no status, and an item is present or not from its own add on, so the
            # count is kept as records arrive and a re-fold never replays it (item() reports it while present).
            it = self._items.get(p.get("id"))
            if it is not None:
                it.uses += 1
                it.wrong_uses += 1 if p.get("wrong") else 0
                if it.present:
                    self._touch(it)
        elif op in ("resolve", "promote", "rollback", "confirm"):
            ks = self._keys.get(p["key"])
            if ks is None:
                return
            ev = (pos, op, p)
            ks.events.append(ev)
            self._apply_event(ks, ev)
            self._settle_digests(ks)
            if len(ks.events) % self.CHECKPOINT_EVERY == 0:
                self._add_checkpoint(ks)
        elif op == "retract":
            self._retracted[p["id"]] = {"position": pos, "by": p.get("by"), "why": p.get("why")}
            if p["id"] not in self._skip:
                self._skip.add(p["id"])
                it = self._items.get(p["id"])
                if it is not None:
                    self._propagate([(it.key, it.pos)])
        elif op == "flag":
            f = Flag(
                p["id"],
                pos,
                p.get("why", ""),
                p.get("by"),
                p.get("scope"),
                tuple(p.get("ids") or ()),
                p.get("target_key"),
            )
            self._flags.add(f)
            self._flags_sum = (self._flags_sum + _h(f.observable())) & MASK
        elif op == "end_flag":
            f = self._flags.flags.get(p["flag"])
            if f is not None and f.pending:
                self._flags_sum = (self._flags_sum - _h(f.observable())) & MASK
                f.ended_at, f.ended_by, f.ended_why = pos, p.get("by"), p.get("why")
                self._flags_sum = (self._flags_sum + _h(f.observable())) & MASK
        elif op == "tick":
            self.ticks += int(p["k"])

    def _fold_new_item(self, pos: int, p: dict[str, Any]) -> None:
        it = Item(pos, p, sys.intern(p["key"]), self.ticks)
        if it.scope is not None:  # identical scopes share one dict (they are never mutated): memory at 10^6
            it.scope = self._scopes.setdefault(repr(it.scope), it.scope)
        refusal = source_refusal(it.kind, it.body, it.source, it.of, self._decision_info)
        if refusal is not None:
            it.refusal = refusal
        elif it.source == "verified":
            it.guarantee = self._decision_info[it.of][1]
        self._items[it.id] = it
        ks = self._keys.get(it.key)
        if ks is None:
            ks = self._keys[it.key] = _Key(it.key)
        ks.item_ids.append(it.id)
        if self._indexed:
            for pid in it.derived_from:
                self._dependents.setdefault(pid, []).append(it.id)
            if it.supersedes:
                self._successors.setdefault(it.supersedes, []).append(it.id)
            if it.subject is not None:
                self._by_subject.setdefault(it.subject, []).append(it.id)
        ks.events.append(pos)
        self._apply_add(ks, it, pos)  # _apply_event's path for an add, without the dispatch
        self._settle_digests(ks)
        if len(ks.events) % self.CHECKPOINT_EVERY == 0:
            self._add_checkpoint(ks)

    def _flush_digests(self) -> None:
        """Hash the items changed since the fingerprint was last read, once each (an item on a busy key changes
        at many fold steps: confirmed, disputed, resolved), and move the item sum and present count by the
        difference — so reading either never scans the store, and a rebuild hashes each item once."""
        for it in self._touched:
            new = it.digest()
            if new != it.contribution:
                self._items_sum = (self._items_sum - it.contribution + new) & MASK
                self._present += (new != 0) - (it.contribution != 0)  # a digest is 0 exactly when absent
                it.contribution = new
        self._touched = set()

    def _settle_digests(self, ks: _Key) -> None:
        """After a fold step on one key: its question digests and the dispute indexes (item digests are settled
        lazily, see _flush_digests)."""
        if len(self._touched) > _PENDING_MAX:  # bound the pending set (see _PENDING_MAX)
            self._flush_digests()
        if not ks.questions:  # most keys never see a dispute (an open question is always in `questions`)
            if ks.key in self._question_keys:
                self._open_set.pop(ks.key, None)
                self._question_keys.pop(ks.key, None)
            return
        if ks.q_settled < len(ks.questions):
            self._settle_questions(ks)
        if ks.open_q is not None:
            self._open_set[ks.key] = None
        else:
            self._open_set.pop(ks.key, None)
        if ks.questions:
            self._question_keys[ks.key] = None
        else:
            self._question_keys.pop(ks.key, None)

    def _settle_questions(self, ks: _Key) -> None:
        """Digest the questions opened or closed since the last step; the key's share of the fingerprint moves by
        the difference. A question is hashed when it opens and when it closes, never again."""
        qs = ks.questions
        if type(ks.q_digests) is not list:
            ks.q_digests = []
        qd = ks.q_digests
        delta = 0
        for i in range(ks.q_settled, len(qs)):
            new = _h([ks.key, qs[i]])
            if i < len(qd):
                delta += new - qd[i]
                qd[i] = new
            else:
                delta += new
                qd.append(new)
        ks.q_settled = len(qs)
        if delta:
            ks.contribution = (ks.contribution + delta) & MASK
            self._keys_sum = (self._keys_sum + delta) & MASK

    def _set(self, ks: _Key, it: Item, state: str, pos: int, why: str = "") -> None:
        old = it.state
        if state != old:  # the status and its history (the fold's most frequent step)
            it.state = state
            h = it.hist  # a tuple: untracked by the cyclic collector once seen (a list per item would be scanned)
            it.hist = h[:-1] + (state,) if h and h[-2] == pos else h + (pos, state)
            if state in LIVE:
                if old not in LIVE:
                    ks.live[it.id] = it
            elif old in LIVE:
                ks.live.pop(it.id, None)
            if it.kind == "fact":
                side = state in _SIDE
                if side != (old in _SIDE):
                    sides = ks.sides
                    if side:
                        sides[it.value] = sides.get(it.value, 0) + 1
                    elif sides[it.value] == 1:
                        del sides[it.value]
                    else:
                        sides[it.value] -= 1
                ks.disputed += (state == "disputed") - (old == "disputed")
        if why:
            it.why = why
        self._touched.add(it)

    def _touch(self, it: Item) -> None:
        self._touched.add(it)

    def _refute(self, ks: _Key, it: Item, by: str, pos: int, why: str) -> None:
        it.before_refute = it.state
        self._set(ks, it, "refuted", pos, why)
        it.refuted_by = by
        it.invalidated_at = pos
        it.refutations += 1

    def _apply_event(self, ks: _Key, ev: Any) -> None:
        if type(ev) is int:  # an add, stored as its position
            self._apply_add(ks, self._items[item_id(ev)], ev)
            return
        pos, op, data = ev
        p = data
        it = self._items.get(p.get("id")) if p.get("id") else None
        clock = p.get("clock", 0)
        if op == "resolve":
            q = ks.open_q
            if q is None:
                return  # the dispute it answered does not exist in this history (a side was retracted)
            value = value_key(p["value"])
            for c in list(ks.live.values()):
                if c.state == "hypothesis":
                    continue
                if c.value == value:
                    self._set(ks, c, "active", pos, f"resolved by {p.get('by')}")
                else:
                    self._refute(ks, c, q["id"], pos, f"resolution of {q['id']} by {p.get('by')}")
            q.update(closed_at=pos, closed_by=p.get("by"), resolution=p["value"], how="resolved")
            ks.open_q = None
            ks.q_settled = min(ks.q_settled, len(ks.questions) - 1)
        elif op == "promote":
            if it is None or it.state != "hypothesis":
                return
            it.promoted = {"by": p.get("by"), "why": p.get("why"), "position": pos}
            self._set(ks, it, "active", pos, f"promoted by {p.get('by')}: {p.get('why')}")
            if it.kind == "fact":
                self._contend(ks, it, pos, clock)
            self._settle(ks, pos)
        elif op == "confirm":
            if it is None or it.state not in LIVE:
                return
            it.confirmed_pos, it.confirmed_clock = pos, clock
            it.confirmations += 1
            it.clock_rule = stronger_rule(it.clock_rule, p.get("rule"))
            self._touch(it)
            # A confirmation activates a hypothesis written as one; a behaviour item a gate held waits for
            # promote() (spec, "Write gates": it stays a hypothesis, and its promotion is journaled with who and why).
            held = it.kind in BEHAVIOUR_KINDS and any(not v.get("admit") for v in it.verdicts)
            if it.state == "hypothesis" and not held and p.get("source") in ("outcome", "person"):
                self._set(ks, it, "active", pos, f"confirmed by {p.get('by')}")
                if it.kind == "fact":
                    self._contend(ks, it, pos, clock)
                self._settle(ks, pos)
        elif op == "rollback":
            if it is None or it.state not in LIVE or not it.supersedes:
                return
            prev = self._items.get(it.supersedes)
            if prev is None or prev.state != "refuted" or prev.refuted_by != it.id:
                return
            self._refute(ks, it, "rollback", pos, f"rolled back by {p.get('by')}: {p.get('why')}")
            restored = prev.before_refute if prev.before_refute in LIVE else "active"
            if restored == "disputed":
                restored = "active"
            prev.refuted_by = None
            prev.invalidated_at = None
            self._set(ks, prev, restored, pos, f"restored by rollback of {it.id}")
            flags = p.get("flags") or []
            # A stale version is never restored as a fact: under a pending flag it comes back as a hint.
            prev.restored_under = {"flags": flags, "position": pos} if flags else None
            if prev.kind == "fact":
                self._contend(ks, prev, pos, clock)
            self._settle(ks, pos)

    def _premise_state(self, pid: str, pos: int) -> tuple[str, str]:
        """(problem, why) of one premise as of journal position `pos`; problem '' when the premise is sound."""
        p = self._items.get(pid)
        if p is None or p.pos >= pos:
            return "missing", f"premise {pid} is missing"
        if pid in self._skip:
            return "retracted", f"rests on {pid}, which was retracted"
        st = p.state_at(pos)
        if st == "retracted":
            return "retracted", f"rests on {pid}, which was retracted"
        if st is None or st == ItemStatus.REFUSED:
            return "missing", f"premise {pid} is not in the store"
        if st == "refuted":
            return "refuted", f"premise {pid} was refuted"
        return "", ""

    def _dead_at_add(self, it: Item, pos: int) -> tuple[str, str] | None:
        """(status, why) when item `it` is refused or retracted at its own add (it never enters the key's live
        set, so it moves nothing else on the key); None when it is admitted."""
        if it.refusal:
            return "refused", it.refusal
        if it.id in self._skip:
            info = self._retracted.get(it.id)
            return "retracted", f"retracted by {info['by']}: {info['why']}" if info else "skipped in this rebuild"
        for pid in it.derived_from:
            problem, why = self._premise_state(pid, pos)
            if problem == "retracted":
                return "retracted", why
            if problem:
                return "refused", why
            prem = self._items[pid]
            if it.kind == "fact" and prem.key == it.key and prem.value != it.value:
                return "refused", f"would refute its own premise {pid}"
        if it.verdicts and it.kind not in BEHAVIOUR_KINDS:
            for v in it.verdicts:
                if not v.get("admit"):
                    return "refused", f"gate {v.get('gate')}: {v.get('reason')}"
        return None

    def _apply_add(self, ks: _Key, it: Item, pos: int) -> None:
        dead = self._dead_at_add(it, pos)
        if dead is not None:
            self._set(ks, it, dead[0], pos, dead[1])
            return
        held = [v for v in it.verdicts if not v.get("admit")] if it.verdicts else ()
        if held:
            self._set(ks, it, "hypothesis", pos, f"held by gate {held[0].get('gate')}: {held[0].get('reason')}")
        elif it.hypothesis_req:
            self._set(ks, it, "hypothesis", pos, "written as a hypothesis")
        else:
            self._set(ks, it, "active", pos, "admitted")
        if it.supersedes:
            old = self._items.get(it.supersedes)
            if old is not None:
                it.version = old.version + 1
                if old.state in LIVE:
                    self._refute(ks, old, it.id, pos, f"superseded by {it.id}")
        if it.kind == "fact":
            self._contend(ks, it, pos, it.clock)
            self._settle(ks, pos)

    def _contend(self, ks: _Key, n: Item, pos: int, clock: int) -> None:
        """Apply the rank rules between newcomer n and the live contenders of its key. (Item.expired and
        stronger_rule are inlined: this loop runs over every live contender of a busy key on every add.)"""
        n_hyp = n.state == "hypothesis"
        n_value, n_source = n.value, n.source
        n_rank = RANK[n_source]
        others = [c for c in ks.live.values() if c is not n]
        # First: does n lose outright? Then it changes nothing else.
        if n_source != "outcome" or n_hyp:
            sup = n.supersedes
            for c in others:
                if c.value == n_value or c.state == "hypothesis" or c.id == sup:
                    continue
                rule = c.clock_rule
                if rule is not None and clock - c.confirmed_clock >= rule:
                    continue  # expired: it cannot make n lose
                c_rank = RANK[c.source]
                if c_rank > n_rank or (n_hyp and c_rank == n_rank):
                    self._refute(ks, n, c.id, pos, f"contradicts {c.id} ({c.source} outranks {n_source})")
                    return
        touched = self._touched
        confirms = not n_hyp and n_source in ("outcome", "person")
        n_rule = n.clock_rule
        for c in others:
            if c.value == n_value:
                c.confirmations += 1
                touched.add(c)
                if confirms:
                    c.confirmed_pos, c.confirmed_clock = pos, clock
                    rule = c.clock_rule
                    c.clock_rule = None if rule is None or n_rule is None else max(rule, n_rule)
                    if n_source == "outcome" and c.state == "hypothesis":
                        self._set(ks, c, "active", pos, f"confirmed by observation {n.id}")
                continue
            rule = c.clock_rule
            if rule is not None and clock - c.confirmed_clock >= rule:
                self._refute(ks, c, n.id, pos, f"expired, then contradicted by {n.id}")
            elif n_hyp:
                continue  # a hypothesis never refutes or disputes; it is shown as a hint beside the fact
            elif n_source == "outcome":
                self._refute(ks, c, n.id, pos, f"contradicted by observation {n.id}")
            elif c.state == "hypothesis":
                if n_rank >= RANK[c.source]:
                    self._refute(ks, c, n.id, pos, f"contradicted by {n.id} ({n_source})")
            elif n_rank > RANK[c.source]:
                self._refute(ks, c, n.id, pos, f"contradicted by {n.id} ({n_source} outranks {c.source})")
            # equal rank: a dispute, settled below

    def _settle(self, ks: _Key, pos: int) -> None:
        """Mark disputes: live, non-hypothesis contenders holding more than one value are all disputed."""
        sides = ks.sides  # counts kept by _set: no scan of the live set unless a status must move
        if len(sides) > 1:
            if ks.disputed < sum(sides.values()):  # a side not marked yet (statuses only move within LIVE here)
                for c in ks.live.values():
                    if c.state == "active" and c.kind == "fact":
                        self._set(ks, c, "disputed", pos, "disputed: same-rank sources disagree")
            if ks.open_q is None:
                q = {
                    "id": f"q{pos}",
                    "key": ks.key,
                    "opened_at": pos,
                    "closed_at": None,
                    "closed_by": None,
                    "resolution": None,
                    "how": None,
                }
                if not ks.questions:
                    ks.questions = []
                ks.questions.append(q)
                ks.open_q = q
        else:
            if ks.disputed:
                for c in ks.live.values():
                    if c.state == "disputed" and c.kind == "fact":
                        self._set(ks, c, "active", pos, "dispute settled")
            if ks.open_q is not None:
                ks.open_q.update(closed_at=pos, closed_by=None, how="settled by a stronger source")
                ks.open_q = None
                ks.q_settled = min(ks.q_settled, len(ks.questions) - 1)

    # ------------------------------------------------------------------------------------------ re-fold
    # The cost model is in docs/ARCHITECTURE.md ("Store: retraction cost model"). In short: a key's items that are
    # neither live nor restorable by a rollback never change again, so a checkpoint keeps only the live ones (in
    # contention order), the refuted versions a live item's rollback could bring back, and the open question. A
    # re-fold starts at the last checkpoint before the change and stops at the first later checkpoint where that
    # state equals the old run's and no later event on the key reads an item whose state moved: from there on the
    # old run's events act identically, so everything after is the old run's.

    def _add_checkpoint(self, ks: _Key) -> None:
        if ks.checkpoints is None:
            ks.checkpoints = []
        ks.checkpoints.append(self._checkpoint(ks, _event_pos(ks.events[-1])))

    def _checkpoint(self, ks: _Key, last: int) -> tuple:
        """(position of the last event folded, how many live items, every item that can still change — the live
        ones first, in contention order — their fold states, the open question as it is). The questions opened by
        then are found by their positions."""
        live = tuple(ks.live.values())
        dynamic = list(live)
        seen = set(ks.live)
        for z in live:  # a rollback of z brings back the version z superseded, and so on down the chain
            while z.supersedes:
                y = self._items.get(z.supersedes)
                if y is None or y.id in seen or y.state != "refuted" or y.refuted_by != z.id:
                    break
                seen.add(y.id)
                dynamic.append(y)
                z = y
        # Items and their states in two tuples, not a pair per item: a tuple of plain values is untracked by the
        # cyclic collector, and a million pairs holding items would be scanned by every full collection.
        return (
            last,
            len(live),
            tuple(dynamic),
            tuple([it.fold_state() for it in dynamic]),
            dict(ks.open_q) if ks.open_q is not None else None,
        )

    def _refold(self, ks: _Key, from_pos: int = 0, needs: Iterable[int] = ()) -> tuple[list[Item], list[int]]:
        """Fold key `ks` again from journal position `from_pos` (everything before it is unchanged). Returns the
        items whose status history moved, and the later positions on this key that still need a re-fold: those
        of `needs` (items resting on a premise that changed) beyond the point where this re-fold met the old
        run, and the same-key items that read an item whose state moved."""
        quick = self._refold_dead_item(ks, from_pos, needs)
        if quick is not None:
            return quick
        every = self.CHECKPOINT_EVERY
        events = ks.events
        cps = ks.checkpoints
        first = bisect.bisect_left(events, from_pos, key=_event_pos)
        c = first // every - 1  # checkpoint c holds the state after events[: (c + 1) * every]
        old_live, old_open, old_counts = ks.live, ks.open_q, (ks.sides, ks.disputed)
        old_q, old_qd = ks.questions or [], ks.q_digests or []
        saved: dict[Item, tuple[tuple, tuple]] = {}  # the old run's final state of every item folded again
        clean: set[Item] = set()  # of those, the ones whose digest was up to date before this re-fold
        if c >= 0:
            last, n_live, dynamic, states, open_q = cps[c]
            nq = _opened_by(old_q, last)
            for it, st in zip(dynamic, states):
                saved[it] = (it.fold_state(), it.hist)
                if it not in self._touched:
                    clean.add(it)
                it.set_fold_state(st)
                it.hist = _hist_upto(it.hist, last)
            ks.live = {it.id: it for it in dynamic[:n_live]}
            ks.recount()
            questions, digests = list(old_q[:nq]), list(old_qd[:nq])
            if open_q is not None:
                questions[-1] = dict(open_q)  # the question open then, as it was then (it closed later)
            ks.open_q = questions[-1] if open_q is not None else None
            ks.q_settled = nq - (open_q is not None)
            start = (c + 1) * every
        else:
            ks.live, questions, digests, ks.open_q, ks.q_settled, start = {}, [], [], None, 0, 0
            ks.sides, ks.disputed = {}, 0
        ks.questions, ks.q_digests = questions, digests
        total = sum(digests) & MASK  # the key's question share, kept equal to the sum of its digests
        self._keys_sum = (self._keys_sum - ks.contribution + total) & MASK
        ks.contribution = total
        stop = None
        for idx in range(start, len(events)):
            ev = events[idx]
            if type(ev) is int:
                it = self._items[item_id(ev)]
                saved[it] = (it.fold_state(), it.hist)
                if it not in self._touched:
                    clean.add(it)
                it.reset()
            self._apply_event(ks, ev)
            if (idx + 1) % every == 0:
                old_cp, new_cp = cps[idx // every], self._checkpoint(ks, _event_pos(ev))
                cps[idx // every] = new_cp
                if new_cp[1:] == old_cp[1:]:
                    stop = (idx + 1, new_cp, old_cp)
                    break
        self.last_propagation["events"] += (stop[0] if stop else len(events)) - start
        later: list[int] = []
        if stop is not None:
            last = stop[1][0]
            later = sorted({p for p in needs if p > last} | self._late_readers(ks, saved, stop[1]))
            self._join_old_run(ks, saved, stop[1], stop[2], old_live, old_open, old_q, old_qd)
            ks.sides, ks.disputed = old_counts  # the old run's live set is back, and with it its counts
        for it, (st, _) in saved.items():  # hash again only the items whose fold state moved
            if it in clean and it.fold_state() == st:
                self._touched.discard(it)
            else:
                self._touched.add(it)
        self._settle_digests(ks)
        return [it for it, (st, hist) in saved.items() if it.state != st[0] or it.hist != hist], later

    def _refold_dead_item(self, ks: _Key, pos: int, needs: Iterable[int]) -> tuple[list[Item], list[int]] | None:
        """The re-fold of an add that moved nothing else on its key in the old run and moves nothing in the new
        one: O(1) instead of replaying the key from a checkpoint. None when it does not apply.

        It applies when the item at `pos` is dead at its own add in both runs. In the old run: refused or
        retracted (statuses nothing leaves), or refuted at its add by losing outright to a live contender (the
        rank rules then change nothing else, and no rollback can bring it back: it was refuted by an earlier item,
        not by a new version of it) and superseding nothing (a new version refutes its predecessor as it enters).
        In the new run: refused or retracted at its add (`_dead_at_add`). Either way it never sits in the key's
        live set past its add, so every other item's fold, the key's questions and its checkpoints are unchanged;
        the item's own fold state is what a replay gives it, reset and then refused or retracted."""
        it = self._items.get(item_id(pos))
        if it is None or it.key != ks.key:
            return None  # not an add on this key (a resolve, a promotion, ...)
        hist = it.hist
        if len(hist) != 2:
            return None
        if hist[1] == "refuted":
            if it.supersedes is not None or it.invalidated_at != pos:
                return None
        elif hist[1] not in _DEAD:
            return None
        dead = self._dead_at_add(it, pos)
        if dead is None:
            return None
        self.last_propagation["events"] += 1
        it.reset()
        self._set(ks, it, dead[0], pos, dead[1])
        later = {p for p in needs if p > pos}
        if it.hist != hist:  # its status moved: items on this key resting on it read it again
            later.update(dep.pos for d in self._dependents.get(it.id, ()) if (dep := self._items[d]).key == ks.key)
            return [it], sorted(later)
        return [], sorted(later)

    def _late_readers(self, ks: _Key, saved: dict[Item, tuple[tuple, tuple]], cp: tuple) -> set[int]:
        """Positions after checkpoint `cp` where an event on this key reads an item whose state moved: an item
        derived from it, or a new version of it when its version moved."""
        last, dynamic = cp[0], set(cp[2])
        out: set[int] = set()
        for it, (st, hist) in saved.items():
            if it in dynamic or (it.fold_state() == st and it.hist == hist):
                continue
            for d in self._dependents.get(it.id, ()):
                dep = self._items[d]
                if dep.key == ks.key and dep.pos > last:
                    out.add(dep.pos)
            if it.version != st[10]:
                out.update(self._items[s].pos for s in self._successors.get(it.id, ()) if self._items[s].pos > last)
        return out

    def _join_old_run(self, ks, saved, new_cp, old_cp, old_live, old_open, old_q, old_qd) -> None:
        """The re-fold reached a checkpoint where its state equals the old run's: keep the old run from there on.
        Items that can still change take their old final state (their status history: the new one up to the
        checkpoint, the old one after it); live order, the open question and later questions are the old run's."""
        last = new_cp[0]
        for it in new_cp[2]:
            if it in saved:
                st, hist = saved[it]
                it.set_fold_state(st)
                it.hist = it.hist + tuple(h for k in range(0, len(hist), 2) if hist[k] > last for h in hist[k : k + 2])
        ks.live = old_live
        self._settle_questions(ks)  # digests of the questions the re-fold opened or closed
        keep = len(ks.questions) - (new_cp[4] is not None)
        since = _opened_by(old_q, last) - (old_cp[4] is not None)  # the old run's questions from the checkpoint on
        ks.questions = ks.questions[:keep] + old_q[since:]
        ks.q_digests = ks.q_digests[:keep] + old_qd[since:]
        ks.open_q = old_open
        ks.q_settled = len(ks.questions)
        total = sum(ks.q_digests) & MASK
        self._keys_sum = (self._keys_sum - ks.contribution + total) & MASK
        ks.contribution = total

    def _propagate(self, keys: Iterable[tuple[str, int]]) -> None:
        """Re-fold the given keys from the given positions, then wherever an item rests on one whose status
        history moved, until nothing changes: a worklist in journal order, each key with the positions it must
        re-fold from (a re-fold that meets the old run early leaves the later ones queued)."""
        heap: list[tuple[int, str]] = []
        queued: dict[str, list[int]] = {}  # key -> positions on it that need a re-fold (the smallest is in heap)

        def need(k: str, positions: Iterable[int]) -> None:
            have = queued.setdefault(k, [])
            first = have[0] if have else None
            have.extend(positions)
            have.sort()
            if have and have[0] != first:
                heapq.heappush(heap, (have[0], k))

        touched = {"keys": 0, "items": 0, "events": 0}
        self.last_propagation = touched  # what the last retraction re-folded: the cost measure of the study
        for k, pos in keys:
            need(k, (pos,))
        while heap:
            pos, k = heapq.heappop(heap)
            positions = queued.get(k)
            if not positions or positions[0] != pos:
                continue  # superseded by an earlier start for the same key
            del queued[k]
            touched["keys"] += 1
            touched["items"] += len(self._keys[k].item_ids)
            changed, later = self._refold(self._keys[k], pos, positions)
            if later:
                need(k, later)
            for it in changed:
                for d in self._dependents.get(it.id, ()):
                    dep = self._items[d]
                    if dep.key != k:
                        need(dep.key, (dep.pos,))

    # ------------------------------------------------------------------------------------------ writing
    def _catch_up(self) -> None:
        """Fold records other writers (the decision log, the action model, ...) appended to the shared journal."""
        if self._read_only or self.journal is None or self.journal.position <= self.position:
            return  # a rebuilt view stays where it was rebuilt
        for r in self.journal.records(self.position):
            try:
                self._fold((r,))
            except Exception as e:  # a record another writer appended that the fold cannot read
                raise _owner_refuses(str(self.journal.path or "journal"), r.position, r.kind, e) from None

    def _write(self, kind: str, payload: Any) -> Record:
        """The live path (solvi_lab.owner): fold what others appended, append the record, fold it through _apply."""
        if self._read_only:
            raise BadInput(f"this store is {self._read_only} and writes nothing; write to the live store instead.")
        self._catch_up()
        return super()._write(kind, payload)

    def _write_knowledge(self, payload: dict[str, Any]) -> int:
        return self._write(RECORD_KIND, payload).position

    def _premise_verdict(
        self, kind: str, body: Any, scope: Any, derived_from: Iterable[str], pos: int, own_key: str | None = None
    ) -> Verdict:
        """`own_key`: the candidate's fact key when the caller has it (add() does), else made here once."""
        for pid in derived_from:
            problem, why = self._premise_state(pid, pos)
            if problem:
                return Verdict(False, why)
            prem = self._items[pid]
            if kind == "fact" and isinstance(body, dict) and prem.kind == "fact":
                if own_key is None:
                    own_key = fact_key(scope, body.get("s"), body.get("r"))
                if prem.key == own_key and prem.value != value_key(body.get("o")):
                    return Verdict(False, f"would refute its own premise {pid}")
        return Verdict(True, "premises sound")

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
        reconfirm_after: Any = _DEFAULT,
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
        if isinstance(derived_from, str):
            derived_from = [derived_from]
        derived_from = list(derived_from or ())
        if not all(isinstance(d, str) for d in derived_from):
            raise BadInput(f"derived_from must be item ids (strings like 'k3'), got {derived_from!r}.")
        if scope is not None and not isinstance(scope, dict):
            raise BadInput(f"scope must be a dict such as {{'map': 'A'}} or None, got {scope!r}.")
        # Everything is checked before anything is written: a refused call leaves the journal as it was.
        need_str("kind", kind, empty=False)
        need_str("source", source)
        need_str_list("derived_from", derived_from)
        need_str("supersedes", supersedes, none=True)
        need_str("of", of, none=True)
        need_bool("hypothesis", hypothesis)
        need_json_all({"body": body, "by": by, "scope": scope, "evidence": evidence, "valid": valid})
        if supersedes is not None and supersedes not in self._items:
            raise UnknownId(
                f"supersedes={supersedes!r} names no item of this store; pass the id of the version this one replaces."
            )
        if valid is not None:
            if not isinstance(valid, (tuple, list)) or len(valid) != 2:
                raise BadInput(f"valid must be (since, until) — either may be None — got {valid!r}.")
            valid = list(valid)
        if (
            reconfirm_after is not _DEFAULT
            and reconfirm_after is not None
            and (not isinstance(reconfirm_after, int) or isinstance(reconfirm_after, bool) or reconfirm_after < 1)
        ):
            raise BadInput(f"reconfirm_after must be a positive number of decisions or None, got {reconfirm_after!r}.")
        # The competition key: facts by (scope, s, r); other kinds by name, a new version by its predecessor's key.
        own_key = None  # the fact key, when this is one (the premise check compares its premises' keys with it)
        if kind == "fact" and isinstance(body, dict) and "s" in body and "r" in body:
            key = own_key = fact_key(scope, body["s"], body["r"])
        elif supersedes is not None:
            key = self._items[supersedes].key
        elif isinstance(body, dict) and isinstance(body.get("name"), (str, int)):
            key = canonical([kind, scope, body["name"]])
        else:
            key = canonical(["item", self.journal.position if self.journal else self.position])
        if supersedes is not None:
            old = self._items[supersedes]
            if old.kind != kind or old.key != key:
                raise BadInput(
                    f"{supersedes} is a {old.kind} on another key; a new version supersedes a version of "
                    "the same item (same kind, and for a fact the same scope, s and r)."
                )
        self._catch_up()
        # Only what was said goes in the record (defaults are left out: smaller journal, faster hashing). The
        # gates' shadow folds this same payload, so it sees the item exactly as the store will.
        payload: dict[str, Any] = {"op": "add", "kind": kind, "body": body, "source": source, "key": key}
        for name, value in (
            ("by", by),
            ("scope", scope),
            ("derived_from", derived_from),
            ("evidence", evidence),
            ("supersedes", supersedes),
            ("valid", valid),
            ("of", of),
        ):
            if value is not None and value != []:
                payload[name] = value
        if hypothesis:
            payload["hypothesis"] = True
        if reconfirm_after is not _DEFAULT:
            payload["reconfirm_after"] = reconfirm_after
        cand = Candidate(kind, body, source, by, scope, tuple(derived_from), supersedes, of)
        verdicts: list[dict[str, Any]] = []
        # The two built-in gates (SourceGate, ConsistencyGate), called directly: the premise check reuses the key.
        base = source_check(kind, body, source, of, self._decision_info)
        source_ok = base.admit
        if base.admit:
            base = self._premise_verdict(kind, body, scope, cand.derived_from, self.journal.position, own_key)
        # The user's gates rule on every item the source check admits, even one the premise check refuses now: a
        # retraction can make its premises sound in the re-fold, which reads the verdicts from the journal.
        if source_ok:
            for g in self.gates:
                v = g.admit(self, cand, _Shadow(self, dict(payload)))
                if not isinstance(v, Verdict):
                    raise BadInput(f"gate {getattr(g, 'name', g)!r} returned {v!r}; admit() must return a Verdict.")
                verdicts.append(v.as_dict(getattr(g, "name", type(g).__name__)))
        if verdicts:
            payload["verdicts"] = verdicts
        if not base.admit:
            payload["refused"] = base.reason  # informational: the fold decides again, deterministically
        pos = self._write_knowledge(payload)
        it = self._items[item_id(pos)]
        if it.state in ("refused", "retracted"):
            raise WriteRefused(f"refused {it.id}: {it.why}", item_id=it.id, reason=it.why, position=pos)
        return it.id

    def _get(self, iid: Any) -> Item:
        if not isinstance(iid, str):
            raise BadInput(f"an item id is a string like 'k3', got {iid!r}.")
        it = self._items.get(iid)
        if it is None:
            raise UnknownId(f"no item {iid!r} in this store ({len(self._items)} written); use an id add() returned.")
        return it

    def _live_item(self, iid: str, what: str) -> Item:
        it = self._get(iid)
        if it.state == "refused":
            raise UnknownId(
                f"{iid} was refused when written ({it.why}); it is not in the store, so it cannot be {what}."
            )
        if it.state == "retracted":
            raise BadInput(f"{iid} is already retracted ({it.why}); nothing to do.")
        return it

    @writing_call
    def retract(self, iid: str, *, by: Any, why: str) -> None:
        """Take an item back with everything derived from it. Exact: the store then has the fingerprint of
        rebuild(skip={iid}). Nothing is deleted from the journal. Cost: the keys the retraction changes."""
        need_str("why", why)
        need_json("by", by)
        self._live_item(iid, "retracted")
        if not why:
            raise BadInput("retract() needs why=...: a retraction without a reason cannot be reviewed.")
        self._write_knowledge({"op": "retract", "id": iid, "by": by, "why": why})

    def _key_op(self, op: str, iid: str, **fields: Any) -> None:
        for name, v in fields.items():
            need_json(name, v)
        it = self._live_item(iid, f"given to {op}()")
        self._write_knowledge({"op": op, "id": iid, "key": it.key, "clock": self.ticks, **fields})

    @writing_call
    def promote(self, iid: str, *, by: Any, why: str) -> None:
        """Promote a hypothesis (a held rule, skill or action; a fact written as a hypothesis); who and why recorded."""
        need_str("why", why)
        it = self._live_item(iid, "promoted")
        if it.state != "hypothesis":
            raise BadInput(f"{iid} is {self.status(iid)}, not a hypothesis; only a hypothesis is promoted.")
        self._key_op("promote", iid, by=by, why=why)

    @writing_call
    def use(self, iid: str, *, wrong: bool = False) -> None:
        """Count a use of an item by a decision, and whether that use turned out wrong."""
        self._key_op("use", iid, wrong=bool(wrong))

    @writing_call
    def confirm(self, iid: str, *, by: Any, source: str = "person") -> None:
        """A person (or an observation) confirms an item as it stands: it is no longer stale under older flags."""
        if not isinstance(source, str) or source not in ("person", "outcome"):
            raise BadInput(f"confirm(source={source!r}): only a person or an outcome re-confirms an item.")
        self._key_op("confirm", iid, by=by, source=source, rule=None)

    @writing_call
    def rollback(self, update: str, *, by: Any, why: str) -> str:
        """Undo a new version: the one it superseded comes back — only as a hint while a flag covers the update."""
        need_str("why", why)
        it = self._live_item(update, "rolled back")
        if not it.supersedes:
            raise BadInput(f"{update} supersedes nothing; rollback() undoes a new version (written with supersedes=).")
        prev = self._items[it.supersedes]
        if prev.state != "refuted" or prev.refuted_by != update:
            raise BadInput(
                f"{update}'s previous version {prev.id} is {self.status(prev.id)}, not the version it "
                "replaced; nothing to roll back to."
            )
        flags = [f.id for f in self._flags.pending_covering(it.id, it.key, it.scope)]
        flags += [f.id for f in self._flags.pending_covering(prev.id, prev.key, prev.scope) if f.id not in flags]
        self._key_op("rollback", update, by=by, why=why, flags=flags)
        return prev.id

    # ------------------------------------------------------------------------------------------ disputes
    def _key_of(self, key: Any) -> _Key:
        if isinstance(key, str) and key.startswith("q") and key[1:].isdigit():
            for ks in self._open_keys():
                if ks.open_q and ks.open_q["id"] == key:
                    return ks
            raise BadInput(f"question {key} is not open; ks.disputes() lists the open ones.")
        if isinstance(key, (tuple, list)) and len(key) == 3:
            key = fact_key(*key)
        if not isinstance(key, str) or key not in self._keys:
            raise BadInput(f"{key!r} is not a key of this store; pass a key from ks.disputes() or (scope, s, r).")
        return self._keys[key]

    def _open_keys(self) -> list[_Key]:
        return [self._keys[k] for k in self._open]

    @property
    def _open(self) -> list[str]:
        return sorted(self._open_set, key=lambda k: self._keys[k].open_q["opened_at"])

    def disputes(self) -> list[dict[str, Any]]:
        """The open disputes: one person question each, with the sides and their items."""
        out = []
        for ks in self._open_keys():
            sides: dict[str, dict[str, Any]] = {}
            for c in ks.live.values():
                if c.state == "disputed":
                    sides.setdefault(c.value, {"value": c.body["o"], "items": []})["items"].append(c.id)
            out.append(
                {
                    "question": ks.open_q["id"],
                    "key": ks.key,
                    "opened_at": ks.open_q["opened_at"],
                    "sides": list(sides.values()),
                }
            )
        return out

    def questions(self) -> list[dict[str, Any]]:
        """Every person question ever opened (one per dispute event), open or closed."""
        return sorted(
            (dict(q) for k in self._question_keys for q in self._keys[k].questions), key=lambda q: q["opened_at"]
        )

    @writing_call
    def resolve(self, key: Any, value: Any, *, by: Any, why: str = "") -> None:
        """A person's answer to an open dispute: the side holding `value` stays, the others are refuted."""
        need_json("key", key)
        need_json("value", value)
        need_json("by", by)
        need_str("why", why)
        ks = self._key_of(key)
        if ks.open_q is None:
            raise BadInput(f"there is no open dispute on {ks.key}; ks.disputes() lists the open ones.")
        held = {c.value: c.body["o"] for c in ks.live.values() if c.state == "disputed"}
        try:
            wanted = value_key(value)
        except (TypeError, ValueError):
            raise BadInput(f"resolve value {value!r} is not JSON.") from None
        if wanted not in held:
            raise BadInput(
                f"no side of the dispute on {ks.key} holds {value!r}; the sides hold "
                f"{list(held.values())}. Add the value as a fact first if it is the answer."
            )
        self._write_knowledge(
            {
                "op": "resolve",
                "key": ks.key,
                "value": value,
                "by": by,
                "why": why,
                "question": ks.open_q["id"],
                "clock": self.ticks,
            }
        )

    # ------------------------------------------------------------------------------------------ staleness
    @writing_call
    def flag(
        self, scope: dict[str, Any] | None = None, *, ids: Any = None, key: Any = None, why: str, by: Any = None
    ) -> str:
        """Raise a drift flag: the items it covers that were learned before it become hints until re-confirmed
        by a newer observation or a person, or until the flag ends. Returns the flag id."""
        need_str("why", why)
        need_json("by", by)
        for what, v in (("scope", scope), ("key", key)):
            need_json(what, v)
        if ids is not None and not isinstance(ids, str):
            need_str_list("ids", ids)
        if not why:
            raise BadInput("flag() needs why=...: say what drift or open-set signal raised it.")
        scope, ids, target_key = validate_flag_target(scope, ids, key)
        for i in ids:
            self._get(i)
        fid = f"f{self.journal.position}"
        self._write_knowledge(
            {"op": "flag", "id": fid, "scope": scope, "ids": list(ids), "target_key": target_key, "why": why, "by": by}
        )
        return fid

    @writing_call
    def reconfirm(self, iid: str, *, why: str = "reconfirm requested", by: Any = None) -> str:
        """Flag one item: it is a hint until an observation or a person confirms it again."""
        return self.flag(ids=[iid], why=why, by=by)

    @writing_call
    def end_flag(self, flag: str, *, by: Any, why: str) -> None:
        need_str("flag", flag)
        need_str("why", why)
        need_json("by", by)
        f = self._flags.flags.get(flag)
        if f is None:
            raise UnknownId(f"no flag {flag!r}; ks.report()['flags'] lists them.")
        if not f.pending:
            raise BadInput(f"flag {flag} already ended at position {f.ended_at}.")
        self._write_knowledge({"op": "end_flag", "flag": flag, "by": by, "why": why})

    @writing_call
    def tick(self, k: int = 1) -> None:
        """Move the store's clock by k decisions (what reconfirm_after counts)."""
        if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k.bit_length() > 62:
            raise BadInput(f"tick(k) moves the clock forward by k ≥ 1 decisions, got {k!r}.")
        self._write_knowledge({"op": "tick", "k": k})

    def stale(self, iid: str) -> bool:
        """True while a pending flag covers the item (read from the flags, never from the status)."""
        it = self._get(iid)
        return bool(self._stale_flags(it))

    def _stale_flags(self, it: Item) -> list[str]:
        if it.state not in LIVE:
            return []
        out = [f.id for f in self._flags.pending_covering(it.id, it.key, it.scope) if f.pos > it.confirmed_pos]
        ru = it.restored_under
        if ru and it.confirmed_pos < ru["position"]:
            out += [fid for fid in ru["flags"] if self._flags.flags[fid].pending and fid not in out]
        return out

    def usable(self, iid: str, valid_at: Any = None) -> bool:
        """Active, not expired, not stale, not resting on a rolled-back version (unless confirmed since), and (when
        valid_at is given) valid in the world at that time."""
        it = self._get(iid)
        if it.state != "active" or it.expired(self.ticks) or self._stale_flags(it) or self.rolled_back_under(iid):
            return False
        return valid_at is None or self._valid_at(it, valid_at)

    def rolled_back_under(self, iid: str) -> list[str]:
        """The rolled-back versions this live item rests on (directly or through its premises) and was not
        confirmed since: while the list is not empty the item is a hint, not a fact (the rollback rule)."""
        it = self._get(iid)
        return rolled_back_premises(self, it) if it.derived_from and it.state in LIVE else []

    @staticmethod
    def _valid_at(it: Item, t: Any) -> bool:
        if not it.valid:
            return True
        since, until = it.valid
        try:
            return (since is None or since <= t) and (until is None or t < until)
        except TypeError:
            raise BadInput(
                f"valid_at={t!r} cannot be compared with {it.id}'s validity {it.valid!r}; use the same "
                "type (numbers or ISO date strings)."
            ) from None

    # ------------------------------------------------------------------------------------------ reading
    def status(self, iid: str) -> str:
        return item_status(self._get(iid), self.ticks)

    def view(self) -> StoreView:
        """A read-only view of what the store holds: frozen item records and their relations (knowledge/view.py)."""
        return StoreView(self)

    def item(self, iid: str) -> dict[str, Any]:
        """The full record of an item (see README: the specification's field names)."""
        it = self._get(iid)
        if it.state == "refused":
            raise UnknownId(
                f"{iid} was refused when written ({it.why}); the refusal is in the journal at "
                f"position {it.pos}, and the item is not in the store."
            )
        retracted = None
        invalidated = it.invalidated_at
        if it.state == "retracted":
            root = it.id if it.id in self._retracted else None
            if root is None:
                for pid in self._retracted_roots_of(it):
                    root = pid
                    break
            info = self._retracted.get(root, {})
            retracted = {"root": root, "position": info.get("position"), "by": info.get("by"), "why": info.get("why")}
            invalidated = info.get("position")
        valid = it.valid or [None, None]
        return {
            "id": it.id,
            "kind": it.kind,
            "body": it.body,
            "scope": it.scope,
            "source": it.source,
            "who": it.by,
            "evidence": it.evidence,
            "derived_from": list(it.derived_from),
            "of": it.of,
            "counts": {
                "confirmations": it.confirmations,
                "refutations": it.refutations,
                "uses": it.uses if it.present else 0,
                "wrong_uses": it.wrong_uses if it.present else 0,
                "guarantee": it.guarantee,
            },
            "status": self.status(iid),
            "why": it.why,
            "refuted_by": it.refuted_by,
            "version": it.version,
            "supersedes": it.supersedes,
            "valid": {"since": valid[0], "until": valid[1]},
            "learned_at": it.pos,
            "invalidated_at": invalidated,
            "confirmed_at": it.confirmed_pos,
            "clock": {"learned": it.clock, "confirmed": it.confirmed_clock, "reconfirm_after": it.clock_rule},
            "retracted": retracted,
            "stale": bool(self._stale_flags(it)),
            "rolled_back_under": self.rolled_back_under(iid),
            "promoted": it.promoted,
        }

    def _retracted_roots_of(self, it: Item) -> Iterable[str]:
        seen, todo = set(), list(it.derived_from)
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            if pid in self._retracted:
                yield pid
            p = self._items.get(pid)
            if p is not None:
                todo.extend(p.derived_from)

    def __contains__(self, iid: object) -> bool:
        it = self._items.get(iid) if isinstance(iid, str) else None
        return it is not None and it.present

    def __len__(self) -> int:
        self._flush_digests()
        return self._present

    @writing_call
    def query(
        self,
        kind: str | None = None,
        s: Any = ...,
        r: str | None = None,
        o: Any = ...,
        scope: dict[str, Any] | None = None,
        status: str | Iterable[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Items matching every given field. With s= it reads the subject index (cost: that subject's items);
        without it, it scans the store."""
        if kind is not None and (not isinstance(kind, str) or kind not in KINDS):
            raise BadInput(f"kind {kind!r} is not one of {KINDS}.")
        for what, v in (("s", s), ("o", o)):
            if v is not ...:
                need_json(what, v)
        need_str("r", r, none=True)
        if scope is not None and not isinstance(scope, dict):
            raise BadInput(f"scope must be a dict or None, got {scope!r}.")
        need_json("scope", scope)
        if status is not None and not isinstance(status, str):
            need_str_list("status", status)
        statuses = {status} if isinstance(status, str) else (set(status) if status is not None else None)
        cands = (
            (self._items.get(i) for i in self._by_subject.get(value_key(s), ()))
            if s is not ...
            else self._items.values()
        )
        out = []
        oc = value_key(o) if o is not ... else None
        for it in cands:
            if it is None or not (it.present or it.state == "retracted"):
                continue
            if kind is not None and it.kind != kind:
                continue
            if r is not None and not (isinstance(it.body, dict) and it.body.get("r") == r):
                continue
            if oc is not None and it.value != oc:
                continue
            if scope is not None and not (it.scope and all(it.scope.get(k) == v for k, v in scope.items())):
                continue
            if statuses is not None and self.status(it.id) not in statuses:
                continue
            out.append(self.item(it.id))
        return out

    @writing_call
    def snapshot(
        self, about: Any = ..., *, scope: dict[str, Any] | None = None, r: str | None = None, valid_at: Any = None
    ) -> dict[str, Any]:
        """What a decision is given: the usable facts that match, the hints (hypotheses of every kind — with the
        gate that holds them and its verdict —, disputed, expired or stale facts, items resting on a rolled-back
        version; each with why), the ids they rest on, the store's fingerprint and its journal position.

        Without `about` it covers the whole store; `about=` is one subject (a list is one JSON subject, not a set
        of subjects) and also matches rules, skills and actions by name. See solvi_lab.knowledge.snapshot.

        >>> ks = KnowledgeStore()
        >>> _ = ks.add("fact", {"s": "c17", "r": "tier", "o": "vip"}, source="person")
        >>> [f["o"] for f in ks.snapshot()["facts"]], ks.snapshot(about="nobody")["facts"]
        (['vip'], [])
        """
        return _snapshot(self, about, scope=scope, r=r, valid_at=valid_at)

    def fingerprint(self) -> str:
        """A 256-bit digest of the whole observable state, maintained incrementally (O(items changed since the
        last read) to read)."""
        self._flush_digests()
        return hashlib.sha256(
            f"{self._items_sum:064x}|{self._keys_sum:064x}|{self._flags_sum:064x}|{self.ticks}".encode()
        ).hexdigest()

    def report(self) -> dict[str, Any]:
        """Counts by status, kind and source; open disputes; flags; the clock; position and fingerprint."""
        by_status: dict[str, int] = {}
        by_kind: dict[str, int] = {}
        by_source: dict[str, int] = {}
        refused = 0
        for it in self._items.values():
            if it.state == "refused":
                refused += 1
                continue
            st = self.status(it.id)
            by_status[st] = by_status.get(st, 0) + 1
            if it.present:
                by_kind[it.kind] = by_kind.get(it.kind, 0) + 1
                by_source[it.source] = by_source.get(it.source, 0) + 1
        return {
            "items": len(self._items) - refused,
            "refused_writes": refused,
            "by_status": by_status,
            "by_kind": by_kind,
            "by_source": by_source,
            "open_disputes": len(self._open),
            "questions": sum(len(self._keys[k].questions) for k in self._question_keys),
            "flags": [f.as_dict() for f in self._flags.flags.values()],
            "clock": self.ticks,
            "position": self.position,
            "fingerprint": self.fingerprint(),
        }

    # ------------------------------------------------------------------------------------ owner protocol
    @classmethod
    @_gc_paused
    def from_journal(
        cls, journal: Journal, upto: int | None = None, *, gates: Iterable[WriteGate] = (), skip: Iterable[str] = ()
    ) -> KnowledgeStore:
        """The store folded from `journal`'s records (those before position `upto` only, when given), every item
        retracted by then — and every id in `skip` — treated as never written: the definition a live
        retraction must meet. Without `upto` and `skip` the store writes on to `journal`; with either it is a
        read-only view.

        >>> ks = KnowledgeStore()
        >>> a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
        >>> b = ks.add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="outcome")
        >>> KnowledgeStore.from_journal(ks.journal).fingerprint() == ks.fingerprint()
        True
        >>> KnowledgeStore.from_journal(ks.journal, upto=1).status(a), KnowledgeStore.from_journal(ks.journal, skip=[b]).status(a)
        ('active', 'active')
        """
        upto = _check_upto(journal, upto)
        skip = set(need_str_list("skip", skip))
        st = cls._empty(gates=gates)
        st.journal = journal
        if upto is not None or skip:
            st._upto = upto
            st._read_only = (
                f"rebuilt up to journal position {upto} (a view of the past)"
                if upto is not None
                else "rebuilt without some items (skip=)"
            )
        st._fold_definition(journal.records(0, upto), skip)
        if not st._read_only:
            st.decisions = DecisionLog(journal)
        return st

    @classmethod
    @_gc_paused
    def from_records(
        cls,
        records: Iterable[Record],
        upto: int | None = None,
        skip: Iterable[str] = (),
        *,
        at: Callable[[KnowledgeStore, int], None] | None = None,
        at_positions: Iterable[int] = (),
    ) -> KnowledgeStore:
        """A read-only store folded from a list of records (a Parquet import, a journal, a test's records): those
        before position `upto`, every item they retract and every id in `skip` treated as never written.
        `at(store, p)` is called just before the record at each position in `at_positions` is folded (the store
        as it was then: what redecide rebuilds snapshots from).

        >>> ks = KnowledgeStore(); _ = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
        >>> KnowledgeStore.from_records(list(ks.journal)).fingerprint() == ks.fingerprint()
        True
        """
        skip = set(need_str_list("skip", skip))
        if upto is not None and (not isinstance(upto, int) or isinstance(upto, bool) or upto < 0):
            raise BadInput(f"upto={upto!r} is not a journal position (an int ≥ 0).")
        st = cls._empty()
        st._read_only = "folded from a list of records (from_records)"
        recs = [r for r in records if upto is None or r.position < upto]
        st._fold_definition(recs, skip, at, at_positions)
        return st

    def _fold_definition(
        self,
        records: Iterable[Record],
        skip: set[str],
        at: Callable[[KnowledgeStore, int], None] | None = None,
        at_positions: Iterable[int] = (),
    ) -> None:
        """Fold from scratch with every retracted item (and every id in `skip`) treated as never written: the
        retract records are read first, so no retraction re-folds anything (the definition, and the cheap way)."""
        records = records if isinstance(records, list) else list(records)
        for r in records:
            if r.kind == RECORD_KIND and r.payload.get("op") == "retract":
                p = r.payload
                skip.add(p["id"])
                # known before the item's add is folded, so its why names who retracted it, as the live store's
                self._retracted[p["id"]] = {"position": r.position, "by": p.get("by"), "why": p.get("why")}
        self._skip = skip
        if self._read_only:
            # Read-only, with every retraction in it skipped from the start: nothing ever re-folds this store, so
            # the per-key checkpoints a re-fold starts from would only cost time and memory.
            self.CHECKPOINT_EVERY = NO_CHECKPOINTS
        if at is None:
            self._fold(records)
            return
        wanted = sorted(set(at_positions))
        wi = 0
        for r in records:
            while wi < len(wanted) and wanted[wi] <= r.position:
                at(self, wanted[wi])
                wi += 1
            self._fold((r,))
        while wi < len(wanted):
            at(self, wanted[wi])
            wi += 1

    @classmethod
    @_gc_paused
    def open(
        cls, path: Any, *, journal_options: dict[str, Any] | None = None, snapshot: bool = True, **options: Any
    ) -> KnowledgeStore:
        """Open the store kept in the journal file at `path` (created when absent) and continue it; the file is
        folded in one pass as it loads — from its fold snapshot on, when it has one the journal bears out
        (knowledge/fold_snapshot.py). `journal_options` go to Journal (timestamps, expect_head, durability,
        backend, ...); `options` (gates) to the store. `snapshot=False` neither reads nor (on close) writes a fold
        snapshot. Close it (or use `with`) to release the file.

        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "ks.sqlite"
        >>> with KnowledgeStore.open(path) as ks:
        ...     a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
        >>> with KnowledgeStore.open(path) as again:
        ...     again.status(a)
        'active'
        """
        st = cls._empty(**options)
        loader = SnapshotLoader(st, path, use=snapshot)
        jo = {**(journal_options or {}), "on_load": loader.on_load, "load_checks": False}
        journal = Journal(path, **jo)
        try:
            loader.finish(journal)
            st._attach(journal)
            st._catch_up()  # a snapshot the journal did not bear out left the store empty: fold from scratch
            st.decisions = DecisionLog(journal)
        except BaseException:
            journal.close()
            raise
        st._snapshot_on_close = snapshot
        freeze_after_load(st)
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
        close_store(self, snapshot)
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
        return {
            "fingerprint": self.fingerprint(),
            "ticks": self.ticks,
            "position": self.position,
            "retracted": {k: dict(v) for k, v in self._retracted.items()},
            "decisions": {k: list(v) for k, v in self._decision_info.items()},
        }

    @writing_call
    def rebuild(self, upto: int | None = None, skip: Iterable[str] = ()) -> KnowledgeStore:
        """The specification's name for `KnowledgeStore.from_journal(ks.journal, upto, skip=skip)`: the store
        rebuilt from its journal up to (not including) position `upto`, as if the items in `skip` had never been
        written — a read-only view (with neither, a new store writing on to the same journal)."""
        if self.journal is None:
            raise BadInput("rebuild() needs the store's journal; this store was folded from a list of records.")
        skip = set(need_str_list("skip", skip))
        for s in skip:
            self._get(s)
        return KnowledgeStore.from_journal(self.journal, upto=upto, skip=skip, gates=self.gates)

    def at(self, position: int) -> KnowledgeStore:
        """The store as it was just before journal position `position` (time travel; a read-only view):
        `KnowledgeStore.from_journal(ks.journal, upto=position)`."""
        if self.journal is None:
            raise BadInput("at() needs the store's journal; this store was folded from a list of records.")
        return KnowledgeStore.from_journal(self.journal, upto=position)

    @_gc_paused
    def verify(self, head: Any = None) -> Verification:
        """The journal's chain is whole, and the live store equals the replay of its journal.

        The chain is checked first (streaming), then the journal is folded a second time beside the live store —
        every retracted item treated as never written, the definition retraction must meet — and the two
        fingerprints are compared. verify() only reports: the live store is never replaced. The second fold is
        the same fold, except that it lets go of each item and key once no later record reads it (their digests
        are final then; see knowledge/release.py), so it holds the journal's working set, not a second store.
        """
        if self.journal is None or self._read_only:
            raise BadInput("verify() needs the store's journal; call it on the live store.")
        self._catch_up()
        plan = ReleasePlan()  # what the second fold may let go of, and when: noted during the chain walk
        chain = self.journal.verify(head=head, visit=plan.see)  # with a kept head: also refuse a cut or rewritten tail
        if not chain:
            return Verification(False, False, False, chain.records, chain.problem)
        live = self.fingerprint()
        same = KnowledgeStore._lean_fold(self.journal.records(0, chain.records), self._retracted, plan) == live
        return Verification(
            same,
            True,
            same,
            chain.records,
            "" if same else "the live store differs from the replay of its journal; the live store is unchanged",
        )

    @classmethod
    @_gc_paused
    def _lean_fold(cls, records: Iterable[Any], retracted: Iterable[str], plan: ReleasePlan) -> str:
        """The fingerprint of the from-scratch fold of `records` with every retracted item skipped, folded by the
        store's own fold but dropping each item and key after the last record that reads it (`plan`, from a
        pre-scan of the same records). No retraction re-folds anything here, so no checkpoints are kept."""
        st = cls._empty()
        st._read_only = "verify()'s lean fold"
        st._skip = set(retracted) | plan.retracted
        st.CHECKPOINT_EVERY = NO_CHECKPOINTS  # a forward fold with nothing to re-fold needs no checkpoint
        st._indexed = False  # the read indexes (dependents, successors, subjects) serve re-folds and queries only
        later: dict[int, list[Item]] = {}  # position -> the items to let go of once it is folded
        items = st._items
        for r in records:
            pos = r.position
            st._fold((r,))
            if r.kind == RECORD_KIND and r.payload.get("op") == "add":
                it = items[item_id(pos)]
                at = plan.release_position(it.id, it.key, pos)
                if at > pos:
                    later.setdefault(at, []).append(it)
                else:
                    st._release(it)
            for it in later.pop(pos, ()):
                st._release(it)
            k = plan.key_ending_at(pos)
            if k is not None and k in st._keys:
                del st._keys[k]
                st._open_set.pop(k, None)
                st._question_keys.pop(k, None)
        return st.fingerprint()

    def _release(self, it: Item) -> None:
        """Add an item's final digest to the item sum and drop it: no later record reads it (verify's fold)."""
        self._touched.discard(it)
        new = it.digest()
        self._items_sum = (self._items_sum - it.contribution + new) & MASK
        self._present += (new != 0) - (it.contribution != 0)
        it.contribution = new
        del self._items[it.id]

    # ---------------------------------------------------------------------------------------- exploration
    def frame(self):
        """One row per item (polars): see solvi_lab.explore.frames.store_frame. ``frame().to_pandas()`` for pandas."""
        from ..explore.frames import store_frame

        return store_frame(self)

    def diff(self, a: int, b: int | None = None):
        """What changed status between journal positions a and b (polars): see explore.timetravel.diff."""
        from ..explore.timetravel import diff

        return diff(self, a, b)

    def graph(self, around: str | None = None, depth: int = 2, **kw: Any):
        """Premise edges and same-key competition around an item (networkx): see explore.graph.graph."""
        from ..explore.graph import graph

        return graph(self, around=around, depth=depth, **kw)

    def redecide(
        self, decisions: Any, retracted: Iterable[str], decide: Callable[[Any], Any]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Find the stored decisions whose snapshot rested on retracted items, rebuild each snapshot as it would
        have been without them, re-run the decision on the old and the new snapshot, and split the list into
        (the answer changes — for a reviewer, only the justification changes — recorded in the journal)."""
        from .redecide import redecide as _redecide

        return _redecide(self, decisions, retracted, decide)


class _Overlay(MutableMapping):
    """A copy-on-write view of a dict: reads fall through to `base`, writes and deletions stay in the overlay, so
    the base dict (the live store's) never changes. Iteration keeps the base's order, then the new keys."""

    __slots__ = ("base", "top", "gone")

    def __init__(self, base: dict, top: dict | None = None):
        self.base, self.top, self.gone = base, top or {}, set()

    def __getitem__(self, k: Any) -> Any:
        if k in self.top:
            return self.top[k]
        if k in self.gone:
            raise KeyError(k)
        return self.base[k]

    def __setitem__(self, k: Any, v: Any) -> None:
        self.top[k] = v
        self.gone.discard(k)

    def __delitem__(self, k: Any) -> None:
        if k not in self:
            raise KeyError(k)
        self.top.pop(k, None)
        self.gone.add(k)

    def __contains__(self, k: object) -> bool:
        return k in self.top or (k not in self.gone and k in self.base)

    def __iter__(self) -> Iterator[Any]:
        for k in self.base:
            if k not in self.gone:
                yield k
        for k in self.top:
            if k not in self.base:
                yield k

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Shadow:
    """The store as it will be if the gates admit the candidate (for gates that measure), built on demand.

    The candidate is folded from the very payload add() is about to write (same key, hypothesis, valid,
    reconfirm_after, evidence), through the store's own `_apply`, into a copy-on-write shadow of the live store:
    an add changes only its own competition key (the items live on it, the version it supersedes, its questions)
    and appends to three indexes (dependents, successors, subject), so only those are copied; every other item,
    key, flag and decision is read from the live store, which the shadow never changes. Cost: O(events and live
    items on the candidate's key), not O(journal) (docs/ARCHITECTURE.md, "The gates' shadow")."""

    def __init__(self, store: KnowledgeStore, payload: dict[str, Any]):
        self._store, self._payload, self._built = store, payload, None

    def store(self) -> KnowledgeStore:
        if self._built is None:
            self._built = _shadow_of(self._store, self._payload)
        return self._built


def _shadow_of(live: KnowledgeStore, payload: dict[str, Any]) -> KnowledgeStore:
    payload = json.loads(canonical(payload))  # exactly what the journal will give back (tuples become lists)
    live._flush_digests()  # the sums the shadow starts from must be settled (a read, as fingerprint() does)
    sh = KnowledgeStore.__new__(KnowledgeStore)
    # Scalars shared by value; every dict behind a copy-on-write overlay (the ones an add writes to are set up
    # below); other objects (flags, the skip set) are read, never written, by an add.
    sh.__dict__.update({k: _Overlay(v) if type(v) is dict else v for k, v in live.__dict__.items()})
    sh.__dict__.pop("_names_index", None)  # snapshot's name index is the live store's: the shadow builds its own
    sh.journal, sh.decisions = None, None
    sh._read_only = "a gate's shadow (the store as it would be with the candidate)"
    sh._touched = set()
    sh.last_propagation = {"keys": 0, "items": 0, "events": 0}
    key = payload["key"]
    items: dict[str, Item] = {}
    ks = live._keys.get(key)
    if ks is not None:
        for it in ks.live.values():
            items[it.id] = it.copy()
        old = live._items.get(payload.get("supersedes"))
        if old is not None and old.id not in items:
            items[old.id] = old.copy()
        cp = _Key(key)
        for name in _Key.__slots__:  # every list and dict of the key copied (events, items, questions, checkpoints)
            v = getattr(ks, name)
            setattr(cp, name, list(v) if type(v) is list else dict(v) if type(v) is dict else v)
        cp.live = {i: items[i] for i in ks.live}
        if ks.open_q is not None:  # the open question is the last one; closing it changes it in place
            cp.questions[-1] = cp.open_q
        keys = _Overlay(live._keys, {key: cp})
    else:
        keys = _Overlay(live._keys)
    sh._items = _Overlay(live._items, items)
    sh._keys = keys
    sh._dependents = _Overlay(
        live._dependents, {p: list(live._dependents.get(p, ())) for p in payload.get("derived_from") or ()}
    )
    sup = payload.get("supersedes")
    sh._successors = _Overlay(live._successors, {sup: list(live._successors.get(sup, ()))} if sup else {})
    body = payload.get("body")
    subject = (
        sys.intern(repr(body["s"]))
        if payload.get("kind") == "fact" and isinstance(body, dict) and "s" in body
        else None
    )
    sh._by_subject = _Overlay(
        live._by_subject, {subject: list(live._by_subject.get(subject, ()))} if subject is not None else {}
    )
    sh._scopes = _Overlay(live._scopes)
    sh._open_set = _Overlay(live._open_set)
    sh._question_keys = _Overlay(live._question_keys)
    pos = live.position
    sh._apply(Record(pos, RECORD_KIND, payload, "", ""))
    return sh
