"""``venncal monitor``: test and protect a recorded stream of forecasts with the Jumper (Vovk, Petej & Gammerman 2021).

The stream is a table of the model's probability of the positive class and the label
that then arrived, in order.  The Jumper test martingale bets against the forecasts
(its final value and the first step at which it reaches ``1/alpha`` are evidence of
miscalibration); the Jumper predictor's protected forecasts are compared with the
base ones.  The stream is fed to :mod:`venncal.online` block by block (continuation
is exact), with a progress bar on long streams.
"""

from __future__ import annotations

import argparse
import json
import math

from ._common import (
    CLIError,
    check_distinct_columns,
    check_outputs,
    command,
    finish_table_parser,
    save_figure,
)
from ._labels import add_positive_label_option, positive_label_option
from ._progress import Reporter

__all__ = ["FAMILIES", "add_parser", "run"]

#: Calibrating families of ``--family`` and the parameter grids used for each
#: (kept in step with :data:`venncal.online.families.NAMED`; written here so that
#: ``--help`` imports neither scipy nor numba; a test checks they agree).
FAMILIES = {
    "quadratic": "eq. (1), eps in {-1, -0.5, 0, 0.5, 1} (the paper's)",
    "cubic": "eq. (3), the identity and a in {-1, -0.5, 0.5, 1} x b in {0.25, 0.5, 0.75}",
    "cox": "eq. (4), beta in {0.5, 0.75, 1, 1.5, 2}",
    "cox2": "eq. (5), alpha in {-1, -0.5, 0, 0.5, 1} x beta in {0.5, 1, 2}",
    "shift+confidence": "quadratic+cubic+cox: shifts, over- and underconfidence about b, "
                        "sharpening and softening; the identity once (21 functions)",
}


def _unit_interval(text: str, *, low: float, high: float, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not low < value < high:
        raise argparse.ArgumentTypeError(f"{what} must lie in ({low:g}, {high:g}); got {text!r}")
    return value


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"the jump rate must lie in (0, 1]; got {text!r}")
    return value


def _clip(text: str) -> float:
    return _unit_interval(text, low=0.0, high=0.5, what="--clip")


def _alpha(text: str) -> float:
    return _unit_interval(text, low=0.0, high=1.0, what="--alpha")


def _family(text: str) -> str:
    if text in FAMILIES or set(text.split("+")) <= FAMILIES.keys():
        return text
    raise argparse.ArgumentTypeError(f"unknown family {text!r}; choose {', '.join(FAMILIES)}, "
                                     "or names joined by '+'")


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``venncal monitor`` on ``subparsers`` (from ``add_subparsers``); return its parser."""
    parser = subparsers.add_parser(
        "monitor",
        help="test a stream of forecasts for miscalibration and protect it (Jumper, Vovk, Petej & Gammerman 2021)",
        description=(
            "Read a stream of predicted probabilities and labels, in order; run the Jumper "
            "test martingale against the forecasts and the Jumper predictor that protects "
            "them. Prints the final log10 S, the first step with S >= 1/alpha (the alarm), "
            "and the base against the protected decimal log loss (summed), Brier loss and "
            "AUC. Families: " + "; ".join(f"{k}: {v}" for k, v in FAMILIES.items()) + "."
        ),
        epilog="Example: venncal monitor stream.csv --prob-col p --label-col y --clip 0.1 "
        "--plot monitor.png -o steps.csv",
    )
    parser.add_argument(
        "data", metavar="STREAM", help="table (.csv, .csv.gz, .parquet, or - for CSV on stdin)"
    )
    parser.add_argument(
        "--prob-col",
        required=True,
        metavar="COL",
        help="column of the model's probabilities of the positive class",
    )
    parser.add_argument("--label-col", metavar="COL",
                        help="column of the labels that arrived (any two values)")
    parser.add_argument("--scores-only", action="store_true", help="no labels: a conformal "
                        "test martingale over the --prob-col scores (any reals)")
    parser.add_argument("--nonconformity", choices=("high", "low", "two-sided"), default="high",
                        help="with --scores-only: high and low both see the scores' location "
                        "shift either way (the bets take both ends); two-sided sees them "
                        "spread or narrow, not shift")
    add_positive_label_option(
        parser,
        "the positive class, whose probability --prob-col holds (matched against the labels "
        "as read, so 1 names the number 1; default: the larger of the two labels)",
    )
    _add_jumper_options(parser)
    return finish_table_parser(parser, run)


def _add_jumper_options(parser: argparse.ArgumentParser) -> None:
    """Add the Jumper's and the outputs' options to the ``monitor`` parser."""
    parser.add_argument(
        "--family", type=_family, default="shift+confidence", metavar="NAME",
        help="calibrating family, or names joined by '+' for their union (default: "
        "shift+confidence = quadratic+cubic+cox, which bets on shifts and on over- and "
        "underconfidence: the paper's quadratic family alone cannot see a model that is "
        "too confident)",
    )
    parser.add_argument(
        "--changes", choices=("cusum", "shiryaev-roberts", "ville", "none"), default="cusum",
        help="change points over the betting factors, restarted after each alarm (default: "
        "cusum); calibrated forecasts give a mean run >= T to a false alarm",
    )
    parser.add_argument("--threshold", metavar="T", help="change points' alarm level T > 1 "
                        "(default: 1/alpha; shiryaev-roberts alarms falsely about every T "
                        "steps)", type=lambda t: _unit_interval(
                            t, low=1.0, high=math.inf, what="--threshold"))
    rates = parser.add_mutually_exclusive_group()
    rates.add_argument(
        "--jump-rate",
        type=_rate,
        default=0.01,
        metavar="J",
        help="jumping rate J in (0, 1] (default: 0.01)",
    )
    rates.add_argument(
        "--mean",
        action="store_true",
        help="Mean Jumper over J in {1, 0.1, 0.01, 0.001} instead of one rate",
    )
    parser.add_argument(
        "--clip",
        type=_clip,
        metavar="DELTA",
        help="clip the forecasts to [DELTA, 1 - DELTA] first (the paper: 0.1)",
    )
    parser.add_argument(
        "--alpha",
        type=_alpha,
        default=0.01,
        metavar="A",
        help="alarm when S reaches 1/A (default: 0.01)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.add_argument(
        "--plot",
        metavar="FILE.png",
        help="write the log10 S trajectory and the ROC curves (needs matplotlib)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE.csv",
        help="write per-step p, positive (1 if the label is the positive class), "
        "protected p' and log10 S: .csv, .tsv (optionally + .gz, .bz2, .zst), .parquet, "
        "or - for CSV on stdout",
    )


def _scores_only(args: argparse.Namespace, report: Reporter) -> int:
    """``monitor --scores-only``: the conformal test martingale of the score column."""
    from ..online._tables import read_scores, write_score_steps
    from ..online.monitoring import Monitored, json_ready, monitor_scores_only, summary_text

    source, scores = read_scores(args.data, args.prob_col, sep=args.sep, progress=report.progress)
    try:
        res, s = monitor_scores_only(scores, nonconformity=args.nonconformity, alpha=args.alpha,
                                     changes=None if args.changes == "none" else args.changes,
                                     threshold=args.threshold, row_base=1)
    except ValueError as exc:  # a score the nonconformity cannot take, named by its row
        raise CLIError(f"{source}: column {args.prob_col!r}: {exc}") from None
    if args.output:
        write_score_steps(args.output, scores, res, sep=args.sep)
    if args.plot:
        _save_plot(args.plot, Monitored(res.log10_martingale, None, s), None, None,
                   f"{source}: column {args.prob_col!r}")
    text = json.dumps(json_ready(s), indent=2, allow_nan=False) if args.json else summary_text(s)
    (report.info if args.output == "-" else print)(text)
    return 0


def _save_plot(path: str, monitored, y01, p, title: str) -> None:
    """Draw :func:`venncal.online.monitoring.plot` of ``monitored`` into ``path``."""
    from ..online.monitoring import plot

    try:
        fig = plot(monitored, y01, p, title)
    except ImportError:
        raise CLIError('--plot needs matplotlib: pip install "venncal[plot]"') from None
    save_figure(fig, path, dpi=130)


@command("monitor")
def run(args: argparse.Namespace) -> int:
    """Monitor and protect a stream; return the exit code."""
    check_outputs(
        {"STREAM": args.data},
        {"-o": (args.output, "table"), "--plot": (args.plot, "plot")},
        args.force,
    )
    from ..online._tables import read_stream, write_steps
    from ..online.monitoring import json_ready, monitor, summary_text

    report = Reporter.from_args(args)
    if args.scores_only:
        return _scores_only(args, report)
    if args.label_col is None:
        raise CLIError("--label-col is required (or --scores-only to monitor scores alone)")
    option = positive_label_option(args, report)
    check_distinct_columns({"--prob-col": args.prob_col, "--label-col": args.label_col})
    source, p, y01, positive = read_stream(args.data, args.prob_col, args.label_col,
                                           positive_label=args.pos_label, clip=args.clip,
                                           sep=args.sep, progress=report.progress, option=option)
    with report.progress("monitoring", unit="steps") as progress:
        monitored = monitor(p, y01, args.family, jump_rate=args.jump_rate, mean=args.mean,
                            alpha=args.alpha, clip=args.clip, positive=positive,
                            changes=None if args.changes == "none" else args.changes,
                            threshold=args.threshold, progress=progress)
    log10, proba, s = monitored
    if args.output:
        write_steps(args.output, p, y01, proba, log10, sep=args.sep)
        report.info(f"per-step values written to {args.output}")
    if args.plot:
        _save_plot(args.plot, monitored, y01, p,
                   f"{source}: column {args.prob_col!r}, positive class {positive!r}")
        report.info(f"plot written to {args.plot}")
    result = json.dumps(json_ready(s), indent=2, allow_nan=False) if args.json else summary_text(s)
    if args.output == "-":  # stdout carries the per-step table; the summary goes to stderr
        report.info(result)
    else:
        print(result)
    return 0
