"""The studies solvi_lab knows: one registry, filled from one place — the entry-point group `solvi_lab.studies`.

Every study, built in or from another installed package, is an entry point `NAME = "module"`. solvi_lab's own are
in its pyproject.toml (read from the checkout's pyproject.toml when the package runs from a source tree, so a stale
install's metadata never hides a study); a researcher's package declares its own the same way
(`solvi-lab new NAME` writes one; see docs/readme/your_own_study.md). The module exposes

- `PARAMS`: its parameters, declared once (`solvi_lab.studies.params.ParamSpec`): name, type, full and quick
  default, allowed range or choices, one line of meaning. `seed` is shared by every study and not redeclared.
- `run(**params) -> StudyResult`, which starts with `PARAMS.check(name=value, ..., seed=seed)`;
- `TITLE` (one line for `solvi-lab list` and the report; default: the first line of its docstring), optionally
  `DESCRIPTION` and `NEEDS_DATA = True` (its package then has a sibling module `data` with `find_data_dir()`,
  which raises `DataMissing` saying how to get the data);

and a notebook whose first code cell is tagged `parameters` and lists exactly the declared names plus `quick`,
`seed`, `results_dir` (tests/test_study_params.py fails when they differ):

    from solvi_lab.studies.params import quick_from_env

    quick = quick_from_env()  # SOLVI_LAB_QUICK=1 (CI, nbval) selects the quick sizes; papermill overrides
    seed = 0
    results_dir = "results"
    streams = None            # one line per declared parameter (here risk_dungeon's); None = the mode's default
    games = None

and which then passes every one on: `params_for("risk_dungeon", quick=quick, seed=seed, streams=streams, games=games)`.
Where the notebook and its metric pins live: a built-in study's at `notebooks/<name>.ipynb` and
`data/expected/<name>.json` of the checkout (`repo_root()`); a plug-in's beside its module, shipped as package data:
`<module folder>/<name>.ipynb` and `<module folder>/<name>.pins.json`.

To add a built-in study: write the module and the notebook, then add one line `NAME = "solvi_lab.studies.MODULE"`
under `[project.entry-points."solvi_lab.studies"]` in pyproject.toml (its place there is its place in the report).

A plug-in that cannot be used (its module does not import, has no `run`, or its `PARAMS` is not a ParamSpec of that
name) is reported in one line naming its package and what is wrong (`problem(name)`, `solvi-lab list`); the
other studies still run.

>>> get("example").notebook
'notebooks/example.ipynb'
>>> params_for("example", quick=True, seed=3)
{'n_samples': 2000, 'seed': 3}
>>> params_for("example", quick=False, n_samples=10, seed=None)
{'n_samples': 10}
>>> params_for("example", quick=True, n_worlds=3)
Traceback (most recent call last):
...
solvi_lab.errors.BadParameter: study 'example' has no parameter 'n_worlds'; its parameters are: n_samples, seed (see `solvi-lab list --params example`).
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from ..errors import BadInput, DataMissing, SolviLabError
from .params import ParamSpec

# The checkout this package was imported from: notebooks/ and data/expected/ live beside solvi_lab/. An installed
# wheel has no notebooks there: point SOLVI_LAB_REPO at a checkout (see repo_root()).
REPO_ROOT = Path(__file__).resolve().parents[2]
REPO_ENV = "SOLVI_LAB_REPO"


def repo_root() -> Path:
    """The checkout whose notebooks/ and data/expected/ the studies use: $SOLVI_LAB_REPO when set, else the
    directory above the imported solvi_lab package (a source checkout).

    Raises SolviLabError when that directory has no notebooks/ folder (an installed wheel, a wrong path).

    >>> (repo_root() / "notebooks").is_dir()
    True
    """
    env = os.environ.get(REPO_ENV)
    root = Path(env).expanduser().resolve() if env else REPO_ROOT
    if not (root / "notebooks").is_dir():
        where = f"${REPO_ENV}={env}" if env else f"{root} (the directory above the installed solvi_lab package)"
        raise SolviLabError(
            f"no notebooks/ folder in {where}: the studies run from a source checkout. Clone the solvi_lab "
            f"repository and set {REPO_ENV} to its root (e.g. export {REPO_ENV}=~/src/solvi_lab), or run from a "
            "checkout with PYTHONPATH pointing at it."
        )
    return root


#: The entry-point group every study is declared in (solvi_lab's own pyproject.toml, and any other package's).
GROUP = "solvi_lab.studies"
#: The distribution that ships the built-in studies.
BUILTIN_PACKAGE = "solvi_lab"

_UNSET: Any = object()


class StudyInfo:
    """One registered study.

    name: short name, also the results folder and the notebook's stem.
    notebook: path of its notebook, relative to the repository root (built-in) or absolute (a plug-in's package data).
    module: the importable module (or package module) whose `run` and `PARAMS` it uses.
    title / needs_data / description: given, or read from the module's TITLE / NEEDS_DATA / DESCRIPTION the first
        time they are asked for (so listing the registry imports no study).
    package: the distribution whose entry point declared it ("solvi_lab" for the built-in studies).
    pins: path of its metric pins (relative to the repository root, or absolute); default data/expected/<name>.json.

    >>> info = StudyInfo("example", "notebooks/example.ipynb", "solvi_lab.studies.example")
    >>> info.title, info.builtin
    ('Example: Monte Carlo estimate of π (tests the pipeline)', True)
    """

    def __init__(
        self,
        name: str,
        notebook: str,
        module: str,
        title: str | None = None,
        needs_data: bool | None = None,
        description: str | None = None,
        *,
        package: str = BUILTIN_PACKAGE,
        pins: str | None = None,
    ):
        self.name, self.notebook, self.module, self.package = name, notebook, module, package
        self.pins = pins if pins is not None else f"data/expected/{name}.json"
        self._given = {"TITLE": title, "NEEDS_DATA": needs_data, "DESCRIPTION": description}

    def __repr__(self) -> str:
        return f"StudyInfo({self.name!r}, {self.notebook!r}, {self.module!r}, package={self.package!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StudyInfo) and (self.name, self.notebook, self.module, self.package) == (
            other.name,
            other.notebook,
            other.module,
            other.package,
        )

    def __hash__(self) -> int:
        return hash((self.name, self.module, self.package))

    def _declared(self, attr: str, default: Any) -> Any:
        if self._given[attr] is not None:
            return self._given[attr]
        try:
            module = importlib.import_module(self.module)
        except Exception:  # a broken plug-in: problem() says what is wrong; its title is just its name
            return default
        if attr == "TITLE" and not hasattr(module, "TITLE"):
            return ((module.__doc__ or "").strip().splitlines() or [self.name])[0]
        return getattr(module, attr, default)

    @property
    def title(self) -> str:
        """One line for `solvi-lab list` and the report (the module's TITLE)."""
        return str(self._declared("TITLE", self.name))

    @property
    def description(self) -> str:
        """What question it answers, for the report (the module's DESCRIPTION)."""
        return str(self._declared("DESCRIPTION", ""))

    @property
    def needs_data(self) -> bool:
        """True when it reads external data located by `<module's package>.data.find_data_dir()`."""
        return bool(self._declared("NEEDS_DATA", False))

    @property
    def builtin(self) -> bool:
        """Whether solvi_lab itself declares it (its notebook and pins are in the checkout)."""
        return self.package == BUILTIN_PACKAGE

    @property
    def notebook_path(self) -> Path:
        """Absolute path of the notebook: in the checkout (`repo_root()`) for a built-in, in its package otherwise."""
        return Path(self.notebook) if Path(self.notebook).is_absolute() else repo_root() / self.notebook

    @property
    def expected_path(self) -> Path:
        """Where the metric pins are: `data/expected/<name>.json` of the checkout, or `<name>.pins.json` beside a
        plug-in's module."""
        return Path(self.pins) if Path(self.pins).is_absolute() else repo_root() / self.pins

    @property
    def data_module(self) -> str:
        """The module that locates this study's data: the sibling `data` module of its package."""
        return self.module.rsplit(".", 1)[0] + ".data"


def _builtin_declarations() -> list[tuple[str, str]] | None:
    """(name, module) of solvi_lab's own studies from the checkout's pyproject.toml, or None outside a checkout.

    A source tree is the truth for the code it holds: an editable install made before a study was added has stale
    metadata, and PYTHONPATH may point at another worktree than the one installed.
    """
    import tomllib

    pyproject = REPO_ROOT / "pyproject.toml"
    if not (REPO_ROOT / BUILTIN_PACKAGE / "studies" / "registry.py").exists() or not pyproject.exists():
        return None
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    if data.get("project", {}).get("name") != BUILTIN_PACKAGE:
        return None
    table = data["project"].get("entry-points", {}).get(GROUP, {})
    return [(str(k), str(v)) for k, v in table.items()]


#: Plug-ins that could not be registered at all (a bad entry point, a name clash): name → one line saying why.
_DECLARATION_PROBLEMS: dict[str, str] = {}


def _plugin_info(name: str, module: str, package: str) -> StudyInfo | str:
    """The StudyInfo of another package's study, or one line saying why its declaration cannot be used."""
    import importlib.util

    where = f"plug-in study {name!r} (package {package!r}, entry point {name} = {module!r})"
    if not _NAME.fullmatch(name):
        return f"{where}: the name must be lower-case letters, digits and _ (it names a folder and a notebook)."
    if ":" in module or not all(part.isidentifier() for part in module.split(".")):
        return f'{where}: the entry point must name a module (e.g. {name} = "{name}.study"), not {module!r}.'
    try:
        found = importlib.util.find_spec(module)
    except Exception as err:  # its package's __init__ raised
        return f"{where}: cannot import {module}: {type(err).__name__}: {err}".splitlines()[0]
    if found is None or not found.origin:
        return f"{where}: module {module} is not installed; reinstall the package or `pip uninstall {package}`."
    folder = Path(found.origin).parent
    return StudyInfo(
        name,
        str(folder / f"{name}.ipynb"),
        module,
        package=package,
        pins=str(folder / f"{name}.pins.json"),
    )


_NAME = re.compile(r"[a-z][a-z0-9_]*")


def discover() -> dict[str, StudyInfo]:
    """Every declared study: solvi_lab's own first (in pyproject.toml's order), then other packages' by name.

    Imports no study module (that happens when one is used); a declaration that cannot be used at all is kept
    in `_DECLARATION_PROBLEMS` and reported by `problems()`.
    """
    from importlib.metadata import entry_points

    _DECLARATION_PROBLEMS.clear()
    studies: dict[str, StudyInfo] = {}
    declared = _builtin_declarations()
    eps = list(entry_points(group=GROUP))
    if declared is None:  # an installed solvi_lab: its own entry points
        declared = [(ep.name, ep.value) for ep in eps if _package(ep) == BUILTIN_PACKAGE]
    for name, module in declared:
        studies[name] = StudyInfo(name, f"notebooks/{name}.ipynb", module)
    plugins = sorted((ep.name, ep.value, _package(ep)) for ep in eps if _package(ep) != BUILTIN_PACKAGE)
    for name, module, package in plugins:
        if name in studies:
            owner = studies[name].package
            _DECLARATION_PROBLEMS[f"{name}@{package}"] = (
                f"plug-in study {name!r} (package {package!r}) is not registered: package {owner!r} already "
                f"declares a study of that name; rename it in {package}'s pyproject.toml."
            )
            continue
        info = _plugin_info(name, module, package)
        if isinstance(info, str):
            _DECLARATION_PROBLEMS[name] = info
        else:
            studies[name] = info
    return studies


def _package(ep: Any) -> str:
    """The normalised distribution name of an entry point ("solvi-lab" and "solvi_lab" are one)."""
    dist = getattr(ep, "dist", None)
    name = dist.metadata["Name"] if dist is not None else "?"
    return re.sub(r"[-_.]+", "_", str(name)).lower()


STUDIES: dict[str, StudyInfo] = discover()


def refresh() -> dict[str, StudyInfo]:
    """Discover the studies again (after `pip install` of a plug-in in this process); returns the new registry."""
    global STUDIES
    STUDIES = discover()
    _CHECKED.clear()
    return STUDIES


def builtins() -> list[str]:
    """The names of solvi_lab's own studies, in registry order (what this repository's tests pin)."""
    return [n for n, s in STUDIES.items() if s.builtin]


#: Notebooks in notebooks/ that are tools, not studies (nbval still runs them in CI).
TOOL_NOTEBOOKS: dict[str, str] = {"sweeps": "loads any sweep's Parquet (`solvi-lab sweep`) and draws its summary"}


def known_names() -> str:
    """The registered names, comma-separated, for error messages."""
    return ", ".join(STUDIES)


def get(name: str) -> StudyInfo:
    """The registered study of that name; a clear error listing the known names otherwise.

    >>> get("nope")
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: unknown study 'nope'; known studies: retraction, taubench_action_model, taubench_airline, tau2_telecom, risk_dungeon, toy_crafting, crafter, learner_evidence, explore, example.
    """
    try:
        return STUDIES[name]
    except KeyError:
        if name in _DECLARATION_PROBLEMS:
            raise BrokenStudy(_DECLARATION_PROBLEMS[name]) from None
        raise BadInput(f"unknown study {name!r}; known studies: {known_names()}.") from None


def select(names: list[str] | None = None) -> list[StudyInfo]:
    """The studies to run, in registry order: all of them, or those named (every unknown name is reported)."""
    if not names:
        return list(STUDIES.values())
    unknown = [n for n in names if n not in STUDIES]
    if unknown:
        raise BadInput(f"unknown study {', '.join(map(repr, unknown))}; known studies: {known_names()}.")
    return [s for s in STUDIES.values() if s.name in names]


def _import_if_present(module: str) -> ModuleType | None:
    """Import a module, or None if it (or a package above it) does not exist yet.

    A missing module *inside* it (a broken import in the study's own code) is re-raised: that is a bug to see,
    not a study that is not written yet.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        parts = module.split(".")
        if e.name in {".".join(parts[:i]) for i in range(1, len(parts) + 1)}:
            return None
        raise


class BrokenStudy(SolviLabError):
    """A declared study that cannot be used: its module does not import, has no run(), or a bad PARAMS."""


def _who(info: StudyInfo) -> str:
    if info.builtin:
        return f"study {info.name!r}"
    return f"plug-in study {info.name!r} (package {info.package!r}, module {info.module})"


#: name → None (the module is usable) or the one line saying what is wrong; filled the first time a study is used.
_CHECKED: dict[str, str | None] = {}


def _check_module(info: StudyInfo) -> tuple[ModuleType | None, str | None]:
    """Import the study's module and check its run and PARAMS: (module, None), or (None or module, the problem)."""
    who = _who(info)
    try:
        module = _import_if_present(info.module)
    except Exception as err:  # a plug-in's own bug: one line, not a traceback through the CLI
        first = f"{type(err).__name__}: {err}".splitlines()[0]
        return None, f"{who}: cannot import {info.module}: {first}; fix it, or `pip uninstall {info.package}`."
    if module is None:
        return None, (
            f"{who}: module {info.module} does not exist yet; it must define run(**params) and PARAMS "
            "(see solvi_lab/studies/registry.py and docs/readme/your_own_study.md)."
        )
    if not callable(getattr(module, "run", None)):
        return module, f"{who}: {info.module} has no run(); define run(**params) -> StudyResult."
    declared = getattr(module, "PARAMS", None)
    if not isinstance(declared, ParamSpec):
        got = "missing" if declared is None else f"a {type(declared).__name__}, not a ParamSpec"
        return module, (
            f"{who}: {info.module}.PARAMS is {got}; declare the parameters of run() as "
            f"PARAMS = ParamSpec({info.name!r}, Param(...), ...) (see solvi_lab/studies/params.py)."
        )
    if not info.builtin and declared.study != info.name:
        return module, (
            f"{who}: {info.module}.PARAMS is declared for study {declared.study!r}; it must be "
            f"ParamSpec({info.name!r}, ...) (the entry point's name)."
        )
    return module, None


def problem(study: StudyInfo | str) -> str | None:
    """None when the study's module imports and declares run and PARAMS; otherwise one line saying what is wrong.

    >>> problem("example") is None
    True
    """
    if isinstance(study, str) and study in _DECLARATION_PROBLEMS and study not in STUDIES:
        return _DECLARATION_PROBLEMS[study]
    info = get(study) if isinstance(study, str) else study
    if info.name not in _CHECKED or STUDIES.get(info.name) is not info:
        _CHECKED[info.name] = _check_module(info)[1]
    return _CHECKED[info.name]


def declaration_problems() -> list[str]:
    """One line for every entry point that could not be registered at all (a bad name or value, a name clash)."""
    return [p for n, p in _DECLARATION_PROBLEMS.items() if n not in STUDIES]


def problems() -> list[str]:
    """One line for every declared study that cannot be used (imports every study module to find out)."""
    return declaration_problems() + [p for info in STUDIES.values() if (p := problem(info)) is not None]


def load_module(study: StudyInfo | str) -> ModuleType:
    """Import a study's module; BrokenStudy (one line: which study, which package, what is wrong) otherwise."""
    info = get(study) if isinstance(study, str) else study
    module, wrong = _check_module(info)
    if wrong is not None:
        raise BrokenStudy(wrong)
    assert module is not None
    return module


def spec(study: StudyInfo | str) -> ParamSpec:
    """The study's declared parameters (`PARAMS` in its module); BrokenStudy saying what is wrong otherwise.

    >>> spec("risk_dungeon").names
    ('streams', 'games')
    """
    info = get(study) if isinstance(study, str) else study
    module, wrong = _check_module(info)
    if wrong is not None:
        raise BrokenStudy(wrong)
    assert module is not None
    return module.PARAMS


def study_params(study: StudyInfo | str, *, quick: bool) -> dict[str, Any]:
    """The declared defaults of the quick (quick=True) or full size, seed not included.

    >>> study_params("risk_dungeon", quick=True)
    {'streams': 4, 'games': 30}
    """
    return spec(study).defaults(quick=quick)


def params_for(study: StudyInfo | str, *, quick: bool, **given: Any) -> dict[str, Any]:
    """The keyword arguments a notebook passes to `run`: the declared defaults, then every given non-None value.

    None in a notebook's parameters cell means "the study's default for this mode", so one notebook serves
    quick and full runs and an explicit value (papermill `-p`) always wins. Every given name must be declared
    (or be `seed`) and every value accepted, else BadParameter says which and what it accepts.

    >>> params_for("example", quick=False)
    {'n_samples': 200000}
    """
    declared = spec(study)
    params = declared.defaults(quick=quick)
    params.update(declared.check(**{k: v for k, v in given.items() if v is not None}))
    return params


@dataclass(frozen=True)
class Availability:
    """Whether a study can run here: "ready", "no_notebook" (not written yet), "no_data" (detail = how to get it) or
    "broken" (a plug-in whose module cannot be used; detail = what is wrong)."""

    status: Literal["ready", "no_notebook", "no_data", "broken"]
    detail: str = ""


def missing_data(study: StudyInfo | str) -> str | None:
    """None when the study's data is present (or it needs none); otherwise the instruction to get it."""
    info = get(study) if isinstance(study, str) else study
    if not info.needs_data:
        return None
    module = _import_if_present(info.data_module)
    if module is None:
        return (
            f"study {info.name!r} needs data, but {info.data_module} (which locates it and says how to get it) "
            "does not exist yet."
        )
    try:
        module.find_data_dir()
    except DataMissing as e:
        return str(e)
    return None


def availability(study: StudyInfo | str) -> Availability:
    """Can this study run in this checkout, on this machine?"""
    info = get(study) if isinstance(study, str) else study
    if not info.builtin and (wrong := problem(info)) is not None:
        return Availability("broken", wrong)
    if not info.notebook_path.exists():
        return Availability(
            "no_notebook", f"{info.notebook} does not exist yet (study {info.name!r} is not yet available)."
        )
    instruction = missing_data(info)
    if instruction is not None:
        return Availability("no_data", instruction)
    if info.builtin and (wrong := problem(info)) is not None:
        return Availability("broken", wrong)
    return Availability("ready")
