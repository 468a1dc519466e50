"""The recorded GPT-4o airline runs, replayed on our environment: every call, our response, the recorded one.

Each run starts from fresh data; its tool calls are made in order (an accepted write changes what later calls
see), each paired with the message right after it (tool-call ids repeat within some runs, so never by id). A
response that differs from the recorded one is classified:

- ``address province→state``: the recorded ``get_user_details`` text equals ours once the user's address key
  ``state`` is renamed ``province`` (upstream renamed the key in 2025-01, after the runs were recorded);
- ``other``: anything else (none is expected; each would be a bug here or an undocumented data edit).

>>> parse_arguments('{"user_id": "u1"}')
{'user_id': 'u1'}
>>> parse_arguments("not json")
Traceback (most recent call last):
...
solvi_lab.errors.BadInput: a recorded tool call's arguments are not a JSON object: 'not json'
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ....errors import BadInput
from ..domain import StepCrashed
from .env import AirlineEnv

__all__ = ["AgentCall", "Run", "parse_arguments", "parse_runs", "replay_runs", "difference_cause"]


@dataclass(frozen=True)
class AgentCall:
    """One recorded tool call of a run, its recorded response, and (after replay) the state it was made in."""

    run: int  # position of the run in the file
    task: int
    trial: int
    position: int  # 0-based index of the call within its run
    tool: str
    args: dict[str, Any]
    recorded: str


@dataclass(frozen=True)
class Run:
    """A run's identity and its tool calls in order."""

    index: int
    task: int
    trial: int
    reward: float
    calls: tuple[AgentCall, ...]


def parse_arguments(text: Any) -> dict[str, Any]:
    """A recorded call's arguments (a JSON object in a string, as the function-calling API sends them)."""
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        raise BadInput(f"a recorded tool call's arguments are not a JSON object: {str(text)[:80]!r}")
    return value


def parse_runs(raw: list[Mapping[str, Any]]) -> list[Run]:
    """The runs of ``gpt-4o-airline.json``: each assistant tool call paired with the message right after it."""
    runs: list[Run] = []
    for index, run in enumerate(raw):
        messages = run["traj"]
        calls: list[AgentCall] = []
        for i, message in enumerate(messages):
            for call in message.get("tool_calls") or []:
                reply = messages[i + 1] if i + 1 < len(messages) else {}
                if reply.get("role") != "tool":
                    raise BadInput(
                        f"run {index} (task {run['task_id']}): a tool call is not followed by its tool response; "
                        "is this the gpt-4o-airline.json export?"
                    )
                fn = call["function"]
                calls.append(
                    AgentCall(
                        index,
                        int(run["task_id"]),
                        int(run["trial"]),
                        len(calls),
                        fn["name"],
                        parse_arguments(fn["arguments"]),
                        reply["content"],
                    )
                )
        runs.append(Run(index, int(run["task_id"]), int(run["trial"]), float(run["reward"]), tuple(calls)))
    return runs


def _rename_state(text: str) -> str | None:
    """Our user text with the address key ``state`` renamed ``province`` (None if not a user record)."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("address"), dict) or "state" not in record["address"]:
        return None
    record["address"] = {("province" if k == "state" else k): v for k, v in record["address"].items()}
    return json.dumps(record)


def difference_cause(tool: str, ours: str, recorded: str) -> str:
    """Why our response differs from the recorded one ("" when they are equal).

    >>> difference_cause("think", "", "")
    ''
    >>> ours = '{"address": {"city": "Austin", "state": "TX"}}'
    >>> difference_cause("get_user_details", ours, '{"address": {"city": "Austin", "province": "TX"}}')
    'address province→state'
    >>> difference_cause("think", "a", "b")
    'other'
    """
    if ours == recorded:
        return ""
    if tool == "get_user_details" and _rename_state(ours) == recorded:
        return "address province→state"
    return "other"


@dataclass(frozen=True)
class Replayed:
    """A call replayed: the state before it (read-only tables), our verdict and text, and the comparison."""

    call: AgentCall
    state: Mapping[str, Any]
    refused: bool
    observation: str
    cause: str  # "" when equal to the recording
    write: bool


def replay_runs(base: AirlineEnv, runs: list[Run]) -> Iterator[Replayed]:
    """Replay each run on a fresh copy of ``base``, yielding every call with the state it was made in."""
    writing = base.domain.writing
    for run in runs:
        env = base.copy()
        for call in run.calls:
            state = env.copy().state  # frozen: records are never mutated, and this copy's tables never change
            try:
                result = env.step(call.tool, dict(call.args))
                observation, refused = result.observation, result.refused
            except StepCrashed as e:  # recorded runs cannot contain these (upstream's step would have raised)
                observation, refused = f"<step raised: {e}>", True
            yield Replayed(
                call,
                state,
                refused,
                observation,
                difference_cause(call.tool, observation, call.recorded),
                call.tool in writing,
            )
