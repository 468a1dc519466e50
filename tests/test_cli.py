"""`solvi-lab`: argument errors, unknown studies, the kernel check, and reproduce end to end on the example study."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from solvi_lab import cli, reproduce
from solvi_lab.studies import registry


def test_help_lists_commands_and_studies(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for word in ("run", "reproduce", "report", "example", "SOLVI_LAB_QUICK"):
        assert word in out


def test_console_module_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "solvi_lab.cli", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "reproduce" in done.stdout


@pytest.mark.parametrize(
    "argv",
    [[], ["run"], ["run", "example", "-p", "n_samples"], ["reproduce", "--bogus"], ["frobnicate"]],
)
def test_argument_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2
    assert "usage: solvi-lab" in capsys.readouterr().err


def test_unknown_study_lists_known(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["reproduce", "--only", "example", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown study 'nope'" in err
    assert registry.known_names() in err


def test_run_unknown_notebook(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "does_not_exist"]) == 2
    assert "known studies" in capsys.readouterr().err
    assert cli.main(["run", "nowhere/x.ipynb"]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("pair", "message"),
    [(["bad-name", "1"], "not a Python identifier"), (["results_dir", "x"], "--out")],
)
def test_bad_parameter_names(pair: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "example", "-p", *pair]) == 2
    assert message in capsys.readouterr().err


def test_parameter_values_are_json_when_they_parse() -> None:
    got = reproduce.parse_parameters(
        [["a", "50"], ["b", "0.5"], ["c", "true"], ["d", "[1, 2]"], ["e", "protect"], ["f", '"7"']]
    )
    assert got == {"a": 50, "b": 0.5, "c": True, "d": [1, 2], "e": "protect", "f": "7"}


def test_missing_kernel_says_how_to_fix(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    def no_kernel(self: KernelSpecManager, name: str) -> None:
        raise NoSuchKernel(name)

    monkeypatch.setattr(KernelSpecManager, "get_kernel_spec", no_kernel)
    assert cli.main(["run", "example", "--no-progress"]) == 2
    assert "python -m ipykernel install --user --name python3" in capsys.readouterr().err


def test_missing_notebook_and_missing_data_are_skips_not_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    studies = {
        "unwritten": registry.StudyInfo("unwritten", "notebooks/unwritten.ipynb", "solvi_lab.studies.unwritten", "U"),
        # needs_data with a data module that does not exist: treated as data missing, never executed.
        "nodata": registry.StudyInfo(
            "nodata", "notebooks/example.ipynb", "solvi_lab.studies.no_such_pkg.study", "N", needs_data=True
        ),
    }
    monkeypatch.setattr(registry, "STUDIES", studies)
    assert cli.main(["reproduce", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "unwritten: not yet available" in out
    assert "nodata: skipped, data missing (not a failure)" in out
    report = (tmp_path / "REPORT.md").read_text()
    assert "not yet available" in report and "skipped — data missing" in report
    assert "solvi_lab.studies.no_such_pkg.data" in report  # the instruction is in the report


def test_reproduce_quick_example_writes_results_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["reproduce", "--quick", "--only", "example", "--out", str(tmp_path), "--no-progress"])
    assert code == 0, capsys.readouterr().err
    study = tmp_path / "example"
    for name in ("example.ipynb", "metrics.json", "comparison.csv", "running_estimate.png", "run.json"):
        assert (study / name).exists(), name
    assert json.loads((study / "metrics.json").read_text())["n_samples"] == 2000
    run = json.loads((study / "run.json").read_text())
    assert run["status"] == "ok" and run["parameters"]["quick"] is True
    assert json.loads((tmp_path / "machine.json").read_text())["packages"]["papermill"]

    md = (tmp_path / "REPORT.md").read_text()
    assert "| part | key | measure | ours | published | difference | holds | threshold | note |" in md
    assert "![running_estimate](example/running_estimate.png)" in md
    assert "| seed | 0 |" in md
    html = (tmp_path / "report.html").read_text()
    assert '<img src="example/running_estimate.png"' in html
    assert "<th>published</th>" in html and "<th>difference</th>" in html
    for package in ("numpy", "polars", "matplotlib", "networkx", "papermill", "solvi_lab"):
        assert f"<td>{package}</td>" in html
    # only the studies of this run are reported
    assert "retraction" not in md


def test_failing_study_exits_1_and_names_partial_notebook(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(
        ["reproduce", "--quick", "--only", "example", "-p", "n_samples", "0", "--out", str(tmp_path), "--no-progress"]
    )
    assert code == 1
    captured = capsys.readouterr()
    assert "example: FAILED — BadParameter: n_samples must be a positive integer" in captured.out
    assert f"partial notebook: {tmp_path / 'example' / 'example.ipynb'}" in captured.out
    assert "1 of 1 studies failed: example" in captured.err
    assert (tmp_path / "example" / "example.ipynb").exists()
    assert "FAILED" in (tmp_path / "REPORT.md").read_text()


def test_run_then_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notebook = str(registry.STUDIES["example"].notebook_path)  # a path, not a study name
    assert cli.main(["run", notebook, "--quick", "-p", "seed", "3", "--out", str(tmp_path), "--no-progress"]) == 0
    assert json.loads((tmp_path / "example" / "run.json").read_text())["parameters"]["seed"] == 3
    assert cli.main(["report", "--out", str(tmp_path)]) == 0
    assert "| seed | 3 |" in (tmp_path / "REPORT.md").read_text()
    assert cli.main(["report", "--out", str(tmp_path / "missing")]) == 2
