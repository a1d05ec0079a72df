"""A scikit-learn classifier protected online by the Jumper (Vovk, Petej & Gammerman 2021).

:class:`ProtectedClassifier` trains a base classifier once, then runs a Jumper
predictor (:class:`~venncal.online.JumperPredictor`, or
:class:`~venncal.online.MeanJumper` for several jump rates) over its
probabilities on a labelled stream, in order.  It is a thin layer: the base
model's probability of ``classes_[1]`` is the Jumper's ``p``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._validation import NONE, Check, Interval, check_classifier_targets
from ..estimators._helpers import ESTIMATOR, WrapperMixin, positive_scores
from .families import CalibratingFamily
from .jumper import JumperPredictor, MeanJumper, _is_pair, _is_rates

__all__ = ["ProtectedClassifier"]


def _is_rate_or_rates(v) -> bool:
    return Interval("real", 0.0, 1.0, closed="right")(v) or _is_rates(v)


class ProtectedClassifier(WrapperMixin, ClassifierMixin, BaseEstimator):
    """Binary classifier whose probabilities are protected online by the Jumper.

    ``fit`` trains the base estimator (a clone of `estimator`) once and starts
    a fresh Jumper; a labelled stream is then fed in order with
    :meth:`predict_proba_stream` (which returns the protected forecasts, each
    made before its label) or :meth:`partial_fit` (which only learns).  The base
    model is never refitted: the Jumper adapts its forecasts to drift (Vovk,
    Petej & Gammerman 2021).  :meth:`predict_proba` forecasts at the
    current state of the stream without learning.

    Parameters
    ----------
    estimator : estimator object, default=None
        A scikit-learn classifier with ``predict_proba``; ``None`` means
        ``LogisticRegression()``.
    family : CalibratingFamily, default=None
        The calibrating functions; ``None`` means ``quadratic()`` (eq. (1)).
    jump_rate : float in (0, 1] or sequence of float, default=0.01
        The Jumper's rate ``J``; a sequence of rates runs the Mean Jumper over
        them (e.g. ``(1, 0.1, 0.01, 0.001)``, Vovk, Petej & Gammerman 2021 section 5).
    clip : (float, float), default=None
        Clip the base probabilities to ``[low, high]`` first (the paper uses
        ``(0.1, 0.9)``); without it a base probability of 0 or 1 that meets the
        other label is an error.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels, sorted; probabilities are those of ``classes_[1]``.
    estimator_ : estimator
        The fitted base estimator.
    jumper_ : JumperPredictor or MeanJumper
        The Jumper over the stream seen since ``fit`` (``log10_value``,
        ``alarm(alpha)``, ``n_seen_``).
    n_features_in_ : int
        Number of features seen by the base estimator (when it reports it).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from venncal.online import ProtectedClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(3000, 2))
    >>> y = (X[:, 0] + rng.normal(size=3000) > 0).astype(int)
    >>> clf = ProtectedClassifier(LogisticRegression(), clip=(0.01, 0.99)).fit(X[:500], y[:500])
    >>> later = X[500:] + [1.0, 0.0]                  # the world drifts after training
    >>> proba = clf.predict_proba_stream(later, y[500:])
    >>> proba.shape
    (2500, 2)
    >>> clf.jumper_.log10_value > 2                    # S >= 100: evidence of miscalibration
    True
    >>> clf.jumper_.alarm(0.01) is not None
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": ESTIMATOR,
        "family": [
            NONE,
            Check(
                lambda v: isinstance(v, CalibratingFamily),
                "a CalibratingFamily (quadratic(), cox(...), ...)",
            ),
        ],
        "jump_rate": [Check(_is_rate_or_rates, "a number in (0, 1] or a sequence of them")],
        "clip": [NONE, Check(_is_pair, "a pair (low, high) with 0 <= low < high <= 1")],
    }

    def __init__(
        self,
        estimator=None,
        *,
        family: CalibratingFamily | None = None,
        jump_rate: float | Sequence[float] = 0.01,
        clip: tuple[float, float] | None = None,
    ):
        self.estimator = estimator
        self.family = family
        self.jump_rate = jump_rate
        self.clip = clip

    def _new_jumper(self):
        # the estimator's classes: the Jumper's messages name the user's labels (attack 50 F2)
        kwargs = {"clip": self.clip, "classes": self.classes_.tolist()}
        if np.ndim(self.jump_rate) == 0:
            return JumperPredictor(self.family, float(self.jump_rate), **kwargs)
        return MeanJumper(self.family, tuple(float(j) for j in self.jump_rate), **kwargs)

    def fit(self, X, y, **fit_params) -> ProtectedClassifier:
        """Fit the base estimator on ``(X, y)`` and start a fresh stream.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two classes.
        **fit_params : dict
            Passed to the base estimator's ``fit``.

        Returns
        -------
        self : ProtectedClassifier
        """
        self._check_params()
        base = self._base_estimator()
        if not hasattr(base, "predict_proba"):  # before any state changes
            raise TypeError(
                f"{type(self).__name__}: the base estimator must have predict_proba (the "
                f"Jumper protects probabilities); {type(base).__name__} has none: wrap it, "
                "for instance in scikit-learn's CalibratedClassifierCV, or use another model"
            )
        _, self.classes_, _ = check_classifier_targets(type(self).__name__, y)
        self.estimator_ = clone(base).fit(X, y, **fit_params)
        if hasattr(self.estimator_, "n_features_in_"):
            self.n_features_in_ = self.estimator_.n_features_in_
        self.jumper_ = self._new_jumper()
        return self

    def _base_proba(self, X) -> np.ndarray:
        check_is_fitted(self, "jumper_")
        return positive_scores(self.estimator_, X, self.classes_[1], "predict_proba")

    def _positive(self, y) -> np.ndarray:
        y = np.asarray(y)
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise ValueError(
                f"y[{int(np.flatnonzero(unknown)[0])}] = {y[unknown][0]!r} is not one of the "
                f"classes seen by fit {self.classes_.tolist()!r}"
            )
        if list(self.jumper_.classes) == [False, True]:  # pickled before the classes were named
            return y == self.classes_[1]
        return y

    def predict_proba_stream(self, X, y) -> np.ndarray:
        """Run the Jumper over a labelled stream, in order; return the protected forecasts.

        Row ``i``'s forecast is made before its label ``y[i]`` is seen, then the
        Jumper learns from it; the stream continues from the previous calls.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            The labels, in the order they arrived.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Protected probabilities of ``classes_[0]`` and ``classes_[1]``:
            row ``i`` is what :meth:`predict_proba` would give before step
            ``i``, bit for bit (``classes_[0]``'s probability formed directly,
            not as ``1 - p'``, where ``p' > 1/2``: issue 22).
        """
        p = self._base_proba(X)
        return self.jumper_._run_both(p, self._positive(y))

    def partial_fit(self, X, y, classes=None, sample_weight=None) -> ProtectedClassifier:
        """Learn from a labelled stretch of the stream, in order (the base model is kept).

        On an unfitted classifier, the first call is :meth:`fit` on this batch
        (the base model needs training data); later calls feed the Jumper.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (2,), default=None
            Accepted for scikit-learn's API: the two classes, checked against
            those of the training data.
        sample_weight : array-like of shape (n_samples,), default=None
            On the first call, passed to the base estimator's ``fit``; later,
            to the Jumper, whose steps take the weights 0 (the row is dropped)
            and 1 only.

        Returns
        -------
        self : ProtectedClassifier
        """
        if not hasattr(self, "jumper_"):
            if classes is not None:  # before fitting: a refusal leaves the object unfitted
                observed = check_classifier_targets(type(self).__name__, y)[1]
                if not np.array_equal(np.sort(np.asarray(classes)), observed):
                    raise ValueError(
                        f"classes={list(classes)!r} differ from the classes of y "
                        f"{observed.tolist()!r}"
                    )
            return self.fit(X, y,
                            **({} if sample_weight is None else {"sample_weight": sample_weight}))
        self.jumper_.learn_many(self._base_proba(X), self._positive(y), sample_weight)
        return self

    def predict_proba(self, X) -> np.ndarray:
        """Return the protected probabilities at the current state of the stream (no learning).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        p = self._base_proba(X)  # checks that the classifier is fitted
        return self.jumper_.predict_proba_many(p)
