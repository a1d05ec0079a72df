"""Exponential forgetting (``half_life``) and the kernel's per-step betting factors.

Forgetting is checked against its literal twin (tests/reference/jumper_naive.py,
``jumper_forgetting``: Algorithm 2 with the capitals raised to ``gamma`` after
each step, and the martingale of its forecasts) in log space; the factors
against the path they multiply into, and the change-point alarms against
those of the path's differences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from reference import jumper_naive as ref

from venncal.online import (
    JumperMartingale,
    JumperPredictor,
    MeanJumper,
    cox,
    cubic,
    detect_changes,
    log10_factors,
    named,
    quadratic,
)
from venncal.online._jumper_forgetting import forgetting_factor

EDGE_P = [1e-310, 5e-324, 1.0 - 2.0**-53, 0.5, 0.02, 0.98]
p_values = st.one_of(st.sampled_from(EDGE_P), st.floats(1e-6, 1.0 - 1e-6))
FAMILIES = {
    "quadratic": (quadratic(), lambda p: ref.family_values("quadratic", quadratic().params, p)),
    "cubic": (cubic([(0.5, 0.5), (-1.0, 0.25)]),
              lambda p: ref.family_values("cubic", [(0.5, 0.5), (-1.0, 0.25)], p)),
    "cox": (cox([0.5, 1.0, 2.0]), lambda p: ref.family_values("cox", [(0.5,), (1.0,), (2.0,)], p)),
}


@pytest.mark.parametrize("name", list(FAMILIES))
@given(steps=st.lists(st.tuples(p_values, st.booleans()), min_size=1, max_size=40),
       J=st.sampled_from([1.0, 0.3, 0.01, 1e-4]),
       half_life=st.sampled_from([0.5, 1.0, 3.0, 20.0, 1000.0]))
def test_forgetting_matches_its_literal_twin(name, steps, J, half_life):
    fam, exact = FAMILIES[name]
    p = np.array([s[0] for s in steps])
    y = np.array([s[1] for s in steps])
    res = JumperPredictor(fam, J, half_life=half_life).run(p, y)
    forecasts, path = ref.jumper_forgetting(p, y, exact(p), J, half_life)
    want = np.array([ref.log10_of(s) for s in path])
    # log space: 1e-9 relative to |log10 S| (and 1e-12 absolute near S = 1)
    assert_allclose(res.log10_martingale, want, rtol=1e-9, atol=1e-12)
    # a subnormal forecast is a multiple of 5e-324: a few of those absolute
    assert_allclose(res.protected_proba, [float(f) for f in forecasts], rtol=1e-9, atol=2e-323)
    assert_allclose(np.cumsum(res.log10_factors), want, rtol=1e-9, atol=1e-11)


def test_forgetting_off_is_no_forgetting_bit_for_bit():
    rng = np.random.default_rng(5)
    p = rng.uniform(0.05, 0.95, 3000)
    y = rng.random(3000) < p**1.5
    for make in (lambda **k: JumperPredictor(named("shift+confidence"), **k),
                 lambda **k: MeanJumper(**k)):
        a, b = make().run(p, y), make(half_life=None).run(p, y)
        assert_array_equal(a.log10_martingale, b.log10_martingale)
        assert_array_equal(a.protected_proba, b.protected_proba)
    assert forgetting_factor(None) == forgetting_factor(2.0**60) == 1.0


def test_forgetting_keeps_the_identity_and_the_parameters():
    rng = np.random.default_rng(2)
    p = rng.uniform(0.1, 0.9, 2000)
    y = rng.random(2000) < np.where(np.arange(2000) < 1000, p, p**2)
    pred = JumperPredictor(half_life=50.0)
    res = pred.run(p, y)
    loss = lambda q: -math.fsum(np.log10(np.where(y, q, 1.0 - q)))  # noqa: E731
    assert math.isclose(loss(p) - loss(res.protected_proba), res.log10_final, rel_tol=1e-10)
    assert pred.get_params()["half_life"] == 50.0
    assert pred.clone().half_life == 50.0
    for bad in (0.0, -1.0, math.inf, math.nan, "10", True):
        with pytest.raises(ValueError, match="half_life"):
            JumperPredictor(half_life=bad)


def test_forgetting_martingale_keeps_ville():
    """2,000 calibrated streams of 1,000 steps: S reaches 1/alpha in at most alpha of them."""
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(2000):
        p = rng.uniform(0.05, 0.95, 1000)
        y = rng.random(1000) < p
        res = JumperMartingale(jump_rate=0.01, half_life=20.0).run(p, y)
        hits += res.alarm(0.01) is not None
    assert hits / 2000 <= 0.01


@pytest.mark.parametrize("seed", range(4))
def test_forgetting_tracks_a_drift_faster(seed):
    """5,000 steps where eps = +1 is right, then eps = -1: a half-life lowers the loss after the change.

    With a small jumping rate (1e-4) the weights concentrate on eps = +1; with
    a half-life of 100 steps the new best function takes over sooner (the
    150 steps after the change cost 0.08-0.42 less decimal log loss on these
    seeds).  The jumps already forget: with J = 0.01 a half-life only costs
    (docs/online.md, "Forgetting").
    """
    rng = np.random.default_rng(seed)
    n, m = 5000, 150
    p = rng.uniform(0.1, 0.9, n + m)
    truth = np.where(np.arange(n + m) < n, p + p * (1 - p), p - p * (1 - p))
    y = rng.random(n + m) < truth
    after = []
    for half_life in (None, 100.0):
        q = JumperPredictor(jump_rate=1e-4, half_life=half_life).run(p, y).protected_proba[n:]
        after.append(-np.log10(np.where(y[n:], q, 1.0 - q)).sum())
    assert after[1] < after[0]


# -- the per-step factors of the kernel ---------------------------------------------------


@pytest.mark.parametrize("make", [lambda: JumperMartingale(named("shift+confidence")),
                                  lambda: MeanJumper(),
                                  lambda: MeanJumper(cubic(), half_life=40.0)])
@pytest.mark.parametrize("seed", range(3))
def test_factors_sum_to_the_path(make, seed):
    rng = np.random.default_rng(seed)
    n = 5000
    p = rng.uniform(0.02, 0.98, n)
    y = rng.random(n) < np.where(np.arange(n) < n // 2, p, 0.5 + 0.7 * (p - 0.5))
    model = make()
    first = model.run(p[:1000], y[:1000])
    rest = model.run(p[1000:], y[1000:])
    path = np.r_[first.log10_martingale, rest.log10_martingale]
    factors = np.r_[first.log10_factors, rest.log10_factors]
    # each factor is the step's own; their running sum is the path, to rounding
    sums = np.array([math.fsum(factors[:i + 1]) for i in range(n)])
    assert_allclose(sums, path, rtol=1e-12, atol=1e-11)
    # and the path's differences are the factors to within an ulp of log10 S
    assert_allclose(log10_factors(path), factors, rtol=0, atol=1e-12)
    for procedure in ("cusum", "shiryaev-roberts", "ville"):
        ours = detect_changes(factors, procedure=procedure)
        theirs = detect_changes(log10_factors(path), procedure=procedure)
        assert_array_equal(ours.alarms, theirs.alarms)


def test_factor_of_a_capital_that_reaches_zero():
    from venncal.online import family

    def zero(p):
        return np.zeros_like(p)

    mart = JumperMartingale(family(zero), jump_rate=0.5)
    res = mart.run([0.3, 0.4, 0.6], [True, False, True])
    assert_array_equal(res.log10_martingale, [-math.inf] * 3)
    assert_array_equal(res.log10_factors, [-math.inf, 0.0, 0.0])
    assert_array_equal(res.log10_factors, log10_factors(res.log10_martingale))


def test_a_pickle_from_before_forgetting_does_not_forget():
    """State pickled before ``half_life`` existed (no attribute, control slot 0.0) loads as None."""
    from venncal._kernels.jumper_calls import CTL_GAMMA

    rng = np.random.default_rng(4)
    p = rng.uniform(0.1, 0.9, 400)
    y = rng.random(400) < p
    mart, fresh = JumperMartingale(cubic()), JumperMartingale(cubic())
    mart.learn_many(p[:200], y[:200])
    state = mart.__getstate__()
    del state["half_life"], state["_gamma"]
    state["_mem"] = state["_mem"].copy()
    state["_mem"][state["_ctl"] + CTL_GAMMA] = 0.0
    old = JumperMartingale.__new__(JumperMartingale)
    old.__setstate__(state)
    assert old.half_life is None
    for a, b in zip(p[200:].tolist(), y[200:].tolist()):
        old.learn_one(a, b)
    fresh.learn_many(p, y)
    assert old.log10_value == fresh.log10_value


def test_forecasts_next_to_one_against_the_exact_twin():
    # attack 44: 1 - f of a float table is not the function's complement near p = 1 (39 %
    # off in a step at p = 1 - 2**-53); the twin takes the exact table, and refuses floats
    fam = quadratic()
    p = np.array([0.5, 1 - 2**-53, 1 - 2**-52, 1 - 2**-53, 0.3, 1 - 2**-53, 1 - 1e-12])
    y = np.array([True, False, False, True, False, False, True])
    for half_life in (0.5, 1.0, 20.0):
        res = JumperPredictor(fam, 0.1, half_life=half_life).run(p, y)
        forecasts, path = ref.jumper_forgetting(
            p, y, ref.family_values("quadratic", fam.params, p), 0.1, half_life)
        assert_allclose(res.log10_martingale, [ref.log10_of(s) for s in path], rtol=1e-12,
                        atol=1e-13)
        assert_allclose(res.protected_proba, [float(f) for f in forecasts], rtol=1e-14)
    with pytest.raises(TypeError, match="exact values"):
        ref.jumper_forgetting(p, y, fam.table(p), 0.1, 1.0)
