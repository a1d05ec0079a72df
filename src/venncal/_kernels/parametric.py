"""Kernels of the parametric multiclass calibrators: temperature scaling.

The class scores ``z`` of a row enter through ``c_k = z_k - t_i``, where
``t_i`` is the row's largest score (given, one per row), so that
``exp(beta * c_k)`` never overflows for ``beta >= 0`` and the largest term of
a row is exactly 1.  ``z`` may be float32 or float64 (``c`` is computed in
float64).  An entry ``-inf`` (the log of a probability 0) is a class of
probability 0 at every ``beta > 0`` and is skipped (its limit), never
multiplied.

The exponentials come from :func:`exp_nonpositive`, written out (range
reduction and a polynomial) instead of ``math.exp`` so that LLVM vectorises
the loop that fills a row's terms (``math.exp`` is a library call it cannot
vectorise without fastmath); it is within one ulp of ``math.exp`` (tested on
millions of arguments and the edges).  The sums over a row's classes then run
in class order, as before, so the results do not depend on the vector width.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline

__all__ = ["exp_nonpositive", "softmax_scaled", "temperature_terms"]

_SHIFT = 6755399441055744.0  # 1.5 * 2**52: adding it rounds a double below 2**51 to an integer
_SHIFT_BITS = np.int64(np.float64(_SHIFT).view(np.int64))
_INV_LN2 = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 to 32 bits: n * _LN2_HI is exact for |n| < 2**21
_LN2_LO = 1.90821492927058770002e-10  # ln 2 - _LN2_HI
_TWO_M64 = 2.0**-64
# 1 / k! for k = 2 .. 13: the Taylor polynomial of exp on |r| <= ln(2) / 2 to 4e-18.
_C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12, _C13 = (
    1.0 / math.factorial(k) for k in range(2, 14)
)
#: Rows (of K classes) whose terms one pass of the kernels writes at once: about 2048 numbers.
_CHUNK = 2048


@jit_inline
def exp_nonpositive(x):
    """``exp(x)`` for ``x <= 0`` (and NaN or ``-inf``: 0), within one ulp of ``math.exp``.

    ``x = n ln 2 + r`` with ``n`` the nearest integer to ``x / ln 2`` (by the
    1.5 * 2**52 shift) and ``|r| <= ln(2) / 2`` (Cody and Waite's two-part
    ln 2), ``exp(r)`` by its Taylor polynomial of degree 13 (Horner), and
    ``2**n`` put into the exponent bits; the result is formed as
    ``(p * 2**(n + 64)) * 2**-64`` so that a subnormal result is rounded once.
    Arguments below -746 (whose exponential is below half the smallest
    subnormal) give 0.  Branch-free, so that a loop of it vectorises.
    """
    xc = x if x > -746.0 else -746.0
    kd = xc * _INV_LN2 + _SHIFT
    n = np.float64(kd).view(np.int64) - _SHIFT_BITS
    kd = kd - _SHIFT
    r = (xc - kd * _LN2_HI) - kd * _LN2_LO
    q = _C12 + r * _C13
    q = _C11 + r * q
    q = _C10 + r * q
    q = _C9 + r * q
    q = _C8 + r * q
    q = _C7 + r * q
    q = _C6 + r * q
    q = _C5 + r * q
    q = _C4 + r * q
    q = _C3 + r * q
    q = _C2 + r * q
    q = 1.0 + r * q
    p = 1.0 + r * q
    scale = np.int64((n + 1087) << 52).view(np.float64)
    return (p * scale) * _TWO_M64


@jit_inline
def _row_exps(z, i, t, beta, eb, vb, o):
    """``eb[o + k] = exp(beta c_ik)`` and ``vb[o + k] = c_ik`` (both 0 where ``c_ik = -inf``)."""
    for k in range(z.shape[1]):
        v = np.float64(z[i, k]) - t
        live = v > -np.inf
        e = exp_nonpositive(beta * v)
        eb[o + k] = e if live else 0.0
        vb[o + k] = v if live else 0.0


@jit
def temperature_terms(z, top, codes, w, beta, lo, hi, out):
    """Weighted sums of the temperature objective over rows ``lo:hi`` at ``beta >= 0``.

    ``z`` must be C-contiguous (the exponentials of a chunk of rows are one
    vectorised loop over its scores, whatever K).

    ``out[0] = sum_i w_i (log S_i - beta c_{i,y_i})`` (the log loss, natural
    log), ``out[1]`` its derivative in ``beta``, ``sum_i w_i (mu_i - c_{i,y_i})``,
    ``out[2]`` the second derivative, ``sum_i w_i var_i``, and ``out[3]`` the
    third, ``sum_i w_i kappa_i``, where ``c_ik = z_ik - top_i``,
    ``S_i = sum_k exp(beta c_ik)``, and ``mu_i``, ``var_i``, ``kappa_i`` are
    the mean, variance and third central moment of ``c_i`` under
    ``softmax(beta c_i)``.  Rows of weight 0 are skipped.  One pass per row:
    the central moments come from the raw ones (``E[c^2] - mu^2``, the
    variance clamped at 0), which may lose digits to cancellation; they only
    set the search's steps, never the value or the derivative it stops on.
    """
    K = z.shape[1]
    rows = max(1, _CHUNK // K)
    eb = np.empty(rows * K)
    vb = np.empty(rows * K)
    f = 0.0
    g = 0.0
    h = 0.0
    q = 0.0
    zf = z.reshape(z.size)  # z is C-contiguous: the chunk's scores are one run
    tb = np.empty(rows * K)
    for r0 in range(lo, hi, rows):
        r1 = min(r0 + rows, hi)
        for i in range(r0, r1):
            t = top[i]
            for k in range((i - r0) * K, (i - r0 + 1) * K):
                tb[k] = t
        base = r0 * K
        for j in range((r1 - r0) * K):
            v = np.float64(zf[base + j]) - tb[j]
            live = v > -np.inf
            e = exp_nonpositive(beta * v)
            eb[j] = e if live else 0.0
            vb[j] = v if live else 0.0
        for i in range(r0, r1):
            wi = w[i]
            if wi == 0.0:
                continue
            o = (i - r0) * K
            s = 0.0
            rest = 0.0  # s less one term of exactly 1 (the top's): log1p(rest) keeps its digits
            one = False
            m1 = 0.0
            m2 = 0.0
            m3 = 0.0
            for k in range(K):
                e = eb[o + k]
                v = vb[o + k]
                ev = e * v
                ev2 = ev * v
                s += e
                if one or e != 1.0:
                    rest += e
                else:
                    one = True
                m1 += ev
                m2 += ev2
                m3 += ev2 * v
            mu = m1 / s
            e2 = m2 / s
            var = max(e2 - mu * mu, 0.0)
            cy = np.float64(z[i, codes[i]]) - top[i]
            ls = math.log1p(rest) if one else math.log(s)
            term = ls - beta * cy
            if term < math.inf:
                f += wi * term
            else:  # a row's loss past the doubles, of a small weight: taken at 2**-64 (attack 51 F3)
                f += math.ldexp(wi * (ls * 2.0**-64 - (beta * 2.0**-64) * cy), 64)
            g += wi * (mu - cy)
            h += wi * var
            q += wi * (m3 / s - mu * (3.0 * e2 - 2.0 * mu * mu))
    out[0] = f
    out[1] = g
    out[2] = h
    out[3] = q


@jit
def softmax_scaled(z, top, beta, lo, hi, out):
    """``out[i] = softmax(beta * (z[i] - top[i]))`` for rows ``lo:hi`` (see the module docstring)."""
    K = z.shape[1]
    vb = np.empty(K)
    for i in range(lo, hi):
        _row_exps(z, i, top[i], beta, out[i], vb, 0)
        s = 0.0
        for k in range(K):
            s += out[i, k]
        for k in range(K):
            out[i, k] /= s
