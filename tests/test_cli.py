"""End-to-end tests of ``venncal fit``, ``predict`` and ``evaluate`` (and docs/cli.md).

Commands are written as typed (split with ``shlex``); ``fit``, ``predict`` and
``evaluate`` build the common invocations, and every error case is one row of
``ERRORS``: the command, and a fragment of its one-line message.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import pickle
import re
import shlex
import shutil
import sys
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

import venncal
from venncal import persist
from venncal.cli import main
from venncal.metrics import evaluate as evaluate_metrics

DOCS = Path(__file__).resolve().parent.parent / "docs"
N_CAL, N_TEST, K = 400, 150, 4
USAGE_ERROR = 2  # the exit code of every refused command
needs_pyarrow = pytest.mark.skipif(find_spec("pyarrow") is None, reason="needs pyarrow")
needs_matplotlib = pytest.mark.skipif(find_spec("matplotlib") is None, reason="needs matplotlib")


# ------------------------------------------------------------------------ command builders


def fit(src="cal.csv", options="", *, method="ivap", out="x.json", score="score", label="label"):
    return f"fit {src} --score-col {score} --label-col {label} --method {method} -o {out} {options}"


def predict(src="test.csv", options="", *, model="m.json", out="o.csv", score="score"):
    return f"predict {model} {src} --score-col {score} -o {out} {options}"


def evaluate(src="once.csv", options="", *, prob="p", label="label"):
    return f"evaluate {src} --prob-col {prob} --label-col {label} {options}"


CVAP_FIT = fit(method="cvap", out="cvap.json", options="--fold-col fold --merge brier")


def run_cli(capsys, command):
    code = main(shlex.split(command))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def ok(capsys, command):
    code, out, err = run_cli(capsys, command)
    assert code == 0, err
    return out, err


def fails(capsys, command, match):
    code, out, err = run_cli(capsys, command)
    assert code == USAGE_ERROR, (code, out, err)
    assert re.search(match, err), err
    # one line (argparse also prints the usage before its own errors)
    assert len([line for line in err.splitlines() if "error:" in line]) == 1, err
    assert out == ""  # nothing on stdout, even with -o -


# ------------------------------------------------------------------------------ input files


def write_csv(path, header, rows, sep=","):
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
    return np.array([float(r[j]) for r in rows])


BAD_CELLS = [
    ("abc", "cannot parse 'abc' as a number"),
    ("", "empty cell, a number is needed"),
    ("  ", "empty cell"),
    ("nan", "'nan' is not a finite number"),
    ("-inf", "'-inf' is not a finite number"),
    ("1e999", "'1e999' is past the largest float64"),
    ("1e-400", "'1e-400' is not zero but lies below the smallest float64"),
]
SMALL_FILES = {
    "e.csv": "p,y\n0.9,b\n0.2,a\n0.6,b\n0.4,a\n",
    "one.csv": "p,y\n0.9,x\n0.2,x\n",
    "three.csv": "p,y\n0.9,1\n0.2,2\n0.3,3\n",
    "big.csv": "p,y\n1.5,1\n0.2,0\n",
    "unordered.csv": "p,p0,p1,y\n0.5,0.4,0.6,1\n0.5,0.7,0.6,0\n",
    "no-label.csv": "score,label,w\n0.1,no,1\n0.5,,1\n0.6,yes,nan\n",
    "nan-weight.csv": "score,label,w\n0.1,no,1\n0.5,yes,1\n0.6,yes,nan\n",
    "neg-weight.csv": "score,label,w\n0.1,no,1\n0.5,yes,-2\n",
    "maybe.csv": "score,label\n0.1,no\n0.5,yes\n0.6,maybe\n",
    "no-only.csv": "score,label\n0.1,no\n0.5,no\n",
    "ragged.csv": "score,label\n0.1,no\n0.2,yes,extra\n",
    "empty.csv": "",
    "header.csv": "score,label\n",
    "dup.csv": "score,score,label\n0.1,0.2,no\n",
    "bom.csv": "\ufeffscore,label\n0.1,no\n\n0.2,yes\n",
    "other.json": '{"format": "other"}',
    "na-label.csv": "score,label\n0.1,no\n0.5,NA\n0.6,yes\n",
    "null-label.csv": "score,label\n0.1,0\n0.5,1\n0.6,null\n",
    "roles.csv": "score,label,w,p\n0.1,0,1,0.2\n0.5,1,1,0.7\n",
    "nan-scores.csv": "id,score\n1,0.5\n2,\n3,NA\n4,nan\n5,-1.25\n",
    "inf-score.csv": "id,score\n1,0.5\n2,inf\n",
    **{
        f"cell{i}.csv": f"score,label,w\n0.1,no,1\n0.5,yes,1\n{cell},yes,1\n0.7,no,1\n"
        for i, (cell, _) in enumerate(BAD_CELLS)
    },
}


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


def cal_table(arrays):
    import pyarrow as pa

    return pa.table(
        {
            "id": pa.array(np.arange(N_CAL), pa.int32()),
            "score": arrays["s"],
            "label": pa.array(arrays["y"] == "yes"),
            "tag": pa.array([None if i % 5 == 0 else f"t{i}" for i in range(N_CAL)]),
        }
    )


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, arrays):
    """A directory of input files and of models fitted by the CLI, made once."""
    a = arrays
    d = tmp_path_factory.mktemp("cli")
    cal = zip(map(repr, a["s"].tolist()), a["y"], a["folds"], a["w"], strict=True)
    write_csv(d / "cal.csv", ["score", "label", "fold", "w"], cal)
    write_csv(
        d / "test.csv",
        ["id", "score", *(f"s{k}" for k in range(K)), "label"],
        (
            [i, repr(float(a["t"][i])), *map(repr, a["tk"][i].tolist()), a["yt"][i]]
            for i in range(N_TEST)
        ),
    )
    for name, text in SMALL_FILES.items():
        (d / name).write_text(text, "utf-8")
    (d / "latin1.csv").write_bytes("score,label\n0.1,n\xe9\n".encode("latin-1"))
    if find_spec("pyarrow") is not None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(cal_table(a), d / "cal.parquet")
        nulls = pa.table({"score": pa.array([0.1, None, 0.3]), "y": [0, 1, 1]})
        pq.write_table(nulls, d / "null.parquet")
        nan_label = pa.table({"score": [0.1, 0.2, 0.3], "y": [0.0, 1.0, float("nan")]})
        pq.write_table(nan_label, d / "nan-label.parquet")
    (d / "fake.parquet").write_text("not parquet")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(d)
        for command in (fit(out="m.json"), CVAP_FIT, predict(out="once.csv")):
            assert main([*shlex.split(command), "--quiet"]) == 0, command
    doc = json.loads((d / "m.json").read_text("utf-8"))
    doc["format_version"] = 99
    (d / "new.json").write_text(json.dumps(doc))
    (d / "model.pkl").write_bytes(pickle.dumps(persist.load(d / "m.json")))
    return d


@pytest.fixture
def data(inputs, tmp_path, monkeypatch):
    shutil.copytree(inputs, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --------------------------------------------------------------------- fit -> predict -> eval


@pytest.mark.parametrize("method", ["ivap", "platt", "isotonic", "histogram", "bbq"])
def test_fit_predict_evaluate(method, data, arrays, capsys):
    out, err = ok(capsys, fit(method=method, out="model.json"))
    assert out == ""
    assert "classes 'no' and 'yes': p is the probability of 'yes'" in err
    model = persist.load("model.json")
    expected = type(model)().fit(arrays["s"], arrays["y"])
    assert model.classes_.tolist() == ["no", "yes"]

    ok(capsys, predict(model="model.json", out="out.csv"))
    header, rows = read_csv("out.csv")
    in_header, in_rows = read_csv("test.csv")
    va = hasattr(model, "predict_interval")
    assert header == in_header + (["p", "p0", "p1"] if va else ["p"])
    assert [r[: len(in_header)] for r in rows] == in_rows  # input columns unchanged
    p = column("out.csv", "p")
    # written with repr: the exact doubles
    assert p.tobytes() == expected.predict_proba(arrays["t"])[:, 1].tobytes()
    if va:
        pair = np.column_stack([column("out.csv", "p0"), column("out.csv", "p1")])
        assert pair.tobytes() == expected.predict_interval(arrays["t"]).tobytes()

    interval = "--p0-col p0 --p1-col p1" if va else ""
    out, err = ok(capsys, evaluate("out.csv", interval))
    assert "log_loss" in out
    assert "ece" in out
    assert ("interval_width" in out) == va
    assert f"{N_TEST:,} rows, positive class 'yes'" in err
    out, _ = ok(capsys, evaluate("out.csv", f"{interval} --json --bins 5 --strategy quantile"))
    metrics = json.loads(out)
    assert set(metrics) >= {"log_loss", "brier", "ece", "auc", "accuracy"}
    yt = arrays["yt"] == "yes"
    ref = evaluate_metrics(yt, p, n_bins=5, strategy="quantile", interval=pair if va else None)
    assert metrics == json.loads(ref.to_json())


def test_cvap_with_fold_column(data, arrays, capsys):
    ok(capsys, CVAP_FIT)
    model = persist.load("cvap.json")
    assert model.merge == "brier"
    assert len(model.calibrators_) == K
    expected = type(model)(merge="brier").fit(arrays["s"], arrays["y"], folds=arrays["folds"])
    cols = ",".join(f"s{k}" for k in range(K))
    ok(capsys, predict(model="cvap.json", score=cols, out="cvap-k.csv"))
    p, p0 = (
        expected.predict_proba(arrays["tk"])[:, 1],
        expected.predict_interval(arrays["tk"])[:, 0],
    )
    assert column("cvap-k.csv", "p").tobytes() == p.tobytes()
    assert column("cvap-k.csv", "p0").tobytes() == p0.tobytes()
    # one score column serves every fold model
    ok(capsys, predict(model="cvap.json", out="cvap-1.csv"))
    p = expected.predict_proba(arrays["t"])[:, 1]
    assert column("cvap-1.csv", "p").tobytes() == p.tobytes()
    out, _ = ok(capsys, evaluate("cvap-k.csv", "--json"))
    assert 0 < json.loads(out)["brier"] < 0.25


def test_weights_and_integer_labels(data, arrays, capsys):
    y01 = (arrays["y"] == "yes").astype(int)
    rows = zip(map(repr, arrays["s"].tolist()), np.where(y01 == 1, 10, 2), arrays["w"], strict=True)
    write_csv("int.csv", ["score", "y", "w"], rows)
    _, err = ok(capsys, fit("int.csv", "--weight-col w", label="y", out="m.json"))
    # labels compare as numbers (2 < 10), not as text
    assert "classes 2 and 10: p is the probability of 10" in err
    model = persist.load("m.json")
    assert model.classes_.dtype.kind == "i"
    expected = venncal.VennAbersCalibrator().fit(arrays["s"], y01, sample_weight=arrays["w"])
    np.testing.assert_array_equal(model.p1_, expected.p1_)
    np.testing.assert_array_equal(model.weights_, expected.weights_)


def test_params(data, capsys):
    ok(capsys, fit(method="histogram", options="--param n_bins=7 --param strategy=uniform"))
    model = persist.load("x.json")
    assert (model.n_bins, model.strategy) == (7, "uniform")
    ok(capsys, fit(options="--param classes=no,yes"))
    assert persist.load("x.json").classes == ["no", "yes"]


def test_stdin_stdout_sep_and_gzip(data, capsys, monkeypatch):
    semicolons = Path("cal.csv").read_text("utf-8").replace(",", ";")
    monkeypatch.setattr(sys, "stdin", io.StringIO(semicolons))
    out, _ = ok(capsys, fit("-", "--sep ';' --quiet", out="-"))
    model = persist.load(io.StringIO(out))
    ok(capsys, fit(out="m.json.gz"))
    assert Path("m.json.gz").read_bytes()[:2] == b"\x1f\x8b"
    assert persist.load("m.json.gz").p1_.tobytes() == model.p1_.tobytes()

    monkeypatch.setattr(sys, "stdin", io.StringIO(Path("test.csv").read_text("utf-8")))
    out, _ = ok(capsys, predict("-", model="m.json.gz", out="-"))
    ok(capsys, predict(model="m.json.gz", out="ref.csv"))
    assert out == Path("ref.csv").read_text("utf-8")
    # tab-separated, gzip-compressed, in and out
    write_csv("test.tsv.gz", *read_csv("test.csv"), sep="\t")
    ok(capsys, predict("test.tsv.gz", "--sep tab", model="m.json.gz", out="out.tsv.gz"))
    header, rows = read_csv("out.tsv.gz", sep="\t")
    assert [header, *rows] == list(csv.reader(io.StringIO(out)))


def test_output_file_mode_follows_umask(data, capsys):
    umask = os.umask(0o022)
    os.umask(umask)
    before = set(os.listdir())
    ok(capsys, fit())
    ok(capsys, predict(model="x.json"))
    assert Path("o.csv").stat().st_mode & 0o777 == 0o666 & ~umask
    assert set(os.listdir()) - before == {"o.csv", "x.json"}  # no temporary file left


def test_prefix(data, capsys):
    # once.csv already has the columns p, p0, p1 (see ERRORS for the clash)
    ok(capsys, predict("once.csv", "--prefix again_", out="twice.csv"))
    assert read_csv("twice.csv")[0][-3:] == ["again_p", "again_p0", "again_p1"]


@pytest.mark.parametrize(
    ("command", "key", "value", "message"),
    [
        (evaluate("e.csv", "--json", label="y"), "accuracy", 1.0, "positive class 'b'"),
        (
            evaluate("e.csv", "--json --pos-label a", label="y"),
            "accuracy",
            0.0,
            "positive class 'a'",
        ),
        # A cvap model's merged pair can be unordered: its width counts negatively.
        (
            evaluate("unordered.csv", "--json --p0-col p0 --p1-col p1", label="y"),
            "interval_width",
            pytest.approx(0.05),
            "",
        ),
    ],
)
def test_evaluate_json(command, key, value, message, data, capsys):
    out, err = ok(capsys, command)
    assert json.loads(out)[key] == value
    assert message in err


@needs_matplotlib
def test_plot(data, capsys):
    _, err = ok(capsys, evaluate("once.csv", "--plot diagram.png --bins 5"))
    assert Path("diagram.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "reliability diagram written to diagram.png" in err


@pytest.mark.parametrize(
    "command",
    [
        fit("no-only.csv", "--param classes=no,yes"),  # one class seen, both named
        fit("bom.csv"),  # a BOM (Excel) and blank lines are fine
    ],
)
def test_accepted_edge_cases(command, data, capsys):
    ok(capsys, command)


# --------------------------------------------------------------------------------- parquet


@needs_pyarrow
def test_parquet(data, arrays, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    _, err = ok(capsys, fit("cal.parquet", out="m.json"))
    assert "classes False and True" in err
    model = persist.load("m.json")
    assert model.classes_.dtype == bool
    ok(capsys, predict("cal.parquet", out="out.parquet"))
    out = pq.read_table("out.parquet")
    assert out.schema.names == ["id", "score", "label", "tag", "p", "p0", "p1"]
    assert out.select(["id", "score", "label", "tag"]).equals(cal_table(arrays))  # types kept
    p = out.column("p").to_numpy()
    assert p.tobytes() == model.predict_proba(arrays["s"])[:, 1].tobytes()
    # Parquet -> CSV and CSV -> Parquet
    ok(capsys, predict("cal.parquet", out="out.csv"))
    _, rows = read_csv("out.csv")
    assert rows[0][3] == ""
    assert rows[1][3] == "t1"
    assert column("out.csv", "p").tolist() == p.tolist()
    ok(capsys, predict(out="t.parquet"))
    t = pq.read_table("t.parquet")
    assert t.column("id").type == pa.int64()  # types inferred, as pyarrow reads CSV
    assert t.column("p").type == pa.float64()
    out, _ = ok(capsys, evaluate("out.parquet", "--p0-col p0 --p1-col p1 --json"))
    assert "interval_width" in json.loads(out)


# ------------------------------------------------------------------------------- bad input

NOT_MODELS = [
    ("cal.csv", "not JSON"),
    ("other.json", "not a venncal calibrator"),
    ("new.json", "format_version 99 is newer .* upgrade venncal"),
    ("model.pkl", "not UTF-8"),
]

ERRORS = [
    # files
    (fit("nope.csv"), r"venncal fit: error: nope\.csv: no such file"),
    (fit("."), "is a directory"),
    (predict(model="nope.json"), r"nope\.json: no such file"),
    (predict("nope.csv"), r"nope\.csv: no such file"),
    (predict(out="no/dir/o.csv"), "does not exist"),
    (predict(model="."), "is a directory"),
    (evaluate("nope.csv", label="y"), r"venncal evaluate: error: nope\.csv: no such file"),
    *[
        (
            predict(model=name),
            rf"venncal predict: error: {re.escape(name)}: not a usable venncal model: .*{detail}",
        )
        for name, detail in NOT_MODELS
    ],
    # malformed tables
    (fit("ragged.csv"), r"row 2 has 3 field\(s\) but the header has 2 .*--sep"),
    (fit("empty.csv"), "the file is empty"),
    (fit("header.csv"), "no data rows after the header"),
    (fit("latin1.csv"), "not UTF-8 text"),
    (fit("dup.csv"), "column 'score' appears 2 times"),
    # columns
    (
        fit(score="scor"),
        (
            r"cal\.csv: no column 'scor' \(given by --score-col\); available columns: "
            r"'score', 'label', 'fold', 'w'"
        ),
    ),
    (fit(options="--weight-col weight"), r"no column 'weight' \(given by --weight-col\)"),
    (predict(score="s9"), r"no column 's9'"),
    (
        evaluate("test.csv"),
        r"no column 'p' \(given by --prob-col\); available columns: 'id', 'score'",
    ),
    (
        predict("once.csv", out="twice.csv"),
        r"already has column\(s\) 'p', 'p0', 'p1'; choose other output names with --prefix",
    ),
    # cells
    *[
        (fit(f"cell{i}.csv"), rf"cell{i}\.csv: column 'score', row 3: {message}")
        for i, (_, message) in enumerate(BAD_CELLS)
    ],
    *[
        (predict(f"cell{i}.csv"), f"column 'score', row 3: {message}")
        for i, (_, message) in enumerate(BAD_CELLS)
    ],
    (fit("no-label.csv"), r"column 'label', row 2: empty cell, a label is needed"),
    (fit("na-label.csv"), r"column 'label', row 2: 'NA' marks a missing value, a label is needed"),
    (fit("null-label.csv"), r"column 'label', row 3: 'null' marks a missing value, a label is needed"),
    (evaluate("na-label.csv", prob="score"), r"column 'label', row 2: 'NA' marks a missing"),
    # --nan-scores error (the default); propagate still refuses infinite scores
    (
        predict("nan-scores.csv"),
        r"column 'score', row 2: empty cell, a number is needed \(--nan-scores propagate",
    ),
    (predict("inf-score.csv", "--nan-scores propagate"), r"row 2: 'inf' is not a finite"),
    # one column in two roles
    *[
        (command, rf"{first} and {second} both name the column '\w+'; a column can play one role")
        for command, first, second in [
            (fit("roles.csv", label="score"), "--score-col", "--label-col"),
            (fit("roles.csv", "--weight-col label"), "--label-col", "--weight-col"),
            (fit("roles.csv", "--weight-col score"), "--score-col", "--weight-col"),
            (fit(method="cvap", options="--fold-col label"), "--label-col", "--fold-col"),
            (evaluate("roles.csv", label="p"), "--prob-col", "--label-col"),
            (evaluate("roles.csv", "--p0-col p --p1-col w"), "--prob-col", "--p0-col"),
            (evaluate("roles.csv", "--weight-col label"), "--label-col", "--weight-col"),
            (
                "monitor roles.csv --prob-col label --label-col label",
                "--prob-col",
                "--label-col",
            ),
        ]
    ],
    (predict(model="cvap.json", score="s0,s1,s0,s2"), "--score-col names the column 's0' twice"),
    # outputs: unknown extensions, missing folders, directories (before reading anything)
    (predict(out="o.xlsx"), r"-o o\.xlsx: unknown table format; name the file \.csv or \.tsv"),
    (predict(out="o.json"), r"-o o\.json: unknown table format"),
    (fit(out="model.xlsx"), r"-o model\.xlsx: a model is written as \.json or \.json\.gz"),
    (fit(out="model"), r"-o model: a model is written as \.json"),
    (fit(out="no/dir/m.json"), r"-o no/dir/m\.json: the folder .* does not exist"),
    ("monitor once.csv --prob-col p --label-col label -o steps.xlsx", "unknown table format"),
    pytest.param(
        evaluate(options="--plot noext"),
        r"--plot noext: no file extension to choose the image format",
        marks=needs_matplotlib,
    ),
    pytest.param(evaluate(options="--plot ."), r"--plot \.: is a directory", marks=needs_matplotlib),
    pytest.param(
        evaluate(options="--plot no/dir/d.png"),
        r"--plot no/dir/d\.png: the folder .* does not exist",
        marks=needs_matplotlib,
    ),
    pytest.param(
        "monitor once.csv --prob-col p --label-col label -o s.png --plot s.png",
        "unknown table format",
        marks=needs_matplotlib,
    ),
    pytest.param(
        "monitor once.csv --prob-col p --label-col label -o s.csv --plot s.csv",
        "image format",
        marks=needs_matplotlib,
    ),
    (fit("nan-weight.csv", "--weight-col w"), r"column 'w', row 3: 'nan' is not a finite number"),
    (
        fit("neg-weight.csv", "--weight-col w"),
        r"column 'w' must be non-negative; got -2\.0 in row 2",
    ),
    (evaluate("big.csv", label="y"), r"column 'p' must lie in \[0, 1\]; got 1\.5 in row 1"),
    # labels
    (fit("maybe.csv"), r"cannot fit ivap on maybe\.csv: y has 3 classes"),
    (fit("no-only.csv"), r"single class \(.*'no'.*--param classes=NEGATIVE,POSITIVE"),
    (
        evaluate("e.csv", "--pos-label c", label="y"),
        r"--pos-label 'c' is not one of the labels \['a', 'b'\]",
    ),
    (evaluate("one.csv", label="y"), "single class .*--positive-label"),
    (
        evaluate("three.csv", label="y"),
        r"column 'y': y has 3 classes \(1, 2, 3\); venncal calibrates binary",
    ),
    # methods and options
    (fit(method="magic"), "invalid choice: 'magic'"),
    (fit(method="cvap"), "--method cvap needs --fold-col"),
    (fit(options="--fold-col fold"), "--fold-col is used only by --method cvap, not ivap"),
    (fit(method="platt", options="--merge brier"), "--merge applies to Venn-Abers methods"),
    (
        fit(options="--param bogus=1"),
        r"VennAbersCalibrator \(ivap\) has no parameter 'bogus'; its parameters: classes, merge",
    ),
    (
        fit(options="--param merge=median"),
        "cannot fit ivap on cal.csv: VennAbersCalibrator: merge must be one of",
    ),
    (fit(options="--param novalue"), "expected KEY=VALUE"),
    (predict(score="s0,s1"), "several score columns are for cvap models"),
    (
        predict(model="cvap.json", score="s0,s1"),
        f"cvap model with {K} folds: give 1 score column or {K}, not 2",
    ),
    (evaluate("e.csv", "--p0-col p", label="y"), "--p0-col and --p1-col go together"),
    pytest.param(
        evaluate(options="--plot diagram.unknownformat"),
        r"--plot diagram\.unknownformat: the image format follows the extension; use one of .*\.png",
        marks=needs_matplotlib,
    ),
    # Parquet: nulls and non-numeric types are refused with the row
    *[
        pytest.param(command, message, marks=needs_pyarrow)
        for command, message in [
            (fit("null.parquet", label="y"), r"column 'score', row 2: empty cell"),
            (fit("cal.parquet", score="label", label="id"), r"column 'label' has type bool"),
            (fit("cal.parquet", label="tag"), r"column 'tag', row 1: missing label"),
            (fit("nan-label.parquet", label="y"), r"column 'y', row 3: NaN marks a missing "
             r"value, a label is needed \(drop such rows or fill them in\)"),
            (evaluate("nan-label.parquet", prob="score", label="y"), r"column 'y', row 3: "
             "NaN marks"),
            (fit("fake.parquet", label="y"), "not a readable Parquet file"),
        ]
    ],
]


@pytest.mark.parametrize(("command", "match"), ERRORS)
def test_errors(command, match, data, capsys):
    fails(capsys, command, match)
    argv = shlex.split(command)
    if "-o" in argv:
        assert not Path(argv[argv.index("-o") + 1]).exists()  # nothing written
    assert not list(Path().glob(".*.part.*"))  # no temporary file left


# ------------------------------------------------------------------------- formats, types


def test_tsv_and_compression_by_content(data, capsys):
    """.tsv is tab-separated by name; gzip, bzip2 and zstd are recognised by content."""
    import bz2

    import pyarrow as pa

    header, rows = read_csv("test.csv")
    write_csv("test.tsv", header, rows, sep="\t")
    text = Path("test.csv").read_bytes()
    Path("cal-gz-named.csv").write_bytes(gzip.compress(Path("cal.csv").read_bytes()))
    Path("gz-named.csv").write_bytes(gzip.compress(text))
    Path("bz2-named.csv").write_bytes(bz2.compress(text))
    with pa.CompressedOutputStream("zst-named.csv", "zstd") as f:
        f.write(text)
    ok(capsys, predict(out="ref.csv"))
    ok(capsys, predict("test.tsv", out="out.tsv"))
    assert read_csv("out.tsv", sep="\t") == read_csv("ref.csv")  # tab in, tab out
    for name in ("gz-named.csv", "bz2-named.csv", "zst-named.csv"):
        ok(capsys, predict(name, out=f"out-{name}"))
        assert read_csv(f"out-{name}") == read_csv("ref.csv"), name
    # the output's compression follows its name
    ok(capsys, predict(out="out.csv.bz2"))
    assert bz2.decompress(Path("out.csv.bz2").read_bytes()) == Path("ref.csv").read_bytes()
    # fit reads them too, and stdin is sniffed the same way
    ok(capsys, fit("cal-gz-named.csv", out="gz.json"))
    ok(capsys, fit(out="plain.json"))
    assert persist.load("gz.json").p1_.tobytes() == persist.load("plain.json").p1_.tobytes()


def test_stdin_gzip_and_parquet(data, capsys, monkeypatch):
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    ok(capsys, fit(out="plain.json"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(
        Path("cal.csv").read_bytes()))))
    ok(capsys, fit("-", out="stdin-gz.json"))
    pq.write_table(pcsv.read_csv("cal.csv"), "cal-copy.parquet")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        Path("cal-copy.parquet").read_bytes())))
    ok(capsys, fit("-", out="stdin-pq.json"))
    for name in ("stdin-gz.json", "stdin-pq.json"):
        assert persist.load(name).p1_.tobytes() == persist.load("plain.json").p1_.tobytes()


def test_csv_to_parquet_keeps_types(data, capsys):
    """Inferred types reach Parquet, so a later evaluate sees the integer label 1."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(3)
    s = rng.normal(size=300)
    y = (rng.random(300) < 1 / (1 + np.exp(-2 * s))).astype(int)
    rows = [[i, repr(float(s[i])), int(y[i]), f"2024-01-{1 + i % 28:02d}", "x" if i % 2 else ""]
            for i in range(300)]
    write_csv("typed.csv", ["id", "score", "label", "day", "note"], rows)
    ok(capsys, fit("typed.csv", out="typed.json"))
    assert persist.load("typed.json").classes_.tolist() == [0, 1]
    ok(capsys, predict("typed.csv", model="typed.json", out="typed.parquet"))
    schema = pq.read_schema("typed.parquet")
    assert schema.field("id").type == pa.int64()
    assert schema.field("score").type == pa.float64()
    assert schema.field("label").type == pa.int64()
    assert schema.field("day").type == pa.timestamp("s") or pa.types.is_date(
        schema.field("day").type)
    assert schema.field("note").type == pa.string()
    _, err = ok(capsys, evaluate("typed.parquet", "--json", prob="p"))
    assert "positive class 1 " in err
    # and back to CSV: the same cells
    ok(capsys, predict("typed.parquet", "--prefix again_", model="typed.json", out="back.csv"))
    _, back = read_csv("back.csv")
    assert [r[:3] for r in back] == [r[:3] for r in read_csv("typed.csv")[1]]


def test_csv_to_parquet_widens_a_type_a_later_block_breaks(data, capsys, monkeypatch):
    """Types are inferred from the first block; a later cell that does not fit widens them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    monkeypatch.setattr("venncal.tables._csv.BLOCK_BYTES", 1 << 10)
    n = 2000
    rows = [[repr(0.001 * i), i if i < n - 5 else i + 0.5, "" if i < n - 3 else "late"]
            for i in range(n)]
    write_csv("late.csv", ["score", "amount", "note"], rows)
    ok(capsys, predict("late.csv", model="m.json", out="late.parquet"))
    t = pq.read_table("late.parquet")
    assert t.schema.field("amount").type == pa.float64()
    assert t.column("amount").to_pylist()[-1] == n - 1 + 0.5
    assert t.column("note").to_pylist()[-1] == "late"
    ok(capsys, predict("late.csv", model="m.json", out="late.csv.gz"))
    assert read_csv("late.csv.gz")[1][-1][:3] == [repr(0.001 * (n - 1)), str(n - 1 + 0.5), "late"]


def test_nan_scores_propagate(data, capsys):
    model = persist.load("m.json")
    for out in ("nan.csv", "nan.parquet"):
        ok(capsys, predict("nan-scores.csv", "--nan-scores propagate", out=out))
    header, rows = read_csv("nan.csv")
    assert header == ["id", "score", "p", "p0", "p1"]
    assert [r[1] for r in rows] == ["0.5", "", "NA", "nan", "-1.25"]  # cells passed through
    assert [r[2:] for r in rows[1:4]] == [["", "", ""]] * 3
    p = model.predict_proba([0.5, -1.25])[:, 1]
    assert [float(rows[0][2]), float(rows[4][2])] == p.tolist()
    import pyarrow.parquet as pq

    t = pq.read_table("nan.parquet")
    assert t.column("p").null_count == 3
    assert t.column("score").to_pylist()[:2] == [0.5, None]
    assert t.column("p").to_pylist()[4] == p[1]


def test_floats_written_to_csv_round_trip(tmp_path):
    from venncal.tables import write_table

    rng = np.random.default_rng(0)
    awkward = [0.1, 1 / 3, 1e22, 1e-310, 5e-324, 2.0**53 + 2, 1.7976931348623157e308, -0.0,
               1e-7, 0.30000000000000004, 123456789.123456789]
    x = np.concatenate([awkward, rng.random(1000), np.frombuffer(rng.bytes(8 * 1000))])
    x = x[np.isfinite(x)]
    write_table(str(tmp_path / "x.csv"), {"x": x})
    back = np.array([float(r[0]) for r in read_csv(tmp_path / "x.csv")[1]])
    assert back.tobytes() == x.tobytes()  # bit for bit, the sign of -0.0 included


def test_header_only_input_gives_header_only_output(data, capsys):
    Path("none.csv").write_text("id,score\n", "utf-8")
    ok(capsys, predict("none.csv", out="none-out.csv"))
    assert Path("none-out.csv").read_text("utf-8") == "id,score,p,p0,p1\n"


# ------------------------------------------------------------------------------ safe outputs


def _copy(src, dst):
    shutil.copyfile(src, dst)
    return dst


#: (setup: name -> source file, command, the input the output would replace)
OVERWRITES = [
    ({"cal.json": "cal.csv"}, fit("cal.json", out="cal.json"), "DATA"),
    ({}, predict(out="test.csv"), "DATA"),
    ({"m.csv": "m.json"}, predict(model="m.csv", out="m.csv"), "MODEL"),
    ({"once.png": "once.csv"}, evaluate("once.png", "--plot once.png"), "DATA"),
    ({}, "monitor once.csv --prob-col p --label-col label -o once.csv", "STREAM"),
]


@pytest.mark.parametrize(("setup", "command", "role"), OVERWRITES)
def test_output_equal_to_an_input_needs_force(setup, command, role, data, capsys):
    if "--plot" in command:
        pytest.importorskip("matplotlib")
    for name, source in setup.items():
        _copy(source, name)
    argv = shlex.split(command)
    target = argv[argv.index("--plot" if "--plot" in argv else "-o") + 1]
    before = Path(target).read_bytes()
    fails(capsys, command, rf"{re.escape(target)} is the input {role} .*--force allows it")
    assert Path(target).read_bytes() == before
    ok(capsys, command + " --force")
    assert Path(target).read_bytes() != before


def test_bad_plot_is_refused_before_printing(data, capsys):
    pytest.importorskip("matplotlib")
    fails(capsys, evaluate(options="--plot missing/d.png"), "does not exist")  # stdout empty


def test_demo_and_reproduce_check_their_outputs_first(data, capsys):
    if find_spec("matplotlib") is not None:
        fails(capsys, "demo --quick --plot no/dir/x.png", r"--plot no/dir/x\.png: the folder")
    code, out, err = run_cli(capsys, "reproduce vovk2015-adult-small --quick --out cal.csv")
    assert code == USAGE_ERROR
    assert "--out cal.csv: is a file" in err
    assert out == ""


def test_first_bad_batch_writes_nothing_to_stdout(data, capsys):
    fails(capsys, predict("cell0.csv", out="-"), "cannot parse 'abc'")
    fails(capsys, predict("ragged.csv", score="score", out="-"), r"row 2 has 3 field\(s\)")


# ------------------------------------------------------------------------- messages, help


def test_quiet_and_progress(data, capsys):
    assert ok(capsys, fit(options="--quiet")) == ("", "")
    _, err = ok(capsys, fit())  # stderr is not a terminal: no progress
    assert "reading" not in err
    assert "fitted ivap" in err
    _, err = ok(capsys, fit(options="--progress"))
    assert f"reading cal.csv: {N_CAL:,} rows (100%)" in err
    assert f"fitting ivap on {N_CAL:,} rows ... done" in err
    assert ok(capsys, fit(options="--progress --quiet")) == ("", "")
    _, err = ok(capsys, predict(model="x.json", options="--progress"))
    assert f"predicting test.csv: {N_TEST:,} rows (100%)" in err
    assert "\r" not in err  # not a terminal: plain lines


def test_help_says_which_class_p_is(capsys):
    for name in ("fit", "predict"):
        text = " ".join(ok(capsys, f"{name} --help")[0].split())
        assert "classes_[1]" in text or "second, larger one" in text
    assert "--pos-label" in ok(capsys, "evaluate --help")[0]


# -------------------------------------------------------------------------------- docs/cli.md


def test_docs_cli_examples(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    text = (DOCS / "cli.md").read_text("utf-8")
    commands = []
    for lang, body in re.findall(r"```(\w+)\n(.*?)```", text, flags=re.DOTALL):
        if lang == "python":
            exec(compile(body, "docs/cli.md", "exec"), {})  # noqa: S102 - the documented example
        elif lang == "console":
            for line in body.replace("\\\n", " ").splitlines():
                if not line.startswith("$ venncal "):
                    continue
                command = line[len("$ venncal ") :]
                if ".parquet" in command:
                    pytest.importorskip("pyarrow")
                if "--plot" in command:
                    pytest.importorskip("matplotlib")
                ok(capsys, command)
                commands.append(command.split()[0])
    assert commands.count("fit") >= 4
    assert "predict" in commands
    assert "evaluate" in commands
    assert Path("reliability.png").read_bytes()[:4] == b"\x89PNG"


# ------------------------------------------------------------------- edges of the table layer


def test_parquet_integer_weights_past_2_53(data, capsys):
    """Regression: an int64 weight past 2**53 was a traceback (pyarrow's safe cast).

    One a float64 cannot hold is refused naming its row, as the Python API
    refuses it (issue 22); one it holds is read exactly.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    s, y = [0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1]
    bad = pa.array([1, 2**53 + 1, 3, 2**53 - 1], pa.int64())
    pq.write_table(pa.table({"score": s, "y": y, "w": bad}), "bad.parquet")
    fails(capsys, fit("bad.parquet", "--weight-col w", method="isotonic", label="y",
                      out="bad.json"),
          r"column 'w', row 2: the integer 9007199254740993 is not a float64")
    with pytest.raises(ValueError, match="cannot hold exactly"):
        venncal.IsotonicCalibrator().fit(s, y, np.array(bad.to_pylist()))
    w = pa.array([1, 2**53 + 2, 3, 2**53 - 1], pa.int64())
    pq.write_table(pa.table({"score": s, "y": y, "w": w}), "w.parquet")
    ok(capsys, fit("w.parquet", "--weight-col w", method="isotonic", label="y", out="w.json"))
    expected = venncal.IsotonicCalibrator().fit(s, y, np.array(w.to_pylist()))
    assert persist.load("w.json").thresholds_.tobytes() == expected.thresholds_.tobytes()
    assert persist.load("w.json").values_.tobytes() == expected.values_.tobytes()


def _exact_auc(p, y, w):
    from fractions import Fraction

    pos = [(x, Fraction(v)) for x, t, v in zip(p, y, w, strict=True) if t]
    neg = [(x, Fraction(v)) for x, t, v in zip(p, y, w, strict=True) if not t]
    won = sum(a * b * (1 if x > z else Fraction(1, 2) if x == z else 0)
              for x, a in pos for z, b in neg)
    return won / (sum(a for _, a in pos) * sum(b for _, b in neg))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weights", [None, [1.0, 3.0], [1e-310, 1e-300], [1e306, 1e300, 1e295]])
def test_summary_auc_is_the_weighted_auc(seed, weights):
    """ScoreSummary.auc, which fit's below-chance warning uses: the weighted AUC, ties 1/2."""
    from venncal import ScoreSummary
    from venncal.metrics import roc_auc

    rng = np.random.default_rng(seed)
    n = 60
    p = (rng.integers(0, 10, n) / 10).tolist()  # ties
    y = (rng.random(n) < np.array(p)).tolist()
    y[:2] = [True, False]
    w = None if weights is None else rng.choice(weights, n).tolist()
    got = ScoreSummary.from_arrays(p, y, w).auc()
    assert got == pytest.approx(float(_exact_auc(p, y, w or [1.0] * n)), rel=1e-13, abs=1e-300)
    if weights is None or max(weights) < 1e300 and min(weights) > 1e-300:
        assert got == pytest.approx(roc_auc(y, p, sample_weight=w), rel=1e-13, abs=0.0)
    with pytest.raises(ValueError, match="both classes"):
        ScoreSummary.from_arrays(p, np.zeros(n, bool)).auc()


def test_summary_keeps_tied_weights_past_two_doubles_exactly():
    """1e306 + 1e300 + 1 needs more than two doubles: the summary keeps the exact sum (issue 22).

    It was refused, in some row orders only; since the whole-number sums take the
    exact path of the fractional ones, every order gives the same summary.
    """
    from fractions import Fraction

    from venncal import ScoreSummary

    w = [1e306, 1e300, 1.0, 1.0]
    exact = Fraction(1e306) + Fraction(1e300) + 1
    for order in ([0, 1, 2, 3], [2, 1, 0, 3], [1, 2, 0, 3]):
        summary = ScoreSummary.from_arrays(np.array([0.5, 0.5, 0.5, 0.2])[order],
                                           np.array([1, 1, 1, 0])[order], np.array(w)[order])
        assert summary._tail[0.5][0] == exact
        assert summary.positive_weights.tolist() == [0.0, float(exact)]
