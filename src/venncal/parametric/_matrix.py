"""Matrix scaling with off-diagonal and intercept regularisation (Dirichlet calibration)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .._kernels.parametric_matrix import affine_softmax
from .._validation import Interval
from ._affine import AffineScalingBase

__all__ = ["MatrixScalingCalibrator"]


class MatrixScalingCalibrator(AffineScalingBase):
    """Matrix scaling of K class scores: ``softmax(W x + b)``, regularised as in Kull et al. 2019.

    ``x`` is the row's log-probabilities: ``z - logsumexp(z)`` for logits
    (a constant added to a row changes nothing), ``ln p`` for probabilities
    (renormalised): with ``score="proba"`` this is Dirichlet calibration.
    Minimises

        ``L(W, b) = sum_i w_i [logsumexp(u_i) - u_{i,y_i}] / sum_i w_i
        + l2_off_diagonal / (K (K - 1)) * sum_{j != k} W_jk**2
        + l2_intercept / K * sum_k b_k**2``,   ``u_i = W x_i + b``,

    the weighted *mean* log loss (natural log) plus the off-diagonal and
    intercept regularisation (ODIR) scaled as in Kull et al. 2019; the
    diagonal is not penalised.  ``L`` is convex.  A penalty of 0 leaves a
    direction that changes nothing, and it is fixed: ``l2_off_diagonal=0``
    fixes the last row of ``W`` at 0, ``l2_intercept=0`` the last
    intercept (the predictions are those of every other optimum).

    The default penalties (1e-3 each) are light and *not* chosen by
    cross-validation (the paper selects them from a grid by
    cross-validation, per data set): they keep the fit finite and
    identifiable and change the loss little; pass larger values, chosen on
    held-out data, for few rows or many classes.

    Parameters
    ----------
    score : {"logit", "proba"}, default="logit"
    classes : array-like of shape (K,), default=None
    l2_off_diagonal : float, default=1e-3
        ``lambda`` of the off-diagonal penalty (>= 0).
    l2_intercept : float, default=1e-3
        ``mu`` of the intercept penalty (>= 0).
    solver : {"auto", "newton", "lbfgs"}, default="auto"
        ``"auto"``: Newton's method while the free parameters (``K (K+1)``)
        are at most 256 (K <= 15), scipy's L-BFGS-B with the exact gradient
        above.
    tol : float, default=1e-8
        The search stops when the gradient's largest component is ``<= tol``.
    max_iter : int, default=500
    n_jobs : int, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    coef_ : ndarray of shape (K, K)
        ``W``.
    intercept_ : ndarray of shape (K,)
        ``b``.
    loss_ : float
        ``L`` at the fit (log loss plus penalties).
    grad_norm_ : float
    n_iter_ : int
    converged_ : bool
    solver_ : {"newton", "lbfgs"}

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.parametric import MatrixScalingCalibrator
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet([1, 1, 1], size=2000)
    >>> y = np.array([rng.choice(3, p=r) for r in p ** 2 / (p ** 2).sum(1, keepdims=True)])
    >>> cal = MatrixScalingCalibrator(score="proba").fit(p, y)
    >>> cal.converged_, np.diag(cal.coef_).round(0)
    (True, array([2., 2., 2.]))
    """

    _state: ClassVar[tuple[str, ...]] = ("coef_", "intercept_", *AffineScalingBase._state)
    _parameter_constraints: ClassVar[dict] = {
        **AffineScalingBase._parameter_constraints,
        "l2_off_diagonal": [Interval("real", 0.0, None, closed="left")],
        "l2_intercept": [Interval("real", 0.0, None, closed="left")],
    }

    def __init__(self, *, score="logit", classes=None, l2_off_diagonal=1e-3, l2_intercept=1e-3,
                 solver="auto", tol=1e-8, max_iter=500, n_jobs=None):
        self.score = score
        self.classes = classes
        self.l2_off_diagonal = l2_off_diagonal
        self.l2_intercept = l2_intercept
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def _free(self, K):
        """Indices of the free entries of ``[W | b]`` (K, K+1), row-major."""
        fixed = np.zeros((K, K + 1), dtype=bool)
        if self.l2_off_diagonal == 0.0:
            fixed[K - 1, :K] = True
        if self.l2_intercept == 0.0:
            fixed[K - 1, K] = True
        return np.flatnonzero(~fixed.ravel())

    def _penalty_weights(self, K):
        """The penalty's diagonal Hessian over ``[W | b]``, row-major."""
        d = np.zeros((K, K + 1))
        d[:, :K] = 2.0 * self.l2_off_diagonal / (K * (K - 1))
        d[np.arange(K), np.arange(K)] = 0.0
        d[:, K] = 2.0 * self.l2_intercept / K
        return d.ravel()

    def _n_params(self, K):
        return self._free(K).shape[0]

    def _start(self, K):
        full = np.hstack([np.eye(K), np.zeros((K, 1))])
        if self.l2_off_diagonal == 0.0:
            full[:, K - 1] -= 1.0  # the same map with W's last row 0
        return full.ravel()[self._free(K)]

    def _full(self, theta, K):
        full = np.zeros(K * (K + 1))
        full[self._free(K)] = theta
        return full.reshape(K, K + 1)

    def _objective(self, sums, theta, hess):
        K = sums.x.shape[1]
        full = self._full(theta, K)
        f, G, H = sums.affine(np.ascontiguousarray(full[:, :K]), full[:, K].copy(), hess)
        pen = self._penalty_weights(K)
        flat = full.ravel()
        free = self._free(K)
        f += 0.5 * float(np.sum(pen * flat * flat))
        g = (G.ravel() + pen * flat)[free]
        if hess:
            H = H[np.ix_(free, free)]
            H[np.diag_indices_from(H)] += pen[free]
        return f, g, H

    def _store(self, theta, K):
        full = self._full(theta, K)
        self.coef_ = np.ascontiguousarray(full[:, :K])
        self.intercept_ = full[:, K].copy()

    def _array_shapes(self, K):
        return {"coef_": (K, K), "intercept_": (K,)}

    def _predict(self, x, out):
        affine_softmax(x, self.coef_, self.intercept_, out)
