"""Sequential quantized isotonic regression (paper 003, sections IV and V).

A *group* is a run of consecutive distinct scores mapped to one level; it is
stored as one row ``(num, den, lo, hi)`` of a float64 array (weighted sum of
the targets, total weight, first and last score) with its *cell*, the index
of the level nearest to ``num / den`` (``searchsorted(splits, num / den)``,
ties going to the lower level).  A list of groups is *reduced* when the cells
strictly increase; it then has at most K groups.

**Why merging reduced lists is exact.**  Start from one group per distinct
score and merge adjacent groups ``G1 G2`` whenever ``cell(G1) >= cell(G2)``
(a violation of monotonicity or an equal level: paper 003, Lemma 1 and
Theorem 2), in any order, until the list is reduced.  Every group so made
has, for every split point ``t``: all its prefixes have ``sum w (y - t) > 0``
if its mean exceeds ``t``, all its suffixes ``sum w (y - t) <= 0`` if not
(true of one score; kept by both kinds of merge).  Hence the first group of
a reduced list with mean above ``t`` starts at the last maximizer of the
suffix sums ``sum w (y - t)``, which is where the isotonic regression first
exceeds ``t``.  So the levels of a reduced list are those of the isotonic
regression projected onto the levels, whatever the merge order; and a merge
that was allowed stays allowed when data are added outside the two groups.
The ordered stream (section IV) and the tree (section V) both rely on this:
a parent's groups are its children's reduced lists concatenated and reduced.

The modules of the unordered stream (paper 003, section V):
:mod:`.quantized_buckets` (the sorted scores in buckets, shared by both
trees), :mod:`.quantized_walk` (finding a group of a node), :mod:`.quantized_nodes`
(the nodes of the tree of groups and their updates), :mod:`.quantized_tree`
(insert, delete, the window and reading the map) and :mod:`.quantized_dense`
(the dense tree for 0/1 targets).
"""

from __future__ import annotations

import numpy as np

from ._jit import jit, jit_inline
from .dd import two_sum_jit

NUM, DEN, LO, HI = 0, 1, 2, 3


@jit
def level_cell(v, splits):
    """Index of the level nearest to ``v``: the number of split points below ``v``.

    A guess from the position of ``v`` between the end split points (exact
    for evenly spaced levels) is checked against its neighbours; binary
    search otherwise.
    """
    n = splits.shape[0]
    if n == 0:
        return 0
    lo, hi = 0, n
    span = splits[n - 1] - splits[0]
    if span > 0.0 and splits[0] < v <= splits[n - 1]:
        g = min(max(int((v - splits[0]) / span * (n - 1)) + 1, 1), n - 1)
        # The answer is g when splits[g-1] < v <= splits[g].
        if splits[g - 1] < v:
            if v <= splits[g]:
                return g
            lo = g + 1
        else:
            hi = g - 1
    elif v <= splits[0]:
        return 0
    elif v > splits[n - 1]:
        return n
    while lo < hi:
        mid = (lo + hi) >> 1
        if splits[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit
def push_group(G, GC, base, top, num, den, lo, hi, splits):
    """Append a group after rows ``base .. base+top-1`` and reduce; return the new count.

    Invariant: rows ``base .. base+top-1`` are reduced (cells strictly
    increasing) and the new group follows them in score order.
    """
    return push_cell(G, GC, base, top, num, den, lo, hi, level_cell(num / den, splits), splits)


@jit
def push_cell(G, GC, base, top, num, den, lo, hi, c, splits):
    """:func:`push_group` for a group whose cell ``c`` is known."""
    return _push(G, GC, base, top, top, num, den, lo, hi, c, splits)[0]


@jit_inline
def _push(G, GC, base, top, low, num, den, lo, hi, c, splits):
    """Push one group after rows ``base .. base+top-1``, merging while cells do not increase.

    Returns ``(top, low, merged)``: the new count, ``low`` lowered to the
    fewest rows left untouched, and whether the group merged.  Merging goes
    on while the mean is at most the next split point of the group before
    (its cell then is at most that group's); the cell is found only when the
    merging stops, so a run of merges costs one :func:`level_cell`.
    """
    last = splits.shape[0]
    merged = False
    while top > 0 and GC[base + top - 1] >= c:
        j = base + top - 1
        num += G[j, NUM]
        den += G[j, DEN]
        lo = G[j, LO]
        top -= 1
        low = min(low, top)
        merged = True
        if top > 0:
            p = GC[base + top - 1]
            if p == last or num / den <= splits[p]:
                c = p
                continue
        c = level_cell(num / den, splits)
    j = base + top
    G[j, NUM] = num
    G[j, DEN] = den
    G[j, LO] = lo
    G[j, HI] = hi
    GC[j] = c
    return top + 1, low, merged


@jit
def ordered_learn(G, GC, top, pending, scores, ys, ws, splits):
    """Learn observations in non-decreasing score order (paper 003, section IV).

    ``G[:top]`` are the reduced groups of every score below ``pending[0]``;
    ``pending`` is ``[score, weight, weighted sum, seen]`` of the largest
    score so far, kept apart because later observations may tie with it.
    Each pushed group is merged at most once, so the cost is amortised O(1)
    per observation (``log K`` for the level of a merged group).  Zero
    weights are skipped; the caller has checked the order.  Returns ``top``.
    Steps refer to paper 003, section IV (step 2 receives, step 3 joins).
    """
    for i in range(scores.shape[0]):
        w = ws[i]
        if w == 0.0:
            continue
        s = scores[i]
        if pending[3] > 0.0 and s == pending[0]:
            pending[1] += w
            pending[2] += w * ys[i]
            continue
        if pending[3] > 0.0:  # the pending score is complete: push it (step 3)
            top = push_group(G, GC, 0, top, pending[2], pending[1], pending[0], pending[0], splits)
        pending[0] = s
        pending[1] = w
        pending[2] = w * ys[i]
        pending[3] = 1.0
    return top


@jit
def _nearer_lower(lo, q, hi):
    """Whether ``q - lo <= hi - q`` in exact arithmetic (``lo < q < hi``).

    The scalar twin of ``venncal.baselines.isotonic._nearer_lower``: each
    difference exactly as a rounded value and its error, compared
    lexicographically; halved first where a difference would overflow.
    """
    d_lo, e_lo = two_sum_jit(q, -lo)
    d_hi, e_hi = two_sum_jit(hi, -q)
    if not (np.isfinite(d_lo) and np.isfinite(d_hi) and np.isfinite(e_lo) and np.isfinite(e_hi)):
        d_lo, e_lo = two_sum_jit(q / 2, -lo / 2)
        d_hi, e_hi = two_sum_jit(hi / 2, -q / 2)
    return d_lo < d_hi or (d_lo == d_hi and e_lo <= e_hi)


@jit_inline
def _first_not_below(X, col, first, length, x):
    """First row ``i`` of ``first .. first+length-1`` with ``X[i, col] >= x`` (or the end).

    A binary search whose steps select rather than branch (their outcome is
    a coin toss to the CPU's predictor).
    """
    # Invariant: the rows before ``first`` are below x, those from
    # ``first + length`` on are not.
    while length > 0:
        half = length >> 1
        below = X[first + half, col] < x
        first = first + half + 1 if below else first
        length = length - half - 1 if below else half
    return first


@jit
def level_at(G, GC, base, m, levels, q):
    """Return the level of the map of groups ``base .. base+m-1`` at score ``q``.

    The map of :func:`venncal.baselines.block_table` extended to any score by
    the nearest observed score (ties to the smaller): a group's level inside
    it, the nearer group's between two groups, the end groups' outside.
    O(log m), with no table to build.
    """
    j = _first_not_below(G, HI, base, m, q) - base  # the first group whose last score is >= q
    if j == m:
        return levels[GC[base + m - 1]]
    if j == 0 or G[base + j, LO] <= q:
        return levels[GC[base + j]]
    if _nearer_lower(G[base + j - 1, HI], q, G[base + j, LO]):
        return levels[GC[base + j - 1]]
    return levels[GC[base + j]]



@jit_inline
def _copy_group(dst, dstC, d, src, srcC, s):
    dst[d, NUM] = src[s, NUM]
    dst[d, DEN] = src[s, DEN]
    dst[d, LO] = src[s, LO]
    dst[d, HI] = src[s, HI]
    dstC[d] = srcC[s]

