"""Conformal test martingales over a stream of scores: smoothed p-values and Jumper betting.

Smoothed conformal p-values (Vovk, Gammerman & Shafer, *Algorithmic Learning in a
Random World*, and Vovk 2021, *Testing randomness online*).  Score ``z_n`` gets

    p_n = (#{i <= n: a_i > a_n} + U_n #{i <= n: a_i = a_n}) / n

where ``a_i = A(bag_n, z_i)`` is the nonconformity of ``z_i`` in the bag
``{z_1, ..., z_n}`` and ``U_n`` a uniform number drawn for step ``n``.  Three
nonconformity measures, by code (:data:`NONCONFORMITY`):

* ``0`` ("high"): ``a = z`` (large scores are strange);
* ``1`` ("low"): ``a = -z`` (small scores are strange);
* ``2`` ("two-sided"): ``a = |z - m_n|``, with ``m_n`` the lower median of the bag
  (its element of rank ``(n - 1) // 2`` from 0).  The median is that of the bag at
  step ``n``, so the earlier ``a_i`` are recomputed at every step (the full
  conformal form: the p-values are exactly uniform under exchangeability).

The counts are integers computed exactly.  "Two-sided" compares ``|z_i - m|``
with ``|z_n - m|`` as real numbers: the scores stranger than ``z_n`` lie
outside the closed interval between ``z_n`` and its reflection ``2m - z_n``, and
``v < 2m - z`` is decided by the sign of ``v + z - 2m`` from TwoSum (exact for
``|scores| < 2**1022``, which the caller checks).

Two structures count, with the same integers:

* :func:`pvalues_fresh`: a batch (from the start of a stream, or on top of a bag), through
  counts on the ranks of the sorted distinct scores and a Fenwick tree over blocks
  of them (``O(n log n)``);
* :func:`pvalues_treap`: a stream that continues, one score at a time, through a
  treap (a binary search tree with pseudo-random heap priorities, expected depth
  ``O(log n)``) holding the distinct scores, their multiplicities and subtree
  totals; :func:`treap_build` makes it from a sorted bag in ``O(n)``.

``U_n`` is a counter-based generator (SplitMix64 of the seed and ``n``): the same
step has the same ``U_n`` however the stream is split.

Betting (:func:`jumper_bet`): the Jumper of Vovk (2021) over betting functions
``f_eps(p) = 1 + eps (p - 1/2)``, mixed at jumping rates ``J_r`` and averaged
over the rates, kept as in :mod:`venncal._kernels.jumper`: the normalised
distribution of each rate's capital over the functions, and ``log S_r`` as a
compensated sum (TwoSum).  Each ``f_eps`` lies in ``[1/2, 3/2]`` for
``|eps| <= 1``, so no factor is 0 or overflows, and after mixing every weight is
at least ``J / K``: nothing underflows however long the stream.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline
from .dd import two_sum_jit

__all__ = ["NONCONFORMITY", "jumper_bet", "pvalues_fresh", "pvalues_treap", "treap_build",
           "treap_sorted", "uniforms"]

#: Nonconformity measures by name -> kernel code.
NONCONFORMITY = {"high": 0, "low": 1, "two-sided": 2}

_LN10 = math.log(10.0)
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO_M53 = 2.0 ** -53
_PRIORITY_SALT = np.uint64(0x5DEECE66D)
_BLOCK = 32  # ranks per block of the two-level counts of pvalues_fresh


@jit_inline
def _mix64(z):
    """SplitMix64's finaliser (a bijection of 64-bit words)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@jit
def uniforms(seed, first, out):
    """Fill ``out[i]`` with ``U_{first + i}``: ``k / 2**53`` for a 53-bit word ``k``, in ``[0, 1)``.

    ``U_n = (mix64(mix64(seed) + n * gamma) >> 11) / 2**53`` (arithmetic mod ``2**64``).
    """
    key = _mix64(np.uint64(seed))
    for i in range(out.shape[0]):
        n = np.uint64(first + i)
        out[i] = float(_mix64(key + n * _GAMMA) >> _S11) * _TWO_M53


@jit_inline
def _sum_sign(v, z, m2):
    """The sign of ``v + z - m2`` (exact, for sums that do not overflow)."""
    s, e = two_sum_jit(v, z)
    if s > m2:
        return 1
    if s < m2:
        return -1
    return 1 if e > 0.0 else (-1 if e < 0.0 else 0)


@jit_inline
def _pvalue(gt, eq, u, n):
    return (gt + u * eq) / n


# -- the Fenwick tree of a fresh stream -------------------------------------------------------


@jit_inline
def _fw_add(tree, r):
    i = r + 1
    while i < tree.shape[0]:
        tree[i] += 1
        i += i & (-i)


@jit_inline
def _fw_prefix(tree, r):
    """Number of scores of rank ``<= r`` (0 for ``r < 0``)."""
    i = r + 1
    c = 0
    while i > 0:
        c += tree[i]
        i -= i & (-i)
    return c


@jit_inline
def _fw_kth(tree, k, top):
    """Rank of the element of order ``k`` (from 0); ``top``: the highest power of 2 <= size."""
    pos = 0
    step = top
    while step > 0:
        nxt = pos + step
        if nxt < tree.shape[0] and tree[nxt] <= k:
            pos = nxt
            k -= tree[nxt]
        step >>= 1
    return pos  # 1-based index pos + 1 -> rank pos


@jit_inline
def _two_level_prefix(tree, counts, r):
    """Number of scores of rank ``<= r``: whole blocks from the tree, the rest from ``counts``."""
    if r < 0:
        return 0
    b = r // _BLOCK
    c = _fw_prefix(tree, b - 1)
    for j in range(b * _BLOCK, r + 1):
        c += counts[j]
    return c


@jit
def pvalues_fresh(both, order, kind, seed, first, prior_counts, out, uniq, counts):
    """Smoothed p-values of steps ``first, first + 1, ...`` through a Fenwick tree on ranks.

    ``both`` is the bag before the first step, as its ``P`` distinct scores
    (``prior_counts`` their multiplicities; ``P = 0`` for a stream from its
    start), followed by the new scores; ``order`` sorts ``both`` (any argsort:
    ties need no order).  ``uniq`` and ``counts`` (room for ``len(both)``) receive
    the bag after the last step, sorted: the caller builds the treap of
    :func:`pvalues_treap` from them.  Returns the number of distinct scores.
    """
    P = prior_counts.shape[0]
    n = both.shape[0] - P
    ranks = np.empty(P + n, dtype=np.int64)
    d = -1
    for j in range(P + n):
        v = both[order[j]]
        if d < 0 or v != uniq[d]:
            d += 1
            uniq[d] = v
            counts[d] = 0
        ranks[order[j]] = d
    D = d + 1
    for j in range(P):
        counts[ranks[j]] = prior_counts[j]
    # Two levels: the counts of the ranks, and a Fenwick tree over blocks of _BLOCK
    # ranks with the largest score of each block (small enough to stay in cache, so a
    # query touches one block of the large arrays, read in order).
    NB = (D + _BLOCK - 1) // _BLOCK
    tree = np.zeros(NB + 1, dtype=np.int64)
    bmax = np.empty(NB)
    for b in range(NB):
        end = min(D, (b + 1) * _BLOCK)
        bmax[b] = uniq[end - 1]
        c = 0
        for j in range(b * _BLOCK, end):
            c += counts[j]
        tree[b + 1] = c
    for i in range(1, NB + 1):  # the Fenwick tree of the prior bag, in O(NB)
        parent = i + (i & (-i))
        if parent <= NB:
            tree[parent] += tree[i]
    m0 = 0
    for j in range(P):
        m0 += prior_counts[j]
    top = 1
    while top * 2 <= NB:
        top *= 2
    u = np.empty(n)
    uniforms(seed, first, u)
    for i in range(n):
        r = ranks[P + i]
        _fw_add(tree, r // _BLOCK)
        counts[r] += 1
        m = m0 + i + 1  # the bag's size
        eq = counts[r]
        if kind == 0:
            gt = m - _two_level_prefix(tree, counts, r)
        elif kind == 1:
            gt = _two_level_prefix(tree, counts, r - 1)
        else:
            z = uniq[r]
            # the lower median: the block by a descent, then the rank within it
            k = (m - 1) // 2
            pos = 0
            step = top
            while step > 0:
                nxt = pos + step
                if nxt <= NB and tree[nxt] <= k:
                    pos = nxt
                    k -= tree[nxt]
                step >>= 1
            med_rank = pos * _BLOCK
            while k >= counts[med_rank]:
                k -= counts[med_rank]
                med_rank += 1
            med = uniq[med_rank]
            m2 = 2.0 * med
            # j: the first rank whose score v has v + z >= 2 med, and the number of
            # scores below it: whole blocks by a descent, then ranks within the block.
            blocks = 0
            reflected_below = 0
            step = top
            while step > 0:
                nxt = blocks + step
                if nxt <= NB and _sum_sign(bmax[nxt - 1], z, m2) < 0:
                    blocks = nxt
                    reflected_below += tree[nxt]
                step >>= 1
            j = blocks * _BLOCK
            while j < D and _sum_sign(uniq[j], z, m2) < 0:
                reflected_below += counts[j]
                j += 1
            exact = j < D and _sum_sign(uniq[j], z, m2) == 0
            if z > med:  # stranger: v > z or v < 2 med - z
                gt = (m - _two_level_prefix(tree, counts, r)) + reflected_below
            elif z < med:  # stranger: v < z or v > 2 med - z
                gt = (_two_level_prefix(tree, counts, r - 1)
                      + (m - reflected_below - (counts[j] if exact else 0)))
            else:
                gt = m - eq
            if exact and z != med:
                eq += counts[j]
        out[i] = _pvalue(gt, eq, u[i], m)
    return D


# -- the treap of a continuing stream ----------------------------------------------------------
#
# Nodes are indices into parallel arrays: key (the score), cnt (its multiplicity),
# size (the multiplicities of the subtree), left and right (-1: none).  meta[0] is the
# root (-1: empty) and meta[1] the number of nodes.  A node's priority is a hash of its
# index; a parent's priority is at least its children's.


@jit_inline
def _priority(i):
    return _mix64(np.uint64(i) ^ _PRIORITY_SALT)


@jit_inline
def _sz(size, i):
    return size[i] if i >= 0 else 0


@jit
def treap_build(uniq, counts, key, cnt, size, left, right, meta):
    """Make the treap of the sorted distinct scores ``uniq`` with multiplicities ``counts``.

    Node ``i`` holds ``uniq[i]``; the tree is the Cartesian tree of the priorities
    (a stack, ``O(D)``), so later inserts keep it a treap.
    """
    D = uniq.shape[0]
    stack = np.empty(D + 1, dtype=np.int64)
    top = 0
    for i in range(D):
        key[i] = uniq[i]
        cnt[i] = counts[i]
        left[i] = -1
        right[i] = -1
        last = -1
        while top > 0 and _priority(stack[top - 1]) < _priority(i):
            last = stack[top - 1]
            top -= 1
        left[i] = last
        if top > 0:
            right[stack[top - 1]] = i
        stack[top] = i
        top += 1
    meta[0] = stack[0] if D > 0 else -1
    meta[1] = D
    # subtree totals, children before parents: a post-order walk
    if D > 0:
        post = np.empty(D, dtype=np.int64)
        todo = np.empty(D + 1, dtype=np.int64)
        todo[0] = meta[0]
        t, k = 1, 0
        while t > 0:
            t -= 1
            x = todo[t]
            post[k] = x
            k += 1
            if left[x] >= 0:
                todo[t] = left[x]
                t += 1
            if right[x] >= 0:
                todo[t] = right[x]
                t += 1
        for k in range(D - 1, -1, -1):
            x = post[k]
            size[x] = cnt[x] + _sz(size, left[x]) + _sz(size, right[x])


@jit
def treap_sorted(key, cnt, left, right, meta, uniq, counts):
    """Write the treap's distinct scores in increasing order, and their multiplicities."""
    stack = np.empty(meta[1] + 1, dtype=np.int64)
    top = 0
    x = meta[0]
    k = 0
    while top > 0 or x >= 0:
        while x >= 0:
            stack[top] = x
            top += 1
            x = left[x]
        top -= 1
        x = stack[top]
        uniq[k] = key[x]
        counts[k] = cnt[x]
        k += 1
        x = right[x]
    return k


@jit
def _treap_insert(v, key, cnt, size, left, right, meta, path):
    """Add one ``v``; return its multiplicity after the insert, or 0 if ``path`` is too short.

    The node arrays' capacity is checked by the caller; a path too short for the
    descent leaves the treap untouched (the caller grows it and calls again).
    """
    x = meta[0]
    d = 0
    while x >= 0:
        if d == path.shape[0]:
            return 0
        path[d] = x
        d += 1
        if v == key[x]:
            cnt[x] += 1
            for j in range(d):
                size[path[j]] += 1
            return cnt[x]
        x = left[x] if v < key[x] else right[x]
    new = meta[1]
    meta[1] = new + 1
    key[new] = v
    cnt[new] = 1
    size[new] = 1
    left[new] = -1
    right[new] = -1
    for j in range(d):
        size[path[j]] += 1
    if d == 0:
        meta[0] = new
        return 1
    parent = path[d - 1]
    if v < key[parent]:
        left[parent] = new
    else:
        right[parent] = new
    pn = _priority(new)
    while d > 0 and pn > _priority(path[d - 1]):
        p = path[d - 1]
        if left[p] == new:
            left[p] = right[new]
            right[new] = p
        else:
            right[p] = left[new]
            left[new] = p
        size[p] = cnt[p] + _sz(size, left[p]) + _sz(size, right[p])
        size[new] = cnt[new] + _sz(size, left[new]) + _sz(size, right[new])
        d -= 1
        if d == 0:
            meta[0] = new
        else:
            g = path[d - 1]
            if left[g] == p:
                left[g] = new
            else:
                right[g] = new
    return 1


@jit
def _treap_counts(v, key, cnt, size, left, right, root):
    """``(#{scores < v}, #{scores > v})`` in the treap."""
    below = 0
    above = 0
    x = root
    while x >= 0:
        if v < key[x]:
            above += cnt[x] + _sz(size, right[x])
            x = left[x]
        elif v > key[x]:
            below += cnt[x] + _sz(size, left[x])
            x = right[x]
        else:
            below += _sz(size, left[x])
            above += _sz(size, right[x])
            break
    return below, above


@jit
def _treap_kth(k, key, cnt, size, left, right, root):
    """The score of order ``k`` (from 0) in the bag."""
    x = root
    while True:
        ls = _sz(size, left[x])
        if k < ls:
            x = left[x]
        elif k < ls + cnt[x]:
            return key[x]
        else:
            k -= ls + cnt[x]
            x = right[x]


@jit
def _treap_reflected(z, m2, key, cnt, size, left, right, root):
    """``(#{v: v + z < m2}, #{v: v + z = m2}, #{v: v + z > m2})``, exactly."""
    below = 0
    above = 0
    equal = 0
    x = root
    while x >= 0:
        s = _sum_sign(key[x], z, m2)
        if s > 0:
            above += cnt[x] + _sz(size, right[x])
            x = left[x]
        elif s < 0:
            below += cnt[x] + _sz(size, left[x])
            x = right[x]
        else:
            equal = cnt[x]
            below += _sz(size, left[x])
            above += _sz(size, right[x])
            break
    return below, equal, above


@jit
def pvalues_treap(scores, kind, seed, first, key, cnt, size, left, right, meta, out):
    """Smoothed p-values of ``scores``, steps ``first, first + 1, ...``, against the treap's bag.

    Each score is inserted, then counted against the bag that now includes it (the
    treap's arrays need room for ``meta[1] + len(scores)`` nodes).
    """
    n = scores.shape[0]
    path = np.empty(128, dtype=np.int64)  # the treap's expected depth is about 3 log2(size)
    u = np.empty(n)
    uniforms(seed, first, u)
    for i in range(n):
        z = scores[i]
        eq = _treap_insert(z, key, cnt, size, left, right, meta, path)
        while eq == 0:
            path = np.empty(2 * path.shape[0], dtype=np.int64)
            eq = _treap_insert(z, key, cnt, size, left, right, meta, path)
        root = meta[0]
        m = size[root]
        below, above = _treap_counts(z, key, cnt, size, left, right, root)
        if kind == 0:
            gt = above
        elif kind == 1:
            gt = below
        else:
            med = _treap_kth((m - 1) // 2, key, cnt, size, left, right, root)
            rb, re, ra = _treap_reflected(z, 2.0 * med, key, cnt, size, left, right, root)
            if z > med:
                gt = above + rb
            elif z < med:
                gt = below + ra
            else:
                gt = m - eq
            if z != med:
                eq += re
        out[i] = _pvalue(gt, eq, u[i], m)


# -- betting -------------------------------------------------------------------------------


@jit
def jumper_bet(pvals, eps, rates, weights, log_cap, log_err, out_log10, out_factor):
    """Bet on the p-values with Jumpers over ``f_eps(p) = 1 + eps (p - 1/2)``, averaged over rates.

    For each rate ``J = rates[r]`` (Vovk 2021's Simple Jumper for ``eps = (-1, 0, 1)``):
    ``C_eps := (1 - J) C_eps + J C / K``, then ``C_eps := C_eps f_eps(p_n)`` and
    ``S_{r,n} = sum_eps C_eps``; the martingale is ``S_n = (1/R) sum_r S_{r,n}``.

    ``weights`` (R, K; rows sum to 1), ``log_cap`` and ``log_err`` (R; natural
    ``log S_r = log_cap + log_err``) are the state, updated in place.
    ``out_log10[i]`` is ``log10 S`` after the step and ``out_factor[i]`` the step's
    betting factor ``log10(S_n / S_{n-1})``, computed as the capital-weighted average
    of the rates' factors (not by differencing the path).
    """
    R = rates.shape[0]
    K = eps.shape[0]
    log_R = math.log(R)
    mix = np.empty(R)
    for i in range(pvals.shape[0]):
        c = pvals[i] - 0.5
        best = 0
        for r in range(1, R):
            if log_cap[r] + log_err[r] > log_cap[best] + log_err[best]:
                best = r
        bh, bl = log_cap[best], log_err[best]
        shares = 0.0
        for r in range(R):
            mix[r] = math.exp((log_cap[r] - bh) + (log_err[r] - bl))
            shares += mix[r]
        avg = 0.0
        for r in range(R):
            J = rates[r]
            stay = 1.0 - J
            jump = J / K
            w = weights[r]
            tot = 0.0
            raw = 0.0
            for k in range(K):
                wk = stay * w[k] + jump  # C_eps := (1 - J) C_eps + J C / K, with C = 1
                tot += wk
                w[k] = wk * (1.0 + eps[k] * c)  # C_eps f_eps(p)
                raw += w[k]
            gr = raw / tot  # S_r grows by this factor (tot is 1 up to rounding)
            for k in range(K):
                w[k] = w[k] / raw
            avg += mix[r] * gr
            s, e = two_sum_jit(log_cap[r], math.log(gr))
            log_cap[r] = s
            log_err[r] = log_err[r] + e
        out_factor[i] = math.log10(avg / shares)
        if R == 1:
            out_log10[i] = (log_cap[0] + log_err[0]) / _LN10
        else:
            best = 0
            for r in range(1, R):
                if log_cap[r] + log_err[r] > log_cap[best] + log_err[best]:
                    best = r
            bh, bl = log_cap[best], log_err[best]
            tot = 0.0
            for r in range(R):
                tot += math.exp((log_cap[r] - bh) + (log_err[r] - bl))
            out_log10[i] = ((bh + bl) + math.log(tot) - log_R) / _LN10
