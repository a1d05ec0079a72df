"""The minimisers of the parametric calibrators' convex objectives."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["Minimum", "minimize_convex_nonnegative"]


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
