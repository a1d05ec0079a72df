"""The tasks of the calibration arena: data, models, splits and the scores calibrated.

:mod:`venncal.experiments.calibration_arena` runs every method on every task built
here; the pieces are kept apart so that each can be tested on tiny sizes.

A task is one (data, model, split): a model trained on the training rows scores the
calibration and test rows, and the arena's methods calibrate those scores.

- Binary tabular: the UCI sets of :data:`venncal.datasets.DATASETS` read with
  :func:`venncal.datasets.load_dataset` (adult is shipped; the others need the data
  folder), scikit-learn's bundled breast-cancer set, under the models of
  :data:`BINARY_MODELS`.
- Multiclass tabular: scikit-learn's bundled iris, wine and digits under
  :data:`MULTICLASS_MODELS`.
- Synthetic logits ("deep-learning-like"): :func:`synthetic_logits`, logits of a known
  softmax model distorted in a known way (:data:`DISTORTIONS`) for K = 2, 10, 100.

Split of every tabular task: stratified, 50% training, 25% calibration, 25% test
(:func:`venncal.experiments._multiclass_cases.three_way_split`); bank and adult are first
subsampled to :data:`BIG_ROWS` rows (the same rows for every model of a seed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._multiclass_cases import class_logits, softmax, three_way_split

__all__ = ["BIG_ROWS", "BINARY_MODELS", "BINARY_SETS", "DISTORTIONS", "MULTICLASS_MODELS",
           "MULTICLASS_SETS", "SYNTHETIC_K", "SYNTHETIC_ROWS", "Task", "TaskSpec",
           "build_task", "make_model", "model_scores", "synthetic_logits"]

#: Binary tabular sets: name -> where it comes from ("bundled": scikit-learn, "shipped":
#: venncal's adult files, "uci": the data folder).
BINARY_SETS = {
    "breast-cancer": "bundled", "adult": "shipped", "bank": "uci", "australian": "uci",
    "diabetes": "uci", "ionosphere": "uci", "liver": "uci", "vote": "uci", "breast": "uci",
}
#: Multiclass tabular sets, all bundled with scikit-learn.
MULTICLASS_SETS = ("iris", "wine", "digits")
#: Rows drawn from the two large sets (adult, bank) per seed.
BIG_ROWS = 4000
#: Models: code -> (description, what is calibrated).  The score kind is "logit" except
#: for the random forest, whose probabilities are calibrated ("proba").
BINARY_MODELS = {
    "LR": "StandardScaler + LogisticRegression (C = 1): its decision function (logit)",
    "RF": "RandomForestClassifier (100 trees): its probabilities, clipped to [0.001, 0.999]",
    "HGB": "HistGradientBoostingClassifier (defaults): its decision function (logit)",
    "NB": "GaussianNB: the log ratio of its joint likelihoods (logit)",
    "SVM": "StandardScaler + SVC (RBF, C = 1): its margin (read as a logit)",
}
MULTICLASS_MODELS = {
    "LR": "StandardScaler + LogisticRegression (C = 1, multinomial): class logits",
    "RF": "RandomForestClassifier (100 trees): class probabilities clipped at 0.001, renormalised",
    "HGB": "HistGradientBoostingClassifier (defaults): class logits",
    "NB": "GaussianNB: joint log-likelihoods (class logits)",
    "MLP": "StandardScaler + MLPClassifier (100 ReLU units): output-layer logits",
}
#: The random forest's probabilities are clipped to [RF_CLIP, 1 - RF_CLIP] and renormalised
#: (a vote share of 0 has no logarithm for vector, matrix and structured scaling).
RF_CLIP = 1e-3
#: Synthetic distortions of true logits z: observed = a * z + b.
DISTORTIONS = {
    "overconfident": "logits times 2.5 (temperature 0.4)",
    "underconfident": "logits times 0.5 (temperature 2)",
    "biased": "a shift per class, from -1 to 1 (K = 2: +1 on the positive class)",
    "over+biased": "logits times 2 and the shifts of 'biased'",
}
SYNTHETIC_K = (2, 10, 100)
#: Synthetic rows: calibration, test.
SYNTHETIC_ROWS = (2000, 5000)


@dataclass(frozen=True)
class TaskSpec:
    """What one task is: data, model, split (repetition) and its group in the report."""

    group: str  # "binary", "multiclass", "synthetic-binary", "synthetic-multiclass"
    data: str
    model: str
    rep: int

    @property
    def name(self) -> str:
        return f"{self.data}/{self.model}/{self.rep}"


@dataclass
class Task:
    """One task's scores: what every method calibrates and is scored on."""

    spec: TaskSpec
    #: "proba" or "logit"
    score: str
    s_cal: np.ndarray
    y_cal: np.ndarray
    s_test: np.ndarray
    y_test: np.ndarray
    #: the true test probabilities (synthetic tasks), else None
    truth: np.ndarray | None
    #: rows (training, calibration, test)
    sizes: tuple[int, int, int]

    @property
    def n_classes(self) -> int:
        return 2 if self.s_cal.ndim == 1 else self.s_cal.shape[1]


def make_model(code: str, seed: int, binary: bool):
    """The unfitted model ``code`` (``random_state=seed`` where it has one)."""
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    models = BINARY_MODELS if binary else MULTICLASS_MODELS
    if code not in models:
        raise ValueError(f"unknown model {code!r}; expected one of {list(models)}")
    if code == "LR":
        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000))
    if code == "RF":
        return RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1)
    if code == "HGB":
        return HistGradientBoostingClassifier(random_state=seed)
    if code == "NB":
        return GaussianNB()
    if code == "SVM":
        return make_pipeline(StandardScaler(), SVC(C=1.0, random_state=seed))
    mlp = MLPClassifier(hidden_layer_sizes=(100,), max_iter=500, random_state=seed)
    return make_pipeline(StandardScaler(), mlp)


def model_scores(model, code: str, X: np.ndarray, binary: bool) -> tuple[str, np.ndarray]:
    """``(score kind, scores)`` of a fitted model: one column for two classes, else K."""
    if code == "RF":  # clipped: vector/matrix scaling need finite log-probabilities
        p = np.clip(model.predict_proba(X), RF_CLIP, 1.0 - RF_CLIP)
        p /= p.sum(axis=1, keepdims=True)
        return "proba", (p[:, 1] if binary else p)
    if code == "NB":
        joint = model.predict_joint_log_proba(X)
        return "logit", (joint[:, 1] - joint[:, 0] if binary else joint)
    if code in ("LR", "HGB", "SVM"):
        return "logit", np.asarray(model.decision_function(X), dtype=np.float64)
    return "logit", class_logits(model, "MLP", X)


def _load_tabular(name: str, data_dir, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn import datasets

    bundled = {"iris": datasets.load_iris, "wine": datasets.load_wine,
               "digits": datasets.load_digits, "breast-cancer": datasets.load_breast_cancer}
    if name in bundled:
        X, y = bundled[name](return_X_y=True)
        return X.astype(np.float64), y
    from ..datasets import load_dataset

    X, y, _ = load_dataset(name, data_dir=None if BINARY_SETS[name] == "shipped" else data_dir)
    if X.shape[0] > BIG_ROWS:  # the same rows for every model and repetition of a seed
        rows = np.sort(np.random.default_rng([seed, 104729]).choice(X.shape[0], BIG_ROWS,
                                                                     replace=False))
        X, y = X[rows], y[rows]
    return X, y


def synthetic_logits(K: int, distortion: str, rng: np.random.Generator, n: int):
    """``(observed logits, labels, true probabilities)`` of ``n`` rows of K classes.

    The true logits are independent normals (standard deviation ``2.5 / sqrt(log K)``
    clipped to the range 1..2.5, so the top-label confidence is moderate for every K);
    the label is drawn from their softmax; the observed logits are distorted as
    :data:`DISTORTIONS` says.  For K = 2 only the difference of the two logits is
    returned (one column: the positive class's logit).

    Examples
    --------
    >>> z, y, p = synthetic_logits(10, "biased", np.random.default_rng(0), 5)
    >>> z.shape, y.shape, p.shape
    ((5, 10), (5,), (5, 10))
    >>> synthetic_logits(2, "overconfident", np.random.default_rng(0), 5)[0].shape
    (5,)
    """
    if distortion not in DISTORTIONS:
        raise ValueError(f"unknown distortion {distortion!r}; expected one of {list(DISTORTIONS)}")
    scale = float(np.clip(2.5 / np.sqrt(np.log(K)), 1.0, 2.5))
    true = rng.normal(scale=scale, size=(n, K))
    p = softmax(true)
    y = np.minimum((p.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1), K - 1)
    a = {"overconfident": 2.5, "underconfident": 0.5, "biased": 1.0, "over+biased": 2.0}
    shifts = np.zeros(K) if distortion in ("overconfident", "underconfident") else (
        np.array([0.0, 1.0]) if K == 2 else np.linspace(-1.0, 1.0, K))
    z = a[distortion] * true + shifts
    if K == 2:
        return z[:, 1] - z[:, 0], y, p
    return z, y, p


def build_task(spec: TaskSpec, seed: int, data_dir=None, cache: dict | None = None) -> Task:
    """Train the model of ``spec`` on its split (or draw the synthetic logits); score the rows.

    The split of repetition ``rep`` of a data set is drawn from
    ``default_rng([seed, hash of the data name, rep])`` and is the same for every model;
    the model's ``random_state`` is ``seed + rep``.  ``cache`` (optional) keeps the loaded
    data sets between calls.
    """
    tag = int.from_bytes(spec.data.encode()[:8].ljust(8, b"\0"), "little") % (2**31)
    if spec.group.startswith("synthetic"):
        K, distortion = _synthetic_name(spec.data)
        rng = np.random.default_rng([seed, tag, spec.rep])
        n_cal, n_test = SYNTHETIC_ROWS
        z, y, p = synthetic_logits(K, distortion, rng, n_cal + n_test)
        return Task(spec, "logit", z[:n_cal], y[:n_cal], z[n_cal:], y[n_cal:], p[n_cal:],
                    (0, n_cal, n_test))
    binary = spec.group == "binary"
    cache = {} if cache is None else cache
    if spec.data not in cache:
        cache[spec.data] = _load_tabular(spec.data, data_dir, seed)
    X, y = cache[spec.data]
    _, y = np.unique(y, return_inverse=True)
    train, cal, test = three_way_split(y, np.random.default_rng([seed, tag, spec.rep]))
    model = make_model(spec.model, seed + spec.rep, binary).fit(X[train], y[train])
    kind, s_cal = model_scores(model, spec.model, X[cal], binary)
    _, s_test = model_scores(model, spec.model, X[test], binary)
    return Task(spec, kind, s_cal, y[cal], s_test, y[test], None,
                (len(train), len(cal), len(test)))


def _synthetic_name(data: str) -> tuple[int, str]:
    """``"K10-biased"`` -> ``(10, "biased")``."""
    head, _, distortion = data.partition("-")
    return int(head[1:]), distortion
