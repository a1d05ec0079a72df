"""``venncal fit`` and ``predict`` with ``--engine dask``: the local engine's results, file by file.

The commands run on the session's LocalCluster (conftest.py) of two worker processes
(``--scheduler``); one test starts the command's own local cluster.  Every
error case is one row of ``ERRORS``.  Skipped outside CI when the ``dask``
extra is missing.
"""

from __future__ import annotations

import csv
import os
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

REASON = 'the dask extra is not installed (pip install "venncal[dask]")'
if not os.environ.get("CI"):
    pytest.importorskip("dask.dataframe", reason=REASON)
    pytest.importorskip("distributed", reason=REASON)

from venncal import persist
from venncal.cli import main

N = 600
HEADER = ["id", "score", "label", "fold", "w", "note"]
pytestmark = [
    # dask's Parquet code still passes inplace= to pandas 3.1, which deprecates it.
    pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame"),
]


@pytest.fixture(scope="module")
def scheduler(dask_cluster):
    return dask_cluster.scheduler_address


def _rows(seed=0):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=N).round(3)  # ties, spread over the files
    y = np.where(rng.random(N) < 1 / (1 + np.exp(-2 * s)), "yes", "no")
    folds, w = rng.integers(0, 4, N), rng.integers(0, 4, N)
    notes = ["" if i % 7 == 0 else f"n,{i}" if i % 11 == 0 else f"n{i}" for i in range(N)]
    return [[i, repr(float(s[i])), y[i], folds[i], w[i], notes[i]] for i in range(N)]


def _write(path, rows, header=HEADER, sep=","):
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, delimiter=sep, lineterminator="\n")
        out.writerow(header)
        out.writerows(rows)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """cal.csv, the same rows in three CSV files (parts/) and in three Parquet files (pq/)."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    d = tmp_path_factory.mktemp("engine")
    rows = _rows()
    _write(d / "cal.csv", rows)
    (d / "parts").mkdir()
    (d / "pq").mkdir()
    for k, (a, b) in enumerate([(0, 250), (250, 251), (251, N)]):
        _write(d / "parts" / f"p{k}.csv", rows[a:b])
        pq.write_table(pcsv.read_csv(d / "parts" / f"p{k}.csv"), d / "pq" / f"p{k}.parquet")
    (d / "parts" / "_SUCCESS").write_text("")  # skipped, as Spark and dask write it
    (d / "mixed").mkdir()
    _write(d / "mixed" / "a.csv", rows[:5])
    (d / "mixed" / "b.parquet").write_bytes((d / "pq" / "p0.parquet").read_bytes())
    (d / "other").mkdir()
    _write(d / "other" / "a.csv", rows[:5])
    _write(d / "other" / "b.csv", [r[:2] for r in rows[5:9]], header=HEADER[:2])
    (d / "bad").mkdir()
    _write(d / "bad" / "a.csv", rows[:5])
    _write(d / "bad" / "b.csv", [rows[5], [6, "abc", "no", 0, 1, ""]])
    (d / "unknown").mkdir()
    (d / "unknown" / "a.txt").write_text("score\n1\n")
    (d / "nested").mkdir()
    (d / "nested" / "sub").mkdir()
    _write(d / "nested" / "sub" / "a.csv", rows[:5])
    (d / "nans").mkdir()
    _write(d / "nans" / "a.csv", [[1, "0.5", "no", 0, 1, ""], [2, "", "yes", 0, 1, ""]])
    _write(d / "nans" / "b.csv", [[3, "NA", "no", 0, 1, ""], [4, "-1.25", "yes", 0, 1, ""]])
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(d)
        assert main(shlex.split(FIT + " -o m.json --quiet")) == 0
    return d


@pytest.fixture
def data(files, tmp_path, monkeypatch):
    import shutil

    shutil.copytree(files, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


FIT = "fit cal.csv --score-col score --label-col label --method ivap"


def run(capsys, command, *, code=0):
    got = main(shlex.split(command))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert got == code, err
    return out, err


def dask(command, scheduler):
    return f"{command} --engine dask --scheduler {scheduler}"


# ------------------------------------------------------------------------------------- fit


@pytest.mark.parametrize(
    "options",
    [
        "--method ivap",
        "--method isotonic --weight-col w",
        "--method cvap --fold-col fold --merge brier --weight-col w",
        "--method ivap --positive-label no --decreasing",
        "--method platt",
        "--method histogram --param n_bins=5",
    ],
)
@pytest.mark.parametrize("source", ["parts", "'parts/*.csv'", "pq", "'pq/p*.parquet'"])
def test_fit_model_file_equals_the_local_engines(options, source, data, scheduler, capsys):
    common = f"--score-col score --label-col label {options}"
    run(capsys, f"fit cal.csv {common} -o local.json")
    _, err = run(capsys, dask(f"fit {source} {common} -o dask.json", scheduler))
    assert f"on {N:,} rows of {source.strip(chr(39))}" in err
    assert Path("dask.json").read_bytes() == Path("local.json").read_bytes()  # bit for bit


@pytest.mark.parametrize(
    "options",
    ["--method bbq", "--method enir --weight-col w", "--method quantized-isotonic --param levels=7"],
)
def test_fit_other_methods_equal_the_local_engines(options, data, scheduler, capsys):
    """The calibrators of papers 003 and 004 (and BBQ) fit by summary under dask too."""
    common = f"--score-col score --label-col label {options}"
    run(capsys, f"fit cal.csv {common} -o local.json")
    run(capsys, dask(f"fit pq {common} -o dask.json", scheduler))
    assert Path("dask.json").read_bytes() == Path("local.json").read_bytes()  # bit for bit
    run(capsys, dask("predict dask.json parts --score-col score -o 'scored/part-*.csv'", scheduler))
    run(capsys, "predict local.json cal.csv --score-col score -o local.csv")
    parts = [f"scored/part-{k}.csv" for k in range(3)]
    assert _csv_rows(parts) == _csv_rows(["local.csv"])


@pytest.mark.parametrize(
    ("positive", "negative", "classes"),
    [
        ("yes", "no", ["no", "yes"]),
        ("1", "-1", [-1, 1]),
        ("01", "00", [0, 1]),
        ("True", "False", [False, True]),
        ("1.0", "0.0", [0.0, 1.0]),
        ("2020-01-02", "2020-01-01", ["2020-01-01", "2020-01-02"]),  # dates stay text
        # past int64: exact, not two labels rounded to one float
        ("12345678901234567891", "12345678901234567890",
         [12345678901234567890, 12345678901234567891]),
        ("123456789012345678901234567891", "123456789012345678901234567890",
         ["123456789012345678901234567890", "123456789012345678901234567891"]),
    ],
)
def test_fit_reads_labels_as_the_local_engine(positive, negative, classes, tmp_path, scheduler,
                                              capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(3)
    s = rng.random(200)
    rows = [[f"{a!r}", positive if u < a else negative]
            for a, u in zip(s.tolist(), rng.random(200).tolist(), strict=True)]
    _write(tmp_path / "labels.csv", rows, header=["score", "label"])
    common = "--score-col score --label-col label --method ivap"
    run(capsys, f"fit labels.csv {common} -o local.json")
    run(capsys, dask(f"fit labels.csv {common} -o dask.json", scheduler))
    assert Path("dask.json").read_bytes() == Path("local.json").read_bytes()
    assert persist.load("local.json").classes_.tolist() == classes


def test_fit_reads_parquet_date_labels_as_the_local_engine(tmp_path, scheduler, capsys,
                                                          monkeypatch):
    import datetime

    import pyarrow as pa
    import pyarrow.parquet as pq

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(4)
    s = rng.random(120)
    days = [datetime.date(2020, 1, 1 + int(u < a)) for a, u in zip(s, rng.random(120), strict=True)]
    pq.write_table(pa.table({"score": s, "label": pa.array(days, pa.date32())}), "d.parquet")
    common = "--score-col score --label-col label --method ivap"
    run(capsys, f"fit d.parquet {common} -o local.json")
    run(capsys, dask(f"fit d.parquet {common} -o dask.json", scheduler))
    assert Path("dask.json").read_bytes() == Path("local.json").read_bytes()
    assert persist.load("dask.json").classes_.tolist() == ["2020-01-01", "2020-01-02"]


def test_fit_warns_below_chance_as_the_local_engine(data, scheduler, capsys):
    command = "fit cal.csv --score-col score --label-col label --method ivap --positive-label no"
    _, local = run(capsys, command + " -o a.json --quiet")
    _, remote = run(capsys, dask(command.replace("cal.csv", "parts") + " -o b.json", scheduler)
                    + " --quiet")
    assert local.startswith("warning: the score ranks the positive class 'no' below chance")
    assert remote == local


def test_fit_round_scores(data, scheduler, capsys):
    run(capsys, dask("fit parts --score-col score --label-col label --method isotonic "
                     "--round-scores 1 -o r.json", scheduler))
    model = persist.load("r.json")
    assert np.all(np.round(model.thresholds_, 1) == model.thresholds_)


def test_own_local_cluster(data, capsys):
    run(capsys, "fit parts --score-col score --label-col label --method ivap -o d.json "
        "--engine dask --workers 1 --quiet")
    assert Path("d.json").read_bytes() == Path("m.json").read_bytes()


@pytest.mark.slow  # starts a cluster of worker processes (~25 s)
def test_own_local_cluster_prints_only_the_error(tmp_path, monkeypatch, capfd):
    """A bad cell on the CLI's own cluster: the workers printed a 'Compute Failed' block (key,
    task, traceback) to stderr before venncal's one-line error (attack 24 F5)."""
    monkeypatch.chdir(tmp_path)
    Path("bad.csv").write_text("s,y\n" + "".join(f"0.{i % 9 + 1},{i % 2}\n" for i in range(40))
                               + "nan,1\n")
    got = main(shlex.split("fit bad.csv --score-col s --label-col y --method platt -o x.json "
                           "--engine dask --workers 1"))
    err = capfd.readouterr().err
    assert got == 2
    assert err.startswith("venncal fit: error: ") and "bad.csv: column 's', row 41 " in err, err
    assert "Compute Failed" not in err and "Traceback" not in err


# --------------------------------------------------------------------------------- predict


def _csv_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="", encoding="utf-8") as f:
            header, *body = list(csv.reader(f))
        rows += body
    return header, rows


@pytest.mark.parametrize("model", ["m.json", "cvap.json"])
def test_predict_csv_equals_the_local_engines(model, data, scheduler, capsys):
    run(capsys, "fit cal.csv --score-col score --label-col label --method cvap --fold-col fold "
        "-o cvap.json --quiet")
    run(capsys, f"predict {model} cal.csv --score-col score -o local.csv")
    _, err = run(capsys, dask(f"predict {model} parts --score-col score -o 'out/part-*.csv'",
                              scheduler))
    assert f"wrote {N:,} rows to out/part-*.csv" in err
    assert sorted(os.listdir("out")) == ["part-0.csv", "part-1.csv", "part-2.csv"]
    # the cells of the input pass through as text, the probabilities as the same doubles
    assert _csv_rows([f"out/part-{k}.csv" for k in range(3)]) == _csv_rows(["local.csv"])
    assert not [f for f in os.listdir() if ".part." in f]  # no temporary directory left


@pytest.mark.parametrize("source", ["parts", "pq"])
def test_predict_parquet_directory(source, data, scheduler, capsys):
    import pyarrow.parquet as pq

    run(capsys, "predict m.json cal.csv --score-col score -o local.parquet")
    run(capsys, dask(f"predict m.json {source} --score-col score -o out/", scheduler))
    assert sorted(os.listdir("out")) == ["part-0.parquet", "part-1.parquet", "part-2.parquet"]
    got, want = pq.read_table("out").to_pandas(), pq.read_table("local.parquet").to_pandas()
    for name in ("score", "p", "p0", "p1"):
        assert got[name].to_numpy().tobytes() == want[name].to_numpy().tobytes()
    assert got["label"].tolist() == want["label"].tolist()


def test_predict_nan_scores_propagate(data, scheduler, capsys):
    import pandas as pd

    run(capsys, dask("predict m.json nans --score-col score -o 'o/x-*.tsv' --nan-scores "
                     "propagate", scheduler))
    a = pd.concat(pd.read_csv(f"o/x-{k}.tsv", sep="\t", keep_default_na=False) for k in (0, 1))
    assert a.score.tolist() == ["0.5", "", "NA", "-1.25"]
    assert [bool(v == "") for v in a.p.tolist()] == [False, True, True, False]
    model = persist.load("m.json")
    assert float(a.p.iloc[3]) == model.predict_proba([-1.25])[0, 1]


def test_force_replaces_a_directory(data, scheduler, capsys):
    os.mkdir("out")
    Path("out/old.txt").write_text("old")
    command = dask("predict m.json parts --score-col score -o out/", scheduler)
    run(capsys, command, code=2)
    run(capsys, command + " --force")
    assert sorted(os.listdir("out")) == ["part-0.parquet", "part-1.parquet", "part-2.parquet"]


# ---------------------------------------------------------------------------------- errors

ERRORS = [
    # inputs
    ("fit 'none/*.csv' {fit}", r"none/\*\.csv: no file matches the pattern"),
    ("fit nope {fit}", "nope: no such file or directory"),
    ("fit - {fit}", r"not stdin \(-\); use --engine local"),
    ("fit mixed {fit}", r"mixed: mixes Parquet and CSV files"),
    ("fit unknown {fit}", r"a\.txt: unknown table format; --engine dask goes by the file name"),
    ("fit nested {fit}", r"holds the folder 'sub'"),
    ("fit other {fit}", r"other/b\.csv: no column 'label' \(given by --label-col\)"),
    ("fit parts {fit} --weight-col weight", r"no column 'weight' \(given by --weight-col\)"),
    ("fit bad {fit}", r"bad/b\.csv: column 'score', row 2 \(partition 1\): cannot parse 'abc'"),
    ("fit parts {fit} --max-distinct 10", r"more than --max-distinct 10 distinct .*--round-scores"),
    ("fit parts --score-col score --label-col note --method ivap -o x.json",
     r"parts: y contains \d+ null or NaN label"),
    ("predict m.json nans --score-col score -o 'o/*.csv'",
     r"nans/[ab]\.csv: column 'score', row [12] \(partition [01]\): .*number is needed \(--nan"),
    # outputs, checked before any work
    ("predict m.json parts --score-col score -o -", r"-o -: with --engine dask, -o names a new"),
    ("predict m.json parts --score-col score -o out.csv", r"-o out\.csv: with --engine dask"),
    ("predict m.json parts --score-col score -o 'o/*.xlsx'", "unknown table format"),
    ("predict m.json parts --score-col score -o parts/", r"holds the input DATA .*--force"),
    ("predict m.json parts --score-col score -o cal.csv/", r"cal\.csv is a file"),
    ("predict m.json parts --score-col score -o no/dir/", r"the folder .* does not exist"),
    ("predict m.json parts --score-col s9 -o o/", r"no column 's9' \(given by --score-col\)"),
    ("fit parts {fit} -o parts/p0.csv", r"a model is written as \.json"),
    # options
    ("fit cal.csv {fit} --engine local --round-scores 2", "--round-scores is an option of --engine"),
    ("fit parts {fit} --workers 2", "--workers sizes the local cluster"),
]


@pytest.mark.parametrize(("command", "match"), ERRORS)
def test_errors(command, match, data, scheduler, capsys):
    command = command.format(fit="--score-col score --label-col label --method ivap -o x.json")
    if "--engine" not in command:
        command = dask(command, scheduler)
    before = sorted(os.listdir())
    _, err = run(capsys, command, code=2)
    assert re.search(match, err), err
    assert len(err.strip().splitlines()) == 1, err
    assert sorted(os.listdir()) == before  # nothing written, no temporary file left


@pytest.mark.parametrize("command", [
    "fit big --score-col score --label-col label --method ivap -o x.json",
    "predict m.json big --score-col score -o o/",
])
def test_bad_cell_is_located_at_its_row_of_the_file(command, data, scheduler, capsys):
    """A file split into partitions (--blocksize) still names the row of the file, as locally."""
    rows = _rows()
    bad = 3 * len(rows) // 4
    rows[bad - 1][1] = "abc"  # data row `bad` (1-based)
    os.mkdir("big")
    _write(Path("big") / "a.csv", rows[:10])
    _write(Path("big") / "b.csv", rows)
    _, local = run(capsys, command.replace("big ", "big/b.csv ").replace("-o o/", "-o o.csv"),
                   code=2)
    _, err = run(capsys, dask(command, scheduler) + " --blocksize 2KB", code=2)
    where = rf"big/b\.csv: column 'score', row {bad} \(partition (\d+)\): cannot parse 'abc'"
    assert re.search(where, err), err
    assert int(re.search(r"partition (\d+)", err).group(1)) > 2  # the file was split
    assert f"big/b.csv: column 'score', row {bad}: cannot parse 'abc'" in local


def test_bad_scheduler_address(data, capsys):
    _, err = run(capsys, "fit parts --score-col score --label-col label --method ivap -o x.json "
                 "--engine dask --scheduler tcp://127.0.0.1:1", code=2)
    assert "--scheduler tcp://127.0.0.1:1: cannot connect" in err


@pytest.mark.parametrize("address", ["synchronous", "tcp://localhost", "inproc://x"])
def test_a_scheduler_address_without_a_port_is_refused_before_a_client(data, capsys, address):
    """A half-made Client printed a TimeoutError traceback at exit, 10 s after the error
    (attack 22 F5)."""
    _, err = run(capsys, "fit parts --score-col score --label-col label --method ivap -o x.json "
                 f"--engine dask --scheduler {address}", code=2)
    why = ("the scheme inproc:// is not tcp:// or tls://" if address.startswith("inproc")
           else f"missing port number in address '{address.removeprefix('tcp://')}'")
    assert err.strip() == (f"venncal fit: error: --scheduler {address}: not the address of a "
                           f"Dask scheduler ({why}); give one such as tcp://host:8786")


def test_predict_quiet_prints_nothing_with_a_large_model(data, scheduler, capsys):
    """The model goes to the workers once, not into every task: no 'large graph' warning."""
    from venncal import ScoreSummary, VennAbersCalibrator

    k = 300_000  # about 12 MB of state, past distributed's 10 MB warning
    summary = ScoreSummary(np.linspace(-4, 4, k), np.ones(k), np.arange(k) % 2.0)
    persist.save(VennAbersCalibrator().fit_summary(summary), "big.json")
    out, err = run(capsys, dask("predict big.json parts --score-col score -o 'o/p-*.csv' -q",
                                scheduler))
    assert (out, err) == ("", "")
    assert sorted(os.listdir("o")) == ["p-0.csv", "p-1.csv", "p-2.csv"]
