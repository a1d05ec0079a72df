"""Inputs at the scale edges of float64: scores a double cannot hold, weights whose total matters.

Checks :mod:`venncal._validation` runs (and re-exports).
"""

from __future__ import annotations

import decimal
import math
import re
import warnings

import numpy as np

__all__ = ["WeightScaleWarning", "check_held_exactly", "exact_float64", "warn_if_relative_weights"]

_WHOLE_TEXT = re.compile(r"\s*[+-]?[0-9]+\s*")
_NONZERO_TEXT = re.compile(r"\s*[+-]?[^eE]*[1-9]")  # a non-zero digit before any exponent


def _whole(v) -> int | None:
    """``v`` as an integer when it is one (a Python int, or a Decimal of no fraction), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, decimal.Decimal) and v.is_finite() and v == v.to_integral_value():
        return int(v)
    if isinstance(v, (str, bytes)) and _WHOLE_TEXT.fullmatch(t := _text(v)):
        return int(t)  # the integer a text names ("9007199254740993": attack 52 F6)
    return None


def _text(v) -> str:
    return v.decode() if isinstance(v, bytes) else v


def _underflows(v, f: float) -> bool:
    """Whether ``v`` is a text naming a number other than 0 that reads as 0 (``"1e-400"``)."""
    return f == 0.0 and isinstance(v, (str, bytes)) and bool(_NONZERO_TEXT.match(_text(v)))


def check_held_exactly(arr: np.ndarray, out: np.ndarray, name: str) -> None:
    """Raise unless every value of ``arr`` (int64, uint64, longdouble) is ``out``'s double exactly.

    Integers past 2**53 (nanosecond timestamps, counts, ids) and long doubles
    round to a neighbouring double: two different scores would become one, a
    tie the definitions then treat as one score.
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
        index = big
    elif arr.dtype.kind in "OUS":  # Python ints of any size, whole Decimals, texts
        values, floats = arr.tolist(), out.tolist()
        whole = [_whole(v) for v in values]
        held = np.array([(w is None or not math.isfinite(f) or int(f) == w)
                         and not _underflows(v, f)
                         for v, w, f in zip(values, whole, floats)], dtype=bool)
        index = np.arange(arr.shape[0])
    else:
        with np.errstate(invalid="ignore"):
            held = (out.astype(arr.dtype) == arr) | np.isnan(arr)
        index = np.arange(arr.shape[0])
    if not held.all():
        i = int(index[np.flatnonzero(~held)[0]])
        if arr.dtype.kind in "OUS" and _underflows(arr[i], float(out[i])):
            raise ValueError(
                f"{name} at index {i} is {arr[i:i + 1].tolist()[0]!r}: not zero but below the smallest float64 "
                f"(5e-324), so it would read as 0 and tie with 0: venncal computes in float64; "
                f"rescale {name} first")
        raise ValueError(
            f"{name} at index {i} is {arr[i:i + 1].tolist()[0]!r}, which a float64 cannot hold exactly (it would "
            f"be {float(out[i])!r}; integers past 2**53 round to a neighbour, so different "
            f"scores would tie): venncal computes in float64; subtract an offset or rescale "
            f"{name} first"
        )


def exact_float64(values, name: str) -> np.ndarray:
    """A column (pandas Series or array) as float64, NaN where missing; what float64 cannot
    hold exactly refused as :func:`check_held_exactly` refuses it.

    The engines' partitions and the local fit read columns alike (attack 52 F1, F6): int64
    past 2**53 and texts such as ``"9007199254740993"`` or ``"1e-400"`` are refused, not
    rounded into ties.
    """
    import pandas as pd

    column = values if isinstance(values, pd.Series) else pd.Series(np.asarray(values))
    out = pd.to_numeric(column).to_numpy(dtype=np.float64, na_value=np.nan)
    arr = column.to_numpy()
    if arr.dtype.kind in "iu" and arr.dtype.itemsize == 8 or arr.dtype.kind in "OUS":
        check_held_exactly(arr, out, name)
    return out


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
