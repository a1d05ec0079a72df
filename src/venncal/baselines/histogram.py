"""Histogram binning (Zadrozny & Elkan 2001)."""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

import numpy as np

from .._base import (
    ScoreCalibrator,
    check_complements,
    check_float_arrays,
    check_increasing,
    own_knots,
    paired,
)
from .._binning import (
    equal_mass_cuts,
    equal_width_edges,
    gap_points,
    overflow_shift,
    scaling_is_exact,
)
from .._docs import fill
from .._validation import Interval, Options

__all__ = ["HistogramBinningCalibrator"]

STRATEGIES = ("quantile", "uniform")


@fill
class HistogramBinningCalibrator(ScoreCalibrator):
    """Histogram binning (Zadrozny & Elkan 2001).

    Partitions the score axis into bins and predicts, for a test score, the
    (weighted) fraction of positive calibration observations in its bin.

    Parameters
    ----------
    n_bins : int, default=10
        Number of bins (at least 1).  With ``strategy="quantile"`` fewer bins
        result when distinct scores carry more than ``1/n_bins`` of the
        weight or there are fewer than ``n_bins`` distinct scores.
    strategy : {"quantile", "uniform"}, default="quantile"
        ``"quantile"``: bins of (about) equal calibration weight.
        ``"uniform"``: bins of equal width over the range of the calibration
        scores.
    {classes}

    Attributes
    ----------
    {classes_}
    bin_edges_ : ndarray of shape (m + 1,)
        Non-decreasing edges; ``bin_edges_[0]`` and ``bin_edges_[-1]`` are
        the smallest and largest calibration score.  Bin ``b`` is the
        interval ``(bin_edges_[b], bin_edges_[b + 1]]``, except that the
        first bin also holds every score up to ``bin_edges_[1]`` and the last
        every score above ``bin_edges_[-2]`` (test scores outside the
        calibration range go to the first or last bin).
    bin_values_ : ndarray of shape (m,)
        Predicted probability in each bin.
    bin_weights_ : ndarray of shape (m,)
        Calibration weight in each bin (0 for an empty bin; ``inf`` for a bin
        whose weight exceeds the largest float64, whose value is still right).
    bin_complements_ : ndarray of shape (m,)
        ``1 - bin_values_``, computed as each bin's negative weight over its
        weight (an empty bin: that of the nearest non-empty bin), so that
        :meth:`predict_proba`'s column 0 keeps its relative precision where
        a bin's value is near 1.  A model saved before this attribute existed
        loads with ``1.0 - bin_values_``, which is what it predicted.

    Notes
    -----
    **Quantile bins.**  With ``W`` the total weight, the ``j``-th smallest
    distinct score covers the interval ``(C_j - w_j, C_j]`` of cumulative
    weight; it goes to bin ``floor(n_bins * (C_j - w_j/2) / W)`` (capped at
    ``n_bins - 1``), the equal-weight bin holding the midpoint of its
    interval.  ``w_j`` is the weight of the summary (:class:`~venncal.ScoreSummary`):
    the tied rows' weights summed and rounded once, so a midpoint within that
    rounding of a bin boundary is decided on the rounded sum (``0.3 + 0.7`` is
    taken as 1, exactly ``1 - 2**-54``; attack 50 F6).  Thus a distinct score is never split, and bins that receive
    no score are dropped (fewer, never empty bins).  For ``n`` unit-weight
    distinct scores and ``n_bins`` dividing ``n``, every bin holds
    ``n / n_bins`` of them; a score heavier than ``W / n_bins`` gets a bin
    of its own.  The edge between two bins is the midpoint between the last
    calibration score of one and the first of the next (rounded to a float
    strictly below the latter), and a test score on an edge belongs to the
    lower bin.

    **Uniform bins.**  ``n_bins`` bins of equal width over ``[min, max]`` of
    the calibration scores; a score on an inner edge belongs to the lower
    bin.  An empty bin predicts the value of the nearest non-empty bin (the
    lower one of two equally near).

    Each bin's value is its positive weight over its weight, so it can be
    exactly 0 or 1 (infinite log loss is possible, as for isotonic
    regression).  Fitting is linear in the number of distinct scores.

    References
    ----------
    B. Zadrozny, C. Elkan. Obtaining calibrated probability estimates from
    decision trees and naive Bayesian classifiers. ICML 2001.

    Examples
    --------
    >>> from venncal.baselines import HistogramBinningCalibrator
    >>> scores = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
    >>> y = [0, 0, 1, 0, 1, 0, 1, 1]
    >>> cal = HistogramBinningCalibrator(n_bins=2).fit(scores, y)
    >>> cal.bin_edges_, cal.bin_values_
    (array([0.1, 0.5, 0.9]), array([0.25, 0.75]))
    >>> cal.predict_proba([0.0, 0.5, 0.55, 2.0])[:, 1]
    array([0.25, 0.25, 0.75, 0.75])
    >>> HistogramBinningCalibrator(n_bins=4, strategy="uniform").fit(scores, y).bin_edges_
    array([0.1, 0.3, 0.5, 0.7, 0.9])
    """

    def __init__(self, *, n_bins=10, strategy="quantile", classes=None):
        self.n_bins = n_bins
        self.strategy = strategy
        self.classes = classes

    _state = ("bin_edges_", "bin_values_", "bin_weights_", "bin_complements_")
    #: Fitted attributes newer than the first saved models (filled by ``_derive_state``).
    _state_added: ClassVar[dict[str, str]] = {"bin_complements_": "bin_values_"}
    _parameter_constraints: ClassVar[dict] = {
        "n_bins": [Interval("int", 1, None)],
        "strategy": [Options(STRATEGIES)],
    }

    _class_sums = True  # the complements come from the negative weights

    def _fit_sums(self, s, w, a, b):
        n_bins = int(self.n_bins)
        if s.shape[0] == 1:
            edges = np.array([s[0], s[0]])
        elif self.strategy == "quantile":
            # The first score of each later bin, by the shared equal-weight rule.
            ends, _, _ = equal_mass_cuts(w, np.array([n_bins], dtype=np.int64))
            edges = np.concatenate(([s[0]], gap_points(s[ends - 1], s[ends]), [s[-1]]))
        else:
            edges = equal_width_edges(s[0], s[-1], n_bins)
        m = edges.shape[0] - 1
        bins = np.searchsorted(edges[1:-1], s, side="left")
        weights, values, complements = _bin_sums(bins, w, a, b, m)
        values, complements = paired(values, complements)  # each the more precise
        filled = weights > 0
        if not filled.all():
            nearest = _nearest_filled(filled)
            values, complements = values[nearest], complements[nearest]
        self.bin_edges_ = edges
        self.bin_values_ = values
        self.bin_weights_ = weights
        self.bin_complements_ = complements

    def _derive_state(self) -> None:
        """A model saved before ``bin_complements_`` existed predicted ``1.0 - bin_values_``."""
        if not hasattr(self, "bin_complements_") and isinstance(self.bin_values_, np.ndarray):
            self.bin_complements_ = 1.0 - self.bin_values_

    def _state_default(self, name: str):
        """What :meth:`_derive_state` fills ``name`` with (the file may leave it out then)."""
        return 1.0 - self.bin_values_

    def _check_state(self):
        """Raise ``ValueError`` unless the bins are ones ``fit`` can produce.

        At most ``n_bins`` bins (exactly ``n_bins`` for uniform bins over more
        than one score), non-decreasing edges, values in [0, 1], weights
        ``>= 0`` (``> 0`` for quantile bins, which are never empty; ``inf``
        past the largest double), an empty bin taking the value (and
        complement) of the nearest non-empty one, an inner bin between two
        equal edges empty, and complements in [0, 1] that add to the values
        to 1 within ``2**-20``.
        """
        super()._check_state()
        m = check_float_arrays(self, ("bin_values_",), unit_interval=("bin_values_",))
        # a bin's weight past the largest double is inf (its value is still right)
        check_float_arrays(self, ("bin_weights_",), length=m, finite=False)
        check_float_arrays(self, ("bin_edges_",), length=m + 1)
        check_increasing(self.bin_edges_, "bin_edges_", strict=False)
        if m == 0 or (self.bin_weights_ < 0).any() or not (self.bin_weights_ > 0).any():
            raise ValueError("bin_weights_ must be non-negative, with a positive sum")
        n_bins = int(self.n_bins)
        if m > n_bins:
            raise ValueError(f"there must be at most n_bins={n_bins} bins; got {m}")
        if self.strategy == "uniform" and self.bin_edges_[0] < self.bin_edges_[-1] and m != n_bins:
            raise ValueError(f"there must be n_bins={n_bins} uniform bins; got {m}")
        filled = self.bin_weights_ > 0
        e = self.bin_edges_  # an inner bin (e[b], e[b + 1]] of zero width holds no score
        if m > 2 and (filled[1:-1] & (e[1:m - 1] == e[2:m])).any():
            raise ValueError("a bin between two equal edges holds no score: its weight must be 0")
        if self.strategy == "quantile" and not filled.all():
            raise ValueError("quantile bins must all hold calibration weight")
        nearest = _nearest_filled(filled)
        if not (self.bin_values_ == self.bin_values_[nearest]).all():
            raise ValueError("an empty bin must take the value of the nearest non-empty bin")
        check_float_arrays(self, ("bin_complements_",), length=m,
                           unit_interval=("bin_complements_",))
        check_complements(self.bin_values_, self.bin_complements_, monotone=False,
                          names=("bin_values_", "bin_complements_"))
        if not (self.bin_complements_ == self.bin_complements_[nearest]).all():
            raise ValueError("an empty bin must take the complement of the nearest non-empty bin")

    def _predict_p(self, q):
        return self.bin_values_[np.searchsorted(self.bin_edges_[1:-1], q, side="left")]

    def _predict_p_and_complement(self, q):
        at = np.searchsorted(self.bin_edges_[1:-1], q, side="left")
        return self.bin_values_[at], self.bin_complements_[at]

    @own_knots
    def _knots(self) -> np.ndarray:
        """The inner bin edges (a score equal to one falls in the lower bin)."""
        return self.bin_edges_[1:-1]


def _bin_sums(bins, w, a, b, m):
    """Return each bin's weight, positive fraction and negative fraction (0 for an empty bin).

    ``bins`` (the bin of each distinct score) never decreases, so a bin is a
    run of distinct scores, summed on its own (``np.add.reduceat``: accurate
    relative to the bin's weight, whatever the weight of the others).  The
    weights are first divided by a power of two where a sum could overflow
    (a bin's weight past the float64 range is then ``inf``; its fraction is
    still right), and for weights so far apart that this would lose bits of
    the smallest weight or class weight (``a`` or ``b`` can be subnormal
    beside a normal ``w``), the sums are exact rationals.  The negative
    fraction is the bin's own sum of ``b`` over its weight, not ``1 -
    positive``, which keeps only about ``2**-53`` absolute.
    """
    start = np.searchsorted(bins, np.arange(m), side="left")
    end = np.searchsorted(bins, np.arange(m), side="right")
    filled = end > start
    values = np.zeros(m)
    complements = np.zeros(m)
    weights = np.zeros(m)
    e = overflow_shift(w)
    if scaling_is_exact(w, e, a, b):
        ws, as_, bs = (np.ldexp(w, -e), np.ldexp(a, -e), np.ldexp(b, -e)) if e else (w, a, b)
        total = np.add.reduceat(ws, start[filled])
        values[filled] = np.clip(np.add.reduceat(as_, start[filled]) / total, 0.0, 1.0)
        complements[filled] = np.clip(np.add.reduceat(bs, start[filled]) / total, 0.0, 1.0)
        with np.errstate(over="ignore"):
            weights[filled] = np.ldexp(total, e) if e else total
        return weights, values, complements
    for j in np.flatnonzero(filled):
        tw, ta, tb = (sum(map(Fraction, x[start[j]:end[j]].tolist()), Fraction(0))
                      for x in (w, a, b))
        values[j] = float(ta / tw)
        complements[j] = float(tb / tw)
        weights[j] = float(tw) if tw <= Fraction(np.finfo(np.float64).max) else np.inf
    return weights, values, complements


def _nearest_filled(filled):
    """Index of the nearest True of ``filled`` for every position (ties: lower)."""
    pos = np.arange(filled.shape[0])
    where = np.flatnonzero(filled)
    nxt = np.searchsorted(where, pos, side="left")  # first filled at or after pos
    below = where[np.maximum(nxt - 1, 0)]
    above = where[np.minimum(nxt, where.shape[0] - 1)]
    return np.where((above - pos) < (pos - below), above, below)
