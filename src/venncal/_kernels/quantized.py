"""Sequential quantized isotonic regression (Gokcesu & Gokcesu 2022, sections IV and V).

A *group* is a run of consecutive distinct scores mapped to one level; it is
stored as one row ``(num, den, lo, hi)`` of a float64 array (weighted sum of
the targets, total weight, first and last score) with its *cell*, the index
of the level nearest to ``num / den`` (``searchsorted(splits, num / den)``,
ties going to the lower level).  A list of groups is *reduced* when the cells
strictly increase; it then has at most K groups.

**Why merging reduced lists is exact.**  Start from one group per distinct
score and merge adjacent groups ``G1 G2`` whenever ``cell(G1) >= cell(G2)``
(a violation of monotonicity or an equal level: Gokcesu & Gokcesu 2022, Lemma 1 and
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

The modules of the unordered stream (Gokcesu & Gokcesu 2022, section V):
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
from .exact import (
    NL,
    acc_add_acc,
    acc_add_float,
    acc_add_prod,
    acc_add_scaled,
    acc_round,
    acc_sign,
    acc_zero,
    midpoint_sign,
)

NUM, DEN, LO, HI, EN, ED = 0, 1, 2, 3, 4, 5  # the columns of a group


@jit
def level_cell(v, LV):
    """Index of the level nearest to ``v``: the number of split points (``LV[0]``) below ``v``.

    A guess from the position of ``v`` between the end split points (exact
    for evenly spaced levels) is checked against its neighbours; binary
    search otherwise.
    """
    n = LV.shape[1]
    if n == 0:
        return 0
    lo, hi = 0, n
    first, end = LV[0, 0], LV[0, n - 1]
    span = end - first
    if span > 0.0 and first < v <= end:
        g = min(max(int((v - first) / span * (n - 1)) + 1, 1), n - 1)
        # The answer is g when splits[g-1] < v <= splits[g].
        if LV[0, g - 1] < v:
            if v <= LV[0, g]:
                return g
            lo = g + 1
        else:
            hi = g - 1
    elif v <= first:
        return 0
    elif v > end:
        return n
    while lo < hi:
        mid = (lo + hi) >> 1
        if LV[0, mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


# ------------------------------------------------------------------ exact decisions
#
# A group's level is decided in exact arithmetic: its cell is the number of
# midpoints ``(L[l] + L[l+1]) / 2`` strictly below its exact mean ``N / D``.
# The level table ``LV`` (shape (4, K - 1), see
# ``venncal.baselines.quantized.level_table``) holds, per midpoint: the
# largest float not above it (the split point), the next float, and the
# exact sum ``L[l] + L[l+1]`` as ``hi + lo``.  A group carries its float sums
# ``num, den`` with bounds ``en >= |N - num|``, ``ed >= |D - den|``; the
# float mean decides when it is clear of the midpoint by more than the
# bounds allow, the exact sums otherwise (rows of a long accumulator).


@jit_inline
def _above(num, den, en, ed, l, LV, ACC):
    """Whether ``N / D > (L[l] + L[l+1]) / 2``: 1 or 0, or -1 when the bounds cannot tell.

    With exact sums (``en = ed = 0``) the rounded mean decides unless it is
    one of the two floats around the midpoint, and the exact sign of ``2 num
    - (L[l] + L[l+1]) den`` otherwise (:func:`venncal._kernels.exact.midpoint_sign`,
    or a long accumulator in row 0 of ``ACC`` when that cannot say).
    """
    m = num / den
    if en == 0.0 and ed == 0.0:
        if m > LV[1, l]:  # fl(N/D) above the float after the midpoint: N/D is too
            return 1
        if m < LV[0, l]:
            return 0
        sign = midpoint_sign(num, den, LV[2, l], LV[3, l])
        if sign > -2:
            return 1 if sign > 0 else 0
        acc_zero(ACC, _ROW0)
        acc_add_float(ACC, _ROW0, 2.0 * num)
        acc_add_prod(ACC, _ROW0, -LV[2, l], den)
        acc_add_prod(ACC, _ROW0, -LV[3, l], den)
        return 1 if acc_sign(ACC, _ROW0) > 0 else 0
    low = den - ed
    if not low > 0.0:
        return -1
    margin = (en + abs(m) * ed) / low * (1.0 + 2.0**-40) + abs(m) * 2.0**-51 + 2.0**-1060
    if m - margin > LV[1, l]:
        return 1
    if m + margin < LV[0, l]:
        return 0
    return -1


@jit_inline
def _margin(num, den, en, ed, m):
    """A bound on ``|N/D - m|`` for ``m = fl(num / den)`` (-1 when ``ed`` is too large to tell)."""
    if en == 0.0 and ed == 0.0:
        return 0.0
    low = den - ed
    if not low > 0.0:
        return -1.0
    return (en + abs(m) * ed) / low * (1.0 + 2.0**-40) + abs(m) * 2.0**-51 + 2.0**-1060


@jit_inline
def _side(num, den, m, margin, l, LV):
    """1 if the mean is surely above midpoint ``l``, 0 if surely at most, -1 if unknown.

    Scalar work only (the callers call the exact path themselves, so that no
    array passes through an inlined call in their loops): the rounded mean
    ``m`` clear of the midpoint by ``margin``, or, for exact sums whose
    rounded mean is one of the two floats around it, the exact sign of
    ``2 num - (L[l] + L[l+1]) den`` (:func:`venncal._kernels.exact.midpoint_sign`).
    """
    if m - margin > LV[1, l]:
        return 1
    if m + margin < LV[0, l]:
        return 0
    if margin == 0.0:
        sign = midpoint_sign(num, den, LV[2, l], LV[3, l])
        if sign > -2:
            return 1 if sign > 0 else 0
    return -1


@jit_inline
def fast_cell(num, den, en, ed, LV):
    """The cell of a group from its float sums when :func:`_side` can tell, else -1."""
    m = num / den
    margin = _margin(num, den, en, ed, m)
    if margin < 0.0:
        return -1
    c = level_cell(m, LV)
    last = LV.shape[1]
    while True:
        if c > 0:
            r = _side(num, den, m, margin, c - 1, LV)
            if r < 0:
                return -1
            if r == 0:
                c -= 1
                continue
        if c < last:
            r = _side(num, den, m, margin, c, LV)
            if r < 0:
                return -1
            if r == 1:
                c += 1
                continue
        return c


@jit_inline
def fast_at_most(num, den, en, ed, p, LV):
    """1 when a group's mean is surely at most midpoint ``p``, 0 when surely above, -1 otherwise."""
    m = num / den
    margin = _margin(num, den, en, ed, m)
    if margin < 0.0:
        return -1
    r = _side(num, den, m, margin, p, LV)
    return r if r < 0 else 1 - r


# group_cell walks the cells as fast_cell does, but decides each midpoint by
# _above (the sums' bounds, then the long accumulators in ACC) where fast_cell
# uses _side (scalars only).  The two walks stay apart on purpose: fast_cell
# is inlined into every push of the tree of groups, and one walk serving both
# would pass ACC through those inlined loops, which _side exists to avoid.
@jit_inline
def group_cell(num, den, en, ed, LV, ACC):
    """The cell of a group from its float sums and their bounds, or -1 when they cannot tell."""
    m = num / den
    c = level_cell(m, LV)
    last = LV.shape[1]
    # Exact sums clear of both midpoints: fl(N/D) is above the float after the
    # lower one and below the split of the upper one, and so is N/D.
    if en == 0.0 and ed == 0.0 and (c == 0 or m > LV[1, c - 1]) and (c == last or m < LV[0, c]):
        return c
    while True:
        if c > 0:
            r = _above(num, den, en, ed, c - 1, LV, ACC)
            if r < 0:
                return -1
            if r == 0:
                c -= 1
                continue
        if c < last:
            r = _above(num, den, en, ed, c, LV, ACC)
            if r < 0:
                return -1
            if r == 1:
                c += 1
                continue
        return c


@jit
def acc_above(ACC, iN, iD, iF, l, LV):
    """Whether ``N / D > (L[l] + L[l+1]) / 2`` for the exact sums in rows ``iN``, ``iD`` (``D > 0``)."""
    acc_zero(ACC, iF)
    acc_add_acc(ACC, iF, ACC, iN, _NO)
    acc_add_acc(ACC, iF, ACC, iN, _NO)
    acc_add_scaled(ACC, iF, ACC, iD, -LV[2, l])
    acc_add_scaled(ACC, iF, ACC, iD, -LV[3, l])
    return acc_sign(ACC, iF) > 0


@jit
def acc_cell(ACC, iN, iD, iF, LV):
    """The cell of the exact sums in rows ``iN``, ``iD`` (``D > 0``), from the cell of their rounded mean."""
    c = level_cell(acc_round(ACC, iN) / acc_round(ACC, iD), LV)
    while c > 0 and not acc_above(ACC, iN, iD, iF, c - 1, LV):
        c -= 1
    while c < LV.shape[1] and acc_above(ACC, iN, iD, iF, c, LV):
        c += 1
    return c


# ------------------------------------------------------------------ the ordered stream
#
# Rows of its long accumulators ``ACC``: 0 for :func:`_above`, 1 - 3 the
# exact sums of a group and a comparison, 4 and 5 the remainders of a group
# being pushed, ``_PENDING`` and the next the remainders ``N - num`` and
# ``D - den`` of the pending score, then two for each group on the stack:
# meaningful only while the group's bound ``en`` or ``ed`` is positive.
# Rows of ACC.  NumPy integers, not Python ints: numba types a Python int constant
# passed to a compiled (not inlined) kernel as Literal[int] and compiles that kernel
# once per value; an np.int64 is a plain int64 (one compilation per real signature).
_XN, _XD, _XF, _RN, _RD, _PENDING, _GROUPS = (np.int64(r) for r in (1, 2, 3, 4, 5, 6, 8))
ORDERED_SCRATCH = int(_GROUPS)  # rows of ACC before the groups'
_ROW0 = np.int64(0)  # _above's row of ACC
_NO_CELL = np.int64(-1)  # _ordered_slow's p: the cell, not a comparison
_NO = np.bool_(False)  # acc_add_acc's flag, as a plain boolean (not Literal[bool])


@jit_inline
def _exact_sums(ACC, num, den, en, ed, iRN, iRD):
    """Rows ``_XN``, ``_XD``: ``num`` and ``den`` plus their remainders (rows ``iRN``, ``iRD``)."""
    acc_zero(ACC, _XN)
    acc_add_float(ACC, _XN, num)
    if en > 0.0 or ed > 0.0:
        acc_add_acc(ACC, _XN, ACC, iRN, _NO)
    acc_zero(ACC, _XD)
    acc_add_float(ACC, _XD, den)
    if en > 0.0 or ed > 0.0:
        acc_add_acc(ACC, _XD, ACC, iRD, _NO)


@jit
def _ordered_slow(ACC, num, den, en, ed, iRN, iRD, LV, p):
    """What :func:`fast_cell` (``p < 0``) or :func:`fast_at_most` (1 or 0) could not tell, exactly."""
    if p < 0:
        c = group_cell(num, den, en, ed, LV, ACC)
        if c < 0:
            _exact_sums(ACC, num, den, en, ed, iRN, iRD)
            c = acc_cell(ACC, _XN, _XD, _XF, LV)
        return c
    r = _above(num, den, en, ed, p, LV, ACC)
    if r < 0:
        _exact_sums(ACC, num, den, en, ed, iRN, iRD)
        r = 1 if acc_above(ACC, _XN, _XD, _XF, p, LV) else 0
    return 1 - r


@jit
def _merge_remainders(ACC, iRN, iRD, j, inexact, group_inexact, e1, e2):
    """Add group ``j``'s remainders (if any) and the merge's rounding errors to rows ``iRN``, ``iRD``.

    The rows are zeroed first when they held nothing (``inexact`` False).
    """
    if not inexact:
        acc_zero(ACC, iRN)
        acc_zero(ACC, iRD)
    if group_inexact:
        acc_add_acc(ACC, iRN, ACC, _GROUPS + 2 * j, _NO)
        acc_add_acc(ACC, iRD, ACC, _GROUPS + 2 * j + 1, _NO)
    acc_add_float(ACC, iRN, e1)
    acc_add_float(ACC, iRD, e2)


@jit
def _copy_remainders(ACC, dst, iRN, iRD):
    """Rows ``dst`` and ``dst + 1`` become copies of rows ``iRN`` and ``iRD``."""
    acc_zero(ACC, dst)
    acc_zero(ACC, dst + 1)
    acc_add_acc(ACC, dst, ACC, iRN, _NO)
    acc_add_acc(ACC, dst + 1, ACC, iRD, _NO)


@jit_inline
def merge_sums(num, den, en, ed, X, j):
    """Add group ``j`` of ``X`` to the sums ``num, den`` and their bounds; return the four.

    Each addition's rounding error is found exactly (TwoSum) and added to
    the bound, with the group's own bounds.  Also returns the two errors.
    """
    num, e1 = two_sum_jit(num, X[j, NUM])
    den, e2 = two_sum_jit(den, X[j, DEN])
    return num, den, en + X[j, EN] + abs(e1), ed + X[j, ED] + abs(e2), e1, e2


@jit_inline
def ordered_push(G, GC, ACC, top, num, den, en, ed, lo, hi, iRN, iRD, commit, LV):
    """Push a group onto the reduced rows ``G[:top]``, merging while cells do not increase.

    The group's remainders are in rows ``iRN``, ``iRD`` of ``ACC`` (when
    ``en`` or ``ed`` is positive); they receive those of the groups merged,
    and, if ``commit``, go to the rows of the group's final place.  Merging
    goes on while the exact mean is at most the next midpoint of the group
    before (its cell then is at most that group's); the cell is found only
    when the merging stops.  Returns the new count.
    """
    c = fast_cell(num, den, en, ed, LV)
    if c < 0:
        c = _ordered_slow(ACC, num, den, en, ed, iRN, iRD, LV, _NO_CELL)
    last = LV.shape[1]
    while top > 0 and GC[top - 1] >= c:
        j = top - 1
        inexact = en > 0.0 or ed > 0.0
        num, den, en, ed, e1, e2 = merge_sums(num, den, en, ed, G, j)
        if G[j, EN] > 0.0 or G[j, ED] > 0.0 or e1 != 0.0 or e2 != 0.0:
            _merge_remainders(ACC, iRN, iRD, j, inexact, G[j, EN] > 0.0 or G[j, ED] > 0.0, e1, e2)
        lo = G[j, LO]
        top -= 1
        if top > 0:
            p = GC[top - 1]
            r = 1 if p == last else fast_at_most(num, den, en, ed, p, LV)
            if r < 0:
                r = _ordered_slow(ACC, num, den, en, ed, iRN, iRD, LV, p)
            if r == 1:
                c = p
                continue
        c = fast_cell(num, den, en, ed, LV)
        if c < 0:
            c = _ordered_slow(ACC, num, den, en, ed, iRN, iRD, LV, _NO_CELL)
    set_group(G, GC, top, num, den, lo, hi, en, ed, c)
    if commit and (en > 0.0 or ed > 0.0):
        _copy_remainders(ACC, _GROUPS + 2 * top, iRN, iRD)
    return top + 1


@jit
def _pending_remainder(ACC, pending, w, y, p, e1, e2):
    """Add the errors of an addition to the pending score (and, for ``y`` not 0/1, the product's)."""
    if pending[4] == 0.0 and pending[5] == 0.0:
        acc_zero(ACC, _PENDING)
        acc_zero(ACC, _PENDING + 1)
    if not (y == 0.0 or y == 1.0):  # the product's rounding error, exactly
        acc_add_prod(ACC, _PENDING, w, y)
        acc_add_float(ACC, _PENDING, -p)
    acc_add_float(ACC, _PENDING, e2)
    acc_add_float(ACC, _PENDING + 1, e1)


@jit_inline
def _pending_add(ACC, pending, w, y):
    """Add weight ``w`` of target ``y`` to the pending score's exact sums."""
    binary = y == 0.0 or y == 1.0
    p = w if y == 1.0 else (0.0 if binary else w * y)
    den, e1 = two_sum_jit(pending[1], w)
    num, e2 = two_sum_jit(pending[2], p)
    if e1 != 0.0 or e2 != 0.0 or not binary:
        _pending_remainder(ACC, pending, w, y, p, e1, e2)
    pending[1] = den
    pending[2] = num
    # A bound on the product's rounding error, when there is a product.
    pending[4] += abs(e2) + (0.0 if binary else abs(p) * 2.0**-52 + 2.0**-1074)
    pending[5] += abs(e1)


@jit
def ordered_learn(G, GC, ACC, state, pending, scores, ys, ws, start, LV):
    """Learn observations ``start ..`` in non-decreasing score order (Gokcesu & Gokcesu 2022, section IV).

    ``G[:state[0]]`` are the reduced groups of every score below
    ``pending[0]``; ``pending`` is ``[score, weight, weighted sum, seen, en,
    ed]`` of the largest score so far, kept apart because later
    observations may tie with it.  Each pushed group is merged at most once,
    so the cost is amortised O(1) per observation.  Zero weights are
    skipped; the caller has checked the order.  Returns the index where
    ``G`` got full (the caller grows it and calls again from there), or n.
    Steps refer to Gokcesu & Gokcesu 2022, section IV (step 2 receives, step 3 joins).
    """
    for i in range(start, scores.shape[0]):
        w = ws[i]
        if w == 0.0:
            continue
        s = scores[i]
        if not (pending[3] > 0.0 and s == pending[0]):
            if pending[3] > 0.0:  # the pending score is complete: push it (step 3)
                if state[0] + 1 > G.shape[0]:
                    return i
                state[0] = ordered_push(G, GC, ACC, state[0], pending[2], pending[1],
                                        pending[4], pending[5], pending[0], pending[0],
                                        _PENDING, _PENDING + 1, True, LV)
            pending[0], pending[1], pending[2] = s, 0.0, 0.0
            pending[3], pending[4], pending[5] = 1.0, 0.0, 0.0
        _pending_add(ACC, pending, w, ys[i])
    return scores.shape[0]


@jit
def ordered_groups(G, GC, ACC, top, pending, LV):
    """Return the current groups (rows of ``G``'s columns) and cells, the pending score pushed.

    Nothing of the stream changes: the pending score's remainders are
    copied to scratch rows and the groups merged are only read.
    """
    rows = np.empty((top + 1, G.shape[1]))
    cells = np.empty(top + 1, dtype=np.int64)
    for j in range(top):
        _copy_group(rows, cells, j, G, GC, j)
    if pending[3] == 0.0:
        return rows[:top], cells[:top]
    if pending[4] > 0.0 or pending[5] > 0.0:
        acc_zero(ACC, _RN)
        acc_zero(ACC, _RD)
        acc_add_acc(ACC, _RN, ACC, _PENDING, _NO)
        acc_add_acc(ACC, _RD, ACC, _PENDING + 1, _NO)
    n = ordered_push(rows, cells, ACC, top, pending[2], pending[1], pending[4], pending[5],
                     pending[0], pending[0], _RN, _RD, False, LV)
    return rows[:n], cells[:n]


@jit
def ordered_fit(s, w, a, xi, xw, xa, LV):
    """The reduced groups of sorted distinct scores ``s`` with weights ``w`` and sums ``a``.

    The batch fit (Gokcesu & Gokcesu 2022, section III): each score pushed in order as
    by the ordered stream.  ``w[i]`` and ``a[i]`` are the rounded exact sums
    at score ``i``; the terms ``xw[k]``, ``xa[k]`` with ``xi[k] == i`` (``xi``
    non-decreasing) are what they lost, so that score ``i``'s exact weight
    is ``w[i] + sum(xw[k])`` and its exact sum ``a[i] + sum(xa[k])``: they go
    to the remainder rows of the long accumulators, as the ordered stream's
    pending score keeps its own.  Returns rows (``G``'s columns) and cells.
    """
    cap = min(LV.shape[1] + 1, s.shape[0]) + 1
    G = np.empty((cap, 6))
    GC = np.empty(cap, dtype=np.int64)
    ACC = np.zeros((_GROUPS + 2 * cap, NL + 1), dtype=np.int64)
    top = 0
    n = s.shape[0]
    m = xi.shape[0]
    k = 0
    i = 0
    while i < n:
        num, den = a[i], w[i]
        if k < m and xi[k] == i:  # a score whose sums are not one float each
            acc_zero(ACC, _RN)
            acc_zero(ACC, _RD)
            en, ed = 0.0, 0.0
            while k < m and xi[k] == i:
                acc_add_float(ACC, _RN, xa[k])
                acc_add_float(ACC, _RD, xw[k])
                en += abs(xa[k])
                ed += abs(xw[k])
                k += 1
            top = ordered_push(G, GC, ACC, top, num, den, en, ed, s[i], s[i], _RN, _RD, True,
                               LV)
            i += 1
            continue
        j = i + 1
        if den > 0.0 and (num == 0.0 or num == den):
            # A run of scores of mean exactly 0 (or exactly 1) has one cell, so
            # merging them is allowed (see the module's docstring): it is pushed
            # as one group, while its float sums stay exact.
            while (j < n and w[j] > 0.0 and (k == m or xi[k] != j)
                   and (a[j] == 0.0 if num == 0.0 else a[j] == w[j])):
                d, e = two_sum_jit(den, w[j])
                if e != 0.0:
                    break
                den = d
                num = 0.0 if num == 0.0 else d
                j += 1
        top = ordered_push(G, GC, ACC, top, num, den, 0.0, 0.0, s[i], s[j - 1], _RN, _RD, True,
                           LV)
        i = j
    return G[:top].copy(), GC[:top].copy()


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
def set_group(X, XC, j, num, den, lo, hi, en, ed, c):
    """Write group ``j`` of ``X`` (its columns) and its cell."""
    X[j, NUM] = num
    X[j, DEN] = den
    X[j, LO] = lo
    X[j, HI] = hi
    X[j, EN] = en
    X[j, ED] = ed
    XC[j] = c


@jit_inline
def _copy_group(dst, dstC, d, src, srcC, s):
    dst[d, NUM] = src[s, NUM]
    dst[d, DEN] = src[s, DEN]
    dst[d, LO] = src[s, LO]
    dst[d, HI] = src[s, HI]
    dst[d, EN] = src[s, EN]
    dst[d, ED] = src[s, ED]
    dstC[d] = srcC[s]

