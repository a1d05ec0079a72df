"""CVAP's merge keeps its precision at any scale: geometric means within a few ulps (issue 22).

``exp(mean(log x))`` of values near 1e-300 carried about ``|mean log|`` ulps
(806 ulps, 1.8e-13 relative, in CVAP interval ends); the exponents now leave
the mean exactly (``venncal.venn_abers._merge._geometric_mean``).  The
reference is the same formula in 60-digit decimal arithmetic, on the
complements the merge is defined on: ``q0`` where ``p0 > 1 - 2**-10`` (it
is read from the weights there), ``1 - p0`` exactly elsewhere.  The bound,
10 ulps, is that of values above ``2**-10``, whose logarithms (below 7 in
size) still enter the mean as before, bit for bit.
"""

from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venncal.venn_abers import merge_folds
from venncal.venn_abers._merge import merge_with_complement

TINY = 2.2250738585072014e-308


def _gm(values):
    return (sum(v.ln() for v in values) / len(values)).exp()


def _ulps(got, want):
    want = float(want)
    return abs(got - want) / np.spacing(want) if want >= TINY else abs(got - want) / 5e-324


def _check(p0, p1, q0, bound):
    p, complement, interval = merge_with_complement(p0[:, None], p1[:, None], q0[:, None], "log")
    with localcontext() as ctx:
        ctx.prec = 60
        q = [Decimal(float(c)) if a > 1 - 2**-10 else 1 - Decimal(float(a)) for a, c in zip(p0, q0)]
        g0, g1 = _gm(q), _gm([Decimal(float(v)) for v in p1])
        expected = (g1, g1 / (g0 + g1), g0 / (g0 + g1), 1 - g0)
    got = (interval[0, 1], p[0], complement[0] if p[0] > 0.5 else None, interval[0, 0])
    for name, value, want in zip(("upper end", "p", "1 - p", "lower end"), got, expected):
        if value is not None:
            assert _ulps(value, want) <= bound, (name, value, float(want))


exponents = st.floats(-700.0, 0.0)


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 7).flatmap(lambda k: st.tuples(
    st.lists(exponents, min_size=k, max_size=k), st.lists(exponents, min_size=k, max_size=k))))
def test_merge_within_a_few_ulps_at_any_scale(logs):
    p1 = np.maximum(np.exp(np.array(logs[0])), 5e-324)
    q0 = np.maximum(np.exp(np.array(logs[1])), 5e-324)
    _check(1.0 - q0, p1, q0, 10)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-20, 1e-3])
def test_merge_of_folds_near_the_float_minimum(scale):
    rng = np.random.default_rng(7)
    for _ in range(40):
        k = int(rng.integers(2, 8))
        p1 = scale * rng.uniform(0.5, 2.0, k)
        q0 = scale * rng.uniform(0.5, 2.0, k)
        _check(1.0 - q0, p1, q0, 10)


def test_values_above_the_split_keep_their_bits():
    # nothing below 2**-10: the mean of the logarithms as before, bit for bit
    p0 = np.array([[0.2, 0.01], [0.4, 0.02]])
    p1 = np.array([[0.3, 0.5], [0.5, 0.6]])
    p, interval = merge_folds(p0, p1)
    gm1 = np.exp(np.mean(np.log(p1), axis=0))
    log_gm0 = np.mean(np.log1p(-p0), axis=0)
    np.testing.assert_array_equal(interval[:, 1], gm1)
    np.testing.assert_array_equal(interval[:, 0], -np.expm1(log_gm0))
    np.testing.assert_array_equal(p, gm1 / (np.exp(log_gm0) + gm1))
