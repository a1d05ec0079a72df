"""Scores of probabilities over ``K >= 2`` classes: losses and calibration errors.

Each metric takes the true labels ``y`` in any coding, the ``(n, K)``
predicted probabilities ``proba`` (column ``k`` that of ``classes[k]``) and
frequency weights, checked by :func:`._checks._check_multiclass`, and is
the binary metric's definition carried to ``K`` classes:

- :func:`multiclass_log_loss`: the mean of ``-ln p_true`` (as :func:`log_loss`);
- :func:`multiclass_brier_loss`: the mean over rows of the sum over classes
  of squared errors, not divided by ``K`` (scikit-learn's multiclass
  ``brier_score_loss``);
- :func:`top_label_ece` and :func:`top_label_mce`: the ECE and MCE of the
  confidence ``max_k p_k`` against the event "the predicted class is the
  true one" (Guo, Pleiss, Sun & Weinberger 2017), binned as :func:`ece`;
- :func:`classwise_ece`: the unweighted mean over classes of the binary ECE
  of class ``k`` against the rest (Kull et al. 2019, eq. (5)).

The binned ones are built on the binary metrics' bins (:func:`._binned._bins`)
and so follow the same binning rules and weight handling.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._validation import validate_params
from ._binned import (
    BINNING_CONSTRAINTS,
    MIN_BIN_COUNT_CONSTRAINTS,
    CalibrationBins,
    _bins,
    _errors,
)
from ._checks import _check_multiclass
from ._docstrings import fill
from ._losses import (
    BRIER_SCALE_CONSTRAINTS,
    LOG_BASE_CONSTRAINTS,
    _mean_nll,
    _mean_square,
    _scaled_by,
)

__all__ = [
    "classwise_ece",
    "multiclass_brier_loss",
    "multiclass_log_loss",
    "top_label_calibration_bins",
    "top_label_ece",
    "top_label_mce",
]

_CONSTRAINTS = {
    **BINNING_CONSTRAINTS,
    **MIN_BIN_COUNT_CONSTRAINTS,
    **LOG_BASE_CONSTRAINTS,
    **BRIER_SCALE_CONSTRAINTS,
    "brier_scale": BRIER_SCALE_CONSTRAINTS["scale"],
}


def _inputs(owner: str, y, proba, classes, sample_weight, **params):
    """Return ``(idx, proba, w)`` of checked inputs; ``params`` are checked as well."""
    return _named_inputs(owner, y, proba, classes, sample_weight, **params)[1:]


def _named_inputs(owner: str, y, proba, classes, sample_weight, **params):
    """:func:`_inputs` with the classes first: ``(classes, idx, proba, w)``."""
    validate_params(owner, params, _CONSTRAINTS)
    return _check_multiclass(y, proba, classes, sample_weight)


def _p_true(idx: np.ndarray, proba: np.ndarray) -> np.ndarray:
    return proba[np.arange(proba.shape[0]), idx]


def _log_losses(idx: np.ndarray, proba: np.ndarray) -> np.ndarray:
    """Each row's ``-ln p_true`` (``inf`` where ``p_true = 0``)."""
    with np.errstate(divide="ignore"):
        return -np.log(_p_true(idx, proba))


def _errors_of(idx: np.ndarray, proba: np.ndarray) -> np.ndarray:
    """Each row's ``p_k - 1[y = k]``."""
    diff = proba.copy()
    diff[np.arange(proba.shape[0]), idx] -= 1.0
    return diff


def _row_sums_of_squares(diff: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", diff, diff)


def _mean_squared_errors(idx: np.ndarray, proba: np.ndarray, w) -> tuple[float, int]:
    """The (weighted) mean of the rows' ``sum_k (1[y = k] - p_k)**2``, as ``(m, e)``.

    As :func:`._losses._mean_square`: the errors are scaled before they are
    squared, so that errors of 1e-300 keep their digits.
    """
    return _mean_square(_errors_of(idx, proba), w, _row_sums_of_squares)


def _top_label(idx: np.ndarray, proba: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(correct, confidence)``: whether the predicted class is the true one, and its probability.

    The predicted class is the first column of largest probability (``np.argmax``,
    as scikit-learn's ``predict``), so a tie goes to the class first in ``classes``.
    """
    predicted = np.argmax(proba, axis=1)
    return predicted == idx, proba[np.arange(proba.shape[0]), predicted]


def _top_label_bins(idx, proba, w, n_bins: int, strategy: str) -> CalibrationBins:
    return _bins(*_top_label(idx, proba), w, n_bins, strategy)


def _classwise_bins(idx, proba, w, n_bins: int, strategy: str) -> list[CalibrationBins]:
    """The bins of class ``k`` against the rest, for each ``k``."""
    return [
        _bins(idx == k, np.ascontiguousarray(proba[:, k]), w, n_bins, strategy)
        for k in range(proba.shape[1])
    ]


def _classwise_ece(per_class: list[CalibrationBins]) -> float:
    return math.fsum(_errors(bins)[0] for bins in per_class) / len(per_class)


@fill
def multiclass_log_loss(
    y: ArrayLike, proba: ArrayLike, *, base: float | str = "e",
    classes: ArrayLike | None = None, sample_weight: ArrayLike | None = None
) -> float:
    """Mean log loss ``-log_base(p_y)`` over ``K`` classes, ``p_y`` the true class's probability.

    The :func:`log_loss` of ``K`` classes: for ``K = 2`` it is
    ``log_loss(y == classes[1], proba[:, 1])`` (to rounding, as that one
    computes ``ln(1 - p)`` with ``log1p``).  Nothing is clipped.

    Parameters
    ----------
    {y_proba}
    base : {2, 10, e}, default="e"
        Base of the logarithm, as for :func:`log_loss` (nats by default, as
        scikit-learn's ``log_loss``).
    {classes_weights}

    Returns
    -------
    float
        The mean loss; ``inf`` (without a warning) if a row of positive
        weight gives its true class probability 0, as :func:`log_loss` does.

    Examples
    --------
    >>> from venncal.metrics import multiclass_log_loss
    >>> proba = [[0.7, 0.2, 0.1], [0.25, 0.5, 0.25], [0.2, 0.3, 0.5]]
    >>> round(multiclass_log_loss(["a", "b", "c"], proba), 6)  # (ln 1/0.7 + 2 ln 2) / 3
    0.58099
    >>> multiclass_log_loss(["b", "a"], [[0.5, 0.5, 0.0], [0.0, 1.0, 0.0]], classes=["a", "b", "c"])
    inf
    """
    idx, proba, w = _inputs("multiclass_log_loss", y, proba, classes, sample_weight, base=base)
    return _mean_nll(_log_losses(idx, proba), w, base)


@fill
def multiclass_brier_loss(
    y: ArrayLike, proba: ArrayLike, *, scale: float = 1,
    classes: ArrayLike | None = None, sample_weight: ArrayLike | None = None
) -> float:
    """Mean Brier loss ``scale * sum_k (1[y = k] - p_k)**2``, summed over the ``K`` classes.

    Not divided by ``K``: with ``scale=1`` it lies in [0, 2] and equals
    scikit-learn's ``brier_score_loss`` of ``K`` columns (which halves it,
    ``scale_by_half="auto"``, only when ``K = 2``).  For ``K = 2`` it is
    twice the binary :func:`brier_loss` (both classes' errors are equal), so
    ``scale=0.5`` gives the binary one.

    Parameters
    ----------
    {y_proba}
    scale : float, default=1
        Positive factor.
    {classes_weights}

    Returns
    -------
    float
        In ``[0, 2 * scale]``; 0 only for certain right predictions.

    Examples
    --------
    >>> from venncal.metrics import multiclass_brier_loss
    >>> proba = [[0.7, 0.2, 0.1], [0.25, 0.5, 0.25], [0.2, 0.3, 0.5]]
    >>> round(multiclass_brier_loss([0, 1, 2], proba), 6)  # (0.14 + 0.375 + 0.38) / 3
    0.298333
    """
    idx, proba, w = _inputs("multiclass_brier_loss", y, proba, classes, sample_weight, scale=scale)
    return _scaled_by(_mean_squared_errors(idx, proba, w), scale)


@fill
def top_label_calibration_bins(
    y: ArrayLike, proba: ArrayLike, *, n_bins: int = 10, strategy: str = "uniform",
    classes: ArrayLike | None = None, sample_weight: ArrayLike | None = None
) -> CalibrationBins:
    """Return the bins of the confidence ``max_k p_k``, those of :func:`top_label_ece`.

    Each row is the binary event "the predicted class (the first of largest
    probability) is the true one" with the probability ``max_k p_k``, binned
    as :func:`calibration_bins` bins ``p``: ``frac_pos`` is each bin's
    accuracy and ``mean_pred`` its mean confidence.  Confidences are at
    least ``1/K``, so uniform bins below ``1/K`` stay empty.

    Parameters
    ----------
    {mc_binned}

    Returns
    -------
    CalibrationBins
        ``frac_pos`` is each bin's accuracy, ``mean_pred`` its mean confidence.

    Examples
    --------
    >>> from venncal.metrics import top_label_calibration_bins
    >>> proba = [[0.9, 0.05, 0.05], [0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6]]
    >>> bins = top_label_calibration_bins([0, 1, 1, 2], proba, n_bins=2)
    >>> bins.weight, bins.frac_pos, bins.mean_pred  # accuracy 0.75 at mean confidence 0.7
    (array([0., 4.]), array([ nan, 0.75]), array([nan, 0.7]))
    """
    idx, proba, w = _inputs("top_label_calibration_bins", y, proba, classes, sample_weight,
                            n_bins=n_bins, strategy=strategy)
    return _top_label_bins(idx, proba, w, n_bins, strategy)


@fill
def top_label_ece(
    y: ArrayLike, proba: ArrayLike, *, n_bins: int = 10, strategy: str = "uniform",
    classes: ArrayLike | None = None, sample_weight: ArrayLike | None = None
) -> float:
    """Top-label (confidence) ECE: ``sum_b P(b) |acc_b - conf_b|`` over the bins of ``max_k p_k``.

    The expected calibration error of Guo, Pleiss, Sun & Weinberger 2017
    (eq. (3)): the :func:`ece` of the bins of
    :func:`top_label_calibration_bins`, where ``acc_b`` is the fraction of
    rows in bin ``b`` whose predicted class is the true one and ``conf_b``
    their mean largest probability.

    Parameters
    ----------
    {y_proba}
    n_bins : int, default=10
        Number of bins of the confidences, as in :func:`top_label_calibration_bins`.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins on [0, 1] or bins of (nearly) equal weight, as :func:`ece`'s.
    {classes_weights}

    Returns
    -------
    float
        In [0, 1]; 0 when each bin's accuracy is its mean confidence.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.metrics import top_label_ece
    >>> proba = np.array([[0.9, 0.05, 0.05], [0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6]])
    >>> y = np.array([0, 1, 1, 2])
    >>> round(top_label_ece(y, proba, n_bins=5), 6)  # (|1 - 0.9| + 3 |2/3 - 1.9/3|) / 4
    0.05
    """
    idx, proba, w = _inputs("top_label_ece", y, proba, classes, sample_weight,
                            n_bins=n_bins, strategy=strategy)
    return _errors(_top_label_bins(idx, proba, w, n_bins, strategy))[0]


@fill
def top_label_mce(
    y: ArrayLike, proba: ArrayLike, *, n_bins: int = 10, strategy: str = "uniform",
    min_bin_count: float | None = None, classes: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Top-label MCE: ``max_b |acc_b - conf_b|`` over the non-empty bins of ``max_k p_k``.

    The :func:`mce` of the bins of :func:`top_label_calibration_bins`
    (Guo et al. 2017, eq. (5)).

    Parameters
    ----------
    {y_proba}
    {mc_binning}
    min_bin_count : float >= 0, default=None
        As for :func:`mce`: only the bins of at least this weight (rows) count.
    {classes_weights}

    Returns
    -------
    float
        In [0, 1]; NaN when ``min_bin_count`` leaves out every non-empty bin.

    Examples
    --------
    >>> from venncal.metrics import top_label_mce
    >>> proba = [[0.9, 0.05, 0.05], [0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6]]
    >>> round(top_label_mce([0, 1, 1, 2], proba, n_bins=5), 6)  # the bin of 0.9
    0.1
    >>> round(top_label_mce([0, 1, 1, 2], proba, n_bins=5, min_bin_count=2), 6)
    0.033333
    """
    idx, proba, w = _inputs("top_label_mce", y, proba, classes, sample_weight, n_bins=n_bins,
                            strategy=strategy, min_bin_count=min_bin_count)
    return _errors(_top_label_bins(idx, proba, w, n_bins, strategy), min_bin_count)[1]


@fill
def classwise_ece(
    y: ArrayLike, proba: ArrayLike, *, n_bins: int = 10, strategy: str = "uniform",
    classes: ArrayLike | None = None, sample_weight: ArrayLike | None = None
) -> float:
    """Class-wise ECE: the mean over the ``K`` classes of ``ece(y == classes[k], proba[:, k])``.

    Each class's binary :func:`ece` (with its own bins, weighted by
    ``sample_weight``), averaged with equal weight ``1/K`` per class, not
    by class frequency: the class-wise ECE of Kull et al. 2019 (eq. (5))
    and the static calibration error of Nixon et al. 2019.  A class that
    never occurs in ``y`` still counts: its ECE is that of its probabilities
    against 0.

    Parameters
    ----------
    {y_proba}
    n_bins : int, default=10
        Number of bins ``B`` of each class's probabilities ``proba[:, k]``.
    strategy : {"uniform", "quantile"}, default="uniform"
        The binning of :func:`ece`, applied class by class (each class has its own
        quantile bins).
    {classes_weights}

    Returns
    -------
    float
        In [0, 1]; 0 when every class is calibrated in each of its bins.

    Examples
    --------
    >>> from venncal.metrics import classwise_ece
    >>> y = ["cat", "dog", "dog", "emu"]
    >>> p = [[0.9, 0.05, 0.05], [0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6]]
    >>> round(classwise_ece(y, p, n_bins=5, classes=["cat", "dog", "emu"]), 6)
    0.2
    """
    idx, proba, w = _inputs("classwise_ece", y, proba, classes, sample_weight,
                            n_bins=n_bins, strategy=strategy)
    return _classwise_ece(_classwise_bins(idx, proba, w, n_bins, strategy))
