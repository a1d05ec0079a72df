"""Output tables, written atomically: to a temporary file beside the target, renamed when done."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import secrets
import sys
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from ._errors import Param, TableError
from ._formats import arrow, output_format

__all__ = ["Writer", "atomic_output", "open_writer", "write_table"]


def create_temporary(path: str) -> str:
    """Create an empty file beside ``path``, named after it; unlike mkstemp, with the umask's mode.

    The name (``.XXXXXXXX.part.NAME``) ends with the target's, so that
    writers choosing a format by extension (pyarrow, matplotlib,
    :func:`venncal.save`) see the same one.
    """
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        tmp = os.path.join(folder, f".{secrets.token_hex(4)}.part.{os.path.basename(path)}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:  # pragma: no cover - 1 in 4 billion
            continue
        except OSError as exc:
            raise TableError(f"cannot write in {folder}: {exc.strerror or exc}",
                             source=path) from None
        os.close(fd)
        return tmp


@contextlib.contextmanager
def atomic_output(path: str) -> Iterator[str]:
    """Yield a temporary file name beside ``path``; rename it to ``path`` if the block succeeds.

    Whatever ends the block otherwise (an exception, ``KeyboardInterrupt``,
    a signal turned into an exception) removes the temporary file, so a
    failure never leaves a partial output.

    Examples
    --------
    >>> import os, tempfile
    >>> from venncal.tables import atomic_output
    >>> path = os.path.join(tempfile.mkdtemp(), "notes.txt")
    >>> with atomic_output(path) as tmp:
    ...     with open(tmp, "w") as f:
    ...         _ = f.write("done")
    ...     os.path.exists(path)
    False
    >>> from pathlib import Path
    >>> Path(path).read_text()
    'done'
    """
    tmp = create_temporary(path)
    ok = False
    try:
        yield tmp
        ok = True
    finally:
        if ok:
            os.replace(tmp, path)
        else:
            with contextlib.suppress(OSError):
                os.remove(tmp)


class Writer:
    """An output table written batch by batch (see :func:`open_writer`).

    The format follows the name (:func:`output_format`).  Nothing is written
    before the first batch arrives (so that a computation failing on its
    first rows leaves stdout empty); a file is written to a temporary file
    beside the target and renamed into place by ``close(ok=True)``, removed
    by ``close(ok=False)``.  Cells of CSV are written as they are (text
    passes through unchanged, quoted only where needed), floats in the
    shortest form that reads back to the same double.
    """

    def __init__(self, path: str, sep: str | None = None):
        self.path = path
        self.format = output_format(path)
        self.sep = sep or self.format.sep
        self._tmp = None if path == "-" else create_temporary(path)
        self._sink = None
        self._parquet = None
        self.typed = self.format.kind == "parquet"

    def write(self, names: Sequence[str], arrays: Sequence) -> None:
        """Append rows: one Arrow array per column."""
        pa = arrow()
        batch = pa.RecordBatch.from_arrays(list(arrays), names=list(names))
        try:
            if self.typed:
                if self._parquet is None:
                    self._parquet = pa.parquet.ParquetWriter(self._tmp, batch.schema)
                self._parquet.write_batch(batch)
            else:
                self._write_csv(batch)
        except (pa.ArrowException, OSError) as exc:
            kind = "Parquet" if self.typed else "CSV"
            raise TableError(f"{self.path}: cannot write {kind}: {exc}", source=self.path) from None

    def _write_csv(self, batch) -> None:
        pa = arrow()
        # A batch with a cell holding the separator, a quote or a newline is quoted.
        for quoting in ("none", "needed"):
            body = pa.BufferOutputStream()
            try:
                pa.csv.write_csv(
                    batch,
                    body,
                    write_options=pa.csv.WriteOptions(
                        include_header=False, delimiter=self.sep, quoting_style=quoting
                    ),
                )
                break
            except pa.ArrowInvalid:
                if quoting == "needed":
                    raise
        if self._sink is None:
            if self._tmp is None:
                sys.stdout.flush()
                self._sink = getattr(sys.stdout, "buffer", None) or _TextSink(sys.stdout)
            else:
                self._sink = pa.output_stream(self._tmp, compression=self.format.compression)
            header = io.StringIO()
            csv.writer(header, delimiter=self.sep, lineterminator="\n").writerow(
                batch.schema.names
            )
            self._sink.write(header.getvalue().encode("utf-8"))
        self._sink.write(memoryview(body.getvalue()))

    def close(self, ok: bool) -> None:
        """Finish the file (``ok``) or discard it."""
        try:
            if self._parquet is not None:
                self._parquet.close()
            elif self._sink is not None:
                if self._tmp is None:
                    self._sink.flush()
                else:
                    self._sink.close()
        finally:
            if self._tmp is not None:
                if ok:
                    os.replace(self._tmp, self.path)
                else:
                    with contextlib.suppress(OSError):
                        os.remove(self._tmp)
                self._tmp = None


class _TextSink:
    """Bytes to a text stream that has no binary buffer below it."""

    def __init__(self, text):
        self._text = text

    def write(self, data) -> None:
        self._text.write(bytes(data).decode("utf-8"))

    def flush(self) -> None:
        self._text.flush()


def open_writer(path: str, input_table, new_columns: Sequence[str], *, sep=None) -> Writer:
    """Open an output table for the columns of ``input_table`` plus ``new_columns``.

    Raises
    ------
    TableError
        When the input already has one of ``new_columns``, or for an
        unknown format or a folder that cannot be written.
    """
    clash = [c for c in new_columns if c in input_table.columns]
    if clash:
        raise TableError(
            f"{input_table.source} already has column(s) {', '.join(map(repr, clash))}; "
            "choose other output names with ", Param("output_cols"),
            source=input_table.source, column=clash[0],
        )
    return Writer(path, sep)


def write_table(path: str, columns: Mapping[str, np.ndarray], *, sep: str | None = None) -> None:
    """Write whole columns as a table (format by name, atomically).

    Parameters
    ----------
    path : str
        ``.csv``, ``.tsv`` (optionally + ``.gz``, ``.bz2``, ``.zst``),
        ``.parquet`` or ``.pq``; ``-`` for CSV on stdout.
    columns : mapping of name -> array
    sep : str, default=None
        The CSV field separator (default by name: a tab for ``.tsv``).

    Examples
    --------
    >>> import os, tempfile, numpy as np
    >>> from venncal.tables import write_table
    >>> path = os.path.join(tempfile.mkdtemp(), "out.csv")
    >>> write_table(path, {"x": np.array([0.1, 1 / 3]), "n": np.array([1, 2])})
    >>> from pathlib import Path
    >>> print(Path(path).read_text(), end="")
    x,n
    0.1,1
    0.3333333333333333,2
    """
    pa = arrow()
    writer = Writer(path, sep)
    ok = False
    try:
        writer.write(list(columns), [pa.array(v) for v in columns.values()])
        ok = True
    finally:
        writer.close(ok)
