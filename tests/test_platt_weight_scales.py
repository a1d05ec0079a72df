"""Platt scaling with weights from 1e-310 to 1e308 (issue 22): the right answer or a clear error.

With one distinct score only the intercept is identified: the weighted MLE of
a constant, ``a = 0`` and ``b = log(c0) - log(c1)`` (``c1``, ``c0`` the
weights times the targets and times one minus them).  Computed on weights
scaled by a power of two near the largest, a class of weight below
``2**-1022`` times the other underflowed and gave ``b = -inf`` (a model
``load`` refuses).  With two or more scores whose weights span more than
``2**1022``, the small ones vanished from the loss and, where they held the
only other scores, the fit returned a constant sigmoid with no word: now a
``ValueError`` naming ``sample_weight``.  The reference is exact rational
arithmetic on the score summary.
"""

from __future__ import annotations

import math
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from venncal import ScoreSummary
from venncal.baselines import PlattCalibrator
from venncal._validation import WeightScaleWarning

SCALES = [1e-310, 1e-300, 1e-150, 0.5, 1.0, 3.0, 2.0**53 - 1, 1e150, 1e300, 1e308]


def _ln(x: Fraction) -> float:
    with localcontext() as ctx:  # the logs of numerator and denominator cancel: 80 digits
        ctx.prec = 80
        return float(Decimal(x.numerator).ln() - Decimal(x.denominator).ln())


def exact_intercept(a, neg, targets):
    """``log(c0 / c1)`` in exact rationals from the summary's positive and negative weight."""
    a, neg = Fraction(a), Fraction(neg)
    if targets == "labels":
        return _ln(neg / a)
    off_pos = 1 / (a + 2)  # 1 - t+, k+ = a
    t_neg = 1 / (neg + 2)
    c1 = a * (1 - off_pos) + neg * t_neg
    c0 = a * off_pos + neg * (1 - t_neg)
    return _ln(c0 / c1)


@pytest.mark.parametrize("targets", ["platt", "labels"])
@given(st.lists(st.tuples(st.sampled_from(SCALES), st.booleans()), min_size=2, max_size=6))
def test_constant_scorer_is_the_exact_weighted_mle(targets, rows):
    w = np.array([r[0] for r in rows])
    y = np.array([int(r[1]) for r in rows])
    y[0], y[1] = 0, 1
    s = np.full(w.shape[0], 0.25)
    try:
        summary = ScoreSummary.from_arrays(s, y, w)
    except ValueError as exc:  # tied whole numbers past two doubles: refused by the summary
        assert "sample_weight" in str(exc)
        with pytest.raises(ValueError, match="sample_weight"):
            PlattCalibrator(targets=targets).fit(s, y, sample_weight=w)
        return
    # each class's own sum (the total 1e-150 + 1e-310 rounds the lighter class away)
    pos, neg = float(summary.positive_weights[0]), float(summary.negative_weights[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", WeightScaleWarning)
        if targets == "labels" and not (pos > 0 and neg > 0):
            with pytest.raises(ValueError, match="both classes"):
                PlattCalibrator(targets=targets).fit(s, y, sample_weight=w)
            return
        cal = PlattCalibrator(targets=targets).fit(s, y, sample_weight=w)
    want = exact_intercept(pos, neg, targets)
    assert cal.a_ == 0.0
    assert math.isfinite(cal.b_)
    assert abs(cal.b_ - want) <= 1e-13 * max(1.0, abs(want))


def test_constant_scorer_with_a_class_below_2_to_the_minus_1022_of_the_other():
    # b was -inf: the scaled negative weight underflowed to 0
    cal = PlattCalibrator().fit([0.5, 0.5], [0, 1], sample_weight=[1e300, 1e-300])
    assert cal.b_ == pytest.approx(exact_intercept(1e-300, 1e300, "platt"), rel=1e-14, abs=0.0)
    cal = PlattCalibrator(targets="labels").fit(
        [0.5, 0.5, 0.5], [0, 1, 1], sample_weight=[1e-310, 1e-300, 1e-300]
    )
    assert cal.b_ == pytest.approx(exact_intercept(2e-300, 1e-310, "labels"), rel=1e-14, abs=0.0)


@pytest.mark.parametrize("targets", ["platt", "labels"])
def test_scores_that_only_vanishing_weights_hold_are_refused(targets):
    # Was a = 0, b = -690.8 (a constant) without a word, where the exact MLE has a slope.
    s, y = [0.1, 0.5, 0.9], [0, 1, 0]
    w = [1e-300, 1e300, 1e-300]
    with pytest.raises(ValueError, match="sample_weight spans more than 2\\*\\*1022"):
        PlattCalibrator(targets=targets).fit(s, y, sample_weight=w)
    # rescaled into the float64 range of one another, the light scores' share of the loss
    # is still 1e-300: float64 cannot determine the slope (this fitted a = 0 before, where
    # the MLE, computed in 660 digits, is A = 768.7 for 'platt'): refused, naming the weights
    with pytest.raises(ValueError, match="sample_weight .* float64 cannot determine the fit"):
        PlattCalibrator(targets=targets).fit(s, y, sample_weight=[1e-150, 1e150, 1e-150])


@given(st.lists(st.tuples(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.booleans(),
                          st.sampled_from(SCALES)), min_size=2, max_size=8))
def test_any_weight_scales_give_an_answer_or_a_clear_error(rows):
    s = np.array([r[0] for r in rows])
    y = np.array([int(r[1]) for r in rows])
    y[0], y[1] = 0, 1
    w = np.array([r[2] for r in rows])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            cal = PlattCalibrator().fit(s, y, sample_weight=w)
        except ValueError as exc:
            assert "sample_weight" in str(exc) or "float64 range" in str(exc)
            return
    assert math.isfinite(cal.a_) and math.isfinite(cal.b_)
    p = cal.predict_proba(np.unique(s))[:, 1]
    assert ((p >= 0) & (p <= 1)).all()
    if np.unique(s).shape[0] > 1:
        # more than one distinct score kept its weight: the slope is fitted, not dropped
        big = w >= w.max() * 2.0**-1022
        if np.unique(s[big]).shape[0] == 1 and cal.a_ != 0.0:
            # only the weights below 2**-1022 of the largest tell the scores apart: the
            # slope is theirs, and it must be the exact optimum (found by CI's hypothesis
            # run: 1e-310 at score 0 beside 0.5 at 0.25 fits A = -1.6219, the 660-digit
            # maximum, where the test asked for the slope to be dropped)
            from reference.platt_mle import platt_mle

            a, b = platt_mle(s, y, w, "platt")
            assert cal.a_ == pytest.approx(float(a), rel=1e-5, abs=1e-5)
            assert cal.b_ == pytest.approx(float(b), rel=1e-5, abs=1e-5)


def test_subnormal_hessian_does_not_divide_by_zero():
    """CI rehearsal (slow step, test_fuzz_batch thorough): weights 1e-310 beside 1e308 made the
    Newton step's det * top underflow to 0 ('divide by zero', an error under the test suite's
    warnings filter); now a clear refusal naming sample_weight, and no warning."""
    import warnings

    s = np.array([-1.0, -1.0, -1.0, -1e308, -1.0, -0.0, 0.25])
    y = np.array([0, 0, 0, 0, 0, 0, 1])
    w = np.array([1e-310, 1e-310, 1e-310, 0.0, 1e300, 1e308, 0.1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match="sample_weight"):
            PlattCalibrator().fit(s, y, w)


def test_the_fit_ends_on_a_newton_step():
    """Attack 50 F5: stopped on the gradient alone, three rows of weight 1/3 gave a
    probability 1.5e-12 off the exact maximum likelihood (Decimal Newton: 0.73243792147815467),
    and mixed weights 3e-9 relative in the small column (exact 0.00022176744196006281)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (weights summing to 1: WeightScaleWarning)
        m = PlattCalibrator().fit([-1.3, 2.19, -0.59], [0, 1, 0], sample_weight=[1 / 3] * 3)
    assert m.predict_proba([-3.0])[0, 0] == pytest.approx(0.73243792147815467, rel=1e-15, abs=0)
    m = PlattCalibrator().fit([-0.23, 0.28, 1.02, -1.18, 0.9, -0.63, -0.22], [0, 1, 1, 0, 1, 1, 1],
                              sample_weight=[7, 7, 1e5, 0.1, 0.1, 1e5, 7])
    assert m.predict_proba([-3.0])[0, 0] == pytest.approx(0.00022176744196006281, rel=1e-14,
                                                          abs=0)


@pytest.mark.parametrize("w0, s0, other", [(2.0**-1000, -1e300, 2.0**75), (5e-324, -1e300, 1.0),
                                           (3 * 2.0**-1000, -1.7e308, 2.0**75)])
def test_a_vanished_weight_at_an_extreme_score_does_not_flatten_the_fit(w0, s0, other):
    """Attack 54 F10: a row whose weight is below 2**-1074 of the total, at -1e300, set the
    spread that standardised the others (x ~ 1e-300): a_ = 0, p(1) = 0.37 for an exact 0.97,
    silently.  Its pull on the fit is 1e-23: the fit is the one without it."""
    rng = np.random.default_rng(3)
    n = 30
    t = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-3 * t))).astype(int)
    for targets in ("labels", "platt"):
        got = PlattCalibrator(targets=targets).fit(np.r_[s0, t], np.r_[1, y],
                                                   sample_weight=np.r_[w0, np.full(n, other)])
        want = PlattCalibrator(targets=targets).fit(t, y, sample_weight=np.full(n, other))
        assert (got.a_, got.b_) == (want.a_, want.b_)


def test_a_vanished_weight_whose_score_could_move_the_fit_is_refused():
    rng = np.random.default_rng(3)
    t = rng.normal(size=30) * 1e-300
    y = (rng.random(30) < 1 / (1 + np.exp(-3e300 * t))).astype(int)
    with pytest.raises(ValueError, match="below 2..-1074 times the total have scores so far out"):
        PlattCalibrator().fit(np.r_[1.7e308, t], np.r_[0, y], sample_weight=np.r_[5e-324, np.ones(30)])
