"""Platt scaling: a sigmoid of the score fitted by maximum likelihood."""

from __future__ import annotations

import math
import warnings
from typing import ClassVar

import numpy as np
from scipy.special import expit, log_expit
from sklearn.exceptions import ConvergenceWarning

from .. import _wide as wide
from .._base import ScoreCalibrator, check_float_numbers
from .._kernels.dd import two_prod, two_sum
from .._docs import fill
from .._validation import Options, check_scores
from ..parametric._inputs import (
    EPS,
    EPS_CONSTRAINT,
    ProbaFitScores,
    check_open_proba,
    clipped_log_sides,
    clipped_weight,
)
from ..parametric._binary import logit_precision as _precision
from ._platt_newton import (
    _LOGIT_TOL,
    _MAX_ITER,
    _NORMAL,
    _STEP_TOL,
    _fit_logit,
    _fit_tails,
    _inverse_plus_two,
    _log_class_sums,
    _negatives,
    _scaled_weights,
    _unresolved,
)

__all__ = ["PlattCalibrator"]

TARGETS = ("platt", "labels")
SCORES = ("logit", "proba")


@fill
class PlattCalibrator(ProbaFitScores, ScoreCalibrator):
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
        behaviour of earlier versions).  ``"proba"``: probabilities ``p`` in
        [0, 1], clipped to ``[eps, 1 - eps]`` and replaced by their log-odds
        ``ln p - ln(1 - p)`` (Platt scaling on logits); ``a_`` and ``b_`` are
        then the slope and intercept on the log-odds.
    eps : float in [0, 0.5), default=1e-7
        With ``score="proba"``: probabilities below ``eps`` are raised to it
        and those above ``1 - eps`` lowered to it, at fit and at predict, as
        in :class:`~venncal.BetaCalibrator` (docs/parametric.md), so that 0
        and 1 have finite log-odds.  ``eps=0``: no clipping; ``fit`` then
        refuses 0 and 1 (``ValueError``) and at prediction they are log-odds
        ``-inf`` and ``+inf``, mapped to the sigmoid's limits (0 or 1, or
        ``1 / (1 + exp(b_))`` when ``a_ = 0``).  Unused with ``score="logit"``.
    {classes}

    Attributes
    ----------
    {classes_}
    a_ : float
        Slope ``A`` of the sigmoid (negative when higher scores mean more
        likely ``classes_[1]``).
    b_ : float
        Intercept ``B`` of the sigmoid.
    clipped_weight_ : float
        The total sample weight of the calibration scores that ``eps`` moved
        (their number when unweighted; 0 with ``score="logit"``).  Set by
        ``fit``; not saved (a loaded model does not have it).

    Notes
    -----
    The fit depends on the data only through the score summary, and is exact
    to rounding: Newton's method with a backtracking line search on
    internally standardized scores, stopped when the gradient of the mean
    loss is below 1e-12, then one more Newton step (quadratically exact
    there: the gradient test alone left probabilities 1e-12 off the optimum,
    3e-9 relative in a light class).  Sample weights are frequency weights; with
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

    def __init__(self, *, targets="platt", score="logit", eps=EPS, classes=None):
        self.targets = targets
        self.score = score
        self.eps = eps
        self.classes = classes

    # clipped_weight_ is not saved: format versions 1 and 2 of Platt's files are frozen
    # byte for byte (tests/test_persist_golden.py), and the writer has no way yet to leave
    # out a member at the value older files imply
    _state = ("a_", "b_")
    # A sigmoid of the score: the decision function (a logit for linear models) first,
    # as Platt (1999) and scikit-learn's CalibratedClassifierCV.
    _response_methods: ClassVar[tuple[str, ...]] = ("decision_function", "predict_proba")
    _parameter_constraints: ClassVar[dict] = {
        "targets": [Options(TARGETS)], "score": [Options(SCORES)], "eps": EPS_CONSTRAINT,
    }
    #: Parameters added after model format version 2, with the value that reproduces the
    #: earlier behaviour: a saved model may leave them out at that value (files written
    #: before they existed load as that value, and re-save byte for byte).
    _params_added: ClassVar[dict] = {"score": "logit", "eps": EPS}

    def _weight_total_depends(self):
        if self.targets == "platt":
            return "Platt's targets (k+ + 1)/(k+ + 2) and 1/(k- + 2)"
        return None  # maximum likelihood is the same for any scale of the weights

    def _fit_from(self, summary):
        # each class's own sums: w - a loses a class of weight 1 beside 2**53 at one score
        self._fit_classes(summary.scores, summary.weights, summary.positive_weights,
                          _negatives(summary.weights, summary.positive_weights,
                                     summary.negative_weights))

    def _fit_sums(self, s, w, a):
        self._fit_classes(s, w, a, _negatives(w, a))

    def _fit_classes(self, s, w, a, b):
        """Fit from the scores, their total, positive and negative weights."""
        self.clipped_weight_ = 0.0
        if self.score == "proba":
            s, moved = _log_odds(s, fitting=True, eps=float(self.eps),
                                 name="summary's distinct scores")
            if moved.any():  # the scores clipped to one end are one score
                self.clipped_weight_ = clipped_weight(w, moved)
                s, at = np.unique(s, return_inverse=True)
                with np.errstate(over="ignore"):
                    w, a, b = (np.bincount(at, weights=v, minlength=s.shape[0]) for v in (w, a, b))
                if not np.isfinite(w).all():
                    raise ValueError(
                        "PlattCalibrator: the sample weights of the scores that eps clips to one "
                        "end sum past the largest double; rescale sample_weight"
                    )
        pos, neg, e = _scaled_weights(w, a, b)
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
            _check_labels_have_mle(s, a, b)
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
        gone = (v == 0.0) & (w > 0)  # below 2**-1074 of the total: out of the fit (54 F10)
        dropped = None
        if gone.any() and not gone.all():
            # their scores still set the spread that standardises the others (-1e300 of weight
            # 5e-324 beside N(0, 1) of weight 1 put those at x ~ 1e-300: a = 0, silently);
            # their loss at the fit is bounded below, and a refusal if it could count
            dropped = (s[gone], w[gone])
            keep = ~gone
            s, a, b, c1, c0, v = s[keep], a[keep], b[keep], c1[keep], c0[keep], v[keep]
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
            self._fit_constant(c1, c0, float(a[0]), float(b[0]), targets)
            return
        if targets is not None and (not (a > 0).any() or not (b > 0).any()):
            # A single class: every target is the same, so the MLE is that constant, a = 0
            # (Newton's method could be led astray by the targets of weights below 2**-1022
            # of the largest, rounded to 0 once scaled: a = -2838 for weights 0.5 and 1e308)
            positive = (a > 0).any()
            self._fit_constant(c1, c0, 1.0 if positive else 0.0, 0.0 if positive else 1.0,
                               targets)
            return
        x = dev / scale
        at = {}  # the precision at theta, when _fit_logit computed it
        theta, converged = _fit_logit(x, c1, c0, at=at)
        if not converged:  # from the logits' line, else on from there, judged by the step
            retry, converged = _fit_tails(x, c1, c0, a, b, targets)
            if not converged:
                retry, converged = _fit_logit(x, c1, c0, theta, step_tol=_STEP_TOL)
            theta = retry
            l1, l0 = _log_class_sums(a, b, targets)
            if not converged and _unresolved(c1, c0, l1, l0):
                raise ValueError(
                    f"PlattCalibrator: sample_weight spans from {float(w.min()):.3g} to "
                    f"{float(w.max()):.3g}, so that the loss of some scores (their weight "
                    "times a target within 1e-300 of 0 or 1) falls below 2**-1022 of the "
                    "total, where float64 cannot weigh it and Newton's method does not "
                    "converge; rescale the weights into a narrower range or drop the smallest"
                )
            if converged and x.shape[0] == 2 and np.isfinite(l1).all() and np.isfinite(l0).all():
                at["precision"] = (0.0, 0.0)  # _fit_tails: the line through the two logits
        if s.shape[0] == 1:  # one score (spread by the rounding of its center): no slope
            at["precision"] = (0.0, 0.0)
        step, noise = at["precision"] if "precision" in at else _precision(x, c1, c0, theta)
        if not noise <= _LOGIT_TOL:
            raise ValueError(
                f"PlattCalibrator: sample_weight spans from {float(w.min()):.3g} to "
                f"{float(w.max()):.3g}, and the lighter scores' share of the loss is so small "
                "that float64 cannot determine the fit: the rounding errors of the loss's "
                f"gradient alone move a calibration score's logit by up to {noise:.3g}; rescale "
                "the weights into a narrower range, or drop or merge the lightest"
            )
        converged = converged and step <= _LOGIT_TOL
        lightest = min(float(np.min(a, initial=np.inf, where=a > 0)),
                       float(np.min(b, initial=np.inf, where=b > 0)))
        if not converged and float(w.max()) > 2.0**53 * lightest:
            # the descent stalls where the weights put the optimum (probabilities past the
            # float64 range, for weights 1e300 beside 1e-310: A = -799 for an MLE of -2761)
            raise ValueError(
                f"PlattCalibrator: sample_weight spans from {lightest:.3g} (a class's weight at "
                f"a score) to {float(w.max()):.3g}, and Newton's method does not converge in "
                "float64 "
                f"with them (its last step moves a calibration score's logit by {step:.3g}); "
                "rescale the weights into a narrower range, or drop or merge the lightest"
            )
        if not converged:
            warnings.warn(
                "Platt scaling stopped short of convergence (no further progress in float64 "
                f"precision, or {_MAX_ITER} Newton iterations); the fit may be inaccurate",
                ConvergenceWarning,
                stacklevel=4,
            )
        alpha, beta = theta
        if dropped is not None:
            _check_dropped_negligible(dropped, w, center, scale, k)
        # logit(p) = alpha * (s - center) / scale + beta = -(A s + B)
        # (with halves, the scale of the scores themselves is scale / k)
        with np.errstate(over="ignore", invalid="ignore"):
            a = float(-alpha / scale * k) + 0.0  # + 0.0 turns -0.0 into 0.0
            b = _intercept(a, center, beta)
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
        if math.ulp(b) > 2e-6:  # (attack 47 F6) the map is held to half an ulp of b_ only
            warnings.warn(
                f"PlattCalibrator: the scores lie far from 0 for their spread (around "
                f"{center:.6g}), and the intercept b_ = {b:.17g} is held in float64 to "
                f"+-{math.ulp(b) / 2:g} only: every prediction's log-odds may be off by that "
                "much; subtract a constant near the scores' center first (Platt scaling is "
                "equivariant: b_ absorbs it)", UserWarning, stacklevel=5)

    def _fit_constant(self, c1, c0, pos, neg, targets):
        """Set ``a_ = 0`` and ``b_ = log(c0) - log(c1)``, from the unscaled class weights if tiny."""
        self.a_ = 0.0
        c0_sum, c1_sum = float(c0.sum()), float(c1.sum())
        if min(c0_sum, c1_sum) >= _NORMAL:  # the common case, as always computed
            self.b_ = math.log(c0_sum) - math.log(c1_sum) + 0.0
        else:
            self.b_ = _constant_intercept(pos, neg, targets)

    def _check_state(self):
        """Raise ``ValueError`` unless ``a_`` and ``b_`` are finite floats (any are possible)."""
        super()._check_state()
        check_float_numbers(self, ("a_", "b_"))

    def _check_test_scores(self, scores):
        q = check_scores(scores)
        return q if self.score == "logit" else _log_odds(q, fitting=False, eps=float(self.eps))[0]

    def _minus_logit(self, q):
        """``a_ q + b_``, minus the calibrated log-odds."""
        # a_ * q past the float64 range is +-inf: the sigmoid's limit, 0 or 1;
        # a log-odds of +-inf (a probability 1 or 0) with a_ = 0 leaves b_.
        with np.errstate(over="ignore", invalid="ignore"):
            u = self.a_ * q + self.b_
            if abs(self.b_) >= 16.0 and self.a_ != 0.0:
                # scores offset far from 0 (1e15 + u): a_ q and b_ cancel, and the rounding of
                # a_ q (ulp(1e15) / 2) was the logit's error; put it back (attack 47 F6). Below
                # 16 it moves the log-odds by |b_| 2**-53 < 2e-15 at most (was from 2**20:
                # 2e-11 relative at 3e5, attack 51)
                p, e = two_prod(self.a_, np.asarray(q, dtype=np.float64))
                fine = np.isfinite(e) & (np.abs(p) < 2.0**990) & (np.abs(p) > 2.0**-960)
                u = np.where(fine, (p + self.b_) + e, u)
        if self.a_ == 0.0:
            return np.where(np.isnan(u), self.b_, u)
        # a_ q past the range while a_ q + b_ is not (1e300 * 2e8 - 1e308): the exponent apart
        # (attack 44 F1: the sigmoid was 0 there, 1 in one-vs-rest beside finite logits)
        over = np.isinf(u) & np.isfinite(q)
        if over.any():
            u[over] = -wide.scaled(self._predict_wide_logit(q[over]), 0)
        return u

    def _predict_p(self, q):
        return expit(-self._minus_logit(q))

    def _predict_log_p(self, q):
        return log_expit(-self._minus_logit(q))

    def _predict_wide_logit(self, q):
        # -(a_ q + b_) with the exponent apart: past 1.8e308 from finite a_, q, b_
        if self.a_ == 0.0:
            return wide.split(np.full(q.shape, -self.b_))
        return wide.add(wide.mul(wide.split(np.full(q.shape, -self.a_)), wide.split(q)),
                        wide.split(np.full(q.shape, -self.b_)))

    def _predict_p_and_complement(self, q):
        # the complement as expit(u), not 1 - p: 1 - p is 0 (or off by 1e-6 relative)
        # where p is within a few ulps of 1 (issue 22)
        u = self._minus_logit(q)
        return expit(-u), expit(u)


def _intercept(a: float, center: float, beta: float) -> float:
    """``B = -(a center) - beta``, rounded once (``a center`` exact by TwoProduct).

    The back-transform of the standardised fit for the slope ``a`` as stored:
    at scores offset by 1e15, ``alpha (center k) / scale - beta`` rounded three
    times and was an ulp (0.25) off the nearest double (attack 47 F6).  NaN
    or inf where ``a center`` passes the range of the product (the caller
    falls back).
    """
    if not (2.0**-960 < abs(a * center) < 2.0**990):
        return float(-(a * center) - beta) if a * center == 0.0 else math.nan
    p, e = two_prod(a, center)
    t, te = two_sum(-p, -beta)
    return float(t + (te - e))


def _log_odds(p: np.ndarray, *, fitting: bool, eps: float, name: str = "scores"):
    """``(ln p - ln(1 - p), moved)`` of probabilities clipped to ``[eps, 1 - eps]``.

    With ``eps = 0`` nothing is moved and 0 and 1 are refused when fitting
    (their log-odds are infinite).
    """
    check_open_proba(p, "PlattCalibrator", name, eps=eps, fitting=fitting)
    ls, l1s, moved = clipped_log_sides(p, eps)
    return ls - l1s, moved


def _log_sum(pairs):
    """``log(sum x * y)`` over pairs of non-negative floats, without under- or overflow."""
    logs = [math.log(x) + math.log(y) for x, y in pairs if x > 0 and y > 0]
    return float(np.logaddexp.reduce(logs)) if logs else -math.inf


def _constant_intercept(a: float, neg: float, platt) -> float:
    """``B`` of the constant sigmoid at one score: ``log`` of the weighted odds against.

    ``a`` and ``neg`` are the score's positive and negative weight; ``platt``
    is ``(1 - t+, t-)`` for Platt's targets, else None (the labels).
    """
    if platt is None:
        c1, c0 = _log_sum([(a, 1.0)]), _log_sum([(neg, 1.0)])
    else:
        off_pos, t_neg = platt
        c1 = _log_sum([(a, 1.0 - off_pos), (neg, t_neg)])
        c0 = _log_sum([(a, off_pos), (neg, 1.0 - t_neg)])
    return float(c0 - c1) + 0.0


def _check_dropped_negligible(dropped, w, center, scale, k) -> None:
    """Raise if the rows left out of the fit (weight below 2**-1074 of the total) could move it.

    A row's pull on the fit, its loss's gradient, is at most its share of the weight
    times ``|x|``, its standardised score; beside a Hessian of order 1 on the others,
    a pull below 1e-9 moves no logit by more than ``LOGIT_TOL`` (1e-6).
    """
    s_d, w_d = dropped
    with np.errstate(over="ignore", divide="ignore"):
        reach = np.log2(np.abs(s_d * k - center * k)) - math.log2(scale)
        pull = np.log2(w_d) - math.log2(float(np.sum(w))) + reach
    if float(np.max(pull)) > math.log2(1e-9):
        raise ValueError(
            f"PlattCalibrator: sample_weight spans from {float(w.min()):.3g} to "
            f"{float(w.max()):.3g}, and rows of weight below 2**-1074 times the total have "
            "scores so far out that they could move the fit, though float64 cannot weigh "
            "them beside the others; rescale the weights into a narrower range, or drop the "
            "lightest")


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
