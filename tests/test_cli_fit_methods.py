"""``venncal fit --method``: every method ``venncal compare`` can recommend, fitted and predicted.

The round trip of a new user: compare recommends a method, prints the ``venncal fit``
command to run (``next:``), fit saves the model, predict applies it.  For every
candidate of :data:`venncal.comparison.CANDIDATES`, binary and K = 3, the command
compare prints for it runs, and predict's columns are bit for bit those of the
calibrator the candidates' builder makes, fitted in Python on the same rows.
"""

from __future__ import annotations

import json
import re
import shlex
import types

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venncal import persist
from venncal.cli import _compare, build_parser, main
from venncal.comparison import CANDIDATES
from venncal.comparison._candidates import fit_methods
from venncal.comparison._run import stratified_folds

N = 150
CLASSES = np.array(["a", "b", "c"])


def run(capsys, words):
    code = main([str(w) for w in words])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def ok(capsys, words):
    code, out, err = run(capsys, words)
    assert code == 0, err
    return out, err


def read(path) -> pd.DataFrame:
    return pd.read_csv(path, float_precision="round_trip")


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """A binary table of probabilities and a K = 3 table of logits, each with a fold column."""
    folder = tmp_path_factory.mktemp("fit_methods")
    rng = np.random.default_rng(7)
    s = rng.uniform(0.02, 0.98, N)
    y = (rng.uniform(size=N) < s**1.5).astype(int)
    z = rng.normal(size=(N, 3)) * 2
    c = CLASSES[(z + rng.gumbel(size=z.shape)).argmax(axis=1)]
    fold = stratified_folds(y, 5, np.random.default_rng(0))
    pd.DataFrame({"s": s, "y": y, "fold": fold}).to_csv(folder / "bin.csv", index=False)
    pd.DataFrame({"c0": z[:, 0], "c1": z[:, 1], "c2": z[:, 2], "y": c, "fold": fold}).to_csv(
        folder / "k3.csv", index=False)
    return folder


PROBLEMS = {
    "binary": ("bin.csv", ["--score-col", "s", "--score-kind", "proba"], ["--score-col", "s"]),
    "multiclass": ("k3.csv", ["--score-cols", "c0,c1,c2", "--score-kind", "logit"],
                   ["--score-cols", "c0,c1,c2"]),
}
CASES = [(c.problem, c.name) for c in CANDIDATES]
IDS = [f"{c.problem}-{c.name}" for c in CANDIDATES]


def test_the_table_test_covers_the_clipped_chains():
    names = {(c.problem, c.name) for c in CANDIDATES}
    assert {("binary", "platt+ivap-clip"), ("binary", "beta+ivap-clip"),
            ("multiclass", "temperature+ovr-ivap-cap"),
            ("multiclass", "vector-scaling+ovr-ivap-cap"),
            ("multiclass", "structured-matrix-scaling+ovr-ivap-cap")} <= names


def _next_command(data, problem: str, method: str) -> str | None:
    """What ``venncal compare`` prints after ``next:`` when it recommends ``method``."""
    _, compare_cols, _ = PROBLEMS[problem]
    args = build_parser().parse_args(["compare", str(data), *compare_cols, "--label-col", "y"])
    result = types.SimpleNamespace(recommendation=types.SimpleNamespace(method=method))
    return _compare._fit_command(args, result)


@pytest.mark.parametrize(("problem", "method"), CASES, ids=IDS)
def test_compare_fit_predict_round_trip(capsys, tables, tmp_path, problem, method):
    name, _, predict_cols = PROBLEMS[problem]
    data = tables / name
    command = _next_command(data, problem, method)
    if method == "uncalibrated":
        assert command is None
        _, compare_cols, _ = PROBLEMS[problem]
        code, _, err = run(capsys, ["fit", data, *compare_cols[:2], "--label-col", "y",
                                    *(compare_cols[2:] if problem == "multiclass" else []),
                                    "--method", method, "-o", tmp_path / "m.json"])
        assert code == 2 and "nothing to fit or save" in err
        assert not (tmp_path / "m.json").exists()
        return
    words = shlex.split(command, comments=True)
    assert words[:2] == ["venncal", "fit"] and words[words.index("--method") + 1] == method
    words = [{"FOLD": "fold", "model.json": tmp_path / "m.json"}.get(w, w) for w in words[1:]]
    ok(capsys, words)
    model = persist.load(tmp_path / "m.json")
    interval = hasattr(model, "predict_interval")
    ok(capsys, ["predict", tmp_path / "m.json", data, *predict_cols, "-o", tmp_path / "out.csv",
                *(["--intervals"] if interval and problem == "multiclass" else [])])
    out, table = read(tmp_path / "out.csv"), read(data)
    (candidate,) = [c for c in CANDIDATES if c.problem == problem and c.name == method]
    kind = "proba" if problem == "binary" else "logit"
    expected = candidate.build(kind, None)
    grouped = getattr(expected, "_group_param", None) is not None
    if problem == "binary":
        x, y = table["s"].to_numpy(), table["y"].to_numpy()
        expected.fit(x, y, **({"folds": table["fold"].to_numpy()} if grouped else {}))
        np.testing.assert_array_equal(out["p"], expected.predict_proba(x)[:, 1])
        if interval:
            pair = expected.predict_interval(x)
            np.testing.assert_array_equal(out[["p0", "p1"]].to_numpy(), pair)
        return
    x, y = table[["c0", "c1", "c2"]].to_numpy(), table["y"].to_numpy()
    expected.fit(x, y)
    np.testing.assert_array_equal(out[[f"p_{c}" for c in CLASSES]].to_numpy(),
                                  expected.predict_proba(x))
    np.testing.assert_array_equal(model.predict_proba(x), expected.predict_proba(x))
    if interval:
        pair = expected.predict_interval(x)
        got = out.iloc[:, table.shape[1] + 3:]  # p0_<unit>, p1_<unit> of each class or pair
        assert all(re.fullmatch(r"p[01]_\w+", c) for c in got.columns)
        np.testing.assert_array_equal(got.to_numpy(), pair.reshape(N, -1))
    else:
        assert list(out.columns) == [*table.columns, *(f"p_{c}" for c in CLASSES)]


def test_ovr_ivap_is_ivap_one_vs_rest_bit_for_bit(capsys, tables, tmp_path):
    cols = ["--score-cols", "c0,c1,c2", "--score-kind", "logit", "--label-col", "y"]
    ok(capsys, ["fit", tables / "k3.csv", *cols, "--method", "ovr-ivap", "--param", "merge=brier",
                "-o", tmp_path / "a.json"])
    ok(capsys, ["fit", tables / "k3.csv", *cols, "--method", "ivap", "--multiclass", "ovr",
                "--merge", "brier", "-o", tmp_path / "b.json"])
    ok(capsys, ["fit", tables / "k3.csv", *cols, "--method", "ivap", "--merge", "brier",
                "-o", tmp_path / "c.json"])
    texts = [(tmp_path / f"{n}.json").read_text() for n in "abc"]
    assert texts[0] == texts[1] == texts[2]
    assert persist.load(tmp_path / "a.json").base.merge == "brier"


def test_param_reaches_the_class_score_calibrators(capsys, tables, tmp_path):
    cols = ["--score-cols", "c0,c1,c2", "--score-kind", "logit", "--label-col", "y"]
    ok(capsys, ["fit", tables / "k3.csv", *cols, "--method", "structured-matrix-scaling",
                "--param", "l2_off_diagonal=cv", "-o", tmp_path / "m.json"])
    assert persist.load(tmp_path / "m.json").l2_off_diagonal == "cv"
    ok(capsys, ["fit", tables / "k3.csv", *cols, "--method", "temperature+ovr-ivap",
                "--param", "tol=1e-9", "--classes", "a,b,c", "-o", tmp_path / "m.json"])
    chain = persist.load(tmp_path / "m.json")
    assert chain.first.tol == 1e-9 and chain.classes_.tolist() == ["a", "b", "c"]


@pytest.mark.parametrize(("extra", "match"), [
    (["--method", "temperature", "--param", "bins=3"],
     r"TemperatureCalibrator \(temperature\) has no parameter 'bins'; "
     r"its parameters: eps, max_iter"),
    (["--method", "temperature", "--param", "score=proba"], r"'score' of temperature is not set"),
    (["--method", "vector-scaling", "--multiclass", "ovo"], r"--multiclass does not go with"),
    (["--method", "matrix-scaling", "--fold-col", "fold"], r"--fold-col does not go with"),
    (["--method", "uncalibrated"], r"uncalibrated is the reference row .* nothing to fit"),
])
def test_refusals_name_the_option(capsys, tables, tmp_path, extra, match):
    code, out, err = run(capsys, ["fit", tables / "k3.csv", "--score-cols", "c0,c1,c2",
                                  "--score-kind", "logit", "--label-col", "y", *extra,
                                  "-o", tmp_path / "m.json"])
    assert code == 2 and re.search(match, err), err
    assert not (tmp_path / "m.json").exists()


def test_a_method_of_the_other_problem_is_refused(capsys, tables, tmp_path):
    code, _, err = run(capsys, ["fit", tables / "bin.csv", "--score-col", "s", "--label-col", "y",
                                "--method", "temperature", "-o", tmp_path / "m.json"])
    assert code == 2 and "--method temperature is for K class-score columns" in err
    code, _, err = run(capsys, ["fit", tables / "k3.csv", "--score-cols", "c0,c1,c2",
                                "--score-kind", "margin", "--label-col", "y",
                                "--method", "temperature", "-o", tmp_path / "m.json"])
    assert code == 2 and "needs --score-kind 'proba' or 'logit'; got 'margin'" in err


def test_dask_refuses_the_class_score_calibrators(capsys, tables, tmp_path):
    pytest.importorskip("dask.distributed")
    cols = ["--score-cols", "c0,c1,c2", "--score-kind", "logit", "--label-col", "y"]
    code, _, err = run(capsys, ["fit", tables / "k3.csv", *cols, "--method", "temperature",
                                "--engine", "dask", "-o", tmp_path / "m.json"])
    assert code == 2 and "cannot be fitted by --engine dask" in err and "--engine local" in err
    ok(capsys, ["fit", tables / "k3.csv", *cols, "--method", "temperature", "-o",
                tmp_path / "m.json"])
    code, _, err = run(capsys, ["predict", tmp_path / "m.json", tables / "k3.csv", "--score-cols",
                                "c0,c1,c2", "--engine", "dask", "-o", tmp_path / "out"])
    assert code == 2 and "use --engine local" in err


def test_predict_propagates_missing_scores_of_a_class_score_model(capsys, tables, tmp_path):
    cols = ["--score-cols", "c0,c1,c2", "--score-kind", "logit", "--label-col", "y"]
    ok(capsys, ["fit", tables / "k3.csv", *cols, "--method", "temperature", "-o",
                tmp_path / "m.json"])
    table = read(tables / "k3.csv")
    table.loc[3, "c1"] = np.nan
    table.to_csv(tmp_path / "nan.csv", index=False)
    ok(capsys, ["predict", tmp_path / "m.json", tmp_path / "nan.csv", "--score-cols", "c0,c1,c2",
                "--nan-scores", "propagate", "-o", tmp_path / "out.csv"])
    out = read(tmp_path / "out.csv")
    p = out[[f"p_{c}" for c in CLASSES]].to_numpy()
    assert np.isnan(p[3]).all() and not np.isnan(np.delete(p, 3, axis=0)).any()
    model = persist.load(tmp_path / "m.json")
    x = table[["c0", "c1", "c2"]].to_numpy()
    np.testing.assert_array_equal(np.delete(p, 3, axis=0),
                                  model.predict_proba(np.delete(x, 3, axis=0)))


def test_help_lists_every_method_with_its_line(capsys):
    code, out, _ = run(capsys, ["fit", "--help"])
    assert code == 0
    # argparse wraps after a hyphen too ("Venn-" / "Abers"): join those lines back
    flat = " ".join(re.sub(r"-\n\s*", "-", out).split())
    for problem in ("binary", "multiclass"):
        for name, about in fit_methods(problem).items():
            assert f"{name}: {' '.join(about.split())}" in flat


def test_compare_prints_the_fit_command(capsys, tables):
    words = ["compare", tables / "k3.csv", "--score-cols", "c0,c1,c2", "--score-kind", "logit",
             "--label-col", "y", "--methods", "temperature,vector-scaling", "--folds", "2"]
    out, err = ok(capsys, words)
    pick = re.search(r"^recommendation: (\S+):", out, re.M).group(1)
    assert err.splitlines()[-1] == (
        f"next: venncal fit {tables / 'k3.csv'} --score-cols c0,c1,c2 --score-kind logit "
        f"--label-col y --method {pick} -o model.json")
    result = json.loads(ok(capsys, [*words, "--json"])[0])
    assert result["next"] == err.splitlines()[-1][len("next: "):]
    assert result["recommendation"]["method"] == pick


def test_the_fit_command_of_a_binary_method_carries_its_score_kind(tables):
    command = _next_command(tables / "bin.csv", "binary", "platt")
    assert command.endswith("--method platt --param score=proba -o model.json")
    assert "FOLD" in _next_command(tables / "bin.csv", "binary", "cvap")


@settings(max_examples=40)
@given(name=st.sampled_from([n for n in fit_methods("multiclass") if n != "uncalibrated"]),
       key=st.one_of(st.sampled_from(["tol", "merge", "max_iter", "l2_off_diagonal", "cv",
                                      "coupling", "score", "classes", "base", "first__tol"]),
                     st.from_regex(r"[a-z_]{1,12}", fullmatch=True)),
       value=st.one_of(st.integers(-2**53, 2**53), st.floats(allow_nan=False), st.text()))
def test_a_parameter_is_set_or_refused_by_name(name, key, value):
    """Any ``--param KEY=VALUE``: set on the one stage that has it, else a ValueError naming it."""
    from venncal.files import calibrator_for

    try:
        model = calibrator_for(name, "multiclass", score="logit", params={key: value},
                               by="fold" if name == "cvap" else None)
    except ValueError as exc:
        assert repr(key) in str(exc)
        return
    params = model.get_params(deep=True)
    assert value in [v for k, v in params.items() if k == key or k.endswith("__" + key)]


@pytest.mark.parametrize(("extra", "match"), [
    ([], r"--method beta\+ivap-clip needs --score-kind proba or logit"),
    (["--score-kind", "proba", "--merge", "brier"], r"merge.* does not go with beta\+ivap-clip"),
    (["--score-kind", "proba", "--fold-col", "fold"], r"does not go with beta\+ivap-clip"),
])
def test_a_binary_chain_needs_its_score_kind_and_refuses_venn_abers_options(capsys, tables,
                                                                          tmp_path, extra, match):
    code, _, err = run(capsys, ["fit", tables / "bin.csv", "--score-col", "s", "--label-col", "y",
                                "--method", "beta+ivap-clip", *extra, "-o", tmp_path / "m.json"])
    assert code == 2 and re.search(match, err), err
    assert not (tmp_path / "m.json").exists()
