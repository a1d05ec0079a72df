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

The tree (:func:`tree_insert`) is a complete binary tree over ``C >= 2``
*buckets* (a power of two) that hold the distinct scores in sorted order,
each bucket at most ``B`` scores (rows of ``E``: score, total weight,
weighted target sum, cell).  Invariant: internal node ``v`` (root 1; bucket
``b`` is leaf ``C + b``) keeps the reduced groups of the scores below it
(rows ``v*K`` to ``v*K + ng[v] - 1`` of ``G``), and every node its number
of scores ``cnt[v]``; leaves keep no groups (their parents reduce the two
buckets' scores directly), which halves the memory.  Buckets with room take
new scores; a full bucket is spread over the smallest enclosing window of
buckets whose fill is below a density bound (1 at the buckets, 1/2 at the
root: a packed-memory array), and a tree too full for that makes the caller
double ``C``.  An update rebuilds the ``log2 C`` ancestors of one bucket,
each from its first group that the change can touch (groups of unchanged
data are allowed merges and stay): O(B) for the lowest, O(K) for the others.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from ._jit import jit, jit_inline
from .dd import two_sum_jit

NUM, DEN, LO, HI = 0, 1, 2, 3
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


@jit
def level_at(G, GC, base, m, levels, q):
    """Return the level of the map of groups ``base .. base+m-1`` at score ``q``.

    The map of :func:`venncal.baselines.block_table` extended to any score by
    the nearest observed score (ties to the smaller): a group's level inside
    it, the nearer group's between two groups, the end groups' outside.
    O(log m), with no table to build.
    """
    lo, hi = 0, m
    while lo < hi:  # the first group whose last score is >= q
        mid = (lo + hi) >> 1
        if G[base + mid, HI] < q:
            lo = mid + 1
        else:
            hi = mid
    j = lo
    if j == m:
        return levels[GC[base + m - 1]]
    if j == 0 or G[base + j, LO] <= q:
        return levels[GC[base + j]]
    if _nearer_lower(G[base + j - 1, HI], q, G[base + j, LO]):
        return levels[GC[base + j - 1]]
    return levels[GC[base + j]]


# ------------------------------------------------------------------------ the tree


@jit
def _copy_entry(dstE, dstK, d, srcE, srcK, s):
    dstE[d, 0] = srcE[s, 0]
    dstE[d, 1] = srcE[s, 1]
    dstE[d, 2] = srcE[s, 2]
    dstE[d, 3] = srcE[s, 3]
    dstK[d] = srcK[s]


@jit
def _count_hi_below(G, base, n, x, strict):
    """Count rows ``base .. base+n-1`` whose last score is ``< x`` (``<= x`` if not strict)."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) >> 1
        if G[base + mid, HI] < x or (not strict and G[base + mid, HI] == x):
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit
def _build_from_buckets(E, G, GC, ng, cnt, v, s, splits):
    """Reduce the scores of the two buckets below ``v`` into its groups (inlined).

    Only data at scores ``>= s`` changed since ``v`` was last built: its
    groups that end below ``s`` are kept (merges of unchanged data, so still
    allowed merges) and the scores after them are pushed again.  Returns the
    last score of the groups left untouched (-inf if none): up to there the
    parent may keep its own groups.
    """
    C = ng.shape[0] // 2
    B = E.shape[0] // C
    K = G.shape[0] // C
    base = v * K
    top = _count_hi_below(G, base, ng[v], s, True)
    low = top  # rows below low are untouched
    after = G[base + top - 1, HI] if top > 0 else -np.inf
    for b in (2 * v - C, 2 * v + 1 - C):
        end = b * B + cnt[C + b]
        first = b * B
        if top > 0:
            first = _position(E, cnt, C, B, b, after)
            if first < end and E[first, 0] == after:
                first += 1
        for i in range(first, end):
            # Invariant: rows base .. base+top-1 reduce the scores before i.
            top, low, _ = _push(G, GC, base, top, low, E[i, 2], E[i, 1], E[i, 0], E[i, 0],
                                np.int64(E[i, 3]), splits)
    ng[v] = top
    cnt[v] = cnt[2 * v] + cnt[2 * v + 1]
    return G[base + low - 1, HI] if low > 0 else -np.inf


@jit
def _build_node(E, G, GC, ng, cnt, v, t, splits):
    """Reduce the concatenated groups of the children of ``v`` into ``v`` (inlined).

    ``t`` is the bound returned by the changed child: its groups up to score
    ``t`` are untouched, so ``t`` ends a group of both children, and the
    groups of ``v`` ending at or below ``t`` are unions of untouched groups:
    they are kept, and the children's groups after them are pushed again.
    Returns the bound for the parent (see :func:`_build_from_buckets`, which
    takes the changed score instead, for nodes just above the buckets).
    """
    C = ng.shape[0] // 2
    if 2 * v >= C:
        return _build_from_buckets(E, G, GC, ng, cnt, v, t, splits)
    K = G.shape[0] // C
    base = v * K
    top = _count_hi_below(G, base, ng[v], t, False)
    low = top
    after = G[base + top - 1, HI] if top > 0 else -np.inf
    for child in (2 * v, 2 * v + 1):
        src0, n = child * K, ng[child]
        k = _count_hi_below(G, src0, n, after, False) if top > 0 else 0
        # Push the child's groups; once one goes in without a merge, the rest
        # of this child (cells strictly increasing after it) are copied.
        while k < n:
            src = src0 + k
            top, low, merged = _push(G, GC, base, top, low, G[src, NUM], G[src, DEN],
                                     G[src, LO], G[src, HI], GC[src], splits)
            k += 1
            if not merged:
                break
        for i in range(src0 + k, src0 + n):
            G[base + top, NUM], G[base + top, DEN] = G[i, NUM], G[i, DEN]
            G[base + top, LO], G[base + top, HI] = G[i, LO], G[i, HI]
            GC[base + top] = GC[i]
            top += 1
    ng[v] = top
    cnt[v] = cnt[2 * v] + cnt[2 * v + 1]
    return G[base + low - 1, HI] if low > 0 else -np.inf


@jit
def _update_path(E, G, GC, ng, cnt, node, s, splits):
    """Rebuild the ancestors of ``node`` after a change of the data at score ``s``."""
    v = node >> 1
    t = s
    while v >= 1:
        t = _build_node(E, G, GC, ng, cnt, v, t, splits)
        v >>= 1


@jit
def _find_bucket(E, G, ng, cnt, s):
    """Return the bucket where score ``s`` is or belongs (descending by first scores)."""
    C = ng.shape[0] // 2
    B = E.shape[0] // C
    K = G.shape[0] // C
    v = 1
    while v < C:
        r = 2 * v + 1
        if r < C:
            v = r if ng[r] > 0 and s >= G[r * K, LO] else 2 * v
        else:
            v = r if cnt[r] > 0 and s >= E[(r - C) * B, 0] else 2 * v
    return v - C


@jit
def _position(E, cnt, C, B, b, s):
    """First index of bucket ``b`` whose score is ``>= s`` (absolute row of ``E``)."""
    lo, hi = b * B, b * B + cnt[C + b]
    while lo < hi:
        mid = (lo + hi) >> 1
        if E[mid, 0] < s:
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit
def _distribute(E, EK, ng, cnt, b0, size, tmpE, tmpK):
    """Spread sorted entries ``tmpE`` evenly over buckets ``b0 .. b0+size-1`` (no node built)."""
    C = ng.shape[0] // 2
    B = E.shape[0] // C
    m = tmpE.shape[0]
    for j in range(size):
        start, stop = j * m // size, (j + 1) * m // size
        b = b0 + j
        for k in range(stop - start):
            _copy_entry(E, EK, b * B + k, tmpE, tmpK, start + k)
        cnt[C + b] = stop - start


@jit
def _build_above(E, G, GC, ng, cnt, v, h, splits):
    """Rebuild the internal nodes of the height-``h`` subtree at ``v``, then its ancestors."""
    for lev in range(h - 1, -1, -1):
        first = v << lev
        for u in range(first, first + (1 << lev)):
            _build_node(E, G, GC, ng, cnt, u, -np.inf, splits)
    _update_path(E, G, GC, ng, cnt, v, -np.inf, splits)


@jit
def _rebalance(E, EK, G, GC, ng, cnt, b, splits):
    """Make room in full bucket ``b``; return False when the whole tree is too full."""
    C = ng.shape[0] // 2
    B = E.shape[0] // C
    H = 0
    while (1 << H) < C:
        H += 1
    v, h = C + b, 0
    while v > 1:
        v >>= 1
        h += 1
        size = 1 << h
        limit = size * B * (1.0 - 0.5 * h / H)
        if cnt[v] + 1 <= limit and (cnt[v] + size) // size < B:
            b0 = (v << h) - C
            tmpE = np.empty((cnt[v], 4))
            tmpK = np.empty(cnt[v], dtype=np.int64)
            k = 0
            for bb in range(b0, b0 + size):
                for i in range(bb * B, bb * B + cnt[C + bb]):
                    _copy_entry(tmpE, tmpK, k, E, EK, i)
                    k += 1
            _distribute(E, EK, ng, cnt, b0, size, tmpE, tmpK)
            _build_above(E, G, GC, ng, cnt, v, h, splits)
            return True
    return False


@jit
def tree_entries(E, EK, ng, cnt):
    """Every stored score in order, as ``(rows of E, keys)`` copies."""
    C = ng.shape[0] // 2
    B = E.shape[0] // C
    m = cnt[1]
    outE = np.empty((m, 4))
    outK = np.empty(m, dtype=np.int64)
    k = 0
    for b in range(C):
        for i in range(b * B, b * B + cnt[C + b]):
            _copy_entry(outE, outK, k, E, EK, i)
            k += 1
    return outE, outK


@jit
def tree_fill(E, EK, G, GC, ng, cnt, tmpE, tmpK, splits):
    """Build an empty tree from sorted entries spread evenly over all buckets."""
    C = ng.shape[0] // 2
    H = 0
    while (1 << H) < C:
        H += 1
    _distribute(E, EK, ng, cnt, 0, C, tmpE, tmpK)
    _build_above(E, G, GC, ng, cnt, 1, H, splits)


@jit
def tree_insert(E, EK, G, GC, ng, cnt, obs, s, y, w, splits):
    """Add weight ``w`` of observation ``(s, y)``; return False (nothing done) if full.

    ``obs`` maps each ``(score, target)`` present to its total weight; ``EK``
    counts, per stored score, its distinct targets, so that a score leaves
    the tree exactly when its last observation is deleted.
    """
    C = ng.shape[0] // 2
    B = E.shape[0] // C
    b = _find_bucket(E, G, ng, cnt, s)
    pos = _position(E, cnt, C, B, b, s)
    if pos == b * B + cnt[C + b] or E[pos, 0] != s:
        if cnt[C + b] == B:
            if not _rebalance(E, EK, G, GC, ng, cnt, b, splits):
                return False
            b = _find_bucket(E, G, ng, cnt, s)
            pos = _position(E, cnt, C, B, b, s)
        for i in range(b * B + cnt[C + b], pos, -1):
            _copy_entry(E, EK, i, E, EK, i - 1)
        E[pos, 0], E[pos, 1], E[pos, 2], E[pos, 3] = s, 0.0, 0.0, 0.0
        EK[pos] = 0
        cnt[C + b] += 1
    key = (s, y)
    old = obs.get(key, 0.0)
    if old == 0.0:
        EK[pos] += 1
    obs[key] = old + w
    E[pos, 1] += w
    E[pos, 2] += w * y
    E[pos, 3] = level_cell(E[pos, 2] / E[pos, 1], splits)
    _update_path(E, G, GC, ng, cnt, C + b, s, splits)
    return True


@jit
def tree_delete(E, EK, G, GC, ng, cnt, obs, s, y, w, splits):
    """Remove weight ``w`` of observation ``(s, y)``; return False if it is not there."""
    key = (s, y)
    old = obs.get(key, -1.0)
    if old < w:
        return False
    C = ng.shape[0] // 2
    B = E.shape[0] // C
    b = _find_bucket(E, G, ng, cnt, s)
    pos = _position(E, cnt, C, B, b, s)
    if old - w <= 0.0:
        obs.pop(key)
        EK[pos] -= 1
    else:
        obs[key] = old - w
    if EK[pos] == 0:  # the score's last observation: drop it exactly
        end = b * B + cnt[C + b] - 1
        for i in range(pos, end):
            _copy_entry(E, EK, i, E, EK, i + 1)
        cnt[C + b] -= 1
    else:
        E[pos, 1] -= w
        E[pos, 2] -= w * y
        E[pos, 3] = level_cell(E[pos, 2] / E[pos, 1], splits)
    _update_path(E, G, GC, ng, cnt, C + b, s, splits)
    return True


@jit
def tree_learn(E, EK, G, GC, ng, cnt, obs, ring, state, scores, ys, ws, start, splits):
    """Insert observations ``start ..``; return the index where the tree got full, or n.

    With a window (``ring`` of shape (W, 3); ``state`` = [head, count]), each
    insert beyond ``W`` observations also deletes the oldest one, so the tree
    holds exactly the last ``W``.  Zero weights are skipped.
    """
    W = ring.shape[0]
    for i in range(start, scores.shape[0]):
        if ws[i] == 0.0:
            continue
        if not tree_insert(E, EK, G, GC, ng, cnt, obs, scores[i], ys[i], ws[i], splits):
            return i
        if W == 0:
            continue
        head, count = state[0], state[1]
        if count == W:
            tree_delete(E, EK, G, GC, ng, cnt, obs, ring[head, 0], ring[head, 1], ring[head, 2],
                        splits)
            slot = head
            state[0] = (head + 1) % W
        else:
            slot = (head + count) % W
            state[1] = count + 1
        ring[slot, 0], ring[slot, 1], ring[slot, 2] = scores[i], ys[i], ws[i]
    return scores.shape[0]
