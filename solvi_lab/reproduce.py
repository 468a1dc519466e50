"""Execute study notebooks with papermill into a results folder — the engine behind `solvi-lab run` and `reproduce`.

Conventions (see docs/readme/reproduce.md):

- Kernel: always our own, `solvi-lab` (solvi_lab/kernel.py), passed explicitly (a kernel name stored in a notebook
  that names someone's venv is papermill's most common failure). `check_kernel()` installs it inside this
  environment when it is missing (never in `~`), and says what to do when it cannot.
- Working directory: the notebook's own folder (`notebooks/`), the same as Jupyter and nbval use, so a notebook
  behaves the same in all three. Outputs do not depend on it: `results_dir` is always injected as an absolute path.
- Environment of the kernel: `MPLBACKEND=agg` (no GUI, no inline backend surprises), the checkout on `PYTHONPATH`
  (the kernel imports the same solvi_lab as the CLI).
- Parameters injected: `quick`, `results_dir`, the study's declared defaults for the mode, then the user's `-p`
  values (checked against the declaration before anything runs; see solvi_lab/studies/params.py).
  Injecting `quick` explicitly overrides a `SOLVI_LAB_QUICK` left set in the shell.
- Output: `<out>/<study>/<study>.ipynb` (executed, partial if it failed), the notebook's own metrics.json, PNGs
  and CSVs, and `run.json` (status, parameters, duration, error) that the report reads.

>>> parse_value("3"), parse_value("[1, 2]"), parse_value("true"), parse_value("risky")
(3, [1, 2], True, 'risky')
"""

from __future__ import annotations

import contextlib
import datetime
import json
import math
import os
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm  # plain tqdm: tqdm.auto needs ipywidgets and renders as text in static output

from . import kernel, machine
from . import progress as live  # `progress` is the keyword that turns bars on
from .errors import BadInput, BadParameter, SolviLabError
from .machine import usable_cores
from .notebook import atomic_write_text
from .studies import registry
from .validation import need_int

KERNEL_NAME = kernel.KERNEL_NAME
QUICK_ENV = "SOLVI_LAB_QUICK"
KERNEL_FIX = kernel.INSTALL_COMMAND

# What a study folder may hold from an earlier run; cleared before a rerun so the report never shows a stale
# figure or table the notebook no longer saves. The recorder overwrites metrics.json (never merges); it is listed
# so a notebook that fails before its first record leaves no earlier run's metrics behind.
_STALE_PATTERNS = ("metrics.json", "caveats.json", "run.json", "*.png", "*.csv", "*.ipynb")


@dataclass
class StudyRun:
    """What happened to one study: written to `<out>/<study>/run.json` and read back by the report.

    status: "ok", "failed", "no_data" (skipped: data missing, not a failure) or "no_notebook" (not yet available).
    """

    study: str
    status: str
    quick: bool
    source: str
    executed: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    started: str = ""
    message: str = ""

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    def save(self, out: Path) -> Path:
        path = Path(out) / self.study / "run.json"
        atomic_write_text(path, json.dumps(asdict(self), indent=2, sort_keys=True, default=str) + "\n")
        return path


def parse_value(text: str) -> Any:
    """A `-p name value` value for a notebook no study declares: JSON when it parses (numbers, true/false/null,
    lists, dicts, quoted strings), else the string. Non-finite numbers and ints too long to convert are refused.

    >>> parse_value("NaN")
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadParameter: value 'NaN' is not a finite number; give a finite number, or quote a string as '"NaN"'.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text
    except ValueError:  # an int of more digits than Python converts (sys.get_int_max_str_digits)
        raise BadParameter(f"value {text[:20]}… ({len(text)} characters) is too long a number.") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise BadParameter(
            f"value {text!r} is not a finite number; give a finite number, or quote a string as '\"{text}\"'."
        )
    return value


def parse_parameters(
    pairs: list[tuple[str, str]] | list[list[str]] | None, studies: list[registry.StudyInfo] | None = None
) -> dict[str, Any]:
    """`[("n_worlds", "50"), ("policy", "protect")]` → `{"n_worlds": 50, "policy": "protect"}`.

    With `studies`, every name must be declared by at least one of them (or be `seed`) and every value must be
    accepted by each study that declares it (converted to the declared type); otherwise BadParameter says which
    parameter, what it got and what it accepts — before anything runs. Without, values are parsed as JSON.

    >>> parse_parameters([["n", "5"], ["name", "x"]])
    {'n': 5, 'name': 'x'}
    >>> parse_parameters([["streams", "2"], ["seed", "7"]], [registry.get("risk_dungeon")])
    {'streams': 2, 'seed': 7}
    """
    params: dict[str, Any] = {}
    # only studies that will run are asked (one not written yet, or without its data, is skipped anyway)
    ready = [i for i in studies or [] if pairs and registry.availability(i).status == "ready"]
    specs = [registry.spec(info) for info in ready]
    for name, value in pairs or []:
        if not name.isidentifier():
            raise BadParameter(
                f"parameter name {name!r} is not a Python identifier; use e.g. -p streams 8 (`solvi-lab list --params STUDY`)."
            )
        if name in ("results_dir",):
            raise BadParameter("results_dir is set by --out; pass --out DIR instead of -p results_dir.")
        if name == "quick":
            raise BadParameter("quick is set by --quick; pass --quick instead of -p quick.")
        if studies is None:
            params[name] = parse_value(value)
            continue
        declaring = [s for s in specs if name == "seed" or name in s.names]
        if not declaring:
            if len(specs) == 1 and name != "seed":
                specs[0].get(name)  # raises, listing that study's parameters
            names = ", ".join(s.study for s in specs) or "none can run here"
            raise BadParameter(
                f"no study of this run ({names}) has a parameter {name!r}; see `solvi-lab list --params STUDY`, "
                "or choose the studies with --only."
            )
        for s in declaring:
            params[name] = s.convert(name, value)
    return params


def overrides_for(info: registry.StudyInfo, overrides: dict[str, Any]) -> dict[str, Any]:
    """The overrides a study declares (seed included): a `-p` given to several studies reaches those that have it."""
    names = {"seed", *registry.spec(info).names}
    return {k: v for k, v in overrides.items() if k in names}


def check_kernel(name: str = KERNEL_NAME) -> None:
    """Make sure Jupyter has our kernel: installed inside this environment if missing (solvi_lab/kernel.py), then
    looked up the way papermill will, so a kernel that still cannot be found gets the fix, not NoSuchKernel."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    if name == KERNEL_NAME:
        kernel.ensure_kernel()
    try:
        KernelSpecManager().get_kernel_spec(name)
    except NoSuchKernel:
        raise SolviLabError(
            f"no Jupyter kernel named {name!r} is found, so notebooks cannot run. "
            f"Install it inside this environment: `{KERNEL_FIX}` (with the Python where solvi_lab is installed; "
            "check that $JUPYTER_PATH does not hide it), then retry."
        ) from None


@contextlib.contextmanager
def kernel_environment() -> Iterator[None]:
    """Set the environment the kernel inherits (MPLBACKEND=agg, this checkout first on PYTHONPATH), then restore it."""
    saved = {k: os.environ.get(k) for k in ("MPLBACKEND", "PYTHONPATH")}
    os.environ["MPLBACKEND"] = "agg"
    paths = [str(registry.REPO_ROOT)] + [p for p in (saved["PYTHONPATH"] or "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


_ENGINE = "solvi_lab"


def _engine_name() -> str:
    """Register papermill's engine `solvi_lab`: its per-cell progress bar is plain tqdm instead of tqdm.auto.

    Registering through the public `papermill_engines.register` is idempotent (it sets one entry), so it runs on
    every call rather than asking papermill's private registry whether the name is there yet.
    """
    from papermill.engines import NBClientEngine, papermill_engines

    class PlainTqdmEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):  # type: ignore[no-untyped-def]
            # `solvi_progress` comes from execute()'s call (papermill passes unknown keywords on to the engine):
            # per call, no module state. Removed before nbclient sees it. A path: the cells go to that file (a
            # notebook in a Dask worker, whose bar the main process draws); a callable: it builds the bar from the
            # cell count (live.JobProgress.cells_of); True: a tqdm bar named by the study.
            shown = kwargs.pop("solvi_progress", True)
            if isinstance(shown, (str, Path)):
                nb_man.pbar = live.CellFile(shown, total=len(nb_man.nb.cells))
            elif callable(shown):  # a notebook run in this process whose cells the job's one line shows
                nb_man.pbar = shown(len(nb_man.nb.cells))
            elif shown:
                nb_man.pbar = tqdm(
                    total=len(nb_man.nb.cells), unit="cell", desc=Path(nb_man.output_path).stem, leave=False
                )
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)

    papermill_engines.register(_ENGINE, PlainTqdmEngine)
    return _ENGINE


#: What a notebook's cells are shown by: True a bar of its own, False nothing, a path a live.CellFile, a callable
#: a per-cell sink built from the cell count (live.JobProgress.cells_of).
CellProgress = bool | Path | Callable[[int], Any]


def execute(notebook: Path, executed: Path, parameters: dict[str, Any], *, progress: CellProgress = True) -> None:
    """Run one notebook with papermill into `executed`; papermill's exceptions propagate (the partial notebook stays).

    Checks the kernel first (installing ours if missing) so papermill never raises its NoSuchKernel.
    """
    import papermill

    check_kernel()
    executed.parent.mkdir(parents=True, exist_ok=True)
    with kernel_environment():
        papermill.execute_notebook(
            str(notebook),
            str(executed),
            parameters=parameters,
            kernel_name=KERNEL_NAME,
            engine_name=_engine_name(),
            cwd=str(notebook.parent),
            progress_bar=False,  # ours is attached by the engine above
            log_output=False,
            solvi_progress=progress,
        )


def clear_stale(study_dir: Path) -> None:
    """Remove the files an earlier run of this study left (only the kinds a run writes; nothing else is touched)."""
    if not study_dir.is_dir():
        return
    for pattern in _STALE_PATTERNS:
        for path in study_dir.glob(pattern):
            if path.is_file():
                path.unlink()


def injected_parameters(
    info: registry.StudyInfo | None, out: Path, *, quick: bool, overrides: dict[str, Any]
) -> dict[str, Any]:
    """What papermill injects: the mode, the absolute results folder, the study's params for the mode, then overrides."""
    params: dict[str, Any] = {}
    if info is not None:
        params.update(registry.study_params(info, quick=quick))
        overrides = overrides_for(info, overrides)
    params.update(overrides)
    params["quick"] = quick
    params["results_dir"] = str(Path(out).resolve())
    return params


def notebook_defaults(notebook: Path) -> dict[str, Any]:
    """The parameters cell's values: literals as values, anything else (an os.environ lookup) as its source text.

    The report needs them to show a parameter nobody injected, the seed above all.
    """
    import ast

    import papermill

    defaults: dict[str, Any] = {}
    for name, spec in papermill.inspect_notebook(str(notebook)).items():
        try:
            defaults[name] = ast.literal_eval(spec["default"])
        except (ValueError, SyntaxError):
            defaults[name] = spec["default"]
    return defaults


def check_notebook(notebook: Path) -> None:
    """BadInput in one line unless `notebook` reads as a Jupyter notebook (JSON, nbformat 4, valid cells):
    `solvi-lab run` says so before any kernel starts, instead of a papermill traceback."""
    import nbformat

    try:
        nb = nbformat.read(str(notebook), as_version=4)
        nbformat.validate(nb)
    except Exception as err:  # NotJSONError, ValidationError, a wrong type anywhere in the cells
        reason = " ".join(str(err).split())[:160] or type(err).__name__
        raise BadInput(
            f"notebook {notebook} is corrupt ({type(err).__name__}: {reason}); open it in Jupyter to repair it, "
            "or restore it from git (git checkout -- FILE)."
        ) from None


def _failure_message(err: BaseException) -> str:
    from papermill.exceptions import PapermillExecutionError

    if isinstance(err, PapermillExecutionError):
        return f"{err.ename}: {err.evalue} (in code cell [{err.exec_count}])"
    return f"{type(err).__name__}: {err}"


def run_notebook(
    notebook: Path,
    out: Path,
    *,
    study: str | None = None,
    quick: bool = False,
    overrides: dict[str, Any] | None = None,
    progress: CellProgress = True,
) -> StudyRun:
    """Execute one notebook (registered or not) into `<out>/<study>/`; never raises for a failing notebook.

    progress: True, a bar per cell; False, none; a path, the cells written to that file (live.CellFile); a
    callable, the per-cell sink it builds from the cell count.

    A registered study whose notebook is missing or whose data is missing is not executed; the returned
    StudyRun says why and what to do.
    """
    # absolute before papermill changes directory to the notebook's folder: a relative `out` (or progress file)
    # would otherwise land under notebooks/
    out = Path(out).resolve()
    if isinstance(progress, (str, Path)):
        progress = Path(progress).resolve()
    name = study or notebook.stem
    info = registry.STUDIES.get(name)
    started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    record = StudyRun(study=name, status="ok", quick=quick, source=str(notebook), started=started)

    broken = registry.problem(info) if info is not None and not info.builtin else None
    if broken is not None:  # a plug-in whose module cannot be used: reported, and the other studies still run
        record.status, record.message = "failed", broken
        record.save(out)
        return record
    if not notebook.exists():
        if info is None or info.notebook_path.resolve() != notebook.resolve():
            raise SolviLabError(f"notebook {notebook} does not exist; known studies: {registry.known_names()}.")
        record.status = "no_notebook"
        record.message = f"{info.notebook} does not exist yet (study {name!r} is not yet available)."
        record.save(out)
        return record
    instruction = registry.missing_data(info) if info is not None else None
    if instruction is not None:
        record.status, record.message = "no_data", instruction
        record.save(out)
        return record

    study_dir = out / name
    executed = study_dir / f"{name}.ipynb"
    clear_stale(study_dir)
    t0 = time.perf_counter()
    try:
        record.defaults = notebook_defaults(notebook)
        record.parameters = injected_parameters(info, out, quick=quick, overrides=overrides or {})
        record.executed = str(executed)
        execute(notebook, executed, record.parameters, progress=progress)
    except KeyboardInterrupt:
        raise
    except Exception as err:  # a failing study is reported, and the others still run
        record.status = "failed"
        record.message = _failure_message(err)
        shown = "".join(traceback.format_exception_only(type(err), err)).strip()
        if not executed.exists() and shown.split(": ", 1)[-1] != record.message.split(": ", 1)[-1]:
            record.message += "\n" + shown  # the exception's own lines, when they say more than the message
    record.seconds = round(time.perf_counter() - t0, 2)
    record.save(out)
    return record


def reproduce(
    out: Path | str = "results",
    *,
    quick: bool = False,
    only: list[str] | None = None,
    overrides: dict[str, Any] | None = None,
    progress: bool = True,
    seeds: int = 0,
    workers: int | None = None,
    jobs: int | None = None,
) -> list[StudyRun]:
    """Run every available registered study (or `only` those) into `out`, then write REPORT.md and report.html.

    jobs: notebooks run at once, each in its own Dask worker process (default: the usable cores; 1 runs them one
    after the other in this process, with a progress bar per cell). The longest start first.

    seeds > 0: after the notebooks, sweep seeds 0..seeds-1 of every study that ran into `<out>/sweeps/<study>/`
    (resuming what an earlier call finished) at the sizes `sweep_quick` says, so the report shows each summary.

    Unknown names raise BadInput before anything runs. A kernel that cannot be installed raises before anything runs.
    """
    from .report import build_report

    if jobs is not None:
        need_int("jobs", jobs, min=1, hint="notebooks at once; 1 runs them one after the other")
    studies = registry.select(only)
    out = Path(out).resolve()  # before papermill's change of directory: progress and outputs stay under `out`
    out.mkdir(parents=True, exist_ok=True)
    check_kernel()
    atomic_write_text(out / "machine.json", json.dumps(machine.describe(), indent=2) + "\n")

    # Several notebooks at once pay when at least two can run here (the others return at once with what is
    # missing), quick ones too: on 2 cores every study's quick run took half the time two at once, the worker
    # processes' start included (measured 2026-12-06, CHANGELOG).
    ready = [i for i in studies if registry.availability(i).status == "ready"]
    jobs = (jobs or usable_cores()) if len(ready) > 1 else 1
    previous = live.previous_seconds(out, [i.name for i in ready], quick=quick)  # before run.json is cleared
    if jobs > 1:
        by_name = {
            r.study: r
            for r in _run_on_dask(
                ready,
                out,
                jobs=min(jobs, len(ready)),
                quick=quick,
                overrides=overrides,
                progress=progress,
                previous=previous,
            )
        }
        runs = [
            by_name[i.name]
            if i.name in by_name
            else run_notebook(i.notebook_path, out, study=i.name, quick=quick, overrides=overrides, progress=False)
            for i in studies
        ]
    else:
        runs = []
        shown = live.JobProgress([i.name for i in studies], jobs=1, previous=previous) if progress else None
        for info in studies:
            run = run_notebook(
                info.notebook_path,
                out,
                study=info.name,
                quick=quick,
                overrides=overrides,
                progress=shown.cells_of(info.name) if shown is not None else False,
            )
            runs.append(run)
            if shown is not None:
                shown.finished(run.study, describe_run(run), ok=run.status == "ok")
        if shown is not None:
            shown.close()
    if seeds > 0:
        sweep_studies(
            out,
            [r.study for r in runs if r.status == "ok"],
            quick=quick,
            seeds=seeds,
            workers=workers,
            overrides=overrides or {},
            progress=progress,
        )
    described = json.loads((out / "machine.json").read_text(encoding="utf-8"))
    described["load_end"] = machine.load_average()  # the load the timings ran under, measured at both ends
    atomic_write_text(out / "machine.json", json.dumps(described, indent=2) + "\n")
    build_report(out, studies=[r.study for r in runs])
    return runs


#: The notebooks that take longest at full size, started first when several run at once (reproduce(jobs=)), so the
#: workers finish together (measured: retraction ~140 s, τ-bench retail ~30 s, toy crafting ~17 s, explore ~11 s).
LONGEST_FIRST = ("retraction", "crafter", "taubench_action_model", "toy_crafting", "explore")


def start_order(studies: list[registry.StudyInfo]) -> list[registry.StudyInfo]:
    """The order notebooks start in when several run at once: LONGEST_FIRST, then the rest in registry order."""
    return sorted(studies, key=lambda i: LONGEST_FIRST.index(i.name) if i.name in LONGEST_FIRST else len(LONGEST_FIRST))


def _run_on_dask(
    studies: list[registry.StudyInfo],
    out: Path,
    *,
    jobs: int,
    quick: bool,
    overrides: dict[str, Any] | None,
    progress: bool,
    previous: dict[str, float] | None = None,
) -> list[StudyRun]:
    """Run the notebooks on a LocalCluster of `jobs` worker processes (each notebook still gets its own kernel);
    return their StudyRuns in the studies' order.

    Each worker writes its notebook's cells to `<out>/.progress/<study>.json`; between waits the bar shows the
    studies running with their cells and the time left from measured times (solvi_lab/progress.py)."""
    import shutil

    from distributed import wait

    from .sweep.runner import client_for

    order = start_order(studies)
    done: dict[str, StudyRun] = {}
    cells_dir = Path(out).resolve() / ".progress"  # absolute: a worker's papermill runs in notebooks/
    shutil.rmtree(cells_dir, ignore_errors=True)
    cells = {info.name: cells_dir / f"{info.name}.json" for info in order}
    with client_for(workers=jobs, scheduler=None) as client:
        futures = [
            client.submit(
                run_notebook,
                info.notebook_path,
                out,
                study=info.name,
                quick=quick,
                overrides=overrides,
                progress=cells[info.name],  # the main process shows the cells (and when a study starts)
                pure=False,
                key=f"notebook-{info.name}",
            )
            for info in order
        ]
        shown = (
            live.JobProgress([i.name for i in order], jobs=jobs, previous=previous, title=f"reproduce ({jobs} at once)")
            if progress
            else None
        )
        pending = set(futures)
        while pending:
            try:
                finished, pending = wait(pending, timeout=1.0, return_when="FIRST_COMPLETED")
            except TimeoutError:  # none finished in this second: redraw what is running
                finished = set()
            if shown is not None:
                # before the finished ones are named: a study that ran within one wait is still seen to start
                shown.running(
                    {
                        i.name: state
                        for i in order
                        if i.name not in done and (state := progress_state(cells[i.name])) is not None
                    }
                )
            for fut in finished:
                run = fut.result()
                done[run.study] = run
                if shown is not None:
                    shown.finished(run.study, describe_run(run), ok=run.status == "ok")
        if shown is not None:
            shown.close()
    shutil.rmtree(cells_dir, ignore_errors=True)
    return [done[info.name] for info in studies]


def progress_state(path: Path) -> live.Running | None:
    """A running notebook's (elapsed, cells done, cells); None until its worker has started it."""
    return live.read_cells(path)


#: Studies whose full size takes minutes per seed: `reproduce --seeds` sweeps them at their quick sizes.
SWEEP_QUICK_ONLY = frozenset({"retraction", "taubench_action_model"})


def sweep_quick(study: str, quick: bool) -> bool:
    """The size a `reproduce --seeds` sweep of `study` uses: quick with --quick, and always for SWEEP_QUICK_ONLY."""
    return quick or study in SWEEP_QUICK_ONLY


def sweep_studies(
    out: Path,
    studies: list[str],
    *,
    quick: bool,
    seeds: int,
    workers: int | None,
    overrides: dict[str, Any],
    progress: bool = True,
) -> None:
    """Sweep seeds 0..seeds-1 of each study into `<out>/sweeps/<study>/` (the notebooks' -p values held fixed)."""
    from . import sweep as sweeps

    for name in studies:
        fixed = {k: [v] for k, v in overrides_for(registry.get(name), overrides).items() if k != "seed"}
        ps = sweeps.points(name, quick=sweep_quick(name, quick), grid=fixed, seeds=list(range(seeds)))
        sweeps.sweep(ps, out / "sweeps" / name, workers=workers, resume=True, progress=progress)


def describe_run(run: StudyRun) -> str:
    """One study's outcome in a sentence or two, for the terminal."""
    if run.status == "ok":
        return f"{run.study}: ok in {run.seconds:.1f}s → {run.executed}"
    if run.status == "no_notebook":
        return f"{run.study}: not yet available — {run.message}"
    if run.status == "no_data":
        return f"{run.study}: skipped, data missing (not a failure) — {run.message}"
    where = (
        f"partial notebook: {run.executed}" if run.executed and Path(run.executed).exists() else "no notebook written"
    )
    return f"{run.study}: FAILED — {run.message}\n    {where}"
