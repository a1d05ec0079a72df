"""Fuzz every registered batch calibrator at the edges of floating point (issue 22).

Weights of 1e-310 (subnormal), 1e-300, whole numbers near 2**53, 1e300 and
1e308, alone and mixed; scores that tie, are constant, are both zeros or sit
at the ends of the float64 range.  Each fit either gives the right answer
(the properties every calibrator promises, and the exact-rational
references where the answer is a ratio of sums) or a clear ``ValueError``
naming the input.  Below the calibrators, the inductive Venn-Abers tables
are compared with the definition in exact rationals, and score summaries of
whole-number weights past ``2**53`` with their exact sums, in any order of
rows and merges.  A fast profile runs by default; ``-m slow`` runs a
heavier one.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from reference.naive import (
    assert_within_ulps,
    ivap_from_summary,
    pava_by_definition,
    summary_by_definition,
)
from sklearn.base import clone

from venncal._kernels import exact_ivap_tables, ivap_tables
from venncal._registry import CALIBRATORS, method_class
from venncal._validation import WeightScaleWarning

F64 = np.float64


def f64(values):
    return np.ascontiguousarray(values, dtype=F64)

METHODS = list(CALIBRATORS)
EDGE_WEIGHTS = [1e-310, 1e-300, 0.1, 0.5, 1.0, 3.0, 2.0**53 - 1, 2.0**53, 2.0**53 + 2,
                1e17, 1e300, 1e308]
EDGE_SCORES = [-1e308, -1.0, -0.0, 0.0, 1e-310, 0.25, 0.5, 1.0 - 2**-53, 1.0, 1e308]
PROBES = np.array(EDGE_SCORES + [-np.finfo(float).max, 1e-300, 0.3, 0.75, 2.0,
                                 np.finfo(float).max])
# Errors that are a clear refusal of extreme weights (not a failure).
#: The clear refusals a fit may give at the edges: of the weights, or (Platt on subnormal
#: scores) of a sigmoid's slope past the float64 range.
REFUSALS = ("sample_weight", "beyond the float64 range", "single class", "no maximum",
            "strictly between 0 and 1", "2**511")
MONOTONE = {"ivap", "isotonic", "quantized-isotonic", "platt"}


def make(method):
    if method == "beta":  # the fuzzed scores are any reals: logits
        return method_class(method)(classes=[0, 1], score="logit")
    return method_class(method)(classes=[0, 1])


def fit(method, s, y, w):
    """Fit ``method``; return the calibrator or None when it refuses the weights clearly."""
    cal = make(method)
    kwargs = {"folds": np.arange(s.shape[0]) % 2} if method == "cvap" else {}
    if method == "cvap" and s.shape[0] < 2:
        kwargs = {"folds": np.zeros(s.shape[0], dtype=int)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WeightScaleWarning)
            # Platt says when Newton stops short of convergence in float64 (scores of
            # 1e308 beside 1): a stated limit; its answer is still checked below
            warnings.simplefilter("ignore", ConvergenceWarning)
            return cal.fit(s, y, w, **kwargs)
    except ValueError as exc:  # a clear refusal, naming the weights
        assert any(word in str(exc) for word in REFUSALS), str(exc)
        return None


@st.composite
def edge_data(draw, max_size=7):
    n = draw(st.integers(1, max_size))
    score = st.one_of(st.sampled_from(EDGE_SCORES), st.floats(-4, 4).map(lambda v: round(v, 1)))
    kind = draw(st.sampled_from(["mixed", "constant", "ties"]))
    if kind == "constant":
        s = [draw(score)] * n
    elif kind == "ties":
        s = draw(st.lists(st.sampled_from([-0.0, 0.0, 1.0]), min_size=n, max_size=n))
    else:
        s = draw(st.lists(score, min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    weights = draw(st.sampled_from(["none", "one", "mixed"]))
    if weights == "none":
        w = None
    elif weights == "one":
        w = [draw(st.sampled_from(EDGE_WEIGHTS))] * n
    else:
        w = draw(st.lists(st.sampled_from(EDGE_WEIGHTS + [0.0]), min_size=n, max_size=n))
        if not any(w):
            w[0] = 1.0
    s = np.array(s, dtype=np.float64)
    return s, np.array(y), None if w is None else np.array(w, dtype=np.float64)


def check_properties(method, cal):
    proba = cal.predict_proba(PROBES)
    assert proba.shape == (PROBES.shape[0], 2)
    p = proba[:, 1]
    assert np.isfinite(proba).all(), (method, p)
    assert ((p >= 0.0) & (p <= 1.0)).all(), (method, p)
    assert np.all(np.abs(proba.sum(axis=1) - 1.0) <= 2**-52)
    if method in ("bbq", "enir"):
        assert ((p > 0.0) & (p < 1.0)).all(), (method, p)
    order = np.argsort(PROBES, kind="stable")
    if method in MONOTONE and not (method == "platt" and cal.a_ > 0):
        # The log-minimax merge p1 / (1 - p0 + p1), evaluated in floating
        # point as it always was (saved models predict bit for bit), is
        # monotone to an ulp; the intervals below are monotone exactly.
        tol = 2.0**-52 if method == "ivap" else 0.0
        assert np.all(np.diff(p[order]) >= -tol), (method, p[order])
    if method == "ivap":
        interval = cal.predict_interval(PROBES[order])
        assert np.all(np.diff(interval, axis=0) >= 0), (method, interval)


def check_ivap_exact(cal, s, y, w):
    """IVAP: the stored summary is the correctly rounded one, the tables its exact IVAP."""
    exact_s, exact_w, exact_a = summary_by_definition(s, y, w)
    assert cal.scores_.tobytes() == exact_s.tobytes()
    assert cal.weights_.tobytes() == exact_w.tobytes()
    assert cal.positive_weights_.tobytes() == exact_a.tobytes()
    e0, e1 = ivap_from_summary(cal.scores_, cal.weights_, cal.positive_weights_, cal.scores_,
                               exact=True, b=cal.negative_weights_)
    assert_within_ulps(cal.p0_, e0, 2)
    assert_within_ulps(cal.p1_, e1, 2)
    interval = cal.predict_interval(PROBES)
    assert np.all((0.0 <= interval[:, 0]) & (interval[:, 0] <= interval[:, 1])
                  & (interval[:, 1] <= 1.0))


def check_isotonic_exact(cal, s, y, w):
    """Isotonic regression: the fit at each calibration score is the exact block mean."""
    ss, ww, aa = summary_by_definition(s, y, w, exact=True)
    fit = pava_by_definition(aa, ww, exact=True)
    got = cal.predict_proba(np.array(ss, dtype=np.float64))[:, 1]
    for g, e in zip(got.tolist(), fit, strict=True):
        assert abs(Fraction(g) - e) <= Fraction(len(ss) + 1, 2**53) * e + Fraction(2**-1074)


def check_histogram_exact(cal, s, y, w):
    """Histogram binning: each filled bin's value is the exact ratio of its sums.

    The bins are read from the fit (``bin_edges_``; a score on an inner edge
    is in the lower bin); the value is compared with the ratio of the exact
    positive and total weight of the calibration rows in the bin, to the
    same tolerance as isotonic's block means (the summary's sums are each
    correctly rounded, then summed in floating point).
    """
    ss, ww, aa = summary_by_definition(s, y, w, exact=True)
    bins = np.searchsorted(cal.bin_edges_[1:-1], np.array(ss, dtype=np.float64), side="left")
    for b in np.unique(bins).tolist():
        members = np.flatnonzero(bins == b).tolist()
        total = sum((ww[i] for i in members), Fraction(0))
        exact = sum((aa[i] for i in members), Fraction(0)) / total
        got = Fraction(float(cal.bin_values_[b]))
        assert cal.bin_weights_[b] > 0, (b, cal.bin_weights_)
        tol = Fraction(len(members) + 1, 2**53) * exact + Fraction(2**-1074)
        assert abs(got - exact) <= tol, (b, float(got), float(exact))


def check_edges(method, data):
    s, y, w = data
    cal = fit(method, s, y, w)
    if cal is None:
        return
    check_properties(method, cal)
    if method == "ivap":
        check_ivap_exact(cal, s, y, w)
    if method == "isotonic":
        check_isotonic_exact(cal, s, y, w)
    if method == "histogram":
        check_histogram_exact(cal, s, y, w)


@pytest.mark.parametrize("method", METHODS)
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(data=edge_data())
# the thorough run's find (sitting 23): the Newton step of beta and quadratic-logistic there
# overflowed in the new short-step test (a RuntimeWarning); a step past the doubles is long
@example(data=(np.array([-0.0, -0.0, -0.0, 1.0, -0.0, -0.0, -0.0, -0.0]),
               np.array([0, 0, 0, 0, 0, 0, 0, 1]),
               np.array([1e-310, 1e-310, 1e-310, 0.1, 1e-310, 1e-310, 1e300, 1e308])))
def test_every_calibrator_at_the_edges(method, data):
    check_edges(method, data)


# derandomize: the same 600 examples in every run, so that CI is reproducible; a random
# search (HYPOTHESIS_PROFILE=thorough on the default test above) keeps exploring locally.
# Two random runs on 2026-11-26 found the edges pinned below (one mended, one known).
@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(data=edge_data(max_size=12))
def test_every_calibrator_at_the_edges_thorough(method, data):
    check_edges(method, data)


@pytest.mark.parametrize("method", METHODS)
def test_subnormal_mean_beside_the_largest_weights(method):
    # Issue 22: isotonic's block mean was 1.0000004633e-309, 4.6e-7 relative off: the
    # weights were scaled by 2**-26 (for 1e308) and the positive weight 1e-310 lost
    # digits (only the total weights were checked for that; histogram binning alike).
    s = np.array([-1.0, -1e308, -1e308, -1e308, -1e308])
    y = np.array([1, 0, 0, 1, 0])
    w = np.array([1e308, 1e-310, 1e-310, 1e-310, 0.1])
    check_edges(method, (s, y, w))
    if method == "histogram":  # the two scores in bins of their own, so the mean is seen
        cal = method_class(method)(classes=[0, 1], n_bins=2).fit(s, y, w)
        check_histogram_exact(cal, s, y, w)
        assert cal.bin_values_[0] < 1.1e-309


#: Weights anywhere in the float64 range: subnormal to the largest, and whole numbers
#: about 2**53.
ANY_WEIGHT = st.one_of(
    st.floats(min_value=5e-324, max_value=np.finfo(float).max),
    st.sampled_from(EDGE_WEIGHTS),
    st.integers(2**53 - 4, 2**53 + 4).map(float),
)


@st.composite
def range_data(draw, max_size=8):
    n = draw(st.integers(1, max_size))
    s = draw(st.lists(st.sampled_from([-1e308, -1.0, 0.0, 1e-310, 0.5, 1.0, 1e308]),
                      min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    w = draw(st.lists(ANY_WEIGHT, min_size=n, max_size=n))
    return np.array(s), np.array(y), np.array(w)


@pytest.mark.parametrize("method", ["isotonic", "histogram", "ivap"])
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(data=range_data())
def test_exact_means_for_weights_across_the_range(method, data):
    check_edges(method, data)


def test_enir_interpolation_stays_inside_its_values():
    # np.interp's slope times offset rounded the query -1, just below the knot 0 of value
    # 1 - 2**-53 (the other knot -1e308), to 1.0: ENIR promises 0 < p < 1
    s = np.array([-1e308] * 4 + [-0.0])
    y = np.array([0, 0, 0, 0, 1])
    cal = fit("enir", s, y, np.full(5, 2.0**53 - 1))
    check_properties("enir", cal)
    assert cal.predict_proba(np.array([-1.0]))[0, 1] == 1.0 - 2.0**-53


@pytest.mark.parametrize("method", METHODS)
def test_issue_22_weights_1e308(method):
    # [1e308] * 4 gave NaN (IVAP, isotonic, histogram, Platt, ENIR) or an
    # OverflowError (BBQ): now the answer, or a clear error naming the weights.
    s = np.array([0.1, 0.4, 0.35, 0.8])
    y = np.array([0, 0, 1, 1])
    cal = fit(method, s, y, np.full(4, 1e308))
    if method in ("ivap", "cvap", "isotonic", "histogram", "platt"):
        assert cal is not None, method
    if cal is not None:
        check_properties(method, cal)
    if method == "ivap":
        check_ivap_exact(cal, s, y, np.full(4, 1e308))


@pytest.mark.parametrize("method", METHODS)
def test_signed_zero_does_not_depend_on_row_order(method):
    # A saved model held -0.0 or 0.0 depending on which came first; now the
    # fitted state is the same, bit for bit, for every order of the rows.
    rng = np.random.default_rng(22)
    s = np.array([-0.0, 0.0, -0.0, 0.5, -0.5, 0.0, 1.0, -1.0])
    y = np.array([0, 1, 1, 0, 0, 1, 1, 0])
    w = np.array([1.0, 2.0, 1.0, 1.0, 3.0, 1.0, 2.0, 1.0])
    states = []
    for trial in range(6):
        perm = rng.permutation(s.shape[0]) if trial else np.arange(s.shape[0])
        for weights in (None, w[perm]):
            cal = make(method)
            kwargs = {"folds": np.arange(8)[perm] % 2} if method == "cvap" else {}
            cal.fit(s[perm], y[perm], weights, **kwargs)
            states.append((weights is None, _state_bits(cal)))
    for unweighted in (True, False):
        bits = [b for u, b in states if u == unweighted]
        assert all(b == bits[0] for b in bits[1:]), method


def _state_bits(cal):
    out = []
    for name in cal._state:
        value = getattr(cal, name)
        if isinstance(value, list):
            out.extend(_state_bits(c) for c in value)
        else:
            arr = np.asarray(value)
            out.append((name, arr.dtype.str, arr.tobytes()))
    return out


def test_every_registered_calibrator_is_fuzzed():
    assert set(METHODS) >= {"ivap", "cvap", "platt", "isotonic", "histogram", "bbq", "enir"}
    for method in METHODS:
        assert clone(make(method)).get_params()["classes"] == [0, 1]


# ------------------------------------------- IVAP tables at the edges of floating point

# Weights that break sums in float64: subnormal, tiny, whole numbers near and
# past 2**53 (where the test observation's 1 is below the last place), huge,
# next to ordinary ones.
TABLE_WEIGHTS = [
    1e-310, 1e-300, 2.0**-60, 0.1, 0.5, 1.0, 3.0, 2.0**52 + 1, 2.0**53 - 1, 2.0**53,
    2.0**53 + 2, 1e17 + 8, 12345.678e10, 1e300, 1e308,
]


@st.composite
def edge_summaries(draw, max_size=6, weights=TABLE_WEIGHTS):
    k = draw(st.integers(1, max_size))
    w = draw(st.lists(st.sampled_from(weights), min_size=k, max_size=k))
    # Positive fractions that are exact for normal weights; for subnormal
    # ones the product rounds, and the reference takes the rounded value.
    frac = draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=k, max_size=k))
    return f64(w), f64([wi * fi for wi, fi in zip(w, frac, strict=True)])


def check_tables_exactly(w, a):
    """Compare the tables with the definition in exact rationals; check the proven order."""
    F0, F1 = ivap_tables(w, a)
    s = np.arange(w.shape[0], dtype=F64)
    e0, e1 = ivap_from_summary(s, w, a, s, exact=True)
    assert np.all(F0 >= 0.0) and np.all(F1 <= 1.0) and np.all(F0 <= F1)
    assert np.all(np.diff(F0) >= 0) and np.all(np.diff(F1) >= 0)
    integral = np.all(w == np.floor(w)) and np.all(a == np.floor(a)) and sum(map(Fraction, w.tolist())) < 2**52
    # Exact integers and the exact path: correctly rounded; double-double: 2 ulps.
    assert_within_ulps(F0, e0, 0 if integral else 2)
    assert_within_ulps(F1, e1, 0 if integral else 2)
    return F0, F1


@given(edge_summaries())
def test_ivap_tables_exact_at_the_edges_of_floating_point(data):
    # Issue 22, item 3: [1e308] * 4 gave NaN, 1e-300 beside 1e300 gave p0 > p1,
    # whole numbers near 2**53 gave p0 off by 0.5.
    check_tables_exactly(*data)


@pytest.mark.parametrize(
    ("w", "a"),
    [
        ([1e308] * 4, [0.0, 1e308, 0.0, 1e308]),
        ([1e-300, 1e300, 1e-300, 1e300], [0.0, 0.0, 1e-300, 1e300]),
        ([2.0**53 - 10, 2.0**53 - 15, 2.0**53 - 19], [0.0, 3002399751580325.0, 0.0]),
        ([9007199254740991.0, 1.0], [9007199254740991.0, 0.5]),
        ([1e-310, 9007199254740991.0], [1e-310, 4503599627370495.5]),
        ([3.0, 1e308], [0.0, 1e308]),
    ],
)
def test_ivap_tables_edge_regressions(w, a):
    check_tables_exactly(f64(w), f64(a))


@given(edge_summaries(max_size=12, weights=[2.0**53 - 1, 2.0**53 - 5, 2.0**52 + 3, 1.0, 3.0]))
def test_ivap_tables_whole_numbers_near_2_53(data):
    # Cumulative sums past 2**53 in double-double; the test observation's 1 is
    # below the last place of a double, so only exact turns get the corners right.
    check_tables_exactly(*data)


def test_exact_ivap_tables_equal_the_kernel_on_exact_inputs():
    rng = np.random.default_rng(7)
    for k in (1, 2, 10, 200):
        w = rng.integers(1, 6, k).astype(F64)
        a = np.floor(w * rng.random(k))
        for got, ref in zip(exact_ivap_tables(w, a), ivap_tables(w, a), strict=True):
            assert_array_equal(got, ref)


@pytest.mark.parametrize("seed", range(3))
def test_ivap_tables_exact_path_matches_definition(seed):
    # Weights over 600 orders of magnitude: the exact rational path, checked
    # against the definition on a few dozen scores.
    rng = np.random.default_rng(seed)
    k = 30
    w = 10.0 ** rng.uniform(-300, 300, k)
    a = np.where(rng.random(k) < 0.5, w, 0.0)
    check_tables_exactly(w, a)


# ------------------------------------------- exact sums of whole-number weights


def _summary_bits(summary):
    return tuple(arr.tobytes() for arr in (summary.scores, summary.weights,
                                           summary.positive_weights))


@pytest.mark.parametrize("seed", range(4))
def test_summaries_of_random_partitions_merge_bit_for_bit(seed):
    # Issue 22: weights near 2**53 summed past 2**53 rounded differently in a
    # merge of partial summaries (Dask) than in one pass; now every partition
    # and every merge order gives the correctly rounded exact sums.
    from venncal import ScoreSummary, VennAbersCalibrator

    rng = np.random.default_rng(seed)
    n = 300
    s = rng.integers(0, 12, n) / 4.0
    y = rng.random(n) < 0.4
    w = 2.0**53 - rng.integers(0, 64, n).astype(F64)
    w[rng.random(n) < 0.2] = rng.integers(1, 9, int((rng.random(n) < 0.2).sum()) or 1)[0]
    whole = ScoreSummary.from_arrays(s, y, w)
    exact_s, exact_w, exact_a = summary_by_definition(s, y, w)
    assert _summary_bits(whole) == (exact_s.tobytes(), exact_w.tobytes(), exact_a.tobytes())
    fit = VennAbersCalibrator().fit_summary(whole)
    for _ in range(8):
        perm = rng.permutation(n)
        cuts = np.sort(rng.choice(np.arange(1, n), rng.integers(1, 6), replace=False))
        parts = [ScoreSummary.from_arrays(s[p], y[p], w[p]) for p in np.split(perm, cuts)]
        while len(parts) > 1:  # merge random pairs, in random order
            i, j = rng.choice(len(parts), 2, replace=False)
            merged = parts[i].merge(parts[j])
            parts = [p for k, p in enumerate(parts) if k not in (i, j)] + [merged]
        assert _summary_bits(parts[0]) == _summary_bits(whole)
        again = VennAbersCalibrator().fit_summary(parts[0])
        for name in ("p0_", "p1_", "n_negative_", "n_positive_"):
            assert np.asarray(getattr(again, name)).tobytes() == np.asarray(
                getattr(fit, name)).tobytes()


def test_summary_sums_are_exact_past_2_53():
    from venncal import ScoreSummary

    # 2**53 + 1 + 1: one pass of float additions gives 2**53 (each + 1 rounds
    # back); the exact sum 2**53 + 2 is a double.
    one_pass = ScoreSummary.from_arrays([0.5, 0.5, 0.5], [0, 1, 1], [2.0**53, 1.0, 1.0])
    assert one_pass.weights[0] == 2.0**53 + 2
    merged = ScoreSummary.from_arrays([0.5], [0], [2.0**53]).merge(
        ScoreSummary.from_arrays([0.5], [1], [1.0])).merge(
        ScoreSummary.from_arrays([0.5], [1], [1.0]))
    assert merged.weights[0] == 2.0**53 + 2 and merged.positive_weights[0] == 2.0
    labelled = ScoreSummary.from_arrays([0.5, 0.5], [0, 0], [2.0**53, 1.0])._of_one_label(True)
    assert labelled.merge(ScoreSummary.from_arrays([0.5], [1], [1.0])).weights[0] == 2.0**53 + 2


def test_summary_refuses_sums_past_float64_and_rounds_the_others_once():
    from venncal import ScoreSummary

    # Whole numbers past two doubles (1e300 + 1e150 + 1, 1e300 + 2**53 + 2 reached through
    # 1e300 + 1): refused in some orders before (issue 22); now the exact sums, rounded once
    # (tests/test_summary_row_order.py)
    with pytest.raises(ValueError, match="sample_weight: the weights .* score 0.0 sum to more"):
        ScoreSummary.from_arrays([0.0, 0.0], [0, 1], [1e308, 1e308])
    big = ScoreSummary.from_arrays([1.0], [0], [1e308])
    with pytest.raises(ValueError, match="sum to more than the largest float64"):
        big.merge(big)
    # Fractional weights past two doubles: the exact sum, correctly rounded (slow test's
    # case: 5 x 1e-310 + 1 + 1 + (2**53 - 1) is 2**53 + 2, not the tie's even 2**53).
    ScoreSummary.from_arrays([0.0, 0.0, 0.0], [0, 1, 1], [1e300, 1e150, 0.1])
    tie = ScoreSummary.from_arrays([0.0] * 8, [0] * 8, [1e-310] * 5 + [1.0, 1.0, 2.0**53 - 1])
    assert tie.weights[0] == 2.0**53 + 2


@given(edge_data(max_size=12), st.randoms(use_true_random=False))
def test_summary_does_not_depend_on_row_order(data, rnd):
    from venncal import ScoreSummary

    s, y, w = data
    try:
        a = ScoreSummary.from_arrays(s, y, w)
    except ValueError as exc:  # sums past what can be kept: refused whatever the order
        assert "sample_weight" in str(exc)
        return
    perm = list(range(s.shape[0]))
    rnd.shuffle(perm)
    b = ScoreSummary.from_arrays(s[perm], y[perm], None if w is None else w[perm])
    assert _summary_bits(a) == _summary_bits(b)
    assert not (np.signbit(a.scores) & (a.scores == 0)).any()  # -0.0 is stored as 0.0


def test_quantized_isotonic_with_weights_1e308():
    # Scores 0.2 (label 1) and 0.35 (label 0) pool to 1/2: the nearest level.
    levels = np.linspace(0.0, 1.0, 11)
    cal = method_class("quantized-isotonic")(levels=levels, classes=[0, 1])
    cal.fit([0.1, 0.2, 0.35, 0.8], [0, 1, 0, 1], np.full(4, 1e308))
    assert cal.predict_proba([0.2])[0, 1] == 0.5


def test_merge_judges_whole_numbers_by_what_was_added():
    # a fresh attack (issue 22): 1e-209 beside 1e247, merged with 1.0, was refused as
    # "whole-number weights" in some orders and not in others; from_arrays accepted it
    import itertools

    from venncal import ScoreSummary

    rows = [([2.0, 2.0], [1, 1], [1e-209, 1e247]), ([2.0], [1], [1.0]), ([2.0], [0], [3.5])]
    whole = ScoreSummary.from_arrays([2.0] * 4, [1, 1, 1, 0], [1e-209, 1e247, 1.0, 3.5])
    for order in itertools.permutations(rows):
        merged = ScoreSummary.from_arrays(*order[0])
        for part in order[1:]:
            merged = merged.merge(ScoreSummary.from_arrays(*part))
        assert merged.weights.tolist() == whole.weights.tolist()
        assert merged.positive_weights.tolist() == whole.positive_weights.tolist()


def test_enir_tiny_weights_beside_a_heavy_score_fit_without_a_warning():
    # found by the slow profile: a NaN log-likelihood gain (inf - inf) warned before a
    # refusal ("too large for the models' BIC"); the refusal came from shares of 1e-310
    # beside 9e15 that underflowed to 0 (log-likelihood -inf).  Each bin's log-likelihood
    # is now taken from both classes' own weights (issue 22): the fit is the exact one.
    import warnings

    from reference.enir_naive import exact_bic, exact_values

    from venncal import ENIRCalibrator

    s = np.array([-0.0, -0.0, -0.0, -0.0, 1.0])
    y = np.array([0, 0, 0, 1, 0])
    w = np.array([1e-310, 1e-310, 9.00719925e15, 1e-310, 0.1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = ENIRCalibrator().fit(s, y, w)
    (bic,) = exact_bic(cal, s, y, w)
    assert cal.bic_.tolist() == pytest.approx([float(bic)], rel=1e-14, abs=0.0)
    values = exact_values(cal, s, y, w)
    assert cal.values_.tolist() == pytest.approx([float(v) for v in values], rel=1e-14, abs=0.0)


def test_platt_at_weights_whose_hessian_inverse_overflows():
    """A hypothesis example from a CI rehearsal: the precision check's inverse Hessian
    overflowed (RuntimeWarning under filterwarnings=error); such a Hessian is numerically
    singular, as a zero determinant is."""
    s = np.array([-1e308] * 5 + [-1.0, -0.0])
    y = np.array([0, 0, 0, 0, 0, 0, 1])
    w = np.array([1e-310] * 4 + [0.1, 1e300, 1e308])
    check_edges("platt", (s, y, w))
