"""The studies `solvi-lab reproduce` knows, in the order the report shows them, and what each needs to run.

A study is a module (or package) under `solvi_lab.studies` that exposes

- `PARAMS`: its parameters, declared once (`solvi_lab.studies.params.ParamSpec`): name, type, full and quick
  default, allowed range or choices, one line of meaning. `seed` is shared by every study and not redeclared.
- `run(**params) -> StudyResult`, which starts with `PARAMS.check(name=value, ..., seed=seed)`;
- `QUICK_PARAMS` / `FULL_PARAMS`, derived: `PARAMS.defaults(quick=True)` / `PARAMS.defaults(quick=False)`
  (kept for code that reads them; new code asks `params_for` or `spec`);

and a notebook `notebooks/<name>.ipynb` whose first code cell is tagged `parameters` and lists exactly the
declared names plus `quick`, `seed`, `results_dir` (tests/test_study_params.py fails when they differ):

    from solvi_lab.studies.params import quick_from_env

    quick = quick_from_env()  # SOLVI_LAB_QUICK=1 (CI, nbval) selects the quick sizes; papermill overrides
    seed = 0
    results_dir = "results"
    streams = None            # one line per declared parameter (here risk_dungeon's); None = the mode's default
    games = None

and which then passes every one on: `params_for("risk_dungeon", quick=quick, seed=seed, streams=streams, games=games)`.
To add a study: write the module with `PARAMS` and `run`, the notebook as above, and one `_study(...)` line
below; `solvi-lab list --params NAME` then prints its table and `solvi-lab sweep NAME` can vary it.
A study that needs external data (`needs_data=True`) has a sibling module `data` in its package with
`find_data_dir()`, which raises `DataMissing` saying how to get the data.

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


@dataclass(frozen=True)
class StudyInfo:
    """One registered study.

    name: short name, also the results folder and the notebook's stem.
    notebook: path of its notebook, relative to the repository root.
    module: the importable module (or package module) whose `run` and `PARAMS` it uses.
    title: one line for the report.
    needs_data: True when it reads external data located by `<module's package>.data.find_data_dir()`.
    description: what question it answers, for the report.
    """

    name: str
    notebook: str
    module: str
    title: str
    needs_data: bool = False
    description: str = ""

    @property
    def notebook_path(self) -> Path:
        """Absolute path of the notebook in the checkout (`repo_root()`: $SOLVI_LAB_REPO or the source tree)."""
        return repo_root() / self.notebook

    @property
    def expected_path(self) -> Path:
        """Where the notebook test reads the expected metrics: `data/expected/<name>.json`."""
        return repo_root() / "data" / "expected" / f"{self.name}.json"

    @property
    def data_module(self) -> str:
        """The module that locates this study's data: the sibling `data` module of its package."""
        return self.module.rsplit(".", 1)[0] + ".data"


def _study(name: str, module: str, title: str, description: str, needs_data: bool = False) -> StudyInfo:
    return StudyInfo(name, f"notebooks/{name}.ipynb", module, title, needs_data, description)


STUDIES: dict[str, StudyInfo] = {
    s.name: s
    for s in [
        _study(
            "retraction",
            "solvi_lab.studies.retraction",
            "Retraction: exact, and as cheap as what it changes (10,000 items, 1,000 retractions)",
            "Random retractions in a synthetic store (facts, derivations up to depth 5, disputes, resolutions, "
            "promotions, clock expiry, drift flags), each checked against rebuild(skip={x}) and timed.",
        ),
        _study(
            "taubench_action_model",
            "solvi_lab.studies.taubench.study",
            "τ-bench retail: the conservative action model (no LLM)",
            "Probes around the gold steps of 400 training tasks train the model; the 115 test tasks are held out: "
            "refusal precision and recall, abstentions, replay, three vocabulary ablations, effects. Needs the "
            "τ-bench retail data.",
            needs_data=True,
        ),
        _study(
            "taubench_airline",
            "solvi_lab.studies.taubench.airline.study",
            "τ-bench airline: the action model on a second domain and on a real agent's 1,164 calls (no LLM)",
            "Probes around the gold steps of half of the 50 airline tasks train the model, the other half is held "
            "out (two folds); then the 200 recorded GPT-4o runs are replayed on our environment and each call is "
            "predicted before it is made: recall and precision on the 73 refused calls, abstentions, Protect. "
            "Needs the τ-bench airline data.",
            needs_data=True,
        ),
        _study(
            "risk_dungeon",
            "solvi_lab.studies.dungeon",
            "Risk dungeon: Protect, RiskBudget and a learned gate (20 streams × 30 games)",
            "A toy dungeon with hand-set hazards: how deep each policy gets, the deaths the knowledge targets, and "
            "the trends over a stream as learned refusals accumulate.",
        ),
        _study(
            "toy_crafting",
            "solvi_lab.studies.crafting",
            "Toy crafting: memory, agenda and failure memory together (10 streams × 20 worlds)",
            "8 places, 6 operators with the environment's own checks: what carrying the action model, the agenda and "
            "the failure memory buy; a changed world with the map carried.",
        ),
        _study(
            "crafter",
            "solvi_lab.studies.crafter.study",
            "Real Crafter: the action model, the agenda and the failure memory (symbolic state, no pixels)",
            "Crafter 1.8.3: an action model learned from accepted and refused calls, graded against every rule of "
            "its data.yaml and scored on held-out worlds; six arms with the Crafter score beside the published "
            "scoreboard; a carried world map dropped in a changed world.",
        ),
        _study(
            "learner_evidence",
            "solvi_lab.studies.learner_evidence",
            "Learner evidence: typed evidence, with every flaw of the Inno Agent review closed",
            "Each flaw the review names, on a naive model written for the purpose and on solvi_lab, side by side.",
        ),
        _study(
            "explore",
            "solvi_lab.studies.explore",
            "Exploration: stores and journals as DataFrames and pictures",
            "A store as a polars frame, time travel across a retraction, the derivations around it, a Parquet "
            "round trip of the journal.",
        ),
        _study(
            "example",
            "solvi_lab.studies.example",
            "Example: Monte Carlo estimate of π (tests the pipeline)",
            "A tiny deterministic study that exercises the notebook → metrics → report pipeline end to end.",
        ),
    ]
}


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
    solvi_lab.errors.BadInput: unknown study 'nope'; known studies: retraction, taubench_action_model, taubench_airline, risk_dungeon, toy_crafting, crafter, learner_evidence, explore, example.
    """
    try:
        return STUDIES[name]
    except KeyError:
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


def load_module(study: StudyInfo | str) -> ModuleType:
    """Import a study's module; a clear error if it is not there yet."""
    info = get(study) if isinstance(study, str) else study
    module = _import_if_present(info.module)
    if module is None:
        raise SolviLabError(
            f"study {info.name!r}: module {info.module} does not exist yet; "
            "it must define run(**params) and PARAMS (see docs/readme/reproduce.md)."
        )
    return module


def spec(study: StudyInfo | str) -> ParamSpec:
    """The study's declared parameters (`PARAMS` in its module); a clear error if it declares none.

    >>> spec("risk_dungeon").names
    ('streams', 'games')
    """
    info = get(study) if isinstance(study, str) else study
    declared = getattr(load_module(info), "PARAMS", None)
    if not isinstance(declared, ParamSpec):
        raise SolviLabError(
            f"study {info.name!r}: {info.module}.PARAMS is missing; declare the parameters of run() as "
            "PARAMS = ParamSpec(name, Param(...), ...) (see solvi_lab/studies/params.py and docs/readme/reproduce.md)."
        )
    return declared


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
    """Whether a study can run here: "ready", "no_notebook" (not written yet) or "no_data" (detail = how to get it)."""

    status: Literal["ready", "no_notebook", "no_data"]
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
    if not info.notebook_path.exists():
        return Availability(
            "no_notebook", f"{info.notebook} does not exist yet (study {info.name!r} is not yet available)."
        )
    instruction = missing_data(info)
    if instruction is not None:
        return Availability("no_data", instruction)
    return Availability("ready")
