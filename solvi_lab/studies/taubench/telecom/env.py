"""The τ²-bench telecom environment: two toolkits on two databases, synced after every call.

``TelecomEnv.step(requestor, name, arguments)`` behaves as upstream's ``Environment.get_response`` followed by the
orchestrator's end-of-step sync (tools document §1, §1.4):

* ``requestor`` ``"assistant"`` calls the 13 CRM tools (:mod:`.crm`), ``"user"`` the 30 phone tools (:mod:`.phone`);
  a name the side does not have (including the other side's tools and the non-tool functions) is refused with
  ``Error: Tool '<name>' not found.``;
* the call, then :meth:`sync`, run inside one ``try``: any exception gives ``"Error: " + str(exception)`` and
  ``refused=True``; otherwise the text is the return value rendered by :func:`.model.to_json_str`;
* refused ⇔ the text starts with ``"Error: "``. ``grant_app_permission``'s own ``"Error. ..."`` texts are accepted.

``changed`` lists, per side (``"crm"``, ``"phone"``), the fields whose value differs after the call (paths such as
``lines.L1002.roaming_enabled``), so an accepted call that declines to act ("Roaming was already enabled") shows
as accepted with nothing changed, and a refused call that stored a bad value shows its partial write.

Initialisation actions and environment assertions (:meth:`run_function`) may name any tool or non-tool function of
their side; each is followed by a sync and its exceptions propagate, as upstream's. :meth:`reward` is upstream's
``ENV_ASSERTION`` component (and ``ACTION`` for the transfer tasks) over a finished episode.

>>> from solvi_lab.studies.taubench.telecom.model import TelecomDB, TelecomUserDB
>>> env = TelecomEnv(TelecomDB(), TelecomUserDB())
>>> env.step("assistant", "toggle_data", {}).observation
"Error: Tool 'toggle_data' not found."
>>> env.step("user", "toggle_data", {"x": 1}).observation
"Error: TelecomUserTools.toggle_data() got an unexpected keyword argument 'x'"
>>> r = env.step("user", "toggle_data", {}); r.refused, r.changed["phone"]["device.data_enabled"]
(False, False)
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ....errors import BadInput
from .crm import AGENT_FUNCTIONS, AGENT_TOOLS, AGENT_WRITING_TOOLS, TelecomTools
from .model import LineStatus, PaymentRequest, Record, TelecomDB, TelecomUserDB, clone, dump, to_json_str
from .phone import USER_FUNCTIONS, USER_TOOLS, USER_WRITING_TOOLS, TelecomUserTools

__all__ = ["SIDES", "TelecomEnv", "TelecomStep", "flatten", "replay_task", "task_reward"]

#: The two requestors, as upstream names them.
SIDES = ("assistant", "user")

# Arguments that collide with the dispatcher's own parameters (get_response → make_tool_call(tool_name, requestor)).
_REQUESTOR_CLASH = (
    "tau2.environment.environment.Environment.make_tool_call() got multiple values for keyword argument 'requestor'"
)


@dataclass(frozen=True, slots=True)
class TelecomStep:
    """What one tool call did: the observation text, whether it was refused, and the changed fields per side."""

    observation: str
    refused: bool
    changed: dict[str, dict[str, Any]]


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Leaf values of a database dump by path; list items named by their id field when they have one.

    >>> flatten({"lines": [{"line_id": "L1", "status": "Active"}], "n": {"a": 1}})
    {'lines.L1.line_id': 'L1', 'lines.L1.status': 'Active', 'n.a': 1}
    """
    out: dict[str, Any] = {}
    if isinstance(value, dict) and value:
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}{_key(key)}."))
    elif isinstance(value, list) and value:
        for i, item in enumerate(value):
            name = i
            if isinstance(item, dict):
                name = next((v for k, v in item.items() if k.endswith("_id") and isinstance(v, str)), i)
            out.update(flatten(item, f"{prefix}{name}."))
    else:
        out[prefix[:-1]] = value
    return out


def _canonical(value: Any) -> str:
    return json.dumps(dump(value), sort_keys=True, default=str)


class TelecomEnv:
    """The CRM and the phone plus both toolkits.

    crm, phone: the databases (the environment takes its own copies). seed: if given, the ids of Draft bills a
    refuel must create come from ``random.Random(seed)`` instead of upstream's ``uuid4`` (reproducible studies).
    """

    def __init__(self, crm: TelecomDB, phone: TelecomUserDB, seed: int | None = None) -> None:
        if not isinstance(crm, TelecomDB) or not isinstance(phone, TelecomUserDB):
            raise BadInput(
                "TelecomEnv needs a TelecomDB and a TelecomUserDB (from load_telecom(): data.crm, data.phone), "
                f"got {type(crm).__name__} and {type(phone).__name__}."
            )
        self.crm: TelecomDB = clone(crm)
        self.phone: TelecomUserDB = clone(phone)
        self._rng = random.Random(seed) if seed is not None else None
        self._bind()
        self.sync()  # upstream's Environment.__init__ syncs once

    @classmethod
    def from_data(cls, data: Any, seed: int | None = None) -> TelecomEnv:
        """An environment on the loaded data's databases (``load_telecom()``)."""
        return cls(data.crm, data.phone, seed=seed)

    def _bind(self) -> None:
        new_id = (lambda: f"B{self._rng.getrandbits(32):08x}") if self._rng is not None else None
        self.tools = TelecomTools(self.crm, new_bill_id=new_id)
        self.user_tools = TelecomUserTools(self.phone)

    def copy(self) -> TelecomEnv:
        """An independent environment with the current state (both databases copied)."""
        new = type(self).__new__(type(self))
        new.crm, new.phone = clone(self.crm), clone(self.phone)
        new._rng = None
        if self._rng is not None:
            new._rng = random.Random()
            new._rng.setstate(self._rng.getstate())
        new._bind()
        return new

    # --- the tool names ---------------------------------------------------------------------------------------

    @staticmethod
    def tool_names(requestor: str) -> tuple[str, ...]:
        """The tools of one side, in upstream's order."""
        if requestor not in SIDES:
            raise BadInput(f"requestor must be one of {list(SIDES)}, got {requestor!r}.")
        return AGENT_TOOLS if requestor == "assistant" else USER_TOOLS

    @staticmethod
    def writing_tools(requestor: str) -> frozenset[str]:
        """The tools upstream marks WRITE on one side (its evaluator replays only these)."""
        return AGENT_WRITING_TOOLS if requestor == "assistant" else USER_WRITING_TOOLS

    # --- calls ----------------------------------------------------------------------------------------------

    def _toolkit(self, requestor: str) -> Any:
        return self.tools if requestor == "assistant" else self.user_tools

    def _invoke(self, requestor: str, name: str, arguments: Mapping[str, Any]) -> Any:
        # Upstream binds make_tool_call(tool_name, requestor=..., **arguments) first, so these clash before dispatch.
        if "requestor" in arguments:
            raise TypeError(_REQUESTOR_CLASH)
        for key in arguments:
            if key in ("self", "tool_name"):
                raise TypeError(f"Environment.make_tool_call() got multiple values for argument '{key}'")
        if requestor not in SIDES:
            raise ValueError(f"Invalid requestor: {requestor}")
        if name not in self.tool_names(requestor):
            raise ValueError(f"Tool '{name}' not found.")
        result = getattr(self._toolkit(requestor), name)(**arguments)
        self.sync()
        return result

    def call(
        self, requestor: str, name: str, arguments: Mapping[str, Any] | None = None, changes: bool = True
    ) -> TelecomStep:
        """One tool call as upstream's ``get_response`` (no end-of-step sync after a refusal; see :meth:`step`)."""
        return self._call(requestor, name, arguments, end_sync=False, changes=changes)

    def step(
        self, requestor: str, name: str, arguments: Mapping[str, Any] | None = None, changes: bool = True
    ) -> TelecomStep:
        """One orchestrator step that is a tool call: ``get_response`` then the end-of-step sync.

        changes: compute ``TelecomStep.changed`` (False: empty dicts, a little faster). Raises BadInput only for
        calls upstream could not express (a non-string name, non-dict arguments, non-string argument names).
        """
        return self._call(requestor, name, arguments, end_sync=True, changes=changes)

    def probe(self, requestor: str, name: str, arguments: Mapping[str, Any] | None = None) -> TelecomStep:
        """:meth:`step` on a copy, this environment left as it was (the changes are read against it: one copy)."""
        trial = self.copy()
        result = trial._call(requestor, name, arguments, end_sync=True, changes=False)
        changed: dict[str, dict[str, Any]] = {"crm": {}, "phone": {}}
        _walk(self.crm, trial.crm, "", changed["crm"])
        _walk(self.phone, trial.phone, "", changed["phone"])
        return TelecomStep(result.observation, result.refused, changed)

    def _call(
        self, requestor: str, name: str, arguments: Mapping[str, Any] | None, end_sync: bool, changes: bool
    ) -> TelecomStep:
        if type(name) is not str:
            raise BadInput(f"step: the tool name must be a str, got {type(name).__name__} {name!r}.")
        if arguments is None:
            arguments = {}
        elif not isinstance(arguments, Mapping):
            raise BadInput(f"step({name!r}): arguments must be a dict, got {type(arguments).__name__}.")
        for key in arguments:
            if type(key) is not str:
                raise BadInput(f"step({name!r}): argument names must be strings, got {key!r}.")
        before = (clone(self.crm), clone(self.phone)) if changes else None
        try:
            observation = to_json_str(self._invoke(requestor, name, dict(arguments)))
            refused = False
        except Exception as e:  # upstream catches every exception and reports it as text
            observation, refused = f"Error: {e}", True
        if end_sync and refused:
            try:  # the orchestrator syncs after every step; an accepted call has just been synced
                self.sync()
            except Exception:  # noqa: BLE001 - only a phone number without a line raises, and it changes nothing
                pass
        changed = self._diff(before) if changes else {"crm": {}, "phone": {}}
        return TelecomStep(observation, refused, changed)

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Both databases as flat ``{path: value}`` maps (``{"crm": ..., "phone": ...}``)."""
        return {"crm": flatten(dump(self.crm)), "phone": flatten(dump(self.phone))}

    def _diff(self, before: Any) -> dict[str, dict[str, Any]]:
        # Walk old and new side by side; equal subtrees (most of them) are skipped at C speed.
        changed: dict[str, dict[str, Any]] = {"crm": {}, "phone": {}}
        crm, phone = before
        _walk(crm, self.crm, "", changed["crm"])
        _walk(phone, self.phone, "", changed["phone"])
        return changed

    # --- sync, initialisation, assertions -------------------------------------------------------------------

    def sync(self) -> None:
        """Copy line status, line roaming, usage vs allowance and payment requests across (tools document §4)."""
        s = self.phone.surroundings
        if s.phone_number is None:
            return
        line = self.tools._get_line_by_phone(s.phone_number)
        s.line_active = line.status == LineStatus.ACTIVE
        s.roaming_allowed = bool(line.roaming_enabled)
        plan = self.tools._get_plan_by_id(line.plan_id)
        s.mobile_data_usage_exceeded = bool(line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb)
        request = s.payment_request
        if request is not None and request.paid:
            self.tools._set_bill_to_paid(request.bill_id)
            s.payment_request = None
        if s.payment_request is None:
            # Requests follow the phone's owner, whichever customer the agent named.
            customer = self.tools.get_customer_by_phone(s.phone_number)
            awaiting = self.tools._get_bills_awaiting_payment(customer)
            if awaiting:
                s.payment_request = PaymentRequest(bill_id=awaiting[0].bill_id, amount_due=awaiting[0].total_due)

    def run_function(self, env_type: str, func_name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """An initialisation action or assertion: any tool or non-tool function of that side, then a sync.

        Exceptions propagate (a failed initialisation aborts the episode upstream).
        """
        if env_type not in SIDES:
            raise ValueError(f"Invalid environment type: {env_type}")
        allowed = (AGENT_TOOLS + AGENT_FUNCTIONS) if env_type == "assistant" else (USER_TOOLS + USER_FUNCTIONS)
        toolkit = self._toolkit(env_type)
        if func_name not in allowed:
            upstream_class = "TelecomTools" if env_type == "assistant" else "TelecomUserTools"
            raise AttributeError(f"'{upstream_class}' object has no attribute '{func_name}'")
        result = getattr(toolkit, func_name)(**dict(arguments or {}))
        self.sync()
        return result

    def initialise(self, task: Mapping[str, Any]) -> None:
        """Run a task's initialisation actions in order (each followed by a sync), then a final sync."""
        initial = task.get("initial_state") or {}
        if initial.get("initialization_data") is not None:
            raise BadInput(
                f"task {task.get('id')!r} has initialization_data, which no shipped telecom task has and upstream "
                "mishandles (it cross-wires the two toolkits' databases); this environment does not model it."
            )
        for action in initial.get("initialization_actions") or []:
            self.run_function(action["env_type"], action["func_name"], action.get("arguments") or {})
        self.sync()

    def check_assertions(self, task: Mapping[str, Any]) -> list[bool]:
        """Each of the task's environment assertions, run on this state (as upstream: a sync after each)."""
        out = []
        for assertion in (task.get("evaluation_criteria") or {}).get("env_assertions") or []:
            result = self.run_function(assertion["env_type"], assertion["func_name"], assertion.get("arguments") or {})
            if not isinstance(result, bool):
                raise ValueError(f"Function {assertion['func_name']} returned {type(result)} instead of bool")
            out.append(result == assertion.get("assert_value", True))
        return out

    def data_hash(self) -> str:
        """SHA-256 of both databases' canonical JSON (sorted keys); changes with every stored value."""
        text = _canonical({"crm": self.crm, "phone": self.phone})
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _key(name: Any) -> str:
    return name.value if isinstance(name, Enum) else str(name)


def _item_name(item: Any, index: int) -> Any:
    if isinstance(item, Record):
        for field, _kind, _default in item.FIELDS:
            if field.endswith("_id") and isinstance(getattr(item, field), str):
                return getattr(item, field)
    return index


def _walk(old: Any, new: Any, prefix: str, out: dict[str, Any]) -> None:
    """Record in ``out`` every leaf path whose value differs between ``old`` and ``new`` (None where removed)."""
    if type(old) is type(new) and old == new:
        return
    if type(old) is not type(new):
        old_leaves, new_leaves = flatten(dump(old), prefix), flatten(dump(new), prefix)
        # A leaf that became a record (None → VpnDetails) is not "removed": its fields are listed instead.
        grown = {path for path in old_leaves if any(p.startswith(path + ".") for p in new_leaves)}
        out.update({path: None for path in old_leaves if path not in new_leaves and path not in grown})
        out.update({path: v for path, v in new_leaves.items() if path not in old_leaves or old_leaves[path] != v})
        return
    if isinstance(new, Record):
        for field, _kind, _default in new.FIELDS:
            _walk(getattr(old, field), getattr(new, field), f"{prefix}{field}.", out)
    elif isinstance(new, dict) and (new or old):
        olds = {_key(k): v for k, v in old.items()}
        news = {_key(k): v for k, v in new.items()}
        for k, v in news.items():
            if k in olds:
                _walk(olds[k], v, f"{prefix}{k}.", out)
            else:
                out.update(flatten(dump(v), f"{prefix}{k}."))
        for k, v in olds.items():
            if k not in news:
                out.update(dict.fromkeys(flatten(dump(v), f"{prefix}{k}."), None))
    elif isinstance(new, list) and (new or old):
        olds = {_item_name(v, i): v for i, v in enumerate(old)}
        news = {_item_name(v, i): v for i, v in enumerate(new)}
        for k, v in news.items():
            if k in olds:
                _walk(olds[k], v, f"{prefix}{k}.", out)
            else:
                out.update(flatten(dump(v), f"{prefix}{k}."))
        for k, v in olds.items():
            if k not in news:
                out.update(dict.fromkeys(flatten(dump(v), f"{prefix}{k}."), None))
    elif old != new:
        out[prefix[:-1]] = new


def task_reward(task: Mapping[str, Any], final: TelecomEnv, calls: Sequence[tuple[str, str]]) -> float:
    """Upstream's reward for an episode that ended by a stop: the product of the basis' components.

    final: the environment after the episode (its assertions are run on a copy). calls: ``(requestor, name)`` of
    every tool call of the episode, refused or not: the ``ACTION`` component (transfer tasks) only asks that each
    gold action's name was called by either side (``compare_args: []``).
    """
    criteria = task.get("evaluation_criteria") or {}
    basis = criteria.get("reward_basis") or ["ENV_ASSERTION"]
    reward = 1.0
    if "ENV_ASSERTION" in basis:
        reward *= float(all(final.copy().check_assertions(task)))
    if "ACTION" in basis:
        names = {name for _side, name in calls}
        for action in criteria.get("actions") or []:
            if action.get("compare_args") != []:
                raise BadInput(
                    f"task {task.get('id')!r}: an ACTION check with compare_args {action.get('compare_args')!r} is "
                    "not modelled (every shipped telecom task uses []: the name alone)."
                )
            reward *= float(action["name"] in names)
    return reward


def replay_task(
    env: TelecomEnv, task: Mapping[str, Any], changes: bool = False
) -> tuple[TelecomEnv, list[TelecomStep]]:
    """A copy of ``env`` initialised for ``task`` with its gold actions applied as steps: (final env, step results)."""
    run = env.copy()
    run.initialise(task)
    steps = [
        run.step(action["requestor"], action["name"], action.get("arguments") or {}, changes=changes)
        for action in (task.get("evaluation_criteria") or {}).get("actions") or []
    ]
    return run, steps
