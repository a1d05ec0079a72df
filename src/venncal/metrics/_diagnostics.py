"""Calibration tests and the logistic calibration line: diagnostics beyond the ECE.

- :func:`spiegelhalter_test`: Spiegelhalter's (1986) z-test of calibration;
- :func:`calibration_slope_intercept`: the slope of the logistic regression
  of ``y`` on ``logit(p)`` and the calibration-in-the-large intercept
  (Cox 1958; Van Calster et al. 2019), fitted by Newton's method;
- :func:`ks_calibration_test` and :func:`kuiper_calibration_test`: the
  cumulative-deviation tests of Tygert (2021) and Arrieta-Ibarra, Gujral,
  Tannen, Tygert & Xu (JMLR 2022).

Weights are frequency weights, as everywhere in venncal: a weight of 2 is
the row repeated.  The test statistics therefore grow as the square root
of the total weight (they are tests, not means); the slope and intercept
are maximum-likelihood estimates and do not change with a common factor of
the weights.  Every sum is computed on the weights divided by a power of
two (exact), so weights from 1e-310 to 1e308 neither overflow nor vanish; the
sums of the three tests are of row terms whatever their exponents (the
deviations exact, the positive variance terms rounded to 53 bits), summed
exactly and rounded once (:mod:`._wide`), so they do not depend on the
order of the rows, to the bit, a weight of 1e-310 beside 1e300 keeps its
digits, and deviations that cancel leave exactly what is left.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._validation import NONE, Interval, validate_params, warn_if_relative_weights
from ._checks import _check_inputs
from ._docstrings import fill
from ._smooth import _smooth_ece
from ._wide import (exact_difference, exact_product_terms, exact_terms, over_root, row_terms,
                    wide_sums)

__all__ = [
    "CalibrationLine",
    "CalibrationTest",
    "calibration_slope_intercept",
    "ks_calibration_test",
    "kuiper_calibration_test",
    "spiegelhalter_test",
]

#: Below this statistic the p-values of the cumulative tests are 1: the
#: probability that the Brownian maximum or range stays below 0.1 is under 1e-50.
_SMALL_STATISTIC = 0.1
#: The series stop where the argument of the normal tail passes 40 (tail < 1e-349).
_TAIL_END = 40.0


class CalibrationTest(NamedTuple):
    """A test of calibration: the statistic and its two-sided (or upper-tail) p-value."""

    statistic: float
    pvalue: float


class CalibrationLine(NamedTuple):
    """The logistic calibration line of :func:`calibration_slope_intercept`.

    ``slope`` and ``fit_intercept`` are the two parameters of the logistic
    regression ``logit P(y = 1) = fit_intercept + slope * logit(p)``;
    ``intercept`` is the calibration-in-the-large ``a`` of
    ``logit P(y = 1) = a + logit(p)`` (slope fixed at 1).  ``gradient_norm``
    is the larger of the two fits' gradient max-norms of the mean negative
    log-likelihood at the returned parameters (the slope's in the
    standardised feature), each divided by the lighter class's share of the
    weight, doubled; ``iterations`` the larger of the Newton steps and the
    intercept's evaluations of its score.
    """

    slope: float
    intercept: float
    fit_intercept: float
    gradient_norm: float
    iterations: int


def _normal_tail(x: np.ndarray) -> np.ndarray:
    """``P(N(0, 1) >= x)`` for ``x >= 0``, accurate in the far tail."""
    from scipy.special import ndtr

    return ndtr(-x)


def _terms(x: float, step: int) -> np.ndarray:
    """The indices ``k = 1, 2, ...`` until ``(step * k - (step - 1)) * x`` passes :data:`_TAIL_END`."""
    return np.arange(1, int(math.ceil(_TAIL_END / x / (1 if step == 1 else 2))) + 2, dtype=float)


def brownian_max_sf(x: float) -> float:
    """``P(max_{0<=t<=1} |B(t)| >= x)`` for a standard Brownian motion ``B``.

    ``4 * sum_{k>=1} (-1)**(k+1) * P(N >= (2k - 1) x)`` (the reflection
    principle; Feller 1971, X.5), summed until ``(2k - 1) x > 40``: an
    alternating series of decreasing terms, so the error is below the first
    term left out, under 1e-340.  1 for ``x < 0.1`` (error below 1e-50); 0
    for ``x >= 40`` (the first term is below 1e-340; no overflow of ``(2k - 1) x``).
    """
    if x < _SMALL_STATISTIC:
        return 1.0
    if x >= _TAIL_END:
        return 0.0
    k = _terms(x, 2)
    terms = _normal_tail((2.0 * k - 1.0) * x)
    signs = np.where(k % 2 == 1, 1.0, -1.0)
    return float(min(1.0, max(0.0, 4.0 * math.fsum(signs * terms))))


def brownian_range_sf(x: float) -> float:
    """``P(max B - min B >= x)`` over ``[0, 1]`` for a standard Brownian motion ``B``.

    The range has density ``8 sum_{k>=1} (-1)**(k-1) k**2 phi(k r)`` (Feller
    1951), so the tail is ``8 sum_{k>=1} (-1)**(k-1) k P(N >= k x)``, summed
    until ``k x > 40``: alternating with decreasing terms past ``k x > 1``, so
    the error is below the first term left out, under 1e-340.  1 for
    ``x < 0.1`` (error below 1e-200); 0 for ``x >= 40`` (the first term is
    below 1e-340; no overflow of ``k x``).
    """
    if x < _SMALL_STATISTIC:
        return 1.0
    if x >= _TAIL_END:
        return 0.0
    k = _terms(x, 1)
    signs = np.where(k % 2 == 1, 1.0, -1.0)
    return float(min(1.0, max(0.0, 8.0 * math.fsum(signs * k * _normal_tail(k * x)))))


def _positive(y01, p, w, test: str | None = None, depth: int = 0, top: int | None = 0):
    """The rows of positive weight, their weights scaled to a largest in [2**(top-1), 2**top),
    and ``e`` with ``weights = scaled * 2**e`` (``top=None``: the weights as given, ``e = 0``).

    ``test``: the name of a test whose p-value depends on the weights' total
    (frequency weights): weights that look relative get a ``WeightScaleWarning``.
    """
    if w is None:
        return y01, p, None, 0
    keep = w > 0
    if not keep.any():
        raise ValueError("sample_weight must not be all zero")
    if test is not None:
        with np.errstate(over="ignore"):  # a total past the float64 range: inf, no warning
            total = float(np.sum(w[keep]))
        warn_if_relative_weights(test, total, int(keep.sum()),
                                 "its statistic and p-value, which grow with the total",
                                 stacklevel=4 + depth, what="this test")
    if top is None:
        return y01[keep], p[keep], w[keep], 0
    _, e = math.frexp(float(np.max(w)))
    return y01[keep], p[keep], np.ldexp(w[keep], top - e), e - top


def _weights_or_ones(y01, p, w, e):
    """The rows' weights as given (:func:`_positive` with ``top=None``); ones without weights."""
    return y01, p, (np.ones_like(p) if w is None else w)


def _total(m, k) -> tuple[float, int]:
    """The exact sum of the terms ``m * 2**k`` (:func:`._wide.row_terms`), rounded once:
    ``(value, exponent)``."""
    values, exponents = wide_sums(m, k, np.array([m.shape[0] - 1], dtype=np.int64))
    return float(values[0]), int(exponents[0])


def _spiegelhalter(y01, p, w) -> CalibrationTest:
    y01, p, w = _weights_or_ones(*_positive(y01, p, w, "spiegelhalter_test", top=None))
    # The numerator's terms w (y - p)(1 - 2p) exactly, whatever their exponents (they may
    # cancel: rounded, weights of 2**100 whose deviations cancel gave z = -4.4e6 for 5e-24);
    # the denominator's, all positive, from the weight outwards (w (1 - 2p)**2 p, not w times
    # a subnormal (1 - 2p)**2 p for p = 1e-310), each rounded to 53 bits whatever its exponent
    # (a weight of 1e-310 beside 1e300 keeps its digits); each sum exact, rounded once.
    num, a = _total(*exact_terms(w, exact_difference(y01, p), exact_difference(1.0, 2.0 * p)))
    den, b = _total(*row_terms(w, (1.0 - 2.0 * p) ** 2, p, 1.0 - p))
    if not den > 0.0:
        raise ValueError(
            "spiegelhalter_test is undefined: every forecast of positive weight is 0, 1/2 or "
            "1, so the statistic has variance 0"
        )
    z = float(over_root(np.array([num]), np.array([a]), den, b)[0])
    return CalibrationTest(z, float(math.erfc(abs(z) / math.sqrt(2.0))))


@fill
def spiegelhalter_test(
    y: ArrayLike, p: ArrayLike, *, pos_label=None, sample_weight: ArrayLike | None = None
) -> CalibrationTest:
    """Spiegelhalter's z-test of calibration (Spiegelhalter 1986).

    ``z = sum w (y - p)(1 - 2p) / sqrt(sum w (1 - 2p)**2 p (1 - p))``: under
    the hypothesis that each ``y`` is Bernoulli(``p``) the numerator has mean
    0 and the denominator is its standard deviation, so ``z`` is
    approximately standard normal.  The p-value is two-sided,
    ``P(|N| >= |z|) = erfc(|z| / sqrt 2)``.  Weights are frequency weights
    (``z`` grows as the square root of a common factor).

    Parameters
    ----------
    {y_p}
    {weights}

    Returns
    -------
    CalibrationTest
        ``(statistic, pvalue)``: ``z`` and its two-sided p-value.

    Raises
    ------
    ValueError
        If every forecast of positive weight is 0, 1/2 or 1: the
        denominator is then 0 and the test is undefined (a certain wrong
        forecast is refuted outright; forecasts of 1/2 contribute nothing).
        :func:`evaluate` reports NaN instead.

    Examples
    --------
    >>> from venncal.metrics import spiegelhalter_test
    >>> z, pvalue = spiegelhalter_test([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.3])
    >>> round(z, 4), round(pvalue, 4)
    (-1.005, 0.3149)
    """
    return _spiegelhalter(*_check_inputs(y, p, pos_label, sample_weight))


def _cumulative(y01, p, w) -> np.ndarray:
    """The cumulative deviation at each distinct ``p`` (sorted), over ``sigma``.

    Rows of equal ``p`` are summed into one step.  Each point of the path is
    the exact sum of the deviations ``w (y - p)`` (each exact, whatever its
    exponent: :func:`._wide.exact_terms`) of the rows with ``p`` up to that
    value, rounded once, and ``var`` is the exact ``sum w q``
    with ``q = p (1 - p)`` rounded per row, rounded once
    (:func:`._wide.wide_sums`): neither depends on the order of the rows, to
    the bit, no cancellation loses a small deviation beside huge ones, and
    no weight or deviation loses digits below the normal range (a weight of
    1e-310 beside 1e300).  The path divided by ``sigma`` may pass the
    float64 range: inf (p-value 0).
    """
    y01, p, w = _weights_or_ones(*_positive(
        y01, p, w, "the cumulative calibration tests (KS, Kuiper)", 1, top=None))
    order = np.argsort(p, kind="stable")  # any order within a run of ties gives the same sums
    ps = p[order]
    last = np.flatnonzero(np.r_[ps[1:] != ps[:-1], True])  # the end of each run of ties
    m, k = exact_terms(w[order], exact_difference(y01[order], ps))
    per_row = m.shape[0] // max(ps.shape[0], 1)  # a row's terms together: runs end at the last
    path, exponents = wide_sums(m, k, last * per_row + (per_row - 1))
    var, b = _total(*exact_product_terms(w, p * (1.0 - p)))
    if not var > 0.0:
        raise ValueError(
            "the cumulative calibration tests are undefined: every forecast of positive weight "
            "is 0 or 1, so sigma = 0"
        )
    return np.r_[0.0, over_root(path, exponents, var, b)]


def _ks(y01, p, w) -> CalibrationTest:
    path = _cumulative(y01, p, w)
    stat = float(np.max(np.abs(path)))
    return CalibrationTest(stat, brownian_max_sf(stat))


def _kuiper(y01, p, w) -> CalibrationTest:
    path = _cumulative(y01, p, w)
    stat = float(np.max(path) - np.min(path))
    return CalibrationTest(stat, brownian_range_sf(stat))


_CUMULATIVE_DOC = """
    Sort the rows by ``p``; the cumulative deviation ``C_k = sum_{j<=k} w_j
    (y_j - p_j) / W`` (``W`` the total weight, ``n`` without weights), with
    ``C_0 = 0``, is divided by ``sigma = sqrt(sum w p (1 - p)) / W``.  Under
    calibration ``C / sigma`` is asymptotically a standard Brownian motion on
    ``[0, 1]`` (Tygert 2021; Arrieta-Ibarra et al. 2022).  Rows of equal
    ``p`` form one step of the path (their deviations are summed before the
    path is read).  Each point of the path is the exact sum of the rows'
    deviations ``w (y - p)`` (each a float), rounded once, and ``sum w p (1 -
    p)`` likewise: the result does not depend on the order of the rows, to the
    bit, and huge weights that cancel do not hide a small deviation.

"""
#: The sections both cumulative tests' docstrings share (in place of ``SECTIONS``).
_CUMULATIVE_SECTIONS = """
    Parameters
    ----------
    {y_p}
    {weights}

    Returns
    -------
    CalibrationTest
        ``(statistic, pvalue)``.

    Raises
    ------
    ValueError
        If every forecast of positive weight is 0 or 1 (``sigma = 0``).
"""


def ks_calibration_test(
    y: ArrayLike, p: ArrayLike, *, pos_label=None, sample_weight: ArrayLike | None = None
) -> CalibrationTest:
    """Kolmogorov-Smirnov calibration test: ``max_k |C_k| / sigma`` of the cumulative deviation.
    CUMULATIVE
    The p-value is ``P(max_[0,1] |B| >= statistic)`` for a standard Brownian
    motion (series with error below 1e-50; see :func:`brownian_max_sf`).
    SECTIONS

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.metrics import ks_calibration_test
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(1000)
    >>> stat, pvalue = ks_calibration_test(rng.random(1000) < p, p)
    >>> round(stat, 4), round(pvalue, 4)
    (0.8515, 0.7677)
    """
    return _ks(*_check_inputs(y, p, pos_label, sample_weight))


def kuiper_calibration_test(
    y: ArrayLike, p: ArrayLike, *, pos_label=None, sample_weight: ArrayLike | None = None
) -> CalibrationTest:
    """Kuiper calibration test: ``(max_k C_k - min_k C_k) / sigma`` of the cumulative deviation.
    CUMULATIVE
    The p-value is ``P(max B - min B >= statistic)`` over ``[0, 1]`` for a
    standard Brownian motion (series with error below 1e-50; see
    :func:`brownian_range_sf`).
    SECTIONS

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.metrics import kuiper_calibration_test
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(1000)
    >>> stat, pvalue = kuiper_calibration_test(rng.random(1000) < p ** 1.5, p)
    >>> round(stat, 4), pvalue < 1e-6
    (6.5424, True)
    """
    return _kuiper(*_check_inputs(y, p, pos_label, sample_weight))


_LINE_CONSTRAINTS = {
    "clip": [NONE, Interval("real", 0, 0.5, "neither")],
    "tol": [Interval("real", 0, None, "neither")],
    "max_iter": [Interval("int", 1, None)],
}


def _logit_inputs(y01, p, w, clip):
    """``(y01, x = logit p, positive weights c1, negative weights c0)`` of the rows of
    positive weight, the weights divided by one power of two (exact ratios)."""
    from ..parametric._binary import scaled_class_weights

    y01, p, ws, _ = _positive(y01, p, w)
    if clip is None and ((p == 0.0) | (p == 1.0)).any():
        i = int(np.flatnonzero((p == 0.0) | (p == 1.0))[0])
        raise ValueError(
            f"calibration_slope_intercept needs logit(p): p must lie in (0, 1) on the rows of "
            f"positive weight; got {float(p[i])!r} (row {i} of those rows); pass clip=eps to "
            f"clip p to [eps, 1 - eps]"
        )
    u = np.ones_like(p) if ws is None else ws
    if not (y01.any() and not y01.all()):
        raise ValueError(
            "calibration_slope_intercept needs both labels among the rows of positive weight: "
            "with one class the intercept is infinite"
        )
    c1, c0 = scaled_class_weights(np.where(y01, u, 0.0), np.where(y01, 0.0, u))
    return y01, _clipped_logit(p, clip), c1, c0


def _clipped_logit(p, clip):
    """``logit(p)``, with ``p`` clipped to ``[clip, 1 - clip]`` first (``clip`` None: none).

    The ends are ``+-logit(clip)``, not the logit of the float ``1 - clip``:
    below ``2**-53``, ``1 - clip`` rounds to 1 (an infinite logit), and above
    it to a neighbour.  ``1 - p < clip`` is exact where it can hold (``p >=
    1/2``: Sterbenz).
    """
    with np.errstate(divide="ignore"):
        x = np.log(p) - np.log1p(-p)
    if clip is None:
        return x
    end = math.log(clip) - math.log1p(-clip)
    return np.where(p < clip, end, np.where(1.0 - p < clip, -end, x))


def _not_converged(what: str, why: str) -> ValueError:
    return ValueError(f"calibration_slope_intercept: the {what} did not converge: {why}")


def _offset_fit(x, c1, c0, tol):
    """The calibration-in-the-large ``a``: the root of the mean score in ``a`` of
    ``logit P(y = 1) = a + x``, bracketed and found by Brent's method to the last bits.

    Returns ``(a, optimality, evaluations)``; the optimality is the derivative
    of the weighted mean negative log-likelihood at ``a``, divided by the
    lighter class's share of the weight (``lighter_share``, as :func:`fit_logistic`'s).
    """
    from scipy.optimize import brentq
    from scipy.special import expit

    from ..parametric._binary import lighter_share

    share, _, total = lighter_share(c1, c0)

    def score(a):  # increasing in a; sigma(-eta) for the positives: no cancellation near 1
        eta = x + a
        return (float(np.dot(c0, expit(eta))) - float(np.dot(c1, expit(-eta)))) / total

    lo, hi, calls = -1.0, 1.0, 2
    while score(lo) > 0.0:
        lo, hi, calls = 2.0 * lo, lo, calls + 1
        if lo < -2.0**1023:
            raise _not_converged("intercept", "no root of the score below -2**1023")
    while score(hi) < 0.0:
        lo, hi, calls = hi, 2.0 * hi, calls + 1
        if hi > 2.0**1023:
            raise _not_converged("intercept", "no root of the score above 2**1023")
    a, r = brentq(score, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=400,
                  full_output=True, disp=False)
    if not r.converged:
        raise _not_converged("intercept", f"Brent's method stopped: {r.flag}")
    norm = abs(score(a)) / share
    if not norm <= tol:
        raise _not_converged(
            "intercept", f"at the root to the last bits, the score is {norm:.3g} > tol={tol:g} "
            "(the weights span too many decades for float64)")
    return a, norm, calls + r.function_calls


def _calibration_line(y01, p, w, clip=None, tol=1e-10, max_iter=100) -> CalibrationLine:
    from ..parametric._binary import LOGIT_TOL, Separable, fit_logistic, line_precision

    y01, x, c1, c0 = _logit_inputs(y01, p, w, clip)
    if x.max() == x.min():
        raise ValueError(
            "calibration_slope_intercept: p is constant on the rows of positive weight, so the "
            "slope is undefined"
        )
    x0, x1 = x[~y01], x[y01]
    if x0.max() <= x1.min() or x1.max() <= x0.min():
        raise ValueError(
            "calibration_slope_intercept: logit(p) separates the two labels, so the slope is "
            "infinite (no maximum-likelihood fit)"
        )
    spread = np.concatenate([c1[c1 > 0], c0[c0 > 0]])
    with np.errstate(over="ignore"):
        ratio = float(np.max(spread)) / float(np.min(spread))
    span = f"{ratio:.3g}" if math.isfinite(ratio) else "more than 1.8e+308"
    hint = (f"; the weights span a factor of {span}: rows this much lighter than "
            "others cannot be resolved in float64 (rescale sample_weight into a narrower range, "
            "or drop the lightest rows)" if ratio > 1e8 else "")
    # the two-parameter fit first: it refuses a class too light for float64 (fit_logistic)
    try:
        fit = fit_logistic(x[:, None], c1, c0, intercept=True, nonneg=[False], tol=tol,
                           max_iter=max_iter, polish=3, settle=True)  # to the last digits
    except ValueError as exc:
        # logit(p) does not separate the labels (checked above): a fit that finds them separated,
        # or its coefficients past the doubles, met rows it cannot weigh (its words would mislead)
        if not hint or not (isinstance(exc, Separable) or "coefficient" in str(exc)):
            raise
        raise ValueError(
            "calibration_slope_intercept: the two-parameter fit cannot be computed in float64"
            + hint) from exc
    if not fit.converged:
        raise _not_converged("two-parameter fit", fit.why + hint)
    step, noise = line_precision(x, c1, c0, float(fit.coef[0]), float(fit.intercept))
    if not (step <= LOGIT_TOL and noise <= LOGIT_TOL):
        # the gradient met tol relative to the total weight, but the rows that bound the
        # slope weigh too little beside it to be seen (attack 35 F0: 0.034 beside 1e37)
        where = ("the Hessian there is singular in float64" if not math.isfinite(step + noise)
                 else f"a Newton step there still moves a row's logit by {step:.3g} (float64's "
                 f"rounding alone by {noise:.3g}; at the maximum both are below {LOGIT_TOL:g})")
        raise _not_converged("two-parameter fit", f"the gradient is within tol, but {where}{hint}")
    a, g1, n1 = _offset_fit(x, c1, c0, tol)
    return CalibrationLine(float(fit.coef[0]), float(a), float(fit.intercept),
                           max(g1, fit.grad_norm), max(n1, fit.n_iter))


@fill
def calibration_slope_intercept(
    y: ArrayLike, p: ArrayLike, *, clip: float | None = None, tol: float = 1e-10,
    max_iter: int = 100, pos_label=None, sample_weight: ArrayLike | None = None,
) -> CalibrationLine:
    """Calibration slope and intercept on the logit scale (Cox 1958).

    The slope is that of the logistic regression of ``y`` on ``logit(p)``
    with two parameters, ``logit P(y = 1) = c + slope * logit(p)``: 1 for
    calibrated forecasts, below 1 for over-confident ones.  The intercept
    is the calibration-in-the-large: ``a`` of ``logit P(y = 1) = a +
    logit(p)`` (the offset ``logit(p)``, slope fixed at 1), 0 for
    calibrated forecasts, positive when they are too low on average.  Both
    are maximum-likelihood fits.  The slope's is Platt scaling of
    ``logit(p)``: damped Newton steps on the standardised feature (the core
    of :mod:`venncal.parametric`), stopped when the max-norm of the gradient
    of the (weighted) mean negative log-likelihood, divided by the lighter
    class's share of the weight, is at most ``tol`` and a Newton step from
    there moves no weighted row's logit by more than 1e-6.  The intercept
    is the root of its score, found by Brent's method to the last bits.
    Weights are frequency weights; the fits do not
    change with a common factor of the weights.  Weights that span so many
    decades that the light rows' pull on the fit is lost in float64 beside
    the heavy ones (one row of 1e100 among rows of 1) are an error, not a
    fit that is not the maximum.

    Parameters
    ----------
    {y_p}
    clip : float in (0, 0.5), default=None
        Clip ``p`` to ``[clip, 1 - clip]`` first.  By default ``p`` of 0 or
        1 (infinite logit) on a row of positive weight is an error.
    tol : float > 0, default=1e-10
        Convergence: gradient max-norm of the mean negative log-likelihood,
        divided by the lighter class's share of the weight (doubled: 1 for
        balanced classes).
    max_iter : int >= 1, default=100
        Newton steps at most; an error if the gradient is still above ``tol``.
    {weights}

    Returns
    -------
    CalibrationLine
        ``(slope, intercept, fit_intercept, gradient_norm, iterations)``.

    Raises
    ------
    ValueError
        If ``p`` holds 0 or 1 (without ``clip``), if the rows of positive
        weight hold a single class (intercept infinite), if ``p`` is
        constant (slope undefined), if ``logit(p)`` separates the labels
        (slope infinite), or if a fit does not reach ``tol`` or the short
        Newton step (for instance weights spanning more decades than float64
        resolves: a row of 0.034 that alone bounds the slope, beside 1e35).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.metrics import calibration_slope_intercept
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 5000)
    >>> line = calibration_slope_intercept(rng.random(5000) < p, p)
    >>> round(line.slope, 3), round(line.intercept, 3), line.gradient_norm <= 1e-10
    (1.029, -0.031, True)
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    params = {"clip": clip, "tol": tol, "max_iter": max_iter}
    validate_params("calibration_slope_intercept", params, _LINE_CONSTRAINTS)
    return _calibration_line(y01, p, w, clip, tol, max_iter)


for _test in (ks_calibration_test, kuiper_calibration_test):
    if _test.__doc__:
        _test.__doc__ = _test.__doc__.replace("    CUMULATIVE\n", _CUMULATIVE_DOC).replace(
            "    SECTIONS\n", _CUMULATIVE_SECTIONS)
    fill(_test)


def _or_none(core, *args, notes=None, names=()):
    try:
        return core(*args)
    except ValueError as exc:  # undefined for these data: NaN in the evaluations, and why
        if notes is not None:
            notes.append(f"{' and '.join(names)} {'are' if len(names) > 1 else 'is'} nan: {exc}")
        return None


def diagnostic_values(prefix: str, y01, p, w, *, line: bool = True,
                      notes: list[str] | None = None) -> dict[str, float]:
    """The diagnostics of validated inputs as evaluation entries (NaN where undefined).

    Keys ``prefix`` + "spiegelhalter_z", "spiegelhalter_p", (with ``line``)
    "calibration_slope", "calibration_intercept", then "ks", "ks_p",
    "kuiper", "kuiper_p" and "smooth_ece".  ``notes``, if given, gets a
    sentence for each diagnostic that is NaN, saying why.
    """
    nan2 = (math.nan, math.nan)

    def tried(core, *names):
        return _or_none(core, y01, p, w, notes=notes,
                        names=[prefix + n for n in names]) or nan2

    values = dict(zip(("spiegelhalter_z", "spiegelhalter_p"),
                      tried(_spiegelhalter, "spiegelhalter_z", "spiegelhalter_p"), strict=True))
    if line:
        fit = _or_none(_calibration_line, y01, p, w, notes=notes,
                       names=[prefix + "calibration_slope", prefix + "calibration_intercept"])
        values["calibration_slope"], values["calibration_intercept"] = (
            (fit.slope, fit.intercept) if fit else nan2
        )
    for name, core in (("ks", _ks), ("kuiper", _kuiper)):
        values[name], values[f"{name}_p"] = tried(core, name, f"{name}_p")
    values["smooth_ece"] = _smooth_ece(y01, p, w)
    return {prefix + k: float(v) for k, v in values.items()}
