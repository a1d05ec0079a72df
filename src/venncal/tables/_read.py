"""Open an input table (Parquet or CSV, by name or content), read whole columns."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ._cells import column_labels, column_numbers
from ._csv import CsvTable
from ._errors import TableError
from ._formats import arrow, csv_separator
from ._labels import typed_labels
from ._stream import native_buffer, open_bytes
from ._table import Batch, Table

__all__ = ["ParquetTable", "open_table", "read_columns"]

#: Rows per batch of a Parquet file read in batches.
BATCH_ROWS = 65_536


class ParquetTable(Table):
    """A Parquet file read in record batches (its cells keep their types)."""

    typed = True

    def __init__(self, path: str, data: bytes | None = None):
        pa = arrow()
        self.source = "<stdin>" if path == "-" else path
        try:
            self._file = pa.parquet.ParquetFile(
                path if data is None else pa.BufferReader(native_buffer(data))
            )
        except (pa.ArrowException, OSError) as exc:
            raise self._fail(f"not a readable Parquet file: {exc}") from None
        self.schema = self._file.schema_arrow
        self.columns = list(self.schema.names)
        self.n_rows = self._file.metadata.num_rows

    def _fail(self, message: str) -> TableError:
        return TableError(f"{self.source}: {message}", source=self.source)

    def read(self, names, text=(), progress=None):
        pa = arrow()
        try:
            table = self._file.read(columns=list(dict.fromkeys(names)))
        except (pa.ArrowException, OSError) as exc:
            raise self._fail(f"cannot read: {exc}") from None
        if progress is not None:
            progress.update(table.num_rows, 1.0)
        return table

    def batches(self, progress=None, *, text=(), typed=False, types=None):
        done = 0
        pa = arrow()
        try:
            for record_batch in self._file.iter_batches(batch_size=BATCH_ROWS):
                yield Batch(self, done + 1, record_batch)
                done += record_batch.num_rows
                if progress is not None:
                    progress.update(done, done / self.n_rows if self.n_rows else None)
        except (pa.ArrowException, OSError) as exc:
            raise self._fail(f"cannot read: {exc}") from None

    def close(self):
        self._file.close()


def open_table(path: str | os.PathLike, *, sep: str | None = None) -> Table:
    """Open an input table: Parquet by name or content, else CSV (compression by content).

    Parameters
    ----------
    path : str or path-like
        A file, or ``-`` for stdin.  Parquet is recognised by its name
        (``.parquet``, ``.pq``) or its first bytes; anything else is CSV,
        plain or compressed with gzip, bzip2 or zstd (recognised by content).
        CSV is UTF-8 (a leading byte-order mark is skipped) with one header
        line; fields may be quoted, with newlines inside quotes.
    sep : str, default=None
        The CSV field separator: default a tab for a ``.tsv`` name, else ``,``.

    Returns
    -------
    Table
        With ``source`` (``path``, or ``"<stdin>"``), ``columns`` (the
        header) and ``typed`` (Parquet); a context manager.

    Raises
    ------
    TableError
        For a missing or unreadable file, an empty one, or no header line.

    Examples
    --------
    >>> import os, tempfile
    >>> from venncal.tables import open_table
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("score,label\\n0.2,no\\n0.9,yes\\n")
    >>> with open_table(path) as table:
    ...     table.columns, table.typed
    (['score', 'label'], False)
    """
    path = os.fspath(path)
    raw, stream, size = open_bytes(path)
    if stream is None:
        data = raw.read() if path == "-" else None
        raw.close()
        return ParquetTable(path, data)
    return CsvTable(path, raw, stream, sep or csv_separator(path), size)


def read_columns(
    table: Table,
    numeric: Sequence[str] = (),
    labels: Sequence[str] = (),
    progress=None,
) -> dict[str, np.ndarray]:
    """Read whole columns: ``numeric`` as finite float64, ``labels`` by the label rule.

    Labels (and group ids, such as folds) go through :func:`column_labels`;
    those of CSV are read as text and typed from all their distinct values
    (:func:`typed_labels`), not from pyarrow's guess on the first rows,
    which would make integers past int64 floats and dates dates.

    Parameters
    ----------
    table : Table
        From :func:`open_table`.
    numeric, labels : sequence of str
        Column names (checked with :meth:`Table.check_columns` first).
    progress : object with ``update(rows, fraction)``, default=None

    Returns
    -------
    dict of column name -> ndarray

    Raises
    ------
    TableError
        For no data rows, or the first bad cell (with its ``row``).

    Examples
    --------
    >>> import os, tempfile
    >>> from venncal.tables import open_table, read_columns
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("score,label\\n0.2,0\\n0.9,1\\n")
    >>> with open_table(path) as table:
    ...     read_columns(table, ["score"], ["label"])
    {'score': array([0.2, 0.9]), 'label': array([0, 1])}
    """
    text = [*numeric, *labels] if not table.typed else numeric
    data = table.read([*numeric, *labels], text=text, progress=progress)
    if data.num_rows == 0:
        raise TableError(f"{table.source}: no data rows after the header", source=table.source)
    out = {name: column_numbers(data.column(name), table.source, name) for name in numeric}
    for name in labels:
        out[name] = column_labels(data.column(name), table.source, name)
        if not table.typed:
            out[name] = typed_labels(out[name])
    return out
