"""Venn-Abers classifiers around any scikit-learn estimator: IVAP, CVAP, SVA."""

from __future__ import annotations

import numbers

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import StratifiedKFold, check_cv, train_test_split
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from .._estimators import (
    RESPONSE_METHODS,
    as_rows,
    binary_targets,
    check_weighted_classes,
    default_estimator,
    fit_estimator,
    n_samples,
    positive_scores,
    slice_fit_params,
    take_rows,
)
from .._validation import check_sample_weight
from ._calibrator import VennAbersCalibrator
from ._merge import MERGES, merge_folds

__all__ = ["VennAbersClassifier"]

METHODS = ("ivap", "cvap", "sva")


def _fit_fold(estimator, X, y, classes, sample_weight, fit_params, train, cal, response_method):
    """Fit ``estimator`` on rows ``train`` and a Venn-Abers calibrator on rows ``cal``."""
    n = n_samples(X)
    w_train = None if sample_weight is None else sample_weight[train]
    fit_estimator(
        estimator, take_rows(X, train), y[train], w_train, slice_fit_params(fit_params, train, n)
    )
    scores = positive_scores(estimator, take_rows(X, cal), classes[1], response_method)
    w_cal = None if sample_weight is None else sample_weight[cal]
    calibrator = VennAbersCalibrator(classes=classes).fit(scores, y[cal], sample_weight=w_cal)
    return estimator, calibrator


class VennAbersClassifier(ClassifierMixin, BaseEstimator):
    """Binary classifier calibrated by Venn-Abers predictors (IVAP, CVAP or SVA).

    Wraps any scikit-learn classifier.  The base estimator is cloned and
    fitted exactly once per fold; its scores on the calibration rows are
    turned into the Venn-Abers tables, so prediction costs the base model's
    scoring plus a binary search per row.

    Parameters
    ----------
    estimator : estimator object, default=None
        A scikit-learn classifier with ``predict_proba`` or
        ``decision_function``; ``None`` means ``LogisticRegression()``.
    method : {"cvap", "ivap", "sva"}, default="cvap"
        ``"ivap"``: one split into a proper training set and a calibration set
        (paper 000, section 2).  ``"cvap"``: K folds, each the calibration set
        of an IVAP trained on the other folds, merged by the minimax rule
        (paper 000, Algorithm 7).  ``"sva"``: the simplified Venn-Abers
        predictor, proper training set = calibration set = all data (paper
        001, Algorithm 2); it has no validity guarantee.
    cv : int, cross-validation generator or iterable, default=5
        Folds for ``method="cvap"``.  An int K gives
        ``StratifiedKFold(K, shuffle=True, random_state=random_state)``;
        anything else is passed to :func:`sklearn.model_selection.check_cv`
        (e.g. ``KFold(5)`` for contiguous folds).
    calibration_size : float or int, default=0.2
        Size of the calibration set for ``method="ivap"`` (a fraction, or a
        number of rows); the split is stratified.
    merge : {"log", "brier"}, default="log"
        Minimax merge of ``(p0, p1)`` into one probability: log loss
        (``GM(p1) / (GM(1-p0) + GM(p1))``, for one predictor
        ``p1 / (1 - p0 + p1)``) or Brier loss (mean over predictors of
        ``p1 + p0**2/2 - p1**2/2``).
    response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
        Which output of the base estimator is the score; ``"auto"`` prefers
        ``predict_proba``.
    random_state : int, RandomState instance or None, default=None
        Controls the IVAP split and the shuffling of integer ``cv`` folds.
    n_jobs : int, default=None
        Folds fitted in parallel with joblib (``None`` means 1).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels, sorted; probabilities are those of ``classes_[1]``.
    estimators_ : list of estimators
        The fitted base estimators, one per fold (one for ivap and sva).
    calibrators_ : list of VennAbersCalibrator
        The score-level Venn-Abers predictors, one per fold.
    n_features_in_ : int
        Number of features seen by the base estimator (when it reports it).

    See Also
    --------
    VennAbersCalibrator : The score-level IVAP.
    FullVennAbersClassifier : The full Venn-Abers predictor (refits per test object).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from venncal import VennAbersClassifier
    >>> X, y = make_classification(n_samples=600, random_state=0)
    >>> clf = VennAbersClassifier(GaussianNB(), method="cvap", cv=5, random_state=0)
    >>> clf = clf.fit(X[:500], y[:500])
    >>> clf.predict_proba(X[500:]).shape
    (100, 2)
    >>> p0, p1 = clf.predict_interval(X[500:502]).T
    >>> bool(((0 < p1) & (p0 < 1)).all())
    True
    """

    def __init__(
        self,
        estimator=None,
        *,
        method="cvap",
        cv=5,
        calibration_size=0.2,
        merge="log",
        response_method="auto",
        random_state=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.calibration_size = calibration_size
        self.merge = merge
        self.response_method = response_method
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {self.method!r}")
        if self.merge not in MERGES:
            raise ValueError(f"merge must be one of {MERGES}; got {self.merge!r}")
        if self.response_method not in RESPONSE_METHODS:
            raise ValueError(
                f"response_method must be one of {RESPONSE_METHODS}; got {self.response_method!r}"
            )
        if self.method == "cvap" and isinstance(self.cv, numbers.Integral) and self.cv < 2:
            raise ValueError(f"cv must be at least 2 folds; got {self.cv}")

    def _splits(self, X, y, n):
        everything = np.arange(n)
        if self.method == "sva":
            return [(everything, everything)]
        if self.method == "ivap":
            train, cal = train_test_split(
                everything,
                test_size=self.calibration_size,
                stratify=y,
                random_state=self.random_state,
            )
            return [(np.sort(train), np.sort(cal))]
        if isinstance(self.cv, numbers.Integral):
            splitter = StratifiedKFold(
                n_splits=self.cv, shuffle=True, random_state=self.random_state
            )
        else:
            splitter = check_cv(self.cv, y, classifier=True)
        return list(splitter.split(X, y))

    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the base estimator per fold and the Venn-Abers tables.

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
        self : VennAbersClassifier
        """
        self._check_params()
        name = type(self).__name__
        X = as_rows(X)
        y, classes, y01 = binary_targets(name, y)
        n = n_samples(X)
        if y.shape[0] != n:
            raise ValueError(f"X has {n} rows but y has {y.shape[0]} labels")
        sw = check_sample_weight(sample_weight, n)
        check_weighted_classes(name, classes, y01, sw)
        base = default_estimator() if self.estimator is None else self.estimator
        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_fold)(
                clone(base), X, y, classes, sw, fit_params, train, cal, self.response_method
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

    def _fold_pairs(self, X):
        check_is_fitted(self, "calibrators_")
        X = as_rows(X)
        pairs = [
            cal.predict_interval(positive_scores(est, X, self.classes_[1], self.response_method))
            for est, cal in zip(self.estimators_, self.calibrators_)
        ]
        return np.stack([p[:, 0] for p in pairs]), np.stack([p[:, 1] for p in pairs])

    def predict_interval(self, X) -> np.ndarray:
        """Return the Venn-Abers pair for each row.

        For one predictor (ivap, sva) the columns are ``p0 <= p1``; for K folds
        they are ``(1 - GM(1 - p0), GM(p1))`` over the folds (paper 000,
        section 4), a pair that is usually, but not always, ordered.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        return merge_folds(*self._fold_pairs(X), merge=self.merge)[1]

    def predict_proba(self, X) -> np.ndarray:
        """Return merged probabilities, columns for ``classes_[0]`` and ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        p = merge_folds(*self._fold_pairs(X), merge=self.merge)[0]
        return np.column_stack((1.0 - p, p))

    def predict(self, X) -> np.ndarray:
        """Return the more probable label for each row (``classes_[0]`` on a tie)."""
        p = self.predict_proba(X)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base = default_estimator() if self.estimator is None else self.estimator
        base_tags = get_tags(base)
        tags.input_tags = base_tags.input_tags
        tags.classifier_tags.multi_class = False
        return tags
