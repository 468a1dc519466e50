"""solvi_lab's pytest plugin (entry point `pytest11`): a study notebook's metric pins as tests.

Installing solvi_lab is enough. In a test:

    def test_notebook_pins(solvi_pins):
        solvi_pins.check("my_study")          # papermill at the pins' quick parameters, then solvi_lab.pins

or, without writing a test, from the command line: `pytest --solvi-pins my_study,example` (or `all`: every
registered study with a pin file). A failing check lists each failing metric on one line (value, pin, tolerance)
under the notebook and pin file it concerns; a pin with no metric fails; a metric with no pin is reported (a
`PinWarning`, and in the failure message). `--solvi-update-pins` rewrites the pin files from this run instead of
failing, and prints every change in the terminal summary (`solvi_lab.pins.rewrite`): never silently.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

UPDATE_OPTION = "--solvi-update-pins"
PINS_OPTION = "--solvi-pins"
_CHANGES = pytest.StashKey[list[str]]()


class PinWarning(UserWarning):
    """A recorded metric with no pin (it is not checked), or a pin file rewritten on request."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("solvi_lab", "solvi_lab metric pins")
    group.addoption(
        PINS_OPTION,
        metavar="STUDY[,STUDY]|all",
        default=None,
        help="also check these studies' notebook pins (papermill at their quick parameters); all = every "
        "registered study with a pin file",
    )
    group.addoption(
        UPDATE_OPTION,
        action="store_true",
        default=False,
        help="rewrite the pin files from this run's metrics instead of failing (every change is printed)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_CHANGES] = []


class PinChecker:
    """Runs a study's notebook at its pins' quick parameters into a temporary folder and checks the pins."""

    def __init__(self, config: pytest.Config, out: Path):
        self.config, self.out = config, out

    @property
    def updating(self) -> bool:
        return bool(self.config.getoption(UPDATE_OPTION, default=False))

    def check(self, study: str, **overrides: Any) -> dict[str, Any]:
        """Run and compare; pytest.fail with one line per failing pin (or rewrite them under --solvi-update-pins).

        overrides: parameters beyond the pin file's quick_params (e.g. a data path). Returns the metrics recorded.
        """
        from . import pins, reproduce
        from .errors import SolviLabError
        from .studies import registry

        try:
            reproduce.check_kernel()
            info = registry.get(study)
            if (wrong := registry.problem(info)) is not None:
                pytest.fail(wrong, pytrace=False)
            instruction = registry.missing_data(info)
            if instruction is not None:
                pytest.skip(instruction)
            quick = registry.study_params(info, quick=True)
            if self.updating and not info.expected_path.exists():  # pinning a study for the first time
                pinned = pins.PinFile(info.name, {}, {}, info.expected_path)
            else:
                pinned = pins.load(info.expected_path, info.name)
        except SolviLabError as e:
            pytest.fail(str(e), pytrace=False)
        disagree = {
            k: (v, pinned.quick_params.get(k, "<missing>"))
            for k, v in quick.items()
            if pinned.quick_params.get(k, object()) != v
        }
        if disagree and not self.updating:
            pytest.fail(
                f"{info.module}: the declared quick parameters and {info.expected_path} quick_params disagree on "
                f"{disagree} (declared value, pinned value); rerun with {UPDATE_OPTION} to re-pin.",
                pytrace=False,
            )
        params = {**quick, **pinned.quick_params, **overrides} if not self.updating else {**quick, **overrides}
        params.setdefault("seed", pinned.quick_params.get("seed", 0))
        run = reproduce.run_notebook(
            info.notebook_path, self.out, study=info.name, quick=True, overrides=params, progress=False
        )
        if run.status == "no_data":
            pytest.skip(run.message)
        if run.status != "ok":
            pytest.fail(reproduce.describe_run(run), pytrace=False)
        metrics_path = self.out / info.name / "metrics.json"
        if not metrics_path.exists():
            pytest.fail(
                f"{info.notebook_path} ran but recorded no metrics at {metrics_path}; it must call "
                f'rec = start("{info.name}", out=results_dir) and rec.record_all(result.metrics).',
                pytrace=False,
            )
        metrics = json.loads(metrics_path.read_text(encoding="utf-8"))
        if self.updating:
            changes = pins.rewrite(pinned, metrics, {**quick, "seed": params["seed"]})
            if changes:
                pinned.save()
                self.config.stash[_CHANGES].extend(f"{pinned.path}: {line}" for line in changes)
                warnings.warn(PinWarning(f"{pinned.path}: {len(changes)} pin(s) rewritten"), stacklevel=2)
            return metrics
        report = pins.compare(pinned, metrics, notebook=str(info.notebook_path))
        if not report.ok:
            pytest.fail(report.message(), pytrace=False)
        if report.unpinned:
            warnings.warn(
                PinWarning(f"{info.name}: recorded but not pinned (not checked): {', '.join(report.unpinned)}"),
                stacklevel=2,
            )
        return metrics


@pytest.fixture
def solvi_pins(request: pytest.FixtureRequest, tmp_path: Path) -> PinChecker:
    """A PinChecker writing into this test's tmp_path: `solvi_pins.check("study")`."""
    return PinChecker(request.config, tmp_path)


class PinItem(pytest.Item):
    """One `--solvi-pins` check: a study's notebook against its pins."""

    def __init__(self, *, study: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.study = study

    def runtest(self) -> None:
        out = self.config._tmp_path_factory.mktemp(f"pins-{self.study}")  # type: ignore[attr-defined]
        PinChecker(self.config, out).check(self.study)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, pytest.fail.Exception):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[str, int | None, str]:
        return self.study, None, f"pins of {self.study}"


def _pinned_studies(config: pytest.Config) -> list[str]:
    from .studies import registry

    wanted = config.getoption(PINS_OPTION, default=None)
    if not wanted:
        return []
    if wanted == "all":
        return [n for n, s in registry.STUDIES.items() if s.expected_path.exists()]
    names = [n.strip() for n in wanted.split(",") if n.strip()]
    registry.select(names)  # every unknown name is an error before anything runs
    return names


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    from .errors import SolviLabError

    try:
        studies = _pinned_studies(config)
    except SolviLabError as e:
        raise pytest.UsageError(f"{PINS_OPTION}: {e}") from None
    items.extend(PinItem.from_parent(session, name=f"pins[{s}]", study=s) for s in studies)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    changes = config.stash.get(_CHANGES, [])
    if changes:
        terminalreporter.section("solvi_lab pins rewritten (review with git diff)")
        for line in changes:
            terminalreporter.write_line(line)
