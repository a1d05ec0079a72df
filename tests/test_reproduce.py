"""Tests of ``venncal reproduce``, the vovk2015-adult-small experiment and the split logic."""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from venncal.cli import main
from venncal.experiments import EXPERIMENTS, Report, adult_small_rows, contiguous_folds
from venncal.experiments import vovk2015_adult_small as exp


def test_adult_small_rows():
    rows = adult_small_rows()
    assert rows.proper == range(4000)
    assert rows.calibration == range(4000, 5000)
    assert rows.training == range(5000)
    # the rest of the training file (32,561 rows) followed by the whole test file
    assert rows.test == range(5000, 32_561 + 16_281)
    assert len(rows.test) == 32_561 - 5000 + 16_281
    custom = adult_small_rows(6000, 10)
    assert custom.test == range(5000, 6010)
    with pytest.raises(ValueError, match="5,000 training rows"):
        adult_small_rows(4999, 10)


@pytest.mark.parametrize("n", [1, 5, 7, 10, 4999, 5000, 5003])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 10])
def test_contiguous_folds(n, k):
    if n < k:
        with pytest.raises(ValueError, match="non-empty folds"):
            contiguous_folds(n, k)
        return
    folds = contiguous_folds(n, k)
    assert len(folds) == k
    np.testing.assert_array_equal(np.concatenate(folds), np.arange(n))  # once each, in order
    sizes = [len(f) for f in folds]
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)  # ceil-sized folds first, as in the paper
    for f in folds:
        np.testing.assert_array_equal(np.diff(f), 1)  # contiguous


def test_contiguous_folds_of_the_paper():
    assert [len(f) for f in contiguous_folds(5000, 5)] == [1000] * 5
    assert [f[0] for f in contiguous_folds(5000, 5)] == [0, 1000, 2000, 3000, 4000]
    with pytest.raises(ValueError, match="at least 1"):
        contiguous_folds(5, 0)


def test_paper_values_come_from_the_packaged_tables():
    paper = exp.paper_values()
    assert set(paper) == set(exp.LOSSES)
    for loss in exp.LOSSES:
        assert tuple(paper[loss]) == exp.LEARNERS
        for row in paper[loss].values():
            assert len(row) == len(exp.METHODS)
    log, brier = paper["log loss"], paper["Brier loss"]
    assert all(math.isinf(row[1]) for row in log.values())  # IR: infinite log loss
    assert log["J48"] == (0.5226, math.inf, 0.5117, 0.5102)
    assert log["SVM"] == (0.5221, math.inf, 0.5015, 0.4997)
    assert brier["J48 bagging"] == (0.4225, 0.4153, 0.4123, 0.3990)
    assert brier["neural networks"] == (0.4525, 0.4574, 0.4440, 0.4234)
    # the paper's headline: CVAP best in every row of both tables
    for table in (log, brier):
        for row in table.values():
            assert row[3] == min(row)


def test_grids():
    for learner in exp.LEARNERS:
        full, quick = exp.grid(learner), exp.grid(learner, quick=True)
        assert 1 <= len(quick) <= len(full)
        assert all(len(setting) in (1, 2) for setting in full)


def test_unknown_learner():
    with pytest.raises(ValueError, match="unknown learners"):
        exp.run(learners=("RF",))


# ------------------------------------------------------------------------------ CLI


def test_unknown_experiment_is_a_usage_error(capsys):
    assert main(["reproduce", "no-such-experiment"]) == 2
    assert "unknown experiment" in capsys.readouterr().err


def test_missing_name_is_a_usage_error(capsys):
    assert main(["reproduce"]) == 2
    assert "--list" in capsys.readouterr().err


def test_bad_jobs_is_a_usage_error(capsys):
    assert main(["reproduce", "vovk2015-adult-small", "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_list_prints_the_registry(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [f"  {name}: {entry.summary}" for name, entry in EXPERIMENTS.items()]


def test_help_lists_the_experiments_and_no_hidden_options(capsys):
    assert main(["reproduce", "--help"]) == 0
    out = capsys.readouterr().out
    for name in EXPERIMENTS:
        assert name in out
    assert "--list" in out
    for hidden in ("--max-test-rows", "--datasets", "--learners", "--reps"):
        assert main(["reproduce", "vovk2015-adult-small", hidden, "1"]) == 2
        assert "unrecognized arguments" in capsys.readouterr().err


def test_registry_modules_have_run_and_report():
    for name, entry in EXPERIMENTS.items():
        module = importlib.import_module(f"venncal.experiments.{entry.module}")
        assert name == module.NAME  # the name its reports and RunInfo carry
        assert callable(module.run)
        assert callable(module.report)
        assert entry.summary


def test_every_run_takes_the_common_options_first_and_echo_last():
    import inspect

    for entry in EXPERIMENTS.values():
        module = importlib.import_module(f"venncal.experiments.{entry.module}")
        params = inspect.signature(module.run).parameters
        assert list(params)[:4] == ["quick", "seed", "jobs", "data_dir"], entry.module
        assert list(params)[-1] == "echo"
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())
        assert [params[k].default for k in ("quick", "seed", "jobs", "data_dir")] == [
            False, 0, 1, None
        ]
        assert module.run.__name__ == "run" and "Parameters" in module.run.__doc__
        with pytest.raises(TypeError, match="unexpected keyword argument 'no_such_option'"):
            module.run(no_such_option=1)
        with pytest.raises(TypeError):
            module.run(True)  # keyword-only, as before


def test_cli_dispatches_through_the_registry(monkeypatch, tmp_path, capsys):
    calls = {}

    def fake_run(**kwargs):
        calls["run"] = kwargs
        return SimpleNamespace(info=SimpleNamespace(seconds=1.5))

    def fake_report(result, out_dir, *, command=None):
        calls["report"] = out_dir
        return Report(text="TABLES", markdown=Path(out_dir) / "report.md")

    module = importlib.import_module("venncal.experiments.vovk2015_adult_small")
    monkeypatch.setattr(module, "run", fake_run)
    monkeypatch.setattr(module, "report", fake_report)
    argv = ["reproduce", "vovk2015-adult-small", "--quick", "--seed", "4", "--out", str(tmp_path)]
    assert main(argv) == 0
    assert calls["run"] == {
        "quick": True, "seed": 4, "jobs": 1, "data_dir": None, "echo": print,
    }  # fmt: skip
    assert calls["report"] == str(tmp_path)
    out = capsys.readouterr().out
    assert "TABLES" in out
    assert f"report written to {tmp_path / 'report.md'} (1.5 s)" in out


# ------------------------------------------------------------------------------ runs


def _check_report(result, out):
    written = exp.report(result, out)
    report = written.markdown.read_text(encoding="utf-8")
    assert written.markdown == out / "report.md"
    assert written.figures == (out / "adult-small-vs-paper.png",)
    assert written.figures[0].read_bytes().startswith(b"\x89PNG")
    assert "![ours against the paper's](adult-small-vs-paper.png)" in report
    for r in result.results:
        assert f"| {r.learner} |" in report
        assert r.learner in written.text
    for method in exp.METHODS:
        assert f"{method} ours" in report
        assert method in written.text
    assert "scikit-learn" in report
    assert "- command: `venncal reproduce vovk2015-adult-small --quick --seed 1 --jobs 1`" in report
    assert f"{result.n_test:,} of 43,842" in report
    # IVAP and CVAP log losses are finite in every row (ours, then the paper's, per method)
    rows = [line for line in report.splitlines() if line.startswith("| ")]
    log_rows = rows[: len(result.results) + 1][1:]
    for line in log_rows:
        cells = [c.strip().strip("*").replace(" ⚠", "").strip("*") for c in line.split("|")[1:-1]]
        ivap_ours, cvap_ours = cells[5], cells[7]
        assert math.isfinite(float(ivap_ours)), line
        assert math.isfinite(float(cvap_ours)), line


def test_run_and_report_smoke(tmp_path):
    # A fast end-to-end run: one learner, a few hundred test rows.
    result = exp.run(quick=True, seed=1, max_test_rows=300, learners=("naive Bayes",))
    assert result.n_test == 300
    assert result.n_test_total == 43_842
    assert result.info.experiment == "vovk2015-adult-small"
    (r,) = result.results
    for loss in exp.LOSSES:
        for method in ("Platt", "IVAP", "CVAP"):
            assert math.isfinite(r.losses[loss][method])
        assert 0 < r.losses["Brier loss"]["CVAP"] < 1
    _check_report(result, tmp_path / "out")


@pytest.mark.slow
def test_quick_run_of_every_learner(tmp_path):
    result = exp.run(quick=True, seed=1, max_test_rows=2000)
    assert [r.learner for r in result.results] == list(exp.LEARNERS)
    _check_report(result, tmp_path / "out")


# ------------------------------------------------------------------------ the report tail


def test_report_draft_header_facts_figures_and_file(tmp_path):
    from venncal.experiments import RunInfo
    from venncal.experiments._report import ReportDraft

    info = RunInfo("vovk2015-adult-small", quick=True, seed=2, jobs=1, seconds=3.25)
    out = tmp_path / "new" / "dir"
    draft = ReportDraft(info, out, "The protocol.", facts=["- rows: 7"])
    assert out.is_dir()  # created with the draft

    def draw(path):
        path.write_bytes(b"\x89PNG")
        return True

    assert draft.image("a.png", draw, "first")
    assert not draft.image("b.png", lambda path: False, "never drawn")  # no matplotlib
    assert draft.figure("c.png", draw) == out / "c.png"
    draft.md += ["## Section"]
    draft.text += ["line 1", "line 2"]
    written = draft.write()
    md = written.markdown.read_text(encoding="utf-8").splitlines()
    assert md[:3] == ["# Reproduction: vovk2015-adult-small (quick mode)", "", "The protocol."]
    assert "- command: `venncal reproduce vovk2015-adult-small --quick --seed 2 --jobs 1`" in md
    assert "- seed 2, jobs 1, runtime 3.2 s" in md
    assert md[md.index("- rows: 7") :] == ["- rows: 7", "", "![first](a.png)", "", "## Section"]
    assert written.figures == (out / "a.png", out / "c.png")
    assert not (out / "b.png").exists()
    assert written.text == "line 1\nline 2"


def test_report_draft_without_facts_and_with_a_command(tmp_path):
    from venncal.experiments import RunInfo
    from venncal.experiments._report import ReportDraft

    info = RunInfo("naeini2016-uci", quick=False, seed=0, jobs=2, seconds=1.0)
    written = ReportDraft(info, tmp_path, "P.", command="venncal reproduce X --jobs 2").write()
    md = written.markdown.read_text(encoding="utf-8").splitlines()
    assert md[0] == "# Reproduction: naeini2016-uci (full mode)"
    assert md[-1].startswith("- seed 0, jobs 2, runtime")  # no facts: the header ends it
    assert "- command: `venncal reproduce X --jobs 2`" in md
    assert written.figures == ()
    assert written.text == ""
