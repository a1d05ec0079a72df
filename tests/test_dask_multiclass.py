"""venncal.dask with multiclass calibrators: fits equal the local fit bit for bit, transforms too.

One-vs-rest and one-vs-one over IVAP, CVAP (by=) and Platt bases, proba and
logit scores, string labels and {5, 7, 9}, weights with zeros and extremes,
several partitionings (and hypothesis over the partition boundaries), the
in-process scheduler and a LocalCluster of two worker processes.
"""

import itertools
import os
import re

import numpy as np
import pytest

REASON = 'the dask extra is not installed (pip install "venncal[dask]")'
if not os.environ.get("CI"):
    pytest.importorskip("dask.dataframe", reason=REASON)
    pytest.importorskip("distributed", reason=REASON)

import dask
import dask.dataframe as dd
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

import venncal
import venncal.dask as vd
from venncal import (
    CrossVennAbersCalibrator,
    OneVsOneCalibrator,
    OneVsRestCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
)
from venncal._score_names import record as record_score_names
from venncal.tables import TableError

N = 240
Z = ["z0", "z1", "z2"]
P = ["q0", "q1", "q2"]


@pytest.fixture(scope="module")
def cluster_client(dask_cluster):
    from distributed import Client

    with Client(dask_cluster, set_as_default=False) as client:
        yield client


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


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


def _frame(pdf, cuts):
    """A dask frame whose partitions are ``pdf`` cut at ``cuts`` (empty partitions allowed)."""
    pdf = pdf.reset_index(drop=True)
    edges = [0, *cuts, len(pdf)]
    return dd.from_map(lambda r: pdf.iloc[r[0]:r[1]], list(itertools.pairwise(edges)),
                       meta=pdf.iloc[:0])


PARTITIONINGS = {
    "1": [],
    "2": [N // 2],
    "7": [30, 60, 90, 120, 150, 200],
    "empty": [0, 80, 80, N],
}


def _local(cal, pdf, cols, weights=True, by=None):
    """The local fit on the same rows, with the names of its score columns."""
    folds = {} if by is None else {"folds": pdf[by].to_numpy()}
    w = pdf["w"].to_numpy() if weights else None
    model = _clone(cal).fit(pdf[cols].to_numpy(), pdf["y"].to_numpy(), w, **folds)
    record_score_names(model, cols)  # as the engines record them
    return model


def _clone(cal):
    from sklearn.base import clone

    return clone(cal)


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
    "ovr-ivap-logit": (OneVsRestCalibrator(VennAbersCalibrator(), score="logit"), Z, None),
    "ovo-ivap-proba": (OneVsOneCalibrator(VennAbersCalibrator(), score="proba"), P, None),
    "ovr-cvap-proba": (OneVsRestCalibrator(CrossVennAbersCalibrator(), score="proba"), P, "fold"),
    "ovo-cvap-logit": (OneVsOneCalibrator(CrossVennAbersCalibrator(), score="logit",
                                          coupling="wu-lin-weng"), Z, "fold"),
    "ovr-platt-logit": (OneVsRestCalibrator(PlattCalibrator(), score="logit"), Z, None),
    "ovo-platt-proba": (OneVsOneCalibrator(PlattCalibrator(), score="proba",
                                           coupling="normalize"), P, None),
}


@pytest.mark.parametrize("kind", list(PARTITIONINGS))
@pytest.mark.parametrize("case", list(CASES))
def test_fit_equals_the_local_fit_bit_for_bit(case, kind, tmp_path):
    cal, cols, by = CASES[case]
    pdf = _data(1)
    got = vd.fit(_frame(pdf, PARTITIONINGS[kind]), cal, score_col=cols, label_col="y",
                 weight_col="w", by=by, split_every=2)
    _same_model(got, _local(cal, pdf, cols, by=by), tmp_path)
    assert repr(got) == repr(cal) and not hasattr(cal, "classes_")


@pytest.mark.parametrize("labels", [(5, 7, 9), ("x", "y", "z"), (True, False, 3)])
def test_labels_of_any_coding(labels, tmp_path):
    if labels == (True, False, 3):
        labels = (-2.5, 0.0, 1e300)
    pdf = _data(2, labels=labels)
    cal = OneVsOneCalibrator(VennAbersCalibrator(), score="logit", coupling="price")
    got = vd.fit(_frame(pdf, [50, 51, 120]), cal, score_col=Z, label_col="y")
    assert got.classes_.tolist() == sorted(labels)
    _same_model(got, _local(cal, pdf, Z, weights=False), tmp_path)


def test_named_classes_fix_the_column_order(tmp_path):
    pdf = _data(3, labels=(5, 7, 9))
    cal = OneVsRestCalibrator(score="logit", classes=[9, 5, 7])
    # the data's columns score 5, 7, 9: the engine says so, as a local fit_file does
    with pytest.warns(UserWarning, match="out of the order of the classes"):
        got = vd.fit(_frame(pdf, [100]), cal, score_col=Z, label_col="y", weight_col="w")
    assert got.classes_.tolist() == [9, 5, 7]
    _same_model(got, _local(cal, pdf, Z), tmp_path)


@given(cuts=st.lists(st.integers(0, N), max_size=6).map(sorted),
       case=st.sampled_from(["ovr-ivap-logit", "ovo-ivap-proba", "ovr-cvap-proba"]),
       split_every=st.integers(2, 4))
def test_any_partition_boundaries(cuts, case, split_every):
    cal, cols, by = CASES[case]
    pdf = _data(4)
    got = vd.fit(_frame(pdf, cuts), cal, score_col=cols, label_col="y", weight_col="w", by=by,
                 split_every=split_every)
    expected = _local(cal, pdf, cols, by=by)
    x = pdf[cols].to_numpy()
    assert got.predict_proba(x).tobytes() == expected.predict_proba(x).tobytes()
    assert got.predict_interval(x).tobytes() == expected.predict_interval(x).tobytes()


def _words(exc) -> str:
    """The message but the problem and score it names (the first found differs with the merge
    order)."""
    return re.sub(r"the rows at binary score \S+ of .* sum to",
                  "the rows at binary score S of U sum to", str(exc))


#: Weights at the edges, in two sets: ScoreSummary adds tied weights exactly (so that any
#: partitioning gives the same bits) while their sum fits in two doubles, which whole
#: numbers near 2**53 mixed with 1e-310 at one score do not (2**53 + 1 + 1e-310 rounds to
#: 2**53 + 2 from the rows, to 2**53 merged: a limit of summary.py, outside the engines).
EXTREME = ([0.0, 1e-310, 1e-300, 1.0, 3.0, 1e308], [0.0, 1.0, 3.0, 2.0**53 - 1, 2.0**53])


@pytest.mark.parametrize("cuts", [[], [120], [60, 200]])
def test_tied_weights_past_float64_name_the_problem_as_locally(cuts):
    """Attack 27 F3: the refusal named 'the observations with score -2.509', an inner binary
    score, and neither the class nor the pair; it names the problem, in one set of words on
    every engine (rows 3 and 200 tie in every column, each of weight 1e308)."""
    pdf = _data(7)
    pdf.loc[200, P + ["y"]] = pdf.loc[3, P + ["y"]].to_numpy()
    pdf.loc[[3, 200], "w"] = 1e308
    for cal, unit in ((OneVsRestCalibrator(VennAbersCalibrator(), score="proba"), "class"),
                      (OneVsOneCalibrator(VennAbersCalibrator(), score="proba"), "pair")):
        with pytest.raises(ValueError) as local:
            _local(cal, pdf, P)
        assert re.match(rf"sample_weight: the weights of the rows at binary score \S+ of {unit} "
                        r"\S.* sum to more than the largest float64", str(local.value))
        with pytest.raises(ValueError) as remote:
            vd.fit(_frame(pdf, cuts), cal, score_col=P, label_col="y", weight_col="w")
        assert str(remote.value) == str(local.value)


@given(picks=st.sampled_from(EXTREME).flatmap(
           lambda ws: st.lists(st.sampled_from(ws), min_size=N, max_size=N)),
       cuts=st.lists(st.integers(0, N), max_size=4).map(sorted))
def test_extreme_weights(picks, cuts):
    pdf = _data(5).assign(w=picks)
    cal = OneVsRestCalibrator(VennAbersCalibrator(), score="proba")
    try:
        expected = _local(cal, pdf, P)
    except ValueError as exc:
        with pytest.raises(ValueError) as info:
            vd.fit(_frame(pdf, cuts), cal, score_col=P, label_col="y", weight_col="w")
        assert _words(info.value) == _words(exc)
        return
    got = vd.fit(_frame(pdf, cuts), cal, score_col=P, label_col="y", weight_col="w")
    x = pdf[P].to_numpy()
    assert got.predict_interval(x).tobytes() == expected.predict_interval(x).tobytes()


def test_fit_on_the_cluster(cluster_client, tmp_path):
    cal, cols, by = CASES["ovo-cvap-logit"]
    pdf = _data(6)
    with dask.config.set(scheduler=cluster_client):
        got = vd.fit(_frame(pdf, PARTITIONINGS["7"]), cal, score_col=cols, label_col="y",
                     weight_col="w", by=by)
        out = vd.transform(dd.from_pandas(pdf, npartitions=3), got, cols).compute()
    _same_model(got, _local(cal, pdf, cols, by=by), tmp_path)
    _same_columns(out, got, pdf[cols].to_numpy())


def test_round_scores_and_max_distinct_apply_per_problem():
    pdf = _data(7)
    cal = OneVsRestCalibrator(VennAbersCalibrator(), score="proba")
    got = vd.fit(_frame(pdf, [99]), cal, score_col=P, label_col="y", weight_col="w",
                 round_scores=2)
    local = _clone(cal)
    summaries = local.summaries(pdf[P].to_numpy(), pdf["y"].to_numpy(), pdf["w"].to_numpy())
    # the same summaries of the rounded binary scores: the probabilities themselves (one-vs-rest)
    rounded = {
        k: venncal.ScoreSummary.from_arrays(np.round(pdf[P[i]].to_numpy(), 2),
                                            pdf["y"].to_numpy() == k, pdf["w"].to_numpy())
        for i, k in enumerate(["a", "b", "c"])
    }
    assert set(summaries) == set(rounded)
    expected = _clone(cal).fit_summary(rounded)
    x = pdf[P].to_numpy()
    assert got.predict_interval(x).tobytes() == expected.predict_interval(x).tobytes()
    distinct = sum(s.n_distinct for s in rounded.values())
    vd.fit(_frame(pdf, [99]), cal, score_col=P, label_col="y", weight_col="w", round_scores=2,
           max_distinct=distinct)
    with pytest.raises(ValueError, match="more than max_distinct"):
        vd.fit(_frame(pdf, [99]), cal, score_col=P, label_col="y", weight_col="w",
               round_scores=2, max_distinct=distinct - 1)


def _same_columns(out, model, x):
    proba = model.predict_proba(x)
    for k, c in enumerate(model.classes_):
        assert out[f"p_{c}"].to_numpy().tobytes() == proba[:, k].tobytes()
    if hasattr(model, "predict_interval"):
        interval = model.predict_interval(x)
        names = [c for c in out.columns if c.startswith("p0_")]
        assert len(names) == interval.shape[1]
        for u, name in enumerate(names):
            assert out[name].to_numpy().tobytes() == interval[:, u, 0].tobytes()
            assert out["p1_" + name[3:]].to_numpy().tobytes() == interval[:, u, 1].tobytes()


@pytest.mark.parametrize("case", list(CASES))
def test_transform_equals_predict(case):
    cal, cols, by = CASES[case]
    pdf = _data(8)
    model = _local(cal, pdf, cols, by=by)
    out = vd.transform(_frame(pdf, [10, 10, 100]), model, cols).compute()
    _same_columns(out, model, pdf[cols].to_numpy())
    only_p = vd.transform(_frame(pdf, [100]), model, cols, output_cols="prob").compute()
    assert [c for c in only_p.columns if c.startswith("prob")] == ["prob_a", "prob_b", "prob_c"]


def test_transform_with_per_fold_score_columns():
    cal, cols, by = CASES["ovr-cvap-proba"]
    pdf = _data(9)
    model = _local(cal, pdf, cols, by=by)
    blocks = pdf.assign(**{f"f{f}_{c}": pdf[c] for f in range(3) for c in cols})
    names = [f"f{f}_{c}" for f in range(3) for c in cols]
    out = vd.transform(_frame(blocks, [60]), model, names).compute()
    x = np.repeat(pdf[cols].to_numpy()[:, None, :], 3, axis=1)
    _same_columns(out, model, x)


def test_transform_missing_scores():
    cal, cols, _ = CASES["ovr-ivap-logit"]
    pdf = _data(10)
    model = _local(cal, pdf, cols)
    holes = pdf.copy()
    holes.loc[[3, 50], "z1"] = np.nan
    with pytest.raises(ValueError, match="must be finite"):
        vd.transform(_frame(holes, [100]), model, cols).compute()
    out = vd.transform(_frame(holes, [100]), model, cols, nan_scores="propagate").compute()
    assert np.isnan(out.loc[[3, 50], "p_a"]).all() and np.isnan(out.loc[[3, 50], "p1_c"]).all()
    keep = ~holes["z1"].isna().to_numpy()
    assert out["p_b"].to_numpy()[keep].tobytes() == \
        model.predict_proba(pdf[cols].to_numpy()[keep])[:, 1].tobytes()


def _fails(pdf, cal, cols, match, exc=ValueError, **kw):
    kw = {"label_col": "y", "weight_col": "w", **kw}
    with pytest.raises(exc, match=match):
        vd.fit(_frame(pdf, [60, 61]), cal, score_col=cols, **kw)


def test_each_error_as_the_local_fit():
    cal = OneVsRestCalibrator(score="proba")
    pdf = _data(11)
    bad = pdf.copy()
    bad.loc[70, "q1"] = np.nan
    _fails(bad, cal, P, r"scores must be finite; found 1 row\(s\)")
    bad = pdf.copy()
    bad.loc[70, "q1"] += 0.01
    _fails(bad, cal, P, r"must have rows summing to 1 .*found 1 row\(s\) .*score='logit'")
    # located: row 70 is row 9 (from 0) of the third partition, [61, ...) (attack 20 F3)
    _fails(bad, cal, P, r"^partition 2: cannot fit: .*found 1 row\(s\) that do not; the first, "
                        r"row 9 \(from 0\), sums to 1\.01")
    bad = pdf.copy()
    bad.loc[70, P] = [1.5, -0.5, 0.0]
    _fails(bad, cal, P, r"must lie in \[0, 1\]; found 1 row")
    bad = pdf.copy()
    bad.loc[70, "w"] = -2.0
    _fails(bad, cal, P, r"sample_weight must be non-negative; got -2.0")
    bad.loc[70, "w"] = np.inf
    _fails(bad, cal, P, r"sample_weight must be finite")
    bad = pdf.copy()
    bad.loc[70, "y"] = None
    _fails(bad, cal, P, r"y contains 1 null")
    _fails(pdf, OneVsRestCalibrator(score="proba", classes=["a", "b", "c", "d"]),
           [*P, "z0"], r"class\(es\) \['d'\] .* have no calibration rows")
    _fails(pdf.assign(w=np.where(pdf.y == "b", 0.0, pdf.w)), cal, P,
           r"class\(es\) \['b'\] .* have no calibration rows")
    _fails(pdf, OneVsRestCalibrator(score="proba", classes=["a", "b"]), P[:2],
           r"label\(s\) \['c'\] that are not in classes")
    _fails(pdf, cal, P[:2], r"score_col names 2 column\(s\).*one column per class")
    _fails(pdf, cal, "q0", r"score_col names 1 column")
    _fails(pdf.assign(y="a"), cal, P, "a single class")
    _fails(pdf.iloc[:0], cal, P, "empty")


def test_fold_errors_and_arguments():
    cvap = OneVsRestCalibrator(CrossVennAbersCalibrator(), score="logit")
    pdf = _data(12)
    _fails(pdf, cvap, Z, "pass by=")
    _fails(pdf, OneVsRestCalibrator(score="logit"), Z, "by= is for", by="fold")
    missing = pdf.assign(fold=pdf.fold.astype(float))
    missing.loc[5, "fold"] = np.nan
    _fails(missing, cvap, Z, "contains 1 null", by="fold")
    # a fold whose rows have weight 0 only: refused, as the local fit refuses it
    zero = pdf.assign(w=np.where(pdf.fold == 2, 0.0, pdf.w))
    with pytest.raises(ValueError, match="in fold 2") as local:
        _local(cvap, zero, Z, by="fold")
    _fails(zero, cvap, Z, local.value.args[0].replace("(", r"\(").replace(")", r"\)"),
           by="fold")
    with pytest.raises(ValueError, match="must be one of"):
        vd.fit(_frame(pdf, []), OneVsRestCalibrator(score="odds"), score_col=Z, label_col="y")
    with pytest.raises(ValueError, match="not in the data frame"):
        vd.fit(_frame(pdf, []), cvap, score_col=[*Z[:2], "nope"], label_col="y", by="fold")


def _csv_parts(folder, pdf, cuts):
    folder.mkdir()
    edges = [0, *cuts, len(pdf)]
    for k, (a, b) in enumerate(itertools.pairwise(edges)):
        pdf.iloc[a:b].to_csv(folder / f"part-{k}.csv", index=False)
    return str(folder)


@pytest.mark.parametrize("case", ["ovo-cvap-logit", "ovr-ivap-logit"])
def test_fit_files_and_transform_files(case, tmp_path):
    cal, cols, by = CASES[case]
    pdf = _data(13, labels=(10, 9, 100))  # CSV text typed as numbers: 9 < 10 < 100
    folder = _csv_parts(tmp_path / "parts", pdf, [100, 101])
    got, summaries, rows = vd.fit_files(folder, cal, score_col=cols, label_col="y",
                                        weight_col="w", by=by, return_summary=True)
    expected = _local(cal, pdf, cols, by=by)
    assert got.classes_.tolist() == [9, 10, 100] and rows == N
    _same_model(got, expected, tmp_path)
    local = _clone(cal).summaries(pdf[cols].to_numpy(), pdf.y.to_numpy(), pdf.w.to_numpy(),
                                  **({"folds": pdf[by].to_numpy()} if by else {}))
    assert set(summaries) == set(local)
    for key, summary in local.items():
        assert summaries[key].weights.tobytes() == summary.weights.tobytes()
    n = vd.transform_files(folder, got, str(tmp_path / "out" / "part-*.parquet"), score_col=cols)
    assert n == N
    out = pd.read_parquet(tmp_path / "out").sort_values(cols[0], kind="stable")
    scored = pd.concat([pd.read_parquet(f) for f in sorted((tmp_path / "out").iterdir())])
    _same_columns(scored, got, scored[cols].to_numpy())
    assert len(out) == N


def test_fit_files_errors_name_the_file(tmp_path):
    pdf = _data(14)
    bad = pdf.copy()
    bad.loc[30, "q2"] = np.nan
    folder = _csv_parts(tmp_path / "parts", bad, [60])
    with pytest.raises(TableError, match=r"part-0.csv: column 'q2', row 31 .*empty cell"):
        vd.fit_files(folder, OneVsRestCalibrator(), score_col=P, label_col="y")
    bad.loc[30, "q2"] = 0.5
    folder = _csv_parts(tmp_path / "sums", bad, [60])
    with pytest.raises(TableError, match=r"sums/part-0\.csv: cannot fit: scores .* summing to 1 "
                                         r".*found 1 row\(s\) that do not; the first, row 31, "):
        vd.fit_files(folder, OneVsRestCalibrator(), score_col=P, label_col="y")
    with pytest.raises(TableError, match=r"no column 'q9'"):
        vd.fit_files(folder, OneVsRestCalibrator(), score_col=[*P[:2], "q9"], label_col="y")
    with pytest.raises(ValueError, match="positive_label is for binary"):
        vd.fit_files(folder, OneVsRestCalibrator(), score_col=P, label_col="y",
                     positive_label="a")


def _class_score_models():
    from venncal.chain import ChainedCalibrator
    from venncal.parametric import StructuredMatrixScalingCalibrator, TemperatureCalibrator

    return {
        "temperature": TemperatureCalibrator(score="logit"),
        "structured": StructuredMatrixScalingCalibrator(score="logit"),
        "chain": ChainedCalibrator(TemperatureCalibrator(score="logit"),
                                   OneVsRestCalibrator(score="proba")),
    }


@pytest.mark.parametrize("name", ["temperature", "structured", "chain"])
def test_transform_of_the_class_score_calibrators_equals_predict(name):
    # Temperature, the scalings and chains take K class scores without being
    # one-vs-rest or one-vs-one: their columns are p_<class> (and the chain's
    # intervals), bit for bit the local predictions, with missing scores too.
    pdf = _data(12)
    model = _class_score_models()[name].fit(pdf[Z].to_numpy(), pdf["y"].to_numpy())
    out = vd.transform(_frame(pdf, [10, 10, 100]), model, Z).compute()
    proba = model.predict_proba(pdf[Z].to_numpy())
    for k, c in enumerate(model.classes_):
        assert out[f"p_{c}"].to_numpy().tobytes() == proba[:, k].tobytes()
    assert ("p0_a" in out.columns) == (name == "chain")
    holes = pdf.copy()
    holes.loc[[4], "z2"] = np.nan
    out = vd.transform(_frame(holes, [100]), model, Z, nan_scores="propagate").compute()
    assert np.isnan(out.loc[4, "p_b"]) and not np.isnan(out["p_b"].drop(index=4)).any()


def test_fit_refuses_the_class_score_calibrators():
    pdf = _data(13)
    with pytest.raises(ValueError, match="cannot be fitted from a score summary"):
        vd.fit(_frame(pdf, [100]), _class_score_models()["temperature"], score_col=Z,
               label_col="y")


@pytest.mark.parametrize("classes", [["c", "a", "b"], ["a", "b", "c"]])
def test_columns_out_of_the_order_of_the_classes_are_warned_as_locally(classes):
    """The engine warns of score columns out of the order of the classes with the local
    fit's words (the tally of every partition merged), and not when they are in order."""
    import warnings

    from venncal.multiclass._order import column_order_note

    pdf = _data(5, n=600)
    cal = OneVsRestCalibrator(VennAbersCalibrator(), score="logit", classes=classes)
    codes = pdf["y"].map({c: i for i, c in enumerate(classes)}).to_numpy()
    expected = column_order_note(pdf[Z].to_numpy(), codes, classes, pdf["w"].to_numpy(),
                                 names=Z)
    assert (expected is None) == (classes == ["a", "b", "c"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vd.fit(_frame(pdf, [0, 150, 151, 400]), cal, score_col=Z, label_col="y", weight_col="w")
    said = [str(w.message) for w in caught if "out of the order" in str(w.message)]
    assert said == ([] if expected is None else [expected])


@pytest.mark.parametrize("cal", [OneVsRestCalibrator(score="margin"),
                                 OneVsOneCalibrator(score="logit")])
def test_round_scores_that_overflow_are_refused(cal):
    """Rounding a class's or pair's scores must not turn them into inf (attack 21 F2): the
    fit was silent and wrote a model that load refuses; one score column is refused so too."""
    rng = np.random.default_rng(0)
    z = rng.normal(size=(60, 3)) * 1e307
    pdf = pd.DataFrame({"a": z[:, 0], "b": z[:, 1], "c": z[:, 2],
                        "y": rng.choice(["a", "b", "c"], 60)})
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match=r"round_scores=2 turns \d+ finite score\(s\) into inf"):
            vd.fit(dd.from_pandas(pdf, npartitions=3), cal, score_col=["a", "b", "c"],
                   label_col="y", round_scores=2)
        model = vd.fit(dd.from_pandas(pdf, npartitions=3), cal, score_col=["a", "b", "c"],
                       label_col="y", round_scores=-300)
    assert np.isfinite(model.predict_proba(z[:5])).all()


def test_transforms_refuse_the_columns_in_another_order(tmp_path):
    # the fits record their columns; the same columns in another order would relabel
    pdf = _data(2)
    got = vd.fit(_frame(pdf, PARTITIONINGS["2"]), OneVsRestCalibrator(score="logit"),
                 score_col=Z, label_col="y")
    assert got.score_cols_.tolist() == Z
    with pytest.raises(ValueError, match="gives column 'z2' as the score of class 'a'"):
        vd.transform(dd.from_pandas(pdf[Z], npartitions=2), got, Z[::-1])
    folder = _csv_parts(tmp_path / "parts", pdf, [100])
    files = vd.fit_files(folder, OneVsRestCalibrator(score="logit"), score_col=Z, label_col="y")
    assert files.score_cols_.tolist() == Z
    with pytest.raises(ValueError, match="gives column 'z2' as the score of class 'a'"):
        vd.transform_files(folder, files, str(tmp_path / "out/"), score_col=Z[::-1])
