"""Quantized isotonic regression calibration (Gokcesu & Gokcesu 2022, section III).

The best non-decreasing map whose values lie in a finite set of *levels*
(for example whole percentages) is the isotonic regression projected onto the
nearest level (Gokcesu & Gokcesu 2022, Theorem 1 and section III-C).  This module holds the
batch calibrator and the level helpers shared with the online version,
:mod:`venncal.online.quantized`.

The projection, and so the fitted map, is unique once the rule for an exact
midpoint between two levels is fixed: **a value exactly halfway between two
levels goes to the lower one** (decided in exact arithmetic).  Either level is
then optimal for the quantized problem; the rule only picks one.

**Every level is decided exactly.**  The fit merges the scores' groups as
the ordered stream does (:func:`venncal._kernels.quantized.ordered_fit`):
each group's float sums carry bounds on their rounding errors, and where
the float mean is too near a midpoint for them to tell, the group's exact
sums (a long accumulator) decide.  The per-score sums are exact too: the
summary's correctly rounded sums and what they lost (its remainders, and for
the rare sums that two doubles do not hold, the rest as doubles) enter the
fit as the ordered stream's pending score does, its remainders in the long
accumulators.  So the map is the exact projected isotonic regression of the
weights as given (their floats' exact values), the map the streams of
:mod:`venncal.online.quantized` keep on the same rows, level for level.
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from typing import ClassVar

import numpy as np

from .._base import (
    ScoreCalibrator,
    check_float_arrays,
    check_increasing,
    own_knots,
)
from .._docs import fill
from .._kernels.dd import two_sum
from .._kernels.quantized import HI, LO, ordered_fit
from .._validation import Check, Interval
from .isotonic import NearestStepsMixin, _nearest_steps, block_table

__all__ = [
    "MAX_LEVELS",
    "QuantizedIsotonicCalibrator",
    "check_levels",
    "even_levels",
    "level_splits",
    "level_table",
    "project_to_levels",
]

# The most levels accepted.  A level spacing below 1e-4 is finer than any
# calibration set can resolve (a probability estimated from n labels has a
# standard error of about 0.5 / sqrt(n): 1e-4 needs 25 million labels at one
# level), while every level costs memory in the fit and the streams and a
# number in the saved model: 1e8 levels took 58 s, 11 GB and a 650 MB file.
MAX_LEVELS = 10_001

# Weights are divided by a power of two (which changes no level: the
# isotonic fit is invariant under a common positive factor) when their sum
# passes this bound, so that no sum overflows.
_WEIGHT_SUM_BOUND = 2.0**1000


def _is_level_array(value) -> bool:
    if isinstance(value, (str, bytes, numbers.Number)):
        return False
    try:
        _level_array(value, unit_interval=True)
    except (TypeError, ValueError):
        return False
    return True


def _level_array(levels, unit_interval: bool) -> np.ndarray:
    arr = np.asarray(levels)
    if arr.dtype.kind not in "iuf" or arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError("levels must be a non-empty 1-D array of real numbers")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all() or (np.diff(arr) <= 0).any():
        raise ValueError("levels must be finite and strictly increasing")
    if unit_interval and ((arr < 0) | (arr > 1)).any():
        raise ValueError("levels must lie in [0, 1]")
    if arr.shape[0] > MAX_LEVELS:
        raise ValueError(f"levels must be at most {MAX_LEVELS:,} (a spacing of 1e-4: finer "
                         f"than calibration data can resolve); got {arr.shape[0]:,} levels")
    return arr + 0.0  # -0.0 becomes 0.0


def even_levels(k: int) -> np.ndarray:
    """Return the ``k >= 2`` evenly spaced levels ``j / (k - 1)``, each the double nearest to it.

    ``np.arange(k) / (k - 1)`` divides two exact integers, so each level is
    correctly rounded; ``np.linspace(0, 1, k)`` is not (its ``0.1 * 3`` is
    ``0.30000000000000004``, one step above the double nearest 3/10), which
    moves a midpoint between two levels and so can change the level of a
    mean near it.  The one grid of both the batch calibrator and the streams
    (:func:`check_levels`).

    Examples
    --------
    >>> float(even_levels(11)[3])
    0.3
    """
    return np.arange(k, dtype=np.float64) / (k - 1)


def check_levels(levels, *, unit_interval: bool = True) -> np.ndarray:
    """Return the quantization levels as a strictly increasing float64 array.

    Parameters
    ----------
    levels : int or array-like of shape (K,)
        An integer ``2 <= K <=`` :data:`MAX_LEVELS` gives ``K`` evenly spaced
        levels in ``[0, 1]``, both endpoints included (``K=101``: whole
        percentages), each the double nearest to ``j / (K - 1)``
        (:func:`even_levels`); an array gives the levels themselves, finite and
        strictly increasing, at most :data:`MAX_LEVELS` of them.
    unit_interval : bool, default=True
        Whether the levels must lie in ``[0, 1]`` (probabilities).

    Returns
    -------
    ndarray of shape (K,)

    Raises
    ------
    TypeError
        For a single value that is not an integer (a string, a float).
    ValueError
        For an integer below 2 or above :data:`MAX_LEVELS`, or an array
        that is empty, not 1-D, not finite, not strictly increasing, longer
        than :data:`MAX_LEVELS` or (with ``unit_interval``) outside
        ``[0, 1]``.

    Examples
    --------
    >>> check_levels(5)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    >>> check_levels([0.1, 0.9])
    array([0.1, 0.9])
    """
    if isinstance(levels, numbers.Integral) and not isinstance(levels, bool):
        if levels < 2:
            raise ValueError(f"levels as a number must be an integer >= 2; got {levels!r}")
        if levels > MAX_LEVELS:
            raise ValueError(f"levels as a number must be at most {MAX_LEVELS:,} (a spacing of "
                             f"1e-4: finer than calibration data can resolve); got {levels!r}")
        return even_levels(int(levels))
    if isinstance(levels, (str, bytes, bool, numbers.Number)):
        raise TypeError(f"levels must be an integer >= 2 or an array of levels; got {levels!r}")
    return _level_array(levels, unit_interval)


def level_splits(levels: np.ndarray) -> np.ndarray:
    """Return the ``K - 1`` split points of the nearest-level projection.

    ``splits[l]`` is the largest float64 that is at least as near to
    ``levels[l]`` as to ``levels[l + 1]`` in exact arithmetic, so the level
    of a value ``v`` is ``levels[np.searchsorted(splits, v)]`` (ties at an
    exact midpoint go to the lower level).

    Examples
    --------
    >>> level_splits(np.array([0.0, 0.5, 1.0]))
    array([0.25, 0.75])
    """
    if levels.shape[0] < 2:
        return np.empty(0)
    return np.ascontiguousarray(_nearest_steps(levels, np.arange(levels.shape[0]))[0])


def level_table(levels: np.ndarray) -> np.ndarray:
    """Return the table of midpoints the kernels decide levels with: shape (4, K - 1).

    Row 0: the split points (:func:`level_splits`, the largest float not
    above each midpoint); row 1: the next float above each; rows 2 and 3:
    the exact sum ``levels[l] + levels[l + 1]`` as a float and its rounding
    error, so that the midpoint is exactly ``(row2 + row3) / 2``.

    Examples
    --------
    >>> level_table(np.array([0.0, 0.5, 1.0]))[:, 0]
    array([0.25, 0.25, 0.5 , 0.  ])
    """
    splits = level_splits(levels)
    hi, lo = two_sum(levels[:-1], levels[1:])
    return np.ascontiguousarray(np.vstack((splits, np.nextafter(splits, np.inf), hi, lo)))


def _downscaled(w: np.ndarray, *others: np.ndarray):
    """``w`` (and ``others``) divided by the power of two that brings ``sum(w)`` below 2**1000.

    None when no division is needed.  The isotonic fit, and so the map, is
    the same for weights multiplied by one positive factor; a power of two
    changes no bit of a weight unless the result is subnormal, which is
    refused rather than rounded.
    """
    total = float(np.sum(w * 2.0**-64))  # the sum / 2**64: no overflow
    if total == 0.0 or total <= _WEIGHT_SUM_BOUND * 2.0**-64:
        return None
    shift = int(np.ceil(np.log2(total) + 64 - np.log2(_WEIGHT_SUM_BOUND)))
    out = tuple(np.ldexp(v, -shift) for v in (w, *others))
    if any(np.any(np.ldexp(v, shift) != old) for v, old in zip(out, (w, *others), strict=True)):
        raise ValueError(
            "sample_weight: the weights add up to more than 2**1000 and some are too small to "
            f"be divided by 2**{shift} without rounding (they span more than float64 can "
            "hold at once); drop the smallest or give them in a narrower range")
    return out


def _scaled_weights(sample_weight):
    """Weights divided by a power of two when their sum passes 2**1000, else as given.

    Anything that is not a finite non-negative 1-D array is passed on
    unchanged, for the usual validation to reject.
    """
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight)
    if w.ndim != 1 or w.shape[0] == 0 or w.dtype.kind not in "iuf":
        return sample_weight
    w = w.astype(np.float64)
    if not np.isfinite(w).all() or (w < 0).any():
        return sample_weight
    scaled = _downscaled(w)
    return sample_weight if scaled is None else scaled[0]


def _expansion(value: Fraction) -> list[float]:
    """Doubles adding up to the dyadic rational ``value`` exactly, largest first."""
    terms = []
    while value != 0:  # a multiple of 2**-1074: each rest is a nonzero double or 0
        terms.append(float(value))
        value -= Fraction(terms[-1])
    return terms


def _remainder_terms(summary):
    """``(xi, xw, xa)``: what the summary's rounded weights and positive weights lost.

    The exact weight at score ``j`` is ``weights[j]`` plus the ``xw[k]`` with
    ``xi[k] == j``, its exact positive weight ``positive_weights[j]`` plus the
    ``xa[k]``: the summary's remainders (one double each) and, at the rare
    scores whose sums two doubles do not hold, the rest of the exact sums as
    doubles.
    """
    idx, tw, ta = [], [], []
    tail = summary._tail or {}
    residual = summary._residual
    if residual is not None:
        wl, al = residual[0], residual[1]
        for j in np.flatnonzero((wl != 0.0) | (al != 0.0)).tolist():
            if float(summary.scores[j]) not in tail:
                idx.append(j)
                tw.append(float(wl[j]))
                ta.append(float(al[j]))
    for score, (pos, neg) in tail.items():
        j = int(np.searchsorted(summary.scores, score))
        dw = _expansion(pos + neg - Fraction(float(summary.weights[j])))
        da = _expansion(pos - Fraction(float(summary.positive_weights[j])))
        for k in range(max(len(dw), len(da))):
            idx.append(j)
            tw.append(dw[k] if k < len(dw) else 0.0)
            ta.append(da[k] if k < len(da) else 0.0)
    order = np.argsort(np.array(idx, dtype=np.int64), kind="stable")
    return (np.array(idx, dtype=np.int64)[order], np.array(tw, dtype=np.float64)[order],
            np.array(ta, dtype=np.float64)[order])


def project_to_levels(values, levels) -> np.ndarray:
    """Return each value replaced by the nearest level (the lower one at a midpoint).

    Parameters
    ----------
    values : array-like of shape (n,)
    levels : int or array-like of shape (K,)
        As in :func:`check_levels` (any finite reals when an array).

    Examples
    --------
    >>> project_to_levels([0.1, 0.125, 0.13, 0.9], 5)
    array([0.  , 0.  , 0.25, 1.  ])
    """
    lv = check_levels(levels, unit_interval=False)
    v = np.asarray(values, dtype=np.float64)
    return lv[np.searchsorted(level_splits(lv), v, side="left")]


@fill
class QuantizedIsotonicCalibrator(NearestStepsMixin, ScoreCalibrator):
    """Isotonic calibration with values restricted to a set of levels (Gokcesu & Gokcesu 2022).

    Fits the non-decreasing step function of the calibration scores, with
    values in ``levels``, that is closest to the labels in weighted least
    squares: the isotonic regression (weighted PAVA on the score summary)
    projected onto the nearest level, then adjacent blocks with the same
    level joined (Gokcesu & Gokcesu 2022, Theorem 1 and section III-C).

    Parameters
    ----------
    levels : int or array-like of shape (K,), default=101
        An integer ``2 <= K <= 10001`` (:data:`MAX_LEVELS`) gives ``K``
        evenly spaced levels in ``[0, 1]``, both endpoints included (the
        default, 101, is whole percentages); an array gives the levels, at
        most 10001, strictly increasing, in ``[0, 1]``.
    {classes}

    Attributes
    ----------
    {classes_}
    levels_ : ndarray of shape (K,)
        The levels.
    thresholds_ : ndarray of shape (m,)
        Increasing calibration scores: the smallest and largest score of
        each group of scores mapped to one level (one score for a group of
        one score).
    values_ : ndarray of shape (m,)
        The level at ``thresholds_``, non-decreasing, each in ``levels_``.

    Notes
    -----
    A value exactly halfway between two levels is projected onto the lower
    one; at such a midpoint both levels give the same loss, so the map is
    one of the optimal ones.  Each level is decided in exact arithmetic from
    the exact per-score sums of the weights (see the module's documentation), and
    weights whose sum passes ``2**1000`` are first divided by a power of two,
    which changes no level.  ``levels`` is at most :data:`MAX_LEVELS`.

    Between and beyond the calibration scores the map extends as
    :class:`~venncal.baselines.IsotonicCalibrator` with
    ``interpolation="nearest"`` (its default) does: a test score takes the
    level of the nearest calibration score, the smaller one when two are
    equally near, and a score below (above) every calibration score takes
    the level of the smallest (largest).  Linear interpolation is not
    offered: it would leave the set of levels.

    The online twins, which keep this map exact as observations are
    inserted and deleted, are :class:`venncal.online.quantized.QuantizedIsotonic`
    and :class:`venncal.online.quantized.OrderedQuantizedIsotonic`.

    References
    ----------
    K. Gokcesu, H. Gokcesu. A log-linear time sequential optimal calibration
    algorithm for quantized isotonic L2 regression (Gokcesu & Gokcesu 2022).

    Examples
    --------
    >>> from venncal.baselines import QuantizedIsotonicCalibrator
    >>> scores, y = [0.1, 0.2, 0.4, 0.6, 0.8, 0.9], [0, 1, 0, 1, 1, 1]
    >>> cal = QuantizedIsotonicCalibrator(levels=3).fit(scores, y)
    >>> cal.levels_
    array([0. , 0.5, 1. ])
    >>> cal.thresholds_, cal.values_
    (array([0.1, 0.2, 0.4, 0.6, 0.9]), array([0. , 0.5, 0.5, 1. , 1. ]))
    >>> cal.predict_proba([0.0, 0.15, 0.5, 0.51, 1.0])[:, 1]
    array([0. , 0. , 0.5, 1. , 1. ])

    With two levels the block of mean 0.5 sits at the midpoint and goes to
    the lower level, where it joins the first block:

    >>> two = QuantizedIsotonicCalibrator(levels=[0.0, 1.0]).fit(scores, y)
    >>> two.thresholds_, two.values_
    (array([0.1, 0.4, 0.6, 0.9]), array([0., 0., 1., 1.]))
    """

    def __init__(self, *, levels=101, classes=None):
        self.levels = levels
        self.classes = classes

    _state = ("levels_", "thresholds_", "values_")
    _parameter_constraints: ClassVar[dict] = {
        "levels": [
            Interval("int", 2, MAX_LEVELS),
            Check(_is_level_array,
                  "a strictly increasing array of at most 10,001 levels in [0, 1]"),
        ]
    }

    def fit(self, scores, y, sample_weight=None):
        """Fit on calibration scores and labels (see :meth:`ScoreCalibrator.fit`).

        Weights whose sum passes ``2**1000`` are divided by a power of two
        first (the fitted map is the same); if that would round a weight
        (the weights span more than float64 holds at once), a ValueError.
        """
        return super().fit(scores, y, _scaled_weights(sample_weight))

    def _fit_from(self, summary) -> None:
        """Fit from the summary's exact sums: the rounded ones and their remainders."""
        self._fit_exact(summary.scores, summary.weights, summary.positive_weights,
                        *_remainder_terms(summary))

    def _fit_sums(self, s, w, a):
        none = np.empty(0)
        self._fit_exact(s, w, a, np.empty(0, dtype=np.int64), none, none)

    def _fit_exact(self, s, w, a, xi, xw, xa):
        """Fit from sums ``w``, ``a`` plus remainder terms ``xw``, ``xa`` at scores ``xi``."""
        levels = check_levels(self.levels)
        scaled = _downscaled(w, a, xw, xa)  # a summary's weights may add up past 2**1000
        if scaled is not None:
            w, a, xw, xa = scaled
        # The reduced groups: runs of scores on one level, levels decided exactly.
        f64 = [np.ascontiguousarray(v, dtype=np.float64) for v in (s, w, a)]
        rows, cells = ordered_fit(*f64, np.ascontiguousarray(xi, dtype=np.int64),
                                  np.ascontiguousarray(xw, dtype=np.float64),
                                  np.ascontiguousarray(xa, dtype=np.float64), level_table(levels))
        self.levels_ = levels
        self.thresholds_, self.values_ = block_table(rows[:, LO], rows[:, HI], levels[cells])

    def _check_state(self):
        """Raise ``ValueError`` unless the levels and the step table are what ``fit`` makes.

        ``levels_`` the ``levels`` parameter's levels (strictly increasing, in
        [0, 1]), thresholds strictly increasing, values non-decreasing levels.
        """
        super()._check_state()
        check_float_arrays(self, ("levels_",), unit_interval=("levels_",))
        check_increasing(self.levels_, "levels_", strict=True)
        try:
            levels = check_levels(self.levels)
        except (TypeError, ValueError):  # the parameter's own check says why
            levels = None
        if levels is not None and not (
            levels.shape == self.levels_.shape and np.allclose(levels, self.levels_, rtol=0,
                                                               atol=4 * np.finfo(float).eps)
        ):
            raise ValueError("levels_ must be the levels of the levels parameter")
        check_float_arrays(self, ("thresholds_", "values_"), unit_interval=("values_",))
        check_increasing(self.thresholds_, "thresholds_", strict=True)
        check_increasing(self.values_, "values_", strict=False)
        if not np.isin(self.values_, self.levels_).all():
            raise ValueError("values_ must be levels (members of levels_)")

    def _predict_p(self, q):
        return self._nearest(q)

    @own_knots
    def _knots(self) -> np.ndarray:
        """The split points of the nearest-threshold steps."""
        return self._nearest_steps()[0]
