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
weights are frequency weights, in units of observations).  Cumulative sums
are carried in double-double arithmetic, so each entry is accurate to a few
ulps whatever the total weight; with integer weights (below 2**53) every
coordinate is exact and each entry is a correctly rounded ratio.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit
from .dd import two_sum_jit as _two_sum


@jit
def _add(precise, ah, al, b):
    # (ah + al) + b; in plain double arithmetic unless precise.
    if precise:
        s, e = _two_sum(ah, b)
        return s, al + e
    return ah + b, al


@jit
def _diff(precise, ah, al, bh, bl):
    # (ah + al) - (bh + bl) for double-double numbers, to a few ulps of the
    # difference (not of the operands); plain ah - bh unless precise.
    if precise:
        s, e = _two_sum(ah, -bh)
        return s + (e + (al - bl))
    return ah - bh


@jit
def _cross(precise, oxh, oxl, oyh, oyl, axh, axl, ayh, ayl, bxh, bxl, byh, byl):
    # z-component of (A - O) x (B - O), > 0 iff O, A, B make a left turn.
    ax = _diff(precise, axh, axl, oxh, oxl)
    ay = _diff(precise, ayh, ayl, oyh, oyl)
    bx = _diff(precise, bxh, bxl, oxh, oxl)
    by = _diff(precise, byh, byl, oyh, oyl)
    return ax * by - ay * bx


@jit
def upper_sweep_into(w, a, flip, precise, out, xh, xl, yh, yl):
    """Paper 000, Algorithms 1-2, on the blocks taken in order or flipped.

    With ``flip=False`` this writes ``F1`` into ``out``.  With ``flip=True``
    it runs on the mirrored data (blocks in reverse order, positive weight
    ``w - a``) and writes ``1 - value`` back in the original order, which is
    ``F0`` by the symmetry ``F0(s, w, a) = 1 - F1(-s, w, w - a)``.

    ``xh, xl, yh, yl`` are scratch arrays of length k + 2 holding a stack of
    points (x high and low part, y high and low part).  With ``precise=True``
    the cumulative sums are carried in double-double arithmetic, so that
    slopes and turns are accurate relative to the differences they use,
    whatever the total weight; ``precise=False`` (the low parts are then
    neither read nor written) is exact, and faster, when every partial sum is
    an integer below 2**53.
    """
    k = w.shape[0]
    # Algorithm 1: corners of the greatest convex minorant of the cumulative
    # sum diagram with the test observation (1, 1) in front, i.e. of the
    # points (-1, -1), P_0 = (0, 0), P_1, ..., P_k with P_j = (X_j, Y_j) the
    # cumulative weight and positive weight of the first j blocks.
    xh[0] = -1.0
    yh[0] = -1.0
    xh[1] = 0.0
    yh[1] = 0.0
    if precise:
        xl[0] = xl[1] = yl[0] = yl[1] = 0.0
    h = 2
    Xh = Xl = Yh = Yl = 0.0
    for j in range(k):
        jj = k - 1 - j if flip else j
        Xh, Xl = _add(precise, Xh, Xl, w[jj])
        Yh, Yl = _add(precise, Yh, Yl, (w[jj] - a[jj]) if flip else a[jj])
        while h > 1 and _cross(
            precise,
            xh[h - 2], xl[h - 2], yh[h - 2], yl[h - 2],
            xh[h - 1], xl[h - 1], yh[h - 1], yl[h - 1],
            Xh, Xl, Yh, Yl,
        ) <= 0.0:
            h -= 1
        xh[h] = Xh
        yh[h] = Yh
        if precise:
            xl[h] = Xl
            yl[h] = Yl
        h += 1

    # Algorithm 2.  Reverse the corners into a stack whose top (index t - 1)
    # is the active corner; below it lie the corners of the current minorant
    # to the right of the active interval.  Before iteration i the test block
    # sits just before block i: the points to its left are (X_j - 1, Y_j - 1),
    # j < i, and those to its right (X_j, Y_j), j >= i.
    for j in range(h // 2):
        r = h - 1 - j
        xh[j], xh[r] = xh[r], xh[j]
        yh[j], yh[r] = yh[r], yh[j]
        if precise:
            xl[j], xl[r] = xl[r], xl[j]
            yl[j], yl[r] = yl[r], yl[j]
    t = h
    slope = _diff(precise, yh[t - 2], yl[t - 2], yh[t - 1], yl[t - 1]) / _diff(
        precise, xh[t - 2], xl[t - 2], xh[t - 1], xl[t - 1]
    )
    Xh = Xl = Yh = Yl = 0.0
    for i in range(k):
        ii = k - 1 - i if flip else i
        # The minorant's slope over the active (test) interval, a weighted
        # mean of labels: in [0, 1] exactly, so clip any rounding back into it.
        value = min(max(slope, 0.0), 1.0)
        out[ii] = 1.0 - value if flip else value
        # Swap the test block and block i; the new corner candidate q is the
        # left end of the test block, (X_{i+1} - 1, Y_{i+1} - 1).
        Xh, Xl = _add(precise, Xh, Xl, w[ii])
        Yh, Yl = _add(precise, Yh, Yl, (w[ii] - a[ii]) if flip else a[ii])
        qxh, qxl = _add(precise, Xh, Xl, -1.0)
        qyh, qyl = _add(precise, Yh, Yl, -1.0)
        if _cross(
            precise,
            xh[t - 1], xl[t - 1], yh[t - 1], yl[t - 1],
            xh[t - 2], xl[t - 2], yh[t - 2], yl[t - 2],
            qxh, qxl, qyh, qyl,
        ) >= 0.0:
            continue  # q is on or above the minorant, which is unchanged
        t -= 1  # q is strictly below: it replaces the active corner
        while t > 1 and _cross(
            precise,
            qxh, qxl, qyh, qyl,
            xh[t - 1], xl[t - 1], yh[t - 1], yl[t - 1],
            xh[t - 2], xl[t - 2], yh[t - 2], yl[t - 2],
        ) <= 0.0:
            t -= 1
        xh[t] = qxh
        yh[t] = qyh
        if precise:
            xl[t] = qxl
            yl[t] = qyl
        t += 1
        slope = _diff(precise, yh[t - 2], yl[t - 2], qyh, qyl) / _diff(
            precise, xh[t - 2], xl[t - 2], qxh, qxl
        )


def _scratch(k):
    return np.empty(k + 2), np.empty(k + 2), np.empty(k + 2), np.empty(k + 2)


@jit
def _needs_precision(w, a):
    # Plain double sums are exact when every weight is an integer and the
    # total (plus the test observation) stays below 2**52; otherwise use
    # double-double.
    total = 0.0
    for j in range(w.shape[0]):
        if w[j] != np.floor(w[j]) or a[j] != np.floor(a[j]):
            return True
        total += w[j]
    return total >= 2.0**52


def ivap_tables(w, a):
    """Return ``(F0, F1)`` for a calibration summary (see module docstring)."""
    k = w.shape[0]
    F0 = np.empty(k)
    F1 = np.empty(k)
    scratch = _scratch(k)
    precise = _needs_precision(w, a)
    upper_sweep_into(w, a, True, precise, F0, *scratch)
    upper_sweep_into(w, a, False, precise, F1, *scratch)
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
