"""Each study declares its parameters once; validation, defaults, notebooks, the CLI and sweeps all read that.

A study module holds one `PARAMS = ParamSpec("name", Param(...), ...)`. From it come the quick and full
defaults (`PARAMS.defaults(quick=...)`, the old `QUICK_PARAMS` / `FULL_PARAMS`), the check at the top of
`run()` (`PARAMS.check(...)`), what `registry.params_for` fills in, the table `solvi-lab list --params STUDY`
prints, and what `solvi-lab run/reproduce/sweep -p` accept. Every study also takes `seed` (declared here once,
as `SEED`), and every notebook reads its mode with `quick_from_env()`.

>>> spec = ParamSpec("demo", Param("n", int, full=1000, quick=10, meaning="samples", low=1, high=10**6))
>>> spec.defaults(quick=True)
{'n': 10}
>>> spec.check(n=50, seed=3)
{'n': 50, 'seed': 3}
>>> spec.check(n=0)
Traceback (most recent call last):
...
solvi_lab.errors.BadParameter: study 'demo': parameter n got 0; it accepts an integer in 1..1000000 (samples).
>>> spec.convert("n", "1e3")
Traceback (most recent call last):
...
solvi_lab.errors.BadParameter: study 'demo': parameter n got '1e3'; it accepts an integer in 1..1000000 (samples).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import BadParameter

QUICK_ENV = "SOLVI_LAB_QUICK"

#: Values of SOLVI_LAB_QUICK that mean "quick" (case-insensitive); anything else, or unset, means full size.
QUICK_TRUE = ("1", "true", "yes", "on")

#: The names every notebook's parameters cell has besides its study's declared ones.
NOTEBOOK_NAMES = ("quick", "seed", "results_dir")

_TYPE_WORDS = {int: "an integer", float: "a finite number", bool: "true or false", str: "a string"}


def quick_from_env(environ: Mapping[str, str] | None = None) -> bool:
    """The one way to read `SOLVI_LAB_QUICK`: "1", "true", "yes", "on" (any case) mean quick sizes.

    environ: where to look (default `os.environ`).

    >>> quick_from_env({"SOLVI_LAB_QUICK": "True"}), quick_from_env({"SOLVI_LAB_QUICK": "0"}), quick_from_env({})
    (True, False, False)
    """
    return (os.environ if environ is None else environ).get(QUICK_ENV, "").strip().lower() in QUICK_TRUE


@dataclass(frozen=True)
class Param:
    """One parameter of a study.

    name: the keyword of `run()`. type: int, float, bool or str. full / quick: the defaults of the published
    size and of the quick (CI) size. meaning: one line, with its unit. low / high: the inclusive range of a
    number. choices: the allowed values, when a closed set. optional: None is allowed (means "look it up").
    """

    name: str
    type: type
    full: Any
    quick: Any
    meaning: str
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] | None = None
    optional: bool = False

    def accepts(self) -> str:
        """What the parameter accepts, in words."""
        if self.choices is not None:
            words = "one of " + ", ".join(map(repr, self.choices))
        else:
            words = _TYPE_WORDS[self.type]
            if self.low is not None and self.high is not None:
                words += f" in {_num(self.low)}..{_num(self.high)}"
            elif self.low is not None:
                words += f" ≥ {_num(self.low)}"
            elif self.high is not None:
                words += f" ≤ {_num(self.high)}"
        return words + (" or null" if self.optional else "")

    def is_valid(self, value: Any) -> bool:
        """Whether `value` is of the declared type, inside the range or choices (no conversion)."""
        if value is None:
            return self.optional
        if self.type is bool:
            return isinstance(value, bool)
        if self.type is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif self.type is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        else:
            ok = isinstance(value, self.type)
        if not ok:
            return False
        if self.choices is not None and value not in self.choices:
            return False
        if self.low is not None and value < self.low:
            return False
        return not (self.high is not None and value > self.high)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


#: The seed every study takes: a non-negative integer below 2**63 (what numpy and random accept on every platform).
SEED = Param(
    "seed",
    int,
    full=0,
    quick=0,
    meaning="random seed; a result depends only on (parameters, seed)",
    low=0,
    high=2**63 - 1,
)


class ParamSpec:
    """A study's declared parameters (plus the shared `seed`)."""

    def __init__(self, study: str, *params: Param):
        names = [p.name for p in params]
        if len(set(names)) != len(names) or "seed" in names:
            raise ValueError(f"study {study!r}: duplicate parameter names or a redeclared seed in {names}")
        self.study = study
        self.params: dict[str, Param] = {p.name: p for p in params}

    def __iter__(self) -> Iterator[Param]:
        return iter(self.params.values())

    @property
    def names(self) -> tuple[str, ...]:
        """The declared names (without seed), in declaration order."""
        return tuple(self.params)

    def get(self, name: str) -> Param:
        """The declared parameter (seed included); BadParameter listing the known names otherwise."""
        if name == "seed":
            return SEED
        try:
            return self.params[name]
        except KeyError:
            known = ", ".join((*self.params, "seed"))
            raise BadParameter(
                f"study {self.study!r} has no parameter {name!r}; its parameters are: {known} "
                f"(see `solvi-lab list --params {self.study}`)."
            ) from None

    def defaults(self, *, quick: bool) -> dict[str, Any]:
        """The declared defaults of the quick or full size (seed not included)."""
        return {p.name: (p.quick if quick else p.full) for p in self}

    def check_one(self, name: str, value: Any, *, typed: str | None = None) -> Any:
        """`value` if the parameter accepts it; BadParameter naming the parameter, the value and what it accepts.

        typed: the text the user typed, shown in the message instead of the converted value.
        """
        param = self.get(name)
        if not param.is_valid(value):
            shown = repr(value if typed is None else typed)
            if len(shown) > 60:
                shown = shown[:40] + f"… ({len(shown)} characters)"
            raise BadParameter(
                f"study {self.study!r}: parameter {name} got {shown}; it accepts {param.accepts()} ({param.meaning})."
            )
        return value

    def check(self, **values: Any) -> dict[str, Any]:
        """Check every given value (unknown names included); returns them unchanged."""
        return {name: self.check_one(name, value) for name, value in values.items()}

    def convert(self, name: str, text: str) -> Any:
        """A value typed on the command line → the declared type, checked (JSON where it parses, e.g. 50, true)."""
        param = self.get(name)
        value: Any = text
        if param.type is not str or text == "null":
            try:
                value = json.loads(text)
            except ValueError:  # not JSON, or an int of more digits than Python converts
                value = text
        if param.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value) if abs(value) < 2**1023 else value
        return self.check_one(name, value, typed=text)

    def table(self) -> str:
        """The declaration as a text table: name, type, quick, full, accepts, meaning."""
        rows = [("name", "type", "quick", "full", "accepts", "meaning")]
        for p in (*self, SEED):
            rows.append((p.name, p.type.__name__, repr(p.quick), repr(p.full), p.accepts(), p.meaning))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5] for r in rows]
        return "\n".join(line.rstrip() for line in lines)
