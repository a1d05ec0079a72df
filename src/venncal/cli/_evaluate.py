"""``venncal evaluate``: metrics table and reliability diagram of predicted probabilities."""

from __future__ import annotations

import argparse

import numpy as np

from .._validation import check_binary_labels, check_labels
from ._io import (
    CLIError,
    add_force_option,
    add_sep_option,
    atomic_output,
    check_distinct_columns,
    check_outputs,
    command,
    open_table,
    probability_column,
    read_columns,
    weight_column,
)
from ._progress import Reporter, add_output_options

__all__ = ["add_parser", "binary_labels", "run"]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


#: Column options: flag -> (required, help).
COLUMNS = {
    "--prob-col": (True, "column of predicted probabilities of the positive class, in [0, 1]"),
    "--label-col": (True, "column of the true labels (any two values)"),
    "--p0-col": (False, "column of Venn-Abers lower probabilities (with --p1-col)"),
    "--p1-col": (False, "column of Venn-Abers upper probabilities (with --p0-col)"),
    "--weight-col": (False, "column of non-negative weights for every metric"),
}


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``venncal evaluate`` on ``subparsers`` (from ``add_subparsers``); return its parser."""
    parser = subparsers.add_parser(
        "evaluate",
        help="print calibration metrics of predicted probabilities, draw a reliability diagram",
        description=(
            "Compare predicted probabilities with the true labels: log loss (bits), Brier "
            "loss, RMSE, ECE and MCE over bins, AUC, accuracy and, with --p0-col and "
            "--p1-col, the mean Venn-Abers interval width. The labels may be any two "
            "values; the positive class (whose probability is in --prob-col) is the larger "
            "one (numbers compared as numbers, text as text) unless --pos-label names it."
        ),
        epilog="Example: venncal evaluate out.csv --prob-col p --label-col label --plot "
        "reliability.png",
    )
    parser.add_argument(
        "data", metavar="DATA", help="table (CSV, plain or compressed, or Parquet; - for stdin)"
    )
    for flag, (required, text) in COLUMNS.items():
        parser.add_argument(flag, required=required, metavar="COL", help=text)
    parser.add_argument(
        "--pos-label",
        metavar="LABEL",
        help="the positive class (default: the larger of the two labels)",
    )
    _add_metric_options(parser)
    add_sep_option(parser)
    add_force_option(parser)
    add_output_options(parser)
    parser.set_defaults(func=run)
    return parser


def _add_metric_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bins",
        type=_positive_int,
        default=10,
        metavar="N",
        help="number of bins for ECE, MCE and the diagram (default: 10)",
    )
    parser.add_argument(
        "--strategy",
        choices=("uniform", "quantile"),
        default="uniform",
        help="equal-width or equal-count bins (default: uniform)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print a JSON object keyed by metric name instead of a table "
        "(non-finite values as the strings inf, -inf, nan)",
    )
    parser.add_argument(
        "--plot",
        metavar="FILE.png",
        help="write the reliability diagram to this image file (needs "
        "matplotlib; the format follows the extension: png, pdf, svg, ...)",
    )


def _matches(label, text: str) -> bool:
    if isinstance(label, (bool, np.bool_)):
        return text.strip().lower() == str(bool(label)).lower()
    if isinstance(label, (int, float, np.number)):
        try:
            return float(text) == label
        except ValueError:
            return False
    return str(label) == text


def binary_labels(y: np.ndarray, pos_label: str | None, source: str, column: str) -> tuple:
    """Map labels to booleans (True = positive); return ``(y01, positive_label)``.

    ``pos_label`` is the text given on the command line, matched against the
    labels as read (so ``"1"`` names the number 1); the checks are those of
    every other venncal entry point.

    Examples
    --------
    >>> import numpy as np
    >>> binary_labels(np.array(["no", "yes", "no"]), None, "t.csv", "y")
    (array([False,  True, False]), 'yes')
    >>> binary_labels(np.array([2, 10, 2]), "2", "t.csv", "y")
    (array([ True, False,  True]), 2)
    """
    try:
        if pos_label is None:
            classes, y01 = check_labels(y, advice="name the positive class with --pos-label")
            return y01, classes[1].item()
        values = np.unique(y).tolist()
        found = [v for v in values if _matches(v, pos_label)]
        if not found and len(values) == 2:
            raise ValueError(f"--pos-label {pos_label!r} is not one of the labels {values!r}")
        # A single observed label that is not --pos-label is the negative class.
        positive = found[0] if found else pos_label
        return check_binary_labels(y, y.shape[0], pos_label=positive), positive
    except (TypeError, ValueError) as exc:
        raise CLIError(f"{source}: column {column!r}: {exc}") from None


def _read(args: argparse.Namespace, report: Reporter) -> tuple[str, dict[str, np.ndarray]]:
    """Read the columns named by the options; return ``(source, columns)``."""
    named = {flag: getattr(args, flag[2:].replace("-", "_")) for flag in COLUMNS}
    check_distinct_columns(named)
    table = open_table(args.data, sep=args.sep)
    try:
        for option, column in named.items():
            if column is not None:
                table.check_columns([column], option)
        numeric = [c for o, c in named.items() if c is not None and o != "--label-col"]
        with report.progress(f"reading {table.source}") as progress:
            columns = read_columns(table, numeric, [args.label_col], progress)
    finally:
        table.close()
    return table.source, columns


@command("evaluate")
def run(args: argparse.Namespace) -> int:
    """Evaluate; return the exit code."""
    report = Reporter.from_args(args)
    if (args.p0_col is None) != (args.p1_col is None):
        raise CLIError("--p0-col and --p1-col go together: give both or neither")
    check_outputs({"DATA": args.data}, {"--plot": (args.plot, "plot")}, args.force)
    from ..metrics import evaluate

    source, columns = _read(args, report)
    p = probability_column(columns[args.prob_col], source, args.prob_col)
    interval = None
    if args.p0_col:
        # No p0 <= p1 check: the merged pair of a cvap model can be unordered,
        # and its width is then negative (see venncal.metrics.interval_width).
        interval = np.column_stack([
            probability_column(columns[col], source, col) for col in (args.p0_col, args.p1_col)
        ])
    weights = None
    if args.weight_col:
        weights = weight_column(columns[args.weight_col], source, args.weight_col)
    y01, positive = binary_labels(columns[args.label_col], args.pos_label, source, args.label_col)
    try:
        result = evaluate(y01, p, interval=interval, n_bins=args.bins, strategy=args.strategy,
                          sample_weight=weights)
    except (ValueError, TypeError) as exc:
        raise CLIError(f"cannot evaluate {source}: {exc}") from None
    report.info(
        f"{source}: {p.shape[0]:,} rows, positive class {positive!r} "
        f"({int(y01.sum()):,} rows), {args.bins} {args.strategy} bins"
    )
    print(result.to_json() if args.json else result.to_text())
    if args.plot:
        _plot(y01, p, args, weights)
        report.info(f"reliability diagram written to {args.plot}")
    return 0


def _plot(y01, p, args, weights) -> None:
    try:
        from ..plotting import reliability_diagram

        ax = reliability_diagram(
            y01, p, n_bins=args.bins, strategy=args.strategy, sample_weight=weights
        )
    except ImportError:
        raise CLIError('--plot needs matplotlib: pip install "venncal[plot]"') from None
    try:
        with atomic_output(args.plot) as tmp:
            ax.figure.savefig(tmp, dpi=150)
    except (ValueError, OSError) as exc:
        raise CLIError(f"{args.plot}: cannot write the plot: {exc}") from None
