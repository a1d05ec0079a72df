"""Calibration errors over bins (ECE, MCE) and the binning they share with the plots."""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._checks import _check_inputs

__all__ = ["ece", "mce"]

_STRATEGIES = ("uniform", "quantile")


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
