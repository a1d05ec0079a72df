"""``--engine dask`` of ``venncal fit`` and ``venncal predict``: many files, larger than memory.

DATA is a file, a directory (its files; names starting with ``.`` or ``_``,
such as ``_SUCCESS``, are skipped) or a glob pattern, of Parquet files
(``.parquet``, ``.pq``) or of CSV files (``.csv``, ``.tsv``, optionally
compressed: ``.gz``, ``.bz2``, ``.xz``, ``.zst``), all of one format, read
with :func:`dask.dataframe.read_parquet` or :func:`dask.dataframe.read_csv`
(plain CSV files in blocks of ``--blocksize`` bytes; a compressed file is one
partition).  Unlike the local engine, the format goes by the file name.
Every file's header is checked first (the columns, and one header for all
CSV files).  CSV cells are read as the local engine reads them: the score
and weight columns as text, parsed with pyarrow (so the same doubles and the
same errors), the other columns' missing values by pyarrow's NA markers.

``fit`` reduces the partitions to the exact score summary on the workers
(:mod:`venncal.dask`) and fits on the client: with integer weights the model
is, bit for bit, the model the local engine fits on the same rows.
``predict`` (:mod:`venncal.cli._dask_predict`) scores each partition and
writes one output file per partition into a new directory.

The work runs on the scheduler at ``--scheduler ADDRESS``, or on a local
cluster started for the command (``--workers`` processes of one thread).
This module imports dask only when it runs, so ``venncal --help`` stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import glob
import os
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import numpy as np

from ._io import CellError, CLIError, positive_int

__all__ = [
    "InputFiles",
    "add_engine_options",
    "check_engine_options",
    "cluster",
    "fit_summary_pieces",
    "input_files",
]

#: The column dask's CSV reader adds with each row's file (for error messages).
_PATH_COL = "__venncal_source_file__"
#: The prefix of the parsed score columns beside their text, while predicting.
_NUM = "__venncal_number__:"
_GLOB_CHARS = "*?["
_PARQUET = (".parquet", ".pq")
_CSV = {".csv": ",", ".tsv": "\t"}
_COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd"}
_DASK_ONLY = ("--scheduler", "--workers", "--blocksize", "--round-scores", "--max-distinct")


# ----------------------------------------------------------------------------- options


def _decimals(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of decimals, got {text!r}") from None


def add_engine_options(parser: argparse.ArgumentParser, *, fit: bool) -> None:
    """Add ``--engine`` and the options of the dask engine to ``fit`` or ``predict``."""
    group = parser.add_argument_group(
        "engine",
        "--engine dask reads DATA as a file, a directory or a quoted glob of Parquet or CSV "
        "files (format by name), larger than memory, on a Dask cluster",
    )
    group.add_argument(
        "--engine",
        choices=("local", "dask"),
        default="local",
        help="local: one process, pyarrow (default); dask: dask.dataframe on a cluster",
    )
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="address of a running Dask scheduler (e.g. tcp://host:8786); default: a local "
        "cluster started for the command and closed after it",
    )
    group.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="worker processes of the local cluster, one thread each (default: the CPU count)",
    )
    group.add_argument(
        "--blocksize",
        metavar="BYTES",
        help="bytes per partition of a plain CSV file (e.g. 64MB, dask's default; "
        "a compressed file is one partition)",
    )
    if fit:
        group.add_argument(
            "--round-scores",
            type=_decimals,
            metavar="D",
            help="round the scores to D decimals first (numpy.round), to bound the distinct "
            "scores brought to the client",
        )
        group.add_argument(
            "--max-distinct",
            type=positive_int,
            metavar="N",
            help="the most distinct scores (per label and fold) brought to the client "
            "(default: 10,000,000, about 240 MB)",
        )


def check_engine_options(args: argparse.Namespace) -> None:
    """Refuse the dask engine's options with the local engine, and contradictory ones."""
    given = [f for f in _DASK_ONLY if getattr(args, f[2:].replace("-", "_"), None) is not None]
    if args.engine == "local" and given:
        raise CLIError(f"{given[0]} is an option of --engine dask")
    if args.scheduler is not None and args.workers is not None:
        raise CLIError("--workers sizes the local cluster; it does not go with --scheduler")


# ------------------------------------------------------------------------------- inputs


class InputFiles(NamedTuple):
    """The files of DATA: ``kind`` (csv, parquet), ``sep`` and ``compression`` (CSV)."""

    source: str
    files: list[str]
    kind: str
    sep: str | None
    compression: str | None


def _file_format(path: str) -> tuple[str, str | None, str | None]:
    name = os.path.basename(path).lower()
    if name.endswith(_PARQUET):
        return "parquet", None, None
    compression = None
    for suffix, codec in _COMPRESSION.items():
        if name.endswith(suffix):
            name, compression = name[: -len(suffix)], codec
    for suffix, sep in _CSV.items():
        if name.endswith(suffix):
            return "csv", sep, compression
    raise CLIError(
        f"{path}: unknown table format; --engine dask goes by the file name: .parquet, .pq, "
        ".csv or .tsv (optionally followed by .gz, .bz2, .xz or .zst)"
    )


def _listing(data: str) -> list[str]:
    if data == "-":
        raise CLIError(
            "--engine dask reads files (a file, a directory or a glob), not stdin (-); "
            "use --engine local"
        )
    if any(c in data for c in _GLOB_CHARS):
        files = sorted(f for f in glob.glob(data) if os.path.isfile(f))
        if not files:
            raise CLIError(f"{data}: no file matches the pattern")
        return files
    if os.path.isdir(data):
        entries = sorted(e for e in os.listdir(data) if not e.startswith((".", "_")))
        folders = [e for e in entries if os.path.isdir(os.path.join(data, e))]
        if folders:
            raise CLIError(
                f"{data}: holds the folder {folders[0]!r}; --engine dask reads the files of one "
                "folder: give a glob such as 'DIR/*/*.parquet' for nested ones"
            )
        if not entries:
            raise CLIError(f"{data}: the directory holds no data file")
        return [os.path.join(data, e) for e in entries]
    if os.path.isfile(data):
        return [data]
    raise CLIError(f"{data}: no such file or directory")


def input_files(data: str, sep: str | None = None) -> InputFiles:
    """Resolve DATA to its files, all of one format, or raise CLIError."""
    files = _listing(data)
    formats = {f: _file_format(f) for f in files}
    first = files[0]
    for f in files[1:]:
        if formats[f][0] != formats[first][0]:
            raise CLIError(
                f"{data}: mixes Parquet and CSV files ({first}, {f}); --engine dask reads "
                "files of one format"
            )
        if formats[f] != formats[first]:
            raise CLIError(
                f"{data}: mixes CSV files of different separators or compressions ({first}, "
                f"{f}); --engine dask reads them alike"
            )
    kind, name_sep, compression = formats[first]
    if compression == "zstd":
        from importlib.util import find_spec

        if find_spec("zstandard") is None:
            raise CLIError(f"{first}: .zst files need the zstandard package with --engine dask")
    return InputFiles(data, files, kind, (sep or name_sep) if kind == "csv" else None, compression)


def _check_headers(inputs: InputFiles, roles: dict[str, Sequence[str]]) -> list[str]:
    """Check every file's header for the columns of ``roles`` (option -> names); return one."""
    from ._io import open_table

    header = None
    for path in inputs.files:
        with open_table(path, sep=inputs.sep) as table:
            for option, names in roles.items():
                table.check_columns(names, option)
            if header is None:
                header = table.columns
            elif inputs.kind == "csv" and table.columns != header:
                raise CLIError(
                    f"{path}: its header differs from that of {inputs.files[0]}; --engine dask "
                    "reads CSV files with one header"
                )
    return header


def _null_values() -> list[str]:
    import pyarrow.csv

    return list(pyarrow.csv.ConvertOptions().null_values)


def _read(inputs: InputFiles, args, columns, text: Sequence[str], header: Sequence[str]):
    """Return a dask data frame of ``columns`` (None: all of ``header``); CSV ``text`` as strings."""
    import dask.dataframe as dd

    if inputs.kind == "parquet":
        return dd.read_parquet(inputs.files, columns=columns)
    nulls = _null_values()
    names = columns if columns is not None else header
    options = {
        "sep": inputs.sep,
        "usecols": columns,
        "dtype": dict.fromkeys(text, "str"),
        "keep_default_na": False,
        "na_values": {c: nulls for c in names if c not in text},
        "compression": inputs.compression,
        "include_path_column": _PATH_COL,
        "blocksize": None if inputs.compression else (args.blocksize or "default"),
    }
    try:
        return dd.read_csv(inputs.files, **options)
    except (ValueError, TypeError, OSError) as exc:
        raise CLIError(f"{inputs.source}: cannot read as CSV with dask: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _path(pdf, source: str) -> str:
    """Return the file of a CSV partition (dask's path column), else ``source``."""
    if _PATH_COL in pdf.columns and len(pdf):
        return str(pdf[_PATH_COL].iloc[0])
    return source


class _PartitionCellError(CellError):
    """A bad cell at ``row`` of partition ``partition`` (whose rows come from ``path``)."""

    def __init__(self, partition: int, path: str, column: str, row: int, problem: str):
        super().__init__(f"partition {partition} of {path}", column, row, problem)
        self.partition, self.path = partition, path

    def __reduce__(self):
        return type(self), (self.partition, self.path, self.column, self.row, self.problem)


def _length_and_path(pdf, source: str) -> tuple[int, str]:
    return len(pdf), _path(pdf, source)


def _in_file(exc: _PartitionCellError, raw, source: str) -> CLIError:
    """Locate a bad cell at its row of its file (of the whole input for Parquet).

    Partitions know neither where their file starts nor the rows before
    them, so on error only, the earlier partitions are counted: a second
    pass over at most the data before the bad cell.
    """
    import dask

    parts = raw.to_delayed()[: exc.partition]
    earlier = dask.compute(*[dask.delayed(_length_and_path)(part, source) for part in parts])
    csv = _PATH_COL in raw.columns
    offset = sum(n for n, path in earlier if path == exc.path or not csv)
    return exc.at_row(exc.path, offset + exc.row, f" (partition {exc.partition})")


def _numbers(pdf, columns, missing, hint, source, replace, partition_info=None):
    """Parse ``columns`` of a partition as the local engine does; ``replace`` them by the numbers.

    Returns the partition (without dask's file column) and, unless
    ``replace``, the numbers as extra columns named ``_NUM + column``.
    """
    import pyarrow as pa

    from ._cells import column_numbers

    values = {}
    for name in columns:
        arr = pa.Array.from_pandas(pdf[name])
        try:
            numbers = column_numbers(arr, "", name, 1, missing=missing, hint=hint)
        except CellError as exc:
            number = partition_info["number"] if partition_info else 0
            raise _PartitionCellError(
                number, _path(pdf, source), name, exc.row, exc.problem
            ) from None
        values[name if replace else _NUM + name] = numbers
    return pdf.drop(columns=[_PATH_COL], errors="ignore").assign(**values)


def _numeric_frame(df, columns, *, missing="error", hint="", source, replace=True):
    import pandas as pd

    meta = df._meta.drop(columns=[_PATH_COL], errors="ignore")
    new = {(c if replace else _NUM + c): pd.Series(dtype="float64") for c in columns}
    meta = meta.assign(**new)
    return df.map_partitions(
        _numbers, list(columns), missing, hint, source, replace, meta=meta, align_dataframes=False
    )


# ------------------------------------------------------------------------------ cluster


@contextlib.contextmanager
def cluster(args: argparse.Namespace) -> Iterator[object]:
    """Run the block on ``--scheduler``, or on a local cluster started for it; yield the client."""
    import logging

    import dask
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if args.scheduler:
            try:
                client = stack.enter_context(
                    Client(args.scheduler, set_as_default=False, timeout="5s")
                )
            except (OSError, TimeoutError, ValueError) as exc:
                raise CLIError(
                    f"--scheduler {args.scheduler}: cannot connect: {_first_line(exc)}"
                ) from None
        else:
            local = stack.enter_context(
                LocalCluster(
                    n_workers=args.workers or os.cpu_count() or 1,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",  # any free port: 8787 may be taken
                    worker_dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
            )
            client = stack.enter_context(Client(local, set_as_default=False))
        stack.enter_context(dask.config.set(scheduler=client))
        yield client


def _compute_errors():
    """Return the exceptions a dask computation raises for bad input (reported as CLIError)."""
    import pyarrow as pa

    return (ValueError, TypeError, OSError, KeyError, pa.ArrowException)


# ---------------------------------------------------------------------------------- fit


def _as_label(value):
    """Return a label (or fold) as a model keeps it: a number, a boolean or text (dates as text)."""
    if value is None or isinstance(value, (bool, int, float, str, np.bool_, np.number)):
        return value
    return str(value)


def _labels_as_text(pieces, problems):
    """Return ``(pieces, problems)`` with labels and folds of other types (dates) as text.

    As the local engine reads them (:func:`venncal.cli._cells.column_labels`).
    """
    from .. import _engine

    out: dict = {}
    for (group, label), piece in pieces.items():
        _engine.merge_pieces(out, {(_as_label(group), _as_label(label)): piece})
    labels = tuple(dict.fromkeys(_as_label(v) for v in problems.labels))
    return out, dataclasses.replace(problems, labels=labels)


def fit_summary_pieces(args: argparse.Namespace, inputs: InputFiles, group_col: str | None):
    """Read DATA and reduce it to the score summary's pieces on the cluster.

    Returns ``(pieces, problems)`` of :mod:`venncal._engine`, checked.
    """
    from .. import _engine
    from .. import dask as vd

    roles = {"--score-col": [args.score_col], "--label-col": [args.label_col]}
    if args.weight_col:
        roles["--weight-col"] = [args.weight_col]
    if group_col:
        roles["--fold-col"] = [args.fold_col]
    numeric = [args.score_col, *([args.weight_col] if args.weight_col else [])]
    columns = _engine.input_columns(args.score_col, args.label_col, args.weight_col, args.fold_col)
    header = _check_headers(inputs, roles)
    raw = _read(inputs, args, columns, numeric, header)
    df = _numeric_frame(raw, numeric, source=inputs.source)
    max_distinct = args.max_distinct or _engine.DEFAULT_MAX_DISTINCT
    try:
        return _labels_as_text(*vd._reduce(
            df, args.score_col, args.label_col, args.weight_col, args.fold_col,
            args.round_scores, 8, max_distinct,
        ))
    except _PartitionCellError as exc:
        raise _in_file(exc, raw, inputs.source) from None
    except CLIError:
        raise
    except _compute_errors() as exc:
        message = _first_line(exc).replace("max_distinct=", "--max-distinct ")
        message = message.replace("round_scores=d (d decimal places)", "--round-scores D")
        message = message.replace("or raise max_distinct", "or raise --max-distinct")
        raise CLIError(f"{inputs.source}: {message}") from None
