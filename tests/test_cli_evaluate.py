"""End-to-end tests of ``venncal evaluate`` comparing columns (issue 10, items 1 and 6).

Several ``--prob-col`` in one table, one JSON object and one plot; ``--log-base`` and
its unit; ``--min-bin-count``; ``--roc``; plot paths refused before anything is read
or printed; one role per column; ``--positive-label`` (``--pos-label`` kept hidden)
and the warning when the probabilities rank the positive class below chance.
Commands are typed as a user would (``shlex``); the error cases are rows of tables.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import shlex
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

import venncal.plotting
from venncal.cli import main
from venncal.metrics import evaluate as library_evaluate
from venncal.metrics import evaluations_json, mce

USAGE_ERROR = 2
needs_matplotlib = pytest.mark.skipif(find_spec("matplotlib") is None, reason="needs matplotlib")
PNG = b"\x89PNG\r\n\x1a\n"


def run(capsys, command: str) -> tuple[int, str, str]:
    code = main(shlex.split(command))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def ok(capsys, command: str) -> tuple[str, str]:
    code, out, err = run(capsys, command)
    assert code == 0, err
    return out, err


def fails(capsys, command: str, match: str) -> str:
    code, out, err = run(capsys, command)
    assert code == USAGE_ERROR, (code, out, err)
    assert re.search(match, err), err
    assert len([line for line in err.splitlines() if "error:" in line]) == 1, err
    assert out == ""  # nothing on stdout
    return err


@pytest.fixture(scope="module")
def arrays():
    """p calibrated, q overconfident, r = 1 - p (ranks 'yes' below chance); a lone row at 0.97."""
    rng = np.random.default_rng(5)
    p = np.r_[rng.uniform(0.05, 0.85, 1200), 0.97]
    y = np.where(rng.random(p.size) < p, "yes", "no")
    y[-1] = "no"
    q = np.clip(0.5 + 1.6 * (p - 0.5), 0.0, 1.0)
    return {
        "p": p,
        "q": q,
        "r": 1.0 - p,
        "p0": 0.9 * p,
        "p1": 0.9 * p + 0.1,
        "w": rng.integers(1, 4, p.size).astype(float),
        "label": y,
    }


@pytest.fixture(scope="module")
def folder(tmp_path_factory, arrays):
    d = tmp_path_factory.mktemp("evaluate")
    names = list(arrays)
    rows = list(zip(*(arrays[n].tolist() for n in names), strict=True))
    for name in ("scores.csv", "scores.png"):  # the second: a table whose name is an image's
        with open(d / name, "w", newline="") as f:
            out = csv.writer(f)
            out.writerow(names)
            out.writerows(rows)
    (d / "one.csv").write_text("p,y\n0.9,x\n0.2,x\n")
    return d


@pytest.fixture
def here(folder, tmp_path, monkeypatch):
    """Run in an empty folder; the data are in ``folder``."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def ev(options: str = "", *, data: str = "scores.csv", probs=("p",), folder=None) -> str:
    cols = " ".join(f"--prob-col {c}" for c in probs)
    path = os.path.join(folder, data) if folder is not None else data
    return f"evaluate {path} {cols} --label-col label {options}"


def library(arrays, cols, **kw):
    y01 = arrays["label"] == "yes"
    return {c: library_evaluate(y01, arrays[c], **kw) for c in cols}


# ----------------------------------------------------------------------- several columns


def test_several_prob_cols_make_one_table(folder, here, arrays, capsys):
    out, err = ok(capsys, ev(probs=("p", "q", "r"), folder=folder))
    lines = [line for line in out.splitlines() if not line.startswith("note")]
    assert lines[0].split() == ["metric", "p", "q", "r"]
    expected = library(arrays, "pqr")
    assert [line.split()[0] for line in lines[1:]] == list(expected["p"])
    assert lines[1].split()[:2] == ["log_loss", "(nats)"]
    for line in lines[1:]:
        metric = line.split()[0]
        values = line.split()[-3:]
        assert values == [f"{expected[c][metric]:.4f}" for c in "pqr"], metric
    assert f"{arrays['p'].size:,} rows, positive class 'yes'" in err


@pytest.mark.parametrize(
    ("probs", "options", "shape"),
    [
        (("p",), "--json", "flat"),  # one column: the object of one Evaluation, as before
        (("p", "q"), "--json", "keyed"),
        (("q", "p", "r"), "--json --bins 5 --strategy quantile", "keyed"),
        (("p",), "--json --p0-col p0 --p1-col p1", "flat"),
        (("p", "q"), "--json --weight-col w --log-base 10", "keyed"),
    ],
)
def test_json(probs, options, shape, folder, here, arrays, capsys):
    out, _ = ok(capsys, ev(options, probs=probs, folder=folder))
    data = json.loads(out)
    argv = shlex.split(options)
    kw = {"base": {"e": "e", "2": 2, "10": 10}[argv[argv.index("--log-base") + 1]]
          if "--log-base" in argv else "e"}
    if "--bins" in argv:
        kw.update(n_bins=5, strategy="quantile")
    if "--weight-col" in argv:
        kw["sample_weight"] = arrays["w"]
    if "--p0-col" in argv:
        kw["interval"] = np.c_[arrays["p0"], arrays["p1"]]
    expected = library(arrays, probs, **kw)
    if shape == "flat":
        assert data == json.loads(expected[probs[0]].to_json())
    else:
        assert list(data) == list(probs)
        assert data == json.loads(evaluations_json(expected))


@pytest.mark.parametrize(
    ("base", "unit", "factor"),
    [
        ("", "nats", 1.0),
        ("e", "nats", 1.0),
        ("2", "bits", math.log(2)),
        ("10", "log10", math.log(10)),
    ],
)
def test_log_base_values_and_unit(base, unit, factor, folder, here, arrays, capsys):
    option = f"--log-base {base}" if base else ""
    out, _ = ok(capsys, ev(option, folder=folder))
    row = out.splitlines()[1].split()
    assert row[:2] == ["log_loss", f"({unit})"]
    nats = library(arrays, "p")["p"]["log_loss"]
    assert float(row[2]) == pytest.approx(nats / factor, abs=5e-5)
    out, _ = ok(capsys, ev(f"{option} --json", folder=folder))
    assert json.loads(out)["log_loss"] == pytest.approx(nats / factor, rel=1e-14, abs=0.0)


def test_min_bin_count_leaves_small_bins_out_of_the_mce(folder, here, arrays, capsys):
    y01 = arrays["label"] == "yes"
    out, err = ok(capsys, ev("--json", probs=("p", "q"), folder=folder))
    data = json.loads(out)
    # The lone row in [0.9, 1] (label 'no' at 0.97) drives the MCE of p
    assert data["p"]["mce"] == pytest.approx(0.97)
    assert "MCE leaves out" not in err
    out, err = ok(capsys, ev("--json --min-bin-count 5", probs=("p", "q"), folder=folder))
    data = json.loads(out)
    for c in "pq":
        assert data[c]["mce"] == mce(y01, arrays[c], min_bin_count=5)
        assert data[c]["ece"] == library(arrays, c)[c]["ece"]  # ECE keeps every bin
    assert data["p"]["mce"] < 0.2
    assert "column 'p': the MCE leaves out 1 of 10 non-empty bins holding fewer than 5 rows: " \
        "[0.9, 1] with 1" in err
    out, err = ok(capsys, ev("--json --min-bin-count 1e9", folder=folder))
    assert json.loads(out)["mce"] == "nan"  # every bin left out
    assert "leaves out 10 of 10 non-empty bins" in err


@needs_matplotlib
def test_plot_and_roc_written_with_one_curve_per_column(folder, here, capsys, monkeypatch):
    drawn = {}

    def spy(name):
        real = getattr(venncal.plotting, name)

        def wrapper(*args, **kwargs):
            drawn[name] = ax = real(*args, **kwargs)
            return ax

        monkeypatch.setattr(venncal.plotting, name, wrapper)

    spy("reliability_diagram")
    spy("roc_curve")
    command = ev("--plot out/rel.png --roc roc.svg --min-bin-count 5", probs=("p", "q", "r"),
                 folder=folder)
    (here / "out").mkdir()
    out, err = ok(capsys, command)
    assert out.splitlines()[0].split() == ["metric", "p", "q", "r"]
    assert (here / "out" / "rel.png").read_bytes()[:8] == PNG
    assert b"<svg" in (here / "roc.svg").read_bytes()[:400]
    assert "reliability diagram written to out/rel.png" in err
    assert "ROC curves written to roc.svg" in err
    legend = [t.get_text() for t in drawn["reliability_diagram"].get_legend().get_texts()]
    assert legend[:4] == ["perfectly calibrated", "p", "q", "r"]
    assert "fewer than 5 rows (not in the MCE)" in legend
    roc_legend = [t.get_text() for t in drawn["roc_curve"].get_legend().get_texts()]
    assert [t.split(" (AUC")[0] for t in roc_legend] == ["chance", "p", "q", "r"]


# -------------------------------------------------------------- refused before any work

PLOT_PATHS = [
    ("--plot missing/rel.png", r"--plot missing/rel\.png: the folder \S*missing does not exist"),
    ("--roc missing/roc.png", r"--roc missing/roc\.png: the folder \S*missing does not exist"),
    ("--plot sub", r"--plot sub: is a directory; give a file name"),
    ("--plot rel", r"--plot rel: no file extension .* name it rel\.png"),
    (
        "--plot rel.xlsx",
        (
            r"--plot rel\.xlsx: the image format follows the extension; use one of "
            r".*\.png"
        ),
    ),
    ("--plot -", "--plot: give a file name, not -"),
    ("--plot same.png --roc ./same.png", r"--plot and --roc name the same file \./same\.png"),
]


@needs_matplotlib
@pytest.mark.parametrize(("options", "match"), PLOT_PATHS)
def test_bad_plot_paths_are_refused_first(options, match, folder, here, capsys):
    (here / "sub").mkdir()
    before = sorted(os.listdir(here))
    fails(capsys, ev(options, folder=folder), match)  # nothing on stdout
    assert sorted(os.listdir(here)) == before  # nothing written
    # Checked before the data are opened: a missing input is not reached.
    fails(capsys, ev(options, data="no-such.csv"), match)


@needs_matplotlib
def test_plot_over_the_input_is_refused(folder, here, capsys):
    data = folder / "scores.png"
    size = data.stat().st_size
    fails(capsys, f"evaluate {data} --prob-col p --label-col label --plot {data}", "is the input")
    assert data.stat().st_size == size


@needs_matplotlib
def test_plot_into_a_read_only_folder_is_refused(folder, here, capsys, monkeypatch):
    # os.access stands in for a chmod, which root (as in some CI containers) ignores.
    (here / "locked").mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p).name != "locked" and real(p, mode))
    fails(capsys, ev("--plot locked/rel.png", folder=folder), r"folder \S*locked is not writable")
    assert not (here / "locked" / "rel.png").exists()


@needs_matplotlib
def test_roc_of_a_single_class_fails_before_the_table(folder, here, capsys):
    command = f"evaluate {folder / 'one.csv'} --prob-col p --label-col y --positive-label x"
    command += " --roc r.png"
    fails(capsys, command, "--roc: cannot draw the ROC curves")
    assert not Path("r.png").exists()


OPTION_ERRORS = [
    # one role per column
    (
        "--prob-col p --label-col p",
        (
            "--prob-col and --label-col both name the column 'p'; "
            "a column can play one role"
        ),
    ),
    ("--prob-col p --prob-col p --label-col label", "--prob-col names the column 'p' twice"),
    ("--prob-col p --label-col label --weight-col label",
     "--label-col and --weight-col both name the column 'label'"),
    ("--prob-col p --label-col label --p0-col p --p1-col p1",
     "--prob-col and --p0-col both name the column 'p'"),
    # the interval belongs to one column
    ("--prob-col p --prob-col q --label-col label --p0-col p0 --p1-col p1",
     "--p0-col and --p1-col are the interval of a single --prob-col; got 2"),
    # the positive class, once
    ("--prob-col p --label-col label --positive-label yes --pos-label yes",
     "give the positive class once: --positive-label"),
    # values
    ("--prob-col p --label-col label --log-base 3", r"argument --log-base: invalid choice: '3'"),
    ("--prob-col p --label-col label --min-bin-count -1", "expected a number >= 0, got '-1'"),
    ("--prob-col p --label-col label --min-bin-count nan", "expected a number >= 0"),
]


@pytest.mark.parametrize(("options", "match"), OPTION_ERRORS)
def test_option_errors(options, match, folder, here, capsys):
    fails(capsys, f"evaluate {folder / 'scores.csv'} {options}", match)
    fails(capsys, f"evaluate no-such.csv {options}", match)  # before the data are opened


# ------------------------------------------------------------------------ positive class


@pytest.mark.parametrize(
    ("option", "deprecated"),
    [("--positive-label no", False), ("--pos-label no", True)],
)
def test_positive_label_and_its_old_spelling(option, deprecated, folder, here, arrays, capsys):
    out, err = ok(capsys, ev(f"{option} --json", folder=folder))
    y01 = arrays["label"] == "no"
    assert json.loads(out) == json.loads(library_evaluate(y01, arrays["p"]).to_json())
    assert "positive class 'no'" in err
    assert ("--pos-label is deprecated; use --positive-label" in err) == deprecated


def test_old_spelling_names_itself_in_errors_and_help_shows_the_new(folder, capsys):
    fails(capsys, ev("--pos-label maybe", folder=folder),
          r"--pos-label 'maybe' is not one of the labels \['no', 'yes'\]")
    fails(capsys, ev("--positive-label maybe", folder=folder),
          r"--positive-label 'maybe' is not one of the labels")
    # the replacement of tests/test_cli.py's single-class row: the advice names the new option
    fails(capsys, f"evaluate {folder / 'one.csv'} --prob-col p --label-col y",
          "single class .*name the positive class with --positive-label$")
    out, _ = ok(capsys, "evaluate --help")
    usage = out.split("\n\n")[0]
    assert "--positive-label" in usage
    assert "--pos-label" not in usage  # hidden from the usage; the help text mentions it
    assert "--pos-label is its deprecated spelling" in " ".join(out.split())


def test_an_absent_positive_class_takes_the_type_of_the_labels(tmp_path, capsys):
    # numbers beside numbers (as fit's classes_for types it), text beside text; else refused
    (tmp_path / "n.csv").write_text("p,y\n0.1,0\n0.7,0\n")
    (tmp_path / "t.csv").write_text("p,y\n0.1,a\n0.7,a\n")
    (tmp_path / "b.csv").write_text("p,y\n0.1,true\n0.7,true\n")
    _, err = ok(capsys, f"evaluate {tmp_path / 'n.csv'} --prob-col p --label-col y "
                        "--positive-label 1")
    assert "positive class 1 (0 rows)" in err
    _, err = ok(capsys, f"evaluate {tmp_path / 't.csv'} --prob-col p --label-col y "
                        "--positive-label 1")
    assert "positive class '1' (0 rows)" in err
    _, err = ok(capsys, f"evaluate {tmp_path / 'b.csv'} --prob-col p --label-col y "
                        "--positive-label FALSE")
    assert "positive class False (0 rows)" in err
    fails(capsys, f"evaluate {tmp_path / 'n.csv'} --prob-col p --label-col y --positive-label x",
          r"column 'y': --positive-label 'x' is not a number, but the labels are numbers$")
    fails(capsys, f"evaluate {tmp_path / 'b.csv'} --prob-col p --label-col y --positive-label 1",
          r"--positive-label '1' is not true or false, but the labels are$")


@pytest.mark.parametrize(
    ("options", "warned"),
    [
        ("", ["r"]),
        ("--positive-label no", ["p", "q"]),
        # kept with --quiet, as fit keeps it (attack 34 F1: labels 1/2 and p of class 1 gave
        # every metric against class 2, exit 0, not a word)
        ("-q", ["r"]),
    ],
)
def test_warning_when_ranked_below_chance(options, warned, folder, here, capsys):
    out, err = ok(capsys, ev(options, probs=("p", "q", "r"), folder=folder))
    assert out.splitlines()[0].split() == ["metric", "p", "q", "r"]
    found = re.findall(r"warning: column '(\w)' ranks the positive class '(\w+)' below chance "
                       r"\(AUC 0\.\d{3}\); if '(\w+)' is the positive class, give "
                       r"--positive-label (\w+)", err)
    assert [c for c, *_ in found] == warned
    for _, positive, other, advice in found:
        assert {positive, other} == {"yes", "no"}
        assert advice == other


def test_single_class_gives_no_auc_warning(folder, here, capsys):
    out, err = ok(capsys, f"evaluate {folder / 'one.csv'} --prob-col p --label-col y "
                          "--positive-label x --json")
    assert json.loads(out)["auc"] == "nan"
    assert "below chance" not in err


@pytest.mark.parametrize("command", ["evaluate", "monitor"])
def test_a_single_class_needs_the_positive_label(command, tmp_path, capsys):
    # a fresh attack (issue 22): labels coded 1/2 with only 1s present were read as
    # {0, 1} with 1 positive (log loss inf, accuracy 0, exit 0) while fit refused them
    path = tmp_path / "one.csv"
    path.write_text("p,label\n0.1,1\n0.2,1\n0.3,1\n", encoding="utf-8")
    argv = [command, str(path), "--prob-col", "p", "--label-col", "label", "-q"]
    if command == "monitor":
        argv += ["-o", str(tmp_path / "m.csv")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "single class (1)" in err and "--positive-label" in err
    assert main([*argv, "--positive-label", "2", "--force"]) == 0


# --------------------------------------------------------------- diagnostics and bootstrap


def test_diagnostics_and_bootstrap_are_the_library_keys(folder, here, arrays, capsys):
    command = ev("--json --weight-col w --diagnostics --bootstrap 30", probs=("p", "q"),
                 folder=folder)
    out, _ = ok(capsys, command)
    expected = library(arrays, "pq", sample_weight=arrays["w"], diagnostics=True, bootstrap=30)
    assert json.loads(out) == json.loads(evaluations_json(expected))
    assert {"spiegelhalter_z", "calibration_slope", "kuiper_p", "smooth_ece",
            "log_loss_low", "smooth_ece_high"} <= set(json.loads(out)["p"])
    out, _ = ok(capsys, ev("--diagnostics", folder=folder))  # the table: new rows at the end
    rows = [line.split()[0] for line in out.splitlines()[1:]]
    assert rows[:7] == ["log_loss", "brier", "rmse", "ece", "mce", "auc", "accuracy"]
    assert rows[7:] == ["spiegelhalter_z", "spiegelhalter_p", "calibration_slope",
                        "calibration_intercept", "ks", "ks_p", "kuiper", "kuiper_p",
                        "smooth_ece"]


def test_multiclass_diagnostics(here, capsys):
    from venncal.metrics import evaluate_multiclass

    rng = np.random.default_rng(9)
    proba = rng.dirichlet([1.0, 1.0, 1.0], size=200)
    y = np.array([rng.choice(["a", "b", "c"], p=row) for row in proba])
    with open("k.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["a", "b", "c", "label"])
        out.writerows([[*map(repr, row.tolist()), str(lab)] for row, lab in zip(proba, y,
                                                                              strict=True)])
    out, _ = ok(capsys, "evaluate k.csv --prob-cols a,b,c --label-col label --json "
                "--diagnostics --bootstrap 10")
    want = evaluate_multiclass(y, proba, diagnostics=True, bootstrap=10)  # repr: exact
    assert json.loads(out) == json.loads(want.to_json())
    assert "top_label_smooth_ece" in json.loads(out)


def test_bootstrap_needs_a_positive_count(folder, here, capsys):
    fails(capsys, ev("--bootstrap 0", folder=folder), "--bootstrap")


def test_an_infinite_log_loss_is_explained(tmp_path, capsys):
    # the new-user check (issue 22): weights of 1e20 on one class make predict write p = 1
    # (the double nearest 1 - 1e-20); evaluate printed log loss inf and nothing else
    path = tmp_path / "sure.csv"
    path.write_text("p,label\n1.0,no\n0.0,yes\n0.0,yes\n0.7,yes\n0.2,no\n", encoding="utf-8")
    out = run(capsys, f"evaluate {path} --prob-col p --label-col label --positive-label yes")[1]
    assert "inf" in out.splitlines()[1]
    assert out.rstrip().splitlines()[-1] == (
        "note: log_loss is infinite: 3 rows forecast probability 0 for the class observed "
        "(1 with p = 1 and a negative label; 2 with p = 0 and a positive label)")


def test_a_label_outside_classes_is_named_by_its_table_row(here, capsys):
    # attack 30 F2: "at index 5" (from 0) where a bad cell of the same data row said "row 6"
    with open("k7.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["a", "b", "label"])
        out.writerows([["0.5", "0.5", lab] for lab in ["0", "1", "0", "1", "0", "7", "1"]])
    fails(capsys, "evaluate k7.csv --prob-cols a,b --label-col label --classes 0,1",
          r"label 7 \(in row 6\) that is not in classes")
