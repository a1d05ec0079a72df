"""Tables given as files: listed, checked and read for Dask as the local reader reads them.

DATA is a file, a directory (its files; names starting with ``.`` or ``_``,
such as ``_SUCCESS``, are skipped) or a glob pattern, of Parquet files
(``.parquet``, ``.pq``) or of CSV files (``.csv``, ``.tsv``, optionally
compressed: ``.gz``, ``.bz2``, ``.xz``, ``.zst``), all of one format, read
with :func:`dask.dataframe.read_parquet` or :func:`dask.dataframe.read_csv`
(plain CSV files in blocks of ``blocksize`` bytes; a compressed file is one
partition).  The format goes by the file name.  Every file's header is
checked first (the columns, and one header for all CSV files).  CSV cells
are read as :mod:`venncal.tables` reads them: numeric columns as text,
parsed with pyarrow (so the same doubles and the same errors), labels as
text typed afterwards from all their distinct values, the other columns'
missing values by pyarrow's NA markers.  A bad cell is located at its row
of its file.
"""

from __future__ import annotations

import contextlib
import glob
import os
from collections.abc import Sequence
from typing import NamedTuple

import dask
import numpy as np
import pandas as pd

from .._rows import RowError
from ..tables import Param, ParameterError, TableError, column_numbers, file_format, na_markers, open_table
from ..tables._cells import EMPTY_NUMBER

__all__ = ["DASK", "NUM", "InputFiles", "check_headers", "input_files", "parsed", "read_frame"]

#: How messages name this reader (the command line: --engine dask).
DASK = Param("engine", python="venncal.dask")
#: The column dask's CSV reader adds with each row's file (for error messages).
_PATH_COL = "__venncal_source_file__"
#: The prefix of parsed number columns kept beside their text.
NUM = "__venncal_number__:"
GLOB_CHARS = "*?["


class InputFiles(NamedTuple):
    """The files of DATA: ``kind`` (csv, parquet), ``sep`` and ``compression`` (CSV)."""

    source: str
    files: list[str]
    kind: str
    sep: str | None
    compression: str | None


def _fail(source: str, *parts) -> TableError:
    return TableError(f"{source}: ", *parts, source=source)


def _listing(data: str) -> list[str]:
    if any(c in data for c in GLOB_CHARS) and not os.path.exists(data):  # a name is itself
        files = sorted(f for f in glob.glob(data) if os.path.isfile(f))
        if not files:
            raise _fail(data, "no file matches the pattern")
        return files
    if os.path.isdir(data):
        entries = sorted(e for e in os.listdir(data) if not e.startswith((".", "_")))
        folders = [e for e in entries if os.path.isdir(os.path.join(data, e))]
        if folders:
            raise _fail(
                data, f"holds the folder {folders[0]!r}; ", DASK, " reads the files of one "
                "folder: give a glob such as 'DIR/*/*.parquet' for nested ones",
            )
        if not entries:
            raise _fail(data, "the directory holds no data file")
        return [os.path.join(data, e) for e in entries]
    if os.path.isfile(data):
        return [data]
    raise _fail(data, "no such file or directory")


def input_files(data, sep: str | None = None) -> InputFiles:
    """Resolve DATA (a file, a directory or a glob) to its files, all of one format."""
    data = os.fspath(data)
    files = _listing(data)
    formats = {}
    for f in files:
        formats[f] = file_format(f)
        if formats[f] is None:
            raise _fail(
                f, "unknown table format; ", DASK, " goes by the file name: .parquet, .pq, "
                ".csv or .tsv (optionally followed by .gz, .bz2, .xz or .zst)",
            )
    first = files[0]
    for f in files[1:]:
        if formats[f].kind != formats[first].kind:
            raise _fail(
                data, f"mixes Parquet and CSV files ({first}, {f}); ", DASK,
                " reads files of one format",
            )
        if formats[f] != formats[first]:
            raise _fail(
                data, f"mixes CSV files of different separators or compressions ({first}, "
                f"{f}); ", DASK, " reads them alike",
            )
    kind, name_sep, compression = formats[first]
    if compression == "zstd":
        from importlib.util import find_spec

        if find_spec("zstandard") is None:
            raise _fail(first, ".zst files need the zstandard package with ", DASK)
    return InputFiles(data, files, kind, (sep or name_sep) if kind == "csv" else None, compression)


def check_headers(inputs: InputFiles, roles: dict[str, Sequence[str]],
                  one_schema: bool = False, labels: Sequence[str] = ()) -> list[str]:
    """Check every file's header for the columns of ``roles`` (parameter -> names); return one.

    ``labels``: Parquet files whose label columns hold labels of another kind
    (booleans, numbers, text) are refused: Dask would read ``True`` of one
    file as the number 1 of another (attack 52 F4), where CSV files, and the
    local reader, keep them apart.

    ``one_schema`` (for Parquet output): Parquet files whose shared columns
    differ in type are refused.  Dask writes every partition in one schema
    (the first file's): another type would be cast to it, a decimal
    ``-0.69`` to the double after ``-0.69`` (pyarrow's cast is not correctly
    rounded, attack 37 F1), an int64 column into a double one not at all (a
    cut pyarrow error, F2).
    """
    header = first = None
    for path in inputs.files:
        with open_table(path, sep=inputs.sep) as table:
            for param, names in roles.items():
                table.check_columns(names, param)
            if header is None:
                header, first = table.columns, getattr(table, "schema", None)
            elif inputs.kind == "csv" and table.columns != header:
                raise _fail(
                    path, f"its header differs from that of {inputs.files[0]}; ", DASK,
                    " reads CSV files with one header",
                )
            elif inputs.kind == "parquet":
                _check_label_kinds(first, table.schema, path, inputs.files[0], labels)
                if one_schema:
                    _check_types(first, table.schema, path, inputs.files[0])
    return header


def _label_kind(kind) -> str:
    import pyarrow as pa

    if pa.types.is_boolean(kind):
        return "booleans"
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return "numbers"
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return "text"
    return str(kind)


def _check_label_kinds(first, schema, path: str, first_path: str, labels) -> None:
    """Refuse ``path`` if a label column holds labels of another kind than in ``first_path``."""
    for name in labels:
        if name in schema.names and name in first.names:
            here, there = _label_kind(schema.field(name).type), _label_kind(
                first.field(name).type)
            if here != there:
                raise _fail(
                    path, f"column {name!r} holds {here} here and {there} in {first_path}; ",
                    DASK, " would take one for the other (True for 1): labels are numbers, "
                    "booleans or text, of one kind; give the files one type",
                )


def _check_types(first, schema, path: str, first_path: str) -> None:
    """Refuse ``path`` if a column it shares with ``first_path`` has another type there."""
    for field in schema:
        if field.name in first.names and field.type != first.field(field.name).type:
            raise _fail(
                path, f"column {field.name!r} is {field.type} here and "
                f"{first.field(field.name).type} in {first_path}; ", DASK, " writes "
                "Parquet output in one schema for all files, which would change the column "
                "in some; give the files one type, or write CSV output",
            )


def first_line(exc: BaseException) -> str:
    """Return the first line of an exception's message (or its type's name)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def read_frame(inputs: InputFiles, columns, text: Sequence[str], header: Sequence[str],
               blocksize=None):
    """Return a dask data frame of ``columns`` (None: all of ``header``); CSV ``text`` as strings."""
    import dask.dataframe as dd

    files = [glob.escape(f) for f in inputs.files]  # dask globs each name: read it as named
    if inputs.kind == "parquet":
        return dd.read_parquet(files, columns=columns)
    nulls = list(na_markers().to_pylist())
    names = columns if columns is not None else header
    options = {
        "sep": inputs.sep,
        "usecols": columns,
        "dtype": dict.fromkeys(text, "str"),
        "keep_default_na": False,
        "na_values": {c: nulls for c in names if c not in text},
        "compression": inputs.compression,
        "include_path_column": _PATH_COL,
        "blocksize": None if inputs.compression else (blocksize or "default"),
    }
    try:
        return dd.read_csv(files, **options)
    except (ValueError, TypeError, OSError) as exc:
        raise _fail(inputs.source, f"cannot read as CSV with dask: {first_line(exc)}") from exc


def _path(pdf, source: str) -> str:
    """Return the file of a CSV partition (dask's path column), else ``source``."""
    if _PATH_COL in pdf.columns and len(pdf):
        return str(pdf[_PATH_COL].iloc[0])
    return source


class _PartitionError(TableError):
    """A bad cell at ``row`` of partition ``partition`` (whose rows come from ``path``).

    Or a bad row (``row_error``, a :class:`~venncal._rows.RowError` counting the
    partition's rows from 0), whose file :func:`located` finds (``path`` None).
    """

    row_error = None


def row_error(exc, partition, doing: str = "cannot predict") -> _PartitionError:
    """The error of partition ``partition`` for ``exc``, a RowError of its rows (from 0)."""
    error = _PartitionError(f"partition {partition}: {doing}: {exc}")
    error.partition, error.path, error.row_error, error.doing = partition, None, exc, doing
    return error


@contextlib.contextmanager
def located_rows(doing: str = "cannot fit"):
    """Raise a :class:`RowError` with a ``partition`` as that row of its partition (of its file)."""
    try:
        yield
    except RowError as exc:
        if exc.partition is None:
            raise
        raise row_error(exc, exc.partition, doing) from None


def _label_texts(series: pd.Series) -> pd.Series:
    """Label cells read as text, with blank and NA cells (after trimming) missing."""
    stripped = series.str.strip()
    missing = series.isna() | stripped.isin(["", *na_markers().to_pylist()])
    return series.astype(object).where(~missing.to_numpy(), None)


_EMPTY_OR_NAN = "an empty or NaN cell (pandas reads both as NaN), a number is needed"


def _parse(pdf, numeric, labels, missing, hint, source, replace, partition_info=None):
    """Parse the ``numeric`` columns of a partition as the local reader does, clean ``labels``.

    The numbers replace their text (``replace``) or go beside it, in
    columns named ``NUM + name``; dask's file column is dropped.
    """
    import pyarrow as pa

    values = {}
    for name in numeric:
        try:
            numbers = column_numbers(
                pa.Array.from_pandas(pdf[name]), "", name, 1, missing=missing, hint=hint
            )
        except TableError as exc:
            if exc.row is None:
                raise
            number = partition_info["number"] if partition_info else 0
            path = _path(pdf, source)
            problem = exc.parts[1:]
            if pdf[name].dtype.kind == "f":  # pandas holds a null and a NaN alike, as NaN
                problem = tuple(
                    _EMPTY_OR_NAN + part[len(EMPTY_NUMBER):]
                    if isinstance(part, str) and part.startswith(EMPTY_NUMBER) else part
                    for part in problem
                )
            error = _PartitionError.at_cell(f"partition {number} of {path}", name, exc.row,
                                            *problem)
            error.partition, error.path = number, path
            error.parse = (numeric, labels, missing, hint, source, replace)  # for located
            raise error from None
        values[name if replace else NUM + name] = numbers
    for name in labels:
        values[name] = _label_texts(pdf[name])
    return pdf.drop(columns=[_PATH_COL], errors="ignore").assign(**values)


def parsed(df, numeric, *, labels=(), missing="error", hint=(), source, replace=True):
    """Return ``df`` with its ``numeric`` columns parsed (see :func:`_parse`), lazily."""
    meta = df._meta.drop(columns=[_PATH_COL], errors="ignore")
    new = {(c if replace else NUM + c): pd.Series(dtype="float64") for c in numeric}
    new.update({c: pd.Series(dtype=object) for c in labels})
    return df.map_partitions(
        _parse, list(numeric), list(labels), missing, hint, source, replace,
        meta=meta.assign(**new), align_dataframes=False,
    )


def _counted(pdf, source: str, parse, number: int, check=None) -> tuple:
    """``(rows, file, first error or None)`` of raw partition ``number``.

    Its cells are parsed only when ``parse`` (the arguments of
    :func:`_parse`) is given; ``check(pdf, number)``, if given, does the
    partition's whole work instead, raising its :class:`_PartitionError`.
    """
    try:
        if check is not None:
            check(pdf, number)
        elif parse is not None:
            _parse(pdf, *parse, partition_info={"number": number})
    except _PartitionError as exc:
        return len(pdf), _path(pdf, source), exc
    return len(pdf), _path(pdf, source), None


def _first_of_rows(errors: list) -> _PartitionError:
    """The first of the partitions' bad-row errors, its count summed over them all.

    A count is exact when every failing partition failed the same check;
    otherwise a partition may have stopped at another check before counting
    this one's rows, and the message says "at least".
    """
    first = errors[0]
    head = first.row_error
    if head.count is not None and len(errors) > 1:
        same = [e.row_error for e in errors if e.row_error.kind == head.kind]
        first.row_error = head.recounted(sum(e.count for e in same),
                                         exact=len(same) == len(errors))
    return first


def located(exc: _PartitionError, raw, source: str, check=None) -> TableError:
    """Locate a bad cell or row at its row of its file (of the whole input for Parquet).

    Partitions know neither where their file starts nor the rows before
    them, so on error only, the earlier partitions are counted: a second
    pass over at most the data before the bad cell.  For a bad cell, that
    pass parses them too, so that the first bad cell of the input is named
    whichever partition failed first.  For a bad row found by a partition's
    work, ``check`` (see :func:`_counted`) redoes that work on every
    partition, so that the first bad row is named and the bad rows are
    counted over the whole input, or the first bad cell if there is one,
    as the local engine, which reads every cell first, reports it.
    """
    bad_row = exc.row_error is not None  # its file is the path of its partition's rows
    if bad_row and check is not None:
        parts = raw.to_delayed()
    else:
        parts = raw.to_delayed()[: exc.partition + bad_row]
        check = None
    parse = None if bad_row else getattr(exc, "parse", None)
    counted = dask.compute(*[dask.delayed(_counted)(part, source, parse, i, check)
                             for i, part in enumerate(parts)])
    errors = [e for _, _, e in counted if e is not None]
    cells = [e for e in errors if e.row_error is None]
    if cells:
        exc, bad_row = cells[0], False
    elif check is not None and errors:
        exc = _first_of_rows(errors)
    earlier = [(n, path) for n, path, _ in counted]
    where = earlier[exc.partition][1] if bad_row else exc.path
    csv = _PATH_COL in raw.columns
    offset = sum(n for n, path in earlier[: exc.partition] if path == where or not csv)
    if bad_row:  # as the local engine says it
        return TableError(f"{where}: {exc.doing}: {exc.row_error.renumbered(offset + 1)}",
                          source=where)
    return exc.moved(exc.path, offset + exc.row, f" (partition {exc.partition})")


def compute_errors() -> tuple:
    """Return the exceptions a dask computation raises for bad input (reported as TableError)."""
    import pyarrow as pa

    return (ValueError, TypeError, OSError, KeyError, pa.ArrowException)


def connect(address: str, timeout: str = "5s"):
    """A client of the running Dask scheduler at ``address`` (``tcp://host:8786``).

    Raises ``ValueError`` naming ``address`` when it is not a scheduler's
    address (checked before a client is made: a half-made one waits 10 s at
    exit, and prints a traceback) or when nothing answers there.
    """
    from distributed import Client
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme not in ("tcp", "tls"):  # inproc:// and ucx:// are no command line's
            raise ValueError(f"the scheme {scheme}:// is not tcp:// or tls://")
        parse_host_port(location)  # a port is needed
    except ValueError as exc:
        raise ValueError(f"{address}: not the address of a Dask scheduler ({exc}); give one "
                         "such as tcp://host:8786") from None
    try:
        return Client(address, set_as_default=False, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        text = str(exc).strip()
        raise ValueError(f"{address}: cannot connect: "
                         f"{text.splitlines()[0] if text else type(exc).__name__}") from None


@contextlib.contextmanager
def on_client(client):
    """Run the block's computations on ``client`` (None: the current default scheduler)."""
    if client is None:
        yield
        return
    with dask.config.set(scheduler=client):
        yield


@contextlib.contextmanager
def computing(raw, source: str, client=None, check=None):
    """Compute on ``client`` what the block asks; report bad input as one :class:`TableError`.

    A bad cell is located at its row of its file (:func:`located`, on the
    same client, with ``check``); the library's parameter errors and the
    errors of reading (:func:`compute_errors`) name ``source``.
    """
    try:
        with on_client(client):
            yield
    except _PartitionError as exc:
        with on_client(client):
            raise located(exc, raw, source, check) from None
    except TableError:
        raise
    except ParameterError as exc:
        raise TableError(f"{source}: ", *exc.parts, source=source) from exc
    except compute_errors() as exc:
        raise TableError(f"{source}: {first_line(exc)}", source=source) from exc


def typed_texts(values) -> dict:
    """Map label texts to labels typed from all of them (:func:`venncal.tables.typed_labels`)."""
    from ..tables import typed_labels

    texts = sorted({v for v in values if v is not None})
    if not texts:
        return {}
    return dict(zip(texts, typed_labels(np.array(texts, dtype=str)).tolist(), strict=True))
