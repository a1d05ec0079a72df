"""ENIR's per-model kernels that keep full relative precision: the BIC and the two tables.

**BIC.**  A bin's log-likelihood ``A log v + B log(1 - v)`` (positive and
negative weight ``A``, ``B``) is computed from both classes' own sums
(:func:`_bin_loglik`): the log of the smaller class's ratio directly, the
larger one's as ``log1p`` of minus the smaller ratio, never ``log(1 - v)``
of a rounded ``v`` (at a bin of weight ``1e17`` beside unit weights, ``v``
rounded to 1 and the BIC lost tens of nats).  Literal twin:
``tests/reference/enir_naive.py`` (``exact_bic``).

**Tables.**  Where ENIR's probability ``p`` is near 1, ``1 - p`` keeps no relative
precision (and is ``2**-53`` where ``p`` is clipped).  The complement of each
model's smoothed bin value is computed from the bin's own negative weight
and averaged as a sum of non-negative terms (:func:`enir_complement_table`;
literal twin: ``tests/reference/enir_naive.py``).  The same kernel on the
positive weights (slopes negated) gives ``p`` itself, each point's own sum
over the models: a running sum of jumps kept no relative precision for a
small ``p`` between large ones.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline
from .neariso import neariso_groups_at

__all__ = ["bin_logliks", "enir_bic", "enir_complement_table", "group_sums"]

# The smallest positive normal float64: a ratio below it has lost relative precision.
_TINY = 2.0**-1022
# A prior strength in this range beside unscaled weights (within 2**+-400, see
# venncal.enir.calibrator._scale_shift) gives sums and products in the normal range.
_MODERATE_LOW = 2.0**-400
_MODERATE_HIGH = 2.0**400


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


@jit_inline
def _bin_loglik(A, B, na, nb, W):
    """``A log(na / W) + B log(nb / W)`` with full relative precision, ``0 log 0 = 0``.

    ``A``, ``B`` are a bin's positive and negative weights, ``na``, ``nb >= 0``
    the numerators of its fit ``v = na / W`` and of ``1 - v = nb / W``
    (``na + nb = W`` but for rounding).  The smaller ratio ``r`` is taken
    directly and the larger one's log as ``log1p(-r)`` (never ``log`` of a
    ratio rounded to 1).  A ratio below the normal range is not formed:
    ``log r = log(n) - log(W)`` (more than 708 apart, no cancellation) and
    ``log1p(-r) = -r`` (to rounding), taken as ``-(weight / W) n``.  Returns
    ``-inf`` where a class of positive weight has ratio 0.
    """
    if na <= nb:
        small, large, n_small = A, B, na  # the class with the smaller ratio first
    else:
        small, large, n_small = B, A, nb
    out = 0.0
    if n_small == 0.0:  # the other ratio is exactly 1: its log is 0
        return -np.inf if small > 0.0 else 0.0
    r = n_small / W
    if r >= _TINY:
        if small > 0.0:
            out += small * np.log(r)
        if large > 0.0:
            out += large * np.log1p(-r)
    else:
        if small > 0.0:
            out += small * (np.log(n_small) - np.log(W))
        if large > 0.0:
            out -= (large / W) * n_small
    return out


@jit
def bin_logliks(A, B, W):
    """Each bin's largest log-likelihood, at its observed rate: ``A log(A/W) + B log(B/W)``."""
    out = np.empty(A.shape[0])
    for g in range(A.shape[0]):
        out[g] = _bin_loglik(A[g], B[g], A[g], B[g], W[g])
    return out


@jit
def enir_bic(lams, lower, order, cutoff, log_n, roots, A, B, W, d, birth, left, right,
             unit=1.0):
    """Score the binning models at ``lams`` by BIC, skipping hopeless ones.

    Model ``t`` is the fit at ``lams[t]`` clipped to [0, 1]; its BIC is
    ``-2 loglik + n_groups * log_n``, and ``lower[t] <= BIC`` is known.
    Models are scored in the order ``order`` (increasing ``lower``) until
    ``lower`` exceeds the best BIC so far by more than ``cutoff``; the rest
    keep ``inf``.  Returns the BIC of each model.  The path's sums (``A``,
    ``B`` each class's own, ``W``; and ``lams``) are those of the weights
    divided by ``unit`` (a power of two): the log-likelihood, linear in the
    weights, is multiplied back.  A group's fit ``(A + lam d) / W`` and its
    complement ``(B - lam d) / W`` are each clipped at 0 (``lam d`` is exact:
    ``d`` is -1, 0 or 1), and the log-likelihood is taken from both
    (:func:`_bin_loglik`).
    """
    bic = np.full(lams.shape[0], np.inf)
    ids = np.empty(A.shape[0], dtype=np.int64)
    best = np.inf
    # Invariant: every model before position i in ``order`` is scored, and
    # every model after has lower >= lower[order[i]], so once that exceeds
    # best + cutoff none can come within cutoff of the best.
    for i in range(order.shape[0]):
        t = order[i]
        if lower[t] > best + cutoff:
            break
        lam = lams[t]
        n = neariso_groups_at(lam, roots, birth, left, right, ids)
        loglik = 0.0
        for j in range(n):
            g = ids[j]
            na = max(A[g] + lam * d[g], 0.0)
            nb = max(B[g] - lam * d[g], 0.0)
            loglik += _bin_loglik(A[g], B[g], na, nb, W[g])
        bic[t] = -2.0 * (unit * loglik) + n * log_n
        best = min(best, bic[t])
    return bic


@jit
def _smoothed_complement(B, W, d, g, lam, strength, q, shift):
    """The smoothed complement ``(W c + strength q) / (W + strength)`` of group ``g`` at ``lam``.

    ``c = 1 - clip(beta_g(lam))``, from the group's own negative weight:
    ``1 - (A + lam d) / W = (B - lam d) / W`` (given ``A`` and ``-d`` for
    ``B`` and ``d``, it is the smoothed ``clip(beta_g(lam))``: ``lam d`` is
    exact).  With ``shift`` (the sums are those of the weights times
    ``2**-shift``) it is ``(c + x q) / (1 + x)`` with ``x = strength / (W
    2**shift)`` (or, for ``x > 1``, ``(y c + q) / (y + 1)`` with ``y = 1 /
    x``): sums of non-negative terms, no cancellation, no overflow; so is a
    ``strength`` outside ``2**+-400`` without ``shift``.  ``x`` and ``y`` are
    formed from the significands and exponents (:func:`_scaled_ratio`).
    """
    c = min(max((B[g] - lam * d[g]) / W[g], 0.0), 1.0)
    if shift == 0 and _MODERATE_LOW <= strength <= _MODERATE_HIGH:
        return (W[g] * c + strength * q) / (W[g] + strength)
    x = _scaled_ratio(strength, W[g], -shift)
    if x <= 1.0:
        return (c + x * q) / (1.0 + x)
    y = _scaled_ratio(W[g], strength, shift)
    return (y * c + q) / (y + 1.0)


@jit_inline
def _scaled_ratio(a, b, e):
    """``a / b * 2**e`` for ``a, b > 0`` with one rounding (and one more below the normal range).

    The significands are divided (a quotient in ``(1/2, 2)``) and the
    exponents added exactly: ``strength / W`` itself underflowed for a
    ``prior_strength`` of 1e-290 beside weights scaled up from 1e-300
    (attack 17 F1: NaN probabilities), or overflowed the other way.
    """
    ma, ea = math.frexp(a)
    mb, eb = math.frexp(b)
    return math.ldexp(ma / mb, ea - eb + e)


@jit
def enir_complement_table(k, lams, weights, strength, prior_c, roots, B, W, d, birth, left,
                          right, shift=0):
    """Average the models' smoothed complements ``1 - p~`` at the ``k`` points.

    Model ``t`` (weight ``weights[t]``; zero-weight models are skipped)
    gives group ``g`` the smoothed complement of its clipped fit at
    ``lams[t]`` (:func:`_smoothed_complement`), computed from the group's
    negative weight sum ``B`` and the prior complement ``prior_c`` (by group
    id) so that it keeps its relative precision where ``p~`` is near 1.
    Called with ``A``, ``-d`` and the prior ``pi`` for ``B``, ``d`` and
    ``prior_c``, it averages ``p~`` itself, with the same precision where
    ``p~`` is small.  No running sum of differences: each
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
