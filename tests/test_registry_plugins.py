"""The study registry's entry-point path, in this process: plug-ins discovered beside the built-ins, and each way a
plug-in can be broken reported in one line naming the study, its package and what is wrong (the others still usable).

The real path (a scaffolded package installed with pip, driven through the CLI) is tests/test_own_study.py.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from solvi_lab import cli
from solvi_lab.studies import registry

GOOD = """
    from solvi_lab.studies.params import Param, ParamSpec
    from solvi_lab.studies.result import StudyResult

    TITLE = "A good plug-in"
    PARAMS = ParamSpec("{name}", Param("n", int, full=10, quick=2, meaning="count", low=1, high=100))

    def run(n=10, seed=0):
        PARAMS.check(n=n, seed=seed)
        return StudyResult("{name}", {{"n": n, "seed": seed}}, {{"n": n}})
"""

MODULES = {
    "good_study": GOOD.format(name="good_study"),
    "no_run_study": 'from solvi_lab.studies.params import ParamSpec\nPARAMS = ParamSpec("no_run_study")\n',
    "no_params_study": "def run(seed=0):\n    return None\n",
    "dict_params_study": "PARAMS = {'n': 3}\ndef run(seed=0):\n    return None\n",
    "other_name_study": GOOD.format(name="someone_else"),
    "import_error_study": "import solvi_no_such_module_xyz\n",
}


def _ep(name: str, value: str, package: str) -> SimpleNamespace:
    return SimpleNamespace(name=name, value=value, dist=SimpleNamespace(metadata={"Name": package}))


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, registry.StudyInfo]]:
    """Six plug-in modules on sys.path, declared by fake entry points of package 'labmate' (plus two bad ones)."""
    pkg = tmp_path / "labmate_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, source in MODULES.items():
        (pkg / f"{name}.py").write_text(textwrap.dedent(source))
        (pkg / f"{name}.ipynb").write_text("{}")
    monkeypatch.syspath_prepend(str(tmp_path))
    eps = [_ep(n, f"labmate_pkg.{n}", "labmate") for n in MODULES]
    eps += [
        _ep("example", "labmate_pkg.good_study", "labmate"),  # clashes with the built-in
        _ep("with_attr", "labmate_pkg.good_study:run", "labmate"),  # names a function, not a module
        _ep("Bad-Name", "labmate_pkg.good_study", "labmate"),
        _ep("missing_module", "labmate_pkg.not_there", "labmate"),
    ]
    import importlib.metadata

    real = importlib.metadata.entry_points
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group=None: eps if group == registry.GROUP else real(group=group)
    )
    try:
        yield registry.refresh()
    finally:
        monkeypatch.undo()
        registry.refresh()


WHO = "plug-in study {0!r} (package 'labmate', module labmate_pkg.{0})"


def test_plugins_come_after_the_builtins_with_their_files_beside_the_module(plugins, tmp_path: Path) -> None:
    names = list(plugins)
    assert names[: len(registry.builtins())] == registry.builtins()
    assert names[len(registry.builtins()) :] == sorted(["good_study", *[n for n in MODULES if n != "good_study"]])
    good = plugins["good_study"]
    assert (good.package, good.builtin, good.title) == ("labmate", False, "A good plug-in")
    assert good.notebook_path == tmp_path / "labmate_pkg" / "good_study.ipynb"
    assert good.expected_path == tmp_path / "labmate_pkg" / "good_study.pins.json"
    assert registry.problem("good_study") is None
    assert registry.params_for("good_study", quick=True, seed=4) == {"n": 2, "seed": 4}
    assert registry.availability("good_study").status == "ready"


@pytest.mark.parametrize(
    ("study", "what"),
    [
        ("no_run_study", "labmate_pkg.no_run_study has no run(); define run(**params) -> StudyResult."),
        (
            "no_params_study",
            "labmate_pkg.no_params_study.PARAMS is missing; declare the parameters of run() as "
            "PARAMS = ParamSpec('no_params_study', Param(...), ...) (see solvi_lab/studies/params.py).",
        ),
        (
            "dict_params_study",
            "labmate_pkg.dict_params_study.PARAMS is a dict, not a ParamSpec; declare the parameters of run() as "
            "PARAMS = ParamSpec('dict_params_study', Param(...), ...) (see solvi_lab/studies/params.py).",
        ),
        (
            "other_name_study",
            "labmate_pkg.other_name_study.PARAMS is declared for study 'someone_else'; it must be "
            "ParamSpec('other_name_study', ...) (the entry point's name).",
        ),
        (
            "import_error_study",
            "cannot import labmate_pkg.import_error_study: ModuleNotFoundError: No module named "
            "'solvi_no_such_module_xyz'; fix it, or `pip uninstall labmate`.",
        ),
    ],
)
def test_each_broken_plugin_is_one_line(plugins, study: str, what: str) -> None:
    line = f"{WHO.format(study)}: {what}"
    assert registry.problem(study) == line
    assert registry.availability(study) == registry.Availability("broken", line)
    with pytest.raises(registry.BrokenStudy) as err:
        registry.spec(study)
    assert str(err.value) == line
    assert line in registry.problems()


def test_bad_declarations_are_not_registered_and_say_why(plugins) -> None:
    assert registry.STUDIES["example"].package == "solvi_lab"  # the built-in keeps its name
    lines = registry.declaration_problems()
    assert lines == [
        "plug-in study 'Bad-Name' (package 'labmate', entry point Bad-Name = 'labmate_pkg.good_study'): the name "
        "must be lower-case letters, digits and _ (it names a folder and a notebook).",
        "plug-in study 'example' (package 'labmate') is not registered: package 'solvi_lab' already declares a "
        "study of that name; rename it in labmate's pyproject.toml.",
        "plug-in study 'missing_module' (package 'labmate', entry point missing_module = 'labmate_pkg.not_there'): "
        "module labmate_pkg.not_there is not installed; reinstall the package or `pip uninstall labmate`.",
        "plug-in study 'with_attr' (package 'labmate', entry point with_attr = 'labmate_pkg.good_study:run'): the "
        "entry point must name a module (e.g. with_attr = \"with_attr.study\"), not 'labmate_pkg.good_study:run'.",
    ]
    with pytest.raises(registry.BrokenStudy, match="entry point must name a module"):
        registry.get("with_attr")


def test_list_shows_every_study_and_the_broken_ones_in_one_line(plugins, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list"]) == 0
    out, err = capsys.readouterr()
    rows = {line.split()[0]: line for line in out.splitlines()}
    assert rows["good_study"].split()[1] == "ready" and rows["good_study"].endswith("A good plug-in [labmate]")
    assert rows["no_run_study"].endswith(
        f"— {WHO.format('no_run_study')}: labmate_pkg.no_run_study has no run(); define run(**params) -> StudyResult."
    )
    assert rows["example"].split()[1] == "ready"
    assert len(err.strip().splitlines()) == 4 and err.count("error: plug-in study") == 4


def test_a_broken_plugin_cannot_be_run_or_swept(plugins, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = f"{WHO.format('no_params_study')}: labmate_pkg.no_params_study.PARAMS is missing"
    assert cli.main(["run", "no_params_study", "--quick", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {line}")
    assert cli.main(["sweep", "no_params_study", "--seeds", "0", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {line}")


def test_builtin_titles_come_from_their_modules() -> None:
    from solvi_lab.studies import dungeon, example

    assert registry.get("example").title == example.TITLE
    assert registry.get("risk_dungeon").description == dungeon.DESCRIPTION
    assert [registry.get(n).needs_data for n in registry.builtins()] == [
        n in ("taubench_action_model", "taubench_airline", "tau2_telecom") for n in registry.builtins()
    ]
