"""The contract shared by every score-level calibrator."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ._kernels import scaled_sum
from ._validation import (
    ParamsMixin,
    check_labels,
    check_sample_weight,
    check_scores,
    warn_if_relative_weights,
)
from .summary import ScoreSummary, summarize

__all__ = ["ScoreCalibrator", "check_float_arrays", "check_summary"]


def check_float_arrays(owner, names, *, length=None, unit_interval=()):
    """Check that fitted attributes are finite 1-D float64 arrays of one length.

    Those named in ``unit_interval`` must also lie in [0, 1].  Returns the
    common length.
    """
    for name in names:
        arr = getattr(owner, name)
        if not isinstance(arr, np.ndarray) or arr.dtype != np.float64 or arr.ndim != 1:
            raise ValueError(f"{name} must be a 1-D float64 array")
        if length is None:
            length = arr.shape[0]
        if arr.shape[0] != length:
            raise ValueError(f"{name} must have length {length}; got {arr.shape[0]}")
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} must be finite")
        if name in unit_interval and not ((arr >= 0) & (arr <= 1)).all():
            raise ValueError(f"{name} must lie in [0, 1]")
    return length


class ScoreCalibrator(ParamsMixin, BaseEstimator):
    """Base class of the score-level calibrators (no model inside).

    A subclass implements ``_fit_sums(s, w, a)`` (fit from a score summary:
    sorted distinct scores ``s``, weights ``w > 0``, positive weights ``a``)
    and ``_predict_p(q)`` (probability of ``classes_[1]`` for validated
    float64 scores ``q``), and lists in ``_state`` the names of the fitted
    attributes (besides ``classes_``) that define it, all plain numbers or
    arrays, so that the calibrator saves and reloads exactly.  Parameter
    rules go in ``_parameter_constraints`` (see
    :func:`venncal._validation.validate_params`), checked by ``fit``, by
    ``fit_summary`` and when a saved model is loaded.

    Parameters are those of the subclass; ``classes`` (the two labels,
    ``[negative, positive]`` in that order; by default the observed labels
    sorted; needed when the calibration labels show a single class, unless
    they are booleans) is a parameter of every subclass.

    A subclass whose fit depends on the total of the (frequency) weights,
    not only on their ratios, says what depends on it in
    ``_weight_total_use`` (or overrides :meth:`_weight_total_depends`):
    weights that look relative then get a
    :class:`~venncal._validation.WeightScaleWarning`.

    A calibrator fitted per group of rows (the cross Venn-Abers predictor,
    one IVAP per fold) names in ``_group_param`` the keyword-only argument of
    its ``fit`` that takes one group id per row (``"folds"``); its
    ``fit_summary`` then takes a mapping group id -> :class:`ScoreSummary`.
    Callers that only hold a table (the command line's ``--fold-col``, the
    distributed adapters' grouped aggregations) read this hook instead of
    testing for a method name.
    """

    _state: tuple[str, ...] = ()
    _group_param: ClassVar[str | None] = None
    _weight_total_use: ClassVar[str | None] = None

    def fit(self, scores, y, sample_weight=None):
        """Fit on calibration scores and labels.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
            Calibration scores (any finite reals; higher means more likely
            positive).
        y : array-like of shape (n_samples,)
            Labels of two classes (any two values).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.

        Returns
        -------
        self
        """
        s, classes, y01, w = self._check_fit_input(scores, y, sample_weight)
        sums = summarize(s, y01, w)
        if w is not None and self._weight_total_depends() is not None:
            with np.errstate(over="ignore"):
                total = float(np.sum(sums[1]))  # inf past float64: no warning either way
            if total < 0.5 * w.shape[0]:  # else no warning is possible: skip the count
                self._warn_weight_total(scaled_sum(sums[1]), int(np.count_nonzero(w)), True)
        self.classes_ = classes
        self._fit_sums(*sums)
        return self

    def fit_summary(self, summary: ScoreSummary):
        """Fit from a :class:`~venncal.ScoreSummary` (labels 0 and 1).

        ``classes_`` is the ``classes`` parameter when given (its second
        label is the summary's label 1), else ``[0, 1]``.

        Returns
        -------
        self
        """
        self._check_params()
        check_summary(summary)
        self._warn_weight_total(summary.total_weight, summary.n_distinct, False)
        self.classes_ = self._summary_classes()
        self._fit_sums(summary.scores, summary.weights, summary.positive_weights)
        return self

    def predict_proba(self, scores) -> np.ndarray:
        """Return calibrated probabilities, columns for ``classes_[0]`` and ``classes_[1]``.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        check_is_fitted(self, "classes_")
        p = self._predict_p(self._check_test_scores(scores))
        return np.column_stack((1.0 - p, p))

    def predict(self, scores) -> np.ndarray:
        """Return the more probable label (``classes_[0]`` on a tie)."""
        p = self.predict_proba(scores)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]

    # -- for subclasses -------------------------------------------------------

    def _check_state(self) -> None:
        """Raise ``ValueError`` unless the fitted state is consistent.

        Called by :func:`venncal.persist.load` on a reloaded calibrator, so a
        corrupt model file fails loudly instead of predicting nonsense.
        Subclasses extend it for their own attributes.
        """
        classes = np.asarray(self.classes_)
        if classes.ndim != 1 or classes.shape[0] != 2 or classes[0] == classes[1]:
            raise ValueError("classes_ must hold two distinct labels")

    def _check_fit_input(self, scores, y, sample_weight):
        """Check the parameters and the arrays of ``fit``; return ``(s, classes, y01, w)``.

        A single observed class is refused unless ``classes`` names both
        (or the labels are booleans): one class coded 1 is not silently the
        positive class of {0, 1}.
        """
        self._check_params()
        s = check_scores(scores)
        classes, y01 = check_labels(
            y, s.shape[0], getattr(self, "classes", None), single_01=False
        )
        return s, classes, y01, check_sample_weight(sample_weight, s.shape[0])

    def _weight_total_depends(self) -> str | None:
        """What in this fit depends on the total weight (None: only its ratios matter)."""
        return self._weight_total_use

    def _warn_weight_total(self, total: float, rows: int, rows_known: bool) -> None:
        """Warn if weights of this total over ``rows`` rows look relative (WeightScaleWarning)."""
        depends = self._weight_total_depends()
        if depends is not None:
            warn_if_relative_weights(
                type(self).__name__, total, rows, depends, stacklevel=3, rows_known=rows_known
            )

    def _summary_classes(self) -> np.ndarray:
        """``classes_`` of a fit from summaries: the ``classes`` parameter (in its order), else ``[0, 1]``."""
        given = getattr(self, "classes", None)
        if given is None:
            return np.array([0, 1])
        return check_labels(np.asarray(given), None, given)[0]

    def _check_test_scores(self, scores):
        """Validate test scores for ``_predict_p`` (1-D finite floats unless overridden)."""
        return check_scores(scores)

    def _fit_sums(self, s: np.ndarray, w: np.ndarray, a: np.ndarray) -> None:
        raise NotImplementedError

    def _predict_p(self, q: np.ndarray) -> np.ndarray:
        raise NotImplementedError


def check_summary(summary) -> None:
    """Raise unless ``summary`` is a non-empty :class:`ScoreSummary`."""
    if not isinstance(summary, ScoreSummary):
        raise TypeError(f"summary must be a ScoreSummary, not {type(summary).__name__}")
    if summary.n_distinct == 0:
        raise ValueError("the summary is empty: at least one calibration score is needed")
