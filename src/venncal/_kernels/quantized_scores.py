"""The exact weights at each stored score of the tree of groups, and exact decisions over them.

Each slot ``pos`` of the buckets (:mod:`.quantized_buckets`) holds one
distinct score ``s``; the observations there are kept **exactly**, so that
deleting what was inserted leaves exactly nothing, whatever the weights:

- ``EW[pos, t]``: the weight of the target ``t`` in {0, 1}, when it is one
  float exactly; otherwise bit ``t`` of ``EK[pos]`` is set and the weight is
  the expansion ``XW[(s, t)]`` (:func:`venncal._kernels.exact.expansion_add`);
- bit 2 of ``EK[pos]``: the score has other targets; ``XT[s]`` lists them
  and ``XW[(s, y)]`` holds the weight of each;
- ``E[pos] = (s, den, num, cell, eden, enum)``: the exact total weight ``D``
  and weighted target sum ``N`` of the score rounded to the nearest float,
  bounds on the rounding errors (0 when exact), and the exact cell of
  ``N / D`` (:func:`venncal._kernels.quantized.group_cell`).

A score's ``den`` and ``num`` are functions of the observations present
only, never of the order of the updates.  When a group's float sums cannot
tell on which side of a midpoint its mean lies, :func:`range_cell` and
:func:`range_above` add up the exact weights of its scores in a long
accumulator (rows ``_XN``, ``_XD``, ``_XF`` of ``ACC``) and decide exactly.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from ._jit import jit, jit_inline
from .dd import two_sum_jit
from .exact import acc_add_float, acc_add_prod, acc_round, acc_sign, acc_zero, expansion_add
from .quantized import _above, _first_not_below, acc_above, acc_cell, group_cell

_KEY = types.UniTuple(types.float64, 2)
_EXPANSION = types.float64[::1]
# Rows of ACC (row 0 is _above's), NumPy integers: a Python int constant passed to a
# compiled kernel is typed Literal[int] by numba, which compiles the kernel once per value.
_XN, _XD, _XF = np.int64(1), np.int64(2), np.int64(3)
TREE_ACCUMULATORS = 4
_OTHER = 4  # the bit of EK for targets other than 0 and 1


@jit
def new_weights():
    """Return an empty ``XW``: ``(score, target) -> expansion`` of its exact weight."""
    return Dict.empty(key_type=_KEY, value_type=_EXPANSION)


@jit
def new_targets():
    """Return an empty ``XT``: ``score -> its targets other than 0 and 1``."""
    return Dict.empty(key_type=types.float64, value_type=_EXPANSION)


@jit
def weights_to_arrays(XW):
    """``XW`` as keys (m, 2), offsets (m + 1) and the concatenated expansions."""
    m = len(XW)
    keys = np.empty((m, 2))
    offsets = np.zeros(m + 1, dtype=np.int64)
    total = 0
    for e in XW.values():
        total += e.shape[0]
    values = np.empty(total)
    i = 0
    for key, e in XW.items():
        keys[i, 0], keys[i, 1] = key
        offsets[i + 1] = offsets[i] + e.shape[0]
        values[offsets[i] : offsets[i + 1]] = e
        i += 1
    return keys, offsets, values


@jit
def weights_from_arrays(keys, offsets, values):
    """The inverse of :func:`weights_to_arrays`."""
    XW = new_weights()
    for i in range(keys.shape[0]):
        XW[(keys[i, 0], keys[i, 1])] = values[offsets[i] : offsets[i + 1]].copy()
    return XW


@jit_inline
def _add_target(XT, s, y):
    """Add target ``y`` to the list of score ``s``'s targets other than 0 and 1."""
    if s in XT:
        old = XT[s]
        grown = np.empty(old.shape[0] + 1)
        grown[: old.shape[0]] = old
        grown[old.shape[0]] = y
        XT[s] = grown
    else:
        XT[s] = np.array([y])


@jit
def targets_from_weights(XW):
    """Rebuild ``XT`` from the keys of ``XW`` (targets other than 0 and 1)."""
    XT = new_targets()
    for key in XW.keys():
        s, y = key
        if not (y == 0.0 or y == 1.0):
            _add_target(XT, s, y)
    return XT


@jit
def score_update(EK, EW, XW, XT, pos, s, y, w):
    """Add ``w`` (negative: remove ``-w``) to the weight of ``(s, y)`` at slot ``pos``, exactly.

    Returns False, with nothing changed, when a removal asks for more than
    there is.
    """
    if y == 0.0 or y == 1.0:
        t = np.int64(y)
        bit = np.int64(1) << t
        if EK[pos] & bit == 0:
            h, e = two_sum_jit(EW[pos, t], w)
            if h < 0.0:  # |e| < ulp(h): the sign of the sum is that of h
                return False
            if e == 0.0:
                EW[pos, t] = h
            else:
                XW[(s, y)] = np.array([e, h])
                EK[pos] |= bit
                EW[pos, t] = 0.0
            return True
        grown = expansion_add(XW[(s, y)], w)
        if grown.shape[0] > 0 and grown[grown.shape[0] - 1] < 0.0:
            return False
        if grown.shape[0] <= 1:
            EW[pos, t] = grown[0] if grown.shape[0] == 1 else 0.0
            EK[pos] &= ~bit
            XW.pop((s, y))
        else:
            XW[(s, y)] = grown
        return True
    key = (s, y)
    new = key not in XW
    if new and w < 0.0:
        return False
    grown = expansion_add(np.empty(0) if new else XW[key], w)
    if grown.shape[0] > 0 and grown[grown.shape[0] - 1] < 0.0:
        return False
    if grown.shape[0] > 0:
        XW[key] = grown
        if new:
            _add_target(XT, s, y)
            EK[pos] |= _OTHER
        return True
    XW.pop(key)
    old = XT[s]
    if old.shape[0] == 1:
        XT.pop(s)
        EK[pos] &= ~np.int64(_OTHER)
    else:
        XT[s] = old[old != y].copy()
    return True


@jit_inline
def score_empty(EK, EW, pos):
    """Whether slot ``pos`` holds no weight any more (its score leaves the tree)."""
    return EK[pos] == 0 and EW[pos, 0] == 0.0 and EW[pos, 1] == 0.0


@jit
def _score_sums(E, EK, EW, XW, XT, pos, ACC, iN, iD):
    """Add the exact ``N`` and ``D`` of the score at slot ``pos`` to rows ``iN``, ``iD``."""
    s = E[pos, 0]
    k = EK[pos]
    for t in range(2):
        if k & (1 << t):
            e = XW[(s, float(t))]
            for c in range(e.shape[0]):
                acc_add_float(ACC, iD, e[c])
                if t == 1:
                    acc_add_float(ACC, iN, e[c])
        elif EW[pos, t] != 0.0:
            acc_add_float(ACC, iD, EW[pos, t])
            if t == 1:
                acc_add_float(ACC, iN, EW[pos, t])
    if k & _OTHER:
        targets = XT[s]
        for j in range(targets.shape[0]):
            y = targets[j]
            e = XW[(s, y)]
            for c in range(e.shape[0]):
                acc_add_float(ACC, iD, e[c])
                acc_add_prod(ACC, iN, e[c], y)


@jit_inline
def _rounded(ACC, i):
    """Return ``(x, bound)``: row ``i`` rounded to nearest, and a bound on the error (0 if exact)."""
    x = acc_round(ACC, i)
    acc_add_float(ACC, i, -x)
    if acc_sign(ACC, i) == 0:
        return x, 0.0
    return x, abs(acc_round(ACC, i)) * (1.0 + 2.0**-50) + 2.0**-1074


@jit
def score_refresh(E, EK, EW, XW, XT, cnt, FS, ACC, LV, pos):
    """Recompute ``E[pos]``'s sums, their bounds and its exact cell from the exact weights."""
    if EK[pos] == 0:
        d, e = two_sum_jit(EW[pos, 0], EW[pos, 1])
        E[pos, 1], E[pos, 2], E[pos, 4], E[pos, 5] = d, EW[pos, 1], abs(e), 0.0
    else:
        acc_zero(ACC, _XN)
        acc_zero(ACC, _XD)
        _score_sums(E, EK, EW, XW, XT, pos, ACC, _XN, _XD)
        n, en = _rounded(ACC, _XN)
        d, ed = _rounded(ACC, _XD)
        E[pos, 1], E[pos, 2], E[pos, 4], E[pos, 5] = d, n, ed, en
    c = group_cell(E[pos, 2], E[pos, 1], E[pos, 5], E[pos, 4], LV, ACC)
    if c < 0:
        C = cnt.shape[0] // 2
        B = E.shape[0] // C
        b = pos // B
        c = range_cell(E, EK, EW, XW, XT, cnt, FS, ACC, LV, C + b, E[pos, 0], E[pos, 0])
    E[pos, 3] = c


@jit
def _range_sums(E, EK, EW, XW, XT, cnt, FS, ACC, v, lo, hi):
    """Rows ``_XN``, ``_XD``: the exact sums of the stored scores in ``[lo, hi]``, all below node ``v``.

    Only the nodes below ``v`` are read (their ``FS`` and counts are
    current while ``v`` is being updated).
    """
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    acc_zero(ACC, _XN)
    acc_zero(ACC, _XD)
    first, last = v, v
    while first < C:
        first, last = 2 * first, 2 * last + 1
    u = v
    while u < C:  # the bucket where lo is, as _find_bucket but from v
        u = 2 * u + 1 if lo >= FS[2 * u + 1] else 2 * u
    for b in range(u - C, last - C + 1):
        i = _first_not_below(E, 0, b * B, cnt[C + b], lo) if b == u - C else b * B
        for k in range(i, b * B + cnt[C + b]):
            if E[k, 0] > hi:
                return
            _score_sums(E, EK, EW, XW, XT, k, ACC, _XN, _XD)


@jit
def range_cell(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, lo, hi):
    """The exact cell of the group of the stored scores ``lo .. hi`` (below node ``v``)."""
    _range_sums(E, EK, EW, XW, XT, cnt, FS, ACC, v, lo, hi)
    return acc_cell(ACC, _XN, _XD, _XF, LV)


@jit
def range_above(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, lo, hi, p):
    """Whether the exact mean of the stored scores ``lo .. hi`` (below node ``v``) exceeds midpoint ``p``."""
    _range_sums(E, EK, EW, XW, XT, cnt, FS, ACC, v, lo, hi)
    return acc_above(ACC, _XN, _XD, _XF, p, LV)


@jit
def tree_slow(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, num, den, en, ed, lo, hi, p):
    """What ``fast_cell`` (``p < 0``) or ``fast_at_most`` (1 or 0) could not tell, for a group of node ``v``.

    The float sums' bounds first (:func:`venncal._kernels.quantized.group_cell`),
    then the exact weights of the group's scores ``lo .. hi``.
    """
    if p < 0:
        c = group_cell(num, den, en, ed, LV, ACC)
        if c < 0:
            c = range_cell(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, lo, hi)
        return c
    r = _above(num, den, en, ed, p, LV, ACC)
    if r < 0:
        r = 1 if range_above(E, EK, EW, XW, XT, cnt, FS, ACC, LV, v, lo, hi, p) else 0
    return 1 - r
