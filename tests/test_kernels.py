import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from reference.naive import (
    isotonic_fit,
    ivap_by_definition,
    ivap_from_summary,
    pava_by_definition,
    summary_by_definition,
)
from scipy.optimize import isotonic_regression

from venncal._kernels import (
    ivap_lookup,
    ivap_tables,
    merge_summaries,
    pava_blocks,
    pava_fit,
    summarize_by_order,
    summarize_sorted_classes,
)

F64 = np.float64


def f64(values):
    return np.ascontiguousarray(values, dtype=F64)


def lookup(s, F0, F1, queries):
    queries = f64(queries)
    p0 = np.empty(queries.shape[0])
    p1 = np.empty(queries.shape[0])
    ivap_lookup(f64(s), F0, F1, queries, p0, p1)
    return p0, p1


def summarize(scores, y01, weights):
    scores = f64(scores)
    order = np.argsort(scores, kind="stable").astype(np.intp)
    return summarize_by_order(scores, np.asarray(y01, dtype=np.bool_), f64(weights), order)


def pava_tolerance(num, den):
    # Floating-point block sums vs exact rationals: error ~ n * eps * scale.
    scale = np.max(np.abs(num) / den, initial=1.0)
    return 1e-12 * scale * max(len(num), 1)


# ---------------------------------------------------------------- strategies

values = st.floats(-100, 100, allow_nan=False, allow_infinity=False)
weights_pos = st.floats(0.01, 100, allow_nan=False, allow_infinity=False)
small_ints = st.integers(-4, 4)


@st.composite
def pava_inputs(draw, min_size=0, max_size=40, integer_weights=False):
    n = draw(st.integers(min_size, max_size))
    if draw(st.booleans()):
        y = draw(st.lists(small_ints, min_size=n, max_size=n))  # many ties
    else:
        y = draw(st.lists(values, min_size=n, max_size=n))
    if integer_weights:
        w = draw(st.lists(st.integers(1, 5), min_size=n, max_size=n))
    else:
        w = draw(st.lists(weights_pos, min_size=n, max_size=n))
    y, w = f64(y), f64(w)
    return y, w


@st.composite
def labelled_scores(draw, min_size=0, max_size=30, weights="float"):
    n = draw(st.integers(min_size, max_size))
    kind = draw(st.sampled_from(["ties", "floats", "zeros"]))
    if kind == "ties":
        s = draw(st.lists(small_ints.map(float), min_size=n, max_size=n))
    elif kind == "zeros":
        s = draw(st.lists(st.sampled_from([-0.0, 0.0, 1.0, -1.0]), min_size=n, max_size=n))
    else:
        s = draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=n, max_size=n))
    y = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if weights == "unit":
        w = [1.0] * n
    elif weights == "int":
        w = draw(st.lists(st.integers(0, 4).map(float), min_size=n, max_size=n))
    else:
        weight = st.one_of(
            st.just(0.0), st.floats(0.01, 10), st.integers(1, 30).map(lambda i: i / 10)
        )
        w = draw(st.lists(weight, min_size=n, max_size=n))
    return f64(s), np.asarray(y, dtype=np.bool_), f64(w)


# ---------------------------------------------------------------- PAVA


def test_pava_small_hand_examples():
    assert_array_equal(pava_fit(f64([1, 0]), f64([1, 1])), [0.5, 0.5])
    assert_array_equal(pava_fit(f64([0, 1]), f64([1, 1])), [0.0, 1.0])
    assert_array_equal(pava_fit(f64([3, 2, 1]), f64([1, 1, 1])), [2.0, 2.0, 2.0])
    # values 1, 0 (weight 3), 1: first two pool to 1/4, then 1 stays.
    assert_array_equal(pava_fit(f64([1, 0, 1]), f64([1, 3, 1])), [0.25, 0.25, 1.0])
    assert pava_fit(f64([]), f64([])).shape == (0,)
    assert_array_equal(pava_fit(f64([2.5]), f64([0.5])), [5.0])


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n", [1, 2, 3, 10, 60])
def test_pava_matches_naive_random(seed, n):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n) + np.linspace(0, 2, n)
    if seed % 2:
        y = np.round(y)  # ties between values
    w = rng.uniform(0.1, 5, size=n)
    num = y * w
    expected = pava_by_definition(num, w)
    assert_allclose(pava_fit(num, w), expected, rtol=0, atol=pava_tolerance(num, w))


def test_pava_constant_and_sorted_inputs():
    w = f64(np.arange(1, 8))
    assert_array_equal(pava_fit(3.0 * w, w), np.full(7, 3.0))
    inc = f64(np.arange(7))
    assert_array_equal(pava_fit(inc * w, w), inc)
    dec = inc[::-1].copy()
    assert_allclose(pava_fit(dec * w, w), pava_by_definition(dec * w, w), rtol=1e-15)


@given(pava_inputs(integer_weights=True))
def test_pava_matches_naive_integer_data_exactly(data):
    y, w = data
    y = np.round(y)
    num = y * w  # exact: small integers
    assert_array_equal(pava_fit(num, w), pava_by_definition(num, w))


@given(pava_inputs())
def test_pava_matches_naive(data):
    y, w = data
    num = y * w
    assert_allclose(
        pava_fit(num, w), pava_by_definition(num, w), rtol=0, atol=pava_tolerance(num, w)
    )


@given(pava_inputs(min_size=1))
def test_pava_matches_scipy(data):
    y, w = data
    expected = isotonic_regression(y, weights=w, increasing=True).x
    got = pava_fit(y * w, w)
    assert_allclose(got, expected, rtol=0, atol=pava_tolerance(y * w, w))


@given(pava_inputs())
def test_pava_monotone(data):
    y, w = data
    fit = pava_fit(y * w, w)
    assert np.all(np.diff(fit) >= 0)


@given(pava_inputs())
def test_pava_preserves_weighted_sum(data):
    y, w = data
    num = y * w
    fit = pava_fit(num, w)
    assert_allclose(np.sum(w * fit), np.sum(num), rtol=0, atol=pava_tolerance(num, w) * w.sum())


@given(pava_inputs())
def test_pava_idempotent(data):
    y, w = data
    fit = pava_fit(y * w, w)
    again = pava_fit(fit * w, w)
    assert_allclose(again, fit, rtol=1e-13, atol=1e-13)


@given(pava_inputs(integer_weights=True))
def test_pava_integer_weights_equal_repeated_rows(data):
    y, w = data
    reps = w.astype(np.intp)
    fit_weighted = pava_fit(y * w, w)
    fit_repeated = pava_fit(np.repeat(y, reps), np.ones(reps.sum()))
    assert_allclose(
        np.repeat(fit_weighted, reps), fit_repeated, rtol=0, atol=pava_tolerance(y * w, w)
    )


@given(pava_inputs())
def test_pava_reversal_symmetry(data):
    y, w = data
    num = y * w
    fit = pava_fit(num, w)
    mirrored = pava_fit(f64(-num[::-1]), f64(w[::-1]))
    assert_allclose(-mirrored[::-1], fit, rtol=0, atol=pava_tolerance(num, w))


@given(pava_inputs())
def test_pava_blocks_structure(data):
    y, w = data
    num = y * w
    ends, bnum, bden = pava_blocks(num, w)
    n = len(y)
    if n == 0:
        assert ends.shape == (0,)
        return
    assert ends[-1] == n
    assert np.all(np.diff(ends) > 0)
    assert ends[0] > 0
    assert np.all(np.diff(bnum / bden) > 0)  # strictly increasing block values
    starts = np.concatenate([[0], ends[:-1]])
    for b in range(len(ends)):
        sl = slice(starts[b], ends[b])
        assert_allclose(bden[b], w[sl].sum(), rtol=1e-13)
        assert_allclose(bnum[b], num[sl].sum(), rtol=0, atol=1e-12 * np.abs(num[sl]).sum())
    assert_array_equal(pava_fit(num, w), np.repeat(bnum / bden, np.diff(np.r_[0, ends])))


def test_pava_read_only_input():
    num = f64([3.0, 1.0, 2.0])
    den = f64([1.0, 1.0, 1.0])
    num.flags.writeable = False
    den.flags.writeable = False
    assert_array_equal(pava_fit(num, den), [2.0, 2.0, 2.0])
    assert_array_equal(num, [3.0, 1.0, 2.0])


def test_pava_extreme_weights():
    num = f64([1e-300, 0.0, 1e300 * 0.5])
    den = f64([1e-300, 1e-300, 1e300])
    assert_allclose(pava_fit(num, den), pava_by_definition(num, den), rtol=1e-14)


@given(pava_inputs(min_size=1, max_size=25), st.lists(small_ints, min_size=25, max_size=25))
def test_naive_isotonic_matches_scipy(data, xs):
    # Guards the oracle itself: pooled ties, then scipy's PAVA on the pooled cells.
    y, w = data
    x = np.array(xs[: len(y)], dtype=F64)
    cells = np.unique(x)
    pooled_w = np.array([w[x == c].sum() for c in cells])
    pooled_y = np.array([(w * y)[x == c].sum() for c in cells]) / pooled_w
    fit = isotonic_regression(pooled_y, weights=pooled_w).x
    expected = fit[np.searchsorted(cells, x)]
    assert_allclose(isotonic_fit(x, y, w), expected, rtol=0, atol=pava_tolerance(y * w, w))


# ---------------------------------------------------------------- summaries


def test_summarize_sorted_classes_hand_example():
    s, w, a = summarize_sorted_classes(f64([0, 0, 1]), f64([0, 2, 2]))
    assert_array_equal(s, [0, 1, 2])
    assert_array_equal(w, [3, 1, 2])
    assert_array_equal(a, [1, 0, 2])


@given(labelled_scores(weights="unit"))
def test_summarize_sorted_classes_matches_naive(data):
    s, y, _ = data
    neg = np.sort(s[~y])
    pos = np.sort(s[y])
    got = summarize_sorted_classes(f64(neg), f64(pos))
    expected = summary_by_definition(s, y)
    for g, e in zip(got, expected, strict=True):
        assert_array_equal(g, e)


@pytest.mark.parametrize("weights", ["unit", "int"])
@given(data=st.data())
def test_summarize_by_order_matches_naive_exactly(weights, data):
    s, y, w = data.draw(labelled_scores(weights=weights))
    got = summarize(s, y, w)
    expected = summary_by_definition(s, y, w)
    for g, e in zip(got, expected, strict=True):
        assert_array_equal(g, e)


@given(labelled_scores(weights="float"))
def test_summarize_by_order_matches_naive(data):
    s, y, w = data
    got_s, got_w, got_a = summarize(s, y, w)
    exp_s, exp_w, exp_a = summary_by_definition(s, y, w)
    assert_array_equal(got_s, exp_s)
    assert_allclose(got_w, exp_w, rtol=1e-13)
    assert_allclose(got_a, exp_a, rtol=1e-13)
    assert np.all(got_w > 0)
    assert np.all((got_a >= 0) & (got_a <= got_w))


def test_summary_pools_signed_zeros():
    scores = f64([0.0, -0.0, 1.0, -0.0])
    y = np.array([True, False, True, True])
    for s, w, a in [
        summarize(scores, y, np.ones(4)),
        summarize_sorted_classes(np.sort(scores[~y]), np.sort(scores[y])),
        summary_by_definition(scores, y),
    ]:
        assert_array_equal(s, [0.0, 1.0])
        assert_array_equal(w, [3.0, 1.0])
        assert_array_equal(a, [2.0, 1.0])


def test_summary_drops_zero_weights():
    scores = f64([5.0, 1.0, 2.0, 1.0, 3.0])
    y = np.array([True, True, False, False, True])
    w = f64([0.0, 2.0, 0.0, 0.5, 1.0])
    s, ww, a = summarize(scores, y, w)
    assert_array_equal(s, [1.0, 3.0])
    assert_array_equal(ww, [2.5, 1.0])
    assert_array_equal(a, [2.0, 1.0])
    s, ww, a = summarize(scores, y, np.zeros(5))
    assert s.shape == ww.shape == a.shape == (0,)


@pytest.mark.parametrize("weights", ["int", "float"])
@given(data=st.data())
def test_merge_summaries_equals_summary_of_concatenation(weights, data):
    s1, y1, w1 = data.draw(labelled_scores(weights=weights))
    s2, y2, w2 = data.draw(labelled_scores(weights=weights))
    got = merge_summaries(*summarize(s1, y1, w1), *summarize(s2, y2, w2))
    expected = summary_by_definition(
        np.concatenate([s1, s2]), np.concatenate([y1, y2]), np.concatenate([w1, w2])
    )
    assert_array_equal(got[0], expected[0])
    if weights == "int":
        assert_array_equal(got[1], expected[1])
        assert_array_equal(got[2], expected[2])
    else:
        assert_allclose(got[1], expected[1], rtol=1e-13)
        assert_allclose(got[2], expected[2], rtol=1e-13)


@given(labelled_scores(weights="int"), labelled_scores(weights="int"), labelled_scores(weights="int"))
def test_merge_summaries_associative_and_commutative(d1, d2, d3):
    a, b, c = (summarize(*d) for d in (d1, d2, d3))
    left = merge_summaries(*merge_summaries(*a, *b), *c)
    right = merge_summaries(*a, *merge_summaries(*b, *c))
    swapped = merge_summaries(*merge_summaries(*c, *b), *a)
    for x, y_, z in zip(left, right, swapped, strict=True):
        assert_array_equal(x, y_)
        assert_array_equal(x, z)


def test_merge_summaries_with_empty():
    s, w, a = summarize(f64([2.0, 1.0]), np.array([True, False]), f64([1.0, 3.0]))
    empty = (np.empty(0), np.empty(0), np.empty(0))
    for got in (merge_summaries(s, w, a, *empty), merge_summaries(*empty, s, w, a)):
        for g, e in zip(got, (s, w, a), strict=True):
            assert_array_equal(g, e)


# ---------------------------------------------------------------- public ScoreSummary


@pytest.mark.parametrize("weights", ["unit", "int", "float"])
@given(data=st.data())
def test_score_summary_matches_naive(weights, data):
    from venncal import ScoreSummary

    s, y, w = data.draw(labelled_scores(min_size=1, weights=weights))
    assume(w.sum() > 0)  # an all-zero-weight set is rejected like an empty one
    summary = ScoreSummary.from_arrays(s, y, sample_weight=None if weights == "unit" else w)
    exp_s, exp_w, exp_a = summary_by_definition(s, y, None if weights == "unit" else w)
    assert_array_equal(summary.scores, exp_s)
    assert_allclose(summary.weights, exp_w, rtol=1e-13)
    assert_allclose(summary.positive_weights, exp_a, rtol=1e-13)


@given(labelled_scores(min_size=1, weights="int"), labelled_scores(min_size=1, weights="int"))
def test_score_summary_merge_matches_concatenation(d1, d2):
    from venncal import ScoreSummary

    (s1, y1, w1), (s2, y2, w2) = d1, d2
    assume(w1.sum() > 0 and w2.sum() > 0)
    merged = ScoreSummary.from_arrays(s1, y1, sample_weight=w1).merge(
        ScoreSummary.from_arrays(s2, y2, sample_weight=w2)
    )
    exp_s, exp_w, exp_a = summary_by_definition(
        np.concatenate([s1, s2]), np.concatenate([y1, y2]), np.concatenate([w1, w2])
    )
    assert_array_equal(merged.scores, exp_s)
    assert_array_equal(merged.weights, exp_w)
    assert_array_equal(merged.positive_weights, exp_a)


def test_score_summary_accepts_bool_and_int_labels():
    from venncal import ScoreSummary

    s = [0.5, 0.1, 0.5, 0.9]
    a = ScoreSummary.from_arrays(s, [True, False, False, True])
    b = ScoreSummary.from_arrays(s, np.array([1, 0, 0, 1]))
    for attr in ("scores", "weights", "positive_weights"):
        assert_array_equal(getattr(a, attr), getattr(b, attr))
    assert_array_equal(a.scores, [0.1, 0.5, 0.9])
    assert_array_equal(a.weights, [1.0, 2.0, 1.0])
    assert_array_equal(a.positive_weights, [0.0, 1.0, 1.0])
    assert a.scores.dtype == np.float64


# ---------------------------------------------------------------- IVAP tables


def check_tables_against_definition(s, w, a, atol):
    F0, F1 = ivap_tables(f64(w), f64(a))
    assert np.all(F0 >= 0.0)
    assert np.all(F1 <= 1.0)
    assert np.all(F0 <= F1)
    exp0, exp1 = ivap_from_summary(s, w, a, s)
    assert_allclose(F0, exp0, rtol=0, atol=atol)
    assert_allclose(F1, exp1, rtol=0, atol=atol)
    # Queries below, between, at and above the calibration scores.
    if len(s):
        mids = (s[:-1] + s[1:]) / 2
        queries = np.concatenate([[s[0] - 1.0], s, mids, [s[-1] + 1.0]])
    else:
        queries = f64([-1.0, 0.0, 1.0])
    p0, p1 = lookup(s, F0, F1, queries)
    exp0, exp1 = ivap_from_summary(s, w, a, queries)
    assert_allclose(p0, exp0, rtol=0, atol=atol)
    assert_allclose(p1, exp1, rtol=0, atol=atol)


def test_ivap_tables_hand_example():
    # Calibration (0, 0), (1, 1): F0 = (0, 1/2), F1 = (1/2, 1).
    F0, F1 = ivap_tables(f64([1, 1]), f64([0, 1]))
    assert_array_equal(F0, [0.0, 0.5])
    assert_array_equal(F1, [0.5, 1.0])
    p0, p1 = lookup(f64([0, 1]), F0, F1, f64([-1, 0, 0.5, 1, 2]))
    assert_array_equal(p0, [0.0, 0.0, 0.0, 0.5, 0.5])
    assert_array_equal(p1, [0.5, 0.5, 1.0, 1.0, 1.0])


def test_ivap_tables_empty_calibration():
    F0, F1 = ivap_tables(np.empty(0), np.empty(0))
    assert F0.shape == F1.shape == (0,)
    p0, p1 = lookup(np.empty(0), F0, F1, f64([-1.0, 0.0, 3.0]))
    assert_array_equal(p0, [0.0, 0.0, 0.0])
    assert_array_equal(p1, [1.0, 1.0, 1.0])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [1, 2, 5, 40])
def test_ivap_tables_match_definition_random(seed, n):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=n)
    if seed % 2:
        scores = np.round(scores * 2)
    y = rng.random(n) < 1 / (1 + np.exp(-2 * scores))
    w = np.ones(n) if seed % 3 == 0 else rng.uniform(0.2, 3, size=n)
    s, ww, a = summary_by_definition(scores, y, w)
    check_tables_against_definition(s, ww, a, atol=1e-12)


@given(labelled_scores(weights="int"))
def test_ivap_tables_match_definition_integer_weights(data):
    s, ww, a = summary_by_definition(*data)
    check_tables_against_definition(s, ww, a, atol=1e-15)


@given(labelled_scores(weights="float"))
def test_ivap_tables_match_definition_float_weights(data):
    s, ww, a = summary_by_definition(*data)
    check_tables_against_definition(s, ww, a, atol=1e-12)


def test_ivap_tables_in_unit_interval_with_decimal_weights():
    # Exact tables: F1 = (10/11, 1, 1) and, mirrored, F0 = (0, 0, 1/11).
    F0, F1 = ivap_tables(f64([0.1, 0.2, 0.2]), f64([0.0, 0.2, 0.2]))
    assert F1.max() <= 1.0, F1.tolist()
    F0, F1 = ivap_tables(f64([0.2, 0.2, 0.1]), f64([0.0, 0.0, 0.1]))
    assert F0.min() >= 0.0, F0.tolist()


@pytest.mark.parametrize("label", [0, 1])
def test_ivap_tables_single_class(label):
    s = f64([1.0, 2.0, 3.0])
    w = f64([1.0, 2.0, 1.0])
    a = w * label
    check_tables_against_definition(s, w, a, atol=1e-15)


def test_ivap_lookup_against_raw_definition():
    rng = np.random.default_rng(42)
    scores = np.round(rng.normal(size=25), 1)
    y = rng.random(25) < 0.4
    s, w, a = summary_by_definition(scores, y)
    F0, F1 = ivap_tables(w, a)
    queries = np.concatenate([scores, rng.normal(size=10), [-50.0, 50.0]])
    p0, p1 = lookup(s, F0, F1, queries)
    e0, e1 = ivap_by_definition(scores, y, None, queries)
    assert_allclose(p0, e0, rtol=0, atol=1e-15)
    assert_allclose(p1, e1, rtol=0, atol=1e-15)
