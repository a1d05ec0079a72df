"""Shared machinery of the classifiers that calibrate a base estimator per fold."""

from __future__ import annotations

import numbers

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import StratifiedKFold, check_cv, train_test_split
from sklearn.utils.validation import check_is_fitted

from ._estimators import (
    RESPONSE_METHODS,
    WrapperMixin,
    as_rows,
    fit_estimator,
    n_samples,
    positive_scores,
    slice_fit_params,
    take_rows,
)
from ._validation import (
    check_classifier_targets,
    check_sample_weight,
    check_weighted_classes,
)

__all__ = ["FoldCalibratedClassifier"]


def _fit_fold(estimator, calibrator, X, y, sample_weight, fit_params, train, cal, response_method):
    """Fit ``estimator`` on rows ``train`` and ``calibrator`` on its scores of rows ``cal``."""
    n = n_samples(X)
    w_train = None if sample_weight is None else sample_weight[train]
    fit_estimator(
        estimator, take_rows(X, train), y[train], w_train, slice_fit_params(fit_params, train, n)
    )
    scores = positive_scores(estimator, take_rows(X, cal), calibrator.classes[1], response_method)
    w_cal = None if sample_weight is None else sample_weight[cal]
    calibrator.fit(scores, y[cal], sample_weight=w_cal)
    return estimator, calibrator


class FoldCalibratedClassifier(WrapperMixin, ClassifierMixin, BaseEstimator):
    """Base of the wrappers: fit the base estimator and a calibrator per fold.

    Subclasses set the parameters ``estimator``, ``cv``, ``calibration_size``,
    ``response_method``, ``random_state`` and ``n_jobs``, and implement
    ``_new_calibrator(classes)`` (an unfitted score-level calibrator whose
    ``classes`` parameter is set) and, optionally, ``_check_params`` and
    ``_method`` (one of "cv", "split", "all").  The base estimator is cloned
    and fitted exactly once per fold.
    """

    def _check_params(self) -> None:
        if self.response_method not in RESPONSE_METHODS:
            raise ValueError(
                f"response_method must be one of {RESPONSE_METHODS}; got {self.response_method!r}"
            )
        if self._method() == "cv" and isinstance(self.cv, numbers.Integral) and self.cv < 2:
            raise ValueError(f"cv must be at least 2 folds; got {self.cv}")

    def _method(self) -> str:
        return "cv"

    def _new_calibrator(self, classes):
        raise NotImplementedError

    def _splits(self, X, y, n):
        everything = np.arange(n)
        method = self._method()
        if method == "all":
            return [(everything, everything)]
        if method == "split":
            train, cal = train_test_split(
                everything,
                test_size=self.calibration_size,
                stratify=y,
                random_state=self.random_state,
            )
            return [(np.sort(train), np.sort(cal))]
        if isinstance(self.cv, numbers.Integral):
            splitter = StratifiedKFold(n_splits=self.cv, shuffle=True, random_state=self.random_state)
        else:
            splitter = check_cv(self.cv, y, classifier=True)
        return list(splitter.split(X, y))

    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the base estimator and a calibrator per fold.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, ...)
            Training data, in any form the base estimator accepts.
        y : array-like of shape (n_samples,)
            Two classes (any two labels).
        sample_weight : array-like of shape (n_samples,), default=None
            Frequency weights, used by the calibration and passed to the base
            estimator when it accepts them.
        **fit_params : dict
            Passed to the base estimator's ``fit``; per-sample arrays are
            split with the rows.

        Returns
        -------
        self
        """
        self._check_params()
        name = type(self).__name__
        X = as_rows(X)
        y, classes, y01 = check_classifier_targets(name, y)
        n = n_samples(X)
        if y.shape[0] != n:
            raise ValueError(f"X has {n} rows but y has {y.shape[0]} labels")
        sw = check_sample_weight(sample_weight, n)
        check_weighted_classes(name, classes, y01, sw)
        base = self._base_estimator()
        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_fold)(
                clone(base), self._new_calibrator(classes), X, y, sw, fit_params, train, cal,
                self.response_method,
            )
            for train, cal in self._splits(X, y, n)
        )
        self.estimators_ = [est for est, _ in fitted]
        self.calibrators_ = [cal for _, cal in fitted]
        self.classes_ = classes
        first = self.estimators_[0]
        if hasattr(first, "n_features_in_"):
            self.n_features_in_ = first.n_features_in_
        if hasattr(first, "feature_names_in_"):
            self.feature_names_in_ = first.feature_names_in_
        return self

    def _fold_scores(self, X):
        """Return the base estimators' scores of ``X``, one array per fold."""
        check_is_fitted(self, "calibrators_")
        X = as_rows(X)
        return [
            positive_scores(est, X, self.classes_[1], self.response_method)
            for est in self.estimators_
        ]
