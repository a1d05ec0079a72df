"""Quantile bins decided exactly (attack 17, F3; issue 22, "nothing silent").

The top rule puts distinct value ``j`` in bin ``ceil(K C_j / W) - 1``; the
rule is discontinuous, so a rounded cumulative weight on a split would move a
whole value, however heavy, to the other bin.  ``upper_mass_bins`` decides it
on the exact sums: checked against the rule in ``Fraction`` arithmetic, and
the ECE and MCE against the literal twin ``binned_errors`` of
``tests/reference``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference.multiclass_metrics_naive import binned_errors

from venncal import HistogramBinningCalibrator
from venncal import metrics as M
from venncal._binning import upper_mass_bins, upper_mass_bins_of_rows

DECIMAL_WEIGHTS = [0.1, 0.2, 0.3, 0.7, 1.1, 0.05, 1 / 3, 2 / 3, 0.6, 0.4]
EDGE_WEIGHTS = [1e-310, 5e-324, 2.0**-1022, 1e-300, 1.0, 3.0, 2.0**53, 1e300, 1e308,
                1.7976931348623157e308]
EDGE_P = [0.0, 5e-324, 1e-300, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1 - 2**-53, 1.0]


def exact_bins(weights, n_bins, *more):
    """The top rule in Fractions: ``ceil(K C_j / W) - 1`` of the exact cumulative weights."""
    exact = [sum((Fraction(float(x[j])) for x in (weights, *more)), Fraction(0))
             for j in range(len(weights))]
    total = sum(exact)
    run, out = Fraction(0), []
    for x in exact:
        run += x
        out.append(min(max(math.ceil(n_bins * run / total) - 1, 0), n_bins - 1))
    return out


weights_lists = st.lists(
    st.one_of(st.sampled_from(DECIMAL_WEIGHTS), st.sampled_from(EDGE_WEIGHTS),
              st.floats(1e-3, 1e3), st.integers(1, 9).map(float)),
    min_size=1, max_size=12,
)


@given(weights_lists, st.integers(1, 12))
def test_upper_mass_bins_follow_the_exact_rule(w, n_bins):
    w = np.array(w)
    assert upper_mass_bins(w, n_bins).tolist() == exact_bins(w, n_bins)


@given(st.lists(st.sampled_from(DECIMAL_WEIGHTS), min_size=1, max_size=10), st.integers(2, 10))
def test_decimal_weights_that_rounding_puts_on_a_split(w, n_bins):
    """The attack's 406 of 20,000 sets: sums such as 0.1 + 0.2 a rounding from a split."""
    w = np.array(w)
    assert upper_mass_bins(w, n_bins).tolist() == exact_bins(w, n_bins)


@given(weights_lists, st.integers(1, 8), st.data())
def test_upper_mass_bins_with_remainders(w, n_bins, data):
    """``weights + lo`` (a summary's rounded tie sums and their remainders) is binned exactly."""
    w = np.array(w)
    lo = np.array([data.draw(st.sampled_from([0.0, 0.5, -0.5, 0.25])) * math.ulp(x) for x in w])
    assert upper_mass_bins(w, n_bins, lo).tolist() == exact_bins(w, n_bins, lo)


@given(st.lists(st.integers(1, 2**20), min_size=1, max_size=40), st.integers(1, 30))
def test_integer_weights_keep_their_bins(w, n_bins):
    """Whole weights (``K W < 2**52``) were already exact: the same bins as before, bit for bit."""
    w = np.array(w, dtype=float)
    upto = np.cumsum(w)
    before = np.clip(np.ceil(upto * n_bins / upto[-1]).astype(np.intp) - 1, 0, n_bins - 1)
    assert upper_mass_bins(w, n_bins).tolist() == before.tolist()


@pytest.mark.parametrize("n_bins", [2, 3, 10, 1000])
def test_long_runs_near_a_split_are_searched_exactly(n_bins):
    """Many values within rounding of one split (a heavy weight then light ones): binary search."""
    w = np.r_[1e300, np.full(3000, 1.0), 1e300, np.full(500, 0.1), 1e300 * (n_bins - 2 + 0.5)]
    assert upper_mass_bins(w, n_bins).tolist() == exact_bins(w, n_bins)


def test_unit_weights_on_every_split():
    w = np.ones(1000)
    got = upper_mass_bins(w, 10)
    assert got.tolist() == exact_bins(w, 10)
    assert np.bincount(got).tolist() == [100] * 10


@given(st.lists(st.sampled_from(EDGE_WEIGHTS + DECIMAL_WEIGHTS), min_size=1, max_size=10),
       st.integers(1, 6))
def test_rows_in_integers_follow_the_exact_rule(w, n_bins):
    p = np.linspace(0.0, 1.0, len(w))[np.arange(len(w)) // 2]  # ties in pairs
    values, bins = upper_mass_bins_of_rows(p, np.array(w), n_bins)
    per_value = [sum(wi for pi, wi in zip(p, w, strict=True) if pi == v) for v in values]
    exact = [sum(Fraction(wi) for pi, wi in zip(p, w, strict=True) if pi == v) for v in values]
    assert values.tolist() == sorted(set(p.tolist()))
    run, total, want = Fraction(0), sum(exact), []
    for x in exact:
        run += x
        want.append(min(max(math.ceil(n_bins * run / total) - 1, 0), n_bins - 1))
    assert bins.tolist() == want, per_value


def test_attack_17_examples():
    """The two reproductions of attack 17, F3, against the reference twin."""
    rows = [(0.76, 1, 1e300), (0.948, 0, 1e300), (0.3, 1, 1.0)]
    got = M.ece([1, 0, 1], [0.76, 0.948, 0.3], n_bins=2, strategy="quantile",
                sample_weight=[1e300, 1e300, 1.0])
    assert got == pytest.approx(binned_errors([(p, y, Fraction(w)) for p, y, w in rows], 2,
                                              "quantile")[0], rel=1e-15)
    assert got == pytest.approx(0.354, rel=1e-12)  # 0.594 before: 0.76 belongs in the upper bin
    got = M.ece([0, 1, 0], [0.2, 0.4, 0.6], n_bins=2, strategy="quantile",
                sample_weight=[0.1, 0.2, 0.3])
    assert got == pytest.approx(2 / 15, rel=1e-14)  # 0.4667 before: 0.1 + 0.2 > 0.6 / 2


@st.composite
def weighted_forecasts(draw):
    n = draw(st.integers(1, 9))
    p = draw(st.lists(st.one_of(st.sampled_from(EDGE_P), st.floats(0, 1)), min_size=n,
                      max_size=n))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    w = draw(st.lists(st.sampled_from(EDGE_WEIGHTS + DECIMAL_WEIGHTS + [0.0]), min_size=n,
                      max_size=n))
    if not any(w):
        w[0] = 1.0
    return y, p, w


@given(weighted_forecasts(), st.sampled_from([1, 2, 3, 5, 10]))
def test_quantile_ece_mce_against_the_reference(data, n_bins):
    y, p, w = data
    rows = [(pi, yi, Fraction(wi)) for pi, yi, wi in zip(p, y, w, strict=True) if wi > 0]
    want_ece, want_mce = binned_errors(rows, n_bins, "quantile")
    got_ece = M.ece(y, p, n_bins=n_bins, strategy="quantile", sample_weight=w)
    got_mce = M.mce(y, p, n_bins=n_bins, strategy="quantile", sample_weight=w)
    # the bins are exact; the bin means are rounded sums, their gaps right to a few ulps of 1
    assert got_ece == pytest.approx(want_ece, rel=1e-12, abs=2.0**-49)
    assert got_mce == pytest.approx(want_mce, rel=1e-12, abs=2.0**-49)
    bins = M.calibration_bins(y, p, n_bins=n_bins, strategy="quantile", sample_weight=w)
    total = sum(r[2] for r in rows)
    run = {}
    for pi, _, wi in sorted(rows):
        run[pi] = run.get(pi, Fraction(0)) + wi
    upto = Fraction(0)
    for v in sorted(run):
        upto += run[v]
        want = min(max(math.ceil(n_bins * upto / total) - 1, 0), n_bins - 1)
        assert bins.ids[p.index(v)] == want, (v, want)


def test_weights_no_power_of_two_scales_exactly():
    """1e308 beside 1e-310: scaled to sum safely, the light weight would lose its bits."""
    y, p = [1, 0, 1, 0], [0.2, 0.3, 0.6, 0.8]
    w = [1e308, 1e-310 * 3, 1e308, 2.0**-1074]
    rows = [(pi, yi, Fraction(wi)) for pi, yi, wi in zip(p, y, w, strict=True)]
    for n_bins in (2, 3, 4):
        want = binned_errors(rows, n_bins, "quantile")
        assert M.mce(y, p, n_bins=n_bins, strategy="quantile", sample_weight=w) == pytest.approx(
            want[1], rel=1e-12)


@pytest.mark.parametrize("n_bins", [2, 3, 5])
def test_ties_whose_sums_two_doubles_do_not_hold(n_bins):
    """Tied weights 2**200 apart (the summary keeps them as fractions): binned from the rows."""
    y = [1, 0, 1, 0, 1, 0]
    p = [0.2, 0.2, 0.2, 0.5, 0.5, 0.9]
    w = [2.0**200, 1.0, 2.0**-200, 2.0**199, 2.0**-300, 2.0**200]
    rows = [(pi, yi, Fraction(wi)) for pi, yi, wi in zip(p, y, w, strict=True)]
    want = binned_errors(rows, n_bins, "quantile")
    assert M.ece(y, p, n_bins=n_bins, strategy="quantile", sample_weight=w) == pytest.approx(
        want[0], rel=1e-12)
    assert M.mce(y, p, n_bins=n_bins, strategy="quantile", sample_weight=w) == pytest.approx(
        want[1], rel=1e-12)


@pytest.mark.parametrize("n_bins", [3, 6, 7])
@pytest.mark.parametrize(("lo", "hi"), [(-1e-320, 1.7976931348623157e308),
                                        (-1.7976931348623157e308, 5e-324)])
def test_equal_width_edges_near_the_largest_double_are_exact_and_quiet(lo, hi, n_bins):
    """Attack 45 F7: a span just below the largest double took linspace's path, whose k * step
    rounds past it (a raw RuntimeWarning, an error under -W error; the edges were right)."""
    from venncal._binning import equal_width_edges

    edges = equal_width_edges(lo, hi, n_bins)  # pytest turns any warning into an error
    assert edges[0] == lo and edges[-1] == hi and (np.diff(edges) > 0).all()
    width = (Fraction(hi) - Fraction(lo)) / n_bins
    for k, e in enumerate(edges):
        assert abs(Fraction(float(e)) - (Fraction(lo) + k * width)) <= abs(width) * Fraction(1, 2**50)


def test_equal_width_edges_by_halves_are_quiet_too():
    """Attack 46 F6: the half-width path's last edge (hi in reals) rounded past the largest
    double: a raw 'overflow encountered in add' (the edge was then set to hi)."""
    from venncal._binning import equal_width_edges

    top = float(np.finfo(float).max)
    for lo, n_bins in ((1e308, 2), (9.9186e307, 5), (-top, 3)):
        edges = equal_width_edges(lo, top, n_bins)
        assert edges[0] == lo and edges[-1] == top and (np.diff(edges) > 0).all()


def exact_middle_bins(weights, n_bins):
    """The middle rule of equal_mass_cuts in Fractions: #{b in 1..B-1 : b W / B <= C_j - w_j / 2}."""
    exact = [Fraction(float(x)) for x in weights]
    total, run, out = sum(exact), Fraction(0), []
    for x in exact:
        run += x
        out.append(sum(1 for b in range(1, n_bins) if b * total / n_bins <= run - x / 2))
    return out


def _middle_bins(weights, n_bins):
    """equal_mass_cuts's bins, numbered as the rule numbers them (empty bins dropped: ranks)."""
    from venncal._binning import equal_mass_cuts

    cuts, _, _ = equal_mass_cuts(np.array(weights), np.array([n_bins], dtype=np.int64))
    return np.searchsorted(cuts, np.arange(len(weights)), side="right").tolist()


def _ranks(bins):
    seen = {b: i for i, b in enumerate(dict.fromkeys(bins))}
    return [seen[b] for b in bins]


@given(st.one_of(weights_lists, st.lists(st.sampled_from(DECIMAL_WEIGHTS), min_size=1,
                                         max_size=10)), st.integers(1, 10))
def test_equal_mass_cuts_follow_the_exact_middle_rule(w, n_bins):
    """Attack 48 F4: a middle on (or within rounding of) a level went to either side: weights
    0.7, 0.6, 0.7 and 7, 6, 7 gave different histogram bins (18 of 3,000 decimal sets, 176 of
    2,000 with weights 1e-300..1e300); decided on the exact sums now."""
    assert _middle_bins(w, n_bins) == _ranks(exact_middle_bins(w, n_bins))


@pytest.mark.parametrize(("w", "want"), [([0.7, 0.6, 0.7], [1.0, 0.6 / 1.3, 0.6 / 1.3]),
                                         ([7.0, 6.0, 7.0], [1.0, 6 / 13, 6 / 13])])
def test_histogram_quantile_bins_of_decimal_and_whole_weights_agree(w, want):
    s, y = np.array([0.2, 0.3, 0.4]), np.array([1, 1, 0])
    got = HistogramBinningCalibrator(n_bins=2).fit(s, y, sample_weight=np.array(w))
    np.testing.assert_allclose(got.predict_proba(s)[:, 1], want, rtol=1e-15)
    s, y = np.array([0.0, 1.0, 2.0]), np.array([0, 1, 0])
    got = HistogramBinningCalibrator(n_bins=2).fit(s, y, sample_weight=np.array([0.2, 1e300, 0.3]))
    np.testing.assert_allclose(got.predict_proba(s)[:, 1], [1.0, 1.0, 0.0], rtol=1e-15)


@given(st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                 st.sampled_from([0.0, 0.1, -0.3, 5e-324, -1e-310, 1e308])),
       st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                 st.sampled_from([1.0, 0.7, 3.0, 1.7976931348623157e308])),
       st.integers(1, 40))
def test_equal_width_edges_are_correctly_rounded(a, b, n_bins):
    """Attack 48 F5: np.linspace's edges were an ulp off 16 % of the time (3 * 0.1 ->
    0.30000000000000004, past 3/10: a score there fell in the bin below)."""
    from venncal._binning import equal_width_edges

    if not a < b:
        return
    edges = equal_width_edges(a, b, n_bins)
    width = (Fraction(b) - Fraction(a)) / n_bins
    for k, e in enumerate(edges.tolist()):
        exact = Fraction(a) + k * width
        # the double nearest the exact edge: no double lies nearer
        for side in (math.inf, -math.inf):
            other = math.nextafter(e, side)
            if math.isfinite(other):
                assert abs(Fraction(e) - exact) <= abs(Fraction(other) - exact)


def test_uniform_histogram_bins_use_exact_edges():
    s, y = np.array([0.0, 0.1, 0.2, 0.30000000000000004, 0.5, 1.0]), np.array([0, 0, 0, 1, 1, 1])
    cal = HistogramBinningCalibrator(n_bins=10, strategy="uniform").fit(s, y)
    assert cal.bin_edges_[3] == 0.3
    assert cal.predict_proba(np.array([0.25]))[:, 1].tolist() == [0.0]
