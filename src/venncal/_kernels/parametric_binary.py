"""Kernels of the binary parametric calibrators: the weighted logistic log loss.

Every binary parametric calibrator (Beta calibration, quadratic logistic)
is a logistic regression of the label on a few features of the score:
``u_i = x_i . theta``, ``p_i = sigmoid(u_i)``.  With the positive and
negative weights ``c1_i`` and ``c0_i`` of row ``i`` the objective is

    L(theta) = sum_i c1_i softplus(-u_i) + c0_i softplus(u_i),

a sum of non-negative terms (nothing cancels), with gradient
``sum_i r_i x_i``, ``r_i = c0_i p_i - c1_i (1 - p_i)``, and Hessian
``sum_i (c1_i + c0_i) p_i (1 - p_i) x_i x_i^T``.  ``1 - p_i`` is computed as
``sigmoid(-u_i)``, never as a difference.  Rows are summed in blocks of
``BLOCK`` rows, in order, and the block sums added in order: the result is
the same on every call, and the rounding error grows with the number of
blocks, not of rows.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline

__all__ = ["BLOCK", "logistic_terms", "logistic_value"]

#: Rows per block of the sums.
BLOCK = 4096


@jit_inline
def _softplus(u):
    """``log(1 + exp(u))`` without overflow or cancellation."""
    if u > 0.0:
        return u + math.log1p(math.exp(-u))
    return math.log1p(math.exp(u))


@jit_inline
def _sigmoid(u):
    """``1 / (1 + exp(-u))`` without overflow."""
    if u >= 0.0:
        return 1.0 / (1.0 + math.exp(-u))
    e = math.exp(u)
    return e / (1.0 + e)


@jit
def logistic_value(X, c1, c0, theta):
    """``L(theta)``: the weighted log loss (natural log) of ``sigmoid(X theta)``."""
    n, d = X.shape
    total = 0.0
    for lo in range(0, n, BLOCK):
        part = 0.0
        for i in range(lo, min(lo + BLOCK, n)):
            u = 0.0
            for j in range(d):
                u += X[i, j] * theta[j]
            if c1[i] != 0.0:
                part += c1[i] * _softplus(-u)
            if c0[i] != 0.0:
                part += c0[i] * _softplus(u)
        total += part
    return total


@jit
def logistic_terms(X, c1, c0, theta, g, H):
    """Return ``L(theta)``; write its gradient into ``g`` (d,) and Hessian into ``H`` (d, d)."""
    n, d = X.shape
    total = 0.0
    gb = np.zeros(d)
    Hb = np.zeros((d, d))
    for j in range(d):
        g[j] = 0.0
        for k in range(d):
            H[j, k] = 0.0
    for lo in range(0, n, BLOCK):
        part = 0.0
        gb[:] = 0.0
        Hb[:, :] = 0.0
        for i in range(lo, min(lo + BLOCK, n)):
            u = 0.0
            for j in range(d):
                u += X[i, j] * theta[j]
            p = _sigmoid(u)
            q = _sigmoid(-u)
            r = 0.0
            if c1[i] != 0.0:
                part += c1[i] * _softplus(-u)
                r -= c1[i] * q
            if c0[i] != 0.0:
                part += c0[i] * _softplus(u)
                r += c0[i] * p
            h = (c1[i] + c0[i]) * p * q
            for j in range(d):
                xj = X[i, j]
                gb[j] += r * xj
                hx = h * xj
                for k in range(j + 1):
                    Hb[j, k] += hx * X[i, k]
        total += part
        for j in range(d):
            g[j] += gb[j]
            for k in range(j + 1):
                H[j, k] += Hb[j, k]
    for j in range(d):
        for k in range(j + 1, d):
            H[j, k] = H[k, j]
    return total
