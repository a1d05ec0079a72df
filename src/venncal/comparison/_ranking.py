"""Mean ranks, pairwise win rates, the noise between two methods and the recommendation."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["NOISE_SE", "Recommendation", "average_ranks", "mean_ranks", "paired_gap",
           "recommend", "win_rates"]

#: A method is within noise of the best when its mean paired log-loss gap over the
#: folds is at most this many standard errors of that mean.
NOISE_SE = 2.0


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..m of ``values`` (lower is better), ties sharing their mean rank, NaN last.

    Examples
    --------
    >>> average_ranks(np.array([0.3, 0.1, 0.3, np.nan])).tolist()
    [2.5, 1.0, 2.5, 4.0]
    """
    v = np.where(np.isnan(values), np.inf, values)
    order = np.argsort(v, kind="stable")
    ranks = np.empty(v.shape[0])
    i = 0
    while i < v.shape[0]:
        j = i
        while j + 1 < v.shape[0] and v[order[j + 1]] == v[order[i]]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def mean_ranks(per_fold: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Each method's rank on each fold (among ``per_fold``'s methods), averaged over the folds."""
    names = list(per_fold)
    if not names:
        return {}
    table = np.array([per_fold[m] for m in names])  # (methods, folds)
    ranks = np.column_stack([average_ranks(table[:, f]) for f in range(table.shape[1])])
    return {m: float(ranks[i].mean()) for i, m in enumerate(names)}


def win_rates(per_fold: Mapping[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """``rates[a][b]``: the fraction of folds where ``a``'s loss is below ``b``'s, ties half.

    So ``rates[a][b] + rates[b][a] == 1``.
    """
    out: dict[str, dict[str, float]] = {}
    for a, la in per_fold.items():
        out[a] = {}
        for b, lb in per_fold.items():
            if a != b:
                la_, lb_ = np.nan_to_num(la, nan=np.inf), np.nan_to_num(lb, nan=np.inf)
                out[a][b] = float(np.mean((la_ < lb_) + 0.5 * (la_ == lb_)))
    return out


def paired_gap(loss: np.ndarray, best: np.ndarray) -> tuple[float, float]:
    """``(mean, standard error)`` over the folds of ``loss - best`` (equal infinities: 0)."""
    with np.errstate(invalid="ignore"):  # inf - inf where both are infinite: 0 below
        d = np.where(loss == best, 0.0, loss - best)
    if not np.isfinite(d).all():
        return (math.inf if (d > 0).any() else -math.inf), math.nan
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.shape[0]))


def within_noise(loss: np.ndarray, best: np.ndarray) -> bool:
    """Whether the mean paired gap is at most :data:`NOISE_SE` standard errors (or zero)."""
    mean, se = paired_gap(loss, best)
    return mean == 0.0 or (math.isfinite(mean) and mean <= NOISE_SE * se)


class Recommendation(NamedTuple):
    """The method a comparison recommends, and why.

    Attributes
    ----------
    method : str or None
        None when no method ran on every fold.
    reason : str
    best : str or None
        The method of lowest mean out-of-fold log loss (which ``method`` is
        unless intervals were asked for).
    within_noise : tuple of str
        The methods whose log loss is within noise of ``best``'s, ``best`` included.
    """

    method: str | None
    reason: str
    best: str | None
    within_noise: tuple


def recommend(order: Sequence[str], ranks: Mapping[str, float], losses: Mapping[str, np.ndarray],
              gives_intervals: Mapping[str, bool], intervals: bool) -> Recommendation:
    """The recommendation among the methods of ``order`` (best mean log-loss rank first).

    The pick is the method of lowest mean out-of-fold log loss (ties: the
    better mean rank).  Mean ranks count a fold lost by a little like a fold
    lost by a lot, so with few folds they can prefer a method that is far off
    on one of them; the mean loss is what a user pays on new data (the rank
    rule lost to fixed methods in the calibration arena, ``venncal reproduce
    calibration-arena``).  With ``intervals`` the pick is the
    Venn-Abers method of lowest mean log loss.  Without, a Venn-Abers method
    within noise of the best is named in the reason, not picked.
    """
    if not order:
        return Recommendation(None, "no method ran on every fold (see the failures)", None, ())
    means = {m: float(np.mean(losses[m])) for m in order}
    by_mean = sorted(order, key=lambda m: (means[m], order.index(m)))
    best = by_mean[0]
    folds = losses[best].shape[0]
    near = tuple(m for m in by_mean if within_noise(losses[m], losses[best]))
    va = [m for m in by_mean if gives_intervals[m]]
    lowest = (f"lowest mean log loss over {folds} folds ({means[best]:.4g}; mean rank "
              f"{ranks[best]:.2f})")
    if intervals and not va:
        pick, why = best, f"intervals were asked for, but no Venn-Abers method ran on every " \
                          f"fold; {best} has the {lowest}"
    elif intervals and va[0] != best:
        pick, why = va[0], (f"intervals were asked for: {va[0]} is the Venn-Abers method of "
                            f"lowest mean log loss ({means[va[0]]:.4g}); "
                            f"{_gap(va[0], best, losses)}")
    elif gives_intervals[best]:
        pick, why = best, f"{lowest}, and it gives Venn-Abers intervals"
    else:
        nxt = (f" (next: {by_mean[1]}, {means[by_mean[1]]:.4g})" if len(by_mean) > 1 else "")
        pick, why = best, f"{lowest}{nxt}"
        if va and va[0] in near:
            why += (f"; {va[0]} gives Venn-Abers intervals and its log loss is within noise of "
                    f"{best}'s ({_gap(va[0], best, losses)}): ask for intervals to prefer it")
    if best == "uncalibrated" and pick == best:
        why += "; no calibrator improves on the scores themselves"
    tied = [m for m in by_mean[1:] if means[m] == means[best]]
    if tied:
        why += f"; {best} is tied on mean log loss with {', '.join(tied)} (first by mean rank)"
    top = order[0]
    if ranks[top] < ranks[pick]:
        why += (f"; the best mean rank is {top}'s ({ranks[top]:.2f}, against "
                f"{ranks[pick]:.2f}): ranks and means disagree when one fold is far off")
    if len(order) > 1 and len(near) == len(order):
        why += (f"; all {len(order)} methods are within noise of the best (paired log-loss gaps "
                f"within {NOISE_SE:g} standard errors over {folds} folds): on these data the "
                "choice matters little")
    return Recommendation(pick, why, best, near)


def _gap(method: str, best: str, losses: Mapping[str, np.ndarray]) -> str:
    mean, se = paired_gap(losses[method], losses[best])
    return f"log loss {mean:+.4g} (standard error {se:.2g}) against {best}, paired over the folds"
