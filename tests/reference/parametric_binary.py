"""Literal twin of ``venncal._kernels.parametric_binary`` (slow, obviously correct).

The weighted logistic log loss ``sum_i c1_i (-log p_i) + c0_i (-log(1 - p_i))``
with ``p_i = sigmoid(x_i . theta)``, its gradient and Hessian, each sum taken
with ``math.fsum`` (correctly rounded), each log with ``math.log1p`` of an
exponential that does not overflow.
"""

from __future__ import annotations

import math


def _softplus(u):
    return u + math.log1p(math.exp(-u)) if u > 0 else math.log1p(math.exp(u))


def _sigmoid(u):
    return 1.0 / (1.0 + math.exp(-u)) if u >= 0 else math.exp(u) / (1.0 + math.exp(u))


def _u(row, theta):
    return math.fsum(float(x) * float(t) for x, t in zip(row, theta))


def logistic_value(X, c1, c0, theta):
    """The weighted log loss of ``sigmoid(X theta)``."""
    terms = []
    for row, a, b in zip(X, c1, c0):
        u = _u(row, theta)
        terms.append(float(a) * _softplus(-u) if a else 0.0)
        terms.append(float(b) * _softplus(u) if b else 0.0)
    return math.fsum(terms)


def logistic_grad(X, c1, c0, theta):
    """The gradient of :func:`logistic_value` in ``theta``: ``sum_i (c0_i p_i - c1_i q_i) x_i``."""
    d = len(theta)
    parts = [[] for _ in range(d)]
    for row, a, b in zip(X, c1, c0):
        u = _u(row, theta)
        r = float(b) * _sigmoid(u) - float(a) * _sigmoid(-u)
        for j in range(d):
            parts[j].append(r * float(row[j]))
    return [math.fsum(p) for p in parts]


def logistic_hessian(X, c1, c0, theta):
    """The Hessian: ``sum_i (c1_i + c0_i) p_i q_i x_i x_i^T``."""
    d = len(theta)
    parts = [[[] for _ in range(d)] for _ in range(d)]
    for row, a, b in zip(X, c1, c0):
        u = _u(row, theta)
        h = (float(a) + float(b)) * _sigmoid(u) * _sigmoid(-u)
        for j in range(d):
            for k in range(d):
                parts[j][k].append(h * float(row[j]) * float(row[k]))
    return [[math.fsum(p) for p in r] for r in parts]
