"""Multiclass estimator wrappers (issue 24, deliverable 2).

``VennAbersClassifier`` and ``CalibratedClassifier`` with K >= 3 classes hand
the (n, K) class scores of each fold's base model to a score-level
``OneVsRestCalibrator`` (or ``OneVsOneCalibrator``).  These tests pin that the
wrapper *is* that calibrator, bit for bit, fitted by hand on the same
out-of-fold scores; labels in any coding; frozen bases; the refusal of a
class absent from a fold; real data sets bundled with scikit-learn.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import load_digits, load_iris, load_wine, make_blobs
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from venncal import (
    CalibratedClassifier,
    CrossVennAbersCalibrator,
    OneVsOneCalibrator,
    OneVsRestCalibrator,
    VennAbersCalibrator,
    VennAbersClassifier,
)
from venncal._registry import method_class


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=420, centers=4, cluster_std=3.0, random_state=0)
    return X[:300], y[:300], X[300:]


def _out_of_fold(base, X, y, splits, method):
    """Each fold's fitted clone, its (n_cal, K) scores, and the calibration rows."""
    models, scores, rows = [], [], []
    for train, cal in splits:
        model = clone(base).fit(X[train], y[train])
        models.append(model)
        scores.append(getattr(model, method)(X[cal]))
        rows.append(cal)
    return models, scores, rows


def _blocks(models, X, method):
    return np.stack([getattr(m, method)(X) for m in models], axis=1)


@pytest.mark.parametrize("multiclass", ["ovr", "ovo"])
@pytest.mark.parametrize("method", ["predict_proba", "decision_function"])
def test_cvap_is_the_score_level_calibrator_on_out_of_fold_scores(blobs, multiclass, method):
    X, y, X_test = blobs
    splits = list(StratifiedKFold(4, shuffle=True, random_state=1).split(X, y))
    clf = VennAbersClassifier(
        LogisticRegression(), cv=splits, multiclass=multiclass, response_method=method
    ).fit(X, y)
    models, scores, rows = _out_of_fold(LogisticRegression(), X, y, splits, method)
    folds = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    kind = "proba" if method == "predict_proba" else "margin"
    if multiclass == "ovr":
        ref = OneVsRestCalibrator(CrossVennAbersCalibrator(), score=kind)
    else:
        ref = OneVsOneCalibrator(CrossVennAbersCalibrator(), score=kind)
    idx = np.concatenate(rows)
    ref.fit(np.concatenate(scores), y[idx], folds=folds)
    test = _blocks(models, X_test, method)
    assert clf.response_method_ == method and clf.score_ == kind
    assert type(clf.calibrator_) is type(ref)
    np.testing.assert_array_equal(clf.predict_proba(X_test), ref.predict_proba(test))
    np.testing.assert_array_equal(clf.predict_interval(X_test), ref.predict_interval(test))
    np.testing.assert_array_equal(clf.predict(X_test), ref.predict(test))
    P = 4 if multiclass == "ovr" else 6
    assert clf.predict_interval(X_test).shape == (X_test.shape[0], P, 2)


@pytest.mark.parametrize("method", ["isotonic", "platt", "histogram", "bbq"])
def test_calibrated_classifier_averages_per_fold_calibrators(blobs, method):
    X, y, X_test = blobs
    splits = list(StratifiedKFold(3, shuffle=True, random_state=2).split(X, y))
    clf = CalibratedClassifier(GaussianNB(), method=method, cv=splits).fit(X, y)
    models, scores, rows = _out_of_fold(GaussianNB(), X, y, splits, "predict_proba")
    expected = np.mean(
        [
            OneVsRestCalibrator(method_class(method)(), score="proba")
            .fit(s, y[r])
            .predict_proba(m.predict_proba(X_test))
            for m, s, r in zip(models, scores, rows, strict=True)
        ],
        axis=0,
    )
    np.testing.assert_array_equal(clf.predict_proba(X_test), expected)
    assert clf.calibrator_ is None and len(clf.calibrators_) == 3
    np.testing.assert_allclose(clf.predict_proba(X_test).sum(axis=1), 1.0, rtol=1e-12)


def test_calibrated_ivap_alias_runs_the_venn_abers_code(blobs):
    X, y, X_test = blobs
    a = CalibratedClassifier(GaussianNB(), method="ivap", cv=3, random_state=0).fit(X, y)
    b = VennAbersClassifier(GaussianNB(), method="cvap", cv=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X_test), b.predict_proba(X_test))
    np.testing.assert_array_equal(a.predict_interval(X_test), b.predict_interval(X_test))


@pytest.mark.parametrize("method", ["ivap", "sva"])
def test_ivap_and_sva_are_one_fold(blobs, method):
    X, y, X_test = blobs
    clf = VennAbersClassifier(GaussianNB(), method=method, random_state=0).fit(X, y)
    assert len(clf.estimators_) == 1 and clf.calibrator_.folds_.tolist() == [0]
    p = clf.predict_proba(X_test)
    assert p.shape == (X_test.shape[0], 4)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    assert clf.predict_interval(X_test).shape == (X_test.shape[0], 4, 2)


@pytest.mark.parametrize(
    "labels",
    [
        np.array(["ant", "bee", "cat", "dog"]),
        np.array([5, 7, 9, 11]),
        np.array([2**53 - 2, 2**53 - 1, 2**53, 2**53 + 1], dtype=np.int64),
        np.array([-1.0, 0.0, 2.0, 1e15]),
    ],
    ids=["strings", "5-7-9-11", "near-2**53", "integral-floats"],
)
@pytest.mark.parametrize("multiclass", ["ovr", "ovo"])
def test_any_label_coding_gives_the_same_answer(blobs, labels, multiclass):
    X, y, X_test = blobs
    ref = VennAbersClassifier(GaussianNB(), cv=3, multiclass=multiclass, random_state=0)
    ref = ref.fit(X, y)
    clf = VennAbersClassifier(GaussianNB(), cv=3, multiclass=multiclass, random_state=0)
    clf = clf.fit(X, labels[y])
    assert clf.classes_.tolist() == labels.tolist()
    np.testing.assert_array_equal(clf.predict_proba(X_test), ref.predict_proba(X_test))
    np.testing.assert_array_equal(clf.predict(X_test), labels[ref.predict(X_test)])
    np.testing.assert_array_equal(clf.predict_interval(X_test), ref.predict_interval(X_test))


@pytest.mark.parametrize("method", ["cvap", "ivap", "sva"])
def test_frozen_base_calibrates_on_every_row(blobs, method):
    X, y, X_test = blobs
    lr = LogisticRegression().fit(X_test, np.resize(np.arange(4), X_test.shape[0]))
    clf = VennAbersClassifier(FrozenEstimator(lr), method=method, cv=5).fit(X, y)
    assert clf.estimators_[0].estimator is lr and len(clf.estimators_) == 1
    by_hand = OneVsRestCalibrator(CrossVennAbersCalibrator()).fit(
        lr.predict_proba(X), y, folds=np.zeros(len(y))
    )
    test = lr.predict_proba(X_test)[:, None, :]
    np.testing.assert_array_equal(clf.predict_proba(X_test), by_hand.predict_proba(test))
    np.testing.assert_array_equal(clf.predict_interval(X_test), by_hand.predict_interval(test))
    # ... which is the IVAP of every row, class by class.
    ivap = OneVsRestCalibrator(VennAbersCalibrator()).fit(lr.predict_proba(X), y)
    np.testing.assert_allclose(
        clf.predict_interval(X_test), ivap.predict_interval(lr.predict_proba(X_test)), rtol=1e-15
    )


def test_frozen_base_with_calibrated_classifier(blobs):
    X, y, X_test = blobs
    lr = LogisticRegression().fit(X, y)
    clf = CalibratedClassifier(FrozenEstimator(lr), method="platt", cv=5).fit(X, y)
    assert clf.response_method_ == "decision_function" and clf.score_ == "margin"
    ref = OneVsRestCalibrator(method_class("platt")(), score="margin")
    ref = ref.fit(lr.decision_function(X), y)
    np.testing.assert_array_equal(
        clf.predict_proba(X_test), ref.predict_proba(lr.decision_function(X_test))
    )


def test_ovo_coupling_is_passed_on(blobs):
    X, y, X_test = blobs
    for coupling in ("price", "normalize", "wu-lin-weng"):
        clf = VennAbersClassifier(
            GaussianNB(), method="sva", multiclass="ovo", coupling=coupling
        ).fit(X, y)
        assert clf.calibrator_.coupling == coupling
        ref = OneVsOneCalibrator(CrossVennAbersCalibrator(), coupling=coupling).fit(
            clf.estimators_[0].predict_proba(X), y, folds=np.zeros(len(y))
        )
        np.testing.assert_array_equal(
            clf.predict_proba(X_test),
            ref.predict_proba(clf.estimators_[0].predict_proba(X_test)[:, None, :]),
        )


def test_a_class_absent_from_a_training_part_is_refused(blobs):
    X, y, _ = blobs
    order = np.argsort(y, kind="stable")
    Xs, ys = X[order], y[order]
    # Unshuffled KFold on sorted labels: fold 0's training part lacks class 0.
    with pytest.raises(ValueError, match=r"class 0 has no rows in the training part of fold 0"):
        VennAbersClassifier(GaussianNB(), cv=KFold(4)).fit(Xs, ys)
    with pytest.raises(ValueError, match=r"class 0 has no rows in the training part"):
        CalibratedClassifier(GaussianNB(), cv=KFold(4)).fit(Xs, ys)


def test_a_class_too_small_for_the_folds_is_refused(blobs):
    X, y, _ = blobs
    y = np.where(np.arange(len(y)) == 0, 9, y)  # class 9 has one row
    with pytest.raises(ValueError, match=r"class 9 has no rows in the (training|calibration)"):
        with pytest.warns(UserWarning, match="least populated"):
            VennAbersClassifier(GaussianNB(), cv=3).fit(X, y)


def test_a_class_without_weight_in_a_calibration_part_is_refused(blobs):
    X, y, _ = blobs
    splits = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    w = np.ones(len(y))
    w[splits[1][1][y[splits[1][1]] == 2]] = 0.0
    with pytest.raises(ValueError, match=r"class 2 has no rows of positive weight in the "
                                         r"calibration part of fold 1"):
        VennAbersClassifier(GaussianNB(), cv=splits).fit(X, y, sample_weight=w)
    w = np.where(y == 3, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"class \S*3\S* has zero total sample_weight"):
        VennAbersClassifier(GaussianNB(), cv=splits).fit(X, y, sample_weight=w)


def test_non_integral_float_labels_are_refused_as_scikit_learn_does(blobs):
    X, y, _ = blobs
    with pytest.raises(ValueError, match="Unknown label type"):
        VennAbersClassifier(GaussianNB()).fit(X, np.array([-1.5, 0.0, 2.25, 7.5])[y])


def test_an_ovo_decision_function_is_refused_with_its_shape(blobs):
    from sklearn.svm import SVC

    X, y, _ = blobs
    svc = SVC(decision_function_shape="ovo")
    with pytest.raises(ValueError, match=r"decision_function returned shape \(\d+, 6\)"):
        VennAbersClassifier(svc, method="sva", response_method="decision_function").fit(X, y)


def test_two_classes_are_unchanged_by_the_new_parameters():
    X, y = make_blobs(n_samples=200, centers=2, cluster_std=4.0, random_state=0)
    a = VennAbersClassifier(GaussianNB(), cv=3, random_state=0).fit(X, y)
    b = VennAbersClassifier(
        GaussianNB(), cv=3, random_state=0, multiclass="ovo", coupling="wu-lin-weng"
    ).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert a.predict_proba(X).shape == (200, 2) and a.predict_interval(X).shape == (200, 2)
    assert type(a.calibrator_) is CrossVennAbersCalibrator


@pytest.mark.parametrize("multiclass", ["ovr", "ovo"])
@pytest.mark.parametrize(
    "load", [load_iris, load_wine, load_digits], ids=["iris", "wine", "digits"]
)
def test_bundled_data_sets(load, multiclass):
    X, y = load(return_X_y=True)
    rng = np.random.default_rng(0)
    test = rng.permutation(len(y))[: len(y) // 3]
    train = np.setdiff1d(np.arange(len(y)), test)
    K = np.unique(y).shape[0]
    base = make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=500))
    clf = VennAbersClassifier(base, cv=3, multiclass=multiclass, random_state=0)
    clf = clf.fit(X[train], y[train])
    p = clf.predict_proba(X[test])
    assert p.shape == (len(test), K)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    assert ((p > 0) & (p < 1)).all()
    # Calibrated on out-of-fold scores, the model stays as accurate as its base
    # and its log loss stays reasonable.  Measured (this split): raw / ovr / ovo
    # log loss 0.397 / 0.428 / 0.471 (iris), 0.127 / 0.201 / 0.284 (wine),
    # 0.185 / 0.237 / 0.560 (digits: each of the 45 pairwise calibrators sees a
    # fifth of the rows, and ovo loses there).
    raw = clone(base).fit(X[train], y[train])
    accuracy = (clf.predict(X[test]) == y[test]).mean()
    assert accuracy >= (raw.predict(X[test]) == y[test]).mean() - 0.03
    assert log_loss(y[test], p, labels=clf.classes_) < (0.5 if multiclass == "ovr" else 0.7)
    interval = clf.predict_interval(X[test])
    P = K if multiclass == "ovr" else K * (K - 1) // 2
    assert interval.shape == (len(test), P, 2)
    assert ((interval >= 0) & (interval <= 1)).all()


_FROZEN_X, _FROZEN_Y = make_blobs(n_samples=60, centers=3, cluster_std=4.0, random_state=5)
_FROZEN_LR = LogisticRegression().fit(_FROZEN_X, _FROZEN_Y)


@settings(max_examples=25)
@given(
    w=st.lists(
        st.sampled_from([0.0, 1e-310, 1e-300, 1.0, 2.0**53 - 1, 2.0**53, 1e308]),
        min_size=60,
        max_size=60,
    )
)
def test_extreme_weights_match_the_score_level_calibrator(w):
    # A frozen base: the weights reach only the calibration, so the wrapper
    # must be the score-level one-vs-rest calibrator with the same weights, or
    # refuse as it does.
    w = np.array(w)
    scores = _FROZEN_LR.predict_proba(_FROZEN_X)
    clf = VennAbersClassifier(FrozenEstimator(_FROZEN_LR))
    ref = OneVsRestCalibrator(CrossVennAbersCalibrator())
    try:
        ref.fit(scores, _FROZEN_Y, w, folds=np.zeros(60))
    except ValueError:
        with pytest.raises(ValueError, match="weight"):
            clf.fit(_FROZEN_X, _FROZEN_Y, sample_weight=w)
        return
    clf.fit(_FROZEN_X, _FROZEN_Y, sample_weight=w)
    np.testing.assert_array_equal(
        clf.predict_proba(_FROZEN_X), ref.predict_proba(scores[:, None, :])
    )
