"""Score-level cross Venn-Abers predictor: one IVAP per fold, merged."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._base import ScoreCalibrator, check_member_state, check_summary, same_values
from .._docs import fill
from .._kernels import scaled_sum
from .._validation import Options, check_scores
from ..summary import ScoreSummary
from ._calibrator import VennAbersCalibrator
from ._merge import MERGES, merge_with_complement

__all__ = ["CrossVennAbersCalibrator"]


@fill
class CrossVennAbersCalibrator(ScoreCalibrator):
    """Cross Venn-Abers predictor on scores (CVAP; Vovk, Petej & Fedorova 2015, Algorithm 7).

    For K models trained by cross-fitting: fit on the out-of-fold scores
    with each row's fold, which gives one inductive Venn-Abers predictor per
    fold (fold k's calibration set is the rows scored by model k).  Predict
    from the K models' scores of the test objects, one column per fold in
    the order of ``folds_``; the K pairs are merged by the minimax rule.
    :class:`~venncal.VennAbersClassifier` (``method="cvap"``) does the
    cross-fitting of a scikit-learn estimator and then fits this class.

    Parameters
    ----------
    merge : {"log", "brier"}, default="log"
        ``"log"``: ``GM(p1) / (GM(1 - p0) + GM(p1))`` over the folds;
        ``"brier"``: mean over folds of ``p1 + p0**2/2 - p1**2/2``.  Each
        fold's ``1 - p0`` comes from its IVAP's ``q0_`` (computed from the
        weights) where ``p0`` has been rounded near 1.
    {classes}

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
    The folds are given to :meth:`fit` as the keyword ``folds`` (one id per
    row), so the third positional argument is ``sample_weight`` as for
    every score-level calibrator.  Where the calibration data are already
    reduced, one :class:`~venncal.ScoreSummary` per fold (a grouped
    aggregation) is enough: :meth:`fit_summary` takes a mapping fold id ->
    summary and gives the same model, bit for bit.

    A 1-D array of test scores is used for every fold.  That is exact when
    one scoring function serves all folds and an approximation otherwise
    (for example scores of a model refitted on all the data).

    Examples
    --------
    >>> from venncal import CrossVennAbersCalibrator
    >>> scores = [0.1, 0.4, 0.35, 0.8, 0.2, 0.3, 0.6, 0.9]
    >>> labels = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> folds = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> cal = CrossVennAbersCalibrator().fit(scores, labels, folds=folds)
    >>> cal.predict_proba([[0.5, 0.55]]).round(4)   # scores from model 0 and model 1
    array([[0.4495, 0.5505]])

    The same model from one summary per fold:

    >>> from venncal import ScoreSummary
    >>> per_fold = {k: ScoreSummary.from_arrays(scores[4 * k:4 * k + 4], labels[4 * k:4 * k + 4])
    ...             for k in (0, 1)}
    >>> CrossVennAbersCalibrator().fit_summary(per_fold).predict_proba([[0.5, 0.55]]).round(4)
    array([[0.4495, 0.5505]])
    """

    _state = ("folds_", "calibrators_")
    _parameter_constraints: ClassVar[dict] = {"merge": [Options(MERGES)]}
    _group_param = "folds"
    _weight_total_use = "each fold's test object counts as one row"

    def __init__(self, *, merge="log", classes=None):
        self.merge = merge
        self.classes = classes

    def fit(self, scores, y, sample_weight=None, *, folds=None):
        """Fit one Venn-Abers predictor per fold.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
            Out-of-fold calibration scores.
        y : array-like of shape (n_samples,)
            Labels of two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.
        folds : array-like of shape (n_samples,)
            Fold identifier of each row (any sortable values); required.

        Returns
        -------
        self : CrossVennAbersCalibrator
        """
        if folds is None:
            raise TypeError(
                "CrossVennAbersCalibrator.fit needs folds= (one fold id per row), given by "
                "keyword: fit(scores, y, sample_weight=None, *, folds)"
            )
        s, classes, y01, w = self._check_fit_input(scores, y, sample_weight)
        f = np.asarray(folds)
        if f.ndim != 1 or f.shape[0] != s.shape[0]:
            raise ValueError(
                f"folds must be 1-D with one fold per score ({s.shape[0]}); got shape {f.shape}"
            )
        ids, index = np.unique(f, return_inverse=True)
        sums = []
        for k, fold in enumerate(ids.tolist()):  # plain values: 1, not np.int64(1), in messages
            rows = index == k
            fold_w = None if w is None else w[rows]
            if fold_w is not None and not (fold_w > 0).any():
                raise ValueError(f"fold {fold!r} has zero total sample_weight")
            sums.append(ScoreSummary._from_validated(s[rows], y01[rows], fold_w))
        if w is not None:
            total = scaled_sum(np.array([scaled_sum(fold.weights) for fold in sums]))
            self._warn_weight_total(total, int(np.count_nonzero(w)), True)
        self.classes_ = classes
        self._fit_folds(ids, sums)
        return self

    def fit_summary(self, summaries: Mapping[object, ScoreSummary]):
        """Fit from one :class:`~venncal.ScoreSummary` per fold (labels 0 and 1).

        Parameters
        ----------
        summaries : mapping of fold id -> ScoreSummary
            The summary of each fold's out-of-fold scores, e.g. from a
            grouped aggregation by fold.  Equal to :meth:`fit` on the rows.

        Returns
        -------
        self : CrossVennAbersCalibrator
        """
        self._check_params()
        if isinstance(summaries, ScoreSummary):
            raise TypeError(
                "CrossVennAbersCalibrator.fit_summary needs one ScoreSummary per fold, as a "
                "mapping fold id -> ScoreSummary; a single summary pools the folds (for that "
                "use VennAbersCalibrator)"
            )
        if not isinstance(summaries, Mapping) or len(summaries) == 0:
            raise TypeError("summaries must be a non-empty mapping fold id -> ScoreSummary")
        ids = sorted(summaries)
        for fold in ids:
            check_summary(summaries[fold])
        self._warn_weight_total(
            scaled_sum(np.array([summaries[i].total_weight for i in ids])),
            sum(summaries[i].n_distinct for i in ids),
            False,
        )
        self.classes_ = self._summary_classes()
        self._fit_folds(np.asarray(ids), [summaries[i] for i in ids])
        return self

    def _fit_folds(self, ids: np.ndarray, summaries) -> None:
        """One IVAP per fold from its :class:`ScoreSummary`."""
        calibrators = []
        for summary in summaries:
            cal = VennAbersCalibrator(merge=self.merge, classes=self.classes_)
            cal.classes_ = self.classes_
            cal._fit_from(summary)
            calibrators.append(cal)
        # -0.0 and 0.0 are one fold: +0.0, whatever the row order (attack 52 F5)
        self.folds_ = ids + ids.dtype.type(0) if ids.dtype.kind == "f" else ids
        self.calibrators_ = calibrators

    def _check_state(self):
        """Raise ``ValueError`` unless the folds and their IVAPs are what ``fit`` makes.

        ``folds_`` the sorted distinct fold ids, one fitted IVAP per fold with
        this calibrator's ``merge`` and its ``classes_`` as ``classes``.
        """
        super()._check_state()
        folds, cals = self.folds_, self.calibrators_
        if not isinstance(cals, list) or not isinstance(folds, np.ndarray):
            raise ValueError("calibrators_ must be a list and folds_ an array")
        if folds.ndim != 1 or folds.shape[0] != len(cals) or folds.shape[0] == 0:
            raise ValueError("folds_ must be 1-D with one fold per calibrator")
        if folds.dtype.kind not in "biufU" or not same_values(np.unique(folds), folds):
            raise ValueError("folds_ must hold the distinct fold ids, sorted")
        for cal in cals:
            if type(cal) is not VennAbersCalibrator:
                # ValueError like every other invalid-state check of a loaded model
                raise ValueError("calibrators_ must hold VennAbersCalibrator objects")  # noqa: TRY004
            if not same_values(cal.classes_, self.classes_):
                raise ValueError("every fold's classes_ must equal classes_")
            if cal.merge != self.merge:
                raise ValueError("every fold's merge must be merge")
            check_member_state(cal)

    def _check_test_scores(self, scores) -> list[np.ndarray]:
        """One validated array of test scores per fold (a 1-D array serves every fold)."""
        arr = np.asarray(scores)
        K = len(self.calibrators_)
        if arr.ndim == 1:
            return [check_scores(arr)] * K
        if arr.ndim == 2 and arr.shape[1] == K:
            return [check_scores(arr[:, k], name=f"scores[:, {k}]") for k in range(K)]
        raise ValueError(
            f"scores must have shape (n,) or (n, {K}) (one column per fold); got {arr.shape}"
        )

    def _merged(self, fold_scores: list[np.ndarray]):
        """The merge of the folds' Venn-Abers pairs: ``(p, 1 - p, interval)``.

        ``merge_folds`` with each fold's ``1 - p0`` from its ``q0_``.
        """
        triples = [cal._triple(q) for cal, q in zip(self.calibrators_, fold_scores, strict=True)]
        p0, p1, q0 = (np.stack([t[i] for t in triples]) for i in range(3))
        return merge_with_complement(p0, p1, q0, self.merge)

    def _predict_p(self, q: list[np.ndarray]) -> np.ndarray:
        return self._merged(q)[0]

    def _predict_p_and_complement(self, q):
        # 1 - p from the folds' q0_ where p > 1/2
        p, p_complement, _ = self._merged(q)
        return p, p_complement

    def _predict_with_interval(self, scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(p, p0, p1)``: :meth:`predict_proba`'s ``[:, 1]`` and :meth:`predict_interval`.

        One validation and one search of every fold's table for both.
        """
        check_is_fitted(self, "calibrators_")
        p, _, interval = self._merged(self._check_test_scores(scores))
        return p, interval[:, 0], interval[:, 1]

    def predict_interval(self, scores) -> np.ndarray:
        """Return ``(1 - GM(1 - p0), GM(p1))`` over the folds for each row.

        For one fold this is the IVAP pair ``p0 <= p1``; for K > 1 the pair
        is usually, but not always, ordered (Vovk, Petej & Fedorova 2015, section 4).

        Parameters
        ----------
        scores : array-like of shape (n_samples,) or (n_samples, K)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        check_is_fitted(self, "calibrators_")
        return self._merged(self._check_test_scores(scores))[2]
