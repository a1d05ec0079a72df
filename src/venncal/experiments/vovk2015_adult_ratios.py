"""Vovk, Petej & Fedorova 2015, Figures 1-2 and 13-14: adult, ratio columns.

Our reading of section 6:

- Rows. Figures 1-2 use the original adult split: the whole training file (32,561
  rows) is the training set and the whole test file (16,281 rows) the test set.
  Figures 13-14 widen the ratios to 1:9 ... 9:1 and, "in order not to duplicate the
  information", use "a randomly permuted adult data set"; the paper does not give the
  permutation (nor whether training and test were re-split), so we keep the original
  files and their order, i.e. the Figures 1-2 rows with the Figures 13-14 columns.
- Columns. For a ratio a:b the first ``ceil(a/(a+b) * N_train)`` training rows are the
  proper training set and the rest the calibration set (contiguous; see
  :func:`~venncal.experiments.ratio_rows`). Column ``all`` uses the whole training set as
  both proper training and calibration set (the simplified, in-sample variant; the
  paper still calls the result IVAP). The "underlying algorithm" (``raw``) is the
  learner trained on the proper training set of the column, its own probabilities
  used directly (the linear SVM has none, so its ``raw`` losses are NaN).
- CVAP folds (:func:`cvap_splits`). "In the case of CVAPs, the number K of folds can
  be expressed as the sum of the two numbers forming the ratio": column a:b has
  ``K = a + b`` contiguous folds (:func:`~venncal.experiments.contiguous_folds`, the
  first ``ceil(N_train/K)`` rows in the first fold, ...). For a:1 (2:1 ... 9:1) each
  fold in turn is the calibration set and the other folds the proper training set
  (9:1 is "10-fold cross-validation"). For 1:b (1:9 ... 1:2) the roles are swapped:
  "1:9 means that the training set was split into 10 folds, each of them in turn was
  used as the proper training set, and the rest were used as the calibration set". 1:1
  is 2 folds, each in turn one role and the other. So every IVAP inside the CVAP of a
  column has the column's proportions, and the column's own split (Platt, IR, IVAP) is
  one of them (the first for 1:b, the last for a:1; it is fitted once). The K pairs
  are merged by the log-minimax rule. Ratios with both parts above 1 are not columns
  of the paper and are rejected.
- CVAP in column ``all``: the paper is silent. ``K = a + b`` has no value there, and
  the column's definition (proper training set = calibration set = whole training
  set) has no cross-validated counterpart other than the column's IVAP itself; any
  fixed K would repeat a ratio column (5 folds = 4:1, 10 = 9:1). We leave CVAP out of
  column ``all`` (NaN: a gap in the plots, like the paper's missing points); the
  paper's advice to disregard the ``all`` values "in the case of IVAP, Platt, and
  Isotonic" names no CVAP value there either.
- Parameters, per column, from the adult-small grids
  (:func:`~venncal.experiments.vovk2015_adult_small.grid`) with its criterion (the
  Brier loss of the learner's own probabilities; for the SVM of a Platt sigmoid on the
  same rows). Raw, Platt, IR and IVAP share one model, whose parameters minimise that
  loss on the column's calibration set; for ``all`` that is the training set ("this
  allows us to optimize the parameters on the training set for the all column").
  CVAP gets its own choice per column: the cumulative loss of its K IVAPs, each on its
  own calibration set (so that "the same parameters are used for all folds"; for 1:b
  each row is counted K - 1 times). Ties go to the first setting of the grid.
- Losses: mean log loss in base 2 and mean Brier loss ``4 (y - p)**2``.

The learners, their construction and fitting are those of the adult-small experiment
(:mod:`venncal.experiments._adult`: scikit-learn stand-ins for Weka).
Every (learner, column) pair is one task, a function of the seed only, so the results
do not depend on ``--jobs``. ``--quick``: logistic regression and naive Bayes with the
quick grids, columns 1:9, 1:1, 9:1 and all, the first :data:`QUICK_TRAIN_ROWS` training
rows and a seeded subsample of
:data:`~venncal.experiments.vovk2015_adult_small.QUICK_TEST_ROWS` test rows.
:func:`run` computes, :func:`report` writes ``report.md`` and one figure per learner.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from ._adult import (
    LEARNERS,
    LOSSES,
    QUICK_TEST_ROWS,
    check_learners,
    fit_learner,
    grid,
    grid_text,
    learner_scores,
    load_adult_rows,
    selection_loss,
    subsample,
)
from ._protocols import RATIOS, contiguous_folds, ratio_rows
from ._report import Report, ReportDraft, fmt_loss, new_figure
from ._run import RunInfo, RunOptions, experiment_run

__all__ = [
    "COLUMNS",
    "LEARNERS",
    "LOSSES",
    "METHODS",
    "QUICK_COLUMNS",
    "QUICK_LEARNERS",
    "QUICK_TRAIN_ROWS",
    "AdultRatiosResult",
    "ColumnResult",
    "RatioResult",
    "cvap_splits",
    "grid",
    "plot_learner",
    "report",
    "run",
    "run_column",
]

#: Methods in plotting order; "raw" is the underlying learner's own probabilities.
METHODS = ("raw", "Platt", "IR", "IVAP", "CVAP")
#: Ratio columns, left to right (Vovk, Petej & Fedorova 2015, Figures 13-14).
COLUMNS: tuple[tuple[int, int] | str, ...] = (*RATIOS, "all")
QUICK_COLUMNS: tuple[tuple[int, int] | str, ...] = ((1, 9), (1, 1), (9, 1), "all")
QUICK_LEARNERS = ("logistic", "naive Bayes")
#: Training rows kept (the first ones, in file order) by ``--quick``.
QUICK_TRAIN_ROWS = 4_000
NAME = "vovk2015-adult-ratios"

_PROTOCOL = (
    "Vovk, Petej & Fedorova, *Large-scale probabilistic predictors with and without "
    "guarantees of validity* (NeurIPS 2015), section 6, Figures 1-2 and "
    "13-14: adult, "
    "the training file split contiguously into proper training and calibration sets "
    "in the ratios of the columns (all = the whole training set as both); test set = "
    "the test file. raw = the learner's own probabilities (none for the SVM: nan). "
    "CVAP in column a:b uses K = a+b contiguous folds: for a:1 each fold in turn is "
    "the calibration set, for 1:b each fold in turn is the proper training set (the "
    "rest the calibration set); the paper gives no CVAP rule for column all (left "
    "out: nan). "
    "Each learner's parameters are chosen per column from its grid by the Brier loss "
    "on the column's calibration set (all: the training set), shared by raw, Platt, "
    "IR and IVAP; for CVAP by the cumulative Brier loss of its K IVAPs (table "
    "'Chosen parameters'). Mean log loss in base 2; mean Brier loss 4(y-p)^2. The "
    "paper gives its results only as plots."
)


def cvap_splits(n_train: int, ratio: tuple[int, int] | str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Proper training and calibration rows of the K IVAPs of one column's CVAP.

    Column a:b has ``K = a + b`` contiguous folds of ``0..n_train-1``. For a:1 fold k
    is the calibration set of the k-th IVAP and the other folds its proper training
    set; for 1:b fold k is the proper training set and the other folds the calibration
    set (Vovk, Petej & Fedorova 2015, section 6). Column ``"all"`` has no CVAP (an empty list).

    Parameters
    ----------
    n_train : int
        Number of training rows, at least ``a + b``.
    ratio : (int, int) or "all"
        The column; one of its parts must be 1.

    Returns
    -------
    list of (ndarray, ndarray)
        ``(proper, calibration)`` row indices of each IVAP, in fold order.

    Examples
    --------
    >>> [(p.tolist(), c.tolist()) for p, c in cvap_splits(5, (2, 1))]
    [([2, 3, 4], [0, 1]), ([0, 1, 4], [2, 3]), ([0, 1, 2, 3], [4])]
    >>> [(p.tolist(), c.tolist()) for p, c in cvap_splits(5, (1, 2))]
    [([0, 1], [2, 3, 4]), ([2, 3], [0, 1, 4]), ([4], [0, 1, 2, 3])]
    >>> cvap_splits(5, "all")
    []
    """
    if ratio == "all":
        return []
    a, b = (int(v) for v in ratio)
    if a < 1 or b < 1:
        raise ValueError(f"ratio parts must be positive, got {a}:{b}")
    if a > 1 and b > 1:
        raise ValueError(
            f"Vovk, Petej & Fedorova (2015) define CVAP folds for a:1 and 1:b only, got {a}:{b}"
        )
    folds = contiguous_folds(n_train, a + b)
    splits = []
    for k, fold in enumerate(folds):
        rest = np.concatenate([f for j, f in enumerate(folds) if j != k])
        splits.append((rest, fold) if b == 1 else (fold, rest))
    return splits


# ------------------------------------------------------------------------ one column


@dataclass
class ColumnResult:
    """Chosen parameters and test losses of one learner in one ratio column."""

    #: Column label, e.g. ``"1:9"`` or ``"all"``.
    label: str
    #: Number K of CVAP folds (0: no CVAP, column ``all``).
    folds: int
    #: Parameters of raw, Platt, IR and IVAP (chosen on the column's calibration set).
    params: dict
    #: Parameters of CVAP (cumulative loss of its K IVAPs); None without CVAP.
    cvap_params: dict | None
    #: loss name -> method -> mean test loss (NaN where the method has no value).
    losses: dict[str, dict[str, float]]
    convergence_warnings: int = 0
    seconds: float = 0.0


def _fit_split(learner, params, seed, quick, X, y, proper, cal, counter, groups):
    """Fit on `proper`; return calibration scores, rows, the model and selection loss.

    The test set is scored later, by the chosen settings' models only.
    """
    model = fit_learner(learner, params, seed, quick, X[proper], y[proper], counter, groups)
    s_cal = learner_scores(model, X[cal])
    return s_cal, cal, model, selection_loss(learner, s_cal, y[cal])


def _column_splits(n_train: int, column) -> tuple[list, int, int]:
    """List the splits to fit in one column: CVAP's K, then the column's own if new.

    Returns ``(splits, j, K)``: the column's own split is ``splits[j]``.
    """
    split = ratio_rows(n_train, column)
    own = (np.asarray(split.proper), np.asarray(split.calibration))
    folds = cvap_splits(n_train, column)
    K = len(folds)
    # The column's own split is normally one of the CVAP splits: fit it only once.
    same = [
        k
        for k, (p, c) in enumerate(folds)
        if np.array_equal(p, own[0]) and np.array_equal(c, own[1])
    ]
    if same:
        return folds, same[0], K
    return [*folds, own], K, K


def _select(learner, column, X, y, n_train, seed, quick, counter, groups):
    """Fit every grid setting on every split; return the column's and CVAP's best.

    Each best is ``(summed selection loss, parameters, fitted splits)``; ties go to the
    first setting of the grid. CVAP's best is None in column ``all``.
    """
    splits, j, K = _column_splits(n_train, column)
    best = best_cv = None
    for params in grid(learner, quick):
        fitted = [
            _fit_split(learner, params, seed, quick, X, y, p, c, counter, groups)
            for p, c in splits
        ]
        if best is None or fitted[j][3] < best[0]:
            best = (fitted[j][3], params, fitted[j])
        total = sum(f[3] for f in fitted[:K])
        if K and (best_cv is None or total < best_cv[0]):
            best_cv = (total, params, fitted[:K])
    return best, best_cv


def _predictions(learner, y, best, best_cv, X_test) -> dict[str, np.ndarray | None]:
    """Test probabilities of every method (None where the method has none)."""
    from ..baselines import IsotonicCalibrator, PlattCalibrator
    from ..venn_abers import VennAbersCalibrator, merge_folds

    scored = {}  # id(model) -> test scores: the column's split is often a CVAP split too

    def test_scores(model):
        if id(model) not in scored:
            scored[id(model)] = learner_scores(model, X_test)
        return scored[id(model)]

    s_cal, cal, model, _ = best[2]
    s_test = test_scores(model)
    y_cal = y[cal]
    preds = {
        "raw": s_test if learner != "SVM" else None,
        "Platt": PlattCalibrator().fit(s_cal, y_cal).predict_proba(s_test)[:, 1],
        "IR": IsotonicCalibrator(interpolation="nearest")
        .fit(s_cal, y_cal)
        .predict_proba(s_test)[:, 1],
        "IVAP": VennAbersCalibrator(merge="log").fit(s_cal, y_cal).predict_proba(s_test)[:, 1],
        "CVAP": None,
    }
    if best_cv is not None:
        K = len(best_cv[2])
        p0 = np.empty((K, X_test.shape[0]))
        p1 = np.empty_like(p0)
        for k, (s, c, m, _) in enumerate(best_cv[2]):
            pair = VennAbersCalibrator().fit(s, y[c]).predict_interval(test_scores(m))
            p0[k], p1[k] = pair[:, 0], pair[:, 1]
        preds["CVAP"] = merge_folds(p0, p1, merge="log")[0]
    return preds


def _test_losses(y_test, preds) -> dict[str, dict[str, float]]:
    from ..metrics import brier_loss, log_loss

    nan = float("nan")
    return {
        "log loss": {
            m: nan if p is None else log_loss(y_test, p, base=2) for m, p in preds.items()
        },
        "Brier loss": {
            m: nan if p is None else brier_loss(y_test, p, scale=4) for m, p in preds.items()
        },
    }


def run_column(
    learner: str,
    column: tuple[int, int] | str,
    X: np.ndarray,
    y: np.ndarray,
    n_train: int,
    test: np.ndarray,
    seed: int,
    quick: bool,
    groups: list[list[int]] | None = None,
) -> ColumnResult:
    """Choose the parameters and measure every method in one column (module docstring).

    Rows ``0..n_train-1`` of `X`, `y` are the training set, rows `test` the test set.
    `groups`: the column groups of the nominal attributes, for naive Bayes.
    """
    from threadpoolctl import threadpool_limits

    start = time.perf_counter()
    counter = [0]
    X_test = X[test]
    # Multithreaded BLAS only slows down problems this small (and fights joblib's processes).
    with threadpool_limits(limits=1, user_api="blas"):
        best, best_cv = _select(learner, column, X, y, n_train, seed, quick, counter, groups)
        preds = _predictions(learner, y, best, best_cv, X_test)
    return ColumnResult(
        label=ratio_rows(n_train, column).label,
        folds=0 if best_cv is None else len(best_cv[2]),
        params=dict(best[1]),
        cvap_params=None if best_cv is None else dict(best_cv[1]),
        losses=_test_losses(y[test], preds),
        convergence_warnings=counter[0],
        seconds=time.perf_counter() - start,
    )


# ------------------------------------------------------------------------ every column


@dataclass
class RatioResult:
    """Measured losses and chosen parameters of one learner in every ratio column."""

    learner: str
    #: column labels, left to right
    columns: list[str]
    #: number K of CVAP folds per column (0: no CVAP, column ``all``)
    folds: list[int]
    #: "calibration set" (raw, Platt, IR, IVAP) and "CVAP folds" -> the parameters
    #: chosen in each column (None where there is no CVAP)
    params: dict[str, list[dict | None]]
    #: loss name -> method -> one mean test loss per column
    losses: dict[str, dict[str, list[float]]]
    convergence_warnings: int = 0
    #: seconds of all columns' tasks added up
    seconds: float = 0.0

    @classmethod
    def from_columns(cls, learner: str, cols: list[ColumnResult]) -> RatioResult:
        """Gather one learner's column results, left to right."""
        return cls(
            learner=learner,
            columns=[c.label for c in cols],
            folds=[c.folds for c in cols],
            params={
                "calibration set": [c.params for c in cols],
                "CVAP folds": [c.cvap_params for c in cols],
            },
            losses={
                loss: {m: [c.losses[loss][m] for c in cols] for m in METHODS} for loss in LOSSES
            },
            convergence_warnings=sum(c.convergence_warnings for c in cols),
            seconds=sum(c.seconds for c in cols),
        )


@dataclass
class AdultRatiosResult:
    """Everything :func:`run` measured, as :func:`report` needs it."""

    info: RunInfo
    #: One result per learner, in the order asked for.
    results: list[RatioResult]
    n_train: int
    #: Test rows used, and available.
    n_test: int
    n_test_total: int


def _keyed(key, *args):
    """Run :func:`run_column` and return ``(key, result)`` (tasks finish in any order)."""
    return key, run_column(*args)


def _run_tasks(options, data, learners, columns, test) -> dict:
    """Run every (learner, column) task; return ``(learner, column) -> ColumnResult``."""
    from joblib import Parallel, delayed

    # Costliest columns first (rows fitted per setting), so that no long task comes
    # last; the order only affects the schedule, not the results.
    order = sorted(columns, key=lambda c: -sum(len(p) for p, _ in cvap_splits(data.n_train, c)))
    tasks = [(name, column) for column in order for name in learners]
    calls = (
        delayed(_keyed)(
            (name, column), name, column, data.X, data.y, data.n_train, test, options.seed,
            options.quick, data.groups,
        )
        for name, column in tasks
    )  # fmt: skip
    by_task = {}
    parallel = Parallel(n_jobs=options.jobs, return_as="generator_unordered")
    for i, (key, out) in enumerate(parallel(calls)):
        by_task[key] = out
        line = f"  [{i + 1:>3}/{len(tasks)}] {key[0]:<16} {out.label:<4} {out.seconds:7.1f} s"
        options.echo(line)
    return by_task


@experiment_run(NAME)
def run(
    options: RunOptions,
    *,
    max_test_rows: int | None = None,
    learners: tuple[str, ...] | None = None,
) -> AdultRatiosResult:
    """Run the experiment and return its results.

    Parameters
    ----------
    quick : bool, default=False
        Two learners with the quick grids, four columns, the first
        :data:`QUICK_TRAIN_ROWS` training rows and a seeded subsample of
        ``QUICK_TEST_ROWS`` test rows.
    seed : int, default=0
        Seeds the learners and the test subsample; the run is deterministic given it.
    jobs : int, default=1
        The (learner, column) tasks run in parallel with joblib on this many processes;
        the results do not depend on it.
    data_dir : path-like, optional
        Passed to :func:`venncal.datasets.load_adult`.
    max_test_rows : int, optional
        Keep at most this many test rows (seeded random subsample, file order kept).
    learners : tuple of str, optional
        Subset of :data:`LEARNERS` (default: all six, or :data:`QUICK_LEARNERS`).
    echo : callable, optional
        Receives a line about the data and one progress line per finished task.

    Returns
    -------
    AdultRatiosResult
    """
    if learners is None:
        learners = QUICK_LEARNERS if options.quick else LEARNERS
    check_learners(learners)
    data = load_adult_rows(options.data_dir, QUICK_TRAIN_ROWS if options.quick else None)
    n_total = len(data.y) - data.n_train
    limit = options.size(max_test_rows, QUICK_TEST_ROWS)
    test = subsample(np.arange(data.n_train, len(data.y)), limit, options.seed)
    columns = QUICK_COLUMNS if options.quick else COLUMNS
    options.echo(
        f"data: {data.n_train:,} training rows, {len(test):,} of {n_total:,} test rows, "
        f"{len(columns)} columns"
    )
    by_task = _run_tasks(options, data, learners, columns, test)
    results = []
    for name in learners:
        r = RatioResult.from_columns(name, [by_task[name, column] for column in columns])
        options.echo(f"  {name:<16} {r.seconds:6.1f} s (all columns)")
        results.append(r)
    info = options.info()
    return AdultRatiosResult(info, results, data.n_train, len(test), n_total)


# ------------------------------------------------------------------------------ report


def plot_learner(result: RatioResult, path: str | Path) -> bool:
    """Write a two-panel PNG (log loss, Brier loss vs ratio; one line per method).

    Infinite and NaN losses are left out (gaps), as the paper's missing points.
    Returns False (and writes nothing) when matplotlib is not installed.
    """
    made = new_figure(2, (10, 3.8))
    if made is None:
        return False
    fig, axes = made
    styles = {"raw": ":", "Platt": "--", "IR": "-.", "IVAP": "-", "CVAP": "-"}
    # One colour per method in both panels, whichever lines are drawn.
    colors = {m: f"C{i}" for i, m in enumerate(METHODS)}
    x = np.arange(len(result.columns))
    for ax, loss in zip(axes, LOSSES, strict=True):
        for method in METHODS:
            v = np.asarray(result.losses[loss][method], dtype=float)
            v = np.where(np.isfinite(v), v, np.nan)
            if np.isnan(v).all():
                continue
            ax.plot(
                x, v, styles[method], color=colors[method], marker="o", markersize=3, label=method
            )
        ax.set_xticks(x, result.columns, rotation=45 if len(x) > 6 else 0)
        ax.set_xlabel("proper training : calibration")
        ax.set_ylabel(f"mean {loss}")
        ax.set_title(f"{result.learner}: {loss}")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def _loss_tables(results: list[RatioResult]) -> list[str]:
    tables = []
    for loss in LOSSES:
        tables += [f"### Mean {loss}", ""]
        for r in results:
            tables += [
                f"**{r.learner}**",
                "",
                "| method | " + " | ".join(r.columns) + " |",
                "|" + "---|" * (1 + len(r.columns)),
            ]
            for m in METHODS:
                tables.append(
                    f"| {m} | " + " | ".join(fmt_loss(v) for v in r.losses[loss][m]) + " |"
                )
            tables.append("")
    return tables


def _settings(params: dict | None) -> str:
    return "-" if params is None else ", ".join(f"{k}={v}" for k, v in params.items())


def _chosen_table(results: list[RatioResult]) -> list[str]:
    chosen = ["### Chosen parameters", ""]
    if not results:
        return chosen
    columns = results[0].columns
    chosen += [
        "| learner | chosen for | " + " | ".join(columns) + " |",
        "|" + "---|" * (2 + len(columns)),
        "| | CVAP folds K | " + " | ".join(str(k or "-") for k in results[0].folds) + " |",
    ]
    for r in results:
        for key in ("calibration set", "CVAP folds"):
            cells = " | ".join(_settings(p) for p in r.params[key])
            chosen.append(f"| {r.learner} | {key} | {cells} |")
    return [*chosen, ""]


def report(result: AdultRatiosResult, out_dir: str | Path, *, command: str | None = None) -> Report:
    """Write ``out_dir/report.md`` and one ``ratios-<learner>.png`` per learner.

    The text is the loss tables. Parameters and return value: as for every experiment
    (:mod:`venncal.experiments._report`).
    """
    rows = (
        f"- training rows: {result.n_train:,}; test rows: {result.n_test:,} of "
        f"{result.n_test_total:,}"
    )
    facts = [rows]
    if result.info.quick:
        facts.append(
            f"- quick mode: the learners' quick grids, the columns "
            f"{', '.join(ratio_rows(10, c).label for c in QUICK_COLUMNS)} (paper: all "
            f"{len(COLUMNS)}) and the first {QUICK_TRAIN_ROWS:,} training rows"
        )
    draft = ReportDraft(result.info, out_dir, _PROTOCOL, command, facts)
    tables = _loss_tables(result.results)
    draft.md += [
        "| learner | grid | ConvergenceWarnings | seconds (all columns) | plot |",
        "|---|---|---|---|---|",
    ]
    for r in result.results:
        png = draft.figure(f"ratios-{r.learner.replace(' ', '-')}.png", partial(plot_learner, r))
        plot = "-" if png is None else f"![{r.learner}]({png.name})"
        draft.md.append(
            f"| {r.learner} | {grid_text(r.learner, result.info.quick)} "
            f"| {r.convergence_warnings} | {r.seconds:.1f} | {plot} |"
        )
    draft.md += ["", *_chosen_table(result.results), *tables]
    draft.text += [line for line in tables if line.startswith(("|", "#", "**"))]
    return draft.write()
