"""Insert, delete, the window and reading the map of the tree of groups.

The tree and its invariant are described in :mod:`.quantized_nodes`.  The
weight of each ``(score, target)`` present is kept exactly as it was added
up, so that a score leaves the tree when its last observation is deleted.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from ._jit import jit, jit_inline
from .quantized import HI, LO, _copy_group, _first_not_below, _nearer_lower, level_cell
from .quantized_buckets import _copy_entry, _find_bucket, ring_oldest, ring_push
from .quantized_nodes import _rebalance, _update_change
from .quantized_walk import _row_at

_KEY = types.UniTuple(types.float64, 2)
_WEIGHT = types.float64


@jit
def obs_from_arrays(keys, weights):
    """Return a new typed dict ``(score, target) -> weight`` (compiled, so cached)."""
    obs = Dict.empty(key_type=_KEY, value_type=_WEIGHT)
    for i in range(keys.shape[0]):
        obs[(keys[i, 0], keys[i, 1])] = weights[i]
    return obs


@jit
def obs_to_arrays(obs):
    """Return the keys (shape (m, 2)) and weights of an observation dict."""
    keys = np.empty((len(obs), 2))
    weights = np.empty(len(obs))
    for i, (key, weight) in enumerate(obs.items()):
        keys[i, 0], keys[i, 1] = key
        weights[i] = weight
    return keys, weights


@jit
def tree_groups(G, GC, ng, JL, JR, v):
    """Return the groups (rows ``(num, den, lo, hi)``) and cells of internal node ``v``.

    The root is node 1.  O(groups * height).
    """
    half = ng.shape[0] // 2
    KB = (G.shape[0] - half) // half
    m = ng[v]
    rows = np.empty((m, 4))
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
def tree_insert(E, EK, EW, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, obs, s, y, w, splits):
    """Add weight ``w`` of observation ``(s, y)``; return False (nothing done) if full.

    The weight of each ``(score, target)`` present is kept in ``EW`` for
    the targets 0 and 1 and in ``obs`` for any other; ``EK`` counts, per
    stored score, its distinct targets, so that a score leaves the tree
    exactly when its last observation is deleted.
    """
    C = ng.shape[0]
    B = E.shape[0] // C
    b = _find_bucket(FS, s)
    pos = _first_not_below(E, 0, b * B, cnt[C + b], s)
    if pos == b * B + cnt[C + b] or E[pos, 0] != s:
        if cnt[C + b] == B:
            if not _rebalance(E, EK, EW, G, GC, ng, cnt, JL, JR, FS, b, splits, CH):
                return False
            b = _find_bucket(FS, s)
            pos = _first_not_below(E, 0, b * B, cnt[C + b], s)
        for i in range(b * B + cnt[C + b], pos, -1):
            _copy_entry(E, EK, EW, i, E, EK, EW, i - 1)
        E[pos, 0], E[pos, 1], E[pos, 2], E[pos, 3] = s, 0.0, 0.0, 0.0
        EK[pos] = 0
        EW[pos, 0], EW[pos, 1] = 0.0, 0.0
        cnt[C + b] += 1
    if y == 0.0 or y == 1.0:
        t = np.int64(y)
        if EW[pos, t] == 0.0:
            EK[pos] += 1
        EW[pos, t] += w
    else:
        key = (s, y)
        old = obs.get(key, 0.0)
        if old == 0.0:
            EK[pos] += 1
        obs[key] = old + w
    E[pos, 1] += w
    E[pos, 2] += w * y
    E[pos, 3] = level_cell(E[pos, 2] / E[pos, 1], splits)
    _update_change(E, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, b, s, splits)
    return True


@jit_inline
def tree_delete(E, EK, EW, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, obs, s, y, w, splits):
    """Remove weight ``w`` of observation ``(s, y)``; return False if it is not there."""
    C = ng.shape[0]
    B = E.shape[0] // C
    b = _find_bucket(FS, s)
    pos = _first_not_below(E, 0, b * B, cnt[C + b], s)
    if pos == b * B + cnt[C + b] or E[pos, 0] != s:
        return False
    binary = y == 0.0 or y == 1.0
    t = np.int64(y) if binary else 0
    old = EW[pos, t] if binary else obs.get((s, y), -1.0)
    if not (old >= w and old > 0.0):
        return False
    gone = old - w <= 0.0
    if binary:
        EW[pos, t] = 0.0 if gone else old - w
    elif gone:
        obs.pop((s, y))
    else:
        obs[(s, y)] = old - w
    if gone:
        EK[pos] -= 1
    if EK[pos] == 0:  # the score's last observation: drop it exactly
        end = b * B + cnt[C + b] - 1
        for i in range(pos, end):
            _copy_entry(E, EK, EW, i, E, EK, EW, i + 1)
        cnt[C + b] -= 1
    else:
        E[pos, 1] -= w
        E[pos, 2] -= w * y
        E[pos, 3] = level_cell(E[pos, 2] / E[pos, 1], splits)
    _update_change(E, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, b, s, splits)
    return True


@jit
def tree_learn(E, EK, EW, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, obs, ring, state, scores,
               ys, ws, start, splits):
    """Insert observations ``start ..``; return the index where the tree got full, or n.

    With a window (``ring`` of shape (W, 3); ``state`` = [head, count]), each
    insert beyond ``W`` observations also deletes the oldest one, so the tree
    holds exactly the last ``W``.  Zero weights are skipped.
    """
    W = ring.shape[0]
    for i in range(start, scores.shape[0]):
        if ws[i] == 0.0:
            continue
        if not tree_insert(E, EK, EW, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, obs, scores[i],
                           ys[i], ws[i], splits):
            return i
        if W == 0:
            continue
        old = ring_oldest(ring, state)
        if old >= 0:
            tree_delete(E, EK, EW, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, obs, ring[old, 0],
                        ring[old, 1], ring[old, 2], splits)
        ring_push(ring, state, scores[i], ys[i], ws[i])
    return scores.shape[0]
