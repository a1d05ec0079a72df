"""Vovk, Petej & Fedorova 2015, Tables 1-2: the small adult experiment.

The paper: V. Vovk, I. Petej and V. Fedorova, *Large-scale probabilistic predictors with
and without guarantees of validity*, NeurIPS 2015 (long version: *Large-scale
probabilistic prediction with and without validity guarantees*).

Protocol (section 6): the first 5,000 adult training rows are the training set; rows
1-4,000 are the proper training set and rows 4,001-5,000 the calibration set for Platt,
isotonic regression (IR) and the IVAP; CVAP uses 5 contiguous folds over the 5,000 rows;
the test set is every other row (the rest of the training file and the whole test
file). Each learner's parameters are chosen from a small grid by minimising the Brier
loss on the calibration set (for CVAP: the cumulative Brier loss over the 5 held-out
folds, so that the same parameters are used for all folds). Losses: mean log loss in
base 2 and mean Brier loss ``4 (y - p)**2`` (the paper's scaling, so that always
predicting 1/2 costs 1 under both).

The learners, their grids and the selection criterion are in
:mod:`venncal.experiments._adult` (scikit-learn stand-ins for the paper's Weka learners,
so the numbers are not expected to match to the digit). :func:`run` computes,
:func:`report` writes ``report.md`` and a figure of our losses against the paper's.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from ._adult import (
    LEARNERS,
    LOSSES,
    MLP_EPOCHS,
    QUICK_TEST_ROWS,
    STAND_INS,
    check_learners,
    fit_learner,
    grid,
    grid_text,
    learner_scores,
    load_adult_rows,
    selection_loss,
    subsample,
)
from ._protocols import AdultSmallRows, adult_small_rows, contiguous_folds
from ._report import Report, ReportDraft, fmt_loss, scatter_vs_paper
from ._run import RunInfo, RunOptions, experiment_run

__all__ = [
    "LEARNERS",
    "LOSSES",
    "METHODS",
    "QUICK_TEST_ROWS",
    "AdultSmallResult",
    "LearnerResult",
    "grid",
    "paper_values",
    "report",
    "run",
    "run_learner",
]

METHODS = ("Platt", "IR", "IVAP", "CVAP")
N_FOLDS = 5
NAME = "vovk2015-adult-small"

_PROTOCOL = (
    "Vovk, Petej & Fedorova, *Large-scale probabilistic predictors with and without "
    "guarantees of validity* (NeurIPS 2015), section 6, Tables 1 (log loss) and 2 "
    "(Brier loss): the first 5,000 adult training rows (rows 1-4,000 proper training, "
    "4,001-5,000 calibration; CVAP: 5 contiguous folds over the 5,000 rows); test set "
    "= the rest of the training file and the whole test file. Mean log loss in base 2; "
    "mean Brier loss 4(y-p)^2 (the paper's scaling: predicting 1/2 costs 1)."
)
_READING = (
    "The learners are scikit-learn stand-ins for the paper's Weka learners, so equal "
    "numbers are not expected. Cells: ours, then the paper's; **bold** marks the best "
    "method of the row; ⚠ after a ranking marks a row whose method ranking differs from "
    "the paper's, ⚠ after a loss marks a finite/infinite mismatch with the paper."
)
_TUNING = (
    " Parameters minimise "
    "the Brier loss of the learner's own probabilities on the calibration set (CVAP: "
    "cumulative over the 5 held-out folds); for the SVM, of a Platt sigmoid fitted on "
    "those same rows. Platt = PlattCalibrator, IR = IsotonicCalibrator(interpolation="
    "'nearest'), IVAP = VennAbersCalibrator(merge='log'), CVAP = merge_folds(..., "
    "merge='log')."
)


def paper_values() -> dict[str, dict[str, tuple[float, ...]]]:
    """Return the paper's Tables 1-2 as ``loss -> learner -> values of METHODS``.

    Read from :func:`venncal.datasets.paper_tables` ``("000")``; infinity is ``math.inf``.

    Examples
    --------
    >>> paper_values()["log loss"]["J48"]
    (0.5226, inf, 0.5117, 0.5102)
    """
    from ..datasets import paper_tables

    t = paper_tables("000")
    return {
        loss: {
            learner: tuple(math.inf if v == "inf" else v for v in cells.values())
            for learner, cells in t[key].items()
        }
        for loss, key in zip(LOSSES, ("table1", "table2"), strict=True)
    }


# ------------------------------------------------------------------------------ running


@dataclass
class LearnerResult:
    """Measured losses of one learner under the four calibration methods."""

    learner: str
    #: loss name -> method -> mean loss on the test set
    losses: dict[str, dict[str, float]]
    #: parameters chosen for Platt/IR/IVAP (calibration set) and for CVAP (folds)
    params: dict[str, dict]
    #: number of ConvergenceWarnings raised while fitting (recorded, not hidden)
    convergence_warnings: int = 0
    seconds: float = 0.0


@dataclass
class AdultSmallResult:
    """Everything :func:`run` measured, as :func:`report` needs it."""

    info: RunInfo
    #: One result per learner, in the order asked for.
    results: list[LearnerResult]
    #: Test rows used, and available.
    n_test: int
    n_test_total: int


def _calibration_set_predictions(learner, X, y, proper, cal, X_test, seed, quick, counter, groups):
    """Platt, IR and IVAP on one model fitted on the proper training set.

    Returns the predictions, the parameters chosen on the calibration set, and
    every setting's ``(model, calibration scores)`` keyed by :func:`_key` (the
    last CVAP fold is this very split, so CVAP takes its fits from there).
    """
    from ..baselines import IsotonicCalibrator, PlattCalibrator
    from ..venn_abers import VennAbersCalibrator

    best = (np.inf, None, None)
    fits = {}
    for params in grid(learner, quick):
        model = fit_learner(learner, params, seed, quick, X[proper], y[proper], counter, groups)
        s_cal = learner_scores(model, X[cal])
        fits[_key(params)] = (model, s_cal)
        loss = selection_loss(learner, s_cal, y[cal])
        if loss < best[0]:
            best = (loss, params, (model, s_cal))
    _, chosen, (model, s_cal) = best
    s_test = learner_scores(model, X_test)
    y_cal = y[cal]
    preds = {
        "Platt": PlattCalibrator().fit(s_cal, y_cal).predict_proba(s_test)[:, 1],
        "IR": IsotonicCalibrator(interpolation="nearest")
        .fit(s_cal, y_cal)
        .predict_proba(s_test)[:, 1],
        "IVAP": VennAbersCalibrator(merge="log").fit(s_cal, y_cal).predict_proba(s_test)[:, 1],
    }
    return preds, chosen, fits


def _key(params: dict) -> tuple:
    return tuple(sorted(params.items()))


def _cvap_predictions(learner, X, y, train, X_test, seed, quick, counter, groups, split):
    """CVAP over K contiguous folds of the training rows, parameters by cumulative loss.

    ``split`` is ``(proper, calibration, fits)`` of the calibration-set run: a
    fold whose rows are exactly that split reuses its fits (same rows, same
    seed: the same model) instead of fitting them again.  Returns the
    log-merged CVAP predictions and the chosen parameters.
    """
    from ..venn_abers import VennAbersCalibrator, merge_folds

    proper, cal, fits = split
    folds = [train[f] for f in contiguous_folds(len(train), N_FOLDS)]
    best_cv = (np.inf, None, None)
    for params in grid(learner, quick):
        loss, fitted = 0.0, []
        for k, held in enumerate(folds):
            rest = np.concatenate([f for j, f in enumerate(folds) if j != k])
            if np.array_equal(rest, proper) and np.array_equal(held, cal):
                m, s_held = fits[_key(params)]
            else:
                m = fit_learner(learner, params, seed, quick, X[rest], y[rest], counter, groups)
                s_held = learner_scores(m, X[held])
            loss += selection_loss(learner, s_held, y[held])
            fitted.append((m, s_held, held))
        if loss < best_cv[0]:
            best_cv = (loss, params, fitted)
    _, chosen_cv, fitted = best_cv
    p0 = np.empty((N_FOLDS, len(X_test)))
    p1 = np.empty_like(p0)
    for k, (m, s_held, held) in enumerate(fitted):
        va = VennAbersCalibrator().fit(s_held, y[held])
        pair = va.predict_interval(learner_scores(m, X_test))
        p0[k], p1[k] = pair[:, 0], pair[:, 1]
    return merge_folds(p0, p1, merge="log")[0], chosen_cv


def run_learner(
    learner: str,
    X: np.ndarray,
    y: np.ndarray,
    rows: AdultSmallRows,
    test: np.ndarray,
    seed: int,
    quick: bool,
    groups: list[list[int]] | None = None,
) -> LearnerResult:
    """Run one learner through Platt, IR, IVAP and CVAP (see the module docstring).

    `rows` are the protocol's :class:`~venncal.experiments.AdultSmallRows`, `test` the
    test rows used. `groups` are the column groups of adult's one-hot encoded nominal
    attributes (for naive Bayes, :func:`~venncal.experiments.naive_bayes.groups_from_names`).
    """
    from threadpoolctl import threadpool_limits

    from ..metrics import brier_loss, log_loss

    start = time.perf_counter()
    counter = [0]
    proper, cal, train = (np.asarray(r) for r in (rows.proper, rows.calibration, rows.training))
    X_test, y_test = X[test], y[test]
    # Multithreaded BLAS only slows down problems this small (and fights joblib's processes).
    with threadpool_limits(limits=1, user_api="blas"):
        preds, chosen, fits = _calibration_set_predictions(
            learner, X, y, proper, cal, X_test, seed, quick, counter, groups
        )
        preds["CVAP"], chosen_cv = _cvap_predictions(
            learner, X, y, train, X_test, seed, quick, counter, groups, (proper, cal, fits)
        )
    losses = {
        "log loss": {m: log_loss(y_test, p, base=2) for m, p in preds.items()},
        "Brier loss": {m: brier_loss(y_test, p, scale=4) for m, p in preds.items()},
    }
    return LearnerResult(
        learner=learner,
        losses=losses,
        params={"calibration set": chosen, "CVAP folds": chosen_cv},
        convergence_warnings=counter[0],
        seconds=time.perf_counter() - start,
    )


@experiment_run(NAME)
def run(
    options: RunOptions,
    *,
    max_test_rows: int | None = None,
    learners: tuple[str, ...] = LEARNERS,
) -> AdultSmallResult:
    """Run the experiment and return its results.

    Parameters
    ----------
    quick : bool, default=False
        Smaller grids, fewer MLP epochs and a random subsample of
        :data:`QUICK_TEST_ROWS` test rows.
    seed : int, default=0
        Seeds the learners and the test subsample; the run is deterministic given it.
    jobs : int, default=1
        Learners run in parallel with joblib on this many processes.
    data_dir : path-like, optional
        Passed to :func:`venncal.datasets.load_adult` (default: the shipped files).
    max_test_rows : int, optional
        Keep at most this many test rows (seeded random subsample, file order kept);
        overrides the quick default.
    learners : tuple of str, default=LEARNERS
        Subset of :data:`LEARNERS` to run.
    echo : callable, optional
        Receives a line about the data and one progress line per finished learner.

    Returns
    -------
    AdultSmallResult
    """
    from joblib import Parallel, delayed

    check_learners(learners)
    data = load_adult_rows(options.data_dir)
    rows = adult_small_rows(data.n_train, len(data.y) - data.n_train)
    n_total = len(rows.test)
    limit = options.size(max_test_rows, QUICK_TEST_ROWS)
    test = subsample(np.asarray(rows.test), limit, options.seed)
    options.echo(
        f"data: {len(rows.proper)} proper training + {len(rows.calibration)} calibration rows, "
        f"{len(test):,} of {n_total:,} test rows"
    )
    seed, quick = options.seed, options.quick
    tasks = (
        delayed(run_learner)(name, data.X, data.y, rows, test, seed, quick, data.groups)
        for name in learners
    )
    results = []
    for r in Parallel(n_jobs=options.jobs, return_as="generator_unordered")(tasks):
        options.echo(f"  {r.learner:<16} {r.seconds:6.1f} s  params {r.params}")
        results.append(r)
    results.sort(key=lambda r: learners.index(r.learner))  # finishing order varies
    info = options.info()
    return AdultSmallResult(info, results, len(test), n_total)


# ------------------------------------------------------------------------------ report


def _ranking(values, methods) -> str:
    """Methods from best to worst; ties (e.g. two infinities) joined by '='."""
    order = sorted(range(len(methods)), key=lambda i: values[i])
    out = methods[order[0]]
    for a, b in itertools.pairwise(order):
        out += ("=" if values[a] == values[b] else " < ") + methods[b]
    return out


def _row(r: LearnerResult, loss: str, theirs: list[float]) -> tuple[str, str]:
    """One learner's Markdown row and plain-text line of one loss table."""
    ours = [r.losses[loss][m] for m in METHODS]
    rank_o, rank_p = _ranking(ours, METHODS), _ranking(theirs, METHODS)
    best_o, best_p = min(ours), min(theirs)
    cells = []
    for o, p in zip(ours, theirs, strict=False):
        co = f"**{fmt_loss(o)}**" if o == best_o else fmt_loss(o)
        cp = f"**{fmt_loss(p)}**" if p == best_p else fmt_loss(p)
        if math.isinf(o) != math.isinf(p):
            co += " ⚠"
        cells += [co, cp]
    flag = "" if rank_o == rank_p else " ⚠"
    md = f"| {r.learner} | " + " | ".join(cells) + f" | {rank_o}{flag} | {rank_p} |"
    txt = (
        f"  {r.learner:<17}"
        + "".join(
            f"{fmt_loss(o) + ' (' + fmt_loss(p) + ')':>20}"
            for o, p in zip(ours, theirs, strict=False)
        )
        + ("   ranking differs" if flag else "")
    )
    return md, txt


def _tables(results: list[LearnerResult], paper: dict) -> tuple[list[str], list[str]]:
    """Markdown lines of one table per loss, and a plain-text rendering."""
    md, txt = [], []
    for loss in LOSSES:
        head = "| learner | " + " | ".join(f"{m} ours | {m} paper" for m in METHODS)
        head += " | ranking ours | ranking paper |"
        md += [f"### Mean {loss}", "", head, "|" + "---|" * (1 + 2 * len(METHODS) + 2)]
        txt += [
            f"Mean {loss}: ours (paper)",
            f"  {'learner':<17}" + "".join(f"{m:>20}" for m in METHODS),
        ]
        for r in results:
            row_md, row_txt = _row(r, loss, list(paper[loss][r.learner]))
            md.append(row_md)
            txt.append(row_txt)
        md.append("")
        txt.append("")
    return md, txt


def _learners_table(result: AdultSmallResult) -> list[str]:
    md = [
        "### Learners and chosen parameters",
        "",
        (
            "| learner | grid | chosen (calibration set) | chosen (CVAP folds) "
            "| ConvergenceWarnings | seconds |"
        ),
        "|---|---|---|---|---|---|",
    ]
    for r in result.results:
        md.append(
            f"| {r.learner} | {grid_text(r.learner, result.info.quick)} "
            f"| {r.params['calibration set']} | {r.params['CVAP folds']} "
            f"| {r.convergence_warnings} | {r.seconds:.1f} |"
        )
    return [*md, "", STAND_INS + _TUNING, ""]


def report(result: AdultSmallResult, out_dir: str | Path, *, command: str | None = None) -> Report:
    """Write ``out_dir/report.md`` and ``adult-small-vs-paper.png`` (ours against the paper's).

    The text is both loss tables, ours beside the paper's. Parameters and return value:
    as for every experiment (:mod:`venncal.experiments._report`).
    """
    paper = paper_values()
    md_tables, txt_tables = _tables(result.results, paper)
    subsampled = result.n_test < result.n_test_total
    test_rows = f"- test rows: {result.n_test:,} of {result.n_test_total:,}" + (
        " (seeded random subsample)" if subsampled else ""
    )
    facts = [test_rows]
    if result.info.quick:
        facts.append(
            "- quick mode: the learners' quick grids (table at the end) and "
            f"{MLP_EPOCHS[True]} epochs of the neural network instead of {MLP_EPOCHS[False]}"
        )
    draft = ReportDraft(result.info, out_dir, _PROTOCOL, command, facts)
    draft.md += [_READING, "", *md_tables, *_learners_table(result)]
    draft.text += txt_tables
    panels = {
        f"mean {loss}": {
            m: [(paper[loss][r.learner][i], r.losses[loss][m]) for r in result.results]
            for i, m in enumerate(METHODS)
        }
        for loss in LOSSES
    }
    draft.image(
        "adult-small-vs-paper.png", partial(scatter_vs_paper, panels), "ours against the paper's"
    )
    return draft.write()
