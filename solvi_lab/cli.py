"""`solvi-lab`: run one study notebook, reproduce every study, rebuild the report, list the studies.

    solvi-lab run notebooks/retraction.ipynb -p n_items 5000 --quick  # or: solvi-lab run retraction ...
    solvi-lab reproduce --quick --only example retraction --out results/
    solvi-lab report --out results/
    solvi-lab sweep risk_dungeon --seeds 0-19 -p streams=2,4 --quick   # Dask: --workers N | --scheduler ADDRESS
    solvi-lab list
    solvi-lab list --params risk_dungeon                              # the declared parameters of one study
    solvi-lab new coin_bias --dir ~/src                               # a study of your own, as a package
    solvi-lab diff results/before results/after                       # exit 1 if a claim held before, not after
    solvi-lab store-sweeps                                            # docs/sweeps/ and the docs' pass rates

Exit codes: 0 success (a study skipped for missing data or not yet written is not a failure), 1 a study failed
(the message names it and its partial notebook), 2 bad usage (unknown study, unknown parameter or a value its
declaration does not accept, --out naming a file, a missing notebook, a missing kernel) — always one line on
stderr and before any notebook starts.
See docs/readme/reproduce.md.

>>> main(["reproduce", "--only", "nope"])
2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import BadInput, SolviLabError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: A study skipped because its data is missing (not a failure; the line says how to get the data): `run` of that
#: study, and `reproduce` when nothing failed but a study was skipped so. docs/readme/reproduce.md, "Exit codes".
EXIT_SKIPPED = 3


def _parameter_option(parser: argparse.ArgumentParser, help: str) -> None:
    """The repeatable `-p NAME VALUE` option that `run` and `reproduce` share."""
    parser.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"), default=[], help=help)


def _parser() -> argparse.ArgumentParser:
    from .studies.registry import known_names

    parser = argparse.ArgumentParser(
        prog="solvi-lab",
        description="Execute solvi_lab's study notebooks with papermill and build the reproduction report.",
        epilog=f"Known studies: {known_names()}. Quick mode: --quick, or SOLVI_LAB_QUICK=1 for notebooks run "
        "outside papermill (Jupyter, nbval). See docs/readme/reproduce.md.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = sub.add_parser(
        "run",
        help="execute one notebook into <out>/<study>/",
        description="Execute one notebook with papermill (kernel solvi-lab, installed in this environment, MPLBACKEND=agg, cwd = the notebook's "
        "folder) and write the executed copy to <out>/<study>/<study>.ipynb.",
    )
    run.add_argument("notebook", metavar="NOTEBOOK", help="path of a .ipynb, or a registered study name")
    _parameter_option(
        run, "set a notebook parameter; VALUE is parsed as JSON when it can be (50, 0.5, true, [1,2]) else a string"
    )
    _common(run)

    rep = sub.add_parser(
        "reproduce",
        help="execute every available study, then write REPORT.md and report.html",
        description="Execute every registered study's notebook (full size by default) into <out>/<study>/ and "
        "write <out>/REPORT.md and <out>/report.html.",
    )
    rep.add_argument("--only", nargs="+", metavar="STUDY", help="run only these studies")
    rep.add_argument(
        "--seeds",
        default="0",
        metavar="K",
        help="then sweep seeds 0..K-1 of every study that ran (Dask; sizes: see docs/readme/sweeps.md) and show "
        "each summary beside the seed-0 table",
    )
    rep.add_argument("--workers", type=int, default=None, help="sweep workers (default: usable cores)")
    rep.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="notebooks run at once, each in a Dask worker process (default: usable cores; 1: one after the other)",
    )
    _parameter_option(rep, "set a parameter in every study run (e.g. -p seed 1)")
    _common(rep)

    sw = sub.add_parser(
        "sweep",
        help="run a study's run() over many seeds and a parameter grid on Dask; Parquet rows and a summary",
        description="Run STUDY's run() once per (parameters, seed) point on a Dask LocalCluster (default: one worker "
        "process per usable core) or an existing cluster (--scheduler). Each finished point is one Parquet file in "
        "<out>/<study>/points/; then sweep.parquet, summary.parquet, SUMMARY.md and a PNG per swept parameter.",
    )
    sw.add_argument("study", metavar="STUDY", help="a registered study name")
    sw.add_argument("--seeds", default="0-19", help="seeds: a range 0-19, a list 1,4,9 (default: 0-19)")
    sw.add_argument(
        "-p", "--parameter", action="append", default=[], metavar="NAME=V1,V2", help="sweep a parameter over values"
    )
    sw.add_argument("--quick", action="store_true", help="the declared quick sizes for parameters not swept")
    where = sw.add_mutually_exclusive_group()
    where.add_argument(
        "--workers", type=int, default=None, help="LocalCluster workers (default: usable cores; 0 = serial)"
    )
    where.add_argument("--scheduler", metavar="ADDRESS", help="an existing Dask scheduler, e.g. tcp://10.0.0.5:8786")
    sw.add_argument(
        "--out", default="results/sweeps", type=Path, help="folder (default: results/sweeps); <out>/<study>/"
    )
    sw.add_argument("--resume", action="store_true", help="skip the points already done in <out>/<study>/")
    sw.add_argument("--no-progress", action="store_true", help="no progress bar (for logs)")

    report = sub.add_parser("report", help="rebuild REPORT.md and report.html from a results folder")
    report.add_argument("--out", default="results", type=Path, help="results folder (default: results)")

    lst = sub.add_parser("list", help="list the registered studies and whether each can run here")
    lst.add_argument("--params", metavar="STUDY", help="print the declared parameters of one study instead")
    _new_parser(sub)
    _diff_parser(sub)
    _store_parser(sub)
    return parser


def _store_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    st = sub.add_parser(
        "store-sweeps",
        help="store sweeps in docs/sweeps/ (SUMMARY.md + index entry) and regenerate every generated block of the docs",
        description="Copy each sweep's SUMMARY.md to <docs>/sweeps/<study>_<size>.md and write its index.json entry "
        "from its rows (commit, seeds, size, date, machine; a +dirty, unknown or mixed commit is refused unless "
        "--allow-mixed), then rebuild every <!-- sweep-pass-rates: STUDY SIZE --> block and the <!-- studies-table "
        "--> of <docs>/**/*.md and README.md from docs/sweeps/, every <!-- stored: PATH#WHICH --> block from its file "
        "(a table of a committed benchmark output or stored sweep), every <!-- fault-table: PATH --> from its file and the "
        "<!-- perf-table --> from results/benchmarks/issue42/ (every kind of solvi_lab/sweep/blocks.py). With --blocks-only nothing is stored; with --check nothing is written and "
        "the exit status is 1 if a block is out of date. See docs/readme/sweeps.md.",
    )
    st.add_argument(
        "sweeps",
        nargs="*",
        metavar="STUDY:SIZE|FOLDER",
        help="what to store: STUDY:SIZE (found under --results) or a sweep folder (default: every sweep found)",
    )
    st.add_argument(
        "--results",
        default=Path("results/sweeps"),
        type=Path,
        help="where the sweeps are (default: results/sweeps, the --out of `solvi-lab sweep`)",
    )
    st.add_argument("--docs", default=Path("docs"), type=Path, help="the docs folder (default: docs)")
    st.add_argument(
        "--allow-mixed", action="store_true", help="store a sweep of several (or dirty) commits, naming each"
    )
    what = st.add_mutually_exclusive_group()
    what.add_argument("--blocks-only", action="store_true", help="store nothing; regenerate the blocks only")
    what.add_argument("--check", action="store_true", help="write nothing; exit 1 if a block is out of date")


def _new_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    new = sub.add_parser(
        "new",
        help="write a pip-installable package for a study of your own (docs/readme/your_own_study.md)",
        description="Write <dir>/NAME/: pyproject.toml with the solvi_lab.studies entry point, NAME/study.py "
        "(PARAMS, a seeded run(), one claim, one finding), a thin notebook, its metric pins and a test. Then "
        "`pip install -e <dir>/NAME` and `solvi-lab run NAME --quick`.",
    )
    new.add_argument("name", metavar="NAME", help="the study's name: lower-case letters, digits and _")
    new.add_argument("--dir", default=Path("."), type=Path, help="where to create NAME/ (default: here)")
    new.add_argument("--title", default=None, help="one line for `solvi-lab list` and the report")


def _diff_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    diff = sub.add_parser(
        "diff",
        help="compare two results folders (or two sweeps) per study and metric; exit 1 if a claim regressed",
        description="A and B side by side per study and metric: a, b, b − a; for sweeps the 95%% intervals and "
        "whether they overlap. A checked row that held in A and fails in B (for sweeps: a pass rate that fell "
        "beyond seed noise) is called out and makes the exit status 1.",
    )
    diff.add_argument("a", type=Path, metavar="A", help="results folder or sweeps folder (the reference)")
    diff.add_argument("b", type=Path, metavar="B", help="results folder or sweeps folder (the candidate)")
    diff.add_argument("--json", action="store_true", help="JSON instead of Markdown")
    diff.add_argument("--changed-only", action="store_true", help="only rows that differ (Markdown)")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="results", type=Path, help="results folder (default: results)")
    p.add_argument("--quick", action="store_true", help="small sizes: the study's QUICK_PARAMS and quick=True")
    p.add_argument("--no-progress", action="store_true", help="no progress bars (for logs)")


def _check_out(out: Path) -> None:
    """--out must be a folder (created if missing) this process can write in, never an existing file: checked by
    creating it and a probe file in it before anything runs, so a folder that cannot be written is one line naming
    --out (exit 2), not an OSError from the first result written."""
    import tempfile

    if out.exists() and not out.is_dir():
        raise BadInput(f"--out {out} is an existing file; give a folder (it is created if missing).")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise BadInput(f"--out {out}: {parent} is a file, not a folder; give a folder path.")
            break
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".solvi-write-probe-"):
            pass
    except OSError as e:
        why = e.strerror or type(e).__name__
        raise BadInput(
            f"--out {out}: cannot write there ({why}); give a folder you can write to, e.g. --out results "
            "(it is created if missing)."
        ) from None


def _resolve_notebook(arg: str) -> tuple[Path, str]:
    """A registered study name or a notebook path → (notebook path, study name)."""
    from .studies import registry

    if arg in registry.STUDIES:
        info = registry.STUDIES[arg]
        return info.notebook_path, info.name
    path = Path(arg)
    if path.suffix != ".ipynb":
        raise BadInput(f"{arg!r} is neither a known study nor a .ipynb path; known studies: {registry.known_names()}.")
    if not path.exists():
        stem = path.stem
        hint = (
            f" (study {stem!r} is registered but its notebook is not written yet)" if stem in registry.STUDIES else ""
        )
        raise BadInput(f"notebook {arg} does not exist{hint}; known studies: {registry.known_names()}.")
    return path, path.stem


def _cmd_run(args: argparse.Namespace) -> int:
    import json

    from . import machine, reproduce
    from . import progress as live
    from .notebook import atomic_write_text
    from .studies import registry

    notebook, study = _resolve_notebook(args.notebook)
    info = registry.STUDIES.get(study)
    if info is not None and notebook.resolve() != info.notebook_path.resolve():
        info = None  # a notebook of the same name elsewhere: its parameters are its own
    if info is not None and (wrong := registry.problem(info)) is not None:
        raise registry.BrokenStudy(wrong)  # the study's module first: a broken plug-in is named as such
    if notebook.exists():
        reproduce.check_notebook(notebook)  # a corrupt notebook: one line, exit 2, before any kernel starts
    overrides = reproduce.parse_parameters(args.parameter, [info] if info is not None else None)
    _check_out(args.out)
    reproduce.check_kernel()
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "machine.json", json.dumps(machine.describe(), indent=2) + "\n")
    # a bar per cell on a terminal only: in a log or a file its redraws would be hundreds of lines
    shown = not args.no_progress and live.is_terminal(sys.stderr)
    result = reproduce.run_notebook(
        notebook, args.out, study=study, quick=args.quick, overrides=overrides, progress=shown
    )
    print(reproduce.describe_run(result), file=sys.stdout if result.status == "ok" else sys.stderr)
    # `run` names one notebook: if it did not run, the caller should know — skipped for missing data (3, as
    # `reproduce`), failed or not written (1).
    if result.status == "no_data":
        return EXIT_SKIPPED
    return EXIT_OK if result.status == "ok" else EXIT_FAILED


def _seed_count(text: str) -> int:
    """`reproduce --seeds K`: a count (seeds 0..K-1). A range is `sweep`'s syntax: say so, and if it runs backwards.

    >>> _seed_count("20")
    20
    >>> _seed_count("5-2")
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: --seeds '5-2': reproduce takes a number of seeds K (it sweeps seeds 0..K-1), e.g. --seeds 20; a range runs with `solvi-lab sweep STUDY --seeds 2-5` (and 5-2 runs backwards: write 2-5).
    """
    text = str(text).strip()
    if text.lstrip("-").isdigit():
        k = int(text)
        if 0 <= k <= 10_000:
            return k
        raise BadInput(f"--seeds {k}: give a number of seeds in 0..10000 (0: no sweep).")
    low, sep, high = text.partition("-")
    if sep and low.isdigit() and high.isdigit():
        a, b = int(low), int(high)
        tail = f" (and {a}-{b} runs backwards: write {b}-{a})" if b < a else ""
        raise BadInput(
            f"--seeds {text!r}: reproduce takes a number of seeds K (it sweeps seeds 0..K-1), e.g. --seeds 20; "
            f"a range runs with `solvi-lab sweep STUDY --seeds {min(a, b)}-{max(a, b)}`{tail}."
        )
    raise BadInput(f"--seeds {text[:40]!r}: give a number of seeds K in 0..10000 (it sweeps seeds 0..K-1), e.g. 20.")


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from . import reproduce
    from .studies import registry

    overrides = reproduce.parse_parameters(args.parameter, registry.select(args.only))
    args.seeds = _seed_count(args.seeds)
    if args.workers is not None and args.workers < 0:
        raise BadInput(f"--workers {args.workers}: give 0 (serial) or a positive number of worker processes.")
    if args.jobs is not None and args.jobs < 1:
        raise BadInput(f"--jobs {args.jobs}: give 1 (one notebook after the other) or more notebooks at once.")
    _check_out(args.out)
    runs = reproduce.reproduce(
        args.out,
        quick=args.quick,
        only=args.only,
        overrides=overrides,
        progress=not args.no_progress,
        seeds=args.seeds,
        workers=args.workers,
        jobs=args.jobs,
    )
    for r in runs:
        print(reproduce.describe_run(r))
    print(f"report: {args.out / 'REPORT.md'} and {args.out / 'report.html'}")
    failed = [r for r in runs if r.failed]
    if failed:
        print(
            f"error: {len(failed)} of {len(runs)} studies failed: {', '.join(r.study for r in failed)}. "
            "Open each partial notebook (above) at its failing cell.",
            file=sys.stderr,
        )
        return EXIT_FAILED
    skipped = [r.study for r in runs if r.status == "no_data"]
    if skipped:
        print(
            f"note: {len(skipped)} of {len(runs)} studies skipped, their data missing (how to get it: above): "
            f"{', '.join(skipped)}; exit status {EXIT_SKIPPED}.",
            file=sys.stderr,
        )
        return EXIT_SKIPPED
    return EXIT_OK


def _cmd_sweep(args: argparse.Namespace) -> int:
    from . import sweep as sweeps
    from .studies import registry

    info = registry.get(args.study)
    grid = sweeps.parse_grid(args.parameter, registry.spec(info))
    seeds = sweeps.parse_seeds(args.seeds)
    if args.workers is not None and args.workers < 0:
        raise BadInput(f"--workers {args.workers}: give 0 (serial) or a positive number of worker processes.")
    _check_out(args.out)
    instruction = registry.missing_data(info)
    if instruction is not None:
        raise BadInput(instruction)
    points = sweeps.points(info.name, quick=args.quick, grid=grid, seeds=seeds)
    outcome = sweeps.sweep(
        points,
        args.out / info.name,
        workers=args.workers,
        scheduler=args.scheduler,
        resume=args.resume,
        progress=not args.no_progress,
    )
    print(
        f"{info.name}: {outcome.total} points ({outcome.ran} run now, {outcome.skipped} done before), "
        f"{outcome.raised} raised → {outcome.out / 'SUMMARY.md'}"
    )
    # one line per distinct error, naming the study and the seeds (the full rows are in SUMMARY.md / sweep.parquet)
    for error, seeds in sweeps.distinct_errors(outcome.frame):
        which = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {', '.join(map(str, seeds))}"
        print(f"error: {info.name}: {len(seeds)} of {outcome.total} points raised {error} ({which})", file=sys.stderr)
    return EXIT_FAILED if outcome.raised else EXIT_OK


def _cmd_report(args: argparse.Namespace) -> int:
    from . import report
    from .report import build_report

    if not args.out.is_dir():
        raise BadInput(f"results folder {args.out} does not exist; run `solvi-lab reproduce --out {args.out}` first.")
    md, html_path = build_report(args.out)
    print(f"report: {md} and {html_path}")
    damaged = report.problems(report.collect(args.out))
    for line in damaged:  # the report is built without them; each is named for what it is
        print(f"error: {line}", file=sys.stderr)
    return EXIT_FAILED if damaged else EXIT_OK


def _cmd_list(args: argparse.Namespace) -> int:
    from .studies import registry

    if args.params:
        print(registry.spec(registry.get(args.params)).table())
        return EXIT_OK
    for info in registry.STUDIES.values():
        status = registry.availability(info)
        note = "" if status.status == "ready" else f" — {status.detail.splitlines()[0]}"
        origin = "" if info.builtin else f" [{info.package}]"
        print(f"{info.name:24s} {status.status:12s} {info.title}{origin}{note}")
    for line in registry.declaration_problems():
        print(f"error: {line}", file=sys.stderr)
    return EXIT_OK


def _cmd_new(args: argparse.Namespace) -> int:
    from . import scaffold

    scaffold.check_name(args.name)  # a bad name first: it says more than a folder we cannot write
    try:
        root = scaffold.new_study(args.name, args.dir, title=args.title)
    except OSError as e:
        raise BadInput(
            f"--dir {args.dir}: cannot write the study there ({e.strerror or type(e).__name__}); give a folder you "
            "can write to, e.g. --dir ~/src."
        ) from None
    print(scaffold.next_steps(root, args.name))
    return EXIT_OK


def _cmd_diff(args: argparse.Namespace) -> int:
    from . import study_diff

    result = study_diff.diff(args.a, args.b)
    sys.stdout.write(result.to_json() if args.json else study_diff.markdown(result, changed_only=args.changed_only))
    if result.regressions:
        print(f"error: {len(result.regressions)} regressed: {', '.join(result.regressions)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _cmd_store_sweeps(args: argparse.Namespace) -> int:
    from .sweep import stored
    from .sweep.blocks import STORE_SWEEPS

    if not args.docs.is_dir():
        raise BadInput(f"--docs {args.docs} is not a folder; give the repository's docs/ folder.")
    if args.check or args.blocks_only:
        if args.sweeps:
            raise BadInput("--check and --blocks-only store nothing: give no STUDY:SIZE or folder with them.")
    else:
        found = stored.find(args.results, args.sweeps)
        for path in stored.store(found, args.docs, allow_mixed=args.allow_mixed):
            print(f"stored: {path}")
    changed = stored.regenerate(args.docs, check=args.check)
    for page in changed:
        print(f"{'out of date' if args.check else 'regenerated'}: {page}")
    if not changed:
        print(f"every generated block ({', '.join(STORE_SWEEPS)}) is up to date")
    return EXIT_FAILED if args.check and changed else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `solvi-lab` console script; returns the exit code."""
    from .kernel import keep_state_in_environment

    keep_state_in_environment()  # matplotlib's cache and IPython's profile in the venv, not under ~
    parser = _parser()
    args = parser.parse_args(argv)
    commands = {
        "run": _cmd_run,
        "reproduce": _cmd_reproduce,
        "sweep": _cmd_sweep,
        "report": _cmd_report,
        "list": _cmd_list,
        "new": _cmd_new,
        "diff": _cmd_diff,
        "store-sweeps": _cmd_store_sweeps,
    }
    try:
        return commands[args.command](args)
    except BadInput as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except SolviLabError as e:  # a missing kernel, a study module not written yet: the message says what to do
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:  # a folder that cannot be written, a full disk: say which, without a traceback
        print(f"error: {e}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("interrupted; partial notebooks are in the results folder.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
