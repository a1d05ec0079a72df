"""Penalties of matrix and structured scaling chosen by cross-validated log loss.

A penalty parameter (``l2_off_diagonal``, ``l2_intercept``, ``l2_diagonal``)
is a number (fixed), ``"cv"`` (chosen from :func:`default_grid`) or a 1-D
array of candidate values (chosen from those).  :func:`select_penalties`
cuts the rows into ``cv`` stratified folds (:func:`stratified_folds`: fixed,
no random state), fits every candidate on each fold's other rows and scores
it by the weighted log loss of the fold's own rows, summed over the folds.

The search is not the full product of the grids (``G**m`` candidates for
``m`` penalties): it walks the *tied path* first, every penalty at the same
position ``i`` of its grid, from the strongest end (a map near temperature or
vector scaling, fitted fast) toward the weakest, each fold's fit
warm-started from its fit at the previous point, and stops two points after
the loss stopped falling; then it moves one penalty at a time by one grid
step while that lowers the loss (coordinate descent on the grid positions).
For one penalty this is the plain grid search.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = ["PENALTY_GRID", "default_grid", "penalty_values", "select_penalties",
           "stratified_folds"]


def _is_grid(value) -> bool:
    if isinstance(value, (str, bytes)) or np.ndim(value) != 1:
        return False
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return 1 <= arr.shape[0] <= 64 and bool(np.isfinite(arr).all() and (arr > 0).all())


def grid_rule():
    """The parameter constraint of a candidate grid (for ``_parameter_constraints``)."""
    from .._validation import Check

    return Check(_is_grid, "a 1-D array-like of 1 to 64 finite values > 0")


#: What ``"cv"`` searches (see :func:`default_grid`).
PENALTY_GRID = "powers of ten of the per-entry penalty from about 1/(10 n) to 100"


def default_grid(n_rows: int, norm: float) -> np.ndarray:
    """The ``"cv"`` candidates of a penalty divided by ``norm``, for ``n_rows`` rows.

    The objective is a *mean* log loss, so a penalty ``c`` on one entry
    weighs like ``c n`` rows' worth of a summed log loss; the per-entry
    penalty ``c = value / norm`` (``norm``: ``K (K - 1)`` off the diagonal,
    ``K`` for the diagonal and the intercepts, as in the objective) runs
    over the powers of ten from ``10**floor(log10(1 / (10 n)))`` (a tenth of
    a row: as good as unpenalised) to ``1e2`` (the entries pinned near 0:
    temperature scaling, vector scaling or the identity map).  Kull et al.
    2019 choose ``lambda`` and ``mu`` from powers of ten by cross-validation;
    this grid is theirs in spirit, placed by the number of rows.

    Examples
    --------
    >>> np.log10(default_grid(5000, 6.0) / 6.0).round(12).tolist()
    [-5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0]
    """
    low = math.floor(math.log10(1.0 / (10.0 * max(int(n_rows), 1))))
    return norm * 10.0 ** np.arange(low, 3, dtype=np.float64)


def penalty_values(value, n_rows: int, norm: float) -> np.ndarray | None:
    """The candidates of one penalty parameter, largest first; None for a fixed number."""
    if isinstance(value, str):
        return default_grid(n_rows, norm)[::-1].copy()
    if np.ndim(value) == 1:
        return np.unique(np.asarray(value, dtype=np.float64))[::-1].copy()
    return None


def stratified_folds(codes: np.ndarray, w: np.ndarray, cv: int) -> np.ndarray:
    """The fold (``0 .. cv-1``) of each row: every class's rows of positive weight dealt in turn.

    Deterministic (no random state): the rows are ordered by class, those of
    positive weight first, each group in a fixed pseudo-random order (a
    permutation drawn from ``numpy.random.default_rng(0)``), and dealt to
    the folds round-robin; each class then has as many rows of positive
    weight in every fold as it can (the counts differ by at most one).

    Examples
    --------
    >>> stratified_folds(np.array([0, 0, 0, 1, 1, 1]), np.ones(6), 3).tolist()
    [1, 2, 0, 0, 2, 1]
    """
    n = codes.shape[0]
    perm = np.random.default_rng(0).permutation(n)
    order = perm[np.lexsort(((w[perm] <= 0).astype(np.int8), codes[perm]))]
    folds = np.empty(n, dtype=np.intp)
    folds[order] = np.arange(n) % cv
    return folds


def check_cv_rows(codes, w, cv: int, classes, owner: str) -> None:
    """Raise unless every class has at least ``cv`` rows of positive weight."""
    counts = np.bincount(codes[w > 0], minlength=len(classes))
    few = np.flatnonzero(counts < cv)
    if few.size:
        k = int(few[0])
        label = np.asarray(classes)[k:k + 1].tolist()[0]
        raise ValueError(
            f"{owner}: choosing a penalty by cross-validation with cv={cv} needs at least "
            f"{cv} rows of positive weight in every class; class {label!r} has "
            f"{int(counts[k])}: lower cv or pass fixed penalties"
        )


def select_penalties(
    grids: dict[str, np.ndarray],
    fixed: dict[str, float],
    fit_fold: Callable[[int, dict, np.ndarray | None], np.ndarray],
    score_fold: Callable[[int, np.ndarray, dict], float],
    n_folds: int,
) -> tuple[dict[str, float], list[tuple[dict, float]], dict[int, np.ndarray]]:
    """Choose the penalties in ``grids`` (largest first) by the folds' summed log loss.

    ``fit_fold(f, penalties, theta0)`` fits fold ``f``'s training rows and
    returns the parameters; ``score_fold(f, theta, penalties)`` returns the
    weighted log loss *sum* of fold ``f``'s held-out rows.  Returns the
    chosen penalties (with ``fixed``), every candidate tried with its total
    held-out loss in the order tried, and each fold's fit at the choice.
    Ties keep the stronger penalty (met first on the path).
    """
    names = list(grids)
    sizes = [len(grids[k]) for k in names]
    tried: dict[tuple, float] = {}
    thetas: dict[tuple, list] = {}
    history: list[tuple[dict, float]] = []

    def penalties(pos):
        return {**fixed, **{k: float(grids[k][i]) for k, i in zip(names, pos)}}

    def evaluate(pos, start):
        if pos in tried:
            return tried[pos]
        pens = penalties(pos)
        fits, total = [], 0.0
        for f in range(n_folds):
            theta = fit_fold(f, pens, None if start is None else thetas[start][f])
            fits.append(theta)
            total += score_fold(f, theta, pens)
        tried[pos], thetas[pos] = total, fits
        history.append((pens, total))
        return total

    longest = max(sizes)
    best, best_loss, prev, rises = None, math.inf, None, 0
    for i in range(longest):
        pos = tuple(round(i * (s - 1) / (longest - 1)) if longest > 1 else 0 for s in sizes)
        loss = evaluate(pos, prev)
        prev = pos
        if loss < best_loss:
            best, best_loss, rises = pos, loss, 0
        else:
            rises += 1
            if rises >= 2:
                break
    if len(names) > 1:
        moved = True
        while moved:
            moved = False
            for j in range(len(names)):
                for step in (1, -1):
                    pos = list(best)
                    pos[j] += step
                    if not 0 <= pos[j] < sizes[j]:
                        continue
                    loss = evaluate(tuple(pos), best)
                    if loss < best_loss:
                        best, best_loss, moved = tuple(pos), loss, True
                        break
    return penalties(best), history, dict(enumerate(thetas[best]))


def choose_penalties(est, x, codes, w, classes):
    """The penalties ``est`` fits with (name -> value) and a warm start for the final fit.

    Fixed penalties are returned as they are (start: None).  Otherwise the
    grids' best point by :func:`select_penalties` on ``est.cv`` folds of the
    rows; the warm start is the mean of the folds' fits there.  ``est``
    provides ``_penalty_norms(K)``, ``_solve(x, codes, w, pens, theta0)`` and
    ``_heldout_loss(x, codes, w, theta, pens)``; it gets ``cv_results_``.
    """
    K = x.shape[1]
    fixed, grids = {}, {}
    n_pos = int(np.count_nonzero(w > 0))
    for name, norm in est._penalty_norms(K).items():
        cand = penalty_values(getattr(est, name), n_pos, norm)
        if cand is None:
            fixed[name] = float(getattr(est, name))
        else:
            grids[name] = cand
    if not grids:
        est.cv_results_ = None
        return fixed, None
    check_cv_rows(codes, w, est.cv, classes, type(est).__name__)
    folds = stratified_folds(codes, w, est.cv)
    parts = [(folds != f, folds == f) for f in range(est.cv)]

    def fit_fold(f, pens, theta0):
        tr = parts[f][0]
        return est._solve(x[tr], codes[tr], w[tr], pens, theta0)[0]

    def score_fold(f, theta, pens):
        te = parts[f][1]
        return est._heldout_loss(x[te], codes[te], w[te], theta, pens)

    chosen, history, fits = select_penalties(grids, fixed, fit_fold, score_fold, est.cv)
    total = float(np.sum(w))
    est.cv_results_ = {
        **{name: np.array([h[0][name] for h in history]) for name in grids},
        "log_loss": np.array([h[1] / total for h in history]),
    }
    return chosen, np.mean(np.stack(list(fits.values())), axis=0)
