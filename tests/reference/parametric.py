"""Literal twins of the parametric calibrators' kernels (slow, obviously correct).

Temperature scaling by its definition: the weighted mean of
``-log softmax(beta z_i)[y_i]``, each row's log-sum-exp summed with
``math.fsum``, and its minimiser over ``beta >= 0`` by 200 bisection steps
on the sign of the literal derivative (after a bracket by powers of two).
"""

from __future__ import annotations

import math


def _row_terms(row, y, beta):
    finite = [v for v in row if v != -math.inf]
    top = max(finite)
    e = [math.exp(beta * (v - top)) if v != -math.inf else 0.0 for v in row]
    s = math.fsum(e)
    loss = math.log(s) - beta * (row[y] - top)
    mean = math.fsum(ek * (v - top) for ek, v in zip(e, row) if ek) / s
    return loss, mean - (row[y] - top)


def _unit(w):
    """The weights divided by the largest (the same weighted mean; no overflow in fsum)."""
    top = max(w)
    return [wi / top for wi in w]


def temperature_loss(z, y, w, beta):
    """The weighted mean log loss (natural log) of ``softmax(beta z)``."""
    w = _unit(w)
    total = math.fsum(w)
    return math.fsum(wi * _row_terms([float(v) for v in r], int(c), beta)[0]
                     for r, c, wi in zip(z, y, w) if wi) / total


def temperature_grad(z, y, w, beta):
    """The derivative of :func:`temperature_loss` in ``beta``."""
    w = _unit(w)
    total = math.fsum(w)
    return math.fsum(wi * _row_terms([float(v) for v in r], int(c), beta)[1]
                     for r, c, wi in zip(z, y, w) if wi) / total


def temperature_bisection(z, y, w, steps=200):
    """The minimiser of :func:`temperature_loss` over ``beta >= 0``, by bisection on the derivative.

    The bracket is ``[2**(k-1), 2**k]`` with ``k`` the smallest integer
    where the derivative is not negative (searched from 0, up or down);
    then ``steps`` halvings.
    """
    if temperature_grad(z, y, w, 0.0) >= 0:
        return 0.0
    k = 0
    if temperature_grad(z, y, w, 1.0) < 0:
        while temperature_grad(z, y, w, 2.0**k) < 0:
            k += 1
            if k > 1023:
                raise ValueError("no finite minimiser")
    else:
        while k > -1074 and temperature_grad(z, y, w, 2.0 ** (k - 1)) >= 0:
            k -= 1
    lo, hi = (2.0 ** (k - 1) if k > -1074 else 0.0), 2.0**k
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        if temperature_grad(z, y, w, mid) < 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def temperature_moments(z, y, w, beta):
    """The weighted sums of the temperature kernel: loss, and the mean, variance, third moment.

    ``(sum_i w_i loss_i, sum_i w_i (mu_i - c_iy), sum_i w_i var_i, sum_i w_i kappa_i)`` with
    the central moments of ``c_i = z_i - max z_i`` under ``softmax(beta c_i)`` taken
    literally (``math.exp``, ``math.fsum``, deviations from the mean), rows of weight 0
    skipped: the twin of ``venncal._kernels.parametric.temperature_terms``.
    """
    sums = [[], [], [], []]
    for r, c, wi in zip(z, y, w):
        if not wi:
            continue
        row = [float(v) for v in r]
        top = max(v for v in row if v != -math.inf)
        cs = [v - top for v in row]
        e = [math.exp(beta * v) if v != -math.inf else 0.0 for v in cs]
        s = math.fsum(e)
        p = [ek / s for ek in e]
        mean = math.fsum(pk * v for pk, v in zip(p, cs) if pk)
        var = math.fsum(pk * (v - mean) ** 2 for pk, v in zip(p, cs) if pk)
        third = math.fsum(pk * (v - mean) ** 3 for pk, v in zip(p, cs) if pk)
        cy = cs[int(c)]
        for part, value in zip(sums, (math.log(s) - beta * cy, mean - cy, var, third)):
            part.append(wi * value)
    return tuple(math.fsum(part) for part in sums)
