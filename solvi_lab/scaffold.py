"""`solvi-lab new NAME`: a small pip-installable package holding one study, from the templates in
solvi_lab/templates/study/ (package data; `NAME` in a path and `{{NAME}}` / `{{TITLE}}` in a file are replaced).

What it writes (NAME = coin_bias):

    coin_bias/pyproject.toml            the entry point `coin_bias = "coin_bias.study"` (group solvi_lab.studies)
    coin_bias/coin_bias/study.py        PARAMS, a seeded run(), one claim and one finding
    coin_bias/coin_bias/coin_bias.ipynb a thin notebook with a papermill `parameters` cell
    coin_bias/coin_bias/coin_bias.pins.json  the metrics of the quick run, pinned (measured here, not typed)
    coin_bias/tests/test_coin_bias.py   the study's own tests and its notebook's pins (`solvi_pins`)
    coin_bias/conftest.py               its tests keep IPython's and matplotlib's state in the venv, not in ~
    coin_bias/.gitignore                results/, sweeps/, caches and build output

>>> import tempfile
>>> root = new_study("coin_bias", Path(tempfile.mkdtemp()))
>>> sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())[:3]
['.gitignore', 'README.md', 'coin_bias/__init__.py']
>>> new_study("Coin", root.parent)
Traceback (most recent call last):
...
solvi_lab.errors.BadInput: study name 'Coin': use lower-case letters, digits and _, starting with a letter (it names a Python package, a notebook and a results folder), e.g. coin_bias.
"""

from __future__ import annotations

import importlib.util
import json
import keyword
import re
import sys
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from .errors import BadInput
from .pins import is_timing, pin_for

TEMPLATE_PACKAGE = "solvi_lab.templates"
_NAME = re.compile(r"[a-z][a-z0-9_]*")
#: Template files stored without their leading dot (package data globs and some tools skip dot files).
_DOTFILES = {"gitignore": ".gitignore"}


def check_name(name: str) -> None:
    """BadInput unless `name` can be a package, a notebook stem and a study name, and is not already a study."""
    from .studies import registry

    if not _NAME.fullmatch(name) or keyword.iskeyword(name):
        raise BadInput(
            f"study name {name!r}: use lower-case letters, digits and _, starting with a letter (it names a Python "
            "package, a notebook and a results folder), e.g. coin_bias."
        )
    if name in registry.STUDIES:
        raise BadInput(
            f"study {name!r} already exists (package {registry.STUDIES[name].package!r}); pick another name."
        )
    if importlib.util.find_spec(name) is not None:
        raise BadInput(f"a Python module named {name!r} is already importable here; pick another name.")


def _templates() -> Traversable:
    return files(TEMPLATE_PACKAGE).joinpath("study")


def _walk(folder: Traversable, prefix: str = "") -> list[tuple[str, str]]:
    """(relative path, text) of every template file under `folder`."""
    out: list[tuple[str, str]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        rel = f"{prefix}{entry.name}"
        if entry.is_dir():
            out += _walk(entry, rel + "/")
        elif entry.name.endswith(".tmpl"):
            out.append((rel.removesuffix(".tmpl"), entry.read_text(encoding="utf-8")))
    return out


def new_study(name: str, where: Path | str = ".", *, title: str | None = None) -> Path:
    """Write the package for study `name` into `<where>/<name>/` and return that folder.

    Refuses (BadInput) a bad or taken name and an existing, non-empty target folder. The pins are the metrics of
    the new study's own quick run, computed here.
    """
    check_name(name)
    root = Path(where) / name
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise BadInput(f"{root} already exists and is not empty; give another --dir or remove it.")
    title = title or f"{name}: a study of a biased coin (replace with yours)"
    for rel, text in _walk(_templates()):
        head, _, base = rel.rpartition("/")
        rel = f"{head}/{_DOTFILES[base]}" if head and base in _DOTFILES else _DOTFILES.get(rel, rel)
        path = root / rel.replace("NAME", name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("{{NAME}}", name).replace("{{TITLE}}", title), encoding="utf-8")
    write_pins(root, name)
    return root


def write_pins(root: Path, name: str) -> Path:
    """Run the written study's `run()` at its quick defaults (seed 0) and pin every metric it records."""
    module_path = root / name / "study.py"
    spec = importlib.util.spec_from_file_location(f"_solvi_new_{name}", module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and the like look their module up while it executes
    try:
        spec.loader.exec_module(module)
        quick = {**module.PARAMS.defaults(quick=True), "seed": 0}
        result = module.run(**quick)
    finally:
        sys.modules.pop(spec.name, None)
    pins = {k: p for k, v in result.metrics.items() if not is_timing(k) and (p := pin_for(v)) is not None}
    data = {"study": name, "quick_params": quick, "metrics": pins}
    path = root / name / f"{name}.pins.json"
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def next_steps(root: Path, name: str) -> str:
    """What to type next, printed by `solvi-lab new`."""
    return (
        f"wrote {root}/ (study {name!r}). Next, in the environment where solvi_lab is installed "
        "(README's: `source .venv/bin/activate` in the solvi_lab checkout):\n"
        f"  pip install -e {root}          # registers it: solvi-lab list shows {name}\n"
        f"  solvi-lab run {name} --quick\n"
        f"  cd {root} && python -m pytest  # the study's tests and its notebook's pins\n"
        "See docs/readme/your_own_study.md."
    )
