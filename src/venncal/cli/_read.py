"""Input tables of the command line, read with pyarrow (see :mod:`venncal.cli._io`).

A CSV table is read from a binary stream whose first bytes are looked at
first (Parquet or compressed CSV are recognised by content, and the header
line is parsed with pyarrow before reading starts, so stdin works as a file
does).  Whole columns are read with pyarrow's multithreaded reader; streamed
batches with its streaming reader.  Numeric columns are read as text and
parsed by :mod:`venncal.cli._cells`, so that a bad cell is reported with its
text and row; CSV labels are read as text too and typed from all their
distinct values (:func:`venncal.cli._cells.typed_labels`).
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Sequence

import numpy as np

from ._cells import column_labels, column_numbers, typed_labels
from ._io import _PARQUET_SUFFIXES, BATCH_ROWS, BLOCK_BYTES, CLIError, _arrow

__all__ = [
    "Batch",
    "CsvTable",
    "ParquetTable",
    "Retype",
    "Table",
    "open_table",
    "read_columns",
]

#: Bytes read ahead to find the header line (and the kind of a file).
_HEAD_BYTES = 1 << 16
_PARQUET_MAGIC = b"PAR1"
_COMPRESSION_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\x28\xb5\x2f\xfd", "zstd"))


def _name_sep(path: str) -> str:
    """Return the default separator of a CSV file by name: a tab for ``.tsv``, else a comma."""
    name = path.lower()
    for suffix in (".gz", ".bz2", ".zst"):
        name = name.removesuffix(suffix)
    return "\t" if name.endswith(".tsv") else ","


def _check_input_file(path: str) -> None:
    if not os.path.exists(path):
        raise CLIError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CLIError(f"{path}: is a directory, not a file")

# -------------------------------------------------------------------------------- input


class _Stream(io.RawIOBase):
    """A binary stream whose first bytes can be looked at before reading; counts bytes read."""

    def __init__(self, f, *, owned: bool = True):
        self._f = f
        self._owned = owned
        self._head = b""
        self._pos = 0
        self._eof = False
        self.count = 0

    def readable(self) -> bool:
        return True

    def _more(self, n: int) -> bool:
        data = self._f.read(n)
        if not data:
            self._eof = True
            return False
        self.count += len(data)
        self._head += bytes(data)
        return True

    def peek_head(self, n: int) -> bytes:
        """Return (at least, unless the stream is shorter) the first ``n`` bytes, kept for reading."""
        while len(self._head) < n and not self._eof:
            self._more(n - len(self._head))
        return self._head

    def readinto(self, b) -> int:
        if self._pos < len(self._head):
            n = min(len(b), len(self._head) - self._pos)
            b[:n] = self._head[self._pos : self._pos + n]
            self._pos += n
            return n
        data = self._f.read(len(b))
        n = len(data)
        b[:n] = data
        self.count += n
        return n

    def close(self) -> None:
        if self._owned and not self.closed:
            self._f.close()
        super().close()


def _stdin_bytes():
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return buffer
    # a text stream with no bytes below it (embedding, tests)
    return io.BytesIO(sys.stdin.read().encode("utf-8"))


def _first_row(message: str) -> int | None:
    """Return the data row (1-based, header not counted) a pyarrow CSV message names, or None."""
    m = re.search(r"Row #(\d+)", message)
    return int(m.group(1)) - 1 if m else None


class Retype(Exception):
    """A column's type, inferred from the first block, does not fit a later one: read again.

    Raised by :meth:`CsvTable.batches` (typed, from a file) with the column's
    ``name`` and a wider ``type`` (float64 for integers, else string) to pass
    in ``types`` on the next pass.
    """

    def __init__(self, name: str, type):
        super().__init__(name)
        self.name = name
        self.type = type


class Batch:
    """Consecutive rows of a table: ``first_row`` (1-based), ``n_rows``, the Arrow ``record_batch``."""

    def __init__(self, table: Table, first_row: int, record_batch):
        self.table = table
        self.first_row = first_row
        self.record_batch = record_batch
        self.n_rows = record_batch.num_rows
        self._numbers: dict[str, np.ndarray] = {}

    def numbers(self, name: str, *, missing: str = "error", hint: str = "") -> np.ndarray:
        """Return a column as float64 (see :func:`column_numbers`), or raise CLIError."""
        values = column_numbers(
            self.record_batch.column(name), self.table.source, name, self.first_row,
            missing=missing, hint=hint,
        )
        self._numbers[name] = values
        return values

    def columns(self, typed: bool) -> list:
        """Return the input columns to write out.

        For a typed output (Parquet) from text input, the columns read by
        :meth:`numbers` are written as the float64 numbers (null where missing).
        """
        pa = _arrow()
        arrays = list(self.record_batch.columns)
        if typed and not self.table.typed:
            for name, values in self._numbers.items():
                j = self.record_batch.schema.get_field_index(name)
                arrays[j] = pa.array(values, pa.float64(), mask=np.isnan(values))
        return arrays


class Table:
    """An input table: ``source`` (its name), ``columns`` (the header) and its rows."""

    source: str
    columns: list[str]
    typed: bool  # cells carry their own types (Parquet), or are text (CSV)

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

    def read(self, names: Sequence[str], text: Sequence[str], progress=None):
        """Return the columns ``names`` as an Arrow table; ``text`` ones as strings (CSV)."""
        raise NotImplementedError  # pragma: no cover - interface

    def batches(self, progress=None, *, text: Sequence[str] = (), typed: bool = False, types=None):
        """Yield :class:`Batch` es of every column.

        From CSV, ``text`` columns are read as strings, and so is every other
        column unless ``typed``: then pyarrow infers their types from the
        first block of rows, ``types`` (name -> Arrow type) excepted, and a
        later cell that does not fit raises :class:`Retype`.
        """
        raise NotImplementedError  # pragma: no cover - interface

    def empty_columns(self) -> list:
        """Return an empty Arrow array per column (their types, or strings for CSV)."""
        pa = _arrow()
        schema = getattr(self, "schema", None)
        if schema is None:
            return [pa.array([], pa.string()) for _ in self.columns]
        return [pa.array([], field.type) for field in schema]

    def close(self) -> None:
        """Release the file."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class CsvTable(Table):
    """A CSV table (a file, a compressed file or stdin)."""

    typed = False

    def __init__(self, path: str, raw: _Stream, stream: _Stream, sep: str, size: int | None):
        self.source = "<stdin>" if path == "-" else path
        self.path = path
        self.sep = sep
        self._raw = raw
        self._stream = stream
        self._size = size
        self.columns = self._header()

    def _header(self) -> list[str]:
        """Parse the header line with pyarrow (it may hold quoted newlines) without consuming it."""
        pa = _arrow()
        head = self._stream.peek_head(_HEAD_BYTES)
        while True:
            ends = [m.end() for m in re.finditer(b"\n", head)]
            if self._stream._eof and not head.endswith(b"\n"):
                ends.append(len(head))
            for end in ends:
                try:
                    reader = pa.csv.open_csv(
                        io.BytesIO(head[:end].removesuffix(b"\n") + b"\n"),
                        read_options=pa.csv.ReadOptions(use_threads=False),
                        parse_options=self._parse_options(),
                    )
                except pa.ArrowInvalid:
                    continue  # a blank line, or a quoted newline in the header
                except UnicodeDecodeError:
                    raise CLIError(f"{self.source}: not UTF-8 text (is it a CSV file?)") from None
                return list(reader.schema.names)
            if self._stream._eof or len(head) > 64 * _HEAD_BYTES:
                break
            head = self._stream.peek_head(2 * len(head))
        if not head.strip(b"\xef\xbb\xbf \t\r\n"):
            raise CLIError(f"{self.source}: the file is empty (a header line is needed)")
        raise CLIError(f"{self.source}: cannot find the header line (is it a CSV file?)")

    def _parse_options(self):
        return _arrow().csv.ParseOptions(delimiter=self.sep, newlines_in_values=True)

    def _error(self, exc: Exception) -> CLIError:
        message = str(exc)
        row = _first_row(message)
        m = re.search(r"Expected (\d+) columns, got (\d+)", message)
        if m:
            where = f"row {row:,}" if row is not None else "a row"
            return CLIError(
                f"{self.source}: {where} has {m.group(2)} field(s) but the header has "
                f"{m.group(1)} (is the separator {self.sep!r} right? see --sep)"
            )
        if "UTF8" in message or "UTF-8" in message or isinstance(exc, UnicodeDecodeError):
            return CLIError(f"{self.source}: not UTF-8 text (is it a CSV file?)")
        m = re.search(r"In CSV column #(\d+): (?:Row #\d+: )?(.*)", message)
        if m:
            where = f"column {self.columns[int(m.group(1))]!r}"
            if row is not None:
                where += f", row {row:,}"
            return CLIError(
                f"{self.source}: {where}: {m.group(2)} (the type was inferred from the first "
                "rows; Parquet output from stdin cannot read again to widen it: give a file, "
                "or write CSV)"
            )
        return CLIError(f"{self.source}: cannot read as CSV: {message}")

    def _fraction(self) -> float | None:
        return self._raw.count / self._size if self._size else None

    def read(self, names, text, progress=None):
        pa = _arrow()
        # Threads parse in parallel but number no rows: a parse error is read
        # again on one thread from the file to tell its row.
        threads = self.path != "-"
        options = {
            "parse_options": self._parse_options(),
            "convert_options": pa.csv.ConvertOptions(
                include_columns=list(dict.fromkeys(names)),
                column_types={name: pa.string() for name in text},
            ),
        }
        try:
            table = pa.csv.read_csv(
                self._stream,
                read_options=pa.csv.ReadOptions(use_threads=threads, block_size=BLOCK_BYTES),
                **options,
            )
        except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
            error = self._error(exc)
            if threads and "Expected" in str(exc) and _first_row(str(exc)) is None:
                with open_table(self.path, sep=self.sep) as again:
                    try:
                        pa.csv.read_csv(
                            again._stream,
                            read_options=pa.csv.ReadOptions(use_threads=False),
                            **options,
                        )
                    except pa.ArrowInvalid as exc2:
                        error = self._error(exc2)
            raise error from None
        except OSError as exc:
            raise CLIError(f"{self.source}: cannot read: {exc}") from None
        if progress is not None:
            progress.update(table.num_rows, self._fraction())
        return table

    def batches(self, progress=None, *, text=(), typed=False, types=None):
        pa = _arrow()
        column_types = dict(types or {})
        column_types.update({name: pa.string() for name in (text if typed else self.columns)})
        reader = None
        try:
            reader = pa.csv.open_csv(
                self._stream,
                read_options=pa.csv.ReadOptions(use_threads=False, block_size=BLOCK_BYTES),
                parse_options=self._parse_options(),
                convert_options=pa.csv.ConvertOptions(column_types=column_types),
            )
            first = 1
            while True:
                try:
                    record_batch = reader.read_next_batch()
                except StopIteration:
                    break
                if record_batch.num_rows:
                    yield Batch(self, first, record_batch)
                    first += record_batch.num_rows
                if progress is not None:
                    progress.update(first - 1, self._fraction())
        except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
            m = re.search(r"In CSV column #(\d+):.* CSV conversion error", str(exc))
            if m and reader is not None and self.path != "-":
                name = self.columns[int(m.group(1))]
                inferred = reader.schema.field(name).type
                wider = pa.float64() if pa.types.is_integer(inferred) else pa.string()
                raise Retype(name, wider) from None
            raise self._error(exc) from None
        except OSError as exc:
            raise CLIError(f"{self.source}: cannot read: {exc}") from None

    def close(self):
        self._stream.close()
        self._raw.close()


class ParquetTable(Table):
    """A Parquet file read in record batches."""

    typed = True

    def __init__(self, path: str, data: bytes | None = None):
        pa = _arrow()
        self.source = "<stdin>" if path == "-" else path
        try:
            self._file = pa.parquet.ParquetFile(path if data is None else pa.BufferReader(data))
        except (pa.ArrowException, OSError) as exc:
            raise CLIError(f"{self.source}: not a readable Parquet file: {exc}") from None
        self.schema = self._file.schema_arrow
        self.columns = list(self.schema.names)
        self.n_rows = self._file.metadata.num_rows

    def read(self, names, text=(), progress=None):
        pa = _arrow()
        try:
            table = self._file.read(columns=list(dict.fromkeys(names)))
        except (pa.ArrowException, OSError) as exc:
            raise CLIError(f"{self.source}: cannot read: {exc}") from None
        if progress is not None:
            progress.update(table.num_rows, 1.0)
        return table

    def batches(self, progress=None, *, text=(), typed=False, types=None):
        done = 0
        pa = _arrow()
        try:
            for record_batch in self._file.iter_batches(batch_size=BATCH_ROWS):
                yield Batch(self, done + 1, record_batch)
                done += record_batch.num_rows
                if progress is not None:
                    progress.update(done, done / self.n_rows if self.n_rows else None)
        except (pa.ArrowException, OSError) as exc:
            raise CLIError(f"{self.source}: cannot read: {exc}") from None

    def close(self):
        self._file.close()


def open_table(path: str, *, sep: str | None = None) -> Table:
    """Open an input table: Parquet by name or content, else CSV (compression by content)."""
    pa = _arrow()
    if path == "-":
        raw, size = _Stream(_stdin_bytes(), owned=False), None
    else:
        _check_input_file(path)
        try:
            f = open(path, "rb")  # noqa: SIM115 - closed by the table
        except OSError as exc:
            raise CLIError(f"{path}: cannot open: {exc.strerror or exc}") from None
        raw, size = _Stream(f), os.fstat(f.fileno()).st_size
    magic = raw.peek_head(4)
    if magic[:4] == _PARQUET_MAGIC or path.lower().endswith(_PARQUET_SUFFIXES):
        data = raw.read() if path == "-" else None
        raw.close()
        return ParquetTable(path, data)
    stream = raw
    for prefix, codec in _COMPRESSION_MAGIC:
        if magic.startswith(prefix):
            compressed = pa.CompressedInputStream(pa.PythonFile(raw, mode="r"), codec)
            stream = _Stream(compressed)
    return CsvTable(path, raw, stream, sep or _name_sep(path), size)


def read_columns(
    table: Table,
    numeric: Sequence[str] = (),
    labels: Sequence[str] = (),
    progress=None,
) -> dict[str, np.ndarray]:
    """Read whole columns: ``numeric`` as finite float64, ``labels`` via :func:`column_labels`.

    CSV labels are read as text and typed from their distinct values
    (:func:`typed_labels`), not from pyarrow's guess on the first rows,
    which would make integers past int64 floats and dates dates.
    """
    text = [*numeric, *labels] if not table.typed else numeric
    data = table.read([*numeric, *labels], text=text, progress=progress)
    if data.num_rows == 0:
        raise CLIError(f"{table.source}: no data rows after the header")
    out = {name: column_numbers(data.column(name), table.source, name) for name in numeric}
    for name in labels:
        out[name] = column_labels(data.column(name), table.source, name)
        if not table.typed:
            out[name] = typed_labels(out[name])
    return out
