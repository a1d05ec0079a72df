"""The full Venn-Abers predictor (Vovk & Petej 2014, Algorithm 1)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._validation import Options, check_scores
from ..venn_abers import VennAbersCalibrator
from ..venn_abers._merge import MERGES, merge_with_complement
from ._helpers import (
    WrapperMixin,
    as_rows,
    check_fit_data,
    fit_and_score,
    is_frozen,
    n_samples,
    positive_scores,
    take_rows,
)

__all__ = ["FullVennAbersClassifier"]


def _append_row(X, x):
    """``X`` with the one-row ``x`` appended."""
    if hasattr(X, "iloc"):
        import pandas as pd  # only reached for DataFrame input

        return pd.concat([X, x], axis=0, ignore_index=True)
    if sp.issparse(X):
        return sp.vstack([X, x], format="csr")
    return np.concatenate([X, x], axis=0)


def _check_2d(X, hint: str):
    """``X`` as rows; ``ValueError`` (ending with ``hint``) unless it is two-dimensional."""
    X = as_rows(X)
    if not (hasattr(X, "iloc") or sp.issparse(X)) and X.ndim != 2:
        raise ValueError(f"Expected 2D array, got an array of shape {X.shape} instead{hint}")
    return X


def _full_triple(estimator, X, y, classes, sample_weight, fit_params, x, response_method):
    """``(p0, p1, 1 - p0)`` for the one-row ``x`` by refitting with each postulated label.

    ``1 - p0`` is the IVAP's complement table (the negative weight over the
    total), not ``1.0 - p0``, so that it keeps its precision where ``p0``
    rounds to (or near) 1.
    """
    X_ext = _append_row(X, x)
    w_ext = None if sample_weight is None else np.append(sample_weight, 1.0)
    triple = np.empty(3)
    for label in (0, 1):
        y_ext = np.append(y, classes[label])
        _, scores = fit_and_score(
            clone(estimator), X_ext, y_ext, w_ext, fit_params, classes, response_method
        )
        scores = scores[:, 0]
        # p_label: the isotonic calibrator of the training scores plus
        # (s(x), label), read at s(x); the calibrator pools a tie with s(x).
        cal = VennAbersCalibrator(classes=classes).fit(scores[:-1], y, sample_weight=sample_weight)
        p0, p1, q0 = cal._triple(check_scores(scores[-1:]))[:, 0]
        if label == 0:
            triple[0], triple[2] = p0, q0
        else:
            triple[1] = p1
    return triple


class FullVennAbersClassifier(WrapperMixin, ClassifierMixin, BaseEstimator):
    """The full Venn-Abers predictor: refit the estimator for every test object.

    For each test object ``x`` and each label ``y`` in {0, 1}, the base
    estimator is refitted on the training set plus ``(x, y)``, every training
    object and ``x`` are scored, isotonic regression is fitted to the scores
    with their labels plus ``(s(x), y)``, and ``p_y`` is its value at
    ``s(x)`` (Vovk & Petej 2014, Algorithm 1).  A Venn predictor, so perfectly
    calibrated in the sense of Vovk & Petej 2014, Theorem 1.

    Slow by nature: two fits of the base estimator per test object, and
    :meth:`fit` only stores the training data.  Test objects are processed
    in parallel with joblib (``n_jobs``).  For large data use
    :class:`VennAbersClassifier` (IVAP or CVAP).

    A frozen base (:class:`sklearn.frozen.FrozenEstimator`, an already
    fitted model) is never refitted, so its scores do not depend on the
    postulated label and the full predictor *is* the IVAP whose calibration
    set is every training row (Vovk, Petej & Fedorova 2015, section 2, with
    the proper training set outside the data): :meth:`fit` fits that IVAP
    once (``calibrator_``) and a prediction costs one scoring and a binary
    search per row; the weights are then used by the calibration only.

    Parameters
    ----------
    estimator : estimator object, default=None
        A scikit-learn classifier; ``None`` means ``LogisticRegression()``.
    merge : {"log", "brier"}, default="log"
        Minimax merge of ``(p0, p1)`` for :meth:`predict_proba`.
    response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
        Which output of the base estimator is the score.
    n_jobs : int, default=None
        Test objects processed in parallel (``None`` means 1, -1 all cores).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    calibrator_ : VennAbersCalibrator or None
        For a frozen base, the IVAP of the training rows' scores; otherwise
        None (every prediction refits).
    n_features_in_ : int
        Number of columns of the training data (2-D input).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from venncal import FullVennAbersClassifier
    >>> X, y = make_classification(n_samples=60, random_state=0)
    >>> clf = FullVennAbersClassifier().fit(X[:50], y[:50])
    >>> clf.predict_interval(X[50:52]).shape
    (2, 2)
    """

    _parameter_constraints: ClassVar[dict] = {
        **WrapperMixin._parameter_constraints,
        "merge": [Options(MERGES)],
    }

    def __init__(self, estimator=None, *, merge="log", response_method="auto", n_jobs=None):
        self.estimator = estimator
        self.merge = merge
        self.response_method = response_method
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None, **fit_params):
        """Store the training data (the work happens at prediction time).

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Frequency weights; each test object counts with weight 1.
        **fit_params : dict
            Passed unchanged to every refit of the base estimator (so they
            must not be per-sample arrays).

        Returns
        -------
        self : FullVennAbersClassifier
        """
        self._check_params()
        X, y, classes, self.sample_weight_ = check_fit_data(
            type(self).__name__, _check_2d(X, ""), y, sample_weight
        )
        n = y.shape[0]
        for key, value in fit_params.items():
            if hasattr(value, "__len__") and not isinstance(value, str) and len(value) == n:
                raise ValueError(
                    f"fit parameter {key!r} has one value per sample; the full Venn-Abers "
                    "predictor cannot extend it to the test object"
                )
        self.X_ = X
        self.y_ = y
        self.fit_params_ = dict(fit_params)
        self.classes_ = classes
        self.n_features_in_ = int(X.shape[1])
        if hasattr(X, "columns"):
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        # Fail early, as a classifier should, if the estimator cannot be fitted
        # or scored.
        base = self._base_estimator()
        _, scores = fit_and_score(
            clone(base), X, y, self.sample_weight_, self.fit_params_, classes, self.response_method
        )
        self.calibrator_ = None
        if is_frozen(base):
            # Refits are no-ops: the full predictor is the IVAP of all rows.
            self.calibrator_ = VennAbersCalibrator(classes=classes).fit(
                scores[:, 0], y, sample_weight=self.sample_weight_
            )
        return self

    def predict_interval(self, X) -> np.ndarray:
        """Return the Venn-Abers pair ``(p0, p1)`` of each row: two refits of the base per row.

        With a frozen base, the pairs of the IVAP ``calibrator_`` (no refit).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The test objects, each with its own pair.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            ``p_y``, the probability of ``classes_[1]`` with ``x`` labelled ``classes_[y]``.
        """
        return self._triples(X)[:, :2]

    def _triples(self, X) -> np.ndarray:
        """``(p0, p1, 1 - p0)`` of each row, shape ``(n_samples, 3)`` (see :func:`_full_triple`)."""
        check_is_fitted(self, "X_")
        X = _check_2d(
            X,
            ". Reshape your data with array.reshape(-1, 1) for one feature or "
            "array.reshape(1, -1) for one sample.",
        )
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        m = n_samples(X)
        if m == 0:
            return np.empty((0, 3))
        base = self._base_estimator()
        if self.calibrator_ is not None:
            scores = positive_scores(base, X, self.classes_[1], self.response_method)
            return self.calibrator_._triple(check_scores(scores)).T
        triples = Parallel(n_jobs=self.n_jobs)(
            delayed(_full_triple)(
                base, self.X_, self.y_, self.classes_, self.sample_weight_, self.fit_params_,
                take_rows(X, slice(i, i + 1)), self.response_method,
            )
            for i in range(m)
        )
        return np.vstack(triples)

    def predict_proba(self, X) -> np.ndarray:
        """Return merged probabilities, columns for ``classes_[0]`` and ``classes_[1]``.

        Column 1 is the minimax merge of ``(p0, p1)``; column 0 is ``1 - p``,
        computed from the complement ``1 - p0`` (the negative weight over the
        total, as IVAP's ``q0_``) where ``p > 1/2``, so that it keeps its
        relative precision when ``p`` is near 1 (``1.0 - p`` where ``p <= 1/2``).

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        t = self._triples(X)
        p, p_complement, _ = merge_with_complement(t[None, :, 0], t[None, :, 1], t[None, :, 2],
                                                   self.merge)
        return np.column_stack((p_complement, p))
