"""Diagnostics beyond the ECE (issue 25, deliverable 3) against their literal twins.

Spiegelhalter's z, the calibration slope and intercept, the KS and Kuiper
cumulative tests, the smooth ECE and the bootstrap intervals, each compared
with ``tests/reference/diagnostics.py`` on random, tied, constant, weighted and
extreme inputs; their errors; and their place in ``evaluate``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import diagnostics as ref
from venncal.metrics import (
    bootstrap_intervals,
    bootstrap_intervals_multiclass,
    brier_loss,
    calibration_slope_intercept,
    classwise_ece,
    ece,
    evaluate,
    evaluate_multiclass,
    ks_calibration_test,
    kuiper_calibration_test,
    log_loss,
    multiclass_log_loss,
    smooth_ece,
    spiegelhalter_test,
)
from venncal.metrics._diagnostics import brownian_max_sf, brownian_range_sf

REL = 1e-11


def case(seed: int, n: int = 200, *, ties: bool = False, weighted: bool = False, power=1.3):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    if ties:
        p = np.clip(np.round(p, 1), 0.05, 0.95)
    y = rng.random(n) < p**power
    w = rng.exponential(size=n) if weighted else None
    return y, p, w


CASES = [
    case(0), case(1, ties=True), case(2, weighted=True), case(3, ties=True, weighted=True),
    case(4, n=7), case(5, power=2.0),
]


# -- Spiegelhalter ---------------------------------------------------------------------


@pytest.mark.parametrize("data", CASES)
def test_spiegelhalter_equals_its_twin(data):
    y, p, w = data
    z, pvalue = spiegelhalter_test(y, p, sample_weight=w)
    want = ref.spiegelhalter(y, p, w)
    assert z == pytest.approx(want[0], rel=REL, abs=1e-13)
    assert pvalue == pytest.approx(want[1], rel=1e-9, abs=1e-15)


def test_spiegelhalter_undefined_when_every_forecast_is_0_half_or_1():
    with pytest.raises(ValueError, match="every forecast of positive weight is 0, 1/2 or 1"):
        spiegelhalter_test([0, 1, 1], [0.0, 0.5, 1.0])
    # a row of weight 0 does not count
    with pytest.raises(ValueError, match="variance 0"):
        spiegelhalter_test([0, 1], [0.5, 0.3], sample_weight=[1, 0])


# -- KS and Kuiper ---------------------------------------------------------------------


@pytest.mark.parametrize("data", CASES)
@pytest.mark.parametrize(("mine", "twin"), [(ks_calibration_test, ref.ks),
                                            (kuiper_calibration_test, ref.kuiper)])
def test_cumulative_tests_equal_their_twins(data, mine, twin):
    y, p, w = data
    stat, pvalue = mine(y, p, sample_weight=w)
    want = twin(y, p, w)
    assert stat == pytest.approx(want[0], rel=REL, abs=0.0)
    assert pvalue == pytest.approx(want[1], rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("test", [ks_calibration_test, kuiper_calibration_test])
def test_ties_do_not_depend_on_row_order(test):
    y, p, w = case(7, n=300, ties=True, weighted=True)
    base = test(y, p, sample_weight=w)
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(p.shape[0])
        got = test(y[perm], p[perm], sample_weight=w[perm])
        assert got.statistic == pytest.approx(base.statistic, rel=1e-12, abs=0.0)


def test_constant_forecast_is_one_step():
    y = np.array([1, 0, 0, 1, 1])
    stat, _ = ks_calibration_test(y, np.full(5, 0.4))
    assert stat == pytest.approx(abs(3 - 2.0) / math.sqrt(5 * 0.24), rel=1e-14, abs=0.0)
    assert kuiper_calibration_test(y, np.full(5, 0.4)).statistic == pytest.approx(
        stat, rel=1e-14, abs=0.0)
    with pytest.raises(ValueError, match="sigma = 0"):
        ks_calibration_test([0, 1], [0.0, 1.0])


@pytest.mark.parametrize("x", [0.05, 0.2, 0.5, 0.8, 1.0, 1.3, 2.0, 3.0, 5.0, 8.0])
def test_brownian_tails_equal_other_series(x):
    # abs=0.0: the tails at x = 8 are 2.5e-15 and 5.0e-15, where abs=1e-14 and 1e-13 passed anything
    assert brownian_max_sf(x) == pytest.approx(ref.brownian_max_sf(x), rel=1e-10, abs=0.0)
    assert brownian_range_sf(x) == pytest.approx(ref.brownian_range_sf(x), rel=1e-8, abs=0.0)


def test_brownian_tails_have_the_known_means():
    from scipy.integrate import quad

    # E max |B| = sqrt(pi / 2); E range = 2 sqrt(2 / pi) (Feller 1951)
    assert quad(brownian_max_sf, 0, 50, limit=200)[0] == pytest.approx(math.sqrt(math.pi / 2))
    assert quad(brownian_range_sf, 0, 50, limit=200)[0] == pytest.approx(
        2 * math.sqrt(2 / math.pi))


# -- slope and intercept ---------------------------------------------------------------


@pytest.mark.parametrize("data", CASES[:4] + CASES[5:])
def test_slope_intercept_equal_bisection_twin(data):
    y, p, w = data
    line = calibration_slope_intercept(y, p, sample_weight=w)
    slope, intercept, fit_intercept = ref.slope_intercept(y, p, w)
    assert line.slope == pytest.approx(slope, rel=1e-8, abs=0.0)
    assert line.intercept == pytest.approx(intercept, rel=1e-8, abs=1e-10)
    assert line.fit_intercept == pytest.approx(fit_intercept, rel=1e-8, abs=1e-10)
    assert line.gradient_norm <= 1e-10


def test_slope_is_one_for_recalibrated_logits():
    rng = np.random.default_rng(11)
    z = rng.normal(size=20000)
    p = 1 / (1 + np.exp(-2.0 * z))  # over-confident: the truth is logit 1 * z
    y = rng.random(20000) < 1 / (1 + np.exp(-z))
    assert calibration_slope_intercept(y, p).slope == pytest.approx(0.5, abs=0.03)


@pytest.mark.parametrize("factor", [2.0**-1000, 1e-300, 1e300, 2.0**53])
def test_slope_intercept_do_not_change_with_a_common_weight_factor(factor):
    y, p, w = case(2, weighted=True)
    a = calibration_slope_intercept(y, p, sample_weight=w)
    b = calibration_slope_intercept(y, p, sample_weight=w * factor)
    assert b.slope == pytest.approx(a.slope, rel=1e-12, abs=0.0)
    assert b.intercept == pytest.approx(a.intercept, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize(("y", "p", "match"), [
    ([0, 1, 1], [0.0, 0.5, 0.7], r"p must lie in \(0, 1\).*clip=eps"),
    ([1, 1, 1], [0.2, 0.5, 0.7], "both labels"),
    ([0, 1, 1], [0.3, 0.3, 0.3], "constant"),
    ([0, 0, 1], [0.2, 0.3, 0.7], "separates the two labels"),
])
def test_slope_intercept_refuse_what_has_no_fit(y, p, match):
    with pytest.raises(ValueError, match=match):
        calibration_slope_intercept(y, p)


def test_slope_intercept_clip():
    y, p = [0, 1, 1, 0, 1], [0.0, 0.6, 1.0, 0.4, 0.3]
    line = calibration_slope_intercept(y, p, clip=1e-6)
    want = ref.slope_intercept(y, p, clip=1e-6)
    assert line.slope == pytest.approx(want[0], rel=1e-7, abs=0.0)
    with pytest.raises(ValueError, match="clip"):
        calibration_slope_intercept(y, p, clip=0.5)


def _one_heavy_row(heavy):
    """300 rows, the first of weight ``heavy`` and the others of weight 1 (attack 26 F2)."""
    rng = np.random.default_rng(1)
    p = rng.uniform(0, 1, 300)
    y = rng.random(300) < p
    w = np.ones(300)
    w[0] = heavy
    return y, p, w


@pytest.mark.parametrize("heavy", [1e9, 1e12, 1e14])
def test_slope_intercept_with_one_dominant_weight_equal_the_twin(heavy):
    # The old stopping rule, on the gradient of the mean loss, stopped where the light rows'
    # share (3e-10 of the weight at 1e12) fell under tol: slope 16.706 for 17.057.
    y, p, w = _one_heavy_row(heavy)
    line = calibration_slope_intercept(y, p, sample_weight=w)
    slope, intercept, fit_intercept = ref.slope_intercept(y, p, w)
    assert line.slope == pytest.approx(slope, rel=1e-8, abs=0.0)
    assert line.intercept == pytest.approx(intercept, rel=1e-8, abs=1e-10)
    assert line.fit_intercept == pytest.approx(fit_intercept, rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("heavy", [1e100, 1e308])
def test_slope_intercept_refuse_weights_past_float64_resolution(heavy):
    # Was slope 153.76 with exit 0: the weighted loss there is 6.1e294, against 6.1e4 near
    # the maximum.  The light rows cannot be resolved beside the heavy one in float64.
    y, p, w = _one_heavy_row(heavy)
    with pytest.raises(ValueError, match=r"did not converge.*weights span a factor of"):
        calibration_slope_intercept(y, p, sample_weight=w)
    ev = evaluate(y, p, sample_weight=w, diagnostics=True)
    assert math.isnan(ev["calibration_slope"]) and math.isnan(ev["calibration_intercept"])
    assert any("calibration_slope" in n and "weights span" in n for n in ev.notes)


@pytest.mark.parametrize("y, p, w", [
    # logit(p) does not separate the labels, but the row that joins them weighs 1e-300
    ([0, 0, 1, 0, 0, 1, 1, 0, 0],
     [1e-300, 1e-310, 1 - 2**-53, 1.0, 0.5394646261123279, 0.5253805104147993, 0.9,
      0.6087880351081263, 0.3],
     [1.0, 0.5, 1e300, 0.0, 1e300, 1e-300, 0.0, 2.0**53, 1.0]),
    ([0, 1, 1, 1, 0], [1e-300, 0.8452300910015517, 0.8171458538819233, 0.1960980413704525, 0.5],
     [0.0, 0.0, 1e-300, 1e300, 1.0]),
])
def test_slope_intercept_name_the_weights_when_the_fit_fails_in_float64(y, p, w):
    # were a Separable "the likelihood has no maximum" (false: logit(p) does not separate
    # the labels) and "the scores' features spread over too small a range; multiply the
    # scores by a positive constant" (advice about a calibrator's scores, not about p)
    with pytest.raises(ValueError, match="cannot be computed in float64; the weights span a "
                                         "factor of [12]e[+]300") as info:
        calibration_slope_intercept(y, p, sample_weight=w)
    assert type(info.value) is ValueError


def test_slope_intercept_refuse_a_class_that_rounds_to_zero_weight():
    # The negatives' weights, 5e-324 beside 1e308, round to 0 when scaled: a clear error, not
    # '2**-inf' or an empty array's max.
    y, p, _ = _one_heavy_row(1.0)
    with pytest.raises(ValueError, match=r"the lighter class holds less than 2\*\*-1074"):
        calibration_slope_intercept(y, p, sample_weight=np.where(y, 1e308, 5e-324))


# -- smooth ECE ------------------------------------------------------------------------

SMALL = [case(0, n=60), case(1, n=60, ties=True), case(3, n=60, ties=True, weighted=True)]


@pytest.mark.parametrize("data", SMALL)
@pytest.mark.parametrize("sigma", [0.02, 0.1, 0.5])
def test_smooth_ece_at_a_bandwidth_equals_the_literal_sum(data, sigma):
    y, p, w = data
    got = smooth_ece(y, p, sigma=sigma, sample_weight=w)
    assert got == pytest.approx(ref.smece_sigma(y, p, sigma, w, grid=4000), rel=2e-3, abs=0.0)


@pytest.mark.parametrize("data", SMALL)
def test_smooth_ece_fixed_point_equals_the_literal_one(data):
    y, p, w = data
    got = smooth_ece(y, p, sample_weight=w)
    assert got == pytest.approx(ref.smooth_ece(y, p, w, grid=2000), rel=2e-3, abs=0.0)
    assert smooth_ece(y, p, sigma=got, sample_weight=w) == pytest.approx(got, rel=1e-6, abs=0.0)


def test_smooth_ece_edges():
    assert smooth_ece([0, 1, 1], [0.0, 1.0, 1.0]) == 0.0  # every residual 0
    extreme = smooth_ece([0, 1, 0, 1], [1e-310, 1 - 2**-53, 0.3, 0.6])
    assert extreme == pytest.approx(ref.smooth_ece([0, 1, 0, 1], [1e-310, 1 - 2**-53, 0.3, 0.6],
                                                   grid=2000), rel=2e-3, abs=0.0)
    tiny = smooth_ece([0, 1, 0, 1], [1e-310, 1 - 2**-53, 0.5, 0.5])  # residuals cancel
    assert 0 <= tiny < 1e-4
    y = np.array([1, 0, 0, 1, 1])
    # a constant forecast far from the frequency: the fixed point is large
    assert smooth_ece(y, np.full(5, 0.1)) == pytest.approx(
        ref.smooth_ece(y, np.full(5, 0.1), grid=2000), rel=2e-3, abs=0.0)


@pytest.mark.parametrize("factor", [1e-300, 2.0**-1000, 1e300])
def test_smooth_ece_does_not_change_with_a_common_weight_factor(factor):
    y, p, w = case(3, ties=True, weighted=True)
    assert smooth_ece(y, p, sample_weight=w * factor) == pytest.approx(
        smooth_ece(y, p, sample_weight=w), rel=1e-9, abs=0.0)


def test_smooth_ece_against_relplot_when_installed():
    relplot = pytest.importorskip("relplot")
    rng = np.random.default_rng(0)
    p = rng.random(3000)
    y = rng.random(3000) < p**1.5
    assert smooth_ece(y, p) == pytest.approx(relplot.smECE(p, y.astype(float)), rel=0.02, abs=0.0)


# -- hypothesis: weights and forecasts at the edges ------------------------------------

# The three tests against their twins at the edges, bit for bit: tests/test_diagnostics_wide.py.


# -- bootstrap -------------------------------------------------------------------------


def _replicate_counts(seed, n, n_boot):
    rng = np.random.default_rng(seed)
    return [np.bincount(rng.integers(0, n, size=n, dtype=np.int32), minlength=n)
            for _ in range(n_boot)]


@pytest.mark.filterwarnings("ignore::venncal.WeightScaleWarning")  # replicates' small totals
@pytest.mark.parametrize("weighted", [False, True])
def test_bootstrap_equals_a_loop_over_the_public_metrics(weighted):
    y, p, w = case(3, n=150, ties=True, weighted=weighted)
    got = bootstrap_intervals(y, p, metrics=["log_loss", "brier", "ece", "spiegelhalter_z",
                                             "ks", "calibration_slope"],
                              n_boot=60, confidence=0.9, seed=5, sample_weight=w)
    counts = _replicate_counts(5, 150, 60)
    base = np.ones(150) if w is None else w
    metrics = {
        "log_loss": lambda cw: log_loss(y, p, sample_weight=cw),
        "brier": lambda cw: brier_loss(y, p, sample_weight=cw),
        "ece": lambda cw: ece(y, p, sample_weight=cw),
        "spiegelhalter_z": lambda cw: spiegelhalter_test(y, p, sample_weight=cw).statistic,
        "ks": lambda cw: ks_calibration_test(y, p, sample_weight=cw).statistic,
        "calibration_slope": lambda cw: calibration_slope_intercept(
            y, p, sample_weight=cw).slope,
    }
    for name, metric in metrics.items():
        low, high = ref.percentile_interval([metric(c * base) for c in counts], 0.9)
        assert got[name][0] == pytest.approx(low, rel=1e-9, abs=1e-12), name
        assert got[name][1] == pytest.approx(high, rel=1e-9, abs=1e-12), name


def test_bootstrap_is_seeded_and_checks_its_parameters():
    y, p, _ = case(0)
    assert bootstrap_intervals(y, p, n_boot=30, seed=1) == bootstrap_intervals(
        y, p, n_boot=30, seed=1)
    assert bootstrap_intervals(y, p, n_boot=30, seed=1) != bootstrap_intervals(
        y, p, n_boot=30, seed=2)
    for bad, match in (({"n_boot": 0}, "n_boot"), ({"confidence": 1.0}, "confidence"),
                       ({"metrics": ["nope"]}, "metrics"), ({"strategy": "x"}, "strategy")):
        with pytest.raises(ValueError, match=match):
            bootstrap_intervals(y, p, **bad)


def test_bootstrap_quantile_ece_and_infinite_log_loss():
    y, p = np.array([0, 1, 1, 0, 1] * 10), np.array([0.2, 0.9, 1.0, 0.1, 0.0] * 10)
    ci = bootstrap_intervals(y, p, metrics=["log_loss", "ece"], strategy="quantile", n_boot=40)
    assert ci["log_loss"] == (math.inf, math.inf)  # every resample draws the row at p = 0
    counts = _replicate_counts(0, 50, 40)
    values = [ece(y, p, strategy="quantile", sample_weight=c) for c in counts]
    assert ci["ece"] == pytest.approx(ref.percentile_interval(values, 0.95), rel=1e-12, abs=0.0)


def test_bootstrap_multiclass_equals_a_loop():
    rng = np.random.default_rng(2)
    proba = rng.dirichlet([1.0, 2.0, 1.0], size=120)
    y = np.array([rng.choice(3, p=row) for row in proba])
    got = bootstrap_intervals_multiclass(y, proba, n_boot=40, seed=3)
    counts = _replicate_counts(3, 120, 40)
    for name, metric in (("log_loss", multiclass_log_loss), ("classwise_ece", classwise_ece)):
        values = [metric(y, proba, sample_weight=c) for c in counts]
        assert got[name] == pytest.approx(ref.percentile_interval(values, 0.95), rel=1e-9, abs=0.0)


# -- evaluate --------------------------------------------------------------------------


def test_evaluate_adds_the_diagnostics_only_when_asked():
    y, p, w = case(2, weighted=True)
    plain = evaluate(y, p, sample_weight=w)
    ev = evaluate(y, p, sample_weight=w, diagnostics=True)
    assert list(ev)[: len(plain)] == list(plain)
    assert {k: ev[k] for k in plain} == plain.to_dict()
    z = spiegelhalter_test(y, p, sample_weight=w)
    line = calibration_slope_intercept(y, p, sample_weight=w)
    assert (ev["spiegelhalter_z"], ev["spiegelhalter_p"]) == tuple(z)
    assert (ev["calibration_slope"], ev["calibration_intercept"]) == (line.slope,
                                                                      line.intercept)
    assert (ev["ks"], ev["ks_p"]) == tuple(ks_calibration_test(y, p, sample_weight=w))
    assert (ev["kuiper"], ev["kuiper_p"]) == tuple(kuiper_calibration_test(y, p, sample_weight=w))
    assert ev["smooth_ece"] == smooth_ece(y, p, sample_weight=w)


def test_evaluate_diagnostics_are_nan_where_undefined():
    ev = evaluate([0, 1, 1], [0.0, 0.5, 1.0], diagnostics=True)
    for key in ("spiegelhalter_z", "spiegelhalter_p", "calibration_slope",
                "calibration_intercept"):
        assert math.isnan(ev[key]), key
    assert ev["ks"] == ref.ks([0, 1, 1], [0.0, 0.5, 1.0])[0]
    ev = evaluate([0, 1], [0.0, 1.0], diagnostics=True)
    assert all(math.isnan(ev[k]) for k in ("ks", "ks_p", "kuiper", "kuiper_p"))
    assert ev["smooth_ece"] == 0.0


def test_evaluate_bootstrap_keys():
    y, p, _ = case(0)
    ev = evaluate(y, p, bootstrap=50, base=2, brier_scale=4, seed=3)
    ci = bootstrap_intervals(y, p, n_boot=50, seed=3)
    assert ev["log_loss_low"] == pytest.approx(ci["log_loss"][0] / math.log(2), rel=1e-15, abs=0.0)
    assert ev["brier_high"] == 4 * ci["brier"][1]
    assert ev.units["log_loss_low"] == "bits"
    assert "smooth_ece_low" not in ev
    assert "smooth_ece_low" in evaluate(y, p, bootstrap=5, diagnostics=True)
    with pytest.raises(ValueError, match="bootstrap"):
        evaluate(y, p, bootstrap=-1)
    with pytest.raises(ValueError, match="diagnostics"):
        evaluate(y, p, diagnostics=1)


def test_evaluate_multiclass_top_label_diagnostics():
    rng = np.random.default_rng(4)
    proba = rng.dirichlet([1.0, 1.0, 1.0, 1.0], size=300)
    y = np.array([rng.choice(4, p=row) for row in proba])
    ev = evaluate_multiclass(y, proba, diagnostics=True, bootstrap=20)
    correct = proba.argmax(axis=1) == y
    top = proba.max(axis=1)
    assert ev["top_label_spiegelhalter_z"] == spiegelhalter_test(correct, top).statistic
    assert ev["top_label_kuiper"] == kuiper_calibration_test(correct, top).statistic
    assert ev["top_label_smooth_ece"] == smooth_ece(correct, top)
    want = np.mean([smooth_ece(y == k, proba[:, k]) for k in range(4)])
    assert ev["classwise_smooth_ece"] == pytest.approx(want, rel=1e-15, abs=0.0)
    assert ev["top_label_ks_low"] <= ev["top_label_ks_high"]
    assert "top_label_calibration_slope" not in ev
    assert list(evaluate_multiclass(y, proba)) == [
        "log_loss", "brier", "top_label_ece", "top_label_mce", "classwise_ece", "accuracy"]


def test_bootstrap_replicates_of_weight_zero_leave_no_warning():
    """Fresh attack (issue 22): replicates drawing only rows of weight 0 printed numpy's
    'invalid value encountered in divide' three times; they are left out, silently and rightly."""
    import warnings

    from venncal.metrics import bootstrap_intervals

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = bootstrap_intervals([1, 0, 1], [0.3, 0.4, 0.9], sample_weight=[0, 0, 1], n_boot=20)
    assert got["brier"] == pytest.approx((0.01, 0.01))


def test_bootstrap_smooth_ece_leaves_out_replicates_of_weight_zero():
    """Attack 27 F2: a replicate of weight-0 rows gave smooth ECE 4.7e-10 (a bisection on NaN)
    and a RuntimeWarning; the interval was (4.7e-10, 0.99) where every defined one is 0.99."""
    import warnings

    from venncal.metrics import bootstrap_intervals

    y, p, w = [1, 1], [0.01, 0.8], [3.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = bootstrap_intervals(y, p, metrics=["smooth_ece"], sample_weight=w, n_boot=200)
    assert got["smooth_ece"] == (smooth_ece(y, p, sample_weight=w),) * 2


def test_bootstrap_refuses_weights_past_float64s_span():
    # a replicate of the 1e-310 rows lost their weights to underflow beside 1e300
    from venncal.metrics import bootstrap_intervals

    y, p, _ = case(2)
    w = np.where(np.arange(p.shape[0]) % 2 == 0, 1e300, 1e-310)
    with pytest.raises(ValueError, match=r"within a factor of 2\*\*1021 .* span 1e-310 to 1e\+300"):
        bootstrap_intervals(y, p, sample_weight=w, n_boot=20)
    assert bootstrap_intervals(y, p, sample_weight=np.where(w > 1, 1e300, 1e-5), n_boot=20)


@settings(max_examples=40)
@given(st.integers(0, 2**32 - 1))
def test_cumulative_tests_do_not_depend_on_row_order_to_the_bit(seed):
    """Fresh attack (issue 22, F3): KS and Kuiper moved by 1-3 ulps in 244 of 600 row orders."""
    from venncal.metrics import ks_calibration_test, kuiper_calibration_test

    rng = np.random.default_rng(seed)
    n = 60
    p = rng.choice([0.1, 0.25, 0.3, 0.7, 1 / 3, 0.9], n)  # many ties
    y = (rng.random(n) < p).astype(int)
    w = rng.choice([1.0, 0.5, 3.0, 1e-3, 7.25], n)
    expected = [f(y, p, sample_weight=w) for f in (ks_calibration_test, kuiper_calibration_test)]
    for _ in range(5):
        k = rng.permutation(n)
        got = [f(y[k], p[k], sample_weight=w[k])
               for f in (ks_calibration_test, kuiper_calibration_test)]
        assert [tuple(g) for g in got] == [tuple(e) for e in expected]


@pytest.mark.parametrize("name", ["spiegelhalter_test", "ks_calibration_test",
                                  "kuiper_calibration_test"])
def test_relative_weights_are_flagged_by_the_tests(name):
    """Fresh attack (issue 22, F2): weights 1/n gave Spiegelhalter p 0.972, KS p 1.0 without a
    word, where the unweighted rows give 0.626 and 0.472; the p-values grow with the total."""
    import venncal.metrics as vm
    from venncal import WeightScaleWarning

    rng = np.random.default_rng(0)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(int)
    with pytest.warns(WeightScaleWarning, match="sums to 1 over 200 rows.*this test depends"):
        getattr(vm, name)(y, p, sample_weight=np.full(200, 1 / 200))
    getattr(vm, name)(y, p, sample_weight=np.full(200, 3.0))  # counts: no warning
