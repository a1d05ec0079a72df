"""Isotonic regression calibration (Zadrozny & Elkan 2002; DIR of Vovk & Petej 2014)."""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

import numpy as np

from .._base import (
    ScoreCalibrator,
    check_complements,
    check_float_arrays,
    check_increasing,
    own_knots,
    paired,
)
from .._binning import overflow_shift, scaling_is_exact
from .._docs import fill
from .._kernels import pava_blocks, pava_fit
from .._kernels.dd import two_sum
from .._kernels.pava import exact_pava_blocks, exact_pava_blocks_split, pava_blocks_split
from .._validation import Options, check_sample_weight, check_scores, nonzero_rows

__all__ = ["IsotonicCalibrator", "interpolate", "isotonic_regression"]

INTERPOLATIONS = ("nearest", "linear")


def isotonic_regression(y, sample_weight=None) -> np.ndarray:
    """Return the non-decreasing least-squares fit of an ordered sequence.

    Parameters
    ----------
    y : array-like of shape (n,)
        Values, in the order of the independent variable.
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights; all ones when None.  A value of weight 0 is
        dropped, as everywhere in venncal: the fit is that of the other
        values, and at a dropped position it repeats the fit at the nearest
        kept position before it (after it, for leading ones), which keeps it
        non-decreasing and costs nothing in the weighted loss.

    Returns
    -------
    ndarray of shape (n,)
        The fit: non-decreasing, the weighted mean of ``y`` on each block of
        equal values, minimizing ``sum(w * (y - fit)**2)``.

    Examples
    --------
    >>> from venncal.baselines import isotonic_regression
    >>> isotonic_regression([1.0, 3.0, 2.0, 4.0, 0.0])
    array([1.  , 2.25, 2.25, 2.25, 2.25])
    >>> isotonic_regression([1.0, 3.0, 2.0], sample_weight=[1.0, 1.0, 3.0])
    array([1.  , 2.25, 2.25])
    >>> isotonic_regression([1.0, 3.0, 9.0, 2.0], sample_weight=[1.0, 1.0, 0.0, 3.0])
    array([1.  , 2.25, 2.25, 2.25])
    """
    y = check_scores(y, name="y")
    w = check_sample_weight(sample_weight, y.shape[0])
    if w is None:
        return pava_fit(y.copy(), np.ones_like(y))
    keep = nonzero_rows(w)
    if keep is None:
        return pava_fit(y * w, w)
    fit = pava_fit(y[keep] * w[keep], w[keep])
    # Position i repeats the fit at the last kept position <= i (the first kept one before it).
    nearest = np.maximum(np.searchsorted(keep, np.arange(y.shape[0]), side="right") - 1, 0)
    return fit[nearest]


def isotonic_blocks(num, den, neg=None):
    """Return ``(ends, means)``: the blocks of the isotonic fit of ``num / den`` and their values.

    With ``neg`` (each point's ``den - num``, summed on its own: the negative
    weight of a calibration summary), return ``(ends, means, complements)``,
    ``complements`` each block's ``sum(neg) / sum(den)``, its ``1 - mean``
    with the relative precision of a ratio of sums of non-negative numbers
    (``1.0 - mean`` keeps only about ``2**-53`` absolute: it is 0.0 for a
    block of weights 1e20 and 1 in the two classes).  Blocks whose means
    both exceed 1/2 are then told apart by their complements
    (:func:`~venncal._kernels.pava.pava_blocks_split`): blocks whose means
    round to the same double near 1 stay apart where their complements
    differ by more than their rounding.

    The fit is the same for any common factor of the weights: where their
    sums could overflow they are first divided by a power of two, and where
    that would lose bits of any ``num`` or ``den`` (values more than about
    ``2**1000`` apart, such as ``a = 1e-310`` beside ``w = 1e308``) the fit is
    computed in exact rationals
    (:func:`~venncal._kernels.pava.exact_pava_blocks`; given ``neg``, with
    each weight the exact sum of its two classes,
    :func:`~venncal._kernels.pava.exact_pava_blocks_split`).  Otherwise each
    block's mean is the ratio of floating-point sums, within ``(n + 1) *
    2**-53`` of the exact value relative to it.
    """
    shift = overflow_shift(den)
    if shift and not scaling_is_exact(den, shift, num, *(() if neg is None else (neg,))):
        return exact_pava_blocks(num, den) if neg is None else exact_pava_blocks_split(num, neg)
    if shift:
        num, den = np.ldexp(num, -shift), np.ldexp(den, -shift)
        neg = None if neg is None else np.ldexp(neg, -shift)
    if neg is None:
        ends, bnum, bden = pava_blocks(num, den)
        return ends, bnum / bden
    ends, bnum, bneg, bden = pava_blocks_split(num, neg, den)
    return ends, bnum / bden, bneg / bden


def _nearer_lower(lo, q, hi):
    """Whether ``q - lo <= hi - q`` in exact arithmetic (``lo <= q <= hi``).

    Each difference is represented exactly as a rounded value plus its
    rounding error (Knuth's two-sum), and the pairs compare
    lexicographically: rounding is monotonic, so unequal rounded values
    already order the exact ones.  Where a difference would overflow, all
    three numbers are halved first (exact for such large numbers).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        d_lo, e_lo = _two_diff(q, lo)
        d_hi, e_hi = _two_diff(hi, q)
        huge = ~(np.isfinite(d_lo) & np.isfinite(d_hi) & np.isfinite(e_lo) & np.isfinite(e_hi))
        if huge.any():
            d_lo[huge], e_lo[huge] = _two_diff(q[huge] / 2, lo[huge] / 2)
            d_hi[huge], e_hi[huge] = _two_diff(hi[huge] / 2, q[huge] / 2)
    return (d_lo < d_hi) | ((d_lo == d_hi) & (e_lo <= e_hi))


def block_table(lo: np.ndarray, hi: np.ndarray, values: np.ndarray):
    """Return ``(thresholds, values)`` of a step fit from its blocks.

    Block ``b`` spans the scores ``lo[b] <= hi[b]`` (increasing from block to
    block) and takes ``values[b]``; it contributes its first score and, if
    different, its last, both with its value.
    """
    two = hi != lo
    t = np.column_stack((lo, hi)).ravel()
    keep = np.ones(t.shape[0], dtype=bool)
    keep[1::2] = two
    return np.ascontiguousarray(t[keep]), np.repeat(values, np.where(two, 2, 1))


def _nearest_steps(t, v, c=None):
    """Split points and values of the nearest-threshold step function.

    A query ``q`` takes ``steps[j]`` with ``j`` the number of split points
    below ``q``.  Only gaps where the value (or, given ``c``, the
    complement) changes need a split; there it is
    the largest float ``m`` with ``m - lo <= hi - m`` in exact arithmetic
    (ties go to the lower threshold), found from the rounded midpoint by
    moving one ulp at a time, which takes at most a few steps.  Returns
    ``(splits, steps)``, and the complements' steps after them given ``c``.
    """
    changes = v[1:] != v[:-1]
    if c is not None:
        changes |= c[1:] != c[:-1]
    change = np.flatnonzero(changes)
    lo, hi = t[change], t[change + 1]
    m = np.clip(0.5 * lo + 0.5 * hi, lo, hi)
    for _ in range(64):
        below = ~_nearer_lower(lo, m, hi)
        m = np.where(below, np.nextafter(m, -np.inf), m)
        up = np.minimum(np.nextafter(m, np.inf), hi)
        above = _nearer_lower(lo, up, hi) & (up > m)
        m = np.where(above, up, m)
        if not (below.any() or above.any()):
            break
    else:  # pragma: no cover - the rounded midpoint is within an ulp or two
        raise RuntimeError("nearest-threshold split points did not converge")
    first = np.concatenate(([0], change + 1))
    return (m, v[first]) if c is None else (m, v[first], c[first])


def _two_diff(x, y):
    """``x - y`` as ``(d, e)`` with ``d = fl(x - y)`` and ``d + e == x - y`` exactly."""
    return two_sum(x, -y)


class NearestStepsMixin:
    """The nearest-threshold step function of ``thresholds_`` and ``values_``, cached.

    For calibrators whose fit is stored at calibration scores and extended to
    any score by the nearest one (ties to the smaller): isotonic regression's
    DIR and the quantized isotonic map.  One that also stores
    ``complements_`` (the column of ``classes_[0]``) gets its steps too.
    """

    def _nearest(self, q: np.ndarray, complement: bool = False) -> np.ndarray:
        steps = self._nearest_steps(with_complements=complement)
        return steps[2 if complement else 1][np.searchsorted(steps[0], q, side="left")]

    def _nearest_steps(self, with_complements: bool = False):
        # Cached with the very arrays it was computed from (held, so that a
        # refit or a reload, which sets new arrays, always recomputes).
        t, v = self.thresholds_, self.values_
        c = getattr(self, "complements_", None)
        cache = self.__dict__.get("_steps_cache")
        if cache is None or cache[0] is not t or cache[1] is not v or cache[2] is not c:
            cache = (t, v, c, *_nearest_steps(t, v, c))
            self.__dict__["_steps_cache"] = cache
        return cache[3:] if with_complements else cache[3:5]

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_steps_cache", None)
        return state


@fill
class IsotonicCalibrator(NearestStepsMixin, ScoreCalibrator):
    """Isotonic regression calibration (Zadrozny & Elkan 2002).

    Fits the non-decreasing step function of the calibration scores that is
    closest to the labels in weighted least squares (pool-adjacent-violators
    algorithm on the score summary, one pass) and evaluates it at the test
    scores.

    Parameters
    ----------
    interpolation : {"nearest", "linear"}, default="nearest"
        How the fit, defined at the calibration scores, extends to other
        scores.  ``"nearest"`` is the direct isotonic regression (DIR) of
        Vovk & Petej 2014, section 3: a test score takes the fitted value at the
        nearest calibration score, the smaller one when two are equally near.
        ``"linear"`` interpolates linearly between calibration scores
        (scikit-learn's ``IsotonicRegression(out_of_bounds="clip")``).
        Either way a score below (above) every calibration score takes the
        fitted value at the smallest (largest) one.
    {classes}

    Attributes
    ----------
    {classes_}
    thresholds_ : ndarray of shape (m,)
        Increasing calibration scores at which the fit is stored: the
        smallest and largest score of each block of the fit (one score for a
        block of one score).  Between two consecutive thresholds inside a
        block the fit is constant, so these determine every prediction.
    values_ : ndarray of shape (m,)
        The fit at ``thresholds_``, non-decreasing, in ``[0, 1]``.
    complements_ : ndarray of shape (m,)
        ``1 - values_``, computed as each block's negative weight over its
        weight, so that :meth:`predict_proba`'s column 0 keeps its relative
        precision where the fit is near 1 (``1.0 - values_`` is 0.0 for a
        block of weights 1e20 and 1 in the two classes, where this is
        1e-20).  Non-increasing, in ``[0, 1]``; ``values_ + complements_`` is
        1 to within ``2**-20`` (each is a ratio of sums of non-negative
        weights, within ``n * 2**-53`` of itself for ``n < 2**32`` scores).
        A model saved before this attribute existed loads with
        ``1.0 - values_``, which is what it predicted.

    Notes
    -----
    The fit takes the values 0 and 1 whenever the lowest (highest) scores
    are all of one class, and so do the predictions: the log loss of a test
    observation can be infinite.  This is the overfitting that Venn-Abers
    predictors regularize (Vovk, Petej & Fedorova 2015, section 5.2); see
    :class:`~venncal.VennAbersCalibrator`.

    Ties of calibration scores are pooled (one point per distinct score,
    with the weighted mean label), as in scikit-learn.  The fit depends on
    the weights only through their ratios, so weights of any finite size work
    (see :func:`isotonic_blocks`).  With
    ``interpolation="nearest"`` the nearest calibration score is decided in
    exact arithmetic.

    References
    ----------
    B. Zadrozny, C. Elkan. Transforming classifier scores into accurate
    multiclass probability estimates. KDD 2002.

    Examples
    --------
    >>> from venncal.baselines import IsotonicCalibrator
    >>> scores, y = [0.1, 0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1, 1]
    >>> cal = IsotonicCalibrator().fit(scores, y)
    >>> cal.thresholds_
    array([0.1, 0.2, 0.4, 0.6, 0.8])
    >>> cal.values_
    array([0. , 0.5, 0.5, 1. , 1. ])
    >>> cal.predict_proba([0.0, 0.15, 0.5, 0.55])[:, 1]
    array([0. , 0. , 0.5, 1. ])
    >>> lin = IsotonicCalibrator(interpolation="linear").fit(scores, y)
    >>> lin.predict_proba([0.0, 0.15, 0.5, 0.55])[:, 1]
    array([0.   , 0.25 , 0.75 , 0.875])
    """

    def __init__(self, *, interpolation="nearest", classes=None):
        self.interpolation = interpolation
        self.classes = classes

    _state = ("thresholds_", "values_", "complements_")
    #: Fitted attributes newer than the first saved models (filled by ``_derive_state``).
    _state_added: ClassVar[dict[str, str]] = {"complements_": "values_"}
    _parameter_constraints: ClassVar[dict] = {"interpolation": [Options(INTERPOLATIONS)]}

    _class_sums = True  # the complements come from the negative weights

    def _fit_sums(self, s, w, a, b):
        ends, means, complements = isotonic_blocks(a, w, b)
        starts = np.concatenate(([0], ends[:-1]))
        # The means are in [0, 1] up to rounding; clip to be sure.  The complements
        # decrease in exact arithmetic; a running minimum removes an inversion by rounding.
        # Each is then the more precise of itself and 1 minus the other (paired).  Blocks
        # whose means lie within an ulp or two of each other near 1 (weights 1e16 : 1) stay
        # apart, as in the exact fit, and their rounded means can come out inverted by an
        # ulp: a running maximum restores the order (attack 14 F1; each within 2 ulps).
        # Pairing mixes kept complements with 1 - value: a running minimum after it too
        # (attack 15 F1: complements 0.2...78, 0.2...79 at near-equal class ratios).
        block_complements = np.minimum.accumulate(np.clip(complements, 0.0, 1.0))
        block_values, block_complements = paired(np.clip(means, 0.0, 1.0), block_complements)
        block_values = np.maximum.accumulate(block_values)
        block_complements = np.minimum.accumulate(block_complements)
        self.thresholds_, self.values_ = block_table(s[starts], s[ends - 1], block_values)
        self.complements_ = block_table(s[starts], s[ends - 1], block_complements)[1]

    def _derive_state(self) -> None:
        """A model saved before ``complements_`` existed predicted ``1.0 - p``: it still does."""
        if not hasattr(self, "complements_") and isinstance(self.values_, np.ndarray):
            self.complements_ = 1.0 - self.values_
            self._complements_derived = True

    def _state_default(self, name: str):
        """What :meth:`_derive_state` fills ``name`` with (the file may leave it out then).

        Between knots (``interpolation="linear"``) a derived model predicts ``1.0 - p``,
        not the interpolated ``complements_``: only such a model leaves it out (None).
        """
        if self.interpolation == "linear" and not self.__dict__.get("_complements_derived"):
            return None
        return 1.0 - self.values_

    def _check_state(self):
        """Raise ``ValueError`` unless the step table is one ``fit`` can produce.

        Distinct calibration scores, strictly increasing (the first and last
        of each block), non-decreasing values in [0, 1], and their
        complements (see :func:`~venncal._base.check_complements`).
        """
        super()._check_state()
        check_float_arrays(self, ("thresholds_", "values_", "complements_"),
                           unit_interval=("values_", "complements_"))
        check_increasing(self.thresholds_, "thresholds_", strict=True)
        check_increasing(self.values_, "values_", strict=False)
        check_complements(self.values_, self.complements_, monotone=True)

    def _predict_p(self, q):
        t, v = self.thresholds_, self.values_
        if self.interpolation == "linear":
            return interpolate(q, t, v)
        # Nearest threshold (DIR): a step function whose steps sit at the
        # exact midpoints between blocks, computed once per fitted state.
        return self._nearest(q)

    def _predict_p_and_complement(self, q):
        t, v, c = self.thresholds_, self.values_, self.complements_
        if self.interpolation == "linear":
            p = interpolate(q, t, v)
            if self.__dict__.get("_complements_derived"):  # saved before complements_
                return p, 1.0 - p
            # each interpolation rounds: paired, the two add to 1 within 2**-53
            return paired(p, interpolate(q, t, c))
        return self._nearest(q), self._nearest(q, complement=True)

    @own_knots
    def _knots(self) -> np.ndarray | None:
        """The split points of the nearest-threshold steps; None when interpolating linearly."""
        return self._nearest_steps()[0] if self.interpolation == "nearest" else None


def interpolate(q: np.ndarray, x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``np.interp(q, x, v)``, right for knots ``x`` anywhere in the float64 range.

    ``np.interp`` divides by the gap of the knots around ``q``: a gap past the
    largest double (``-1e308`` to ``1e308``) gives the left value, and one
    below about ``2**-960`` (subnormal scores) an infinite slope, so ``inf``
    or NaN.  Queries in such gaps (only those) are interpolated exactly, in
    rational arithmetic, and rounded once.  The result never leaves the range of
    ``v``: ``np.interp``'s slope times offset can round a query just below a knot
    past the knot's value (issue 22: between values ``2**-53`` and ``1 - 2**-53``
    at knots ``-1e308`` and ``0``, the query ``-1`` gave ``1.0``), so it is clipped
    to ``[min v, max v]``, which the exact interpolation always satisfies.

    Examples
    --------
    >>> import numpy as np
    >>> interpolate(np.array([5e-311, 0.0]), np.array([0.0, 1e-310]), np.array([0.0, 1.0]))
    array([0.5, 0. ])
    >>> float(interpolate(np.array([0.0]), np.array([-1e308, 1e308]), np.array([0.0, 1.0]))[0])
    0.5
    """
    out = np.interp(q, x, v)
    if x.shape[0] < 2:
        return out
    np.clip(out, v.min(), v.max(), out=out)
    with np.errstate(over="ignore"):
        gap = np.diff(x)
    risky = ~np.isfinite(gap) | ((gap > 0) & (gap < 2.0**-960))
    if not risky.any():
        return out
    i = np.searchsorted(x, q, side="right") - 1
    inside = (i >= 0) & (i < gap.shape[0])
    for k in np.flatnonzero(inside & risky[np.clip(i, 0, gap.shape[0] - 1)]):
        j = i[k]
        x0, x1, v0, v1 = (Fraction(float(a)) for a in (x[j], x[j + 1], v[j], v[j + 1]))
        out[k] = float(v0 + (Fraction(float(q[k])) - x0) / (x1 - x0) * (v1 - v0))
    return out
