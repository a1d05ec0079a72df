"""FullVennAbersClassifier's column 0 is ``1 - p`` from the complement, not ``1.0 - p``.

Issue 22: with a class of weight past ``2**53`` the full predictor's ``p`` is
within ``1e-17`` of 1, and ``predict_proba[:, 0]`` was ``1.0 - p = 0``.  Now
it is computed from ``1 - p0`` as its own quotient (the IVAP's ``q0_``), and
equals the definition in exact rationals (``tests/reference/naive.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.naive import ivap_by_definition
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.frozen import FrozenEstimator

from venncal import FullVennAbersClassifier


class FirstColumn(ClassifierMixin, BaseEstimator):
    """A "classifier" whose decision function is the first feature (any fit gives the same)."""

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def decision_function(self, X):
        return np.asarray(X, dtype=np.float64)[:, 0]


X = np.array([[0.1], [0.5], [0.9], [0.3]])
Y = np.array([0, 1, 1, 0])
TEST = np.array([[0.05], [0.3], [0.7], [0.9], [0.95]])


def _exact_columns(weights, merge):
    """``(1 - p, p)`` of the definition for each test row, correctly rounded."""
    p0s, p1s = ivap_by_definition(X[:, 0], Y, weights, TEST[:, 0], exact=True)
    out = []
    for a, b in zip(p0s, p1s, strict=True):
        p = b / (1 - a + b) if merge == "log" else b + a * a / 2 - b * b / 2
        out.append((float(1 - p), float(p)))
    return np.array(out)


@pytest.mark.parametrize("big", [2.0**53 + 2, 1e17, 1e22, 1e300])
@pytest.mark.parametrize("merge", ["log", "brier"])
@pytest.mark.parametrize("frozen", [False, True])
def test_column_zero_near_one_is_the_definition(big, merge, frozen):
    weights = np.array([1.0, big, big, 3.0])
    base = FirstColumn()
    if frozen:
        base = FrozenEstimator(FirstColumn().fit(X, Y))
    clf = FullVennAbersClassifier(
        base, merge=merge, response_method="decision_function"
    ).fit(X, Y, sample_weight=weights)
    got = clf.predict_proba(TEST)
    exact = _exact_columns(weights, merge)
    # column 1: the float merge of the correctly rounded pair, as everywhere (a few ulps)
    np.testing.assert_allclose(got[:, 1], exact[:, 1], rtol=4 * 2.0**-52, atol=0)
    # column 0 to a few ulps of its own size (0 before: 1.0 - p with p within 1e-17 of 1)
    assert (got[:, 0] > 0).all()
    np.testing.assert_allclose(got[:, 0], exact[:, 0], rtol=4 * 2.0**-52, atol=0)


def test_ordinary_rows_are_unchanged():
    # where p <= 1/2 column 0 is 1.0 - p bit for bit, and column 1 is the minimax merge
    clf = FullVennAbersClassifier(FirstColumn(), response_method="decision_function").fit(X, Y)
    got = clf.predict_proba(TEST)
    pair = clf.predict_interval(TEST)
    p = pair[:, 1] / (1.0 - pair[:, 0] + pair[:, 1])
    np.testing.assert_array_equal(got[:, 1], p)
    low = p <= 0.5
    np.testing.assert_array_equal(got[low, 0], 1.0 - p[low])
    exact = _exact_columns(None, "log")
    np.testing.assert_allclose(got, exact, rtol=4 * 2.0**-52, atol=0)
