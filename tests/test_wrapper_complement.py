"""Column 0 of the binary estimator wrappers is their calibrators' column 0 (attack 13 F2).

``CalibratedClassifier`` returned ``1.0 - p``: 1.1e-16 (BBQ) or 0.0 (Platt)
where its calibrator's own column 0 is 1.5e-27 or 2.6e-117.  Column 0 is now
the calibrator's column 0 (``cv="split"``) or the mean of the folds' column 0
(``cv=K``), averaged as column 1 is; column 1 is unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from venncal.estimators import CalibratedClassifier, VennAbersClassifier
from venncal.estimators._folds import _binary


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 1))
    y = (X[:, 0] + rng.normal(size=n) * 0.5 > 0).astype(int)
    return X, y, np.where(y == 1, 1e20, 1.0)


_QUERIES = np.array([[3.0], [2.0], [0.5], [0.0], [-2.0]])


def _folds_columns(clf, X):
    scores = [_binary(s) for s in clf._fold_scores(X)]
    return [cal.predict_proba(s) for cal, s in zip(clf.calibrators_, scores, strict=True)]


@pytest.mark.parametrize("cv", ["split", 3])
@pytest.mark.parametrize("method", ["isotonic", "histogram", "bbq", "platt"])
def test_calibrated_classifier_column_0_is_the_folds_column_0(method, cv):
    X, y, w = _data()
    clf = CalibratedClassifier(LogisticRegression(), method=method, cv=cv,
                               random_state=0).fit(X, y, sample_weight=w)
    got = clf.predict_proba(_QUERIES)
    folds = _folds_columns(clf, _QUERIES)
    np.testing.assert_array_equal(got[:, 1], np.mean([f[:, 1] for f in folds], axis=0))
    np.testing.assert_array_equal(got[:, 0], np.mean([f[:, 0] for f in folds], axis=0))
    assert np.all(np.abs((got[:, 0] - 1.0) + got[:, 1]) <= 2.0**-52)


@pytest.mark.parametrize("cv", ["split", 3])
def test_column_0_keeps_its_precision_where_p_rounds_to_1(cv):
    X, y, w = _data()
    for method in ("bbq", "platt"):
        clf = CalibratedClassifier(LogisticRegression(), method=method, cv=cv,
                                   random_state=0).fit(X, y, sample_weight=w)
        got = clf.predict_proba(_QUERIES[:2])
        # main: 1.0 - p, i.e. 1.1e-16 (BBQ) or 0.0 (Platt); the calibrators say < 1e-20
        assert np.all((got[:, 0] > 0.0) & (got[:, 0] < 1e-20)), (method, got[:, 0])


def test_venn_abers_classifier_column_0_is_its_calibrators():
    X, y, w = _data()
    for method in ("ivap", "cvap"):
        clf = VennAbersClassifier(LogisticRegression(), method=method, random_state=0)
        clf.fit(X, y, sample_weight=w)
        scores = np.column_stack([_binary(s) for s in clf._fold_scores(_QUERIES)])
        np.testing.assert_array_equal(clf.predict_proba(_QUERIES),
                                      clf.calibrator_.predict_proba(scores))
