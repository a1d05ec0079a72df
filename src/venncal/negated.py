"""A score-level calibrator fitted on minus the score, for scores that fall with the positive class."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._base import own_knots
from ._validation import Check, ParamsMixin, check_scores
from .summary import ScoreSummary

__all__ = ["NegatedScoreCalibrator", "fits_from_summary", "negate_scores", "negate_summary"]


def _is_calibrator(value) -> bool:
    # fit_summary is needed only by fit_summary (a chain has none: it refits its stages)
    return not isinstance(value, type) and all(
        callable(getattr(value, name, None)) for name in ("fit", "predict_proba", "get_params")
    )


def _reads_probabilities(calibrator) -> str | None:
    """The name of what reads probabilities in ``calibrator`` (a chain: its first stage)."""
    if getattr(calibrator, "score", None) == "proba":
        return type(calibrator).__name__
    first = getattr(calibrator, "first", None)
    if first is not None and not isinstance(first, str):
        inner = _reads_probabilities(first)
        return None if inner is None else f"{type(calibrator).__name__}'s first stage {inner}"
    return None


def negate_scores(scores) -> np.ndarray:
    """Return minus ``scores``, after checking them as the calibrators do.

    A 1-D array is checked by :func:`~venncal._validation.check_scores` and
    a 2-D one (one column per fold) column by column, so that an error names
    the value given, not its negation; other shapes are returned unchanged
    for the wrapped calibrator to reject.  ``-0.0`` and ``0.0`` are the same
    score to every calibrator, so the sign of a zero does not matter.

    Examples
    --------
    >>> negate_scores([0.25, -2, 0])
    array([-0.25,  2.  , -0.  ])
    """
    arr = np.asarray(scores)
    if arr.ndim == 1:
        return np.negative(check_scores(arr))
    if arr.ndim == 2 and arr.shape[1] > 0:
        columns = [check_scores(arr[:, k], name=f"scores[:, {k}]") for k in range(arr.shape[1])]
        return np.negative(np.column_stack(columns))
    return arr


def negate_summary(summary):
    """Return the :class:`~venncal.ScoreSummary` of minus the scores (anything else unchanged).

    Examples
    --------
    >>> from venncal import ScoreSummary
    >>> s = negate_summary(ScoreSummary.from_arrays([0.1, 0.3, 0.3], [0, 1, 0]))
    >>> s.scores, s.weights, s.positive_weights
    (array([-0.3, -0.1]), array([2., 1.]), array([1., 0.]))
    """
    if not isinstance(summary, ScoreSummary):
        return summary  # the wrapped calibrator's fit_summary says what is wrong
    return summary._negated()


def _same_param(a, b) -> bool:
    """Whether two parameter values are equal (arrays element by element, NaN equal to NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype.kind == b.dtype.kind and (
            np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        )
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same_param, a, b))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    if hasattr(a, "get_params") and not isinstance(a, type):  # a chain's stages: by their params
        if type(a) is not type(b):
            return False
        pa, pb = a.get_params(deep=False), b.get_params(deep=False)
        return pa.keys() == pb.keys() and all(_same_param(pa[k], pb[k]) for k in pa)
    return type(a) is type(b) and a == b


def fits_from_summary(calibrator) -> bool:
    """Whether ``calibrator.fit_summary`` can fit it: a negated calibrator's, when the one it
    wraps can (a negated chain has the method, and refuses when called)."""
    while isinstance(calibrator, NegatedScoreCalibrator):
        calibrator = calibrator.calibrator
    return callable(getattr(calibrator, "fit_summary", None))


def _inner_has(name: str):
    def check(self) -> bool:
        return hasattr(self.calibrator, name)

    return check


class NegatedScoreCalibrator(ParamsMixin, BaseEstimator):
    """Calibrate a score that *falls* as the positive class becomes more likely.

    Every venncal calibrator takes a higher score to mean "more likely the
    positive class" (``classes_[1]``).  For a score that runs the other way
    (a risk score whose positive class is the low-risk one, a distance, a
    rank), this wrapper fits ``calibrator`` on ``-scores`` and predicts from
    ``-scores`` too, so that a saved and reloaded model applies the same
    negation.  It is equal, bit for bit, to ``calibrator`` fitted on
    ``-scores`` by hand (compare ``IsotonicRegression(increasing=False)`` in
    scikit-learn).  On the command line it is ``venncal fit --decreasing``.

    Parameters
    ----------
    calibrator : score-level calibrator
        The calibrator to fit on minus the scores, e.g.
        ``VennAbersCalibrator()``; it is cloned, not changed.  Its
        parameters (``classes``, ``merge``, ...) apply as usual and are
        reachable as ``calibrator__<name>``.

    Attributes
    ----------
    calibrator_ : score-level calibrator
        The fitted clone of ``calibrator`` (fitted on ``-scores``).
    classes_ : ndarray of shape (2,)
        ``calibrator_.classes_``: ``[negative, positive]``.
    folds_ : ndarray of shape (K,)
        ``calibrator_.folds_``, for a calibrator fitted per fold (cross
        Venn-Abers): test score column k belongs to fold ``folds_[k]``.

    Notes
    -----
    Everything is delegated to ``calibrator_`` with the scores negated:
    :meth:`fit` (with its keyword arguments, such as the ``folds`` of a
    :class:`~venncal.CrossVennAbersCalibrator`), :meth:`fit_summary` (a
    :class:`~venncal.ScoreSummary`, or a mapping of them per fold, negated
    and reversed), :meth:`predict_proba`, :meth:`predict` and, when the
    wrapped calibrator has it, :meth:`predict_interval`.

    Examples
    --------
    >>> from venncal import NegatedScoreCalibrator, VennAbersCalibrator
    >>> risk = [0.9, 0.6, 0.65, 0.2]            # falls with the positive class "good"
    >>> labels = ["bad", "bad", "good", "good"]
    >>> cal = NegatedScoreCalibrator(VennAbersCalibrator()).fit(risk, labels)
    >>> cal.classes_.tolist()
    ['bad', 'good']
    >>> cal.predict_proba([0.1, 0.95])[:, 1].round(3)    # P(good): high at a low risk
    array([0.667, 0.333])
    >>> cal.predict_interval([0.1])
    array([[0.5, 1. ]])
    """

    _state = ("calibrator_",)
    _parameter_constraints: ClassVar[dict] = {
        "calibrator": [
            Check(
                _is_calibrator,
                "a venncal score-level calibrator object (fit, predict_proba, get_params), "
                "e.g. VennAbersCalibrator()",
            )
        ]
    }

    def __init__(self, calibrator):
        self.calibrator = calibrator

    @property
    def _group_param(self) -> str | None:
        """The wrapped calibrator's per-row group argument of ``fit`` (``"folds"`` for CVAP)."""
        return getattr(self.calibrator, "_group_param", None)

    @property
    def folds_(self) -> np.ndarray:
        """The fold ids of a wrapped calibrator fitted per fold (cross Venn-Abers)."""
        return self.calibrator_.folds_

    def fit(self, scores, y, sample_weight=None, **fit_params):
        """Fit a clone of ``calibrator`` on ``-scores``.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
            Calibration scores; lower means more likely positive.
        y : array-like of shape (n_samples,)
            Labels of two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.
        **fit_params
            Passed on to the wrapped ``fit`` (``folds=`` for cross Venn-Abers).

        Returns
        -------
        self
        """
        self._check_params()
        self._check_reads_reals()
        inner = clone(self.calibrator)
        inner.fit(negate_scores(scores), y, sample_weight, **fit_params)
        self._set_fitted(inner)
        return self

    def fit_summary(self, summary):
        """Fit a clone of ``calibrator`` from the summary (or per-fold summaries) of ``-scores``.

        Parameters
        ----------
        summary : ScoreSummary or mapping of group id -> ScoreSummary
            Of the scores as given (they are negated here), labels 0 and 1.

        Returns
        -------
        self
        """
        self._check_params()
        self._check_reads_reals()
        if not callable(getattr(self.calibrator, "fit_summary", None)):
            raise TypeError(
                f"{type(self.calibrator).__name__} has no fit_summary (it fits on the rows "
                "themselves): call fit with the scores and labels"
            )
        inner = clone(self.calibrator)
        if isinstance(summary, Mapping):
            summary = {k: negate_summary(v) for k, v in summary.items()}
        else:
            summary = negate_summary(summary)
        inner.fit_summary(summary)
        self._set_fitted(inner)
        return self

    def _check_reads_reals(self) -> None:
        """Refuse a calibrator that reads probabilities: minus a probability is none."""
        name = _reads_probabilities(self.calibrator)
        if name is not None:
            raise ValueError(
                f"{type(self).__name__} (--decreasing) gives its calibrator minus the scores, "
                f"and {name} with score='proba' reads probabilities in [0, 1]: for a "
                "probability of the other class, name that class positive instead (reverse "
                "the classes in Python, --positive-label on the command line) or pass 1 - p; "
                f"for log-odds, use score='logit'"
            )

    def _set_fitted(self, inner) -> None:
        self.calibrator_ = inner
        self.classes_ = inner.classes_

    def predict_proba(self, scores) -> np.ndarray:
        """Return the wrapped calibrator's probabilities at ``-scores``.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Columns for ``classes_[0]`` and ``classes_[1]``.
        """
        check_is_fitted(self, "calibrator_")
        return self.calibrator_.predict_proba(negate_scores(scores))

    def predict(self, scores) -> np.ndarray:
        """Return the more probable label at ``-scores`` (``classes_[0]`` on a tie)."""
        check_is_fitted(self, "calibrator_")
        return self.calibrator_.predict(negate_scores(scores))

    @available_if(_inner_has("predict_interval"))
    def predict_interval(self, scores) -> np.ndarray:
        """Return the wrapped calibrator's ``predict_interval`` at ``-scores`` (Venn-Abers).

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Lower and upper probability of ``classes_[1]``.
        """
        check_is_fitted(self, "calibrator_")
        return self.calibrator_.predict_interval(negate_scores(scores))

    @available_if(_inner_has("_predict_with_interval"))
    def _predict_with_interval(self, scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(p, p0, p1)`` of the wrapped Venn-Abers calibrator at ``-scores`` (one search)."""
        check_is_fitted(self, "calibrator_")
        return self.calibrator_._predict_with_interval(negate_scores(scores))

    def _log_p1(self, scores) -> np.ndarray | None:
        """The wrapped calibrator's ``log p`` at ``-scores``, or None where it has none.

        A sigmoid's ``p`` underflows where its log does not: the one-vs-rest
        calibrator normalises such rows from the logs (attack 39 F1), for a
        negated Platt base as for Platt itself.
        """
        check_is_fitted(self, "calibrator_")
        log_p1 = getattr(self.calibrator_, "_log_p1", None)
        return None if log_p1 is None else log_p1(negate_scores(scores))

    def _wide_logit(self, scores) -> tuple | None:
        """The wrapped calibrator's wide logit at ``-scores`` (as :meth:`_log_p1`)."""
        check_is_fitted(self, "calibrator_")
        wide_logit = getattr(self.calibrator_, "_wide_logit", None)
        return None if wide_logit is None else wide_logit(negate_scores(scores))

    @own_knots
    def _knots(self) -> np.ndarray | None:
        """Minus the wrapped calibrator's knots, reversed: its steps at ``-scores``.

        The prediction at ``x`` is the wrapped one at ``-x`` (negation is
        exact), so it is a step function exactly when the wrapped one is.
        """
        check_is_fitted(self, "calibrator_")
        knots = getattr(self.calibrator_, "_knots", None)
        knots = knots() if callable(knots) else None
        return None if knots is None else np.negative(np.asarray(knots, dtype=np.float64)[::-1])

    def _check_state(self) -> None:
        """Raise ``ValueError`` unless a reloaded wrapper is consistent (see ScoreCalibrator).

        ``calibrator_`` is a fitted clone of ``calibrator`` (same class, same
        parameters), consistent itself, and ``classes_`` is its ``classes_``.
        """
        inner = self.calibrator_
        if type(inner) is not type(self.calibrator):
            raise ValueError(
                f"calibrator_ must be a fitted {type(self.calibrator).__name__}, like calibrator; "
                f"got {type(inner).__name__}"
            )
        check = getattr(inner, "_check_state", None)
        if check is not None:
            check()
        theirs = self.calibrator.get_params(deep=False)
        for name, value in inner.get_params(deep=False).items():
            if not _same_param(value, theirs.get(name)):
                raise ValueError(f"calibrator_ must have calibrator's parameters; {name} differs")
        ours, theirs = np.asarray(self.classes_), np.asarray(inner.classes_)
        if ours.shape != theirs.shape or ours.tolist() != theirs.tolist():
            raise ValueError("classes_ must equal calibrator_.classes_")
