"""A researcher's own study, on the real path: `solvi-lab new` into a temporary folder, `pip install -e` into this
test environment (no network: --no-deps --no-build-isolation), then `list`, `run --quick`, `sweep` on two seeds,
the pytest plugin (pins that hold, and pins that fail with their one-line messages), `diff`, and a broken plug-in.

Every command runs in a fresh process (as a user types it), so the study is found through its entry point, the way
an installed package's is. The package is uninstalled at the end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import polars as pl
import pytest

from solvi_lab import scaffold
from solvi_lab.cli import main
from solvi_lab.errors import BadInput

NAME = "solvi_probe_study"  # a name no real package takes


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SOLVI_LAB_QUICK"}
    env["MPLBACKEND"] = "agg"
    return env


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`solvi-lab ARGS` in a new process."""
    return subprocess.run(
        [sys.executable, "-m", "solvi_lab.cli", *args], capture_output=True, text=True, env=_env(), cwd=cwd, timeout=600
    )


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The scaffolded package's own pytest (the plugin comes from solvi_lab's pytest11 entry point when the
    installed metadata has it; otherwise, e.g. this checkout on PYTHONPATH over an older install, with -p)."""
    registered = any(ep.value == "solvi_lab.pytest_plugin" for ep in entry_points(group="pytest11"))
    plugin = [] if registered else ["-p", "solvi_lab.pytest_plugin"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin, *args],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=folder,
        timeout=600,
    )


def diff(*args: str) -> subprocess.CompletedProcess[str]:
    """`solvi-lab diff` in this process (it reads folders only; no study is imported), captured like `cli`."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["diff", *args])
    return subprocess.CompletedProcess(["diff", *args], code, out.getvalue(), err.getvalue())


def pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True, env=_env(), timeout=600)


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The scaffolded package, installed editable for this module's tests, uninstalled after."""
    from importlib.metadata import version

    setuptools = tuple(int(x) for x in version("setuptools").split(".")[:2])
    assert setuptools >= (70, 1), (
        f"setuptools {version('setuptools')} cannot build an editable package without `wheel` and build isolation; "
        "install the [dev] extra (it requires setuptools>=70.1): pip install -e '.[dev]'"
    )
    where = tmp_path_factory.mktemp("own")
    made = cli("new", NAME, "--dir", str(where))
    assert made.returncode == 0, made.stderr
    root = where / NAME
    assert f"pip install -e {root}" in made.stdout
    installed = pip("install", "-q", "--no-deps", "--no-build-isolation", "-e", str(root))
    assert installed.returncode == 0, installed.stderr
    try:
        yield root
    finally:
        removed = pip("uninstall", "-y", NAME)
        assert removed.returncode == 0, removed.stderr


def test_new_writes_an_installable_package(package: Path) -> None:
    files = sorted(
        p.relative_to(package).as_posix() for p in package.rglob("*") if p.is_file() and "egg-info" not in str(p)
    )
    assert files == sorted(
        [
            "README.md",
            f"{NAME}/__init__.py",
            f"{NAME}/{NAME}.ipynb",
            f"{NAME}/{NAME}.pins.json",
            f"{NAME}/study.py",
            "pyproject.toml",
            f"tests/test_{NAME}.py",
            "conftest.py",
            ".gitignore",
        ]
    )
    ignored = (package / ".gitignore").read_text().splitlines()
    assert {"results/", "sweeps/", ".venv/", "__pycache__/", "*.egg-info/", ".pytest_cache/"} <= set(ignored)
    assert "keep_state_in_environment()" in (package / "conftest.py").read_text()
    assert f'{NAME} = "{NAME}.study"' in (package / "pyproject.toml").read_text()
    nb = json.loads((package / NAME / f"{NAME}.ipynb").read_text())
    first = next(c for c in nb["cells"] if c["cell_type"] == "code")
    assert first["metadata"]["tags"] == ["parameters"]
    # literal-only, so papermill reads every line (no "Unable to parse", no "unknown parameter: quick")
    code = [ln for ln in "".join(first["source"]).splitlines() if ln and not ln.startswith("#")]
    assert code == ["quick = None", "seed = 0", 'results_dir = "results"', "n_flips = None", "p_heads = None"]
    pins = json.loads((package / NAME / f"{NAME}.pins.json").read_text())
    assert pins["quick_params"] == {"n_flips": 2000, "p_heads": 0.6, "seed": 0}
    assert set(pins["metrics"]) == {"n_flips", "heads", "tails", "heads_rate"}
    # a second `new` of a taken name, or into a non-empty folder, is refused with the reason
    again = cli("new", NAME, "--dir", str(package.parent))
    assert again.returncode == 2 and "already" in again.stderr


def test_list_shows_the_plugin_after_the_builtins(package: Path) -> None:
    listed = cli("list")
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert names[names.index("example") + 1 :].count(NAME) == 1
    line = next(ln for ln in listed.stdout.splitlines() if ln.startswith(NAME))
    assert "ready" in line and f"[{NAME}]" in line
    params = cli("list", "--params", NAME)
    assert params.returncode == 0 and params.stdout.splitlines()[1].split()[:4] == ["n_flips", "int", "2000", "100000"]


def test_run_quick_and_parameters_are_checked(package: Path, tmp_path: Path) -> None:
    ran = cli("run", NAME, "--quick", "--out", str(tmp_path), "--no-progress")
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr == ""  # papermill silent: no "Unable to parse line", no "Passed unknown parameter"
    metrics = json.loads((tmp_path / NAME / "metrics.json").read_text())
    pins = json.loads((package / NAME / f"{NAME}.pins.json").read_text())["metrics"]
    assert metrics["heads"] == pins["heads"]["exact"] and metrics["heads"] + metrics["tails"] == 2000
    run_json = json.loads((tmp_path / NAME / "run.json").read_text())
    assert run_json["status"] == "ok" and run_json["parameters"]["n_flips"] == 2000
    unknown = cli("run", NAME, "--quick", "-p", "n_coins", "3", "--out", str(tmp_path))
    assert unknown.returncode == 2
    assert f"study {NAME!r} has no parameter 'n_coins'; its parameters are: n_flips, p_heads, seed" in unknown.stderr
    bad = cli("run", NAME, "--quick", "-p", "p_heads", "2", "--out", str(tmp_path))
    assert bad.returncode == 2 and "parameter p_heads got '2'; it accepts a finite number in 0..1" in bad.stderr


def test_reproduce_only_and_report_treat_it_like_a_builtin(package: Path, tmp_path: Path) -> None:
    done = cli("reproduce", "--quick", "--only", NAME, "--out", str(tmp_path), "--no-progress")
    assert done.returncode == 0, done.stderr
    report = (tmp_path / "REPORT.md").read_text()
    assert f"{NAME}: a study of a biased coin" in report and "heads_majority" in report
    rebuilt = cli("report", "--out", str(tmp_path))
    assert rebuilt.returncode == 0, rebuilt.stderr


def test_sweep_two_seeds_and_diff_of_sweeps(package: Path, tmp_path: Path) -> None:
    # A on a one-worker Dask LocalCluster (the worker process finds the plug-in through its entry point), B serial
    for out, extra in (("a", ["--workers", "1"]), ("b", ["--workers", "0", "-p", "p_heads=0.4"])):
        swept = cli("sweep", NAME, "--seeds", "0-1", "--quick", "--no-progress", "--out", str(tmp_path / out), *extra)
        assert swept.returncode == 0, swept.stderr
        assert "Unable to parse" not in swept.stderr and "unknown parameter" not in swept.stderr
        assert f"{NAME}: 2 points (2 run now, 0 done before), 0 raised" in swept.stdout
    rows = pl.read_parquet(tmp_path / "a" / NAME / "sweep.parquet").sort("seed")
    assert rows["seed"].to_list() == [0, 1] and rows["c.heads_majority"].to_list() == [True, True]
    assert (
        rows["m.heads"].to_list()[0]
        == json.loads((package / NAME / f"{NAME}.pins.json").read_text())["metrics"]["heads"]["exact"]
    )
    summary = pl.read_parquet(tmp_path / "a" / NAME / "summary.parquet")
    rate = summary.filter((pl.col("kind") == "metric") & (pl.col("name") == "heads_rate")).row(0, named=True)
    assert rate["n"] == 2 and rate["lo"] <= rate["mean"] <= rate["hi"]

    same = diff(str(tmp_path / "a"), str(tmp_path / "a"), "--json")
    assert same.returncode == 0 and json.loads(same.stdout)["regressions"] == []
    changed = diff(str(tmp_path / "a"), str(tmp_path / "b"))
    assert changed.returncode == 1
    assert (
        "| claim | **heads_majority — regressed in B** | 1 | [0.342, 1] | 0 | [0, 0.658] | -1 | yes |" in changed.stdout
    )
    assert "| metric | heads_rate |" in changed.stdout and "| NO |" in changed.stdout  # the rates' intervals apart
    assert f"1 regressed: {NAME}: heads_majority" in changed.stderr


def test_diff_of_two_results_folders_calls_out_the_claim_that_fails(package: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli("run", NAME, "--quick", "--out", str(a), "--no-progress").returncode == 0
    assert cli("run", NAME, "--quick", "-p", "p_heads", "0.4", "--out", str(b), "--no-progress").returncode == 0
    shown = diff(str(a), str(b))
    assert shown.returncode == 1
    assert "| claim | **heads_majority — held in A, fails in B** | yes | NO | — |" in shown.stdout
    ma, mb = (json.loads((d / NAME / "metrics.json").read_text()) for d in (a, b))
    assert f"| metric | heads | {ma['heads']} | {mb['heads']} | {mb['heads'] - ma['heads']} |" in shown.stdout
    as_json = json.loads(diff(str(a), str(b), "--json").stdout)
    assert as_json["regressions"] == [f"{NAME}: heads_majority"]
    assert diff(str(a), str(a)).returncode == 0


def test_plugin_pins_hold_then_fail_with_one_line_each_then_are_rewritten(package: Path) -> None:
    held = pytest_in(package)
    assert held.returncode == 0, held.stdout + held.stderr
    assert "3 passed" in held.stdout

    pins_path = package / NAME / f"{NAME}.pins.json"
    original = pins_path.read_text()
    pins = json.loads(original)
    heads = pins["metrics"]["heads"]["exact"]
    pins["metrics"]["heads"] = {"exact": heads + 1}
    pins["metrics"]["heads_rate"] = {"approx": 0.5, "abs": 0.01}
    pins["metrics"]["ghost"] = {"min": 0, "max": 1}
    del pins["metrics"]["tails"]
    pins_path.write_text(json.dumps(pins))
    try:
        failed = pytest_in(package, "-k", "pins")
        assert failed.returncode == 1
        out = failed.stdout
        notebook = package / NAME / f"{NAME}.ipynb"
        assert f"3 of 4 pins off ({notebook}, pins {pins_path}):" in out
        where = f" — {NAME}.ipynb\n"
        assert f"  heads = {heads}, pinned exactly {heads + 1}{where}" in out
        rate = f"heads_rate = {heads / 2000!r}, pinned 0.5 ± 0.01 (abs) (off by +{heads / 2000 - 0.5:.3g})"
        assert f"  {rate}{where}" in out
        assert f"  ghost: pinned (in [0, 1]) but not recorded{where}" in out
        assert "recorded but not pinned: tails" in out

        # the same check from the command line, with no test written: --solvi-pins
        listed = pytest_in(package.parent, "--solvi-pins", NAME, "--rootdir", str(package.parent))
        assert listed.returncode == 1 and f"heads = {heads}, pinned exactly {heads + 1}" in listed.stdout

        rewritten = pytest_in(package, "-k", "pins", "--solvi-update-pins")
        assert rewritten.returncode == 0, rewritten.stdout
        assert f"heads: exactly {heads + 1} → exactly {heads}" in rewritten.stdout
        assert "ghost: removed (no longer recorded)" in rewritten.stdout
        assert "tails: pinned exactly" in rewritten.stdout
        again = json.loads(pins_path.read_text())["metrics"]
        assert again["heads"] == {"exact": heads} and again["heads_rate"]["abs"] == 0.01 and "ghost" not in again
        assert pytest_in(package, "-k", "pins").returncode == 0

        pins_path.unlink()  # pinning for the first time writes what `new` measured
        first = pytest_in(package, "-k", "pins", "--solvi-update-pins")
        assert first.returncode == 0, first.stdout
        assert json.loads(pins_path.read_text()) == json.loads(original)
    finally:
        pins_path.write_text(original)


def test_a_broken_plugin_is_one_line_and_the_others_still_run(package: Path, tmp_path: Path) -> None:
    study = package / NAME / "study.py"
    source = study.read_text()
    study.write_text(source + "\nimport solvi_no_such_module_anywhere\n")
    try:
        expected = (
            f"plug-in study {NAME!r} (package {NAME!r}, module {NAME}.study): cannot import {NAME}.study: "
            f"ModuleNotFoundError: No module named 'solvi_no_such_module_anywhere'; fix it, or `pip uninstall {NAME}`."
        )
        listed = cli("list")
        assert listed.returncode == 0
        assert f"{NAME:24s} broken       {NAME} [{NAME}] — {expected}" in listed.stdout.splitlines()
        ran = cli("run", NAME, "--quick", "--out", str(tmp_path))
        assert ran.returncode == 2 and ran.stderr.strip().splitlines() == [f"error: {expected}"]
        both = cli("reproduce", "--quick", "--only", "example", NAME, "--out", str(tmp_path), "--no-progress")
        assert both.returncode == 1
        assert f"{NAME}: FAILED — {expected}" in both.stdout
        assert json.loads((tmp_path / "example" / "run.json").read_text())["status"] == "ok"
    finally:
        study.write_text(source)
    missing_run = "from solvi_lab.studies.params import ParamSpec\nPARAMS = ParamSpec(" + repr(NAME) + ")\n"
    study.write_text(missing_run)
    try:
        shown = cli("run", NAME, "--quick", "--out", str(tmp_path))
        assert shown.returncode == 2
        assert (
            f"error: plug-in study {NAME!r} (package {NAME!r}, module {NAME}.study): {NAME}.study has no run()"
            in shown.stderr
        )
    finally:
        study.write_text(source)


def test_new_refuses_bad_names(tmp_path: Path) -> None:
    for name, reason in (
        ("Coin", "use lower-case letters"),
        ("example", "already exists"),
        ("class", "use lower-case"),
    ):
        with pytest.raises(BadInput, match=reason):
            scaffold.new_study(name, tmp_path)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    with pytest.raises(BadInput, match="already exists and is not empty"):
        scaffold.new_study("taken", tmp_path)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["notes.txt", "taken"]


def test_a_sweep_where_every_seed_raises_is_one_line_per_error(package: Path, tmp_path: Path) -> None:
    study = package / NAME / "study.py"
    source = study.read_text()
    study.write_text(
        source.replace(
            "    PARAMS.check(n_flips=n_flips, p_heads=p_heads, seed=seed)\n",
            "    PARAMS.check(n_flips=n_flips, p_heads=p_heads, seed=seed)\n"
            "    if seed == 2:\n        raise KeyError('no such coin')\n"
            "    raise NotImplementedError('write run() first')\n",
        )
    )
    try:
        out = tmp_path / "sweeps"
        swept = cli("sweep", NAME, "--seeds", "0-2", "--quick", "--workers", "0", "--no-progress", "--out", str(out))
    finally:
        study.write_text(source)
    assert swept.returncode == 1
    assert swept.stdout == f"{NAME}: 3 points (3 run now, 0 done before), 3 raised → {out / NAME / 'SUMMARY.md'}\n"
    assert swept.stderr.splitlines() == [
        f"error: {NAME}: 2 of 3 points raised NotImplementedError: write run() first (seeds 0, 1)",
        f"error: {NAME}: 1 of 3 points raised KeyError: 'no such coin' (seed 2)",
    ]
    summary = (out / NAME / "SUMMARY.md").read_text()
    assert "No point finished without an error" in summary and "| 2 | KeyError: 'no such coin' |" in summary


def test_its_sweeps_carry_its_own_version_and_commit_beside_solvi_labs(package: Path, tmp_path: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(package)]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "study"]):
        assert subprocess.run([*git, *step], capture_output=True).returncode == 0
    try:
        commit = subprocess.run([*git, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
        swept = cli("sweep", NAME, "--seeds", "0", "--quick", "--workers", "0", "--no-progress", "--out", str(tmp_path))
    finally:
        import shutil

        shutil.rmtree(package / ".git")
    assert swept.returncode == 0, swept.stderr
    row = pl.read_parquet(tmp_path / NAME / "sweep.parquet").row(0, named=True)
    assert (row["study_package"], row["study_version"], row["study_commit"]) == (NAME, "0.1.0", commit)
    from solvi_lab import __version__
    from solvi_lab.sweep.point import code_commit

    assert row["version"] == __version__ and row["commit"] == code_commit()
    summary = (tmp_path / NAME / "SUMMARY.md").read_text()
    assert f"Ran on solvi_lab {__version__} at commit `{row['commit']}`; the study: package {NAME} 0.1.0, commit `{commit}`" in summary


def test_its_tests_write_nothing_outside_its_folder_and_the_venv(package: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in _env().items() if not k.startswith(("XDG_", "IPYTHONDIR", "MPLCONFIGDIR", "JUPYTER_"))}
    env["HOME"] = str(home)
    registered = any(ep.value == "solvi_lab.pytest_plugin" for ep in entry_points(group="pytest11"))
    plugin = [] if registered else ["-p", "solvi_lab.pytest_plugin"]
    before = {p for p in package.rglob("*")}
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin],
        capture_output=True,
        text=True,
        env=env,
        cwd=package,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert sorted(p.relative_to(home).as_posix() for p in home.rglob("*")) == []  # no ~/.ipython, ~/.cache, ~/.local
    new = sorted(p.relative_to(package).as_posix() for p in set(package.rglob("*")) - before)
    assert all("__pycache__" in p for p in new), new
