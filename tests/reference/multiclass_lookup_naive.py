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
