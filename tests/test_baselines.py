"""Baseline calibrators: Platt scaling, isotonic regression (DIR), histogram binning.

Each is checked against an independent oracle: a direct numerical
minimization or scikit-learn for Platt, scikit-learn and a literal
nearest-neighbour rule for isotonic regression, a literal binning for
histograms; plus the contract every score-level calibrator shares.
"""

import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from reference.naive import isotonic_fit
from scipy.optimize import isotonic_regression as scipy_isotonic_regression
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.frozen import FrozenEstimator
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from venncal import BBQCalibrator, ENIRCalibrator, ScoreSummary, VennAbersCalibrator, metrics
from venncal.baselines import (
    HistogramBinningCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    isotonic_regression,
)

ALL = [
    PlattCalibrator(),
    PlattCalibrator(targets="labels"),
    IsotonicCalibrator(),
    IsotonicCalibrator(interpolation="linear"),
    HistogramBinningCalibrator(),
    HistogramBinningCalibrator(n_bins=4, strategy="uniform"),
]
IDS = ["platt", "platt-labels", "iso-nearest", "iso-linear", "hist-quantile", "hist-uniform"]


def noisy_data(rng, n, ties=False, scale=2.0):
    """Overlapping classes (so plain maximum likelihood exists)."""
    s = rng.normal(0.0, scale, n)
    if ties:
        s = np.round(s, 1)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-1.3 * s + 0.4))).astype(int)
    return s, y


def p1(cal, scores):
    return cal.predict_proba(scores)[:, 1]


# ------------------------------------------------------------------ Platt


def platt_direct(s, y, w, targets):
    """Minimize the weighted objective of Vovk, Petej & Fedorova 2015, eqs. (5)-(7), row by row."""
    s, y, w = (np.asarray(v, dtype=float) for v in (s, y, w))
    k_pos, k_neg = w[y == 1].sum(), w[y == 0].sum()
    t = np.where(y == 1, (k_pos + 1) / (k_pos + 2), 1 / (k_neg + 2))
    if targets == "labels":
        t = y
    total = w.sum()

    def objective(ab):
        z = ab[0] * s + ab[1]  # p = 1 / (1 + exp(z))
        loss = np.sum(w * (t * np.logaddexp(0, z) + (1 - t) * np.logaddexp(0, -z)))
        r = w * (t - expit(-z))  # d loss / dz
        return loss / total, np.array([r @ s, r.sum()]) / total

    res = minimize(objective, [0.0, 0.0], jac=True, method="BFGS", options={"gtol": 1e-11})
    return res.x


@pytest.mark.parametrize("targets", ["platt", "labels"])
@pytest.mark.parametrize("seed", range(4))
def test_platt_matches_direct_minimization(targets, seed):
    rng = np.random.default_rng(seed)
    s, y = noisy_data(rng, 60 + 40 * seed, ties=seed % 2 == 1)
    w = rng.uniform(0.2, 3.0, s.shape[0]) if seed >= 2 else np.ones(s.shape[0])
    A, B = platt_direct(s, y, w, targets)
    cal = PlattCalibrator(targets=targets).fit(s, y, sample_weight=w if seed >= 2 else None)
    assert_allclose([cal.a_, cal.b_], [A, B], atol=1e-6)
    q = np.linspace(-6, 6, 25)
    assert_allclose(p1(cal, q), expit(-(A * q + B)), atol=1e-9, rtol=0)


def test_platt_matches_sklearn_sigmoid_calibration():
    X, y = make_classification(n_samples=1500, n_features=6, flip_y=0.1, random_state=0)
    train, cal, test = slice(0, 600), slice(600, 1100), slice(1100, None)
    model = LogisticRegression().fit(X[train], y[train])
    ref = CalibratedClassifierCV(FrozenEstimator(model), method="sigmoid")
    ref.fit(X[cal], y[cal])
    # For a model with decision_function, sklearn's sigmoid calibration is fed
    # its decision_function (not predict_proba); feed the same scores.
    ours = PlattCalibrator().fit(model.decision_function(X[cal]), y[cal])
    assert_allclose(
        ours.predict_proba(model.decision_function(X[test])),
        ref.predict_proba(X[test]),
        atol=1e-4,
    )


def test_platt_separable_labels_raise():
    with pytest.raises(ValueError, match="targets='platt'"):
        PlattCalibrator(targets="labels").fit([0, 1, 2, 3], [0, 0, 1, 1])
    # Quasi-complete separation (both classes only at the threshold) and reversed order.
    with pytest.raises(ValueError, match="separates"):
        PlattCalibrator(targets="labels").fit([0, 1, 1, 2], [0, 0, 1, 1])
    with pytest.raises(ValueError, match="separates"):
        PlattCalibrator(targets="labels").fit([0, 1, 2, 3], [1, 1, 0, 0])
    with pytest.raises(ValueError, match="both classes"):
        PlattCalibrator(targets="labels", classes=[0, 1]).fit([0, 1, 2], [1, 1, 1])
    # Platt's targets regularize: finite A and B (the fit is that of the targets).
    cal = PlattCalibrator().fit([0, 1, 2, 3], [0, 0, 1, 1])
    A, B = platt_direct([0, 1, 2, 3], [0, 0, 1, 1], np.ones(4), "platt")
    assert_allclose([cal.a_, cal.b_], [A, B], atol=1e-6)
    assert -10 < cal.a_ < 0


def test_platt_range_of_paper_eq8_is_not_a_bound():
    # Vovk, Petej & Fedorova 2015, eq. (8) gives (1/(k-+2), (k++1)/(k++2)) as the range of Platt's
    # predictions; the fitted sigmoid leaves it, even at a calibration score.
    s = np.array([0.0, -2.5, 1.5, 1.0, -1.5, -2.0, 1.5])
    y = np.array([0, 0, 0, 0, 0, 0, 1])
    cal = PlattCalibrator().fit(s, y)
    A, B = platt_direct(s, y, np.ones(7), "platt")
    assert_allclose(p1(cal, s), expit(-(A * s + B)), atol=1e-9)
    assert p1(cal, [-2.5])[0] < 1 / (6 + 2)


def test_platt_single_class_and_constant_scores():
    cal = PlattCalibrator(classes=[0, 1]).fit([0.1, 0.5, 0.9], [0, 0, 0])
    assert cal.a_ == 0.0
    assert_allclose(p1(cal, [-5.0, 0.3, 7.0]), 1 / (3 + 2), rtol=1e-14)
    cal = PlattCalibrator(classes=[0, 1]).fit([0.1, 0.5, 0.9, 1.2], [1, 1, 1, 1])
    assert cal.a_ == 0.0
    assert_allclose(p1(cal, [0.3]), 5 / 6, rtol=1e-14)
    # Constant scores: only the intercept is identified; p is the mean target.
    cal = PlattCalibrator().fit([2.0, 2.0, 2.0, 2.0], [0, 1, 1, 1])
    assert cal.a_ == 0.0
    t_pos, t_neg = 4 / 5, 1 / 3
    assert_allclose(p1(cal, [-1.0, 9.0]), (3 * t_pos + t_neg) / 4, rtol=1e-14)
    cal = PlattCalibrator(targets="labels").fit([2.0, 2.0, 2.0, 2.0], [0, 1, 1, 1])
    assert_allclose(p1(cal, [2.0]), 0.75, rtol=1e-14)


def test_platt_affine_invariance_and_conditioning():
    # Scores far from 0, or tiny, or huge, are standardized internally.
    rng = np.random.default_rng(5)
    s, y = noisy_data(rng, 300)
    base = p1(PlattCalibrator().fit(s, y), s)
    for scale, shift in [(1.0, 1e6), (1e-200, 0.0), (1e200, 0.0), (-3.0, 7.0)]:
        cal = PlattCalibrator().fit(scale * s + shift, y)
        got = p1(cal, scale * s + shift)
        assert_allclose(got, base, atol=1e-9 if shift < 1e5 else 1e-6)
        assert (cal.a_ < 0) == (scale > 0)


def test_platt_nearly_separable_converges():
    # Platt's targets keep the optimum finite even with a steep slope.
    rng = np.random.default_rng(6)
    s = np.sort(rng.normal(size=20_000))
    y = (s > 0).astype(int)
    y[[0, -1]] = 1 - y[[0, -1]]  # two outliers keep the slope large but finite
    cal = PlattCalibrator().fit(s, y)
    w = np.ones_like(s)
    A, B = platt_direct(s, y, w, "platt")
    assert_allclose(p1(cal, s), expit(-(A * s + B)), atol=1e-5)


# -------------------------------------------------------------- isotonic


def nearest_by_definition(cal_scores, cal_y, cal_w, q):
    """DIR literally: fit isotonic regression, then the nearest calibration score
    in exact arithmetic, the smaller one on a tie; constant outside the range."""
    keep = np.asarray(cal_w) > 0
    x = np.asarray(cal_scores, dtype=float)[keep]
    fit = isotonic_fit(x, np.asarray(cal_y)[keep], np.asarray(cal_w)[keep])
    value = dict(zip(x.tolist(), fit.tolist(), strict=True))
    distinct = sorted(value)
    out = []
    for t in np.asarray(q, dtype=float).tolist():
        best = None
        for c in distinct:  # increasing, so a tie keeps the smaller score
            d = abs(Fraction(t) - Fraction(c))
            if best is None or d < best[0]:
                best = (d, c)
        out.append(value[best[1]])
    return np.array(out)


@pytest.mark.parametrize("seed", range(5))
def test_isotonic_nearest_matches_definition(seed):
    rng = np.random.default_rng(seed)
    n = 40
    # Integer scores (with ties): the half-integers between them are exact
    # midpoints, which must go to the smaller neighbour.
    s = rng.integers(0, 25, n).astype(float)
    y = (rng.random(n) < s / 25).astype(int)
    w = rng.integers(0, 4, n).astype(float) if seed % 2 else np.ones(n)
    w[0] = max(w[0], 1.0)
    q = np.concatenate(
        (
            np.arange(-2.0, 27.0, 0.5),  # at, midway between, and outside the scores
            rng.uniform(-3, 28, 40),
            np.nextafter(np.arange(0.5, 25.0), np.inf),  # just past a midpoint
            np.nextafter(np.arange(0.5, 25.0), -np.inf),
        )
    )
    cal = IsotonicCalibrator().fit(s, y, sample_weight=w)
    assert_array_equal(p1(cal, q), nearest_by_definition(s, y, w, q))


def test_isotonic_nearest_exact_ties_of_non_dyadic_scores():
    # 0.5 is exactly midway between the doubles 0.4 and 0.6; 0.2 is not exactly
    # midway between the doubles 0.1 and 0.3 (it is nearer 0.3).
    cal = IsotonicCalibrator().fit([0.1, 0.3, 0.4, 0.6], [0, 1, 0, 1], sample_weight=[1, 1, 3, 1])
    q = [0.2, 0.5, 0.35]
    assert_array_equal(
        p1(cal, q), nearest_by_definition([0.1, 0.3, 0.4, 0.6], [0, 1, 0, 1], [1, 1, 3, 1], q)
    )
    assert cal.values_[cal.thresholds_ == 0.4][0] < cal.values_[-1]


def test_isotonic_nearest_huge_range_no_overflow():
    s = [-1.5e308, -1e308, 1e308, 1.5e308]
    y = [0, 1, 0, 1]
    cal = IsotonicCalibrator().fit(s, y)
    q = [0.0, -1.25e308, 1.25e308, 1.7e308]
    assert_array_equal(p1(cal, q), nearest_by_definition(s, y, np.ones(4), q))


@pytest.mark.parametrize("seed", range(4))
def test_isotonic_linear_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    s, y = noisy_data(rng, 150, ties=seed % 2 == 0)
    w = rng.uniform(0.1, 4.0, s.shape[0]) if seed >= 2 else None
    ref = IsotonicRegression(out_of_bounds="clip", increasing=True).fit(s, y, sample_weight=w)
    cal = IsotonicCalibrator(interpolation="linear").fit(s, y, sample_weight=w)
    q = np.concatenate((s, rng.uniform(-8, 8, 200), [-100.0, 100.0]))
    assert_allclose(p1(cal, q), ref.predict(q), atol=1e-12, rtol=0)


def test_isotonic_thresholds_are_block_ends():
    s = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    y = [0, 0, 0, 1, 0, 1]
    cal = IsotonicCalibrator().fit(s, y)
    assert_array_equal(cal.thresholds_, [1.0, 3.0, 4.0, 5.0, 6.0])
    assert_array_equal(cal.values_, [0.0, 0.0, 0.5, 0.5, 1.0])


def test_isotonic_regression_function():
    rng = np.random.default_rng(0)
    y = rng.normal(size=200)
    w = rng.uniform(0.1, 2.0, 200)
    assert_allclose(isotonic_regression(y), scipy_isotonic_regression(y).x, atol=1e-12)
    assert_allclose(
        isotonic_regression(y, sample_weight=w),
        scipy_isotonic_regression(y, weights=w).x,
        atol=1e-12,
    )
    with pytest.raises(ValueError, match="negative"):
        isotonic_regression([1.0, 2.0], sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match="length"):
        isotonic_regression([1.0, 2.0], sample_weight=[1.0])


@pytest.mark.parametrize("seed", range(5))
def test_zero_weights_are_dropped_everywhere(seed):
    # One rule for zero weights: the row counts as absent, for the isotonic
    # function as for every calibrator and metric.
    rng = np.random.default_rng(seed)
    n = 60
    s = rng.normal(size=n)
    y = (rng.random(n) < 0.5).astype(int)
    w = rng.integers(0, 3, n).astype(float)
    w[0] = w[-1] = 0.0
    keep = w > 0
    fit = isotonic_regression(y.astype(float), sample_weight=w)
    assert_allclose(fit[keep], isotonic_regression(y[keep].astype(float), w[keep]), atol=1e-15)
    assert (np.diff(fit) >= 0).all()
    calibrators = (IsotonicCalibrator, PlattCalibrator, HistogramBinningCalibrator,
                   BBQCalibrator, VennAbersCalibrator)
    for cls in calibrators:
        full = cls().fit(s, y, sample_weight=w).predict_proba(s)
        dropped = cls().fit(s[keep], y[keep], sample_weight=w[keep]).predict_proba(s)
        assert_allclose(full, dropped, atol=1e-12)
    p = rng.random(n)
    for metric in (metrics.log_loss, metrics.brier_loss, metrics.ece, metrics.roc_auc):
        assert metric(y, p, sample_weight=w) == pytest.approx(
            metric(y[keep], p[keep], sample_weight=w[keep]), abs=1e-12)


# ------------------------------------------------------------- histogram


def histogram_by_definition(scores, y, w, n_bins, strategy, q):
    """Histogram binning literally, on the rows, in exact arithmetic."""
    rows = [
        (float(s), int(t), Fraction(float(v)))
        for s, t, v in zip(scores, y, w, strict=True)
        if v > 0
    ]
    distinct = sorted({r[0] for r in rows})
    weight = {c: sum((r[2] for r in rows if r[0] == c), Fraction(0)) for c in distinct}
    total = sum(weight.values(), Fraction(0))
    if strategy == "quantile":
        # A distinct score goes to the equal-weight bin [b W/n, (b+1) W/n)
        # holding the midpoint of its slice of cumulative weight.
        rank, below = {}, Fraction(0)
        for c in distinct:
            mid = below + weight[c] / 2
            rank[c] = min(int(mid * n_bins / total), n_bins - 1)
            below += weight[c]
        labels = sorted(set(rank.values()))
        bin_of_cal = {c: labels.index(rank[c]) for c in distinct}
        n_out = len(labels)

        def bin_of(t):
            # The bin of the nearer calibration score (of the two around t,
            # split at their midpoint; the smaller one on a tie).
            lower = [c for c in distinct if c <= t]
            upper = [c for c in distinct if c > t]
            if not lower:
                return 0
            if not upper:
                return n_out - 1
            lo, hi = lower[-1], upper[0]
            return bin_of_cal[lo if Fraction(t) * 2 <= Fraction(lo) + Fraction(hi) else hi]
    else:
        edges = np.linspace(distinct[0], distinct[-1], n_bins + 1).tolist()
        n_out = n_bins

        def bin_of(t):
            # Bin b is (edges[b], edges[b+1]], the outer bins open-ended.
            for b in range(n_bins - 1):
                if t <= edges[b + 1]:
                    return b
            return n_bins - 1

        bin_of_cal = {c: bin_of(c) for c in distinct}
    num = [Fraction(0)] * n_out
    den = [Fraction(0)] * n_out
    for s, t, v in rows:
        num[bin_of_cal[s]] += v * t
        den[bin_of_cal[s]] += v
    filled = [b for b in range(n_out) if den[b] > 0]
    values = []
    for b in range(n_out):
        nearest = min(filled, key=lambda f: (abs(f - b), f))
        values.append(float(num[nearest] / den[nearest]))
    return np.array([values[bin_of(t)] for t in np.asarray(q, dtype=float).tolist()])


@pytest.mark.parametrize("strategy", ["quantile", "uniform"])
@pytest.mark.parametrize("n_bins", [1, 3, 5, 12])
@pytest.mark.parametrize("seed", range(3))
def test_histogram_matches_definition(strategy, n_bins, seed):
    rng = np.random.default_rng(seed)
    n = 30
    # Clustered integer scores: ties, heavy scores and (uniform) empty bins.
    s = np.concatenate((rng.integers(0, 4, n - 5), rng.integers(15, 20, 5))).astype(float)
    y = (rng.random(n) < 0.3 + s / 40).astype(int)
    w = rng.integers(0, 4, n).astype(float) if seed == 2 else np.ones(n)
    w[0] = max(w[0], 1.0)
    q = np.concatenate((np.arange(-2.0, 22.0, 0.5), rng.uniform(-3, 22, 30)))
    cal = HistogramBinningCalibrator(n_bins=n_bins, strategy=strategy, classes=[0, 1])
    cal.fit(s, y, sample_weight=w)
    want = histogram_by_definition(s, y, w, n_bins, strategy, q)
    assert_allclose(p1(cal, q), want, atol=1e-15, rtol=0)
    assert cal.bin_edges_.shape[0] == cal.bin_values_.shape[0] + 1
    assert_allclose(cal.bin_weights_.sum(), w.sum())


def test_histogram_quantile_equal_frequency():
    s = np.arange(100.0)
    y = (s % 3 == 0).astype(int)
    cal = HistogramBinningCalibrator(n_bins=10).fit(s, y)
    assert_array_equal(cal.bin_weights_, np.full(10, 10.0))
    assert_array_equal(cal.bin_edges_, np.r_[0.0, np.arange(9.5, 90, 10), 99.0])
    # A distinct score is never split: a heavy score takes a bin of its own.
    cal = HistogramBinningCalibrator(n_bins=4).fit(
        [0.0, 1.0, 2.0, 3.0], [0, 1, 1, 1], sample_weight=[1.0, 6.0, 1.0, 1.0]
    )
    assert_array_equal(cal.bin_weights_, [1.0, 6.0, 2.0])
    # Unit weights, 10 scores in 4 bins: midpoints 0.5, ..., 9.5 against 2.5, 5, 7.5.
    cal = HistogramBinningCalibrator(n_bins=4).fit(np.arange(10.0), np.arange(10) % 2)
    assert_array_equal(cal.bin_weights_, [2.0, 3.0, 2.0, 3.0])


def test_histogram_uniform_empty_bins_take_nearest():
    cal = HistogramBinningCalibrator(n_bins=7, strategy="uniform").fit([0.0, 0.1, 1.0], [0, 1, 1])
    assert_array_equal(cal.bin_weights_, [2.0, 0, 0, 0, 0, 0, 1.0])
    # Bins 1-3 are nearer (or, bin 3, as near as) the first; 4-5 nearer the last.
    assert_array_equal(cal.bin_values_, [0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0])


def test_histogram_huge_range():
    s = [-1.5e308, -1e308, 1e308, 1.5e308]
    cal = HistogramBinningCalibrator(n_bins=2, strategy="uniform").fit(s, [0, 0, 1, 1])
    assert_array_equal(cal.bin_values_, [0.0, 1.0])
    assert np.all(np.isfinite(cal.bin_edges_))
    cal = HistogramBinningCalibrator(n_bins=2).fit(s, [0, 0, 1, 1])
    assert_array_equal(p1(cal, [-1e308, 0.0, 1.0]), [0.0, 0.0, 1.0])


# ------------------------------------------------------ shared contract


@pytest.mark.parametrize("cal", ALL, ids=IDS)
def test_weights_equal_repeated_rows(cal):
    rng = np.random.default_rng(11)
    s, y = noisy_data(rng, 80, ties=True)
    w = rng.integers(0, 4, s.shape[0])
    w[0] = 1
    weighted = clone(cal).fit(s, y, sample_weight=w.astype(float))
    repeated = clone(cal).fit(np.repeat(s, w), np.repeat(y, w))
    q = np.concatenate((s, rng.uniform(-7, 7, 50)))
    assert_allclose(p1(weighted, q), p1(repeated, q), atol=1e-9, rtol=0)


@pytest.mark.parametrize("cal", ALL, ids=IDS)
def test_any_two_labels(cal):
    rng = np.random.default_rng(12)
    s, y = noisy_data(rng, 60)
    q = rng.uniform(-5, 5, 30)
    want = p1(clone(cal).fit(s, y), q)
    for neg, pos in [(1, 2), (-1, 1), ("no", "yes"), (False, True)]:
        labels = np.where(y == 1, pos, neg)
        got = clone(cal).fit(s, labels)
        assert got.classes_.tolist() == [neg, pos]
        assert_array_equal(p1(got, q), want)
        assert set(got.predict(q).tolist()) <= {neg, pos}


@pytest.mark.parametrize("cal", ALL, ids=IDS)
def test_fit_summary_equals_fit(cal):
    rng = np.random.default_rng(13)
    s, y = noisy_data(rng, 70, ties=True)
    w = rng.uniform(0.0, 2.0, s.shape[0])
    q = rng.uniform(-6, 6, 40)
    a = clone(cal).fit(s, y, sample_weight=w)
    b = clone(cal).fit_summary(ScoreSummary.from_arrays(s, y, w))
    assert_array_equal(p1(a, q), p1(b, q))
    for name in cal._state:
        assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("cal", ALL, ids=IDS)
def test_pickle_round_trip(cal):
    rng = np.random.default_rng(14)
    s, y = noisy_data(rng, 50)
    fitted = clone(cal).fit(s, y)
    back = pickle.loads(pickle.dumps(fitted))
    q = rng.uniform(-5, 5, 30)
    assert_array_equal(p1(back, q), p1(fitted, q))
    for name in cal._state:  # plain numbers or arrays, never closures
        value = getattr(fitted, name)
        assert isinstance(value, (float, np.ndarray)), name
        if isinstance(value, np.ndarray):
            assert value.dtype == np.float64


@pytest.mark.parametrize("cal", ALL, ids=IDS)
def test_one_distinct_score(cal):
    if getattr(cal, "targets", None) == "labels":
        fitted = clone(cal).fit([0.4, 0.4, 0.4], [0, 1, 1])
        assert_allclose(p1(fitted, [-1.0, 0.4, 3.0]), 2 / 3, rtol=1e-14)
        return
    fitted = clone(cal).fit([0.4, 0.4, 0.4], [0, 1, 1])
    p = p1(fitted, [-1.0, 0.4, 3.0])
    assert np.ptp(p) == 0
    if not isinstance(cal, PlattCalibrator):
        assert_allclose(p, 2 / 3, rtol=1e-15)


@pytest.mark.parametrize("cal", ALL[2:], ids=IDS[2:])
def test_single_class(cal):
    named = clone(cal).set_params(classes=[0, 1])
    assert_array_equal(p1(clone(named).fit([0.1, 0.5, 0.9], [0, 0, 0]), [0.0, 0.7]), [0.0, 0.0])
    assert_array_equal(p1(clone(named).fit([0.1, 0.5, 0.9], [1, 1, 1]), [0.0, 0.7]), [1.0, 1.0])
    fitted = clone(cal).set_params(classes=["a", "b"]).fit([0.1, 0.5], ["b", "b"])
    assert_array_equal(p1(fitted, [0.3]), [1.0])


@pytest.mark.parametrize(
    ("cal", "match"),
    [
        (PlattCalibrator(targets="Platt"), "targets"),
        (PlattCalibrator(targets=None), "targets"),
        (IsotonicCalibrator(interpolation="cubic"), "interpolation"),
        (HistogramBinningCalibrator(n_bins=0), "n_bins"),
        (HistogramBinningCalibrator(n_bins=2.5), "n_bins"),
        (HistogramBinningCalibrator(n_bins=True), "n_bins"),
        (HistogramBinningCalibrator(strategy="kmeans"), "strategy"),
    ],
)
def test_bad_parameters(cal, match):
    with pytest.raises(ValueError, match=match):
        cal.fit([0.1, 0.2, 0.3], [0, 1, 1])
    with pytest.raises(ValueError, match=match):
        cal.fit_summary(ScoreSummary.from_arrays([0.1, 0.2], [0, 1]))


def test_numpy_integer_n_bins():
    cal = HistogramBinningCalibrator(n_bins=np.int64(2)).fit([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])
    assert_array_equal(cal.bin_values_, [0.0, 1.0])


# ------------------------------------------------------------ properties

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@st.composite
def calibration_sets(draw):
    n = draw(st.integers(1, 30))
    s = draw(st.lists(st.integers(-20, 20), min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    w = draw(st.lists(st.floats(0.1, 10.0), min_size=n, max_size=n))
    return np.array(s, dtype=float) / 4, np.array(y), np.array(w)


@given(
    data=calibration_sets(),
    q=st.lists(finite, min_size=1, max_size=20),
    interpolation=st.sampled_from(["nearest", "linear"]),
)
def test_isotonic_monotone_in_unit_interval(data, q, interpolation):
    s, y, w = data
    cal = IsotonicCalibrator(interpolation=interpolation, classes=[0, 1])
    cal.fit(s, y, sample_weight=w)
    q = np.sort(np.array(q))
    p = p1(cal, q)
    assert np.all(np.diff(p) >= 0)
    assert np.all((p >= 0) & (p <= 1))


@pytest.mark.filterwarnings("ignore::venncal._validation.WeightScaleWarning")
@given(data=calibration_sets(), q=st.lists(finite, min_size=1, max_size=20))
def test_platt_monotone_in_unit_interval(data, q):
    s, y, w = data
    cal = PlattCalibrator(classes=[0, 1]).fit(s, y, sample_weight=w)
    q = np.sort(np.array(q))
    p = p1(cal, q)
    assert np.all((p >= 0) & (p <= 1))
    if cal.a_ < 0:
        assert np.all(np.diff(p) >= 0)
    # The fit balances the targets: mean prediction = mean target (stationarity in B).
    k_pos = float(w[y == 1].sum())
    k_neg = float(w[y == 0].sum())
    t = np.where(y == 1, (k_pos + 1) / (k_pos + 2), 1 / (k_neg + 2))
    assert_allclose(np.dot(w, p1(cal, s)), np.dot(w, t), rtol=1e-9, atol=1e-12)


@given(
    data=calibration_sets(),
    q=st.lists(finite, min_size=1, max_size=20),
    n_bins=st.integers(1, 8),
    strategy=st.sampled_from(["quantile", "uniform"]),
)
def test_histogram_in_unit_interval(data, q, n_bins, strategy):
    s, y, w = data
    cal = HistogramBinningCalibrator(n_bins=n_bins, strategy=strategy, classes=[0, 1])
    cal.fit(s, y, sample_weight=w)
    p = p1(cal, np.array(q))
    assert np.all((p >= 0) & (p <= 1))
    assert np.all(np.diff(cal.bin_edges_) >= 0)
    assert cal.bin_values_.shape[0] <= n_bins
    assert_allclose(cal.bin_weights_.sum(), w.sum(), rtol=1e-12)


# -- the binning shared by histogram binning, BBQ and the binned metrics ----------


@pytest.mark.parametrize("seed", range(6))
def test_histogram_quantile_bins_are_bbq_single_model_bins(seed):
    # Both use the one equal-weight rule: a one-model BBQ has the histogram's inner edges.
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(120) * (10 if seed % 2 else 1000)) / 7
    y = rng.random(120) < 0.4
    w = rng.integers(1, 4, 120).astype(float) if seed >= 3 else None
    n_distinct = np.unique(s).shape[0]
    for n_bins in (1, 2, 5, min(13, n_distinct), n_distinct):
        hist = HistogramBinningCalibrator(n_bins=n_bins).fit(s, y, sample_weight=w)
        bbq = BBQCalibrator(bin_range=(n_bins, n_bins)).fit(s, y, sample_weight=w)
        assert bbq.n_bins_.tolist() == [hist.bin_values_.shape[0]]
        assert_array_equal(bbq.bin_edges_, hist.bin_edges_[1:-1])


def test_histogram_quantile_bins_follow_the_middle_rule_exactly():
    # Literal rule with exact fractions: distinct score j goes to bin
    # #{b in 1..B-1 : b W / B <= C_j - w_j / 2}; bins that get no score are dropped.
    rng = np.random.default_rng(7)
    s = np.round(rng.random(90) * 30)
    w = rng.integers(1, 5, 90).astype(float)
    y = rng.random(90) < 0.5
    values = np.unique(s)
    weight = [Fraction(float(w[s == v].sum())) for v in values]
    total = sum(weight)
    for n_bins in (1, 3, 4, 10, 40):
        before = Fraction(0)
        bins = []
        for wj in weight:
            middle = before + wj / 2
            bins.append(sum(1 for b in range(1, n_bins) if Fraction(b) * total / n_bins <= middle))
            before += wj
        cuts = [j for j in range(1, len(values)) if bins[j] != bins[j - 1]]
        expected = [0.5 * values[j - 1] + 0.5 * values[j] for j in cuts]
        cal = HistogramBinningCalibrator(n_bins=n_bins).fit(s, y, sample_weight=w)
        assert cal.bin_edges_[1:-1].tolist() == expected


@pytest.mark.parametrize(
    ("scores", "labels", "query", "expected"),
    [
        # a subnormal gap (the slope overflows); 5e-311 is not half of 1e-310 in floats
        ([0.0, 1e-310], [0, 1], [5e-311, 2.5e-311],
         [float(Fraction(5e-311) / Fraction(1e-310)), float(Fraction(2.5e-311) / Fraction(1e-310))]),
        ([-1e308, -1e308, 1e308, 1e308, 1e308], [0, 0, 1, 1, 0], [0.0, 5e307, -5e307],
         [1 / 3, 1 / 2, 1 / 6]),  # a gap past the largest double
    ],
)
def test_linear_interpolation_across_extreme_gaps(scores, labels, query, expected):
    # a fresh attack (issue 22): np.interp gave inf between subnormal scores and the left
    # value across a gap past 1.8e308; exact interpolation between the fitted values
    cal = IsotonicCalibrator(interpolation="linear").fit(scores, labels)
    np.testing.assert_allclose(cal.predict_proba(query)[:, 1], expected, rtol=1e-15)
    enir = ENIRCalibrator().fit(scores, labels).predict_proba(query)[:, 1]
    assert np.isfinite(enir).all() and ((enir >= 0) & (enir <= 1)).all()


def test_platt_refuses_a_slope_past_the_float64_range():
    # a fresh attack (issue 22): subnormal scores gave a_ = -inf (1.0 at every calibration
    # score, NaN at 0) and a model that load refused; scaled up, the same data fit fine
    s, y = np.array([1e-310, 2e-310, 3e-310, 4e-310]), [0, 1, 0, 1]
    cal = PlattCalibrator()
    with pytest.raises(ValueError, match="slope A .* beyond the float64 range"):
        cal.fit(s, y)
    assert not hasattr(cal, "a_")
    p = PlattCalibrator().fit(s * 1e10, y).predict_proba(s * 1e10)[:, 1]
    assert_allclose(p, PlattCalibrator().fit([1, 2, 3, 4], y).predict_proba([1, 2, 3, 4])[:, 1])


def test_platt_with_scores_of_both_signs_near_the_float64_range():
    # the slow fuzz profile (issue 22): s - center overflowed for scores -1e308 and 1e308
    s, y = np.array([-1e308] * 7 + [1e308]), [0] * 7 + [1]
    big = PlattCalibrator().fit(s, y)
    small = PlattCalibrator().fit(s / 4, y)
    # big.a_ (about -1.4e-308) is subnormal, so it holds fewer than 53 bits: a quarter of
    # small.a_ to within one subnormal step (2**-1074), not bit for bit (which held on one
    # numpy build and not on the next)
    assert abs(big.a_ - small.a_ / 4) <= 2.0**-1074 and big.b_ == small.b_
    assert_allclose(big.predict_proba(s[[0, -1]])[:, 1], [1 / 9, 2 / 3])
