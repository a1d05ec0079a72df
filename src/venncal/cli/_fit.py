"""``venncal fit``: fit a calibrator on a table of scores and labels, save it as JSON."""

from __future__ import annotations

import argparse
import functools
import sys

from . import _flags, _multiclass
from ._common import CLIError, check_distinct_columns, check_outputs, command, finish_table_parser
from ._dask import add_engine_options, check_engine_options
from ._labels import FIT_ADVICE, add_positive_label_option, positive_label_option
from ._progress import Reporter

__all__ = ["add_parser", "parse_param", "run"]


def _methods(heading: str, methods: dict) -> str:
    return f"{heading}:\n" + "\n".join(f"  {name}: {about}" for name, about in methods.items())


class _Lines(argparse.HelpFormatter):
    """Wraps each line of a text apart: the epilog's one line per method."""

    def _fill_text(self, text, width, indent):
        return "\n".join(super(_Lines, self)._fill_text(
            line.strip(), width, indent + "  " * line.startswith(" ")) for line in text.splitlines())


#: Column options: flag -> (required, help).
COLUMNS = {
    "--score-col": (False, "column of the model's scores (any real numbers, higher = more likely "
                    "the positive class, unless --decreasing); for many classes, --score-cols"),
    "--label-col": (True, "column of the true labels (any two values)"),
    "--weight-col": (False, "column of non-negative frequency weights (default: all 1)"),
    "--fold-col": (False, "column of fold ids, for --method cvap (required there): the scores of "
                   "fold k come from the model not trained on fold k"),
}


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``venncal fit`` on ``subparsers`` (from ``add_subparsers``); return its parser."""
    from ..comparison._candidates import BINARY, MULTICLASS, fit_methods

    binary, classes = fit_methods(BINARY), fit_methods(MULTICLASS)
    methods = [*binary, *(m for m in classes if m not in binary)]
    parser = subparsers.add_parser(
        "fit",
        help="fit a calibrator on scores and labels and save it as a JSON model",
        formatter_class=_Lines,
        description=(
            "Fit a calibrator on the scores and labels of a calibration table (CSV, CSV.gz "
            "or Parquet, by file name) and save it as a venncal JSON model "
            "(see docs/model-format.md). The labels may be any two values; the model "
            "remembers them, and the probability p predicted later is that of the "
            "positive class, classes_[1] in the model: --positive-label, else the second, "
            "larger one (numbers compared as numbers, text as text). A score that falls as "
            "the positive class becomes more likely needs --decreasing; fit warns when the scores rank the positive class "
            "below chance (AUC < 0.5). Every method 'venncal compare' recommends is fitted "
            "by the same name."
        ),
        epilog=_methods("methods for one --score-col", binary) + "\n\n"
        + _methods("methods for --score-cols (K classes); a method for one score column "
                   "is fitted per class, or per pair of classes with --multiclass ovo", classes)
        + "\n\nExample: venncal fit cal.csv --score-col score --label-col label "
        "--method ivap -o model.json",
    )
    parser.add_argument(
        "data",
        metavar="DATA",
        help="calibration table (CSV, plain or compressed, or Parquet; - for stdin); with "
        "--engine dask, a file, a directory or a quoted glob of them",
    )
    for flag, (required, text) in COLUMNS.items():
        parser.add_argument(flag, required=required, metavar="COL", help=text)
    parser.add_argument("--method", required=True, choices=methods, metavar="METHOD",
                        help="calibration method (the list below): " + ", ".join(methods))
    _add_model_options(parser)
    _multiclass.add_fit_options(parser)
    return finish_table_parser(parser, run, functools.partial(add_engine_options, fit=True))


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    """Add the options that shape the model: classes, score direction, merge, parameters, output."""
    add_positive_label_option(
        parser, "the positive class, whose probability the model predicts (matched against the "
        "labels as read, so 1 names the number 1; default: the larger of the two labels)")
    parser.add_argument("--decreasing", action="store_true", help="the score falls as the "
                        "positive class becomes more likely: fit on minus the score (the saved "
                        "model negates the scores it is given too)")
    parser.add_argument("--merge", choices=("log", "brier"), help="how Venn-Abers models (ivap, "
                        "cvap) merge p0, p1 into p: log-loss or Brier-loss minimax (default: log)")
    parser.add_argument(
        "--param", action="append", default=[], metavar="KEY=VALUE", type=parse_param,
        help="a parameter of the calibrator class, repeatable (e.g. --param n_bins=15; of one "
        "stage, e.g. merge of ovr-ivap); numbers, true/false and none are parsed, a comma makes "
        "a list (classes=NEGATIVE,POSITIVE, in that order; not with --positive-label)")
    parser.add_argument("-o", "--output", required=True, metavar="MODEL.json", help="where to "
                        "write the model (.json, or .json.gz to compress; - for stdout)")


def _scalar(text: str):
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def parse_param(text: str) -> tuple[str, object]:
    """Parse ``key=value`` into ``(key, value)``.

    Examples
    --------
    >>> parse_param("n_bins=15"), parse_param("merge=brier"), parse_param("classes=0,1")
    (('n_bins', 15), ('merge', 'brier'), ('classes', [0, 1]))
    """
    key, eq, value = text.partition("=")
    key = key.strip()
    if not eq or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    if "," in value:
        return key, [_scalar(v) for v in value.split(",")]
    return key, _scalar(value)


def _warn_below_chance(report: Reporter, calibrator, summary, args) -> None:
    """Warn when the calibration scores (``summary``, as given) rank the positive class below chance."""
    from ..metrics._chance import below_chance

    if args.decreasing:
        from ..negated import negate_summary

        summary = negate_summary(summary)
    negative, positive = calibrator.classes_.tolist()
    text = below_chance(summary, positive, [negative], negated=args.decreasing,
                        positive_given=args.pos_label is not None,
                        option="--positive-label", flip="--decreasing")
    if text:
        report.warn(text)


@command("fit")
def run(args: argparse.Namespace) -> int:
    """Fit and save; return the exit code."""
    from .. import persist
    from .._registry import available_methods
    from ..tables import atomic_output

    check_engine_options(args)
    if (args.score_col is None) == (args.score_cols is None):
        raise CLIError("give --score-col (a binary model's score) or --score-cols (one column "
                       "per class), one of them")
    _multiclass.check_fit_options(args)
    check_outputs({"DATA": args.data}, {"-o": (args.output, "model")}, args.force)
    roles = {flag: getattr(args, flag[2:].replace("-", "_")) for flag in COLUMNS}
    roles["--score-cols"] = args.score_cols
    check_distinct_columns(roles)
    report = Reporter.from_args(args)
    method = args.method
    option = positive_label_option(args, report)
    if args.pos_label is not None and any(key == "classes" for key, _ in args.param):
        raise CLIError(f"{option} and --param classes=... both name the classes; give one of them")
    calibrator = _calibrator(args)
    if args.score_cols and args.engine == "dask":
        calibrator, summary, n = _multiclass.fit_dask(args, report, calibrator, _fit_error), {}, 0
    elif args.engine == "local":
        calibrator, summary, n = _fit_local(args, report, calibrator)
    else:
        calibrator, summary, n = _fit_dask(args, report, calibrator)
    source = "<stdin>" if args.data == "-" else args.data

    try:
        if args.output == "-":
            persist.save(calibrator, sys.stdout)
        else:
            with atomic_output(args.output) as tmp:
                persist.save(calibrator, tmp)
    except OSError as exc:
        raise CLIError(f"{args.output}: cannot write the model: {exc.strerror or exc}") from None
    where = "stdout" if args.output == "-" else args.output
    name = type(calibrator).__name__
    if args.score_cols:
        classes = ", ".join(repr(c) for c in calibrator.classes_.tolist())
        if hasattr(calibrator, "calibrators_"):
            name += f" of {type(calibrator.calibrators_[0]).__name__}"
        if method in available_methods():
            method += f" {args.multiclass or 'ovr'}"
        report.info(
            f"fitted {method} ({name}, --score-kind {args.score_kind}) on "
            + (f"{n:,} rows of {source}" if n else f"the files of {source}") +
            f"; classes {classes}, the classes of --score-cols "
            f"{','.join(args.score_cols)} in that order (p_<class> when predicted); "
            f"model written to {where}"
        )
        for line in _multiclass.unit_lines(args, summary or {}):
            report.info(line)
        return 0
    negative_class, positive_class = calibrator.classes_.tolist()
    if args.decreasing:
        name += f" of {type(calibrator.calibrator_).__name__}, on minus the score"
    report.info(
        f"fitted {method} ({name}) on {n:,} rows of {source}; "
        f"classes {negative_class!r} and {positive_class!r}: p is the probability of "
        f"{positive_class!r}; model written to {where}"
    )
    return 0


def _calibrator(args):
    """The unfitted calibrator of ``--method`` for the score columns given (the library's)."""
    from ..files import calibrator_for
    from ..tables import ParameterError

    classes = args.classes  # names, matched against the labels as read (local and dask)
    if args.score_cols:
        args.spelling = {"score_col": "--score-cols", "classes": "--classes",
                         "score": "--score-kind", "methods": "--method", "by": "--fold-col"}
    try:
        return calibrator_for(
            args.method, "multiclass" if args.score_cols else "binary", score=args.score_kind,
            params=dict(args.param), merge=args.merge, by=args.fold_col,
            multiclass=args.multiclass, coupling=args.coupling, classes=classes)
    except ParameterError:
        raise
    except (ValueError, ImportError) as exc:
        raise CLIError(str(exc)) from None


def _fit_error(args, source: str, exc: Exception) -> CLIError:
    text = _flags.message(exc, **getattr(args, "spelling", {}))
    if args.score_cols:
        hint = _multiclass.hint(text)
    elif "needs exactly two classes" in text:
        hint = " (for many classes give --score-cols and --score-kind)"
    else:
        hint = f" (on the command line: {FIT_ADVICE})" if "classes=" in text else ""
    return CLIError(f"cannot fit {args.method} on {source}: {text}{hint}")


def _fit_local(args, report: Reporter, calibrator):
    """Read the table in this process and fit; return ``(calibrator, summary, rows)``."""
    from ..files import fit_file
    from ..tables import TableError

    if args.decreasing:
        from ..negated import NegatedScoreCalibrator

        calibrator = NegatedScoreCalibrator(calibrator)
    source = "<stdin>" if args.data == "-" else args.data
    try:
        calibrator, summary, n = fit_file(
            args.data, calibrator, score_col=args.score_cols or args.score_col,
            label_col=args.label_col,
            weight_col=args.weight_col, by=args.fold_col, positive_label=args.pos_label,
            sep=args.sep, progress=report.progress, return_summary=True,
            stage=lambda n: report.stage(f"fitting {args.method} on {n:,} rows"),
        )
    except TableError:
        raise
    except (ValueError, TypeError) as exc:
        raise _fit_error(args, source, exc) from None
    if not args.score_cols:
        _warn_below_chance(report, calibrator, summary, args)
    return calibrator, summary, n


def _fit_dask(args, report: Reporter, calibrator):
    """Summarise DATA on a Dask cluster and fit on the summary; return ``(calibrator, summary, rows)``.

    :func:`venncal.dask.fit_files` reads the cells as the local engine does,
    so with integer weights the model is the one :func:`_fit_local` fits on
    the same rows.
    """
    import venncal.dask as vd

    from ..tables import TableError
    from ._dask import cluster

    method, source = args.method, args.data
    if not hasattr(calibrator, "fit_summary"):
        raise CLIError(f"--method {method} cannot be fitted by --engine dask (no score summary)")
    if args.decreasing:
        from ..negated import NegatedScoreCalibrator

        calibrator = NegatedScoreCalibrator(calibrator)
    options = {"max_distinct": args.max_distinct} if args.max_distinct else {}
    with report.stage(f"fitting {method} on the files of {source} with dask"), cluster(args) as c:
        try:
            calibrator, summary, n = vd.fit_files(
                args.data, calibrator, score_col=args.score_col, label_col=args.label_col,
                weight_col=args.weight_col, by=args.fold_col, positive_label=args.pos_label,
                round_scores=args.round_scores, blocksize=args.blocksize, sep=args.sep,
                client=c, return_summary=True, **options,
            )
        except TableError:
            raise
        except (ValueError, TypeError) as exc:
            raise _fit_error(args, source, exc) from None
    _warn_below_chance(report, calibrator, summary, args)
    return calibrator, summary, n
