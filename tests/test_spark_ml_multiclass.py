"""The Spark ML pair (``SparkCalibrator`` / ``SparkCalibratorModel``) with K class-score columns.

``scoreCols`` + ``scoreKind`` fit the calibrator ``venncal fit --score-cols --method``
names (one-vs-rest or one-vs-one over a binary method), through ``venncal.spark.fit``:
the model equals the local fit bit for bit, its transform equals ``predict_proba`` and
``predict_interval``, and it saves and loads inside a ``PipelineModel``.
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
from pyspark.ml import Pipeline, PipelineModel

import venncal
from venncal._score_names import record as record_score_names
import venncal.spark as vs
from _spark import local_session
from venncal import (
    CrossVennAbersCalibrator,
    OneVsOneCalibrator,
    OneVsRestCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
)

if int(pd.__version__.split(".")[0]) >= 3:
    pytestmark = pytest.mark.filterwarnings(
        "ignore:PySpark does not yet fully support pandas:FutureWarning"
    )

N = 180
Z = ["z0", "z1", "z2"]


@pytest.fixture(scope="module")
def spark():
    yield from local_session()


def _data(seed=0, labels=("a", "b", "c")):
    """Logits with ties (one decimal), labels, integer weights (some 0), folds."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(N, 3)).round(1) + 0.0
    y = np.array(labels, dtype=object)[(z + rng.gumbel(size=(N, 3))).argmax(axis=1)]
    return pd.DataFrame({**{c: z[:, k] for k, c in enumerate(Z)}, "y": y.tolist(),
                         "w": rng.integers(0, 4, N).astype(float),
                         "fold": rng.integers(0, 3, N)})


def _saved(model, path) -> bytes:
    venncal.save(model, path)
    return path.read_bytes()


CASES = {
    "ovr-ivap": (dict(method="ovr-ivap"), OneVsRestCalibrator(VennAbersCalibrator(),
                                                              score="logit"), None),
    "ivap-ovo": (dict(method="ivap", multiclass="ovo", coupling="wu-lin-weng"),
                 OneVsOneCalibrator(VennAbersCalibrator(), score="logit", coupling="wu-lin-weng"),
                 None),
    "cvap": (dict(method="cvap", foldCol="fold"),
             OneVsRestCalibrator(CrossVennAbersCalibrator(), score="logit"), "fold"),
    "platt": (dict(method="platt", calibratorParams={"classes": ["c", "a", "b"]}),
              OneVsRestCalibrator(PlattCalibrator(), score="logit", classes=["c", "a", "b"]),
              None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_fit_equals_the_local_fit_and_transform_equals_predict(spark, case, tmp_path):
    given, local, by = CASES[case]
    pdf = _data(1)
    estimator = vs.SparkCalibrator(scoreCols=Z, scoreKind="logit", labelCol="y", weightCol="w",
                                   **given)
    if case == "platt":  # classes named out of the columns' order (c, a, b): said
        with pytest.warns(UserWarning, match="out of the order of the classes"):
            model = estimator.fit(spark.createDataFrame(pdf).repartition(3))
    else:
        model = estimator.fit(spark.createDataFrame(pdf).repartition(3))
    folds = {} if by is None else {"folds": pdf[by].to_numpy()}
    expected = local.fit(pdf[Z].to_numpy(), pdf["y"].to_numpy(), pdf["w"].to_numpy(), **folds)
    record_score_names(expected, Z)  # the columns' names, as the engine records them
    assert _saved(model.calibrator, tmp_path / "a.json") == _saved(expected, tmp_path / "b.json")
    if by is not None:  # a cross Venn-Abers model scores one column per fold and class
        return
    out = model.transform(spark.createDataFrame(pdf[Z])).toPandas()
    x = pdf[Z].to_numpy()
    proba = expected.predict_proba(x)
    for k, c in enumerate(expected.classes_):
        assert out[f"p_{c}"].to_numpy(dtype=float).tobytes() == proba[:, k].tobytes()
    if hasattr(expected, "predict_interval"):
        interval = expected.predict_interval(x)
        lows = [c for c in out.columns if c.startswith("p0_")]
        assert len(lows) == interval.shape[1]
        for u, name in enumerate(lows):
            assert out[name].to_numpy(dtype=float).tobytes() == interval[:, u, 0].tobytes()
            assert out["p1_" + name[3:]].to_numpy(dtype=float).tobytes() == \
                interval[:, u, 1].tobytes()


def test_pipeline_saves_and_loads_with_its_score_columns(spark, tmp_path):
    pdf = _data(2, labels=(5, 7, 9))
    df = spark.createDataFrame(pdf)
    pipeline = Pipeline(stages=[vs.SparkCalibrator(scoreCols=Z, scoreKind="logit", labelCol="y",
                                                   method="ivap", outputCols=["q"])])
    model = pipeline.fit(df)
    model.write().overwrite().save(str(tmp_path / "pipe"))
    again = PipelineModel.load(str(tmp_path / "pipe"))
    stage = again.stages[0]
    assert stage.getOrDefault(stage.scoreCols) == Z
    assert stage.calibrator.classes_.tolist() == [5, 7, 9]
    got = again.transform(df).select("q_5", "q_7", "q_9").toPandas().to_numpy()
    assert got.tobytes() == model.stages[0].calibrator.predict_proba(pdf[Z].to_numpy()).tobytes()


@pytest.mark.parametrize("given, message", [
    (dict(scoreCols=Z, method="ivap"), "scoreCols needs scoreKind"),
    (dict(scoreKind="logit", method="ivap"), "scoreKind goes with scoreCols"),
    (dict(scoreCols=Z, scoreKind="logit", method="ivap", coupling="price"),
     "coupling combines the pairs"),
    (dict(scoreCols=Z, scoreKind="logit", method="temperature"),
     "cannot be fitted from a score summary"),
    (dict(scoreCols=Z, scoreKind="logit", method="nope"), "nope"),
    (dict(scoreCols=Z[:2], scoreKind="logit", method="ivap"),
     "names 2 column.*one column per class"),
])
def test_errors_name_the_parameter(spark, given, message):
    df = spark.createDataFrame(_data(3))
    with pytest.raises(ValueError, match=message):
        vs.SparkCalibrator(labelCol="y", **given).fit(df)
