import re
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import venncal

from venncal import IsotonicCalibrator, ScoreSummary, VennAbersCalibrator

BAD = (ValueError, TypeError)

S = np.array([0.1, 0.4, 0.35, 0.8, 0.5])
Y = np.array([0, 0, 1, 1, 0])
W = np.array([1.0, 2.0, 0.5, 1.0, 3.0])


def with_value(arr, i, value):
    out = np.array(arr, dtype=np.float64)
    out[i] = value
    return out


def anyof(*words):
    # Case-insensitive regex matching any of the key words.
    return "(?i)" + "|".join(words)


FINITE = anyof("finite", "nan", "inf")
LENGTH = anyof("length", "inconsistent", "shape", "samples")
SHAPE = anyof("1-?d", "2-?d", "shape", "dimension")
SHAPE_OR_LENGTH = anyof("1-?d", "2-?d", "shape", "dimension", "length", "inconsistent")
EMPTY = anyof("empty", "at least", "0 sample")

# (id, scores, y, sample_weight, match)
BAD_FIT_INPUTS = [
    ("nan-score", with_value(S, 2, np.nan), Y, None, FINITE),
    ("inf-score", with_value(S, 0, np.inf), Y, None, FINITE),
    ("neg-inf-score", with_value(S, 4, -np.inf), Y, None, FINITE),
    ("nan-weight", S, Y, with_value(W, 1, np.nan), FINITE),
    ("inf-weight", S, Y, with_value(W, 3, np.inf), FINITE),
    ("negative-weight", S, Y, with_value(W, 2, -0.5), r"(?i)negative"),
    ("tiny-negative-weight", S, Y, with_value(W, 2, -1e-300), r"(?i)negative"),
    ("three-classes", S, np.array([0, 1, 2, 1, 0]), None, r"(?i)class"),
    ("three-string-classes", S, np.array(["a", "b", "c", "a", "b"]), None, r"(?i)class"),
    ("y-too-short", S, Y[:-1], None, LENGTH),
    ("y-too-long", S, np.append(Y, 1), None, LENGTH),
    ("weight-too-short", S, Y, W[:-1], LENGTH),
    ("weight-too-long", S, Y, np.append(W, 1.0), LENGTH),
    ("empty", np.array([]), np.array([]), None, EMPTY),
    ("empty-list", [], [], None, EMPTY),
    ("2d-scores", np.column_stack([S, S]), Y, None, SHAPE),
    ("2d-scores-one-column", S[:, None], Y, None, SHAPE),
    ("0d-scores", np.float64(0.5), np.array([1]), None, SHAPE),
    ("2d-y", S, np.column_stack([Y, Y]), None, SHAPE),
    ("2d-weights", S, Y, np.column_stack([W, W]), SHAPE_OR_LENGTH),
    ("string-scores", np.array(["a", "b", "c", "d", "e"]), Y, None, r"(?i)real|numer|float"),
    ("complex-scores", S + 1j, Y, None, r"(?i)real|complex"),
    ("nan-label", S, np.array([0.0, 1.0, np.nan, 1.0, 0.0]), None, r"(?i)nan|class"),
    ("single-class-not-01", S, np.full(5, 2), None, r"(?i)class"),
    ("single-string-class", S, np.full(5, "yes"), None, r"(?i)class"),
    ("all-zero-weights", S, Y, np.zeros(5), r"(?i)zero|positive|empty|weight"),
]


@pytest.mark.parametrize(
    ("scores", "y", "sample_weight", "match"),
    [case[1:] for case in BAD_FIT_INPUTS],
    ids=[case[0] for case in BAD_FIT_INPUTS],
)
def test_fit_rejects_bad_input(scores, y, sample_weight, match):
    with pytest.raises(BAD, match=match):
        VennAbersCalibrator().fit(scores, y, sample_weight=sample_weight)


def test_fit_error_names_the_offending_index():
    with pytest.raises(ValueError, match="index 2"):
        VennAbersCalibrator().fit(with_value(S, 2, np.nan), Y)


def test_failed_fit_does_not_touch_a_fitted_model():
    cal = VennAbersCalibrator().fit(S, Y)
    before = cal.predict_interval(S)
    with pytest.raises(BAD):
        cal.fit(with_value(S, 0, np.nan), Y)
    np.testing.assert_array_equal(cal.predict_interval(S), before)


@pytest.mark.parametrize("merge", ["mean", "Log", None, 1])
def test_bad_merge_parameter(merge):
    with pytest.raises(BAD, match=r"(?i)merge"):
        VennAbersCalibrator(merge=merge).fit(S, Y)


@pytest.mark.parametrize(
    "classes",
    [[0, 1, 2], [1, 1], [0], "ab"],
    ids=["three", "duplicate", "one", "string"],
)
def test_bad_classes_parameter(classes):
    with pytest.raises(BAD, match=r"(?i)class"):
        VennAbersCalibrator(classes=classes).fit(S, Y)


def test_labels_outside_given_classes():
    with pytest.raises(BAD, match=r"(?i)class"):
        VennAbersCalibrator(classes=[1, 2]).fit(S, Y)


@pytest.mark.parametrize(
    ("y", "classes", "expected", "positive"),
    [
        (["b", "a", "b"], None, ["a", "b"], [True, False, True]),  # default: sorted
        (["b", "a", "b"], ["b", "a"], ["b", "a"], [False, True, False]),  # the order given
        ([2, 10, 2], [10, 2], [10, 2], [True, False, True]),
        ([1, 1], [1, 0], [1, 0], [False, False]),  # one class seen, named first: negative
        ([True, False], [True, False], [True, False], [False, True]),
    ],
)
def test_check_labels_keeps_the_order_of_classes(y, classes, expected, positive):
    from venncal._validation import check_labels

    cls, y01 = check_labels(np.array(y), classes=classes)
    assert cls.tolist() == expected
    assert y01.tolist() == positive


def test_observed_labels():
    from venncal._validation import observed_labels

    assert observed_labels(np.array([3, 1, 3])).tolist() == [1, 3]
    assert observed_labels(["x"]).tolist() == ["x"]
    with pytest.raises(ValueError, match="y has 3 classes"):
        observed_labels([1, 2, 3])
    with pytest.raises(ValueError, match="different lengths"):
        observed_labels([1, 2], n=3)
    with pytest.raises(ValueError, match="NaN"):
        observed_labels([0.0, np.nan])


def test_scalar_sample_weight():
    with pytest.raises(BAD, match=r"(?i)sample_weight|weight"):
        VennAbersCalibrator().fit(S, Y, sample_weight=2.0)


BAD_PREDICT_INPUTS = [
    ("nan", np.array([0.2, np.nan]), FINITE),
    ("inf", np.array([np.inf, 0.2]), FINITE),
    ("neg-inf", np.array([-np.inf]), FINITE),
    ("empty", np.array([]), EMPTY),
    ("2d", np.column_stack([S, S]), SHAPE),
    ("2d-one-column", S[:, None], SHAPE),
    ("strings", np.array(["x", "y"]), r"(?i)real|numer|float"),
    ("complex", np.array([0.1 + 1j]), r"(?i)real|complex"),
]
PREDICT_METHODS = ["predict_interval", "predict_proba", "predict"]


@pytest.mark.parametrize("method", PREDICT_METHODS)
@pytest.mark.parametrize(
    ("scores", "match"),
    [case[1:] for case in BAD_PREDICT_INPUTS],
    ids=[case[0] for case in BAD_PREDICT_INPUTS],
)
def test_predict_rejects_bad_input(method, scores, match):
    cal = VennAbersCalibrator().fit(S, Y)
    with pytest.raises(BAD, match=match):
        getattr(cal, method)(scores)


@pytest.mark.parametrize("method", PREDICT_METHODS)
def test_predict_before_fit(method):
    with pytest.raises(BAD, match=r"(?i)fit"):
        getattr(VennAbersCalibrator(), method)(S)


# (id, scores, y, sample_weight, match)
BAD_SUMMARY_INPUTS = [
    ("nan-score", with_value(S, 2, np.nan), Y, None, FINITE),
    ("inf-score", with_value(S, 0, np.inf), Y, None, FINITE),
    ("nan-weight", S, Y, with_value(W, 1, np.nan), FINITE),
    ("inf-weight", S, Y, with_value(W, 3, -np.inf), FINITE),
    ("negative-weight", S, Y, with_value(W, 2, -1.0), r"(?i)negative"),
    ("label-2", S, np.array([0, 1, 2, 1, 0]), None, r"(?i)0 and 1|label|class|y"),
    ("label-minus-1", S, np.array([0, 1, -1, 1, 0]), None, r"(?i)0 and 1|label|class|y"),
    ("string-labels", S, np.array(["a", "b", "a", "b", "a"]), None, r"(?i)0 and 1|label|class"),
    ("y-too-short", S, Y[:-1], None, LENGTH),
    ("weight-too-long", S, Y, np.append(W, 1.0), LENGTH),
    ("2d-scores", np.column_stack([S, S]), Y, None, SHAPE),
    ("2d-y", S, np.column_stack([Y, Y]), None, SHAPE_OR_LENGTH),
    ("empty", np.array([]), np.array([]), None, EMPTY),
    ("string-scores", np.array(["a", "b", "c", "d", "e"]), Y, None, r"(?i)real|numer|float"),
    ("all-zero-weights", S, Y, np.zeros(5), r"(?i)zero|positive|empty|weight"),
]


@pytest.mark.parametrize(
    ("scores", "y", "sample_weight", "match"),
    [case[1:] for case in BAD_SUMMARY_INPUTS],
    ids=[case[0] for case in BAD_SUMMARY_INPUTS],
)
def test_score_summary_rejects_bad_input(scores, y, sample_weight, match):
    with pytest.raises(BAD, match=match):
        ScoreSummary.from_arrays(scores, y, sample_weight=sample_weight)


def test_score_summary_merge_rejects_other_types():
    summary = ScoreSummary.from_arrays(S, Y)
    with pytest.raises(TypeError, match=r"(?i)ScoreSummary"):
        summary.merge((S, W, W))


def test_valid_edge_inputs_are_accepted():
    # Not errors: zero weights mixed with positive ones, a single observation,
    # bool labels, integer scores, float labels 0.0/1.0.
    VennAbersCalibrator().fit(S, Y, sample_weight=with_value(W, 0, 0.0))
    VennAbersCalibrator(classes=[0, 1]).fit([0.5], [1])  # one class: named (issue 22)
    VennAbersCalibrator().fit([0.5], [True])  # booleans: True is the positive class
    VennAbersCalibrator().fit(S, Y.astype(bool))
    VennAbersCalibrator().fit(np.arange(5), Y)
    VennAbersCalibrator().fit(S, Y.astype(float))
    ScoreSummary.from_arrays(S, Y.astype(bool), sample_weight=with_value(W, 0, 0.0))


# -- issue 22: a single class is never guessed; relative weights are flagged --------

BATCH = ["ivap", "cvap", "platt", "isotonic", "histogram", "bbq", "enir", "quantized-isotonic"]


def _fit(method, scores, y, w=None, **params):
    from venncal._registry import method_class

    cal = method_class(method)(**params)
    folds = {"folds": np.arange(len(scores)) % 2} if method == "cvap" else {}
    return cal.fit(scores, y, w, **folds)


@pytest.mark.parametrize("method", BATCH)
@pytest.mark.parametrize("label", [0, 1, 2, "good"])
def test_a_single_class_is_refused_unless_classes_name_both(method, label):
    # A filtered extract of German credit (coded 1/2) holding only 1s fitted as
    # classes {0, 1} and predicted 0.99 for everyone; only 2s were refused.
    scores = np.array([0.1, 0.4, 0.6, 0.9])
    y = np.array([label] * 4)
    with pytest.raises(ValueError, match=r"single class .*pass classes=\[negative, positive\]"):
        _fit(method, scores, y)
    classes = [label, "bad"] if isinstance(label, str) else [label, label + 1]
    cal = _fit(method, scores, y, classes=classes)
    assert list(cal.classes_) == classes
    assert np.all(cal.predict_proba(scores)[:, 1] < 0.5)  # the label seen is the negative one


def test_single_class_checks_for_streams_keep_0_and_1():
    from venncal._validation import check_labels

    assert check_labels([1, 1])[0].tolist() == [0, 1]  # a stream's first labels
    assert check_labels([True])[0].tolist() == [False, True]
    assert check_labels([True], single_01=False)[0].tolist() == [False, True]
    with pytest.raises(ValueError, match=r"single class \(1\), so"):
        check_labels([1, 1], single_01=False)


RELATIVE = {  # calibrators whose fit depends on the total weight
    "ivap": {}, "cvap": {}, "platt": {}, "bbq": {}, "enir": {},
}
SCALE_FREE = {"isotonic": {}, "histogram": {}, "platt": {"targets": "labels"},
              "quantized-isotonic": {}}


@pytest.mark.parametrize("method", list(RELATIVE))
def test_relative_weights_get_a_weight_scale_warning(method):
    import venncal
    from venncal import ScoreSummary

    rng = np.random.default_rng(0)
    scores = rng.random(60)
    y = rng.random(60) < scores
    w = np.full(60, 1 / 60)  # importance weights normalised to sum to 1
    with pytest.warns(venncal.WeightScaleWarning, match=r"sums to 1 over 60 rows.*w \* n"):
        _fit(method, scores, y, w, **RELATIVE[method])
    summary = ScoreSummary.from_arrays(scores, y, w)
    cal = _fit(method, scores, y, **RELATIVE[method])
    arg = {0: summary} if method == "cvap" else summary
    with pytest.warns(venncal.WeightScaleWarning, match="distinct scores"):
        cal.fit_summary(arg)


@pytest.mark.parametrize("method", list(RELATIVE) + list(SCALE_FREE))
def test_frequency_weights_never_warn(method):
    # pytest turns warnings into errors: none for counts, survey-like weights,
    # importance weights of mean 1, or scale-free calibrators with any weights.
    rng = np.random.default_rng(1)
    scores = rng.random(80)
    y = rng.random(80) < scores
    params = {**RELATIVE, **SCALE_FREE}[method]
    for w in (None, rng.integers(1, 5, 80).astype(float), rng.uniform(0.5, 1.5, 80),
              np.r_[np.zeros(40), np.ones(40)], np.full(80, 0.5)):
        _fit(method, scores, y, w, **params)
    if method in SCALE_FREE:
        _fit(method, scores, y, np.full(80, 1e-300), **params)


@pytest.mark.parametrize(
    "labels",
    [["yes"] * 3, [1, 1, 1], [2.0, 2.0, 2.0]],
)
def test_single_class_of_object_dtype_is_a_clear_error(labels):
    # a fresh attack (issue 22): object arrays (a pandas column of str) raised AttributeError
    y = np.array(labels, dtype=object)
    with pytest.raises(ValueError, match="single class"):
        venncal.VennAbersCalibrator().fit([0.1, 0.2, 0.3], y)


def test_object_labels_are_their_values():
    # an object array holds text, numbers or booleans: each fits as that array would
    s = [0.1, 0.2, 0.3]
    for labels in (["a", "b", "a"], [1, 2, 1], [True, True, True]):
        got = venncal.VennAbersCalibrator().fit(s, np.array(labels, dtype=object))
        want = venncal.VennAbersCalibrator().fit(s, np.array(labels))
        assert got.classes_.dtype == want.classes_.dtype
        assert got.classes_.tolist() == want.classes_.tolist()
    with pytest.raises(TypeError, match="of one type"):
        venncal.VennAbersCalibrator().fit(s, np.array(["a", 1, "a"], dtype=object))


@pytest.mark.parametrize("labels, said", [
    ([Fraction(1), Fraction(0)], "got Fraction (convert them to int, float or str)"),
    ([Decimal(1), Decimal(0)], "got Decimal (convert them to int, float or str)"),
    ([1, "a"], "got int, str"),
])
def test_labels_of_other_types_are_refused_naming_the_types(labels, said):
    """A Fraction or a Decimal is a number, but not one a model file can keep (and 1/3 would
    round): refused, naming the type (attack 12: the message said 'must be numbers')."""
    from venncal._validation import label_values

    with pytest.raises(TypeError, match=re.escape(said)):
        label_values(np.array(labels, dtype=object))


@pytest.mark.parametrize("classes, dtype", [
    ([2**60 + 1, 5], np.int64),
    ([2**64 - 1, 5], np.uint64),
    ([5, 2**64 - 1], np.uint64),
    ([-(2**63), 2**63 - 1], np.int64),
    ([2.0**60, 1.5], np.float64),
    ([np.int64(2**60 + 1), 3], np.int64),
])
def test_classes_keep_integers_past_2_53_exactly(classes, dtype):
    """np.asarray([2**64 - 1, 5]) is float64 and made the label another number: a single
    observed uint64 class was then 'not in classes' it was in (attack 21 F8)."""
    from venncal._validation import check_labels, classes_array

    got = classes_array(classes)
    assert got.dtype == dtype
    assert got.tolist() == [int(v) if dtype != np.float64 else v for v in classes]
    y = np.full(4, classes[0], dtype=dtype)
    cls, y01 = check_labels(y, classes=classes)
    assert cls.tolist() == got.tolist() and not y01.any()
    model = VennAbersCalibrator(classes=classes).fit([0.1, 0.2, 0.3, 0.4], y)
    assert model.classes_.tolist() == got.tolist()


@pytest.mark.parametrize("classes, said", [
    ([2**60 + 1, 1.5], "mix floats with integers that float64 cannot hold exactly "
                       f"({2**60 + 1} is not 1.152921504606847e+18)"),
    ([2**64 - 1, -1], "no one 64-bit integer type holds"),
])
def test_classes_no_one_array_holds_are_refused(classes, said):
    from venncal._validation import classes_array

    with pytest.raises(ValueError, match=re.escape(said)):
        classes_array(classes)
    with pytest.raises(ValueError, match=re.escape(said)):
        VennAbersCalibrator(classes=classes).fit([0.1, 0.2], [classes[0]] * 2)


def test_labels_given_as_a_list_keep_integers_past_2_53():
    """np.asarray([2**64 - 1, 5]) is float64: classes_ named 2**64, a label not in y, and
    [2**60 + 1, 1.5] took classes=[1.5, 2**60] (attack 23 F3)."""
    s = [0.1, 0.2, 0.3, 0.4]
    got = VennAbersCalibrator().fit(s, [2**64 - 1, 5, 5, 2**64 - 1])
    assert got.classes_.dtype == np.uint64 and got.classes_.tolist() == [5, 2**64 - 1]
    with pytest.raises(ValueError, match="mix floats with integers that float64 cannot hold"):
        VennAbersCalibrator(classes=[1.5, 2**60]).fit(s, [2**60 + 1, 1.5, 1.5, 2**60 + 1])
    assert VennAbersCalibrator().fit(s, [0, 1.5, 1.5, 0]).classes_.tolist() == [0.0, 1.5]


def test_classes_given_as_one_string_are_refused_not_split():
    """classes_array took len() of a list: "ab" became ['a', 'b'] (found re-reading the diff)."""
    with pytest.raises(ValueError, match="classes must name exactly two distinct labels; got 'ab'"):
        VennAbersCalibrator(classes="ab").fit([0.1, 0.2, 0.3], ["a", "b", "a"])



@pytest.mark.parametrize("y, kinds", [
    ([9, "10", 9, "10"], "int, str"),
    ([True, 2, True, 2], "bool, int"),
    ([True, 0.5, True, 0.5], "bool, float"),
    ([np.bool_(True), 2, np.bool_(True), 2], "bool, int"),
])
def test_a_list_of_labels_of_two_kinds_is_refused_as_its_object_array_is(y, kinds):
    """np.asarray([9, "10"]) is text, and [True, 2] integers: the positive class of 9/10 became
    '9' (sorted as text) with no word, where the same object array is refused (attack 24 F1)."""
    s = [0.1, 0.2, 0.3, 0.4]
    for labels in (y, tuple(y), np.array(y, dtype=object)):
        with pytest.raises(TypeError, match=f"of one type; got {kinds}"):
            IsotonicCalibrator().fit(s, labels)


@pytest.mark.parametrize("y, classes", [
    ([0, 1.0, 1, 0], [0.0, 1.0]), ([np.int64(0), 1, 0, 1], [0, 1]),
    (["a", np.str_("b"), "a", "b"], ["a", "b"]), ([True, np.bool_(False), True, False], [False, True]),
])
def test_a_list_of_one_kind_of_label_in_several_types_is_fitted(y, classes):
    assert IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], y).classes_.tolist() == classes
