"""Each study declares its parameters once: notebooks, run(), params_for and the CLI follow the declaration."""

from __future__ import annotations

import ast
import json

import pytest

from solvi_lab import cli
from solvi_lab.errors import BadParameter
from solvi_lab.studies import registry
from solvi_lab.studies.params import NOTEBOOK_NAMES, SEED, Param, ParamSpec, quick_from_env

STUDIES = registry.builtins()  # this repository's studies; a plug-in is tested by its own package


def _notebook_cells(info: registry.StudyInfo) -> tuple[str, list[str]]:
    nb = json.loads(info.notebook_path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    params = next(c for c in code if "parameters" in c.get("metadata", {}).get("tags", []))
    return "".join(params["source"]), ["".join(c["source"]) for c in code if c is not params]


def _assigned_names(source: str) -> list[str]:
    tree = ast.parse(source)
    return [t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)]


def _params_for_keywords(sources: list[str], study: str) -> set[str]:
    for source in sources:
        for node in ast.walk(ast.parse("\n".join(x for x in source.splitlines() if not x.startswith("%")))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "params_for":
                assert isinstance(node.args[0], ast.Constant) and node.args[0].value == study
                # every keyword passes the parameters-cell variable of the same name on
                assert all(isinstance(k.value, ast.Name) and k.value.id == k.arg for k in node.keywords)
                return {k.arg for k in node.keywords}
    raise AssertionError(f"{study}: no params_for(...) call in the notebook")


@pytest.mark.parametrize("study", STUDIES)
def test_notebook_parameters_cell_matches_the_declaration(study: str) -> None:
    info = registry.get(study)
    declared = set(registry.spec(info).names)
    cell, others = _notebook_cells(info)
    assert sorted(_assigned_names(cell)) == sorted(declared | set(NOTEBOOK_NAMES))
    assert "quick = None" in cell.splitlines()  # a literal papermill can read; None: SOLVI_LAB_QUICK decides
    resolve = "quick = quick_from_env() if quick is None else quick"
    assert any(resolve in src for src in others[:1]), "the cell after the parameters must resolve quick"
    assert _params_for_keywords(others, study) == declared | {"quick", "seed"}


def test_a_notebook_that_differs_from_its_declaration_fails_the_check() -> None:
    info = registry.get("risk_dungeon")
    cell, _ = _notebook_cells(info)
    assert sorted(_assigned_names(cell.replace("games = None", ""))) != sorted(
        set(registry.spec(info).names) | set(NOTEBOOK_NAMES)
    )


@pytest.mark.parametrize("study", STUDIES)
def test_declaration_is_complete_and_its_defaults_are_valid(study: str) -> None:
    spec = registry.spec(study)
    assert spec.study == study
    module = registry.load_module(study)
    for quick in (True, False):
        defaults = spec.defaults(quick=quick)
        assert spec.check(**defaults, seed=0) == {**defaults, "seed": 0}
        legacy = module.QUICK_PARAMS if quick else module.FULL_PARAMS
        assert {k: v for k, v in legacy.items() if k != "seed"} == defaults
    for p in spec:
        assert p.meaning and p.type in (int, float, bool, str)


@pytest.mark.parametrize("study", [s for s in STUDIES if registry.spec(s).names])
def test_run_refuses_a_bad_value_naming_the_parameter(study: str) -> None:
    spec = registry.spec(study)
    first = spec.names[0]
    bad = "many" if spec.get(first).type is not str else 5
    with pytest.raises(BadParameter, match=rf"parameter {first} got .*; it accepts"):
        registry.load_module(study).run(**{first: bad})


@pytest.mark.parametrize("study", STUDIES)
def test_run_refuses_a_negative_seed(study: str) -> None:
    with pytest.raises(BadParameter, match=r"parameter seed got -5; it accepts an integer in 0\.\."):
        registry.load_module(study).run(seed=-5)


def test_params_for_checks_names_and_values() -> None:
    assert registry.params_for("risk_dungeon", quick=True, seed=2, games=None) == {"streams": 4, "games": 30, "seed": 2}
    with pytest.raises(BadParameter, match="has no parameter 'n_worlds'"):
        registry.params_for("risk_dungeon", quick=True, n_worlds=3)
    with pytest.raises(BadParameter, match=r"parameter games got 2; it accepts an integer in 3\.\.10000"):
        registry.params_for("risk_dungeon", quick=True, games=2)


@pytest.mark.parametrize(
    ("text", "ok"),
    [("1", True), ("true", True), ("TRUE", True), ("yes", True), ("0", False), ("", False), ("false", False)],
)
def test_quick_from_env(monkeypatch: pytest.MonkeyPatch, text: str, ok: bool) -> None:
    monkeypatch.setenv("SOLVI_LAB_QUICK", text)
    assert quick_from_env() is ok


def test_param_checks_types_ranges_and_choices() -> None:
    spec = ParamSpec(
        "t",
        Param("n", int, 1, 1, "count", low=1, high=9),
        Param("x", float, 0.5, 0.5, "share", low=0, high=1),
        Param("mode", str, "a", "a", "mode", choices=("a", "b")),
        Param("flag", bool, True, True, "flag"),
    )
    assert spec.convert("x", "1") == 1.0 and spec.convert("mode", "b") == "b" and spec.convert("flag", "false") is False
    for name, text in [
        ("n", "0"),
        ("n", "10"),
        ("n", "2.0"),
        ("n", "true"),
        ("n", "NaN"),
        ("x", "Infinity"),
        ("x", "1e999"),
        ("x", "-0.1"),
        ("mode", "c"),
        ("flag", "1"),
        ("n", "9" * 5000),
    ]:
        with pytest.raises(BadParameter, match=rf"parameter {name} got"):
            spec.convert(name, text)
    with pytest.raises(ValueError):
        ParamSpec("t", Param("seed", int, 0, 0, "again"))
    assert SEED.accepts() == f"an integer in 0..{2**63 - 1}"


def test_list_params_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list", "--params", "toy_crafting"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:6] == ["name", "type", "quick", "full", "accepts", "meaning"]
    assert [line.split()[0] for line in lines[1:]] == ["streams", "worlds", "steps", "episodes", "seed"]
    assert lines[2].split()[:4] == ["worlds", "int", "6", "20"]
    assert cli.main(["list", "--params", "nope"]) == 2
    assert "unknown study 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("notebook", sorted(p.name for p in (registry.REPO_ROOT / "notebooks").glob("*.ipynb")))
def test_papermill_reads_every_parameter_without_a_warning(notebook: str, caplog: pytest.LogCaptureFixture) -> None:
    """papermill parses each line of the parameters cell (else it warns `Unable to parse line` and then `Passed
    unknown parameter` for every value it is given): the cell holds only `name = literal` lines."""
    import logging

    import papermill

    with caplog.at_level(logging.WARNING, logger="papermill"):
        found = papermill.inspect_notebook(str(registry.REPO_ROOT / "notebooks" / notebook))
    assert [r.getMessage() for r in caplog.records] == []
    cell, _ = _notebook_cells_of(registry.REPO_ROOT / "notebooks" / notebook)
    assert sorted(found) == sorted(_assigned_names(cell))
    assert found["quick"]["default"] == "None"
    for name in found:
        ast.literal_eval(found[name]["default"])  # a literal: no call, no import in the parameters cell


def _notebook_cells_of(path) -> tuple[str, list[str]]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    params = next(c for c in code if "parameters" in c.get("metadata", {}).get("tags", []))
    return "".join(params["source"]), ["".join(c["source"]) for c in code if c is not params]


def test_a_call_in_the_parameters_cell_is_what_papermill_cannot_read(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from papermill.translators import PythonTranslator

    cell = {"source": "quick = quick_from_env()  # SOLVI_LAB_QUICK=1 selects the quick sizes\nseed = 0\n"}
    with caplog.at_level(logging.WARNING, logger="papermill"):
        names = [p.name for p in PythonTranslator.inspect(cell)]
    assert names == ["seed"]  # the old line: not a parameter papermill knows
    assert "Unable to parse line 1" in caplog.text
