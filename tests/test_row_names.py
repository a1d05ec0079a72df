"""Errors name the row of the input the user gave, whatever subset a method saw (attack 21 F3, F5).

A method fitted on a part of the rows (a fold, a split) names a row of that part; the caller
that made the part renames it as a row of its input (``RowError.of_rows``), and a table's
reader as the table counts its rows (from 1).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pc
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from venncal import CalibratedClassifier, compare
from venncal.cli import main


def _cli(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_cli_fit_and_compare_name_the_table_row(tmp_path, capsys):
    rng = np.random.default_rng(3)
    P = rng.dirichlet([2, 2, 2], 60)
    y = np.array(["a", "b", "c"])[np.where(rng.random(60) < 0.6, P.argmax(axis=1),
                                           rng.integers(0, 3, 60))]
    Z = np.log(P)
    Z[5] = [-1e308, 1e308, 0.0]  # table row 6
    pc.write_csv(pa.table({"za": Z[:, 0], "zb": Z[:, 1], "zc": Z[:, 2], "y": y}),
                 tmp_path / "z.csv")
    err = _cli(capsys, ["fit", str(tmp_path / "z.csv"), "--score-cols", "za,zb,zc",
                        "--score-kind", "logit", "--label-col", "y", "--method", "vector-scaling",
                        "-o", str(tmp_path / "m.json")])
    assert "scores row 6 spans more than the largest double" in err
    s = rng.uniform(0.1, 0.9, 60)
    s[40] = 1.5  # table row 41
    pc.write_csv(pa.table({"s": s, "y": (rng.random(60) < s).astype(int)}), tmp_path / "b.csv")
    err = _cli(capsys, ["compare", str(tmp_path / "b.csv"), "--score-col", "s", "--label-col", "y",
                        "--score-kind", "proba"])
    assert err.endswith("scores must lie in [0, 1]; got 1.5 in row 41")


def test_compare_names_the_input_row_in_each_folds_failure():
    rng = np.random.default_rng(4)
    z = rng.normal(size=(90, 3))
    y = np.where(rng.random(90) < 0.6, z.argmax(axis=1), rng.integers(0, 3, 90))
    z[40] = [-1e308, 1e308, 0.0]
    result = compare(z, y, score="logit", methods=["vector-scaling"], folds=3, seed=0)
    reasons = set(result.failures("vector-scaling").values())
    assert reasons == {"ValueError: scores row 40 (from 0) spans more than the largest double "
                       "(-1e+308 to 1e+308): its smallest class's log-probability is below "
                       "-1.8e308, which float64 cannot hold; multiply every row's scores by a "
                       "positive constant below 1, or fit TemperatureCalibrator (which takes "
                       "logits of any scale)"}


class _Scale(ClassifierMixin, BaseEstimator):
    """A linear score of the first feature (an infinite score where the feature is huge)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        with np.errstate(over="ignore"):
            return np.asarray(X)[:, 0] * 1e10


def test_wrapper_names_the_row_of_x_not_of_its_fold():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2))
    y = (X[:, 0] + rng.normal(size=90) > 0).astype(int)
    X[40, 0] = 1e300  # its score is inf
    clf = CalibratedClassifier(_Scale(), method="platt", cv=3, random_state=0)
    with pytest.raises(ValueError, match=r"the first at index 40 \(inf\)"):
        clf.fit(X, y)


def test_a_prefixed_row_error_keeps_how_it_names_the_row():
    """The chain's second-stage refusal adds its words before the error; the row stays named
    as the error named it ("at index 30", not "row 30 (from 0)")."""
    from venncal._rows import RowError

    err = RowError("scores must be finite; the first ", 3, " (nan)", at_index=True)
    moved = err.of_rows(np.arange(10, 20)).prefixed("the second stage refused them: ")
    assert str(moved) == "the second stage refused them: scores must be finite; the first at " \
                         "index 13 (nan)"
    assert moved.renumbered(1).endswith("the first in row 14 (nan)")


@pytest.mark.parametrize("method", ["platt", "ivap", "isotonic", "venn-abers-classifier"])
def test_wrapper_names_the_first_bad_row_of_all_folds_and_counts_them_all(method):
    """Each fold was refused on its own: the first fold to fail named its own row and count
    ("found 1 ..., the first at index 70" where rows 5, 40, 41 and 70 are bad; attack 22 F1)."""
    from venncal import VennAbersClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2))
    y = (X[:, 0] + rng.normal(size=90) > 0).astype(int)
    X[[5, 40, 41, 70], 0] = 1e300  # their scores are inf; the folds are {70}, {5, 40}, {41}
    if method == "venn-abers-classifier":
        clf = VennAbersClassifier(_Scale(), cv=3, random_state=0)
    else:
        clf = CalibratedClassifier(_Scale(), method=method, cv=3, random_state=0)
    with pytest.raises(ValueError, match=r"found 4 NaN or infinite value\(s\), the first at "
                                         r"index 5 \(inf\)"):
        clf.fit(X, y)


def test_compare_file_names_a_folds_failure_at_the_table_row(tmp_path):
    """compare_file renamed an error that stopped the comparison, not a fold's failure, which
    said "row 40 (from 0)" where fit said "row 41" (attack 22 F2)."""
    from venncal.comparison import compare_file

    rng = np.random.default_rng(4)
    z = rng.normal(size=(90, 3))
    y = np.where(rng.random(90) < 0.6, z.argmax(axis=1), rng.integers(0, 3, 90))
    z[40] = [-1e308, 1e308, 0.0]  # table row 41
    pc.write_csv(pa.table({"za": z[:, 0], "zb": z[:, 1], "zc": z[:, 2], "y": y}),
                 tmp_path / "z.csv")
    result = compare_file(str(tmp_path / "z.csv"), score_col=["za", "zb", "zc"], label_col="y",
                          score="logit",
                          methods=["vector-scaling", "ovr-platt"], folds=3, seed=0)
    reasons = set(result.failures("vector-scaling").values())
    assert reasons == {"ValueError: scores row 41 spans more than the largest double "
                       "(-1e+308 to 1e+308): its smallest class's log-probability is below "
                       "-1.8e308, which float64 cannot hold; multiply every row's scores by a "
                       "positive constant below 1, or fit TemperatureCalibrator (which takes "
                       "logits of any scale)"}
    assert "row 41" in result.to_text() and "from 0" not in result.to_text()


class _Marked(ClassifierMixin, BaseEstimator):
    """score = X[:, 0] * k, with k = 1e300 for a model trained with the marker row (X[:, 1] == 7)."""

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        self.k_ = 1e300 if (np.asarray(X)[:, 1] == 7).any() else 1.0
        return self

    def decision_function(self, X):
        with np.errstate(over="ignore"):
            return np.asarray(X)[:, 0] * self.k_


@pytest.mark.parametrize("method", ["platt", "ivap"])
def test_overlapping_folds_name_the_first_bad_score_of_any_fold(method):
    """Rows 20 and 30 are each in two test folds; each is inf under one fold's model only. The
    refit in row order kept each row's first score, and named row 30 (attack 23 F5)."""
    rng = np.random.default_rng(0)
    n = 60
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    X[10, 1] = 7  # the marker row
    X[[20, 30], 0] = 1e10
    every = np.arange(n)
    tests = [np.array([10, 20, 21, 22, 30]), np.array([30, 31, 32, 33]),
             np.array([20, 40, 41, 42])]
    splits = [(np.setdiff1d(every, t), t) for t in tests]
    with pytest.raises(ValueError, match=r"found 2 NaN or infinite value\(s\), the first at "
                                         r"index 20 \(inf\)"):
        CalibratedClassifier(_Marked(), method=method, cv=splits).fit(X, y)
