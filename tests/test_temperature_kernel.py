"""The temperature kernels against math.exp and their literal twin (tests/reference/parametric.py)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.parametric import temperature_moments
from venncal._kernels._jit import jit
from venncal._kernels.parametric import exp_nonpositive, softmax_scaled, temperature_terms


@jit
def _exps(x, out):
    for i in range(x.shape[0]):
        out[i] = exp_nonpositive(x[i])


def _ulps(x):
    """The distance of the kernel's exp(x) from math.exp's, in ulps of math.exp's."""
    got = np.empty_like(x)
    _exps(x, got)
    want = np.array([math.exp(v) for v in x])
    return got, want, np.abs(got - want) / np.spacing(np.maximum(want, 5e-324))


def test_exp_is_within_one_ulp_of_math_exp_on_millions_of_arguments():
    rng = np.random.default_rng(0)
    x = np.concatenate([
        -rng.random(1_000_000) * 746.0,                  # the whole range, uniform
        -np.exp(rng.uniform(-745.0, math.log(746.0), 1_000_000)),  # every magnitude
        -rng.random(200_000) * 0.7,                      # near 0: r itself
        rng.uniform(-745.2, -708.0, 200_000),            # subnormal results
        -np.arange(0, 1100) * math.log(2.0) / 2,         # multiples of ln(2) / 2: the reduction's edges
    ])
    got, want, ulps = _ulps(x)
    assert ulps.max() <= 1.0
    assert np.mean(got == want) > 0.9  # 95% are the same double


def test_exp_edges():
    x = np.array([0.0, -0.0, -5e-324, -1e-300, -2.0**-60, -708.39641853226408,
                  -745.1332191019411, -745.1332191019412, -746.0, -1e308, -np.inf, np.nan])
    got, want, ulps = _ulps(x)
    assert got[0] == got[1] == got[2] == got[3] == got[4] == 1.0
    assert got[6] == 5e-324 and got[7] == 0.0  # the smallest subnormal, then 0 (as math.exp)
    np.testing.assert_array_equal(got[8:], 0.0)
    assert ulps[:8].max() <= 1.0


def _moments(z, y, w, beta):
    top = np.max(np.where(np.isneginf(z), -np.inf, z), axis=1).astype(np.float64)
    out = np.zeros(4)
    temperature_terms(z, top, np.asarray(y, dtype=np.intp), w, beta, 0, z.shape[0], out)
    return out


@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 3, 7, 10, 300, 2049]),
       st.sampled_from([0.0, 1e-3, 0.5, 1.0, 30.0]), st.booleans())
def test_kernel_sums_agree_with_the_literal_twin(seed, K, beta, zeros):
    rng = np.random.default_rng(seed)
    n = max(1, 3000 // K)
    z = rng.normal(size=(n, K)) * 3
    if zeros and K > 1:  # probabilities 0, never the row's top or the label
        z[:, 1:][rng.random((n, K - 1)) < 0.3] = -np.inf
    y = np.zeros(n, dtype=int)
    z[:, 0] = np.maximum(z[:, 0], np.max(np.where(np.isneginf(z), -1e300, z), axis=1))
    w = rng.integers(0, 3, n).astype(float)
    got = _moments(z, y, w, beta)
    want = temperature_moments(z, y, w, beta)
    scale = math.fsum(w) * (1 + 9 * 9)  # the sums' scale, for the cancelling moments
    for part, (a, b) in enumerate(zip(got, want)):
        tol = 1e-13 if part == 0 else 1e-9
        assert abs(a - b) <= tol * max(abs(b), 1e-300) + 1e-12 * scale * (part > 0), (part, a, b)


def test_kernel_reads_float32_as_its_float64_values():
    rng = np.random.default_rng(3)
    z = (rng.normal(size=(500, 6)) * 4).astype(np.float32)
    y = rng.integers(0, 6, 500)
    w = np.ones(500)
    np.testing.assert_array_equal(_moments(z, y, w, 0.7), _moments(z.astype(np.float64), y, w, 0.7))


@pytest.mark.parametrize("K", [2, 10, 1000])
def test_softmax_matches_the_definition(K):
    rng = np.random.default_rng(K)
    z = rng.normal(size=(50, K)) * 5
    z[:, -1] = -np.inf
    top = z.max(axis=1)
    out = np.full(z.shape, np.nan)
    softmax_scaled(z, top, 0.8, 0, 50, out)
    e = np.exp(0.8 * (z - top[:, None]))
    want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out, want, rtol=4e-16 * K, atol=0)
    assert (out[:, -1] == 0.0).all()


@pytest.mark.parametrize("gap", [5.0, 23.0, 40.0, 700.0])
def test_a_near_certain_rows_loss_keeps_its_digits(gap):
    # log(1 + e) of a rounded 1 + e lost the small loss's digits: 1.6e-7 relative at gap 23
    # (attack 51); log1p of the terms other than the top's keeps them, here and in the log-softmax
    from decimal import Decimal, localcontext

    from venncal._kernels.parametric_matrix import log_softmax_rows

    z = np.array([[gap, 0.0, 1.0, -np.inf]])
    with localcontext() as ctx:
        ctx.prec = 800  # 1 + e^-700 held in full
        want = (Decimal(-gap).exp() + Decimal(1 - gap).exp() + 1).ln()
    out = np.zeros(4)
    temperature_terms(z, z.max(axis=1), np.array([0]), np.ones(1), 1.0, 0, 1, out)
    x = np.empty_like(z)
    log_softmax_rows(z, z.max(axis=1), x)
    for got in (out[0], -x[0, 0]):
        assert abs(float((Decimal(got) - want) / want)) <= 2.0**-52
