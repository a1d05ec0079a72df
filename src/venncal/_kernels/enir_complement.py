"""ENIR's class-0 table: the averaged smoothed complements, with full relative precision.

Where ENIR's probability ``p`` is near 1, ``1 - p`` keeps no relative
precision (and is ``2**-53`` where ``p`` is clipped).  The complement of each
model's smoothed bin value is computed from the bin's own negative weight
and averaged as a sum of non-negative terms (:func:`enir_complement_table`),
the twin of :func:`~venncal._kernels.neariso.enir_table`'s ``p`` (literal
twin: ``tests/reference/enir_naive.py``).
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit
from .neariso import neariso_groups_at

__all__ = ["enir_complement_table", "group_sums"]


@jit
def group_sums(leaf, left, right):
    """Return the sum of ``leaf`` (one value per point) over every group of the merge tree.

    Leaves ``0..k-1`` are the points; a merged group ``c >= k`` sums its two
    children, which have smaller ids (so one pass in id order does), with
    the same one rounding per merge as the path's own ``A`` and ``W``.
    """
    k = leaf.shape[0]
    m = left.shape[0]
    out = np.empty(m)
    for i in range(k):
        out[i] = leaf[i]
    for c in range(k, m):
        out[c] = out[left[c]] + out[right[c]]
    return out


@jit
def _smoothed_complement(B, W, d, g, lam, strength, q, shift):
    """The smoothed complement ``(W c + strength q) / (W + strength)`` of group ``g`` at ``lam``.

    ``c = 1 - clip(beta_g(lam))``, from the group's own negative weight:
    ``1 - (A + lam d) / W = (B - lam d) / W``.  With ``shift`` (the sums are
    those of the weights times ``2**-shift``) it is ``(c + x q) / (1 + x)``
    with ``x = strength / (W 2**shift)`` (or, for ``x > 1``, ``(y c + q) /
    (y + 1)`` with ``y = 1 / x``): sums of non-negative terms, no
    cancellation, no overflow.
    """
    c = min(max((B[g] - lam * d[g]) / W[g], 0.0), 1.0)
    if shift == 0:
        return (W[g] * c + strength * q) / (W[g] + strength)
    x = math.ldexp(strength / W[g], -shift)
    if x <= 1.0:
        return (c + x * q) / (1.0 + x)
    y = math.ldexp(W[g] / strength, shift)
    return (y * c + q) / (y + 1.0)


@jit
def enir_complement_table(k, lams, weights, strength, prior_c, roots, B, W, d, birth, left,
                          right, shift=0):
    """Average the models' smoothed complements ``1 - p~`` at the ``k`` points.

    As :func:`enir_table`, for the complement of each smoothed group value,
    computed from the group's negative weight sum ``B`` and the prior
    complement ``prior_c`` (by group id) so that it keeps its relative
    precision where ``p~`` is near 1.  No running sum of differences: each
    model adds ``weights[t]`` times its value to the group it lives in, and
    the value at a point is the sum over the groups that contain it (its
    ancestors in the merge tree, leaf to root), a sum of non-negative terms,
    one per model at most, so the relative rounding is at most a few units
    of ``2**-53`` per model.  O(m + sum of groups).  Returns the values and
    the smallest and largest smoothed complement averaged.
    """
    m = B.shape[0]
    per_group = np.zeros(m)
    ids = np.empty(m, dtype=np.int64)
    lo = np.inf
    hi = -np.inf
    for t in range(lams.shape[0]):
        if weights[t] == 0.0:
            continue
        n = neariso_groups_at(lams[t], roots, birth, left, right, ids)
        for j in range(n):
            g = ids[j]
            c = _smoothed_complement(B, W, d, g, lams[t], strength, prior_c[g], shift)
            lo = min(lo, c)
            hi = max(hi, c)
            per_group[g] += weights[t] * c
    # Parents have larger ids than their children: from the top down, each
    # group adds the total of its ancestors (the models at larger lam).
    total = np.zeros(m)
    for c in range(m - 1, k - 1, -1):
        total[c] += per_group[c]
        total[left[c]] += total[c]
        total[right[c]] += total[c]
    out = np.empty(k)
    for i in range(k):
        out[i] = total[i] + per_group[i]
    return out, lo, hi
