"""Items of the knowledge store: kinds, sources and their ranks, statuses, and the mutable fold state of one item.

An item's write-time fields (what was said, by whom, resting on what) never change; its fold state (status,
counts, who refuted it) is recomputed by the store's fold and is what the fingerprint covers. This module holds the
vocabulary and the Item's fields; it may not decide a status (knowledge/fold.py does) or read the journal.
"""

from __future__ import annotations

import hashlib
import json
import operator
import sys
from enum import StrEnum
from typing import Any

from ..journal import canonical

KINDS = ("fact", "rule", "skill", "action", "episode")
BEHAVIOUR_KINDS = frozenset({"rule", "skill", "action"})  # promoted only through the gates


class ItemSource(StrEnum):
    """Who vouches for an item, strongest first (str-valued: records keep plain JSON strings).

    >>> ItemSource.PERSON == "person", RANK[ItemSource.PERSON]
    (True, 3)
    """

    OUTCOME = "outcome"
    PERSON = "person"
    SPEC = "spec"
    VERIFIED = "verified"


class ItemStatus(StrEnum):
    """The status of an item, as `KnowledgeStore.status()` reports it (str-valued: equal to the plain strings).

    The six in `STATUSES` are the statuses of an item that is in the store. `REFUSED` is what `status()` returns
    for an id whose write was refused (by a gate, a bad source, or a premise it would refute): the refusal is in
    the journal, the item never took part in the store, so it is kept out of `STATUSES` (the studies count those).

    >>> ItemStatus.REFUSED == "refused", "refused" in STATUSES
    (True, False)
    """

    ACTIVE = "active"
    HYPOTHESIS = "hypothesis"
    DISPUTED = "disputed"
    REFUTED = "refuted"
    EXPIRED = "expired"
    RETRACTED = "retracted"
    REFUSED = "refused"


SOURCES = tuple(s.value for s in ItemSource)
RANK = {"outcome": 4, "person": 3, "spec": 2, "verified": 1}
STATUSES = tuple(s.value for s in ItemStatus if s is not ItemStatus.REFUSED)
# fold states that take part in contention
LIVE = frozenset({ItemStatus.ACTIVE.value, ItemStatus.HYPOTHESIS.value, ItemStatus.DISPUTED.value})
# fold states of an item that is not in the store: not folded yet (None), refused when written, or retracted
_ABSENT = (None, ItemStatus.REFUSED, ItemStatus.RETRACTED)

# reconfirm_after per (kind, source), in decisions (the store's clock). None: no clock — the next contradicting
# observation refutes it instead. A "verified" fact rests on a guarantee that ages; the others do not.
RECONFIRM_DEFAULTS: dict[tuple[str, str], int | None] = {(k, s): None for k in KINDS for s in SOURCES}
RECONFIRM_DEFAULTS[("fact", "verified")] = 2000
_DEFAULT_RULE = RECONFIRM_DEFAULTS.get


def value_key(v: Any) -> str:
    """The comparison key of a JSON value given by a caller (tuples and lists compare equal, as in JSON)."""
    return repr(json.loads(canonical(v)))


def item_id(position: int) -> str:
    return f"k{position}"


def stronger_rule(a: int | None, b: int | None) -> int | None:
    """The reconfirm rule of the stronger evidence: no clock beats any clock, a longer clock beats a shorter one."""
    if a is None or b is None:
        return None
    return max(a, b)


#: The fields of an Item that a fold step can change (besides `hist` and the use counts): what a per-key checkpoint
#: keeps and a re-fold puts back.
FOLD_FIELDS: tuple[str, ...] = (
    "state",
    "why",
    "refuted_by",
    "invalidated_at",
    "confirmations",
    "refutations",
    "confirmed_pos",
    "confirmed_clock",
    "clock_rule",
    "restored_under",
    "version",
    "promoted",
    "before_refute",
)
_fold_fields = operator.attrgetter(*FOLD_FIELDS)
FOLD_WIDTH = len(FOLD_FIELDS)  # values per item in a checkpoint's flat tuple of fold states (refold.checkpoint)


class Item:
    """One item: write-time fields plus the fold state. Slots keep a million of them affordable."""

    __slots__ = (
        # write-time
        "id",
        "pos",
        "kind",
        "body",
        "scope",
        "source",
        "by",
        "evidence",
        "derived_from",
        "supersedes",
        "valid",
        "of",
        "reconfirm_rule",
        "hypothesis_req",
        "verdicts",
        "clock",
        "key",
        "value",
        "subject",
        "guarantee",
        "refusal",
        # fold state
        "state",
        "why",
        "refuted_by",
        "invalidated_at",
        "confirmations",
        "refutations",
        "uses",
        "wrong_uses",
        "confirmed_pos",
        "confirmed_clock",
        "clock_rule",
        "restored_under",
        "version",
        "promoted",
        "hist",
        "before_refute",
        "contribution",
    )

    def __init__(self, pos: int, p: dict[str, Any], key: str, clock: int):
        # The fold's hottest constructor (once per add record): plain assignments, the fold state (`reset`) and
        # the default rule (`default_rule`) inlined (issue 42: a third of a 10^5 fold was making items).
        get = p.get
        self.id = f"k{pos}"  # item_id, inlined
        self.pos = pos
        kind = self.kind = get("kind")
        body = get("body")
        self.value = self.subject = None
        if type(body) is dict:
            intern = sys.intern
            # Short string values are shared between items (memory at 10^6): interned where they sit, no second dict
            # per item. The keys need nothing: the journal's parser (orjson) hands out one string per key name.
            for k, v in body.items():
                if type(v) is str and len(v) <= 40:
                    body[k] = intern(v)
            # Comparison keys: repr of values parsed from canonical JSON (deterministic, cheaper than re-encoding).
            if kind == "fact":
                if "o" in body:
                    self.value = intern(repr(body["o"]))
                if "s" in body:
                    self.subject = intern(repr(body["s"]))
        elif isinstance(body, dict) and kind == "fact":
            self.value = sys.intern(repr(body["o"])) if "o" in body else None
            self.subject = sys.intern(repr(body["s"])) if "s" in body else None
        self.body = body
        self.scope = get("scope")
        source = self.source = get("source")
        self.by = get("by")
        self.evidence = get("evidence")
        derived = get("derived_from")
        self.derived_from = tuple(derived) if derived else ()
        self.supersedes = get("supersedes")
        self.valid = get("valid")
        self.of = get("of")
        rule = self.reconfirm_rule = get("reconfirm_after", "default")
        self.hypothesis_req = bool(get("hypothesis"))
        self.verdicts = get("verdicts") or ()
        self.clock = clock
        self.key = key
        self.guarantee = None
        self.refusal = None  # write-time static refusal reason (bad kind/source, ...), never changes
        self.contribution = 0
        # Uses are counted as use records arrive, never re-folded: whether an item is present is decided by its own
        # add and never changes after it, so the count is reported while the item is present and 0 otherwise.
        self.uses = 0
        self.wrong_uses = 0
        # the fold state, as reset() sets it
        self.state = None
        self.why = ""
        self.refuted_by = None
        self.invalidated_at = None
        self.confirmations = 0
        self.refutations = 0
        self.confirmed_pos = pos
        self.confirmed_clock = clock
        self.clock_rule = _DEFAULT_RULE((kind, source)) if rule == "default" else rule
        self.restored_under = None
        self.version = 1
        self.promoted = None
        self.hist = ()
        self.before_refute = None

    def reset(self) -> None:
        self.state: str | None = None  # an ItemStatus value once its add record is folded; None before
        self.why = ""
        self.refuted_by = None
        self.invalidated_at = None
        self.confirmations = 0
        self.refutations = 0
        self.confirmed_pos = self.pos
        self.confirmed_clock = self.clock
        self.clock_rule = self.default_rule()
        self.restored_under = None
        self.version = 1
        self.promoted = None
        self.hist: tuple = ()  # flat (position, state, ...): no tuple per entry (memory at 10^6), untracked by gc
        self.before_refute = None

    def copy(self) -> Item:
        """A copy whose fold state can change without touching this item (the gates' shadow folds a candidate into
        copies of the items on its key). Write-time fields are shared: they never change."""
        c = Item.__new__(Item)
        for name in Item.__slots__:
            setattr(c, name, getattr(self, name))
        return c

    def default_rule(self) -> int | None:
        if self.reconfirm_rule != "default":
            return self.reconfirm_rule
        return RECONFIRM_DEFAULTS.get((self.kind, self.source))

    def fold_state(self) -> tuple:
        """The fields a fold step can change (besides `hist` and the use counts): what a checkpoint keeps."""
        return _fold_fields(self)

    def set_fold_state(self, s: tuple) -> None:
        """Put back a `fold_state()` (a re-fold restarting from a checkpoint). One unpacking, in FOLD_FIELDS order
        (tests/knowledge/test_items.py checks the two agree): a re-fold restores every live item of a busy key."""
        (
            self.state,
            self.why,
            self.refuted_by,
            self.invalidated_at,
            self.confirmations,
            self.refutations,
            self.confirmed_pos,
            self.confirmed_clock,
            self.clock_rule,
            self.restored_under,
            self.version,
            self.promoted,
            self.before_refute,
        ) = s

    @property
    def present(self) -> bool:
        """Admitted and not retracted: in the store, whatever its status."""
        return self.state not in _ABSENT

    def state_at(self, pos: int) -> str | None:
        """The fold state just before journal position `pos` (for premise checks in a partial re-fold); None
        before its add."""
        st = None
        h = self.hist
        for i in range(0, len(h), 2):  # histories are a handful of entries long
            if h[i] >= pos:
                break
            st = h[i + 1]
        return st

    def expired(self, clock: int) -> bool:
        return self.clock_rule is not None and clock - self.confirmed_clock >= self.clock_rule

    def observable(self) -> list[Any]:
        """Everything the fingerprint covers for this item."""
        return [
            self.id,
            self.kind,
            self.body,
            self.scope,
            self.source,
            self.by,
            self.evidence,
            list(self.derived_from),
            self.supersedes,
            self.valid,
            self.of,
            self.state,
            self.why,
            self.refuted_by,
            self.invalidated_at,
            self.confirmations,
            self.refutations,
            self.uses,
            self.wrong_uses,
            self.guarantee,
            self.confirmed_pos,
            self.confirmed_clock,
            self.clock_rule,
            self.restored_under,
            self.version,
            self.promoted,
        ]

    def digest(self) -> int:
        if self.state in _ABSENT:
            return 0  # absent items are not part of the observable store
        # repr, not JSON: every body, scope and evidence here was parsed from canonical JSON (sorted keys), so
        # repr is deterministic across processes, and three times cheaper on the hot path.
        return int.from_bytes(hashlib.sha256(repr(self.observable()).encode()).digest(), "big")
