"""`solvi-lab`: argument errors, unknown studies, the kernel check, and reproduce end to end on the example study."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solvi_lab import cli, reproduce
from solvi_lab.errors import SolviLabError
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
    err = capsys.readouterr().err
    assert "no Jupyter kernel named 'solvi-lab' is found" in err
    assert "python -m solvi_lab.kernel install" in err and "--user" not in err


def test_our_kernel_is_installed_inside_the_environment_not_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from solvi_lab import kernel

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    prefix = tmp_path / "venv"
    assert kernel.ensure_kernel(prefix) == "solvi-lab"
    spec = json.loads((prefix / "share/jupyter/kernels/solvi-lab/kernel.json").read_text())
    assert spec["argv"] == [sys.executable, "-m", "solvi_lab.kernel", "-f", "{connection_file}"]
    mtime = (prefix / "share/jupyter/kernels/solvi-lab/kernel.json").stat().st_mtime_ns
    assert kernel.ensure_kernel(prefix) == "solvi-lab"  # already there: not rewritten
    assert (prefix / "share/jupyter/kernels/solvi-lab/kernel.json").stat().st_mtime_ns == mtime
    assert list(home.iterdir()) == []
    (prefix / "ro").mkdir()
    (prefix / "ro").chmod(0o500)
    if os.access(prefix / "ro", os.W_OK):  # root writes anyway: the error path is covered by the message test
        return
    with pytest.raises(SolviLabError, match="cannot install the Jupyter kernel 'solvi-lab'"):
        kernel.ensure_kernel(prefix / "ro")


def test_the_loopback_tcp_warning_is_dropped_only_on_loopback() -> None:
    import logging

    from solvi_lab.kernel import _LoopbackTcpWarning

    class App:
        ip = "127.0.0.1"

    app = App()
    f = _LoopbackTcpWarning(app)

    def rec(msg: str) -> logging.LogRecord:
        return logging.LogRecord("IPKernelApp", logging.WARNING, "x", 1, msg, None, None)

    assert f.filter(rec("Kernel is running over TCP without encryption. All communication ...")) is False
    assert f.filter(rec("some other warning")) is True  # real problems still reach the user
    app.ip = "10.0.0.5"
    assert f.filter(rec("Kernel is running over TCP without encryption. All communication ...")) is True


def test_the_interrupt_before_a_kernel_shutdown_is_not_printed() -> None:
    """jupyter_client interrupts a kernel before shutting it down; ipykernel's line about it is dropped (both of its
    spellings), every other error line is kept."""
    import logging

    from solvi_lab.kernel import _ShutdownInterrupt

    def rec(msg: str) -> logging.LogRecord:
        return logging.LogRecord("IPKernelApp", logging.ERROR, "x", 1, msg, None, None)

    f = _ShutdownInterrupt()
    assert f.filter(rec("KeyboardInterrupt caught in kernel.")) is False
    assert f.filter(rec("KeyboardInterrupt caught in kernel")) is False
    assert f.filter(rec("Exception in message handler:")) is True


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
    assert cli.main(["reproduce", "--out", str(tmp_path), "--no-progress"]) == cli.EXIT_SKIPPED == 3
    shown = capsys.readouterr()
    out = shown.out
    assert (
        shown.err.splitlines()[-1]
        == "note: 1 of 2 studies skipped, their data missing (how to get it: above): nodata; exit status 3."
    )
    assert "unwritten: not yet available" in out
    assert "nodata: skipped, data missing (not a failure)" in out
    report = (tmp_path / "REPORT.md").read_text()
    assert "not yet available" in report and "skipped — data missing" in report
    assert "solvi_lab.studies.no_such_pkg.data" in report  # the instruction is in the report


def test_run_of_a_study_without_its_data_is_the_same_skip_and_exit_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SOLVI_LAB_TAUBENCH", str(tmp_path / "nowhere"))
    argv = ["run", "taubench_action_model", "--quick", "--out", str(tmp_path), "--no-progress"]
    assert cli.main(argv) == cli.EXIT_SKIPPED == 3
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith(
        f"taubench_action_model: skipped, data missing (not a failure) — SOLVI_LAB_TAUBENCH={tmp_path / 'nowhere'} "
        "does not exist. To fix: set the environment variable SOLVI_LAB_TAUBENCH"
    )


@pytest.mark.parametrize(
    "command",
    [
        ["run", "example", "--quick"],
        ["reproduce", "--quick", "--only", "example"],
        ["sweep", "example", "--seeds", "0", "--quick"],
    ],
)
def test_an_out_that_cannot_be_written_is_one_line_naming_out(command: list[str], capsys) -> None:
    for out, why in (
        ("/sys/solvi-lab-results", "Operation not permitted"),
        ("/proc/solvi-lab-results", "No such file"),
    ):
        assert cli.main([*command, "--out", out, "--no-progress"]) == cli.EXIT_USAGE
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith(f"error: --out {out}: cannot write there ({why}")
        assert err[0].endswith("give a folder you can write to, e.g. --out results (it is created if missing).")


def test_a_corrupt_notebook_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    for text, what in (('{"cells": [', "NotJSONError"), ('{"cells": 3}', "TypeError"), ("[]", "")):
        nb = tmp_path / "mine.ipynb"
        nb.write_text(text)
        assert cli.main(["run", str(nb), "--out", str(tmp_path / "out"), "--no-progress"]) == cli.EXIT_USAGE
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith(f"error: notebook {nb} is corrupt ({what}")
        assert err[0].endswith("open it in Jupyter to repair it, or restore it from git (git checkout -- FILE).")
        assert not (tmp_path / "out" / "mine").exists()  # nothing ran


def test_report_names_a_corrupt_run_json_and_metrics_json(tmp_path: Path, capsys) -> None:
    for name in ("alpha", "beta"):
        (tmp_path / name).mkdir()
    (tmp_path / "alpha" / "run.json").write_text('{"status": "ok"')
    (tmp_path / "beta" / "run.json").write_text(json.dumps({"study": "beta", "status": "ok", "seconds": 1.0}))
    (tmp_path / "beta" / "metrics.json").write_text("[1, 2]")
    assert cli.main(["report", "--out", str(tmp_path)]) == cli.EXIT_FAILED
    shown = capsys.readouterr()
    assert shown.out.startswith("report: ")
    assert shown.err.splitlines() == [
        f"error: {tmp_path / 'alpha' / 'run.json'} is corrupt (not JSON: expecting ',' delimiter at line 1, column 16);"
        f" run the study again: solvi-lab run alpha --out {tmp_path}",
        f"error: {tmp_path / 'beta' / 'metrics.json'} is corrupt (a JSON list where an object is expected);"
        f" run the study again: solvi-lab run beta --out {tmp_path}",
    ]
    report = (tmp_path / "REPORT.md").read_text()
    assert "run.json is corrupt" in report and "metrics.json is corrupt" in report and "is missing" not in report


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
    # the key and threshold columns are empty for this study: dropped, so the table keeps its width for the notes
    assert "| part | measure | ours | published | difference | holds | note |" in md
    assert "![running_estimate](example/running_estimate.png)" in md
    assert "| seed | 0 |" in md
    html = (tmp_path / "report.html").read_text()
    assert '<img src="example/running_estimate.png"' in html
    assert "<th>published</th>" in html and "<th>difference</th>" in html
    for package in ("numpy", "polars", "matplotlib", "networkx", "papermill", "solvi_lab"):
        assert f'<td data-label="package">{package}</td>' in html
    # only the studies of this run are reported
    assert "retraction" not in md


def _failing_notebook(path: Path) -> Path:
    import nbformat

    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('quick = False\nseed = 0\nresults_dir = "results"')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell('raise RuntimeError("boom at seed %d" % seed)')]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


def test_failing_study_exits_1_and_names_partial_notebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = _failing_notebook(tmp_path / "failing.ipynb")
    info = registry.StudyInfo("failing", str(notebook), "solvi_lab.studies.example", "F")
    monkeypatch.setattr(registry, "STUDIES", {"failing": info})
    out = tmp_path / "out"
    code = cli.main(["reproduce", "--quick", "-p", "seed", "4", "--out", str(out), "--no-progress"])
    assert code == 1
    captured = capsys.readouterr()
    assert "failing: FAILED — RuntimeError: boom at seed 4" in captured.out
    assert f"partial notebook: {out / 'failing' / 'failing.ipynb'}" in captured.out
    assert "1 of 1 studies failed: failing" in captured.err
    assert (out / "failing" / "failing.ipynb").exists()
    assert "FAILED" in (out / "REPORT.md").read_text()


HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "example", "-p", "seed", "NaN"], "parameter seed got 'NaN'; it accepts an integer in 0.."),
        (["run", "example", "-p", "seed", "1e999"], "parameter seed got '1e999'; it accepts an integer"),
        (["run", "example", "-p", "seed", "-5"], "parameter seed got '-5'; it accepts an integer in 0.."),
        (["run", "example", "-p", "seed", HUGE], "parameter seed got '99999"),
        (["run", "example", "-p", "n_samples", '"many"'], "parameter n_samples got '\"many\"'; it accepts an integer"),
        (["run", "example", "-p", "n_samples", "many"], "parameter n_samples got 'many'"),
        (["run", "example", "-p", "n_samples", "2.5"], "parameter n_samples got '2.5'"),
        (["run", "example", "-p", "no_such_param", "3"], "study 'example' has no parameter 'no_such_param'"),
        (["run", "example", "-p", "quick", "true"], "pass --quick"),
        (["run", "example", "--out", "README.md"], "--out README.md is an existing file"),
        (["run", "example", "--out", "README.md/sub"], "is a file, not a folder"),
        (["run", "notebooks/nope.ipynb"], "notebook notebooks/nope.ipynb does not exist"),
        (["run", "nope"], "neither a known study nor a .ipynb path"),
        (["reproduce", "-p", "n_items", "5"], "parameter n_items got '5'; it accepts an integer in 10.."),
        (["reproduce", "-p", "bogus", "5"], "no study of this run"),
        (["reproduce", "--only", "example", "-p", "n_items", "500"], "study 'example' has no parameter 'n_items'"),
        (["reproduce", "--only", "nope"], "unknown study 'nope'"),
        (["reproduce", "--out", "README.md"], "--out README.md is an existing file"),
        (["reproduce", "--seeds", "5-2"], "--seeds '5-2': reproduce takes a number of seeds K"),
        (["reproduce", "--seeds", "5-2"], "(and 5-2 runs backwards: write 2-5)"),
        (["reproduce", "--seeds", "-3"], "--seeds -3: give a number of seeds in 0..10000"),
        (["reproduce", "--seeds", "lots"], "--seeds 'lots': give a number of seeds K"),
        (["list", "--params", "nope"], "unknown study 'nope'"),
    ],
)
def test_user_errors_are_one_line_exit_2_before_anything_runs(
    argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(registry.REPO_ROOT)

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("a notebook started")

    monkeypatch.setattr(reproduce, "execute", must_not_run)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert message in err
    assert not (registry.REPO_ROOT / "README.md" / "sub").exists()


def test_declared_values_are_converted_to_their_type() -> None:
    got = reproduce.parse_parameters([["streams", "2"], ["seed", "7"]], [registry.get("risk_dungeon")])
    assert got == {"streams": 2, "seed": 7}
    # a -p given to several studies reaches only those that declare it
    assert reproduce.overrides_for(registry.get("example"), {"n_items": 50, "seed": 1}) == {"seed": 1}


def test_run_then_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notebook = str(registry.STUDIES["example"].notebook_path)  # a path, not a study name
    assert cli.main(["run", notebook, "--quick", "-p", "seed", "3", "--out", str(tmp_path), "--no-progress"]) == 0
    assert json.loads((tmp_path / "example" / "run.json").read_text())["parameters"]["seed"] == 3
    assert cli.main(["report", "--out", str(tmp_path)]) == 0
    assert "| seed | 3 |" in (tmp_path / "REPORT.md").read_text()
    assert cli.main(["report", "--out", str(tmp_path / "missing")]) == 2


def test_a_run_writes_nothing_under_home(tmp_path: Path) -> None:
    """The kernel spec, IPython's profile and matplotlib's cache all live in the environment (solvi_lab/kernel.py)."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("IPYTHONDIR", "MPLCONFIGDIR", "JUPYTER_CONFIG_DIR")}
    env.update(HOME=str(home), PYTHONPATH=str(registry.REPO_ROOT))
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "solvi_lab.cli", "run", "example", "--quick", "--out", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "example: ok" in done.stdout
    assert done.stderr == ""  # nothing to ignore: no kernel, papermill or library warning
    assert sorted(p.relative_to(home).as_posix() for p in home.rglob("*")) == []


def test_outputs_share_one_file_mode(tmp_path: Path, capsys) -> None:
    """Sweep rows, the combined sweep, its summary, a Parquet export and its digest: all 0644, as results are."""
    import stat

    from solvi_lab.atomicfile import FILE_MODE
    from solvi_lab.explore.parquet import export_journal
    from solvi_lab.knowledge import KnowledgeStore

    old = os.umask(0o022)
    try:
        argv = ["sweep", "example", "--seeds", "0-1", "--quick", "--workers", "0", "--no-progress"]
        assert cli.main([*argv, "--out", str(tmp_path / "sweeps")]) == 0
        ks = KnowledgeStore()
        ks.add("fact", {"s": "a", "r": "b", "o": 1}, source="person")
        export_journal(ks.journal, tmp_path / "export" / "run.parquet")
    finally:
        os.umask(old)
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    names = {p.name for p in files}
    assert {"sweep.parquet", "summary.parquet", "SUMMARY.md", "run.parquet", "run.parquet.sha256"} <= names
    assert len([p for p in files if p.parent.name == "points"]) == 2
    assert {p.relative_to(tmp_path).as_posix(): oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {
        p.relative_to(tmp_path).as_posix(): oct(FILE_MODE) for p in files
    }


def test_new_into_a_folder_that_cannot_be_written_is_one_line(capsys) -> None:
    assert cli.main(["new", "zz_solvi_probe", "--dir", "/sys/solvi-lab-studies"]) == cli.EXIT_USAGE
    assert capsys.readouterr().err == (
        "error: --dir /sys/solvi-lab-studies: cannot write the study there (Operation not permitted); give a folder "
        "you can write to, e.g. --dir ~/src.\n"
    )
