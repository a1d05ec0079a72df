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
    ("1e999", "'1e999' is not a finite number"),
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
    (fit("no-label.csv"), r"column 'label', row 2: empty cell"),
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
    (evaluate("one.csv", label="y"), "single class .*--pos-label"),
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
    assert not list(Path().glob(".*.part"))  # no temporary file left


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
