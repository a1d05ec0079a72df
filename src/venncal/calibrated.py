"""Calibrate any scikit-learn classifier with any score-level method."""

from __future__ import annotations

import numpy as np
from sklearn.utils.metaestimators import available_if

from ._folds import FoldCalibratedClassifier
from ._registry import available_methods, method_class
from .venn_abers._merge import fold_pairs, merge_folds

__all__ = ["CalibratedClassifier"]

#: Methods of the wrapper: every registered score-level method except the
#: score-level CVAP, whose folds the wrapper makes itself (method="ivap").
METHODS = tuple(m for m in available_methods() if m != "cvap")


def _is_venn_abers(self) -> bool:
    return self.method == "ivap"


class CalibratedClassifier(FoldCalibratedClassifier):
    """A classifier calibrated per fold by a score-level method.

    In the spirit of scikit-learn's ``CalibratedClassifierCV``: for each
    fold the base estimator is cloned and fitted on the other folds, and a
    calibrator of the chosen method is fitted on its scores of the fold.
    Predictions average the folds' calibrated probabilities; for
    ``method="ivap"`` the folds' Venn-Abers pairs are merged by the minimax
    rule instead, which makes the model a cross Venn-Abers predictor (CVAP).

    Parameters
    ----------
    estimator : estimator object, default=None
        A scikit-learn classifier with ``predict_proba`` or
        ``decision_function``; ``None`` means ``LogisticRegression()``.
    method : {"isotonic", "platt", "histogram", "bbq", "ivap"}, default="isotonic"
        The score-level calibrator (see ``venncal.baselines`` and
        :class:`~venncal.VennAbersCalibrator`).
    cv : int, cross-validation generator, iterable or "split", default=5
        An int K gives ``StratifiedKFold(K, shuffle=True,
        random_state=random_state)``; ``"split"`` one stratified split into a
        proper training set and a calibration set of ``calibration_size``;
        anything else goes to :func:`sklearn.model_selection.check_cv`.
    calibration_size : float or int, default=0.2
        Size of the calibration set when ``cv="split"``.
    method_params : dict, default=None
        Parameters of the calibrator, e.g. ``{"n_bins": 20}`` for histogram
        binning.
    response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
        Which output of the base estimator is the score.
    random_state : int, RandomState instance or None, default=None
        Controls the split and the shuffling of integer ``cv`` folds.
    n_jobs : int, default=None
        Folds fitted in parallel with joblib.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    estimators_ : list of estimators
        The fitted base estimators, one per fold.
    calibrators_ : list of score-level calibrators
        The fitted calibrators, one per fold.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from venncal import CalibratedClassifier
    >>> X, y = make_classification(n_samples=600, random_state=0)
    >>> clf = CalibratedClassifier(GaussianNB(), method="platt", cv=3, random_state=0)
    >>> clf.fit(X[:500], y[:500]).predict_proba(X[500:]).shape
    (100, 2)
    """

    def __init__(
        self,
        estimator=None,
        *,
        method="isotonic",
        cv=5,
        calibration_size=0.2,
        method_params=None,
        response_method="auto",
        random_state=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.calibration_size = calibration_size
        self.method_params = method_params
        self.response_method = response_method
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {self.method!r}")
        if self.method_params is not None and not isinstance(self.method_params, dict):
            raise TypeError("method_params must be a dict of calibrator parameters or None")
        super()._check_params()

    def _method(self):
        return "split" if isinstance(self.cv, str) and self.cv == "split" else "cv"

    def _new_calibrator(self, classes):
        params = dict(self.method_params or {})
        params["classes"] = classes
        return method_class(self.method)(**params)

    def predict_proba(self, X) -> np.ndarray:
        """Return calibrated probabilities, columns for ``classes_[0]`` and ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        scores = self._fold_scores(X)
        if _is_venn_abers(self):
            p = merge_folds(*fold_pairs(self.calibrators_, scores), merge=self.calibrators_[0].merge)[0]
        else:
            p = np.mean(
                [cal.predict_proba(s)[:, 1] for cal, s in zip(self.calibrators_, scores, strict=True)], axis=0
            )
        return np.column_stack((1.0 - p, p))

    @available_if(_is_venn_abers)
    def predict_interval(self, X) -> np.ndarray:
        """Return the merged Venn-Abers pair for each row (``method="ivap"`` only).

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        scores = self._fold_scores(X)
        return merge_folds(*fold_pairs(self.calibrators_, scores), merge=self.calibrators_[0].merge)[1]
