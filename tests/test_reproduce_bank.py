"""Tests of the ``vovk2021-bank`` experiment (Vovk, Petej & Gammerman 2021, section 5)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from venncal.cli import main
from venncal.datasets import paper_tables
from venncal.experiments import EXPERIMENTS
from venncal.experiments import vovk2021_bank as exp

_DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "datasets"
DATA_DIR = Path(os.environ.get("VENNCAL_DATA") or _DEFAULT_DIR)
needs_data = pytest.mark.skipif(
    not (DATA_DIR / "bank-marketing" / "bank-full.csv.gz").is_file(),
    reason=f"bank-marketing/bank-full.csv.gz not found under {DATA_DIR} (set VENNCAL_DATA)",
)


def test_registered_and_paper_numbers():
    assert EXPERIMENTS["vovk2021-bank"].module == "vovk2021_bank"
    bank = paper_tables("002")["bank"]
    assert (bank["base_log10_loss"], bank["jumper_log10_loss"]) == (5684.1, 4764.8)
    assert bank["base_log10_loss"] - bank["jumper_log10_loss"] == pytest.approx(919.3)


@pytest.mark.parametrize("encoding", exp.ENCODINGS)
def test_encode_shapes_and_labels(encoding):
    cols = ["age", "job", "duration", "y"]
    rows = [["30", "z", "1", "no"], ["40", "a", "2", "yes"], ["50", "m", "3", "no"]]
    X, y = exp.encode(cols, rows, encoding)
    assert y.tolist() == [1, 2, 1]
    assert X.shape == (3, 5 if encoding == "one-hot" else 3)
    assert exp.encode(cols, rows, encoding, duration=False)[0].shape[1] == X.shape[1] - 1
    if encoding == "ordinal-appearance":
        assert X[:, 1].tolist() == [0, 1, 2]
    elif encoding == "ordinal-sorted":
        assert X[:, 1].tolist() == [2, 0, 1]


def test_encode_rejects_unknown_encoding():
    with pytest.raises(ValueError, match="unknown encoding"):
        exp.encode(["a", "y"], [["1", "no"]], "binary")


def test_needs_a_data_dir(monkeypatch, capsys, tmp_path):
    monkeypatch.delenv("VENNCAL_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match="VENNCAL_DATA"):
        exp.run()
    assert main(["reproduce", "vovk2021-bank", "--data-dir", str(tmp_path)]) == 2
    assert "bank-full.csv.gz" in capsys.readouterr().err


@needs_data
def test_run_on_a_prefix_and_report(tmp_path):
    result = exp.run(data_dir=DATA_DIR, max_test_rows=2000, sensitivity=False)
    assert result.y.shape == result.base_proba.shape == (2000,)
    assert result.base_proba.min() >= 0.1
    assert result.base_proba.max() <= 0.9
    assert set(result.jumpers) == {0.01, 0.1, 0.001}
    for r in [*result.jumpers.values(), result.mean, *result.families]:
        # the defining identity: log10 S_N = L_base - L_protected (decimal log losses)
        assert r.log10_martingale[-1] == pytest.approx(result.base_loss - r.loss, rel=1e-9, abs=0.0)
        assert r.protected_proba.shape == (2000,)
    written = exp.report(result, tmp_path)
    md = written.markdown.read_text()
    assert "| base decimal log loss | 5684.1 |" in md
    assert "Mean Jumper" in md
    assert "Cox (5)" in md
    assert {f.name for f in written.figures} <= {f"bank-figure{i}.png" for i in (2, 3, 4)}


@needs_data
@pytest.mark.slow
def test_full_run_matches_the_paper(tmp_path):
    result = exp.run(data_dir=DATA_DIR, quick=True)
    paper = paper_tables("002")["bank"]
    main_run = result.jumpers[0.01]
    assert len(result.y) == paper["n_test"]
    assert round(result.base_loss, 1) == paper["base_log10_loss"]
    assert round(main_run.loss, 1) == paper["jumper_log10_loss"]
    assert round(float(main_run.log10_martingale[-1]), 1) == paper["final_log10_martingale"]
    assert len(result.sensitivity) == 8
    assert np.isfinite([row[3:] for row in result.sensitivity]).all()
    assert exp.report(result, tmp_path).markdown.is_file()
