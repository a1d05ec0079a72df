"""Literal twins of venncal.metrics._multiclass: plain loops over the definitions.

Plain Python, one row at a time, with exact ``Fraction`` sums (only the
logarithm of the log loss is a float), so each twin is the definition
itself: the tests compare the vectorised metrics with these.

Binning, as the documented rules say: uniform bin ``b`` is
``[b/B, (b+1)/B)`` with the edge ``(b+1)/B`` the correctly rounded float
(a value on an edge goes up; 1 is in the last bin); quantile bin of a value
``v`` is ``ceil(B * m(p <= v) / m) - 1`` over the rows of positive weight.
Rows of zero weight are left out everywhere.
"""

from __future__ import annotations

import math
from fractions import Fraction


def _rows(y, proba, classes, w):
    """(true column, row, weight) of the rows of positive weight."""
    w = [1.0] * len(y) if w is None else list(w)
    out = []
    for yi, row, wi in zip(y, proba, w, strict=True):
        if wi > 0:
            out.append((list(classes).index(yi), [float(v) for v in row], Fraction(wi)))
    return out


def log_loss(y, proba, classes, w=None) -> float:
    num = den = Fraction(0)
    for k, row, wi in _rows(y, proba, classes, w):
        if row[k] == 0.0:
            return math.inf
        num += wi * Fraction(-math.log(row[k]))
        den += wi
    return float(num / den)


def brier(y, proba, classes, w=None) -> float:
    num = den = Fraction(0)
    for k, row, wi in _rows(y, proba, classes, w):
        err = Fraction(0)
        for j, pj in enumerate(row):
            err += (Fraction(1 if j == k else 0) - Fraction(pj)) ** 2
        num += wi * err
        den += wi
    return float(num / den)


def first_argmax(row) -> int:
    best = 0
    for j in range(1, len(row)):
        if row[j] > row[best]:
            best = j
    return best


def _uniform_bin(v: float, n_bins: int) -> int:
    b = 0
    while b < n_bins - 1 and v >= (b + 1) / n_bins:
        b += 1
    return b


def _mass_upto(pairs) -> dict:
    """Each value's ``m(p <= v)``: the total weight of the values up to it."""
    upto, running = {}, Fraction(0)
    for v, wi in sorted(pairs):
        running += wi
        upto[v] = running
    return upto


def _quantile_bin(v: float, upto: dict, n_bins: int) -> int:
    total = max(upto.values())
    return math.ceil(n_bins * upto[v] / total) - 1


def binned_errors(pairs_y, n_bins: int, strategy: str, min_bin_count=None):
    """(ECE, MCE) of [(forecast, outcome 0/1, weight)], by the definitions."""
    upto = _mass_upto([(v, wi) for v, _, wi in pairs_y])
    weight = [Fraction(0)] * n_bins
    sum_p = [Fraction(0)] * n_bins
    sum_y = [Fraction(0)] * n_bins
    for v, outcome, wi in pairs_y:
        b = _uniform_bin(v, n_bins) if strategy == "uniform" else _quantile_bin(v, upto, n_bins)
        weight[b] += wi
        sum_p[b] += wi * Fraction(v)
        sum_y[b] += wi * outcome
    total = sum(weight)
    ece = Fraction(0)
    gaps = []
    for b in range(n_bins):
        if weight[b] > 0:
            gap = abs(sum_y[b] / weight[b] - sum_p[b] / weight[b])
            ece += weight[b] / total * gap
            if min_bin_count is None or weight[b] >= Fraction(min_bin_count):
                gaps.append(gap)
    return float(ece), (float(max(gaps)) if gaps else math.nan)


def top_label_errors(y, proba, classes, n_bins=10, strategy="uniform", w=None,
                     min_bin_count=None):
    pairs = []
    for k, row, wi in _rows(y, proba, classes, w):
        j = first_argmax(row)
        pairs.append((row[j], 1 if j == k else 0, wi))
    return binned_errors(pairs, n_bins, strategy, min_bin_count)


def classwise_ece(y, proba, classes, n_bins=10, strategy="uniform", w=None) -> float:
    rows = _rows(y, proba, classes, w)
    total = Fraction(0)
    for c in range(len(classes)):
        pairs = [(row[c], 1 if k == c else 0, wi) for k, row, wi in rows]
        total += Fraction(binned_errors(pairs, n_bins, strategy)[0])
    return float(total / len(classes))


def accuracy(y, proba, classes, w=None) -> float:
    num = den = Fraction(0)
    for k, row, wi in _rows(y, proba, classes, w):
        num += wi * (1 if first_argmax(row) == k else 0)
        den += wi
    return float(num / den)
