"""The pieces of the multiclass experiment: its data, splits, learners and methods.

:mod:`venncal.experiments.multiclass_benchmark` runs them; they are kept here so that
each can be tested on tiny sizes.

- Data (all offline): scikit-learn's bundled iris, wine and digits, and
  :func:`synthetic_logits`, logits of a known softmax model made overconfident and
  shifted per class, so that the ideal calibrated probabilities are known.
- Splits: :func:`three_way_split` (stratified proper training / calibration / test) and
  :func:`stratified_folds` (the folds of the cross Venn-Abers predictor).
- Learners: :func:`make_learner` and :func:`class_logits`, the learner's K class
  logits (what the Venn-Abers methods calibrate, with ``score="logit"``).
- Methods: :data:`METHODS`, each a function of a :class:`Case` returning the test
  probabilities and, for the Venn-Abers methods, the mean width ``p1 - p0`` of their
  binary intervals.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

__all__ = [
    "DATASETS",
    "LEARNERS",
    "METHODS",
    "SYNTHETIC",
    "Case",
    "FixedLogitsClassifier",
    "class_logits",
    "load",
    "make_learner",
    "softmax",
    "stratified_folds",
    "synthetic_logits",
    "three_way_split",
    "venn_abers_version",
]

DATASETS = ("iris", "wine", "digits", "synthetic")
#: Learner codes: logistic regression, Gaussian naive Bayes, a small neural network, and
#: the given logits of the synthetic data.
LEARNERS = {
    "LR": "StandardScaler + LogisticRegression (C = 1, multinomial)",
    "NB": "GaussianNB (logits: its joint log-likelihoods)",
    "MLP": "StandardScaler + MLPClassifier (one hidden layer of 100 ReLU units, adam, "
    "500 epochs; logits: its output layer before the softmax)",
    "logits": "the synthetic logits themselves (nothing is trained)",
}
#: The synthetic data: classes, rows, the true logits' scale, the temperature and the
#: per-class shifts of the observed logits ``z = z_true / TEMPERATURE + SHIFTS``.
SYNTHETIC = {
    "classes": 5,
    "rows": 4000,
    "scale": 1.5,
    "temperature": 0.5,
    "shifts": (1.0, 0.5, 0.0, -0.5, -1.0),
}
#: Parts of each class in proper training, calibration and test.
SPLIT = (0.5, 0.25, 0.25)
N_FOLDS = 5


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax of logits (the largest logit of each row subtracted first).

    Examples
    --------
    >>> softmax(np.array([[0.0, 0.0], [1000.0, 0.0]])).tolist()
    [[0.5, 0.5], [1.0, 0.0]]
    """
    with np.errstate(over="ignore"):  # a logit below max - 1.8e308 gives -inf, so 0: right
        e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def synthetic_logits(
    rng: np.random.Generator, n: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw the synthetic data: ``(observed logits, labels, true probabilities)``.

    The true logits of each row are independent normals of standard deviation
    ``SYNTHETIC["scale"]``; the label is drawn from their softmax. The observed logits
    are the true ones divided by the temperature 0.5 (overconfident) plus a shift per
    class (``SYNTHETIC["shifts"]``), so the calibrated probabilities of an observed
    ``z`` are ``softmax(0.5 * (z - shifts))``: the true ones, returned as the floor.

    Examples
    --------
    >>> z, y, p = synthetic_logits(np.random.default_rng(0), n=4)
    >>> z.shape, y.shape, p.shape, bool(np.allclose(p.sum(axis=1), 1))
    ((4, 5), (4,), (4, 5), True)
    """
    n = SYNTHETIC["rows"] if n is None else n
    K = SYNTHETIC["classes"]
    true = rng.normal(scale=SYNTHETIC["scale"], size=(n, K))
    p = softmax(true)
    y = (p.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1)
    y = np.minimum(y, K - 1)  # cumsum may end a rounding below 1
    z = true / SYNTHETIC["temperature"] + np.asarray(SYNTHETIC["shifts"])
    return z, y, p


def load(dataset: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Return ``(X, y, true probabilities or None)`` of a data set of :data:`DATASETS`.

    The synthetic data are drawn once per seed; their ``X`` is the observed logits.
    """
    from sklearn import datasets

    if dataset == "synthetic":
        return synthetic_logits(np.random.default_rng([seed, 7919]))
    loaders = {"iris": datasets.load_iris, "wine": datasets.load_wine,
               "digits": datasets.load_digits}
    if dataset not in loaders:
        raise ValueError(f"unknown data set {dataset!r}; expected one of {DATASETS}")
    X, y = loaders[dataset](return_X_y=True)
    return X.astype(float), y, None


def three_way_split(
    y: np.ndarray, rng: np.random.Generator, parts: tuple[float, float, float] = SPLIT
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split rows into proper training, calibration and test, class by class.

    Each class's rows are permuted; the first ``round(parts[0] * n_c)`` go to the proper
    training set, the next ``round((parts[0] + parts[1]) * n_c) - ...`` to the calibration
    set, the rest to the test set. Every part gets at least one row of each class.

    Returns
    -------
    train, calibration, test : ndarray of int
        Sorted row indices; together they are every row once.

    Raises
    ------
    ValueError
        If a class has fewer than 3 rows.

    Examples
    --------
    >>> y = np.array([0] * 8 + [1] * 4)
    >>> [len(part) for part in three_way_split(y, np.random.default_rng(0))]
    [6, 3, 3]
    """
    out: tuple[list, list, list] = ([], [], [])
    for c in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == c))
        n = len(rows)
        if n < 3:
            raise ValueError(f"class {c.item()!r} has {n} rows; three_way_split needs at least 3")
        a = min(max(1, round(parts[0] * n)), n - 2)
        b = min(max(a + 1, round((parts[0] + parts[1]) * n)), n - 1)
        for part, chunk in zip(out, (rows[:a], rows[a:b], rows[b:]), strict=True):
            part.append(chunk)
    train, cal, test = (np.sort(np.concatenate(p)) for p in out)
    return train, cal, test


def stratified_folds(y: np.ndarray, n_folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold id (0 .. n_folds - 1) of each row: each class's permuted rows dealt in turn.

    Examples
    --------
    >>> np.bincount(stratified_folds(np.array([0] * 10 + [1] * 5), 5, np.random.default_rng(0)))
    array([3, 3, 3, 3, 3])
    """
    folds = np.empty(len(y), dtype=np.int64)
    start = 0
    for c in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == c))
        folds[rows] = (start + np.arange(len(rows))) % n_folds
        start += len(rows)  # the next class continues the deal, so folds stay balanced
    return folds


class FixedLogitsClassifier(ClassifierMixin, BaseEstimator):
    """The "model" of the synthetic data: its inputs are its logits.

    ``fit`` only records the classes; ``decision_function(X)`` is ``X`` and
    ``predict_proba(X)`` its softmax. It lets scikit-learn's ``CalibratedClassifierCV``
    calibrate given logits, as it calibrates a fitted model's decision function.

    Examples
    --------
    >>> m = FixedLogitsClassifier().fit(np.zeros((2, 3)), [0, 2])
    >>> m.classes_.tolist(), m.predict_proba(np.zeros((1, 3))).round(3).tolist()
    ([0, 1, 2], [[0.333, 0.333, 0.333]])
    """

    def fit(self, X, y):
        X = np.asarray(X, dtype=float)
        self.classes_ = np.arange(X.shape[1])
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        return np.asarray(X, dtype=float)

    def predict_proba(self, X) -> np.ndarray:
        return softmax(self.decision_function(X))

    def predict(self, X) -> np.ndarray:
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]


def make_learner(code: str, seed: int):
    """Return the unfitted learner ``code`` of :data:`LEARNERS` (``random_state=seed``).

    Examples
    --------
    >>> make_learner("NB", 0)
    GaussianNB()
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if code == "LR":
        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000))
    if code == "NB":
        return GaussianNB()
    if code == "MLP":
        mlp = MLPClassifier(hidden_layer_sizes=(100,), max_iter=500, random_state=seed)
        return make_pipeline(StandardScaler(), mlp)
    if code == "logits":
        return FixedLogitsClassifier()
    raise ValueError(f"unknown learner {code!r}; expected one of {list(LEARNERS)}")


_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "identity": lambda a: a,
    "relu": lambda a: np.maximum(a, 0.0),
    "tanh": np.tanh,
    "logistic": lambda a: 1.0 / (1.0 + np.exp(-a)),
}


def _mlp_logits(model, X: np.ndarray) -> np.ndarray:
    """The output layer of a fitted ``make_pipeline(..., MLPClassifier)`` before its softmax."""
    mlp = model[-1]
    a = model[:-1].transform(X) if len(model) > 1 else np.asarray(X, dtype=float)
    act = _ACTIVATIONS[mlp.activation]
    last = len(mlp.coefs_) - 1
    for i, (W, b) in enumerate(zip(mlp.coefs_, mlp.intercepts_, strict=True)):
        a = a @ W + b
        if i < last:
            a = act(a)
    return a


def class_logits(model, code: str, X: np.ndarray) -> np.ndarray:
    """Return the (n, K) class logits of a fitted learner: their softmax is ``predict_proba``.

    LR: ``decision_function`` (multinomial logits); NB: ``predict_joint_log_proba``
    (finite where ``predict_proba`` rounds to 0 or 1); MLP: its output layer; the
    synthetic data: the inputs.
    """
    if code in ("LR", "logits"):
        return model.decision_function(X)
    if code == "NB":
        return model.predict_joint_log_proba(X)
    if code == "MLP":
        return _mlp_logits(model, X)
    raise ValueError(f"unknown learner {code!r}; expected one of {list(LEARNERS)}")


def venn_abers_version() -> str | None:
    """The installed version of the ``venn-abers`` package, or None when it is not importable."""
    if importlib.util.find_spec("venn_abers") is None:
        return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("venn-abers")
    except PackageNotFoundError:  # importable from a path without its metadata
        return "unknown version"


# ------------------------------------------------------------------------------ methods


@dataclass
class Case:
    """One split of one (data set, learner): the fitted model and the rows each method sees."""

    learner: str
    seed: int
    model: object
    X_cal: np.ndarray
    y_cal: np.ndarray
    X_test: np.ndarray
    #: proper training + calibration rows, and their folds (for the cross Venn-Abers predictor)
    X_fit: np.ndarray
    y_fit: np.ndarray
    folds: np.ndarray

    def logits(self, X: np.ndarray, model=None) -> np.ndarray:
        return class_logits(self.model if model is None else model, self.learner, X)


def _width(interval: np.ndarray) -> float:
    """Mean of ``p1 - p0`` over the rows and binary problems of a ``predict_interval``."""
    return float(np.mean(interval[..., 1] - interval[..., 0]))


def _uncalibrated(case: Case):
    return case.model.predict_proba(case.X_test), None


def _venn_abers_ovr(case: Case):
    from ..multiclass import OneVsRestCalibrator

    cal = OneVsRestCalibrator(score="logit").fit(case.logits(case.X_cal), case.y_cal)
    s = case.logits(case.X_test)
    return cal.predict_proba(s), _width(cal.predict_interval(s))


def _venn_abers_ovo(coupling: str):
    def method(case: Case):
        from ..multiclass import OneVsOneCalibrator

        cal = OneVsOneCalibrator(score="logit", coupling=coupling)
        cal.fit(case.logits(case.X_cal), case.y_cal)
        s = case.logits(case.X_test)
        return cal.predict_proba(s), _width(cal.predict_interval(s))

    return method


def _cvap(case: Case):
    """Multiclass CVAP: one model per fold, trained on the other folds of training + calibration."""
    from ..multiclass import OneVsRestCalibrator
    from ..venn_abers import CrossVennAbersCalibrator

    K = len(np.unique(case.y_fit))
    ids = np.unique(case.folds)
    s_fit = np.empty((len(case.y_fit), K))
    s_test = np.empty((len(case.X_test), len(ids), K))
    for f, fold in enumerate(ids):
        held = case.folds == fold
        model = make_learner(case.learner, case.seed).fit(case.X_fit[~held], case.y_fit[~held])
        s_fit[held] = case.logits(case.X_fit[held], model)
        s_test[:, f] = case.logits(case.X_test, model)
    cal = OneVsRestCalibrator(CrossVennAbersCalibrator(), score="logit")
    cal.fit(s_fit, case.y_fit, folds=case.folds)
    return cal.predict_proba(s_test), _width(cal.predict_interval(s_test))


def _sklearn(method_name: str):
    def method(case: Case):
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.frozen import FrozenEstimator

        cal = CalibratedClassifierCV(FrozenEstimator(case.model), method=method_name)
        return cal.fit(case.X_cal, case.y_cal).predict_proba(case.X_test), None

    return method


def _venn_abers_package(va_type: str):
    def method(case: Case):
        from venn_abers import VennAbersCalibrator

        p, p0p1 = VennAbersCalibrator().predict_proba(
            p_cal=case.model.predict_proba(case.X_cal), y_cal=case.y_cal,
            p_test=case.model.predict_proba(case.X_test), va_type=va_type, p0_p1_output=True,
        )
        return p, float(np.mean([np.mean(pair[:, 1] - pair[:, 0]) for pair in p0p1]))

    return method


#: name -> (function of a :class:`Case` -> (test probabilities, mean width or None),
#: needs the venn-abers package). The order is the tables' row order.
METHODS: dict[str, tuple[Callable, bool]] = {
    "uncalibrated": (_uncalibrated, False),
    "VA OvR (IVAP)": (_venn_abers_ovr, False),
    "VA OvO price": (_venn_abers_ovo("price"), False),
    "VA OvO normalize": (_venn_abers_ovo("normalize"), False),
    "VA OvO wu-lin-weng": (_venn_abers_ovo("wu-lin-weng"), False),
    "CVAP OvR (5 folds)": (_cvap, False),
    "sklearn sigmoid": (_sklearn("sigmoid"), False),
    "sklearn isotonic": (_sklearn("isotonic"), False),
    "sklearn temperature": (_sklearn("temperature"), False),
    "venn-abers OvR": (_venn_abers_package("one_vs_rest"), True),
    "venn-abers OvO": (_venn_abers_package("one_vs_one"), True),
}
