"""What every input table offers: its columns, checks of them, batches of rows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._cells import column_numbers
from ._errors import Param, TableError
from ._formats import arrow

__all__ = ["Batch", "Retype", "Table"]


class Retype(Exception):
    """A column's type, inferred from the first block, does not fit a later one: read again.

    Raised by :meth:`Table.batches` (CSV read ``typed``, from a file) with
    the column's ``name`` and a wider ``type`` (float64 for integers, else
    string) to pass in ``types`` on the next pass.
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

    def numbers(self, name: str, *, missing: str = "error", hint=()) -> np.ndarray:
        """Return a column as float64 (see :func:`column_numbers`), or raise TableError."""
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
        pa = arrow()
        arrays = list(self.record_batch.columns)
        if typed and not self.table.typed:
            for name, values in self._numbers.items():
                j = self.record_batch.schema.get_field_index(name)
                arrays[j] = pa.array(values, pa.float64(), mask=np.isnan(values))
        return arrays


class Table:
    """An input table: ``source`` (its name), ``columns`` (the header) and its rows.

    Open one with :func:`open_table`; it is a context manager.
    """

    source: str
    columns: list[str]
    typed: bool  # cells carry their own types (Parquet), or are text (CSV)

    def check_columns(self, names: Sequence[str], param: str | None = None) -> None:
        """Raise TableError if a column is missing (listing those available) or repeated.

        ``param`` is the parameter that named the columns, for the message.
        """
        for name in names:
            count = self.columns.count(name)
            if count == 0:
                hint = (" (given by ", Param(param), ")") if param else ()
                shown = ", ".join(repr(c) for c in self.columns)
                raise TableError(
                    f"{self.source}: no column {name!r}", *hint,
                    f"; available columns: {shown}", source=self.source, column=name,
                )
            if count > 1:
                raise TableError(
                    f"{self.source}: column {name!r} appears {count} times in the header",
                    source=self.source, column=name,
                )

    def read(self, names: Sequence[str], text: Sequence[str] = (), progress=None):
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
        pa = arrow()
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
