"""Tests of Naeini & Cooper 2016 (ENIR) reproductions: simulated data (Table I) and UCI (III-VI)."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from venncal.cli import main
from venncal.datasets import paper_tables
from venncal.experiments import EXPERIMENTS
from venncal.experiments import naeini2016_simulated as sim

# ------------------------------------------------------------------------------ paper tables


def test_paper004_tables_complete():
    t = paper_tables("004")
    for kernel in sim.KERNELS:
        for m in ("SVM", *sim.CALIBRATORS):
            assert set(t["table1"][kernel][m]) == set(sim.MEASURES)
    for base in ("LR", "SVM", "NB"):
        for meas in sim.MEASURES:
            # average ranks of three methods sum to 6
            assert math.isclose(
                sum(t["ranks"][base][m][meas] for m in sim.CALIBRATORS), 6, abs_tol=2e-3
            )
            lo, hi = t["table6"][base][meas]
            assert lo <= hi


# ------------------------------------------------------------------------------ simulated


def test_circular_data_properties():
    X, y = sim.circular_data(50_000, np.random.default_rng(3))
    assert X.shape == (50_000, 2)
    assert set(np.unique(y)) == {0, 1}
    assert abs(y.mean() - sim.POSITIVE_FRACTION) < 0.01
    r2 = (X**2).sum(axis=1)
    # positives strictly inside, negatives outside the same circle: no label noise
    assert r2[y == 1].max() < r2[y == 0].min()
    assert abs(X.mean()) < 0.02
    assert abs(X.std() - 1) < 0.02
    X2, _y2 = sim.circular_data(10, np.random.default_rng(3))
    np.testing.assert_array_equal(X2, sim.circular_data(10, np.random.default_rng(3))[0])
    with pytest.raises(ValueError, match="positive_fraction"):
        sim.circular_data(10, np.random.default_rng(0), positive_fraction=1.0)


def test_circular_data_is_not_linearly_rankable():
    # a linear score ranks no better than chance; the radius ranks perfectly
    from venncal.metrics import roc_auc

    X, y = sim.circular_data(20_000, np.random.default_rng(0))
    assert abs(roc_auc(y, 1 / (1 + np.exp(-X[:, 0]))) - 0.5) < 0.02
    assert roc_auc(y, np.exp(-(X**2).sum(axis=1))) == 1.0


def test_measures_match_metrics():
    y = np.array([0, 0, 1, 1, 1, 0])
    p = np.array([0.1, 0.6, 0.7, 0.9, 0.4, 0.2])
    got = sim.measures(y, p)
    assert list(got) == [*sim.MEASURES, *sim.QUANTILE_MEASURES]
    assert got["ACC"] == pytest.approx(4 / 6)
    assert got["RMSE"] == pytest.approx(np.sqrt(np.mean((y - p) ** 2)))
    assert got["AUC"] == pytest.approx(8 / 9)
    assert 0 <= got["ECE"] <= got["MCE"] <= 1


def test_simulated_run_and_report_smoke(tmp_path):
    res = sim.run(n_folds=2, n_train=150, n_test=150, kernels=("quadratic",), seed=1)
    assert res.n_folds == 2
    assert set(res.folds["quadratic"]) == {"SVM", *sim.CALIBRATORS}
    for m in res.folds["quadratic"].values():
        for meas in sim.MEASURES:
            assert len(m[meas]) == 2
            assert all(0 <= v <= 1 for v in m[meas])
    # the quadratic kernel discriminates the circle well
    assert res.mean("quadratic", "SVM", "AUC") > 0.95
    again = sim.run(n_folds=2, n_train=150, n_test=150, kernels=("quadratic",), seed=1, jobs=2)
    assert again.folds == res.folds
    rep = sim.report(res, tmp_path)
    text = rep.markdown.read_text()
    assert "Assumed data" in text
    assert "(1.00)" in text
    assert "quadratic kernel" in rep.text


def test_simulated_errors():
    with pytest.raises(ValueError, match="unknown kernels"):
        sim.run(kernels=("rbf",))
    with pytest.raises(ValueError, match="n_folds"):
        sim.run(n_folds=0)


def test_registered():
    assert EXPERIMENTS["naeini2016-simulated"].module == "naeini2016_simulated"


@pytest.mark.slow
def test_simulated_full_reproduces_table1_shape(tmp_path):
    res = sim.run(seed=0, jobs=2)
    # linear SVM: no ranking; the non-monotone calibrators recover much of it, IsoReg little
    assert res.mean("linear", "SVM", "AUC") < 0.6
    assert res.mean("linear", "ENIR", "AUC") > res.mean("linear", "IsoReg", "AUC") + 0.1
    assert res.mean("linear", "ENIR", "RMSE") < res.mean("linear", "IsoReg", "RMSE")
    assert res.mean("quadratic", "ENIR", "AUC") > 0.99
    assert main(["reproduce", "naeini2016-simulated", "--quick", "--out", str(tmp_path)]) == 0


# ------------------------------------------------------------------------------ UCI: statistics

from pathlib import Path

from venncal.experiments import naeini2016_uci as uci

_DATA = Path(
    os.environ.get("VENNCAL_DATA") or Path(__file__).resolve().parents[2] / "shared" / "datasets"
)
needs_data = pytest.mark.skipif(
    not (_DATA / "liver-disorders").is_dir() or not (_DATA / "breast-cancer-wisconsin").is_dir(),
    reason=f"UCI data sets not found under {_DATA} (set VENNCAL_DATA)",
)


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        # sorted 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop
        ([0.01, 0.04, 0.03, 0.005], [True, False, False, True]),
        # 0.001 <= 0.05/3, 0.02 <= 0.05/2, 0.024 <= 0.05/1: all rejected
        ([0.024, 0.001, 0.02], [True, True, True]),
        # the smallest already fails: nothing rejected, though 0.04 < 0.05
        ([0.04, 0.03], [False, False]),
        ([], []),
    ],
)
def test_holm_hand_examples(p, expected):
    assert uci.holm(p, alpha=0.05) == expected


def test_average_ranks_ties_and_direction():
    v = np.array([[0.9, 0.8, 0.8], [0.7, 0.9, 0.8]])
    # higher is better: rows rank [1, 2.5, 2.5] and [3, 1, 2]
    np.testing.assert_allclose(uci.average_ranks(v, higher_is_better=True), [2, 1.75, 2.25])
    # lower is better: [3, 1.5, 1.5] and [1, 3, 2]
    np.testing.assert_allclose(uci.average_ranks(v, higher_is_better=False), [2, 2.25, 1.75])


def test_friedman_holm_hand_example():
    # ENIR (column 2) best on all 6 rows, IsoReg second, BBQ third (lower is better)
    v = np.tile([2.0, 3.0, 1.0], (6, 1))
    ranks, f_p, post = uci.friedman_holm(v, higher_is_better=False, control=2)
    np.testing.assert_allclose(ranks, [2, 3, 1])
    # chi2 = 12 N / (k (k + 1)) * (sum R^2 - k (k + 1)^2 / 4) = 6 * (14 - 12) = 12, 2 df
    assert f_p == pytest.approx(math.exp(-6))
    se = math.sqrt(3 * 4 / (6 * 6))
    z_iso, p_iso, rej_iso = post[0]
    z_bbq, p_bbq, rej_bbq = post[1]
    assert z_iso == pytest.approx(1 / se)
    assert z_bbq == pytest.approx(2 / se)
    assert p_iso == pytest.approx(0.08326451666, rel=1e-8, abs=0.0)
    assert p_bbq == pytest.approx(0.00053200550, rel=1e-6, abs=0.0)
    # Holm: 0.00053 <= 0.025 rejected; 0.083 > 0.05 retained
    assert (rej_iso, rej_bbq) == (False, True)


def test_friedman_holm_no_posthoc_without_friedman_rejection():
    v = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [2.0, 1.0, 3.0]])
    _, f_p, post = uci.friedman_holm(v, higher_is_better=False, control=2)
    assert f_p > 0.05
    assert not any(r for _, _, r in post.values())


def test_gain_interval():
    enir, base = np.array([0.9, 0.8, 0.7]), np.array([1.0, 1.0, 1.0])
    mean, lo, hi = uci.gain_interval(enir, base)
    assert mean == pytest.approx(-0.2)
    half = 4.302652729911275 * 0.1 / math.sqrt(3)  # t_{0.975, 2} * sd / sqrt(n)
    assert (lo, hi) == pytest.approx((-0.2 - half, -0.2 + half))
    assert math.isnan(uci.gain_interval(np.array([1.0]), np.array([2.0]))[1])


def test_make_base_and_errors():
    assert set(uci.BASES) == {"LR", "SVM", "NB"}
    with pytest.raises(ValueError, match="unknown base"):
        uci.make_base("RF")
    with pytest.raises(ValueError, match="unknown data sets"):
        uci.run(datasets=("iris",))
    with pytest.raises(ValueError, match="plan"):
        uci.run(plan=(1, 1), data_dir=".")
    assert EXPERIMENTS["naeini2016-uci"].module == "naeini2016_uci"


def test_run_task_synthetic():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)
    out = uci.run_task("liver", "SVM", 0, X, y, n_folds=3)
    assert set(out) == {"base", *sim.CALIBRATORS}
    for by_measure in out.values():
        assert all(len(v) == 3 for v in by_measure.values())
    again = uci.run_task("liver", "SVM", 0, X, y, n_folds=3)
    assert again == out


@needs_data
def test_uci_run_and_report_smoke(tmp_path):
    res = uci.run(datasets=("breast", "liver"), bases=("LR",), plan=(1, 3), data_dir=_DATA)
    assert res.table["LR"]["liver"]["ENIR"]["AUC"] > 0.5
    rep = uci.report(res, tmp_path)
    text = rep.markdown.read_text()
    assert "Table VI" in text
    assert "Friedman p" in text
    assert "LR: average ranks" in rep.text


@pytest.mark.slow
@needs_data
def test_uci_quick_end_to_end(tmp_path):
    argv = ["reproduce", "naeini2016-uci", "--quick", "--jobs", "2"]
    assert main([*argv, "--data-dir", str(_DATA), "--out", str(tmp_path)]) == 0
    assert (tmp_path / "report.md").is_file()
