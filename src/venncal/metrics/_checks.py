"""The inputs every metric takes, and the (weighted) mean they average with.

Every metric is a function of ``(y, p)``: labels in {0, 1} or {-1, 1} (or
booleans, or any two labels with ``pos_label``) and the predicted probability
of the positive class (:func:`binary_outcomes`, the rule ``venncal evaluate``
calls too).  The checks themselves are :mod:`venncal._validation`'s.

Weighted metrics are weighted means (or ratios of weighted sums), which do
not change when every weight is multiplied by the same factor.  They are
computed on the weights divided by a power of two that brings the largest
to ``[1, 2)`` (:func:`_unit_scaled`): exact, so the answer is that of the
weights given, and no sum can overflow whatever their size (1e308) or
underflow whatever their smallness (1e-310).  Weights below ``2**-1022``
times the largest then lose bits, and below ``2**-1075`` times it vanish,
but their share of any weighted mean is that small as well (a mean of
``5e-324`` weight beside a weight of 1 keeps it; beside 3 it is
``1.6e-324`` of the total, past the doubles' resolution, and counts as 0).
"""

from __future__ import annotations

import math

import numpy as np

from .._rows import RowError
from .._validation import (
    _distinct,
    _label_array,
    _real_1d,
    _two_classes,
    check_binary_labels,
    check_probabilities,
    check_sample_weight,
    classes_array,
)


def binary_outcomes(y, n: int, pos_label=None, *, larger: bool = False,
                    advice: str = "pass pos_label= to name the positive class"):
    """Return ``(y01, positive)``: which labels are the positive class, by the metrics' rule.

    The one rule of the metrics (``venncal.metrics.*``) and of
    ``venncal evaluate``.  ``pos_label`` names the positive class; without
    it, booleans have ``True`` positive and numbers coded 0/1 or -1/1 (a
    subset of them: a single label too) have 1 positive, as
    scikit-learn's metrics; other labels need ``pos_label``, a single one
    included.  With ``larger`` (the command line, whose ``fit`` makes the
    larger label the positive class) the larger of any two labels is
    positive, and then a single number is refused as a batch calibrator
    refuses it: where 2 of labels 1/2 is taken as positive unasked, a file
    of 1s may be the negative class (German credit).

    Raises
    ------
    ValueError
        For a single class or other labels without ``pos_label`` (the
        message ends with ``advice``), more than two classes, NaN, a wrong
        shape or a length other than ``n``.

    Examples
    --------
    >>> from venncal.metrics._checks import binary_outcomes
    >>> binary_outcomes([-1, 1, 1], 3)
    (array([False,  True,  True]), 1)
    >>> binary_outcomes(["no", "yes"], 2, larger=True)
    (array([False,  True]), 'yes')
    >>> binary_outcomes([1, 1], 2)
    (array([ True,  True]), 1)
    >>> binary_outcomes([2, 2], 2)
    Traceback (most recent call last):
    ...
    ValueError: y holds a single class (2), so it is unknown whether it is the positive class; pass pos_label= to name the positive class
    """
    if pos_label is not None:
        return check_binary_labels(y, n, pos_label), pos_label
    arr = _label_array(y, n, other="p")
    if arr.dtype.kind == "b":
        return arr, True
    observed = _distinct(arr)
    if larger:
        _two_classes(observed)
    values = observed.tolist()
    coded = arr.dtype.kind in "iuf" and (set(values) <= {0, 1} or set(values) <= {-1, 1})
    if coded and not (larger and len(values) == 1):
        return arr == 1, arr.dtype.type(1).item()
    if len(values) == 1:
        raise ValueError(f"y holds a single class ({values[0]!r}), so it is unknown whether it "
                         f"is the positive class; {advice}")
    if larger:
        return arr == observed[1], observed[1].item()
    shown = ", ".join(repr(v) for v in values)
    raise ValueError(f"y must hold the labels 0 and 1 (or -1 and 1, or booleans); got {shown}. "
                     f"For other labels {advice}")


def _check_inputs(y, p, pos_label=None, sample_weight=None):
    """Return ``(y01, p, w)``: boolean labels, float64 ``p``, weights or None."""
    p = check_probabilities(p)
    y01 = binary_outcomes(y, p.shape[0], pos_label)[0]
    return y01, p, check_sample_weight(sample_weight, p.shape[0])


def _unit_scaled(w: np.ndarray) -> np.ndarray:
    """``w`` times the power of two that brings its largest value to ``[1, 2)``.

    Not ``[0.5, 1)``: that halved a largest weight of 1, and a weight of
    ``5e-324`` beside it became 0 (attack 48 F3: a log loss of 0.0 where the
    exact mean is ``3.4e-321``).
    """
    _, e = math.frexp(float(np.max(w)))
    return np.ldexp(w, 1 - e)


def _mean(values: np.ndarray, w: np.ndarray | None) -> float:
    """The (weighted) mean of ``values``, for weights of any finite size."""
    if w is None:
        return float(np.mean(values))
    ws = _unit_scaled(w)
    return float(np.dot(ws, values) / np.sum(ws))


#: How far from 1 a row of ``proba`` may sum (absolute, on the float64 sum).
#: Probabilities written with 6 or more significant digits and read back
#: (a CSV column per class) sum to 1 within it; the rounding of a
#: normalisation in float64 is some 1e-16.
PROBA_SUM_TOL = 1e-6


def _check_proba(proba) -> np.ndarray:
    """Return ``proba`` as a C-contiguous ``(n, K)`` float64 array of rows of probabilities."""
    arr = np.asarray(proba)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError(
            f"proba must be a 2-D array of shape (n_samples, n_classes) with at least 2 "
            f"columns, one per class; got shape {arr.shape}"
        )
    # The dtype rules of every other array of numbers (a TypeError for text).
    arr = _real_1d(arr.reshape(-1), "proba", "row of probabilities").reshape(arr.shape)
    bad = ~((arr >= 0.0) & (arr <= 1.0))  # NaN fails both
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise RowError(f"proba must be finite probabilities in [0, 1]; got "
                       f"{float(arr[i, j])!r} in ", int(i), f", column {j}")
    sums = np.sum(arr, axis=1)
    off = np.flatnonzero(np.abs(sums - 1.0) > PROBA_SUM_TOL)
    if off.shape[0]:
        raise RowError(f"each row of proba must sum to 1 (within {PROBA_SUM_TOL:g}); ",
                       int(off[0]), f" sums to {float(sums[off[0]])!r}")
    return arr


def _class_columns(y, n: int, k: int, classes) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes_, idx)``: the labels of the ``k`` columns, and each row's true column."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"y must be a 1-D array of shape (n_samples,); got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"proba and y have different lengths: {n} and {arr.shape[0]}")
    if arr.dtype.kind == "c":
        raise TypeError("y must hold class labels; got complex values")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise RowError("y contains NaN (first ", int(np.flatnonzero(np.isnan(arr))[0]), ")",
                       at_index=True)
    if classes is None:
        try:
            cls = np.unique(arr)
        except TypeError:
            raise TypeError("y mixes labels of types that cannot be compared") from None
        if cls.shape[0] != k:
            shown = ", ".join(repr(v) for v in cls[:6].tolist()) + (", ..." if len(cls) > 6 else "")
            raise ValueError(
                f"y holds {cls.shape[0]} classes ({shown}) but proba has {k} columns; pass "
                f"classes= to name the class of each column"
            )
    else:
        cls = classes_array(classes)
        distinct = len(set(cls.tolist())) if cls.ndim == 1 else -1
        if cls.ndim != 1 or distinct != cls.shape[0] or cls.shape[0] != k:
            raise ValueError(
                f"classes must name {k} distinct labels, one per column of proba; got {classes!r}"
            )
    return cls, _columns_of(arr, cls)


def _columns_of(arr: np.ndarray, cls: np.ndarray) -> np.ndarray:
    """The column of each label of ``arr`` in ``cls``; an error for a label not there."""
    kinds = {arr.dtype.kind, cls.dtype.kind}
    if kinds <= set("biuf") or kinds <= set("U") or kinds <= set("S"):
        order = np.argsort(cls, kind="stable")
        pos = np.minimum(np.searchsorted(cls[order], arr), cls.shape[0] - 1)
        idx = np.where(cls[order][pos] == arr, order[pos], -1)
    else:  # objects: a look-up per row
        column = {v: j for j, v in enumerate(cls.tolist())}
        try:
            idx = np.fromiter((column.get(v, -1) for v in arr.tolist()), np.intp, arr.shape[0])
        except TypeError:  # an unhashable label
            raise TypeError("y must hold hashable class labels") from None
    missing = idx < 0
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        label = arr[i].item() if isinstance(arr[i], np.generic) else arr[i]
        raise RowError(f"y holds the label {label!r} (", i,  # a table names its row
                       f") that is not in classes={cls.tolist()!r}", at_index=True)
    return idx


def _check_multiclass(y, proba, classes=None, sample_weight=None):
    """Return ``(classes_, idx, proba, w)`` for the multiclass metrics.

    ``idx[i]`` is the column of row ``i``'s true class; ``w`` None or float64.
    """
    proba = _check_proba(proba)
    cls, idx = _class_columns(y, *proba.shape, classes)
    return cls, idx, proba, check_sample_weight(sample_weight, proba.shape[0])
