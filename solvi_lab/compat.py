"""Old names that keep working after the exploration code left the knowledge package (issues 14 and 27).

Its one job: keep the store's exploration conveniences and their old import paths alive without the knowledge
package importing `explore/` (not even for type hints: docs/ARCHITECTURE.md, "Layers and who imports whom").
It sits at the top layer, so it may import both; `solvi_lab/__init__.py` imports it, which runs before any
`solvi_lab.knowledge` module is imported, so the names are always there.

- `ks.frame()`, `ks.diff(a, b)`, `ks.graph(around, depth)`: deprecated aliases of `explore.store_frame(ks)`,
  `explore.diff(ks, a, b)` and `explore.graph(ks, around=, depth=)` (a DeprecationWarning says which).
- `solvi_lab.knowledge.frames`, `.graph`, `.timetravel`: the modules `solvi_lab.explore.frames`, `.graph`,
  `.timetravel` under their old names (imported only when asked for, so polars and networkx load only then).

>>> import warnings
>>> from solvi_lab.knowledge import KnowledgeStore
>>> from solvi_lab.knowledge.frames import store_frame
>>> ks = KnowledgeStore(); _ = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
>>> with warnings.catch_warnings(record=True) as w:
...     warnings.simplefilter("always")
...     ks.frame().equals(store_frame(ks)), str(w[0].message)
(True, 'ks.frame() is solvi_lab.explore.store_frame(ks); call that instead.')
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType
from typing import Any

from .knowledge.store import KnowledgeStore
from .validation import public_calls

# Old module path -> the module it names now.
MOVED = {
    "solvi_lab.knowledge.frames": "solvi_lab.explore.frames",
    "solvi_lab.knowledge.graph": "solvi_lab.explore.graph",
    "solvi_lab.knowledge.timetravel": "solvi_lab.explore.timetravel",
}


class _OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module path as the module it names now (the same module object, not a copy)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec: Any) -> ModuleType:
        module = importlib.import_module(MOVED[spec.name])
        self._specs = getattr(self, "_specs", {})
        self._specs[spec.name] = module.__spec__  # the import system sets __spec__ to the old name's: put it back
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (the module was imported under its own name); its own __spec__ goes back."""
        for name, spec in list(getattr(self, "_specs", {}).items()):
            if spec is not None and spec.name == module.__name__:
                module.__spec__ = spec
                del self._specs[name]


if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
    sys.meta_path.insert(0, _OldPaths())


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"{old} is {new}; call that instead.", DeprecationWarning, stacklevel=4
    )  # 4: past the bad-input net public_calls puts around the alias


def frame(self: KnowledgeStore) -> Any:
    """One row per item (polars): deprecated alias of `solvi_lab.explore.store_frame(ks)`."""
    _deprecated("ks.frame()", "solvi_lab.explore.store_frame(ks)")
    from .explore.frames import store_frame

    return store_frame(self)


def diff(self: KnowledgeStore, a: int, b: int | None = None) -> Any:
    """What changed status between journal positions a and b (polars): deprecated alias of
    `solvi_lab.explore.diff(ks, a, b)`."""
    _deprecated("ks.diff(a, b)", "solvi_lab.explore.diff(ks, a, b)")
    from .explore.timetravel import diff as _diff

    return _diff(self, a, b)


def graph(self: KnowledgeStore, around: str | None = None, depth: int = 2, **kw: Any) -> Any:
    """Premise edges and same-key competition around an item (networkx): deprecated alias of
    `solvi_lab.explore.graph(ks, around=, depth=)`."""
    _deprecated("ks.graph(...)", "solvi_lab.explore.graph(ks, around=..., depth=...)")
    from .explore.graph import graph as _graph

    return _graph(self, around=around, depth=depth, **kw)


KnowledgeStore.frame = frame  # type: ignore[attr-defined]
KnowledgeStore.diff = diff  # type: ignore[attr-defined]
KnowledgeStore.graph = graph  # type: ignore[attr-defined]
# The aliases get the same bad-input net as the store's own calls (public_calls skips the ones it already wraps).
public_calls(KnowledgeStore)
