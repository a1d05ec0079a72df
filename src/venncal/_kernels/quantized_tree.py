"""Insert, delete, the window and reading the map of the tree of groups.

The tree and its invariant are described in :mod:`.quantized_nodes`, the
exact weights at each score in :mod:`.quantized_scores`: a score leaves the
tree exactly when the last of its weight is deleted, and a delete of more
than there is is refused with nothing changed.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit, jit_inline
from .quantized import HI, LO, _copy_group, _first_not_below, _nearer_lower
from .quantized_buckets import _copy_entry, _find_bucket, ring_oldest, ring_push
from .quantized_nodes import rebalance, update_change
from .quantized_scores import score_empty, score_refresh, score_update
from .quantized_walk import _row_at


@jit
def tree_groups(G, GC, ng, JL, JR, v):
    """Return the groups (rows ``(num, den, lo, hi, en, ed)``) and cells of internal node ``v``.

    The root is node 1.  O(groups * height).
    """
    half = ng.shape[0] // 2
    KB = (G.shape[0] - half) // half
    m = ng[v]
    rows = np.empty((m, G.shape[1]))
    cells = np.empty(m, dtype=np.int64)
    for i in range(m):
        r = _row_at(JL, JR, KB, v, i)
        _copy_group(rows, cells, i, G, GC, r)
    return rows, cells


@jit
def tree_level_at(G, GC, ng, JL, JR, levels, q):
    """:func:`level_at` on the root's groups, found in the tree: O(log K * height)."""
    half = ng.shape[0] // 2
    KB = (G.shape[0] - half) // half
    m = ng[1]
    lo, hi = 0, m
    while lo < hi:  # the first group whose last score is >= q
        mid = (lo + hi) >> 1
        if G[_row_at(JL, JR, KB, 1, mid), HI] < q:
            lo = mid + 1
        else:
            hi = mid
    if lo == m:
        return levels[GC[_row_at(JL, JR, KB, 1, m - 1)]]
    g = _row_at(JL, JR, KB, 1, lo)
    if lo == 0 or G[g, LO] <= q:
        return levels[GC[g]]
    p = _row_at(JL, JR, KB, 1, lo - 1)
    if _nearer_lower(G[p, HI], q, G[g, LO]):
        return levels[GC[p]]
    return levels[GC[g]]


@jit_inline
def _slot(E, cnt, FS, s):
    """Return ``(bucket, slot, found)``: where score ``s`` is, or belongs."""
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    b = _find_bucket(FS, s)
    pos = _first_not_below(E, 0, b * B, cnt[C + b], s)
    return b, pos, pos < b * B + cnt[C + b] and E[pos, 0] == s


@jit_inline
def tree_insert(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, ACC, LV, s, y, w):
    """Add weight ``w > 0`` of observation ``(s, y)``; return False (nothing done) if full."""
    C = ng.shape[0]
    B = E.shape[0] // C
    b, pos, found = _slot(E, cnt, FS, s)
    if not found:
        if cnt[C + b] == B:
            if not rebalance(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, b, CH):
                return False
            b, pos, found = _slot(E, cnt, FS, s)
        for i in range(b * B + cnt[C + b], pos, -1):
            _copy_entry(E, EK, EW, i, E, EK, EW, i - 1)
        for c in range(E.shape[1]):
            E[pos, c] = 0.0
        E[pos, 0] = s
        EK[pos] = 0
        EW[pos, 0], EW[pos, 1] = 0.0, 0.0
        cnt[C + b] += 1
    score_update(EK, EW, XW, XT, pos, s, y, w)
    score_refresh(E, EK, EW, XW, XT, cnt, FS, ACC, LV, pos)
    update_change(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, ACC, LV, b, s)
    return True


# Compiled once and called (tree_learn's window deletes, and ``delete`` from Python):
# inlined, it was a second copy to compile into tree_learn; a call costs a few ns
# beside the update_change call that every delete makes.
@jit
def tree_delete(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, ACC, LV, s, y, w):
    """Remove weight ``w > 0`` of observation ``(s, y)``; return False (nothing done) if not there."""
    C = ng.shape[0]
    B = E.shape[0] // C
    b, pos, found = _slot(E, cnt, FS, s)
    if not found:
        return False
    if not score_update(EK, EW, XW, XT, pos, s, y, -w):
        return False
    if score_empty(EK, EW, pos):  # the score's last observation: drop it
        for i in range(pos, b * B + cnt[C + b] - 1):
            _copy_entry(E, EK, EW, i, E, EK, EW, i + 1)
        cnt[C + b] -= 1
    else:
        score_refresh(E, EK, EW, XW, XT, cnt, FS, ACC, LV, pos)
    update_change(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, ACC, LV, b, s)
    return True


@jit
def tree_learn(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, ACC, LV, ring, state,
               scores, ys, ws, start):
    """Insert observations ``start ..``; return the index where the tree got full, or n.

    With a window (``ring`` of shape (W, 3); ``state`` = [head, count]), each
    insert beyond ``W`` observations also deletes the oldest one, exactly, so
    the tree holds exactly the last ``W``.  Zero weights are skipped.
    """
    W = ring.shape[0]
    for i in range(start, scores.shape[0]):
        if ws[i] == 0.0:
            continue
        if not tree_insert(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, ACC, LV,
                           scores[i], ys[i], ws[i]):
            return i
        if W == 0:
            continue
        old = ring_oldest(ring, state)
        if old >= 0:
            tree_delete(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, ACC, LV,
                        ring[old, 0], ring[old, 1], ring[old, 2])
        ring_push(ring, state, scores[i], ys[i], ws[i])
    return scores.shape[0]
