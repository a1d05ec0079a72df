"""The score columns the fold machinery hands to a calibrator: (n, 1) binary, (n, K) multiclass.

The wrappers are binary; these tests pin the internal contract the multiclass
wrappers will build on (``class_scores``, ``fit_and_score``).
"""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import LinearSVC

from venncal.estimators._helpers import class_scores, fit_and_score, positive_scores


@pytest.fixture(scope="module")
def three_classes():
    X, y = make_classification(
        n_samples=300, n_features=6, n_informative=4, n_classes=3, random_state=1
    )
    labels = np.array(["b", "c", "a"])[y]  # sorted classes: a, b, c
    return X, labels


@pytest.mark.parametrize("classes", [["a", "b", "c"], ["c", "a", "b"]])
@pytest.mark.parametrize("method", ["predict_proba", "decision_function"])
def test_multiclass_columns_follow_classes(three_classes, classes, method):
    X, y = three_classes
    est = LogisticRegression().fit(X, y)
    out = class_scores(est, X, np.array(classes), method)
    assert out.shape == (len(X), 3) and out.dtype == np.float64
    assert out.flags.c_contiguous
    full = getattr(est, method)(X)
    for k, c in enumerate(classes):
        np.testing.assert_array_equal(out[:, k], full[:, list(est.classes_).index(c)])


def test_auto_prefers_probabilities_and_falls_back(three_classes):
    X, y = three_classes
    lr = LogisticRegression().fit(X, y)
    np.testing.assert_array_equal(class_scores(lr, X, lr.classes_, "auto"), lr.predict_proba(X))
    svm = LinearSVC().fit(X, y)
    np.testing.assert_array_equal(
        class_scores(svm, X, svm.classes_, "auto"), svm.decision_function(X)
    )


def test_a_class_the_base_never_saw_is_named(three_classes):
    X, y = three_classes
    est = GaussianNB().fit(X[y != "c"], y[y != "c"])
    with pytest.raises(ValueError, match="fitted without the class 'c'"):
        class_scores(est, X, np.array(["a", "b", "c"]), "predict_proba")


def test_width_differs_from_the_classes(three_classes):
    X, y = three_classes
    est = LogisticRegression().fit(X, y)
    frozen = FrozenEstimator(est)
    with pytest.raises(ValueError, match=r"shape \(300, 3\); expected one column per class \(n, 4\)"):
        class_scores(_NoClasses(frozen), X, np.array(["a", "b", "c", "d"]), "predict_proba")


class _NoClasses:
    """A scorer without ``classes_`` (columns taken as given)."""

    def __init__(self, est):
        self.est = est

    def predict_proba(self, X):
        return self.est.predict_proba(X)


def test_binary_is_one_column_of_positive_scores():
    X, y = make_classification(n_samples=200, random_state=2)
    labels = np.where(y == 1, "yes", "no")
    for est in (LogisticRegression().fit(X, labels), LinearSVC().fit(X, labels)):
        for method in ("predict_proba", "decision_function"):
            if not hasattr(est, method):
                continue
            for positive in ("yes", "no"):
                classes = np.array(["no", "yes"] if positive == "yes" else ["yes", "no"])
                out = class_scores(est, X, classes, method)
                assert out.shape == (len(X), 1)
                np.testing.assert_array_equal(
                    out[:, 0], positive_scores(est, X, positive, method)
                )


def test_fit_and_score_gives_out_of_fold_columns(three_classes):
    X, y = three_classes
    train, cal = np.arange(0, 200), np.arange(200, 300)
    classes = np.array(["a", "b", "c"])
    est, scores = fit_and_score(LogisticRegression(), X, y, None, {}, classes, "auto", train, cal)
    reference = LogisticRegression().fit(X[train], y[train])
    np.testing.assert_array_equal(scores, reference.predict_proba(X[cal]))
    assert est.classes_.tolist() == ["a", "b", "c"]


def test_fit_and_score_never_fits_a_frozen_base(three_classes):
    X, y = three_classes
    lr = LogisticRegression().fit(X, y)
    frozen = FrozenEstimator(lr)
    est, scores = fit_and_score(frozen, X, y[::-1], np.ones(len(y)), {}, lr.classes_, "auto")
    assert est is frozen
    np.testing.assert_array_equal(scores, lr.predict_proba(X))
