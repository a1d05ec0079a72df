"""Calibration errors over bins (ECE, MCE) and the bins they share with the plots."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._binning import (
    unit_edges,
    upper_mass_bins_of_rows,
    upper_mass_starts,
)
from .._kernels.exact_sum import bin_residuals
from .._validation import NONE, Interval, Options, validate_params
from ..summary import ScoreSummary
from ._checks import _check_inputs
from ._docstrings import fill

__all__ = ["CalibrationBins", "calibration_bins", "ece", "mce"]

STRATEGIES = ("uniform", "quantile")
BINNING_CONSTRAINTS = {"n_bins": [Interval("int", 1, None)], "strategy": [Options(STRATEGIES)]}
MIN_BIN_COUNT_CONSTRAINTS = {"min_bin_count": [NONE, Interval("real", 0, None, "left")]}


class CalibrationBins(NamedTuple):
    """Per-bin statistics of a reliability diagram, as returned by :func:`calibration_bins`.

    Bin ``k`` is ``[edges[k], edges[k+1])``, the last bin also holding
    ``p == edges[-1] == 1``.  Bins without weight have NaN means.  With
    sample weights, each bin's means are computed on its weights divided by
    a power of two (exact), so they are right for weights of any finite
    size; ``weight`` is ``inf`` for a bin whose total exceeds the largest
    float64, and ``share`` stays exact.  ``gap`` is each bin's
    ``|frac_pos - mean_pred|`` from the exact sum of ``w (y - p)`` over the
    bin, rounded once, divided by its weight: it keeps its relative
    precision where the two means agree to their last digits.
    """

    edges: np.ndarray  #: (n_bins + 1,) non-decreasing, from 0 to 1
    ids: np.ndarray  #: (n_samples,) the bin of each observation
    weight: np.ndarray  #: (n_bins,) total weight (the count, without sample weights)
    mean_pred: np.ndarray  #: (n_bins,) weighted mean of p; NaN for an empty bin
    frac_pos: np.ndarray  #: (n_bins,) weighted fraction of positives; NaN for an empty bin
    share: np.ndarray | None = None  #: (n_bins,) fraction of the total weight (P(k) of the ECE)
    #: (n_bins,) ``abs(frac_pos - mean_pred)`` from the bin's exact ``sum w (y - p)`` (NaN for
    #: an empty bin), the gap of the ECE and MCE; without it, the difference of the means
    gap: np.ndarray | None = None

    @property
    def nonempty(self) -> np.ndarray:
        """Boolean mask of the bins with positive weight."""
        return self.weight > 0

    def small(self, min_bin_count: float | None) -> np.ndarray:
        """Boolean mask of the non-empty bins that :func:`mce` leaves out.

        Those holding less than ``min_bin_count`` rows (total weight with
        sample weights); none when ``min_bin_count`` is None.

        Examples
        --------
        >>> from venncal.metrics import calibration_bins
        >>> bins = calibration_bins([0, 1, 1], [0.1, 0.2, 0.9], n_bins=2)
        >>> bins.small(2)
        array([False,  True])
        """
        if min_bin_count is None:
            return np.zeros(self.weight.shape, dtype=bool)
        return self.nonempty & (self.weight < min_bin_count)

    def errors(self, min_bin_count: float | None = None) -> tuple[float, float]:
        """Return ``(ECE, MCE)`` of these bins, as :func:`ece` and :func:`mce` compute them.

        For both errors of one binning without binning twice.

        Examples
        --------
        >>> from venncal.metrics import calibration_bins
        >>> bins = calibration_bins([0, 1, 1, 1], [0.05, 0.05, 0.95, 0.95], n_bins=2)
        >>> bins.errors()
        (0.25, 0.45)
        """
        validate_params("errors", {"min_bin_count": min_bin_count}, MIN_BIN_COUNT_CONSTRAINTS)
        return _errors(self, min_bin_count)


def _edges(y01, p, w, n_bins: int, strategy: str) -> np.ndarray:
    if strategy == "uniform":
        return unit_edges(n_bins)
    # Quantile bins are assigned per distinct value by the top rule of the
    # shared binning, decided on the exact weights; the summary drops zero
    # weights, as everywhere.  (The rule is the same for any common factor
    # of the weights: only weights past 2**900 are scaled, so that tied ones
    # cannot sum past the float64 range.)
    starts = None
    if w is None:
        summary = ScoreSummary._from_validated(p, y01, None)
        scores, starts = summary.scores, upper_mass_starts(summary.weights, n_bins)
    else:
        shift = max(0, math.frexp(float(np.max(w)))[1] - 900)
        scaled = np.ldexp(w, -shift) if shift else w
        kept = np.ldexp(scaled, shift) == w if shift else None
        if kept is None or kept.all():
            summary = ScoreSummary._from_validated(p, y01, scaled)
            if summary._tail is None:
                scores, starts = summary.scores, upper_mass_starts(
                    summary.weights, n_bins, _remainders(summary))
        else:  # weights that scaling would round (1e-310 beside 1e308): summed apart
            scores, starts = _split_starts(y01, p, w, scaled, kept, shift, n_bins)
    if starts is None:  # tied weights that two doubles do not hold: every row, in integers
        scores, value_bin = upper_mass_bins_of_rows(p, w, n_bins)
        starts = np.searchsorted(value_bin, np.arange(1, n_bins), side="left")
    # Bin j starts at its smallest value, so bin k is [edges[k], edges[k+1]) as for
    # "uniform"; empty bins have zero width.  The largest value is in the last bin,
    # so every start exists.
    inner = scores[np.minimum(starts, scores.shape[0] - 1)]
    return np.concatenate(([0.0], inner, [1.0]))


def _remainders(summary):
    return None if summary._residual is None else summary._residual[0]


def _split_starts(y01, p, w, scaled, kept, shift: int, n_bins: int):
    """``(scores, starts)`` from the weights that scale exactly and, apart, those that do not.

    The second are below ``2**(shift - 1022)``: summed unscaled, their ties
    cannot overflow.  ``(None, None)`` when a summary keeps fractions.
    """
    big = ScoreSummary._from_validated(p, y01, np.where(kept, scaled, 0.0))
    tiny = ScoreSummary._from_validated(p, y01, np.where(kept, 0.0, w))
    if big._tail is not None or tiny._tail is not None:
        return None, None
    scores = np.union1d(big.scores, tiny.scores)
    parts = []
    for summary in (big, tiny):
        at = np.searchsorted(scores, summary.scores)
        for x in (summary.weights, _remainders(summary)):
            if x is not None:
                part = np.zeros(scores.shape[0])
                part[at] = x
                parts.append(part)
    n_big = 1 if big._residual is None else 2
    return scores, upper_mass_starts(parts[0], n_bins, parts[1] if n_big == 2 else None,
                                     tuple(parts[n_big:]), shift)


def _bins(y01: np.ndarray, p: np.ndarray, w: np.ndarray | None, n_bins: int, strategy: str):
    """Bin validated predictions: the one binning behind ECE, MCE and the plots."""
    edges = _edges(y01, p, w, n_bins, strategy)
    # A value on an edge goes to the bin above it (for "quantile" the edges are
    # the smallest values of their bins, so this is the bin of each value).
    ids = np.searchsorted(edges[1:-1], p, side="right")
    if w is None:
        wt = np.ones_like(p)
        e = np.zeros(n_bins, dtype=np.int64)
    else:
        # Each bin's weights divided by the power of two that brings the
        # bin's largest to [0.5, 1): exact, and no bin sum overflows or
        # vanishes, whatever the weights.
        top = np.zeros(n_bins)
        np.maximum.at(top, ids, w)
        e = np.frexp(top)[1]
        wt = np.ldexp(w, -e[ids])
    scaled = np.bincount(ids, weights=wt, minlength=n_bins)
    # the gaps from the exact sums of w (y - p), read 2**600 times larger: a bin of small
    # weights keeps its digits (every w / 2**e is below 1, so no product reaches 2**1000)
    residual = np.abs(bin_residuals(
        ids, np.ascontiguousarray(wt, dtype=float), np.asarray(y01, dtype=float),
        np.ascontiguousarray(p, dtype=float), n_bins, 2.0**600))
    sum_p = np.bincount(ids, weights=wt * p, minlength=n_bins)
    sum_y = np.bincount(ids, weights=wt * y01, minlength=n_bins)
    nonempty = scaled > 0
    mean_pred = np.divide(sum_p, scaled, out=np.full(n_bins, np.nan), where=nonempty)
    gap = np.divide(residual, np.ldexp(scaled, 600), out=np.full(n_bins, np.nan),
                    where=nonempty)
    frac_pos = np.divide(sum_y, scaled, out=np.full(n_bins, np.nan), where=nonempty)
    with np.errstate(over="ignore"):
        weight = np.ldexp(scaled, e)  # inf past the float64 range
    # + 1: a bin of one weight 5e-324 beside a bin of weight 1 kept 2**-1075, which rounded
    # to 0 (attack 48 F3: an ECE of 0.0 where the exact one is 5e-324)
    relative = np.ldexp(scaled, e - e[nonempty].max() + 1) if nonempty.any() else scaled
    share = relative / relative.sum() if nonempty.any() else relative
    return CalibrationBins(edges, ids, weight, mean_pred, frac_pos, share, gap)


def _errors(bins: CalibrationBins, min_bin_count: float | None = None) -> tuple[float, float]:
    """``(ECE, MCE)`` of the bins; the MCE leaves out ``bins.small(min_bin_count)``.

    The MCE is NaN when every non-empty bin is left out.
    """
    ne = bins.nonempty
    gap = np.abs(bins.frac_pos - bins.mean_pred) if bins.gap is None else bins.gap
    with np.errstate(over="ignore"):
        total = np.sum(bins.weight)
    ece = None
    if bins.share is None or 2.0**-500 < total < 2.0**500:
        with np.errstate(under="ignore"):
            terms = bins.weight[ne] * gap[ne]
        # a subnormal bin weight times a small gap loses its digits (or vanishes)
        # although terms / total is representable: then the exact shares
        if bins.share is None or not ((terms < 2.0**-1022) & (gap[ne] > 0)).any():
            ece = float(np.sum(terms) / total)
    if ece is None:  # weights near the ends of the float64 range: their exact shares
        ece = float(np.sum(bins.share[ne] * gap[ne]))
    kept = ne & ~bins.small(min_bin_count)
    return ece, float(np.max(gap[kept])) if kept.any() else math.nan



def _validated_bins(owner, y, p, n_bins, strategy, pos_label, sample_weight):
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    validate_params(owner, {"n_bins": n_bins, "strategy": strategy}, BINNING_CONSTRAINTS)
    return _bins(y01, p, w, n_bins, strategy)


@fill
def calibration_bins(
    y: ArrayLike, p: ArrayLike, *, n_bins: int = 10, strategy: str = "uniform", pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> CalibrationBins:
    """Return the bins of :func:`ece`, :func:`mce` and the reliability diagram.

    Parameters
    ----------
    {y_p}
    {binning}
    {weights}

    Returns
    -------
    CalibrationBins
        ``edges``, the bin ``ids`` of the observations, and per bin the
        ``weight``, mean prediction ``mean_pred`` and fraction of positives
        ``frac_pos``.

    Examples
    --------
    >>> from venncal.metrics import calibration_bins
    >>> bins = calibration_bins([0, 1, 1, 1], [0.05, 0.05, 0.95, 0.95], n_bins=2)
    >>> bins.edges, bins.ids, bins.weight
    (array([0. , 0.5, 1. ]), array([0, 0, 1, 1]), array([2., 2.]))
    >>> bins.mean_pred, bins.frac_pos
    (array([0.05, 0.95]), array([0.5, 1. ]))
    """
    return _validated_bins(
        "calibration_bins", y, p, n_bins, strategy, pos_label, sample_weight
    )


@fill
def ece(
    y: ArrayLike, p: ArrayLike, *, n_bins: int = 10, strategy: str = "uniform", pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> float:
    r"""Return the expected calibration error ``sum_k P(k) |o_k - e_k|`` (Naeini & Cooper 2016, IV-A).

    ``P(k)`` is the fraction of observations in bin ``k``, ``o_k`` the
    fraction of positives there and ``e_k`` the mean prediction; the sum runs
    over the non-empty bins.

    Parameters
    ----------
    {y_p}
    {binning}
    {weights}

    Returns
    -------
    float
        In [0, 1]: the weighted mean gap between observed frequency and mean prediction.

    Examples
    --------
    >>> from venncal.metrics import ece
    >>> ece([0, 1, 1, 1], [0.05, 0.05, 0.95, 0.95], n_bins=2)
    0.25
    """
    return _errors(_validated_bins("ece", y, p, n_bins, strategy, pos_label, sample_weight))[0]


@fill
def mce(
    y: ArrayLike, p: ArrayLike, *, n_bins: int = 10, strategy: str = "uniform",
    min_bin_count: float | None = None, pos_label=None, sample_weight: ArrayLike | None = None,
) -> float:
    r"""Maximum calibration error ``max_k |o_k - e_k|`` over non-empty bins (Naeini & Cooper 2016, IV-A).

    ``o_k`` is the fraction of positives in bin ``k`` and ``e_k`` its mean
    prediction.  A bin of one row has a gap of at least ``min(e_k, 1 - e_k)``
    and can drive the maximum alone: ``min_bin_count`` leaves the bins
    holding fewer rows out of it (:meth:`CalibrationBins.small` lists them).

    Parameters
    ----------
    {y_p}
    {binning}
    min_bin_count : float >= 0, default=None
        Leave out the bins holding less than this many rows (less total
        weight, with ``sample_weight``: frequency weights count as rows).  By
        default every non-empty bin counts.
    {weights}

    Returns
    -------
    float
        NaN when every non-empty bin is left out.

    Examples
    --------
    >>> from venncal.metrics import mce
    >>> y, p = [0, 1, 1, 1, 0], [0.05, 0.05, 0.95, 0.95, 0.95]
    >>> round(mce(y, p, n_bins=2), 4)
    0.45
    >>> round(mce(y, p, n_bins=2, min_bin_count=3), 4)  # only the bin of 3 rows
    0.2833
    """
    validate_params("mce", {"min_bin_count": min_bin_count}, MIN_BIN_COUNT_CONSTRAINTS)
    bins = _validated_bins("mce", y, p, n_bins, strategy, pos_label, sample_weight)
    return _errors(bins, min_bin_count)[1]
