"""Discrimination: the area under the ROC curve and accuracy at a threshold."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._validation import Interval, validate_params
from ..summary import ScoreSummary
from ._checks import _check_inputs, _mean, _unit_scaled
from ._docstrings import fill

__all__ = ["accuracy", "roc_auc"]


class _Roc(NamedTuple):
    """The ROC curve, one point per distinct ``p`` from (0, 0) to (1, 1), and its area."""

    fpr: np.ndarray
    tpr: np.ndarray
    auc: float


def _class_weights(y01, p, w) -> tuple[np.ndarray, np.ndarray]:
    """Positive and negative weight at each distinct ``p`` (ascending), from the summary.

    With weights, those of each class divided by a power of two that brings
    the class's largest to ``[0.5, 1)`` (exact; the ROC curve and the AUC
    are the same for any factor of one class's weights), so that no sum
    overflows and no class's weights vanish beside the other's.
    """
    if w is not None:
        w = w.copy()
        for mask in (y01, ~y01):
            if mask.any():
                w[mask] = _unit_scaled(w[mask])
    summary = ScoreSummary._from_validated(p, y01, w)
    # each class summed on its own: a light class tied with a heavy one keeps its weight
    pos = summary.positive_weights
    neg = summary.negative_weights
    if summary._residual is not None:
        _, pos_rest, neg_rest = summary._residual
        pos = pos + pos_rest
        neg = neg + neg_rest
    if not (pos.sum() > 0 and neg.sum() > 0):
        raise ValueError("the ROC curve and AUC need both classes in y (with positive weight)")
    return pos, neg


def _auc(pos: np.ndarray, neg: np.ndarray) -> float:
    # Mann-Whitney: each positive beats the negatives below its value, and
    # ties with the negatives at its value count 1/2.
    neg_below = np.concatenate(([0.0], np.cumsum(neg)[:-1]))
    return float(np.sum(pos * (neg_below + 0.5 * neg)) / (pos.sum() * neg.sum()))


def _roc(y01, p, w) -> _Roc:
    """Return the ROC curve and AUC of validated inputs (one computation for both)."""
    pos, neg = _class_weights(y01, p, w)
    tp = np.concatenate(([0.0], np.cumsum(pos[::-1])))
    fp = np.concatenate(([0.0], np.cumsum(neg[::-1])))
    return _Roc(fp / fp[-1], tp / tp[-1], _auc(pos, neg))


@fill
def roc_auc(
    y: ArrayLike, p: ArrayLike, *, pos_label=None, sample_weight: ArrayLike | None = None
) -> float:
    """Area under the ROC curve, exact, with ties counted 1/2.

    This is the Mann-Whitney statistic ``U / (n_pos * n_neg)``: the fraction
    of (positive, negative) pairs with ``p_pos > p_neg``, a tie counting 1/2
    (with ``sample_weight``, pairs are weighted by the product of weights).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels 0 and 1, or booleans (or any two labels with ``pos_label``).
    p : array-like of shape (n_samples,)
        Predicted probabilities (any increasing score works as well, but the
        shared validation asks for [0, 1]).
    {weights}

    Returns
    -------
    float
        In [0, 1]; 0.5 for predictions that do not separate the classes.

    Raises
    ------
    ValueError
        If ``y`` holds only one class.

    Examples
    --------
    >>> from venncal.metrics import roc_auc
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8])
    0.875
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    return _auc(*_class_weights(y01, p, w))


@fill
def accuracy(
    y: ArrayLike, p: ArrayLike, *, threshold: float = 0.5, pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Fraction of correct predictions when predicting the positive class iff ``p > threshold``.

    A tie ``p == threshold`` predicts the negative class, as ``predict`` of
    venncal's calibrators does (``classes_[0]`` on ``p == 0.5``).

    Parameters
    ----------
    {y_p}
    threshold : float in [0, 1], default=0.5
    {weights}

    Returns
    -------
    float
        The (weighted) fraction of rows whose label is the predicted one.

    Examples
    --------
    >>> from venncal.metrics import accuracy
    >>> accuracy([0, 1, 1, 0], [0.2, 0.7, 0.5, 0.5])
    0.75
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    validate_params("accuracy", {"threshold": threshold}, {"threshold": [Interval("real", 0, 1)]})
    return _accuracy(y01, p, w, threshold)


def _accuracy(y01: np.ndarray, p: np.ndarray, w: np.ndarray | None, threshold: float = 0.5) -> float:
    """:func:`accuracy` of validated inputs."""
    return _mean((p > threshold) == y01, w)
