"""A bottom node's row of the dense tree from the upper hull of its suffix sums.

Row ``D[v, j]`` of a bottom node of :mod:`venncal._kernels.quantized_dense`
is ``max(0, max_c Q[j] a_c - P[j] w_c)`` over the node's suffixes ``c``
(``a_c = sum w y``, ``w_c = sum w`` from score ``c`` on).  Taking every
candidate suffix for every split costs (candidates) x (splits) operations.
But ``Q (a - r w)`` with ``r = P / Q`` is largest, among the points
``(w_c, a_c)`` and the empty suffix ``(0, 0)``, at a vertex of their *upper
hull*; the hull's vertices, by increasing ``w``, are the maximizers for
decreasing ``r``, each over an interval of splits (``P / Q`` rises with
``j``).  So the row is one pass over the splits: the hull is built while the
node's scores are summed (a stack, popped while its top is on or below the
line from the point under it to the new point), each vertex's interval is
found by a binary search, and each split gets the value of its vertex, the
same product and difference as before.

Exact, bit for bit: in the dense tree the total weight is at most
``WEIGHT_BOUND = 2**26`` and so is every ``Q``, so every product used here
(``Q a``, ``P w``, and the hull's cross products of weight differences) is
an integer below ``2**52``, held exactly; every value is exact, the maximum of
exact values is what the old loop found, and a tie gives the same number.
A node whose weights are past that bound, or whose hull would not fit the
scratch (a stack array of :data:`HULL_CAP` points, not on the heap), takes
the loop over every candidate (:func:`bottom_row_all`).

Both are compiled once and called, not inlined by numba into the dense
kernels: inlined at each of their call sites they doubled the cold compile of
the dense tree (a test that compiles its single-call kernels took 222 s, now
108 s), and the compiled event is the same (in cache, 1,058-1,428 ns inlined
and 1,104-1,418 ns called, three alternating runs each of
``benchmarks/bench_online_calls.py --only Quantized --breakdown``).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic

from ._jit import jit, jit_inline

__all__ = ["HULL_CAP", "bottom_row", "bottom_row_all"]

#: Points the hull's stack holds (the empty suffix and 127 more: two buckets of 32 need 65).
HULL_CAP = 128
#: Weights up to which every product here is exact (``venncal.online._rational.WEIGHT_BOUND``).
_EXACT = float(2**26)


@intrinsic
def _stack_doubles(typingctx, count):
    """The address (``void *``) of ``count`` float64 on the stack frame of the calling kernel.

    ``count`` must be a compile-time constant; the space is taken once in the
    function's entry block (no growth of the stack in a loop) and lives as
    long as the call of the function it is compiled into.
    """
    if not isinstance(count, types.IntegerLiteral):
        return None
    n = count.literal_value
    sig = types.voidptr(count)

    def codegen(context, builder, signature, args):
        ptr = cgutils.alloca_once(builder, ir.DoubleType(), size=n)
        return builder.bitcast(ptr, context.get_value_type(types.voidptr))

    return sig, codegen


@jit
def bottom_row_all(E, cnt, D, NA, NB, Q, P, v):
    """Compute bottom node ``v``'s row from every candidate suffix (the loop over all of them)."""
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    nt = Q.shape[0]
    for j in range(nt):
        D[v, j] = 0.0
    a = 0.0
    w = 0.0
    left = 2 * v - C
    for b in (left + 1, left):
        first = b * B
        for i in range(first + cnt[C + b] - 1, first - 1, -1):
            a += E[i, 2]
            w += E[i, 1]
            # Every split lies strictly between 0 and 1, so a suffix that starts
            # with targets 0 only is below the one after it, and one that starts
            # after targets 1 only is below the one before it: neither can be
            # the largest.
            if E[i, 2] == 0.0:
                continue
            p = i - 1 if i > first else (left * B + cnt[C + left] - 1 if b > left else -1)
            if p >= left * B and E[p, 2] == E[p, 1]:
                continue
            for j in range(nt):
                x = Q[j] * a - P[j] * w
                r = D[v, j]
                D[v, j] = max(r, x)
    NA[v] = a
    NB[v] = w
    cnt[v] = cnt[2 * v] + cnt[2 * v + 1]


@jit_inline
def _last_not_after(Q, P, first, length, da, dw):
    """First ``j`` of ``first .. first+length-1`` with ``Q[j] da < P[j] dw`` (or the end).

    ``Q[j] da >= P[j] dw`` (the split at most the slope ``da / dw``) holds on
    a prefix, the fractions rising with ``j``.  Steps select, not branch.
    """
    while length > 0:
        half = length >> 1
        below = Q[first + half] * da >= P[first + half] * dw
        first = first + half + 1 if below else first
        length = length - half - 1 if below else half
    return first


@jit
def bottom_row(E, cnt, D, NA, NB, Q, P, v):
    """Compute bottom node ``v``'s row from the upper hull of its suffix sums (see the module)."""
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    nt = Q.shape[0]
    HW = numba.carray(_stack_doubles(HULL_CAP), HULL_CAP, np.float64)
    HA = numba.carray(_stack_doubles(HULL_CAP), HULL_CAP, np.float64)
    HW[0] = 0.0  # the empty suffix
    HA[0] = 0.0
    h = 1
    a = 0.0
    w = 0.0
    left = 2 * v - C
    fits = True
    for b in (left + 1, left):
        first = b * B
        for i in range(first + cnt[C + b] - 1, first - 1, -1):
            a += E[i, 2]
            w += E[i, 1]
            if E[i, 2] == 0.0:  # (as in bottom_row_all: never the largest)
                continue
            p = i - 1 if i > first else (left * B + cnt[C + left] - 1 if b > left else -1)
            if p >= left * B and E[p, 2] == E[p, 1]:
                continue
            # Pop the top while it is on or below the line from the point under it
            # to (w, a): it is then never above both (ties give equal values).
            while h >= 2 and ((HA[h - 1] - HA[h - 2]) * (w - HW[h - 2])
                              <= (a - HA[h - 2]) * (HW[h - 1] - HW[h - 2])):
                h -= 1
            if h == HULL_CAP:
                fits = False
            else:
                HW[h] = w
                HA[h] = a
                h += 1
    if not fits or not w <= _EXACT:
        bottom_row_all(E, cnt, D, NA, NB, Q, P, v)
        return
    # From the last vertex (the largest w: the maximizer at the smallest splits)
    # down to the empty suffix: vertex k is a maximizer up to the split where
    # the vertex below it (k - 1) overtakes it.
    j = 0
    k = h - 1
    while k >= 1 and j < nt:
        end = _last_not_after(Q, P, j, nt - j, HA[k] - HA[k - 1], HW[k] - HW[k - 1])
        ak, wk = HA[k], HW[k]
        for i in range(j, end):
            D[v, i] = Q[i] * ak - P[i] * wk
        j = end
        k -= 1
    for i in range(j, nt):
        D[v, i] = 0.0
    NA[v] = a
    NB[v] = w
    cnt[v] = cnt[2 * v] + cnt[2 * v + 1]
