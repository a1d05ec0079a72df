"""The complements ``1 - f_k(p)`` of the calibrating families, formed without the subtraction (issue 22).

A forecast ``p' = sum_k w_k f_k(p)`` that rounds to 1 (``p = 1 - 2**-53``)
leaves ``1 - p'`` at 0, while the probability of the negative class is
positive.  So the Jumper forms the smaller class's probability directly: the
same mixture of the complements ``g_k = 1 - f_k(p)``
(:func:`~venncal._kernels.jumper.predict_mixed` on a table of ``g``), each
from the exact complement ``q = 1 - p`` (exact for ``p >= 1/2``):

* the quadratic and cubic families: ``g = q ((1 - f)/q)`` above ``p = 1/2``
  (the ratio of :func:`~venncal._kernels.jumper._polynomial_ratio`, the very
  product :func:`~venncal._kernels.jumper.polynomial_values` subtracts from 1)
  and ``1 - f`` at or below it (``f <= 3/4`` there: no cancellation);
* Cox's families: ``g = 1 / (1 + exp(alpha + beta logit p))``, SciPy's
  ``expit`` of the opposite argument.

So the stream ``(p, y)`` and its mirror ``(1 - p, 1 - y)`` with the mirrored
family give the same probabilities, to rounding.  Literal twin: the exact
arithmetic of ``tests/reference/jumper_naive.py``.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline
from .jumper import _polynomial_ratio, _rate_weights, advance_into, predict_mixed

__all__ = ["advance_low", "cox_complements", "low_class", "polynomial_complements",
           "predict_low", "union_complements"]


@jit_inline
def _logit(x):
    """``log(x / (1 - x))``, by SciPy's formula (``scipy.special.logit``, float64)."""
    if x < 0.3 or x > 0.65:
        return math.log(x / (1.0 - x))
    s = 2.0 * (x - 0.5)
    return math.log1p(s) - math.log1p(-s)


@jit_inline
def polynomial_complements(kind, params, p, table, out):
    """Fill ``out[k, i] = 1 - f_k(p_i)`` for the quadratic (0) or cubic (1) family; ``table``: the values."""
    for i in range(p.shape[0]):
        pi = p[i]
        q = 1.0 - pi
        for k in range(params.shape[0]):
            low = pi <= 0.5
            if low:
                out[k, i] = 1.0 - table[k, i]
            else:  # low is False: a bool, not the literal False (one compiled ratio)
                out[k, i] = q * _polynomial_ratio(kind, params, k, pi, q, low)


@jit_inline
def cox_complements(params, p, out):
    """Fill ``out[k, i] = 1 - expit(alpha_k + beta_k logit(p_i))`` as ``expit(-(alpha_k + ...))``."""
    for i in range(p.shape[0]):
        lg = _logit(p[i])
        for k in range(params.shape[0]):
            beta = params[k, 1]
            z = 0.0 if beta == 0.0 else beta * lg
            out[k, i] = 1.0 / (1.0 + math.exp(params[k, 0] + z))


@jit_inline
def union_complements(desc, params, p, table, out):
    """Fill ``out[k, i] = 1 - f_k(p_i)`` for the union described by ``desc`` (see ``jumper_union``)."""
    M = (desc.shape[0] - 1) // 2
    for j in range(M):
        a, b = int(desc[M + j]), int(desc[M + j + 1])
        kind = int(desc[j])
        if kind == 2:
            cox_complements(params[a:b], p, out[a:b])
        else:
            polynomial_complements(kind, params[a:b], p, table[a:b], out[a:b])


@jit_inline
def low_class(proba, low):
    """The negative class's probability: ``low`` (the mixture of complements) when ``proba > 1/2``.

    Else ``1 - proba``, exact to half an ulp (``1 - proba >= 1/2``); so the two
    sum to 1 within rounding and neither is 0 unless its true value is.
    """
    return low if proba > 0.5 else 1.0 - proba


@jit
def predict_low(comp, rates, weights, log_cap, log_err, proba, out_low):
    """``out_low[i]``: the negative class's probability at column ``i`` (``proba``: the positive's).

    The mixture of the complements ``comp`` by the arithmetic of
    :func:`~venncal._kernels.jumper.jumper_predict`, where ``proba > 1/2``.
    """
    mix = np.empty(rates.shape[0])
    _rate_weights(log_cap, log_err, mix)
    predict_mixed(comp, rates, weights, mix, out_low)
    for i in range(proba.shape[0]):
        out_low[i] = low_class(proba[i], out_low[i])


@jit
def advance_low(table, comp, t, ls, rates, gamma, weights, log_cap, log_err, out_log10,
                out_proba, out_factor, out_low):
    """:func:`~venncal._kernels.jumper.jumper_advance` that also gives each step's negative class.

    ``out_low[i]`` is what :func:`predict_low` gives at the state before step
    ``i`` (bit for bit): the mixture of the complements ``comp`` (shape
    ``(K, n)``) where ``out_proba[i] > 1/2``, else ``1 - out_proba[i]``.  The
    state and the other outputs are :func:`~venncal._kernels.jumper.jumper_advance`'s,
    bit for bit.  Literal twin: ``1 - p'`` of ``jumper_predictor`` and
    ``mean_jumper_predictor`` in ``tests/reference/jumper_naive.py`` (exact).
    """
    advance_into(table, t, ls, rates, gamma, weights, log_cap, log_err, out_log10, out_proba,
                 out_factor, np.empty(rates.shape[0]), np.empty(rates.shape[0]), True,
                 comp, out_low)
    for i in range(out_low.shape[0]):
        out_low[i] = low_class(out_proba[i], out_low[i])
