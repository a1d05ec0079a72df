"""Look-up of many Venn-Abers tables laid end to end, through a bucket index.

A fitted multiclass calibrator holds U tables (one per class or pair of
classes) of T_c sorted distinct scores each, searched n times each at
prediction.  A plain binary search costs ``log2(T)`` dependent loads per
query; a uniform grid over each table's range finds the right neighbourhood
with one multiplication, after which a binary search of one bucket (a few
entries for scores spread over their range; the whole table, as before, at
worst) finishes the job.

The index of table ``c`` (scores ``s[b:e]``, ``T = e - b``) has ``T`` buckets
over ``[s[b], s[e-1]]``:

    f(v) = min(trunc((v - s[b]) * scale), T - 1),   scale = T / (s[e-1] - s[b]),

and ``bounds[o + k]`` (``o = b + c``: table c's ``T + 1`` entries start there)
is the first position ``l`` with ``f(s[l]) >= k`` (``e`` if none).

Invariant: ``f`` is non-decreasing in ``v`` on ``[s[b], s[e-1]]`` (a rounded
subtraction, a rounded product by a positive number and the truncation of a
non-negative number are each monotone).  So for a query ``v`` in
``(s[b], s[e-1]]`` with ``f(v) = k``, every score before ``bounds[o + k]`` is
below ``v`` (its bucket is below ``v``'s) and every score from
``bounds[o + k + 1]`` on is above it: ``v``'s lower bound (the first
position with a score ``>= v``) lies in ``[bounds[o + k], bounds[o + k + 1]]``.
The index only narrows the search: the position found, and so every output,
is that of a search of the whole table, bit for bit.

A table of one score, or whose span or scale is not a finite positive
number (a span past the largest double, or one so small that ``T / span``
overflows), gets ``scale = 0``: a single bucket, the whole table.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit, jit_inline

__all__ = [
    "build_index",
    "index_lookup_columns",
    "index_proba_column0",
    "index_proba_columns",
    "table_index",
]


@jit_inline
def _bucket(v, first, scale, T):
    # f(v) of the module docstring, for v in [first, last].  With scale 0 the
    # product is 0, or NaN when v - first is past the largest double: bucket 0.
    t = (v - first) * scale
    if t < T:
        return int(t)
    if t >= T:
        return T - 1
    return 0


@jit
def build_index(s, starts, lo, scale, steps, bounds):
    """Fill the bucket index of U tables: ``lo``, ``scale``, ``steps`` (U,), ``bounds`` (len(s) + U,).

    ``s[starts[c]:starts[c + 1]]`` is table ``c`` (strictly increasing,
    finite, at least one score).  ``steps[c]``: the bit length of the largest
    number of scores in one bucket of table ``c``, the number of halvings
    that end every search of it.  See the module docstring for the rest.
    """
    U = starts.shape[0] - 1
    for c in range(U):
        b = starts[c]
        e = starts[c + 1]
        T = e - b
        o = b + c
        first = s[b]
        span = s[e - 1] - first
        sc = 0.0
        if span > 0.0 and span < np.inf:
            sc = T / span
            if not sc < np.inf:
                sc = 0.0
        lo[c] = first
        scale[c] = sc
        # Invariant at each l: bounds[o + j] is set for j <= k, it is the first
        # position whose bucket is >= j, and every score before l has bucket <= k.
        k = 0
        bounds[o] = b
        for l in range(b, e):
            f = _bucket(s[l], first, sc, T)
            while k < f:
                k += 1
                bounds[o + k] = l
        while k < T:
            k += 1
            bounds[o + k] = e
        widest = 0
        for k in range(T):
            widest = max(widest, bounds[o + k + 1] - bounds[o + k])
        h = 0
        while widest > 0:
            widest >>= 1
            h += 1
        steps[c] = h


@jit_inline
def _position(s, b, e, o, first, sc, h, bounds, v):
    # The first position in [b, e] whose score is >= v (e if none).  When
    # s[b] < v <= s[e - 1], the answer lies in [base, base + 2**h - 1] (a
    # bucket holds fewer than 2**h scores); the search halves that range h
    # times, the same number for every query of the table (no branch to
    # mispredict), reading s[min(l, e - 1)], which is >= v past the table.
    last = e - 1
    pos = b
    if v > s[b]:
        if v > s[last]:
            pos = e
        else:
            pos = bounds[o + _bucket(v, first, sc, e - b)]
            size = 1 << h
            for _ in range(h):
                size >>= 1
                if s[min(pos + size - 1, last)] < v:
                    pos += size
    return pos


@jit_inline
def _entries(s, b, e, c, lo, scale, steps, bounds, v):
    """``(i0, i1)``: the entries of table ``c`` (``s[b:e]``) that give ``p0`` and ``p1`` for ``v``.

    Both are the position of ``v`` if it is a calibration score; otherwise
    ``i0`` is the score below (``b - 1`` if none: ``p0 = 0``) and ``i1`` the
    score above (``e`` if none: ``p1 = 1``).
    """
    pos = _position(s, b, e, b + c, lo[c], scale[c], steps[c], bounds, v)
    if pos < e and s[pos] == v:
        return pos, pos
    return pos - 1, pos


@jit
def index_lookup_columns(s, F0, F1, starts, lo, scale, steps, bounds, queries, p0, p1):
    """:func:`venncal._kernels.multiclass.ivap_lookup_columns` through the bucket index.

    The same outputs bit for bit (the same position is found); ``lo``,
    ``scale``, ``steps``, ``bounds`` from :func:`build_index` of ``s``, ``starts``.
    """
    U, n = queries.shape
    for c in range(U):
        b, e = starts[c], starts[c + 1]
        for r in range(n):
            i0, i1 = _entries(s, b, e, c, lo, scale, steps, bounds, queries[c, r])
            p0[c, r] = F0[i0] if i0 >= b else 0.0
            p1[c, r] = F1[i1] if i1 < e else 1.0


@jit
def index_proba_columns(s, F0, F1, starts, lo, scale, steps, bounds, queries, log_merge, out):
    """:func:`venncal._kernels.multiclass.ivap_proba_columns` through the bucket index.

    ``log_merge``: ``p1 / (1 - p0 + p1)``, else ``p1 + p0**2/2 - p1**2/2``
    (the expressions of that kernel, so the outputs are the same bit for bit).
    """
    U, n = queries.shape
    for c in range(U):
        b, e = starts[c], starts[c + 1]
        for r in range(n):
            i0, i1 = _entries(s, b, e, c, lo, scale, steps, bounds, queries[c, r])
            p0 = F0[i0] if i0 >= b else 0.0
            p1 = F1[i1] if i1 < e else 1.0
            if log_merge:
                out[c, r] = p1 / (1.0 - p0 + p1)
            else:
                out[c, r] = p1 + 0.5 * p0 * p0 - 0.5 * p1 * p1


@jit
def index_proba_column0(s, F0, F1, Q0, starts, lo, scale, steps, bounds, queries, log_merge,
                        out, out0):
    """:func:`index_proba_columns` into ``out`` and each table's column 0 into ``out0``, one search.

    ``Q0``: ``1 - F0`` computed from the weights (the IVAP tables' ``q0_``),
    laid out as ``F0``.  ``out0`` is a ``VennAbersCalibrator``'s
    ``predict_proba[:, 0]`` bit for bit (``merge_with_complement`` of one
    predictor): with ``p = out[c, r]``, ``1 - p`` where ``p <= 1/2``, else
    from ``q0``, the entry of ``Q0`` at ``p0``'s position (1 below the
    table, where ``p0 = 0``): ``q0 / (q0 + p1)`` (``log_merge``), else
    ``q0 + q1**2/2 - q0**2/2`` with ``q1 = 1 - p1``.
    """
    U, n = queries.shape
    for c in range(U):
        b, e = starts[c], starts[c + 1]
        for r in range(n):
            i0, i1 = _entries(s, b, e, c, lo, scale, steps, bounds, queries[c, r])
            if i0 >= b:
                p0 = F0[i0]
                q0 = Q0[i0]
            else:
                p0 = 0.0
                q0 = 1.0
            p1 = F1[i1] if i1 < e else 1.0
            # both formulas, then a select: no branch on p to mispredict
            if log_merge:
                p = p1 / (1.0 - p0 + p1)
                complement = q0 / (q0 + p1)
            else:
                p = p1 + 0.5 * p0 * p0 - 0.5 * p1 * p1
                q1 = 1.0 - p1
                complement = q0 + 0.5 * q1 * q1 - 0.5 * q0 * q0
            out[c, r] = p
            out0[c, r] = 1.0 - p if p <= 0.5 else complement


def table_index(s, starts) -> tuple:
    """``(lo, scale, steps, bounds)``: the bucket index of the tables (:func:`build_index`)."""
    U = starts.shape[0] - 1
    index = (np.empty(U), np.empty(U), np.empty(U, dtype=np.intp),
             np.empty(s.shape[0] + U, dtype=np.intp))
    build_index(s, starts, *index)
    return index
