"""Platt scaling: a sigmoid of the score fitted by maximum likelihood."""

from __future__ import annotations

import math
import warnings
from typing import ClassVar

import numpy as np
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning

from .._base import ScoreCalibrator, check_float_numbers
from .._docs import fill
from .._validation import Options, check_scores

__all__ = ["PlattCalibrator"]

TARGETS = ("platt", "labels")
SCORES = ("logit", "proba")

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


def _fit_logit(x, c1, c0, theta=None, step_tol=None):
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
        if gmax <= _GTOL and step_tol is None:
            return theta, True
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
        if det > 0 and np.isfinite(det):
            d = np.array([H[1, 1] * g[0] - H[0, 1] * g[1], H[0, 0] * g[1] - H[1, 0] * g[0]])
            d /= -det * top
        else:
            # Numerically flat Hessian (all points saturated): steepest descent.
            d = -g / max(float(np.max(np.diag(H))) * top, 1e-300)
        decrement = -float(np.dot(g, d))
        if (step_tol is not None and gmax <= _GTOL_LOOSE
                and np.all(np.abs(d) <= step_tol * (1.0 + np.abs(theta)))):
            return theta + d, True
        if not decrement > 0 or np.all(np.abs(d) <= 1e-15 * (1.0 + np.abs(theta))):
            break  # at the limit of the precision
        if decrement <= _FULL_STEP_DECREMENT:
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
        return theta, not gmax > _GTOL_LOOSE
    return theta, not gmax > _GTOL_LOOSE and _small_step(d, theta)


def _small_step(d, theta) -> bool:
    return bool(np.all(np.abs(d) <= _SETTLED * (1.0 + np.abs(theta))))


def _log_class_sums(w, a, targets):
    """``(log c1, log c0)`` per score from the unscaled weights (no under- or overflow)."""
    neg = np.maximum(w - a, 0.0)
    with np.errstate(divide="ignore"):
        la, ln = np.log(a), np.log(neg)
        if targets is None:
            return la, ln
        off_pos, t_neg = targets
        return (
            np.logaddexp(la + math.log1p(-off_pos), ln + math.log(t_neg)),
            np.logaddexp(la + math.log(off_pos), ln + math.log1p(-t_neg)),
        )


def _fit_tails(x, c1, c0, w, a, targets):
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
    l1, l0 = _log_class_sums(w, a, targets)
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


def _scaled_weights(w, a):
    """Return ``(pos, neg, e)``: the class weights times ``2**-e``, the largest near 1.

    The scaling is exact but for weights below ``2**-1022`` times the
    largest (negligible beside it), and no sum of the scaled weights
    overflows.
    """
    _, e = math.frexp(float(w.max()))
    pos = np.ldexp(a, -e)
    return pos, np.maximum(np.ldexp(w, -e) - pos, 0.0), e


def _inverse_plus_two(k_scaled, e):
    """``1 / (k + 2)`` for the total ``k = k_scaled * 2**e``, whatever its size."""
    k = math.ldexp(k_scaled, e) if e < 1000 else math.inf
    if math.isfinite(k):
        return 1.0 / (k + 2.0)
    return math.ldexp(1.0 / (k_scaled + math.ldexp(2.0, -e)), -e)


@fill
class PlattCalibrator(ScoreCalibrator):
    """Platt scaling: a sigmoid of the score, fitted by maximum likelihood.

    The calibrated probability of ``classes_[1]`` at score ``s`` is
    ``1 / (1 + exp(a_ * s + b_))`` (Platt 1999; Vovk, Petej & Fedorova 2015, section 5.1),
    with ``a_`` and ``b_`` minimizing the (weighted) cross-entropy between
    the sigmoid and targets ``t_i``:

        - sum_i w_i (t_i log p_i + (1 - t_i) log(1 - p_i))

    Parameters
    ----------
    targets : {"platt", "labels"}, default="platt"
        ``"platt"``: Platt's regularized targets ``t+ = (k+ + 1)/(k+ + 2)``
        for the positive observations and ``t- = 1/(k- + 2)`` for the
        negative ones, where ``k+`` and ``k-`` are the total weights of the
        two classes (Vovk, Petej & Fedorova 2015, eqs. (5)-(7); the same targets as
        scikit-learn's ``CalibratedClassifierCV(method="sigmoid")``).
        ``"labels"``: the labels themselves (plain maximum likelihood, i.e.
        logistic regression on the score).
    score : {"logit", "proba"}, default="logit"
        What the sigmoid is a function of.  ``"logit"``: the raw scores as
        given (any finite reals, e.g. a decision function or logits; the
        behaviour of earlier versions).  ``"proba"``: probabilities ``p``,
        replaced by their log-odds ``ln p - ln(1 - p)`` first (Platt scaling
        on logits); when fitting they must lie strictly inside (0, 1)
        (``ValueError`` otherwise); at prediction 0 and 1 are log-odds
        ``-inf`` and ``+inf``, mapped to the sigmoid's limits (0 or 1, or
        ``1 / (1 + exp(b_))`` when ``a_ = 0``).  ``a_`` and ``b_`` are then
        the slope and intercept on the log-odds.
    {classes}

    Attributes
    ----------
    {classes_}
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
    scikit-learn) rescaling all weights changes the targets slightly, and
    weights that sum to less than half the number of rows get a
    :class:`~venncal.WeightScaleWarning`.  Weights of any finite size work:
    the loss is computed on the weights divided by a power of two, and the
    targets are kept as ``1/(k+ + 2)`` and ``1/(k- + 2)`` (never as ``1 - t``),
    so a target within ``2**-53`` of 1 keeps its distance to 1.

    With ``targets="platt"`` the minimizer always exists (the targets are
    strictly inside ``(0, 1)``), so ``a_`` and ``b_`` are finite even for
    separable data.  The predictions are nevertheless not confined to
    ``[1/(k- + 2), (k+ + 1)/(k+ + 2)]`` as Vovk, Petej & Fedorova 2015, eq. (8) suggests: the
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

    def __init__(self, *, targets="platt", score="logit", classes=None):
        self.targets = targets
        self.score = score
        self.classes = classes

    _state = ("a_", "b_")
    # A sigmoid of the score: the decision function (a logit for linear models) first,
    # as Platt (1999) and scikit-learn's CalibratedClassifierCV.
    _response_methods: ClassVar[tuple[str, ...]] = ("decision_function", "predict_proba")
    _parameter_constraints: ClassVar[dict] = {
        "targets": [Options(TARGETS)], "score": [Options(SCORES)],
    }
    #: Parameters added after model format version 2, with the value that reproduces the
    #: earlier behaviour: a saved model may leave them out at that value (files written
    #: before they existed load as that value, and re-save byte for byte).
    _params_added: ClassVar[dict] = {"score": "logit"}

    def _weight_total_depends(self):
        if self.targets == "platt":
            return "Platt's targets (k+ + 1)/(k+ + 2) and 1/(k- + 2)"
        return None  # maximum likelihood is the same for any scale of the weights

    def _fit_sums(self, s, w, a):
        if self.score == "proba":
            s = _log_odds(s, fitting=True)
        pos, neg, e = _scaled_weights(w, a)
        _check_no_score_vanishes(s, w, pos + neg)
        targets = None
        if self.targets == "platt":
            # 1 - t+ = 1/(k+ + 2) and t- = 1/(k- + 2), from the scaled totals:
            # no overflow, and no 1 - t that would round t+ near 1 to 1.
            off_pos = _inverse_plus_two(float(pos.sum()), e)  # 1 - t+
            t_neg = _inverse_plus_two(float(neg.sum()), e)
            targets = (off_pos, t_neg)
            # The loss is affine in the target, so the observations at one
            # score act as one point with their weighted mean target.
            c1 = pos * (1.0 - off_pos) + neg * t_neg
            c0 = pos * off_pos + neg * (1.0 - t_neg)
        else:
            _check_labels_have_mle(s, a, w - a)
            try:
                if s.shape[0] > 1:  # one score: the intercept, from the unscaled weights
                    _check_labels_have_mle(s, pos, neg)
            except ValueError:
                raise ValueError(
                    "PlattCalibrator: sample_weight spans more than 2**1022 (from "
                    f"{float(w.min()):.3g} to {float(w.max()):.3g}) and with targets='labels' "
                    "the maximum-likelihood sigmoid exists only through the weights below "
                    "2**-1022 times the largest, which float64 cannot weigh beside the others; "
                    "rescale or drop the smallest weights, or use targets='platt'"
                ) from None
            c1, c0 = pos, neg
        total = float(c1.sum() + c0.sum())
        c1, c0 = c1 / total, c0 / total

        v = c1 + c0
        center = float(np.dot(v, s))
        with np.errstate(over="ignore"):
            dev = s - center
        # scores of both signs near 1.8e308: work with their halves (k), exactly
        k = 1.0 if np.isfinite(dev).all() else 0.5
        if k != 1.0:
            dev = s * k - center * k
        spread = float(np.max(np.abs(dev)))
        scale = spread * np.sqrt(float(np.dot(v, (dev / spread) ** 2))) if spread > 0 else 0.0
        if not scale > 0:
            # A single distinct score: only the intercept is identified, the weighted
            # MLE of a constant, b = log(c0) - log(c1), in logs of the unscaled weights
            # (1e-300 beside 1e300 underflows once scaled, and gave b = -inf).
            self._fit_constant(c1, c0, float(w[0]), float(a[0]), targets)
            return
        if targets is not None and (not (a > 0).any() or not (w > a).any()):
            # A single class: every target is the same, so the MLE is that constant, a = 0
            # (Newton's method could be led astray by the targets of weights below 2**-1022
            # of the largest, rounded to 0 once scaled: a = -2838 for weights 0.5 and 1e308)
            self._fit_constant(c1, c0, 1.0, 1.0 if (a > 0).any() else 0.0, targets)
            return
        x = dev / scale
        theta, converged = _fit_logit(x, c1, c0)
        if not converged:  # from the logits' line, else on from there, judged by the step
            retry, converged = _fit_tails(x, c1, c0, w, a, targets)
            if not converged:
                retry, converged = _fit_logit(x, c1, c0, theta, step_tol=_STEP_TOL)
            theta = retry
            l1, l0 = _log_class_sums(w, a, targets)
            if not converged and _unresolved(c1, c0, l1, l0):
                raise ValueError(
                    f"PlattCalibrator: sample_weight spans from {float(w.min()):.3g} to "
                    f"{float(w.max()):.3g}, so that the loss of some scores (their weight "
                    "times a target within 1e-300 of 0 or 1) falls below 2**-1022 of the "
                    "total, where float64 cannot weigh it and Newton's method does not "
                    "converge; rescale the weights into a narrower range or drop the smallest"
                )
        if not converged:
            warnings.warn(
                "Platt scaling stopped short of convergence (no further progress in float64 "
                f"precision, or {_MAX_ITER} Newton iterations); the fit may be inaccurate",
                ConvergenceWarning,
                stacklevel=4,
            )
        alpha, beta = theta
        # logit(p) = alpha * (s - center) / scale + beta = -(A s + B)
        # (with halves, the scale of the scores themselves is scale / k)
        with np.errstate(over="ignore", invalid="ignore"):
            a = float(-alpha / scale * k) + 0.0  # + 0.0 turns -0.0 into 0.0
            b = float(alpha * (center * k) / scale - beta)
            if not np.isfinite(b):  # scores near the float64 range: center / scale first
                b = float(alpha * (center * k / scale) - beta)
        if not (np.isfinite(a) and np.isfinite(b)):
            # scores spread over so little (subnormal scores) that the slope passes 1.8e308
            raise ValueError(
                f"PlattCalibrator: the fitted sigmoid's slope A = {-alpha:.6g} / "
                f"{float(scale):.6g} is beyond the float64 range: the scores spread over too "
                "small a range; "
                "multiply them by a positive constant first (Platt scaling is equivariant: "
                "A scales by its inverse)"
            )
        self.a_, self.b_ = a, b + 0.0

    def _fit_constant(self, c1, c0, w, a, targets):
        """Set ``a_ = 0`` and ``b_ = log(c0) - log(c1)``, from the unscaled ``w``, ``a`` if tiny."""
        self.a_ = 0.0
        c0_sum, c1_sum = float(c0.sum()), float(c1.sum())
        if min(c0_sum, c1_sum) >= _NORMAL:  # the common case, as always computed
            self.b_ = math.log(c0_sum) - math.log(c1_sum) + 0.0
        else:
            self.b_ = _constant_intercept(w, a, targets)

    def _check_state(self):
        """Raise ``ValueError`` unless ``a_`` and ``b_`` are finite floats (any are possible)."""
        super()._check_state()
        check_float_numbers(self, ("a_", "b_"))

    def _check_test_scores(self, scores):
        q = check_scores(scores)
        return q if self.score == "logit" else _log_odds(q, fitting=False)

    def _predict_p(self, q):
        # a_ * q past the float64 range is +-inf: the sigmoid's limit, 0 or 1;
        # a log-odds of +-inf (a probability 1 or 0) with a_ = 0 leaves b_.
        with np.errstate(over="ignore", invalid="ignore"):
            u = self.a_ * q + self.b_
        if self.a_ == 0.0:
            u = np.where(np.isnan(u), self.b_, u)
        return expit(-u)


def _log_odds(p: np.ndarray, *, fitting: bool) -> np.ndarray:
    """``ln p - ln(1 - p)`` of probability scores (``score="proba"``); 0 and 1 refused when fitting."""
    bad = ~((p > 0.0) & (p < 1.0)) if fitting else ~((p >= 0.0) & (p <= 1.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        rule = "strictly between 0 and 1 to fit" if fitting else "in [0, 1]"
        raise ValueError(
            f"PlattCalibrator: with score='proba' the scores must be probabilities {rule}; "
            f"found {int(bad.sum())} outside, the first at index {i} ({float(p[i])!r})"
            + ("; pass score='logit' with the model's logits, or clip the probabilities"
               if fitting else "")
        )
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log1p(-p)


def _log_sum(pairs):
    """``log(sum x * y)`` over pairs of non-negative floats, without under- or overflow."""
    logs = [math.log(x) + math.log(y) for x, y in pairs if x > 0 and y > 0]
    return float(np.logaddexp.reduce(logs)) if logs else -math.inf


def _constant_intercept(w: float, a: float, platt) -> float:
    """``B`` of the constant sigmoid at one score: ``log`` of the weighted odds against.

    ``w`` and ``a`` are the score's total and positive weight; ``platt`` is
    ``(1 - t+, t-)`` for Platt's targets, else None (the labels).
    """
    neg = w - a
    if platt is None:
        c1, c0 = _log_sum([(a, 1.0)]), _log_sum([(neg, 1.0)])
    else:
        off_pos, t_neg = platt
        c1 = _log_sum([(a, 1.0 - off_pos), (neg, t_neg)])
        c0 = _log_sum([(a, off_pos), (neg, 1.0 - t_neg)])
    return float(c0 - c1) + 0.0


def _check_no_score_vanishes(s, w, scaled):
    """Raise if weights below ``2**-1022`` times the largest hold the only other scores.

    Such weights vanish from the loss, which is computed on the weights
    divided by a power of two near the largest: where other scores remain
    that is a change of the answer below ``2**-1022`` (relative), but where
    only one distinct score would remain the slope is decided by the
    vanished rows alone and the fit would return a constant sigmoid, silently
    ignoring them.
    """
    kept = scaled > 0
    if s.shape[0] > 1 and np.count_nonzero(kept) == 1 and not kept.all():
        raise ValueError(
            f"PlattCalibrator: sample_weight spans more than 2**1022 (from {float(w.min()):.3g} "
            f"to {float(w.max()):.3g}) and every score but {float(s[kept][0])!r} has weight "
            "below 2**-1022 times the largest: the slope is decided by those rows alone, "
            "which float64 cannot weigh beside the others; rescale or drop the smallest weights"
        )


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
