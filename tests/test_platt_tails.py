"""Platt scaling with targets within 1e-300 of 0 or 1 (issue 22): the MLE or a clear error.

Weights mixing 1e-310, 1e300 and 1e308 gave Platt's targets ``1/(k + 2)``
near 1e-308, whose logits (about +-700) Newton's method reached one unit per
step from its usual start: 100 iterations ended with a ConvergenceWarning
and a sigmoid far from the MLE (``A = -97656`` where the MLE is ``-1400``).
Such fits are now refitted from the line through the scores' logits
(computed in logs from the unscaled weights); where the loss of a score
falls below ``2**-1022`` of the total (subnormal), float64 cannot weigh it,
and the fit is refused with a ``ValueError`` naming ``sample_weight``.
The reference for two scores is exact: the MLE then interpolates the two
scores' logits ``log(c1 / c0)``, computed here in rationals and 50-digit logs.
"""

from __future__ import annotations

import math
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from venncal.baselines import PlattCalibrator
from venncal._validation import WeightScaleWarning


def _ln(x: Fraction) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 50
        return Decimal(x.numerator).ln() - Decimal(x.denominator).ln()


def exact_two_scores(s, y, w, targets):
    """``(A, B)`` of the MLE for data with two distinct scores, each holding both targets."""
    s, w = [Fraction(float(v)) for v in s], [Fraction(float(v)) for v in w]
    k_pos = sum((wi for wi, yi in zip(w, y, strict=True) if yi), Fraction(0))
    k_neg = sum((wi for wi, yi in zip(w, y, strict=True) if not yi), Fraction(0))
    t_pos, t_neg = ((k_pos + 1) / (k_pos + 2), 1 / (k_neg + 2)) if targets == "platt" else (1, 0)
    sums = {}
    for si, yi, wi in zip(s, y, w, strict=True):
        t = t_pos if yi else t_neg
        c1, c0 = sums.get(si, (Fraction(0), Fraction(0)))
        sums[si] = (c1 + wi * t, c0 + wi * (1 - t))
    (s0, (a0, b0)), (s1, (a1, b1)) = sorted(sums.items())
    probs = [float(a0 / (a0 + b0)), float(a1 / (a1 + b1))]  # the MLE meets both targets
    with localcontext() as ctx:
        ctx.prec = 50
        l0, l1 = _ln(a0 / b0), _ln(a1 / b1)
        slope = (l1 - l0) / (Decimal(s1.numerator) / Decimal(s1.denominator)
                             - Decimal(s0.numerator) / Decimal(s0.denominator))
        x0 = Decimal(s0.numerator) / Decimal(s0.denominator)
        return float(-slope), float(-(l0 - slope * x0)), probs  # logit = -(A s + B)


def fit_quietly(targets, s, y, w):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        warnings.simplefilter("ignore", WeightScaleWarning)
        return PlattCalibrator(targets=targets).fit(s, y, sample_weight=w)


def test_platt_targets_near_1e_minus_308_are_the_mle():
    # was a ConvergenceWarning and A = -97656, B = 97639 (the MLE: A = -1400.7, B = 691.5)
    s, y, w = [0.0, 1.0, 0.0], [0, 1, 0], [1e300, 1e308, 1e300]
    cal = fit_quietly("platt", s, y, w)
    a, b, _ = exact_two_scores(s, y, w, "platt")
    assert cal.a_ == pytest.approx(a, rel=1e-12, abs=0.0)
    assert cal.b_ == pytest.approx(b, rel=1e-12, abs=0.0)
    p = cal.predict_proba([0.0, 1.0])[:, 1]
    assert p[0] == pytest.approx(1 / (2e300 + 2), rel=1e-10, abs=0.0)  # the target t- = 1/(k- + 2)


def test_loss_below_the_float64_range_is_refused_naming_sample_weight():
    # was a ConvergenceWarning and an inaccurate fit
    s, y, w = [0.0, 1.0, 0.0, 0.25], [0, 1, 0, 1], [1e308, 1e300, 1e-310, 1e300]
    with pytest.raises(ValueError, match="sample_weight spans from"):
        fit_quietly("platt", s, y, w)


def test_labels_mle_that_exists_only_through_vanishing_weights_is_refused():
    # was a ConvergenceWarning: on the scaled weights the classes are separated
    s = [1.0, 0.25, 0.0, 0.25, 0.0, 0.0, 0.5]
    y = [0, 1, 0, 0, 0, 1, 1]
    w = [1e-310, 1e308, 1e300, 1e-310, 1e300, 1e-310, 1e-310]
    with pytest.raises(ValueError, match="sample_weight spans more than 2\\*\\*1022"):
        fit_quietly("labels", s, y, w)


def test_random_extreme_weights_give_the_mle_or_a_clear_error():
    rng = np.random.default_rng(2026)
    fitted = warned = 0
    for _ in range(300):
        n = int(rng.integers(2, 7))
        s = rng.choice([0.0, 0.25, 0.5, 1.0], n)
        y = rng.integers(0, 2, n)
        y[0], y[1] = 0, 1
        w = rng.choice([1e-310, 1e300, 1e308], n)
        targets = "platt" if rng.random() < 0.7 else "labels"
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                warnings.simplefilter("ignore", WeightScaleWarning)
                cal = PlattCalibrator(targets=targets).fit(s, y, sample_weight=w)
        except ValueError as exc:
            assert "sample_weight" in str(exc) or "targets='labels'" in str(exc), str(exc)
            continue
        if caught:  # said: "the fit may be inaccurate"
            warned += 1
            continue
        fitted += 1
        assert math.isfinite(cal.a_) and math.isfinite(cal.b_)
        kept = np.unique(s)
        if kept.shape[0] == 2 and all(
            len(set(y[s == v].tolist())) == 2 or targets == "platt" for v in kept
        ):
            # the probabilities at the scores to an absolute 2e-8: the fit stops when the
            # gradient of the mean loss is below 1e-8 at the limit of float64 precision, so
            # a target of 1e-8 at a score of weight 1 may be met as 2e-8 (documented limit)
            _, _, probs = exact_two_scores(s, y, w, targets)
            got = cal.predict_proba(kept)[:, 1]
            np.testing.assert_allclose(got, probs, rtol=0, atol=2e-8, err_msg=str((s, y, w)))
    assert fitted > 50 and warned == 0


def test_constant_scorer_with_a_class_lost_to_scaling_is_its_exact_intercept():
    # the first cut of the tails change refused this (the classes looked separated once the
    # weights were scaled by 2**-53 and 1e-310 underflowed); one score: the exact intercept
    # from the unscaled weights, as before
    cal = fit_quietly("labels", [0.25, 0.25], [0, 1], [2.0**53 - 1, 1e-310])
    assert cal.a_ == 0.0
    want = float(_ln(Fraction(2**53 - 1) / Fraction(1e-310)))
    assert cal.b_ == pytest.approx(want, rel=1e-14, abs=0.0)


@pytest.mark.parametrize("label", [0, 1])
def test_one_class_with_extreme_weights_is_the_constant_target(label):
    # the first cut of the tails change gave a = -2838 (a subnormal target of the weight-0.5
    # row, rounded to 0 once scaled, led the refit astray); one class: a = 0, b = logit(1 - t)
    w = [0.5, 1e308] if label == 0 else [1e308, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        warnings.simplefilter("ignore", WeightScaleWarning)
        cal = PlattCalibrator(classes=[0, 1]).fit([0.1, 0.5], [label, label], sample_weight=w)
    k = Fraction(0.5) + Fraction(1e308)
    t = (k + 1) / (k + 2) if label else 1 / (k + 2)  # Platt's target of the one class
    assert cal.a_ == 0.0
    assert cal.b_ == pytest.approx(float(_ln((1 - t) / t)), rel=1e-14, abs=0.0)


@pytest.mark.parametrize("score", [40.0, 100.0, 700.0, -40.0, 0.5])
def test_the_negative_class_keeps_its_precision_where_p_is_near_1(score):
    """Column 0 is the sigmoid of minus the log-odds, not 1 - p (attack 12's F2): at a
    confident row it was 6.0724314e-11 (relative error 1.2e-6) or exactly 0."""
    c = PlattCalibrator().fit([-2.0, -1, 0, 1, 2, 3, -3, 0.5], [0, 0, 1, 0, 1, 1, 0, 1])
    u = Decimal(c.a_) * Decimal(score) + Decimal(c.b_)  # exact: a_ q + b_ in decimal
    with localcontext() as ctx:
        ctx.prec = 60
        low = 1 / (1 + (-u).exp())   # P(class 0) = expit(a_ q + b_)
        high = 1 / (1 + u.exp())
    proba = c.predict_proba([score])[0]
    # the log-odds a_ q + b_ rounds to |u| ulps of 1: exp carries that relative error
    rel = max(1e-14, 4 * abs(float(u)) * 2.0**-52)
    assert proba[0] > 0.0 and proba[1] > 0.0
    assert proba[0] == pytest.approx(float(low), rel=rel, abs=0.0)
    assert proba[1] == pytest.approx(float(high), rel=rel, abs=0.0)


def test_scores_offset_far_from_zero_keep_what_the_intercept_can_hold():
    """Attack 47 F6: scores u + 1e15 (exact) gave predictions up to 0.06 from those on u: b_ was
    rounded three times (an ulp, 0.25, off the nearest double) and a_ s was rounded before b_
    was added (another 0.125).  b_ is now rounded once from the exact back-transform, a_ s + b_
    is evaluated with the product's rounding put back, and a warning says that b_ holds the
    map to half an ulp only (0.125 here)."""
    from fractions import Fraction

    rng = np.random.default_rng(0)
    u = np.round(rng.normal(size=50) * 8) / 8 * 3
    s = u + 1e15
    y = (rng.random(50) < 1 / (1 + np.exp(-1.5 * u))).astype(int)
    with pytest.warns(UserWarning, match=r"held in float64 to \+-0.125 only"):
        cal = PlattCalibrator().fit(s, y)
    ref = PlattCalibrator().fit(u, y)
    got = cal._minus_logit(s)
    exact = [float(Fraction(cal.a_) * Fraction(v) + Fraction(cal.b_)) for v in s.tolist()]
    assert got.tolist() == exact  # a_ s + b_ rounded once
    assert np.abs(got - ref._minus_logit(u)).max() <= 0.125 + 1e-9


@pytest.mark.parametrize("offset", [20.0, 3e3, 3e5])
def test_moderate_offsets_keep_the_stored_maps_log_odds_to_an_ulp(offset):
    """Attack 51: the product's rounding was put back only from |b_| >= 2**20, so at an offset
    of 3e5 the log-odds of the stored (a_, b_) were 3e-11 off (2e-11 relative in p)."""
    rng = np.random.default_rng(3)
    u = rng.normal(size=300)
    s = u + offset
    y = (rng.random(300) < 1 / (1 + np.exp(-2.0 * u))).astype(int)
    cal = PlattCalibrator().fit(s, y)
    assert abs(cal.b_) >= 16.0
    got = cal._minus_logit(s)
    exact = np.array([float(Fraction(cal.a_) * Fraction(v) + Fraction(cal.b_)) for v in s.tolist()])
    assert np.all(np.abs(got - exact) <= np.spacing(np.abs(exact)))
