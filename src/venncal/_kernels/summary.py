"""Score-summary kernels: sorted distinct scores with total and positive weight.

A summary of calibration data ``(s_i, y_i, w_i)`` is three arrays of equal
length ``k'``: the distinct scores ``s'_1 < ... < s'_k'``, the total weight
``w_j`` of the observations with score ``s'_j`` and their positive weight
``a_j`` (the weight of those labelled 1).  Observations of zero weight are
dropped: they change no isotonic fit.

The jitted ``*_into`` kernels write into buffers allocated by their Python
wrappers: numpy's allocator asks the kernel for huge pages, which makes a
fresh multi-megabyte buffer several times cheaper to fill than one
allocated inside a kernel.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit


def _buffers(n):
    return np.empty(n), np.empty(n), np.empty(n)


def _trim(s, w, a, k):
    # Keep the first k entries.  Copy only when that frees at least half of the
    # buffers; a view of a buffer at most twice its size wastes little memory,
    # and a copy of a large array is not free.
    if 2 * k < s.shape[0]:
        return s[:k].copy(), w[:k].copy(), a[:k].copy()
    return s[:k], w[:k], a[:k]


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
        v = scores[t]
        positive = y01[t]
        out[front] = v
        out[back] = v
        front += 1 if positive else 0
        back -= 0 if positive else 1
    return front


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
        if neg[i] <= pos[j]:
            v = neg[i]
            i += 1
            pos_inc = 0.0
        else:
            v = pos[j]
            j += 1
            pos_inc = 1.0
        if k >= 0 and s[k] == v:
            w[k] += 1.0
            a[k] += pos_inc
        else:
            k += 1
            s[k] = v
            w[k] = 1.0
            a[k] = pos_inc
    while i < n0:
        v = neg[i]
        i += 1
        if k >= 0 and s[k] == v:
            w[k] += 1.0
        else:
            k += 1
            s[k] = v
            w[k] = 1.0
            a[k] = 0.0
    while j < n1:
        v = pos[j]
        j += 1
        if k >= 0 and s[k] == v:
            w[k] += 1.0
            a[k] += 1.0
        else:
            k += 1
            s[k] = v
            w[k] = 1.0
            a[k] = 1.0
    return k + 1


@jit
def summarize_by_order_into(scores, y01, weights, order, s, w, a):
    """Summarize weighted data given an ascending sort order; return k'."""
    k = -1
    # Invariant: s[:k+1] are the distinct scores of positive weight among the
    # first t observations in sorted order, with their weights.
    for t in range(order.shape[0]):
        idx = order[t]
        wt = weights[idx]
        if wt == 0.0:
            continue
        v = scores[idx]
        if k >= 0 and s[k] == v:
            w[k] += wt
            if y01[idx]:
                a[k] += wt
        else:
            k += 1
            s[k] = v
            w[k] = wt
            a[k] = wt if y01[idx] else 0.0
    return k + 1


@jit
def merge_summaries_into(s1, w1, a1, s2, w2, a2, s, w, a):
    """Merge two summaries into ``(s, w, a)``; equal scores add up.  Return k'."""
    n1 = s1.shape[0]
    n2 = s2.shape[0]
    i = 0
    j = 0
    k = 0
    # Invariant: s[:k] is the sorted union of s1[:i] and s2[:j].
    while i < n1 and j < n2:
        if s1[i] < s2[j]:
            s[k] = s1[i]
            w[k] = w1[i]
            a[k] = a1[i]
            i += 1
        elif s2[j] < s1[i]:
            s[k] = s2[j]
            w[k] = w2[j]
            a[k] = a2[j]
            j += 1
        else:
            s[k] = s1[i]
            w[k] = w1[i] + w2[j]
            a[k] = a1[i] + a2[j]
            i += 1
            j += 1
        k += 1
    while i < n1:
        s[k] = s1[i]
        w[k] = w1[i]
        a[k] = a1[i]
        i += 1
        k += 1
    while j < n2:
        s[k] = s2[j]
        w[k] = w2[j]
        a[k] = a2[j]
        j += 1
        k += 1
    return k


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
        Zero-weight observations are left out.
    """
    bufs = _buffers(order.shape[0])
    k = summarize_by_order_into(scores, y01, weights, order, *bufs)
    return _trim(*bufs, k)


def merge_summaries(s1, w1, a1, s2, w2, a2):
    """Merge two summaries; equal scores add their weights.

    Returns
    -------
    s, w, a : ndarray of float64
    """
    bufs = _buffers(s1.shape[0] + s2.shape[0])
    k = merge_summaries_into(s1, w1, a1, s2, w2, a2, *bufs)
    return _trim(*bufs, k)
