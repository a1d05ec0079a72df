"""Slow, literal twins of the bucket index of ``venncal._kernels.multiclass_lookup``.

The index by its definition (Python floats: the same IEEE operations, one
score at a time), and the look-up of every query by ``bisect`` on the whole
table, with no index at all.
"""

from __future__ import annotations

import bisect
import math


def bucket_scale(table) -> float:
    """``T / (last - first)``, or 0 when that is not a finite positive number."""
    T = len(table)
    span = table[-1] - table[0]
    if not (0.0 < span < math.inf):
        return 0.0
    scale = T / span
    return scale if scale < math.inf else 0.0


def bucket_of(v: float, first: float, scale: float, T: int) -> int:
    """``min(trunc((v - first) * scale), T - 1)`` (0 when the product is NaN)."""
    t = (v - first) * scale
    if t != t:
        return 0
    return min(int(t), T - 1) if t < math.inf else T - 1


def index_of(table):
    """``(first, scale, steps, bounds)`` of one table, by definition.

    ``bounds[k]``: the first position whose score's bucket is ``>= k``
    (``T`` if none), k = 0..T; ``steps``: the bit length of the largest
    number of scores in one bucket.
    """
    T = len(table)
    first = float(table[0])
    scale = bucket_scale(table)
    buckets = [bucket_of(float(v), first, scale, T) for v in table]
    bounds = []
    for k in range(T + 1):
        later = [pos for pos, f in enumerate(buckets) if f >= k]
        bounds.append(later[0] if later else T)
    widest = max(bounds[k + 1] - bounds[k] for k in range(T))
    return first, scale, widest.bit_length(), bounds


def lookup(table, F0, F1, v: float) -> tuple[float, float]:
    """The Venn-Abers pair of query ``v`` by ``bisect`` (``F0[-1] := 0``, ``F1[T] := 1``)."""
    pos = bisect.bisect_left(list(table), v)
    if pos < len(table) and table[pos] == v:
        return float(F0[pos]), float(F1[pos])
    return (float(F0[pos - 1]) if pos > 0 else 0.0), (float(F1[pos]) if pos < len(table) else 1.0)


def proba_column0(table, F0, F1, Q0, v: float, log_merge: bool) -> tuple[float, float]:
    """``(column 0, column 1)`` of one Venn-Abers calibrator's ``predict_proba`` at ``v``.

    By the definition of ``venncal.venn_abers.merge_with_complement`` for one
    predictor: ``(p0, p1)`` by :func:`lookup`, ``q0`` the entry of ``Q0`` at
    ``p0``'s position (1 below the table, where ``p0`` is 0); ``p`` the
    minimax merge; column 0 is ``1 - p`` where ``p <= 1/2``, else the merge of
    the complements: ``q0 / (q0 + p1)`` (log) or ``q0 + q1**2/2 - q0**2/2``
    with ``q1 = 1 - p1`` (Brier).  Python floats: the same IEEE operations;
    a zero denominator gives NaN, as numpy's division does.
    """
    p0, p1 = lookup(table, F0, F1, v)
    pos = bisect.bisect_left(list(table), v)
    at = pos if pos < len(table) and table[pos] == v else pos - 1
    q0 = float(Q0[at]) if at >= 0 else 1.0
    if log_merge:
        p = p1 / ((1.0 - p0) + p1)
    else:
        p = (p1 + (0.5 * p0) * p0) - (0.5 * p1) * p1
    if p <= 0.5:
        return 1.0 - p, p
    if log_merge:
        denominator = q0 + p1
        complement = q0 / denominator if denominator != 0.0 else math.nan
    else:
        q1 = 1.0 - p1
        complement = (q0 + (0.5 * q1) * q1) - (0.5 * q0) * q0
    return complement, p
