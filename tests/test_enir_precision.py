"""ENIR's BIC and class-1 table keep their relative precision at heavy weights (issue 22).

The models' BIC is compared with its value by the definition in many-digit
Decimal logarithms of the exact rational fits (``reference/enir_naive.py``,
``exact_bic``), and ``values_`` with its exact rational value
(``exact_values``): relative error at most ``RTOL``.  Each bin's
log-likelihood is a sum of two non-positive terms, each taken from its own
class's weight, and the table a sum of non-negative terms per score, so
neither cancels.
"""

import math
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference.enir_naive import exact_bic, exact_complements, exact_values

from venncal.enir import ENIRCalibrator

RTOL = 1e-12
CUTOFF_NATS = 60.0


def assert_bic_exact(cal, s, y, w=None):
    """``bic_`` within RTOL of the exact BIC where scored; unscored models provably negligible."""
    exact = exact_bic(cal, s, y, w)
    finite = [e for e in exact if e is not None]
    best = min(finite)
    for t, (b, e) in enumerate(zip(cal.bic_.tolist(), exact, strict=True)):
        if e is None:  # the fit puts probability 0 on an observed label
            assert b == math.inf, (t, b)
        elif b == math.inf:  # not scored: its weight is below exp(-60) of the best's
            assert e - best > 2 * CUTOFF_NATS, (t, float(e), float(best))
        else:
            # (+ the penalty's: log of the float total, within 2**-52 of log N per bin)
            tol = Decimal(RTOL) * abs(e) + int(cal.n_bins_[t]) * Decimal(2.0**-52)
            assert abs(Decimal(b) - e) <= tol, (t, b, float(e))
    return exact


def exact_weights(exact):
    """The model weights ``exp(-BIC / 2)``, normalised, from the exact BICs (floats)."""
    finite = [e for e in exact if e is not None]
    best = min(finite)
    raw = [0.0 if e is None else math.exp(-float(e - best) / 2) for e in exact]
    return np.array(raw) / sum(raw)


def assert_table_exact(cal, s, y, w=None):
    """``values_`` and ``complements_`` within RTOL (relative) of their exact values."""
    for got, exact in ((cal.values_, exact_values(cal, s, y, w)),
                       (cal.complements_, exact_complements(cal, s, y, w))):
        for i, (v, e) in enumerate(zip(got.tolist(), exact, strict=True)):
            assert abs(Fraction(v) - e) <= RTOL * e, (i, v, float(e))
    q = cal.predict_proba(cal.thresholds_)
    np.testing.assert_array_equal(q[:, 1], cal.values_)
    np.testing.assert_array_equal(q[:, 0], cal.complements_)
    assert (cal.values_ > 0).all() and (cal.values_ <= 1 - 2.0**-53).all()
    assert (cal.complements_ > 0).all() and (cal.complements_ <= 1 - 2.0**-53).all()
    # within 2**-53 (paired), and the float sum rounds to a step of 2**-52 above 1
    assert (np.abs(q.sum(axis=1) - 1.0) <= 2.0**-52).all()


# ------------------------------------------------------------ the BIC of heavy bins


def test_regression_heavy_bin_bic_order():
    # A bin of weight 1e17 (one class) beside unit weights: main rounded its rate to 1 and
    # took log(1 - rate) of the rounded rate: BICs [121.6, 39.1] against the exact [122.6,
    # 196.9], so the second model got all the weight (its exact weight is e^-37).
    s = np.array([0.0, 0.2, 0.3, 0.4, 0.7])
    y = np.array([1, 0, 1, 0, 1])
    w = np.array([1e17, 1.0, 1.0, 1.0, 1.0])
    cal = ENIRCalibrator().fit(s, y, sample_weight=w)
    exact = assert_bic_exact(cal, s, y, w)
    assert [float(e) for e in exact] == pytest.approx([122.590722826056, 196.947144182254],
                                                      rel=1e-14, abs=0.0)
    assert int(np.argmin(cal.bic_)) == 0  # main: 1
    np.testing.assert_allclose(cal.model_weights_, exact_weights(exact), rtol=1e-9, atol=1e-26)
    assert cal.model_weights_[1] < 1e-16  # main: 1 - 1.25e-18
    best = ENIRCalibrator(model="best").fit(s, y, sample_weight=w)
    assert best.model_weights_.tolist() == [1.0, 0.0]
    assert_table_exact(cal, s, y, w)


@pytest.mark.parametrize("heavy", [1e12, 1e15, 1e17, 1e20, 1e100, 1e140])  # 1e150: refused
@pytest.mark.parametrize("label", [0, 1])
def test_heavy_bins_against_exact(heavy, label):
    s = np.array([0.0, 0.2, 0.3, 0.4, 0.7, 0.7])
    y = np.array([label, 0, 1, 0, 1, 0])
    w = np.array([heavy, 1.0, 1.0, 1.0, 1.0, 1.0])
    cal = ENIRCalibrator().fit(s, y, sample_weight=w)
    exact = assert_bic_exact(cal, s, y, w)
    # (models not scored hold less than 1e-26 of the weight: 0 here)
    np.testing.assert_allclose(cal.model_weights_, exact_weights(exact), rtol=1e-9, atol=1e-26)
    assert_table_exact(cal, s, y, w)


@pytest.mark.parametrize("seed", range(3))
def test_mixed_heavy_bins(seed):
    # Heavy bins holding both classes (1e17 : 3) next to light ones, ties.
    rng = np.random.default_rng(seed)
    n = 40
    s = np.round(rng.uniform(size=n), 1)
    y = (rng.uniform(size=n) < s).astype(int)
    w = np.where(rng.uniform(size=n) < 0.2, 1e17, 1.0) * rng.integers(1, 4, n)
    cal = ENIRCalibrator().fit(s, y, sample_weight=w)
    assert_bic_exact(cal, s, y, w)
    assert_table_exact(cal, s, y, w)


@pytest.mark.parametrize("seed", range(3))
def test_bound_is_below_every_exact_bic(seed):
    # The pruning bound -2 max_loglik + n_bins log N never exceeds a model's exact BIC,
    # with bins of 1e17 (both classes) beside light ones; every model is compared.
    from venncal._kernels.enir_complement import group_sums
    from venncal.enir import NearIsotonicPath
    from venncal.enir.calibrator import _models

    rng = np.random.default_rng(seed)
    n = 30
    s = np.round(rng.uniform(size=n), 1)
    y = (rng.uniform(size=n) < s).astype(int)
    w = np.where(rng.uniform(size=n) < 0.3, 1e17, 1.0) * rng.integers(1, 4, n)
    cal = ENIRCalibrator().fit(s, y, sample_weight=w)
    ss = np.unique(s)
    tot = np.array([w[s == v].sum() for v in ss])
    pos = np.array([w[(s == v) & (y == 1)].sum() for v in ss])
    neg = np.array([w[(s == v) & (y == 0)].sum() for v in ss])
    path = NearIsotonicPath._from_summary(ss, tot, pos)
    _, n_bins, bound = _models(path, ss.shape[0], group_sums(neg, path._left, path._right))
    lower = -2.0 * bound + n_bins * math.log(float(tot.sum()))
    for t, e in enumerate(exact_bic(cal, s, y, w)):
        assert e is None or Decimal(lower[t]) <= e, (t, lower[t], float(e))


# ------------------------------------------------ a weight 2**1000 below its score's


@pytest.mark.parametrize("label", [0, 1])
def test_regression_tiny_class_beside_heavy_total(label):
    # A weight of 1e-310 at a score whose total is 1e20: its share underflows.  Main warned
    # (RuntimeWarning from the BIC bound) or, as here, refused the weights as too large
    # (its models' log-likelihood was -inf); pyproject turns warnings into errors.
    s = np.array([0.1, 0.5, 0.5, 0.9])
    y = np.array([0, label, 1 - label, 1])
    w = np.array([1.0, 1e-310, 1e20, 1.0])
    cal = ENIRCalibrator().fit(s, y, sample_weight=w)
    exact = assert_bic_exact(cal, s, y, w)
    assert all(e is not None for e in exact)
    np.testing.assert_allclose(cal.model_weights_, exact_weights(exact), rtol=1e-9, atol=1e-26)
    assert_table_exact(cal, s, y, w)


# -------------------------------------------------- values_ with relative precision


def test_regression_small_p_between_large_ones():
    # A bin of 1e20 negatives between positive scores: p there is ~1e-26 (the smoothed
    # fit), between values near 0.5.  Main summed jumps (no relative precision left) and
    # clipped values_ at 2**-53 = 1.1e-16.
    s = np.array([0.06, 0.12, 0.23, 0.32, 0.4, 0.71, 0.79])
    y = np.array([0, 0, 1, 0, 1, 0, 1])
    w = np.array([1.0, 1.0, 1.0, 1e20, 1.0, 1.0, 1.0])
    cal = ENIRCalibrator().fit(s, y, sample_weight=w)
    p = cal.predict_proba([0.32])[0, 1]
    assert 1e-30 < p < 1e-20  # main: 2**-53
    assert cal.values_.max() > 0.5
    assert_table_exact(cal, s, y, w)
    assert_bic_exact(cal, s, y, w)


@pytest.mark.parametrize("heavy", [1e10, 1e13, 1e15])
def test_moderately_small_p_between_large_ones(heavy):
    # p ~ 1e-6 / heavy: above 2**-53 here, so main kept it, with the absolute rounding of
    # its running sum (1e-16 of 0.5): relative errors up to 1e-2 at 1e15.
    s = np.array([0.05, 0.37, 0.54, 0.59, 0.68, 0.71])
    y = np.array([0, 1, 0, 1, 0, 1])
    w = np.array([1.0, 1.0, heavy, 1.0, 1.0, 1.0])
    cal = ENIRCalibrator(prior_strength=0.5).fit(s, y, sample_weight=w)
    assert_table_exact(cal, s, y, w)


@pytest.mark.parametrize("heavy", [2.0**53 - 1, 2.0**53, 2.0**53 + 2, 1e17])
def test_columns_sum_to_one_near_one(heavy):
    # Weights 2**53 : 1 at one score: the smoothed p from its own sums was 1 - 4 * 2**-53
    # (its rounding near 1), beside a class 0 of 1.11e-16: the row summed to 1 - 3 * 2**-53
    # (main too, found by test_fuzz_batch's edges).  Now p is 1 minus the precise class 0.
    s = np.array([-1e308] * 3)
    y = np.array([0, 0, 1])
    w = np.array([1e-310, 1.0, heavy])
    cal = ENIRCalibrator().fit(s, y, sample_weight=w)
    q = cal.predict_proba([-1e308, 0.0, 1e308])
    # within 2**-53 (paired), and the float sum rounds to a step of 2**-52 above 1
    assert (np.abs(q.sum(axis=1) - 1.0) <= 2.0**-52).all(), q.tolist()
    assert_table_exact(cal, s, y, w)


# ------------------------------------------------------------ hypothesis at the edges

SCORES = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1 - 2.0**-53, 1.0, -2.0, 3.5]
weights = st.one_of(
    st.just(1.0),
    st.sampled_from([1e-310, 1e-100, 1.0, 3.0, 1e15, 1e17, 1e20, 1e100, 1e300]),
    st.integers(1, 100).map(float),
    st.floats(0.01, 100.0),  # inexact group sums
)


@pytest.mark.filterwarnings("ignore::venncal.WeightScaleWarning")
@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(SCORES), st.integers(0, 1), weights),
             min_size=1, max_size=14),
    st.sampled_from([1.0, 0.5, 3.0]),
)
def test_hypothesis_bic_and_values_against_exact(rows, strength):
    s = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows])
    try:
        cal = ENIRCalibrator(prior_strength=strength, classes=[0, 1]).fit(s, y, sample_weight=w)
    except ValueError as exc:  # weights spanning past the path's range: refused, named
        assert "sample_weight" in str(exc)
        return
    assert_bic_exact(cal, s, y, w)
    assert_table_exact(cal, s, y, w)


@pytest.mark.parametrize("weight", [1e-300, 1e-310, 1e-130, 1.0])
@pytest.mark.parametrize("strength", [1e-280, 1e-290, 1e-300, 1e-310, 1e300])
def test_a_tiny_prior_strength_beside_tiny_weights(weight, strength):
    # Attack 17 F1: strength / W underflowed before the scaling back by 2**-shift (NaN
    # probabilities for 1e-290 beside weights of 1e-300, the prior lost for 1e-300).
    s, y = np.array([0.1, 0.1, 0.2, 0.9, 0.9]), np.array([0, 0, 1, 1, 1])
    w = np.full(5, weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the WeightScaleWarning of weights this small
        cal = ENIRCalibrator(prior_strength=strength).fit(s, y, sample_weight=w)
    assert np.isfinite(cal.values_).all()
    assert_table_exact(cal, s, y, w)
