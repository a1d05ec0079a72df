"""Beta calibration (Kull, Silva Filho & Flach 2017) of binary scores."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from .. import _wide as wide
from .._base import check_float_numbers
from .._validation import Options
from ._binary import log_sides
from ._binary_base import BinaryParametricCalibrator
from ._inputs import EPS

__all__ = ["BetaCalibrator"]

FORMS = ("abm", "ab", "am")
_LN2 = math.log(2.0)


class BetaCalibrator(BinaryParametricCalibrator):
    """Beta calibration: ``logit(p) = a ln s - b ln(1 - s) + c`` with ``a, b >= 0``.

    The calibrated probability of ``classes_[1]`` at score ``s`` (a
    probability of ``classes_[1]``, or ``sigmoid`` of a logit) is
    ``1 / (1 + 1 / (e^c s^a / (1 - s)^b))``, the family of Kull, Silva Filho
    & Flach (2017), fitted by maximum likelihood: a logistic regression of
    the label on ``ln s`` and ``-ln(1 - s)``.  The paper's midpoint ``m``
    (where the map is 1/2) satisfies ``c = b ln(1 - m) - a ln m``.

    Parameters
    ----------
    parameters : {"abm", "ab", "am"}, default="abm"
        ``"abm"``: ``a``, ``b`` and ``c`` free (three parameters).
        ``"ab"``: ``m = 1/2``, i.e. ``c = (a - b) ln 2``, no intercept:
        ``logit(p) = a ln(2s) - b ln(2(1 - s))``.
        ``"am"``: ``a = b``: ``logit(p) = a logit(s) + c``, logistic
        regression on the log-odds (Platt scaling on logits).
        In every form ``a, b >= 0`` (the map never reverses the score's
        order): the exact constrained maximum of the likelihood (see Notes).
    score : {"proba", "logit"}, default="proba"
        The kind of the scores: probabilities ``s`` in [0, 1] (clipped to
        ``[eps, 1 - eps]``), or logits ``z`` with ``s = sigmoid(z)``, for
        which ``ln s = -softplus(-z)`` and ``ln(1 - s) = -softplus(z)`` are
        computed without rounding ``s`` to 0 or 1.  Never guessed from the values.
    eps : float in [0, 0.5), default=1e-7
        With ``score="proba"``, probabilities below ``eps`` are raised to it
        and those above ``1 - eps`` lowered to it (``1 - eps`` exactly, in
        logarithms), the same at fit and at predict, so that 0 and 1 (a
        random forest's or naive Bayes's) have finite log-odds; the map is
        constant on ``[0, eps]`` and on ``[1 - eps, 1]``.  ``eps=0``: no
        clipping, and ``fit`` refuses 0 and 1 (at prediction they give the
        map's limits).  Unused with ``score="logit"``.  The default was
        chosen by held-out log loss (docs/parametric.md).
    tol : float, default=1e-10
        The tolerance on the largest component of the gradient of the mean
        log loss, in coordinates where each feature has unit weighted
        standard deviation, relative to the lighter class's share of the
        weight: the gradient divided by ``2 min(W1, W0) / W`` (``W1``, ``W0``
        the classes' total weights, ``W`` their sum; at most 1) must be
        within ``tol``, so that a class of 1e-300 of the other is fitted
        as one of 1e-3 is.  A lighter class below ``2**-1023`` of the total
        weight is refused.
    max_iter : int, default=100
        Newton steps per face of the constraint (see Notes).
    classes : array-like of two labels, default=None
        The labels ``[negative, positive]``; by default the observed labels, sorted.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    a_, b_, c_ : float
        The fitted map (``a_ = b_`` for ``"am"``; ``c_ = (a_ - b_) ln 2`` for ``"ab"``).
    loss_ : float
        The weighted mean log loss (natural log) at the fit.
    grad_norm_ : float
        The largest absolute gradient component over free coefficients and
        the largest negative one over coefficients held at 0, divided by
        ``2 min(W1, W0) / W`` (the lighter class's share of the weight,
        doubled; 1 for balanced classes): the number ``tol`` bounds.
    n_iter_ : int
        Newton steps, over all the faces fitted.
    converged_ : bool
    clipped_weight_ : float
        The total sample weight of the calibration scores that ``eps`` moved
        (their number when unweighted; 0 with ``score="logit"``).

    Notes
    -----
    **Solver.** Damped Newton (:func:`venncal._newton.minimize_convex`)
    on the convex mean log loss, from ``a = b = 0`` and the log-odds of the
    classes, until the gradient is below ``tol``.  **Constraint.** Kull et
    al. and the ``betacal`` package refit without a coefficient that comes
    out negative (``a`` first, only for ``"abm"``).  Here the faces of the
    constraint (none, ``a = 0``, ``b = 0``, both) are fitted in that order,
    and the first fit that is feasible and meets the optimality conditions of
    the constrained problem is returned, which is the exact constrained
    maximum of the likelihood (the betacal refit can differ from it when the
    refitted coefficient also comes out negative).  **Degenerate data.**
    When fewer distinct scores than parameters carry weight, the ``a = b``
    form is fitted (and with a single distinct score only ``c``, or ``a = b``
    for ``"ab"``).  A single class, or classes separated by a threshold on
    the score, have no maximum-likelihood map: ``fit`` raises ``ValueError``.

    References
    ----------
    M. Kull, T. Silva Filho, P. Flach. Beta calibration: a well-founded and
    easily implemented improvement on logistic calibration for binary
    classifiers. AISTATS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal import BetaCalibrator
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.01, 0.99, 3000)
    >>> y = rng.uniform(size=3000) < s**2 / (s**2 + (1 - s)**0.5)  # a = 2, b = 0.5, c = 0
    >>> cal = BetaCalibrator().fit(s, y)
    >>> cal.converged_, cal.grad_norm_ < 1e-10
    (True, True)
    >>> cal.predict_proba([0.2, 0.5, 0.9])[:, 1].round(2)
    array([0.05, 0.25, 0.73])
    """

    _state: ClassVar[tuple[str, ...]] = ("a_", "b_", "c_", *BinaryParametricCalibrator._state)
    _parameter_constraints: ClassVar[dict] = {
        "parameters": [Options(FORMS)], **BinaryParametricCalibrator._common_constraints,
    }
    _response_methods: ClassVar[tuple[str, ...]] = ("predict_proba", "decision_function")

    def __init__(self, *, parameters="abm", score="proba", eps=EPS, tol=1e-10, max_iter=100,
                 classes=None):
        self.parameters = parameters
        self.score = score
        self.eps = eps
        self.tol = tol
        self.max_iter = max_iter
        self.classes = classes

    def _design(self, q, k):
        ls, l1s = log_sides(q, self.score, self.eps)
        form = self.parameters
        n_params = 2 if form == "ab" else (3 if form == "abm" else 2)
        if form == "am" or k < n_params:
            X = (ls - l1s)[:, None]
            intercept = form != "ab"

            def store(coef, c):
                a = float(coef[0])
                self.a_, self.b_ = a, a
                self.c_ = c if intercept else 0.0
            return X, intercept, (True,), store
        if form == "ab":
            X = np.column_stack([ls + _LN2, -l1s - _LN2])

            def store(coef, c):
                self.a_, self.b_ = float(coef[0]), float(coef[1])
                self.c_ = (self.a_ - self.b_) * _LN2 + 0.0
            return X, False, (True, True), store
        X = np.column_stack([ls, -l1s])

        def store(coef, c):
            self.a_, self.b_, self.c_ = float(coef[0]), float(coef[1]), float(c)
        return X, True, (True, True), store

    def _logit(self, q):
        ls, l1s = log_sides(q, self.score, self.eps)
        with np.errstate(over="ignore", invalid="ignore"):
            u = (np.where(ls == -np.inf, 0.0, self.a_ * ls) if self.a_ == 0.0 else self.a_ * ls)
            v = (np.where(l1s == -np.inf, 0.0, self.b_ * l1s) if self.b_ == 0.0 else self.b_ * l1s)
            t = u - v + self.c_
        # a side past the range while the sum is not: the exponent apart (attack 44 F1)
        over = ~np.isfinite(t) & np.isfinite(ls) & np.isfinite(l1s)
        if over.any():
            t[over] = wide.scaled(self._predict_wide_logit(q[over]), 0)
        return t

    def _predict_wide_logit(self, q):
        # a_ ln s - b_ ln(1 - s) + c_ with the exponent apart (a_ ln s passes 1.8e308
        # for a_ past 2**1014); a coefficient 0 leaves out its side (0 at ln s = -inf)
        ls, l1s = log_sides(q, self.score, self.eps)
        terms = [wide.split(np.full(q.shape, self.c_))]
        for coef, side in ((self.a_, ls), (-self.b_, l1s)):
            if coef != 0.0:
                terms.append(wide.mul(wide.split(np.full(q.shape, coef)), wide.split(side)))
        return wide.add(*terms)

    def _check_state(self) -> None:
        super()._check_state()
        check_float_numbers(self, ("a_", "b_"), minimum=0.0)
        check_float_numbers(self, ("c_",))
        if self.parameters == "am" and self.a_ != self.b_:
            raise ValueError("a_ and b_ must be equal for parameters='am'")
