"""venncal.spark._lookup: the run table that venncal.spark scores with equals predict, bit for bit.

The table is checked here in numpy (``JumpTable.run_of`` does the same float
operations as the Spark expression); tests/test_spark.py checks the Spark
side on the same kinds of data.
"""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from venncal import NegatedScoreCalibrator
from venncal.spark._lookup import cell_of, jump_table, knots_of, run_table
from venncal._registry import method_class

MAX = np.finfo(np.float64).max
TINY = 5e-324


def _fit_data(kind, rng):
    if kind == "ties":
        s = rng.normal(size=500).round(1)
    elif kind == "continuous":
        s = rng.normal(size=500)
    elif kind == "heavy tails":
        s = rng.standard_cauchy(500) ** 3
    elif kind == "rounded uniform":
        s = rng.random(3000).round(3)
    elif kind == "one point":
        return np.array([0.25, 0.25, 0.25]), np.array([0, 1, 1])
    elif kind == "two points":
        return np.array([0.25, 0.5, 0.5]), np.array([0, 1, 0])
    else:  # extreme: the cells' span overflows
        return np.array([-MAX, -TINY, 0.0, TINY, 1e300, MAX]), np.array([0, 1, 0, 1, 1, 0])
    y = (rng.random(s.shape[0]) < 1 / (1 + np.exp(-np.clip(s, -30, 30)))).astype(int)
    return s, y


def _queries(knots, rng):
    with np.errstate(over="ignore"):
        q = np.concatenate([
            rng.normal(size=500) * 3, knots, np.nextafter(knots, -np.inf),
            np.nextafter(knots, np.inf), [-1e300, 1e300, -0.0, 0.0, TINY, -TINY, MAX, -MAX],
        ])
    return q[np.isfinite(q)]


KINDS = ["ties", "continuous", "heavy tails", "rounded uniform", "one point", "two points",
         "extreme"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("method", ["ivap", "isotonic", "histogram", "bbq", "quantized-isotonic"])
def test_run_table_equals_predict_bit_for_bit(method, kind):
    rng = np.random.default_rng(0)
    s, y = _fit_data(kind, rng)
    cal = method_class(method)().fit(s, y)
    knots = knots_of(cal)
    n_out = 3 if hasattr(cal, "predict_interval") else 1
    table = jump_table(cal, knots, n_out)
    q = _queries(knots, rng)
    got = table.outputs[table.run_of(q)]
    expected = [cal.predict_proba(q)[:, 1]]
    if n_out == 3:
        interval = cal.predict_interval(q)
        expected += [interval[:, 0], interval[:, 1]]
    for i, column in enumerate(expected):
        assert got[:, i].tobytes() == column.tobytes()
    thresholds = table.thresholds[: table.outputs.shape[0] - 1]
    assert (np.diff(thresholds) > 0).all()
    assert table.first[0] == 0
    assert table.first[-1] == thresholds.shape[0]


def test_runs_merge_equal_entries_but_keep_signed_zeros_apart():
    knots = np.array([1.0, 2.0, 3.0])
    p = np.array([0.0, 0.0, -0.0, -0.0, 0.5, 0.5, 0.5])
    thresholds, outputs = run_table(knots, [p])
    assert thresholds.tolist() == [np.nextafter(1.0, 2.0), np.nextafter(2.0, 3.0)]
    assert np.signbit(outputs[:, 0]).tolist() == [False, True, False]
    thresholds, _ = run_table(knots, [np.array([0.0, 0.0, 0.0, 0.1, 0.1, 0.1, 0.2])])
    assert thresholds.tolist() == [2.0, np.nextafter(3.0, 4.0)]  # at knot 1, above knot 2


def test_ivap_table_shrinks_and_search_is_short():
    rng = np.random.default_rng(1)
    s = rng.random(200_000).round(4)
    cal = method_class("ivap")().fit(s, (rng.random(s.shape[0]) < s).astype(int))
    knots = knots_of(cal)
    table = jump_table(cal, knots, 3)
    assert table.outputs.shape[0] < knots.shape[0] / 4
    assert table.m > 1
    assert table.depth < table.outputs.shape[0].bit_length()


def test_cells_are_monotone():
    rng = np.random.default_rng(2)
    x = np.sort(np.concatenate([rng.normal(size=10_000), [-MAX, MAX, -0.0, 0.0]]))
    cells = cell_of(x, -0.3, 1234.5, 5000)
    assert (np.diff(cells) >= 0).all()
    assert cells.min() == 0
    assert cells.max() == 4999


STEP_METHODS = ["ivap", "isotonic", "histogram", "bbq", "quantized-isotonic"]


def _fitted(method, seed=3):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=300).round(1)
    return method_class(method)().fit(s, (rng.random(300) < 1 / (1 + np.exp(-s))).astype(int))


@pytest.mark.parametrize("method", STEP_METHODS)
def test_step_calibrators_tell_their_knots(method):
    cal = _fitted(method)
    knots = knots_of(cal)
    assert knots is not None
    assert (np.diff(knots) > 0).all()
    expected = np.unique(np.asarray(cal._knots(), dtype=np.float64)) + 0.0
    assert knots.tobytes() == expected.tobytes()


@pytest.mark.parametrize("method", ["platt", "enir", "cvap"])
def test_other_calibrators_have_no_knots(method):
    rng = np.random.default_rng(4)
    s, y = rng.normal(size=200), rng.integers(0, 2, 200)
    cal = method_class(method)()
    cal = cal.fit(s, y, folds=rng.integers(0, 3, 200)) if method == "cvap" else cal.fit(s, y)
    assert cal._knots() is None
    assert knots_of(cal) is None
    linear = method_class("isotonic")(interpolation="linear").fit(s, y)
    assert knots_of(linear) is None
    assert knots_of(object()) is None


def _negated(method, seed=3):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=300).round(1)
    y = (rng.random(300) < 1 / (1 + np.exp(s))).astype(int)  # falls with the score
    return NegatedScoreCalibrator(method_class(method)()).fit(s, y)


@pytest.mark.parametrize("method", [*STEP_METHODS, "platt"])
def test_negated_calibrator_knots_are_minus_the_inner_ones(method):
    neg = _negated(method)
    inner = knots_of(neg.calibrator_)
    if inner is None:
        assert knots_of(neg) is None
        return
    knots = knots_of(neg)
    assert knots.tobytes() == (-inner[::-1] + 0.0).tobytes()
    n_out = 3 if hasattr(neg, "predict_interval") else 1
    table = jump_table(neg, knots, n_out)
    q = _queries(knots, np.random.default_rng(5))
    got = table.outputs[table.run_of(q)]
    assert got[:, 0].tobytes() == neg.predict_proba(q)[:, 1].tobytes()
    if n_out == 3:
        assert got[:, 1:].tobytes() == np.ascontiguousarray(neg.predict_interval(q)).tobytes()


def test_negated_knots_with_a_zero_knot_and_signed_zeros():
    s = np.array([-0.5, -0.0, 0.0, 0.0, 0.5, 0.5, 1.0])
    neg = NegatedScoreCalibrator(method_class("ivap")()).fit(s, [1, 1, 0, 1, 0, 0, 0])
    knots = knots_of(neg)
    assert knots.tolist() == [-0.5, 0.0, 0.5, 1.0]  # the scores as given
    assert not np.signbit(knots[1])  # minus the inner 0.0, then normalised
    table = jump_table(neg, knots, 3)
    q = np.array([-0.0, 0.0, -5e-324, 5e-324, -1.0, 1.0, 0.25])
    assert table.outputs[table.run_of(q)][:, 0].tobytes() == neg.predict_proba(q)[:, 1].tobytes()


@pytest.mark.parametrize("method", STEP_METHODS)
def test_a_subclass_has_knots_only_when_it_says_so(method):
    parent = method_class(method)
    cal = _fitted(method)
    plain = type("Plain", (parent,), {})().set_params(**cal.get_params())
    plain.__dict__.update(cal.__dict__)  # the same fitted state
    assert plain._knots() is None  # it may predict otherwise: scored by its own predict
    assert knots_of(plain) is None

    def _predict_p(self, q):
        return 1.0 - parent._predict_p(self, q)

    flipped = type("Flipped", (parent,), {"_predict_p": _predict_p})()
    flipped.__dict__.update(cal.__dict__)
    assert knots_of(flipped) is None
    same = type("Same", (parent,), {"_knots": parent._knots})()
    same.__dict__.update(cal.__dict__)
    assert knots_of(same).tobytes() == knots_of(cal).tobytes()
    deeper = type("Deeper", (type(same),), {})()
    deeper.__dict__.update(cal.__dict__)
    assert knots_of(deeper) is None
    wrapped = NegatedScoreCalibrator(parent()).fit([0.1, 0.2, 0.3], [0, 1, 1])
    sub_class = type("SubNegated", (NegatedScoreCalibrator,), {})
    sub = sub_class(parent()).fit([0.1, 0.2, 0.3], [0, 1, 1])
    assert knots_of(wrapped) is not None
    assert knots_of(sub) is None


def test_bad_knots_are_an_error():
    class Odd(method_class("ivap")):
        def _knots(self):
            return np.array([0.1, np.nan])

    cal = Odd().fit([0.1, 0.2], [0, 1])
    with pytest.raises(ValueError, match=r"Odd._knots\(\) must return a 1-D array of finite"):
        knots_of(cal)


EDGES = [0.0, -0.0, 1e-310, -1e-310, 1e-300, 1.0 - 2.0**-53, 1.0, 0.5, 2.0**53, -(2.0**53), 1e308,
         -1e308, MAX, -MAX, TINY]


@given(
    st.lists(st.one_of(st.sampled_from(EDGES), st.floats(-10, 10, allow_subnormal=True)),
             min_size=1, max_size=30),
    st.lists(st.booleans(), min_size=30, max_size=30),
    st.sampled_from(["ivap", "isotonic", "histogram", "bbq", "quantized-isotonic"]),
    st.booleans(),
)
def test_run_table_equals_predict_on_edge_scores(scores, labels, method, negate):
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels[: s.shape[0]], dtype=int)
    cal = method_class(method)()
    if method == "bbq":
        cal.set_params(bin_prior="base_rate")
    cal = NegatedScoreCalibrator(cal).fit(s, y) if negate else cal.fit(s, y)
    knots = knots_of(cal)
    table = jump_table(cal, knots, 1)
    q = _queries(knots, np.random.default_rng(6))
    q = np.concatenate([q, s, np.asarray(EDGES)])
    assert table.outputs[table.run_of(q)][:, 0].tobytes() == cal.predict_proba(q)[:, 1].tobytes()


def test_lookup_module_needs_no_pyspark():
    code = (
        "import sys; sys.modules['pyspark'] = None\n"
        "import venncal.spark, venncal.spark._lookup as lk\n"
        "from venncal import VennAbersCalibrator\n"
        "cal = VennAbersCalibrator().fit([0.1, 0.2], [0, 1])\n"
        "print(lk.knots_of(cal).tolist())\n"
        "from venncal.spark import fit\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.stdout.strip() == "[0.1, 0.2]"
    assert out.returncode != 0  # the frame functions need the extra, and say so
    assert 'pip install "venncal[spark]"' in out.stderr
