"""Change points over betting factors (issue 26): CUSUM, Shiryaev-Roberts, Ville, with restarts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from reference import changepoint_naive as ref
from scipy.stats import binom

from venncal.online import (
    ChangePoints,
    JumperMartingale,
    MeanJumper,
    detect_changes,
    log10_factors,
    named,
)

PROCEDURES = ["cusum", "shiryaev-roberts", "ville"]


def test_a_stream_worked_by_hand():
    f = np.log10([0.5, 4.0, 0.5, 8.0, 8.0, 1.0, 16.0])
    cusum = detect_changes(f, procedure="cusum", threshold=10)
    assert isinstance(cusum, ChangePoints)
    assert cusum.alarms.dtype == np.int64 and cusum.log10_statistic.dtype == np.float64
    assert cusum.threshold == 10.0 and cusum.procedure == "cusum"
    assert_allclose(10 ** cusum.log10_statistic, [0.5, 4, 2, 16, 8, 8, 128], rtol=1e-14)
    assert list(cusum.alarms) == [4, 7]
    sr = detect_changes(f, procedure="shiryaev-roberts", threshold=10)
    # R: 0.5, 1.5*4=6, 7*0.5=3.5, 4.5*8=36 (alarm, restart), 8, 9, 160 (alarm)
    assert_allclose(10 ** sr.log10_statistic, [0.5, 6, 3.5, 36, 8, 9, 160], rtol=1e-14)
    assert list(sr.alarms) == [4, 7]
    ville = detect_changes(f, procedure="ville", threshold=10)
    assert_allclose(10 ** ville.log10_statistic, [0.5, 2, 1, 8, 64, 1, 16], rtol=1e-14)
    assert list(ville.alarms) == [5, 7]
    once = detect_changes(f, procedure="ville", threshold=10, restart=False)
    assert list(once.alarms) == [5]
    assert_allclose(10 ** once.log10_statistic, [0.5, 2, 1, 8, 64, 64, 1024], rtol=1e-14)
    empty = detect_changes(np.array([]))
    assert empty.alarms.shape == (0,) and empty.log10_statistic.shape == (0,)


@pytest.mark.parametrize("procedure", PROCEDURES)
@pytest.mark.parametrize("restart", [True, False])
def test_kernel_equals_its_literal_twin(procedure, restart):
    rng = np.random.default_rng(PROCEDURES.index(procedure))
    lf = rng.normal(-0.01, 0.25, 1200)
    lf[rng.integers(0, 1200, 5)] = -math.inf  # factors of 0
    lf[800:810] = 400.0  # far beyond the float range in linear space
    got = detect_changes(lf, procedure=procedure, threshold=50.0, restart=restart)
    alarms, path = ref.change_statistics(procedure, lf, 50.0, restart)
    assert list(got.alarms) == alarms
    assert_allclose(got.log10_statistic, path, rtol=1e-12, atol=1e-11)


@pytest.mark.parametrize("threshold", [*range(2, 120), 1000, 12_345, 1_000_001])
def test_shiryaev_roberts_alarms_when_the_statistic_equals_the_threshold(threshold):
    # unit factors: R_n = n exactly, so the definition alarms at n = threshold (attack 18: the
    # log-space statistic stopped a few ulps short and alarmed a step late at 2..10 and 100)
    lf = np.zeros(threshold + 2)
    sr = detect_changes(lf, procedure="shiryaev-roberts", threshold=threshold, restart=False)
    assert sr.alarms.tolist() == [threshold]
    if threshold <= 1000:  # the definition at 60 digits: slow
        assert ref.change_statistics("shiryaev-roberts", lf, threshold, False)[0] == [threshold]
    later = detect_changes(lf, procedure="shiryaev-roberts", threshold=threshold + 0.5)
    assert later.alarms.tolist()[:1] == [threshold + 1]
    # a threshold an ulp above: the statistic is within the documented slack, which counts
    up = float(np.nextafter(float(threshold), math.inf))
    assert detect_changes(lf, procedure="shiryaev-roberts", threshold=up).alarms[0] == threshold


def test_shiryaev_roberts_slack_is_8_ulps_of_the_level_or_of_1():
    from venncal._kernels.changepoint import sr_slack

    for level in (0.0, 1e-16, 0.3, 1.0, 1.9999999999999998, 2.0, 5.0, 300.0):
        assert sr_slack(level) == 8 * math.ulp(max(level, 1.0))


_EDGES = [0.0, 0.0, 0.0, 1.0, -1.0, 2.0, -math.inf, 0.5, -0.5, math.log10(2), -math.log10(2),
          5e-324, -1e-16, 1e-16, 300.0, -400.0]
_THRESHOLDS = [1 + 2**-52, 1.5, 2.0, 3.0, 10.0, 11.0, 12.0, 100.0, 101.0, 1e300, 1e6 + 1]


@given(st.lists(st.one_of(st.sampled_from(_EDGES), st.floats(-1, 1)), min_size=1, max_size=80),
       st.one_of(st.sampled_from(_THRESHOLDS), st.integers(2, 400)))
def test_shiryaev_roberts_is_never_late_and_early_only_within_the_slack(lf, threshold):
    # Against the definition (Decimal, 60 digits): the first alarm is never after the
    # definition's, and one before it has the exact statistic within the slack of the
    # threshold (8 ulps of max(log10 threshold, 1)) plus the statistic's rounding (< 1e-15).
    lf = np.array(lf)
    got = detect_changes(lf, procedure="shiryaev-roberts", threshold=threshold, restart=False)
    want, path = ref.change_statistics("shiryaev-roberts", lf, threshold, False)
    if want:
        assert got.alarms.size and got.alarms[0] <= want[0]
    if got.alarms.size and (not want or got.alarms[0] < want[0]):
        level = math.log10(threshold)
        assert path[got.alarms[0] - 1] >= level - 12 * math.ulp(max(level, 1.0))


def test_shiryaev_roberts_stays_exact_on_a_long_stream():
    # double-double: log10 R_n within 1e-15 of the definition after 30,000 steps (in plain
    # doubles the error grew to 1e-13)
    rng = np.random.default_rng(5)
    lf = rng.normal(-1e-6, 1e-3, 30_000)
    lf[rng.random(30_000) < 0.3] = 0.0
    got = detect_changes(lf, procedure="shiryaev-roberts", threshold=1e300).log10_statistic
    _, path = ref.change_statistics("shiryaev-roberts", lf, 1e300)
    assert np.abs(got - np.array(path)).max() <= 1e-15 + 0.5 * math.ulp(max(path))


def test_ville_without_restart_is_the_martingale_and_its_alarm():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.05, 0.95, 20_000)
    y = rng.random(20_000) < np.clip(p + 0.08, 0, 1)
    res = MeanJumper(named("shift+confidence")).run(p, y)
    assert res.log10_final > 100  # far beyond the alarm: the path is long and large
    ville = detect_changes(log10_factors(res.log10_martingale), procedure="ville",
                           threshold=100.0, restart=False)
    # the compensated sum of the factors gives the path back to its own rounding
    assert_allclose(ville.log10_statistic, res.log10_martingale, rtol=0, atol=1e-12)
    assert list(ville.alarms) == [res.alarm(0.01)]


@given(st.lists(st.floats(-3, 3), min_size=1, max_size=60))
def test_cusum_is_at_most_shiryaev_roberts_and_the_best_restarted_martingale(lf):
    lf = np.array(lf)
    c = detect_changes(lf, procedure="cusum", restart=False, threshold=1e300).log10_statistic
    r = detect_changes(lf, procedure="shiryaev-roberts", restart=False,
                       threshold=1e300).log10_statistic
    assert (c <= r + 1e-12).all()
    # C_n = max_{k < n} S_n / S_k (Vovk et al. 2021): the best martingale started at any step
    path = np.concatenate(([0.0], np.cumsum(lf)))
    best = path[1:] - np.minimum.accumulate(path[:-1])
    assert_allclose(c, best, atol=1e-11)


@given(st.lists(st.integers(-30, 32).map(lambda k: k / 10), min_size=1, max_size=40),
       st.sampled_from(["cusum", "ville"]), st.sampled_from([10.0, 100.0, 1000.0]),
       st.booleans())
@example([-0.7, -1.0, 3.2, -1.9, 1.0, -0.3, 1.4, 1.5, -0.9, 0.1, -0.2, 0.7, 0.0, 1.0, 0.7, -0.4,
          1.2, 0.7, 0.7, -0.3, 0.9, -0.2, 1.5], "ville", 100.0, True)
def test_cusum_and_ville_alarm_where_the_exact_sum_reaches_the_level(lf, procedure, threshold,
                                                                      restart):
    """Attack 48 F2: the compensated sum was rounded before the comparison, so a sum 2**-54
    below 2 alarmed at threshold 100 (the example: [8, 17, 21] where the exact sums give
    [8, 17, 23]); 564 of 6,000 such streams alarmed early."""
    got = detect_changes(lf, procedure=procedure, threshold=threshold, restart=restart)
    assert got.alarms.tolist() == ref.log_space_alarms(procedure, lf, math.log10(threshold),
                                                       restart)


@pytest.mark.parametrize("lf, procedure, threshold", [
    ([-300.0, 0.1, -1e-40, 300.9, 2.273181642920008e-14], "ville", 10.0),
    ([-1e16, -5e-324, 1.0, 1e16], "ville", 10.0),
    ([300.0, 0.1, -1e-40, 7.8, 0.10000000000000017], "cusum", 1e308),
    ([300.0, 0.1, -1e-40, 7.8, 0.10000000000000017], "ville", 1e308),
])
def test_a_tiny_factor_is_not_lost_before_the_comparison(lf, procedure, threshold):
    """Attack 51 F4: the double-double's low part was summed with rounding, so a factor of
    -1e-40 was lost and the exact sum 1 - 1e-40 alarmed at threshold 10 (never early, says
    docs/online.md).  The sums are now exact expansions."""
    for restart in (False, True):
        got = detect_changes(lf, procedure=procedure, threshold=threshold, restart=restart)
        assert got.alarms.tolist() == ref.log_space_alarms(procedure, lf, math.log10(threshold),
                                                           restart) == []
    # the same streams without the tiny factor reach the level exactly: alarmed
    rest = [v for v in lf if abs(v) > 1e-30]
    assert detect_changes(rest, procedure=procedure, threshold=threshold).alarms.tolist() != []


@given(st.lists(st.sampled_from([-300.0, 300.0, 0.1, -0.1, 1 / 3, -1 / 3, 1e-40, -1e-40, 5e-324,
                                 -5e-324, 2.0**-60, 1e16, -1e16, 0.7]), min_size=1, max_size=30),
       st.sampled_from(["cusum", "ville"]), st.sampled_from([10.0, 100.0, 1e16]), st.booleans())
def test_cusum_and_ville_are_exact_on_factors_of_any_scale(lf, procedure, threshold, restart):
    got = detect_changes(lf, procedure=procedure, threshold=threshold, restart=restart)
    assert got.alarms.tolist() == ref.log_space_alarms(procedure, lf, math.log10(threshold),
                                                       restart)


def test_factors_whose_sums_could_overflow_are_refused():
    """Attack 48 F1: sums past the doubles became NaN or a -inf that never came back (a Ville
    statistic 10^(-2e308) taken for 0 missed the alarm of [-1e308, -1e308, 1e308 x 3])."""
    for lf in ([-1e308, -1e308, 1e308, 1e308, 1e308], [1e308, 1e308], [9e307, 9e307, 1.0]):
        for procedure in PROCEDURES:
            with pytest.raises(ValueError, match=r"absolute values of a run .* sum to "
                                                 r"\d\.\d+e\+30\d, past 2\*\*1022"):
                detect_changes(lf, procedure=procedure, threshold=1e300)
    cp = detect_changes([2e307, -math.inf, 2e307], procedure="ville", threshold=1e300)
    assert cp.alarms.tolist() == [1] and cp.log10_statistic[1] == -math.inf
    # attack 49 F3: a factor of 0 resets the statistic; only the runs between them count
    cp = detect_changes([3e307, -math.inf, 3e307], procedure="cusum", threshold=10)
    assert cp.alarms.tolist() == [1, 3]
    with pytest.raises(ValueError, match=r"sum to 2\.000e\+308"):  # not "inf" (attack 49 F2)
        detect_changes([1e308, -1e308])
    # attack 51 F5: each run's own sum (a rounded sum of the whole stream refused this run
    # after an earlier one, naming a sum past 2**1022 that it is not)
    a, b = 2.0**1021, 2.0**1021 - 2.0**969
    for procedure in PROCEDURES:
        detect_changes([a, b], procedure=procedure, threshold=10)
        detect_changes([a, -math.inf, a, b], procedure=procedure, threshold=10)


def test_huge_and_tiny_martingales_do_not_overflow():
    lf = np.full(10_000, 1.0)  # S = 10^10000
    for procedure in PROCEDURES:
        cp = detect_changes(lf, procedure=procedure, threshold=1e300, restart=False)
        assert cp.alarms.tolist() == [300]
        # R_n = 10^n + ... + 10 = 10^n * 10/9
        extra = math.log10(10 / 9) if procedure == "shiryaev-roberts" else 0.0
        assert cp.log10_statistic[-1] == pytest.approx(10_000 + extra, rel=1e-14)
    low = detect_changes(np.full(10_000, -1.0), procedure="ville")
    assert low.log10_statistic[-1] == pytest.approx(-10_000) and low.alarms.size == 0


@pytest.mark.parametrize("bad", [1.0, 0.5, 0, -3, math.inf, math.nan, True, "100", None])
def test_bad_thresholds_are_refused(bad):
    with pytest.raises(ValueError, match="threshold must be a finite number above 1"):
        detect_changes([0.1], threshold=bad)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="procedure must be one of 'cusum'"):
        detect_changes([0.1], procedure="page")
    with pytest.raises(ValueError, match=r"got nan at index 1"):
        detect_changes([0.1, math.nan])
    with pytest.raises(ValueError, match=r"got inf at index 0"):
        detect_changes([math.inf])
    with pytest.raises(ValueError, match="must be 1-D"):
        detect_changes(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="restart must be True or False"):
        detect_changes([0.1], restart="yes")
    with pytest.raises(ValueError, match="below \\+inf"):
        log10_factors([0.0, math.nan])


def test_factors_of_a_path():
    assert_allclose(log10_factors([0.5, 0.25, 1.0]), [0.5, -0.25, 0.75])
    assert_allclose(log10_factors([3.5, 4.0], start=3.0), [0.5, 0.5])
    # a capital of 0 bets no more: factor 1 after the step that lost it
    assert log10_factors([0.5, -math.inf, -math.inf]).tolist() == [0.5, -math.inf, 0.0]


def _calibrated_factors(n, seed):
    """iid factors B_q(y) / B_p(y) with y ~ B_p: mean 1 (the null), q = p shifted by 0.15."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.8, n)
    y = rng.random(n) < p
    q = p + 0.15
    return np.log10(np.where(y, q / p, (1 - q) / (1 - p)))


def _run_lengths(alarms):
    return np.diff(np.concatenate(([0], alarms)))


def test_average_run_length_to_a_false_alarm_iid_null():
    # Shiryaev-Roberts: E(tau) = E(R_tau) >= threshold; CUSUM alarms no earlier.
    lf = _calibrated_factors(400_000, seed=7)
    sr = _run_lengths(detect_changes(lf, procedure="shiryaev-roberts", threshold=50).alarms)
    cusum = _run_lengths(detect_changes(lf, procedure="cusum", threshold=50).alarms)
    assert sr.size > 1000
    assert sr.mean() >= 50 - 4 * sr.std() / math.sqrt(sr.size)
    assert cusum.mean() >= sr.mean()


def test_average_run_length_to_a_false_alarm_jumper_null():
    # The Jumper's own factors under calibrated forecasts (measured: SR 21.0 steps between
    # false alarms, 9,536 alarms; CUSUM 8,295 steps, 24 alarms; threshold 20, 200,000 steps).
    rng = np.random.default_rng(8)
    p = rng.uniform(0.02, 0.98, 200_000)
    res = JumperMartingale(named("shift+confidence")).run(p, rng.random(200_000) < p)
    lf = log10_factors(res.log10_martingale)
    sr = _run_lengths(detect_changes(lf, procedure="shiryaev-roberts", threshold=20).alarms)
    cusum = _run_lengths(detect_changes(lf, procedure="cusum", threshold=20).alarms)
    assert sr.mean() >= 20 - 4 * sr.std() / math.sqrt(sr.size)
    assert cusum.size >= 10 and cusum.mean() >= sr.mean()


def test_ville_first_alarm_frequency():
    # 2,000 null streams of 1,000 steps: P(first alarm) <= 1/threshold = 0.01, plus slack.
    lf = _calibrated_factors(2_000_000, seed=9).reshape(2000, 1000)
    hits = sum(detect_changes(row, procedure="ville", restart=False).alarms.size for row in lf)
    assert hits <= binom.ppf(0.999, 2000, 0.01)


def test_cusum_and_ville_statistics_are_the_exact_sums_correctly_rounded():
    """Attack 54 F6: the statistic was the expansion summed from its smallest part up, 1 ulp
    off the exact sum's nearest double (2.0 for 2 - 2**-53 - 2**-200, at a step that did not
    alarm at threshold 100)."""
    from fractions import Fraction

    factors = [2 - 2**-52, 2**-53, -(2**-200)]
    for procedure in ("ville", "cusum"):
        cp = detect_changes(factors, procedure=procedure, threshold=100.0)
        assert cp.alarms.tolist() == []
        assert cp.log10_statistic.tolist() == [2 - 2**-52, 2.0, 2 - 2**-52]
    rng = np.random.default_rng(5)
    for _ in range(50):
        f = rng.normal(size=40) * 10.0 ** rng.integers(-20, 1, size=40)
        cp = detect_changes(f, procedure="ville", threshold=1e300, restart=False)
        exact = np.cumsum([Fraction(v) for v in f.tolist()])
        assert cp.log10_statistic.tolist() == [float(v) for v in exact]
