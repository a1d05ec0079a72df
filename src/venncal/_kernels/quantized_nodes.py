"""The tree of groups of the unordered quantized stream (Gokcesu & Gokcesu 2022, section V).

The tree (:func:`.quantized_tree.tree_insert`) is a complete binary tree over ``C >= 2``
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

from ._jit import jit, jit_inline
from .quantized import (
    DEN,
    ED,
    EN,
    HI,
    LO,
    NUM,
    _copy_group,
    _first_not_below,
    fast_at_most,
    fast_cell,
    merge_sums,
    set_group,
)
from .quantized_buckets import _distribute, spread_around
from .quantized_scores import score_refresh, tree_slow
from .quantized_walk import _DIRECT, _WALK, _row_at, _walk_next, _walk_start

# The arrays of a tree (``QuantizedIsotonic._allocate``), passed one by one
# (numba counts references to arrays taken out of a tuple, with atomic
# operations that would cost more than an update):
#
#   E, EK, EW   the buckets' slots and the exact weights at each score,
#   XW, XT      and the dicts of the exact weights that are not one float
#               (see :mod:`.quantized_scores`);
#   G, GC       the groups of each bottom node (rows ``(v - C/2) * KB ..``)
#               and the junction group of each upper node (row ``C/2 * KB + v``);
#   ng          the number of groups of each internal node;
#   cnt         the number of scores below each node;
#   JL, JR      the junction of each upper node;
#   FS          the first score below each node (``inf`` if none);
#   S, SC, CH   scratch rows of an update, and its change from node to node;
#   ACC         scratch long accumulators for exact decisions;
#   LV          the level table (the midpoints between levels).
#
# A group is a row ``(num, den, lo, hi, en, ed)`` of ``G``: float sums, its
# first and last score, and bounds on the sums' errors (each addition adds
# its rounding error exactly, found by TwoSum).  Its cell is decided from
# the float sums when they are clear of the midpoint, and otherwise from the
# exact weights of its scores (:func:`.quantized_scores.tree_slow`), so the
# map is the exact one whatever the weights.


@jit_inline
def _at_most(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, num, den, en, ed, lo, hi, p):
    """1 if the group's mean is at most the midpoint above level ``p`` (always for the
    last level), else 0; -1 when only the exact dicts can say and there are none here
    (``XW is None``: the caller stops and decides with them)."""
    r = 1 if p == LV.shape[1] else fast_at_most(num, den, en, ed, p, LV)
    if r < 0:
        if XW is None:
            return -1
        else:
            r = tree_slow(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, num, den, en, ed, lo, hi, p)
    return r


@jit_inline
def _cell(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, num, den, en, ed, lo, hi):
    """The group's level; -1 when only the exact dicts can say and there are none here."""
    c = fast_cell(num, den, en, ed, LV)
    if c < 0:
        if XW is None:
            return -1
        else:
            c = tree_slow(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, num, den, en, ed, lo, hi,
                          np.int64(-1))
    return c


@jit_inline
def _junction(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, IT):
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
    L, R = 2 * v, 2 * v + 1
    n_left, n_right = ng[L], ng[R]
    k = n_left  # the left child's groups before k stay as they are
    i = np.int64(0)  # the right child's groups before i are in the junction
    # L[k-1] and R[i] are found from v (O(height) each) for the first _DIRECT
    # of each side, then by a walk (O(1) each): quick for the short
    # junctions of practice, O(groups merged + height) at worst.
    wl, wr = np.int64(4), np.int64(4 + _WALK)  # the walks' cells in IT (see CHANGE_CELLS)
    below = _row_at(JL, JR, KB, L, k - 1) if k > 0 else -1  # the row of L[k-1]
    have = False
    jn = jd = jlo = jhi = jen = jed = 0.0
    jc = 0
    while i < n_right:
        if i < _DIRECT:
            r = _row_at(JL, JR, KB, R, i)
        else:
            if i == _DIRECT:
                _walk_start(IT, wr, R, i, n_right)
            r = _walk_next(JL, JR, KB, IT, wr, np.bool_(True))
        if GC[r] > (jc if have else (GC[below] if k > 0 else -1)):
            break
        if have:
            jn, jd, jen, jed = merge_sums(jn, jd, jen, jed, G, r)[:4]
        else:
            jn, jd, jlo, jen, jed = G[r, NUM], G[r, DEN], G[r, LO], G[r, EN], G[r, ED]
            have = True
        jhi = G[r, HI]
        i += 1
        while k > 0:  # merge with L[k-1] while its cell is at least the junction's
            r = _at_most(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, jn, jd, jen, jed, jlo, jhi,
                         GC[below])
            if r < 0:
                return False
            if r == 0:
                break
            jn, jd, jen, jed = merge_sums(jn, jd, jen, jed, G, below)[:4]
            jlo = G[below, LO]
            k -= 1
            if k == 0:
                below = -1
            elif n_left - k < _DIRECT:
                below = _row_at(JL, JR, KB, L, k - 1)
            else:
                if n_left - k == _DIRECT:
                    _walk_start(IT, wl, L, np.int64(0), k)
                below = _walk_next(JL, JR, KB, IT, wl, np.bool_(False))
        jc = _cell(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, jn, jd, jen, jed, jlo, jhi)
        if jc < 0:
            return False
    if have:
        JL[v], JR[v] = k, i
        set_group(G, GC, half * KB + v, jn, jd, jlo, jhi, jen, jed, jc)
        ng[v] = k + 1 + n_right - i
    else:
        JL[v], JR[v] = n_left, 0
        ng[v] = n_left + n_right
    cnt[v] = cnt[L] + cnt[R]
    FS[v] = min(FS[L], FS[R])
    return True


# The same, compiled on its own, for full rebuilds (which are not hot): one copy
# less to compile into a caller (inlined in the hot path, where a call would
# cost 13% of an update).
_junction_alone = jit(_junction.py_func)


@jit_inline
def _vpush(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, G, GC, base, top, S, SC, ns, num, den, en,
           ed, lo, hi, c):
    """Push a group onto the stack ``G[base:base+top] ++ S[:ns]``; return ``top << 32 | ns``.

    Merges while the cells do not increase, as :func:`_gpush`.  New groups
    go to the scratch rows ``S`` only, so rows of ``G`` past ``base + top``
    keep the node's former groups for the caller to reuse; a merge with the
    last of the node's own rows pops it.
    """
    while True:
        if ns > 0:
            j = ns - 1
            if SC[j] < c:
                break
            num, den, en, ed = merge_sums(num, den, en, ed, S, j)[:4]
            lo = S[j, LO]
            ns -= 1
        elif top > 0:
            j = base + top - 1
            if GC[j] < c:
                break
            num, den, en, ed = merge_sums(num, den, en, ed, G, j)[:4]
            lo = G[j, LO]
            top -= 1
        else:
            break
        # As in _gpush: go on merging while the mean is at most the next
        # midpoint of the group below, and find the cell once the merging stops.
        p = SC[ns - 1] if ns > 0 else (GC[base + top - 1] if top > 0 else -1)
        if p >= 0:
            r = _at_most(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, num, den, en, ed, lo, hi, p)
            if r < 0:
                return -1
            if r == 1:
                c = p
                continue
        c = _cell(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, num, den, en, ed, lo, hi)
        if c < 0:
            return -1
    set_group(S, SC, ns, num, den, lo, hi, en, ed, c)
    return (top << 32) | (ns + 1)  # one integer: see _row_at


# _gpush and _push_scratch end their merge step with the same decision (merge on
# at the level p of the group below if the mean is at most its midpoint, else
# find the level).  Kept written out in both: one inlined helper for it (with the
# bucket geometry returned by quantized_tree._slot) made inserts of the tree of
# groups about 20% slower in CPU time (K = 1001, 3e4 uniform scores, best of 5,
# base and change interleaved 3 times on a loaded machine; 2026-11-25).
@jit_inline
def _gpush(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, G, GC, base, top, num, den, en, ed, lo, hi,
           c):
    """Push a group after rows ``base .. base+top-1`` of bottom node ``v``; return the new count.

    Merging goes on while the mean is at most the next midpoint of the
    group before (its cell then is at most that group's); the cell is found
    only when the merging stops.
    """
    while top > 0 and GC[base + top - 1] >= c:
        j = base + top - 1
        num, den, en, ed = merge_sums(num, den, en, ed, G, j)[:4]
        lo = G[j, LO]
        top -= 1
        if top > 0:
            p = GC[base + top - 1]
            r = _at_most(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, num, den, en, ed, lo, hi, p)
            if r < 0:
                return -1
            if r == 1:
                c = p
                continue
        c = _cell(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, num, den, en, ed, lo, hi)
        if c < 0:
            return -1
    set_group(G, GC, base + top, num, den, lo, hi, en, ed, c)
    return top + 1


@jit_inline
def _bottom_update(E, EK, EW, XW, XT, G, GC, ng, cnt, FS, S, SC, ACC, LV, v, s, chg):
    """Update bottom node ``v`` (its children are buckets) after its data changed at ``s``.

    Writes ``chg = (p0, p1_old, p1_new, n_old)``: its former groups ``p0 ..
    p1_old-1`` (of ``n_old``) are now ``p0 .. p1_new-1``, the others as
    they were (those from ``p1_old`` on shifted).  The node's groups that
    end below ``s`` stay (unions of unchanged data are allowed merges); the
    buckets' scores after them are pushed again, onto scratch rows, until a
    score above ``s`` starts a former group whose cell exceeds the stack's
    top cell: from there on the former groups reduce the same scores onto a
    stack that cannot merge with them, so they stay.  (A reduced list is
    unique: its groups are the runs of the projected isotonic fit, see
    :mod:`venncal._kernels.quantized`.)  Cost: the scores of the groups
    around ``s``.
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
                t_ns = _vpush(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, G, GC, base, top, S, SC,
                              ns, E[i, 2], E[i, 1], E[i, 5], E[i, 4], x, x, np.int64(E[i, 3]))
                if t_ns < 0:  # an exact decision is needed: nothing changed yet
                    return False
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
    return True


@jit_inline
def _node_update(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, right, chg):
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
        if not _junction(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, chg):
            return False  # nothing changed
        o_new = ng[v] - n_right
        if right == 0:
            t = max(jr, JR[v])
            c0, c1_old, c1_new = min(c0, jl, JL[v]), o_old + t, o_new + t
        else:
            t = min(max(JR[v], c1_new, jr + d), n_right)
            c0, c1_old, c1_new = min(jl, JL[v]), o_old + t - d, o_new + t
    chg[0], chg[1], chg[2], chg[3] = c0, c1_old, c1_new, n_old
    return True


# Compiled on its own (not inlined): inlined into tree_insert and tree_delete,
# and those into tree_learn, it made tree_learn take 33 s to compile from cold
# (and tree_delete, called from Python, 11 s more); as a call: 11 s in all,
# and an update about 5% longer.  The incremental updates get no dicts
# (``XW=None``): passing numba's typed dicts through the inlined loops of a
# node update cost a third of the speed (reference counting); when one of
# their decisions needs the exact weights they stop, having changed nothing
# at that node, and the node and its ancestors are rebuilt with them.
@jit
def update_change(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, S, SC, CH, ACC, LV, bucket, s):
    """Update the ancestors of ``bucket`` after its data changed at score ``s`` only."""
    C = ng.shape[0]
    B = E.shape[0] // C
    FS[C + bucket] = E[bucket * B, 0] if cnt[C + bucket] > 0 else np.inf
    v = (C + bucket) >> 1
    done = _bottom_update(E, EK, EW, None, None, G, GC, ng, cnt, FS, S, SC, ACC, LV, v, s, CH)
    while done and v > 1:
        right = v & 1
        v >>= 1
        done = _node_update(E, EK, EW, None, None, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, right,
                            CH)
    while not done and v >= 1:  # rebuilt from its children, deciding exactly
        _build_node(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, CH)
        v >>= 1


@jit
def _build_node(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, IT):
    """Build internal node ``v`` from its children from scratch; False if it needs ``XW`` (None)."""
    C = ng.shape[0]
    half = C // 2
    if v < half:
        return _junction_alone(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, IT)
    B = E.shape[0] // C
    KB = (G.shape[0] - half) // half
    base = (v - half) * KB
    top = 0
    for b in (2 * v - C, 2 * v + 1 - C):
        for i in range(b * B, b * B + cnt[C + b]):
            top = _gpush(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, G, GC, base, top, E[i, 2],
                         E[i, 1], E[i, 5], E[i, 4], E[i, 0], E[i, 0], np.int64(E[i, 3]))
            if top < 0:
                return False
    ng[v] = top
    cnt[v] = cnt[2 * v] + cnt[2 * v + 1]
    FS[v] = min(FS[2 * v], FS[2 * v + 1])
    return True


@jit_inline
def _build_either(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, IT):
    """:func:`_build_node` without the dicts, and with them if an exact decision needs them."""
    if not _build_node(E, EK, EW, None, None, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, IT):
        _build_node(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, IT)


@jit
def _build_above(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, h, IT):
    """Rebuild the internal nodes of the height-``h`` subtree at ``v``, then its ancestors.

    The ancestors' lists are those of the same data, but their junctions
    are reduced again so that every sum stays the sum of the current groups.
    """
    for lev in range(h - 1, -1, -1):
        first = v << lev
        for u in range(first, first + (1 << lev)):
            _build_either(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, u, IT)
    v >>= 1
    while v >= 1:
        _build_either(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, v, IT)
        v >>= 1


@jit
def rebalance(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, b, IT):
    """Make room in full bucket ``b``; return False when the whole tree is too full."""
    found = spread_around(E, EK, EW, cnt, FS, b)
    if found < 0:
        return False
    _build_above(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, found >> 8,
                 found & 0xFF, IT)
    return True


@jit
def tree_fill(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, IT, tmpE, tmpK, tmpW):
    """Build an empty tree from sorted entries spread evenly over all buckets.

    The entries give each score and its exact weights (``E[:, 0]``, ``EK``,
    ``EW``, with ``XW`` and ``XT``); the rest of each row is computed here.
    """
    C = ng.shape[0]
    H = 0
    while (1 << H) < C:
        H += 1
    _distribute(E, EK, EW, cnt, FS, np.int64(0), C, tmpE, tmpK, tmpW)
    B = E.shape[0] // C
    for b in range(C):
        for pos in range(b * B, b * B + cnt[C + b]):
            score_refresh(E, EK, EW, XW, XT, cnt, FS, ACC, LV, pos)
    _build_above(E, EK, EW, XW, XT, G, GC, ng, cnt, JL, JR, FS, ACC, LV, np.int64(1), H, IT)
