"""Kernels of the parametric multiclass calibrators: temperature scaling.

The class scores ``z`` of a row enter through ``c_k = z_k - t_i``, where
``t_i`` is the row's largest score (given, one per row), so that
``exp(beta * c_k)`` never overflows for ``beta >= 0`` and the largest term of
a row is exactly 1.  ``z`` may be float32 or float64 (``c`` is computed in
float64).  An entry ``-inf`` (the log of a probability 0) is a class of
probability 0 at every ``beta > 0`` and is skipped (its limit), never
multiplied.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit

__all__ = ["softmax_scaled", "temperature_terms"]


@jit
def temperature_terms(z, top, codes, w, beta, lo, hi, out):
    """Weighted sums of the temperature objective over rows ``lo:hi`` at ``beta >= 0``.

    ``out[0] = sum_i w_i (log S_i - beta c_{i,y_i})`` (the log loss, natural
    log), ``out[1]`` its derivative in ``beta``, ``sum_i w_i (mu_i - c_{i,y_i})``,
    and ``out[2]`` the second derivative, ``sum_i w_i var_i``, where
    ``c_ik = z_ik - top_i``, ``S_i = sum_k exp(beta c_ik)``, and ``mu_i``,
    ``var_i`` are the mean and variance of ``c_i`` under
    ``softmax(beta c_i)``.  Rows of weight 0 are skipped.  One pass per row:
    the variance is ``E[c^2] - mu^2`` (clamped at 0), which may lose digits
    to cancellation; it only sets Newton's step, never the value or the
    derivative the search stops on.
    """
    K = z.shape[1]
    f = 0.0
    g = 0.0
    h = 0.0
    for i in range(lo, hi):
        wi = w[i]
        if wi == 0.0:
            continue
        t = top[i]
        s = 0.0
        m1 = 0.0
        m2 = 0.0
        for k in range(K):
            v = np.float64(z[i, k]) - t
            if v == -np.inf:
                continue
            e = math.exp(beta * v)
            ev = e * v
            s += e
            m1 += ev
            m2 += ev * v
        mu = m1 / s
        var = max(m2 / s - mu * mu, 0.0)
        cy = np.float64(z[i, codes[i]]) - t
        f += wi * (math.log(s) - beta * cy)
        g += wi * (mu - cy)
        h += wi * var
    out[0] = f
    out[1] = g
    out[2] = h


@jit
def softmax_scaled(z, top, beta, out):
    """``out[i] = softmax(beta * (z[i] - top[i]))`` (see the module docstring)."""
    n, K = z.shape
    for i in range(n):
        t = top[i]
        s = 0.0
        for k in range(K):
            v = np.float64(z[i, k]) - t
            e = 0.0 if v == -np.inf else math.exp(beta * v)
            out[i, k] = e
            s += e
        for k in range(K):
            out[i, k] /= s
