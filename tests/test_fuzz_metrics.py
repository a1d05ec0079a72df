"""Weighted metrics at the edges of floating point (issue 22, item 7).

Every weighted metric is a weighted mean (or a ratio of weighted sums), so it
is right for any finite non-negative weights: checked against exact
``fractions.Fraction`` references and against the unweighted metric on
repeated rows, with weights of 1e-310, 1e-300, 1e308, whole numbers near
2**53 and mixtures, and forecasts of 0, 1e-310, 1 - 2**-53 and 1.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venncal.metrics import (
    accuracy,
    brier_loss,
    ece,
    evaluate,
    interval_width,
    log_loss,
    mce,
    rmse,
    roc_auc,
)

EDGE_WEIGHTS = [0.0, 1e-310, 1e-300, 0.25, 1.0, 3.0, 2.0**53 - 1, 2.0**53, 1e17, 1e300, 1e308]
EDGE_P = [0.0, 1e-310, 1e-300, 0.1, 0.25, 0.5, 0.7, 1.0 - 2**-53, 1.0]
# Ratios of exact sums, computed from floats rounded once per term: a few
# ulps of the answer, plus the share of weights below 2**-1022 of the
# largest (which the scaled sums may drop).  Products of such shares with the
# forecasts they carry (down to 1e-310) can be lost to underflow: a metric is an
# absolute quantity (a mean loss, a gap of probabilities), and its answer is right to
# 1e-250 absolute (the binned errors fall back to the exact shares where a product
# underflows: test_issue_22_ece_of_a_subnormal_bin_weight).
RTOL = 1e-12
ATOL = 1e-250
# The binned errors subtract two rounded bin means (of p and of y) near 1:
# their gaps are exact to a few ulps of 1, not of themselves.
BIN_ATOL = 2.0**-49


def close(got, exact, rtol=RTOL, atol=ATOL):
    exact = float(exact)
    assert abs(got - exact) <= rtol * abs(exact) + atol, (got, exact)


@st.composite
def weighted_forecasts(draw, max_size=12):
    n = draw(st.integers(1, max_size))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    p = draw(st.lists(st.one_of(st.sampled_from(EDGE_P), st.floats(0, 1)), min_size=n,
                      max_size=n))
    w = draw(st.lists(st.sampled_from(EDGE_WEIGHTS), min_size=n, max_size=n))
    if not any(w):
        w[draw(st.integers(0, n - 1))] = draw(st.sampled_from(EDGE_WEIGHTS[1:]))
    return np.array(y), np.array(p, dtype=np.float64), np.array(w, dtype=np.float64)


def exact_mean(values, w):
    """Exact weighted mean of float (or Fraction) values: sum(w v) / sum(w)."""
    num = sum((Fraction(wi) * Fraction(v) for wi, v in zip(w.tolist(), values, strict=True)),
              Fraction(0))
    return num / sum(map(Fraction, w.tolist()), Fraction(0))


def nll(yi, pi):
    p_true = pi if yi else 1.0 - pi
    return math.inf if p_true == 0.0 else (-math.log(pi) if yi else -math.log1p(-pi))


@given(weighted_forecasts())
def test_weighted_losses_against_exact_fractions(data):
    y, p, w = data
    pos = w > 0
    losses = [nll(yi, pi) for yi, pi in zip(y.tolist(), p.tolist(), strict=True)]
    got = log_loss(y, p, sample_weight=w)
    if any(math.isinf(v) for v, keep in zip(losses, pos, strict=True) if keep):
        assert got == math.inf
    else:
        kept = [v if keep else 0.0 for v, keep in zip(losses, pos, strict=True)]
        close(got, exact_mean(kept, w))
    sq = [(Fraction(int(yi)) - Fraction(pi)) ** 2 for yi, pi in zip(y.tolist(), p.tolist(),
                                                                   strict=True)]
    close(brier_loss(y, p, sample_weight=w), exact_mean(sq, w))
    close(rmse(y, p, sample_weight=w) ** 2, exact_mean(sq, w), rtol=4 * RTOL)
    hits = [Fraction(int((pi > 0.5) == bool(yi))) for yi, pi in zip(y.tolist(), p.tolist(),
                                                                     strict=True)]
    close(accuracy(y, p, sample_weight=w), exact_mean(hits, w))
    close(interval_width(p / 2, p, sample_weight=w), exact_mean((p - p / 2).tolist(), w))


@given(weighted_forecasts())
def test_weighted_auc_against_exact_fractions(data):
    y, p, w = data
    wp = [Fraction(v) for v in w[y == 1].tolist()]
    wn = [Fraction(v) for v in w[y == 0].tolist()]
    if not (sum(wp) > 0 and sum(wn) > 0):
        with pytest.raises(ValueError, match="both classes"):
            roc_auc(y, p, sample_weight=w)
        assert math.isnan(evaluate(y, p, sample_weight=w)["auc"])
        return
    pp, pn = p[y == 1].tolist(), p[y == 0].tolist()
    u = sum(
        (a * b * (1 if x > z else Fraction(1, 2) if x == z else 0)
         for a, x in zip(wp, pp, strict=True) for b, z in zip(wn, pn, strict=True)),
        Fraction(0),
    )
    exact = u / (sum(wp) * sum(wn))
    close(roc_auc(y, p, sample_weight=w), exact)
    close(evaluate(y, p, sample_weight=w)["auc"], exact)


@given(weighted_forecasts(), st.sampled_from([1, 2, 5, 10]))
def test_weighted_uniform_ece_mce_against_exact_fractions(data, n_bins):
    y, p, w = data
    edges = np.arange(n_bins + 1) / n_bins
    ids = np.searchsorted(edges[1:-1], p, side="right")
    total = sum(map(Fraction, w.tolist()), Fraction(0))
    exact_ece, gaps = Fraction(0), []
    for b in range(n_bins):
        rows = (ids == b) & (w > 0)
        if not rows.any():
            continue
        wb = [Fraction(v) for v in w[rows].tolist()]
        size = sum(wb, Fraction(0))
        mean_p = sum((a * Fraction(v) for a, v in zip(wb, p[rows].tolist(), strict=True)),
                     Fraction(0)) / size
        frac = sum((a for a, v in zip(wb, y[rows].tolist(), strict=True) if v),
                   Fraction(0)) / size
        exact_ece += size / total * abs(frac - mean_p)
        gaps.append(abs(frac - mean_p))
    close(ece(y, p, n_bins=n_bins, sample_weight=w), exact_ece, atol=BIN_ATOL)
    close(mce(y, p, n_bins=n_bins, sample_weight=w), max(gaps), atol=BIN_ATOL)


@given(weighted_forecasts(), st.sampled_from([1e-310, 1e-300, 1.0, 2.0**60, 1e300, 1e308]))
def test_weighted_metrics_do_not_depend_on_the_scale(data, factor):
    # Scaling every weight by a power of two (exact) changes no metric, and a
    # huge common factor changes none beyond a few ulps.
    y, p, w = data
    w = np.ldexp(w, -math.frexp(float(w.max()))[1])  # largest in [0.5, 1)
    base = evaluate(y, p, sample_weight=w).to_dict()
    with np.errstate(over="ignore", under="ignore"):
        scaled = w * factor
    if not (scaled[w > 0] >= np.finfo(np.float64).tiny).all():
        return  # a weight became subnormal (rounded to fewer bits): another data set
    got = evaluate(y, p, sample_weight=scaled).to_dict()
    for name, value in base.items():
        if math.isnan(value) or math.isinf(value):
            assert str(got[name]) == str(value), name
        else:
            atol = BIN_ATOL if name in ("ece", "mce") else ATOL
            assert abs(got[name] - value) <= 1e-12 * abs(value) + atol, (name, got[name], value)


@given(st.lists(st.tuples(st.integers(0, 1), st.sampled_from(EDGE_P), st.integers(0, 3)),
                min_size=1, max_size=10))
def test_integer_weights_equal_repeated_rows(rows):
    y = np.array([r[0] for r in rows])
    p = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows], dtype=np.float64)
    if not w.any():
        return
    reps = w.astype(np.intp)
    weighted = evaluate(y, p, sample_weight=w, strategy="quantile", n_bins=3).to_dict()
    repeated = evaluate(np.repeat(y, reps), np.repeat(p, reps), strategy="quantile",
                        n_bins=3).to_dict()
    for name, value in repeated.items():
        if math.isnan(value) or math.isinf(value):
            assert str(weighted[name]) == str(value), name
        else:
            atol = BIN_ATOL if name in ("ece", "mce") else 1e-15
            assert abs(weighted[name] - value) <= 1e-12 * abs(value) + atol, name


def test_issue_22_a_weight_of_1e308():
    # One weight of 1e308 among ordinary ones gave log loss inf, AUC nan and
    # accuracy 0: the metrics are those of that one row, to rounding.
    y = np.array([0, 1, 1, 0, 1])
    p = np.array([0.2, 0.7, 0.9, 0.4, 0.6])
    w = np.array([1.0, 1.0, 1e308, 1.0, 1.0])
    ev = evaluate(y, p, sample_weight=w)
    assert ev["log_loss"] == pytest.approx(-math.log(0.9), rel=1e-12, abs=0.0)
    assert ev["accuracy"] == 1.0
    assert ev["auc"] == 1.0
    assert ev["brier"] == pytest.approx(0.01, rel=1e-12, abs=0.0)
    assert ev["ece"] == pytest.approx(0.1, rel=1e-12, abs=0.0)
    several = evaluate(y, p, sample_weight=np.full(5, 1e308))
    plain = evaluate(y, p)
    for name, value in plain.items():
        assert several[name] == pytest.approx(value, rel=1e-12, abs=0.0), name
    assert np.isinf(several.bins.weight[several.bins.nonempty]).sum() == 0  # 2e308 > max


@pytest.mark.slow
@settings(max_examples=1000)
@given(weighted_forecasts(max_size=20), st.sampled_from([1, 3, 10]))
def test_weighted_metrics_thorough(data, n_bins):
    test_weighted_losses_against_exact_fractions.hypothesis.inner_test(data)
    test_weighted_auc_against_exact_fractions.hypothesis.inner_test(data)
    test_weighted_uniform_ece_mce_against_exact_fractions.hypothesis.inner_test(data, n_bins)


def test_issue_22_ece_of_a_subnormal_bin_weight():
    # weight 1e-310 times the gap 2**-53 underflows to 0 although the ECE, about
    # 1.1e-285 (the bin's share 1e-269 times its gap), is a normal double
    got = ece([0, 1], [0.0, 1.0 - 2**-53], sample_weight=[1e-41, 1e-310])
    assert 1e-286 < got < 1e-284


def test_issue_22_ece_of_bins_whose_weight_overflows():
    # two weights of 1e308 in one bin: the bin's weight is inf, the exact shares
    # give the answer (the underflow check must not multiply inf by a gap of 0)
    import warnings

    from venncal.metrics import top_label_ece

    y = np.array([0, 0, 0, 0, 0, 0, 1, 1, 0])
    proba = np.tile([0.0, 1.0], (9, 1))
    w = np.array([0, 0, 0, 0, 0, 0, 1e308, 1e308, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert top_label_ece(y, proba, classes=[0, 1], n_bins=1, sample_weight=w) == 0.0
        assert ece(y, proba[:, 1], n_bins=1, sample_weight=w) == 0.0
