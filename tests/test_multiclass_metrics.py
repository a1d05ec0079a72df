"""Metrics of K-class probabilities (issue 24, deliverable 3).

Each is checked against its literal twin in ``tests/reference`` (loops over
the definition, exact fractions) on random, tied and extreme inputs,
against scikit-learn's ``log_loss`` and ``brier_score_loss`` for K classes,
against the binary metrics where the definitions coincide (K = 2, and a
class against the rest), and at the edges of floating point.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import multiclass_metrics_naive as naive
from venncal.metrics import (
    PROBA_SUM_TOL,
    brier_loss,
    calibration_bins,
    classwise_ece,
    ece,
    evaluate,
    evaluate_multiclass,
    log_loss,
    mce,
    multiclass_brier_loss,
    multiclass_log_loss,
    top_label_calibration_bins,
    top_label_ece,
    top_label_mce,
)

RTOL = 1e-12
# Binned gaps subtract two rounded bin means near 1 (see test_fuzz_metrics).
BIN_ATOL = 2.0**-45
EDGE_WEIGHTS = [0.0, 1e-310, 1e-300, 0.25, 1.0, 3.0, 2.0**53 - 1, 2.0**53, 1e17, 1e300, 1e308]
EDGE_P = [0.0, 1e-310, 1e-300, 0.1, 0.25, 0.5, 0.7, 1.0 - 2**-53, 1.0]


def close(got, want, atol=0.0):
    if math.isinf(want) or math.isnan(want):
        assert got == want or (math.isnan(got) and math.isnan(want)), (got, want)
    else:
        assert abs(got - want) <= RTOL * abs(want) + atol, (got, want)


def random_case(seed, n=300, k=4, weighted=False, labels=None):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.full(k, 0.7), size=n)
    y_idx = np.array([rng.choice(k, p=row) for row in proba])
    y_idx[:k] = np.arange(k)  # every class occurs
    classes = np.arange(k) if labels is None else np.asarray(labels)
    w = rng.exponential(size=n) * (rng.random(n) < 0.9) if weighted else None
    if w is not None:
        w[0] = 1.0
    return classes[y_idx], proba, classes, w


def tied_case(seed, n=200, k=3):
    """Probabilities on bin edges, equal maxima, repeated rows."""
    rng = np.random.default_rng(seed)
    templates = np.array([
        [0.5, 0.5, 0.0], [0.4, 0.4, 0.2], [0.3, 0.3, 0.4], [1 / 3, 1 / 3, 1 / 3],
        [0.1, 0.2, 0.7], [0.6, 0.2, 0.2], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0],
    ])[:, :k] if k == 3 else None
    proba = templates[rng.integers(0, len(templates), n)]
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    return y, proba, np.arange(k), None


def extreme_case(seed, n=60):
    rng = np.random.default_rng(seed)
    rows = np.array([
        [1e-310, 1.0 - 2**-53, 2**-53 - 1e-310], [1.0, 0.0, 0.0], [2**-53, 0.5, 0.5 - 2**-53],
        [1e-300, 1e-300, 1.0], [0.25, 0.25, 0.5], [1.0 - 2**-53, 2**-54, 2**-54],
    ])
    proba = rows[rng.integers(0, len(rows), n)]
    # true classes of positive probability, so that the log loss is finite
    y = np.array([rng.choice(np.flatnonzero(row > 0)) for row in proba])
    y[:3] = np.arange(3)
    proba[:3] = rows[4]
    return y, proba, np.arange(3), None


CASES = (
    [("random", s) for s in range(3)]
    + [("weighted", s) for s in range(3)]
    + [("tied", s) for s in range(3)]
    + [("extreme", s) for s in range(2)]
)


def make(kind, seed):
    if kind == "random":
        return random_case(seed, k=3 + seed)
    if kind == "weighted":
        return random_case(seed, k=3 + seed, weighted=True)
    return (tied_case if kind == "tied" else extreme_case)(seed)


@pytest.mark.parametrize(("kind", "seed"), CASES)
@pytest.mark.parametrize(("strategy", "n_bins"), [("uniform", 10), ("uniform", 7), ("quantile", 5)])
def test_against_the_literal_twins(kind, seed, strategy, n_bins):
    y, proba, classes, w = make(kind, seed)
    if strategy == "quantile" and w is not None:
        w = np.ceil(w * 4)  # whole weights: the quantile rule is exact for them
    kw = {"sample_weight": w}
    close(multiclass_log_loss(y, proba, **kw), naive.log_loss(y, proba, classes, w))
    close(multiclass_brier_loss(y, proba, **kw), naive.brier(y, proba, classes, w))
    want_ece, want_mce = naive.top_label_errors(y, proba, classes, n_bins, strategy, w)
    close(top_label_ece(y, proba, n_bins=n_bins, strategy=strategy, **kw), want_ece, BIN_ATOL)
    close(top_label_mce(y, proba, n_bins=n_bins, strategy=strategy, **kw), want_mce, BIN_ATOL)
    close(classwise_ece(y, proba, n_bins=n_bins, strategy=strategy, **kw),
          naive.classwise_ece(y, proba, classes, n_bins, strategy, w), BIN_ATOL)
    _, want_mce3 = naive.top_label_errors(y, proba, classes, n_bins, strategy, w, min_bin_count=3)
    got = top_label_mce(y, proba, n_bins=n_bins, strategy=strategy, min_bin_count=3, **kw)
    close(got, want_mce3, BIN_ATOL)
    ev = evaluate_multiclass(y, proba, n_bins=n_bins, strategy=strategy, **kw)
    close(ev["accuracy"], naive.accuracy(y, proba, classes, w))


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("weighted", [False, True])
def test_against_sklearn_log_loss_and_brier(k, weighted):
    skm = pytest.importorskip("sklearn.metrics")
    labels = np.array(["x", "b", "q", "a", "m"][:k])
    y, proba, _, w = random_case(k, n=400, k=k, weighted=weighted, labels=labels)
    # scikit-learn's columns are those of the sorted labels, as classes=None here
    order = np.argsort(labels)
    sorted_proba, sorted_labels = proba[:, order], labels[order]
    kw = {"labels": sorted_labels, "sample_weight": w}
    for ours in (multiclass_log_loss(y, sorted_proba, sample_weight=w),
                 multiclass_log_loss(y, proba, classes=labels, sample_weight=w)):
        assert ours == pytest.approx(skm.log_loss(y, sorted_proba, **kw), rel=1e-12, abs=0.0)
    ours = multiclass_brier_loss(y, proba, classes=labels, sample_weight=w)
    assert ours == pytest.approx(
        skm.brier_score_loss(y, sorted_proba, scale_by_half=False, **kw), rel=1e-12, abs=0.0)
    # scikit-learn's default: the sum over classes (as here) for K > 2, halved for K = 2
    half = 0.5 if k == 2 else 1
    ours = multiclass_brier_loss(y, proba, scale=half, classes=labels, sample_weight=w)
    assert ours == pytest.approx(skm.brier_score_loss(y, sorted_proba, **kw), rel=1e-12, abs=0.0)


@pytest.mark.parametrize("seed", range(4))
def test_two_classes_agree_with_the_binary_metrics(seed):
    rng = np.random.default_rng(seed)
    p = rng.random(500)
    p[:5] = [0.0, 0.5, 1.0, 0.3, 0.7]  # edges of the uniform bins, and certainties
    y = (rng.random(500) < p).astype(int)
    y[0], y[2] = 0, 1
    proba = np.c_[1.0 - p, p]
    w = rng.exponential(size=500) if seed % 2 else None
    kw = {"sample_weight": w}
    # log loss: the same definition (the binary one uses log1p for 1 - p)
    assert multiclass_log_loss(y, proba, **kw) == pytest.approx(log_loss(y, p, **kw), rel=1e-13,
                                                                abs=0.0)
    # Brier: both classes' squared errors are equal, so twice the binary one
    assert multiclass_brier_loss(y, proba, **kw) == pytest.approx(
        2 * brier_loss(y, p, **kw), rel=1e-13, abs=0.0)
    assert multiclass_brier_loss(y, proba, scale=0.5, **kw) == pytest.approx(
        brier_loss(y, p, **kw), rel=1e-13, abs=0.0)
    for strategy in ("uniform", "quantile"):
        # class-wise: the mean of the two binary ECEs, each class against the rest
        want = (ece(y == 1, p, strategy=strategy, **kw)
                + ece(y == 0, 1.0 - p, strategy=strategy, **kw)) / 2
        assert classwise_ece(y, proba, strategy=strategy, **kw) == want
        # top label: the binary ECE and MCE of the confidence against "predicted right"
        confidence = np.maximum(p, 1.0 - p)
        right = np.where(p > 1.0 - p, 1, 0) == y
        assert top_label_ece(y, proba, strategy=strategy, **kw) == ece(
            right, confidence, strategy=strategy, **kw)
        assert top_label_mce(y, proba, strategy=strategy, **kw) == mce(
            right, confidence, strategy=strategy, **kw)


def test_each_class_against_the_rest_is_the_binary_binning():
    from venncal.metrics._multiclass import _classwise_bins

    y, proba, classes, w = random_case(7, k=5, weighted=True)
    idx = np.searchsorted(classes, y)
    for k, bins in enumerate(_classwise_bins(idx, proba, w, 8, "quantile")):
        want = calibration_bins(y == classes[k], proba[:, k], n_bins=8, strategy="quantile",
                                sample_weight=w)
        for got_a, want_a in zip(bins, want, strict=True):
            np.testing.assert_array_equal(got_a, want_a)


def test_any_label_coding_gives_the_same_answer():
    y, proba, _, w = random_case(11, k=3, weighted=True)
    ev = evaluate_multiclass(y, proba, sample_weight=w, strategy="quantile").to_dict()
    for labels in (["a", "b", "c"], [5, 7, 9], [-1.5, 0.0, 2.5]):
        relabelled = np.asarray(labels)[y]
        got = evaluate_multiclass(relabelled, proba, sample_weight=w, strategy="quantile")
        assert got.to_dict() == ev
    # classes= fixes the column order: permuted columns with permuted classes agree
    perm = [2, 0, 1]
    named = np.array(["a", "b", "c"])
    got = evaluate_multiclass(named[y], proba[:, perm], classes=named[perm], sample_weight=w,
                              strategy="quantile")
    assert got.to_dict() == pytest.approx(ev, rel=1e-15, abs=0.0)  # the Brier sum's order changed
    # object labels (a pandas column of str) and a label absent from y named by classes
    obj = np.array(["a", "b", "c"], dtype=object)[y]
    assert evaluate_multiclass(obj, proba, sample_weight=w, strategy="quantile").to_dict() == ev
    two = np.where(y == 2, 0, y)
    assert math.isfinite(multiclass_log_loss(two, proba, classes=[0, 1, 2]))


def test_evaluate_multiclass_gathers_the_metrics():
    y, proba, classes, w = random_case(5, k=4, weighted=True)
    ev = evaluate_multiclass(y, proba, n_bins=6, min_bin_count=5, base=2, brier_scale=0.5,
                             sample_weight=w)
    assert list(ev) == ["log_loss", "brier", "top_label_ece", "top_label_mce", "classwise_ece",
                        "accuracy"]
    assert ev.units == {"log_loss": "bits"}
    kw = {"sample_weight": w}
    assert ev["log_loss"] == multiclass_log_loss(y, proba, base=2, **kw)
    assert ev["brier"] == multiclass_brier_loss(y, proba, scale=0.5, **kw)
    assert ev["top_label_ece"] == top_label_ece(y, proba, n_bins=6, **kw)
    assert ev["top_label_mce"] == top_label_mce(y, proba, n_bins=6, min_bin_count=5, **kw)
    assert ev["classwise_ece"] == classwise_ece(y, proba, n_bins=6, **kw)
    bins = top_label_calibration_bins(y, proba, n_bins=6, **kw)
    for got, want in zip(ev.bins, bins, strict=True):
        np.testing.assert_array_equal(got, want)
    assert "classwise_ece" in ev.to_text()


def test_binary_evaluate_is_unchanged_and_points_to_the_multiclass_one():
    y, proba, _, _ = random_case(2, k=3)
    with pytest.raises(ValueError, match=r"evaluate_multiclass\(y, proba\)"):
        evaluate(y, proba)
    with pytest.raises(ValueError, match=r"pass p\[:, 1\]"):  # two columns: as before
        evaluate([0, 1], [[0.4, 0.6], [0.3, 0.7]])
    assert list(evaluate([0, 1, 1], [0.2, 0.6, 0.9])) == [
        "log_loss", "brier", "rmse", "ece", "mce", "auc", "accuracy"]


def test_certain_wrong_is_inf_unless_its_weight_is_zero():
    proba = [[1.0, 0.0, 0.0], [0.2, 0.3, 0.5], [0.0, 0.0, 1.0]]
    assert multiclass_log_loss([1, 1, 2], proba, classes=[0, 1, 2]) == math.inf
    got = multiclass_log_loss([1, 1, 2], proba, classes=[0, 1, 2], sample_weight=[0, 1, 1])
    assert got == pytest.approx(-math.log(0.3) / 2, rel=1e-15, abs=0.0)
    assert multiclass_brier_loss([0, 1, 2], [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]) == 0.0


def test_ties_go_to_the_first_class_in_classes():
    # rows with two equal maxima: the predicted class is the first column of them
    proba = np.array([[0.4, 0.4, 0.2], [0.4, 0.4, 0.2]])
    assert top_label_calibration_bins([0, 1], proba, n_bins=2, classes=[0, 1, 2]).frac_pos[0] == 0.5
    ev = evaluate_multiclass(["a", "b"], proba, classes=["a", "b", "c"])
    assert ev["accuracy"] == 0.5
    ev = evaluate_multiclass(["a", "b"], proba, classes=["b", "a", "c"])
    assert ev["accuracy"] == 0.5  # now "b" is predicted, right for the second row


BAD = [
    ({"proba": [[0.5, 0.4, 0.2]]}, r"sum to 1 \(within 1e-06\); row 0 \(from 0\) sums to 1\.1"),
    ({"proba": [[0.5, 0.5, 0.0], [0.2, 0.2, 0.2]]}, r"row 1 \(from 0\) sums to 0\.6"),
    ({"proba": [[0.5, 0.5, 0.0], [np.nan, 0.5, 0.5]]}, r"finite .* got nan in row 1 \(from 0\), "
                                                       r"column 0"),
    ({"proba": [[0.5, 0.5, 0.0], [1.5, -0.5, 0.0]]}, r"\[0, 1\]; got 1\.5 in row 1"),
    ({"proba": [[0.5, 0.5, 0.0], [np.inf, 0.0, 0.0]]}, r"got inf in row 1"),
    ({"proba": [0.5, 0.5]}, r"2-D array of shape \(n_samples, n_classes\)"),
    ({"proba": [[1.0], [1.0]]}, r"at least 2\s+columns"),
    ({"proba": np.zeros((0, 3)), "y": []}, r"proba is empty"),
    ({"y": [0, 1]}, r"proba and y have different lengths: 3 and 2"),
    ({"y": [0, 1, 7], "classes": [0, 1, 2]}, r"label 7 \(at index 2\) that is not in classes"),
    ({"y": ["0", "1", "2"], "classes": [0, 1, 2]}, r"label '0' \(at index 0\)"),
    ({"y": [0, 1, 1]}, r"y holds 2 classes \(0, 1\) but proba has 3 columns; pass classes="),
    ({"classes": [0, 1]}, r"classes must name 3 distinct labels"),
    ({"classes": [0, 1, 1]}, r"classes must name 3 distinct labels"),
    ({"y": [0.0, 1.0, np.nan]}, r"y contains NaN \(first at index 2\)"),
    ({"y": [[0], [1], [2]]}, r"y must be a 1-D array"),
    ({"sample_weight": [1, 1]}, r"sample_weight has length 2"),
    ({"sample_weight": [1, -1, 1]}, r"sample_weight must be non-negative"),
    ({"sample_weight": [0, 0, 0]}, r"sample_weight sums to zero"),
    ({"sample_weight": [1, np.nan, 1]}, r"sample_weight must be finite"),
]
GOOD = {"y": [0, 1, 2], "proba": [[0.5, 0.3, 0.2], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]]}
FUNCS = [multiclass_log_loss, multiclass_brier_loss, top_label_ece, top_label_mce, classwise_ece,
         top_label_calibration_bins, evaluate_multiclass]


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize(("change", "match"), BAD)
def test_bad_input_raises_a_clear_error(func, change, match):
    args = {**GOOD, **change}
    y, proba = args.pop("y"), args.pop("proba")
    with pytest.raises(ValueError, match=match):
        func(y, proba, **args)


@pytest.mark.parametrize("func", FUNCS)
def test_non_numeric_proba_is_a_type_error(func):
    with pytest.raises(TypeError, match="proba must be real numbers"):
        func([0, 1], [["a", "b"], ["c", "d"]])


@pytest.mark.parametrize(("func", "params"), [
    (top_label_ece, {"n_bins": 0}), (classwise_ece, {"strategy": "equal"}),
    (top_label_mce, {"min_bin_count": -1}), (multiclass_log_loss, {"base": 3}),
    (multiclass_brier_loss, {"scale": 0}), (evaluate_multiclass, {"brier_scale": -1}),
])
def test_bad_parameters_name_the_function(func, params):
    with pytest.raises(ValueError, match=rf"{func.__name__}: {next(iter(params))} must be"):
        func(GOOD["y"], GOOD["proba"], **params)


def test_rows_within_the_tolerance_are_accepted():
    off = 0.9 * PROBA_SUM_TOL
    proba = [[0.5 + off, 0.5, 0.0], [0.2, 0.3, 0.5 - off]]
    assert math.isfinite(multiclass_log_loss([0, 2], proba, classes=[0, 1, 2]))


# -- the edges of floating point ------------------------------------------------


@st.composite
def weighted_rows(draw, max_size=10):
    n = draw(st.integers(1, max_size))
    k = draw(st.integers(2, 4))
    raw = np.array(draw(st.lists(
        st.lists(st.one_of(st.sampled_from(EDGE_P), st.floats(0, 1)), min_size=k, max_size=k),
        min_size=n, max_size=n)), dtype=np.float64)
    for row in raw:
        if not row.sum() > 0:
            row[draw(st.integers(0, k - 1))] = 1.0
    proba = raw / raw.sum(axis=1, keepdims=True)
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    w = draw(st.lists(st.sampled_from(EDGE_WEIGHTS), min_size=n, max_size=n))
    if not any(w):
        w[draw(st.integers(0, n - 1))] = draw(st.sampled_from(EDGE_WEIGHTS[1:]))
    return y, proba, np.arange(k), np.array(w, dtype=np.float64)


@given(weighted_rows(), st.sampled_from([1, 3, 10]))
def test_weights_at_the_edges_against_the_twins(data, n_bins):
    y, proba, classes, w = data
    kw = {"classes": classes, "sample_weight": w}
    atol = 1e-250  # products with shares below 2**-1022 may underflow (test_fuzz_metrics)
    close(multiclass_log_loss(y, proba, **kw), naive.log_loss(y, proba, classes, w), atol)
    close(multiclass_brier_loss(y, proba, **kw), naive.brier(y, proba, classes, w), atol)
    want_ece, want_mce = naive.top_label_errors(y, proba, classes, n_bins, "uniform", w)
    close(top_label_ece(y, proba, n_bins=n_bins, **kw), want_ece, BIN_ATOL)
    close(top_label_mce(y, proba, n_bins=n_bins, **kw), want_mce, BIN_ATOL)
    close(classwise_ece(y, proba, n_bins=n_bins, **kw),
          naive.classwise_ece(y, proba, classes, n_bins, "uniform", w), BIN_ATOL)


@given(weighted_rows(), st.sampled_from([2.0**-1000, 2.0**-60, 3.0, 2.0**900]))
def test_weighted_metrics_do_not_depend_on_the_scale(data, factor):
    y, proba, classes, w = data
    with np.errstate(over="ignore"):
        big = w.max() * factor
    if not (0 < big < 1e308 and w[w > 0].min() * factor > 2.0**-1022):
        return  # the scaled weights must stay exact
    if factor == 3.0 and not (np.all(w == np.floor(w)) and w.sum() * 64 < 2.0**52):
        # and so must the quantile rule's running sums (upper_mass_bins: exact for whole
        # weights of total below 2**52): 3 * (1 + 2**53) rounds unlike 1 + 2**53, and a
        # row of weight 2**53 on a bin edge changes bin (found by hypothesis)
        return
    # a common factor changes no metric beyond a few ulps (as test_fuzz_metrics's)
    a = evaluate_multiclass(y, proba, classes=classes, sample_weight=w, strategy="quantile")
    b = evaluate_multiclass(y, proba, classes=classes, sample_weight=w * factor,
                            strategy="quantile")
    for name, value in a.items():
        close(b[name], value, BIN_ATOL)


@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(range(6)), st.integers(0, 3)),
                min_size=1, max_size=12))
def test_whole_weights_equal_repeated_rows(rows):
    table = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [1 / 3, 1 / 3, 1 / 3], [0.1, 0.1, 0.8],
                      [0.7, 0.2, 0.1], [0.0, 1.0, 0.0]])
    y = np.array([r[0] for r in rows])
    proba = table[[r[1] for r in rows]]
    w = np.array([r[2] for r in rows], dtype=np.float64)
    if not w.any():
        return
    rep = np.repeat(np.arange(len(rows)), w.astype(int))
    for strategy in ("uniform", "quantile"):
        a = evaluate_multiclass(y, proba, classes=[0, 1, 2], sample_weight=w, strategy=strategy)
        b = evaluate_multiclass(y[rep], proba[rep], classes=[0, 1, 2], strategy=strategy)
        for key in a:
            assert a[key] == pytest.approx(b[key], rel=1e-12, abs=1e-15, nan_ok=True), key


def test_weights_of_1e308_and_2_53():
    proba = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    y = [0, 1, 2]
    for w in ([1e308, 1e308, 1e308], [2.0**53, 2.0**53 + 2, 1.0], [1e-310, 1e-310, 1e-310]):
        w = np.array(w)
        classes = [0, 1, 2]
        for got, want in (
            (multiclass_log_loss(y, proba, sample_weight=w), naive.log_loss(y, proba, classes, w)),
            (multiclass_brier_loss(y, proba, sample_weight=w), naive.brier(y, proba, classes, w)),
            (top_label_ece(y, proba, sample_weight=w),
             naive.top_label_errors(y, proba, classes, w=w)[0]),
        ):
            close(got, want, BIN_ATOL)
