"""``venncal compare``: which calibrator on my data? (:func:`venncal.comparison.compare_file`)."""

from __future__ import annotations

import argparse
import json

from ..tables import ParameterError
from ._common import CLIError, check_distinct_columns, check_outputs, command
from ._common import finish_table_parser, positive_int, save_figure
from ._labels import add_positive_label_option, positive_label_option
from ._multiclass import SCORE_KINDS, names
from ._progress import Reporter

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``venncal compare`` on ``subparsers``; return its parser."""
    parser = subparsers.add_parser(
        "compare", help="cross-validate every applicable calibrator on your scores; recommend one",
        description="Cross-validate (stratified, seeded folds) every calibrator that applies to "
        "the scores: per method log loss, Brier, ECE, interval width and times, mean ranks, "
        "win rates by log loss, and a recommendation with its reason.")
    parser.add_argument("data", metavar="DATA", help="table (CSV or Parquet; - for stdin)")
    cols = parser.add_mutually_exclusive_group(required=True)
    cols.add_argument("--score-col", metavar="COL", help="column of scores (two classes)")
    cols.add_argument("--score-cols", type=names, metavar="A,B,...",
                      help="columns of class scores, one per class (K classes)")
    parser.add_argument("--score-kind", choices=SCORE_KINDS, help="what the scores are (never "
                        "guessed; required with --score-cols; with --score-col, proba or logit "
                        "adds the uncalibrated scores as the reference row)")
    parser.add_argument("--label-col", required=True, metavar="COL", help="column of labels")
    parser.add_argument("--weight-col", metavar="COL", help="column of non-negative weights")
    add_positive_label_option(parser, "the positive class of --score-col (default: the larger)")
    parser.add_argument("--classes", type=names, metavar="X,Y,...",
                        help="the class of each --score-cols column (default: labels sorted)")
    parser.add_argument("--methods", type=names, metavar="M,N,...",
                        help="the methods to compare (default: every applicable one)")
    parser.add_argument("--folds", type=positive_int, default=5, help="folds (default: 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the folds (default: 0)")
    parser.add_argument("--intervals", action="store_true",
                        help="recommend a method that gives Venn-Abers intervals")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--plot", metavar="FILE.png", help="write the top methods' reliability")
    return finish_table_parser(parser, run)


@command("compare")
def run(args: argparse.Namespace) -> int:
    """Compare; return the exit code."""
    from ..comparison import compare_file

    report = Reporter.from_args(args)
    option = positive_label_option(args, report)
    args.spelling = {"score": "--score-kind", "methods": "--methods", "folds": "--folds",
                     "seed": "--seed", "classes": "--classes", "positive_label": option}
    if (args.score_cols and args.pos_label) or (args.score_col and args.classes):
        raise CLIError("--positive-label goes with --score-col, --classes with --score-cols")
    check_distinct_columns({"--score-cols" if args.score_cols else "--score-col":
                            args.score_cols or args.score_col, "--label-col": args.label_col,
                            "--weight-col": args.weight_col})
    check_outputs({"DATA": args.data}, {"--plot": (args.plot, "plot")}, args.force)
    try:
        result = compare_file(
            args.data, score_col=args.score_cols or args.score_col, label_col=args.label_col,
            weight_col=args.weight_col, positive_label=args.pos_label, classes=args.classes,
            sep=args.sep, score=args.score_kind, methods=args.methods, folds=args.folds,
            seed=args.seed, intervals=args.intervals, progress=lambda label: report.progress(
                label, unit="rows" if label.startswith("reading") else "fits"))
    except ParameterError:
        raise
    except (ValueError, TypeError) as exc:
        raise CLIError(f"cannot compare {args.data}: {exc}") from None
    if args.plot:
        save_figure(result.plot().figure, args.plot)
    command = _fit_command(args, result)
    if args.json:
        print(json.dumps({**result.to_dict(), "next": command}, indent=2))
        return 0
    print(result.to_text())
    if result.recommendation.method is not None:  # after the table, with fit's other messages
        report.info("next: " + (command or "nothing to fit: the scores themselves are "
                                           "recommended, as they are"))
    return 0


def _fit_command(args: argparse.Namespace, result) -> str | None:
    """The ``venncal fit`` command of the recommended method, on the same table and columns."""
    import shlex

    from ..comparison._candidates import build_candidate, score_params

    method = result.recommendation.method
    if method in (None, "uncalibrated"):
        return None
    words = ["venncal", "fit", args.data]
    if args.score_cols:
        words += ["--score-cols", ",".join(args.score_cols), "--score-kind", args.score_kind]
    else:
        words += ["--score-col", args.score_col]
    for option, value in (("--label-col", args.label_col), ("--weight-col", args.weight_col),
                          ("--positive-label", args.pos_label),
                          ("--classes", args.classes and ",".join(args.classes)),
                          ("--sep", {"\t": "tab"}.get(args.sep, args.sep)), ("--method", method)):
        words += [option, value] if value is not None else []
    problem = "multiclass" if args.score_cols else "binary"
    if not args.score_cols:
        if "+" in method and args.score_kind is not None:  # a chain: its first stage's kind
            words += ["--score-kind", args.score_kind]
        for key, value in score_params(method, problem, args.score_kind).items():
            words += ["--param", f"{key}={value}"]
    folds = getattr(build_candidate(method, problem, args.score_kind), "_group_param", None)
    return shlex.join([*words, *(["--fold-col", "FOLD"] if folds else []), "-o", "model.json"]) \
        + ("  # FOLD: your column of fold ids (one Venn-Abers predictor per fold)" if folds else "")
