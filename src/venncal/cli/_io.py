"""Tables in and out of the command line: CSV (plain or gzip) and Parquet.

The format follows the file name: ``.parquet`` (or ``.pq``) is Parquet (needs
the optional pyarrow), a name ending in ``.gz`` is gzip-compressed CSV, and
anything else, including ``-`` for stdin or stdout, is CSV: UTF-8 (a leading
byte-order mark is skipped), one header line, fields separated by ``--sep``
(default ``,``), quoted as Python's :mod:`csv` module does.

Rows are read in batches, so files larger than memory stream through
``venncal predict``.  Rows are numbered from 1, the header not counted, in
every error message.  Errors in the user's input raise :class:`CLIError`,
which the subcommands turn into a message on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import functools
import gzip
import io
import math
import os
import secrets
import sys
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from .._validation import check_probabilities, check_sample_weight

__all__ = [
    "BATCH_ROWS",
    "CLIError",
    "add_sep_option",
    "as_labels",
    "command",
    "open_table",
    "open_writer",
    "probability_column",
    "read_columns",
    "weight_column",
]

#: Rows per batch when streaming a table.
BATCH_ROWS = 65_536

PARQUET_HINT = 'reading and writing Parquet needs pyarrow: pip install "venncal[parquet]"'


class CLIError(Exception):
    """A problem with the user's input: reported on stderr, exit code 2."""


def command(name: str) -> Callable:
    """Decorate a subcommand's ``run(args)``: turn :class:`CLIError` into exit code 2."""

    def decorate(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        @functools.wraps(run)
        def wrapper(args: argparse.Namespace) -> int:
            try:
                return run(args)
            except CLIError as exc:
                print(f"venncal {name}: error: {exc}", file=sys.stderr)
                return 2
            except KeyboardInterrupt:
                print(f"venncal {name}: interrupted", file=sys.stderr)
                return 130
            except BrokenPipeError:  # e.g. `venncal predict ... -o - | head`
                # Python flushes stdout at exit: point it at devnull so that the
                # flush cannot fail again (the recipe of the signal module docs).
                try:
                    devnull = os.open(os.devnull, os.O_WRONLY)
                    os.dup2(devnull, sys.stdout.fileno())
                except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
                    pass
                return 1

        return wrapper

    return decorate


# ----------------------------------------------------------------------------- options


def _separator(text: str) -> str:
    sep = {"\\t": "\t", "tab": "\t", "TAB": "\t"}.get(text, text)
    if len(sep) != 1 or sep in '\r\n"':
        raise argparse.ArgumentTypeError(
            f"the separator must be one character (or \\t or tab); got {text!r}"
        )
    return sep


def add_sep_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--sep`` (the CSV field separator) to a subcommand parser."""
    parser.add_argument(
        "--sep",
        type=_separator,
        default=",",
        metavar="CHAR",
        help="field separator of CSV files, read and written (default: ','; '\\t' or 'tab' "
        "for tab)",
    )


# ------------------------------------------------------------------------------ formats


def _kind(path: str) -> str:
    name = path.lower()
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    return "csv.gz" if name.endswith(".gz") else "csv"


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise CLIError(PARQUET_HINT) from None
    return pyarrow


def _check_input_file(path: str) -> None:
    if not os.path.exists(path):
        raise CLIError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CLIError(f"{path}: is a directory, not a file")


# -------------------------------------------------------------------------------- cells


def _where(source: str, column: str, row: int) -> str:
    return f"{source}: column {column!r}, row {row:,}"


def parse_numbers(cells: Sequence, source: str, column: str, first_row: int) -> np.ndarray:
    """Return the cells of a column as finite float64 numbers, or raise CLIError.

    ``cells`` holds strings (CSV) or Python numbers and ``None`` (Parquet);
    ``first_row`` is the 1-based number of the first cell's row.
    """
    try:
        values = np.array([float(c) for c in cells], dtype=np.float64)
    except (TypeError, ValueError):
        for i, c in enumerate(cells):
            where = _where(source, column, first_row + i)
            if c is None or (isinstance(c, str) and not c.strip()):
                raise CLIError(f"{where}: empty cell, a number is needed") from None
            try:
                float(c)
            except (TypeError, ValueError):
                raise CLIError(f"{where}: cannot parse {c!r} as a number") from None
        raise  # pragma: no cover - one of the cells must have failed
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise CLIError(
            f"{_where(source, column, first_row + i)}: {cells[i]!r} is not a finite number "
            "(NaN and infinite values are not allowed here)"
        )
    return values


def _check_present(cells: Sequence, source: str, column: str, first_row: int) -> None:
    for i, c in enumerate(cells):
        if c is None or (isinstance(c, str) and not c.strip()):
            raise CLIError(f"{_where(source, column, first_row + i)}: empty cell")


def as_labels(values: Sequence, *, typed: bool) -> np.ndarray:
    """Return labels (or fold ids) as an array.

    Text cells (``typed=False``, from CSV) become integers when every cell is
    an integer, else floats when every cell is a finite number, else stay
    strings, so that ``2 < 10`` sorts as numbers do.  Typed cells (Parquet)
    keep their type.
    """
    if typed:
        return np.asarray(values)
    for convert in (int, float):
        try:
            converted = [convert(v) for v in values]
        except ValueError:
            continue
        try:
            arr = np.asarray(converted)
        except OverflowError:
            break
        if arr.dtype.kind in "iuf" and (arr.dtype.kind != "f" or np.isfinite(arr).all()):
            return arr
    return np.asarray(values, dtype=str)


# --------------------------------------------------------------------------------- read


class _Counting(io.RawIOBase):
    """A binary file that counts the bytes read through it (for progress)."""

    def __init__(self, f):
        self._f = f
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = self._f.readinto(b)
        self.count += n or 0
        return n

    def close(self) -> None:
        self._f.close()
        super().close()


class Batch:
    """Consecutive rows of a table: ``first_row`` (1-based) and ``n_rows``."""

    def __init__(self, table: Table, first_row: int, n_rows: int):
        self.table = table
        self.first_row = first_row
        self.n_rows = n_rows

    def cells(self, name: str) -> list:
        """Return the cells of a column as Python values (``str`` for CSV)."""
        raise NotImplementedError

    def numbers(self, name: str) -> np.ndarray:
        """Return a column as finite float64 values, or raise CLIError."""
        return parse_numbers(self.cells(name), self.table.source, name, self.first_row)

    def present(self, name: str) -> list:
        """Return the cells of a column, refusing empty ones."""
        cells = self.cells(name)
        _check_present(cells, self.table.source, name, self.first_row)
        return cells


class Table:
    """An input table: ``source`` (its name), ``columns`` and batches of rows."""

    source: str
    columns: list[str]
    typed: bool  # cells carry their own types (Parquet), or are all text (CSV)

    def check_columns(self, names: Sequence[str], option: str | None = None) -> None:
        """Raise CLIError if a column is missing (listing those available) or repeated."""
        for name in names:
            count = self.columns.count(name)
            if count == 0:
                hint = f" (given by {option})" if option else ""
                shown = ", ".join(repr(c) for c in self.columns)
                raise CLIError(
                    f"{self.source}: no column {name!r}{hint}; available columns: {shown}"
                )
            if count > 1:
                raise CLIError(
                    f"{self.source}: column {name!r} appears {count} times in the header"
                )

    def batches(self, progress) -> Iterator[Batch]:  # pragma: no cover - interface
        raise NotImplementedError

    def close(self) -> None:
        """Release the file."""


class _CsvBatch(Batch):
    def __init__(self, table, first_row, rows):
        super().__init__(table, first_row, len(rows))
        self.rows = rows

    def cells(self, name):
        j = self.table.columns.index(name)
        return [row[j] for row in self.rows]


class CsvTable(Table):
    """A CSV table read in batches (a file, a gzip file or stdin)."""

    typed = False

    def __init__(self, path: str, sep: str):
        self.source = "<stdin>" if path == "-" else path
        self.sep = sep
        self._counter = None
        self._size = None
        if path == "-":
            self._text = sys.stdin
        else:
            _check_input_file(path)
            try:
                raw = open(path, "rb")  # noqa: SIM115 - closed by close()
            except OSError as exc:
                raise CLIError(f"{path}: cannot open: {exc.strerror or exc}") from None
            self._size = os.fstat(raw.fileno()).st_size
            self._counter = _Counting(raw)
            stream = io.BufferedReader(self._counter)
            if _kind(path) == "csv.gz":
                stream = gzip.GzipFile(fileobj=stream, mode="rb")
            self._text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
        self._reader = csv.reader(self._text, delimiter=sep)
        header = self._next()
        if header is None:
            raise CLIError(f"{self.source}: the file is empty (a header line is needed)")
        self.columns = header

    def _next(self):
        try:
            return next(self._reader, None)
        except UnicodeDecodeError:
            raise CLIError(f"{self.source}: not UTF-8 text (is it a CSV file?)") from None
        except (OSError, EOFError, csv.Error) as exc:
            raise CLIError(f"{self.source}: cannot read: {exc}") from None

    def _fraction(self):
        if self._counter is None or not self._size:
            return None
        return self._counter.count / self._size

    def batches(self, progress=None):
        ncol = len(self.columns)
        row_number = 0
        rows = []
        first = 1
        while True:
            row = self._next()
            if row is None:
                break
            if not row:
                if ncol != 1:
                    continue  # a blank line
                row = [""]
            row_number += 1
            if len(row) != ncol:
                raise CLIError(
                    f"{self.source}: row {row_number:,} has {len(row)} field(s) but the header "
                    f"has {ncol} (is the separator {self.sep!r} right? see --sep)"
                )
            rows.append(row)
            if len(rows) == BATCH_ROWS:
                yield _CsvBatch(self, first, rows)
                if progress is not None:
                    progress.update(row_number, self._fraction())
                first = row_number + 1
                rows = []
        if rows:
            yield _CsvBatch(self, first, rows)
        if progress is not None:
            progress.update(row_number, self._fraction())

    def close(self):
        if self._text is not sys.stdin:
            self._text.close()


class _ParquetBatch(Batch):
    def __init__(self, table, first_row, record_batch):
        super().__init__(table, first_row, record_batch.num_rows)
        self.record_batch = record_batch

    def _column(self, name):
        return self.record_batch.column(self.table.columns.index(name))

    def cells(self, name):
        return self._column(name).to_pylist()

    def numbers(self, name):
        pa = _pyarrow()
        col = self._column(name)
        t = col.type
        if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
            if col.null_count:
                return parse_numbers(col.to_pylist(), self.table.source, name, self.first_row)
            values = np.asarray(col.cast(pa.float64()).to_numpy(zero_copy_only=False))
            if not np.isfinite(values).all():
                return parse_numbers(values.tolist(), self.table.source, name, self.first_row)
            return values.astype(np.float64, copy=False)
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            return super().numbers(name)
        raise CLIError(
            f"{self.table.source}: column {name!r} has type {t}, a numeric column is needed"
        )


class ParquetTable(Table):
    """A Parquet file read in record batches (needs pyarrow)."""

    typed = True

    def __init__(self, path: str):
        if path == "-":
            raise CLIError("Parquet cannot be read from stdin; give a file name")
        _check_input_file(path)
        pa = _pyarrow()
        self.source = path
        try:
            self._file = pa.parquet.ParquetFile(path)
        except (pa.ArrowException, OSError) as exc:
            raise CLIError(f"{path}: not a readable Parquet file: {exc}") from None
        self.schema = self._file.schema_arrow
        self.columns = list(self.schema.names)
        self.n_rows = self._file.metadata.num_rows

    def batches(self, progress=None):
        done = 0
        pa = _pyarrow()
        try:
            for rb in self._file.iter_batches(batch_size=BATCH_ROWS):
                yield _ParquetBatch(self, done + 1, rb)
                done += rb.num_rows
                if progress is not None:
                    progress.update(done, done / self.n_rows if self.n_rows else None)
        except (pa.ArrowException, OSError) as exc:
            raise CLIError(f"{self.source}: cannot read: {exc}") from None

    def close(self):
        self._file.close()


def open_table(path: str, *, sep: str = ",") -> Table:
    """Open an input table, choosing the format by the file name."""
    if _kind(path) == "parquet":
        return ParquetTable(path)
    return CsvTable(path, sep)


def read_columns(
    table: Table,
    numeric: Sequence[str] = (),
    labels: Sequence[str] = (),
    progress=None,
) -> dict[str, np.ndarray]:
    """Read whole columns: ``numeric`` as finite float64, ``labels`` via :func:`as_labels`."""
    parts: dict[str, list] = {name: [] for name in (*numeric, *labels)}
    n_rows = 0
    for batch in table.batches(progress):
        n_rows += batch.n_rows
        for name in numeric:
            parts[name].append(batch.numbers(name))
        for name in labels:
            parts[name].extend(batch.present(name))
    if n_rows == 0:
        raise CLIError(f"{table.source}: no data rows after the header")
    out = {name: np.concatenate(parts[name]) for name in numeric}
    for name in labels:
        out[name] = as_labels(parts[name], typed=table.typed)
    return out


def weight_column(values: np.ndarray, source: str, column: str) -> np.ndarray:
    """Check a column of frequency weights as every venncal entry point does."""
    try:
        return check_sample_weight(values, values.shape[0], name=f"column {column!r}", row_base=1)
    except (TypeError, ValueError) as exc:
        raise CLIError(f"{source}: {exc}") from None


def probability_column(values: np.ndarray, source: str, column: str) -> np.ndarray:
    """Check a column of probabilities as every venncal entry point does."""
    try:
        return check_probabilities(values, name=f"column {column!r}", row_base=1)
    except (TypeError, ValueError) as exc:
        raise CLIError(f"{source}: {exc}") from None


# -------------------------------------------------------------------------------- write


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    return str(value)


def _create_temporary(folder: str, name: str) -> str:
    """Create an empty file beside the target; unlike mkstemp, it gets the umask's mode."""
    while True:
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.part")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:  # pragma: no cover - 1 in 4 billion
            continue
        except OSError as exc:
            raise CLIError(f"cannot write in {folder}: {exc.strerror or exc}") from None
        os.close(fd)
        return tmp


class Writer:
    """An output table: input columns passed through, plus new float columns.

    Written to a temporary file beside the target and renamed into place
    only when complete, so a failure never leaves a partial file (stdout is
    written directly).
    """

    def __init__(self, path: str, input_table: Table, new_columns: Sequence[str]):
        self.path = path
        self.input = input_table
        self.new_columns = list(new_columns)
        self._tmp = None
        if path != "-":
            folder = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(folder):
                raise CLIError(f"{path}: the folder {folder} does not exist")
            if os.path.isdir(path):
                raise CLIError(f"{path}: is a directory")
            self._tmp = _create_temporary(folder, os.path.basename(path))

    def write(self, batch: Batch, new_values: Sequence[np.ndarray]) -> None:  # pragma: no cover
        raise NotImplementedError

    def _finish(self) -> None:
        pass

    def close(self, ok: bool) -> None:
        """Finish the file (``ok``) or discard it."""
        try:
            if ok:
                self._finish()
        finally:
            if self._tmp is not None:
                if ok:
                    os.replace(self._tmp, self.path)
                else:
                    with contextlib.suppress(OSError):
                        os.remove(self._tmp)
                self._tmp = None


class CsvWriter(Writer):
    """Write CSV text (gzip-compressed for a ``.gz`` name)."""

    def __init__(self, path, input_table, new_columns, sep):
        super().__init__(path, input_table, new_columns)
        if path == "-":
            self._file = sys.stdout
        elif _kind(path) == "csv.gz":
            self._file = gzip.open(self._tmp, "wt", compresslevel=6, encoding="utf-8", newline="")  # noqa: SIM115
        else:
            self._file = open(self._tmp, "w", encoding="utf-8", newline="")  # noqa: SIM115
        self._csv = csv.writer(self._file, delimiter=sep, lineterminator="\n")
        self._csv.writerow([*input_table.columns, *self.new_columns])

    def write(self, batch, new_values):
        if isinstance(batch, _CsvBatch):
            rows = batch.rows
        else:
            columns = [[_text(v) for v in col.to_pylist()] for col in batch.record_batch.columns]
            rows = (
                [list(r) for r in zip(*columns, strict=True)]
                if columns
                else [[] for _ in range(batch.n_rows)]
            )
        extra = [[repr(v) for v in values.tolist()] for values in new_values]
        self._csv.writerows(row + list(x) for row, *x in zip(rows, *extra, strict=True))

    def _finish(self):
        if self._file is sys.stdout:
            self._file.flush()

    def close(self, ok):
        if self._file is not sys.stdout:
            self._file.close()
        super().close(ok)


class ParquetWriter(Writer):
    """Write Parquet: typed input columns keep their type, CSV columns are strings."""

    def __init__(self, path, input_table, new_columns):
        if path == "-":
            raise CLIError("Parquet cannot be written to stdout; give a file name")
        pa = _pyarrow()
        super().__init__(path, input_table, new_columns)
        if isinstance(input_table, ParquetTable):
            schema = input_table.schema
        else:
            schema = pa.schema([(name, pa.string()) for name in input_table.columns])
        for name in self.new_columns:
            schema = schema.append(pa.field(name, pa.float64()))
        self.schema = schema
        try:
            self._writer = pa.parquet.ParquetWriter(self._tmp, schema)
        except (pa.ArrowException, OSError) as exc:
            super().close(False)
            raise CLIError(f"{path}: cannot write Parquet: {exc}") from None

    def write(self, batch, new_values):
        pa = _pyarrow()
        if isinstance(batch, _ParquetBatch):
            arrays = list(batch.record_batch.columns)
        else:
            arrays = [
                pa.array([row[j] for row in batch.rows], pa.string())
                for j in range(len(self.input.columns))
            ]
        arrays += [pa.array(values, pa.float64()) for values in new_values]
        self._writer.write_batch(pa.RecordBatch.from_arrays(arrays, schema=self.schema))

    def close(self, ok):
        try:
            self._writer.close()
        finally:
            super().close(ok)


def open_writer(
    path: str, input_table: Table, new_columns: Sequence[str], *, sep: str = ","
) -> Writer:
    """Open an output table, choosing the format by the file name."""
    clash = [c for c in new_columns if c in input_table.columns]
    if clash:
        raise CLIError(
            f"{input_table.source} already has column(s) {', '.join(map(repr, clash))}; "
            "choose other output names with --prefix"
        )
    if _kind(path) == "parquet":
        return ParquetWriter(path, input_table, new_columns)
    return CsvWriter(path, input_table, new_columns, sep)
