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

The path is stored as a binary merge tree over at most ``2k - 1`` group ids:
the ``k`` points are the leaves ``0..k-1`` (born at ``lam = 0``); merge
number ``e`` creates group ``k + e`` from its two children at ``birth[k+e]``,
which is when the children die.  The fit at any ``lam`` uses the groups with
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

__all__ = ["enir_bic", "enir_table", "neariso_groups_at", "neariso_path"]

_EPS = 2.0**-52
# Values of adjacent groups that agree to this many ulps of their size are
# equal (the rounding of (A + lam d) / W and of the group sums is a few ulps).
_TIE_ULPS = 64.0


@jit
def _merge_time(A, W, d, g, h, lam):
    """Return when adjacent groups ``g`` (left) and ``h`` (right) meet, from ``lam`` on.

    ``lam`` itself if their values are equal at ``lam`` (to rounding), ``inf``
    if their lines are parallel or moving apart.  Paper 004, eq. (8).
    """
    wg = W[g]
    wh = W[h]
    vg = (A[g] + lam * d[g]) / wg
    vh = (A[h] + lam * d[h]) / wh
    gap = vg - vh
    size = abs(vg) + abs(vh) + lam * (abs(d[g]) / wg + abs(d[h]) / wh)
    if abs(gap) <= _TIE_ULPS * _EPS * size:
        return lam
    rate = d[g] / wg - d[h] / wh  # d(gap) / d(lam)
    if rate == 0.0 or (gap > 0.0) == (rate > 0.0):
        return np.inf
    # Where the lines meet, from the sums alone (not from ``lam``), so that
    # the same rational gives the same float for every pair that meets there.
    t = (A[h] * wg - A[g] * wh) / (d[g] * wh - d[h] * wg)
    return max(lam, t)


@jit
def _heap_push(key, left, right, size, t, g, h):
    """Push ``(t, g, h)`` on the binary min-heap of ``size`` entries; return the new size."""
    i = size
    # Sift up: parents hold keys <= their children's.
    while i > 0:
        parent = (i - 1) // 2
        if key[parent] <= t:
            break
        key[i] = key[parent]
        left[i] = left[parent]
        right[i] = right[parent]
        i = parent
    key[i] = t
    left[i] = g
    right[i] = h
    return size + 1


@jit
def _heap_pop(key, left, right, size):
    """Remove the root of the heap of ``size`` entries (which the caller has read)."""
    size -= 1
    t = key[size]
    g = left[size]
    h = right[size]
    i = 0
    # Sift the last entry down from the root.
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and key[child + 1] < key[child]:
            child += 1
        if key[child] >= t:
            break
        key[i] = key[child]
        left[i] = left[child]
        right[i] = right[child]
        i = child
    key[i] = t
    left[i] = g
    right[i] = h
    return size


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
    """
    k = num.shape[0]
    cap = max(2 * k - 1, 0)
    A = np.empty(cap)
    W = np.empty(cap)
    d = np.zeros(cap, dtype=np.int64)
    start = np.empty(cap, dtype=np.int64)
    end = np.empty(cap, dtype=np.int64)
    birth = np.zeros(cap)
    death = np.full(cap, np.inf)
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    prev = np.empty(cap, dtype=np.int64)  # alive neighbour on the left (-1: none)
    nxt = np.empty(cap, dtype=np.int64)  # alive neighbour on the right (-1: none)

    # Algorithm 1, lines 1-7: one group per point, p_i = z_i at lam = 0.
    for i in range(k):
        A[i] = num[i]
        W[i] = den[i]
        start[i] = i
        end[i] = i + 1
        prev[i] = i - 1
        nxt[i] = i + 1 if i + 1 < k else -1
    # Eq. (7): slope numerators from the order of the neighbouring targets.
    for i in range(k - 1):
        if num[i] / den[i] > num[i + 1] / den[i + 1]:
            d[i] -= 1
            d[i + 1] += 1

    # Eqs. (8)-(9): the merge times of adjacent pairs in a min-heap (lazy
    # deletion: an entry whose group has died is skipped when popped).  At
    # most k - 1 initial entries and 2 per merge.
    hcap = max(3 * k, 1)
    hkey = np.empty(hcap)
    hleft = np.empty(hcap, dtype=np.int64)
    hright = np.empty(hcap, dtype=np.int64)
    size = 0
    for i in range(k - 1):
        t = _merge_time(A, W, d, i, i + 1, 0.0)
        if t < np.inf:
            size = _heap_push(hkey, hleft, hright, size, t, i, i + 1)

    m = k
    now = 0.0  # the current knot
    # Loop invariant: the alive groups (death = inf) partition 0..k-1, linked
    # by prev/nxt in order; each is the group of the fit on
    # [birth, next merge time), and every alive adjacent pair that ever meets
    # has its meeting time in the heap, which pops in non-decreasing time.
    while size > 0:
        # Algorithm 1, "compute lam* and I*": the earliest pending merge.
        t = hkey[0]
        g = hleft[0]
        h = hright[0]
        size = _heap_pop(hkey, hleft, hright, size)
        if death[g] < np.inf or death[h] < np.inf:
            continue  # stale: g or h has merged since this entry was pushed
        if t > now and _merge_time(A, W, d, g, h, now) == now:
            t = now  # equal at the current knot (rounding put t an ulp or so later)
        now = t
        # "Merge appropriate bins": g and h become group c; values move
        # along their lines, so nothing else is updated (lazy evaluation).
        c = m
        m += 1
        A[c] = A[g] + A[h]
        W[c] = W[g] + W[h]
        d[c] = d[g] + d[h]
        start[c] = start[g]
        end[c] = end[h]
        birth[c] = t
        death[g] = t
        death[h] = t
        left[c] = g
        right[c] = h
        p = prev[g]
        q = nxt[h]
        prev[c] = p
        nxt[c] = q
        # "Update the slopes and merging values": only c's two new pairs
        # change; a pair meeting at t (a simultaneous merge) is pushed at t.
        if p >= 0:
            nxt[p] = c
            tp = _merge_time(A, W, d, p, c, t)
            if tp < np.inf:
                size = _heap_push(hkey, hleft, hright, size, tp, p, c)
        if q >= 0:
            prev[q] = c
            tq = _merge_time(A, W, d, c, q, t)
            if tq < np.inf:
                size = _heap_push(hkey, hleft, hright, size, tq, c, q)
    # "Terminate": no pair meets any more; the alive groups are the isotonic fit.
    return (
        A[:m].copy(), W[:m].copy(), d[:m].copy(), start[:m].copy(), end[:m].copy(),
        birth[:m].copy(), death[:m].copy(), left[:m].copy(), right[:m].copy(),
    )


@jit
def neariso_groups_at(lam, roots, birth, left, right, out):
    """Write the ids of the groups of the fit at ``lam`` into ``out``, in order.

    Descends the merge tree from ``roots`` (the isotonic groups, in order)
    into the children of every group born after ``lam``: O(number of groups
    at ``lam``).  Returns how many ids were written.
    """
    stack = np.empty(out.shape[0] + 64, dtype=np.int64)
    n_out = 0
    for r in range(roots.shape[0]):
        # Invariant: ``out`` holds the groups at ``lam`` left of the subtrees
        # on the stack, which (top first) cover the next points in order.
        top = 0
        stack[0] = roots[r]
        while top >= 0:
            node = stack[top]
            top -= 1
            if birth[node] > lam:
                if top + 2 >= stack.shape[0]:
                    bigger = np.empty(2 * stack.shape[0], dtype=np.int64)
                    bigger[: top + 1] = stack[: top + 1]
                    stack = bigger
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
