"""Change-point statistics over a martingale's betting factors, in log10 space (Vovk et al. 2021).

:func:`change_statistics` runs one of three procedures over the per-step
``log10`` betting factors ``l_n = log10 f_n`` of a test martingale (the
Jumper's, or any other) and reports the steps at which its statistic reaches
the level ``log10(threshold)``:

* CUSUM (code 0): ``log C_n = max(log C_{n-1}, 0) + l_n``, ``C_0 = 0``;
* Shiryaev-Roberts (code 1): ``R_n = (R_{n-1} + 1) f_n``, ``R_0 = 0``, as
  ``log R_n = log10(10^{log R_{n-1}} + 1) + l_n``, in double-double: above
  ``R = 1`` the term ``log10(1 + 10^-log R)`` (a few ulps of itself) is added
  to the exact running sum, and each step's error shrinks by ``R / (R + 1)``
  afterwards, so ``log R_n`` stays within about ``6e-16`` of the exact value
  (weighted sum of those terms' errors), whatever the length of the stream.
  Its alarms come at ``log R_n >= level - slack``, with ``slack`` 8 ulps of
  ``max(level, 1)`` (:func:`sr_slack`): a statistic that equals the threshold
  exactly (``R_n = n`` for unit factors), which the rounding of the logarithms
  (and of ``level``) may leave an ulp or two below ``level``, still alarms;
* Ville (code 2): the martingale itself, ``log S_n = log S_{n-1} + l_n``,
  ``S_0 = 1``.

With ``restart`` the statistic goes back to its start after each alarm
(``C = R = 0``, ``S = 1``); without it only the first alarm is reported and
the statistic goes on unrestarted.  Sums of factors (CUSUM above 1, Ville)
are exact: an expansion (Shewchuk's grow-expansion with zero elimination:
non-overlapping doubles whose sum is the sum of the given factors exactly),
so CUSUM resets where the exact sum is at most 0 and CUSUM and Ville alarm
where it reaches ``level``, never early (a double-double whose low part was
summed with rounding lost a factor of ``-1e-40``: attack 51 F4); the
statistic reported is that sum rounded.  All values are logarithms, so nothing
overflows (``10^10000``) while the factors' absolute values sum below
``2**1022``, which the caller checks.
Literal twin: ``tests/reference/changepoint_naive.py``.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline
from .dd import dd_add_jit
from .exact_sum import _CAP, _grow, _round  # GROW-EXPANSION with zero elimination, its room

__all__ = ["PROCEDURE_CODES", "change_statistics", "sr_slack"]

#: Codes of the procedures of :func:`change_statistics`.
PROCEDURE_CODES = {"cusum": 0, "shiryaev-roberts": 1, "ville": 2}

_LN10 = math.log(10.0)


@jit
def _log10_one_plus(a):
    """``log10(1 + 10^-|a|)``: for ``a >= 0`` the term added to ``a`` in ``log10(10^a + 1)``,
    for ``a < 0`` that value itself (``0`` for ``a = -inf``); within a few ulps of itself.

    Above ``a = 40`` it is below ``5e-41`` and taken as 0.
    """
    if a > 40.0:
        return 0.0
    return math.log1p(math.exp(-abs(a) * _LN10)) / _LN10


@jit
def sr_slack(level):
    """How far below ``level`` a Shiryaev-Roberts statistic alarms: 8 ulps of ``max(level, 1)``."""
    return math.ldexp(1.0, math.frexp(max(level, 1.0))[1] - 50)


@jit_inline
def _value(e, m):
    """The expansion's sum, correctly rounded (to nearest, ties to even: attack 54 F6, it was
    summed from its smallest part up, 1 ulp off in 10 % of steps)."""
    return _round(e, m)


@jit_inline
def _sign_less(e, m, level, scratch):
    """The sign of ``sum(e[:m]) - level``, exactly: that of the largest part of the difference."""
    for i in range(m):
        scratch[i] = e[i]
    k = _grow(scratch, m, -level)
    return 0.0 if k == 0 else math.copysign(1.0, scratch[k - 1])


@jit
def change_statistics(code, log10_factors, level, restart, out_statistic, out_alarms):
    """Fill ``out_statistic`` (one value a step) and ``out_alarms``; return the number of alarms.

    Parameters
    ----------
    code : int
        The procedure, a value of :data:`PROCEDURE_CODES`.
    log10_factors : ndarray of float64 of shape (n,)
        ``log10`` of the betting factors (``-inf`` allowed, no NaN or ``+inf``).
    level : float
        ``log10`` of the threshold.
    restart : bool
        Restart the statistic after each alarm (else report the first alarm only).
    out_statistic : ndarray of float64 of shape (n,)
        Output: the statistic's ``log10`` after step ``n`` (before a restart).
    out_alarms : ndarray of int64 of shape (n,)
        Output: the alarms' step numbers (from 1) in its first entries.
    """
    start = 0.0 if code == 2 else -np.inf
    hi, lo = start, 0.0
    e = np.empty(_CAP)  # CUSUM and Ville: the exact sum (m parts; non-overlapping: one a bit)
    scratch = np.empty(_CAP)
    m = 0
    dead = code == 0  # the statistic is -inf (CUSUM's start; a factor of 0)
    count = 0
    armed = True
    slack = sr_slack(level) if code == 1 else 0.0
    for i in range(log10_factors.shape[0]):
        x = log10_factors[i]
        if code == 1:
            a = hi + lo
            if a >= 0.0:  # log10(10^a + 1) = a + log10(1 + 10^-a), kept in double-double
                hi, lo = dd_add_jit(hi, lo, _log10_one_plus(a))
            else:
                hi, lo = _log10_one_plus(a), 0.0
            if x == -np.inf:
                hi, lo = -np.inf, 0.0
            else:
                hi, lo = dd_add_jit(hi, lo, x)
        else:
            if code == 0 and (dead or m == 0 or e[m - 1] < 0.0):
                # max(log C, 0): C at most 1 starts again at 1 (the exact sum's sign is
                # that of its largest part)
                m = 0
                dead = False
            if dead or x == -np.inf:
                m = 0
                dead = True
            else:
                m = _grow(e, m, x)
        if code == 1:
            value = hi + lo
            # the exact hi + lo against level: hi - level is exact near the level (Sterbenz),
            # so a sum 2**-54 below 2 that rounds to 2 does not alarm (attack 48 F2)
            reached = (hi - level) + lo >= -slack
        else:
            value = -np.inf if dead else _value(e, m)
            reached = not dead and _sign_less(e, m, level, scratch) >= 0.0
        out_statistic[i] = value
        if armed and reached:
            out_alarms[count] = i + 1
            count += 1
            if restart:
                hi, lo = start, 0.0
                m = 0
                dead = code == 0
            else:
                armed = False
    return count
