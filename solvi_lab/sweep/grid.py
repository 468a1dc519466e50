"""The points of a sweep: every combination of the swept parameters' values, times every seed.

>>> parse_seeds("0-3"), parse_seeds("7"), parse_seeds("1,4,9")
([0, 1, 2, 3], [7], [1, 4, 9])
>>> from solvi_lab.studies import registry
>>> parse_grid(["streams=1,2"], registry.spec("risk_dungeon"))
{'streams': [1, 2]}
>>> [p.seed for p in points("risk_dungeon", quick=True, grid={"streams": [1, 2]}, seeds=[0, 1])]
[0, 1, 0, 1]
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from typing import Any

from ..errors import BadParameter
from ..studies import registry
from ..studies.params import SEED, ParamSpec

MAX_POINTS = 1_000_000


@dataclass(frozen=True)
class Point:
    """One run of a study: its full parameters (declared defaults for the mode, then the swept values) and seed."""

    study: str
    params: tuple[tuple[str, Any], ...]
    seed: int
    quick: bool

    @property
    def id(self) -> str:
        """A stable id from (study, parameters, seed, mode): the file name of its row, the key of its Dask task."""
        text = json.dumps([self.study, list(self.params), self.seed, self.quick], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:20]

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)


def parse_seeds(text: str) -> list[int]:
    """`0-19`, `5`, or `1,4,9` (ranges may be mixed: `0-4,10`) → the seeds, each checked like `seed`."""
    seeds: list[int] = []
    backwards: tuple[int, int] | None = None
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                low, _, high = part.partition("-")
                a, b = int(low), int(high)
                if b < a:
                    backwards = (a, b)
                    break
                if b - a >= MAX_POINTS:
                    raise ValueError
                seeds.extend(range(a, b + 1))
            else:
                seeds.append(int(part))
    except ValueError:
        raise BadParameter(
            f"--seeds {text[:40]!r}: give a range `0-19`, a seed `5`, or a list `1,4,9` of integers in "
            f"0..{2**63 - 1} (a range at most {MAX_POINTS:,} long)."
        ) from None
    if backwards is not None:
        a, b = backwards
        raise BadParameter(f"--seeds {text[:40]!r}: the range {a}-{b} runs backwards ({a} > {b}); write {b}-{a}.")
    for s in seeds:
        if not SEED.is_valid(s):
            raise BadParameter(f"--seeds {text[:40]!r}: seed {s} is outside 0..{2**63 - 1}.")
    if len(set(seeds)) != len(seeds):
        raise BadParameter(f"--seeds {text[:40]!r} names a seed twice; each point must run once.")
    return seeds


def parse_grid(items: list[str] | None, spec: ParamSpec) -> dict[str, list[Any]]:
    """`["games=9,30", "streams=2"]` → `{"games": [9, 30], "streams": [2]}`, each value checked by the declaration."""
    grid: dict[str, list[Any]] = {}
    for item in items or []:
        name, sep, values = item.partition("=")
        name = name.strip()
        if not sep or not values:
            raise BadParameter(f"-p {item!r}: write NAME=V1,V2,... (e.g. -p streams=2,4).")
        if name in ("seed", "quick", "results_dir"):
            raise BadParameter(f"-p {name}: the sweep sets it (use --seeds and --quick).")
        if name in grid:
            raise BadParameter(f"-p {name} is given twice; list all its values in one -p {name}=V1,V2.")
        converted = [spec.convert(name, v.strip()) for v in values.split(",")]
        if len({json.dumps(v) for v in converted}) != len(converted):
            raise BadParameter(f"-p {item!r} lists a value twice.")
        grid[name] = converted
    return grid


def points(study: str, *, quick: bool, grid: dict[str, list[Any]], seeds: list[int]) -> list[Point]:
    """Every (combination of the grid's values) × seed, with the other parameters at the declared default."""
    spec = registry.spec(study)
    base = spec.defaults(quick=quick)
    names = list(grid)
    combos = list(itertools.product(*(grid[n] for n in names))) or [()]
    if len(combos) * len(seeds) > MAX_POINTS:
        raise BadParameter(f"the sweep has {len(combos) * len(seeds):,} points; at most {MAX_POINTS:,}.")
    out = []
    for combo in combos:
        params = {**base, **dict(zip(names, combo))}
        spec.check(**params)
        for seed in seeds:
            out.append(Point(study, tuple(params.items()), seed, quick))
    return out
