"""venncal.spark: the weights of tied scores add up exactly, whatever the partitioning (issue 22).

Spark's ``sum`` adds in the order of the partitions and of the shuffle: 2**53, 1
and 1 at one score gave 2**53 or 2**53 + 2, and fractional weights at tied
scores could be an ulp off the local fit.  The engine now builds a
:class:`~venncal.ScoreSummary` per partition and merges them exactly, so the
fit equals the local one bit for bit under every partitioning.

One local Spark session (``local[2]``) for the module (the one of
tests/test_spark.py when it runs first); skipped outside CI when the
``spark`` extra or Java is missing.
"""

import os
import shutil

import numpy as np
import pytest

IN_CI = bool(os.environ.get("CI"))
if not IN_CI:
    pytest.importorskip("pyspark", reason='the spark extra is not installed (pip install "venncal[spark]")')
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("Spark needs Java 17+ (no java on PATH, no JAVA_HOME)", allow_module_level=True)

import pandas as pd
from pyspark.sql import functions as F

import venncal.spark as vs
from _spark import local_session
from venncal import ScoreSummary
from venncal._registry import method_class

PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3
if PANDAS_3:
    pytestmark = pytest.mark.filterwarnings(
        "ignore:PySpark does not yet fully support pandas:FutureWarning"
    )


@pytest.fixture(scope="module")
def spark():
    yield from local_session()


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def _frame(spark, pdf, parts):
    """The rows of ``pdf`` in this order, row ``i`` in partition ``parts[i]`` (no job to build)."""
    n_parts = max(parts) + 1
    row = F.col("id").cast("int")
    frames = []
    for p in range(n_parts):
        idx = [i for i, q in enumerate(parts) if q == p]
        if not idx:
            continue
        sub = pdf.iloc[idx].reset_index(drop=True)
        frames.append(spark.range(0, len(sub), 1, 1).select(
            *[F.lit(sub[c].tolist())[row].alias(c) for c in sub.columns]))
    out = frames[0]
    for f in frames[1:]:
        out = out.union(f)
    return out


def _check(spark, pdf, parts, methods=("ivap", "isotonic")):
    s, y, w = pdf.s.to_numpy(), pdf.y.to_numpy(), pdf.w.to_numpy()
    df = _frame(spark, pdf, parts)
    expected = ScoreSummary.from_arrays(s, y, w)
    got = vs.summarize(df, "s", "y", "w")
    for name in ("scores", "weights", "positive_weights", "negative_weights"):
        _same_bits(getattr(got, name), getattr(expected, name))
    for method in methods:
        cal = vs.fit(df, method, score_col="s", label_col="y", weight_col="w")
        direct = method_class(method)().fit(s, y, w)
        for name in cal._state:
            _same_bits(getattr(cal, name), getattr(direct, name))
    return got


BIG = 2.0**53


@pytest.mark.parametrize("order, parts", [
    ((0, 1, 2), (0, 1, 2)), ((1, 2, 0), (0, 0, 1)), ((0, 1, 2), (1, 0, 0)),
    ((2, 1, 0), (0, 0, 0)), ((1, 0, 2), (0, 1, 1)),
])
def test_whole_weights_past_2_53_add_up_exactly(spark, order, parts):
    weights = np.array([BIG, 1.0, 1.0])[list(order)]
    pdf = pd.DataFrame({
        "s": [0.5, 0.5, 0.5, 0.2, 0.8], "y": [1, 1, 1, 0, 0],
        "w": [*weights.tolist(), 1.0, 1.0],
    })
    got = _check(spark, pdf, [*parts, 0, 1])
    assert int(got.weights[1]) == 2**53 + 2


def test_fractional_weights_at_tied_scores_under_repartitionings(spark):
    rng = np.random.default_rng(22)
    n = 60
    pdf = pd.DataFrame({
        "s": rng.integers(0, 4, n) / 4,  # four scores, many ties
        "y": rng.integers(0, 2, n),
        "w": rng.choice([1.1, 2.2, 0.7, 3.3, 0.1], n),  # not whole numbers
    })
    for seed in range(4):
        order = np.random.default_rng(seed).permutation(n)
        parts = np.random.default_rng(seed + 10).integers(0, 1 + seed, n).tolist()
        _check(spark, pdf.iloc[order].reset_index(drop=True), parts)


def test_tied_weights_past_float64_range_raise_as_locally(spark):
    pdf = pd.DataFrame({"s": [0.5, 0.5, 0.2], "y": [1, 0, 0], "w": [1e308, 1e308, 1.0]})
    with pytest.raises(ValueError, match="sum to more than the largest float64") as local:
        ScoreSummary.from_arrays(pdf.s, pdf.y, pdf.w)
    for parts in ([0, 1, 0], [0, 0, 0]):
        with pytest.raises(ValueError) as remote:
            vs.fit(_frame(spark, pdf, parts), "ivap", score_col="s", label_col="y",
                   weight_col="w")
        assert str(remote.value) == str(local.value)
