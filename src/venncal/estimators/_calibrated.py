"""Calibrate any scikit-learn classifier with any score-level method."""

from __future__ import annotations

from typing import ClassVar

from .._registry import available_methods, method_class
from .._validation import DICT, NONE, Options
from ._folds import CV, FoldCalibratedClassifier

__all__ = ["CalibratedClassifier"]

#: Methods of the wrapper: every registered score-level method except
#: "cvap", whose folds the wrapper makes itself; "ivap" is the alias of
#: ``VennAbersClassifier(method="cvap")`` (one CVAP over the folds).
METHODS = tuple(m for m in available_methods() if m != "cvap")


class CalibratedClassifier(FoldCalibratedClassifier):
    """A classifier calibrated per fold by a score-level method.

    In the spirit of scikit-learn's ``CalibratedClassifierCV``: for each
    fold the base estimator is cloned and fitted on the other folds, and a
    calibrator of the chosen method is fitted on its scores of the fold.
    Predictions average the folds' calibrated probabilities.

    ``method="ivap"`` is an alias of :class:`~venncal.VennAbersClassifier`
    (``method="cvap"``, or ``method="ivap"`` for ``cv="split"``, with
    ``merge=method_params.get("merge", "log")``) and runs exactly the same
    code: one :class:`~venncal.CrossVennAbersCalibrator` fitted on the
    out-of-fold scores of all folds, whose Venn-Abers pairs are merged by the
    minimax rule, not averaged.  It stays an alias, not an error, so that one
    loop over ``METHODS`` compares every calibration method with the same
    folds; ``VennAbersClassifier`` is the route with Venn-Abers parameters
    (``merge``, ``method="sva"``).

    A frozen base (:class:`sklearn.frozen.FrozenEstimator`) is never
    refitted and makes every row calibration data, as in scikit-learn's
    ``CalibratedClassifierCV(ensemble="auto")``: one calibrator of the
    method on all rows (for ``"ivap"``, one IVAP), whatever ``cv``; the
    weights are used by the calibration only and ``fit_params`` are ignored.
    ``cv="prefit"``, which scikit-learn 1.8 removed, is refused with a
    pointer to ``FrozenEstimator``.

    With K >= 3 classes each fold's calibrator is a
    :class:`~venncal.OneVsRestCalibrator` (``multiclass="ovr"``, as
    scikit-learn) or :class:`~venncal.OneVsOneCalibrator` (``"ovo"``) around
    the method, fitted on the base's (n, K) class scores (``predict_proba``
    or ``decision_function``, as ``response_method`` resolves), and the folds'
    probabilities are averaged; ``"ivap"`` fits one multiclass CVAP.  Every
    class must have rows in every training and calibration part.

    Parameters
    ----------
    estimator : estimator object, default=None
        A scikit-learn classifier with ``predict_proba`` or
        ``decision_function``; ``None`` means ``LogisticRegression()``.
    method : {"isotonic", "platt", "histogram", "bbq", "ivap"}, default="isotonic"
        The score-level calibrator (see ``venncal.baselines``); ``"ivap"``
        is the alias described above.  ``"cvap"`` is refused with a message
        naming ``VennAbersClassifier(method="cvap")``.
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
        Which output of the base estimator is the score.  ``"auto"`` takes the
        method's preference, the first output the base estimator has:
        ``decision_function`` then ``predict_proba`` for ``"platt"`` (a sigmoid
        of a logit, as Platt 1999 and scikit-learn's ``CalibratedClassifierCV``),
        ``predict_proba`` then ``decision_function`` for the others, which depend
        on the score only through its order (the table is in
        ``docs/estimators.md``).
    random_state : int, RandomState instance or None, default=None
        Controls the split and the shuffling of integer ``cv`` folds.
    n_jobs : int, default=None
        Folds fitted in parallel with joblib.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of estimators
        The fitted base estimators, one per fold (the frozen estimator
        itself for a frozen base).
    calibrator_ : CrossVennAbersCalibrator, multiclass calibrator or None
        For ``method="ivap"``, the one score-level CVAP over all folds (for
        K >= 3 classes, the OneVsRestCalibrator or OneVsOneCalibrator around it).
    calibrators_ : list of score-level calibrators
        The fitted calibrators, one per fold (multiclass ones for K >= 3
        classes); for ``method="ivap"`` ``calibrator_.calibrators_``.
    response_methods_ : tuple of str
        The base estimator's outputs tried for the score, in order (the
        first it has is used): ``response_method`` resolved.
    response_method_ : str
        The output used: the first of ``response_methods_`` the base has.
    score_ : {"proba", "margin"}
        Its kind (``predict_proba`` or ``decision_function``), the ``score``
        of the multiclass calibrator for K >= 3 classes.

    See Also
    --------
    VennAbersClassifier : The Venn-Abers route (IVAP, CVAP, SVA).

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
        self.method_params = method_params
        self.multiclass = multiclass
        self.coupling = coupling
        self.response_method = response_method
        self.random_state = random_state
        self.n_jobs = n_jobs

    _parameter_constraints: ClassVar[dict] = {
        **FoldCalibratedClassifier._parameter_constraints,
        "method": [Options(METHODS)],
        "cv": [*CV, Options(("split",))],
        "method_params": [NONE, DICT],
    }

    def _check_params(self) -> None:
        if isinstance(self.method, str) and self.method == "cvap":
            raise ValueError(
                'CalibratedClassifier: method "cvap" makes its own folds; use '
                'VennAbersClassifier(method="cvap") (or method="ivap" here, its alias)'
            )
        super()._check_params()

    def _venn_abers(self) -> bool:
        return self.method == "ivap"

    def _split_kind(self):
        return "split" if isinstance(self.cv, str) and self.cv == "split" else "cv"

    def _new_calibrator(self, classes):
        params = dict(self.method_params or {})
        params["classes"] = classes
        # "ivap" over folds is the cross Venn-Abers predictor: one calibrator
        # for all folds, the same one VennAbersClassifier fits.
        return method_class("cvap" if self.method == "ivap" else self.method)(**params)
