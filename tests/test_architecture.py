"""The layering rule of docs/ARCHITECTURE.md ("Layers and who imports whom"), checked on the source.

Every module under solvi_lab/ is parsed with `ast`; every import of a solvi_lab module — at module level, inside
functions and methods, anywhere — must point to the importer's own layer or a lower one. Imports under
`if TYPE_CHECKING:` never run, but a type-only import that points up still ties a lower layer to a higher one (a
circle for readers and type checkers, issue 27), so it is checked the same way; only EXCEPTIONS are allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1] / "solvi_lab"

# Layers, lowest first. A module belongs to the layer of the longest prefix listed here.
LAYERS: dict[str, int] = {}
_LAYER_NAMES = [
    (
        "foundation",
        ["errors", "atomicfile", "validation", "lone_reads", "jsontext", "codehash", "checks", "prediction", "display"],
    ),
    ("journal", ["journal", "journal_head", "journal_head_index", "owner", "conformance"]),
    ("knowledge", ["knowledge"]),
    (
        "consumers",
        [
            "actions",
            "risk",
            "agenda",
            "failures",
            "episodes",
            "worldmap",
            "evidence",
            "decisions",
            "experimental",
        ],
    ),
    ("explore", ["explore"]),
    ("studies", ["studies"]),
    (
        "entry points",
        [
            "",
            "cli",
            "reproduce",
            "report",
            "sweep",
            "notebook",
            "machine",
            "journal_faults",
            "kernel",
            "progress",
            "browsercheck",
        ],
    ),
]
for _rank, (_name, _prefixes) in enumerate(_LAYER_NAMES):
    for _prefix in _prefixes:
        LAYERS[_prefix] = _rank
LAYER_NAME = {rank: name for rank, (name, _) in enumerate(_LAYER_NAMES)}

# Known imports that point up the layers, each with its reason. Keys: (importer, imported).
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("knowledge.store", "decisions"): "the store records its decisions through DecisionLog (issue 14 notes it)",
    ("knowledge.redecide", "decisions"): "re-deciding reads and writes DecisionLog records for the store",
    ("knowledge.episodes", "episodes"): "the specification's import path knowledge.episodes (re-export)",
    ("knowledge.worldmap", "worldmap"): "the specification's import path knowledge.worldmap (re-export)",
}

# What explore/ may read of the knowledge package at run time: the view and the vocabulary, never the store.
EXPLORE_MAY_READ = {"knowledge.view", "knowledge.items"}


def module_name(path: Path) -> str:
    """'knowledge/store.py' -> 'knowledge.store'; a package's __init__ is the package ('' for solvi_lab)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    """The layer of a module (relative to solvi_lab), by the longest listed prefix."""
    parts = module.split(".") if module else []
    for n in range(len(parts), -1, -1):
        prefix = ".".join(parts[:n])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise AssertionError(f"module solvi_lab.{module} belongs to no layer: add it to LAYERS in this test")


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the import nodes under `if TYPE_CHECKING:` (annotations only)."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                for stmt in node.body:
                    for inner in ast.walk(stmt):
                        guarded.add(id(inner))
    return guarded


def imports_of(path: Path) -> list[tuple[str, int, bool]]:
    """(imported module relative to solvi_lab, line, under TYPE_CHECKING) for every solvi_lab import in a file."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    guarded = _type_checking_nodes(tree)
    found: list[tuple[str, int, bool]] = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ["solvi_lab"] + (package.split(".") if package else [])
                base = base[: len(base) - (node.level - 1)]
                full = ".".join(base + ([node.module] if node.module else []))
            else:
                full = node.module or ""
            # `from . import x` (or `from solvi_lab.pkg import x`) may name a submodule: count it as that module
            # when it is one (importing it runs the package's __init__ first, which is no import of the package's).
            targets = [f"{full}.{a.name}" if _is_module(f"{full}.{a.name}") else full for a in node.names]
            if not node.module:
                targets = [f"{full}.{a.name}" for a in node.names]
        for target in targets:
            if target == "solvi_lab" or target.startswith("solvi_lab."):
                rel = target[len("solvi_lab.") :] if target != "solvi_lab" else ""
                rel = _existing_module(rel)
                found.append((rel, node.lineno, id(node) in guarded))
    return found


def _is_module(full: str) -> bool:
    """Whether the dotted name (solvi_lab....) is a module or package file."""
    if not full.startswith("solvi_lab."):
        return False
    candidate = ROOT.joinpath(*full.split(".")[1:])
    return candidate.with_suffix(".py").exists() or (candidate / "__init__.py").exists()


def _existing_module(rel: str) -> str:
    """The longest prefix of `rel` that is a module or package file (drops imported names like __version__)."""
    parts = rel.split(".") if rel else []
    for n in range(len(parts), 0, -1):
        candidate = ROOT.joinpath(*parts[:n])
        if candidate.with_suffix(".py").exists() or (candidate / "__init__.py").exists():
            return ".".join(parts[:n])
    return ""


SOURCES = sorted(ROOT.rglob("*.py"))


def upward_imports() -> list[str]:
    """Every import that points up the layers — run-time and type-only (under TYPE_CHECKING) alike."""
    problems = []
    for path in SOURCES:
        importer = module_name(path)
        for imported, line, _type_only in imports_of(path):
            if (importer, imported) in EXCEPTIONS:
                continue
            if layer_of(imported) > layer_of(importer):
                problems.append(
                    f"solvi_lab/{path.relative_to(ROOT)}:{line}: {importer or 'solvi_lab'} "
                    f"({LAYER_NAME[layer_of(importer)]}) imports {imported or 'solvi_lab'} "
                    f"({LAYER_NAME[layer_of(imported)]})"
                )
    return problems


def test_every_module_belongs_to_a_layer():
    for path in SOURCES:
        layer_of(module_name(path))


def test_no_import_points_up_the_layers():
    assert upward_imports() == []


def test_every_listed_exception_still_exists():
    seen = {(module_name(p), imported) for p in SOURCES for imported, _, _ in imports_of(p)}
    stale = [pair for pair in EXCEPTIONS if pair not in seen]
    assert stale == []


def test_explore_reads_only_the_view_and_the_vocabulary():
    reads = {
        (module_name(p), imported)
        for p in SOURCES
        if module_name(p).startswith("explore")
        for imported, _, type_only in imports_of(p)
        if imported.startswith("knowledge") and not type_only
    }
    assert {imported for _, imported in reads} <= EXPLORE_MAY_READ


def test_the_knowledge_package_imports_nothing_of_explore_not_even_for_type_hints():
    found = [
        (module_name(p), imported, line, type_only)
        for p in SOURCES
        if module_name(p).startswith("knowledge")
        for imported, line, type_only in imports_of(p)
        if imported == "explore" or imported.startswith("explore.")
    ]
    assert found == []


@pytest.mark.parametrize(
    ("importer", "imported", "upward"),
    [
        ("journal", "knowledge.store", True),
        ("journal", "actions", True),
        ("knowledge.items", "risk", True),
        ("risk", "studies.dungeon", True),
        ("actions", "cli", True),
        ("knowledge.store", "reproduce", True),
        ("explore.frames", "report", True),
        ("studies.crafting", "sweep", True),
        ("studies.crafting", "actions", False),
        ("cli", "studies.registry", False),
        ("knowledge.view", "journal", False),
    ],
)
def test_layer_order_catches_an_upward_import(importer, imported, upward):
    assert (layer_of(imported) > layer_of(importer)) is upward


def test_a_planted_upward_import_is_found(tmp_path, monkeypatch):
    # A function-level import inside journal.py pointing at the knowledge layer must be reported.
    fake_root = tmp_path / "solvi_lab"
    fake_root.mkdir()
    (fake_root / "__init__.py").write_text("")
    (fake_root / "journal.py").write_text("def f():\n    from .knowledge import store\n    return store\n")
    (fake_root / "knowledge").mkdir()
    (fake_root / "knowledge" / "__init__.py").write_text("")
    (fake_root / "knowledge" / "store.py").write_text("")
    monkeypatch.setitem(globals(), "ROOT", fake_root)
    monkeypatch.setitem(globals(), "SOURCES", sorted(fake_root.rglob("*.py")))
    assert upward_imports() == ["solvi_lab/journal.py:2: journal (journal) imports knowledge.store (knowledge)"]


def test_a_planted_type_only_upward_import_is_found(tmp_path, monkeypatch):
    # An import under `if TYPE_CHECKING:` in the knowledge package pointing at explore/ must be reported too.
    fake_root = tmp_path / "solvi_lab"
    (fake_root / "knowledge").mkdir(parents=True)
    (fake_root / "explore").mkdir()
    for init in ("__init__.py", "knowledge/__init__.py", "explore/__init__.py", "explore/frames.py"):
        (fake_root / init).write_text("")
    (fake_root / "knowledge" / "store.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..explore.frames import x\n"
    )
    monkeypatch.setitem(globals(), "ROOT", fake_root)
    monkeypatch.setitem(globals(), "SOURCES", sorted(fake_root.rglob("*.py")))
    assert imports_of(fake_root / "knowledge" / "store.py") == [("explore.frames", 3, True)]
    assert upward_imports() == [
        "solvi_lab/knowledge/store.py:3: knowledge.store (knowledge) imports explore.frames (explore)"
    ]


def import_graph() -> nx.DiGraph:
    """Every solvi_lab module and every import between two of them — module level, inside functions, under
    `if TYPE_CHECKING:` alike — as a directed graph (importer -> imported; a package's own `__init__` importing
    its modules counts, a module importing its own package's `__init__` too)."""
    g = nx.DiGraph()
    for path in SOURCES:
        importer = module_name(path)
        g.add_node(importer)
        for imported, _line, _type_only in imports_of(path):
            if imported != importer:
                g.add_edge(importer, imported)
    return g


def import_circles(g: nx.DiGraph) -> list[list[str]]:
    """The import circles of `g`: each strongly connected set of modules (more than one), sorted."""
    return sorted(sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1)


def test_no_import_circle_anywhere_in_the_package():
    # Issue 41: no module reaches back to one that imports it, not even for a type hint or inside a function.
    assert import_circles(import_graph()) == []


def test_no_module_of_the_knowledge_package_imports_the_store_but_its_init():
    importers = sorted(
        {
            module_name(p)
            for p in SOURCES
            if module_name(p).startswith("knowledge")
            for imported, _, _ in imports_of(p)
            if imported == "knowledge.store"
        }
    )
    assert importers == ["knowledge"]


def test_a_planted_circle_is_found(tmp_path, monkeypatch):
    # A type-only import back from a rule module to the module that imports it is a circle.
    fake_root = tmp_path / "solvi_lab"
    (fake_root / "knowledge").mkdir(parents=True)
    (fake_root / "__init__.py").write_text("")
    (fake_root / "knowledge" / "__init__.py").write_text("")
    (fake_root / "knowledge" / "fold.py").write_text("from . import refold\n")
    (fake_root / "knowledge" / "refold.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .fold import Fold\n"
    )
    (fake_root / "knowledge" / "gates.py").write_text("def f():\n    from .fold import Fold\n")
    monkeypatch.setitem(globals(), "ROOT", fake_root)
    monkeypatch.setitem(globals(), "SOURCES", sorted(fake_root.rglob("*.py")))
    assert import_circles(import_graph()) == [["knowledge.fold", "knowledge.refold"]]
