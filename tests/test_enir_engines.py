"""ENIR fitted by the Dask and Spark engines: the same state as a local fit, bit for bit
(``complements_`` included: it comes from the summary's own negative weights), and
their predictions those of ``predict_proba``.  Skipped without the extras (as
``tests/test_dask.py`` and ``tests/test_spark.py``).
"""

import os
import shutil

import numpy as np
import pandas as pd
import pytest

from venncal.enir import ENIRCalibrator

IN_CI = bool(os.environ.get("CI"))


def _data(n=400):
    rng = np.random.default_rng(21)
    s = rng.normal(size=n).round(1) + 0.0
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(np.int64)
    w = rng.integers(0, 4, size=n).astype(np.float64)
    w[:5] = 1e20  # heavy rows: class 0 near 1e-20 where they are positive
    return pd.DataFrame({"s": s, "y": y, "w": w})


def _same_state(cal, direct):
    for name in ("classes_", *ENIRCalibrator._state):
        assert getattr(cal, name).tobytes() == getattr(direct, name).tobytes(), name


def test_dask_fit_and_transform():
    if not IN_CI:
        pytest.importorskip("dask.dataframe")
    import dask
    import dask.dataframe as dd

    import venncal.dask as vd

    pdf = _data()
    direct = ENIRCalibrator().fit(pdf.s.to_numpy(), pdf.y.to_numpy(), pdf.w.to_numpy())
    with dask.config.set(scheduler="synchronous"):
        df = dd.from_pandas(pdf, npartitions=3)
        cal = vd.fit(df, "enir", score_col="s", label_col="y", weight_col="w")
        _same_state(cal, direct)
        out = vd.transform(df, cal, "s", output_cols="p").compute()
    assert out["p"].to_numpy().tobytes() == direct.predict_proba(pdf.s)[:, 1].tobytes()


@pytest.fixture(scope="module")
def spark():
    if not IN_CI:
        pytest.importorskip("pyspark")
        if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
            pytest.skip("Spark needs Java 17+")
    from _spark import local_session

    yield from local_session()


def test_spark_fit_and_transform(spark):
    import venncal.spark as vs

    pdf = _data()
    direct = ENIRCalibrator().fit(pdf.s.to_numpy(), pdf.y.to_numpy(), pdf.w.to_numpy())
    df = spark.createDataFrame(pdf).repartition(3)
    cal = vs.fit(df, "enir", score_col="s", label_col="y", weight_col="w")
    _same_state(cal, direct)
    out = vs.transform(df, cal, "s", output_cols="p").toPandas()
    expected = direct.predict_proba(out["s"].to_numpy())[:, 1]
    assert out["p"].to_numpy().tobytes() == expected.tobytes()
