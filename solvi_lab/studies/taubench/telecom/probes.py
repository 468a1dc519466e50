"""Probes around the gold steps of telecom tasks, on both sides, and the adapter the blind generator runs on.

A telecom task starts from its own initialisation (each task breaks the phone or the account its way), then walks
its gold actions, which interleave the agent's and the user's calls. At each gold step the state is frozen and the
gold call plus a seeded sample of variations run on copies of it, each with the side that would make it:

* ``swap <arg>``: an id argument swapped for every other id of its table (another customer's line, a bill of
  another customer, a suspended line, a nonexistent id), and malformed (lower case, padded, empty);
* ``amount``: a number argument at 0, negative, fractional, huge, as a string, as a boolean;
* ``enum``: the network modes, off-schema and mis-cased ones; app names and permissions, known and not;
* ``shape``: an argument dropped, an extra one, a misspelt one, a wrongly typed value;
* ``other tool``: every tool of both sides, made by the side that holds it, with arguments taken from the task's
  calls (the ids of John's account), so each side's reads and writes are probed in the states the other side's
  calls produce;
* ``other side``: the gold call made by the other side (refused as an unknown tool);
* ``chain repeat``: after a gold write, the same write again on the state it left.

Each probe is a :class:`TelecomTransition`: the state view before (both databases as plain dicts), the side, the
call, whether the environment accepted it, and whether it changed anything (an accepted call that changes nothing
is a soft refusal or a no-op, reported apart).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ....errors import BadParameter
from .crm import AGENT_TOOLS, AGENT_WRITING_TOOLS
from .env import TelecomEnv
from .model import dump
from .phone import USER_TOOLS, USER_WRITING_TOOLS

__all__ = [
    "DEFAULT_BUDGET",
    "SideEnv",
    "TelecomTransition",
    "blind_task",
    "side_of",
    "state_view",
    "task_probes",
    "tasks_probes",
]

#: Probe transitions per task, about (gold calls always kept).
DEFAULT_BUDGET = 80

_USER = frozenset(USER_TOOLS)


def side_of(tool: str) -> str:
    """The side whose toolkit holds ``tool`` (names are disjoint); unknown names count as the agent's."""
    return "user" if tool in _USER else "assistant"


def _plain(value: Any) -> Any:
    # Enums become their strings and dates ISO strings: the state a model reads is JSON.
    if isinstance(value, dict):
        return {(k.value if hasattr(k, "value") else k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "value") and isinstance(value, str):
        return value.value
    if hasattr(value, "isoformat"):  # dates and datetimes: conditions compare JSON values
        return value.isoformat()
    return value


def state_view(env: TelecomEnv) -> dict[str, Any]:
    """Both databases as plain read-only dicts: CRM tables keyed by id, plus ``device`` and ``surroundings``.

    >>> from solvi_lab.studies.taubench.telecom.model import TelecomDB, TelecomUserDB
    >>> sorted(state_view(TelecomEnv(TelecomDB(), TelecomUserDB())))
    ['bills', 'customers', 'device', 'devices', 'lines', 'plans', 'surroundings']
    """
    crm, phone = _plain(dump(env.crm)), _plain(dump(env.phone))
    keys = {
        "plans": "plan_id",
        "customers": "customer_id",
        "lines": "line_id",
        "bills": "bill_id",
        "devices": "device_id",
    }
    view: dict[str, Any] = {table: {rec[key]: rec for rec in crm[table]} for table, key in keys.items()}
    view["device"] = phone["device"]
    view["surroundings"] = phone["surroundings"]
    return view


@dataclass(frozen=True)
class TelecomTransition:
    """One probe: the state view before, the side and call, and what the environment did.

    ``changed``: the accepted call changed a stored value (False for soft refusals and no-ops). ``text``: the
    observation's first line, for reading results. Duck-compatible with :class:`..probing.Transition`.
    """

    task: int
    step: int
    state: Mapping[str, Any]
    side: str
    tool: str
    args: dict[str, Any]
    accepted: bool
    effect: dict[str, Any] | None
    origin: str
    changed: bool = False
    text: str = ""


class SideEnv:
    """A :class:`TelecomEnv` seen as one table-shaped environment: ``step(tool, args)`` dispatches each tool name to
    the side that holds it, ``state`` is the :func:`state_view`. What the blind generator runs on.
    """

    class _Domain:
        writing = AGENT_WRITING_TOOLS | USER_WRITING_TOOLS

    domain = _Domain()

    def __init__(self, env: TelecomEnv) -> None:
        self.env = env
        self._view: dict[str, Any] | None = None

    def copy(self) -> SideEnv:
        return SideEnv(self.env.copy())

    def step(self, tool: str, args: Mapping[str, Any]) -> Any:
        self._view = None
        return self.env.step(side_of(tool), tool, args, changes=False)  # the blind probes read only the verdict

    @property
    def state(self) -> dict[str, Any]:
        if self._view is None:
            self._view = state_view(self.env)
        return self._view


def _seed_for(seed: int, split: str, task_id: str) -> int:
    return int(hashlib.sha256(f"telecom/{seed}/{split}/{task_id}".encode()).hexdigest()[:16], 16)


_IDS = {
    "customer_id": ("C1001", "C1002", "C1003", "C1004", "C9999", "c1001", "C1001 ", ""),
    "line_id": ("L1001", "L1002", "L1003", "L1004", "L1009", "L9999", "l1002", ""),
    "bill_id": ("B1001", "B1002", "B1003", "B1005", "B1234321", "B9999", "b1002"),
    "id": ("C1001", "L1002", "B1003", "P1002", "D1001", "X1", "l1002", "L"),
    "phone_number": ("555-123-2002", "555-123-2005", "555-123-1002", "5551232002", "555-123-9999"),
    "app_name": ("messaging", "browser", "Messaging", "camera", ""),
    "permission": ("sms", "storage", "SMS", "network", "camera", ""),
    "mode": ("4g_5g_preferred", "4g_only", "3g_only", "2g_only", "5G", "4G_ONLY", ""),
}
_AMOUNTS = (0, -1, 0.5, 1, 2, 2.0, 3, 100, "2", True)
_WRONG_TYPES = (5, None, ["x"], {"x": 1}, True)
_APN = ({}, {"apn_name": "internet"}, {"apn_name": "broken"}, {"mmsc_url": None}, {"apn_name": "foo"}, "internet")


def _variations(
    tool: str, args: dict[str, Any], filler: Mapping[str, Any]
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    def w(**changes: Any) -> dict[str, Any]:
        out = json.loads(json.dumps(args))
        out.update(changes)
        return out

    for name, value in args.items():
        for alt in _IDS.get(name, ()):
            if alt != value:
                yield f"swap {name}", tool, w(**{name: alt})
        if name == "gb_amount":
            for alt in _AMOUNTS:
                yield "amount", tool, w(**{name: alt})
        if name == "apn_settings":
            for alt in _APN:
                yield "enum apn", tool, w(**{name: alt})
        for alt in _WRONG_TYPES:
            yield f"shape type {name}", tool, w(**{name: alt})
        yield f"shape missing {name}", tool, {k: v for k, v in args.items() if k != name}
        rest = {k: v for k, v in args.items() if k != name}
        yield f"shape misspelt {name}", tool, {**rest, name.replace("_", ""): value}
    yield "shape extra", tool, w(note="x")
    for other in AGENT_TOOLS + USER_TOOLS:  # both sides: each acts on states the other side's calls produced
        if other != tool:
            yield f"other tool {other}", other, _fill(other, filler)


_REQUIRED = {
    "get_customer_by_phone": ("phone_number",),
    "get_customer_by_id": ("customer_id",),
    "get_customer_by_name": ("full_name", "dob"),
    "get_details_by_id": ("id",),
    "suspend_line": ("customer_id", "line_id", "reason"),
    "resume_line": ("customer_id", "line_id"),
    "get_bills_for_customer": ("customer_id",),
    "send_payment_request": ("customer_id", "bill_id"),
    "get_data_usage": ("customer_id", "line_id"),
    "enable_roaming": ("customer_id", "line_id"),
    "disable_roaming": ("customer_id", "line_id"),
    "transfer_to_human_agents": ("summary",),
    "refuel_data": ("customer_id", "line_id", "gb_amount"),
    "set_network_mode_preference": ("mode",),
    "set_apn_settings": ("apn_settings",),
    "check_app_status": ("app_name",),
    "check_app_permissions": ("app_name",),
    "grant_app_permission": ("app_name", "permission"),
}
_DEFAULTS = {
    "phone_number": "555-123-2002",
    "customer_id": "C1001",
    "line_id": "L1002",
    "bill_id": "B1002",
    "id": "L1002",
    "full_name": "John Smith",
    "dob": "1985-06-15",
    "reason": "customer request",
    "summary": "the issue could not be fixed",
    "gb_amount": 2.0,
    "mode": "4g_5g_preferred",
    "apn_settings": {},
    "app_name": "messaging",
    "permission": "storage",
}


def _fill(tool: str, filler: Mapping[str, Any]) -> dict[str, Any]:
    return {name: json.loads(json.dumps(filler.get(name, _DEFAULTS[name]))) for name in _REQUIRED.get(tool, ())}


def _gold(task: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (a["requestor"], a["name"], dict(a.get("arguments") or {}))
        for a in (task.get("evaluation_criteria") or {}).get("actions") or []
    ]


def task_probes(
    base: TelecomEnv, task: Mapping[str, Any], index: int, budget: int, *, split: str, seed: int
) -> list[TelecomTransition]:
    """The probes of one task along its gold trajectory (the gold call first at each step)."""
    if budget < 1:
        raise BadParameter(f"budget must be a positive number of transitions per task, got {budget!r}.")
    rng = random.Random(_seed_for(seed, split, str(task["id"])))
    env = base.copy()
    env.initialise(task)
    gold = _gold(task)
    filler: dict[str, Any] = {}
    for _side, _name, args in gold:
        filler.update(args)
    per_step = max(2, budget // max(1, len(gold)))
    out: list[TelecomTransition] = []
    for k, (side, tool, args) in enumerate(gold):
        state = state_view(env)
        seen = {(tool, json.dumps(args, sort_keys=True))}
        cands = []
        for origin, t, kw in _variations(tool, args, filler):
            key = (t, json.dumps(kw, sort_keys=True, default=str))
            if key not in seen:
                seen.add(key)
                cands.append((origin, side_of(t), t, kw))
        other = "user" if side == "assistant" else "assistant"
        keep = cands if len(cands) <= per_step - 2 else rng.sample(cands, per_step - 2)
        for origin, s, t, kw in [("gold", side, tool, args), ("other side", other, tool, args), *keep]:
            result = env.probe(s, t, kw)
            changed = any(result.changed.values())
            first = result.observation.split("\n")[0][:160]
            out.append(TelecomTransition(index, k, state, s, t, kw, not result.refused, None, origin, changed, first))
        if tool in AGENT_WRITING_TOOLS | USER_WRITING_TOOLS:
            # the same write again on the state it left (a repeated request, an "already enabled")
            after = env.copy()
            after.step(side, tool, args, changes=False)
            result = after.probe(side, tool, args)
            out.append(
                TelecomTransition(index, k, state_view(after), side, tool, args, not result.refused, None,
                                  "chain repeat", any(result.changed.values()), result.observation.split("\n")[0][:160])
            )  # fmt: skip
        env.step(side, tool, args, changes=False)
    return out


def tasks_probes(
    base: TelecomEnv, tasks: Sequence[Mapping[str, Any]], budget: int = DEFAULT_BUDGET, *, split: str, seed: int = 0
) -> list[TelecomTransition]:
    """The probes of several tasks, in order (task index = position in ``tasks``)."""
    out: list[TelecomTransition] = []
    for i, task in enumerate(tasks):
        out.extend(task_probes(base, task, i, budget, split=split, seed=seed))
    return out


def blind_task(task: Mapping[str, Any], index: int) -> dict[str, Any]:
    """A telecom task in the shape the blind generator reads (``index``, ``actions`` of ``name``/``kwargs``)."""
    return {"index": index, "user_id": None, "actions": [{"name": n, "kwargs": a} for _s, n, a in _gold(task)]}
