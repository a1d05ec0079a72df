"""Tests of the ``vovk2014-uci`` experiment: split logic, per-split losses, analysis, CLI."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

from venncal import (
    FullVennAbersClassifier,
    IsotonicCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
    brier_minimax,
    log_minimax,
)
from venncal.cli import main
from venncal.datasets import paper_tables
from venncal.experiments import holdout_splits
from venncal.experiments import vovk2014_uci as exp

_DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "datasets"
DATA_DIR = Path(os.environ.get("VENNCAL_DATA") or _DEFAULT_DIR)
needs_data = pytest.mark.skipif(
    not (DATA_DIR / "labor-relations" / "labor.arff").is_file()
    or not (DATA_DIR / "echocardiogram" / "echocardiogram.data").is_file(),
    reason=f"UCI data sets not found under {DATA_DIR} (set VENNCAL_DATA)",
)


# ------------------------------------------------------------------------------ splits


@pytest.mark.parametrize("n", [3, 4, 5, 57, 131, 690])
def test_holdout_splits_two_thirds_partition(n):
    y = np.arange(n) % 2
    splits = holdout_splits(y, 5, np.random.default_rng(1))
    assert len(splits) == 5
    for train, test in splits:
        assert len(train) == round(2 * n / 3)
        assert len(train) + len(test) == n
        assert sorted(np.concatenate([train, test]).tolist()) == list(range(n))
        assert len(np.unique(y[train])) == 2
    # different permutations across repetitions (for n large enough to tell)
    if n >= 57:
        assert not np.array_equal(splits[0][0], splits[1][0])


def test_holdout_splits_deterministic_and_labels_agnostic():
    y = np.array(["a", "b"] * 30)
    a = holdout_splits(y, 3, np.random.default_rng(7))
    b = holdout_splits(y, 3, np.random.default_rng(7))
    for (tr_a, te_a), (tr_b, te_b) in zip(a, b, strict=True):
        np.testing.assert_array_equal(tr_a, tr_b)
        np.testing.assert_array_equal(te_a, te_b)


def test_holdout_splits_redraws_single_class_training_parts():
    # one positive among 3 rows: the training part (2 rows) must hold it.
    y = np.array([0, 0, 1])
    for train, _ in holdout_splits(y, 50, np.random.default_rng(0)):
        assert 2 in train


@pytest.mark.parametrize(
    ("y", "reps", "frac", "match"),
    [
        ([0, 1, 0, 1], 1, 1.0, "train_fraction"),
        ([0, 1, 0, 1], 1, 0.0, "train_fraction"),
        ([0, 1, 0, 1], -1, 2 / 3, "n_reps"),
        ([0, 1], 1, 2 / 3, "cannot split"),
        ([1, 1, 1, 1], 1, 2 / 3, "single class"),
    ],
)
def test_holdout_splits_errors(y, reps, frac, match):
    with pytest.raises(ValueError, match=match):
        holdout_splits(y, reps, np.random.default_rng(0), train_fraction=frac)


def test_splits_shared_by_learners_and_differ_between_kinds():
    y = np.arange(90) % 2
    first = holdout_splits(y, 2, exp.split_rng(0, "labor", "shared"))
    again = holdout_splits(y, 2, exp.split_rng(0, "labor", "shared"))
    va = holdout_splits(y, 2, exp.split_rng(0, "labor", "va"))
    other = holdout_splits(y, 2, exp.split_rng(0, "vote", "shared"))
    np.testing.assert_array_equal(first[0][0], again[0][0])
    assert not np.array_equal(first[0][0], va[0][0])
    assert not np.array_equal(first[0][0], other[0][0])


# ------------------------------------------------------------------------------ learners


@pytest.mark.parametrize("code", exp.CLASSIFIERS)
def test_learners_fit_and_score(code):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    model = exp.make_learner(code, X.shape[1], 0).fit(X, y)
    s = exp.learner_scores(model, X, code)
    assert s.shape == (60,)
    assert np.all(np.isfinite(s))
    if code != "SVM":
        assert np.all((s >= 0) & (s <= 1))


def test_unknown_learner_and_subsets():
    with pytest.raises(ValueError, match="unknown learner"):
        exp.make_learner("RF", 3, 0)
    with pytest.raises(ValueError, match="unknown data sets"):
        exp.run(datasets=("iris",))
    with pytest.raises(ValueError, match="unknown learners"):
        exp.run(learners=("RF",))
    with pytest.raises(ValueError, match="two positive counts"):
        exp.run(reps=(3,), data_dir=".")
    with pytest.raises(FileNotFoundError, match="data file not found"):
        exp.run(datasets=("labor",), data_dir=".")
    with pytest.raises(ValueError, match="kind"):
        exp.run_task("labor", "J", "other", np.zeros((6, 1)), np.array([0, 1] * 3), 1)


# ------------------------------------------------------------------------------ per split


def _synthetic(n=45, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.8 * rng.normal(size=n) > 0).astype(np.int64)
    return X, y


def _mle(y, p):
    with np.errstate(divide="ignore"):
        return float(np.mean(-np.log(np.where(y == 1, p, 1 - p))))


def _rmse(y, p):
    return float(np.sqrt(np.mean((y - p) ** 2)))


@pytest.mark.parametrize("code", ["LR", "SVM", "NB"])
def test_shared_task_follows_the_definitions(code):
    X, y = _synthetic()
    result = exp.run_task("echo", code, "shared", X, y, n_reps=3, seed=5)
    splits = holdout_splits(y, 3, exp.split_rng(5, "echo", "shared"))
    assert result.n_train == 30
    assert result.n_test == 15
    for rep, (train, test) in enumerate(splits):
        model = exp.make_learner(code, 3, 5 + rep).fit(X[train], y[train])
        s_tr, s_te = (
            exp.learner_scores(model, X[train], code),
            exp.learner_scores(model, X[test], code),
        )
        if code == "SVM":
            p_w = PlattCalibrator().fit(s_tr, y[train]).predict_proba(s_te)[:, 1]
        else:
            p_w = model.predict_proba(X[test])[:, 1]
        # SVA: isotonic calibration of the training scores plus (s(x), y) for y = 0, 1
        pair = VennAbersCalibrator().fit(s_tr, y[train]).predict_interval(s_te)
        p_dir = IsotonicCalibrator().fit(s_tr, y[train]).predict_proba(s_te)[:, 1]
        yt = y[test]
        expected = {
            "W": (_mle(yt, p_w), _rmse(yt, p_w)),
            "SVA": (
                _mle(yt, log_minimax(pair[:, 0], pair[:, 1])),
                _rmse(yt, brier_minimax(pair[:, 0], pair[:, 1])),
            ),
            "DIR": (_mle(yt, p_dir), _rmse(yt, p_dir)),
        }
        for m, (mle, rm) in expected.items():
            assert result.losses["log loss"][m][rep] == pytest.approx(mle, rel=1e-12, abs=0.0)
            assert result.losses["RMSE"][m][rep] == pytest.approx(rm, rel=1e-12, abs=0.0)


def test_va_task_is_the_full_venn_abers_predictor():
    X, y = _synthetic(n=24)
    result = exp.run_task("labor", "LR", "va", X, y, n_reps=2, seed=1, max_test_rows=5)
    assert set(result.losses["log loss"]) == {"VA"}
    assert result.n_test == 5
    rng = exp.split_rng(1, "labor", "va")
    splits = holdout_splits(y, 2, rng)
    for rep, (train, test) in enumerate(splits):
        test = np.sort(rng.choice(test, size=5, replace=False))
        va = FullVennAbersClassifier(exp.make_learner("LR", 3, 1 + rep))
        pair = va.fit(X[train], y[train]).predict_interval(X[test])
        assert np.all(pair[:, 0] <= pair[:, 1] + 1e-12)
        p = log_minimax(pair[:, 0], pair[:, 1])
        assert result.losses["log loss"]["VA"][rep] == pytest.approx(_mle(y[test], p))
        q = brier_minimax(pair[:, 0], pair[:, 1])
        assert result.losses["RMSE"]["VA"][rep] == pytest.approx(_rmse(y[test], q))
        # Venn-Abers never predicts 0 or 1 (Vovk & Petej 2014, Lemma 2): finite log loss
        assert math.isfinite(result.losses["log loss"]["VA"][rep])


# ------------------------------------------------------------------------------ analysis


def _table():
    inf = math.inf
    return {
        "A": {
            "d1": {"W": 0.5, "VA": 0.4, "SVA": 0.45, "DIR": inf},
            "d2": {"W": 0.3, "VA": 0.35, "SVA": 0.2, "DIR": inf},
        },
        "B": {
            "d1": {"W": 0.35, "VA": 0.6, "SVA": 0.5, "DIR": 0.7},
            "d2": {"W": 0.1, "VA": 0.3, "SVA": None, "DIR": inf},
        },
    }


def test_best_per_method_ranking_and_claims():
    table = _table()
    best = exp.best_per_method(table, "d1", ["A", "B"])
    assert best == {"W": (0.35, "B"), "VA": (0.4, "A"), "SVA": (0.45, "A"), "DIR": (0.7, "B")}
    assert [m for m, _, _ in exp.ranking(table, "d1", ["A", "B"])] == ["W", "VA", "SVA", "DIR"]
    # a missing cell (None) is skipped, not counted as a value
    assert exp.best_per_method(table, "d2", ["A", "B"])["SVA"] == (0.2, "A")
    assert exp.ranking(table, "d2", ["A", "B"])[0] == ("W", "B", 0.1)
    counts = exp.claims(table, ["d1", "d2"], ["A", "B"])
    assert counts["W best"] == 2
    assert counts["VA or SVA best"] == 0
    assert counts["VA beats W"] == 0
    assert counts["cells"] == 3  # B/d2 has a missing SVA
    assert counts["VA < W cells"] == 1  # A/d1
    assert counts["SVA < W cells"] == 2  # A/d1, A/d2
    assert counts["DIR infinite cells"] == 2


def test_paper_values_match_the_packaged_tables():
    paper = exp.paper_values()
    assert paper["log loss"]["LR"]["labor"] == {
        "W": 1.927,
        "VA": 0.687,
        "SVA": 0.297,
        "DIR": math.inf,
    }
    assert paper["RMSE"]["J"]["australian"]["VA"] == 0.346
    assert paper["log loss"]["NB"]["vote"]["W"] is None
    # the paper's own count (Table 3): VA or SVA best on 8 of 9 data sets for log loss
    claims = exp.PAPER_CLAIMS
    for loss, key in (("log loss", "log loss"), ("RMSE", "square loss")):
        firsts = [ranks[0][0] for ranks in paper_tables("001")["table3"][key].values()]
        for m in ("VA", "SVA", "W", "DIR"):
            assert firsts.count(m) == claims[loss][f"{m} best"]
        assert firsts.count("VA") + firsts.count("SVA") == claims[loss]["VA or SVA best"]


# ------------------------------------------------------------------------------ CLI


def test_cli_needs_a_data_dir(monkeypatch, capsys, tmp_path):
    monkeypatch.delenv("VENNCAL_DATA", raising=False)
    assert main(["reproduce", "vovk2014-uci", "--out", str(tmp_path)]) == 2
    assert "--data-dir" in capsys.readouterr().err


def test_cli_missing_files(capsys, tmp_path):
    args = ["reproduce", "vovk2014-uci", "--data-dir", str(tmp_path), "--out", str(tmp_path)]
    assert main(args) == 2
    assert "data file not found" in capsys.readouterr().err


# ------------------------------------------------------------------------------ runs


SUBSET = {
    "quick": True,
    "seed": 3,
    "datasets": ("labor", "echo"),
    "learners": ("J", "SVM"),
    "reps": (3, 1),
    "max_test_rows": 4,
}


@needs_data
def test_run_and_report_on_a_subset(tmp_path):
    result = exp.run(data_dir=DATA_DIR, **SUBSET)
    assert result.info.experiment == "vovk2014-uci"
    assert result.reps == (3, 1)
    assert list(result.sizes) == ["labor", "echo"]
    written = exp.report(result, tmp_path)
    report = written.markdown.read_text()
    assert "Table 1: mean log loss" in report
    assert "Table 3: ranking" in report
    assert "| echo |" in report
    assert "Statements (ours | paper)" in written.text
    assert written.figures == (tmp_path / "uci-vs-paper.png",)
    assert written.figures[0].stat().st_size > 0


@needs_data
@pytest.mark.slow
def test_run_is_independent_of_jobs(tmp_path):
    one = exp.run(data_dir=DATA_DIR, jobs=1, **SUBSET)
    two = exp.run(data_dir=DATA_DIR, jobs=2, **SUBSET)
    np.testing.assert_equal(one.table, two.table)
    np.testing.assert_equal(one.infinite, two.infinite)
    assert one.sizes == two.sizes


@needs_data
def test_run_returns_means_of_the_splits():
    result = exp.run(
        data_dir=DATA_DIR, datasets=("labor",), learners=("NB",), reps=(3, 1), max_test_rows=4
    )
    assert result.sizes["labor"] == (57, 38, 19)
    shared = next(t for t in result.tasks if t.kind == "shared")
    for loss in exp.LOSSES:
        for m in ("W", "SVA", "DIR"):
            values = shared.losses[loss][m]
            assert len(values) == 3
            assert result.table[loss]["NB"]["labor"][m] == pytest.approx(np.mean(values))
    assert result.infinite["NB"]["labor"]["SVA"] == 0
    assert result.infinite["NB"]["labor"]["VA"] == 0


@needs_data
@pytest.mark.slow
def test_quick_run_writes_every_table_and_figure(tmp_path, capsys):
    # The whole `--quick` run (its time: benchmarks/bench_reproduce.py, not a test).
    argv = ["reproduce", "vovk2014-uci", "--quick", "--data-dir", str(DATA_DIR)]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    for section in ("Table 1: mean log loss", "Table 2: mean RMSE", "Table 3: ranking",
                    "The paper's statements", "Learners, infinite log losses"):
        assert section in report
    n_shared, n_va = exp.REPS[True]
    assert f"- splits: {n_shared} per data set" in report
    assert f"{n_va} other splits for VA (paper: 100 and 16)" in report
    assert f"VA: at most {exp.QUICK_VA_TEST_ROWS} test rows per split" in report
    for d in exp.DATASETS:
        assert f"| {d} |" in report
    assert (tmp_path / "uci-vs-paper.png").stat().st_size > 0
    assert "Mean log loss (ours / paper)" in capsys.readouterr().out
