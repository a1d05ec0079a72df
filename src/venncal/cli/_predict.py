"""``venncal predict``: apply a saved calibrator to a table of scores."""

from __future__ import annotations

import argparse

import numpy as np

from ._io import CLIError, add_sep_option, command, open_table, open_writer
from ._progress import Reporter, add_output_options

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
        help="table of scores (.csv, .csv.gz, .parquet, or - for CSV on stdin)",
    )
    parser.add_argument(
        "--score-col",
        required=True,
        metavar="S[,S2,...]",
        help="column of scores; for a cvap model either one column or one "
        "per fold, comma-separated, in the order of the model's folds "
        "(sorted fold ids)",
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="output table (.csv, .csv.gz, .parquet, or - for CSV on stdout)",
    )
    parser.add_argument(
        "--prefix",
        default="",
        metavar="TEXT",
        help="prefix of the added columns' names (default: none, i.e. p, p0, p1)",
    )
    add_sep_option(parser)
    add_output_options(parser)
    parser.set_defaults(func=run)
    return parser


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
    report = Reporter.from_args(args)
    model = load_model(args.model)
    score_cols = [c.strip() for c in args.score_col.split(",")]
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
    names = [args.prefix + "p"] + ([args.prefix + "p0", args.prefix + "p1"] if interval else [])

    table = open_table(args.data, sep=args.sep)
    try:
        for col in score_cols:
            table.check_columns([col], "--score-col")
        writer = open_writer(args.output, table, names, sep=args.sep)
        ok = False
        n = 0
        try:
            with report.progress(f"predicting {table.source}") as progress:
                for batch in table.batches(progress):
                    columns = [batch.numbers(col) for col in score_cols]
                    scores = columns[0] if len(columns) == 1 else np.column_stack(columns)
                    try:
                        p = model.predict_proba(scores)[:, 1]
                        values = [p]
                        if interval:
                            pair = model.predict_interval(scores)
                            values += [pair[:, 0], pair[:, 1]]
                    except (ValueError, TypeError) as exc:
                        raise CLIError(
                            f"cannot predict rows {batch.first_row:,}...: {exc}"
                        ) from None
                    writer.write(batch, values)
                    n += batch.n_rows
            ok = True
        finally:
            writer.close(ok)
    finally:
        table.close()
    positive = model.classes_.tolist()[1]
    where = "stdout" if args.output == "-" else args.output
    report.info(
        f"wrote {n:,} rows to {where}: {', '.join(names)} (p = probability of class {positive!r})"
    )
    return 0
