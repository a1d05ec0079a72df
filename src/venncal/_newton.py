"""The minimisers of convex objectives: one variable on ``x >= 0``, and damped Newton in several.

The parametric calibrators (:mod:`venncal.parametric`) fit with them, and
through their logistic core :func:`venncal.metrics.calibration_slope_intercept`
fits the calibration slope.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.linalg import LinAlgError
from scipy.linalg import cho_factor, cho_solve

__all__ = [
    "Minimum", "MinimumND", "minimize_convex", "minimize_convex_newton_cg",
    "minimize_convex_nonnegative",
]


class Minimum(NamedTuple):
    """Where a search stopped: the point, the objective, its derivative, evaluations, success."""

    x: float
    f: float
    g: float
    n_iter: int
    converged: bool


#: Newton steps in a row that lower neither the value (by 1e-9 of it) nor the gradient (to
#: half its best) after which :func:`minimize_convex` stops: its value's rounding decides.
STALL_STEPS = 12

#: How close the minimiser must be pinned, relative to ``x``, before
#: :func:`minimize_convex_nonnegative` stops on ``|x g| <= tol``.
REL_STEP = 1e-6


def minimize_convex_nonnegative(
    terms: Callable[[float], tuple[float, float, float, float]], *, start: float = 1.0,
    tol: float, max_iter: int, rel_step: float = REL_STEP,
    g_error: Callable[[float], float] | None = None,
) -> Minimum:
    """Minimise a smooth convex function of one variable ``x >= 0`` by safeguarded Halley steps.

    ``terms(x)`` returns the value and the first three derivatives.  The
    bracket ``[lo, hi]`` starts as ``[0, inf)`` and every evaluation narrows
    it by the sign of the derivative.  The Halley step
    ``x - 2 g h / (2 h^2 - g q)`` is taken when its denominator is positive
    and it stays inside the bracket; else Newton's ``x - g / h``; else the
    bracket's midpoint (a doubling while it is unbounded).  The search stops
    when ``|x * g| <= tol`` and the minimiser is pinned within ``rel_step``
    of ``x``, or when the bracket is four ulps wide.  Pinned: Newton's step
    bounds the distance, ``(|g| + e) / h <= rel_step * x`` with ``e =
    g_error(g)`` the caller's bound on the rounding error of ``g`` (0 if
    None), or a bracket with ``0 < lo`` and ``hi - lo <= rel_step * hi``
    (``g = 0`` counts as ``g >= 0``).  The pin matters only where the
    function is flat relative to ``x`` (``x^2 h`` small), e.g. rows whose
    scores span 1e300: there ``|x g| <= tol`` holds far from the minimiser
    (``g`` may even round to 0), and the search goes on, alternating Halley
    or Newton steps with steps that shrink the bracket (its geometric mean,
    or ``hi`` divided by ``2**(2**j)`` while ``lo = 0``) so that it crosses
    hundreds of binades in tens of evaluations.  A Halley or Newton step
    longer than half the step before is replaced by such a bracket-cutting
    step (safeguarded Newton's rule: on an exponential tail, where the
    derivative is nearly constant and the curvature tiny, Halley's steps keep
    one length).  The derivative at 0 is evaluated
    only while no point of negative derivative is known (by convexity such
    a point puts the minimiser above it): if it is not negative, 0 is the
    minimiser.  The caller must make sure a finite minimiser exists (the
    doubling stops at the largest double).
    """
    lo, hi = 0.0, math.inf
    x = float(start)
    evals = 0
    best = None
    zero_checked = False  # g(0) < 0 is known (evaluated, or implied by a point of g < 0)
    flat_steps = 0  # steps taken since |x g| <= tol held without the minimiser pinned
    shrink = 1  # the exponent of the next division of hi while lo = 0 (flat steps)
    last_move = math.inf  # the length of the last step
    while evals < max_iter:
        if best is not None and best.g > 0.0 and not zero_checked:
            f0, g0, _, _ = terms(0.0)
            evals += 1
            zero_checked = True
            if g0 >= 0.0:
                return Minimum(0.0, f0, g0, evals, True)
            if evals >= max_iter:
                break
        f, g, h, q = terms(x)
        evals += 1
        best = Minimum(x, f, g, evals, False)
        if g < 0.0:
            zero_checked = True
            lo = x
        else:
            hi = x
        small = abs(x * g) <= tol
        err = 0.0 if g_error is None else g_error(g)
        pinned = (0.0 < h < math.inf and abs(g) + err <= rel_step * x * h) or (
            lo > 0.0 and math.isfinite(hi) and hi - lo <= rel_step * hi)
        done = (small and pinned) or (math.isfinite(hi) and hi - lo <= 4 * math.ulp(hi))
        if done and zero_checked:
            return best._replace(converged=True)
        if done:  # g(x) >= 0 and tiny: the minimiser is here unless it is 0
            f0, g0, _, _ = terms(0.0)
            if g0 >= 0.0:
                return Minimum(0.0, f0, g0, evals + 1, True)
            return best._replace(n_iter=evals + 1, converged=True)
        step = None
        if small or flat_steps:  # flat: every other step shrinks the bracket
            flat_steps += 1
            if flat_steps % 2 == 0:
                step, shrink = _shrink_step(lo, hi, shrink)
        if step is None:
            step = _halley_step(x, g, h, q, lo, hi)
            if step is not None and abs(step - x) > 0.5 * last_move:
                # not converging fast: on an exponential tail (weights of 1e15 beside 1e10)
                # Halley's steps keep one length, 4 units from beta = 877 down to 2.5
                cut, shrink = _shrink_step(lo, hi, shrink)
                step = cut if cut is not None else step
        if step is None and flat_steps:
            step, shrink = _shrink_step(lo, hi, shrink)
        if step is None:
            # lo + (hi - lo) / 2: 0.5 (lo + hi) overflowed past 9e307 (attack 46 F8)
            step = lo + 0.5 * (hi - lo) if math.isfinite(hi) else 2.0 * lo
            if not math.isfinite(step):
                break
        last_move, x = abs(step - x), step
    return best if best is not None else Minimum(x, math.nan, math.nan, evals, False)


def _shrink_step(lo, hi, shrink):
    """A point that cuts the bracket's binades: ``(step or None, next shrink exponent)``.

    ``hi / 2**shrink`` while ``lo = 0`` (the exponent doubles each time, up
    to 1024), the geometric mean of a bracket wider than a factor of 4, its
    midpoint otherwise; None while ``hi`` is unbounded.
    """
    if not math.isfinite(hi):
        return None, shrink
    if lo == 0.0:
        step = math.ldexp(hi, -shrink)
        if not step > 0.0:
            step = 5e-324 if hi > 5e-324 else None
        return step, min(2 * shrink, 1024)
    if hi / 4.0 > lo:
        return math.sqrt(lo) * math.sqrt(hi), shrink
    mid = lo + 0.5 * (hi - lo)  # no overflow near the largest double
    return (mid if lo < mid < hi else None), shrink


def _halley_step(x, g, h, q, lo, hi):
    """Halley's step from ``x`` if it lands strictly inside ``(lo, hi)``, else Newton's, else None."""
    den = 2.0 * h * h - g * q
    if 0.0 < h < math.inf and 0.0 < den < math.inf:
        step = x - 2.0 * g * h / den
        if lo < step < hi and step != x:
            return step
    if 0.0 < h < math.inf:
        step = x - g / h
        if lo < step < hi and step != x:
            return step
    return None


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
    polish: int = 0, settle: bool = False,
    short: Callable[[np.ndarray, np.ndarray], bool] | None = None,
) -> MinimumND:
    """Minimise a smooth convex function of ``x`` in R^d by damped Newton steps.

    ``terms(x)`` returns the value, the gradient (d,) and the Hessian (d, d);
    ``value(x)``, if given, the value alone (used by the line search; by
    default ``terms(x)[0]``).  Each step solves the Newton system (damped when
    the Hessian is singular, see :func:`_newton_direction`) and halves the step
    until the Armijo condition ``f(x + t d) <= f(x) + 1e-4 t g.d`` holds, or,
    near the minimum where the values agree to rounding, until the value is
    within a few ulps and the gradient is smaller.  The search stops when ``max
    |grad| <= tol`` (converged), when no step lowers the value or the gradient
    (at the limit of the double precision: not converged unless the gradient is
    within ``tol``), after :data:`STALL_STEPS` steps that lower neither the
    value by ``1e-9`` of it nor the gradient to half its best (steps accepted
    on the value's rounding alone), or after ``max_iter`` steps.  ``converged``
    also asks that the Newton step at the end be below ``1e-6 (1 + max |x|)``:
    a gradient that vanishes while the steps stay long is an infimum at
    infinity (separable classes), not a minimum.  ``short(x, d)``, if given,
    replaces that test of the Newton step ``d`` at ``x`` (e.g. a step that
    moves no fitted value by more than a tolerance).  The caller warns or raises
    on ``converged=False``.  With ``settle``, where the gradient is within
    ``tol`` but the Newton step is still long (only rows of small weight curve
    the function along some direction), the search goes on, as long as steps
    lower the value or the gradient.  ``polish`` full Newton steps more are
    taken at the end of a converged search, each kept only if it lowers the
    gradient, to a quarter or with a value no higher to rounding (Newton's
    quadratic convergence: the last bits of a minimum that ``tol`` accepted a
    few digits early).

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
    best_f, best_g, idle = f, gnorm, 0  # (a walk on the value's rounding: see below)
    while it < max_iter and not (gnorm <= tol and (not settle or _short_step(x, g, H, short))):
        if not (np.isfinite(f) and np.isfinite(gnorm)):
            break
        if idle >= STALL_STEPS:
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
        # Steps accepted on the value's rounding alone (its error far above 64 ulps: log-
        # probabilities of logits 1e-6 times scales of 1e6, 1e-11 of a loss of 1.3) walk
        # at random: 500 steps of ~28 values each per fit, 150 s for a cross-validated
        # matrix scaling of 300 rows.  The search stops after STALL_STEPS steps that lower
        # neither the value by 1e-9 of it nor the gradient to half its best.
        if f < best_f - 1e-9 * abs(best_f) or gnorm <= 0.5 * best_g:
            idle = 0
        else:
            idle += 1
        best_f, best_g = min(best_f, f), min(best_g, gnorm)
    # A vanishing gradient with Newton steps that do not shrink is an infimum at
    # infinity (e.g. separable classes), not a minimum.
    converged = gnorm <= tol and _short_step(x, g, H, short)
    for _ in range(polish if converged else 0):
        xt = x + _newton_direction(g, np.asarray(H, dtype=np.float64))
        ft, gt, Ht = terms(xt)
        gt_norm = float(np.max(np.abs(gt)))
        # a quarter of the gradient or less is Newton's quadratic convergence, whatever the
        # value's rounding says (a loss with terms far larger than itself rounds to 2e-14
        # relative: a step that took the gradient from 5.7e-13 to 4.8e-16 "raised" it)
        lower = gt_norm <= 0.25 * gnorm or ft <= f + 64 * np.finfo(float).eps * abs(f)
        if not (gt_norm < gnorm and lower):
            break
        x, f, g, H, gnorm = xt, ft, gt, Ht, gt_norm
        it += 1
    return MinimumND(x, float(f), g, gnorm, it, bool(converged))


def _short_step(x: np.ndarray, g: np.ndarray, H, short=None) -> bool:
    """Whether the Newton step ``d`` at ``x`` is short: ``short(x, d)``, by default ``max |d|
    <= 1e-6 (1 + max |x|)`` (any step is, in no dimension)."""
    if not g.size:
        return True
    d = _newton_direction(g, np.asarray(H, dtype=np.float64))
    if short is not None:
        return bool(short(x, d))
    return float(np.max(np.abs(d))) <= 1e-6 * (1.0 + float(np.max(np.abs(x))))


def _pcg(hessp, precond, rhs: np.ndarray, target: float, max_cg: int) -> tuple[np.ndarray, int]:
    """Solve ``H d = rhs`` by preconditioned conjugate gradients from ``d = 0``.

    Stops when the residual's largest component is ``<= target``, after
    ``max_cg`` products, or at a direction of no positive curvature (then
    ``d`` so far, or the preconditioned ``rhs`` if there is none yet).
    Returns ``d`` and the number of Hessian-vector products.
    """
    d = np.zeros_like(rhs)
    r = rhs.copy()
    z = precond(r)
    p = z.copy()
    rz = float(r @ z)
    for j in range(max_cg):
        if float(np.max(np.abs(r))) <= target or not rz > 0.0:
            return d, j
        Hp = hessp(p)
        curv = float(p @ Hp)
        if not (curv > 0.0 and np.isfinite(curv)):
            return (d if j else z), j + 1
        alpha = rz / curv
        d += alpha * p
        r -= alpha * Hp
        z = precond(r)
        rz_new = float(r @ z)
        p = z + (rz_new / rz) * p
        rz = rz_new
    return d, max_cg


def minimize_convex_newton_cg(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    curvature: Callable[[np.ndarray], tuple[Callable, Callable]], x0, *,
    tol: float, max_iter: int, max_cg: int = 250,
) -> tuple[MinimumND, int]:
    """Minimise a smooth convex function by truncated Newton steps (Newton-CG).

    ``fun(x)`` returns the value and the gradient; ``curvature(x)`` returns
    ``(hessp, precond)``: ``hessp(v)`` the exact Hessian at ``x`` times
    ``v``, ``precond(r)`` a symmetric positive definite approximation of
    the Hessian's inverse times ``r``.  Each step solves ``H d = -g`` by
    preconditioned conjugate gradients (at most ``max_cg`` products) until
    the predicted gradient ``g + H d`` has no component above ``max(tol /
    10, min(0.1, sqrt(|g|)) |g|)`` (``|g|``: the largest component), then
    halves the step until the Armijo condition holds or, where the values
    agree to rounding, the value is within 64 ulps and the gradient is
    smaller (as :func:`minimize_convex`).  It stops at ``max |g| <= tol``
    (converged), when no step is accepted, or after ``max_iter`` steps.
    Returns the :class:`MinimumND` and the number of Hessian-vector
    products.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 0.5], [0.5, 1.0]]); b = np.array([1.0, -1.0])
    >>> m, hv = minimize_convex_newton_cg(
    ...     lambda x: (0.5 * x @ A @ x - b @ x, A @ x - b),
    ...     lambda x: (lambda v: A @ v, lambda r: r / np.diag(A)), np.zeros(2), tol=1e-12,
    ...     max_iter=10)
    >>> bool(m.converged), np.allclose(m.x, np.linalg.solve(A, b)), m.n_iter, hv
    (True, True, 1, 2)
    """
    x = np.array(x0, dtype=np.float64)
    f, g = fun(x)
    gnorm = float(np.max(np.abs(g))) if g.size else 0.0
    it = products = 0
    while it < max_iter and not gnorm <= tol:
        if not (np.isfinite(f) and np.isfinite(gnorm)):
            break
        hessp, precond = curvature(x)
        target = max(0.1 * tol, min(0.1, math.sqrt(gnorm)) * gnorm)
        d, used = _pcg(hessp, precond, -g, target, max_cg)
        products += used
        slope = float(g @ d)
        if not slope < 0.0:
            d = -precond(g)
            slope = float(g @ d)
        t = 1.0
        accepted = None
        for _ in range(64):
            xt = x + t * d
            ft, gt = fun(xt)
            if ft <= f + 1e-4 * t * slope or (
                    np.isfinite(ft) and ft <= f + 64 * np.finfo(float).eps * abs(f)
                    and float(np.max(np.abs(gt))) < gnorm):
                accepted = (xt, ft, gt)
                break
            t *= 0.5
        if accepted is None:
            break
        x, f, g = accepted
        gnorm = float(np.max(np.abs(g))) if g.size else 0.0
        it += 1
    return MinimumND(x, float(f), g, gnorm, it, bool(gnorm <= tol)), products
