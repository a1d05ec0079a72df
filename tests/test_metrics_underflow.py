"""Squared errors scaled before they are squared (attack 17, F4; issue 22).

``rmse([0], [1e-300])`` was 0 and ``rmse([0], [1.2345e-160])`` kept four
digits: the squares underflowed.  The errors are now divided by a power of
two at or above the largest before they are squared, and the mean scaled
back with one rounding: checked against ``Fraction`` references.
"""

from __future__ import annotations

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference.multiclass_metrics_naive import brier as ref_multiclass_brier

from venncal.metrics import (
    bootstrap_intervals,
    brier_loss,
    evaluate,
    evaluate_multiclass,
    multiclass_brier_loss,
    rmse,
)

getcontext().prec = 80
EDGE_P = [0.0, 1.0, 1e-300, 1e-160, 1.2345e-160, 5e-324, 2.0**-1022, 1 - 2**-53, 2**-53, 0.5,
          0.3, 1e-155]
EDGE_W = [1.0, 3.0, 0.1, 1e-300, 1e300, 1e308, 2.0**53, 1e-310, 5e-324, 1.7976931348623157e308]


def exact_mean_square(y, p, w):
    rows = [(Fraction(wi), (Fraction(yi) - Fraction(pi)) ** 2)
            for yi, pi, wi in zip(y, p, w, strict=True) if wi > 0]
    return sum(a * b for a, b in rows) / sum(a for a, _ in rows)


def within(got: float, exact: Fraction, n_ulps: float) -> bool:
    """``n_ulps`` of the exact value (subnormal ulps below ``2**-1022``)."""
    unit = Fraction(math.ulp(float(exact)) if exact else 2.0**-1074)
    return abs(Fraction(got) - exact) <= n_ulps * unit


def ulps(got: float, exact: Fraction) -> float:
    """Distance in units of the last place of the exact value (subnormal ulps below 2**-1022)."""
    unit = math.ulp(float(exact)) if exact else 2.0**-1074
    return float(abs(Fraction(got) - exact) / Fraction(unit))


@st.composite
def forecasts(draw, weighted=True):
    n = draw(st.integers(1, 8))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    p = draw(st.lists(st.one_of(st.sampled_from(EDGE_P), st.floats(0, 1)), min_size=n,
                      max_size=n))
    # forecasts near their labels: errors of 1e-300 and 5e-324 are what underflowed
    p = [1.0 - pi if yi and pi < 2**-40 and draw(st.booleans()) else pi
         for yi, pi in zip(y, p, strict=True)]
    w = (draw(st.lists(st.sampled_from(EDGE_W), min_size=n, max_size=n)) if weighted
         else [1.0] * n)
    return y, p, w


@given(forecasts(weighted=False))
def test_brier_and_rmse_against_fractions(data):
    y, p, _ = data
    exact = exact_mean_square(y, p, [1.0] * len(y))
    # (y - p) is rounded once (1 - p), then squared: a few ulps, also for tiny errors
    assert ulps(brier_loss(y, p), exact) <= 4
    root = Decimal(exact.numerator) / Decimal(exact.denominator)
    root = Fraction(root.sqrt()) if exact else Fraction(0)
    assert ulps(rmse(y, p), root) <= 2


@given(forecasts())
def test_weighted_brier_and_rmse_against_fractions(data):
    y, p, w = data
    exact = exact_mean_square(y, p, w)
    assert within(brier_loss(y, p, sample_weight=w), exact, 4)
    assert within(evaluate(y, p, sample_weight=w)["brier"], exact, 4)
    root = Decimal(exact.numerator) / Decimal(exact.denominator)
    assert within(rmse(y, p, sample_weight=w), Fraction(root.sqrt()) if exact else Fraction(0), 2)


@pytest.mark.parametrize(
    ("p", "want"),
    [(1e-300, 1e-300), (1.2345e-160, 1.2345e-160), (1e-155, 1e-155), (5e-324, 5e-324),
     (2.0**-1022, 2.0**-1022)],
)
def test_attack_17_reproductions(p, want):
    assert rmse([0], [p]) == want
    assert rmse([1], [1 - p]) == math.sqrt((1 - (1 - p)) ** 2)  # 1 - p rounds: its own error
    assert brier_loss([0, 0], [p, 0.0]) == float(Fraction(p) ** 2 / 2)


def test_evaluate_reports_the_tiny_errors():
    """evaluate([0, 1], [1e-170, 1.0]) printed brier and rmse 0 next to log_loss 5e-171."""
    ev = evaluate([0, 1], [1e-170, 1.0])
    root = (Decimal(1e-170) ** 2 / 2).sqrt()
    assert ulps(ev["rmse"], Fraction(root)) <= 1
    assert ev["brier"] == 0.0  # 5e-341: below the smallest float, rounded once to 0
    ev = evaluate([0, 1], [1e-160, 1.0])
    assert ev["brier"] == float(Fraction(1e-160) ** 2 / 2)


def test_ordinary_inputs_keep_their_bits():
    """A largest error in (0.5, 1] is not scaled; smaller ones by powers of two (exact)."""
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(1, 30))
        y = rng.integers(0, 2, n)
        p = rng.random(n) * float(rng.choice([1.0, 0.3, 1e-3]))
        w = rng.random(n)
        for weights in (None, w):
            old = float(np.mean((y - p) ** 2)) if weights is None else float(
                np.dot(np.ldexp(w, -math.frexp(w.max())[1]), (y - p) ** 2)
                / np.sum(np.ldexp(w, -math.frexp(w.max())[1])))
            assert brier_loss(y, p, sample_weight=weights) == old
            assert brier_loss(y, p, scale=4, sample_weight=weights) == 4 * old
            assert rmse(y, p, sample_weight=weights) == math.sqrt(old)


@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(EDGE_P), st.sampled_from(EDGE_P)),
                min_size=1, max_size=6), st.lists(st.sampled_from(EDGE_W), min_size=6,
                                                  max_size=6))
def test_multiclass_brier_against_the_twin(rows, w):
    y, proba = [], []
    for k, a, b in rows:
        row = [a, b * (1 - a), 0.0]
        row[2] = 1.0 - row[0] - row[1]
        if row[2] < 0:
            row = [a, 0.0, 1.0 - a]
        y.append(k)
        proba.append(row)
    w = w[:len(y)]
    want = Fraction(ref_multiclass_brier(y, proba, [0, 1, 2], w))
    got = multiclass_brier_loss(y, proba, classes=[0, 1, 2], sample_weight=w)
    exact = sum(Fraction(wi) * sum((Fraction(int(j == k)) - Fraction(pj)) ** 2
                                  for j, pj in enumerate(row))
                for k, row, wi in zip(y, proba, w, strict=True)) / sum(map(Fraction, w))
    assert within(got, exact, 8), (got, float(want))
    assert within(evaluate_multiclass(y, proba, classes=[0, 1, 2], sample_weight=w)["brier"],
                  exact, 8)


def test_multiclass_errors_of_1e_160():
    proba = [[1e-160, 1.0], [0.0, 1.0]]
    got = multiclass_brier_loss([1, 1], proba, classes=[0, 1])
    assert got == float(Fraction(1e-160) ** 2 / 2)  # 1 - 1e-160 is 1: one error per row


def test_bootstrap_brier_of_tiny_errors():
    y, p = [0, 0, 0, 0], [1e-160, 2e-160, 1e-160, 3e-160]
    low, high = bootstrap_intervals(y, p, metrics=["brier"], n_boot=200)["brier"]
    assert 1e-320 <= low <= high <= 9e-320
    assert low > 0.0


@pytest.mark.filterwarnings("ignore::venncal.WeightScaleWarning")  # weights of 0
def test_bootstrap_rows_of_weight_zero_count_nowhere():
    # A row of weight 0 set the scale of the bootstrap's Brier (and Spiegelhalter) columns:
    # with an error of 1 beside errors near 1e-158 the others' squares were left subnormal
    # and the interval changed in its last digits (Spiegelhalter's near 1e-310 forecasts too).
    from venncal.metrics import bootstrap_intervals_multiclass

    n = 30
    y = np.r_[np.zeros(n - 1, int), 1]
    for tiny, metric in ((1e-157, "brier"), (9e-310, "spiegelhalter_z")):
        rng = np.random.default_rng(0)
        p = np.r_[rng.uniform(1e-3, 1.0, n - 1) * tiny, 1.0]
        w = np.r_[rng.uniform(0.3, 3.0, n - 1), 0.0]
        binary, multiclass = set(), set()
        for last in (1.0, 0.0, 1e-300, 0.5):  # the weightless row's error: 0, 1, 1, 0.5
            p[-1] = last
            binary.add(bootstrap_intervals(y, p, metrics=[metric], sample_weight=w,
                                           n_boot=1000, confidence=0.5)[metric])
            if metric == "brier":
                proba = np.c_[1 - p, p, np.zeros(n)]
                multiclass.add(bootstrap_intervals_multiclass(
                    y, proba, metrics=["brier"], classes=[0, 1, 2], sample_weight=w,
                    n_boot=1000, confidence=0.5)["brier"])
        assert len(binary) == 1 and len(multiclass) <= 1, (metric, binary, multiclass)


@pytest.mark.parametrize(
    ("y", "p", "w"),
    [  # attack 17's fuzz (t6.py): light rows of large error beside a heavy one of tiny error
        ([1, 0, 1, 1, 0], [1.0, 0.907, 5e-324, 1 - 2**-53, 5e-324], [3.0, 1e-300, 1e-300, 1e-300,
                                                                     1e300]),
        ([1, 0, 0, 1], [0.2, 5e-324, 1.0, 2**-53], [1e-310, 1e300, 5e-324, 1e-300]),
        ([1, 0], [1.0, 0.5], [1.0, 1e-310]),
        ([0, 0, 0], [5e-324, 1.5e-323, 0.3], [1e-300, 3.0, 5e-324]),
    ],
)
def test_weights_spanning_the_float_range(y, p, w):
    exact = exact_mean_square(y, p, w)
    root = Decimal(exact.numerator) / Decimal(exact.denominator)
    assert within(rmse(y, p, sample_weight=w), Fraction(root.sqrt()), 2)
    assert within(brier_loss(y, p, sample_weight=w), exact, 4)


def test_rows_of_no_weight_or_tiny_weight_do_not_set_the_scale():
    """A row of weight 0 (or one lost beside 1.8e308) with a large error must not scale the rest."""
    assert brier_loss([0, 0], [1.5e-323, 0.8354], sample_weight=[5e-324, 0.0]) == 0.0
    assert rmse([0, 0], [1.5e-323, 0.8354], sample_weight=[5e-324, 0.0]) == 1.5e-323
    assert rmse([0, 1], [1e-300, 0.05], sample_weight=[1.7976931348623157e308, 5e-324]) == 1e-300


def test_a_heavy_tiny_error_beside_a_light_large_one():
    """Squares that would underflow are summed by exponent when they can matter."""
    y, p, w = [0, 1], [1e-300, 0.5], [1.0, 2.0**-1060]
    exact = exact_mean_square(y, p, w)
    assert ulps(brier_loss(y, p, sample_weight=w), exact) <= 4
    root = Decimal(exact.numerator) / Decimal(exact.denominator)
    assert ulps(rmse(y, p, sample_weight=w), Fraction(root.sqrt())) <= 2
    y, p, w = [0, 1, 0], [1e-200, 0.5, 3e-201], [1.0, 2.0**-700, 7.0]
    exact = exact_mean_square(y, p, w)
    root = Decimal(exact.numerator) / Decimal(exact.denominator)
    assert ulps(rmse(y, p, sample_weight=w), Fraction(root.sqrt())) <= 2


@pytest.mark.parametrize("heavy", [1.0, 0.75, 1.5, 2.0**-1000])
def test_a_subnormal_share_beside_a_weight_of_one(heavy):
    """Attack 48 F3: the weights were scaled to [0.5, 1), which halved a largest weight of 1 and
    turned 5e-324 beside it into 0: log loss 0.0 where the exact mean is 3.4e-321 (4.55e-321
    with 0.75 instead of 1), ECE 0.0 where it is 5e-324."""
    from venncal.metrics import ece, log_loss, multiclass_log_loss

    w = [heavy, 5e-324]
    exact = Decimal(5e-324) * Decimal(300) * Decimal(10).ln() / (Decimal(heavy) + Decimal(5e-324))
    def close(got, want):  # a subnormal to its last unit, a normal double to 1e-14
        return abs(Decimal(got) - want) <= max(Decimal(5e-324), want * Decimal(1e-14))

    assert close(log_loss([1, 1], [1.0, 1e-300], sample_weight=w), exact)
    got = multiclass_log_loss([0, 1], [[1.0, 0.0], [1 - 1e-300, 1e-300]], sample_weight=w)
    assert close(got, exact)
    exact_ece = Decimal(5e-324) / (Decimal(heavy) + Decimal(5e-324))
    assert close(ece([1, 1], [1.0, 0.0], sample_weight=w), exact_ece)
    assert ece([1, 1], [1.0, 0.0], sample_weight=w) > 0.0
