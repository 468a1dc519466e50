"""What every τ-bench domain shares: the step contract, the copy-on-write tables, hashing, locating data.

A domain (retail, airline, ...) is a plug-in described by a :class:`Domain`: its table names, its tool classes
(each with a static ``invoke(data, **kwargs) -> str``), which tools write and which terminate, the module path
upstream's tools live under (for one exact error text), and where its data is looked for. Everything else —
``step`` with upstream's ``"Error: ..."`` rule, ``copy``, ``edit``, the changed records, the data hash, the gold
replay — is :class:`TableEnv`, written once.

>>> demo = Domain(name="demo", tables=("things",), tools={}, writing=frozenset(), terminate=frozenset(),
...               upstream_module="tau_bench.envs.demo.tools")
>>> class DemoEnv(TableEnv):
...     domain = demo
>>> env = DemoEnv({"things": {"a": {"n": 1}}})
>>> env.step("fly", {})
StepResult(observation='Unknown action fly', refused=True, changed={'things': {}})
>>> env.copy().state["things"]["a"]
{'n': 1}
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ...errors import BadInput, DataMissing, SolviLabError, UnknownId

__all__ = [
    "Domain",
    "StepCrashed",
    "StepResult",
    "TableEnv",
    "find_domain_dir",
    "plain_copy",
    "read_json",
    "record_hash",
    "replay_gold",
    "search_roots",
    "state_hash",
]


class StepCrashed(SolviLabError):
    """The call makes upstream's ``Env.step`` itself raise (a tool returned no text); nothing was changed."""


@dataclass(frozen=True)
class Domain:
    """The description of one τ-bench domain: enough for :class:`TableEnv` to run its tools.

    tables: the top-level tables, in the order ``StepResult.changed`` lists them.
    tools: tool name → class with a static ``invoke(data, **kwargs) -> str``, in upstream's order.
    writing / terminate: tool names that may change data / that end an episode.
    upstream_module: the package upstream's tool modules live in (``tau_bench.envs.<domain>.tools``): Python
        names it in the error for a call that passes an argument called ``data``.
    """

    name: str
    tables: tuple[str, ...]
    tools: Mapping[str, Any]
    writing: frozenset[str]
    terminate: frozenset[str]
    upstream_module: str
    extra: Mapping[str, Any] = field(default_factory=dict)

    def data_collision_message(self, tool: Any) -> str:
        """Upstream's text for a call with an argument named ``data`` (it collides with ``invoke(data=...)``)."""
        return f"{self.upstream_module}.{tool.name}.{tool.__name__}.invoke() got multiple values for keyword argument 'data'"


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one tool call did.

    ``observation``: the exact text upstream's environment returns.
    ``refused``: unknown tool, or the observation starts with ``"Error:"``.
    ``changed``: ``{table: {id: record}}`` for each record whose content (as upstream's data hash sees it: key
    order ignored, ``1`` vs ``1.0`` distinguished) differs after the call; the record is the live one
    (read-only) or None if it was removed.
    """

    observation: str
    refused: bool
    changed: dict[str, dict[str, Any]]


def plain_copy(value: Any) -> Any:
    """Structural copy of JSON-like data (dicts and lists copied, everything else shared).

    >>> a = {"x": [1, {"y": 2}]}; b = plain_copy(a); b["x"][1]["y"] = 3; a
    {'x': [1, {'y': 2}]}
    """
    kind = type(value)
    if kind is dict:
        return {k: plain_copy(v) for k, v in value.items()}
    if kind is list:
        return [plain_copy(v) for v in value]
    return value


def same_content(a: Any, b: Any) -> bool:
    """Equal as upstream's data hash sees it: dict key order ignored, but types must match (1 ≠ 1.0).

    >>> same_content({"a": 1, "b": 2}, {"b": 2, "a": 1}), same_content(1, 1.0)
    (True, False)
    """
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        if len(a) != len(b):
            return False
        for key, value in a.items():
            if key not in b or not same_content(value, b[key]):
                return False
        return True
    if kind is list:
        return len(a) == len(b) and all(same_content(x, y) for x, y in zip(a, b))
    return bool(a == b)


def record_hash(record: Any) -> str:
    """SHA-256 of a record's canonical JSON (sorted keys, compact; ``1`` and ``1.0`` differ).

    >>> record_hash({"b": 1, "a": 2}) == record_hash({"a": 2, "b": 1})
    True
    >>> record_hash({"a": 1}) == record_hash({"a": 1.0})
    False
    """
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _line(table: str, key: Any, digest: str) -> str:
    return f"{table}\t{json.dumps(key, default=repr)}\t{digest}"


def state_hash(state: Mapping[str, Mapping[str, Any]]) -> str:
    """Stable hash of a whole database ``{table: {id: record}}`` (every table of the mapping).

    Independent of dict order everywhere; sensitive to every value and type. Defined as the SHA-256 of the
    sorted lines ``table<TAB>json(key)<TAB>record_hash(record)``, so it can be computed record by record.

    >>> state_hash({"orders": {"#W1": {"a": 1}}, "users": {}, "products": {}})[:12]
    '1210157013b3'
    """
    lines = sorted(_line(table, key, record_hash(rec)) for table in state for key, rec in state[table].items())
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


class _Lineage:
    """Shared by an environment and all its copies: the initial records and their hash lines."""

    __slots__ = ("base", "lines")

    def __init__(self, tables: dict[str, dict[str, Any]]):
        self.base = {table: dict(records) for table, records in tables.items()}
        self.lines: dict[str, dict[Any, str]] | None = None  # computed on the first data_hash()

    def base_lines(self) -> dict[str, dict[Any, str]]:
        if self.lines is None:
            self.lines = {
                table: {key: _line(table, key, record_hash(rec)) for key, rec in records.items()}
                for table, records in self.base.items()
            }
        return self.lines


class Database:
    """The tables one environment sees (also as attributes: ``db.orders``), and this step's written records."""

    def __init__(self, tables: dict[str, dict[str, Any]]):
        self.tables = tables
        for name, records in tables.items():
            setattr(self, name, records)
        # (table, key) -> the record as it was before this step's first write to it.
        self.touched: dict[tuple[str, Any], Any] = {}

    def writable(self, table: str, key: Any) -> dict[str, Any]:
        """This environment's private copy of a record, installed on first write in a step."""
        records = self.tables[table]
        if (table, key) in self.touched:
            return records[key]
        old = records[key]  # KeyError(key) here reads exactly like upstream's failed lookup
        new = plain_copy(old)
        records[key] = new
        self.touched[(table, key)] = old
        return new

    def create(self, table: str, key: Any, record: dict[str, Any]) -> None:
        """Install a new (or replacing) record written by this step."""
        records = self.tables[table]
        if (table, key) not in self.touched:
            self.touched[(table, key)] = records.get(key)
        records[key] = record


def _deep_copy_tables(source: Any, tables: Sequence[str], owner: str) -> dict[str, dict[str, Any]]:
    if isinstance(source, Mapping) and all(t in source for t in tables):
        chosen = {t: source[t] for t in tables}
    elif all(hasattr(source, t) for t in tables):
        chosen = {t: getattr(source, t) for t in tables}
    else:
        raise BadInput(
            f"{owner} needs the loaded data (an object with attributes {list(tables)}) or a mapping with keys "
            f"{list(tables)}, got {type(source).__name__}."
        )
    for table, records in chosen.items():
        if not isinstance(records, dict):
            raise BadInput(f"{owner}: table {table!r} must be a dict from id to record, got {type(records).__name__}.")
    try:  # pickle is the fastest full copy of a few MB of JSON-like data
        return pickle.loads(pickle.dumps(chosen, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:
        return {t: plain_copy(records) for t, records in chosen.items()}


class TableEnv:
    """A domain's database plus its tools, copy-on-write. Subclasses set ``domain``.

    Copy-on-write: each environment owns its top-level tables (dicts from id to record), but the *records* in
    them may be shared with copies; a writing tool gets a fresh copy of each record it writes
    (``data.writable``) and installs it in this environment only. So :meth:`copy` copies a few dicts, and a step
    costs the records it reads or writes. **Do not mutate records obtained from** ``state`` or ``changed``; use
    :meth:`edit` for hand-made states.
    """

    domain: ClassVar[Domain]

    def __init__(self, data: Any):
        tables = _deep_copy_tables(data, self.domain.tables, type(self).__name__)
        self._db = Database(tables)
        self._lineage = _Lineage(tables)

    @property
    def terminate_tools(self) -> frozenset[str]:
        """Names of the tools that end an episode."""
        return self.domain.terminate

    @property
    def state(self) -> dict[str, dict[str, Any]]:
        """The live tables. O(1). Read the records; change them only with :meth:`edit`."""
        return dict(self._db.tables)

    @property
    def tool_names(self) -> list[str]:
        """The tool names, in upstream's order."""
        return list(self.domain.tools)

    def _empty_changes(self) -> dict[str, dict[str, Any]]:
        return {table: {} for table in self.domain.tables}

    def step(self, name: str, kwargs: Mapping[str, Any] | None = None) -> StepResult:
        """Call tool ``name`` with keyword arguments ``kwargs``, as upstream's ``Env.step`` does.

        Raises BadInput only for calls upstream could not express (a non-string name, non-dict kwargs,
        non-string argument names, or ``respond``, which goes to the user simulator), and StepCrashed where
        upstream's step itself raises (a tool returned no text; nothing changed).
        """
        cls_name = type(self).__name__
        if type(name) is not str:
            raise BadInput(f"step: the tool name must be a str, got {type(name).__name__} {name!r}.")
        if kwargs is None:
            kwargs = {}
        elif not isinstance(kwargs, Mapping):
            raise BadInput(
                f"step({name!r}): kwargs must be a dict of argument name to value, got {type(kwargs).__name__}."
            )
        for key in kwargs:
            if type(key) is not str:
                raise BadInput(f"step({name!r}): argument names must be strings, got {key!r}.")
        tool = self.domain.tools.get(name)
        if tool is None:
            if name == "respond":
                raise BadInput(
                    "step('respond'): 'respond' sends text to the user simulator, it is not a tool; "
                    f"{cls_name} models only the data and the {len(self.domain.tools)} tools."
                )
            return StepResult(f"Unknown action {name}", True, self._empty_changes())
        db = self._db
        if "data" in kwargs:
            # Upstream passes the database as data=..., so this key collides before the call.
            observation = "Error: " + self.domain.data_collision_message(tool)
        else:
            try:
                observation = tool.invoke(db, **kwargs)
            except Exception as e:  # upstream catches every Exception and reports it as text
                observation = f"Error: {e}"
            if observation is None:
                self._undo()
                raise StepCrashed(
                    f"step({name!r}): the tool returned no text, so upstream's Env.step raises (pydantic "
                    "EnvResponse); nothing was changed. Do not make this call (for send_certificate: the user "
                    "already holds the three certificate ids the tool can issue)."
                )
            if type(observation) is not str:  # only possible for hand-built non-string values
                observation = str(observation)
        changed = self._empty_changes()
        if db.touched:
            tables = db.tables
            for (table, key), old in db.touched.items():
                new = tables[table].get(key)
                if not same_content(old, new):
                    changed[table][key] = new
            db.touched = {}
        return StepResult(observation, observation.startswith("Error:"), changed)

    def _undo(self) -> None:
        db = self._db
        for (table, key), old in db.touched.items():
            if old is None:
                db.tables[table].pop(key, None)
            else:
                db.tables[table][key] = old
        db.touched = {}

    def copy(self) -> TableEnv:
        """An independent environment with the current state. O(number of records), no record copied."""
        new = type(self).__new__(type(self))
        new._db = Database({table: records.copy() for table, records in self._db.tables.items()})
        new._lineage = self._lineage
        return new

    def edit(self, table: str, key: Any) -> dict[str, Any]:
        """A private, mutable copy of one record, installed in this environment only (for hand-made states)."""
        tables = self.domain.tables
        if table not in tables:
            raise BadInput(f"edit: table must be one of {list(tables)}, got {table!r}.")
        records = self._db.tables[table]
        if key not in records:
            raise UnknownId(f"edit: no record {key!r} in {table}; list the ids with env.state[{table!r}].keys().")
        records[key] = plain_copy(records[key])
        return records[key]

    def data_hash(self) -> str:
        """:func:`state_hash` of the current state, reusing the hashes of records never written."""
        base_lines = self._lineage.base_lines()
        base = self._lineage.base
        lines: list[str] = []
        for table in self.domain.tables:
            current, original, cached = self._db.tables[table], base[table], base_lines[table]
            for key, rec in current.items():
                if original.get(key) is rec:
                    lines.append(cached[key])
                else:
                    lines.append(_line(table, key, record_hash(rec)))
        lines.sort()
        return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def replay_gold(base: TableEnv, task: Mapping[str, Any]) -> tuple[TableEnv, list[StepResult]]:
    """Replay a task's gold actions in order on a copy of ``base``: the final environment and each step's result.

    >>> class E(TableEnv):
    ...     domain = Domain("e", ("t",), {}, frozenset(), frozenset(), "x")
    >>> env, results = replay_gold(E({"t": {}}), {"actions": [{"name": "nope", "kwargs": {}}]})
    >>> [r.refused for r in results]
    [True]
    """
    env = base.copy()
    results = [env.step(call["name"], call.get("kwargs", {})) for call in task.get("actions", [])]
    return env, results


# ---------------------------------------------------------------------------------------------------------------
# locating a domain's data
# ---------------------------------------------------------------------------------------------------------------


def search_roots() -> list[Path]:
    """Starting points of the upward search: the current directory and this package's folder."""
    return [Path.cwd(), Path(__file__).resolve().parent]


def read_json(path: Path, expect: type, how_to_get: str, source: str) -> Any:
    """The JSON value in ``path``, which must be an ``expect``; DataMissing (with ``how_to_get``) if absent.

    source: where a broken file should be copied from again (named in the error for invalid JSON).

    >>> read_json(Path("/nonexistent.json"), dict, "Get it.", "the export")
    Traceback (most recent call last):
    ...
    solvi_lab.errors.DataMissing: /nonexistent.json is missing. Get it.
    """
    try:
        with path.open(encoding="utf-8") as f:
            value = json.load(f)
    except FileNotFoundError:
        raise DataMissing(f"{path} is missing. {how_to_get}") from None
    except json.JSONDecodeError as e:
        raise BadInput(f"{path} is not valid JSON ({e}); re-copy it from {source}.") from None
    if not isinstance(value, expect):
        raise BadInput(f"{path} holds a {type(value).__name__}, expected a {expect.__name__}; is it the right file?")
    return value


def find_domain_dir(
    path: str | Path | None,
    env_var: str,
    shared: Path,
    accepts: Callable[[Path], bool],
    how_to_get: str,
    explain: Callable[[Path], str],
    what: str,
    roots: Sequence[Path] | None = None,
) -> Path:
    """The folder holding a domain's data: ``path``, else ``$env_var``, else ``shared`` beside an ancestor.

    accepts(directory): whether it holds the data; explain(directory): why not ("does not hold …"); roots: where
    the upward search starts (default: the current directory and this package). An explicit path (or variable)
    that does not hold the data is an error, never a silent fallback.

    >>> find_domain_dir("/nonexistent", "X", Path("shared"), lambda d: True, "Get it.", str, "demo")
    Traceback (most recent call last):
    ...
    solvi_lab.errors.DataMissing: path=/nonexistent does not exist. Get it.
    """
    roots = list(roots) if roots is not None else search_roots()
    for origin, given in (("path=", path), (f"{env_var}=", os.environ.get(env_var) if path is None else None)):
        if given is None or given == "":
            continue
        directory = Path(given).expanduser()
        if not directory.is_dir():
            raise DataMissing(f"{origin}{given} does not exist. {how_to_get}")
        if not accepts(directory):
            raise DataMissing(f"{origin}{given} {explain(directory)}. {how_to_get}")
        return directory.resolve()
    looked: list[str] = []
    for start in roots:
        for ancestor in (start, *start.parents):
            candidate = ancestor / shared
            if str(candidate) in looked:
                continue
            looked.append(str(candidate))
            if candidate.is_dir() and accepts(candidate):
                return candidate.resolve()
    raise DataMissing(
        f"τ-bench {what} data not found: {env_var} is not set and no {shared} exists above "
        f"{' or '.join(str(s) for s in roots)}. {how_to_get}"
    )


def find_dir_with_files(
    path: str | Path | None, env_var: str, shared: Path, files: Sequence[str], how_to_get: str, what: str
) -> Path:
    """:func:`find_domain_dir` for a domain whose data is a fixed set of ``files`` in one folder (airline, telecom).

    >>> find_dir_with_files("/", "X", Path("shared"), ("nothing-here.json",), "Get it.", "demo")
    Traceback (most recent call last):
    ...
    solvi_lab.errors.DataMissing: path=/ does not hold the demo data (missing: nothing-here.json). Get it.
    """

    def missing(directory: Path) -> list[str]:
        return [name for name in files if not (directory / name).is_file()]

    return find_domain_dir(
        path,
        env_var,
        shared,
        lambda d: not missing(d),
        how_to_get,
        lambda d: f"does not hold the {what} data (missing: {', '.join(missing(d))})",
        what,
    )
