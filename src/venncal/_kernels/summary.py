"""Score-summary kernels: sorted distinct scores with total and positive weight.

A summary of calibration data ``(s_i, y_i, w_i)`` is arrays of equal
length ``k'``: the distinct scores ``s'_1 < ... < s'_k'``, the total weight
``w_j`` of the observations with score ``s'_j``, their positive weight
``a_j`` (the weight of those labelled 1) and, in the ``*_exact`` kernels,
their negative weight ``b_j``.  Each class is summed on its own, so a class
of tiny weights beside a huge other class at one score keeps its weight
(``w_j`` would absorb it: ``1e300 + 1e-300`` rounds to ``1e300``).  Observations of zero weight are
dropped: they change no isotonic fit.  ``-0.0`` is stored as ``0.0`` (the
two are one score), so the summary does not depend on which came first.

**Exact sums.**  Weights of tied scores are added in double-double
arithmetic (Knuth's two-sum, :mod:`venncal._kernels.dd`): ``w_j`` is the sum
rounded once, and a *residual* ``w_j + r_j`` is the exact sum whenever it
fits in two doubles (106 significant bits; always for whole numbers below
``2**106``, for instance).  Merges add the exact sums, so a summary is the
same, bit for bit, whatever the order of its rows and of its merges.  The
kernels report when a sum, or a partial sum on the way to it, did not fit
(``inexact``): the caller then redoes those sums exactly (in rational
arithmetic), so that the result does not depend on the order of the rows.

The jitted ``*_into`` kernels write into buffers allocated by their Python
wrappers: numpy's allocator asks the kernel for huge pages, which makes a
fresh multi-megabyte buffer several times cheaper to fill than one
allocated inside a kernel.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline
from .dd import two_sum, two_sum_jit


def _buffers(n):
    return np.empty(n), np.empty(n), np.empty(n)


def _trim(*arrays_and_k):
    # Keep the first k entries.  Copy only when that frees at least half of the
    # buffers; a view of a buffer at most twice its size wastes little memory,
    # and a copy of a large array is not free.
    *arrays, k = arrays_and_k
    if 2 * k < arrays[0].shape[0]:
        return tuple(x[:k].copy() for x in arrays)
    return tuple(x[:k] for x in arrays)


@jit
def split_by_label_into(scores, y01, out):
    """Copy the scores with ``y01`` True to the front of ``out`` and the others to its back.

    Returns the number of True.  The front keeps the order of ``scores``,
    the back reverses it.  Each score is written to both ends and only one
    end advances: no branch on the label, which a CPU cannot predict.
    """
    front = 0
    back = scores.shape[0] - 1
    # Invariant: out[:front] and out[back+1:] hold the scores so far with
    # y01 True and False; a write beyond either is overwritten later.
    for t in range(scores.shape[0]):
        v = scores[t] + 0.0  # -0.0 becomes 0.0
        positive = y01[t]
        out[front] = v
        out[back] = v
        front += 1 if positive else 0
        back -= 0 if positive else 1
    return front


@jit_inline
def _count(s, w, a, k, v, positive):
    """Count one observation of score ``v`` (``positive``: 1.0 or 0.0) after entry ``k``.

    It joins entry ``k`` when that holds ``v``, else starts entry ``k + 1``;
    returns the last entry.
    """
    if k >= 0 and s[k] == v:
        w[k] += 1.0
        a[k] += positive
        return k
    k += 1
    s[k] = v
    w[k] = 1.0
    a[k] = positive
    return k


@jit
def summarize_sorted_classes_into(neg, pos, s, w, a):
    """Summarize unit-weight data from the sorted scores of each class; return k'."""
    n0 = neg.shape[0]
    n1 = pos.shape[0]
    i = 0
    j = 0
    k = -1
    # Invariant: s[:k+1] holds the distinct values of neg[:i] and pos[:j], in
    # order, with their counts in w and their positive counts in a.
    while i < n0 and j < n1:
        # Pick the smaller head, then count it once (one copy of _count: the
        # loop's speed depends on that).
        if neg[i] <= pos[j]:
            v = neg[i]
            i += 1
            positive = 0.0
        else:
            v = pos[j]
            j += 1
            positive = 1.0
        k = _count(s, w, a, k, v, positive)
    for t in range(i, n0):
        k = _count(s, w, a, k, neg[t], 0.0)
    for t in range(j, n1):
        k = _count(s, w, a, k, pos[t], 1.0)
    return k + 1


@jit_inline
def _add_exact(hi, lo, x):
    # (hi + lo) + x with hi + lo kept exact (lo collects the rounding errors);
    # returns the new pair and whether lo's own addition was exact.
    s, e = two_sum_jit(hi, x)
    r, f = two_sum_jit(lo, e)
    return s, r, f == 0.0


@jit_inline
def _round_pair(j, w, wl, a, al, b, bl):
    # Replace the exact pairs (hi, lo) at j by (fl(hi + lo), exact remainder);
    # return whether a remainder is left.
    w[j], wl[j] = two_sum_jit(w[j], wl[j])
    a[j], al[j] = two_sum_jit(a[j], al[j])
    b[j], bl[j] = two_sum_jit(b[j], bl[j])
    return wl[j] != 0.0 or al[j] != 0.0 or bl[j] != 0.0


# Flags returned by the kernels, or-ed together.
INEXACT = 1  # a sum needed more than two doubles
OVERFLOW = 2  # a sum passed the largest double
REMAINDER = 4  # some remainder is not zero


@jit
def summarize_by_order_into(scores, y01, weights, order, s, w, a, b, wl, al, bl):
    """Summarize weighted data given an ascending sort order; return ``(k', flags)``.

    ``w``, ``a``, ``b`` get the correctly rounded sums (total, positive and
    negative weight) and ``wl``, ``al``, ``bl`` (zeroed by the caller) the
    remainders, written only where a tie left one: exact
    unless ``flags & INEXACT``.  Rows of distinct scores cost what they did
    before the remainders.
    """
    k = -1
    flags = 0
    tied = -1  # the last entry whose pairs hold a tie's remainder
    # Invariant: s[:k+1] are the distinct scores of positive weight among the
    # first t observations in sorted order, w + wl, a + al, b + bl their weights.
    for t in range(order.shape[0]):
        idx = order[t]
        wt = weights[idx]
        if wt == 0.0:
            continue
        v = scores[idx]
        if k >= 0 and s[k] == v:
            w[k], wl[k], ok = _add_exact(w[k], wl[k], wt)
            if y01[idx]:
                a[k], al[k], ok2 = _add_exact(a[k], al[k], wt)
            else:
                b[k], bl[k], ok2 = _add_exact(b[k], bl[k], wt)
            if not (ok and ok2):
                flags |= INEXACT
            if not w[k] < np.inf:  # only a tie can pass the largest double
                flags |= OVERFLOW
            tied = k
        else:
            if tied == k and k >= 0 and _round_pair(k, w, wl, a, al, b, bl):
                flags |= REMAINDER
            k += 1
            s[k] = v + 0.0  # -0.0 becomes 0.0
            w[k] = wt
            a[k] = wt if y01[idx] else 0.0
            b[k] = 0.0 if y01[idx] else wt
    if tied == k and k >= 0 and _round_pair(k, w, wl, a, al, b, bl):
        flags |= REMAINDER
    return k + 1, flags


@jit_inline
def _copy_entry(s1, w1, a1, b1, wl1, al1, bl1, i, s, w, a, b, wl, al, bl, k):
    # Returns whether the entry has a remainder (only read when there are any).
    s[k] = s1[i]
    w[k] = w1[i]
    a[k] = a1[i]
    b[k] = b1[i]
    if wl1.shape[0]:
        wl[k] = wl1[i]
        al[k] = al1[i]
        bl[k] = bl1[i]
        return wl1[i] != 0.0 or al1[i] != 0.0 or bl1[i] != 0.0
    return False


@jit_inline
def _add_pairs(h1, l1, has1, i, h2, l2, has2, j):
    # (h1[i] + l1[i]) + (h2[j] + l2[j]) as an exact pair, and whether it was exact.
    hi, lo, ok1 = _add_exact(h1[i], l1[i] if has1 else 0.0, h2[j])
    hi, lo, ok2 = _add_exact(hi, lo, l2[j] if has2 else 0.0)
    return hi, lo, ok1 and ok2


@jit
def merge_summaries_into(s1, w1, a1, b1, wl1, al1, bl1, s2, w2, a2, b2, wl2, al2, bl2,
                         s, w, a, b, wl, al, bl):
    """Merge two summaries into ``(s, w, a, b)``; equal scores add up exactly.

    ``wl1, al1, bl1`` and ``wl2, al2, bl2`` are the inputs' remainders, or
    empty for none; ``wl, al, bl`` (zeroed by the caller) get the output's.  Returns
    ``(k', flags)``, as :func:`summarize_by_order_into`.
    """
    n1 = s1.shape[0]
    n2 = s2.shape[0]
    has1 = wl1.shape[0] > 0
    has2 = wl2.shape[0] > 0
    i = 0
    j = 0
    k = 0
    flags = 0
    # Invariant: s[:k] is the sorted union of s1[:i] and s2[:j], and w + wl,
    # a + al, b + bl the exact sums of their weights.
    while i < n1 and j < n2:
        if s1[i] < s2[j]:
            if _copy_entry(s1, w1, a1, b1, wl1, al1, bl1, i, s, w, a, b, wl, al, bl, k):
                flags |= REMAINDER
            i += 1
        elif s2[j] < s1[i]:
            if _copy_entry(s2, w2, a2, b2, wl2, al2, bl2, j, s, w, a, b, wl, al, bl, k):
                flags |= REMAINDER
            j += 1
        else:
            s[k] = s1[i]
            w[k], wl[k], ok1 = _add_pairs(w1, wl1, has1, i, w2, wl2, has2, j)
            a[k], al[k], ok2 = _add_pairs(a1, al1, has1, i, a2, al2, has2, j)
            b[k], bl[k], ok3 = _add_pairs(b1, bl1, has1, i, b2, bl2, has2, j)
            if not (ok1 and ok2 and ok3):
                flags |= INEXACT
            if not w[k] < np.inf:  # past the largest double (inf, or NaN from inf - inf)
                flags |= OVERFLOW
            elif _round_pair(k, w, wl, a, al, b, bl):
                flags |= REMAINDER
            i += 1
            j += 1
        k += 1
    while i < n1:
        if _copy_entry(s1, w1, a1, b1, wl1, al1, bl1, i, s, w, a, b, wl, al, bl, k):
            flags |= REMAINDER
        i += 1
        k += 1
    while j < n2:
        if _copy_entry(s2, w2, a2, b2, wl2, al2, bl2, j, s, w, a, b, wl, al, bl, k):
            flags |= REMAINDER
        j += 1
        k += 1
    return k, flags


@jit
def dd_sum_into(x, scale, out):
    """Write the sum of ``x * scale`` into ``out[0] + out[1]`` (double-double, unnormalised).

    ``scale`` is a power of two chosen by the caller so that nothing
    overflows; the sum is then exact to a relative ``2**-100`` or so.
    """
    hi = 0.0
    lo = 0.0
    for j in range(x.shape[0]):
        hi, e = two_sum_jit(hi, x[j] * scale)
        lo += e
    out[0] = hi
    out[1] = lo


def split_by_label(scores, y01):
    """Return the scores with ``y01`` False and True, in one pass (for sorting).

    Two views of one new buffer; the first holds its scores in reverse order.
    """
    out = np.empty(scores.shape[0])
    n1 = split_by_label_into(scores, y01, out)
    return out[n1:], out[:n1]


def summarize_sorted_classes(neg, pos):
    """Summarize unit-weight data given the sorted scores of each class.

    Parameters
    ----------
    neg, pos : ndarray of float64, sorted ascending
        Scores of the observations labelled 0 and 1.

    Returns
    -------
    s, w, a : ndarray of float64
    """
    bufs = _buffers(neg.shape[0] + pos.shape[0])
    k = summarize_sorted_classes_into(neg, pos, *bufs)
    return _trim(*bufs, k)


def summarize_by_order(scores, y01, weights, order):
    """Summarize weighted data given an ascending sort order of the scores.

    Parameters
    ----------
    scores : ndarray of float64
    y01 : ndarray of bool
        True where the label is the positive class.
    weights : ndarray of float64, non-negative
    order : ndarray of intp
        A permutation that sorts ``scores`` ascending.

    Returns
    -------
    s, w, a : ndarray of float64
        Zero-weight observations are left out; ``w``, ``a`` are the sums of
        tied weights rounded once (see :func:`summarize_by_order_exact`).
    """
    return summarize_by_order_exact(scores, y01, weights, order)[:3]


def summarize_by_order_exact(scores, y01, weights, order):
    """:func:`summarize_by_order`, with the negative weights and the remainders of the sums.

    Returns
    -------
    s, w, a, b : ndarray of float64
        ``b`` is the negative weight at each score, summed on its own (not
        ``w - a``, which loses a class of tiny weights beside a huge one).
    residual : tuple of three ndarray, or None
        The remainders ``(wl, al, bl)``: ``w + wl``, ``a + al`` and ``b + bl``
        are the exact sums unless ``flags & INEXACT``.  None when they are all
        zero.
    flags : int
        ``INEXACT``, ``OVERFLOW`` (a sum passed the largest double), or-ed.
    """
    n = order.shape[0]
    s, w, a = _buffers(n)
    b = np.empty(n)
    wl, al, bl = np.zeros(n), np.zeros(n), np.zeros(n)  # pages untouched unless a tie rounds
    k, flags = summarize_by_order_into(scores, y01, weights, order, s, w, a, b, wl, al, bl)
    return (*_trim(s, w, a, b, k), _residual(wl, al, bl, k, flags), flags & ~REMAINDER)


def _residual(wl, al, bl, k, flags):
    """The remainder arrays (copies of their first ``k``), or None when they are zero."""
    if flags & REMAINDER:
        return wl[:k].copy(), al[:k].copy(), bl[:k].copy()
    return None


def negatives(w, a):
    """Return ``(b, bl)``: ``b = fl(w - a)`` and its error, ``b + bl == w - a`` exactly.

    The negative weights of a summary given by its total and positive
    weights (TwoSum; the error is zero unless ``w - a`` rounds).
    """
    return two_sum(w, -a)


def merge_summaries(s1, w1, a1, s2, w2, a2):
    """Merge two summaries; equal scores add their weights (see :func:`merge_summaries_exact`).

    Returns
    -------
    s, w, a : ndarray of float64
    """
    parts = []
    for w, a in ((w1, a1), (w2, a2)):
        b, bl = negatives(w, a)
        parts.append((b, (np.zeros_like(w), np.zeros_like(w), bl) if bl.any() else None))
    (b1, r1), (b2, r2) = parts
    return merge_summaries_exact(s1, w1, a1, b1, s2, w2, a2, b2, r1, r2)[:3]


_NONE = np.zeros(0)


def merge_summaries_exact(s1, w1, a1, b1, s2, w2, a2, b2, residual1=None, residual2=None):
    """Merge two summaries with their remainders; equal scores add their exact weights.

    ``b1``, ``b2`` are the negative weights and ``residual1``, ``residual2``
    the remainders of the two summaries (see
    :func:`summarize_by_order_exact`; None for zero).

    Returns
    -------
    s, w, a, b : ndarray of float64
    residual : tuple of three ndarray, or None
    flags : int
        As for :func:`summarize_by_order_exact`.
    """
    wl1, al1, bl1 = residual1 if residual1 is not None else (_NONE, _NONE, _NONE)
    wl2, al2, bl2 = residual2 if residual2 is not None else (_NONE, _NONE, _NONE)
    n = s1.shape[0] + s2.shape[0]
    s, w, a = _buffers(n)
    b = np.empty(n)
    wl, al, bl = np.zeros(n), np.zeros(n), np.zeros(n)
    k, flags = merge_summaries_into(
        s1, w1, a1, b1, wl1, al1, bl1, s2, w2, a2, b2, wl2, al2, bl2, s, w, a, b, wl, al, bl
    )
    return (*_trim(s, w, a, b, k), _residual(wl, al, bl, k, flags), flags & ~REMAINDER)


def _shift_for(top: float, n: int) -> int:
    # A power of two that keeps n terms of at most ``top`` (scaled) below 2**1000.
    if not top > 0.0:
        return 0
    _, e = math.frexp(top)
    return max(0, e + (n + 1).bit_length() - 1000)


def _dd(x, scale):
    out = np.empty(2)
    dd_sum_into(x, scale, out)
    return float(out[0]), float(out[1])


def _unscaled(hi, lo, shift) -> float:
    try:
        return math.ldexp(hi + lo, shift)
    except OverflowError:
        return math.inf


def scaled_sum(x, residual=None) -> float:
    """Return the sum of the non-negative ``x`` (plus ``residual``), rounded once.

    To double-double accuracy (correctly rounded unless the sum needs more
    than two doubles), and ``inf`` only when it exceeds the largest double:
    the terms are scaled by a power of two first whenever their sum could
    overflow.
    """
    if x.shape[0] == 0:
        return 0.0
    top = float(x.max())
    if residual is not None:
        top = max(top, float(np.abs(residual).max()))
    shift = _shift_for(top, x.shape[0])
    hi, lo = _dd(x, 2.0**-shift)
    if residual is not None:
        rh, rl = _dd(residual, 2.0**-shift)
        hi, e = two_sum(hi, rh)
        lo += e + rl
    return _unscaled(hi, lo, shift)


@jit
def _class_maxima(w, a, out):
    # max(w - a), max |error of w - a| and max(a): the tops that set each sum's scale.
    md = 0.0
    me = 0.0
    ma = 0.0
    for j in range(w.shape[0]):
        d, e = two_sum_jit(w[j], -a[j])
        md = max(md, d)
        me = max(me, abs(e))
        ma = max(ma, a[j])
    out[0] = md
    out[1] = me
    out[2] = ma


@jit
def _class_sums_into(w, a, scale_d, scale_a, out):
    # The three double-double sums of scaled_sum(d, err) and scaled_sum(a), one
    # pass, each chain in the order dd_sum_into adds it (so bit for bit the same).
    dh = 0.0
    dl = 0.0
    eh = 0.0
    el = 0.0
    ah = 0.0
    al = 0.0
    for j in range(w.shape[0]):
        d, e = two_sum_jit(w[j], -a[j])
        dh, t = two_sum_jit(dh, d * scale_d)
        dl += t
        eh, t = two_sum_jit(eh, e * scale_d)
        el += t
        ah, t = two_sum_jit(ah, a[j] * scale_a)
        al += t
    out[0] = dh
    out[1] = dl
    out[2] = eh
    out[3] = el
    out[4] = ah
    out[5] = al


def class_totals(w, a) -> tuple[float, float]:
    """Return the total negative and positive weight ``(sum(w - a), sum(a))`` of a summary.

    As :func:`scaled_sum`: each to double-double accuracy relative to
    itself (a class of small weights beside one of large weights keeps its
    own total), ``inf`` past the largest double, never NaN.  Each ``w - a``
    enters exactly: its rounded value and its error (TwoSum).  Two passes
    over ``w`` and ``a`` and no temporary array: the same numbers, bit for
    bit, as ``scaled_sum(d, err)`` and ``scaled_sum(a)`` (the test twin).
    """
    n = w.shape[0]
    if n == 0:
        return 0.0, 0.0
    tops = np.empty(3)
    _class_maxima(w, a, tops)
    shift_d = _shift_for(max(float(tops[0]), float(tops[1])), n)
    shift_a = _shift_for(float(tops[2]), n)
    out = np.empty(6)
    _class_sums_into(w, a, 2.0**-shift_d, 2.0**-shift_a, out)
    hi, e = two_sum(float(out[0]), float(out[2]))
    lo = float(out[1]) + (e + float(out[3]))
    return _unscaled(hi, lo, shift_d), _unscaled(float(out[4]), float(out[5]), shift_a)
