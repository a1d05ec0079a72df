"""Mean width of Venn-Abers probability intervals."""

from __future__ import annotations

from numpy.typing import ArrayLike

from .._validation import check_probabilities, check_sample_weight
from ._checks import _mean

__all__ = ["interval_width"]


def interval_width(
    p0: ArrayLike, p1: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Mean width ``p1 - p0`` of Venn-Abers probability intervals.

    Parameters
    ----------
    p0, p1 : array-like of shape (n_samples,)
        Lower and upper probabilities, in [0, 1].  An IVAP always has
        ``p0 <= p1``; the pair a cross Venn-Abers predictor reports,
        ``(1 - GM(1 - p0), GM(p1))`` over its folds, can be unordered, and
        then contributes a negative width.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative frequency weights, for a weighted mean.

    Returns
    -------
    float
        In [-1, 1]; the same as the mean of ``p1`` minus the mean of ``p0``.

    Examples
    --------
    >>> from venncal.metrics import interval_width
    >>> round(interval_width([0.1, 0.5], [0.3, 0.6]), 12)
    0.15
    """
    lo = check_probabilities(p0, name="p0")
    hi = check_probabilities(p1, name="p1")
    if lo.shape != hi.shape:
        raise ValueError(f"p0 and p1 have different lengths: {lo.shape[0]} and {hi.shape[0]}")
    return _mean(hi - lo, check_sample_weight(sample_weight, lo.shape[0]))
