"""Exponential forgetting for the Jumper objects: the ``half_life`` parameter.

The Jumper (Vovk, Petej & Gammerman 2021) already adapts to a change by its
jumps: a fraction ``J`` of the capital is redistributed uniformly at every
step (Algorithm 1 line 4), so no function of the family falls below weight
``J/|E|``.  But within that floor the weights are a Bayes posterior: after a
long stretch where one function was best, another that becomes best needs
about ``log(best/other) / gain`` steps to take over, and that log ratio grows
with the length of the stretch until the floor stops it.

``half_life = h`` discounts the evidence: after each step every rate's
weights over the family become

    ``w_eps := w_eps^gamma / sum_eps' w_eps'^gamma``,  ``gamma = 2^(-1/h)``,

so each function's log weight (the sum of its past log likelihoods, on top
of the jumps) is multiplied by ``gamma``: the log likelihood of a step ``h``
steps back counts half as much as the last one's (discounted Bayes mixing;
with ``J`` small the weights are the softmax of the discounted log
likelihoods).  The weights then follow a drifting calibration faster, at the
price of noisier weights when nothing drifts.

Why the martingale stays a test martingale.  The kernel multiplies the
capital at each step by ``sum_eps w_eps B_{f_eps(p)}(y) / B_p(y)``, which is
``B_{p'}(y) / B_p(y)`` for the forecast ``p' = sum_eps w_eps f_eps(p)``
(``B_q(y)`` is linear in ``q`` and the weights sum to 1).  The weights are
fixed before ``y`` arrives, whatever rule made them (jumps, forgetting, or
both), so under the base forecasts the factor has conditional expectation
``p p'/p + (1 - p)(1 - p')/(1 - p) = 1``: ``S`` is a test martingale and
Ville's inequality holds, with or without forgetting.  Forgetting re-splits
the capital among the functions between bets (a predictable rebalancing);
it never discounts the capital itself.  (Discounting ``S``, e.g.
``S_n := S_n^gamma``, would not be a martingale, and is not offered: the
change-point procedures of :mod:`venncal.online.changepoint` are the way to
forget in the *test*.)  The identity ``log10 S_N = L_base - L_protected``
holds as before, and the Mean Jumper averages such martingales.

``half_life=None`` (the default) skips the discounting altogether: the
arithmetic, and every value, is that of the Jumper without forgetting, bit
for bit (paper 002's Bank numbers are unchanged).
"""

from __future__ import annotations

import math

from .._validation import NONE, Interval

__all__ = ["HALF_LIFE", "forgetting_factor"]

#: The constraint of the ``half_life`` parameter: None or a finite real number above 0.
HALF_LIFE = [NONE, Interval("real", 0.0, None, closed="neither")]


def forgetting_factor(half_life: float | None) -> float:
    """Return ``gamma = 2^(-1/half_life)`` (1.0 for None: no forgetting).

    A half-life below about ``1e-3`` gives ``gamma = 0`` (every step starts
    from uniform weights); one above ``2^53`` gives ``gamma = 1`` (no
    forgetting in float64).

    Examples
    --------
    >>> forgetting_factor(None), forgetting_factor(1.0), round(forgetting_factor(100.0), 6)
    (1.0, 0.5, 0.993092)
    """
    if half_life is None:
        return 1.0
    return math.pow(2.0, -1.0 / float(half_life))
