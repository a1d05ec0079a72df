"""The radix sort of the weighted score summary against its literal twin, and the summary's
independence of the order of the rows (the sort breaks ties differently from np.argsort)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference.radix_naive import sort_with_payload_by_definition

from venncal._kernels.radix import keys_to_doubles, order_keys, sort_with_payload
from venncal.summary import RADIX_MIN_ROWS, summarize_exact

EDGES = [-np.finfo(float).max, -1e308, -1.0, -1e-310, -5e-324, -0.0, 0.0, 5e-324, 1e-310,
         2.0**-1022, 0.5, 1.0, 2.0**53, 1e308, np.finfo(float).max, -np.inf, np.inf]


def check(x, p):
    x, p = np.asarray(x, dtype=np.float64), np.asarray(p, dtype=np.float64)
    got_x, got_p = sort_with_payload(x, p)
    want_x, want_p = sort_with_payload_by_definition(x, p)
    assert got_x.tobytes() == want_x.tobytes()
    assert got_p.tobytes() == want_p.tobytes()


@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000])
def test_random_tied_constant(n):
    rng = np.random.default_rng(n)
    p = np.arange(n, dtype=np.float64)  # the row number: shows stability
    check(rng.normal(size=n), p)
    check(rng.integers(-3, 3, n) * 0.5, p)  # ties
    check(np.full(n, -2.5), p)  # constant: every pass is skipped
    check(rng.choice(EDGES, n), p)
    check(rng.random(n) * 2.0**-1060, p)  # subnormal


def test_keys_round_trip_and_order():
    x = np.array(EDGES)
    assert keys_to_doubles(order_keys(x)).tobytes() == x.tobytes()
    increasing = np.array([-np.inf, *EDGES[:-2], np.inf])  # -0.0 just below 0.0
    k = order_keys(increasing)
    assert (np.diff(k.astype(object)) > 0).all()


@settings(max_examples=300)
@given(st.lists(st.one_of(st.sampled_from(EDGES), st.floats(allow_nan=False)), max_size=40))
def test_any_doubles(values):
    check(values, np.arange(len(values), dtype=np.float64))


WEIGHTS = [0.0, 1e-310, 1e-300, 0.1, 1.0, 3.0, 2.0**53, 2.0**53 + 2, 1e17, 1e300, 1e308]


def _same(u, v):
    if isinstance(u, np.ndarray):
        return u.tobytes() == v.tobytes()
    if isinstance(u, tuple):
        return all(_same(a, b) for a, b in zip(u, v, strict=True))
    return u == v


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize("radix", [False, True])
def test_summary_does_not_depend_on_the_order_of_the_rows(radix, monkeypatch, data):
    monkeypatch.setattr("venncal.summary.RADIX_MIN_ROWS", 0 if radix else RADIX_MIN_ROWS)
    n = data.draw(st.integers(1, 12))
    s = np.array(data.draw(st.lists(st.sampled_from([-1e308, -0.0, 0.0, 1e-310, 0.5, 1e308]),
                                    min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    w = np.array(data.draw(st.lists(st.sampled_from(WEIGHTS), min_size=n, max_size=n)))
    if not (w > 0).any():
        w[0] = 1.0
    perm = np.array(data.draw(st.permutations(range(n))))
    try:
        first = summarize_exact(s, y, w)
    except ValueError as exc:
        with pytest.raises(ValueError, match="sample_weight"):
            summarize_exact(s[perm], y[perm], w[perm])
        assert "sample_weight" in str(exc)
        return
    assert _same(first, summarize_exact(s[perm], y[perm], w[perm]))


def test_radix_and_argsort_summaries_agree_bit_for_bit(monkeypatch):
    # The same data through both paths: the summary (sums, remainders, exact tails) is
    # the same, ties (-0.0 beside 0.0, weights some 2**106 apart) included.
    rng = np.random.default_rng(5)
    n = 3000
    s = rng.choice([-1e308, -0.0, 0.0, 1e-310, 0.25, 1e308], n)
    s[: n // 2] = np.round(rng.normal(size=n // 2), 2)
    y = rng.random(n) < 0.5
    w = rng.choice(WEIGHTS[:-1], n)  # no 1e308: ties would pass the float64 range
    monkeypatch.setattr("venncal.summary.RADIX_MIN_ROWS", 0)
    radix = summarize_exact(s, y, w)
    monkeypatch.setattr("venncal.summary.RADIX_MIN_ROWS", n + 1)
    assert _same(radix, summarize_exact(s, y, w))
