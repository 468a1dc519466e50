"""Call every public writing call of the journal's owners with good and hostile arguments, and check the promise.

The promise: after every accepted call the journal file reloads (chain, payload shapes and the owner's own
replay) and verifies; after every refused call (a SolviLabError) the file is byte-identical or grew by exactly one
record (a journaled refusal). Any other exception, or an accepted call that breaks the reload, is a fault.

Each owner is a small table: how to make one on a journal file, its writing calls (each with argument slots),
and how to rebuild it from the file read-only. `run_sequence(owner, calls, dir)` plays a list of
(call, arguments) and returns the counted outcomes; `hypothesis_calls(owner)` is the Hypothesis strategy that
draws such lists (tests and benchmarks/faults.py use it).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SolviLabError
from ..journal import Journal
from ..validation import safe_repr

# Values a hostile or careless caller passes: wrong types, non-finite and huge numbers, lone surrogates,
# unhashable and non-JSON containers, deep nesting.
NASTY: list[Any] = [
    None,
    True,
    0,
    -5,
    10**5000,
    float("nan"),
    float("inf"),
    1e308,
    "",
    "\ud800",
    "a\udfffb",
    b"bytes",
    ["x"],
    ("x",),
    {"x"},
    {"k": float("nan")},
    {1: "int key"},
    {"k": object()},
    object(),
    [[[[[[[[[[[["deep"]]]]]]]]]]]],
    "k0",
    "f1",
    "q0",
    "d0",
]


def _deep(n: int = 2000) -> Any:
    v: Any = "x"
    for _ in range(n):
        v = [v]
    return v


class _ReprRaises:
    """A hostile argument: its repr raises (a refusal must describe it by its type)."""

    def __repr__(self) -> str:
        raise RuntimeError("repr refused")


NASTY.append(_deep())
NASTY.extend([_deep(1000), _ReprRaises(), {"k": _ReprRaises()}, ["a", 10**5000]])


@dataclass
class Call:
    """One writing call: its name, how many argument slots it has, the good values of each slot, the call."""

    name: str
    good: list[list[Any]]
    run: Callable[..., Any]


@dataclass
class Owner:
    name: str
    make: Callable[[Path], Any]  # a new owner writing into a journal file in the given directory
    calls: list[Call]
    reload: Callable[[Path, Any], None]  # rebuild from the file read-only; raises when it cannot
    path: Callable[[Any], Path]  # the journal file an owner writes
    close: Callable[[Any], None] = lambda o: o.close()
    snapshot: Callable[[Any], bytes] | None = None  # the journal's bytes as they stand (default: the file's)


@dataclass
class Tally:
    """Outcomes of a run, by class."""

    accepted: int = 0
    refused: int = 0
    other: Counter = field(default_factory=Counter)  # exception type name -> count (bare exceptions)
    broke_reload: Counter = field(default_factory=Counter)  # accepted calls after which the file did not reload
    grew_on_refusal: int = 0  # refused calls that changed the file by more than one record
    examples: list[str] = field(default_factory=list)

    @property
    def faults(self) -> int:
        return sum(self.other.values()) + sum(self.broke_reload.values()) + self.grew_on_refusal

    def add(self, other: Tally) -> None:
        self.accepted += other.accepted
        self.refused += other.refused
        self.other.update(other.other)
        self.broke_reload.update(other.broke_reload)
        self.grew_on_refusal += other.grew_on_refusal
        self.examples.extend(other.examples[: max(0, 5 - len(self.examples))])


def _records(data: bytes) -> int:
    return data.count(b"\n")


def run_sequence(owner: Owner, calls: list[tuple[Call, tuple]], directory: Path) -> Tally:
    """Play `calls` on a new owner in `directory`; check the promise after each one."""
    tally = Tally()
    obj = owner.make(directory)
    path = owner.path(obj)

    def snap() -> bytes:
        if owner.snapshot is not None:
            return owner.snapshot(obj)
        return path.read_bytes() if path.exists() else b""

    try:
        for call, args in calls:
            before = snap()
            try:
                call.run(obj, *args)
            except SolviLabError:
                tally.refused += 1
                after = snap()
                if not (after == before or (after.startswith(before) and _records(after) - _records(before) == 1)):
                    tally.grew_on_refusal += 1
                    tally.examples.append(
                        f"{owner.name}.{call.name}{safe_repr(args, 200)}: refused but the file changed"
                    )
                continue
            except Exception as e:  # the fault this harness is here to find
                tally.other[type(e).__name__] += 1
                tally.examples.append(f"{owner.name}.{call.name}{safe_repr(args, 200)}: {type(e).__name__}: {e}"[:400])
                continue
            tally.accepted += 1
            try:
                owner.reload(path, obj)
            except Exception as e:
                tally.broke_reload[type(e).__name__] += 1
                tally.examples.append(f"{owner.name}.{call.name}{safe_repr(args, 200)} broke the reload: {e}"[:400])
                break  # the file is spoilt; later calls would count the same fault again
    finally:
        try:
            owner.close(obj)
        except Exception:
            pass
    return tally


def hypothesis_calls(owner: Owner, max_calls: int = 12):
    """A Hypothesis strategy of call lists for `owner`: each argument good (from its pool) or hostile."""
    from hypothesis import strategies as st

    nasty = st.sampled_from(NASTY) | st.text(max_size=6) | st.integers() | st.floats()

    def one(call: Call):
        slots = [st.sampled_from(pool) | nasty if pool else nasty for pool in call.good]
        return st.tuples(st.just(call), st.tuples(*slots))

    return st.lists(st.one_of([one(c) for c in owner.calls]), min_size=1, max_size=max_calls)


def random_calls(owner: Owner, rng: Any, n: int) -> list[tuple[Call, tuple]]:
    """The same distribution without Hypothesis (for the benchmark's many runs): half good, half hostile slots."""
    out = []
    for _ in range(n):
        call = owner.calls[rng.randrange(len(owner.calls))]
        args = tuple(
            (pool[rng.randrange(len(pool))] if pool and rng.random() < 0.6 else NASTY[rng.randrange(len(NASTY))])
            for pool in call.good
        )
        out.append((call, args))
    return out


# -- the owners ------------------------------------------------------------------------------------------------

S = ["a", "b", 1, ["x", 2]]
R = ["tier", "owns"]
OBJ = ["vip", "gold", 3, 2.5, None]
WHY = ["checked", "drift"]
BY = ["ann", None, "crm"]
IDS = ["k0", "k1", "k2", "k3", "k5", "f4", "f6"]


def _store_make(d: Path):
    from ..knowledge import KnowledgeStore

    return KnowledgeStore(d / "store.jsonl")


def _store_reload(path: Path, obj: Any) -> None:
    from ..knowledge import KnowledgeStore

    with Journal.open(path, mode="r") as j:
        assert j.verify(), "chain"
        ks = KnowledgeStore.from_journal(j)
        assert ks.fingerprint() == obj.fingerprint(), "the reloaded store differs from the live one"


STORE = Owner(
    "store",
    _store_make,
    [
        Call(
            "add",
            [["fact", "rule", "episode"], S, R, OBJ, ["person", "outcome", "spec", "model"], BY, [None, {"map": "A"}]],
            lambda ks, kind, s, r, o, source, by, scope: ks.add(
                kind, {"s": s, "r": r, "o": o}, source=source, by=by, scope=scope
            ),
        ),
        Call(
            "add_raw",
            [
                ["fact", "skill"],
                [{"name": "n"}, {"s": "a", "r": "tier", "o": 1}],
                ["person"],
                [(), ["k0"]],
                [None, "k0"],
            ],
            lambda ks, kind, body, source, der, sup: ks.add(
                kind, body, source=source, derived_from=der, supersedes=sup
            ),
        ),
        Call(
            "add_kw",
            [["person", "verified"], [None, "d0"], [None, (1, 2)], [False, True], [1, None]],
            lambda ks, source, of, valid, hyp, rc: ks.add(
                "fact",
                {"s": "z", "r": "tier", "o": 1},
                source=source,
                of=of,
                valid=valid,
                hypothesis=hyp,
                reconfirm_after=rc,
            ),
        ),
        Call("retract", [IDS, BY, WHY], lambda ks, i, by, why: ks.retract(i, by=by, why=why)),
        Call("resolve", [IDS + [("a", "b", "c")], OBJ, BY], lambda ks, k, v, by: ks.resolve(k, v, by=by)),
        Call(
            "flag", [[None, {"map": "A"}], [None, ["k0"]], WHY], lambda ks, sc, ids, why: ks.flag(sc, ids=ids, why=why)
        ),
        Call("end_flag", [["f1", "f2", "f4", "f6"], BY, WHY], lambda ks, f, by, why: ks.end_flag(f, by=by, why=why)),
        Call("reconfirm", [IDS, WHY], lambda ks, i, why: ks.reconfirm(i, why=why)),
        Call("confirm", [IDS, BY], lambda ks, i, by: ks.confirm(i, by=by)),
        Call("use", [IDS, [True, False]], lambda ks, i, w: ks.use(i, wrong=w)),
        Call("promote", [IDS, BY, WHY], lambda ks, i, by, why: ks.promote(i, by=by, why=why)),
        Call("rollback", [IDS, BY, WHY], lambda ks, i, by, why: ks.rollback(i, by=by, why=why)),
        Call("tick", [[1, 2]], lambda ks, k: ks.tick(k)),
        Call("query", [S, R, OBJ], lambda ks, s, r, o: ks.query(s=s, r=r, o=o)),
        Call("rebuild", [[(), ["k0"], {"k1"}]], lambda ks, skip: ks.rebuild(skip=skip)),
        Call("snapshot", [S], lambda ks, s: ks.snapshot(s)),
        Call(
            "append",
            [["knowledge", "decision", "note"], [{"op": "add"}, [1], {}, {"op": "tick", "k": "x"}]],
            lambda ks, kind, p: ks.journal.append(kind, p),
        ),
    ],
    _store_reload,
    lambda ks: ks.journal.path,
)


def _decisions_make(d: Path):
    from ..decisions import DecisionLog

    return DecisionLog(Journal(d / "decisions.jsonl"))


def _decisions_reload(path: Path, obj: Any) -> None:
    from ..decisions import DecisionLog
    from ..knowledge import KnowledgeStore

    with Journal.open(path, mode="r") as j:
        assert j.verify()
        log = DecisionLog.from_journal(j)
        for r in j.records(kind="decision"):
            log.get(f"d{r.position}")
        assert log.state() == obj.state()
        KnowledgeStore(journal=j)  # the store folds decision records too


DECISIONS = Owner(
    "decision log",
    _decisions_make,
    [
        Call(
            "record",
            [
                ["pick", "route"],
                [{"x": 1}, [1, 2], "g"],
                [1, "a", {"o": 2}],
                ["system2", "system1", "person"],
                [None, 0.9],
            ],
            lambda log, n, g, a, who, gu: log.record(n, g, a, answered_by=who, guarantee=gu),
        ),
        Call(
            "ask",
            [["pick"], [{"x": 1}], ["system2"]],
            lambda log, n, g, who: log.ask(n, lambda x: x, g, answered_by=who),
        ),
    ],
    _decisions_reload,
    lambda log: log.journal.path,
)


def _failures_make(d: Path):
    from ..failures import FailureMemory

    return FailureMemory(window=3, journal=Journal(d / "failures.jsonl"))


def _failures_reload(path: Path, obj: Any) -> None:
    from ..failures import FailureMemory

    with Journal.open(path, mode="r") as j:
        assert j.verify()
        assert FailureMemory.from_journal(j).blocked() == obj.blocked()


FAILURES = Owner(
    "failure memory",
    _failures_make,
    [
        Call("failed", [["a", ("go", 1), ["x"]], WHY], lambda fm, plan, why: fm.failed(plan, why=why)),
        Call("succeeded", [["a", ("go", 1)]], lambda fm, plan: fm.succeeded(plan)),
        Call("step", [], lambda fm: fm.step()),
    ],
    _failures_reload,
    lambda fm: fm.journal.path,
)


def _learner_make(d: Path):
    from ..evidence import LearnerModel

    return LearnerModel(journal=Journal(d / "learner.jsonl"))


def _learner_reload(path: Path, obj: Any) -> None:
    from ..evidence import LearnerModel

    with Journal.open(path, mode="r") as j:
        assert j.verify()
        assert LearnerModel.from_journal(j).fingerprint() == obj.fingerprint()


LEARNER = Owner(
    "learner model",
    _learner_make,
    [
        Call(
            "record",
            [
                ["x", "y"],
                ["transfer", "recognition", "free_recall"],
                ["correct", "partial", "incorrect"],
                [0, 1, 5],
                [None, 0.5],
            ],
            lambda m, c, k, r, at, score: m.record(c, k, r, at=at, score=score),
        ),
        Call(
            "open_misconception",
            [["x"], ["m1", "m2"], ["thinks a"], BY, [0, 3]],
            lambda m, c, mid, desc, by, at: m.open_misconception(c, mid, desc, by=by, at=at),
        ),
        Call(
            "set_misconception_status",
            [["m1", "m2"], ["stale", "active"], BY, WHY, [4, 6]],
            lambda m, mid, st, by, why, at: m.set_misconception_status(mid, st, by=by, why=why, at=at),
        ),
        Call(
            "assert_state",
            [["x"], [0.2, 0.9], BY, WHY, [2, 7], [(), ["e0"]]],
            lambda m, c, ms, by, why, at, cites: m.assert_state(c, ms, by=by, why=why, at=at, cites=cites),
        ),
    ],
    _learner_reload,
    lambda m: m.journal.path,
)


def _gate_make(d: Path):
    from ..risk import LearnedGate

    return LearnedGate("depth", expiry=3, journal=Journal(d / "gate.jsonl"))


def _gate_reload(path: Path, obj: Any) -> None:
    from ..risk import LearnedGate

    with Journal.open(path, mode="r") as j:
        assert j.verify()
        g = LearnedGate.from_journal(j, name="depth", expiry=3)
        assert g.state() == obj.state()
        for c in (1, "a", ("t", 1)):
            for lv in (0, 1, 2, 3):
                assert g.predict(c, lv) == obj.predict(c, lv)


def _policy_make(d: Path):
    from ..risk import RiskBudget

    return RiskBudget(journal=Journal(d / "policy.jsonl"))


def _policy_reload(path: Path, obj: Any) -> None:
    from ..risk import RiskBudget

    with Journal.open(path, mode="r") as j:
        assert j.verify()
        assert RiskBudget.from_journal(j).state() == obj.state()


def _prediction(verdict: Any, risk: Any, support: Any):
    from ..prediction import Prediction

    return Prediction(verdict, risk=risk, support=support)


RISK = Owner(
    "risk policies / LearnedGate",
    _gate_make,
    [
        Call("failed", [[1, "a", ("t", 1)], [0, 1, 3]], lambda g, c, lv: g.failed(c, lv)),
        Call("arrived", [[1, "a", ("t", 1)], [0, 1, 3], [True, False]], lambda g, c, lv, f: g.arrived(c, lv, f)),
        Call("end_episode", [], lambda g: g.end_episode()),
    ],
    _gate_reload,
    lambda g: g.journal.path,
)

POLICY = Owner(
    "risk policies / RiskBudget",
    _policy_make,
    [
        Call(
            "decide",
            [["cancel", "refund"], ["accept", "refuse", "unknown"], [0.0, 0.2, 1.0], [0, 3, 9], [0.0, 1.0]],
            lambda p, a, v, r, s, gain: p.decide(a, _prediction(v, r, s), gain),
        ),
        Call("new_episode", [], lambda p: p.new_episode()),
    ],
    _policy_reload,
    lambda p: p.journal.path,
)


def _vocab():
    from ..actions import Vocabulary

    return Vocabulary({"n": lambda s, a: len(a.get("items", ())), "ok": lambda s, a: s.get("ok")})


def _actions_make(d: Path):
    from ..actions import ConservativeActionModel
    from ..knowledge import KnowledgeStore

    return ConservativeActionModel(_vocab(), store=KnowledgeStore(d / "actions.jsonl"))


def _actions_reload(path: Path, obj: Any) -> None:
    from ..actions import ConservativeActionModel

    with Journal.open(path, mode="r") as j:
        assert j.verify()
        m = ConservativeActionModel.from_journal(j, vocab=_vocab())  # folds the store on j too
        assert m.state() == obj.state()


ACTIONS = Owner(
    "action model",
    _actions_make,
    [
        Call(
            "observe",
            [[{"ok": True}, {}], ["ret", "cancel"], [{"items": [1]}, {}], [True, False], [None, {"status": "x"}]],
            lambda m, s, a, args, acc, eff: m.observe(s, a, args, acc, eff),
        ),
        Call("commit", [], lambda m: m.commit()),
    ],
    _actions_reload,
    lambda m: m.store.journal.path,
)


def _agenda_make(d: Path):
    from ..agenda import Agenda
    from ..knowledge import KnowledgeStore

    a = Agenda(KnowledgeStore(d / "agenda.jsonl"))
    a.goal("g", lambda s: bool(s.get("done")))
    a.gate("no-cancel", lambda s: True, blocks=["cancel"])
    return a


def _agenda_reload(path: Path, obj: Any) -> None:
    from ..agenda import Agenda

    with Journal.open(path, mode="r") as j:
        assert j.verify()
        again = Agenda.from_journal(j)  # folds a store on j too
        assert again.store.fingerprint() == obj.store.fingerprint()
        assert again.state() == obj.state()


AGENDA = Owner(
    "agenda",
    _agenda_make,
    [
        Call("goal", [["g2", "g3"], [(), ["g"]]], lambda a, n, req: a.goal(n, lambda s: True, requires=req)),
        Call("gate", [["gt2"], [["cancel"], ["g"]]], lambda a, n, blocks: a.gate(n, lambda s: True, blocks=blocks)),
        Call("override", [["no-cancel", "gt2"], BY, WHY], lambda a, g, by, why: a.override(g, by, why)),
        Call("clear_override", [["no-cancel"], BY, WHY], lambda a, g, by, why: a.clear_override(g, by, why)),
        Call("update", [[{"done": True}, {}]], lambda a, s: a.update(s)),
    ],
    _agenda_reload,
    lambda a: a.store.journal.path,
)


def _map_make(d: Path):
    from ..worldmap import WorldMap

    m = WorldMap.open(d / "map.json")  # a .json path: the specification's map file, saved with save()
    m._fault_dir = d  # noqa: SLF001 - the harness saves beside it
    return m


def _map_path(m: Any) -> Path:
    m.save()  # the map keeps its journal in memory and saves it whole: the file is what a reload reads
    return m.path


def _map_reload(path: Path, obj: Any) -> None:
    from ..worldmap import WorldMap

    obj.save()
    again = WorldMap.open(path)
    assert again.verify() and again.edges() == obj.edges()


def _map_run(f: Callable[..., Any]) -> Callable[..., Any]:
    def run(m: Any, *args: Any) -> Any:
        out = f(m, *args)
        m.save()
        return out

    return run


STATES = ["a", "b", 1, ("room", 2), 2.5]
WORLDMAP = Owner(
    "world map",
    _map_make,
    [
        Call("see", [STATES, ["east", "go"], STATES + [None]], _map_run(lambda m, s, a, to: m.see(s, a, to))),
        Call("arrive", [STATES, ["east", "go"], STATES], _map_run(lambda m, s, a, to: m.arrive(s, a, to))),
        Call(
            "human", [STATES, ["east"], STATES, [None, "Anna"]], _map_run(lambda m, s, a, to, n: m.human(s, a, to, n))
        ),
        Call("drop", [WHY], _map_run(lambda m, why: m.drop(why))),
    ],
    _map_reload,
    _map_path,
    close=lambda m: None,
    snapshot=lambda m: b"".join(r.hash.encode() + b"\n" for r in m.journal),
)

OWNERS = [STORE, DECISIONS, ACTIONS, POLICY, RISK, FAILURES, LEARNER, AGENDA, WORLDMAP]

__all__ = ["NASTY", "OWNERS", "Call", "Owner", "Tally", "hypothesis_calls", "random_calls", "run_sequence", "math"]
