"""``venncal demo``: calibrate a few scikit-learn models on the shipped Adult data."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["add_parser", "run"]

#: Rows of the training and of the test file kept by ``--quick``.
QUICK_TRAIN_ROWS = 5_000
QUICK_TEST_ROWS = 5_000
CV_FOLDS = 5
CALIBRATION_SIZE = 0.2


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register the ``demo`` subcommand.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The object returned by ``ArgumentParser.add_subparsers``.

    Returns
    -------
    argparse.ArgumentParser
        The ``demo`` parser.
    """
    description = (
        "Train logistic regression, Gaussian naive Bayes and a random forest on the UCI "
        "Adult training file shipped with venncal, calibrate them with the inductive "
        "(IVAP) and cross (CVAP, 5 folds) Venn-Abers predictors, and print the test-set "
        "log loss (bits), Brier loss and mean Venn-Abers interval width."
    )
    parser = subparsers.add_parser(
        "demo",
        help="calibrate a few models on the shipped Adult data and print a loss table",
        description=description,
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="random seed for subsampling, the models and the calibration splits (default: 0)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=(
            f"use a random subsample of {QUICK_TRAIN_ROWS:,} training and "
            f"{QUICK_TEST_ROWS:,} test rows (a few seconds instead of ~20)"
        ),
    )
    parser.set_defaults(func=run)
    return parser


# ------------------------------------------------------------------------------- metrics


def _log_loss_bits(y: np.ndarray, proba: np.ndarray) -> float:
    """Mean negative base-2 log of the probability given to the true label.

    No clipping: a probability of exactly 0 for the true label gives ``inf``.
    """
    p_true = np.where(y == 1, proba[:, 1], proba[:, 0])
    with np.errstate(divide="ignore"):
        return float(-np.mean(np.log2(p_true)))


def _brier(y: np.ndarray, proba: np.ndarray) -> float:
    """Mean squared difference between the label and the probability of class 1."""
    return float(np.mean((y - proba[:, 1]) ** 2))


# -------------------------------------------------------------------------------- models


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


# --------------------------------------------------------------------------------- output


def _fmt(value: float, digits: int = 4) -> str:
    return "inf" if np.isinf(value) else f"{value:.{digits}f}"


def _table(rows: Sequence[tuple[str, float, float, float | None]]) -> list[str]:
    lines = [f"  {'method':<16}{'log loss':>10}{'Brier':>10}{'width':>10}"]
    for name, log_loss, brier, width in rows:
        w = "-" if width is None else _fmt(width)
        lines.append(f"  {name:<16}{_fmt(log_loss):>10}{_fmt(brier):>10}{w:>10}")
    return lines


# ------------------------------------------------------------------------------------ run


def run(args: argparse.Namespace, *, echo: Callable[[str], None] = print) -> int:
    """Run the demo and print the results.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed arguments with ``seed`` (int) and ``quick`` (bool).
    echo : callable, default=print
        Called with each output line.

    Returns
    -------
    int
        The exit code, 0.
    """
    from threadpoolctl import threadpool_limits  # a scikit-learn dependency

    start = time.perf_counter()
    # Multithreaded BLAS only slows down problems this small (a lot, on a busy machine).
    with threadpool_limits(limits=1, user_api="blas"):
        return _run(int(args.seed), bool(args.quick), echo, start)


def _run(seed: int, quick: bool, echo: Callable[[str], None], start: float) -> int:
    from sklearn.base import clone

    from .. import VennAbersClassifier, __version__
    from ..datasets import load_adult

    X_train, y_train, names = load_adult("train")
    X_test, y_test, _ = load_adult("test")
    if quick:
        rng = np.random.default_rng(seed)
        X_train, y_train = _subsample(X_train, y_train, QUICK_TRAIN_ROWS, rng)
        X_test, y_test = _subsample(X_test, y_test, QUICK_TEST_ROWS, rng)

    how = "random subsample of " if quick else ""
    echo(f"venncal {__version__} demo: UCI Adult census income, label 1 = income >50K")
    echo(f"  train: {len(y_train):,} rows, {how}adult.data ({np.mean(y_train):.2%} positive)")
    echo(f"  test:  {len(y_test):,} rows, {how}adult.test ({np.mean(y_test):.2%} positive)")
    echo(f"  features: {len(names)} (6 continuous, 8 categorical one-hot encoded)")
    echo(f"  seed:  {seed}")
    echo("raw   model fitted on the whole training set")
    echo(
        f"IVAP  model fitted on {1 - CALIBRATION_SIZE:.0%} of it, "
        f"Venn-Abers calibration on the other {CALIBRATION_SIZE:.0%}"
    )
    echo(f"CVAP  cross Venn-Abers predictor, {CV_FOLDS} folds, log-loss minimax merge")
    echo("log loss: test-set mean of -log2 p(true label), no clipping (inf if p = 0)")
    echo("Brier:    test-set mean of (y - p)^2")
    echo("width:    mean of p1 - p0; for CVAP (p0, p1) = (1 - GM(1 - p0), GM(p1)) over the")
    echo("          folds (GM = geometric mean), a pair that can be unordered")

    for title, estimator in _models(seed):
        t0 = time.perf_counter()
        raw = clone(estimator).fit(X_train, y_train)
        rows: list[tuple[str, float, float, float | None]] = []
        proba = raw.predict_proba(X_test)
        rows.append(("raw", _log_loss_bits(y_test, proba), _brier(y_test, proba), None))
        for label, method in (("IVAP", "ivap"), (f"CVAP ({CV_FOLDS} folds)", "cvap")):
            va = VennAbersClassifier(
                clone(estimator),
                method=method,
                cv=CV_FOLDS,
                calibration_size=CALIBRATION_SIZE,
                random_state=seed,
            ).fit(X_train, y_train)
            proba = va.predict_proba(X_test)
            interval = va.predict_interval(X_test)
            width = float(np.mean(interval[:, 1] - interval[:, 0]))
            rows.append((label, _log_loss_bits(y_test, proba), _brier(y_test, proba), width))
        echo("")
        echo(f"{title}  [{time.perf_counter() - t0:.1f} s]")
        for line in _table(rows):
            echo(line)

    echo("")
    echo(f"elapsed: {time.perf_counter() - start:.1f} s")
    return 0
