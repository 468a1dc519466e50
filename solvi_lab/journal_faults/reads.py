"""Threads that read beside threads that write, for every journal owner (issue 40, 1; issue 41, 2).

Reads used to settle lazy state outside the journal's lock — the store's pending digests (`len()`, `fingerprint()`,
`report()`, `verify()`), the learner model's and the decision log's fold of records other writers appended, lazy
items built from a fold snapshot — so a read in one thread could damage what a write in another was folding, and
iterate a dict another thread was growing (a bare `RuntimeError`). Now every public call of an owner holds the
journal's lock (solvi_lab.validation.public_calls).

Each owner here is a *mix*: how to make one on a journal file, its writing calls, its public reads, and how to say
its state (live) and its journal's replay's. `run_mix` starts `writers` threads that mix writes with reads and
`readers` threads that only read, with a switch interval of 1 µs, then compares the live state with the replay.
Refusals (BadInput, UnknownId, WriteRefused: a write that lost a race, say a retraction of an item already taken
back) are part of the game; any other exception is counted as "other", and a live state that differs from the
replay as "silent". tests/knowledge/test_thread_reads.py and benchmarks/faults.py use it.
"""

from __future__ import annotations

import itertools
import random
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BadInput, UnknownId, WriteRefused
from ..journal import Journal
from .files import Row

__all__ = ["MIXES", "Mix", "run_mix", "store_snapshot_after_mix", "thread_read_rows"]

_REFUSED = (BadInput, UnknownId, WriteRefused)

Op = Callable[[Any, random.Random, "Shared"], Any]


@dataclass
class Shared:
    """What the threads of one run share: the ids written so far (a list append is atomic) and a clock."""

    ids: list[str] = field(default_factory=list)
    clock: Any = field(default_factory=itertools.count)

    def pick(self, rnd: random.Random) -> str:
        return self.ids[rnd.randrange(len(self.ids))] if self.ids else "k0"


@dataclass
class Mix:
    """One owner's calls for the thread test."""

    name: str
    make: Callable[[Path, str], Any]  # (directory, backend) -> an owner writing to a journal file there
    writes: list[Op]
    reads: list[Op]
    live: Callable[[Any], Any]  # the owner's state as plain data
    replay: Callable[[Any], Any]  # the same, from a rebuild of its journal
    close: Callable[[Any], None] = lambda o: o.close()
    backends: tuple[str, ...] = ("jsonl",)
    others: Callable[[Any], list[Any]] = lambda o: []  # more owners on the same journal that read (they fold too)
    # Indices of `reads` on objects that keep no journal (an Episode, a LongMemory: in memory, their own lock or
    # none needed): mixed in the threads like the others, but not held to taking the journal's lock.
    unjournaled: tuple[int, ...] = ()


def run_mix(
    mix: Mix, directory: Path, backend: str, *, writers: int = 2, readers: int = 2, calls: int = 60, seed: int = 0
) -> tuple[list[str], bool, Any]:
    """One run: (the unexpected exceptions raised in the threads, live == replay, the owner — still open)."""
    obj = mix.make(directory, backend)
    shared = Shared()
    errors: list[str] = []
    rng = random.Random(seed)
    targets = [obj, *mix.others(obj)]

    def work(rnd: random.Random, write_share: float) -> None:
        for _ in range(calls):
            who = targets[rnd.randrange(len(targets))]
            if rnd.random() < write_share:
                op = mix.writes[rnd.randrange(len(mix.writes))]
                who = obj
            else:
                op = mix.reads[rnd.randrange(len(mix.reads))]
            try:
                op(who, rnd, shared)
            except _REFUSED:
                pass
            except Exception as e:  # noqa: BLE001 - what the test counts
                errors.append(f"{type(e).__name__}: {e}"[:300])
                return

    threads = [threading.Thread(target=work, args=(random.Random(rng.random()), 0.7)) for _ in range(writers)]
    threads += [threading.Thread(target=work, args=(random.Random(rng.random()), 0.0)) for _ in range(readers)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    try:
        same = all(mix.live(o) == mix.replay(o) for o in targets)
    except Exception as e:  # noqa: BLE001 - a live owner so damaged that reading its state fails is counted too
        errors.append(f"{type(e).__name__} reading the state after the run: {e}"[:300])
        same = False
    return errors, same, obj


# -- the knowledge store (and the decision log on its journal) ------------------------------------------------------


def _store_make(d: Path, backend: str) -> Any:
    from ..knowledge import KnowledgeStore

    return KnowledgeStore.open(d / f"store.{backend}")


def _store_add(ks: Any, rnd: random.Random, sh: Shared) -> None:
    derived = [sh.pick(rnd)] if sh.ids and rnd.random() < 0.2 else ()
    body = {"s": f"c{rnd.randrange(6)}", "r": "tier", "o": f"v{rnd.randrange(3)}"}
    sh.ids.append(ks.add("fact", body, source=rnd.choice(["person", "outcome"]), derived_from=derived))


STORE_WRITES: list[Op] = [
    _store_add,
    _store_add,
    _store_add,
    lambda ks, rnd, sh: ks.retract(sh.pick(rnd), by="t", why="thread test"),
    lambda ks, rnd, sh: ks.tick(),
    lambda ks, rnd, sh: ks.use(sh.pick(rnd), wrong=rnd.random() < 0.5),
    lambda ks, rnd, sh: ks.confirm(sh.pick(rnd), by="t"),
    lambda ks, rnd, sh: ks.flag({"x": 1} if rnd.random() < 0.5 else None, ids=[sh.pick(rnd)], why="check"),
    lambda ks, rnd, sh: ks.decisions.record("pick", {"i": rnd.randrange(9)}, 1, answered_by="system2"),
]

STORE_READS: list[Op] = [
    lambda ks, rnd, sh: ks.fingerprint(),
    lambda ks, rnd, sh: len(ks),
    lambda ks, rnd, sh: ks.state(),
    lambda ks, rnd, sh: ks.report(),
    lambda ks, rnd, sh: ks.item(sh.pick(rnd)),
    lambda ks, rnd, sh: ks.status(sh.pick(rnd)),
    lambda ks, rnd, sh: ks.stale(sh.pick(rnd)),
    lambda ks, rnd, sh: ks.usable(sh.pick(rnd)),
    lambda ks, rnd, sh: ks.rolled_back_under(sh.pick(rnd)),
    lambda ks, rnd, sh: sh.pick(rnd) in ks,
    lambda ks, rnd, sh: ks.query(s=f"c{rnd.randrange(6)}"),
    lambda ks, rnd, sh: ks.query(status="active"),
    lambda ks, rnd, sh: ks.snapshot(f"c{rnd.randrange(6)}"),
    lambda ks, rnd, sh: ks.disputes(),
    lambda ks, rnd, sh: ks.questions(),
    lambda ks, rnd, sh: ks.view().record(sh.pick(rnd)),
    lambda ks, rnd, sh: [r.status for r in ks.view().records()],
    lambda ks, rnd, sh: list(ks.view().keys()),
    lambda ks, rnd, sh: ks.view().dependents_of(sh.pick(rnd)),
    lambda ks, rnd, sh: len(ks.decisions),
    lambda ks, rnd, sh: ks.decisions.state(),
    lambda ks, rnd, sh: ks.verify() if rnd.random() < 0.1 else None,  # a whole replay: now and then
]


def _store_live(ks: Any) -> Any:
    return ks.state()


def _store_replay(ks: Any) -> Any:
    from ..knowledge import KnowledgeStore

    return KnowledgeStore.from_journal(ks.journal).state()


STORE = Mix(
    "knowledge store (+ decision log)",
    _store_make,
    STORE_WRITES,
    STORE_READS,
    _store_live,
    _store_replay,
    close=lambda ks: ks.close(snapshot=False),
    backends=("jsonl", "sqlite"),
)


def store_snapshot_after_mix(ks: Any) -> tuple[bool, bool]:
    """After a mix: write the fold snapshot, close, reopen. (the reopen used the snapshot, the reopened store
    equals its journal's replay — the fingerprint the mix ended with — and verify() holds). Closes `ks`."""
    import warnings

    from ..knowledge import KnowledgeStore

    before = _store_replay(ks)["fingerprint"]
    path = ks.journal.path
    ks.write_snapshot()
    ks.close(snapshot=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a snapshot the journal does not bear out warns: that is a failure here
        with KnowledgeStore.open(path) as again:
            state = again.state()
            equal = state == _store_replay(again) and state["fingerprint"] == before and bool(again.verify())
            return bool(again.opened_from_snapshot), equal


# -- the learner model: a second model on the same journal folds the first one's records as it reads -----------


def _learner_make(d: Path, backend: str) -> Any:
    from ..evidence import LearnerModel

    return LearnerModel(journal=Journal(d / f"learner.{backend}"))


def _learner_other(m: Any) -> list[Any]:
    from ..evidence import LearnerModel

    return [LearnerModel(journal=m.journal)]


def _learner_record(m: Any, rnd: random.Random, sh: Shared) -> None:
    m.record(
        f"c{rnd.randrange(3)}",
        rnd.choice(["transfer", "recognition", "free_recall"]),
        rnd.choice(["correct", "partial", "incorrect"]),
        at=next(sh.clock),
    )


LEARNER_WRITES: list[Op] = [
    _learner_record,
    _learner_record,
    lambda m, rnd, sh: m.open_misconception(
        f"c{rnd.randrange(3)}", f"m{rnd.randrange(4)}", "thinks a", by="t", at=next(sh.clock)
    ),
    lambda m, rnd, sh: m.set_misconception_status(
        f"m{rnd.randrange(4)}", rnd.choice(["active", "resolved"]), by="t", why="w", at=next(sh.clock)
    ),
    lambda m, rnd, sh: m.assert_state(f"c{rnd.randrange(3)}", rnd.random(), by="t", why="w", at=next(sh.clock)),
]

LEARNER_READS: list[Op] = [
    lambda m, rnd, sh: m.concept_state(f"c{rnd.randrange(3)}"),
    lambda m, rnd, sh: m.concepts(),
    lambda m, rnd, sh: m.misconceptions(),
    lambda m, rnd, sh: m.trajectory(f"c{rnd.randrange(3)}"),
    lambda m, rnd, sh: m.context_pack(),
    lambda m, rnd, sh: m.snapshot(),
    lambda m, rnd, sh: m.fingerprint(),
    lambda m, rnd, sh: m.state(),
    lambda m, rnd, sh: m.evidence(f"e{rnd.randrange(40)}"),
]


def _learner_replay(m: Any) -> Any:
    from ..evidence import LearnerModel

    return LearnerModel.from_journal(m.journal).state()


LEARNER = Mix(
    "learner model (+ a second model reading)",
    _learner_make,
    LEARNER_WRITES,
    LEARNER_READS,
    lambda m: m.state(),
    _learner_replay,
    others=_learner_other,
)


# -- the decision log: a second log on the same journal folds lazily as it reads ----------------------------------


def _log_make(d: Path, backend: str) -> Any:
    from ..decisions import DecisionLog

    return DecisionLog(Journal(d / f"decisions.{backend}"))


def _log_record(log: Any, rnd: random.Random, sh: Shared) -> None:
    sh.ids.append(log.record("pick", {"i": rnd.randrange(9)}, rnd.randrange(3), answered_by="system2").id)


def _log_other(log: Any) -> list[Any]:
    from ..decisions import DecisionLog

    return [DecisionLog(log.journal)]


def _log_replay(log: Any) -> Any:
    from ..decisions import DecisionLog

    return DecisionLog.from_journal(log.journal).state()


DECISIONS = Mix(
    "decision log (+ a second log reading)",
    _log_make,
    [_log_record, lambda log, rnd, sh: log.ask("route", lambda g: g["i"] * 2, {"i": 1}, answered_by="system1")],
    [
        lambda log, rnd, sh: log.get(sh.pick(rnd).replace("k", "d")),
        lambda log, rnd, sh: len(log),
        lambda log, rnd, sh: sh.pick(rnd) in log,
        lambda log, rnd, sh: [d.id for d in log],
        lambda log, rnd, sh: log.state(),
        lambda log, rnd, sh: log.rerun(sh.pick(rnd), lambda g: 1) if sh.ids else None,
    ],
    lambda log: log.state(),
    _log_replay,
    others=_log_other,
)


# -- the agenda (on a store) ----------------------------------------------------------------------------------------


def _agenda_make(d: Path, backend: str) -> Any:
    from ..agenda import Agenda
    from ..knowledge import KnowledgeStore

    a = Agenda(KnowledgeStore(d / f"agenda.{backend}"))
    a.goal("g", lambda s: bool(s.get("done")))
    a.gate("no-cancel", lambda s: bool(s.get("ok")), blocks=["cancel*"])
    return a


def _agenda_replay(a: Any) -> Any:
    from ..agenda import Agenda

    again = Agenda.from_journal(a.journal)
    return again.state(), again.store.fingerprint()


_STATES = [{"done": True, "ok": True}, {"done": False}, {"ok": True}, {}]

AGENDA = Mix(
    "agenda",
    _agenda_make,
    [
        lambda a, rnd, sh: a.update(rnd.choice(_STATES)),
        lambda a, rnd, sh: a.goal(f"g{rnd.randrange(4)}", lambda s: True, requires=rnd.choice([(), ["g"]])),
        lambda a, rnd, sh: a.gate(f"gt{rnd.randrange(3)}", lambda s: False, blocks=[f"pay{rnd.randrange(3)}"]),
        lambda a, rnd, sh: a.override(rnd.choice(["no-cancel", "gt0", "gt1"]), "ann", "needed"),
        lambda a, rnd, sh: a.clear_override(rnd.choice(["no-cancel", "gt0", "gt1"]), "ann", "done"),
    ],
    [
        lambda a, rnd, sh: a.allows(rnd.choice(_STATES), rnd.choice(["cancel", "pay0", "pay1", "look"])),
        lambda a, rnd, sh: a.blocked(rnd.choice(_STATES)),
        lambda a, rnd, sh: a.open(rnd.choice(_STATES)),
        lambda a, rnd, sh: a.given(rnd.choice(_STATES)),
        lambda a, rnd, sh: a.done(),
        lambda a, rnd, sh: a.goals(),
        lambda a, rnd, sh: a.gates(),
        lambda a, rnd, sh: a.overrides(),
        lambda a, rnd, sh: a.state(),
        lambda a, rnd, sh: a.dry_run([({"ok": True}, "cancel"), ({}, "pay1")]),
        lambda a, rnd, sh: a.store.fingerprint(),
    ],
    lambda a: (a.state(), a.store.fingerprint()),
    _agenda_replay,
)


# -- the world map ------------------------------------------------------------------------------------------------

_NODES = ["a", "b", "c", ("room", 1)]


def _map_make(d: Path, backend: str) -> Any:
    from ..worldmap import WorldMap

    return WorldMap.open(d / f"map.{backend}")


WORLDMAP = Mix(
    "world map",
    _map_make,
    [
        lambda m, rnd, sh: m.see(rnd.choice(_NODES), rnd.choice(["go", "east"]), rnd.choice(_NODES)),
        lambda m, rnd, sh: m.arrive(rnd.choice(_NODES), rnd.choice(["go", "east"]), rnd.choice(_NODES)),
        lambda m, rnd, sh: m.human(rnd.choice(_NODES), "east", rnd.choice(_NODES), "Anna"),
        lambda m, rnd, sh: m.drop("moved") if rnd.random() < 0.2 else None,
    ],
    [
        lambda m, rnd, sh: m.claims(rnd.choice(_NODES)),
        lambda m, rnd, sh: m.counts(),
        lambda m, rnd, sh: m.edges(),
        lambda m, rnd, sh: m.next(rnd.choice(_NODES), {rnd.choice(_NODES)}),
        lambda m, rnd, sh: m.route(rnd.choice(_NODES), {rnd.choice(_NODES)}),
        lambda m, rnd, sh: m.explore(rnd.choice(_NODES)),
        lambda m, rnd, sh: m.snapshot(rnd.choice(_NODES), [rnd.choice(_NODES)]),
        lambda m, rnd, sh: m.state(),
        lambda m, rnd, sh: len(m),
        lambda m, rnd, sh: repr(m),
        lambda m, rnd, sh: m.verify(),
    ],
    lambda m: m.state(),
    lambda m: m.rebuild().state(),
)


# -- the action model (on a store) ----------------------------------------------------------------------------------


def _vocab() -> Any:
    from ..actions import Vocabulary

    return Vocabulary({"n": lambda s, a: len(a.get("items", ())), "ok": lambda s, a: s.get("ok")})


def _actions_make(d: Path, backend: str) -> Any:
    from ..actions import ConservativeActionModel
    from ..knowledge import KnowledgeStore

    return ConservativeActionModel(_vocab(), store=KnowledgeStore(d / f"actions.{backend}"))


def _actions_replay(m: Any) -> Any:
    from ..actions import ConservativeActionModel

    return ConservativeActionModel.from_journal(m.store.journal, vocab=_vocab()).state()


_ARGS = [{"items": [1]}, {}, {"items": [1, 2]}]

ACTIONS = Mix(
    "action model",
    _actions_make,
    [
        lambda m, rnd, sh: m.observe(
            rnd.choice([{"ok": True}, {}]),
            rnd.choice(["ret", "cancel"]),
            rnd.choice(_ARGS),
            rnd.random() < 0.6,
            rnd.choice([None, {"status": "x"}]),
        ),
        lambda m, rnd, sh: m.commit() if rnd.random() < 0.3 else None,
    ],
    [
        lambda m, rnd, sh: m.predict(rnd.choice([{"ok": True}, {}]), rnd.choice(["ret", "cancel"]), rnd.choice(_ARGS)),
        lambda m, rnd, sh: m.predict_many([({"ok": True}, "ret", {}), ({}, "cancel", {"items": [1]})]),
        lambda m, rnd, sh: m.snapshot(),
        lambda m, rnd, sh: m.state(),
        lambda m, rnd, sh: m.actions,
        lambda m, rnd, sh: repr(m),
    ],
    lambda m: m.state(),
    _actions_replay,
)


# -- failure memory -------------------------------------------------------------------------------------------------


def _failures_make(d: Path, backend: str) -> Any:
    from ..failures import FailureMemory

    return FailureMemory(window=3, journal=Journal(d / f"failures.{backend}"))


def _failures_replay(fm: Any) -> Any:
    from ..failures import FailureMemory

    return FailureMemory.from_journal(fm.journal).state()


FAILURES = Mix(
    "failure memory",
    _failures_make,
    [
        lambda fm, rnd, sh: fm.failed(rnd.choice(["a", "b", ("go", 1)]), why="w"),
        lambda fm, rnd, sh: fm.succeeded(rnd.choice(["a", "b", ("go", 1)])),
        lambda fm, rnd, sh: fm.step(),
        lambda fm, rnd, sh: fm.end_episode() if rnd.random() < 0.2 else None,
    ],
    [
        lambda fm, rnd, sh: fm.blocked(),
        lambda fm, rnd, sh: fm.given(["a", "b", ("go", 1)]),
        lambda fm, rnd, sh: fm.given(),
        lambda fm, rnd, sh: fm.state(),
        lambda fm, rnd, sh: repr(fm),
        lambda fm, rnd, sh: fm == fm,
    ],
    lambda fm: fm.state(),
    _failures_replay,
)


# -- the risk policies: LearnedGate and RiskBudget ------------------------------------------------------------------


def _gate_make(d: Path, backend: str) -> Any:
    from ..risk import LearnedGate

    return LearnedGate("depth", expiry=3, journal=Journal(d / f"gate.{backend}"))


def _gate_replay(g: Any) -> Any:
    from ..risk import LearnedGate

    return LearnedGate.from_journal(g.journal, name="depth", expiry=3).state()


GATE = Mix(
    "LearnedGate",
    _gate_make,
    [
        lambda g, rnd, sh: g.failed(rnd.choice([1, "a"]), rnd.randrange(4)),
        lambda g, rnd, sh: g.arrived(rnd.choice([1, "a"]), rnd.randrange(4), rnd.random() < 0.3),
        lambda g, rnd, sh: g.end_episode() if rnd.random() < 0.2 else None,
    ],
    [
        lambda g, rnd, sh: g.bound(rnd.choice([1, "a"])),
        lambda g, rnd, sh: g.counts(rnd.choice([1, "a"])),
        lambda g, rnd, sh: g.predict(rnd.choice([1, "a"]), rnd.randrange(4)),
        lambda g, rnd, sh: g.state(),
    ],
    lambda g: g.state(),
    _gate_replay,
)


def _budget_make(d: Path, backend: str) -> Any:
    from ..risk import RiskBudget

    return RiskBudget(journal=Journal(d / f"budget.{backend}"))


def _budget_decide(p: Any, rnd: random.Random, sh: Shared) -> Any:
    from ..prediction import Prediction

    pred = Prediction(rnd.choice(["accept", "refuse", "unknown"]), risk=rnd.choice([0.0, 0.2, 1.0]), support=3)
    return p.decide(rnd.choice(["cancel", "refund"]), pred, rnd.random())


def _budget_replay(p: Any) -> Any:
    from ..risk import RiskBudget

    return RiskBudget.from_journal(p.journal).state()


BUDGET = Mix(
    "RiskBudget",
    _budget_make,
    [_budget_decide, _budget_decide, lambda p, rnd, sh: p.new_episode()],
    [lambda p, rnd, sh: p.state(), lambda p, rnd, sh: p.budget_left],
    lambda p: p.state(),
    _budget_replay,
)

# -- episodes: a Chooser recording its steps in a decision log, one Episode and one LongMemory shared -------------


@dataclass
class _Episodes:
    """What the episodes module's objects share in one agent: a Chooser (its steps are decisions in its log), the
    Episode it notes each chosen option in, and a LongMemory of outcomes."""

    chooser: Any
    episode: Any
    memory: Any

    @property
    def journal(self) -> Any:
        return self.chooser.log.journal

    def close(self) -> None:
        self.chooser.log.close()


_OPTIONS = {"retry": "press again", "handoff": "call a person", ("go", 1): "walk"}


def _episodes_make(d: Path, backend: str) -> Any:
    from ..episodes import Chooser, Episode, LongMemory

    model = lambda g: ["retry", "handoff", ["go", 1]][len(g["episode"]["events"]) % 3]  # noqa: E731
    return _Episodes(Chooser(model, Journal(d / f"episodes.{backend}")), Episode("e"), LongMemory(0.5))


def _episodes_other(e: Any) -> list[Any]:
    from ..decisions import DecisionLog
    from ..episodes import Chooser

    return [_Episodes(Chooser(e.chooser.model, DecisionLog(e.chooser.log.journal)), e.episode, e.memory)]


def _episodes_choose(e: Any, rnd: random.Random, sh: Shared) -> None:
    c = e.chooser.choose(f"step{rnd.randrange(12)}", "fix it", _OPTIONS, rule="handoff", episode=e.episode)
    sh.ids.append(c.decision)


def _episodes_replay(e: Any) -> Any:
    from ..decisions import DecisionLog

    return DecisionLog.from_journal(e.chooser.log.journal).state()


EPISODES = Mix(
    "episodes: Chooser (+ a second chooser reading), Episode, LongMemory",
    _episodes_make,
    [
        _episodes_choose,
        _episodes_choose,
        lambda e, rnd, sh: e.episode.note("visit", f"room{rnd.randrange(4)}"),
        lambda e, rnd, sh: e.episode.progress("a door opened") if rnd.random() < 0.2 else None,
        lambda e, rnd, sh: e.memory.record(f"c{rnd.randrange(3)}", rnd.choice(["a", "b", ("go", 1)]), 1),
        lambda e, rnd, sh: e.memory.end_episode() if rnd.random() < 0.2 else None,
    ],
    [
        lambda e, rnd, sh: e.chooser.rerun().ok,
        lambda e, rnd, sh: e.chooser.replay(),
        lambda e, rnd, sh: [d.id for d in e.chooser.log],
        lambda e, rnd, sh: len(e.chooser.log),
        lambda e, rnd, sh: e.episode.snapshot(),
        lambda e, rnd, sh: repr(e.episode),
        lambda e, rnd, sh: e.episode._repr_html_(),
        lambda e, rnd, sh: _view_reads(e.episode.snapshot()),
        lambda e, rnd, sh: e.memory.scores(f"c{rnd.randrange(3)}"),
        lambda e, rnd, sh: e.memory.score(f"c{rnd.randrange(3)}", "a"),
        lambda e, rnd, sh: e.memory.to_dict(),
    ],
    lambda e: e.chooser.log.state(),
    _episodes_replay,
    close=lambda e: e.close(),
    others=_episodes_other,
    unjournaled=(4, 5, 6, 7, 8, 9, 10),
)


def _view_reads(snapshot: Any) -> Any:
    from ..episodes import EpisodeView

    v = EpisodeView(snapshot)
    return v.counts(), v.looping(), v.facts, v.revisits(), v.progress


MIXES = [STORE, LEARNER, DECISIONS, AGENDA, WORLDMAP, ACTIONS, FAILURES, GATE, BUDGET, EPISODES]


def thread_read_rows(directory_factory: Callable[[], Any], runs: int, *, calls: int = 60, seed: int = 0) -> list[Row]:
    """One row per owner and backend: `runs` runs of 2 writing and 2 reading threads (1 µs switch interval).
    unchanged = a run that ended with live = replay and no bare exception; silent = live ≠ replay; other = a bare
    exception in a thread. The store's row also writes a fold snapshot after each run and reopens it."""
    rows = []
    for mix in MIXES:
        for backend in mix.backends:
            row = Row(f"threads reading beside writers: {mix.name}, switch interval 1 µs", backend)
            reopened = 0
            for r in range(runs):
                with directory_factory() as d:
                    errors, same, obj = run_mix(mix, Path(d), backend, calls=calls, seed=seed + r)
                    try:
                        if mix is STORE:
                            used, equal = store_snapshot_after_mix(obj)
                            reopened += used and equal
                            same = same and equal
                        else:
                            mix.close(obj)
                    except Exception as e:  # noqa: BLE001 - counted
                        errors.append(f"{type(e).__name__}: {e}"[:300])
                if errors:  # one outcome per run: its first bare exception (the others as examples)
                    row.count(errors[0].split(":")[0], errors[0])
                    row.examples.extend(errors[1 : 4 - len(row.examples)])
                else:
                    row.count("unchanged" if same else "silent", f"run {r}: live state differs from the replay")
            row.note = f"{row.unchanged} of {runs} runs: live = replay, no bare exception"
            if mix is STORE:
                row.note += f"; {reopened} reopened from a snapshot written after the mix = replay"
            rows.append(row)
    return rows
