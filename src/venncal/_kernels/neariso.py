"""The exact solution path of weighted nearly-isotonic regression.

For ordered points with weights ``w_i > 0`` and targets ``z_i`` (given as
sums: ``num[i] = w_i z_i`` and ``den[i] = w_i``) the nearly-isotonic fit at
``lam >= 0`` is

    beta(lam) = argmin_b  1/2 sum_i w_i (z_i - b_i)^2 + lam sum_i (b_i - b_{i+1})_+

(Tibshirani, Hoefling & Tibshirani 2011; paper 004, eq. (3)).  At ``lam = 0``
it is the data, for ``lam`` large enough the isotonic fit.  The fit is
constant on *groups* of adjacent points; as ``lam`` grows, groups only merge,
never split, and a group ``g`` (points ``start..end-1``, target sum ``A``,
weight ``W``) has the value

    beta_g(lam) = (A + lam * d) / W,      d = nu_left - nu_right in {-1, 0, 1},

where ``nu_left = 1`` if the group to its left lies above it and
``nu_right = 1`` if the group to its right lies below it (paper 004, eqs.
(6)-(7)).  A group's neighbours keep their side of it until they merge with
it, so ``d`` is fixed for the group's whole life: each group is a line in
``lam``.  Merging ``g`` and ``h`` gives ``d = d_g + d_h`` (the two inner
indicators are the same boundary and cancel), ``A = A_g + A_h`` and
``W = W_g + W_h``: exact sums, never running averages.

**Segments.**  Adjacent blocks of the isotonic fit never merge, and the
path of each block depends on its own points only (see ``_segments``), so
the path is run block by block: each block's heap and group rows are small
and stay in cache, which makes the whole path several times faster than one
heap over all points (measured in ``benchmarks/bench_enir.py``).

The path is stored as a binary merge tree over at most ``2k - 1`` group ids:
the ``k`` points are the leaves ``0..k-1`` (born at ``lam = 0``); merge
number ``e`` creates group ``k + e`` from its two children at ``birth[k+e]``,
which is when the children die (merges are numbered in time order within a
block of the isotonic fit, block after block).  The fit at any ``lam`` uses the groups with
``birth <= lam < death``; the knots are the distinct births of merged groups.
Memory is O(k).

**Simultaneous merges.**  Merge times of pairs are exact rational functions
of the group sums; for integer sums below ``2**53`` (0/1 labels with integer
weights up to about ``9e7`` in total) equal rationals give bit-identical
floats, so merges at one ``lam`` share one knot.  When a merge at ``lam``
creates a group whose value at ``lam`` equals its neighbour's to within
``_TIE_ULPS`` units in the last place of their magnitude, the two are merged
at the same ``lam`` (they are equal there, and equal neighbours never split),
so three or more adjacent groups meeting at one ``lam`` become one group,
whatever order the heap pops their pairs in.  Likewise a popped pair whose
values are equal (to the same tolerance) at the current knot merges at that
knot, so pairs whose meeting times are equal but rounded to neighbouring
floats (possible when the sums are inexact) share one knot.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit
from .pava import pava_blocks

__all__ = ["enir_bic", "enir_table", "neariso_groups_at", "neariso_path"]

_EPS = 2.0**-52
# Values of adjacent groups that agree to this many ulps of their size are
# equal (the rounding of (A + lam d) / W and of the group sums is a few ulps).
_TIE_ULPS = 64.0


# The dynamic state of the alive groups, one 64-byte row per group stored at
# the group's first point (so a merge updates its left child's row in place,
# and neighbouring groups' rows are near each other in memory): target sum,
# weight, slope numerator, first point of the previous and next alive group
# (-1: none), time of the pending merge with the right neighbour, and the
# group's id in the merge tree (points and ids are exact in float64).
_A, _W, _D, _PREV, _NEXT, _PEND, _ID = 0, 1, 2, 3, 4, 5, 6

# Adjacent isotonic blocks whose means differ by less than this (relative)
# are run as one segment (see ``_segments``).
_SEGMENT_TOL = 1e-9


@jit
def _merge_time(R, g, h, lam):
    """Return when adjacent groups at rows ``g`` (left) and ``h`` (right) meet, from ``lam`` on.

    ``lam`` itself if their values are equal at ``lam`` (to rounding), ``inf``
    if their lines are parallel or moving apart.  Paper 004, eq. (8).
    """
    ag, wg, dg = R[g, _A], R[g, _W], R[g, _D]
    ah, wh, dh = R[h, _A], R[h, _W], R[h, _D]
    vg = (ag + lam * dg) / wg
    vh = (ah + lam * dh) / wh
    gap = vg - vh
    size = abs(vg) + abs(vh) + lam * (abs(dg) / wg + abs(dh) / wh)
    if abs(gap) <= _TIE_ULPS * _EPS * size:
        return lam
    rate = dg / wg - dh / wh  # d(gap) / d(lam)
    if rate == 0.0 or (gap > 0.0) == (rate > 0.0):
        return np.inf
    # Where the lines meet, from the sums alone (not from ``lam``), so that
    # the same rational gives the same float for every pair that meets there.
    t = (ah * wg - ag * wh) / (dg * wh - dh * wg)
    return max(lam, t)


# The heap of pending merges is 4-ary and stores each entry as one row
# ``[time, row]`` of a (capacity, 2) float64 array, so that an entry is 16
# bytes and the four children of a node share a cache line.
_ARITY = 4


@jit
def _heap_sift_down(heap, size, i):
    """Restore the heap order below node ``i`` (its subtrees are heaps)."""
    t = heap[i, 0]
    g = heap[i, 1]
    # Invariant: every node but i holds a time <= its children's; (t, g)
    # is the entry looking for its place, i the hole.
    while True:
        first = _ARITY * i + 1
        if first >= size:
            break
        child = first
        for c in range(first + 1, min(first + _ARITY, size)):
            if heap[c, 0] < heap[child, 0]:
                child = c
        if heap[child, 0] >= t:
            break
        heap[i, 0] = heap[child, 0]
        heap[i, 1] = heap[child, 1]
        i = child
    heap[i, 0] = t
    heap[i, 1] = g


@jit
def _heap_push(heap, size, t, g):
    """Push ``(t, g)`` on the heap of ``size`` entries; return the new size."""
    i = size
    # Sift up: parents hold times <= their children's.
    while i > 0:
        parent = (i - 1) // _ARITY
        if heap[parent, 0] <= t:
            break
        heap[i, 0] = heap[parent, 0]
        heap[i, 1] = heap[parent, 1]
        i = parent
    heap[i, 0] = t
    heap[i, 1] = g
    return size + 1


@jit
def _heap_pop(heap, size):
    """Remove the root of the heap of ``size`` entries (which the caller has read)."""
    size -= 1
    heap[0, 0] = heap[size, 0]
    heap[0, 1] = heap[size, 1]
    _heap_sift_down(heap, size, 0)
    return size


@jit
def _segments(num, den):
    """Return the ends of the segments whose paths are independent.

    The groups of the path only merge, and at ``lam = inf`` they are the
    blocks of the isotonic fit; two adjacent blocks never merge, so the
    left one lies below the right one for every ``lam`` (had it been above
    at some ``lam``, the two would have had to meet to end in that order),
    and neither indicator of eq. (7) across their boundary is ever 1.  The
    path of each block is therefore that of its points alone.  Blocks whose
    means are equal to ``_SEGMENT_TOL`` are joined (a coarser partition is
    as exact, and it absorbs the rounding of the block means).
    """
    ends, bnum, bden = pava_blocks(num, den)
    out = np.empty(ends.shape[0], dtype=np.int64)
    n = 0
    for b in range(ends.shape[0]):
        if n > 0:
            lo = bnum[b - 1] / bden[b - 1]
            hi = bnum[b] / bden[b]
            if hi - lo <= _SEGMENT_TOL * (abs(lo) + abs(hi)):
                n -= 1  # join with the previous segment
        out[n] = ends[b]
        n += 1
    return out[:n]


@jit
def _merge(R, T, g, h, c, t):
    """Make group ``c`` at ``t`` of the adjacent alive groups at rows ``g`` (left) and ``h``.

    Row ``g`` becomes the row of ``c``; ``T`` holds the merge tree's arrays
    (those returned by :func:`neariso_path`), written at ``c`` and at the
    children's ids.
    """
    A, W, d, start, end, birth, death, left, right = T
    gid = np.int64(R[g, _ID])
    hid = np.int64(R[h, _ID])
    R[g, _A] += R[h, _A]
    R[g, _W] += R[h, _W]
    R[g, _D] += R[h, _D]
    R[g, _PEND] = np.inf
    R[h, _PEND] = np.nan  # row h is no group's any more: its heap entries are stale
    R[g, _ID] = c
    q = np.int64(R[h, _NEXT])
    R[g, _NEXT] = q
    if q >= 0:
        R[q, _PREV] = g
    A[c] = R[g, _A]
    W[c] = R[g, _W]
    d[c] = np.int64(R[g, _D])
    birth[c] = t
    death[c] = np.inf
    death[gid] = t
    death[hid] = t
    start[c] = start[gid]
    end[c] = end[hid]
    left[c] = gid
    right[c] = hid


@jit
def _segment_path(R, heap, T, num, den, lo, hi, m):
    """Run the path on the points ``lo..hi-1`` (one segment); return the next free id.

    ``R`` holds the rows of the segment's groups (row ``i`` for point
    ``lo + i``); merged groups get the ids ``m, m + 1, ...``.
    """
    d = T[2]
    # Algorithm 1, lines 1-7: one group per point, p_i = z_i at lam = 0,
    # with the slope numerators of eq. (7) (never 1 across a segment
    # boundary, where the left target is the lower one).
    n = hi - lo
    for i in range(n):
        R[i, _A] = num[lo + i]
        R[i, _W] = den[lo + i]
        R[i, _D] = d[lo + i]
        R[i, _PREV] = i - 1
        R[i, _NEXT] = i + 1 if i + 1 < n else -1
        R[i, _PEND] = np.inf
        R[i, _ID] = lo + i

    # Merges at lam = 0 of runs of equal targets, left to right, without the
    # heap (with 0/1 labels about half of all merges).
    g = 0
    while g >= 0:
        h = np.int64(R[g, _NEXT])
        if h >= 0 and R[g, _A] / R[g, _W] == R[h, _A] / R[h, _W]:
            _merge(R, T, g, h, m, 0.0)
            m += 1
        else:
            g = h

    # Eqs. (8)-(9): the merge time of each alive group with its right
    # neighbour, in a min-heap built in O(n) (Floyd).  An entry (t, r) is
    # stale once row r is no group's first point or its pending time is no
    # longer t (its right neighbour has merged since).
    size = 0
    g = 0
    while g >= 0:
        h = np.int64(R[g, _NEXT])
        if h >= 0:
            t = _merge_time(R, g, h, 0.0)
            R[g, _PEND] = t
            if t < np.inf:
                heap[size, 0] = t
                heap[size, 1] = g
                size += 1
        g = h
    for i in range((size - 2) // _ARITY, -1, -1):
        _heap_sift_down(heap, size, i)

    now = 0.0  # the current knot
    # Loop invariant: the alive groups partition the segment, linked by
    # prev/next in order; each is the group of the fit on [birth, next merge
    # time), and every alive adjacent pair that ever meets has its meeting
    # time in the heap, which pops in non-decreasing time.
    while size > 0:
        # Algorithm 1, "compute lam* and I*": the earliest pending merge.
        t = heap[0, 0]
        g = np.int64(heap[0, 1])
        size = _heap_pop(heap, size)
        if R[g, _PEND] != t:
            continue  # stale
        h = np.int64(R[g, _NEXT])
        if t > now and _merge_time(R, g, h, now) == now:
            t = now  # equal at the current knot (rounding put t an ulp or so later)
        now = t
        # "Merge appropriate bins": values move along their lines, so
        # nothing else is updated (lazy evaluation).
        _merge(R, T, g, h, m, t)
        m += 1
        # "Update the slopes and merging values": only the new group's two
        # pairs change; a pair meeting at t (a simultaneous merge) is pushed at t.
        p = np.int64(R[g, _PREV])
        q = np.int64(R[g, _NEXT])
        if p >= 0:
            tp = _merge_time(R, p, g, t)
            R[p, _PEND] = tp
            if tp < np.inf:
                size = _heap_push(heap, size, tp, p)
        if q >= 0:
            tq = _merge_time(R, g, q, t)
            R[g, _PEND] = tq
            if tq < np.inf:
                size = _heap_push(heap, size, tq, g)
    # "Terminate": no pair meets any more; the alive groups are the isotonic
    # fit of the segment.
    return m


@jit
def neariso_path(num, den):
    """Return the merge tree of the nearly-isotonic path (module docstring).

    Parameters
    ----------
    num, den : ndarray of float64 of shape (k,)
        Weighted targets ``w_i z_i`` and weights ``w_i > 0`` of ordered
        points (for calibration: positive weight and weight per distinct score).

    Returns
    -------
    A, W : ndarray of float64 of shape (m,)
        Target sum and weight of each group, ``m = k + number of merges``.
    d : ndarray of int64 of shape (m,)
        Slope numerator: the group's value is ``(A + lam * d) / W``.
    start, end : ndarray of int64 of shape (m,)
        The group holds points ``start..end-1``.
    birth, death : ndarray of float64 of shape (m,)
        The group is part of the fit for ``birth <= lam < death``
        (``death = inf`` for the groups of the isotonic fit).
    left, right : ndarray of int64 of shape (m,)
        Children of a merged group (``-1`` for the points).

    The path is run segment by segment (:func:`_segments`): merged ids are
    in time order within a segment, not across segments.  Memory: the
    returned arrays, plus rows and a heap for the longest segment.
    """
    k = num.shape[0]
    cap = max(2 * k - 1, 0)
    A = np.empty(cap)
    W = np.empty(cap)
    d = np.zeros(cap, dtype=np.int64)
    start = np.empty(cap, dtype=np.int64)
    end = np.empty(cap, dtype=np.int64)
    birth = np.zeros(cap)
    death = np.empty(cap)
    left = np.empty(cap, dtype=np.int64)
    right = np.empty(cap, dtype=np.int64)
    for i in range(k):
        A[i] = num[i]
        W[i] = den[i]
        start[i] = i
        end[i] = i + 1
        death[i] = np.inf
        left[i] = -1
        right[i] = -1
    # Eq. (7): slope numerators of the points from the order of the
    # neighbouring targets.
    for i in range(k - 1):
        if num[i] / den[i] > num[i + 1] / den[i + 1]:
            d[i] -= 1
            d[i + 1] += 1
    T = (A, W, d, start, end, birth, death, left, right)

    ends = _segments(num, den)
    longest = 0
    lo = 0
    for e in ends:
        longest = max(longest, e - lo)
        lo = e
    R = np.empty((longest, 8))
    # Each merge pops one entry and pushes at most two: at most 2n entries.
    heap = np.empty((max(2 * longest, 1), 2))
    m = k
    lo = 0
    for e in ends:
        m = _segment_path(R, heap, T, num, den, lo, e, m)
        lo = e
    return A[:m], W[:m], d[:m], start[:m], end[:m], birth[:m], death[:m], left[:m], right[:m]


@jit
def neariso_groups_at(lam, roots, birth, left, right, out):
    """Write the ids of the groups of the fit at ``lam`` into ``out``, in order.

    Descends the merge tree from ``roots`` (the isotonic groups, in order)
    into the children of every group born after ``lam``: O(number of groups
    at ``lam``).  Returns how many ids were written.  ``out`` has room for
    one id per point, which also bounds the stack: its subtrees are disjoint
    and each covers at least one point.
    """
    stack = np.empty(out.shape[0], dtype=np.int64)
    n_out = 0
    for r in range(roots.shape[0]):
        # Invariant: ``out`` holds the groups at ``lam`` left of the subtrees
        # on the stack, which (top first) cover the next points in order.
        top = 0
        stack[0] = roots[r]
        while top >= 0:
            node = stack[top]
            top -= 1
            if birth[node] > lam:  # a merge: its two children, disjoint, replace it
                stack[top + 1] = right[node]
                stack[top + 2] = left[node]
                top += 2
            else:
                out[n_out] = node
                n_out += 1
    return n_out


@jit
def _bernoulli_loglik(pos, total, p):
    """``pos log p + (total - pos) log(1 - p)`` with ``0 log 0 = 0``."""
    out = 0.0
    if pos > 0.0:
        out += pos * np.log(p) if p > 0.0 else -np.inf
    neg = total - pos
    if neg > 0.0:
        out += neg * np.log1p(-p) if p < 1.0 else -np.inf
    return out


@jit
def _clipped_value(A, W, d, g, lam):
    v = (A[g] + lam * d[g]) / W[g]
    return min(max(v, 0.0), 1.0)


@jit
def enir_bic(lams, lower, order, cutoff, log_n, roots, A, W, d, birth, left, right):
    """Score the binning models at ``lams`` by BIC, skipping hopeless ones.

    Model ``t`` is the fit at ``lams[t]`` clipped to [0, 1]; its BIC is
    ``-2 loglik + n_groups * log_n``, and ``lower[t] <= BIC`` is known.
    Models are scored in the order ``order`` (increasing ``lower``) until
    ``lower`` exceeds the best BIC so far by more than ``cutoff``; the rest
    keep ``inf``.  Returns the BIC of each model.
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
            loglik += _bernoulli_loglik(A[g], W[g], _clipped_value(A, W, d, g, lam))
        bic[t] = -2.0 * loglik + n * log_n
        best = min(best, bic[t])
    return bic


@jit
def enir_table(k, lams, weights, strength, prior, roots, A, W, d, start, birth, left, right):
    """Average the models' smoothed group values at the ``k`` points.

    Model ``t`` (weight ``weights[t]``; zero-weight models are skipped) gives
    group ``g`` the value ``(W v + strength * prior[g']) / (W + strength)``,
    ``v`` its clipped fit at ``lams[t]`` and ``prior`` indexed by group id.
    The averaged step function is built from the jumps at group starts in
    O(groups) per model, then summed up: O(k + sum of groups).  Returns the
    values and the smallest and largest smoothed value averaged.
    """
    jumps = np.zeros(k)
    ids = np.empty(A.shape[0], dtype=np.int64)
    lo = np.inf
    hi = -np.inf
    for t in range(lams.shape[0]):
        if weights[t] == 0.0:
            continue
        n = neariso_groups_at(lams[t], roots, birth, left, right, ids)
        before = 0.0
        for j in range(n):
            g = ids[j]
            v = _clipped_value(A, W, d, g, lams[t])
            p = (W[g] * v + strength * prior[g]) / (W[g] + strength)
            lo = min(lo, p)
            hi = max(hi, p)
            jumps[start[g]] += weights[t] * (p - before)
            before = p
    return np.cumsum(jumps), lo, hi
