"""Cells of the command line's tables: numbers parsed from text, labels, and the errors.

Numeric columns are read as text (see :mod:`venncal.cli._read`) and parsed
here, so that a bad cell is reported with its column, its row and its text,
whatever engine read it (:class:`CellError` keeps the row, so the dask
engine can place a cell of a partition at its row of the file).
"""

from __future__ import annotations

import numpy as np

from ._io import CLIError, _arrow

__all__ = ["CellError", "column_labels", "column_numbers"]

_NAN_TEXTS = frozenset({"nan", "-nan", "+nan"})


def _where(source: str, column: str, row: int) -> str:
    return f"{source}: column {column!r}, row {row:,}"


class CellError(CLIError):
    """A cell that is not a valid number: a :class:`CLIError` that knows its row.

    ``row`` counts from ``first_row`` of :func:`column_numbers`; an engine
    that parsed a part of a file can rebuild the message with
    :meth:`at_row` once it knows the part's offset.
    """

    def __init__(self, source: str, column: str, row: int, problem: str):
        super().__init__(f"{_where(source, column, row)}: {problem}")
        self.source, self.column, self.row, self.problem = source, column, row, problem

    def __reduce__(self):  # raised in dask workers: pickled with its fields
        return type(self), (self.source, self.column, self.row, self.problem)

    def at_row(self, source: str, row: int, note: str = "") -> CLIError:
        """Return the same error located at ``row`` of ``source`` (``note`` after the row)."""
        return CLIError(f"{_where(source, self.column, row)}{note}: {self.problem}")


def _missing_texts():
    pa = _arrow()
    return pa.array(pa.csv.ConvertOptions().null_values, pa.string())


def _first(mask) -> int:
    """Index of the first true value of a boolean Arrow array (nulls are false), or -1."""
    pc = _arrow().compute
    return pc.index(pc.fill_null(mask, False), True).as_py()


def _text_numbers(arr):
    """Parse an Arrow string array as float64: blanks and NA texts null; raise on other text."""
    pa = _arrow()
    pc = pa.compute
    try:
        return pc.cast(arr, pa.float64())
    except pa.ArrowInvalid:
        pass
    trimmed = pc.utf8_trim_whitespace(arr)
    blank = pc.or_(pc.equal(trimmed, ""), pc.is_in(trimmed, value_set=_missing_texts()))
    cleaned = pc.if_else(blank, pa.scalar(None, pa.string()), trimmed)
    try:
        return pc.cast(cleaned, pa.float64())
    except pa.ArrowInvalid:
        pass
    # find the first cell that does not parse: the casts of longer prefixes fail too
    lo, hi = 0, len(cleaned)  # the prefix of length hi fails, of length lo does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            pc.cast(cleaned.slice(0, mid), pa.float64())
            lo = mid
        except pa.ArrowInvalid:
            hi = mid
    raise _BadCell(hi - 1)


class _BadCell(Exception):
    def __init__(self, index: int):
        self.index = index


def _cell_problem(value, text_column: bool) -> str:
    if value is None:
        return "empty cell, a number is needed"
    if text_column:
        stripped = value.strip()
        if not stripped:
            return "empty cell, a number is needed"
        if stripped.lower() in _NAN_TEXTS or stripped.lower().lstrip("+-") in ("inf", "infinity"):
            return f"{value!r} is not a finite number (NaN and infinite values are not allowed here)"
        try:
            x = float(stripped)
        except ValueError:
            if stripped in _missing_texts().to_pylist():
                return f"{value!r} marks a missing value, a number is needed"
            return f"cannot parse {value!r} as a number"
        if np.isfinite(x):  # pragma: no cover - only non-finite values are reported
            return f"cannot parse {value!r} as a number"
        return f"{value!r} is not a finite number (NaN and infinite values are not allowed here)"
    return f"{value!r} is not a finite number (NaN and infinite values are not allowed here)"


def _check_text(t, source: str, column: str) -> None:
    """Refuse bytes: what pyarrow infers for CSV cells that are not UTF-8."""
    pa = _arrow()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        raise CLIError(f"{source}: column {column!r} is not UTF-8 text (is it a CSV file?)")


def column_numbers(
    arr, source: str, column: str, first_row: int = 1, *, missing: str = "error", hint: str = ""
) -> np.ndarray:
    """Return an Arrow column of numbers (or of their text) as float64, or raise CLIError.

    ``missing="error"`` refuses empty, NA and NaN cells; ``"propagate"``
    returns NaN for them.  Infinite values are always refused.  ``first_row``
    is the 1-based number of the first cell's row; ``hint`` is added to the
    message about a missing cell.
    """
    pa = _arrow()
    pc = pa.compute
    arr = _one_chunk(arr)
    t = arr.type
    _check_text(t, source, column)
    text_column = pa.types.is_string(t) or pa.types.is_large_string(t)
    if text_column:
        try:
            values = _text_numbers(arr)
        except _BadCell as bad:
            problem = _cell_problem(arr[bad.index].as_py(), True)
            raise CellError(source, column, first_row + bad.index, problem) from None
    elif pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        values = pc.cast(arr, pa.float64())
    elif pa.types.is_null(t):
        values = pa.nulls(len(arr), pa.float64())
    else:
        raise CLIError(f"{source}: column {column!r} has type {t}, a numeric column is needed")
    x = values.to_numpy(zero_copy_only=False)
    bad = ~np.isfinite(x)
    if bad.any():
        if missing == "propagate":
            bad = np.isinf(x)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            problem = _cell_problem(arr[i].as_py(), text_column)
            if missing != "propagate" and not np.isinf(x[i]):
                problem += hint
            raise CellError(source, column, first_row + i, problem)
    return x.astype(np.float64, copy=False)


def _one_chunk(arr):
    """Return an Arrow column as one array (a chunked column's chunks combined)."""
    pa = _arrow()
    if isinstance(arr, pa.ChunkedArray):
        return arr.combine_chunks() if arr.num_chunks else pa.array([], arr.type)
    return arr


def column_labels(arr, source: str, column: str, first_row: int = 1) -> np.ndarray:
    """Return an Arrow column of labels (or fold ids) as a numpy array, or raise CLIError.

    Missing labels (null, empty or an NA text such as ``NA``) are refused
    with their row; text becomes a numpy ``str`` array, other types keep theirs.
    """
    pa = _arrow()
    pc = pa.compute
    arr = _one_chunk(arr)
    t = arr.type
    _check_text(t, source, column)
    i = _first(pc.is_null(arr))
    if i >= 0:
        where = _where(source, column, first_row + i)
        raise CLIError(f"{where}: missing label (an empty or NA cell); every row needs one")
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        trimmed = pc.utf8_trim_whitespace(arr)
        i = _first(pc.or_(pc.equal(trimmed, ""), pc.is_in(trimmed, value_set=_missing_texts())))
        if i >= 0:
            where = _where(source, column, first_row + i)
            text = arr[i].as_py()
            what = "empty cell" if not text.strip() else f"{text!r} marks a missing value"
            raise CLIError(f"{where}: {what}, a label is needed")
        encoded = pc.dictionary_encode(arr)
        names = np.asarray(encoded.dictionary.to_pylist(), dtype=str)
        return names[encoded.indices.to_numpy(zero_copy_only=False)]
    if pa.types.is_dictionary(t):
        return column_labels(arr.cast(t.value_type), source, column, first_row)
    if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)):
        # Dates, times, decimals...: as text (a model keeps numbers, booleans or text).
        return column_labels(pc.cast(arr, pa.string()), source, column, first_row)
    return np.asarray(arr.to_numpy(zero_copy_only=False))


def typed_labels(texts: np.ndarray) -> np.ndarray:
    """Return labels read as text typed as numbers or booleans when they all are, else as text.

    The first type that takes every distinct label exactly: int64, uint64,
    booleans (``true``/``false`` in any case), float64; text otherwise.  As
    pyarrow's inference of a CSV column, with two differences: integers
    past int64 stay exact (uint64, or text), and labels that are different
    numbers are never made equal by rounding to float64 (they stay text).
    Dates stay text.
    """
    pa = _arrow()
    names, index = np.unique(texts, return_inverse=True)
    arr = pa.array(names.tolist(), pa.string())
    for t in (pa.int64(), pa.uint64()):
        try:
            return pa.compute.cast(arr, t).to_numpy()[index]
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    lower = np.char.lower(names)
    if np.isin(lower, ["true", "false"]).all():
        return (lower == "true")[index]
    try:
        values = pa.compute.cast(arr, pa.float64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return texts
    if np.unique(values).shape[0] < names.shape[0] and not _same_numbers(names, values):
        return texts
    return values[index]


def _same_numbers(names: np.ndarray, values: np.ndarray) -> bool:
    """Whether texts that became the same float64 are the same number (``1`` and ``1.0``)."""
    from fractions import Fraction

    seen: dict = {}
    for text, value in zip(names.tolist(), values.tolist(), strict=True):
        try:
            exact = Fraction(text.strip())
        except (ValueError, ZeroDivisionError):
            return False
        if seen.setdefault(value, exact) != exact:
            return False
    return True
