"""CalibratedClassifier against a by-hand rebuild of its folds."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.naive_bayes import GaussianNB

from venncal import CalibratedClassifier, CrossVennAbersCalibrator, VennAbersClassifier
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


def _bits(a):
    """An array's float64 bits: equality of these is equality to the bit."""
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


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
    assert clf.calibrator_ is None
    assert [type(c) for c in clf.calibrators_] == [CALIBRATORS[method]] * 4


@pytest.mark.parametrize(
    ("cv", "va_method"), [(5, "cvap"), (KFold(3), "cvap"), ("split", "ivap")]
)
@pytest.mark.parametrize("merge", ["log", "brier"])
def test_ivap_method_is_an_alias_of_venn_abers_classifier(data, cv, va_method, merge):
    X, y, X_test = data
    w = np.random.default_rng(0).integers(1, 3, len(y)).astype(float)
    a = CalibratedClassifier(
        GaussianNB(), method="ivap", cv=cv, method_params={"merge": merge}, random_state=1
    ).fit(X, y, sample_weight=w)
    va_cv = 5 if cv == "split" else cv
    b = VennAbersClassifier(
        GaussianNB(), method=va_method, cv=va_cv, merge=merge, random_state=1
    ).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(_bits(a.predict_proba(X_test)), _bits(b.predict_proba(X_test)))
    np.testing.assert_array_equal(
        _bits(a.predict_interval(X_test)), _bits(b.predict_interval(X_test))
    )
    assert type(a.calibrator_) is type(b.calibrator_) is CrossVennAbersCalibrator
    assert a.calibrator_.merge == merge


def test_cvap_method_points_to_venn_abers_classifier(data):
    X, y, _ = data
    with pytest.raises(ValueError, match=r'VennAbersClassifier\(method="cvap"\)'):
        CalibratedClassifier(method="cvap").fit(X, y)


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
    for params, name in [
        ({"method": "venn"}, "method"),
        ({"method_params": [1]}, "method_params"),
        ({"cv": 1}, "cv"),
        ({"cv": "splits"}, "cv"),
        ({"response_method": "predict"}, "response_method"),
        ({"calibration_size": 0.0, "cv": "split"}, "calibration_size"),
    ]:
        with pytest.raises(ValueError, match=f"CalibratedClassifier: {name} must be"):
            CalibratedClassifier(**params).fit(X, y)
