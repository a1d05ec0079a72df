"""Cells of a table as numpy arrays: numbers parsed from their text, labels, and the errors.

Numeric columns of CSV are read as text and parsed here, so that a bad cell
is reported with its column, its row and its text whatever read it (the
local reader, or a Dask partition whose rows are located in their file
later: :meth:`TableError.moved`).
"""

from __future__ import annotations

import decimal

import numpy as np

from .._input_scales import inexact
from ._errors import TableError
from ._formats import arrow

__all__ = ["column_labels", "column_numbers"]

_NAN_TEXTS = frozenset({"nan", "-nan", "+nan"})
_NOT_FINITE = "is not a finite number (NaN and infinite values are not allowed here)"


def missing_texts():
    """Return pyarrow's NA markers of CSV (``NA``, ``null``, ``#N/A``, ...) as an Arrow array."""
    pa = arrow()
    return pa.array(pa.csv.ConvertOptions().null_values, pa.string())


def _first(mask) -> int:
    """Index of the first true value of a boolean Arrow array (nulls are false), or -1."""
    pc = arrow().compute
    return pc.index(pc.fill_null(mask, False), True).as_py()


def _blank_or_na(arr):
    """Return the mask of cells that are blank (after trimming) or an NA marker."""
    pc = arrow().compute
    trimmed = pc.utf8_trim_whitespace(arr)
    return pc.or_(pc.equal(trimmed, ""), pc.is_in(trimmed, value_set=missing_texts())), trimmed


class _BadCell(Exception):
    def __init__(self, index: int):
        self.index = index


def _text_numbers(arr):
    """Parse an Arrow string array as float64: blanks and NA texts null; raise on other text.

    Returns the numbers and the text they were parsed from (trimmed when needed).
    """
    pa = arrow()
    pc = pa.compute
    try:
        return pc.cast(arr, pa.float64()), arr
    except pa.ArrowInvalid:
        pass
    blank, trimmed = _blank_or_na(arr)
    cleaned = pc.if_else(blank, pa.scalar(None, pa.string()), trimmed)
    try:
        return pc.cast(cleaned, pa.float64()), cleaned
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


#: An integer literal: digits with an optional sign, no '.' nor exponent.
_INTEGER_TEXT = r"^[+-]?[0-9]+$"


def _first_inexact_ints(ints: np.ndarray) -> int:
    """Index of the first int64/uint64 value a float64 cannot hold exactly, or -1."""
    if ints.dtype.kind == "i":
        big = np.flatnonzero((ints > 2**53) | (ints < -(2**53)))
    else:
        big = np.flatnonzero(ints > 2**53)
    if big.size == 0:
        return -1
    x = ints[big]
    f = x.astype(np.float64)
    top = 2.0**63 if ints.dtype.kind == "i" else 2.0**64
    fits = (f < top) & (f >= -top)
    held = fits & (np.where(fits, f, 0.0).astype(ints.dtype) == x)
    bad = np.flatnonzero(~held)
    return int(big[bad[0]]) if bad.size else -1


def _first_inexact_text(cleaned, values) -> int:
    """Index of the first text of ``cleaned`` that its double ``values`` does not hold, or -1.

    The rule of the Python API (:func:`venncal._input_scales.inexact`): a value of
    magnitude 2**53 or more written without an exponent (``9007199254740993``,
    ``9007199254740993.0``) must be its double exactly; text with an exponent is a
    float literal (``1e300``, ``3.390389054365211e+16``), read as the nearest double.
    Only cells of that magnitude are looked at; integer literals are parsed as int64
    or uint64 by pyarrow (vectorized), the rest one by one.
    """
    pa = arrow()
    pc = pa.compute
    big = pc.fill_null(pc.greater_equal(pc.abs(values), pa.scalar(2.0**53)), False)
    index = np.flatnonzero(big.to_numpy(zero_copy_only=False))
    if index.size == 0:
        return -1
    texts = pc.take(cleaned, pa.array(index))
    integer = pc.match_substring_regex(texts, _INTEGER_TEXT).to_numpy(zero_copy_only=False)
    first, judged = [], np.zeros_like(integer)
    if integer.any():
        ints = texts.filter(pa.array(integer))
        for t in (pa.int64(), pa.uint64()):
            try:
                i = _first_inexact_ints(pc.cast(ints, t).to_numpy(zero_copy_only=False))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue  # (past 64 bits: one by one below)
            first.append(-1 if i < 0 else int(index[integer][i]))
            judged = integer
            break
    rest = np.flatnonzero(~judged)
    x = values.take(pa.array(index[rest])).to_numpy(zero_copy_only=False)
    for j, text, value in zip(rest.tolist(), texts.take(pa.array(rest)).to_pylist(),
                              x.tolist(), strict=True):
        if inexact(text, value) == 1:  # (past the range: named below, "1e309")
            first.append(int(index[j]))
            break
    hits = [i for i in first if i >= 0]
    return min(hits) if hits else -1


def _first_underflow(cleaned, values) -> int:
    """Index of the first text of ``cleaned`` that is not zero but read as 0 (``1e-400``), or -1."""
    pa = arrow()
    pc = pa.compute
    zero = pc.fill_null(pc.equal(values, pa.scalar(0.0)), False)
    index = np.flatnonzero(zero.to_numpy(zero_copy_only=False))
    if index.size == 0:
        return -1
    # a non-zero digit before any exponent: the text names a number other than 0
    nonzero = pc.match_substring_regex(pc.take(cleaned, pa.array(index)), r"^[^eE]*[1-9]")
    hit = np.flatnonzero(nonzero.to_numpy(zero_copy_only=False))
    return int(index[hit[0]]) if hit.size else -1


def _underflow_problem(value) -> str:
    return (f"{value!r} is not zero but lies below the smallest float64 (5e-324), so it would "
            f"read as 0 and tie with 0: venncal computes in float64; rescale the column first")


def _first_inexact_decimal(arr, values) -> int:
    """Index of the first value of a decimal column (any scale) of magnitude 2**53 or more
    that its double ``values`` is not exactly, or -1."""
    x = values.to_numpy(zero_copy_only=False)
    big = np.flatnonzero(np.abs(np.nan_to_num(x)) >= 2.0**53)  # (below, every integer is exact)
    for i in big.tolist():  # past 2**53 only: compared exactly, as Decimals
        d = arr[i].as_py()
        if abs(d) >= 2**53 and d != decimal.Decimal(float(x[i])):
            return i
    return -1


def _inexact_problem(value, x: float) -> str:
    whole = isinstance(value, int) or (
        isinstance(value, str) and value.strip().lstrip("+-").isdigit())
    return (f"{'the integer ' if whole else ''}{value!r} is not a float64 exactly (it would be "
            f"{x!r}; past 2**53 a value rounds "
            f"to a neighbouring double, so different values would tie): venncal computes in "
            f"float64; subtract an offset or rescale the column first")


EMPTY_NUMBER = "empty cell, a number is needed"


def _cell_problem(value, text_column: bool) -> str:
    if value is None:
        return EMPTY_NUMBER
    if not text_column:
        return f"{value!r} {_NOT_FINITE}"
    stripped = value.strip()
    if not stripped:
        return EMPTY_NUMBER
    if stripped.lower() in _NAN_TEXTS or stripped.lower().lstrip("+-") in ("inf", "infinity"):
        return f"{value!r} {_NOT_FINITE}"
    try:
        x = float(stripped)
    except ValueError:
        if stripped in missing_texts().to_pylist():
            return f"{value!r} marks a missing value, a number is needed"
        return f"cannot parse {value!r} as a number"
    if np.isfinite(x):  # pragma: no cover - only non-finite values are reported
        return f"cannot parse {value!r} as a number"
    if np.isinf(x):  # digits past the range ("1e309"), not the text of an infinity
        return f"{value!r} is past the largest float64 (about 1.8e308), it would read as infinite"
    return f"{value!r} {_NOT_FINITE}"


def _check_text(t, source: str, column: str) -> None:
    """Refuse bytes: what pyarrow infers for CSV cells that are not UTF-8."""
    pa = arrow()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        raise TableError(f"{source}: column {column!r} is not UTF-8 text (is it a CSV file?)",
                         source=source, column=column)


def one_chunk(arr):
    """Return an Arrow column as one array (a chunked column's chunks combined)."""
    pa = arrow()
    if isinstance(arr, pa.ChunkedArray):
        return arr.combine_chunks() if arr.num_chunks else pa.array([], arr.type)
    return arr


def column_numbers(
    arr, source: str, column: str, first_row: int = 1, *, missing: str = "error", hint=()
) -> np.ndarray:
    """Return an Arrow column of numbers (or of their text) as float64.

    Values past 2**53 are read exactly or refused, as the Python API reads them
    (:func:`venncal._input_scales.inexact`): an integer column, a decimal column
    or text without an exponent (``9007199254740993``, ``9007199254740993.0``)
    whose value a float64 cannot hold is an error naming its row and value, since
    two different values would become one double and tie; text with an exponent
    is a float literal (``1e300``), read as the nearest double, as are values below
    2**53 (``0.1``) and floating columns; text of a number other than 0 below the
    smallest double (``1e-400``, which would read as 0) is an error.

    Parameters
    ----------
    arr : pyarrow.Array or pyarrow.ChunkedArray
        Numbers, or their text (CSV): decimal or scientific notation, blanks
        around them allowed.
    source, column : str
        The table and the column, for messages.
    first_row : int, default=1
        The number (from 1, the header not counted) of the first cell's row.
    missing : {"error", "propagate"}, default="error"
        ``"error"`` refuses empty, NA and NaN cells; ``"propagate"`` makes
        them NaN.  Infinite values are always refused.
    hint : str or tuple of str and Param, default=()
        Added to the message about a missing cell.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    TableError
        For the first bad cell, with its ``row`` (text that is not a finite
        number, an integer a float64 cannot hold exactly); or a column that is
        not numeric.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from venncal.tables import column_numbers
    >>> column_numbers(pa.array(["0.5", " 2.5e-1", "2"]), "t.csv", "s")
    array([0.5 , 0.25, 2.  ])
    >>> column_numbers(pa.array(["0.5", "NA"]), "t.csv", "s", missing="propagate")
    array([0.5, nan])
    >>> column_numbers(pa.array(["0.5", "abc"]), "t.csv", "s")
    Traceback (most recent call last):
    ...
    venncal.tables._errors.TableError: t.csv: column 's', row 2: cannot parse 'abc' as a number
    """
    pa = arrow()
    pc = pa.compute
    arr = one_chunk(arr)
    t = arr.type
    _check_text(t, source, column)
    hint = (hint,) if isinstance(hint, str) else tuple(hint)
    text_column = pa.types.is_string(t) or pa.types.is_large_string(t)
    if text_column:
        try:
            values, cleaned = _text_numbers(arr)
        except _BadCell as bad:
            problem = _cell_problem(arr[bad.index].as_py(), True)
            raise TableError.at_cell(source, column, first_row + bad.index, problem) from None
        i = _first_inexact_text(cleaned, values)
        if i >= 0:
            raise TableError.at_cell(source, column, first_row + i,
                                     _inexact_problem(arr[i].as_py(), values[i].as_py()))
        i = _first_underflow(cleaned, values)
        if i >= 0:
            raise TableError.at_cell(source, column, first_row + i, _underflow_problem(arr[i].as_py()))
    elif pa.types.is_integer(t):
        values = pc.cast(arr, pa.float64(), safe=False)
        ints = pc.fill_null(arr, 0).to_numpy(zero_copy_only=False)
        i = _first_inexact_ints(ints) if ints.dtype.itemsize == 8 else -1
        if i >= 0:
            raise TableError.at_cell(source, column, first_row + i,
                                     _inexact_problem(int(ints[i]), values[i].as_py()))
    elif pa.types.is_decimal(t):
        # to the nearest double, through the decimal's text: pyarrow's cast of a decimal to
        # float64 is not correctly rounded (decimal128(5, 2) 0.83 became 0.8300000000000001;
        # 4,382 of 33,211 random two-place decimals one ulp off), its cast of text is; past
        # 2**53 read exactly or refused, whatever the scale (attack 54 F5)
        values = pc.cast(pc.cast(arr, pa.string()), pa.float64())
        i = _first_inexact_decimal(arr, values)
        if i >= 0:
            v = arr[i].as_py()
            raise TableError.at_cell(source, column, first_row + i, _inexact_problem(
                int(v) if v == v.to_integral_value() else v, values[i].as_py()))
    elif pa.types.is_floating(t):
        values = pc.cast(arr, pa.float64())  # exact (float16 and float32 widen)
    elif pa.types.is_null(t):
        values = pa.nulls(len(arr), pa.float64())
    else:
        raise TableError(f"{source}: column {column!r} has type {t}, a numeric column is needed",
                         source=source, column=column)
    x = values.to_numpy(zero_copy_only=False)
    bad = ~np.isfinite(x)
    if bad.any():
        if missing == "propagate":
            bad = np.isinf(x)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            problem = (_cell_problem(arr[i].as_py(), text_column),)
            if missing != "propagate" and not np.isinf(x[i]):
                problem += hint
            raise TableError.at_cell(source, column, first_row + i, *problem)
    return x.astype(np.float64, copy=False)


_DROP_OR_FILL = " (drop such rows or fill them in)"


def column_labels(arr, source: str, column: str, first_row: int = 1) -> np.ndarray:
    """Return an Arrow column of labels (or group ids) as a numpy array.

    Missing labels (null, NaN, blank, or an NA text such as ``NA``) are
    refused with their row.  Text becomes a numpy ``str`` array, each label trimmed
    of the blanks around it as numbers are (``' 1 '`` is ``'1'``); numbers and
    booleans keep their types; other types (dates, times, decimals, ...)
    become their text, as every label of a model is a number, a boolean or
    text (see :func:`label_value`).  Labels of CSV, read as text, are typed
    afterwards by :func:`typed_labels`.

    Raises
    ------
    TableError
        For the first missing label, with its ``row``.

    Examples
    --------
    >>> import datetime, pyarrow as pa
    >>> from venncal.tables import column_labels
    >>> column_labels(pa.array(["yes", "no"]), "t.csv", "y")
    array(['yes', 'no'], dtype='<U3')
    >>> column_labels(pa.array([datetime.date(2020, 1, 2)]), "t.parquet", "y")
    array(['2020-01-02'], dtype='<U10')
    >>> column_labels(pa.array(["yes", " "]), "t.csv", "y")
    Traceback (most recent call last):
    ...
    venncal.tables._errors.TableError: t.csv: column 'y', row 2: empty cell, a label is needed (drop such rows or fill them in)
    """
    pa = arrow()
    pc = pa.compute
    arr = one_chunk(arr)
    t = arr.type
    _check_text(t, source, column)
    i = _first(pc.is_null(arr))
    if i >= 0:
        raise TableError.at_cell(source, column, first_row + i, "missing label (an empty or NA "
                                 f"cell); every row needs one{_DROP_OR_FILL}")
    if pa.types.is_floating(t):  # NaN, as a null, is no label (never a class of its own)
        i = _first(pc.is_nan(arr))
        if i >= 0:
            raise TableError.at_cell(source, column, first_row + i,
                                     f"NaN marks a missing value, a label is needed{_DROP_OR_FILL}")
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        i = _first(_blank_or_na(arr)[0])
        if i >= 0:
            text = arr[i].as_py()
            what = "empty cell" if not text.strip() else f"{text!r} marks a missing value"
            raise TableError.at_cell(source, column, first_row + i,
                                     f"{what}, a label is needed{_DROP_OR_FILL}")
        encoded = pc.dictionary_encode(pc.utf8_trim_whitespace(arr))
        names = np.asarray(encoded.dictionary.to_pylist(), dtype=str)
        return names[encoded.indices.to_numpy(zero_copy_only=False)]
    if pa.types.is_dictionary(t):
        return column_labels(arr.cast(t.value_type), source, column, first_row)
    if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)):
        # Dates, times, decimals...: as text (a model keeps numbers, booleans or text).
        return column_labels(pc.cast(arr, pa.string()), source, column, first_row)
    return np.asarray(arr.to_numpy(zero_copy_only=False))
