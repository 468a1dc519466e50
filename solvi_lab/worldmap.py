"""A map the agent builds as it acts: every edge a claim "(state, action) leads to state", every write journaled.

An agent that works in the same environment again (a site, a tool, a command line, a file tree) finds its
structure anew on every task unless it keeps a map. A :class:`WorldMap` is written by the agent's own calls:

- ``see(state, action, to=None)``: the action is on offer here (``to`` when the environment shows it, as a link does);
- ``arrive(state, action, to)``: the action was taken and led to ``to`` — the claim is confirmed, and every claim of
  the same (state, action) with another destination is refuted, whoever made it;
- ``human(state, action, to, note=...)``: a person's (or, with ``document=True``, a document's) claim — a
  hypothesis like the others until an arrival checks it;
- ``drop(why)``: the world may have changed — confirmed claims become hypotheses until the next arrival re-confirms
  or refutes each one.

Each claim has a status (``hypothesis``, ``confirmed``, ``refuted``), a source (``seen``, ``observed``, ``told``,
``human``: who made it first) and its evidence (how many reports of each kind). Every call is one entry (a record of
kind ``"worldmap"``) of a hash-chained :class:`~solvi_lab.journal.Journal`, and the claims are a fold over it: the
map is a journal owner (``solvi_lab.owner``), written through ``_write`` and folded by the one ``_apply`` that
``WorldMap.from_journal(journal, upto=None)`` uses too. Where the map is kept:

- ``WorldMap()``: its own journal in memory; ``WorldMap(journal=j)``: journal ``j`` (any backend, possibly shared
  with other owners — one map per journal); ``WorldMap.open("map.jsonl")``: a journal file, appended as it goes;
- ``WorldMap("console.map.json")`` (the specification's call, the same as ``WorldMap.open`` of a ``.json`` path):
  the map file. ``save()`` writes the records (and a readable copy of the edges) as JSON; loading checks the chain
  and rebuilds the claims by replaying it — an edge edited in the file changes nothing, a broken chain raises
  :class:`~solvi_lab.errors.CorruptJournal`.

``verify()`` checks the chain and that the map equals its replay; ``rebuild(upto=n)`` (the specification's name for
``from_journal(m.journal, upto=n)``) is the map as it was after the first n entries.

>>> m = WorldMap()
>>> m.see("/", "Billing")
>>> m.see("/billing", "Refunds", to="/billing/refunds")
>>> m.explore("/")                        # nobody has taken "Billing" yet
'Billing'
>>> m.arrive("/", "Billing", "/billing").status
'confirmed'
>>> m.next("/", {"/billing/refunds"})     # over the confirmed edge, then the link that was seen
'Billing'
>>> m.human("/", "Reports", "/audit", note="Anna")
>>> m.arrive("/", "Reports", "/reports").refuted[0].to    # the person was wrong; the arrival says so
'/audit'
>>> bool(m.verify())
True

A state or an action is a ``str``, an ``int``, a finite ``float`` or a (nested) tuple of those; ``save()`` and a
later load keep them exactly (tuples stay tuples), and anything else is refused with
:class:`~solvi_lab.errors.BadInput` when it is reported.

With ``knowledge=`` (a :class:`solvi_lab.knowledge.KnowledgeStore`) every claim with a destination is also a fact
item ``{"s": [state, action], "r": "leads_to", "o": to}`` in scope ``{"map": scope}``: an arrival as source
``"outcome"``, a person's claim as ``"person"``, a document's claim and a link the environment shows as ``"spec"``
(the last two as hypotheses, since nobody has checked them). :meth:`WorldMap.view` is the map those facts give, and
``drop(why)`` also raises a flag on the map's scope, so the store's carried outcomes turn into hints as the map's
confirmed claims turn into hypotheses.

Costs: a report is O(claims of its (state, action)) plus one journal append (a SHA-256 over a short payload);
``next`` and ``explore`` are a best-first search over the known edges, O(E log E); replay is O(entries).
"""

from __future__ import annotations

import heapq
import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from .atomicfile import atomic_write_text
from .errors import BadInput, CorruptJournal
from .journal import GENESIS, Journal, Record, VerifyReport, canonical, register_kind
from .owner import JournalOwner
from .validation import ANY, Opt, op_shapes, public_calls, writing_call

__all__ = [
    "WorldMap",
    "Claim",
    "Arrival",
    "ClaimStatus",
    "ClaimSource",
    "CLAIM_STATUSES",
    "CLAIM_SOURCES",
    "MAP_RECORD_KIND",
    "FORMAT",
    "encode",
    "decode",
]


class ClaimStatus(StrEnum):
    """The status of a map claim (not a knowledge item's status; str-valued, so records keep plain strings).

    >>> ClaimStatus.CONFIRMED == "confirmed", CLAIM_STATUSES
    (True, ('hypothesis', 'confirmed', 'refuted'))
    """

    HYPOTHESIS = "hypothesis"
    CONFIRMED = "confirmed"
    REFUTED = "refuted"


class ClaimSource(StrEnum):
    """Who made a claim: the environment showed it (seen), the agent took it (observed), a document (told), a
    person (human). Not a knowledge item's source: `_STORE_SOURCE` maps one to the other."""

    SEEN = "seen"
    OBSERVED = "observed"
    TOLD = "told"
    HUMAN = "human"


#: Claim statuses, in the order counts() reports them.
CLAIM_STATUSES = tuple(s.value for s in ClaimStatus)
#: Claim sources.
CLAIM_SOURCES = tuple(s.value for s in ClaimSource)
#: Journal record kind of every map entry.
MAP_RECORD_KIND = "worldmap"
_ID = Opt((str, None))  # a knowledge-store item or flag id
_EDGE = {"s": ANY, "a": ANY, "to": ANY}  # states and actions in their tagged JSON form (see encode)
register_kind(
    MAP_RECORD_KIND,
    op_shapes(
        MAP_RECORD_KIND,
        {
            "see": {**_EDGE, "item": _ID},
            "arrive": {**_EDGE, "item": _ID},
            "human": {**_EDGE, "source": str, "note": Opt(str), "item": _ID},
            "drop": {"why": str, "flag": _ID},
            "claim": {**_EDGE, "status": str, "source": str, "items": ANY},
        },
    ),
)
#: The "format" field of a saved map file.
FORMAT = "solvi_lab.worldmap/2"  # /2: the file ends with its head (record count and last hash)
_RECORD_KEYS = {"position", "kind", "payload", "prev", "hash", "t"}  # a saved record has these keys, no others
_FORMAT_WITHOUT_HEAD = "solvi_lab.worldmap/1"  # read, with a warning that a cut of it cannot be noticed
#: The relation of every fact a map writes into a knowledge store.
RELATION = "leads_to"

# Map source -> knowledge-store source, and back (view). "seen" is a link the environment shows: written like a
# document's claim, as an unchecked hypothesis, because the store admits no "environment" source.
_STORE_SOURCE = {"observed": "outcome", "human": "person", "told": "spec", "seen": "spec"}
_ENVIRONMENT = "environment"  # the `by` of a "seen" claim in the store, so view() can tell it from a document

Node = str | int | float | tuple  # a state or an action (tuples of these, nested)


# ---------------------------------------------------------------------------------------------------------------
# states and actions as JSON, exactly
# ---------------------------------------------------------------------------------------------------------------


def encode(value: Any, what: str = "state") -> Any:
    """A state or action in its tagged JSON form: scalars as they are, a tuple as ``{"t": [...]}``.

    The tag keeps a tuple a tuple through JSON (a list would come back as a list); a dict is never a valid state,
    so the tagged form cannot be confused with one.

    >>> encode(("room", 3, (1.5, "x")))
    {'t': ['room', 3, {'t': [1.5, 'x']}]}
    >>> encode(["room", 3])
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: state ['room', 3] is a list; a state or an action is a str, an int, a finite float or a (nested) tuple of those. Pass tuple(...) instead of a list.
    """
    # bool first: it is an int subclass, and True would silently become the state 1 after a reload
    if isinstance(value, bool) or value is None:
        raise BadInput(
            f"{what} {value!r} is a {type(value).__name__}; a state or an action is a str, an int, a finite float "
            "or a (nested) tuple of those. Use a string such as 'yes'/'no' or an int."
        )
    if isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadInput(f"{what} {value!r} is not a finite number; JSON cannot keep it. Use a string instead.")
        return value
    if isinstance(value, tuple):
        return {"t": [encode(v, what) for v in value]}
    hint = {
        "list": "Pass tuple(...) instead of a list.",
        "dict": "Pass a tuple of (key, value) pairs, e.g. tuple(sorted(d.items())).",
    }.get(type(value).__name__, "Convert it to a string or a tuple first.")
    raise BadInput(
        f"{what} {value!r} is a {type(value).__name__}; a state or an action is a str, an int, a finite float "
        f"or a (nested) tuple of those. {hint}"
    )


def decode(value: Any) -> Any:
    """The inverse of :func:`encode`.

    >>> decode({"t": ["room", 3, {"t": [1.5, "x"]}]})
    ('room', 3, (1.5, 'x'))
    """
    if isinstance(value, dict):
        return tuple(decode(v) for v in value["t"])
    return value


def _key(encoded: Any) -> str:
    return canonical(encoded)


# ---------------------------------------------------------------------------------------------------------------
# claims
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class Claim:
    """One claim "(state, action) leads to `to`" (``to`` None: on offer here, destination not yet known).

    status: hypothesis | confirmed | refuted.
    source: who made it first: seen | observed | told | human.
    evidence: reports per kind: seen, observed (arrivals), told, human.
    notes: the notes given with person/document claims.
    since: number of the map entry that made it; changed: of the entry that last changed its status (entries are
        counted among the map's own records: the journal position when the map has a journal of its own).
    dropped: True while it is a hypothesis only because drop() turned a confirmed claim back.
    items: ids of the knowledge-store items written for it (oldest first).

    >>> Claim("/", "Billing", "/billing", "confirmed", "observed").as_dict()["to"]
    '/billing'
    """

    state: Any
    action: Any
    to: Any
    status: str
    source: str
    evidence: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    since: int = 0
    changed: int = 0
    dropped: bool = False
    items: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The claim as plain JSON (states and actions in their tagged form)."""
        return {
            "state": encode(self.state),
            "action": encode(self.action, "action"),
            "to": None if self.to is None else encode(self.to),
            "status": self.status,
            "source": self.source,
            "evidence": dict(sorted(self.evidence.items())),
            "notes": list(self.notes),
            "since": self.since,
            "changed": self.changed,
            "dropped": self.dropped,
            "items": list(self.items),
        }

    def _copy(self) -> Claim:
        return Claim(
            self.state,
            self.action,
            self.to,
            self.status,
            self.source,
            dict(self.evidence),
            list(self.notes),
            self.since,
            self.changed,
            self.dropped,
            list(self.items),
        )


@dataclass(frozen=True)
class Arrival:
    """What an arrival did to the map.

    claim: the claim of the destination reached (now confirmed).
    was: its status before (None when nobody had claimed that destination).
    refuted: the claims of the same (state, action) with another destination that this arrival refuted.
    refuted_was: the status each refuted claim had just before (so "a confirmed claim was contradicted" is
        ``"confirmed" in refuted_was``; a dropped claim was a hypothesis).
    """

    claim: Claim
    was: str | None
    refuted: tuple[Claim, ...]
    refuted_was: tuple[str, ...]

    @property
    def status(self) -> str:
        return self.claim.status

    @property
    def contradicted(self) -> bool:
        """True when the arrival refuted a claim that was confirmed, or confirmed before a drop."""
        return any(w == "confirmed" or c.dropped for w, c in zip(self.refuted_was, self.refuted))


# ---------------------------------------------------------------------------------------------------------------
# the map
# ---------------------------------------------------------------------------------------------------------------


@public_calls
class WorldMap(JournalOwner):
    """A map of claims "(state, action) leads to state", folded from its hash-chained journal.

    path: the specification's map file (positional, an alias of ``WorldMap.open(path)`` for a ``.json`` path);
        loaded (chain checked, claims replayed) when it exists, written by :meth:`save`.
    journal: the journal the map writes to (None: a new in-memory one; a journal holding a map already is refused —
        continue it with :meth:`from_journal`). Not together with `path`.
    knowledge: an optional knowledge store; every claim with a destination is then also a "leads_to" fact item.
    scope: the map's name in the store (facts get scope ``{"map": scope}``); default "default". A map file records
        it; a journal does not (pass it again to ``open``/``from_journal``).

    >>> m = WorldMap()
    >>> m.arrive(("room", 1), "east", ("room", 2)).was is None
    True
    >>> m.next(("room", 1), {("room", 2)})
    'east'
    >>> len(m.journal), m.counts()
    (1, {'hypothesis': 0, 'confirmed': 1, 'refuted': 0})
    """

    KINDS = (MAP_RECORD_KIND,)

    def __init__(
        self,
        path: str | os.PathLike | None = None,
        *,
        journal: Journal | None = None,
        knowledge: Any = None,
        scope: str | None = None,
    ):
        self._configure(knowledge, scope)
        if path is not None and journal is not None:
            raise BadInput(
                "pass a map file path or journal=, not both: a map lives either in its own file (saved with "
                "save()) or in a journal it writes as it goes."
            )
        if path is not None:
            if not isinstance(path, (str, os.PathLike)):
                raise BadInput(
                    f"WorldMap's positional argument is a map file path, got {type(path).__name__}; pass a "
                    "journal as WorldMap(journal=...)."
                )
            self._open_file(Path(path), scope)
            return
        journal = self._attach(journal)  # None: a new in-memory journal, no time stamps
        if any(True for _ in journal.records(kind=MAP_RECORD_KIND)):
            raise BadInput(
                "this journal already holds a world map (one map per journal); continue it with "
                "WorldMap.from_journal(journal) or WorldMap.open(path), or give this map a journal of its own."
            )

    def _configure(self, knowledge: Any, scope: str | None) -> None:
        if scope is not None and not isinstance(scope, str):
            raise BadInput(f"scope must be a string naming the map (e.g. 'console'), got {type(scope).__name__}.")
        if knowledge is not None and not (hasattr(knowledge, "add") and hasattr(knowledge, "flag")):
            raise BadInput(
                f"knowledge of type {type(knowledge).__name__} has no add(...) and flag(...); pass a KnowledgeStore or None."
            )
        self.path: Path | None = None
        self.knowledge = knowledge
        self.scope = "default" if scope is None else scope
        self._reset()

    def _open_file(self, path: Path, scope: str | None) -> None:
        """The specification's map file: loaded (chain checked, claims replayed) when it exists; save() writes it."""
        self.path = path
        self.journal = Journal()  # no time stamps: the same calls give the same chain, byte for byte
        loaded_scope = self._load(path) if path.exists() else None
        if scope is not None and loaded_scope is not None and scope != loaded_scope:
            raise BadInput(
                f"{path} holds the map {loaded_scope!r}, not {scope!r}; pass scope={loaded_scope!r} or another path."
            )
        if scope is None and loaded_scope is not None:
            self.scope = loaded_scope

    # -- the journal-owner protocol (solvi_lab.owner) -----------------------------------------------------------

    @classmethod
    def _empty(cls, *, knowledge: Any = None, scope: str | None = None) -> WorldMap:
        m = cls.__new__(cls)
        m._configure(knowledge, scope)
        return m

    @classmethod
    def open(
        cls,
        path: str | os.PathLike,
        *,
        journal_options: dict[str, Any] | None = None,
        knowledge: Any = None,
        scope: str | None = None,
    ) -> WorldMap:
        """Open the map kept at `path` and continue it (or start one there).

        A ``.json`` path is the specification's map file — the same as ``WorldMap(path)``: the records as one JSON
        document, loaded when it exists and written by :meth:`save`. Any other path is a journal file (JSONL, or
        SQLite for ``.sqlite``/``.db``) that every call appends to as it goes; `journal_options` go to
        ``Journal(path, ...)``. The scope is not in the journal's records: pass the same `scope` each time.

        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "map.jsonl"
        >>> with WorldMap.open(p) as m:
        ...     _ = m.arrive("a", "x", "b")
        >>> with WorldMap.open(p) as again:
        ...     again.edges()
        [('a', 'x', 'b', 'confirmed')]
        """
        if str(path).endswith(".json"):
            if journal_options:
                raise BadInput(
                    "journal_options apply to a journal file; a .json map file keeps its records in memory "
                    "and is written by save(). Use a .jsonl or .sqlite path for a journal file."
                )
            return cls(path, knowledge=knowledge, scope=scope)
        return super().open(path, journal_options=journal_options, knowledge=knowledge, scope=scope)

    def _apply(self, record: Record) -> None:
        """Fold one map entry (live, through `_write`, and on every rebuild). Claims note the entry's number."""
        self._fold_entry(record.payload, self._folded)

    def state(self) -> dict[str, Any]:
        """Everything that decides the map's behaviour, as plain JSON: its scope, the drops and every claim (in the
        order they were made, with their entry numbers and store items).

        >>> m = WorldMap(); _ = m.arrive("a", "x", "b")
        >>> WorldMap.from_journal(m.journal).state() == m.state()
        True
        """
        return {"scope": self.scope, "drops": self._drops, "claims": [c.as_dict() for c in self.claims()]}

    def _reset(self) -> None:
        # state key -> action key -> destination key (None: not yet known) -> Claim. Insertion order is replay
        # order, so searches break ties the same way live and after a reload.
        self._edges: dict[str, dict[str, dict[str | None, Claim]]] = {}
        self._drops = 0

    # -- reporting ---------------------------------------------------------------------------------------------

    @writing_call
    def see(self, state: Node, action: Node, to: Node | None = None) -> None:
        """The action is on offer in this state (``to``: where it leads, when the environment shows it).

        A new claim is a hypothesis with source "seen"; a claim already held gains one "seen" report.
        """
        p = self._payload("see", state, action, to)
        if to is not None and self.knowledge is not None and self._find(p, to_key=_key(p["to"])) is None:
            p["item"] = self._store_add(p, "seen")
        self._write(MAP_RECORD_KIND, p)

    @writing_call
    def arrive(self, state: Node, action: Node, to: Node) -> Arrival:
        """The action was taken in this state and led to ``to``: that claim is confirmed, the others refuted.

        The store (when given) gets an "outcome" fact when the claim was not confirmed yet, so a long walk over a
        known map does not grow the store by one item per step.
        """
        if to is None:
            raise BadInput(
                "arrive: `to` is the state the action led to; an arrival always has one. Use see() for "
                "an action on offer whose destination is not known."
            )
        p = self._payload("arrive", state, action, to)
        before = self._find(p, to_key=_key(p["to"]))
        was = None if before is None else before.status  # read now: the fold below changes the claim in place
        others = self._live_others(p)
        if self.knowledge is not None and (was != "confirmed" or others):
            p["item"] = self._store_add(p, "observed")
        bucket = self._edges.get(_key(p["s"]), {}).get(_key(p["a"]), {})
        prior = {k: (c.status, c.dropped) for k, c in bucket.items()}
        self._write(MAP_RECORD_KIND, p)
        bucket = self._edges[_key(p["s"])][_key(p["a"])]
        claim = bucket[_key(p["to"])]
        refuted = tuple(
            c for k, c in bucket.items() if k in prior and c.status == "refuted" and prior[k][0] != "refuted"
        )
        was_list = tuple(prior[_key(encode(c.to))][0] for c in refuted)
        # dropped flags are cleared by refutation; report them as they were just before
        shown = tuple(_with_dropped(c, prior[_key(encode(c.to))][1]) for c in refuted)
        return Arrival(claim._copy(), was, shown, was_list)

    @writing_call
    def human(self, state: Node, action: Node, to: Node, note: str | None = None, document: bool = False) -> None:
        """A person's claim (or, with ``document=True``, a document's): a hypothesis until an arrival checks it.

        >>> m = WorldMap(); m.human("/", "Reports", "/audit", note="Anna")
        >>> c = m.claims("/", "Reports")[0]; (c.status, c.source, c.notes)
        ('hypothesis', 'human', ['Anna'])
        """
        if to is None:
            raise BadInput("human: `to` is where the person or document says the action leads; it is required.")
        if note is not None and not isinstance(note, str):
            raise BadInput(
                f"human: note must be a string (who said it, where it is written), got {type(note).__name__}."
            )
        p = self._payload("human", state, action, to)
        p["source"] = "told" if document else "human"
        if note is not None:
            p["note"] = note
        if self.knowledge is not None:
            p["item"] = self._store_add(p, p["source"], note=note)
        self._write(MAP_RECORD_KIND, p)

    @writing_call
    def drop(self, why: str) -> int:
        """The world may have changed: every confirmed claim becomes a hypothesis until an arrival checks it.

        Returns how many claims were dropped. With a store, also raises a flag on the map's scope.

        >>> m = WorldMap(); _ = m.arrive("a", "go", "b")
        >>> m.drop("the layout changed"), m.counts()["hypothesis"]
        (1, 1)
        """
        if not isinstance(why, str) or not why.strip():
            raise BadInput(
                "drop: say why the map may be wrong (why='a carried claim was contradicted'); it is journaled."
            )
        n = self.counts()["confirmed"]
        p: dict[str, Any] = {"op": "drop", "why": why}
        if self.knowledge is not None:
            p["flag"] = self.knowledge.flag(scope=self.store_scope, why=why, by="worldmap")
        self._write(MAP_RECORD_KIND, p)
        return n

    # -- asking ------------------------------------------------------------------------------------------------

    def next(self, state: Node, targets: Iterable[Node], confirmed_only: bool = False) -> Any:
        """The action towards the nearest target over what is known, or None (no known way, or already there).

        Paths run over confirmed and hypothesis edges (confirmed only with ``confirmed_only=True``): the
        shortest, and among the shortest the one with the fewest hypotheses; ties go to the claim made first.

        >>> m = WorldMap(); _ = m.arrive("a", "x", "b"); m.human("a", "y", "b")
        >>> m.next("a", {"b"}), m.next("b", {"a"})
        ('x', None)
        """
        route = self.route(state, targets, confirmed_only=confirmed_only)
        return None if not route else route[0].action

    def route(self, state: Node, targets: Iterable[Node], confirmed_only: bool = False) -> list[Claim]:
        """The claims along the path :meth:`next` follows (empty when there is none, or at a target)."""
        start = _key(encode(state))
        goal = {_key(encode(t)) for t in _as_targets(targets)}
        if start in goal or not goal:
            return []
        allowed = ("confirmed",) if confirmed_only else ("confirmed", "hypothesis")
        # best-first on (length, hypotheses, tie counter): lexicographic costs add monotonically, so the first
        # time a state is popped its path is the best one
        best: dict[str, tuple[int, int]] = {start: (0, 0)}
        back: dict[str, tuple[str, Claim]] = {}
        heap: list[tuple[int, int, int, str]] = [(0, 0, 0, start)]
        tie = 0
        done: set[str] = set()
        while heap:
            length, hyp, _, here = heapq.heappop(heap)
            if here in done:
                continue
            done.add(here)
            if here in goal:
                path = []
                while here != start:
                    here, c = back[here]
                    path.append(c)
                return [c._copy() for c in reversed(path)]
            for bucket in self._edges.get(here, {}).values():
                for tkey, c in bucket.items():
                    if tkey is None or c.status not in allowed or tkey in done:
                        continue
                    cost = (length + 1, hyp + (c.status != "confirmed"))
                    if tkey not in best or cost < best[tkey]:
                        best[tkey] = cost
                        back[tkey] = (here, c)
                        tie += 1
                        heapq.heappush(heap, (cost[0], cost[1], tie, tkey))
        return []

    def explore(self, state: Node) -> Any:
        """The action towards the nearest claim nobody has checked (a hypothesis), or None when none is reachable.

        The walk there runs over confirmed edges; at the state that holds the claim, the claim's own action.
        """
        start = _key(encode(state))
        frontier = [start]
        first: dict[str, Any] = {start: None}  # state key -> first action of the path to it
        while frontier:
            nxt = []
            for here in frontier:
                for bucket in self._edges.get(here, {}).values():
                    for c in bucket.values():
                        if c.status == "hypothesis":
                            return c.action if first[here] is None else first[here]
                for bucket in self._edges.get(here, {}).values():
                    for tkey, c in bucket.items():
                        if tkey is not None and c.status == "confirmed" and tkey not in first:
                            first[tkey] = c.action if first[here] is None else first[here]
                            nxt.append(tkey)
            frontier = nxt
        return None

    def claims(self, state: Node | None = None, action: Node | None = None) -> list[Claim]:
        """Copies of the claims (all, of one state, or of one state and action), in the order they were made."""
        out = []
        skeys = list(self._edges) if state is None else [_key(encode(state))]
        for sk in skeys:
            by_action = self._edges.get(sk, {})
            akeys = list(by_action) if action is None else [_key(encode(action, "action"))]
            for ak in akeys:
                out.extend(c._copy() for c in by_action.get(ak, {}).values())
        return out

    def edges(self) -> list[tuple[Any, Any, Any, str]]:
        """Every claim with a destination as (state, action, to, status), sorted by their JSON form.

        Two maps that say the same thing about the world have equal edges (whatever the sources and evidence).
        """
        rows = [(c.state, c.action, c.to, c.status) for c in self.claims() if c.to is not None]
        return sorted(rows, key=lambda r: canonical([encode(r[0]), encode(r[1], "action"), encode(r[2]), r[3]]))

    def counts(self) -> dict[str, int]:
        """How many claims hold each status."""
        out = dict.fromkeys(CLAIM_STATUSES, 0)
        for by_action in self._edges.values():
            for bucket in by_action.values():
                for c in bucket.values():
                    out[c.status] += 1
        return out

    def snapshot(self, state: Node, targets: Iterable[Node] = ()) -> dict[str, Any]:
        """The part of the map a decision needs here, as plain JSON (a given fact: it goes into the trace).

        >>> m = WorldMap(); _ = m.arrive("a", "x", "b")
        >>> s = m.snapshot("a", {"b"}); s["next"], s["route"][0]["status"], s["position"]
        ('x', 'confirmed', 1)
        """
        targets = _as_targets(targets)
        route = self.route(state, targets)
        nxt = self.explore(state)
        return {
            "state": encode(state),
            "targets": sorted((encode(t) for t in targets), key=canonical),
            "next": None if not route else encode(route[0].action, "action"),
            "route": [{"action": encode(c.action, "action"), "to": encode(c.to), "status": c.status} for c in route],
            "explore": None if nxt is None else encode(nxt, "action"),
            "here": [
                {
                    "action": encode(c.action, "action"),
                    "to": None if c.to is None else encode(c.to),
                    "status": c.status,
                    "source": c.source,
                }
                for c in self.claims(state)
            ],
            "counts": self.counts(),
            "position": self._position(),
            "head": self._head(),
        }

    def _position(self) -> int:
        """The journal position this map stands at (a view of the past stands at its `upto`)."""
        return self.journal.position if self._upto is None else self._upto

    def _head(self) -> str:
        n = self._position()
        return self.journal.last_hash if n == self.journal.position else (self.journal[n - 1].hash if n else GENESIS)

    @property
    def store_scope(self) -> dict[str, str]:
        """The scope of this map's facts in the knowledge store."""
        return {"map": self.scope}

    # -- the journal: save, load, verify, rebuild ----------------------------------------------------------------

    def save(self, path: str | os.PathLike | None = None) -> Path:
        """Write the map file (the journal's records, and the edges as a readable copy load ignores).

        A map whose journal holds other owners' records (a shared journal) is kept by that journal: save() refuses.
        """
        target = Path(path) if path is not None else self.path
        if target is None:
            raise BadInput("save: this map has no path; pass save('map.json') or create it as WorldMap('map.json').")
        if self._folded != self.journal.position or self._upto is not None:
            raise BadInput(
                "save: this map's journal holds other records too (or the map is a view of the past); a map file "
                "holds one map's records alone. The journal is what keeps this map: open it with WorldMap.open(path)."
            )
        doc = {
            "format": FORMAT,
            "scope": self.scope,
            "records": [r.as_dict() for r in self.journal],
            # for people reading the file; load() rebuilds the claims from the records, never from here
            "edges": [c.as_dict() for c in self.claims()],
            # the head, written last: a file that lost records (cut, or edited to drop the last ones) disagrees
            "head": {"count": self.journal.position, "hash": self.journal.last_hash},
        }
        atomic_write_text(target, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
        return target

    def _load(self, path: Path) -> str | None:
        """Load a map file: any bad file — unreadable bytes, not JSON, too deep, not a map, a broken chain, a head
        that disagrees with the records — is a CorruptJournal, and nothing is folded from a file that fails."""
        if path.is_dir():
            raise BadInput(f"{path} is a directory; a map file path names a .json file such as {path / 'map.json'}.")
        try:
            text = path.read_bytes().decode("utf-8")
            doc = json.loads(text)
        except UnicodeDecodeError as e:
            raise CorruptJournal(
                f"{path}: not UTF-8 text (a bad byte at offset {e.start}); restore the map file from a backup."
            ) from None
        except (ValueError, RecursionError) as e:  # JSONDecodeError, an int over Python's digit limit, nesting
            raise CorruptJournal(
                f"{path}: not valid JSON ({type(e).__name__}: {str(e)[:120]}); restore the map file from a backup."
            ) from None
        except OSError as e:
            raise CorruptJournal(f"{path}: could not be read ({type(e).__name__}: {e.strerror}).") from None
        fmt = doc.get("format") if isinstance(doc, dict) else None
        if fmt not in (FORMAT, _FORMAT_WITHOUT_HEAD) or not isinstance(doc.get("records"), list):
            raise CorruptJournal(
                f"{path}: not a world map file (format {FORMAT!r} with a list of records expected); "
                "pass the path of a file written by WorldMap.save()."
            )
        head = doc.get("head")
        if fmt == FORMAT:
            if not (
                isinstance(head, dict)
                and type(head.get("count")) is int
                and isinstance(head.get("hash"), str)
                and len(head) == 2
            ):
                raise CorruptJournal(
                    f"{path}: the map file's head (record count and last hash) is missing or malformed, so a cut "
                    "could not be noticed; restore the file from a backup."
                )
            if head["count"] != len(doc["records"]):
                raise CorruptJournal(
                    f"{path}: holds {len(doc['records'])} records, but its head says {head['count']}: records "
                    "were cut or added. Restore the file from a backup."
                )
        else:
            import warnings

            warnings.warn(
                f"{path} is a {_FORMAT_WITHOUT_HEAD} map file, written without a head: a cut of its last records "
                "cannot be noticed. save() rewrites it with one.",
                stacklevel=4,
            )
        for i, rec in enumerate(doc["records"]):
            # re-append every record to a fresh chain: the recomputed hash must be the stored one, so an edited,
            # inserted, deleted or reordered entry cannot pass
            if (
                not isinstance(rec, dict)
                or rec.keys() != _RECORD_KEYS
                or rec.get("position") != i
                or rec.get("kind") != MAP_RECORD_KIND
            ):
                raise CorruptJournal(
                    f"{path}: record {i} is not world map entry number {i}; an entry was edited, inserted, "
                    "deleted or reordered. Restore the file from a backup."
                )
            try:
                got = self.journal.append(MAP_RECORD_KIND, rec.get("payload"))
            except (BadInput, TypeError, ValueError, RecursionError) as e:
                raise CorruptJournal(
                    f"{path}: record {i} is not a valid map entry ({e}); restore from a backup."
                ) from None
            if got.prev != rec.get("prev") or got.hash != rec.get("hash") or rec.get("t") is not None:
                raise CorruptJournal(
                    f"{path}: record {i} fails the hash chain (it, or an entry before it, was edited after it "
                    "was written). Restore the file from a backup; rebuild(upto=...) of a good copy gives the "
                    "map at any earlier entry."
                )
            try:
                self._apply(got)
                self._folded += 1
            except Exception as e:  # any entry the fold cannot take is a bad file, whatever the fold raised
                raise CorruptJournal(
                    f"{path}: record {i} is not a valid map entry ({type(e).__name__}: {str(e)[:120]}); restore "
                    "from a backup."
                ) from None
        if fmt == FORMAT and self.journal.last_hash != head["hash"]:
            raise CorruptJournal(
                f"{path}: its records end in {self.journal.last_hash[:12]}…, but its head says {head['hash'][:12]}…: "
                "the last records were cut or rewritten. Restore the file from a backup."
            )
        scope = doc.get("scope")
        return scope if isinstance(scope, str) else None

    def verify(self) -> VerifyReport:
        """Check the chain, then that the claims equal a replay of the journal. Truthy when both hold."""
        chain = self.journal.verify()
        if not chain:
            return chain
        replay = self.rebuild()
        if self.state() != replay.state():
            return VerifyReport(
                False,
                chain.records,
                "the claims differ from a replay of the journal: the map was "
                "changed outside its journal. Reload it from its file or rebuild().",
            )
        return chain

    def rebuild(self, upto: int | None = None) -> WorldMap:
        """The map as it was after the first ``upto`` journal entries (all of them by default), by replay.

        The specification's name for ``WorldMap.from_journal(m.journal, upto)``: `upto` is a journal position (the
        number of entries when the map has its own journal). The result is a read-only view of the past with no path
        and no store (writes are refused); item ids stay in its claims.

        >>> m = WorldMap(); _ = m.arrive("a", "x", "b"); _ = m.drop("moved")
        >>> m.rebuild(upto=1).counts()["confirmed"], m.counts()["confirmed"]
        (1, 0)
        """
        n = self._position()  # a view of the past rebuilds within its own past
        if upto is None:
            upto = n
        if isinstance(upto, bool) or not isinstance(upto, int) or not 0 <= upto <= n:
            raise BadInput(f"rebuild: upto must be an int between 0 and {n} (the number of entries), got {upto!r}.")
        return type(self).from_journal(self.journal, upto, scope=self.scope)

    # -- the store ---------------------------------------------------------------------------------------------

    def _store_add(self, p: dict[str, Any], source: str, note: str | None = None) -> str:
        body = {"s": [p["s"], p["a"]], "r": RELATION, "o": p["to"]}
        store_source = _STORE_SOURCE[source]
        by = {"seen": _ENVIRONMENT, "observed": "worldmap", "told": note or "document", "human": note or "person"}[
            source
        ]
        return self.knowledge.add(
            "fact",
            body,
            source=store_source,
            by=by,
            scope=self.store_scope,
            evidence={"worldmap": self.scope, "entry": len(self.journal), "report": source},
            hypothesis=source != "observed",  # only an arrival is evidence that the edge exists
        )

    @staticmethod
    def view(store: Any, scope: str = "default") -> WorldMap:
        """The map the store's "leads_to" facts of ``{"map": scope}`` give.

        An outcome fact that is active and not stale is a confirmed claim; a refuted fact (nothing live beside it
        for the same edge) is refuted; anything else live (a hypothesis, a dispute, an outcome under a drift flag)
        is a hypothesis. Retracted and expired items are not claims.
        """
        out = WorldMap(scope=scope)
        edges: dict[tuple[str, str], dict[str, Any]] = {}
        for it in store.query(kind="fact", r=RELATION, scope={"map": scope}):
            body = it["body"]
            s, a = body["s"]
            k = (_key(s), _key(a), _key(body["o"]))
            status = it["status"]
            if status in ("retracted", "expired"):
                continue
            if status == "refuted":
                rank = 0
            elif status == "active" and it["source"] == "outcome" and not store.stale(it["id"]):
                rank = 2
            else:
                rank = 1
            src = {"outcome": "observed", "person": "human", "spec": "told", "verified": "told"}[it["source"]]
            if it["source"] == "spec" and it.get("who") == _ENVIRONMENT:
                src = "seen"
            e = edges.setdefault(k, {"s": s, "a": a, "to": body["o"], "rank": rank, "source": src, "items": []})
            e["rank"] = max(e["rank"], rank)
            e["items"].append(it["id"])
        out._claim_all(
            {
                "op": "claim",
                "s": e["s"],
                "a": e["a"],
                "to": e["to"],
                "status": ("refuted", "hypothesis", "confirmed")[e["rank"]],
                "source": e["source"],
                "items": e["items"],
            }
            for e in edges.values()
        )
        return out

    def _claim_all(self, payloads: Iterable[dict[str, Any]]) -> None:
        """Write claims imported as they are (the view of a store): one "claim" entry each."""
        for p in payloads:
            self._write(MAP_RECORD_KIND, p)

    # -- the fold ----------------------------------------------------------------------------------------------

    def _payload(self, op: str, state: Any, action: Any, to: Any) -> dict[str, Any]:
        return {"op": op, "s": encode(state), "a": encode(action, "action"), "to": None if to is None else encode(to)}

    def _find(self, p: dict[str, Any], to_key: str | None) -> Claim | None:
        return self._edges.get(_key(p["s"]), {}).get(_key(p["a"]), {}).get(to_key)

    def _live_others(self, p: dict[str, Any]) -> bool:
        tk = _key(p["to"])
        bucket = self._edges.get(_key(p["s"]), {}).get(_key(p["a"]), {})
        return any(k is not None and k != tk and c.status != "refuted" for k, c in bucket.items())

    def _fold_entry(self, p: dict[str, Any], pos: int) -> None:
        """Fold entry number `pos` into the claims. Everything the map holds comes through here, live and on replay."""
        op = p["op"]
        if op == "drop":
            self._drops += 1
            for by_action in self._edges.values():
                for bucket in by_action.values():
                    for c in bucket.values():
                        if c.status == ClaimStatus.CONFIRMED:
                            c.status, c.changed, c.dropped = ClaimStatus.HYPOTHESIS.value, pos, True
            return
        s, a, to = p["s"], p["a"], p["to"]
        bucket = self._edges.setdefault(_key(s), {}).setdefault(_key(a), {})
        tk = None if to is None else _key(to)
        item = p.get("item")
        if op == "claim":  # a claim imported as it is (view of a store)
            bucket[tk] = Claim(
                decode(s),
                decode(a),
                decode(to),
                p["status"],
                p["source"],
                {p["source"]: 1},
                [],
                pos,
                pos,
                False,
                list(p.get("items", [])),
            )
            return
        if op in ("see", "human"):
            source = "seen" if op == "see" else p["source"]
            if tk is None:
                if bucket:  # the action is already known here, with or without a destination
                    c = bucket.get(None) or next(iter(bucket.values()))
                    c.evidence["seen"] = c.evidence.get("seen", 0) + 1
                    return
                bucket[None] = Claim(decode(s), decode(a), None, "hypothesis", "seen", {"seen": 1}, [], pos, pos)
                return
            c = bucket.get(tk)
            if c is None:
                bucket.pop(None, None)  # "on offer, destination unknown" is superseded by a claimed destination
                c = bucket[tk] = Claim(decode(s), decode(a), decode(to), "hypothesis", source, {}, [], pos, pos)
            c.evidence[source] = c.evidence.get(source, 0) + 1
            if p.get("note") is not None:
                c.notes.append(p["note"])
            if item is not None:
                c.items.append(item)
            return
        if op == "arrive":
            bucket.pop(None, None)
            for k, other in bucket.items():
                if k != tk and other.status != "refuted":
                    other.status, other.changed, other.dropped = "refuted", pos, False
            c = bucket.get(tk)
            if c is None:
                c = bucket[tk] = Claim(decode(s), decode(a), decode(to), "confirmed", "observed", {}, [], pos, pos)
            elif c.status != "confirmed":
                c.status, c.changed, c.dropped = "confirmed", pos, False
            c.evidence["observed"] = c.evidence.get("observed", 0) + 1
            if item is not None:
                c.items.append(item)
            return
        raise ValueError(f"unknown map entry op {op!r}")

    def __len__(self) -> int:
        """The number of claims (every status)."""
        return sum(self.counts().values())

    def __repr__(self) -> str:
        c = self.counts()
        return (
            f"WorldMap(scope={self.scope!r}, {c['confirmed']} confirmed, {c['hypothesis']} hypotheses, "
            f"{c['refuted']} refuted, {len(self.journal)} entries)"
        )

    def _repr_html_(self) -> str:
        """A small card for Jupyter: claims by status, journal entries, and the first claims."""
        from .display import MAX_LIST, card, counts_text

        c = self.counts()
        claims = self.claims()
        listed = [
            f"{x.status}: {short_node(x.state)} —{short_node(x.action)}→ {short_node(x.to) if x.to is not None else '?'}"
            f" ({x.source})"
            for x in claims[:MAX_LIST]
        ]
        rows = [("claims", f"{sum(c.values()):,}: {counts_text(c)}"), ("journal entries", f"{len(self.journal):,}")]
        return card(f"WorldMap {self.scope!r}", rows, listed=listed, more=len(claims) - len(listed))


def short_node(node: Any) -> str:
    """A state or action as a short text for a card."""
    from .display import short

    return short(node, 30)


def _with_dropped(c: Claim, dropped: bool) -> Claim:
    out = c._copy()
    out.dropped = dropped
    return out


def _as_targets(targets: Iterable[Node]) -> list[Any]:
    if isinstance(targets, (str, bytes)) or not isinstance(targets, Iterable):
        raise BadInput(f"targets must be a collection of states (e.g. {{'/billing'}}), got {targets!r}.")
    return list(targets)
