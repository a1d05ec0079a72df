"""Matrix scaling with off-diagonal and intercept regularisation (Dirichlet calibration)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .._kernels.parametric_matrix import affine_softmax
from .._validation import Interval, Options
from ._affine import (
    AffineScalingBase,
    kronecker_preconditioner,
    smallest_positive,
    standardising_basis,
)
from ._inputs import EPS, UnitFrame
from ._penalty_cv import grid_rule

CV, GRID = Options(("cv",)), grid_rule()

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

    Kull et al. choose ``lambda`` and ``mu`` per data set by
    cross-validation on a grid; pass ``"cv"`` (or an array of candidates)
    for either penalty to do the same: each candidate is fitted on ``cv``
    stratified folds (fixed, no random state) and scored by the weighted log
    loss of the held-out rows, along the grid of
    :func:`~venncal.parametric._penalty_cv.default_grid` (powers of ten of
    the per-entry penalty ``lambda / (K (K - 1))`` or ``mu / K`` from about
    a tenth of one row's weight, ``1 / (10 n)``, to 100) from the strongest
    end, warm-started; then the model is refitted on all rows with the
    chosen values (``l2_off_diagonal_``, ``l2_intercept_``; the trial
    losses in ``cv_results_``).  The search and its cost: see
    :mod:`venncal.parametric._penalty_cv` (about 6 to 30 candidates, each
    fitted ``cv`` times).  The defaults stay the fixed, light 1e-3, which
    keep the fit finite and identifiable, change the loss little and cost
    one fit; ``"cv"`` is for few rows per parameter (many classes), where
    1e-3 overfits.

    Parameters
    ----------
    score : {"logit", "proba"}, default="logit"
    eps : float in [0, 0.5), default=1e-7
        As for :class:`~venncal.parametric.VectorScalingCalibrator`.
    classes : array-like of shape (K,), default=None
    l2_off_diagonal : float, "cv" or array-like of floats, default=1e-3
        ``lambda`` of the off-diagonal penalty: a number >= 0, ``"cv"``
        (chosen by cross-validation from the default grid) or 1 to 64
        candidates > 0 (chosen by cross-validation from those).
    l2_intercept : float, "cv" or array-like of floats, default=1e-3
        ``mu`` of the intercept penalty, likewise.
    cv : int, default=5
        The number of stratified folds when a penalty is chosen by
        cross-validation (every class needs ``cv`` rows of positive weight).
    solver : {"auto", "newton", "lbfgs"}, default="auto"
        ``"auto"``: Newton's method while the free parameters (``K (K+1)``)
        are at most 256 (K <= 15), scipy's L-BFGS-B with the exact gradient
        above (at most 100 iterations), then, if the
        gradient is still above ``tol``, Newton-CG steps with exact
        Hessian-vector products (docs/parametric.md); ``n_iter_`` counts
        both, up to ``max_iter``.
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
    l2_off_diagonal_, l2_intercept_ : float
        The penalties fitted with (chosen, or the fixed parameters).
    cv_results_ : dict or None
        When a penalty was chosen: the candidates tried, in order (one
        array per chosen penalty) and their held-out mean log loss
        (``"log_loss"``); None otherwise.  Not saved by ``venncal.save``.
    loss_ : float
        ``L`` at the fit (log loss plus penalties).
    grad_norm_ : float
    n_iter_ : int
    converged_ : bool
    solver_ : {"newton", "lbfgs"}
    clipped_weight_ : float
        The total sample weight of the calibration rows with a probability
        raised to ``eps`` (their number when unweighted; 0 for logits).

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

    _state: ClassVar[tuple[str, ...]] = (
        "coef_", "intercept_", "l2_off_diagonal_", "l2_intercept_", *AffineScalingBase._state,
    )
    #: Fitted attributes newer than the class's first saved models, and the parameter
    #: they equal in those (fixed penalties then): a file without them still loads.
    #: Parameters newer than the first saved models: left out of a file at their default.
    _params_added: ClassVar[dict] = {**AffineScalingBase._params_added, "cv": 5}
    _state_added: ClassVar[dict[str, str]] = {
        **AffineScalingBase._state_added,
        "l2_off_diagonal_": "l2_off_diagonal", "l2_intercept_": "l2_intercept",
    }
    _parameter_constraints: ClassVar[dict] = {
        **AffineScalingBase._parameter_constraints,
        "l2_off_diagonal": [Interval("real", 0.0, None, closed="left"), CV, GRID],
        "l2_intercept": [Interval("real", 0.0, None, closed="left"), CV, GRID],
        "cv": [Interval("int", 2, None)],
    }

    def __init__(self, *, score="logit", eps=EPS, classes=None, l2_off_diagonal=1e-3,
                 l2_intercept=1e-3, cv=5, solver="auto", tol=1e-8, max_iter=500, n_jobs=None):
        self.score = score
        self.eps = eps
        self.classes = classes
        self.l2_off_diagonal = l2_off_diagonal
        self.l2_intercept = l2_intercept
        self.cv = cv
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def _penalty_norms(self, K):
        return {"l2_off_diagonal": K * (K - 1), "l2_intercept": K}

    def _free(self, K, pens=None):
        """Indices of the free entries of ``[W | b]`` (K, K+1), row-major."""
        pens = self._penalties(pens)
        fixed = np.zeros((K, K + 1), dtype=bool)
        if pens["l2_off_diagonal"] == 0.0:
            fixed[K - 1, :K] = True
        if pens["l2_intercept"] == 0.0:
            fixed[K - 1, K] = True
        return np.flatnonzero(~fixed.ravel())

    @staticmethod
    def _penalty_weights(K, pens):
        """The penalty's diagonal Hessian over ``[W | b]``, row-major."""
        d = np.zeros((K, K + 1))
        d[:, :K] = 2.0 * pens["l2_off_diagonal"] / (K * (K - 1))
        d[np.arange(K), np.arange(K)] = 0.0
        d[:, K] = 2.0 * pens["l2_intercept"] / K
        return d.ravel()

    def _n_params(self, K, pens):
        return self._free(K, pens).shape[0]

    def _start(self, K, pens=None):
        pens = self._penalties(pens)
        full = np.hstack([np.eye(K), np.zeros((K, 1))])
        if pens["l2_off_diagonal"] == 0.0:
            full[:, K - 1] -= 1.0  # the same map with W's last row 0
        return full.ravel()[self._free(K, pens)]

    def _frame(self, x, w, pens):
        return UnitFrame(x, w) if not any(pens.values()) else None

    def _reframe(self, theta, K, pens, move):
        full = self._full(theta, K, pens)
        W, b = move(full[:, :K], full[:, K])  # the fixed last row stays 0
        return np.hstack([W, b[:, None]]).ravel()[self._free(K, pens)]

    def _full(self, theta, K, pens):
        full = np.zeros(K * (K + 1))
        full[self._free(K, pens)] = theta
        return full.reshape(K, K + 1)

    def _lbfgs_basis(self, sums, pens):
        """``A`` with ``[W~ | b~] = [W | b] A``: the map on standardised features ``(x - m) / s``.

        ``W~ = W diag(s)``, ``b~ = b + W m`` (``m``, ``s``: the features'
        weighted means and standard deviations).  Log-probabilities have
        means far from 0 (about -8 for N(0, 16) logits over 100 classes):
        the columns of ``W`` and the intercepts then move together, and
        L-BFGS-B crawls along that valley (1e4 x 30 logits with
        l2_off_diagonal=100: 500 iterations short of tol before, 71 after).  Only when
        every entry is free; centred only under a light intercept penalty
        (see :func:`~._affine.standardising_basis`).
        """
        K = sums.x.shape[1]
        if self._n_params(K, pens) != K * (K + 1):
            return None
        return standardising_basis(sums.x, sums.w, 2.0 * pens["l2_intercept"] / K)

    def _affine_map(self, theta, K, pens):
        full = self._full(theta, K, pens)
        return full[:, :K], full[:, K]

    def _objective(self, sums, theta, hess, pens):
        K = sums.x.shape[1]
        full = self._full(theta, K, pens)
        f, G, H = sums.affine(np.ascontiguousarray(full[:, :K]), full[:, K].copy(), hess)
        pen = self._penalty_weights(K, pens)
        flat = full.ravel()
        free = self._free(K, pens)
        f += 0.5 * float(np.sum(pen * flat * flat))
        g = (G.ravel() + pen * flat)[free]
        if hess:
            H = H[np.ix_(free, free)]
            H[np.diag_indices_from(H)] += pen[free]
        return f, g, H

    def _pull(self, G, K, pens):
        """The gradient (or Hessian product) in the free entries from its (K, K+1) full form."""
        return G.ravel()[self._free(K, pens)]

    def _penalty_hessian(self, K, pens):
        return self._penalty_weights(K, pens)[self._free(K, pens)]

    def _preconditioner(self, S, C, K, pens):
        """:func:`~._affine.kronecker_preconditioner` on the full ``[W | b]``, restricted to the free entries.

        ``lam`` is the smallest positive penalty curvature (the off-diagonal
        one under the defaults: the directions that change no prediction
        are columns of ``W``, mostly off the diagonal).
        """
        free = self._free(K, pens)
        lam = smallest_positive(self._penalty_weights(K, pens),
                                1e-10 * float(np.trace(S) * np.trace(C)))
        inv = kronecker_preconditioner(S, C, lam)

        def apply(r):
            R = np.zeros(K * (K + 1))
            R[free] = r
            return inv(R.reshape(K, K + 1)).ravel()[free]

        return apply

    def _store(self, theta, K, pens):
        full = self._full(theta, K, pens)
        self.coef_ = np.ascontiguousarray(full[:, :K])
        self.intercept_ = full[:, K].copy()

    def _array_shapes(self, K):
        return {"coef_": (K, K), "intercept_": (K,)}

    def _predict(self, x, out):
        affine_softmax(x, self.coef_, self.intercept_, out)
