"""venncal.spark with multiclass calibrators: fits equal the local fit bit for bit, transforms too.

One local Spark session (``local[2]``) for the module (the one of
tests/test_spark.py when it runs first); skipped outside CI when the
``spark`` extra or Java is missing.
"""

import functools
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
from sklearn.base import clone

import venncal
import venncal.spark as vs
from _spark import local_session
from venncal import (
    CrossVennAbersCalibrator,
    OneVsOneCalibrator,
    OneVsRestCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
)
from venncal._score_names import record as record_score_names

PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3
if PANDAS_3:
    pytestmark = pytest.mark.filterwarnings(
        "ignore:PySpark does not yet fully support pandas:FutureWarning"
    )

N = 240
Z = ["z0", "z1", "z2"]
P = ["q0", "q1", "q2"]


@pytest.fixture(scope="module")
def spark():
    yield from local_session()


def _data(seed=0, n=N, labels=("a", "b", "c")):
    """Logits with ties (one decimal), their softmax, labels, integer weights (some 0), folds."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 3)).round(1) + 0.0
    e = np.exp(z - z.max(axis=1, keepdims=True))
    q = e / e.sum(axis=1, keepdims=True)
    y = np.array(labels, dtype=object)[(z + rng.gumbel(size=(n, 3))).argmax(axis=1)]
    frame = {**{c: z[:, k] for k, c in enumerate(Z)}, **{c: q[:, k] for k, c in enumerate(P)}}
    return pd.DataFrame({**frame, "y": y.tolist(), "w": rng.integers(0, 4, n).astype(float),
                         "fold": rng.integers(0, 3, n)})


def _frame(spark, pdf, parts):
    """The rows of ``pdf`` in ``parts`` partitions of ``spark.range`` (contiguous, fixed).

    ``parts`` is a list of ``(start, end, partitions)``; empty partitions
    come from a range of fewer rows than partitions.
    """
    pdf = pdf.reset_index(drop=True)
    ids = functools.reduce(lambda a, b: a.union(b),
                           [spark.range(a, b, 1, k) for a, b, k in parts])
    row = F.col("id").cast("int")
    return ids.select(*[F.lit(pdf[c].tolist())[row].alias(c) for c in pdf.columns])


PARTITIONINGS = {
    "1": [(0, N, 1)],
    "7": [(0, N, 7)],
    "empty": [(0, 80, 1), (80, 82, 5), (82, N, 2)],
}


def _local(cal, pdf, cols, weights=True, by=None):
    """The local fit on the same rows, with the names of its score columns."""
    folds = {} if by is None else {"folds": pdf[by].to_numpy()}
    w = pdf["w"].to_numpy() if weights else None
    model = clone(cal).fit(pdf[cols].to_numpy(), pdf["y"].to_numpy(), w, **folds)
    record_score_names(model, cols)  # as the engines record them
    return model


def _saved(model, tmp_path, name) -> bytes:
    path = tmp_path / f"{name}.json"
    venncal.save(model, path)
    return path.read_bytes()


def _same_model(got, expected, tmp_path):
    """Bit for bit: the saved models are the same bytes, and so is a reloaded one's."""
    a = _saved(got, tmp_path, "got")
    assert a == _saved(expected, tmp_path, "expected")
    assert _saved(venncal.load(tmp_path / "got.json"), tmp_path, "again") == a


CASES = {
    "ovr-ivap-logit": (OneVsRestCalibrator(VennAbersCalibrator(), score="logit"), Z, None, "7"),
    "ovo-ivap-proba": (OneVsOneCalibrator(VennAbersCalibrator(), score="proba"), P, None,
                       "empty"),
    "ovr-cvap-proba": (OneVsRestCalibrator(CrossVennAbersCalibrator(), score="proba"), P,
                       "fold", "7"),
    "ovo-cvap-logit": (OneVsOneCalibrator(CrossVennAbersCalibrator(), score="logit"), Z,
                       "fold", "1"),
    "ovo-platt-logit": (OneVsOneCalibrator(PlattCalibrator(), score="logit",
                                           coupling="wu-lin-weng"), Z, None, "empty"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_fit_equals_the_local_fit_bit_for_bit(spark, case, tmp_path):
    cal, cols, by, kind = CASES[case]
    pdf = _data(1)
    got = vs.fit(_frame(spark, pdf, PARTITIONINGS[kind]), cal, score_col=cols, label_col="y",
                 weight_col="w", by=by)
    _same_model(got, _local(cal, pdf, cols, by=by), tmp_path)
    assert repr(got) == repr(cal) and not hasattr(cal, "classes_")


@pytest.mark.parametrize("labels", [(5, 7, 9), ("x", "y", "z")])
def test_labels_of_any_coding(spark, labels, tmp_path):
    pdf = _data(2, labels=labels)
    cal = OneVsRestCalibrator(PlattCalibrator(), score="proba")
    got = vs.fit(_frame(spark, pdf, PARTITIONINGS["7"]), cal, score_col=P, label_col="y")
    assert got.classes_.tolist() == sorted(labels)
    _same_model(got, _local(cal, pdf, P, weights=False), tmp_path)


def test_extreme_weights_and_named_classes(spark, tmp_path):
    rng = np.random.default_rng(3)
    half = N // 2
    tiny = rng.choice([0.0, 1e-310, 1e-300, 1.0, 3.0], half)
    whole = rng.choice([0.0, 1.0, 2.0**53 - 1, 2.0**53], N - half)
    pdf = _data(3, labels=(5, 7, 9)).assign(w=np.concatenate([tiny, whole]))
    pdf.loc[17, "w"] = 1e308  # one: two tied would sum past the float64 range
    # No ties between the two halves: ScoreSummary adds tied weights exactly only while
    # their sum fits in two doubles (2**53 + 1 + 1e-310 does not: see test_dask_multiclass)
    pdf.loc[half:, Z] += np.array([0.0, 1e-6, 3e-6])
    cal = OneVsOneCalibrator(VennAbersCalibrator(), score="logit", classes=[9, 5, 7])
    # the data's columns score 5, 7, 9: the engine says so, as a local fit_file does
    with pytest.warns(UserWarning, match="out of the order of the classes"):
        got = vs.fit(_frame(spark, pdf, PARTITIONINGS["7"]), cal, score_col=Z, label_col="y",
                     weight_col="w")
    assert got.classes_.tolist() == [9, 5, 7]
    _same_model(got, _local(cal, pdf, Z), tmp_path)


def test_round_scores_applies_per_problem(spark):
    pdf = _data(4)
    cal = OneVsRestCalibrator(VennAbersCalibrator(), score="proba")
    got = vs.fit(_frame(spark, pdf, PARTITIONINGS["7"]), cal, score_col=P, label_col="y",
                 weight_col="w", round_scores=2)
    rounded = {
        k: venncal.ScoreSummary.from_arrays(np.round(pdf[P[i]].to_numpy(), 2),
                                            pdf["y"].to_numpy() == k, pdf["w"].to_numpy())
        for i, k in enumerate(["a", "b", "c"])
    }
    expected = clone(cal).fit_summary(rounded)
    x = pdf[P].to_numpy()
    assert got.predict_interval(x).tobytes() == expected.predict_interval(x).tobytes()
    distinct = sum(s.n_distinct for s in rounded.values())
    with pytest.raises(ValueError, match="more than max_distinct"):
        vs.fit(_frame(spark, pdf, PARTITIONINGS["1"]), cal, score_col=P, label_col="y",
               weight_col="w", round_scores=2, max_distinct=distinct - 1)


def _same_columns(out, model, x):
    proba = model.predict_proba(x)
    for k, c in enumerate(model.classes_):
        assert out[f"p_{c}"].to_numpy(dtype=float).tobytes() == proba[:, k].tobytes()
    if hasattr(model, "predict_interval"):
        interval = model.predict_interval(x)
        names = [c for c in out.columns if c.startswith("p0_")]
        assert len(names) == interval.shape[1]
        for u, name in enumerate(names):
            assert out[name].to_numpy(dtype=float).tobytes() == interval[:, u, 0].tobytes()
            assert out["p1_" + name[3:]].to_numpy(dtype=float).tobytes() == \
                interval[:, u, 1].tobytes()


@pytest.mark.parametrize("case", ["ovo-ivap-proba", "ovr-cvap-proba", "ovo-platt-logit"])
def test_transform_equals_predict(spark, case):
    cal, cols, by, _ = CASES[case]
    pdf = _data(5)
    model = _local(cal, pdf, cols, by=by)
    out = vs.transform(_frame(spark, pdf, PARTITIONINGS["7"]), model, cols).toPandas()
    _same_columns(out, model, pdf[cols].to_numpy())


def test_transform_with_per_fold_columns_and_missing_scores(spark):
    cal, cols, by, _ = CASES["ovr-cvap-proba"]
    pdf = _data(6)
    model = _local(cal, pdf, cols, by=by)
    names = [f"f{f}_{c}" for f in range(3) for c in cols]
    blocks = pdf.assign(**{f"f{f}_{c}": pdf[c] for f in range(3) for c in cols})
    blocks.loc[[4, 40], "f1_q2"] = np.nan
    frame = _frame(spark, blocks, PARTITIONINGS["7"])
    out = vs.transform(frame, model, names, nan_scores="propagate").toPandas()
    assert out.loc[[4, 40], "p_a"].isna().all() and out.loc[[4, 40], "p1_c"].isna().all()
    keep = ~blocks["f1_q2"].isna().to_numpy()
    x = np.repeat(pdf[cols].to_numpy()[:, None, :], 3, axis=1)[keep]
    _same_columns(out[keep], model, x)
    with pytest.raises(Exception, match="must be finite"):
        vs.transform(frame, model, names).collect()
    with pytest.raises(ValueError, match="method='lookup' needs"):
        vs.transform(frame, model, cols, method="lookup")


def _fails(spark, pdf, cal, cols, match, **kw):
    kw = {"label_col": "y", "weight_col": "w", **kw}
    with pytest.raises(ValueError, match=match):
        vs.fit(_frame(spark, pdf, PARTITIONINGS["1"]), cal, score_col=cols, **kw)


def test_each_error_as_the_local_fit(spark):
    cal = OneVsRestCalibrator(score="proba")
    pdf = _data(7)
    bad = pdf.copy()
    bad.loc[70, "q1"] = np.nan
    _fails(spark, bad, cal, P, r"scores must be finite; found 1 row\(s\)")
    bad = pdf.copy()
    bad.loc[70, "q1"] += 0.01
    _fails(spark, bad, cal, P, r"must have rows summing to 1 .*found 1 row\(s\)")
    bad = pdf.copy()
    bad.loc[70, "w"] = -2.0
    _fails(spark, bad, cal, P, r"sample_weight must be non-negative; got -2.0")
    _fails(spark, pdf.assign(w=np.where(pdf.y == "b", 0.0, pdf.w)), cal, P,
           r"class\(es\) \['b'\] .* have no calibration rows")
    _fails(spark, pdf, cal, P[:2], r"score_col names 2 column\(s\).*one column per class")
    cvap = OneVsRestCalibrator(CrossVennAbersCalibrator(), score="logit")
    zero = pdf.assign(w=np.where(pdf.fold == 2, 0.0, pdf.w))
    _fails(spark, zero, cvap, Z, r"class 'a' has no calibration rows \(of positive weight\) "
           "in fold 2", by="fold")


def test_columns_out_of_the_order_of_the_classes_are_warned_as_locally(spark):
    """As test_dask_multiclass: the merged tally warns with the local fit's words."""
    import warnings

    from venncal.multiclass._order import column_order_note

    pdf = _data(5)
    classes = ["c", "a", "b"]
    cal = OneVsRestCalibrator(VennAbersCalibrator(), score="logit", classes=classes)
    codes = pdf["y"].map({c: i for i, c in enumerate(classes)}).to_numpy()
    expected = column_order_note(pdf[Z].to_numpy(), codes, classes, pdf["w"].to_numpy(),
                                 names=Z)
    assert expected is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vs.fit(_frame(spark, pdf, PARTITIONINGS["7"]), cal, score_col=Z, label_col="y",
               weight_col="w")
    assert [str(w.message) for w in caught if "out of the order" in str(w.message)] == [expected]


def test_transform_refuses_the_columns_in_another_order(spark):
    # the fit records its columns; the same columns in another order would relabel
    pdf = _data(2)
    got = vs.fit(_frame(spark, pdf, PARTITIONINGS["1"]), OneVsRestCalibrator(score="logit"),
                 score_col=Z, label_col="y")
    assert got.score_cols_.tolist() == Z
    with pytest.raises(ValueError, match="gives column 'z2' as the score of class 'a'"):
        vs.transform(spark.createDataFrame(pdf[Z]), got, Z[::-1])
