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
import warnings

import numpy as np
from numpy.typing import ArrayLike

from .._validation import Interval, Options, WeightScaleWarning, validate_params
from ._binned import STRATEGIES, _bins, _errors
from ._checks import _check_inputs, _unit_scaled
from ._diagnostics import _calibration_line, _ks, _kuiper
from ._docstrings import fill
from ._losses import _scaled_errors
from ._multiclass import _errors_of, _inputs, _log_losses, _row_sums_of_squares, _top_label
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
    """Yield the count matrices ``(b, n)`` of batches of replicates.

    One ``bincount`` of ``n`` uniform ``int32`` indices per replicate: ten
    times faster than one ``bincount`` of the whole batch (it stays in cache).
    """
    per = max(1, _BATCH_CELLS // max(n, 1))
    dtype = np.int32 if n < 2**31 else np.int64
    done = 0
    while done < n_boot:
        b = min(per, n_boot - done)
        counts = np.empty((b, n))
        for i in range(b):
            counts[i] = np.bincount(rng.integers(0, n, size=n, dtype=dtype), minlength=n)
        yield counts
        done += b


def _columns(name: str, y01, p, n_bins: int, strategy: str) -> np.ndarray | None:
    """Per-row values whose count-weighted sums give ``name``; None if it is not such a sum.

    Spiegelhalter's z has its own, scaled, :func:`_spiegelhalter_columns`.

    Column 0 is always the row's weight share (ones).
    """
    if name == "log_loss":
        with np.errstate(divide="ignore"):
            nll = np.where(y01, -np.log(p), -np.log1p(-p))
        bad = ~np.isfinite(nll)
        return np.c_[np.ones_like(p), np.where(bad, 0.0, nll), bad]
    if name == "ece" and strategy == "uniform":
        ids = _bins(y01, p, None, n_bins, "uniform").ids
        cols = np.zeros((p.shape[0], n_bins + 1))
        cols[:, 0] = 1.0
        cols[np.arange(p.shape[0]), ids + 1] = y01 - p
        return cols
    return None


def _counted(values: np.ndarray, counted: np.ndarray | None) -> np.ndarray:
    """``values`` with the rows of no weight (``counted`` False) set to 0: they count nowhere,
    neither in a scale (their size would set it) nor as ``0 * inf`` in a sum."""
    if counted is None or counted.all():
        return values
    return np.where(counted if values.ndim == 1 else counted[:, None], values, 0.0)


def _brier_columns(y01, p, counted=None) -> tuple[np.ndarray, int]:
    """The Brier columns: the squares of the errors divided by ``2**e``, and ``2 e``.

    As :func:`._losses._mean_square`: scaled before they are squared, so that
    errors of 1e-300 do not square to 0; the replicates are scaled back by
    ``ldexp`` (one rounding).  The scale is that of the ``counted`` rows (a
    row of weight 0 changes nothing).
    """
    scaled, e = _scaled_errors(_counted(y01 - p, counted))
    return np.c_[np.ones_like(p), scaled * scaled], 2 * e


def _spiegelhalter_columns(y01, p, counted=None) -> tuple[np.ndarray, int]:
    """Spiegelhalter's columns, each scaled by a power of two to a largest near 1, and the shift.

    ``z = S1 / sqrt(S2)`` of the column sums; scaling the numerator's column by
    ``2**a`` and the variance's by ``2**b`` (``b`` even) multiplies it by
    ``2**(a - b/2)``, which ``ldexp(z, shift)`` undoes exactly.  Unscaled,
    forecasts near 1e-310 make row terms, and their products with the
    weights, subnormal: they lost digits (5e-15 relative at 1e-310, all of
    them below 1e-320).  The scales are those of the ``counted`` rows.
    """
    num = _counted((y01 - p) * (1.0 - 2.0 * p), counted)
    var = _counted((1.0 - 2.0 * p) ** 2 * p * (1.0 - p), counted)
    a = b = 0
    if np.any(num):
        a = -math.frexp(float(np.max(np.abs(num))))[1]
    if np.any(var):
        e = math.frexp(float(np.max(var)))[1]
        b = -e - (e % 2)
    cols = np.c_[np.ones_like(p), np.ldexp(num, a), np.ldexp(var, b)]
    return cols, b // 2 - a


def _from_sums(name: str, sums: np.ndarray, scale: float, shift: int = 0) -> np.ndarray:
    """The replicates of ``name`` from the count-weighted sums of its :func:`_columns`."""
    total = sums[:, 0]
    # A replicate that drew only rows of weight 0 has total 0 (and Spiegelhalter's variance
    # may be 0): NaN, left out by the caller
    with np.errstate(invalid="ignore", divide="ignore"):
        if name == "log_loss":
            return np.where(sums[:, 2] > 0, math.inf, sums[:, 1] / total)
        if name == "brier":  # its squares scaled by 2**-shift (_brier_columns)
            return np.ldexp(sums[:, 1] / total, shift)
        if name == "ece":  # sum over bins of |S_y(k) - S_p(k)|, over the total
            return np.abs(sums[:, 1:]).sum(axis=1) / total
        # spiegelhalter_z, its columns scaled by powers of two (_spiegelhalter_columns)
        z = np.where(sums[:, 2] > 0, sums[:, 1] / np.sqrt(sums[:, 2]), math.nan)
        return np.ldexp(z, shift) * scale


def _each(cw: np.ndarray, y01, p, core) -> np.ndarray:
    out = np.full(cw.shape[0], math.nan)
    with warnings.catch_warnings():
        # the replicates' weights are the bootstrap's (counts times weights scaled to a
        # largest below 1), not the user's: a warning about their total would mislead
        warnings.simplefilter("ignore", WeightScaleWarning)
        for i, row in enumerate(cw):
            try:
                out[i] = core(y01, p, row)
            except ValueError:  # undefined on this resample
                pass
    return out


_CORES = {
    "calibration_slope": lambda y, q, w: _calibration_line(y, q, w).slope,
    "calibration_intercept": lambda y, q, w: _calibration_line(y, q, w).intercept,
    "ks": lambda y, q, w: _ks(y, q, w).statistic,
    "kuiper": lambda y, q, w: _kuiper(y, q, w).statistic,
    "smooth_ece": lambda y, q, w: _smooth_ece(y, q, w),
    "ece": lambda y, q, w, n_bins, strategy: _errors(_bins(y, q, w, n_bins, strategy))[0],
}


class _Binary:
    """The replicates of binary metrics of ``(y01, p)``: sums where possible, else a loop."""

    def __init__(self, names, y01, p, n_bins: int, strategy: str, scale: float, counted=None):
        self.y01, self.p, self.n_bins, self.strategy, self.scale = y01, p, n_bins, strategy, scale
        self.columns, self.shift = {}, {}
        for m in names:  # counted: the rows of positive weight (None: all)
            if m == "spiegelhalter_z":
                self.columns[m], self.shift[m] = _spiegelhalter_columns(y01, p, counted)
            elif m == "brier":
                self.columns[m], self.shift[m] = _brier_columns(y01, p, counted)
            else:
                self.columns[m] = _columns(m, y01, p, n_bins, strategy)
        stacked = [c for c in self.columns.values() if c is not None]
        self.matrix = np.hstack(stacked) if stacked else None

    def __call__(self, cw: np.ndarray) -> dict[str, np.ndarray]:
        sums = None if self.matrix is None else cw @ self.matrix  # one product for all
        out, start = {}, 0
        for name, cols in self.columns.items():
            if cols is not None:
                out[name] = _from_sums(name, sums[:, start:start + cols.shape[1]], self.scale,
                                       self.shift.get(name, 0))
                start += cols.shape[1]
            elif name == "ece":  # quantile bins: those of each replicate
                out[name] = _each(cw, self.y01, self.p, lambda y, q, w: _CORES["ece"](
                    y, q, w, self.n_bins, self.strategy))
            else:
                out[name] = _each(cw, self.y01, self.p, _CORES[name])
                if name in ("ks", "kuiper"):  # statistics of the weights before scaling
                    out[name] *= self.scale
        return out


def _intervals(values: dict, confidence: float) -> dict[str, tuple[float, float]]:
    levels = [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0]
    out = {}
    for name, v in values.items():
        v = np.concatenate(v)
        v = v[~np.isnan(v)]
        if v.shape[0] == 0:
            out[name] = (math.nan, math.nan)
        else:
            with np.errstate(invalid="ignore"):  # inf - inf between two infinite replicates
                low, high = np.quantile(v, levels)
            # NaN only from inf - inf (the values hold no NaN): the quantile is that inf
            out[name] = tuple(float(np.max(v)) if math.isnan(q) else float(q)
                              for q in (low, high))
    return out


def _check_metrics(owner: str, metrics, known: tuple, default: tuple) -> tuple:
    if metrics is None:
        return default
    metrics = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    for m in metrics:
        validate_params(owner, {"metrics": m}, {"metrics": [Options(known)]})
    return metrics


def _weights(w, n):
    """Row weights scaled to a largest in [1, 2), and the factor ``sqrt`` undoes for z."""
    if w is None:
        return np.ones(n), 1.0
    e = math.frexp(float(np.max(w)))[1] - 1  # ws = w 2**-e (:func:`._checks._unit_scaled`)
    ws = _unit_scaled(w)
    light = float(np.min(w[w > 0]))
    if np.min(ws[w > 0]) < 2.0**-1021:  # a count times it would be subnormal, or 0
        raise ValueError(
            f"bootstrap intervals need the positive weights within a factor of 2**1021 of each "
            f"other; they span {light:.3g} to {float(np.max(w)):.3g}: a replicate of the "
            "lightest rows would lose their weights to underflow beside the heaviest "
            "(rescale them, or drop the lightest)"
        )
    return ws, math.ldexp(math.sqrt(2.0) if e % 2 else 1.0, e // 2)


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

    Raises
    ------
    ValueError
        For the inputs the metrics refuse, and for positive weights that
        span more than a factor of ``2**1021`` (a replicate's weights would
        underflow).

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


def _replicated(replicate, ws, names, n_boot, confidence, seed):
    """The percentile intervals of ``replicate(counts * ws)`` (name -> values) over the draws."""
    values: dict[str, list] = {name: [] for name in names}
    for counts in _counts(np.random.default_rng(seed), ws.shape[0], n_boot):
        for name, v in replicate(counts * ws).items():
            values[name].append(v)
    return _intervals(values, confidence)


def _binary_intervals(y01, p, w, names, n_boot, confidence, seed, n_bins, strategy):
    ws, scale = _weights(w, p.shape[0])
    replicate = _Binary(names, y01, p, n_bins, strategy, scale, None if w is None else ws > 0)
    return _replicated(replicate, ws, names, n_boot, confidence, seed)


def _multiclass_parts(names, idx, proba, n_bins, strategy, scale,
                      counted=None) -> dict[str, _Binary]:
    """Each multiclass metric as binary replicates: of the rows' true-class columns, of
    class ``k`` against the rest, or of the top label (``counted``: as :class:`_Binary`)."""
    correct, top = _top_label(idx, proba)
    parts = {}
    for name in names:
        if name == "log_loss":
            parts[name] = [_Mean(name, _log_losses(idx, proba))]
        elif name == "brier":  # the errors scaled before they are squared, as _brier_columns
            scaled, e = _scaled_errors(_counted(_errors_of(idx, proba), counted))
            parts[name] = [_Mean(name, _row_sums_of_squares(scaled), 2 * e)]
        elif name == "classwise_ece":
            parts[name] = [_Binary(["ece"], idx == k, np.ascontiguousarray(proba[:, k]), n_bins,
                                   strategy, scale, counted) for k in range(proba.shape[1])]
        else:
            parts[name] = [_Binary([name[len("top_label_"):]], correct, top, n_bins, strategy,
                                   scale, counted)]
    return parts


class _Mean:
    """The replicates of a mean of per-row values (``inf`` where an infinite one is drawn)."""

    def __init__(self, name: str, values: np.ndarray, shift: int = 0):
        bad = ~np.isfinite(values)
        self.name, self.matrix = name, np.c_[np.ones_like(values), np.where(bad, 0.0, values), bad]
        self.shift = shift  # the values are the row's values times 2**-shift

    def __call__(self, cw: np.ndarray) -> dict[str, np.ndarray]:
        sums = cw @ self.matrix
        mean = np.ldexp(sums[:, 1] / sums[:, 0], self.shift)
        return {self.name: np.where(sums[:, 2] > 0, math.inf, mean)}


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
    parts = _multiclass_parts(names, idx, proba, n_bins, strategy, scale,
                              None if w is None else ws > 0)

    def replicate(cw):
        # the class-wise ECE is the unweighted mean of its K binary ECEs
        return {name: np.mean([next(iter(piece(cw).values())) for piece in pieces], axis=0)
                for name, pieces in parts.items()}

    return _replicated(replicate, ws, names, n_boot, confidence, seed)
