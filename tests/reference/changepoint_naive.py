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

__all__ = ["change_statistics"]


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
