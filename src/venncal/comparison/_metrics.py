"""What :func:`~venncal.comparison.compare` measures on each test fold: one table of metrics.

A :class:`Metric` computes one number from a :class:`FoldPredictions` (the test
fold's labels, probabilities, weights and, for Venn-Abers methods, intervals).
A new diagnostic joins every comparison with one entry in :data:`METRICS`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ._candidates import BINARY, MULTICLASS

__all__ = ["METRICS", "FoldPredictions", "Metric", "metrics_for"]


class FoldPredictions:
    """One method's predictions on one test fold, and the labels they are scored against.

    Attributes
    ----------
    problem : {"binary", "multiclass"}
    y : ndarray of shape (n,)
        Booleans (True: the positive class) for two classes, else class indices 0..K-1.
    proba : ndarray of shape (n, 2) or (n, K)
        The predicted probabilities (columns in the order of the classes).
    interval : ndarray of shape (n, 2) or (n, units, 2), or None
        Venn-Abers pairs (``p0``, ``p1``): of the positive class, or of each binary
        problem of a multiclass calibrator.
    sample_weight : ndarray of shape (n,) or None
    """

    def __init__(self, problem, y, proba, interval, sample_weight):
        self.problem = problem
        self.y = y
        self.proba = proba
        self.interval = interval
        self.sample_weight = sample_weight

    @property
    def p(self) -> np.ndarray:
        """The probability of the positive class (two classes)."""
        return self.proba[:, 1]

    @functools.cached_property
    def evaluation(self):
        """:func:`venncal.metrics.evaluate` (two classes) or ``evaluate_multiclass``, once."""
        from ..metrics import evaluate, evaluate_multiclass

        if self.problem == BINARY:
            ev = evaluate(self.y, self.p, sample_weight=self.sample_weight, diagnostics=True)
            return self._with_own_complements(ev)
        classes = np.arange(self.proba.shape[1])
        return evaluate_multiclass(self.y, self.proba, classes=classes,
                                   sample_weight=self.sample_weight, diagnostics=True)


    def _with_own_complements(self, ev):
        """``ev`` with the log loss of label-0 rows from the method's own column 0.

        :func:`~venncal.metrics.evaluate` sees ``p`` only and takes ``-log1p(-p)``;
        where the calibrator's column 0 is not ``1 - p`` to the bit (it keeps its
        relative precision near 0: 1e-20 where ``1 - p`` is 0.0, an infinite loss)
        the loss is ``-log`` of that column.  Elsewhere nothing changes, to the bit.
        """
        from ..metrics._losses import _mean_nll

        p, p0 = self.p, self.proba[:, 0]
        own = (p0 != 1.0 - p) & ~self.y.astype(bool)
        if not own.any():
            return ev
        with np.errstate(divide="ignore"):
            nll = np.where(self.y, -np.log(p), np.where(own, -np.log(p0), -np.log1p(-p)))
        return {**ev, "log_loss": _mean_nll(nll, self.sample_weight, "e")}


def _interval_width(f: FoldPredictions) -> float:
    """The mean width ``p1 - p0``, over rows (weighted) and over the binary problems."""
    if f.interval is None:
        return float("nan")
    widths = f.interval[..., 1] - f.interval[..., 0]
    if widths.ndim == 2:
        widths = widths.mean(axis=1)
    from ..metrics._checks import _mean  # (here: compare --help imports this module, lightly)

    return float(_mean(widths, f.sample_weight))  # (weights of 1e308 or 1e-310 too)


class Metric(NamedTuple):
    """One number per method and test fold.

    Attributes
    ----------
    name : str
    problems : tuple
        ``"binary"``, ``"multiclass"`` or both.
    compute : callable
        ``compute(FoldPredictions) -> float``.
    ranked : bool
        Whether methods are ranked by it (lower is better); a diagnostic that is
        not a loss (a test statistic) is reported but not ranked.
    intervals : bool
        Only for the methods that give intervals (NaN for the others; never ranked).
    """

    name: str
    problems: tuple
    compute: Callable
    ranked: bool = True
    intervals: bool = False


def _evaluated(key: str) -> Callable:
    return lambda f: f.evaluation[key]


#: Every metric, in the order of the results.  The recommendation uses "log_loss".
METRICS: tuple[Metric, ...] = (
    Metric("log_loss", (BINARY, MULTICLASS), _evaluated("log_loss")),
    Metric("brier", (BINARY, MULTICLASS), _evaluated("brier")),
    Metric("ece", (BINARY,), _evaluated("ece")),
    Metric("top_label_ece", (MULTICLASS,), _evaluated("top_label_ece")),
    Metric("classwise_ece", (MULTICLASS,), _evaluated("classwise_ece")),
    Metric("smooth_ece", (BINARY,), _evaluated("smooth_ece")),
    Metric("top_label_smooth_ece", (MULTICLASS,), _evaluated("top_label_smooth_ece")),
    Metric("classwise_smooth_ece", (MULTICLASS,), _evaluated("classwise_smooth_ece")),
    Metric("accuracy", (BINARY, MULTICLASS), _evaluated("accuracy"), ranked=False),
    Metric("calibration_slope", (BINARY,), _evaluated("calibration_slope"), ranked=False),
    Metric("calibration_intercept", (BINARY,), _evaluated("calibration_intercept"),
           ranked=False),
    Metric("spiegelhalter_p", (BINARY,), _evaluated("spiegelhalter_p"), ranked=False),
    Metric("top_label_spiegelhalter_p", (MULTICLASS,), _evaluated("top_label_spiegelhalter_p"),
           ranked=False),
    Metric("ks_p", (BINARY,), _evaluated("ks_p"), ranked=False),
    Metric("top_label_ks_p", (MULTICLASS,), _evaluated("top_label_ks_p"), ranked=False),
    Metric("interval_width", (BINARY, MULTICLASS), _interval_width, ranked=False,
           intervals=True),
)


def metrics_for(problem: str) -> list[Metric]:
    """The metrics of a problem, in table order."""
    return [m for m in METRICS if problem in m.problems]
