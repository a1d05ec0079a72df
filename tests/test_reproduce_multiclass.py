"""Tests of the multiclass experiment (``venncal reproduce multiclass``, issue 24 deliverable 5)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from venncal.cli import main
from venncal.experiments import EXPERIMENTS
from venncal.experiments import _multiclass_cases as mc
from venncal.experiments import _multiclass_report as mr
from venncal.experiments import multiclass_benchmark as exp

#: The methods that need no third-party package.
OWN = tuple(n for n, (_m, package) in mc.METHODS.items() if not package)


def test_registered():
    assert EXPERIMENTS["multiclass"].module == "multiclass_benchmark"
    assert exp.NAME == "multiclass"


# ------------------------------------------------------------------------------ splits


@given(st.lists(st.integers(3, 40), min_size=2, max_size=6), st.integers(0, 2**32 - 1))
def test_three_way_split_partitions_every_class(counts, seed):
    y = np.repeat(np.arange(len(counts)), counts)
    train, cal, test = mc.three_way_split(y, np.random.default_rng(seed))
    every = np.concatenate([train, cal, test])
    assert sorted(every.tolist()) == list(range(len(y)))  # each row exactly once
    for part in (train, cal, test):
        assert set(y[part].tolist()) == set(range(len(counts)))  # every class in every part
        assert np.all(np.diff(part) > 0)
    for c, n in enumerate(counts):
        # the proper training set gets about half of each class (rounding and the minima)
        assert abs(np.sum(y[train] == c) - n / 2) <= 1.5


def test_three_way_split_refuses_tiny_classes_and_is_seeded():
    with pytest.raises(ValueError, match="class 1 has 2 rows"):
        mc.three_way_split(np.array([0, 0, 0, 1, 1]), np.random.default_rng(0))
    y = np.arange(40) % 4
    a = mc.three_way_split(y, np.random.default_rng(5))
    b = mc.three_way_split(y, np.random.default_rng(5))
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)


@given(st.lists(st.integers(1, 30), min_size=1, max_size=5), st.integers(2, 6),
       st.integers(0, 2**32 - 1))
def test_stratified_folds_balance_each_class(counts, n_folds, seed):
    y = np.repeat(np.arange(len(counts)), counts)
    folds = mc.stratified_folds(y, n_folds, np.random.default_rng(seed))
    assert folds.min() >= 0 and folds.max() < n_folds
    for c in range(len(counts)):
        per = np.bincount(folds[y == c], minlength=n_folds)
        assert per.max() - per.min() <= 1
    total = np.bincount(folds, minlength=n_folds)
    assert total.max() - total.min() <= 1


# ------------------------------------------------------------------------------ data


def test_synthetic_truth_is_the_inverse_of_the_miscalibration():
    z, y, p = mc.synthetic_logits(np.random.default_rng(1), n=20_000)
    shifts = np.asarray(mc.SYNTHETIC["shifts"])
    expected = mc.softmax(mc.SYNTHETIC["temperature"] * (z - shifts))
    np.testing.assert_allclose(p, expected, rtol=1e-10, atol=1e-15)
    # labels drawn from the true probabilities: class frequencies match their means
    freq = np.bincount(y, minlength=p.shape[1]) / len(y)
    np.testing.assert_allclose(freq, p.mean(axis=0), atol=0.015)
    # and the observed logits are overconfident: their softmax is sharper than the truth
    assert mc.softmax(z).max(axis=1).mean() > p.max(axis=1).mean() + 0.1


def test_load_bundled_and_synthetic():
    X, y, truth = mc.load("wine", 0)
    assert X.shape == (178, 13) and truth is None and set(np.unique(y)) == {0, 1, 2}
    z1, y1, p1 = mc.load("synthetic", 3)
    z2, _y2, _p2 = mc.load("synthetic", 3)
    np.testing.assert_array_equal(z1, z2)
    assert z1.shape == (mc.SYNTHETIC["rows"], mc.SYNTHETIC["classes"]) == p1.shape
    with pytest.raises(ValueError, match="unknown data set 'mnist'"):
        mc.load("mnist", 0)


def test_softmax_does_not_overflow():
    p = mc.softmax(np.array([[1e308, 0.0, -1e308], [0.0, 0.0, 0.0]]))
    np.testing.assert_array_equal(p[0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(p[1], 1 / 3)


@pytest.mark.parametrize("code", ["LR", "NB", "MLP"])
def test_class_logits_are_the_learners_probabilities(code):
    X, y, _ = mc.load("iris", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the MLP's ConvergenceWarning on 150 rows
        model = mc.make_learner(code, 0).fit(X, y)
    z = mc.class_logits(model, code, X)
    assert z.shape == (150, 3) and np.isfinite(z).all()
    np.testing.assert_allclose(mc.softmax(z), model.predict_proba(X), rtol=1e-7, atol=1e-12)


def test_naive_bayes_logits_stay_finite_where_its_probabilities_round_to_0():
    X, y, _ = mc.load("digits", 0)
    model = mc.make_learner("NB", 0).fit(X, y)
    p = model.predict_proba(X)
    assert (p == 0).any()  # saturated: why the experiment calibrates the logits
    assert np.isfinite(mc.class_logits(model, "NB", X)).all()


def test_unknown_learner():
    for call in (lambda: mc.make_learner("SVM", 0), lambda: mc.class_logits(None, "SVM", None)):
        with pytest.raises(ValueError, match="unknown learner 'SVM'"):
            call()


def test_fixed_logits_classifier_is_calibrated_by_scikit_learn():
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    z, y, _ = mc.synthetic_logits(np.random.default_rng(0), n=400)
    model = mc.FixedLogitsClassifier().fit(z, y)
    np.testing.assert_array_equal(model.predict(z), z.argmax(axis=1))
    cal = CalibratedClassifierCV(FrozenEstimator(model), method="temperature").fit(z, y)
    p = cal.predict_proba(z)
    assert p.shape == (400, 5) and np.allclose(p.sum(axis=1), 1)


# ------------------------------------------------------------------------------ one task


def test_run_task_measures_every_method():
    t = exp.run_task("iris", "LR", 0, seed=0, methods=OWN, keep_predictions=True)
    assert set(t.values) == set(OWN) and not t.failures
    assert t.n_classes == 3 and sum(t.sizes) == 150
    for name, v in t.values.items():
        assert 0 <= v["brier"] <= 2 and 0 <= v["accuracy"] <= 1
        assert 0 <= v["top_label_ece"] <= 1 and 0 <= v["classwise_ece"] <= 1
        assert v["log_loss"] >= 0 and v["seconds"] >= 0
        assert abs(v["conf_minus_acc"]) <= 1
        # widths only for the Venn-Abers methods, and inside (0, 1)
        assert math.isnan(v["width"]) == (not name.startswith(("VA", "CVAP"))), name
    y_test, probas = t.predictions
    assert len(y_test) == t.sizes[2]
    for p in probas.values():
        assert p.shape == (len(y_test), 3)
        np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-9)


def test_run_task_is_deterministic_and_has_the_floor_on_synthetic_data():
    a = exp.run_task("synthetic", "logits", 1, seed=3, methods=("uncalibrated", "VA OvR (IVAP)"))
    b = exp.run_task("synthetic", "logits", 1, seed=3, methods=("uncalibrated", "VA OvR (IVAP)"))
    assert set(a.values) == {"uncalibrated", "VA OvR (IVAP)", mr.ORACLE}
    for m in a.values:
        for k in mr.METRICS:
            assert a.values[m][k] == b.values[m][k]
    # the overconfident logits lose to the truth, and Venn-Abers recovers most of the gap
    floor = a.values[mr.ORACLE]["log_loss"]
    assert a.values["uncalibrated"]["log_loss"] > floor + 0.1
    assert floor < a.values["VA OvR (IVAP)"]["log_loss"] < floor + 0.05


def test_cvap_fits_one_model_per_fold():
    X, y, _ = mc.load("wine", 0)
    rng = np.random.default_rng(0)
    train, cal, test = mc.three_way_split(y, rng)
    fit = np.sort(np.concatenate([train, cal]))
    folds = mc.stratified_folds(y[fit], 5, rng)
    model = mc.make_learner("NB", 0).fit(X[train], y[train])
    case = mc.Case("NB", 0, model, X[cal], y[cal], X[test], X[fit], y[fit], folds)
    p, width = mc.METHODS["CVAP OvR (5 folds)"][0](case)
    assert p.shape == (len(test), 3) and 0 < width < 1
    np.testing.assert_allclose(p.sum(axis=1), 1)


def test_venn_abers_package_agrees_with_ours_on_logistic_regression():
    pytest.importorskip("venn_abers")
    t = exp.run_task("digits", "LR", 0, methods=("VA OvR (IVAP)", "venn-abers OvR"))
    a, b = t.values["VA OvR (IVAP)"], t.values["venn-abers OvR"]
    # the same IVAP: LR's probabilities keep its logits' order
    assert a["log_loss"] == pytest.approx(b["log_loss"], rel=1e-9, abs=0.0)
    assert a["width"] == pytest.approx(b["width"], rel=1e-9, abs=0.0)


# ------------------------------------------------------------------------------ aggregation


def test_aggregate_and_paired_difference():
    tasks = [
        exp.TaskResult("d", "l", r, {"a": {"log_loss": x}, "b": {"log_loss": y}}, {}, (1, 1, 1), 3)
        for r, (x, y) in enumerate([(0.3, 0.5), (0.4, 0.5), (math.inf, 0.5)])
    ]
    agg = mr.aggregate(tasks)
    assert agg["a"]["log_loss"][0] == math.inf and agg["a"]["log_loss"][2] == 1
    assert agg["b"]["log_loss"] == (0.5, 0.0, 0)
    mean, se, n = mr.paired_difference(tasks, "a", "b", "log_loss")
    assert n == 2 and mean == pytest.approx(-0.15) and se == pytest.approx(0.05)
    assert mr._verdict(mean, se) == "lower"
    assert mr._verdict(-0.05, 0.05) == "tie" and mr._verdict(0.2, 0.05) == "higher"
    assert mr._verdict(math.nan, math.nan) == "tie"


# ------------------------------------------------------------------------------ run and report


def test_run_refuses_bad_options(monkeypatch):
    with pytest.raises(ValueError, match="unknown case"):
        exp.run(cases=[("iris", "logits")])
    with pytest.raises(ValueError, match="unknown case"):
        exp.run(cases=[("mnist", "LR")])
    with pytest.raises(ValueError, match="unknown methods"):
        exp.run(methods=["Platt"])
    with pytest.raises(ValueError, match="reps must be at least 1"):
        exp.run(reps=0)
    monkeypatch.setattr(mc, "venn_abers_version", lambda: None)
    with pytest.raises(ValueError, match="need the venn-abers package"):
        exp.run(methods=["venn-abers OvR"])


def test_run_and_report_small(tmp_path):
    res = exp.run(
        cases=[("iris", "NB"), ("synthetic", "logits")], reps=2, seed=1,
        methods=("uncalibrated", "VA OvR (IVAP)", "VA OvO price", "sklearn sigmoid"),
    )
    assert res.info.experiment == "multiclass" and res.reps == 2
    assert [(t.dataset, t.rep) for t in res.tasks] == [
        ("iris", 0), ("iris", 1), ("synthetic", 0), ("synthetic", 1)
    ]
    written = exp.report(res, tmp_path)
    md = written.markdown.read_text(encoding="utf-8")
    assert md.startswith("# Reproduction: multiclass (full mode)")
    for piece in ("## Findings", "## Summary: log loss", "### iris / NB",
                  "### synthetic / logits", f"| {mr.ORACLE} |", "- repetitions: 2",
                  "venn-abers" if res.venn_abers else "venn-abers: not installed"):
        assert piece in md, piece
    assert "iris / NB" in written.text and "VA OvO price" in written.text
    if written.figures:  # matplotlib installed: one panel, the synthetic case
        assert written.figures[0].name == "multiclass-top-label.png"
        assert written.figures[0].stat().st_size > 10_000


@pytest.mark.slow
def test_quick_run_end_to_end(tmp_path, capsys):
    assert main(["reproduce", "multiclass", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for case in exp.CASES:
        assert f"{case[0]} / {case[1]}" in out
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "(quick mode)" in md and f"- repetitions: {exp.REPS[True]}" in md
