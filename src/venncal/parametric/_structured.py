"""Structured matrix scaling: matrix scaling regularised toward temperature scaling (ours)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .._kernels.parametric_matrix import affine_softmax
from .._validation import Interval, Options
from ._affine import AffineScalingBase, kronecker_preconditioner, smallest_positive
from ._inputs import EPS
from ._penalty_cv import grid_rule

CV, GRID = Options(("cv",)), grid_rule()

__all__ = ["StructuredMatrixScalingCalibrator"]


class StructuredMatrixScalingCalibrator(AffineScalingBase):
    """Structured matrix scaling: ``softmax(W x + b)`` with ``W = t I + D``, shrunk toward ``t I``.

    In the spirit of the structured matrix scaling (SMS) of Berta,
    Holzmüller, Jordan & Bach 2025, which regularises the diagonal, the
    off-diagonal and the intercepts of matrix scaling separately; this
    parameterisation and its penalties are **ours** (the paper's exact
    penalties and solver, SAGA on non-smooth penalties, are not
    reproduced).  ``x`` is the row's log-probabilities (as in
    :class:`MatrixScalingCalibrator`); ``t`` is one shared, unpenalised
    scale (temperature scaling's inverse temperature: ``t x`` is
    ``softmax(t z)``'s logit), ``D`` a K x K matrix and ``b`` K intercepts.
    Minimises the weighted mean log loss plus

        ``l2_diagonal / K * sum_k D_kk**2
        + l2_off_diagonal / (K (K - 1)) * sum_{j != k} D_jk**2
        + l2_intercept / K * sum_k b_k**2``,

    convex in ``(t, D, b)`` and strictly so along every direction that
    changes nothing (each penalty must be > 0).  Large penalties give
    temperature scaling; a large ``l2_off_diagonal`` alone gives vector
    scaling (shrunk toward one scale); small ones matrix scaling.  The
    defaults (1e-3, 1e-2, 1e-3: the off-diagonal shrunk ten times harder)
    are ours; ``"cv"`` (or an array of candidates) for any penalty chooses
    it by cross-validated log loss on ``cv`` stratified folds, exactly as
    in :class:`MatrixScalingCalibrator` (the grid: powers of ten of the
    per-entry penalty, ``l2_diagonal / K``, ``l2_off_diagonal / (K (K -
    1))``, ``l2_intercept / K``, from ``1 / (10 n)`` to 100).

    Parameters
    ----------
    score : {"logit", "proba"}, default="logit"
    eps : float in [0, 0.5), default=1e-7
        As for :class:`~venncal.parametric.VectorScalingCalibrator`.
    classes : array-like of shape (K,), default=None
    l2_diagonal, l2_off_diagonal, l2_intercept : float, "cv" or array-like, default=1e-3, 1e-2, 1e-3
        The penalties: a number > 0, ``"cv"`` or 1 to 64 candidates > 0.
    cv : int, default=5
        Stratified folds when a penalty is chosen by cross-validation.
    solver : {"auto", "newton", "lbfgs"}, default="auto"
        ``"auto"``: Newton's method while the parameters (``K**2 + K + 1``)
        are at most 256 (K <= 15), scipy's L-BFGS-B with the exact gradient
        above (at most 100 iterations), then, if the
        gradient is still above ``tol``, Newton-CG steps with exact
        Hessian-vector products (docs/parametric.md); ``n_iter_`` counts
        both, up to ``max_iter``.
    tol : float, default=1e-8
    max_iter : int, default=500
    n_jobs : int, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    shared_scale_ : float
        ``t``.
    coef_ : ndarray of shape (K, K)
        ``W = t I + D``.
    intercept_ : ndarray of shape (K,)
    l2_diagonal_, l2_off_diagonal_, l2_intercept_ : float
        The penalties fitted with (chosen, or the fixed parameters).
    cv_results_ : dict or None
        As in :class:`MatrixScalingCalibrator`.
    loss_, grad_norm_, n_iter_, converged_, solver_
        As in :class:`MatrixScalingCalibrator`.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.parametric import StructuredMatrixScalingCalibrator
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(3000, 4)) * 3
    >>> y = np.array([rng.choice(4, p=np.exp(r) / np.exp(r).sum()) for r in z / 3])
    >>> cal = StructuredMatrixScalingCalibrator().fit(z, y)
    >>> cal.converged_, round(cal.shared_scale_, 1)
    (True, 0.3)
    """

    _state: ClassVar[tuple[str, ...]] = (
        "shared_scale_", "coef_", "intercept_", "l2_diagonal_", "l2_off_diagonal_",
        "l2_intercept_", *AffineScalingBase._state,
    )
    #: Fitted attributes newer than the class's first saved models, and the parameter
    #: they equal in those (fixed penalties then): a file without them still loads.
    #: Parameters newer than the first saved models: left out of a file at their default.
    _params_added: ClassVar[dict] = {**AffineScalingBase._params_added, "cv": 5}
    _state_added: ClassVar[dict[str, str]] = {
        **AffineScalingBase._state_added,
        "l2_diagonal_": "l2_diagonal", "l2_off_diagonal_": "l2_off_diagonal",
        "l2_intercept_": "l2_intercept",
    }
    _parameter_constraints: ClassVar[dict] = {
        **AffineScalingBase._parameter_constraints,
        "l2_diagonal": [Interval("real", 0.0, None, closed="neither"), CV, GRID],
        "l2_off_diagonal": [Interval("real", 0.0, None, closed="neither"), CV, GRID],
        "l2_intercept": [Interval("real", 0.0, None, closed="neither"), CV, GRID],
        "cv": [Interval("int", 2, None)],
    }

    def __init__(self, *, score="logit", eps=EPS, classes=None, l2_diagonal=1e-3,
                 l2_off_diagonal=1e-2, l2_intercept=1e-3, cv=5, solver="auto", tol=1e-8,
                 max_iter=500, n_jobs=None):
        self.score = score
        self.eps = eps
        self.classes = classes
        self.l2_diagonal = l2_diagonal
        self.l2_off_diagonal = l2_off_diagonal
        self.l2_intercept = l2_intercept
        self.cv = cv
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def _penalty_norms(self, K):
        return {"l2_diagonal": K, "l2_off_diagonal": K * (K - 1), "l2_intercept": K}

    def _n_params(self, K, pens):
        return K * K + K + 1

    def _start(self, K, pens=None):
        theta = np.zeros(K * K + K + 1)
        theta[0] = 1.0
        return theta

    @staticmethod
    def _maps(K):
        """Full ``[W | b]`` indices (row-major) of ``D`` then ``b``, and of the diagonal."""
        rest = np.concatenate([
            (np.arange(K)[:, None] * (K + 1) + np.arange(K)[None, :]).ravel(),
            np.arange(K) * (K + 1) + K,
        ])
        return rest, np.arange(K) * (K + 2)

    @staticmethod
    def _penalty_weights(K, pens):
        d = np.full((K, K), 2.0 * pens["l2_off_diagonal"] / (K * (K - 1)))
        d[np.diag_indices(K)] = 2.0 * pens["l2_diagonal"] / K
        return np.concatenate([[0.0], d.ravel(), np.full(K, 2.0 * pens["l2_intercept"] / K)])

    def _parts(self, theta, K):
        t = float(theta[0])
        W = theta[1:1 + K * K].reshape(K, K) + t * np.eye(K)
        return t, np.ascontiguousarray(W), theta[1 + K * K:].copy()

    def _affine_map(self, theta, K, pens):
        return self._parts(theta, K)[1:]

    def _objective(self, sums, theta, hess, pens):
        K = sums.x.shape[1]
        _, W, b = self._parts(theta, K)
        f, G, Hf = sums.affine(W, b, hess)
        pen = self._penalty_weights(K, pens)
        f += 0.5 * float(np.sum(pen * theta * theta))
        rest, diag = self._maps(K)
        flat = G.ravel()
        g = np.concatenate([[flat[diag].sum()], flat[rest]]) + pen * theta
        if not hess:
            return f, g, None
        H = np.empty((theta.shape[0], theta.shape[0]))
        cross = Hf[diag].sum(axis=0)
        H[0, 0] = cross[diag].sum()
        H[0, 1:] = H[1:, 0] = cross[rest]
        H[1:, 1:] = Hf[np.ix_(rest, rest)]
        H[np.diag_indices_from(H)] += pen
        return f, g, H

    def _pull(self, G, K, pens):
        """The gradient (or Hessian product) in ``(t, D, b)`` from its (K, K+1) form in ``[W | b]``."""
        rest, diag = self._maps(K)
        flat = G.ravel()
        return np.concatenate([[flat[diag].sum()], flat[rest]])

    def _penalty_hessian(self, K, pens):
        return self._penalty_weights(K, pens)

    def _preconditioner(self, S, C, K, pens):
        """Block-diagonal: ``1 / H_tt`` for ``t`` (its Kronecker approximation ``sum S_kl C_kl``),
        :func:`~._affine.kronecker_preconditioner` for ``(D, b)`` (a bijection with ``[W | b]``)."""
        rest, _ = self._maps(K)
        lam = smallest_positive(self._penalty_weights(K, pens),
                                1e-10 * float(np.trace(S) * np.trace(C)))
        inv = kronecker_preconditioner(S, C, lam)
        htt = float(np.sum(S * C[:K, :K]))
        htt = htt if htt > 0.0 else 1.0

        def apply(r):
            R = np.empty(K * (K + 1))
            R[rest] = r[1:]
            return np.concatenate([[r[0] / htt], inv(R.reshape(K, K + 1)).ravel()[rest]])

        return apply

    def _store(self, theta, K, pens):
        self.shared_scale_, self.coef_, self.intercept_ = self._parts(theta, K)

    def _array_shapes(self, K):
        return {"coef_": (K, K), "intercept_": (K,)}

    def _derive_state(self) -> None:
        super()._derive_state()
        if not (isinstance(self.shared_scale_, float) and np.isfinite(self.shared_scale_)):
            raise ValueError(f"shared_scale_ must be a finite float; got {self.shared_scale_!r}")

    def _predict(self, x, out):
        affine_softmax(x, self.coef_, self.intercept_, out)
