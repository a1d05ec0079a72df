"""Slow, literal references for nearly-isotonic regression (kernel ``_kernels/neariso.py``).

The problem, for ordered points with targets ``z`` and weights ``w > 0``::

    minimise over b:  1/2 sum_i w_i (z_i - b_i)^2 + lam sum_i (b_i - b_{i+1})_+

Its optimality (KKT) conditions, with a multiplier ``u_j`` for the boundary
between points ``j`` and ``j + 1`` (``u_0 = u_n = 0``)::

    b_i = z_i - (u_i - u_{i-1}) / w_i,
    u_j = lam if b_j > b_{j+1},   u_j = 0 if b_j < b_{j+1},   u_j in [0, lam] if equal.

Two direct solvers, with nothing taken from the path algorithm:

* :func:`solve_exact`: every boundary is labelled "down" (``u = lam``),
  "up" (``u = 0``) or "fused"; for a labelling the values follow in exact
  rational arithmetic, and a labelling whose values satisfy every KKT
  condition gives the (unique) solution.  The labelling read off the dual
  solve below is tried first; all ``3**(n-1)`` are tried if it fails or on
  request (n <= 8).
* :func:`solve_dual` (n <= a few hundred): the dual problem is the bounded
  least-squares problem ``min ||W^(-1/2) D^T u - W^(1/2) z||^2`` over
  ``0 <= u <= lam`` (``D`` the difference operator), solved by scipy's
  bounded-variable least squares (an active-set method that terminates with
  the exact active set), then ``b = z - W^(-1) D^T u``.

:func:`knots_by_bisection` finds the path's knots from a direct solver alone:
the partition of the fit into runs of equal values only coarsens as ``lam``
grows, so an interval whose ends have the same partition holds no knot, and
one whose ends differ is halved until it is shorter than ``tol``.
"""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
from scipy.optimize import lsq_linear

__all__ = [
    "knots_by_bisection",
    "objective",
    "partition",
    "solve_dual",
    "solve_exact",
]


def objective(z, w, b, lam):
    """The nearly-isotonic objective at ``b``."""
    z, w, b = (np.asarray(v, dtype=float) for v in (z, w, b))
    return 0.5 * float(np.sum(w * (z - b) ** 2)) + lam * float(np.sum(np.maximum(b[:-1] - b[1:], 0)))


def _labelling_solution(z, w, lam, labels):
    """Values for one labelling of the boundaries, or None if it breaks a KKT condition."""
    n = len(z)
    u = {0: Fraction(0), n: Fraction(0)}  # u[j]: boundary after point j (1-based)
    blocks = []
    lo = 0
    for j in range(1, n + 1):
        if j == n or labels[j - 1] != "fused":
            blocks.append((lo, j))
            if j < n:
                u[j] = lam if labels[j - 1] == "down" else Fraction(0)
            lo = j
    b = [None] * n
    for lo, hi in blocks:
        A = sum(w[i] * z[i] for i in range(lo, hi))
        W = sum(w[i] for i in range(lo, hi))
        c = (A - (u[hi] - u[lo])) / W
        run = u[lo]
        for i in range(lo, hi):
            b[i] = c
            run = run + w[i] * (z[i] - c)  # u after point i
            if i + 1 < hi and not (0 <= run <= lam):
                return None
    for j in range(1, n):
        if labels[j - 1] == "down" and not b[j - 1] > b[j]:
            return None
        if labels[j - 1] == "up" and not b[j - 1] < b[j]:
            return None
    return b


def solve_exact(z, w, lam, exhaustive=False, guess=None):
    """Solve exactly (rational arithmetic) from the KKT conditions.

    The labelling read off ``guess`` (default: :func:`solve_dual`'s
    solution), as it stands and then with nearly equal neighbours relabelled,
    is tried first and kept only if it satisfies every KKT
    condition exactly (the minimiser is unique, so that certifies it);
    otherwise, or with ``exhaustive=True`` (n <= 8), every labelling is
    tried.  Returns the solution rounded once to float64.
    """
    guess = np.asarray(solve_dual(z, w, lam) if guess is None else guess)
    z = [Fraction(float(v)) for v in z]
    w = [Fraction(float(v)) for v in w]
    lam = Fraction(float(lam))
    if not exhaustive:
        # The labelling of the guess as it stands (equal: fused), then, since
        # near a knot the float lam may fall just before or after the exact
        # one, with one or two of its boundaries between (nearly) equal values
        # given each other label: first from the exact labels, then from the
        # near boundaries all fused.
        scale = max(1.0, float(np.max(np.abs(guess))))
        pairs = list(itertools.pairwise(guess.tolist()))
        exact = ["fused" if a == b else "down" if a > b else "up" for a, b in pairs]
        near = [j for j, (a, b) in enumerate(pairs) if abs(a - b) <= 1e-7 * scale]
        fused = [("fused" if j in near else label) for j, label in enumerate(exact)]
        for base in (exact, fused):
            for r in range(min(2, len(near)) + 1):
                for where in itertools.combinations(near, r):
                    for how in itertools.product(("fused", "down", "up"), repeat=r):
                        labels = list(base)
                        for j, label in zip(where, how, strict=False):
                            labels[j] = label
                        b = _labelling_solution(z, w, lam, labels)
                        if b is not None:
                            return np.array([float(v) for v in b])
    if len(z) > 8:
        raise ValueError("exhaustive search enumerates 3**(n-1) labellings; use n <= 8")
    for labels in itertools.product(("fused", "down", "up"), repeat=len(z) - 1):
        b = _labelling_solution(z, w, lam, labels)
        if b is not None:
            return np.array([float(v) for v in b])
    raise AssertionError("no labelling satisfies the KKT conditions")


def solve_dual(z, w, lam):
    """Solve through the bounded least-squares dual (scipy BVLS)."""
    z = np.asarray(z, dtype=float)
    w = np.asarray(w, dtype=float)
    n = z.shape[0]
    if n == 1 or lam == 0:
        return z.copy()
    # (D^T u)_i = u_i - u_{i-1}: column j has +1 in row j and -1 in row j + 1.
    Dt = np.zeros((n, n - 1))
    Dt[np.arange(n - 1), np.arange(n - 1)] = 1.0
    Dt[np.arange(1, n), np.arange(n - 1)] = -1.0
    M = Dt / np.sqrt(w)[:, None]
    rhs = np.sqrt(w) * z
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        # scipy's BVLS may divide by zero in its convergence test; the
        # result is still the exact active-set solution (and is compared).
        warnings.simplefilter("ignore", RuntimeWarning)
        res = lsq_linear(M, rhs, bounds=(0.0, lam), method="bvls", tol=1e-15, max_iter=50 * n)
    return z - (Dt @ res.x) / w


def partition(b, tol=1e-9):
    """Start indices of the runs of (to ``tol``) equal adjacent values."""
    b = np.asarray(b, dtype=float)
    scale = max(1.0, float(np.max(np.abs(b))))
    return tuple([0] + [i + 1 for i in range(b.shape[0] - 1) if abs(b[i] - b[i + 1]) > tol * scale])


def knots_by_bisection(z, w, solve=solve_dual, tol=1e-9, separation=1e-6):
    """Return the knots of the path, each located to within ``tol`` by bisection.

    Close to a knot the merging groups differ by less than the partition
    tolerance, so one knot can show as a cluster of changes; changes closer
    than ``separation`` (relative) are reported once, at the first.
    """
    z = np.asarray(z, dtype=float)
    w = np.asarray(w, dtype=float)
    iso = partition(_isotonic(z, w))
    hi = 1.0
    while partition(solve(z, w, hi)) != iso:
        hi *= 2.0
    knots = []

    def search(lo, p_lo, hi, p_hi):
        if p_lo == p_hi:
            return
        if hi - lo <= tol * max(1.0, hi):
            knots.append(hi)
            return
        mid = 0.5 * (lo + hi)
        p_mid = partition(solve(z, w, mid))
        search(lo, p_lo, mid, p_mid)
        search(mid, p_mid, hi, p_hi)

    # lam = 0 is a knot when adjacent targets are equal (they are fused at once).
    p0 = partition(z)
    if p0 != tuple(range(z.shape[0])):
        knots.append(0.0)
    search(0.0, p0, hi, iso)
    distinct = []
    for t in sorted(knots):
        if not distinct or t - distinct[-1] > separation * max(1.0, t):
            distinct.append(t)
    return np.array(distinct)


def _isotonic(z, w):
    """Weighted isotonic regression by literal pooling of adjacent violators."""
    cells = [[float(wi * zi), float(wi), 1] for zi, wi in zip(z, w, strict=False)]
    merged = True
    while merged:
        merged = False
        for i in range(len(cells) - 1):
            if cells[i][0] / cells[i][1] > cells[i + 1][0] / cells[i + 1][1]:
                a, b = cells[i], cells.pop(i + 1)
                cells[i] = [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
                merged = True
                break
    return np.concatenate([np.full(c[2], c[0] / c[1]) for c in cells])
