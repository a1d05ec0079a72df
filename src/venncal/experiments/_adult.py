"""Learners, grids and data shared by the two adult experiments of Vovk, Petej & Fedorova 2015.

The six scikit-learn learners stand in for the paper's Weka ones (J48, J48 bagging,
logistic regression, naive Bayes, MultilayerPerceptron, SMO with a linear kernel); the
numbers are therefore not expected to match to the digit. Each learner's parameters are
chosen from a small grid by the Brier loss of its own probability estimates
(``predict_proba``) on the rows it is calibrated on; the linear SVM has no probabilities,
so its scores are first mapped by a Platt sigmoid fitted on those same rows.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any, NamedTuple

import numpy as np

from ._report import count_convergence_warnings
from .naive_bayes import MixedNaiveBayes, groups_from_names

__all__ = [
    "LEARNERS",
    "LOSSES",
    "MLP_EPOCHS",
    "QUICK_TEST_ROWS",
    "STAND_INS",
    "AdultData",
    "check_learners",
    "fit_learner",
    "grid",
    "grid_text",
    "learner_scores",
    "load_adult_rows",
    "selection_loss",
    "subsample",
]

#: Display names, in the paper's row order.
LEARNERS = ("J48", "J48 bagging", "logistic", "naive Bayes", "neural networks", "SVM")
LOSSES = ("log loss", "Brier loss")
#: Test rows kept (a seeded random subsample, in file order) by ``--quick``.
QUICK_TEST_ROWS = 5_000

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

#: Weka's default bag count.
_N_BAGS = 10
#: MLP epochs, full and quick.
MLP_EPOCHS = {False: 200, True: 60}

#: How each stand-in is built and tuned (for the reports).
STAND_INS = (
    "Stand-ins: J48 = DecisionTreeClassifier(criterion='entropy') (min_samples_leaf "
    "instead of the pruning confidence); J48 bagging = BaggingClassifier of 10 such "
    "trees; logistic = LogisticRegression on standardized features (C = 1/ridge); "
    "naive Bayes = Weka-like naive Bayes (Laplace-smoothed frequency tables for the "
    "nominal attributes, normal densities for the numeric ones; pseudo-count tuned); "
    "neural networks = MLPClassifier (one hidden layer of 53 "
    "units, SGD, learning rate and momentum tuned) on standardized features; SVM = "
    "LinearSVC on standardized features, decision_function scores."
)


def check_learners(learners: tuple[str, ...]) -> None:
    """Raise ValueError if `learners` holds a name outside :data:`LEARNERS`."""
    unknown = set(learners) - set(LEARNERS)
    if unknown:
        raise ValueError(f"unknown learners: {sorted(unknown)}")


def grid(learner: str, quick: bool = False) -> list[dict[str, object]]:
    """Return the parameter settings tried for `learner` (every combination of its grid).

    Examples
    --------
    >>> grid("neural networks", quick=True)
    [{'learning_rate_init': 0.1, 'momentum': 0.2}]
    """
    spec = _GRIDS[learner][1 if quick else 0]
    keys = list(spec)
    return [
        dict(zip(keys, values, strict=False))
        for values in itertools.product(*(spec[k] for k in keys))
    ]


def grid_text(learner: str, quick: bool = False) -> str:
    """Return the grid of `learner` as text, e.g. ``"C in [0.01, 1.0]"``."""
    settings = grid(learner, quick)
    return "; ".join(f"{k} in {sorted({s[k] for s in settings})}" for k in settings[0])


def _make(learner: str, params: dict, seed: int, quick: bool, groups=None) -> Any:
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
        bagging = BaggingClassifier(base, n_estimators=_N_BAGS, random_state=seed)
        return bagging.set_params(**params)
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
            max_iter=MLP_EPOCHS[quick],
            random_state=seed,
            **params,
        )
        return make_pipeline(StandardScaler(), mlp)
    if learner == "SVM":
        return make_pipeline(StandardScaler(), LinearSVC(dual="auto", max_iter=20_000, **params))
    raise ValueError(f"unknown learner {learner!r}")


def fit_learner(learner, params, seed, quick, X, y, counter: list[int], groups=None) -> Any:
    """Fit a fresh `learner` with `params`; count its ConvergenceWarnings in ``counter[0]``.

    ConvergenceWarnings are recorded (and reported), not shown; any other warning goes
    out as usual.
    """
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model = _make(learner, params, seed, quick, groups).fit(X, y)
    counter[0] += count_convergence_warnings(caught)
    return model


def learner_scores(model, X) -> np.ndarray:
    """Return the probabilities of class 1, or the decision values of the SVM."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)[:, 1]
    return model.decision_function(X)


def selection_loss(learner: str, s: np.ndarray, y: np.ndarray) -> float:
    """Return the summed Brier loss 4(y-p)^2 of the learner's probabilities on `y`."""
    if learner == "SVM":
        from ..baselines import PlattCalibrator

        s = PlattCalibrator().fit(s, y).predict_proba(s)[:, 1]
    return float(np.sum(4.0 * (y - s) ** 2))


class AdultData(NamedTuple):
    """The adult files stacked (training rows first), with the one-hot column groups."""

    X: np.ndarray
    y: np.ndarray
    n_train: int
    groups: list[list[int]]


def load_adult_rows(data_dir=None, max_train_rows: int | None = None) -> AdultData:
    """Load the training file (its first `max_train_rows` rows) followed by the test file."""
    from ..datasets import load_adult

    X_train, y_train, names = load_adult("train", data_dir=data_dir)
    X_test, y_test, _ = load_adult("test", data_dir=data_dir)
    n_train = len(y_train) if max_train_rows is None else min(len(y_train), max_train_rows)
    X = np.vstack([X_train[:n_train], X_test])
    y = np.concatenate([y_train[:n_train], y_test])
    return AdultData(X, y, n_train, groups_from_names(names))


def subsample(rows: np.ndarray, limit: int | None, seed: int) -> np.ndarray:
    """Keep at most `limit` of `rows`: a random subsample seeded by `seed`, in file order."""
    if limit is None or limit >= len(rows):
        return rows
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(rows, size=limit, replace=False))
