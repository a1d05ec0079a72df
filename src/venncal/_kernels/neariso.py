"""The exact solution path of weighted nearly-isotonic regression.

For ordered points with weights ``w_i > 0`` and targets ``z_i`` (given as
sums: ``num[i] = w_i z_i`` and ``den[i] = w_i``) the nearly-isotonic fit at
``lam >= 0`` is

    beta(lam) = argmin_b  1/2 sum_i w_i (z_i - b_i)^2 + lam sum_i (b_i - b_{i+1})_+

(Tibshirani, Hoefling & Tibshirani 2011; Naeini & Cooper 2016, eq. (3)).  At ``lam = 0``
it is the data, for ``lam`` large enough the isotonic fit.  The fit is
constant on *groups* of adjacent points; as ``lam`` grows, groups only merge,
never split, and a group ``g`` (points ``start..end-1``, target sum ``A``,
weight ``W``) has the value

    beta_g(lam) = (A + lam * d) / W,      d = nu_left - nu_right in {-1, 0, 1},

where ``nu_left = 1`` if the group to its left lies above it and
``nu_right = 1`` if the group to its right lies below it (Naeini & Cooper 2016, eqs.
(6)-(7)).  A group's neighbours keep their side of it until they merge with
it, so ``d`` is fixed for the group's whole life: each group is a line in
``lam``, and the meeting time of two adjacent groups is fixed for as long as
both live.  Merging ``g`` and ``h`` gives ``d = d_g + d_h`` (the two inner
indicators are the same boundary and cancel), ``A = A_g + A_h`` and
``W = W_g + W_h``: exact sums, never running averages.

**Segments.**  Adjacent blocks of the isotonic fit never merge, and the
path of each block depends on its own points only (see :func:`_path_into`),
so the path is run block by block: each block's heap and group rows are
small and stay in cache.

**Pending merges.**  Only a pair whose meeting time is at most both
neighbouring pairs' (a *local minimum*) can be the next merge, so only those
pairs are kept in the heap: about a third of the pairs, and a merge changes
the status of at most four.  The earliest local minimum is the earliest
pair overall (Algorithm 1's "compute lam* and I*").

The path is stored as a binary merge tree over at most ``2k - 1`` group ids:
the ``k`` points are the leaves ``0..k-1`` (born at ``lam = 0``); each merge
creates group ``c >= k`` from its two children at ``birth[c]``, which is when
the children die.  The merges at ``lam = 0`` come first, in point order, then
those of each segment in time order.  The fit at any ``lam`` uses the groups
with ``birth <= lam < death``; the knots are the distinct births of merged
groups.  Memory is O(k).

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

from ._jit import jit, jit_inline
from .pava import pava_push

__all__ = ["neariso_groups_at", "neariso_path"]

_EPS = 2.0**-52
# Values of adjacent groups that agree to this many ulps of their size are
# equal (the rounding of (A + lam d) / W and of the group sums is a few ulps).
_TIE_ULPS = 64.0
_TIE = _TIE_ULPS * _EPS


# The dynamic state of the alive groups, one 64-byte row per group stored at
# the group's first row (a merge updates its left child's row in place, and
# neighbouring groups' rows are near each other in memory): target sum,
# weight, slope numerator, first row of the previous and next alive group
# (-1: none), time of the pending merge with the right neighbour (inf: none;
# nan: the row is no group's any more), the group's id in the merge tree, and
# the time of the row's entry in the heap (nan: none).  Rows and ids are
# exact in float64.
_A, _W, _D, _PREV, _NEXT, _PEND, _ID, _INH = 0, 1, 2, 3, 4, 5, 6, 7

# Adjacent isotonic blocks whose means differ by less than this (relative)
# are run as one segment (a coarser partition is as exact, and it absorbs
# the rounding of the block means).
_SEGMENT_TOL = 1e-9


@jit_inline
def _merge_time(R, g, h, lam):
    """Return when adjacent groups at rows ``g`` (left) and ``h`` (right) meet, from ``lam`` on.

    ``lam`` itself if their values are equal at ``lam`` (to rounding), ``inf``
    if their lines are parallel or moving apart.  Naeini & Cooper 2016, eq. (8).
    """
    ag, wg, dg = R[g, _A], R[g, _W], R[g, _D]
    ah, wh, dh = R[h, _A], R[h, _W], R[h, _D]
    rg = dg / wg  # slopes; |dg| / wg == |dg / wg| exactly (wg > 0)
    rh = dh / wh
    if lam == 0.0:
        vg = ag / wg
        vh = ah / wh
        size = abs(vg) + abs(vh)
    else:
        vg = (ag + lam * dg) / wg
        vh = (ah + lam * dh) / wh
        size = abs(vg) + abs(vh) + lam * (abs(rg) + abs(rh))
    gap = vg - vh
    if abs(gap) <= _TIE * size:
        return lam
    rate = rg - rh  # d(gap) / d(lam)
    if rate == 0.0 or (gap > 0.0) == (rate > 0.0):
        return np.inf
    # Where the lines meet, from the sums alone (not from ``lam``), so that
    # the same rational gives the same float for every pair that meets there.
    t = (ah * wg - ag * wh) / (dg * wh - dh * wg)
    return max(lam, t)


# The heap of pending merges is 8-ary, with the times in one array (the
# eight children of a node share a cache line) and the rows in another.
_ARITY = 8


@jit_inline
def _heap_sift_down(hk, hv, size, i):
    """Restore the heap order below node ``i`` (its subtrees are heaps)."""
    t = hk[i]
    g = hv[i]
    # Invariant: every node but i holds a time <= its children's; (t, g)
    # is the entry looking for its place, i the hole.
    while True:
        first = _ARITY * i + 1
        if first >= size:
            break
        child = first
        kc = hk[first]
        for c in range(first + 1, min(first + _ARITY, size)):
            if hk[c] < kc:
                child = c
                kc = hk[c]
        if kc >= t:
            break
        hk[i] = kc
        hv[i] = hv[child]
        i = child
    hk[i] = t
    hv[i] = g


@jit_inline
def _heap_push(hk, hv, size, t, g):
    """Push ``(t, g)`` on the heap of ``size`` entries; return the new size."""
    i = size
    # Sift up: parents hold times <= their children's.
    while i > 0:
        parent = (i - 1) // _ARITY
        if hk[parent] <= t:
            break
        hk[i] = hk[parent]
        hv[i] = hv[parent]
        i = parent
    hk[i] = t
    hv[i] = g
    return size + 1


@jit_inline
def _heap_pop(hk, hv, size):
    """Remove the root of the heap of ``size`` entries (which the caller has read)."""
    size -= 1
    hk[0] = hk[size]
    hv[0] = hv[size]
    _heap_sift_down(hk, hv, size, 0)
    return size


@jit_inline
def _needs_entry(R, c):
    """Whether the pair at row ``c`` is a local minimum with no entry in the heap yet.

    A local minimum: its meeting time is finite and at most the times of
    the pairs on either side (``R[next, _PEND]`` is ``inf`` for the last
    group, which has no pair).
    """
    t = R[c, _PEND]
    if not t < np.inf or R[c, _INH] == t:
        return False
    p = np.int64(R[c, _PREV])
    if p >= 0 and R[p, _PEND] < t:
        return False
    return not R[np.int64(R[c, _NEXT]), _PEND] < t


@jit
def _path_into(num, den, A, W, d, start, end, birth, death, left, right, R, hk, hv, first):
    """Write the merge tree of the path into the arrays; return its number of groups.

    ``R`` (k rows of 8), ``hk``, ``hv`` (3k + 1 entries: at most one live
    entry per row, plus two stale ones per merge) and ``first`` (k + 1) are
    work space.

    One pass over the points writes the leaves and their slope numerators
    (eq. (7)), merges the runs of equal targets at ``lam = 0`` into one row
    of ``R`` each (as Algorithm 1 would at once, left to right), and runs
    PAVA over those rows.  Adjacent blocks of the isotonic fit never merge:
    at ``lam = inf`` the groups are these blocks, so the left one lies below
    the right one for every ``lam`` (had it been above at some ``lam``, the
    two would have had to meet to end in that order), and neither indicator
    of eq. (7) across their boundary is ever 1.  So each block is a
    *segment* whose path is that of its rows alone; blocks whose means are
    equal to ``_SEGMENT_TOL`` are joined.
    """
    k = num.shape[0]
    if k == 0:
        return 0
    ends = np.empty(k + 1, dtype=np.int64)
    bnum = np.empty(k)
    bden = np.empty(k)
    bmean = np.empty(k)
    top = -1
    m = k  # the next group id
    n = 0  # rows of R used
    z_prev = -np.inf  # no point before the first, none after the last
    z = num[0] / den[0]
    for i in range(k):
        z_next = num[i + 1] / den[i + 1] if i + 1 < k else np.inf
        di = (1 if z_prev > z else 0) - (1 if z > z_next else 0)
        A[i] = num[i]
        W[i] = den[i]
        d[i] = di
        start[i] = i
        end[i] = i + 1
        birth[i] = 0.0
        death[i] = np.inf
        left[i] = -1
        right[i] = -1
        if n > 0 and z == z_prev:
            # Algorithm 1 at lam = 0: the run of equal targets takes point i.
            j = n - 1
            gid = np.int64(R[j, _ID])
            R[j, _A] += num[i]
            R[j, _W] += den[i]
            R[j, _D] += di
            A[m] = R[j, _A]
            W[m] = R[j, _W]
            d[m] = np.int64(R[j, _D])
            start[m] = first[j]
            end[m] = i + 1
            birth[m] = 0.0
            death[m] = np.inf
            death[gid] = 0.0
            death[i] = 0.0
            left[m] = gid
            right[m] = i
            R[j, _ID] = m
            m += 1
        else:
            if n > 0:  # row n - 1 is complete
                top = pava_push(ends, bnum, bden, bmean, top, n, R[n - 1, _A], R[n - 1, _W])
            R[n, _A] = num[i]
            R[n, _W] = den[i]
            R[n, _D] = di
            R[n, _ID] = i
            first[n] = i
            n += 1
        z_prev = z
        z = z_next
    top = pava_push(ends, bnum, bden, bmean, top, n, R[n - 1, _A], R[n - 1, _W])
    first[n] = k
    n_seg = 0
    for b in range(top + 1):
        if n_seg > 0:
            lo = bmean[b - 1]
            hi = bmean[b]
            if hi - lo <= _SEGMENT_TOL * (abs(lo) + abs(hi)):
                n_seg -= 1  # join with the previous segment
        ends[n_seg] = ends[b]
        n_seg += 1
    lo = np.int64(0)  # not the literal 0: numba would compile _segment_path for it too
    for s in range(n_seg):
        m = _segment_path(R, hk, hv, first, lo, ends[s], m,
                          A, W, d, start, end, birth, death, left, right)
        lo = ends[s]
    return m


@jit
def _segment_path(R, hk, hv, first, lo, hi, m, A, W, d, start, end, birth, death, left, right):
    """Run the path on rows ``lo..hi-1`` of ``R`` (one segment); return the next free id."""
    for j in range(lo, hi):
        R[j, _PREV] = j - 1 if j > lo else -1
        R[j, _NEXT] = j + 1 if j + 1 < hi else -1
        R[j, _INH] = np.nan
    # Eqs. (8)-(9): the meeting time of each group with its right neighbour;
    # the local minima go into a heap built in O(n) (Floyd).
    for j in range(lo, hi - 1):
        R[j, _PEND] = _merge_time(R, j, j + 1, 0.0)
    R[hi - 1, _PEND] = np.inf
    size = 0
    for j in range(lo, hi - 1):
        if _needs_entry(R, j):
            hk[size] = R[j, _PEND]
            hv[size] = j
            R[j, _INH] = R[j, _PEND]
            size += 1
    for i in range((size - 2) // _ARITY, -1, -1):
        _heap_sift_down(hk, hv, size, i)

    now = 0.0  # the current knot
    # Loop invariant: the alive groups partition the segment, linked by
    # prev/next in order; each is the group of the fit on [birth, next merge
    # time); every pair that is a local minimum has an entry (its time, its
    # left row) in the heap, and R[row, _INH] is the time of the row's entry
    # (an entry is stale once its time differs from the row's pending time).
    while size > 0:
        # Algorithm 1, "compute lam* and I*": the earliest pending merge.
        t = hk[0]
        g = np.int64(hv[0])
        size = _heap_pop(hk, hv, size)
        if R[g, _PEND] != t:
            if R[g, _INH] == t:
                R[g, _INH] = np.nan  # that was the row's entry
            continue
        R[g, _INH] = np.nan
        h = np.int64(R[g, _NEXT])
        if t > now and _merge_time(R, g, h, now) == now:
            t = now  # equal at the current knot (rounding put t an ulp or so later)
        now = t
        # "Merge appropriate bins": values move along their lines, so
        # nothing else is updated (lazy evaluation).  Row g becomes the new group's.
        gid = np.int64(R[g, _ID])
        hid = np.int64(R[h, _ID])
        q = np.int64(R[h, _NEXT])
        R[g, _A] += R[h, _A]
        R[g, _W] += R[h, _W]
        R[g, _D] += R[h, _D]
        R[g, _ID] = m
        R[g, _NEXT] = q
        R[h, _PEND] = np.nan  # row h is no group's any more: its heap entries are stale
        A[m] = R[g, _A]
        W[m] = R[g, _W]
        d[m] = np.int64(R[g, _D])
        start[m] = first[g]
        end[m] = first[q] if q >= 0 else first[hi]
        birth[m] = t
        death[m] = np.inf
        death[gid] = t
        death[hid] = t
        left[m] = gid
        right[m] = hid
        m += 1
        # "Update the slopes and merging values": only the new group's two
        # pairs change time (a pair meeting at t, a simultaneous merge, gets
        # t), and with them the local-minimum status of the pairs next to them.
        p = np.int64(R[g, _PREV])
        if q >= 0:
            R[q, _PREV] = g
            R[g, _PEND] = _merge_time(R, g, q, t)
        else:
            R[g, _PEND] = np.inf
        if p >= 0:
            R[p, _PEND] = _merge_time(R, p, g, t)
            pp = np.int64(R[p, _PREV])
            if pp >= 0 and _needs_entry(R, pp):
                size = _heap_push(hk, hv, size, R[pp, _PEND], pp)
                R[pp, _INH] = R[pp, _PEND]
            if _needs_entry(R, p):
                size = _heap_push(hk, hv, size, R[p, _PEND], p)
                R[p, _INH] = R[p, _PEND]
        if q >= 0:
            if _needs_entry(R, g):
                size = _heap_push(hk, hv, size, R[g, _PEND], g)
                R[g, _INH] = R[g, _PEND]
            if R[q, _NEXT] >= 0 and _needs_entry(R, q):
                size = _heap_push(hk, hv, size, R[q, _PEND], q)
                R[q, _INH] = R[q, _PEND]
    # "Terminate": no pair meets any more; the alive groups are the isotonic
    # fit of the segment.
    return m


def neariso_path(num, den, index=None):
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
    d : ndarray of int8 of shape (m,)
        Slope numerator: the group's value is ``(A + lam * d) / W``.
    start, end : ndarray of int of shape (m,)
        The group holds points ``start..end-1``.
    birth, death : ndarray of float64 of shape (m,)
        The group is part of the fit for ``birth <= lam < death``
        (``death = inf`` for the groups of the isotonic fit).
    left, right : ndarray of int of shape (m,)
        Children of a merged group (``-1`` for the points).

    Ids and points are int32 when ``2k - 1`` fits (int64 otherwise).  The
    arrays are allocated by numpy, which asks the kernel for transparent huge
    pages on large arrays (numba's own allocator does not): at ``k = 1e6``,
    writing the leaves took 35 ms into arrays of numba's and 6 ms into
    numpy's.  Memory: the returned arrays (49 bytes per group with int32
    ids), plus about 140 bytes per point of work space.
    """
    num = np.ascontiguousarray(num, dtype=np.float64)
    den = np.ascontiguousarray(den, dtype=np.float64)
    k = num.shape[0]
    cap = max(2 * k - 1, 0)
    if index is None:  # (a test passes int64 to check what 2**30 points would get)
        index = np.int32 if cap < 2**31 else np.int64
    A, W, birth, death = (np.empty(cap) for _ in range(4))
    start, end, left, right = (np.empty(cap, dtype=index) for _ in range(4))
    d = np.empty(cap, dtype=np.int8)
    rows = np.empty((k, 8))
    hk = np.empty(3 * k + 1)
    hv = np.empty(3 * k + 1, dtype=index)
    first = np.empty(k + 1, dtype=index)
    m = _path_into(num, den, A, W, d, start, end, birth, death, left, right, rows, hk, hv, first)
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
