"""The batch paths of the multiclass Venn-Abers calibrators equal the per-problem loop, bit for bit.

With a ``VennAbersCalibrator`` base, ``fit_summary`` builds every problem's
tables in one kernel call (``ivap_tables_many``) and ``predict_proba`` /
``predict_interval`` look every problem up in one kernel call through a
bucket index (``multiclass_lookup``); one-vs-one test scores come from
class-major kernels.  Each is compared here with its literal twin
(``tests/reference/multiclass_lookup_naive.py``) or with the kernel it
replaces, and the calibrators with the loop they replace: one
``VennAbersCalibrator.fit_summary`` per problem, each one's own
``predict_proba``/``predict_interval`` on the scores of ``_scores.pair_scores``
/ ``ovr_scores``, then the coupling.
"""

from __future__ import annotations

import copy
import io
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import multiclass as ref_mc
from reference import multiclass_lookup_naive as ref

import venncal
from venncal import OneVsOneCalibrator, OneVsRestCalibrator, ScoreSummary, VennAbersCalibrator
from venncal._kernels import ivap_tables_full
from venncal._kernels.multiclass import (
    ivap_lookup_columns,
    ivap_proba_columns,
    pair_half_diff_columns,
    pair_half_diff_into,
    pair_log_ratio_columns,
    pair_log_ratio_into,
)
from venncal._kernels.multiclass_lookup import (
    index_lookup_columns,
    index_proba_columns,
    table_index,
)
from venncal._kernels.multiclass_tables import ivap_tables_list
from venncal.multiclass._scores import ovr_scores, pair_parts, pair_scores

LN2_HALF = math.log(2.0) / 2.0
EDGES = [0.0, 5e-324, 1e-310, 2.0**-1022, 1e-300, 0.1, 0.5, 1.0, 700.0, 2.0**53, 1e300,
         1e308, 1.7976931348623157e308, 1075 * LN2_HALF]
reals = st.one_of(st.sampled_from(EDGES + [-v for v in EDGES]),
                  st.floats(allow_nan=False, allow_infinity=False),
                  st.floats(-3.0, 3.0))


def same_bits(a, b) -> bool:
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.array_equal(a.view(np.uint64), b.view(np.uint64)))


def _pairs(K):
    first, second = np.triu_indices(K, 1)
    return first.astype(np.intp), second.astype(np.intp)


# -- the bucket index and its look-up -----------------------------------------------


def _tables(draw_tables):
    """Tables laid end to end: ``(s, F0, F1, starts)`` with made-up monotone F0 <= F1."""
    s = np.concatenate([np.array(t, dtype=np.float64) for t in draw_tables])
    starts = np.zeros(len(draw_tables) + 1, dtype=np.intp)
    np.cumsum([len(t) for t in draw_tables], out=starts[1:])
    F0 = np.empty(s.shape[0])
    F1 = np.empty(s.shape[0])
    for b, e in zip(starts[:-1], starts[1:], strict=True):
        T = e - b
        F0[b:e] = np.arange(T) / (T + 1.0)
        F1[b:e] = (np.arange(T) + 1.0) / (T + 1.0)
    return s, F0, F1, starts


tables = st.lists(
    st.one_of(
        st.lists(reals, min_size=1, max_size=12, unique=True),
        st.lists(st.floats(-3.0, 3.0), min_size=1, max_size=60, unique=True),
        st.just([0.0, 5e-324]),                     # T / span overflows: one bucket
        st.just([-1.7976931348623157e308, 1.7976931348623157e308]),  # span overflows
        st.just([-1075 * LN2_HALF, 0.0, 1075 * LN2_HALF]),
    ).map(sorted),
    min_size=1, max_size=4,
)


@given(tables)
def test_index_equals_its_definition(draw):
    s, _, _, starts = _tables(draw)
    lo, scale, steps, bounds = table_index(s, starts)
    for c, t in enumerate(draw):
        first, sc, h, bd = ref.index_of([float(v) for v in t])
        assert lo[c] == first and same_bits(scale[c], sc) and steps[c] == h
        o = starts[c] + c
        assert (bounds[o:o + len(t) + 1] - starts[c]).tolist() == bd


@given(tables, st.lists(reals, min_size=1, max_size=30))
def test_index_lookup_equals_bisect_and_the_plain_kernel(draw, extra):
    s, F0, F1, starts = _tables(draw)
    U = len(draw)
    # every table's own scores, their neighbours, and values from anywhere
    big = np.finfo(np.float64).max
    pool = np.concatenate([s, np.nextafter(s, big), np.nextafter(s, -big),
                           np.array(extra, dtype=np.float64)])
    queries = np.ascontiguousarray(np.tile(pool, (U, 1)))
    index = table_index(s, starts)
    p0, p1 = np.empty(queries.shape), np.empty(queries.shape)
    index_lookup_columns(s, F0, F1, starts, *index, queries, p0, p1)
    q0, q1 = np.empty(queries.shape), np.empty(queries.shape)
    ivap_lookup_columns(s, F0, F1, starts, queries, q0, q1)
    assert same_bits(p0, q0) and same_bits(p1, q1)
    for c in range(U):
        b, e = starts[c], starts[c + 1]
        for r in range(0, queries.shape[1], 7):
            assert (p0[c, r], p1[c, r]) == ref.lookup(s[b:e], F0[b:e], F1[b:e], queries[c, r])
    for log_merge in (True, False):
        got, want = np.empty(queries.shape), np.empty(queries.shape)
        index_proba_columns(s, F0, F1, starts, *index, queries, log_merge, got)
        ivap_proba_columns(s, F0, F1, starts, queries, log_merge, want)
        assert same_bits(got, want)


def test_index_of_a_skewed_table_searches_the_whole_table():
    # one far score puts every other one in bucket 0: the search is a full binary search
    s = np.concatenate([np.linspace(0.0, 1.0, 1000), [1e300]])
    starts = np.array([0, s.shape[0]], dtype=np.intp)
    _, _, steps, bounds = table_index(s, starts)
    assert steps[0] == 10 and bounds[1] == 1000
    F0, F1 = np.arange(s.shape[0]) / 2000.0, (np.arange(s.shape[0]) + 1) / 2000.0
    q = np.ascontiguousarray(np.linspace(-0.5, 1.5, 301)[None])
    got = [np.empty(q.shape) for _ in range(4)]
    index_lookup_columns(s, F0, F1, starts, *table_index(s, starts), q, got[0], got[1])
    ivap_lookup_columns(s, F0, F1, starts, q, got[2], got[3])
    assert same_bits(got[0], got[2]) and same_bits(got[1], got[3])


# -- class-major pair scores ----------------------------------------------------------

probas = st.one_of(st.sampled_from([0.0, 5e-324, 1e-310, 1e-300, 0.5, 1 - 2.0**-53, 1.0]),
                   st.floats(0.0, 1.0))


@given(st.integers(2, 4).flatmap(
    lambda K: st.lists(st.lists(probas, min_size=K, max_size=K), min_size=1, max_size=15)))
def test_pair_log_ratio_columns_equal_the_row_kernel(rows):
    x = np.array(rows, dtype=np.float64)
    first, second = _pairs(x.shape[1])
    m, e = pair_parts(x, "proba")
    want = np.empty((first.shape[0], x.shape[0]))
    pair_log_ratio_into(m, e, first, second, np.arange(x.shape[0]), want)
    mT, eT = np.frexp(np.ascontiguousarray(x.T))
    got = np.empty(want.shape)
    pair_log_ratio_columns(mT, eT.astype(np.intp), first, second, got)
    assert same_bits(got, want)
    for q in range(first.shape[0]):
        assert got[q].tolist() == [ref_mc.pair_score(r[first[q]], r[second[q]], "proba")
                                   for r in rows]


@given(st.integers(2, 4).flatmap(
    lambda K: st.lists(st.lists(reals, min_size=K, max_size=K), min_size=1, max_size=15)))
def test_pair_half_diff_columns_equal_the_row_kernel(rows):
    x = np.array(rows, dtype=np.float64)
    first, second = _pairs(x.shape[1])
    want = np.empty((first.shape[0], x.shape[0]))
    pair_half_diff_into(x, first, second, np.arange(x.shape[0]), want)
    got = np.empty(want.shape)
    pair_half_diff_columns(np.ascontiguousarray(x.T), first, second, got)
    assert same_bits(got, want)


# -- the tables of many summaries -------------------------------------------------------

WEIGHTS = [1.0, 2.0, 0.5, 3.0, 1e-310, 1e-300, 1e308, 2.0**53, 2.0**53 + 2, 0.1, 7.0]


@given(st.lists(st.lists(st.tuples(st.sampled_from(WEIGHTS), st.floats(0.0, 1.0)),
                         min_size=1, max_size=25), min_size=1, max_size=4))
def test_ivap_tables_list_equals_ivap_tables_full(problems):
    ws, as_ = [], []
    for rows in problems:
        w = np.array([v for v, _ in rows])
        a = np.array([v * f if f < 0.5 else (v if f > 0.75 else 0.0) for v, f in rows])
        ws.append(w)
        as_.append(np.minimum(a, w))
    got = ivap_tables_list(ws, as_)
    for tables, w, a in zip(got, ws, as_, strict=True):
        want = ivap_tables_full(w, a)
        assert len(tables) == len(want) == 4
        assert all(same_bits(g, v) for g, v in zip(tables, want, strict=True))


# -- the calibrators: batch against the loop -------------------------------------------


def _loop_calibrators(cal, summaries):
    merge = cal._base().merge
    return [copy.deepcopy(VennAbersCalibrator(merge=merge)).fit_summary(s)
            for s in summaries.values()]


def _same_calibrators(got, want):
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert type(a) is type(b) and sorted(vars(a)) == sorted(vars(b))
        for name, value in vars(b).items():
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                assert same_bits(vars(a)[name], value), name
            elif isinstance(value, np.ndarray):
                assert np.array_equal(vars(a)[name], value), name
            elif isinstance(value, float):
                assert same_bits(vars(a)[name], value), name
            else:
                assert vars(a)[name] == value, name


def _loop_predictions(cal, cals, x):
    K = cal.classes_.shape[0]
    if isinstance(cal, OneVsOneCalibrator):
        b = pair_scores(pair_parts(x, cal.score), cal.score, *_pairs(K))
    else:
        b = ovr_scores(x, cal.score)
    both = [c.predict_proba(q) for c, q in zip(cals, b, strict=True)]
    r = np.stack([v[:, 1] for v in both])
    interval = np.stack([c.predict_interval(q) for c, q in zip(cals, b, strict=True)], axis=1)
    if isinstance(cal, OneVsOneCalibrator):  # the coupling takes both columns
        return cal._combine(r, np.stack([v[:, 0] for v in both])), interval
    return cal._combine(r), interval


PROBA_ROWS = [[1.0, 0.0, 0.0, 0.0], [1 - 2.0**-53, 2.0**-53, 0.0, 0.0],
              [1e-310, 1.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25], [0.5, 0.5, 0.0, 0.0]]
LABELS = [np.arange(4), np.array(["d", "a", "c", "b"]), np.array([-3.5, 0.0, 2.0, 1e300]),
          np.array([2**53, 2**53 + 2, -7, 9])]


def _class_scores(draw, kind, n, K, style):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if style == "constant":
        z = np.zeros((n, K))
    else:
        z = rng.normal(size=(n, K)) * 2
        if style == "tied":
            z = np.round(z)
    if kind == "proba":
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        if style == "extreme":
            for r in range(n):
                if rng.random() < 0.4:
                    row = np.array(PROBA_ROWS[rng.integers(len(PROBA_ROWS))][:K])
                    p[r] = rng.permutation(row / row.sum())
        return p
    if style == "extreme":
        big = rng.choice([1e308, -1e308, 1e-310, 2.0**53, 700.0], size=(n, K))
        z = np.where(rng.random((n, K)) < 0.3, big, z)
    return z


@st.composite
def problems(draw):
    K = draw(st.integers(2, 4))
    n = draw(st.integers(K, 40))
    kind = draw(st.sampled_from(["proba", "logit", "margin"]))
    style = draw(st.sampled_from(["random", "tied", "constant", "extreme"]))
    x = _class_scores(draw, kind, n, K, style)
    xt = _class_scores(draw, kind, draw(st.integers(1, 12)), K, style)
    xt = np.concatenate([xt, x[: draw(st.integers(0, n))]])  # test scores equal to calibration ones
    codes = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    codes[:K] = np.arange(K)
    weights = draw(st.one_of(
        st.none(),
        st.lists(st.sampled_from([0.0, 1.0, 2.0, 1e-310, 1.0, 1e-300, 3.0, 2.0**53, 0.5, 1e308]),
                 min_size=n, max_size=n)))
    w = None if weights is None else np.array(weights)
    if w is not None:
        w[:K] = np.where(w[:K] > 0, w[:K], 1.0)
    labels = draw(st.sampled_from(LABELS))[:K]
    return x, labels[codes], w, xt, kind


def _fit_both(cal, x, y, w):
    """The batch fit and the loop's calibrators, with the warnings of each."""
    try:
        summaries = cal.summaries(x, y, w)
    except ValueError:
        return None  # refused before any binary fit (weights past float64): not these paths
    with warnings.catch_warnings(record=True) as batch_warnings:
        warnings.simplefilter("always")
        fitted = copy.deepcopy(cal).fit_summary(summaries)
    with warnings.catch_warnings(record=True) as loop_warnings:
        warnings.simplefilter("always")
        cals = _loop_calibrators(cal, summaries)
    assert [str(m.message) for m in batch_warnings] == [str(m.message) for m in loop_warnings]
    return fitted, cals


@pytest.mark.parametrize("make", [
    lambda kind: OneVsOneCalibrator(score=kind),
    lambda kind: OneVsOneCalibrator(VennAbersCalibrator(merge="brier"), score=kind,
                                    coupling="normalize"),
    lambda kind: OneVsOneCalibrator(score=kind, coupling="wu-lin-weng"),
    lambda kind: OneVsRestCalibrator(score=kind),
    lambda kind: OneVsRestCalibrator(VennAbersCalibrator(merge="brier"), score=kind),
])
@given(data=problems())
def test_batch_equals_the_per_problem_loop(make, data):
    x, y, w, xt, kind = data
    cal = make(kind)
    both = _fit_both(cal, x, y, w)
    if both is None:
        return
    fitted, cals = both
    _same_calibrators(fitted.calibrators_, cals)
    proba, interval = _loop_predictions(fitted, cals, xt)
    assert same_bits(fitted.predict_proba(xt), proba)
    assert same_bits(fitted.predict_interval(xt), interval)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # compared above
        assert same_bits(copy.deepcopy(cal).fit(x, y, w).predict_proba(xt), proba)


def test_fit_summary_of_merged_summaries_equals_the_loop():
    rng = np.random.default_rng(5)
    z = np.round(rng.normal(size=(200, 4)) * 3)
    y = (np.arange(200) // 2) % 4
    w = rng.choice([1.0, 2.0**53, 0.5, 1e-300], size=200)
    cal = OneVsOneCalibrator(score="margin")
    halves = [cal.summaries(z[i::2], y[i::2], w[i::2]) for i in (0, 1)]
    merged = {k: halves[0][k].merge(halves[1][k]) for k in halves[0]}
    assert all(isinstance(s, ScoreSummary) for s in merged.values())
    fitted = copy.deepcopy(cal).fit_summary(merged)
    cals = _loop_calibrators(cal, merged)
    _same_calibrators(fitted.calibrators_, cals)
    proba, interval = _loop_predictions(fitted, cals, z[:50])
    assert same_bits(fitted.predict_proba(z[:50]), proba)
    assert same_bits(fitted.predict_interval(z[:50]), interval)


def test_reloaded_model_predicts_the_same_bits():
    rng = np.random.default_rng(6)
    z = rng.normal(size=(300, 5))
    y = rng.integers(0, 5, size=300)
    xt = rng.normal(size=(40, 5))
    for cal in (OneVsOneCalibrator(score="logit"), OneVsRestCalibrator(score="logit")):
        fitted = cal.fit(z, y)
        buffer = io.StringIO()
        venncal.save(fitted, buffer)
        loaded = venncal.load(io.StringIO(buffer.getvalue()))
        assert same_bits(loaded.predict_proba(xt), fitted.predict_proba(xt))
        assert same_bits(loaded.predict_interval(xt), fitted.predict_interval(xt))
