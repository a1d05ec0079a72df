"""Jumper test martingale, Jumper predictor and Mean Jumper (Vovk, Petej & Gammerman 2021, Algorithms 1 and 2).

One kernel, :func:`jumper_advance`, runs ``R`` Jumpers with jumping rates
``rates[0], ..., rates[R-1]`` over a recorded stream and averages them: the
Mean Jumper.  With ``R = 1`` it is the plain Jumper, exactly (the average of
one number is that number, bit for bit).  :func:`jumper_predict` gives the
next step's forecasts at a fixed state, by the same arithmetic.  The state
is passed in and updated in place, so a stream can be continued in any
number of calls with bit-for-bit the same results.  :func:`jumper_run` is
the same on a table of family values alone (the values taken as exact, as
for a user's family), through :func:`value_ratios`.

Representation (why it is exact at ``S = 10^1000`` and far beyond)
------------------------------------------------------------------
Algorithm 1 keeps unnormalised capitals ``C_eps`` whose sum ``S_n`` overflows
float64 after ``10^308``.  Here every capital is factored as
``C_eps = S * w_eps``:

* ``S`` is kept **only as its natural logarithm** ``log S`` (a compensated
  sum of the per-step log increments, with the errors of the additions
  collected by TwoSum, :mod:`venncal._kernels.dd`, so that its rounding
  error does not grow with the length of the stream); it is never
  exponentiated.
* ``w`` is the normalised distribution of the capital over the experts
  (``sum w = 1``): it is Algorithm 2's ``C_eps`` after its normalisation
  (lines 3-4), and equally Algorithm 1's ``C_eps / C``.

This is the scaled forward recursion of a hidden Markov model: the mixing step
(Algorithm 1 line 4) acts on the normalised weights as ``w := (1 - J) w + J/|E|``
because their total is 1, so it is the log-sum-exp of
``log(1 - J) + log w_eps`` and ``log(J/|E|)`` evaluated without leaving
linear space.  The weights, a probability vector, cannot overflow; after
mixing each is at least ``J/|E|``, and they keep full relative precision
(log weights would not: ``exp(lw)`` with ``lw ~ -700`` carries an error of
``700 eps``), so nothing is lost by not storing their logarithms.  The only
quantity that grows without bound, ``S``, lives in log space.  Per step and
rate there is one logarithm, of the growth factor ``B_{p'}(y) / B_p(y)``
(Algorithm 1 lines 5-6 summed over the experts).

The likelihood ratios, scaled (why a forecast of ``1e-310`` is exact)
-------------------------------------------------------------------
Algorithm 1 line 5 multiplies each capital by ``B_{f_eps(p)}(y) / B_p(y)``.
Formed in floating point, that ratio overflows when ``B_p(y)`` is subnormal
(``1 / 1e-310``), and ``f_eps(p)`` itself has lost its relative precision
there (``1.5 * 5e-324`` is not a float).  The kernel never forms it: for each
step it is given ``t[k] = rho_k / rho_max`` (the experts' likelihood ratios
relative to the largest, in ``[0, 1]``) and ``ls = log rho_max``, computed in
forms exact at the edges of floating point by :func:`family_ratios` (the
paper's families: the complement ``q = 1 - p`` carried as its own input,
sums of non-negative terms, logarithms where the ratios leave the float
range) or :func:`value_ratios` (a user's family, known by its values).  The growth factor is then
``sum_eps w_eps t_eps * exp(ls)`` and its logarithm ``log(sum w t) + ls``;
the new weights are ``w_eps t_eps / sum w t``.  Since ``max t = 1`` and every
weight is at least ``J/|E|`` after mixing, the sum cannot underflow.  A ratio ``t`` in
``(0, 2^-1022)`` is carried as its log (:func:`~venncal._kernels.jumper_forget.coded`).

The Mean Jumper keeps each rate's state apart (not one joint normalised
vector, in which a rate ``10^400`` behind the best would underflow to 0 and
never recover).  Its ``log S`` is the log-sum-exp of the rates' ``log S_r``
minus ``log R``, recomputed at every step from the per-rate values, and its
prediction mixes the rates' predictions ``p'_r`` with weights proportional to
``S_r`` before the label (a softmax of ``log S_r``): its gale is the average
of the rates' gales, so its loss is at most the best rate's loss plus
``log R``.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline
from .dd import two_sum_jit
from .jumper_forget import (coded, coded_growth, coded_quotient, decoded, forget, forget_step,
                            growth_near_one)

__all__ = ["FAMILY_KINDS", "advance_into", "family_ratios", "forget", "jumper_advance",
           "jumper_predict", "jumper_run", "polynomial_values", "predict_mixed", "value_ratios"]

_LN10 = math.log(10.0)
# 1 / g is formed only above this (far from overflow); below it, divisions.
_SAFE_INVERSE = 2.0 ** -1000
_TINY = 2.2250738585072014e-308  # the smallest normal float
# Below this a forecast's products w * f may have left the normal range (f
# subnormal): the mixture is taken again on the values scaled by _UP (exact).
_SMALL_FORECAST = 2.0 ** -960
_UP = 2.0 ** 1000
_DOWN = 2.0 ** -1000
# A step whose factor (g / tot) exp(ls) is within this of 1 (in log) takes
# g / tot again from compensated sums (a factor that is 1 then gives 1).
_NEAR_ONE = 2.0 ** -40

#: The families whose likelihood ratios :func:`family_ratios` computes in closed
#: form, by code (``params`` rows: ``(eps,)``, ``(a, b)``, ``(alpha, beta)``; Cox's
#: one-parameter family is the two-parameter one with ``alpha = 0``).
FAMILY_KINDS = {"quadratic": 0, "cubic": 1, "cox": 2, "cox2": 2}


@jit
def _compensated_add(hi, lo, x):
    """Return ``(hi, lo)`` with ``hi + lo`` = old ``hi + lo + x``, compensated.

    ``hi`` carries the running sum and ``lo`` the exact rounding errors of
    its additions (TwoSum), so the error of ``hi + lo`` does not grow with
    the number of terms.  ``-inf`` is absorbing: a capital that has reached 0
    stays 0.
    """
    if hi == -np.inf or x == -np.inf:
        return -np.inf, 0.0
    s, e = two_sum_jit(hi, x)
    return s, lo + e


@jit_inline
def _rate_weights(log_cap, log_err, mix):
    """Fill ``mix`` with ``S_r / max S``; return ``log sum_r S_r``.

    ``log_cap[r] + log_err[r]`` is ``log S_r``, a compensated sum; ``mix``
    is proportional to rate ``r``'s share of the Mean Jumper's capital (all 1
    if every ``S_r`` is 0), left unnormalised: a prediction divides by the
    sum of ``mix`` taken in the same order as its numerator, so that it
    cannot exceed 1.  The differences
    ``log S_r - max log S`` are taken on both parts, so that ``mix`` keeps its
    relative precision when ``log S`` is large (``744`` after one forecast of
    ``5e-324``: a collapsed value would carry an error of ``1e-13``).
    """
    R = log_cap.shape[0]
    if R == 1:
        mix[0] = 1.0
        return log_cap[0] + log_err[0]
    best = 0
    for r in range(1, R):
        if log_cap[r] + log_err[r] > log_cap[best] + log_err[best]:
            best = r
    hi, lo = log_cap[best], log_err[best]
    if hi == -np.inf:
        for r in range(R):
            mix[r] = 1.0
        return -np.inf
    total = 0.0
    for r in range(R):
        if log_cap[r] == -np.inf:
            mix[r] = 0.0
        else:
            mix[r] = math.exp((log_cap[r] - hi) + (log_err[r] - lo))
        total += mix[r]
    return (hi + lo) + math.log(total)


@jit
def _log_ratio(top, base):
    """``log(top / base)`` for ``top, base > 0``, without overflow or a subnormal quotient."""
    r = top / base
    if _TINY <= r < np.inf:
        return math.log(r)
    return math.log(top) - math.log(base)


@jit
def value_ratios(p, y, table, t, ls):
    """Fill ``t`` and ``ls`` from the family's values, taken as exact floats.

    For step ``i`` with label ``y[i]``: ``B_k = B_{table[k, i]}(y[i])``,
    ``t[k, i] = B_k / max_j B_j`` and ``ls[i] = log(max_j B_j / B_{p[i]}(y[i]))``,
    so that ``t[k, i] * exp(ls[i])`` is Algorithm 1's likelihood ratio.  The
    ratio is never formed (it overflows for a subnormal ``B_p``); a quotient
    of two floats is correctly rounded, subnormal or not.  When every
    ``B_k`` is 0, ``t`` is 0 and ``ls`` is ``-inf``; a quotient below
    ``2^-1022`` is coded as its log (:func:`~venncal._kernels.jumper_forget.coded`).  Precondition:
    ``B_{p[i]}(y[i]) > 0``.
    """
    K = table.shape[0]
    for i in range(p.shape[0]):
        yi = y[i]
        top = 0.0
        for k in range(K):
            f = table[k, i]
            b = f if yi else 1.0 - f  # exact for f >= 1/2 (Sterbenz)
            t[k, i] = b
            top = max(top, b)
        if top == 0.0:
            ls[i] = -np.inf
            continue
        for k in range(K):
            t[k, i] = coded_quotient(t[k, i], top)
        ls[i] = _log_ratio(top, p[i] if yi else 1.0 - p[i])


@jit_inline
def _normalise_column(t, i, ls):
    """Divide column ``i`` of ``t`` (likelihood ratios) by its largest (coded); put its log in ``ls[i]``."""
    top, least = 0.0, np.inf  # least: the smallest ratio above 0
    for k in range(t.shape[0]):
        top = max(top, t[k, i])
        least = min(least, t[k, i] if t[k, i] > 0.0 else np.inf)
    if top == 0.0:
        ls[i] = -np.inf
        return
    for k in range(t.shape[0]):  # (coded_quotient only where a quotient may leave the normal range)
        t[k, i] = t[k, i] / top if least >= top * (2.0 * _TINY) else coded_quotient(t[k, i], top)
    ls[i] = math.log(top)


@jit
def _log_expit(z):
    """``log(1 / (1 + e^-z))`` without overflow or cancellation."""
    if z >= 0.0:
        return -math.log1p(math.exp(-z))
    return z - math.log1p(math.exp(z))


@jit
def _polynomial_ratio(kind, params, k, p, q, positive):
    """Likelihood ratio of function ``k`` of the quadratic (kind 0) or cubic (1) family.

    ``rho = f/p`` (``positive``) or ``(1 - f)/q``, with ``q = 1 - p``: a
    polynomial in ``p`` and ``q`` written as a sum of non-negative terms
    wherever it can vanish, so that it keeps its relative precision (no
    cancellation, no division by ``p`` or ``q``).  Values lie in ``[0, 2]``;
    the only ones in the subnormal range are exact multiples of ``p``.
    """
    if kind == 0:
        # f/p = 1 + eps q = (1 + eps) - eps p: terms >= 0 for eps <= 0, and >= 1
        # for eps > 0 (eps = -1 gives p itself); (1 - f)/q = (1 - eps) + eps q.
        eps = params[k, 0]
        return (1.0 + eps) - eps * p if positive else (1.0 - eps) + eps * q
    # f = p - a p q (p - b): f/p = 1 - a q (p - b), (1 - f)/q = 1 + a p (p - b).
    # For a <= 0, f/p = (1 - u) + u (1 - b) + u p (q + b) with u = -a, terms >= 0
    # (it is p (2 - p) at a = -1, b = 1); for a > 0 it is >= 3/4.  For a < 0,
    # (1 - f)/q = (1 - u) + u b p + u q (1 + p), terms >= 0; for a >= 0, >= 3/4.
    a, b = params[k, 0], params[k, 1]
    u = abs(a)
    if positive:
        if a <= 0.0:
            return ((1.0 - u) + u * (1.0 - b)) + u * (p * (q + b))
        return 1.0 - a * (q * (p - b))
    if a < 0.0:
        return ((1.0 - u) + u * (b * p)) + u * (q * (1.0 + p))
    return 1.0 + a * (p * (p - b))


@jit_inline
def polynomial_values(kind, params, p, out):
    """Fill ``out[k, i] = f_k(p_i)`` for the quadratic (kind 0) or cubic (1) family.

    ``f = p * (f/p)`` for ``p <= 1/2`` and ``1 - q * ((1 - f)/q)`` above, from
    the ratios of :func:`_polynomial_ratio`: relative precision near 0, exactly
    0 at ``p = 0`` and 1 at ``p = 1``, and always in ``[0, 1]`` (the expanded
    polynomial rounds ``f(1)`` to ``1 + 2**-52`` for some ``(a, b)``).
    """
    for i in range(p.shape[0]):
        pi = p[i]
        q = 1.0 - pi
        for k in range(params.shape[0]):
            low = pi <= 0.5  # a bool, not the literals True and False: one compiled ratio
            ratio = _polynomial_ratio(kind, params, k, pi, q, low)
            out[k, i] = pi * ratio if low else 1.0 - q * ratio


@jit_inline
def _cox2_column(params, p, yi, t, ls, i):
    """Column ``i`` of Cox's two-parameter family's likelihood ratios (``0 < p < 1``).

    ``f = expit(z)``, ``z = alpha + beta (log p - log q)``.  For the label that
    came, ``log B_f(y) = log_expit(c + beta L)`` with ``c = alpha`` and
    ``L = log p - log q`` (label 1) or ``c = -alpha`` and ``L = log q - log p``
    (label 0), and ``B_p(y) = e^lx`` with ``lx = log p`` or ``log q``: all in
    logs, since ``f / p`` at ``p = 5e-324`` is ``~ e^alpha`` but no float
    product reaches it exactly.  ``log t_k = log_expit(z_k) - log_expit(z_m)``
    for the expert ``m`` of largest ``z``; when ``z_m < 0`` it is taken as
    ``(z_k - z_m) - (log1p(e^z_k) - log1p(e^z_m))`` with ``z_k - z_m`` formed
    from the parameters' differences (exactly ``c_k - c_m`` for experts with
    the same ``beta``, however large ``L``).
    """
    if p <= 0.5:
        lp, lq = math.log(p), math.log1p(-p)
    else:
        q = 1.0 - p
        lp, lq = math.log1p(-q), math.log(q)
    lx, ly = (lp, lq) if yi else (lq, lp)
    L = lx - ly
    sign = 1.0 if yi else -1.0
    K = params.shape[0]
    m = 0
    zm = -np.inf
    for k in range(K):
        z = sign * params[k, 0] + params[k, 1] * L
        t[k, i] = z
        if z > zm:
            m, zm = k, z
    cm, bm = sign * params[m, 0], params[m, 1]
    if zm < 0.0:
        sm = math.log1p(math.exp(zm))
        for k in range(K):
            if k == m:  # d = 0 and log1p(e^z_m) - sm = 0: exp(0) = 1, without the exps
                t[k, i] = 1.0
                continue
            d = (sign * params[k, 0] - cm) + (params[k, 1] - bm) * L
            lt = d - (math.log1p(math.exp(t[k, i])) - sm)
            t[k, i] = coded(min(math.exp(lt), 1.0), lt)
        # log rho_m = z_m - log1p(e^z_m) - lx, where z_m - lx = c_m + (beta_m - 1) lx
        # - beta_m ly: lx cancels exactly for beta_m = 1.
        ls[i] = (cm + (bm - 1.0) * lx - bm * ly) - sm
    else:
        lm = _log_expit(zm)
        for k in range(K):  # the expert m gives exp(0) = 1, without the exps
            lt = 0.0 if k == m else _log_expit(t[k, i]) - lm
            t[k, i] = 1.0 if k == m else coded(min(math.exp(lt), 1.0), lt)
        ls[i] = lm - lx


@jit_inline
def family_ratios(kind, params, p, y, table, t, ls):
    """Fill ``t`` and ``ls`` with the likelihood ratios of a family in closed form.

    ``t[k, i] * exp(ls[i]) = B_{f_k(p_i)}(y_i) / B_{p_i}(y_i)`` (Algorithm 1
    line 5), with ``max_k t[k, i] = 1`` (or ``t = 0`` and ``ls = -inf`` when
    every function gives the label probability 0), exact to a few roundings
    for every ``p`` in ``[0, 1]``, subnormal or within ``2**-53`` of 1 (a ratio
    below ``2^-1022`` as its log, :func:`~venncal._kernels.jumper_forget.coded`).
    ``kind`` is a code of :data:`FAMILY_KINDS`; ``table`` holds the family's
    values, used at ``p = 0`` and ``p = 1`` (where ``B_p(y) = 1`` and the
    values are exact).  Precondition: ``B_{p_i}(y_i) > 0``.
    """
    for i in range(p.shape[0]):
        pi = p[i]
        if pi == 0.0 or pi == 1.0:
            for k in range(table.shape[0]):
                t[k, i] = table[k, i] if y[i] else 1.0 - table[k, i]
            _normalise_column(t, i, ls)
        elif kind == 2:
            _cox2_column(params, pi, y[i], t, ls, i)
        else:
            q = 1.0 - pi  # exact for p >= 1/2 (Sterbenz); relative error 2**-53 below
            for k in range(params.shape[0]):
                t[k, i] = _polynomial_ratio(kind, params, k, pi, q, y[i])
            _normalise_column(t, i, ls)


@jit_inline
def _scaled_mixture(table, i, w, stay, jump):
    """``sum_k (stay w_k + jump) f_k 2**1000``: the forecast's numerator, scaled up.

    For a column of subnormal (or nearly) values ``f_k``, whose products with
    the weights underflow in place: scaling by a power of two is exact, so
    the scaled sum keeps its relative precision and the caller rounds once
    when it scales back down.
    """
    q1 = 0.0
    for k in range(table.shape[0]):
        q1 += (stay * w[k] + jump) * (table[k, i] * _UP)
    return q1


@jit
def jumper_predict(table, rates, weights, log_cap, log_err, out_proba):
    """Mean Jumper predictions ``p'`` for base probabilities at a fixed state.

    ``out_proba[i]`` is what :func:`jumper_advance` would output as ``p'``
    if the column ``table[:, i]`` came next (same arithmetic, bit for bit);
    the state (arguments as in :func:`jumper_advance`) is not modified.
    """
    mix = np.empty(rates.shape[0])
    _rate_weights(log_cap, log_err, mix)
    predict_mixed(table, rates, weights, mix, out_proba)


@jit_inline
def predict_mixed(table, rates, weights, mix, out_proba):
    """:func:`jumper_predict` given ``mix``, the rates' weights at this state (:func:`_rate_weights`)."""
    n = table.shape[1]
    K = table.shape[0]
    R = rates.shape[0]
    for i in range(n):
        proba = 0.0
        small = 0.0  # the rates' forecasts of subnormal size, scaled by 2**1000
        shares = 0.0
        for r in range(R):
            stay = 1.0 - rates[r]
            jump = rates[r] / K
            tot = 0.0
            q1 = 0.0
            # Algorithms 1 line 4 and 2 lines 5-6, without storing the weights.
            for k in range(K):
                wk = stay * weights[r, k] + jump
                tot += wk
                q1 += wk * table[k, i]
            if q1 < _SMALL_FORECAST:
                small += mix[r] * (_scaled_mixture(table, i, weights[r], stay, jump) / tot)
            else:
                proba += mix[r] * (q1 / tot)
            shares += mix[r]
        out_proba[i] = proba / shares + (small / shares) * _DOWN


@jit
def _mean_log_factor(mix, log_factor, before):
    """``log`` of the Mean Jumper's factor: the rates' factors weighted by ``S_{r, n-1}`` (``mix``).

    ``before`` is ``log sum_r S_{r, n-1}``; a capital of 0 bets no more, so
    its factor is 1 (0 in log).
    """
    if before == -np.inf:
        return 0.0
    top = -np.inf
    shares = 0.0
    for r in range(mix.shape[0]):
        if mix[r] > 0.0:
            top = max(top, log_factor[r])
            shares += mix[r]
    if top == -np.inf:
        return -np.inf
    total = 0.0
    for r in range(mix.shape[0]):
        if mix[r] > 0.0 and log_factor[r] > -np.inf:
            total += mix[r] * math.exp(log_factor[r] - top)
    return top + math.log(total / shares)


@jit
def jumper_advance(table, t, ls, rates, gamma, weights, log_cap, log_err, out_log10, out_proba,
                   out_factor):
    """Run the Mean Jumper over ``R`` jumping rates on a recorded stream, in place.

    Parameters
    ----------
    table : ndarray of float64 of shape (K, n)
        ``table[k, i] = f_k(p_i)``, the calibrating family at the base
        probabilities (values in ``[0, 1]``): the forecasts.
    t : ndarray of float64 of shape (K, n)
        The experts' likelihood ratios ``B_{f_k(p_i)}(y_i) / B_{p_i}(y_i)``
        divided by their largest, ``exp(ls[i])``: values in ``[0, 1]``, the
        largest 1 (all 0 when every expert gave the label probability 0); one
        below ``2^-1022`` as its log (:func:`~venncal._kernels.jumper_forget.coded`).
    ls : ndarray of float64 of shape (n,)
        ``log`` of the largest likelihood ratio of step ``i`` (``-inf`` when
        all are 0).
    rates : ndarray of float64 of shape (R,)
        Jumping rates ``J`` in ``(0, 1]``.
    gamma : float
        Forgetting: after each step every rate's weights are discounted by
        :func:`forget` (``forget_step`` from the logs where a product ``w t`` is
        below ``2^-1022``; ``gamma = 2^(-1/half_life)`` in ``[0, 1)``, each
        ``J/K`` then a normal float); 1.0 skips it.  The capital still grows by ``B_{p'}(y) / B_p(y)`` for the forecast
        ``p'`` the weights give, so ``S`` stays a test martingale.
    weights : ndarray of float64 of shape (R, K)
        State, updated in place: per rate, the normalised distribution of the
        capital over the experts after the last step (rows sum to 1; the
        initial state is ``1/K`` everywhere, Algorithm 1 line 1).
    log_cap, log_err : ndarray of float64 of shape (R,)
        State, updated in place: per rate, ``log S_r = log_cap + log_err``
        (natural log; a compensated sum; 0 and 0 initially, Algorithm 1 line 2).
    out_log10 : ndarray of float64 of shape (n,)
        Output: ``log10`` of the Mean Jumper's ``S_n`` after step ``n``.
    out_proba : ndarray of float64 of shape (n,)
        Output: the Mean Jumper predictor's ``p'_n``, computed before ``y_n``.
    out_factor : ndarray of float64 of shape (n,) or (0,)
        Output (when of length ``n``): ``log10 (S_n / S_{n-1})``, the betting
        factor of each step, taken from the step's own growth (rounded once
        for one rate, not a difference of the rounded path); 0 once ``S`` is 0.
    """
    advance_into(table, t, ls, rates, gamma, weights, log_cap, log_err, out_log10, out_proba,
                 out_factor, np.empty(rates.shape[0]), np.empty(rates.shape[0]), True,
                 table, out_proba[:0])


@jit_inline
def advance_into(table, t, ls, rates, gamma, weights, log_cap, log_err, out_log10, out_proba,
                 out_factor, mix, log_factor, forecasts, comp, out_low):
    """:func:`jumper_advance` with its scratch given (``mix``, ``log_factor``: shape ``(R,)``).

    ``forecasts`` False leaves ``out_proba``, ``out_factor`` and ``out_low``
    alone (the state and ``out_log10`` are the same, bit for bit); ``mix``
    ends as the rates' weights of the last state (:func:`_rate_weights`).
    ``out_low`` of length ``n`` (else empty: ``comp`` unread) gets
    :func:`predict_mixed` of ``comp`` (``1 - f_k(p_i)``) at each step's state.
    """
    n = table.shape[1]
    K = table.shape[0]
    R = rates.shape[0]
    log_R = math.log(R)
    # mix: the weight of each rate in the Mean Jumper's prediction (unnormalised)
    before = _rate_weights(log_cap, log_err, mix) if forecasts else 0.0
    factors = forecasts and out_factor.shape[0] > 0
    lows = forecasts and out_low.shape[0] > 0
    # Loop invariant, at the top of step i for every rate r: weights[r] is the
    # normalised capital distribution C_eps / C of Algorithm 1 after line 6 of
    # step i-1 (= Algorithm 2's C_eps after its lines 3-4 of step i),
    # log_cap[r] + log_err[r] = log S_{i-1} of rate r, and mix is proportional
    # to S_{r,i-1}: the Mean Jumper predicts with each rate's p' weighted by its
    # capital (its gale over the base gale).
    for i in range(n):
        proba = shares = 0.0
        small = 0.0  # the rates' forecasts of subnormal size, scaled by 2**1000
        low = low_small = 0.0  # the same two sums for the complements (when lows)
        for r in range(R):
            J = rates[r]
            stay = 1.0 - J
            jump = J / K
            w = weights[r]
            # Algorithm 1 line 4 (= Algorithm 2 line 5), on the normalised
            # weights: C_eps := (1 - J) C_eps + (J/|E|) C with C = 1.
            tot = q1 = g = 0.0
            # least < 0: a ratio coded as its log (counted after the loop); least < _TINY:
            # that, or a product w t below the normal range (forget_step takes them)
            least = 1.0
            for k in range(K):
                wk = stay * w[k] + jump
                w[k] = wk
                tot += wk
                q1 += wk * table[k, i]
                tk = t[k, i]
                prod = wk * tk
                g += max(prod, 0.0)
                least = min(least, prod if tk != 0.0 else 1.0)
            if least < 0.0:
                g += coded_growth(w, t, i)
            # Algorithm 2 line 6: p'_i = sum_eps f_eps(p_i) C_eps (the weights, mixed
            # already, sum to tot = 1 up to rounding; q1 <= tot keeps p' in [0, 1]).
            if forecasts and q1 < _SMALL_FORECAST:
                small += mix[r] * (_scaled_mixture(table, i, w, 1.0, 0.0) / tot)
            elif forecasts:
                proba += mix[r] * (q1 / tot)
            if lows:  # predict_mixed's arithmetic on comp (w holds its wk already)
                q0 = 0.0
                for k in range(K):
                    q0 += w[k] * comp[k, i]
                if q0 < _SMALL_FORECAST:
                    low_small += mix[r] * (_scaled_mixture(comp, i, w, 1.0, 0.0) / tot)
                else:
                    low += mix[r] * (q0 / tot)
            shares += mix[r]
            # Algorithm 1 lines 5-6: S_i = S_{i-1} * sum_eps w_eps rho_eps
            #                            = S_{i-1} * (g / tot) * exp(ls_i).
            if g > 0.0:
                log_growth = math.log(g / tot)
                if abs(log_growth + ls[i]) <= _NEAR_ONE:  # S barely moves: every bit counts
                    log_growth = math.log(growth_near_one(w, t, i))
                log_factor[r] = log_growth + ls[i]
                hi, lo = _compensated_add(log_cap[r], log_err[r], log_growth)
                hi, lo = _compensated_add(hi, lo, ls[i])
                log_cap[r], log_err[r] = hi, lo
                # Algorithm 1 line 5 / Algorithm 2 line 7, renormalised
                # (Algorithm 2 lines 3-4 of the next step): w_eps t_eps / g, then
                # forgetting; forget_step does both from the products' logs where needed.
                if gamma != 1.0 and least < _TINY:
                    forget_step(w, t, i, gamma)
                elif g >= _SAFE_INVERSE:
                    inv = 1.0 / g
                    if least < 0.0:  # the coded ratios by their floats
                        for k in range(K):
                            w[k] = w[k] * decoded(t[k, i]) * inv
                    else:
                        for k in range(K):
                            w[k] = w[k] * t[k, i] * inv
                else:
                    for k in range(K):
                        w[k] = w[k] * decoded(t[k, i]) / g
            else:
                # Every expert gave the observed label probability 0: S_r = 0
                # from now on (Algorithm 1 keeps C = 0); Algorithm 2's
                # normalisation would be 0/0, so the weights keep their
                # mixed values and the predictor goes on with them.
                log_factor[r] = log_cap[r] = -np.inf
                log_err[r] = 0.0
            if gamma != 1.0 and not (g > 0.0 and least < _TINY):
                forget(w, gamma)
        if forecasts:
            out_proba[i] = proba / shares + (small / shares) * _DOWN
        if lows:
            out_low[i] = low / shares + (low_small / shares) * _DOWN
        if factors:
            if R == 1:
                out_factor[i] = 0.0 if before == -np.inf else log_factor[0] / _LN10
            else:
                out_factor[i] = _mean_log_factor(mix, log_factor, before) / _LN10
        # Mean Jumper: S_i = (1/R) sum_r S_{r,i}, by log-sum-exp (which also
        # gives the next step's mix).
        before = _rate_weights(log_cap, log_err, mix)
        out_log10[i] = (before - log_R) / _LN10


@jit
def jumper_run(p, y, table, rates, weights, log_cap, log_err, out_log10, out_proba):
    """:func:`jumper_advance` for a family known only by its values ``table``.

    The likelihood ratios come from :func:`value_ratios` (the values taken
    as exact floats, as for a user's family).  ``p`` (shape ``(n,)``) are the
    base probabilities and ``y`` (bool, shape ``(n,)``) the labels, True for
    the positive class; precondition (checked by the caller): no ``p_i = 0``
    with a positive label and no ``p_i = 1`` with a negative one.  The other
    arguments are those of :func:`jumper_advance`.
    """
    t = np.empty(table.shape)
    ls = np.empty(p.shape[0])
    value_ratios(p, y, table, t, ls)
    jumper_advance(table, t, ls, rates, 1.0, weights, log_cap, log_err, out_log10, out_proba,
                   np.empty(0))
