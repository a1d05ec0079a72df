"""The minimisers of convex objectives: one variable on ``x >= 0``, and damped Newton in several.

The parametric calibrators (:mod:`venncal.parametric`) fit with them, and
:func:`venncal.metrics.calibration_slope_intercept` fits the calibration
line with :func:`minimize_convex`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.linalg import LinAlgError
from scipy.linalg import cho_factor, cho_solve

__all__ = ["Minimum", "MinimumND", "minimize_convex", "minimize_convex_nonnegative"]


class Minimum(NamedTuple):
    """Where a search stopped: the point, the objective, its derivative, evaluations, success."""

    x: float
    f: float
    g: float
    n_iter: int
    converged: bool


def minimize_convex_nonnegative(
    terms: Callable[[float], tuple[float, float, float]], *, start: float = 1.0, tol: float,
    max_iter: int,
) -> Minimum:
    """Minimise a smooth convex function of one variable ``x >= 0``.

    ``terms(x)`` returns the value, the first and the second derivative.  If
    the derivative at 0 is not negative, 0 is the minimiser.  Otherwise
    Newton's method starts at ``start > 0`` (the caller's guess of the
    scale) inside the bracket ``[0, inf)``, which every evaluation narrows
    by the sign of the derivative; a step that leaves the bracket is
    replaced by its midpoint (or a doubling while the bracket is unbounded),
    until ``|x * f'(x)| <= tol`` or the bracket is four ulps wide.  The
    caller must make sure a finite minimiser exists (the derivative becomes
    positive somewhere): the doubling stops at the largest double.
    """
    f, g, h = terms(0.0)
    evals = 1
    if g >= 0.0:
        return Minimum(0.0, f, g, evals, True)
    lo, hi = 0.0, math.inf
    x = float(start)
    best = Minimum(0.0, f, g, evals, False)
    while evals < max_iter:
        f, g, h = terms(x)
        evals += 1
        best = Minimum(x, f, g, evals, False)
        if abs(x * g) <= tol or g == 0.0:
            return best._replace(converged=True)
        if g < 0.0:
            lo = x
        else:
            hi = x
        if math.isfinite(hi) and hi - lo <= 4 * math.ulp(hi):
            return best._replace(converged=True)
        step = x - g / h if 0.0 < h < math.inf else math.nan
        if not (lo < step < hi) or step == x:
            step = 0.5 * (lo + hi) if math.isfinite(hi) else 2.0 * lo
            if not math.isfinite(step):
                break
        x = step
    return best


class MinimumND(NamedTuple):
    """Where a search in several variables stopped.

    ``grad_norm`` is the largest absolute component of ``grad``;
    ``n_iter`` counts Newton steps; ``converged`` says ``grad_norm <= tol``.
    """

    x: np.ndarray
    f: float
    grad: np.ndarray
    grad_norm: float
    n_iter: int
    converged: bool


def _newton_direction(g: np.ndarray, H: np.ndarray) -> np.ndarray:
    """Solve ``H d = -g`` by Cholesky, adding ``lam * I`` until ``H + lam I`` factors.

    ``lam`` starts at ``2**-40`` of the largest diagonal entry and grows
    tenfold; a convex objective's Hessian is positive semi-definite, so the
    damping is needed only when it is singular or rounding made it
    indefinite (a direction that does not fit in the span of the data).
    """
    scale = float(np.max(np.abs(np.diag(H)))) if H.size else 0.0
    if not (scale > 0.0 and np.isfinite(scale)):
        scale = 1.0
    lam = 0.0
    eye = np.eye(H.shape[0])
    for _ in range(60):
        try:
            factor = cho_factor(H + lam * eye if lam else H, check_finite=True)
            d = cho_solve(factor, -g)
            if np.all(np.isfinite(d)):
                return d
        except (LinAlgError, ValueError):
            pass
        lam = scale * 2.0**-40 if lam == 0.0 else lam * 10.0
    return -g / scale


def minimize_convex(
    terms: Callable[[np.ndarray], tuple[float, np.ndarray, np.ndarray]], x0, *,
    value: Callable[[np.ndarray], float] | None = None, tol: float = 1e-10, max_iter: int = 100,
) -> MinimumND:
    """Minimise a smooth convex function of ``x`` in R^d by damped Newton steps.

    ``terms(x)`` returns the value, the gradient (d,) and the Hessian (d, d);
    ``value(x)``, if given, the value alone (used by the line search; by
    default ``terms(x)[0]``).  Each step solves the Newton system (damped
    when the Hessian is singular, see :func:`_newton_direction`) and halves
    the step until the Armijo condition ``f(x + t d) <= f(x) + 1e-4 t g.d``
    holds, or, near the minimum where the values agree to rounding, until
    the value is within a few ulps and the gradient is smaller.  The search
    stops when ``max |grad| <= tol`` (converged), when no step lowers the
    value or the gradient (at the limit of the double precision: not
    converged unless the gradient is within ``tol``), or after ``max_iter``
    steps.  ``converged`` also asks that the Newton step at the end be
    below ``1e-6 (1 + max |x|)``: a gradient that vanishes while the steps
    stay long is an infimum at infinity (separable classes), not a
    minimum.  The caller warns or raises on ``converged=False``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 0.5], [0.5, 1.0]]); b = np.array([1.0, -1.0])
    >>> m = minimize_convex(lambda x: (0.5 * x @ A @ x - b @ x, A @ x - b, A), np.zeros(2))
    >>> bool(m.converged), np.allclose(m.x, np.linalg.solve(A, b)), m.n_iter
    (True, True, 1)
    """
    x = np.array(x0, dtype=np.float64)
    f, g, H = terms(x)
    gnorm = float(np.max(np.abs(g))) if g.size else 0.0
    it = 0
    while it < max_iter and not gnorm <= tol:
        if not (np.isfinite(f) and np.isfinite(gnorm)):
            break
        d = _newton_direction(g, np.asarray(H, dtype=np.float64))
        slope = float(g @ d)
        if not slope < 0.0:
            d, slope = -g, -float(g @ g)
        t = 1.0
        accepted = None
        for _ in range(64):
            xt = x + t * d
            ft = value(xt) if value is not None else terms(xt)[0]
            if ft <= f + 1e-4 * t * slope:
                accepted = xt
                break
            if np.isfinite(ft) and ft <= f + 64 * np.finfo(float).eps * abs(f):
                gt = terms(xt)[1]
                if float(np.max(np.abs(gt))) < gnorm:
                    accepted = xt
                    break
            t *= 0.5
        if accepted is None:
            break
        x = accepted
        f, g, H = terms(x)
        gnorm = float(np.max(np.abs(g))) if g.size else 0.0
        it += 1
    converged = gnorm <= tol
    if converged and g.size:
        # A vanishing gradient with Newton steps that do not shrink is an
        # infimum at infinity (e.g. separable classes), not a minimum.
        d = _newton_direction(g, np.asarray(H, dtype=np.float64))
        converged = float(np.max(np.abs(d))) <= 1e-6 * (1.0 + float(np.max(np.abs(x))))
    return MinimumND(x, float(f), g, gnorm, it, bool(converged))
