"""A naive Bayes learner like Weka's ``NaiveBayes``, for the reproduced experiments.

The papers' naive Bayes is Weka's: nominal attributes are modelled by frequency tables
with Laplace smoothing, numeric attributes by one normal distribution per class whose
standard deviation is at least the attribute's precision / 6 (the precision being the
mean gap between the attribute's sorted distinct training values). The experiments'
data are one-hot encoded, so each nominal attribute is a group of indicator columns
(:func:`groups_from_names`); scikit-learn's ``GaussianNB`` would treat every indicator as
a normal variable and produce almost only 0 and 1 probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["MixedNaiveBayes", "groups_from_names"]

#: Weka's precision of a numeric attribute with a single distinct value.
_DEFAULT_PRECISION = 0.01


def groups_from_names(names: Sequence[str]) -> list[list[int]]:
    """Return the column groups of the one-hot encoded nominal attributes.

    Columns named ``"attribute=value"`` (as the venncal loaders name them) belong to the
    group of ``attribute``; other columns are numeric and belong to no group.

    Examples
    --------
    >>> groups_from_names(["age", "sex=F", "sex=M", "x", "c=a", "c=b", "c=c"])
    [[1, 2], [4, 5, 6]]
    """
    groups: dict[str, list[int]] = {}
    for j, name in enumerate(names):
        if "=" in name:
            groups.setdefault(name.split("=", 1)[0], []).append(j)
    return list(groups.values())


class MixedNaiveBayes(ClassifierMixin, BaseEstimator):
    """Naive Bayes with categorical (one-hot groups) and normal (other columns) attributes.

    Parameters
    ----------
    groups : list of list of int, optional
        Column indices of each one-hot encoded nominal attribute; every row has exactly
        one 1 in each group (the category is the column holding the largest value).
        Columns outside the groups are numeric. None: every column is numeric.
    alpha : float, default=1.0
        Pseudo-count added to every class and category count (1: Laplace, as Weka).

    Examples
    --------
    >>> X = np.array([[1, 0, 0.5], [0, 1, 1.5], [1, 0, 0.7], [0, 1, 2.0]])
    >>> nb = MixedNaiveBayes(groups=[[0, 1]]).fit(X, [0, 1, 0, 1])
    >>> nb.predict_proba([[1, 0, 0.6]]).round(3)
    array([[1., 0.]])
    """

    def __init__(self, groups=None, alpha=1.0):
        self.groups = groups
        self.alpha = alpha

    def fit(self, X, y):
        """Fit the class prior, the frequency tables and the normal distributions."""
        X, y = validate_data(self, X, y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        if self.alpha <= 0:
            raise ValueError(f"alpha must be positive, got {self.alpha}")
        groups = [list(map(int, g)) for g in (self.groups or [])]
        in_group = np.zeros(X.shape[1], dtype=bool)
        for g in groups:
            if not g or in_group[g].any():
                raise ValueError("groups must be non-empty and disjoint")
            in_group[g] = True
        self.groups_ = groups
        self.numeric_ = np.flatnonzero(~in_group)
        counts = np.bincount(y_idx, minlength=n_classes).astype(float)
        self.class_log_prior_ = np.log(
            (counts + self.alpha) / (counts.sum() + n_classes * self.alpha)
        )
        # frequency tables: log P(category | class), one array (classes x categories) per group
        self.category_log_prob_ = []
        for g in groups:
            cat = np.argmax(X[:, g], axis=1)
            table = np.full((n_classes, len(g)), float(self.alpha))
            np.add.at(table, (y_idx, cat), 1.0)
            self.category_log_prob_.append(np.log(table / table.sum(axis=1, keepdims=True)))
        Xn = X[:, self.numeric_]
        self.theta_ = np.zeros((n_classes, Xn.shape[1]))
        self.sigma_ = np.ones((n_classes, Xn.shape[1]))
        floor = np.array([_precision(Xn[:, j]) / 6.0 for j in range(Xn.shape[1])])
        for k in range(n_classes):
            rows = Xn[y_idx == k]
            if len(rows):
                self.theta_[k] = rows.mean(axis=0)
                self.sigma_[k] = np.maximum(rows.std(axis=0), floor)
            else:
                self.sigma_[k] = np.maximum(floor, 1.0)
        return self

    def _joint_log_likelihood(self, X) -> np.ndarray:
        check_is_fitted(self, "classes_")
        X = validate_data(self, X, reset=False)
        jll = np.tile(self.class_log_prior_, (X.shape[0], 1))
        for g, log_prob in zip(self.groups_, self.category_log_prob_, strict=True):
            jll += log_prob[:, np.argmax(X[:, g], axis=1)].T
        Xn = X[:, self.numeric_]
        for k in range(len(self.classes_)):
            z = (Xn - self.theta_[k]) / self.sigma_[k]
            jll[:, k] += np.sum(
                -0.5 * z**2 - np.log(self.sigma_[k]) - 0.5 * np.log(2 * np.pi), axis=1
            )
        return jll

    def predict_proba(self, X) -> np.ndarray:
        """Return the posterior class probabilities, columns in the order of ``classes_``."""
        jll = self._joint_log_likelihood(X)
        return np.exp(jll - logsumexp(jll, axis=1, keepdims=True))

    def predict(self, X) -> np.ndarray:
        """Return the most probable class of each row."""
        return self.classes_[np.argmax(self._joint_log_likelihood(X), axis=1)]


def _precision(x: np.ndarray) -> float:
    values = np.unique(x)
    if len(values) < 2:
        return _DEFAULT_PRECISION
    return float(np.mean(np.diff(values)))
