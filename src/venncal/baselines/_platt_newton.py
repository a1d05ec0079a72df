"""Platt scaling's Newton method on standardized scores, and its numerical safeguards.

The fit of :class:`~venncal.baselines.PlattCalibrator` (split from
:mod:`venncal.baselines.platt` for size): the damped Newton iteration, the
refit of extreme targets, the class weights scaled into the float64 range,
and the check of how precisely float64 determines a fit.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from ..parametric._binary import (  # shared with the calibration slope (metrics)
    LOGIT_TOL as _LOGIT_TOL,
    largest_move as _largest_move,
    step_and_noise as _step_and_noise,
)

# Newton's method in standardized coordinates, on the mean loss: the gradient
# is of order one at the start, so these tolerances are relative.
_GTOL = 1e-12
_MAX_ITER = 100
_ARMIJO = 1e-4
# Below this Newton decrement the quadratic model is exact to rounding and the
# full step is taken without a line search (the loss can no longer resolve the
# decrease, so an Armijo test would reject good steps).
_FULL_STEP_DECREMENT = 1e-10
_NORMAL = 2.0**-1022  # the smallest normal double
# A Hessian determinant below this is recomputed on the Hessian scaled near 1.
_SMALL_DET = 2.0**-500
# The refit of extreme targets (_fit_tails) stops when a Newton step moves the
# standardized parameters by less than this, relative.
_STEP_TOL = 2.0**-44
# The gradient of a fit stopped at the limit of float64 precision, or by the step.
_GTOL_LOOSE = 1e-8
# A refit (_fit_tails) stopped at the limit of float64 precision is converged only if
# the Newton step there is below this, relative.
_SETTLED = 1e-6


def _softplus(z):
    return np.logaddexp(0.0, z)


def _mean_loss(u, c1, c0):
    """Weighted cross-entropy ``sum c1 * -log(p) + c0 * -log(1 - p)`` with ``p = expit(u)``.

    ``c1 = v * t`` and ``c0 = v * (1 - t)`` for targets ``t`` and weights
    ``v``: kept apart so that a target within ``2**-53`` of 1 keeps its
    distance to 1.  A sum of non-negative terms: nothing cancels, whatever
    the size of ``u``.
    """
    return float(np.dot(c1, _softplus(-u)) + np.dot(c0, _softplus(u)))


def _fit_logit(x, c1, c0, theta=None, step_tol=None, at=None):
    """Minimize ``sum c1 * -log(p) + c0 * -log(1 - p)`` over ``p = expit(alpha * x + beta)``.

    ``x`` is standardized; ``c1, c0 >= 0`` (the weights times the targets and
    times one minus the targets) sum to one, and a finite minimizer exists
    (the caller checks).  Damped Newton's method with a backtracking line
    search; the loss is convex, so it converges from anywhere, quadratically
    near the minimum.  Returns ``(theta, converged)``: converged when the
    gradient is below ``_GTOL``, or below ``1e-8`` where float64 stops the
    descent (the rule of earlier versions, so that ordinary fits are bit for
    bit what they were); given ``step_tol`` (a refit of extreme targets),
    when a Newton step moves ``theta`` by less than ``step_tol`` relative to
    ``1 + |theta|``, or the descent stops with a small gradient and a Newton
    step there below ``_SETTLED``.

    ``theta`` is the start, by default the optimum over beta alone (alpha =
    0): a good, always finite start, but one from which extreme targets
    (logits near +-700, of class weights 1e300 beside 1e-300) are reached
    about one unit of logit per step, and where the gradient of the mean
    loss stops resolving them (see :func:`_fit_tails`).

    ``at``, a dict, receives ``(step, noise)`` of :func:`_step_and_noise` at
    the returned ``theta`` (key ``"precision"``) when the gradient test
    stopped the descent.
    """
    if theta is None:
        theta = np.array([0.0, np.log(c1.sum()) - np.log(c0.sum())])
    loss = _mean_loss(theta[0] * x + theta[1], c1, c0)
    gmax = np.inf
    d = np.full(2, np.inf)
    for _ in range(_MAX_ITER):
        u = theta[0] * x + theta[1]
        p = expit(u)
        q = expit(-u)  # 1 - p without cancellation when p is near 1
        r = c0 * p - c1 * q  # v * (p - t)
        g = np.array([np.dot(r, x), r.sum()])
        gmax = float(np.max(np.abs(g)))
        h = (c1 + c0) * p * q
        hx = h * x
        H = np.array([[np.dot(hx, x), hx.sum()], [hx.sum(), h.sum()]])
        det = H[0, 0] * H[1, 1] - H[0, 1] * H[1, 0]
        top = 1.0
        if not det >= _SMALL_DET and np.max(np.abs(H)) > 0:
            # H over a power of two near its largest entry (exact): probabilities near
            # 1e-300 at the optimum (targets of weights 1e-300 beside 1e300) underflow
            # the products of H's entries, and the determinant with them.
            top = math.ldexp(1.0, math.frexp(float(np.max(np.abs(H))))[1])
            H = H / top
            det = H[0, 0] * H[1, 1] - H[0, 1] * H[1, 0]
        newton = bool(det > 0 and np.isfinite(det))
        if newton:
            d = np.array([H[1, 1] * g[0] - H[0, 1] * g[1], H[0, 0] * g[1] - H[1, 0] * g[0]])
            if top >= 1.0:
                d /= -det * top
            else:  # det * top can underflow to 0 (Hessians of weights near 1e-310)
                d = d / -det / top
        else:
            # Numerically flat Hessian (all points saturated): steepest descent.
            d = -g / max(float(np.max(np.diag(H))) * top, 1e-300)
        if gmax <= _GTOL and step_tol is None and _settled(d, x, c1 + c0):
            if at is not None:
                at["precision"] = _step_and_noise(x, c1, c0, p, q, g, H * top)
            # the last Newton step, quadratically exact here: the gradient test alone left
            # probabilities 1e-12 off the optimum (3e-9 relative with mixed weights: attack 50 F5)
            return (theta + d if newton else theta), True
        decrement = -float(np.dot(g, d))
        if (step_tol is not None and gmax <= _GTOL_LOOSE
                and np.all(np.abs(d) <= step_tol * (1.0 + np.abs(theta)))):
            return theta + d, True
        if not decrement > 0 or np.all(np.abs(d) <= 1e-15 * (1.0 + np.abs(theta))):
            break  # at the limit of the precision
        if decrement <= _FULL_STEP_DECREMENT * min(1.0, loss):
            theta = theta + d
            loss = _mean_loss(theta[0] * x + theta[1], c1, c0)
            continue
        step = 1.0
        for _ in range(60):
            new = theta + step * d
            new_loss = _mean_loss(new[0] * x + new[1], c1, c0)
            if new_loss <= loss - _ARMIJO * step * decrement:
                break
            step *= 0.5
        else:
            break  # no representable decrease left
        if np.array_equal(new, theta):
            break
        theta, loss = new, new_loss
    # stopped at the limit of float64 precision: converged if the gradient is small (and,
    # for a refit, the Newton step there would not move theta either: a score whose loss
    # is below 1e-12 of the total, a target of 1e-308, leaves the gradient small far from
    # the optimum)
    if step_tol is None:
        return theta, not gmax > _GTOL_LOOSE and _settled(d, x, c1 + c0)
    return theta, not gmax > _GTOL_LOOSE and _small_step(d, theta)


def _settled(d, x, v) -> bool:
    """Whether the Newton step ``d`` moves no weighted score's logit by more than ``_LOGIT_TOL``.

    ``v`` are the scores' (scaled) weights: a score whose weight is lost to
    the scaling (below ``2**-1022`` of the largest) does not count.
    """
    return _largest_move(d, x, v) <= _LOGIT_TOL


def _small_step(d, theta) -> bool:
    return bool(np.all(np.abs(d) <= _SETTLED * (1.0 + np.abs(theta))))


def _log_class_sums(a, neg, targets):
    """``(log c1, log c0)`` per score from the unscaled class weights (no under- or overflow)."""
    with np.errstate(divide="ignore"):
        la, ln = np.log(a), np.log(neg)
        if targets is None:
            return la, ln
        off_pos, t_neg = targets
        return (
            np.logaddexp(la + math.log1p(-off_pos), ln + math.log(t_neg)),
            np.logaddexp(la + math.log(off_pos), ln + math.log1p(-t_neg)),
        )


def _fit_tails(x, c1, c0, a, neg, targets):
    """Refit from the weighted least-squares line through the scores' own logits.

    For the fits :func:`_fit_logit` leaves short of convergence: targets
    within ``1e-300`` of 0 or 1 (Platt's targets of a class of weight 1e308,
    and classes of weights 1e300 beside 1e-300 at one score).  Where each
    score's mean target ``t_j`` is inside (0, 1), the line through the
    logits ``log(c1_j / c0_j)`` (computed in logs, from the unscaled
    weights), weighted by ``c1_j c0_j / (c1_j + c0_j)`` (the curvature of
    the loss there) is the maximum-likelihood sigmoid when two scores
    carry weight, and close to it otherwise: Newton's method converges from
    it in a few steps, judged by the size of its step (the gradient of the
    mean loss is below what float64 resolves there).  Returns ``(theta,
    converged)``; not converged where a loss term ``c1_j`` or ``c0_j`` is
    subnormal or lost (then float64 cannot weigh it: the caller refuses).
    """
    l1, l0 = _log_class_sums(a, neg, targets)
    both = np.isfinite(l1) & np.isfinite(l0)
    if np.count_nonzero(both) < 2 or np.unique(x[both]).shape[0] < 2:
        return None, False
    logit = (l1 - l0)[both]
    if both.all() and x.shape[0] == 2:
        # two scores, each with both targets: the sigmoid through their logits is the MLE
        alpha = (logit[1] - logit[0]) / (x[1] - x[0])
        theta = np.array([alpha, logit[0] - alpha * x[0]])
        return theta, bool(np.isfinite(theta).all())
    lw = (l1 + l0 - np.logaddexp(l1, l0))[both]
    root = np.exp(0.5 * (lw - lw.max()))  # sqrt of the curvature weights, the largest 1
    design = np.column_stack((x[both], np.ones(logit.shape[0]))) * root[:, None]
    theta = np.linalg.lstsq(design, logit * root, rcond=None)[0]
    if not np.isfinite(theta).all() or _unresolved(c1, c0, l1, l0):
        return None, False
    return _fit_logit(x, c1, c0, theta, step_tol=_STEP_TOL)


def _unresolved(c1, c0, l1, l0) -> bool:
    """Whether a loss term is subnormal, or underflowed to 0 from a positive weight."""
    terms = np.concatenate((c1, c0))
    lost = np.concatenate(((c1 == 0) & np.isfinite(l1), (c0 == 0) & np.isfinite(l0)))
    return bool(lost.any() or ((terms > 0) & (terms < _NORMAL)).any())


def _scaled_weights(w, a, neg):
    """Return ``(pos, neg, e)``: the class weights times ``2**-e``, the largest near 1.

    The scaling is exact but for weights below ``2**-1022`` times the
    largest (negligible beside it), and no sum of the scaled weights
    overflows.
    """
    _, e = math.frexp(float(w.max()))
    return np.ldexp(a, -e), np.ldexp(neg, -e), e


def _negatives(w, a, b=None):
    """The negative weight at each score: ``w - a``, or ``b`` where ``w - a`` lost it.

    ``b`` are a summary's negative weights, summed on their own: ``w - a``
    loses a class of small weights beside a large one at one score (weights
    ``2**53`` and ``1`` of the two classes: ``w`` rounds to ``2**53`` and
    ``w - a`` to 0).  Where the two agree to ``2**-40`` of ``b`` (always on
    ordinary data), ``w - a`` is kept, as earlier versions computed it.
    """
    neg = np.maximum(w - a, 0.0)
    if b is None:
        return neg
    lost = np.abs(neg - b) > 2.0**-40 * b
    return np.where(lost, b, neg) if lost.any() else neg


def _inverse_plus_two(k_scaled, e):
    """``1 / (k + 2)`` for the total ``k = k_scaled * 2**e``, whatever its size."""
    k = math.ldexp(k_scaled, e) if e < 1000 else math.inf
    if math.isfinite(k):
        return 1.0 / (k + 2.0)
    return math.ldexp(1.0 / (k_scaled + math.ldexp(2.0, -e)), -e)
