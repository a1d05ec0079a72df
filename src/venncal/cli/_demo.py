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
DEFAULT_PLOT = "venncal-demo-reliability.png"


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
        "Adult training file shipped with venncal, calibrate them with Platt scaling, "
        "isotonic regression, the inductive (IVAP) and the cross (CVAP, 5 folds) "
        "Venn-Abers predictors, print the test-set metrics and write reliability diagrams."
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
    parser.add_argument(
        "--plot",
        default=DEFAULT_PLOT,
        metavar="PATH",
        help=(
            "write the reliability diagrams (one panel per model) to this PNG "
            f"(default: {DEFAULT_PLOT}; needs matplotlib: pip install \"venncal[plot]\")"
        ),
    )
    parser.add_argument(
        "--no-plot", dest="plot", action="store_const", const=None, help="write no figure"
    )
    parser.set_defaults(func=run)
    return parser


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


COLUMNS = ("log loss", "Brier", "ECE", "AUC", "accuracy", "width")


def _table(rows: Sequence[tuple[str, dict[str, float | None]]]) -> list[str]:
    lines = [f"  {'method':<16}" + "".join(f"{c:>10}" for c in COLUMNS)]
    for name, values in rows:
        cells = "".join(
            f"{'-' if values[c] is None else _fmt(values[c]):>10}" for c in COLUMNS
        )
        lines.append(f"  {name:<16}{cells}")
    return lines


def _scores(y: np.ndarray, p: np.ndarray, interval: np.ndarray | None) -> dict[str, float | None]:
    from ..metrics import accuracy, brier_loss, ece, log_loss, roc_auc

    return {
        "log loss": log_loss(y, p, base=2),
        "Brier": brier_loss(y, p),
        "ECE": ece(y, p, n_bins=10),
        "AUC": roc_auc(y, p),
        "accuracy": accuracy(y, p),
        "width": None if interval is None else float(np.mean(interval[:, 1] - interval[:, 0])),
    }


# ------------------------------------------------------------------------------------ run


def run(args: argparse.Namespace, *, echo: Callable[[str], None] = print) -> int:
    """Run the demo and print the results.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed arguments with ``seed`` (int), ``quick`` (bool) and ``plot``
        (a path, or None for no figure).
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
        return _run(int(args.seed), bool(args.quick), getattr(args, "plot", None), echo, start)


def _run(
    seed: int, quick: bool, plot: str | None, echo: Callable[[str], None], start: float
) -> int:
    from sklearn.base import clone
    from sklearn.model_selection import train_test_split

    from .. import VennAbersClassifier, __version__
    from ..baselines import IsotonicCalibrator, PlattCalibrator
    from ..datasets import load_adult
    from ..venn_abers import VennAbersCalibrator

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
    echo("raw       model fitted on the whole training set")
    echo(
        f"Platt, isotonic, IVAP: one model fitted on {1 - CALIBRATION_SIZE:.0%} of it, "
        f"calibrated on the other {CALIBRATION_SIZE:.0%}"
    )
    echo("          (isotonic = the papers' direct isotonic regression, nearest score)")
    echo(f"CVAP      cross Venn-Abers predictor, {CV_FOLDS} folds, log-loss minimax merge")
    echo("log loss: test-set mean of -log2 p(true label), no clipping (inf if p = 0)")
    echo("Brier:    mean of (y - p)^2;  ECE: 10 equal-width bins;  accuracy: p > 0.5")
    echo("width:    mean of p1 - p0; for CVAP (p0, p1) = (1 - GM(1 - p0), GM(p1)) over the")
    echo("          folds (GM = geometric mean), a pair that can be unordered")

    proper, cal = train_test_split(
        np.arange(len(y_train)), test_size=CALIBRATION_SIZE, stratify=y_train, random_state=seed
    )
    proper, cal = np.sort(proper), np.sort(cal)
    panels: list[tuple[str, dict[str, np.ndarray]]] = []
    for title, estimator in _models(seed):
        t0 = time.perf_counter()
        rows: list[tuple[str, dict[str, float | None]]] = []
        probs: dict[str, np.ndarray] = {}

        p_raw = clone(estimator).fit(X_train, y_train).predict_proba(X_test)[:, 1]
        rows.append(("raw", _scores(y_test, p_raw, None)))
        probs["raw"] = p_raw

        model = clone(estimator).fit(X_train[proper], y_train[proper])
        s_cal = model.predict_proba(X_train[cal])[:, 1]
        s_test = model.predict_proba(X_test)[:, 1]
        for label, calibrator in (
            ("Platt", PlattCalibrator()),
            ("isotonic", IsotonicCalibrator()),
        ):
            p = calibrator.fit(s_cal, y_train[cal]).predict_proba(s_test)[:, 1]
            rows.append((label, _scores(y_test, p, None)))
            probs[label] = p
        ivap = VennAbersCalibrator().fit(s_cal, y_train[cal])
        p = ivap.predict_proba(s_test)[:, 1]
        rows.append(("IVAP", _scores(y_test, p, ivap.predict_interval(s_test))))
        probs["IVAP"] = p

        cvap = VennAbersClassifier(
            clone(estimator), method="cvap", cv=CV_FOLDS, random_state=seed
        ).fit(X_train, y_train)
        p = cvap.predict_proba(X_test)[:, 1]
        rows.append((f"CVAP ({CV_FOLDS} folds)", _scores(y_test, p, cvap.predict_interval(X_test))))
        probs["CVAP"] = p

        echo("")
        echo(f"{title}  [{time.perf_counter() - t0:.1f} s]")
        for line in _table(rows):
            echo(line)
        panels.append((title, probs))

    if plot:
        echo("")
        echo(_write_plot(plot, y_test, panels))
    echo("")
    echo(f"elapsed: {time.perf_counter() - start:.1f} s")
    return 0


def _write_plot(path: str, y: np.ndarray, panels) -> str:
    """Write one reliability diagram per model; return the line to print."""
    try:
        import matplotlib
    except ImportError:
        return 'reliability diagrams: skipped (matplotlib missing: pip install "venncal[plot]")'
    if "matplotlib.pyplot" not in __import__("sys").modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plotting import reliability_diagram

    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 5.2), squeeze=False)
    for ax, (title, probs) in zip(axes[0], panels, strict=True):
        reliability_diagram(y, probs, n_bins=10, ax=ax)
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"reliability diagrams: {path}"
