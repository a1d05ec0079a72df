"""CSV tables, read with pyarrow from a binary stream (a file, a compressed file or stdin).

The header line is parsed with pyarrow before reading starts (so stdin works
as a file does); whole columns are read with pyarrow's multithreaded reader,
batches with its streaming reader.  Numeric columns are read as text and
parsed by :func:`column_numbers`, so that a bad cell is reported with its
text and row; labels are read as text and typed by :func:`typed_labels`.
"""

from __future__ import annotations

import re

from ._errors import Param, TableError
from ._formats import arrow
from ._stream import NativeInput, Stream, native_buffer, native_input, open_bytes
from ._table import Batch, Retype, Table

__all__ = ["CsvTable"]

#: Bytes read ahead to find the header line.
_HEAD_BYTES = 1 << 16
#: Bytes per block of a CSV file read by pyarrow (whole columns or batches); when
#: batches go to Parquet, the types of the columns are inferred from the first block.
BLOCK_BYTES = 1 << 22


def _first_row(message: str) -> int | None:
    """Return the data row (1-based, header not counted) a pyarrow CSV message names, or None."""
    m = re.search(r"Row #(\d+)", message)
    return int(m.group(1)) - 1 if m else None


class CsvTable(Table):
    """A CSV table: UTF-8, one header line, fields separated by ``sep`` and maybe quoted."""

    typed = False

    def __init__(self, path: str, raw: Stream, stream: Stream, sep: str, size: int | None):
        self.source = "<stdin>" if path == "-" else path
        self.path = path
        self.sep = sep
        self._raw = raw
        self._stream = stream
        self._size = size
        self._native: NativeInput | None = None
        self.columns = self._header()

    def _fail(self, message: str, *parts, row: int | None = None, column=None) -> TableError:
        return TableError(f"{self.source}: {message}", *parts, source=self.source, row=row,
                          column=column)

    def _header(self) -> list[str]:
        """Parse the header line with pyarrow (it may hold quoted newlines) without consuming it."""
        pa = arrow()
        head = self._stream.peek_head(_HEAD_BYTES)
        while True:
            ends = [m.end() for m in re.finditer(b"\n", head)]
            if self._stream.eof and not head.endswith(b"\n"):
                ends.append(len(head))
            for end in ends:
                try:
                    reader = pa.csv.open_csv(  # a native buffer: see venncal.tables._stream
                        pa.BufferReader(native_buffer(head[:end].removesuffix(b"\n") + b"\n")),
                        read_options=pa.csv.ReadOptions(use_threads=False),
                        parse_options=self._parse_options(),
                    )
                except pa.ArrowInvalid:
                    continue  # a blank line, or a quoted newline in the header
                except UnicodeDecodeError:
                    raise self._fail("not UTF-8 text (is it a CSV file?)") from None
                return list(reader.schema.names)
            if self._stream.eof or len(head) > 64 * _HEAD_BYTES:
                break
            head = self._stream.peek_head(2 * len(head))
        if not head.strip(b"\xef\xbb\xbf \t\r\n"):
            raise self._fail("the file is empty (a header line is needed)")
        raise self._fail("cannot find the header line (is it a CSV file?)")

    def _parse_options(self):
        return arrow().csv.ParseOptions(delimiter=self.sep, newlines_in_values=True)

    def _error(self, exc: Exception) -> TableError:
        message = str(exc)
        row = _first_row(message)
        m = re.search(r"Expected (\d+) columns, got (\d+)", message)
        if m:
            where = f"row {row:,}" if row is not None else "a row"
            return self._fail(
                f"{where} has {m.group(2)} field(s) but the header has {m.group(1)} (is the "
                f"separator {self.sep!r} right? see ", Param("sep"), ")", row=row,
            )
        if "UTF8" in message or "UTF-8" in message or isinstance(exc, UnicodeDecodeError):
            return self._fail("not UTF-8 text (is it a CSV file?)")
        m = re.search(r"In CSV column #(\d+): (?:Row #\d+: )?(.*)", message)
        if m:
            column = self.columns[int(m.group(1))]
            where = f"column {column!r}" + (f", row {row:,}" if row is not None else "")
            return self._fail(
                f"{where}: {m.group(2)} (the type was inferred from the first rows; Parquet "
                "output from stdin cannot read again to widen it: give a file, or write CSV)",
                row=row, column=column,
            )
        return self._fail(f"cannot read as CSV: {message}")

    def _fraction(self) -> float | None:
        done = self._native.bytes_read() if self._native is not None else None
        return done / self._size if self._size and done is not None else None

    def _input(self):
        """Return the content as a native Arrow stream for a CSV reader (once per table)."""
        if self._native is not None:
            raise RuntimeError("a CSV table is read once")
        self._native = native_input(self.path, self._stream.codec, self._stream)
        return self._native.stream

    def read(self, names, text=(), progress=None):
        pa = arrow()
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
                self._input(),
                read_options=pa.csv.ReadOptions(use_threads=threads, block_size=BLOCK_BYTES),
                **options,
            )
        except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
            error = self._error(exc)
            if threads and "Expected" in str(exc) and _first_row(str(exc)) is None:
                raw, stream, size = open_bytes(self.path)
                with CsvTable(self.path, raw, stream, self.sep, size) as again:
                    try:
                        pa.csv.read_csv(
                            again._input(),
                            read_options=pa.csv.ReadOptions(use_threads=False),
                            **options,
                        )
                    except pa.ArrowInvalid as exc2:
                        error = self._error(exc2)
            raise error from None
        except OSError as exc:
            raise self._fail(f"cannot read: {exc}") from None
        if progress is not None:
            progress.update(table.num_rows, self._fraction())
        return table

    def batches(self, progress=None, *, text=(), typed=False, types=None):
        pa = arrow()
        column_types = dict(types or {})
        column_types.update({name: pa.string() for name in (text if typed else self.columns)})
        reader = schema = None
        try:
            reader = pa.csv.open_csv(
                self._input(),
                read_options=pa.csv.ReadOptions(use_threads=False, block_size=BLOCK_BYTES),
                parse_options=self._parse_options(),
                convert_options=pa.csv.ConvertOptions(column_types=column_types),
            )
            first = 1
            try:
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
            finally:  # no frame of a traceback keeps the reader (see venncal.tables._stream)
                schema, reader = reader.schema, reader.close()
        except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
            m = re.search(r"In CSV column #(\d+):.* CSV conversion error", str(exc))
            if m and schema is not None and self.path != "-":
                name = self.columns[int(m.group(1))]
                inferred = schema.field(name).type
                wider = pa.float64() if pa.types.is_integer(inferred) else pa.string()
                raise Retype(name, wider) from None
            raise self._error(exc) from None
        except OSError as exc:
            raise self._fail(f"cannot read: {exc}") from None

    def close(self):
        if self._native is not None:
            self._native.close()
        self._stream.close()
        self._raw.close()
