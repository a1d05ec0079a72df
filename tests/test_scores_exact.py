"""Scores a float64 cannot hold exactly (int64/uint64 past 2**53, long doubles) are refused.

A fresh attack (issue 22) found ``VennAbersCalibrator().fit`` on the int64 scores
2**53, 2**53 + 1 turning them into one tied score without a word ([0.4, 0.6] for both,
where the definition on the integers gives [0, 1/3] and [2/3, 1]).  Scores that round
trip exactly (every integer up to 2**53, and the larger ones that are doubles) are kept.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import venncal
from venncal._validation import check_scores

CALIBRATORS = [venncal.VennAbersCalibrator, venncal.IsotonicCalibrator, venncal.PlattCalibrator,
               venncal.HistogramBinningCalibrator, venncal.ENIRCalibrator]


@pytest.mark.parametrize("cls", CALIBRATORS)
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_integers_past_2_53_that_would_tie_are_refused(cls, dtype):
    s = np.array([2**53, 2**53 + 1, 2**53, 2**53 + 1], dtype=dtype)
    with pytest.raises(ValueError, match=r"scores at index 1 is 9007199254740993, which a "
                                         r"float64 cannot hold exactly"):
        cls().fit(s, [0, 1, 0, 1])


def test_prediction_scores_are_checked_too():
    model = venncal.VennAbersCalibrator().fit([0.0, 1.0, 2.0, 3.0], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="scores at index 0 is -9007199254740993"):
        model.predict_proba(np.array([-(2**53) - 1], np.int64))


def test_a_long_double_that_is_not_a_double_is_refused():
    third = np.longdouble(1) / 3
    if third == np.float64(third):  # a platform whose long double is a double
        pytest.skip("long double is float64 here")
    with pytest.raises(ValueError, match="cannot hold exactly"):
        check_scores(np.array([0.5, third], dtype=np.longdouble))


@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=20))
def test_int64_scores_are_kept_exactly_or_refused(values):
    arr = np.array(values, dtype=np.int64)
    exact = all(int(float(v)) == v for v in values)
    if exact:
        assert check_scores(arr).tolist() == [float(v) for v in values]
    else:
        with pytest.raises(ValueError, match="cannot hold exactly"):
            check_scores(arr)


@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=20))
def test_uint64_scores_are_kept_exactly_or_refused(values):
    arr = np.array(values, dtype=np.uint64)
    exact = all(float(v) < 2.0**64 and int(float(v)) == v for v in values)
    if exact:
        assert check_scores(arr).tolist() == [float(v) for v in values]
    else:
        with pytest.raises(ValueError, match="cannot hold exactly"):
            check_scores(arr)


def test_exact_large_integers_give_the_fit_of_their_doubles():
    s = np.array([2**60, 2**60 + 2**8, 3, 2**53], dtype=np.int64)
    y = [0, 1, 0, 1]
    got = venncal.VennAbersCalibrator().fit(s, y).predict_interval(s)
    x = s.astype(float)
    expected = venncal.VennAbersCalibrator().fit(x, y).predict_interval(x)
    assert got.tobytes() == expected.tobytes()


def test_python_integers_in_object_arrays_are_held_exactly_or_refused():
    # np.asarray of a list with an int past uint64 is an object array: its astype(float)
    # rounded 2**64 + 1 to 2**64 without a word, and 2**1100 raised a bare OverflowError
    with pytest.raises(ValueError, match=r"index 0 is 18446744073709551617, which a float64 "
                                         r"cannot hold exactly"):
        check_scores([2**64 + 1, 1.5])
    with pytest.raises(ValueError, match="number beyond float64's range"):
        check_scores([2**1100, 1.5])
    assert check_scores([2**64, 1.5]).tolist() == [2.0**64, 1.5]


def test_conformal_learn_one_refuses_what_learn_many_refuses():
    # the fresh attack of 2026-11-26 (H5): past 8 distinct scores, learn_one's fast path took
    # 2**53 + 1 as 2**53 (a tie: p-value 0.1274 where the exact one is 0.0637)
    from venncal.online import ConformalMartingale

    base = np.r_[np.arange(10.0), 2.0**53]
    for feed in ("one", "many"):
        m = ConformalMartingale(seed=3)
        m.learn_many(base)
        before = m.n_seen_
        with pytest.raises(ValueError, match="cannot hold exactly"):
            m.learn_one(2**53 + 1) if feed == "one" else m.learn_many([2**53 + 1])
        assert m.n_seen_ == before
    m.learn_one(3)  # integers a double holds are scores
    assert m.n_seen_ == before + 1


def test_quantized_single_calls_refuse_what_the_many_calls_refuse():
    # the fresh attack of 2026-11-26 (H5): QuantizedIsotonic.learn_one and predict_proba_one
    # took 2**53 + 1 as 2**53 (a tie) on every path; learn_many refused it
    from venncal.online import QuantizedIsotonic

    q = QuantizedIsotonic(11)
    q.learn_many(np.arange(10.0) % 2 * 0.5, np.arange(10) % 2)
    for big in (2**53 + 1, np.int64(2**53 + 1)):
        with pytest.raises(ValueError, match="cannot hold exactly"):
            q.learn_one(big, 1)
        with pytest.raises(ValueError, match="cannot hold exactly"):
            q.predict_proba_one(big)
    with pytest.raises(ValueError, match="cannot hold exactly"):
        q.learn_one(0.3, 1, sample_weight=2**53 + 1)
    q.learn_one(3, 1, sample_weight=2**53)  # integers a double holds are taken
    assert q.predict_proba_one(3)[1] == 1.0
