"""Percentile bootstrap intervals for the losses, the ECEs and the calibration diagnostics.

Each replicate draws ``n`` rows uniformly with replacement (the rows, not
the units of weight: a row of weight ``w`` drawn ``c`` times weighs ``c w``)
and recomputes the metric with those weights.  The draws of a batch of
replicates are the counts ``np.bincount`` makes of ``n`` uniform indices per
replicate, and the metrics that are sums over rows or over fixed bins (log
loss, Brier, uniform-bin ECEs, Spiegelhalter's z) are then a matrix product
of the counts with per-row values, so no Python loop runs over replicates;
the others (the slope and intercept, the KS and Kuiper statistics, the
smooth ECE) are recomputed once per replicate with the counts as weights.
A replicate where a metric is undefined (a resample of one class for the
slope) is left out of its interval; the interval is NaN if all are.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._validation import Interval, Options, validate_params
from ._binned import STRATEGIES, _bins, _errors
from ._checks import _check_inputs, _unit_scaled
from ._diagnostics import _calibration_line, _ks, _kuiper
from ._docstrings import fill
from ._multiclass import _inputs, _log_losses, _squared_errors, _top_label
from ._smooth import _smooth_ece

__all__ = ["bootstrap_intervals", "bootstrap_intervals_multiclass"]

#: Cells of the (replicates x rows) count matrix held at once.
_BATCH_CELLS = 1 << 22

BINARY_METRICS = (
    "log_loss", "brier", "ece", "spiegelhalter_z", "calibration_slope", "calibration_intercept",
    "ks", "kuiper", "smooth_ece",
)
MULTICLASS_METRICS = (
    "log_loss", "brier", "top_label_ece", "classwise_ece", "top_label_spiegelhalter_z",
    "top_label_ks", "top_label_kuiper", "top_label_smooth_ece",
)
DEFAULT_METRICS = {"binary": ("log_loss", "brier", "ece"),
                   "multiclass": ("log_loss", "brier", "top_label_ece", "classwise_ece")}
_CONSTRAINTS = {
    "n_boot": [Interval("int", 1, None)],
    "confidence": [Interval("real", 0, 1, "neither")],
    "n_bins": [Interval("int", 1, None)],
    "strategy": [Options(STRATEGIES)],
}


def _counts(rng: np.random.Generator, n: int, n_boot: int):
    """Yield the count matrices ``(b, n)`` of batches of replicates."""
    per = max(1, _BATCH_CELLS // max(n, 1))
    done = 0
    while done < n_boot:
        b = min(per, n_boot - done)
        idx = rng.integers(0, n, size=(b, n)) + (np.arange(b) * n)[:, None]
        yield np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(float)
        done += b


def _mean_of(cw: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each replicate's weighted mean of ``values``; ``inf`` where an infinite value is drawn."""
    bad = ~np.isfinite(values)
    out = cw @ np.where(bad, 0.0, values) / cw.sum(axis=1)
    if bad.any():
        out[cw[:, bad].sum(axis=1) > 0] = math.inf
    return out


def _ece_of(cw: np.ndarray, y01: np.ndarray, p: np.ndarray, n_bins, strategy) -> np.ndarray:
    """Each replicate's ECE: ``sum_k |S_y(k) - S_p(k)| / W`` over its bins.

    Uniform bins are the same for every replicate (one matrix product);
    quantile bins are those of each replicate's weights (a loop).
    """
    if strategy == "quantile":
        return _each(cw, y01, p, lambda y, q, w: _errors(_bins(y, q, w, n_bins, strategy))[0])
    ids = _bins(y01, p, None, n_bins, "uniform").ids
    onehot = np.zeros((p.shape[0], n_bins))
    onehot[np.arange(p.shape[0]), ids] = 1.0
    gap = cw @ (onehot * (y01 - p)[:, None])
    return np.abs(gap).sum(axis=1) / cw.sum(axis=1)


def _z_of(cw: np.ndarray, y01: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Each replicate's Spiegelhalter z (NaN where its variance is 0)."""
    num = cw @ ((y01 - p) * (1.0 - 2.0 * p))
    den = cw @ ((1.0 - 2.0 * p) ** 2 * p * (1.0 - p))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.sqrt(den), math.nan)


def _each(cw: np.ndarray, y01, p, core) -> np.ndarray:
    out = np.full(cw.shape[0], math.nan)
    for i, row in enumerate(cw):
        try:
            out[i] = core(y01, p, row)
        except ValueError:  # undefined on this resample
            pass
    return out


def _binary_replicates(name: str, cw, y01, p, n_bins, strategy, scale) -> np.ndarray:
    if name == "log_loss":
        with np.errstate(divide="ignore"):
            return _mean_of(cw, np.where(y01, -np.log(p), -np.log1p(-p)))
    if name == "brier":
        return _mean_of(cw, (y01 - p) ** 2)
    if name == "ece":
        return _ece_of(cw, y01, p, n_bins, strategy)
    if name == "spiegelhalter_z":
        return _z_of(cw, y01, p) * scale
    cores = {
        "calibration_slope": lambda y, q, w: _calibration_line(y, q, w).slope,
        "calibration_intercept": lambda y, q, w: _calibration_line(y, q, w).intercept,
        "ks": lambda y, q, w: _ks(y, q, w).statistic,
        "kuiper": lambda y, q, w: _kuiper(y, q, w).statistic,
        "smooth_ece": lambda y, q, w: _smooth_ece(y, q, w),
    }
    return _each(cw, y01, p, cores[name])


def _intervals(values: dict, confidence: float) -> dict[str, tuple[float, float]]:
    levels = [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0]
    out = {}
    for name, v in values.items():
        v = np.concatenate(v)
        v = v[~np.isnan(v)]
        if v.shape[0] == 0:
            out[name] = (math.nan, math.nan)
        else:
            low, high = np.quantile(v, levels)
            out[name] = (float(low), float(high))
    return out


def _check_metrics(owner: str, metrics, known: tuple, default: tuple) -> tuple:
    if metrics is None:
        return default
    metrics = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    for m in metrics:
        validate_params(owner, {"metrics": m}, {"metrics": [Options(known)]})
    return metrics


def _weights(w, n):
    """Row weights scaled to a largest in [0.5, 1), and the factor ``sqrt`` undoes for z."""
    if w is None:
        return np.ones(n), 1.0
    e = math.frexp(float(np.max(w)))[1]
    return _unit_scaled(w), math.ldexp(math.sqrt(2.0) if e % 2 else 1.0, e // 2)


@fill
def bootstrap_intervals(
    y: ArrayLike, p: ArrayLike, *, metrics=None, n_boot: int = 1000, confidence: float = 0.95,
    seed: int | None = 0, n_bins: int = 10, strategy: str = "uniform", pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> dict[str, tuple[float, float]]:
    """Percentile bootstrap intervals of binary metrics.

    Parameters
    ----------
    {y_p}
    metrics : str or sequence of str, default=None
        Among "log_loss" (in nats), "brier", "ece", "spiegelhalter_z",
        "calibration_slope", "calibration_intercept", "ks", "kuiper" (the
        statistics) and "smooth_ece"; by default "log_loss", "brier", "ece".
    n_boot : int >= 1, default=1000
        Replicates.
    confidence : float in (0, 1), default=0.95
        The interval runs from the ``(1 - confidence) / 2`` to the
        ``(1 + confidence) / 2`` quantile of the replicates (linear
        interpolation, ``numpy.quantile``'s default).
    seed : int or None, default=0
        Seed of ``numpy.random.default_rng``: the same seed gives the same
        intervals.
    n_bins : int, default=10
        Bins of "ece".
    strategy : {"uniform", "quantile"}, default="uniform"
        Binning of "ece" (see :func:`ece`); quantile bins are recomputed
        for each replicate (a loop over replicates).
    {weights}

    Returns
    -------
    dict of str to (float, float)
        ``(low, high)`` per metric, in the order asked.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.metrics import bootstrap_intervals
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(500)
    >>> y = rng.random(500) < p
    >>> ci = bootstrap_intervals(y, p, n_boot=200, seed=1)
    >>> {k: (round(lo, 3), round(hi, 3)) for k, (lo, hi) in ci.items()}
    {'log_loss': (0.442, 0.541), 'brier': (0.143, 0.179), 'ece': (0.041, 0.093)}
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    params = {"n_boot": n_boot, "confidence": confidence, "n_bins": n_bins, "strategy": strategy}
    validate_params("bootstrap_intervals", params, _CONSTRAINTS)
    names = _check_metrics("bootstrap_intervals", metrics, BINARY_METRICS,
                           DEFAULT_METRICS["binary"])
    return _binary_intervals(y01, p, w, names, n_boot, confidence, seed, n_bins, strategy)


def _binary_intervals(y01, p, w, names, n_boot, confidence, seed, n_bins, strategy):
    ws, scale = _weights(w, p.shape[0])
    values: dict[str, list] = {name: [] for name in names}
    for counts in _counts(np.random.default_rng(seed), p.shape[0], n_boot):
        cw = counts * ws
        for name in names:
            values[name].append(_binary_replicates(name, cw, y01, p, n_bins, strategy, scale))
    return _intervals(values, confidence)


def _multiclass_replicates(name, cw, idx, proba, n_bins, strategy, scale) -> np.ndarray:
    if name == "log_loss":
        return _mean_of(cw, _log_losses(idx, proba))
    if name == "brier":
        return _mean_of(cw, _squared_errors(idx, proba))
    if name == "classwise_ece":
        per = [_ece_of(cw, idx == k, np.ascontiguousarray(proba[:, k]), n_bins, strategy)
               for k in range(proba.shape[1])]
        return np.mean(per, axis=0)
    correct, confidence = _top_label(idx, proba)
    binary = name[len("top_label_"):]
    return _binary_replicates(binary, cw, correct, confidence, n_bins, strategy, scale)


@fill
def bootstrap_intervals_multiclass(
    y: ArrayLike, proba: ArrayLike, *, metrics=None, n_boot: int = 1000,
    confidence: float = 0.95, seed: int | None = 0, n_bins: int = 10, strategy: str = "uniform",
    classes: ArrayLike | None = None, sample_weight: ArrayLike | None = None,
) -> dict[str, tuple[float, float]]:
    """Percentile bootstrap intervals of multiclass metrics (as :func:`bootstrap_intervals`).

    Parameters
    ----------
    {y_proba}
    metrics : str or sequence of str, default=None
        Among "log_loss" (in nats), "brier" (:func:`multiclass_brier_loss`),
        "top_label_ece", "classwise_ece", and the top-label
        forms "top_label_spiegelhalter_z", "top_label_ks",
        "top_label_kuiper" and "top_label_smooth_ece" (the binary
        diagnostic of the confidence ``max_k p_k`` against "the predicted
        class is the true one"); by default the first four.
    n_boot : int >= 1, default=1000
        Replicates.
    confidence : float in (0, 1), default=0.95
        Coverage of the percentile interval.
    seed : int or None, default=0
        Seed of ``numpy.random.default_rng``.
    n_bins : int, default=10
        Bins of the ECEs.
    strategy : {"uniform", "quantile"}, default="uniform"
        Their binning (quantile bins recomputed for each replicate).
    {classes_weights}

    Returns
    -------
    dict of str to (float, float)
        ``(low, high)`` per metric, in the order asked.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.metrics import bootstrap_intervals_multiclass
    >>> rng = np.random.default_rng(0)
    >>> proba = rng.dirichlet([1.0, 1.0, 1.0], size=300)
    >>> y = np.array([rng.choice(3, p=row) for row in proba])
    >>> lo, hi = bootstrap_intervals_multiclass(y, proba, n_boot=200)["log_loss"]
    >>> round(lo, 3), round(hi, 3)
    (0.8, 0.931)
    """
    idx, proba, w = _inputs("bootstrap_intervals_multiclass", y, proba, classes, sample_weight,
                            n_bins=n_bins, strategy=strategy)
    validate_params("bootstrap_intervals_multiclass",
                    {"n_boot": n_boot, "confidence": confidence}, _CONSTRAINTS)
    names = _check_metrics("bootstrap_intervals_multiclass", metrics, MULTICLASS_METRICS,
                           DEFAULT_METRICS["multiclass"])
    return _multiclass_intervals(idx, proba, w, names, n_boot, confidence, seed, n_bins, strategy)


def _multiclass_intervals(idx, proba, w, names, n_boot, confidence, seed, n_bins, strategy):
    ws, scale = _weights(w, proba.shape[0])
    values: dict[str, list] = {name: [] for name in names}
    for counts in _counts(np.random.default_rng(seed), proba.shape[0], n_boot):
        cw = counts * ws
        for name in names:
            values[name].append(
                _multiclass_replicates(name, cw, idx, proba, n_bins, strategy, scale)
            )
    return _intervals(values, confidence)
