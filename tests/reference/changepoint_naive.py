"""Slow, literal twin of ``venncal._kernels.changepoint.change_statistics`` (Vovk et al. 2021).

The procedures as their definitions read, in linear space, on the factors
``f_n = 10^{l_n}`` held as ``decimal.Decimal`` at 60 digits (exponents to
``10^±999999``, so nothing overflows):

* CUSUM: ``C_n = max(C_{n-1}, 1) f_n``, ``C_0 = 0``;
* Shiryaev-Roberts: ``R_n = (R_{n-1} + 1) f_n``, ``R_0 = 0``;
* Ville: ``S_n = S_{n-1} f_n``, ``S_0 = 1``.

An alarm at the first step with the statistic ``>= threshold``; with
``restart`` the statistic goes back to its start, else later alarms are not
reported.  Returns ``(alarms, log10 statistic per step)``.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

__all__ = ["change_statistics", "log_space_alarms"]


def change_statistics(procedure: str, log10_factors, threshold, restart: bool = True):
    """``(alarms, log10_statistic)`` of ``procedure`` over the factors ``10^l``."""
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.Emax, ctx.Emin = 999_999, -999_999
        start = Decimal(1) if procedure == "ville" else Decimal(0)
        level = Decimal(repr(float(threshold)))
        stat = start
        alarms, path = [], []
        armed = True
        for n, lf in enumerate(log10_factors, start=1):
            f = Decimal(0) if lf == -math.inf else Decimal(10) ** Decimal(float(lf))
            if procedure == "cusum":
                stat = max(stat, Decimal(1)) * f
            elif procedure == "shiryaev-roberts":
                stat = (stat + 1) * f
            else:
                stat = stat * f
            path.append(-math.inf if stat == 0 else float(stat.log10()))
            if armed and stat >= level:
                alarms.append(n)
                if restart:
                    stat = start
                else:
                    armed = False
        return alarms, path


def log_space_alarms(procedure: str, log10_factors, level: float, restart: bool = True):
    """Alarms of CUSUM or Ville from exact (Fraction) sums of the given ``log10`` factors.

    ``log C_n = max(log C_{n-1}, 0) + l_n`` and ``log S_n = log S_{n-1} + l_n``,
    every sum exact, compared with ``level`` (the double ``log10 threshold``) as
    is: an alarm where the exact statistic is at least ``level``.
    """
    start = None if procedure == "cusum" else Fraction(0)  # None: log 0 = -inf
    stat, alarms, armed = start, [], True
    for n, lf in enumerate(log10_factors, start=1):
        if lf == -math.inf or (stat is None and procedure == "ville"):
            stat = None
        elif procedure == "cusum":
            stat = max(Fraction(0) if stat is None else stat, Fraction(0)) + Fraction(lf)
        else:
            stat = stat + Fraction(lf)
        if armed and stat is not None and stat >= Fraction(level):
            alarms.append(n)
            if restart:
                stat = start
            else:
                armed = False
    return alarms
