"""Tests of the ``vovk2015-adult-ratios`` experiment: split logic and a --quick run."""

from __future__ import annotations

import math

import numpy as np
import pytest

from venncal.cli import main
from venncal.experiments import RATIOS, ratio_rows
from venncal.experiments import vovk2015_adult_ratios as exp


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


def test_default_params_are_in_the_grid():
    for learner in exp.LEARNERS:
        assert exp.DEFAULT_PARAMS[learner] in exp.grid(learner)


def test_reproduce_adult_ratios_quick_end_to_end(tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["reproduce", "vovk2015-adult-ratios", "--quick", "--out", str(out), "--seed", "1"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    report = (out / "report.md").read_text(encoding="utf-8")
    for learner in exp.QUICK_LEARNERS:
        png = out / f"ratios-{learner.replace(' ', '-')}.png"
        assert png.exists()
        assert png.stat().st_size > 1000
        assert png.name in report
        assert f"**{learner}**" in report
    assert "| method | 1:9 | 1:1 | 9:1 | all |" in report
    assert "report written" in printed
    # IVAP and CVAP losses are finite in every column of every table
    rows = [line for line in report.splitlines() if line.startswith(("| IVAP |", "| CVAP |"))]
    assert len(rows) == 2 * 2 * len(exp.QUICK_LEARNERS)
    for line in rows:
        values = [float(c) for c in line.split("|")[2:-1]]
        assert len(values) == 4
        assert all(math.isfinite(v) for v in values), line


def test_run_quick_results():
    out = exp.run(quick=True, max_test_rows=500, learners=("logistic",))
    assert out["n_test"] == 500
    assert out["n_train"] == exp.QUICK_TRAIN_ROWS
    (r,) = out["results"]
    assert r.columns == ["1:9", "1:1", "9:1", "all"]
    cvap = r.losses["Brier loss"]["CVAP"]
    assert len(set(cvap)) == 1
    assert 0 < cvap[0] < 1
    assert np.all(np.isfinite(r.losses["log loss"]["IVAP"]))
