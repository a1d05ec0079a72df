"""``venncal evaluate``: metrics of one or several columns of probabilities, and their plots."""

from __future__ import annotations

import argparse
import math

import numpy as np

from .._rows import as_read
from ._common import (
    CLIError,
    check_distinct_columns,
    check_outputs,
    command,
    finish_table_parser,
    positive_int,
    save_figure,
)
from ._multiclass import classes_of, names
from ._labels import add_positive_label_option, positive_label_option
from ._progress import Reporter

__all__ = ["add_parser", "run"]


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


#: Column options: flag -> (required, help).  --prob-col may be repeated.
COLUMNS = {
    "--prob-col": (
        False,
        (
            "column of predicted probabilities of the positive class, in [0, 1]; repeat "
            "the option to compare several columns side by side; for K classes, --prob-cols"
        ),
    ),
    "--label-col": (True, "column of the true labels (any two values)"),
    "--p0-col": (False, "column of Venn-Abers lower probabilities (with --p1-col, one --prob-col)"),
    "--p1-col": (False, "column of Venn-Abers upper probabilities (with --p0-col, one --prob-col)"),
    "--weight-col": (False, "column of non-negative weights for every metric"),
}
#: --log-base choices -> the base passed to venncal.metrics.
LOG_BASES = {"2": 2, "e": "e", "10": 10}


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``venncal evaluate`` on ``subparsers`` (from ``add_subparsers``); return its parser."""
    parser = subparsers.add_parser(
        "evaluate",
        help="print calibration metrics of predicted probabilities, draw reliability and ROC plots",
        description=(
            "Compare predicted probabilities with the true labels: log loss (in nats, or "
            "--log-base), Brier loss, RMSE, ECE and MCE over bins, AUC, accuracy and, with "
            "--p0-col and --p1-col, the mean Venn-Abers interval width. Several --prob-col "
            "columns are compared side by side: one column each in the table, one curve "
            "each in the plots. The labels may be any two values; the positive class (whose "
            "probability is in --prob-col) is the larger one (numbers compared as numbers, "
            "text as text) unless --positive-label names it."
        ),
        epilog="Example: venncal evaluate out.csv --prob-col p --prob-col platt_p "
        "--label-col label --plot reliability.png --roc roc.png",
    )
    parser.add_argument(
        "data", metavar="DATA", help="table (CSV, plain or compressed, or Parquet; - for stdin)"
    )
    for flag, (required, text) in COLUMNS.items():
        action = "append" if flag == "--prob-col" else "store"
        parser.add_argument(flag, required=required, metavar="COL", action=action, help=text)
    parser.add_argument("--prob-cols", type=names, metavar="A,B,...",
                        help="K columns of probabilities, one per class, each row summing to "
                        "1 (not with --prob-col): the multiclass metrics")
    parser.add_argument("--classes", type=names, metavar="X,Y,...",
                        help="the class of each --prob-cols column, in order (matched against "
                        "the labels as read; default: the labels sorted)")
    add_positive_label_option(
        parser, "the positive class (matched against the labels as read, so 1 names the "
        "number 1; default: the larger of the two labels)"
    )
    _add_metric_options(parser)
    _add_plot_options(parser)
    return finish_table_parser(parser, run)


def _add_metric_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bins",
        type=positive_int,
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
        "--min-bin-count",
        type=_non_negative,
        metavar="N",
        help="leave the bins holding fewer than N rows (less total weight with "
        "--weight-col) out of the MCE, and say which (default: every non-empty bin)",
    )
    parser.add_argument(
        "--log-base",
        choices=tuple(LOG_BASES),
        default="e",
        help="base of the log loss: e (nats, as scikit-learn), 2 (bits) or 10; the "
        "table names the unit (default: e)",
    )
    parser.add_argument("--diagnostics", action="store_true", help="add Spiegelhalter's z-test, "
                        "calibration slope and intercept, KS and Kuiper tests, smooth ECE")
    parser.add_argument("--bootstrap", type=positive_int, default=0, metavar="N", help="add "
                        "95%% percentile intervals (N seeded replicates) as <metric>_low/_high")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print a JSON object keyed by metric name instead of a table, or with "
        "several --prob-col one such object per column, keyed by column name "
        "(non-finite values as the strings inf, -inf, nan)",
    )


def _add_plot_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "plots",
        "Need matplotlib; the image format follows the extension (png, pdf, svg, ...). "
        "Both are checked before the data are read.",
    )
    group.add_argument(
        "--plot",
        metavar="FILE.png",
        help="write the reliability diagram, one curve per --prob-col; the area of a "
        "bin's disc grows with its rows, hollow discs are bins left out of the MCE",
    )
    group.add_argument(
        "--roc", metavar="FILE.png", help="write the ROC curves, with each column's AUC"
    )


# ------------------------------------------------------------------------------ checks


def _check_options(args: argparse.Namespace) -> None:
    """Refuse inconsistent options before anything is read or written."""
    if (args.prob_col is None) == (args.prob_cols is None):
        raise CLIError("give --prob-col (the positive class's probabilities) or --prob-cols "
                       "(one column per class), one of them")
    many = {"--p0-col": args.p0_col, "--positive-label": args.pos_label, "--roc": args.roc}
    given = [o for o, v in many.items() if v is not None]
    if args.prob_cols is not None and given:
        raise CLIError(f"{given[0]} is for --prob-col (two classes), not --prob-cols")
    if args.prob_cols is None and args.classes is not None:
        raise CLIError("--classes names the classes of --prob-cols")
    args.prob_col = args.prob_col or args.prob_cols
    if (args.p0_col is None) != (args.p1_col is None):
        raise CLIError("--p0-col and --p1-col go together: give both or neither")
    if args.p0_col is not None and len(args.prob_col) > 1:
        raise CLIError("--p0-col and --p1-col are the interval of a single --prob-col; "
                       f"got {len(args.prob_col)} --prob-col columns")
    check_distinct_columns({
        "--prob-cols" if args.prob_cols else "--prob-col": args.prob_col,
        **{f: getattr(args, f[2:].replace("-", "_")) for f in COLUMNS if f != "--prob-col"},
    })
    check_outputs(
        {"DATA": args.data},
        {"--plot": (args.plot, "plot"), "--roc": (args.roc, "plot")},
        args.force,
    )


# --------------------------------------------------------------------------------- run


def _read(args: argparse.Namespace, report: Reporter) -> tuple[str, dict[str, np.ndarray]]:
    """Read the columns named by the options; return ``(source, columns)``."""
    from .._columns import read_named_columns

    named = [("prob_cols" if args.prob_cols else "prob_col", c) for c in args.prob_col]
    named += [(f[2:].replace("-", "_"), getattr(args, f[2:].replace("-", "_")))
              for f in COLUMNS if f != "--prob-col"]
    return read_named_columns(args.data, named, [args.label_col], sep=args.sep,
                              progress=report.progress)


@command("evaluate")
def run(args: argparse.Namespace) -> int:
    """Evaluate; return the exit code."""
    report = Reporter.from_args(args)
    _check_options(args)
    from .._columns import binary_labels, probability_column, weight_column
    from ..metrics import evaluate, evaluations_json, evaluations_table
    from ..metrics._chance import below_chance

    option = positive_label_option(args, report)
    source, columns = _read(args, report)
    probs = {col: probability_column(columns[col], source, col) for col in args.prob_col}
    if args.prob_cols:
        return _multiclass(args, report, source, columns, probs)
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
    y = columns[args.label_col]
    y01, positive = binary_labels(y, args.pos_label, source, args.label_col, option=option)
    try:
        results = {
            col: evaluate(y01, p, interval=interval, n_bins=args.bins, strategy=args.strategy,
                          min_bin_count=args.min_bin_count, base=LOG_BASES[args.log_base],
                          sample_weight=weights, diagnostics=args.diagnostics,
                          bootstrap=args.bootstrap)
            for col, p in probs.items()
        }
    except (ValueError, TypeError) as exc:
        raise CLIError(f"cannot evaluate {source}: {as_read(exc)}") from None
    n = y01.shape[0]
    report.info(
        f"{source}: {n:,} rows, positive class {positive!r} "
        f"({int(y01.sum()):,} rows), {args.bins} {args.strategy} bins"
    )
    others = [v for v in np.unique(y).tolist() if v != positive]
    for col, ev in results.items():
        text = below_chance(ev["auc"], positive, others, subject=f"column {col!r}",
                            option="--positive-label")
        if text:
            report.warn(text)  # even with --quiet: the metrics may be of the wrong class
    if args.min_bin_count is not None:
        _report_small_bins(report, results, args)
    # The images are written before the table: a failure leaves stdout empty.
    written = _plots(args, y01, probs, weights)
    if args.json and len(results) == 1:  # the flat object of one column, as before
        print(results[args.prob_col[0]].to_json())
    elif args.json:
        print(evaluations_json(results))
    else:
        print(evaluations_table(results))
    for what, path in written:
        report.info(f"{what} written to {path}")
    return 0


def _multiclass(args, report: Reporter, source: str, columns: dict, probs: dict) -> int:
    """Evaluate K columns of class probabilities; return the exit code."""
    from .._columns import class_probabilities, weight_column
    from ..files import check_column_order
    from ..metrics import evaluate_multiclass

    y = columns[args.label_col]
    classes = classes_of(y, len(probs), args.classes)
    proba = class_probabilities(probs, source)
    weights = None
    if args.weight_col:
        weights = weight_column(columns[args.weight_col], source, args.weight_col)
    options = {"n_bins": args.bins, "strategy": args.strategy, "classes": classes,
               "min_bin_count": args.min_bin_count, "sample_weight": weights}
    try:
        ev = evaluate_multiclass(y, proba, base=LOG_BASES[args.log_base], **options,
                                 diagnostics=args.diagnostics, bootstrap=args.bootstrap)
    except (ValueError, TypeError) as exc:
        raise CLIError(f"cannot evaluate {source}: {as_read(exc)}") from None
    check_column_order(proba, y, classes, weights, list(probs), "--prob-cols")  # as fit's
    report.info(f"{source}: {y.shape[0]:,} rows, classes {', '.join(map(repr, classes))} "
                f"(columns {', '.join(probs)}), {args.bins} {args.strategy} bins")
    if args.plot:
        from ..plotting import top_label_reliability_diagram

        save_figure(top_label_reliability_diagram(y, proba, **options).figure, args.plot)
    print(ev.to_json() if args.json else ev.to_text())
    if args.plot:
        report.info(f"top-label reliability diagram written to {args.plot}")
    return 0


def _report_small_bins(report: Reporter, results: dict, args) -> None:
    """Say which bins each column's MCE leaves out (--min-bin-count)."""
    for col, ev in results.items():
        bins = ev.bins
        small = np.flatnonzero(bins.small(args.min_bin_count))
        if small.size == 0:
            continue
        shown = ", ".join(
            f"[{bins.edges[k]:.3g}, {bins.edges[k + 1]:.3g}{']' if k == args.bins - 1 else ')'}"
            f" with {bins.weight[k]:g}"
            for k in small
        )
        report.info(
            f"column {col!r}: the MCE leaves out {small.size} of "
            f"{int(bins.nonempty.sum())} non-empty bins holding fewer than "
            f"{args.min_bin_count:g} rows: {shown}"
        )


def _plots(args, y01, probs: dict, weights) -> list[tuple[str, str]]:
    """Draw and write the requested images; return ``[(what, path)]``."""
    if not (args.plot or args.roc):
        return []
    from ..plotting import reliability_diagram, roc_curve

    written = []
    if args.plot:
        ax = reliability_diagram(y01, probs, n_bins=args.bins, strategy=args.strategy,
                                 min_bin_count=args.min_bin_count, sample_weight=weights)
        save_figure(ax.figure, args.plot)
        written.append(("reliability diagram", args.plot))
    if args.roc:
        try:
            ax = roc_curve(y01, probs, sample_weight=weights)
        except ValueError as exc:
            raise CLIError(f"--roc: cannot draw the ROC curves: {exc}") from None
        save_figure(ax.figure, args.roc)
        written.append(("ROC curves", args.roc))
    return written
