"""Tests of ``ProtectedClassifier``: a scikit-learn classifier protected by the Jumper."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from venncal.online import JumperPredictor, MeanJumper, ProtectedClassifier, cox


def drifting(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=n) > 0, "yes", "no")
    X[n // 4 :, 0] += np.linspace(0, 2, n - n // 4)  # the world drifts after training
    return X, y


@parametrize_with_checks(
    [ProtectedClassifier(), ProtectedClassifier(LogisticRegression(C=0.5), jump_rate=(1, 0.01))]
)
def test_sklearn_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize(
    ("params", "reference"),
    [
        ({}, lambda: JumperPredictor(classes=[False, True])),
        (
            {"family": cox([0.5, 1, 2]), "jump_rate": 0.1, "clip": (0.05, 0.95)},
            lambda: JumperPredictor(cox([0.5, 1, 2]), 0.1, clip=(0.05, 0.95), classes=[0, 1]),
        ),
        ({"jump_rate": (1, 0.1, 0.01)}, lambda: MeanJumper(jump_rates=(1, 0.1, 0.01))),
    ],
)
def test_stream_equals_base_model_then_jumper(params, reference):
    X, y = drifting()
    clf = ProtectedClassifier(LogisticRegression(), **params).fit(X[:1000], y[:1000])
    proba = clf.predict_proba_stream(X[1000:], y[1000:])
    base = LogisticRegression().fit(X[:1000], y[:1000]).predict_proba(X[1000:])[:, 1]
    expected = reference().run(base, y[1000:] == "yes")
    np.testing.assert_allclose(proba[:, 1], expected.protected_proba, rtol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert clf.jumper_.log10_value == pytest.approx(expected.log10_final, rel=1e-12)
    assert clf.jumper_.alarm(0.01) is not None  # the drift is detected
    assert clf.classes_.tolist() == ["no", "yes"]


def test_partial_fit_and_stream_continue_the_same_stream():
    X, y = drifting()
    one = ProtectedClassifier().fit(X[:1000], y[:1000])
    whole = one.predict_proba_stream(X[1000:], y[1000:])
    two = ProtectedClassifier().fit(X[:1000], y[:1000])
    two.partial_fit(X[1000:2500], y[1000:2500])
    rest = two.predict_proba_stream(X[2500:], y[2500:])
    np.testing.assert_array_equal(rest, whole[1500:])
    assert two.jumper_.n_seen_ == 3000


def test_predict_proba_does_not_learn():
    X, y = drifting()
    clf = ProtectedClassifier().fit(X[:1000], y[:1000])
    clf.partial_fit(X[1000:2000], y[1000:2000])
    state = pickle.dumps(clf.jumper_)
    proba = clf.predict_proba(X[2000:2100])
    assert pickle.dumps(clf.jumper_) == state
    base = clf.estimator_.predict_proba(X[2000:2100])[:, 1]
    np.testing.assert_array_equal(proba, clf.jumper_.predict_proba_many(base))
    assert set(clf.predict(X[:5])) <= {"no", "yes"}


def test_pickle_mid_stream_resumes_exactly():
    X, y = drifting()
    clf = ProtectedClassifier(jump_rate=(1, 0.01)).fit(X[:1000], y[:1000])
    clf.partial_fit(X[1000:2000], y[1000:2000])
    copy = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(
        copy.predict_proba_stream(X[2000:], y[2000:]), clf.predict_proba_stream(X[2000:], y[2000:])
    )


def test_refit_starts_a_fresh_stream_and_clone_keeps_params():
    X, y = drifting()
    clf = ProtectedClassifier(jump_rate=0.1).fit(X[:1000], y[:1000])
    clf.partial_fit(X[1000:], y[1000:])
    clf.fit(X[:1000], y[:1000])
    assert clf.jumper_.n_seen_ == 0
    assert clone(clf).get_params()["jump_rate"] == 0.1


def test_partial_fit_first_call_fits_the_base_model():
    X, y = drifting()
    clf = ProtectedClassifier().partial_fit(X[:1000], y[:1000], classes=["no", "yes"])
    assert clf.jumper_.n_seen_ == 0
    with pytest.raises(ValueError, match="differ from the classes"):
        ProtectedClassifier().partial_fit(X[:1000], y[:1000], classes=["a", "b"])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"jump_rate": 0}, "jump_rate"),
        ({"jump_rate": (0.5, 2)}, "jump_rate"),
        ({"clip": (0.9, 0.1)}, "clip"),
        ({"family": "quadratic"}, "CalibratingFamily"),
        ({"estimator": "lr"}, "estimator"),
    ],
)
def test_bad_parameters(params, message):
    X, y = drifting(200)
    with pytest.raises(ValueError, match=message):
        ProtectedClassifier(**params).fit(X, y)


def test_stream_errors():
    X, y = drifting(600)
    with pytest.raises(NotFittedError):
        ProtectedClassifier().predict_proba_stream(X, y)
    clf = ProtectedClassifier().fit(X[:300], y[:300])
    with pytest.raises(ValueError, match="not one of the classes"):
        clf.predict_proba_stream(X[300:302], ["yes", "maybe"])


class GivenProbability(ClassifierMixin, BaseEstimator):
    """A 'classifier' whose probability of the positive class is its first feature."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        p = np.asarray(X, dtype=float)[:, 0]
        return np.column_stack([1.0 - p, p])


@pytest.mark.parametrize("jump_rate", [0.01, (1, 0.1, 0.01, 0.001)])
def test_issue_22_subnormal_forecast(jump_rate):
    # The base model says 1e-310 and the positive label comes: the Jumper's 1/q
    # overflowed and every later forecast was NaN.
    p, y = np.array([0.3, 1e-310, 0.4, 0.6]), np.array([1, 1, 0, 1])
    clf = ProtectedClassifier(GivenProbability(), jump_rate=jump_rate).fit([[0.2], [0.7]], [0, 1])
    proba = clf.predict_proba_stream(p[:, None], y)
    assert np.isfinite(proba).all() and np.isfinite(clf.jumper_.log10_value)
    ref = (JumperPredictor(jump_rate=jump_rate) if np.ndim(jump_rate) == 0
           else MeanJumper(jump_rates=jump_rate))
    np.testing.assert_array_equal(proba[:, 1], ref.run(p, y).protected_proba)
    assert clf.jumper_.log10_value == ref.log10_value
    np.testing.assert_array_equal(clf.predict_proba([[1e-310]]),
                                  ref.predict_proba_many([1e-310]))


def test_partial_fit_sample_weight_drops_rows():
    X, y = drifting(2000)
    w = (np.arange(1000) % 3 != 0).astype(float)
    one = ProtectedClassifier().fit(X[:1000], y[:1000])
    one.partial_fit(X[1000:], y[1000:], sample_weight=w)
    two = ProtectedClassifier().fit(X[:1000], y[:1000])
    two.partial_fit(X[1000:][w > 0], y[1000:][w > 0])
    assert one.jumper_.n_seen_ == two.jumper_.n_seen_ == int(w.sum())
    np.testing.assert_array_equal(one.predict_proba(X[:50]), two.predict_proba(X[:50]))
    with pytest.raises(ValueError, match="sample_weight must be 0"):
        one.partial_fit(X[:2], y[:2], sample_weight=[0.5, 1.0])
    assert one.jumper_.n_seen_ == int(w.sum())


def test_refusals_come_before_any_state_changes():
    # the fresh attack of 2026-11-26: partial_fit(classes=[0, 2]) refused only after fitting
    # (H1); a base without predict_proba fitted, and the first prediction then pointed to a
    # response_method this class does not have (H4)
    from sklearn.svm import LinearSVC

    X = np.random.default_rng(0).normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = ProtectedClassifier(LogisticRegression())
    with pytest.raises(ValueError, match=r"classes=\[0, 2\] differ from the classes of y"):
        clf.partial_fit(X, y, classes=[0, 2])
    assert not hasattr(clf, "jumper_") and not hasattr(clf, "estimator_")
    assert clf.partial_fit(X, y, classes=[1, 0]) is clf
    with pytest.raises(TypeError, match="LinearSVC has none: wrap it"):
        ProtectedClassifier(LinearSVC()).fit(X, y)
