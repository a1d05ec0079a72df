"""Helpers shared by the estimator wrappers: parameters, rows, fit parameters, scores."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.utils import get_tags
from sklearn.utils.validation import has_fit_parameter

from .._validation import NONE, Check, Options, ParamsMixin

__all__ = [
    "ESTIMATOR",
    "RESPONSE_METHOD",
    "RESPONSE_METHODS",
    "WrapperMixin",
    "as_rows",
    "default_estimator",
    "fit_estimator",
    "is_frozen",
    "n_samples",
    "positive_scores",
    "slice_fit_params",
    "take_rows",
]

RESPONSE_METHODS = ("auto", "predict_proba", "decision_function")

#: Constraints shared by every wrapper's ``_parameter_constraints``.
ESTIMATOR = [NONE, Check(lambda v: hasattr(v, "fit"), "an estimator with a fit method")]
RESPONSE_METHOD = [Options(RESPONSE_METHODS)]


def default_estimator():
    """Return the base estimator used when none is given: logistic regression."""
    return LogisticRegression()


def is_frozen(estimator) -> bool:
    """Whether ``estimator`` is already fitted and must not be refitted.

    The test scikit-learn's ``CalibratedClassifierCV(ensemble="auto")``
    makes: an instance of :class:`sklearn.frozen.FrozenEstimator`.
    """
    return isinstance(estimator, FrozenEstimator)


class WrapperMixin(ParamsMixin):
    """What every estimator wrapper shares: parameter checks, base estimator, ``predict``, tags.

    Put it before scikit-learn's ``ClassifierMixin`` and ``BaseEstimator``.
    A wrapper lists its parameter rules in ``_parameter_constraints`` (see
    :func:`venncal._validation.validate_params`); ``fit`` calls
    :meth:`_check_params` first, which raises ``ValueError`` as
    scikit-learn's estimator checks expect.
    """

    def _base_estimator(self):
        return default_estimator() if self.estimator is None else self.estimator

    def predict(self, X) -> np.ndarray:
        """Return the more probable label for each row (``classes_[0]`` on a tie)."""
        p = self.predict_proba(X)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base_tags = get_tags(self._base_estimator())
        tags.input_tags = base_tags.input_tags
        tags.classifier_tags.multi_class = False
        tags.non_deterministic = base_tags.non_deterministic
        return tags


def as_rows(X):
    """Return ``X`` in a form that supports row selection."""
    if hasattr(X, "iloc"):
        return X
    if sp.issparse(X):
        return X if X.format in ("csr", "csc") else X.tocsr()
    return np.asarray(X)


def n_samples(X) -> int:
    """Return the number of rows of ``X``."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    return len(X)


def take_rows(X, idx):
    """Rows ``idx`` of an array, sparse matrix or DataFrame."""
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    return X[idx]


def slice_fit_params(fit_params: dict, idx, n: int) -> dict:
    """Select rows ``idx`` of every fit parameter that has one value per sample."""
    out = {}
    for key, value in fit_params.items():
        per_sample = value is not None and not np.isscalar(value) and hasattr(value, "__len__")
        out[key] = take_rows(as_rows(value), idx) if per_sample and n_samples(value) == n else value
    return out


def fit_estimator(estimator, X, y, sample_weight, fit_params):
    """Fit ``estimator``, passing ``sample_weight`` only when given."""
    if sample_weight is not None:
        if has_fit_parameter(estimator, "sample_weight"):
            return estimator.fit(X, y, sample_weight=sample_weight, **fit_params)
        warnings.warn(
            f"{type(estimator).__name__} does not accept sample_weight; the weights are used "
            "only for the calibration",
            UserWarning,
            stacklevel=3,
        )
    return estimator.fit(X, y, **fit_params)


def positive_scores(estimator, X, positive_label, response_method) -> np.ndarray:
    """Scores of the positive class from a fitted binary classifier.

    ``response_method`` is ``"predict_proba"``, ``"decision_function"``, or
    a tuple of them in order of preference (the first the estimator has);
    ``"auto"`` means ``("predict_proba", "decision_function")``.
    """
    if response_method == "auto":
        response_method = ("predict_proba", "decision_function")
    if not isinstance(response_method, str):
        response_method = next(
            (m for m in response_method if hasattr(estimator, m)), response_method[-1]
        )
    if not hasattr(estimator, response_method):
        raise AttributeError(
            f"{type(estimator).__name__} has no {response_method}; choose another "
            "response_method"
        )
    out = np.asarray(getattr(estimator, response_method)(X))
    classes = getattr(estimator, "classes_", None)
    if response_method == "predict_proba":
        if classes is None:
            col = 1
        else:
            hits = np.flatnonzero(np.asarray(classes) == positive_label)
            if hits.shape[0] == 0:
                raise ValueError(
                    f"the base estimator was fitted without the positive class {positive_label!r}"
                )
            col = int(hits[0])
        return np.ascontiguousarray(out[:, col], dtype=np.float64)
    if out.ndim == 2:
        if out.shape[1] != 1:
            raise ValueError(
                f"decision_function returned shape {out.shape}; a binary classifier's is (n,)"
            )
        out = out[:, 0]
    if classes is not None and len(classes) == 2 and classes[1] != positive_label:
        out = -out
    return np.ascontiguousarray(out, dtype=np.float64)
