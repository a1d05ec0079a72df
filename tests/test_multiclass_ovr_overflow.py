"""One-vs-rest where every class's logit passes the float64 range (attack 43 F1).

Platt scaling's ``t_k = -(a_k m_k + b_k)`` is a double's overflow for margins near
1e308 although ``a_k``, ``m_k``, ``b_k`` are finite: each ``q_k`` and each
``log q_k`` is then 0 and ``-inf`` as doubles, and the row fell back to ``1/K``.
Its ratios are ``exp(t_j - t_k)``: the row goes to its largest logit (two distinct
such logits differ by far more than 745).  The helpers of :mod:`venncal._wide`
compare them; they are checked here against exact rationals.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from venncal import (
    BetaCalibrator,
    NegatedScoreCalibrator,
    OneVsRestCalibrator,
    PlattCalibrator,
    QuadraticLogisticCalibrator,
)
from venncal import _wide as wide

from test_multiclass_ovr_underflow import _margins

_BIG = st.floats(1.15e308, 1.7976931348623157e308)  # |a_k| >= 1.59: a_k m_k overflows
_ANY = st.floats(allow_nan=False, allow_infinity=False)


def _exact(w):
    m, e = w
    return [Fraction(float(mi)) * Fraction(2) ** int(ei) if mi != 0 else Fraction(0)
            for mi, ei in zip(m, e, strict=True)]


def _close(got: Fraction, want: Fraction, ulps: int) -> bool:
    return abs(got - want) <= abs(want) * Fraction(ulps, 2**53)


@settings(max_examples=300, deadline=None)
@given(_ANY, _ANY, _ANY, _ANY)
def test_wide_products_and_sums_are_rounded_once(a, b, c, d):
    wa, wb, wc, wd = (wide.split(np.array([v])) for v in (a, b, c, d))
    assert _exact(wa) == [Fraction(a)]
    prod = _exact(wide.mul(wa, wb))[0]
    assert _close(prod, Fraction(a) * Fraction(b), 1)
    # a sum of two products: each rounded once, then the sum once
    got = _exact(wide.add(wide.mul(wa, wb), wide.mul(wc, wd)))[0]
    want = Fraction(a) * Fraction(b) + Fraction(c) * Fraction(d)
    bound = (abs(Fraction(a) * Fraction(b)) + abs(Fraction(c) * Fraction(d))) * Fraction(3, 2**53)
    assert abs(got - want) <= bound + Fraction(2) ** -1074


def test_wide_limits_and_zeros_are_as_in_float64():
    w = wide.mul(wide.split(np.array([0.0, np.inf, -2.0])), wide.split(np.array([np.inf, 3.0, 0.0])))
    assert np.isnan(w[0][0]) and w[0][1] == np.inf and w[0][2] == 0.0
    s = wide.add(wide.split(np.array([0.0, 5e-324])), wide.split(np.array([0.0, 1e308])))
    np.testing.assert_array_equal(wide.scaled(s, 0), [0.0, 1e308])


@pytest.fixture(scope="module")
def platt():
    m, y = _margins()
    return OneVsRestCalibrator(PlattCalibrator(), score="margin").fit(m, y)


def _exact_winners(cal, x):
    """The classes of the largest exact logit ``-(a_k x_k + b_k)`` of the row ``x``."""
    t = [-(Fraction(c.a_) * Fraction(float(v)) + Fraction(c.b_))
         for c, v in zip(cal.calibrators_, x, strict=True)]
    return t, [k for k, v in enumerate(t) if v == max(t)]


def test_rows_whose_logits_all_overflow_go_to_the_largest(platt):
    x = np.array([[-1e308, -1.5e308, -1.7e308], [-1.7e308, -1.2e308, -1.7e308],
                  [-1.7e308, -1.7e308, -1.6e308]])
    got = platt.predict_proba(x)
    # before: [1/3, 1/3, 1/3] on each row
    for row, out in zip(x, got, strict=True):
        winners = _exact_winners(platt, row)[1]
        assert len(winners) == 1
        np.testing.assert_array_equal(out, np.eye(3)[winners[0]])


@settings(max_examples=300, deadline=None)
@given(st.lists(_BIG, min_size=3, max_size=3))
def test_any_overflowing_row_matches_the_exact_logits(platt, row):
    x = -np.array(row)
    with np.errstate(over="ignore"):
        assume(all(np.isinf(c.a_ * v + c.b_) for c, v in zip(platt.calibrators_, x, strict=True)))
    t, winners = _exact_winners(platt, x)
    # within the float64 rounding of the logits, ties are shared: exact-only ties are skipped
    ordered = sorted(t, reverse=True)
    assume(ordered[0] - ordered[1] > abs(ordered[0]) * Fraction(4, 2**53))
    want = np.zeros(3)
    want[winners] = 1.0
    np.testing.assert_array_equal(platt.predict_proba(x[None, :])[0], want)


def test_equal_logits_share_and_limits_lose(platt):
    # the same calibrator for every class: equal margins are equal logits
    one = platt.calibrators_[0]
    cal = OneVsRestCalibrator(PlattCalibrator(), score="margin").fit(*_margins())
    for c in cal.calibrators_:
        c.a_, c.b_ = one.a_, one.b_
    np.testing.assert_array_equal(cal.predict_proba(np.array([[-1e308, -1e308, -1.5e308]])),
                                  [[0.5, 0.5, 0.0]])


def test_a_limit_loses_to_an_overflow():
    # Platt on probabilities with eps=0: a probability 0 has the limit logit -inf, below
    # every finite one; slopes of -1.7e308 make the log-odds ln(1/3) of 0.25 overflow
    rng = np.random.default_rng(3)
    y = rng.integers(0, 5, 600)
    p = rng.dirichlet(np.ones(5), 600)
    p[np.arange(600), y] += 1.0
    p /= p.sum(axis=1, keepdims=True)
    cal = OneVsRestCalibrator(PlattCalibrator(score="proba", eps=0.0), score="proba").fit(p, y)
    for c, a in zip(cal.calibrators_, (-1.7e308, -1.7e308, -1.75e308, -1.79e308, -1.7e308),
                    strict=True):
        c.a_ = a
    got = cal.predict_proba(np.array([[0.0, 0.25, 0.25, 0.25, 0.25]]))
    # before: [0.2] * 5.  Classes 1 and 4: the same slope at the same input, intercepts near
    # -2 below the logits' last digit (1.9e308 +- 2e292): a tie within rounding, shared
    np.testing.assert_array_equal(got, [[0.0, 0.5, 0.0, 0.0, 0.5]])


def test_a_negated_platt_base_is_platt_on_negated_margins(platt):
    m, y = _margins()
    negated = OneVsRestCalibrator(NegatedScoreCalibrator(PlattCalibrator()), score="margin")
    negated.fit(-m, y)
    x = np.array([[-1e308, -1.5e308, -1.7e308], [-1.7e308, -1.2e308, -1.7e308]])
    got = negated.predict_proba(-x)
    np.testing.assert_array_equal(got, platt.predict_proba(x))
    np.testing.assert_array_equal(got, np.eye(3)[:2])


def test_a_beta_base_with_a_steep_side():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 400)
    z = rng.normal(size=(400, 3))
    z[np.arange(400), y] += 1.5
    cal = OneVsRestCalibrator(BetaCalibrator(score="logit"), score="margin").fit(z, y)
    for c, a in zip(cal.calibrators_, (2e306, 3e306, 1e306), strict=True):
        c.a_ = a  # a_ ln s passes 1.8e308 where ln s < -90 or so
    # a_k ln s_k (ln s = -softplus(-z), about z here): -4e308, -4.5e308, -5e308
    x = np.array([[-200.0, -150.0, -500.0], [-200.0, -100.0, -500.0]])
    np.testing.assert_array_equal(cal.predict_proba(x), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def test_a_quadratic_base_past_the_range():
    z, y = _margins(2, n=400, shift=1.5)
    cal = OneVsRestCalibrator(QuadraticLogisticCalibrator(), score="margin").fit(z, y)
    for c, c2 in zip(cal.calibrators_, (-1.0, -2.0, -3.0), strict=True):
        c.coef_ = np.array([0.0, 0.0, c2])
    x = np.array([[2e154, 1e154, 1e154]])  # -c2 z^2: -4e308, -2e308, -3e308
    np.testing.assert_array_equal(cal.predict_proba(x), [[0.0, 1.0, 0.0]])


@pytest.mark.parametrize("coef, want", [((0.1, 1.0, 0.0), [0.0, 1.0]),
                                        ((0.1, -1.0, 0.0), [1.0, 0.0]),
                                        ((0.1, 1.0, 0.3), [1.0, 1.0]),
                                        ((0.1, 1.0, -0.3), [0.0, 0.0])])
def test_quadratic_limits_at_probabilities_0_and_1(coef, want):
    """With eps=0 a probability 0 or 1 is a log-odds of -inf or +inf: the polynomial's limit.
    A line (c2 = 0, as a fit on two distinct scores gives) returned expit(c0) there."""
    rng = np.random.default_rng(0)
    s = rng.uniform(0.01, 0.99, 400)
    cal = QuadraticLogisticCalibrator(score="proba", eps=0.0).fit(s, rng.uniform(size=400) < s)
    cal.coef_ = np.array(coef)
    np.testing.assert_array_equal(cal.predict_proba(np.array([0.0, 1.0]))[:, 1], want)


def test_a_logit_whose_product_overflows_but_sum_does_not_is_finite(platt):
    """Attack 44 F1: a_ x past the range with a_ x + b_ finite (1e300 * 2e8 - 1e308 = -1e308
    negated): its log was -inf, so the row went to a smaller finite logit."""
    cal = OneVsRestCalibrator(PlattCalibrator(), score="margin").fit(*_margins())
    c = cal.calibrators_
    c[0].a_, c[0].b_ = 1e300, -1e308
    for k in (1, 2):
        c[k].a_, c[k].b_ = 1.0, 0.0
    x = np.array([[2e8, 1.5e308, 1.6e308]])
    np.testing.assert_array_equal(c[0]._minus_logit(x[:, 0]), [1e308])  # exactly, as a double
    np.testing.assert_array_equal(cal.predict_proba(x), [[1.0, 0.0, 0.0]])
    assert c[0]._log_p1(x[:, 0])[0] == -1e308


def test_quadratic_and_beta_logits_past_the_range_in_their_terms_only():
    z, y = _margins(2, n=400, shift=1.5)
    q = OneVsRestCalibrator(QuadraticLogisticCalibrator(), score="margin").fit(z, y)
    q.calibrators_[0].coef_ = np.array([1e308, -1e300, 0.0])  # 1e308 - 1e300 * 2e8 = -1e308
    q.calibrators_[1].coef_ = q.calibrators_[2].coef_ = np.array([0.0, 1.0, 0.0])
    np.testing.assert_array_equal(q.predict_proba(np.array([[2e8, -1.5e308, -1.6e308]])),
                                  [[1.0, 0.0, 0.0]])
    # the binary calibrator (attack 44 F3): c0 + 2 c1 + 4 c2 = 0 exactly, p = 1/2 (it was 1)
    binary = QuadraticLogisticCalibrator().fit(z[:, 0], y == 0)
    M = float(np.finfo(float).max)
    binary.coef_ = np.array([-(2.0**972), -M, 2.0**1023])
    np.testing.assert_array_equal(binary.predict_proba(np.array([2.0])), [[0.5, 0.5]])
    # beta 'am' shape, a = b = 1.5e308: a ln s - b ln(1 - s) = 1.5e308 ln(3/7) = -1.27e308
    p = np.random.default_rng(2).dirichlet(np.ones(3), 400)
    b = OneVsRestCalibrator(BetaCalibrator(score="proba"), score="proba").fit(p, p.argmax(1))
    c = b.calibrators_
    c[0].a_, c[0].b_, c[0].c_ = 1.5e308, 1.5e308, 0.0
    c[1].a_, c[1].b_, c[1].c_ = 1.0, 0.0, -1.5e308
    c[2].a_, c[2].b_, c[2].c_ = 1.0, 0.0, -1.6e308
    t0 = c[0]._logit(np.array([0.3]))[0]
    assert t0 == pytest.approx(1.5e308 * np.log(3 / 7), rel=1e-15)
    np.testing.assert_array_equal(b.predict_proba(np.array([[0.3, 0.35, 0.35]])),
                                  [[1.0, 0.0, 0.0]])
