"""Which output of the base estimator each calibration method takes as the score.

Issue 23: ``CalibratedClassifier(method="platt")`` fitted its sigmoid on
``predict_proba`` when the base had it, where Platt (1999) and scikit-learn's
``CalibratedClassifierCV`` use the decision function; its log loss was worse than the
raw model's on COIL 2000.
"""

import numpy as np
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import LinearSVC

from venncal import CalibratedClassifier, VennAbersClassifier
from venncal._registry import available_methods, method_class


def _data(seed=0, n=3000):
    X, y = make_classification(
        n_samples=n, n_features=20, n_informative=6, weights=[0.85], flip_y=0.05,
        random_state=seed,
    )
    return X[: n // 2], y[: n // 2], X[n // 2 :], y[n // 2 :]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_platt_matches_scikit_learn_sigmoid(seed):
    X, y, Xt, yt = _data(seed)
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    ours = CalibratedClassifier(LogisticRegression(max_iter=1000), method="platt", cv=folds)
    theirs = CalibratedClassifierCV(LogisticRegression(max_iter=1000), method="sigmoid", cv=folds)
    loss_ours = log_loss(yt, ours.fit(X, y).predict_proba(Xt)[:, 1])
    loss_theirs = log_loss(yt, theirs.fit(X, y).predict_proba(Xt)[:, 1])
    assert abs(loss_ours - loss_theirs) <= 1e-3
    assert ours.response_methods_ == ("decision_function", "predict_proba")


def test_platt_takes_the_decision_function():
    X, y, Xt, _ = _data()
    clf = CalibratedClassifier(LogisticRegression(max_iter=1000), method="platt", cv=3,
                               random_state=0).fit(X, y)
    explicit = CalibratedClassifier(LogisticRegression(max_iter=1000), method="platt", cv=3,
                                    random_state=0, response_method="decision_function").fit(X, y)
    np.testing.assert_array_equal(clf.predict_proba(Xt), explicit.predict_proba(Xt))


def test_order_based_methods_keep_the_probability():
    X, y, Xt, _ = _data()
    for method in ("isotonic", "histogram", "bbq", "ivap"):
        clf = CalibratedClassifier(GaussianNB(), method=method, cv=3, random_state=0).fit(X, y)
        assert clf.response_methods_[0] == "predict_proba", method
    va = VennAbersClassifier(GaussianNB(), method="ivap", random_state=0).fit(X, y)
    assert va.response_methods_ == ("predict_proba", "decision_function")


def test_falls_back_to_what_the_base_has():
    X, y, Xt, _ = _data()
    # LinearSVC has no predict_proba: every method takes its decision function.
    for method in ("platt", "isotonic"):
        clf = CalibratedClassifier(LinearSVC(), method=method, cv=3, random_state=0).fit(X, y)
        assert clf.predict_proba(Xt).shape == (Xt.shape[0], 2)
    # GaussianNB has no decision_function: Platt takes the probability.
    clf = CalibratedClassifier(GaussianNB(), method="platt", cv=3, random_state=0).fit(X, y)
    assert clf.predict_proba(Xt).shape == (Xt.shape[0], 2)


def test_explicit_response_method_is_kept():
    X, y, _, _ = _data()
    clf = CalibratedClassifier(LogisticRegression(max_iter=1000), method="platt", cv=3,
                               response_method="predict_proba", random_state=0).fit(X, y)
    assert clf.response_methods_ == ("predict_proba",)
    with pytest.raises(AttributeError, match="has no predict_proba"):
        CalibratedClassifier(LinearSVC(), method="isotonic", cv=3,
                             response_method="predict_proba").fit(X, y)


def test_every_method_states_its_preference():
    for method in available_methods():
        prefs = method_class(method)._response_methods
        assert set(prefs) == {"predict_proba", "decision_function"}, method


def test_a_calibrator_of_probabilities_takes_predict_proba_only():
    # BetaCalibrator(score="proba") models a probability: fed a margin it would be
    # wrong, so "auto" takes predict_proba or says that the base has none.
    X, y = make_classification(n_samples=300, random_state=0)
    clf = CalibratedClassifier(GaussianNB(), method="beta", cv=3, random_state=0).fit(X, y)
    assert clf.response_methods_ == ("predict_proba",)
    with pytest.raises(AttributeError, match="has no predict_proba"):
        CalibratedClassifier(LinearSVC(), method="beta", cv=3).fit(X, y)
