"""The ``venncal demo`` computation: calibrate a few models on the shipped Adult data.

Logistic regression, Gaussian naive Bayes and a random forest are trained on the UCI
Adult training file and calibrated with Platt scaling, isotonic regression, the
inductive (IVAP) and the cross (CVAP, 5 folds) Venn-Abers predictors; :func:`run`
measures each on the test file and :func:`report` renders the loss tables and draws
one reliability diagram per model.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._report import Report, fmt_loss, new_figure

__all__ = [
    "CALIBRATION_SIZE",
    "COLUMNS",
    "CV_FOLDS",
    "QUICK_TEST_ROWS",
    "QUICK_TRAIN_ROWS",
    "DemoResult",
    "ModelResult",
    "report",
    "run",
]

#: Rows of the training and of the test file kept by ``--quick``.
QUICK_TRAIN_ROWS = 5_000
QUICK_TEST_ROWS = 5_000
CV_FOLDS = 5
#: Fraction of the training rows held out as the calibration set (Platt, isotonic, IVAP).
CALIBRATION_SIZE = 0.2
#: Metrics of the tables, left to right.
COLUMNS = ("log loss", "Brier", "ECE", "AUC", "accuracy", "width")


@dataclass
class ModelResult:
    """Test-set metrics and probabilities of one model under every method."""

    title: str
    #: method -> metric (:data:`COLUMNS`) -> value (None: not defined, e.g. width of raw)
    metrics: dict[str, dict[str, float | None]]
    #: method -> test-set probabilities of class 1
    probs: dict[str, np.ndarray]
    seconds: float


@dataclass
class DemoResult:
    """Everything :func:`run` measured, as :func:`report` needs it."""

    seed: int
    #: Rows used, and whether they are a random subsample of the file.
    n_train: int
    n_test: int
    subsampled: bool
    positive_train: float
    positive_test: float
    n_features: int
    y_test: np.ndarray
    models: list[ModelResult]
    seconds: float


def _models(seed: int) -> list[tuple[str, object]]:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return [
        (
            "Logistic regression (standardized features)",
            make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        ),
        ("Gaussian naive Bayes", GaussianNB()),
        (
            "Random forest (50 trees)",
            RandomForestClassifier(n_estimators=50, n_jobs=-1, random_state=seed),
        ),
    ]


def _subsample(
    X: np.ndarray, y: np.ndarray, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    if n >= len(y):
        return X, y
    rows = np.sort(rng.choice(len(y), size=n, replace=False))
    return X[rows], y[rows]


def _metrics(y: np.ndarray, p: np.ndarray, interval: np.ndarray | None) -> dict:
    from ..metrics import accuracy, brier_loss, ece, log_loss, roc_auc

    return {
        "log loss": log_loss(y, p, base=2),
        "Brier": brier_loss(y, p),
        "ECE": ece(y, p, n_bins=10),
        "AUC": roc_auc(y, p),
        "accuracy": accuracy(y, p),
        "width": None if interval is None else float(np.mean(interval[:, 1] - interval[:, 0])),
    }


def _run_model(title, estimator, X_train, y_train, X_test, y_test, proper, cal, seed):
    """Raw, Platt, isotonic, IVAP and CVAP for one model."""
    from sklearn.base import clone

    from ..baselines import IsotonicCalibrator, PlattCalibrator
    from ..estimators import VennAbersClassifier
    from ..venn_abers import VennAbersCalibrator

    t0 = time.perf_counter()
    probs = {"raw": clone(estimator).fit(X_train, y_train).predict_proba(X_test)[:, 1]}
    metrics = {"raw": _metrics(y_test, probs["raw"], None)}

    model = clone(estimator).fit(X_train[proper], y_train[proper])
    s_cal = model.predict_proba(X_train[cal])[:, 1]
    s_test = model.predict_proba(X_test)[:, 1]
    for label, calibrator in (("Platt", PlattCalibrator()), ("isotonic", IsotonicCalibrator())):
        probs[label] = calibrator.fit(s_cal, y_train[cal]).predict_proba(s_test)[:, 1]
        metrics[label] = _metrics(y_test, probs[label], None)
    ivap = VennAbersCalibrator().fit(s_cal, y_train[cal])
    probs["IVAP"] = ivap.predict_proba(s_test)[:, 1]
    metrics["IVAP"] = _metrics(y_test, probs["IVAP"], ivap.predict_interval(s_test))

    cvap = VennAbersClassifier(clone(estimator), method="cvap", cv=CV_FOLDS, random_state=seed)
    cvap.fit(X_train, y_train)
    probs["CVAP"] = cvap.predict_proba(X_test)[:, 1]
    metrics[f"CVAP ({CV_FOLDS} folds)"] = _metrics(
        y_test, probs["CVAP"], cvap.predict_interval(X_test)
    )
    return ModelResult(title, metrics, probs, time.perf_counter() - t0)


def run(
    *,
    seed: int = 0,
    quick: bool = False,
    max_train_rows: int | None = None,
    max_test_rows: int | None = None,
) -> DemoResult:
    """Fit, calibrate and measure the demo's models.

    Parameters
    ----------
    seed : int, default=0
        Seeds the subsample, the models and the calibration split.
    quick : bool, default=False
        Keep a random subsample of :data:`QUICK_TRAIN_ROWS` training and
        :data:`QUICK_TEST_ROWS` test rows.
    max_train_rows, max_test_rows : int, optional
        Keep at most this many rows (a seeded random subsample); override the quick
        sizes.

    Returns
    -------
    DemoResult
    """
    from sklearn.model_selection import train_test_split
    from threadpoolctl import threadpool_limits  # a scikit-learn dependency

    from ..datasets import load_adult

    start = time.perf_counter()
    X_train, y_train, names = load_adult("train")
    X_test, y_test, _ = load_adult("test")
    n_files = (len(y_train), len(y_test))
    limits = (QUICK_TRAIN_ROWS, QUICK_TEST_ROWS) if quick else (None, None)
    limits = (max_train_rows or limits[0], max_test_rows or limits[1])
    if limits != (None, None):
        rng = np.random.default_rng(seed)
        X_train, y_train = _subsample(X_train, y_train, limits[0] or len(y_train), rng)
        X_test, y_test = _subsample(X_test, y_test, limits[1] or len(y_test), rng)
    proper, cal = train_test_split(
        np.arange(len(y_train)), test_size=CALIBRATION_SIZE, stratify=y_train, random_state=seed
    )
    proper, cal = np.sort(proper), np.sort(cal)
    models = []
    # Multithreaded BLAS only slows down problems this small (a lot, on a busy machine).
    with threadpool_limits(limits=1, user_api="blas"):
        for title, estimator in _models(seed):
            models.append(
                _run_model(title, estimator, X_train, y_train, X_test, y_test, proper, cal, seed)
            )
    return DemoResult(
        seed=seed,
        n_train=len(y_train),
        n_test=len(y_test),
        subsampled=(len(y_train), len(y_test)) != n_files,
        positive_train=float(np.mean(y_train)),
        positive_test=float(np.mean(y_test)),
        n_features=len(names),
        y_test=y_test,
        models=models,
        seconds=time.perf_counter() - start,
    )


# ------------------------------------------------------------------------------ report


def _table(metrics: dict[str, dict[str, float | None]]) -> list[str]:
    lines = [f"  {'method':<16}" + "".join(f"{c:>10}" for c in COLUMNS)]
    for name, values in metrics.items():
        cells = "".join(f"{'-' if values[c] is None else fmt_loss(values[c]):>10}" for c in COLUMNS)
        lines.append(f"  {name:<16}{cells}")
    return lines


def _preamble(result: DemoResult) -> list[str]:
    from .. import __version__

    how = "random subsample of " if result.subsampled else ""
    return [
        f"venncal {__version__} demo: UCI Adult census income, label 1 = income >50K",
        f"  train: {result.n_train:,} rows, {how}adult.data ({result.positive_train:.2%} positive)",
        f"  test:  {result.n_test:,} rows, {how}adult.test ({result.positive_test:.2%} positive)",
        f"  features: {result.n_features} (6 continuous, 8 categorical one-hot encoded)",
        f"  seed:  {result.seed}",
        "raw       model fitted on the whole training set",
        (
            f"Platt, isotonic, IVAP: one model fitted on {1 - CALIBRATION_SIZE:.0%} of it, "
            f"calibrated on the other {CALIBRATION_SIZE:.0%}"
        ),
        "          (isotonic = the papers' direct isotonic regression, nearest score)",
        f"CVAP      cross Venn-Abers predictor, {CV_FOLDS} folds, log-loss minimax merge",
        "log loss: test-set mean of -log2 p(true label), no clipping (inf if p = 0)",
        "Brier:    mean of (y - p)^2;  ECE: 10 equal-width bins;  accuracy: p > 0.5",
        "width:    mean of p1 - p0; for CVAP (p0, p1) = (1 - GM(1 - p0), GM(p1)) over the",
        "          folds (GM = geometric mean), a pair that can be unordered",
    ]


def _plot(path: str | Path, result: DemoResult) -> bool:
    """Write one reliability diagram per model; False without matplotlib."""
    from ..plotting import reliability_diagram

    made = new_figure(len(result.models), (5.5 * len(result.models), 5.2))
    if made is None:
        return False
    fig, axes = made
    for ax, model in zip(axes, result.models, strict=True):
        reliability_diagram(result.y_test, model.probs, n_bins=10, ax=ax)
        ax.set_title(model.title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def report(result: DemoResult, plot: str | Path | None = None) -> Report:
    """Render the demo's tables and write its reliability diagrams.

    Parameters
    ----------
    result : DemoResult
        What :func:`run` returned.
    plot : str or Path, optional
        PNG file for the reliability diagrams (one panel per model); None: no figure.

    Returns
    -------
    Report
        ``text`` is what ``venncal demo`` prints; ``figures`` holds the PNG if written.
    """
    lines = _preamble(result)
    for model in result.models:
        lines += ["", f"{model.title}  [{model.seconds:.1f} s]", *_table(model.metrics)]
    figures: tuple[Path, ...] = ()
    if plot:
        lines.append("")
        if _plot(plot, result):
            figures = (Path(plot),)
            lines.append(f"reliability diagrams: {plot}")
        else:
            lines.append(
                'reliability diagrams: skipped (matplotlib missing: pip install "venncal[plot]")'
            )
    lines += ["", f"elapsed: {result.seconds:.1f} s"]
    return Report(text="\n".join(lines), markdown=None, figures=figures)
