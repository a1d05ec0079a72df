"""Tests of the ``quantized-drift`` demonstration (Gokcesu & Gokcesu 2022: sliding windows under drift)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from venncal.baselines import QuantizedIsotonicCalibrator
from venncal.cli import main
from venncal.experiments import EXPERIMENTS
from venncal.experiments import quantized_drift as exp
from venncal.experiments._prequential import (
    prequential_sklearn,
    prequential_window,
    rolling_mean,
)

_DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "datasets"
DATA_DIR = Path(os.environ.get("VENNCAL_DATA") or _DEFAULT_DIR)
needs_data = pytest.mark.skipif(
    not (DATA_DIR / "bank-marketing" / "bank-full.csv.gz").is_file(),
    reason=f"bank-marketing/bank-full.csv.gz not found under {DATA_DIR} (set VENNCAL_DATA)",
)

#: A small synthetic run: 1,200 samples, W = 200, N = 50.
SMALL = {"streams": ("synthetic",), "n_synthetic": 1200, "window": 200, "every": 50}


@pytest.fixture(scope="module")
def small():
    return exp.run(seed=3, **SMALL)


def test_registered():
    entry = EXPERIMENTS["quantized-drift"]
    assert entry.module == "quantized_drift"
    assert exp.NAME == "quantized-drift"
    assert "Gokcesu & Gokcesu 2022" in entry.summary


def test_synthetic_stream_changes_its_map_halfway():
    s, y, truth = exp.synthetic_stream(20_000, seed=0)
    assert s.shape == y.shape == truth.shape == (20_000,)
    np.testing.assert_array_equal(truth[:10_000], s[:10_000])
    np.testing.assert_allclose(truth[10_000:], s[10_000:] ** 3)
    assert set(np.unique(y)) == {0, 1}
    # the labels follow the truth: positive rate 1/2, then 1/4
    assert abs(y[:10_000].mean() - 0.5) < 0.02
    assert abs(y[10_000:].mean() - 0.25) < 0.02
    again = exp.synthetic_stream(20_000, seed=0)
    for a, b in zip((s, y, truth), again, strict=True):
        np.testing.assert_array_equal(a, b)


def test_window_equals_batch_fits_of_the_last_w_samples():
    # The window's forecast of every sample is the batch fit of the W samples before it.
    s, y, _ = exp.synthetic_stream(700, seed=5)
    s = np.round(s, 2)  # ties
    w = 150
    run = prequential_window(s, y, exp.LEVELS, w, checks=range(w, 700, 37))
    assert run.checks
    assert all(eq for _, eq in run.checks)
    for t in (w, 151, 349, 350, 351, 699):
        batch = QuantizedIsotonicCalibrator(levels=exp.LEVELS).fit(s[t - w : t], y[t - w : t])
        assert run.proba[t - w] == batch.predict_proba([s[t]])[0, 1]
    assert run.n_updates == 700 - w
    assert (run.update_seconds >= 0).all()


def test_sklearn_refits_every_n_on_the_window_or_everything():
    from sklearn.isotonic import IsotonicRegression

    s, y, _ = exp.synthetic_stream(500, seed=2)
    grid = np.linspace(0, 1, 11)
    win = prequential_sklearn(s, y, 100, 60, 100, grid=grid, snapshots=[100, 499])
    full = prequential_sklearn(s, y, 100, 60, None)
    assert win.n_updates == full.n_updates == 7  # t = 100, 160, ..., 460
    for t in (100, 159, 160, 460, 499):
        start = 100 + (t - 100) // 60 * 60
        for run, lo in ((win, start - 100), (full, 0)):
            iso = IsotonicRegression(out_of_bounds="clip").fit(s[lo:start], y[lo:start])
            assert run.proba[t - 100] == iso.predict([s[t]])[0]
    assert set(win.snapshots) == {100, 499}
    assert win.snapshots[100].shape == (11,)


def test_rolling_mean():
    x = np.arange(10.0)
    np.testing.assert_allclose(rolling_mean(x, 3), [1, 2, 3, 4, 5, 6, 7, 8])
    np.testing.assert_allclose(rolling_mean(x, 1), x)


def test_run_small(small):
    assert small.info.experiment == "quantized-drift"
    assert small.skipped == {}
    assert len(small.streams) == 1
    (sr,) = small.streams
    assert (sr.window, sr.every, sr.drift) == (200, 50, 400)
    assert sr.y.shape == sr.scores.shape == sr.truth.shape == (1000,)
    assert set(sr.runs) == set(exp.METHODS)
    for m in exp.METHODS:
        p = sr.proba(m)
        assert p.shape == (1000,)
        assert ((p >= 0) & (p <= 1)).all()
        assert set(sr.runs[m].snapshots) == {t + 200 for t in sr.snapshot_at.values()}
    np.testing.assert_array_equal(sr.proba("uncalibrated"), sr.scores)
    assert sr.runs["venncal window"].n_updates == 1000
    assert sr.runs["sklearn window"].n_updates == 20
    # exact at every checkpoint, one of them half a window after the drift
    assert len(sr.checks) >= exp.N_CHECKS
    assert all(eq for _, eq in sr.checks)
    assert 200 + 400 + 100 in [t for t, _ in sr.checks]
    # the levels are the K = 100 evenly spaced ones, each the double nearest k / (K - 1)
    levels = np.arange(exp.LEVELS) / (exp.LEVELS - 1)
    assert np.isin(sr.proba("venncal window"), levels).all()


def test_windows_beat_no_forgetting_after_the_drift(small):
    # squared error against the true probabilities after the drift (factor 2-3 for seeds 0-7)
    (sr,) = small.streams
    after = slice(sr.drift, None)
    err = {m: float(((sr.proba(m) - sr.truth)[after] ** 2).mean()) for m in exp.METHODS}
    assert err["venncal window"] < err["sklearn all"] < err["uncalibrated"]
    assert err["sklearn window"] < err["sklearn all"]


def test_report_and_figure(small, tmp_path):
    written = exp.report(small, tmp_path / "out", command="venncal reproduce quantized-drift")
    md = written.markdown.read_text(encoding="utf-8")
    assert written.markdown == tmp_path / "out" / "report.md"
    assert written.figures == (tmp_path / "out" / "drift-synthetic.png",)
    assert written.figures[0].read_bytes().startswith(b"\x89PNG")
    assert "![synthetic: loss over time and the maps](drift-synthetic.png)" in md
    assert "- command: `venncal reproduce quantized-drift`" in md
    assert "**equal, bit for bit**" in md
    assert "load average" in md
    for m in exp.METHODS:
        assert f"| {m} |" in md
        assert f"| {m} |" in written.text
    assert "| true probabilities |" in md
    assert "Brier, after the drift" in written.text


def test_report_states_an_inexact_window(small):
    sr = small.streams[0]
    assert "**equal, bit for bit**" in exp._check_line(sr)
    checks = sr.runs["venncal window"].checks
    checks.append((999, False))
    try:
        assert "**NOT EQUAL**" in exp._check_line(sr)
    finally:
        checks.pop()


def test_bank_is_skipped_without_a_data_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("VENNCAL_DATA", raising=False)
    result = exp.run(streams=("bank",))
    assert result.streams == []
    assert "--data-dir" in result.skipped["Bank"]
    md = exp.report(result, tmp_path).markdown.read_text(encoding="utf-8")
    assert "## Bank stream" in md
    assert "Not run" in md
    # a data folder without the file is an error (exit status 2 from the command line)
    with pytest.raises(FileNotFoundError):
        exp.run(streams=("bank",), data_dir=tmp_path)


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown streams"):
        exp.run(streams=("adult",))
    with pytest.raises(ValueError, match="n // 2 > W"):
        exp.run(streams=("synthetic",), n_synthetic=1000, window=500)


def test_cli_missing_bank_file_is_a_usage_error(capsys, tmp_path):
    assert main(["reproduce", "quantized-drift", "--data-dir", str(tmp_path)]) == 2
    assert "bank-full.csv.gz" in capsys.readouterr().err


@needs_data
def test_bank_prefix(tmp_path):
    result = exp.run(data_dir=DATA_DIR, streams=("bank",), max_test_rows=1500, window=300,
                     every=100)
    (sr,) = result.streams
    assert sr.name == "Bank"
    assert sr.truth is None
    assert sr.drift is None
    assert sr.y.shape == (1200,)
    assert set(np.unique(sr.y)) <= {0, 1}
    assert all(eq for _, eq in sr.checks)
    written = exp.report(result, tmp_path)
    assert written.figures == (tmp_path / "drift-bank.png",)
    assert "first half" in written.markdown.read_text(encoding="utf-8")


@needs_data
@pytest.mark.slow
def test_quick_mode(tmp_path):
    result = exp.run(quick=True, data_dir=DATA_DIR)
    assert [sr.name for sr in result.streams] == ["synthetic", "Bank"]
    assert result.streams[1].y.shape == (exp.QUICK_BANK_ROWS - exp.BANK_SIZES[0],)
    for sr in result.streams:
        assert all(eq for _, eq in sr.checks)
    assert len(exp.report(result, tmp_path).figures) == 2
