"""Slow, literal references for ENIR's two columns and its models' BIC (``enir_complement``).

ENIR (``venncal.enir.ENIRCalibrator``) averages, over its models ``t`` (the
nearly-isotonic fits at the path's knots ``lam_t``) with weights ``omega_t``,
the smoothed bin values.  The complement that class 0 gets is, by the
definition, for the bin ``b`` of model ``t`` holding a point::

    c_b   = 1 - clip(beta_b(lam_t), 0, 1),   beta_b(lam) = (A_b + lam d_b) / W_b
    c~_b  = (W_b c_b + m (1 - pi_b)) / (W_b + m),      pi_b clipped to [1e-6, 1 - 1e-6]
    P(class 0 | point) = sum_t omega_t c~_{b_t(point)}

with ``A_b``, ``W_b`` the bin's positive and total weight and ``d_b`` its
slope numerator (``reference/neariso_naive.py`` and ``tests/test_enir.py``
check the path's fits, bins and ``d`` against direct solvers; the model
weights are checked against a literal BIC in ``tests/test_enir.py``).  Here
everything after the bins is exact rational arithmetic: the sums of the
rows' own weights (``W = A + B``, nothing rounded), ``lam_t`` (the knots of
the path on the scaled sums, times the power of two) and ``omega_t`` as the
calibrator's floats, ``1 - clip`` and the prior
exactly; only the final value is compared, so that the test sees any
cancellation of the float code.  :func:`exact_values` is the same for
class 1 (``clip(beta_b)`` smoothed towards ``pi_b``), and :func:`exact_bic`
each model's BIC with the bins' log-likelihoods in many-digit Decimal
logarithms of the exact rational fits.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

from venncal.enir import NearIsotonicPath
from venncal.enir.calibrator import _scale_shift

__all__ = ["exact_bic", "exact_complements", "exact_values"]

_PRIOR_EPS = Fraction(1e-6)  # the calibrator's prior clip, as the float it uses
_P_MIN = Fraction(2) ** -53
_C_MIN = Fraction(2) ** -1074


def exact_values(cal, scores, y, sample_weight=None):
    """Return the exact class-1 probability at each of ``cal.thresholds_`` (Fractions).

    As :func:`exact_complements`, for ``clip(beta_b)`` smoothed towards
    ``pi_b``, clipped as the calibrator documents: into ``[2**-1074, 1 - 2**-53]``.
    """
    return exact_complements(cal, scores, y, sample_weight, positive=True)


def exact_complements(cal, scores, y, sample_weight=None, positive=False):
    """Return the exact class-0 probability at each of ``cal.thresholds_`` (Fractions).

    ``cal`` is an :class:`~venncal.enir.ENIRCalibrator` fitted on ``scores``,
    ``y`` (0/1) and ``sample_weight``; its bins come from the path on the
    same sums (scaled by the same power of two), the models' ``lam`` are
    its knots (``cal.lambdas_`` rounded), ``model_weights_`` is taken as it
    is.  The value is clipped as the calibrator documents: into
    ``[2**-1074, 1 - 2**-53]``.
    """
    distinct, pos, neg, tot, path, shift = _exact_path(scores, y, sample_weight)
    index = {v: i for i, v in enumerate(distinct)}
    k = len(distinct)
    m = Fraction(float(cal.prior_strength))
    in_unit = distinct[0] >= 0.0 and distinct[-1] <= 1.0
    score_prior = in_unit and cal.bin_prior != "base_rate"
    base_rate = sum(pos) / sum(tot)

    # The models' lam on the scaled path (the calibrator's lambdas_ are these times
    # 2**shift, rounded where that leaves the float64 range).
    lams = path.knots[path.knots > 0]
    if lams.shape[0] == 0:
        lams = np.zeros(1)
    with np.errstate(over="ignore"):
        assert np.array_equal(np.ldexp(lams, shift), cal.lambdas_)
    value = [Fraction(0)] * k
    for scaled, omega in zip(lams.tolist(), cal.model_weights_.tolist(), strict=True):
        if omega == 0.0:
            continue
        lam = Fraction(scaled) * Fraction(2) ** shift
        ids = path._alive(scaled)
        for g in ids.tolist():
            lo, hi = int(path._start[g]), int(path._end[g])
            A, B, W = sum(pos[lo:hi]), sum(neg[lo:hi]), sum(tot[lo:hi])
            beta = (A + lam * int(path._d[g])) / W
            c = 1 - min(max(beta, Fraction(0)), Fraction(1))
            pi = (sum(Fraction(distinct[i]) * tot[i] for i in range(lo, hi)) / W
                  if score_prior else base_rate)
            pi = min(max(pi, _PRIOR_EPS), Fraction(1.0 - 1e-6))
            if positive:
                smoothed = (W * (1 - c) + m * pi) / (W + m)
            else:
                smoothed = (W * c + m * (1 - pi)) / (W + m)
            for i in range(lo, hi):
                value[i] += Fraction(omega) * smoothed
    at = [index[t] for t in cal.thresholds_.tolist()]
    return [min(max(value[i], _C_MIN), 1 - _P_MIN) for i in at]


def _exact_sums(scores, y, w):
    """The sorted distinct scores and each one's exact positive and negative weight."""
    scores = np.asarray(scores, dtype=float)
    y = np.asarray(y).astype(int)
    w = np.ones_like(scores) if w is None else np.asarray(w, dtype=float)
    keep = w > 0
    scores, y, w = scores[keep], y[keep], w[keep]
    distinct = sorted(set(scores.tolist()))
    index = {v: i for i, v in enumerate(distinct)}
    pos = [Fraction(0)] * len(distinct)
    neg = [Fraction(0)] * len(distinct)
    for s, label, weight in zip(scores.tolist(), y.tolist(), w.tolist(), strict=True):
        if label == 1:
            pos[index[s]] += Fraction(weight)
        else:
            neg[index[s]] += Fraction(weight)
    return distinct, pos, neg


def _exact_path(scores, y, w):
    """``(distinct, pos, neg, tot, path, shift)``: the exact sums and the calibrator's path.

    The bins are the path's on the float sums, scaled by ``2**-shift`` as the
    calibrator scales them; the sums are exact (Fractions of the rows' weights).
    """
    distinct, pos, neg = _exact_sums(scores, y, w)
    tot = [a + b for a, b in zip(pos, neg, strict=True)]
    wf = np.array([float(v) for v in tot])
    shift = _scale_shift(wf)
    path = NearIsotonicPath._from_summary(
        np.array(distinct), np.ldexp(wf, -shift),
        np.ldexp(np.array([float(v) for v in pos]), -shift),
    )
    return distinct, pos, neg, tot, path, shift


def _ln(x):
    """``ln x`` of a positive Fraction as a Decimal, to the context's precision (relative).

    The difference of the logs of numerator and denominator, taken with as
    many more digits as it cancels (``x`` within ``1e-100`` of 1, say).
    """
    u = abs(x - 1)
    if u == 0:
        return Decimal(0)
    digits = max(0, (u.denominator.bit_length() - u.numerator.bit_length()) * 31 // 100 + 1)
    with localcontext() as ctx:
        ctx.prec += digits + 10
        out = Decimal(x.numerator).ln() - Decimal(x.denominator).ln()
    return +out  # rounded to the caller's precision


def exact_bic(cal, scores, y, sample_weight=None, digits=60):
    """Return each model's BIC (Decimal; ``None``: ``-2 loglik`` is ``+inf``), by the definition.

    Model ``t`` is the fit at ``cal.lambdas_[t]`` clipped to ``[0, 1]``, its bins
    the groups of the path on the same float sums as the calibrator's (scaled
    by the same power of two); everything after the bins is exact: the bins'
    positive and negative weights ``A``, ``B`` as Fractions of the rows' own
    weights, ``v = clip((A + lam d) / (A + B))``, ``A ln v + B ln(1 - v)`` in
    ``digits``-digit Decimal logarithms, and ``BIC = -2 loglik + n_bins ln N``
    (``N`` the exact total weight; no penalty where ``N <= 1``).
    """
    distinct, pos, neg, tot, path, shift = _exact_path(scores, y, sample_weight)
    lams = path.knots[path.knots > 0]
    if lams.shape[0] == 0:
        lams = np.zeros(1)
    out = []
    with localcontext() as ctx:
        ctx.prec = digits
        total = sum(tot)
        penalty = _ln(total) if total > 1 else Decimal(0)
        for scaled in lams.tolist():
            lam = Fraction(scaled) * Fraction(2) ** shift
            ids = path._alive(scaled).tolist()
            loglik = Decimal(0)
            for g in ids:
                lo, hi = int(path._start[g]), int(path._end[g])
                A, B = sum(pos[lo:hi]), sum(neg[lo:hi])
                v = min(max((A + lam * int(path._d[g])) / (A + B), Fraction(0)), Fraction(1))
                if (A > 0 and v == 0) or (B > 0 and v == 1):
                    loglik = None
                    break
                if A > 0:
                    loglik += Decimal(A.numerator) / Decimal(A.denominator) * _ln(v)
                if B > 0:
                    loglik += Decimal(B.numerator) / Decimal(B.denominator) * _ln(1 - v)
            out.append(None if loglik is None else -2 * loglik + len(ids) * penalty)
    return out
