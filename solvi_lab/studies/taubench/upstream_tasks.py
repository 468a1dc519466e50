"""Read an upstream τ-bench checkout into the plain-JSON layout, without running any of it.

Upstream keeps its retail tasks as Python source (``tasks_train.py`` and friends build
``Task(...)``/``Action(...)`` objects) and its tool schemas as the return value of each tool
class's ``get_info()``. Importing those modules would execute third-party code and pull in
upstream's dependencies, so this module *parses* them with :mod:`ast` and only ever evaluates
literals (:func:`ast.literal_eval`). Anything that is not a literal is refused with
:class:`~solvi_lab.errors.BadInput` instead of being run.

The output matches the exported layout in ``shared/data/taubench-retail``: one list per split
whose element ``i`` is ``{"index": i, "user_id", "instruction", "actions": [{"name", "kwargs"}],
"outputs"}`` (upstream's ``annotator`` label is dropped, as upstream's own ``Task`` type drops it).

>>> src = '''
... TASKS_X = [Task(annotator="a", user_id="u1", instruction="hi",
...                 actions=[Action(name="think", kwargs={"thought": "x"})], outputs=[])]
... '''
>>> parse_tasks_source(src)[0]["actions"]
[{'name': 'think', 'kwargs': {'thought': 'x'}}]
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path
from typing import Any

from solvi_lab.errors import BadInput, DataMissing

__all__ = [
    "SPLITS",
    "retail_dir_of",
    "parse_tasks_source",
    "convert_tasks_file",
    "load_upstream_tasks",
    "parse_tool_schemas",
    "export_checkout",
]

SPLITS: tuple[str, ...] = ("train", "test", "dev")

# Task fields upstream's pydantic ``Task`` requires; other keywords (``annotator``) are ignored
# exactly as pydantic's default ``extra="ignore"`` ignores them.
_TASK_FIELDS: tuple[str, ...] = ("user_id", "instruction", "actions", "outputs")


def retail_dir_of(root: str | Path) -> Path | None:
    """Return the ``tau_bench/envs/retail`` folder of an upstream checkout, or None.

    ``root`` may be the checkout root or the retail folder itself.

    >>> retail_dir_of("/nonexistent") is None
    True
    """
    root = Path(root)
    for candidate in (root / "tau_bench" / "envs" / "retail", root):
        if (candidate / "data" / "users.json").is_file() and (candidate / "tasks_test.py").is_file():
            return candidate
    return None


def _where(filename: str, node: ast.AST) -> str:
    return f"{filename}, line {getattr(node, 'lineno', '?')}"


def _literal(node: ast.AST, filename: str, what: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as e:
        raise BadInput(
            f"{_where(filename, node)}: {what} is not a plain literal ({e}); the converter only reads literals "
            "and never executes task files. Use an unmodified upstream tau-bench checkout."
        ) from None


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name):
            return node.func.id
        if isinstance(node.func, ast.Attribute):  # e.g. types.Task(...)
            return node.func.attr
    return None


def _keywords(call: ast.Call, filename: str, what: str) -> dict[str, ast.AST]:
    if call.args:
        raise BadInput(f"{_where(filename, call)}: {what}(...) has positional arguments; expected keywords only.")
    out: dict[str, ast.AST] = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise BadInput(f"{_where(filename, call)}: {what}(**...) cannot be read without executing code.")
        out[kw.arg] = kw.value
    return out


def _action(node: ast.AST, filename: str) -> dict[str, Any]:
    if _call_name(node) != "Action":
        raise BadInput(f"{_where(filename, node)}: expected Action(name=..., kwargs=...) in a task's actions list.")
    kws = _keywords(node, filename, "Action")
    missing = [k for k in ("name", "kwargs") if k not in kws]
    if missing:
        raise BadInput(f"{_where(filename, node)}: Action(...) lacks {missing}; upstream requires name and kwargs.")
    name = _literal(kws["name"], filename, "Action name")
    kwargs = _literal(kws["kwargs"], filename, "Action kwargs")
    if not isinstance(name, str) or not isinstance(kwargs, dict):
        raise BadInput(f"{_where(filename, node)}: Action name must be a string and kwargs a dict.")
    return {"name": name, "kwargs": kwargs}


def _task(node: ast.AST, index: int, filename: str) -> dict[str, Any]:
    if _call_name(node) != "Task":
        raise BadInput(f"{_where(filename, node)}: element {index} of the task list is not a Task(...) call.")
    kws = _keywords(node, filename, "Task")
    missing = [k for k in _TASK_FIELDS if k not in kws]
    if missing:
        raise BadInput(f"{_where(filename, node)}: Task {index} lacks {missing}; upstream's Task requires them.")
    actions_node = kws["actions"]
    if not isinstance(actions_node, ast.List | ast.Tuple):
        raise BadInput(f"{_where(filename, actions_node)}: Task {index} actions must be a list of Action(...) calls.")
    task = {
        "index": index,
        "user_id": _literal(kws["user_id"], filename, "Task user_id"),
        "instruction": _literal(kws["instruction"], filename, "Task instruction"),
        "actions": [_action(a, filename) for a in actions_node.elts],
        "outputs": list(_literal(kws["outputs"], filename, "Task outputs")),
    }
    return task


def parse_tasks_source(source: str, *, filename: str = "<tasks>", variable: str | None = None) -> list[dict[str, Any]]:
    """Parse the text of an upstream ``tasks_*.py`` into a list of task dicts (nothing is executed).

    The task list is the top-level assignment named ``variable`` (e.g. ``"TASKS_TEST"``) or, if
    not given, the only top-level assignment whose value is a list of ``Task(...)`` calls.

    >>> parse_tasks_source("T = [Task(user_id='u', instruction='i', actions=[], outputs=['7'])]")
    [{'index': 0, 'user_id': 'u', 'instruction': 'i', 'actions': [], 'outputs': ['7']}]
    """
    try:
        module = ast.parse(source, filename=filename)
    except SyntaxError as e:
        raise BadInput(f"{filename} is not valid Python ({e}); expected an upstream tau-bench tasks file.") from None
    candidates: list[tuple[str, ast.List]] = []
    for stmt in module.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target, value = stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            target, value = stmt.target.id, stmt.value
        else:
            continue
        if isinstance(value, ast.List) and (not value.elts or _call_name(value.elts[0]) == "Task"):
            candidates.append((target, value))
    if variable is not None:
        candidates = [c for c in candidates if c[0] == variable]
    if len(candidates) != 1:
        names = [c[0] for c in candidates]
        raise BadInput(
            f"{filename}: expected exactly one top-level list of Task(...) calls"
            f"{f' named {variable}' if variable else ''}, found {names or 'none'}."
        )
    return [_task(node, i, filename) for i, node in enumerate(candidates[0][1].elts)]


def convert_tasks_file(path: str | Path, *, variable: str | None = None) -> list[dict[str, Any]]:
    """Parse one upstream tasks file (see :func:`parse_tasks_source`)."""
    path = Path(path)
    if not path.is_file():
        raise DataMissing(f"{path} does not exist; expected an upstream tau-bench tasks file such as tasks_test.py.")
    return parse_tasks_source(path.read_text(encoding="utf-8"), filename=str(path), variable=variable)


def load_upstream_tasks(retail_dir: str | Path) -> dict[str, list[dict[str, Any]]]:
    """Tasks of all three splits from ``<checkout>/tau_bench/envs/retail`` (or the checkout root)."""
    found = retail_dir_of(retail_dir)
    if found is None:
        raise DataMissing(
            f"{retail_dir} is not an upstream tau-bench checkout (no tau_bench/envs/retail/data/users.json and "
            "tasks_test.py); clone https://github.com/sierra-research/tau-bench and pass its root."
        )
    return {s: convert_tasks_file(found / f"tasks_{s}.py", variable=f"TASKS_{s.upper()}") for s in SPLITS}


def _class_get_info(module_path: Path, class_name: str) -> dict[str, Any]:
    filename = str(module_path)
    tree = ast.parse(module_path.read_text(encoding="utf-8"), filename=filename)
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == class_name:
            for item in stmt.body:
                if isinstance(item, ast.FunctionDef) and item.name == "get_info":
                    returns = [n for n in ast.walk(item) if isinstance(n, ast.Return) and n.value is not None]
                    if len(returns) == 1:
                        info = _literal(returns[0].value, filename, f"{class_name}.get_info() return value")
                        if isinstance(info, dict):
                            return info
    raise BadInput(f"{filename}: found no class {class_name} with a get_info() that returns one dict literal.")


def parse_tool_schemas(retail_dir: str | Path) -> list[dict[str, Any]]:
    """The tool schemas (``get_info()`` of each class in ``ALL_TOOLS``, in that order), read by parsing.

    Reads ``tools/__init__.py`` for the ``ALL_TOOLS`` order and the ``from .module import Class``
    lines, then each module's ``get_info`` return literal.
    """
    found = retail_dir_of(retail_dir)
    base = (found if found is not None else Path(retail_dir)) / "tools"
    init = base / "__init__.py"
    if not init.is_file():
        raise DataMissing(f"{init} does not exist; expected an upstream tau-bench checkout with retail tools.")
    tree = ast.parse(init.read_text(encoding="utf-8"), filename=str(init))
    module_of: dict[str, str] = {}
    order: list[str] | None = None
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 1 and stmt.module:
            for alias in stmt.names:
                module_of[alias.asname or alias.name] = stmt.module
        elif isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "ALL_TOOLS" for t in stmt.targets
        ):
            if not isinstance(stmt.value, ast.List) or not all(isinstance(e, ast.Name) for e in stmt.value.elts):
                raise BadInput(f"{init}: ALL_TOOLS must be a list of class names.")
            order = [e.id for e in stmt.value.elts]  # type: ignore[attr-defined]
    if order is None:
        raise BadInput(f"{init}: no ALL_TOOLS list found; expected an upstream tau-bench checkout.")
    missing = [name for name in order if name not in module_of]
    if missing:
        raise BadInput(f"{init}: ALL_TOOLS names {missing} without a matching 'from .module import' line.")
    return [_class_get_info(base / f"{module_of[name]}.py", name) for name in order]


def export_checkout(checkout: str | Path, out_dir: str | Path) -> Path:
    """Write the plain-JSON layout (data, tasks, tools.json, policy.md) of a checkout into ``out_dir``.

    Useful to point ``SOLVI_LAB_TAUBENCH`` at a fast-loading copy. Never write it into the repo.
    """
    found = retail_dir_of(checkout)
    if found is None:
        raise DataMissing(f"{checkout} is not an upstream tau-bench checkout; clone sierra-research/tau-bench.")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("users.json", "orders.json", "products.json"):
        shutil.copyfile(found / "data" / name, out / name)
    for split, tasks in load_upstream_tasks(found).items():
        (out / f"tasks_{split}.json").write_text(json.dumps(tasks, indent=1), encoding="utf-8")
    (out / "tools.json").write_text(json.dumps(parse_tool_schemas(found), indent=1), encoding="utf-8")
    if (found / "wiki.md").is_file():
        shutil.copyfile(found / "wiki.md", out / "policy.md")
    return out
