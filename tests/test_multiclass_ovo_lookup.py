"""One-vs-one Venn-Abers prediction: one search per (pair, row) gives both columns, bit for bit.

``index_proba_column0`` (``_kernels/multiclass_lookup.py``) writes each
pair calibrator's merged ``p`` and its column 0 from one search of the table;
it is compared with its literal twin (``reference.multiclass_lookup_naive.
proba_column0``) on made-up and fitted tables, and the one-vs-one
``predict_proba`` with the two look-ups it replaces (``_before_column0``
below: the code of 16a6297, kept as the reference of "before") and with each
pair calibrator's own ``predict_proba``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import multiclass_lookup_naive as ref

from venncal import OneVsOneCalibrator, VennAbersCalibrator
from venncal._kernels import ivap_tables_full
from venncal._kernels.multiclass_lookup import (
    index_lookup_columns,
    index_proba_column0,
    index_proba_columns,
    table_index,
)
from venncal.multiclass._scores import pair_parts, pair_scores

TINY = [5e-324, 1e-310, 1e-300, 2.0**-60]
WEIGHTS = [1.0, 2.0, 0.5, 1e-310, 1e-300, 1e20, 2.0**53, 2.0**53 + 2, 3.0, 0.0]


def same_bits(a, b) -> bool:
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.array_equal(a.view(np.uint64), b.view(np.uint64)))


# -- the kernel against its twin -------------------------------------------------------


@st.composite
def made_up_tables(draw):
    """Tables of monotone made-up ``F0 <= F1`` and ``Q0``, with 0s, 1s and tiny values."""
    U = draw(st.integers(1, 4))
    values = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 1 - 2.0**-53, *TINY]),
                       st.floats(0.0, 1.0))
    scores, F0, F1, Q0, sizes = [], [], [], [], []
    for _ in range(U):
        s = sorted(draw(st.lists(st.floats(-5.0, 5.0), min_size=1, max_size=15, unique=True)))
        T = len(s)
        a = sorted(draw(st.lists(values, min_size=T, max_size=T)))
        c = sorted(draw(st.lists(values, min_size=T, max_size=T)))
        lo = [min(x, y) for x, y in zip(a, c, strict=True)]
        hi = [max(x, y) for x, y in zip(a, c, strict=True)]
        # q0: 1 - F0 or a value of its own (an exact complement where F0 rounds to 1, or 0)
        q = [draw(st.sampled_from([1.0 - v, 0.0, *TINY])) if v > 0.5 else 1.0 - v for v in lo]
        scores += s
        F0 += lo
        F1 += hi
        Q0 += q
        sizes.append(T)
    starts = np.zeros(U + 1, dtype=np.intp)
    np.cumsum(sizes, out=starts[1:])
    return tuple(np.array(v, dtype=np.float64) for v in (scores, F0, F1, Q0)) + (starts,)


@st.composite
def fitted_tables(draw):
    """Tables of ``ivap_tables_full`` of drawn weights (tiny, huge, ties of 2**53 + 2)."""
    U = draw(st.integers(1, 3))
    parts, sizes = [], []
    for _ in range(U):
        T = draw(st.integers(1, 12))
        w = np.array(draw(st.lists(st.sampled_from(WEIGHTS[:-1]), min_size=T, max_size=T)))
        share = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 0.5, 2.0**-60]),
                                       min_size=T, max_size=T)))
        a = w * share
        F0, F1, Q0 = ivap_tables_full(w, a)[:3]
        parts.append((np.arange(T) * 0.5 - 1.0, F0, F1, Q0))
        sizes.append(T)
    starts = np.zeros(U + 1, dtype=np.intp)
    np.cumsum(sizes, out=starts[1:])
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(4)) + (starts,)


def _queries(s, U, extra):
    big = np.finfo(np.float64).max
    pool = np.concatenate([s, np.nextafter(s, big), np.nextafter(s, -big),
                           np.array(extra, dtype=np.float64), [-1e300, 1e300]])
    return np.ascontiguousarray(np.tile(pool, (U, 1)))


@pytest.mark.parametrize("log_merge", [True, False])
@given(st.one_of(made_up_tables(), fitted_tables()),
       st.lists(st.floats(-6.0, 6.0), max_size=20))
def test_kernel_equals_its_twin_and_the_proba_kernel(log_merge, tables, extra):
    s, F0, F1, Q0, starts = tables
    U = starts.shape[0] - 1
    queries = _queries(s, U, extra)
    index = table_index(s, starts)
    r0, r1 = np.empty(queries.shape), np.empty(queries.shape)
    with np.errstate(all="ignore"):
        index_proba_column0(s, F0, F1, Q0, starts, *index, queries, log_merge, r1, r0)
    p = np.empty(queries.shape)
    index_proba_columns(s, F0, F1, starts, *index, queries, log_merge, p)
    assert same_bits(r1, p)
    for c in range(U):
        b, e = starts[c], starts[c + 1]
        for r in range(queries.shape[1]):
            want = ref.proba_column0(s[b:e], F0[b:e], F1[b:e], Q0[b:e], queries[c, r], log_merge)
            assert same_bits([r0[c, r], r1[c, r]], want), (c, r)


# -- one-vs-one predict_proba: before and after ----------------------------------------


def _before_column0(cal, x):
    """``(r0, r1)`` as the code before the single kernel computed them (two look-ups)."""
    b = cal._binary_test(x)
    cals = cal.calibrators_
    s, F0, F1, starts, log_merge, index = cal._ivap_tables()
    p = np.empty(b.shape)
    index_proba_columns(s, F0, F1, starts, *index, b, log_merge, p)
    q0 = np.empty(b.shape)
    p1 = np.empty(b.shape)
    Q0 = np.concatenate([c.q0_ for c in cals])
    index_lookup_columns(s, Q0, F1, starts, *index, b, q0, p1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if log_merge:
            complement = q0 / (q0 + p1)
        else:
            q1 = 1.0 - p1
            complement = q0 + 0.5 * q1 * q1 - 0.5 * q0 * q0
    r0 = np.where(p <= 0.5, 1.0 - p, complement)
    for u, c in enumerate(cals):
        odd = np.flatnonzero((p[u] > 0.5) & (q0[u] == 0.0))
        if odd.size:
            r0[u, odd] = c.predict_proba(b[u, odd])[:, 0]
    return r0, p


def _data(style, seed, K=4, n=120):
    rng = np.random.default_rng(seed)
    if style == "constant":
        p = np.full((n, K), 1.0 / K)
    else:
        p = rng.dirichlet([0.3 if style == "extreme" else 1.0] * K, n)
        if style == "tied":
            p = np.round(p, 1) + 1e-3
            p /= p.sum(axis=1, keepdims=True)
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    w = None
    if style == "extreme":
        w = np.where(y == 0, 1.0, 1e20)        # a class 1e20 times lighter
        w[rng.random(n) < 0.2] = 1e-310          # and subnormal weights
        w[:K] = np.where(np.arange(K) == 0, 1.0, 1e20)
        edges = np.array([[1.0] + [0.0] * (K - 1), [1e-300] * (K - 1) + [1.0],
                          [1 - 2.0**-53, 2.0**-53] + [0.0] * (K - 2), [1.0 / K] * K])
        p[: edges.shape[0]] = edges
    xt = np.vstack([p[:30], np.random.default_rng(seed + 1).dirichlet([0.2] * K, 40),
                    np.eye(K), np.full((1, K), 1.0 / K)])
    return p, y, w, xt


@pytest.mark.parametrize("coupling", ["price", "normalize", "wu-lin-weng"])
@pytest.mark.parametrize("merge", ["log", "brier"])
@pytest.mark.parametrize("style", ["random", "tied", "constant", "extreme"])
def test_predict_proba_equals_the_two_lookups_and_each_pair_calibrator(style, merge, coupling):
    p, y, w, xt = _data(style, {"random": 1, "tied": 2, "constant": 3, "extreme": 4}[style])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # weights past 2**53: the fit's own warning
        cal = OneVsOneCalibrator(VennAbersCalibrator(merge=merge), coupling=coupling)
        cal.fit(p, y, sample_weight=w)
    x = cal._test_scores(xt)
    r0, r1 = cal._binary_proba(x, column0=True)
    before0, before1 = _before_column0(cal, x)
    assert same_bits(r0, before0) and same_bits(r1, before1)
    with np.errstate(all="ignore"):
        assert same_bits(cal.predict_proba(xt), cal._combine(before1, before0))
    first, second = cal.pairs_[:, 0], cal.pairs_[:, 1]
    b = pair_scores(pair_parts(x, cal.score), cal.score, first, second)
    own = [c.predict_proba(q) for c, q in zip(cal.calibrators_, b, strict=True)]
    assert same_bits(r0, np.stack([v[:, 0] for v in own]))
    assert same_bits(r1, np.stack([v[:, 1] for v in own]))


def test_the_complement_is_taken_past_one_half_and_keeps_tiny_values():
    # a class 1e20 times lighter: its pairwise probabilities near 1e-21, which 1 - p loses
    p, y, w, xt = _data("extreme", 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = OneVsOneCalibrator().fit(p, y, sample_weight=w)
    r0, r1 = cal._binary_proba(cal._test_scores(xt), column0=True)
    past = r1 > 0.5
    assert past.any() and (r0[past] < 1e-15).any()
    assert same_bits(r0[~past], 1.0 - r1[~past])
