"""The Jumper objects' single calls from Python: one memory array, one kernel call.

:func:`jumper_calls` applies the steps queued by ``learn_one`` and forecasts
at one base probability, for the quadratic and cubic families, by the
functions of :mod:`venncal._kernels.jumper` (bit for bit ``learn_many``
followed by ``predict_proba_many``).  The whole object lives in one float64
array laid out by :func:`calls_layout`, so that a call from Python unboxes
one array (numba's cost of a call grows by about 0.1 µs an array).  Its
literal twin is the batch path itself (``tests/test_online_calls.py``).
"""

from __future__ import annotations

from ._jit import jit, jit_inline
from .jumper import _rate_weights, advance_into, family_ratios, polynomial_values, predict_mixed
from .jumper_complement import polynomial_complements

__all__ = ["CTL_GAMMA", "CTL_LAST", "CTL_LOW", "CTL_NEW", "CTL_TOP", "advance_queue",
           "calls_layout", "forecast_low", "forecast_mixed", "jumper_calls", "rate_scratch"]

#: Slots of the control block of :func:`jumper_calls`' memory: the largest
#: ``log10 S`` recorded, a flag (a new one is larger), the last ``log10 S``, the
#: forecast's base probability, the forecast, and the forgetting factor
#: ``gamma`` (1.0: no forgetting; see :func:`~venncal._kernels.jumper.jumper_advance`).
#: Slot 6 is ``jumper_union.CTL_COLUMN``; ``CTL_LOW`` holds the forecast's negative class
#: (:func:`forecast_low`).
CTL_TOP, CTL_NEW, CTL_LAST, CTL_X, CTL_OUT, CTL_GAMMA = range(6)
CTL_LOW = 7
CTL_SIZE = 8
@jit
def calls_layout(Q, K, R, m):
    """Offsets in :func:`jumper_calls`' memory: control, weights, log_cap, log_err, rates, params, scratch, total.

    The memory is one float64 array: the queue (base forecasts, labels as
    1.0/0.0, ``log10 S`` after each step: ``3 Q`` numbers), the control block,
    the state (weights ``R K``, ``log_cap`` and ``log_err`` ``R`` each), the
    rates ``R``, the family's parameters ``K m``, and scratch for the kernels
    (two ``(K, Q)`` tables, two rows of ``Q``, a column of ``K``, then two rows
    of ``R``: :func:`~venncal._kernels.jumper.advance_into`'s ``mix`` and
    ``log_factor``, at the end of the memory, see :func:`rate_scratch`).
    """
    ctl = 3 * Q
    w = ctl + CTL_SIZE
    cap = w + R * K
    err = cap + R
    rates = err + R
    params = rates + R
    scratch = params + K * m
    return ctl, w, cap, err, rates, params, scratch, scratch + 2 * K * Q + 2 * Q + K + 2 * R


@jit_inline
def rate_scratch(mem, R):
    """The rates' scratch rows ``mix`` and ``log_factor``: the last ``2 R`` numbers of the memory.

    (At the end, so that a memory of the layout before them, which lacked them,
    takes them by growing: see ``SingleCalls.__setstate__``.)
    """
    end = mem.shape[0]
    return mem[end - 2 * R:end - R], mem[end - R:end]


@jit_inline
def forecast_mixed(column, rates, weights, log_cap, log_err, mix, fresh, out):
    """:func:`~venncal._kernels.jumper.jumper_predict` of one column, ``mix`` reused when ``fresh``.

    ``fresh``: ``mix`` holds the rates' weights of this state (an advance
    just left them), the values ``_rate_weights`` would give again.
    """
    if not fresh:
        _rate_weights(log_cap, log_err, mix)
    predict_mixed(column, rates, weights, mix, out)


@jit_inline
def forecast_low(mem, ctl, comp, rates, weights):
    """Put the negative class's probability of the forecast in ``CTL_LOW`` (issue 22).

    Where the forecast ``p'`` (``CTL_OUT``) exceeds 1/2 it is the mixture of
    the complements ``comp`` (a column ``1 - f_k(x)`` formed without the
    subtraction, :mod:`~venncal._kernels.jumper_complement`) by the weights
    of the forecast (``mix`` as :func:`forecast_mixed` left it); else
    ``1 - p'``.  ``comp`` is filled by the caller only in the first case.
    """
    out = mem[ctl + CTL_OUT]
    if out > 0.5:
        predict_mixed(comp, rates, weights, rate_scratch(mem, rates.shape[0])[0],
                      mem[ctl + CTL_LOW:ctl + CTL_LOW + 1])
    else:
        mem[ctl + CTL_LOW] = 1.0 - out


@jit_inline
def advance_queue(mem, ctl, Q, n, table, t, ls, proba, rates, weights, log_cap, log_err):
    """Advance the state by the ``n`` queued steps and keep the records' control slots.

    The steps of :func:`~venncal._kernels.jumper.jumper_advance`, bit for bit,
    without its forecasts (nothing reads them); ``mix`` is left as the new
    state's rates' weights (:func:`rate_scratch`).

    ``log10 S`` after each step goes to ``mem[2Q:2Q + n]``, the last to
    ``CTL_LAST``; ``CTL_NEW`` becomes 1.0 if one exceeds ``CTL_TOP``, else 0.0.
    """
    out_log10 = mem[2 * Q:2 * Q + n]
    mix, log_factor = rate_scratch(mem, rates.shape[0])
    advance_into(table, t, ls, rates, mem[ctl + CTL_GAMMA], weights, log_cap, log_err,
                 out_log10, proba, mem[:0], mix, log_factor, False, table, mem[:0])
    top = mem[ctl + CTL_TOP]
    mem[ctl + CTL_NEW] = 0.0
    for i in range(n):
        if out_log10[i] > top:
            mem[ctl + CTL_NEW] = 1.0
    mem[ctl + CTL_LAST] = out_log10[n - 1]


@jit
def jumper_calls(mem, kind, K, R, m, Q, n, x):
    """Single calls from Python: apply the ``n`` queued steps, then forecast at ``x``.

    ``mem`` holds the whole object (layout: :func:`calls_layout`), so that a
    call from Python unboxes one array.  One call does what ``learn_many`` of
    the queued steps followed by ``predict_proba_many([x])`` does, for the
    quadratic (kind 0) and cubic (1) families, by the same functions (bit for
    bit): the family's values by :func:`polynomial_values`, the likelihood
    ratios by :func:`family_ratios`, the steps by :func:`advance_queue` and
    the forecast by :func:`forecast_mixed`.  The queue holds the base
    forecasts in ``mem[:n]`` and the labels (1.0 for the positive class) in
    ``mem[Q:Q + n]``; the kernel writes ``log10 S`` after each step into
    ``mem[2Q:2Q + n]``, the last into the control slot ``CTL_LAST``, and sets
    ``CTL_NEW`` to 1.0 if one of them exceeds ``CTL_TOP`` (the largest value
    recorded before, kept by the caller), else 0.0.  The forgetting factor
    is read from ``CTL_GAMMA``.  Returns ``p'`` at ``x``
    for ``0 <= x <= 1``, and -1.0 (no forecast) for ``x < 0``; when one of the
    ``n`` steps set a new record (``CTL_NEW`` 1.0) it returns -2.0 instead of
    ``p'``, which is then read from ``CTL_OUT`` (so the caller learns of a record
    without reading the memory at every call).  The negative class's
    probability, formed without ``1 - p'`` (:func:`forecast_low`), is left in
    ``CTL_LOW``.
    Preconditions (checked by the caller): no ``p = 0`` with a positive label
    and no ``p = 1`` with a negative one; ``0 <= n <= Q``.
    """
    ctl, w0, cap, err, r0, p0, sc, _ = calls_layout(Q, K, R, m)
    weights = mem[w0:cap].reshape(R, K)
    log_cap = mem[cap:err]
    log_err = mem[err:r0]
    rates = mem[r0:p0]
    params = mem[p0:sc].reshape(K, m)
    if n > 0:
        table = mem[sc:sc + K * n].reshape(K, n)
        t = mem[sc + K * Q:sc + K * Q + K * n].reshape(K, n)
        ls = mem[sc + 2 * K * Q:sc + 2 * K * Q + n]
        proba = mem[sc + 2 * K * Q + Q:sc + 2 * K * Q + Q + n]
        p = mem[:n]
        y = mem[Q:Q + n]
        polynomial_values(kind, params, p, table)
        family_ratios(kind, params, p, y, table, t, ls)
        advance_queue(mem, ctl, Q, n, table, t, ls, proba, rates, weights, log_cap, log_err)
    if not x >= 0.0:
        return -1.0
    mem[ctl + CTL_X] = x
    column = mem[sc + 2 * K * Q + 2 * Q:sc + 2 * K * Q + 2 * Q + K].reshape(K, 1)
    polynomial_values(kind, params, mem[ctl + CTL_X:ctl + CTL_X + 1], column)
    forecast_mixed(column, rates, weights, log_cap, log_err, rate_scratch(mem, R)[0], n > 0,
                   mem[ctl + CTL_OUT:ctl + CTL_OUT + 1])
    comp = mem[sc + K * Q:sc + K * Q + K].reshape(K, 1)  # the ratios' scratch, free now
    if mem[ctl + CTL_OUT] > 0.5:
        polynomial_complements(kind, params, mem[ctl + CTL_X:ctl + CTL_X + 1], column, comp)
    forecast_low(mem, ctl, comp, rates, weights)
    if n > 0 and mem[ctl + CTL_NEW] == 1.0:
        return -2.0  # a new record among the steps: the forecast is in CTL_OUT (see the docstring)
    return mem[ctl + CTL_OUT]
