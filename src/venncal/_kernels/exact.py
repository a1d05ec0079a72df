"""Exact arithmetic on float64 values: a long accumulator and expansions.

**The long accumulator** (Kulisch) holds a sum of float64 values and of
products of two float64 values *exactly*, whatever their magnitudes: a
fixed-point integer of ``32 * NL`` bits whose lowest bit is ``2**BASE``,
stored as ``NL`` signed 64-bit limbs of 32-bit digits (``value = sum
A[k] * 2**(32 k + BASE)``).  Every addition splits its integer into pieces
below ``2**32`` added to three limbs, with no carry; carries are propagated
(:func:`acc_normalize`) before a sign or a rounding is read, and after
``2**29`` additions, so that no limb can overflow.  Its range covers any
product of two float64 values (lowest bit ``2**-2252``, two subnormals
with their mantissas normalised) up to ``2**1120``; callers keep their
values below ``2**1000`` (:data:`BOUND`).  Row ``i`` of an ``(m, NL + 1)``
int64 array is one accumulator; its last cell counts the additions since
the last normalisation.

**Expansions** (Shewchuk 1997) hold an exact sum of float64 values as a
short array of non-overlapping components of increasing magnitude, zeros
removed, so that the value is zero exactly when the array is empty and its
sign is that of its last component.  Adding a value
(:func:`expansion_add`) is exact whatever the magnitudes (TwoSum is exact
for subnormal values too); only an overflow past ``2**1024`` is not.

J. R. Shewchuk, *Adaptive precision floating-point arithmetic and fast
robust geometric predicates*, Discrete & Computational Geometry 18 (1997).
U. Kulisch, *Computer Arithmetic and Validity*, de Gruyter (2008).
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline
from .dd import two_sum_jit

__all__ = [
    "BASE",
    "BOUND",
    "NL",
    "acc_add_acc",
    "acc_add_float",
    "acc_add_prod",
    "acc_add_scaled",
    "acc_round",
    "acc_sign",
    "acc_zero",
    "expansion_add",
    "midpoint_sign",
    "new_accumulators",
]

NL = 107  # limbs: bits 2**-2272 .. 2**1152
BASE = -2272  # the exponent of the lowest bit (a multiple of 32)
BOUND = 2.0**1000  # what callers keep every value, sum and product below
_MASK = (1 << 32) - 1
_RENORM = 1 << 29  # additions between normalisations (each adds < 2**32 to a limb)


def new_accumulators(m: int) -> np.ndarray:
    """Return ``m`` zero accumulators (rows of an int64 array)."""
    return np.zeros((m, NL + 1), dtype=np.int64)


@jit_inline
def acc_zero(A, i):
    """Set accumulator ``i`` to zero."""
    for k in range(NL + 1):
        A[i, k] = 0


@jit_inline
def _decompose(x):
    """Return ``(m, e)``: ``x = m * 2**e`` with ``m`` an integer, ``|m| < 2**53``."""
    f, e = math.frexp(x)
    return np.int64(f * 9007199254740992.0), e - 53


@jit
def acc_normalize(A, i):
    """Propagate carries: limbs ``0 .. NL-2`` become digits in ``[0, 2**32)``, the last signed."""
    carry = np.int64(0)
    for k in range(NL - 1):
        t = A[i, k] + carry
        A[i, k] = t & _MASK
        carry = t >> 32  # arithmetic shift: floor division
    A[i, NL - 1] += carry
    A[i, NL] = 0


@jit_inline
def _add_int(A, i, v, pos, neg):
    """Add (``neg``: subtract) ``v * 2**pos``, ``0 <= v < 2**62``, ``pos >= BASE``."""
    rel = pos - BASE
    k = rel >> 5
    r = rel & 31
    low = (v & ((np.int64(1) << (32 - r)) - 1)) << r
    rest = v >> (32 - r)
    if neg:
        A[i, k] -= low
        A[i, k + 1] -= rest & _MASK
        A[i, k + 2] -= rest >> 32
    else:
        A[i, k] += low
        A[i, k + 1] += rest & _MASK
        A[i, k + 2] += rest >> 32
    A[i, NL] += 1
    if A[i, NL] >= _RENORM:
        acc_normalize(A, i)


@jit
def acc_add_float(A, i, x):
    """Add the float ``x`` to accumulator ``i`` exactly."""
    if x == 0.0:
        return
    m, e = _decompose(x)
    _add_int(A, i, abs(m), e, m < 0)


@jit
def acc_add_prod(A, i, x, y):
    """Add the exact product ``x * y`` of two floats to accumulator ``i``."""
    if x == 0.0 or y == 0.0:
        return
    mx, ex = _decompose(x)
    my, ey = _decompose(y)
    neg = (mx < 0) != (my < 0)
    mx, my = abs(mx), abs(my)
    a1, a0 = mx >> 27, mx & ((1 << 27) - 1)
    b1, b0 = my >> 27, my & ((1 << 27) - 1)
    e = ex + ey
    _add_int(A, i, a0 * b0, e, neg)
    _add_int(A, i, a1 * b0 + a0 * b1, e + 27, neg)
    _add_int(A, i, a1 * b1, e + 54, neg)


@jit
def acc_add_acc(A, i, B, j, neg):
    """Add (``neg``: subtract) accumulator ``j`` of ``B`` to accumulator ``i`` of ``A``."""
    acc_normalize(B, j)
    if A[i, NL] >= _RENORM - 2:
        acc_normalize(A, i)
    for k in range(NL):
        if neg:
            A[i, k] -= B[j, k]
        else:
            A[i, k] += B[j, k]
    A[i, NL] += 2  # each limb grew by less than 2**32, the last by its own carry


@jit
def acc_add_scaled(A, i, B, j, x):
    """Add ``x`` times accumulator ``j`` of ``B`` to accumulator ``i`` of ``A``, exactly."""
    if x == 0.0:
        return
    acc_normalize(B, j)
    mx, ex = _decompose(x)
    neg = mx < 0
    mx = abs(mx)
    x1, x0 = mx >> 27, mx & ((1 << 27) - 1)
    for k in range(NL):
        d = B[j, k]
        if d == 0:
            continue
        dn = neg != (d < 0)
        d = abs(d)
        pos = 32 * k + BASE + ex
        # d < 2**32 except the signed last limb, which stays below 2**35 for
        # values below 2**1155: each product fits in 62 bits.
        _add_int(A, i, d * x0, pos, dn)
        _add_int(A, i, d * x1, pos + 27, dn)


@jit
def acc_sign(A, i):
    """Return the sign (-1, 0 or 1) of accumulator ``i``."""
    acc_normalize(A, i)
    top = A[i, NL - 1]
    if top != 0:
        return 1 if top > 0 else -1
    for k in range(NL - 2, -1, -1):
        if A[i, k] != 0:
            return 1
    return 0


@jit_inline
def _bit_length(v):
    n = 0
    while v > 0:
        v >>= 1
        n += 1
    return n


@jit_inline
def _bits(A, i, lo, n):
    """Return bits ``lo .. lo+n-1`` (relative to ``BASE``, ``n <= 53``) of a normalised, non-negative accumulator."""
    out = np.int64(0)
    for b in range(lo + n - 1, lo - 1, -1):
        if b < 0:
            out <<= 1
            continue
        out = (out << 1) | ((A[i, b >> 5] >> (b & 31)) & 1)
    return out


@jit_inline
def _any_below(A, i, b):
    """Whether a normalised, non-negative accumulator has a set bit below bit ``b`` (relative)."""
    if b <= 0:
        return False
    k = b >> 5
    for j in range(k):
        if A[i, j] != 0:
            return True
    return (A[i, k] & ((np.int64(1) << (b & 31)) - 1)) != 0


@jit
def acc_round(A, i):
    """Return accumulator ``i`` rounded to the nearest float64 (ties to even)."""
    acc_normalize(A, i)
    neg = A[i, NL - 1] < 0
    if neg:  # work on the magnitude, then restore the accumulator
        for k in range(NL):
            A[i, k] = -A[i, k]
        acc_normalize(A, i)
    t = NL - 1
    while t >= 0 and A[i, t] == 0:
        t -= 1
    result = 0.0
    if t >= 0:
        top = 32 * t + _bit_length(A[i, t]) - 1  # the highest set bit, relative to BASE
        q = max(top - 52, -1074 - BASE)  # the bit of the result's last place
        m = _bits(A, i, q, top - q + 1)
        if q > 0 and (A[i, (q - 1) >> 5] >> ((q - 1) & 31)) & 1:  # the rounding bit
            if _any_below(A, i, q - 1) or (m & 1):
                m += 1
        result = math.ldexp(float(m), q + BASE)
    if neg:
        for k in range(NL):
            A[i, k] = -A[i, k]
        acc_normalize(A, i)
        result = -result
    return result


# ------------------------------------------------------------------ a few floats


@jit_inline
def _two_prod(a, b):
    """``(p, err)``: ``p = fl(a b)`` and ``p + err == a b`` (Dekker), for the bounds of :func:`midpoint_sign`."""
    p = a * b
    c = 134217729.0 * a  # 2**27 + 1: split each factor into two 26-bit halves
    ah = c - (c - a)
    al = a - ah
    c = 134217729.0 * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


# Compiled once and called, not inlined: it is reached only when a group's rounded
# mean is one of the two floats around a midpoint, yet inlined it was copied 40 times
# into the kernels of the quantized trees (through _side, fast_cell, _above), each
# copy typed again by numba on every cold compile.
@jit
def midpoint_sign(num, den, h, e):
    """The sign of ``2 num - (h + e) den`` in exact arithmetic, or -2 when it cannot say.

    Dekker's TwoProduct makes each product two floats exactly (when no
    factor passes 2**995 and each nonzero product lies in [2**-960, 2**1020),
    else -2), then
    the five terms are distilled (Ogita, Rump and Oishi's VecSum: each pass
    keeps their exact sum) until the largest dominates the rest.
    """
    if not (abs(den) < 2.0**995 and abs(h) < 2.0**995 and abs(num) < 2.0**1020):
        return -2
    p1, p2 = _two_prod(-h, den)
    q1, q2 = _two_prod(-e, den)
    # A product that is tiny (or underflows to 0) has an error TwoProduct
    # cannot find exactly; one past 2**1020 could overflow the sums.
    if h != 0.0 and den != 0.0 and not 2.0**-960 <= abs(p1) < 2.0**1020:
        return -2
    if e != 0.0 and den != 0.0 and not 2.0**-960 <= abs(q1) < 2.0**1020:
        return -2
    t0, t1, t2, t3, t4 = q2, q1, p2, p1, 2.0 * num
    for _ in range(8):
        # One VecSum pass: the sum stays exact, its rounded value moves to t4.
        t1, t0 = two_sum_jit(t1, t0)
        t2, t1 = two_sum_jit(t2, t1)
        t3, t2 = two_sum_jit(t3, t2)
        t4, t3 = two_sum_jit(t4, t3)
        rest = abs(t0) + abs(t1) + abs(t2) + abs(t3)
        if rest == 0.0 or abs(t4) > 2.0 * rest:
            return 0 if t4 == 0.0 else (1 if t4 > 0.0 else -1)
    return -2


# ------------------------------------------------------------------ expansions


@jit
def expansion_add(e, x):
    """Return the expansion of ``sum(e) + x``, exactly (a new array, zeros removed, compressed).

    ``e`` is an expansion: non-overlapping components of increasing
    magnitude (Shewchuk's GROW-EXPANSION with zero elimination, then
    COMPRESS, which keeps it short: at most one component per 53 bits of
    the value's span).
    """
    m = e.shape[0]
    g = np.empty(m + 1)
    n = 0
    q = x
    for k in range(m):
        q, h = two_sum_jit(q, e[k])
        if h != 0.0:
            g[n] = h
            n += 1
    if q != 0.0:
        g[n] = q
        n += 1
    return _compress(g[:n])


@jit
def _compress(e):
    """Shewchuk's COMPRESS: the same value, non-overlapping, its last component the nearest float or next to it."""
    m = e.shape[0]
    if m <= 1:
        return e.copy()
    g = np.empty(m)
    bottom = m - 1
    q = e[m - 1]
    for k in range(m - 2, -1, -1):
        s = q + e[k]
        small = e[k] - (s - q)  # FAST-TWO-SUM: |q| >= |e[k]|
        if small != 0.0:
            g[bottom] = s
            bottom -= 1
            q = small
        else:
            q = s
    g[bottom] = q
    h = np.empty(m)
    top = 0
    for k in range(bottom + 1, m):
        s = g[k] + q
        small = q - (s - g[k])
        if small != 0.0:
            h[top] = small
            top += 1
        q = s
    h[top] = q
    top += 1
    if top == 2:  # the value may be one float after all
        s, small = two_sum_jit(h[1], h[0])
        if small == 0.0:
            h[0] = s
            top = 1
    if top == 1 and h[0] == 0.0:
        top = 0
    return h[:top].copy()


@jit
def expansion_sign(e):
    """Return the sign of an expansion's value: that of its largest (last) component."""
    if e.shape[0] == 0:
        return 0
    return 1 if e[e.shape[0] - 1] > 0.0 else -1
