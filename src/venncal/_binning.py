"""The binning rules shared by histogram binning, BBQ and the binned metrics.

Every binned method in venncal works on a **score summary**: the sorted
distinct scores ``s_1 < ... < s_k`` with their weights ``w_j > 0`` (see
:class:`~venncal.summary.ScoreSummary`).  A binning assigns each distinct
score to a bin, so tied scores are never split.  The rules:

- :func:`gap_points`: where to put the edge between two adjacent distinct
  scores (histogram binning, BBQ).
- :func:`equal_mass_cuts`: equal-weight
  (quantile) bins, each distinct score in the bin that holds the *middle*
  of its cumulative-weight interval (histogram binning, BBQ).
- :func:`upper_mass_bins`: equal-weight bins, each distinct score in the
  bin that holds the *top* of its interval (the quantile bins of ECE, MCE
  and the reliability diagram, where a value on a split goes up, as a value
  on a uniform edge does), decided on the exact sums of the weights;
  :func:`upper_mass_starts` gives the first score of each bin and
  :func:`upper_mass_bins_of_rows` the same rule from rows, in integers.
- :func:`equal_width_edges` (over the range of the scores; histogram
  binning) and :func:`unit_edges` (``k / K`` on ``[0, 1]``; the metrics).
- :func:`prefix_sums` and :func:`range_sums`: the weight of any run of
  distinct scores, from double-double prefix sums (to about ``2**-100`` of
  the weight before it: no cancellation when a light run follows heavy ones
  unless they are ``2**50`` times heavier, no overflow when the total passes
  the float64 range).

Weights of any finite size are allowed: where a cumulative sum could
overflow, the weights are first scaled by a power of two (exact, and the
rules are the same for any common factor of the weights).

This module sits below both the calibrators and the metrics (it is not in
:mod:`venncal.baselines`, whose package imports every calibrator), so the
metrics do not depend on the calibrator layer.  Plain numpy: every rule is
a sort-free O(k) or O(k log k) pass over the summary.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from ._kernels.dd import two_sum

__all__ = [
    "equal_mass_cuts",
    "equal_width_edges",
    "gap_points",
    "overflow_shift",
    "prefix_sums",
    "range_sums",
    "scaling_is_exact",
    "unit_edges",
    "upper_mass_bins",
    "upper_mass_bins_of_rows",
    "upper_mass_starts",
]


def overflow_shift(weights: np.ndarray, limit: int = 1000) -> int:
    """Return ``e >= 0`` such that ``weights * 2**-e`` sum to less than ``2**limit``.

    0 (no scaling, so results are unchanged bit for bit) unless the
    weights are large enough for their sum, or twice it, to overflow.

    Examples
    --------
    >>> import numpy as np
    >>> overflow_shift(np.array([1.0, 2.0])), overflow_shift(np.array([1e308, 1e308]))
    (0, 26)
    """
    if weights.shape[0] == 0:
        return 0
    _, e = math.frexp(float(np.max(weights)))
    return max(0, e + (weights.shape[0] + 1).bit_length() - limit)


def prefix_sums(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Return double-double prefix sums ``(hi, lo, e)`` of non-negative weights, 0 first.

    ``(hi[j] + lo[j]) * 2**e`` is the sum of ``weights[:j]`` to about
    ``2**-100`` of it (``e`` from :func:`overflow_shift`).  Plain numpy: the
    running sums are sequential (``np.cumsum``), and each step's rounding
    error, recovered afterwards by two-sum, is summed in ``lo``.
    """
    e = overflow_shift(weights)
    x = np.ldexp(weights, -e) if e else weights
    hi = np.zeros(x.shape[0] + 1)
    np.cumsum(x, out=hi[1:])
    lo = np.zeros(x.shape[0] + 1)
    _, err = two_sum(hi[:-1], x)
    np.cumsum(err, out=lo[1:])
    return hi, lo, e


def range_sums(prefix, start: np.ndarray, end: np.ndarray, *, scaled: bool = False) -> np.ndarray:
    """Return the sums of ``weights[start:end]`` (elementwise) from :func:`prefix_sums`.

    The difference of the double-double prefix sums: accurate to about
    ``2**-100`` of the prefix sum at ``end`` (so to a few ulps of the range's
    own sum unless the weights before it are more than ``2**50`` times
    heavier), and ``inf`` where a sum exceeds the largest double; with
    ``scaled``, the sums times the prefix's ``2**-e`` instead (ratios of them
    are then those of the sums).
    """
    hi, lo, e = prefix
    s, err = two_sum(hi[end], -hi[start])
    out = s + (err + (lo[end] - lo[start]))
    if e and not scaled:
        with np.errstate(over="ignore"):
            out = np.ldexp(out, e)
    return out


def scaling_is_exact(weights: np.ndarray, e: int, *more: np.ndarray) -> bool:
    """Whether ``weights * 2**-e`` (and each of ``more`` times it) loses no bit.

    A value loses bits when it lands in the subnormal range with nonzero
    bits below ``2**-1074``; the test is exact (scaled back up, every value is
    itself), so small weights with trailing zero bits still pass.  Check
    every array whose sums are scaled: the positive weights ``a`` of a
    calibration summary can be subnormal beside a normal total ``w``
    (issue 22: ``a = 1e-310`` beside ``w = 0.1`` and ``1e308``).

    Examples
    --------
    >>> import numpy as np
    >>> scaling_is_exact(np.array([1.0, 1e308]), 26, np.array([1e-310, 0.0]))
    False
    >>> scaling_is_exact(np.array([1.0, 1e308]), 26, np.array([2.0**-1040]))
    True
    """
    if e == 0:
        return True
    for x in (weights, *more):
        if not np.array_equal(np.ldexp(np.ldexp(x, -e), e), x):
            return False
    return True


def gap_points(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Return points in ``[lo, hi)`` near the midpoints of ``lo < hi`` (elementwise).

    ``0.5*lo + 0.5*hi`` cannot overflow and, rounding being monotonic, is
    ``>= lo``; for adjacent floats it can round up to ``hi``, and then ``lo``
    is used, so a score equal to ``hi`` is always above the point.

    Examples
    --------
    >>> import numpy as np
    >>> gap_points(np.array([0.0, 1.0]), np.array([1.0, np.nextafter(1.0, 2.0)]))
    array([0.5, 1. ])
    """
    mid = 0.5 * lo + 0.5 * hi
    return np.where(mid < hi, mid, lo)


def equal_mass_cuts(
    weights: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cuts of the equal-weight binnings with ``counts`` bins, middle rule.

    With ``W`` the total weight and ``C_j`` the cumulative weight up to
    distinct score ``j``, the ``B``-bin binning puts score ``j`` in bin
    ``#{b in 1..B-1 : b W / B <= C_j - w_j / 2}``: the equal-weight bin that
    holds the middle of the score's cumulative-weight interval.  Bins that
    receive no score are dropped.

    Parameters
    ----------
    weights : ndarray of shape (k,)
        Positive weights of the sorted distinct scores.
    counts : ndarray of int64 of shape (n_models,)
        Numbers of bins ``B`` (at least 1 each), one binning per entry.

    Returns
    -------
    cuts, first_cut, n_cuts : ndarray of int64
        Binning ``i`` has the increasing cuts
        ``cuts[first_cut[i]:first_cut[i] + n_cuts[i]]`` in ``1..k-1``; a cut
        ``c`` separates distinct scores ``< c`` from those ``>= c``, one cut
        per non-empty bin but the first.

    Notes
    -----
    The rule is decided exactly, as ``B (C_{j-1} + C_j) >= 2 b W`` (twice
    the middle against twice the level) on the exact sums of the weights:
    the cuts are found on float running sums, which place each exactly
    unless a middle lies within their rounding bound of a level; those
    scores (usually none) are searched with exact sums (:func:`_exact_prefix`,
    or integers in units of ``2**-1074``), as :func:`upper_mass_starts` does.
    Before, a middle on a level went to either side: weights 0.7, 0.6, 0.7
    and 7, 6, 7 gave different bins (attack 48 F4).

    Examples
    --------
    >>> import numpy as np
    >>> equal_mass_cuts(np.ones(5), np.array([1, 2, 3]))
    (array([2, 2, 3]), array([0, 0, 1]), array([0, 1, 2]))
    """
    raw_weights = weights
    shift = overflow_shift(weights) or min(0, math.frexp(float(np.max(weights)))[1])
    exact_scaling = not shift or scaling_is_exact(weights, shift)
    if shift:  # the rule is the same for any common factor of the weights
        weights = np.ldexp(weights, -shift)
    cum = np.cumsum(weights)
    key = 2.0 * cum - weights  # twice the middle of each score's weight interval
    k = key.shape[0]
    per_model = counts - 1
    starts = np.zeros(counts.shape[0], dtype=np.int64)
    np.cumsum(per_model[:-1], out=starts[1:])
    model = np.repeat(np.arange(counts.shape[0]), per_model)
    level = np.arange(model.shape[0]) - starts[model] + 1
    total = float(cum[-1])
    target = (2.0 * total) * level / counts[model]
    raw = np.searchsorted(key, target, side="left")
    # |key_j - 2 (middle)| and |target - 2 b W / B| are within band: elsewhere the cut is exact
    band = (4 * k + 16) * 2.0**-52 * total
    first = np.searchsorted(key, target - band, side="left")
    end = np.searchsorted(key, target + band, side="right")
    unsure = np.flatnonzero(first < end)
    if unsure.shape[0]:
        exact = _exact_prefix([weights], cum, total) if exact_scaling else None
        if exact is None:  # integers in units of 2**-1074 (a Python loop; rare)
            upto = list(itertools.accumulate(_units(v) for v in raw_weights.tolist()))
            exact = upto.__getitem__
        whole = exact(k - 1)
        for i in unsure.tolist():
            B, b, lo_, hi_ = int(counts[model[i]]), int(level[i]), int(first[i]), int(end[i])
            while lo_ < hi_:  # the first j in [first, end) with B (C_{j-1} + C_j) >= 2 b W
                mid = (lo_ + hi_) // 2
                if B * ((exact(mid - 1) if mid else 0) + exact(mid)) >= 2 * b * whole:
                    hi_ = mid
                else:
                    lo_ = mid + 1
            raw[i] = lo_
    # Drop cuts that leave an empty bin: at 0 or k, or equal to the previous
    # cut of the same model (raw cuts never decrease within a model).
    prev = np.empty_like(raw)
    prev[1:] = raw[:-1]
    prev[starts[per_model > 0]] = 0
    keep = (raw > 0) & (raw < k) & (raw != prev)
    n_cuts = np.bincount(model[keep], minlength=counts.shape[0])
    first_cut = np.zeros(counts.shape[0], dtype=np.int64)
    np.cumsum(n_cuts[:-1], out=first_cut[1:])
    return raw[keep], first_cut, n_cuts


def upper_mass_bins(weights: np.ndarray, n_bins: int, lo: np.ndarray | None = None) -> np.ndarray:
    """Return the equal-weight bin (top rule) of each distinct score, decided exactly.

    Distinct score ``j`` goes to bin ``ceil(K C_j / W) - 1``: the bin of
    ``K`` equal-weight bins that holds the top of its cumulative-weight
    interval, so a run of ties that straddles a split goes wholly to the
    upper bin and heavy ties leave bins empty.  The last score is in the
    last bin.  ``C_j`` and ``W`` are the exact sums of the weights (of
    ``weights + lo`` when the remainders ``lo`` of a
    :class:`~venncal.summary.ScoreSummary`'s tied sums are given), so the
    rule holds exactly for weights of any size: see :func:`upper_mass_starts`.

    Examples
    --------
    >>> import numpy as np
    >>> upper_mass_bins(np.array([1.0, 1.0, 5.0, 1.0]), 4)
    array([0, 0, 3, 3])
    >>> upper_mass_bins(np.array([0.1, 0.2, 0.3]), 2)  # 0.1 + 0.2 > 0.6 / 2 as floats
    array([0, 1, 1])
    """
    starts = upper_mass_starts(weights, n_bins, lo)
    return np.searchsorted(starts, np.arange(weights.shape[0]), side="right").astype(np.intp)


def upper_mass_starts(
    weights: np.ndarray, n_bins: int, lo: np.ndarray | None = None, small: tuple = (),
    small_shift: int = 0,
) -> np.ndarray:
    """Return the first distinct score of bins ``1..K-1`` of :func:`upper_mass_bins`.

    ``starts[m - 1]`` is the first ``j`` with ``K C_j > m W`` (an empty bin
    starts where the next one does).  ``small`` holds more parts of the
    weights, in units ``2**small_shift`` times smaller (the weights a power
    of two would scale into the subnormal range, with their bits lost; each
    below ``2**(small_shift - 1022)``): weight ``j`` is
    ``weights[j] + lo[j] + 2**-small_shift * sum(x[j] for x in small)``.

    Notes
    -----
    The rule is discontinuous: a rounded cumulative sum on a split would
    move a whole score, however heavy, to the other bin (issue 22: weights
    ``[1e300, 1e300, 1]`` or ``[0.1, 0.2, 0.3]``).  Each split is found on
    the float running sums (``np.cumsum``: non-decreasing, within
    ``(k + 2) u W`` of the exact sums, ``u = 2**-53``), which place it
    exactly unless some running sum lies within twice that bound of the
    level ``m W / K``; those scores (usually none, or one sitting on the
    level) are searched with exact sums, a few comparisons per split.  Whole
    weights summing below ``2**53`` have exact running sums, compared as
    integers; others are kept exactly as a few float arrays whose sum is
    ``C_j`` (:func:`_prefix_levels`) and compared in rational arithmetic.
    Weights whose scaling would lose bits are binned in integers.
    """
    k = weights.shape[0]
    # The rule is the same for any common factor of the weights: sums too large
    # to add are scaled down, and small weights up (exact), so that no sum or
    # level is subnormal (whose roundings are not relative).
    shift = overflow_shift(weights) or min(0, math.frexp(float(np.max(weights)))[1])
    parts = [weights] if lo is None else [weights, lo]
    if shift:
        if small or not scaling_is_exact(weights, shift, *parts[1:]):
            bins = _integer_upper_bins(parts, n_bins, small, small_shift)
            return np.searchsorted(bins, np.arange(1, n_bins), side="left")
        parts = [np.ldexp(x, -shift) for x in parts]
    run = np.cumsum(parts[0])
    total = float(run[-1])
    # on |run_j - C_j| (and on |run[-1] - W|); the small parts add less than 2**-1022 each
    bound = (k + 2) * 2.0**-52 * total + (k * 2.0**-1021 if small else 0.0)
    levels = np.arange(1, n_bins) * (total / n_bins)
    band = 2.0 * bound + 2.0**-50 * total
    first = np.searchsorted(run, levels - band, side="left")
    end = np.searchsorted(run, levels + band, side="right")
    starts = first.copy()
    unsure = np.flatnonzero(first < end)
    if unsure.shape[0]:
        exact = _exact_prefix(parts, run, total, small, small_shift)
        if exact is None:
            bins = _integer_upper_bins(parts, n_bins, small, small_shift)
            return np.searchsorted(bins, np.arange(1, n_bins), side="left")
        whole = exact(k - 1)
        for i in unsure.tolist():
            m, lo_, hi_ = i + 1, int(first[i]), int(end[i])
            while lo_ < hi_:  # the first j in [first, end) with K C_j > m W, else end
                mid = (lo_ + hi_) // 2
                if n_bins * exact(mid) > m * whole:
                    hi_ = mid
                else:
                    lo_ = mid + 1
            starts[i] = lo_
    return starts


def _exact_prefix(parts: list, run: np.ndarray, total: float, small: tuple = (),
                  small_shift: int = 0):
    """A function of ``j`` returning the exact ``C_j`` (an int or a Fraction); None if too long.

    Whole weights summing below ``2**53``: the float running sums, exact.
    Otherwise :func:`_prefix_levels` (of the small parts apart, in their units).
    """
    if (len(parts) == 1 and not small and total < 2.0**53
            and np.array_equal(parts[0], np.floor(parts[0]))):
        return lambda j: int(run[j])
    levels = _prefix_levels(parts)
    tiny = _prefix_levels(list(small)) if small else []
    if levels is None or tiny is None:
        return None
    unit = Fraction(1, 1 << small_shift)

    def exact(j: int) -> Fraction:
        out = sum((Fraction(float(level[j])) for level in levels), Fraction(0))
        return out + unit * sum((Fraction(float(level[j])) for level in tiny), Fraction(0))

    return exact


def _prefix_levels(parts: list, max_levels: int = 64) -> list | None:
    """Float arrays whose elementwise sum is exactly the prefix sum of ``sum(parts)``.

    The running sum of each array in turn (``np.cumsum``, sequential), and
    of the exact errors of its steps (two-sum) after it, until a running
    sum makes no error: ``sum_i<=j t_i = run_j + sum_i<=j err_i`` exactly.
    The errors shrink by at least ``2**-53`` times the length per level;
    None (use integers) after ``max_levels``.  Sums must stay below
    ``2**1023``.
    """
    levels = []
    queue = list(parts)
    while queue:
        if len(levels) == max_levels:
            return None
        terms = queue.pop(0)
        run = np.cumsum(terms)
        before = np.zeros_like(run)
        before[1:] = run[:-1]
        err = two_sum(before, terms)[1]
        levels.append(run)
        if err.any():
            queue.append(err)
    return levels


def _integer_upper_bins(parts: list, n_bins: int, small: tuple = (),
                        small_shift: int = 0) -> np.ndarray:
    """:func:`upper_mass_bins` in integer arithmetic (units of ``2**-1074``): a Python loop."""
    weight = [0] * parts[0].shape[0]
    for part in parts:
        for j, v in enumerate(part.tolist()):
            weight[j] += _units(v) << small_shift
    for part in small:
        for j, v in enumerate(part.tolist()):
            weight[j] += _units(v)
    return _bins_of_integers(weight, n_bins)


def _units(v: float) -> int:
    """``v`` in units of ``2**-1074`` (exact: every float is a whole number of them)."""
    num, den = v.as_integer_ratio()
    return num * ((1 << 1074) // den)


def _bins_of_integers(weight: list, n_bins: int) -> np.ndarray:
    upto = list(itertools.accumulate(weight))
    total = upto[-1]
    bins = [(n_bins * c - 1) // total for c in upto]  # ceil(K c / W) - 1 for c > 0
    return np.clip(np.array(bins, dtype=np.int64), 0, n_bins - 1).astype(np.intp)


def upper_mass_bins_of_rows(
    values: np.ndarray, weights: np.ndarray, n_bins: int
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(distinct values, bins)`` of :func:`upper_mass_bins` from rows, in integers.

    For weights whose tied sums a score summary cannot hold in two doubles
    (some ``2**106`` apart) or past ``2**960`` beside subnormal ones, which
    no power of two scales exactly: each row's weight in units of
    ``2**-1074`` (a Python loop over the rows).  Rows of zero weight are left
    out.

    Examples
    --------
    >>> import numpy as np
    >>> upper_mass_bins_of_rows(np.array([0.3, 0.1, 0.3]), np.array([1e308, 1e-310, 1e308]), 2)
    (array([0.1, 0.3]), array([0, 1]))
    """
    keep = weights > 0
    values, weights = values[keep], weights[keep]
    order = np.argsort(values, kind="stable")
    values, weights = values[order], weights[order]
    first = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    weight = [0] * first.shape[0]
    for j, v in zip(np.cumsum(np.r_[True, values[1:] != values[:-1]]).tolist(),
                    weights.tolist(), strict=True):
        weight[j - 1] += _units(v)
    return values[first], _bins_of_integers(weight, n_bins)


def equal_width_edges(lo: float, hi: float, n_bins: int) -> np.ndarray:
    """Return the ``n_bins + 1`` edges ``lo + k (hi - lo) / n_bins``, each correctly rounded.

    Exact rational arithmetic (Python integers: their true division rounds
    correctly), so an edge is the double nearest its real value, for any
    ``lo < hi`` (``hi - lo`` may pass the largest double), and the end
    points are exactly ``lo`` and ``hi``.  ``np.linspace`` rounded ``3 *
    0.1`` to ``0.30000000000000004``, an ulp past ``3/10``, and a score
    there fell in the bin below (attack 48 F5; 16 % of edges were an ulp off).
    About 0.25 microseconds an edge.

    Examples
    --------
    >>> equal_width_edges(-1.0, 1.0, 4)
    array([-1. , -0.5,  0. ,  0.5,  1. ])
    >>> float(equal_width_edges(0.0, 1.0, 10)[3])
    0.3
    """
    nlo, dlo = float(lo).as_integer_ratio()
    nhi, dhi = float(hi).as_integer_ratio()
    base, step, den = nlo * dhi * n_bins, nhi * dlo - nlo * dhi, dlo * dhi * n_bins
    return np.array([(base + step * k) / den for k in range(n_bins + 1)], dtype=np.float64)


def unit_edges(n_bins: int) -> np.ndarray:
    """Return the edges ``k / K`` of ``K`` equal-width bins on ``[0, 1]``.

    Computed as ``k / K`` (correctly rounded), never as ``k * (1 / K)``, so a
    probability equal to ``k / K`` lies exactly on an edge.

    Examples
    --------
    >>> unit_edges(4)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    return np.arange(n_bins + 1, dtype=np.float64) / n_bins
