import itertools

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from reference.naive import (
    brier_minimax,
    cvap_interval,
    cvap_merge,
    ivap_by_definition,
    log_minimax,
    summary_by_definition,
)

from venncal import VennAbersCalibrator, merge_folds

# The generated calibration sets may hold one class (0 or 1): the calibrators
# are told the classes, [0, 1], which a single observed class needs.  Small
# arbitrary weights (a precision test) are not frequencies: no warning.
pytestmark = pytest.mark.filterwarnings("ignore::venncal._validation.WeightScaleWarning")

ATOL = 1e-12


def max_abs_diff(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    return float(np.max(np.abs(a - b), initial=0.0))


def check_definition(scores, y01, w, test_scores, atol=ATOL):
    """Fit on 0/1 labels and compare every output with the definition."""
    scores = np.asarray(scores, dtype=np.float64)
    y01 = np.asarray(y01, dtype=np.int64)
    test_scores = np.asarray(test_scores, dtype=np.float64)
    cal = VennAbersCalibrator(classes=[0, 1]).fit(scores, y01, sample_weight=w)
    p0, p1 = ivap_by_definition(scores, y01, w, test_scores)

    interval = cal.predict_interval(test_scores)
    assert interval.shape == (len(test_scores), 2)
    assert max_abs_diff(interval[:, 0], p0) <= atol
    assert max_abs_diff(interval[:, 1], p1) <= atol

    proba = cal.predict_proba(test_scores)
    assert proba.shape == (len(test_scores), 2)
    assert max_abs_diff(proba[:, 1], log_minimax(p0, p1)) <= atol
    assert max_abs_diff(proba[:, 0], 1.0 - log_minimax(p0, p1)) <= atol

    # Fitted tables: the definition at every distinct calibration score.
    exp_s, _, _ = summary_by_definition(scores, y01, w)
    assert_array_equal(cal.scores_, exp_s)
    t0, t1 = ivap_by_definition(scores, y01, w, exp_s)
    assert max_abs_diff(cal.p0_, t0) <= atol
    assert max_abs_diff(cal.p1_, t1) <= atol
    return cal


def probe_points(scores):
    """Test scores below, at, between and above the calibration scores."""
    s = np.unique(np.asarray(scores, dtype=np.float64))
    mids = (s[:-1] + s[1:]) / 2
    return np.concatenate([[s[0] - 1.0, s[0] - 1e-9], s, mids, [s[-1] + 1e-9, s[-1] + 1.0]])


def logistic_data(rng, n, slope=2.0):
    scores = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-slope * scores))).astype(np.int64)
    return scores, y


# ---------------------------------------------------------------- examples


def test_docstring_example_by_hand():
    cal = VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    # 0.1: p0 pools nothing (0/2 at 0.1), p1 = (0 + 1)/2.
    # 0.5 (between 0.4 and 0.8): p0 = 1/3 from the pooled (0.35, 0.4, 0.5);
    # 0.9: p0 = (1 + 0)/2 after pooling with 0.8.
    assert_allclose(
        cal.predict_interval([0.1, 0.5, 0.9]),
        [[0.0, 0.5], [1 / 3, 1.0], [0.5, 1.0]],
        rtol=0,
        atol=1e-15,
    )
    check_definition([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], None, [0.1, 0.5, 0.9])


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n", [5, 30])
def test_random_continuous_scores(seed, n):
    rng = np.random.default_rng(seed)
    scores, y = logistic_data(rng, n)
    tests = np.concatenate([rng.normal(size=20), probe_points(scores)])
    check_definition(scores, y, None, tests)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("levels", [1, 2, 4])
def test_heavy_ties(seed, levels):
    rng = np.random.default_rng(100 + seed)
    scores = rng.integers(0, levels, size=40).astype(np.float64)
    y = (rng.random(40) < (scores + 1) / (levels + 1)).astype(np.int64)
    tests = np.concatenate([np.arange(-1, levels + 1), np.arange(levels) + 0.5])
    check_definition(scores, y, None, tests)


@pytest.mark.parametrize("seed", range(3))
def test_test_scores_equal_to_calibration_scores(seed):
    rng = np.random.default_rng(200 + seed)
    scores, y = logistic_data(rng, 25)
    scores = np.round(scores, 1)
    check_definition(scores, y, None, scores)


def test_below_and_above_the_range():
    rng = np.random.default_rng(7)
    scores, y = logistic_data(rng, 20)
    tests = np.array([-1e6, scores.min() - 1e-12, scores.max() + 1e-12, 1e6])
    cal = check_definition(scores, y, None, tests)
    interval = cal.predict_interval(tests)
    assert_array_equal(interval[:2, 0], [0.0, 0.0])
    assert_array_equal(interval[2:, 1], [1.0, 1.0])


@pytest.mark.parametrize("k", [1, 2, 3])
def test_tiny_calibration_sets(k):
    # Every label pattern, with distinct and with tied calibration scores.
    for layout in (np.arange(k, dtype=np.float64), np.zeros(k), np.minimum(np.arange(k), 1.0)):
        for labels in itertools.product([0, 1], repeat=k):  # incl. single-class sets
            check_definition(layout, np.array(labels), None, probe_points(layout))


@pytest.mark.parametrize("seed", range(4))
def test_integer_weights_with_zeros(seed):
    rng = np.random.default_rng(300 + seed)
    scores, y = logistic_data(rng, 30)
    scores = np.round(scores, 1)
    w = rng.integers(0, 4, size=30).astype(np.float64)
    w[0] = 1.0
    check_definition(scores, y, w, np.concatenate([probe_points(scores), rng.normal(size=10)]))


@pytest.mark.parametrize("seed", range(4))
def test_fractional_weights_with_zeros(seed):
    rng = np.random.default_rng(400 + seed)
    scores, y = logistic_data(rng, 30)
    if seed % 2:
        scores = np.round(scores)
    w = rng.uniform(0.01, 3.0, size=30)
    w[rng.random(30) < 0.2] = 0.0
    w[0] = 0.7
    check_definition(scores, y, w, np.concatenate([probe_points(scores), rng.normal(size=10)]))


def test_zero_weight_points_have_no_effect():
    rng = np.random.default_rng(11)
    scores, y = logistic_data(rng, 20)
    w = rng.uniform(0.5, 2, size=20)
    extra_s = np.array([-5.0, scores[3], 0.123, 5.0])
    extra_y = np.array([1, 1 - y[3], 0, 0])
    base = VennAbersCalibrator().fit(scores, y, sample_weight=w)
    padded = VennAbersCalibrator().fit(
        np.concatenate([scores, extra_s]),
        np.concatenate([y, extra_y]),
        sample_weight=np.concatenate([w, np.zeros(4)]),
    )
    tests = np.concatenate([probe_points(scores), extra_s])
    assert_array_equal(padded.scores_, base.scores_)
    assert_array_equal(padded.predict_interval(tests), base.predict_interval(tests))


@pytest.mark.parametrize("label", [0, 1])
@pytest.mark.parametrize("weighted", [False, True])
def test_single_class_calibration(label, weighted):
    scores = np.array([0.3, 0.1, 0.5, 0.1, 0.9])
    y = np.full(5, label)
    w = np.array([1.0, 2.0, 0.5, 0.0, 3.0]) if weighted else None
    cal = check_definition(scores, y, w, probe_points(scores))
    assert_array_equal(cal.classes_, [0, 1])
    interval = cal.predict_interval(probe_points(scores))
    if label == 1:
        assert np.all(interval[:, 1] == 1.0)  # k_- = 0: p1 = 1
    else:
        assert np.all(interval[:, 0] == 0.0)  # k_+ = 0: p0 = 0


@pytest.mark.parametrize("label", ["no", "yes"])
def test_single_class_with_explicit_classes(label):
    scores = np.array([0.2, 0.4, 0.6])
    y = np.array([label] * 3)
    cal = VennAbersCalibrator(classes=["no", "yes"]).fit(scores, y)
    assert list(cal.classes_) == ["no", "yes"]
    p0, p1 = ivap_by_definition(scores, y == "yes", None, probe_points(scores))
    interval = cal.predict_interval(probe_points(scores))
    assert max_abs_diff(interval[:, 0], p0) <= ATOL
    assert max_abs_diff(interval[:, 1], p1) <= ATOL


def test_extreme_magnitudes():
    big = np.finfo(np.float64).max
    tiny = np.finfo(np.float64).smallest_subnormal
    one_up = np.nextafter(1.0, 2.0)
    scores = np.array(
        [-big, -1e300, -1e-300, -tiny, 0.0, tiny, 1e-300, 1.0, one_up,
         np.nextafter(one_up, 2.0), 1e300, big]
    )
    y = np.array([0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1])
    tests = np.concatenate(
        [scores, np.nextafter(scores, big), np.nextafter(scores, -big), [-0.0, 0.5]]
    )
    check_definition(scores, y, None, tests)
    check_definition(scores[::-1], y, np.arange(1.0, 13.0), tests)


def test_signed_zero_is_one_score():
    scores = np.array([-0.0, 0.0, 1.0, -1.0])
    y = np.array([0, 1, 1, 0])
    cal = check_definition(scores, y, None, [0.0, -0.0, 0.5])
    assert cal.scores_.shape == (3,)
    assert_array_equal(cal.predict_interval([0.0]), cal.predict_interval([-0.0]))


def test_very_close_scores():
    base = 0.5
    scores = [base]
    for _ in range(9):
        scores.append(np.nextafter(scores[-1], 1.0))
    scores = np.array(scores)
    y = np.array([1, 0, 1, 0, 0, 1, 1, 0, 1, 1])
    check_definition(scores, y, None, np.concatenate([scores, [0.4, 0.6]]))


def test_large_integer_weights_exact():
    scores = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([1, 0, 1, 0])
    w = np.array([1e6, 3e6, 1.0, 2e9])
    check_definition(scores, y, w, probe_points(scores), atol=1e-15)


@pytest.mark.parametrize(
    ("scores", "y", "w"),
    [
        ([0.0, 1.0, 2.0], [0, 1, 1], [0.1, 0.2, 0.2]),  # exact F1 at 2.0 is 1
        ([-2.0, -1.0, 0.0], [0, 0, 1], [0.2, 0.2, 0.1]),  # mirror: exact F0 at -2.0 is 0
    ],
)
def test_interval_stays_in_unit_interval_with_decimal_weights(scores, y, w):
    cal = check_definition(scores, y, w, probe_points(scores))
    interval = cal.predict_interval(probe_points(scores))
    for p0, p1 in ((cal.p0_, cal.p1_), (interval[:, 0], interval[:, 1])):
        assert np.all(p0 >= 0.0), p0.tolist()
        assert np.all(p1 <= 1.0), p1.tolist()
        assert np.all(p0 <= p1)


# Cumulative sums are carried in double-double arithmetic when weights are
# not integers, so a heavy block does not swamp the light ones next to it.
@pytest.mark.parametrize("heavy", [1e4, 1e8, 1e12, 1e15, 12345.678e10])
def test_heavy_fractional_weight_precision(heavy):
    scores = np.array([0.0, 1.0, 2.0])
    y = np.array([0, 1, 0])
    w = np.array([heavy, 0.3, 0.1])
    check_definition(scores, y, w, probe_points(scores))


@pytest.mark.parametrize("seed", range(5))
def test_fractional_weights_spanning_many_magnitudes(seed):
    rng = np.random.default_rng(seed)
    n = 40
    scores = rng.integers(0, 15, n).astype(float)
    y = rng.integers(0, 2, n)
    w = 10.0 ** rng.uniform(-3, 12, n)
    check_definition(scores, y, w, probe_points(scores))


def test_input_forms_give_identical_results():
    rng = np.random.default_rng(5)
    scores, y = logistic_data(rng, 40)
    tests = rng.normal(size=15)
    ref = VennAbersCalibrator().fit(scores, y).predict_interval(tests)
    # Python lists.
    got = VennAbersCalibrator().fit(scores.tolist(), y.tolist()).predict_interval(tests.tolist())
    assert_array_equal(got, ref)
    # Strided, read-only views.
    s2 = np.repeat(scores, 2)[::2]
    y2 = np.repeat(y, 2)[::2]
    s2.flags.writeable = False
    y2.flags.writeable = False
    t2 = np.repeat(tests, 3)[::3]
    t2.flags.writeable = False
    got = VennAbersCalibrator().fit(s2, y2).predict_interval(t2)
    assert_array_equal(got, ref)
    assert_array_equal(s2, scores)
    # Integer and float32 scores.
    iscores = np.round(scores * 10).astype(np.int64)
    got = VennAbersCalibrator().fit(iscores, y).predict_interval(iscores)
    ref_i = VennAbersCalibrator().fit(iscores.astype(float), y).predict_interval(iscores.astype(float))
    assert_array_equal(got, ref_i)
    f32 = scores.astype(np.float32)
    got = VennAbersCalibrator().fit(f32, y).predict_interval(f32)
    check_definition(f32.astype(np.float64), y, None, f32.astype(np.float64))
    ref_32 = VennAbersCalibrator().fit(f32.astype(np.float64), y).predict_interval(
        f32.astype(np.float64)
    )
    assert_array_equal(got, ref_32)


def test_refit_replaces_state():
    rng = np.random.default_rng(9)
    s1, y1 = logistic_data(rng, 20)
    s2, y2 = logistic_data(rng, 25)
    cal = VennAbersCalibrator().fit(s1, y1)
    cal.fit(s2, y2)
    fresh = VennAbersCalibrator().fit(s2, y2)
    tests = probe_points(np.concatenate([s1, s2]))
    assert_array_equal(cal.predict_interval(tests), fresh.predict_interval(tests))
    assert_array_equal(cal.scores_, fresh.scores_)


# ---------------------------------------------------------------- hypothesis

small_ints = st.integers(-3, 3).map(float)
finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@st.composite
def calibration_sets(draw, weights=None, min_size=1, max_size=20, both_classes=False):
    n = draw(st.integers(min_size, max_size))
    score = draw(st.sampled_from([small_ints, finite]))
    s = np.array(draw(st.lists(score, min_size=n, max_size=n)), dtype=np.float64)
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    if both_classes:
        assume(y.any() and not y.all())
    if weights is None:
        weights = draw(st.sampled_from(["unit", "int", "float"]))
    if weights == "unit":
        w = None
    elif weights == "int":
        w = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=float)
    else:
        weight = st.one_of(
            st.just(0.0),
            st.floats(0.05, 5.0),
            st.integers(1, 30).map(lambda i: i / 10),  # decimals: inexact binary sums
        )
        w = np.array(draw(st.lists(weight, min_size=n, max_size=n)))
    if w is not None:
        assume(w.sum() > 0)
    extra = draw(st.lists(st.one_of(small_ints, finite), min_size=0, max_size=5))
    tests = np.concatenate([probe_points(s), np.array(extra, dtype=np.float64)])
    return s, y.astype(np.int64), w, tests


@given(calibration_sets())
def test_matches_definition(data):
    s, y, w, tests = data
    check_definition(s, y, w, tests)


@given(calibration_sets())
def test_interval_is_ordered_and_in_unit_interval(data):
    s, y, w, tests = data
    cal = VennAbersCalibrator(classes=[0, 1]).fit(s, y, sample_weight=w)
    interval = cal.predict_interval(tests)
    p0, p1 = interval[:, 0], interval[:, 1]
    assert np.all(p0 >= 0.0)
    assert np.all(p0 <= p1)
    assert np.all(p1 <= 1.0)


@given(calibration_sets())
def test_monotone_in_the_test_score(data):
    s, y, w, tests = data
    tests = np.sort(tests)
    cal = VennAbersCalibrator(classes=[0, 1]).fit(s, y, sample_weight=w)
    interval = cal.predict_interval(tests)
    # Exact for integer weights (all sums exact); float weights may round.
    tol = 0.0 if w is None or np.all(w == np.round(w)) else 1e-12
    assert np.all(np.diff(interval[:, 0]) >= -tol)
    assert np.all(np.diff(interval[:, 1]) >= -tol)
    assert np.all(np.diff(cal.predict_proba(tests)[:, 1]) >= -tol - 1e-15)
    cal.set_params(merge="brier").fit(s, y, sample_weight=w)
    assert np.all(np.diff(cal.predict_proba(tests)[:, 1]) >= -tol - 1e-15)


@given(calibration_sets())
def test_lemma_2_bounds(data):
    s, y, w, tests = data
    ww = np.ones(len(s)) if w is None else w
    k_pos = float(np.sum(ww[y == 1]))
    k_neg = float(np.sum(ww[y == 0]))
    cal = VennAbersCalibrator(classes=[0, 1]).fit(s, y, sample_weight=w)
    interval = cal.predict_interval(tests)
    p = cal.predict_proba(tests)[:, 1]
    eps = 1e-13
    assert np.all(interval[:, 1] >= 1.0 / (k_neg + 1.0) - eps)
    assert np.all(interval[:, 0] <= 1.0 - 1.0 / (k_pos + 1.0) + eps)
    assert np.all(p >= 1.0 / (k_neg + 2.0) - eps)
    assert np.all(p <= 1.0 - 1.0 / (k_pos + 2.0) + eps)
    assert np.all((p > 0.0) & (p < 1.0))  # Vovk & Petej 2014, Lemma 2


@given(calibration_sets(weights="int"))
def test_integer_weights_equal_repeated_rows(data):
    s, y, w, tests = data
    reps = w.astype(np.intp)
    weighted = VennAbersCalibrator(classes=[0, 1]).fit(s, y, sample_weight=w)
    repeated = VennAbersCalibrator(classes=[0, 1]).fit(np.repeat(s, reps), np.repeat(y, reps))
    assert_array_equal(weighted.scores_, repeated.scores_)
    assert_array_equal(weighted.predict_interval(tests), repeated.predict_interval(tests))
    assert_array_equal(weighted.predict_proba(tests), repeated.predict_proba(tests))


@given(calibration_sets(), st.randoms(use_true_random=False))
def test_permutation_invariance(data, rnd):
    s, y, w, tests = data
    perm = list(range(len(s)))
    rnd.shuffle(perm)
    perm = np.array(perm, dtype=np.intp)
    a = VennAbersCalibrator(classes=[0, 1]).fit(s, y, sample_weight=w)
    b = VennAbersCalibrator(classes=[0, 1]).fit(
        s[perm], y[perm], sample_weight=None if w is None else w[perm]
    )
    assert_array_equal(a.scores_, b.scores_)
    if w is None or np.all(w == np.round(w)):
        assert_array_equal(a.predict_interval(tests), b.predict_interval(tests))
    else:  # weight sums may be added in another order
        assert max_abs_diff(a.predict_interval(tests), b.predict_interval(tests)) <= ATOL


ENCODINGS = {
    "01": lambda y: y.astype(np.int64),
    "12": lambda y: y.astype(np.int64) + 1,
    "pm1": lambda y: 2 * y.astype(np.int64) - 1,
    "strings": lambda y: np.where(y, "yes", "no"),
    "bool": lambda y: y.astype(bool),
    "float": lambda y: y.astype(np.float64),
    "object": lambda y: np.array(["no", "yes"], dtype=object)[y.astype(np.intp)],
}
CLASSES = {
    "01": [0, 1], "12": [1, 2], "pm1": [-1, 1], "strings": ["no", "yes"],
    "bool": [False, True], "float": [0.0, 1.0], "object": ["no", "yes"],
}


@given(calibration_sets(both_classes=True))
def test_label_encodings_give_identical_probabilities(data):
    s, y, w, tests = data
    y01 = y.astype(bool)
    ref = VennAbersCalibrator().fit(s, y01.astype(int), sample_weight=w)
    for name, encode in ENCODINGS.items():
        cal = VennAbersCalibrator().fit(s, encode(y01), sample_weight=w)
        assert list(cal.classes_) == CLASSES[name], name
        assert_array_equal(cal.predict_interval(tests), ref.predict_interval(tests))
        assert_array_equal(cal.predict_proba(tests), ref.predict_proba(tests))
        pred = cal.predict(tests)
        expected = np.where(
            ref.predict_proba(tests)[:, 1] > 0.5, CLASSES[name][1], CLASSES[name][0]
        )
        assert list(pred) == list(expected), name


@given(calibration_sets())
def test_label_encodings_with_explicit_classes(data):
    s, y, w, tests = data
    y01 = y.astype(bool)
    ref = VennAbersCalibrator(classes=[0, 1]).fit(s, (~y01).astype(int), sample_weight=w)
    for name, encode in ENCODINGS.items():
        # classes given in reverse order, [negative, positive]: the smaller label is positive.
        cal = VennAbersCalibrator(classes=CLASSES[name][::-1]).fit(
            s, encode(y01), sample_weight=w
        )
        assert list(cal.classes_) == CLASSES[name][::-1], name
        assert_array_equal(cal.predict_interval(tests), ref.predict_interval(tests))


@given(calibration_sets())
def test_brier_merge(data):
    s, y, w, tests = data
    cal = VennAbersCalibrator(classes=[0, 1], merge="brier").fit(s, y, sample_weight=w)
    interval = cal.predict_interval(tests)
    proba = cal.predict_proba(tests)
    p0, p1 = ivap_by_definition(s, y, w, tests)
    assert max_abs_diff(proba[:, 1], brier_minimax(p0, p1)) <= ATOL
    assert max_abs_diff(proba[:, 1], brier_minimax(interval[:, 0], interval[:, 1])) <= 1e-15
    assert np.all(proba[:, 1] >= interval[:, 0] - 1e-15)
    assert np.all(proba[:, 1] <= interval[:, 1] + 1e-15)
    log = VennAbersCalibrator(classes=[0, 1], merge="log").fit(s, y, sample_weight=w)
    assert_array_equal(log.predict_interval(tests), interval)


@given(calibration_sets())
def test_log_merge_within_interval(data):
    s, y, w, tests = data
    cal = VennAbersCalibrator(classes=[0, 1]).fit(s, y, sample_weight=w)
    interval = cal.predict_interval(tests)
    p = cal.predict_proba(tests)[:, 1]
    assert max_abs_diff(p, log_minimax(interval[:, 0], interval[:, 1])) <= 1e-15
    assert np.all(p >= interval[:, 0] - 1e-15)
    assert np.all(p <= interval[:, 1] + 1e-15)


@pytest.mark.parametrize("merge", ["log", "brier"])
@given(data=calibration_sets())
def test_predict_proba_rows_sum_to_one(merge, data):
    s, y, w, tests = data
    cal = VennAbersCalibrator(classes=[0, 1], merge=merge).fit(s, y, sample_weight=w)
    proba = cal.predict_proba(tests)
    assert np.all(proba >= 0.0)
    assert np.all(proba <= 1.0)
    assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=2**-52)


@given(calibration_sets())
def test_predict_matches_proba(data):
    s, y, w, tests = data
    cal = VennAbersCalibrator(classes=[0, 1]).fit(s, y, sample_weight=w)
    p = cal.predict_proba(tests)[:, 1]
    pred = cal.predict(tests)
    assert_array_equal(pred, np.where(p > 0.5, 1, 0))


@given(calibration_sets())
def test_fit_summary_equals_fit(data):
    from venncal import ScoreSummary

    s, y, w, tests = data
    direct = VennAbersCalibrator(classes=[0, 1]).fit(s, y, sample_weight=w)
    summary = ScoreSummary.from_arrays(s, y, sample_weight=w)
    via_summary = VennAbersCalibrator().fit_summary(summary)
    assert_array_equal(via_summary.classes_, [0, 1])
    assert_array_equal(via_summary.scores_, direct.scores_)
    assert_array_equal(via_summary.predict_interval(tests), direct.predict_interval(tests))


# ---------------------------------------------------------------- CVAP merge


@pytest.mark.parametrize("K", [1, 2, 5])
def test_merge_folds_matches_reference(K):
    rng = np.random.default_rng(K)
    scores, y = logistic_data(rng, 60)
    folds = np.arange(60) % K
    tests = np.concatenate([rng.normal(size=10), probe_points(scores)[:8]])
    p0s, p1s = [], []
    for k in range(K):
        idx = folds == k
        p0, p1 = ivap_by_definition(scores[idx], y[idx], None, tests)
        p0s.append(p0)
        p1s.append(p1)
    p0s, p1s = np.array(p0s), np.array(p1s)
    for merge in ("log", "brier"):
        p, interval = merge_folds(p0s, p1s, merge=merge)
        assert max_abs_diff(p, cvap_merge(p0s, p1s, merge)) <= ATOL
        assert max_abs_diff(interval, cvap_interval(p0s, p1s)) <= ATOL
    if K == 1:
        assert max_abs_diff(merge_folds(p0s, p1s)[0], log_minimax(p0s[0], p1s[0])) <= 1e-15


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_large_random_against_definition(seed):
    rng = np.random.default_rng(1000 + seed)
    scores, y = logistic_data(rng, 150)
    scores = np.round(scores, 2)
    w = rng.uniform(0, 3, size=150)
    tests = np.concatenate([rng.normal(size=40), scores[:20]])
    check_definition(scores, y, w, tests)


# ---------------------------------------------------------------- CVAP as a ScoreCalibrator


def _bits(a):
    """An array's float64 bits, so that equality means equal to the bit (and -0.0 != 0.0)."""
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def _cvap_data(seed, weighted):
    rng = np.random.default_rng(seed)
    scores, y = logistic_data(rng, 120)
    scores = np.round(scores, 1)  # ties within and across folds
    folds = np.array(["b", "a", "c"])[rng.integers(0, 3, 120)]
    w = rng.integers(0, 3, 120).astype(float) if weighted else None
    if w is not None:
        w[:3] = 1.0  # every fold keeps weight whatever the draw
        folds[:3] = ["a", "b", "c"]
    tests = np.concatenate([rng.normal(size=(20, 3)), np.repeat(scores[:6, None], 3, axis=1)])
    return scores, y, folds, w, tests


def test_cvap_is_a_score_calibrator():
    from venncal import CrossVennAbersCalibrator
    from venncal._base import ScoreCalibrator

    assert issubclass(CrossVennAbersCalibrator, ScoreCalibrator)
    assert CrossVennAbersCalibrator._group_param == "folds"
    assert VennAbersCalibrator._group_param is None


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("merge", ["log", "brier"])
def test_cvap_fit_summary_per_fold_equals_fit(weighted, merge):
    from venncal import CrossVennAbersCalibrator, ScoreSummary

    scores, y, folds, w, tests = _cvap_data(7, weighted)
    direct = CrossVennAbersCalibrator(merge=merge).fit(scores, y, w, folds=folds)
    per_fold = {
        f: ScoreSummary.from_arrays(
            scores[folds == f], y[folds == f], None if w is None else w[folds == f]
        )
        for f in ("c", "a", "b")  # any order: the folds are sorted
    }
    via = CrossVennAbersCalibrator(merge=merge).fit_summary(per_fold)
    assert via.folds_.tolist() == direct.folds_.tolist() == ["a", "b", "c"]
    assert_array_equal(via.classes_, direct.classes_)
    for a, b in zip(via.calibrators_, direct.calibrators_, strict=True):
        for name in ("scores_", "weights_", "positive_weights_", "p0_", "p1_"):
            assert_array_equal(_bits(getattr(a, name)), _bits(getattr(b, name)))
    assert_array_equal(_bits(via.predict_proba(tests)), _bits(direct.predict_proba(tests)))
    assert_array_equal(_bits(via.predict_interval(tests)), _bits(direct.predict_interval(tests)))


def test_cvap_fold_input_errors():
    from venncal import CrossVennAbersCalibrator, ScoreSummary

    scores, y, folds, _, _ = _cvap_data(3, False)
    with pytest.raises(TypeError, match="folds="):
        CrossVennAbersCalibrator().fit(scores, y)
    with pytest.raises(TypeError, match="one ScoreSummary per fold"):
        CrossVennAbersCalibrator().fit_summary(ScoreSummary.from_arrays(scores, y))
    with pytest.raises(TypeError, match="mapping"):
        CrossVennAbersCalibrator().fit_summary({})
    with pytest.raises(TypeError, match="ScoreSummary"):
        CrossVennAbersCalibrator().fit_summary({0: (scores, y)})
    with pytest.raises(ValueError, match="zero total sample_weight"):
        CrossVennAbersCalibrator().fit(
            scores, y, np.where(folds == "a", 0.0, 1.0), folds=folds
        )
    with pytest.raises(ValueError, match="merge"):
        CrossVennAbersCalibrator(merge="mean").fit(scores, y, folds=folds)


@pytest.mark.parametrize("weighted", [False, True])
def test_cvap_persist_round_trip_is_bit_exact(tmp_path, weighted):
    from venncal import CrossVennAbersCalibrator, persist

    scores, y, folds, w, tests = _cvap_data(11, weighted)
    labels = np.where(y == 1, "yes", "no")
    model = CrossVennAbersCalibrator(merge="brier").fit(scores, labels, w, folds=folds)
    persist.save(model, tmp_path / "cvap.json")
    copy = persist.load(tmp_path / "cvap.json")
    assert type(copy) is CrossVennAbersCalibrator
    assert copy.get_params() == model.get_params()
    assert_array_equal(copy.classes_, model.classes_)
    assert_array_equal(copy.folds_, model.folds_)
    assert_array_equal(_bits(copy.predict_proba(tests)), _bits(model.predict_proba(tests)))
    assert_array_equal(_bits(copy.predict_interval(tests)), _bits(model.predict_interval(tests)))
    assert_array_equal(copy.predict(tests), model.predict(tests))
