"""End-to-end tests of ``venncal fit``, ``predict`` and ``evaluate`` (and docs/cli.md)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import pickle
import re
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

import venncal
from venncal import _registry, persist
from venncal.cli import main

DOCS = Path(__file__).resolve().parent.parent / "docs"
N_CAL, N_TEST, K = 400, 150, 4


def _available(method: str) -> bool:
    try:
        _registry.method_class(method)
    except ImportError:
        return False
    return True


def _require(method: str) -> None:
    if not _available(method):
        pytest.skip(f"method {method} is not available yet")


def write_csv(path: Path, header, rows, sep=","):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt", newline="", encoding="utf-8") as f:
        out = csv.writer(f, delimiter=sep, lineterminator="\n")
        out.writerow(header)
        out.writerows(rows)


def read_csv(path, sep=","):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter=sep))
    return rows[0], rows[1:]


def column(path, name, sep=","):
    header, rows = read_csv(path, sep)
    j = header.index(name)
    return [r[j] for r in rows]


@pytest.fixture(scope="module")
def arrays():
    rng = np.random.default_rng(1)
    s = rng.normal(size=N_CAL)
    y = np.where(rng.random(N_CAL) < 1 / (1 + np.exp(-2 * s)), "yes", "no")
    folds = rng.integers(0, K, N_CAL)
    w = rng.integers(1, 4, N_CAL).astype(float)
    t = rng.normal(size=N_TEST)
    yt = np.where(rng.random(N_TEST) < 1 / (1 + np.exp(-2 * t)), "yes", "no")
    tk = t[:, None] + rng.normal(scale=0.1, size=(N_TEST, K))
    return {"s": s, "y": y, "folds": folds, "w": w, "t": t, "yt": yt, "tk": tk}


@pytest.fixture
def data(tmp_path, arrays, monkeypatch):
    a = arrays
    write_csv(
        tmp_path / "cal.csv",
        ["score", "label", "fold", "w"],
        zip(map(repr, a["s"].tolist()), a["y"], a["folds"], a["w"], strict=True),
    )
    write_csv(
        tmp_path / "test.csv",
        ["id", "score", *(f"s{k}" for k in range(K)), "label"],
        (
            [i, repr(float(a["t"][i])), *map(repr, a["tk"][i].tolist()), a["yt"][i]]
            for i in range(N_TEST)
        ),
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def ok(capsys, *argv):
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert "Traceback" not in err
    return out, err


def fails(capsys, *argv, match):
    code, out, err = run(capsys, *argv)
    assert code == 2, (code, out, err)
    assert "Traceback" not in err
    assert re.search(match, err), err
    # one line (argparse also prints the usage before its own errors)
    assert len([line for line in err.splitlines() if "error:" in line]) == 1, err
    return err


# --------------------------------------------------------------------- fit -> predict -> eval


@pytest.mark.parametrize("method", ["ivap", "platt", "isotonic", "histogram", "bbq"])
def test_fit_predict_evaluate(method, data, arrays, capsys):
    _require(method)
    out, err = ok(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        method,
        "-o",
        "model.json",
    )
    assert out == ""
    assert "classes 'no' and 'yes': p is the probability of 'yes'" in err
    model = persist.load("model.json")
    expected = type(model)().fit(arrays["s"], arrays["y"])
    assert model.classes_.tolist() == ["no", "yes"]

    ok(capsys, "predict", "model.json", "test.csv", "--score-col", "score", "-o", "out.csv")
    header, rows = read_csv("out.csv")
    in_header, in_rows = read_csv("test.csv")
    va = hasattr(model, "predict_interval")
    assert header == in_header + (["p", "p0", "p1"] if va else ["p"])
    assert [r[: len(in_header)] for r in rows] == in_rows  # input columns unchanged
    p = np.array([float(v) for v in column("out.csv", "p")])
    # written with repr: the exact doubles
    assert p.tobytes() == expected.predict_proba(arrays["t"])[:, 1].tobytes()
    if va:
        pair = np.column_stack([[float(v) for v in column("out.csv", c)] for c in ("p0", "p1")])
        assert pair.tobytes() == expected.predict_interval(arrays["t"]).tobytes()

    args = ["evaluate", "out.csv", "--prob-col", "p", "--label-col", "label"]
    if va:
        args += ["--p0-col", "p0", "--p1-col", "p1"]
    out, err = ok(capsys, *args)
    assert "log_loss" in out
    assert "ece" in out
    assert ("interval_width" in out) == va
    assert f"{N_TEST:,} rows, positive class 'yes'" in err
    out, _ = ok(capsys, *args, "--json", "--bins", "5", "--strategy", "quantile")
    metrics = json.loads(out)
    assert set(metrics) >= {"log_loss", "brier", "ece", "auc", "accuracy"}
    from venncal.metrics import evaluate

    yt = arrays["yt"] == "yes"
    ref = evaluate(yt, p, n_bins=5, strategy="quantile", interval=pair if va else None)
    assert metrics == json.loads(ref.to_json())


def test_cvap_with_fold_column(data, arrays, capsys):
    _require("cvap")
    ok(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--fold-col",
        "fold",
        "--method",
        "cvap",
        "--merge",
        "brier",
        "-o",
        "cvap.json",
    )
    model = persist.load("cvap.json")
    assert model.merge == "brier"
    assert len(model.calibrators_) == K
    expected = type(model)(merge="brier").fit(arrays["s"], arrays["y"], folds=arrays["folds"])
    cols = ",".join(f"s{k}" for k in range(K))
    ok(capsys, "predict", "cvap.json", "test.csv", "--score-col", cols, "-o", "cvap-k.csv")
    p = np.array([float(v) for v in column("cvap-k.csv", "p")])
    assert p.tobytes() == expected.predict_proba(arrays["tk"])[:, 1].tobytes()
    p0 = np.array([float(v) for v in column("cvap-k.csv", "p0")])
    assert p0.tobytes() == expected.predict_interval(arrays["tk"])[:, 0].tobytes()
    # one score column serves every fold model
    ok(capsys, "predict", "cvap.json", "test.csv", "--score-col", "score", "-o", "cvap-1.csv")
    p = np.array([float(v) for v in column("cvap-1.csv", "p")])
    assert p.tobytes() == expected.predict_proba(arrays["t"])[:, 1].tobytes()
    out, _ = ok(
        capsys, "evaluate", "cvap-k.csv", "--prob-col", "p", "--label-col", "label", "--json"
    )
    assert 0 < json.loads(out)["brier"] < 0.25
    fails(
        capsys,
        "predict",
        "cvap.json",
        "test.csv",
        "--score-col",
        "s0,s1",
        "-o",
        "x.csv",
        match=f"cvap model with {K} folds: give 1 score column or {K}, not 2",
    )


def test_weights_and_integer_labels(data, arrays, capsys, tmp_path):
    y01 = (arrays["y"] == "yes").astype(int)
    write_csv(
        tmp_path / "int.csv",
        ["score", "y", "w"],
        zip(map(repr, arrays["s"].tolist()), np.where(y01 == 1, 10, 2), arrays["w"], strict=True),
    )
    _, err = ok(
        capsys,
        "fit",
        "int.csv",
        "--score-col",
        "score",
        "--label-col",
        "y",
        "--weight-col",
        "w",
        "--method",
        "ivap",
        "-o",
        "m.json",
    )
    # labels compare as numbers (2 < 10), not as text
    assert "classes 2 and 10: p is the probability of 10" in err
    model = persist.load("m.json")
    assert model.classes_.dtype.kind == "i"
    expected = venncal.VennAbersCalibrator().fit(arrays["s"], y01, sample_weight=arrays["w"])
    np.testing.assert_array_equal(model.p1_, expected.p1_)
    np.testing.assert_array_equal(model.weights_, expected.weights_)


def test_params(data, capsys):
    _require("histogram")
    ok(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "histogram",
        "--param",
        "n_bins=7",
        "--param",
        "strategy=uniform",
        "-o",
        "h.json",
    )
    model = persist.load("h.json")
    assert (model.n_bins, model.strategy) == (7, "uniform")
    ok(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "--param",
        "classes=no,yes",
        "-o",
        "i.json",
    )
    assert persist.load("i.json").classes == ["no", "yes"]


def test_stdin_stdout_sep_and_gzip(data, capsys, monkeypatch, tmp_path):
    text = (tmp_path / "cal.csv").read_text("utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO(text.replace(",", ";")))
    out, _ = ok(
        capsys,
        "fit",
        "-",
        "--sep",
        ";",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "-o",
        "-",
        "--quiet",
    )
    model = persist.load(io.StringIO(out))
    ok(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "-o",
        "m.json.gz",
    )
    assert Path("m.json.gz").read_bytes()[:2] == b"\x1f\x8b"
    assert persist.load("m.json.gz").p1_.tobytes() == model.p1_.tobytes()

    test = (tmp_path / "test.csv").read_text("utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO(test))
    out, _err = ok(capsys, "predict", "m.json.gz", "-", "--score-col", "score", "-o", "-")
    ok(capsys, "predict", "m.json.gz", "test.csv", "--score-col", "score", "-o", "ref.csv")
    assert out == Path("ref.csv").read_text("utf-8")
    # tab-separated, gzip-compressed, in and out
    write_csv(tmp_path / "test.tsv.gz", *read_csv("test.csv"), sep="\t")
    ok(
        capsys,
        "predict",
        "m.json.gz",
        "test.tsv.gz",
        "--sep",
        "tab",
        "--score-col",
        "score",
        "-o",
        "out.tsv.gz",
    )
    header, rows = read_csv("out.tsv.gz", sep="\t")
    assert [header, *rows] == [list(r) for r in csv.reader(io.StringIO(out))]


def test_output_file_mode_follows_umask(data, capsys):
    umask = os.umask(0o022)
    os.umask(umask)
    ok(capsys, *_fit_args("cal.csv"))
    ok(capsys, "predict", "x.json", "test.csv", "--score-col", "score", "-o", "o.csv")
    assert Path("o.csv").stat().st_mode & 0o777 == 0o666 & ~umask
    assert sorted(p.name for p in Path().iterdir()) == ["cal.csv", "o.csv", "test.csv", "x.json"]


def test_prefix_and_column_clash(data, capsys):
    ok(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "-o",
        "m.json",
    )
    ok(capsys, "predict", "m.json", "test.csv", "--score-col", "score", "-o", "once.csv")
    fails(
        capsys,
        "predict",
        "m.json",
        "once.csv",
        "--score-col",
        "score",
        "-o",
        "twice.csv",
        match=r"already has column\(s\) 'p', 'p0', 'p1'; choose other output names with "
        r"--prefix",
    )
    assert not Path("twice.csv").exists()
    ok(
        capsys,
        "predict",
        "m.json",
        "once.csv",
        "--score-col",
        "score",
        "-o",
        "twice.csv",
        "--prefix",
        "again_",
    )
    assert read_csv("twice.csv")[0][-3:] == ["again_p", "again_p0", "again_p1"]


def test_evaluate_labels_and_pos_label(data, capsys, tmp_path):
    write_csv(
        tmp_path / "e.csv", ["p", "y"], [["0.9", "b"], ["0.2", "a"], ["0.6", "b"], ["0.4", "a"]]
    )
    out, err = ok(capsys, "evaluate", "e.csv", "--prob-col", "p", "--label-col", "y", "--json")
    assert json.loads(out)["accuracy"] == 1.0
    assert "positive class 'b'" in err
    out, _ = ok(
        capsys,
        "evaluate",
        "e.csv",
        "--prob-col",
        "p",
        "--label-col",
        "y",
        "--json",
        "--pos-label",
        "a",
    )
    assert json.loads(out)["accuracy"] == 0.0
    fails(
        capsys,
        "evaluate",
        "e.csv",
        "--prob-col",
        "p",
        "--label-col",
        "y",
        "--pos-label",
        "c",
        match=r"--pos-label 'c' is not one of the labels \['a', 'b'\]",
    )
    write_csv(tmp_path / "one.csv", ["p", "y"], [["0.9", "x"], ["0.2", "x"]])
    fails(
        capsys,
        "evaluate",
        "one.csv",
        "--prob-col",
        "p",
        "--label-col",
        "y",
        match="single class .*--pos-label",
    )
    write_csv(tmp_path / "three.csv", ["p", "y"], [["0.9", "1"], ["0.2", "2"], ["0.3", "3"]])
    fails(
        capsys,
        "evaluate",
        "three.csv",
        "--prob-col",
        "p",
        "--label-col",
        "y",
        match=r"column 'y': y has 3 classes \(1, 2, 3\); venncal calibrates binary",
    )
    write_csv(tmp_path / "big.csv", ["p", "y"], [["1.5", "1"], ["0.2", "0"]])
    fails(
        capsys,
        "evaluate",
        "big.csv",
        "--prob-col",
        "p",
        "--label-col",
        "y",
        match=r"column 'p' must lie in \[0, 1\]; got 1\.5 in row 1",
    )
    fails(
        capsys,
        "evaluate",
        "e.csv",
        "--prob-col",
        "p",
        "--label-col",
        "y",
        "--p0-col",
        "p",
        match="--p0-col and --p1-col go together",
    )
    write_csv(
        tmp_path / "unordered.csv",
        ["p", "p0", "p1", "y"],
        [["0.5", "0.4", "0.6", "1"], ["0.5", "0.7", "0.6", "0"]],
    )
    # A cvap model's merged pair can be unordered: its width counts negatively.
    assert main(["evaluate", "unordered.csv", "--prob-col", "p", "--label-col", "y",
                 "--p0-col", "p0", "--p1-col", "p1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["interval_width"] == pytest.approx(0.05)


def test_plot(data, capsys):
    pytest.importorskip("matplotlib")
    ok(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "-o",
        "m.json",
    )
    ok(capsys, "predict", "m.json", "test.csv", "--score-col", "score", "-o", "out.csv")
    _out, err = ok(
        capsys,
        "evaluate",
        "out.csv",
        "--prob-col",
        "p",
        "--label-col",
        "label",
        "--plot",
        "diagram.png",
        "--bins",
        "5",
    )
    assert Path("diagram.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "reliability diagram written to diagram.png" in err
    fails(
        capsys,
        "evaluate",
        "out.csv",
        "--prob-col",
        "p",
        "--label-col",
        "label",
        "--plot",
        "diagram.unknownformat",
        match="cannot write the plot",
    )


# --------------------------------------------------------------------------------- parquet


def test_parquet(data, arrays, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table(
        {
            "id": pa.array(np.arange(N_CAL), pa.int32()),
            "score": arrays["s"],
            "label": pa.array(arrays["y"] == "yes"),
            "tag": pa.array([None if i % 5 == 0 else f"t{i}" for i in range(N_CAL)]),
        }
    )
    pq.write_table(table, "cal.parquet")
    _, err = ok(
        capsys,
        "fit",
        "cal.parquet",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "-o",
        "m.json",
    )
    assert "classes False and True" in err
    model = persist.load("m.json")
    assert model.classes_.dtype == bool
    ok(capsys, "predict", "m.json", "cal.parquet", "--score-col", "score", "-o", "out.parquet")
    out = pq.read_table("out.parquet")
    assert out.schema.names == ["id", "score", "label", "tag", "p", "p0", "p1"]
    assert out.select(["id", "score", "label", "tag"]).equals(table)  # types kept
    p = out.column("p").to_numpy()
    assert p.tobytes() == model.predict_proba(arrays["s"])[:, 1].tobytes()
    # Parquet -> CSV and CSV -> Parquet
    ok(capsys, "predict", "m.json", "cal.parquet", "--score-col", "score", "-o", "out.csv")
    _header, rows = read_csv("out.csv")
    assert rows[0][3] == ""
    assert rows[1][3] == "t1"
    assert [float(v) for v in column("out.csv", "p")] == p.tolist()
    ok(capsys, "predict", "m.json", "test.csv", "--score-col", "score", "-o", "t.parquet")
    t = pq.read_table("t.parquet")
    assert t.column("id").type == pa.string()
    assert t.column("p").type == pa.float64()
    out, _ = ok(
        capsys,
        "evaluate",
        "out.parquet",
        "--prob-col",
        "p",
        "--label-col",
        "label",
        "--p0-col",
        "p0",
        "--p1-col",
        "p1",
        "--json",
    )
    assert "interval_width" in json.loads(out)
    # nulls and non-numeric types are refused with the row
    pq.write_table(pa.table({"score": pa.array([0.1, None, 0.3]), "y": [0, 1, 1]}), "null.parquet")
    fails(
        capsys,
        "fit",
        "null.parquet",
        "--score-col",
        "score",
        "--label-col",
        "y",
        "--method",
        "ivap",
        "-o",
        "x.json",
        match=r"column 'score', row 2: empty cell",
    )
    fails(
        capsys,
        "fit",
        "cal.parquet",
        "--score-col",
        "label",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "-o",
        "x.json",
        match=r"column 'label' has type bool",
    )
    fails(
        capsys,
        "fit",
        "cal.parquet",
        "--score-col",
        "score",
        "--label-col",
        "tag",
        "--method",
        "ivap",
        "-o",
        "x.json",
        match=r"column 'tag', row 1: empty cell",
    )
    Path("fake.parquet").write_text("not parquet")
    fails(
        capsys,
        "fit",
        "fake.parquet",
        "--score-col",
        "score",
        "--label-col",
        "y",
        "--method",
        "ivap",
        "-o",
        "x.json",
        match="not a readable Parquet file",
    )


def test_parquet_without_pyarrow(data, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    Path("cal.parquet").write_bytes(b"PAR1")
    fails(
        capsys,
        "fit",
        "cal.parquet",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "-o",
        "m.json",
        match=r'needs pyarrow: pip install "venncal\[parquet\]"',
    )
    ok(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "-o",
        "m.json",
    )
    fails(
        capsys,
        "predict",
        "m.json",
        "test.csv",
        "--score-col",
        "score",
        "-o",
        "o.parquet",
        match=r'pip install "venncal\[parquet\]"',
    )


# ------------------------------------------------------------------------------- bad input


@pytest.fixture
def model(data, capsys):
    ok(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "-o",
        "m.json",
    )
    return "m.json"


def _fit_args(path, *extra):
    return [
        "fit",
        path,
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "-o",
        "x.json",
        *extra,
    ]


def test_missing_files(data, model, capsys):
    fails(capsys, *_fit_args("nope.csv"), match=r"venncal fit: error: nope\.csv: no such file")
    fails(
        capsys,
        "predict",
        "nope.json",
        "test.csv",
        "--score-col",
        "score",
        "-o",
        "o.csv",
        match=r"nope\.json: no such file",
    )
    fails(
        capsys,
        "predict",
        model,
        "nope.csv",
        "--score-col",
        "score",
        "-o",
        "o.csv",
        match=r"nope\.csv: no such file",
    )
    fails(
        capsys,
        "evaluate",
        "nope.csv",
        "--prob-col",
        "p",
        "--label-col",
        "y",
        match=r"venncal evaluate: error: nope\.csv: no such file",
    )
    fails(
        capsys,
        "predict",
        model,
        "test.csv",
        "--score-col",
        "score",
        "-o",
        "no/dir/o.csv",
        match="does not exist",
    )
    fails(capsys, *_fit_args("."), match="is a directory")


def test_missing_column_lists_available(data, model, capsys):
    fails(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "scor",
        "--label-col",
        "label",
        "--method",
        "ivap",
        "-o",
        "x.json",
        match=r"cal\.csv: no column 'scor' \(given by --score-col\); available columns: "
        r"'score', 'label', 'fold', 'w'",
    )
    fails(
        capsys,
        *_fit_args("cal.csv", "--weight-col", "weight"),
        match=r"no column 'weight' \(given by --weight-col\)",
    )
    fails(
        capsys,
        "predict",
        model,
        "test.csv",
        "--score-col",
        "s9",
        "-o",
        "o.csv",
        match=r"no column 's9'",
    )
    fails(
        capsys,
        "evaluate",
        "test.csv",
        "--prob-col",
        "p",
        "--label-col",
        "label",
        match=r"no column 'p' \(given by --prob-col\); available columns: 'id', 'score'",
    )


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("abc", r"column 'score', row 3: cannot parse 'abc' as a number"),
        ("", r"column 'score', row 3: empty cell, a number is needed"),
        ("  ", r"column 'score', row 3: empty cell"),
        ("nan", r"column 'score', row 3: 'nan' is not a finite number"),
        ("-inf", r"column 'score', row 3: '-inf' is not a finite number"),
        ("1e999", r"column 'score', row 3: '1e999' is not a finite number"),
    ],
)
def test_bad_score_cells(cell, message, data, model, capsys, tmp_path):
    rows = [["0.1", "no", "1"], ["0.5", "yes", "1"], [cell, "yes", "1"], ["0.7", "no", "1"]]
    write_csv(tmp_path / "bad.csv", ["score", "label", "w"], rows)
    fails(capsys, *_fit_args("bad.csv"), match=r"bad\.csv: " + message)
    fails(capsys, "predict", model, "bad.csv", "--score-col", "score", "-o", "o.csv", match=message)
    assert not Path("o.csv").exists()
    assert not list(Path().glob(".*.part"))  # no temporary file left


def test_bad_labels_and_weights(data, capsys, tmp_path):
    write_csv(
        tmp_path / "bad.csv",
        ["score", "label", "w"],
        [["0.1", "no", "1"], ["0.5", "", "1"], ["0.6", "yes", "nan"]],
    )
    fails(capsys, *_fit_args("bad.csv"), match=r"column 'label', row 2: empty cell")
    write_csv(
        tmp_path / "bad.csv",
        ["score", "label", "w"],
        [["0.1", "no", "1"], ["0.5", "yes", "1"], ["0.6", "yes", "nan"]],
    )
    fails(
        capsys,
        *_fit_args("bad.csv", "--weight-col", "w"),
        match=r"column 'w', row 3: 'nan' is not a finite number",
    )
    write_csv(
        tmp_path / "bad.csv", ["score", "label", "w"], [["0.1", "no", "1"], ["0.5", "yes", "-2"]]
    )
    fails(
        capsys,
        *_fit_args("bad.csv", "--weight-col", "w"),
        match=r"column 'w' must be non-negative; got -2\.0 in row 2",
    )
    write_csv(
        tmp_path / "bad.csv", ["score", "label"], [["0.1", "no"], ["0.5", "yes"], ["0.6", "maybe"]]
    )
    fails(capsys, *_fit_args("bad.csv"), match=r"cannot fit ivap on bad\.csv: y has 3 classes")
    write_csv(tmp_path / "bad.csv", ["score", "label"], [["0.1", "no"], ["0.5", "no"]])
    fails(
        capsys,
        *_fit_args("bad.csv"),
        match=r"single class \(.*'no'.*--param classes=NEGATIVE,POSITIVE",
    )
    ok(capsys, *_fit_args("bad.csv", "--param", "classes=no,yes"))


def test_malformed_tables(data, capsys, tmp_path):
    (tmp_path / "ragged.csv").write_text("score,label\n0.1,no\n0.2,yes,extra\n")
    fails(
        capsys,
        *_fit_args("ragged.csv"),
        match=r"row 2 has 3 field\(s\) but the header has 2 .*--sep",
    )
    (tmp_path / "empty.csv").write_text("")
    fails(capsys, *_fit_args("empty.csv"), match="the file is empty")
    (tmp_path / "header.csv").write_text("score,label\n")
    fails(capsys, *_fit_args("header.csv"), match="no data rows after the header")
    (tmp_path / "latin1.csv").write_bytes("score,label\n0.1,n\xe9\n".encode("latin-1"))
    fails(capsys, *_fit_args("latin1.csv"), match="not UTF-8 text")
    (tmp_path / "dup.csv").write_text("score,score,label\n0.1,0.2,no\n")
    fails(capsys, *_fit_args("dup.csv"), match="column 'score' appears 2 times")
    # a BOM (Excel) and blank lines are fine
    (tmp_path / "bom.csv").write_text("\ufeffscore,label\n0.1,no\n\n0.2,yes\n", "utf-8")
    ok(capsys, *_fit_args("bom.csv"))


def test_not_a_model(model, capsys, tmp_path):
    doc = json.loads(Path(model).read_text("utf-8"))
    doc["format_version"] = 99
    (tmp_path / "new.json").write_text(json.dumps(doc))
    (tmp_path / "other.json").write_text('{"format": "other"}')
    (tmp_path / "model.pkl").write_bytes(pickle.dumps(persist.load(model)))
    for name, detail in [
        ("cal.csv", "not JSON"),
        ("other.json", "not a venncal calibrator"),
        ("new.json", "format_version 99 is newer .* upgrade venncal"),
        ("model.pkl", "not UTF-8"),
    ]:
        fails(
            capsys,
            "predict",
            name,
            "test.csv",
            "--score-col",
            "score",
            "-o",
            "o.csv",
            match=rf"venncal predict: error: {re.escape(name)}: not a usable venncal "
            rf"model: .*{detail}",
        )
    fails(
        capsys,
        "predict",
        ".",
        "test.csv",
        "--score-col",
        "score",
        "-o",
        "o.csv",
        match="is a directory",
    )


def test_method_option_errors(data, capsys):
    fails(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "cvap",
        "-o",
        "x.json",
        match="--method cvap needs --fold-col",
    )
    fails(
        capsys,
        *_fit_args("cal.csv", "--fold-col", "fold"),
        match="--fold-col is used only by --method cvap, not ivap",
    )
    fails(
        capsys,
        *_fit_args("cal.csv", "--param", "bogus=1"),
        match=r"VennAbersCalibrator \(ivap\) has no parameter 'bogus'; its parameters: "
        "classes, merge",
    )
    fails(
        capsys,
        *_fit_args("cal.csv", "--param", "merge=median"),
        match="cannot fit ivap on cal.csv: VennAbersCalibrator: merge must be one of",
    )
    fails(capsys, *_fit_args("cal.csv", "--param", "novalue"), match="expected KEY=VALUE")
    fails(
        capsys,
        "fit",
        "cal.csv",
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--method",
        "magic",
        "-o",
        "x.json",
        match="invalid choice: 'magic'",
    )
    if _available("platt"):
        fails(
            capsys,
            "fit",
            "cal.csv",
            "--score-col",
            "score",
            "--label-col",
            "label",
            "--method",
            "platt",
            "--merge",
            "brier",
            "-o",
            "x.json",
            match="--merge applies to Venn-Abers methods",
        )
    for method in _registry.available_methods():
        if not _available(method):
            fails(
                capsys,
                "fit",
                "cal.csv",
                "--score-col",
                "score",
                "--label-col",
                "label",
                "--method",
                method,
                "-o",
                "x.json",
                match=r"is not available: module venncal",
            )


def test_several_score_columns_only_for_cvap(model, capsys):
    fails(
        capsys,
        "predict",
        model,
        "test.csv",
        "--score-col",
        "s0,s1",
        "-o",
        "o.csv",
        match="several score columns are for cvap models",
    )


# ------------------------------------------------------------------------- messages, help


def test_quiet_and_progress(data, capsys):
    _, err = ok(capsys, *_fit_args("cal.csv", "--quiet"))
    assert err == ""
    _, err = ok(capsys, *_fit_args("cal.csv"))  # stderr is not a terminal: no progress
    assert "reading" not in err
    assert "fitted ivap" in err
    _, err = ok(capsys, *_fit_args("cal.csv", "--progress"))
    assert f"reading cal.csv: {N_CAL:,} rows (100%)" in err
    assert f"fitting ivap on {N_CAL:,} rows ... done" in err
    _, err = ok(capsys, *_fit_args("cal.csv", "--progress", "--quiet"))
    assert err == ""
    _, err = ok(
        capsys, "predict", "x.json", "test.csv", "--score-col", "score", "-o", "o.csv", "--progress"
    )
    assert f"predicting test.csv: {N_TEST:,} rows (100%)" in err
    assert "\r" not in err  # not a terminal: plain lines


def test_help_says_which_class_p_is(capsys):
    for name in ("fit", "predict"):
        assert main([name, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert "classes_[1]" in text or "second, larger one" in text
    assert main(["evaluate", "--help"]) == 0
    assert "--pos-label" in capsys.readouterr().out


# -------------------------------------------------------------------------------- docs/cli.md


def _doc_blocks():
    text = (DOCS / "cli.md").read_text("utf-8")
    return re.findall(r"```(\w+)\n(.*?)```", text, flags=re.DOTALL)


def test_docs_cli_examples(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    commands = []
    for lang, body in _doc_blocks():
        if lang == "python":
            exec(compile(body, "docs/cli.md", "exec"), {})  # noqa: S102 - the documented example
        elif lang == "console":
            for line in body.replace("\\\n", " ").splitlines():
                if not line.startswith("$ venncal "):
                    continue
                argv = shlex.split(line[len("$ venncal ") :])
                if any(a.endswith(".parquet") for a in argv):
                    pytest.importorskip("pyarrow")
                if "--plot" in argv:
                    pytest.importorskip("matplotlib")
                method = argv[argv.index("--method") + 1] if "--method" in argv else None
                if method and not _available(method):
                    continue
                code, _out, err = run(capsys, *argv)
                assert code == 0, (line, err)
                commands.append(argv[0])
    assert commands.count("fit") >= 4
    assert "predict" in commands
    assert "evaluate" in commands
    assert Path("reliability.png").read_bytes()[:4] == b"\x89PNG"
