"""Cox's families and unions of the paper's families, in compiled code (issue 26).

The values of Cox's families (:func:`cox_values`), of a union of the paper's
families (:func:`union_values`) and the union's likelihood ratios brought to
one scale (:func:`union_ratios`), for the Jumper's batch path
(:meth:`CalibratingFamily.table` and ``likelihood_ratios``) and its single
calls (:func:`union_calls`, one kernel call a prediction from Python).

A union is described by ``desc``, a float64 array of ``2 M + 1`` numbers for
its ``M`` members: their kinds (codes of
:data:`~venncal._kernels.jumper.FAMILY_KINDS`: 0 quadratic, 1 cubic, 2 Cox)
and the first rows of each member, then the number of rows ``K``; and by
``params``, shape ``(K, 2)``: each function's parameters, ``(eps, 0)``,
``(a, b)`` or Cox's ``(alpha, beta)`` (``cox(beta)`` is ``cox2(0, beta)``).
Small integers are exact in float64, and one float array is one argument to
unbox (numba's cost of a call grows by about 0.1 µs an array).  Cox's family
alone is the union of one member.  The slow literal twins are in
``tests/reference/jumper_union_naive.py``.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline
from .jumper import family_ratios, polynomial_values
from .jumper_calls import (
    CTL_NEW,
    CTL_OUT,
    CTL_X,
    advance_queue,
    calls_layout,
    forecast_low,
    forecast_mixed,
    rate_scratch,
)
from .jumper_complement import _logit, union_complements
from .jumper_forget import _TINY

#: A slot of the control block: 1.0 when the scratch column holds the family's values at
#: ``CTL_X`` (the last forecast's base probability), 0.0 before any forecast.
CTL_COLUMN = 6

__all__ = ["cox_values", "union_calls", "union_layout", "union_ratios", "union_rescale",
           "union_values"]


@jit_inline
def cox_values(params, p, out):
    """Fill ``out[k, i] = expit(alpha_k + beta_k logit(p_i))``: Cox's two-parameter family.

    ``params`` rows are ``(alpha, beta)``.  ``beta logit p`` is taken as 0 for
    ``beta = 0`` (``0^0 = 1`` at ``p`` in {0, 1}: the constant ``expit(alpha)``),
    and ``expit(z) = 1 / (1 + exp(-z))``: the arithmetic of SciPy's ``logit``
    and ``expit``, operation for operation (``p = 0`` gives 0, ``p = 1`` gives 1
    for ``beta > 0``).  So are their roundings: the relative error grows with
    ``|z|`` (``1e-13`` at ``p = 1e-300``).  Where ``exp(-z)`` overflows (``z <
    -709.78``, where SciPy's ``expit`` gives 0) the value is ``exp(z)`` (``1 +
    exp(z)`` is 1 there), a subnormal to within ``2**-1075`` of the exact one,
    or 0 only where that is below ``2**-1075`` (attack 50 F7: ``cox([1])`` at
    ``p = 1e-310`` gave 0).  The likelihood ratios of
    :func:`~venncal._kernels.jumper.family_ratios` are taken in logs.
    """
    for i in range(p.shape[0]):
        lg = _logit(p[i])
        for k in range(params.shape[0]):
            beta = params[k, 1]
            z = params[k, 0] + (0.0 if beta == 0.0 else beta * lg)
            e = math.exp(-z)
            out[k, i] = 1.0 / (1.0 + e) if e < math.inf else math.exp(z)


@jit_inline
def union_values(desc, params, p, out):
    """Fill ``out[k, i] = f_k(p_i)`` for the union described by ``desc`` (see the module)."""
    M = (desc.shape[0] - 1) // 2
    for j in range(M):
        a, b = int(desc[M + j]), int(desc[M + j + 1])
        kind = int(desc[j])
        if kind == 2:
            cox_values(params[a:b], p, out[a:b])
        else:
            polynomial_values(kind, params[a:b], p, out[a:b])


@jit_inline
def _down_scale(lm, top):
    """``exp(lm - top)`` (``lm <= top``), 0 for infinite ones: ``lm - top = dh + dl`` exactly (TwoSum).

    ``exp(dh) (1 + dl)`` is then within an ulp, however far apart the scales
    (``top = 357`` for Cox at ``p = 1e-310`` beside a quadratic's ``log 1.5``).
    """
    if not (math.isfinite(lm) and math.isfinite(top)):
        return 0.0
    if lm == top:  # the top member: dh = dl = 0 and exp(0) = 1, without the exp
        return 1.0
    a, b = lm, -top
    dh = a + b
    bb = dh - a
    dl = (a - (dh - bb)) + (b - bb)
    e = math.exp(dh)
    return min(e + e * dl, 1.0)


@jit_inline
def union_ratios(desc, params, p, y, table, t, ls, member_ls):
    """Fill ``t`` and ``ls`` with the union's likelihood ratios, on one scale.

    Each member's ratios come from :func:`~venncal._kernels.jumper.family_ratios`
    (``t_m``, and ``ls_m`` into row ``m`` of ``member_ls``, shape ``(M, n)``),
    then :func:`union_rescale` brings them to one scale.  ``y`` holds the
    labels (True or 1.0 for the positive class); ``table`` the values of
    :func:`union_values`.  Precondition: ``B_{p_i}(y_i) > 0``.
    """
    M = (desc.shape[0] - 1) // 2
    for j in range(M):
        a, b = int(desc[M + j]), int(desc[M + j + 1])
        family_ratios(int(desc[j]), params[a:b], p, y, table[a:b], t[a:b], member_ls[j])
    union_rescale(desc, t, ls, member_ls)


@jit_inline
def union_rescale(desc, t, ls, member_ls):
    """Bring the members' scaled ratios to one scale, in place: ``ls = max_m ls_m``.

    Rows ``desc[M + m]`` to ``desc[M + m + 1]`` of ``t`` hold member ``m``'s
    ratios on its own scale ``member_ls[m]``; they are multiplied by
    ``exp(ls_m - ls)``, taken from an exact difference of logarithms
    (:func:`_down_scale`), 0 where ``ls_m = -inf``; a product below
    ``2^-1022`` is coded as its log (``log t + (ls_m - ls)``).  One member keeps its own
    ratios.  Only the rows of ``desc`` are read (a user's family, kind -1,
    may be a member).
    """
    M = (desc.shape[0] - 1) // 2
    for i in range(t.shape[1]):
        if M == 1:
            ls[i] = member_ls[0, i]
            continue
        top = -np.inf
        for j in range(M):
            top = max(top, member_ls[j, i])
        ls[i] = top
        for j in range(M):
            lm = member_ls[j, i]
            scale = _down_scale(lm, top)
            a, b = int(desc[M + j]), int(desc[M + j + 1])
            if scale == 1.0:  # the top member (x * 1 = x)
                continue
            dh = lm - top  # exp(dh + dl) = scale, dh + dl = lm - top exactly (TwoSum)
            bb = dh - lm
            dl = (lm - (dh - bb)) + (-top - bb)
            for k in range(a, b):
                tk = t[k, i]
                v = tk * scale
                if v < _TINY and tk != 0.0:  # below the normal range: coded as its log
                    v = (tk if tk < 0.0 else math.log(tk)) + (dh + dl)
                t[k, i] = v


@jit_inline
def _cached(mem, ctl, x):
    """Whether the scratch column holds the values at ``x`` (the same float, sign of 0 included)."""
    c = mem[ctl + CTL_X]
    return (mem[ctl + CTL_COLUMN] == 1.0 and x == c
            and math.copysign(1.0, x) == math.copysign(1.0, c))


@jit
def union_layout(Q, K, R, M):
    """Offsets in :func:`union_calls`' memory: control, weights, log_cap, log_err, rates, params, desc, scratch, total.

    As :func:`~venncal._kernels.jumper_calls.calls_layout` (the queue ``3 Q``,
    the control block, the state, the rates), then the parameters ``(K, 2)``,
    the union's ``desc`` (``2 M + 1``) and scratch: two ``(K, Q)`` tables, two
    rows of ``Q``, a column of ``K``, the members' scales ``(M, Q)`` and the
    rates' two rows (:func:`~venncal._kernels.jumper_calls.rate_scratch`).
    """
    # calls_layout's blocks for two parameters a function; its scratch is our desc (the 2 as
    # an int64, not a literal: one compiled layout)
    ctl, w, cap, err, rates, params, desc, _ = calls_layout(Q, K, R, np.int64(2))
    scratch = desc + 2 * M + 1
    total = scratch + 2 * K * Q + 2 * Q + K + M * Q + 2 * R
    return ctl, w, cap, err, rates, params, desc, scratch, total


@jit
def union_calls(mem, K, R, M, Q, n, x):
    """Single calls from Python for a union (or Cox's family): apply ``n`` queued steps, forecast at ``x``.

    The counterpart of :func:`~venncal._kernels.jumper_calls.jumper_calls`
    (same queue, control block and return value) for the families of
    :func:`union_values`: the values by :func:`union_values`, the ratios by
    :func:`union_ratios`, the steps by :func:`~venncal._kernels.jumper_calls.advance_queue` and the
    forecast by :func:`~venncal._kernels.jumper_calls.forecast_mixed`, the functions of the batch path (bit for bit
    ``learn_many`` then ``predict_proba_many([x])``).  A River loop forecasts
    at ``p`` and then learns ``p``: the first queued step takes the values of
    the last forecast's column when its base probability is that forecast's
    (``CTL_COLUMN``; the same function of the same float, so the same values).
    The negative class's probability is left in ``CTL_LOW``
    (:func:`~venncal._kernels.jumper_calls.forecast_low`); -2.0 is returned,
    and ``p'`` left in ``CTL_OUT``, when one of the ``n`` steps set a new record.
    Memory layout: :func:`union_layout`.  Preconditions (checked by the caller): no ``p = 0``
    with a positive label and no ``p = 1`` with a negative one; ``0 <= n <= Q``.
    """
    ctl, w0, cap, err, r0, p0, d0, sc, _ = union_layout(Q, K, R, M)
    weights = mem[w0:cap].reshape(R, K)
    log_cap = mem[cap:err]
    log_err = mem[err:r0]
    rates = mem[r0:p0]
    params = mem[p0:d0].reshape(K, 2)
    desc = mem[d0:sc]
    if n > 0:
        table = mem[sc:sc + K * n].reshape(K, n)
        t = mem[sc + K * Q:sc + K * Q + K * n].reshape(K, n)
        ls = mem[sc + 2 * K * Q:sc + 2 * K * Q + n]
        proba = mem[sc + 2 * K * Q + Q:sc + 2 * K * Q + Q + n]
        scales = sc + 2 * K * Q + 2 * Q + K
        member_ls = mem[scales:scales + M * n].reshape(M, n)
        p = mem[:n]
        y = mem[Q:Q + n]
        cached = sc + 2 * K * Q + 2 * Q  # the column of the last forecast
        if _cached(mem, ctl, p[0]):
            union_values(desc, params, p[1:], table[:, 1:])
            for k in range(K):
                table[k, 0] = mem[cached + k]
        else:
            union_values(desc, params, p, table)
        union_ratios(desc, params, p, y, table, t, ls, member_ls)
        advance_queue(mem, ctl, Q, n, table, t, ls, proba, rates, weights, log_cap, log_err)
    if not x >= 0.0:
        return -1.0
    start = sc + 2 * K * Q + 2 * Q
    column = mem[start:start + K].reshape(K, 1)
    if not _cached(mem, ctl, x):
        mem[ctl + CTL_X] = x
        union_values(desc, params, mem[ctl + CTL_X:ctl + CTL_X + 1], column)
        mem[ctl + CTL_COLUMN] = 1.0
    forecast_mixed(column, rates, weights, log_cap, log_err, rate_scratch(mem, R)[0], n > 0,
                   mem[ctl + CTL_OUT:ctl + CTL_OUT + 1])
    comp = mem[sc + K * Q:sc + K * Q + K].reshape(K, 1)  # the ratios' scratch, free now
    if mem[ctl + CTL_OUT] > 0.5:
        union_complements(desc, params, mem[ctl + CTL_X:ctl + CTL_X + 1], column, comp)
    forecast_low(mem, ctl, comp, rates, weights)
    if n > 0 and mem[ctl + CTL_NEW] == 1.0:
        return -2.0  # a new record among the steps: the forecast is in CTL_OUT (see the docstring)
    return mem[ctl + CTL_OUT]
