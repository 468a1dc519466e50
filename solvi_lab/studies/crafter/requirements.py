"""Crafter's requirements, computed from its ``data.yaml`` as installed and from its code, and graded against a model.

Every conditional entry of ``data.yaml`` becomes rows (:func:`rules`): ``collect`` (each ``require`` item),
``place`` (each ``uses`` item, the ``where`` list), ``make`` (each ``uses`` item, each ``nearby`` material). The
rules the code adds and ``data.yaml`` does not write are rows too, each marked ``code``: a placed thing needs a
cell without a creature (``Player._place``), ``nearby`` means within Chebyshev distance 1 (``world.nearby(pos, 1)``),
a move needs the target cell walkable (``walkable`` plus lava for the player) and free of creatures
(``Object.is_free``), ``sleep`` needs energy below its maximum, and collecting a material that stays what it was
(water, grass) shows nothing when the item is at its maximum (the inventory is clamped). A ``probability`` entry
(sapling from grass, 0.1) is a row of kind ``chance``: not a requirement any vocabulary can recover, shown apart.

:func:`grade` sets each row's status from a trained model's allowed values (``model.snapshot()``):

- ``exact``: the condition that expresses the rule allows exactly the values the rule allows (for a threshold
  ``inv:x>=n``: never False, and ``inv:x>=n+1`` was seen False in an accepted call, so the model found n);
- ``over-conservative``: it enforces the rule but allows too few values (a higher threshold, a shorter ``where``
  list): such calls get "unknown", never a wrong "accept";
- ``missed``: the model accepted a value the rule forbids, or its vocabulary cannot express the rule (an ablation):
  a false accept is possible;
- ``no data``: the call was never accepted.

>>> rows = rules()
>>> sorted({r.source for r in rows})
['code', 'data.yaml collect', 'data.yaml make', 'data.yaml place']
>>> [r.rule for r in rows if r.action == "make_iron_pickaxe"][:4]
['inv:wood>=1', 'inv:coal>=1', 'inv:iron>=1', 'near:table@1']
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import polars as pl
from crafter import constants

from .env import DIRECTIONS
from .vocabulary import ITEMS

__all__ = ["Rule", "rules", "grade", "table", "STATUSES"]

STATUSES = ("exact", "over-conservative", "missed", "no data")


@dataclass(frozen=True)
class Rule:
    """One requirement row.

    action: the call it constrains; source: where it is written; kind: "threshold" | "near" | "among" | "below" |
    "chance"; rule: the condition it needs, in the vocabulary's names (``inv:wood>=2``, ``faced:material``);
    values: for "among", the allowed values; text: the entry as written; status: set by :func:`grade`.
    """

    action: str
    source: str
    kind: str
    rule: str
    text: str
    values: tuple[str, ...] = ()
    status: str = ""
    learned: str = ""


def rules() -> list[Rule]:
    """Every requirement row, computed from the installed ``data.yaml`` (``crafter.constants``) and the code."""
    out: list[Rule] = []
    yaml = "data.yaml"
    for material, info in constants.collect.items():
        call = f"do_{material}"
        for item, n in info["require"].items():
            out.append(
                Rule(call, f"{yaml} collect", "threshold", f"inv:{item}>={n}", f"collect {material}: {item} ≥ {n}")
            )
        if "probability" in info:
            p = info["probability"]
            out.append(Rule(call, f"{yaml} collect", "chance", "", f"collect {material}: probability {p}"))
        if info["leaves"] == material:
            for item in info["receive"]:
                top = ITEMS[item]
                out.append(
                    Rule(call, "code", "below", f"inv:{item}>={top}", f"collect {material}: {item} < {top} (clamped)")
                )
    for name, info in constants.place.items():
        call = f"place_{name}"
        for item, n in info["uses"].items():
            out.append(Rule(call, f"{yaml} place", "threshold", f"inv:{item}>={n}", f"place {name}: {item} ≥ {n}"))
        where = tuple(info["where"])
        out.append(Rule(call, f"{yaml} place", "among", "faced:material", f"place {name}: where {list(where)}", where))
        out.append(Rule(call, "code", "among", "faced:creature", f"place {name}: no creature there", ("none",)))
    for name, info in constants.make.items():
        call = f"make_{name}"
        for item, n in info["uses"].items():
            out.append(Rule(call, f"{yaml} make", "threshold", f"inv:{item}>={n}", f"make {name}: {item} ≥ {n}"))
        for material in info["nearby"]:
            out.append(
                Rule(call, f"{yaml} make", "near", f"near:{material}@1", f"make {name}: {material} nearby (distance 1)")
            )
    walk = tuple(constants.walkable) + ("lava",)
    for d in DIRECTIONS:
        out.append(Rule(f"move_{d}", "code", "among", f"{d}:material", f"move {d}: target in {list(walk)}", walk))
        out.append(Rule(f"move_{d}", "code", "among", f"{d}:creature", f"move {d}: no creature there", ("none",)))
    top = ITEMS["energy"]
    out.append(Rule("sleep", "code", "below", f"inv:energy>={top}", f"sleep: energy < {top}"))
    return out


def _grade_one(r: Rule, body: dict[str, Any] | None) -> Rule:
    if r.kind == "chance":
        if body is None:
            return replace(r, status="no data")
        n = body["support"]["unexplained"]
        return replace(r, status="chance", learned=f"{n} refused call(s) with only accepted values: exact memory")
    if body is None or body["support"]["accepted"] == 0:
        return replace(r, status="no data", learned="never accepted")
    allowed = body["allowed"]
    if r.rule not in allowed:
        return replace(r, status="missed", learned=f"{r.rule} is not in the vocabulary")
    seen = allowed[r.rule]
    if r.kind in ("threshold", "near"):
        if False in seen:
            return replace(r, status="missed", learned=f"{r.rule} accepted False")
        if r.kind == "threshold":
            item, n = r.rule[len("inv:") :].split(">=")
            higher = f"inv:{item}>={int(n) + 1}"
            if higher in allowed and False not in allowed[higher]:
                k = int(n) + 1
                while f"inv:{item}>={k + 1}" in allowed and False not in allowed[f"inv:{item}>={k + 1}"]:
                    k += 1
                return replace(r, status="over-conservative", learned=f"needs {item} ≥ {k}")
        return replace(r, status="exact", learned=f"{r.rule} always True")
    if r.kind == "below":
        if True in seen:
            return replace(r, status="missed", learned=f"{r.rule} accepted True")
        return replace(r, status="exact", learned=f"{r.rule} always False")
    # among
    extra = sorted(set(seen) - set(r.values))
    if extra:
        return replace(r, status="missed", learned=f"also accepted {extra}")
    short = [v for v in r.values if v not in seen]
    if short:
        return replace(r, status="over-conservative", learned=f"never seen accepted: {short}")
    return replace(r, status="exact", learned=f"exactly {sorted(seen)}")


def grade(snapshot: dict[str, dict[str, Any]], rows: list[Rule] | None = None) -> list[Rule]:
    """Each row with its status against a model's ``snapshot()`` (see the module docstring).

    >>> body = {"support": {"accepted": 3, "unexplained": 0},
    ...         "allowed": {"inv:wood>=1": [True], "inv:wood>=2": [True, False], "near:table@1": [True]}}
    >>> [(r.rule, r.status) for r in grade({"make_wood_pickaxe": body}) if r.action == "make_wood_pickaxe"]
    [('inv:wood>=1', 'exact'), ('near:table@1', 'exact')]
    """
    rows = rules() if rows is None else rows
    return [_grade_one(r, snapshot.get(r.action)) for r in rows]


def table(graded: list[Rule]) -> pl.DataFrame:
    """The requirements table: action, source, rule as written, the condition, status, what was learned."""
    return pl.DataFrame(
        {
            "action": [r.action for r in graded],
            "source": [r.source for r in graded],
            "requirement": [r.text for r in graded],
            "condition": [r.rule for r in graded],
            "status": [r.status for r in graded],
            "learned": [r.learned for r in graded],
        }
    )
