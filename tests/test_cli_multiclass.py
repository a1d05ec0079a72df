"""``venncal fit``/``predict``/``evaluate`` with K columns: the library's numbers, bit for bit.

Every command is written as typed; the CLI's outputs are read back exactly
(pandas' ``float_precision="round_trip"``) and compared with
:class:`venncal.OneVsRestCalibrator`, :class:`venncal.OneVsOneCalibrator` and
:func:`venncal.metrics.evaluate_multiclass` called on the same arrays.
"""

from __future__ import annotations

import json
import re
import shlex

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venncal import OneVsOneCalibrator, OneVsRestCalibrator, persist
from venncal._registry import method_class
from venncal.cli import main
from venncal.metrics import evaluate_multiclass

N, K = 120, 3
CODINGS = {"text": np.array(["cat", "dog", "emu"]), "numbers": np.array([5, 7, 9])}
SCORES = "--score-cols s_0,s_1,s_2"


def run(capsys, command: str):
    code = main(shlex.split(command))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def ok(capsys, command: str):
    code, out, err = run(capsys, command)
    assert code == 0, err
    return out, err


def fails(capsys, command: str, match: str):
    code, out, err = run(capsys, command)
    assert code == 2, (code, out, err)
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1, err
    assert re.search(match, lines[0]), err
    assert out == ""


def _data(seed: int, coding: str, kind: str = "logit", n: int = N):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, K)) * 2
    y = CODINGS[coding][(z + rng.gumbel(size=z.shape)).argmax(axis=1)]
    if kind == "proba":
        e = np.exp(z - z.max(axis=1, keepdims=True))
        z = e / e.sum(axis=1, keepdims=True)
    folds = np.arange(n) % 3
    return z, y, folds


def _write(path, z, y, folds, weights=None):
    frame = pd.DataFrame({f"s_{k}": z[:, k] for k in range(K)})
    frame["y"], frame["fold"] = y, folds
    if weights is not None:
        frame["w"] = weights
    if str(path).endswith(".parquet"):
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)
    return path


def _read(path) -> pd.DataFrame:
    if str(path).endswith(".parquet"):
        return pd.read_parquet(path)
    return pd.read_csv(path, float_precision="round_trip")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _library(method, multiclass, kind, z, y, folds, weights=None, classes=None, coupling=None):
    base = method_class(method)()
    extra = {"coupling": coupling} if coupling else {}
    cls = OneVsOneCalibrator if multiclass == "ovo" else OneVsRestCalibrator
    cal = cls(base, score=kind, classes=classes, **extra)
    by = {"folds": folds} if method == "cvap" else {}
    return cal.fit(z, y, sample_weight=weights, **by)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("coding", list(CODINGS))
@pytest.mark.parametrize(
    "method, multiclass, kind",
    [("ivap", "ovr", "logit"), ("ivap", "ovo", "proba"), ("cvap", "ovr", "proba"),
     ("cvap", "ovo", "logit"), ("platt", "ovr", "margin"), ("isotonic", "ovo", "logit")],
)
def test_fit_and_predict_equal_the_library(folder, capsys, fmt, coding, method, multiclass, kind):
    z, y, folds = _data(1, coding, kind)
    _write(f"cal.{fmt}", z[:80], y[:80], folds[:80])
    _write(f"test.{fmt}", z[80:], y[80:], folds[80:])
    fold = "--fold-col fold" if method == "cvap" else ""
    _, err = ok(capsys, f"fit cal.{fmt} {SCORES} --score-kind {kind} --label-col y "
                        f"--method {method} --multiclass {multiclass} {fold} -o m.json")
    expected = _library(method, multiclass, kind, z[:80], y[:80], folds[:80])
    classes = expected.classes_.tolist()
    assert f"classes {', '.join(map(repr, classes))}" in err
    model = persist.load("m.json")
    assert type(model) is type(expected)
    assert model.classes_.tolist() == classes
    intervals = "--intervals" if method in ("ivap", "cvap") else ""
    ok(capsys, f"predict m.json test.{fmt} {SCORES} {intervals} -o out.{fmt}")
    out = _read(f"out.{fmt}")
    proba = expected.predict_proba(z[80:])
    for k, c in enumerate(classes):
        assert out[f"p_{c}"].to_numpy().tobytes() == proba[:, k].tobytes()
    if intervals:
        iv = expected.predict_interval(z[80:])
        units = ([str(c) for c in classes] if multiclass == "ovr" else
                 [f"{classes[j]}_vs_{classes[i]}" for i, j in expected.pairs_.tolist()])
        for u, unit in enumerate(units):
            assert out[f"p0_{unit}"].to_numpy().tobytes() == iv[:, u, 0].tobytes()
            assert out[f"p1_{unit}"].to_numpy().tobytes() == iv[:, u, 1].tobytes()
        assert out.shape[1] == 5 + K + 2 * len(units)
    else:
        assert out.shape[1] == 5 + K


def test_classes_fix_the_order_and_weights_count(folder, capsys):
    z, y, folds = _data(2, "numbers")
    w = np.random.default_rng(2).integers(0, 4, N).astype(float)
    _write("cal.csv", z, y, folds, w)
    _, err = ok(capsys, f"fit cal.csv {SCORES} --score-kind logit --label-col y --weight-col w "
                        "--classes 9,5,7 --method ivap --multiclass ovo --coupling normalize "
                        "-o m.json")
    assert "classes 9, 5, 7" in err and "'7' vs '9'" not in err
    expected = OneVsOneCalibrator(method_class("ivap")(), score="logit", classes=[9, 5, 7],
                                  coupling="normalize").fit(z, y, sample_weight=w)
    ok(capsys, f"predict m.json cal.csv {SCORES} -o out.csv --prefix c_")
    out = _read("out.csv")
    got = out[["c_p_9", "c_p_5", "c_p_7"]].to_numpy()
    assert got.tobytes() == expected.predict_proba(z).tobytes()


def test_cvap_takes_k_columns_per_fold(folder, capsys):
    z, y, folds = _data(3, "text")
    frame = pd.DataFrame({f"s_{k}": z[:, k] for k in range(K)})
    frame["y"], frame["fold"] = y, folds
    for f in range(3):
        for k in range(K):
            frame[f"f{f}_{k}"] = z[:, k] + 0.01 * f
    frame.to_csv("cal.csv", index=False)
    ok(capsys, f"fit cal.csv {SCORES} --score-kind logit --label-col y --method cvap "
               "--fold-col fold -o m.json")
    cols = ",".join(f"f{f}_{k}" for f in range(3) for k in range(K))
    ok(capsys, f"predict m.json cal.csv --score-cols {cols} -o out.csv")
    expected = _library("cvap", "ovr", "logit", z, y, folds)
    blocks = np.stack([z + 0.01 * f for f in range(3)], axis=1)
    out = _read("out.csv")[["p_cat", "p_dog", "p_emu"]].to_numpy()
    assert out.tobytes() == expected.predict_proba(blocks).tobytes()


def test_nan_scores_propagate(folder, capsys):
    z, y, folds = _data(4, "text")
    _write("cal.csv", z, y, folds)
    ok(capsys, f"fit cal.csv {SCORES} --score-kind logit --label-col y --method ivap -o m.json")
    test = z[:10].copy()
    test[3, 1] = np.nan
    _write("test.csv", test, y[:10], folds[:10])
    fails(capsys, f"predict m.json test.csv {SCORES} -o out.csv", r"row 4")
    ok(capsys, f"predict m.json test.csv {SCORES} -o out.csv --nan-scores propagate --intervals")
    out = _read("out.csv")
    assert out.iloc[3, 5:].isna().all() and not out.drop(index=3).iloc[:, 5:].isna().any().any()
    keep = np.arange(10) != 3
    expected = persist.load("m.json").predict_proba(z[:10][keep])
    assert out[["p_cat", "p_dog", "p_emu"]].to_numpy()[keep].tobytes() == expected.tobytes()


@pytest.mark.parametrize("coding", list(CODINGS))
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_evaluate_equals_evaluate_multiclass(folder, capsys, coding, fmt):
    z, y, folds = _data(5, coding, "proba")
    w = np.random.default_rng(5).random(N)
    _write(f"t.{fmt}", z, y, folds, w)
    out, err = ok(capsys, f"evaluate t.{fmt} --prob-cols s_0,s_1,s_2 --label-col y "
                          "--weight-col w --bins 5 --json --log-base 2")
    expected = evaluate_multiclass(y, z, n_bins=5, base=2, sample_weight=w)
    assert json.loads(out) == json.loads(expected.to_json())
    order = CODINGS[coding][[2, 0, 1]]
    text = ",".join(map(str, order))
    out, _ = ok(capsys, f"evaluate t.{fmt} --prob-cols s_2,s_0,s_1 --classes {text} --label-col y")
    again = evaluate_multiclass(y, z[:, [2, 0, 1]], classes=order)
    assert out.strip() == again.to_text()


ERRORS = [
    (f"fit cal.csv {SCORES} --label-col y --method ivap -o m.json", "needs --score-kind"),
    (f"fit cal.csv {SCORES} --score-col s_0 --score-kind logit --label-col y --method ivap "
     "-o m.json", "--score-col .* or --score-cols"),
    ("fit cal.csv --score-col s_0 --score-kind logit --label-col y --method ivap -o m.json",
     "--score-kind goes with --score-cols"),
    ("fit cal.csv --score-cols s_0,s_1 --score-kind logit --label-col y --method ivap -o m.json",
     "--score-cols gives 2 columns, one per class, but the labels hold 3 classes"),
    (f"fit cal.csv {SCORES} --score-kind logit --label-col y --classes cat,dog --method ivap "
     "-o m.json", "--score-cols gives 3 columns but --classes names 2 classes"),
    ("fit cal.csv --score-cols s_0,s_1,s_2,fold --score-kind logit --label-col y --classes "
     "cat,dog,emu,yak --method ivap -o m.json", r"\['yak'\] .*have no calibration rows"),
    (f"fit cal.csv {SCORES} --score-kind proba --label-col y --method ivap -o m.json",
     r"score='proba'|sum to 1|\[0, 1\]"),
    (f"fit cal.csv {SCORES} --score-kind logit --label-col y --method ivap --coupling price "
     "-o m.json", "--coupling combines the pairs of --multiclass ovo"),
    (f"fit cal.csv {SCORES} --score-kind logit --label-col y --method ivap --positive-label cat "
     "-o m.json", "--positive-label is for one --score-col"),
    (f"fit cal.csv {SCORES} --score-kind logit --label-col y --method ivap --decreasing "
     "-o m.json", "--decreasing is for one --score-col"),
    (f"fit cal.csv {SCORES} --score-kind logit --label-col y --method ivap --param classes=a,b "
     "-o m.json", "--classes X,Y"),
    (f"fit cal.csv {SCORES} --score-kind logit --label-col y --method cvap -o m.json",
     "--method cvap needs --fold-col"),
    ("fit cal.csv --score-cols s_0,s_1,s_0 --score-kind logit --label-col y --method ivap "
     "-o m.json", "--score-cols names the column 's_0' twice"),
    ("fit cal.csv --score-cols s_0,s_1,nope --score-kind logit --label-col y --method ivap "
     "-o m.json", "no column 'nope' \\(given by --score-cols\\)"),
    ("predict ovr.json cal.csv --score-cols s_0,s_1 -o o.csv", "takes 3 score columns; got 2"),
    ("predict ovr.json cal.csv --score-col s_0 -o o.csv", "a model of 3 classes: give its"),
    ("predict bin.json cal.csv --score-cols s_0,s_1,s_2 -o o.csv", "two classes: give --score-col"),
    ("predict binplatt.json cal.csv --score-col s_0 --intervals -o o.csv",
     "PlattCalibrator, which gives no intervals"),
    ("predict platt.json cal.csv --score-cols s_0,s_1,s_2 --intervals -o o.csv",
     "PlattCalibrator, which gives no intervals"),
    ("evaluate p.csv --prob-cols s_0,s_1 --label-col y", "--prob-cols gives 2 columns"),
    ("evaluate p.csv --prob-cols s_0,s_1,s_2 --label-col y --classes cat,dog,cat",
     "--classes names the class 'cat' twice"),
    ("evaluate p.csv --prob-cols s_0,s_1,s_2 --label-col y --p0-col s_0 --p1-col s_1",
     "--p0-col is for --prob-col"),
    ("evaluate p.csv --prob-col s_0 --label-col y --classes a,b", "--classes names the classes "
     "of --prob-cols"),
    ("evaluate p.csv --prob-col s_0 --prob-cols s_0,s_1,s_2 --label-col y", "one of them"),
    ("evaluate cal.csv --prob-cols s_0,s_1,s_2 --label-col y", "must lie in \\[0, 1\\]"),
]


@pytest.fixture
def error_files(folder, capsys):
    z, y, folds = _data(6, "text")
    _write("cal.csv", z, y, folds)
    p, _, _ = _data(6, "text", "proba")
    _write("p.csv", p, y, folds)
    ok(capsys, f"fit cal.csv {SCORES} --score-kind logit --label-col y --method ivap -o ovr.json")
    ok(capsys, f"fit cal.csv {SCORES} --score-kind logit --label-col y --method platt "
               "-o platt.json")
    _write("bin.csv", z, np.arange(N) % 2, folds)
    ok(capsys, "fit bin.csv --score-col s_0 --label-col y --method ivap -o bin.json")
    ok(capsys, "fit bin.csv --score-col s_0 --label-col y --method platt -o binplatt.json")
    return folder


@pytest.mark.parametrize("command, message", ERRORS)
def test_errors_are_one_line_and_exit_2(error_files, capsys, command, message):
    fails(capsys, command, message)


def test_proba_rows_not_summing_to_one_name_the_row(folder, capsys):
    p, y, folds = _data(7, "text", "proba")
    p[4] *= 1.01
    _write("p.csv", p, y, folds)
    fails(capsys, f"fit p.csv {SCORES} --score-kind proba --label-col y --method ivap -o m.json",
          r"; row 5 sums to")  # p[4], the fifth row, counted from 1 as the other messages
    ok_p = p.copy()
    ok_p[4] /= 1.01
    _write("ok.csv", ok_p, y, folds)
    ok(capsys, f"fit ok.csv {SCORES} --score-kind proba --label-col y --method ivap -o m.json")
    fails(capsys, f"predict m.json p.csv {SCORES} -o out.csv", r"p.csv: cannot predict: .*; "
          r"row 5 sums to [^;]*$")
    p[1, 0] = np.nan  # left out: the bad row is still named as a row of the table
    _write("p.csv", p, y, folds)
    fails(capsys, f"predict m.json p.csv {SCORES} -o out.csv --nan-scores propagate",
          r"p.csv: cannot predict: .*; row 5 sums to [^;]*$")
    _write("p.csv", np.where(np.isnan(p), 0.5, p), y, folds)
    fails(capsys, f"evaluate p.csv --prob-cols {SCORES.split()[-1]} --label-col y",
          r"p.csv: each row of proba must sum to 1 \(within 1e-06\); row 2 sums to 1\.[0-9]+$")


def test_choices_agree_with_the_library():
    from venncal.cli import _multiclass
    from venncal.multiclass import COUPLINGS, SCORE_KINDS

    assert tuple(_multiclass.SCORE_KINDS) == tuple(SCORE_KINDS)
    assert sorted(_multiclass.COUPLINGS) == sorted(COUPLINGS)


def test_help_says_the_order_of_the_columns(capsys):
    assert main(["fit", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "in the order of the classes: --classes, else the labels sorted" in text


_WEIGHTS = st.sampled_from([0.0, 1.0, 1e-310, 1e-300, 1e308, 2.0**53 - 1, 2.0**53 + 2, 3.5])


@settings(max_examples=15)
@given(st.lists(st.tuples(st.sampled_from([-3.0, 0.0, 1e-310, 2.5]), _WEIGHTS,
                          st.sampled_from(["a", "b", "c"])), min_size=3, max_size=12))
def test_weights_and_ties_at_the_edges(tmp_path_factory, rows):
    """Tied scores, extreme weights: the CLI fits the library's model or refuses with one line."""
    import contextlib
    import io
    import os
    import warnings

    from venncal import WeightScaleWarning

    folder = tmp_path_factory.mktemp("edges")
    s = np.array([r[0] for r in rows])
    z = np.column_stack([s, -s, 0.5 * s])
    w = np.array([r[1] for r in rows])
    y = np.array([r[2] for r in rows])
    _write(folder / "cal.csv", z, y, np.zeros(len(rows), int), w)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(shlex.split(f"fit {folder}/cal.csv {SCORES} --score-kind margin --label-col y "
                                f"--weight-col w --method ivap -o {folder}/m.json -q"))
    try:
        with warnings.catch_warnings():  # tiny totals warn (the CLI prints it as a line)
            warnings.simplefilter("ignore", WeightScaleWarning)
            expected = OneVsRestCalibrator(method_class("ivap")(), score="margin").fit(z, y, w)
    except (ValueError, TypeError):
        assert code == 2 and len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
        return
    assert code == 0, err.getvalue()
    got = persist.load(os.path.join(folder, "m.json"))
    assert got.predict_proba(z).tobytes() == expected.predict_proba(z).tobytes()


def test_named_classes_follow_the_label_rule():
    from venncal.tables._classes import named_classes

    assert named_classes(np.array([True, False]), ["true", "FALSE"]) == [True, False]
    assert named_classes(np.array([1.5, 2.0]), ["2", "1.5", "3"]) == [2.0, 1.5, 3]
    assert named_classes(np.array([1, 2]), [2, 1]) == [2, 1]  # labels themselves
    assert named_classes(np.array(["1", "a"]), ["a", "1"]) == ["a", "1"]
    with pytest.raises(ValueError, match="'x', which is not a number"):
        named_classes(np.array([1, 2]), ["x"])


def test_fit_file_and_transform_file_are_the_library_fit(folder):
    """What the CLI calls, from Python: classes given as labels, weights, OvO."""
    from venncal.files import fit_file, transform_file

    z, y, folds = _data(8, "numbers")
    w = np.random.default_rng(8).integers(0, 3, N).astype(float)
    _write("cal.csv", z, y, folds, w)
    cols = ["s_0", "s_1", "s_2"]
    with pytest.warns(UserWarning, match="out of the order of the classes"):  # as it is here
        got = fit_file("cal.csv", OneVsOneCalibrator(score="logit", classes=[9, 5, 7]),
                       score_col=cols, label_col="y", weight_col="w")
    expected = OneVsOneCalibrator(score="logit", classes=[9, 5, 7]).fit(z, y, w)
    assert got.classes_.tolist() == [9, 5, 7]
    assert got.predict_proba(z).tobytes() == expected.predict_proba(z).tobytes()
    assert transform_file("cal.csv", got, "out.parquet", score_col=cols, output_cols="q") == N
    out = pd.read_parquet("out.parquet")[["q_9", "q_5", "q_7"]].to_numpy()
    assert out.tobytes() == expected.predict_proba(z).tobytes()


def test_a_binary_fit_on_many_classes_points_to_score_cols(error_files, capsys):
    fails(capsys, "fit cal.csv --score-col s_0 --label-col y --method ivap -o m.json",
          r"y has 3 classes .*\(for many classes give --score-cols and --score-kind\)")


def test_intervals_with_a_binary_venn_abers_model_change_nothing(error_files, capsys):
    """A binary Venn-Abers model writes p0 and p1 anyway: ``--intervals`` is accepted, same file."""
    ok(capsys, "predict bin.json cal.csv --score-col s_0 -o plain.csv")
    ok(capsys, "predict bin.json cal.csv --score-col s_0 --intervals -o asked.csv")
    plain = (error_files / "plain.csv").read_text()
    assert plain == (error_files / "asked.csv").read_text()
    assert plain.splitlines()[0].endswith("p,p0,p1")


def test_columns_out_of_the_order_of_the_classes_are_a_warning(capsys, tmp_path):
    z, y, folds = _data(3, "text", n=300)
    path = _write(tmp_path / "cal.csv", z, y, folds)
    # the columns s_0, s_1, s_2 score cat, dog, emu; named in another order, fit warns
    _, err = ok(capsys, f"fit {path} {SCORES} --score-kind logit --label-col y "
                        f"--method temperature --classes emu,cat,dog -o {tmp_path / 'm.json'}")
    assert err.count("warning: the score columns look out of the order of the classes") == 1
    assert "--classes cat,dog,emu on the command line" in err
    _, err = ok(capsys, f"fit {path} {SCORES} --score-kind logit --label-col y "
                        f"--method temperature -o {tmp_path / 'm.json'} --force")
    assert "warning" not in err


def test_evaluate_warns_of_prob_cols_out_of_the_order_of_the_classes(capsys, tmp_path):
    # attack 37 F4: evaluate --prob-cols had no such check: columns in another order than
    # the classes gave accuracy 0.32 where it is 0.68, exit 0, not a word (even with -q)
    z, y, folds = _data(3, "text", n=300, kind="proba")
    path = _write(tmp_path / "p.csv", z, y, folds)  # s_0, s_1, s_2: cat, dog, emu
    truth = evaluate_multiclass(y, z, classes=["cat", "dog", "emu"])
    out, err = ok(capsys, f"evaluate {path} --prob-cols s_1,s_2,s_0 --label-col y --json -q")
    assert err.count("warning: the score columns look out of the order of the classes") == 1
    assert "--classes dog,emu,cat on the command line" in err
    assert json.loads(out)["accuracy"] < truth["accuracy"] - 0.25  # what it warns of
    out, err = ok(capsys, f"evaluate {path} --prob-cols s_1,s_2,s_0 --label-col y --json "
                          "--classes dog,emu,cat")
    assert "warning" not in err
    assert json.loads(out)["accuracy"] == truth["accuracy"]
    frame = pd.read_csv(path)
    frame["y"] = np.where(frame["y"] == "cat", "cat, big", frame["y"])  # --classes cannot
    frame.to_csv(tmp_path / "c.csv", index=False)
    _, err = ok(capsys, f"evaluate {tmp_path / 'c.csv'} --prob-cols s_1,s_2,s_0 --label-col y")
    assert "--prob-cols s_0,s_1,s_2)" in err and "--score-cols" not in err


def test_column_order_advice_for_labels_with_commas_can_be_run(capsys, tmp_path):
    """Labels holding a comma cannot be named by --classes: the warning gives --score-cols in
    the order of the classes instead, and running that advice fits without the warning
    (attack 12's F3)."""
    rng = np.random.default_rng(4)
    n, labels = 300, np.array(["churn, maybe", "no churn", "yes"])
    z = rng.normal(size=(n, 3)) * 2
    y = labels[(z + rng.gumbel(size=z.shape)).argmax(axis=1)]
    path = tmp_path / "k3.csv"
    # columns a, b, c score classes 'no churn', 'yes', 'churn, maybe' (sorted: not this order)
    pd.DataFrame({"a": z[:, 1], "b": z[:, 2], "c": z[:, 0], "y": y}).to_csv(path, index=False)
    _, err = ok(capsys, f"fit {path} --score-cols a,b,c --score-kind logit --label-col y "
                        f"--method temperature -o {tmp_path / 'm.json'}")
    assert "--score-cols c,a,b)" in err and "--classes '" not in err
    _, err = ok(capsys, f"fit {path} --score-cols c,a,b --score-kind logit --label-col y "
                        f"--method temperature -o {tmp_path / 'm2.json'}")
    assert "out of the order" not in err


def test_ovo_method_prints_its_pairs(folder, capsys):
    """--method ovo-ivap (no --multiclass ovo) printed each pair as "(5, 7) against the rest"
    (attack 26 F3)."""
    z, y, folds = _data(1, "numbers")
    _write("cal.csv", z, y, folds)
    _, err = ok(capsys, f"fit cal.csv {SCORES} --score-kind logit --label-col y "
                        "--method ovo-ivap -o m.json")
    assert "against the rest" not in err
    assert re.search(r"7 vs 5: rows \d+, \d+ of them 7", err), err


def test_fit_summary_of_weights_past_the_largest_double(folder, capsys):
    """Attack 45 F6: weights of 1e308 printed "weight inf of inf" for every class; the sums are
    printed in decimal past the doubles (a third of the rows weigh 1e308 here)."""
    z, y, folds = _data(2, "numbers")
    w = np.tile([1e308, 1e-310, 1.0], len(y) // 3 + 1)[: len(y)]
    _write("cal.csv", z, y, folds, weights=w)
    _, err = ok(capsys, f"fit cal.csv {SCORES} --score-kind logit --label-col y --weight-col w "
                        "--method ovr-ivap -o m.json")
    assert "inf" not in err
    from decimal import Decimal

    totals = re.findall(r"of (\d[\d.]*e\+\d+)", err)
    exact = Decimal(int(np.count_nonzero(w == 1e308))) * Decimal(1e308)  # (the rest: below a digit)
    assert len(totals) == 3 and all(abs(Decimal(t) / exact - 1) < Decimal("1e-5") for t in totals)
