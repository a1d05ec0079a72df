"""Tests of ``venncal reproduce`` and the split logic of the reproduced experiments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from venncal.cli import main
from venncal.experiments import adult_small_rows, contiguous_folds
from venncal.experiments import vovk2015_adult_small as exp


def test_adult_small_rows():
    rows = adult_small_rows()
    assert rows.proper == range(4000)
    assert rows.calibration == range(4000, 5000)
    assert rows.training == range(5000)
    # the rest of the training file (32,561 rows) followed by the whole test file
    assert rows.test == range(5000, 32_561 + 16_281)
    assert len(rows.test) == 32_561 - 5000 + 16_281
    custom = adult_small_rows(6000, 10)
    assert custom.test == range(5000, 6010)
    with pytest.raises(ValueError, match="5,000 training rows"):
        adult_small_rows(4999, 10)


@pytest.mark.parametrize("n", [1, 5, 7, 10, 4999, 5000, 5003])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 10])
def test_contiguous_folds(n, k):
    if n < k:
        with pytest.raises(ValueError, match="non-empty folds"):
            contiguous_folds(n, k)
        return
    folds = contiguous_folds(n, k)
    assert len(folds) == k
    np.testing.assert_array_equal(np.concatenate(folds), np.arange(n))  # once each, in order
    sizes = [len(f) for f in folds]
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)  # ceil-sized folds first, as in the paper
    for f in folds:
        np.testing.assert_array_equal(np.diff(f), 1)  # contiguous


def test_contiguous_folds_of_the_paper():
    assert [len(f) for f in contiguous_folds(5000, 5)] == [1000] * 5
    assert [f[0] for f in contiguous_folds(5000, 5)] == [0, 1000, 2000, 3000, 4000]
    with pytest.raises(ValueError, match="at least 1"):
        contiguous_folds(5, 0)


def test_paper_tables():
    assert set(exp.PAPER_TABLES) == set(exp.LOSSES)
    for loss in exp.LOSSES:
        assert tuple(exp.PAPER_TABLES[loss]) == exp.LEARNERS
        for row in exp.PAPER_TABLES[loss].values():
            assert len(row) == len(exp.METHODS)
    log, brier = exp.PAPER_TABLES["log loss"], exp.PAPER_TABLES["Brier loss"]
    assert all(math.isinf(row[1]) for row in log.values())  # IR: infinite log loss
    assert log["J48"] == (0.5226, math.inf, 0.5117, 0.5102)
    assert log["SVM"] == (0.5221, math.inf, 0.5015, 0.4997)
    assert brier["J48 bagging"] == (0.4225, 0.4153, 0.4123, 0.3990)
    assert brier["neural networks"] == (0.4525, 0.4574, 0.4440, 0.4234)
    # the paper's headline: CVAP best in every row of both tables
    for table in (log, brier):
        for row in table.values():
            assert row[3] == min(row)


def test_grids():
    for learner in exp.LEARNERS:
        full, quick = exp.grid(learner), exp.grid(learner, quick=True)
        assert 1 <= len(quick) <= len(full)
        assert all(len(setting) in (1, 2) for setting in full)


def test_unavailable_experiments(capsys):
    assert main(["reproduce", "no-such-experiment"]) == 2
    assert "unknown experiment" in capsys.readouterr().err


def test_help_lists_the_experiments(capsys):
    assert main(["reproduce", "--help"]) == 0
    out = capsys.readouterr().out
    for name in ("vovk2015-adult-small", "vovk2015-adult-ratios", "vovk2014-uci"):
        assert name in out
    assert "not yet available" not in out


def test_reproduce_adult_small_quick_end_to_end(tmp_path, capsys):
    out = tmp_path / "out"
    argv = [
        "reproduce",
        "vovk2015-adult-small",
        "--quick",
        "--out",
        str(out),
        "--max-test-rows",
        "2000",
        "--seed",
        "1",
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    report = (out / "report.md").read_text(encoding="utf-8")
    assert (out / "adult-small-vs-paper.png").read_bytes().startswith(b"\x89PNG")
    assert "![ours against the paper's](adult-small-vs-paper.png)" in report
    for learner in exp.LEARNERS:
        assert f"| {learner} |" in report
        assert learner in printed
    for method in exp.METHODS:
        assert f"{method} ours" in report
        assert method in printed
    assert "scikit-learn" in report
    assert "command" in report
    assert "2,000 of 43,842" in report
    # IVAP and CVAP log losses are finite in every row (ours, then the paper's, per method)
    rows = [line for line in report.splitlines() if line.startswith("| ")]
    log_rows = rows[: len(exp.LEARNERS) + 1][1:]
    for line in log_rows:
        cells = [c.strip().strip("*").replace(" ⚠", "").strip("*") for c in line.split("|")[1:-1]]
        ivap_ours, cvap_ours = cells[5], cells[7]
        assert math.isfinite(float(ivap_ours)), line
        assert math.isfinite(float(cvap_ours)), line


def test_run_returns_finite_venn_abers_losses():
    out = exp.run(quick=True, max_test_rows=500, learners=("logistic", "naive Bayes"))
    assert out["n_test"] == 500
    for r in out["results"]:
        for loss in exp.LOSSES:
            for method in ("Platt", "IVAP", "CVAP"):
                assert math.isfinite(r.losses[loss][method])
            assert 0 < r.losses["Brier loss"]["CVAP"] < 1
