"""An agent's memory as an input: episodes.

A decision replays because it depends on its recorded input only. An agent's state between steps — what it tried,
where it has been — is kept here as plain data and given to each decision:

- `Episode` notes events and explicit progress; `snapshot()` is the plain JSON a decision is given.
- `EpisodeView(snapshot)` reads a snapshot: counts since the last progress and in total, the facts board, and the
  detectors `repeated`, `ping_pong`, `stalled`, `revisits` and `looping` (stalled AND repeated-or-ping-pong: a single
  detector also fires on honest repetition).
- `Chooser` is the step built from these: the model proposes, a validator turns down what was already done without
  progress (and what a check refuses), the rule answers otherwise; every step is a recorded decision that replays
  (`rerun()`, or `replay()`: the specification's name).
- `LongMemory` keeps outcomes across episodes, decayed per episode; `scores(context)` is a given fact.

Event keys, contexts and memory keys are any JSON value, kept and shown by one rule (the specification's: "a key
that is not a string — a tuple, a dict — is kept as its JSON text, like an event's key"): a string as it is,
anything else as its canonical JSON text. So (1, 2) and [1, 2] are the same key '[1,2]', and the number 1 and the
string "1" are the same key "1": use one or the other consistently.

>>> ep = Episode("ticket 4411")
>>> ep.note("act", "restart the router"); ep.note("act", "restart the router")
>>> EpisodeView(ep.snapshot()).count("restart the router")
2
>>> ep.progress("the customer confirmed")
>>> EpisodeView(ep.snapshot()).count("restart the router"), EpisodeView(ep.snapshot()).count("restart the router", since_progress=False)
(0, 2)
"""

from __future__ import annotations

import copy
import json
import math
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .decisions import DecisionLog
from .errors import BadInput
from .journal import Journal, canonical, json_value
from .validation import need_int

__all__ = ["Episode", "EpisodeView", "Chooser", "Choice", "ChooserRerun", "LongMemory"]

PROGRESS, FACT = "progress", "fact"  # event kinds with a meaning of their own


def _json(what: str, value: Any) -> tuple[str, Any]:
    return json_value(what, value)


def key_text(what: str, value: Any) -> str:
    """A key as it is kept and shown: a string as it is, anything else as its canonical JSON text.

    >>> key_text("a key", "restart the router"), key_text("a key", ("room", 3)), key_text("a key", 1)
    ('restart the router', '["room",3]', '1')
    """
    text, parsed = json_value(what, value)
    return parsed if isinstance(parsed, str) else text


def _kind(kind: Any) -> str:
    if not isinstance(kind, str) or not kind:
        raise BadInput(f"an event kind is a non-empty string such as 'act' or 'visit', got {kind!r}.")
    return kind


Kinds = str | list[str] | tuple[str, ...] | None


def _kinds(kind: Any) -> frozenset[str] | _AllActs:
    """The event kinds a reader counts: one kind, a list of kinds, or None (every event but progress and facts)."""
    if kind is None:
        return _ALL_ACTS
    if isinstance(kind, str):
        return frozenset((_kind(kind),))
    if isinstance(kind, (list, tuple, set, frozenset)) and kind:
        return frozenset(_kind(k) for k in kind)
    raise BadInput(
        f"kind= names the events to count: a kind such as 'act', a list of kinds, or None for every event but "
        f"progress and facts; got {kind!r}."
    )


class _AllActs:
    """Every event kind but progress and facts (what kind=None counts)."""

    def __contains__(self, kind: object) -> bool:
        return kind not in (PROGRESS, FACT)


_ALL_ACTS = _AllActs()


class Episode:
    """What one episode did, as a list of events; `progress(what)` marks a sub-goal reached.

    Say what progress is — a sub-goal reached — not "something changed": a wrong action changes the page too.

    >>> ep = Episode("t1"); ep.note("act", ["go", 3]); ep.fact("door", "open")
    >>> ep.snapshot()["events"]
    [{'kind': 'act', 'key': ['go', 3], 'detail': None}, {'kind': 'fact', 'key': 'door', 'detail': 'open'}]
    """

    def __init__(self, name: str):
        if not isinstance(name, str) or not name:
            raise BadInput(f"an episode needs a non-empty string name (e.g. 'ticket 4411'), got {name!r}.")
        self.name = name
        self.events: list[dict[str, Any]] = []

    def note(self, kind: str, key: Any, detail: Any = None) -> None:
        """An event: `kind` ("act", "visit", ...), `key` (what; any JSON) and an optional JSON `detail`."""
        _, key = _json("an event's key", key)
        _, detail = _json("an event's detail", detail)
        self.events.append({"kind": _kind(kind), "key": key, "detail": detail})

    def fact(self, key: Any, value: Any) -> None:
        """Put a value on the episode's facts board (the latest value of a key wins)."""
        self.note(FACT, key, value)

    def progress(self, what: str) -> None:
        """Explicit progress (a sub-goal reached): the counts "since progress" start again."""
        if not isinstance(what, str) or not what:
            raise BadInput(f"progress needs a non-empty string saying what was reached, got {what!r}.")
        self.note(PROGRESS, what)

    def snapshot(self) -> dict[str, Any]:
        """The episode as plain JSON (a copy): what a decision is given."""
        return {"episode": self.name, "events": copy.deepcopy(self.events)}

    def __repr__(self) -> str:
        """One line: its name and its events by kind.

        >>> ep = Episode("t1"); ep.note("act", "go"); ep.fact("door", "open"); ep
        <Episode 't1' · 2 events: act 1, fact 1>
        """
        from .display import counts_text

        kinds: dict[str, int] = {}
        for e in self.events:
            kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
        return f"<Episode {self.name!r} · {len(self.events)} events: {counts_text(kinds)}>"

    def _repr_html_(self) -> str:
        """A small card for Jupyter: events by kind, the facts board, and the last events."""
        from .display import MAX_LIST, card, counts_text, short

        kinds: dict[str, int] = {}
        board: dict[str, Any] = {}
        for e in self.events:
            kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
            if e["kind"] == FACT:
                board[short(e["key"], 30)] = e["detail"]
        rows: list[tuple[str, Any]] = [("events", f"{len(self.events):,}: {counts_text(kinds)}")]
        if board:
            rows.append(("facts", board))
        last = [
            f"{e['kind']} {short(e['key'], 40)}" + (f" = {short(e['detail'], 40)}" if e["detail"] is not None else "")
            for e in self.events[-MAX_LIST:]
        ]
        return card(f"Episode {self.name!r}", rows, listed=last, more=max(0, len(self.events) - len(last)))

    def record(self, store: Any, outcome: Any, stored_ids: Any = ()) -> str:
        """Keep the finished episode in a knowledge store as an "episode" item (source "outcome").

        An episode item is a record and evidence, never an answerer. `stored_ids` names what the episode rests on
        or produced (decision ids, item ids). Returns the item id.
        """
        if store is None or not hasattr(store, "add"):
            raise BadInput(f"record needs a solvi_lab.knowledge.KnowledgeStore, got {type(store).__name__}.")
        _, outcome = _json("an episode's outcome", outcome)
        if isinstance(stored_ids, str):
            stored_ids = [stored_ids]
        ids = list(stored_ids)
        if not all(isinstance(i, str) and i for i in ids):
            raise BadInput(f"stored_ids must be ids as strings (e.g. 'd12', 'k3'), got {ids!r}.")
        body = {**self.snapshot(), "outcome": outcome, "stored_ids": ids}
        return store.add("episode", body, source="outcome", evidence={"stored_ids": ids})


class EpisodeView:
    """Reads an episode snapshot: counts, the facts board, and loop detectors.

    The detectors (repeated, ping_pong, stalled, looping) read every event since the last progress but progress
    and facts unless told: `kind=None` is their default, so the specification's `looping(stalled=20)` finds a loop
    of any kind of event ("act", "place", ...); `kind=` one kind or a list of kinds narrows them. `revisits` reads
    "visit" events unless told. The counts (`keys`, `steps`, `count`, `counts`, `done_without_progress`) read
    "act" events unless told.

    >>> ep = Episode("t")
    >>> for a in ["left", "right"] * 3: ep.note("act", a)
    >>> v = EpisodeView(ep.snapshot()); v.ping_pong(), v.repeated(n=3), v.stalled(n=20), v.looping(stalled=6)
    (True, True, False, True)
    """

    def __init__(self, snapshot: dict[str, Any]):
        if not isinstance(snapshot, dict) or not isinstance(snapshot.get("events"), list):
            raise BadInput(
                "EpisodeView takes an episode snapshot (Episode.snapshot(): a dict with an 'events' "
                f"list), got {type(snapshot).__name__}."
            )
        self.events = snapshot["events"]
        for i, e in enumerate(self.events):
            if not (isinstance(e, dict) and isinstance(e.get("kind"), str) and "key" in e):
                raise BadInput(f"event {i} of the snapshot is {e!r}; events are dicts with 'kind', 'key', 'detail'.")
        last = max((i for i, e in enumerate(self.events) if e["kind"] == PROGRESS), default=-1)
        self._since = self.events[last + 1 :]

    def keys(self, kind: Kinds = "act", since_progress: bool = True) -> list[str]:
        """The keys of `kind` events in order (a string key as it is, any other as its JSON text)."""
        kinds = _kinds(kind)
        events = self._since if since_progress else self.events
        return [key_text("an event's key", e["key"]) for e in events if e["kind"] in kinds]

    def steps(self, kind: Kinds = "act", since_progress: bool = True) -> int:
        """How many `kind` events, since the last progress or in total."""
        return len(self.keys(kind, since_progress))

    def count(self, key: Any, kind: Kinds = "act", since_progress: bool = True) -> int:
        """How many `kind` events had this key, since the last progress or in total."""
        return self.keys(kind, since_progress).count(key_text("a key", key))

    def counts(self, kind: Kinds = "act", since_progress: bool = True) -> dict[str, int]:
        """{key: count} of `kind` events (a string key as it is, any other as its JSON text)."""
        return dict(Counter(self.keys(kind, since_progress)))

    @property
    def progress(self) -> list[Any]:
        """What was reached, in order."""
        return [e["key"] for e in self.events if e["kind"] == PROGRESS]

    @property
    def facts(self) -> dict[str, Any]:
        """The facts board: {key: latest value} over the whole episode (a string key as it is, any other as its
        JSON text)."""
        return {key_text("a fact's key", e["key"]): e.get("detail") for e in self.events if e["kind"] == FACT}

    def done_without_progress(self, key: Any, kind: Kinds = "act") -> bool:
        """True when this key was already done since the last progress."""
        return self.count(key, kind) > 0

    # -- detectors -----------------------------------------------------------------------------------------
    # Every detector reads the events the caller names: kind= one kind, a list of kinds, or None (every event but
    # progress and facts). The default is None for repeated, ping_pong, stalled and looping — the specification
    # describes them over the episode's events, not over one kind — and "visit" for revisits.
    def repeated(self, n: int = 3, kind: Kinds = None) -> bool:
        """Some key occurred at least `n` times among the `kind` events since the last progress (None: every
        event but progress and facts)."""
        n = need_int("n", n, min=1)
        return any(c >= n for c in Counter(self.keys(kind)).values())

    def ping_pong(self, cycles: int = 2, kind: Kinds = None) -> bool:
        """The last 2*cycles `kind` events since progress alternate between two different keys (A B A B ...)."""
        cycles = need_int("cycles", cycles, min=1)
        tail = self.keys(kind)[-2 * cycles :]
        if len(tail) < 2 * cycles or tail[0] == tail[1]:
            return False
        return all(k == tail[i % 2] for i, k in enumerate(tail))

    def stalled(self, n: int = 20, kind: Kinds = None) -> bool:
        """At least `n` events of `kind` since the last progress (None: every event but progress and facts)."""
        return self.steps(kind) >= need_int("n", n, min=1)

    def revisits(self, n: int = 3, kind: Kinds = "visit") -> bool:
        """At least `n` visits since the last progress went to a place already visited since then."""
        keys = self.keys(kind)
        return len(keys) - len(set(keys)) >= need_int("n", n, min=1)

    def looping(self, stalled: int = 20, repeated: int = 3, cycles: int = 2, kind: Kinds = None) -> bool:
        """Stalled AND (repeated or ping-pong), all three over the same `kind` events (None: every event but
        progress and facts): one detector alone also fires on honest repetition.

        >>> ep = Episode("placer")
        >>> for i in range(24): ep.note("place", ["table", "chair"][i % 2])
        >>> v = EpisodeView(ep.snapshot()); v.looping(stalled=20), v.looping(stalled=20, kind="act")
        (True, False)
        """
        return self.stalled(stalled, kind) and (self.repeated(repeated, kind) or self.ping_pong(cycles, kind))


@dataclass(frozen=True)
class Choice:
    """One step of a Chooser: the option and its action, who answered, what the model proposed and why not."""

    option: Any
    action: Any
    answered_by: str  # "system2" (the model's proposal stood) or "rule"
    proposed: Any
    refused: str | None  # why the model's proposal was turned down (None when it stood)
    decision: str  # the decision id in the Chooser's log


@dataclass
class ChooserRerun:
    """What `Chooser.rerun()` found: steps re-checked, mismatches (id, name, old, new) and steps it could not run."""

    checked: int = 0
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.unchecked


class Chooser:
    """Model proposes, a validator turns down repeats without progress and what `check` refuses, the rule answers.

    `model(given) -> option` is any callable given the recorded input `{"task", "options", "context", "episode"}`
    (the episode snapshot and the option names). Each step is a decision recorded in `journal` — a Journal (None:
    a new in-memory one), or the DecisionLog writing into one (`ks.decisions`, say, so one log object sees every
    step) — and the chosen option is noted in the episode as an "act" event. `storage=` is the specification's
    name for the same argument (`Chooser(model, storage=...)`).

    The Chooser is not a journal owner of its own: its only recorded state is its decisions, which its DecisionLog
    owns (`Chooser(model, journal=j)` on a journal that already holds steps knows them). The rules and checks a
    step used are functions, kept per decision name while this object lives; `rerun(rules=...)` takes them for
    steps recorded by another process.

    >>> ep = Episode("e"); ch = Chooser(lambda g: "retry")
    >>> opts = {"retry": "press again", "handoff": "call a person"}
    >>> [ch.choose("next", "fix it", opts, rule="handoff", episode=ep).option for _ in range(2)]
    ['retry', 'handoff']
    >>> ch.rerun().ok
    True
    """

    def __init__(
        self,
        model: Callable[[dict[str, Any]], Any],
        journal: Journal | DecisionLog | None = None,
        *,
        storage: Journal | DecisionLog | None = None,
    ):
        if not callable(model):
            raise BadInput(f"model must be a callable model(given) -> option, got {type(model).__name__}.")
        if storage is not None and journal is not None:
            raise BadInput("pass journal= or storage= (the specification's name for it), not both.")
        which, target = ("storage", storage) if storage is not None else ("journal", journal)
        if target is None or isinstance(target, Journal):
            log = DecisionLog(target)
        elif isinstance(target, DecisionLog):
            log = target
        else:
            raise BadInput(f"{which} must be a Journal, a DecisionLog or None, got {type(target).__name__}.")
        self.model = model
        self.log = log
        self._parts: dict[str, tuple[Any, Any]] = {}  # decision name -> (rule, check) last used, for rerun

    def _decide(self, given: dict[str, Any], rule: Any, check: Any) -> dict[str, Any]:
        """The whole step as a pure function of the recorded input (used live and by rerun)."""
        options = {canonical(o): o for o in given["options"]}
        proposed = self.model(given)
        refused = None
        if _text_or_none(proposed) not in options:
            refused = f"{proposed!r} is not on offer"
        else:
            proposed = options[_text_or_none(proposed)]
            if given["episode"] is not None and EpisodeView(given["episode"]).done_without_progress(proposed):
                refused = f"{proposed!r} was already done without progress"
            elif check is not None and not check(given, proposed):
                refused = f"the check refused {proposed!r}"
        if refused is None:
            return {"option": proposed, "answered_by": "system2", "proposed": proposed, "refused": None}
        option = rule(given) if callable(rule) else rule
        ot = _text_or_none(option)
        if ot not in options:
            raise BadInput(
                f"the rule's option {option!r} is not on offer ({list(options.values())}); the rule must "
                "answer one of the options."
            )
        return {"option": options[ot], "answered_by": "rule", "proposed": _json_or_repr(proposed), "refused": refused}

    def choose(
        self,
        name: str,
        task: Any,
        options: dict[Any, Any],
        context: Any = None,
        rule: Any = None,
        episode: Episode | None = None,
        check: Callable[[dict[str, Any], Any], bool] | None = None,
    ) -> Choice:
        """One step: returns the Choice and records it as decision `name`.

        `rule` is the fallback: an option, or a callable rule(given) -> option. `check(given, option) -> bool` may
        refuse the model's proposal (the rule's option is not checked: it is the named fallback).
        """
        if not isinstance(name, str) or not name:
            raise BadInput(f"a step needs a non-empty string name (the decision's name), got {name!r}.")
        if not isinstance(options, dict) or not options:
            raise BadInput(f"options must be a non-empty dict {{option: action}}, got {options!r}.")
        if rule is None:
            raise BadInput(
                "choose needs rule= (an option, or a callable rule(given) -> option): it answers when the "
                "model's proposal is turned down."
            )
        if episode is not None and not isinstance(episode, Episode):
            raise BadInput(f"episode must be an Episode or None, got {type(episode).__name__}.")
        if check is not None and not callable(check):
            raise BadInput(f"check must be a callable check(given, option) -> bool or None, got {check!r}.")
        offered = {}  # canonical option text -> (the option as JSON, its action)
        for o, a in options.items():
            text, value = _json("an option", o)
            offered[text] = (value, a)
        given = {
            "task": _json("the task", task)[1],
            "options": [v for v, _a in offered.values()],
            "context": _json("the context", context)[1],
            "episode": episode.snapshot() if episode is not None else None,
        }
        answer = self._decide(given, rule, check)
        self._parts[name] = (rule, check)
        d = self.log.record(name, given, answer, answered_by=answer["answered_by"])
        option = answer["option"]
        action = offered[canonical(option)][1]
        if episode is not None:
            episode.note("act", option, {"decision": d.id})
        return Choice(option, action, answer["answered_by"], answer["proposed"], answer["refused"], d.id)

    def rerun(self, rules: dict[str, Any] | None = None, checks: dict[str, Any] | None = None) -> ChooserRerun:
        """Run every stored step of the names this chooser knows again on its recorded input; report mismatches.

        Rules and checks default to the last ones `choose` used per name; pass `rules=`/`checks=` (by name) to
        rerun a reloaded log. A step whose rule is unknown is listed in `unchecked`. Nothing is written.
        """
        # A copy first (one C-level call under the GIL): a choose() in another thread adding a name while the
        # comprehensions iterated raised a bare RuntimeError (issue 40's thread mix).
        parts = dict(self._parts)
        rules = {n: r for n, (r, _c) in parts.items()} | (rules or {})
        checks = {n: c for n, (_r, c) in parts.items()} | (checks or {})
        report = ChooserRerun()
        for d in self.log:
            if not (isinstance(d.given, dict) and {"task", "options", "context", "episode"} <= d.given.keys()):
                continue  # not a Chooser step (the log may hold other decisions)
            if d.name not in rules:
                report.unchecked.append(d.id)
                continue
            new = self._decide(d.given, rules[d.name], checks.get(d.name))
            report.checked += 1
            if canonical(new) != canonical(d.answer):
                report.mismatches.append({"id": d.id, "name": d.name, "old": d.answer, "new": new})
        return report

    def replay(self, rules: dict[str, Any] | None = None, checks: dict[str, Any] | None = None) -> ChooserRerun:
        """The specification's name for `rerun` (`chooser.replay()` re-checks every stored step): the same call."""
        return self.rerun(rules, checks)


def _text_or_none(value: Any) -> str | None:
    """Canonical JSON text, or None when the value is not JSON (a model or a rule may answer anything)."""
    try:
        return canonical(value)
    except (TypeError, ValueError):
        return None


def _json_or_repr(value: Any) -> Any:
    """A model's proposal as recorded: itself when it is JSON, else its repr (a model may propose anything)."""
    try:
        return json.loads(canonical(value))
    except (TypeError, ValueError):
        return repr(value)


class LongMemory:
    """Outcomes across episodes: record(context, key, +1 / -1); every score decays by `decay` per episode.

    >>> lm = LongMemory(decay=0.5)
    >>> lm.record("door", "push", +1); lm.record("door", "pull", -1); lm.end_episode()
    >>> lm.scores("door")
    {'pull': -0.5, 'push': 0.5}
    >>> lm.record("door", ("push", 2), +1); sorted(lm.scores("door"))   # not a string: kept as its JSON text
    ['["push",2]', 'pull', 'push']
    """

    def __init__(self, decay: float = 0.9):
        if isinstance(decay, bool) or not isinstance(decay, (int, float)) or not 0 < decay <= 1:
            raise BadInput(f"decay must be a number in (0, 1] (the share of a score kept per episode), got {decay!r}.")
        self.decay = float(decay)
        self._scores: dict[str, dict[str, float]] = {}  # context -> key -> score (strings as they are; else JSON)
        # One agent's threads share it (issue 40): a read iterating a row while a record adds a key raised a bare
        # RuntimeError, and a decay beside a record lost one of the two updates. Every call holds this lock.
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:  # copy and pickle without the lock (a new one on the other side)
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def record(self, context: Any, key: Any, outcome: int) -> None:
        """Add +1 (it worked) or -1 (it failed) to key's score in context."""
        if isinstance(outcome, bool) or outcome not in (1, -1):
            raise BadInput(f"outcome must be +1 (it worked) or -1 (it failed), got {outcome!r}.")
        ctx, k = key_text("a context", context), key_text("a key", key)
        with self._lock:
            row = self._scores.setdefault(ctx, {})
            row[k] = row.get(k, 0.0) + outcome

    def end_episode(self) -> None:
        """An episode ended: every score is multiplied by `decay`."""
        with self._lock:
            for row in self._scores.values():
                for k in row:
                    row[k] *= self.decay

    def scores(self, context: Any) -> dict[str, float]:
        """{key: score} in this context, sorted by key: the fact given to a decision. A string key is kept as it
        is; any other key (a tuple, a dict) as its JSON text."""
        ctx = key_text("a context", context)
        with self._lock:
            return dict(sorted(self._scores.get(ctx, {}).items()))

    def score(self, context: Any, key: Any) -> float:
        """One key's score in a context (0.0 when never recorded)."""
        ctx, k = key_text("a context", context), key_text("a key", key)
        with self._lock:
            return self._scores.get(ctx, {}).get(k, 0.0)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON, to keep the memory between runs (`LongMemory.from_dict` reads it back)."""
        with self._lock:
            return {"decay": self.decay, "scores": {c: dict(r) for c, r in self._scores.items()}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LongMemory:
        """The memory `to_dict` wrote."""
        if not isinstance(data, dict) or "decay" not in data or not isinstance(data.get("scores"), dict):
            raise BadInput("from_dict takes what LongMemory.to_dict() wrote: {'decay': ..., 'scores': {...}}.")
        lm = cls(data["decay"])
        for ctx, row in data["scores"].items():
            if not isinstance(row, dict) or not all(
                isinstance(v, (int, float)) and math.isfinite(v) for v in row.values()
            ):
                raise BadInput(f"scores of context {ctx} must be a dict of finite numbers, got {row!r}.")
            lm._scores[ctx] = {k: float(v) for k, v in row.items()}
        return lm
