"""Reproductions of published calibration experiments (``venncal reproduce NAME``).

Each experiment is one module listed in :data:`EXPERIMENTS`, exposing

- ``run(*, quick, seed, jobs, data_dir, ..., echo)``: compute and return a result
  object whose ``info`` is a :class:`RunInfo` (further keyword arguments such as
  ``max_test_rows``, ``learners`` or ``datasets`` shrink the run, e.g. for tests);
  the options every experiment takes are written once, in
  :func:`~venncal.experiments._run.experiment_run`, which makes the experiment's
  computation on a :class:`~venncal.experiments._run.RunOptions` its ``run``;
- ``report(result, out_dir, *, command=None)``: write ``out_dir/report.md`` and its
  figures and return a :class:`Report` (the plain-text tables printed by the command
  line, and the files written).

The pure split logic shared by the experiments (proper training, calibration and test
rows, contiguous cross-validation folds, random hold-out splits) is in
:mod:`venncal.experiments._protocols` and is testable without any data; what the
reports share (:class:`~venncal.experiments._report.ReportDraft`: the header, the
figures and the file; number formatting; the paper-against-ours figure) is in
:mod:`venncal.experiments._report`. :mod:`venncal.experiments.demo` is the
``venncal demo`` computation and :mod:`venncal.experiments.naive_bayes` the Weka-like
naive Bayes learner of the reproductions. Heavy imports (scikit-learn, data) happen
inside ``run``.

To add an experiment, write ``venncal/experiments/<module>.py`` with ``run`` (decorated
with ``experiment_run``) and ``report`` (built in a ``ReportDraft``) and list it in
:data:`EXPERIMENTS`. Its
``--quick`` mode (``run(quick=True)``) must finish in under two minutes on two cores
with ``jobs=1`` and still write every table and figure, stating its smaller sizes in the
report; ``benchmarks/bench_reproduce.py`` times every experiment's ``--quick``.
"""

from __future__ import annotations

from typing import NamedTuple

from ._protocols import (
    RATIOS,
    AdultSmallRows,
    RatioRows,
    adult_small_rows,
    contiguous_folds,
    holdout_splits,
    ratio_rows,
)
from ._report import Report
from ._run import RunInfo

__all__ = [
    "EXPERIMENTS",
    "RATIOS",
    "AdultSmallRows",
    "Experiment",
    "RatioRows",
    "Report",
    "RunInfo",
    "adult_small_rows",
    "contiguous_folds",
    "holdout_splits",
    "ratio_rows",
]


class Experiment(NamedTuple):
    """One entry of the registry."""

    #: Module under ``venncal.experiments`` exposing ``run`` and ``report``.
    module: str
    #: One-line description (shown by ``venncal reproduce --list``).
    summary: str


#: The registry of reproducible experiments: name -> :class:`Experiment`.
EXPERIMENTS: dict[str, Experiment] = {
    "vovk2015-adult-small": Experiment(
        "vovk2015_adult_small",
        "Vovk, Petej & Fedorova 2015, Tables 1-2: six learners x "
        "Platt/IR/IVAP/CVAP on the first 5,000 adult training rows",
    ),
    "vovk2015-adult-ratios": Experiment(
        "vovk2015_adult_ratios",
        "Vovk, Petej & Fedorova 2015, Figures 1-2 and 13-14: adult, proper "
        "training : calibration ratios 1:9 ... 9:1 and all, raw learner and "
        "Platt/IR/IVAP/CVAP",
    ),
    "vovk2014-uci": Experiment(
        "vovk2014_uci",
        "Vovk & Petej 2014, Tables 1-3: nine small UCI data sets x six "
        "learners, W/VA/SVA/DIR over random 2/3-1/3 splits (needs --data-dir)",
    ),
    "naeini2016-simulated": Experiment(
        "naeini2016_simulated",
        "Naeini & Cooper 2016, Table I: linear and quadratic SVMs on "
        "simulated circular data, IsoReg/BBQ/ENIR, AUC/ACC/RMSE/ECE/MCE over 10 folds",
    ),
    "naeini2016-uci": Experiment(
        "naeini2016_uci",
        "Naeini & Cooper 2016, Tables III-VI: LR/SVM/NB x IsoReg/BBQ/ENIR on "
        "six of its UCI data sets, 10 x 10-fold CV, average ranks, Friedman + Holm, ENIR's "
        "gain (needs --data-dir)",
    ),
    "vovk2021-bank": Experiment(
        "vovk2021_bank",
        "Vovk, Petej & Gammerman 2021, section 5: the Jumper protecting a "
        "random forest on the Bank Marketing stream, Figures 2-4 (needs --data-dir)",
    ),
    "quantized-drift": Experiment(
        "quantized_drift",
        "Gokcesu & Gokcesu 2022, a demonstration: sliding-window quantized "
        "isotonic calibration of drifting streams (synthetic; Bank with --data-dir) against "
        "refitting scikit-learn's IsotonicRegression every N samples",
    ),
    "multiclass": Experiment(
        "multiclass_benchmark",
        "Issue 24's multiclass benchmark: iris, wine, digits (LR, naive Bayes, MLP logits) and "
        "synthetic logits; Venn-Abers OvR/OvO/CVAP against scikit-learn's sigmoid, isotonic "
        "and temperature (and venn-abers when installed)",
    ),
    "calibration-arena": Experiment(
        "calibration_arena",
        "Issue 25's calibration arena, reported like CalArena (Berta et al. 2026): every "
        "calibrator, chain and 'venncal recommends' over UCI/bundled sets x five models and "
        "synthetic logits (K = 2, 10, 100); mean ranks, win rates, times, the two targets",
    ),
}
