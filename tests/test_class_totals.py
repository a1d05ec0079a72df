"""The fused ``class_totals`` kernel equals the plain composition it replaced, bit for bit.

``class_totals(w, a)`` used to be ``scaled_sum(w - a, err)`` and ``scaled_sum(a)``
on numpy temporaries; one two-pass kernel now computes the same chains of
double-double additions.  The twin below is that composition, written out.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from venncal._kernels.summary import class_totals, scaled_sum

EDGE = [0.0, 5e-324, 1e-310, 1e-300, 0.1, 0.5, 1.0, 3.0, 2.0**53 - 1, 2.0**53, 1e300, 1e308,
        1.7e308]


def composed(w, a):
    d = w - a
    back = d - w
    err = (w - (d - back)) - (a + back)
    return scaled_sum(d, err), scaled_sum(a)


def same(x, y):
    return np.float64(x).tobytes() == np.float64(y).tobytes()


pairs = st.lists(
    st.tuples(st.sampled_from(EDGE) | st.floats(0, 1e6), st.sampled_from(EDGE) | st.floats(0, 1e6)),
    min_size=0, max_size=40,
)


@given(pairs)
def test_class_totals_equals_the_composition_bit_for_bit(rows):
    # Summaries hold a positive weight a and a negative weight b per score; w = fl(a + b).
    a = np.array([r[0] for r in rows], dtype=np.float64)
    b = np.array([r[1] for r in rows], dtype=np.float64)
    with np.errstate(over="ignore"):
        w = a + b
    assume(np.all(np.isfinite(w)))  # summaries refuse a score whose weights overflow
    got = class_totals(w, a)
    want = composed(w, a) if len(rows) else (0.0, 0.0)
    assert all(same(g, x) for g, x in zip(got, want, strict=True)), (got, want)


def test_class_totals_on_a_large_random_summary():
    rng = np.random.default_rng(3)
    a = np.floor(rng.random(100_001) * 4)
    w = a + np.floor(rng.random(100_001) * 4)
    neg, pos = class_totals(w, a)
    assert (neg, pos) == composed(w, a)
    assert Fraction(neg) == sum(Fraction(x) for x in w - a)
    assert Fraction(pos) == sum(Fraction(x) for x in a)
