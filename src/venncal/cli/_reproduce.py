"""``venncal reproduce NAME``: rerun a published experiment and compare with the paper.

The experiments and their reports live in :mod:`venncal.experiments`; this module parses
the options, looks the experiment up in the registry
(:data:`venncal.experiments.EXPERIMENTS`), calls its ``run`` and ``report`` and prints.
"""

from __future__ import annotations

import argparse
import importlib
import shlex
import sys
from pathlib import Path

__all__ = ["add_parser", "run"]

DEFAULT_OUT = "venncal-reproduce"


def _listing() -> str:
    from ..experiments import EXPERIMENTS

    return "\n".join(f"  {name}: {entry.summary}" for name, entry in EXPERIMENTS.items())


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``venncal reproduce`` on ``subparsers`` (from ``add_subparsers``); return its parser."""
    parser = subparsers.add_parser(
        "reproduce",
        help="rerun a published experiment and write a report beside the paper's numbers",
        description=(
            "Rerun an experiment of a calibration paper, print our tables beside the "
            "paper's and write DIR/report.md.\n\nexperiments:\n" + _listing()
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "name", metavar="NAME", nargs="?", help="the experiment to run (see above, or --list)"
    )
    parser.add_argument(
        "--list", action="store_true", help="print the available experiments and exit"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smaller grids, fewer random splits and a subsample of the test rows "
        "(each experiment in under two minutes)",
    )
    parser.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"folder for report.md and the figures (created if needed; default: {DEFAULT_OUT})",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="run the experiment's independent tasks (learners, columns, data sets, splits) "
        "on N processes (joblib; default: 1); results do not depend on N",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="seed of the learners, the random splits and the test subsample (default: 0)",
    )
    parser.add_argument(
        "--data-dir",
        default=None,
        metavar="DIR",
        help=(
            "read the data from this folder (one subfolder per UCI data set, e.g. "
            "DIR/ionosphere/ionosphere.data; the paths are listed in docs/data.md) instead of "
            "the files shipped with venncal; the experiments marked 'needs --data-dir' in "
            "--list need it or VENNCAL_DATA"
        ),
    )
    parser.set_defaults(func=run)
    return parser


def _error(message: str) -> int:
    print(f"venncal reproduce: {message}", file=sys.stderr)
    return 2


def _command_line() -> str | None:
    """Return the command as typed when run as ``venncal``; None lets the report rebuild it."""
    if Path(sys.argv[0]).name in ("venncal", "__main__.py"):
        return "venncal " + shlex.join(sys.argv[1:])
    return None


def run(args: argparse.Namespace) -> int:
    """Run ``venncal reproduce``; return the exit code (2 for a usage or data error)."""
    from ..experiments import EXPERIMENTS

    if args.list:
        print(_listing())
        return 0
    if args.name is None:
        return _error("give the NAME of an experiment (see venncal reproduce --list)")
    if args.name not in EXPERIMENTS:
        return _error(f"unknown experiment {args.name!r} (available: {', '.join(EXPERIMENTS)})")
    if args.jobs < 1:
        return _error("--jobs must be at least 1")
    if Path(args.out).exists() and not Path(args.out).is_dir():
        return _error(f"--out {args.out}: is a file; give a folder (created if needed)")
    experiment = importlib.import_module(f"venncal.experiments.{EXPERIMENTS[args.name].module}")
    print(f"venncal reproduce {args.name}{' --quick' if args.quick else ''}")
    try:
        result = experiment.run(
            quick=args.quick, seed=args.seed, jobs=args.jobs, data_dir=args.data_dir, echo=print
        )
    except FileNotFoundError as exc:  # no data folder, or a data file missing from it
        return _error(str(exc))
    written = experiment.report(result, args.out, command=_command_line())
    print()
    print(written.text)
    print(f"report written to {written.markdown} ({result.info.seconds:.1f} s)")
    return 0
