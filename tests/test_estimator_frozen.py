"""A frozen base estimator makes every row calibration data (issue 24, the second defect).

With :class:`sklearn.frozen.FrozenEstimator` the wrappers neither split the rows
nor refit the base: one calibrator is fitted on the base's scores of all rows,
as scikit-learn's ``CalibratedClassifierCV(ensemble="auto")`` does.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold

from venncal import (
    CalibratedClassifier,
    FullVennAbersClassifier,
    VennAbersCalibrator,
    VennAbersClassifier,
)
from venncal.estimators._full import _full_triple


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=900, n_features=8, random_state=3)
    lr = LogisticRegression().fit(X[:300], y[:300])
    rng = np.random.default_rng(3)
    w = rng.integers(1, 4, 300).astype(float)
    return lr, X[300:600], y[300:600], w, X[600:]


class _NoRefit(LogisticRegression):
    """Fails loudly if the wrapper ever refits the frozen model's base."""

    def fit(self, *args, **kwargs):
        raise AssertionError("a frozen base was refitted")


def _frozen(lr):
    spy = _NoRefit()
    spy.__dict__.update(lr.__dict__)
    return FrozenEstimator(spy)


def _assert_same_ivap(ivap, reference):
    for name in VennAbersCalibrator._state:
        np.testing.assert_array_equal(getattr(ivap, name), getattr(reference, name), name)


@pytest.mark.parametrize("method", ["cvap", "ivap", "sva"])
@pytest.mark.parametrize("weighted", [False, True])
def test_venn_abers_classifier_calibrates_on_every_row(data, method, weighted):
    lr, X, y, w, X_test = data
    sw = w if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no sample_weight warning: the base is not fitted
        clf = VennAbersClassifier(_frozen(lr), method=method, cv=5, random_state=0)
        clf.fit(X, y, sample_weight=sw)
    scores = lr.predict_proba(X)[:, 1]
    reference = VennAbersCalibrator().fit(scores, y, sample_weight=sw)
    assert len(clf.estimators_) == 1 and len(clf.calibrators_) == 1
    (ivap,) = clf.calibrators_
    # every row is used: the calibrator's total weight is the data's
    assert ivap.weights_.sum() == (len(y) if sw is None else sw.sum())
    _assert_same_ivap(ivap, reference)
    test_scores = lr.predict_proba(X_test)[:, 1]
    np.testing.assert_array_equal(
        clf.predict_interval(X_test), reference.predict_interval(test_scores)
    )
    np.testing.assert_array_equal(clf.predict_proba(X_test), reference.predict_proba(test_scores))


def test_cvap_with_frozen_base_is_narrower_than_the_folds(data):
    """The old code's five IVAPs on a fifth of the rows each were wider (issue 24)."""
    lr, X, y, _, X_test = data
    frozen = VennAbersClassifier(FrozenEstimator(lr), cv=5, random_state=0).fit(X, y)
    width = np.diff(frozen.predict_interval(X_test), axis=1).mean()
    # What the wrapper did before: one IVAP per fold of the same (frozen) model.
    scores = lr.predict_proba(X)[:, 1]
    parts = [
        VennAbersCalibrator().fit(scores[cal], y[cal])
        for _, cal in KFold(5, shuffle=True, random_state=0).split(X)
    ]
    test_scores = lr.predict_proba(X_test)[:, 1]
    old_width = np.mean([np.diff(c.predict_interval(test_scores), axis=1).mean() for c in parts])
    assert width < 0.6 * old_width  # 0.050 on all 300 rows; 0.132 per fold of 60 rows


@pytest.mark.parametrize("method", ["isotonic", "platt", "ivap"])
@pytest.mark.parametrize("cv", [3, "split"])
def test_calibrated_classifier_calibrates_on_every_row(data, method, cv):
    lr, X, y, w, X_test = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = CalibratedClassifier(_frozen(lr), method=method, cv=cv, random_state=0)
        clf.fit(X, y, sample_weight=w)
    assert len(clf.estimators_) == 1 and len(clf.calibrators_) == 1
    (cal,) = clf.calibrators_
    response = clf.response_methods_[0]
    scores = getattr(lr, response)(X)
    scores = scores[:, 1] if scores.ndim == 2 else scores
    reference = clone(cal).fit(scores, y, sample_weight=w)
    for name in type(cal)._state:
        np.testing.assert_array_equal(getattr(cal, name), getattr(reference, name), name)


@pytest.mark.parametrize("cls", [VennAbersClassifier, CalibratedClassifier])
def test_cv_prefit_is_refused_with_a_pointer_to_frozen_estimator(data, cls):
    lr, X, y, _, _ = data
    with pytest.raises(ValueError, match=r'cv="prefit".*FrozenEstimator'):
        cls(lr, cv="prefit").fit(X, y)


def test_full_venn_abers_with_frozen_base_is_the_ivap_of_all_rows(data):
    lr, X, y, w, X_test = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = FullVennAbersClassifier(_frozen(lr)).fit(X, y, sample_weight=w)
    reference = VennAbersCalibrator().fit(lr.predict_proba(X)[:, 1], y, sample_weight=w)
    _assert_same_ivap(clf.calibrator_, reference)
    pair = clf.predict_interval(X_test[:5])
    # The definition (a refit per postulated label, no-ops here) gives the same pairs.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FrozenEstimator.fit takes no sample_weight
        slow = np.vstack([
            _full_triple(
                FrozenEstimator(lr), X, y, clf.classes_, w, {}, X_test[i : i + 1], "auto"
            )[:2]
            for i in range(5)
        ])
    np.testing.assert_allclose(pair, slow, rtol=0, atol=1e-15)
    assert clf.predict_proba(X_test).shape == (len(X_test), 2)


def test_full_venn_abers_without_frozen_base_has_no_calibrator(data):
    lr, X, y, _, _ = data
    clf = FullVennAbersClassifier(LogisticRegression()).fit(X[:40], y[:40])
    assert clf.calibrator_ is None
