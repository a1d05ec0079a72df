"""venncal compare: the command line prints what venncal.comparison.compare_file returns."""

from __future__ import annotations

import json

import numpy as np
import pytest

from venncal.cli import main
from venncal.comparison import compare_file

METHODS = "uncalibrated,platt,ivap"


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    s = rng.normal(size=200)
    y = np.where(rng.random(200) < 1 / (1 + np.exp(-2 * s)), "yes", "no")
    z = rng.normal(size=(200, 3))
    k = np.array(["a", "b", "c"])[np.argmax(z + rng.gumbel(size=(200, 3)), axis=1)]
    path = tmp_path / "cal.csv"
    with open(path, "w") as f:
        f.write("score,label,w,za,zb,zc,cls\n")
        for i in range(200):
            f.write(f"{s[i]:.17g},{y[i]},{1 + i % 3},{z[i, 0]:.17g},{z[i, 1]:.17g},{z[i, 2]:.17g},{k[i]}\n")
    return str(path)


def _run(capsys, *argv):
    code = main(["compare", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _without_times(d: dict) -> dict:
    for m in d["methods"].values():
        m.pop("fit_time"), m.pop("predict_time")
    return d


def test_json_equals_the_library(table, capsys):
    code, out, _ = _run(capsys, table, "--score-col", "score", "--score-kind", "logit",
                        "--label-col", "label", "--weight-col", "w", "--methods", METHODS,
                        "--folds", "2", "--seed", "3", "--json")
    assert code == 0
    expected = compare_file(table, score_col="score", label_col="label", weight_col="w",
                            score="logit", methods=METHODS.split(","), folds=2, seed=3)
    printed = json.loads(out)
    assert printed.pop("next") == (f"venncal fit {table} --score-col score --label-col label "
                                   f"--weight-col w --method {expected.recommendation.method} "
                                   "-o model.json")
    assert _without_times(printed) == _without_times(expected.to_dict())


def test_text_and_multiclass(table, capsys):
    code, out, _ = _run(capsys, table, "--score-cols", "za,zb,zc", "--score-kind", "logit",
                        "--label-col", "cls", "--methods", "uncalibrated,temperature",
                        "--folds", "2")
    assert code == 0
    expected = compare_file(table, score_col=["za", "zb", "zc"], label_col="cls",
                            score="logit", methods=["uncalibrated", "temperature"], folds=2)
    assert out.splitlines()[-1] == expected.to_text().splitlines()[-1]
    assert "recommendation:" in out and "temperature" in out


def test_positive_label(table, capsys):
    code, out, _ = _run(capsys, table, "--score-col", "score", "--label-col", "label",
                        "--positive-label", "no", "--methods", "platt", "--folds", "2", "--json")
    assert code == 0 and json.loads(out)["classes"] == ["yes", "no"]


@pytest.mark.parametrize(("options", "message"), [
    (["--score-cols", "za,zb,zc", "--label-col", "cls"], "--score-kind"),
    (["--score-col", "score", "--label-col", "label", "--methods", "nope"], "--methods names"),
    (["--score-cols", "za,zb,zc", "--score-kind", "logit", "--label-col", "cls",
      "--positive-label", "a"], "--positive-label goes with --score-col"),
    (["--score-col", "score", "--label-col", "score"], "both name the column"),
    (["--score-col", "missing", "--label-col", "label"], "missing"),
    (["--score-col", "score", "--score-kind", "proba", "--label-col", "label"], "[0, 1]"),
])
def test_errors_exit_2_with_one_line(table, capsys, options, message):
    code, out, err = _run(capsys, table, *options, "--folds", "2")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("venncal compare: error: ")
    assert message in err


def test_a_single_label_is_refused_in_command_line_words(tmp_path, capsys):
    # the fresh attack of 2026-11-26 (F6): compare's Python advice ("pass classes=[negative,
    # positive]") reached the command line; a single label cannot be compared whatever is named
    path = tmp_path / "one.csv"
    path.write_text("s,y\n0.2,1\n0.7,1\n0.4,1\n0.9,1\n0.1,1\n")
    for extra in ((), ("--positive-label", "1")):
        code, out, err = _run(capsys, str(path), "--score-col", "s", "--label-col", "y", *extra)
        assert code == 2 and out == ""
        assert "column 'y' holds a single label (1): a comparison of calibrators needs rows of " \
               "both classes" in err and "classes=[" not in err


def test_scores_below_chance_are_a_warning_line(table, capsys):
    code, out, err = _run(capsys, table, "--score-col", "score", "--label-col", "label",
                          "--positive-label", "no", "--methods", "platt", "--folds", "2")
    assert code == 0 and "recommendation:" in out
    assert err.count("warning: the scores rank the positive class 'no' below chance") == 1
    assert "--positive-label yes on the command line" in err
