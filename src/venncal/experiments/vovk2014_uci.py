"""Paper 001 (Vovk & Petej 2014), section 5, Tables 1-3: nine small UCI data sets.

Protocol: for each data set and each of six learners, the data are randomly permuted
and the first 2/3 of the rows are the training set, the rest the test set. The learner
is trained on the training set and four probabilistic predictors are compared on the
test set:

- **W**: the learner's own probabilities (for the SVM: a Platt sigmoid fitted on the
  training set's decision values, as Weka's SMO does with its logistic models);
- **VA**: the full Venn-Abers predictor (:class:`~venncal.venn_abers.FullVennAbersClassifier`:
  the learner is retrained on the training set plus the test object, once with each
  label, for every test object);
- **SVA**: the simplified Venn-Abers predictor (the learner trained once; the training
  scores are the calibration set of a :class:`~venncal.venn_abers.VennAbersCalibrator`);
- **DIR**: direct isotonic regression on the training scores, predicting with the nearest
  training score (:class:`~venncal.baselines.IsotonicCalibrator`, ``interpolation="nearest"``).

W, SVA and DIR share 100 splits; VA, being 2 x (test rows) times costlier, uses 16
other splits, as in the paper. The (p0, p1) pairs of VA and SVA are merged with the
log-loss minimax (eq. (10)) for the mean log loss and with the square-loss minimax
(eq. (11)) for the RMSE. Losses: mean log loss in natural log (MLE, eq. (12)) and RMSE
(eq. (13)), each computed per split and averaged over the splits; a split with an
infinite log loss makes the mean infinite.

The scikit-learn learners stand in for Weka's with Weka's default parameters (no
tuning; the paper tunes nothing either): see :func:`make_learner`.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ._naive_bayes import MixedNaiveBayes, groups_from_names
from ._protocols import holdout_splits

__all__ = [
    "CLASSIFIERS",
    "DATASETS",
    "LOSSES",
    "METHODS",
    "REPS",
    "TaskResult",
    "make_learner",
    "paper_values",
    "run",
    "run_task",
]

#: Learner codes of the paper's tables, in its column order.
CLASSIFIERS = ("J", "JB", "LR", "NB", "NN", "SVM")
#: The nine data sets of paper 001, in the paper's row order (names of ``load_dataset``).
DATASETS = (
    "australian", "breast", "diabetes", "echo", "hepatitis",
    "ionosphere", "labor", "liver", "vote",
)  # fmt: skip
METHODS = ("W", "VA", "SVA", "DIR")
LOSSES = ("log loss", "RMSE")
#: Splits per data set: (W/SVA/DIR, VA), full and quick.
REPS = {False: (100, 16), True: (10, 2)}
#: VA test rows per split kept by ``--quick`` (a seeded random subsample).
QUICK_VA_TEST_ROWS = 50
#: Paper table holding each loss.
_PAPER_TABLE = {"log loss": "table1", "RMSE": "table2"}
_KINDS = ("shared", "va")
#: The J48 stand-in (also the bagged trees).
_TREE = {"criterion": "entropy", "min_samples_leaf": 2, "ccp_alpha": 0.01}


# ------------------------------------------------------------------------------ learners


def make_learner(code: str, n_features: int, seed: int, groups: list[list[int]] | None = None):
    """Return the scikit-learn stand-in for the paper's Weka learner `code`.

    Weka's defaults are kept where scikit-learn has them: J48's minimum of 2 rows per
    leaf and leaf frequencies without Laplace correction (so leaves may predict 0 or 1),
    with cost-complexity pruning (``ccp_alpha=0.01``) standing in for J48's pruning; 10
    bags of such trees; a nearly unpenalised logistic regression (Weka's ridge 1e-8,
    ``C = 1e8``); naive Bayes with frequency tables for nominal attributes and normal
    distributions for numeric ones (:class:`~venncal.experiments._naive_bayes.MixedNaiveBayes`,
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


def _response(code: str) -> str:
    return "decision_function" if code == "SVM" else "predict_proba"


def _scores(model, X, code: str) -> np.ndarray:
    if code == "SVM":
        return model.decision_function(X)
    return model.predict_proba(X)[:, 1]


# ------------------------------------------------------------------------------ running


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


def _split_rng(seed: int, dataset: str, kind: str) -> np.random.Generator:
    return np.random.default_rng([seed, DATASETS.index(dataset), _KINDS.index(kind)])


def _losses(y: np.ndarray, p_log: np.ndarray, p_sq: np.ndarray) -> tuple[float, float]:
    from ..metrics import log_loss, rmse

    with np.errstate(divide="ignore"):
        return log_loss(y, p_log, base="e"), rmse(y, p_sq)


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
        The splits depend on (seed, data set, kind) only, so every learner sees the
        same splits; the learners' ``random_state`` is ``seed + rep``.
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

    from ..baselines import IsotonicCalibrator, PlattCalibrator
    from ..venn_abers import FullVennAbersClassifier, VennAbersCalibrator
    from ..venn_abers._merge import brier_minimax, log_minimax

    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
    start = time.perf_counter()
    rng = _split_rng(seed, dataset, kind)
    splits = holdout_splits(y, n_reps, rng)
    methods = ("VA",) if kind == "va" else ("W", "SVA", "DIR")
    losses: dict[str, dict[str, list[float]]] = {loss: {m: [] for m in methods} for loss in LOSSES}
    n_warn = 0
    n_test = 0
    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", ConvergenceWarning)
        for rep, (train, test) in enumerate(splits):
            if max_test_rows is not None and len(test) > max_test_rows:
                test = np.sort(rng.choice(test, size=max_test_rows, replace=False))
            n_test = len(test)
            model = make_learner(learner, X.shape[1], seed + rep, groups)
            X_tr, y_tr, X_te, y_te = X[train], y[train], X[test], y[test]
            preds: dict[str, tuple[np.ndarray, np.ndarray]] = {}
            if kind == "va":
                va = FullVennAbersClassifier(model, response_method=_response(learner))
                pair = va.fit(X_tr, y_tr).predict_interval(X_te)
                preds["VA"] = (log_minimax(pair[:, 0], pair[:, 1]),
                               brier_minimax(pair[:, 0], pair[:, 1]))  # fmt: skip
            else:
                model.fit(X_tr, y_tr)
                s_tr, s_te = _scores(model, X_tr, learner), _scores(model, X_te, learner)
                if learner == "SVM":
                    p_w = PlattCalibrator().fit(s_tr, y_tr).predict_proba(s_te)[:, 1]
                else:
                    p_w = s_te
                pair = VennAbersCalibrator().fit(s_tr, y_tr).predict_interval(s_te)
                p_dir = IsotonicCalibrator(interpolation="nearest").fit(s_tr, y_tr)
                p_dir = p_dir.predict_proba(s_te)[:, 1]
                preds["W"] = (p_w, p_w)
                preds["SVA"] = (log_minimax(pair[:, 0], pair[:, 1]),
                                brier_minimax(pair[:, 0], pair[:, 1]))  # fmt: skip
                preds["DIR"] = (p_dir, p_dir)
            for m, (p_log, p_sq) in preds.items():
                ll, rm = _losses(y_te, p_log, p_sq)
                losses["log loss"][m].append(ll)
                losses["RMSE"][m].append(rm)
    for item in w:
        if issubclass(item.category, ConvergenceWarning):
            n_warn += 1
        else:  # anything else goes out as usual
            warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
    return TaskResult(
        dataset=dataset,
        learner=learner,
        kind=kind,
        losses=losses,
        n_train=len(splits[0][0]) if splits else 0,
        n_test=n_test,
        convergence_warnings=n_warn,
        seconds=time.perf_counter() - start,
    )


def run(
    *,
    quick: bool = False,
    seed: int = 0,
    jobs: int = 1,
    data_dir=None,
    datasets: Sequence[str] = DATASETS,
    learners: Sequence[str] = CLASSIFIERS,
    reps: tuple[int, int] | None = None,
    max_test_rows: int | None = None,
    echo: Callable[[str], None] = lambda _: None,
) -> dict:
    """Run the experiment and return its results.

    Parameters
    ----------
    quick : bool
        :data:`REPS` ``[True]`` splits and at most :data:`QUICK_VA_TEST_ROWS` VA test
        rows per split.
    seed : int
        The run is deterministic given the seed (whatever `jobs` is).
    jobs : int
        (data set, learner, kind) tasks run on this many processes (joblib).
    data_dir : path-like, optional
        Folder of the UCI data sets (default: the environment variable ``VENNCAL_DATA``).
    datasets, learners : sequence of str
        Subsets of :data:`DATASETS` and :data:`CLASSIFIERS`.
    reps : (int, int), optional
        Splits for (W/SVA/DIR, VA); overrides the default of the mode.
    max_test_rows : int, optional
        VA test rows kept per split; overrides the quick default.
    echo : callable
        Receives one progress line per finished task.

    Returns
    -------
    dict
        ``table`` (loss -> learner -> data set -> method -> mean over the splits),
        ``infinite`` (learner -> data set -> method -> splits with infinite log loss),
        ``tasks`` (list of :class:`TaskResult`), ``reps``, ``datasets``, ``learners``,
        ``sizes`` (data set -> (rows, training rows, test rows)), ``va_test_rows``.
    """
    from joblib import Parallel, delayed

    from ..datasets import load_dataset

    for name, pool, what in (
        (datasets, DATASETS, "data sets"),
        (learners, CLASSIFIERS, "learners"),
    ):
        unknown = sorted(set(name) - set(pool))
        if unknown:
            raise ValueError(f"unknown {what}: {unknown}; expected some of {list(pool)}")
    n_shared, n_va = reps if reps is not None else REPS[quick]
    va_rows = (
        max_test_rows if max_test_rows is not None else (QUICK_VA_TEST_ROWS if quick else None)
    )
    data, groups = {}, {}
    for name in datasets:
        X, y, names = load_dataset(name, data_dir=data_dir)
        data[name], groups[name] = (X, y), groups_from_names(names)
    # VA tasks first (they are the long ones), biggest data sets first, for load balance.
    order = sorted(datasets, key=lambda d: -len(data[d][1]))
    todo = [(d, c, "va", n_va, va_rows) for d in order for c in learners]
    todo += [(d, c, "shared", n_shared, None) for d in order for c in learners]
    tasks = []
    parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
    calls = (
        delayed(run_task)(d, c, kind, *data[d], n, seed, rows, groups[d])
        for d, c, kind, n, rows in todo
    )
    for i, r in enumerate(parallel(calls), 1):
        tasks.append(r)
        echo(
            f"  [{i:>3}/{len(todo)}] {r.dataset:<11} {r.learner:<4} {r.kind:<6} {r.seconds:7.1f} s"
        )
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
    tasks.sort(key=lambda r: (DATASETS.index(r.dataset), CLASSIFIERS.index(r.learner), r.kind))
    return {
        "table": table,
        "infinite": infinite,
        "tasks": tasks,
        "reps": (n_shared, n_va),
        "datasets": tuple(datasets),
        "learners": tuple(learners),
        "sizes": sizes,
        "va_test_rows": va_rows,
    }


# ------------------------------------------------------------------------------ analysis


def paper_values() -> dict:
    """Return the paper's Tables 1-2 as ``loss -> learner -> data set -> method -> value``.

    Infinity is ``math.inf``; cells the paper's text does not show legibly are None.
    """
    from ..datasets import paper_tables

    t = paper_tables()
    out: dict = {}
    for loss, key in _PAPER_TABLE.items():
        out[loss] = {
            c: {
                d: {m: (math.inf if v == "inf" else v) for m, v in cells.items()}
                for d, cells in rows.items()
            }
            for c, rows in t[key].items()
        }
    return out


def best_per_method(table: dict, dataset: str, learners: Sequence[str]) -> dict:
    """Return ``method -> (best value over the learners, that learner)`` for one data set.

    Learners whose cell is missing (None or NaN) are skipped; a method with no value
    maps to ``(nan, None)``.
    """
    out = {}
    for m in METHODS:
        best: tuple[float, str | None] = (math.nan, None)
        for c in learners:
            v = table[c].get(dataset, {}).get(m)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                continue
            if best[1] is None or v < best[0]:
                best = (v, c)
        out[m] = best
    return out


def ranking(table: dict, dataset: str, learners: Sequence[str]) -> list[tuple[str, str, float]]:
    """Rank the four methods on one data set by their best learner (paper 001, Table 3).

    Returns
    -------
    list of (method, learner, value)
        Best first; methods without any value are left out.
    """
    best = best_per_method(table, dataset, learners)
    ranked = [(m, c, v) for m, (v, c) in best.items() if c is not None]
    return sorted(ranked, key=lambda t: (t[2], METHODS.index(t[0])))


def claims(table: dict, datasets: Sequence[str], learners: Sequence[str]) -> dict[str, int]:
    """Count the data sets / cells behind the paper's section 5 statements, for one loss.

    Keys: ``"VA or SVA best"`` (data sets where the best method is VA or SVA),
    ``"SVA beats W"`` and ``"VA beats W"`` (data sets where the method's best learner
    beats W's best learner), ``"VA best"``, ``"SVA best"``, ``"W best"``, ``"DIR best"``,
    ``"VA < W cells"``, ``"SVA < W cells"`` (learner-data set cells), ``"DIR infinite
    cells"``, and ``"cells"`` (cells where all four methods have a value).
    """
    out = dict.fromkeys(
        ["VA or SVA best", "SVA beats W", "VA beats W", "VA best", "SVA best", "W best",
         "DIR best", "VA < W cells", "SVA < W cells", "DIR infinite cells", "cells"], 0,
    )  # fmt: skip
    for d in datasets:
        best = best_per_method(table, d, learners)
        if any(c is None for _, c in best.values()):
            continue
        top = ranking(table, d, learners)[0][0]
        out[f"{top} best"] += 1
        out["VA or SVA best"] += top in ("VA", "SVA")
        out["SVA beats W"] += best["SVA"][0] < best["W"][0]
        out["VA beats W"] += best["VA"][0] < best["W"][0]
    for c in learners:
        for d in datasets:
            cell = table[c].get(d, {})
            if any(cell.get(m) is None or math.isnan(cell[m]) for m in METHODS):
                continue
            out["cells"] += 1
            out["VA < W cells"] += cell["VA"] < cell["W"]
            out["SVA < W cells"] += cell["SVA"] < cell["W"]
            out["DIR infinite cells"] += math.isinf(cell["DIR"])
    return out
