"""The powers of the Jumper's forgetting (``unit_pow``) and the forgetting over long streams.

:func:`venncal._kernels.jumper_forget.unit_pow` takes ``x^gamma`` in float64
arithmetic (vectorised) instead of ``pow``: checked against ``x^gamma`` in
60-digit decimals within its stated bound, and the forgetting it serves
against its literal twin (tests/reference/jumper_naive.py) over 2,000 steps
(10^5 under ``-m slow``) at 1e-9 relative in ``log10 S``; under ``-m slow``
also 10^7 steps of p-values of 1e-3 with a martingale past 10^10000.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from reference import jumper_naive as ref

from venncal._kernels.jumper_forget import forget, unit_pows
from venncal.online import JumperMartingale, JumperPredictor, named, quadratic

TINY = 2.0**-1022
GAMMAS = [0.0, 1e-9, 0.5, 2.0 ** (-1 / 3), 2.0 ** (-1 / 100), 2.0 ** (-1 / 1e6), 1.0]


def _exact_pow(x: float, gamma: float) -> float:
    with localcontext() as ctx:
        ctx.prec = 60
        return float(Decimal(x) ** Decimal(gamma))


def _check_bound(x: np.ndarray, gamma: float) -> None:
    out = np.empty_like(x)
    unit_pows(x, gamma, out)
    for xi, ui in zip(x.tolist(), out.tolist(), strict=True):
        want = _exact_pow(xi, gamma)
        bound = (abs(gamma * math.log(xi)) + 4) * 2.0**-52
        assert abs(ui - want) <= bound * want, (xi, gamma, ui, want)
        assert ui >= TINY


@pytest.mark.parametrize("gamma", GAMMAS)
def test_unit_pow_within_its_bound(gamma):
    rng = np.random.default_rng(3)
    x = np.concatenate((
        rng.random(300), np.exp(-rng.random(300) * 708.0),
        2.0 ** -rng.integers(0, 1023, 200).astype(float) * rng.uniform(1.0, 2.0, 200),
        [1.0, 1.0 - 2.0**-53, 0.5, TINY, TINY * 1.5, 2.0**-0.5, math.nextafter(2.0**-0.5, 0.0),
         1e-300, 1e-3]))
    x = x[(x >= TINY) & (x <= 1.0)]
    _check_bound(x, gamma)
    out = np.empty(1)
    unit_pows(np.array([1.0]), gamma, out)
    assert out[0] == 1.0  # exactly: the largest weight stays 1


@given(x=st.floats(TINY, 1.0), gamma=st.floats(0.0, 1.0))
def test_unit_pow_within_its_bound_anywhere(x, gamma):
    _check_bound(np.array([x]), gamma)


@given(w=st.lists(st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 5e-324, 1e-310, 1.0])),
                  min_size=1, max_size=40),
       gamma=st.sampled_from(GAMMAS[:-1]))
def test_forget_is_the_normalised_power(w, gamma):
    w = np.array(w)
    got = w.copy()
    forget(got, gamma)
    top = w.max()
    if top == 0.0:
        assert np.all(got == 0.0)
        return
    with localcontext() as ctx:
        ctx.prec = 60
        u = [Decimal(v) / Decimal(top) for v in w.tolist()]
        u = [x ** Decimal(gamma) if x > 0 else Decimal(0) for x in u]
        want = [float(x / sum(u)) for x in u]
    # each power within (|gamma log x| + 4) 2^-52 <= 1.6e-13 relative, then the sum and division;
    # a subnormal weight is a multiple of 5e-324: a few of those absolute
    assert_allclose(got, want, rtol=2e-13, atol=2e-323)


def _literal_run(n: int, seed: int, half_life: float):
    rng = np.random.default_rng(seed)
    p = rng.uniform(1e-3, 1.0 - 1e-3, n)
    drift = np.arange(n) >= n // 2
    y = rng.random(n) < np.where(drift, 0.5 + 0.6 * (p - 0.5), p)
    fam = quadratic()
    res = JumperPredictor(fam, 0.01, half_life=half_life).run(p, y)
    _, path = ref.jumper_forgetting(p, y, ref.family_values("quadratic", fam.params, p), 0.01,
                                    half_life)
    want = np.array([ref.log10_of(s) for s in path])
    return res.log10_martingale, want


@pytest.mark.parametrize("seed", range(2))
def test_forgetting_matches_its_literal_twin_over_2000_steps(seed):
    got, want = _literal_run(2000, seed, 30.0)
    assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.slow
def test_forgetting_matches_its_literal_twin_over_1e5_steps():
    got, want = _literal_run(10**5, 7, 100.0)
    assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.slow
def test_forgetting_ten_million_steps_past_1e10000():
    """10^7 steps with p-values of 1e-3 and labels 1: finite all along, and past 10^10000."""
    model = JumperMartingale(named("shift+confidence"), half_life=100.0)
    chunk = 10**6
    p = np.full(chunk, 1e-3)
    y = np.ones(chunk, dtype=bool)
    last = 0.0
    for _ in range(10):
        model.learn_many(p, y)
        value = model.log10_value
        assert math.isfinite(value) and value > last
        last = value
        proba = model.predict_proba_many(np.array([1e-3, 0.5]))
        assert np.all(np.isfinite(proba)) and np.all((proba >= 0.0) & (proba <= 1.0))
    assert last > 10_000
