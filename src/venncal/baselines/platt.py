"""Platt scaling: a sigmoid of the score fitted by maximum likelihood."""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning

from .._base import ScoreCalibrator, check_float_numbers
from .._validation import Options

__all__ = ["PlattCalibrator"]

TARGETS = ("platt", "labels")

# Newton's method in standardized coordinates, on the mean loss: the gradient
# is of order one at the start, so these tolerances are relative.
_GTOL = 1e-12
_MAX_ITER = 100
_ARMIJO = 1e-4
# Below this Newton decrement the quadratic model is exact to rounding and the
# full step is taken without a line search (the loss can no longer resolve the
# decrease, so an Armijo test would reject good steps).
_FULL_STEP_DECREMENT = 1e-10


def _softplus(z):
    return np.logaddexp(0.0, z)


def _mean_loss(u, t, v):
    """Weighted cross-entropy of targets ``t`` against ``p = expit(u)``.

    Written as a sum of two non-negative terms so nothing cancels, whatever
    the size of ``u``.
    """
    return float(np.dot(v, t * _softplus(-u) + (1.0 - t) * _softplus(u)))


def _fit_logit(x, t, v):
    """Minimize ``sum v * xent(t, expit(alpha * x + beta))`` over ``(alpha, beta)``.

    ``x`` is standardized, ``v > 0`` sums to one and ``0 <= t <= 1`` is such
    that a finite minimizer exists (the caller checks).  Damped Newton's
    method with a backtracking line search; the loss is convex, so it
    converges from anywhere, quadratically near the minimum.
    """
    tbar = float(np.dot(v, t))
    # The optimum over beta alone (alpha = 0): a good, always finite start.
    theta = np.array([0.0, np.log(tbar) - np.log1p(-tbar)])
    loss = _mean_loss(theta[0] * x + theta[1], t, v)
    gmax = np.inf
    for _ in range(_MAX_ITER):
        u = theta[0] * x + theta[1]
        p = expit(u)
        r = v * (p - t)
        g = np.array([np.dot(r, x), r.sum()])
        gmax = float(np.max(np.abs(g)))
        if gmax <= _GTOL:
            return theta
        # p * (1 - p) without cancellation when p is near 1.
        h = v * p * expit(-u)
        hx = h * x
        H = np.array([[np.dot(hx, x), hx.sum()], [hx.sum(), h.sum()]])
        det = H[0, 0] * H[1, 1] - H[0, 1] * H[1, 0]
        if det > 0 and np.isfinite(det):
            d = np.array([H[1, 1] * g[0] - H[0, 1] * g[1], H[0, 0] * g[1] - H[1, 0] * g[0]])
            d /= -det
        else:
            # Numerically flat Hessian (all points saturated): steepest descent.
            d = -g / max(float(np.max(np.diag(H))), 1e-300)
        decrement = -float(np.dot(g, d))
        if not decrement > 0 or np.all(np.abs(d) <= 1e-15 * (1.0 + np.abs(theta))):
            break  # at the limit of the precision
        if decrement <= _FULL_STEP_DECREMENT:
            theta = theta + d
            loss = _mean_loss(theta[0] * x + theta[1], t, v)
            continue
        step = 1.0
        for _ in range(60):
            new = theta + step * d
            new_loss = _mean_loss(new[0] * x + new[1], t, v)
            if new_loss <= loss - _ARMIJO * step * decrement:
                break
            step *= 0.5
        else:
            break  # no representable decrease left
        if np.array_equal(new, theta):
            break
        theta, loss = new, new_loss
    if gmax > 1e-8:
        warnings.warn(
            f"Platt scaling stopped with gradient {gmax:.3g} (no further progress in float64 "
            f"precision, or {_MAX_ITER} Newton iterations); the fit may be inaccurate",
            ConvergenceWarning,
            stacklevel=4,
        )
    return theta


class PlattCalibrator(ScoreCalibrator):
    """Platt scaling: a sigmoid of the score, fitted by maximum likelihood.

    The calibrated probability of ``classes_[1]`` at score ``s`` is
    ``1 / (1 + exp(a_ * s + b_))`` (Platt 1999; paper 000, section 5.1),
    with ``a_`` and ``b_`` minimizing the (weighted) cross-entropy between
    the sigmoid and targets ``t_i``:

        - sum_i w_i (t_i log p_i + (1 - t_i) log(1 - p_i))

    Parameters
    ----------
    targets : {"platt", "labels"}, default="platt"
        ``"platt"``: Platt's regularized targets ``t+ = (k+ + 1)/(k+ + 2)``
        for the positive observations and ``t- = 1/(k- + 2)`` for the
        negative ones, where ``k+`` and ``k-`` are the total weights of the
        two classes (paper 000, eqs. (5)-(7); the same targets as
        scikit-learn's ``CalibratedClassifierCV(method="sigmoid")``).
        ``"labels"``: the labels themselves (plain maximum likelihood, i.e.
        logistic regression on the score).
    classes : array-like of shape (2,), default=None
        The two labels, ``[negative, positive]``, in that order.  By default
        they are the observed labels sorted (the larger is the positive
        class); needed when the calibration labels show a single class
        other than 0 or 1.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels, ``[negative, positive]`` (``classes`` when given, else
        sorted); probabilities are those of ``classes_[1]``.
    a_ : float
        Slope ``A`` of the sigmoid (negative when higher scores mean more
        likely ``classes_[1]``).
    b_ : float
        Intercept ``B`` of the sigmoid.

    Notes
    -----
    The fit depends on the data only through the score summary, and is exact
    to rounding: Newton's method with a backtracking line search on
    internally standardized scores, stopped when the gradient of the mean
    loss is below 1e-12.  Sample weights are frequency weights; with
    ``targets="platt"`` they also enter ``k+`` and ``k-``, so (as in
    scikit-learn) rescaling all weights changes the targets slightly.

    With ``targets="platt"`` the minimizer always exists (the targets are
    strictly inside ``(0, 1)``), so ``a_`` and ``b_`` are finite even for
    separable data.  The predictions are nevertheless not confined to
    ``[1/(k- + 2), (k+ + 1)/(k+ + 2)]`` as paper 000, eq. (8) suggests: the
    fitted sigmoid can leave that range even at calibration scores, and it
    tends to 0 and 1 far from them (unless ``a_ = 0``).  If the calibration
    labels show a single class the
    targets are all equal, so ``a_ = 0`` and the prediction is that target
    everywhere: ``1/(k- + 2)`` when all labels are negative,
    ``(k+ + 1)/(k+ + 2)`` when all are positive.  If every calibration score
    is the same, ``a_ = 0`` and the prediction is the weighted mean target.

    With ``targets="labels"`` the maximum-likelihood sigmoid does not exist
    when the classes are separated by a threshold (including a single
    class, and ties only at the threshold): ``|a_|`` or ``|b_|`` would grow
    without bound.  Fitting then raises ``ValueError``.

    References
    ----------
    J. Platt. Probabilistic outputs for support vector machines and
    comparisons to regularized likelihood methods. Advances in Large Margin
    Classifiers, 1999.

    Examples
    --------
    >>> from venncal.baselines import PlattCalibrator
    >>> cal = PlattCalibrator().fit([-2.0, -1.0, 0.5, 1.0, 3.0], [0, 1, 0, 1, 1])
    >>> round(cal.a_, 4), round(cal.b_, 4)
    (-0.3411, -0.2505)
    >>> cal.predict_proba([-1.0, 0.0, 2.0])[:, 1].round(4)
    array([0.4774, 0.5623, 0.7176])
    """

    def __init__(self, *, targets="platt", classes=None):
        self.targets = targets
        self.classes = classes

    _state = ("a_", "b_")
    # A sigmoid of the score: the decision function (a logit for linear models) first,
    # as Platt (1999) and scikit-learn's CalibratedClassifierCV.
    _response_methods: ClassVar[tuple[str, ...]] = ("decision_function", "predict_proba")
    _parameter_constraints: ClassVar[dict] = {"targets": [Options(TARGETS)]}

    def _fit_sums(self, s, w, a):
        neg = w - a
        k_pos = float(a.sum())
        k_neg = float(neg.sum())
        if self.targets == "platt":
            t_pos = (k_pos + 1.0) / (k_pos + 2.0)
            t_neg = 1.0 / (k_neg + 2.0)
            # The loss is affine in the target, so the observations at one
            # score act as one point with their weighted mean target.
            t = (a * t_pos + neg * t_neg) / w
        else:
            _check_labels_have_mle(s, a, neg)
            t = a / w
        t = np.clip(t, 0.0, 1.0)
        v = w / w.sum()

        center = float(np.dot(v, s))
        dev = s - center
        spread = float(np.max(np.abs(dev)))
        scale = spread * np.sqrt(float(np.dot(v, (dev / spread) ** 2))) if spread > 0 else 0.0
        if not scale > 0:
            # A single distinct score: only the intercept is identified.
            tbar = float(np.dot(v, t))
            self.a_ = 0.0
            self.b_ = float(np.log1p(-tbar) - np.log(tbar)) + 0.0
            return
        alpha, beta = _fit_logit(dev / scale, t, v)
        # logit(p) = alpha * (s - center) / scale + beta = -(A s + B)
        self.a_ = float(-alpha / scale) + 0.0  # + 0.0 turns -0.0 into 0.0
        self.b_ = float(alpha * center / scale - beta) + 0.0

    def _check_state(self):
        """Raise ``ValueError`` unless ``a_`` and ``b_`` are finite floats (any are possible)."""
        super()._check_state()
        check_float_numbers(self, ("a_", "b_"))

    def _predict_p(self, q):
        return expit(-(self.a_ * q + self.b_))


def _check_labels_have_mle(s, a, neg):
    """Raise if plain maximum likelihood has no finite solution."""
    has_pos = a > 0
    has_neg = neg > 0
    if not has_pos.any() or not has_neg.any():
        raise ValueError(
            "with targets='labels' the calibration labels must show both classes: for a "
            "single class the maximum-likelihood sigmoid does not exist (it tends to a "
            "constant 0 or 1); use targets='platt'"
        )
    if s.shape[0] == 1:
        return
    pos_s, neg_s = s[has_pos], s[has_neg]
    if neg_s[-1] <= pos_s[0] or pos_s[-1] <= neg_s[0]:
        raise ValueError(
            "with targets='labels' the maximum-likelihood sigmoid does not exist: a threshold "
            "separates the two classes of the calibration scores, so the slope grows without "
            "bound; use targets='platt' (regularized targets)"
        )
