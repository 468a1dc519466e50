"""Hard checks: plain functions over the given facts that can refuse an answer and name a fallback.

A decision in solvi_lab is any callable `decide(given) -> answer`. A hard check looks at what the decision was
given and what it answered, and either lets the answer through or refuses it; a refused answer is replaced by
the check's fallback `then`. Because a check reads only the given facts and the answer (never live state),
a recorded decision replays with its checks.

>>> no_vip_refunds = HardCheck("no_vip_refunds", lambda given, answer: not (given["tier"] == "vip" and answer == "refund"),
...                            then="ask_person")
>>> apply_checks({"tier": "vip"}, "refund", [no_vip_refunds])
('ask_person', 'no_vip_refunds')
>>> apply_checks({"tier": "regular"}, "refund", [no_vip_refunds])
('refund', None)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .errors import BadInput

__all__ = ["HardCheck", "apply_checks", "install"]


@dataclass(frozen=True)
class HardCheck:
    """A named check `fn(given, answer) -> bool` (True: the answer may stand) with the fallback `then`.

    >>> HardCheck("positive", lambda g, a: a > 0, then=0)(given={}, answer=-3)
    False
    """

    name: str
    fn: Callable[[dict[str, Any], Any], bool]
    then: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise BadInput(
                f"a hard check needs a non-empty string name, got {self.name!r}; name it after what it "
                "protects (e.g. 'auth_first')."
            )
        if not callable(self.fn):
            raise BadInput(
                f"hard check {self.name!r}: fn must be a callable fn(given, answer) -> bool, got "
                f"{type(self.fn).__name__}."
            )

    def __call__(self, given: dict[str, Any], answer: Any) -> bool:
        """True when the answer passes. The check must answer True or False (a None is a forgotten return)."""
        verdict = self.fn(given, answer)
        if not isinstance(verdict, bool):
            # numpy booleans and the like are fine; None (a function that forgot to return) is not.
            if verdict is None or not hasattr(verdict, "__bool__"):
                raise BadInput(
                    f"hard check {self.name!r} returned {verdict!r}; a check must return True (the "
                    "answer may stand) or False (refuse it)."
                )
            verdict = bool(verdict)
        return verdict


def apply_checks(given: dict[str, Any], answer: Any, checks: Iterable[HardCheck]) -> tuple[Any, str | None]:
    """Run the checks in order; the first that refuses replaces the answer with its `then`.

    Returns `(answer, refused_by)`: the answer (the original, or the refusing check's fallback) and the name of
    the check that refused it (None when all passed). The fallback is not checked again: it is the named safe
    answer (ask a person, hand off), and re-checking it could refuse every answer.

    >>> apply_checks({}, 5, [HardCheck("small", lambda g, a: a < 3, then=3)])
    (3, 'small')
    """
    if isinstance(checks, HardCheck):
        checks = [checks]
    for check in checks:
        if not isinstance(check, HardCheck):
            raise BadInput(
                f"apply_checks takes HardCheck objects, got {type(check).__name__}; wrap a function as "
                "HardCheck(name, fn, then=fallback)."
            )
        if not check(given, answer):
            return check.then, check.name
    return answer, None


def install(target: Any, check: HardCheck) -> HardCheck:
    """Add `check` to a list of checks, or to an object with a `checks` list (a catalog); return the check.

    >>> checks = []
    >>> install(checks, HardCheck("ok", lambda g, a: True)).name, len(checks)
    ('ok', 1)
    """
    checks = target if isinstance(target, list) else getattr(target, "checks", None)
    if not isinstance(checks, list):
        raise BadInput(
            f"cannot install a check into {type(target).__name__}: pass a list of HardChecks, or an "
            "object whose `checks` attribute is such a list."
        )
    if any(isinstance(c, HardCheck) and c.name == check.name for c in checks):
        raise BadInput(
            f"a check named {check.name!r} is already installed there; remove it first or give the new "
            "one another name."
        )
    checks.append(check)
    return check
