"""A ``ValueError`` about one row of an array, which a reader of a table renumbers.

Arrays count their rows from 0; tables, for their readers, from row 1 after
the header.  An error raised on an array built from a table names the row as
the array counts it (``"row 4 (from 0)"``); the reader that built the array
renumbers it as the table counts (``"row 5"``), so that no message counts
from both 0 and 1.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

__all__ = ["RowError", "as_read", "rows_of"]


class RowError(ValueError):
    """A bad row of an array: the message is ``before`` + the row + ``after``.

    ``index`` counts from 0 (``"row 4 (from 0)"`` in the message); a table's
    reader names the row as its own rows count (:meth:`renumbered`).
    ``block``: the fold block of a cross Venn-Abers base's scores, or None.
    ``partition``: the Dask partition whose rows ``index`` counts, or None.
    ``at_index``: a value of a 1-D array (scores, weights), named ``"at index
    4"`` (``"in row 5"`` renumbered), as :func:`venncal._validation.check_scores`
    names it.
    ``count``: for a message that counts the bad rows (``"found 3 ..., the
    first"``, the text ``"found 3 "`` in ``before``), their number, which a
    reader of the rows in parts sums (:meth:`recounted`); else None.

    Examples
    --------
    >>> err = RowError("proba must lie in [0, 1]; got 1.5 in ", 4, ", column 0")
    >>> str(err)
    'proba must lie in [0, 1]; got 1.5 in row 4 (from 0), column 0'
    >>> err.renumbered(1)
    'proba must lie in [0, 1]; got 1.5 in row 5, column 0'
    """

    def __init__(self, before: str, index: int, after: str, block: int | None = None,
                 at_index: bool = False, partition: int | None = None,
                 count: int | None = None):
        self.before, self.index, self.after, self.block = before, index, after, block
        self.at_index, self.partition, self.count = at_index, partition, count
        super().__init__(f"{before}{self._row(f'{index}', 'from 0')}{after}")

    def __reduce__(self):  # pickled as constructed (dask sends errors between processes)
        return type(self), (self.before, self.index, self.after, self.block, self.at_index,
                            self.partition, self.count)

    @property
    def kind(self) -> str:
        """The message before the row with its count masked: errors of one check share it."""
        if self.count is None:
            return self.before
        return self.before.replace(f"found {self.count} ", "found # ", 1)

    def recounted(self, total: int, exact: bool = True) -> RowError:
        """The same error of a check over rows in parts, of which this is the first: ``total`` bad rows.

        ``exact=False`` when ``total`` may miss some (a part stopped at an
        earlier check): the message then says ``"found at least"``.

        Examples
        --------
        >>> err = RowError("found 2 bad, the first ", 4, "", count=2)
        >>> str(err.recounted(5))
        'found 5 bad, the first row 4 (from 0)'
        >>> str(err.recounted(5, exact=False))
        'found at least 5 bad, the first row 4 (from 0)'
        """
        if self.count is None:
            raise ValueError("this error counts no rows")
        said = f"found {total} " if exact else f"found at least {total} "
        before = self.before.replace(f"found {self.count} ", said, 1)
        return RowError(before, self.index, self.after, self.block, self.at_index, self.partition,
                        total)

    def of_distinct_scores(self) -> str:
        """The message for an error raised on a summary's distinct scores (sorted, not rows).

        A row index there names no row of the data, and a count counts
        distinct scores; the message says so.

        Examples
        --------
        >>> err = RowError("found 2 outside, the first ", 7, " (1.5)", at_index=True, count=2)
        >>> err.of_distinct_scores()
        'found 2 distinct scores outside, the smallest (1.5)'
        """
        before = self.before
        if self.count is not None:
            noun = "distinct score" if self.count == 1 else "distinct scores"
            before = before.replace(f"found {self.count} ", f"found {self.count} {noun} ", 1)
        if before.endswith("the first "):
            return before[: -len("first ")] + "smallest" + self.after
        return f"{before}one of the distinct scores{self.after}"

    def _row(self, row: str, note: str | None) -> str:
        if self.at_index:  # a value of a 1-D array: "at index 4", renumbered "in row 5"
            return f"at index {row}" if note else f"in row {row}"
        notes = [n for n in (note, None if self.block is None else f"fold block {self.block}")
                 if n]
        return f"row {row}" + (f" ({'; '.join(notes)})" if notes else "")

    def renumbered(self, first_row: int) -> str:
        """The message with the row counted as a table's, whose index 0 is row ``first_row``."""
        return f"{self.before}{self._row(f'{self.index + first_row:,}', None)}{self.after}"

    def of_rows(self, rows: np.ndarray) -> RowError:
        """The same error for a larger array, of which these were the rows ``rows``."""
        return RowError(self.before, int(rows[self.index]), self.after, self.block, self.at_index,
                        count=self.count)

    def prefixed(self, text: str) -> RowError:
        """The same error with ``text`` before its message (still a row a reader renumbers)."""
        return RowError(text + self.before, self.index, self.after, self.block, self.at_index,
                        count=self.count)


@contextmanager
def rows_of(rows: np.ndarray):
    """Name a :class:`RowError` raised on ``x[rows]`` as a row of ``x`` (:meth:`RowError.of_rows`).

    Examples
    --------
    >>> with rows_of(np.array([3, 7])):
    ...     raise RowError("bad ", 1, "")
    Traceback (most recent call last):
    ...
    venncal._rows.RowError: bad row 7 (from 0)
    """
    try:
        yield
    except RowError as exc:
        raise exc.of_rows(rows) from None


def as_read(exc: BaseException) -> str:
    """The text of ``exc``, a :class:`RowError`'s row named as a table counts its rows (from 1).

    Examples
    --------
    >>> as_read(RowError("y holds the label 7 (", 5, ")", at_index=True))
    'y holds the label 7 (in row 6)'
    >>> as_read(ValueError("no row"))
    'no row'
    """
    return exc.renumbered(1) if isinstance(exc, RowError) else str(exc)

