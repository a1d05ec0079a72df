"""Inductive Venn-Abers tables F0, F1 in O(k') and their O(log k') lookup.

Notation (paper 000, section 2): the calibration summary has distinct scores
``s'_1 < ... < s'_k'`` with weights ``w_j > 0`` and positive weights ``a_j``.
``F1[i]`` is the value at ``s'_i`` of the isotonic regression fitted to the
calibration data plus one test observation ``(s'_i, 1)`` of weight 1, and
``F0[i]`` the same with ``(s'_i, 0)``.  A test score strictly between ``s'_i``
and ``s'_{i+1}`` gets ``(p0, p1) = (F0[i], F1[i+1])``; below every calibration
score ``p0 = 0``, above every one ``p1 = 1``.

``F1`` is computed by the paper's Algorithms 1 and 2 (a Graham scan for the
greatest convex minorant, then a sweep that moves the test observation from
the far left to the right past one calibration score at a time).  ``F0``
follows from ``F1`` by the symmetry ``F0(s, w, a) = 1 - F1(-s, w, w - a)``.
Weights need not be integers; the test observation always weighs 1 (the
weights are frequency weights, in units of observations).  With integer
weights every coordinate is an exact integer (up to 2**53) and each table
entry is a correctly rounded ratio; with non-integer weights the cumulative
sums round, and an entry's error is about machine epsilon times the total
weight divided by the weight of the pooled block.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit


@jit
def _cross(ox, oy, ax, ay, bx, by):
    # z-component of (A - O) x (B - O): > 0 iff O, A, B make a left turn.
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@jit
def upper_sweep_into(w, a, flip, out, hx, hy):
    """Paper 000, Algorithms 1-2, on the blocks taken in order or flipped.

    With ``flip=False`` this writes ``F1`` into ``out``.  With ``flip=True``
    it runs on the mirrored data (blocks in reverse order, positive weight
    ``w - a``) and writes ``1 - value`` back in the original order, which is
    ``F0`` by the symmetry ``F0(s, w, a) = 1 - F1(-s, w, w - a)``.
    """
    k = w.shape[0]
    # hx, hy: scratch of length k + 2.
    # Algorithm 1: corners of the greatest convex minorant of the cumulative
    # sum diagram with the test observation (1, 1) in front, i.e. of the
    # points (-1, -1), P_0 = (0, 0), P_1, ..., P_k with P_j = (X_j, Y_j) the
    # cumulative weight and positive weight of the first j blocks.
    hx[0] = -1.0
    hy[0] = -1.0
    hx[1] = 0.0
    hy[1] = 0.0
    h = 2
    X = 0.0
    Y = 0.0
    for j in range(k):
        jj = k - 1 - j if flip else j
        X += w[jj]
        Y += (w[jj] - a[jj]) if flip else a[jj]
        while h > 1 and _cross(hx[h - 2], hy[h - 2], hx[h - 1], hy[h - 1], X, Y) <= 0.0:
            h -= 1
        hx[h] = X
        hy[h] = Y
        h += 1

    # Algorithm 2.  Reverse the corners into a stack whose top (index t - 1)
    # is the active corner; below it lie the corners of the current minorant
    # to the right of the active interval.  Before iteration i the test block
    # sits just before block i: the points to its left are (X_j - 1, Y_j - 1),
    # j < i, and those to its right (X_j, Y_j), j >= i.
    for t in range(h // 2):
        hx[t], hx[h - 1 - t] = hx[h - 1 - t], hx[t]
        hy[t], hy[h - 1 - t] = hy[h - 1 - t], hy[t]
    t = h
    slope = (hy[t - 2] - hy[t - 1]) / (hx[t - 2] - hx[t - 1])
    X = 0.0
    Y = 0.0
    for i in range(k):
        ii = k - 1 - i if flip else i
        # The minorant's slope over the active (test) interval, a weighted
        # mean of labels: in [0, 1] exactly, so clip the rounding of the
        # cumulative sums (non-integer weights) back into it.
        value = min(max(slope, 0.0), 1.0)
        out[ii] = 1.0 - value if flip else value
        # Swap the test block and block i; the new corner candidate is the
        # left end of the test block.
        X += w[ii]
        Y += (w[ii] - a[ii]) if flip else a[ii]
        qx = X - 1.0
        qy = Y - 1.0
        if _cross(hx[t - 1], hy[t - 1], hx[t - 2], hy[t - 2], qx, qy) >= 0.0:
            continue  # q is on or above the minorant, which is unchanged
        t -= 1  # q is strictly below: it replaces the active corner
        while t > 1 and _cross(qx, qy, hx[t - 1], hy[t - 1], hx[t - 2], hy[t - 2]) <= 0.0:
            t -= 1
        hx[t] = qx
        hy[t] = qy
        t += 1
        slope = (hy[t - 2] - hy[t - 1]) / (hx[t - 2] - hx[t - 1])


def ivap_upper(w, a):
    """Return ``F1``, the upper Venn-Abers table (paper 000, Algorithms 1-2).

    Parameters
    ----------
    w, a : ndarray of float64 of shape (k,)
        Weights (> 0) and positive weights (0 <= a <= w) of the sorted
        distinct calibration scores.

    Returns
    -------
    F1 : ndarray of float64 of shape (k,)
    """
    k = w.shape[0]
    out = np.empty(k)
    upper_sweep_into(w, a, False, out, np.empty(k + 2), np.empty(k + 2))
    return out


def ivap_tables(w, a):
    """Return ``(F0, F1)`` for a calibration summary (see module docstring)."""
    k = w.shape[0]
    F0 = np.empty(k)
    F1 = np.empty(k)
    hx = np.empty(k + 2)
    hy = np.empty(k + 2)
    upper_sweep_into(w, a, True, F0, hx, hy)
    upper_sweep_into(w, a, False, F1, hx, hy)
    return F0, F1


@jit
def ivap_lookup(s, F0, F1, queries, p0, p1):
    """Write the Venn-Abers pair of every query score into ``p0`` and ``p1``.

    One binary search per query finds ``l``, the number of calibration
    scores below the query.  A query equal to ``s[l]`` gets ``(F0[l], F1[l])``;
    otherwise it lies between ``s[l-1]`` and ``s[l]`` and gets
    ``(F0[l-1], F1[l])``, with ``F0[-1] := 0`` and ``F1[k] := 1``.
    """
    k = s.shape[0]
    for q in range(queries.shape[0]):
        v = queries[q]
        lo = 0
        hi = k
        # Invariant: s[:lo] < v <= s[hi:].
        while lo < hi:
            mid = (lo + hi) >> 1
            if s[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        if lo < k and s[lo] == v:
            p0[q] = F0[lo]
            p1[q] = F1[lo]
        else:
            p0[q] = F0[lo - 1] if lo > 0 else 0.0
            p1[q] = F1[lo] if lo < k else 1.0
