"""Error-free transformations: the one double-double helper of venncal.

``two_sum(a, b)`` returns ``(s, e)`` with ``s = fl(a + b)`` and ``s + e == a + b``
exactly (Knuth's TwoSum: six flops, no branch, valid in round-to-nearest
whatever the order of magnitude of ``a`` and ``b``, barring overflow).  A
difference ``a - b`` is ``two_sum(a, -b)``: negation is exact and rounding is
symmetric, so this is also the exact error-free difference.

``two_prod_jit(a, b)`` returns ``(p, e)`` with ``p = fl(a * b)`` and
``p + e == a * b`` exactly (Dekker's product with Veltkamp's split: valid
while ``|a|, |b| < 2**995`` and the error term does not underflow, i.e.
``|a * b| >= 2**-969``; the callers stay far inside both limits).

``dd_add_jit(hi, lo, x)`` adds a double to a normalised double-double number
``hi + lo`` (``|lo| <= ulp(hi) / 2``), exactly while the numbers fit in 105 bits;
``distill_jit`` and ``expansion_sign_jit`` sum a vector of doubles to double-
double accuracy and decide the sign of its exact sum; ``dd_div_jit`` divides
double-double numbers, ``dd_mul_jit`` multiplies them and ``dd_exp_jit`` is
the exponential of a double-double number to about ``2**-102`` relative (the
one-vs-rest score of a top class near its cancellation,
:mod:`venncal._kernels.multiclass`).  Together they give exact geometric predicates on
double-double coordinates (the inductive Venn-Abers kernel,
:mod:`venncal._kernels.ivap`).

The functions are plain arithmetic, so the same source serves two callers:
``two_sum`` itself works elementwise on numpy arrays (the vectorised code of
:mod:`venncal.baselines.isotonic` and :mod:`venncal.summary`), and the
``*_jit`` versions are compiled for the kernels.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ._jit import jit, jit_inline

__all__ = [
    "dd_add_jit",
    "dd_div_jit",
    "dd_exp_jit",
    "dd_mul_jit",
    "distill_jit",
    "expansion_sign_jit",
    "two_prod",
    "two_prod_jit",
    "two_sum",
    "two_sum_jit",
]

_SPLITTER = 134217729.0  # 2**27 + 1 (Veltkamp)


def two_sum(a, b):
    """Return ``(s, e)``: ``s = fl(a + b)`` and ``s + e == a + b`` exactly.

    Works on floats and, elementwise, on float64 arrays.

    Examples
    --------
    >>> two_sum(1.0, 2.0**-60)
    (1.0, 8.673617379884035e-19)
    """
    s = a + b
    bb = s - a  # the part of b that made it into s
    return s, (a - (s - bb)) + (b - bb)


two_sum_jit = jit(two_sum)
_two_sum = jit_inline(two_sum)  # the same, inlined into the helpers below


def _split_plain(a):
    # a == hi + lo exactly, each half with at most 26 significant bits.
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


_split = jit_inline(_split_plain)


def two_prod(a, b):
    """Return ``(p, e)``: ``p = fl(a * b)`` and ``p + e == a * b`` exactly (Dekker).

    Works on floats and, elementwise, on float64 arrays; valid under the
    range stated in the module docstring.

    >>> two_prod(0.1, 3.0)
    (0.30000000000000004, -2.7755575615628914e-17)
    """
    p = a * b
    ah, al = _split_plain(a)
    bh, bl = _split_plain(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@jit_inline
def two_prod_jit(a, b):
    """Return ``(p, e)``: ``p = fl(a * b)`` and ``p + e == a * b`` exactly (Dekker)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@jit_inline
def dd_add_jit(hi, lo, x):
    """Return the normalised double-double ``(hi', lo')`` of ``hi + lo + x``.

    ``hi + lo`` must be normalised (``|lo| <= ulp(hi) / 2``).  The sum is
    exact when ``hi``, ``lo`` and ``x`` are multiples of some ``2**q`` and
    ``|hi + lo|``, ``|x|`` and the sum are below ``2**(q + 105)``: a number
    of at most 106 significant bits always fits in two doubles, and each
    step below is then an error-free transformation.
    """
    s, e = _two_sum(hi, x)
    e += lo  # exact under the condition above
    h = s + e  # |e| is at most about ulp(s): a fast two-sum
    return h, e - (h - s)


@jit_inline
def distill_jit(buf, n):
    """Rewrite ``buf[:n]`` so that each entry is at most half an ulp of the next (same sum).

    Distillation: sweeps of ``two_sum`` over neighbours, each an error-free
    transformation of the vector, until a sweep changes nothing.  Then
    ``buf[n - 1] + buf[n - 2]`` is the exact sum to a relative ``2**-105``,
    and ``buf[n - 1]`` carries its sign and is 0 only when the sum is.
    """
    for _ in range(2 * n + 8):
        changed = False
        # Invariant: the exact sum of buf[:n] never changes.
        for i in range(1, n):
            s, e = _two_sum(buf[i - 1], buf[i])
            if s != buf[i] or e != buf[i - 1]:
                changed = True
            buf[i] = s
            buf[i - 1] = e
        if not changed:
            break


@jit
def expansion_sign_jit(buf, n):
    """Return the sign (-1, 0 or 1) of the exact sum of ``buf[:n]`` (which is overwritten)."""
    distill_jit(buf, n)
    top = buf[n - 1]
    if top > 0.0:
        return 1
    if top < 0.0:
        return -1
    return 0


@jit_inline
def dd_div_jit(nh, nl, dh, dl):
    """Return ``(nh + nl) / (dh + dl)`` to a relative ``2**-100`` or so, then rounded."""
    q = nh / dh
    p, e = two_prod_jit(q, dh)
    r = (((nh - p) - e) + nl) - q * dl
    return q + r / dh


@jit_inline
def dd_mul_jit(ah, al, bh, bl):
    """Return the normalised double-double ``(ah + al) * (bh + bl)`` to a relative ``2**-104`` or so.

    Valid under :func:`two_prod_jit`'s range (``|ah|, |bh| < 2**995`` and a
    product of at least ``2**-969``, below which the error term loses bits).
    """
    p, e = two_prod_jit(ah, bh)
    e += ah * bl + al * bh
    h = p + e
    return h, e - (h - p)


def _dd_constant(x):
    hi = float(x)
    return hi, float(x - Fraction(hi))


_LN2_HI, _LN2_LO = _dd_constant(Fraction("0.693147180559945309417232121458176568075500134360255254120680"))
_EXP_TERMS = 25  # |r| <= ln(2) / 2: r**25 / 25! < 2**-112
# 1 / n! for n = 0 .. _EXP_TERMS, each as a double-double (correctly rounded pairs)
_INV_FACT = np.array([_dd_constant(Fraction(1, math.factorial(n))) for n in range(_EXP_TERMS + 1)])


@jit
def dd_exp_jit(xh, xl):
    """Return ``exp(xh + xl)`` as a normalised double-double, to a relative ``2**-102 (1 + |x| / 200)``.

    For ``xh + xl`` (normalised) between -600 and 700 (below, the low part
    loses bits to underflow).  ``x = k ln 2 + r``
    with ``k`` an integer and ``|r| <= ln(2) / 2`` (``k ln 2`` exact through
    :func:`two_prod_jit` against a double-double ln 2), then the Taylor series
    of ``exp(r)`` to the term 25 in double-double (Horner), scaled by ``2**k``
    exactly.  The absolute error of ``r`` grows as ``|k| 2**-107`` (the ln 2
    constant's truncation and the reduction's roundings), a relative error
    of ``exp(x)``: hence the bound's ``|x|`` term (measured against 80-digit
    Decimal, tests/test_dd_exp.py).

    Examples
    --------
    >>> h, l = dd_exp_jit(1.0, 0.0)
    >>> h, abs(l) < 2.0**-52
    (2.718281828459045, True)
    """
    k = np.round(xh / _LN2_HI)
    ph, pl = two_prod_jit(k, _LN2_HI)
    qh, ql = two_prod_jit(k, _LN2_LO)
    rh, rl = dd_add_jit(xh, xl, -ph)
    rh, rl = dd_add_jit(rh, rl, -pl)
    rh, rl = dd_add_jit(rh, rl, -qh)
    rh, rl = dd_add_jit(rh, rl, -ql)
    th, tl = _INV_FACT[_EXP_TERMS, 0], _INV_FACT[_EXP_TERMS, 1]
    for n in range(_EXP_TERMS - 1, -1, -1):
        th, tl = dd_mul_jit(th, tl, rh, rl)
        th, tl = dd_add_jit(th, tl, _INV_FACT[n, 0])
        th, tl = dd_add_jit(th, tl, _INV_FACT[n, 1])
    ik = int(k)
    return math.ldexp(th, ik), math.ldexp(tl, ik)
