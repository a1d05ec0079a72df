"""The exact solution path of nearly-isotonic regression (Tibshirani et al. 2011)."""

from __future__ import annotations

import math

import numpy as np

from .._kernels.neariso import neariso_path
from .._validation import (
    Check,
    Interval,
    check_sample_weight,
    check_scores,
    nonzero_rows,
    validate_params,
)
from ..summary import summarize

__all__ = ["NearIsotonicPath", "near_isotonic_path"]

_LAMBDA = [Interval("real", 0.0, None), Check(lambda v: v == math.inf, "inf")]


def near_isotonic_path(scores, y, sample_weight=None) -> NearIsotonicPath:
    r"""Return the whole solution path of weighted nearly-isotonic regression.

    With the calibration data reduced to its sorted distinct scores
    ``s_1 < ... < s_k``, weights ``w_j`` (summed over tied scores) and mean
    targets ``z_j`` (the weighted mean of ``y`` at ``s_j``; the positive rate
    for 0/1 labels), the fit at ``lam >= 0`` is

    .. math::

        \hat\beta(\lambda) = \arg\min_\beta \tfrac12 \sum_j w_j (z_j - \beta_j)^2
            + \lambda \sum_j (\beta_j - \beta_{j+1})_+ .

    It is the data at ``lam = 0`` and the weighted isotonic regression for
    ``lam`` at or above the last knot; in between it is piecewise linear in
    ``lam``, and adjacent groups of equal values merge (never split) at the
    knots.  The whole path costs ``O(k log k)`` time and ``O(k)`` memory
    (modified PAVA with the merge times in a binary heap; Naeini & Cooper 2016,
    Algorithm 1).

    Parameters
    ----------
    scores : array-like of shape (n_samples,)
        Scores (any finite reals); they only order the targets.
    y : array-like of shape (n_samples,)
        Targets: 0/1 labels or any finite reals.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative frequency weights; rows of weight 0 are dropped.

    Returns
    -------
    NearIsotonicPath

    Examples
    --------
    >>> from venncal import near_isotonic_path
    >>> path = near_isotonic_path([1, 2, 3, 4, 5], [0, 1, 0, 0, 1])
    >>> path.knots, path.n_groups
    (array([0.        , 0.66666667]), array([4, 3]))
    >>> path.solution(0.25)
    array([0.   , 0.75 , 0.125, 0.125, 1.   ])
    >>> path.solution(float("inf"))  # the isotonic fit
    array([0.        , 0.33333333, 0.33333333, 0.33333333, 1.        ])
    """
    s = check_scores(scores)
    z = check_scores(y, name="y")
    if z.shape[0] != s.shape[0]:
        raise ValueError(f"scores and y have different lengths: {s.shape[0]} and {z.shape[0]}")
    w = check_sample_weight(sample_weight, s.shape[0])
    if w is None and ((z == 0.0) | (z == 1.0)).all():
        # 0/1 labels: the score summary, which sorts each class (no argsort).
        return NearIsotonicPath._from_summary(*summarize(s, z == 1.0, None))
    if w is None:
        w = np.ones_like(s)
    else:
        keep = nonzero_rows(w)
        if keep is not None:
            s, z, w = s[keep], z[keep], w[keep]
    order = np.argsort(s)
    s, z, w = s[order], z[order], w[order]
    first = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1])))
    return NearIsotonicPath._from_summary(
        s[first], np.add.reduceat(w, first), np.add.reduceat(w * z, first)
    )


class NearIsotonicPath:
    """The nearly-isotonic solution path over a score summary.

    Built by :func:`near_isotonic_path`; also from sums directly, as
    ``NearIsotonicPath(scores, weights, weighted_targets)`` (strictly
    increasing scores, positive weights, ``weighted_targets = weights * z``).

    Attributes
    ----------
    scores : ndarray of shape (k,)
        The distinct scores, increasing.
    weights : ndarray of shape (k,)
        Total weight at each score.
    targets : ndarray of shape (k,)
        Weighted mean target at each score (the fit at ``lam = 0``).
    knots : ndarray of shape (t,)
        The values of ``lam`` at which groups merge, increasing (``0`` first
        when adjacent targets are equal: they are fused at once).
    n_groups : ndarray of shape (t,)
        Number of groups of the fit at each knot (after its merges).

    Examples
    --------
    >>> from venncal.enir import NearIsotonicPath
    >>> path = NearIsotonicPath([0.1, 0.2, 0.3], [1.0, 1.0, 2.0], [0.0, 1.0, 0.0])
    >>> path.knots, path.n_groups
    (array([0.66666667]), array([2]))
    >>> path.groups(0.7)
    array([0, 1])
    """

    def __init__(self, scores, weights, weighted_targets):
        s = check_scores(scores)
        w = check_scores(weights, name="weights")
        num = check_scores(weighted_targets, name="weighted_targets")
        k = s.shape[0]
        if w.shape[0] != k or num.shape[0] != k:
            raise ValueError("scores, weights and weighted_targets must have one length")
        if not (w > 0).all():
            raise ValueError("weights must be positive")
        if (np.diff(s) <= 0).any():
            raise ValueError("scores must be strictly increasing (pool tied scores first)")
        self._build(s, w, num)

    @classmethod
    def _from_summary(cls, scores, weights, weighted_targets) -> NearIsotonicPath:
        """Build from a score summary, which is valid by construction (no checks)."""
        path = cls.__new__(cls)
        path._build(scores, weights, weighted_targets)
        return path

    def _build(self, scores, weights, num):
        self.scores = scores
        self.weights = weights
        self.targets = num / weights
        (self._A, self._W, self._d, self._start, self._end,
         self._birth, self._death, self._left, self._right) = neariso_path(num, self.weights)
        k = self.scores.shape[0]
        # Merges are in time order within a segment of the kernel, not across.
        self.knots, merges = np.unique(self._birth[k:], return_counts=True)
        self.n_groups = k - np.cumsum(merges)

    @property
    def _knot_of_merge(self) -> np.ndarray:
        """Index in :attr:`knots` of the birth of each merged group (ids ``k, k + 1, ...``)."""
        return np.searchsorted(self.knots, self._birth[self.scores.shape[0]:])

    def _alive(self, lam: float) -> np.ndarray:
        lam = float(lam)
        validate_params("NearIsotonicPath", {"lam": lam}, {"lam": _LAMBDA})
        ids = np.flatnonzero((self._birth <= lam) & ((lam < self._death) | (self._death == math.inf)))
        return ids[np.argsort(self._start[ids])]

    def _values(self, ids: np.ndarray, lam: float) -> np.ndarray:
        d = self._d[ids]
        if math.isinf(lam):
            return self._A[ids] / self._W[ids]  # only groups with d = 0 live forever
        return (self._A[ids] + lam * d) / self._W[ids]

    def solution(self, lam: float) -> np.ndarray:
        """Return the fit at ``lam`` (``0 <= lam <= inf``) at the distinct scores."""
        ids = self._alive(lam)
        return np.repeat(self._values(ids, float(lam)), self._end[ids] - self._start[ids])

    def groups(self, lam: float) -> np.ndarray:
        """Return the index (into ``scores``) of the first score of each group at ``lam``."""
        return self._start[self._alive(lam)].astype(np.intp)

    def objective(self, lam: float) -> float:
        """Return the minimal objective value at ``lam`` (finite)."""
        b = self.solution(lam)
        lam = float(lam)
        fit = 0.5 * float(np.sum(self.weights * (self.targets - b) ** 2))
        return fit + lam * float(np.sum(np.maximum(b[:-1] - b[1:], 0.0)))

    def __repr__(self) -> str:
        return (f"NearIsotonicPath(n_scores={self.scores.shape[0]}, "
                f"n_knots={self.knots.shape[0]})")
