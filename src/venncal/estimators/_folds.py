"""The fold machinery of the wrappers: cross-fit a base estimator, calibrate its scores.

One path serves every wrapper that fits its base estimator per fold
(:class:`~venncal.VennAbersClassifier`, :class:`~venncal.CalibratedClassifier`):

1. split the rows (K folds, one split, or all rows for both roles);
2. per fold, in parallel: clone and fit the base estimator on the training
   rows and score the calibration rows (the out-of-fold scores);
3. calibrate.  A calibrator fitted per group of rows (the cross Venn-Abers
   predictor, ``_group_param``) is fitted *once*, on all out-of-fold scores
   with their fold ids, and predicts from the K models' scores stacked into
   an (n, K) array; the merge of the folds is its own.  Any other method is
   fitted per fold and the folds' probabilities are averaged, as
   scikit-learn's ``CalibratedClassifierCV`` does.

With K >= 3 classes the calibrator is a one-vs-rest (or one-vs-one)
calibrator around the binary one (:mod:`._multiclass`), fitted on the (n, K)
class scores; a cross Venn-Abers predictor then predicts from the per-fold
blocks (n, F, K).
"""

from __future__ import annotations

import numbers
from typing import ClassVar

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import StratifiedKFold, check_cv, train_test_split
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._rows import RowError, rows_of
from .._validation import NONE, RANDOM_STATE, Check, Interval, Options
from ._helpers import (
    WrapperMixin,
    as_rows,
    check_fit_data,
    class_scores,
    fit_and_score,
    is_frozen,
    resolve_response,
)
from ._multiclass import (
    COUPLINGS,
    MULTICLASS,
    check_fold_classes,
    multiclass_calibrator,
    score_kind,
)

__all__ = ["CV", "FoldCalibratedClassifier"]


def _is_splitter(value) -> bool:
    # str has a .split method and is iterable, but is never a splitter
    if isinstance(value, (str, bytes)):
        return False
    return hasattr(value, "split") or hasattr(value, "__iter__")


#: ``cv``: K >= 2 folds, None (5 folds), a splitter or an iterable of splits.
CV = [
    Interval("int", 2, None),
    NONE,
    Check(_is_splitter, "a cross-validation splitter or an iterable of (train, test) splits"),
]


def _binary(scores: np.ndarray) -> np.ndarray:
    """The one column of a binary calibrator's scores, shape (n,)."""
    return scores[:, 0]


def _gives_intervals(self) -> bool:
    return self._venn_abers()


class FoldCalibratedClassifier(WrapperMixin, ClassifierMixin, BaseEstimator):
    """Base of the wrappers: fit the base estimator per fold and calibrate its scores.

    Subclasses have the parameters ``estimator``, ``cv``,
    ``calibration_size``, ``multiclass``, ``coupling``, ``response_method``,
    ``random_state`` and ``n_jobs`` (their rules are in
    ``_parameter_constraints``), and implement ``_new_calibrator(classes)``
    (an unfitted binary score-level calibrator whose ``classes`` parameter is
    set; ``None`` for the binary base of a multiclass calibrator) and,
    optionally, ``_split_kind()`` (one
    of "cv", "split", "all"; a frozen base is always "all") and
    ``_venn_abers()`` (False hides ``predict_interval``).  The base
    estimator is cloned and fitted exactly once per fold (never, if frozen).

    Fitted attributes: ``estimators_`` (one per fold), ``calibrator_`` (the
    one calibrator fitted per group, or None) and ``calibrators_`` (one per
    fold: the per-fold calibrators, or ``calibrator_.calibrators_``: for K >= 3
    classes one binary calibrator per class or pair), ``response_method_``
    (the base's output used) and, for K >= 3, ``score_`` (its kind).
    """

    _multiclass = True

    _parameter_constraints: ClassVar[dict] = {
        **WrapperMixin._parameter_constraints,
        "cv": CV,
        "calibration_size": [
            Interval("real", 0, 1, closed="neither"),
            Interval("int", 1, None),
        ],
        "random_state": [RANDOM_STATE],
        "multiclass": [Options(MULTICLASS)],
        "coupling": [Options(COUPLINGS)],
    }

    def _split_kind(self) -> str:
        return "cv"

    def _venn_abers(self) -> bool:
        """Whether the calibration is Venn-Abers (then ``predict_interval`` exists)."""
        return True

    def _new_calibrator(self, classes):
        raise NotImplementedError

    def _check_params(self) -> None:
        if isinstance(self.cv, str) and self.cv == "prefit":
            raise ValueError(
                f'{type(self).__name__}: cv="prefit" is not supported (scikit-learn removed it '
                "from CalibratedClassifierCV in 1.8); wrap the fitted estimator in "
                "sklearn.frozen.FrozenEstimator instead, and every row is calibration data"
            )
        super()._check_params()

    def _splits(self, X, y, n):
        everything = np.arange(n)
        kind = "all" if is_frozen(self._base_estimator()) else self._split_kind()
        if kind == "all":
            return [(everything, everything)]
        if kind == "split":
            train, cal = train_test_split(
                everything,
                test_size=self.calibration_size,
                stratify=y,
                random_state=self.random_state,
            )
            return [(np.sort(train), np.sort(cal))]
        if isinstance(self.cv, numbers.Integral):
            splitter = StratifiedKFold(self.cv, shuffle=True, random_state=self.random_state)
        else:
            splitter = check_cv(self.cv, y, classifier=True)
        return list(splitter.split(X, y))

    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the base estimator per fold and calibrate its out-of-fold scores.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, ...)
            Training data, in any form the base estimator accepts.
        y : array-like of shape (n_samples,)
            Two or more classes (any labels).
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
        owner = type(self).__name__
        X, y, classes, sw = check_fit_data(owner, X, y, sample_weight, multiclass=True)
        splits = self._splits(X, y, y.shape[0])
        base = self._base_estimator()
        if len(classes) > 2:
            codes = np.searchsorted(classes, y)
            check_fold_classes(owner, classes, codes, sw, splits, is_frozen(base))
        self.response_methods_ = self._response_methods(classes)
        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(fit_and_score)(
                clone(base), X, y, sw, fit_params, classes, self.response_methods_, train, cal
            )
            for train, cal in splits
        )
        self.estimators_ = [est for est, _ in fitted]
        self.classes_ = classes
        self.response_method_ = resolve_response(self.estimators_[0], self.response_methods_)
        self.score_ = score_kind(self.response_method_)
        self._calibrate(classes, y, sw, [cal for _, cal in splits], [s for _, s in fitted])
        first = self.estimators_[0]
        if hasattr(first, "n_features_in_"):
            self.n_features_in_ = first.n_features_in_
        if hasattr(first, "feature_names_in_"):
            self.feature_names_in_ = first.feature_names_in_
        return self

    def _response_methods(self, classes) -> tuple[str, ...]:
        """Return the base estimator's outputs tried for the score, in order.

        ``response_method="auto"`` takes the calibrator's preference
        (``_response_methods`` of its class: the decision function first for
        Platt, the probability first for the isotonic family); a calibrator
        told that its scores are probabilities (``score="proba"``: Beta
        calibration, Platt on probabilities) takes ``predict_proba`` only.
        """
        if self.response_method != "auto":
            return (self.response_method,)
        calibrator = self._new_calibrator(None)
        if getattr(calibrator, "score", None) == "proba":
            return ("predict_proba",)
        return tuple(type(calibrator)._response_methods)

    def _calibrator_for(self, classes):
        """An unfitted calibrator of ``classes``: binary, or multiclass around the binary one."""
        if len(classes) == 2:
            return self._new_calibrator(classes)
        base = self._new_calibrator(None)
        return multiclass_calibrator(base, self.score_, self.multiclass, self.coupling, classes)

    def _calibrate(self, classes, y, sample_weight, cal_rows, scores) -> None:
        """Fit the calibration on each fold's rows ``cal_rows[k]`` and scores ``scores[k]``.

        ``scores[k]`` has one column per score a calibrator of ``classes``
        takes (:func:`~venncal.estimators._helpers.class_scores`): one, the
        positive class's, for two classes; K, one per class, otherwise.
        """
        if len(classes) == 2:
            scores = [_binary(s) for s in scores]

        def weights(rows):
            return None if sample_weight is None else sample_weight[rows]

        calibrator = self._calibrator_for(classes)
        group = self._new_calibrator(None)._group_param
        # Fold k is group k: column k (block k for K classes) of the stacked
        # test scores is model k's.
        rows = np.concatenate(cal_rows)
        folds = np.repeat(np.arange(len(cal_rows)), [len(r) for r in cal_rows])
        try:
            if group is None:
                self.calibrator_ = None
                self.calibrators_ = []
                for s, part in zip(scores, cal_rows, strict=True):
                    with rows_of(part):
                        self.calibrators_.append(self._calibrator_for(classes).fit(
                            s, y[part], sample_weight=weights(part)))
                return
            with rows_of(rows):
                calibrator.fit(np.concatenate(scores), y[rows], weights(rows), **{group: folds})
        except RowError as exc:  # a fold's first bad row: the whole's first, counting them all
            order = np.argsort(rows, kind="stable")  # every fold's score of a row, in row order
            every = self._calibrator_for(classes)
            params = {} if group is None else {group: folds[order]}
            with rows_of(rows[order]):
                every.fit(np.concatenate(scores)[order], y[rows[order]], weights(rows[order]),
                          **params)
            raise exc  # refused by a fold only (a fold's own fit), not by the rows
        self.calibrator_ = calibrator
        self.calibrators_ = calibrator.calibrators_

    def _fold_scores(self, X) -> list[np.ndarray]:
        """Return the base estimators' scores of ``X``, one (n, 1) or (n, K) array per fold."""
        check_is_fitted(self, "estimators_")
        X = as_rows(X)
        return [
            class_scores(est, X, self.classes_, self.response_methods_) for est in self.estimators_
        ]

    def _multiclass_scores(self, X) -> np.ndarray:
        """The K class scores of ``X`` by each fold's model: (n, F, K), blocks as ``folds_``."""
        return np.stack(self._fold_scores(X), axis=1)

    def predict_proba(self, X) -> np.ndarray:
        """Return calibrated probabilities, one column per class of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)
            Data in any form the base estimator's ``predict_proba`` (or
            ``decision_function``) accepts.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to 1: a Venn-Abers method's merged probability, or the
            mean over the folds of each fold's calibrated probability (for K
            >= 3 classes, of the one-vs-rest or one-vs-one calibrator's).  For
            two classes each column is the mean of the folds' own column, so
            that column 0 keeps the calibrators' precision where it is small.
        """
        check_is_fitted(self, "estimators_")
        if len(self.classes_) > 2:
            if self.calibrator_ is not None:
                return self.calibrator_.predict_proba(self._multiclass_scores(X))
            return np.mean(
                [
                    cal.predict_proba(s)
                    for cal, s in zip(self.calibrators_, self._fold_scores(X), strict=True)
                ],
                axis=0,
            )
        scores = [_binary(s) for s in self._fold_scores(X)]
        if self.calibrator_ is not None:
            return self.calibrator_.predict_proba(np.column_stack(scores))
        # Each column the mean of the folds' own column: column 0 keeps the precision of
        # the calibrators' complements (a small mean of small numbers), not 1.0 - p.
        probas = [cal.predict_proba(s) for cal, s in zip(self.calibrators_, scores, strict=True)]
        p = np.mean([proba[:, 1] for proba in probas], axis=0)
        p_complement = np.mean([proba[:, 0] for proba in probas], axis=0)
        return np.column_stack((p_complement, p))

    @available_if(_gives_intervals)
    def predict_interval(self, X) -> np.ndarray:
        """Return the Venn-Abers pair for each row (Venn-Abers methods only).

        For one predictor (ivap, sva, a frozen base) the columns are
        ``p0 <= p1``; for K folds they are ``(1 - GM(1 - p0), GM(p1))`` over
        the folds (Vovk, Petej & Fedorova 2015, section 4), a pair that is
        usually, but not always, ordered.  For K >= 3 classes, the pairs of
        the one-vs-rest (or one-vs-one) calibrator: per class against the
        rest, or per pair of classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)

        Returns
        -------
        ndarray of shape (n_samples, 2), (n_samples, K, 2) or (n_samples, P, 2)
            Columns ``p0`` and ``p1``, probabilities of ``classes_[1]``; for
            K >= 3 classes, ``[:, k]`` is class ``classes_[k]`` against the
            rest (``multiclass="ovr"``), or, with ``multiclass="ovo"``,
            ``[:, q]`` is class ``classes_[j]`` against ``classes_[i]``,
            ``(i, j) = calibrator_.pairs_[q]``, P = K(K-1)/2.
        """
        check_is_fitted(self, "estimators_")
        if len(self.classes_) > 2:
            return self.calibrator_.predict_interval(self._multiclass_scores(X))
        scores = [_binary(s) for s in self._fold_scores(X)]
        return self.calibrator_.predict_interval(np.column_stack(scores))
