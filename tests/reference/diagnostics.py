"""Literal twins of venncal.metrics._diagnostics, ._smooth and ._bootstrap: plain loops.

Each twin is the definition written out one row at a time (``math.fsum``
sums of the rows of positive weight), independent of the vectorised code:

- Spiegelhalter's z: the two sums of the rows' terms, the numerator's
  ``w (y - p)(1 - 2p)`` exact (fractions), the denominator's the product of
  floats rounded to 53 bits after each multiplication with no bound on the
  exponent (never subnormal), summed exactly (fractions), each sum rounded once,
  and the normal tail;
- calibration slope and intercept: the score equations solved by bisection
  (nested for the two-parameter fit: the profile score in the slope is
  monotone), not Newton;
- KS and Kuiper: the cumulative deviation ``C(v) = sum_{p_i <= v} w_i (y_i - p_i)``
  at each distinct ``v``, computed afresh for each ``v`` (``O(n**2)``; ties
  in ``p`` give one point of the path by definition), each term
  ``w_i (y_i - p_i)`` and the sum exact (fractions), rounded once; the
  variance ``sum w_i q_i`` (``q_i`` the float ``p_i (1 - p_i)``) likewise; the
  kernels' twins :func:`run_sums` and :func:`exact_dot`; their p-values by
  other series (the theta series of ``sup |B|`` for small arguments, and a
  quadrature of Feller's density of the range);
- smooth ECE: the reflected Gaussian kernel summed over its images for
  every row and every point of a fine grid (``O(n G)``), trapezoidal rule,
  bisection for the fixed point.
"""

from __future__ import annotations

import math
from fractions import Fraction


def _shift(w) -> int:
    """The power of two the weights are multiplied by: the largest to about 2**960.

    Exact (a power of two) and far from both ends of the float64 range, so that
    weights 2**53 beside 1e-300 keep every digit (divided by the largest, the
    small one would be subnormal and lose digits).
    """
    return 960 - math.frexp(max(w))[1]


def _rows(y, p, w):
    w = [1.0] * len(p) if w is None else list(w)
    k = _shift(w)
    return [(float(bool(yi)), float(pi), math.ldexp(wi, k)) for yi, pi, wi in zip(y, p, w)
            if wi > 0]


def _unbounded(q):
    """``(m, e)``: the rational ``q`` rounded to 53 significant bits (ties to even) with no
    bound on its exponent, ``m`` in [0.5, 1] a float (1 when rounding carries), ``value = m * 2**e``."""
    q = Fraction(q)
    if q == 0:
        return 0.0, 0
    e = abs(q.numerator).bit_length() - abs(q.denominator).bit_length()
    while abs(q) >= Fraction(2) ** e:  # 2**(e-1) <= |q| < 2**e
        e += 1
    while abs(q) < Fraction(2) ** (e - 1):
        e -= 1
    return float(q / Fraction(2) ** e), e  # Fraction -> float: correctly rounded, normal


def _term(*factors):
    """The product of the float factors, left to right, each product rounded to 53 bits with
    no bound on the exponent (what float64 gives in its normal range), as a Fraction."""
    value = Fraction(float(factors[0]))
    for f in factors[1:]:
        m, e = _unbounded(value * Fraction(float(f)))
        value = Fraction(m) * Fraction(2) ** e
    return value


def _over_root(num, den):
    """``num / sqrt(den)`` of two rationals, each rounded once to 53 bits first, then the
    mantissas' quotient by the root of the one (``den``'s exponent made even) rounded as float64
    rounds it, then scaled by the power of two (inf past the float64 range)."""
    nm, ne = _unbounded(num)
    dm, de = _unbounded(den)
    if de % 2:
        dm, de = 2 * dm, de - 1
    q = nm / math.sqrt(dm)
    try:
        return math.ldexp(q, ne - de // 2)
    except OverflowError:
        return math.copysign(math.inf, q)


def _rows_as_given(y, p, w):
    w = [1.0] * len(p) if w is None else list(w)
    return [(float(bool(yi)), float(pi), float(wi)) for yi, pi, wi in zip(y, p, w) if wi > 0]


def spiegelhalter(y, p, w=None):
    """z from the rows' terms (the numerator's exact, the denominator's each rounded to 53 bits
    whatever its exponent), each sum exact."""
    rows = _rows_as_given(y, p, w)
    num = sum((Fraction(wi) * (Fraction(yi) - Fraction(pi)) * (1 - 2 * Fraction(pi))
               for yi, pi, wi in rows), Fraction(0))
    den = sum((_term(wi, (1 - 2 * pi) ** 2, pi, 1 - pi) for yi, pi, wi in rows), Fraction(0))
    if den == 0:
        raise ValueError("variance 0")
    z = _over_root(num, den)
    return z, 2 * 0.5 * math.erfc(abs(z) / math.sqrt(2))


def _sigmoid(t):
    return 1 / (1 + math.exp(-t)) if t >= 0 else math.exp(t) / (1 + math.exp(t))


def _residual(t, yi):
    """``sigmoid(t) - y``, as ``-sigmoid(-t)`` for ``y = 1`` (no cancellation near 1)."""
    return -_sigmoid(-t) if yi else _sigmoid(t)


def _root(f, lo, hi, steps=200):
    """The root of an increasing ``f`` on ``[lo, hi]`` by bisection."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if f(mid) > 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def slope_intercept(y, p, w=None, clip=None):
    rows = _rows(y, p, w)

    def logit(pi):  # p clipped to [clip, 1 - clip] (exact comparisons), on the logit scale
        if clip is not None and pi < clip:
            return math.log(clip / (1 - clip))
        if clip is not None and 1 - Fraction(pi) < Fraction(clip):
            return -math.log(clip / (1 - clip))
        return math.log(pi / (1 - pi))

    xs = [(yi, logit(pi), wi) for yi, pi, wi in rows]

    def score_a(a, b):  # derivative of the weighted negative log-likelihood in a
        return math.fsum(wi * _residual(a + b * x, yi) for yi, x, wi in xs)

    intercept = _root(lambda a: score_a(a, 1.0), -60, 60)

    def best_a(b):
        return _root(lambda a: score_a(a, b), -400, 400)

    def score_b(b):
        a = best_a(b)
        return math.fsum(wi * _residual(a + b * x, yi) * x for yi, x, wi in xs)

    slope = _root(score_b, -50, 50, steps=100)
    return slope, intercept, best_a(slope)


def _path(y, p, w):
    rows = _rows_as_given(y, p, w)
    var = sum((Fraction(wi) * Fraction(pi * (1 - pi)) for _, pi, wi in rows), Fraction(0))
    if var == 0:
        raise ValueError("sigma 0")
    path = [0.0]
    for v in sorted({pi for _, pi, _ in rows}):
        c = sum((Fraction(wi) * (Fraction(yi) - Fraction(pi)) for yi, pi, wi in rows if pi <= v),
                Fraction(0))
        path.append(0.0 if c == 0 else _over_root(c, var))
    return path


def run_sums(r, last):
    """The twin of ``venncal._kernels.exact_sum.run_sums``: exact prefix sums, rounded once."""
    out = []
    for j in last:
        out.append(float(sum((Fraction(float(x)) for x in r[: int(j) + 1]), Fraction(0))))
    return out


def exact_dot(a, b):
    """The twin of ``venncal._kernels.exact_sum.exact_dot``: exact products, sum rounded once."""
    return float(sum((Fraction(float(x)) * Fraction(float(y)) for x, y in zip(a, b)),
                     Fraction(0)))


def bin_residuals(ids, w, y, p, n_bins, scale):
    """The twin of ``venncal._kernels.exact_sum.bin_residuals``: per bin, the exact
    ``scale * sum w_i (y_i - p_i)`` in fractions, rounded once."""
    sums = [Fraction(0)] * n_bins
    for k, wi, yi, pi in zip(ids, w, y, p):
        sums[int(k)] += Fraction(float(scale)) * Fraction(float(wi)) * (
            Fraction(float(yi)) - Fraction(float(pi)))
    return [float(s) for s in sums]


def brownian_max_sf(x):
    if x < 0.1:  # P(max |B| < 0.1) < 1e-50
        return 1.0
    if x < 1.5:  # P(max |B| < x) by the theta series (Feller 1971, X.5)
        below = 4 / math.pi * math.fsum(
            (-1) ** k / (2 * k + 1) * math.exp(-((2 * k + 1) ** 2) * math.pi**2 / (8 * x * x))
            for k in range(60)
        )
        return 1 - below
    return 4 * math.fsum((-1) ** (k + 1) * 0.5 * math.erfc((2 * k - 1) * x / math.sqrt(2))
                         for k in range(1, 60))


def brownian_range_sf(x):
    from scipy.integrate import quad

    def density(r):
        return 8 * math.fsum((-1) ** (k - 1) * k * k * math.exp(-0.5 * (k * r) ** 2)
                             for k in range(1, 400)) / math.sqrt(2 * math.pi)

    if x < 0.3:
        return 1.0
    if x >= 60:
        return 0.0
    return quad(density, x, 60, limit=400, epsabs=1e-15, epsrel=1e-12)[0]


def ks(y, p, w=None):
    stat = max(abs(c) for c in _path(y, p, w))
    return stat, brownian_max_sf(stat)


def kuiper(y, p, w=None):
    path = _path(y, p, w)
    stat = max(path) - min(path)
    return stat, brownian_range_sf(stat)


def _kernel(t, f, sigma):
    """The reflected Gaussian kernel at the points ``t`` (an array) for one row at ``f``."""
    import numpy as np

    total = np.zeros_like(t)
    for k in range(-3, 4):
        for image in (f + 2 * k, -f + 2 * k):
            total += np.exp(-0.5 * ((t - image) / sigma) ** 2)
    return total / (sigma * math.sqrt(2 * math.pi))


def smece_sigma(y, p, sigma, w=None, grid=2000):
    import numpy as np

    rows = _rows(y, p, w)
    total = math.fsum(wi for _, _, wi in rows)
    t = np.arange(grid + 1) / grid
    acc = np.zeros_like(t)
    for yi, pi, wi in rows:  # one row at a time
        acc += wi * (yi - pi) * _kernel(t, pi, sigma)
    values = np.abs(acc) / total
    return (math.fsum(values) - 0.5 * (values[0] + values[-1])) / grid


def smooth_ece(y, p, w=None, grid=2000, steps=30):
    lo, hi = 0.0, 1.0
    if all(yi == pi for yi, pi, _ in _rows(y, p, w)):
        return 0.0
    for _ in range(steps):
        mid = (lo + hi) / 2
        if smece_sigma(y, p, mid, w, grid) > mid:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def percentile_interval(values, confidence):
    """The percentile interval of bootstrap replicates (linear interpolation, as numpy)."""
    v = sorted(x for x in values if x == x)
    lo_q, hi_q = (1 - confidence) / 2, (1 + confidence) / 2

    def q(level):
        pos = level * (len(v) - 1)
        i = math.floor(pos)
        j = min(i + 1, len(v) - 1)
        return v[i] + (pos - i) * (v[j] - v[i])

    return q(lo_q), q(hi_q)
