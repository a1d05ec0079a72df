"""The double-double exponential and product (venncal._kernels.dd) against 80-digit Decimal."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

from hypothesis import example, given
from hypothesis import strategies as st

from venncal._kernels.dd import dd_exp_jit, dd_mul_jit

args = st.one_of(
    st.sampled_from([0.0, -0.0, 5e-324, -1e-300, math.log(2) / 2, -math.log(2) / 2, -40.0, -600.0,
                     700.0, 1.0]),
    st.floats(-600.0, 700.0),
)


def _exact_sum(h, l):
    return Decimal(h) + Decimal(l)


@given(args, st.floats(-1.0, 1.0))
@example(-41.0, 0.0)
@example(math.log(2), 1.0)
def test_dd_exp_to_2_to_the_minus_102_and_a_term_in_x(x, frac):
    xl = frac * math.ulp(x) / 2 if x else 0.0
    h, l = dd_exp_jit(x, xl)
    assert abs(l) <= math.ulp(h) / 2  # normalised
    with localcontext() as ctx:
        ctx.prec = 80
        want = (Decimal(x) + Decimal(xl)).exp()
        bound = Decimal(2) ** -102 * (1 + Decimal(abs(x)) / 200)
        assert abs(_exact_sum(h, l) - want) <= want * bound


@given(st.floats(-1e10, 1e10), st.floats(-1.0, 1.0), st.floats(-1e10, 1e10), st.floats(-1.0, 1.0))
def test_dd_mul_to_2_to_the_minus_104(ah, fa, bh, fb):
    al, bl = fa * math.ulp(ah) / 2, fb * math.ulp(bh) / 2
    h, l = dd_mul_jit(ah, al, bh, bl)
    with localcontext() as ctx:
        ctx.prec = 80
        want = _exact_sum(ah, al) * _exact_sum(bh, bl)
        assert abs(_exact_sum(h, l) - want) <= abs(want) * Decimal(2) ** -104 + Decimal(2) ** -960
