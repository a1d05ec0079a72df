"""Numbers a double cannot hold, by value, whatever their type (attacks 54 and 55).

The rule (:func:`venncal._input_scales.inexact`): a value other than 0 must not read as 0; past
2**53 a value must be its double exactly (integers of any type, Fractions, Decimals, texts
without an exponent); long doubles must be exact; texts with an exponent are float literals.
The Dask engine reads partitions by the same function, correctly rounded.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import venncal
from venncal._input_scales import exact_float64, inexact
from venncal._validation import check_scores

REFUSED = [
    np.array([np.int64(2**53), np.int64(2**53 + 1)], dtype=object),   # 54 F1: numpy ints
    np.array([np.uint64(2**64 - 1)], dtype=object),
    np.array(["9007199254740993.0", "1"]),                               # 54 F2: spelling
    np.array(["9_007_199_254_740_993", "1"], dtype=object),
    np.array(["\uff19\uff10\uff10\uff17\uff11\uff19\uff19\uff12\uff15\uff14\uff17\uff14"
              "\uff10\uff19\uff19\uff13"], dtype=object),                # fullwidth digits
    np.array([Decimal("1E-400"), Decimal(1)], dtype=object),              # 54 F3
    np.array([Fraction(1, 10**400)], dtype=object),
    np.array([Fraction(2**53 + 1)], dtype=object),
    np.array([np.longdouble(1) + np.longdouble(2) ** -60], dtype=object),
    np.array(["0" * 24 + "9007199254740993"]),                             # 55 F2
    np.array(["9007199254740993.5"]),
]


@pytest.mark.parametrize("values", REFUSED, ids=range(len(REFUSED)))
def test_values_a_double_cannot_hold_are_refused_by_value(values):
    if values[0].__class__ is np.longdouble and np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("long double is float64 here")
    with pytest.raises(ValueError, match="cannot hold exactly|below the smallest float64"):
        check_scores(values)
    with pytest.raises(ValueError, match="cannot hold exactly|below the smallest float64"):
        exact_float64(pd.Series(values), "scores")


def test_what_a_double_holds_or_a_float_literal_names_is_read():
    values = np.array(["1e300", "-0.0", "0.1", "2.5e-324", "1e19", "9007199254740992.000",
                       "9.007199254740993e15", "3.390389054365211e+16", "9007199254740991.5"])
    want = [float(v) for v in values]
    assert check_scores(values).tolist() == want
    assert exact_float64(pd.Series(values, dtype=object), "s").tolist() == want
    objects = np.array([Fraction(1, 3), 2**53, np.int64(-(2**53)), Decimal("0.1"), True],
                       dtype=object)
    assert check_scores(objects).tolist() == [1 / 3, 2.0**53, -(2.0**53), 0.1, 1.0]


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_the_shortest_text_of_any_double_is_read_back(x):
    assert inexact(repr(x), x) == 0 and inexact(f"{x:.17g}", float(f"{x:.17g}")) == 0
    assert inexact(str(Decimal(x)), x) == 0  # its exact decimal expansion


def test_texts_are_parsed_correctly_rounded_on_the_engine_path():
    """Attack 55 F1: pandas.to_numeric read 37 % of random texts as a neighbour of the nearest
    double; two different scores tied on Dask where the local fit kept them apart."""
    rng = np.random.default_rng(0)
    texts = [f"{m:.{d}f}e{e}" for m, d, e in zip(rng.uniform(-10, 10, 3000),
                                                  rng.integers(14, 25, 3000),
                                                  rng.integers(-300, 300, 3000))]
    texts += ["-5.971439875428343e-78", "-5.971439875428342e-78"]
    got = exact_float64(pd.Series(texts, dtype=object), "scores")
    want = np.array([float(t) for t in texts])
    assert got.tobytes() == want.tobytes()
    nullable = pd.Series([2**53 + 1, None], dtype="Int64")  # 54 F5: an int beside a missing value
    with pytest.raises(ValueError, match="9007199254740993"):
        exact_float64(nullable, "scores")


def test_dask_reads_a_partition_as_the_local_fit_does():
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import venncal.dask as vd

    a, b = "-5.971439875428343e-78", "-5.971439875428342e-78"
    s = [a, b, "0.5", "1.5"]
    y = [1, 0, 0, 1]
    with dask.config.set(scheduler="synchronous"):
        frame = dd.from_pandas(pd.DataFrame({"s": pd.Series(s, dtype=object), "y": y}),
                               npartitions=2)
        model = vd.fit(frame, "ivap", score_col="s", label_col="y")
        local = venncal.VennAbersCalibrator().fit(np.array(s), y)
        x = np.array([float(a), float(b), 0.7])
        np.testing.assert_array_equal(model.predict_interval(x), local.predict_interval(x))
        quad = pd.DataFrame({"s": pd.Series([1, 1 + np.longdouble(2) ** -60] * 4,
                                            dtype=np.longdouble), "y": [0, 1] * 4})
        if np.finfo(np.longdouble).nmant > 52:  # 54 F4: float128 columns checked as locally
            with pytest.raises(ValueError, match="cannot hold exactly"):
                vd.fit(dd.from_pandas(quad, npartitions=2), "isotonic", score_col="s",
                       label_col="y")


@pytest.mark.parametrize("value", [np.longdouble(1) / np.longdouble(10), Fraction(1, 2**1100),
                                   Fraction(2**53 + 1)], ids=["longdouble", "tiny", "big"])
def test_single_calls_refuse_what_the_many_calls_refuse(value):
    """Attack 53 F3, F4: the quantized streams' and the Jumper's single calls rounded long
    doubles and Fractions that learn_many refuses (a weight of 2**-1100 vanished, silently)."""
    from venncal.online import JumperPredictor, OrderedQuantizedIsotonic, QuantizedIsotonic

    if isinstance(value, np.longdouble) and np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("long double is float64 here")
    q = QuantizedIsotonic(levels=5)
    calls = [lambda: q.learn_one(0.1, 1, sample_weight=value), lambda: q.insert(value, 1),
             lambda: q.delete(0.1, 1, sample_weight=value),
             lambda: OrderedQuantizedIsotonic(levels=5).learn_one(value, 1)]
    if value < 1:
        calls += [lambda: q.predict_one(value), lambda: JumperPredictor().learn_one(value, 1)]
    for call in calls:
        with pytest.raises(ValueError, match="cannot hold exactly|below the smallest float64"):
            call()
    assert q.groups()["weight"].size == 0


def test_a_refused_cell_of_a_score_matrix_is_named():
    """Attack 56 F7: a refusal inside a 2-D matrix crashed in np.unravel_index."""
    from venncal.multiclass._scores import check_class_scores

    scores = np.array([[0.1, 0.2, 0.7], [0.2, 2**53 + 1, 0.5]], dtype=object)
    with pytest.raises(ValueError, match="scores at row 1, column 1 is 9007199254740993"):
        check_class_scores(scores, 3, "logit")
    with pytest.raises(ValueError, match="row 0, column 2 is '1e-400': not zero"):
        venncal.TemperatureCalibrator().fit(np.array([["0.1", "0.2", "1e-400"]] * 2), [0, 1])


@pytest.mark.parametrize("values", [[0.5, 2**53 + 1, 2**53, 0.1], (0.5, np.uint64(2**64 - 1), 0.1, 0.2)])
def test_a_list_of_floats_and_integers_past_2_53_is_refused(values):
    """Attack 56 F6: numpy made the list float64 before the check: 2**53 + 1 tied with 2**53."""
    for fit in (lambda: venncal.IsotonicCalibrator().fit(values, [1, 1, 0, 0]),
                lambda: venncal.VennAbersCalibrator().fit(values, [1, 1, 0, 0]),
                lambda: venncal.TemperatureCalibrator().fit([list(values)[:2], [0.1, 0.2]], [0, 1])):
        with pytest.raises(ValueError, match="cannot hold exactly"):
            fit()
    assert venncal.IsotonicCalibrator().fit([0.5, 2**53, 0.1], [1, 1, 0]).predict([2**53])[0] == 1.0


def test_a_finite_number_past_the_doubles_is_named_so():
    """Attack 56 F5: '1e400' was reported as "NaN or infinite"."""
    for values in (np.array(["0.5", "1e400"]), np.array([0.5, Decimal("1e400")], dtype=object)):
        with pytest.raises(ValueError, match="past the largest float64 .* read as infinite"):
            check_scores(values)


def test_lists_of_0d_arrays_numpy_scalars_and_texts_are_read_by_value():
    """Attack 57 F1, F3, F4: a 0-d integer array past 2**53 in a list was floated silently; a
    float32 beside texts was read from its str; a long double past the doubles was "NaN"."""
    with pytest.raises(ValueError, match="cannot hold exactly"):
        check_scores([np.array(2**53 + 1), np.array(0.5)])
    assert check_scores(["0.5", np.float32(0.1)]).tolist() == [0.5, float(np.float32(0.1))]
    if np.finfo(np.longdouble).max > np.finfo(np.float64).max:
        big = np.longdouble("1e4000")
        for values in (np.array([big, 0.5], dtype=object), np.array([big, 0.5])):
            with pytest.raises(ValueError, match="past the largest float64"):
                check_scores(values)


def test_ragged_lists_iterators_and_huge_integers_get_clear_messages():
    """Attack 57 F5: numpy's "inhomogeneous shape", a generator's "shape ()", no index."""
    with pytest.raises(ValueError, match="scores must be an array of numbers; got a ragged"):
        check_scores([[0.5], [0.2, 0.3]])
    with pytest.raises(TypeError, match="not an iterator or a generator"):
        check_scores(x for x in [0.5, 0.2])
    with pytest.raises(ValueError, match="beyond float64's range at index 1"):
        check_scores([0.5, 10**400])


def test_a_table_with_an_int64_column_beside_floats_is_read_exactly():
    """Attack 57 A2: numpy made a frame's int64 column float beside a float column (2**53 + 1
    read as 2**53); an all-int64 frame was refused."""
    import pyarrow as pa

    frame = pd.DataFrame({"a": np.array([2**53 + 1, 1, 2, 3], dtype=np.int64),
                          "b": [0.5, 0.1, 0.2, 0.3]})
    for table in (frame, pa.Table.from_pandas(frame, preserve_index=False)):
        with pytest.raises(ValueError, match="row 0, column 0 is 9007199254740993"):
            venncal.TemperatureCalibrator().fit(table, [0, 1, 0, 1])
