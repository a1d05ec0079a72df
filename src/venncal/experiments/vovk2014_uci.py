"""Vovk & Petej 2014, section 5, Tables 1-3: nine small UCI data sets.

The paper: V. Vovk and I. Petej, *Venn-Abers predictors*, UAI 2014.

Protocol: for each data set and each of six learners, the data are randomly permuted
and the first 2/3 of the rows are the training set, the rest the test set. The learner
is trained on the training set and four probabilistic predictors are compared on the
test set:

- **W**: the learner's own probabilities (for the SVM: a Platt sigmoid fitted on the
  training set's decision values, as Weka's SMO does with its logistic models);
- **VA**: the full Venn-Abers predictor (:class:`~venncal.FullVennAbersClassifier`:
  the learner is retrained on the training set plus the test object, once with each
  label, for every test object);
- **SVA**: the simplified Venn-Abers predictor (the learner trained once; the training
  scores are the calibration set of a :class:`~venncal.venn_abers.VennAbersCalibrator`);
- **DIR**: direct isotonic regression on the training scores, predicting with the nearest
  training score (:class:`~venncal.baselines.IsotonicCalibrator`, ``interpolation="nearest"``).

W, SVA and DIR share 100 splits; VA, being 2 x (test rows) times costlier, uses 16
other splits, as in the paper. ``--quick`` (:data:`REPS` ``[True]``) takes 10 shared
and 2 VA splits and at most :data:`QUICK_VA_TEST_ROWS` VA test rows per split (a seeded
subsample), so that it runs in well under two minutes: VA's refits are about 85% of the
time (the neural network's and the bagged trees' above all). The (p0, p1) pairs of VA and SVA are merged with the
log-loss minimax (eq. (10)) for the mean log loss and with the square-loss minimax
(eq. (11)) for the RMSE. Losses: mean log loss in natural log (MLE, eq. (12)) and RMSE
(eq. (13)), each computed per split and averaged over the splits; a split with an
infinite log loss makes the mean infinite.

The scikit-learn learners stand in for Weka's with Weka's default parameters (no
tuning; the paper tunes nothing either): see :func:`make_learner`. :func:`run` computes,
:func:`report` writes ``report.md`` (our Tables 1-3 beside the paper's and its section 5
statements counted on our numbers) and a figure of our means against the paper's.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from . import _uci_analysis
from ._protocols import holdout_splits
from ._report import Report, ReportDraft, count_convergence_warnings, require_data_dir
from ._run import RunInfo, RunOptions, experiment_run
from ._uci_analysis import (  # noqa: F401 - best_per_method, claims, ranking: re-exported
    CLASSIFIERS, DATASETS, LOSSES, METHODS, PAPER_CLAIMS, best_per_method, claims, claims_table,
    figure, loss_tables, paper_names, paper_values, ranking, ranking_table,
)  # fmt: skip
from .naive_bayes import MixedNaiveBayes, groups_from_names

# The paper's tables and statements come from _uci_analysis, re-exported here.
__all__ = [
    *_uci_analysis.__all__,
    "QUICK_VA_TEST_ROWS",
    "REPS",
    "TaskResult",
    "UCIResult",
    "learner_scores",
    "make_learner",
    "report",
    "run",
    "run_task",
    "split_rng",
]

#: Splits per data set: (W/SVA/DIR, VA), full and quick.
REPS = {False: (100, 16), True: (10, 2)}
#: VA test rows per split kept by ``--quick`` (a seeded random subsample).
QUICK_VA_TEST_ROWS = 10
NAME = "vovk2014-uci"
_KINDS = ("shared", "va")
#: The J48 stand-in (also the bagged trees).
_TREE = {"criterion": "entropy", "min_samples_leaf": 2, "ccp_alpha": 0.01}

_PROTOCOL = (
    "Vovk & Petej, *Venn-Abers predictors* (UAI 2014), section 5, Tables 1 "
    "(mean log loss, natural log), 2 (RMSE) and 3 (ranking): each data set randomly "
    "permuted, the first 2/3 of the rows for training and the rest for testing; W = "
    "the learner's own probabilities, VA = full Venn-Abers (the learner retrained "
    "for each test object and each postulated label), SVA = simplified Venn-Abers "
    "(the training scores as calibration set), DIR = direct isotonic regression "
    "(nearest training score). VA and SVA pairs are merged by the log-loss minimax "
    "for the log loss and the square-loss minimax for the RMSE; losses are computed "
    "per split and averaged over the splits."
)
_READING = (
    "The learners are scikit-learn stand-ins for the paper's Weka learners with Weka's "
    "default parameters (see the table at the end), so equal numbers are not expected; "
    "the comparison is about the papers' conclusions. Paper cells shown as ? are "
    "illegible in the paper's text (see `venncal.datasets.paper_tables('001')['notes']`)."
)
_LEARNER_NOTE = (
    "The neural network's hidden layer has (columns + 2) / 2 units (shown for 10 "
    "columns above). The SVM's W is a Platt sigmoid fitted on its training decision "
    "values (Weka's SMO with logistic models); VA, SVA and DIR use the decision values."
)


# ------------------------------------------------------------------------------ learners


def make_learner(code: str, n_features: int, seed: int, groups: list[list[int]] | None = None):
    """Return the scikit-learn stand-in for the paper's Weka learner `code`.

    Weka's defaults are kept where scikit-learn has them: J48's minimum of 2 rows per
    leaf and leaf frequencies without Laplace correction (so leaves may predict 0 or 1),
    with cost-complexity pruning (``ccp_alpha=0.01``) standing in for J48's pruning; 10
    bags of such trees; a nearly unpenalised logistic regression (Weka's ridge 1e-8,
    ``C = 1e8``); naive Bayes with frequency tables for nominal attributes and normal
    distributions for numeric ones (:class:`~venncal.experiments.naive_bayes.MixedNaiveBayes`,
    as Weka's ``NaiveBayes``); one hidden layer of ``(attributes + classes) / 2``
    units, trained by L-BFGS with an L2 penalty (``alpha=1``) instead of Weka's 500
    epochs of back-propagation (6 times cheaper, which the full Venn-Abers predictor's
    refits need, and not interpolating the training set); SMO's ``C = 1`` on normalised
    attributes (a linear SVM).

    Parameters
    ----------
    code : {"J", "JB", "LR", "NB", "NN", "SVM"}
    n_features : int
        Number of columns of the (one-hot encoded) data, for the hidden layer size.
    seed : int
        ``random_state`` of the randomised learners.
    groups : list of list of int, optional
        Column groups of the one-hot encoded nominal attributes (for naive Bayes).

    Returns
    -------
    estimator
        An unfitted scikit-learn classifier (the SVM has only ``decision_function``).

    Examples
    --------
    >>> make_learner("J", 10, 0)
    DecisionTreeClassifier(ccp_alpha=0.01, criterion='entropy', min_samples_leaf=2,
                           random_state=0)
    """
    from sklearn.ensemble import BaggingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    if code == "J":
        return DecisionTreeClassifier(**_TREE, random_state=seed)
    if code == "JB":
        return BaggingClassifier(
            DecisionTreeClassifier(**_TREE), n_estimators=10, random_state=seed
        )
    if code == "LR":
        return make_pipeline(StandardScaler(), LogisticRegression(C=1e8, max_iter=1000))
    if code == "NB":
        return MixedNaiveBayes(groups=groups)
    if code == "NN":
        hidden = max(1, (n_features + 2) // 2)
        mlp = MLPClassifier(
            hidden_layer_sizes=(hidden,),
            solver="lbfgs",
            alpha=1.0,
            max_iter=200,
            random_state=seed,
        )
        return make_pipeline(StandardScaler(), mlp)
    if code == "SVM":
        return make_pipeline(StandardScaler(), LinearSVC(C=1.0, dual="auto", max_iter=20_000))
    raise ValueError(f"unknown learner {code!r}; expected one of {CLASSIFIERS}")


def learner_scores(model, X, code: str) -> np.ndarray:
    """Return the scores the methods calibrate: decision values (SVM) or probabilities."""
    if code == "SVM":
        return model.decision_function(X)
    return model.predict_proba(X)[:, 1]


# ------------------------------------------------------------------------------ one task


@dataclass
class TaskResult:
    """Per-split losses of one (data set, learner, split kind) task."""

    dataset: str
    learner: str
    #: "shared" (W, SVA, DIR on the 100 splits) or "va" (VA on the 16 splits)
    kind: str
    #: loss -> method -> per-split losses
    losses: dict[str, dict[str, list[float]]]
    n_train: int
    n_test: int
    convergence_warnings: int = 0
    seconds: float = 0.0


def split_rng(seed: int, dataset: str, kind: str) -> np.random.Generator:
    """Return the generator of the splits of one (seed, data set, kind).

    The splits do not depend on the learner, so every learner sees the same splits.
    """
    return np.random.default_rng([seed, DATASETS.index(dataset), _KINDS.index(kind)])


def _losses(y: np.ndarray, p_log: np.ndarray, p_sq: np.ndarray) -> tuple[float, float]:
    from ..metrics import log_loss, rmse

    with np.errstate(divide="ignore"):
        return log_loss(y, p_log, base="e"), rmse(y, p_sq)


def _merged(pair: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p0, p1) pairs merged for the log loss and for the square loss (eqs. (10)-(11))."""
    from ..venn_abers import brier_minimax, log_minimax

    return log_minimax(pair[:, 0], pair[:, 1]), brier_minimax(pair[:, 0], pair[:, 1])


def _va_predictions(model, learner, X_tr, y_tr, X_te) -> dict[str, tuple]:
    from ..estimators import FullVennAbersClassifier

    response = "decision_function" if learner == "SVM" else "predict_proba"
    va = FullVennAbersClassifier(model, response_method=response)
    return {"VA": _merged(va.fit(X_tr, y_tr).predict_interval(X_te))}


def _shared_predictions(model, learner, X_tr, y_tr, X_te) -> dict[str, tuple]:
    from ..baselines import IsotonicCalibrator, PlattCalibrator
    from ..venn_abers import VennAbersCalibrator

    model.fit(X_tr, y_tr)
    s_tr, s_te = learner_scores(model, X_tr, learner), learner_scores(model, X_te, learner)
    # Weka's SMO gives probabilities through logistic models fitted on its training scores.
    platt = PlattCalibrator().fit(s_tr, y_tr) if learner == "SVM" else None
    p_w = s_te if platt is None else platt.predict_proba(s_te)[:, 1]
    pair = VennAbersCalibrator().fit(s_tr, y_tr).predict_interval(s_te)
    p_dir = IsotonicCalibrator(interpolation="nearest").fit(s_tr, y_tr)
    p_dir = p_dir.predict_proba(s_te)[:, 1]
    return {"W": (p_w, p_w), "SVA": _merged(pair), "DIR": (p_dir, p_dir)}


def run_task(
    dataset: str,
    learner: str,
    kind: str,
    X: np.ndarray,
    y: np.ndarray,
    n_reps: int,
    seed: int = 0,
    max_test_rows: int | None = None,
    groups: list[list[int]] | None = None,
) -> TaskResult:
    """Run one learner on one data set over the splits of one kind.

    Parameters
    ----------
    dataset, learner : str
        Names from :data:`DATASETS` and :data:`CLASSIFIERS`.
    kind : {"shared", "va"}
        ``"shared"``: W, SVA and DIR on the shared splits; ``"va"``: VA on its own.
    X, y : ndarray
        The whole data set.
    n_reps : int
        Number of splits.
    seed : int
        The splits depend on (seed, data set, kind) only (:func:`split_rng`), so every
        learner sees the same splits; the learners' ``random_state`` is ``seed + rep``.
    max_test_rows : int, optional
        Keep at most this many test rows per split (seeded random subsample).
    groups : list of list of int, optional
        Column groups of the nominal attributes (see :func:`make_learner`).

    Returns
    -------
    TaskResult
    """
    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
    start = time.perf_counter()
    rng = split_rng(seed, dataset, kind)
    splits = holdout_splits(y, n_reps, rng)
    predict = _va_predictions if kind == "va" else _shared_predictions
    methods = ("VA",) if kind == "va" else ("W", "SVA", "DIR")
    losses: dict[str, dict[str, list[float]]] = {loss: {m: [] for m in methods} for loss in LOSSES}
    n_test = 0
    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", ConvergenceWarning)
        for rep, (train, test) in enumerate(splits):
            if max_test_rows is not None and len(test) > max_test_rows:
                test = np.sort(rng.choice(test, size=max_test_rows, replace=False))
            n_test = len(test)
            model = make_learner(learner, X.shape[1], seed + rep, groups)
            preds = predict(model, learner, X[train], y[train], X[test])
            for m, (p_log, p_sq) in preds.items():
                ll, rm = _losses(y[test], p_log, p_sq)
                losses["log loss"][m].append(ll)
                losses["RMSE"][m].append(rm)
    return TaskResult(
        dataset=dataset,
        learner=learner,
        kind=kind,
        losses=losses,
        n_train=len(splits[0][0]) if splits else 0,
        n_test=n_test,
        convergence_warnings=count_convergence_warnings(w),
        seconds=time.perf_counter() - start,
    )


# ------------------------------------------------------------------------------ all tasks


@dataclass
class UCIResult:
    """Everything :func:`run` measured, as :func:`report` needs it."""

    info: RunInfo
    #: loss -> learner -> data set -> method -> mean over the splits
    table: dict
    #: learner -> data set -> method -> splits with an infinite log loss
    infinite: dict
    #: every task, sorted by data set, learner and kind
    tasks: list[TaskResult]
    #: splits per data set: (W/SVA/DIR, VA)
    reps: tuple[int, int]
    datasets: tuple[str, ...]
    learners: tuple[str, ...]
    #: data set -> (rows, training rows, test rows)
    sizes: dict[str, tuple[int, int, int]]
    #: VA test rows kept per split (None: all)
    va_test_rows: int | None


def _check_subsets(datasets: Sequence[str], learners: Sequence[str], data_dir) -> None:
    for names, pool, what in (
        (datasets, DATASETS, "data sets"),
        (learners, CLASSIFIERS, "learners"),
    ):
        unknown = sorted(set(names) - set(pool))
        if unknown:
            raise ValueError(f"unknown {what}: {unknown}; expected some of {list(pool)}")
    require_data_dir(data_dir, NAME)


def _run_tasks(options, data, groups, datasets, learners, reps, va_rows):
    """Run every (data set, learner, kind) task on ``options.jobs`` processes; return them all."""
    from joblib import Parallel, delayed

    n_shared, n_va = reps
    # VA tasks first (they are the long ones), biggest data sets first, for load balance.
    order = sorted(datasets, key=lambda d: -len(data[d][1]))
    todo = [(d, c, "va", n_va, va_rows) for d in order for c in learners]
    todo += [(d, c, "shared", n_shared, None) for d in order for c in learners]
    tasks = []
    parallel = Parallel(n_jobs=options.jobs, return_as="generator_unordered")
    calls = (
        delayed(run_task)(d, c, kind, *data[d], n, options.seed, rows, groups[d])
        for d, c, kind, n, rows in todo
    )
    for i, r in enumerate(parallel(calls), 1):
        tasks.append(r)
        options.echo(
            f"  [{i:>3}/{len(todo)}] {r.dataset:<11} {r.learner:<4} {r.kind:<6} {r.seconds:7.1f} s"
        )
    tasks.sort(key=lambda r: (DATASETS.index(r.dataset), CLASSIFIERS.index(r.learner), r.kind))
    return tasks


def _aggregate(tasks, data, datasets, learners) -> tuple[dict, dict, dict]:
    """Means over the splits, counts of infinite log losses and data set sizes."""
    table: dict = {loss: {c: {d: {} for d in datasets} for c in learners} for loss in LOSSES}
    infinite: dict = {c: {d: {} for d in datasets} for c in learners}
    sizes = {}
    for r in tasks:
        for loss in LOSSES:
            for m, values in r.losses[loss].items():
                table[loss][r.learner][r.dataset][m] = (
                    float(np.mean(values)) if values else math.nan
                )
        for m, values in r.losses["log loss"].items():
            infinite[r.learner][r.dataset][m] = int(np.sum(np.isinf(values)))
        if r.kind == "shared":
            sizes[r.dataset] = (len(data[r.dataset][1]), r.n_train, r.n_test)
    return table, infinite, {d: sizes[d] for d in datasets if d in sizes}


@experiment_run(NAME)
def run(
    options: RunOptions,
    *,
    datasets: Sequence[str] = DATASETS,
    learners: Sequence[str] = CLASSIFIERS,
    reps: tuple[int, int] | None = None,
    max_test_rows: int | None = None,
) -> UCIResult:
    """Run the experiment and return its results.

    Parameters
    ----------
    quick : bool, default=False
        :data:`REPS` ``[True]`` splits and at most :data:`QUICK_VA_TEST_ROWS` VA test
        rows per split.
    seed : int, default=0
        The run is deterministic given the seed (whatever `jobs` is).
    jobs : int, default=1
        (data set, learner, kind) tasks run on this many processes (joblib).
    data_dir : path-like, optional
        Folder of the UCI data sets (default: the environment variable ``VENNCAL_DATA``).
    datasets, learners : sequence of str
        Subsets of :data:`DATASETS` and :data:`CLASSIFIERS`.
    reps : (int, int), optional
        Splits for (W/SVA/DIR, VA); overrides the default of the mode.
    max_test_rows : int, optional
        VA test rows kept per split; overrides the quick default.
    echo : callable, optional
        Receives one progress line per finished task.

    Returns
    -------
    UCIResult

    Raises
    ------
    ValueError
        For an unknown data set or learner, or `reps` not two positive counts.
    FileNotFoundError
        Without a data folder, or when a data file is missing (the message names it).
    """
    from ..datasets import load_dataset

    _check_subsets(datasets, learners, options.data_dir)
    if reps is not None and (len(reps) != 2 or min(reps) < 1):
        raise ValueError(f"reps takes two positive counts (W/SVA/DIR, VA), got {reps}")
    reps = tuple(reps) if reps is not None else REPS[options.quick]
    va_rows = options.size(max_test_rows, QUICK_VA_TEST_ROWS)
    data, groups = {}, {}
    for name in datasets:
        X, y, names = load_dataset(name, data_dir=options.data_dir)
        data[name], groups[name] = (X, y), groups_from_names(names)
    tasks = _run_tasks(options, data, groups, datasets, learners, reps, va_rows)
    table, infinite, sizes = _aggregate(tasks, data, datasets, learners)
    info = options.info()
    return UCIResult(
        info, table, infinite, tasks, reps, tuple(datasets), tuple(learners), sizes, va_rows
    )


# ------------------------------------------------------------------------------ report


def _learners_table(result: UCIResult) -> list[str]:
    """Stand-ins, infinite log losses, warnings and run time per learner."""
    md = [
        "### Learners, infinite log losses and run time",
        "",
        (
            "| learner | stand-in | W: data sets with infinite log loss | DIR: splits with "
            "infinite log loss | ConvergenceWarnings | seconds (shared / VA) |"
        ),
        "|---|---|---|---|---|---|",
    ]
    names = paper_names()
    n_sets = len(result.datasets)
    for c in result.learners:
        est = make_learner(c, 10, result.info.seed)
        inf_w = sum(result.infinite[c][d].get("W", 0) > 0 for d in result.datasets)
        inf_dir = sum(result.infinite[c][d].get("DIR", 0) for d in result.datasets)
        tasks = [t for t in result.tasks if t.learner == c]
        warn = sum(t.convergence_warnings for t in tasks)
        sec = {k: sum(t.seconds for t in tasks if t.kind == k) for k in _KINDS}
        stand_in = " ".join(repr(est).split())
        md.append(
            f"| {names[c]} ({c}) | `{stand_in}` | {inf_w} of {n_sets} "
            f"| {inf_dir} of {result.reps[0] * n_sets} | {warn} "
            f"| {sec['shared']:.1f} / {sec['va']:.1f} |"
        )
    return [*md, "", _LEARNER_NOTE, ""]


def _facts(result: UCIResult) -> list[str]:
    n_shared, n_va = result.reps
    va_rows = result.va_test_rows
    return [
        (
            f"- splits: {n_shared} per data set for W, SVA and DIR (shared by all learners), "
            f"{n_va} other splits for VA (paper: 100 and 16)"
            + (f"; VA: at most {va_rows} test rows per split (seeded subsample)" if va_rows else "")
        ),
        "- data set rows (training / test): "
        + ", ".join(f"{d} {n} ({a}/{b})" for d, (n, a, b) in result.sizes.items()),
    ]


def report(result: UCIResult, out_dir: str | Path, *, command: str | None = None) -> Report:
    """Write ``out_dir/report.md`` and ``uci-vs-paper.png`` (our means against the paper's).

    The text is Tables 1-3 and the statements. Parameters and return value: as for
    every experiment (:mod:`venncal.experiments._report`).
    """
    paper = paper_values()
    md_loss, txt_loss = loss_tables(result, paper)
    md_rank, txt_rank = ranking_table(result)
    md_claims, txt_claims = claims_table(result, paper)
    draft = ReportDraft(result.info, out_dir, _PROTOCOL, command, _facts(result))
    draft.md += [_READING, ""]
    draft.image("uci-vs-paper.png", partial(figure, result, paper), "ours against the paper's")
    draft.md += md_claims + md_rank + md_loss + _learners_table(result)
    draft.text += txt_loss + txt_rank + txt_claims
    return draft.write()
