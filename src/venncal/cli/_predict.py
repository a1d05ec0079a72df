"""``venncal predict``: apply a saved calibrator to a table of scores."""

from __future__ import annotations

import argparse
import functools

from .. import _score_names as score_names
from ._common import CLIError, check_distinct_columns, check_outputs, command, finish_table_parser
from ._dask import add_engine_options, check_engine_options
from ._multiclass import names
from ._progress import Reporter

__all__ = ["add_parser", "load_model", "run"]


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``venncal predict`` on ``subparsers`` (from ``add_subparsers``); return its parser."""
    parser = subparsers.add_parser(
        "predict",
        help="add calibrated probabilities to a table of scores",
        description=(
            "Apply a model saved by 'venncal fit' to the scores of a table and write the "
            "table with every input column unchanged plus the column p: the calibrated "
            "probability of the model's second (larger) class, classes_[1], the class "
            "'venncal fit' reported. Venn-Abers models (ivap, cvap) also add p0 and p1, "
            "the lower and upper probabilities (for cvap the merged pair, which can be "
            "unordered)."
        ),
        epilog="Example: venncal predict model.json test.csv --score-col score -o out.csv",
    )
    parser.add_argument("model", metavar="MODEL.json", help="a model saved by 'venncal fit'")
    parser.add_argument(
        "data",
        metavar="DATA",
        help="table of scores (CSV, plain or compressed, or Parquet; - for stdin); with "
        "--engine dask, a file, a directory or a quoted glob of them",
    )
    scores = parser.add_mutually_exclusive_group()
    scores.add_argument(
        "--score-col",
        metavar="S[,S2,...]",
        help="column of scores; for a cvap model either one column or one "
        "per fold, comma-separated, in the order of the model's folds "
        "(sorted fold ids)",
    )
    scores.add_argument(
        "--score-cols",
        type=names,
        metavar="A,B,...",
        help="for a model of K classes: its K class-score columns, in the order of the "
        "classes 'venncal fit' reported (a cvap one: K, or K per fold, fold by fold; "
        "default: the columns the model was fitted on); writes p_<class> per class",
    )
    parser.add_argument(
        "--intervals", action="store_true",
        help="for a model of K classes with Venn-Abers (ivap, cvap; ovr-ivap, ovo-ivap, "
        "temperature+ovr-ivap): also write p0_<unit> and p1_<unit>, the interval of each class "
        "against the rest (ovr) or of each pair b_vs_a (ovo); a binary Venn-Abers model writes "
        "p0 and p1 with or without it")
    parser.add_argument(
        "-o", "--output", required=True, metavar="OUT",
        help="output table: .csv or .tsv (optionally + .gz, .bz2 or .zst), .parquet, or - "
        "for CSV on stdout; with --engine dask, a new directory: DIR/ (Parquet part files) "
        "or a quoted 'DIR/NAME-*.csv' (one file per partition, * its number)",
    )
    parser.add_argument("--prefix", default="", metavar="TEXT",
                        help="prefix of the added columns' names (default: none, i.e. p, p0, p1)")
    parser.add_argument("--nan-scores", choices=("error", "propagate"), default="error",
                        help="a missing score (an empty, NA or NaN cell): an error naming the row "
                        "(default), or 'propagate' to give that row empty p (and p0, p1)")
    return finish_table_parser(parser, run, functools.partial(add_engine_options, fit=False))


def load_model(path: str):
    """Load a saved model, or raise CLIError saying why it cannot be used."""
    from .. import persist

    try:
        return persist.load(path)
    except FileNotFoundError:
        raise CLIError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CLIError(f"{path}: is a directory, not a model file") from None
    except persist.ModelFormatError as exc:
        raise CLIError(f"{path}: not a usable venncal model: {exc}") from None
    except OSError as exc:
        raise CLIError(f"{path}: cannot read: {exc.strerror or exc}") from None


@command("predict")
def run(args: argparse.Namespace) -> int:
    """Predict; return the exit code."""
    check_engine_options(args)
    if args.engine == "local":
        check_outputs(
            {"MODEL": args.model, "DATA": args.data}, {"-o": (args.output, "table")}, args.force
        )
    report = Reporter.from_args(args)
    model = load_model(args.model)
    from ..files import takes_class_scores
    from ..multiclass._outputs import is_multiclass, output_names, table_scores

    if takes_class_scores(model):
        if args.engine == "dask" and not is_multiclass(model):
            raise CLIError(f"--engine dask applies one-vs-rest and one-vs-one models of K classes, "
                           f"not {args.model}'s {type(model).__name__}: use --engine local")
        return _multiclass(args, report, model, output_names, table_scores)
    if args.score_cols is not None:
        raise CLIError(f"--score-cols is for a model of many classes; {args.model} holds a "
                       f"{type(model).__name__} of two classes: give --score-col")
    if args.intervals and not hasattr(model, "predict_interval"):
        raise CLIError(f"--intervals: {args.model} holds a {type(model).__name__}, which gives "
                       "no intervals (a binary Venn-Abers model writes p0 and p1 with or "
                       "without --intervals)")
    if args.score_col is None:
        raise CLIError(f"{args.model} is a model of two classes: give --score-col")
    score_cols = [c.strip() for c in args.score_col.split(",")]
    check_distinct_columns({"--score-col": score_cols})
    # A model fitted per fold (CVAP) takes one score column per fold model.
    grouped = getattr(model, "_group_param", None) is not None
    n_models = len(model.folds_) if grouped else 1
    if len(score_cols) > 1:
        if not grouped:
            raise CLIError(
                f"several score columns are for cvap models; {args.model} holds a "
                f"{type(model).__name__}, give one column"
            )
        if len(score_cols) != n_models:
            raise CLIError(
                f"{args.model} is a cvap model with {n_models} folds: give 1 score column "
                f"or {n_models}, not {len(score_cols)}"
            )
    interval = hasattr(model, "predict_interval")
    cols = [args.prefix + "p"] + ([args.prefix + "p0", args.prefix + "p1"] if interval else [])
    n = _predict(args, report, model, score_cols, cols)
    positive = model.classes_.tolist()[1]
    where = "stdout" if args.output == "-" else args.output
    report.info(
        f"wrote {n:,} rows to {where}: {', '.join(cols)} (p = probability of class {positive!r})"
    )
    return 0


def _multiclass(args, report, model, output_names, table_scores) -> int:
    """Predict with a model of K classes on ``--score-cols``; return the exit code."""
    import numpy as np

    args.score_cols = args.score_cols or (None if args.score_col else score_names.recorded(model))
    if args.score_cols is None:
        raise CLIError(f"{args.model} is a model of {len(model.classes_)} classes: give its "
                       "class scores with --score-cols A,B,...")
    check_distinct_columns({"--score-cols": args.score_cols})
    if args.intervals and not hasattr(model, "predict_interval"):
        inner = getattr(model, "calibrators_", [model])[0]
        raise CLIError(f"--intervals: {args.model} calibrates with {type(inner).__name__}, "
                       "which gives no intervals")
    try:
        table_scores(model, np.empty((0, len(args.score_cols))))
    except ValueError as exc:
        raise CLIError(f"--score-cols: {args.model}: {exc}") from None
    prefixes = [args.prefix + p for p in (("p", "p0", "p1") if args.intervals else ("p",))]
    cols = list(output_names(model, prefixes))
    args.spelling = {"score_col": "--score-cols"}
    n = _predict(args, report, model, args.score_cols, prefixes)
    where = "stdout" if args.output == "-" else args.output
    report.info(f"wrote {n:,} rows to {where}: {', '.join(cols)}")
    return 0


def _predict(args, report, model, score_cols, output_cols) -> int:
    """Write the table with the model's columns; return the number of rows."""
    if args.engine == "dask":
        import venncal.dask as vd

        from ._dask import cluster

        with report.stage(f"predicting {args.data} with dask"), cluster(args) as client:
            return vd.transform_files(
                args.data, model, args.output, score_col=score_cols, output_cols=output_cols,
                nan_scores=args.nan_scores, blocksize=args.blocksize, sep=args.sep,
                overwrite=args.force, client=client,
            )
    from ..files import transform_file

    return transform_file(args.data, model, args.output, score_col=score_cols,
                          output_cols=output_cols, nan_scores=args.nan_scores, sep=args.sep,
                          progress=report.progress)
