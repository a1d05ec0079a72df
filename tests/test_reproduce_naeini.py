"""Tests of the paper 004 (ENIR) reproductions: simulated data (Table I) and UCI (III-VI)."""

from __future__ import annotations

import math

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
