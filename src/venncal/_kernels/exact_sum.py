"""Correctly rounded running sums: the cumulative path of the KS and Kuiper tests.

:func:`run_sums` reads the running sum of a vector of floats at given
positions, each value the *exact* sum rounded to the nearest float64 (ties to
even), so that it does not depend on the order of the terms summed before
it; :func:`exact_dot` is the correctly rounded ``sum a_i b_i`` of exact
products (the long accumulator of :mod:`venncal._kernels.exact`), and
:func:`bin_residuals` the same per bin for ``sum w_i (y_i - p_i)``: the
calibration gaps of the ECE without the cancellation of two rounded means.

**The running sum** is an expansion (Shewchuk 1997): non-overlapping nonzero
components ``e_0, ..., e_{m-1}`` of increasing magnitude (the lowest set bit
of each lies above the highest set bit of the one before), whose exact sum is
the value.  Adding a float is GROW-EXPANSION with zero elimination (a TwoSum
with each component, keeping the nonzero errors): exact, whatever the
magnitudes, while every partial sum stays below 2**1020.  Every float is a
multiple of 2**-1074 below 2**1024, so such a sum spans at most 2098 bits and
the expansion never has more components (the buffer holds 2100); when it
grows past twice its length after the last compression it is compressed
(Shewchuk's COMPRESS, which keeps it short: in practice 1 to 3 components).

**Rounding an expansion** (:func:`_round`): add the components from the top,
``hi = fl(hi + e_k)`` with the exact error ``lo`` (a Fast2Sum: the partial
sum ``hi`` of the components above ``e_k`` is a nonzero multiple of the lowest
bit of ``e_{k+1}``, so ``|hi| > |e_k|``), and stop at the first ``lo != 0``.
Then the value is ``hi + lo + rest`` with ``rest`` the sum of the components
below ``e_k``.  Let ``u`` be the lowest set bit of ``e_k``: ``lo`` is a nonzero
multiple of ``u`` (``hi`` and ``hi_old + e_k`` both are), and ``|rest| < u``
(its bits all lie below ``u``), so ``lo + rest`` has the sign of ``lo``.  Let
``g`` be the gap from ``hi`` to the next float in that direction: rounding
to nearest gave ``|lo| <= g / 2``, a power of two and a multiple of ``u``.  If
``|lo| < g / 2`` then ``|lo| <= g / 2 - u`` and ``|lo + rest| < g / 2``:
``hi`` is the nearest float.  If ``|lo| = g / 2`` (a tie, detected as
``hi + 2 lo`` being exact, i.e. the neighbour), the sign of ``rest`` (that
of its top component ``e_{k-1}``) decides: the same sign as ``lo`` moves the
value past the midpoint, so the neighbour ``hi + 2 lo`` is nearest; the
opposite sign or no ``rest`` (an exact tie, which the hardware broke to
even) leaves ``hi``.  If no addition is inexact, ``hi`` is the exact value.
Reading is cheap: usually one or two additions.

J. R. Shewchuk, *Adaptive precision floating-point arithmetic and fast
robust geometric predicates*, Discrete & Computational Geometry 18 (1997).
"""

from __future__ import annotations

import numpy as np

from ._jit import jit, jit_inline
from .dd import two_sum_jit
from .exact import NL, acc_add_float, acc_add_prod, acc_round

__all__ = ["bin_residuals", "exact_dot", "run_sums"]

_CAP = 2100  # components a non-overlapping expansion of floats can have (2098 bits), plus room
_MIN_LIMIT = 8  # compress when the expansion grows past this (or twice its last length)


@jit_inline
def _grow(e, m, x):
    """Add ``x`` to the expansion ``e[:m]`` (GROW-EXPANSION, no zeros); return the length."""
    q = x
    n = 0
    for k in range(m):
        q, h = two_sum_jit(q, e[k])
        if h != 0.0:
            e[n] = h  # n <= k: e[k] has been read
            n += 1
    if q != 0.0:
        e[n] = q
        n += 1
    return n


@jit
def _compress(e, m):
    """Shewchuk's COMPRESS of ``e[:m]`` in place (same value, fewer components): its new length."""
    if m <= 1:
        return m
    bottom = m - 1
    q = e[m - 1]
    for k in range(m - 2, -1, -1):  # top-down: |q| >= |e[k]|, so Fast2Sum is exact
        s = q + e[k]
        small = e[k] - (s - q)
        if small != 0.0:
            e[bottom] = s  # bottom > k
            bottom -= 1
            q = small
        else:
            q = s
    e[bottom] = q
    top = 0
    q = e[bottom]
    for k in range(bottom + 1, m):  # bottom-up over e[bottom:m]
        s = e[k] + q
        small = q - (s - e[k])
        if small != 0.0:
            e[top] = small  # top < k: e[top] was read or lies below bottom
            top += 1
        q = s
    e[top] = q
    return top + 1


@jit_inline
def _round(e, m):
    """The value of the expansion ``e[:m]`` rounded to nearest, ties to even (see the module)."""
    if m == 0:
        return 0.0
    hi = e[m - 1]
    lo = 0.0
    k = m - 2
    while k >= 0:
        x = hi
        hi = x + e[k]
        lo = e[k] - (hi - x)
        if lo != 0.0:
            break
        k -= 1
    if lo != 0.0 and k >= 1 and (e[k - 1] > 0.0) == (lo > 0.0):
        step = 2.0 * lo
        t = hi + step
        if t - hi == step:  # |lo| is half the gap: a tie that the rest breaks towards lo
            hi = t
    return hi


@jit
def run_sums(r, last):
    """The running sum of ``r`` read at the positions ``last``, each correctly rounded.

    Parameters
    ----------
    r : float64 array
        The terms; every partial sum of their absolute values below 2**1020.
    last : int64 array
        Non-decreasing positions in ``r``.

    Returns
    -------
    float64 array
        ``out[j]`` = ``sum(r[:last[j] + 1])`` computed exactly and rounded to
        the nearest float64, ties to even.
    """
    out = np.empty(last.shape[0])
    e = np.empty(_CAP)
    m = 0
    limit = _MIN_LIMIT
    j = 0
    for i in range(r.shape[0]):
        if j == last.shape[0]:
            break
        m = _grow(e, m, r[i])
        if m > limit:
            m = _compress(e, m)
            limit = max(_MIN_LIMIT, 2 * m)
        while j < last.shape[0] and last[j] == i:
            out[j] = _round(e, m)
            j += 1
    return out


@jit
def exact_dot(a, b):
    """``sum a_i b_i`` of the exact products, rounded once to the nearest float64 (ties to even).

    The sum is exact whatever the magnitudes (subnormal products included)
    while every product and partial sum stays below 2**1000.
    """
    acc = np.zeros((1, NL + 1), dtype=np.int64)
    row = np.int64(0)  # not the literal 0: numba would compile the accumulators once more
    for i in range(a.shape[0]):
        acc_add_prod(acc, row, a[i], b[i])
    return acc_round(acc, row)


@jit
def bin_residuals(ids, w, y, p, n_bins, scale):
    """Per bin ``k``, ``scale * sum_{ids_i = k} w_i (y_i - p_i)`` of exact products, rounded once.

    Parameters
    ----------
    ids : int64 array
        The bin of each row, in ``[0, n_bins)``.
    w, y, p : float64 arrays
        Weights, labels (0 or 1) and predictions; ``scale * w_i`` exact (a power of two
        ``scale`` and no overflow) and every ``scale * w_i`` and product below 2**1000.
    n_bins : int
    scale : float
        A power of two: the sums are read ``scale`` times larger, so that one of small
        weights keeps all its digits instead of rounding to a subnormal.

    Returns
    -------
    float64 array
        ``out[k]``: the exact ``scale * sum w_i y_i - scale * sum w_i p_i`` over bin ``k``,
        rounded to the nearest float64 (ties to even); 0 for an empty bin.
    """
    acc = np.zeros((n_bins, NL + 1), dtype=np.int64)
    for i in range(ids.shape[0]):
        k = ids[i]
        x = w[i] * scale
        if y[i] != 0.0:
            acc_add_float(acc, k, x)
        if x == scale:  # a weight of 1: the product is p_i itself, scaled exactly
            acc_add_float(acc, k, -scale * p[i])
        else:
            acc_add_prod(acc, k, -x, p[i])
    out = np.empty(n_bins)
    for k in range(n_bins):
        out[k] = acc_round(acc, k)
    return out
