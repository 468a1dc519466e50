"""What a model predicts about an action: the shared currency of actions.py and risk.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

VERDICTS = ("accept", "refuse", "unknown")


@dataclass(frozen=True)
class Prediction:
    """A verdict on an action with the estimate behind it.

    verdict: "accept" | "refuse" | "unknown".
    risk: estimated probability (0..1) that taking the action fails (refused, harmful).
    support: how many recorded cases the verdict rests on.
    reason: a sentence a person can read.
    hard: True when the refusal rests on a hard rule (instant harm, a policy rule): never traded.
    effects: the predicted effect of the action as a dict of what changes; ``{}`` predicts that nothing changes, and
        None means no effect is predicted (never observed, or accepted calls disagreed).

    >>> p = Prediction("refuse", risk=1.0, support=4, reason="status was never 'delivered' when accepted")
    >>> p.verdict, p.hard, p.effects
    ('refuse', False, None)
    """

    verdict: str
    risk: float = 0.0
    support: int = 0
    reason: str = ""
    hard: bool = False
    effects: dict[str, Any] | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from .errors import BadInput
        from .validation import need_number, need_str

        need_str("Prediction verdict", self.verdict)  # types first: a bad one would pass float()/int() below
        need_number("Prediction risk", self.risk)
        need_number("Prediction support", self.support)
        if self.verdict not in VERDICTS:
            raise BadInput(f"Prediction verdict {self.verdict!r} is not one of {VERDICTS}; pass one of those.")
        if not 0.0 <= float(self.risk) <= 1.0:
            raise BadInput(f"Prediction risk {self.risk!r} is outside [0, 1]; pass a probability.")
        if int(self.support) < 0:
            raise BadInput(f"Prediction support {self.support!r} is negative; pass a count of cases.")

    def explain(self) -> str:
        """The prediction in words.

        >>> Prediction("accept", support=3, reason="every condition held an accepted value").explain()
        'accept (risk 0.00, support 3): every condition held an accepted value'
        """
        hard = " [hard]" if self.hard else ""
        return f"{self.verdict}{hard} (risk {self.risk:.2f}, support {self.support}): {self.reason}"

    def _repr_html_(self) -> str:
        """A small card for Jupyter: the verdict, its risk and support, and the reason.

        >>> "refuse (hard)" in Prediction("refuse", risk=1.0, support=2, reason="r", hard=True)._repr_html_()
        True
        """
        from .display import card

        rows: list[tuple[str, Any]] = [
            ("verdict", self.verdict + (" (hard)" if self.hard else "")),
            ("risk", f"{self.risk:.2f}"),
            ("support", f"{self.support} cases"),
            ("reason", self.reason or "—"),
        ]
        if self.effects is not None:
            rows.append(("effects", self.effects or "nothing changes"))
        return card(f"Prediction: {self.verdict}" + (" (hard)" if self.hard else ""), rows)
