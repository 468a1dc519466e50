"""Hand every public call of every journal owner — constructors, classmethods, read and writing calls — a deep, a
huge or a hostile value in each argument slot, one slot at a time, and count what the call does (issue 25, 6).

The calls are found by introspection (every public method of the owner's class, its constructor, `open` and
`from_journal`), the other arguments are good values chosen by parameter name, and every outcome is classified:

- accepted (it returned), refused (a SolviLabError);
- bare: any other exception (the fault this harness exists to find);
- generic: a refusal saying only "an argument has a wrong type or value" (it names no argument);
- long: a refusal message over 1,000 characters; quoted: one quoting more than 80 characters of the value;
- grew: a refused call after which the owner's journal grew by more than one record (a journaled refusal).

    python -m solvi_lab.journal_faults.inputs      # the table, printed
"""

from __future__ import annotations

import inspect
import random
import tempfile
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SolviLabError
from ..journal import Journal
from ..validation import safe_repr

GENERIC = "an argument has a wrong type or value"


class ReprRaises:
    """A hostile argument: its repr and its str raise."""

    def __repr__(self) -> str:
        raise RuntimeError("repr refused")

    def __str__(self) -> str:
        raise RuntimeError("str refused")


def _deep_list(n: int) -> Any:
    v: Any = "x"
    for _ in range(n):
        v = [v]
    return v


def _deep_dict(n: int) -> Any:
    v: Any = 1
    for _ in range(n):
        v = {"a": v}
    return v


HOSTILE: dict[str, Any] = {
    "a 1,000-deep list": _deep_list(1000),
    "a 1,000-deep dict": _deep_dict(1000),
    "a 5,000-digit int": 10**5000,
    "an object whose repr raises": ReprRaises(),
    "a 200,000-character string": "x" * 200_000,
    "a list holding a 5,000-digit int": ["a", 10**5000],
    "a dict holding an object whose repr raises": {"k": ReprRaises()},
}


@dataclass
class Outcomes:
    """Counts of one owner (or all): see the module docstring."""

    calls: int = 0
    accepted: int = 0
    refused: int = 0
    bare: Counter = field(default_factory=Counter)
    generic: int = 0
    long: int = 0
    quoted: int = 0
    grew: int = 0
    named: int = 0  # refusals whose message contains the parameter's name
    examples: list[str] = field(default_factory=list)

    @property
    def faults(self) -> int:
        return sum(self.bare.values()) + self.generic + self.long + self.quoted + self.grew

    def add(self, o: Outcomes) -> None:
        for f in ("calls", "accepted", "refused", "generic", "long", "quoted", "grew", "named"):
            setattr(self, f, getattr(self, f) + getattr(o, f))
        self.bare.update(o.bare)
        self.examples.extend(o.examples[: max(0, 8 - len(self.examples))])


# -- the owners: how to make one, its good values --------------------------------------------------------------


def _vocab():
    from ..actions import Vocabulary

    return Vocabulary({"n": lambda s, a: len(a.get("items", ())), "ok": lambda s, a: s.get("ok")})


def _prediction():
    from ..prediction import Prediction

    return Prediction("accept", risk=0.1, support=3)


def _store(d: Path):
    from ..knowledge import KnowledgeStore

    ks = KnowledgeStore(d / "store.jsonl")
    ks.add("fact", {"s": "a", "r": "tier", "o": "vip"}, source="person")
    return ks


def _agenda(d: Path):
    from ..agenda import Agenda
    from ..knowledge import KnowledgeStore

    a = Agenda(KnowledgeStore(d / "agenda.jsonl"))
    a.goal("g", lambda s: bool(s.get("done")))
    a.gate("no-cancel", lambda s: True, blocks=["cancel"])
    return a


def _map(d: Path):
    from ..worldmap import WorldMap

    m = WorldMap.open(d / "map.jsonl")
    m.arrive("a", "go", "b")
    return m


def _make(mod: str, cls: str, **kw: Callable[[Path], Any]) -> Callable[[Path], Any]:
    def make(d: Path):
        import importlib

        c = getattr(importlib.import_module(mod, __package__), cls)
        return c(**{k: f(d) for k, f in kw.items()})

    return make


@dataclass
class OwnerSpec:
    name: str
    cls: Callable[[], type]
    make: Callable[[Path], Any]
    good: dict[str, Any] = field(default_factory=dict)  # parameter name -> good value (over COMMON)
    skip: tuple[str, ...] = ()
    always: dict[str, Any] = field(default_factory=dict)  # passed whenever the call takes it (or takes **options)


def _cls(mod: str, name: str) -> Callable[[], type]:
    def get() -> type:
        import importlib

        return getattr(importlib.import_module(mod, __package__), name)

    return get


COMMON: dict[str, Any] = {
    "iid": "k0",
    "kind": "fact",
    "body": {"s": "a", "r": "tier", "o": 1},
    "source": "person",
    "by": "ann",
    "why": "checked",
    "value": 1,
    "k": 1,
    "position": 1,
    "a": 0,
    "about": "a",
    "retracted": ["k0"],
    "decide": lambda g: 1,
    "name": "g",
    "given": {"x": 1},
    "answer": 1,
    "answered_by": "system2",
    "did": "d0",
    "action": "go",
    "args": {},
    "accepted": True,
    "context": "c",
    "level": 1,
    "plan": "p",
    "concept": "x",
    "mastery": 0.5,
    "result": "correct",
    "misconception_id": "m1",
    "description": "thinks a",
    "status": "stale",
    "evidence_ids": [],
    "evidence_id": "e0",
    "n": 3,
    "check": lambda s: True,
    "done": lambda s: True,
    "blocks": ["cancel"],
    "gate": "no-cancel",
    "recorded_successes": [],
    "to": "b",
    "targets": ["b"],
    "calls": [],
    "flag": "f1",
    "key": ("a", "b", "c"),
    "update": "k0",
    "decisions": [],
    "vocab": None,  # set per owner
    "prediction": None,
    "gain": 0.5,
    "checks_or_catalog": None,
    "options": None,
}

OWNER_SPECS: list[OwnerSpec] = [
    OwnerSpec("store", _cls("..knowledge", "KnowledgeStore"), _store, {"kind": "fact"}, skip=("graph", "frame")),
    OwnerSpec(
        "decision log",
        _cls("..decisions", "DecisionLog"),
        lambda d: _make("..decisions", "DecisionLog", journal=lambda d: Journal(d / "decisions.jsonl"))(d),
    ),
    OwnerSpec(
        "action model",
        _cls("..actions", "ConservativeActionModel"),
        lambda d: _make("..actions", "ConservativeActionModel", vocab=lambda d: _vocab(), store=_store)(d),
        {"state": {"ok": True}, "action": "ret", "vocab": "VOCAB"},
        skip=("frame",),
    ),
    OwnerSpec(
        "risk budget",
        _cls("..risk", "RiskBudget"),
        lambda d: _make("..risk", "RiskBudget", journal=lambda d: Journal(d / "policy.jsonl"))(d),
        {"action": "cancel", "prediction": "PREDICTION"},
    ),
    OwnerSpec(
        "learned gate",
        _cls("..risk", "LearnedGate"),
        lambda d: _make("..risk", "LearnedGate", name=lambda d: "depth", journal=lambda d: Journal(d / "gate.jsonl"))(
            d
        ),
        {"name": "depth"},
        always={"name": "depth"},
    ),
    OwnerSpec(
        "failure memory",
        _cls("..failures", "FailureMemory"),
        lambda d: _make("..failures", "FailureMemory", journal=lambda d: Journal(d / "failures.jsonl"))(d),
        skip=("install",),
    ),
    OwnerSpec(
        "learner model",
        _cls("..evidence", "LearnerModel"),
        lambda d: _make("..evidence", "LearnerModel", journal=lambda d: Journal(d / "learner.jsonl"))(d),
        {"kind": "transfer"},
        always={"at": 1},
    ),
    OwnerSpec("agenda", _cls("..agenda", "Agenda"), _agenda, {"state": {"done": False}, "action": "cancel"}),
    OwnerSpec("world map", _cls("..worldmap", "WorldMap"), _map, {"state": "a", "action": "go"}, skip=("view",)),
]


def _good(spec: OwnerSpec, name: str, obj: Any, d: Path) -> Any:
    v = spec.good.get(name, COMMON.get(name, "x"))
    if v == "VOCAB" or (name == "vocab"):
        return _vocab()
    if v == "PREDICTION" or name == "prediction":
        return _prediction()
    if name == "journal":
        return Journal(d / f"other{random.random():.6f}.jsonl")
    if name == "path":
        return d / f"other{random.random():.6f}{'.json' if spec.name == 'world map' else '.jsonl'}"
    if name == "store" or name == "knowledge":
        return getattr(obj, "store", None) or None
    if name == "state" and "state" not in spec.good:
        return {"ok": True}
    return v


def _calls(spec: OwnerSpec) -> list[tuple[str, Callable[[Any], Callable[..., Any]], inspect.Signature]]:
    """(name, how to get the callable from a live owner, its signature) for the constructor and every public call."""
    cls = spec.cls()
    out = []
    for name in ["__init__", *sorted(n for n in dir(cls) if not n.startswith("_"))]:
        if name in spec.skip or name == "close":
            continue
        attr = inspect.getattr_static(cls, name)
        if isinstance(attr, property) or not (
            inspect.isfunction(attr) or isinstance(attr, (classmethod, staticmethod))
        ):
            continue
        fn = attr.__func__ if isinstance(attr, (classmethod, staticmethod)) else attr
        if inspect.isgeneratorfunction(fn):
            continue
        if name == "__init__":
            out.append(("constructor", lambda obj, cls=cls: cls, inspect.signature(cls)))
        else:
            out.append((name, lambda obj, name=name: getattr(obj, name), inspect.signature(getattr(cls, name))))
    return out


def _journal_bytes(obj: Any) -> bytes:
    for holder in (obj, getattr(obj, "store", None)):
        j = getattr(holder, "journal", None)
        if j is not None:
            return b"".join(r.hash.encode() + b"\n" for r in j)
    return b""


def run_owner(spec: OwnerSpec, hostile: dict[str, Any] | None = None) -> Outcomes:
    """Every call of one owner with each hostile value in each slot, on a fresh owner per call name."""
    hostile = HOSTILE if hostile is None else hostile
    out = Outcomes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # old spellings (clock=) are fuzzed too
        for name, get, sig in _calls(spec):
            _fuzz_call(out, spec, name, get, sig, hostile)
    return out


def _fuzz_call(out: Outcomes, spec: OwnerSpec, name: str, get: Callable, sig: inspect.Signature, hostile: dict) -> None:
    """One call: each hostile value in each slot, the other slots good, on one fresh owner."""
    slots = [
        p
        for p in sig.parameters.values()
        if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY)
    ]
    if not slots:
        return
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        obj = spec.make(d)
        try:
            for slot in slots:
                for label, bad in hostile.items():
                    kwargs = {}
                    for p in slots:
                        if p.name == slot.name:
                            kwargs[p.name] = bad
                        elif p.default is p.empty:
                            kwargs[p.name] = _good(spec, p.name, obj, d)
                        elif p.name in spec.always:
                            kwargs[p.name] = spec.always[p.name]
                    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
                        kwargs.update({k: v for k, v in spec.always.items() if k not in sig.parameters})
                    _one(out, spec, name, get(obj), slot.name, label, kwargs, obj)
        finally:
            for closing in (obj, getattr(obj, "store", None)):
                try:
                    closing.close()
                except Exception:
                    pass


def _one(out: Outcomes, spec: OwnerSpec, name: str, fn: Callable, slot: str, label: str, kwargs: dict, obj: Any):
    before = _journal_bytes(obj)
    out.calls += 1
    where = f"{spec.name}.{name}({slot}={label})"
    try:
        made = fn(**kwargs)
    except SolviLabError as e:
        out.refused += 1
        msg = str(e)
        if GENERIC in msg:
            out.generic += 1
            _example(out, f"{where}: generic: {msg[:160]}")
        if len(msg) > 1000:
            out.long += 1
            _example(out, f"{where}: {len(msg):,} characters")
        if _quotes_more_than_80(msg, kwargs[slot]):
            out.quoted += 1
            _example(out, f"{where}: quotes over 80 characters: {msg[:120]}")
        if slot in msg:
            out.named += 1
        after = _journal_bytes(obj)
        if not (after == before or (after.startswith(before) and after.count(b"\n") - before.count(b"\n") == 1)):
            out.grew += 1
            _example(out, f"{where}: refused but its journal changed")
        return
    except Exception as e:  # the fault this harness exists to find
        out.bare[type(e).__name__] += 1
        try:
            text = str(e)[:160]
        except Exception:
            text = "?"
        _example(out, f"{where}: {type(e).__name__}: {text}")
        return
    out.accepted += 1
    if name == "constructor" or name in ("open", "from_journal", "rebuild", "at"):
        for closing in (made, getattr(made, "store", None)):
            try:
                if closing is not obj and closing is not getattr(obj, "store", None) and hasattr(closing, "close"):
                    closing.close()
            except Exception:
                pass


def _quotes_more_than_80(msg: str, value: Any) -> bool:
    try:
        text = repr(value)
    except Exception:
        return False
    return len(text) > 80 and text[:81] in msg


def _example(out: Outcomes, text: str) -> None:
    if len(out.examples) < 8:
        out.examples.append(safe_repr(text, 300))


def run_all() -> dict[str, Outcomes]:
    return {spec.name: run_owner(spec) for spec in OWNER_SPECS}


if __name__ == "__main__":
    total = Outcomes()
    for owner, o in run_all().items():
        total.add(o)
        print(
            f"{owner:16} calls {o.calls:5}  accepted {o.accepted:4}  refused {o.refused:5}  bare {sum(o.bare.values()):4} "
            f"{dict(o.bare) if o.bare else ''}  generic {o.generic:3}  long {o.long:3}  quoted {o.quoted:3}  "
            f"grew {o.grew}  named {o.named}"
        )
        for e in o.examples[:4]:
            print("    ", e)
    print("total", total.calls, "calls;", total.faults, "faults;", dict(total.bare))
