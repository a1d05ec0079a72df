"""Slow, literal reference twins of the venncal kernels and estimators.

Everything here follows the textbook definitions as directly as possible and
favours obviousness over speed (plain loops, quadratic or worse).  All
arithmetic on weights and values is exact: every float64 is converted to a
``fractions.Fraction`` (which represents it exactly) and results are rounded to
float64 once, at the very end.

Definitions (Vovk, Petej & Fedorova 2015, section 2; Vovk & Petej 2014, proof of Lemma 1):

* Isotonic regression of points ``(x_i, y_i)`` with weights ``w_i > 0``: take
  the distinct ``x`` in increasing order, pool the points with equal ``x`` into
  one cell with ratio ``sum(w*y) / sum(w)``, then repeatedly find two adjacent
  cells whose ratios violate the order (left > right) and merge them (adding
  numerators and denominators) until the cell ratios are non-decreasing.
* IVAP: ``p0`` (``p1``) at a test score ``t`` is the value at ``t`` of the
  isotonic regression of the calibration data plus ``(t, 0)`` (``(t, 1)``) of
  weight 1.  Zero-weight calibration points are left out.
* Merges: log-minimax ``p1 / (1 - p0 + p1)``; Brier ``p1 + p0^2/2 - p1^2/2``;
  CVAP ``GM(p1) / (GM(1 - p0) + GM(p1))`` over the folds, or for Brier the mean
  of the per-fold Brier merges.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = [
    "assert_within_ulps",
    "brier_minimax",
    "cvap_interval",
    "cvap_merge",
    "isotonic_fit",
    "isotonic_value_at",
    "ivap_by_definition",
    "ivap_from_summary",
    "log_minimax",
    "pava_by_definition",
    "summary_by_definition",
]


def _exact(v):
    """Exact rational value of a float64 (or int / bool / Fraction)."""
    if isinstance(v, Fraction):
        return v
    if isinstance(v, (bool, np.bool_)):
        return Fraction(int(v))
    if isinstance(v, (int, np.integer)):
        return Fraction(int(v))
    f = float(v)
    if not math.isfinite(f):
        raise ValueError(f"non-finite value {f!r}")
    return Fraction(f)


def assert_within_ulps(got, exact, ulps=0):
    """Assert that each float of ``got`` is within ``ulps`` ulps of the exact value.

    ``exact`` holds exact rationals (Fractions, ints or floats); the distance
    is measured exactly, in units of the last place of the correctly rounded
    exact value (``ulps=0``: ``got`` is the correctly rounded value).
    """
    got = np.asarray(got, dtype=np.float64).ravel()
    exact = [_exact(v) for v in exact]
    assert got.shape[0] == len(exact), (got.shape, len(exact))
    for i, (g, e) in enumerate(zip(got.tolist(), exact, strict=True)):
        rounded = float(e)
        if ulps == 0:
            assert g == rounded, f"entry {i}: got {g!r}, correctly rounded {rounded!r} ({e})"
            continue
        distance = abs(Fraction(g) - e) / Fraction(math.ulp(rounded))
        assert distance <= ulps, f"entry {i}: got {g!r}, exact {rounded!r}: {float(distance):.3g} ulps"


def _literal_pava(cells):
    """Merge adjacent violators of ``cells`` until their ratios are sorted.

    ``cells`` is a list of ``[num, den, members]`` (exact ``num``, ``den > 0``),
    in the order of the ``x`` axis.  Each pass scans from the left for the
    first pair of adjacent cells with ``num/den`` of the left one strictly
    greater than that of the right one, merges it, and starts over.
    """
    cells = [[num, den, list(members)] for num, den, members in cells]
    while True:
        for j in range(len(cells) - 1):
            left, right = cells[j], cells[j + 1]
            if left[0] / left[1] > right[0] / right[1]:
                merged = [left[0] + right[0], left[1] + right[1], left[2] + right[2]]
                cells[j : j + 2] = [merged]
                break
        else:
            return cells


def pava_by_definition(num, den, exact=False):
    """Isotonic fit of ordered points given as sums (twin of ``pava_fit``).

    Point ``i`` has weighted sum ``num[i]`` and weight ``den[i] > 0``, i.e.
    value ``num[i] / den[i]``; points are distinct and already in order.
    Returns the fitted value of every point (Fractions when ``exact``).
    """
    if len(num) != len(den):
        raise ValueError("num and den differ in length")
    cells = []
    for i, (n, d) in enumerate(zip(num, den, strict=True)):
        n, d = _exact(n), _exact(d)
        if d <= 0:
            raise ValueError("den must be positive")
        cells.append([n, d, [i]])
    out = [None] * len(cells)
    for n, d, members in _literal_pava(cells):
        for i in members:
            out[i] = n / d
    if exact:
        return out
    return np.array([float(v) for v in out], dtype=np.float64)


def _isotonic_exact(x, y, w=None):
    """Exact isotonic fit of points ``(x, y)`` with weights ``w > 0``."""
    x = [float(v) for v in x]
    y = [_exact(v) for v in y]
    w = [Fraction(1)] * len(x) if w is None else [_exact(v) for v in w]
    if not (len(x) == len(y) == len(w)):
        raise ValueError("x, y and w differ in length")
    if any(v <= 0 for v in w):
        raise ValueError("weights must be positive")
    if any(not math.isfinite(v) for v in x):
        raise ValueError("x must be finite")
    # Pool equal x (note -0.0 == 0.0) into one cell: (sum w*y, sum w).
    distinct = []
    for v in sorted(x):
        if not distinct or distinct[-1] != v:
            distinct.append(v)
    cells = []
    for v in distinct:
        members = [i for i in range(len(x)) if x[i] == v]
        num = sum((w[i] * y[i] for i in members), Fraction(0))
        den = sum((w[i] for i in members), Fraction(0))
        cells.append([num, den, members])
    out = [None] * len(x)
    for num, den, members in _literal_pava(cells):
        for i in members:
            out[i] = num / den
    return out


def isotonic_fit(x, y, w=None):
    """Fitted value of the weighted isotonic regression at every input point."""
    return np.array([float(v) for v in _isotonic_exact(x, y, w)], dtype=np.float64)


def isotonic_value_at(x, y, w, t, exact=False):
    """Value at ``t`` (one of the ``x``) of the isotonic regression of the points."""
    fit = _isotonic_exact(x, y, w)
    t = float(t)
    for xi, fi in zip(x, fit, strict=True):
        if float(xi) == t:
            return fi if exact else float(fi)
    raise ValueError(f"{t!r} is not one of the x")


def _calibration_points(cal_scores, cal_y01, cal_w):
    if any(v not in (0, 1) for v in np.asarray(cal_y01).ravel().tolist()):
        raise ValueError("labels must be 0/1 or bool")
    s = [float(v) for v in np.asarray(cal_scores, dtype=np.float64).ravel()]
    y = [int(bool(v)) for v in np.asarray(cal_y01).ravel()]
    if cal_w is None:
        w = [Fraction(1)] * len(s)
    else:
        w = [_exact(v) for v in np.asarray(cal_w, dtype=np.float64).ravel()]
    if not (len(s) == len(y) == len(w)):
        raise ValueError("calibration arrays differ in length")
    if any(v < 0 for v in w):
        raise ValueError("negative weight")
    keep = [i for i in range(len(s)) if w[i] > 0]  # zero weight: no effect
    return [s[i] for i in keep], [y[i] for i in keep], [w[i] for i in keep]


def _ivap_exact(s, y, w, test_scores):
    # s: list of float, y: list of 0/1, w: list of Fraction > 0.
    p0, p1 = [], []
    for t in np.asarray(test_scores, dtype=np.float64).ravel():
        t = float(t)
        p0.append(isotonic_value_at([*s, t], [*y, 0], [*w, Fraction(1)], t, exact=True))
        p1.append(isotonic_value_at([*s, t], [*y, 1], [*w, Fraction(1)], t, exact=True))
    return p0, p1


def _to_float(p0, p1):
    return (
        np.array([float(v) for v in p0], dtype=np.float64),
        np.array([float(v) for v in p1], dtype=np.float64),
    )


def ivap_by_definition(cal_scores, cal_y01, cal_w, test_scores, exact=False):
    """IVAP pair ``(p0, p1)`` for every test score, refitting each time.

    ``cal_w`` may be None (unit weights).  Returns two float64 arrays (lists
    of Fractions when ``exact``).
    """
    s, y, w = _calibration_points(cal_scores, cal_y01, cal_w)
    p0, p1 = _ivap_exact(s, y, w, test_scores)
    return (p0, p1) if exact else _to_float(p0, p1)


def ivap_from_summary(s, w, a, test_scores, exact=False, b=None):
    """IVAP by definition for a summary: weight ``a`` labelled 1 and ``w - a`` labelled 0 at ``s``.

    With ``b``, weight ``b`` labelled 0 (``w`` is then not used).
    """
    scores, labels, weights = [], [], []
    negatives = [None] * len(s) if b is None else b
    for sj, wj, aj, bj in zip(s, w, a, negatives, strict=True):
        wj, aj = _exact(wj), _exact(aj)
        bj = wj - aj if bj is None else _exact(bj)
        for label, weight in ((1, aj), (0, bj)):
            if weight > 0:
                scores.append(float(sj))
                labels.append(label)
                weights.append(weight)
    p0, p1 = _ivap_exact(scores, labels, weights, test_scores)
    return (p0, p1) if exact else _to_float(p0, p1)


def log_minimax(p0, p1):
    """Log-loss minimax merge ``p1 / (1 - p0 + p1)`` (Vovk & Petej 2014, eq. (10))."""
    p0 = np.atleast_1d(np.asarray(p0, dtype=np.float64))
    p1 = np.atleast_1d(np.asarray(p1, dtype=np.float64))
    return np.array([b / (1.0 - a + b) for a, b in zip(p0.tolist(), p1.tolist(), strict=True)])


def brier_minimax(p0, p1):
    """Brier-loss minimax merge ``p1 + p0**2/2 - p1**2/2`` (Vovk & Petej 2014, eq. (11))."""
    p0 = np.atleast_1d(np.asarray(p0, dtype=np.float64))
    p1 = np.atleast_1d(np.asarray(p1, dtype=np.float64))
    return np.array(
        [b + a * a / 2.0 - b * b / 2.0 for a, b in zip(p0.tolist(), p1.tolist(), strict=True)]
    )


def _geometric_mean(values):
    if any(v == 0.0 for v in values):
        return 0.0
    return math.exp(math.fsum(math.log(v) for v in values) / len(values))


def cvap_merge(p0s, p1s, merge="log"):
    """Merge ``K`` IVAP pairs per test object (arrays of shape ``(K, n)``) into ``p``."""
    p0s = np.asarray(p0s, dtype=np.float64)
    p1s = np.asarray(p1s, dtype=np.float64)
    if p0s.ndim != 2 or p0s.shape != p1s.shape:
        raise ValueError("p0s and p1s must both have shape (K, n)")
    K, n = p0s.shape
    out = []
    for j in range(n):
        col0 = [float(p0s[k, j]) for k in range(K)]
        col1 = [float(p1s[k, j]) for k in range(K)]
        if merge == "log":
            g1 = _geometric_mean(col1)
            g0 = _geometric_mean([1.0 - v for v in col0])
            out.append(g1 / (g0 + g1))
        elif merge == "brier":
            out.append(
                math.fsum(b + a * a / 2.0 - b * b / 2.0 for a, b in zip(col0, col1, strict=True))
                / K
            )
        else:
            raise ValueError(f"unknown merge {merge!r}")
    return np.array(out, dtype=np.float64)


def cvap_interval(p0s, p1s):
    """CVAP interval ``(1 - GM(1 - p0), GM(p1))`` per test object, shape ``(n, 2)``."""
    p0s = np.asarray(p0s, dtype=np.float64)
    p1s = np.asarray(p1s, dtype=np.float64)
    K, n = p0s.shape
    out = np.empty((n, 2))
    for j in range(n):
        out[j, 0] = 1.0 - _geometric_mean([1.0 - float(p0s[k, j]) for k in range(K)])
        out[j, 1] = _geometric_mean([float(p1s[k, j]) for k in range(K)])
    return out


def summary_by_definition(scores, y01, w=None, exact=False):
    """Distinct scores of positive weight with their total and positive weight.

    Returns ``(s, w, a)`` as float64 arrays sorted by score (Fractions for
    ``w`` and ``a`` when ``exact``).  Equal scores (including ``-0.0`` and
    ``0.0``) are pooled; zero-weight observations are left out.
    """
    scores = [float(v) for v in np.asarray(scores, dtype=np.float64).ravel()]
    labels = [bool(v) for v in np.asarray(y01).ravel()]
    weights = [Fraction(1)] * len(scores) if w is None else [_exact(v) for v in np.ravel(w)]
    totals = {}
    for s, y, wt in zip(scores, labels, weights, strict=True):
        if wt == 0:
            continue
        key = 0.0 if s == 0.0 else s  # one key for -0.0 and 0.0
        total, positive = totals.get(key, (Fraction(0), Fraction(0)))
        totals[key] = (total + wt, positive + (wt if y else Fraction(0)))
    keys = sorted(totals)
    if exact:
        return keys, [totals[k][0] for k in keys], [totals[k][1] for k in keys]
    return (
        np.array(keys, dtype=np.float64),
        np.array([float(totals[k][0]) for k in keys], dtype=np.float64),
        np.array([float(totals[k][1]) for k in keys], dtype=np.float64),
    )
