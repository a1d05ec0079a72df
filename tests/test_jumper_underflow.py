"""Forgetting brings back a weight whose likelihood ratio is below the float range (attack 19 F2).

At ``p = 1e-300`` three functions of ``shift+confidence`` give the label a
probability whose ratio to the best is about ``1e-450``: exactly positive, 0 in
float64.  A half-life raises every weight, relative to the largest, to
``gamma = 2^(-1/h)`` after each step, so such a weight climbs back, where an
exact 0 stays 0.  The kernels carry such a ratio as its logarithm
(``venncal._kernels.jumper_forget.coded``) and discount the weights from the
logarithms of their products (``forget_step``); the literal twin is
``tests/reference/jumper_naive.py::jumper_forgetting`` on the exact values of
``tests/reference/jumper_union_naive.py::union_values``.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from reference import jumper_naive as ref
from reference import jumper_union_naive as twin

from venncal.online import JumperMartingale, JumperPredictor, MeanJumper, family, named, quadratic

EDGES = [1e-300, 5e-324, 1.0 - 2.0**-53, 0.0, 1.0]


def _members(fam):
    return [(m.kind, m.params.tolist()) for m in getattr(fam, "members", (fam,))]


def _check(fam, p, y, J, half_life):
    res = JumperPredictor(fam, J, half_life=half_life).run(p, y)
    forecasts, path = ref.jumper_forgetting(p, y, twin.union_values(_members(fam), p), J, half_life)
    want = np.array([ref.log10_of(s) for s in path])
    assert_allclose(res.log10_martingale, want, rtol=1e-9, atol=1e-12)
    assert_allclose(res.protected_proba, [float(f) for f in forecasts], rtol=1e-9, atol=2e-323)
    return res


@pytest.mark.parametrize("half_life", [0.01, 0.1, 0.2, 1.0])
@pytest.mark.parametrize("J", [1e-300, 0.02])
def test_the_attack_streams(half_life, J):
    fam = named("shift+confidence")
    # jump5.py: 2-9 steps after the forecast 1e-300 the kernel was off by up to 1e-2
    p = np.array([1e-300] + [0.5] * 30)
    y = np.array([True] + [True, False] * 15)
    _check(fam, p, y, J, half_life)
    # jump4.py: h = 0.01 gave p'_2 = 0.5129 for the twin's 0.5
    res = _check(fam, np.array([1e-300, 0.5, 0.5]), np.array([True, True, False]), J, half_life)
    if half_life == 0.01:
        assert abs(res.protected_proba[1] - 0.5) < 1e-12


def test_the_ratios_below_the_float_range_are_logs_and_public_ratios_floats():
    fam = named("shift+confidence")
    p, y = np.array([1e-300, 5e-324, 0.3]), np.array([True, True, False])
    coded, ls = fam._scaled_ratios(p, y, fam.table(p))
    want_t, want_ls = twin.union_ratios(_members(fam), p, y)
    exact = np.array([[float(v) for v in row] for row in want_t])
    logs = np.array([[float(v.ln()) if v > 0 else -math.inf for v in row] for row in want_t])
    small = (exact < 2.0**-1022) & (logs > -math.inf)
    assert small[[0, 20], 0].all()  # f = p^2 and cox(2) at 1e-300: ratios of about 1e-450
    assert (coded[small] < -708.39).all()
    assert_allclose(coded[small], logs[small], rtol=1e-13)
    assert_allclose(coded[~small], exact[~small], rtol=1e-12, atol=1e-300)
    assert_allclose(ls, [float(v) for v in want_ls], rtol=1e-12, atol=1e-12)
    public, public_ls = fam.likelihood_ratios(p, y, fam.table(p))
    assert ((public >= 0.0) & (public <= 1.0)).all()
    assert_array_equal(public[~small], coded[~small])
    assert_array_equal(public[small], np.exp(coded[small]))
    assert_array_equal(public_ls, ls)


def test_an_exact_zero_stays_zero():
    def zero(p):
        return np.zeros_like(p)

    def half(p):
        return np.full_like(p, 0.5)

    fam = family(zero, half)
    p, y = np.array([0.4, 0.6, 0.5]), np.array([True, True, False])
    for J in (1e-300, 0.5):
        model = JumperPredictor(fam, J, half_life=0.01)
        model.run(p[:1], y[:1])
        assert model.weights_[0, 0] == 0.0  # forgetting raises a positive weight, never a 0
        model.run(p[1:], y[1:])
        forecasts, path = ref.jumper_forgetting(p, y, ref.family_values("custom", None, p, (zero, half)),
                                                J, 0.01)
        again = JumperPredictor(fam, J, half_life=0.01).run(p, y)
        assert_allclose(again.protected_proba, [float(f) for f in forecasts], rtol=1e-12)
        assert_allclose(again.log10_martingale, [ref.log10_of(s) for s in path], rtol=1e-12,
                        atol=1e-15)


def test_a_rate_whose_jumps_underflow_is_refused():
    with pytest.raises(ValueError, match=r"every jumping rate J needs J/K .* J = 1e-310.*forgetting"):
        JumperPredictor(named("shift+confidence"), 1e-310, half_life=1.0)
    with pytest.raises(ValueError, match="J = 1e-320"):
        MeanJumper(quadratic(), (0.1, 1e-320), half_life=5.0)
    # without forgetting too (attack 38 F2: J = 5e-324, K = 2 made J/K 0, and log10 S -0.30
    # where Algorithm 1 gives +76.14; J = 1.5e-323 rounded J/K by a third)
    for J in (5e-324, 1.5e-323, 1e-310):
        with pytest.raises(ValueError, match=r"J/K at least 2\*\*-1022 .*subnormal"):
            JumperMartingale(quadratic(), J)
    # at J/K = 2**-1022 exactly, it runs
    JumperPredictor(quadratic(), 5 * 2.0**-1022).run([1e-300, 0.5], [True, False])
    JumperPredictor(quadratic(), 5 * 2.0**-1022, half_life=1.0).run([1e-300, 0.5], [True, False])


@pytest.mark.parametrize("fam", [quadratic(), named("shift+confidence"),
                                 family(np.sqrt, np.square, lambda p: p ** 3,
                                        labels=["sqrt", "square", "cube"])])
def test_the_least_rate_printed_is_the_least_accepted(fam):
    """The message printed the bound to 3 digits (6.67e-308 for K = 3 is refused)."""
    import re

    with pytest.raises(ValueError) as info:
        JumperMartingale(fam, 1e-320)
    least = float(re.search(r"J >= ([^)]+)\)", str(info.value)).group(1))
    JumperMartingale(fam, least).run([0.3], [1])
    with pytest.raises(ValueError, match="J/K at least"):
        JumperMartingale(fam, float(np.nextafter(least, 0.0)))


def _stream(draw_steps):
    p = np.array([s[0] for s in draw_steps])
    # no p = 0 with a positive label, no p = 1 with a negative one
    y = np.array([(s[1] or x == 1.0) and x != 0.0 for s, x in zip(draw_steps, p, strict=True)])
    return p, y


steps_strategy = st.lists(st.tuples(st.one_of(st.sampled_from(EDGES), st.floats(1e-6, 1.0 - 1e-6)),
                                    st.booleans()), min_size=1, max_size=14)


@settings(max_examples=60, deadline=None)
@given(steps=steps_strategy, J=st.sampled_from([1e-300, 1e-6, 0.02, 1.0]),
       half_life=st.sampled_from([0.01, 0.05, 0.2, 0.5, 1.0, 3.0]),
       name=st.sampled_from(["shift+confidence", "cox2", "quadratic"]))
def test_extreme_forecasts_small_half_lives_and_tiny_rates_match_the_twin(steps, J, half_life, name):
    p, y = _stream(steps)
    _check(named(name), p, y, J, half_life)


@settings(max_examples=30, deadline=None)
@given(steps=steps_strategy, cut=st.integers(0, 14),
       half_life=st.sampled_from([0.01, 0.2, 1.0, 3.0]))
def test_learn_one_pickled_midway_equals_learn_many_bit_for_bit(steps, cut, half_life):
    p, y = _stream(steps)
    rates = (1.0, 0.02, 1e-6, 1e-300)
    many = MeanJumper(named("shift+confidence"), rates, half_life=half_life)
    many.learn_many(p, y)
    one = MeanJumper(named("shift+confidence"), rates, half_life=half_life)
    cut = min(cut, p.shape[0])
    for a, b in zip(p[:cut].tolist(), y[:cut].tolist(), strict=True):
        one.learn_one(a, b)
    one = pickle.loads(pickle.dumps(one))
    for a, b in zip(p[cut:].tolist(), y[cut:].tolist(), strict=True):
        one.predict_proba_one(a)
        one.learn_one(a, b)
    assert_array_equal(one.weights_, many.weights_)
    assert one.log10_value == many.log10_value
    for x in (1e-300, 0.5, 1.0 - 2.0**-53):
        assert one.predict_proba_one(x) == many.predict_proba_one(x)
