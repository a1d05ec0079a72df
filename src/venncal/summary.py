"""The score summary: sorted distinct scores with total and positive weight."""

from __future__ import annotations

import numpy as np

from ._kernels import (
    merge_summaries,
    split_by_label,
    summarize_by_order,
    summarize_sorted_classes,
)
from ._validation import check_binary_labels, check_sample_weight, check_scores

__all__ = ["ScoreSummary"]


def summarize(scores: np.ndarray, y01: np.ndarray, weights: np.ndarray | None):
    """Reduce validated arrays to ``(s, w, a)`` (see :class:`ScoreSummary`)."""
    if weights is None:
        neg, pos = split_by_label(scores, y01)
        neg.sort()
        pos.sort()
        return summarize_sorted_classes(neg, pos)
    order = np.argsort(scores)
    return summarize_by_order(scores, y01, weights, order)


class ScoreSummary:
    """Calibration data reduced to sorted distinct scores and their weights.

    Every batch calibrator in venncal depends on the calibration data only
    through this summary, and two summaries merge exactly, so calibration
    data can be reduced in pieces (for example per partition of a
    distributed data set) and merged before fitting.

    Parameters
    ----------
    scores : ndarray of shape (k,)
        Strictly increasing distinct scores.
    weights : ndarray of shape (k,)
        Total (frequency) weight of the observations at each score, > 0.
    positive_weights : ndarray of shape (k,)
        Weight of the observations labelled 1 at each score.

    Examples
    --------
    >>> from venncal import ScoreSummary
    >>> s = ScoreSummary.from_arrays([0.3, 0.1, 0.3, 0.9], [1, 0, 0, 1])
    >>> s.scores, s.weights, s.positive_weights
    (array([0.1, 0.3, 0.9]), array([1., 2., 1.]), array([0., 1., 1.]))
    >>> s.merge(ScoreSummary.from_arrays([0.3], [1])).weights
    array([1., 3., 1.])
    """

    __slots__ = ("positive_weights", "scores", "weights")

    def __init__(self, scores, weights, positive_weights):
        s = np.ascontiguousarray(scores, dtype=np.float64)
        w = np.ascontiguousarray(weights, dtype=np.float64)
        a = np.ascontiguousarray(positive_weights, dtype=np.float64)
        if s.ndim != 1 or s.shape != w.shape or s.shape != a.shape:
            raise ValueError("scores, weights and positive_weights must be 1-D of equal length")
        if s.shape[0] and not (np.all(np.isfinite(s)) and np.all(np.diff(s) > 0)):
            raise ValueError("summary scores must be finite and strictly increasing")
        if not (np.all(w > 0) and np.all(a >= 0) and np.all(a <= w)):
            raise ValueError("summary weights must satisfy 0 <= positive_weights <= weights, 0 < weights")
        self.scores = s
        self.weights = w
        self.positive_weights = a

    @classmethod
    def from_arrays(cls, scores, y, sample_weight=None) -> ScoreSummary:
        """Summarize scores with labels in {0, 1} (or booleans).

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
        y : array-like of shape (n_samples,)
            Labels 0 and 1, or booleans (True is positive).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights; observations of zero weight are
            dropped.

        Returns
        -------
        ScoreSummary
        """
        s = check_scores(scores)
        y01 = check_binary_labels(y, s.shape[0])
        w = check_sample_weight(sample_weight, s.shape[0])
        return cls._from_validated(s, y01, w)

    @classmethod
    def _from_validated(cls, scores, y01, weights) -> ScoreSummary:
        out = cls.__new__(cls)
        out.scores, out.weights, out.positive_weights = summarize(scores, y01, weights)
        return out

    def merge(self, other: ScoreSummary) -> ScoreSummary:
        """Return the summary of both data sets together (exact)."""
        if not isinstance(other, ScoreSummary):
            raise TypeError(f"can only merge with a ScoreSummary, not {type(other).__name__}")
        out = ScoreSummary.__new__(ScoreSummary)
        out.scores, out.weights, out.positive_weights = merge_summaries(
            self.scores, self.weights, self.positive_weights,
            other.scores, other.weights, other.positive_weights,
        )
        return out

    @property
    def n_distinct(self) -> int:
        """Number of distinct scores."""
        return int(self.scores.shape[0])

    @property
    def total_weight(self) -> float:
        """Total weight of the summarized observations."""
        return float(self.weights.sum())

    @property
    def positive_weight(self) -> float:
        """Total weight of the observations labelled 1."""
        return float(self.positive_weights.sum())

    def __len__(self) -> int:
        return self.n_distinct

    def __repr__(self) -> str:
        return (
            f"ScoreSummary(n_distinct={self.n_distinct}, total_weight={self.total_weight:g}, "
            f"positive_weight={self.positive_weight:g})"
        )

    def auc(self) -> float:
        """Return the weighted ROC AUC of the summarised scores for label 1 (ties count 1/2).

        The Mann-Whitney statistic: the weight of the (positive, negative)
        pairs whose positive has the higher score, a tie counting 1/2, over
        the weight of all pairs (as :func:`venncal.metrics.roc_auc` with
        ``sample_weight``).

        Raises
        ------
        ValueError
            If the summary holds one class only (no pair to rank).

        Examples
        --------
        >>> from venncal import ScoreSummary
        >>> ScoreSummary.from_arrays([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]).auc()
        0.875
        """
        pos = self.positive_weights
        neg = self.weights - pos
        if not (pos.max(initial=0.0) > 0 and neg.max(initial=0.0) > 0):
            raise ValueError("the AUC needs both classes in the summary (with positive weight)")
        # Each class's weights scaled by its largest (so in [0, 1], their sums in [1, k]), so
        # that weights near 1e308 do not overflow the product of the totals, nor 1e-310
        # underflow it.  Each positive beats the negatives below its score; ties count 1/2.
        a, b = pos / pos.max(), neg / neg.max()
        cum = np.cumsum(b)
        wins = np.sum(a * (cum - 0.5 * b))  # the negatives below, half of those at the score
        return float(wins / (a.sum() * cum[-1]))
