"""Venn-Abers classifiers around any scikit-learn estimator: IVAP, CVAP, SVA."""

from __future__ import annotations

from typing import ClassVar

from .._validation import Options
from ..venn_abers import CrossVennAbersCalibrator
from ..venn_abers._merge import MERGES
from ._folds import FoldCalibratedClassifier

__all__ = ["VennAbersClassifier"]

METHODS = ("ivap", "cvap", "sva")


class VennAbersClassifier(FoldCalibratedClassifier):
    """Classifier calibrated by Venn-Abers predictors (IVAP, CVAP or SVA).

    Wraps any scikit-learn classifier.  The base estimator is cloned and
    fitted exactly once per fold; its scores on the calibration rows, with
    their fold, fit one score-level
    :class:`~venncal.CrossVennAbersCalibrator` (one fold for ivap and sva),
    so prediction costs the base models' scoring plus a binary search per
    row and fold.  This is the estimator-level route to CVAP;
    ``CalibratedClassifier(method="ivap")`` is an alias that runs the same
    code.

    A frozen base (:class:`sklearn.frozen.FrozenEstimator`: an already
    fitted model, never refitted) makes every row calibration data, as in
    scikit-learn's ``CalibratedClassifierCV(ensemble="auto")``: every method
    is then one IVAP on all rows (``cv``, ``calibration_size`` and
    ``random_state`` are not used).  CVAP's folds would all hold the same
    model, so its K IVAPs would only see a K-th of the rows each; the one
    IVAP on all rows is what they approximate.  The weights are then used by
    the calibration only, and ``fit_params`` are ignored, as
    ``FrozenEstimator.fit`` ignores them.  ``cv="prefit"``, which
    scikit-learn 1.8 removed, is refused with a pointer to
    ``FrozenEstimator``.

    With K >= 3 classes the base's (n, K) class scores (``predict_proba``,
    or ``decision_function`` as ``response_method`` says) calibrate one
    :class:`~venncal.OneVsRestCalibrator` (``multiclass="ovr"``) or
    :class:`~venncal.OneVsOneCalibrator` (``"ovo"``) whose base is the
    :class:`~venncal.CrossVennAbersCalibrator`, fitted once on the
    out-of-fold scores with their folds and predicting from the (n, F, K)
    scores of the F fold models.  Every class must have rows in every
    training and calibration part (otherwise ``fit`` refuses, naming the
    class and the fold).  See ``docs/estimators.md``.

    Parameters
    ----------
    estimator : estimator object, default=None
        A scikit-learn classifier with ``predict_proba`` or
        ``decision_function``; ``None`` means ``LogisticRegression()``.
    method : {"cvap", "ivap", "sva"}, default="cvap"
        ``"ivap"``: one split into a proper training set and a calibration set
        (Vovk, Petej & Fedorova 2015, section 2).  ``"cvap"``: K folds, each the calibration set
        of an IVAP trained on the other folds, merged by the minimax rule
        (Vovk, Petej & Fedorova 2015, Algorithm 7).  ``"sva"``: the simplified Venn-Abers
        predictor, proper training set = calibration set = all data (Vovk &
        Petej 2014, Algorithm 2); it has no validity guarantee.
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
    multiclass : {"ovr", "ovo"}, default="ovr"
        For K >= 3 classes: one binary calibrator per class against the rest
        (:class:`~venncal.OneVsRestCalibrator`, probabilities normalised), or
        per pair of classes (:class:`~venncal.OneVsOneCalibrator`, coupled by
        ``coupling``).  Not used for two classes.
    coupling : {"price", "normalize", "wu-lin-weng"}, default="price"
        How ``multiclass="ovo"`` turns pairwise probabilities into class
        probabilities (see :class:`~venncal.OneVsOneCalibrator`); not used
        otherwise.
    response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
        Which output of the base estimator is the score; ``"auto"`` prefers
        ``predict_proba``.
    random_state : int, RandomState instance or None, default=None
        Controls the IVAP split and the shuffling of integer ``cv`` folds.
    n_jobs : int, default=None
        Folds fitted in parallel with joblib (``None`` means 1).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels, sorted; for two classes the probabilities are those of
        ``classes_[1]``.
    estimators_ : list of estimators
        The fitted base estimators, one per fold (one for ivap and sva, and
        the frozen estimator itself for a frozen base).
    calibrator_ : CrossVennAbersCalibrator or multiclass calibrator
        The score-level predictor fitted on the out-of-fold scores; fold k
        (``calibrator_.folds_[k] == k``) is scored by ``estimators_[k]``.
        For K >= 3 classes a OneVsRestCalibrator or OneVsOneCalibrator
        around a CrossVennAbersCalibrator.
    calibrators_ : list
        ``calibrator_.calibrators_``: the IVAP of each fold; for K >= 3
        classes one binary CVAP per class (or pair of classes).
    response_methods_ : tuple of str
        The base estimator's outputs tried for the score, in order (the
        first it has is used): ``("predict_proba", "decision_function")``
        for ``response_method="auto"``.
    response_method_ : str
        The output used: the first of ``response_methods_`` the base has.
    score_ : {"proba", "margin"}
        Its kind (``predict_proba`` or ``decision_function``), the ``score``
        of the multiclass calibrator for K >= 3 classes.
    n_features_in_ : int
        Number of features seen by the base estimator (when it reports it).

    See Also
    --------
    VennAbersCalibrator : The score-level IVAP.
    CrossVennAbersCalibrator : The score-level CVAP this classifier fits.
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
        multiclass="ovr",
        coupling="price",
        response_method="auto",
        random_state=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.calibration_size = calibration_size
        self.merge = merge
        self.multiclass = multiclass
        self.coupling = coupling
        self.response_method = response_method
        self.random_state = random_state
        self.n_jobs = n_jobs

    _parameter_constraints: ClassVar[dict] = {
        **FoldCalibratedClassifier._parameter_constraints,
        "method": [Options(METHODS)],
        "merge": [Options(MERGES)],
    }

    def _split_kind(self):
        return {"ivap": "split", "cvap": "cv", "sva": "all"}[self.method]

    def _new_calibrator(self, classes):
        return CrossVennAbersCalibrator(merge=self.merge, classes=classes)
