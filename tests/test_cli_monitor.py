"""End-to-end tests of ``venncal monitor`` (the Jumper on a recorded stream, Vovk, Petej & Gammerman 2021)."""

from __future__ import annotations

import csv
import json
import warnings

import numpy as np
import pytest

from venncal.cli import main
from venncal.online import (
    JumperPredictor,
    MeanJumper,
    detect_changes,
    log10_factors,
    named,
    quadratic,
)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def stream(tmp_path_factory):
    """A drifting stream: the model overestimates, labels 'no'/'yes'."""
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 3000)
    y = np.where(rng.random(3000) < p**1.5, "yes", "no")
    path = tmp_path_factory.mktemp("monitor") / "stream.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["p", "y"])
        w.writerows(zip(p.tolist(), y, strict=True))
    return str(path), p, (y == "yes")


def test_numbers_equal_the_library(stream, capsys, tmp_path):
    path, p, y01 = stream
    steps = tmp_path / "steps.csv"
    code, out, err = run(
        capsys, "monitor", path, "--prob-col", "p", "--label-col", "y", "--json", "-o", str(steps),
        "--family", "quadratic",  # the default is shift+confidence since issue 26
    )
    assert code == 0, err
    s = json.loads(out)
    res = JumperPredictor(quadratic(), 0.01).run(p, y01)
    assert s["rows"] == 3000
    assert s["positive_label"] == "yes"
    assert s["final_log10_S"] == pytest.approx(res.log10_final, rel=1e-12)
    assert s["alarm"] == res.alarm(0.01)
    assert s["base"]["log10_loss"] - s["protected"]["log10_loss"] == pytest.approx(
        s["final_log10_S"], rel=1e-9
    )
    table = np.genfromtxt(steps, delimiter=",", names=True)
    np.testing.assert_array_equal(table["step"], np.arange(1, 3001))
    np.testing.assert_allclose(table["protected_p"], res.protected_proba, rtol=1e-15)
    np.testing.assert_allclose(table["log10_S"], res.log10_martingale, rtol=1e-15)


def test_block_by_block_equals_one_run(stream, capsys, monkeypatch):
    path, p, y01 = stream
    monkeypatch.setattr("venncal.online.monitoring.BATCH_ROWS", 700)
    code, out, _ = run(
        capsys,
        "monitor",
        path,
        "--prob-col",
        "p",
        "--label-col",
        "y",
        "--mean",
        "--json",
        "--progress",
        "--family",
        "quadratic",
    )
    assert code == 0
    whole = MeanJumper(quadratic()).run(p, y01)
    assert json.loads(out)["final_log10_S"] == whole.log10_final  # bit for bit


def test_options_text_output_and_positive_label(stream, capsys):
    path, _p, _y01 = stream
    code, out, _ = run(
        capsys,
        "monitor",
        path,
        "--prob-col",
        "p",
        "--label-col",
        "y",
        "--family",
        "cox",
        "--jump-rate",
        "0.1",
        "--clip",
        "0.1",
        "--alpha",
        "0.05",
        "--positive-label",
        "no",
    )
    assert code == 0
    assert "positive class 'no'" in out
    assert "family: cox, jump rate(s): 0.1" in out
    assert "alarm (S >= 1/0.05)" in out
    for line in ("decimal log loss (sum)", "Brier loss (mean)", "AUC"):
        assert line in out


def test_plot(stream, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path = stream[0]
    png = tmp_path / "m.png"
    code, _, err = run(
        capsys, "monitor", path, "--prob-col", "p", "--label-col", "y", "--plot", str(png)
    )
    assert code == 0, err
    assert png.read_bytes()[:4] == b"\x89PNG"


def _write(tmp_path, rows, name="t.csv"):
    path = tmp_path / name
    path.write_text("\n".join(rows) + "\n")
    return str(path)


ERRORS = [
    # (rows of the file, extra options, fragment of the one-line error)
    (["p,y", "0.2,0", "0.3,1"], ["--prob-col", "q"], "no column 'q'"),
    (["p,y", "0.2,0", "1.3,1"], [], "[0, 1]"),
    (["p,y", "0.2,0", "abc,1"], [], "row 2"),
    (["p,y", "0.2,0", "0.0,1"], [], "row 2: forecast 0 gave probability 0"),
    (["p,y", "0.2,0", "0.3,1", "0.4,2"], [], "exactly two classes"),
    (["p,y"], [], "no data rows"),
    (["p,y", "0.2,a", "0.3,b"], ["--positive-label", "c"], "--positive-label 'c'"),
]


@pytest.mark.parametrize(("rows", "extra", "message"), ERRORS)
def test_errors_are_one_line_and_exit_2(rows, extra, message, capsys, tmp_path):
    path = _write(tmp_path, rows)
    argv = ["monitor", path, "--prob-col", "p", "--label-col", "y"]
    if "--prob-col" in extra:
        argv[3] = extra[1]
        extra = []
    code, _, err = run(capsys, *argv, *extra)
    assert code == 2
    assert err.startswith("venncal monitor: error:")
    assert err.count("\n") == 1
    assert message in err


@pytest.mark.parametrize(
    "options",
    [
        ["--jump-rate", "0"],
        ["--jump-rate", "1.5"],
        ["--clip", "0.5"],
        ["--alpha", "1"],
        ["--family", "quartic"],
        ["--family", "quadratic+quartic"],
        ["--mean", "--jump-rate", "0.1"],
        ["--threshold", "1"],
        ["--threshold", "inf"],
        ["--changes", "page"],
    ],
)
def test_bad_options_are_usage_errors(options, capsys, tmp_path):
    path = _write(tmp_path, ["p,y", "0.2,0", "0.3,1"])
    code, _, err = run(capsys, "monitor", path, "--prob-col", "p", "--label-col", "y", *options)
    assert code == 2
    assert "usage:" in err


def test_missing_file(capsys, tmp_path):
    code, _, err = run(
        capsys, "monitor", str(tmp_path / "none.csv"), "--prob-col", "p", "--label-col", "y"
    )
    assert code == 2
    assert "no such file" in err


def test_clip_removes_the_infinite_loss(capsys, tmp_path):
    path = _write(tmp_path, ["p,y", "0.0,1", "1.0,0", "0.5,1"])
    code, out, err = run(
        capsys, "monitor", path, "--prob-col", "p", "--label-col", "y", "--clip", "0.1", "--json"
    )
    assert code == 0, err
    s = json.loads(out)
    assert s["clip"] == [0.1, 0.9]
    assert np.isfinite(s["final_log10_S"])


def test_steps_to_stdout_keep_the_summary_on_stderr(stream, capsys):
    code, out, err = run(
        capsys, "monitor", stream[0], "--prob-col", "p", "--label-col", "y", "-o", "-"
    )
    assert code == 0
    assert out.splitlines()[0] == "step,p,positive,protected_p,log10_S"
    assert len(out.splitlines()) == 3001
    assert "final log10 S" in err


def test_monitor_family_help_agrees_with_the_named_families():
    # The CLI keeps its own copy of the descriptions so that --help stays light.
    from venncal.cli._monitor import FAMILIES
    from venncal.online.families import NAMED

    assert FAMILIES == NAMED


@pytest.mark.parametrize("family", ["quadratic", "cubic", "cox", "cox2"])
def test_subnormal_forecast_gives_valid_json(family, capsys, tmp_path):
    # Issue 22: a forecast of 1e-310 made 1/q overflow; monitor printed a traceback or,
    # with --family cubic --json, exited 0 with -Infinity (invalid JSON).
    path = tmp_path / "s.csv"
    path.write_text("p,y\n0.3,1\n1e-310,1\n0.4,0\n0.6,1\n")
    code, out, err = run(capsys, "monitor", str(path), "--prob-col", "p", "--label-col", "y",
                         "--family", family, "--json")
    assert code == 0, err
    result = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert np.isfinite(result["final_log10_S"])
    # the protected forecasts' log loss is the base's minus log10 S
    assert result["protected"]["log10_loss"] == pytest.approx(
        result["base"]["log10_loss"] - result["final_log10_S"], rel=1e-12)


@pytest.mark.parametrize("family", ["quadratic", "cubic"])
def test_forecasts_at_the_ends_of_the_unit_interval_raise_no_numpy_warning(family, capsys,
                                                                         tmp_path):
    # attack 33 F5: a protected p' rounding to 1 (p = 1 - 2**-53, label 0) made the summary
    # take log10(0) before replacing it by the identity: numpy's "divide by zero" warning
    path = tmp_path / "e.csv"
    rows = [(0.3, 1), (1 - 2**-53, 0), (5e-324, 1), (0.7, 0), (1 - 2**-53, 0), (0.5, 1)] * 20
    path.write_text("p,y\n" + "".join(f"{p!r},{y}\n" for p, y in rows))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, out, err = run(capsys, "monitor", str(path), "--prob-col", "p", "--label-col", "y",
                             "--family", family, "--json")
    assert code == 0 and "Warning" not in err, err
    result = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert result["protected"]["log10_loss"] == pytest.approx(
        result["base"]["log10_loss"] - result["final_log10_S"], rel=1e-12)


def test_plot_marks_the_alarm_and_names_the_stream(stream, capsys, tmp_path, monkeypatch):
    # Issue 23: the monitor's plot did not mark the alarm step and had no title.
    pytest.importorskip("matplotlib")
    import venncal.plotting

    made = []
    real = venncal.plotting.figure

    def spy(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(venncal.plotting, "figure", spy)
    path, _, _ = stream
    code, out, err = run(capsys, "monitor", path, "--prob-col", "p", "--label-col", "y",
                         "--plot", str(tmp_path / "m.png"), "--json")
    assert code == 0, err
    alarm = json.loads(out)["alarm"]
    assert alarm is not None
    (fig,) = made
    assert fig._suptitle.get_text() == f"{path}: column 'p', positive class 'yes'"
    left = fig.axes[0]
    marks = [ln for ln in left.get_lines() if ln.get_label() == f"alarm at step {alarm:,}"]
    assert len(marks) == 1 and list(marks[0].get_xdata()) == [alarm, alarm]


@pytest.mark.parametrize(("rate", "ok"), [("1", True), ("0.5", True), ("0", False), ("1.0000001", False)])
def test_jump_rate_in_the_half_open_interval(rate, ok, capsys):
    # the message said (0, 1) while 1 was accepted (the help and the paper: (0, 1])
    from venncal.cli import build_parser

    if ok:
        assert build_parser().parse_args(["monitor", "x.csv", "--prob-col", "p", "--label-col",
                                          "y", "--jump-rate", rate]).jump_rate == float(rate)
    else:
        with pytest.raises(SystemExit):
            build_parser().parse_args(["monitor", "x.csv", "--prob-col", "p", "--label-col", "y",
                                       "--jump-rate", rate])
        assert "must lie in (0, 1]" in capsys.readouterr().err


# -- issue 26: the default family, change points ---------------------------------------


def _drift_stream(tmp_path, kind, seed=0, n=4601):
    """A confident model (logit ~ N(0, 3)) whose second half of labels drifts.

    ``"confidence"``: the truth is ``0.5 + 0.5 (p - 0.5)`` (issue 26's Spambase example,
    synthetic: Spambase is not among the shared data sets); ``"shift"``: ``p + 0.1``.
    """
    rng = np.random.default_rng(seed)
    p = 1 / (1 + np.exp(-rng.normal(0, 3, n)))
    truth = p.copy()
    late = np.arange(n) >= n // 2
    truth[late] = 0.5 + 0.5 * (p[late] - 0.5) if kind == "confidence" else np.minimum(
        p[late] + 0.1, 1.0)
    y = (rng.random(n) < truth).astype(int)
    path = tmp_path / f"{kind}.csv"
    path.write_text("p,y\n" + "".join(f"{a!r},{b}\n" for a, b in zip(p.tolist(), y.tolist(), strict=True)))
    return str(path), p, y == 1


@pytest.mark.parametrize("kind", ["confidence", "shift"])
def test_the_default_sees_confidence_and_shift_drifts(kind, capsys, tmp_path):
    path, p, y01 = _drift_stream(tmp_path, kind)
    code, out, err = run(capsys, "monitor", path, "--prob-col", "p", "--label-col", "y", "--json")
    assert code == 0, err
    s = json.loads(out)
    assert s["family"] == "shift+confidence"
    assert s["alarm"] is not None and s["alarm"] > 4601 // 2  # after the drift, no false alarm
    assert s["changes"]["alarms"] and min(s["changes"]["alarms"]) > 4601 // 2
    res = JumperPredictor(named("shift+confidence"), 0.01).run(p, y01)
    assert s["final_log10_S"] == res.log10_final
    if kind == "confidence":  # the paper's quadratic family alone does not see it
        assert JumperPredictor(quadratic(), 0.01).run(p, y01).alarm(0.01) is None


def test_change_points_in_text_and_json(stream, capsys):
    path, p, y01 = stream
    code, out, err = run(capsys, "monitor", path, "--prob-col", "p", "--label-col", "y",
                         "--json", "--changes", "shiryaev-roberts", "--threshold", "1e3")
    assert code == 0, err
    s = json.loads(out)
    res = JumperPredictor(named("shift+confidence"), 0.01).run(p, y01)
    want = detect_changes(log10_factors(res.log10_martingale), procedure="shiryaev-roberts",
                          threshold=1e3)
    assert s["changes"] == {"procedure": "shiryaev-roberts", "threshold": 1000.0,
                            "alarms": want.alarms.tolist()}
    code, out, _ = run(capsys, "monitor", path, "--prob-col", "p", "--label-col", "y")
    line = next(ln for ln in out.splitlines() if ln.startswith("change points"))
    cusum = detect_changes(log10_factors(res.log10_martingale), threshold=100.0).alarms
    assert line == "change points (cusum, threshold 100): " + ", ".join(f"{a:,}" for a in cusum)
    code, out, _ = run(capsys, "monitor", path, "--prob-col", "p", "--label-col", "y",
                       "--changes", "none", "--json")
    assert json.loads(out)["changes"] is None


def test_plot_marks_the_change_points(stream, capsys, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import venncal.plotting

    made = []
    real = venncal.plotting.figure
    monkeypatch.setattr(venncal.plotting, "figure",
                        lambda *a, **k: made.append(real(*a, **k)) or made[-1])
    path, _, _ = stream
    code, out, err = run(capsys, "monitor", path, "--prob-col", "p", "--label-col", "y",
                         "--plot", str(tmp_path / "m.png"), "--json")
    assert code == 0, err
    alarms = json.loads(out)["changes"]["alarms"]
    assert alarms
    (fig,) = made
    marks = [ln for ln in fig.axes[0].get_lines() if "change points" in ln.get_label()]
    assert len(marks) == 1 and list(marks[0].get_xdata()) == alarms


# -- --scores-only: the conformal test martingale of a score column, no labels ------------

@pytest.fixture(scope="module")
def score_stream(tmp_path_factory):
    rng = np.random.default_rng(5)
    s = np.r_[rng.random(2000), rng.random(800) + 0.4]
    path = tmp_path_factory.mktemp("scores") / "scores.csv"
    path.write_text("score\n" + "\n".join(map(str, s.tolist())) + "\n")
    return path, s


def test_scores_only_equals_the_library(score_stream, capsys, tmp_path):
    from venncal.online.monitoring import monitor_scores_only

    path, s = score_stream
    code, out, err = run(capsys, "monitor", str(path), "--prob-col", "score", "--scores-only",
                         "--json", "-o", str(tmp_path / "steps.csv"))
    assert code == 0, err
    got = json.loads(out)
    res, want = monitor_scores_only(s)
    assert got["final_log10_S"] == want["final_log10_S"]
    assert got["changes"]["alarms"] == want["changes"]["alarms"]
    assert got["alarm"] is not None and got["alarm"] > 2000  # after the shift
    with open(tmp_path / "steps.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["p_value"]) for r in rows] == res.pvalues.tolist()
    code, out, err = run(capsys, "monitor", str(path), "--prob-col", "score", "--scores-only",
                         "--nonconformity", "two-sided", "--changes", "none")
    assert code == 0 and "nonconformity: two-sided" in out and "change points" not in out


def test_scores_only_refusals_are_one_line(tmp_path, capsys):
    path = tmp_path / "edge.csv"
    path.write_text("score\n1e308\n-1e308\n1e-310\n0\n")
    code, out, err = run(capsys, "monitor", str(path), "--prob-col", "score", "--scores-only")
    assert code == 0, err  # any finite reals for "high"
    code, out, err = run(capsys, "monitor", str(path), "--prob-col", "score", "--scores-only",
                         "--nonconformity", "two-sided")
    assert code == 2 and "2**1022" in err and len(err.strip().splitlines()) == 1
    # the cell named by its row counted from 1, as the other messages, and the number plainly
    assert "got 1e+308 in row 1" in err and "np.float64" not in err and "score[" not in err


def test_an_absent_positive_class_is_a_number_beside_numbers(tmp_path, capsys):
    # "positive_label" in the JSON has the type of the labels (was the text "1")
    path = tmp_path / "zeros.csv"
    path.write_text("p,y\n0.1,0\n0.2,0\n0.3,0\n")
    code, out, err = run(capsys, "monitor", str(path), "--prob-col", "p", "--label-col", "y",
                         "--positive-label", "1", "--json")
    assert code == 0, err
    got = json.loads(out)["positive_label"]
    assert got == 1 and type(got) is int


def test_labels_are_required_without_scores_only(score_stream, capsys):
    path, _ = score_stream
    code, out, err = run(capsys, "monitor", str(path), "--prob-col", "score")
    assert code == 2 and "--label-col is required" in err and len(err.strip().splitlines()) == 1
