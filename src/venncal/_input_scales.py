"""Inputs at the scale edges of float64: scores a double cannot hold, weights whose total matters.

Checks :mod:`venncal._validation` runs (and re-exports).
"""

from __future__ import annotations

import decimal
import math
import numbers
import warnings
from fractions import Fraction

import numpy as np

__all__ = [
    "WeightScaleWarning", "as_array", "as_float64", "check_held_exactly", "exact_float64",
    "inexact", "inexact_codes", "warn_if_relative_weights",
]

#: Magnitudes from which a double's neighbours are 2 or more apart: values there (ids, counts,
#: timestamps) must be held exactly, or two of them would tie.
_EXACT_FROM = 2.0**53


def _text(v) -> str:
    return (v.decode() if isinstance(v, bytes) else str(v)).strip()


def _decimal(v) -> decimal.Decimal | None:
    """The exact value a text or Decimal names (underscores and any Unicode digits as Python
    reads them), None if it names none."""
    if isinstance(v, decimal.Decimal):
        return v
    try:
        return decimal.Decimal(_text(v))
    except (decimal.InvalidOperation, UnicodeDecodeError, ValueError):
        return None


def inexact(v, f: float) -> int:
    """Whether ``v`` read as the double ``f`` lost what it names: 0 held, 1 rounded, 2 underflowed,
    3 overflowed (a finite number read as infinite).

    The rule (docs/architecture.md, Validation; docs/cli.md, Numbers), by value, not by spelling:

    - a value other than 0 must not read as 0 (``"1e-400"``, ``Decimal("1E-400")``,
      ``Fraction(1, 10**400)``: it would tie with 0);
    - a value of magnitude ``2**53`` or more must be ``f`` exactly: integers of any type,
      Fractions, Decimals and texts without an exponent (``"9007199254740993"``,
      ``"9007199254740993.0"``, ``"+09007199254740993"``, ``"9_007_199_254_740_993"``);
      texts with an exponent are float literals (``"1e300"``, ``"3.390389054365211e+16"``,
      the shortest text of a double), read as the nearest double, as any parser reads them;
    - long doubles must be ``f`` exactly (a float128 array is refused alike);
    - floats, and other values below ``2**53`` (``"0.1"``), are read as the nearest double.

    NaN and infinities pass here: the callers refuse them with their own message.
    """
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]  # its scalar (a list of 0-d arrays: attack 57 F1)
    if isinstance(v, (bool, np.bool_, float)):
        return 0  # (np.float64 is a float; float32 and float16 are held exactly)
    if math.isinf(f):  # a finite number past the doubles ("1e400": not "NaN or infinite")
        d = _decimal(v) if isinstance(v, (str, bytes, decimal.Decimal)) else None
        return 3 if (d is not None and d.is_finite()) or isinstance(v, numbers.Rational) or (
            isinstance(v, np.floating) and np.isfinite(v)) else 0
    if not math.isfinite(f):
        return 0
    if isinstance(v, np.floating):
        if v.dtype.itemsize <= 8 or not np.isfinite(v):
            return 0
        exact = Fraction(*v.as_integer_ratio())
        return 0 if exact == Fraction(f) else (2 if f == 0.0 else 1)
    if isinstance(v, numbers.Rational):  # int, numpy integers, Fraction
        exact = Fraction(v)
        if exact == 0 or (f != 0.0 and abs(exact) < _EXACT_FROM):
            return 0
        return 2 if f == 0.0 else (0 if exact == Fraction(f) else 1)
    if not isinstance(v, (str, bytes, decimal.Decimal)) or (f != 0.0 and abs(f) < _EXACT_FROM):
        return 0
    d = _decimal(v)
    if d is None or not d.is_finite() or d.is_zero():
        return 0
    if f == 0.0:
        return 2
    if abs(d) < _EXACT_FROM or (not isinstance(v, decimal.Decimal) and (
            "e" in (t := _text(v)) or "E" in t)):
        return 0
    return 0 if d == decimal.Decimal(f) else 1


def inexact_codes(arr: np.ndarray, out: np.ndarray) -> np.ndarray:
    """:func:`inexact` of every value of ``arr`` (1-D, object or text) read as ``out`` (int8).

    Only values read as 0 or past 2**53, and long doubles, are looked at one by one.
    """
    with np.errstate(invalid="ignore"):
        maybe = (out == 0.0) | (np.abs(out) >= _EXACT_FROM)
    if arr.dtype.kind == "O":  # long doubles inside an object array, at any magnitude
        maybe |= np.fromiter((isinstance(v, np.floating) and v.dtype.itemsize > 8
                              for v in arr.tolist()), dtype=bool, count=arr.shape[0])
    codes = np.zeros(arr.shape[0], dtype=np.int8)
    cand = np.flatnonzero((maybe & np.isfinite(out)) | np.isinf(out))
    codes[cand] = [inexact(v, f) for v, f in zip(arr[cand].tolist(), out[cand].tolist())]
    return codes


def check_held_exactly(arr: np.ndarray, out: np.ndarray, name: str,
                       shape: tuple[int, ...] | None = None) -> None:
    """Raise unless every value of ``arr`` (1-D) read as ``out`` keeps what it names.

    Integers past 2**53 (nanosecond timestamps, counts, ids) and long doubles
    round to a neighbouring double, numbers below 5e-324 to 0: two different
    scores would become one, a tie the definitions then treat as one score.
    Object and text arrays follow :func:`inexact`.  ``shape``: the array's own,
    when ``arr`` is it flattened (the error names its row and column).
    """
    if arr.dtype.kind in "iu":
        big = np.flatnonzero((arr > 2**53) | (arr < -(2**53)) if arr.dtype.kind == "i"
                            else arr > 2**53)
        if big.size == 0:
            return
        x, f = arr[big], out[big]
        top = 2.0**63 if arr.dtype.kind == "i" else 2.0**64
        fits = f < top
        held = fits & (np.where(fits, f, 0.0).astype(arr.dtype) == x)
        bad = big[~held]
        code = 1
    elif arr.dtype.kind in "OUS":  # Python numbers of any size, Decimals, Fractions, texts
        codes = inexact_codes(arr, out)
        bad = np.flatnonzero(codes)
        code = int(codes[bad[0]]) if bad.size else 0
    else:
        with np.errstate(invalid="ignore"):
            held = (out.astype(arr.dtype) == arr) | np.isnan(arr)
        bad = np.flatnonzero(~held)
        code = 3 if bad.size and np.isinf(out[bad[0]]) else 1  # (a long double past the range)
    if bad.size == 0:
        return
    i = int(bad[0])
    value = arr[i:i + 1].tolist()[0]
    at = (f"index {i}" if shape is None or len(shape) < 2 else  # (56 F7: not -1 in unravel)
          "row {}, column {}".format(*np.unravel_index(i, (shape[0], int(np.prod(shape[1:]))))))
    if code == 3:
        raise ValueError(
            f"{name} at {at} is {value!r}, past the largest float64 (about 1.8e308): it would "
            f"read as infinite; venncal computes in float64: rescale {name} first")
    if code == 2:
        raise ValueError(
            f"{name} at {at} is {value!r}: not zero but below the smallest float64 "
            f"(5e-324), so it would read as 0 and tie with 0: venncal computes in float64; "
            f"rescale {name} first")
    raise ValueError(
        f"{name} at {at} is {value!r}, which a float64 cannot hold exactly (it would "
        f"be {float(out[i])!r}; past 2**53, and for long doubles anywhere, a value rounds to "
        f"a neighbouring double, so different values would tie): venncal computes in "
        f"float64; subtract an offset or rescale {name} first (a floating-point value past "
        f"2**53 written without an exponent, '1152921504606847000', is read as the integer "
        f"it names: write it with one, 1.152921504606847e18)"
    )


def as_array(values, name: str = "values") -> np.ndarray:
    """``np.asarray(values)``, but a list or tuple whose integers past 2**53 numpy would make
    floats beside a float (``[0.5, 2**53 + 1]``: attack 56 F6) is kept as objects, so that
    :func:`as_float64` refuses them as it refuses them in an object array.  A ragged list or
    an iterator is a clear error naming ``name`` (57 F5)."""
    if hasattr(values, "__next__") and not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be an array-like of numbers, not an iterator or a "
                        "generator: pass list(...) of it")
    values = _mixed_table(values)
    try:
        arr = np.asarray(values)
    except ValueError as exc:
        if "inhomogeneous" not in str(exc):
            raise
        raise ValueError(f"{name} must be an array of numbers; got a ragged sequence (its "
                         "rows or items have different lengths)") from None
    if not (isinstance(values, (list, tuple)) and arr.size):
        return arr
    if arr.dtype.kind in "fc" and bool(np.any(np.abs(arr) >= 2.0**53)):  # (else: fast path)
        objects = np.asarray(values, dtype=object)
        if objects.shape == arr.shape and any(
                (isinstance(v, numbers.Integral) or (isinstance(v, np.ndarray)
                                                     and v.dtype.kind in "iu" and v.ndim == 0))
                and not isinstance(v, (bool, np.bool_)) and not -(2**53) <= int(v) <= 2**53
                for v in objects.ravel().tolist()):
            return objects  # (0-d integer arrays too: attack 57 F1)
    elif arr.dtype.kind in "US" and not all(isinstance(v, (str, bytes)) for v in values):
        return np.asarray(values, dtype=object)  # numbers beside texts, not their str (57 F3)
    return arr


def _mixed_table(values):
    """A pandas DataFrame or pyarrow Table with a 64-bit integer column beside columns of other
    types, as objects: numpy would make its integers floats (2**53 + 1 beside a float column
    read as 2**53: attack 57 A2); anything else unchanged."""
    if hasattr(values, "column_names") and hasattr(values, "to_pandas"):  # pyarrow
        kinds = {str(t) for t in values.schema.types}
        if kinds & {"int64", "uint64"} and len(kinds) > 1:
            return np.column_stack([np.asarray(c.to_pylist(), dtype=object)
                                    for c in values.columns])
        return values
    dtypes = getattr(values, "dtypes", None)
    if dtypes is not None and hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        kinds = {str(t) for t in (dtypes if hasattr(dtypes, "__iter__") else [dtypes])}
        if kinds & {"int64", "uint64", "Int64", "UInt64"} and len(kinds) > 1:
            return values.to_numpy(dtype=object)
    return values


def as_float64(arr: np.ndarray, name: str) -> np.ndarray:
    """``arr`` (numbers, texts or objects, any shape) as float64, refusing what it cannot hold.

    Texts are read as Python reads them (correctly rounded); an element that is
    no number is a ``TypeError`` naming it, an integer past float64's range a
    ``ValueError``; what :func:`check_held_exactly` refuses is refused, at its
    flat index.  NaN and infinities are kept (the callers' checks name them).
    """
    if arr.dtype.kind in "OUS":
        try:
            with np.errstate(over="ignore"):  # (a long double past the range: named below)
                out = arr.astype(np.float64)
        except OverflowError:  # a Python int past float64's range
            flat = arr.reshape(-1).tolist()
            i = next((i for i, v in enumerate(flat) if _overflows(v)), None)
            what = "" if i is None else f" at index {i} ({_short(flat[i])})"
            raise ValueError(f"{name} holds a number beyond float64's range{what} (about "
                             "1.8e308): venncal computes in float64; rescale it first") from None
        except (TypeError, ValueError):
            flat = arr.reshape(-1).tolist()
            i = next((i for i, v in enumerate(flat) if not _reads(v)), None)
            what = "" if i is None else f" ({name} at index {i} is {flat[i]!r})"
            raise TypeError(
                f"{name} must be real numbers; got an array of dtype {arr.dtype}{what}"
            ) from None
        check_held_exactly(arr.reshape(-1), out.reshape(-1), name, arr.shape)
        return out
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be real numbers; got an array of dtype {arr.dtype}")
    with np.errstate(over="ignore"):  # (a long double past the range: named below)
        out = arr.astype(np.float64)
    if arr.dtype.itemsize > 8 or (arr.dtype.kind in "iu" and arr.dtype.itemsize == 8):
        check_held_exactly(arr.reshape(-1), out.reshape(-1), name, arr.shape)
    return out


def _overflows(v) -> bool:
    try:
        float(v)
    except OverflowError:
        return True
    except (TypeError, ValueError):
        return False
    return False


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:18] + "..." + text[-18:]


def _reads(v) -> bool:
    try:
        float(v)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def exact_float64(values, name: str) -> np.ndarray:
    """A column (pandas Series or array) as float64, NaN where missing, read as the local fit
    reads it (:func:`as_float64`).

    The engines' partitions and the local fit read columns alike (attack 52 F1, F6; attack
    55 F1: ``pandas.to_numeric`` was not correctly rounded, 37 % of random texts read as a
    neighbour): int64 past 2**53 and texts such as ``"9007199254740993"`` or ``"1e-400"``
    are refused, not rounded into ties.  Nullable and Arrow columns are read as Python
    objects, so that an integer beside a missing value is not first made a float.
    """
    import pandas as pd

    column = values if isinstance(values, pd.Series) else pd.Series(np.asarray(values))
    if isinstance(column.dtype, np.dtype) and column.dtype.kind in "biuf":
        return as_float64(column.to_numpy(), name)
    return as_float64(column.to_numpy(dtype=object, na_value=math.nan), name)


class WeightScaleWarning(UserWarning):
    """Sample weights that look relative (e.g. normalised to sum to 1), not frequencies.

    venncal's weights are frequency weights (2 is the row repeated).  Isotonic
    regression and histogram binning depend only on their ratios, but the
    Venn-Abers predictors (the test object counts as one row), Platt's
    targets, BBQ's and ENIR's priors on their total: weights summing to far
    less than the rows flatten those fits towards a constant.  Raised by
    those calibrators when the weights sum to less than half the rows of
    positive weight (:func:`warn_if_relative_weights`); rescale relative
    weights to frequencies with ``w * n / w.sum()``.

    Examples
    --------
    >>> import warnings
    >>> from venncal import VennAbersCalibrator, WeightScaleWarning
    >>> w = [0.25] * 4  # normalised: they sum to 1
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = VennAbersCalibrator().fit([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1], w)
    >>> caught[0].category is WeightScaleWarning
    True
    """


def warn_if_relative_weights(owner: str, total: float, rows: int, depends: str, *,
                             stacklevel: int = 2, rows_known: bool = True,
                             what: str = "this fit") -> None:
    """Warn (:class:`WeightScaleWarning`) if weights summing to ``total`` over ``rows`` look relative.

    The rule: they sum to less than half the ``rows`` of positive weight (or
    its lower bound, the distinct scores of a summary, unless ``rows_known``).
    Frequency weights count observations, so their mean over the rows that
    count is about 1 or more (counts, survey weights, importance weights of
    mean 1); a mean below 1/2 comes from weights normalised to a small total
    (``1/n`` each), never from counts.  ``depends``: what depends on the total;
    ``what``: what depends on it ("this fit", "this test").
    """
    if not total < 0.5 * rows:
        return
    where = "rows of positive weight" if rows_known else "distinct scores (at least as many rows)"
    warnings.warn(
        f"{owner}: sample_weight sums to {total:.4g} over {rows:,} {where}. venncal's weights "
        f"are frequency weights (a weight of 2 counts as two rows), and {what} depends on "
        f"their total ({depends}). If the weights are relative (for example normalised to "
        f"sum to 1), rescale them to frequencies first: w * n / w.sum()",
        WeightScaleWarning,
        stacklevel=stacklevel + 1,
    )
