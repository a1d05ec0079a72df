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
def _logistic_parts(u):
    """``(softplus(u), softplus(-u), sigmoid(u), sigmoid(-u))`` from one exp and one log1p.

    With ``e = exp(-|u|)`` (no overflow) and ``l = log1p(e)``: for ``u >= 0``,
    ``softplus(u) = u + l``, ``softplus(-u) = l``, ``sigmoid(u) = 1 / (1 + e)``
    and ``sigmoid(-u) = e / (1 + e)``; mirrored for ``u < 0``.
    """
    e = math.exp(-abs(u))
    lg = math.log1p(e)
    inv = 1.0 / (1.0 + e)
    if u >= 0.0:
        return u + lg, lg, inv, e * inv
    return lg, lg - u, e * inv, inv


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
            sp, sn, _, _ = _logistic_parts(u)
            if c1[i] != 0.0:
                part += c1[i] * sn
            if c0[i] != 0.0:
                part += c0[i] * sp
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
            sp, sn, p, q = _logistic_parts(u)
            r = 0.0
            if c1[i] != 0.0:
                part += c1[i] * sn
                r -= c1[i] * q
            if c0[i] != 0.0:
                part += c0[i] * sp
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
