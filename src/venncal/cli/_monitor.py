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

import numpy as np

from ._common import (
    CLIError,
    check_distinct_columns,
    check_outputs,
    command,
    finish_table_parser,
    probability_column,
)
from ._labels import add_positive_label_option, binary_labels, positive_label_option
from ._progress import Reporter

__all__ = ["FAMILIES", "add_parser", "make_family", "run"]

#: Steps fed to the Jumper at a time (continuation is exact).
BATCH_ROWS = 65_536

#: Calibrating families of ``--family`` and the parameter grids used for each
#: (kept in step with :data:`venncal.online.families.NAMED`; written here so that
#: ``--help`` imports neither scipy nor numba; a test checks they agree).
FAMILIES = {
    "quadratic": "eq. (1), eps in {-1, -0.5, 0, 0.5, 1} (the paper's)",
    "cubic": "eq. (3), the identity and a in {-1, -0.5, 0.5, 1} x b in {0.25, 0.5, 0.75}",
    "cox": "eq. (4), beta in {0.5, 0.75, 1, 1.5, 2}",
    "cox2": "eq. (5), alpha in {-1, -0.5, 0, 0.5, 1} x beta in {0.5, 1, 2}",
}


def make_family(name: str):
    """Return the calibrating family ``--family name`` stands for (see :data:`FAMILIES`).

    Examples
    --------
    >>> len(make_family("quadratic")), len(make_family("cox2"))
    (5, 15)
    """
    from ..online.families import named

    return named(name)


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
    parser.add_argument(
        "--label-col",
        required=True,
        metavar="COL",
        help="column of the labels that arrived (any two values)",
    )
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
        "--family",
        choices=tuple(FAMILIES),
        default="quadratic",
        help="calibrating family (default: quadratic)",
    )
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


def _read(args: argparse.Namespace, report: Reporter) -> tuple[str, np.ndarray, np.ndarray, object]:
    """Read the stream; return ``(source, p, y01, positive label)``."""
    option = positive_label_option(args, report)
    from ..tables import open_table, read_columns

    check_distinct_columns({"--prob-col": args.prob_col, "--label-col": args.label_col})
    with open_table(args.data, sep=args.sep) as table:
        table.check_columns([args.prob_col], "prob_col")
        table.check_columns([args.label_col], "label_col")
        with report.progress(f"reading {table.source}") as progress:
            columns = read_columns(table, [args.prob_col], [args.label_col], progress)
    source = table.source
    p = probability_column(columns[args.prob_col], source, args.prob_col)
    y01, positive = binary_labels(
        columns[args.label_col], args.pos_label, source, args.label_col, option=option
    )
    if args.clip is not None:
        p = np.clip(p, args.clip, 1.0 - args.clip)
    bad = np.flatnonzero(np.where(y01, p == 0.0, p == 1.0))
    if bad.size:
        raise CLIError(
            f"{source}: row {bad[0] + 1:,}: forecast {p[bad[0]]:g} gave probability 0 to the "
            "label that arrived (infinite log loss); keep forecasts away from 0 and 1 with "
            "--clip, e.g. --clip 0.1"
        )
    return source, p, y01, positive


def _model(args: argparse.Namespace):
    from ..online import JumperPredictor, MeanJumper

    fam = make_family(args.family)
    if args.mean:
        return MeanJumper(fam, classes=[False, True])
    return JumperPredictor(fam, args.jump_rate, classes=[False, True])


def _protect(model, p: np.ndarray, y01: np.ndarray, report: Reporter):
    """Run the Jumper over the stream block by block; return ``(log10 S_n, p'_n)``."""
    log10 = np.empty(p.shape[0])
    proba = np.empty(p.shape[0])
    with report.progress("monitoring", unit="steps") as progress:
        for a in range(0, p.shape[0], BATCH_ROWS):
            b = min(p.shape[0], a + BATCH_ROWS)
            res = model.run(p[a:b], y01[a:b])
            log10[a:b], proba[a:b] = res.log10_martingale, res.protected_proba
            progress.update(b, b / p.shape[0])
    return log10, proba


def _scores(y01: np.ndarray, p: np.ndarray) -> dict[str, float | None]:
    from ..metrics import brier_loss, roc_auc

    both = 0 < int(y01.sum()) < y01.shape[0]
    return {
        "log10_loss": float(-np.sum(np.log10(np.where(y01, p, 1.0 - p)))),
        "brier": brier_loss(y01, p),
        "auc": roc_auc(y01, p) if both else None,
    }


def summary(args, model, positive, p, y01, log10, proba) -> dict:
    """Return the numbers ``venncal monitor`` prints, as a JSON-ready dict."""
    alarm = model.alarm(args.alpha)
    final = float(log10[-1])
    protected = _scores(y01, proba)
    # The Jumper's identity: the protected forecasts' log loss is the base's minus log10 S
    # (exact where -log10 p' is not: p' can be subnormal).  S = 0 (log10 S = -inf) only
    # with a family that gave the label probability 0: then the protected loss is infinite.
    base = _scores(y01, p)
    protected["log10_loss"] = base["log10_loss"] - final
    return {
        "rows": int(p.shape[0]),
        "positive_label": positive,  # binary_labels returns a plain Python value
        "family": args.family,
        "jump_rates": list(model.jump_rates) if args.mean else [args.jump_rate],
        "clip": None if args.clip is None else [args.clip, 1.0 - args.clip],
        "final_log10_S": final,
        "max_log10_S": float(log10.max()),
        "alpha": args.alpha,
        "alarm": alarm,
        "base": base,
        "protected": protected,
    }


def _json_ready(value):
    """Return ``value`` with non-finite floats as None (``null``): JSON has no infinity."""
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_ready(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _text(s: dict) -> str:
    def fmt(v):
        return "n/a" if v is None else f"{v:.6g}" if abs(v) < 1e4 else f"{v:.1f}"

    rates = ", ".join(f"{j:g}" for j in s["jump_rates"])
    alarm = "none" if s["alarm"] is None else f"step {s['alarm']:,}"
    lines = [
        f"rows: {s['rows']:,} (positive class {s['positive_label']!r})",
        f"family: {s['family']}, jump rate(s): {rates}",
        f"final log10 S: {s['final_log10_S']:.4f} (max {s['max_log10_S']:.4f})",
        f"alarm (S >= 1/{s['alpha']:g}): {alarm}",
        f"{'':<22}{'base':>12}{'protected':>12}",
    ]
    for key, name in (
        ("log10_loss", "decimal log loss (sum)"),
        ("brier", "Brier loss (mean)"),
        ("auc", "AUC"),
    ):
        lines.append(f"{name:<22}{fmt(s['base'][key]):>12}{fmt(s['protected'][key]):>12}")
    return "\n".join(lines)


def _write_steps(path: str, sep: str | None, p, y01, proba, log10) -> None:
    from ..tables import write_table

    steps = {
        "step": np.arange(1, p.shape[0] + 1),
        "p": p,
        "positive": y01.astype(np.int64),
        "protected_p": proba,
        "log10_S": log10,
    }
    write_table(path, steps, sep=sep)


def _plot(path: str, title: str, s: dict, y01, p, proba, log10) -> None:
    try:
        from ..plotting import figure, roc_curve

        fig = figure((10.5, 4.4))
    except ImportError:
        raise CLIError('--plot needs matplotlib: pip install "venncal[plot]"') from None
    left, right = fig.subplots(1, 2)
    left.plot(np.arange(1, log10.shape[0] + 1), log10, lw=1.0)
    left.axhline(
        math.log10(1 / s["alpha"]),
        color="0.5",
        ls="--",
        lw=0.8,
        label=f"alarm level 1/{s['alpha']:g}",
    )
    if s["alarm"] is not None:
        left.axvline(s["alarm"], color="C3", lw=0.9, label=f"alarm at step {s['alarm']:,}")
    left.set_xlabel("step n")
    left.set_ylabel("log10 S_n")
    left.set_title("Jumper test martingale", fontsize=10)
    left.legend(fontsize=8)
    if s["base"]["auc"] is not None:
        roc_curve(y01, {"base": p, "protected": proba}, ax=right)
    right.set_title("ROC curves", fontsize=10)
    fig.suptitle(title, fontsize=10)
    from ..tables import atomic_output

    try:
        with atomic_output(path) as tmp:
            fig.savefig(tmp, dpi=130)
    except (ValueError, OSError) as exc:
        raise CLIError(f"{path}: cannot write the plot: {exc}") from None


@command("monitor")
def run(args: argparse.Namespace) -> int:
    """Monitor and protect a stream; return the exit code."""
    check_outputs(
        {"STREAM": args.data},
        {"-o": (args.output, "table"), "--plot": (args.plot, "plot")},
        args.force,
    )
    report = Reporter.from_args(args)
    source, p, y01, positive = _read(args, report)
    model = _model(args)
    log10, proba = _protect(model, p, y01, report)
    s = summary(args, model, positive, p, y01, log10, proba)
    if args.output:
        _write_steps(args.output, args.sep, p, y01, proba, log10)
        report.info(f"per-step values written to {args.output}")
    if args.plot:
        title = f"{source}: column {args.prob_col!r}, positive class {positive!r}"
        _plot(args.plot, title, s, y01, p, proba, log10)
        report.info(f"plot written to {args.plot}")
    result = json.dumps(_json_ready(s), indent=2, allow_nan=False) if args.json else _text(s)
    if args.output == "-":  # stdout carries the per-step table; the summary goes to stderr
        report.info(result)
    else:
        print(result)
    return 0
