"""Paper 000 (Vovk, Petej & Fedorova 2015), Figures 1-2 and 13-14: adult, ratio columns.

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
- Methods: Platt, IR (isotonic regression, ``IsotonicCalibrator(interpolation=
  'nearest')``), IVAP (log-minimax merge) on the column's calibration set, and CVAP.
- Losses: mean log loss in base 2 and mean Brier loss ``4 (y - p)**2``.

Deliberate deviations, to keep the experiment affordable:

- CVAP. In the paper the number of folds of CVAP follows the column (K = a + b, e.g.
  1:9 = 10 folds each used in turn as the proper training set, 4:1 = 5 folds). Here
  CVAP always uses 5 contiguous folds over the training rows (the 4:1 column of the
  paper) and is therefore the same, flat line in every column, a reference level.
- Parameters. The paper tunes each learner's parameters per column by the Brier loss
  on the calibration set (on the training set for ``all``). Here every learner uses
  fixed parameters from the adult-small grid (:data:`DEFAULT_PARAMS`, the Weka
  defaults where they exist), the same in every column; no per-ratio tuning.

The learners, their construction and fitting are those of
:mod:`venncal.experiments.vovk2015_adult_small` (scikit-learn stand-ins for Weka).
``--quick``: logistic regression and naive Bayes, columns 1:9, 1:1, 9:1 and all, the
first :data:`QUICK_TRAIN_ROWS` training rows and a seeded subsample of
:data:`~venncal.experiments.vovk2015_adult_small.QUICK_TEST_ROWS` test rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ._protocols import RATIOS, contiguous_folds, ratio_rows
from .vovk2015_adult_small import (
    LEARNERS,
    LOSSES,
    N_FOLDS,
    QUICK_TEST_ROWS,
    _fit,
    _scores,
    grid,
)

__all__ = [
    "COLUMNS",
    "DEFAULT_PARAMS",
    "LEARNERS",
    "LOSSES",
    "METHODS",
    "QUICK_COLUMNS",
    "QUICK_LEARNERS",
    "QUICK_TRAIN_ROWS",
    "RatioResult",
    "plot_learner",
    "run",
]

#: Methods in plotting order; "raw" is the underlying learner's own probabilities.
METHODS = ("raw", "Platt", "IR", "IVAP", "CVAP")
#: Ratio columns, left to right (paper 000, Figures 13-14).
COLUMNS: tuple[tuple[int, int] | str, ...] = (*RATIOS, "all")
QUICK_COLUMNS: tuple[tuple[int, int] | str, ...] = ((1, 9), (1, 1), (9, 1), "all")
QUICK_LEARNERS = ("logistic", "naive Bayes")
#: Training rows kept (the first ones, in file order) by ``--quick``.
QUICK_TRAIN_ROWS = 4_000

#: Fixed parameters of each learner (members of its adult-small grid; Weka defaults:
#: J48 M=2, logistic ridge 1/C with C=1, MLP L=0.3 M=0.2, SMO C=1).
DEFAULT_PARAMS: dict[str, dict[str, object]] = {
    "J48": {"min_samples_leaf": 2},
    "J48 bagging": {"estimator__min_samples_leaf": 2},
    "logistic": {"C": 1.0},
    "naive Bayes": {"var_smoothing": 1e-9},
    "neural networks": {"learning_rate_init": 0.3, "momentum": 0.2},
    "SVM": {"C": 1.0},
}


@dataclass
class RatioResult:
    """Measured losses of one learner in every ratio column."""

    learner: str
    params: dict
    #: column labels, left to right
    columns: list[str]
    #: loss name -> method -> one mean test loss per column
    losses: dict[str, dict[str, list[float]]]
    convergence_warnings: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


def run_learner(learner, X, y, n_train, test, columns, seed, quick) -> RatioResult:
    """Run one learner through every column (see the module docstring)."""
    from threadpoolctl import threadpool_limits

    from ..baselines import IsotonicCalibrator, PlattCalibrator
    from ..metrics import brier_loss, log_loss
    from ..venn_abers import VennAbersCalibrator, merge_folds

    start = time.perf_counter()
    counter = [0]
    params = DEFAULT_PARAMS[learner]
    X_test, y_test = X[test], y[test]
    has_proba = learner != "SVM"

    def losses_of(p):
        if p is None:
            return float("nan"), float("nan")
        return log_loss(y_test, p, base=2), brier_loss(y_test, p, scale=4)

    with threadpool_limits(limits=1, user_api="blas"):
        # CVAP: 5 contiguous folds over the training rows, the same in every column
        p0 = np.empty((N_FOLDS, len(test)))
        p1 = np.empty_like(p0)
        folds = contiguous_folds(n_train, N_FOLDS)
        for k, held in enumerate(folds):
            rest = np.concatenate([f for j, f in enumerate(folds) if j != k])
            m = _fit(learner, params, seed, quick, X[rest], y[rest], counter)
            pair = (
                VennAbersCalibrator()
                .fit(_scores(m, X[held]), y[held])
                .predict_interval(_scores(m, X_test))
            )
            p0[k], p1[k] = pair[:, 0], pair[:, 1]
        cvap = losses_of(merge_folds(p0, p1, merge="log")[0])

        labels = []
        out = {loss: {m: [] for m in METHODS} for loss in LOSSES}
        for column in columns:
            split = ratio_rows(n_train, column)
            labels.append(split.label)
            proper, cal = np.asarray(split.proper), np.asarray(split.calibration)
            model = _fit(learner, params, seed, quick, X[proper], y[proper], counter)
            s_cal, s_test = _scores(model, X[cal]), _scores(model, X_test)
            preds = {
                "raw": s_test if has_proba else None,
                "Platt": PlattCalibrator().fit(s_cal, y[cal]).predict_proba(s_test)[:, 1],
                "IR": IsotonicCalibrator(interpolation="nearest")
                .fit(s_cal, y[cal])
                .predict_proba(s_test)[:, 1],
                "IVAP": VennAbersCalibrator(merge="log")
                .fit(s_cal, y[cal])
                .predict_proba(s_test)[:, 1],
            }
            for method in METHODS:
                ll, br = cvap if method == "CVAP" else losses_of(preds[method])
                out["log loss"][method].append(ll)
                out["Brier loss"][method].append(br)
    return RatioResult(
        learner=learner,
        params=dict(params),
        columns=labels,
        losses=out,
        convergence_warnings=counter[0],
        seconds=time.perf_counter() - start,
    )


def plot_learner(result: RatioResult, path) -> None:
    """Write a two-panel PNG (log loss, Brier loss vs ratio; one line per method).

    Infinite and NaN losses are left out (gaps), as the paper's missing points.
    """
    import matplotlib

    if "matplotlib.pyplot" not in __import__("sys").modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    styles = {"raw": ":", "Platt": "--", "IR": "-.", "IVAP": "-", "CVAP": "-"}
    # One colour per method in both panels, whichever lines are drawn.
    colors = {m: f"C{i}" for i, m in enumerate(METHODS)}
    x = np.arange(len(result.columns))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    try:
        for ax, loss in zip(axes, LOSSES, strict=True):
            for method in METHODS:
                v = np.asarray(result.losses[loss][method], dtype=float)
                v = np.where(np.isfinite(v), v, np.nan)
                if np.isnan(v).all():
                    continue
                ax.plot(
                    x,
                    v,
                    styles[method],
                    color=colors[method],
                    marker="o",
                    markersize=3,
                    label=method,
                )
            ax.set_xticks(x, result.columns, rotation=45 if len(x) > 6 else 0)
            ax.set_xlabel("proper training : calibration")
            ax.set_ylabel(f"mean {loss}")
            ax.set_title(f"{result.learner}: {loss}")
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)


def run(
    *,
    quick: bool = False,
    seed: int = 0,
    jobs: int = 1,
    data_dir=None,
    max_test_rows: int | None = None,
    learners: tuple[str, ...] | None = None,
    echo: Callable[[str], None] = lambda _: None,
) -> dict:
    """Run the experiment and return its results.

    Parameters
    ----------
    quick : bool
        Two learners, four columns, the first :data:`QUICK_TRAIN_ROWS` training rows
        and a seeded subsample of ``QUICK_TEST_ROWS`` test rows.
    seed : int
        Seeds the learners and the test subsample.
    jobs : int
        Learners run in parallel with joblib on this many processes.
    data_dir : path-like, optional
        Passed to :func:`venncal.datasets.load_adult`.
    max_test_rows : int, optional
        Keep at most this many test rows (seeded random subsample, file order kept).
    learners : tuple of str, optional
        Subset of :data:`LEARNERS` (default: all six, or :data:`QUICK_LEARNERS`).

    Returns
    -------
    dict
        ``results`` (list of :class:`RatioResult`), ``n_train``, ``n_test`` and
        ``n_test_total``.
    """
    from joblib import Parallel, delayed

    from ..datasets import load_adult

    if learners is None:
        learners = QUICK_LEARNERS if quick else LEARNERS
    unknown = set(learners) - set(LEARNERS)
    if unknown:
        raise ValueError(f"unknown learners: {sorted(unknown)}")
    for name in learners:  # the fixed parameters are members of the adult-small grid
        assert DEFAULT_PARAMS[name] in grid(name), name
    X_train, y_train, _ = load_adult("train", data_dir=data_dir)
    X_test, y_test, _ = load_adult("test", data_dir=data_dir)
    n_train = min(len(y_train), QUICK_TRAIN_ROWS) if quick else len(y_train)
    X = np.vstack([X_train[:n_train], X_test])
    y = np.concatenate([y_train[:n_train], y_test])
    test = np.arange(n_train, len(y))
    n_total = len(test)
    limit = max_test_rows if max_test_rows is not None else (QUICK_TEST_ROWS if quick else None)
    if limit is not None and limit < len(test):
        rng = np.random.default_rng(seed)
        test = np.sort(rng.choice(test, size=limit, replace=False))
    columns = QUICK_COLUMNS if quick else COLUMNS
    echo(
        f"data: {n_train:,} training rows, {len(test):,} of {n_total:,} test rows, "
        f"{len(columns)} columns"
    )
    tasks = (
        delayed(run_learner)(name, X, y, n_train, test, columns, seed, quick) for name in learners
    )
    results = Parallel(n_jobs=jobs)(tasks)
    for r in results:
        echo(f"  {r.learner:<16} {r.seconds:6.1f} s  params {r.params}")
    return {
        "results": list(results),
        "n_train": n_train,
        "n_test": len(test),
        "n_test_total": n_total,
    }
