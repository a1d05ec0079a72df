"""Score-level cross Venn-Abers predictor: one IVAP per fold, merged."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._validation import Options, check_labels, check_sample_weight, check_scores, validate_params
from ._calibrator import VennAbersCalibrator
from ._merge import MERGES, fold_pairs, merge_folds

__all__ = ["CrossVennAbersCalibrator"]


class CrossVennAbersCalibrator(BaseEstimator):
    """Cross Venn-Abers predictor on scores (CVAP; paper 000, Algorithm 7).

    For users who train K models by cross-fitting themselves: fit on the
    out-of-fold scores with each row's fold, which gives one inductive
    Venn-Abers predictor per fold (fold k's calibration set is the rows
    scored by model k).  Predict from the K models' scores of the test
    objects, one column per fold in the order of ``folds_``; the K pairs are
    merged by the minimax rule.

    Parameters
    ----------
    merge : {"log", "brier"}, default="log"
        ``"log"``: ``GM(p1) / (GM(1 - p0) + GM(p1))`` over the folds;
        ``"brier"``: mean over folds of ``p1 + p0**2/2 - p1**2/2``.
    classes : array-like of shape (2,), default=None
        The two labels; needed only when the labels show a single class
        other than 0 or 1.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    folds_ : ndarray of shape (K,)
        The fold identifiers, sorted; column k of the test scores belongs
        to fold ``folds_[k]``.
    calibrators_ : list of VennAbersCalibrator
        One fitted IVAP per fold.

    Notes
    -----
    A 1-D array of test scores is used for every fold.  That is exact when
    one scoring function serves all folds and an approximation otherwise
    (for example scores of a model refitted on all the data).

    Examples
    --------
    >>> from venncal import CrossVennAbersCalibrator
    >>> scores = [0.1, 0.4, 0.35, 0.8, 0.2, 0.3, 0.6, 0.9]
    >>> labels = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> folds = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> cal = CrossVennAbersCalibrator().fit(scores, labels, folds)
    >>> cal.predict_proba([[0.5, 0.55]]).round(4)   # scores from model 0 and model 1
    array([[0.4495, 0.5505]])
    """

    _state = ("folds_", "calibrators_")
    _parameter_constraints: ClassVar[dict] = {"merge": [Options(MERGES)]}

    def __init__(self, *, merge="log", classes=None):
        self.merge = merge
        self.classes = classes

    def fit(self, scores, y, folds, sample_weight=None):
        """Fit one Venn-Abers predictor per fold.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
            Out-of-fold calibration scores.
        y : array-like of shape (n_samples,)
            Labels of two classes.
        folds : array-like of shape (n_samples,)
            Fold identifier of each row (any sortable values).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.

        Returns
        -------
        self : CrossVennAbersCalibrator
        """
        self._check_params()
        s = check_scores(scores)
        classes, y01 = check_labels(y, s.shape[0], self.classes)
        w = check_sample_weight(sample_weight, s.shape[0])
        f = np.asarray(folds)
        if f.ndim != 1 or f.shape[0] != s.shape[0]:
            raise ValueError(
                f"folds must be 1-D with one fold per score ({s.shape[0]}); got shape {f.shape}"
            )
        ids, index = np.unique(f, return_inverse=True)
        calibrators = []
        for k, fold in enumerate(ids):
            rows = index == k
            fold_w = None if w is None else w[rows]
            if fold_w is not None and not (fold_w > 0).any():
                raise ValueError(f"fold {fold!r} has zero total sample_weight")
            cal = VennAbersCalibrator(merge=self.merge, classes=classes)
            calibrators.append(cal.fit(s[rows], classes[y01[rows].astype(np.intp)], fold_w))
        self.classes_ = classes
        self.folds_ = ids
        self.calibrators_ = calibrators
        return self

    def _check_params(self) -> None:
        validate_params(
            type(self).__name__, self.get_params(deep=False), self._parameter_constraints
        )

    def _check_state(self):
        classes = np.asarray(self.classes_)
        if classes.ndim != 1 or classes.shape[0] != 2 or classes[0] == classes[1]:
            raise ValueError("classes_ must hold two distinct labels")
        folds = np.asarray(self.folds_)
        if folds.ndim != 1 or folds.shape[0] != len(self.calibrators_) or folds.shape[0] == 0:
            raise ValueError("folds_ must be 1-D with one fold per calibrator")
        for cal in self.calibrators_:
            if not isinstance(cal, VennAbersCalibrator):
                # ValueError like every other invalid-state check of a loaded model
                raise ValueError("calibrators_ must hold VennAbersCalibrator objects")  # noqa: TRY004
            cal._check_state()
            if list(np.asarray(cal.classes_)) != list(classes):
                raise ValueError("every fold's classes_ must equal classes_")

    def _fold_scores(self, scores) -> list[np.ndarray]:
        check_is_fitted(self, "calibrators_")
        arr = np.asarray(scores)
        K = len(self.calibrators_)
        if arr.ndim == 1:
            q = check_scores(arr)
            return [q] * K
        if arr.ndim == 2 and arr.shape[1] == K:
            return [check_scores(arr[:, k], name=f"scores[:, {k}]") for k in range(K)]
        raise ValueError(
            f"scores must have shape (n,) or (n, {K}) (one column per fold); got {arr.shape}"
        )

    def _pairs(self, scores):
        fold_scores = self._fold_scores(scores)  # checks that the model is fitted
        return fold_pairs(self.calibrators_, fold_scores)

    def predict_interval(self, scores) -> np.ndarray:
        """Return ``(1 - GM(1 - p0), GM(p1))`` over the folds for each row.

        Parameters
        ----------
        scores : array-like of shape (n_samples,) or (n_samples, K)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        return merge_folds(*self._pairs(scores), merge=self.merge)[1]

    def predict_proba(self, scores) -> np.ndarray:
        """Return merged probabilities, columns for ``classes_[0]`` and ``classes_[1]``.

        Parameters
        ----------
        scores : array-like of shape (n_samples,) or (n_samples, K)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        p = merge_folds(*self._pairs(scores), merge=self.merge)[0]
        return np.column_stack((1.0 - p, p))

    def predict(self, scores) -> np.ndarray:
        """Return the more probable label (``classes_[0]`` on a tie)."""
        p = self.predict_proba(scores)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]
