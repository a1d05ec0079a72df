"""``venncal predict``: apply a saved calibrator to a table of scores."""

from __future__ import annotations

import argparse

import numpy as np

from ._dask_engine import add_engine_options, check_engine_options
from ._io import (
    CLIError,
    Retype,
    add_force_option,
    add_sep_option,
    check_distinct_columns,
    check_outputs,
    command,
    open_table,
    open_writer,
)
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
        help="table of scores (CSV, plain or compressed, or Parquet; - for stdin); with "
        "--engine dask, a file, a directory or a quoted glob of them",
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
        help="output table: .csv or .tsv (optionally + .gz, .bz2 or .zst), .parquet, or - "
        "for CSV on stdout; with --engine dask, a new directory: DIR/ (Parquet part files) "
        "or a quoted 'DIR/NAME-*.csv' (one file per partition, * its number)",
    )
    parser.add_argument(
        "--prefix",
        default="",
        metavar="TEXT",
        help="prefix of the added columns' names (default: none, i.e. p, p0, p1)",
    )
    parser.add_argument(
        "--nan-scores",
        choices=("error", "propagate"),
        default="error",
        help="a missing score (an empty, NA or NaN cell): an error naming the row "
        "(default), or 'propagate' to give that row empty p (and p0, p1)",
    )
    add_sep_option(parser)
    add_force_option(parser)
    add_engine_options(parser, fit=False)
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


def _predict(model, columns: list[np.ndarray], interval: bool) -> list[np.ndarray]:
    """Return ``[p]`` or ``[p, p0, p1]`` for the rows of ``columns`` (one score column per fold)."""
    scores = columns[0] if len(columns) == 1 else np.column_stack(columns)
    if interval:
        # one search of the Venn-Abers table for p and its interval
        return list(model._predict_with_interval(scores))
    return [model.predict_proba(scores)[:, 1]]


def _values(model, columns: list[np.ndarray], interval: bool, batch) -> list[np.ndarray]:
    """Predict a batch; rows with a missing (NaN) score get NaN."""
    missing = np.zeros(batch.n_rows, dtype=bool)
    for col in columns:
        missing |= np.isnan(col)
    try:
        if not missing.any():
            return _predict(model, columns, interval)
        keep = ~missing
        found = _predict(model, [col[keep] for col in columns], interval) if keep.any() else None
        values = []
        for j in range(3 if interval else 1):
            out = np.full(batch.n_rows, np.nan)
            if found is not None:
                out[keep] = found[j]
            values.append(out)
        return values
    except (ValueError, TypeError) as exc:
        raise CLIError(f"cannot predict rows {batch.first_row:,}...: {exc}") from None


@command("predict")
def run(args: argparse.Namespace) -> int:
    """Predict; return the exit code."""
    check_engine_options(args)
    inputs = target = None
    if args.engine == "dask":
        from ._dask_engine import input_files
        from ._dask_predict import prepare_output

        inputs = input_files(args.data, args.sep)
        target = prepare_output(args.output, inputs, args.sep, args.force, model=args.model)
    else:
        check_outputs(
            {"MODEL": args.model, "DATA": args.data}, {"-o": (args.output, "table")}, args.force
        )
    report = Reporter.from_args(args)
    model = load_model(args.model)
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
    names = [args.prefix + "p"] + ([args.prefix + "p0", args.prefix + "p1"] if interval else [])
    if inputs is not None:
        from ._dask_engine import cluster
        from ._dask_predict import predict

        with cluster(args):
            n = predict(args, report, model, score_cols, names, interval, inputs, target)
    else:
        types: dict = {}  # columns whose type, inferred from the first rows, a later row widened
        while True:
            try:
                n = _run(args, report, model, score_cols, names, interval, types)
                break
            except Retype as change:
                types[change.name] = change.type
    positive = model.classes_.tolist()[1]
    where = "stdout" if args.output == "-" else args.output
    report.info(
        f"wrote {n:,} rows to {where}: {', '.join(names)} (p = probability of class {positive!r})"
    )
    return 0


def _run(args, report, model, score_cols, names, interval, types) -> int:
    """Stream the table through the model into the output; return the number of rows."""
    import pyarrow as pa

    hint = " (--nan-scores propagate gives such rows empty predictions)"
    missing = args.nan_scores == "propagate"
    table = open_table(args.data, sep=args.sep)
    try:
        table.check_columns(score_cols, "--score-col")
        writer = open_writer(args.output, table, names, sep=args.sep)
        ok = False
        n = 0
        try:
            with report.progress(f"predicting {table.source}") as progress:
                for batch in table.batches(
                    progress, text=score_cols, typed=writer.typed, types=types
                ):
                    columns = [
                        batch.numbers(col, missing=args.nan_scores, hint=hint)
                        for col in score_cols
                    ]
                    values = _values(model, columns, interval, batch)
                    new = [
                        pa.array(v, pa.float64(), mask=np.isnan(v) if missing else None)
                        for v in values
                    ]
                    writer.write([*table.columns, *names], [*batch.columns(writer.typed), *new])
                    n += batch.n_rows
                if n == 0:  # a header and no rows: so is the output
                    empty = [pa.array([], pa.float64())] * len(names)
                    writer.write([*table.columns, *names], [*table.empty_columns(), *empty])
            ok = True
        finally:
            writer.close(ok)
    finally:
        table.close()
    return n
