"""Tests of the ``vovk2015-adult-ratios`` experiment: split logic, runs and report."""

from __future__ import annotations

import math

import numpy as np
import pytest

from venncal import VennAbersCalibrator, merge_folds
from venncal.experiments import RATIOS, contiguous_folds, ratio_rows
from venncal.experiments import vovk2015_adult_ratios as exp
from venncal.metrics import brier_loss


def test_ratios_are_the_papers_columns():
    labels = [f"{a}:{b}" for a, b in RATIOS]
    assert labels[0] == "1:9"
    assert labels[-1] == "9:1"
    assert "1:1" in labels
    assert len(labels) == 17
    assert len(set(labels)) == 17
    assert exp.COLUMNS[-1] == "all"


@pytest.mark.parametrize("n", [2, 10, 5000, 32_561])
@pytest.mark.parametrize("ratio", RATIOS)
def test_ratio_rows_contiguous_and_sum(n, ratio):
    split = ratio_rows(n, ratio)
    assert split.label == f"{ratio[0]}:{ratio[1]}"
    assert len(split.proper) + len(split.calibration) == n
    assert split.proper.start == 0
    assert split.proper.step == 1
    assert split.calibration.start == split.proper.stop
    assert split.calibration.stop == n
    assert len(split.proper) >= 1
    assert len(split.calibration) >= 1
    if n >= 100:  # the proportions of the ratio (ceil for the proper training set)
        a, b = ratio
        assert len(split.proper) == math.ceil(a * n / (a + b))


def test_ratio_rows_paper_examples():
    assert len(ratio_rows(32_561, (4, 1)).proper) == math.ceil(4 / 5 * 32_561)
    assert len(ratio_rows(32_561, (9, 1)).proper) == math.ceil(9 / 10 * 32_561)
    assert len(ratio_rows(10_000, (1, 9)).proper) == 1_000


def test_ratio_rows_all_uses_every_row_for_both():
    split = ratio_rows(1234, "all")
    assert split.label == "all"
    assert split.proper == range(1234)
    assert split.calibration == range(1234)


def test_ratio_rows_rejects_bad_input():
    with pytest.raises(ValueError, match="positive"):
        ratio_rows(10, (0, 1))
    with pytest.raises(ValueError, match="at least 2"):
        ratio_rows(1, (1, 1))


# ----------------------------------------------------------------- CVAP folds per column


@pytest.mark.parametrize("n", [10, 37, 32_561])
@pytest.mark.parametrize("ratio", RATIOS)
def test_cvap_splits_fold_rule(n, ratio):
    a, b = ratio
    splits = exp.cvap_splits(n, ratio)
    folds = contiguous_folds(n, a + b)
    assert len(splits) == a + b  # K = a + b
    for (proper, cal), fold in zip(splits, folds, strict=True):
        assert np.array_equal(np.sort(np.concatenate([proper, cal])), np.arange(n))
        # a:1: each fold in turn is the calibration set; 1:b: the proper training set
        assert np.array_equal(cal if b == 1 else proper, fold)
    sizes = [len(f) for f in folds]
    assert sizes == sorted(sizes, reverse=True)  # ceil first, then floor
    assert max(sizes) - min(sizes) <= 1


def test_cvap_splits_paper_examples():
    n = 32_561
    one_nine = exp.cvap_splits(n, (1, 9))  # 10 folds, each in turn the proper training set
    assert len(one_nine) == 10
    assert [len(p) for p, _ in one_nine] == [3257] + [3256] * 9
    assert all(len(p) + len(c) == n for p, c in one_nine)
    four_one = exp.cvap_splits(n, (4, 1))  # "the standard choice of 5 folds"
    assert [len(c) for _, c in four_one] == [6513] + [6512] * 4
    assert len(exp.cvap_splits(n, (9, 1))) == 10  # "10-fold cross-validation"
    (p0, c0), (p1, c1) = exp.cvap_splits(n, (1, 1))
    assert np.array_equal(p0, c1)
    assert np.array_equal(p1, c0)


@pytest.mark.parametrize("n", [10, 37, 4_000, 32_561])
@pytest.mark.parametrize("ratio", RATIOS)
def test_column_split_is_one_of_the_cvap_splits(n, ratio):
    split = ratio_rows(n, ratio)
    splits = exp.cvap_splits(n, ratio)
    proper, cal = splits[-1] if ratio[1] == 1 else splits[0]
    assert np.array_equal(proper, np.asarray(split.proper))
    assert np.array_equal(cal, np.asarray(split.calibration))


def test_cvap_splits_all_and_bad_ratios():
    assert exp.cvap_splits(100, "all") == []
    with pytest.raises(ValueError, match="a:1 and 1:b"):
        exp.cvap_splits(100, (2, 3))
    with pytest.raises(ValueError, match="positive"):
        exp.cvap_splits(100, (0, 1))
    with pytest.raises(ValueError, match="non-empty folds"):
        exp.cvap_splits(5, (1, 9))


# ------------------------------------------------------------ per-column parameter choice


def _logistic(C):
    # The "logistic" learner rebuilt from public scikit-learn (an independent oracle).
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=C))


def _synthetic(n=700, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 30))  # 27 noise features: strong ridge pays on small sets
    logit = X[:, :3] @ np.array([1.5, -1.0, 0.5]) + 0.3 * X[:, 0] ** 2
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    return X, y


@pytest.mark.parametrize("column", [(1, 3), (1, 1), (3, 1), "all"])
def test_run_column_selects_by_brier_loss(column):
    X, y = _synthetic()
    n_train, test = 500, np.arange(500, 700)
    out = exp.run_column("logistic", column, X, y, n_train, test, seed=0, quick=True)
    settings = exp.grid("logistic", quick=True)
    assert out.params in settings

    def loss(C, proper, cal):
        p = _logistic(C).fit(X[proper], y[proper]).predict_proba(X[cal])[:, 1]
        return np.sum(4 * (y[cal] - p) ** 2)

    split = ratio_rows(n_train, column)
    own = [loss(s["C"], np.asarray(split.proper), np.asarray(split.calibration)) for s in settings]
    assert out.params == settings[int(np.argmin(own))]
    raw = _logistic(out.params["C"]).fit(X[np.asarray(split.proper)], y[split.proper])
    expected_raw = brier_loss(y[test], raw.predict_proba(X[test])[:, 1], scale=4)
    assert out.losses["Brier loss"]["raw"] == pytest.approx(expected_raw)

    splits = exp.cvap_splits(n_train, column)
    if column == "all":
        assert out.folds == 0
        assert out.cvap_params is None
        assert math.isnan(out.losses["Brier loss"]["CVAP"])
        return
    assert out.folds == len(splits)
    cumulative = [sum(loss(s["C"], p, c) for p, c in splits) for s in settings]
    chosen = settings[int(np.argmin(cumulative))]
    assert out.cvap_params == chosen
    p0, p1 = np.empty((len(splits), len(test))), np.empty((len(splits), len(test)))
    for k, (proper, cal) in enumerate(splits):
        model = _logistic(chosen["C"]).fit(X[proper], y[proper])
        pair = (
            VennAbersCalibrator()
            .fit(model.predict_proba(X[cal])[:, 1], y[cal])
            .predict_interval(model.predict_proba(X[test])[:, 1])
        )
        p0[k], p1[k] = pair[:, 0], pair[:, 1]
    expected = brier_loss(y[test], merge_folds(p0, p1)[0], scale=4)
    assert out.losses["Brier loss"]["CVAP"] == pytest.approx(expected)


def test_run_column_choice_can_differ_between_columns():
    # the selection is per column: not one setting reused everywhere
    X, y = _synthetic()
    test = np.arange(500, 700)
    chosen = {
        str(column): exp.run_column("logistic", column, X, y, 500, test, 0, quick=True).params
        for column in [(1, 9), (1, 1), (9, 1), "all"]
    }
    assert len({s["C"] for s in chosen.values()}) > 1, chosen


# ------------------------------------------------------------------------------ end to end


@pytest.fixture(scope="module")
def small_run():
    # A fast run through the real data: one learner, four columns, 300 test rows.
    return exp.run(quick=True, seed=1, max_test_rows=300, learners=("naive Bayes",))


def test_run_records_params_per_column(small_run):
    assert small_run.n_test == 300
    assert small_run.n_train == exp.QUICK_TRAIN_ROWS
    assert small_run.info.experiment == "vovk2015-adult-ratios"
    (r,) = small_run.results
    assert r.columns == ["1:9", "1:1", "9:1", "all"]
    assert r.folds == [10, 2, 10, 0]
    settings = exp.grid("naive Bayes", quick=True)
    assert len(r.params["calibration set"]) == 4
    assert all(p in settings for p in r.params["calibration set"])
    assert all(p in settings for p in r.params["CVAP folds"][:3])
    assert r.params["CVAP folds"][3] is None
    cvap = r.losses["Brier loss"]["CVAP"]
    assert all(0 < v < 1 for v in cvap[:3])
    assert math.isnan(cvap[3])
    assert np.all(np.isfinite(r.losses["log loss"]["IVAP"]))


def _check_report(result, out):
    written = exp.report(result, out)
    report = written.markdown.read_text(encoding="utf-8")
    for r in result.results:
        png = out / f"ratios-{r.learner.replace(' ', '-')}.png"
        assert png in written.figures
        assert png.stat().st_size > 1000
        assert png.name in report
        assert f"**{r.learner}**" in report
        assert f"| {r.learner} | calibration set | " in report
        assert f"| {r.learner} | CVAP folds | " in report
        assert f"**{r.learner}**" in written.text
    assert "| method | 1:9 | 1:1 | 9:1 | all |" in report
    assert "### Chosen parameters" in report
    assert "| | CVAP folds K | 10 | 2 | 10 | - |" in report
    # IVAP losses are finite in every column, CVAP in every column but "all"
    rows = [line for line in report.splitlines() if line.startswith(("| IVAP |", "| CVAP |"))]
    assert len(rows) == 2 * 2 * len(result.results)
    for line in rows:
        values = [float(c) for c in line.split("|")[2:-1]]
        assert len(values) == 4
        finite = values if line.startswith("| IVAP |") else values[:3]
        assert all(math.isfinite(v) for v in finite), line
        if line.startswith("| CVAP |"):
            assert math.isnan(values[3]), line


def test_report_smoke(small_run, tmp_path):
    _check_report(small_run, tmp_path / "out")


@pytest.mark.slow
def test_quick_run_and_report(tmp_path):
    result = exp.run(quick=True, seed=1)
    assert [r.learner for r in result.results] == list(exp.QUICK_LEARNERS)
    _check_report(result, tmp_path / "out")


@pytest.mark.slow
def test_run_is_deterministic_and_independent_of_jobs():
    kwargs = {"quick": True, "max_test_rows": 300, "learners": ("naive Bayes", "logistic")}
    one, two = exp.run(jobs=1, **kwargs), exp.run(jobs=2, **kwargs)
    for a, b in zip(one.results, two.results, strict=True):
        assert a.params == b.params
        np.testing.assert_equal(a.losses, b.losses)
