"""Estimator wrappers against their definitions: IVAP, CVAP, SVA and full VA."""

import pickle
from typing import ClassVar

import numpy as np
import pytest
from reference.naive import cvap_interval, cvap_merge, isotonic_value_at, ivap_by_definition
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

import venncal
from venncal import (
    CrossVennAbersCalibrator,
    FullVennAbersClassifier,
    VennAbersCalibrator,
    VennAbersClassifier,
)

TOL = 1e-12


def _bits(a):
    """An array's float64 bits: equality of these is equality to the bit."""
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=300, n_features=6, random_state=0)
    return X[:240], y[:240], X[240:]


def _scores(est, X):
    return est.predict_proba(X)[:, 1]


class CountingClassifier(ClassifierMixin, BaseEstimator):
    """GaussianNB that records every fit in a shared log."""

    log: ClassVar[list] = []

    def __init__(self, tag=None):
        self.tag = tag

    def fit(self, X, y, marker=None):
        CountingClassifier.log.append((len(X), None if marker is None else len(marker)))
        self.model_ = GaussianNB().fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict_proba(self, X):
        return self.model_.predict_proba(X)


def test_cvap_equals_merge_of_reference_ivaps(data):
    X, y, X_test = data
    splitter = StratifiedKFold(5, shuffle=True, random_state=3)
    clf = VennAbersClassifier(GaussianNB(), cv=splitter).fit(X, y)
    p0s, p1s = [], []
    for train, cal in splitter.split(X, y):
        est = GaussianNB().fit(X[train], y[train])
        p0, p1 = ivap_by_definition(_scores(est, X[cal]), y[cal], None, _scores(est, X_test))
        p0s.append(p0)
        p1s.append(p1)
    np.testing.assert_allclose(clf.predict_proba(X_test)[:, 1], cvap_merge(p0s, p1s), atol=TOL)
    np.testing.assert_allclose(clf.predict_interval(X_test), cvap_interval(p0s, p1s), atol=TOL)
    brier = clone(clf).set_params(merge="brier").fit(X, y)
    np.testing.assert_allclose(
        brier.predict_proba(X_test)[:, 1], cvap_merge(p0s, p1s, "brier"), atol=TOL
    )


@pytest.mark.parametrize("merge", ["log", "brier"])
@pytest.mark.parametrize("weighted", [False, True])
def test_estimator_cvap_is_score_cvap_on_out_of_fold_scores(data, merge, weighted):
    # The one fold-merge path: K base models, their out-of-fold scores with
    # the fold ids, one score-level CVAP; prediction stacks the K models' scores.
    X, y, X_test = data
    w = np.random.default_rng(2).integers(0, 4, len(y)).astype(float) if weighted else None
    splitter = StratifiedKFold(4, shuffle=True, random_state=8)
    clf = VennAbersClassifier(GaussianNB(), cv=splitter, merge=merge)
    clf.fit(X, y, sample_weight=w)
    scores, rows, folds, test = [], [], [], []
    for k, (train, cal) in enumerate(splitter.split(X, y)):
        est = GaussianNB().fit(X[train], y[train], sample_weight=None if w is None else w[train])
        scores.append(_scores(est, X[cal]))
        rows.append(cal)
        folds.append(np.full(len(cal), k))
        test.append(_scores(est, X_test))
    rows = np.concatenate(rows)
    cvap = CrossVennAbersCalibrator(merge=merge).fit(
        np.concatenate(scores), y[rows], None if w is None else w[rows], folds=np.concatenate(folds)
    )
    test = np.column_stack(test)
    np.testing.assert_array_equal(_bits(clf.predict_proba(X_test)), _bits(cvap.predict_proba(test)))
    np.testing.assert_array_equal(
        _bits(clf.predict_interval(X_test)), _bits(cvap.predict_interval(test))
    )
    assert isinstance(clf.calibrator_, CrossVennAbersCalibrator)
    assert clf.calibrator_.folds_.tolist() == [0, 1, 2, 3]
    assert clf.calibrators_ is clf.calibrator_.calibrators_


def test_public_names_of_the_estimator_layer():
    for name in ("VennAbersClassifier", "FullVennAbersClassifier", "CalibratedClassifier"):
        assert getattr(venncal, name) is getattr(venncal.estimators, name)
        assert not hasattr(venncal.venn_abers, name)  # venn_abers is the score level only


def test_cvap_integer_cv_is_shuffled_stratified_kfold(data):
    X, y, X_test = data
    a = VennAbersClassifier(GaussianNB(), cv=4, random_state=7).fit(X, y)
    b = VennAbersClassifier(
        GaussianNB(), cv=StratifiedKFold(4, shuffle=True, random_state=7)
    ).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X_test), b.predict_proba(X_test))
    assert len(a.estimators_) == len(a.calibrators_) == 4


def test_contiguous_folds_as_in_the_paper(data):
    X, y, X_test = data
    clf = VennAbersClassifier(GaussianNB(), cv=KFold(5)).fit(X, y)
    p0s, p1s = [], []
    for k in range(5):
        cal = np.arange(48 * k, 48 * (k + 1))
        train = np.setdiff1d(np.arange(240), cal)
        est = GaussianNB().fit(X[train], y[train])
        p0, p1 = ivap_by_definition(_scores(est, X[cal]), y[cal], None, _scores(est, X_test))
        p0s.append(p0)
        p1s.append(p1)
    np.testing.assert_allclose(clf.predict_proba(X_test)[:, 1], cvap_merge(p0s, p1s), atol=TOL)


def test_ivap_equals_reference_on_the_same_split(data):
    X, y, X_test = data
    clf = VennAbersClassifier(
        LogisticRegression(), method="ivap", calibration_size=0.25, random_state=5
    ).fit(X, y)
    train, cal = train_test_split(np.arange(240), test_size=0.25, stratify=y, random_state=5)
    est = LogisticRegression().fit(X[np.sort(train)], y[np.sort(train)])
    p0, p1 = ivap_by_definition(_scores(est, X[cal]), y[cal], None, _scores(est, X_test))
    np.testing.assert_allclose(clf.predict_interval(X_test), np.column_stack((p0, p1)), atol=TOL)
    np.testing.assert_allclose(clf.predict_proba(X_test)[:, 1], p1 / (1 - p0 + p1), atol=TOL)
    assert len(clf.calibrators_[0].scores_) <= 60


def test_sva_uses_all_data_for_training_and_calibration(data):
    X, y, X_test = data
    clf = VennAbersClassifier(GaussianNB(), method="sva").fit(X, y)
    est = GaussianNB().fit(X, y)
    p0, p1 = ivap_by_definition(_scores(est, X), y, None, _scores(est, X_test))
    np.testing.assert_allclose(clf.predict_interval(X_test), np.column_stack((p0, p1)), atol=TOL)


@pytest.mark.parametrize(("method", "n_fits"), [("ivap", 1), ("sva", 1), ("cvap", 5)])
def test_estimator_fitted_once_per_fold_with_fit_params_split(data, method, n_fits):
    X, y, X_test = data
    CountingClassifier.log.clear()
    clf = VennAbersClassifier(CountingClassifier(), method=method, random_state=0)
    clf.fit(X, y, marker=np.arange(len(y)))
    assert len(CountingClassifier.log) == n_fits
    for n_rows, n_marker in CountingClassifier.log:
        assert n_marker == n_rows  # per-sample fit parameters follow the rows
    clf.predict_proba(X_test)
    clf.predict_interval(X_test)
    assert len(CountingClassifier.log) == n_fits  # nothing refitted at predict time


@pytest.mark.parametrize(
    "labels", [(1, 2), (-1, 1), ("no", "yes"), (False, True), (0.0, 1.0), ("a", "b")]
)
@pytest.mark.parametrize("method", ["ivap", "cvap", "sva"])
def test_any_two_labels_give_the_same_probabilities(data, labels, method):
    X, y, X_test = data
    ref = VennAbersClassifier(GaussianNB(), method=method, random_state=0).fit(X, y)
    y_other = np.where(y == 1, labels[1], labels[0])
    clf = VennAbersClassifier(GaussianNB(), method=method, random_state=0).fit(X, y_other)
    assert list(clf.classes_) == list(labels)
    np.testing.assert_array_equal(clf.predict_proba(X_test), ref.predict_proba(X_test))
    assert set(clf.predict(X_test)) <= set(labels)


def test_decision_function_scores(data):
    X, y, X_test = data
    clf = VennAbersClassifier(LinearSVC(), method="ivap", random_state=0).fit(X, y)
    assert clf.predict_proba(X_test).shape == (60, 2)
    # The positive class's scores are used even when it is not the larger label.
    y_neg = np.where(y == 1, "b", "a")
    flipped = VennAbersClassifier(LinearSVC(), method="ivap", random_state=0).fit(X, y_neg)
    np.testing.assert_array_equal(flipped.predict_proba(X_test), clf.predict_proba(X_test))
    with pytest.raises(AttributeError, match="predict_proba"):
        VennAbersClassifier(LinearSVC(), response_method="predict_proba").fit(X, y)


def test_probability_bounds_lemma_2(data):
    X, y, X_test = data
    clf = VennAbersClassifier(DecisionTreeClassifier(random_state=0), method="ivap",
                              random_state=0).fit(X, y)
    cal = clf.calibrators_[0]
    p = clf.predict_proba(X_test)[:, 1]
    assert np.all(p >= 1 / (cal.n_negative_ + 2) - 1e-15)
    assert np.all(p <= 1 - 1 / (cal.n_positive_ + 2) + 1e-15)
    cv = VennAbersClassifier(DecisionTreeClassifier(random_state=0), random_state=0).fit(X, y)
    k = max(len(c.scores_) and c.weights_.sum() for c in cv.calibrators_)
    p = cv.predict_proba(X_test)[:, 1]
    assert np.all((p >= 1 / (k + 2) - 1e-15) & (p <= 1 - 1 / (k + 2) + 1e-15))


def test_sample_weight_reaches_calibration_and_estimator(data):
    X, y, X_test = data
    w = np.random.default_rng(0).integers(1, 4, len(y)).astype(float)
    clf = VennAbersClassifier(LogisticRegression(), method="sva").fit(X, y, sample_weight=w)
    est = LogisticRegression().fit(X, y, sample_weight=w)
    p0, p1 = ivap_by_definition(_scores(est, X), y, w, _scores(est, X_test))
    np.testing.assert_allclose(clf.predict_interval(X_test), np.column_stack((p0, p1)), atol=TOL)


def test_estimator_without_sample_weight_warns(data):
    X, y, _ = data

    class NoWeights(GaussianNB):
        def fit(self, X, y):
            return super().fit(X, y)

    with pytest.warns(UserWarning, match="only for the calibration"):
        VennAbersClassifier(NoWeights(), method="sva").fit(X, y, sample_weight=np.ones(len(y)))


def test_one_class_and_three_classes_raise(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="class"):
        VennAbersClassifier().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="binary"):  # multiclass: tests/test_multiclass_estimators.py
        FullVennAbersClassifier().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="class"):
        FullVennAbersClassifier().fit(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="weight"):
        VennAbersClassifier().fit(X, y, sample_weight=np.where(y == 1, 0.0, 1.0))


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"method": "venn"}, "method"),
        ({"merge": "mean"}, "merge"),
        ({"response_method": "predict"}, "response_method"),
        ({"cv": 1}, "cv"),
        ({"cv": "split"}, "cv"),
        ({"calibration_size": 1.5, "method": "ivap"}, "calibration_size"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"random_state": "seed"}, "random_state"),
        ({"estimator": "tree"}, "estimator"),
    ],
)
def test_bad_parameters(data, params, match):
    X, y, _ = data
    with pytest.raises(ValueError, match=f"VennAbersClassifier: {match} must be"):
        VennAbersClassifier(**params).fit(X, y)


@pytest.mark.parametrize(
    ("params", "match"),
    [({"merge": "mean"}, "merge"), ({"response_method": "x"}, "response_method"),
     ({"n_jobs": 1.5}, "n_jobs")],
)
def test_full_bad_parameters(data, params, match):
    X, y, _ = data
    with pytest.raises(ValueError, match=f"FullVennAbersClassifier: {match} must be"):
        FullVennAbersClassifier(GaussianNB(), **params).fit(X, y)


def test_pipeline_grid_search_clone_pickle(data):
    X, y, X_test = data
    pipe = make_pipeline(StandardScaler(), VennAbersClassifier(random_state=0))
    grid = GridSearchCV(
        pipe,
        {"vennabersclassifier__method": ["ivap", "cvap"], "vennabersclassifier__merge": ["log", "brier"]},
        cv=3,
        scoring="neg_log_loss",
    ).fit(X, y)
    assert grid.best_params_["vennabersclassifier__method"] in ("ivap", "cvap")
    p = grid.predict_proba(X_test)
    restored = pickle.loads(pickle.dumps(grid))
    np.testing.assert_array_equal(restored.predict_proba(X_test), p)
    clf = VennAbersClassifier(GaussianNB(), method="ivap", cv=3)
    cloned = clone(clf).get_params(deep=False)
    assert repr(cloned.pop("estimator")) == "GaussianNB()"
    assert cloned == {k: v for k, v in clf.get_params(deep=False).items() if k != "estimator"}


def test_dataframe_input_keeps_feature_names(data):
    pd = pytest.importorskip("pandas")
    X, y, X_test = data
    cols = [f"f{i}" for i in range(X.shape[1])]
    clf = VennAbersClassifier(LogisticRegression(), random_state=0).fit(pd.DataFrame(X, columns=cols), y)
    assert list(clf.feature_names_in_) == cols
    ref = VennAbersClassifier(LogisticRegression(), random_state=0).fit(X, y)
    np.testing.assert_allclose(
        clf.predict_proba(pd.DataFrame(X_test, columns=cols)), ref.predict_proba(X_test), atol=1e-12
    )


@pytest.mark.slow  # starts joblib worker processes
def test_parallel_folds_match_serial(data):
    X, y, X_test = data
    serial = VennAbersClassifier(GaussianNB(), random_state=0).fit(X, y)
    parallel = VennAbersClassifier(GaussianNB(), random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(serial.predict_proba(X_test), parallel.predict_proba(X_test))


def _full_va_literal(X, y, x, estimator):
    """Vovk & Petej 2014, Algorithm 1, written out with the reference isotonic regression."""
    pair = []
    for label in (0, 1):
        X_ext = np.vstack([X, x[None, :]])
        y_ext = np.append(y, label)
        est = clone(estimator).fit(X_ext, y_ext)
        s = est.predict_proba(X_ext)[:, 1]
        pair.append(isotonic_value_at(s, y_ext, None, s[-1]))
    return pair


def test_full_venn_abers_equals_literal_algorithm():
    X, y = make_classification(n_samples=46, n_features=3, n_informative=2, n_redundant=0, random_state=1)
    X_train, y_train, X_test = X[:40], y[:40], X[40:]
    clf = FullVennAbersClassifier(LogisticRegression()).fit(X_train, y_train)
    expected = np.array([_full_va_literal(X_train, y_train, x, LogisticRegression()) for x in X_test])
    got = clf.predict_interval(X_test)
    np.testing.assert_allclose(got, expected, atol=TOL)
    assert np.all(got[:, 0] <= got[:, 1])
    p = clf.predict_proba(X_test)[:, 1]
    np.testing.assert_allclose(p, got[:, 1] / (1 - got[:, 0] + got[:, 1]), atol=TOL)
    parallel = FullVennAbersClassifier(LogisticRegression(), n_jobs=2).fit(X_train, y_train)
    np.testing.assert_allclose(parallel.predict_interval(X_test), got, atol=0)


def test_full_venn_abers_checks_feature_count():
    X, y = make_classification(n_samples=30, n_features=3, n_informative=2, n_redundant=0, random_state=1)
    clf = FullVennAbersClassifier(GaussianNB()).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict_proba(X[:, :2])
    with pytest.raises(ValueError, match="per sample"):
        FullVennAbersClassifier(GaussianNB()).fit(X, y, marker=np.ones(30))


def test_calibrator_fitted_on_single_class_folds_allowed():
    # A fold whose calibration rows are all one class still gives the
    # definition's answer through classes=.
    cal = VennAbersCalibrator(classes=["neg", "pos"]).fit([0.2, 0.5], ["pos", "pos"])
    p0, p1 = ivap_by_definition([0.2, 0.5], [1, 1], None, [0.1, 0.5, 0.7])
    np.testing.assert_allclose(cal.predict_interval([0.1, 0.5, 0.7]), np.column_stack((p0, p1)))


def test_score_level_cvap_equals_merge_of_reference_ivaps():
    from venncal import CrossVennAbersCalibrator

    rng = np.random.default_rng(4)
    n, K = 200, 4
    scores = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-scores))).astype(int)
    folds = rng.integers(0, K, n) * 10  # any fold identifiers
    test = rng.normal(size=(30, K))
    cal = CrossVennAbersCalibrator().fit(scores, np.where(y == 1, "pos", "neg"), folds=folds)
    assert list(cal.folds_) == [0, 10, 20, 30]
    p0s, p1s = [], []
    for k, fold in enumerate(cal.folds_):
        rows = folds == fold
        p0, p1 = ivap_by_definition(scores[rows], y[rows], None, test[:, k])
        p0s.append(p0)
        p1s.append(p1)
    np.testing.assert_allclose(cal.predict_proba(test)[:, 1], cvap_merge(p0s, p1s), atol=TOL)
    np.testing.assert_allclose(cal.predict_interval(test), cvap_interval(p0s, p1s), atol=TOL)
    assert set(cal.predict(test)) <= {"neg", "pos"}
    # one column used for every fold
    np.testing.assert_array_equal(
        cal.predict_proba(test[:, 0]),
        cal.predict_proba(np.repeat(test[:, :1], K, axis=1)),
    )
    with pytest.raises(ValueError, match="one column per fold"):
        cal.predict_proba(test[:, :2])
    with pytest.raises(ValueError, match="folds"):
        CrossVennAbersCalibrator().fit(scores, y, folds=folds[:-1])
