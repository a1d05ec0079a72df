"""Slow, literal twins of ``venncal._kernels.jumper_union`` (Cox's families and unions in compiled code).

* :func:`cox_values` is SciPy's ``expit(alpha + beta * logit(p))`` written out
  per value with :mod:`math` (``logit`` by SciPy's own two formulas): the
  kernel's floats, which must agree bit for bit;
* :func:`union_values` stacks the members' exact values
  (:func:`jumper_naive.family_values`: Fractions and 60-digit Decimals);
* :func:`union_ratios` gives the union's likelihood ratios
  ``rho_k = B_{f_k(p)}(y) / B_p(y)`` exactly, as ``(rho_k / max rho, log max rho)``
  in Decimal: what the kernel's ``(t, ls)`` approximate to a few roundings.

Members are given as ``(kind, params)`` pairs, with the kinds and parameters
of ``venncal.online.CalibratingFamily``.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

from . import jumper_naive

__all__ = ["cox_values", "union_ratios", "union_values"]


def _logit(x: float) -> float:
    if x < 0.3 or x > 0.65:
        if x == 0.0:
            return -math.inf
        if x == 1.0:
            return math.inf
        return math.log(x / (1.0 - x))
    s = 2.0 * (x - 0.5)
    return math.log1p(s) - math.log1p(-s)


def _expit(z: float) -> float:
    try:
        e = math.exp(-z)
    except OverflowError:  # exp(-z) beyond the floats: 1 + exp(z) is 1, the value exp(z)
        return math.exp(z)
    return 1.0 / (1.0 + e)


def cox_values(params, p) -> list[list[float]]:
    """``expit(alpha + beta logit p)`` per function and forecast, ``beta logit p = 0`` for ``beta = 0``."""
    out = []
    for alpha, beta in params:
        row = []
        for x in p:
            z = 0.0 if beta == 0.0 else beta * _logit(float(x))
            row.append(_expit(alpha + z))
        out.append(row)
    return out


def union_values(members, p) -> list[list]:
    """The union's values, exactly: the members' rows, in order."""
    rows = []
    for kind, params in members:
        rows += jumper_naive.family_values(kind, params, p)
    return rows


def _decimal(x) -> Decimal:
    if isinstance(x, Fraction):
        return Decimal(x.numerator) / Decimal(x.denominator)
    return Decimal(x)


def union_ratios(members, p, y) -> tuple[list[list[Decimal]], list[Decimal]]:
    """``(t, ls)``: ``t[k][i] = rho_k / max_j rho_j`` and ``ls[i] = log max_j rho_j``, exactly (60 digits).

    ``ls[i]`` is ``-inf`` (and ``t`` 0) when every function gives the label
    probability 0.  Precondition: ``B_{p_i}(y_i) > 0``.
    """
    table = union_values(members, p)
    with localcontext() as ctx:
        ctx.prec = jumper_naive.PREC
        t = [[None] * len(p) for _ in table]
        ls = []
        for i, (x, yi) in enumerate(zip(p, y, strict=True)):
            base = _decimal(Fraction(float(x)) if yi else 1 - Fraction(float(x)))
            rho = [_decimal(row[i] if yi else 1 - row[i]) / base for row in table]
            top = max(rho)
            ls.append(Decimal("-Infinity") if top == 0 else top.ln())
            for k, r in enumerate(rho):
                t[k][i] = Decimal(0) if top == 0 else r / top
        return t, ls
