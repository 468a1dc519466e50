"""ShadowGate: measure a behaviour-changing item on a shadow of the store before it is promoted.

>>> from solvi_lab.knowledge import KnowledgeStore
>>> rules = lambda st: sum(1 for r in st.view().records() if r.kind == "rule" and r.status == "active")
>>> gate = ShadowGate(lambda st: -rules(st), name="fewer_rules")   # a measure that only falls with a new rule
>>> ks = KnowledgeStore(gates=[gate])
>>> ks.item(ks.add("rule", {"name": "r"}, source="spec"))["status"]
'hypothesis'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import BadInput
from ..knowledge.gates import Candidate, Verdict, WriteGate
from ..knowledge.items import BEHAVIOUR_KINDS


class ShadowGate(WriteGate):
    """Admit a rule, skill or action only if `evaluate(store)` does not get worse on a shadow store in which
    it is already admitted. The two measures are journaled with the verdict. Facts and episodes pass."""

    def __init__(self, evaluate: Callable[[Any], float], *, higher_is_better: bool = True, name: str = "shadow"):
        if not callable(evaluate):
            raise BadInput("ShadowGate(evaluate) needs a callable store -> number.")
        self.evaluate = evaluate
        self.higher_is_better = higher_is_better
        self.name = name

    def admit(self, store: Any, item: Candidate, shadow: Any) -> Verdict:
        if item.kind not in BEHAVIOUR_KINDS:
            return Verdict(True, "not behaviour-changing")
        base = float(self.evaluate(store))
        cand = float(self.evaluate(shadow.store()))
        ok = cand >= base if self.higher_is_better else cand <= base
        return Verdict(
            ok,
            "measure did not get worse" if ok else "measure got worse on the shadow",
            {"baseline": base, "candidate": cand},
        )
