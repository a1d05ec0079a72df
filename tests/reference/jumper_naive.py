"""Slow, literal twins of the Jumper kernels (Vovk, Petej & Gammerman 2021, Algorithms 1 and 2, Mean Jumper).

Each function follows the paper line by line, with the unnormalised capitals of
Algorithm 1 and the weights of Algorithm 2 held as exact numbers, so that ``S``
can be ``10^1000`` or ``10^-1000`` without overflow, and a base forecast can be
``5e-324`` or ``1 - 2**-53`` without losing a bit:

* a table of ``fractions.Fraction`` values (:func:`family_values` for the
  quadratic and cubic families, whose values at a float ``p`` are rational)
  runs in exact rational arithmetic;
* a table of ``decimal.Decimal`` values (Cox's families, irrational) or of
  floats runs in ``Decimal`` at :data:`PREC` significant digits (relative error
  about ``1e-60`` per operation; the exponent range is about ``10^±999999``).

Floats are converted exactly (``Fraction(float)`` and ``Decimal(float)`` are
exact).  A Decimal probability close to 1 would lose its complement to the
subtraction ``1 - f`` (``1 - 5e-324`` is 1 at 60 digits), so Cox's values and
Algorithm 2's forecasts carry theirs, computed without a subtraction
(:class:`Complemented`: ``1 - x`` is then the complement).

Labels are True/1 for the positive class (the paper's label 1).  Where the
paper's definitions are undefined the twins are too: Algorithm 1 divides by
``B_{p_n}(y_n)`` and raises ``ZeroDivisionError`` (a ``decimal.DivisionByZero``
or ``InvalidOperation`` in Decimal, all ``ArithmeticError``) when the base
forecast gave the label probability 0; Algorithm 2's list of forecasts ends
where its line 4 would divide 0 by 0 (every function gave a label that came
probability 0).
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

__all__ = [
    "Complemented",
    "family_values",
    "jumper_forgetting",
    "jumper_martingale",
    "jumper_predictor",
    "log10_loss",
    "log10_of",
    "mean_jumper_martingale",
    "mean_jumper_predictor",
]

PREC = 60


class Complemented(Decimal):
    """A Decimal probability ``f`` whose complement ``1 - f`` is known without subtracting."""

    def __new__(cls, value, complement):
        obj = super().__new__(cls, value)
        obj.complement = complement
        return obj

    def __rsub__(self, other, context=None):
        if other == 1:
            return self.complement
        return Decimal(self).__rsub__(other, context)

    def __reduce__(self):
        return (type(self), (str(self), self.complement))


def _exact_kind(table) -> str:
    """``"fraction"`` when every value of the table is a Fraction, else ``"decimal"``.

    Float values are taken as exact, with ``1 - f`` their complement: a kernel's
    table as given.  Against an object whose functions give exact complements
    (:mod:`venncal.online`), give the exact table (:func:`family_values`).
    """
    rows = [list(row) for row in table]
    return "fraction" if all(isinstance(v, Fraction) for row in rows for v in row) else "decimal"


def _refuse_floats(table) -> None:
    """Raise unless the table holds exact values (Fraction, Decimal, :class:`Complemented`).

    A float ``f`` gives the complement ``1 - f`` of the rounded value, not the
    function's: 39 % off in a step at ``p = 1 - 2**-53`` (attack 44).
    """
    for row in table:
        for v in row:
            if not isinstance(v, (Fraction, Decimal)):
                raise TypeError(f"the table must hold exact values (family_values), not {v!r}")


def _num(x, kind: str):
    """``x`` (float, int, Fraction or Decimal) as an exact number of ``kind``."""
    if kind == "fraction":
        return x if isinstance(x, Fraction) else Fraction(float(x))
    if isinstance(x, Decimal):
        return x
    if isinstance(x, Fraction):
        return Decimal(x.numerator) / Decimal(x.denominator)
    return Decimal(float(x))


def _bernoulli(q, y):
    """``B_q({y})``: ``q`` for the positive label, ``1 - q`` for the other."""
    return q if y else 1 - q


def log10_of(x) -> float:
    """``log10`` of a non-negative exact number (Fraction or Decimal), as a float."""
    with localcontext() as ctx:
        ctx.prec = PREC
        if x == 0:
            return -math.inf
        if isinstance(x, Fraction):
            x = Decimal(x.numerator) / Decimal(x.denominator)
        return float(x.log10())


# -- the families, evaluated exactly ----------------------------------------------------


def _cox2_value(alpha: float, beta: float, p: float) -> Complemented:
    """``p^beta e^alpha / (p^beta e^alpha + (1 - p)^beta)`` (eq. (5)) at PREC digits.

    Its complement is ``(1 - p)^beta / (p^beta e^alpha + (1 - p)^beta)``, with
    ``1 - p`` exact.  At ``p = 0`` and ``p = 1`` the value is the limit
    (``0^0 = 1``): 0 or 1 as ``beta`` is positive or negative,
    ``e^alpha / (e^alpha + 1)`` for ``beta = 0``.
    """
    a, b, x = Decimal(alpha), Decimal(beta), Fraction(p)
    ea = a.exp()
    if b == 0:
        return Complemented(ea / (ea + 1), 1 / (ea + 1))
    if x in (0, 1):
        one = int((x == 1) == (b > 0))
        return Complemented(Decimal(one), Decimal(1 - one))
    lp = Decimal(x.numerator).ln() - Decimal(x.denominator).ln()
    lq = Decimal((1 - x).numerator).ln() - Decimal((1 - x).denominator).ln()
    pb, qb = (b * lp).exp(), (b * lq).exp()
    return Complemented(pb * ea / (pb * ea + qb), qb / (pb * ea + qb))


def family_values(kind: str, params, p, funcs=None) -> list[list]:
    """``f_k(p_i)`` for every function ``k`` of a family and every forecast ``p_i``, exactly.

    ``kind`` and ``params`` are those of ``venncal.online.CalibratingFamily``:
    ``"quadratic"`` (rows ``(eps,)``, eq. (1)) and ``"cubic"`` (rows ``(a, b)``,
    eq. (3)) give Fractions, by the paper's formulas in rational arithmetic;
    ``"cox"`` (rows ``(beta,)``, eq. (4)) and ``"cox2"`` (rows ``(alpha, beta)``,
    eq. (5)) give Decimals at PREC digits; ``"custom"`` takes the user's
    functions ``funcs`` at their float values (which are then the definition).
    """
    with localcontext() as ctx:
        ctx.prec = PREC
        xs = [Fraction(float(v)) for v in p]
        if kind == "quadratic":
            return [[x + Fraction(float(e)) * x * (1 - x) for x in xs] for (e,) in params]
        if kind == "cubic":
            return [[x + Fraction(float(a)) * x * (x - Fraction(float(b))) * (x - 1) for x in xs]
                    for a, b in params]
        if kind == "cox":
            return [[_cox2_value(0.0, float(b), float(v)) for v in p] for (b,) in params]
        if kind == "cox2":
            return [[_cox2_value(float(a), float(b), float(v)) for v in p] for a, b in params]
        if kind == "custom":
            import numpy as np

            arr = np.asarray(p, dtype=np.float64)
            return [[Fraction(float(v)) for v in np.asarray(f(arr), dtype=np.float64)]
                    for f in funcs]
        raise ValueError(f"unknown family kind {kind!r}")


# -- the algorithms ---------------------------------------------------------------------


def jumper_martingale(p, y, table, J) -> list:
    """Algorithm 1: the Jumper test martingale ``S_1, ..., S_N`` (exact values)."""
    kind = _exact_kind(table)
    with localcontext() as ctx:
        ctx.prec = PREC
        K = len(table)
        J = _num(J, kind)
        C_eps = [_num(1, kind) / K for _ in range(K)]  # line 1
        C = _num(1, kind)  # line 2
        S = []
        for n in range(len(p)):  # line 3
            C_eps = [(1 - J) * c + (J / K) * C for c in C_eps]  # line 4
            base = _bernoulli(_num(p[n], kind), y[n])
            C_eps = [  # line 5 (undefined when base = 0)
                c * _bernoulli(_num(table[k][n], kind), y[n]) / base
                for k, c in enumerate(C_eps)
            ]
            C = sum(C_eps)  # line 6
            S.append(C)
        return S


def jumper_predictor(p, y, table, J) -> list:
    """Algorithm 2: the Jumper predictor's ``p'_1, ..., p'_N`` (exact values).

    The list stops early where line 4 would divide 0 by 0.
    """
    kind = _exact_kind(table)
    with localcontext() as ctx:
        ctx.prec = PREC
        K = len(table)
        J = _num(J, kind)
        C_eps = [_num(1, kind) for _ in range(K)]  # line 1
        out = []
        for n in range(len(p)):  # line 2
            C = sum(C_eps)  # line 3
            if C == 0:
                break
            C_eps = [c / C for c in C_eps]  # line 4
            C_eps = [(1 - J) * c + J / K for c in C_eps]  # line 5
            f = [_num(table[k][n], kind) for k in range(K)]
            forecast = sum(fk * c for fk, c in zip(f, C_eps, strict=True))  # line 6
            if kind == "decimal":  # with 1 - p' = sum (1 - f) C, as C sums to 1
                forecast = Complemented(forecast, sum((1 - fk) * c
                                                      for fk, c in zip(f, C_eps, strict=True)))
            out.append(forecast)
            C_eps = [c * _bernoulli(fk, y[n]) for fk, c in zip(f, C_eps, strict=True)]  # line 7
        return out


def jumper_forgetting(p, y, table, J, half_life) -> tuple[list, list]:
    """Algorithm 2 with exponential forgetting, and the martingale of its forecasts.

    After line 7 of each step every ``C_eps`` is raised to the power
    ``gamma = 2^(-1/half_life)`` (the log of each expert's capital, its past
    log likelihoods, multiplied by ``gamma``); ``S_n`` is the product of
    ``B_{p'_i}(y_i) / B_{p_i}(y_i)`` over the forecasts ``p'_i`` (a test
    martingale: each forecast is made before its label).  Returns
    ``(forecasts, S)`` as Decimals at PREC digits (``gamma`` is taken as the
    float ``2.0 ** (-1.0 / half_life)``, exactly); the lists stop where line
    4 would divide 0 by 0.
    """
    _refuse_floats(table)  # compared with the objects, whose complements are the functions'
    with localcontext() as ctx:
        ctx.prec = PREC
        gamma = Decimal(math.pow(2.0, -1.0 / float(half_life)))
        K = len(table)
        J = _num(J, "decimal")
        C_eps = [Decimal(1) for _ in range(K)]  # line 1
        S, forecasts, path = Decimal(1), [], []
        for n in range(len(p)):  # line 2
            C = sum(C_eps)  # line 3
            if C == 0:
                break
            C_eps = [c / C for c in C_eps]  # line 4
            C_eps = [(1 - J) * c + J / K for c in C_eps]  # line 5
            f = [_num(table[k][n], "decimal") for k in range(K)]
            forecast = sum(fk * c for fk, c in zip(f, C_eps, strict=True))  # line 6
            complement = sum((1 - fk) * c for fk, c in zip(f, C_eps, strict=True))
            forecasts.append(forecast)
            S = S * (forecast if y[n] else complement) / _bernoulli(_num(p[n], "decimal"), y[n])
            path.append(S)
            C_eps = [c * _bernoulli(fk, y[n]) for fk, c in zip(f, C_eps, strict=True)]  # line 7
            C_eps = [c ** gamma if c > 0 else c for c in C_eps]  # forgetting
        return forecasts, path


def mean_jumper_martingale(p, y, table, rates) -> list:
    """The Mean Jumper: the average of the Jumper martingales of ``rates``."""
    with localcontext() as ctx:
        ctx.prec = PREC
        runs = [jumper_martingale(p, y, table, J) for J in rates]
        return [sum(values) / len(rates) for values in zip(*runs, strict=True)]


def mean_jumper_predictor(p, y, table, rates) -> list:
    """The Mean Jumper's predictor: its gale is the average of the rates' gales.

    So ``p'_n`` is the rates' ``p'_{r,n}`` averaged with weights equal to their
    gales ``G_{r,n-1} = prod_{i<n} B_{p'_{r,i}}(y_i)``.  ``1 - p'_n`` is the
    exact complement: Fractions are exact, and a Decimal forecast is
    :class:`Complemented` (the same average of the rates' complements).
    """
    kind = _exact_kind(table)
    with localcontext() as ctx:
        ctx.prec = PREC
        preds = [jumper_predictor(p, y, table, J) for J in rates]
        steps = min(len(pr) for pr in preds)
        gales = [_num(1, kind) for _ in rates]
        out = []
        for n in range(steps):
            total = sum(gales)
            if total == 0:
                break
            value = sum(g * pr[n] for g, pr in zip(gales, preds, strict=True)) / total
            if kind == "decimal":  # 1 - p' = sum G (1 - p'_r) / sum G, without the subtraction
                value = Complemented(value, sum(g * (1 - pr[n]) for g, pr
                                                in zip(gales, preds, strict=True)) / total)
            out.append(value)
            gales = [g * _bernoulli(pr[n], y[n]) for g, pr in zip(gales, preds, strict=True)]
        return out


def log10_loss(proba, y) -> Decimal:
    """Cumulative decimal log loss ``sum_n -log10 B_{p_n}(y_n)`` (Vovk, Petej & Gammerman 2021, eq. (6))."""
    with localcontext() as ctx:
        ctx.prec = PREC
        total = Decimal(0)
        for q, yi in zip(proba, y, strict=True):
            q = _num(q, "decimal")
            total -= _bernoulli(q, yi).log10()
        return total
