"""Vector scaling (Guo et al. 2017): one scale and one intercept per class."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .._kernels.parametric_matrix import vector_softmax
from ._affine import AffineScalingBase
from ._inputs import EPS, UnitFrame

__all__ = ["VectorScalingCalibrator"]


class VectorScalingCalibrator(AffineScalingBase):
    """Vector scaling of K class scores: ``softmax(a * x + b)``, one ``a_k`` and ``b_k`` per class.

    ``x`` is the row's log-probabilities: ``z - logsumexp(z)`` for logits
    ``z`` (so a constant added to a row changes nothing), ``ln p`` for
    probabilities (renormalised).  Fits the ``2K - 1`` free parameters
    (``b`` of the last class is fixed at 0: adding a constant to every
    ``b_k`` changes nothing) that minimise the weighted mean log loss
    ``sum_i w_i [logsumexp(a * x_i + b) - (a * x_i + b)_{y_i}] / sum_i w_i``,
    convex in ``(a, b)``, unregularised.  With K = 2 and probabilities it
    is Beta calibration's three-parameter form (Kull et al. 2017) on the
    second class.

    Parameters
    ----------
    score : {"logit", "proba"}, default="logit"
        The kind of the scores: softmax logits, or probabilities (every
        entry in [0, 1], rows summing to 1 within ``K * 2**-23``).
    eps : float in [0, 0.5), default=1e-7
        With ``score="proba"``: every probability below ``eps`` is raised to
        it (then the row's logarithms are renormalised), at fit and at
        predict, so that a 0 has a finite logarithm (docs/parametric.md,
        "Probabilities of 0 and 1").  ``eps=0``: a 0 is refused.
    classes : array-like of shape (K,), default=None
        The class labels in the order of the score columns; default: the
        sorted labels of ``y``, which must then be K of them.
    solver : {"auto", "newton", "lbfgs"}, default="auto"
        Damped Newton steps (``"auto"``: when ``2K - 1 <= 256``) or scipy's
        L-BFGS-B with the exact gradient (at most 100 iterations, then
        Newton-CG steps if the gradient is still above ``tol``).
    tol : float, default=1e-8
        The search stops when the gradient's largest component is ``<= tol``.
    max_iter : int, default=200
        The largest number of Newton (or L-BFGS-B) iterations; reaching it
        without meeting ``tol`` warns (``ConvergenceWarning``).
    n_jobs : int, default=None
        Threads summing the objective (None: every usable core); the fit is
        the same, bit for bit, for any ``n_jobs``.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    scale_ : ndarray of shape (K,)
        ``a``.
    intercept_ : ndarray of shape (K,)
        ``b`` (the last entry 0).
    loss_ : float
        The weighted mean log loss (natural log) at the fit.
    grad_norm_ : float
        The largest absolute component of its gradient there.
    n_iter_ : int
    converged_ : bool
        ``grad_norm_ <= tol`` (and, for Newton, a last step that is short).
    solver_ : {"newton", "lbfgs"}
    clipped_weight_ : float
        The total sample weight of the calibration rows with a probability
        raised to ``eps`` (their number when unweighted; 0 for logits).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.parametric import VectorScalingCalibrator
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(3000, 3)) * 2
    >>> x = z - np.log(np.exp(z).sum(axis=1, keepdims=True))  # log-probabilities
    >>> u = x * [0.5, 1.0, 2.0] + [0.0, 0.5, -0.5]            # the true map
    >>> y = np.array([rng.choice(3, p=np.exp(r) / np.exp(r).sum()) for r in u])
    >>> cal = VectorScalingCalibrator().fit(z, y)
    >>> cal.converged_, cal.scale_.round(1)
    (True, array([0.5, 1. , 2.2]))
    """

    _state: ClassVar[tuple[str, ...]] = ("scale_", "intercept_", *AffineScalingBase._state)

    def __init__(self, *, score="logit", eps=EPS, classes=None, solver="auto", tol=1e-8,
                 max_iter=200, n_jobs=None):
        self.score = score
        self.eps = eps
        self.classes = classes
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def _n_params(self, K, pens):
        return 2 * K - 1

    def _start(self, K, pens):
        return np.concatenate([np.ones(K), np.zeros(K - 1)])

    def _frame(self, x, w, pens):
        return UnitFrame(x, w)

    def _reframe(self, theta, K, pens, move):
        a, b = move(np.diag(theta[:K]), np.concatenate([theta[K:], [0.0]]))
        return np.concatenate([np.diag(a), (b - b[-1])[:-1]])  # b_K = 0: less a constant

    def _split(self, theta, K):
        return theta[:K].copy(), np.concatenate([theta[K:], [0.0]])

    def _objective(self, sums, theta, hess, pens):
        K = sums.x.shape[1]
        f, g, H = sums.vector(*self._split(theta, K), hess)
        return f, g[:-1], (H[:-1, :-1] if hess else None)

    def _lift(self, theta, K, pens):
        a, b = self._split(theta, K)
        return np.diag(a), b

    def _pull(self, G, K, pens):
        """The gradient (or Hessian product) in ``(a, b[:-1])`` from its (K, K+1) form in ``[W | b]``."""
        return np.concatenate([np.diag(G[:, :K]), G[:K - 1, K]])

    def _penalty_hessian(self, K, pens):
        return np.zeros(2 * K - 1)

    def _preconditioner(self, S, C, K, pens):
        """Jacobi: the diagonal of the Kronecker approximation ``S (x) C`` of the Hessian."""
        s = np.diag(S)
        d = np.concatenate([s * np.diag(C)[:K], s[:K - 1] * C[K, K]])
        d = np.maximum(d, 1e-10 * float(np.max(d)) if np.max(d) > 0 else 1.0)
        return lambda r: r / d

    def _store(self, theta, K, pens):
        self.scale_, self.intercept_ = self._split(theta, K)

    def _array_shapes(self, K):
        return {"scale_": (K,), "intercept_": (K,)}

    def _predict(self, x, out):
        vector_softmax(x, self.scale_, self.intercept_, out)
