"""Naeini & Cooper 2016, section IV-B, Table I: the simulated circular data.

The paper: M. P. Naeini and G. F. Cooper, *Binary classifier calibration using an
ensemble of near isotonic regression models*, ICDM 2016.

The paper takes its data set from its references [18, 19] (Naeini, Cooper & Hauskrecht,
AAAI 2015 and SDM 2015) and shows it only as a scatter plot (its Figure 2): two classes
in the plane, one inside an oval (the quadratic SVM's decision boundary) and the other
around it. The generating process is not written down, so :func:`circular_data`
assumes one, stated here and in the report:

- the two features are independent standard normal, ``x ~ N(0, I_2)``;
- the label is 1 inside the circle ``x1**2 + x2**2 < r**2`` and 0 outside, without
  label noise (the paper's quadratic SVM reaches AUC 1.00 and accuracy 0.99);
- ``r**2 = -2 log(1 - 0.36)``, so that 36% of the points are positive: the paper's
  linear SVM has accuracy 0.64, that of predicting the majority class everywhere,
  which is what a linear boundary does on such data.

Protocol (the paper's "average of 10-fold cross validation" with 1,000 training and
1,000 test instances): 10 folds, each a fresh draw of 1,000 training and 1,000 test
points. An SVM (scikit-learn ``SVC``, ``C = 1``) with a linear kernel and one with a
quadratic kernel ``(x . x' + 1)**2`` is trained on the training points; its decision
values are mapped through the sigmoid ``1 / (1 + exp(-f))`` (the paper's "SVM"
column); IsoReg (:class:`~venncal.IsotonicCalibrator`), BBQ
(:class:`~venncal.BBQCalibrator`) and ENIR (:class:`~venncal.ENIRCalibrator`) are
fitted on the training points' sigmoid scores (the paper calibrates on the training
data) and evaluated on the test points: AUC, accuracy (threshold 1/2), RMSE, ECE and
MCE with K = 10 equal-width bins (:mod:`venncal.metrics`). The table is the mean over
the folds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from ._report import Report, ReportDraft, new_figure
from ._run import RunInfo, RunOptions, experiment_run

__all__ = [
    "CALIBRATORS",
    "KERNELS",
    "MEASURES",
    "POSITIVE_FRACTION",
    "QUANTILE_MEASURES",
    "SimulatedResult",
    "calibrate",
    "circular_data",
    "measures",
    "report",
    "run",
]

NAME = "naeini2016-simulated"
#: The paper's five measures, in its row order; AUC and ACC are better when higher.
MEASURES = ("AUC", "ACC", "RMSE", "ECE", "MCE")
#: ECE and MCE over 10 equal-frequency bins (not in the paper; a sensitivity check).
QUANTILE_MEASURES = ("ECE-q", "MCE-q")
HIGHER_IS_BETTER = {"AUC": True, "ACC": True, "RMSE": False, "ECE": False, "MCE": False}
#: Calibration methods compared by the paper, in its column order.
CALIBRATORS = ("IsoReg", "BBQ", "ENIR")
KERNELS = ("linear", "quadratic")
#: Fraction of positives (inside the circle) assumed for the simulated data.
POSITIVE_FRACTION = 0.36
#: Training and test points per fold, and folds (full mode, quick mode).
N_TRAIN = N_TEST = 1000
FOLDS = {False: 10, True: 3}

_PROTOCOL = (
    "Naeini & Cooper, *Binary classifier calibration using an ensemble of near "
    "isotonic regression models* (ICDM 2016), section IV-B, Table I: SVMs with "
    "linear and quadratic kernels on simulated circular data, their decision values "
    "mapped through a sigmoid, then IsoReg, BBQ and ENIR fitted on the training data "
    "and evaluated on the test data (AUC, ACC, RMSE, ECE and MCE with K = 10 "
    "equal-width bins); means over the folds."
)
_ASSUMED = (
    "**Assumed data** (the paper shows the data only as a scatter plot and cites its "
    "references [18, 19] for it): features `x ~ N(0, I_2)`, label 1 inside the circle "
    "`x1^2 + x2^2 < r^2` and 0 outside, no label noise, `r^2 = -2 log(0.64)` so that 36% "
    "of the points are positive (the paper's linear SVM has accuracy 0.64, that of the "
    "majority class). Each fold is a fresh draw of 1,000 training and 1,000 test points. "
    "SVMs: scikit-learn `SVC(C=1)`, kernel `linear` or `poly` of degree 2 with "
    "`coef0=1`, `gamma=1`."
)


def circular_data(
    n: int, rng: np.random.Generator, positive_fraction: float = POSITIVE_FRACTION
) -> tuple[np.ndarray, np.ndarray]:
    """Draw `n` points of the assumed simulated data set of Naeini & Cooper 2016, section IV-B.

    Parameters
    ----------
    n : int
        Number of points.
    rng : numpy.random.Generator
        Source of randomness.
    positive_fraction : float, default=0.36
        Probability that a point lies inside the circle (label 1).

    Returns
    -------
    X : ndarray of shape (n, 2)
        Independent standard normal features.
    y : ndarray of shape (n,)
        1 inside the circle of squared radius ``-2 log(1 - positive_fraction)``
        (the ``positive_fraction`` quantile of a chi-square with 2 degrees of freedom),
        0 outside.

    Examples
    --------
    >>> X, y = circular_data(20_000, np.random.default_rng(0))
    >>> X.shape, round(float(y.mean()), 2)
    ((20000, 2), 0.36)
    """
    if not 0.0 < positive_fraction < 1.0:
        raise ValueError(f"positive_fraction must be in (0, 1), got {positive_fraction}")
    X = rng.standard_normal((n, 2))
    r2 = -2.0 * math.log1p(-positive_fraction)
    y = (np.einsum("ij,ij->i", X, X) < r2).astype(np.int64)
    return X, y


def measures(y: np.ndarray, p: np.ndarray) -> dict[str, float]:
    """Return the paper's five measures of probabilities `p` for labels `y` (K = 10 bins).

    The keys are :data:`MEASURES` (ECE and MCE over 10 equal-width bins, as the paper's
    section IV-A describes) followed by :data:`QUANTILE_MEASURES` (the same over 10
    equal-frequency bins, a sensitivity check the reports show separately).
    """
    from ..metrics import accuracy, calibration_bins, rmse, roc_auc

    uniform = calibration_bins(y, p, n_bins=10).errors()
    quantile = calibration_bins(y, p, n_bins=10, strategy="quantile").errors()
    return {
        "AUC": roc_auc(y, p),
        "ACC": accuracy(y, p),
        "RMSE": rmse(y, p),
        "ECE": uniform[0],
        "MCE": uniform[1],
        "ECE-q": quantile[0],
        "MCE-q": quantile[1],
    }


def calibrate(s_train: np.ndarray, y_train: np.ndarray, s_test: np.ndarray) -> dict:
    """Fit IsoReg, BBQ and ENIR on the training scores; return their test probabilities.

    IsoReg predicts by linear interpolation between calibration scores (as scikit-learn's
    ``IsotonicRegression``); BBQ and ENIR take their defaults.
    """
    from ..baselines import BBQCalibrator, IsotonicCalibrator
    from ..enir import ENIRCalibrator

    methods = {
        "IsoReg": IsotonicCalibrator(interpolation="linear"),
        "BBQ": BBQCalibrator(),
        "ENIR": ENIRCalibrator(),
    }
    return {m: c.fit(s_train, y_train).predict_proba(s_test)[:, 1] for m, c in methods.items()}


def _svm(kernel: str, seed: int):
    from sklearn.svm import SVC

    if kernel == "linear":
        return SVC(kernel="linear", C=1.0, random_state=seed)
    if kernel == "quadratic":
        return SVC(kernel="poly", degree=2, coef0=1.0, gamma=1.0, C=1.0, random_state=seed)
    raise ValueError(f"unknown kernel {kernel!r}; expected one of {KERNELS}")


def _sigmoid(f: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * f))  # 1 / (1 + exp(-f)) without overflow


def run_fold(kernel: str, fold: int, seed: int, n_train: int, n_test: int) -> dict:
    """Run one fold for one kernel: ``method -> measure -> value`` (SVM and calibrators)."""
    rng = np.random.default_rng([seed, fold])
    X_tr, y_tr = circular_data(n_train, rng)
    X_te, y_te = circular_data(n_test, rng)
    svm = _svm(kernel, seed + fold).fit(X_tr, y_tr)
    s_tr, s_te = _sigmoid(svm.decision_function(X_tr)), _sigmoid(svm.decision_function(X_te))
    probs = {"SVM": s_te, **calibrate(s_tr, y_tr, s_te)}
    return {m: measures(y_te, p) for m, p in probs.items()}


@dataclass
class SimulatedResult:
    """Everything :func:`run` measured, as :func:`report` needs it."""

    info: RunInfo
    #: kernel -> method -> measure -> per-fold values
    folds: dict
    n_folds: int
    n_train: int
    n_test: int

    def mean(self, kernel: str, method: str, measure: str) -> float:
        """Mean over the folds."""
        return float(np.mean(self.folds[kernel][method][measure]))


@experiment_run(NAME)
def run(
    options: RunOptions,
    *,
    n_folds: int | None = None,
    n_train: int = N_TRAIN,
    n_test: int = N_TEST,
    kernels: Sequence[str] = KERNELS,
) -> SimulatedResult:
    """Run the experiment and return its results.

    Parameters
    ----------
    quick : bool, default=False
        3 folds instead of 10.
    seed : int, default=0
        The run is deterministic given the seed (whatever `jobs` is).
    jobs : int, default=1
        (kernel, fold) tasks run on this many processes (joblib).
    data_dir : ignored
        The data are simulated (accepted for the common ``venncal reproduce`` call).
    n_folds, n_train, n_test : int, optional
        Override the folds of the mode and the 1,000 training and test points.
    kernels : sequence of {"linear", "quadratic"}
        The SVM kernels to run.
    echo : callable, optional
        Receives one progress line per finished kernel.

    Returns
    -------
    SimulatedResult
    """
    from joblib import Parallel, delayed

    unknown = sorted(set(kernels) - set(KERNELS))
    if unknown:
        raise ValueError(f"unknown kernels: {unknown}; expected some of {list(KERNELS)}")
    folds = FOLDS[options.quick] if n_folds is None else int(n_folds)
    if folds < 1:
        raise ValueError(f"n_folds must be at least 1, got {folds}")
    todo = [(k, f) for k in kernels for f in range(folds)]
    calls = (delayed(run_fold)(k, f, options.seed, n_train, n_test) for k, f in todo)
    out = Parallel(n_jobs=options.jobs)(calls)
    table: dict = {}
    for (k, _), res in zip(todo, out, strict=True):
        for m, vals in res.items():
            for meas, v in vals.items():
                table.setdefault(k, {}).setdefault(m, {}).setdefault(meas, []).append(v)
    for k in kernels:
        options.echo(f"  {k}: {folds} folds done")
    info = options.info()
    return SimulatedResult(info, table, folds, n_train, n_test)


# ------------------------------------------------------------------------------ report


def _kernel_table(result: SimulatedResult, kernel: str, paper: dict) -> tuple[list, list]:
    methods = ("SVM", *CALIBRATORS)
    md = [
        f"### SVM with a {kernel} kernel: ours (paper)",
        "",
        "| measure | " + " | ".join(methods) + " |",
        "|---|" + "---|" * len(methods),
    ]
    txt = [f"{kernel} kernel: ours (paper)", f"{'':<6}" + "".join(f"{m:>15}" for m in methods)]
    for meas in MEASURES:
        cells = [
            f"{result.mean(kernel, m, meas):.3f} ({paper[kernel][m][meas]:.2f})" for m in methods
        ]
        md.append(f"| {meas} | " + " | ".join(cells) + " |")
        txt.append(f"{meas:<6}" + "".join(f"{c:>15}" for c in cells))
    return [*md, ""], [*txt, ""]


def _spread_lines(result: SimulatedResult) -> list[str]:
    cols = (*MEASURES, *QUANTILE_MEASURES)
    md = [
        "### Standard deviation over the folds, and ECE/MCE over equal-frequency bins",
        "",
        (
            "`ECE-q` and `MCE-q` are the means of ECE and MCE over 10 equal-frequency bins "
            "(not in the paper): MCE over equal-width bins is the error of the worst bin, "
            "however few points it holds, and calibrated probabilities near 0 and 1 leave "
            "the middle bins with one or two test points."
        ),
        "",
        "| kernel | method | " + " | ".join(f"sd {x}" for x in MEASURES) + " | ECE-q | MCE-q |",
        "|---|---|" + "---|" * (len(cols)),
    ]
    for k, by_method in result.folds.items():
        for m, vals in by_method.items():
            sds = " | ".join(
                f"{np.std(vals[x], ddof=min(1, len(vals[x]) - 1)):.3f}" for x in MEASURES
            )
            qs = " | ".join(f"{result.mean(k, m, x):.3f}" for x in QUANTILE_MEASURES)
            md.append(f"| {k} | {m} | {sds} | {qs} |")
    return [*md, ""]


def _figure(result: SimulatedResult, path: Path) -> bool:
    """Scatter of one fold of the assumed data, coloured by label (cf. the paper's Figure 2)."""
    made = new_figure(1, (4.6, 4.4))
    if made is None:
        return False
    fig, (ax,) = made
    X, y = circular_data(result.n_train, np.random.default_rng([result.info.seed, 0]))
    for label, colour in ((0, "C0"), (1, "C1")):
        ax.scatter(*X[y == label].T, s=5, color=colour, alpha=0.6, label=f"y = {label}")
    ax.set_aspect("equal")
    ax.legend(fontsize=8)
    ax.set_title("assumed simulated data (one training fold)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def report(result: SimulatedResult, out_dir: str | Path, *, command: str | None = None) -> Report:
    """Write ``out_dir/report.md`` (Table I, ours beside the paper's) and a data figure.

    The text is the tables. Parameters and return value: as for every experiment
    (:mod:`venncal.experiments._report`).
    """
    from ..datasets import paper_tables

    paper = paper_tables("004")["table1"]
    folds = (
        f"- folds: {result.n_folds} (paper: 10), each {result.n_train} training and "
        f"{result.n_test} test points"
    )
    draft = ReportDraft(result.info, out_dir, _PROTOCOL, command, [folds])
    draft.md += [_ASSUMED, ""]
    draft.image("simulated-data.png", partial(_figure, result), "the assumed data")
    for kernel in result.folds:
        k_md, k_txt = _kernel_table(result, kernel, paper)
        draft.md += k_md
        draft.text += k_txt
    draft.md += _spread_lines(result)
    return draft.write()
