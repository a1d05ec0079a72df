"""Exponential forgetting of the Jumper's weights over its family (``half_life``, issue 26).

:func:`forget` discounts the evidence the weights hold; the Jumper's kernels
(:mod:`venncal._kernels.jumper`) apply it after every step when a half-life is
given.  Its literal twin is in ``tests/reference/jumper_naive.py``.
"""

from __future__ import annotations

import math

from ._jit import jit, jit_inline

__all__ = ["forget"]

_TINY = 2.2250738585072014e-308  # the smallest normal float


@jit_inline
def forget(w, gamma):
    """Discount the evidence held by the weights ``w``: ``w := w^gamma / sum w^gamma``, in place.

    ``w`` is a distribution over the family (the capital's, after a step);
    raising it to ``gamma`` in ``(0, 1)`` multiplies every expert's log
    weight, the sum of its past log likelihoods, by ``gamma``: exponential
    forgetting of the past.  ``w_k / max w`` is raised to ``gamma``
    (``pow`` of a normal float, within an ulp), or ``exp(gamma log ...)``
    when that quotient is subnormal; the largest becomes exactly 1 before
    the division by the sum (in ``[1, K]``), so nothing underflows that did
    not already.
    """
    top = 0.0
    for k in range(w.shape[0]):
        top = max(top, w[k])
    if top == 0.0:
        return
    tot = 0.0
    for k in range(w.shape[0]):
        x = w[k] / top
        if x == 1.0:  # 1^gamma = 1 exactly, without the pow
            u = 1.0
        elif x >= _TINY:
            u = x ** gamma
        elif w[k] > 0.0:
            u = math.exp(gamma * (math.log(w[k]) - math.log(top)))
        else:
            u = 0.0
        w[k] = u
        tot += u
    for k in range(w.shape[0]):
        w[k] = w[k] / tot
