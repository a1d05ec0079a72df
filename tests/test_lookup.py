"""venncal._lookup: the run table that venncal.spark scores with equals predict, bit for bit.

The table is checked here in numpy (``JumpTable.run_of`` does the same float
operations as the Spark expression); tests/test_spark.py checks the Spark
side on the same kinds of data.
"""

import numpy as np
import pytest

from venncal._lookup import cell_of, jump_table, knots_of, run_table
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
