"""Exponential forgetting of the Jumper's weights over its family (``half_life``, issue 26).

:func:`forget` discounts the evidence the weights hold; the Jumper's kernels
(:mod:`venncal._kernels.jumper`) apply it after every step when a half-life is
given.  Its literal twin is in ``tests/reference/jumper_naive.py``.

The powers ``x^gamma`` are taken by :func:`unit_pow`, ``exp(gamma log x)``
written out in float64 arithmetic (no call to the C library), so that the
compiler does the ``K`` of them several at a time (numba has no vector
library here): :func:`forget` of the 21 functions of ``shift+confidence``
takes about 180 ns instead of 290 ns with ``pow`` (2026-11-27, in a
compiled loop; 16 of them go 8 at a time, the other 5 one by one).  Its relative error is below
``(|gamma log x| + 4) 2^-52`` (see :func:`unit_pow`), at most ``1.6e-13``
over the normal range and ``1e-15`` for ``x >= 1e-3``; ``pow`` is within an
ulp.  A weight's relative error changes the step's betting factor
``sum w_k t_k`` by at most as much, so ``log S`` moves by at most that per
step (the tests compare with the literal twin at ``1e-9`` relative).

Ratios and weights below the normal range (attack 19 F2)
--------------------------------------------------------
Forgetting brings a tiny weight back: ``x^(gamma^m)`` tends to 1, so a weight
of ``1e-450`` relative to the largest matters again after a few steps of a
short half-life, and must not be 0 (or a subnormal float, off by up to 100%).
So the likelihood ratios ``t`` (:mod:`venncal._kernels.jumper`) carry a ratio
that is positive but below ``2^-1022`` as its natural logarithm, a number
below ``-708.39`` (:func:`coded`; 0 stays exactly 0: a function that gives the
label probability 0), and :func:`forget_step` discounts the weights after a
step from ``log w_k + log t_k`` wherever ``w_k t_k`` is not a normal float.
The weights themselves stay floats: after the mixing of the next step each is
at least ``J/K``, a normal float (the objects refuse a half-life with a
smaller ``J/K``), beside which a subnormal weight's absolute error of
``2^-1075`` is below ``2^-53`` relative.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic

from ._jit import jit, jit_inline
from .dd import dd_div_jit, two_prod_jit, two_sum_jit

__all__ = ["coded", "decoded", "forget", "forget_step", "growth_near_one", "unit_pow"]

_TINY = 2.2250738585072014e-308  # the smallest normal float
_SQRT2 = 1.4142135623730951
# log 2 in two parts: _LN2_HI has 32 trailing zero bits, so k * _LN2_HI is exact for |k| < 2**20
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00
_MANTISSA = (1 << 52) - 1
_ONE_BITS = 1023 << 52


@intrinsic
def _bits(typingctx, x):
    """The IEEE bits of the float64 ``x`` as an int64 (a bitcast: vectorisable)."""
    if not isinstance(x, types.Float) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(x), codegen


@intrinsic
def _from_bits(typingctx, i):
    """The float64 whose IEEE bits are the int64 ``i`` (a bitcast: vectorisable)."""
    if not isinstance(i, types.Integer) or i.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(i), codegen


@jit_inline
def unit_pow(x, gamma):
    """``x^gamma`` for a normal ``x`` in ``[2^-1022, 1]`` and ``gamma`` in ``[0, 1]``.

    ``x = 2^e m`` with ``m`` in ``[sqrt(1/2), sqrt(2))`` (from the bits;
    ``m - 1`` is exact), ``log m = 2 atanh(s)``, ``s = (m - 1) / (m + 1)``,
    ``|s| < 0.1716``, by its series to ``s^23`` (the rest is below
    ``2^-60`` of it); ``y = gamma (e log 2 + log m)`` with ``log 2`` in two
    parts; then ``exp(y) = 2^k exp(r)``, ``k`` the integer nearest
    ``y / log 2``, ``r = y - k log 2`` (in two parts, ``|r| <= 0.3466``), and
    ``exp(r)`` by its Taylor series to ``r^13`` (the rest below ``2^-57``).
    Each part is within a few rounding errors, so the relative error of
    ``log x`` is within ``2^-51`` and that of ``y`` adds one rounding: the
    result is within ``(|y| + 4) 2^-52`` relative, ``|y| <= 708.4``.  The
    result is normal (``x^gamma >= x``), 1 exactly at ``x = 1`` or
    ``gamma = 0``.  Branch-free, so that a loop of these vectorises.
    """
    b = _bits(x)
    m = _from_bits((b & _MANTISSA) | _ONE_BITS)  # in [1, 2)
    e = (b >> 52) - 1023
    big = m >= _SQRT2
    m = m * 0.5 if big else m
    e = e + 1 if big else e
    s = (m - 1.0) / (m + 1.0)
    z = s * s
    # q = sum_j z^j / (2j + 3), j = 0 .. 10, by Estrin's scheme (short chains of dependent operations)
    z2 = z * z
    z4 = z2 * z2
    q = (((1.0 / 3.0 + z * (1.0 / 5.0)) + z2 * (1.0 / 7.0 + z * (1.0 / 9.0)))
         + z4 * ((1.0 / 11.0 + z * (1.0 / 13.0)) + z2 * (1.0 / 15.0 + z * (1.0 / 17.0)))
         + (z4 * z4) * ((1.0 / 19.0 + z * (1.0 / 21.0)) + z2 * (1.0 / 23.0)))
    ln_m = 2.0 * s + (2.0 * s) * (z * q)
    fe = float(e)
    y = gamma * (fe * _LN2_HI + (fe * _LN2_LO + ln_m))
    k = np.floor(y * _INV_LN2 + 0.5)  # (a float: vectorised)
    r = (y - k * _LN2_HI) - k * _LN2_LO
    # exp(r) = 1 + r + r^2 P(r), P(r) = sum_i r^i / (i + 2)!, i = 0 .. 11, by Estrin's scheme
    r2 = r * r
    r4 = r2 * r2
    P = (((1.0 / 2.0 + r * (1.0 / 6.0)) + r2 * (1.0 / 24.0 + r * (1.0 / 120.0)))
         + r4 * ((1.0 / 720.0 + r * (1.0 / 5040.0)) + r2 * (1.0 / 40320.0 + r * (1.0 / 362880.0)))
         + (r4 * r4) * ((1.0 / 3628800.0 + r * (1.0 / 39916800.0))
                        + r2 * (1.0 / 479001600.0 + r * (1.0 / 6227020800.0))))
    p = 1.0 + (r + r2 * P)
    return p * _from_bits((int(k) + 1023) << 52)


@jit
def unit_pows(x, gamma, out):
    """``out[i] = unit_pow(x[i], gamma)`` (for the tests)."""
    for i in range(x.shape[0]):
        out[i] = unit_pow(x[i], gamma)


@jit_inline
def _discounted(wk, top, gamma):
    """``(wk / top)^gamma`` by :func:`unit_pow`, or ``-wk`` when the quotient is not normal."""
    x = wk / top
    u = unit_pow(max(x, _TINY), gamma)
    return u if x >= _TINY else -wk


@jit_inline
def forget(w, gamma):
    """Discount the evidence held by the weights ``w``: ``w := w^gamma / sum w^gamma``, in place.

    ``w`` is a distribution over the family (the capital's, after a step);
    raising it to ``gamma`` in ``(0, 1)`` multiplies every expert's log
    weight, the sum of its past log likelihoods, by ``gamma``: exponential
    forgetting of the past.  ``w_k / max w`` is raised to ``gamma``
    (:func:`unit_pow` of a normal float, several at a time), or ``exp(gamma
    log ...)`` when that quotient is subnormal; the largest becomes exactly 1
    before the division by the sum (in ``[1, K]``), so nothing underflows
    that did not already.
    """
    K = w.shape[0]
    top = 0.0
    for k in range(K):
        top = max(top, w[k])
    if top == 0.0:
        return
    for k in range(K):  # (branch-free: vectorised)
        w[k] = _discounted(w[k], top, gamma)
    tot = 0.0
    for k in range(K):
        u = w[k]
        if not u > 0.0:  # -w: the quotient is below the normal range (or 0)
            u = math.exp(gamma * (math.log(-u) - math.log(top))) if u < 0.0 else 0.0
            w[k] = u
        tot += u
    for k in range(K):
        w[k] = w[k] / tot


@jit_inline
def coded(x, log_x):
    """A ratio as :func:`forget_step` reads it: ``x`` when normal, else ``log_x`` (0 for ``x = log_x = 0``).

    ``x`` is the ratio's float and ``log_x`` its natural logarithm (taken by
    the caller only when ``x`` is below ``2^-1022``: pass any value
    otherwise); ``log_x = -inf`` is a ratio of exactly 0.
    """
    if x >= _TINY:
        return x
    return 0.0 if log_x == -np.inf else log_x


@jit_inline
def coded_quotient(a, b):
    """``a / b`` for ``a >= 0`` and ``b > 0`` normal, or ``log a - log b`` when the quotient is not normal (:func:`coded`)."""
    x = a / b
    if x >= _TINY or a == 0.0:
        return x
    return _log_quotient(a, b)


@jit
def _log_quotient(a, b):
    """``log a - log b`` (a call, out of the callers' loops: the rare case)."""
    return math.log(a) - math.log(b)


@jit_inline
def decoded(x):
    """The float of a coded ratio (:func:`coded`): ``exp(x)`` for a logarithm (subnormal or 0)."""
    return math.exp(x) if x < 0.0 else x


@jit
def coded_growth(w, t, i):
    """``sum_k w_k t_k`` over the coded ratios of column ``i`` alone (their floats, subnormal or 0)."""
    g = 0.0
    for k in range(w.shape[0]):
        if t[k, i] < 0.0:
            g += w[k] * math.exp(t[k, i])
    return g


@jit_inline
def growth_near_one(w, t, i):
    """``sum_k w_k t_k / sum_k w_k`` from compensated sums (Ogita, Rump & Oishi's Dot2).

    The products and sums are carried with their exact errors, so the
    quotient is within about an ulp of the exact quotient of the given
    floats, where the plain sums are off by up to ``K`` ulps: one step at
    ``p = 1 - 2**-53`` with a symmetric family and ``J = 1``, whose factor
    is exactly 1, gave ``S = 1 + 2**-52``; now exactly 1.  Coded ratios
    (:func:`coded`) count by their floats.
    """
    gh = gl = th = tl = 0.0
    for k in range(w.shape[0]):
        prod, perr = two_prod_jit(w[k], decoded(t[k, i]))
        gh, e = two_sum_jit(gh, prod)
        gl += e + perr
        th, e = two_sum_jit(th, w[k])
        tl += e
    gh, gl = two_sum_jit(gh, gl)
    th, tl = two_sum_jit(th, tl)
    return dd_div_jit(gh, gl, th, tl)


@jit_inline
def _step_pow(wk, tk, top, gamma):
    """``(wk tk / top)^gamma`` by :func:`unit_pow` when ``wk tk`` and the quotient are normal, else ``-wk``."""
    prod = wk * max(tk, 0.0)
    x = prod / top
    u = unit_pow(max(x, _TINY), gamma)
    return u if (prod >= _TINY and x >= _TINY) else -wk


@jit
def forget_step(w, t, i, gamma):
    """Algorithm 2 line 7 then forgetting, in place: ``w := (w t)^gamma / sum (w t)^gamma``.

    ``w`` holds the mixed weights of the step (each at least ``J/K > 0``)
    and column ``i`` of ``t`` its coded ratios (:func:`coded`, the largest
    1).  The result is :func:`forget` of the normalised ``w_k t_k``, taken
    relative to the largest product (normalising first changes nothing but
    the roundings): by :func:`unit_pow` where ``w_k t_k`` and its quotient
    are normal floats, else as ``exp(gamma (log w_k + log t_k - log top))``
    from the logarithms, so that a product far below the float range keeps
    its relative precision and forgetting can bring it back; ``t_k = 0``
    gives exactly 0.
    """
    K = w.shape[0]
    top = 0.0
    for k in range(K):
        top = max(top, w[k] * max(t[k, i], 0.0))
    if not top > 0.0:
        return
    for k in range(K):  # (branch-free: vectorised)
        w[k] = _step_pow(w[k], t[k, i], top, gamma)
    tot = 0.0
    for k in range(K):
        u = w[k]
        if not u > 0.0:  # -w_k: a product or quotient below the normal range (or t_k = 0)
            wk, tk = -u, t[k, i]
            if wk > 0.0 and tk != 0.0:
                lt = tk if tk < 0.0 else math.log(tk)
                u = math.exp(gamma * ((math.log(wk) + lt) - math.log(top)))
            else:
                u = 0.0
            w[k] = u
        tot += u
    for k in range(K):
        w[k] = w[k] / tot
