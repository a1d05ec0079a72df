"""The shared core of the binary parametric calibrators: a logistic regression of the label
on a few features of the score, with optional sign constraints on the coefficients.

The objective is the weighted mean log loss (natural log) of
``sigmoid(x . theta + c)`` (:mod:`venncal._kernels.parametric_binary`),
convex in ``(theta, c)``.  It is minimised by :func:`~venncal._newton.minimize_convex`
(damped Newton) on standardised features: each feature centred at its
weighted mean (when there is an intercept) and divided by its weighted
standard deviation, so that the gradient tolerance is free of the scores'
unit.  Coefficients constrained to be ``>= 0`` are handled exactly: the
constrained minimum of a convex function is the unconstrained minimum on one
face of the orthant (some constrained coefficients fixed at 0), so the faces
are fitted in order of the number of fixed coefficients, and the first
minimum that is feasible and satisfies the optimality conditions of the
constrained problem (zero gradient in the free coordinates, a gradient
``>= -tol`` in the fixed ones) is the answer.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
from scipy.optimize import linprog
from scipy.special import expit

from .._kernels.parametric_binary import logistic_terms, logistic_value
from ._inputs import check_open_proba, clipped_log_sides, power_of_two_scale
from .._newton import minimize_convex

__all__ = [
    "LOGIT_TOL", "BinaryFit", "Separable", "check_open_proba", "fit_logistic", "largest_move",
    "lighter_share", "line_precision", "log_odds", "log_sides", "logit_precision",
    "scaled_class_weights", "step_and_noise",
]


class Separable(ValueError):
    """The likelihood has no maximum: a direction of the parameters separates the classes."""


#: The smallest ``share = 2 min(W1, W0) / W`` (the lighter class's share of the weight,
#: doubled) that is fitted: below it the class's gradient lies past float64's normal range.
MIN_SHARE = 2.0**-1022

#: A fit is converged only if the Newton step there moves no score's logit by more than
#: this (:func:`logit_precision`): the gradient of the mean loss is no measure when most of
#: the weight sits at one score (2**53 beside weights of 1: the other scores' terms are
#: 1e-16 of the loss, and a gradient below 1e-12 left Platt's logits off by 1e-2), nor when
#: the rows that bound the slope weigh 1e-37 of the rest (attack 35 F0).
LOGIT_TOL = 1e-6


class BinaryFit(NamedTuple):
    """A fitted logistic map of the features, in the features' own unit.

    ``coef`` (d,) and ``intercept``: ``logit(p) = X @ coef + intercept``.
    ``loss``: the weighted mean log loss.  ``grad``: the gradient of the mean
    loss in the standardised coordinates (features, then the intercept).
    ``grad_norm``: its largest absolute component over the free coordinates
    and of its negative part over coefficients held at 0 by a constraint,
    divided by ``share = 2 min(W1, W0) / W`` (the lighter class's share of
    the weight, doubled: 1 for balanced classes), so that the test is
    ``grad_norm <= tol`` at any class ratio.  ``why``: when not converged,
    the reason, in words that are true of the fit.
    """

    coef: np.ndarray
    intercept: float
    loss: float
    grad: np.ndarray
    grad_norm: float
    n_iter: int
    converged: bool
    why: str = ""


def lighter_share(c1: np.ndarray, c0: np.ndarray) -> tuple[float, float, float]:
    """``(share, light, total)``: ``share = min(1, 2 light / total)``, the lighter class's
    weight ``light`` doubled over the ``total``.

    The gradient of the mean loss is of the order of that share (a class of 1e-300 of the
    total gives gradients of 1e-300 at any map): the logistic fits' tolerance is relative
    to it (attack 17 F7), and 1 for balanced classes.
    """
    total = float(np.sum(c1 + c0))
    light = min(float(np.sum(c1)), float(np.sum(c0)))
    return min(1.0, 2.0 * light / total), light, total


def scaled_class_weights(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both classes' weights divided by one power of two near the largest (exact ratios)."""
    both = power_of_two_scale(np.concatenate([pos, neg]))
    n = pos.shape[0]
    return both[:n], both[n:]


def log_sides(q: np.ndarray, score: str, eps: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``(ln s, ln(1 - s))`` of scores ``q``: probabilities, or logits ``z`` (``s = sigmoid(z)``).

    For logits, ``ln s = -softplus(-z)`` and ``ln(1 - s) = -softplus(z)``,
    computed without overflow or cancellation (``eps`` is not used).
    Probabilities are clipped to ``[eps, 1 - eps]`` first
    (:func:`~venncal.parametric._inputs.clipped_log_sides`); with ``eps = 0``
    a probability 0 (or 1) gives ``ln s = -inf`` (``ln(1 - s) = -inf``).
    """
    if score == "logit":
        return -np.logaddexp(0.0, -q), -np.logaddexp(0.0, q)
    ls, l1s, _ = clipped_log_sides(q, eps)
    return ls, l1s


def log_odds(q: np.ndarray, score: str, eps: float = 0.0) -> np.ndarray:
    """The log-odds ``z`` of scores ``q``: logits as given, or ``ln s - ln(1 - s)`` of the
    probabilities clipped to ``[eps, 1 - eps]`` (±inf at 0, 1 when ``eps = 0``)."""
    if score == "logit":
        return q
    ls, l1s = log_sides(q, score, eps)
    return ls - l1s


def _standardise(X, v, total, intercept):
    """Return ``(mu, sd)`` per feature (weighted by ``v``); ``sd = 0`` for a constant feature."""
    d = X.shape[1]
    mu, sd = np.zeros(d), np.zeros(d)
    for j in range(d):
        x = X[:, j]
        # normalised weights first: sum(v x) overflows for scores near 1e308
        m = float(np.dot(v / total, x)) if intercept else 0.0
        dev = x - m
        spread = float(np.max(np.abs(dev))) if dev.size else 0.0
        if spread > 0.0 and np.isfinite(spread):
            sd[j] = spread * math.sqrt(float(np.dot(v, (dev / spread) ** 2)) / total)
        mu[j] = m
    return mu, sd


class _Problem:
    """The mean objective on standardised features, some coefficients fixed at 0."""

    def __init__(self, Z, c1, c0, total):
        self.Z, self.c1, self.c0, self.total = Z, c1, c0, total

    def sub(self, cols):
        if list(cols) == list(range(self.Z.shape[1])):
            return self
        return _Problem(np.ascontiguousarray(self.Z[:, cols]), self.c1, self.c0, self.total)

    def terms(self, theta):
        d = theta.shape[0]
        g, H = np.empty(d), np.empty((d, d))
        f = logistic_terms(self.Z, self.c1, self.c0, theta, g, H)
        return f / self.total, g / self.total, H / self.total

    def value(self, theta):
        return logistic_value(self.Z, self.c1, self.c0, theta) / self.total

    def short(self, theta, d) -> bool:
        """Whether the Newton step ``d`` moves no weighted row's logit by more than
        ``LOGIT_TOL``: the gradient, relative to the total weight, is no measure of the rows
        that weigh 1e-37 of it, though they alone may bound the fit (attack 35 F0)."""
        with np.errstate(over="ignore", invalid="ignore"):  # a step past the doubles is long
            move = np.abs(self.Z @ d)[(self.c1 + self.c0) > 0.0]
        return float(np.max(move, initial=0.0)) <= LOGIT_TOL


def fit_logistic(X, c1, c0, *, intercept: bool, nonneg, tol: float, max_iter: int,
                 polish: int = 0, settle: bool = False) -> BinaryFit:
    """Minimise the weighted mean log loss of ``sigmoid(X coef + intercept)``.

    ``X`` (n, d): finite features; ``c1``, ``c0``: the rows' positive and
    negative weights, already scaled (:func:`scaled_class_weights`), not
    both 0 on a row and each class present; ``nonneg``: d booleans, the
    coefficients constrained to be ``>= 0``.  A feature that is constant
    over the rows gets coefficient 0.  Raises :class:`Separable` when the
    likelihood has no maximum (checked by a linear program when the Newton
    search does not converge, or leaves a calibration row's logit past
    ``SEPARATED_LOGIT``).  ``polish`` and ``settle``: as in
    :func:`venncal._newton.minimize_convex`.
    """
    n, d = X.shape
    v = c1 + c0
    share, light, total = lighter_share(c1, c0)
    if not share >= MIN_SHARE:
        # the ratio as a power of two: it may underflow as a number
        held = (f"2**{math.log2(light) - math.log2(total):.1f}" if light > 0.0
                else "less than 2**-1074 (it rounds to 0 beside the largest weight)")
        raise ValueError(
            f"the lighter class holds {held} of the total weight, below 2**-1023: "
            "the gradient it sets lies past float64's normal range and cannot be resolved; "
            "rescale sample_weight to a narrower range"
        )
    gtol = tol * share
    mu, sd = _standardise(X, v, total, intercept)
    live = [j for j in range(d) if sd[j] > 0.0]
    cols = [(X[:, j] - mu[j]) / sd[j] if sd[j] > 0.0 else np.zeros(n) for j in range(d)]
    if intercept:
        cols.append(np.ones(n))
    Z = np.ascontiguousarray(np.column_stack(cols)) if cols else np.zeros((n, 0))
    full = _Problem(Z, c1, c0, total)
    constrained = [j for j in live if nonneg[j]]
    faces = [fixed for k in range(len(constrained) + 1)
             for fixed in itertools.combinations(constrained, k)]
    start_c = math.log(float(c1.sum())) - math.log(float(c0.sum()))
    tried = []
    for fixed in faces:
        free = [j for j in live if j not in fixed] + ([d] if intercept else [])
        x0 = np.zeros(len(free))
        if intercept:
            x0[-1] = start_c
        face = full.sub(free)
        m = minimize_convex(face.terms, x0, value=face.value, tol=gtol, max_iter=max_iter,
                             polish=polish, settle=settle, short=face.short)
        theta = np.zeros(Z.shape[1])
        theta[free] = m.x
        f, g, _ = full.terms(theta)
        feasible = all(theta[j] >= 0.0 for j in constrained)
        held = [j for j in range(Z.shape[1]) if j not in free]
        kkt = max([float(np.max(np.abs(g[free]))) if free else 0.0]
                  + [max(0.0, -float(g[j])) for j in held if j in constrained])
        tried.append((feasible, m.converged, f, theta, g, kkt, m.n_iter, m.grad_norm <= gtol))
        if feasible and m.converged and kkt <= gtol:
            break
    else:
        if any(not t[1] for t in tried) and _separable(Z, c1, c0, constrained):
            raise Separable(
                "the likelihood has no maximum: a direction of the parameters separates the "
                "two classes of the calibration scores (the fitted map would tend to a step "
                "from 0 to 1)"
            )
    feasible = [t for t in tried if t[0]]
    best = min(feasible, key=lambda t: t[2]) if feasible else tried[-1]
    _, ok, f, theta, g, kkt, it, small = best
    # A "converged" search on quasi-separated rows: the loss reached its infimum to the last
    # digit along the separating ray, with the separated rows' logits past 25 (attack 48 F6:
    # weights [9, 5, 5, 6] fitted, the same times 10 refused); checked, whatever the scale
    with np.errstate(over="ignore", invalid="ignore"):  # (huge theta: past 25 too)
        far = not np.max(np.abs(Z[v > 0] @ theta), initial=0.0) <= SEPARATED_LOGIT
    if far and _separable(Z, c1, c0, constrained):
        raise Separable(
            "the likelihood has no maximum: a direction of the parameters separates the "
            "two classes of the calibration scores (the fitted map would tend to a step "
            "from 0 to 1)"
        )
    coef = np.zeros(d)
    with np.errstate(over="ignore", invalid="ignore"):
        for j in live:
            coef[j] = theta[j] / sd[j]
        c = float(theta[d]) - float(sum(theta[j] * (mu[j] / sd[j]) for j in live)) if intercept else 0.0
    if not (np.isfinite(coef).all() and np.isfinite(c)):
        raise ValueError(
            "a fitted coefficient is beyond the float64 range: the scores' features spread "
            f"over too small a range (standard deviations {sd.tolist()!r}); multiply the "
            "scores by a positive constant first"
        )
    iters = sum(t[6] for t in tried)
    converged = bool(ok and kkt <= gtol)
    norm = float(kkt) / share
    why = "" if converged else _why(ok, small, it, max_iter, norm, tol)
    return BinaryFit(coef + 0.0, c + 0.0, float(f), g, norm, int(iters), converged, why)


#: A fit with a calibration row's logit past this is checked for (quasi-)separation.
SEPARATED_LOGIT = 25.0


def _why(ok, small, it, max_iter, norm, tol) -> str:
    """Why the chosen face's fit did not converge, in words true of it.

    ``ok``: the face's search converged; ``small``: its gradient met the
    tolerance; ``norm``: the scaled optimality violation (``grad_norm``).
    """
    if (ok or small) and norm > tol:
        return (f"the search met tol on its face, but the constrained optimality conditions "
                f"fail there (violation {norm:.3g} > tol={tol:g})")
    if ok or small:
        return (f"the gradient norm, {norm:.3g}, is within tol={tol:g}, but the Newton step "
                "there is still long: along some direction the likelihood is nearly flat "
                "(only rows of small weight curve it) or keeps falling")
    if it >= max_iter:
        return (f"max_iter={max_iter} Newton steps per face left the gradient norm at "
                f"{norm:.3g} > tol={tol:g}")
    return ("no step lowered the loss or the gradient any further (the limit of float64 "
            f"precision), with the gradient norm at {norm:.3g} > tol={tol:g}")


def _separable(Z, c1, c0, constrained) -> bool:
    """Whether a nonzero direction ``t`` has ``z.t >= 0`` on positives, ``<= 0`` on negatives.

    A linear program over ``t`` in a box (constrained coordinates ``>= 0``)
    maximising the total margin; a positive maximum is a (quasi-)separating
    direction, along which the log loss falls toward its infimum without
    reaching it.
    """
    d = Z.shape[1]
    if d == 0:
        return False
    pos, neg = Z[c1 > 0], Z[c0 > 0]
    A = np.vstack([-pos, neg])
    objective = neg.sum(axis=0) - pos.sum(axis=0)  # minimised: minus the total margin
    bounds = [(0.0, 1.0) if j in constrained else (-1.0, 1.0) for j in range(d)]
    res = linprog(objective, A_ub=A, b_ub=np.zeros(A.shape[0]), bounds=bounds, method="highs")
    return bool(res.status == 0 and -res.fun > 1e-8 * max(1, A.shape[0]))


def largest_move(d, x, v) -> float:
    """The largest ``|d[0] x + d[1]|`` over the rows of positive weight ``v``: how far the
    step ``d`` of (slope, intercept) on the feature ``x`` moves a weighted row's logit."""
    move = np.abs(d[0] * x + d[1])
    if not (v > 0).all():
        move = move[v > 0]
    return float(np.max(move, initial=0.0))


def logit_precision(x, c1, c0, theta):
    """Return ``(step, noise)`` at ``theta``: how far float64 leaves the logits from the MLE.

    See :func:`step_and_noise`.
    """
    u = theta[0] * x + theta[1]
    p = expit(u)
    q = expit(-u)
    r = c0 * p - c1 * q
    h = (c1 + c0) * p * q
    hx = h * x
    H = np.array([[np.dot(hx, x), hx.sum()], [hx.sum(), h.sum()]])
    return step_and_noise(x, c1, c0, p, q, np.array([np.dot(r, x), r.sum()]), H)


def line_precision(x, c1, c0, slope, offset):
    """``(step, noise)`` of :func:`logit_precision` at the line ``offset + slope x`` of a
    feature ``x`` in its own unit (standardized here by the weights ``c1 + c0``)."""
    total = float(np.sum(c1 + c0))
    c1, c0 = c1 / total, c0 / total
    center = float(np.dot(c1 + c0, x))
    dev = x - center
    spread = float(np.max(np.abs(dev)))
    scale = spread * math.sqrt(float(np.dot(c1 + c0, (dev / spread) ** 2)))
    theta = np.array([slope * scale, offset + slope * center])
    return logit_precision(dev / scale, c1, c0, theta)


def step_and_noise(x, c1, c0, p, q, g, H):
    """``(step, noise)`` from the probabilities ``p``, ``q = 1 - p``, gradient and Hessian.

    ``step``: the largest change of a (weighted) calibration score's logit by the Newton
    step (about its distance to the optimum).  ``noise``: the same for a
    step of the gradient's rounding errors alone (a bound: each term of the
    gradient to four units in its last place), the precision to which
    float64 determines the fit.  Both are ``inf`` for a singular Hessian.
    """
    top = float(np.max(np.abs(H)))
    if not top > 0:
        return math.inf, math.inf
    top = math.ldexp(1.0, math.frexp(top)[1])  # a power of two: exact
    H = H / top
    det = H[0, 0] * H[1, 1] - H[0, 1] * H[1, 0]
    if not (det > 0 and np.isfinite(det)):
        return math.inf, math.inf
    with np.errstate(over="ignore"):  # det * top below the float64 range: numerically singular
        inv = np.array([[H[1, 1], -H[0, 1]], [-H[1, 0], H[0, 0]]]) / (det * top)
    if not np.isfinite(inv).all():
        return math.inf, math.inf
    m = c0 * p + c1 * q  # the size of each gradient term before it cancels
    ax = np.abs(x)
    err = 4.0 * 2.0**-53 * np.array([np.dot(m, ax), m.sum()])
    v = c1 + c0
    return largest_move(-(inv @ g), x, v), largest_move(np.abs(inv) @ err, ax, v)
