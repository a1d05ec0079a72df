"""Scores of binary probability predictions: losses, calibration errors, AUC.

Every metric is a function of ``(y, p)``: labels in {0, 1} (or booleans) and
the predicted probability of the positive class.  NumPy only.  Nothing is
clipped behind the user's back: a confident wrong prediction has an infinite
log loss, as in the papers (000, section 6; 001, section 5).
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterator, Mapping
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_sample_weight

__all__ = [
    "Evaluation",
    "accuracy",
    "brier_loss",
    "ece",
    "evaluate",
    "interval_width",
    "log_loss",
    "mce",
    "rmse",
    "roc_auc",
]

_STRATEGIES = ("uniform", "quantile")

# -- validation ---------------------------------------------------------------


def _check_probabilities(p, name: str = "p") -> np.ndarray:
    arr = np.asarray(p)
    if arr.dtype.kind in "OUS":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold real numbers; got dtype {arr.dtype}") from None
    elif arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers; got dtype {arr.dtype}")
    if arr.ndim != 1:
        hint = ""
        if arr.ndim == 2 and arr.shape[1] == 2:
            hint = f" (for the output of predict_proba, pass {name}[:, 1])"
        raise ValueError(f"{name} must be 1-D of shape (n_samples,); got shape {arr.shape}{hint}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one prediction is needed")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    nan = np.isnan(arr)
    if nan.any():
        i = int(np.flatnonzero(nan)[0])
        raise ValueError(f"{name} contains {int(nan.sum())} NaN value(s), the first at index {i}")
    out = (arr < 0.0) | (arr > 1.0)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise ValueError(f"{name} must lie in [0, 1]; got {arr[i]!r} at index {i}")
    return arr


def _check_binary_labels(y, n: int, pos_label) -> np.ndarray:
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-D of shape (n_samples,); got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"y and p have different lengths: {arr.shape[0]} and {n}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError("y contains NaN; labels must be 0 and 1")
    if pos_label is None:
        if arr.dtype.kind == "b":
            return arr
        if arr.dtype.kind in "iuf" and ((arr == 0) | (arr == 1)).all():
            return arr == 1
        shown = ", ".join(repr(v) for v in np.unique(arr)[:4].tolist())
        raise ValueError(
            f"y must hold the labels 0 and 1 (or booleans); got {shown}. "
            "For other labels name the positive class with pos_label="
        )
    try:
        labels = np.unique(arr)
    except TypeError:
        raise TypeError("y mixes labels of types that cannot be compared") from None
    if labels.shape[0] > 2:
        raise ValueError(f"y must hold two classes; got {labels.shape[0]}")
    if labels.shape[0] == 2 and pos_label not in labels.tolist():
        raise ValueError(f"pos_label={pos_label!r} is not one of the labels {labels.tolist()!r}")
    return arr == pos_label


def _check_inputs(y, p, pos_label=None, sample_weight=None):
    """Return ``(y01, p, w)``: boolean labels, float64 ``p``, weights or None."""
    p = _check_probabilities(p)
    y01 = _check_binary_labels(y, p.shape[0], pos_label)
    return y01, p, check_sample_weight(sample_weight, p.shape[0])


def _mean(values: np.ndarray, w: np.ndarray | None) -> float:
    return float(np.mean(values) if w is None else np.average(values, weights=w))


def _check_real(value, name: str, low: float, high: float, *, low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r}")
    v = float(value)
    if not (low < v if low_open else low <= v) or not v <= high:
        left = "(" if low_open else "["
        raise ValueError(f"{name} must lie in {left}{low}, {high}]; got {value!r}")
    return v


# -- losses -------------------------------------------------------------------


def _log_of_base(base) -> float:
    if isinstance(base, str):
        if base == "e":
            return 1.0
    elif not isinstance(base, bool) and isinstance(base, numbers.Real):
        if base == 2:
            return math.log(2.0)
        if base == 10:
            return math.log(10.0)
        if base == math.e:
            return 1.0
    raise ValueError(f"base must be 2, 10 or e (np.e or 'e'); got {base!r}")


def log_loss(
    y: ArrayLike,
    p: ArrayLike,
    *,
    base: float | str = 2,
    eps: float | None = None,
    pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Mean log loss ``-log_base(p_y)``, where ``p_y`` is the probability of the true label.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels 0 and 1, or booleans (or any two labels with ``pos_label``).
    p : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    base : {2, 10, e}, default=2
        Base of the logarithm; ``np.e``, ``math.e`` or ``"e"`` give the natural
        log.  Base 2 (paper 000, eq. (11)) makes the constant prediction 1/2
        lose exactly 1; paper 001, eq. (12), uses the natural log.
    eps : float in (0, 0.5], default=None
        If given, ``p`` is first clipped to ``[eps, 1 - eps]``.  By default
        nothing is clipped.
    pos_label : label, default=None
        The positive class, for labels other than 0/1 and booleans.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; the loss is then the weighted mean.

    Returns
    -------
    float
        The mean loss; ``inf`` (without a warning) if some observation with
        positive weight was predicted wrongly with certainty (``p = 0`` for
        label 1, or ``p = 1`` for label 0).

    Examples
    --------
    >>> from venncal.metrics import log_loss
    >>> log_loss([0, 1], [0.5, 0.5])
    1.0
    >>> round(log_loss([0, 1], [0.2, 0.9], base="e"), 6)
    0.164252
    >>> log_loss([0, 1], [0.0, 0.0])
    inf
    >>> round(log_loss([0, 1], [0.0, 0.0], eps=0.01), 4)
    3.3292
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    ln_base = _log_of_base(base)
    if eps is not None:
        p = np.clip(p, _check_real(eps, "eps", 0.0, 0.5, low_open=True), 1.0 - eps)
    p_true = np.where(y01, p, 1.0 - p)
    certain_wrong = p_true == 0.0
    if w is not None:
        certain_wrong &= w > 0
    if certain_wrong.any():
        return math.inf
    # Rows still at p_true == 0 have zero weight: leave their loss at 0.
    nll = np.zeros_like(p)
    pos = y01 & (p_true > 0.0)
    neg = ~y01 & (p_true > 0.0)
    nll[pos] = -np.log(p[pos])
    nll[neg] = -np.log1p(-p[neg])
    return _mean(nll, w) / ln_base


def brier_loss(
    y: ArrayLike,
    p: ArrayLike,
    *,
    scale: float = 1,
    pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Mean Brier loss ``scale * (y - p)**2``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels 0 and 1, or booleans (or any two labels with ``pos_label``).
    p : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    scale : float, default=1
        Positive factor.  Paper 000, eq. (12), uses 4, so that the constant
        prediction 1/2 loses exactly 1.
    pos_label : label, default=None
        The positive class, for labels other than 0/1 and booleans.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; the loss is then the weighted mean.

    Returns
    -------
    float

    Examples
    --------
    >>> from venncal.metrics import brier_loss
    >>> brier_loss([0, 1], [0.5, 0.5], scale=4)
    1.0
    >>> round(brier_loss([0, 1, 1], [0.1, 0.8, 1.0]), 6)
    0.016667
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    scale = _check_real(scale, "scale", 0.0, math.inf, low_open=True)
    if math.isinf(scale):
        raise ValueError("scale must be finite")
    return scale * _mean((y01 - p) ** 2, w)


def rmse(
    y: ArrayLike, p: ArrayLike, *, pos_label=None, sample_weight: ArrayLike | None = None
) -> float:
    """Root mean square error ``sqrt(mean((y - p)**2))`` (paper 001, eq. (13)).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels 0 and 1, or booleans (or any two labels with ``pos_label``).
    p : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    pos_label : label, default=None
        The positive class, for labels other than 0/1 and booleans.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights for a weighted mean under the root.

    Returns
    -------
    float

    Examples
    --------
    >>> from venncal.metrics import rmse
    >>> rmse([0, 1], [0.5, 0.5])
    0.5
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    return math.sqrt(_mean((y01 - p) ** 2, w))


# -- calibration errors -------------------------------------------------------


class _Bins(NamedTuple):
    """Per-bin statistics of a reliability diagram (shared with plotting)."""

    edges: np.ndarray  # (n_bins + 1,); bin k is [edges[k], edges[k+1]), the last closed
    ids: np.ndarray  # (n_samples,) bin of each observation
    count: np.ndarray  # (n_bins,) number of observations
    weight: np.ndarray  # (n_bins,) total weight (== count without sample weights)
    mean_pred: np.ndarray  # (n_bins,) weighted mean of p; NaN for an empty bin
    frac_pos: np.ndarray  # (n_bins,) weighted fraction of positives; NaN for an empty bin

    @property
    def nonempty(self) -> np.ndarray:
        return self.weight > 0


def _check_binning(n_bins, strategy) -> None:
    if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer; got {n_bins!r}")
    if strategy not in _STRATEGIES:
        raise ValueError(f"strategy must be 'uniform' or 'quantile'; got {strategy!r}")


def _bin_ids(
    p: np.ndarray, w: np.ndarray | None, n_bins: int, strategy: str
) -> tuple[np.ndarray, np.ndarray]:
    if strategy == "uniform":
        edges = np.arange(n_bins + 1, dtype=np.float64) / n_bins
        return edges, np.searchsorted(edges[1:-1], p, side="right")
    # Quantile bins are assigned per distinct value v: ceil(K * mass(p <= v) / mass) - 1,
    # the bin holding the top of v's run of ties.  Ties are never split, integer
    # weights bin like repeated rows, and the largest value is in the last bin.
    values, inv = np.unique(p, return_inverse=True)
    if w is None:
        upto = np.cumsum(np.bincount(inv))
        value_bin = (upto * n_bins - 1) // p.shape[0]
    else:
        upto = np.cumsum(np.bincount(inv, weights=w))
        value_bin = np.ceil(upto * n_bins / upto[-1]).astype(np.intp) - 1
        value_bin = np.clip(value_bin, 0, n_bins - 1)
    # Bin j starts at its smallest value, so bin k is [edges[k], edges[k+1]) as for
    # "uniform"; empty bins have zero width.
    starts = np.searchsorted(value_bin, np.arange(1, n_bins), side="left")
    inner = values[np.minimum(starts, values.shape[0] - 1)]
    return np.concatenate(([0.0], inner, [1.0])), value_bin[inv]


def _calibration_bins(
    y01: np.ndarray, p: np.ndarray, w: np.ndarray | None, n_bins: int, strategy: str
) -> _Bins:
    """Bin validated predictions; the one binning behind ECE, MCE and the plots.

    Bin ``k`` holds ``edges[k] <= p < edges[k+1]``, the last bin also
    ``p == 1``.  "uniform": ``edges[k] = k / K`` (computed so in floating
    point).  "quantile": every ``p == v`` goes to bin
    ``ceil(K * m(p <= v) / m) - 1``, with ``m`` the count (or total weight):
    equal-mass bins by rank, where a run of ties that straddles a split goes
    wholly to the upper bin, so heavy ties leave some bins empty; the inner
    edges are the smallest ``p`` of each bin.
    """
    edges, ids = _bin_ids(p, w, n_bins, strategy)
    count = np.bincount(ids, minlength=n_bins)
    wt = np.ones_like(p) if w is None else w
    weight = np.bincount(ids, weights=wt, minlength=n_bins)
    sum_p = np.bincount(ids, weights=wt * p, minlength=n_bins)
    sum_y = np.bincount(ids, weights=wt * y01, minlength=n_bins)
    nonempty = weight > 0
    mean_pred = np.divide(sum_p, weight, out=np.full(n_bins, np.nan), where=nonempty)
    frac_pos = np.divide(sum_y, weight, out=np.full(n_bins, np.nan), where=nonempty)
    return _Bins(edges, ids, count, weight, mean_pred, frac_pos)


_BINNING_DOC = """
    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels 0 and 1, or booleans (or any two labels with ``pos_label``).
    p : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    n_bins : int, default=10
        Number of bins ``K``.
    strategy : {"uniform", "quantile"}, default="uniform"
        "uniform": bins ``[k/K, (k+1)/K)`` for ``k < K - 1`` and the last bin
        ``[(K-1)/K, 1]``, so ``p`` on an edge goes to the bin above it and
        ``p = 1`` to the last bin.  "quantile": ``K`` bins of (nearly) equal
        counts (equal total weight with ``sample_weight``) by sorted ``p``;
        equal values of ``p`` always share a bin: all ``p == v`` go to bin
        ``ceil(K * m(p <= v) / m) - 1``, where ``m`` counts observations (sums
        weights), so a run of ties that straddles a split goes wholly to the
        upper bin (as a value on a uniform edge does) and heavy ties give
        fewer, larger bins.  Integer weights bin like repeated rows.
    pos_label : label, default=None
        The positive class, for labels other than 0/1 and booleans.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights for the bin means and bin masses.

    Returns
    -------
    float
"""


def _bins_of(y, p, n_bins, strategy, pos_label, sample_weight) -> _Bins:
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    _check_binning(n_bins, strategy)
    return _calibration_bins(y01, p, w, n_bins, strategy)


def ece(
    y: ArrayLike,
    p: ArrayLike,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> float:
    r"""Return the expected calibration error ``sum_k P(k) |o_k - e_k|`` (paper 004, IV-A).

    ``P(k)`` is the fraction of observations in bin ``k``, ``o_k`` the
    fraction of positives there and ``e_k`` the mean prediction; the sum runs
    over the non-empty bins.
    {binning}

    Examples
    --------
    >>> from venncal.metrics import ece
    >>> ece([0, 1, 1, 1], [0.05, 0.05, 0.95, 0.95], n_bins=2)
    0.25
    """
    bins = _bins_of(y, p, n_bins, strategy, pos_label, sample_weight)
    ne = bins.nonempty
    gap = np.abs(bins.frac_pos[ne] - bins.mean_pred[ne])
    return float(np.sum(bins.weight[ne] * gap) / np.sum(bins.weight))


def mce(
    y: ArrayLike,
    p: ArrayLike,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> float:
    r"""Maximum calibration error ``max_k |o_k - e_k|`` over non-empty bins (paper 004, IV-A).

    ``o_k`` is the fraction of positives in bin ``k`` and ``e_k`` its mean
    prediction.
    {binning}

    Examples
    --------
    >>> from venncal.metrics import mce
    >>> mce([0, 1, 1, 1], [0.05, 0.05, 0.95, 0.95], n_bins=2)
    0.45
    """
    bins = _bins_of(y, p, n_bins, strategy, pos_label, sample_weight)
    ne = bins.nonempty
    return float(np.max(np.abs(bins.frac_pos[ne] - bins.mean_pred[ne])))


if ece.__doc__ and mce.__doc__:  # None under python -OO
    ece.__doc__ = ece.__doc__.replace("{binning}", _BINNING_DOC)
    mce.__doc__ = mce.__doc__.replace("{binning}", _BINNING_DOC)


# -- discrimination -----------------------------------------------------------


def _class_weights_by_value(y01, p, w):
    """Distinct sorted ``p`` with the positive and negative weight at each."""
    values, inv = np.unique(p, return_inverse=True)
    wt = np.ones_like(p) if w is None else w
    pos = np.bincount(inv, weights=wt * y01, minlength=values.shape[0])
    neg = np.bincount(inv, weights=wt * ~y01, minlength=values.shape[0])
    if not (pos.sum() > 0 and neg.sum() > 0):
        raise ValueError("the ROC curve and AUC need both classes in y (with positive weight)")
    return values, pos, neg


def _roc_points(y01, p, w) -> tuple[np.ndarray, np.ndarray]:
    """``(fpr, tpr)`` from (0, 0) to (1, 1), one point per distinct ``p``, descending."""
    _, pos, neg = _class_weights_by_value(y01, p, w)
    tp = np.concatenate(([0.0], np.cumsum(pos[::-1])))
    fp = np.concatenate(([0.0], np.cumsum(neg[::-1])))
    return fp / fp[-1], tp / tp[-1]


def roc_auc(
    y: ArrayLike, p: ArrayLike, *, pos_label=None, sample_weight: ArrayLike | None = None
) -> float:
    """Area under the ROC curve, exact, with ties counted 1/2.

    This is the Mann-Whitney statistic ``U / (n_pos * n_neg)``: the fraction
    of (positive, negative) pairs with ``p_pos > p_neg``, a tie counting 1/2
    (with ``sample_weight``, pairs are weighted by the product of weights).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels 0 and 1, or booleans (or any two labels with ``pos_label``).
    p : array-like of shape (n_samples,)
        Predicted probabilities (any increasing score works as well, but the
        shared validation asks for [0, 1]).
    pos_label : label, default=None
        The positive class, for labels other than 0/1 and booleans.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``y`` holds only one class.

    Examples
    --------
    >>> from venncal.metrics import roc_auc
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8])
    0.875
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    _, pos, neg = _class_weights_by_value(y01, p, w)
    neg_below = np.concatenate(([0.0], np.cumsum(neg)[:-1]))
    return float(np.sum(pos * (neg_below + 0.5 * neg)) / (pos.sum() * neg.sum()))


def accuracy(
    y: ArrayLike,
    p: ArrayLike,
    *,
    threshold: float = 0.5,
    pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Fraction of correct predictions when predicting the positive class iff ``p > threshold``.

    A tie ``p == threshold`` predicts the negative class, as ``predict`` of
    venncal's calibrators does (``classes_[0]`` on ``p == 0.5``).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels 0 and 1, or booleans (or any two labels with ``pos_label``).
    p : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    threshold : float in [0, 1], default=0.5
    pos_label : label, default=None
        The positive class, for labels other than 0/1 and booleans.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.

    Returns
    -------
    float

    Examples
    --------
    >>> from venncal.metrics import accuracy
    >>> accuracy([0, 1, 1, 0], [0.2, 0.7, 0.5, 0.5])
    0.75
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    t = _check_real(threshold, "threshold", 0.0, 1.0)
    return _mean((p > t) == y01, w)


def interval_width(
    p0: ArrayLike, p1: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Mean width ``p1 - p0`` of Venn-Abers probability intervals.

    Parameters
    ----------
    p0, p1 : array-like of shape (n_samples,)
        Lower and upper probabilities, in [0, 1].  An IVAP always has
        ``p0 <= p1``; the pair a cross Venn-Abers predictor reports,
        ``(1 - GM(1 - p0), GM(p1))`` over its folds, can be unordered, and
        then contributes a negative width.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.

    Returns
    -------
    float

    Examples
    --------
    >>> from venncal.metrics import interval_width
    >>> round(interval_width([0.1, 0.5], [0.3, 0.6]), 12)
    0.15
    """
    lo = _check_probabilities(p0, "p0")
    hi = _check_probabilities(p1, "p1")
    if lo.shape != hi.shape:
        raise ValueError(f"p0 and p1 have different lengths: {lo.shape[0]} and {hi.shape[0]}")
    return _mean(hi - lo, check_sample_weight(sample_weight, lo.shape[0]))


# -- all at once --------------------------------------------------------------


def _json_number(v: float) -> float | str:
    return v if math.isfinite(v) else str(v)  # "inf", "-inf" or "nan"


class Evaluation(Mapping):
    """Read-only, ordered mapping from metric name to value, as returned by :func:`evaluate`.

    Examples
    --------
    >>> from venncal.metrics import evaluate
    >>> ev = evaluate([0, 1, 1, 0], [0.0, 0.8, 0.6, 0.3])
    >>> ev["accuracy"]
    1.0
    >>> list(ev)
    ['log_loss', 'brier', 'rmse', 'ece', 'mce', 'auc', 'accuracy']
    """

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, float]):
        self._values = {str(k): float(v) for k, v in values.items()}

    def __getitem__(self, key: str) -> float:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Evaluation({self._values!r})"

    def to_dict(self) -> dict[str, float]:
        """Return the metrics as a new plain ``dict`` (same order).

        Examples
        --------
        >>> from venncal.metrics import Evaluation
        >>> Evaluation({"brier": 0.25}).to_dict()
        {'brier': 0.25}
        """
        return dict(self._values)

    def to_text(self, *, digits: int = 4) -> str:
        """Return an aligned two-column table: metric names and values.

        Parameters
        ----------
        digits : int, default=4
            Digits after the decimal point.

        Examples
        --------
        >>> from venncal.metrics import Evaluation
        >>> print(Evaluation({"log_loss": float("inf"), "brier": 0.25}).to_text())
        metric     value
        log_loss     inf
        brier     0.2500
        """
        cells = [(k, f"{v:.{digits}f}") for k, v in self._values.items()]
        left = max(len("metric"), *(len(k) for k, _ in cells))
        right = max(len("value"), *(len(s) for _, s in cells))
        rows = [("metric", "value"), *cells]
        return "\n".join(f"{k:<{left}}  {s:>{right}}" for k, s in rows)

    def to_json(self, *, indent: int | None = None) -> str:
        """Return a JSON object keyed by metric name.

        JSON has no infinity or NaN, so non-finite values are written as the
        strings ``"inf"``, ``"-inf"`` and ``"nan"``; ``float()`` reads them
        back.  Finite values are JSON numbers.

        Examples
        --------
        >>> from venncal.metrics import Evaluation
        >>> Evaluation({"log_loss": float("inf"), "brier": 0.25}).to_json()
        '{"log_loss": "inf", "brier": 0.25}'
        """
        data = {k: _json_number(v) for k, v in self._values.items()}
        return json.dumps(data, indent=indent, allow_nan=False)


def evaluate(
    y: ArrayLike,
    p: ArrayLike,
    *,
    interval: ArrayLike | None = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    base: float | str = 2,
    brier_scale: float = 1,
    pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> Evaluation:
    """Compute every metric of this module at once.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels 0 and 1, or booleans (or any two labels with ``pos_label``).
    p : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    interval : array-like of shape (n_samples, 2), default=None
        Venn-Abers pairs, columns ``p0`` and ``p1``; adds "interval_width"
        (see :func:`interval_width`).
    n_bins : int, default=10
        Bins for "ece" and "mce".
    strategy : {"uniform", "quantile"}, default="uniform"
        Binning for "ece" and "mce" (see :func:`ece`).
    base : {2, 10, e}, default=2
        Base of the logarithm in "log_loss".
    brier_scale : float, default=1
        Factor of the Brier loss (4 in paper 000).
    pos_label : label, default=None
        The positive class, for labels other than 0/1 and booleans.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights, used by every metric.

    Returns
    -------
    Evaluation
        Keys, in order: "log_loss", "brier", "rmse", "ece", "mce", "auc",
        "accuracy" and, with ``interval``, "interval_width".  "auc" is NaN
        when ``y`` holds a single class (where :func:`roc_auc` raises).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.metrics import evaluate
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(1000)
    >>> y = rng.random(1000) < p
    >>> ev = evaluate(y, p, interval=np.c_[0.9 * p, 0.9 * p + 0.1])
    >>> print(ev.to_text())
    metric           value
    log_loss        0.7121
    brier           0.1660
    rmse            0.4075
    ece             0.0309
    mce             0.0657
    auc             0.8339
    accuracy        0.7500
    interval_width  0.1000
    >>> import json
    >>> json.loads(ev.to_json())["accuracy"]
    0.75
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    _check_binning(n_bins, strategy)
    kw = {"sample_weight": w}
    bins = _calibration_bins(y01, p, w, n_bins, strategy)
    ne = bins.nonempty
    gap = np.abs(bins.frac_pos[ne] - bins.mean_pred[ne])
    try:
        auc = roc_auc(y01, p, **kw)
    except ValueError:
        auc = math.nan
    values = {
        "log_loss": log_loss(y01, p, base=base, **kw),
        "brier": brier_loss(y01, p, scale=brier_scale, **kw),
        "rmse": rmse(y01, p, **kw),
        "ece": float(np.sum(bins.weight[ne] * gap) / np.sum(bins.weight)),
        "mce": float(np.max(gap)),
        "auc": auc,
        "accuracy": accuracy(y01, p, **kw),
    }
    if interval is not None:
        iv = np.asarray(interval)
        if iv.ndim != 2 or iv.shape[1] != 2 or iv.shape[0] != p.shape[0]:
            raise ValueError(
                f"interval must have shape (n_samples, 2) = ({p.shape[0]}, 2); got {iv.shape}"
            )
        values["interval_width"] = interval_width(iv[:, 0], iv[:, 1], **kw)
    return Evaluation(values)
