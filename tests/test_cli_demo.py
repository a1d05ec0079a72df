"""Tests for the shipped Adult data, its loader and the ``venncal`` command line."""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import venncal
from venncal.cli import build_parser, main
from venncal.datasets import load_adult
from venncal.experiments import demo


def _shared_datasets() -> Path:
    """The shared data store: $VENNCAL_DATA, else ``shared/datasets`` beside the repository."""
    if os.environ.get("VENNCAL_DATA"):
        return Path(os.environ["VENNCAL_DATA"])
    return Path(__file__).resolve().parents[2] / "shared" / "datasets"


SHARED_DATASETS = _shared_datasets()

N_TRAIN, POS_TRAIN = 32_561, 7_841
N_TEST, POS_TEST = 16_281, 3_846
N_FEATURES = 105  # 6 continuous + 99 one-hot columns

SHA256 = {
    "adult.data.gz": "c7a2b4716a97f930123e0baf879188d701e798172631a654fc703d4b082907f3",
    "adult.test.gz": "8a2c1bffa6e7ce5abfa43881ae5e87c4311ebc2b3cd526c9c40a43f19f06f799",
}


@pytest.fixture(scope="module")
def train():
    return load_adult("train")


@pytest.fixture(scope="module")
def test():
    return load_adult("test")


# ------------------------------------------------------------------------------ data files


@pytest.mark.parametrize("name", sorted(SHA256))
def test_packaged_files_checksums(name):
    data = resources.files("venncal.datasets").joinpath("data", name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == SHA256[name]


def test_packaged_readme_names_source_and_licence():
    text = resources.files("venncal.datasets").joinpath("data", "README.md").read_text("utf-8")
    assert "Becker" in text
    assert "Kohavi" in text
    assert "CC BY 4.0" in text
    for digest in SHA256.values():
        assert digest in text


# ----------------------------------------------------------------------------------- loader


def test_train_shape_and_positives(train):
    X, y, names = train
    assert X.shape == (N_TRAIN, N_FEATURES)
    assert X.dtype == np.float64
    assert y.shape == (N_TRAIN,)
    assert y.dtype.kind == "i"
    assert set(np.unique(y)) == {0, 1}
    assert int(y.sum()) == POS_TRAIN
    assert len(names) == N_FEATURES
    assert len(set(names)) == N_FEATURES


def test_test_shape_and_positives(test):
    X, y, _ = test
    assert X.shape == (N_TEST, N_FEATURES)
    assert int(y.sum()) == POS_TEST
    assert set(np.unique(y)) == {0, 1}


def test_train_and_test_encodings_agree(train, test):
    assert train[0].shape[1] == test[0].shape[1]
    assert train[2] == test[2]


def test_all_is_train_then_test(train, test):
    X, y, names = load_adult("all")
    assert X.shape == (N_TRAIN + N_TEST, N_FEATURES)
    assert int(y.sum()) == POS_TRAIN + POS_TEST
    np.testing.assert_array_equal(X[:N_TRAIN], train[0])
    np.testing.assert_array_equal(X[N_TRAIN:], test[0])
    np.testing.assert_array_equal(y, np.concatenate([train[1], test[1]]))
    assert names == train[2]


def test_deterministic(train):
    X, y, names = load_adult("train")
    np.testing.assert_array_equal(X, train[0])
    np.testing.assert_array_equal(y, train[1])
    assert names == train[2]


def test_first_rows_in_file_order(train, test):
    X, y, names = train
    col = {name: j for j, name in enumerate(names)}
    # adult.data line 1: 39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical,
    # Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K
    row = X[0]
    assert row[col["age"]] == 39
    assert row[col["fnlwgt"]] == 77516
    assert row[col["education-num"]] == 13
    assert row[col["capital-gain"]] == 2174
    assert row[col["capital-loss"]] == 0
    assert row[col["hours-per-week"]] == 40
    for one in (
        "workclass=State-gov",
        "education=Bachelors",
        "occupation=Adm-clerical",
        "native-country=United-States",
        "sex=Male",
    ):
        assert row[col[one]] == 1.0
    assert y[0] == 0
    # adult.test data line 1 (after '|1x3 Cross validator'): 25, Private, 226802, 11th, ...
    # <=50K.; data line 3: 28, Local-gov, 336951, ..., >50K.
    assert test[0][0, col["age"]] == 25
    assert test[0][0, col["fnlwgt"]] == 226802
    assert test[1][0] == 0
    assert test[0][2, col["age"]] == 28
    assert test[1][2] == 1


def test_one_hot_blocks_sum_to_one(train, test):
    names = train[2]
    prefixes = sorted({n.split("=", 1)[0] for n in names if "=" in n})
    assert len(prefixes) == 8
    for X in (train[0], test[0]):
        for prefix in prefixes:
            cols = [j for j, n in enumerate(names) if n.startswith(prefix + "=")]
            np.testing.assert_array_equal(X[:, cols].sum(axis=1), 1.0)
    assert not any(n.endswith("=?") for n in names)


def test_missing_values_replaced_by_train_mode(train):
    X, _, names = train
    col = {name: j for j, name in enumerate(names)}
    # adult.data line 28: 54, ?, 180211, Some-college, 10, Married-civ-spouse, ?, Husband,
    # Asian-Pac-Islander, Male, 0, 0, 60, South, >50K
    row = X[27]
    assert row[col["age"]] == 54
    assert row[col["workclass=Private"]] == 1.0
    assert row[col["occupation=Prof-specialty"]] == 1.0


def test_invalid_split():
    with pytest.raises(ValueError, match="split"):
        load_adult("validation")


def test_data_dir_shared_store(train, test):
    if not (SHARED_DATASETS / "adult").is_dir():
        pytest.skip(f"{SHARED_DATASETS / 'adult'} is not available")
    for split, expected in (("train", train), ("test", test)):
        X, y, names = load_adult(split, data_dir=SHARED_DATASETS)
        np.testing.assert_array_equal(X, expected[0])
        np.testing.assert_array_equal(y, expected[1])
        assert names == expected[2]


def test_data_dir_uncompressed_files(tmp_path, test):
    folder = tmp_path / "adult"
    folder.mkdir()
    for name in ("adult.data", "adult.test"):
        data = resources.files("venncal.datasets").joinpath("data", name + ".gz").read_bytes()
        (folder / name).write_bytes(gzip.decompress(data))
    X, y, _ = load_adult("test", data_dir=tmp_path)
    np.testing.assert_array_equal(X, test[0])
    np.testing.assert_array_equal(y, test[1])


def test_data_dir_missing_test_file(tmp_path):
    folder = tmp_path / "adult"
    folder.mkdir()
    src = resources.files("venncal.datasets").joinpath("data", "adult.data.gz")
    with src.open("rb") as fsrc, open(folder / "adult.data.gz", "wb") as fdst:
        shutil.copyfileobj(fsrc, fdst)
    X, _, _ = load_adult("train", data_dir=tmp_path)  # the test file is not needed
    assert X.shape == (N_TRAIN, N_FEATURES)
    with pytest.raises(FileNotFoundError, match=r"adult\.test\.gz"):
        load_adult("test", data_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match=r"adult\.test\.gz"):
        load_adult("all", data_dir=str(tmp_path))


def test_data_dir_missing_train_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"adult\.data\.gz"):
        load_adult("train", data_dir=tmp_path)


def test_malformed_file_raises(tmp_path):
    folder = tmp_path / "adult"
    folder.mkdir()
    (folder / "adult.data").write_text("39, State-gov, 77516, <=50K\n")
    with pytest.raises(ValueError, match="expected 15"):
        load_adult("train", data_dir=tmp_path)


# -------------------------------------------------------------------------------------- cli


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"venncal {venncal.__version__}"


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().err


def test_unknown_option_is_usage_error(capsys):
    assert main(["demo", "--no-such-option"]) == 2
    assert "unrecognized arguments" in capsys.readouterr().err


@pytest.mark.parametrize("module", ["venncal", "venncal.cli"])
def test_module_entry_point_version(module):
    result = subprocess.run(
        [sys.executable, "-m", module, "--version"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"venncal {venncal.__version__}"


def _check_demo_output(out: str, n_train: int, n_test: int, seed: int) -> None:
    assert "Adult" in out
    assert f"train: {n_train:,} rows" in out
    assert f"test:  {n_test:,} rows" in out
    assert re.search(rf"^  seed: +{seed}$", out, flags=re.MULTILINE)
    assert "elapsed:" in out
    for title in ("Logistic regression", "Gaussian naive Bayes", "Random forest"):
        assert title in out
    assert out.count("log loss") >= 3
    lines = out.splitlines()
    for label in ("raw", "Platt", "isotonic", "IVAP", "CVAP (5 folds)"):
        rows = [line for line in lines if line.startswith(f"  {label} ")]
        assert len(rows) == 3, label
        for line in rows:
            values = line.strip()[len(label) :].split()
            assert len(values) == 6  # log loss, Brier, ECE, AUC, accuracy, width
            log_loss, brier, ece, auc, acc = (float(v) for v in values[:5])  # "inf" parses
            assert log_loss > 0
            assert 0 <= brier <= 1
            assert 0 <= ece <= 1
            assert 0.5 < auc <= 1
            assert 0.5 < acc <= 1
            if label in ("IVAP", "CVAP (5 folds)"):
                # Venn-Abers probabilities are never exactly 0 or 1: finite log loss.
                assert np.isfinite(log_loss)
                assert np.isfinite(float(values[5]))
            else:
                assert values[5] == "-"


@pytest.fixture(scope="module")
def small_demo():
    # One fast run through the real data, shared by the report and command tests.
    return demo.run(seed=3, max_train_rows=800, max_test_rows=500)


def test_demo_run_and_report_smoke(small_demo, tmp_path):
    pytest.importorskip("matplotlib")
    assert (small_demo.n_train, small_demo.n_test) == (800, 500)
    assert small_demo.subsampled
    png = tmp_path / "reliability.png"
    written = demo.report(small_demo, plot=png)
    _check_demo_output(written.text, 800, 500, seed=3)
    assert written.figures == (png,)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"reliability diagrams: {png}" in written.text
    assert written.markdown is None


def test_demo_command_prints_the_report(small_demo, monkeypatch, capsys):
    # The command only parses, runs and prints: hand it the small run.
    def small_run(**kwargs):
        assert kwargs == {"seed": 3, "quick": True}
        return small_demo

    monkeypatch.setattr(demo, "run", small_run)
    assert main(["demo", "--quick", "--seed", "3", "--no-plot"]) == 0
    captured = capsys.readouterr()
    _check_demo_output(captured.out, 800, 500, seed=3)
    assert "reliability diagrams" not in captured.out
    assert captured.err == ""


def test_quick_sizes_agree_with_the_help():
    from venncal.cli import _demo as cli_demo  # the parser's copy of the quick sizes

    assert cli_demo.QUICK_ROWS == demo.QUICK_TRAIN_ROWS == demo.QUICK_TEST_ROWS


@pytest.mark.slow
def test_demo_quick(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "reliability.png"
    assert main(["demo", "--quick", "--plot", str(png)]) == 0
    captured = capsys.readouterr()
    _check_demo_output(captured.out, 5_000, 5_000, seed=0)
    assert captured.err == ""
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"reliability diagrams: {png}" in captured.out


def test_demo_options_are_parsed():
    args = build_parser().parse_args(["demo", "--seed", "3", "--quick"])
    assert args.command == "demo"
    assert args.seed == 3
    assert args.quick is True
    args = build_parser().parse_args(["demo"])
    assert args.seed == 0
    assert args.quick is False
    assert args.plot == "venncal-demo-reliability.png"
    assert build_parser().parse_args(["demo", "--no-plot"]).plot is None


@pytest.mark.slow
def test_demo_full(capsys):
    assert main(["demo", "--no-plot"]) == 0
    _check_demo_output(capsys.readouterr().out, N_TRAIN, N_TEST, seed=0)
