"""CalibratedClassifier against a by-hand rebuild of its folds."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.naive_bayes import GaussianNB

from venncal import CalibratedClassifier, VennAbersClassifier
from venncal.baselines import (
    BBQCalibrator,
    HistogramBinningCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
)

CALIBRATORS = {
    "isotonic": IsotonicCalibrator,
    "platt": PlattCalibrator,
    "histogram": HistogramBinningCalibrator,
    "bbq": BBQCalibrator,
}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=400, n_features=5, random_state=2)
    return X[:320], y[:320], X[320:]


@pytest.mark.parametrize("method", ["isotonic", "platt", "histogram", "bbq"])
def test_folds_rebuilt_by_hand(data, method):
    X, y, X_test = data
    cv = KFold(4)
    clf = CalibratedClassifier(GaussianNB(), method=method, cv=cv).fit(X, y)
    expected = []
    for train, cal in cv.split(X, y):
        est = GaussianNB().fit(X[train], y[train])
        calibrator = CALIBRATORS[method]().fit(est.predict_proba(X[cal])[:, 1], y[cal])
        expected.append(calibrator.predict_proba(est.predict_proba(X_test)[:, 1])[:, 1])
    np.testing.assert_allclose(clf.predict_proba(X_test)[:, 1], np.mean(expected, axis=0), atol=1e-12)
    assert not hasattr(clf, "predict_interval")


def test_ivap_method_is_cvap(data):
    X, y, X_test = data
    a = CalibratedClassifier(GaussianNB(), method="ivap", cv=5, random_state=1).fit(X, y)
    b = VennAbersClassifier(GaussianNB(), method="cvap", cv=5, random_state=1).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X_test), b.predict_proba(X_test))
    np.testing.assert_array_equal(a.predict_interval(X_test), b.predict_interval(X_test))


def test_split_and_method_params(data):
    X, y, X_test = data
    clf = CalibratedClassifier(
        GaussianNB(), method="histogram", cv="split", calibration_size=0.25,
        method_params={"n_bins": 4}, random_state=3,
    ).fit(X, y)
    train, cal = train_test_split(np.arange(len(y)), test_size=0.25, stratify=y, random_state=3)
    est = GaussianNB().fit(X[np.sort(train)], y[np.sort(train)])
    calibrator = HistogramBinningCalibrator(n_bins=4).fit(est.predict_proba(X[np.sort(cal)])[:, 1], y[np.sort(cal)])
    np.testing.assert_allclose(
        clf.predict_proba(X_test)[:, 1],
        calibrator.predict_proba(est.predict_proba(X_test)[:, 1])[:, 1],
        atol=1e-12,
    )
    assert len(clf.estimators_) == 1


def test_labels_and_bad_parameters(data):
    X, y, X_test = data
    ref = CalibratedClassifier(GaussianNB(), method="platt", cv=StratifiedKFold(3)).fit(X, y)
    other = clone(ref).fit(X, np.where(y == 1, "yes", "no"))
    np.testing.assert_allclose(other.predict_proba(X_test), ref.predict_proba(X_test), atol=1e-12)
    assert set(other.predict(X_test)) <= {"no", "yes"}
    with pytest.raises(ValueError, match="method"):
        CalibratedClassifier(method="cvap").fit(X, y)
    with pytest.raises(ValueError, match="method_params"):
        CalibratedClassifier(method_params=[1]).fit(X, y)
