"""Paper 000 (Vovk, Petej & Fedorova 2015), Tables 1-2: the small adult experiment.

Protocol (section 6): the first 5,000 adult training rows are the training set; rows
1-4,000 are the proper training set and rows 4,001-5,000 the calibration set for Platt,
isotonic regression (IR) and the IVAP; CVAP uses 5 contiguous folds over the 5,000 rows;
the test set is every other row (the rest of the training file and the whole test
file). Each learner's parameters are chosen from a small grid by minimising the Brier
loss on the calibration set (for CVAP: the cumulative Brier loss over the 5 held-out
folds, so that the same parameters are used for all folds). Losses: mean log loss in
base 2 and mean Brier loss ``4 (y - p)**2`` (the paper's scaling, so that always
predicting 1/2 costs 1 under both).

The six scikit-learn learners stand in for the paper's Weka ones (J48, J48 bagging,
logistic regression, naive Bayes, MultilayerPerceptron, SMO with a linear kernel); the
numbers are therefore not expected to match to the digit.

Parameter selection criterion: the Brier loss of the learner's own probability
estimates (``predict_proba``) on the calibration set / held-out fold. The linear SVM
has no probabilities; its scores are mapped by a Platt sigmoid fitted on the same
calibration set (held-out fold) before computing that Brier loss.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ._naive_bayes import MixedNaiveBayes, groups_from_names
from ._protocols import adult_small_rows, contiguous_folds

__all__ = [
    "LEARNERS",
    "LOSSES",
    "METHODS",
    "PAPER_TABLES",
    "QUICK_TEST_ROWS",
    "LearnerResult",
    "grid",
    "run",
]

METHODS = ("Platt", "IR", "IVAP", "CVAP")
LOSSES = ("log loss", "Brier loss")
#: Display names, in the paper's row order.
LEARNERS = ("J48", "J48 bagging", "logistic", "naive Bayes", "neural networks", "SVM")
N_FOLDS = 5
#: Test rows kept (a seeded random subsample, in file order) by ``--quick``.
QUICK_TEST_ROWS = 5_000

_INF = math.inf
#: Paper 000, Table 1 (mean log loss, base 2) and Table 2 (mean Brier loss, 4(y-p)^2);
#: columns Platt, IR, IVAP, CVAP.
PAPER_TABLES: dict[str, dict[str, tuple[float, float, float, float]]] = {
    "log loss": {
        "J48": (0.5226, _INF, 0.5117, 0.5102),
        "J48 bagging": (0.4949, _INF, 0.4733, 0.4602),
        "logistic": (0.5111, _INF, 0.4981, 0.4948),
        "naive Bayes": (0.5534, _INF, 0.4839, 0.4747),
        "neural networks": (0.5175, _INF, 0.5023, 0.4805),
        "SVM": (0.5221, _INF, 0.5015, 0.4997),
    },
    "Brier loss": {
        "J48": (0.4463, 0.4378, 0.4370, 0.4368),
        "J48 bagging": (0.4225, 0.4153, 0.4123, 0.3990),
        "logistic": (0.4470, 0.4417, 0.4377, 0.4342),
        "naive Bayes": (0.4670, 0.4329, 0.4311, 0.4227),
        "neural networks": (0.4525, 0.4574, 0.4440, 0.4234),
        "SVM": (0.4550, 0.4450, 0.4408, 0.4375),
    },
}

# ------------------------------------------------------------------------------ learners

#: Parameter grids, full and quick. Keys are scikit-learn parameter names of the
#: learner's final step; every combination is tried.
_GRIDS: dict[str, tuple[dict[str, list], dict[str, list]]] = {
    # Weka J48's pruning confidence C has no scikit-learn analogue; the minimum leaf
    # size (J48's M, default 2) plays the role of the pruning strength.
    "J48": ({"min_samples_leaf": [2, 5, 10, 20, 50, 100]}, {"min_samples_leaf": [5, 50]}),
    "J48 bagging": (
        {"estimator__min_samples_leaf": [1, 2, 5, 10, 20]},
        {"estimator__min_samples_leaf": [2, 10]},
    ),
    # Weka's ridge R corresponds to 1/C.
    "logistic": ({"C": [0.001, 0.01, 0.1, 1.0, 10.0]}, {"C": [0.01, 1.0]}),
    # Weka's naive Bayes (frequency tables with Laplace smoothing, normal densities) has
    # no parameter; we tune the pseudo-count of the frequency tables (Laplace = 1).
    "naive Bayes": ({"alpha": [0.5, 1.0, 2.0]}, {"alpha": [1.0]}),
    # Weka MultilayerPerceptron's L (learning rate) and M (momentum), SGD.
    "neural networks": (
        {"learning_rate_init": [0.01, 0.1, 0.3], "momentum": [0.2, 0.5]},
        {"learning_rate_init": [0.1], "momentum": [0.2]},
    ),
    # SMO's complexity constant C.
    "SVM": ({"C": [0.001, 0.01, 0.1, 1.0]}, {"C": [0.01, 0.1]}),
}

#: Bagged trees (Weka's default bag count is 10) and MLP epochs, full and quick.
_BAGS = {False: 10, True: 10}
_MLP_EPOCHS = {False: 200, True: 60}


def grid(learner: str, quick: bool = False) -> list[dict[str, object]]:
    """Return the parameter settings tried for `learner` (every combination of its grid)."""
    spec = _GRIDS[learner][1 if quick else 0]
    keys = list(spec)
    return [
        dict(zip(keys, values, strict=False))
        for values in itertools.product(*(spec[k] for k in keys))
    ]


def _make(learner: str, params: dict, seed: int, quick: bool, groups=None):
    from sklearn.ensemble import BaggingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    if learner == "J48":
        return DecisionTreeClassifier(criterion="entropy", random_state=seed, **params)
    if learner == "J48 bagging":
        base = DecisionTreeClassifier(criterion="entropy")
        return BaggingClassifier(base, n_estimators=_BAGS[quick], random_state=seed).set_params(
            **params
        )
    if learner == "logistic":
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, **params))
    if learner == "naive Bayes":
        return MixedNaiveBayes(groups=groups, **params)
    if learner == "neural networks":
        # Weka's default hidden layer: (attributes + classes) / 2 units.
        mlp = MLPClassifier(
            hidden_layer_sizes=(53,),
            solver="sgd",
            nesterovs_momentum=False,
            max_iter=_MLP_EPOCHS[quick],
            random_state=seed,
            **params,
        )
        return make_pipeline(StandardScaler(), mlp)
    if learner == "SVM":
        return make_pipeline(StandardScaler(), LinearSVC(dual="auto", max_iter=20_000, **params))
    raise ValueError(f"unknown learner {learner!r}")


def _scores(model, X) -> np.ndarray:
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)[:, 1]
    return model.decision_function(X)


def _selection_loss(learner: str, s: np.ndarray, y: np.ndarray) -> float:
    """Return the summed Brier loss 4(y-p)^2 of the learner's probabilities on `y`."""
    if learner == "SVM":
        from ..baselines import PlattCalibrator

        s = PlattCalibrator().fit(s, y).predict_proba(s)[:, 1]
    return float(np.sum(4.0 * (y - s) ** 2))


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
    notes: list[str] = field(default_factory=list)


def _fit(learner, params, seed, quick, X, y, counter, groups=None):
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model = _make(learner, params, seed, quick, groups).fit(X, y)
    for w in caught:
        if issubclass(w.category, ConvergenceWarning):
            counter[0] += 1
        else:  # anything else goes out as usual
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return model


def run_learner(learner, X, y, rows, test, seed, quick, groups=None) -> LearnerResult:
    """Run one learner through Platt, IR, IVAP and CVAP (see the module docstring).

    `groups` are the column groups of adult's one-hot encoded nominal attributes (for
    naive Bayes, :func:`~venncal.experiments._naive_bayes.groups_from_names`).
    """
    from threadpoolctl import threadpool_limits

    from ..baselines import IsotonicCalibrator, PlattCalibrator
    from ..metrics import brier_loss, log_loss
    from ..venn_abers import VennAbersCalibrator, merge_folds

    start = time.perf_counter()
    counter = [0]
    proper, cal, train = (np.asarray(r) for r in (rows.proper, rows.calibration, rows.training))
    X_test, y_test = X[test], y[test]
    with threadpool_limits(limits=1, user_api="blas"):
        # --- Platt, IR, IVAP: one model on the proper training set
        best = (np.inf, None, None)
        for params in grid(learner, quick):
            model = _fit(learner, params, seed, quick, X[proper], y[proper], counter, groups)
            s_cal = _scores(model, X[cal])
            loss = _selection_loss(learner, s_cal, y[cal])
            if loss < best[0]:
                best = (loss, params, (model, s_cal))
        _, chosen, (model, s_cal) = best
        s_test = _scores(model, X_test)
        preds = {
            "Platt": PlattCalibrator().fit(s_cal, y[cal]).predict_proba(s_test)[:, 1],
            "IR": IsotonicCalibrator(interpolation="nearest")
            .fit(s_cal, y[cal])
            .predict_proba(s_test)[:, 1],
            "IVAP": VennAbersCalibrator(merge="log").fit(s_cal, y[cal]).predict_proba(s_test)[:, 1],
        }
        # --- CVAP: K contiguous folds of the 5,000 training rows, cumulative Brier loss
        folds = [train[f] for f in contiguous_folds(len(train), N_FOLDS)]
        best_cv = (np.inf, None, None)
        for params in grid(learner, quick):
            loss, fitted = 0.0, []
            for k, held in enumerate(folds):
                rest = np.concatenate([f for j, f in enumerate(folds) if j != k])
                m = _fit(learner, params, seed, quick, X[rest], y[rest], counter, groups)
                s_held = _scores(m, X[held])
                loss += _selection_loss(learner, s_held, y[held])
                fitted.append((m, s_held, held))
            if loss < best_cv[0]:
                best_cv = (loss, params, fitted)
        _, chosen_cv, fitted = best_cv
        p0 = np.empty((N_FOLDS, len(test)))
        p1 = np.empty_like(p0)
        for k, (m, s_held, held) in enumerate(fitted):
            pair = VennAbersCalibrator().fit(s_held, y[held]).predict_interval(_scores(m, X_test))
            p0[k], p1[k] = pair[:, 0], pair[:, 1]
        preds["CVAP"], _ = merge_folds(p0, p1, merge="log")

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


def run(
    *,
    quick: bool = False,
    seed: int = 0,
    jobs: int = 1,
    data_dir=None,
    max_test_rows: int | None = None,
    learners: tuple[str, ...] = LEARNERS,
    echo: Callable[[str], None] = lambda _: None,
) -> dict:
    """Run the experiment and return its results.

    Parameters
    ----------
    quick : bool
        Smaller grids, fewer MLP epochs and a random subsample of
        :data:`QUICK_TEST_ROWS` test rows.
    seed : int
        Seeds the learners and the test subsample; the run is deterministic given it.
    jobs : int
        Learners run in parallel with joblib on this many processes.
    data_dir : path-like, optional
        Passed to :func:`venncal.datasets.load_adult` (default: the shipped files).
    max_test_rows : int, optional
        Keep at most this many test rows (seeded random subsample, file order kept);
        overrides the quick default.
    learners : tuple of str
        Subset of :data:`LEARNERS` to run.

    Returns
    -------
    dict
        ``results`` (list of :class:`LearnerResult`), ``n_test`` and ``n_test_total``.
    """
    from joblib import Parallel, delayed

    from ..datasets import load_adult

    X_train, y_train, names = load_adult("train", data_dir=data_dir)
    X_test, y_test, _ = load_adult("test", data_dir=data_dir)
    X = np.vstack([X_train, X_test])
    y = np.concatenate([y_train, y_test])
    rows = adult_small_rows(len(y_train), len(y_test))
    test = np.asarray(rows.test)
    n_total = len(test)
    limit = max_test_rows if max_test_rows is not None else (QUICK_TEST_ROWS if quick else None)
    if limit is not None and limit < len(test):
        rng = np.random.default_rng(seed)
        test = np.sort(rng.choice(test, size=limit, replace=False))
    echo(
        f"data: {len(rows.proper)} proper training + {len(rows.calibration)} calibration rows, "
        f"{len(test):,} of {n_total:,} test rows"
    )
    unknown = set(learners) - set(LEARNERS)
    if unknown:
        raise ValueError(f"unknown learners: {sorted(unknown)}")
    groups = groups_from_names(names)
    tasks = (delayed(run_learner)(name, X, y, rows, test, seed, quick, groups) for name in learners)
    results = []
    for r in Parallel(n_jobs=jobs, return_as="generator_unordered")(tasks):
        echo(f"  {r.learner:<16} {r.seconds:6.1f} s  params {r.params}")
        results.append(r)
    results.sort(key=lambda r: learners.index(r.learner))  # finishing order varies
    return {"results": results, "n_test": len(test), "n_test_total": n_total}
