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
weighted target sum, cell).  Invariant: every internal node ``v`` (root 1;
bucket ``b`` is leaf ``C + b``) stands for the reduced groups of the scores
below it, and every node knows its number of scores ``cnt[v]`` and its
first score ``FS[v]`` (which guide the search for a score's bucket).

- A *bottom* node (``v >= C/2``, its children are buckets) stores its
  groups: rows ``(v - C/2) * KB ..`` of ``G``, ``KB = min(K, 2B)``.
- An *upper* node stores only how its children's lists join.  Pushing the
  right child's reduced groups onto the left child's merges nothing but a
  *junction*: the left child's groups from ``jl`` on and the right child's
  before ``jr`` become one group ``J`` (none when ``jr = 0``), and the rest
  stay as they are.  So the node's list is ``L[:jl] ++ [J] ++ R[jr:]``,
  kept as ``JL[v], JR[v]`` and ``J`` in a row of ``G``; its ``i``-th group
  is found by walking down (:func:`_row_at`), and the root's list is read
  out in O(K log C).

Buckets with room take new scores; a full bucket is spread over the
smallest enclosing window of buckets whose fill is below a density bound
(1 at the buckets, 1/2 at the root: a packed-memory array), and a tree too
full for that makes the caller double ``C``.  An update changes one bucket;
its bottom node is reduced again from its first group that the change can
touch up to the first unchanged group that may stay (O(the scores of those
groups)), and each ancestor only shifts its junction's indices, unless the
change reaches the junction, which is then reduced again from the
children's lists (O(groups merged + log C), see :func:`_junction`).  So an
update costs O(B + K log C + log^2 C) at worst and far less in practice: a
change far from a node's junction costs O(1) there.
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


# ------------------------------------------------------------------------ the tree
#
# The arrays of a tree (``QuantizedIsotonic._allocate``), passed one by one
# (numba counts references to arrays taken out of a tuple, with atomic
# operations that would cost more than an update):
#
#   E, EK, EW   the buckets' slots: (score, weight, weighted target sum,
#               cell), the number of distinct targets, the weights of the
#               targets 0 and 1 (others are in the ``obs`` dict);
#   G, GC       the groups of each bottom node (rows ``(v - C/2) * KB ..``)
#               and the junction group of each upper node (row ``C/2 * KB + v``);
#   ng          the number of groups of each internal node;
#   cnt         the number of scores below each node;
#   JL, JR      the junction of each upper node;
#   FS          the first score below each node (``inf`` if none);
#   S, SC, CH   scratch rows of an update, and its change from node to node.


@jit_inline
def _copy_entry(dstE, dstK, dstW, d, srcE, srcK, srcW, s):
    """Copy slot ``s`` to slot ``d``: its row of ``E``, and of ``EK`` and ``EW`` unless those are empty.

    (The dense tree, :mod:`venncal._kernels.quantized_dense`, keeps 3
    columns of ``E`` and no ``EK``, ``EW``; the tree of groups 4 and both.)
    """
    for c in range(dstE.shape[1]):
        dstE[d, c] = srcE[s, c]
    for _ in range(min(dstK.shape[0], 1)):  # a loop, not a branch: see _row_at
        dstK[d] = srcK[s]
        dstW[d, 0] = srcW[s, 0]
        dstW[d, 1] = srcW[s, 1]


@jit_inline
def _copy_group(dst, dstC, d, src, srcC, s):
    dst[d, NUM] = src[s, NUM]
    dst[d, DEN] = src[s, DEN]
    dst[d, LO] = src[s, LO]
    dst[d, HI] = src[s, HI]
    dstC[d] = srcC[s]


@jit_inline
def _find_bucket(FS, s):
    """Return the bucket where score ``s`` is or belongs.

    The last non-empty bucket starting at or before ``s`` (bucket 0 if
    none), found by the first scores of the subtrees in ``FS``.
    """
    C = FS.shape[0] // 2
    v = 1
    while v < C:
        r = 2 * v + 1
        v = r if s >= FS[r] else 2 * v
    return v - C


@jit_inline
def _row_at(JL, JR, KB, v, i):
    """Return the row of ``G`` that holds group ``i`` of internal node ``v``.

    An upper node's list is ``L[:jl] ++ [J] ++ R[jr:]`` (no junction group
    when ``jr = 0``), so the group is found by walking down to a bottom node
    or to the junction row of an upper node: O(height of v).  (One exit and
    a plain integer result: numba then counts no references in the loops
    that call it.)
    """
    half = JL.shape[0] // 2
    r = -1
    while v < half and r < 0:
        jl, jr = JL[v], JR[v]
        if i < jl:
            v = 2 * v
        elif jr > 0 and i == jl:
            r = half * KB + v
        else:
            i += jr - jl - (1 if jr > 0 else 0)
            v = 2 * v + 1
    if r < 0:
        r = (v - half) * KB + i
    return r


# A walk over an upper node's list, group by group, keeps a stack of frames
# ``(node, lo, hi, stage)`` in a slice of an int64 array (its first cell is
# the stack's size): the frame walks the node's groups ``lo .. hi-1`` part by
# part (left child, junction, right child), pushing a frame for a child's
# part.  Each frame is pushed and popped once, so walking m consecutive
# groups costs O(m + height), not the O(m height) of finding each anew.
_WALK = 300  # cells per walk: 1 + 4 frames per level, for trees up to 2**70 buckets
CHANGE_CELLS = 4 + 2 * _WALK  # CH: an update's change (4 cells), then two walks
_DIRECT = 4  # groups of each side of a junction found directly before walking


@jit
def _walk_start(IT, base, v, lo, hi):
    """Start a walk over groups ``lo .. hi-1`` of internal node ``v``."""
    IT[base] = 1
    IT[base + 1], IT[base + 2], IT[base + 3], IT[base + 4] = v, lo, hi, 0


@jit
def _walk_next(JL, JR, KB, IT, base, forward):
    """Return the row of ``G`` of the walk's next group (ascending if ``forward``), -1 at its end."""
    half = JL.shape[0] // 2
    row = -1
    sp = IT[base]
    while sp > 0 and row < 0:
        f = base + 1 + 4 * (sp - 1)
        w, lo, hi, stage = IT[f], IT[f + 1], IT[f + 2], IT[f + 3]
        if w >= half:  # a bottom node: its rows
            if hi <= lo:
                sp -= 1
            elif forward:
                row = (w - half) * KB + lo
                IT[f + 1] = lo + 1
            else:
                row = (w - half) * KB + hi - 1
                IT[f + 2] = hi - 1
        elif stage == 3:
            sp -= 1
        else:
            IT[f + 3] = stage + 1
            jl, jr = JL[w], JR[w]
            hj = 1 if jr > 0 else 0
            part = stage if forward else 2 - stage  # 0: left child, 1: junction, 2: right
            g = base + 1 + 4 * sp
            if part == 0 and min(hi, jl) > lo:
                IT[g], IT[g + 1], IT[g + 2], IT[g + 3] = 2 * w, lo, min(hi, jl), 0
                sp += 1
            elif part == 1 and hj == 1 and lo <= jl < hi:
                row = half * KB + w
            elif part == 2 and hi > max(lo, jl + hj):
                shift = jr - jl - hj  # right child's index of the node's group
                IT[g], IT[g + 1] = 2 * w + 1, max(lo, jl + hj) + shift
                IT[g + 2], IT[g + 3] = hi + shift, 0
                sp += 1
    IT[base] = sp
    return row


@jit_inline
def _junction(G, GC, ng, cnt, JL, JR, FS, v, splits, IT):
    """Reduce the junction of upper node ``v`` from its children's lists, from scratch.

    Pushing the right child's groups onto the left child's (both reduced)
    merges only at the junction: each right group that does not go on
    above the stack's top merges with it, and the merged group with the
    left groups below it while their cells are not lower.  The first right
    group that goes on without a merge ends it: the rest follow as they are.
    The junction group is kept in row ``C/2 * KB + v`` of ``G``.  Cost:
    O(groups merged + height), by two walks (see :func:`_walk_next`).
    """
    half = ng.shape[0] // 2
    KB = (G.shape[0] - half) // half
    last = splits.shape[0]
    L, R = 2 * v, 2 * v + 1
    n_left, n_right = ng[L], ng[R]
    k = n_left  # the left child's groups before k stay as they are
    i = 0  # the right child's groups before i are in the junction
    # L[k-1] and R[i] are found from v (O(height) each) for the first _DIRECT
    # of each side, then by a walk (O(1) each): quick for the short
    # junctions of practice, O(groups merged + height) at worst.
    wl, wr = 4, 4 + _WALK  # the walks' cells in IT (see CHANGE_CELLS)
    below = _row_at(JL, JR, KB, L, k - 1) if k > 0 else -1  # the row of L[k-1]
    have = False
    jn = jd = jlo = jhi = 0.0
    jc = 0
    while i < n_right:
        if i < _DIRECT:
            r = _row_at(JL, JR, KB, R, i)
        else:
            if i == _DIRECT:
                _walk_start(IT, wr, R, i, n_right)
            r = _walk_next(JL, JR, KB, IT, wr, True)
        if GC[r] > (jc if have else (GC[below] if k > 0 else -1)):
            break
        if have:
            jn += G[r, NUM]
            jd += G[r, DEN]
        else:
            jn, jd, jlo = G[r, NUM], G[r, DEN], G[r, LO]
            have = True
        jhi = G[r, HI]
        i += 1
        while k > 0:  # merge with L[k-1] while its cell is at least the junction's
            p = GC[below]
            if p < last and jn / jd > splits[p]:
                break
            jn += G[below, NUM]
            jd += G[below, DEN]
            jlo = G[below, LO]
            k -= 1
            if k == 0:
                below = -1
            elif n_left - k < _DIRECT:
                below = _row_at(JL, JR, KB, L, k - 1)
            else:
                if n_left - k == _DIRECT:
                    _walk_start(IT, wl, L, 0, k)
                below = _walk_next(JL, JR, KB, IT, wl, False)
        jc = level_cell(jn / jd, splits)
    if have:
        JL[v], JR[v] = k, i
        r = half * KB + v
        G[r, NUM], G[r, DEN], G[r, LO], G[r, HI] = jn, jd, jlo, jhi
        GC[r] = jc
        ng[v] = k + 1 + n_right - i
    else:
        JL[v], JR[v] = n_left, 0
        ng[v] = n_left + n_right
    cnt[v] = cnt[L] + cnt[R]
    FS[v] = min(FS[L], FS[R])


# The same, compiled on its own, for full rebuilds (which are not hot): one copy
# less to compile into a caller (inlined in the hot path, where a call would
# cost 13% of an update).
_junction_alone = jit(_junction.py_func)


@jit_inline
def _vpush(G, GC, base, top, S, SC, ns, num, den, lo, hi, c, splits):
    """:func:`_push` onto the stack ``G[base:base+top] ++ S[:ns]``; return ``top << 32 | ns``.

    New groups go to the scratch rows ``S`` only, so rows of ``G`` past
    ``base + top`` keep the node's former groups for the caller to reuse; a
    merge with the last of the node's own rows pops it.
    """
    last = splits.shape[0]
    while True:
        if ns > 0:
            j = ns - 1
            if SC[j] < c:
                break
            num += S[j, NUM]
            den += S[j, DEN]
            lo = S[j, LO]
            ns -= 1
        elif top > 0:
            j = base + top - 1
            if GC[j] < c:
                break
            num += G[j, NUM]
            den += G[j, DEN]
            lo = G[j, LO]
            top -= 1
        else:
            break
        # As in _push: go on merging while the mean is at most the next split
        # point of the group below, and find the cell once the merging stops.
        p = SC[ns - 1] if ns > 0 else (GC[base + top - 1] if top > 0 else -1)
        if p >= 0 and (p == last or num / den <= splits[p]):
            c = p
            continue
        c = level_cell(num / den, splits)
    S[ns, NUM] = num
    S[ns, DEN] = den
    S[ns, LO] = lo
    S[ns, HI] = hi
    SC[ns] = c
    return (top << 32) | (ns + 1)  # one integer: see _row_at


@jit_inline
def _bottom_update(E, G, GC, ng, cnt, FS, S, SC, v, s, splits, chg):
    """Update bottom node ``v`` (its children are buckets) after its data changed at ``s``.

    Writes ``chg = (p0, p1_old, p1_new, n_old)``: its former groups ``p0 ..
    p1_old-1`` (of ``n_old``) are now ``p0 .. p1_new-1``, the others as
    they were (those from ``p1_old`` on shifted).  The node's groups that
    end below ``s`` stay (unions of unchanged data are allowed merges); the
    buckets' scores after them are pushed again, onto scratch rows, until a
    score above ``s`` starts a former group whose cell exceeds the stack's
    top cell: from there on the former groups reduce the same scores onto a
    stack that cannot merge with them, so they stay.  (A reduced list is
    unique: its groups are the runs of the projected isotonic fit, see the
    module docstring.)  Cost: the scores of the groups around ``s``.
    """
    C = ng.shape[0]
    B = E.shape[0] // C
    half = C // 2
    KB = (G.shape[0] - half) // half
    base = (v - half) * KB
    n_old = ng[v]
    top = _first_not_below(G, HI, base, n_old, s) - base  # the groups that end below s
    j = top  # the node's former groups from here on are not kept yet
    after = G[base + top - 1, HI] if top > 0 else -np.inf
    ns = 0
    splice = False
    for bucket in (2 * v - C, 2 * v + 1 - C):
        end = bucket * B + cnt[C + bucket]
        i = bucket * B
        if top > 0:
            i = _first_not_below(E, 0, bucket * B, cnt[C + bucket], after)
            if i < end and E[i, 0] == after:
                i += 1
        while i < end and not splice:
            x = E[i, 0]
            if x > s:  # can the former groups stay from x on?
                while j < n_old and G[base + j, LO] < x:
                    j += 1
                if j < n_old and G[base + j, LO] == x:
                    below = SC[ns - 1] if ns > 0 else (GC[base + top - 1] if top > 0 else -1)
                    splice = GC[base + j] > below
            if not splice:
                t_ns = _vpush(G, GC, base, top, S, SC, ns, E[i, 2], E[i, 1], x, x,
                              np.int64(E[i, 3]), splits)
                top, ns = t_ns >> 32, t_ns & 0xFFFFFFFF
                i += 1
        if splice:
            break
    p1_old = j if splice else n_old
    shift = top + ns - p1_old  # move the former groups p1_old.. to follow the new ones
    if shift < 0:
        for r in range(base + p1_old, base + n_old):
            _copy_group(G, GC, r + shift, G, GC, r)
    elif shift > 0:
        for r in range(base + n_old - 1, base + p1_old - 1, -1):
            _copy_group(G, GC, r + shift, G, GC, r)
    for r in range(ns):
        _copy_group(G, GC, base + top + r, S, SC, r)
    ng[v] = n_old + shift
    cnt[v] = cnt[2 * v] + cnt[2 * v + 1]
    FS[v] = min(FS[2 * v], FS[2 * v + 1])
    chg[0], chg[1], chg[2], chg[3] = top, p1_old, top + ns, n_old


@jit_inline
def _node_update(G, GC, ng, cnt, JL, JR, FS, v, right, splits, chg):
    """Update upper node ``v`` after its child ``2v + right`` changed, as ``chg`` says.

    ``chg = (c0, c1_old, c1_new, nc_old)``: the child's former groups ``c0
    .. c1_old-1`` (of ``nc_old``) became ``c0 .. c1_new-1``; it becomes the
    same for ``v``.  A change that leaves the junction and the group on
    each side of it as they were (``c1_old < jl`` on the left, ``c0 > jr``
    on the right) only shifts indices: O(1).  Otherwise :func:`_junction`.
    """
    c0, c1_old, c1_new, nc_old = chg[0], chg[1], chg[2], chg[3]
    n_old = ng[v]
    jl, jr = JL[v], JR[v]
    d = c1_new - c1_old
    n_right = ng[2 * v + 1]
    o_old = n_old - (n_right if right == 0 else nc_old)  # node index of R[i], i >= jr
    if right == 0 and c1_old < jl:
        JL[v] = jl + d
        ng[v] = n_old + d
        cnt[v] = cnt[2 * v] + cnt[2 * v + 1]
        FS[v] = min(FS[2 * v], FS[2 * v + 1])
    elif right == 1 and c0 > jr:
        ng[v] = n_old + d
        cnt[v] = cnt[2 * v] + cnt[2 * v + 1]
        c0, c1_old, c1_new = o_old + c0, o_old + c1_old, o_old + c1_new
    else:
        _junction(G, GC, ng, cnt, JL, JR, FS, v, splits, chg)
        o_new = ng[v] - n_right
        if right == 0:
            t = max(jr, JR[v])
            c0, c1_old, c1_new = min(c0, jl, JL[v]), o_old + t, o_new + t
        else:
            t = min(max(JR[v], c1_new, jr + d), n_right)
            c0, c1_old, c1_new = min(jl, JL[v]), o_old + t - d, o_new + t
    chg[0], chg[1], chg[2], chg[3] = c0, c1_old, c1_new, n_old


# Compiled on its own (not inlined): inlined into tree_insert and tree_delete,
# and those into tree_learn, it made tree_learn take 33 s to compile from cold
# (and tree_delete, called from Python, 11 s more); as a call: 11 s in all,
# and an update about 5% longer.
@jit
def _update_change(E, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, bucket, s, splits):
    """Update the ancestors of ``bucket`` after its data changed at score ``s`` only."""
    C = ng.shape[0]
    B = E.shape[0] // C
    FS[C + bucket] = E[bucket * B, 0] if cnt[C + bucket] > 0 else np.inf
    v = (C + bucket) >> 1
    _bottom_update(E, G, GC, ng, cnt, FS, S, SC, v, s, splits, CH)
    while v > 1:
        right = v & 1
        v >>= 1
        _node_update(G, GC, ng, cnt, JL, JR, FS, v, right, splits, CH)


@jit
def _build_node(E, G, GC, ng, cnt, JL, JR, FS, v, splits, IT):
    """Build internal node ``v`` from its children from scratch."""
    C = ng.shape[0]
    half = C // 2
    if v < half:
        _junction_alone(G, GC, ng, cnt, JL, JR, FS, v, splits, IT)
        return
    B = E.shape[0] // C
    KB = (G.shape[0] - half) // half
    base = (v - half) * KB
    top = 0
    for b in (2 * v - C, 2 * v + 1 - C):
        for i in range(b * B, b * B + cnt[C + b]):
            top = _push(G, GC, base, top, top, E[i, 2], E[i, 1], E[i, 0], E[i, 0],
                        np.int64(E[i, 3]), splits)[0]
    ng[v] = top
    cnt[v] = cnt[2 * v] + cnt[2 * v + 1]
    FS[v] = min(FS[2 * v], FS[2 * v + 1])


@jit
def _distribute(E, EK, EW, cnt, FS, b0, size, tmpE, tmpK, tmpW):
    """Spread sorted entries evenly over buckets ``b0 .. b0+size-1`` (no node built)."""
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    m = tmpE.shape[0]
    for j in range(size):
        start, stop = j * m // size, (j + 1) * m // size
        b = b0 + j
        for k in range(stop - start):
            _copy_entry(E, EK, EW, b * B + k, tmpE, tmpK, tmpW, start + k)
        cnt[C + b] = stop - start
        FS[C + b] = E[b * B, 0] if stop > start else np.inf


@jit
def _build_above(E, G, GC, ng, cnt, JL, JR, FS, v, h, splits, IT):
    """Rebuild the internal nodes of the height-``h`` subtree at ``v``, then its ancestors.

    The ancestors' lists are those of the same data, but their junctions
    are reduced again so that every sum stays the sum of the current groups.
    """
    for lev in range(h - 1, -1, -1):
        first = v << lev
        for u in range(first, first + (1 << lev)):
            _build_node(E, G, GC, ng, cnt, JL, JR, FS, u, splits, IT)
    v >>= 1
    while v >= 1:
        _build_node(E, G, GC, ng, cnt, JL, JR, FS, v, splits, IT)
        v >>= 1


@jit
def _gather(E, EK, EW, cnt, b0, size, m):
    """Copy the ``m`` stored scores of buckets ``b0 .. b0+size-1``, in order (rows of E, EK, EW)."""
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    outE = np.empty((m, E.shape[1]))
    outK = np.empty(m if EK.shape[0] > 0 else 0, dtype=np.int64)
    outW = np.empty((m if EK.shape[0] > 0 else 0, 2))
    k = 0
    for b in range(b0, b0 + size):
        for i in range(b * B, b * B + cnt[C + b]):
            _copy_entry(outE, outK, outW, k, E, EK, EW, i)
            k += 1
    return outE, outK, outW


@jit
def _rebalance_window(cnt, B, b):
    """Return the subtree over which to spread full bucket ``b``: ``v << 8 | h``, or -1.

    ``v`` is its root and ``h`` its height: the lowest ancestor whose
    buckets are below a density bound that falls from 1 at the buckets to
    1/2 at the root (a packed-memory array).  -1 when the whole tree is too
    full, and must grow.
    """
    C = cnt.shape[0] // 2
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
            return (v << 8) | h
    return -1


@jit
def spread_around(E, EK, EW, cnt, FS, b):
    """Spread the scores of the window around full bucket ``b`` evenly (no node built).

    Returns the window as ``v << 8 | h`` (its node and height; the caller
    builds its nodes), or -1, with nothing done, when the tree must grow.
    """
    C = cnt.shape[0] // 2
    found = _rebalance_window(cnt, E.shape[0] // C, b)
    if found >= 0:
        v, h = found >> 8, found & 0xFF
        b0 = (v << h) - C
        tmpE, tmpK, tmpW = _gather(E, EK, EW, cnt, b0, 1 << h, cnt[v])
        _distribute(E, EK, EW, cnt, FS, b0, 1 << h, tmpE, tmpK, tmpW)
    return found


@jit
def _rebalance(E, EK, EW, G, GC, ng, cnt, JL, JR, FS, b, splits, IT):
    """Make room in full bucket ``b``; return False when the whole tree is too full."""
    found = spread_around(E, EK, EW, cnt, FS, b)
    if found < 0:
        return False
    _build_above(E, G, GC, ng, cnt, JL, JR, FS, found >> 8, found & 0xFF, splits, IT)
    return True


@jit
def tree_entries(E, EK, EW, cnt):
    """Every stored score in order, as copies of its rows of ``E``, ``EK`` and ``EW``."""
    return _gather(E, EK, EW, cnt, 0, cnt.shape[0] // 2, cnt[1])


@jit
def tree_fill(E, EK, EW, G, GC, ng, cnt, JL, JR, FS, IT, tmpE, tmpK, tmpW, splits):
    """Build an empty tree from sorted entries spread evenly over all buckets."""
    C = ng.shape[0]
    H = 0
    while (1 << H) < C:
        H += 1
    _distribute(E, EK, EW, cnt, FS, 0, C, tmpE, tmpK, tmpW)
    _build_above(E, G, GC, ng, cnt, JL, JR, FS, 1, H, splits, IT)


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


@jit_inline
def ring_oldest(ring, state):
    """Return the slot of the window's oldest observation if the window is full, else -1.

    ``ring`` holds the window's observations ``(score, y, weight)``;
    ``state = [head, count]``: the oldest's slot and how many there are.
    """
    return state[0] if state[1] == ring.shape[0] else -1


@jit_inline
def ring_push(ring, state, s, y, w):
    """Add an observation to the window, in place of the oldest if it is full."""
    head, count = state[0], state[1]
    if count == ring.shape[0]:
        slot = head
        state[0] = (head + 1) % ring.shape[0]
    else:
        slot = (head + count) % ring.shape[0]
        state[1] = count + 1
    ring[slot, 0], ring[slot, 1], ring[slot, 2] = s, y, w


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
