"""The Crafter vocabulary, built from generic templates over what the agent sees — never from Crafter's rules.

The templates take only the *names* Crafter declares for its observation (its items with their maxima, its
materials; `crafter.constants.items` / `.materials`) and none of its rules (`collect`, `place`, `make` in
`data.yaml` are read only by :mod:`.requirements`, to grade what was learned):

=============================  ==========================================================  ===========
template                       predicates                                                  values
=============================  ==========================================================  ===========
inventory threshold            ``inv:<item>>=<k>`` for every item, k = 1 .. its maximum    True/False
material within a radius       ``near:<material>@<r>`` for every material, r = 1, 2, 3     True/False
faced cell                     ``faced:material``, ``faced:creature``                      a name
four neighbours                ``<dir>:material``, ``<dir>:creature`` (left/right/up/down)  a name
sleeping                       ``sleeping``                                                True/False
daylight (a distractor)        ``daylight`` rounded to 0.1                                 0.0 .. 1.0
=============================  ==========================================================  ===========

Energy is the inventory item ``energy``, so its thresholds ``inv:energy>=k`` cover it. "Within radius r" is the
square of side 2r+1 around the player (Chebyshev distance ≤ r, the player's own cell included); the model has to
find from evidence which radius a rule uses. ``do`` is one action per target (``do_tree``, ``do_cow``; see
:func:`.env.call_name`), so the faced target is the action's name and also its ``faced:*`` condition.

Ablations (:data:`ABLATIONS`) drop templates: ``no_r23`` keeps radius 1 only, ``no_neighbours`` drops the four
neighbours, ``one_radius`` keeps radius 2 only (a plausible radius that is not the one the rules use).

>>> v = vocabulary("full")
>>> len(v.names)
192
>>> "inv:wood>=9" in v.names and "near:table@3" in v.names and "left:material" in v.names
True
>>> sorted(set(vocabulary("one_radius").names) - set(vocabulary("no_r23").names))[:2]
['near:coal@2', 'near:diamond@2']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crafter import constants

from ...actions import Vocabulary
from ...errors import BadInput
from .env import DIRECTIONS, RADII

__all__ = ["ITEMS", "MATERIALS", "ABLATIONS", "vocabulary", "predicates"]

ITEMS: dict[str, int] = {name: int(info["max"]) for name, info in constants.items.items()}
MATERIALS: tuple[str, ...] = tuple(constants.materials)
ABLATIONS: dict[str, str] = {
    "full": "every template",
    "no_r23": "materials within radius 1 only",
    "no_neighbours": "without the four neighbours",
    "one_radius": "materials within radius 2 only",
}

Predicate = Callable[[Any, Any], Any]


def _threshold(item: str, k: int) -> Predicate:
    def inv_at_least(state: Any, args: Any) -> bool:
        return state.inventory[item] >= k

    return inv_at_least


def _near(material: str, radius: int) -> Predicate:
    def within(state: Any, args: Any) -> bool:
        return material in state.around[radius]

    return within


def _neighbour(direction: str, part: int) -> Predicate:
    def neighbour(state: Any, args: Any) -> str:
        return state.neighbours[direction][part]

    return neighbour


def _faced(part: int) -> Predicate:
    def faced(state: Any, args: Any) -> str:
        return state.faced[part]

    return faced


def _sleeping(state: Any, args: Any) -> bool:
    return state.sleeping


def _daylight(state: Any, args: Any) -> float:
    return round(state.daylight, 1)


def predicates(ablation: str = "full") -> dict[str, Predicate]:
    """The named predicates of one vocabulary variant (see :data:`ABLATIONS`)."""
    if ablation not in ABLATIONS:
        raise BadInput(f"unknown vocabulary ablation {ablation!r}; choose one of {', '.join(ABLATIONS)}.")
    radii = {"no_r23": (1,), "one_radius": (2,)}.get(ablation, RADII)
    out: dict[str, Predicate] = {}
    for item, top in ITEMS.items():
        for k in range(1, top + 1):
            out[f"inv:{item}>={k}"] = _threshold(item, k)
    for material in MATERIALS:
        for r in radii:
            out[f"near:{material}@{r}"] = _near(material, r)
    out["faced:material"] = _faced(0)
    out["faced:creature"] = _faced(1)
    if ablation != "no_neighbours":
        for d in DIRECTIONS:
            out[f"{d}:material"] = _neighbour(d, 0)
            out[f"{d}:creature"] = _neighbour(d, 1)
    out["sleeping"] = _sleeping
    out["daylight"] = _daylight
    return out


def vocabulary(ablation: str = "full") -> Vocabulary:
    """The vocabulary of one variant, every predicate applying to every call."""
    return Vocabulary(predicates(ablation))
