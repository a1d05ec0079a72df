"""Slow, literal twins of the Jumper kernels (paper 002, Algorithms 1 and 2, Mean Jumper).

Each function follows the paper line by line, with the unnormalised capitals of
Algorithm 1 and the weights of Algorithm 2 held as ``decimal.Decimal`` numbers
at 60 significant digits, so that ``S`` can be ``10^1000`` or ``10^-1000``
without overflow (Decimal's exponent range is about ``10^±999999``).  Inputs
(floats) are converted exactly (``Decimal(float)`` is exact); the family is a
table ``f[k][n]`` of float values of ``f_k(p_n)``, so that these twins test the
arithmetic of the kernel, not the evaluation of the family.

Labels are True/1 for the positive class (the paper's label 1).
"""

from __future__ import annotations

from decimal import Decimal, localcontext

__all__ = [
    "jumper_martingale",
    "jumper_predictor",
    "log10_loss",
    "mean_jumper_martingale",
    "mean_jumper_predictor",
]

PREC = 60


def _d(x) -> Decimal:
    return Decimal(float(x))


def _bernoulli(q: Decimal, y) -> Decimal:
    """``B_q({y})``: ``q`` for the positive label, ``1 - q`` for the other."""
    return q if y else 1 - q


def jumper_martingale(p, y, table, J) -> list[Decimal]:
    """Algorithm 1: the Jumper test martingale ``S_1, ..., S_N`` (Decimal values)."""
    with localcontext() as ctx:
        ctx.prec = PREC
        K = len(table)
        J = _d(J)
        C_eps = [Decimal(1) / K for _ in range(K)]  # line 1
        C = Decimal(1)  # line 2
        S = []
        for n in range(len(p)):  # line 3
            C_eps = [(1 - J) * c + (J / K) * C for c in C_eps]  # line 4
            base = _bernoulli(_d(p[n]), y[n])
            C_eps = [  # line 5
                c * _bernoulli(_d(table[k][n]), y[n]) / base for k, c in enumerate(C_eps)
            ]
            C = sum(C_eps)  # line 6
            S.append(C)
        return S


def jumper_predictor(p, y, table, J) -> list[Decimal]:
    """Algorithm 2: the Jumper predictor's ``p'_1, ..., p'_N`` (Decimal values)."""
    with localcontext() as ctx:
        ctx.prec = PREC
        K = len(table)
        J = _d(J)
        C_eps = [Decimal(1) for _ in range(K)]  # line 1
        out = []
        for n in range(len(p)):  # line 2
            C = sum(C_eps)  # line 3
            C_eps = [c / C for c in C_eps]  # line 4
            C_eps = [(1 - J) * c + J / K for c in C_eps]  # line 5
            out.append(sum(_d(table[k][n]) * c for k, c in enumerate(C_eps)))  # line 6
            C_eps = [c * _bernoulli(_d(table[k][n]), y[n]) for k, c in enumerate(C_eps)]  # line 7
        return out


def mean_jumper_martingale(p, y, table, rates) -> list[Decimal]:
    """The Mean Jumper: the average of the Jumper martingales of ``rates``."""
    with localcontext() as ctx:
        ctx.prec = PREC
        runs = [jumper_martingale(p, y, table, J) for J in rates]
        return [sum(values) / len(rates) for values in zip(*runs, strict=True)]


def mean_jumper_predictor(p, y, table, rates) -> list[Decimal]:
    """The Mean Jumper's predictor: its gale is the average of the rates' gales.

    So ``p'_n`` is the rates' ``p'_{r,n}`` averaged with weights equal to their
    gales ``G_{r,n-1} = prod_{i<n} B_{p'_{r,i}}(y_i)``.
    """
    with localcontext() as ctx:
        ctx.prec = PREC
        preds = [jumper_predictor(p, y, table, J) for J in rates]
        gales = [Decimal(1) for _ in rates]
        out = []
        for n in range(len(p)):
            total = sum(gales)
            out.append(sum(g * pr[n] for g, pr in zip(gales, preds, strict=True)) / total)
            gales = [g * _bernoulli(pr[n], y[n]) for g, pr in zip(gales, preds, strict=True)]
        return out


def log10_loss(proba, y) -> Decimal:
    """Cumulative decimal log loss ``sum_n -log10 B_{p_n}(y_n)`` (paper 002, eq. (6))."""
    with localcontext() as ctx:
        ctx.prec = PREC
        total = Decimal(0)
        for q, yi in zip(proba, y, strict=True):
            q = q if isinstance(q, Decimal) else _d(q)
            total -= _bernoulli(q, yi).log10()
        return total
