"""Weighted pool-adjacent-violators algorithm (PAVA).

Isotonic (non-decreasing) least-squares regression of ordered values with
positive weights.  The fit is a step function that is constant on blocks of
adjacent points; a block's value is the weighted mean of its points (Vovk & Petej 2014,
proof of Lemma 1).  Here the data are given as sums: point ``i`` carries the
weighted sum ``num[i]`` (for calibration, the positive weight ``a_i``) and the
weight ``den[i] > 0``, so that its value is ``num[i] / den[i]``.  Blocks keep
exact sums, never running averages.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit, jit_inline

__all__ = [
    "exact_pava_blocks",
    "exact_pava_blocks_split",
    "pava_blocks",
    "pava_blocks_split",
    "pava_fit",
    "pava_push",
]


@jit_inline
def pava_push(ends, bnum, bden, bmean, top, end, a, w):
    """Push a point (or pooled run) ending at ``end`` on the PAVA stack; return the new top.

    The stack's blocks ``0..top`` have ends, sums and means in ``ends``,
    ``bnum``, ``bden`` and ``bmean``; the new one pools with those below it
    while their mean is not lower.  Each block's mean is kept, so that a
    comparison divides nothing.
    """
    top += 1
    ends[top] = end
    bnum[top] = a
    bden[top] = w
    bmean[top] = a / w
    # Invariant: the stack's means strictly increase below ``top``.
    while top > 0 and bmean[top - 1] >= bmean[top]:
        bnum[top - 1] += bnum[top]
        bden[top - 1] += bden[top]
        bmean[top - 1] = bnum[top - 1] / bden[top - 1]
        ends[top - 1] = ends[top]
        top -= 1
    return top


@jit
def pava_blocks(num, den):
    """Return the blocks of the isotonic fit.

    Parameters
    ----------
    num, den : ndarray of float64 of shape (n,)
        Weighted sums and positive weights of ordered points.

    Returns
    -------
    ends : ndarray of intp of shape (m,)
        One past the last index of each block (blocks are contiguous and start
        where the previous one ends).
    bnum, bden : ndarray of float64 of shape (m,)
        Summed ``num`` and ``den`` of each block; the fitted value of a block
        is ``bnum / bden``, strictly increasing from block to block.
    """
    n = num.shape[0]
    ends = np.empty(n, dtype=np.intp)
    bnum = np.empty(n)
    bden = np.empty(n)
    bmean = np.empty(n)
    top = -1
    # Invariant: blocks 0..top cover points 0..i-1 and their means are
    # strictly increasing, i.e. they are the isotonic fit of that prefix.
    for i in range(n):
        top = pava_push(ends, bnum, bden, bmean, top, i + 1, num[i], den[i])
    m = top + 1
    return ends[:m].copy(), bnum[:m].copy(), bden[:m].copy()


@jit
def pava_blocks_split(num, neg, den):
    """The blocks of the isotonic fit of ``num / den``, with each block's ``neg`` sum.

    As :func:`pava_blocks`, for calibration data whose ``den`` is ``num + neg``
    (positive and negative weight, each summed on its own).  Two adjacent
    blocks whose means both exceed 1/2 are compared by their complements
    ``neg / den`` instead, which carry the relative precision that the means
    lose near 1: blocks of means ``1 - 2e-20`` and ``1 - 1e-20`` are two
    blocks here (their means both round to 1.0, so :func:`pava_blocks` pools
    them).  Returns ``(ends, bnum, bneg, bden)``.
    """
    n = num.shape[0]
    ends = np.empty(n, dtype=np.intp)
    bnum = np.empty(n)
    bneg = np.empty(n)
    bden = np.empty(n)
    bmean = np.empty(n)
    bcomp = np.empty(n)
    top = -1
    # Invariant: blocks 0..top are the isotonic fit of points 0..i-1 (means increasing,
    # by the more precise of the two ratios).
    for i in range(n):
        top += 1
        ends[top] = i + 1
        bnum[top] = num[i]
        bneg[top] = neg[i]
        bden[top] = den[i]
        bmean[top] = num[i] / den[i]
        bcomp[top] = neg[i] / den[i]
        while top > 0 and (
            bcomp[top - 1] <= bcomp[top]
            if bmean[top - 1] > 0.5 and bmean[top] > 0.5
            else bmean[top - 1] >= bmean[top]
        ):
            bnum[top - 1] += bnum[top]
            bneg[top - 1] += bneg[top]
            bden[top - 1] += bden[top]
            bmean[top - 1] = bnum[top - 1] / bden[top - 1]
            bcomp[top - 1] = bneg[top - 1] / bden[top - 1]
            ends[top - 1] = ends[top]
            top -= 1
    m = top + 1
    return ends[:m].copy(), bnum[:m].copy(), bneg[:m].copy(), bden[:m].copy()


def exact_pava_blocks(num, den):
    """Return ``(ends, means)`` of the isotonic fit in exact rational arithmetic.

    As :func:`pava_blocks`, on the exact values: the sums are Python
    integers (the doubles scaled by one power of two), and each block mean
    is their correctly rounded ratio.  For weights whose floating-point sums
    would overflow or lose the smallest ones; O(n) operations on integers.
    """
    pairs = [float(v).as_integer_ratio() for v in (*num.tolist(), *den.tolist())]
    shift = max([0] + [d.bit_length() - 1 for _, d in pairs])
    values = [(n << shift) // d for n, d in pairs]
    n_points = num.shape[0]
    ends, bnum, bden = [], [], []
    # Invariant: the blocks' means strictly increase (a prefix's isotonic fit).
    for i in range(n_points):
        ends.append(i + 1)
        bnum.append(values[i])
        bden.append(values[n_points + i])
        while len(ends) > 1 and bnum[-2] * bden[-1] >= bnum[-1] * bden[-2]:
            top_num, top_den, top_end = bnum.pop(), bden.pop(), ends.pop()
            bnum[-1] += top_num
            bden[-1] += top_den
            ends[-1] = top_end
    means = np.array([n / d for n, d in zip(bnum, bden, strict=True)], dtype=np.float64)
    return np.array(ends, dtype=np.intp), means


def exact_pava_blocks_split(num, neg):
    """Return ``(ends, means, complements)`` of the isotonic fit of ``num / (num + neg)``, exactly.

    As :func:`exact_pava_blocks` with the weight of each point given as its
    two classes' weights (``num`` positive, ``neg`` negative), added in
    exact arithmetic: a rounded total (``1e308 + 1`` is ``1e308``) would lose
    the smaller class.  Each block's mean and complement ``neg / (num + neg)``
    is its correctly rounded ratio.
    """
    pairs = [float(v).as_integer_ratio() for v in (*num.tolist(), *neg.tolist())]
    shift = max([0] + [d.bit_length() - 1 for _, d in pairs])
    values = [(n << shift) // d for n, d in pairs]
    n_points = num.shape[0]
    ends, bnum, bneg = [], [], []
    # Invariant: the blocks' means strictly increase (a prefix's isotonic fit).
    for i in range(n_points):
        ends.append(i + 1)
        bnum.append(values[i])
        bneg.append(values[n_points + i])
        # mean(l) >= mean(r)  <=>  a_l (a_r + b_r) >= a_r (a_l + b_l)  <=>  a_l b_r >= a_r b_l
        while len(ends) > 1 and bnum[-2] * bneg[-1] >= bnum[-1] * bneg[-2]:
            top_num, top_neg, top_end = bnum.pop(), bneg.pop(), ends.pop()
            bnum[-1] += top_num
            bneg[-1] += top_neg
            ends[-1] = top_end
    means = np.array([a / (a + b) for a, b in zip(bnum, bneg, strict=True)], dtype=np.float64)
    complements = np.array([b / (a + b) for a, b in zip(bnum, bneg, strict=True)])
    return np.array(ends, dtype=np.intp), means, complements


@jit
def pava_fit(num, den):
    """Return the isotonic fit at every point (see :func:`pava_blocks`)."""
    ends, bnum, bden = pava_blocks(num, den)
    out = np.empty(num.shape[0])
    start = 0
    for b in range(ends.shape[0]):
        value = bnum[b] / bden[b]
        for i in range(start, ends[b]):
            out[i] = value
        start = ends[b]
    return out
