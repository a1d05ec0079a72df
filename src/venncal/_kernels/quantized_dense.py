"""The dense tree of sequential quantized isotonic regression (0/1 targets, integer weights).

For a split point ``r`` between two levels, the isotonic regression of the
observations exceeds ``r`` exactly on the scores from the *last maximizer*
``c`` of the suffix sums ``sum_{i >= c} w_i (y_i - r)`` (the empty suffix,
value 0, included): the upper sets that maximize that sum form a lattice
whose smallest member is ``{f > r}``.  So the quantized map is known once,
for each of the ``K - 1`` split points, the largest suffix sum is known with
where it is reached.

Here every split point is a fraction ``P / Q`` (see
:func:`venncal.online._rational.split_fractions`) and every observation
has an integer weight ``w`` and a target ``y`` in {0, 1}, so each suffix sum
``Q * sum w y - P * sum w`` is an integer, exact in float64 while it stays
below 2**53.  The fraction is chosen so that ``p / q > P / Q`` exactly when
the package's projection (``searchsorted(splits, p / q)``, the mean rounded)
puts the mean ``p / q`` above the split, for every total weight ``q`` up to
a bound; so the map is the batch calibrator's bit for bit.

The tree has the buckets, the search and the spreading of full buckets of
:mod:`venncal._kernels.quantized_buckets` (arrays ``E, cnt, FS``; ``E`` has three
columns here, score, weight and weight of the target 1, and the arrays
``EK, EW`` of the tree of groups are empty).  Each internal node ``v``
keeps

- ``D[v, j]``: the largest suffix sum of its scores at split ``j``;
- ``NA[v], NB[v]``: ``sum w y`` and ``sum w`` of its scores.

A *bottom* node (``v >= C/2``) is computed from its two buckets' scores
(in one pass over the splits, from the upper hull of its suffix sums:
:mod:`venncal._kernels.quantized_hull`), an upper node is its children
joined: ``D[v] = max(D[R], D[L] + Q NA[R] - P NB[R])``, K - 1 additions
and maxima with no branch, which the CPU does several at a time.  So an
update costs O(B + K log C), the bottom node
and then each ancestor.  Row ``D[0]`` is not a node.  The map is read out
by descending, for a split, to where its maximum is reached (O(log C + B)
per split).
"""

from __future__ import annotations

import numpy as np

from ._jit import jit, jit_inline
from .quantized import _first_not_below, _nearer_lower
from .quantized_buckets import (_copy_entry, _find_bucket, _prefetch, prefetch_pair, ring_oldest,
                                ring_push, spread_around)
from .quantized_hull import bottom_row


@jit_inline
def _join(cnt, FS, D, NA, NB, Q, P, v):
    """Compute upper node ``v``'s row from its children's."""
    left, right = 2 * v, 2 * v + 1
    a = NA[right]
    w = NB[right]
    for j in range(Q.shape[0]):
        x = D[left, j] + (Q[j] * a - P[j] * w)
        r = D[right, j]
        D[v, j] = max(r, x)
    NA[v] = NA[left] + a
    NB[v] = NB[left] + w
    cnt[v] = cnt[left] + cnt[right]
    FS[v] = min(FS[left], FS[right])


@jit_inline
def _node(E, cnt, FS, D, NA, NB, Q, P, v):
    """Compute internal node ``v`` (a bottom node from its buckets, an upper one from its children)."""
    if 2 * v >= cnt.shape[0] // 2:
        bottom_row(E, cnt, D, NA, NB, Q, P, v)
        FS[v] = min(FS[2 * v], FS[2 * v + 1])
    else:
        _join(cnt, FS, D, NA, NB, Q, P, v)


@jit_inline
def _update(E, cnt, FS, D, NA, NB, Q, P, b):
    """Recompute the ancestors of bucket ``b``, whose scores changed."""
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    FS[C + b] = E[b * B, 0] if cnt[C + b] > 0 else np.inf
    v = (C + b) >> 1
    bottom_row(E, cnt, D, NA, NB, Q, P, v)
    FS[v] = min(FS[2 * v], FS[2 * v + 1])
    v >>= 1
    while v >= 1:
        _join(cnt, FS, D, NA, NB, Q, P, v)
        v >>= 1


@jit
def _build(E, cnt, FS, D, NA, NB, Q, P, v, h):
    """Rebuild the internal nodes of the height-``h`` subtree at ``v``, then its ancestors."""
    for lev in range(h - 1, -1, -1):
        first = v << lev
        for u in range(first, first + (1 << lev)):
            _node(E, cnt, FS, D, NA, NB, Q, P, u)
    v >>= 1
    while v >= 1:
        _node(E, cnt, FS, D, NA, NB, Q, P, v)
        v >>= 1


@jit
def dense_grow(E, EK, EW, cnt, E2, EK2, EW2, cnt2, FS2, D2, NA2, NB2, Q, P):
    """Fill the empty larger tree ``*2`` with this tree's scores, spread evenly, and build it.

    The scores go from bucket to bucket directly (no gathered copy of them
    all in between).
    """
    C, C2 = cnt.shape[0] // 2, cnt2.shape[0] // 2
    B, B2 = E.shape[0] // C, E2.shape[0] // C2
    m = cnt[1]
    ob, oi = 0, 0  # the next score to move: bucket ob, slot oi
    for j in range(C2):
        count = (j + 1) * m // C2 - j * m // C2
        for k in range(count):
            while oi == cnt[C + ob]:
                ob += 1
                oi = 0
            _copy_entry(E2, EK2, EW2, j * B2 + k, E, EK, EW, ob * B + oi)
            oi += 1
        cnt2[C2 + j] = count
        FS2[C2 + j] = E2[j * B2, 0] if count > 0 else np.inf
    H = 0
    while (1 << H) < C2:
        H += 1
    _build(E2, cnt2, FS2, D2, NA2, NB2, Q, P, np.int64(1), H)  # (not Literal[int])


@jit_inline
def dense_insert(E, EK, EW, cnt, FS, D, NA, NB, s, y, w, Q, P):
    """Add weight ``w`` of observation ``(s, y)``, ``y`` 0 or 1; return False (nothing done) if full.

    Full: a new score would fill more than half of the slots (so the tree
    doubles when half full, and stays between a quarter and a half full:
    fewer scores per bottom node and fewer full buckets to spread), or its
    bucket is full and no window around it has room.
    """
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    b = _find_bucket(FS, s)
    prefetch_pair(E, cnt, b)  # (the search, then the bottom node: see prefetch_pair)
    pos = _first_not_below(E, 0, b * B, cnt[C + b], s)
    if pos == b * B + cnt[C + b] or E[pos, 0] != s:
        if 2 * (cnt[1] + 1) > E.shape[0]:  # a new score would fill more than half: grow first
            return False
        if cnt[C + b] == B:
            found = spread_around(E, EK, EW, cnt, FS, b)
            if found < 0:
                return False
            _build(E, cnt, FS, D, NA, NB, Q, P, found >> 8, found & 0xFF)
            b = _find_bucket(FS, s)
            pos = _first_not_below(E, 0, b * B, cnt[C + b], s)
        for i in range(b * B + cnt[C + b], pos, -1):
            E[i, 0], E[i, 1], E[i, 2] = E[i - 1, 0], E[i - 1, 1], E[i - 1, 2]
        E[pos, 0], E[pos, 1], E[pos, 2] = s, 0.0, 0.0
        cnt[C + b] += 1
    E[pos, 1] += w
    E[pos, 2] += w * y
    _update(E, cnt, FS, D, NA, NB, Q, P, b)
    return True


@jit_inline
def dense_delete(E, EK, EW, cnt, FS, D, NA, NB, s, y, w, Q, P):
    """Remove weight ``w`` of observation ``(s, y)``; return False if it is not there."""
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    if not (y == 0.0 or y == 1.0):
        return False
    b = _find_bucket(FS, s)
    pos = _first_not_below(E, 0, b * B, cnt[C + b], s)
    if pos == b * B + cnt[C + b] or E[pos, 0] != s:
        return False
    have = E[pos, 2] if y == 1.0 else E[pos, 1] - E[pos, 2]  # weight of (s, y): exact
    if not (have >= w and have > 0.0):
        return False
    if E[pos, 1] == w:  # the score's last observation: drop it
        for i in range(pos, b * B + cnt[C + b] - 1):
            E[i, 0], E[i, 1], E[i, 2] = E[i + 1, 0], E[i + 1, 1], E[i + 1, 2]
        cnt[C + b] -= 1
    else:
        E[pos, 1] -= w
        E[pos, 2] -= w * y
    _update(E, cnt, FS, D, NA, NB, Q, P, b)
    return True


@jit
def dense_learn(E, EK, EW, cnt, FS, D, NA, NB, ring, state, scores, ys, ws, start, Q, P):
    """Insert observations ``start ..``; return the index where the tree got full, or n.

    The window (``ring``, ``state``) works as in :func:`venncal._kernels.quantized_tree.tree_learn`.
    """
    W = ring.shape[0]
    for i in range(start, scores.shape[0]):
        if ws[i] == 0.0:
            continue
        if not dense_insert(E, EK, EW, cnt, FS, D, NA, NB, scores[i], ys[i], ws[i], Q, P):
            return i
        if W == 0:
            continue
        old = ring_oldest(ring, state)
        if old >= 0:
            dense_delete(E, EK, EW, cnt, FS, D, NA, NB, ring[old, 0], ring[old, 1],
                         ring[old, 2], Q, P)
        ring_push(ring, state, scores[i], ys[i], ws[i])
    return scores.shape[0]


# ------------------------------------------------------------------ reading the map


@jit_inline
def _next_nonempty(cnt, b):
    """Return the first bucket after ``b`` that holds a score, or -1."""
    C = cnt.shape[0] // 2
    v = C + b
    while v > 1 and not ((v & 1) == 0 and cnt[v + 1] > 0):
        v >>= 1
    if v == 1:
        return -1
    v += 1
    while v < C:
        v = 2 * v if cnt[2 * v] > 0 else 2 * v + 1
    return v - C


@jit_inline
def _prev_nonempty(cnt, b):
    """Return the last bucket before ``b`` that holds a score, or -1."""
    C = cnt.shape[0] // 2
    v = C + b
    while v > 1 and not ((v & 1) == 1 and cnt[v - 1] > 0):
        v >>= 1
    if v == 1:
        return -1
    v -= 1
    while v < C:
        v = 2 * v + 1 if cnt[2 * v + 1] > 0 else 2 * v
    return v - C


@jit_inline
def _bottom_cut(E, cnt, D, Q, P, v, j):
    """Return ``(row, sum w y, sum w)`` of the last maximizer of bottom node ``v``'s suffix sums at split ``j``.

    ``row`` is -1 when it is the empty suffix (the sums are then 0).
    """
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    target = D[v, j]
    a = 0.0
    w = 0.0
    if target != 0.0:
        left = 2 * v - C
        for b in (left + 1, left):
            for i in range(b * B + cnt[C + b] - 1, b * B - 1, -1):
                a += E[i, 2]
                w += E[i, 1]
                if Q[j] * a - P[j] * w == target:
                    return i, a, w
    return -1, 0.0, 0.0


@jit
def _cut(E, cnt, D, NA, NB, Q, P, j):
    """Where the map first exceeds split ``j``: ``(row of E or -1 if nowhere, sum w y, sum w)``.

    The sums are those of the scores from there on.  Descends to the last
    maximizer of the suffix sums: into the right child when its maximum is
    the node's (a later maximizer), else into the left one, whose own
    maximum is then the node's minus the right child's total; then scans
    the bottom node's buckets from their last score.
    """
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    v = 1
    sa = 0.0
    sw = 0.0
    while 2 * v < C:
        if D[2 * v + 1, j] == D[v, j]:
            v = 2 * v + 1
        else:
            sa += NA[2 * v + 1]
            sw += NB[2 * v + 1]
            v = 2 * v
    row, a, w = _bottom_cut(E, cnt, D, Q, P, v, j)
    if row >= 0:
        return row, sa + a, sw + w
    nb = _next_nonempty(cnt, 2 * v + 1 - C)
    return (nb * B if nb >= 0 else -1), sa, sw


@jit_inline
def _before(E, cnt, row):
    """Return the row of ``E`` of the score before the one at ``row`` (-1 if none).

    ``row = -1`` stands for the end: the last score's row.
    """
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    if row < 0:
        pb = C - 1 if cnt[2 * C - 1] > 0 else _prev_nonempty(cnt, C - 1)
    else:
        b = row // B
        if row > b * B:
            return row - 1
        pb = _prev_nonempty(cnt, b)
    return pb * B + cnt[C + pb] - 1 if pb >= 0 else -1


@jit
def dense_groups(E, cnt, D, NA, NB, Q, P):
    """Return the map's groups (rows ``(num, den, lo, hi)``) and cells, as ``tree_groups`` does.

    O(K (log C + B)): one descent per split point.
    """
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    nt = Q.shape[0]
    if cnt[1] == 0:
        return np.empty((0, 4)), np.empty(0, dtype=np.int64)
    first = 0 if cnt[C] > 0 else _next_nonempty(cnt, 0) * B
    rows = np.empty((nt + 1, 4))
    cells = np.empty(nt + 1, dtype=np.int64)
    # Group starts: the first score, then each split's cut (non-decreasing in j).
    start, sa, sw = first, NA[1], NB[1]
    cell = 0
    ng = 0
    for j in range(nt + 1):
        if j < nt:
            row, a, w = _cut(E, cnt, D, NA, NB, Q, P, j)
        else:
            row, a, w = -1, 0.0, 0.0
        if row == start:  # the level rises at this group's start
            cell = j + 1
            continue
        # The group from ``start`` ends before ``row``.
        rows[ng, 0] = sa - a
        rows[ng, 1] = sw - w
        rows[ng, 2] = E[start, 0]
        rows[ng, 3] = E[_before(E, cnt, row), 0]  # (row -1: the last score)
        cells[ng] = cell
        ng += 1
        if row < 0:
            break
        start, sa, sw = row, a, w
        cell = j + 1
    return rows[:ng], cells[:ng]


@jit_inline
def _level_of(E, cnt, FS, D, Q, P, x):
    """Return the cell of stored score ``x``: how many splits have their cut at or before it.

    One descent along ``x``'s path: the splits whose cut is still below the
    node form a range (cuts rise with the split), and at each node those
    whose cut goes to the child without ``x`` leave it (counted if that
    child is on the left), a binary search since that too rises with the
    split.  O(log K log C + B log K), touching only the rows on the path.
    """
    C = cnt.shape[0] // 2
    lo, hi = 0, Q.shape[0]  # splits below lo have their cut at or before x, from hi on after it
    v = 1
    while 2 * v < C and lo < hi:
        r = 2 * v + 1
        first, last = lo, hi  # the first split in lo .. hi-1 whose cut goes right
        while first < last:
            mid = (first + last) >> 1
            if D[r, mid] == D[v, mid]:
                last = mid
            else:
                first = mid + 1
        if FS[r] <= x:  # x is in the right child: the cuts going left are before it
            lo = first
            v = r
        else:
            hi = first
            v = 2 * v
    while lo < hi:  # in the bottom node
        mid = (lo + hi) >> 1
        row = _bottom_cut(E, cnt, D, Q, P, v, mid)[0]
        if row >= 0 and E[row, 0] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit_inline
def prefetch_path(cnt, D, b):
    """Prefetch the rows of ``D`` that an insert into bucket ``b`` writes and reads, below the top.

    Each node on the path from ``b``'s bottom node up (written) and its sibling
    (read by the parent's join), from the bottom to depth 6 (the rows above
    are read by every update and stay in cache).  A hint only (see
    :func:`venncal._kernels.quantized_buckets._prefetch`): in a stream, the
    level read at ``q`` comes before the insert of ``q``, in the next call.
    """
    C = cnt.shape[0] // 2
    nt = D.shape[1]
    v = (C + b) >> 1
    while v >= 64:
        for k in range(v * nt, (v + 1) * nt, 8):
            _prefetch(D, k)
        u = v ^ 1
        for k in range(u * nt, (u + 1) * nt, 8):
            _prefetch(D, k)
        v >>= 1


@jit_inline
def dense_level_at(E, cnt, FS, D, Q, P, levels, q):
    """Return the map's level at any score ``q`` (nearest stored score, the smaller at a tie).

    O(log K (log C + B)).  The tree must hold a score.
    """
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    b = _find_bucket(FS, q)
    prefetch_pair(E, cnt, b)  # (the search; in a stream, the insert of q that follows)
    prefetch_path(cnt, D, b)
    pos = _first_not_below(E, 0, b * B, cnt[C + b], q)
    if pos < b * B + cnt[C + b]:
        after = pos
    else:
        nb = _next_nonempty(cnt, b)
        after = nb * B if nb >= 0 else -1
    # The stored score that gives the level, then one descent for it (one inlined
    # copy of _level_of, not three: less for numba to compile into each caller).
    if after >= 0 and E[after, 0] == q:
        x = q
    else:
        before = _before(E, cnt, after)  # (after -1: the last score)
        if before < 0:
            x = E[after, 0]
        elif after >= 0 and not _nearer_lower(E[before, 0], q, E[after, 0]):
            x = E[after, 0]  # the nearer stored score (the smaller at a tie) gives the level
        else:
            x = E[before, 0]
    return levels[_level_of(E, cnt, FS, D, Q, P, x)]


@jit_inline
def dense_calls(E, EK, EW, cnt, FS, D, NA, NB, queue, n, Q, P, levels, op, s, y, w):
    """Single calls from Python: insert the queued observations, then one operation, in one call.

    ``queue`` (shape ``(4, m)``) holds the observations ``(queue[0, i],
    queue[1, i], queue[2, i])`` (score, target 0/1, whole positive weight),
    ``i < n``, inserted as :func:`dense_learn` inserts them (no window), from
    ``queue[3, 0]`` on; each label inserted is set back to 0.0 and each weight
    to 1.0 (the queue's defaults, which ``learn_one`` does not write).  If
    the tree gets full at ``i``, ``queue[3, 0] = i``, ``queue[3, 1] = 1.0``
    and NaN is returned (the caller grows the tree and
    calls again); otherwise ``queue[3, 0] = 0`` and the operation ``op`` is
    done: 0, the level at the score ``s`` (:func:`dense_level_at`; the tree
    must hold a score); 1, delete weight ``w`` of ``(s, y)``
    (:func:`dense_delete`; returns 1.0 if done, 0.0 if not there); 2,
    nothing (returns 0.0).  :func:`venncal._kernels.quantized_packed.packed_calls`
    (what ``QuantizedIsotonic`` calls) unpacks the tree's one array into these
    arguments and calls this kernel.
    """
    for i in range(int(queue[3, 0]), n):
        if not dense_insert(E, EK, EW, cnt, FS, D, NA, NB, queue[0, i], queue[1, i],
                            queue[2, i], Q, P):
            queue[3, 0] = i
            queue[3, 1] = 1.0
            return np.nan
        queue[1, i] = 0.0  # the label and the weight back to their defaults (a single
        queue[2, i] = 1.0  # call writes no label 0 and no weight of one)
    queue[3, 0] = 0.0
    if op == 0:
        return dense_level_at(E, cnt, FS, D, Q, P, levels, s)
    if op == 1:
        return 1.0 if dense_delete(E, EK, EW, cnt, FS, D, NA, NB, s, y, w, Q, P) else 0.0
    return 0.0
