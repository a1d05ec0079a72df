"""Quadratic logistic calibration: logistic regression on the log-odds and its square."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .. import _wide as wide
from .._base import check_float_arrays
from ._binary import log_odds
from ._binary_base import BinaryParametricCalibrator
from ._inputs import EPS

__all__ = ["QuadraticLogisticCalibrator"]

#: Beyond this |logit| the square passes the largest double.
_SQUARE_LIMIT = 2.0**511


class QuadraticLogisticCalibrator(BinaryParametricCalibrator):
    """Quadratic logistic calibration: ``logit(p) = c0 + c1 z + c2 z^2`` of the log-odds ``z``.

    A logistic regression of the label on the score's log-odds and its
    square, fitted by maximum likelihood without constraints (so the map
    may be non-monotone, as in the CalArena benchmark's quadratic logistic).

    Parameters
    ----------
    score : {"logit", "proba"}, default="logit"
        The kind of the scores: logits ``z`` (finite reals with
        ``|z| < 2**511``, whose square is a double), or probabilities ``s``
        in [0, 1] with ``z = ln s - ln(1 - s)`` of ``s`` clipped to
        ``[eps, 1 - eps]``.  Never guessed.
    eps : float in [0, 0.5), default=1e-7
        As for :class:`~venncal.BetaCalibrator`: with ``score="proba"`` the
        probabilities are clipped to ``[eps, 1 - eps]`` at fit and predict
        (``|z| <= ln((1 - eps) / eps)``, about 16.1 at the default); ``eps=0``
        refuses 0 and 1 at fit.
    tol : float, default=1e-10
        The tolerance on the largest component of the gradient of the mean
        log loss, in coordinates where ``z`` and ``z^2`` have unit weighted
        standard deviation, relative to the lighter class's share of the
        weight (as for :class:`~venncal.BetaCalibrator`).
    max_iter : int, default=100
        Newton steps.
    classes : array-like of two labels, default=None
        The labels ``[negative, positive]``; by default the observed labels, sorted.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (3,)
        ``(c0, c1, c2)``.
    loss_, grad_norm_, n_iter_, converged_, clipped_weight_
        As for :class:`~venncal.BetaCalibrator`.

    Notes
    -----
    Damped Newton (:func:`venncal._newton.minimize_convex`) on
    the convex mean log loss of standardised ``z`` and ``z^2``.  With two
    distinct scores of nonzero weight ``c2 = 0`` (a line through two points),
    with one ``c1 = c2 = 0``.  A single class, or classes that a quadratic
    of ``z`` separates (one threshold, or an interval), have no
    maximum-likelihood map: ``fit`` raises ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal import QuadraticLogisticCalibrator
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=4000) * 2
    >>> y = rng.uniform(size=4000) < 1 / (1 + np.exp(-(0.5 + z - 0.2 * z**2)))
    >>> cal = QuadraticLogisticCalibrator().fit(z, y)
    >>> cal.coef_.round(1), cal.converged_
    (array([ 0.5,  1. , -0.2]), True)
    """

    _state: ClassVar[tuple[str, ...]] = ("coef_", *BinaryParametricCalibrator._state)
    _parameter_constraints: ClassVar[dict] = dict(BinaryParametricCalibrator._common_constraints)
    _response_methods: ClassVar[tuple[str, ...]] = ("decision_function", "predict_proba")

    def __init__(self, *, score="logit", eps=EPS, tol=1e-10, max_iter=100, classes=None):
        self.score = score
        self.eps = eps
        self.tol = tol
        self.max_iter = max_iter
        self.classes = classes

    def _design(self, q, k):
        z = log_odds(q, self.score, self.eps)
        big = np.abs(z) >= _SQUARE_LIMIT
        if big.any():
            i = int(np.flatnonzero(big)[0])
            raise ValueError(
                f"QuadraticLogisticCalibrator: the logit {float(z[i])!r} has |z| >= 2**511, "
                "whose square is not a finite double; rescale the logits"
            )
        X = np.column_stack([z, z * z]) if k > 2 else z[:, None]

        def store(coef, c):
            self.coef_ = np.array([c, coef[0], coef[1] if k > 2 else 0.0]) + 0.0
        return X, True, (False,) * X.shape[1], store

    def _logit(self, q):
        z = log_odds(q, self.score, self.eps)
        c0, c1, c2 = (float(v) for v in self.coef_)
        with np.errstate(over="ignore", invalid="ignore"):
            u = c0 + z * (c1 + c2 * z)
        # a term past the range while the sum is not: the exponent apart (attack 44 F1, F3)
        over = ~np.isfinite(u) & np.isfinite(z)
        if over.any():
            u[over] = wide.scaled(self._predict_wide_logit(q[over]), 0)
        return self._limits(z, u)

    def _limits(self, z, u):
        """``u`` with the polynomial's limits at ``z = +-inf`` (a probability 0 or 1, ``eps=0``).

        The leading nonzero coefficient decides: ``c2 z^2``, else ``c1 z``,
        else ``c0`` (``c0 + z (c1 + 0 z)`` is NaN at infinite ``z``).
        """
        inf = np.isinf(z)
        if not inf.any():
            return u
        c0, c1, c2 = (float(v) for v in self.coef_)
        if c2 != 0.0:
            limit = np.full(z.shape, np.copysign(np.inf, c2))
        elif c1 != 0.0:
            limit = np.where(z > 0, 1.0, -1.0) * np.copysign(np.inf, c1)
        else:
            limit = np.full(z.shape, c0)
        return np.where(inf, limit, u)

    def _predict_wide_logit(self, q):
        # c0 + z (c1 + c2 z) with the exponent apart (it passes 1.8e308 from finite z)
        z = log_odds(q, self.score, self.eps)
        c0, c1, c2 = (np.full(z.shape, float(v)) for v in self.coef_)
        wz = wide.split(np.where(np.isinf(z), 0.0, z))
        u = wide.add(wide.split(c0),
                     wide.mul(wz, wide.add(wide.split(c1), wide.mul(wide.split(c2), wz))))
        limit = wide.split(self._limits(z, np.zeros(z.shape)))
        inf = np.isinf(z)
        return np.where(inf, limit[0], u[0]), np.where(inf, limit[1], u[1])

    def _check_state(self) -> None:
        super()._check_state()
        check_float_arrays(self, ("coef_",), length=3)
