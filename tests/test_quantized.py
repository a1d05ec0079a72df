"""Quantized isotonic regression (paper 003): batch calibrator and online streams."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest
from reference.quantized_naive import exhaustive_quantized, loss_of_map, projected_pava

import venncal
from venncal import CalibratedClassifier, QuantizedIsotonicCalibrator, ScoreSummary, persist
from venncal.baselines.quantized import check_levels, project_to_levels
from venncal.cli import main


def random_levels(rng, k_max=4):
    k = int(rng.integers(1, k_max + 1))
    if rng.random() < 0.5 and k >= 2:
        return np.linspace(0.0, 1.0, k)
    return np.sort(rng.choice(np.arange(0, 9) / 8, size=k, replace=False))


def small_data(rng, n, binary=True):
    scores = rng.integers(0, 5, n).astype(float) / 4  # many ties
    y = rng.integers(0, 2, n).astype(float) if binary else rng.integers(0, 9, n) / 8
    w = rng.integers(1, 4, n).astype(float)
    return scores, y, w


@pytest.mark.parametrize("module", ["venncal.baselines.quantized"])
def test_docstring_examples(module):
    # Run here too: test_docs walks packages, and venncal.online is another engineer's.
    result = doctest.testmod(
        importlib.import_module(module), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0


# ------------------------------------------------------------------ batch calibrator


def test_levels():
    np.testing.assert_array_equal(check_levels(3), [0.0, 0.5, 1.0])
    assert check_levels(101)[37] == np.linspace(0, 1, 101)[37]
    for bad in (1, 0, True, "5", [0.5, 0.2], [0.2, 0.2], [-0.1, 0.5], [0.5, np.nan], [], 2.0):
        with pytest.raises(ValueError, match="levels"):
            QuantizedIsotonicCalibrator(levels=bad).fit([0.1, 0.2], [0, 1])
    # Midpoints go down, decided exactly (0.1 + 0.2 is not 0.3 in floating point).
    np.testing.assert_array_equal(project_to_levels([0.5, 0.25, 0.75], 3), [0.5, 0.0, 0.5])
    lv = [0.1, 0.2]
    mid = 0.15000000000000002  # nearest float above the true midpoint 0.15 (0.15 is below it)
    assert project_to_levels([0.15, mid], lv).tolist() == [0.1, 0.2]


@pytest.mark.parametrize("seed", range(60))
def test_batch_is_optimal_and_is_projected_pava(seed):
    rng = np.random.default_rng(seed)
    scores, y, w = small_data(rng, int(rng.integers(1, 9)))
    levels = random_levels(rng)
    if levels.shape[0] < 2 and rng.random() < 0.5:
        levels = np.array([0.0, 1.0])
    cal = QuantizedIsotonicCalibrator(levels=levels).fit(scores, y, sample_weight=w)
    fitted = cal.predict_proba(scores)[:, 1]
    best, maps = exhaustive_quantized(scores, y, w, levels)
    assert loss_of_map(scores, y, w, dict(zip(scores.tolist(), fitted.tolist(), strict=True))) == best
    keys, expected = projected_pava(scores, y, w, levels)
    np.testing.assert_array_equal(cal.predict_proba(keys)[:, 1], expected)
    if len(maps) == 1:
        np.testing.assert_array_equal(cal.predict_proba(keys)[:, 1], maps[0])


def test_batch_on_large_data_matches_projection():
    rng = np.random.default_rng(5)
    scores = np.round(rng.normal(size=3000), 2)
    y = rng.random(3000) < 1 / (1 + np.exp(-2 * scores))
    cal = QuantizedIsotonicCalibrator(levels=20).fit(scores, y)
    keys, expected = projected_pava(scores, y, None, np.linspace(0, 1, 20))
    np.testing.assert_array_equal(cal.predict_proba(keys)[:, 1], expected)
    assert np.isin(cal.values_, cal.levels_).all()
    # Adjacent groups have distinct levels: at most one group per level.
    groups = cal.values_[np.r_[True, np.diff(cal.values_) != 0]]
    assert np.all(np.diff(groups) > 0)


def test_prediction_between_scores_is_nearest_like_isotonic():
    scores, y = np.array([0.0, 1.0, 2.0, 3.0]), np.array([0, 0, 1, 1])
    cal = QuantizedIsotonicCalibrator(levels=5).fit(scores, y)
    iso = venncal.IsotonicCalibrator().fit(scores, y)
    q = np.array([-1.0, 0.5, 1.5, 1.50001, 2.5, 9.0])
    np.testing.assert_array_equal(cal.predict_proba(q), iso.predict_proba(q))


def test_weights_are_repeated_rows_and_zero_weights_dropped():
    rng = np.random.default_rng(1)
    scores, y, w = small_data(rng, 40)
    a = QuantizedIsotonicCalibrator(levels=7).fit(scores, y, sample_weight=w)
    rep = np.repeat(np.arange(40), w.astype(int))
    b = QuantizedIsotonicCalibrator(levels=7).fit(scores[rep], y[rep])
    np.testing.assert_array_equal(a.thresholds_, b.thresholds_)
    np.testing.assert_array_equal(a.values_, b.values_)
    w0 = np.concatenate((w, np.zeros(5)))
    c = QuantizedIsotonicCalibrator(levels=7).fit(
        np.concatenate((scores, rng.random(5) * 3)), np.concatenate((y, np.ones(5))), w0
    )
    np.testing.assert_array_equal(a.thresholds_, c.thresholds_)
    np.testing.assert_array_equal(a.values_, c.values_)


def test_fit_summary_and_bad_input():
    rng = np.random.default_rng(2)
    scores, y, w = small_data(rng, 50)
    a = QuantizedIsotonicCalibrator(levels=[0.1, 0.5, 0.9]).fit(scores, y, w)
    b = QuantizedIsotonicCalibrator(levels=[0.1, 0.5, 0.9]).fit_summary(
        ScoreSummary.from_arrays(scores, y, w)
    )
    np.testing.assert_array_equal(a.thresholds_, b.thresholds_)
    np.testing.assert_array_equal(a.values_, b.values_)
    cal = QuantizedIsotonicCalibrator()
    with pytest.raises(ValueError, match="finite"):
        cal.fit([0.1, np.nan], [0, 1])
    with pytest.raises(ValueError, match="lengths"):
        cal.fit([0.1, 0.2], [0, 1, 1])
    with pytest.raises(ValueError, match="classes"):
        cal.fit([0.1, 0.2, 0.3], [0, 1, 2])
    with pytest.raises(ValueError, match="non-negative"):
        cal.fit([0.1, 0.2], [0, 1], [1.0, -1.0])


def test_save_load_bit_exact_and_registry(tmp_path):
    rng = np.random.default_rng(3)
    scores = rng.normal(size=500)
    y = np.where(rng.random(500) < 1 / (1 + np.exp(-scores)), "yes", "no")
    for levels in (11, [0.05, 0.5, 0.95]):
        cal = QuantizedIsotonicCalibrator(levels=levels).fit(scores, y)
        persist.save(cal, tmp_path / "m.json")
        back = persist.load(tmp_path / "m.json")
        assert type(back) is QuantizedIsotonicCalibrator
        for name in ("levels_", "thresholds_", "values_", "classes_"):
            assert getattr(back, name).tobytes() == getattr(cal, name).tobytes()
        q = rng.normal(size=100)
        np.testing.assert_array_equal(back.predict_proba(q), cal.predict_proba(q))
    assert venncal._registry.method_of(QuantizedIsotonicCalibrator) == "quantized-isotonic"


def test_calibrated_classifier_and_cli(tmp_path):
    from sklearn.datasets import make_classification
    from sklearn.naive_bayes import GaussianNB

    X, y = make_classification(n_samples=300, random_state=0)
    clf = CalibratedClassifier(
        GaussianNB(), method="quantized-isotonic", method_params={"levels": 5}, cv=3
    ).fit(X, y)
    p = clf.predict_proba(X)[:, 1]  # the mean of 3 fold calibrators, each on quarters
    np.testing.assert_allclose(p * 12, np.round(p * 12), atol=1e-9)
    path = tmp_path / "cal.csv"
    rng = np.random.default_rng(0)
    rows = "\n".join(f"{s},{int(s + rng.normal() > 0)}" for s in rng.normal(size=200))
    path.write_text("score,label\n" + rows + "\n")
    out = tmp_path / "model.json"
    argv = ["fit", str(path), "--score-col", "score", "--label-col", "label",
            "--method", "quantized-isotonic", "--param", "levels=0,0.5,1", "-o", str(out)]
    assert main(argv) == 0
    model = persist.load(out)
    assert isinstance(model, QuantizedIsotonicCalibrator)
    assert set(np.unique(model.values_)) <= {0.0, 0.5, 1.0}
