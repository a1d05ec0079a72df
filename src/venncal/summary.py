"""The score summary: sorted distinct scores with total, positive and negative weight."""

from __future__ import annotations

import math
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np

from ._kernels import (
    merge_summaries_exact,
    scaled_sum,
    split_by_label,
    summarize_by_order_exact,
    summarize_sorted_classes,
)
from ._kernels.dd import two_sum
from ._kernels.radix import sort_with_payload
from ._kernels.summary import INEXACT, OVERFLOW, negatives
from ._validation import check_binary_labels, check_sample_weight, check_scores

__all__ = ["ScoreSummary", "weight_texts"]

#: Weighted data of at least this many rows are put in score order by the radix sort of
#: :mod:`venncal._kernels.radix`, smaller ones by ``np.argsort`` (the same summary).
RADIX_MIN_ROWS = 4096


class WeightSumOverflow(ValueError):
    """Tied weights sum past the largest double; ``score`` is the score they are tied at."""

    def __init__(self, message: str, score: float = float("nan")):  # pickles by its message
        super().__init__(message)
        self.score = score


def _check_overflow(s, w, flags):
    """Raise when the kernel's ``flags`` say that tied weights summed past the largest double."""
    if flags & OVERFLOW:
        j = int(np.flatnonzero(~(w < np.inf))[0])
        raise WeightSumOverflow(
            f"sample_weight: the weights of the observations with score {float(s[j])!r} sum "
            "to more than the largest float64 (1.8e308); divide the weights by a common factor",
            float(s[j]))


def summarize_exact(scores: np.ndarray, y01: np.ndarray, weights: np.ndarray | None):
    """Reduce validated arrays to ``(s, w, a, b, residual, tail)`` (see :class:`ScoreSummary`).

    Raises ``ValueError`` when tied weights sum past the float64 range.
    Sums that two doubles do not hold (an intermediate double-double sum of
    1e300, 2**53 and 1, say, whatever the final sum) are redone exactly, so
    that the summary does not depend on the order of the rows.
    """
    if weights is None:
        neg, pos = split_by_label(scores, y01)
        neg.sort()
        pos.sort()
        s, w, a = summarize_sorted_classes(neg, pos)
        return s, w, a, w - a, None, None  # counts: exact
    if scores.shape[0] >= RADIX_MIN_ROWS:
        # The rows in score order, each weight signed by its label (-w for label 0) and
        # moved with its score by one radix sort, so that the summary reads them in order
        # (an argsort and a gather at random cost about twice as much at 1e6 rows).  Ties
        # may come in any order: their sums are exact (or redone exactly), so the summary
        # is the same for every order of the rows.
        scores, signed = sort_with_payload(scores, np.where(y01, weights, -weights))
        y01, weights = signed > 0, np.abs(signed)
        order = np.arange(scores.shape[0])
    else:  # the radix sort's fixed cost (six passes of 2048 buckets) is not yet repaid
        order = np.argsort(scores)
    s, w, a, b, residual, flags = summarize_by_order_exact(scores, y01, weights, order)
    _check_overflow(s, w, flags)
    if flags & INEXACT:  # a sum past two doubles: exact sums, rounded once
        return (s, *_exact_sums(scores, y01, weights, order, s))
    return s, w, a, b, residual, None


def _round_exact(j, value, hi, lo):
    """Write the rational ``value`` rounded once to ``hi[j]``, the rest rounded to ``lo[j]``.

    Returns whether ``hi[j] + lo[j]`` is ``value`` exactly.
    """
    hi[j] = float(value)  # int / int: correctly rounded
    rest = value - Fraction(float(hi[j]))
    lo[j] = float(rest)
    return rest == Fraction(float(lo[j]))


def _exact_sums(scores, y01, weights, order, s):
    """``(w, a, b, residual, tail)`` of the distinct scores ``s`` in rational arithmetic.

    For the rare ties whose sums, or partial sums, need more than two
    doubles (weights some 2**106 apart): each sum is correctly rounded, as
    for any other data, the remainders keep the next 53 bits, and ``tail`` maps each score whose
    sums two doubles do not hold to its exact class sums ``(positive,
    negative)`` (see :meth:`ScoreSummary.merge`).  A Python loop over the rows.
    """
    keep = order[weights[order] > 0]
    starts = np.flatnonzero(np.r_[True, scores[keep][1:] != scores[keep][:-1]])
    ends = np.r_[starts[1:], keep.shape[0]]
    k = s.shape[0]
    w, a, b = np.empty(k), np.empty(k), np.empty(k)
    wl, al, bl = np.zeros(k), np.zeros(k), np.zeros(k)

    def exact(rows):
        return sum((Fraction(x) for x in weights[rows].tolist()), Fraction(0))

    tail = {}
    for j, (start, end) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        rows = keep[start:end]
        pos, neg = exact(rows[y01[rows]]), exact(rows[~y01[rows]])
        if not _round_all(j, pos, neg, (w, wl), (a, al), (b, bl)):
            tail[float(s[j])] = (pos, neg)
    residual = (wl, al, bl) if (wl.any() or al.any() or bl.any()) else None
    return w, a, b, residual, tail or None


def _round_all(j, pos, neg, total, positive, negative):
    """Round the exact class sums at entry ``j`` into the ``(hi, lo)`` array pairs given.

    Returns whether the pairs hold all three sums exactly.
    """
    exact = True
    for (hi, lo), value in ((total, pos + neg), (positive, pos), (negative, neg)):
        exact &= _round_exact(j, value, hi, lo)
    return exact


def _exact_at(summary, score):
    """The exact ``(positive, negative)`` weights of ``summary`` at ``score`` (0 when absent)."""
    if summary._tail is not None and score in summary._tail:
        return summary._tail[score]
    j = int(np.searchsorted(summary.scores, score))
    if j == summary.scores.shape[0] or summary.scores[j] != score:
        return Fraction(0), Fraction(0)
    pos = Fraction(float(summary.positive_weights[j]))
    neg = Fraction(float(summary.negative_weights[j]))
    if summary._residual is not None:
        pos += Fraction(float(summary._residual[1][j]))
        neg += Fraction(float(summary._residual[2][j]))
    return pos, neg


def _inexact_ties(one, two):
    """The scores of both summaries whose exact sums two doubles may not hold (numpy).

    The kernel's test (:func:`~venncal._kernels.summary.merge_summaries_into`),
    repeated for the tied scores only: each of the three sums adds four terms.
    """
    common, i, j = np.intersect1d(one.scores, two.scores, assume_unique=True,
                                  return_indices=True)
    if common.shape[0] == 0:
        return common
    bad = np.zeros(common.shape[0], dtype=bool)
    for k, h in enumerate(("weights", "positive_weights", "negative_weights")):
        h1, h2 = getattr(one, h)[i], getattr(two, h)[j]
        l1 = one._residual[k][i] if one._residual is not None else np.zeros_like(h1)
        l2 = two._residual[k][j] if two._residual is not None else np.zeros_like(h1)
        hi, e = two_sum(h1, h2)
        lo, f = two_sum(l1, e)
        hi, e = two_sum(hi, l2)
        _, g = two_sum(lo, e)
        bad |= (f != 0.0) | (g != 0.0)
    return common[bad]


def _merge_exact(one, two, s, w, a, b, residual, inexact):
    """Redo in rational arithmetic the merged entries that two doubles do not hold.

    The scores with an exact tail in either summary and, when the kernel
    said ``inexact``, the tied scores whose sums needed more than two
    doubles: their sums are rounded once from the exact values, as
    :func:`summarize_exact` rounds them, and those that still need more
    keep their exact values in the tail.  Returns ``(w, a, b, residual, tail)``.
    """
    scores = set()
    for summary in (one, two):
        if summary._tail is not None:
            scores.update(summary._tail)
    if inexact:
        scores.update(_inexact_ties(one, two).tolist())
    if residual is None:
        residual = tuple(np.zeros_like(w) for _ in range(3))
    wl, al, bl = residual
    tail = {}
    for score in sorted(scores):
        (p1, n1), (p2, n2) = _exact_at(one, score), _exact_at(two, score)
        pos, neg = p1 + p2, n1 + n2
        j = int(np.searchsorted(s, score))
        if not _round_all(j, pos, neg, (w, wl), (a, al), (b, bl)):
            tail[score] = (pos, neg)
    residual = (wl, al, bl) if (wl.any() or al.any() or bl.any()) else None
    return w, a, b, residual, tail or None


def summarize(scores: np.ndarray, y01: np.ndarray, weights: np.ndarray | None):
    """Reduce validated arrays to ``(s, w, a)`` (see :class:`ScoreSummary`)."""
    return summarize_exact(scores, y01, weights)[:3]


class ScoreSummary:
    """Calibration data reduced to sorted distinct scores and their weights.

    Every batch calibrator in venncal depends on the calibration data only
    through this summary, and two summaries merge exactly, so calibration
    data can be reduced in pieces (for example per partition of a
    distributed data set) and merged before fitting.

    Parameters
    ----------
    scores : ndarray of shape (k,)
        Strictly increasing distinct scores (``-0.0`` is stored as ``0.0``).
    weights : ndarray of shape (k,)
        Total (frequency) weight of the observations at each score, > 0 and
        finite.
    positive_weights : ndarray of shape (k,)
        Weight of the observations labelled 1 at each score.

    Attributes
    ----------
    negative_weights : ndarray of shape (k,)
        Weight of the observations labelled 0 at each score, summed on its
        own: ``weights - positive_weights`` would lose a class of tiny
        weights beside a huge one (``1e300 + 1e-300`` rounds to ``1e300``).
        For a summary built by the constructor, ``weights -
        positive_weights`` (with its rounding error kept as a remainder).

    Notes
    -----
    **Exact sums.**  The weights of tied scores are added in double-double
    arithmetic and rounded once, the total and each class on its own:
    ``weights``, ``positive_weights`` and ``negative_weights`` hold the
    correctly rounded sums, and the summary keeps the remainders, so that a merge adds the
    exact sums.  Where a sum (or a partial sum on the way to it) does not fit
    in two doubles (106 significant bits: ``1e300 + 1e150 + 1``, or ``2**53``,
    ``1`` and ``1e-310``, whole numbers or not) it is computed exactly in
    rational arithmetic (only for those scores), correctly rounded, and,
    when two doubles do not hold it, kept exactly beside the rounded sums.
    A summary is therefore the same, bit for bit, whatever the order of the
    rows and of the merges: any pieces merged in any order round each sum
    as :meth:`from_arrays` rounds the whole data.  Weights that sum past the
    largest float64 at one score raise ``ValueError``.  A summary built
    from arrays (the constructor) has no remainders.

    Examples
    --------
    >>> from venncal import ScoreSummary
    >>> s = ScoreSummary.from_arrays([0.3, 0.1, 0.3, 0.9], [1, 0, 0, 1])
    >>> s.scores, s.weights, s.positive_weights
    (array([0.1, 0.3, 0.9]), array([1., 2., 1.]), array([0., 1., 1.]))
    >>> s.merge(ScoreSummary.from_arrays([0.3], [1])).weights
    array([1., 3., 1.])

    Whole-number weights past ``2**53`` add up exactly, in any order:

    >>> big = ScoreSummary.from_arrays([0.5, 0.5], [0, 1], [2.0**53, 1.0])
    >>> one = ScoreSummary.from_arrays([0.5], [1], [1.0])
    >>> int(big.merge(one).weights[0]) - 2**53
    2
    """

    __slots__ = (
        "_residual", "_tail", "negative_weights", "positive_weights", "scores", "weights",
    )

    def __init__(self, scores, weights, positive_weights):
        s = np.ascontiguousarray(scores, dtype=np.float64)
        w = np.ascontiguousarray(weights, dtype=np.float64)
        a = np.ascontiguousarray(positive_weights, dtype=np.float64)
        if s.ndim != 1 or s.shape != w.shape or s.shape != a.shape:
            raise ValueError("scores, weights and positive_weights must be 1-D of equal length")
        if s.shape[0] and not (np.all(np.isfinite(s)) and np.all(np.diff(s) > 0)):
            raise ValueError("summary scores must be finite and strictly increasing")
        if not (np.all(w > 0) and np.all(np.isfinite(w)) and np.all(a >= 0) and np.all(a <= w)):
            raise ValueError(
                "summary weights must be finite and satisfy 0 <= positive_weights <= weights, "
                "0 < weights"
            )
        self.scores = s + 0.0  # a copy, with -0.0 as 0.0
        self.weights = w
        self.positive_weights = a
        self.negative_weights, bl = negatives(w, a)
        self._residual = (np.zeros_like(w), np.zeros_like(w), bl) if bl.any() else None
        self._tail = None

    @classmethod
    def from_arrays(cls, scores, y, sample_weight=None) -> ScoreSummary:
        """Summarize scores with labels in {0, 1} (or booleans).

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
        y : array-like of shape (n_samples,)
            Labels 0 and 1, or booleans (True is positive).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights; observations of zero weight are
            dropped.

        Returns
        -------
        ScoreSummary

        Raises
        ------
        ValueError
            For invalid input, or weights whose sums cannot be kept (see Notes).
        """
        s = check_scores(scores)
        y01 = check_binary_labels(y, s.shape[0])
        w = check_sample_weight(sample_weight, s.shape[0])
        return cls._from_validated(s, y01, w)

    @classmethod
    def _from_validated(cls, scores, y01, weights) -> ScoreSummary:
        return cls._of(*summarize_exact(scores, y01, weights))

    @classmethod
    def _of(cls, s, w, a, b, residual=None, tail=None) -> ScoreSummary:
        """A summary of arrays known to be valid (no checks, no copies).

        ``tail`` maps the rare scores whose exact sums two doubles do not
        hold to their exact ``(positive, negative)`` weights (Fractions).
        """
        out = cls.__new__(cls)
        out.scores, out.weights, out.positive_weights, out.negative_weights = s, w, a, b
        out._residual = residual
        out._tail = tail
        return out

    def merge(self, other: ScoreSummary) -> ScoreSummary:
        """Return the summary of both data sets together (exact; see Notes).

        Raises
        ------
        ValueError
            When tied weights sum past the float64 range.
        """
        if not isinstance(other, ScoreSummary):
            raise TypeError(f"can only merge with a ScoreSummary, not {type(other).__name__}")
        s, w, a, b, residual, flags = merge_summaries_exact(
            self.scores, self.weights, self.positive_weights, self.negative_weights,
            other.scores, other.weights, other.positive_weights, other.negative_weights,
            self._residual, other._residual,
        )
        _check_overflow(s, w, flags)
        tail = None
        if flags & INEXACT or self._tail is not None or other._tail is not None:
            w, a, b, residual, tail = _merge_exact(
                self, other, s, w, a, b, residual, bool(flags & INEXACT)
            )
        return ScoreSummary._of(s, w, a, b, residual, tail)

    def _of_one_label(self, positive: bool) -> ScoreSummary:
        """The same observations all labelled 1 (``positive``) or all 0, remainders kept.

        For engines that summarise each label apart and merge the pieces.
        """
        none = np.zeros_like(self.weights)
        residual = None
        if self._residual is not None:
            rest = self._residual[0]
            zero = np.zeros_like(rest)
            residual = (rest, rest, zero) if positive else (rest, zero, rest)
        tail = None
        if self._tail is not None:
            zero = Fraction(0)
            tail = {
                s: ((p + n, zero) if positive else (zero, p + n)) for s, (p, n) in self._tail.items()
            }
        if positive:
            return ScoreSummary._of(self.scores, self.weights, self.weights, none, residual, tail)
        return ScoreSummary._of(self.scores, self.weights, none, self.weights, residual, tail)

    def _negated(self) -> ScoreSummary:
        """The summary of minus the scores (remainders kept)."""
        residual = None
        if self._residual is not None:
            residual = tuple(np.ascontiguousarray(r[::-1]) for r in self._residual)
        return ScoreSummary._of(
            np.ascontiguousarray(np.negative(self.scores[::-1])) + 0.0,
            np.ascontiguousarray(self.weights[::-1]),
            np.ascontiguousarray(self.positive_weights[::-1]),
            np.ascontiguousarray(self.negative_weights[::-1]),
            residual,
            None if self._tail is None else {-s + 0.0: v for s, v in self._tail.items()},
        )

    @property
    def n_distinct(self) -> int:
        """Number of distinct scores."""
        return int(self.scores.shape[0])

    @property
    def total_weight(self) -> float:
        """Total weight of the summarized observations (rounded once; inf past float64)."""
        return scaled_sum(self.weights, None if self._residual is None else self._residual[0])

    @property
    def positive_weight(self) -> float:
        """Total weight of the observations labelled 1 (rounded once; inf past float64)."""
        return scaled_sum(
            self.positive_weights, None if self._residual is None else self._residual[1]
        )

    @property
    def negative_weight(self) -> float:
        """Total weight of the observations labelled 0 (rounded once; inf past float64)."""
        return scaled_sum(
            self.negative_weights, None if self._residual is None else self._residual[2]
        )

    def __len__(self) -> int:
        return self.n_distinct

    def __repr__(self) -> str:
        return (
            f"ScoreSummary(n_distinct={self.n_distinct}, total_weight={self.total_weight:g}, "
            f"positive_weight={self.positive_weight:g})"
        )

    def auc(self) -> float:
        """Return the weighted ROC AUC of the summarised scores for label 1 (ties count 1/2).

        The Mann-Whitney statistic: the weight of the (positive, negative)
        pairs whose positive has the higher score, a tie counting 1/2, over
        the weight of all pairs (as :func:`venncal.metrics.roc_auc` with
        ``sample_weight``).

        Raises
        ------
        ValueError
            If the summary holds one class only (no pair to rank).

        Examples
        --------
        >>> from venncal import ScoreSummary
        >>> ScoreSummary.from_arrays([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]).auc()
        0.875
        """
        pos = self.positive_weights
        neg = self.negative_weights
        if not (pos.max(initial=0.0) > 0 and neg.max(initial=0.0) > 0):
            raise ValueError("the AUC needs both classes in the summary (with positive weight)")
        # Each class's weights scaled by its largest (so in [0, 1], their sums in [1, k]), so
        # that weights near 1e308 do not overflow the product of the totals, nor 1e-310
        # underflow it.  Each positive beats the negatives below its score; ties count 1/2.
        a, b = pos / pos.max(), neg / neg.max()
        cum = np.cumsum(b)
        wins = np.sum(a * (cum - 0.5 * b))  # the negatives below, half of those at the score
        return float(wins / (a.sum() * cum[-1]))


def weight_texts(summaries) -> tuple[str, str]:
    """``(total, positive)`` weight of some summaries as ``%g`` text, past the doubles too.

    For messages: ``summary.total_weight`` is ``inf`` past the largest
    double (weights of 1e308: "weight inf of inf", attack 45 F6); here the
    sums are taken in units of the largest weight's power of two and printed
    in decimal (``2.69654e+308``).  Six digits, as ``%g``.

    >>> s = ScoreSummary.from_arrays([0.1, 0.2], [1, 0], sample_weight=[1e308, 1e308])
    >>> weight_texts([s, s])
    ('4e+308', '2e+308')
    """
    out = []
    for name in ("weights", "positive_weights"):
        parts = [np.asarray(getattr(s, name), dtype=np.float64) for s in summaries]
        top = max((float(p.max()) for p in parts if p.size), default=0.0)
        e = math.frexp(top)[1] if top > 0.0 else 0
        total = Decimal(math.fsum(float(np.sum(np.ldexp(p, -e))) for p in parts))
        value = total * Decimal(2) ** e
        out.append(f"{float(value):g}" if value <= _MAX else
                   format(Context(prec=6).plus(value).normalize(), "g"))
    return out[0], out[1]


_MAX = Decimal(float(np.finfo(np.float64).max))
