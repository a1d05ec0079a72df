"""venncal.spark under Spark Connect: run by tests/test_spark.py in a subprocess.

A process holds one SparkContext and the test session is a classic one, so
this script starts its own local Spark Connect server
(``SparkSession.builder.remote("local[2]")``) and checks summarize (also
with ``round_scores``), fit
(IVAP, CVAP by fold), transform (look-up and UDF, missing scores) and the
Spark ML pair (Pipeline fit/transform, save/load) against venncal fitted in
this process on the same rows, bit for bit.  Prints ``CONNECT OK`` at the end.

Usage: ``python spark_connect_script.py TMPDIR``
"""

import os
import sys
import warnings

import numpy as np
import pandas as pd

if int(pd.__version__.split(".")[0]) >= 3:  # outside the spark extra's pin (see test_spark)
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")


def same_bits(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
        raise AssertionError(f"{what}: not the same bits\n{a!r}\n{b!r}")


def data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n).round(1) + 0.0
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(np.int64)
    return pd.DataFrame({"s": s, "y": y, "fold": rng.integers(0, 3, size=n),
                         "row": np.arange(n)})


def queries(cal_scores, rng):
    s = np.unique(cal_scores)
    q = np.concatenate([rng.normal(size=200), s, np.nextafter(s, -np.inf),
                        np.nextafter(s, np.inf), [-1e300, 1e300, -0.0, 0.0]])
    return pd.DataFrame({"q": q, "row": np.arange(q.shape[0])})


def check_transform(spark, vs, cal, pdf, names, method):
    out = vs.transform(spark.createDataFrame(pdf), cal, "q", names, method=method)
    out = out.toPandas().sort_values("row")
    q = pdf.q.to_numpy()
    same_bits(out[names[0]].to_numpy(), cal.predict_proba(q)[:, 1], f"{method} p")
    if len(names) == 3:
        interval = cal.predict_interval(q)
        same_bits(out[names[1]].to_numpy(), interval[:, 0], f"{method} p0")
        same_bits(out[names[2]].to_numpy(), interval[:, 1], f"{method} p1")


def check_missing(spark, vs, cal):
    df = spark.createDataFrame([(0.3, 0), (None, 1), (float("nan"), 2)], "s double, row long")
    for method in ("lookup", "udf"):
        rows = vs.transform(df, cal, "s", method=method, nan_scores="propagate").collect()
        rows = sorted(rows, key=lambda r: r.row)
        expected = cal.predict_interval([0.3])[0].tolist()
        if [rows[0].p0, rows[0].p1] != expected or any(
            v is not None for r in rows[1:] for v in (r.p, r.p0, r.p1)
        ):
            raise AssertionError(f"nan_scores='propagate' ({method}): {rows}")


def main(tmp):
    from pyspark.ml import Pipeline, PipelineModel
    from pyspark.sql import SparkSession

    import venncal.spark as vs
    from venncal import ScoreSummary
    from venncal._registry import method_class

    spark = (SparkSession.builder.remote("local[2]")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    if not hasattr(spark, "client"):
        raise AssertionError(f"not a Spark Connect session: {type(spark)}")
    pdf = data()
    df = spark.createDataFrame(pdf).repartition(3)
    expected = ScoreSummary.from_arrays(pdf.s, pdf.y)
    got = vs.summarize(df, "s", "y")
    for name in ("scores", "weights", "positive_weights"):
        same_bits(getattr(got, name), getattr(expected, name), f"summary {name}")
    rounded = vs.summarize(df, "s", "y", round_scores=0)  # ties at .5: numpy's half to even
    expected = ScoreSummary.from_arrays(np.round(pdf.s.to_numpy(), 0) + 0.0, pdf.y)
    same_bits(rounded.scores, expected.scores, "rounded summary scores")
    same_bits(rounded.positive_weights, expected.positive_weights, "rounded summary weights")

    ivap = vs.fit(df, "ivap", score_col="s", label_col="y")
    direct = method_class("ivap")().fit(pdf.s.to_numpy(), pdf.y.to_numpy())
    for name in ivap._state:
        same_bits(getattr(ivap, name), getattr(direct, name), f"ivap {name}")
    cvap = vs.fit(df, "cvap", score_col="s", label_col="y", by="fold")
    direct = method_class("cvap")().fit(pdf.s, pdf.y, folds=pdf.fold)
    grid = np.linspace(-3, 3, 61)
    same_bits(cvap.predict_interval(grid), direct.predict_interval(grid), "cvap")

    q = queries(pdf.s.to_numpy(), np.random.default_rng(1))
    for method in ("lookup", "udf"):
        check_transform(spark, vs, ivap, q, ["p", "p0", "p1"], method)
    check_missing(spark, vs, ivap)

    estimator = vs.SparkCalibrator(scoreCol="s", labelCol="y", foldCol="fold", method="cvap")
    model = Pipeline(stages=[estimator]).fit(df)
    same_bits(model.stages[0].calibrator.predict_interval(grid), direct.predict_interval(grid),
              "pipeline cvap")
    scored = model.transform(df).toPandas().sort_values("row")
    model.write().save(os.path.join(tmp, "pipeline"))
    again = PipelineModel.load(os.path.join(tmp, "pipeline"))
    rescored = again.transform(df).toPandas().sort_values("row")
    for col in ("p", "p0", "p1"):
        same_bits(rescored[col].to_numpy(), scored[col].to_numpy(), f"reloaded {col}")
    spark.stop()
    print("CONNECT OK")


if __name__ == "__main__":
    main(sys.argv[1])
