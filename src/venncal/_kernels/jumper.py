"""Jumper test martingale, Jumper predictor and Mean Jumper (paper 002, Algorithms 1 and 2).

One kernel, :func:`jumper_run`, runs ``R`` Jumpers with jumping rates
``rates[0], ..., rates[R-1]`` over a recorded stream and averages them: the
Mean Jumper.  With ``R = 1`` it is the plain Jumper, exactly (the average of
one number is that number, bit for bit).  :func:`jumper_predict` gives the
next step's forecasts at a fixed state, by the same arithmetic.  The state
is passed in and updated in place, so a stream can be continued in any
number of calls with bit-for-bit the same results.

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

from ._jit import jit
from .dd import two_sum_jit

__all__ = ["jumper_predict", "jumper_run"]

_LN10 = math.log(10.0)


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


@jit
def _rate_weights(cap, mix):
    """Fill ``mix`` with ``softmax(cap)``; return ``log sum exp(cap)``.

    ``cap[r]`` is ``log S_r``; ``mix[r] = S_r / sum S`` is rate ``r``'s share
    of the Mean Jumper's capital (uniform if every ``S_r`` is 0).
    """
    R = cap.shape[0]
    if R == 1:
        mix[0] = 1.0
        return cap[0]
    top = cap[0]
    for r in range(1, R):
        top = max(top, cap[r])
    total = 0.0
    for r in range(R):
        mix[r] = math.exp(cap[r] - top) if top > -np.inf else 1.0
        total += mix[r]
    for r in range(R):
        mix[r] /= total
    return top + math.log(total) if top > -np.inf else -np.inf


@jit
def jumper_predict(table, rates, weights, log_cap, log_err, out_proba):
    """Mean Jumper predictions ``p'`` for base probabilities at a fixed state.

    ``out_proba[i]`` is what :func:`jumper_run` would output as ``p'`` if
    the column ``table[:, i]`` came next (same arithmetic, bit for bit); the
    state (arguments as in :func:`jumper_run`) is not modified.
    """
    n = table.shape[1]
    K = table.shape[0]
    R = rates.shape[0]
    mix = np.empty(R)
    cap = np.empty(R)
    for r in range(R):
        cap[r] = log_cap[r] + log_err[r]
    _rate_weights(cap, mix)
    for i in range(n):
        proba = 0.0
        for r in range(R):
            stay = 1.0 - rates[r]
            jump = rates[r] / K
            q1 = 0.0
            q0 = 0.0
            # Algorithms 1 line 4 and 2 lines 5-6, without storing the weights.
            for k in range(K):
                wk = stay * weights[r, k] + jump
                f = table[k, i]
                q1 += wk * f
                q0 += wk * (1.0 - f)
            proba += mix[r] * (q1 / (q0 + q1))
        out_proba[i] = proba


@jit
def jumper_run(p, y, table, rates, weights, log_cap, log_err, out_log10, out_proba):
    """Run the Mean Jumper over ``R`` jumping rates on a recorded stream, in place.

    Parameters
    ----------
    p : ndarray of float64 of shape (n,)
        Base probabilities ``p_n`` of the positive label.  Precondition (checked
        by the caller): ``B_{p_n}(y_n) > 0``, i.e. no ``p_n = 0`` with a
        positive label and no ``p_n = 1`` with a negative one.
    y : ndarray of bool of shape (n,)
        Labels, True for the positive class.
    table : ndarray of float64 of shape (K, n)
        ``table[k, i] = f_k(p_i)``, the calibrating family evaluated at the
        base probabilities (values in ``[0, 1]``).
    rates : ndarray of float64 of shape (R,)
        Jumping rates ``J`` in ``(0, 1]``.
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
    """
    n = p.shape[0]
    K = table.shape[0]
    R = rates.shape[0]
    log_R = math.log(R)
    mix = np.empty(R)  # weight of each rate in the Mean Jumper's prediction
    cap = np.empty(R)  # log S_r, collapsed
    for r in range(R):
        cap[r] = log_cap[r] + log_err[r]
    _rate_weights(cap, mix)
    # Loop invariant, at the top of step i for every rate r: weights[r] is the
    # normalised capital distribution C_eps / C of Algorithm 1 after line 6 of
    # step i-1 (= Algorithm 2's C_eps after its lines 3-4 of step i),
    # log_cap[r] + log_err[r] = cap[r] = log S_{i-1} of rate r, and
    # mix = softmax(cap): the Mean Jumper predicts with each rate's p'
    # weighted by its capital S_{r,i-1} (its gale over the base gale).
    for i in range(n):
        yi = y[i]
        base = p[i] if yi else 1.0 - p[i]  # B_{p_i}({y_i}), > 0 by precondition
        proba = 0.0
        for r in range(R):
            J = rates[r]
            stay = 1.0 - J
            jump = J / K
            w = weights[r]
            # Algorithm 1 line 4 (= Algorithm 2 line 5), on the normalised
            # weights: C_eps := (1 - J) C_eps + (J/|E|) C with C = 1.
            q1 = 0.0
            q0 = 0.0
            for k in range(K):
                wk = stay * w[k] + jump
                w[k] = wk
                f = table[k, i]
                q1 += wk * f
                q0 += wk * (1.0 - f)
            # Algorithm 2 line 6: p'_i = sum_eps f_eps(p_i) C_eps (the weights
            # sum to q0 + q1 = 1 up to rounding; dividing keeps p' in [0, 1]).
            proba += mix[r] * (q1 / (q0 + q1))
            # Algorithm 1 lines 5-6: S_i = S_{i-1} * sum_eps w_eps B_{f_eps}(y_i) / B_{p_i}(y_i)
            #                            = S_{i-1} * B_{p'_i}(y_i) / B_{p_i}(y_i).
            qy = q1 if yi else q0
            if qy > 0.0:
                hi, lo = _compensated_add(log_cap[r], log_err[r], math.log(qy / ((q0 + q1) * base)))
                log_cap[r] = hi
                log_err[r] = lo
                # Algorithm 1 line 5 / Algorithm 2 line 7, renormalised
                # (Algorithm 2 lines 3-4 of the next step): w_eps B_{f_eps}(y_i) / q_y.
                inv = 1.0 / qy
                if yi:
                    for k in range(K):
                        w[k] = w[k] * table[k, i] * inv
                else:
                    for k in range(K):
                        w[k] = w[k] * (1.0 - table[k, i]) * inv
            else:
                # Every expert gave the observed label probability 0: S_r = 0
                # from now on; the weights keep their (mixed) values.
                log_cap[r] = -np.inf
                log_err[r] = 0.0
            cap[r] = log_cap[r] + log_err[r]
        out_proba[i] = proba
        # Mean Jumper: S_i = (1/R) sum_r S_{r,i}, by log-sum-exp (which also
        # gives the next step's mix).
        out_log10[i] = (_rate_weights(cap, mix) - log_R) / _LN10
