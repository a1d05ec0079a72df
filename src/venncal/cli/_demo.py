"""``venncal demo``: calibrate a few scikit-learn models on the shipped Adult data.

The computation is :mod:`venncal.experiments.demo`; this module parses the options,
runs it and prints its report.
"""

from __future__ import annotations

import argparse
from importlib.util import find_spec

from ._common import check_outputs, command

__all__ = ["add_parser", "run"]

DEFAULT_PLOT = "venncal-demo-reliability.png"
# The sizes of --quick, repeated here so that building the parser imports nothing heavy
# (tests check that they agree with venncal.experiments.demo).
QUICK_ROWS = 5_000


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``venncal demo`` on ``subparsers`` (from ``add_subparsers``); return its parser."""
    description = (
        "Train logistic regression, Gaussian naive Bayes and a random forest on the UCI "
        "Adult training file shipped with venncal, calibrate them with Platt scaling, "
        "isotonic regression, the inductive (IVAP) and the cross (CVAP, 5 folds) "
        "Venn-Abers predictors, print the test-set metrics and write reliability diagrams."
    )
    parser = subparsers.add_parser(
        "demo",
        help="calibrate a few models on the shipped Adult data and print a loss table",
        description=description,
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="random seed for subsampling, the models and the calibration splits (default: 0)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=(
            f"use a random subsample of {QUICK_ROWS:,} training and "
            f"{QUICK_ROWS:,} test rows (a few seconds instead of ~20)"
        ),
    )
    parser.add_argument(
        "--plot",
        default=DEFAULT_PLOT,
        metavar="PATH",
        help=(
            "write the reliability diagrams (one panel per model) to this PNG "
            f'(default: {DEFAULT_PLOT}; needs matplotlib: pip install "venncal[plot]")'
        ),
    )
    parser.add_argument(
        "--no-plot", dest="plot", action="store_const", const=None, help="write no figure"
    )
    parser.set_defaults(func=run)
    return parser


@command("demo")
def run(args: argparse.Namespace) -> int:
    """Run ``venncal demo``: compute, print the tables, write the figure; return 0."""
    if args.plot and find_spec("matplotlib") is not None:  # without it the figure is skipped
        check_outputs({}, {"--plot": (args.plot, "plot")})
    from ..experiments import demo

    result = demo.run(seed=int(args.seed), quick=bool(args.quick))
    print(demo.report(result, plot=args.plot).text)
    return 0
