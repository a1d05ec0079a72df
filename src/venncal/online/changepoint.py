"""Change points over a test martingale's betting factors: CUSUM, Shiryaev-Roberts and Ville.

A test martingale ``S_n = f_1 f_2 ... f_n`` (the Jumper's, :mod:`venncal.online.jumper`)
multiplies its capital at step ``n`` by a betting factor ``f_n >= 0`` with
``E(f_n | past) <= 1`` under the null (calibrated forecasts).  Ville's
inequality covers only the first time ``S`` reaches ``1/alpha``; a monitor
that goes on after an alarm, and that sees a change that happens late (after
``S`` has sunk far below 1), needs a procedure that forgets.  Following
Vovk, Nouretdinov, Manokhin & Gammerman (2021), *Retrain or not retrain:
conformal test martingales for change-point detection*, :func:`detect_changes`
runs one over the factors, in ``log10`` space (no overflow, ``10^10000`` or
``10^-10000``):

``"cusum"``
    ``C_n = max(C_{n-1}, 1) f_n`` (``C_0 = 0``): ``max_k S_n / S_k``, the best
    martingale started at any earlier step.
``"shiryaev-roberts"``
    ``R_n = (R_{n-1} + 1) f_n`` (``R_0 = 0``): ``sum_k S_n / S_k``, the sum of the
    martingales started at every earlier step.
``"ville"``
    ``S_n`` itself (``S_0 = 1``).

An alarm is raised at the first step where the statistic reaches
``threshold``; with ``restart`` it then starts again (``C = R = 0``, ``S = 1``)
and looks for the next change; without it only the first alarm is reported.
Shiryaev-Roberts' ``log10 R_n``, a sum of rounded logarithms, is kept within
about ``6e-16`` of its exact value (double-double), and counts as reaching the
threshold within 8 ulps of ``max(log10 threshold, 1)``: a statistic equal to
the threshold (``R_n = n`` with unit factors) alarms at that step, and no alarm
comes earlier than where the exact ``R_n`` is that close to it.

What each promises about false alarms, under the null:

* Ville: ``P(an alarm ever) <= 1 / threshold`` for the first alarm (and, after
  a restart, again for the next one, given the past).
* Shiryaev-Roberts: ``R_n - n`` is a martingale, so by optional stopping the
  average run length to a false alarm is ``E(tau) = E(R_tau) >= threshold``,
  with every restart a new run.
* CUSUM: ``C_n <= R_n`` (a maximum is at most the sum), so CUSUM alarms no
  earlier than Shiryaev-Roberts on the same factors: its average run length is
  at least Shiryaev-Roberts', hence ``>= threshold`` too.

None of them bounds the probability of a false alarm over an infinite stream
(which is 1 for CUSUM and Shiryaev-Roberts): ``threshold`` is the mean number
of steps between false alarms one accepts.

The factors of a Jumper run are ``JumperResult.log10_factors``, which the
kernel computes from each step's own growth (rounded once a step);
:func:`log10_factors` recovers them from a ``log10 S`` path (a user's, or a
recorded one), to within an ulp of ``log10 S``.

Examples
--------
>>> import numpy as np
>>> from venncal.online import JumperMartingale, detect_changes, named
>>> rng = np.random.default_rng(1)
>>> p = rng.uniform(0.02, 0.98, 8000)
>>> truth = np.where(np.arange(8000) < 6000, p, 0.5 + 0.8 * (p - 0.5))  # late, less confident
>>> res = JumperMartingale(named("shift+confidence")).run(p, rng.random(8000) < truth)
>>> round(float(res.log10_martingale[5999]), 2), round(res.log10_final, 2), res.alarm(0.01)
(-3.18, 0.24, None)

S sank to ``10^-3.18`` over the 6,000 good steps and never reached 100;
CUSUM, which forgets, sees the change 438 steps after it happened:

>>> detect_changes(res.log10_factors, procedure="cusum").alarms
array([6438, 7830])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from .._kernels.changepoint import PROCEDURE_CODES, change_statistics

__all__ = ["PROCEDURES", "ChangePoints", "detect_changes", "log10_factors"]

#: The procedures of :func:`detect_changes`.
PROCEDURES = tuple(PROCEDURE_CODES)


@dataclass(frozen=True, eq=False)
class ChangePoints:
    """What :func:`detect_changes` returns.

    Attributes
    ----------
    alarms : ndarray of int64
        The steps (from 1) at which the statistic reached the threshold.
    log10_statistic : ndarray of float64 of shape (n,)
        ``log10`` of the statistic after each step (at an alarm: the value
        that raised it, before the restart).
    threshold : float
        The alarm level (not in log).
    procedure : str
        ``"cusum"``, ``"shiryaev-roberts"`` or ``"ville"``.
    """

    alarms: np.ndarray
    log10_statistic: np.ndarray
    threshold: float
    procedure: str


def detect_changes(log10_factors, *, procedure: str = "cusum", threshold: float = 100.0,
                   restart: bool = True) -> ChangePoints:
    """Run a change-point procedure over the ``log10`` betting factors of a test martingale.

    Parameters
    ----------
    log10_factors : array-like of float of shape (n,)
        ``log10 f_n``, the martingale's factor at each step (``-inf`` for a
        factor of 0): ``JumperResult.log10_factors`` or
        ``ConformalResult.log10_factors``, or :func:`log10_factors` of a path.
    procedure : {"cusum", "shiryaev-roberts", "ville"}, default="cusum"
        See the module's description.
    threshold : float, default=100.0
        Alarm when the statistic reaches it (Shiryaev-Roberts: within 8 ulps
        of ``max(log10 threshold, 1)`` in ``log10``); a real number ``> 1``.  Under the
        null, the average run length to a false alarm is at least
        ``threshold`` (CUSUM, Shiryaev-Roberts) and the first alarm has
        probability at most ``1 / threshold`` (Ville).
    restart : bool, default=True
        Restart the statistic after each alarm; if False, report the first
        alarm only.

    Returns
    -------
    ChangePoints

    Raises
    ------
    ValueError
        For an unknown procedure, a threshold that is not a finite number
        above 1, factors that are not a 1-D array of numbers below
        ``+inf`` (NaN or ``+inf`` named by their index), or finite factors
        whose absolute values sum past ``2**1022`` (the running ``log10``
        sums could overflow).

    Examples
    --------
    >>> import numpy as np
    >>> f = np.log10([0.5, 4.0, 0.5, 8.0, 8.0, 1.0, 16.0])
    >>> cp = detect_changes(f, procedure="cusum", threshold=10)
    >>> cp.alarms, (10 ** cp.log10_statistic).round(6)
    (array([4, 7]), array([  0.5,   4. ,   2. ,  16. ,   8. ,   8. , 128. ]))
    >>> detect_changes(f, procedure="ville", threshold=10).alarms
    array([5, 7])
    >>> detect_changes(f, procedure="shiryaev-roberts", threshold=10, restart=False).alarms
    array([4])
    """
    if procedure not in PROCEDURE_CODES:
        raise ValueError(f"procedure must be one of {', '.join(map(repr, PROCEDURES))}; "
                         f"got {procedure!r}")
    if (isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number))
            or not (1.0 < float(threshold) < math.inf)):
        raise ValueError(f"threshold must be a finite number above 1; got {threshold!r}")
    if not isinstance(restart, (bool, np.bool_)):
        raise TypeError(f"restart must be True or False; got {restart!r}")
    lf = np.ascontiguousarray(log10_factors, dtype=np.float64)
    if lf.ndim != 1:
        raise ValueError(f"log10_factors must be 1-D; got shape {lf.shape}")
    bad = ~(lf < math.inf)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"log10_factors must be numbers below +inf (-inf is a factor of 0); "
                         f"got {float(lf[i])!r} at index {i}")
    reach = _reach(lf)
    if not reach < 2.0**22:  # attack 48 F1: the running sums overflowed to NaN and -inf
        raise ValueError(
            f"log10_factors: the absolute values of a run of them (between factors of 0) sum "
            f"to {Decimal(reach) * Decimal(2) ** 1000:.3e}, past 2**1022 = 4.49e+307: a running "
            "statistic could pass the largest double even in log10 (a martingale beyond "
            "10^(1.8e308))")
    statistic = np.empty(lf.shape[0])
    alarms = np.empty(lf.shape[0], dtype=np.int64)
    count = change_statistics(PROCEDURE_CODES[procedure], lf, math.log10(float(threshold)),
                              bool(restart), statistic, alarms)
    return ChangePoints(alarms[:count].copy(), statistic, float(threshold), procedure)


def _reach(lf: np.ndarray) -> float:
    """The largest sum of ``|l|`` over a run of finite factors, in units of ``2**1000``.

    A factor of 0 (``-inf``) resets every statistic (Ville's stays 0), so only
    the runs between them must keep their sums below ``2**1022``, the bound
    under which no running statistic overflows (attack 49 F3: ``[3e307, -inf,
    3e307]`` was refused on the sum of all).
    """
    a = np.where(lf > -math.inf, np.ldexp(np.abs(lf), -1000), 0.0)  # at most 2**24 each
    # each run's own sum, correctly rounded (a rounded cumulative sum of the whole stream
    # refused a run of 2**1022 - 2**969 after an earlier one: attack 51 F5)
    return max((math.fsum(run) for run in np.split(a, np.flatnonzero(lf == -math.inf))),
               default=0.0)



def log10_factors(log10_martingale, start: float = 0.0) -> np.ndarray:
    """Return the per-step ``log10`` betting factors of a martingale from its ``log10`` path.

    ``l_n = log10 S_n - log10 S_{n-1}``, with ``log10 S_0 = start`` (0 for a
    martingale that starts at 1; for a run that continues a stream, its
    ``log10_value`` before the run).  Each difference is within
    ``(ulp(log10 S_n) + ulp(log10 S_{n-1})) / 2`` of the factor of the
    rounded path, so about ``1e-13`` absolute at ``|log10 S| < 1000``, and
    the sums the procedures take of consecutive factors telescope back to
    differences of the path: the errors do not add up along the stream.  Once
    ``S`` is 0 (``-inf``: every function gave the label probability 0) its
    factors are undefined; they are taken as 1 (``0``): a capital of 0 bets
    no more.

    Parameters
    ----------
    log10_martingale : array-like of float of shape (n,)
        ``log10 S_n`` after each step, e.g. ``JumperResult.log10_martingale``.
    start : float, default=0.0
        ``log10 S_0``.

    Examples
    --------
    >>> log10_factors([0.5, 0.25, 1.0])
    array([ 0.5 , -0.25,  0.75])
    """
    path = np.concatenate(([float(start)], np.asarray(log10_martingale, dtype=np.float64)))
    if path.ndim != 1 or np.isnan(path).any() or (path == math.inf).any():
        raise ValueError("log10_martingale must be a 1-D array of numbers below +inf")
    with np.errstate(invalid="ignore"):
        out = np.diff(path)
    out[np.isnan(out)] = 0.0  # -inf - -inf: the capital is 0 already
    return out
