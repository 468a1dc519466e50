"""No module outside solvi_lab/knowledge/ reads the store's private fold state; the exploration package imports no
store internals (issue 14). A source scan: an attribute read such as `ks._fold._items` or `store._get(...)` outside the
knowledge package fails here with the file and line."""

from __future__ import annotations

import ast
from pathlib import Path

import solvi_lab

PACKAGE = Path(solvi_lab.__file__).parent
PRIVATE = {
    "_items",
    "_keys",
    "_dependents",
    "_successors",
    "_by_subject",
    "_flags",
    "_decision_info",
    "_retracted",
    "_get",
    "_premise_verdict",
    "_fold_record",
    "_key_of",
    "_live_item",
    "_write",
    "_catch_up",
}


def _private_reads(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno} .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in PRIVATE
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]


def test_no_module_outside_knowledge_reads_store_internals() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if (PACKAGE / "knowledge") in path.parents:
            continue
        found += _private_reads(path)
    assert found == []


def test_the_scan_catches_a_private_read() -> None:
    bad = PACKAGE / "knowledge" / "view.py"  # a file known to read the private state, as the view must
    assert any(r.endswith("._items") for r in _private_reads(bad))


def test_explore_imports_no_store_module_at_run_time() -> None:
    for path in sorted((PACKAGE / "explore").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        runtime = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        mods = [n.module or "" for n in runtime if isinstance(n, ast.ImportFrom)]
        assert not any(m.endswith("knowledge.store") or m == "store" for m in mods), (path, mods)
