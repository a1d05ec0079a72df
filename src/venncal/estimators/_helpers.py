"""Helpers shared by the estimator wrappers: parameters, rows, fit parameters, scores."""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.utils import get_tags
from sklearn.utils.validation import has_fit_parameter

from .._validation import (
    N_JOBS,
    NONE,
    Check,
    Options,
    ParamsMixin,
    check_classifier_targets,
    check_sample_weight,
    check_weighted_classes,
)

__all__ = [
    "ESTIMATOR",
    "RESPONSE_METHOD",
    "RESPONSE_METHODS",
    "WrapperMixin",
    "as_rows",
    "check_fit_data",
    "class_scores",
    "default_estimator",
    "fit_and_score",
    "fit_estimator",
    "is_frozen",
    "n_samples",
    "positive_scores",
    "resolve_response",
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
    :func:`venncal._validation.validate_params`), starting from the rules of
    the parameters every wrapper has (``estimator``, ``response_method``,
    ``n_jobs``) listed here; ``fit`` calls :meth:`_check_params` first,
    which raises ``ValueError`` as scikit-learn's estimator checks expect.
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": ESTIMATOR,
        "response_method": RESPONSE_METHOD,
        "n_jobs": [N_JOBS],
    }

    def _base_estimator(self):
        return default_estimator() if self.estimator is None else self.estimator

    #: Whether the wrapper takes K >= 3 classes (scikit-learn's ``multi_class`` tag).
    _multiclass: ClassVar[bool] = False

    def predict(self, X) -> np.ndarray:
        """Return the most probable label of ``classes_`` for each row (the first on a tie).

        Two classes: ``classes_[1]`` where its probability exceeds 0.5.
        """
        p = self.predict_proba(X)
        if len(self.classes_) > 2:
            return self.classes_[np.argmax(p, axis=1)]
        return self.classes_[(p[:, 1] > 0.5).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base_tags = get_tags(self._base_estimator())
        tags.input_tags = base_tags.input_tags
        tags.classifier_tags.multi_class = self._multiclass
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


def check_fit_data(owner: str, X, y, sample_weight, *, multiclass: bool = False):
    """Check the data of a wrapper's ``fit``: one label per row, two classes, weights.

    Returns ``(X, y, classes, sample_weight)``: ``X`` in a form that
    supports row selection, the labels, the two classes sorted (any K >= 2
    classes, sorted, if ``multiclass``), and the checked weights (None when
    not given; every class needs positive total weight).  Errors name ``owner``.
    """
    X = as_rows(X)
    y, classes, y01 = check_classifier_targets(owner, y, multiclass=multiclass)
    n = n_samples(X)
    if y.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y.shape[0]} labels")
    sw = check_sample_weight(sample_weight, n)
    check_weighted_classes(owner, classes, y01, sw)
    return X, y, classes, sw


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


def resolve_response(estimator, response_method) -> str:
    """The output of ``estimator`` used for the score: the first of ``response_method`` it has.

    ``response_method`` is ``"predict_proba"``, ``"decision_function"``, or
    a tuple of them in order of preference; ``"auto"`` means
    ``("predict_proba", "decision_function")``.  ``AttributeError`` if the
    estimator has none of them.
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
    return response_method


def _response(estimator, X, response_method):
    """``(name, output)``: :func:`resolve_response`'s output of the estimator, applied to ``X``."""
    method = resolve_response(estimator, response_method)
    return method, np.asarray(getattr(estimator, method)(X))


def _column(classes, label, what: str) -> int:
    """Index of ``label`` in the base estimator's ``classes`` (ValueError if absent)."""
    hits = np.flatnonzero(np.asarray(classes) == label)
    if hits.shape[0] == 0:
        shown = label.item() if isinstance(label, np.generic) else label
        raise ValueError(f"the base estimator was fitted without the {what} {shown!r}")
    return int(hits[0])


def positive_scores(estimator, X, positive_label, response_method) -> np.ndarray:
    """Scores of the positive class from a fitted binary classifier, shape (n,).

    ``response_method`` as in :func:`class_scores`.  A probability is the
    column of ``positive_label``; a decision function is oriented so that
    a larger score favours ``positive_label``.
    """
    method, out = _response(estimator, X, response_method)
    classes = getattr(estimator, "classes_", None)
    if method == "predict_proba":
        col = 1 if classes is None else _column(classes, positive_label, "positive class")
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


def class_scores(estimator, X, classes, response_method) -> np.ndarray:
    """The columns of scores a calibrator of ``classes`` needs, shape (n, 1) or (n, K).

    Two classes: one column, the score of ``classes[1]`` (as
    :func:`positive_scores`; scikit-learn's ``CalibratedClassifierCV`` also
    keeps one column in the binary case).  K >= 3 classes: column k is the
    score of ``classes[k]``, the base estimator's ``predict_proba`` or
    ``decision_function`` column of that class, matched through its
    ``classes_`` (a class it was not fitted with is a ``ValueError``).
    ``response_method`` is a method name, a tuple of them in order of
    preference, or ``"auto"`` (``predict_proba`` first).
    """
    if len(classes) == 2:
        return positive_scores(estimator, X, classes[1], response_method)[:, None]
    method, out = _response(estimator, X, response_method)
    fitted = getattr(estimator, "classes_", None)
    width = len(classes) if fitted is None else len(fitted)
    if out.ndim != 2 or out.shape[1] != width:
        raise ValueError(
            f"{method} returned shape {out.shape}; expected one column per class "
            f"(n, {width})"
        )
    if fitted is not None:
        out = out[:, [_column(fitted, c, "class") for c in classes]]
    return np.ascontiguousarray(out, dtype=np.float64)


def fit_and_score(
    estimator, X, y, sample_weight, fit_params, classes, response_method, train=None, cal=None
):
    """Fit ``estimator`` on rows ``train``; return it and its :func:`class_scores` of rows ``cal``.

    ``None`` means all rows.  Per-sample fit parameters are cut with the
    rows.  A frozen estimator (:func:`is_frozen`) is not fitted, nor given
    the weights: it only scores.
    """
    if not is_frozen(estimator):
        n = n_samples(X)
        if train is None:
            X_train, y_train, w_train, params = X, y, sample_weight, fit_params
        else:
            X_train, y_train = take_rows(X, train), y[train]
            w_train = None if sample_weight is None else sample_weight[train]
            params = slice_fit_params(fit_params, train, n)
        fit_estimator(estimator, X_train, y_train, w_train, params)
    X_cal = X if cal is None else take_rows(X, cal)
    return estimator, class_scores(estimator, X_cal, classes, response_method)
